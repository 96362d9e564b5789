//! What LINSTOR reports, in a shape independent of `cpps-linstor`.

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
    /// The storage pool it places on, when set.
    pub storage_pool: Option<String>,
    /// Its place count, when set.
    pub place_count: Option<i64>,
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
    /// The nodes holding a replica.
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
    /// Resource groups.
    pub groups: Vec<LinstorGroup>,
    /// Resources with their health.
    pub resources: Vec<LinstorResource>,
    /// DRBD connections not `Connected`, seen from online nodes.
    pub connections_down: Vec<DrbdConnectionFact>,
}
