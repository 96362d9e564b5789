//! Runs the `gpu-health` binary against the fake NVML library (cpps-gpu's test fake, loaded by
//! the real nvml-wrapper) and, when `CPPS_TEST_KUBECONFIG` is set, the test API server.

mod common;

use std::process::{Command, Output};

// The API-server helpers (client, CRD installation) are cpps-gpu's, shared rather than copied.
#[path = "../../cpps-gpu/tests/common/mod.rs"]
mod gpu_common;

use cpps_gpu::test_util::{FakeNvml, fake_nvml_library};

fn run(variant: FakeNvml, extra: &[&str]) -> Output {
    let lib = fake_nvml_library(variant).expect("gcc builds the fake NVML library");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gpu-health"));
    cmd.arg("--nvml-lib")
        .arg(&lib)
        .args(["--xid-wait-ms", "100"]);
    // This machine's own kernel log is not the fake GPUs' history: tests name a fixture, or
    // say that none is read.
    if !extra.contains(&"--kernel-log") {
        cmd.args(["--kernel-log", "none"]);
    }
    cmd.args(extra).output().expect("gpu-health runs")
}

/// The XID history since boot, from the kernel log (here `journalctl -k -o short-monotonic`
/// text; cpps-gpu's fixture follows NVIDIA/open-gpu-kernel-modules `krcReportXid` and
/// `osinit.c`), graded by the one XID table and matched to NVML's GPUs by PCI address: XID 79
/// on GPU 1 (fake bus 0x41) is critical, exit 1. An empty log is "cannot tell", never a
/// history without XIDs.
#[test]
fn the_xid_history_since_boot_is_graded() {
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cpps-gpu/tests/fixtures/kmsg/journal-short-monotonic.txt"
    );
    let o = run(FakeNvml::TwoA5000, &["--kernel-log", fixture]);
    let out = common::stdout_of_exit(&o, 1);
    let history: Vec<&str> = out.lines().filter(|l| l.contains("xid-history")).collect();
    assert_eq!(history.len(), 2, "{out}");
    assert!(
        history[0].starts_with(
            "  warning xid-history: XID 94 x1 on GPU 0 (0000:01:00), last 5.2 s after boot: "
        ),
        "{out}"
    );
    assert!(
        history[1].starts_with(
            "  critical xid-history: XID 79 x2 on GPU 1 (0000:41:00), last 9.0 s after boot: "
        ),
        "{out}"
    );
    assert!(out.ends_with("overall: critical\n"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("kmsg");
    std::fs::write(&empty, "").unwrap();
    let o = run(
        FakeNvml::TwoA5000,
        &["--kernel-log", empty.to_str().unwrap()],
    );
    let out = common::stdout_of_exit(&o, 0);
    assert!(
        out.contains(&format!(
            "  warning xid-history-unknown: cannot tell the XID history since boot: the kernel log {} is empty",
            empty.display()
        )),
        "{out}"
    );
}

#[test]
fn text_report_of_two_a5000s() {
    let o = run(FakeNvml::TwoA5000, &["--driver-version", "550.54.15"]);
    let out = common::stdout_of_exit(&o, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "host: driver 550.54.15, CUDA 12.4: warning");
    assert_eq!(
        lines[1],
        "GPU 0 NVIDIA RTX A5000 GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01 2.0/24.0 GiB 41 °C 61 W ECC on: ok"
    );
    assert_eq!(
        lines[2],
        "GPU 1 NVIDIA RTX A5000 GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02 0.5/24.0 GiB 67 °C 88 W ECC on: warning"
    );
    // The lifetime (aggregate) counter, which survives reboots, next to the volatile one.
    assert_eq!(
        lines[3],
        "  warning ecc-uncorrected-aggregate: 1 uncorrectable ECC errors over the board's life (aggregate counter), 1 of them before this driver load"
    );
    assert_eq!(
        lines[4],
        "  warning remapped-rows-pending: a row remapping waits for a GPU reset (1 rows remapped for uncorrectable errors)"
    );
    assert_eq!(lines[5], "XIDs: none seen");
    assert_eq!(lines.last(), Some(&"overall: warning"));
}

/// A driver other than the pinned one is GPU-005's warning (cpps-gpu's shared driver-pin
/// policy), here as in the live audit.
#[test]
fn driver_not_pinned_is_a_warning() {
    let o = run(FakeNvml::TwoA5000, &["--driver-version", "535.183.01"]);
    let out = common::stdout_of_exit(&o, 0);
    assert!(out.contains(
        "  warning driver-not-pinned: NVIDIA driver 550.54.15 is running, the pinned version is 535.183.01"
    ));
    assert!(out.ends_with("overall: warning\n"));
}

#[test]
fn ecc_disabled_is_reported_on_the_gpu_line_and_as_a_finding() {
    let o = run(FakeNvml::EccDisabledOnGpu0, &[]);
    let out = common::stdout_of_exit(&o, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[1].ends_with(" ECC off: warning"), "{out}");
    assert_eq!(
        lines[2],
        "  warning ecc-disabled: ECC is disabled; memory errors go undetected (nvidia-smi -e 1 and a reboot enable it)"
    );
}

#[test]
fn help_documents_the_timeout() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_gpu-health"));
    assert!(help.contains("Bound on the whole run"), "{help}");
}

/// A cluster that accepts connections and never answers: `--timeout` ends the run, the NVML part
/// is still reported and the cluster is a finding.
#[test]
fn timeout_bounds_a_cluster_that_never_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    // Accepted connections are kept open and never written to.
    let held = std::thread::spawn(move || {
        let mut conns = Vec::new();
        for c in listener.incoming().take(8) {
            conns.push(c);
        }
        conns.len()
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: silent\nclusters:\n- name: silent\n  cluster:\n    server: https://127.0.0.1:{port}\n    insecure-skip-tls-verify: true\ncontexts:\n- name: silent\n  context: {{cluster: silent, user: u}}\nusers:\n- name: u\n  user: {{token: not-a-secret}}\n"
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let o = run(
        FakeNvml::TwoA5000,
        &[
            "--timeout",
            "2",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    let elapsed = started.elapsed();
    let out = common::stdout_of_exit(&o, 0);
    assert!(elapsed < std::time::Duration::from_secs(6), "{elapsed:?}");
    assert!(out.starts_with("host: driver 550.54.15"), "{out}");
    assert!(
        out.contains("  warning cluster-timeout: the cluster was not read within 2 s"),
        "{out}"
    );
    drop(held);
}

#[test]
fn json_report_with_xids_exits_1() {
    let o = run(FakeNvml::TwoA5000WithXids, &["--format", "json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(v["severity"], "critical");
    assert_eq!(v["nvml"]["available"], true);
    let snap = &v["nvml"]["snapshot"];
    assert_eq!(snap["host"]["driver_version"]["value"], "550.54.15");
    assert_eq!(snap["gpus"].as_array().unwrap().len(), 2);
    assert_eq!(snap["gpus"][0]["name"]["value"], "NVIDIA RTX A5000");
    assert_eq!(snap["gpus"][0]["temperature_c"]["value"], 41);
    assert_eq!(snap["gpus"][0]["mig_mode"], "not_supported");
    assert_eq!(snap["gpus"][1]["remapped_rows"]["value"]["pending"], true);
    assert_eq!(snap["xids"][0]["xid"], 79);
    assert_eq!(snap["xids"][1]["xid"], 13);
    let gpu1 = &v["nvml"]["verdict"]["gpus"][1];
    assert_eq!(gpu1["severity"], "critical");
    let messages: Vec<&str> = gpu1["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    assert!(
        messages.contains(&"XID 79: GPU has fallen off the bus"),
        "{messages:?}"
    );
    assert!(v.get("cluster").is_none());
}

#[test]
fn no_gpu_is_reported_not_failed() {
    let dir = std::env::temp_dir().join("cpps-gpu-health-no-lib");
    let o = Command::new(env!("CARGO_BIN_EXE_gpu-health"))
        .arg("--nvml-lib")
        .arg(dir.join("libnvidia-ml.so.1"))
        .output()
        .unwrap();
    let out = common::stdout_of_exit(&o, 0);
    assert!(
        out.starts_with("NVML not available here: the NVML library "),
        "{out}"
    );
}

/// Audit 34 N2: a host whose NVML library loads but cannot initialise is a GPU host whose
/// GPUs cannot be used, not "no GPU here". go-nvml `gen/nvml/nvml.h` `nvmlInit_v2` answers
/// `NVML_ERROR_DRIVER_NOT_LOADED` "if NVIDIA driver is not running" and
/// `NVML_ERROR_NO_PERMISSION` "if NVML does not have permission to talk to the driver";
/// nvml-wrapper 0.13 maps a library/driver mismatch (18) to `NvmlError::LibRmVersionMismatch`.
/// A broken driver is Critical (exit 1); no permission or an NVML that never answers leaves
/// the host's state untold (Warning, exit 2), never ok.
#[test]
fn nvml_that_cannot_initialise_is_never_ok() {
    let o = run(FakeNvml::DriverMismatch, &[]);
    let out = common::stdout_of_exit(&o, 1);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "NVML not available here: the NVML library does not match the loaded kernel driver",
            "  critical nvml-driver-unusable: the NVML library is installed but the NVIDIA driver cannot be used: the NVML library does not match the loaded kernel driver",
            "XID history since boot: not read (none)",
            "overall: critical",
        ]
    );
    let o = run(FakeNvml::InitError(9), &[]);
    let out = common::stdout_of_exit(&o, 1);
    assert_eq!(out.lines().last(), Some("overall: critical"), "{out}");
    assert!(out.contains("nvml-driver-unusable"), "{out}");
    let o = run(FakeNvml::InitError(4), &["--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&common::stdout_of_exit(&o, 2)).unwrap();
    assert_eq!(v["severity"], "warning");
    assert_eq!(v["nvml"]["finding"]["code"], "nvml-unreadable");
    assert_eq!(
        v["nvml"]["unavailable"],
        "no permission to talk to the NVIDIA driver"
    );
    // An NVML that never answers: the run ends at its bound and says it cannot tell.
    let o = run(FakeNvml::InitHangs, &["--timeout", "1"]);
    let out = common::stdout_of_exit(&o, 2);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "NVML not available here: NVML did not answer within 1 s",
            "  warning nvml-unreadable: cannot tell the GPUs' state: NVML did not answer within 1 s",
            "XID history since boot: not read (none)",
            "overall: warning",
        ]
    );
}

#[tokio::test]
async fn cluster_checks_with_a_kubeconfig() {
    // The CRDs the checks read are installed first: this test may run before any other that
    // touches the API server.
    if gpu_common::kube_client().await.is_none() {
        return;
    }
    let kubeconfig = std::env::var_os(gpu_common::KUBECONFIG_VAR).expect("checked above");
    let o = run(
        FakeNvml::TwoA5000,
        &[
            "--format",
            "json",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
        ],
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    let cluster = &v["cluster"];
    assert!(cluster["findings"].is_array(), "{v}");
    assert!(
        cluster["missing"].as_array().unwrap().is_empty(),
        "{cluster}"
    );
    // The exit status follows the worst finding, whatever other tests left in the cluster.
    let critical = v["severity"] == "critical";
    assert_eq!(o.status.code(), Some(if critical { 1 } else { 0 }));
}

/// Issue 34 D4: go-nvml `gen/nvml/nvml.h`, `nvmlEventSetWait_v2` answers GPU_IS_LOST when a GPU
/// falls off the bus. That is a critical finding (exit 1) next to the other readings, not a run
/// that could not be done (exit 2).
#[test]
fn a_gpu_lost_during_the_xid_wait_is_critical_not_a_failed_run() {
    let o = run(FakeNvml::LostDuringXidWait, &[]);
    let out = common::stdout_of_exit(&o, 1);
    assert!(
        out.contains(
            "  critical gpu-lost: GPU lost: NVML cannot reach it any more (fallen off the bus or otherwise inaccessible)"
        ),
        "{out}"
    );
    assert!(out.contains("GPU lost on GPU 1: "), "{out}");
    assert!(
        out.contains("XID 79 on GPU 1: GPU has fallen off the bus"),
        "{out}"
    );
    assert!(out.ends_with("overall: critical\n"), "{out}");
}

/// Suspected item of issue 34, confirmed: a cluster that refuses the reads (403 Forbidden, the
/// Status body kube-apiserver writes, k8s.io/apiserver `pkg/endpoints/handlers/responsewriters/
/// errors.go` `forbiddenMessage`) made the run exit 2 and threw the NVML results away. The host's
/// readings are still reported, and the cluster is a finding that says it could not be read.
#[test]
fn a_cluster_that_refuses_keeps_the_nvml_results() {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for c in listener.incoming().take(64) {
            let Ok(mut c) = c else { continue };
            let mut buf = [0u8; 8192];
            let mut seen = Vec::new();
            while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                match c.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => seen.extend_from_slice(&buf[..n]),
                }
            }
            let body = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \"gpu-reader\" cannot get path \"/apis/kueue.x-k8s.io/v1beta2\"","reason":"Forbidden","details":{},"code":403}"#;
            let _ = write!(
                c,
                "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: c\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:{port}\ncontexts:\n- name: c\n  context: {{cluster: c, user: u}}\nusers:\n- name: u\n  user: {{token: not-a-secret}}\n"
        ),
    )
    .unwrap();
    let o = run(
        FakeNvml::TwoA5000,
        &["--kubeconfig", kubeconfig.to_str().unwrap()],
    );
    let out = common::stdout_of_exit(&o, 0);
    assert!(out.starts_with("host: driver 550.54.15"), "{out}");
    assert!(out.contains("GPU 1 NVIDIA RTX A5000"), "{out}");
    let finding = out
        .lines()
        .find(|l| l.starts_with("  warning cluster-unreadable: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(finding.contains("403"), "{finding}");
    assert!(!out.contains("not-a-secret"), "{out}");
}

/// Audit 34, suspected item 2. nvml.h (go-nvml `gen/nvml/nvml.h`): `nvmlInit_v2` succeeds only
/// with the driver loaded (`NVML_ERROR_DRIVER_NOT_LOADED` otherwise), so NoDevice is a loaded
/// driver with no GPU NVML lists: a GPU that failed to initialise, or one not passed to this
/// container, looks the same as a host without GPUs. When the host is declared with GPUs
/// (`--expect-gpus`, from the topology), none or fewer is critical, and the kernel log is read;
/// without the declaration nothing changes.
#[test]
fn a_host_declared_with_gpus_that_shows_fewer_is_never_ok() {
    let o = run(FakeNvml::NoDevice, &["--expect-gpus", "2"]);
    let out = common::stdout_of_exit(&o, 1);
    assert!(
        out.contains(
            "  critical gpus-missing: NVML lists no GPU here, though the NVIDIA driver is \
             loaded and 2 are expected"
        ),
        "{out}"
    );
    // The kernel log is read then (`none` here, by `run`): not skipped as a GPU-less host's.
    assert!(
        out.contains("XID history since boot: not read (none)"),
        "{out}"
    );
    assert_eq!(out.lines().last(), Some("overall: critical"), "{out}");

    let o = run(FakeNvml::TwoA5000, &["--expect-gpus", "3"]);
    let out = common::stdout_of_exit(&o, 1);
    assert!(
        out.contains("  critical gpus-missing: NVML lists 2 GPU(s) here, 3 expected"),
        "{out}"
    );

    let o = run(FakeNvml::TwoA5000, &["--expect-gpus", "2"]);
    let out = common::stdout_of_exit(&o, 0);
    assert!(!out.contains("gpus-missing"), "{out}");

    // Not declared: a host without GPUs, as before.
    let o = run(FakeNvml::NoDevice, &[]);
    let out = common::stdout_of_exit(&o, 0);
    assert_eq!(out.lines().last(), Some("overall: ok"), "{out}");
}
