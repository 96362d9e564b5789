//! Remotes: other PBS servers that sync jobs pull from or push to.

use serde::{Deserialize, Serialize};

use super::AuthId;

/// One entry of `GET /config/remote`: another PBS server (the password is never listed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct Remote {
    /// The remote id, as sync jobs name it.
    pub name: String,
    /// DNS name or IP address.
    pub host: String,
    /// The port (8007 when absent).
    #[serde(default)]
    pub port: Option<u16>,
    /// The user or token the local server authenticates as.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub auth_id: AuthId,
    /// The pinned SHA-256 fingerprint of the remote's certificate.
    #[serde(default)]
    pub fingerprint: Option<String>,
    /// The comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// Whether the node's HTTP proxy is used to reach the remote.
    #[serde(default)]
    pub use_node_proxy: Option<bool>,
}

impl Remote {
    /// The port, 8007 when the configuration leaves it out.
    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(crate::DEFAULT_PORT)
    }
}

/// `GET /access/permissions`: ACL path → privilege name → whether it propagates to the paths
/// below. Paths where the caller holds nothing are absent (proxmox-backup
/// `src/api2/access/mod.rs`, `list_permissions`).
pub type Permissions = std::collections::BTreeMap<String, std::collections::BTreeMap<String, bool>>;
