//! `/nodes/{node}/storage`.

use serde::{Deserialize, Serialize};

use crate::family::de;

/// One entry of `GET /nodes/{node}/storage`: a storage as seen from a node, with usage.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NodeStorage {
    /// Storage id.
    pub storage: String,
    /// Plugin type (`dir`, `lvmthin`, `rbd`, `zfspool`, `pbs`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// Content types (`images,rootdir`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Whether it is active on the node.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub active: Option<bool>,
    /// Whether it is enabled.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub enabled: Option<bool>,
    /// Whether it is shared between nodes.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub shared: Option<bool>,
    /// Size, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub total: Option<u64>,
    /// Used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub used: Option<u64>,
    /// Available, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub avail: Option<u64>,
    /// Used fraction (0..=1).
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub used_fraction: Option<f64>,
}
