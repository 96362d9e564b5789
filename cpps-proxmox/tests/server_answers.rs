//! How real PVE 8 and 9 answer where fakepve does not show it (issue 14), each case tied to the
//! upstream file that shows the behaviour. wiremock serves the answers; a tiny raw HTTP/1.1
//! server (`cpps_http::test_util::RawServer`) sends the reason phrases wiremock cannot.

mod common;

use std::time::Duration;

use cpps_http::StatusCode;
use cpps_http::test_util::{RawServer, env_lookup};
use cpps_proxmox::types::{
    ClusterStatusEntry, GuestKind, ResourceFilter, TaskListItem, VzdumpStart,
};
use cpps_proxmox::{Client, ClientBuilder, Error, HaWanted, PveError, VmId};
use serde_json::{Value, json};
use wiremock::ResponseTemplate;
use wiremock::matchers::{query_param, query_param_is_missing};

/// The error of reading the configuration of guest `vmid` (a `kind`) on node `pve1` from a
/// server that answers with `status_line` (its status and reason phrase) and `body`.
async fn config_read_error(kind: GuestKind, vmid: u32, status_line: &str, body: &str) -> Error {
    let server = RawServer::start(common::raw_response(status_line, body)).await;
    let node = common::token_client(server.url("").as_str()).node("pve1");
    let read = match kind {
        GuestKind::Qemu => node.qemu(common::vmid(vmid)).config().await.map(drop),
        GuestKind::Lxc => node.lxc(common::vmid(vmid)).config().await.map(drop),
    };
    read.expect_err("the server answers an error")
}

/// Defect 1. Before libpve-http-server-perl 5.2.0 (January 2025) an API error's body is only
/// `{"data":null}` and the message travels in the HTTP reason phrase alone: pve-http-server
/// `src/PVE/APIServer/Formatter/Standard.pm` adds `message` to the JSON body only since commit
/// "fix #6503: return api handler errors in the json body" (released in 5.2.0). The missing
/// guest's HTTP 500 "Configuration file … does not exist" must still be a not-found, with the
/// server's words.
#[tokio::test]
async fn an_old_pve_error_keeps_the_reason_phrase_and_is_still_not_found() {
    let reason = "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist";
    let err = config_read_error(
        GuestKind::Qemu,
        999,
        &format!("500 {reason}"),
        r#"{"data":null}"#,
    )
    .await;
    assert!(err.is_not_found(), "{err:?}");
    let Error::NotFound {
        status, message, ..
    } = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!(*status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(message, reason);
    assert_eq!(err.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
}

/// Defect 1, the other errors of that layout: the reason phrase is the message.
#[tokio::test]
async fn an_old_pve_error_message_comes_from_the_reason_phrase() {
    let err = config_read_error(
        GuestKind::Lxc,
        200,
        "500 unable to read file '/etc/pve/nodes/pve1/lxc/200.conf' - got timeout",
        r#"{"data":null}"#,
    )
    .await;
    assert!(!err.is_not_found());
    let Error::Api { message, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(
        message,
        "unable to read file '/etc/pve/nodes/pve1/lxc/200.conf' - got timeout"
    );
}

/// Defect 1, the layout since 5.2.0: `message` in the body wins, the same not-found.
#[tokio::test]
async fn a_new_pve_error_is_read_from_the_body() {
    let reason = "Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist";
    let err = config_read_error(
        GuestKind::Qemu,
        999,
        &format!("500 {reason}"),
        &format!(r#"{{"data":null,"message":"{reason}\n"}}"#),
    )
    .await;
    assert!(err.is_not_found(), "{err:?}");
    assert!(err.to_string().ends_with(reason), "{err}");
}

/// N11: a guest that is not under the HA manager. pve-ha-manager `src/PVE/API2/HA/Resources.pm`
/// (`read`, through `$api_copy_config`) dies with "no such resource 'vm:999'\n", which
/// pve-http-server answers as HTTP 500 with that message (in the reason phrase, and in the body
/// since libpve-http-server-perl 5.2.0). It is a not-found, like a missing guest's
/// configuration.
#[tokio::test]
async fn a_missing_ha_resource_is_not_found() {
    let message = "no such resource 'vm:999'";
    let server = RawServer::start(common::raw_response(
        &format!("500 {message}"),
        &format!(r#"{{"data":null,"message":"{message}\n"}}"#),
    ))
    .await;
    let err = common::token_client(server.url("").as_str())
        .cluster()
        .ha_resource("vm:999")
        .await
        .expect_err("the server answers an error");
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
    assert!(err.to_string().ends_with(message), "{err}");
}

/// Defect 5. `GET …/config` answers the configuration with pending changes applied unless
/// `current=1` (qemu-server `src/PVE/API2/Qemu.pm` `vm_config`; pve-container
/// `src/PVE/API2/LXC/Config.pm`, parameter `current`). The observed configuration is the
/// current one; the pending changes are `…/pending`.
#[tokio::test]
async fn the_observed_config_is_the_current_one_and_pending_is_separate() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("GET", "nodes/pve1/qemu/100/config").and(query_param("current", "1")),
        common::data_answer(json!({"memory": "4096", "cores": 2, "digest": "aa11"})),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", "nodes/pve1/qemu/100/config")
            .and(query_param_is_missing("current")),
        common::data_answer(json!({"memory": "8192", "cores": 2, "digest": "aa11"})),
    )
    .await;
    common::expect_once(
        &api,
        "GET",
        "nodes/pve1/qemu/100/pending",
        json!([
            {"key": "cores", "value": 2},
            {"key": "memory", "value": "4096", "pending": "8192"},
            {"key": "net1", "delete": 1, "value": "virtio=BC:24:11:00:00:02,bridge=vmbr1"}
        ]),
    )
    .await;
    let vm = common::mock_client(&api)
        .node("pve1")
        .qemu(VmId::new(100).unwrap());
    let current = vm.config().await.unwrap();
    assert_eq!(current.memory().unwrap().unwrap().current, Some(4096));
    let next = vm.config_with_pending().await.unwrap();
    assert_eq!(next.memory().unwrap().unwrap().current, Some(8192));
    let pending = vm.pending().await.unwrap();
    let waiting: Vec<&str> = pending
        .iter()
        .filter(|p| p.is_pending())
        .map(|p| p.key.as_str())
        .collect();
    assert_eq!(waiting, ["memory", "net1"]);
    assert_eq!(pending[0].value.as_deref(), Some("2"));
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Defect 7. A big cluster's `/cluster/resources` is larger than the 8 MiB cap of single
/// reads; list calls have their own cap, settable per client and per call, and the error says
/// how to raise it.
#[tokio::test]
async fn list_calls_have_their_own_cap_settable_per_client_and_per_call() {
    let api = common::pve_mock_api().await;
    let entries: Vec<Value> = (0..50_000)
        .map(|i| {
            json!({"id": format!("qemu/{}", 100 + i), "type": "qemu", "node": "pve-ippri-31",
                   "vmid": 100 + i, "name": format!("guest-with-a-long-name-{i:08}"),
                   "status": "running", "maxmem": 4_294_967_296u64, "tags": "prod;site-franca;team-infra"})
        })
        .collect();
    let body = serde_json::to_vec(&json!({ "data": entries })).unwrap();
    assert!(
        body.len() > cpps_http::DEFAULT_MAX_RESPONSE_BYTES,
        "{}",
        body.len()
    );
    common::pve_call("GET", "cluster/resources")
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
        .mount(api.server())
        .await;
    let pve = common::mock_client(&api);
    // The list cap (32 MiB by default) takes it, though the client's cap is 8 MiB.
    let all = pve
        .cluster()
        .resources(Some(ResourceFilter::Vm))
        .await
        .unwrap();
    assert_eq!(all.len(), 50_000);
    // Per call: a smaller list cap is an error that says how to raise it.
    let err = pve
        .with_list_max_response_bytes(1 << 20)
        .cluster()
        .resources(None)
        .await
        .unwrap_err();
    let text = cpps_proxmox::inventory::error_chain(&err);
    assert!(text.contains("1048576-byte limit"), "{text}");
    // N12: the hint names the setting that capped this call (the list cap), not the
    // builder's `max_response_bytes`, which does not apply to list calls.
    assert!(text.contains("with_list_max_response_bytes"), "{text}");
    assert!(!text.contains("raise it with max_response_bytes"), "{text}");
    // Per client, through the builder.
    let small = Client::builder(api.base_url().as_str())
        .api_token_str("root@pam!ci=5ecr3t")
        .unwrap()
        .list_max_response_bytes(2 << 20)
        .build()
        .unwrap();
    let err = small.cluster().resources(None).await.unwrap_err();
    let text = cpps_proxmox::inventory::error_chain(&err);
    assert!(text.contains("2097152-byte limit"), "{text}");
    assert!(
        text.contains("list_max_response_bytes on the client's builder"),
        "{text}"
    );
}

/// The list cap's default is sized from real answers: `/cluster/resources` of 10 000 guests
/// is about 3.2 MB (318 bytes an entry, the decode bench's 100 000-entry answer being 31.8 MB),
/// and the default is ten times that. A 40 MiB list (a proxy's runaway answer, or a fault
/// server's) is refused at the cap instead of being read whole, naming the setting to raise.
#[tokio::test]
async fn a_list_answer_past_ten_times_a_real_one_is_refused_by_default() {
    let api = common::pve_mock_api().await;
    let padding = "x".repeat(1_000);
    let entries: Vec<Value> = (0..42_000)
        .map(|i| json!({"sid": format!("vm:{}", 100 + i), "type": "vm", "comment": padding}))
        .collect();
    let body = serde_json::to_vec(&json!({ "data": entries })).unwrap();
    assert!(body.len() > 40 << 20, "{}", body.len());
    common::pve_call("GET", "cluster/ha/resources")
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "application/json"))
        .mount(api.server())
        .await;
    let pve = common::mock_client(&api);
    let Err(err) = pve.cluster().ha_resources().await else {
        panic!("a 40 MiB list was read whole");
    };
    let text = cpps_proxmox::inventory::error_chain(&err);
    assert!(text.contains(&format!("{}-byte limit", 32 << 20)), "{text}");
    assert!(text.contains("list_max_response_bytes"), "{text}");
}

/// Defect 10. Real PVE puts a boolean `online` on node entries of `/cluster/status` and none
/// on the cluster entry (pve-manager `PVE/API2/Cluster.pm`, `get_status`); a count on the
/// cluster entry exists only in fakepve. Task lists split a token's id into `user` and
/// `tokenid` (pve-manager `PVE/API2/Tasks.pm`, `convert_token_task`).
#[test]
fn cluster_status_and_task_lists_read_as_real_pve_writes_them() {
    let entries: Vec<ClusterStatusEntry> = serde_json::from_value(json!([
        {"type": "cluster", "id": "cluster", "name": "franca", "nodes": 3, "quorate": 1, "version": 7},
        {"type": "node", "id": "node/pve1", "name": "pve1", "nodeid": 1, "local": 1, "online": 1, "ip": "10.0.0.1", "level": ""},
        {"type": "node", "id": "node/pve2", "name": "pve2", "nodeid": 2, "local": 0, "online": 0}
    ]))
    .unwrap();
    assert_eq!(entries[0].online, None);
    assert_eq!(entries[0].is_online(), None);
    assert_eq!(entries[1].online, Some(true));
    assert_eq!(entries[2].is_online(), Some(false));
    // fakepve's count of online nodes on the cluster entry is not a flag: dropped.
    let fake: ClusterStatusEntry = serde_json::from_value(
        json!({"type": "cluster", "id": "cluster", "name": "fakecluster", "nodes": 2, "online": 2}),
    )
    .unwrap();
    assert_eq!(fake.online, None);
    let tasks: Vec<TaskListItem> = serde_json::from_value(json!([
        {"upid": "UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:vzsnapshot:100:root@pam!ci:", "node": "pve1",
         "type": "vzsnapshot", "id": "100", "user": "root@pam", "tokenid": "ci", "starttime": 1795878000,
         "endtime": 1795878010, "status": "OK"}
    ]))
    .unwrap();
    assert_eq!(tasks[0].user, "root@pam");
    assert_eq!(tasks[0].tokenid.as_deref(), Some("ci"));
    assert_eq!(tasks[0].auth_id().unwrap().to_string(), "root@pam!ci");
}

/// Defect 4. For an HA-managed VM, qemu-server `src/PVE/API2/Qemu.pm` forks an HA worker that
/// only asks the HA manager and ends OK at once; the wait must go on until the HA manager shows
/// the service where it was asked to be. Each case: the worker, its log, the service entry the
/// HA manager shows for a number of reads, then the entry that ends the wait.
#[tokio::test]
async fn waiting_on_an_ha_worker_waits_for_the_ha_manager() {
    struct Case {
        name: &'static str,
        upid: &'static str,
        log: &'static [&'static str],
        meanwhile: Value,
        reads: u32,
        done: Value,
        wanted: HaWanted,
        node: &'static str,
    }
    let cases = [
        // `hastart` runs `ha-manager set vm:100 --state started`: done when it is started.
        Case {
            name: "start",
            upid: "UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:hastart:100:root@pam!ci:",
            log: &["Requesting HA start for VM 100", "TASK OK"],
            meanwhile: common::ha_service_entry("pve1", "stopped", "starting", "started"),
            reads: 3,
            done: common::ha_service_entry("pve1", "started", "started", "started"),
            wanted: HaWanted::Started,
            node: "pve1",
        },
        // `hamigrate` runs `ha-manager migrate vm:100 pve2` and logs "Requesting HA migration
        // for VM 100 to node pve2": done when the service is on pve2 and no longer migrating.
        Case {
            name: "migration",
            upid: "UPID:pve1:0000A1B3:0001C3D4:6B0AEC71:hamigrate:100:root@pam:",
            log: &["Requesting HA migration for VM 100 to node pve2", "TASK OK"],
            meanwhile: common::ha_service_entry("pve1", "migrate", "migrate", "started"),
            reads: 2,
            done: common::ha_service_entry("pve2", "started", "started", "started"),
            wanted: HaWanted::OnNode("pve2".to_owned()),
            node: "pve2",
        },
    ];
    for case in cases {
        let name = case.name;
        let outcome = common::wait_through_ha(
            &common::upid(case.upid),
            case.log,
            case.meanwhile,
            u64::from(case.reads),
            case.done,
            &common::quick_wait(),
        )
        .await
        .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let ha = outcome
            .ha
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: it did not wait for the HA manager"));
        assert_eq!(ha.wanted, case.wanted, "{name}");
        assert_eq!(
            (ha.sid.as_str(), ha.state.as_str(), ha.node.as_str()),
            ("vm:100", "started", case.node),
            "{name}"
        );
        assert_eq!(ha.polls, case.reads + 1, "{name}");
        assert!(outcome.exit_status.is_success(), "{name}");
    }
}

/// Defect 4, bounded: a stop the HA manager never carries out ends at the wait's timeout with
/// a typed error saying what was waited for and what was seen; a service in `error` ends it
/// at once.
#[tokio::test]
async fn an_ha_stop_that_never_happens_times_out_and_an_error_state_fails() {
    let upid = common::upid("UPID:pve1:0000A1B4:0001C3D4:6B0AEC72:hastop:100:root@pam:");
    let running = common::ha_service_entry("pve1", "started", "stopping", "stopped");
    let options = common::quick_wait().timeout(Some(Duration::from_millis(300)));
    let err = common::wait_through_ha(
        &upid,
        &["TASK OK"],
        running.clone(),
        1000,
        running,
        &options,
    )
    .await
    .unwrap_err();
    let Error::Product(PveError::HaTimeout {
        sid,
        wanted,
        last_seen,
        ..
    }) = &err
    else {
        panic!("{err:?}");
    };
    assert_eq!((sid.as_str(), wanted.as_str()), ("vm:100", "stopped"));
    assert!(last_seen.contains("stopping"), "{last_seen}");

    let broken = common::ha_service_entry("pve1", "error", "error", "stopped");
    let err = common::wait_through_ha(
        &upid,
        &["TASK OK"],
        broken.clone(),
        1,
        broken,
        &common::quick_wait(),
    )
    .await
    .unwrap_err();
    assert!(
        matches!(err, Error::Product(PveError::HaWait { .. })),
        "{err:?}"
    );
}

/// A task that is not an HA worker is done when it stops.
#[tokio::test]
async fn other_tasks_end_with_the_task() {
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000A1B5:0001C3D4:6B0AEC73:qmstart:100:root@pam:");
    common::serve_finished_task(&api, &upid, &["TASK OK"]).await;
    let outcome = common::mock_client(&api)
        .wait(&upid, &common::quick_wait())
        .await
        .unwrap();
    assert!(outcome.ha.is_none());
    api.assert_no_unexpected_requests();
}

/// Defect 3. A token without `Sys.Audit` on `/` gets 403 on `/cluster/ha/resources`
/// (pve-ha-manager `src/PVE/API2/HA/Resources.pm`: `check => ['perm', '/', ['Sys.Audit']]`),
/// and a container on an offline node answers 595 to its config read, which pveproxy proxies
/// to that node (`proxyto => 'node'`, pve-container `src/PVE/API2/LXC/Config.pm`). The
/// inventory keeps everything else and says what it could not read.
#[tokio::test]
async fn the_inventory_keeps_what_it_read_beside_what_failed() {
    let api = common::pve_mock_api().await;
    common::pve_call("GET", "nodes")
        .respond_with(common::data_answer(json!([
            {"node": "pve1", "status": "online"}, {"node": "pve2", "status": "offline"}
        ])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/resources")
        .respond_with(common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "gitlab", "status": "running", "hastate": "started"},
            {"id": "lxc/200", "type": "lxc", "node": "pve1", "vmid": 200, "name": "dns1", "status": "running"},
            {"id": "lxc/201", "type": "lxc", "node": "pve2", "vmid": 201, "name": "dns2", "status": "unknown"}
        ])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/ha/resources")
        .respond_with(common::error_answer(
            403,
            "Permission check failed (/, Sys.Audit)\n",
        ))
        .mount(api.server())
        .await;
    common::pve_call("GET", "nodes/pve1/lxc/200/config")
        .respond_with(common::data_answer(
            json!({"hostname": "dns1", "unprivileged": 1, "digest": "bb22"}),
        ))
        .mount(api.server())
        .await;
    common::pve_call("GET", "nodes/pve2/lxc/201/config")
        .respond_with(ResponseTemplate::new(595).set_body_json(json!({"data": null})))
        .mount(api.server())
        .await;
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 4, None).await;
    assert_eq!(inventory.guests.len(), 3);
    assert_eq!(inventory.guests[0].ha.as_deref(), Some("started"));
    assert_eq!(inventory.guests[1].privileged, Some(false));
    assert_eq!(inventory.guests[2].privileged, None);
    let parts: Vec<(&str, Option<u16>)> = inventory
        .errors
        .iter()
        .map(|e| (e.part.as_str(), e.status))
        .collect();
    assert_eq!(
        parts,
        [
            ("HA resources", Some(403)),
            ("config of CT 201 on pve2", Some(595))
        ]
    );
    assert!(
        inventory.errors[0].error.contains("Sys.Audit"),
        "{:?}",
        inventory.errors
    );
    assert_eq!(
        inventory.completeness(),
        cpps_proxmox::inventory::Completeness::Partial
    );
    let text = inventory.to_text();
    assert!(
        text.contains("PARTIAL: 2 part(s) could not be read"),
        "{text}"
    );
}

/// Issue 13: the bpg provider's variables; the token wins over user and password, as bpg
/// does; TLS is read through `TlsMode::from_env` (two TLS variables: an error naming both).
#[test]
fn the_environment_is_read_as_the_bpg_provider_reads_it() {
    let both = env_lookup(&[
        ("PROXMOX_VE_ENDPOINT", "https://pve1.example:8006/"),
        (
            "PROXMOX_VE_API_TOKEN",
            "automation@pve!inventory=0b7a0c4e-secret",
        ),
        ("PROXMOX_VE_USERNAME", "root@pam"),
        ("PROXMOX_VE_PASSWORD", "hunter2"),
    ]);
    let builder = ClientBuilder::from_env(&both).unwrap();
    let debug = format!("{builder:?}");
    assert!(debug.contains("automation@pve!inventory"), "{debug}");
    assert!(
        !debug.contains("root@pam") && !debug.contains("hunter2"),
        "{debug}"
    );
    assert!(!debug.contains("0b7a0c4e-secret"), "{debug}");

    let missing = ClientBuilder::from_env(&env_lookup(&[])).unwrap_err();
    assert!(
        missing.to_string().contains("PROXMOX_VE_ENDPOINT"),
        "{missing}"
    );
    let no_password = ClientBuilder::from_env(&env_lookup(&[
        ("PROXMOX_VE_ENDPOINT", "https://pve1.example:8006/"),
        ("PROXMOX_VE_USERNAME", "root@pam"),
    ]))
    .unwrap_err();
    assert!(
        no_password.to_string().contains("PROXMOX_VE_PASSWORD"),
        "{no_password}"
    );
    let two_tls = ClientBuilder::from_env(&env_lookup(&[
        ("PROXMOX_VE_ENDPOINT", "https://pve1.example:8006/"),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=x"),
        ("PROXMOX_VE_CA_FILE", "/etc/pve/pve-root-ca.pem"),
        ("PROXMOX_VE_INSECURE", "true"),
    ]))
    .unwrap_err()
    .to_string();
    assert!(
        two_tls.contains("PROXMOX_VE_CA_FILE") && two_tls.contains("PROXMOX_VE_INSECURE"),
        "{two_tls}"
    );
    let insecure = ClientBuilder::from_env(&env_lookup(&[
        ("PROXMOX_VE_ENDPOINT", "https://pve1.example:8006/"),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=x"),
        ("PROXMOX_VE_INSECURE", "1"),
    ]))
    .unwrap();
    assert!(format!("{insecure:?}").contains("DangerAcceptInvalidCerts"));
}

/// Capability: writes send the digest they read, so a concurrent change is a typed conflict.
/// qemu-server `src/PVE/API2/Qemu.pm` `update_vm` answers HTTP 500 "checksum mismatch (file
/// change by other user?)"; pve-container `src/PVE/API2/LXC/Config.pm` dies through pve-common
/// `src/PVE/Tools.pm` `assert_if_modified`: "detected modified configuration - file changed by
/// other user? Try again.".
#[tokio::test]
async fn a_config_write_with_a_stale_digest_is_a_conflict() {
    use cpps_proxmox::api::ConfigUpdate;
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "PUT",
            "nodes/pve1/qemu/100/config",
            &["digest=aa11", "cores=4"],
        ),
        common::error_answer(500, "checksum mismatch (file change by other user?)\n"),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "PUT",
            "nodes/pve1/lxc/200/config",
            &["digest=bb22", "delete=mp1"],
        ),
        common::error_answer(
            500,
            "detected modified configuration - file changed by other user? Try again.\n",
        ),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call("PUT", "nodes/pve1/lxc/200/config", &["digest=cc33"]),
        common::data_answer(json!(null)),
    )
    .await;
    let pve = common::mock_client(&api);
    let node = pve.node("pve1");
    let err = node
        .qemu(VmId::new(100).unwrap())
        .update_config(&ConfigUpdate::on_digest("aa11").set("cores", "4"))
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err:?}");
    let ct = node.lxc(VmId::new(200).unwrap());
    let err = ct
        .update_config(&ConfigUpdate::on_digest("bb22").delete("mp1"))
        .await
        .unwrap_err();
    assert!(err.is_conflict(), "{err:?}");
    assert!(!err.is_not_found());
    ct.update_config(&ConfigUpdate::on_digest("cc33").set("memory", "2048"))
        .await
        .unwrap();
    api.verify().await;
}

/// Capability: put a guest under HA, move it through the HA manager and wait for the final
/// state, choosing the parameters per release: `failback` exists from PVE 9 (pve-ha-manager
/// 5.0, "resources: introduce failback property"), `group` is refused by PVE 9 once groups are
/// rules (pve-ha-manager `src/PVE/API2/HA/Resources.pm`). The release is read once.
#[tokio::test]
async fn ha_resources_are_added_moved_and_waited_for_per_release() {
    use cpps_proxmox::api::HaResourceSpec;
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "8.4.1").await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources",
            &["sid=vm%3A100", "group=franca"],
        ),
        common::data_answer(json!(null)),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources/vm%3A100/migrate",
            &["node=pve2"],
        ),
        common::data_answer(json!(null)),
    )
    .await;
    common::expect_once(&api, "DELETE", "cluster/ha/resources/vm%3A100", json!(null)).await;
    common::serve_ha_status(
        &api,
        common::ha_service_entry("pve1", "migrate", "migrate", "started"),
        2,
        common::ha_service_entry("pve2", "started", "started", "started"),
    )
    .await;
    let pve = common::mock_client(&api);
    let ha = pve.cluster();
    let sid: cpps_proxmox::types::HaSid = "vm:100".parse().unwrap();
    let mut spec = HaResourceSpec::new(sid).state("started");
    spec.group = Some("franca".to_owned());
    ha.ha_add(&spec).await.unwrap();
    // `failback` is PVE 9's: refused before anything is sent to PVE 8.
    let mut newer = HaResourceSpec::new(sid);
    newer.failback = Some(true);
    let err = ha.ha_add(&newer).await.unwrap_err();
    assert!(matches!(err, Error::NotSupported { .. }), "{err:?}");
    assert_eq!(err.delivery(), cpps_http::Delivery::NotSent);
    ha.ha_move(&sid, "pve2", false).await.unwrap();
    let reached = ha
        .ha_wait(
            &sid,
            HaWanted::OnNode("pve2".to_owned()),
            &common::quick_wait(),
        )
        .await
        .unwrap();
    assert_eq!(
        (reached.node.as_str(), reached.state.as_str()),
        ("pve2", "started")
    );
    ha.ha_remove(&sid).await.unwrap();
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// `GET /nodes/{node}/status` of a node running `pveversion` (pve-manager `PVE/API2/Nodes.pm`
/// `status`: `PVE::pvecfg::package() . "/" . version_text()`), and the rest of that answer.
fn node_status(pveversion: &str) -> Value {
    json!({"cpu": 0.02, "loadavg": ["0.10", "0.12", "0.09"],
           "memory": {"total": 67_108_864_000u64, "used": 8_388_608_000u64, "free": 58_720_256_000u64},
           "pveversion": pveversion, "kversion": "Linux 6.14.8-2-pve"})
}

/// S4: `failback` is honoured only by a PVE 9 CRM master, and only for a resource without a
/// group until the groups are migrated: pve-ha-manager `src/PVE/HA/Manager.pm` runs
/// `PVE::HA::Groups::migrate_groups_to_resources`, which sets a grouped resource's `failback`
/// from its group's `nofailback` (`src/PVE/HA/Groups.pm`), and a PVE 8 CRM's section config
/// skips the property it does not know. So on a PVE 9 API node the add is refused, nothing
/// sent, while any node runs PVE 8 or does not say its release, or with a group while groups
/// remain (`GET /cluster/ha/groups` answers them: `src/PVE/API2/HA/Groups.pm` `index`).
#[tokio::test]
async fn ha_failback_is_refused_where_the_crm_would_not_honour_it() {
    use cpps_proxmox::api::HaResourceSpec;
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "9.0.10").await;
    let nodes = json!([{"node": "pve1", "status": "online"}, {"node": "pve2", "status": "online"},
                       {"node": "pve3", "status": "offline"}]);
    common::expect_once(&api, "GET", "nodes", nodes).await;
    for (node, answer) in [
        (
            "pve1",
            common::data_answer(node_status("pve-manager/9.0.10/0c5b3a7f")),
        ),
        (
            "pve2",
            common::data_answer(node_status("pve-manager/8.4.1/2a5fa54a8503f96d")),
        ),
        ("pve3", common::error_answer(595, "no route to host")),
    ] {
        let call = common::pve_call("GET", &format!("nodes/{node}/status"));
        common::mount_once(&api, call, answer).await;
    }
    let pve = common::mock_client(&api);
    let sid: cpps_proxmox::types::HaSid = "vm:100".parse().unwrap();
    let mut spec = HaResourceSpec::new(sid);
    spec.failback = Some(false);
    let err = pve.cluster().ha_add(&spec).await.unwrap_err();
    assert_eq!(err.delivery(), cpps_http::Delivery::NotSent);
    let Error::Product(PveError::HaNotHonoured { what, reason }) = &err else {
        panic!("{err:?}");
    };
    assert_eq!(what, "`failback`");
    let (pve2, pve3) = reason.split_once(", and ").unwrap();
    assert_eq!(pve2, "node pve2 runs pve-manager 8.4.1");
    assert!(
        pve3.starts_with("node pve3 did not say its release (GET http")
            && pve3.ends_with("answered 595 <unknown status code>: no route to host): a PVE 8 node as CRM master ignores it"),
        "{reason}"
    );
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// S4, the other side: with every node on PVE 9 a `failback` without a group is sent; with a
/// group it is refused before anything is read, since the HA manager takes a grouped
/// resource's failback from the group (pve-ha-manager `src/PVE/HA/Groups.pm`
/// `migrate_groups_to_resources`), and a migrated PVE 9 refuses the group itself.
#[tokio::test]
async fn ha_failback_is_sent_when_every_node_runs_pve_9_and_no_group_is_given() {
    use cpps_proxmox::api::HaResourceSpec;
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "9.0.10").await;
    let nodes = json!([{"node": "pve1", "status": "online"}, {"node": "pve2", "status": "online"}]);
    common::expect_once(&api, "GET", "nodes", nodes).await;
    for node in ["pve1", "pve2"] {
        let status = node_status("pve-manager/9.0.10/0c5b3a7f");
        common::expect_once(&api, "GET", &format!("nodes/{node}/status"), status).await;
    }
    let add = common::pve_form_call(
        "POST",
        "cluster/ha/resources",
        &["sid=vm%3A100", "failback=0"],
    );
    common::mount_once(&api, add, common::data_answer(json!(null))).await;
    let pve = common::mock_client(&api);
    let sid: cpps_proxmox::types::HaSid = "vm:100".parse().unwrap();
    let mut spec = HaResourceSpec::new(sid);
    spec.failback = Some(false);
    pve.cluster().ha_add(&spec).await.unwrap();

    spec.group = Some("franca".to_owned());
    let err = pve.cluster().ha_add(&spec).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "HA `failback` would not be honoured, so nothing was sent: the HA manager takes a grouped resource's failback from its group's `nofailback`"
    );
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// The two vzdump jobs of the backup tests: an enabled one to PBS for 100 and 200, and a
/// disabled one to local storage for every guest but 300 (`GET /cluster/backup`, pve-manager
/// `PVE/API2/Backup.pm`; the fields of `PVE/VZDump/Common.pm`).
fn two_backup_jobs() -> Value {
    json!([
        {"id": "backup-5f1a", "type": "vzdump", "enabled": 1, "schedule": "21:00", "storage": "pbs-franca",
         "vmid": "100,200", "mode": "snapshot", "next-run": 1795978800},
        {"id": "backup-old", "type": "vzdump", "enabled": 0, "schedule": "sun 03:00", "storage": "local",
         "all": 1, "exclude": "300"}
    ])
}

/// Capability: backups as a loop on the PVE side: the vzdump jobs (`GET /cluster/backup`,
/// pve-manager `PVE/API2/Backup.pm`), the guests no job names
/// (`GET /cluster/backup-info/not-backed-up`; pve-manager `PVE/API2/Cluster/BackupInfo.pm`),
/// and a vzdump of one guest started and waited on to its end.
///
/// Corrected in round 3 (N3): this fixture used to answer guest 201 as not backed up beside a
/// disabled `all` job. Upstream `get_included_vmids` counts every vzdump job, enabled or
/// not, so the disabled job covers 201 and the real answer is only 300, the guest it
/// excludes.
#[tokio::test]
async fn vzdump_jobs_uncovered_guests_and_a_backup_waited_on() {
    let api = common::pve_mock_api().await;
    common::expect_once(&api, "GET", "cluster/backup", two_backup_jobs()).await;
    common::expect_once(
        &api,
        "GET",
        "cluster/backup-info/not-backed-up",
        json!([{"vmid": 300, "type": "lxc", "name": "scratch"}]),
    )
    .await;
    let upid = common::upid("UPID:pve1:0000A1B6:0001C3D4:6B0AEC74:vzdump:300:root@pam!ci:");
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "nodes/pve1/vzdump",
            &["vmid=300", "storage=pbs-franca"],
        ),
        common::data_answer(json!(upid.as_str())),
    )
    .await;
    common::serve_finished_task(&api, &upid, &["INFO: starting new backup job", "TASK OK"]).await;
    let pve = common::mock_client(&api);
    let jobs = pve.cluster().backup_jobs().await.unwrap();
    assert_eq!(jobs.len(), 2);
    assert!(jobs[0].is_enabled() && !jobs[1].is_enabled());
    assert_eq!(jobs[0].vmid.as_deref(), Some("100,200"));
    assert_eq!(jobs[1].all, Some(true));
    assert_eq!(jobs[1].exclude.as_deref(), Some("300"));
    let uncovered = pve.cluster().not_backed_up().await.unwrap();
    assert_eq!(uncovered[0].vmid.get(), 300);
    let started = pve
        .node("pve1")
        .vzdump(uncovered[0].vmid, "pbs-franca", None)
        .await
        .unwrap();
    let VzdumpStart::Task(started) = started else {
        panic!("{started:?}");
    };
    let outcome = pve.wait(&started, &common::quick_wait()).await.unwrap();
    assert!(outcome.exit_status.is_success());
    assert!(outcome.ha.is_none());
    api.verify().await;
}

/// N4: a vzdump of a guest that runs on another node (after an HA migration) starts no task:
/// pve-manager `PVE/API2/VZDump.pm` (`vzdump`) answers the string `"OK"` (`return "OK" if
/// !scalar(@{$local_vmids}) && !$param->{all}`) with HTTP 200. That is no UPID, and no
/// backup was taken: the SDK must say so, not fail to decode.
#[tokio::test]
async fn a_vzdump_of_a_guest_on_another_node_says_nothing_ran() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "nodes/pve1/vzdump",
            &["vmid=100", "storage=pbs-franca"],
        ),
        common::data_answer(json!("OK")),
    )
    .await;
    let pve = common::mock_client(&api);
    let started = pve
        .node("pve1")
        .vzdump(common::vmid(100), "pbs-franca", None)
        .await
        .unwrap();
    assert_eq!(started, VzdumpStart::NotOnThisNode);
    api.verify().await;
}

/// J3 (audit 31): one vzdump job naming a pool that no longer exists makes the whole
/// not-backed-up list fail: pve-manager `PVE/API2/Cluster/BackupInfo.pm` `get_included_vmids`
/// asks `PVE::VZDump::get_included_guests` of every job, which for a `pool` job calls
/// `PVE/API2Tools.pm` `get_resource_pool_guest_members`: `die "pool '$pool' does not exist\n"`,
/// answered 500. The endpoint exists; this is no "not found" of anything the caller asked for.
#[tokio::test]
async fn a_job_naming_a_deleted_pool_fails_the_list_but_is_not_not_found() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("GET", "cluster/backup-info/not-backed-up"),
        common::error_answer(500, "pool 'retired' does not exist\n"),
    )
    .await;
    let pve = common::mock_client(&api);
    let error = pve.cluster().not_backed_up().await.unwrap_err();
    assert!(!error.is_not_found(), "{error:?}");
    let text = error.to_string();
    assert!(
        text.contains("answered 500 Internal Server Error: pool 'retired' does not exist"),
        "{text}"
    );
    assert!(text.contains("a vzdump job names this pool"), "{text}");
}

/// N3: PVE's not-backed-up list counts every vzdump job, enabled or not, on any storage
/// (pve-manager `PVE/API2/Cluster/BackupInfo.pm`, `get_included_vmids`, which takes every
/// `vzdump` job of `jobs.cfg` with no `enabled` test; the guests of a job are chosen by
/// `PVE/VZDump.pm` `get_included_guests`: `pool`, else `vmid`, else `all` less `exclude`,
/// then `node`). Guests 201 (lxc) and 102 are covered only by the disabled job to `local`, so
/// PVE lists neither; the SDK must still find them when asked about enabled jobs, and 300 in
/// every case.
#[tokio::test]
async fn guests_covered_only_by_a_disabled_job_are_found() {
    let api = common::pve_mock_api().await;
    common::expect_once(&api, "GET", "cluster/backup", two_backup_jobs()).await;
    let guests = json!([
        {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "web"},
        {"id": "qemu/102", "type": "qemu", "vmid": 102, "node": "pve2", "name": "db"},
        {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve1", "name": "dns1"},
        {"id": "lxc/201", "type": "lxc", "vmid": 201, "node": "pve2", "name": "dns2"},
        {"id": "lxc/300", "type": "lxc", "vmid": 300, "node": "pve2", "name": "scratch"}
    ]);
    common::mount_once(
        &api,
        common::pve_call("GET", "cluster/resources").and(query_param("type", "vm")),
        common::data_answer(guests),
    )
    .await;
    let pve = common::mock_client(&api);
    let missing = pve
        .cluster()
        .guests_without_job(|job| job.is_enabled())
        .await
        .unwrap();
    assert!(missing.cannot_tell.is_empty());
    let ids: Vec<u32> = missing
        .uncovered
        .iter()
        .filter_map(|g| g.vmid)
        .map(|v| v.get())
        .collect();
    assert_eq!(ids, [102, 201, 300]);
    let jobs: Vec<cpps_proxmox::types::BackupJob> =
        serde_json::from_value(two_backup_jobs()).unwrap();
    let resources: Vec<cpps_proxmox::types::ClusterResource> = serde_json::from_value(json!([
        {"id": "lxc/201", "type": "lxc", "vmid": 201, "node": "pve2"},
        {"id": "lxc/300", "type": "lxc", "vmid": 300, "node": "pve2"}
    ]))
    .unwrap();
    // Every job counted, as PVE counts them: only the excluded guest is left.
    let pools = cpps_proxmox::types::PoolMembers::from_resources(&resources);
    let as_pve = cpps_proxmox::types::uncovered_guests(&jobs, &resources, &pools, |_| true);
    assert_eq!(as_pve.uncovered.len(), 1);
    assert_eq!(as_pve.uncovered[0].vmid.map(|v| v.get()), Some(300));
    api.verify().await;
}

/// N13: pve-ha-manager `src/PVE/HA/Config.pm` `parse_sid` takes a bare VMID and finds its type
/// in the cluster's vmlist: "200" is `ct:200` when guest 200 is a container, and an unknown
/// VMID fails ("unable to detect SID from VMID - VM/CT 300 does not exist"). The SDK must not
/// guess `vm:` for a bare id.
#[test]
fn a_bare_ha_id_is_resolved_through_the_guest_list() {
    use cpps_proxmox::types::{ClusterResource, HaSid};
    let guests: Vec<ClusterResource> = serde_json::from_value(json!([
        {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1"},
        {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve2"}
    ]))
    .unwrap();
    assert!("200".parse::<HaSid>().is_err());
    assert_eq!(
        HaSid::resolve("200", &guests).unwrap().to_string(),
        "ct:200"
    );
    assert_eq!(
        HaSid::resolve("100", &guests).unwrap().to_string(),
        "vm:100"
    );
    assert_eq!(
        HaSid::resolve("ct:300", &guests).unwrap().to_string(),
        "ct:300"
    );
    let err = HaSid::resolve("300", &guests).unwrap_err().to_string();
    assert!(
        err.contains("300") && err.contains("does not exist"),
        "{err}"
    );
}

/// N1: `GET /cluster/ha/status/current` needs `Sys.Audit` on `/` (pve-ha-manager
/// `src/PVE/API2/HA/Status.pm`, `status`: `check => ['perm', '/', ['Sys.Audit']]`), so a
/// pool-scoped token gets 403 "Permission check failed (/, Sys.Audit)" after its `hastart`
/// task has already queued the request. The wait must go on with what the token may read:
/// `GET /cluster/resources?type=vm` (pve-manager `PVE/API2/Cluster.pm` `resources`, filtered
/// by `VM.Audit`) gives each HA guest's `hastate`, the HA manager's service state, beside its
/// `status` and `node`.
#[tokio::test]
async fn an_ha_wait_without_sys_audit_follows_the_guest_list() {
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:hastart:100:pool@pve!ops:");
    common::serve_finished_task(&api, &upid, &["Requesting HA start for VM 100", "TASK OK"]).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(
            "/api2/json/cluster/ha/status/current",
        ))
        .respond_with(common::error_answer(
            403,
            "Permission check failed (/, Sys.Audit)",
        ))
        .mount(api.server())
        .await;
    let guest = |hastate: &str, status: &str| {
        common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "status": status,
             "hastate": hastate, "pool": "ops"}
        ]))
    };
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/api2/json/cluster/resources"))
        .and(query_param("type", "vm"))
        .respond_with(guest("started", "stopped"))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(api.server())
        .await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/api2/json/cluster/resources"))
        .and(query_param("type", "vm"))
        .respond_with(guest("started", "running"))
        .with_priority(2)
        .mount(api.server())
        .await;
    let outcome = common::mock_client(&api)
        .wait(&upid, &common::quick_wait())
        .await
        .unwrap();
    let ha = outcome.ha.expect("an HA wait");
    assert_eq!((ha.node.as_str(), ha.state.as_str()), ("pve1", "started"));
    assert_eq!(ha.sid, "vm:100");
}

/// N1, when the guest list does not show the guest either: the error says the request was
/// queued, so the caller does not take the refusal for "nothing happened".
#[tokio::test]
async fn an_ha_wait_that_cannot_read_the_outcome_says_the_request_was_queued() {
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:hastart:100:pool@pve!ops:");
    common::serve_finished_task(&api, &upid, &["Requesting HA start for VM 100", "TASK OK"]).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(
            "/api2/json/cluster/ha/status/current",
        ))
        .respond_with(common::error_answer(
            403,
            "Permission check failed (/, Sys.Audit)",
        ))
        .mount(api.server())
        .await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/api2/json/cluster/resources"))
        .respond_with(common::data_answer(json!([])))
        .mount(api.server())
        .await;
    let err = common::mock_client(&api)
        .wait(&upid, &common::quick_wait())
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(text.contains("queued"), "{text}");
    assert!(text.contains("Sys.Audit"), "{text}");
}

/// N2: PVE 9 answers an HA migrate/relocate with an object (pve-ha-manager
/// `src/PVE/API2/HA/Resources.pm` `migrate`/`relocate`: `sid`, `requested-node`, and, from
/// `HA/Config.pm` `get_resource_motion_info`, `comigrated-resources` and
/// `blocking-resources` with `{sid, cause: "resource-affinity"}`). The command is queued all
/// the same, but the CRM drops a move that a negative resource affinity blocks (`HA/Manager.pm`
/// `queue_resource_motion`: "crm command … error - service … in negative affinity"), so a
/// blocked move never happens and must be reported at once, not waited out.
#[tokio::test]
async fn a_blocked_ha_move_is_reported_at_once() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources/vm%3A100/migrate",
            &["node=pve2"],
        ),
        common::data_answer(json!({
            "sid": "vm:100", "requested-node": "pve2",
            "blocking-resources": [{"sid": "ct:201", "cause": "resource-affinity"}]
        })),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources/vm%3A100/relocate",
            &["node=pve3"],
        ),
        common::data_answer(json!({
            "sid": "vm:100", "requested-node": "pve3", "comigrated-resources": ["vm:101"]
        })),
    )
    .await;
    let cluster = common::mock_client(&api).cluster();
    let sid: cpps_proxmox::types::HaSid = "vm:100".parse().unwrap();
    let err = cluster.ha_move(&sid, "pve2", false).await.unwrap_err();
    let Error::Product(PveError::HaWait { reason, .. }) = &err else {
        panic!("{err:?}");
    };
    assert!(
        reason.contains("ct:201") && reason.contains("resource-affinity"),
        "{reason}"
    );
    let moved = cluster.ha_move(&sid, "pve3", true).await.unwrap();
    assert_eq!(moved.requested_node.as_deref(), Some("pve3"));
    assert_eq!(moved.comigrated, ["vm:101"]);
    api.verify().await;
}

/// N8: PVE 9 refuses `group` only once the cluster's groups are migrated to rules
/// (pve-ha-manager `src/PVE/API2/HA/Resources.pm` `create`: "invalid parameter 'group': ha
/// groups have been migrated to rules" if `have_groups_been_migrated()`, which is true when
/// `groups.cfg` holds no group: `HA/Config.pm`), and the CRM migrates them only when every node
/// runs 9 (`HA/Manager.pm`). Mid-upgrade a 9.x node still takes `group`, so the gate is the
/// cluster's migration state, read from `GET /cluster/ha/groups` (`HA/Groups.pm` `index`
/// lists the groups, and dies "cannot index groups: ha groups have been migrated to rules"
/// after), not the node's release.
#[tokio::test]
async fn an_ha_group_is_sent_to_pve_9_until_the_groups_are_migrated() {
    use cpps_proxmox::api::HaResourceSpec;
    // Mid-upgrade: a 9.0 node, the groups still there.
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "9.0.10").await;
    common::expect_once(
        &api,
        "GET",
        "cluster/ha/groups",
        json!([{"group": "franca", "type": "group", "nodes": "pve1,pve2"}]),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "cluster/ha/resources",
            &["sid=vm%3A100", "group=franca"],
        ),
        common::data_answer(json!(null)),
    )
    .await;
    let sid: cpps_proxmox::types::HaSid = "vm:100".parse().unwrap();
    let mut spec = HaResourceSpec::new(sid);
    spec.group = Some("franca".to_owned());
    common::mock_client(&api)
        .cluster()
        .ha_add(&spec)
        .await
        .unwrap();
    api.verify().await;
    api.assert_no_unexpected_requests();

    // Migrated: refused before sending, with the server's reason.
    let api = common::pve_mock_api().await;
    common::expect_version_once(&api, "9.0.10").await;
    common::mount_once(
        &api,
        common::pve_call("GET", "cluster/ha/groups"),
        common::error_answer(
            500,
            "cannot index groups: ha groups have been migrated to rules",
        ),
    )
    .await;
    let err = common::mock_client(&api)
        .cluster()
        .ha_add(&spec)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotSupported { .. }), "{err:?}");
    assert!(err.to_string().contains("migrated to rules"), "{err}");
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Suspected item, confirmed: a UPID whose task file does not exist answers HTTP 400 with the
/// parameter error `upid: "no such task"` (pve-manager `PVE/API2/Tasks.pm`, `read_task_log`
/// and `read_task_status`: `raise_param_exc({ upid => "no such task" }) if !-f $filename`).
/// The task is missing, so it is a not-found, with the server's words.
#[tokio::test]
async fn an_unknown_upid_is_not_found() {
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:vzdump:100:root@pam:");
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(format!(
            "/api2/json/{}/status",
            upid.task_path()
        )))
        .respond_with(ResponseTemplate::new(400).set_body_json(json!({
            "data": null,
            "message": "Parameter verification failed.\n",
            "errors": {"upid": "no such task"}
        })))
        .mount(api.server())
        .await;
    let err = common::mock_client(&api)
        .node("pve1")
        .task_status(&upid)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.status(), Some(StatusCode::BAD_REQUEST));
    assert!(err.to_string().contains("upid: no such task"), "{err}");
}

/// Suspected item of issue 31, confirmed: pve-ha-manager 5.1.3 ("fix #2751: add disarm-ha and
/// arm-ha commands", `debian/changelog`) adds a `fencing` entry to
/// `GET /cluster/ha/status/current` with `armed-state` (`armed`, `standby`, `disarming`,
/// `disarmed`) and `resource_mode` (`freeze`, `ignore`), and shows every service's state as
/// `ignore` in `ignore` mode (`src/PVE/API2/HA/Status.pm`). While disarmed the CRM acts on no
/// service (`HA/Manager.pm` `handle_disarm`: frozen, or HA tracking suspended), so a wait for a
/// queued start must end at once with the reason, not run out.
#[tokio::test]
async fn an_ha_wait_on_a_disarmed_stack_ends_at_once() {
    let fencing = |mode: &str| {
        json!({"id": "fencing", "type": "fencing", "node": "pve1",
               "status": format!("disarmed, resource mode: {mode} (CRM watchdog released)"),
               "armed-state": "disarmed", "resource_mode": mode})
    };
    for (mode, state) in [("freeze", "freeze"), ("ignore", "ignore")] {
        let api = common::pve_mock_api().await;
        let upid = common::upid("UPID:pve1:0000A1B2:0001C3D4:6B0AEC70:hastart:100:root@pam:");
        common::serve_finished_task(&api, &upid, &["Requesting HA start for VM 100", "TASK OK"])
            .await;
        let service = common::ha_service_entry("pve1", "stopped", state, "started");
        wiremock::Mock::given(wiremock::matchers::method("GET"))
            .and(wiremock::matchers::path(
                "/api2/json/cluster/ha/status/current",
            ))
            .respond_with(common::data_answer(json!([fencing(mode), service])))
            .mount(api.server())
            .await;
        let mut options = common::quick_wait();
        options.timeout = Some(Duration::from_secs(30));
        let started = std::time::Instant::now();
        let err = common::mock_client(&api)
            .wait(&upid, &options)
            .await
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{mode}: waited it out"
        );
        let Error::Product(PveError::HaWait { reason, .. }) = &err else {
            panic!("{mode}: {err:?}");
        };
        assert!(
            reason.contains("disarmed") && reason.contains(mode),
            "{reason}"
        );
    }
}

/// The backup chain's first link: the PBS storages as `GET /storage?type=pbs` lists them.
/// pve-storage `src/PVE/API2/Storage/Config.pm` `$api_storage_config` returns the
/// `storage.cfg` section (the keys of `src/PVE/Storage/PBSPlugin.pm` `options`) plus `storage`
/// and `digest`; `on_add_hook` stores the key file apart and leaves the key's fingerprint in
/// `encryption-key`. The password is never in the section.
#[tokio::test]
async fn pbs_storages_are_read_with_datastore_namespace_and_encryption() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("GET", "storage").and(query_param("type", "pbs")),
        common::data_answer(json!([
            {"storage": "pbs-franca", "type": "pbs", "server": "pbs-a.example", "datastore": "store1",
             "namespace": "site-a", "username": "backup@pbs!pve", "content": "backup",
             "fingerprint": "64:d3:ff:3a:50:38:53:5a:9b:f7:50:a4:d6:1c:f3:6a:5a:a1:b6:90:4c:44:e6:55:d3:3e:6b:1f:dd:5c:5e:8a",
             "encryption-key": "a7:49:ff:53:3a:b2:0d:4c:77:e4:1c:52:de:6f:80:57:dd:5b:b9:2f:d0:62:23:c0:1c:6a:a6:9f:2f:2c:93:3a",
             "prune-backups": "keep-all=1", "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"},
            {"storage": "pbs-plain", "type": "pbs", "server": "10.1.0.9", "port": 8008,
             "datastore": "store2", "content": "backup", "disable": 1,
             "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"}
        ])),
    )
    .await;
    let pve = common::mock_client(&api);
    let stores = pve.storage_configs(Some("pbs")).await.unwrap();
    assert_eq!(stores.len(), 2);
    let franca = &stores[0];
    assert!(franca.is_pbs() && franca.is_encrypted() && franca.is_enabled());
    assert_eq!(franca.datastore.as_deref(), Some("store1"));
    assert_eq!(franca.namespace.as_deref(), Some("site-a"));
    assert_eq!(franca.server.as_deref(), Some("pbs-a.example"));
    assert!(franca.fingerprint.as_deref().unwrap().starts_with("64:d3"));
    let plain = &stores[1];
    assert!(!plain.is_encrypted() && !plain.is_enabled());
    assert_eq!((plain.port, plain.namespace.as_deref()), (Some(8008), None));
    api.verify().await;
}

/// E2 (audit 31): a pool-based vzdump job, read by a token without `Pool.Audit` on the pool.
/// pve-manager `PVE/API2/Cluster.pm` `resources` deletes each guest's `pool` then
/// (`delete $entry->{pool}` unless `Pool.Audit` on `/pool/<pool>`), and `PVE/API2/Pool.pm`
/// `read_pool` (`GET /pools/{poolid}`) refuses with 403 (`check => ['perm', '/pool/{poolid}',
/// ['Pool.Audit']]`). vzdump still backs up every member (`PVE/VZDump.pm`
/// `get_included_guests`, `PVE/API2Tools.pm` `get_resource_pool_guest_members`), so the
/// guests are "cannot tell", never "not covered". Guest 300 is named by no job: not covered.
#[tokio::test]
async fn a_pool_job_whose_members_are_hidden_is_cannot_tell() {
    let api = common::pve_mock_api().await;
    common::expect_once(
        &api,
        "GET",
        "cluster/backup",
        json!([{"id": "backup-lab", "type": "vzdump", "pool": "lab", "storage": "pbs-franca",
                "schedule": "21:00", "enabled": 1, "mode": "snapshot"}]),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", "cluster/resources").and(query_param("type", "vm")),
        common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "web"},
            {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve2", "name": "dns1"}
        ])),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", "pools/lab"),
        common::error_answer(403, "Permission check failed (/pool/lab, Pool.Audit)"),
    )
    .await;
    let pve = common::mock_client(&api);
    let found = pve
        .cluster()
        .guests_without_job(|job| job.is_enabled())
        .await
        .unwrap();
    assert!(found.uncovered.is_empty(), "{:?}", found.uncovered);
    let unsure: Vec<(u32, &str)> = found
        .cannot_tell
        .iter()
        .filter_map(|(g, why)| g.vmid.map(|v| (v.get(), why.as_str())))
        .collect();
    assert_eq!(unsure.len(), 2, "{unsure:?}");
    assert_eq!((unsure[0].0, unsure[1].0), (100, 200));
    assert!(
        unsure[0].1.contains("job backup-lab") && unsure[0].1.contains("Pool.Audit"),
        "{}",
        unsure[0].1
    );
    api.verify().await;
}

/// E2, the other side: the guests' `pool` field is gone but `GET /pools/{poolid}` answers
/// (pve-manager `PVE/API2/Pool.pm` `read_pool`: `members`, each with `id`, `type`, `node`,
/// `vmid`, from `PVE/API2Tools.pm` `extract_vm_stats`). Its members are covered and any other
/// guest is not, as vzdump picks them (`PVE/VZDump.pm` `get_included_guests`).
#[tokio::test]
async fn a_pool_job_is_judged_from_the_pool_members_when_readable() {
    let api = common::pve_mock_api().await;
    common::expect_once(
        &api,
        "GET",
        "cluster/backup",
        json!([{"id": "backup-lab", "type": "vzdump", "pool": "lab", "storage": "pbs-franca",
                "enabled": 1}]),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", "cluster/resources").and(query_param("type", "vm")),
        common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "web"},
            {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve2", "name": "dns1"}
        ])),
    )
    .await;
    common::expect_once(
        &api,
        "GET",
        "pools/lab",
        json!({"comment": "lab guests", "members": [
            {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "web",
             "status": "running"},
            {"id": "storage/pve1/local", "type": "storage", "node": "pve1", "storage": "local"}
        ]}),
    )
    .await;
    let pve = common::mock_client(&api);
    let found = pve
        .cluster()
        .guests_without_job(|job| job.is_enabled())
        .await
        .unwrap();
    let ids: Vec<u32> = found
        .uncovered
        .iter()
        .filter_map(|g| g.vmid)
        .map(|v| v.get())
        .collect();
    assert_eq!(ids, [200]);
    assert!(found.cannot_tell.is_empty(), "{:?}", found.cannot_tell);
    api.verify().await;
}

/// C9: a nested pool (`lab/gpu`, pve-manager 8.1 on: "fix #1148: api: pools: support nested
/// pools") is read with `GET /pools?poolid=lab/gpu`, which answers a list of one pool with its
/// members (pve-manager `PVE/API2/Pool.pm` `index`). `GET /pools/{poolid}` cannot name it:
/// pve-http-server `src/PVE/APIServer/AnyEvent.pm` unescapes the path (`uri_unescape`) before
/// the handler is looked up, so `lab%2Fgpu` becomes two path segments, and `read_pool` says
/// "no support for nested pools". A plain pool keeps `GET /pools/{poolid}`, which every
/// release has.
#[tokio::test]
async fn a_nested_pool_is_read_with_the_poolid_parameter() {
    let api = common::pve_mock_api().await;
    let members = json!([
        {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "web",
         "status": "running"}
    ]);
    common::mount_once(
        &api,
        common::pve_call("GET", "pools").and(query_param("poolid", "lab/gpu")),
        common::data_answer(json!([{"poolid": "lab/gpu", "members": members}])),
    )
    .await;
    common::expect_once(&api, "GET", "pools/lab", json!({"members": []})).await;
    let pve = common::mock_client(&api);
    let nested = pve.cluster().pool("lab/gpu").await.unwrap();
    assert_eq!(nested.guests(), [VmId::new(100).unwrap()]);
    assert!(pve.cluster().pool("lab").await.unwrap().guests().is_empty());
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// E5 (audit 31): a pool-scoped token. pve-manager `PVE/API2/Cluster.pm` `resources` skips,
/// silently, every guest without `VM.Audit` (`next if !$rpcenv->check($authuser,
/// "/vms/$vmid", ['VM.Audit'], 1)`), so the list answers 200 with the pool's guests only.
/// `GET /access/permissions?path=/vms` (pve-access-control `PVE/API2/AccessControl.pm`
/// `permissions`: `{ $path => $perms }`, the privileges held there, here none) shows that
/// the list may leave guests out: the inventory is partial, not complete.
#[tokio::test]
async fn an_inventory_through_a_pool_scoped_token_is_not_complete() {
    let api = common::pve_mock_api().await;
    common::pve_call("GET", "nodes")
        .respond_with(common::data_answer(
            json!([{"node": "pve1", "status": "online"}]),
        ))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/resources")
        .respond_with(common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "name": "lab1",
             "status": "running", "pool": "lab"}
        ])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/ha/resources")
        .respond_with(common::data_answer(json!([])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "access/permissions")
        .and(query_param("path", "/vms"))
        .respond_with(common::data_answer(json!({"/vms": {}})))
        .mount(api.server())
        .await;
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 4, None).await;
    assert_eq!(inventory.guests.len(), 1);
    assert!(inventory.errors.is_empty(), "{:?}", inventory.errors);
    assert_eq!(
        inventory.completeness(),
        cpps_proxmox::inventory::Completeness::Partial
    );
    let why = inventory.guests_trimmed.as_deref().unwrap_or_default();
    assert!(why.contains("VM.Audit on /vms is not held"), "{why}");
    assert!(inventory.to_text().contains(&format!("PARTIAL: {why}")));
}

/// E5, the other side: `VM.Audit` on `/vms` that propagates (`{"/vms": {"VM.Audit": 1}}`,
/// pve-access-control `PVE/API2/AccessControl.pm` `permissions`) means the list is whole.
#[tokio::test]
async fn an_inventory_with_vm_audit_on_vms_is_complete() {
    let api = common::pve_mock_api().await;
    common::pve_call("GET", "nodes")
        .respond_with(common::data_answer(
            json!([{"node": "pve1", "status": "online"}]),
        ))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/resources")
        .respond_with(common::data_answer(json!([
            {"id": "qemu/100", "type": "qemu", "node": "pve1", "vmid": 100, "status": "running"}
        ])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/ha/resources")
        .respond_with(common::data_answer(json!([])))
        .mount(api.server())
        .await;
    common::pve_call("GET", "access/permissions")
        .and(query_param("path", "/vms"))
        .respond_with(common::data_answer(
            json!({"/vms": {"VM.Audit": 1, "VM.Console": 0}}),
        ))
        .mount(api.server())
        .await;
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 4, None).await;
    assert_eq!(inventory.guests_trimmed, None);
    assert_eq!(
        inventory.completeness(),
        cpps_proxmox::inventory::Completeness::Complete
    );
}

/// `GET /cluster/ha/resources` gives each resource's section config as written
/// (pve-ha-manager `src/PVE/API2/HA/Resources.pm` `index`), so `state` is absent where the
/// default `started` was never written, and an old config may still say `enabled`; the HA
/// manager reads both as `started` (`src/PVE/HA/Config.pm` `read_and_check_resources_config`).
/// While the CRM holds no status for a guest its `hastate` in `/cluster/resources` is absent
/// too (pve-manager `PVE/API2/Cluster.pm` `resources`), and the inventory showed no HA.
#[tokio::test]
async fn the_inventory_reads_a_resource_without_a_state_as_started() {
    let api = common::pve_mock_api().await;
    let routes = [
        ("nodes", json!([{"node": "pve1", "status": "online"}])),
        (
            "cluster/resources",
            json!([{"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1",
                    "name": "gitlab", "status": "running"},
                   {"id": "qemu/101", "type": "qemu", "vmid": 101, "node": "pve1",
                    "name": "runner", "status": "running"}]),
        ),
        (
            "cluster/ha/resources",
            json!([{"sid": "vm:100", "type": "vm", "digest": "5f1e0c"},
                   {"sid": "vm:101", "type": "vm", "state": "enabled", "digest": "5f1e0c"}]),
        ),
        ("access/permissions", json!({"/vms": {"VM.Audit": 1}})),
    ];
    for (route, data) in routes {
        common::pve_call("GET", route)
            .respond_with(common::data_answer(data))
            .mount(api.server())
            .await;
    }
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 4, None).await;
    let ha: Vec<(u32, Option<&str>)> = inventory
        .guests
        .iter()
        .map(|g| (g.vmid, g.ha.as_deref()))
        .collect();
    assert_eq!(ha, [(100, Some("started")), (101, Some("started"))]);
}
