//! `/version`, `/cluster/status`, `/cluster/resources`.

use serde::{Deserialize, Serialize};

use crate::family::de;
use crate::types::{NodeName, VmId};

/// `GET /version`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Version {
    /// Full version (`9.0.10`).
    pub version: String,
    /// Release (`9.0`).
    pub release: String,
    /// Repository id (commit).
    pub repoid: String,
    /// Default console viewer, when configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub console: Option<String>,
}

cpps_http::named_enum! {
    /// The kind of a `/cluster/status` entry.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ClusterStatusType {
        /// The cluster itself (quorum data).
        Cluster => "cluster",
        /// A member node.
        Node => "node",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// One entry of `GET /cluster/status`: the cluster (with `quorate`, `nodes`) or a node (with
/// `online`, `ip`, `local`, `nodeid`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClusterStatusEntry {
    /// `cluster` or `node`.
    #[serde(rename = "type")]
    pub kind: ClusterStatusType,
    /// `cluster` or `node/NAME`.
    pub id: String,
    /// Cluster or node name.
    pub name: String,
    /// Cluster: whether it has quorum.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub quorate: Option<bool>,
    /// Cluster: number of nodes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub nodes: Option<u32>,
    /// Cluster: config version.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub version: Option<u64>,
    /// Node: whether it is online. Real PVE sends this boolean (as `0`/`1`) on node entries
    /// only (pve-manager `PVE/API2/Cluster.pm`, `get_status`: `online => $d->{online}` on each
    /// node, none on the cluster entry); a count of online nodes on the cluster entry exists
    /// only in fakepve, and such a count (any number but 0 and 1) is read as absent.
    #[serde(default, deserialize_with = "online_flag")]
    pub online: Option<bool>,
    /// Node: whether it is the node that answered.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub local: Option<bool>,
    /// Node: corosync node id.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub nodeid: Option<u32>,
    /// Node: cluster IP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip: Option<String>,
    /// Node: subscription level.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
}

cpps_http::named_enum! {
    /// The `type` of a `/cluster/resources` entry.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ResourceType {
        /// A node.
        Node => "node",
        /// A QEMU VM.
        Qemu => "qemu",
        /// A container.
        Lxc => "lxc",
        /// A storage on a node.
        Storage => "storage",
        /// A pool.
        Pool => "pool",
        /// An SDN zone.
        Sdn => "sdn",
        /// An SDN network (PVE 9).
        Network => "network",
        /// An OpenVZ container (PVE 3).
        Openvz => "openvz",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

cpps_http::named_enum! {
    /// The `type` filter of `GET /cluster/resources`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ResourceFilter {
        /// VMs and containers.
        Vm => "vm",
        /// Storages.
        Storage => "storage",
        /// Nodes.
        Node => "node",
        /// SDN.
        Sdn => "sdn",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// `online`: a `0`/`1` (or JSON boolean) flag; another number is fakepve's count of online
/// nodes on the cluster entry, which real PVE does not send, and is dropped.
fn online_flag<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    let value = Option::<serde_json::Value>::deserialize(d)?;
    Ok(match value {
        Some(serde_json::Value::Bool(b)) => Some(b),
        Some(serde_json::Value::Number(n)) => match n.as_u64() {
            Some(0) => Some(false),
            Some(1) => Some(true),
            _ => None,
        },
        Some(serde_json::Value::String(s)) => de::parse_bool(&s),
        _ => None,
    })
}

impl ClusterStatusEntry {
    /// For a node entry: whether it is online.
    pub fn is_online(&self) -> Option<bool> {
        match self.kind {
            ClusterStatusType::Node => self.online,
            _ => None,
        }
    }
}

/// One entry of `GET /cluster/resources`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClusterResource {
    /// `qemu/100`, `lxc/200`, `node/pve1`, `storage/pve1/local`, …
    pub id: String,
    /// The kind.
    #[serde(rename = "type")]
    pub kind: ResourceType,
    /// The node (not for pools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Guest id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vmid: Option<VmId>,
    /// Guest name.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub name: Option<String>,
    /// Status (`running`, `stopped`, `online`, `available`, `unknown`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Whether a guest is a template.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub template: Option<bool>,
    /// HA state of an HA-managed guest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hastate: Option<String>,
    /// Lock (`backup`, `migrate`, `snapshot`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lock: Option<String>,
    /// Pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Tags, `;`-separated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<String>,
    /// CPU use (0..=maxcpu).
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub cpu: Option<f64>,
    /// CPUs.
    #[serde(default, deserialize_with = "de::opt_f64")]
    pub maxcpu: Option<f64>,
    /// Memory used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub mem: Option<u64>,
    /// Memory size, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxmem: Option<u64>,
    /// Disk used, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub disk: Option<u64>,
    /// Disk size, bytes.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub maxdisk: Option<u64>,
    /// Uptime, seconds.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub uptime: Option<u64>,
    /// Storage id (storages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
    /// Storage plugin type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugintype: Option<String>,
    /// Whether a storage is shared.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub shared: Option<bool>,
    /// Storage content types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

impl ClusterResource {
    /// The node as a typed name, when present and valid.
    pub fn node_name(&self) -> Option<NodeName> {
        self.node.as_deref().and_then(|n| NodeName::new(n).ok())
    }
}
