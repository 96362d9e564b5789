//! DRBD and LINSTOR health, derived from what the controller reports.
//!
//! [`assess`] is a pure function over a [`ClusterState`] (nodes, storage pools, resource groups,
//! resource definitions and `/v1/view/resources`); [`Client::cluster_state`] fetches one. Each
//! resource gets one [`HealthClass`]:
//!
//! - **degraded**: fewer `UpToDate` diskful replicas than its group's `place_count`, or than 2
//!   when the group sets none (the controller's default: linstor-server `AutoSelectorConfig`
//!   stores `replicaCount == null ? 2`, and linstor-client's `advise.py` expects
//!   `place_count or 2`), or a volume whose `reports` hold an error (linstor-client
//!   `show_volumes` shows it as "Error" whatever its disk state; such a replica is not counted
//!   as `UpToDate`);
//! - **desynced**: a volume `Outdated`, `Inconsistent` or `SyncTarget(42.50%)` (the satellite's
//!   disk state of a resync target whose progress it knows), or a peer in a resync state
//!   (`SyncSource`, `SyncTarget`, paused or starting syncs), with the sync percentage;
//! - **disconnected**: a DRBD connection that is not `Connected` (`StandAlone`, `Connecting`, …)
//!   seen from an online node;
//! - **unknown**: a volume without a state, on a node that is not online: a replica nobody can
//!   see is never counted as healthy; or a DRBD link to a peer that an online replica should
//!   hold but lists no state for;
//! - **inactive**: every replica carries `INACTIVE` (deactivated on purpose); nothing is expected
//!   of it;
//! - **healthy**: none of the above.
//!
//! As linstor-client shows volumes (`linstor_client/commands/vlm_cmds.py`,
//! `volume_expects_disk_state` and `show_volumes`): a disk state is expected only when the
//! volume's top layer is DRBD; a volume of another top layer (a plain `STORAGE`, `LUKS` or
//! `NVME` resource) is "Created" and counts as present when its node is online. An `INACTIVE`
//! replica is skipped. An `EVICTED` one (linstor-server `Resource.Flags.EVICTED` carries
//! `INACTIVE`; the controller sets it on every replica of a node it evicts) is counted apart:
//! linstor-client still shows it, but every peer leaves an `INACTIVE` peer out of its res file
//! (satellite `DrbdResourceFileUtils.regenerateResFile`), so it holds nothing DRBD can reach.
//! A resource left with evicted replicas only is degraded, unless each was inactive before its
//! eviction (`INACTIVE_BEFORE_EVICTION`). linstor-client's `volume_state_cell` also lists
//! `Created` and `Attached` as good disk states of a DRBD-top volume, but linstor-server never
//! sends them there: a volume's disk state comes only from `DrbdVolume.diskStateInfo` (DRBD's
//! labels, `drbdstate/DiskState.java`, or `SyncTarget(42.50%)`) and from `CloneService`
//! (`Cloning`, `CloningDone`, `CloningFailed`), so they are kept as unknown values.
//!
//! **Sites and risks.** Each node's site is read from a node property (default `Aux/site`,
//! [`HealthOptions::site_property`]) or given by the caller ([`HealthOptions::node_sites`]).
//! Each resource lists its replicas per site and its DRBD quorum settings, and gets
//! [`Risk`]s that do not change its class: diskful replicas all in one failure domain when the
//! group's `replicas_on_different`/`x_replicas_on_different_map` asks for several, two diskful
//! replicas without a tie-breaker where a third node has a storage pool to hold one (split
//! brain; linstor-client `advise.py`), a quorum policy that differs from the group's,
//! and diskful replicas in more than one site when the group does not ask for that. A diskless
//! tie-breaker in a third site stores no data and is not cross-site replication.
//!
//! When several apply, the class is the most specific one, the first of unknown, disconnected,
//! desynced, degraded (a resync target is also short of an `UpToDate` replica; an offline
//! satellite also leaves its peers `Connecting`); every finding is listed in
//! [`ResourceHealth::findings`].

use std::collections::{BTreeMap, BTreeSet};

use futures::TryStreamExt;
use serde::Serialize;

use crate::api::pagination::MAX_PAGE_SIZE;
use crate::client::Client;
use crate::error::Error;
use crate::types::LayerType;
use crate::types::node::{NODE_UNAME, Node, NodeType};
use crate::types::resource::{
    DiskState, DrbdConnectionState, ResourceDefinition, ResourceGroup, ResourceWithVolumes, Volume,
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

impl ClusterState {
    /// The names of the nodes the controller sees online: whose view of their replicas and
    /// connections is current (an offline satellite's is stale).
    pub fn online_nodes(&self) -> BTreeSet<&str> {
        self.nodes
            .iter()
            .filter(|n| n.is_online())
            .map(|n| n.name.as_str())
            .collect()
    }

    /// Keys every replica's DRBD connections and its volumes' replication states by the peer's
    /// LINSTOR node name.
    ///
    /// The controller keys the connections as the satellite names them (linstor-server
    /// `Json.java` `apiToResourceWithVolumes`; `ConnectionStateEventHandler` maps nothing): by
    /// DRBD's connection name (`DrbdEventPublisher`, `new NodeName(getConnectionName())`), which
    /// drbdadm takes from the peer's `on` section (drbd-utils `user/v9/drbdadm_postparse.c`
    /// `create_implicit_net_options`), where the satellite's res file writes the peer's
    /// `NodeUname`, its host name, or its node name while that is unset (`ConfFileBuilder`,
    /// `getPropWithDefault(NODE_UNAME, name)`). Such a key is read as the node it names so,
    /// case-insensitively as linstor-server's `NodeName`. Replication states come keyed by node
    /// name from 1.31.1 on (`ReplicationStateEventHandler.getMappedName`), by host name in
    /// 1.31.0: a node's own name is read first there. A key that names no node is kept as it
    /// is. [`Client::cluster_state`] calls it.
    pub fn key_connections_by_node_name(&mut self) {
        let mut by_uname: BTreeMap<String, String> = BTreeMap::new();
        for node in &self.nodes {
            let uname = node.props.get(NODE_UNAME).unwrap_or(&node.name);
            by_uname
                .entry(uname.to_lowercase())
                .or_insert_with(|| node.name.clone());
        }
        let mut by_name = by_uname.clone();
        for node in &self.nodes {
            by_name.insert(node.name.to_lowercase(), node.name.clone());
        }
        for replica in &mut self.resources {
            if let Some(drbd) = replica.layer_object.as_mut().and_then(|l| l.drbd.as_mut()) {
                rekey(&mut drbd.connections, &by_uname);
            }
            for state in replica.volumes.iter_mut().filter_map(|v| v.state.as_mut()) {
                rekey(&mut state.replication_states, &by_name);
            }
        }
    }
}

/// Re-keys `map` by the node names `by_key` gives for its lower-cased keys; other keys stay.
fn rekey<V>(map: &mut BTreeMap<String, V>, by_key: &BTreeMap<String, String>) {
    *map = std::mem::take(map)
        .into_iter()
        .map(|(key, value)| match by_key.get(&key.to_lowercase()) {
            Some(name) => (name.clone(), value),
            None => (key, value),
        })
        .collect();
}

impl Client {
    /// Fetches a [`ClusterState`]: `GET /v1/nodes`, `/v1/view/storage-pools`,
    /// `/v1/resource-groups`, `/v1/resource-definitions` and `/v1/view/resources`, the five
    /// lists at once on the active controller's connection pool. Nodes, groups and definitions
    /// are read page by page (`offset`/`limit`, [`MAX_PAGE_SIZE`] per page), so that no answer
    /// grows past the client's size cap. The storage pools and the resources view are read in
    /// one request each ([`Client::storage_pools`], [`Client::resources_view`]), since every
    /// page of them makes the controller ask every satellite again. Only when such an answer
    /// passes its cap is that list read again page by page.
    pub async fn cluster_state(&self) -> Result<ClusterState, Error> {
        let (nodes, storage_pools, resource_groups, resource_definitions, resources) = futures::try_join!(
            self.nodes_paged(MAX_PAGE_SIZE).try_collect::<Vec<_>>(),
            self.storage_pools_whole_or_paged(),
            self.resource_groups_paged(MAX_PAGE_SIZE)
                .try_collect::<Vec<_>>(),
            self.resource_definitions_paged(MAX_PAGE_SIZE)
                .try_collect::<Vec<_>>(),
            self.resources_view_whole_or_paged(),
        )?;
        let mut state = ClusterState {
            nodes,
            storage_pools,
            resource_groups,
            resource_definitions,
            resources,
        };
        state.key_connections_by_node_name();
        Ok(state)
    }
}

impl Client {
    /// [`Client::storage_pools`], or, when its answer passes the client's `max_response_bytes`,
    /// the list page by page.
    ///
    /// Every request to `/v1/view/storage-pools`, a page or not, makes the controller ask every
    /// satellite with thin pools for its free space before it cuts the page (linstor-server
    /// `View.viewStoragePools` → `CtrlStorPoolListApiCallHandler.listStorPools` with
    /// `fromCache = false` → `fetchThinFreeSpaceInfo`; `storPoolListToResponse` pages
    /// afterwards), so one request is one fan-out.
    async fn storage_pools_whole_or_paged(&self) -> Result<Vec<StoragePool>, Error> {
        match self.storage_pools().await {
            Err(Error::Http(e)) if e.is_body_too_large() => {
                tracing::warn!(error = %e, "the storage pool list passes the cap; reading it page by page");
                self.storage_pools_paged(MAX_PAGE_SIZE).try_collect().await
            }
            other => other,
        }
    }

    /// [`Client::resources_view`], or, when its answer passes
    /// [`ClientBuilder::resources_view_max_response_bytes`](crate::ClientBuilder::resources_view_max_response_bytes),
    /// the view page by page under the client's own cap: a lowered cap costs one more fan-out
    /// and a page each, never the poll.
    async fn resources_view_whole_or_paged(&self) -> Result<Vec<ResourceWithVolumes>, Error> {
        match self.resources_view().await {
            Err(Error::Http(e)) if e.is_body_too_large() => {
                tracing::warn!(error = %e, "the resources view passes its cap; reading it page by page");
                self.resources_view_paged(MAX_PAGE_SIZE).try_collect().await
            }
            other => other,
        }
    }
}

/// The node property that names a node's site by default (`Aux/site`: `Aux/` is
/// `ApiConsts.NAMESPC_AUXILIARY`, linstor-common `consts.json`).
pub const DEFAULT_SITE_PROPERTY: &str = "Aux/site";

/// The replica count the controller uses when a group sets no `place_count` (linstor-server
/// `server/src/main/java/com/linbit/linstor/core/objects/AutoSelectorConfig.java`).
pub const DEFAULT_PLACE_COUNT: i64 = 2;

/// Thresholds and site settings of the assessment.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HealthOptions {
    /// A pool with less free space than this fraction of its total is running out of space
    /// (default 0.10).
    pub pool_low_free_fraction: f64,
    /// The node property naming a node's site (default [`DEFAULT_SITE_PROPERTY`]).
    pub site_property: String,
    /// Sites of nodes that do not carry the property, for example from the topology (node name
    /// → site); the property wins where both say.
    pub node_sites: BTreeMap<String, String>,
}

impl Default for HealthOptions {
    fn default() -> Self {
        HealthOptions {
            pool_low_free_fraction: 0.10,
            site_property: DEFAULT_SITE_PROPERTY.to_owned(),
            node_sites: BTreeMap::new(),
        }
    }
}

cpps_http::named_enum! {
    /// The health class of a resource.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum HealthClass {
        /// A replica's state cannot be seen (its satellite is offline).
        Unknown => "unknown",
        /// A DRBD connection is down.
        Disconnected => "disconnected",
        /// Data being resynchronised or outdated.
        Desynced => "desynced",
        /// Fewer `UpToDate` diskful replicas than wanted, or a volume reporting an error.
        Degraded => "degraded",
        /// Every replica is `INACTIVE`: deactivated on purpose, nothing expected of it.
        Inactive => "inactive",
        /// All replicas `UpToDate` and connected.
        Healthy => "healthy",
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

cpps_http::named_enum! {
    /// A risk to a resource's data that does not change its class.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "snake_case")]
    #[non_exhaustive]
    pub enum RiskKind {
        /// All diskful replicas share one value of a property the group asks replicas to differ in
        /// (one failure domain).
        SingleFailureDomain => "single_failure_domain",
        /// Two diskful replicas and no diskless one, while a third node has a storage pool:
        /// without a tie-breaker's vote, a network split leaves each side without quorum or,
        /// with quorum off, both primary (split brain).
        NoTieBreaker => "no_tie_breaker",
        /// The resource definition sets a DRBD quorum option the group sets otherwise.
        QuorumDiffersFromGroup => "quorum_differs_from_group",
        /// Diskful replicas in more than one site although the group does not ask for it: DRBD
        /// replicates across the sites' link.
        CrossSiteReplication => "cross_site_replication",
    }
}

/// One risk of a resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Risk {
    /// What kind.
    pub kind: RiskKind,
    /// What was seen.
    pub message: String,
}

/// The replicas of a resource in one site.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SiteReplicas {
    /// The site (`None`: nodes whose site is not known).
    pub site: Option<String>,
    /// Diskful replicas.
    pub diskful: usize,
    /// Diskful replicas whose every volume is `UpToDate` on an online node.
    pub up_to_date: usize,
    /// Diskless replicas that are tie-breakers (`TIE_BREAKER`).
    pub tie_breakers: usize,
    /// Other diskless replicas (clients).
    pub diskless_clients: usize,
}

/// The DRBD quorum settings of a resource: `DrbdOptions/Resource/quorum` and
/// `DrbdOptions/Resource/on-no-quorum` (`ApiConsts.NAMESPC_DRBD_RESOURCE_OPTIONS` + the drbdsetup
/// option names) on the resource definition and on its group.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct QuorumView {
    /// `quorum` on the resource definition, when a user set it (a value the controller's
    /// auto-quorum wrote, marked `Internal/Drbd/QuorumSetBy=linstor`, is in `auto_quorum`).
    pub quorum: Option<String>,
    /// The value auto-quorum wrote on the definition (linstor-server
    /// `CtrlRscAutoQuorumHelper.java`).
    pub auto_quorum: Option<String>,
    /// `on-no-quorum` on the resource definition.
    pub on_no_quorum: Option<String>,
    /// `quorum` on the group.
    pub group_quorum: Option<String>,
    /// `on-no-quorum` on the group.
    pub group_on_no_quorum: Option<String>,
    /// Nodes holding a diskless tie-breaker replica.
    pub tie_breakers: Vec<String>,
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
    /// The diskful replicas wanted: the place count, or [`DEFAULT_PLACE_COUNT`] when the group
    /// sets none.
    pub wanted: usize,
    /// Diskful replicas.
    pub diskful: usize,
    /// Diskful replicas whose every volume is `UpToDate` (or, below a top layer other than DRBD,
    /// created) on an online node.
    pub up_to_date: usize,
    /// Diskless replicas (clients, tie-breakers).
    pub diskless: usize,
    /// `INACTIVE` replicas, left out of every count above.
    pub inactive: usize,
    /// `EVICTED` replicas (on a node the controller evicted), left out of every count above:
    /// DRBD no longer replicates to them.
    pub evicted: usize,
    /// Replicas per site, sites in name order, unknown site last.
    pub sites: Vec<SiteReplicas>,
    /// DRBD quorum settings.
    pub quorum: QuorumView,
    /// Risks to the data that do not change the class.
    pub risks: Vec<Risk>,
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
    /// Its site, from [`HealthOptions::site_property`] or [`HealthOptions::node_sites`].
    pub site: Option<String>,
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
    /// Inactive resources.
    pub inactive: usize,
    /// Resources with at least one [`Risk`].
    pub at_risk: usize,
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
#[non_exhaustive]
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

    /// Whether a resource carries a [`Risk`].
    pub fn has_risks(&self) -> bool {
        self.counts.at_risk > 0
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
    let nodes: Vec<NodeHealth> = state
        .nodes
        .iter()
        .map(|n| node_health(n, options))
        .collect();
    let sites: BTreeMap<&str, &str> = nodes
        .iter()
        .filter_map(|n| Some((n.name.as_str(), n.site.as_deref()?)))
        .chain(
            options
                .node_sites
                .iter()
                .map(|(node, site)| (node.as_str(), site.as_str())),
        )
        .fold(BTreeMap::new(), |mut map, (node, site)| {
            // The node's own property, listed first, wins over the caller's map.
            map.entry(node).or_insert(site);
            map
        });
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
    let context = Context {
        nodes: &nodes_by_name,
        sites: &sites,
        site_property: &options.site_property,
        pool_nodes: pool_nodes(state),
    };
    let resources: Vec<ResourceHealth> = replicas
        .into_iter()
        .map(|(name, list)| {
            let definition = definitions.get(name).copied();
            let group_name = definition.and_then(|d| d.resource_group_name.as_deref());
            let group = group_name.and_then(|g| groups.get(g)).copied();
            resource_health(name, group_name, definition, group, &list, &context)
        })
        .collect();
    for resource in &resources {
        match resource.class {
            HealthClass::Healthy => counts.healthy += 1,
            HealthClass::Degraded => counts.degraded += 1,
            HealthClass::Desynced => counts.desynced += 1,
            HealthClass::Disconnected => counts.disconnected += 1,
            HealthClass::Unknown => counts.unknown += 1,
            HealthClass::Inactive => counts.inactive += 1,
        }
        counts.at_risk += usize::from(!resource.risks.is_empty());
    }
    HealthReport {
        nodes,
        pools,
        resources,
        total_capacity: total_capacity(&state.storage_pools),
        counts,
    }
}

fn node_health(node: &Node, options: &HealthOptions) -> NodeHealth {
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
        site: node
            .props
            .get(&options.site_property)
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
    }
}

/// What every resource's assessment looks up.
struct Context<'a> {
    nodes: &'a BTreeMap<&'a str, &'a Node>,
    sites: &'a BTreeMap<&'a str, &'a str>,
    site_property: &'a str,
    /// Nodes that could hold a replica ([`pool_nodes`]).
    pool_nodes: usize,
}

/// Nodes with a storage pool, diskless ones included, as linstor-client `advise.py` counts
/// them (`_check_expected_replicas`); without a pool list, the satellite and combined nodes.
fn pool_nodes(state: &ClusterState) -> usize {
    if state.storage_pools.is_empty() {
        return state
            .nodes
            .iter()
            .filter(|n| matches!(n.node_type, NodeType::Satellite | NodeType::Combined))
            .count();
    }
    state
        .storage_pools
        .iter()
        .filter_map(|p| p.node_name.as_deref())
        .collect::<BTreeSet<_>>()
        .len()
}

/// `ApiConsts.NAMESPC_DRBD_RESOURCE_OPTIONS` + `/quorum` (linstor-common `consts.json`,
/// linstor-server `InternalApiConsts.KEY_DRBD_QUORUM`).
const QUORUM_KEY: &str = "DrbdOptions/Resource/quorum";
/// `DrbdOptions/Resource/on-no-quorum` (drbdsetup's option name).
const ON_NO_QUORUM_KEY: &str = "DrbdOptions/Resource/on-no-quorum";
/// `ApiConsts.NAMESPC_INTERNAL_DRBD` + `/` + `ApiConsts.KEY_QUORUM_SET_BY`.
const QUORUM_SET_BY_KEY: &str = "Internal/Drbd/QuorumSetBy";

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
    group_name: Option<&str>,
    definition: Option<&ResourceDefinition>,
    group: Option<&ResourceGroup>,
    replicas: &[&ResourceWithVolumes],
    ctx: &Context<'_>,
) -> ResourceHealth {
    let place_count = group.and_then(ResourceGroup::place_count);
    let wanted = usize::try_from(place_count.unwrap_or(DEFAULT_PLACE_COUNT)).unwrap_or(0);
    let mut tally = Tally::default();
    for replica in replicas {
        tally.add_replica(replica, ctx);
    }
    let Tally {
        mut findings,
        syncing,
        diskful,
        diskless,
        up_to_date,
        inactive,
        evicted,
        evicted_inactive,
        per_site,
        diskful_nodes,
        tie_breakers,
    } = tally;
    // Deactivated on purpose: every replica inactive, or evicted after it was (linstor-server
    // `CtrlNodeApiCallHandler.declareEvicted` marks those `INACTIVE_BEFORE_EVICTION`).
    let was_inactive = inactive + evicted_inactive;
    let all_inactive = was_inactive > 0 && was_inactive == replicas.len();
    if !all_inactive && up_to_date < wanted {
        let wanted_from = match place_count {
            Some(p) => format!("place_count {p}"),
            None => format!(
                "place_count {DEFAULT_PLACE_COUNT} (the controller's default: the group sets none)"
            ),
        };
        findings.insert(
            0,
            Finding {
                class: HealthClass::Degraded,
                message: format!("{up_to_date} UpToDate diskful replicas, {wanted_from}"),
            },
        );
    }
    findings.extend(unreported_links(replicas, ctx));
    let present: BTreeSet<HealthClass> = findings.iter().map(|f| f.class).collect();
    let class = match present.first() {
        Some(class) => *class,
        None if all_inactive => HealthClass::Inactive,
        None => HealthClass::Healthy,
    };
    let quorum = quorum_view(definition, group, tie_breakers);
    let risks = if all_inactive {
        Vec::new()
    } else {
        risks(
            group_name,
            group,
            &diskful_nodes,
            diskless,
            &quorum,
            &per_site,
            ctx,
        )
    };
    // Sites in name order, the unknown site last.
    let mut sites: Vec<SiteReplicas> = per_site.into_values().collect();
    sites.sort_by(|a, b| (a.site.is_none(), &a.site).cmp(&(b.site.is_none(), &b.site)));
    ResourceHealth {
        name: name.to_owned(),
        resource_group: group_name.map(str::to_owned),
        place_count,
        wanted,
        diskful,
        up_to_date,
        diskless,
        inactive,
        evicted,
        sites,
        quorum,
        risks,
        class,
        findings,
        syncing,
    }
}

/// The DRBD links an online replica whose state the controller reports should hold but
/// lists no state for: whether it replicates to that peer cannot be told. The satellite's res
/// file configures a connection to every peer not `INACTIVE` (evicted ones included) or
/// `DELETE`, but none between two diskless replicas (linstor-server
/// `DrbdResourceFileUtils.regenerateResFile`, `ConfFileBuilder.build`,
/// `Resource.disklessForDrbdPeers`), and the controller lists the state of each connection the
/// satellite reports (`Json.java` `apiToResourceWithVolumes`).
fn unreported_links(replicas: &[&ResourceWithVolumes], ctx: &Context<'_>) -> Vec<Finding> {
    let configured = |r: &ResourceWithVolumes| !r.has_flag("INACTIVE") && !r.has_flag("DELETE");
    let drbd_diskless = |r: &ResourceWithVolumes| {
        r.has_flag("DRBD_DISKLESS") && !r.has_flag("DISK_ADDING") && !r.has_flag("DISK_REMOVING")
    };
    let mut findings = Vec::new();
    for replica in replicas
        .iter()
        .filter(|r| configured(r) && r.state.is_some())
    {
        let node = replica.node_name.as_str();
        let online = ctx.nodes.get(node).is_some_and(|n| n.is_online());
        let Some(links) = replica.drbd_connections().filter(|_| online) else {
            continue;
        };
        for peer in replicas
            .iter()
            .filter(|p| configured(p) && p.node_name != node)
        {
            let both_diskless = drbd_diskless(peer) && replica.has_flag("DRBD_DISKLESS");
            if !both_diskless && !links.contains_key(&peer.node_name) {
                findings.push(Finding {
                    class: HealthClass::Unknown,
                    message: format!(
                        "{node} reports no DRBD connection to {}: whether it replicates there cannot be told",
                        peer.node_name
                    ),
                });
            }
        }
    }
    findings
}

/// What the replicas of one resource add up to, replica by replica.
#[derive(Default)]
struct Tally<'a> {
    findings: Vec<Finding>,
    syncing: Vec<SyncProgress>,
    diskful: usize,
    diskless: usize,
    up_to_date: usize,
    inactive: usize,
    evicted: usize,
    /// Evicted replicas that were inactive before (`INACTIVE_BEFORE_EVICTION`).
    evicted_inactive: usize,
    per_site: BTreeMap<Option<&'a str>, SiteReplicas>,
    diskful_nodes: Vec<&'a str>,
    tie_breakers: Vec<String>,
}

impl<'a> Tally<'a> {
    /// Counts one replica and adds its volumes' and connections' findings.
    fn add_replica(&mut self, replica: &'a ResourceWithVolumes, ctx: &Context<'a>) {
        // Peers leave an evicted replica out of DRBD (see the module docs).
        if replica.has_flag("EVICTED") {
            self.evicted += 1;
            self.evicted_inactive += usize::from(replica.has_flag("INACTIVE_BEFORE_EVICTION"));
            return;
        }
        // linstor-client `show_volumes`: "do not show non existing volumes for inactive
        // resources".
        if replica.has_flag("INACTIVE") {
            self.inactive += 1;
            return;
        }
        let node_name = replica.node_name.as_str();
        let node_online = ctx.nodes.get(node_name).is_some_and(|n| n.is_online());
        let is_diskless = replica.is_diskless();
        let site = ctx.sites.get(node_name).copied();
        let site_entry = self.per_site.entry(site).or_insert_with(|| SiteReplicas {
            site: site.map(str::to_owned),
            ..SiteReplicas::default()
        });
        if is_diskless {
            self.diskless += 1;
            if replica.has_flag("TIE_BREAKER") {
                site_entry.tie_breakers += 1;
                self.tie_breakers.push(node_name.to_owned());
            } else {
                site_entry.diskless_clients += 1;
            }
        } else {
            self.diskful += 1;
            site_entry.diskful += 1;
            self.diskful_nodes.push(node_name);
        }
        let mut all_up_to_date = node_online && !replica.volumes.is_empty();
        for volume in &replica.volumes {
            let replica_at = ReplicaAt {
                node_name,
                node_online,
                is_diskless,
            };
            all_up_to_date &= self.add_volume(volume, &replica_at);
        }
        if all_up_to_date && !is_diskless {
            self.up_to_date += 1;
            if let Some(entry) = self.per_site.get_mut(&site) {
                entry.up_to_date += 1;
            }
        }
        if node_online && let Some(connections) = replica.drbd_connections() {
            for (peer, connection) in connections {
                let state = connection.message.as_ref();
                let down = connection.connected == Some(false)
                    || state.is_some_and(|s| *s != DrbdConnectionState::Connected);
                if down {
                    let shown =
                        state.map_or_else(|| "not connected".to_owned(), ToString::to_string);
                    self.findings.push(Finding {
                        class: HealthClass::Disconnected,
                        message: format!("{node_name} → {peer}: {shown}"),
                    });
                }
            }
        }
    }

    /// Adds the findings of one volume of a replica; whether it is `UpToDate` and error-free.
    fn add_volume(&mut self, volume: &Volume, at: &ReplicaAt<'_>) -> bool {
        let ReplicaAt {
            node_name,
            node_online,
            ..
        } = *at;
        let number = volume.volume_number;
        let label = match number {
            Some(n) => format!("volume {n} on {node_name}"),
            None => format!("a volume on {node_name}"),
        };
        let mut up_to_date = true;
        for message in error_reports(volume) {
            up_to_date = false;
            self.findings.push(Finding {
                class: HealthClass::Degraded,
                message: format!("{label} reports an error: {message}"),
            });
        }
        if !expects_disk_state(volume) {
            // linstor-client shows such a volume as "Created"; it has no DRBD state to
            // judge. Still, a replica on a node nobody can see is not counted as present.
            if !node_online {
                up_to_date = false;
                self.findings.push(Finding {
                    class: HealthClass::Unknown,
                    message: format!("{label} has no state: the node is not online"),
                });
            }
            return up_to_date;
        }
        let (state_up_to_date, finding) = disk_state_finding(volume, &label, at);
        up_to_date &= state_up_to_date;
        self.findings.extend(finding);
        if node_online && let Some(volume_state) = &volume.state {
            for (peer, replication) in &volume_state.replication_states {
                let Some(kind) = &replication.replication_state else {
                    continue;
                };
                if kind.is_syncing() {
                    let percent = replication
                        .done_percentage
                        .map(|p| format!(" ({p:.1}% done)"))
                        .unwrap_or_default();
                    self.findings.push(Finding {
                        class: HealthClass::Desynced,
                        message: format!("{label} is {kind} towards {peer}{percent}"),
                    });
                    self.syncing.push(SyncProgress {
                        node: node_name.to_owned(),
                        peer: peer.clone(),
                        volume: number,
                        state: kind.to_string(),
                        done_percentage: replication.done_percentage,
                    });
                }
            }
        }
        up_to_date
    }
}

/// Where a replica is: its node, whether that node is online, whether the replica is diskless.
#[derive(Clone, Copy)]
struct ReplicaAt<'a> {
    node_name: &'a str,
    node_online: bool,
    is_diskless: bool,
}

/// Whether a volume's disk state is `UpToDate` (or `Diskless` on a diskless replica), and the
/// finding its state gives otherwise.
fn disk_state_finding(volume: &Volume, label: &str, at: &ReplicaAt<'_>) -> (bool, Option<Finding>) {
    let finding = |class, message| (false, Some(Finding { class, message }));
    match volume.disk_state().filter(|_| at.node_online) {
        Some(state) if state.sync_target_done().is_some() => {
            let done = state.sync_target_done().unwrap_or_default();
            finding(
                HealthClass::Desynced,
                format!("{label} is SyncTarget ({done} done)"),
            )
        }
        None | Some(DiskState::DUnknown | DiskState::Unknown(_)) => {
            let why = if at.node_online {
                match volume.disk_state() {
                    Some(s) => format!("reports disk state {s}"),
                    None => "has no state".to_owned(),
                }
            } else {
                "has no state: the node is not online".to_owned()
            };
            finding(HealthClass::Unknown, format!("{label} {why}"))
        }
        Some(DiskState::UpToDate) => (true, None),
        Some(state @ (DiskState::Outdated | DiskState::Inconsistent)) => {
            finding(HealthClass::Desynced, format!("{label} is {state}"))
        }
        Some(DiskState::Diskless) if at.is_diskless => (true, None),
        Some(_) if at.is_diskless => (false, None),
        Some(state) => finding(HealthClass::Degraded, format!("{label} is {state}")),
    }
}

/// The messages of a volume's error reports. linstor-client `show_volumes` (`vlm_cmds.py`)
/// shows a volume as "Error" when any report `is_error()` (both type bits), whatever its disk
/// state: a create or adjust that failed on the satellite leaves the replica unusable.
fn error_reports(volume: &Volume) -> impl Iterator<Item = &str> {
    volume
        .reports
        .iter()
        .filter(|r| r.is_error())
        .map(|r| r.message.as_str())
}

/// Whether a disk state is expected: linstor-client `volume_expects_disk_state` (the volume's top
/// layer is DRBD). A volume without layer data that still reports a disk state is judged by it.
fn expects_disk_state(volume: &Volume) -> bool {
    match volume.layer_data_list.first() {
        Some(top) => top.layer_type == Some(LayerType::Drbd),
        None => volume.disk_state().is_some(),
    }
}

fn prop<'a>(props: &'a BTreeMap<String, String>, key: &str) -> Option<&'a str> {
    props.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
}

fn quorum_view(
    definition: Option<&ResourceDefinition>,
    group: Option<&ResourceGroup>,
    tie_breakers: Vec<String>,
) -> QuorumView {
    let empty = BTreeMap::new();
    let rd = definition.map_or(&empty, |d| &d.props);
    let rg = group.map_or(&empty, |g| &g.props);
    // linstor-server `CtrlPropsHelper.java` marks a quorum a user set with
    // `Internal/Drbd/QuorumSetBy=user`; auto-quorum (`CtrlRscAutoQuorumHelper.java`) leaves it
    // unset or `linstor`.
    let set_by_user = prop(rd, QUORUM_SET_BY_KEY).is_some_and(|v| v.eq_ignore_ascii_case("user"));
    let rd_quorum = prop(rd, QUORUM_KEY).map(str::to_owned);
    let (quorum, auto_quorum) = if set_by_user {
        (rd_quorum, None)
    } else {
        (None, rd_quorum)
    };
    QuorumView {
        quorum,
        auto_quorum,
        on_no_quorum: prop(rd, ON_NO_QUORUM_KEY).map(str::to_owned),
        group_quorum: prop(rg, QUORUM_KEY).map(str::to_owned),
        group_on_no_quorum: prop(rg, ON_NO_QUORUM_KEY).map(str::to_owned),
        tie_breakers,
    }
}

/// The failure-domain properties the group asks replicas to differ in, with how many replicas
/// may share one value (`replicas_on_different`: 1; `x_replicas_on_different_map`: its count).
fn failure_domains(group: Option<&ResourceGroup>) -> Vec<(&str, usize)> {
    let Some(filter) = group.and_then(|g| g.select_filter.as_ref()) else {
        return Vec::new();
    };
    let mut domains: Vec<(&str, usize)> = filter
        .replicas_on_different
        .iter()
        .map(|key| (key.as_str(), 1))
        .collect();
    for (key, count) in &filter.x_replicas_on_different_map {
        if !domains.iter().any(|(k, _)| k == key) {
            domains.push((key.as_str(), usize::try_from(*count).unwrap_or(1).max(1)));
        }
    }
    domains
}

fn risks(
    group_name: Option<&str>,
    group: Option<&ResourceGroup>,
    diskful_nodes: &[&str],
    diskless: usize,
    quorum: &QuorumView,
    per_site: &BTreeMap<Option<&str>, SiteReplicas>,
    ctx: &Context<'_>,
) -> Vec<Risk> {
    let mut risks = Vec::new();
    let group_label = group_name.unwrap_or("(no group)");
    let domains = failure_domains(group);
    for (key, per_value) in &domains {
        let values: Vec<Option<&str>> = diskful_nodes
            .iter()
            .map(|node| {
                if *key == ctx.site_property {
                    ctx.sites.get(node).copied()
                } else {
                    ctx.nodes.get(node).and_then(|n| prop(&n.props, key))
                }
            })
            .collect();
        if let [Some(first), rest @ ..] = values.as_slice()
            && values.len() > *per_value
            && rest.iter().all(|v| *v == Some(*first))
        {
            risks.push(Risk {
                kind: RiskKind::SingleFailureDomain,
                message: format!(
                    "all {} diskful replicas have {key}={first}, but group {group_label} asks for at most {per_value} per {key}",
                    values.len()
                ),
            });
        }
    }
    // linstor-client `advise.py` (`_check_expected_replicas`, `_IssueNoTiebreaker`): two replicas
    // need a third, diskless, vote.
    // linstor-client `advise.py` raises it only where more than two nodes have a storage pool:
    // in a two-node cluster no node is left to hold a tie-breaker.
    if diskful_nodes.len() == 2 && diskless == 0 && ctx.pool_nodes > 2 {
        risks.push(Risk {
            kind: RiskKind::NoTieBreaker,
            message: "2 diskful replicas and no diskless tie-breaker: a network split between them risks split brain".to_owned(),
        });
    }
    for (option, mine, theirs) in [
        ("quorum", &quorum.quorum, &quorum.group_quorum),
        (
            "on-no-quorum",
            &quorum.on_no_quorum,
            &quorum.group_on_no_quorum,
        ),
    ] {
        if let Some(mine) = mine
            && Some(mine) != theirs.as_ref()
        {
            risks.push(Risk {
                kind: RiskKind::QuorumDiffersFromGroup,
                message: format!(
                    "DrbdOptions/Resource/{option} is {mine} on the resource, {} on group {group_label}",
                    theirs.as_deref().unwrap_or("unset")
                ),
            });
        }
    }
    let diskful_sites: Vec<&str> = per_site
        .iter()
        .filter(|(_, r)| r.diskful > 0)
        .filter_map(|(site, _)| *site)
        .collect();
    let site_is_a_domain = domains.iter().any(|(key, _)| *key == ctx.site_property);
    if diskful_sites.len() > 1 && !site_is_a_domain {
        risks.push(Risk {
            kind: RiskKind::CrossSiteReplication,
            message: format!(
                "diskful replicas in sites {}: DRBD replicates across sites, and group {group_label} does not ask for it",
                diskful_sites.join(", ")
            ),
        });
    }
    risks
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

/// `quorum majority (set on the resource), on-no-quorum io-error (group); tie-breaker on
/// witness`, or `None` when nothing is set and there is no tie-breaker.
fn quorum_text(q: &QuorumView) -> Option<String> {
    let mut parts = Vec::new();
    for (option, mine, auto, group) in [
        ("quorum", &q.quorum, &q.auto_quorum, &q.group_quorum),
        (
            "on-no-quorum",
            &q.on_no_quorum,
            &None,
            &q.group_on_no_quorum,
        ),
    ] {
        match (mine, auto, group) {
            (Some(v), _, _) => parts.push(format!("{option} {v} (set on the resource)")),
            (None, Some(v), _) => parts.push(format!("{option} {v} (auto-quorum)")),
            (None, None, Some(v)) => parts.push(format!("{option} {v} (group)")),
            (None, None, None) => {}
        }
    }
    let mut text = parts.join(", ");
    if !q.tie_breakers.is_empty() {
        if !text.is_empty() {
            text.push_str("; ");
        }
        text.push_str(&format!("tie-breaker on {}", q.tie_breakers.join(", ")));
    }
    (!text.is_empty()).then_some(text)
}

/// `sp: 2 diskful (2 UpToDate), 1 tie-breaker`.
fn site_text(site: &SiteReplicas) -> String {
    let mut parts = Vec::new();
    if site.diskful > 0 {
        parts.push(format!(
            "{} diskful ({} UpToDate)",
            site.diskful, site.up_to_date
        ));
    }
    if site.tie_breakers > 0 {
        parts.push(format!("{} tie-breaker", site.tie_breakers));
    }
    if site.diskless_clients > 0 {
        parts.push(format!("{} diskless", site.diskless_clients));
    }
    format!(
        "{}: {}",
        site.site.as_deref().unwrap_or("(no site)"),
        parts.join(", ")
    )
}

/// Renders a report as plain text: nodes, pools, then every resource with its class and
/// findings, then a summary line.
pub fn render_text(report: &HealthReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "NODES");
    for node in &report.nodes {
        node_text(&mut out, node);
    }
    let _ = writeln!(out, "POOLS");
    for pool in &report.pools {
        pool_text(&mut out, pool);
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
        resource_text(&mut out, resource);
    }
    let c = &report.counts;
    let _ = writeln!(
        out,
        "SUMMARY: {} healthy, {} degraded, {} desynced, {} disconnected, {} unknown, {} inactive; {} at risk; {} evicted and {} offline nodes; {} pools low on space, {} with errors",
        c.healthy,
        c.degraded,
        c.desynced,
        c.disconnected,
        c.unknown,
        c.inactive,
        c.at_risk,
        c.evicted_nodes,
        c.offline_nodes,
        c.low_space_pools,
        c.failed_pools
    );
    out
}

/// One node's line of [`render_text`].
fn node_text(out: &mut String, node: &NodeHealth) {
    use std::fmt::Write as _;
    let status = node.connection_status.as_deref().unwrap_or("(no status)");
    let _ = write!(out, "  {:<24} {:<10} {}", node.name, node.node_type, status);
    if let Some(site) = &node.site {
        let _ = write!(out, "  site {site}");
    }
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

/// One pool's line of [`render_text`].
fn pool_text(out: &mut String, pool: &PoolHealth) {
    use std::fmt::Write as _;
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

/// One resource's lines of [`render_text`]: its counts, sites, quorum, findings and risks.
fn resource_text(out: &mut String, resource: &ResourceHealth) {
    use std::fmt::Write as _;
    let wanted = match resource.place_count {
        Some(p) => format!(", place_count {p}"),
        None => format!(", place_count {} (default)", resource.wanted),
    };
    let _ = write!(
        out,
        "  {:<32} {:<12} {}/{} diskful UpToDate{wanted}",
        resource.name, resource.class, resource.up_to_date, resource.diskful
    );
    if resource.inactive > 0 {
        let _ = write!(out, ", {} inactive", resource.inactive);
    }
    if resource.evicted > 0 {
        let _ = write!(out, ", {} evicted", resource.evicted);
    }
    out.push('\n');
    if resource.sites.iter().any(|s| s.site.is_some()) {
        let sites: Vec<String> = resource.sites.iter().map(site_text).collect();
        let _ = writeln!(out, "      sites: {}", sites.join("; "));
    }
    if let Some(quorum) = quorum_text(&resource.quorum) {
        let _ = writeln!(out, "      quorum: {quorum}");
    }
    for finding in &resource.findings {
        let _ = writeln!(out, "      {}: {}", finding.class, finding.message);
    }
    for risk in &resource.risks {
        let _ = writeln!(out, "      risk {}: {}", risk.kind, risk.message);
    }
}
