//! Runs the built `driver-update`: the plan for the CPPS topology's GPU host with nothing
//! observed (the default: nothing is changed), a host without GPU container refused, and, with
//! `CPPS_TEST_FAKEPVE`, the plan from fakepve's container volumes plus a LINSTOR controller,
//! then `--apply` taking the snapshot and waiting for it. No LINSTOR controller runs here: a
//! wiremock controller answers as the LINSTOR REST API file says
//! (`linstor-rest-v1-openapi.yaml`: `POST /v1/resource-definitions/{resource}/snapshots` answers
//! 201 with an `ApiCallRc` list; `GET …/snapshots` lists them with their `flags`).

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

mod common;

use std::process::{Command, Output};

use common::repo;
use serde_json::json;
use wiremock::matchers::{body_json, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn run(args: &[&str], env: &[(&str, String)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_driver-update"));
    // Only what the test gives: no endpoint leaks in from the environment.
    for var in [
        "PROXMOX_VE_ENDPOINT",
        "PROXMOX_VE_API_TOKEN",
        "LS_CONTROLLERS",
        "PBS_REPOSITORY",
        "VYOS_URL",
        "KUBECONFIG",
    ] {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .expect("driver-update runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn the_plan_for_the_cpps_gpu_host_changes_nothing() {
    let o = run(
        &[
            "--host",
            "pve-ippri-31",
            "--target-driver",
            "550.127.05",
            "--snapshot",
            "pre-driver-test",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "NVIDIA driver update on pve-ippri-31 (unpinned → 550.127.05)",
            "GPU container gpu-sp-01: cluster k3s-gpu-sp, volumes [], LINSTOR resources []",
        ]
    );
    common::assert_has_lines(
        &out,
        &[
            "  1. Announce the maintenance window of the GPU cluster k3s-gpu-sp: the driver update on pve-ippri-31 stops its GPU work.",
            "  2. Drain node gpu-sp-01 of k3s-gpu-sp: kubectl drain gpu-sp-01 --ignore-daemonsets --delete-emptydir-data",
            "  4. Snapshot: nothing to snapshot on LINSTOR; confirm a verified PBS backup of each container instead.",
            // A privileged container uses the host's kernel module with its own user-space
            // libraries: until they match, nvidia-smi inside it fails with NVML's
            // LIB_RM_VERSION_MISMATCH (go-nvml `gen/nvml/nvml.h`, "RM detects a driver/library
            // version mismatch").
            "  7. Start container gpu-sp-01, install driver 550.127.05's user-space libraries inside it (NVIDIA's installer with --no-kernel-module, or the matching libnvidia packages: the container uses the host's kernel module, and nvidia-smi fails with \"Driver/library version mismatch\" until they match), check nvidia-smi inside it shows 550.127.05; kubectl uncordon gpu-sp-01.",
            "  8. Write `nvidia_driver: \"550.127.05\"` for pve-ippri-31 in the topology file (GPU-005 compares it with what runs).",
            "  2. Reinstall NVIDIA driver <current version> on pve-ippri-31 and reboot it if needed.",
            "  3. Start container gpu-sp-01, reinstall driver <current version>'s user-space libraries inside it, check nvidia-smi; uncordon gpu-sp-01.",
            "  - LINSTOR was not observed: no snapshot can be planned",
        ],
    );
    assert!(out.contains("the topology pins no NVIDIA driver for pve-ippri-31"));
    assert!(
        out.ends_with("Plan only: nothing was changed. --apply takes the LINSTOR snapshots.\n")
    );

    let o = run(&["--host", "pve-ippri-11"], &[]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr),
        "driver-update: host `pve-ippri-11` has no GPU container: nothing to plan\n"
    );
    // With no LINSTOR snapshot in the plan, --apply refuses to pretend.
    let o = run(&["--host", "pve-ippri-31", "--apply"], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o.stderr).contains("the plan has no LINSTOR snapshot to take"));
}

fn linstor_fixture(name: &str) -> serde_json::Value {
    common::json_file(&format!("cpps-linstor/tests/fixtures/{name}"))
}

async fn controller() -> MockServer {
    let server = MockServer::start().await;
    let replica = |node: &str| {
        json!({"name": "vm-201-disk-0", "node_name": node,
               "volumes": [{"volume_number": 0, "storage_pool_name": "ssd-pool",
                            "state": {"disk_state": "UpToDate"}}]})
    };
    for (route, body) in [
        ("/v1/nodes", linstor_fixture("nodes.json")),
        (
            "/v1/view/storage-pools",
            linstor_fixture("storage_pools.json"),
        ),
        (
            "/v1/resource-groups",
            linstor_fixture("resource_groups.json"),
        ),
        (
            "/v1/resource-definitions",
            json!([{"name": "vm-201-disk-0"}]),
        ),
        (
            "/v1/view/resources",
            json!([replica("pve-ippri-11"), replica("pve-ippri-12")]),
        ),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
    }
    Mock::given(method("POST"))
        .and(path("/v1/resource-definitions/vm-201-disk-0/snapshots"))
        .and(body_json(json!({"name": "pre-driver-test"})))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!([
            {"ret_code": 17563649, "message": "New snapshot 'pre-driver-test' of resource 'vm-201-disk-0' registered."}
        ])))
        .expect(1)
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path("/v1/resource-definitions/vm-201-disk-0/snapshots"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!([
            {"name": "pre-driver-test", "resource_name": "vm-201-disk-0",
             "nodes": ["pve-ippri-11", "pve-ippri-12"], "flags": ["SUCCESSFUL"]}
        ])))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn the_plan_from_proxmox_and_linstor_and_apply_takes_the_snapshot() {
    let Some(s) =
        pve::fakepve("the_plan_from_proxmox_and_linstor_and_apply_takes_the_snapshot").await
    else {
        return;
    };
    let server = controller().await;
    let dir = tempfile::tempdir().unwrap();
    let endpoints = dir.path().join("endpoints.yaml");
    std::fs::write(
        &endpoints,
        format!(
            "sites:\n  sp:\n    proxmox:\n      url: {}\n      token_env: PVE_TOKEN\n      ca_file: {}\n    linstor:\n      controllers: {}\n",
            s.pve.url,
            s.pve.ca_file.display(),
            server.uri()
        ),
    )
    .unwrap();
    let topology = repo("cpps-topology/tests/fixtures/live/driver-update.yaml");
    let token = (
        "PVE_TOKEN",
        format!("{}={}", s.pve.token_id, s.pve.token_secret),
    );
    let base = [
        "--host",
        "pve-ippri-32",
        "--snapshot",
        "pre-driver-test",
        "--topology",
        topology.to_str().unwrap(),
        "--endpoints",
        endpoints.to_str().unwrap(),
    ];
    let o = run(&base, std::slice::from_ref(&token));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.starts_with("NVIDIA driver update on pve-ippri-32 (550.54.15 → unspecified)\nGPU container monitoring (CT 201): cluster k3s-gpu-sp, volumes [local-lvm:vm-201-disk-0, local-lvm:vm-201-disk-1], LINSTOR resources [vm-201-disk-0]\n"), "{out}");
    common::assert_has_lines(
        &out,
        &[
            "  3. Shut container 201 (monitoring) down: POST /nodes/pve-ippri-32/lxc/201/status/shutdown (pct shutdown)",
            "  4. Snapshot (--apply runs this step and waits): create snapshot pre-driver-test of resource vm-201-disk-0: POST /v1/resource-definitions/vm-201-disk-0/snapshots {\"name\":\"pre-driver-test\"}",
            "  2. Roll back: roll resource vm-201-disk-0 back to snapshot pre-driver-test: POST /v1/resource-definitions/vm-201-disk-0/snapshot-rollback/pre-driver-test {}",
            "  3. Reinstall NVIDIA driver 550.54.15 on pve-ippri-32 and reboot it if needed.",
            "  - volume local-lvm:vm-201-disk-1 of monitoring is not a LINSTOR resource: no snapshot protects it (a PBS backup must)",
        ],
    );
    // The plan alone sent no write.
    let posts = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.method.as_str() != "GET")
        .count();
    assert_eq!(posts, 0);

    // JSON carries the same plan.
    let mut json_args = base.to_vec();
    json_args.extend(["--format", "json"]);
    let o = run(&json_args, std::slice::from_ref(&token));
    let plan: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(plan["guests"][0]["vmid"], 201);
    assert_eq!(plan["snapshots"][0]["method"], "POST");
    assert_eq!(
        plan["snapshots"][0]["path"],
        "v1/resource-definitions/vm-201-disk-0/snapshots"
    );

    let mut apply = base.to_vec();
    apply.extend(["--apply", "--wait", "10"]);
    let o = run(&apply, &[token]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("driver-update: snapshot pre-driver-test of vm-201-disk-0: SUCCESSFUL (New snapshot 'pre-driver-test' of resource 'vm-201-disk-0' registered.)"),
        "{}",
        text(&o.stderr)
    );
    server.verify().await;
}
