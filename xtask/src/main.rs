//! `cargo xtask`: the workspace's automation.
#![forbid(unsafe_code)]

fn main() {
    eprintln!("cargo xtask: no subcommands yet");
    std::process::exit(2);
}
