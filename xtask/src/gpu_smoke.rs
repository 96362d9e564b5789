//! `cargo xtask gpu-smoke`: the NVML path on this machine's real GPUs, in under a minute.
//!
//! xtask depends on `cpps-topology` only (no client crate), so the smoke itself is the example
//! `gpu-smoke` of `cpps-gpu`: this builds it, runs it with a one-minute bound and passes its
//! output and exit status through (0 when NVML answered, 1 "no NVML library" or no driver/GPU).
//! Nothing here is needed to build or pass the tests.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use crate::tools::cargo;

/// The bound on the run of the smoke (the build before it is not counted).
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Arguments of `cargo xtask gpu-smoke`.
#[derive(Debug, clap::Args)]
pub(crate) struct GpuSmokeArgs {
    /// The NVML library to load (default: libnvidia-ml.so.1 from the system).
    #[arg(long, value_name = "PATH")]
    nvml_lib: Option<std::path::PathBuf>,
    /// How long to poll the XID event set, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    poll_ms: u64,
}

pub(crate) fn run(args: GpuSmokeArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    let status = Command::new(cargo())
        .args(["build", "-q", "-p", "cpps-gpu", "--example", "gpu-smoke"])
        .current_dir(&root)
        .status()
        .context("building the gpu-smoke example")?;
    if !status.success() {
        bail!("building the gpu-smoke example failed");
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let binary = target.join("debug").join("examples").join("gpu-smoke");
    let mut command = Command::new(&binary);
    command.args(["--poll-ms", &args.poll_ms.to_string()]);
    if let Some(lib) = &args.nvml_lib {
        command.arg("--nvml-lib").arg(lib);
    }
    let mut child = command
        .current_dir(&root)
        .spawn()
        .with_context(|| format!("running {}", binary.display()))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(match status.code() {
                Some(0) => ExitCode::SUCCESS,
                Some(1) => ExitCode::from(1),
                _ => ExitCode::from(2),
            });
        }
        if started.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            bail!("gpu-smoke did not finish within {} s", RUN_LIMIT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
