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

/// One entry of `GET /storage`: a storage's configuration as `storage.cfg` holds it
/// (pve-storage `src/PVE/API2/Storage/Config.pm`, `$api_storage_config`: the section's keys
/// plus `storage` and `digest`). Listed only where the caller has `Datastore.Audit` or
/// `Datastore.AllocateSpace` on `/storage/{storage}`, so the list may be filtered.
///
/// For a `pbs` storage (pve-storage `src/PVE/Storage/PBSPlugin.pm`) the secrets are not here:
/// `password` and the key itself live in `/etc/pve/priv/storage/`; `encryption-key` holds the
/// key's fingerprint (or `1`), set by `on_add_hook`, so its presence says the backups are
/// encrypted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct StorageConfig {
    /// Storage id.
    pub storage: String,
    /// Plugin type (`dir`, `pbs`, …).
    #[serde(rename = "type")]
    pub kind: String,
    /// Content types (`backup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Whether the storage is disabled.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub disable: Option<bool>,
    /// The nodes it is limited to (`pve1,pve2`); absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodes: Option<String>,
    /// PBS: the server's host name or address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// PBS: the server's port (8007 when absent).
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub port: Option<u16>,
    /// PBS: the datastore.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub datastore: Option<String>,
    /// PBS: the namespace (absent: the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// PBS: the user or token the node logs in with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
    /// PBS: the pinned certificate fingerprint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    /// PBS: the encryption key's fingerprint (or `1`); absent: backups are not encrypted.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub encryption_key: Option<String>,
}

impl StorageConfig {
    /// Whether this is a Proxmox Backup Server storage.
    pub fn is_pbs(&self) -> bool {
        self.kind == "pbs"
    }

    /// Whether backups to it are encrypted on the client (`encryption-key` set).
    pub fn is_encrypted(&self) -> bool {
        self.encryption_key
            .as_deref()
            .is_some_and(|k| !k.is_empty())
    }

    /// Whether it is enabled (`disable` absent or false).
    pub fn is_enabled(&self) -> bool {
        self.disable != Some(true)
    }
}
