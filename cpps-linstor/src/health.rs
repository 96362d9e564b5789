//! DRBD and LINSTOR health, derived from what the controller reports.
//!
//! [`assess`] is a pure function over a [`ClusterState`] (nodes, storage pools, resource groups,
//! resource definitions and `/v1/view/resources`); [`Client::cluster_state`] fetches one. Each
//! resource gets one [`HealthClass`]:
//!
//! - **degraded**: fewer `UpToDate` diskful replicas than its group's `place_count` (or than it
//!   has diskful replicas, when no place count is known);
//! - **desynced**: a volume `Outdated` or `Inconsistent`, or a peer in a resync state
//!   (`SyncSource`, `SyncTarget`, paused or starting syncs), with the sync percentage;
//! - **disconnected**: a DRBD connection that is not `Connected` (`StandAlone`, `Connecting`, …)
//!   seen from an online node;
//! - **unknown**: a volume without a state, on a node that is not online: a replica nobody can
//!   see is never counted as healthy;
//! - **healthy**: none of the above.
//!
//! When several apply, the class is the most specific one, the first of unknown, disconnected,
//! desynced, degraded (a resync target is also short of an `UpToDate` replica; an offline
//! satellite also leaves its peers `Connecting`); every finding is listed in
//! [`ResourceHealth::findings`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::Serialize;

use crate::client::Client;
use crate::error::Error;
use crate::types::node::{Node, NodeType};
use crate::types::resource::{
    DiskState, DrbdConnectionState, ResourceDefinition, ResourceGroup, ResourceWithVolumes,
};
use crate::types::storage::{Capacity, ProviderKind, StoragePool, total_capacity};

/// Everything health is derived from.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ClusterState {
    /// `GET /v1/nodes`.
    pub nodes: Vec<Node>,
    /// `GET /v1/view/storage-pools`.
    pub storage_pools: Vec<StoragePool>,
    /// `GET /v1/resource-groups`.
    pub resource_groups: Vec<ResourceGroup>,
    /// `GET /v1/resource-definitions`.
    pub resource_definitions: Vec<ResourceDefinition>,
    /// `GET /v1/view/resources`.
    pub resources: Vec<ResourceWithVolumes>,
}

impl Client {
    /// Fetches a [`ClusterState`]: `GET /v1/nodes`, `/v1/view/storage-pools`,
    /// `/v1/resource-groups`, `/v1/resource-definitions` and `/v1/view/resources`, five requests
    /// at once on the active controller's connection pool.
    pub async fn cluster_state(&self) -> Result<ClusterState, Error> {
        let (nodes, storage_pools, resource_groups, resource_definitions, resources) = futures::try_join!(
            self.nodes(),
            self.storage_pools(),
            self.resource_groups(),
            self.resource_definitions(),
            self.resources_view(),
        )?;
        Ok(ClusterState {
            nodes,
            storage_pools,
            resource_groups,
            resource_definitions,
            resources,
        })
    }
}

/// Thresholds of the assessment.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HealthOptions {
    /// A pool with less free space than this fraction of its total is running out of space
    /// (default 0.10).
    pub pool_low_free_fraction: f64,
}

impl Default for HealthOptions {
    fn default() -> Self {
        HealthOptions {
            pool_low_free_fraction: 0.10,
        }
    }
}

/// The health class of a resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HealthClass {
    /// A replica's state cannot be seen (its satellite is offline).
    Unknown,
    /// A DRBD connection is down.
    Disconnected,
    /// Data being resynchronised or outdated.
    Desynced,
    /// Fewer `UpToDate` diskful replicas than wanted.
    Degraded,
    /// All replicas `UpToDate` and connected.
    Healthy,
}

impl HealthClass {
    /// `degraded`, `desynced`, `disconnected`, `unknown` or `healthy`.
    pub fn as_str(self) -> &'static str {
        match self {
            HealthClass::Degraded => "degraded",
            HealthClass::Desynced => "desynced",
            HealthClass::Disconnected => "disconnected",
            HealthClass::Unknown => "unknown",
            HealthClass::Healthy => "healthy",
        }
    }
}

impl fmt::Display for HealthClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A resync in progress between two nodes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SyncProgress {
    /// Node reporting the state.
    pub node: String,
    /// Peer node.
    pub peer: String,
    /// Volume number.
    pub volume: Option<i64>,
    /// Replication state (`SyncTarget`, …).
    pub state: String,
    /// Percentage done, when reported.
    pub done_percentage: Option<f64>,
}

/// One finding about a resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finding {
    /// The class this finding puts the resource in.
    pub class: HealthClass,
    /// What was seen.
    pub message: String,
}

/// The health of one resource across its replicas.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceHealth {
    /// Resource name.
    pub name: String,
    /// Its resource group, when known.
    pub resource_group: Option<String>,
    /// The group's place count, when set.
    pub place_count: Option<i64>,
    /// Diskful replicas.
    pub diskful: usize,
    /// Diskful replicas whose every volume is `UpToDate` on an online node.
    pub up_to_date: usize,
    /// Diskless replicas (clients, tie-breakers).
    pub diskless: usize,
    /// The class.
    pub class: HealthClass,
    /// Every finding, in the order found.
    pub findings: Vec<Finding>,
    /// Resyncs in progress.
    pub syncing: Vec<SyncProgress>,
}

/// The health of one node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeHealth {
    /// Node name.
    pub name: String,
    /// Node type.
    pub node_type: String,
    /// Connection status as reported.
    pub connection_status: Option<String>,
    /// Whether it is online (only satellites and combined nodes are expected to be).
    pub online: bool,
    /// Whether it counts as offline: a satellite or combined node that is not `ONLINE`.
    pub offline: bool,
    /// Whether it is evicted.
    pub evicted: bool,
    /// When it was evicted (ms since the Unix epoch).
    pub eviction_timestamp: Option<i64>,
    /// Network interfaces declared without an address.
    pub interfaces_without_address: Vec<String>,
}

/// The health of one storage pool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PoolHealth {
    /// Node.
    pub node: Option<String>,
    /// Pool name.
    pub pool: String,
    /// Provider.
    pub provider: String,
    /// Whether it is diskless (no capacity).
    pub diskless: bool,
    /// Capacities in KiB, for pools with real storage.
    pub capacity: Option<Capacity>,
    /// Whether free space is below the threshold.
    pub low_space: bool,
    /// Error reports on the pool.
    pub errors: Vec<String>,
}

/// Counts per class, for summaries and metrics.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct HealthCounts {
    /// Healthy resources.
    pub healthy: usize,
    /// Degraded resources.
    pub degraded: usize,
    /// Desynced resources.
    pub desynced: usize,
    /// Disconnected resources.
    pub disconnected: usize,
    /// Resources in unknown state.
    pub unknown: usize,
    /// Evicted nodes.
    pub evicted_nodes: usize,
    /// Offline nodes.
    pub offline_nodes: usize,
    /// Pools running out of space.
    pub low_space_pools: usize,
    /// Pools with error reports.
    pub failed_pools: usize,
}

/// The assessment of a whole cluster.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HealthReport {
    /// Nodes.
    pub nodes: Vec<NodeHealth>,
    /// Storage pools.
    pub pools: Vec<PoolHealth>,
    /// Resources, by name.
    pub resources: Vec<ResourceHealth>,
    /// Capacities summed over pools with real storage (diskless pools excluded).
    pub total_capacity: Capacity,
    /// Counts per class.
    pub counts: HealthCounts,
}

impl HealthReport {
    /// Whether anything needs an alert: a resource that is not healthy, or an evicted or
    /// offline node.
    pub fn has_alerts(&self) -> bool {
        let c = &self.counts;
        c.degraded + c.desynced + c.disconnected + c.unknown + c.evicted_nodes + c.offline_nodes > 0
    }

    /// Whether a pool runs out of space or reports errors.
    pub fn has_pool_warnings(&self) -> bool {
        self.counts.low_space_pools + self.counts.failed_pools > 0
    }
}

/// Derives the health of nodes, pools and resources.
pub fn assess(state: &ClusterState, options: &HealthOptions) -> HealthReport {
    let nodes_by_name: BTreeMap<&str, &Node> =
        state.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let groups: BTreeMap<&str, &ResourceGroup> = state
        .resource_groups
        .iter()
        .map(|g| (g.name.as_str(), g))
        .collect();
    let definitions: BTreeMap<&str, &ResourceDefinition> = state
        .resource_definitions
        .iter()
        .map(|d| (d.name.as_str(), d))
        .collect();
    let mut replicas: BTreeMap<&str, Vec<&ResourceWithVolumes>> = BTreeMap::new();
    for resource in &state.resources {
        replicas
            .entry(resource.name.as_str())
            .or_default()
            .push(resource);
    }
    for name in definitions.keys() {
        replicas.entry(name).or_default();
    }

    let mut counts = HealthCounts::default();
    let nodes: Vec<NodeHealth> = state.nodes.iter().map(node_health).collect();
    for node in &nodes {
        counts.evicted_nodes += usize::from(node.evicted);
        counts.offline_nodes += usize::from(node.offline && !node.evicted);
    }
    let pools: Vec<PoolHealth> = state
        .storage_pools
        .iter()
        .map(|p| pool_health(p, options))
        .collect();
    for pool in &pools {
        counts.low_space_pools += usize::from(pool.low_space);
        counts.failed_pools += usize::from(!pool.errors.is_empty());
    }
    let resources: Vec<ResourceHealth> = replicas
        .into_iter()
        .map(|(name, list)| {
            let group = definitions
                .get(name)
                .and_then(|d| d.resource_group_name.as_deref());
            let place_count = group
                .and_then(|g| groups.get(g))
                .and_then(|g| g.place_count());
            resource_health(name, group, place_count, &list, &nodes_by_name)
        })
        .collect();
    for resource in &resources {
        match resource.class {
            HealthClass::Healthy => counts.healthy += 1,
            HealthClass::Degraded => counts.degraded += 1,
            HealthClass::Desynced => counts.desynced += 1,
            HealthClass::Disconnected => counts.disconnected += 1,
            HealthClass::Unknown => counts.unknown += 1,
        }
    }
    HealthReport {
        nodes,
        pools,
        resources,
        total_capacity: total_capacity(&state.storage_pools),
        counts,
    }
}

fn node_health(node: &Node) -> NodeHealth {
    let expected_online = !matches!(node.node_type, NodeType::Controller | NodeType::Auxiliary);
    let online = node.is_online();
    NodeHealth {
        name: node.name.clone(),
        node_type: node.node_type.to_string(),
        connection_status: node.connection_status.as_ref().map(ToString::to_string),
        online,
        offline: expected_online && !online,
        evicted: node.is_evicted(),
        eviction_timestamp: node.eviction_timestamp,
        interfaces_without_address: node
            .net_interfaces
            .iter()
            .filter(|i| i.address.trim().is_empty())
            .map(|i| i.name.clone())
            .collect(),
    }
}

fn pool_health(pool: &StoragePool, options: &HealthOptions) -> PoolHealth {
    let capacity = pool.capacity();
    let low_space = capacity
        .and_then(|c| c.free_fraction())
        .is_some_and(|free| free < options.pool_low_free_fraction);
    PoolHealth {
        node: pool.node_name.clone(),
        pool: pool.storage_pool_name.clone(),
        provider: pool.provider_kind.to_string(),
        diskless: pool.is_diskless() || pool.provider_kind == ProviderKind::Diskless,
        capacity,
        low_space,
        errors: pool
            .reports
            .iter()
            .filter(|r| r.is_error())
            .map(|r| r.message.clone())
            .collect(),
    }
}

fn resource_health(
    name: &str,
    group: Option<&str>,
    place_count: Option<i64>,
    replicas: &[&ResourceWithVolumes],
    nodes: &BTreeMap<&str, &Node>,
) -> ResourceHealth {
    let mut findings: Vec<Finding> = Vec::new();
    let mut syncing = Vec::new();
    let mut diskful = 0;
    let mut diskless = 0;
    let mut up_to_date = 0;
    for replica in replicas {
        let node_name = replica.node_name.as_str();
        let node_online = nodes.get(node_name).is_some_and(|n| n.is_online());
        let is_diskless = replica.is_diskless();
        if is_diskless {
            diskless += 1;
        } else {
            diskful += 1;
        }
        let mut all_up_to_date = node_online && !replica.volumes.is_empty();
        for volume in &replica.volumes {
            let number = volume.volume_number;
            let label = match number {
                Some(n) => format!("volume {n} on {node_name}"),
                None => format!("a volume on {node_name}"),
            };
            let state = volume.disk_state().filter(|_| node_online);
            match state {
                None | Some(DiskState::DUnknown | DiskState::Unknown(_)) => {
                    all_up_to_date = false;
                    let why = if node_online {
                        match volume.disk_state() {
                            Some(s) => format!("reports disk state {s}"),
                            None => "has no state".to_owned(),
                        }
                    } else {
                        "has no state: the node is not online".to_owned()
                    };
                    findings.push(Finding {
                        class: HealthClass::Unknown,
                        message: format!("{label} {why}"),
                    });
                }
                Some(DiskState::UpToDate) => {}
                Some(state @ (DiskState::Outdated | DiskState::Inconsistent)) => {
                    all_up_to_date = false;
                    findings.push(Finding {
                        class: HealthClass::Desynced,
                        message: format!("{label} is {state}"),
                    });
                }
                Some(DiskState::Diskless) if is_diskless => {}
                Some(state) => {
                    all_up_to_date = false;
                    if !is_diskless {
                        findings.push(Finding {
                            class: HealthClass::Degraded,
                            message: format!("{label} is {state}"),
                        });
                    }
                }
            }
            if !node_online {
                continue;
            }
            let Some(volume_state) = &volume.state else {
                continue;
            };
            for (peer, replication) in &volume_state.replication_states {
                let Some(kind) = &replication.replication_state else {
                    continue;
                };
                if kind.is_syncing() {
                    let percent = replication
                        .done_percentage
                        .map(|p| format!(" ({p:.1}% done)"))
                        .unwrap_or_default();
                    findings.push(Finding {
                        class: HealthClass::Desynced,
                        message: format!("{label} is {kind} towards {peer}{percent}"),
                    });
                    syncing.push(SyncProgress {
                        node: node_name.to_owned(),
                        peer: peer.clone(),
                        volume: number,
                        state: kind.to_string(),
                        done_percentage: replication.done_percentage,
                    });
                }
            }
        }
        if all_up_to_date && !is_diskless {
            up_to_date += 1;
        }
        if node_online && let Some(connections) = replica.drbd_connections() {
            for (peer, connection) in connections {
                let state = connection.message.as_ref();
                let down = connection.connected == Some(false)
                    || state.is_some_and(|s| *s != DrbdConnectionState::Connected);
                if down {
                    let shown =
                        state.map_or_else(|| "not connected".to_owned(), ToString::to_string);
                    findings.push(Finding {
                        class: HealthClass::Disconnected,
                        message: format!("{node_name} → {peer}: {shown}"),
                    });
                }
            }
        }
    }
    let wanted = place_count
        .map(|p| usize::try_from(p).unwrap_or(0))
        .unwrap_or(diskful);
    if up_to_date < wanted {
        let wanted_from = match place_count {
            Some(p) => format!("place_count {p}"),
            None => format!("{diskful} diskful replicas"),
        };
        findings.insert(
            0,
            Finding {
                class: HealthClass::Degraded,
                message: format!("{up_to_date} UpToDate diskful replicas, {wanted_from}"),
            },
        );
    }
    let present: BTreeSet<HealthClass> = findings.iter().map(|f| f.class).collect();
    let class = present.first().copied().unwrap_or(HealthClass::Healthy);
    ResourceHealth {
        name: name.to_owned(),
        resource_group: group.map(str::to_owned),
        place_count,
        diskful,
        up_to_date,
        diskless,
        class,
        findings,
        syncing,
    }
}

fn kib(kib: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = kib as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Renders a report as plain text: nodes, pools, then every resource with its class and
/// findings, then a summary line.
pub fn render_text(report: &HealthReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "NODES");
    for node in &report.nodes {
        let status = node.connection_status.as_deref().unwrap_or("(no status)");
        let _ = write!(out, "  {:<24} {:<10} {}", node.name, node.node_type, status);
        if node.evicted {
            match node.eviction_timestamp {
                Some(ms) => {
                    let _ = write!(out, "  EVICTED (at {ms} ms since epoch)");
                }
                None => out.push_str("  EVICTED"),
            }
        } else if node.offline && node.connection_status.as_deref() != Some("OFFLINE") {
            out.push_str("  (not online)");
        }
        for interface in &node.interfaces_without_address {
            let _ = write!(out, "  interface `{interface}` has no address");
        }
        out.push('\n');
    }
    let _ = writeln!(out, "POOLS");
    for pool in &report.pools {
        let place = format!("{}/{}", pool.node.as_deref().unwrap_or("?"), pool.pool);
        let _ = write!(out, "  {place:<40} {:<10}", pool.provider);
        match pool.capacity {
            _ if pool.diskless => out.push_str(" diskless"),
            Some(c) => {
                let percent = c.free_fraction().map_or(0.0, |f| f * 100.0);
                let _ = write!(
                    out,
                    " free {} of {} ({percent:.1}%)",
                    kib(c.free_kib),
                    kib(c.total_kib)
                );
                if pool.low_space {
                    out.push_str("  LOW SPACE");
                }
            }
            None => out.push_str(" capacity unknown"),
        }
        for error in &pool.errors {
            let _ = write!(out, "  ERROR: {error}");
        }
        out.push('\n');
    }
    let total = report.total_capacity;
    let _ = writeln!(
        out,
        "  total (diskless pools excluded): free {} of {}",
        kib(total.free_kib),
        kib(total.total_kib)
    );
    let _ = writeln!(out, "RESOURCES");
    for resource in &report.resources {
        let wanted = resource
            .place_count
            .map_or_else(String::new, |p| format!(", place_count {p}"));
        let _ = writeln!(
            out,
            "  {:<32} {:<12} {}/{} diskful UpToDate{wanted}",
            resource.name, resource.class, resource.up_to_date, resource.diskful
        );
        for finding in &resource.findings {
            let _ = writeln!(out, "      {}: {}", finding.class, finding.message);
        }
    }
    let c = &report.counts;
    let _ = writeln!(
        out,
        "SUMMARY: {} healthy, {} degraded, {} desynced, {} disconnected, {} unknown; {} evicted and {} offline nodes; {} pools low on space, {} with errors",
        c.healthy,
        c.degraded,
        c.desynced,
        c.disconnected,
        c.unknown,
        c.evicted_nodes,
        c.offline_nodes,
        c.low_space_pools,
        c.failed_pools
    );
    out
}
