//! Resource groups, resource definitions and resources with their DRBD state.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::LayerType;
use crate::types::de;
use crate::types::rc::ApiCallRc;
use crate::types::storage::ProviderKind;

/// Auto-placement rules of a resource group (`AutoSelectFilter`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AutoSelectFilter {
    /// Number of diskful replicas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub place_count: Option<i64>,
    /// Replicas to add to the existing ones.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_place_count: Option<i64>,
    /// Nodes to place on.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub node_name_list: Vec<String>,
    /// Storage pool (older single-pool form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_pool: Option<String>,
    /// Storage pools to place on.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub storage_pool_list: Vec<String>,
    /// Diskless pools for the remaining nodes.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub storage_pool_diskless_list: Vec<String>,
    /// Resources not to share nodes with.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub not_place_with_rsc: Vec<String>,
    /// Regular expression of resources not to share nodes with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_place_with_rsc_regex: Option<String>,
    /// Properties whose values replicas share.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub replicas_on_same: Vec<String>,
    /// Properties whose values replicas must not share.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub replicas_on_different: Vec<String>,
    /// Property → how many replicas per distinct value.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "BTreeMap::is_empty"
    )]
    pub x_replicas_on_different_map: BTreeMap<String, i64>,
    /// Layer stack.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub layer_stack: Vec<String>,
    /// Allowed providers.
    #[serde(
        default,
        deserialize_with = "de::null_default",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub provider_list: Vec<String>,
    /// Whether the remaining nodes get a diskless replica.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diskless_on_remaining: Option<bool>,
    /// Diskless type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diskless_type: Option<String>,
    /// Thin over-provisioning multiplier.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overprovision: Option<f64>,
    /// Ports per resource.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port_count: Option<i64>,
}

impl AutoSelectFilter {
    /// The storage pools named, from either field.
    pub fn storage_pools(&self) -> Vec<&str> {
        let mut pools: Vec<&str> = self.storage_pool_list.iter().map(String::as_str).collect();
        if let Some(pool) = &self.storage_pool
            && !pools.contains(&pool.as_str())
        {
            pools.push(pool);
        }
        pools
    }
}

/// A resource group (`GET /v1/resource-groups`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceGroup {
    /// Group name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub name: String,
    /// Description.
    pub description: Option<String>,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Placement rules.
    pub select_filter: Option<AutoSelectFilter>,
    /// Object id.
    pub uuid: Option<String>,
    /// DRBD peer slots.
    pub peer_slots: Option<i64>,
}

impl ResourceGroup {
    /// The group's place count, when set.
    pub fn place_count(&self) -> Option<i64> {
        self.select_filter.as_ref()?.place_count
    }
}

/// A layer entry of a resource definition (`ResourceDefinitionLayer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceDefinitionLayer {
    /// Layer type.
    #[serde(rename = "type")]
    pub layer_type: Option<LayerType>,
    /// Layer data, kept as sent (its shape depends on the layer).
    pub data: Option<serde_json::Value>,
}

/// A resource definition (`GET /v1/resource-definitions`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceDefinition {
    /// Resource name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub name: String,
    /// External name.
    pub external_name: Option<String>,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Flags.
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Layers.
    #[serde(default, deserialize_with = "de::null_default")]
    pub layer_data: Vec<ResourceDefinitionLayer>,
    /// Object id.
    pub uuid: Option<String>,
    /// The resource group it belongs to.
    pub resource_group_name: Option<String>,
    /// Volume definitions, kept as sent (requested with `with_volume_definitions=true`).
    #[serde(default, deserialize_with = "de::null_default")]
    pub volume_definitions: Vec<serde_json::Value>,
}

cpps_http::named_enum! {
    /// A DRBD disk state (`disk_state`). LINSTOR adds its own words for volumes it cannot see
    /// (for example `Unknown` while the satellite is offline); those stay in `Unknown`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum DiskState {
        /// No local disk.
        Diskless => "Diskless",
        /// Attaching the disk.
        Attaching => "Attaching",
        /// Detaching the disk.
        Detaching => "Detaching",
        /// Disk failed.
        Failed => "Failed",
        /// Negotiating with peers.
        Negotiating => "Negotiating",
        /// Data is inconsistent (initial sync or sync target).
        Inconsistent => "Inconsistent",
        /// Data is outdated.
        Outdated => "Outdated",
        /// Peer disk state not known.
        DUnknown => "DUnknown",
        /// Consistent, up-to-dateness unknown.
        Consistent => "Consistent",
        /// Up to date.
        UpToDate => "UpToDate",
        _ => Unknown(String),
    }
}

cpps_http::named_enum! {
    /// A DRBD replication state towards one peer (`ReplicationState.replication_state`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ReplicationStateKind {
        /// No replication (not connected).
        Off => "Off",
        /// Replicating normally.
        Established => "Established",
        /// Starting a sync as source.
        StartingSyncS => "StartingSyncS",
        /// Starting a sync as target.
        StartingSyncT => "StartingSyncT",
        /// Waiting for the bitmap as source.
        WfBitMapS => "WFBitMapS",
        /// Waiting for the bitmap as target.
        WfBitMapT => "WFBitMapT",
        /// Waiting for the sync UUID.
        WfSyncUuid => "WFSyncUUID",
        /// Sync source.
        SyncSource => "SyncSource",
        /// Sync target.
        SyncTarget => "SyncTarget",
        /// Online verify as source.
        VerifyS => "VerifyS",
        /// Online verify as target.
        VerifyT => "VerifyT",
        /// Paused sync as source.
        PausedSyncS => "PausedSyncS",
        /// Paused sync as target.
        PausedSyncT => "PausedSyncT",
        /// Congestion: ahead of the peer.
        Ahead => "Ahead",
        /// Congestion: behind the peer.
        Behind => "Behind",
        _ => Unknown(String),
    }
}

impl DiskState {
    /// How far a resync target is (`42.50%`), when the satellite reports its disk state as
    /// `SyncTarget(42.50%)`: linstor-server's satellite does so, instead of DRBD's
    /// `Inconsistent`, while it knows the percentage (`DrbdVolume.diskStateInfo`).
    pub fn sync_target_done(&self) -> Option<&str> {
        let DiskState::Unknown(raw) = self else {
            return None;
        };
        raw.strip_prefix("SyncTarget(")?
            .strip_suffix(')')
            .filter(|done| done.ends_with('%'))
    }
}

impl ReplicationStateKind {
    /// Whether this state means a resync is pending or running.
    pub fn is_syncing(&self) -> bool {
        matches!(
            self,
            ReplicationStateKind::StartingSyncS
                | ReplicationStateKind::StartingSyncT
                | ReplicationStateKind::WfBitMapS
                | ReplicationStateKind::WfBitMapT
                | ReplicationStateKind::WfSyncUuid
                | ReplicationStateKind::SyncSource
                | ReplicationStateKind::SyncTarget
                | ReplicationStateKind::PausedSyncS
                | ReplicationStateKind::PausedSyncT
                | ReplicationStateKind::Ahead
                | ReplicationStateKind::Behind
        )
    }
}

cpps_http::named_enum! {
    /// A DRBD connection state (`DrbdConnection.message`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum DrbdConnectionState {
        /// Not trying to connect.
        StandAlone => "StandAlone",
        /// Disconnecting.
        Disconnecting => "Disconnecting",
        /// Not connected, about to try.
        Unconnected => "Unconnected",
        /// Timed out.
        Timeout => "Timeout",
        /// Broken pipe.
        BrokenPipe => "BrokenPipe",
        /// Network failure.
        NetworkFailure => "NetworkFailure",
        /// Protocol error.
        ProtocolError => "ProtocolError",
        /// Trying to connect.
        Connecting => "Connecting",
        /// Tearing down.
        TearDown => "TearDown",
        /// Connected.
        Connected => "Connected",
        /// LINSTOR does not know the state.
        UnknownState => "Unknown",
        _ => Unknown(String),
    }
}

/// The replication state of a volume towards one peer (`ReplicationState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReplicationState {
    /// The state.
    pub replication_state: Option<ReplicationStateKind>,
    /// Sync progress in percent, while syncing.
    pub done_percentage: Option<f64>,
}

/// The live state of a volume (`VolumeState`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VolumeState {
    /// The disk state; absent when the satellite is offline.
    pub disk_state: Option<DiskState>,
    /// Replication state per peer, keyed as [`DrbdResource::connections`] is.
    #[serde(default, deserialize_with = "de::null_default")]
    pub replication_states: BTreeMap<String, ReplicationState>,
}

/// One layer entry of a volume (`VolumeLayer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VolumeLayer {
    /// Layer type.
    #[serde(rename = "type")]
    pub layer_type: Option<LayerType>,
    /// Layer data, kept as sent: its shape depends on the layer, and a layer this client does
    /// not know must not break decoding.
    pub data: Option<serde_json::Value>,
}

/// DRBD data of a volume (`DrbdVolume`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrbdVolume {
    /// DRBD device path (`/dev/drbd1000`).
    pub device_path: Option<String>,
    /// Backing device.
    pub backing_device: Option<String>,
    /// Meta disk.
    pub meta_disk: Option<String>,
    /// Allocated KiB.
    pub allocated_size_kib: Option<i64>,
    /// Usable KiB.
    pub usable_size_kib: Option<i64>,
    /// Disk state.
    pub disk_state: Option<String>,
    /// Pool for external metadata (`null` for internal).
    pub ext_meta_stor_pool: Option<String>,
}

impl VolumeLayer {
    /// The DRBD data of this entry, when it is a DRBD layer whose data decodes.
    pub fn drbd(&self) -> Option<DrbdVolume> {
        if self.layer_type != Some(LayerType::Drbd) {
            return None;
        }
        serde_json::from_value(self.data.clone()?).ok()
    }
}

/// A volume of a resource (`Volume`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Volume {
    /// Volume number.
    pub volume_number: Option<i64>,
    /// Storage pool.
    pub storage_pool_name: Option<String>,
    /// Provider of the pool.
    pub provider_kind: Option<ProviderKind>,
    /// Device path.
    pub device_path: Option<String>,
    /// Allocated KiB.
    pub allocated_size_kib: Option<i64>,
    /// Usable KiB.
    pub usable_size_kib: Option<i64>,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Flags.
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Live state; absent or empty when the satellite is offline.
    pub state: Option<VolumeState>,
    /// Per-layer data.
    #[serde(default, deserialize_with = "de::null_default")]
    pub layer_data_list: Vec<VolumeLayer>,
    /// Object id.
    pub uuid: Option<String>,
    /// Messages about the volume.
    #[serde(default, deserialize_with = "de::null_default")]
    pub reports: Vec<ApiCallRc>,
}

impl Volume {
    /// The disk state, when the satellite reported one.
    pub fn disk_state(&self) -> Option<&DiskState> {
        self.state.as_ref()?.disk_state.as_ref()
    }
}

/// A DRBD connection to one peer (`DrbdConnection`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrbdConnection {
    /// Whether the connection is up.
    pub connected: Option<bool>,
    /// The DRBD connection state.
    pub message: Option<DrbdConnectionState>,
}

/// The DRBD layer of a resource (`DrbdResource`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DrbdResource {
    /// DRBD node id.
    pub node_id: Option<i64>,
    /// TCP ports.
    #[serde(default, deserialize_with = "de::null_default")]
    pub tcp_ports: Vec<i64>,
    /// Peer slots.
    pub peer_slots: Option<i64>,
    /// Flags.
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Connections per peer, as the controller keys them: by the peer's host name (its
    /// `NodeUname` property), which is its node name only where the two agree;
    /// [`ClusterState::key_connections_by_node_name`](crate::health::ClusterState::key_connections_by_node_name)
    /// keys them by node name. The controller fills them on the top layer only, and only
    /// when it is DRBD (linstor-server `Json.java` `apiToResourceWithVolumes`).
    #[serde(default, deserialize_with = "de::null_default")]
    pub connections: BTreeMap<String, DrbdConnection>,
    /// DRBD volumes, kept as sent.
    #[serde(default, deserialize_with = "de::null_default")]
    pub drbd_volumes: Vec<serde_json::Value>,
    /// Promotion score.
    pub promotion_score: Option<i64>,
    /// Whether the resource may be promoted here.
    pub may_promote: Option<bool>,
}

/// One layer of a resource's layer tree (`ResourceLayer`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceLayer {
    /// Layer type.
    #[serde(rename = "type")]
    pub layer_type: Option<LayerType>,
    /// Suffix of the layer's resource name.
    pub resource_name_suffix: Option<String>,
    /// Lower layers.
    #[serde(default, deserialize_with = "de::null_default")]
    pub children: Vec<ResourceLayer>,
    /// DRBD data, for a DRBD layer.
    pub drbd: Option<DrbdResource>,
    /// The data of other layers (`storage`, `luks`, `nvme`, …, and layers this client does not
    /// know), kept as sent.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

impl ResourceLayer {
    /// The first DRBD layer in this tree.
    pub fn find_drbd(&self) -> Option<&DrbdResource> {
        self.drbd
            .as_ref()
            .or_else(|| self.children.iter().find_map(ResourceLayer::find_drbd))
    }
}

/// The live state of a resource (`ResourceState`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceState {
    /// Whether the resource is in use (DRBD primary).
    pub in_use: Option<bool>,
}

/// A resource on one node with its volumes (`ResourceWithVolumes`, `GET /v1/view/resources`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceWithVolumes {
    /// Resource name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub name: String,
    /// Node name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub node_name: String,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Flags (`DISKLESS`, `DRBD_DISKLESS`, `TIE_BREAKER`, `DELETE`, `INACTIVE`, …).
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// The layer tree.
    pub layer_object: Option<ResourceLayer>,
    /// Live state.
    pub state: Option<ResourceState>,
    /// Object id.
    pub uuid: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch (UTC).
    pub create_timestamp: Option<i64>,
    /// Volumes.
    #[serde(default, deserialize_with = "de::null_default")]
    pub volumes: Vec<Volume>,
    /// Shared space name of the first volume's pool.
    pub shared_name: Option<String>,
}

impl ResourceWithVolumes {
    /// Whether the resource carries `flag` (compared without regard to case).
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f.eq_ignore_ascii_case(flag))
    }

    /// Whether this replica has no local data: flags `DISKLESS`, `DRBD_DISKLESS`,
    /// `NVME_INITIATOR` or `TIE_BREAKER`, or every volume in a diskless pool.
    pub fn is_diskless(&self) -> bool {
        ["DISKLESS", "DRBD_DISKLESS", "NVME_INITIATOR", "TIE_BREAKER"]
            .iter()
            .any(|flag| self.has_flag(flag))
            || (!self.volumes.is_empty()
                && self
                    .volumes
                    .iter()
                    .all(|v| v.provider_kind == Some(ProviderKind::Diskless)))
    }

    /// The DRBD connections of this replica, per peer (see [`DrbdResource::connections`] for
    /// their keys).
    pub fn drbd_connections(&self) -> Option<&BTreeMap<String, DrbdConnection>> {
        Some(&self.layer_object.as_ref()?.find_drbd()?.connections)
    }
}
