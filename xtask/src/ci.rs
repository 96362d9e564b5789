//! `cargo xtask ci`: exactly what CI checks, in the order a contributor wants to see failures.

use std::process::{Command, ExitCode};

use anyhow::Result;

use crate::test::TestArgs;
use crate::tools::{cargo, run_step};

/// Arguments of `cargo xtask ci`.
#[derive(Debug, clap::Args)]
pub(crate) struct CiArgs {
    /// Arguments for the test step (see `cargo xtask test --help`).
    #[command(flatten)]
    test: TestArgs,
}

pub(crate) fn run(args: CiArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    run_step(
        "cargo fmt --check",
        Command::new(cargo())
            .args(["fmt", "--all", "--", "--check"])
            .current_dir(&root),
    )?;
    run_step(
        "cargo clippy -D warnings",
        Command::new(cargo())
            .args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--all-features",
                "--",
                "-D",
                "warnings",
            ])
            .current_dir(&root),
    )?;
    // Tests, doc tests and the tidy checks (ordinary tests in xtask/tests/tidy.rs).
    let tested = crate::test::run(args.test)?;
    if tested != ExitCode::SUCCESS {
        return Ok(tested);
    }
    run_step(
        "cargo doc -D warnings",
        Command::new(cargo())
            .args(["doc", "--workspace", "--no-deps", "--all-features"])
            .env("RUSTDOCFLAGS", "-D warnings")
            .current_dir(&root),
    )?;
    // Last: a fresh machine first installs cargo-semver-checks (minutes, cached afterwards).
    crate::semver::check(&root, None)?;
    eprintln!("xtask ci: all checks passed");
    Ok(ExitCode::SUCCESS)
}
