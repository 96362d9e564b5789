//! `/cluster/backup` (vzdump jobs) and `/cluster/backup-info/not-backed-up`.

use serde::{Deserialize, Serialize};

use crate::family::de;
use crate::types::{GuestKind, VmId};

/// One entry of `GET /cluster/backup`: a scheduled vzdump job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct BackupJob {
    /// The job id.
    pub id: String,
    /// Whether the job runs (absent: enabled).
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub enabled: Option<bool>,
    /// The schedule (`21:00`, `mon..fri 02:30`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    /// The target storage (a PBS storage for backups that leave the host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<String>,
    /// The guests, `100,101` (absent with `all` or `pool`).
    #[serde(default, deserialize_with = "de::opt_string")]
    pub vmid: Option<String>,
    /// Every guest (of `node`, or of the cluster).
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub all: Option<bool>,
    /// The guests of this pool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// Only guests on this node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `snapshot`, `suspend` or `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// When it runs next (Unix epoch seconds).
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub next_run: Option<u64>,
}

impl BackupJob {
    /// Whether the job is enabled (PVE's default when `enabled` is absent).
    pub fn is_enabled(&self) -> bool {
        self.enabled != Some(false)
    }
}

/// One entry of `GET /cluster/backup-info/not-backed-up`: a guest no enabled backup job
/// covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct NotBackedUp {
    /// The guest.
    pub vmid: VmId,
    /// VM or container.
    #[serde(rename = "type")]
    pub kind: GuestKind,
    /// Its name.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub name: Option<String>,
}
