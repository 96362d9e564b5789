//! `cargo xtask check` as CI runs it: the built binary, its output and its exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn xtask(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(args)
        .output()
        .expect("the xtask binary runs")
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited, not killed")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// The clean two-site fixture of cpps-topology's rule tests.
fn base() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cpps-topology/tests/fixtures/rules/base.yaml")
}

/// The base fixture with its one occurrence of `find` replaced by `replace`.
fn base_edited(find: &str, replace: &str) -> String {
    let text = std::fs::read_to_string(base()).unwrap();
    assert_eq!(text.matches(find).count(), 1, "{find:?} must occur once");
    text.replacen(find, replace, 1)
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn the_default_topology_fails_on_its_real_errors() {
    let out = xtask(&["check"]);
    assert_eq!(code(&out), 1, "stderr: {}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("cpps-topology check: cpps-topology/topology/cpps.yaml"),
        "{text}"
    );
    assert!(text.contains("LINSTOR-001  pve-ippri-34 (host)"), "{text}");
    assert!(text.contains("\nsummary: "), "{text}");
    assert!(stderr(&out).is_empty());
}

#[test]
fn a_clean_file_passes_even_when_warnings_are_denied() {
    let base = base();
    let base = base.to_str().unwrap();
    let out = xtask(&["check", "--topology", base]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stdout(&out).contains("no findings"));
    let out = xtask(&["check", "--topology", base, "--deny", "warnings"]);
    assert_eq!(code(&out), 0);
}

#[test]
fn warnings_fail_only_when_denied() {
    let dir = tempfile::tempdir().unwrap();
    let text = base_edited(
        "default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: gpu-alpha",
        "default_deny: false\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: gpu-alpha",
    );
    let file = write(&dir, "warn.yaml", &text);
    let file = file.to_str().unwrap();
    let out = xtask(&["check", "--topology", file, "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["summary"]["warnings"], 1);
    assert_eq!(json["findings"][0]["rule"], "CNI-003");
    let out = xtask(&["check", "--topology", file, "--deny", "warnings"]);
    assert_eq!(code(&out), 1);
}

#[test]
fn an_unreadable_file_exits_2_with_the_reason() {
    let out = xtask(&["check", "--topology", "/nonexistent/topology.yaml"]);
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("cannot read topology file `/nonexistent/topology.yaml`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_invalid_file_exits_2_with_a_rustc_like_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let text = base_edited(
        "  - { id: k3s-b-1, host: b2,",
        "  - { id: k3s-b-1, host: b9,",
    );
    let file = write(&dir, "broken.yaml", &text);
    let out = xtask(&["check", "--topology", file.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    let err = stderr(&out);
    // The diagnostic names the file, the line and column, and shows the offending source line.
    let line = text.lines().position(|l| l.contains("host: b9")).unwrap() + 1;
    assert!(err.contains(&format!("broken.yaml:{line}:")), "{err}");
    assert!(err.contains("b9"), "{err}");
    assert!(err.contains("k3s-b-1"), "{err}");
    assert!(stdout(&out).is_empty());
}

#[test]
fn every_format_is_written_and_output_goes_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = xtask(&["check", "--format", "sarif"]);
    assert_eq!(code(&out), 1);
    let sarif: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(sarif["version"], "2.1.0");
    let out = xtask(&["check", "--format", "junit"]);
    assert!(stdout(&out).starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
    let file = dir.path().join("report.sarif");
    let out = xtask(&[
        "check",
        "--format",
        "sarif",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 1);
    assert!(stdout(&out).is_empty());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        written["runs"][0]["tool"]["driver"]["name"],
        "cpps-topology"
    );
}

#[test]
fn a_bad_argument_is_a_usage_error() {
    let out = xtask(&["check", "--format", "xml"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("xml"), "{}", stderr(&out));
}
