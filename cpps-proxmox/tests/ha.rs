//! High availability end to end: what fakepve (PyPI `fakepve` 0.5.0, started by
//! `xtask/env/fakepve.sh`, found through `CPPS_TEST_FAKEPVE`) honours of the HA manager, and,
//! where it does not, exactly where it differs from upstream and what the client does instead.
//! Upstream wins: the client follows pve-ha-manager and qemu-server, and each divergence is a
//! test against fakepve whose comment names the upstream file.
//!
//! What fakepve 0.5.0 does (its sources: `server.py` `_ha_request`, `generic.py`, `shapes.py`):
//!
//! * start/stop of a guest it was told is HA-managed (the estate's VM 100, `ha_state`) fork a
//!   `hastart`/`hastop` worker logging "Requesting HA start for VM 100", which ends OK at once,
//!   and the guest reaches the state a moment later (its `ha_delay`): honoured, as qemu-server
//!   `src/PVE/API2/Qemu.pm` does it;
//! * every `/cluster/ha/…` path is answered by its schema-driven catch-all: checked against the
//!   PVE 9 schema (a bad `state` or a missing `node` is a 400), then answered with a value built
//!   from the method's `returns`, storing nothing. So `POST /cluster/ha/resources` is accepted
//!   and forgotten, the list is one placeholder (`sid: "fake"`), any sid reads back,
//!   `DELETE` of anything succeeds, migrate/relocate answer `requested-node: "fake"` and move
//!   nothing, and `/cluster/ha/status/current` is one placeholder quorum entry with no service;
//! * `POST …/qemu/{vmid}/migrate` of the HA VM is that catch-all too: a `migrate` worker that
//!   moves nothing, where qemu-server forks `hamigrate`.
//!
//! The answers of the real HA manager that the client relies on are replayed with wiremock at
//! the end of this file (and in `server_answers.rs` for the waits after `hastart`/`hamigrate`).
//! The estate is `tests/fakepve/guests.json`: VM 100 (running, HA) on pve-ippri-31, VM 101
//! (stopped) on pve-ippri-32. Every test leaves it as it found it.

mod common;

use std::time::Duration;

use cpps_proxmox::api::{HaResourceSpec, MigrateOptions};
use cpps_proxmox::family::{self, ExitStatus, Product, Upid, WaitOptions};
use cpps_proxmox::types::{ClusterResource, GuestStatus, HaSid, HaStatusType, ResourceFilter};
use cpps_proxmox::{Client, Error, HaWanted, NodeName, PveError};
use serde_json::json;

fn sid(text: &str) -> HaSid {
    text.parse().unwrap()
}

/// A wait that gives up soon: against fakepve the HA manager never shows the service.
fn short() -> WaitOptions {
    common::fakepve_wait().timeout(Some(Duration::from_millis(800)))
}

/// Waits for the task alone (not for the HA manager) and returns its log.
async fn task_and_log(pve: &Client, upid: &Upid) -> Vec<String> {
    let outcome = family::wait_task(
        pve.http(),
        Product::Pve,
        upid,
        &upid.task_path(),
        &common::fakepve_wait(),
    )
    .await
    .unwrap();
    assert_eq!(outcome.exit_status, ExitStatus::Ok, "{outcome:?}");
    family::task_log_tail(pve.http(), Product::Pve, &upid.task_path(), 50)
        .await
        .unwrap()
}

/// Reads the VM's status until it is `wanted` (fakepve acts a moment after the HA worker).
async fn vm_reaches(pve: &Client, node: &str, id: u32, wanted: GuestStatus) {
    let vm = pve.node(node).qemu(common::vmid(id));
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = vm.status().await.unwrap();
        if status.status == wanted {
            return;
        }
        assert!(
            tokio::time::Instant::now() < until,
            "VM {id} still {:?}, not {wanted:?}",
            status.status
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The entry `/cluster/resources` shows for guest `id`.
async fn resource_of(pve: &Client, id: u32) -> ClusterResource {
    pve.cluster()
        .resources(Some(ResourceFilter::Vm))
        .await
        .unwrap()
        .into_iter()
        .find(|r| r.vmid.map(|v| v.get()) == Some(id))
        .unwrap_or_else(|| panic!("guest {id} is not in /cluster/resources"))
}

/// The HA state `/cluster/resources` shows for a guest (`hastate`).
async fn hastate(pve: &Client, id: u32) -> Option<String> {
    resource_of(pve, id).await.hastate
}

/// The node `/cluster/resources` shows a guest on.
async fn node_of(pve: &Client, id: u32) -> String {
    resource_of(pve, id).await.node.unwrap().to_string()
}

/// Honoured: stop and start of an HA-managed VM are queued with the HA manager, not done by the
/// call. qemu-server `src/PVE/API2/Qemu.pm` (`vm_stop`, `vm_start`): when
/// `PVE::HA::Config::vm_is_ha_managed`, fork a `hastop`/`hastart` worker that prints
/// "Requesting HA stop for VM 100" and runs `ha-manager crm-command stop vm:100 0` / `ha-manager
/// set vm:100 --state started`, ending OK at once. fakepve does the same and then changes the
/// guest, which reads back in its status and in `/cluster/resources` `hastate`.
#[tokio::test]
async fn stop_and_start_of_an_ha_vm_are_ha_workers_and_the_vm_follows() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let vm = pve.node("pve-ippri-31").qemu(common::vmid(100));
    assert!(vm.status().await.unwrap().ha_managed());

    let upid = vm.stop().await.unwrap();
    assert_eq!(
        (upid.worker_type(), upid.worker_id(), upid.node()),
        ("hastop", "100", "pve-ippri-31")
    );
    let log = task_and_log(&pve, &upid).await;
    assert!(
        log.iter().any(|l| l == "Requesting HA stop for VM 100"),
        "{log:?}"
    );
    vm_reaches(&pve, "pve-ippri-31", 100, GuestStatus::Stopped).await;
    let status = vm.status().await.unwrap();
    assert_eq!(status.ha, Some(json!({"managed": 1, "state": "stopped"})));
    assert_eq!(hastate(&pve, 100).await.as_deref(), Some("stopped"));

    let upid = vm.start().await.unwrap();
    assert_eq!(upid.worker_type(), "hastart");
    let log = task_and_log(&pve, &upid).await;
    assert!(
        log.iter().any(|l| l == "Requesting HA start for VM 100"),
        "{log:?}"
    );
    vm_reaches(&pve, "pve-ippri-31", 100, GuestStatus::Running).await;
    assert_eq!(hastate(&pve, 100).await.as_deref(), Some("started"));
}

/// Not honoured: the HA manager's view. pve-ha-manager `src/PVE/API2/HA/Status.pm`
/// (`status/current`) always starts with `{"id": "quorum", "type": "quorum", "quorate": 1, …}` on
/// a quorate node and lists a `service:vm:100` entry for every configured resource (one the CRM
/// has not processed yet as `queued`). fakepve answers one schema-built placeholder, `id:
/// "fake"`, `quorate: 0` (although its own `/cluster/status` says quorate), and never a service.
///
/// The client follows upstream: after a `hastop`/`hastart` worker the action is done when the HA
/// manager shows it (`server_answers.rs` replays upstream's entries and the wait ends there), not
/// when the worker ends or the guest's status changes. Against fakepve the wait therefore ends
/// at its timeout with `Error::HaTimeout` naming what it waited for and that no service entry
/// was seen, while the guest did change: fakepve acts without showing it.
#[tokio::test]
async fn the_wait_after_an_ha_worker_asks_the_ha_manager_which_fakepve_leaves_empty() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let status = pve.cluster().ha_status().await.unwrap();
    assert_eq!(status.len(), 1, "{status:?}");
    assert_eq!(
        (status[0].id.as_str(), &status[0].kind, status[0].quorate),
        ("fake", &HaStatusType::Quorum, Some(false))
    );
    assert!(status.iter().all(|e| e.kind != HaStatusType::Service));
    let cluster = pve.cluster().status().await.unwrap();
    assert!(cluster.iter().any(|e| e.quorate == Some(true)));

    let vm = pve.node("pve-ippri-31").qemu(common::vmid(100));
    for (action, wanted, reached) in [
        ("stop", "stopped", GuestStatus::Stopped),
        ("start", "started", GuestStatus::Running),
    ] {
        let upid = if action == "stop" {
            vm.stop().await.unwrap()
        } else {
            vm.start().await.unwrap()
        };
        let err = pve.wait(&upid, &short()).await.unwrap_err();
        let Error::Product(PveError::HaTimeout {
            sid,
            wanted: waited_for,
            last_seen,
            ..
        }) = &err
        else {
            panic!("{action}: {err:?}");
        };
        assert_eq!(
            (sid.as_str(), waited_for.as_str(), last_seen.as_str()),
            ("100", wanted, "no HA service entry")
        );
        assert_eq!(err.delivery(), cpps_http::Delivery::Answered);
        vm_reaches(&pve, "pve-ippri-31", 100, reached).await;
    }
}

/// Not honoured: adding a resource. pve-ha-manager `src/PVE/API2/HA/Resources.pm` (`create`)
/// parses the sid (`PVE::HA::Config::parse_sid`: "unable to parse service id"), checks that the
/// guest exists, refuses a sid already defined ("resource ID 'vm:101' already defined"), writes
/// `resources.cfg`, and the `index`/`read` methods then return it (`no such resource` for one
/// that is not there); `vm_is_ha_managed` reads the same file, so the guest's next start is a
/// `hastart`. fakepve checks the form against the PVE 9 schema, answers `null` as upstream does,
/// and stores nothing.
///
/// The client follows upstream: the sid is typed (`vm:ID`/`ct:ID`, what `parse_sid` accepts), the
/// parameters are chosen by the release (`failback` is PVE 9's, and sent only when every node
/// says it runs PVE 9) and by the cluster (`group` is
/// refused before sending once the groups are migrated to rules), a 400 of the schema check is a typed error with its
/// field, and what an add did is read back, never assumed: here the read-back shows that
/// fakepve kept nothing, and the wait for the new service runs out.
#[tokio::test]
async fn an_ha_add_is_validated_and_answered_but_not_kept_by_fakepve() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let cluster = pve.cluster();
    let vm101 = sid("vm:101");

    // The release decides the form: fakepve is PVE 9.
    assert_eq!(pve.server_version().await.unwrap().major, 9);
    // `group` is decided by the cluster, not the release (pve-ha-manager `HA/Resources.pm`
    // refuses it only once the groups are migrated to rules): fakepve's `GET
    // /cluster/ha/groups` lists a group, so its groups are not migrated and the add sends
    // `group`, as a PVE 9 node does mid-upgrade (issue 31, N8).
    assert!(!cluster.ha_groups_migrated().await.unwrap());
    let mut grouped = HaResourceSpec::new(vm101).state("stopped");
    grouped.group = Some("franca".to_owned());
    let since = s.request_count().await;
    cluster.ha_add(&grouped).await.unwrap();
    let (_, seen) = s.requests_since(since).await;
    assert_eq!(
        seen,
        [
            ("GET".to_owned(), "/api2/json/cluster/ha/groups".to_owned()),
            (
                "POST".to_owned(),
                "/api2/json/cluster/ha/resources".to_owned()
            )
        ]
    );

    // The schema check is honoured: an unknown state is PVE's 400 with the field named.
    let err = cluster
        .ha_add(&HaResourceSpec::new(vm101).state("hibernating"))
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(cpps_http::StatusCode::BAD_REQUEST));
    assert!(format!("{err:?}").contains("state"), "{err:?}");

    // The add itself: accepted with upstream's `null`.
    let spec = HaResourceSpec::new(vm101)
        .state("stopped")
        .comment("PVE-003: declared ha");
    let since = s.request_count().await;
    cluster.ha_add(&spec).await.unwrap();
    let (_, seen) = s.requests_since(since).await;
    assert_eq!(
        seen,
        [(
            "POST".to_owned(),
            "/api2/json/cluster/ha/resources".to_owned()
        )]
    );

    // Read back: upstream lists vm:101 now; fakepve lists its placeholder only, which the client
    // does not take for a guest.
    let resources = cluster.ha_resources().await.unwrap();
    assert!(resources.iter().all(|r| r.sid != "vm:101"), "{resources:?}");
    assert_eq!(
        resources.iter().map(|r| r.sid.as_str()).collect::<Vec<_>>(),
        ["fake"]
    );
    assert!(resources[0].guest().is_none());
    // Any sid reads back, even a guest that does not exist (upstream: HTTP 500 "no such
    // resource 'vm:999'"), with a made-up type.
    let ghost = cluster.ha_resource("vm:999").await.unwrap();
    assert_eq!(
        (ghost.sid.as_str(), ghost.kind.as_deref()),
        ("vm:999", Some("fake"))
    );
    // A second add of the same sid is accepted (upstream: "resource ID 'vm:101' already
    // defined").
    cluster.ha_add(&spec).await.unwrap();

    // The guest did not become HA-managed: its start is a plain `qmstart` (upstream: `hastart`).
    let vm = pve.node("pve-ippri-32").qemu(common::vmid(101));
    assert!(!vm.status().await.unwrap().ha_managed());
    let upid = vm.start().await.unwrap();
    assert_eq!(upid.worker_type(), "qmstart");
    let outcome = pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    assert!(outcome.ha.is_none());
    let upid = vm.stop().await.unwrap();
    assert_eq!(upid.worker_type(), "qmstop");
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();

    // And the HA manager never shows the new service.
    let err = cluster
        .ha_wait(&vm101, HaWanted::Stopped, &short())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::Product(PveError::HaTimeout { last_seen, .. }) if last_seen == "no HA service entry"),
        "{err:?}"
    );
}

/// `failback` is sent once every node says it runs PVE 9: a PVE 8 CRM master ignores it
/// (pve-ha-manager 4.0.x knows only a group's `nofailback`). fakepve's node status says
/// `pveversion: fake` where upstream writes `pve-manager/9.0.10/<commit>` (pve-manager
/// `PVE/API2/Nodes.pm` `status`): refused, with the nodes read and nothing posted.
#[tokio::test]
async fn an_ha_failback_is_refused_by_fakepves_nodes_that_name_no_release() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let mut spec = HaResourceSpec::new(sid("vm:101")).state("stopped");
    spec.failback = Some(true);
    let since = s.request_count().await;
    let err = pve.cluster().ha_add(&spec).await.unwrap_err();
    assert!(
        err.to_string()
            .contains("node pve-ippri-31 reports pveversion `fake`, which names no release"),
        "{err}"
    );
    let (_, seen) = s.requests_since(since).await;
    assert!(seen.iter().all(|(method, _)| method == "GET"), "{seen:?}");
}

/// Not honoured: moving a resource. pve-ha-manager `src/PVE/API2/HA/Resources.pm` (`migrate`,
/// `relocate`) refuses a sid that is not HA managed ("resource 'vm:999' is not HA managed"),
/// queues `migrate vm:100 NODE` for the CRM and answers `{"sid", "requested-node": NODE}`; the
/// service then shows `migrate`/`relocate` and ends `started` on NODE. fakepve answers
/// `requested-node: "fake"` for any sid and moves nothing. The same for the guest's own migrate:
/// qemu-server `src/PVE/API2/Qemu.pm` (`migrate_vm`) forks `hamigrate` ("Requesting HA
/// migration for VM 100 to node …") for an HA VM; fakepve's catch-all forks a `migrate` worker
/// (a type qemu-server never uses: its own is `qmigrate`) that does nothing.
///
/// The client follows upstream: it waits for the HA manager to show the service on the target
/// (`server_answers.rs`, `waiting_on_an_ha_worker_waits_for_the_ha_manager`), so here the
/// wait runs out and the VM is read back where it was.
#[tokio::test]
async fn ha_migrate_and_relocate_are_answered_but_nothing_moves_in_fakepve() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let cluster = pve.cluster();
    let vm100 = sid("vm:100");
    for relocate in [false, true] {
        cluster
            .ha_move(&vm100, "pve-ippri-32", relocate)
            .await
            .unwrap();
        let err = cluster
            .ha_wait(
                &vm100,
                HaWanted::OnNode("pve-ippri-32".to_owned()),
                &short(),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::Product(PveError::HaTimeout { wanted, .. }) if wanted == "on node pve-ippri-32"),
            "{err:?}"
        );
        assert_eq!(node_of(&pve, 100).await, "pve-ippri-31");
    }
    // What fakepve answered: upstream's keys, its own placeholder for the node.
    let answer: serde_json::Value = pve
        .http()
        .send_json(
            cpps_http::Request::post("cluster/ha/resources/vm%3A100/migrate")
                .form(&[("node", "pve-ippri-32")]),
        )
        .await
        .unwrap();
    assert_eq!(
        answer["data"],
        json!({"sid": "vm:100", "requested-node": "fake"})
    );
    // The schema check is honoured: `node` is required.
    let missing = pve
        .http()
        .execute(cpps_http::Request::post(
            "cluster/ha/resources/vm%3A100/relocate",
        ))
        .await
        .unwrap();
    assert_eq!(missing.status().as_u16(), 400);

    let upid = pve
        .node("pve-ippri-31")
        .qemu(common::vmid(100))
        .migrate(&MigrateOptions::to(NodeName::new("pve-ippri-32").unwrap()))
        .await
        .unwrap();
    assert_eq!(upid.worker_type(), "migrate");
    let outcome = pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    assert!(
        outcome.ha.is_none(),
        "not an HA worker: nothing to wait for"
    );
    assert_eq!(node_of(&pve, 100).await, "pve-ippri-31");
}

/// Not honoured: removing a resource. pve-ha-manager `src/PVE/API2/HA/Resources.pm` (`delete`)
/// dies "cannot delete service 'vm:101', not HA managed!" (HTTP 500) for a sid that is not
/// configured; fakepve answers `null` for any sid. The client passes the server's refusal on as
/// a typed error with its message (replayed below), and the runbook never removes a resource.
#[tokio::test]
async fn an_ha_remove_of_an_unmanaged_guest_is_refused_upstream_and_accepted_by_fakepve() {
    if let Some(s) = common::fakepve(&common::this_test()).await {
        s.token_client()
            .cluster()
            .ha_remove(&sid("vm:101"))
            .await
            .unwrap();
    }

    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("DELETE", "cluster/ha/resources/vm%3A101"),
        common::error_answer(500, "cannot delete service 'vm:101', not HA managed!\n"),
    )
    .await;
    let err = common::mock_client(&api)
        .cluster()
        .ha_remove(&sid("vm:101"))
        .await
        .unwrap_err();
    assert_eq!(
        err.status(),
        Some(cpps_http::StatusCode::INTERNAL_SERVER_ERROR)
    );
    assert!(err.to_string().contains("not HA managed"), "{err}");
    assert!(!err.is_not_found());
    api.verify().await;
}

/// Upstream, what an add is followed by: pve-ha-manager `src/PVE/API2/HA/Status.pm` lists the
/// new resource at once, before the CRM has processed it (`state: "queued"`, no `crm_state`;
/// `PVE::HA::Tools::get_verbose_service_state`), then with the CRM's state; `Resources.pm`
/// `index` lists it with its configuration. The wait after an add ends when the requested
/// state is shown, and the read-back finds the resource.
#[tokio::test]
async fn upstream_an_added_resource_is_queued_then_reaches_its_state() {
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "9.0.10").await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources",
            &["sid=vm%3A101", "state=started"],
        ),
        common::data_answer(json!(null)),
    )
    .await;
    common::serve_ha_status(
        &api,
        json!({
            "id": "service:vm:101", "type": "service", "sid": "vm:101", "node": "pve2",
            "state": "queued", "request_state": "started", "status": "vm:101 (pve2, queued)"
        }),
        2,
        json!({
            "id": "service:vm:101", "type": "service", "sid": "vm:101", "node": "pve2",
            "crm_state": "started", "state": "started", "request_state": "started",
            "status": "vm:101 (pve2, started)"
        }),
    )
    .await;
    common::pve_call("GET", "cluster/ha/resources")
        .respond_with(common::data_answer(json!([
            {"sid": "vm:101", "type": "vm", "state": "started", "digest": "5f1e0c"}
        ])))
        .mount(api.server())
        .await;
    let pve = common::mock_client(&api);
    let cluster = pve.cluster();
    let vm101 = sid("vm:101");
    cluster
        .ha_add(&HaResourceSpec::new(vm101).state("started"))
        .await
        .unwrap();
    let reached = cluster
        .ha_wait(&vm101, HaWanted::Started, &common::fakepve_wait())
        .await
        .unwrap();
    assert_eq!(
        (
            reached.sid.as_str(),
            reached.node.as_str(),
            reached.state.as_str(),
            reached.polls
        ),
        ("vm:101", "pve2", "started", 3)
    );
    let listed = cluster.ha_resources().await.unwrap();
    assert_eq!(listed[0].guest(), Some(vm101));
    api.verify().await;
    api.assert_no_unexpected_requests();
}
