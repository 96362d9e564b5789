//! Runs the `gpu-health` binary against the fake NVML library (cpps-gpu's test fake, loaded by
//! the real nvml-wrapper) and, when `CPPS_TEST_KUBECONFIG` is set, the test API server.

use std::process::{Command, Output};

// The API-server helpers (client, CRD installation) are cpps-gpu's, shared rather than copied.
#[path = "../../cpps-gpu/tests/common/mod.rs"]
mod gpu_common;

use cpps_gpu::test_util::{FakeNvml, fake_nvml_library};

fn run(variant: FakeNvml, extra: &[&str]) -> Output {
    let lib = fake_nvml_library(variant).expect("gcc builds the fake NVML library");
    Command::new(env!("CARGO_BIN_EXE_gpu-health"))
        .arg("--nvml-lib")
        .arg(&lib)
        .args(["--xid-wait-ms", "100"])
        .args(extra)
        .output()
        .expect("gpu-health runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn text_report_of_two_a5000s() {
    let o = run(FakeNvml::TwoA5000, &["--driver-version", "550.54.15"]);
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "host: driver 550.54.15, CUDA 12.4: warning");
    assert_eq!(
        lines[1],
        "GPU 0 NVIDIA RTX A5000 GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01 2.0/24.0 GiB 41 °C 61 W: ok"
    );
    assert_eq!(
        lines[2],
        "GPU 1 NVIDIA RTX A5000 GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02 0.5/24.0 GiB 67 °C 88 W: warning"
    );
    assert_eq!(
        lines[3],
        "  warning remapped-rows-pending: a row remapping waits for a GPU reset (1 rows remapped for uncorrectable errors)"
    );
    assert_eq!(lines[4], "XIDs: none seen");
    assert_eq!(lines.last(), Some(&"overall: warning"));
}

#[test]
fn driver_not_pinned_exits_1() {
    let o = run(FakeNvml::TwoA5000, &["--driver-version", "535.183.01"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(
        "  critical driver-not-pinned: NVIDIA driver 550.54.15 is running, the pinned version is 535.183.01"
    ));
    assert!(out.ends_with("overall: critical\n"));
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
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.starts_with("NVML not available here: the NVML library "),
        "{out}"
    );
    let o = run(FakeNvml::DriverMismatch, &[]);
    assert_eq!(
        stdout(&o).lines().next(),
        Some("NVML not available here: the NVML library does not match the loaded kernel driver")
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
