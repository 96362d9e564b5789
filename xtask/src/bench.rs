//! `cargo xtask bench`: benchmarks measured in one run on one machine, printed as `name: value`
//! lines, each subcommand ending with one `PASS`/`MISS` line per target. Nothing here is a timed
//! test: the figures are for reading, not for failing a build.
//!
//! * `sweep` — the same Proxmox VE inventory sweep with proxmoxer (Python, the client users
//!   would otherwise pick) and with `cpps-proxmox`, alternating, against one fakepve serving a
//!   CPPS-sized estate on 127.0.0.1. `--latency 20ms` adds latency to every answer (fakepve's own
//!   `slow_network` fault) and compares cpps with the critical path.
//! * `rules` — `check` on synthetic topologies of 10k and 100k guests.
//! * `decode` — a 100k-entry `/cluster/resources` answer into the typed model vs `serde_json::Value`.
//! * `memory` — peak RSS of the 100k-guest audit path (load, check, render).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::test::cargo;

/// Arguments of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    what: Bench,
}

#[derive(Debug, clap::Subcommand)]
enum Bench {
    /// proxmoxer vs cpps-proxmox on the same fakepve estate.
    Sweep(SweepArgs),
    /// The rule engine at 10k and 100k guests.
    Rules,
    /// Typed decoding vs `serde_json::Value`.
    Decode,
    /// Peak memory of the 100k-guest audit path.
    Memory,
    /// Every benchmark above, the sweep with and without latency.
    All,
}

/// Arguments of `cargo xtask bench sweep`.
#[derive(Debug, Clone, clap::Args)]
struct SweepArgs {
    /// Latency added to every answer, such as `20ms` (default none).
    #[arg(long, value_parser = parse_duration)]
    latency: Option<Duration>,
    /// Rounds per client, alternating.
    #[arg(long, default_value_t = 5)]
    rounds: usize,
    /// Config requests cpps keeps in flight.
    #[arg(long, default_value_t = 64)]
    concurrency: usize,
    /// Proxmox nodes in the estate.
    #[arg(long, default_value_t = 13)]
    nodes: usize,
    /// Guests in the estate.
    #[arg(long, default_value_t = 300)]
    guests: usize,
}

fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, scale) = if let Some(ms) = text.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(s) = text.strip_suffix('s') {
        (s, 1.0)
    } else {
        return Err(format!("`{text}`: give a unit, such as 20ms or 0.5s"));
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration"))?;
    if !(0.0..=60.0).contains(&(value * scale)) {
        return Err(format!("`{text}` is out of range (0 to 60 s)"));
    }
    Ok(Duration::from_secs_f64(value * scale))
}

pub(crate) fn run(args: BenchArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    match args.what {
        Bench::Sweep(sweep) => run_sweep(&root, &sweep)?,
        Bench::Rules => cargo_bench(&root, "cpps-topology", "rules", &[])?,
        Bench::Decode => cargo_bench(&root, "cpps-proxmox", "decode", &[])?,
        Bench::Memory => cargo_bench(&root, "cpps-topology", "audit_memory", &[])?,
        Bench::All => {
            let plain = SweepArgs {
                latency: None,
                rounds: 5,
                concurrency: 64,
                nodes: 13,
                guests: 300,
            };
            run_sweep(&root, &plain)?;
            run_sweep(
                &root,
                &SweepArgs {
                    latency: Some(Duration::from_millis(20)),
                    rounds: 3,
                    ..plain
                },
            )?;
            cargo_bench(&root, "cpps-topology", "rules", &[])?;
            cargo_bench(&root, "cpps-proxmox", "decode", &[])?;
            cargo_bench(&root, "cpps-topology", "audit_memory", &[])?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs a `harness = false` bench of a crate in release mode, its output straight through.
fn cargo_bench(root: &Path, package: &str, bench: &str, args: &[&str]) -> Result<()> {
    let status = Command::new(cargo())
        .args(["bench", "-q", "-p", package, "--bench", bench, "--"])
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("running the {bench} bench"))?;
    if !status.success() {
        bail!("the {bench} bench failed ({status})");
    }
    Ok(())
}

/// Builds a bench binary and returns its path (from cargo's JSON messages).
fn bench_executable(root: &Path, package: &str, bench: &str) -> Result<PathBuf> {
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

fn tool_cache() -> PathBuf {
    std::env::var_os("CPPS_TOOL_CACHE").map_or_else(
        || {
            let home = std::env::var_os("HOME").unwrap_or_else(|| "/root".into());
            PathBuf::from(home).join(".cache").join("cpps-tools")
        },
        PathBuf::from,
    )
}

/// A venv with proxmoxer, cached outside the repository; versions pinned so that two runs of the
/// benchmark compare the same client.
fn proxmoxer_python() -> Result<PathBuf> {
    let venv = tool_cache().join("venv-proxmoxer");
    let python = venv.join("bin").join("python");
    let ready = Command::new(&python)
        .args(["-c", "import proxmoxer, requests"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        eprintln!("xtask bench: creating {}", venv.display());
        crate::test::run_step(
            "python3 -m venv",
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
        )?;
        crate::test::run_step(
            "pip install proxmoxer",
            Command::new(venv.join("bin").join("pip")).args([
                "install",
                "-q",
                "proxmoxer==2.3.0",
                "requests==2.34.2",
            ]),
        )?;
    }
    Ok(python)
}

/// fakepve running the benchmark's estate; stopped on drop.
struct Fakepve {
    state: PathBuf,
    info: PathBuf,
    control_url: String,
    time_scale: f64,
}

impl Fakepve {
    fn start(root: &Path, nodes: usize, guests: usize) -> Result<Fakepve> {
        let state = root.join("target").join("xtask-bench").join("fakepve");
        std::fs::create_dir_all(&state)?;
        let estate = state.join("estate.json");
        // The estate generator needs only Python's standard library.
        crate::test::run_step(
            "generate the estate",
            Command::new("python3")
                .arg(root.join("xtask/bench/estate.py"))
                .arg(nodes.to_string())
                .arg(guests.to_string())
                .arg(&estate),
        )?;
        // fakepve.sh creates or reuses the venv and starts the server with that estate.
        let output = Command::new("bash")
            .arg(root.join("xtask/env/fakepve.sh"))
            .arg(&state)
            .arg(&estate)
            .current_dir(root)
            .stderr(Stdio::inherit())
            .output()
            .context("starting fakepve")?;
        if !output.status.success() {
            bail!("fakepve did not start with the benchmark estate");
        }
        let info = state.join("fakepve.json");
        let parsed: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&info)?)?;
        Ok(Fakepve {
            control_url: parsed["control_url"]
                .as_str()
                .context("control_url in fakepve.json")?
                .to_owned(),
            time_scale: parsed["time_scale"].as_f64().unwrap_or(1.0),
            state,
            info,
        })
    }

    /// Sets fakepve's per-answer latency (its `slow_network` fault, in real seconds here).
    fn set_latency(&self, latency: Duration) -> Result<()> {
        let pve_seconds = latency.as_secs_f64() / self.time_scale;
        let status = Command::new("python3")
            .args([
                "-c",
                "import json,sys,urllib.request as u; \
                 r=u.Request(sys.argv[1]+'slow_network', data=json.dumps({'latency': float(sys.argv[2])}).encode(), \
                 headers={'content-type':'application/json'}); u.urlopen(r, timeout=10).read()",
                &self.control_url,
                &pve_seconds.to_string(),
            ])
            .status()?;
        if !status.success() {
            bail!("could not set fakepve's latency");
        }
        Ok(())
    }
}

impl Drop for Fakepve {
    fn drop(&mut self) {
        stop_pid(&self.state.join("fakepve.pid"));
    }
}

fn stop_pid(pid_file: &Path) {
    if let Ok(pid) = std::fs::read_to_string(pid_file) {
        let _ = Command::new("kill").arg(pid.trim()).status();
        std::thread::sleep(Duration::from_millis(300));
        let _ = std::fs::remove_file(pid_file);
    }
}

/// Runs one sweep program and returns the `seconds:` and `guests:` it printed.
fn sweep_once(command: &mut Command) -> Result<(f64, usize)> {
    let output = command.stderr(Stdio::inherit()).output()?;
    if !output.status.success() {
        bail!("a sweep failed ({})", output.status);
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .with_context(|| format!("no `{name}` in sweep output: {text}"))
    };
    Ok((field("seconds:")?.parse()?, field("guests:")?.parse()?))
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

fn run_sweep(root: &Path, args: &SweepArgs) -> Result<()> {
    let python = proxmoxer_python()?;
    let cpps = bench_executable(root, "cpps-proxmox", "sweep")?;
    let fakepve = Fakepve::start(root, args.nodes, args.guests)?;
    let proxmoxer_script = root.join("xtask/bench/proxmoxer_sweep.py");
    let cpps_cmd = || {
        let mut c = Command::new(&cpps);
        c.arg(&fakepve.info).arg(args.concurrency.to_string());
        c
    };
    let proxmoxer_cmd = || {
        let mut c = Command::new(&python);
        c.arg(&proxmoxer_script).arg(&fakepve.info);
        c
    };

    // Without added latency first: the server-bound floor of this machine, for the latency run.
    let (floor, _) = sweep_once(&mut cpps_cmd())?;
    if let Some(latency) = args.latency {
        fakepve.set_latency(latency)?;
    }
    // One warm-up of each (Python imports, page cache), then alternating rounds.
    sweep_once(&mut proxmoxer_cmd())?;
    sweep_once(&mut cpps_cmd())?;
    let mut proxmoxer = Vec::new();
    let mut ours = Vec::new();
    let mut guests = 0;
    for _ in 0..args.rounds.max(1) {
        let (seconds, seen) = sweep_once(&mut proxmoxer_cmd())?;
        proxmoxer.push(seconds);
        let (seconds, seen_by_cpps) = sweep_once(&mut cpps_cmd())?;
        if seen != seen_by_cpps {
            bail!("proxmoxer saw {seen} guests, cpps {seen_by_cpps}");
        }
        guests = seen;
        ours.push(seconds);
    }
    let proxmoxer = median(proxmoxer);
    let ours = median(ours);
    let name = match args.latency {
        Some(l) => format!("sweep_latency_{}ms", l.as_millis()),
        None => "sweep".to_owned(),
    };
    println!("{name}_nodes: {}", args.nodes);
    println!("{name}_guests: {guests}");
    println!("{name}_requests: {}", guests + 2);
    println!("{name}_rounds: {}", args.rounds.max(1));
    println!("{name}_cpps_concurrency: {}", args.concurrency);
    println!("{name}_proxmoxer_median_s: {proxmoxer:.4}");
    println!("{name}_cpps_median_s: {ours:.4}");
    println!("{name}_speedup: {:.2}", proxmoxer / ours);
    match args.latency {
        None => {
            println!(
                "target {name} cpps >= 10x faster than proxmoxer: {}",
                verdict(proxmoxer / ours >= 10.0)
            );
        }
        Some(latency) => {
            // Two dependent rounds: the guest list (with HA status beside it), then the configs.
            let critical = 2.0 * latency.as_secs_f64();
            println!("{name}_server_floor_s: {floor:.4}");
            println!("{name}_critical_path_s: {critical:.4}");
            println!("{name}_cpps_over_critical_path: {:.2}", ours / critical);
            println!(
                "{name}_cpps_over_floor_plus_critical_path: {:.2}",
                ours / (floor + critical)
            );
            println!(
                "target {name} cpps <= 1.3x the critical path: {}",
                verdict(ours <= 1.3 * critical)
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_need_a_unit() {
        assert_eq!(parse_duration("20ms"), Ok(Duration::from_millis(20)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("20").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn the_median_is_the_middle_sample() {
        assert!((median(vec![3.0, 1.0, 2.0]) - 2.0).abs() < f64::EPSILON);
    }
}
