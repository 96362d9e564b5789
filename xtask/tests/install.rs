//! `xtask/env/install.sh`, run as the service scripts run it: several at once on one machine.
//!
//! `apt-get` and `dpkg` are stand-ins on PATH that behave as Debian's do where it matters here:
//! a second `apt-get` while one runs exits 100 with apt's "Could not get lock" message (which is
//! how a brand-new machine's CI failed), and `dpkg -s` succeeds only for installed packages.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

/// A machine with fake apt tools: `bin/` goes first on PATH, `state/` records what they did.
struct FakeMachine {
    dir: tempfile::TempDir,
}

const FAKE_DPKG: &str = r#"#!/usr/bin/env bash
# dpkg -s PACKAGE: installed when state/installed/PACKAGE exists.
[ "$1" = "-s" ] && [ -e "$FAKE_STATE/installed/$2" ]
"#;

const FAKE_APT_GET: &str = r#"#!/usr/bin/env bash
# Holds state/running while it works; a second one at the same time fails as apt-get does.
if ! mkdir "$FAKE_STATE/running" 2>/dev/null; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 1 (apt-get)" >&2
  exit 100
fi
trap 'rmdir "$FAKE_STATE/running"' EXIT
verb=""
for a in "$@"; do case "$a" in update|install) verb="$a";; esac; done
echo "$verb $*" >> "$FAKE_STATE/calls"
sleep 0.3
if [ "$verb" = install ]; then
  for a in "$@"; do
    case "$a" in
      -*|install|DPkg::*) ;;
      broken-package) echo "E: Unable to locate package broken-package" >&2; exit 100;;
      *) touch "$FAKE_STATE/installed/$a";;
    esac
  done
fi
"#;

impl FakeMachine {
    fn new() -> FakeMachine {
        let dir = tempfile::tempdir().unwrap();
        for sub in ["bin", "state/installed", "cache"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        write_program(&dir.path().join("bin/dpkg"), FAKE_DPKG);
        write_program(&dir.path().join("bin/apt-get"), FAKE_APT_GET);
        FakeMachine { dir }
    }

    fn path(&self, sub: &str) -> PathBuf {
        self.dir.path().join(sub)
    }

    /// `install.sh ARGS` with this machine's tools, cache and lock.
    fn command(&self, args: &[&str]) -> Command {
        let path = format!(
            "{}:{}",
            self.path("bin").display(),
            std::env::var("PATH").unwrap()
        );
        let mut command = Command::new("bash");
        command
            .arg(install_script())
            .args(args)
            .env("PATH", path)
            .env("FAKE_STATE", self.path("state"))
            .env("CPPS_TOOL_CACHE", self.path("cache"))
            .env("CPPS_INSTALL_LOCK", self.path("install.lock"));
        command
    }

    /// `install.sh ARGS`, started in the background.
    fn spawn(&self, args: &[&str]) -> Child {
        self.command(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("bash runs")
    }

    /// The fake apt-get's calls, one verb and its arguments a line.
    fn calls(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.path("state/calls")).unwrap_or_default();
        text.lines().map(str::to_owned).collect()
    }
}

fn write_program(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
    let status = Command::new("chmod").arg("+x").arg(path).status().unwrap();
    assert!(status.success());
}

fn install_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("env/install.sh")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn apt_installs_started_together_wait_for_each_other() {
    let machine = FakeMachine::new();
    let children: Vec<Child> = ["golang-go", "prometheus", "nginx-light"]
        .iter()
        .map(|package| machine.spawn(&["apt", package]))
        .collect();
    for output in children.into_iter().map(finish) {
        assert!(output.status.success(), "{}", stderr(&output));
        assert!(!stderr(&output).contains("Could not get lock"));
    }
    for package in ["golang-go", "prometheus", "nginx-light"] {
        assert!(
            machine.path("state/installed").join(package).exists(),
            "{package}"
        );
    }
    let calls = machine.calls();
    // One update for the three (the stamp lasts an hour), then one install each.
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("update")).count(),
        1,
        "{calls:?}"
    );
    assert_eq!(
        calls.iter().filter(|c| c.starts_with("install")).count(),
        3,
        "{calls:?}"
    );
    // Each install waits for dpkg's own lock too, held by anything outside this script.
    assert!(
        calls.iter().all(|c| c.contains("DPkg::Lock::Timeout=600")),
        "{calls:?}"
    );
}

#[test]
fn a_package_installed_while_waiting_is_not_installed_again() {
    let machine = FakeMachine::new();
    let first = machine.spawn(&["apt", "etcd-server"]);
    let second = machine.spawn(&["apt", "etcd-server"]);
    assert!(finish(first).status.success());
    assert!(finish(second).status.success());
    let installs: Vec<String> = machine
        .calls()
        .into_iter()
        .filter(|c| c.starts_with("install"))
        .collect();
    assert_eq!(installs.len(), 1, "{installs:?}");
}

#[test]
fn installed_packages_cost_no_apt_call() {
    let machine = FakeMachine::new();
    std::fs::write(machine.path("state/installed/rsync"), "").unwrap();
    let output = finish(machine.spawn(&["apt", "rsync"]));
    assert!(output.status.success());
    assert_eq!(machine.calls(), Vec::<String>::new());
}

#[test]
fn a_failed_install_names_the_packages_and_the_cause_once() {
    let machine = FakeMachine::new();
    let output = finish(machine.spawn(&["apt", "broken-package"]));
    assert_eq!(output.status.code(), Some(100));
    let text = stderr(&output);
    assert_eq!(
        text.matches("installing Debian packages broken-package failed (exit status 100)")
            .count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("Unable to locate package broken-package")
            .count(),
        1,
        "{text}"
    );
}

#[test]
fn a_lock_held_too_long_is_named_in_the_error() {
    let machine = FakeMachine::new();
    let lock = machine.path("install.lock");
    // Another install holds the lock for longer than this one waits.
    let mut holder = Command::new("flock")
        .arg(&lock)
        .args(["sleep", "5"])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let output = machine
        .command(&["apt", "golang-go"])
        .env("CPPS_INSTALL_LOCK_WAIT", "1")
        .output()
        .unwrap();
    holder.kill().unwrap();
    let _ = holder.wait();
    assert_eq!(output.status.code(), Some(75));
    let text = stderr(&output);
    assert!(
        text.contains(&format!("another install held {}", lock.display())),
        "{text}"
    );
    assert_eq!(machine.calls(), Vec::<String>::new());
}

/// The service scripts and the benchmark install only through install.sh, so none can race.
#[test]
fn no_service_script_runs_a_package_manager_of_its_own() {
    let env = Path::new(env!("CARGO_MANIFEST_DIR")).join("env");
    let mut offenders = Vec::new();
    for entry in std::fs::read_dir(&env).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n == "install.sh") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        for (number, line) in text.lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            let installs = [
                "apt-get install",
                "apt-get update",
                "pip\" install",
                "npm install",
            ]
            .iter()
            .any(|tool| code.contains(tool));
            // The private source download of kube-apiserver.sh touches no system lock, and a
            // message may name a command.
            let private = code.contains("apt-get $O");
            let message = code.trim_start().starts_with("echo ") || code.contains("|| { echo");
            if installs && !private && !message {
                offenders.push(format!("{}:{}: {line}", path.display(), number + 1));
            }
        }
    }
    assert_eq!(offenders, Vec::<String>::new());
}
