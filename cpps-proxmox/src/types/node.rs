//! `/nodes` and `/nodes/{node}/status`.

use serde::{Deserialize, Serialize};

use crate::family::de;
use crate::types::NodeName;

cpps_http::named_enum! {
    /// Whether a node is up, as `GET /nodes` says (`unknown` is kept as `Unknown("unknown")`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum NodeState {
        /// Online.
        Online => "online",
        /// Offline.
        Offline => "offline",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// One entry of `GET /nodes`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NodeListItem {
    /// The node.
    pub node: NodeName,
    /// `online`, `offline` or `unknown`.
    pub status: NodeState,
    /// CPU use (0..=1).
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub cpu: Option<f64>,
    /// CPUs.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxcpu: Option<u64>,
    /// Memory used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub mem: Option<u64>,
    /// Memory, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxmem: Option<u64>,
    /// Uptime, seconds.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub uptime: Option<u64>,
    /// Subscription level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// SHA-256 fingerprint of the node's certificate: what to pin with
    /// [`cpps_http::TlsMode::pinned`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssl_fingerprint: Option<String>,
}

/// Memory figures of `GET /nodes/{node}/status`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NodeMemory {
    /// Total, bytes.
    #[serde(deserialize_with = "de::integer")]
    pub total: u64,
    /// Used, bytes.
    #[serde(deserialize_with = "de::integer")]
    pub used: u64,
    /// Free, bytes.
    #[serde(deserialize_with = "de::integer")]
    pub free: u64,
    /// Available, bytes (PVE 8.2+).
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub available: Option<u64>,
}

/// Root file-system figures of `GET /nodes/{node}/status`.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NodeRootFs {
    /// Total, bytes.
    #[serde(deserialize_with = "de::integer")]
    pub total: u64,
    /// Used, bytes.
    #[serde(deserialize_with = "de::integer")]
    pub used: u64,
    /// Available to unprivileged users, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub avail: Option<u64>,
    /// Free, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub free: Option<u64>,
}

/// `GET /nodes/{node}/status`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NodeStatus {
    /// CPU use (0..=1).
    #[serde(deserialize_with = "de::f64")]
    pub cpu: f64,
    /// Load averages (1, 5, 15 min), as PVE writes them (strings).
    #[serde(default)]
    pub loadavg: Vec<String>,
    /// Memory.
    pub memory: NodeMemory,
    /// Root file system.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rootfs: Option<NodeRootFs>,
    /// `pve-manager/9.0.10/…`.
    pub pveversion: String,
}
