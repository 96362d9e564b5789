//! Runs the built `inventory` binary against a wiremock server answering as PVE does (the
//! end-to-end run against fakepve is in `cpps-proxmox`'s suite); the environment is the bpg
//! provider's, pointed at the mock over plain HTTP on 127.0.0.1.

mod common;

use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const TOKEN: &str = "root@pam!ci=0b7a9c7e-3a53-4d6b-9d0a-2f0e6c1f1e55";

async fn serve(server: &MockServer, route: &str, status: u16, body: Value) {
    Mock::given(method("GET"))
        .and(path(format!("/api2/json{route}")))
        .respond_with(ResponseTemplate::new(status).set_body_json(body))
        .mount(server)
        .await;
}

async fn run(server: &MockServer, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_inventory"))
        .args(args)
        .env("PROXMOX_VE_ENDPOINT", server.uri())
        .env("PROXMOX_VE_API_TOKEN", TOKEN)
        .env_remove("PROXMOX_VE_USERNAME")
        .env_remove("PROXMOX_VE_PASSWORD")
        .env_remove("PROXMOX_VE_INSECURE")
        .env_remove("PROXMOX_VE_CA_FILE")
        .env_remove("PROXMOX_VE_FINGERPRINT")
        .output()
        .await
        .expect("inventory runs")
}

#[tokio::test]
async fn the_help_documents_the_timeout_and_the_exit_status() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_inventory"));
    assert!(help.contains("1 partial"), "{help}");
}

/// Issue 14, defect 3: a token without `Sys.Audit` on `/` gets 403 on `/cluster/ha/resources`
/// (pve-ha-manager `src/PVE/API2/HA/Resources.pm`). The binary prints every guest, names the
/// part it could not read, and exits 1 (partial); the token secret appears nowhere.
#[tokio::test]
async fn a_forbidden_part_gives_a_partial_inventory_and_exit_1() {
    let server = MockServer::start().await;
    serve(
        &server,
        "/nodes",
        200,
        json!({"data": [{"node": "pve1", "status": "online"}]}),
    )
    .await;
    serve(
        &server,
        "/cluster/resources",
        200,
        json!({"data": [
            {"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "gitlab", "status": "running", "hastate": "started"},
            {"id": "lxc/200", "type": "lxc", "node": "pve1", "vmid": 200, "name": "dns1", "status": "running"}
        ]}),
    )
    .await;
    serve(
        &server,
        "/cluster/ha/resources",
        403,
        json!({"data": null, "message": "Permission check failed (/, Sys.Audit)\n"}),
    )
    .await;
    serve(
        &server,
        "/nodes/pve1/lxc/200/config",
        200,
        json!({"data": {"hostname": "dns1", "unprivileged": 1}}),
    )
    .await;
    let out = run(&server, &["--format", "json"]).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(report["guests"].as_array().map(Vec::len), Some(2));
    assert_eq!(report["guests"][1]["privileged"], false);
    assert_eq!(report["errors"][0]["part"], "HA resources");
    assert_eq!(report["errors"][0]["status"], 403);
    assert!(
        stderr.contains("inventory: HA resources could not be read"),
        "{stderr}"
    );
    let secret = TOKEN.split_once('=').unwrap().1;
    assert!(!stdout.contains(secret) && !stderr.contains(secret));
}

/// Issue 20, defect 1: a server that never answers; the run ends within `--timeout` and says
/// so, part by part (nothing read: exit 2).
#[tokio::test]
async fn a_server_that_never_answers_ends_within_the_timeout() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": []}))
                .set_delay(std::time::Duration::from_secs(60)),
        )
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let out = run(&server, &["--timeout", "2"]).await;
    let elapsed = started.elapsed();
    let stderr = common::stderr_of_exit(&out, 2);
    assert!(
        elapsed < std::time::Duration::from_secs(2 + 5),
        "took {elapsed:?}"
    );
    assert!(stderr.contains("nodes could not be read"), "{stderr}");
}

/// Issue 31, E5: `GET /cluster/resources` silently skips every guest without `VM.Audit`
/// (pve-manager `PVE/API2/Cluster.pm` `resources`: `next if !$rpcenv->check(...,
/// "/vms/$vmid", ['VM.Audit'], 1)`), and a pool-scoped token holds nothing on `/vms`
/// (pve-access-control `PVE/API2/AccessControl.pm` `permissions` answers `{}`). The
/// inventory is partial: exit 1, a line on stderr saying why, and `guests_trimmed` in the JSON.
#[tokio::test]
async fn a_trimmed_guest_list_is_named_on_stderr_and_in_the_json() {
    let server = MockServer::start().await;
    serve(
        &server,
        "/nodes",
        200,
        json!({"data": [{"node": "pve1", "status": "online"}]}),
    )
    .await;
    serve(
        &server,
        "/cluster/resources",
        200,
        json!({"data": [
            {"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "gitlab", "status": "running"}
        ]}),
    )
    .await;
    serve(&server, "/cluster/ha/resources", 200, json!({"data": []})).await;
    serve(&server, "/access/permissions", 200, json!({"data": {}})).await;
    let out = run(&server, &["--format", "json"]).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(report["errors"], json!([]), "{stdout}");
    let why = report["guests_trimmed"].as_str().expect("guests_trimmed");
    assert!(why.contains("VM.Audit on /vms"), "{why}");
    assert!(
        stderr.contains(&format!(
            "inventory: the guest list may leave out guests: {why}"
        )),
        "{stderr}"
    );
}
