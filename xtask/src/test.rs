//! `cargo xtask test`: start the independent test servers, then run the whole test suite.
//!
//! The servers are other people's software that the clients are tested against (see
//! `ARCHITECTURE.md`, "Testing"): fakepve (Proxmox VE), Prism serving the LINSTOR OpenAPI file,
//! a real kube-apiserver with etcd, and Prometheus with promtool (installed only: the exporter's
//! test starts its own Prometheus scraping the exporter it runs). Each is installed and started by a script in
//! `xtask/env/` that caches what it builds outside the repository and prints `CPPS_TEST_*=…`
//! lines; this command passes those variables to `cargo test`, so the integration tests really
//! run instead of skipping. Everything is started on 127.0.0.1 and stopped at the end.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::tools::cargo;

/// Arguments of `cargo xtask test`.
#[derive(Debug, clap::Args)]
pub(crate) struct TestArgs {
    /// Run the tests without starting any server (integration tests then skip, saying so).
    #[arg(long)]
    no_services: bool,
    /// Start only these services (fakepve, prism, kube, prometheus, iac); default all.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Extra arguments passed to `cargo test` after `--workspace`.
    #[arg(last = true)]
    cargo_args: Vec<String>,
}

/// A test server: its name, the script that starts it and the one that stops it.
struct Service {
    name: &'static str,
    start: &'static str,
    stop: Option<&'static str>,
}

const SERVICES: [Service; 5] = [
    Service {
        name: "kube",
        start: "xtask/env/kube-start.sh",
        stop: Some("xtask/env/kube-stop.sh"),
    },
    Service {
        name: "fakepve",
        start: "xtask/env/fakepve.sh",
        stop: None,
    },
    Service {
        name: "prism",
        start: "xtask/env/prism.sh",
        stop: None,
    },
    Service {
        name: "prometheus",
        start: "xtask/env/prometheus.sh",
        stop: None,
    },
    // Installs the IaC tools (Pulumi SDK, both pulumi-proxmoxve majors, ansible-core); it
    // starts nothing.
    Service {
        name: "iac",
        start: "xtask/env/iac-tools.sh",
        stop: None,
    },
];

pub(crate) fn run(args: TestArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    let state = root.join("target").join("xtask-services");
    std::fs::create_dir_all(&state).with_context(|| format!("creating {}", state.display()))?;
    // Two runs at once would share the servers' state folders and stop each other's servers.
    let _lock = RunLock::take(&state.join("run.lock"))?;
    // Servers left by a run that was interrupted are stopped before new ones start.
    stop_services(&root, &state, &SERVICES.iter().collect::<Vec<_>>());

    let wanted = wanted_services(&args, &root);

    // Servers start while the tests compile: both take minutes on a small machine.
    let started = Instant::now();
    let starters = start_services(&root, &state, &wanted)?;

    let build = Command::new(cargo())
        .args(["test", "--workspace", "--all-features", "--no-run"])
        .current_dir(&root)
        .status()
        .context("running cargo test --no-run")?;

    let mut env = BTreeMap::new();
    pin_property_seed(&mut env);
    let failures = await_services(starters, started, &mut env)?;

    let result = if !build.success() {
        Err(anyhow::anyhow!("the tests do not compile"))
    } else if !failures.is_empty() {
        Err(anyhow::anyhow!(
            "test servers failed: {}",
            failures.join("; ")
        ))
    } else {
        run_test_suite(&root, &args.cargo_args, &env)
    };

    stop_services(&root, &state, &wanted);
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("xtask test: {e}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The services this run starts: none with `--no-services`, else those `--only` names (all by
/// default) that have a start script.
fn wanted_services<'a>(args: &TestArgs, root: &Path) -> Vec<&'a Service> {
    if args.no_services {
        return Vec::new();
    }
    SERVICES
        .iter()
        .filter(|s| args.only.is_empty() || args.only.iter().any(|o| o == s.name))
        .filter(|s| {
            let present = root.join(s.start).exists();
            if !present {
                eprintln!(
                    "xtask test: {} has no start script yet; skipping it",
                    s.name
                );
            }
            present
        })
        .collect()
}

/// Spawns each service's start script with its own state folder; they run in the background.
fn start_services<'a>(
    root: &Path,
    state: &Path,
    wanted: &[&'a Service],
) -> Result<Vec<(&'a Service, PathBuf, std::process::Child)>> {
    let mut starters = Vec::new();
    for service in wanted {
        let dir = state.join(service.name);
        std::fs::create_dir_all(&dir)?;
        let log = std::fs::File::create(dir.join("start.log"))?;
        eprintln!(
            "xtask test: starting {} (log: {})",
            service.name,
            dir.join("start.log").display()
        );
        let child = Command::new("bash")
            .arg(root.join(service.start))
            .arg(&dir)
            .current_dir(root)
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("starting {}", service.start))?;
        starters.push((*service, dir, child));
    }
    Ok(starters)
}

/// Waits for each start script and adds the `CPPS_TEST_*` variables it printed to `env`;
/// returns one line for each service that did not start.
fn await_services(
    starters: Vec<(&Service, PathBuf, std::process::Child)>,
    started: Instant,
    env: &mut BTreeMap<String, String>,
) -> Result<Vec<String>> {
    let mut failures = Vec::new();
    for (service, dir, child) in starters {
        let output = child
            .wait_with_output()
            .with_context(|| format!("waiting for {}", service.name))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let vars = parse_vars(&stdout);
        if !output.status.success() || vars.is_empty() {
            failures.push(format!(
                "{} did not start ({}); see {}",
                service.name,
                output.status,
                dir.join("start.log").display()
            ));
            print_tail(&dir.join("start.log"));
            continue;
        }
        eprintln!(
            "xtask test: {} ready after {:.0?}: {}",
            service.name,
            started.elapsed(),
            vars.keys().cloned().collect::<Vec<_>>().join(", ")
        );
        env.extend(vars);
    }
    Ok(failures)
}

/// Runs the whole test suite with the services' variables in its environment.
fn run_test_suite(
    root: &Path,
    cargo_args: &[String],
    env: &BTreeMap<String, String>,
) -> Result<()> {
    // --no-fail-fast: one failing test binary must not hide the results of the others.
    let status = Command::new(cargo())
        .args(["test", "--workspace", "--all-features", "--no-fail-fast"])
        .args(cargo_args)
        .envs(env)
        .current_dir(root)
        .status()
        .context("running cargo test")?;
    if status.success() {
        Ok(())
    } else {
        Err(anyhow::anyhow!("cargo test failed"))
    }
}

/// The seed CI's property tests start from, so that a CI run can be repeated case for case.
const CI_PROPERTY_SEED: &str = "20261206";

/// Under CI (`CI` set), pins the property tests' seed unless the caller chose one: a run that
/// decides whether work lands must not pass or fail by the draw of new random cases. Local runs
/// keep drawing new cases; each failure one finds is kept in the test's `.proptest-regressions`
/// file and replayed by every run, CI's included.
fn pin_property_seed(env: &mut BTreeMap<String, String>) {
    if std::env::var_os("CI").is_some() && std::env::var_os("PROPTEST_RNG_SEED").is_none() {
        eprintln!("xtask test: CI: property tests use PROPTEST_RNG_SEED={CI_PROPERTY_SEED}");
        env.insert("PROPTEST_RNG_SEED".into(), CI_PROPERTY_SEED.into());
    }
}

/// A lock file holding the pid of the running `cargo xtask test`; removed on drop.
struct RunLock(PathBuf);

impl RunLock {
    fn take(path: &Path) -> Result<RunLock> {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse::<u32>()
            && Path::new(&format!("/proc/{pid}")).exists()
        {
            bail!(
                "another `cargo xtask test` (pid {pid}) is running; wait for it or remove {}",
                path.display()
            );
        }
        std::fs::write(path, std::process::id().to_string())
            .with_context(|| format!("writing {}", path.display()))?;
        Ok(RunLock(path.to_path_buf()))
    }
}

impl Drop for RunLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The `CPPS_TEST_NAME=value` lines of a start script's output.
fn parse_vars(stdout: &str) -> BTreeMap<String, String> {
    stdout
        .lines()
        .filter_map(|line| line.trim().split_once('='))
        .filter(|(key, _)| {
            key.starts_with("CPPS_TEST_") && key.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        })
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

fn stop_services(root: &Path, state: &Path, services: &[&Service]) {
    for service in services {
        let dir = state.join(service.name);
        if let Some(stop) = service.stop {
            let _ = Command::new("bash").arg(root.join(stop)).arg(&dir).status();
        }
        // Every start script leaves the pids of what it started in *.pid files or a `pids` file.
        for pid in pids_in(&dir) {
            // A pid file may outlive its process and the pid be reused: only our servers are
            // stopped.
            let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline);
            if ["etcd", "kube-apiserver", "serve.py", "prism"]
                .iter()
                .any(|ours| cmdline.contains(ours))
            {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
}

fn pids_in(dir: &Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "pid") || p.file_name().is_some_and(|n| n == "pids")
        })
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|w| w.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn print_tail(log: &Path) {
    if let Ok(text) = std::fs::read_to_string(log) {
        let lines: Vec<&str> = text.lines().collect();
        for line in &lines[lines.len().saturating_sub(30)..] {
            eprintln!("    {line}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cpps_test_variables_are_taken_from_script_output() {
        let out =
            "installing…\nCPPS_TEST_PRISM_URL=http://127.0.0.1:4010\nPATH=/evil\nCPPS_TEST_X=a=b\n";
        let vars = parse_vars(out);
        assert_eq!(vars.len(), 2);
        assert_eq!(vars["CPPS_TEST_PRISM_URL"], "http://127.0.0.1:4010");
        assert_eq!(vars["CPPS_TEST_X"], "a=b");
    }
}
