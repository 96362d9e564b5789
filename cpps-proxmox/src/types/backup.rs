//! `/cluster/backup` (vzdump jobs) and `/cluster/backup-info/not-backed-up`.

use std::collections::BTreeMap;

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
    ///
    /// For a `pool` job this trusts the entry's `pool` field, which PVE deletes without
    /// `Pool.Audit` on `/pool/<pool>`: a `false` is then no answer. Use
    /// [`BackupJob::inclusion`], which says "cannot tell" there.
    pub fn includes(&self, guest: &ClusterResource) -> bool {
        self.inclusion(guest, &PoolMembers::default()) == Inclusion::Included
    }

    /// Whether the job backs up `guest`, as [`BackupJob::includes`], with a pool job's
    /// members taken from `pools` when the guest's `pool` field does not show them.
    ///
    /// `GET /cluster/resources` drops a guest's `pool` without `Pool.Audit` on that pool
    /// (pve-manager `PVE/API2/Cluster.pm` `resources`: `delete $entry->{pool}`), while vzdump
    /// takes the pool's members from `user.cfg` whatever the caller sees (`PVE/VZDump.pm`
    /// `get_included_guests`, `PVE/API2Tools.pm` `get_resource_pool_guest_members`). So a
    /// guest with no `pool` field is "not included" only when the pool's members are known.
    pub fn inclusion(&self, guest: &ClusterResource, pools: &PoolMembers) -> Inclusion {
        let Some(vmid) = guest.vmid else {
            return Inclusion::NotIncluded;
        };
        // vzdump keeps only the guests of `node` whatever chose them.
        if self
            .node
            .as_deref()
            .is_some_and(|node| guest.node.as_deref() != Some(node))
        {
            return Inclusion::NotIncluded;
        }
        let picked = if let Some(pool) = &self.pool {
            // A guest belongs to one pool at most (`user.cfg` maps each vmid to its pool).
            match (guest.pool.as_deref(), pools.members(pool)) {
                (Some(own), _) => own == pool.as_str(),
                (None, Ok(members)) => members.contains(&vmid),
                (None, Err(why)) => return Inclusion::CannotTell(why),
            }
        } else if let Some(list) = &self.vmid {
            list_has(list, vmid)
        } else if self.all == Some(true) {
            !self.exclude.as_deref().is_some_and(|l| list_has(l, vmid))
        } else {
            false
        };
        if picked {
            Inclusion::Included
        } else {
            Inclusion::NotIncluded
        }
    }
}

/// Whether a vzdump job backs up a guest, as far as the caller can see
/// ([`BackupJob::inclusion`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Inclusion {
    /// The job backs it up.
    Included,
    /// The job does not back it up.
    NotIncluded,
    /// The job's guests cannot be seen (a pool whose members the caller may not audit), with
    /// why.
    CannotTell(String),
}

/// The members of the pools the caller can see: from the guests' `pool` field
/// ([`PoolMembers::from_resources`]) and from `GET /pools/{poolid}`
/// ([`PoolMembers::insert`]), with the pools that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PoolMembers {
    known: BTreeMap<String, Vec<VmId>>,
    unreadable: BTreeMap<String, String>,
}

impl PoolMembers {
    /// The pools named on some guest of `resources`, each with the guests that name it.
    /// PVE shows a guest's `pool` only with `Pool.Audit` on `/pool/<pool>` (pve-manager
    /// `PVE/API2/Cluster.pm` `resources`), a right on the pool, not on the guest: so once one
    /// guest shows a pool, every listed member shows it. A pool named on no guest is unknown,
    /// not empty.
    pub fn from_resources(resources: &[ClusterResource]) -> Self {
        let mut known: BTreeMap<String, Vec<VmId>> = BTreeMap::new();
        for guest in resources {
            if let (Some(pool), Some(vmid)) = (&guest.pool, guest.vmid) {
                known.entry(pool.clone()).or_default().push(vmid);
            }
        }
        PoolMembers {
            known,
            unreadable: BTreeMap::new(),
        }
    }

    /// Records the members of `pool` (from `GET /pools/{poolid}`).
    pub fn insert(&mut self, pool: impl Into<String>, members: Vec<VmId>) {
        let pool = pool.into();
        self.unreadable.remove(&pool);
        self.known.insert(pool, members);
    }

    /// Records that the members of `pool` could not be read, and why.
    pub fn unreadable(&mut self, pool: impl Into<String>, why: impl Into<String>) {
        self.unreadable.insert(pool.into(), why.into());
    }

    /// Whether the members of `pool` are known.
    pub fn knows(&self, pool: &str) -> bool {
        self.known.contains_key(pool)
    }

    /// The members of `pool`, or why they are not known.
    pub fn members(&self, pool: &str) -> Result<&[VmId], String> {
        if let Some(members) = self.known.get(pool) {
            return Ok(members);
        }
        Err(match self.unreadable.get(pool) {
            Some(why) => format!("the members of pool {pool} could not be read: {why}"),
            None => format!(
                "no guest listed shows pool {pool} (PVE hides it without Pool.Audit on /pool/{pool})"
            ),
        })
    }
}

/// Whether the id list `list` (`100,101`; pve-common `split_list` also takes `;`, spaces and
/// NULs as separators) names `vmid`.
fn list_has(list: &str, vmid: VmId) -> bool {
    list.split(|c: char| c == ',' || c == ';' || c == '\0' || c.is_whitespace())
        .any(|item| item.trim().parse::<u32>().ok() == Some(vmid.get()))
}

/// The guests of `resources` (its `qemu` and `lxc` entries) that no job of `jobs` for which
/// `counts` holds includes ([`BackupJob::inclusion`]), and those whose coverage cannot be told.
///
/// This is what [`NotBackedUp`] is not: PVE's own list counts every vzdump job, disabled
/// ones and those to local storage included. `counts` says which jobs an audit trusts, for
/// example `|job| job.is_enabled() && job.storage.as_deref() == Some("pbs-franca")`. A guest
/// that no trusted job includes, but that a pool job of unknown members may include, is
/// "cannot tell", never "not covered".
pub fn uncovered_guests<'a>(
    jobs: &[BackupJob],
    resources: &'a [ClusterResource],
    pools: &PoolMembers,
    counts: impl Fn(&BackupJob) -> bool,
) -> Uncovered<&'a ClusterResource> {
    let trusted: Vec<&BackupJob> = jobs.iter().filter(|job| counts(job)).collect();
    let mut out = Uncovered {
        uncovered: Vec::new(),
        cannot_tell: Vec::new(),
    };
    for guest in resources
        .iter()
        .filter(|r| matches!(r.kind, ResourceType::Qemu | ResourceType::Lxc))
    {
        let mut unsure = Vec::new();
        let mut covered = false;
        for job in &trusted {
            match job.inclusion(guest, pools) {
                Inclusion::Included => covered = true,
                Inclusion::NotIncluded => {}
                Inclusion::CannotTell(why) => unsure.push(format!("job {}: {why}", job.id)),
            }
        }
        if covered {
            continue;
        }
        if unsure.is_empty() {
            out.uncovered.push(guest);
        } else {
            out.cannot_tell.push((guest, unsure.join("; ")));
        }
    }
    out
}

/// The guests no trusted vzdump job includes ([`uncovered_guests`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Uncovered<G> {
    /// The guests that no trusted job includes.
    pub uncovered: Vec<G>,
    /// The guests that no trusted job is seen to include, but that a job whose guests cannot
    /// be seen may include, each with why.
    pub cannot_tell: Vec<(G, String)>,
}

/// `GET /pools/{poolid}`: a pool, with its members (pve-manager `PVE/API2/Pool.pm`
/// `read_pool`; needs `Pool.Audit` on `/pool/{poolid}`), or the one entry of
/// `GET /pools?poolid=…` for a nested pool (`index`, which does not refuse without it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PoolInfo {
    /// The comment.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub comment: Option<String>,
    /// The guests and storages of the pool.
    #[serde(default)]
    pub members: Vec<PoolMember>,
}

impl PoolInfo {
    /// The guests of the pool (its members with a `vmid`).
    pub fn guests(&self) -> Vec<VmId> {
        self.members.iter().filter_map(|m| m.vmid).collect()
    }
}

/// One member of a pool: a guest or a storage.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PoolMember {
    /// `qemu/100`, `storage/pve1/local`.
    pub id: String,
    /// `qemu`, `lxc`, `openvz` or `storage`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The guest id (guests only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vmid: Option<VmId>,
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
