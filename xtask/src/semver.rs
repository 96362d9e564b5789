//! `cargo xtask semver`: the public API of the library crates against a baseline commit, with
//! `cargo-semver-checks` (crates.io), so that a tool linking the crates is not broken by a change
//! whose version does not say so.
//!
//! The baseline is the commit named in `xtask/semver-baseline`: the last release. A change that
//! breaks the API after it fails the check unless the workspace version is bumped (for 0.x, the
//! minor number); a release moves the baseline forward.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::tools::{cargo, run_step, tool_cache};

/// The version installed: rustdoc's JSON format changes with the toolchain, and this one reads
/// the format of the workspace's toolchain (rustc 1.95).
const SEMVER_CHECKS_VERSION: &str = "0.51.0";

/// The crates whose public API tools link against (`examples` and `xtask` are binaries).
const LIBRARY_CRATES: [&str; 9] = [
    "cpps-named-enum",
    "cpps-http",
    "cpps-proxmox-family",
    "cpps-proxmox",
    "cpps-pbs",
    "cpps-linstor",
    "cpps-vyos",
    "cpps-gpu",
    "cpps-topology",
];

/// Arguments of `cargo xtask semver`.
#[derive(Debug, clap::Args)]
pub(crate) struct SemverArgs {
    /// Compare with this revision instead of the one in `xtask/semver-baseline`.
    #[arg(long)]
    baseline: Option<String>,
}

pub(crate) fn run(args: SemverArgs) -> Result<std::process::ExitCode> {
    let root = crate::workspace_root()?;
    check(&root, args.baseline)?;
    Ok(std::process::ExitCode::SUCCESS)
}

/// Runs the check against `baseline` (default: the file's commit); fails on a break.
pub(crate) fn check(root: &Path, baseline: Option<String>) -> Result<()> {
    let baseline = match baseline {
        Some(rev) => rev,
        None => baseline_from_file(&root.join("xtask/semver-baseline"))?,
    };
    let present = Command::new("git")
        .args(["rev-parse", "--verify", "--quiet"])
        .arg(format!("{baseline}^{{commit}}"))
        .current_dir(root)
        .output()
        .context("running git rev-parse")?;
    if !present.status.success() {
        bail!(
            "semver: the baseline commit {baseline} is not in this clone (a shallow clone? \
             `git fetch --unshallow` brings it)"
        );
    }
    let tool = semver_checks()?;
    let mut command = Command::new(tool);
    command
        .args(["semver-checks", "--baseline-rev", &baseline])
        .current_dir(root);
    for krate in LIBRARY_CRATES {
        command.args(["-p", krate]);
    }
    run_step(
        &format!("cargo semver-checks against {baseline}"),
        &mut command,
    )
}

/// The first line of `path` that is neither blank nor a `#` comment.
fn baseline_from_file(path: &Path) -> Result<String> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .with_context(|| format!("{} names no commit", path.display()))
}

/// `cargo-semver-checks`, installed from crates.io into the tool cache on first use.
fn semver_checks() -> Result<PathBuf> {
    let dir = tool_cache().join(format!("semver-checks-{SEMVER_CHECKS_VERSION}"));
    let bin = dir.join("bin").join("cargo-semver-checks");
    if !bin.exists() {
        run_step(
            &format!("cargo install cargo-semver-checks {SEMVER_CHECKS_VERSION}"),
            Command::new(cargo())
                .args(["install", "--locked", "--version", SEMVER_CHECKS_VERSION])
                .arg("--root")
                .arg(&dir)
                .arg("cargo-semver-checks"),
        )?;
    }
    Ok(bin)
}
