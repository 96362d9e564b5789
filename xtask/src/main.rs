//! `cargo xtask`: the workspace's automation.
//!
//! A plain dispatch: each subcommand lives in its own module with a clap `Args` struct and a
//! `run(args) -> anyhow::Result<ExitCode>`; the logic worth testing lives in library crates.
// `deny`, not `forbid`: `bench_link` allows it for the system calls of its TAP devices.
#![deny(unsafe_code)]

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench;
mod bench_audit;
mod bench_link;
mod bench_sweep;
mod check;
mod ci;
mod diagram;
mod gpu_smoke;
mod schema;
mod semver;
mod test;
mod tools;

/// Workspace automation for the CPPS SDK.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Check a topology against the ADR invariants: exit 0 when clean, 1 on unsuppressed errors
    /// (or warnings with `--deny warnings`), 2 when the file cannot be read or parsed.
    Check(check::CheckArgs),
    /// Write the JSON Schema of the topology file format.
    Schema(schema::SchemaArgs),
    /// Write a Mermaid diagram of a topology, coloured by state.
    Diagram(diagram::DiagramArgs),
    /// Start the independent test servers (fakepve, Prism, kube-apiserver) on 127.0.0.1, run
    /// every test of the workspace with them, and stop them.
    Test(test::TestArgs),
    /// Run what CI checks: fmt, clippy -D warnings, the tests (with their servers), docs, and
    /// the public API against the last release.
    Ci(ci::CiArgs),
    /// Benchmarks: proxmoxer vs cpps on fakepve, the rule engine, decoding, peak memory.
    Bench(bench::BenchArgs),
    /// Run the NVML path on this machine's real GPUs (cpps-gpu's example `gpu-smoke`) and print
    /// what it saw; exit 1 with "no NVML library" where there is none.
    GpuSmoke(gpu_smoke::GpuSmokeArgs),
    /// Compare the library crates' public API with the last release (`xtask/semver-baseline`)
    /// using cargo-semver-checks, installed into the tool cache on first use.
    Semver(semver::SemverArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Check(args) => check::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Diagram(args) => diagram::run(args),
        Command::Test(args) => test::run(args),
        Command::Ci(args) => ci::run(args),
        Command::Bench(args) => bench::run(args),
        Command::GpuSmoke(args) => gpu_smoke::run(args),
        Command::Semver(args) => semver::run(args),
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// The workspace root: the parent of this crate's manifest directory.
fn workspace_root() -> anyhow::Result<std::path::PathBuf> {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(std::path::Path::to_path_buf)
        .ok_or_else(|| anyhow::anyhow!("xtask is not inside a workspace"))
}
