//! `--after NODE`: the checks after one node's step, run once its upgrade and reboot are done
//! and its node maintenance is disabled, before the next node's step starts.
//!
//! Each check passes, fails (the step is not done: wait, or act), or cannot tell (a read
//! failed, or the server said nothing to judge by), and only a pass counts as done:
//! - the node is a cluster member and online (`GET /nodes`);
//! - it runs the target release (`GET /nodes/{node}/status`, `pveversion`);
//! - the cluster is quorate (`GET /cluster/status`);
//! - the HA stack took the node back (`GET /cluster/ha/status/manager_status`, pve-ha-manager
//!   `src/PVE/API2/HA/Status.pm` `manager_status`: the CRM's `node_status`, `service_status`
//!   and each node's LRM status as `HA/Manager.pm` and `HA/LRM.pm` `update_lrm_status` write
//!   them): the CRM's and the LRM's status no older, by the node's clock (`GET
//!   /nodes/{node}/time`), than the 30 s after which `Status.pm` `timestamp_to_status` calls
//!   one dead; the CRM holds the node `online`, not `maintenance` (`HA/NodeStatus.pm`); its
//!   LRM runs in mode `active`; and no started HA resource whose failback is on is still due
//!   back to it (`maintenance_node`, `HA/Manager.pm` `next_state_started`; due back only where
//!   the node is among the top-priority nodes of its group or node-affinity rule, `GET
//!   /cluster/ha/rules` under a 9.x CRM master, once its resource-affinity rules have narrowed
//!   them), none is moving to
//!   it, and none failed or frozen on it (`error`, `fence`, `recovery`, `freeze`). With no HA
//!   resource configured the CRM is idle (`HA/CRM.pm` `can_get_active`) and the HA checks
//!   pass;
//! - once every node runs 9 or later: the HA groups are migrated to rules (`GET
//!   /cluster/ha/groups`). The CRM does so only when every node is online, its LRM active or
//!   idle in mode `active`, and its pve-manager at least 9.0.0~16 (pve-ha-manager
//!   `src/PVE/HA/Manager.pm` `assert_cluster_can_migrate_ha_groups`), and keeps the groups,
//!   logging "abort ha groups migration", while one is not: the groups still there after the
//!   last node's step say that something keeps it from migrating (unless no HA resource
//!   is configured: the idle CRM migrates nothing, and nothing needs it).

use cpps_proxmox::Client;
use cpps_proxmox::types::{ClusterStatusEntry, ClusterStatusType, NodeListItem, NodeState};
use serde::Serialize;
use serde_json::Value;

use crate::{list_of, major_of};

mod failback;

use failback::{Failback, failback};

/// How one check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum Verdict {
    /// Done.
    Pass,
    /// Not done: the detail says what is still to happen.
    Fail,
    /// A read failed, or the server gave nothing to judge by.
    CannotTell,
}

/// One check after the node's step.
#[derive(Debug, Serialize)]
pub(crate) struct Check {
    /// What is checked.
    pub(crate) name: &'static str,
    /// How it came out.
    pub(crate) verdict: Verdict,
    /// What was seen, or why it could not be told.
    pub(crate) detail: String,
}

impl Check {
    fn new(name: &'static str, verdict: Verdict, detail: impl Into<String>) -> Self {
        Self {
            name,
            verdict,
            detail: detail.into(),
        }
    }
}

/// The checks after one node's step.
#[derive(Debug, Serialize)]
pub(crate) struct After {
    /// The node whose step is checked.
    pub(crate) node: String,
    /// The release it should run now.
    pub(crate) target: u64,
    /// Each check, in the order of the module docs.
    pub(crate) checks: Vec<Check>,
}

impl After {
    /// Whether every check passed: the next node's step may start.
    pub(crate) fn done(&self) -> bool {
        self.checks.iter().all(|c| c.verdict == Verdict::Pass)
    }
}

/// The names of the HA checks, each "cannot tell" when the HA status cannot be read.
const HA_CHECKS: [&str; 3] = ["CRM node state", "LRM", "HA resources"];

/// Runs the checks after `node`'s step; `Err` only when the node list cannot be read.
pub(crate) async fn check(
    pve: &Client,
    node: &str,
    target: u64,
) -> Result<After, cpps_proxmox::Error> {
    let nodes = pve.nodes().await?;
    let mut checks = vec![membership(&nodes, node), release(pve, node, target).await];
    checks.push(quorum(pve).await);
    // Read once: the HA checks and the groups' check both judge by them.
    let resources = pve
        .get_raw("cluster/ha/resources", &[])
        .await
        .map_err(|e| e.to_string())
        .and_then(list_of)
        .map_err(|e| format!("GET /cluster/ha/resources: {e}"));
    checks.extend(ha(pve, node, &resources).await);
    if target >= 9 {
        checks.extend(groups_migrated(pve, &nodes, &resources).await);
    }
    Ok(After {
        node: node.to_owned(),
        target,
        checks,
    })
}

fn membership(nodes: &[NodeListItem], node: &str) -> Check {
    const NAME: &str = "online";
    match nodes.iter().find(|n| n.node.as_str() == node) {
        None => Check::new(NAME, Verdict::Fail, "not in the cluster's node list"),
        Some(n) if n.status == NodeState::Online => Check::new(NAME, Verdict::Pass, "online"),
        Some(n) => Check::new(NAME, Verdict::Fail, format!("status {:?}", n.status)),
    }
}

async fn release(pve: &Client, node: &str, target: u64) -> Check {
    const NAME: &str = "release";
    let version = match pve.node(node).status().await {
        Ok(status) => status.pveversion,
        Err(e) => return Check::new(NAME, Verdict::CannotTell, e.to_string()),
    };
    match major_of(&version) {
        Some(major) if major >= target => Check::new(NAME, Verdict::Pass, version),
        Some(_) => Check::new(NAME, Verdict::Fail, format!("{version}: below {target}")),
        None => Check::new(NAME, Verdict::CannotTell, format!("`{version}` not read")),
    }
}

async fn quorum(pve: &Client) -> Check {
    const NAME: &str = "quorum";
    let entries = match pve.cluster().status().await {
        Ok(entries) => entries,
        Err(e) => return Check::new(NAME, Verdict::CannotTell, e.to_string()),
    };
    let cluster = entries
        .iter()
        .find(|e: &&ClusterStatusEntry| e.kind == ClusterStatusType::Cluster);
    match cluster.and_then(|e| e.quorate) {
        Some(true) => Check::new(NAME, Verdict::Pass, "quorate"),
        Some(false) => Check::new(NAME, Verdict::Fail, "the cluster is not quorate"),
        None => Check::new(NAME, Verdict::CannotTell, "no quorum in /cluster/status"),
    }
}

/// How old a status may be before `Status.pm` `timestamp_to_status` calls it dead ("old
/// timestamp - dead?"), in seconds; and how far ahead it may be before it calls it drift.
const FRESH_SECS: i64 = 30;
/// See [`FRESH_SECS`].
const DRIFT_SECS: i64 = 2;

/// What the HA checks read: the CRM's full status, the HA resources (`GET
/// /cluster/ha/resources`, with `failback`), the groups (with `nofailback` and their nodes'
/// priorities), the HA rules of every type, and
/// the node's clock (`GET /nodes/{node}/time`, pve-manager `PVE/API2/Nodes.pm` `time`), the
/// "now" that `Status.pm` compares each status's time with.
struct HaRead<'a> {
    status: Value,
    resources: &'a Result<Vec<Value>, String>,
    /// The HA groups, or why they could not be read (none once migrated to rules).
    groups: Result<Vec<Value>, String>,
    /// The HA rules of every type (`GET /cluster/ha/rules`), `None` where the
    /// answering node has no rules API (PVE 8), or why they could not be read.
    rules: Result<Option<Vec<Value>>, String>,
    now: i64,
    /// The major release of the CRM master (`master_node`), or why it is not known.
    master_major: Result<u64, String>,
}

/// The HA checks, from the CRM's full status.
async fn ha(pve: &Client, node: &str, resources: &Result<Vec<Value>, String>) -> Vec<Check> {
    let unread = |why: String| -> Vec<Check> {
        HA_CHECKS
            .iter()
            .map(|name| Check::new(name, Verdict::CannotTell, why.clone()))
            .collect()
    };
    let read = match read_ha(pve, node, resources).await {
        Ok(read) => read,
        Err(why) => return unread(why),
    };
    let manager = &read.status["manager_status"];
    let no_resources = matches!(&read.resources, Ok(list) if list.is_empty());
    let crm_age = manager["timestamp"].as_i64().map(|t| read.now - t);
    // An idle CRM (no HA resource: `HA/CRM.pm` `can_get_active`) writes nothing more, so its
    // old status says nothing of the node; with resources, an old status means no CRM is active.
    if no_resources && crm_age.is_none_or(|age| age > FRESH_SECS) {
        return HA_CHECKS
            .iter()
            .map(|name| Check::new(name, Verdict::Pass, "no HA resource is configured"))
            .collect();
    }
    match crm_age {
        None => unread("HA resources are configured, but the CRM wrote no status".to_owned()),
        Some(age) if age > FRESH_SECS => HA_CHECKS
            .iter()
            .map(|name| {
                let why = format!("the CRM's status is {age} s old: no CRM is active");
                Check::new(name, Verdict::Fail, why)
            })
            .collect(),
        Some(_) => vec![
            crm_node_state(manager, node),
            lrm(&read.status, node, read.now),
            services(manager, node, &read),
        ],
    }
}

/// Reads what [`ha`] judges by, or why it could not.
async fn read_ha<'a>(
    pve: &Client,
    node: &str,
    resources: &'a Result<Vec<Value>, String>,
) -> Result<HaRead<'a>, String> {
    let time_path = format!("nodes/{node}/time");
    let (status, groups, rules, time) = tokio::join!(
        pve.get_raw("cluster/ha/status/manager_status", &[]),
        pve.get_raw("cluster/ha/groups", &[]),
        pve.get_raw("cluster/ha/rules", &[]),
        pve.get_raw(&time_path, &[]),
    );
    let status = status.map_err(|e| format!("GET /cluster/ha/status/manager_status: {e}"))?;
    let now = time
        .map_err(|e| e.to_string())
        .and_then(|t| {
            t["time"]
                .as_i64()
                .ok_or_else(|| format!("no `time` in {t}"))
        })
        .map_err(|e| format!("the node's clock (GET /nodes/{node}/time): {e}"))?;
    let groups = match groups {
        Ok(answer) => list_of(answer).map_err(|e| format!("GET /cluster/ha/groups: {e}")),
        // 9.x refuses the list once the groups are migrated (pve-ha-manager
        // `src/PVE/HA/Groups.pm` `index`, "have been migrated to rules"): none is left.
        Err(e) if e.to_string().contains("have been migrated to rules") => Ok(Vec::new()),
        Err(e) => Err(format!("GET /cluster/ha/groups: {e}")),
    };
    let rules = match rules {
        Ok(answer) => list_of(answer)
            .map(Some)
            .map_err(|e| format!("GET /cluster/ha/rules: {e}")),
        Err(e) if crate::no_rules_api(&e) => Ok(None),
        Err(e) => Err(format!("GET /cluster/ha/rules: {e}")),
    };
    let master_major = master_major(pve, &status).await;
    Ok(HaRead {
        status,
        resources,
        groups,
        rules,
        now,
        master_major,
    })
}

/// The major release of the CRM master (`master_node` of the CRM's status), as its
/// `pveversion` says (`GET /nodes/{node}/status`), or why it is not known.
async fn master_major(pve: &Client, status: &Value) -> Result<u64, String> {
    let master = status["manager_status"]["master_node"]
        .as_str()
        .ok_or("the CRM's status names no master")?;
    let node = pve.node(master).status().await;
    let node = node.map_err(|e| format!("the release of the CRM master {master}: {e}"))?;
    major_of(&node.pveversion).ok_or_else(|| {
        format!(
            "the CRM master {master} reports pveversion `{}`",
            node.pveversion
        )
    })
}

fn crm_node_state(manager: &Value, node: &str) -> Check {
    const NAME: &str = "CRM node state";
    match manager["node_status"][node].as_str() {
        Some("online") => Check::new(NAME, Verdict::Pass, "online"),
        Some("maintenance") => Check::new(
            NAME,
            Verdict::Fail,
            format!(
                "maintenance: run `ha-manager crm-command node-maintenance disable {node}` on \
                 the node"
            ),
        ),
        Some(other) => Check::new(NAME, Verdict::Fail, other),
        None => Check::new(NAME, Verdict::CannotTell, "the CRM lists no state for it"),
    }
}

/// The node's LRM: mode `active`, and its status as fresh as `Status.pm` wants it.
fn lrm(status: &Value, node: &str, now: i64) -> Check {
    const NAME: &str = "LRM";
    let lrm = &status["lrm_status"][node];
    let Some(stamp) = lrm["timestamp"].as_i64() else {
        return Check::new(NAME, Verdict::CannotTell, "unable to read its LRM status");
    };
    let mode = lrm["mode"].as_str().unwrap_or("active");
    let state = lrm["state"].as_str().unwrap_or("unknown");
    let age = now - stamp;
    if age > FRESH_SECS {
        Check::new(
            NAME,
            Verdict::Fail,
            format!("its status is {age} s old: dead?"),
        )
    } else if age < -DRIFT_SECS {
        Check::new(
            NAME,
            Verdict::Fail,
            "its status is from the future: time drift",
        )
    } else if mode != "active" {
        Check::new(NAME, Verdict::Fail, format!("{mode} mode"))
    } else if state == "lost_agent_lock" || state == "unknown" {
        Check::new(NAME, Verdict::Fail, format!("state {state}"))
    } else {
        Check::new(NAME, Verdict::Pass, format!("active, state {state}"))
    }
}

/// No HA resource is still due back to the node, on its way there, or failed on it. A
/// service keeps `maintenance_node` while stopped, while its failback is off, and while the
/// node is not among its top-priority nodes: `HA/Manager.pm` `select_service_node` then keeps
/// it off the node, so it is not due back ([`failback()`]).
fn services(manager: &Value, node: &str, read: &HaRead<'_>) -> Check {
    const NAME: &str = "HA resources";
    let Some(services) = manager["service_status"].as_object() else {
        return Check::new(NAME, Verdict::CannotTell, "the CRM lists no service status");
    };
    // Resources the CRM has not taken up yet (`Status.pm` shows them `queued`) are in no
    // service status: an empty one beside configured resources says nothing. `ignored` ones
    // the CRM drops (`HA/Manager.pm`).
    let configured = read.resources.as_ref().map(|list| {
        list.iter()
            .filter(|r| r["state"].as_str() != Some("ignored"))
            .count()
    });
    match configured {
        Ok(configured) if services.is_empty() && configured > 0 => {
            let why = format!("the CRM lists none of the configured HA resources ({configured})");
            return Check::new(NAME, Verdict::CannotTell, why);
        }
        Err(e) if services.is_empty() => {
            let why =
                format!("the CRM lists no service, and the HA resources could not be read: {e}");
            return Check::new(NAME, Verdict::CannotTell, why);
        }
        _ => {}
    }
    let mut pending = Vec::new();
    let mut unsure = Vec::new();
    let mut staying = Vec::new();
    let mut here = 0;
    for (sid, service) in services {
        let on = service["node"].as_str();
        let state = service["state"].as_str().unwrap_or("unknown");
        // A move onto the node or a failure on it comes first: `$change_service_state` keeps
        // `maintenance_node` through every state.
        if service["target"].as_str() == Some(node) {
            pending.push(format!("{sid} moving here ({state})"));
        } else if let Some(task) = queued_move(service, node) {
            pending.push(format!("{sid} to move here ({task} queued, {state})"));
        } else if on == Some(node) && matches!(state, "error" | "fence" | "recovery" | "freeze") {
            // `freeze`: stopped for the reboot, until the CRM sees the LRM active again.
            pending.push(format!("{sid} {state}"));
        } else if on == Some(node) {
            // A `maintenance_node` naming its own node is stale: the CRM clears it
            // (`next_state_started`).
            here += 1;
        } else if service["maintenance_node"].as_str() == Some(node) {
            match away(read, sid, service, node) {
                Away::Back(what) => pending.push(what),
                Away::Stays(what) => staying.push(what),
                Away::Unsure(what) => unsure.push(what),
            }
        }
    }
    let mut detail = format!("{here} on the node, none due back");
    if !staying.is_empty() {
        detail = format!("{detail}; {}", staying.join(", "));
    }
    if !pending.is_empty() {
        Check::new(NAME, Verdict::Fail, pending.join(", "))
    } else if !unsure.is_empty() {
        Check::new(NAME, Verdict::CannotTell, unsure.join(", "))
    } else {
        Check::new(NAME, Verdict::Pass, detail)
    }
}

/// The move onto `node` queued for the service, if one is: the CRM queues a user's or its
/// rebalancer's `migrate`/`relocate` as `cmd` `[task, target]` until the service can take it
/// (pve-ha-manager `HA/Manager.pm` `execute_migration` and 4.0.x `update_crm_commands`; taken
/// in `next_state_started`).
fn queued_move<'s>(service: &'s Value, node: &str) -> Option<&'s str> {
    match service["cmd"].as_array()?.as_slice() {
        [task, target] if target.as_str() == Some(node) => task
            .as_str()
            .filter(|t| matches!(*t, "migrate" | "relocate")),
        _ => None,
    }
}

/// Where a service away from its maintenance node is headed, in words.
enum Away {
    /// It comes back (or may): not done.
    Back(String),
    /// It stays off the node.
    Stays(String),
    /// That cannot be told.
    Unsure(String),
}

/// Where `sid`, away from `node`, its maintenance node, is headed: `$change_service_state`
/// keeps `maintenance_node` through every state, and each way back to `started` ends in
/// `next_state_started` (a move's on its target), which judges it ([`failback()`]). A service
/// stopped for good, stopping for good, or in `error` stays; one stopped or stopping whose
/// configured state is `started` is started again (`next_state_stopped`), and one being
/// started or recovered may be placed on the node (`next_state_request_start`,
/// `next_state_recovery`: its maintenance node first).
fn away(read: &HaRead<'_>, sid: &str, service: &Value, node: &str) -> Away {
    let on = service["node"].as_str().unwrap_or("?");
    let state = service["state"].as_str().unwrap_or("unknown");
    let wanted = configured_state(read, sid);
    let judged_on = match (state, wanted) {
        ("started" | "freeze", _) => on,
        ("migrate" | "relocate", _) => service["target"].as_str().unwrap_or(on),
        ("stopped" | "request_stop", Ok("started")) => on,
        ("stopped" | "request_stop", Err(why)) => {
            return Away::Unsure(format!("{sid} on {on}: {why}"));
        }
        ("stopped" | "request_stop" | "error", _) => {
            return Away::Stays(format!("{sid} stays on {on} ({state})"));
        }
        _ => return Away::Back(format!("{sid} {state} on {on}: it may be placed here")),
    };
    let now = if judged_on == on {
        format!("on {on}, {state}")
    } else {
        format!("{state} to {judged_on}")
    };
    match failback(read, sid, node, judged_on) {
        Ok(Failback::Back) => Away::Back(format!("{sid} due back ({now})")),
        // Started again through `request_start`, placed anew under `ha-rebalance-on-start`.
        Ok(Failback::Kept) if matches!(state, "stopped" | "request_stop") => Away::Unsure(format!(
            "{sid} on {on}: it is being started, and with the CRS option ha-rebalance-on-start \
             the CRM may place it on {node}"
        )),
        Ok(Failback::Kept) => Away::Stays(format!("{sid} stays on {judged_on} (failback off)")),
        Ok(Failback::Stays(why)) => Away::Stays(format!("{sid} stays on {judged_on} ({why})")),
        Err(why) => Away::Unsure(format!("{sid} on {on}: {why}")),
    }
}

/// The state `sid` is configured for (`GET /cluster/ha/resources`, `state`, default
/// `started`: pve-ha-manager `HA/Resources.pm`), or why it is not known.
fn configured_state<'r>(read: &'r HaRead<'_>, sid: &str) -> Result<&'r str, String> {
    // `HA/Config.pm` `read_and_check_resources_config`: `enabled` is the old name of `started`.
    match read.resource(sid)?["state"].as_str().unwrap_or("started") {
        "enabled" => Ok("started"),
        state => Ok(state),
    }
}

impl HaRead<'_> {
    /// The configured HA resource `sid`, or why it is not known.
    fn resource(&self, sid: &str) -> Result<&Value, String> {
        let resources = self.resources.as_ref().map_err(Clone::clone)?;
        let resource = resources.iter().find(|r| r["sid"].as_str() == Some(sid));
        resource.ok_or_else(|| "not among the HA resources read".to_owned())
    }
}

/// Whether the HA groups were migrated to rules, once every node runs 9 or later; `None`
/// while a node still runs 8 (the migration is not due), a check that cannot tell when a
/// node's release cannot be read.
async fn groups_migrated(
    pve: &Client,
    nodes: &[NodeListItem],
    resources: &Result<Vec<Value>, String>,
) -> Option<Check> {
    const NAME: &str = "HA groups";
    for item in nodes {
        let name = item.node.as_str();
        match pve
            .node(name)
            .status()
            .await
            .map(|s| major_of(&s.pveversion))
        {
            Ok(Some(major)) if major >= 9 => {}
            Ok(Some(_)) => return None,
            Ok(None) => {
                let why = format!("{name}'s release cannot be told");
                return Some(Check::new(NAME, Verdict::CannotTell, why));
            }
            Err(e) => {
                let why = format!("{name}'s release: {e}");
                return Some(Check::new(NAME, Verdict::CannotTell, why));
            }
        }
    }
    let no_resources = resources.as_ref().is_ok_and(Vec::is_empty);
    Some(match pve.cluster().ha_groups_migrated().await {
        Ok(true) => Check::new(NAME, Verdict::Pass, "migrated to rules (none left)"),
        // The CRM migrates only while active, and with no HA resource it stays idle
        // (`HA/CRM.pm` `can_get_active`): the groups stay, and nothing depends on them.
        Ok(false) if no_resources => Check::new(
            NAME,
            Verdict::Pass,
            "left as they are: with no HA resource the CRM stays idle and migrates nothing",
        ),
        Ok(false) => Check::new(
            NAME,
            Verdict::Fail,
            "not migrated yet: the CRM migrates them once every node is online with an active \
             LRM in mode active; its log says why not (\"abort ha groups migration\")",
        ),
        Err(e) => Check::new(NAME, Verdict::CannotTell, e.to_string()),
    })
}

/// Prints the checks, one line each.
pub(crate) fn print_text(after: &After) {
    println!("after {} (target {}.x):", after.node, after.target);
    for check in &after.checks {
        let mark = match check.verdict {
            Verdict::Pass => "ok",
            Verdict::Fail => "NOT YET",
            Verdict::CannotTell => "CANNOT TELL",
        };
        println!("  {mark:<11} {}: {}", check.name, check.detail);
    }
    if after.done() {
        println!("the step is done: the next node's step may start");
    }
}
