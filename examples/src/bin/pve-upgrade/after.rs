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
//!   them): the CRM holds the node `online`, not `maintenance` (`HA/NodeStatus.pm`), its LRM
//!   runs in mode `active` with a status no older than the CRM's by more than the 30 s after
//!   which `Status.pm` `timestamp_to_status` calls an LRM dead, and no HA resource is still
//!   due back to it (`maintenance_node`, `HA/Manager.pm` `next_state_started`), moving to it,
//!   or failed on it (`error`, `fence`, `recovery`);
//! - once every node runs 9 or later: the HA groups are migrated to rules (`GET
//!   /cluster/ha/groups`). The CRM does so only when every node is online, its LRM active or
//!   idle in mode `active`, and its pve-manager at least 9.0.0~16 (pve-ha-manager
//!   `src/PVE/HA/Manager.pm` `assert_cluster_can_migrate_ha_groups`), and keeps the groups,
//!   logging "abort ha groups migration", while one is not: the groups still there after the
//!   last node's step say that something keeps it from migrating.

use cpps_proxmox::Client;
use cpps_proxmox::types::{ClusterStatusEntry, ClusterStatusType, NodeListItem, NodeState};
use serde::Serialize;
use serde_json::Value;

use crate::major_of;

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
    checks.extend(ha(pve, node).await);
    if target >= 9 {
        checks.extend(groups_migrated(pve, &nodes).await);
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

/// The HA checks, from the CRM's full status.
async fn ha(pve: &Client, node: &str) -> Vec<Check> {
    let unread = |why: String| {
        HA_CHECKS
            .iter()
            .map(|name| Check::new(name, Verdict::CannotTell, why.clone()))
            .collect()
    };
    let status = match pve.get_raw("cluster/ha/status/manager_status", &[]).await {
        Ok(status) => status,
        Err(e) => return unread(format!("GET /cluster/ha/status/manager_status: {e}")),
    };
    let manager = &status["manager_status"];
    if manager.get("master_node").is_none() {
        return without_crm(pve, unread).await;
    }
    vec![
        crm_node_state(manager, node),
        lrm(&status, node),
        resources(manager, node),
    ]
}

/// The CRM has written no status: with no HA resource configured the HA stack has nothing
/// to bring back (`HA/Manager.pm` runs only while resources exist); with some it cannot tell.
async fn without_crm(pve: &Client, unread: impl Fn(String) -> Vec<Check>) -> Vec<Check> {
    match pve.get_raw("cluster/ha/resources", &[]).await {
        Ok(Value::Array(list)) if list.is_empty() => HA_CHECKS
            .iter()
            .map(|name| Check::new(name, Verdict::Pass, "no HA resource is configured"))
            .collect(),
        Ok(_) => unread("HA resources are configured, but the CRM wrote no status".to_owned()),
        Err(e) => unread(format!("no CRM status, and GET /cluster/ha/resources: {e}")),
    }
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

/// The node's LRM: mode `active`, and alive as far as the CRM's own clock shows.
fn lrm(status: &Value, node: &str) -> Check {
    const NAME: &str = "LRM";
    let lrm = &status["lrm_status"][node];
    let Some(stamp) = lrm["timestamp"].as_i64() else {
        return Check::new(NAME, Verdict::CannotTell, "unable to read its LRM status");
    };
    let mode = lrm["mode"].as_str().unwrap_or("active");
    let state = lrm["state"].as_str().unwrap_or("unknown");
    if mode != "active" {
        return Check::new(NAME, Verdict::Fail, format!("{mode} mode"));
    }
    if state == "lost_agent_lock" || state == "unknown" {
        return Check::new(NAME, Verdict::Fail, format!("state {state}"));
    }
    match status["manager_status"]["timestamp"].as_i64() {
        Some(crm) if crm - stamp > 30 => Check::new(
            NAME,
            Verdict::Fail,
            format!(
                "its status is {} s older than the CRM's: dead?",
                crm - stamp
            ),
        ),
        Some(_) => Check::new(NAME, Verdict::Pass, format!("active, state {state}")),
        None => Check::new(NAME, Verdict::CannotTell, "the CRM's status has no time"),
    }
}

/// No HA resource is still due back to the node, on its way there, or failed on it.
fn resources(manager: &Value, node: &str) -> Check {
    const NAME: &str = "HA resources";
    let Some(services) = manager["service_status"].as_object() else {
        return Check::new(NAME, Verdict::CannotTell, "the CRM lists no service status");
    };
    let mut pending = Vec::new();
    let mut here = 0;
    for (sid, service) in services {
        let on = service["node"].as_str();
        let state = service["state"].as_str().unwrap_or("unknown");
        if service["maintenance_node"].as_str() == Some(node) {
            pending.push(format!(
                "{sid} due back (on {}, {state})",
                on.unwrap_or("?")
            ));
        } else if service["target"].as_str() == Some(node) {
            pending.push(format!("{sid} moving here ({state})"));
        } else if on == Some(node) && matches!(state, "error" | "fence" | "recovery") {
            pending.push(format!("{sid} {state}"));
        } else if on == Some(node) {
            here += 1;
        }
    }
    if pending.is_empty() {
        Check::new(
            NAME,
            Verdict::Pass,
            format!("{here} on the node, none due back"),
        )
    } else {
        Check::new(NAME, Verdict::Fail, pending.join(", "))
    }
}

/// Whether the HA groups were migrated to rules, once every node runs 9 or later; `None`
/// while a node still runs 8 (the migration is not due), a check that cannot tell when a
/// node's release cannot be read.
async fn groups_migrated(pve: &Client, nodes: &[NodeListItem]) -> Option<Check> {
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
    Some(match pve.cluster().ha_groups_migrated().await {
        Ok(true) => Check::new(NAME, Verdict::Pass, "migrated to rules (none left)"),
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
