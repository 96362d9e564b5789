//! What the other commands share: the cargo that runs them, a checked step, the tool cache, the
//! package installs and the bench executables.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The cargo that runs this xtask.
pub(crate) fn cargo() -> PathBuf {
    std::env::var_os("CARGO").map_or_else(|| PathBuf::from("cargo"), PathBuf::from)
}

/// Fails unless `command` succeeds, echoing it first.
pub(crate) fn run_step(name: &str, command: &mut Command) -> Result<()> {
    eprintln!("xtask: {name}");
    let status = command
        .status()
        .with_context(|| format!("running {name}"))?;
    if !status.success() {
        bail!("{name} failed ({status})");
    }
    Ok(())
}

/// Where the test servers' and benchmarks' tools are cached, outside the repository.
pub(crate) fn tool_cache() -> PathBuf {
    std::env::var_os("CPPS_TOOL_CACHE").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
            PathBuf::from(home).join(".cache").join("cpps-tools")
        },
        PathBuf::from,
    )
}

/// Installs a tool the way the test servers' scripts do: through `xtask/env/install.sh`, which
/// takes the machine's install lock and says which package failed and why.
pub(crate) fn install(args: &[&str]) -> Result<()> {
    let root = crate::workspace_root()?;
    run_step(
        &format!("install.sh {}", args.join(" ")),
        Command::new("bash")
            .arg(root.join("xtask/env/install.sh"))
            .args(args),
    )
}

/// Builds a bench binary and returns its path (from cargo's JSON messages).
pub(crate) fn bench_executable(root: &Path, package: &str, bench: &str) -> Result<PathBuf> {
    // The live features: benches that need them say so (`required-features`).
    let features: &[&str] = if package == "cpps-topology" {
        &["--features", "live"]
    } else {
        &[]
    };
    let output = Command::new(cargo())
        .args([
            "bench",
            "-p",
            package,
            "--bench",
            bench,
            "--no-run",
            "--message-format=json",
        ])
        .args(features)
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()
        .context("building the sweep bench")?;
    if !output.status.success() {
        bail!("building the {bench} bench failed");
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["target"]["name"] == bench)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .with_context(|| format!("cargo did not report the {bench} executable"))
}
