//! `/cluster/backup` (vzdump jobs) and `/cluster/backup-info/not-backed-up`.

use serde::{Deserialize, Serialize};

use crate::family::{Upid, de};
use crate::types::{ClusterResource, GuestKind, ResourceType, VmId};

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
    /// With `all`: the guests left out, `300,301`.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub exclude: Option<String>,
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

    /// Whether the job backs up `guest` (an entry of `GET /cluster/resources`), as vzdump
    /// chooses its guests: `pool` first, else the `vmid` list, else `all` less `exclude`; then
    /// only those on `node` when the job names one (pve-manager `PVE/VZDump.pm`,
    /// `get_included_guests`). Says nothing about `enabled` or the storage.
    pub fn includes(&self, guest: &ClusterResource) -> bool {
        let Some(vmid) = guest.vmid else {
            return false;
        };
        let picked = if let Some(pool) = &self.pool {
            guest.pool.as_deref() == Some(pool.as_str())
        } else if let Some(list) = &self.vmid {
            list_has(list, vmid)
        } else if self.all == Some(true) {
            !self.exclude.as_deref().is_some_and(|l| list_has(l, vmid))
        } else {
            false
        };
        picked
            && self
                .node
                .as_deref()
                .is_none_or(|node| guest.node.as_deref() == Some(node))
    }
}

/// Whether the id list `list` (`100,101`; pve-common `split_list` also takes `;`, spaces and
/// NULs as separators) names `vmid`.
fn list_has(list: &str, vmid: VmId) -> bool {
    list.split(|c: char| c == ',' || c == ';' || c == '\0' || c.is_whitespace())
        .any(|item| item.trim().parse::<u32>().ok() == Some(vmid.get()))
}

/// The guests of `resources` (its `qemu` and `lxc` entries) that no job of `jobs` for which
/// `counts` holds includes ([`BackupJob::includes`]).
///
/// This is what [`NotBackedUp`] is not: PVE's own list counts every vzdump job, disabled
/// ones and those to local storage included. `counts` says which jobs an audit trusts, for
/// example `|job| job.is_enabled() && job.storage.as_deref() == Some("pbs-franca")`.
pub fn uncovered_guests<'a>(
    jobs: &[BackupJob],
    resources: &'a [ClusterResource],
    counts: impl Fn(&BackupJob) -> bool,
) -> Vec<&'a ClusterResource> {
    let trusted: Vec<&BackupJob> = jobs.iter().filter(|job| counts(job)).collect();
    resources
        .iter()
        .filter(|r| matches!(r.kind, ResourceType::Qemu | ResourceType::Lxc))
        .filter(|r| !trusted.iter().any(|job| job.includes(r)))
        .collect()
}

/// One entry of `GET /cluster/backup-info/not-backed-up`: a guest that no vzdump job names
/// at all. PVE counts every job, **enabled or not, to any storage** (pve-manager
/// `PVE/API2/Cluster/BackupInfo.pm`, `get_included_vmids`), so a guest covered only by a
/// disabled job or one to local storage is not listed; [`uncovered_guests`] judges the jobs
/// an audit trusts.
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

/// What `POST /nodes/{node}/vzdump` started.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VzdumpStart {
    /// A backup task: wait for it with [`crate::Client::wait`].
    Task(Upid),
    /// PVE answered `"OK"` and **backed up nothing**: the guest does not run on the node asked
    /// (after an HA migration, say). vzdump skips the guests of other nodes silently
    /// (pve-manager `PVE/API2/VZDump.pm`: `return "OK" if !scalar(@{$local_vmids}) &&
    /// !$param->{all}`). Ask the node the guest is on.
    NotOnThisNode,
}

impl<'de> Deserialize<'de> for VzdumpStart {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "OK" {
            return Ok(VzdumpStart::NotOnThisNode);
        }
        Upid::parse(&text)
            .map(VzdumpStart::Task)
            .map_err(serde::de::Error::custom)
    }
}
