//! Runs the built `pve-upgrade`: the plan for a cluster mid-upgrade (a wiremock PVE answering
//! as pve-manager and pve-ha-manager do), `--apply` refused before any request, and, with
//! `CPPS_TEST_FAKEPVE`, the plan against fakepve, whose node versions are placeholders.

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

mod common;

use serde_json::{Value, json};
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

async fn run(
    endpoint: &str,
    token: &str,
    ca_file: Option<&str>,
    args: &[&str],
) -> std::process::Output {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_pve-upgrade"));
    for var in [
        "PROXMOX_VE_USERNAME",
        "PROXMOX_VE_PASSWORD",
        "PROXMOX_VE_CA_FILE",
        "PROXMOX_VE_FINGERPRINT",
        "PROXMOX_VE_INSECURE",
    ] {
        cmd.env_remove(var);
    }
    if let Some(ca) = ca_file {
        cmd.env("PROXMOX_VE_CA_FILE", ca);
    }
    cmd.args(args)
        .env("PROXMOX_VE_ENDPOINT", endpoint)
        .env("PROXMOX_VE_API_TOKEN", token)
        .output()
        .await
        .expect("pve-upgrade runs")
}

async fn answer(server: &MockServer, api_path: &str, data: Value) {
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{api_path}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": data})))
        .mount(server)
        .await;
}

/// How a node whose pve-manager has no HA rules API (8.x) answers `GET /cluster/ha/rules`:
/// pve-http-server `src/PVE/APIServer/AnyEvent.pm` `rest_handler` answers a path with no
/// handler `HTTP_NOT_IMPLEMENTED`, "Method '$method $rel_uri' not implemented", and the JSON
/// formatter writes `{"data": null, "message": …}` (`Formatter/Standard.pm`).
async fn no_rules_api(server: &MockServer) {
    Mock::given(method("GET"))
        .and(path("/api2/json/cluster/ha/rules"))
        .respond_with(ResponseTemplate::new(501).set_body_json(
            json!({"data": null, "message": "Method 'GET /cluster/ha/rules' not implemented"}),
        ))
        .mount(server)
        .await;
}

/// The answers [`Cluster::serve`] mounts beside the nodes and their versions; the default is a
/// cluster mid-upgrade ([`cluster_mid_upgrade`]).
struct Cluster {
    /// `GET /cluster/resources?type=vm`.
    guests: Value,
    /// `GET /cluster/ha/status/current`.
    ha_status: Value,
    /// `GET /cluster/config/nodes`.
    corosync_nodes: Value,
    /// `GET /cluster/config/qdevice`.
    qdevice: Value,
    /// `GET /cluster/ha/resources`.
    ha_resources: Value,
    /// `GET /cluster/ha/groups`.
    ha_groups: Value,
    /// `GET /cluster/ha/rules`; `None`: the path is not served (see [`no_rules_api`]).
    ha_rules: Option<Value>,
    /// `GET /nodes/{node}/qemu/{vmid}/migrate` of each HA VM, by `{node}/{vmid}`.
    migrate: Vec<(&'static str, Value)>,
    /// `GET /access/permissions?path=/vms` (pve-access-control `PVE/API2/AccessControl.pm`
    /// `permissions`: `{ $path => { privilege => propagate } }`).
    vms_rights: Value,
}

/// qemu-server `src/PVE/API2/Qemu.pm` `migrate_vm_precondition` for a running VM that may go
/// to `allowed`, with `local_resources` and `mapped-resource-info` as given.
fn precondition(allowed: &[&str], local: &[&str], mapped: Value) -> Value {
    let names: Vec<&String> = mapped
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    json!({
        "running": 1, "allowed_nodes": allowed, "not_allowed_nodes": {}, "local_disks": [],
        "local_resources": local, "mapped-resources": names, "mapped-resource-info": mapped,
        "has-dbus-vmstate": 1, "dependent-ha-resources": []
    })
}

impl Default for Cluster {
    /// Quorate (`GET /cluster/status`), three nodes of one vote each and no QDevice
    /// (`GET /cluster/config/nodes`, pve-cluster `src/PVE/API2/ClusterConfig.pm` `nodes`: the
    /// corosync nodelist, values as corosync.conf writes them; `qdevice`: `{}` without a
    /// QDevice socket), the HA stack armed (pve-ha-manager `src/PVE/API2/HA/Status.pm`: the
    /// `fencing` entry); on pve1 an HA VM, a running VM without HA, a stopped one, and a
    /// running one whose HA state is `ignored` (pve-ha-manager `HA/Manager.pm` leaves it
    /// alone, so it stays).
    fn default() -> Self {
        Cluster {
            guests: json!([
                {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "status": "running", "hastate": "started"},
                {"id": "qemu/101", "type": "qemu", "vmid": 101, "node": "pve1", "status": "running"},
                {"id": "qemu/102", "type": "qemu", "vmid": 102, "node": "pve1", "status": "stopped"},
                {"id": "qemu/103", "type": "qemu", "vmid": 103, "node": "pve1", "status": "running", "hastate": "ignored"},
                {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve3", "status": "running"}
            ]),
            ha_status: json!([
                {"id": "quorum", "type": "quorum", "node": "pve3", "status": "OK", "quorate": 1},
                {"id": "master", "type": "master", "node": "pve3", "status": "pve3 (active, Sat Dec  5 10:00:00 2026)"},
                {"id": "fencing", "type": "fencing", "node": "pve3", "status": "armed (CRM watchdog active)", "armed-state": "armed"}
            ]),
            corosync_nodes: json!([
                {"node": "pve1", "name": "pve1", "nodeid": "1", "quorum_votes": "1", "ring0_addr": "10.0.0.1"},
                {"node": "pve2", "name": "pve2", "nodeid": "2", "quorum_votes": "1", "ring0_addr": "10.0.0.2"},
                {"node": "pve3", "name": "pve3", "nodeid": "3", "quorum_votes": "1", "ring0_addr": "10.0.0.3"}
            ]),
            qdevice: json!({}),
            // pve-ha-manager `src/PVE/API2/HA/Resources.pm` `index`: the section config.
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "group": "prefer-pve1", "digest": "5f1e0c"},
                {"sid": "vm:103", "type": "vm", "state": "ignored", "digest": "5f1e0c"}
            ]),
            // F7 (audit 31): the answering node, pve1 (`local: 1`), runs 8.4, whose pve-manager
            // has no `/cluster/ha/rules` (pve-manager `PVE/API2/HAConfig.pm` mounts `rules`
            // from 0196e6f9 on, pve-ha-manager `src/PVE/API2/HA/Rules.pm` from 5.0.1), so it
            // answers 501, not `[]` as this fixture used to say.
            ha_groups: json!([
                {"group": "prefer-pve1", "type": "group", "nodes": "pve1:2,pve2:1"}
            ]),
            ha_rules: None,
            migrate: vec![("pve1/100", precondition(&["pve2", "pve3"], &[], json!({})))],
            // A token that may audit every guest, propagating.
            vms_rights: json!({"/vms": {"VM.Audit": 1}}),
        }
    }
}

impl Cluster {
    /// Three nodes, two on 8.4 and one already on 9.0 (`pveversion` as pve-manager
    /// `PVE/API2/Nodes.pm` status writes it), one HA group not migrated yet (pve-ha-manager
    /// `HA/Manager.pm` migrates only once every node runs 9) and no rule yet, with `self`'s
    /// answers.
    async fn serve(self) -> MockServer {
        let server = MockServer::start().await;
        answer(
            &server,
            "nodes",
            json!([
                {"node": "pve1", "status": "online"}, {"node": "pve2", "status": "online"},
                {"node": "pve3", "status": "online"}
            ]),
        )
        .await;
        for (node, version) in [
            ("pve1", "pve-manager/8.4.1/2a5fa54a8503f96d"),
            ("pve2", "pve-manager/8.4.1/2a5fa54a8503f96d"),
            ("pve3", "pve-manager/9.0.3/025864202ebb6109"),
        ] {
            answer(&server, &format!("nodes/{node}/status"), json!({
                "pveversion": version, "kversion": "Linux 6.8.12-9-pve", "uptime": 86400,
                "cpu": 0.05, "loadavg": ["0.10", "0.12", "0.09"],
                "memory": {"total": 68719476736_u64, "used": 8589934592_u64, "free": 60129542144_u64},
                "rootfs": {"total": 100, "used": 10, "avail": 90, "free": 90}
            })).await;
        }
        answer(&server, "cluster/status", json!([
            {"type": "cluster", "id": "cluster", "name": "franca", "nodes": 3, "quorate": 1, "version": 7},
            {"type": "node", "id": "node/pve1", "name": "pve1", "nodeid": 1, "online": 1, "local": 1},
            {"type": "node", "id": "node/pve2", "name": "pve2", "nodeid": 2, "online": 1, "local": 0},
            {"type": "node", "id": "node/pve3", "name": "pve3", "nodeid": 3, "online": 1, "local": 0}
        ])).await;
        Mock::given(method("GET"))
            .and(path("/api2/json/cluster/resources"))
            .and(query_param("type", "vm"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": self.guests})))
            .mount(&server)
            .await;
        answer(&server, "cluster/ha/groups", self.ha_groups).await;
        match self.ha_rules {
            Some(rules) => answer(&server, "cluster/ha/rules", rules).await,
            None => no_rules_api(&server).await,
        }
        answer(&server, "cluster/ha/resources", self.ha_resources).await;
        for (guest, data) in self.migrate {
            let (node, vmid) = guest.split_once('/').unwrap();
            answer(&server, &format!("nodes/{node}/qemu/{vmid}/migrate"), data).await;
        }
        answer(&server, "cluster/ha/status/current", self.ha_status).await;
        answer(&server, "cluster/config/nodes", self.corosync_nodes).await;
        answer(&server, "cluster/config/qdevice", self.qdevice).await;
        Mock::given(method("GET"))
            .and(path("/api2/json/access/permissions"))
            .and(query_param("path", "/vms"))
            .respond_with(
                ResponseTemplate::new(200).set_body_json(json!({"data": self.vms_rights})),
            )
            .mount(&server)
            .await;
        server
    }
}

/// The arguments of a plan for a cluster whose corosync.conf has no `quorum.device`: no API
/// path shows that section (E6), so the operator states it.
const NO_QDEVICE: &[&str] = &["--qdevice-votes", "0"];

/// The default [`Cluster`].
async fn cluster_mid_upgrade() -> MockServer {
    Cluster::default().serve().await
}

/// The default cluster is answered by pve1, an 8.4 node whose `GET /cluster/ha/rules` is a 501
/// (F7, audit 31: [`no_rules_api`]). No rules API there means the HA groups decide, so VM 100
/// (in the unrestricted group `prefer-pve1`) is moved by HA and nothing blocks the plan.
#[tokio::test]
async fn the_plan_lists_each_node_below_the_target_with_its_guests() {
    let server = cluster_mid_upgrade().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &[
            "cluster: 3 nodes, quorate",
            "HA: groups not migrated yet (the CRM migrates them once every node runs 9, is online, and has an active LRM out of maintenance)",
            "HA rules: not served by the node that answered (no rules API before pve-ha-manager 5.0.1): the HA groups decide, unless a 9.x node took a rule before a group was added (point the plan at a 9.x node to see)",
            "node pve3: pve-manager/9.0.3/025864202ebb6109",
            "step 1: pve1",
            "  moved by HA: 100",
            "  to migrate or shut down by hand: 101, 103",
            "step 2: pve2",
            "  moved by HA: none",
        ],
    );
    assert!(!text.contains("step 3"), "{text}");
    assert!(!text.contains("BLOCKED"), "{text}");

    let out = run(
        &server.uri(),
        "root@pam!ci=5ecr3t",
        None,
        &["--format", "json", "--qdevice-votes", "0"],
    )
    .await;
    let plan: Value = serde_json::from_str(&common::stdout_of_exit(&out, 0)).unwrap();
    assert_eq!(plan["nodes"][0]["major"], 8);
    assert_eq!(plan["nodes"][2]["major"], 9);
    assert_eq!(plan["ha_groups_migrated"]["Ok"], false);
}

/// J1 (audit 31): mid-upgrade with no HA group, a rule may already exist. pve-ha-manager
/// `src/PVE/API2/HA/Rules.pm` `create` refuses only while groups exist
/// (`PVE::HA::Config::have_groups_been_migrated`, `src/PVE/HA/Config.pm`: true when no group is
/// defined), so a 9.x node takes rules at once; the 8.4 node that answers has no rules path
/// (501, [`no_rules_api`]) and cannot show them. A strict rule may pin VM 100 to pve1, so
/// "moved by HA" would be a guess: it is "cannot tell", and the plan names the way out.
#[tokio::test]
async fn rules_unseen_from_an_8x_node_with_no_groups_left_are_cannot_tell() {
    let cluster = Cluster {
        ha_groups: json!([]),
        ha_resources: json!([
            {"sid": "vm:100", "type": "vm", "state": "started", "digest": "5f1e0c"},
            {"sid": "vm:103", "type": "vm", "state": "ignored", "digest": "5f1e0c"}
        ]),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    let why = "the node that answered has no HA rules API (PVE 8) while a node runs 9 and no HA \
               group is left, so rules may exist: point the plan at a node that runs 9";
    common::assert_has_lines(
        &text,
        &[
            "HA: no group left (migrated to rules, or none defined)",
            &format!("HA rules: cannot be read: {why}"),
            &format!("  HA move cannot be told: 100 (HA rules unread: {why})"),
            &format!("BLOCKED: pve1: whether HA moves 100 cannot be told: HA rules unread: {why}"),
        ],
    );
    assert!(!text.contains("moved by HA: 100"), "{text}");
}

/// Every index of pve-ha-manager's `API2/HA` answers an array (`API2/HA/Rules.pm` `index`
/// returns `$res`, a list); a rules answer that is not one (`{"data": null}`) lists no rule,
/// and says nothing of whether a strict rule keeps VM 100 on pve1. Failed first: "moved by HA:
/// 100" and "HA rules: 0", a pass.
#[tokio::test]
async fn a_rules_answer_that_is_no_list_cannot_tell() {
    let cluster = Cluster {
        ha_groups: json!([]),
        ha_rules: Some(json!(null)),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "HA rules: cannot be read: not a list: null",
            "  HA move cannot be told: 100 (HA rules unread: not a list: null)",
        ],
    );
    assert!(!text.contains("moved by HA: 100"), "{text}");
}

/// G3 (audit 31): a pool-scoped token. pve-manager `PVE/API2/Cluster.pm` `resources` skips,
/// silently, each guest without `VM.Audit` on `/vms/<vmid>`, so the list answers 200 with part
/// of the guests; `GET /access/permissions?path=/vms` (pve-access-control
/// `PVE/API2/AccessControl.pm` `permissions`) answers `{"/vms": {}}`: nothing held there. The
/// plan cannot say "by hand: none" of a node whose guests it may not see: it says the list may
/// be partial, on stderr and in the plan, and exits 1.
#[tokio::test]
async fn a_guest_list_that_may_be_partial_blocks_the_plan() {
    let cluster = Cluster {
        vms_rights: json!({"/vms": {}}),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "BLOCKED: the guest list may be partial: VM.Audit on /vms is not held: the guest list leaves out the guests the credentials may not audit",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the guest list may be partial: VM.Audit on /vms is not held"),
        "{stderr}"
    );
}

/// D1: a service in CRM state `error` is never recovered nor moved (pve-ha-manager
/// `src/PVE/HA/Manager.pm` `next_state_error` acts only once the request is `disabled`), and a
/// migration request for it is refused (`src/PVE/API2/HA/Resources.pm`: "service '…' in
/// error state, must be disabled and fixed first"). `hastate` is that CRM state (pve-manager
/// `PVE/API2/Cluster.pm` `resources`). The plan must not count it as moved by HA.
#[tokio::test]
async fn an_ha_guest_in_error_state_is_not_moved_by_ha() {
    let mut cluster = Cluster::default();
    cluster.guests.as_array_mut().unwrap().push(json!(
        {"id": "qemu/104", "type": "qemu", "vmid": 104, "node": "pve1", "status": "running", "hastate": "error"}
    ));
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  moved by HA: 100",
            "  not moved by HA: 104 (CRM state `error`)",
            "BLOCKED: pve1: HA resource 104 is in CRM state `error`: the HA manager neither moves nor recovers it, and refuses a migration until it is set `disabled` and fixed",
        ],
    );
}

/// D6: while the HA stack is disarmed (pve-ha-manager 5.1.3+, `disarm-ha`), the CRM ignores
/// node maintenance ("ignoring maintenance command for node … HA stack is disarmed",
/// `src/PVE/HA/Manager.pm`), so nothing is moved by HA: the `fencing` entry of
/// `GET /cluster/ha/status/current` says so (`src/PVE/API2/HA/Status.pm`: `armed-state`
/// `disarming` or `disarmed`, `resource_mode`). The plan says it and plans no HA move.
#[tokio::test]
async fn a_disarmed_ha_stack_moves_nothing() {
    let mut cluster = Cluster::default();
    cluster.ha_status[2] = json!(
        {"id": "fencing", "type": "fencing", "node": "pve3",
         "status": "disarmed, resource mode: freeze (CRM watchdog released)",
         "armed-state": "disarmed", "resource_mode": "freeze"}
    );
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "HA stack: disarmed (resource mode freeze): node maintenance is ignored, HA moves nothing",
            "  moved by HA: none",
            "  not moved by HA: 100 (HA stack disarmed)",
            "BLOCKED: the HA stack is disarmed (resource mode freeze): the CRM ignores node maintenance; arm it (`ha-manager arm-ha`) before the upgrade",
        ],
    );
}

/// D7: the votes come from corosync's node list (`GET /cluster/config/nodes`, pve-cluster
/// `src/PVE/API2/ClusterConfig.pm` `nodes`: `quorum_votes`) and the QDevice
/// (`GET /cluster/config/qdevice`, `status`: the keys of `corosync-qdevice-tool -sv`), and the
/// quorum is checked before each step. Three nodes with votes 2, 1, 1: with pve1 out, 2 of 4
/// votes are no quorum (3 needed); with pve2 out, 3 of 4 are.
#[tokio::test]
async fn the_quorum_before_each_step_counts_the_real_votes() {
    let mut cluster = Cluster::default();
    cluster.corosync_nodes[0]["quorum_votes"] = json!("2");
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  before: without pve1, 2 of 4 votes, quorum 3: NOT quorate",
            "  before: without pve2, 3 of 4 votes, quorum 3: quorate",
            "BLOCKED: pve1: with it out, 2 of 4 votes would not be a quorum (3)",
        ],
    );
}

/// D7: a QDevice's vote counts. With pve1's two votes, the QDevice of algorithm `ffsplit`
/// ("Fifty-Fifty split", one vote: corosync-qdevice `corosync-qdevice(8)`) makes 5 votes,
/// quorum 3, and pve1 out leaves 3 of them: quorate, where without the QDevice it was not.
/// Its vote is counted only while it is `Connected`.
#[tokio::test]
async fn a_qdevice_vote_counts_in_the_quorum() {
    let mut cluster = Cluster::default();
    cluster.corosync_nodes[0]["quorum_votes"] = json!("2");
    cluster.qdevice = json!({
        "Algorithm": "Fifty-Fifty split", "Echo reply": "Ok", "Last poll call": "Ok",
        "Model": "Net", "QNetd host": "10.0.0.9:5403", "State": "Connected",
        "Tie-breaker": "Node with lowest node ID"
    });
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, &[]).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &[
            "quorum: 5 votes (QDevice Fifty-Fifty split: 1), 3 needed",
            "  before: without pve1, 3 of 5 votes, quorum 3: quorate",
        ],
    );
}

/// E6 (audit 31): pve-cluster `src/PVE/API2/ClusterConfig.pm` `status` (`GET
/// /cluster/config/qdevice`) answers `{}` whenever the node that answers has no qdevice socket
/// (`return $result if !-S $socket_path`), which is also the case of a configured QDevice
/// whose daemon is down there; and no API path shows corosync.conf's `quorum` section
/// (`totem` and `join_info` return the totem and node list; pve-manager `PVE/CLI/pve8to9.pm`
/// reads `quorum.device.votes` from the file). So `{}` is not "no QDevice": without the
/// operator's `--qdevice-votes`, no step's quorum can be told. With a QDevice of one vote
/// configured and down, three nodes need 3 of 4 votes, and one node out leaves 2.
#[tokio::test]
async fn an_empty_qdevice_status_is_not_taken_for_no_qdevice() {
    let server = cluster_mid_upgrade().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, &[]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "quorum: the votes cannot be counted",
            "  before: without pve1, the quorum cannot be told",
        ],
    );
    assert!(
        text.contains(
            "BLOCKED: the QDevice cannot be counted: the node that answered shows no QDevice status"
        ),
        "{text}"
    );
    let out = run(
        &server.uri(),
        "root@pam!ci=5ecr3t",
        None,
        &["--qdevice-votes", "1"],
    )
    .await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "quorum: 4 votes (QDevice of unknown algorithm: 1), 3 needed",
            "QDevice: state cannot be told (the node that answered runs no corosync-qdevice): its votes are not counted as present",
            "  before: without pve1, 2 of 4 votes, quorum 3: NOT quorate",
            "BLOCKED: pve1: with it out, 2 of 4 votes would not be a quorum (3)",
        ],
    );
}

/// S2 (audit 31): HA resources the HA stack cannot move off a node in maintenance. VM 100 uses a
/// local PCI device: qemu-server `src/PVE/API2/Qemu.pm` `migrate_vm_precondition` lists it in
/// `local_resources`, and `src/PVE/QemuMigrate.pm` `prepare` refuses a running VM with local
/// devices even with `force` ("can't migrate VM which uses local devices"), which
/// pve-ha-manager `src/PVE/HA/Resources/PVEVM.pm` `migrate` sends. VM 105 has a mapped GPU not
/// marked live-migratable (`mapped-resource-info` without `live-migration`: "can't live
/// migrate running VM which uses following mapped devices"). VM 106 is in a strict
/// node-affinity rule naming pve1 only (`src/PVE/HA/Rules/NodeAffinity.pm`: strict rules keep
/// a resource on their nodes), so `HA/Manager.pm` `select_service_node` finds no other node.
/// VM 108, kept with VM 106 by a positive resource-affinity rule, takes that rule on
/// (`HA/Rules.pm` `create_implicit_positive_resource_affinity_node_affinity_rules`) and stays
/// too. VM 107 may move (its local disk goes along: `with-local-disks`). Failed first: "moved
/// by HA: 107, 108".
#[tokio::test]
async fn ha_resources_that_cannot_leave_the_node_are_not_moved_by_ha() {
    let mut cluster = Cluster::default();
    for vmid in [105, 106, 107, 108] {
        cluster.guests.as_array_mut().unwrap().push(json!(
            {"id": format!("qemu/{vmid}"), "type": "qemu", "vmid": vmid, "node": "pve1",
             "status": "running", "hastate": "started"}
        ));
    }
    cluster.qdevice = json!({
        "Algorithm": "Fifty-Fifty split", "Echo reply": "Ok", "Last poll call": "Ok",
        "Model": "Net", "QNetd host": "10.0.0.9:5403", "State": "Connected",
        "Tie-breaker": "Node with lowest node ID"
    });
    cluster.ha_rules = Some(json!([
        {"rule": "db-on-pve1", "type": "node-affinity", "resources": "vm:106",
         "nodes": "pve1:2", "strict": 1, "digest": "5f1e0c"},
        {"rule": "app-with-db", "type": "resource-affinity", "resources": "vm:106,vm:108",
         "affinity": "positive", "digest": "5f1e0c"}
    ]));
    cluster.migrate = vec![
        (
            "pve1/100",
            precondition(&["pve2", "pve3"], &["hostpci0"], json!({})),
        ),
        (
            "pve1/105",
            precondition(
                &["pve2", "pve3"],
                &[],
                json!({"hostpci0": {"name": "a5000"}}),
            ),
        ),
        ("pve1/106", precondition(&["pve2", "pve3"], &[], json!({}))),
        ("pve1/107", precondition(&["pve2", "pve3"], &[], json!({}))),
        ("pve1/108", precondition(&["pve2", "pve3"], &[], json!({}))),
    ];
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, &[]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  moved by HA: 107",
            "  not moved by HA: 100 (local devices hostpci0), 105 (mapped devices without live migration hostpci0), 106 (strict node-affinity rule db-on-pve1 allows only pve1), 108 (strict node-affinity rule db-on-pve1 allows only pve1)",
            "BLOCKED: pve1: HA will not move 100 (local devices hostpci0): move it or shut it down by hand first",
        ],
    );
}

/// F8 (audit 31): before qemu-server 8.3.9 (commit 8aeaad24), `src/PVE/API2/Qemu.pm`
/// `migrate_vm_precondition` set `allowed_nodes` and `not_allowed_nodes` only
/// `if (!$res->{running})`, so a running VM's answer has neither (the keys below are that
/// release's: `running`, `local_disks`, `local_resources`, `mapped-resources`,
/// `mapped-resource-info`). A missing list says nothing about the other nodes: whether HA moves
/// VM 100 cannot be told, never "no other node is allowed".
#[tokio::test]
async fn a_precondition_without_allowed_nodes_cannot_tell() {
    let cluster = Cluster {
        migrate: vec![(
            "pve1/100",
            json!({"running": 1, "local_disks": [], "local_resources": [],
                   "mapped-resources": [], "mapped-resource-info": {}}),
        )],
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    assert!(!text.contains("no other node is allowed"), "{text}");
    assert!(
        text.contains(
            "BLOCKED: pve1: whether HA moves 100 cannot be told: the migration preconditions list no allowed nodes (qemu-server before 8.3.9 lists them only for a stopped VM)"
        ),
        "{text}"
    );
}

/// G4 (audit 31): qemu-server `src/PVE/API2/Qemu.pm` `migrate_vm_precondition` checks
/// `['perm', '/vms/{vmid}', ['VM.Migrate']]`, a privilege of the admin group only
/// (pve-access-control `src/PVE/AccessControl.pm` `$privgroups`: PVEAuditor holds the `audit`
/// privileges, VM.Audit and Sys.Audit among them, not VM.Migrate). A token without it gets 403
/// (`PVE/RPCEnvironment.pm` `check`: "Permission check failed"; before libpve-http-server-perl
/// 5.2.0 the reason is only in the status line, so the body is `{"data": null}`). The plan
/// must say which privilege on which path is missing, not just "403".
#[tokio::test]
async fn a_token_without_vm_migrate_is_told_the_privilege_it_lacks() {
    let cluster = Cluster {
        migrate: Vec::new(),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    Mock::given(method("GET"))
        .and(path("/api2/json/nodes/pve1/qemu/100/migrate"))
        .respond_with(ResponseTemplate::new(403).set_body_json(json!({"data": null})))
        .mount(&server)
        .await;
    let out = run(&server.uri(), "audit@pve!ro=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    assert!(
        text.contains(
            "BLOCKED: pve1: whether HA moves 100 cannot be told: the credentials lack VM.Migrate on /vms/100 (403)"
        ),
        "{text}"
    );
}

/// Audit 31's suspected "strict rules with `disable: 0`", refuted: pve-ha-manager
/// `src/PVE/HA/Rules.pm` `foreach_rule` skips a rule when `exists($rule->{disable})`, whatever
/// its value, and `NodeAffinity.pm` `plugin_compile` reads the rules through it with
/// `exclude_disabled_rules`; the API never writes a false `disable` (`src/PVE/API2/HA/Rules.pm`
/// `create_rule`/`update_rule`: `delete $param->{disable} if !$param->{disable}`). So a
/// hand-written `disable 0` leaves the rule out of the CRM's placement, and the plan must not
/// count it as keeping VM 100 on pve1.
#[tokio::test]
async fn a_strict_rule_with_disable_zero_is_skipped_as_the_crm_does() {
    let cluster = Cluster {
        ha_rules: Some(json!([
            {"rule": "db-on-pve1", "type": "node-affinity", "resources": "vm:100",
             "nodes": "pve1", "strict": 1, "disable": 0, "digest": "5f1e0c", "order": 1}
        ])),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(&text, &["  moved by HA: 100"]);
    assert!(!text.contains("db-on-pve1"), "{text}");
}

/// Audit 31's suspected "strict rule the CRM drops as infeasible", confirmed: pve-ha-manager
/// `src/PVE/API2/HA/Rules.pm` `index` still lists such a rule, with the reasons in `errors`
/// (`$get_api_ha_rule`, from `PVE::HA::Rules->check_feasibility`), while the CRM deletes every
/// rule with errors before compiling the rest (`src/PVE/HA/Rules.pm` `transform`: "Drop rule
/// ..., because ...", called from `src/PVE/HA/Manager.pm`). So such a rule keeps nothing on
/// pve1, and the plan must not count VM 100 as kept there.
#[tokio::test]
async fn a_strict_rule_with_errors_is_dropped_as_the_crm_does() {
    let cluster = Cluster {
        ha_rules: Some(json!([
            {"rule": "db-on-pve1", "type": "node-affinity", "resources": "vm:100",
             "nodes": "pve1", "strict": 1, "digest": "5f1e0c", "order": 1,
             "errors": {"resources": ["resource 'vm:100' is already used in another node affinity rule"]}}
        ])),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(&text, &["  moved by HA: 100"]);
    assert!(!text.contains("db-on-pve1"), "{text}");
}

/// H4 (audit 31): while HA groups are not migrated, a 9.x node's rules index also lists a
/// rule generated from each group in use (pve-ha-manager `src/PVE/API2/HA/Rules.pm` `index`
/// runs `$get_full_rules_config`, which calls `PVE::HA::Groups::migrate_groups_to_rules`,
/// `src/PVE/HA/Groups.pm`: rule `ha-group-NAME`, "Generated from HA group 'NAME'."), though
/// rules.cfg does not hold it. The count says how many are such. Failed first: "HA rules: 2".
#[tokio::test]
async fn rules_generated_from_groups_are_counted_apart() {
    let cluster = Cluster {
        ha_rules: Some(json!([
            {"rule": "ha-group-prefer-pve1", "type": "node-affinity", "resources": "vm:100",
             "nodes": "pve1:2,pve2:1", "strict": 0, "digest": "5f1e0c", "order": 1,
             "comment": "Generated from HA group 'prefer-pve1'."},
            {"rule": "db-apart", "type": "resource-affinity", "resources": "vm:100,vm:101",
             "affinity": "negative", "digest": "5f1e0c", "order": 2}
        ])),
        ..Cluster::default()
    };
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &["HA rules: 2, of which 1 generated from HA groups not migrated yet"],
    );
}

/// A node missing from corosync's node list has votes this plan cannot know, so no step's
/// quorum can be told: each step is blocked, never assumed to hold.
#[tokio::test]
async fn unknown_votes_block_every_step() {
    let mut cluster = Cluster::default();
    cluster.corosync_nodes.as_array_mut().unwrap().truncate(2);
    let server = cluster.serve().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "quorum: the votes cannot be counted",
            "  before: without pve1, the quorum cannot be told",
            "BLOCKED: pve1: the quorum without it cannot be told: a node's votes are not known",
        ],
    );
}

/// Node maintenance has no API endpoint (pve-ha-manager `src/PVE/CLI/ha_manager.pm`
/// `node-maintenance-set` is a command-line method; `pve-apidoc.json` has no such path), so
/// `--apply` is refused before any request is sent.
#[tokio::test]
async fn apply_is_refused_before_any_request() {
    let server = MockServer::start().await;
    let out = run(&server.uri(), "root@pam!ci=5ecr3t", None, &["--apply"]).await;
    let stderr = common::stderr_of_exit(&out, 2);
    assert!(
        stderr.contains("node maintenance has no API endpoint"),
        "{stderr}"
    );
    assert!(stderr.contains("src/PVE/CLI/ha_manager.pm"), "{stderr}");
    assert!(
        server
            .received_requests()
            .await
            .unwrap_or_default()
            .is_empty()
    );
}

#[tokio::test]
async fn the_help_documents_the_timeout() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_pve-upgrade"));
    assert!(help.contains("--apply"), "{help}");
}

/// Against fakepve (run by `cargo xtask test`): its node status answers `pveversion: "fake"`
/// (a schema placeholder), so no node's version can be told, and its two nodes of one vote
/// each (`GET /cluster/config/nodes`) could not keep a quorum with one out: the plan is made,
/// and blocked, exit 1.
#[tokio::test]
async fn against_fakepve_unknown_versions_block_the_plan() {
    let Some(s) = pve::fakepve("against_fakepve_unknown_versions_block_the_plan").await else {
        return;
    };
    let token = format!("{}={}", s.pve.token_id, s.pve.token_secret);
    let ca = s.pve.ca_file.display().to_string();
    let out = run(&s.pve.url, &token, Some(&ca), NO_QDEVICE).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "cluster: 2 nodes, quorate",
            "BLOCKED: pve-ippri-31: version cannot be told (`fake`)",
            "BLOCKED: pve-ippri-31: with it out, 1 of 2 votes would not be a quorum (2)",
        ],
    );
    assert!(text.contains("step 1: pve-ippri-31"), "{text}");
}

/// `GET /cluster/ha/status/manager_status` as pve-ha-manager `src/PVE/API2/HA/Status.pm`
/// `manager_status` answers it: the CRM's status file (`master_node`, `node_status`,
/// `service_status`, `timestamp`: `HA/Manager.pm` `flush_master_status`; node states from
/// `HA/NodeStatus.pm`, service entries as `src/test/test-basic2/manager_status` holds them),
/// the quorum, and each node's LRM status (`HA/LRM.pm` `update_lrm_status`: `state`, `mode`,
/// `results`, `timestamp`). The CRM wrote at 1 765 000 000; `lrm` is pve3's.
fn manager_status(pve3_state: &str, services: Value, lrm: Value) -> Value {
    json!({
        "manager_status": {
            "master_node": "pve2",
            "node_status": {"pve1": "online", "pve2": "online", "pve3": pve3_state},
            "service_status": services,
            "timestamp": 1_765_000_000
        },
        "quorum": {"node": "pve1", "quorate": 1},
        "lrm_status": {
            "pve1": {"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000},
            "pve2": {"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000},
            "pve3": lrm
        }
    })
}

/// Each node's clock, 5 s after the CRM wrote (pve-manager `PVE/API2/Nodes.pm` `time`:
/// `time`, `localtime`, `timezone`).
async fn node_clocks(server: &MockServer) {
    for node in ["pve1", "pve2", "pve3"] {
        let time = json!({"timezone": "America/Sao_Paulo", "time": 1_765_000_005_i64,
                          "localtime": 1_764_989_205_i64});
        answer(server, &format!("nodes/{node}/time"), time).await;
    }
}

/// pve3's LRM, active in mode `active`, written when the CRM last wrote.
fn active_lrm() -> Value {
    json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000})
}

/// Runs `pve-upgrade --after pve3` in `cluster`, pve3 online with [`active_lrm`], the CRM's
/// status listing `services` and naming `master` its master.
async fn after_pve3(cluster: Cluster, master: &str, services: Value) -> std::process::Output {
    let mut status = manager_status("online", services, active_lrm());
    status["manager_status"]["master_node"] = json!(master);
    after_in(cluster, "pve3", status).await
}

/// The default cluster as the `--after` tests find it after pve3's step: VM 100 runs on pve3,
/// the top-priority node of its group `prefer-pve3` (pve-ha-manager `HA/Manager.pm`
/// `select_service_node` keeps a started service with failback on among its group's
/// top-priority online nodes, so no CRM holds it elsewhere while pve3 is online).
fn after_cluster() -> Cluster {
    Cluster {
        ha_groups: json!([
            {"group": "prefer-pve3", "type": "group", "nodes": "pve3:2,pve2:1"}
        ]),
        ha_resources: json!([
            {"sid": "vm:100", "type": "vm", "state": "started", "group": "prefer-pve3", "digest": "5f1e0c"},
            {"sid": "vm:103", "type": "vm", "state": "ignored", "digest": "5f1e0c"}
        ]),
        ..Cluster::default()
    }
}

/// [`after_cluster`] (pve3 on 9.0.3) with `status` as its HA manager status; runs
/// `pve-upgrade --after NODE`.
async fn after(node: &str, status: Value) -> std::process::Output {
    after_in(after_cluster(), node, status).await
}

/// [`after`] in `cluster`.
async fn after_in(cluster: Cluster, node: &str, status: Value) -> std::process::Output {
    after_at(cluster.serve().await, node, status).await
}

/// Runs `pve-upgrade --after NODE` against `server`, with the nodes' clocks and `status` as
/// its HA manager status.
async fn after_at(server: MockServer, node: &str, status: Value) -> std::process::Output {
    node_clocks(&server).await;
    answer(&server, "cluster/ha/status/manager_status", status).await;
    run(
        &server.uri(),
        "root@pam!ci=5ecr3t",
        None,
        &["--after", node],
    )
    .await
}

/// pve3 upgraded, out of maintenance, its LRM active and VM 100 back on it: every check
/// passes and the next step may start.
#[tokio::test]
async fn after_a_node_back_in_service_every_check_passes() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_764_999_995});
    let services = json!({"vm:100": {"node": "pve3", "state": "started", "uid": "lavE3c7vLnotUBGT9whswg", "running": 1}});
    let out = after("pve3", manager_status("online", services, lrm)).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &[
            "after pve3 (target 9.x):",
            "  ok          online: online",
            "  ok          release: pve-manager/9.0.3/025864202ebb6109",
            "  ok          quorum: quorate",
            "  ok          CRM node state: online",
            "  ok          LRM: active, state active",
            "  ok          HA resources: 1 on the node, none due back",
            "the step is done: the next node's step may start",
        ],
    );
}

/// pve3 rebooted on 9 but its node maintenance is still enabled: the CRM holds it in
/// `maintenance` (`HA/NodeStatus.pm`), its LRM runs in mode `maintenance` (`HA/LRM.pm`), and
/// VM 100 waits on pve2 with `maintenance_node` pve3 (`HA/Manager.pm` `next_state_started`
/// saves it and moves the service back only once the node is online again).
#[tokio::test]
async fn after_a_node_still_in_maintenance_the_step_is_not_done() {
    let lrm = json!({"state": "maintenance", "mode": "maintenance", "results": {}, "timestamp": 1_764_999_995});
    let services = json!({"vm:100": {"node": "pve2", "state": "started", "uid": "x3c7vLnotUBGT9whswgla", "maintenance_node": "pve3", "running": 1}});
    let out = after("pve3", manager_status("maintenance", services, lrm)).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  ok          release: pve-manager/9.0.3/025864202ebb6109",
            "  NOT YET     CRM node state: maintenance: run `ha-manager crm-command node-maintenance disable pve3` on the node",
            "  NOT YET     LRM: maintenance mode",
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
        ],
    );
    assert!(!text.contains("the step is done"), "{text}");
}

/// pve1 still runs 8.4, and pve3's LRM last wrote 50 s before the node's clock says:
/// `Status.pm` `timestamp_to_status` calls a status older than 30 s "old timestamp - dead?".
#[tokio::test]
async fn after_a_node_below_the_target_or_with_a_stale_lrm_the_step_is_not_done() {
    let stale =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_764_999_955});
    let status = manager_status("online", json!({}), stale);
    let text = common::stdout_of_exit(&after("pve1", status.clone()).await, 1);
    common::assert_has_lines(
        &text,
        &["  NOT YET     release: pve-manager/8.4.1/2a5fa54a8503f96d: below 9"],
    );
    let text = common::stdout_of_exit(&after("pve3", status).await, 1);
    common::assert_has_lines(&text, &["  NOT YET     LRM: its status is 50 s old: dead?"]);
}

/// The HA status needs Sys.Audit on `/` (`Status.pm` `manager_status`); without it each HA
/// check cannot tell, and the step is not said to be done.
#[tokio::test]
async fn after_with_the_ha_status_unread_the_ha_checks_cannot_tell() {
    let server = cluster_mid_upgrade().await;
    Mock::given(method("GET"))
        .and(path("/api2/json/cluster/ha/status/manager_status"))
        .respond_with(ResponseTemplate::new(403).set_body_json(
            json!({"data": null, "message": "Permission check failed (/, Sys.Audit)"}),
        ))
        .mount(&server)
        .await;
    let out = run(
        &server.uri(),
        "root@pam!ci=5ecr3t",
        None,
        &["--after", "pve3"],
    )
    .await;
    let text = common::stdout_of_exit(&out, 1);
    for check in ["CRM node state", "LRM", "HA resources"] {
        assert!(
            text.contains(&format!(
                "  CANNOT TELL {check}: GET /cluster/ha/status/manager_status"
            )),
            "{text}"
        );
    }
}

/// HA resources are configured but the CRM has written no status (`manager_status` `{}`, as
/// `HA/Config.pm` `read_manager_status` through `json_reader` gives for a missing file): not "nothing to do".
#[tokio::test]
async fn after_with_no_crm_status_but_ha_resources_it_cannot_tell() {
    let status = json!({"manager_status": {}, "quorum": {"node": "pve1", "quorate": 1}});
    let text = common::stdout_of_exit(&after("pve3", status).await, 1);
    common::assert_has_lines(
        &text,
        &["  CANNOT TELL LRM: HA resources are configured, but the CRM wrote no status"],
    );
}

/// After the last node's step every node runs 9, so the CRM should have migrated the HA
/// groups to rules; pve-ha-manager `src/PVE/HA/Manager.pm`
/// `assert_cluster_can_migrate_ha_groups` refuses while a node is not online or its LRM not
/// active in mode `active`, and the groups stay. The default cluster still has its group
/// `prefer-pve1`: not done; with none left (`GET /cluster/ha/groups` `[]`), done.
#[tokio::test]
async fn after_the_last_node_the_ha_groups_must_be_migrated() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_764_999_995});
    let vm100 = json!({"vm:100": {"node": "pve1", "state": "started", "uid": "b1", "running": 1}});
    let status = manager_status("online", vm100, lrm);
    // M2 (audit 31, fourth look): with no HA resource the idle CRM (`HA/CRM.pm`
    // `can_get_active`) migrates no group, and nothing needs it to.
    let no_resources = Some(json!([]));
    for (groups, resources, expected, code) in [
        (
            None,
            None,
            "  NOT YET     HA groups: not migrated yet: the CRM migrates them once every node is online with an active LRM in mode active; its log says why not (\"abort ha groups migration\")",
            1,
        ),
        (
            Some(json!([])),
            None,
            "  ok          HA groups: migrated to rules (none left)",
            0,
        ),
        (
            None,
            no_resources,
            "  ok          HA groups: left as they are: with no HA resource the CRM stays idle and migrates nothing",
            0,
        ),
    ] {
        let cluster = Cluster {
            ha_groups: groups.unwrap_or_else(|| Cluster::default().ha_groups),
            ha_resources: resources.unwrap_or_else(|| Cluster::default().ha_resources),
            ..Cluster::default()
        };
        let server = cluster.serve().await;
        for node in ["pve1", "pve2"] {
            // Mounted first and ahead of `serve`'s 8.4 answers: both nodes now run 9.
            Mock::given(method("GET"))
                .and(path(format!("/api2/json/nodes/{node}/status")))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": {
                    "pveversion": "pve-manager/9.0.3/025864202ebb6109", "kversion": "Linux 6.14.8-2-pve",
                    "uptime": 600, "cpu": 0.05, "loadavg": ["0.10", "0.12", "0.09"],
                    "memory": {"total": 68719476736_u64, "used": 8589934592_u64, "free": 60129542144_u64},
                    "rootfs": {"total": 100, "used": 10, "avail": 90, "free": 90}
                }})))
                .with_priority(1)
                .mount(&server)
                .await;
        }
        node_clocks(&server).await;
        answer(&server, "cluster/ha/status/manager_status", status.clone()).await;
        let out = run(
            &server.uri(),
            "root@pam!ci=5ecr3t",
            None,
            &["--after", "pve1"],
        )
        .await;
        let text = common::stdout_of_exit(&out, code);
        common::assert_has_lines(&text, &[expected]);
    }
}

/// M1 (audit 31, fourth look): a service keeps `maintenance_node` while stopped
/// (`HA/Manager.pm` `next_state_stopped` never clears it) and while its failback is off
/// (`select_service_node` keeps it where it is; `failback` 0, pve-ha-manager 5.x
/// `HA/Resources.pm`): neither is due back, so the step is done. But only a 5.x CRM reads
/// `failback`: mid-upgrade the CRM master may run 8.4, whose `select_service_node`
/// (pve-ha-manager 4.0.x, PVE 8.4) knows only a group's `nofailback`, so the service goes back.
/// The master is the status's `master_node`, its release its `pveversion`.
///
/// D1 (second review of the priority change): only a 9.x node shows `failback` (4.0.x
/// `HA/Resources.pm` has no such property, and pve-common `SectionConfig.pm` `parse_config`
/// skips it), so the cluster is answered by a 9.x node here, one with the rules API; answered
/// by the 8.4 node (a 501 for the rules), the failback of a 9.x master's service cannot be
/// told. Failed first: "stays on pve2 (failback off)" from an 8.4 node that shows none.
#[tokio::test]
async fn after_a_stopped_service_or_one_without_failback_is_not_due_back() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000});
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1},
        "vm:101": {"node": "pve2", "state": "stopped", "uid": "a2", "maintenance_node": "pve3"}
    });
    let cluster = || Cluster {
        ha_resources: json!([
            {"sid": "vm:100", "type": "vm", "state": "started", "failback": 0, "digest": "5f1e0c"},
            {"sid": "vm:101", "type": "vm", "state": "stopped", "digest": "5f1e0c"}
        ]),
        ha_rules: Some(json!([])),
        ..Cluster::default()
    };
    // pve3 runs 9.0.3 (`Cluster::serve`).
    let mut status = manager_status("online", services.clone(), lrm.clone());
    status["manager_status"]["master_node"] = json!("pve3");
    let out = after_in(cluster(), "pve3", status.clone()).await;
    common::assert_has_lines(
        &common::stdout_of_exit(&out, 0),
        &[
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (failback off), vm:101 stays on pve2 (stopped)",
        ],
    );
    let answered_by_8 = Cluster {
        ha_rules: None,
        ..cluster()
    };
    let out = after_in(answered_by_8, "pve3", status).await;
    common::assert_has_lines(
        &common::stdout_of_exit(&out, 1),
        &[
            "  CANNOT TELL HA resources: vm:100 on pve2: the node that answered runs PVE 8, whose HA resource list leaves out `failback`: point --after at a node that runs 9",
        ],
    );
    // pve2, the master of `manager_status`, runs 8.4.1.
    let out = after_in(cluster(), "pve3", manager_status("online", services, lrm)).await;
    common::assert_has_lines(
        &common::stdout_of_exit(&out, 1),
        &["  NOT YET     HA resources: vm:100 due back (on pve2, started)"],
    );
}

/// M1 on PVE 8.4 (pve-ha-manager 4.x): failback is off through the resource's group,
/// `nofailback` (`src/PVE/HA/Groups.pm`; `HA/Manager.pm` `select_service_node` keeps the
/// service where it is), and on without it. A PVE 9 node takes the resources' `failback` while
/// the groups are not migrated, but the HA manager sets a grouped resource's from its group
/// (pve-ha-manager 5.x `src/PVE/HA/Manager.pm` runs `Groups.pm`
/// `migrate_groups_to_resources`): the resource's own `failback`, the opposite each time, is
/// overridden.
#[tokio::test]
async fn after_a_service_whose_group_has_nofailback_is_not_due_back() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    for (nofailback, expected, code) in [
        (
            1,
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (failback off)",
            0,
        ),
        (
            0,
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
            1,
        ),
    ] {
        let cluster = Cluster {
            ha_groups: json!([
                {"group": "prefer-pve3", "type": "group", "nodes": "pve3:2,pve2:1", "nofailback": nofailback}
            ]),
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "group": "prefer-pve3",
                 "failback": nofailback, "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve2", services.clone()).await;
        common::assert_has_lines(&common::stdout_of_exit(&out, code), &[expected]);
    }
}

/// D3 (review of the failback change): with failback on, pve-ha-manager's
/// `select_service_node` (4.0.x on PVE 8, `src/PVE/HA/Manager.pm`, `get_node_priority_groups`)
/// returns the service to its `maintenance_node` only when that node is among the top-priority
/// online nodes of its group; otherwise it keeps it on its current node, a top one, and the
/// `maintenance_node` stays set. Here vm:100's group was changed while pve3 was away: at
/// `pve2:2,pve3:1` it stays on pve2, at `pve2:1,pve3:1` it goes back. The CRM master, pve2,
/// runs 8.4. Failed first: "vm:100 due back" for both.
#[tokio::test]
async fn after_a_service_whose_group_prefers_another_node_is_not_due_back() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    for (nodes, expected, code) in [
        (
            "pve2:2,pve3:1",
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (pve3 is not among its top-priority nodes in group db: pve2)",
            0,
        ),
        (
            "pve2:1,pve3:1",
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
            1,
        ),
    ] {
        let cluster = Cluster {
            ha_groups: json!([{"group": "db", "type": "group", "nodes": nodes}]),
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "group": "db", "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve2", services.clone()).await;
        common::assert_has_lines(&common::stdout_of_exit(&out, code), &[expected]);
    }
}

/// D3 on a 9.x CRM master (pve3; pve-ha-manager 5.x `select_service_node` through
/// `HA/Rules/NodeAffinity.pm` `get_node_affinity`): a strict node-affinity rule naming pve1
/// and pve2 keeps vm:100 off pve3; disabled (`HA/Rules.pm` `foreach_rule` skips it) it places
/// nothing, and vm:100 goes back. The rules index lists each rule as
/// `src/PVE/API2/HA/Rules.pm` `$get_api_ha_rule` writes it (`strict` and `disable` only when
/// set). With no rules API on the answering node (8.4, a 501) and no group left, a rule may
/// exist that it cannot show (`API2/HA/Rules.pm` `create` takes rules once no group is left):
/// cannot tell.
#[tokio::test]
async fn after_a_service_kept_off_the_node_by_a_rule_is_not_due_back() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    let rule = json!({"rule": "db-apart-from-pve3", "type": "node-affinity", "resources": "vm:100",
                      "nodes": "pve1,pve2", "strict": 1, "digest": "9a0c1e", "order": 1});
    let mut disabled = rule.clone();
    disabled["disable"] = json!(1);
    for (rules, expected, code) in [
        (
            Some(json!([rule])),
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (pve3 is not among its top-priority nodes in rule db-apart-from-pve3: pve1, pve2)",
            0,
        ),
        (
            Some(json!([disabled])),
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
            1,
        ),
        (
            None,
            "  CANNOT TELL HA resources: vm:100 on pve2: the node that answered has no HA rules API (PVE 8) and no HA group is left, so a rule may place it: point --after at a node that runs 9",
            1,
        ),
    ] {
        let cluster = Cluster {
            ha_groups: json!([]),
            ha_rules: rules,
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve3", services.clone()).await;
        common::assert_has_lines(&common::stdout_of_exit(&out, code), &[expected]);
    }
}

/// D1 (review of the priority change): pve-ha-manager `HA/Manager.pm` `$change_service_state`
/// keeps `maintenance_node` through every state, so a service migrating onto the node (a user's
/// `ha-manager migrate`, 5.x's rebalancing) still names it, and so does one frozen on it. Both
/// are still happening on the node: not done. Failed first: "stays on pve2 (migrate)", "stays
/// on pve3 (freeze)", and a pass. S4 (second review): a move the CRM has queued as `cmd`
/// (`HA/Manager.pm` `execute_migration`: `[task, target]`) is on its way too. Failed first:
/// vm:102 unlisted.
#[tokio::test]
async fn after_a_move_onto_the_node_is_not_hidden_by_its_maintenance_node() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "migrate", "target": "pve3", "uid": "a1",
                   "maintenance_node": "pve3", "running": 1},
        "vm:101": {"node": "pve3", "state": "freeze", "uid": "a2", "maintenance_node": "pve3"},
        "vm:102": {"node": "pve2", "state": "started", "uid": "a3", "cmd": ["migrate", "pve3"]}
    });
    let out = after_pve3(after_cluster(), "pve2", services).await;
    common::assert_has_lines(
        &common::stdout_of_exit(&out, 1),
        &[
            "  NOT YET     HA resources: vm:100 moving here (migrate), vm:101 freeze, vm:102 to move here (migrate queued, started)",
        ],
    );
}

/// D2 (review of the priority change): with failback off, 5.x `select_service_node` keeps a
/// service where it is only on a node its placement allows and its resource affinity allows
/// (`Rules/ResourceAffinity.pm` `is_allowed_on_node`: no negative partner there, `HA/Usage.pm`
/// `get_used_service_nodes`); otherwise it picks anew, its maintenance node first. vm:100
/// (failback 0) sits on pve2, which its strict rule no longer names: it goes back to pve3.
/// Kept apart from vm:101, it goes back while vm:101 runs on pve2 and stays while it runs on
/// pve1. The CRM master, pve3, runs 9. Failed first: "stays on pve2 (failback off)", then
/// "cannot tell" for both resource-affinity cases.
#[tokio::test]
async fn after_failback_off_keeps_a_service_only_where_it_may_run() {
    let on = |node: &str| {
        json!({
            "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1},
            "vm:101": {"node": node, "state": "started", "uid": "b1", "running": 1}
        })
    };
    let strict = json!({"rule": "db-on-1-or-3", "type": "node-affinity", "resources": "vm:100",
                        "nodes": "pve1,pve3", "strict": 1, "digest": "9a0c1e", "order": 1});
    let apart = json!({"rule": "db-apart", "type": "resource-affinity", "resources": "vm:100,vm:101",
                       "affinity": "negative", "digest": "9a0c1e", "order": 1});
    for (rule, services, expected, code) in [
        (
            strict,
            on("pve1"),
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
            1,
        ),
        (
            apart.clone(),
            on("pve2"),
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
            1,
        ),
        (
            apart,
            on("pve1"),
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (failback off)",
            0,
        ),
    ] {
        let cluster = Cluster {
            ha_groups: json!([]),
            ha_rules: Some(json!([rule])),
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "failback": 0, "digest": "5f1e0c"},
                {"sid": "vm:101", "type": "vm", "state": "started", "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve3", services).await;
        common::assert_has_lines(&common::stdout_of_exit(&out, code), &[expected]);
    }
}

/// A resource-affinity rule (pve-ha-manager `src/PVE/API2/HA/Rules.pm` `index`).
fn affinity_rule(id: &str, resources: &str, affinity: &str) -> Value {
    json!({"rule": id, "type": "resource-affinity", "resources": resources,
           "affinity": affinity, "digest": "9a0c1e", "order": 1})
}

/// The CRM's `service_status`: vm:100 on pve2, pve3 its maintenance node, beside `partners`.
fn vm100_away_with(partners: &[(&str, Value)]) -> Value {
    let mut services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    for (sid, status) in partners {
        services[*sid] = status.clone();
    }
    services
}

/// A service the CRM holds started on `node`.
fn started_on(node: &str) -> Value {
    json!({"node": node, "state": "started", "uid": "b1", "running": 1})
}

/// The HA line of `--after pve3` when vm:100 stays on pve2, with `here` services on pve3.
fn stays(here: usize, why: &str) -> String {
    format!(
        "  ok          HA resources: {here} on the node, none due back; vm:100 stays on pve2 ({why})"
    )
}

/// Runs `--after pve3` under a 9.x CRM master (pve3) with `rules` and `services`, vm:100 and
/// vm:101 configured with failback on, and asserts the HA line and the exit code.
async fn assert_after_with_rules(rules: Value, services: Value, expected: &str, code: i32) {
    let cluster = Cluster {
        ha_groups: json!([]),
        ha_rules: Some(rules),
        ha_resources: json!([
            {"sid": "vm:100", "type": "vm", "state": "started", "digest": "5f1e0c"},
            {"sid": "vm:101", "type": "vm", "state": "started", "digest": "5f1e0c"}
        ]),
        ..Cluster::default()
    };
    let out = after_pve3(cluster, "pve3", services).await;
    common::assert_has_lines(&common::stdout_of_exit(&out, code), &[expected]);
}

/// A service stopped (or stopping) whose configured state is `started` is started again
/// through `request_start` (pve-ha-manager `HA/Manager.pm` `next_state_stopped`), where with
/// the CRS option `ha-rebalance-on-start` `next_state_request_start` places it by
/// `select_service_node(..., 'best-score')`, which skips the failback-off stay: its
/// maintenance node may take it. The option is not read, so that "stays" cannot be told.
/// Failed first: "stays on pve2 (failback off)".
#[tokio::test]
async fn after_failback_off_a_service_being_started_may_come_back() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "stopped", "uid": "a1", "maintenance_node": "pve3"}
    });
    let cluster = Cluster {
        ha_groups: json!([]),
        ha_rules: Some(json!([])),
        ha_resources: json!([
            {"sid": "vm:100", "type": "vm", "state": "started", "failback": 0, "digest": "5f1e0c"}
        ]),
        ..Cluster::default()
    };
    let out = after_pve3(cluster, "pve3", services).await;
    common::assert_has_lines(
        &common::stdout_of_exit(&out, 1),
        &[
            "  CANNOT TELL HA resources: vm:100 on pve2: it is being started, and with the CRS option ha-rebalance-on-start the CRM may place it on pve3",
        ],
    );
}

/// With failback on, a 5.x CRM master sends vm:100 back to pve3 only if pve3 is still among
/// its top-priority nodes once resource affinity has narrowed them (pve-ha-manager
/// `HA/Manager.pm` `select_service_node`: `apply_negative_resource_affinity`, then
/// `apply_positive_resource_affinity`, keeping the node most positive partners use). A
/// positive partner on its way elsewhere counts differently across 5.x releases (4826ee8,
/// bug 6801). Failed first: each "due back".
#[tokio::test]
async fn after_resource_affinity_may_keep_a_service_away() {
    let pair = "vm:100,vm:101";
    let moving = json!({"node": "pve1", "state": "migrate", "target": "pve2", "uid": "b1"});
    for (rule, partner, expected, code) in [
        (
            affinity_rule("apart", pair, "negative"),
            started_on("pve3"),
            stays(1, "a service it is kept apart from uses pve3"),
            0,
        ),
        (
            affinity_rule("together", pair, "positive"),
            started_on("pve1"),
            stays(0, "its positive resource-affinity partners run on pve1"),
            0,
        ),
        (
            affinity_rule("together", pair, "positive"),
            started_on("pve3"),
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)".to_owned(),
            1,
        ),
        (
            affinity_rule("together", pair, "positive"),
            moving,
            "  CANNOT TELL HA resources: vm:100 on pve2: its positive resource-affinity partner vm:101 is moving".to_owned(),
            1,
        ),
    ] {
        let services = vm100_away_with(&[("vm:101", partner)]);
        assert_after_with_rules(json!([rule]), services, &expected, code).await;
    }
}

/// The rules as a 5.x CRM transforms them before it weighs them (`HA/Rules.pm` `transform`):
/// a positive set takes a member's node-affinity rule
/// (`create_implicit_positive_resource_affinity_node_affinity_rules`), is kept apart from each
/// member's negative partners (`HA/Rules/ResourceAffinity.pm`
/// `create_implicit_negative_resource_affinity_rules`), and positive rules sharing a resource
/// are one set (`merge_connected_positive_resource_affinity_rules`). The order of the two
/// narrowings changed in 5.0.5 (9ff6a5e). Failed first: each "due back".
#[tokio::test]
async fn after_resource_affinity_is_weighed_on_the_transformed_rules() {
    let together = affinity_rule("together", "vm:100,vm:101", "positive");
    let prefer_pve1 = json!({"rule": "web-on-pve1", "type": "node-affinity", "resources": "vm:101",
                             "nodes": "pve1:2,pve3:1", "digest": "9a0c1e", "order": 2});
    let stopped = json!({"node": "pve1", "state": "stopped", "uid": "b1"});
    for (rules, partners, expected, code) in [
        (
            json!([together, prefer_pve1]),
            vec![("vm:101", stopped.clone())],
            stays(0, "pve3 is not among its top-priority nodes in rule web-on-pve1: pve1"),
            0,
        ),
        (
            json!([together, affinity_rule("apart", "vm:101,vm:102", "negative")]),
            vec![("vm:101", stopped.clone()), ("vm:102", started_on("pve3"))],
            stays(1, "a service it is kept apart from uses pve3"),
            0,
        ),
        (
            json!([together, affinity_rule("also", "vm:101,vm:102", "positive")]),
            vec![("vm:101", stopped.clone()), ("vm:102", started_on("pve1"))],
            stays(0, "its positive resource-affinity partners run on pve1"),
            0,
        ),
        // Merged, {100,101,102} holds both sides of a negative rule: 5.0.7 and later drop all
        // three rules (`check_inter_resource_affinity_rules_consistency` on merged sets,
        // e79f4b4), earlier releases apply them.
        (
            json!([
                together,
                affinity_rule("also", "vm:101,vm:102", "positive"),
                affinity_rule("apart", "vm:100,vm:102", "negative")
            ]),
            vec![("vm:101", stopped.clone()), ("vm:102", started_on("pve3"))],
            "  CANNOT TELL HA resources: vm:100 on pve2: its resource-affinity rules conflict once merged, which pve-ha-manager 5.0.7 and later drop and earlier releases apply".to_owned(),
            1,
        ),
        // 5.0.5 takes vm:103's pve1 out first, then keeps vm:102's pve3; up to 5.0.4 (PVE 9.0)
        // the majority came first: pve1 (a tie, by name), then nothing was left.
        (
            json!([
                together,
                affinity_rule("also", "vm:101,vm:102", "positive"),
                affinity_rule("apart", "vm:100,vm:103", "negative")
            ]),
            vec![
                ("vm:101", started_on("pve1")),
                ("vm:102", started_on("pve3")),
                ("vm:103", started_on("pve1")),
            ],
            "  CANNOT TELL HA resources: vm:100 on pve2: whether its resource affinity lets it back depends on the CRM master's pve-ha-manager (5.0.4 and earlier weigh positive partners first)".to_owned(),
            1,
        ),
    ] {
        assert_after_with_rules(rules, vm100_away_with(&partners), &expected, code).await;
    }
}

/// D2 (second review of the priority change): `$change_service_state` keeps
/// `maintenance_node` through every state, and each way back to `started` ends in
/// pve-ha-manager `HA/Manager.pm` `next_state_started`, which may send the service back: after
/// a `migrate` to pve1 (`next_state_migrate_relocate`: `started` on the target), after a
/// `freeze`, and for a service `stopped` whose configured state is `started` (it is started
/// again); `recovery` picks anew, its maintenance node first (`next_state_recovery`). A service
/// configured `stopped` stays. vm:100's group `prefer-pve3` puts pve3 first. Failed first:
/// each "stays", and a pass.
#[tokio::test]
async fn after_a_service_on_its_way_elsewhere_may_still_come_back() {
    for (service, configured, expected, code) in [
        (
            json!({"node": "pve2", "state": "migrate", "target": "pve1", "maintenance_node": "pve3"}),
            "started",
            "  NOT YET     HA resources: vm:100 due back (migrate to pve1)",
            1,
        ),
        (
            json!({"node": "pve2", "state": "freeze", "maintenance_node": "pve3"}),
            "started",
            "  NOT YET     HA resources: vm:100 due back (on pve2, freeze)",
            1,
        ),
        (
            json!({"node": "pve2", "state": "stopped", "maintenance_node": "pve3"}),
            "started",
            "  NOT YET     HA resources: vm:100 due back (on pve2, stopped)",
            1,
        ),
        // `next_state_request_stop`, then `next_state_stopped`: started again when configured so.
        (
            json!({"node": "pve2", "state": "request_stop", "maintenance_node": "pve3"}),
            "started",
            "  NOT YET     HA resources: vm:100 due back (on pve2, request_stop)",
            1,
        ),
        // `HA/Config.pm` `read_and_check_resources_config`: `enabled` is read as `started`.
        (
            json!({"node": "pve2", "state": "stopped", "maintenance_node": "pve3"}),
            "enabled",
            "  NOT YET     HA resources: vm:100 due back (on pve2, stopped)",
            1,
        ),
        (
            json!({"node": "pve2", "state": "recovery", "maintenance_node": "pve3"}),
            "started",
            "  NOT YET     HA resources: vm:100 recovery on pve2: it may be placed here",
            1,
        ),
        (
            json!({"node": "pve2", "state": "stopped", "maintenance_node": "pve3"}),
            "stopped",
            "  ok          HA resources: 0 on the node, none due back; vm:100 stays on pve2 (stopped)",
            0,
        ),
    ] {
        let mut cluster = after_cluster();
        cluster.ha_resources[0]["state"] = json!(configured);
        let out = after_pve3(cluster, "pve2", json!({"vm:100": service})).await;
        let text = common::stdout_of_exit(&out, code);
        common::assert_has_lines(&text, &[expected]);
    }
}

/// With the CRM master's release unknown (its `GET /nodes/pve9/status` fails), where vm:100
/// belongs is told only where a 4.0.x master (PVE 8, groups only: `get_service_group`) and a
/// 5.x one (PVE 9, node-affinity rules: `Rules/NodeAffinity.pm` `get_node_affinity`) agree:
/// with no rule both place it anywhere, pve3 first among equals, and it is due back; with a
/// strict rule naming pve1 and pve2 only a 5.x master keeps it off pve3: cannot tell.
#[tokio::test]
async fn after_with_the_masters_release_unknown_only_an_agreed_placement_counts() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    let strict = json!({"rule": "db-off-pve3", "type": "node-affinity", "resources": "vm:100",
                        "nodes": "pve1,pve2", "strict": 1, "digest": "9a0c1e", "order": 1});
    for (rules, expected) in [
        (
            json!([]),
            "  NOT YET     HA resources: vm:100 due back (on pve2, started)",
        ),
        (
            json!([strict]),
            "  CANNOT TELL HA resources: vm:100 on pve2: where it belongs depends on the CRM's release: the release of the CRM master pve9: ",
        ),
    ] {
        let cluster = Cluster {
            ha_groups: json!([]),
            ha_rules: Some(rules),
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve9", services.clone()).await;
        let text = common::stdout_of_exit(&out, 1);
        let line = text.lines().find(|l| l.contains("HA resources:")).unwrap();
        assert!(line.starts_with(expected), "{text}");
    }
}

/// D4 (review of the priority change): an 8.x node shows no rules (a 501), and while groups
/// exist the group places the service. But 8.x's `API2/HA/Groups.pm` `create` takes a group
/// after a 9.x node took a rule for the same resource, and a 9.x CRM then drops both
/// (`HA/Rules.pm` `check_single_resource_reference`): under a 9.x master a "stays" read from
/// the group alone cannot be trusted. Failed first: "stays on pve2 (pve3 is not among …)".
/// D3 (second review): with the group's `nofailback` the "stays" is as doubtful, since an
/// unseen resource-affinity rule may rule pve2 out (5.x `select_service_node`,
/// `is_allowed_on_node`). Failed first: "stays on pve2 (failback off)".
#[tokio::test]
async fn after_a_stay_read_from_an_8x_node_under_a_9x_master_cannot_tell() {
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    for nofailback in [0, 1] {
        let cluster = Cluster {
            ha_groups: json!([{"group": "db", "type": "group", "nodes": "pve2:2,pve3:1",
                               "nofailback": nofailback}]),
            ha_resources: json!([
                {"sid": "vm:100", "type": "vm", "state": "started", "group": "db", "digest": "5f1e0c"}
            ]),
            ..Cluster::default()
        };
        let out = after_pve3(cluster, "pve3", services.clone()).await;
        common::assert_has_lines(
            &common::stdout_of_exit(&out, 1),
            &[
                "  CANNOT TELL HA resources: vm:100 on pve2: the node that answered has no HA rules API (PVE 8), so a rule the CRM may place it by cannot be seen: point --after at a node that runs 9",
            ],
        );
    }
}

/// Every index of pve-ha-manager's `API2/HA` answers an array; an answer that is not one (here
/// `{"data": null}`) is no list of HA resources, and says nothing of whether any is
/// configured. Failed first: "no HA resource is configured", a pass.
#[tokio::test]
async fn after_an_ha_resource_answer_that_is_no_list_cannot_tell() {
    let cluster = Cluster {
        ha_resources: json!(null),
        ..after_cluster()
    };
    let out = after_pve3(cluster, "pve2", json!({})).await;
    let text = common::stdout_of_exit(&out, 1);
    let line = text.lines().find(|l| l.contains("HA resources:")).unwrap();
    assert!(
        line.starts_with("  CANNOT TELL HA resources: the CRM lists no service, and the HA resources could not be read: GET /cluster/ha/resources: not a list"),
        "{text}"
    );
}

/// M3 (audit 31, fourth look): `Status.pm` `timestamp_to_status` judges every status by the
/// node's clock, the CRM's too; a CRM that last wrote 105 s ago is not active, and its node
/// and service states are old: nothing of them is taken for done.
#[tokio::test]
async fn after_an_old_crm_status_is_not_taken_for_done() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000});
    let mut status = manager_status("online", json!({}), lrm);
    status["manager_status"]["timestamp"] = json!(1_764_999_900);
    let text = common::stdout_of_exit(&after("pve3", status).await, 1);
    for check in ["CRM node state", "LRM", "HA resources"] {
        let line =
            format!("  NOT YET     {check}: the CRM's status is 105 s old: no CRM is active");
        assert!(text.contains(&line), "{line} in\n{text}");
    }
}

/// M2 (audit 31, fourth look): with no HA resource the CRM is idle (`HA/CRM.pm`
/// `can_get_active`) and writes no new status: its old one says nothing of the node, and the
/// HA checks pass.
#[tokio::test]
async fn after_with_no_ha_resource_an_idle_crm_is_not_a_failure() {
    let lrm = json!({"state": "wait_for_agent_lock", "mode": "active", "results": {}, "timestamp": 1_764_990_000});
    let mut status = manager_status("online", json!({}), lrm);
    status["manager_status"]["timestamp"] = json!(1_764_990_000);
    let cluster = Cluster {
        ha_resources: json!([]),
        ..Cluster::default()
    };
    let text = common::stdout_of_exit(&after_in(cluster, "pve3", status).await, 0);
    common::assert_has_lines(
        &text,
        &[
            "  ok          CRM node state: no HA resource is configured",
            "  ok          HA resources: no HA resource is configured",
        ],
    );
}

/// A service frozen for the reboot (`HA/Manager.pm`: `freeze` until the CRM sees the node's
/// LRM in mode `active` again, then `started` or `request_stop`) is not running yet: the step
/// is not done while the CRM still holds it frozen.
#[tokio::test]
async fn after_a_service_still_frozen_on_the_node_the_step_is_not_done() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000});
    let services = json!({"vm:100": {"node": "pve3", "state": "freeze", "uid": "f1"}});
    let out = after("pve3", manager_status("online", services, lrm)).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(&text, &["  NOT YET     HA resources: vm:100 freeze"]);
}

/// HA resources are configured (vm:100 started, vm:103 `ignored`, which the CRM drops), but
/// the CRM's service status is empty: it has not taken vm:100 up yet (`Status.pm` shows such a
/// service `queued`), so nothing is known of where it is, and the step is not said to be done
/// on that.
#[tokio::test]
async fn after_an_empty_service_status_beside_configured_resources_cannot_tell() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000});
    let out = after("pve3", manager_status("online", json!({}), lrm)).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &["  CANNOT TELL HA resources: the CRM lists none of the configured HA resources (1)"],
    );
}

/// Runs `pve-upgrade --after NODE` against the default cluster whose `GET /api2/json/PATH`
/// answers `403 Permission check failed` (pve-access-control's refusal, as
/// pve-http-server `src/PVE/APIServer/Formatter/Standard.pm` writes it) ahead of its answer.
async fn after_refused(path_refused: &str, node: &str, status: Value) -> std::process::Output {
    let server = after_cluster().serve().await;
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{path_refused}")))
        .respond_with(ResponseTemplate::new(403).set_body_json(
            json!({"data": null, "message": "Permission check failed (/, Sys.Audit)"}),
        ))
        .with_priority(1)
        .mount(&server)
        .await;
    after_at(server, node, status).await
}

/// D2 (review of the failback change): vm:100 is in group `prefer-pve3`, whose `nofailback`
/// decides whether it goes back to pve3 (pve-ha-manager `src/PVE/HA/Groups.pm`
/// `migrate_groups_to_resources`; 4.0.x `select_service_node`). With the group list refused
/// (`src/PVE/API2/HA/Groups.pm` `index` needs `Sys.Audit` on `/`), that is "cannot tell",
/// not "due back". S3: with the resource list refused and no service in the CRM's status,
/// nothing says the node holds none: "cannot tell", not a pass.
#[tokio::test]
async fn after_unread_groups_or_resources_are_cannot_tell() {
    let lrm =
        json!({"state": "active", "mode": "active", "results": {}, "timestamp": 1_765_000_000});
    let services = json!({
        "vm:100": {"node": "pve2", "state": "started", "uid": "a1", "maintenance_node": "pve3", "running": 1}
    });
    let status = manager_status("online", services, lrm.clone());
    let out = after_refused("cluster/ha/groups", "pve3", status).await;
    let text = common::stdout_of_exit(&out, 1);
    let line = text.lines().find(|l| l.contains("HA resources:")).unwrap();
    assert!(
        line.starts_with("  CANNOT TELL HA resources: vm:100 on pve2: its group prefer-pve3 decides whether it goes back, and the groups could not be read (GET /cluster/ha/groups: "),
        "{text}"
    );

    let status = manager_status("online", json!({}), lrm);
    let out = after_refused("cluster/ha/resources", "pve3", status).await;
    let text = common::stdout_of_exit(&out, 1);
    let line = text.lines().find(|l| l.contains("HA resources:")).unwrap();
    assert!(
        line.starts_with("  CANNOT TELL HA resources: the CRM lists no service, and the HA resources could not be read: "),
        "{text}"
    );
}
