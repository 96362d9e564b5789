//! What LINSTOR reports, in a shape independent of `cpps-linstor`.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use cpps_linstor::health::ClusterState;
use serde::Serialize;

/// A LINSTOR node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorNode {
    /// Node name.
    pub name: String,
    /// Whether the controller sees it `ONLINE`.
    pub online: bool,
    /// Whether it is evicted.
    pub evicted: bool,
    /// Network interfaces and their addresses (an empty address is kept, as written).
    pub interfaces: Vec<(String, String)>,
}

/// A LINSTOR storage pool on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorStoragePool {
    /// The node.
    pub node: String,
    /// The pool name.
    pub name: String,
}

/// A resource group and the place count it asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorGroup {
    /// Group name.
    pub name: String,
    /// A storage pool it places on, when set. A group that places on several pools
    /// (`storage_pool_list`) appears once per pool, so that each is compared.
    pub storage_pool: Option<String>,
    /// Its place count, when set.
    pub place_count: Option<i64>,
    /// How many resource definitions are in it: a group with no pool list and none places
    /// nothing (every controller has `DfltRscGrp`, 2 replicas, no pool).
    pub definitions: usize,
}

/// The health of one resource across its replicas (from `cpps_linstor::health`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorResource {
    /// Resource name.
    pub name: String,
    /// `healthy`, `degraded`, `desynced`, `disconnected` or `unknown`.
    pub class: String,
    /// Diskful replicas.
    pub diskful: usize,
    /// Diskful replicas with every volume `UpToDate`.
    pub up_to_date: usize,
    /// The group's place count, when known.
    pub place_count: Option<i64>,
    /// The storage pools its volumes are in.
    pub storage_pools: Vec<String>,
    /// The nodes holding a replica, an evicted one included (the counts above leave it out).
    pub nodes: Vec<String>,
    /// What the health assessment found, in words.
    pub findings: Vec<String>,
}

/// A DRBD connection that is not `Connected`, as the reporting node sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DrbdConnectionFact {
    /// The resource.
    pub resource: String,
    /// The node reporting it.
    pub node: String,
    /// The peer node.
    pub peer: String,
    /// The DRBD connection state (`Connecting`, `StandAlone`, …, or `not connected`).
    pub state: String,
}

/// Everything read from one site's LINSTOR controller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LinstorFacts {
    /// The controller that answered.
    pub controller: String,
    /// Nodes.
    pub nodes: Vec<LinstorNode>,
    /// Storage pools.
    pub storage_pools: Vec<LinstorStoragePool>,
    /// Resource groups, once per storage pool each places on.
    pub groups: Vec<LinstorGroup>,
    /// Resources with their health.
    pub resources: Vec<LinstorResource>,
    /// DRBD connections not `Connected`, seen from online nodes.
    pub connections_down: Vec<DrbdConnectionFact>,
    /// The controller's whole answer, for the rules that reason over it with `cpps-linstor`
    /// itself (LINSTOR-008: what a site going dark would do); not serialised.
    #[serde(skip)]
    pub reading: LinstorReading,
}

/// The controller's whole answer: the cluster state and its properties. Two readings are equal
/// when they are the same reading; Debug prints no content.
#[derive(Clone, Default)]
pub struct LinstorReading(Option<Arc<Reading>>);

struct Reading {
    state: ClusterState,
    controller_props: Option<BTreeMap<String, String>>,
}

impl LinstorReading {
    /// A reading of `state`, with the controller's properties when they could be read.
    pub fn new(state: ClusterState, controller_props: Option<BTreeMap<String, String>>) -> Self {
        Self(Some(Arc::new(Reading {
            state,
            controller_props,
        })))
    }

    /// The cluster state; `None` when the facts were built without one.
    pub fn state(&self) -> Option<&ClusterState> {
        self.0.as_ref().map(|r| &r.state)
    }

    /// `GET /v1/controller/properties`; `None` when not read (the last place DRBD quorum
    /// settings are looked for, so without it no quorum count can be told).
    pub fn controller_props(&self) -> Option<&BTreeMap<String, String>> {
        self.0.as_ref().and_then(|r| r.controller_props.as_ref())
    }
}

impl PartialEq for LinstorReading {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for LinstorReading {}

impl fmt::Debug for LinstorReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.0.is_some() { "read" } else { "none" };
        write!(f, "LinstorReading({what})")
    }
}
