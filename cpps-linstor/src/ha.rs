//! Which controller of a drbd-reactor HA pair is active, from what the controller reports.
//!
//! With drbd-reactor's promoter, the controller's database lives on a DRBD resource (the LINBIT
//! setup names it `linstor_db`; drbd-reactor `doc/drbd-reactorctl.1` shows its promoter config,
//! `start = ["var-lib-linstor.mount", "linstor-controller.service"]`). When the resource may be
//! promoted, every node's promoter tries, only one succeeds, and only that node starts the
//! services (drbd-reactor `doc/promoter.md`, "Design" and "Configuration"): the active
//! controller runs where that resource is Primary, and no controller runs elsewhere. The
//! resources view says where it is Primary (`state.in_use`); [`active_controller`] reads it, and
//! [`Client::prefer_controller`](crate::Client::prefer_controller) sends calls there first.

use serde::Serialize;

use crate::health::ClusterState;

/// The DRBD resource holding the controller's database in LINBIT's HA setup.
pub const DEFAULT_CONTROLLER_RESOURCE: &str = "linstor_db";

/// Where the active controller runs, as the resources view tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActiveController {
    /// The resource is Primary on exactly this node.
    Node {
        /// Node name.
        node: String,
        /// Its network interface addresses, for matching a controller URL.
        addresses: Vec<String>,
    },
    /// The resource exists but is Primary nowhere the controller can see: no promoter holds it
    /// (or the view is stale); nothing can be told.
    NotInUse,
    /// The resource is Primary on several nodes: DRBD allows that only with dual-primary,
    /// which a promoter never sets up, so the report itself is suspect.
    Several(Vec<String>),
    /// No replica of the resource: the controller is not run by a promoter on it (or by
    /// another name).
    NoResource,
}

impl ActiveController {
    /// The node name and addresses to prefer, when one node is known.
    pub fn hosts(&self) -> Vec<&str> {
        match self {
            ActiveController::Node { node, addresses } => std::iter::once(node.as_str())
                .chain(addresses.iter().map(String::as_str))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// Where `resource` (the controller's database, [`DEFAULT_CONTROLLER_RESOURCE`]) is Primary.
pub fn active_controller(state: &ClusterState, resource: &str) -> ActiveController {
    let replicas: Vec<_> = state
        .resources
        .iter()
        .filter(|r| r.name == resource)
        .collect();
    if replicas.is_empty() {
        return ActiveController::NoResource;
    }
    let primaries: Vec<&str> = replicas
        .iter()
        .filter(|r| r.state.as_ref().and_then(|s| s.in_use) == Some(true))
        .map(|r| r.node_name.as_str())
        .collect();
    match primaries.as_slice() {
        [] => ActiveController::NotInUse,
        [node] => ActiveController::Node {
            node: (*node).to_owned(),
            addresses: state
                .nodes
                .iter()
                .filter(|n| n.name == *node)
                .flat_map(|n| n.net_interfaces.iter())
                .map(|i| i.address.trim().to_owned())
                .filter(|a| !a.is_empty())
                .collect(),
        },
        several => ActiveController::Several(several.iter().map(|n| (*n).to_owned()).collect()),
    }
}
