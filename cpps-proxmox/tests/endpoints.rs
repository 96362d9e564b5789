//! `cpps_proxmox::ENDPOINTS` is the one list of what the handlers call: every handler builds
//! its request from a table entry (`api::request`), so a path missing from the table is refused
//! before anything is sent. This test calls every handler of `NodeApi`, `GuestApi<Qemu>`,
//! `GuestApi<Lxc>` and `ClusterApi` against a server that answers 404 to everything, and fails
//! when one of them did not reach the server, or reached a path the table does not list.
//!
//! The 404 is how PVE answers a path it does not serve (pve-http-server
//! `src/PVE/APIServer/AnyEvent.pm`, `handle_api2_request`: "Method '…' not implemented" is
//! `HTTP_NOT_IMPLEMENTED`, an unknown path `HTTP_NOT_FOUND`); each handler then ends with a
//! not-found error, which is what shows it sent its request.

mod common;

use common::{error_answer, pve_call, pve_mock_api, token_client, upid, version_answer, vmid};
use cpps_proxmox::ENDPOINTS;
use cpps_proxmox::api::{
    ConfigUpdate, GuestApi, GuestType, HaResourceSpec, MigrateOptions, ShutdownOptions,
    SnapshotOptions,
};
use cpps_proxmox::types::{HaSid, SnapshotName, TaskFilter};
use cpps_proxmox::{Client, Error};
use wiremock::Mock;
use wiremock::matchers::any;

const UPID: &str = "UPID:pve1:00001234:00005678:65A1B2C3:vzdump:100:root@pam:";

/// Records `call` as a miss unless it ended with the server's not-found answer.
fn reached<T: std::fmt::Debug>(call: &str, result: Result<T, Error>, missed: &mut Vec<String>) {
    match result {
        Err(e) if e.is_not_found() => {}
        other => missed.push(format!("{call}: {other:?}")),
    }
}

/// Whether `path` (below `/api2/json`) is an instance of the table's `template`.
fn instance_of(path: &str, template: &str) -> bool {
    let ours: Vec<&str> = path.split('/').collect();
    let theirs: Vec<&str> = template.trim_start_matches('/').split('/').collect();
    ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(o, t)| o == t || (t.starts_with('{') && !o.is_empty()))
}

async fn call_guest<K: GuestType>(guest: GuestApi<K>, missed: &mut Vec<String>) {
    let name: SnapshotName = "before-upgrade".parse().unwrap();
    let update = ConfigUpdate::default().set("description", "x");
    let snapshot = SnapshotOptions::default();
    let migrate = MigrateOptions::to("pve2".parse().unwrap());
    reached("config", guest.config().await, missed);
    reached(
        "config_with_pending",
        guest.config_with_pending().await,
        missed,
    );
    reached("update_config", guest.update_config(&update).await, missed);
    reached("pending", guest.pending().await, missed);
    reached("status", guest.status().await, missed);
    reached("snapshots", guest.snapshots().await, missed);
    let created = guest.snapshot_create(&name, &snapshot).await;
    reached("snapshot_create", created, missed);
    reached(
        "snapshot_delete",
        guest.snapshot_delete(&name).await,
        missed,
    );
    let rolled = guest.snapshot_rollback(&name, true).await;
    reached("snapshot_rollback", rolled, missed);
    reached("start", guest.start().await, missed);
    reached("stop", guest.stop().await, missed);
    let shutdown = guest.shutdown(&ShutdownOptions::default()).await;
    reached("shutdown", shutdown, missed);
    reached("migrate", guest.migrate(&migrate).await, missed);
}

async fn call_node(client: &Client, missed: &mut Vec<String>) {
    let node = client.node("pve1");
    reached("node status", node.status().await, missed);
    reached("qemu_list", node.qemu_list().await, missed);
    reached("lxc_list", node.lxc_list().await, missed);
    reached("storage", node.storage().await, missed);
    reached("tasks", node.tasks(&TaskFilter::default()).await, missed);
    reached("vzdump", node.vzdump(vmid(100), "pbs", None).await, missed);
    reached("task_status", node.task_status(&upid(UPID)).await, missed);
    call_guest(node.qemu(vmid(100)), missed).await;
    call_guest(node.lxc(vmid(200)), missed).await;
}

async fn call_cluster(client: &Client, missed: &mut Vec<String>) {
    let cluster = client.cluster();
    let sid: HaSid = "vm:100".parse().unwrap();
    reached("cluster status", cluster.status().await, missed);
    reached("resources", cluster.resources(None).await, missed);
    reached("ha_resources", cluster.ha_resources().await, missed);
    reached(
        "ha_groups_migrated",
        cluster.ha_groups_migrated().await,
        missed,
    );
    reached("ha_resource", cluster.ha_resource("vm:100").await, missed);
    let add = cluster.ha_add(&HaResourceSpec::new(sid)).await;
    reached("ha_add", add, missed);
    reached("ha_remove", cluster.ha_remove(&sid).await, missed);
    reached(
        "ha_move migrate",
        cluster.ha_move(&sid, "pve2", false).await,
        missed,
    );
    reached(
        "ha_move relocate",
        cluster.ha_move(&sid, "pve2", true).await,
        missed,
    );
    reached("backup_jobs", cluster.backup_jobs().await, missed);
    reached("not_backed_up", cluster.not_backed_up().await, missed);
    reached("pool", cluster.pool("lab").await, missed);
    reached("nested pool", cluster.pool("lab/gpu").await, missed);
    reached("ha_status", cluster.ha_status().await, missed);
}

#[tokio::test]
async fn every_handler_reaches_only_paths_of_the_endpoint_table() {
    let api = pve_mock_api().await;
    // `ha_add` reads the release first (a PVE 9, so no `group` question arises).
    pve_call("GET", "version")
        .respond_with(version_answer("9.0.10"))
        .mount(api.server())
        .await;
    Mock::given(any())
        .respond_with(error_answer(404, "no such object"))
        .mount(api.server())
        .await;
    let client = token_client(api.base_url().as_str());
    let mut missed = Vec::new();
    call_node(&client, &mut missed).await;
    call_cluster(&client, &mut missed).await;
    assert!(missed.is_empty(), "{missed:#?}");

    let requests = api.server().received_requests().await.unwrap_or_default();
    let mut outside = Vec::new();
    for request in &requests {
        let path = request.url.path().trim_start_matches("/api2/json/");
        let method = request.method.as_str();
        if path == "version" {
            continue;
        }
        if !ENDPOINTS
            .iter()
            .any(|e| e.method == method && instance_of(path, e.path))
        {
            outside.push(format!("{method} {path}"));
        }
    }
    assert!(outside.is_empty(), "{outside:#?}");
    // 7 node calls, 13 per guest kind, 14 cluster calls (`ha_add` also reads the release).
    assert_eq!(requests.len(), 7 + 2 * 13 + 14 + 1);
}
