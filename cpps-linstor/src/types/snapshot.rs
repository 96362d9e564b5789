//! Snapshots (`Snapshot` in the spec).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::de;

/// A snapshot on one node (`SnapshotNode`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotNode {
    /// Snapshot name.
    pub snapshot_name: Option<String>,
    /// Node the snapshot was taken on.
    pub node_name: Option<String>,
    /// Creation time, in milliseconds since the Unix epoch (UTC).
    pub create_timestamp: Option<i64>,
    /// Flags.
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Object id.
    pub uuid: Option<String>,
    /// This node's snapshot properties (`snapshot_props`, linstor-server
    /// `Json.apiToSnapshotNode`): where a received L2L shipment keeps its sender's id.
    #[serde(default, deserialize_with = "de::null_default")]
    pub snapshot_props: BTreeMap<String, String>,
}

/// A snapshot volume definition (`SnapshotVolumeDefinition`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotVolumeDefinition {
    /// Volume number.
    pub volume_number: Option<i64>,
    /// Size in KiB.
    pub size_kib: Option<i64>,
}

/// A snapshot definition with its per-node snapshots (`GET /v1/view/snapshots`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    /// Snapshot name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub name: String,
    /// Resource name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub resource_name: String,
    /// Nodes holding the snapshot.
    #[serde(default, deserialize_with = "de::null_default")]
    pub nodes: Vec<String>,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Flags (`SUCCESSFUL`, `FAILED_DEPLOYMENT`, …).
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Volume definitions.
    #[serde(default, deserialize_with = "de::null_default")]
    pub volume_definitions: Vec<SnapshotVolumeDefinition>,
    /// Object id.
    pub uuid: Option<String>,
    /// Per-node snapshots.
    #[serde(default, deserialize_with = "de::null_default")]
    pub snapshots: Vec<SnapshotNode>,
}

impl Snapshot {
    /// Whether the snapshot is flagged `SUCCESSFUL`.
    pub fn is_successful(&self) -> bool {
        self.flags
            .iter()
            .any(|f| f.eq_ignore_ascii_case("SUCCESSFUL"))
    }
}
