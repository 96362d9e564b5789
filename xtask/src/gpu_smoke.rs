//! `cargo xtask gpu-smoke`: the NVML path on this machine's real GPUs.
//!
//! xtask depends on `cpps-topology` only (no client crate), so the smoke itself is the example
//! `gpu-smoke` of `cpps-gpu`: this builds only that example (`cargo build -p cpps-gpu --example
//! gpu-smoke`), says how long the build took, runs it and passes its output and exit status
//! through (0 when NVML answered, 1 "no NVML library" or no driver/GPU). The whole command,
//! build included, is bounded by `--limit-s` (a cold build of cpps-gpu and its dependencies
//! takes minutes; a warm one seconds); the run itself by one minute. Nothing here is needed to
//! build or pass the tests.

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
    /// Bound on the whole command, build included, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 900)]
    limit_s: u64,
}

/// Waits for `child` until `deadline`; kills it then. `Ok(None)` when it was killed.
fn wait_until(
    child: &mut std::process::Child,
    deadline: Instant,
) -> Result<Option<std::process::ExitStatus>> {
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

pub(crate) fn run(args: GpuSmokeArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    let started = Instant::now();
    let deadline = started + Duration::from_secs(args.limit_s);
    let mut build = Command::new(cargo())
        .args(["build", "-q", "-p", "cpps-gpu", "--example", "gpu-smoke"])
        .current_dir(&root)
        .spawn()
        .context("building the gpu-smoke example")?;
    match wait_until(&mut build, deadline)? {
        Some(status) if status.success() => {}
        Some(_) => bail!("building the gpu-smoke example failed"),
        None => bail!(
            "building the gpu-smoke example took more than {} s (--limit-s)",
            args.limit_s
        ),
    }
    eprintln!(
        "gpu-smoke: example built in {:.1} s",
        started.elapsed().as_secs_f64()
    );
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
    let run_deadline = deadline.min(Instant::now() + RUN_LIMIT);
    match wait_until(&mut child, run_deadline)? {
        Some(status) => Ok(match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(1) => ExitCode::from(1),
            _ => ExitCode::from(2),
        }),
        None => bail!(
            "gpu-smoke did not finish within {} s",
            (run_deadline - started).as_secs()
        ),
    }
}
