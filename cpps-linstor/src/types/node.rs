//! Nodes and their network interfaces (`Node`, `NetInterface` in the spec).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::LayerType;
use crate::types::de;
use crate::types::storage::ProviderKind;

cpps_http::named_enum! {
    /// The kind of a node (`Node.type`). The spec writes `Satellite`; controllers send
    /// `SATELLITE`, so both spellings decode.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum NodeType {
        /// A controller only.
        Controller => "CONTROLLER" | "Controller",
        /// A satellite.
        Satellite => "SATELLITE" | "Satellite",
        /// Controller and satellite.
        Combined => "COMBINED" | "Combined",
        /// An auxiliary node.
        Auxiliary => "AUXILIARY" | "Auxiliary",
        _ => Unknown(String),
    }
}

cpps_http::named_enum! {
    /// The controller's connection to a node (`Node.connection_status`). Real controllers
    /// also send values missing from the spec (`EVICTED`, `DELETED`, …): they are kept in
    /// `Unknown` and count as not online.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ConnectionStatus {
        /// Not connected.
        Offline => "OFFLINE",
        /// TCP connected, not yet authenticated.
        Connected => "CONNECTED",
        /// Connected, authenticated and in sync.
        Online => "ONLINE",
        /// The satellite runs another version.
        VersionMismatch => "VERSION_MISMATCH",
        /// The full sync with the satellite failed.
        FullSyncFailed => "FULL_SYNC_FAILED",
        /// The satellite refused the controller.
        AuthenticationError => "AUTHENTICATION_ERROR",
        /// The status is unknown to the controller.
        UnknownStatus => "UNKNOWN",
        /// The satellite's host name does not match the node name.
        HostnameMismatch => "HOSTNAME_MISMATCH",
        /// Another controller holds the satellite.
        OtherController => "OTHER_CONTROLLER",
        /// Authenticated, sync pending.
        Authenticated => "AUTHENTICATED",
        /// No satellite connection is defined.
        NoSatelliteConnection => "NO_STLT_CONN",
        _ => Unknown(String),
    }
}

cpps_http::named_enum! {
    /// Encryption of the controller–satellite link (`NetInterface.satellite_encryption_type`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum SatelliteEncryption {
        /// Plain TCP.
        Plain => "PLAIN" | "Plain",
        /// TLS.
        Ssl => "SSL" | "Ssl",
        _ => Unknown(String),
    }
}

/// The node property holding the satellite's host name, `uname -n` (linstor-server
/// `InternalApiConsts.NODE_UNAME`, set by `CtrlAuthResponseApiCallHandler.updateUnameMap`).
pub const NODE_UNAME: &str = "NodeUname";

/// A node of the cluster (`GET /v1/nodes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Node name.
    pub name: String,
    /// Node type.
    #[serde(rename = "type")]
    pub node_type: NodeType,
    /// Flags such as `EVICTED`, `DELETE`, `EVACUATE`.
    #[serde(default, deserialize_with = "de::null_default")]
    pub flags: Vec<String>,
    /// Properties.
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Network interfaces.
    #[serde(default, deserialize_with = "de::null_default")]
    pub net_interfaces: Vec<NetInterface>,
    /// The controller's connection to the node.
    pub connection_status: Option<ConnectionStatus>,
    /// Object id.
    pub uuid: Option<String>,
    /// Storage providers the satellite supports.
    #[serde(default, deserialize_with = "de::null_default")]
    pub storage_providers: Vec<ProviderKind>,
    /// Resource layers the satellite supports.
    #[serde(default, deserialize_with = "de::null_default")]
    pub resource_layers: Vec<LayerType>,
    /// Providers the satellite does not support, with the reasons.
    #[serde(default, deserialize_with = "de::null_default")]
    pub unsupported_providers: BTreeMap<String, Vec<String>>,
    /// Layers the satellite does not support, with the reasons.
    #[serde(default, deserialize_with = "de::null_default")]
    pub unsupported_layers: BTreeMap<String, Vec<String>>,
    /// When the node was evicted, in milliseconds since the Unix epoch (UTC).
    pub eviction_timestamp: Option<i64>,
    /// `LINUX` or `WINDOWS`.
    pub platform: Option<String>,
    /// Operating system variant.
    pub os_variant: Option<String>,
}

impl Node {
    /// Whether the node carries `flag` (compared without regard to case).
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f.eq_ignore_ascii_case(flag))
    }

    /// Whether the node was evicted (flag `EVICTED`).
    pub fn is_evicted(&self) -> bool {
        self.has_flag("EVICTED")
    }

    /// Whether the controller reports the node `ONLINE`.
    pub fn is_online(&self) -> bool {
        self.connection_status == Some(ConnectionStatus::Online)
    }
}

/// A network interface of a node (`NetInterface`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetInterface {
    /// Interface name (`default`, or the replication interface's name).
    pub name: String,
    /// IP address; empty when the interface was declared without one.
    #[serde(default, deserialize_with = "de::null_default")]
    pub address: String,
    /// Satellite port, when this interface carries the controller connection.
    pub satellite_port: Option<i64>,
    /// Encryption of the satellite connection.
    pub satellite_encryption_type: Option<SatelliteEncryption>,
    /// Whether the satellite connection uses this interface.
    pub is_active: Option<bool>,
    /// Object id.
    pub uuid: Option<String>,
}
