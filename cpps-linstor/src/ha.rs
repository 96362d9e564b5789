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
//!
//! An estate that moves a VRRP VIP between controller nodes instead (keepalived; the seeds'
//! "controller HA via VRRP (VIP 10.10.20.1)") lists the VIP and the nodes as controllers:
//! [`Client::probe_controllers`](crate::Client::probe_controllers) asks each one directly and
//! [`assess_controllers`] says which node answers and whether the VIP agrees with it
//! ([`ControllerHa`] says what the API can and cannot tell).

use serde::Serialize;

use crate::health::ClusterState;
use crate::types::misc::{ControllerProperties, ControllerVersion};

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

/// What one controller of the list answered when asked directly
/// ([`Client::probe_controllers`](crate::Client::probe_controllers)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProbeOutcome {
    /// It answered `GET /v1/controller/version`, and `GET /v1/controller/properties` when
    /// `properties` is set.
    Answered {
        /// Its version answer.
        version: ControllerVersion,
        /// Its controller properties; `None` when that second read failed.
        properties: Option<ControllerProperties>,
    },
    /// No connection: refused (a standby whose controller service is stopped), unreachable, or
    /// a connect that timed out. The request was not sent.
    NotReached {
        /// The error, in words.
        error: String,
    },
    /// Connected, but no answer came (a listener that never answers, a controller that hangs).
    NoAnswer {
        /// The error, in words.
        error: String,
    },
    /// It answered with an error status or an answer that does not decode: something runs
    /// there, but this read cannot say it is a working controller.
    Failed {
        /// The error, in words.
        error: String,
    },
}

/// One controller of the list, as probed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbedController {
    /// Its base URL.
    pub url: String,
    /// Whether it is the VRRP VIP rather than a controller node's own address.
    pub is_vip: bool,
    /// What it answered.
    pub outcome: ProbeOutcome,
}

/// Which controller node answers, among the list's entries other than the VIP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ActiveNode {
    /// Exactly this one answered: it runs the active controller.
    One {
        /// Its URL.
        url: String,
    },
    /// None answered.
    None,
    /// Several answered. Only one LINSTOR controller may run on one database at a time, so
    /// either two URLs name one host or two controllers run: nothing can be told.
    Several(Vec<String>),
}

/// Whether the VIP reaches the active controller.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum VipState {
    /// No VIP was named, or the list does not hold it.
    NotInList,
    /// The VIP does not answer.
    NotAnswering,
    /// The VIP and the one answering node gave equal version and property answers.
    Agrees,
    /// The VIP and the one answering node answered differently: they are not the same
    /// controller.
    Differs {
        /// What differs.
        reason: String,
    },
    /// The VIP answers, but no comparison can be made.
    CannotTell {
        /// Why.
        reason: String,
    },
}

/// The controller HA of an estate that moves a VRRP VIP between controller nodes (keepalived),
/// as probed from the client's controller list.
///
/// What the REST API can tell: which entries answer, and whether two answers are equal
/// (`GET /v1/controller/version`: version, git hash, build time; `GET /v1/controller/properties`,
/// kept in the controllers' shared database). What it cannot: no endpoint names the host a
/// controller runs on, so equal answers do not prove one process (two controllers of one build
/// on one database answer alike); it is the rule that only one controller runs at a time that
/// makes a single answering node the active one. Which host holds the VIP is VRRP's state, not
/// LINSTOR's, and whether the standby could take over (its service enabled, the database
/// reachable) is not visible either.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ControllerHa {
    /// Every controller of the list, in order.
    pub controllers: Vec<ProbedController>,
    /// The node that runs the active controller.
    pub active: ActiveNode,
    /// Whether the VIP reaches it.
    pub vip: VipState,
}

impl ControllerHa {
    /// The URL calls should go to first: the VIP when it answers, else the one answering node.
    pub fn preferred(&self) -> Option<&str> {
        let vip = self
            .controllers
            .iter()
            .find(|c| c.is_vip && matches!(c.outcome, ProbeOutcome::Answered { .. }));
        match (vip, &self.active) {
            (Some(vip), _) => Some(vip.url.as_str()),
            (None, ActiveNode::One { url }) => Some(url.as_str()),
            _ => None,
        }
    }
}

/// Judges the probed controllers: which node is active, and whether the VIP agrees with it.
pub fn assess_controllers(controllers: Vec<ProbedController>) -> ControllerHa {
    let answering: Vec<&ProbedController> = controllers
        .iter()
        .filter(|c| !c.is_vip && matches!(c.outcome, ProbeOutcome::Answered { .. }))
        .collect();
    let active = match answering.as_slice() {
        [] => ActiveNode::None,
        [one] => ActiveNode::One {
            url: one.url.clone(),
        },
        several => ActiveNode::Several(several.iter().map(|c| c.url.clone()).collect()),
    };
    let vip = match controllers.iter().find(|c| c.is_vip) {
        None => VipState::NotInList,
        Some(vip) => vip_state(&vip.outcome, &answering),
    };
    ControllerHa {
        controllers,
        active,
        vip,
    }
}

fn vip_state(vip: &ProbeOutcome, answering: &[&ProbedController]) -> VipState {
    let ProbeOutcome::Answered {
        version,
        properties,
    } = vip
    else {
        return VipState::NotAnswering;
    };
    let node = match answering {
        [node] => node,
        [] => {
            return VipState::CannotTell {
                reason: "the VIP answers but no controller node of the list does".to_owned(),
            };
        }
        _ => {
            return VipState::CannotTell {
                reason: "several controller nodes answer".to_owned(),
            };
        }
    };
    let ProbeOutcome::Answered {
        version: node_version,
        properties: node_properties,
    } = &node.outcome
    else {
        return VipState::NotAnswering;
    };
    if version != node_version {
        return VipState::Differs {
            reason: format!("the VIP and {} answer other versions", node.url),
        };
    }
    match (properties, node_properties) {
        (Some(a), Some(b)) if a == b => VipState::Agrees,
        (Some(_), Some(_)) => VipState::Differs {
            reason: format!(
                "the VIP and {} answer other controller properties",
                node.url
            ),
        },
        _ => VipState::CannotTell {
            reason: "the controller properties could not be read from both".to_owned(),
        },
    }
}
