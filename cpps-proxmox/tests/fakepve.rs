//! Integration tests against fakepve (PyPI `fakepve`, a fake of the PVE 9 API written by
//! others), started by `xtask/env/fakepve.sh` and found through `CPPS_TEST_FAKEPVE`.
//! The estate is `tests/fakepve/guests.json`: nodes pve-ippri-31 and pve-ippri-32, VMs 100
//! (running, HA) and 101 (stopped), containers 200 (privileged, no `unprivileged` key), 201
//! (unprivileged) and 202 (`unprivileged: 0`).

mod common;

use std::time::Duration;

use cpps_http::{Request, RetryPolicy, SecretString, StatusCode, TlsMode};
use cpps_proxmox::api::SnapshotOptions;
use cpps_proxmox::family::{ExitStatus, TaskState};
use cpps_proxmox::types::{
    ClusterStatusType, GuestKind, GuestStatus, HaStatusType, NodeState, Privilege, ResourceFilter,
    ResourceType, SnapshotName, TaskFilter,
};
use cpps_proxmox::{Error, GuestConfig, VmId};

#[tokio::test]
async fn token_auth_with_the_real_ca_file() {
    let s = common::fakepve_or_return!();
    let version = s.token_client().version().await.unwrap();
    assert!(version.release.starts_with('9'), "{version:?}");
    assert!(version.version.starts_with(&version.release), "{version:?}");
}

#[tokio::test]
async fn a_wrong_ca_or_pin_is_refused_before_sending() {
    let s = common::fakepve_or_return!();
    let other = s
        .token_builder()
        .tls(TlsMode::ca_file(&s.pve.other_ca_file))
        .build()
        .unwrap();
    let err = other.version().await.unwrap_err();
    assert!(matches!(&err, Error::Http(e) if e.is_connect()), "{err:?}");
    assert_eq!(err.delivery(), cpps_http::Delivery::NotSent);
    let wrong_pin = "00:".repeat(31) + "00";
    let pinned = s
        .token_builder()
        .tls(TlsMode::pinned(&wrong_pin).unwrap())
        .build()
        .unwrap();
    let err = pinned.version().await.unwrap_err();
    assert!(matches!(&err, Error::Http(e) if e.is_connect()), "{err:?}");
}

#[tokio::test]
async fn pinning_the_node_fingerprint_works_without_the_ca() {
    let s = common::fakepve_or_return!();
    let pve = s
        .token_builder()
        .tls(TlsMode::pinned(&s.pve.fingerprint).unwrap())
        .build()
        .unwrap();
    let nodes = pve.nodes().await.unwrap();
    let names: Vec<String> = nodes.iter().map(|n| n.node.to_string()).collect();
    assert_eq!(names, ["pve-ippri-31", "pve-ippri-32"]);
    assert!(nodes.iter().all(|n| n.status == NodeState::Online));
    assert!(nodes.iter().all(|n| n.ssl_fingerprint.is_some()));
}

#[tokio::test]
async fn password_login_then_writes_carry_the_csrf_token() {
    let s = common::fakepve_or_return!();
    let pve = s.password_client();
    pve.login().await.unwrap();
    // A write: fakepve answers 401 "invalid csrf token" unless the header matches the ticket.
    let ct = pve.node("pve-ippri-32").lxc(common::vmid(202));
    let upid = ct.start().await.unwrap();
    assert_eq!(upid.node(), "pve-ippri-32");
    assert_eq!(upid.worker_type(), "vzstart");
    assert_eq!(upid.worker_id(), "202");
    assert_eq!(upid.user(), "root@pam");
    let outcome = pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    assert_eq!(outcome.exit_status, ExitStatus::Ok);
    assert_eq!(ct.status().await.unwrap().status, GuestStatus::Running);
    let upid = ct.stop().await.unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    assert_eq!(ct.status().await.unwrap().status, GuestStatus::Stopped);
}

#[tokio::test]
async fn a_write_without_csrf_is_refused_with_401() {
    let s = common::fakepve_or_return!();
    // By hand: a ticket cookie but no CSRFPreventionToken header.
    let http = cpps_http::HttpClient::builder(format!("{}api2/json/", s.pve.url).parse().unwrap())
        .tls(TlsMode::ca_file(&s.pve.ca_file))
        .build()
        .unwrap();
    let login = http
        .execute(Request::post("access/ticket").form(&[
            ("username", s.pve.user.as_str()),
            ("password", s.pve.password.as_str()),
        ]))
        .await
        .unwrap();
    let ticket: serde_json::Value = login.json().unwrap();
    let cookie = format!(
        "PVEAuthCookie={}",
        ticket["data"]["ticket"].as_str().unwrap()
    );
    let answer = http
        .execute(
            Request::post("nodes/pve-ippri-32/lxc/202/status/start")
                .sensitive_header(
                    cpps_http::HeaderName::from_static("cookie"),
                    &SecretString::from(cookie),
                )
                .unwrap(),
        )
        .await
        .unwrap();
    let err = cpps_proxmox::family::decode_envelope::<serde_json::Value>(answer).unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::UNAUTHORIZED));
    assert!(err.to_string().contains("csrf"), "{err}");
}

#[tokio::test]
async fn a_bad_token_is_a_401_error() {
    let s = common::fakepve_or_return!();
    let pve = s
        .token_builder()
        .api_token(
            s.pve.token_id.parse().unwrap(),
            SecretString::from("wrong".to_owned()),
        )
        .build()
        .unwrap();
    let err = pve.version().await.unwrap_err();
    match &err {
        Error::Api {
            status, message, ..
        } => {
            assert_eq!(*status, StatusCode::UNAUTHORIZED);
            assert_eq!(message, "authentication failure");
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(!format!("{err:?}{err}").contains(&s.pve.token_secret));
}

#[tokio::test]
async fn a_wrong_password_is_an_auth_error() {
    let s = common::fakepve_or_return!();
    let pve = s
        .password_builder()
        .password(
            "root@pam".parse().unwrap(),
            SecretString::from("nope".to_owned()),
        )
        .build()
        .unwrap();
    let err = pve.nodes().await.unwrap_err();
    let text = format!("{err:?}");
    assert!(text.contains("login as root@pam refused"), "{text}");
    assert!(text.contains("401"), "{text}");
    assert!(!text.contains("nope"), "{text}");
}

#[tokio::test]
async fn cluster_status_and_resources_of_every_type() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let status = pve.cluster().status().await.unwrap();
    let cluster = status
        .iter()
        .find(|e| e.kind == ClusterStatusType::Cluster)
        .unwrap();
    assert_eq!(cluster.quorate, Some(true));
    assert_eq!(cluster.nodes, Some(2));
    // fakepve puts a count of online nodes on the cluster entry (`"online": 2`); real PVE
    // does not (pve-manager `PVE/API2/Cluster.pm`, `get_status`), so it is not kept.
    assert_eq!(cluster.online, None);
    let nodes: Vec<_> = status
        .iter()
        .filter(|e| e.kind == ClusterStatusType::Node)
        .collect();
    assert_eq!(nodes.len(), 2);
    assert!(
        nodes
            .iter()
            .all(|n| n.is_online() == Some(true) && n.ip.is_some())
    );

    let all = pve.cluster().resources(None).await.unwrap();
    for kind in [
        ResourceType::Node,
        ResourceType::Qemu,
        ResourceType::Lxc,
        ResourceType::Storage,
    ] {
        assert!(all.iter().any(|r| r.kind == kind), "no {kind} in {all:?}");
    }
    let vms = pve
        .cluster()
        .resources(Some(ResourceFilter::Vm))
        .await
        .unwrap();
    let mut ids: Vec<u32> = vms.iter().filter_map(|r| r.vmid.map(VmId::get)).collect();
    ids.sort_unstable();
    assert_eq!(ids, [100, 101, 200, 201, 202]);
    assert!(
        vms.iter()
            .all(|r| matches!(r.kind, ResourceType::Qemu | ResourceType::Lxc))
    );
    let gitlab = vms
        .iter()
        .find(|r| r.vmid == Some(common::vmid(100)))
        .unwrap();
    assert_eq!(gitlab.name.as_deref(), Some("gitlab"));
    assert_eq!(gitlab.hastate.as_deref(), Some("started"));
    assert_eq!(gitlab.maxmem, Some(8192 << 20));
    let nodes = pve
        .cluster()
        .resources(Some(ResourceFilter::Node))
        .await
        .unwrap();
    assert!(nodes.iter().all(|r| r.kind == ResourceType::Node) && nodes.len() == 2);
    let storage = pve
        .cluster()
        .resources(Some(ResourceFilter::Storage))
        .await
        .unwrap();
    assert!(
        storage
            .iter()
            .any(|r| r.storage.as_deref() == Some("local-lvm"))
    );
}

#[tokio::test]
async fn node_status_lists_and_storage() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let node = pve.node("pve-ippri-32");
    // fakepve answers node status with schema-shaped placeholders (zeros and "fake"), so
    // this checks that the shape decodes.
    let status = node.status().await.unwrap();
    assert!(status.memory.used <= status.memory.total);
    assert_eq!(status.loadavg.len(), 1);
    assert!(status.rootfs.is_some());
    assert!(!status.pveversion.is_empty());
    let qemu = node.qemu_list().await.unwrap();
    assert_eq!(qemu.len(), 1);
    assert_eq!(qemu[0].vmid.get(), 101);
    assert_eq!(qemu[0].name.as_deref(), Some("build-runner"));
    let mut lxc: Vec<u32> = node
        .lxc_list()
        .await
        .unwrap()
        .iter()
        .map(|c| c.vmid.get())
        .collect();
    lxc.sort_unstable();
    assert_eq!(lxc, [201, 202]);
    let storage = node.storage().await.unwrap();
    let lvm = storage.iter().find(|s| s.storage == "local-lvm").unwrap();
    assert_eq!(lvm.kind, "lvmthin");
    assert_eq!(lvm.active, Some(true));
    assert!(lvm.total.unwrap() > 0);
    let err = pve.node("no such node").status().await.unwrap_err();
    assert!(
        matches!(
            err,
            Error::Invalid {
                kind: "node name",
                ..
            }
        ),
        "{err:?}"
    );
}

#[tokio::test]
async fn configs_with_property_strings_and_privilege() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let vm = pve
        .node("pve-ippri-31")
        .qemu(common::vmid(100))
        .config()
        .await
        .unwrap();
    assert_eq!(vm.name().as_deref(), Some("gitlab"));
    assert_eq!(vm.memory().unwrap().unwrap().current, Some(8192));
    assert_eq!(vm.cores().unwrap(), 4);
    assert!(vm.onboot().unwrap());
    assert_eq!(vm.tags(), ["prod", "git"]);
    let net = &vm.nets().unwrap()[&0];
    assert_eq!(
        (
            net.model.as_str(),
            net.bridge.as_deref(),
            net.tag,
            net.firewall
        ),
        ("virtio", Some("vmbr0"), Some(20), Some(true))
    );
    assert_eq!(
        net.to_string(),
        "virtio=BC:24:11:00:01:00,bridge=vmbr0,firewall=1,tag=20"
    );
    let disks = vm.disks().unwrap();
    assert_eq!(disks["scsi0"].size_bytes(), Some(64 << 30));
    assert_eq!(disks["scsi0"].extra.get("iothread"), Some("1"));
    assert_eq!(disks["ide2"].media.as_deref(), Some("cdrom"));

    let n31 = pve.node("pve-ippri-31");
    let n32 = pve.node("pve-ippri-32");
    let dns = n31.lxc(common::vmid(200)).config().await.unwrap();
    assert!(dns.raw.0.get("unprivileged").is_none());
    assert_eq!(dns.privilege().unwrap(), Privilege::Privileged);
    assert_eq!(dns.nets().unwrap()[&0].gw.as_deref(), Some("10.20.0.1"));
    let mon = n32.lxc(common::vmid(201)).config().await.unwrap();
    assert_eq!(mon.privilege().unwrap(), Privilege::Unprivileged);
    let features = mon.features().unwrap().unwrap();
    assert_eq!(
        (features.nesting, features.keyctl),
        (Some(true), Some(true))
    );
    assert_eq!(mon.mount_points().unwrap()[&0].mp.as_deref(), Some("/srv"));
    assert_eq!(mon.rootfs().unwrap().unwrap().size_bytes(), Some(16 << 30));
    let legacy = n32.lxc(common::vmid(202)).config().await.unwrap();
    assert_eq!(legacy.privilege().unwrap(), Privilege::Privileged);
}

#[tokio::test]
async fn a_missing_vm_is_not_found() {
    let s = common::fakepve_or_return!();
    let err = s
        .token_client()
        .node("pve-ippri-31")
        .qemu(common::vmid(999))
        .config()
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
    assert!(err.to_string().contains("999.conf"), "{err}");
}

#[tokio::test]
async fn parameter_errors_come_back_per_field() {
    let s = common::fakepve_or_return!();
    let err = s
        .token_client()
        .get_raw("/nodes/pve-ippri-31/qemu/abc/config", &[])
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::BAD_REQUEST));
    let fields = err.field_errors().expect("per-field errors");
    assert!(
        fields["vmid"].contains("type check ('integer') failed"),
        "{fields:?}"
    );
    assert!(
        err.to_string().contains("Parameter verification failed."),
        "{err}"
    );
}

#[tokio::test]
async fn ha_resources_and_current_status_decode() {
    let s = common::fakepve_or_return!();
    // fakepve's HA endpoints answer schema-shaped placeholders (testing.md: "its HA
    // endpoints are placeholders"), so this checks decoding and paths, not HA logic.
    let pve = s.token_client();
    let resources = pve.cluster().ha_resources().await.unwrap();
    assert!(!resources.is_empty());
    assert!(resources.iter().all(|r| !r.sid.is_empty()));
    assert_eq!(resources[0].state.as_deref(), Some("started"));
    let status = pve.cluster().ha_status().await.unwrap();
    assert!(
        status.iter().any(|e| e.kind == HaStatusType::Quorum),
        "{status:?}"
    );
    // The HA state of a managed guest is in its current status.
    let current = pve
        .node("pve-ippri-31")
        .qemu(common::vmid(100))
        .status()
        .await
        .unwrap();
    assert!(current.ha_managed(), "{current:?}");
    let other = pve
        .node("pve-ippri-32")
        .qemu(common::vmid(101))
        .status()
        .await
        .unwrap();
    assert!(!other.ha_managed());
}

#[tokio::test]
async fn snapshots_create_list_rollback_delete_qemu_and_lxc() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let name = SnapshotName::new("pre-upgrade").unwrap();
    let vm = pve.node("pve-ippri-32").qemu(common::vmid(101));
    // Container 202 is stopped, so a rollback leaves its state as the other tests expect.
    let ct = pve.node("pve-ippri-32").lxc(common::vmid(202));
    let options = SnapshotOptions::default().description("before the upgrade");
    for kind in [GuestKind::Qemu, GuestKind::Lxc] {
        let create = match kind {
            GuestKind::Qemu => vm.snapshot_create(&name, &options).await,
            GuestKind::Lxc => ct.snapshot_create(&name, &options).await,
        };
        let upid = create.unwrap();
        assert_eq!(
            upid.worker_type(),
            if kind == GuestKind::Qemu {
                "qmsnapshot"
            } else {
                "vzsnapshot"
            }
        );
        pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
        let snaps = match kind {
            GuestKind::Qemu => vm.snapshots().await.unwrap(),
            GuestKind::Lxc => ct.snapshots().await.unwrap(),
        };
        let snap = snaps
            .iter()
            .find(|s| s.name == "pre-upgrade")
            .expect("snapshot listed");
        assert_eq!(snap.description.as_deref(), Some("before the upgrade"));
        assert!(snap.snaptime.is_some());
        assert!(
            snaps
                .iter()
                .any(|s| s.is_current() && s.parent.as_deref() == Some("pre-upgrade"))
        );
        let upid = match kind {
            GuestKind::Qemu => vm.snapshot_rollback(&name, false).await.unwrap(),
            GuestKind::Lxc => ct.snapshot_rollback(&name, false).await.unwrap(),
        };
        pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
        let upid = match kind {
            GuestKind::Qemu => vm.snapshot_delete(&name).await.unwrap(),
            GuestKind::Lxc => ct.snapshot_delete(&name).await.unwrap(),
        };
        pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
        let snaps = match kind {
            GuestKind::Qemu => vm.snapshots().await.unwrap(),
            GuestKind::Lxc => ct.snapshots().await.unwrap(),
        };
        assert!(snaps.iter().all(|s| s.name != "pre-upgrade"), "{snaps:?}");
    }
}

#[tokio::test]
async fn a_failed_task_carries_its_log_tail() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let ct = pve.node("pve-ippri-31").lxc(common::vmid(200));
    let name = SnapshotName::new("twice").unwrap();
    let first = ct
        .snapshot_create(&name, &Default::default())
        .await
        .unwrap();
    pve.wait(&first, &common::fakepve_wait()).await.unwrap();
    // A second snapshot of the same name fails inside the worker (PVE: "snapshot name … already used").
    let second = ct
        .snapshot_create(&name, &Default::default())
        .await
        .unwrap();
    let err = pve
        .wait(&second, &common::fakepve_wait())
        .await
        .unwrap_err();
    match &err {
        Error::TaskFailed {
            upid,
            exit_status,
            log_tail,
        } => {
            assert_eq!(**upid, second);
            assert!(exit_status.contains("already used"), "{exit_status}");
            assert!(
                log_tail.last().unwrap().starts_with("TASK ERROR"),
                "{log_tail:?}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    let status = pve.node("pve-ippri-31").task_status(&second).await.unwrap();
    assert_eq!(status.status, TaskState::Stopped);
    assert!(!status.exit_status().unwrap().is_success());
    let listed = pve
        .node("pve-ippri-31")
        .tasks(
            &TaskFilter::default()
                .vmid(common::vmid(200))
                .typefilter("vzsnapshot")
                .source("all"),
        )
        .await
        .unwrap();
    assert!(listed.iter().any(|t| t.upid == second), "{listed:?}");
    // Upstream sends `total`, the tasks the filters passed, beside a list cut at `limit`
    // (pve-manager `PVE/API2/Tasks.pm` `node_tasks`); fakepve sends the cut list alone.
    let filter = TaskFilter::default().source("all").limit(1);
    let page = pve.node("pve-ippri-31").tasks_page(&filter).await.unwrap();
    assert_eq!((page.data.len(), page.total), (1, None));
    let upid = ct.snapshot_delete(&name).await.unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
}

#[tokio::test]
async fn shutdown_and_migrate_return_upids_that_finish() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let ct = pve.node("pve-ippri-32").lxc(common::vmid(202));
    let upid = ct.start().await.unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    let upid = ct
        .shutdown(
            &cpps_proxmox::api::ShutdownOptions::default()
                .timeout(30)
                .force_stop(true),
        )
        .await
        .unwrap();
    assert_eq!(upid.worker_type(), "vzshutdown");
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    assert_eq!(ct.status().await.unwrap().status, GuestStatus::Stopped);
    let target = cpps_proxmox::NodeName::new("pve-ippri-31").unwrap();
    let upid = ct
        .migrate(&cpps_proxmox::api::MigrateOptions::to(target.clone()))
        .await
        .unwrap();
    assert_eq!(upid.node(), "pve-ippri-32");
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    // Migrate back so the estate is as the other tests expect.
    let moved = pve.node("pve-ippri-31").lxc(common::vmid(202));
    if moved.status().await.is_ok() {
        let back = moved
            .migrate(&cpps_proxmox::api::MigrateOptions::to(
                cpps_proxmox::NodeName::new("pve-ippri-32").unwrap(),
            ))
            .await
            .unwrap();
        pve.wait(&back, &common::fakepve_wait()).await.unwrap();
    }
    assert_eq!(
        pve.node("pve-ippri-32")
            .lxc(common::vmid(202))
            .status()
            .await
            .unwrap()
            .status,
        GuestStatus::Stopped
    );
}

#[tokio::test]
async fn fault_fail_maps_to_a_typed_error_and_503_is_retried() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    s.fail(
        "GET",
        "/cluster/status",
        500,
        "cluster not ready - no quorum?",
        None,
    )
    .await;
    let err = pve.cluster().status().await.unwrap_err();
    match &err {
        Error::Api {
            status, message, ..
        } => {
            assert_eq!(*status, StatusCode::INTERNAL_SERVER_ERROR);
            assert_eq!(message, "cluster not ready - no quorum?");
        }
        other => panic!("unexpected {other:?}"),
    }
    // A 503 once: the read is retried and succeeds.
    s.fail("GET", "/nodes", 503, "service unavailable", Some(1))
        .await;
    let before = s.request_count().await;
    assert_eq!(pve.nodes().await.unwrap().len(), 2);
    let (_, seen) = s.requests_since(before).await;
    let attempts = seen
        .iter()
        .filter(|(m, p)| m == "GET" && p.ends_with("/nodes"))
        .count();
    assert_eq!(attempts, 2, "{seen:?}");
    // A write is not retried.
    s.fail(
        "POST",
        "/nodes/pve-ippri-32/lxc/202/status/start",
        503,
        "busy",
        Some(1),
    )
    .await;
    let err = pve
        .node("pve-ippri-32")
        .lxc(common::vmid(202))
        .start()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
}

#[tokio::test]
async fn slow_network_hits_the_request_timeout() {
    let s = common::fakepve_or_return!();
    // 20 PVE seconds at a time scale of 0.05 is one real second per answer.
    s.control("slow_network", serde_json::json!({"latency": 20}))
        .await;
    let pve = s
        .token_builder()
        .request_timeout(Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let err = pve.version().await.unwrap_err();
    assert!(
        matches!(&err, Error::Http(cpps_http::Error::Timeout { .. })),
        "{err:?}"
    );
    let patient = s
        .token_builder()
        .request_timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    assert!(patient.version().await.is_ok());
    s.control("reset", serde_json::json!({})).await;
}

#[tokio::test]
async fn revoked_tickets_cause_one_relogin() {
    let s = common::fakepve_or_return!();
    let pve = s.password_client();
    assert_eq!(pve.nodes().await.unwrap().len(), 2);
    s.control("revoke_tickets", serde_json::json!({})).await;
    let before = s.request_count().await;
    assert_eq!(pve.nodes().await.unwrap().len(), 2);
    let (_, seen) = s.requests_since(before).await;
    let logins = seen
        .iter()
        .filter(|(m, p)| m == "POST" && p.ends_with("/access/ticket"))
        .count();
    let reads = seen
        .iter()
        .filter(|(m, p)| m == "GET" && p.ends_with("/nodes"))
        .count();
    assert_eq!((logins, reads), (1, 2), "{seen:?}");
    // Writes work with the new ticket's CSRF token.
    let upid = pve
        .node("pve-ippri-32")
        .lxc(common::vmid(202))
        .snapshot_create(
            &SnapshotName::new("after-relogin").unwrap(),
            &Default::default(),
        )
        .await
        .unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    let upid = pve
        .node("pve-ippri-32")
        .lxc(common::vmid(202))
        .snapshot_delete(&SnapshotName::new("after-relogin").unwrap())
        .await
        .unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
}

#[tokio::test]
async fn a_second_factor_without_totp_is_a_clear_error() {
    let s = common::fakepve_or_return!();
    s.control("tfa", serde_json::json!({"on": true})).await;
    let err = s.password_client().nodes().await.unwrap_err();
    assert!(
        format!("{err:?}").contains("needs a second factor"),
        "{err:?}"
    );
    s.control("reset", serde_json::json!({})).await;
}

#[tokio::test]
async fn config_sweep_is_bounded_and_complete() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let guests = pve.guests().await.unwrap();
    assert_eq!(guests.len(), 5);
    let results = pve.guest_configs(guests.clone(), 2).await;
    assert_eq!(results.len(), 5);
    for ((guest, result), expected) in results.iter().zip(&guests) {
        assert_eq!(guest, expected);
        match (guest.kind, result.as_ref().unwrap()) {
            (GuestKind::Qemu, GuestConfig::Qemu(c)) => assert!(c.name().is_some()),
            (GuestKind::Lxc, GuestConfig::Lxc(c)) => assert!(c.hostname().is_some()),
            other => panic!("kind mismatch {other:?}"),
        }
    }
}

#[tokio::test]
async fn raw_escape_hatch_reads_and_writes() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    let pending = pve
        .get_raw("nodes/pve-ippri-31/qemu/100/pending", &[])
        .await
        .unwrap();
    assert!(
        pending
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["key"] == "name" && e["value"] == "gitlab"),
        "{pending}"
    );
    let upid = pve
        .post_raw(
            "/nodes/pve-ippri-32/lxc/202/snapshot",
            &[("snapname", "raw-snap")],
        )
        .await
        .unwrap();
    let upid: cpps_proxmox::Upid = upid.as_str().unwrap().parse().unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
    let upid = pve
        .raw(
            cpps_http::Method::DELETE,
            "nodes/pve-ippri-32/lxc/202/snapshot/raw-snap",
            &[],
        )
        .await
        .unwrap();
    let upid: cpps_proxmox::Upid = upid.as_str().unwrap().parse().unwrap();
    pve.wait(&upid, &common::fakepve_wait()).await.unwrap();
}

#[tokio::test]
async fn inventory_from_environment_has_the_documented_shape() {
    let s = common::fakepve_or_return!();
    let vars = [
        ("PROXMOX_VE_ENDPOINT", s.pve.url.clone()),
        ("PROXMOX_VE_USERNAME", s.pve.user.clone()),
        ("PROXMOX_VE_PASSWORD", s.pve.password.clone()),
        ("PROXMOX_VE_FINGERPRINT", s.pve.fingerprint.clone()),
    ];
    let builder = cpps_proxmox::ClientBuilder::from_env(&|k: &str| {
        vars.iter()
            .find(|(name, _)| *name == k)
            .map(|(_, v)| v.clone())
    })
    .unwrap();
    let pve = builder.build().unwrap();
    let inventory = cpps_proxmox::inventory::collect(&pve, 4, None).await;
    assert!(inventory.errors.is_empty(), "{:?}", inventory.errors);
    let json = serde_json::to_value(&inventory).unwrap();
    assert_eq!(
        json["nodes"],
        serde_json::json!([{"node": "pve-ippri-31", "status": "online"}, {"node": "pve-ippri-32", "status": "online"}])
    );
    let guests = json["guests"].as_array().unwrap();
    assert_eq!(guests.len(), 5);
    assert_eq!(
        guests[0],
        serde_json::json!({"node": "pve-ippri-31", "vmid": 100, "kind": "qemu", "name": "gitlab", "status": "running", "ha": "started"})
    );
    assert_eq!(
        guests[2],
        serde_json::json!({"node": "pve-ippri-31", "vmid": 200, "kind": "lxc", "name": "dns1", "status": "running", "privileged": true, "ha": null})
    );
    assert_eq!(guests[3]["privileged"], false);
    assert_eq!(guests[4]["privileged"], true);
    assert!(guests[1].get("privileged").is_none());
    let text = inventory.to_text();
    assert!(text.contains("monitoring") && text.contains("no"), "{text}");
}

/// `GET /storage?type=pbs` against fakepve: a PBS storage created through `POST /storage`
/// (validated by fakepve as pve-storage's `PBSPlugin` options) is read back typed, and
/// removed again so the other tests see the estate unchanged.
#[tokio::test]
async fn a_pbs_storage_is_read_back_from_the_storage_config() {
    let s = common::fakepve_or_return!();
    let pve = s.token_client();
    pve.post_raw(
        "storage",
        &[
            ("storage", "pbs-chain-test"),
            ("type", "pbs"),
            ("server", "127.0.0.1"),
            ("datastore", "store1"),
            ("namespace", "site-a"),
            ("username", "backup@pbs"),
        ],
    )
    .await
    .unwrap();
    let read = pve.storage_configs(Some("pbs")).await;
    let removed = pve
        .raw(cpps_http::Method::DELETE, "storage/pbs-chain-test", &[])
        .await;
    let stores = read.unwrap();
    removed.unwrap();
    let chain = stores
        .iter()
        .find(|s| s.storage == "pbs-chain-test")
        .unwrap();
    assert!(chain.is_pbs() && !chain.is_encrypted());
    assert_eq!(chain.datastore.as_deref(), Some("store1"));
    assert_eq!(chain.namespace.as_deref(), Some("site-a"));
    assert!(stores.iter().all(|s| s.kind == "pbs"));
}
