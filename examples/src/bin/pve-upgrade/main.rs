//! `pve-upgrade`: the plan of a rolling PVE major upgrade (8 → 9 by default), node by node.
//!
//! ```console
//! PROXMOX_VE_ENDPOINT=https://pve1:8006/ PROXMOX_VE_API_TOKEN='upgrade-plan@pve!ro=…' \
//!     cargo run -p cpps-examples --bin pve-upgrade -- --timeout 30
//! ```
//!
//! The token needs a custom role, not PVEAuditor: `VM.Audit` (the guests), `Sys.Audit` (node
//! status, cluster and HA state) and `VM.Migrate`, which `GET /nodes/{node}/qemu/{vmid}/migrate`
//! checks on `/vms/{vmid}` (qemu-server `PVE/API2/Qemu.pm` `migrate_vm_precondition`) and
//! which pve-access-control `src/PVE/AccessControl.pm` puts in the admin roles only. Without it
//! every running HA VM is "cannot tell" and the plan exits 1. For instance:
//! `pveum role add UpgradePlan --privs "VM.Audit,VM.Migrate,Sys.Audit"`, then
//! `pveum acl modify / --tokens 'upgrade-plan@pve!ro' --roles UpgradePlan` (with privilege
//! separation the user needs the same role). That GET changes nothing, but the role lets
//! the token migrate guests: keep it for this plan.
//!
//! Configured as `inventory` is (`PROXMOX_VE_ENDPOINT`, `PROXMOX_VE_API_TOKEN` or user and
//! password, and the TLS variables). It reads the version of every node
//! (`GET /nodes/{node}/status`, `pveversion`), the quorum (`GET /cluster/status`), the votes
//! (`GET /cluster/config/nodes`, corosync's `quorum_votes`, and `GET /cluster/config/qdevice`:
//! pve-cluster `src/PVE/API2/ClusterConfig.pm`; the QDevice's configured votes, which no API
//! path shows, from `--qdevice-votes`), the HA stack's arm state
//! (`GET /cluster/ha/status/current`, its `fencing` entry), the HA
//! group→rule migration state (`GET /cluster/ha/groups`: pve-ha-manager `HA/Config.pm`
//! `have_groups_been_migrated`; the CRM migrates the groups once every node runs 9, is online,
//! and has an LRM active or idle in mode `active`, `HA/Manager.pm`
//! `assert_cluster_can_migrate_ha_groups`), the rules on 9 (`GET /cluster/ha/rules`; an 8.x node has none to show,
//! so while a node runs 9 and no group is left, which is when a 9.x node takes rules, the
//! plan asks to be pointed at a 9.x node instead of guessing) and the guests
//! (`GET /cluster/resources?type=vm`, whole only with `VM.Audit` on `/vms`:
//! `GET /access/permissions?path=/vms`, else the plan is blocked), then prints, for each node still below the target
//! release: the quorum with that node out (its votes against corosync's expected votes, a
//! QDevice's vote included), node maintenance, the guests that will move (HA resources, moved
//! by the HA stack), those HA will not move (a service in CRM state `error`; every one while
//! the HA stack is disarmed, when the CRM ignores node maintenance: pve-ha-manager
//! `src/PVE/HA/Manager.pm`; one that a strict node-affinity rule, its own or its positive
//! resource-affinity set's, or a restricted group keeps on the node, `GET /cluster/ha/rules`, `/cluster/ha/groups`, `/cluster/ha/resources`; a
//! running VM with local devices or mapped devices not live-migratable, or with no other
//! allowed node, `GET /nodes/{node}/qemu/{vmid}/migrate`) and those that must be moved or
//! stopped by hand, the upgrade and reboot, and the checks after it.
//!
//! It is a plan: nothing is changed. `--apply` is refused before anything is sent, because
//! node maintenance has no API endpoint: `ha-manager crm-command node-maintenance enable|disable`
//! is a method of the command-line handler only (pve-ha-manager `src/PVE/CLI/ha_manager.pm`,
//! `node-maintenance-set`, which queues the CRM command on the node itself; no such path is in
//! the API schema), and the package upgrade runs on the node.
//!
//! `--after NODE` checks, instead of planning, that NODE's step is done before the next node's
//! starts: the node online and on the target release, the cluster quorate, and the HA stack
//! holding the node `online` with an active LRM and no HA resource still due back to it or
//! failed on it (see `after.rs` for the upstream sources).
//!
//! Every run ends within `--timeout` seconds (default 30): the client's deadline.
//!
//! Exit status: 0 the plan was made and nothing blocks it (or every node already runs the
//! target), or with `--after` every check passed; 1 the plan was made but something blocks a
//! step (a node offline or of unknown version, a quorum that would be lost, a part that could
//! not be read), or with `--after` a check is not yet passed or cannot tell; 2 no plan could be
//! made (configuration, nothing answered), or `--apply` was asked for.

mod affinity;
mod after;

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_proxmox::types::{
    ClusterResource, ClusterStatusEntry, ClusterStatusType, HaStatusType, NodeListItem, NodeState,
    ResourceFilter, ResourceType,
};
use cpps_proxmox::{Client, ClientBuilder};
use serde::Serialize;
use serde_json::Value;

/// The plan of a rolling PVE major upgrade of the cluster in PROXMOX_VE_ENDPOINT.
///
/// Exit status: 0 plan made, nothing blocks it (--after: every check passed); 1 plan made, a
/// step is blocked or a part could not be read (--after: a check did not pass); 2 no plan
/// (configuration, no answer), or --apply asked for.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The longest the whole run may take, in seconds: the client's deadline.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// The major release to upgrade to.
    #[arg(long, default_value_t = 9)]
    target: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Carry the plan out. Refused: node maintenance has no API endpoint (see the docs).
    #[arg(long)]
    apply: bool,
    /// The QDevice's votes, as corosync.conf's `quorum.device.votes` says (0: no QDevice).
    /// No API path shows that section, and `GET /cluster/config/qdevice` answers `{}` on a
    /// node without a running corosync-qdevice whether or not one is configured; without this
    /// value such an answer leaves the quorum of every step "cannot tell".
    #[arg(long, value_name = "VOTES")]
    qdevice_votes: Option<u64>,
    /// Check that NODE's step is done (online, on the target release, quorum, HA took it
    /// back) instead of planning.
    #[arg(long, value_name = "NODE")]
    after: Option<String>,
}

/// One node as the plan sees it.
#[derive(Debug, Serialize)]
struct NodePlan {
    node: String,
    online: bool,
    /// `pve-manager/9.0.3/…` as the node reports it, or why it could not be read.
    pveversion: Result<String, String>,
    /// The major release, when the version could be read and parsed.
    major: Option<u64>,
    /// HA resources on the node: the HA stack moves them when maintenance is enabled.
    ha_guests: Vec<u32>,
    /// HA resources on the node the HA stack will not move, with why.
    ha_stuck: Vec<(u32, String)>,
    /// HA resources on the node whose move cannot be told, with why.
    ha_unsure: Vec<(u32, String)>,
    /// The node's corosync votes, when the node list was read and names it.
    votes: Option<u64>,
    /// Running guests not managed by HA: to migrate or shut down by hand.
    manual_guests: Vec<u32>,
}

/// The whole plan.
#[derive(Debug, Serialize)]
struct Plan {
    target: u64,
    quorate: Option<bool>,
    nodes_total: usize,
    ha_groups_migrated: Result<bool, String>,
    /// The HA rules, `None` while no node runs 9.
    ha_rules: Option<RulesSeen>,
    nodes: Vec<NodePlan>,
    /// The HA stack's `armed-state` and resource mode when it is not armed, or why it could
    /// not be read; `None` when armed (or idle).
    ha_disarmed: Option<Result<String, String>>,
    /// The QDevice, `None` without one, or why it cannot be counted.
    qdevice: Option<Result<QDevice, String>>,
    /// Why a step cannot be taken, one line each.
    blockers: Vec<String>,
}

/// What `GET /cluster/ha/rules` showed.
#[derive(Debug, Serialize)]
enum RulesSeen {
    /// The number of rules the index lists, and how many of them it generated from HA groups
    /// not migrated yet (see [`ha_rules_seen`]).
    Count {
        /// Every rule listed.
        rules: usize,
        /// Those generated from groups (`ha-group-NAME`), which rules.cfg does not hold.
        from_groups: usize,
    },
    /// The node that answered has no rules API (see [`no_rules_api`]): the HA groups decide.
    NotServed,
    /// The list could not be read.
    Unread(String),
}

/// Whether `GET /cluster/ha/rules` failed because the node that answered has no rules API, as
/// on PVE 8 (pve-manager `PVE/API2/HAConfig.pm` mounts `rules` from PVE 9 on, with
/// pve-ha-manager 5.0.1's `src/PVE/API2/HA/Rules.pm`): pve-http-server
/// `src/PVE/APIServer/AnyEvent.pm` `rest_handler` answers a path with no handler 501
/// "Method '…' not implemented"; a 404 is taken the same way. There the HA groups decide.
fn no_rules_api(e: &cpps_proxmox::Error) -> bool {
    e.is_not_found() || e.status().is_some_and(|s| s.as_u16() == 501)
}

/// A configured QDevice as the plan counts it.
#[derive(Debug, Serialize)]
struct QDevice {
    /// Its algorithm, when the answering node showed its status.
    algorithm: Option<String>,
    /// Its votes in corosync's expected votes, connected or not.
    expected: u64,
    /// Its votes now: `expected` while `Connected`, else 0 (also when its state is unknown).
    present: u64,
    /// Its state (`Connected`, …), or why it cannot be told.
    state: Result<String, String>,
}

/// A list answer's items; anything else is an error, never an empty list (every index of
/// pve-ha-manager's `API2/HA` answers an array).
fn list_of(answer: Value) -> Result<Vec<Value>, String> {
    match answer {
        Value::Array(items) => Ok(items),
        other => Err(format!("not a list: {other}")),
    }
}

/// The release major of a `pveversion` (`pve-manager/9.0.3/abc`).
fn major_of(pveversion: &str) -> Option<u64> {
    pveversion
        .strip_prefix("pve-manager/")?
        .split(['.', '/'])
        .next()?
        .parse()
        .ok()
}

async fn read_plan(
    pve: &Client,
    target: u64,
    qdevice_votes: Option<u64>,
) -> Result<Plan, cpps_proxmox::Error> {
    let nodes = pve.nodes().await?;
    let status = pve.cluster().status().await.unwrap_or_default();
    let quorate = status
        .iter()
        .find(|e: &&ClusterStatusEntry| e.kind == ClusterStatusType::Cluster)
        .and_then(|e| e.quorate);
    let guests = pve.cluster().resources(Some(ResourceFilter::Vm)).await;
    let mut blockers = Vec::new();
    let guests: Vec<ClusterResource> = guests.unwrap_or_else(|e| {
        blockers.push(format!("the guests could not be read: {e}"));
        Vec::new()
    });
    // PVE leaves out, silently, each guest the credentials may not audit (pve-manager
    // `PVE/API2/Cluster.pm` `resources`): "by hand: none" over such a list is not the truth.
    if let Some(why) = guest_list_trimmed(pve).await {
        eprintln!("pve-upgrade: the guest list may be partial: {why}");
        blockers.push(format!("the guest list may be partial: {why}"));
    }
    let disarmed = ha_disarmed(pve).await;
    let versions = node_versions(pve, &nodes).await;
    let ha_groups_migrated = pve
        .cluster()
        .ha_groups_migrated()
        .await
        .map_err(|e| e.to_string());
    let rules_hidden = rules_may_hide(&versions, &ha_groups_migrated);
    let placement = Placement::read(pve, rules_hidden).await;
    let votes = corosync_votes(pve).await;
    if let Err(e) = &votes {
        blockers.push(format!("the corosync votes could not be read: {e}"));
    }
    let mut plans = Vec::new();
    for (item, pveversion) in nodes.iter().zip(versions) {
        let seen = HaSeen {
            disarmed: &disarmed,
            placement: &placement,
        };
        plans.push(node_plan(pve, item, pveversion, &guests, &votes, seen).await);
    }
    let ha_rules = ha_rules_seen(pve, &plans, rules_hidden, &ha_groups_migrated).await;
    let mut plan = Plan {
        target,
        quorate,
        nodes_total: nodes.len(),
        ha_groups_migrated,
        ha_rules,
        nodes: plans,
        ha_disarmed: disarmed,
        qdevice: qdevice(pve, qdevice_votes).await,
        blockers,
    };
    plan.blockers.extend(blockers_of(&plan));
    Ok(plan)
}

/// Why `GET /cluster/resources` may leave guests out (`VM.Audit` on `/vms` not held, or not
/// propagating: [`cpps_proxmox::api::ClusterApi::guest_list_trimmed`]), also when that could
/// not be read; `None` when the list is whole.
async fn guest_list_trimmed(pve: &Client) -> Option<String> {
    pve.cluster()
        .guest_list_trimmed()
        .await
        .unwrap_or_else(|e| Some(format!("whether it is whole could not be read: {e}")))
}

/// What the cluster's HA stack says, for judging each node's HA guests.
#[derive(Clone, Copy)]
struct HaSeen<'a> {
    /// Whether the HA stack is disarmed ([`ha_disarmed`]).
    disarmed: &'a Option<Result<String, String>>,
    /// Where the HA stack may place each resource.
    placement: &'a Placement,
}

/// Each node's `pveversion` (`GET /nodes/{node}/status`), in the order of `nodes`.
async fn node_versions(pve: &Client, nodes: &[NodeListItem]) -> Vec<Result<String, String>> {
    let mut out = Vec::new();
    for item in nodes {
        let status = pve.node(item.node.as_str()).status().await;
        out.push(status.map(|s| s.pveversion).map_err(|e| e.to_string()));
    }
    out
}

/// Why HA rules may exist that an 8.x node cannot show, `None` when none can: a node runs 9
/// (or its release is unknown) and no HA group is left (or that is unknown). pve-ha-manager
/// `src/PVE/API2/HA/Rules.pm` `create` refuses a rule only while a group exists
/// (`PVE::HA::Config::have_groups_been_migrated`, true when none is defined), so with no group
/// a 9.x node takes rules at once, mid-upgrade, and the 9.x CRM places by them. A rule taken
/// before a group was added on an 8.x node (whose `Groups.pm` `create` has no such check) is
/// not ruled out while groups exist: the plan's line on the rules says so rather than block
/// every HA guest for a sequence that rare.
fn rules_may_hide(
    versions: &[Result<String, String>],
    groups_migrated: &Result<bool, String>,
) -> Option<&'static str> {
    let some_may_run_9 = versions
        .iter()
        .any(|v| v.as_deref().ok().and_then(major_of).is_none_or(|m| m >= 9));
    (some_may_run_9 && !matches!(groups_migrated, Ok(false))).then_some(
        "the node that answered has no HA rules API (PVE 8) while a node runs 9 and no HA \
         group is left, so rules may exist: point the plan at a node that runs 9",
    )
}

/// One node's plan: its release (`pveversion`, [`node_versions`]), and its guests, those the
/// HA stack moves apart from those someone must move by hand.
async fn node_plan(
    pve: &Client,
    item: &NodeListItem,
    pveversion: Result<String, String>,
    guests: &[ClusterResource],
    votes: &Result<BTreeMap<String, u64>, String>,
    seen: HaSeen<'_>,
) -> NodePlan {
    let name = item.node.to_string();
    let major = pveversion.as_deref().ok().and_then(major_of);
    let on_node = |g: &&ClusterResource| g.node.as_deref() == Some(name.as_str());
    let running = |g: &&ClusterResource| g.status.as_deref() == Some("running");
    let (ha_guests, ha_stuck, ha_unsure) = judge_ha_guests(pve, &name, guests, seen).await;
    NodePlan {
        online: item.status == NodeState::Online,
        ha_guests,
        ha_stuck,
        ha_unsure,
        votes: votes.as_ref().ok().and_then(|v| v.get(&name).copied()),
        manual_guests: guests
            .iter()
            .filter(on_node)
            .filter(running)
            .filter(|g| !is_ha(g))
            .filter_map(|g| g.vmid.map(|v| v.get()))
            .collect(),
        node: name,
        pveversion,
        major,
    }
}

/// Whether the HA stack manages a guest. An `ignored` HA resource is left alone by the HA
/// manager (pve-ha-manager `HA/Manager.pm` drops ignored services), so it does not move with
/// maintenance.
fn is_ha(g: &ClusterResource) -> bool {
    g.hastate.as_deref().is_some_and(|s| s != "ignored")
}

/// The HA guests of `node`, sorted: those the HA stack will move away, those it will not (and
/// why), and those it cannot be told of (and why).
async fn judge_ha_guests(
    pve: &Client,
    node: &str,
    guests: &[ClusterResource],
    seen: HaSeen<'_>,
) -> (Vec<u32>, Vec<(u32, String)>, Vec<(u32, String)>) {
    let (mut ha_guests, mut ha_stuck, mut ha_unsure) = (Vec::new(), Vec::new(), Vec::new());
    let on_node = |g: &&ClusterResource| g.node.as_deref() == Some(node);
    for g in guests.iter().filter(on_node).filter(|g| is_ha(g)) {
        let Some(vmid) = g.vmid.map(|v| v.get()) else {
            continue;
        };
        match g.hastate.as_deref() {
            // `next_state_error` acts only once the request is `disabled`.
            Some("error") => ha_stuck.push((vmid, "CRM state `error`".to_owned())),
            _ => match seen.disarmed {
                Some(Ok(_)) => ha_stuck.push((vmid, "HA stack disarmed".to_owned())),
                Some(Err(_)) => ha_stuck.push((vmid, "HA arm state unknown".to_owned())),
                None => match will_not_move(pve, seen.placement, g, node).await {
                    Ok(None) => ha_guests.push(vmid),
                    Ok(Some(why)) => ha_stuck.push((vmid, why)),
                    Err(why) => ha_unsure.push((vmid, why)),
                },
            },
        }
    }
    (ha_guests, ha_stuck, ha_unsure)
}

/// The HA rules, read only where a node runs PVE 9 or later: rules exist from PVE 9 on
/// (pve-ha-manager 5.0.1), and an 8.x node answers no such path. Unserved while rules may
/// exist ([`rules_may_hide`]) is "cannot be read". While groups are not migrated the index
/// also lists a rule generated from each group in use, `ha-group-NAME` (pve-ha-manager
/// `src/PVE/API2/HA/Rules.pm` `index` through `PVE::HA::Groups::migrate_groups_to_rules`),
/// counted apart.
async fn ha_rules_seen(
    pve: &Client,
    plans: &[NodePlan],
    rules_hidden: Option<&str>,
    groups_migrated: &Result<bool, String>,
) -> Option<RulesSeen> {
    if !plans.iter().any(|p| p.major.is_some_and(|m| m >= 9)) {
        return None;
    }
    Some(
        match pve.get_raw("cluster/ha/rules", &[]).await.map(list_of) {
            Ok(Err(why)) => RulesSeen::Unread(why),
            Ok(Ok(list)) => {
                let generated = |r: &&Value| {
                    let id = r.get("rule").and_then(Value::as_str).unwrap_or("");
                    matches!(groups_migrated, Ok(false)) && id.starts_with("ha-group-")
                };
                RulesSeen::Count {
                    rules: list.len(),
                    from_groups: list.iter().filter(generated).count(),
                }
            }
            Err(e) if no_rules_api(&e) => match rules_hidden {
                Some(why) => RulesSeen::Unread(why.to_owned()),
                None => RulesSeen::NotServed,
            },
            Err(e) => RulesSeen::Unread(e.to_string()),
        },
    )
}

/// Where the HA stack may place each resource: the HA rules (PVE 9, `GET /cluster/ha/rules`,
/// weighed as a 9.x CRM does: [`affinity::Rules`]) and the restricted groups with the
/// resources in them (PVE 8, `GET /cluster/ha/groups` and `GET /cluster/ha/resources`). Each
/// list is `Err` when it could not be read.
struct Placement {
    /// The rules index's entries.
    rules: Result<Vec<Value>, String>,
    /// Restricted groups, by name: their nodes.
    groups: Result<BTreeMap<String, Vec<String>>, String>,
    /// Each resource's group.
    resource_groups: Result<BTreeMap<String, String>, String>,
}

/// The nodes of a group's or rule's `node[:priority]` list (`pve1:2,pve2`), with their
/// priorities, as pve-ha-manager reads it (`HA/Tools.pm` `parse_node_priority`: priority 0
/// when none is given; `HA/Rules/NodeAffinity.pm` `decode_plugin_value` skips an entry that
/// does not parse, which the API never stores).
fn node_priorities(list: &str) -> BTreeMap<String, i64> {
    list.split(',')
        .filter_map(|entry| {
            let entry = entry.trim();
            let (name, priority) = match entry.split_once(':') {
                Some((name, priority)) => (name, priority.parse().ok()?),
                None => (entry, 0),
            };
            (!name.is_empty()).then(|| (name.to_owned(), priority))
        })
        .collect()
}

/// The node names of a `node[:priority]` list ([`node_priorities`]).
fn names_of(list: &str) -> Vec<String> {
    node_priorities(list).into_keys().collect()
}

/// A rule or group field that PVE writes as 0/1 (or a string of those); absent is false.
fn flag(item: &Value, key: &str) -> bool {
    perl_bool(item, key) == Some(true)
}

/// A field that PVE writes as 0/1 (or a string of those), read by the family's one decoder
/// ([`cpps_proxmox::family::de::opt_bool`]); `None` when absent or not a boolean.
fn perl_bool(item: &Value, key: &str) -> Option<bool> {
    let value = item.get(key)?;
    cpps_proxmox::family::de::opt_bool(value).ok().flatten()
}

impl Placement {
    /// Reads the three lists. On PVE 8 there is no rule path (a 501, [`no_rules_api`]), and on
    /// a migrated PVE 9 the group list dies with "ha groups have been migrated to rules"
    /// (pve-ha-manager `HA/Groups.pm`): each of those is an empty list, not an error, unless
    /// rules may exist that the answering node cannot show (`rules_hidden`,
    /// [`rules_may_hide`]).
    async fn read(pve: &Client, rules_hidden: Option<&str>) -> Placement {
        let rules = match pve.get_raw("cluster/ha/rules", &[]).await.map(list_of) {
            Ok(listed) => listed,
            // No rules API on the node that answered (PVE 8): the groups decide, unless a
            // 9.x node may have taken rules.
            Err(e) if no_rules_api(&e) => {
                rules_hidden.map_or(Ok(Vec::new()), |why| Err(why.into()))
            }
            Err(e) => Err(e.to_string()),
        };
        let groups = match pve.get_raw("cluster/ha/groups", &[]).await.map(list_of) {
            Ok(Err(why)) => Err(why),
            Ok(Ok(list)) => Ok(list
                .iter()
                .filter(|g| flag(g, "restricted"))
                .filter_map(|g| {
                    let name = g.get("group")?.as_str()?.to_owned();
                    let nodes = names_of(g.get("nodes").and_then(Value::as_str).unwrap_or(""));
                    Some((name, nodes))
                })
                .collect()),
            Err(e) if e.to_string().contains("migrated to rules") => Ok(BTreeMap::new()),
            Err(e) => Err(e.to_string()),
        };
        let resource_groups = pve
            .cluster()
            .ha_resources()
            .await
            .map(|list| {
                list.into_iter()
                    .filter_map(|r| Some((r.sid.clone(), r.group?)))
                    .collect()
            })
            .map_err(|e| e.to_string());
        Placement {
            rules,
            groups,
            resource_groups,
        }
    }

    /// Why `sid` may run only on `node`, if it may: a strict rule or a restricted group that
    /// names no other node (pve-ha-manager `HA/Manager.pm` `select_service_node` then finds no
    /// node, and the service stays).
    fn only_on(&self, sid: &str, node: &str) -> Result<Option<String>, String> {
        let alone = |nodes: &[String]| nodes.iter().all(|n| n == node);
        let rules = self
            .rules
            .as_ref()
            .map_err(|e| format!("HA rules unread: {e}"))?;
        // pve-ha-manager `HA/Rules/NodeAffinity.pm` `plugin_compile`: only a strict rule keeps
        // a resource off the nodes it does not name; its own rule or its positive set's.
        let rule = affinity::Rules::of(rules).node_affinity_of(sid)?;
        if let Some(rule) = rule.filter(|r| flag(r, "strict")) {
            let nodes = names_of(rule["nodes"].as_str().unwrap_or(""));
            if alone(&nodes) {
                let id = rule["rule"].as_str().unwrap_or("?");
                return Ok(Some(format!(
                    "strict node-affinity rule {id} allows only {node}"
                )));
            }
        }
        let of = self
            .resource_groups
            .as_ref()
            .map_err(|e| format!("HA resources unread: {e}"))?;
        let Some(group) = of.get(sid) else {
            return Ok(None);
        };
        let groups = self
            .groups
            .as_ref()
            .map_err(|e| format!("HA groups unread: {e}"))?;
        Ok(groups
            .get(group)
            .filter(|nodes| alone(nodes))
            .map(|_| format!("restricted HA group {group} allows only {node}")))
    }
}

/// Why the HA stack will not move guest `g` off `node` for maintenance, `Ok(None)` when it
/// will, `Err` when that cannot be told. Its placement first ([`Placement::only_on`]); then,
/// for a VM, `GET /nodes/{node}/qemu/{vmid}/migrate` (qemu-server `PVE/API2/Qemu.pm`
/// `migrate_vm_precondition`). The HA stack migrates a running VM online with `force` and
/// `with-local-disks` (pve-ha-manager `HA/Resources/PVEVM.pm` `migrate`), so local disks alone
/// do not stop it, but qemu-server `PVE/QemuMigrate.pm` `prepare` refuses a running VM with
/// local devices (`local_resources`, even with `force`) or with mapped devices not marked
/// live-migratable (`mapped-resource-info` without `live-migration`), and no other node in
/// `allowed_nodes` (storages or mappings missing elsewhere) leaves it nowhere to go; no
/// `allowed_nodes` at all (a running VM before qemu-server 8.3.9) is "cannot tell".
/// Containers are judged by their placement only.
async fn will_not_move(
    pve: &Client,
    placement: &Placement,
    g: &ClusterResource,
    node: &str,
) -> Result<Option<String>, String> {
    let vmid = g.vmid.map_or(0, |v| v.get());
    let sid = match g.kind {
        ResourceType::Lxc => format!("ct:{vmid}"),
        _ => format!("vm:{vmid}"),
    };
    if let Some(why) = placement.only_on(&sid, node)? {
        return Ok(Some(why));
    }
    if g.kind != ResourceType::Qemu {
        return Ok(None);
    }
    let path = format!("nodes/{node}/qemu/{vmid}/migrate");
    // qemu-server `PVE/API2/Qemu.pm` `migrate_vm_precondition` needs VM.Migrate on the guest,
    // which PVEAuditor lacks: a 403 names that privilege rather than the bare status.
    let pre = pve.get_raw(&path, &[]).await.map_err(|e| {
        if e.status().is_some_and(|s| s.as_u16() == 403) {
            format!("the credentials lack VM.Migrate on /vms/{vmid} (403)")
        } else {
            format!("migration preconditions unread: {e}")
        }
    })?;
    let running = flag(&pre, "running");
    let strings = |key: &str| -> Vec<String> {
        pre.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default()
    };
    let local = strings("local_resources");
    if running && !local.is_empty() {
        return Ok(Some(format!("local devices {}", local.join(", "))));
    }
    let mut unmovable: Vec<String> = pre
        .get("mapped-resource-info")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter(|(_, info)| !flag(info, "live-migration"))
                .map(|(key, _)| key.clone())
                .collect()
        })
        .unwrap_or_default();
    unmovable.sort();
    if running && !unmovable.is_empty() {
        return Ok(Some(format!(
            "mapped devices without live migration {}",
            unmovable.join(", ")
        )));
    }
    // Before qemu-server 8.3.9 (commit 8aeaad24) `allowed_nodes` was set only for a stopped
    // VM: an absent list says nothing about the other nodes.
    if pre.get("allowed_nodes").is_none() {
        return Err(
            "the migration preconditions list no allowed nodes (qemu-server before 8.3.9 lists them only for a stopped VM)"
                .to_owned(),
        );
    }
    if strings("allowed_nodes").is_empty() {
        return Ok(Some(
            "no other node is allowed (its storages or mappings are missing elsewhere)".to_owned(),
        ));
    }
    Ok(None)
}

/// The HA stack's state when it is not armed: `GET /cluster/ha/status/current`'s `fencing`
/// entry (pve-ha-manager 5.1.3+, `src/PVE/API2/HA/Status.pm`) says `disarming` or `disarmed`
/// with the resource mode; the CRM then ignores node maintenance (`src/PVE/HA/Manager.pm`:
/// "ignoring maintenance command for node … HA stack is disarmed"). `armed`, `standby` (the
/// CRM is idle) and no entry (an older release, which cannot be disarmed) are `None`; another
/// word, or a status that could not be read, is "cannot tell".
async fn ha_disarmed(pve: &Client) -> Option<Result<String, String>> {
    let entries = match pve.cluster().ha_status().await {
        Ok(entries) => entries,
        Err(e) => return Some(Err(e.to_string())),
    };
    let fencing = entries.iter().find(|e| e.kind == HaStatusType::Fencing)?;
    match fencing.armed_state.as_deref() {
        None | Some("armed" | "standby") => None,
        Some(state @ ("disarming" | "disarmed")) => Some(Ok(format!(
            "{state} (resource mode {})",
            fencing.resource_mode.as_deref().unwrap_or("unknown")
        ))),
        Some(other) => Some(Err(format!("unknown armed-state `{other}`"))),
    }
}

/// Each node's corosync votes: `GET /cluster/config/nodes` (pve-cluster
/// `src/PVE/API2/ClusterConfig.pm` `nodes`, corosync.conf's nodelist, values as strings);
/// corosync counts one vote where `quorum_votes` is not set.
async fn corosync_votes(pve: &Client) -> Result<BTreeMap<String, u64>, String> {
    let list = pve
        .get_raw("cluster/config/nodes", &[])
        .await
        .map_err(|e| e.to_string())?;
    let items = list.as_array().ok_or("the node list is not a list")?;
    let mut votes = BTreeMap::new();
    for item in items {
        let name = item
            .get("name")
            .or_else(|| item.get("node"))
            .and_then(Value::as_str)
            .ok_or_else(|| format!("a node without a name: {item}"))?;
        let count = match item.get("quorum_votes") {
            None | Some(Value::Null) => 1,
            Some(Value::Number(n)) => n.as_u64().ok_or(format!("{name}: votes {n}"))?,
            Some(Value::String(s)) => s.parse().map_err(|_| format!("{name}: votes `{s}`"))?,
            Some(other) => return Err(format!("{name}: votes {other}")),
        };
        votes.insert(name.to_owned(), count);
    }
    Ok(votes)
}

/// The QDevice: `GET /cluster/config/qdevice` (pve-cluster `src/PVE/API2/ClusterConfig.pm`
/// `status`: some keys of the local corosync-qdevice's `status verbose`, and `{}` when the node
/// that answers has no qdevice socket, `return $result if !-S $socket_path`) and `stated`, the
/// votes the operator read in corosync.conf. `{}` does not say that no QDevice is configured
/// (its daemon may be down on that node), and no API path shows corosync.conf's `quorum`
/// section (`ClusterConfig.pm` `totem` and `join_info` return the totem and node list only;
/// pve-manager `PVE/CLI/pve8to9.pm` reads `quorum.device.votes` from the file itself). So
/// `{}` is "no QDevice" only when `stated` is 0, a QDevice of `stated` votes whose state
/// cannot be told when it is more, and "cannot tell" without it. Assumed from
/// corosync-qdevice(8): algorithm `ffsplit` ("Fifty-Fifty split") gives one vote unless the
/// file says otherwise; `lms` and others are not counted here.
async fn qdevice(pve: &Client, stated: Option<u64>) -> Option<Result<QDevice, String>> {
    let status = match pve.get_raw("cluster/config/qdevice", &[]).await {
        Ok(status) => status,
        Err(e) => return Some(Err(e.to_string())),
    };
    let Some(map) = status.as_object().filter(|m| !m.is_empty()) else {
        return match stated {
            Some(0) => None,
            Some(votes) => Some(Ok(QDevice {
                algorithm: None,
                expected: votes,
                present: 0,
                state: Err("the node that answered runs no corosync-qdevice".to_owned()),
            })),
            None => Some(Err(
                "the node that answered shows no QDevice status (`{}`), which it also shows \
                 when its corosync-qdevice is down; give --qdevice-votes from corosync.conf's \
                 quorum.device.votes (0: none)"
                    .to_owned(),
            )),
        };
    };
    let text = |key: &str| map.get(key).and_then(Value::as_str).unwrap_or("");
    let algorithm = text("Algorithm").to_owned();
    if stated == Some(0) {
        return Some(Err(format!(
            "--qdevice-votes 0, but the node that answered runs a QDevice ({algorithm})"
        )));
    }
    if algorithm != "Fifty-Fifty split" {
        return Some(Err(format!(
            "QDevice algorithm `{algorithm}`: its votes are not known to this plan"
        )));
    }
    let expected = stated.unwrap_or(1);
    let state = text("State").to_owned();
    let present = if state == "Connected" { expected } else { 0 };
    Some(Ok(QDevice {
        algorithm: Some(algorithm),
        expected,
        present,
        state: Ok(state),
    }))
}

/// The votes present with `out` down, the expected votes and the quorum (more than half),
/// when every node's votes are known and the QDevice can be counted. The QDevice's vote is
/// in the expected votes even while it is not connected (corosync votequorum).
fn quorum_without(plan: &Plan, out: &str) -> Option<(u64, u64, u64)> {
    let (mut expected, mut present) = match &plan.qdevice {
        None => (0, 0),
        Some(Ok(q)) => (q.expected, q.present),
        Some(Err(_)) => return None,
    };
    for node in &plan.nodes {
        let votes = node.votes?;
        expected += votes;
        if node.online && node.node != out {
            present += votes;
        }
    }
    Some((present, expected, expected / 2 + 1))
}

/// What blocks the plan: unknown quorum or versions, offline nodes, a step whose node out
/// would lose the quorum, HA resources that will not move, a disarmed HA stack.
fn blockers_of(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    match plan.quorate {
        Some(true) => {}
        Some(false) => out.push("the cluster is not quorate now".to_owned()),
        None => out.push("the quorum could not be read".to_owned()),
    }
    match &plan.ha_disarmed {
        Some(Ok(state)) => out.push(format!(
            "the HA stack is {state}: the CRM ignores node maintenance; arm it (`ha-manager arm-ha`) before the upgrade"
        )),
        Some(Err(e)) => out.push(format!("the HA stack's arm state cannot be told: {e}")),
        None => {}
    }
    if let Some(Err(e)) = &plan.qdevice {
        out.push(format!("the QDevice cannot be counted: {e}"));
    }
    for node in todo(plan) {
        match quorum_without(plan, &node.node) {
            Some((present, expected, needed)) if present < needed => out.push(format!(
                "{}: with it out, {present} of {expected} votes would not be a quorum ({needed})",
                node.node
            )),
            Some(_) => {}
            None if plan.qdevice.as_ref().is_none_or(Result::is_ok) => {
                out.push(format!(
                    "{}: the quorum without it cannot be told: a node's votes are not known",
                    node.node
                ));
            }
            None => {}
        }
        // The disarmed stack and an unknown arm state have their own line above.
        for (vmid, why) in node.ha_stuck.iter().filter(|(_, w)| {
            !w.contains("error") && w != "HA stack disarmed" && w != "HA arm state unknown"
        }) {
            out.push(format!(
                "{}: HA will not move {vmid} ({why}): move it or shut it down by hand first",
                node.node
            ));
        }
        for (vmid, why) in &node.ha_unsure {
            out.push(format!(
                "{}: whether HA moves {vmid} cannot be told: {why}",
                node.node
            ));
        }
        for (vmid, why) in node.ha_stuck.iter().filter(|(_, w)| w.contains("error")) {
            out.push(format!(
                "{}: HA resource {vmid} is in {why}: the HA manager neither moves nor recovers it, and refuses a migration until it is set `disabled` and fixed",
                node.node
            ));
        }
    }
    for node in &plan.nodes {
        if !node.online {
            out.push(format!("{} is offline", node.node));
        }
        if node.major.is_none() {
            let seen = match &node.pveversion {
                Ok(text) => format!("`{text}`"),
                Err(e) => format!("unreadable: {e}"),
            };
            out.push(format!("{}: version cannot be told ({seen})", node.node));
        }
    }
    if let Err(e) = &plan.ha_groups_migrated {
        out.push(format!(
            "the HA group migration state could not be read: {e}"
        ));
    }
    out
}

fn print_text(plan: &Plan) {
    let quorum = match plan.quorate {
        Some(true) => "quorate",
        Some(false) => "NOT quorate",
        None => "quorum unknown",
    };
    println!("cluster: {} nodes, {quorum}", plan.nodes_total);
    let known: Option<u64> = plan.nodes.iter().map(|n| n.votes).sum();
    match (&plan.qdevice, known) {
        (None, Some(votes)) => println!("quorum: {votes} votes, {} needed", votes / 2 + 1),
        (Some(Ok(q)), Some(votes)) => {
            // The QDevice's votes are expected whether or not it is connected now.
            let expected = votes + q.expected;
            let name = q.algorithm.as_deref().unwrap_or("of unknown algorithm");
            println!(
                "quorum: {expected} votes (QDevice {name}: {}), {} needed",
                q.expected,
                expected / 2 + 1
            );
            if let Err(why) = &q.state {
                println!(
                    "QDevice: state cannot be told ({why}): its votes are not counted as present"
                );
            }
        }
        _ => println!("quorum: the votes cannot be counted"),
    }
    match &plan.ha_disarmed {
        Some(Ok(state)) => {
            println!("HA stack: {state}: node maintenance is ignored, HA moves nothing")
        }
        Some(Err(e)) => println!("HA stack: arm state cannot be told: {e}"),
        None => {}
    }
    match &plan.ha_groups_migrated {
        Ok(true) => println!("HA: no group left (migrated to rules, or none defined)"),
        Ok(false) => {
            println!(
                "HA: groups not migrated yet (the CRM migrates them once every node runs 9, is online, and has an active LRM out of maintenance)"
            )
        }
        Err(e) => println!("HA: group migration state cannot be told: {e}"),
    }
    match &plan.ha_rules {
        Some(RulesSeen::Count {
            rules,
            from_groups: 0,
        }) => println!("HA rules: {rules}"),
        Some(RulesSeen::Count { rules, from_groups }) => println!(
            "HA rules: {rules}, of which {from_groups} generated from HA groups not migrated yet"
        ),
        Some(RulesSeen::NotServed) => println!(
            "HA rules: not served by the node that answered (no rules API before pve-ha-manager 5.0.1): the HA groups decide, unless a 9.x node took a rule before a group was added (point the plan at a 9.x node to see)"
        ),
        Some(RulesSeen::Unread(e)) => println!("HA rules: cannot be read: {e}"),
        None => {}
    }
    for node in &plan.nodes {
        let version = node.pveversion.as_deref().unwrap_or("unknown");
        println!("node {}: {version}", node.node);
    }
    let todo = todo(plan);
    if todo.is_empty() {
        println!(
            "\nevery node runs {} or later: nothing to upgrade",
            plan.target
        );
    }
    for (step, node) in todo.iter().enumerate() {
        print_steps(step + 1, node, plan);
    }
    for blocker in &plan.blockers {
        println!("BLOCKED: {blocker}");
    }
}

/// The nodes below the target release (or of unknown release), in the order of the steps.
fn todo(plan: &Plan) -> Vec<&NodePlan> {
    plan.nodes
        .iter()
        .filter(|n| n.major.is_none_or(|m| m < plan.target))
        .collect()
}

fn print_steps(step: usize, node: &NodePlan, plan: &Plan) {
    let target = plan.target;
    let list = |ids: &[u32]| {
        if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    println!("\nstep {step}: {}", node.node);
    match quorum_without(plan, &node.node) {
        Some((present, expected, needed)) => println!(
            "  before: without {}, {present} of {expected} votes, quorum {needed}: {}",
            node.node,
            if present >= needed {
                "quorate"
            } else {
                "NOT quorate"
            }
        ),
        None => println!("  before: without {}, the quorum cannot be told", node.node),
    }
    println!(
        "  on the node: ha-manager crm-command node-maintenance enable {} (no API endpoint)",
        node.node
    );
    println!("  moved by HA: {}", list(&node.ha_guests));
    if !node.ha_stuck.is_empty() {
        let stuck: Vec<String> = node
            .ha_stuck
            .iter()
            .map(|(vmid, why)| format!("{vmid} ({why})"))
            .collect();
        println!("  not moved by HA: {}", stuck.join(", "));
    }
    if !node.ha_unsure.is_empty() {
        let unsure: Vec<String> = node
            .ha_unsure
            .iter()
            .map(|(vmid, why)| format!("{vmid} ({why})"))
            .collect();
        println!("  HA move cannot be told: {}", unsure.join(", "));
    }
    println!(
        "  to migrate or shut down by hand: {}",
        list(&node.manual_guests)
    );
    println!("  on the node: pve8to9 --full, then the {target}.x upgrade and a reboot");
    println!(
        "  on the node: ha-manager crm-command node-maintenance disable {}",
        node.node
    );
    println!(
        "  after: pve-upgrade --after {} (online, pveversion {target}.x, cluster quorate, \
         its HA resources back)",
        node.node
    );
}

async fn run(args: &Args) -> Result<bool, String> {
    if args.apply {
        return Err("--apply is refused: node maintenance has no API endpoint \
                    (pve-ha-manager src/PVE/CLI/ha_manager.pm node-maintenance-set is a \
                    command-line method); run the plan's node steps on each node"
            .to_owned());
    }
    let timeout = Duration::from_secs(args.timeout);
    let pve = ClientBuilder::from_env(&cpps_http::env::process_env)
        .and_then(|b| b.deadline(timeout).request_timeout(timeout).build())
        .map_err(|e| cpps_http::error_chain(&e))?;
    if let Some(node) = &args.after {
        let after = after::check(&pve, node, args.target)
            .await
            .map_err(|e| cpps_http::error_chain(&e))?;
        match args.format {
            Format::Text => after::print_text(&after),
            Format::Json => println!(
                "{}",
                serde_json::to_string_pretty(&after).unwrap_or_default()
            ),
        }
        return Ok(after.done());
    }
    let plan = read_plan(&pve, args.target, args.qdevice_votes)
        .await
        .map_err(|e| cpps_http::error_chain(&e))?;
    match args.format {
        Format::Text => print_text(&plan),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&plan).unwrap_or_default()
        ),
    }
    Ok(plan.blockers.is_empty())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match Box::pin(run(&args)).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("pve-upgrade: {error}");
            ExitCode::from(2)
        }
    }
}
