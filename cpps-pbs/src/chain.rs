//! The backup chain of each guest, end to end across two sites: the PVE storage of type
//! `pbs` a vzdump job writes to, the job's last run, the newest *finished* snapshot in that
//! PBS datastore and namespace, its verification, and the copy on the other site's PBS. One
//! verdict per guest against the RPO: "backed up here at T, verified at T', copied there at
//! T''".
//!
//! The judgement is pure: the caller reads PVE (`cpps-topology`'s
//! `live::sources::PveSource::backup_chain`, over `cpps-proxmox`) and the two PBS servers
//! (this crate: [`crate::checks::newest_per_guest`] over the snapshots, kept per site as a
//! [`PbsSide`], and [`read_remote_copies`] or the other site's [`PbsSide`] for the copy), and
//! hands the answers over as [`ChainInput`]; `pbs-report --chain` and the live rule BACKUP-005
//! do the same. The rules: unknown is never healthy (each part that could not be read makes
//! the verdict [`Verdict::CannotTell`] unless something already breaches); a list the server
//! filtered by permission is not taken as the whole truth (a guest missing from it is "cannot
//! tell", not "missing"); a running backup is no backup (only finished snapshots count).

use std::collections::HashMap;
use std::fmt;
use std::time::Duration;

use serde::Serialize;

use crate::checks::GuestBackup;
use crate::types::{
    AuthId, BackupGroup, BackupType, ExitStatus, Remote, SyncDirection, SyncJob, VerifyState,
};

/// A guest of the PVE cluster (an entry of `GET /cluster/resources?type=vm`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChainGuest {
    /// The guest id (the backup id of its PBS group).
    pub vmid: u32,
    /// Its name.
    pub name: Option<String>,
    /// The node it runs on.
    pub node: Option<String>,
    /// `vm` for QEMU, `ct` for containers (vzdump's backup types).
    pub backup_type: BackupType,
    /// Why it may be a template, when PVE does not say whether it is one. A template is not
    /// judged, so what would be a breach of this guest is "cannot tell".
    pub may_be_template: Option<String>,
}

impl ChainGuest {
    /// A guest.
    pub fn new(vmid: u32, backup_type: BackupType) -> Self {
        Self {
            vmid,
            name: None,
            node: None,
            backup_type,
            may_be_template: None,
        }
    }

    /// With its name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// With its node.
    pub fn node(mut self, node: impl Into<String>) -> Self {
        self.node = Some(node.into());
        self
    }

    /// Not known not to be a template, for this reason ([`ChainGuest::may_be_template`]).
    pub fn may_be_template(mut self, why: impl Into<String>) -> Self {
        self.may_be_template = Some(why.into());
        self
    }
}

/// A PVE storage of type `pbs` that writes to the PBS whose snapshots are in
/// [`ChainInput::here`] (pve-storage `src/PVE/Storage/PBSPlugin.pm` options).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PbsTarget {
    /// The PVE storage id.
    pub storage: String,
    /// The PBS datastore.
    pub datastore: String,
    /// The namespace, empty for the root.
    pub namespace: String,
    /// Whether the backups are encrypted on the client (`encryption-key` set).
    pub encrypted: bool,
    /// Whether the storage is enabled.
    pub enabled: bool,
    /// The PBS it writes to (`server`, `port`, `fingerprint`); `None` when not known.
    pub server: Option<PbsAddress>,
    /// The user or token it writes as (`username`), which owns the groups it creates
    /// (proxmox-backup `src/api2/backup/mod.rs`: a new group is owned by the caller's
    /// auth-id); `None` when not known.
    pub username: Option<String>,
}

impl PbsTarget {
    /// An enabled, unencrypted target.
    pub fn new(
        storage: impl Into<String>,
        datastore: impl Into<String>,
        namespace: impl Into<String>,
    ) -> Self {
        Self {
            storage: storage.into(),
            datastore: datastore.into(),
            namespace: namespace.into(),
            encrypted: false,
            enabled: true,
            server: None,
            username: None,
        }
    }

    /// The user or token it writes as.
    pub fn username(mut self, username: Option<String>) -> Self {
        self.username = username;
        self
    }

    /// The PBS it writes to.
    pub fn server(mut self, server: PbsAddress) -> Self {
        self.server = Some(server);
        self
    }

    /// Whether backups are encrypted.
    pub fn encrypted(mut self, yes: bool) -> Self {
        self.encrypted = yes;
        self
    }

    /// Whether the storage is enabled.
    pub fn enabled(mut self, yes: bool) -> Self {
        self.enabled = yes;
        self
    }
}

/// A vzdump job (`GET /cluster/backup`) with the guests it includes and those it may include,
/// as the caller resolved them (`cpps-proxmox` `BackupJob::inclusion`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChainJob {
    /// The job id.
    pub id: String,
    /// Whether it runs.
    pub enabled: bool,
    /// Its target storage.
    pub storage: Option<String>,
    /// The guests it includes.
    pub vmids: Vec<u32>,
    /// The guests it may include, with why that cannot be told: a pool job whose members the
    /// credentials may not see (`cpps-proxmox` `Inclusion::CannotTell`).
    pub unsure: Vec<(u32, String)>,
}

impl ChainJob {
    /// A job.
    pub fn new(
        id: impl Into<String>,
        enabled: bool,
        storage: Option<String>,
        vmids: Vec<u32>,
    ) -> Self {
        Self {
            id: id.into(),
            enabled,
            storage,
            vmids,
            unsure: Vec::new(),
        }
    }

    /// With the guests it may include, each with why that cannot be told.
    pub fn unsure(mut self, unsure: Vec<(u32, String)>) -> Self {
        self.unsure = unsure;
        self
    }
}

/// A vzdump task of `GET /nodes/{node}/tasks?typefilter=vzdump`.
///
/// pve-manager `PVE/API2/VZDump.pm` names the task after the guest only when it backs up one
/// guest of its node (`$taskid = $local_vmids->[0] if scalar(@{$local_vmids}) == 1`);
/// otherwise the id is empty and only the task's log says which guests it covered.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct VzdumpRun {
    /// The node it ran on.
    pub node: String,
    /// The guest, when the task backed up one guest.
    pub vmid: Option<u32>,
    /// When it started.
    pub starttime: i64,
    /// When it ended; `None` while it runs.
    pub endtime: Option<i64>,
    /// Its exit status, once ended.
    pub status: Option<ExitStatus>,
    /// What its log says of each guest, when the log was read ([`RunLog`]): only the log
    /// ties a task for several guests to them.
    pub log: Option<RunLog>,
}

impl VzdumpRun {
    /// A task that started at `starttime` and runs still.
    pub fn new(node: impl Into<String>, vmid: Option<u32>, starttime: i64) -> Self {
        Self {
            node: node.into(),
            vmid,
            starttime,
            endtime: None,
            status: None,
            log: None,
        }
    }

    /// With what its log says of each guest.
    pub fn log(mut self, log: RunLog) -> Self {
        self.log = Some(log);
        self
    }

    /// The task ended at `endtime` with `status`.
    pub fn ended(mut self, endtime: i64, status: ExitStatus) -> Self {
        self.endtime = Some(endtime);
        self.status = Some(status);
        self
    }
}

/// The copies of one local datastore and namespace on the other site.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SiteCopies {
    /// The local datastore the copies are of.
    pub datastore: String,
    /// The local namespace, empty for the root.
    pub namespace: String,
    /// The other site.
    pub site: String,
    /// The groups there, or why they could not be read.
    pub groups: Result<Vec<CopyGroup>, String>,
    /// Whether the list is known to be whole; the remote scan lists only what the remote's
    /// credentials own or may audit (proxmox-backup `src/api2/admin/datastore.rs`
    /// `list_groups`), so it is not.
    pub complete: bool,
}

impl SiteCopies {
    /// The copies of `datastore`/`namespace` on `site`; `complete` says whether the list is
    /// known to be whole.
    pub fn new(
        datastore: impl Into<String>,
        namespace: impl Into<String>,
        site: impl Into<String>,
        groups: Result<Vec<CopyGroup>, String>,
        complete: bool,
    ) -> Self {
        Self {
            datastore: datastore.into(),
            namespace: namespace.into(),
            site: site.into(),
            groups,
            complete,
        }
    }
}

/// One group of the copy.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CopyGroup {
    /// `vm` or `ct`.
    pub backup_type: BackupType,
    /// The guest id.
    pub backup_id: String,
    /// The newest snapshot's time.
    pub newest: i64,
    /// Whether `newest` is known to be a finished snapshot ([`CopyGroup::from_groups`]).
    pub finished: bool,
    /// The group's owner, as the list gives it; `None` when it does not.
    pub owner: Option<AuthId>,
    /// Whether the group is the copy: its owner is an auth-id the sync writes as. A sync
    /// writes only into a group that auth-id owns (proxmox-backup `src/server/pull.rs`
    /// `pull_ns`: "owner check failed"; `src/server/push.rs` `push_group_do`: skipped with a
    /// warning), so a group of the same id owned by another is the receiving site's own
    /// backup (`Some(false)`). `None` when the owner or the sync's auth-id is not known.
    pub is_copy: Option<bool>,
    /// When its snapshots known here were taken: every finished one of a snapshot list, only
    /// `newest` of a group list. A sync keeps each snapshot's time (proxmox-backup
    /// `src/server/pull.rs` `pull_group`), so only a snapshot at the time of one of the
    /// source's is a copy of it: an owner alone does not tell the copy from the receiving
    /// site's own backups written as the same auth-id.
    pub times: Vec<i64>,
}

/// Whether a group owned by `owner` is written by a sync that writes as one of `writers`;
/// `None` when either is not known.
fn written_by(owner: Option<&AuthId>, writers: &[AuthId]) -> Option<bool> {
    let owner = owner?;
    (!writers.is_empty()).then(|| writers.contains(owner))
}

impl CopyGroup {
    /// The groups of a group list (`GET /admin/datastore/{store}/groups` or the remote scan),
    /// written by a sync that writes as one of `writers` (empty when not known). The list's
    /// `files` are those of its `last-backup` snapshot, which is finished when the manifest
    /// `index.json.blob` is among them (proxmox-backup `src/api2/admin/datastore.rs`
    /// `list_groups`; `pbs-datastore/src/backup_info.rs` `is_finished`). Its fold may end on
    /// an unfinished snapshot, or on an older finished one than the newest, so a finished
    /// `newest` is a copy at least that recent.
    pub fn from_groups(groups: &[BackupGroup], writers: &[AuthId]) -> Vec<CopyGroup> {
        groups
            .iter()
            .map(|g| CopyGroup {
                backup_type: g.backup_type.clone(),
                backup_id: g.backup_id.clone(),
                newest: g.last_backup,
                finished: g.files.iter().any(|f| f == MANIFEST),
                owner: g.owner.clone(),
                is_copy: written_by(g.owner.as_ref(), writers),
                times: vec![g.last_backup],
            })
            .collect()
    }

    /// The groups of [`crate::checks::newest_per_guest`] over the other site's snapshots
    /// (finished ones only), written by a sync that writes as one of `writers` (empty when
    /// not known).
    pub fn from_backups(backups: &[GuestBackup], writers: &[AuthId]) -> Vec<CopyGroup> {
        backups
            .iter()
            .map(|b| CopyGroup {
                backup_type: b.backup_type.clone(),
                backup_id: b.backup_id.clone(),
                newest: b.newest_time,
                finished: true,
                owner: b.owner.clone(),
                is_copy: written_by(b.owner.as_ref(), writers),
                times: b.backup_times.clone(),
            })
            .collect()
    }
}

/// A snapshot's manifest, written last: a snapshot without it is unfinished.
const MANIFEST: &str = "index.json.blob";

/// The newest finished backups of one datastore and namespace of this site's PBS.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct SiteBackups {
    /// The datastore.
    pub datastore: String,
    /// The namespace, empty for the root.
    pub namespace: String,
    /// [`crate::checks::newest_per_guest`]'s answer, or why the snapshots could not be read.
    pub backups: Result<Vec<GuestBackup>, String>,
    /// Why the list may leave groups out, if it may: without `Datastore.Audit` PBS lists only
    /// the groups the credentials own (proxmox-backup `src/api2/admin/datastore.rs`
    /// `list_snapshots_blocking`, `check_backup_owner`).
    pub trimmed: Option<String>,
    /// The PVE storages on this datastore and namespace whose server may be another PBS, each
    /// with why ([`PbsSide::here`]): for their guests this read is "cannot tell".
    pub doubtful: Vec<(String, String)>,
}

impl SiteBackups {
    /// The backups of `datastore`/`namespace`.
    pub fn new(
        datastore: impl Into<String>,
        namespace: impl Into<String>,
        backups: Result<Vec<GuestBackup>, String>,
    ) -> Self {
        Self {
            datastore: datastore.into(),
            namespace: namespace.into(),
            backups,
            trimmed: None,
            doubtful: Vec::new(),
        }
    }

    /// The list may leave groups out, for `why`.
    pub fn trimmed(mut self, why: impl Into<String>) -> Self {
        self.trimmed = Some(why.into());
        self
    }
}

/// The backups of each of `targets`' datastore and namespace in a report's inventory
/// ([`crate::report::collect`]), judged at `now` against `rpo`. A datastore the inventory did
/// not read is left out (so "not read"); one it could not read, or a namespace whose snapshots
/// failed, carries the error. A namespace missing from the datastore's list is "cannot tell":
/// PBS lists only the namespaces the credentials may see (proxmox-backup
/// `src/api2/admin/namespace.rs` `list_namespaces`). Each list read whole is marked
/// [`SiteBackups::trimmed`] when `rights`, the caller's rights on its path
/// ([`read_path_rights`]), show that PBS listed only the caller's own groups there
/// ([`snapshots_trimmed`]), or were not read.
pub fn site_backups(
    inventory: &crate::report::Inventory,
    targets: &[PbsTarget],
    rights: &PathRights,
    now: i64,
    rpo: Duration,
) -> Vec<SiteBackups> {
    let mut out: Vec<SiteBackups> = Vec::new();
    for target in targets {
        let (store, ns) = (target.datastore.as_str(), target.namespace.as_str());
        if out
            .iter()
            .any(|s| s.datastore == store && s.namespace == ns)
        {
            continue;
        }
        let Some(read) = inventory.snapshots.get(store) else {
            continue;
        };
        let failed_ns = inventory
            .namespace_errors
            .get(store)
            .and_then(|errors| errors.iter().find(|(n, _)| n == ns));
        let backups = match (read, failed_ns) {
            (Err(e), _) => Err(e.clone()),
            (Ok(_), Some((_, e))) => Err(e.clone()),
            (Ok(namespaces), None) => match namespaces.get(ns) {
                Some(snapshots) => Ok(crate::checks::newest_per_guest(
                    store, ns, snapshots, now, rpo,
                )),
                None => Err(format!(
                    "namespace `{ns}` is not listed (missing, or hidden from the credentials)"
                )),
            },
        };
        let mut site = SiteBackups::new(store, ns, backups);
        let path = acl_path(store, ns);
        site.trimmed = match rights.get(&path) {
            Some(answer) => snapshots_trimmed(answer, store, ns),
            None => Some(format!("the credentials' rights on {path} were not read")),
        };
        out.push(site);
    }
    out
}

pub use crate::rights::{PathRights, acl_path};

/// Asks PBS for the caller's rights on each of `targets`' datastore and namespace paths
/// (`GET /access/permissions?path=…`, proxmox-backup `src/api2/access/mod.rs`
/// `list_permissions`), once each: only the answer for the path itself is exact
/// ([`snapshots_trimmed`]).
pub async fn read_path_rights(pbs: &crate::Client, targets: &[PbsTarget]) -> PathRights {
    let paths = targets
        .iter()
        .map(|target| acl_path(&target.datastore, &target.namespace));
    crate::rights::read_paths(pbs, paths).await
}

/// Why the snapshot list of `store`/`ns` may leave groups out, if it may: without
/// `Datastore.Audit` on the namespace's path, PBS lists only the groups the credentials own
/// (proxmox-backup `src/api2/admin/datastore.rs` `list_snapshots_blocking`: `list_all =
/// !check_ns_privs_full(.., PRIV_DATASTORE_AUDIT, PRIV_DATASTORE_BACKUP)`, which looks the
/// privileges up on that path, then `check_backup_owner` per group), and vzdump writes as
/// PVE's own PBS user.
///
/// `rights` must be the answer of `GET /access/permissions?path=<the path>` ([`acl_path`]),
/// and only that path's entry decides. An Audit held higher up proves nothing: an ACL of the
/// caller on a deeper path replaces what it inherits (proxmox-backup `pbs-config/src/acl.rs`
/// `AclTree::roles`, "overwrite previous mappings"), and `list_permissions` leaves out a path
/// where the caller holds nothing (`NoAccess`), so the whole list cannot show either. Rights
/// that could not be read leave the list in doubt.
pub fn snapshots_trimmed(
    rights: &Result<crate::types::Permissions, String>,
    store: &str,
    ns: &str,
) -> Option<String> {
    let rights = match rights {
        Ok(rights) => rights,
        Err(e) => return Some(format!("the credentials' rights could not be read ({e})")),
    };
    let path = acl_path(store, ns);
    let audits = rights
        .get(&path)
        .is_some_and(|privileges| privileges.contains_key("Datastore.Audit"));
    (!audits).then(|| {
        format!("without Datastore.Audit on {path} PBS lists only the groups the credentials own")
    })
}

/// Everything the chain is judged from. Its `Default` has read nothing: no guests, the vzdump
/// tasks "not read", and no list known to be whole.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ChainInput {
    /// The guests.
    pub guests: Vec<ChainGuest>,
    /// The PBS storages writing to this site's PBS.
    pub targets: Vec<PbsTarget>,
    /// Whether `targets` is the whole storage list: `GET /storage` leaves out what the caller
    /// may not audit (pve-storage `PVE/API2/Storage/Config.pm` `index`).
    pub targets_complete: bool,
    /// The name of every storage `GET /storage` listed, of any type (`dir`, `nfs`, `pbs`,
    /// ...): a run logged to one of them that is not a target of the chain wrote elsewhere.
    /// The list leaves out what the caller may not audit (pve-storage
    /// `PVE/API2/Storage/Config.pm` `index`: `Datastore.Audit` or `Datastore.AllocateSpace`
    /// on `/storage/<storage>`), so a name missing from it and from `targets` is "cannot tell".
    pub storages: Vec<String>,
    /// The vzdump jobs.
    pub jobs: Vec<ChainJob>,
    /// The vzdump tasks, or why they could not be read.
    pub runs: Result<Vec<VzdumpRun>, String>,
    /// Whether `runs` holds every vzdump task of the nodes read. Without `Sys.Audit` on
    /// `/nodes/{node}`, PVE lists only the caller's own tasks (pve-manager
    /// `PVE/API2/Tasks.pm` `node_tasks`, `$filter_task`), and scheduled backups run as
    /// `root@pam`: then a guest with no task seen is "cannot tell", not "not seen".
    pub runs_complete: bool,
    /// The nodes whose vzdump tasks could not be read, with the error. `GET
    /// /nodes/{node}/tasks` is proxied to the node (pve-manager `PVE/API2/Tasks.pm`
    /// `node_tasks`, `proxyto => 'node'`), so an offline node answers 595 while the others
    /// answer: the last run of the guests of these nodes is "cannot tell", and so is that of a
    /// guest in a job with no task seen, which may have moved off one of them.
    pub runs_unread: Vec<(String, String)>,
    /// The nodes whose task list was cut short, with what it holds ("the newest 1000 of 1342
    /// vzdump tasks"): the list stops at the request's `limit`, and its `total` counts every
    /// task that matched (pve-manager `PVE/API2/Tasks.pm` `node_tasks`). A guest in a job with
    /// no task seen may have its last run among the older ones.
    pub runs_cut: Vec<(String, String)>,
    /// This site's backups, per datastore and namespace.
    pub here: Vec<SiteBackups>,
    /// The other site's copies, per local datastore and namespace.
    pub there: Vec<SiteCopies>,
}

impl Default for ChainInput {
    fn default() -> Self {
        Self {
            guests: Vec::new(),
            targets: Vec::new(),
            targets_complete: false,
            storages: Vec::new(),
            jobs: Vec::new(),
            runs: Err("not read".to_owned()),
            runs_complete: false,
            runs_unread: Vec::new(),
            runs_cut: Vec::new(),
            here: Vec::new(),
            there: Vec::new(),
        }
    }
}

/// The verdict on one guest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Verdict {
    /// Backed up, verified and copied within the RPO.
    Ok,
    /// A link is missing, failed or older than the RPO.
    Breach,
    /// Nothing breaches, but a link could not be read or judged.
    CannotTell,
}

/// The last vzdump run that covered a guest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "state")]
#[non_exhaustive]
pub enum LastRun {
    /// A task of the guest's own ended, the newest relevant one to end: named after it, or
    /// for several guests with a log that names it ([`RunLog`]; then the status is its part's:
    /// `OK`, or the error the log gives).
    Ended {
        /// When it ended.
        end: i64,
        /// Its exit status (`OK`, `WARNINGS: N`, or the error).
        status: String,
        /// Whether it succeeded.
        success: bool,
    },
    /// A task named after the guest is running.
    Running {
        /// When it started.
        since: i64,
    },
    /// A task for several guests of its node ended, and its log, not read or not naming every
    /// guest of the task, does not say whether this guest was among them.
    Shared {
        /// When it started.
        start: i64,
        /// When it ended.
        end: i64,
        /// Its exit status (`OK`, `WARNINGS: N`, `job errors` when any guest failed).
        status: String,
        /// Whether it succeeded.
        success: bool,
    },
    /// A task of the guest's own ended, the newest one that may have written to the PBS
    /// storage judged, but its log does not show that it did ([`RunLog::written`]): not read,
    /// or naming no storage. Whether its outcome is the chain's cannot be told
    /// ([`Verdict::CannotTell`]).
    Unplaced {
        /// When it ended.
        end: i64,
        /// Its exit status, or its part's error in a log that names it.
        status: String,
        /// Whether it succeeded.
        success: bool,
        /// Why its storage cannot be told.
        why: String,
    },
    /// No vzdump task was found for it.
    NotSeen,
    /// The task lists could not be read.
    CannotTell,
}

/// The chain of one guest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GuestChain {
    /// The guest id.
    pub vmid: u32,
    /// Its name.
    pub name: Option<String>,
    /// The enabled jobs to a PBS storage that include it.
    pub jobs: Vec<String>,
    /// The PBS storage judged (the one with the newest backup when several).
    pub storage: Option<String>,
    /// Whether its backups there are encrypted.
    pub encrypted: Option<bool>,
    /// The last vzdump run.
    pub last_run: LastRun,
    /// When the newest finished snapshot here was taken.
    pub backed_up: Option<i64>,
    /// When the newest snapshot that verified ok was taken.
    pub verified: Option<i64>,
    /// The other site.
    pub copy_site: Option<String>,
    /// When the newest copy there was taken, only when it is known to be finished
    /// ([`CopyGroup::finished`]).
    pub copied: Option<i64>,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it is not ok, one reason a line.
    pub reasons: Vec<String>,
}

/// A UNIX time as RFC 3339 (UTC), or the number when it is out of range.
fn at(time: i64) -> String {
    jiff::Timestamp::from_second(time).map_or_else(|_| time.to_string(), |t| t.to_string())
}

impl fmt::Display for GuestChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let verdict = match self.verdict {
            Verdict::Ok => "ok",
            Verdict::Breach => "BREACH",
            Verdict::CannotTell => "cannot tell",
        };
        write!(f, "{} ", self.vmid)?;
        if let Some(name) = &self.name {
            write!(f, "({name}) ")?;
        }
        write!(f, "{verdict}: ")?;
        match self.backed_up {
            Some(t) => write!(f, "backed up here at {}", at(t))?,
            None => f.write_str("no backup here")?,
        }
        match self.verified {
            Some(t) => write!(f, ", verified (snapshot of {})", at(t))?,
            None => f.write_str(", never verified")?,
        }
        match (self.copied, &self.copy_site) {
            (Some(t), Some(site)) => write!(f, ", copied to {site} at {}", at(t))?,
            (None, Some(site)) => write!(f, ", no copy seen on {site}")?,
            _ => f.write_str(", copy not read")?,
        }
        for reason in &self.reasons {
            write!(f, "\n    - {reason}")?;
        }
        Ok(())
    }
}

/// What one guest's judgement gathers: breaches and parts that could not be told.
#[derive(Default)]
struct Findings {
    breach: Vec<String>,
    unknown: Vec<String>,
}

impl Findings {
    /// The breaches as "cannot tell", for a guest that may be a template (`why`), which is not
    /// judged: each breach holds only if it is none.
    fn unsure_of_breaches(&mut self, why: &str) {
        let breaches = std::mem::take(&mut self.breach).into_iter().map(|breach| {
            format!("it may be a template, which is not judged ({why}); if it is none: {breach}")
        });
        let unknown = std::mem::take(&mut self.unknown);
        self.unknown = breaches.chain(unknown).collect();
    }

    fn verdict(&self) -> Verdict {
        if !self.breach.is_empty() {
            Verdict::Breach
        } else if !self.unknown.is_empty() {
            Verdict::CannotTell
        } else {
            Verdict::Ok
        }
    }
}

/// One verdict per guest of `input`, at `now`, against `rpo`. Sorted as the guests are.
pub fn judge(input: &ChainInput, now: i64, rpo: Duration) -> Vec<GuestChain> {
    let rpo = i64::try_from(rpo.as_secs()).unwrap_or(i64::MAX);
    let targets: HashMap<&str, &PbsTarget> = input
        .targets
        .iter()
        .map(|t| (t.storage.as_str(), t))
        .collect();
    input
        .guests
        .iter()
        .map(|guest| judge_guest(input, &targets, guest, now, rpo))
        .collect()
}

fn judge_guest(
    input: &ChainInput,
    targets: &HashMap<&str, &PbsTarget>,
    guest: &ChainGuest,
    now: i64,
    rpo: i64,
) -> GuestChain {
    let mut findings = Findings::default();
    let (jobs, candidates) = guest_targets(input, targets, guest, &mut findings);
    // Of several PBS targets, the one holding the newest backup is judged.
    let judged = candidates
        .iter()
        .map(|t| (*t, here_backup(input, t, guest)))
        .max_by_key(|(_, b)| b.as_ref().ok().copied().flatten().map(|b| b.newest_time));
    // The guest's newest snapshot in the judged target, when that was read.
    let newest: Result<Option<i64>, ()> = match &judged {
        Some((_, Ok(backup))) => Ok(backup.map(|b| b.newest_time)),
        _ => Err(()),
    };
    let storages = ChainStorages::of(input, judged.as_ref().map(|(t, _)| *t));
    let last_run = last_run(input, guest, newest, &storages);
    if judged.is_some() && last_run != LastRun::CannotTell {
        findings
            .unknown
            .extend(unread_shared(input, guest, newest, &storages));
    }
    run_findings(
        input,
        guest,
        &last_run,
        !candidates.is_empty(),
        &mut findings,
    );
    let mut chain = GuestChain {
        vmid: guest.vmid,
        name: guest.name.clone(),
        jobs,
        storage: judged.as_ref().map(|(t, _)| t.storage.clone()),
        encrypted: judged.as_ref().map(|(t, _)| t.encrypted),
        last_run,
        backed_up: None,
        verified: None,
        copy_site: None,
        copied: None,
        verdict: Verdict::Ok,
        reasons: Vec::new(),
    };
    if let Some((target, backup)) = judged {
        shared_doubt(
            &chain.last_run,
            backup.as_ref().map(|b| *b).map_err(|_| ()),
            own_failure(input, guest, &storages),
            &mut findings,
        );
        // The times of the guest's snapshots here, which its copies carry; `None` unread.
        let source = backup
            .as_ref()
            .ok()
            .map(|b| b.map_or(&[][..], |b| b.backup_times.as_slice()));
        judge_here(&mut chain, &mut findings, target, backup, now, rpo);
        let there = There {
            input,
            target,
            guest,
            source,
        };
        judge_there(&mut chain, &mut findings, &there, now, rpo);
    }
    if let Some(why) = &guest.may_be_template {
        findings.unsure_of_breaches(why);
    }
    chain.verdict = findings.verdict();
    chain.reasons = findings.breach;
    chain.reasons.extend(findings.unknown);
    chain
}

/// The enabled jobs to an enabled PBS target that include `guest`, and those targets; with
/// none, why (`findings`): no job, a job to a disabled storage, or to one the storage list
/// does not show, or a pool job that may include it.
fn guest_targets<'a>(
    input: &ChainInput,
    targets: &HashMap<&str, &'a PbsTarget>,
    guest: &ChainGuest,
    findings: &mut Findings,
) -> (Vec<String>, Vec<&'a PbsTarget>) {
    let mut jobs = Vec::new();
    let mut candidates: Vec<&PbsTarget> = Vec::new();
    // Jobs to a disabled or unlisted storage matter only when no PBS job covers the guest.
    let mut elsewhere = Findings::default();
    for job in input
        .jobs
        .iter()
        .filter(|j| j.enabled && j.vmids.contains(&guest.vmid))
    {
        match job.storage.as_deref().and_then(|s| targets.get(s)) {
            Some(target) if target.enabled => {
                jobs.push(job.id.clone());
                if !candidates.contains(target) {
                    candidates.push(target);
                }
            }
            Some(_) => elsewhere
                .breach
                .push(format!("job {} writes to a disabled storage", job.id)),
            None if !input.targets_complete => elsewhere.unknown.push(format!(
                "job {} writes to storage {}, not in the storage list the credentials see",
                job.id,
                job.storage.as_deref().unwrap_or("(default)")
            )),
            None => {}
        }
    }
    // A pool job whose members are hidden may back the guest up (pve-manager
    // `PVE/VZDump.pm` `get_included_guests` reads the pool from `user.cfg`, whatever the
    // caller may see), so it leaves "no job includes it" untold.
    for (job, why) in input.jobs.iter().filter(|j| j.enabled).filter_map(|j| {
        j.unsure
            .iter()
            .find(|(vmid, _)| *vmid == guest.vmid)
            .map(|(_, why)| (j, why))
    }) {
        elsewhere
            .unknown
            .push(format!("job {} may include it: {why}", job.id));
    }
    if candidates.is_empty() {
        if elsewhere.unknown.is_empty() {
            findings.breach.push(
                "no enabled vzdump job to a PBS storage of this report includes it".to_owned(),
            );
        }
        findings.breach.append(&mut elsewhere.breach);
        findings.unknown.append(&mut elsewhere.unknown);
    }
    (jobs, candidates)
}

/// What the last run says: its own task failed (a breach), the task lists could not be read,
/// or, for a guest in a PBS job (`in_job`), no task was seen in lists that may leave some out.
fn run_findings(
    input: &ChainInput,
    guest: &ChainGuest,
    last_run: &LastRun,
    in_job: bool,
    findings: &mut Findings,
) {
    match last_run {
        LastRun::Ended {
            success: false,
            status,
            end,
        } => findings.breach.push(format!(
            "its last vzdump task failed at {}: {status}",
            at(*end)
        )),
        LastRun::Unplaced { why, .. } => findings.unknown.push(why.clone()),
        LastRun::CannotTell => findings.unknown.push(match runs_unread(input, guest) {
            Some((node, e)) => format!("the vzdump tasks of node {node} could not be read: {e}"),
            None => "the vzdump task lists could not be read".to_owned(),
        }),
        LastRun::NotSeen if in_job => not_seen_findings(input, findings),
        _ => {}
    }
}

/// A task for several guests that the guest's snapshots do not tie to it. A failed one
/// (`job errors` when any of them failed, pve-manager `PVE/VZDump.pm` `exec_backup`) may have
/// failed this guest: only its log would say. A snapshot of the guest taken after the task
/// started shows its part succeeded; without one the failure is the guest's "cannot tell".
/// One that ended OK is the guest's only when a snapshot of it taken by that run is here
/// ([`last_run`] passes it over when the snapshots were read and none is); with the snapshots
/// unread it may be another job's, so when it hides the guest's own failed task
/// (`own_failed`, its end), which run was the guest's last cannot be told.
fn shared_doubt(
    last_run: &LastRun,
    backup: Result<Option<&GuestBackup>, ()>,
    own_failed: Option<i64>,
    findings: &mut Findings,
) {
    let LastRun::Shared {
        start,
        end,
        status,
        success,
    } = last_run
    else {
        return;
    };
    if backup.is_ok_and(|b| b.is_some_and(|b| b.newest_time >= *start)) {
        return;
    }
    if !success {
        findings.unknown.push(format!(
            "the last vzdump task for several guests of its node failed at {}: {status}, and no snapshot of it taken by that run is here",
            at(*end)
        ));
    } else if let (Err(()), Some(failed)) = (backup, own_failed) {
        findings.unknown.push(format!(
            "its own vzdump task failed at {}, and whether the later task for several guests of its node ({status} at {}) backed it up cannot be told: a task names no job, and no snapshot of it taken by that run is known here",
            at(failed),
            at(*end)
        ));
    }
}

/// The end of the newest task of `guest`'s own ([`own_result`]) that ended and may have
/// written to the chain's storage, when it failed.
fn own_failure(
    input: &ChainInput,
    guest: &ChainGuest,
    storages: &ChainStorages<'_>,
) -> Option<i64> {
    let runs = input.runs.as_ref().ok()?;
    let (success, end) = runs
        .iter()
        .filter(|r| storages.aim(r) != Aim::Elsewhere)
        .filter_map(|r| Some((own_result(r, guest.vmid)?.1, r.endtime?)))
        .max_by_key(|(_, end)| *end)?;
    (!success).then_some(end)
}

/// The newest finished backup of `guest` in `target`: `Err` when the datastore was not read.
fn here_backup<'a>(
    input: &'a ChainInput,
    target: &PbsTarget,
    guest: &ChainGuest,
) -> Result<Option<&'a GuestBackup>, String> {
    let site = input
        .here
        .iter()
        .find(|s| s.datastore == target.datastore && s.namespace == target.namespace)
        .ok_or_else(|| {
            format!(
                "{} was not read",
                place(&target.datastore, &target.namespace)
            )
        })?;
    if let Some((_, why)) = site.doubtful.iter().find(|(s, _)| *s == target.storage) {
        return Err(why.clone());
    }
    let backups = site.backups.as_ref().map_err(|e| {
        format!(
            "{} could not be read: {e}",
            place(&target.datastore, &target.namespace)
        )
    })?;
    let id = guest.vmid.to_string();
    let found = backups
        .iter()
        .find(|b| b.backup_type == guest.backup_type && b.backup_id == id);
    // A group missing from a list the owner check trimmed may be there all the same.
    match (found, &site.trimmed) {
        (None, Some(why)) => Err(format!(
            "no snapshot of {}/{id} is listed in {}, and the list may leave it out: {why}",
            guest.backup_type,
            place(&target.datastore, &target.namespace)
        )),
        _ => Ok(found),
    }
}

fn place(datastore: &str, namespace: &str) -> String {
    if namespace.is_empty() {
        format!("datastore {datastore}")
    } else {
        format!("datastore {datastore} namespace {namespace}")
    }
}

fn judge_here(
    chain: &mut GuestChain,
    findings: &mut Findings,
    target: &PbsTarget,
    backup: Result<Option<&GuestBackup>, String>,
    now: i64,
    rpo: i64,
) {
    let backup = match backup {
        Ok(Some(backup)) => backup,
        Ok(None) => {
            findings.breach.push(format!(
                "no finished backup in {}",
                place(&target.datastore, &target.namespace)
            ));
            return;
        }
        Err(why) => {
            findings.unknown.push(why);
            return;
        }
    };
    // A group is owned by the auth-id that created it, which alone adds snapshots
    // (proxmox-backup `src/api2/backup/mod.rs`, "backup owner check failed"): one owned by
    // another than the user the storage writes as is not this storage's backup.
    if let (Some(owner), Some(user)) = (&backup.owner, &target.username)
        && owner.to_string() != *user
    {
        findings.breach.push(format!(
            "its {}/{} in {} is owned by {owner}, not by {user}, as which storage {} writes",
            backup.backup_type,
            backup.backup_id,
            place(&target.datastore, &target.namespace),
            target.storage
        ));
        return;
    }
    chain.backed_up = Some(backup.newest_time);
    chain.verified = backup.newest_verified_ok_time;
    if now.saturating_sub(backup.newest_time) > rpo {
        findings.breach.push(format!(
            "the newest finished backup ({}) is older than the RPO",
            at(backup.newest_time)
        ));
    }
    match &backup.newest_verification {
        Some(VerifyState::Failed) => findings
            .breach
            .push("the newest backup failed verification".to_owned()),
        Some(VerifyState::Unknown(state)) => findings.unknown.push(format!(
            "the newest backup's verification state `{state}` is unknown to this client"
        )),
        _ => {}
    }
    if backup
        .newest_verified_ok_time
        .is_none_or(|t| now.saturating_sub(t) > rpo)
    {
        findings
            .breach
            .push("no backup verified ok within the RPO".to_owned());
    }
}

/// What the copy of one guest is judged against: the input, the target judged here, the
/// guest, and the times of its snapshots here (`None` when they were not read).
struct There<'a> {
    input: &'a ChainInput,
    target: &'a PbsTarget,
    guest: &'a ChainGuest,
    source: Option<&'a [i64]>,
}

fn judge_there(
    chain: &mut GuestChain,
    findings: &mut Findings,
    there: &There<'_>,
    now: i64,
    rpo: i64,
) {
    let There {
        input,
        target,
        guest,
        source,
    } = *there;
    // Without the guest's snapshots here no group there can be told to be their copy; the
    // reason here already makes the verdict "cannot tell", and the line says "copy not read".
    let Some(source) = source else {
        return;
    };
    // A storage whose server may be another PBS has its copies elsewhere too: its "here"
    // already says why it cannot be told.
    if doubtful_here(input, target) {
        return;
    }
    let Some(copies) = input
        .there
        .iter()
        .find(|c| c.datastore == target.datastore && c.namespace == target.namespace)
    else {
        findings.unknown.push(format!(
            "no copy of {} on the other site was read",
            place(&target.datastore, &target.namespace)
        ));
        return;
    };
    let groups = match &copies.groups {
        Ok(groups) => groups,
        Err(why) => {
            // No site: the line then says "copy not read", not "no copy seen".
            findings.unknown.push(format!(
                "the copy on {} could not be read: {why}",
                copies.site
            ));
            return;
        }
    };
    chain.copy_site = Some(copies.site.clone());
    let copy = match the_copy(groups, guest, &copies.site) {
        Ok(copy) => copy,
        Err(Missing::Unsure(why)) => {
            findings.unknown.push(why);
            return;
        }
        Err(Missing::Taken(why)) => {
            findings.breach.push(why);
            return;
        }
        Err(Missing::Absent(why)) => {
            if copies.complete {
                findings.breach.push(why);
            } else {
                findings.unknown.push(format!(
                    "not among the groups and sync jobs of {} that the credentials may list",
                    copies.site
                ));
            }
            return;
        }
    };
    let newest = match copied_time(copy, source, guest, &copies.site) {
        Ok(newest) => newest,
        Err(why) => {
            findings.unknown.push(why);
            return;
        }
    };
    // Only a snapshot known to be finished is a copy.
    if copy.finished {
        chain.copied = Some(newest);
    }
    if now.saturating_sub(newest) > rpo {
        findings.breach.push(format!(
            "the newest copy on {} ({}) is older than the RPO",
            copies.site,
            at(newest)
        ));
    } else if !copy.finished {
        // A group list's `last-backup` may be a snapshot still being written or abandoned
        // (proxmox-backup `src/api2/admin/datastore.rs` `list_groups`), so it is not a copy.
        findings.unknown.push(format!(
            "cannot tell whether the newest copy on {} ({}) finished: a group list's last backup may be a snapshot still being written",
            copies.site,
            at(newest)
        ));
    }
}

/// Whether `target`'s storage is one whose server may be another PBS ([`SiteBackups::doubtful`]).
fn doubtful_here(input: &ChainInput, target: &PbsTarget) -> bool {
    input.here.iter().any(|s| {
        s.datastore == target.datastore
            && s.namespace == target.namespace
            && s.doubtful
                .iter()
                .any(|(storage, _)| *storage == target.storage)
    })
}

/// The time of the newest snapshot of `copy` that was taken at the time of one of the
/// guest's snapshots here (`source`): a pull creates each snapshot with
/// its source's time (proxmox-backup `src/server/pull.rs` `pull_group`:
/// `backup_dir(target_ns, from_snapshot)`), so another is the receiving site's own backup or
/// a copy of one no longer here; either way the copy cannot be told.
fn copied_time(
    copy: &CopyGroup,
    source: &[i64],
    guest: &ChainGuest,
    site: &str,
) -> Result<i64, String> {
    copy.times
        .iter()
        .copied()
        .filter(|t| source.contains(t))
        .max()
        .ok_or_else(|| {
            format!(
                "cannot tell whether {}/{} on {site} is the copy: none of its snapshots (the newest of {}) was taken at the time of one of this site's snapshots of it, as a sync's copy is",
                guest.backup_type,
                guest.vmid,
                at(copy.newest)
            )
        })
}

/// Why a guest has no copy among the groups read.
enum Missing {
    /// None is there, in a list that may be partial or not ([`SiteCopies::complete`]).
    Absent(String),
    /// The group of its id where the copy lands is another auth-id's, so no sync wrote it: a
    /// breach whether or not the list is whole, since a namespace holds one group per id.
    Taken(String),
    /// A group of its id is there whose owner, or the sync's auth-id, is not known.
    Unsure(String),
}

/// `guest`'s copy among `groups` on `site`: the newest of its groups that the sync wrote
/// ([`CopyGroup::is_copy`]). A group of its id that another auth-id owns is the site's own
/// backup, and the guest has no copy there; one that may be the copy is "cannot tell".
fn the_copy<'a>(
    groups: &'a [CopyGroup],
    guest: &ChainGuest,
    site: &str,
) -> Result<&'a CopyGroup, Missing> {
    let id = guest.vmid.to_string();
    let same: Vec<&CopyGroup> = groups
        .iter()
        .filter(|g| g.backup_type == guest.backup_type && g.backup_id == id)
        .collect();
    if let Some(copy) = same
        .iter()
        .filter(|g| g.is_copy == Some(true))
        .max_by_key(|g| g.newest)
    {
        return Ok(copy);
    }
    if let Some(unsure) = same.iter().find(|g| g.is_copy.is_none()) {
        let why = if unsure.owner.is_none() {
            "the list gives no owner"
        } else {
            "the auth-id the sync job writes as is not known"
        };
        return Err(Missing::Unsure(format!(
            "cannot tell whether {}/{id} on {site} is the copy: {why}",
            guest.backup_type
        )));
    }
    Err(match same.first().and_then(|g| g.owner.as_ref()) {
        Some(owner) => Missing::Taken(format!(
            "no copy on {site}: its {}/{id} there is owned by {owner}, not by the auth-id the sync job writes as",
            guest.backup_type
        )),
        None => Missing::Absent(format!("no copy on {site}")),
    })
}

/// The last vzdump run of `guest`: of the tasks that are its own and those for several
/// guests that may be, the newest to end, since a start is not a finish; a task named after
/// it that runs and started after that end runs now. A task whose log shows it wrote
/// elsewhere than the chain's storage ([`ChainStorages::aim`]) is passed over.
///
/// Its own: a task named after it (pve-manager `PVE/API2/VZDump.pm` `vzdump`: `$taskid =
/// $local_vmids->[0] if scalar(@{$local_vmids}) == 1`), or a task for several guests whose
/// log names it ([`RunLog`]), on whatever node, so a guest moved since is still judged by it.
/// A task for several guests whose log was read and names every guest of the task but not
/// this one was not its. One whose log was not read may be its when it ran on its node, and
/// then it names no job (`PVE/Jobs/VZDump.pm` `run` hands the job id to `vzdump` only as
/// `job-id`, for the notification): one that ended OK while `newest`, the guest's newest
/// snapshot here when it was read, is older than its start did not back the guest up here (a
/// task ends OK only when every guest of it did), and is passed over. So is a task of its
/// own that ended OK whose storage its log does not show: a backup to PBS leaves a snapshot
/// whose time is the guest's start (`PVE/VZDump.pm` `exec_backup_task`: `backup_time`).
fn last_run(
    input: &ChainInput,
    guest: &ChainGuest,
    newest: Result<Option<i64>, ()>,
    storages: &ChainStorages<'_>,
) -> LastRun {
    let Ok(runs) = &input.runs else {
        return LastRun::CannotTell;
    };
    if runs_unread(input, guest).is_some() {
        return LastRun::CannotTell;
    }
    let ended = newest_ended(runs, guest, newest, storages);
    // A running task whose log does not show the chain's storage may be a manual dump
    // elsewhere: it does not replace the run that ended.
    let running = runs
        .iter()
        .filter(|r| r.vmid == Some(guest.vmid) && r.endtime.is_none())
        .filter(|r| ended.is_none_or(|(_, end)| r.starttime > end))
        .filter(|r| ended.is_none() || storages.aim(r) == Aim::Chain)
        .max_by_key(|r| r.starttime);
    if let Some(run) = running {
        return LastRun::Running {
            since: run.starttime,
        };
    }
    let Some((run, end)) = ended else {
        return LastRun::NotSeen;
    };
    if let Some((status, success)) = own_result(run, guest.vmid) {
        return own_run(run, end, status, success, newest, storages);
    }
    // Ended without a status: not a success.
    let (status, success) = run
        .status
        .as_ref()
        .map_or(("unknown".to_owned(), false), |s| {
            (s.to_string(), s.is_success())
        });
    LastRun::Shared {
        start: run.starttime,
        end,
        status,
        success,
    }
}

/// Whether `run` ended OK after `newest` (the guest's newest snapshot here, when read): then
/// it took no snapshot of the guest here, so it did not back the guest up to the chain.
fn no_snapshot_from(run: &VzdumpRun, newest: Result<Option<i64>, ()>) -> bool {
    newest.is_ok_and(|newest| {
        run.status.as_ref().is_some_and(ExitStatus::is_success)
            && newest.is_none_or(|t| t < run.starttime)
    })
}

/// The run that ended last of those that may be `guest`'s run to the chain ([`last_run`]),
/// with its end.
fn newest_ended<'r>(
    runs: &'r [VzdumpRun],
    guest: &ChainGuest,
    newest: Result<Option<i64>, ()>,
    storages: &ChainStorages<'_>,
) -> Option<(&'r VzdumpRun, i64)> {
    let own = |r: &VzdumpRun| own_result(r, guest.vmid).is_some();
    let counts = |r: &VzdumpRun| match storages.aim(r) {
        Aim::Chain => true,
        Aim::Elsewhere => false,
        Aim::Untold(_) => !no_snapshot_from(r, newest),
    };
    let shared = |r: &VzdumpRun| {
        r.vmid.is_none()
            && r.log.as_ref().is_none_or(|log| !log.names_all)
            && guest.node.as_deref().is_none_or(|n| n == r.node)
            && !no_snapshot_from(r, newest)
    };
    runs.iter()
        .filter(|r| (own(r) || shared(r)) && counts(r))
        .filter_map(|r| r.endtime.map(|end| (r, end)))
        .max_by_key(|(r, end)| (*end, own(r)))
}

/// A task for several guests, on any node, whose log was not read, that started after
/// `guest`'s last run ([`newest_ended`]) and did not end OK, with no snapshot of the guest
/// here taken since it started: it may have failed the guest's part (pve-manager
/// `PVE/VZDump.pm` `exec_backup`: `job errors` when any guest failed), and a guest moved
/// off its node is judged without it. With the snapshots unread, one that ended OK counts
/// too. The newest such task makes the chain "cannot tell".
fn unread_shared(
    input: &ChainInput,
    guest: &ChainGuest,
    newest: Result<Option<i64>, ()>,
    storages: &ChainStorages<'_>,
) -> Option<String> {
    let runs = input.runs.as_ref().ok()?;
    let since = newest_ended(runs, guest, newest, storages).map(|(r, _)| r.starttime);
    let backed_up_since = |r: &VzdumpRun| newest.is_ok_and(|t| t >= Some(r.starttime));
    let (run, end) = runs
        .iter()
        .filter(|r| r.vmid.is_none() && r.log.is_none())
        .filter(|r| since.is_none_or(|s| r.starttime > s))
        .filter(|r| !backed_up_since(r) && !no_snapshot_from(r, newest))
        .filter_map(|r| r.endtime.map(|end| (r, end)))
        .max_by_key(|(_, end)| *end)?;
    let status = run
        .status
        .as_ref()
        .map_or("unknown".to_owned(), ToString::to_string);
    Some(format!(
        "a vzdump task for several guests on node {} ended at {} ({status}) after its last run; its log was not read, and no snapshot of it taken since that task started is here",
        run.node,
        at(end)
    ))
}

/// The last run of the guest's own `run`: [`LastRun::Ended`] when its log shows it wrote to
/// the chain's storage, or when it ended OK and the guest's `newest` snapshot here was taken
/// after it started; otherwise which storage it wrote to cannot be told
/// ([`LastRun::Unplaced`]).
fn own_run(
    run: &VzdumpRun,
    end: i64,
    status: String,
    success: bool,
    newest: Result<Option<i64>, ()>,
    storages: &ChainStorages<'_>,
) -> LastRun {
    let why = match storages.aim(run) {
        Aim::Untold(why) if !(success && newest.is_ok_and(|t| t >= Some(run.starttime))) => why,
        _ => {
            return LastRun::Ended {
                end,
                status,
                success,
            };
        }
    };
    let why = format!(
        "its last vzdump task ended at {}: {status}, and whether it wrote to storage {} cannot be told: {why}",
        at(end),
        storages.chain.join(", ")
    );
    LastRun::Unplaced {
        end,
        status,
        success,
        why,
    }
}

/// Where a vzdump task wrote, for the chain judged ([`ChainStorages::aim`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Aim {
    /// To a storage of the chain.
    Chain,
    /// Elsewhere: the run is none of the chain's.
    Elsewhere,
    /// Its log does not say, for the reason given.
    Untold(String),
}

/// The PVE storages a vzdump task must write to to count for a guest's chain: those on the
/// datastore and namespace judged (several storages may name one), or with none judged every
/// PBS storage listed; and whether the storage list is whole.
struct ChainStorages<'a> {
    chain: Vec<&'a str>,
    listed: Vec<&'a str>,
    complete: bool,
}

impl<'a> ChainStorages<'a> {
    /// The storages of `judged`'s place in `input`, or of every target when none is judged;
    /// listed are the targets and every other storage the list showed, of any type.
    fn of(input: &'a ChainInput, judged: Option<&PbsTarget>) -> Self {
        let targets: Vec<&str> = input.targets.iter().map(|t| t.storage.as_str()).collect();
        let chain = match judged {
            Some(judged) => input
                .targets
                .iter()
                .filter(|t| t.datastore == judged.datastore && t.namespace == judged.namespace)
                .map(|t| t.storage.as_str())
                .collect(),
            None => targets.clone(),
        };
        let mut listed = targets;
        listed.extend(input.storages.iter().map(String::as_str));
        Self {
            chain,
            listed,
            complete: input.targets_complete,
        }
    }

    /// Whether `run` wrote to the chain's storage, as its log says ([`RunLog::written`]). A
    /// listed storage outside the chain, of any type, is elsewhere; one missing from a storage
    /// list that may leave some out may be one of the chain's.
    fn aim(&self, run: &VzdumpRun) -> Aim {
        let Some(log) = &run.log else {
            return Aim::Untold("its log was not read".to_owned());
        };
        match &log.written {
            Written::Storage(s) if self.chain.contains(&s.as_str()) => Aim::Chain,
            Written::Storage(s) if !self.complete && !self.listed.contains(&s.as_str()) => {
                Aim::Untold(format!(
                    "it wrote to storage {s}, which the storage list the credentials see does not show (GET /storage lists only the storages they may audit)"
                ))
            }
            Written::Storage(_) | Written::NotPbs(_) => Aim::Elsewhere,
            Written::Untold => Aim::Untold(
                "its log names no storage (vzdump then takes /etc/vzdump.conf's)".to_owned(),
            ),
        }
    }
}

/// The status of `run` for guest `vmid`, and whether it succeeded, when the run is the guest's
/// own: named after it (its exit status; none is no success), or for several guests with a
/// log that names it (its part's outcome there).
fn own_result(run: &VzdumpRun, vmid: u32) -> Option<(String, bool)> {
    let task_status = || {
        run.status
            .as_ref()
            .map_or(("unknown".to_owned(), false), |s| {
                (s.to_string(), s.is_success())
            })
    };
    match run.vmid {
        Some(id) if id == vmid => return Some(task_status()),
        Some(_) => return None,
        None => {}
    }
    Some(match run.log.as_ref()?.outcome(vmid)? {
        GuestOutcome::Finished => ("OK".to_owned(), true),
        GuestOutcome::Failed(error) => (error.clone(), false),
        GuestOutcome::Unfinished => (
            format!("the task ended ({}) while backing it up", task_status().0),
            false,
        ),
    })
}

/// Why no task seen of a guest in a PBS job may still hide its last run: the lists may leave
/// out other users' tasks, a guest moved off a node (an HA recovery, a migration) left its
/// runs before in that node's list (pve-manager `PVE/API2/Tasks.pm` `node_tasks` reads the
/// node's own), which may be one not read, and a list cut at its limit leaves out the older
/// tasks. What a node no longer keeps is past telling: its task index holds some thousand
/// tasks of every kind (pve-common `src/PVE/RESTEnvironment.pm` rotates `index` to `index.1`
/// past 50,000 bytes, "about 1000 entries"), so "not seen" covers only that window.
fn not_seen_findings(input: &ChainInput, findings: &mut Findings) {
    if !input.runs_complete {
        findings.unknown.push(
            "no vzdump task of it was seen, and the task lists may leave out other users' tasks (Sys.Audit on /nodes/<node> not known to be held)".to_owned(),
        );
    }
    if !input.runs_unread.is_empty() {
        let nodes: Vec<&str> = input.runs_unread.iter().map(|(n, _)| n.as_str()).collect();
        findings.unknown.push(format!(
            "no vzdump task of it was seen, and the task lists of {} were not read: a guest moved from one keeps its last run there",
            nodes.join(", ")
        ));
    }
    for (node, holds) in &input.runs_cut {
        findings.unknown.push(format!(
            "no vzdump task of it was seen, and the task list of {node} holds only {holds}"
        ));
    }
}

/// The error of the unread task list that may hold `guest`'s last run: its node's, or any
/// node's when its node is not known.
fn runs_unread<'a>(input: &'a ChainInput, guest: &ChainGuest) -> Option<&'a (String, String)> {
    input
        .runs_unread
        .iter()
        .find(|(node, _)| guest.node.as_deref().is_none_or(|n| n == node))
}

/// What a vzdump task's log says of each guest it backed up.
///
/// pve-manager `PVE/VZDump.pm` `exec_backup_task` logs `Starting Backup of VM {vmid}
/// ({type})` when a guest's backup starts, then `Finished Backup of VM {vmid} ({duration})`
/// or, at level `err`, `Backup of VM {vmid} failed - {error}` (also when it fails before it
/// starts); `exec_backup` runs the guests one after the other and ends with `Backup job
/// finished successfully` or `Backup job finished with errors` once it tried every guest, or
/// `Backup job failed - {error}` when it left the loop. pve-guest-common
/// `src/PVE/VZDump/Plugin.pm` `debugmsg` writes each line to the task log as `INFO: {msg}` or
/// `ERROR: {msg}`. pve-manager 8.x (`stable-8`) writes the same lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RunLog {
    /// The guests the log names, each with its outcome, in the order the log names them.
    pub guests: Vec<(u32, GuestOutcome)>,
    /// Whether the log names every guest its task backed up: it was read to its end and says
    /// the job tried every guest. A guest it does not name then was not in the task.
    pub names_all: bool,
    /// Where the task wrote its backups.
    pub written: Written,
}

/// Where a vzdump task wrote its backups, as its log says ([`RunLog::parse`]). pve-manager
/// `PVE/VZDump.pm` `exec_backup` starts every log with `starting new backup job: {cmdline}`,
/// the command pve-guest-common `src/PVE/VZDump/Common.pm` `command_line` rebuilds from the
/// call (`--storage NAME` when a storage was given, each value shell-quoted);
/// `exec_backup_task` logs, per guest, `creating Proxmox Backup Server archive '{snapshot}'`
/// to a PBS storage, `creating vzdump archive '{file}'` to a file, `creating {provider}
/// archive` to a backup provider, or `sending archive to stdout`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Written {
    /// To the PVE storage its command names with `--storage`.
    Storage(String),
    /// Not to a PVE storage of type `pbs`, with what shows it: a `--dumpdir`, or an archive
    /// line of another kind than PBS's.
    NotPbs(String),
    /// The log does not say: its first line was not read, or its command names no storage
    /// (vzdump then takes `/etc/vzdump.conf`'s, `PVE/VZDump.pm` `new`) and no archive line
    /// tells a file from a PBS.
    #[default]
    Untold,
}

impl Written {
    /// What a log's `command` (`vzdump …`) and its archive lines (`archives`: the kind of the
    /// first `creating {kind} archive`, or `stdout`) say.
    fn of(command: Option<&str>, archive: Option<&str>) -> Self {
        let words = command.map(shell_words).unwrap_or_default();
        let value = |option: &str| {
            words
                .iter()
                .position(|w| w == option)
                .and_then(|at| words.get(at + 1))
        };
        if let Some(storage) = value("--storage") {
            return Written::Storage(storage.clone());
        }
        if let Some(dir) = value("--dumpdir") {
            return Written::NotPbs(format!("--dumpdir {dir}"));
        }
        match archive {
            Some(kind) if kind != PBS_ARCHIVE => Written::NotPbs(format!("a {kind} archive")),
            _ => Written::Untold,
        }
    }
}

/// The kind `exec_backup_task` names a PBS archive by.
const PBS_ARCHIVE: &str = "Proxmox Backup Server";

/// The words of a command line that pve-guest-common `command_line` joined, each value
/// quoted by String::ShellQuote (pve-common `src/PVE/Tools.pm` `shellquote`): single quotes
/// around a value with other characters than safe ones, `\'` for a quote.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut quoted = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                word.get_or_insert_default();
            }
            '\\' if !quoted => word.get_or_insert_default().extend(chars.next()),
            c if c.is_whitespace() && !quoted => words.extend(word.take()),
            c => word.get_or_insert_default().push(c),
        }
    }
    words.extend(word);
    words
}

/// One guest's part of a vzdump task, as the task's log says ([`RunLog`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum GuestOutcome {
    /// `Finished Backup of VM {vmid} (…)`.
    Finished,
    /// `Backup of VM {vmid} failed - {error}`, with the error's first line.
    Failed(String),
    /// `Starting Backup of VM {vmid}` with no outcome after it: the task stopped while it
    /// backed the guest up.
    Unfinished,
}

impl RunLog {
    /// Reads `lines`, the task log from its first line; `whole` says whether they reach its
    /// end. Lines that are not `debugmsg`'s (the guests' own output is logged as `INFO: …`
    /// too, but never at these places of a line) are passed over.
    pub fn parse<S: AsRef<str>>(lines: &[S], whole: bool) -> Self {
        let mut log = RunLog::default();
        let mut tried_all = false;
        let (mut command, mut archive) = (None, None);
        for line in lines {
            let line = line.as_ref();
            if let Some(msg) = line.strip_prefix("INFO: ") {
                if let Some(cmd) = msg.strip_prefix("starting new backup job: ") {
                    command.get_or_insert(cmd);
                } else if let Some((kind, _)) = msg
                    .strip_prefix("creating ")
                    .and_then(|rest| rest.split_once(" archive '"))
                {
                    archive.get_or_insert(kind);
                } else if msg == "sending archive to stdout" {
                    archive.get_or_insert("stdout");
                } else if let Some(vmid) = guest_of(msg, "Starting Backup of VM ") {
                    log.set(vmid, GuestOutcome::Unfinished);
                } else if let Some(vmid) = guest_of(msg, "Finished Backup of VM ") {
                    log.set(vmid, GuestOutcome::Finished);
                } else if msg == "Backup job finished successfully"
                    || msg == "Backup job finished with errors"
                {
                    tried_all = true;
                }
            } else if let Some(rest) = line
                .strip_prefix("ERROR: Backup of VM ")
                .and_then(|rest| rest.split_once(" failed - "))
                && let Ok(vmid) = rest.0.parse()
            {
                log.set(vmid, GuestOutcome::Failed(rest.1.to_owned()));
            }
        }
        log.names_all = whole && tried_all;
        log.written = Written::of(command, archive);
        log
    }

    /// The outcome of `vmid`'s part, when the log names it.
    pub fn outcome(&self, vmid: u32) -> Option<&GuestOutcome> {
        self.guests
            .iter()
            .find(|(v, _)| *v == vmid)
            .map(|(_, outcome)| outcome)
    }

    fn set(&mut self, vmid: u32, outcome: GuestOutcome) {
        match self.guests.iter_mut().find(|(v, _)| *v == vmid) {
            Some(entry) => entry.1 = outcome,
            None => self.guests.push((vmid, outcome)),
        }
    }
}

/// The guest id of `{prefix}{vmid} (…)`.
fn guest_of(msg: &str, prefix: &str) -> Option<u32> {
    let (vmid, _) = msg.strip_prefix(prefix)?.split_once(" (")?;
    vmid.parse().ok()
}

impl ChainInput {
    /// Keeps only the targets `keep` accepts, and drops the jobs that write to a target it
    /// left out (a job to a storage not listed at all stays: it is "cannot tell"). A target
    /// left out stays in [`ChainInput::storages`]: a run to it wrote elsewhere.
    pub fn retain_targets(&mut self, keep: impl Fn(&PbsTarget) -> bool) {
        let dropped: Vec<String> = self
            .targets
            .iter()
            .filter(|t| !keep(t))
            .map(|t| t.storage.clone())
            .collect();
        self.targets.retain(|t| !dropped.contains(&t.storage));
        self.jobs
            .retain(|j| j.storage.as_ref().is_none_or(|s| !dropped.contains(s)));
        for storage in dropped {
            if !self.storages.contains(&storage) {
                self.storages.push(storage);
            }
        }
    }
}

/// What one PBS answered for the chain: the newest finished backups of every datastore and
/// namespace read, the datastores whose namespaces could not be listed, whether the
/// datastore list is known to be whole, and what says where copies go: the server's address,
/// its sync jobs and its remotes. The live audit keeps one per site, and judges a site's
/// guests with its own ([`PbsSide::here`]) and the other site's ([`PbsSide::copies`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PbsSide {
    /// One entry per datastore and namespace listed; `Err` when its snapshots failed.
    pub backups: Vec<SiteBackups>,
    /// Datastores whose namespaces could not be listed, with the error.
    pub unread: Vec<(String, String)>,
    /// Whether the datastore list is whole: PBS lists only the datastores the caller may
    /// audit or back up to (proxmox-backup `src/api2/admin/datastore.rs`
    /// `get_datastore_list`).
    pub complete: bool,
    /// How the other site's remotes would name this server; `None` when not known.
    pub address: Option<PbsAddress>,
    /// Its sync jobs (`GET /admin/sync`), or why they could not be read.
    pub sync_jobs: Result<Vec<SyncJob>, String>,
    /// Why [`PbsSide::sync_jobs`] may leave jobs out, `None` when it is known to be whole: PBS
    /// lists only the jobs the caller may audit ([`crate::rights::sync_jobs_hidden`]), so a
    /// job that copies a guest elsewhere may be missing.
    pub sync_jobs_hidden: Option<String>,
    /// Its remotes (`GET /config/remote`), or why they could not be read.
    pub remotes: Result<Vec<Remote>, String>,
}

impl Default for PbsSide {
    fn default() -> Self {
        Self::new(false)
    }
}

impl PbsSide {
    /// Nothing read yet; `complete` says whether the datastore list will be whole.
    pub fn new(complete: bool) -> Self {
        Self {
            backups: Vec::new(),
            unread: Vec::new(),
            complete,
            address: None,
            sync_jobs: Err("not read".to_owned()),
            sync_jobs_hidden: Some("the caller's rights were not read".to_owned()),
            remotes: Err("not read".to_owned()),
        }
    }

    /// The read of `datastore`/`namespace`, or why there is none: its namespaces could not be
    /// listed, or it was not among those listed (which proves nothing: PBS lists only the
    /// namespaces and datastores the credentials may see, `src/api2/admin/namespace.rs`
    /// `list_namespaces`).
    fn place(&self, datastore: &str, namespace: &str) -> Result<&[GuestBackup], String> {
        if let Some(site) = self
            .backups
            .iter()
            .find(|s| s.datastore == datastore && s.namespace == namespace)
        {
            return site.backups.as_deref().map_err(Clone::clone);
        }
        if let Some((_, e)) = self.unread.iter().find(|(d, _)| d == datastore) {
            return Err(format!(
                "the namespaces of {datastore} could not be read: {e}"
            ));
        }
        Err(format!(
            "{} is not listed (missing, or hidden from the credentials)",
            place(datastore, namespace)
        ))
    }

    /// Whether `target` may write to this PBS: a datastore name says nothing about the server
    /// (pve-storage `src/PVE/Storage/PBSPlugin.pm` `options`: `server`, `port`,
    /// `fingerprint` and `datastore` together name the place), so the server is compared when
    /// both sides are known ([`PbsAddress::server_match`]), and only then. `false` only when
    /// it is shown to be another server; one that may be this one is kept, and
    /// [`PbsSide::here`] reads it as "cannot tell".
    pub fn serves(&self, target: &PbsTarget) -> bool {
        self.same_as(target) != Some(false)
    }

    /// [`PbsAddress::server_match`] of this PBS and `target`'s; `Some(true)` when either
    /// address is not known.
    fn same_as(&self, target: &PbsTarget) -> Option<bool> {
        match (&self.address, &target.server) {
            (Some(mine), Some(theirs)) => mine.server_match(theirs),
            _ => Some(true),
        }
    }

    /// Why `target`'s backups cannot be told to be on this PBS, when its server may be
    /// another ([`PbsAddress::server_match`] is `None`).
    fn server_doubt(&self, target: &PbsTarget) -> Option<String> {
        if self.same_as(target).is_some() {
            return None;
        }
        let name = |a: &Option<PbsAddress>| {
            a.as_ref()
                .map_or_else(String::new, |a| format!("{}:{}", a.host, a.port))
        };
        Some(format!(
            "whether storage {}'s server {} is this PBS ({}) cannot be told: the names differ and no certificate fingerprint on both sides decides",
            target.storage,
            name(&target.server),
            name(&self.address)
        ))
    }

    /// Why the list of `datastore`/`namespace` may leave groups out, if it may.
    fn trimmed(&self, datastore: &str, namespace: &str) -> Option<&str> {
        self.backups
            .iter()
            .find(|s| s.datastore == datastore && s.namespace == namespace)
            .and_then(|s| s.trimmed.as_deref())
    }

    /// This site's backups for each of `targets`' datastore and namespace; a target on
    /// another server ([`PbsSide::serves`]) is left out, so not read, and one that may be on
    /// another server is an `Err` saying so (a snapshot of the same id here may be a pulled
    /// copy). Targets surely on this server come first, so that their read is kept; one that
    /// may be on another server but shares the place of such a target is named in
    /// [`SiteBackups::doubtful`], so that its guests are "cannot tell" all the same.
    pub fn here(&self, targets: &[PbsTarget]) -> Vec<SiteBackups> {
        let mut out: Vec<SiteBackups> = Vec::new();
        let (sure, unsure): (Vec<&PbsTarget>, Vec<&PbsTarget>) = targets
            .iter()
            .filter(|t| self.serves(t))
            .partition(|t| self.server_doubt(t).is_none());
        for t in sure.into_iter().chain(unsure) {
            if let Some(site) = out
                .iter_mut()
                .find(|s| s.datastore == t.datastore && s.namespace == t.namespace)
            {
                // The place is read for a storage surely on this server; this one, which may
                // name another server, is told apart by its storage id.
                if let Some(why) = self.server_doubt(t) {
                    site.doubtful.push((t.storage.clone(), why));
                }
                continue;
            }
            let doubt = self.server_doubt(t);
            let backups = match &doubt {
                Some(why) => Err(why.clone()),
                None => self.place(&t.datastore, &t.namespace).map(<[_]>::to_vec),
            };
            let mut site = SiteBackups::new(&t.datastore, &t.namespace, backups);
            site.trimmed = self.trimmed(&t.datastore, &t.namespace).map(str::to_owned);
            site.doubtful
                .extend(doubt.map(|why| (t.storage.clone(), why)));
            out.push(site);
        }
        out
    }

    /// The copies of `targets`' backups (which `from`, the PBS of the targets' site, holds) on
    /// this PBS, which is `site`'s. A copy comes from a pull job of this server whose remote
    /// points at `from` and whose `remote-store`/`remote-ns` (with `max-depth`) take the
    /// target's datastore and namespace (pbs-api-types `src/jobs.rs` `SyncJobConfig`;
    /// proxmox-backup `src/server/pull.rs` `PullParameters::new`: one remote, store and
    /// namespace a job), or from a push job of `from` whose remote points here
    /// (`src/server/push.rs` `PushParameters::new`, PBS 3.3+). Either maps the source
    /// namespace onto the target's by prefix (`map_to_target`) and keeps the group ids, so the
    /// guest's group is looked up where the target lands, among the groups the job's
    /// `group-filter` takes. With no such job, or the lists that would say so unread, the
    /// copies are `Err` ("cannot tell").
    pub fn copies(&self, from: &PbsSide, targets: &[PbsTarget], site: &str) -> Vec<SiteCopies> {
        let mut out: Vec<SiteCopies> = Vec::new();
        for t in targets {
            if out
                .iter()
                .any(|c| c.datastore == t.datastore && c.namespace == t.namespace)
            {
                continue;
            }
            let (lands, unknown) = copy_jobs(self, from, &t.datastore, &t.namespace);
            let groups = if lands.is_empty() {
                Err(if unknown.is_empty() {
                    format!(
                        "no sync job copies {} to {site}",
                        place(&t.datastore, &t.namespace)
                    )
                } else {
                    unknown.join("; ")
                })
            } else {
                self.landed_groups(&lands)
            };
            out.push(SiteCopies::new(
                &t.datastore,
                &t.namespace,
                site,
                groups,
                // A job the caller may not see on either side may copy the guest elsewhere.
                self.complete
                    && unknown.is_empty()
                    && self.sync_jobs_hidden.is_none()
                    && from.sync_jobs_hidden.is_none()
                    && lands.iter().all(|l| self.trimmed(l.store, &l.ns).is_none()),
            ));
        }
        out
    }

    /// The groups each landing place holds that its job takes, each judged against the
    /// auth-id its job writes as ([`CopyGroup::is_copy`]); `Err` when a place is unread.
    fn landed_groups(&self, lands: &[Landing<'_>]) -> Result<Vec<CopyGroup>, String> {
        let mut groups = Vec::new();
        for land in lands {
            let backups = self.place(land.store, &land.ns)?;
            let taken: Vec<GuestBackup> = backups
                .iter()
                .filter(|b| {
                    land.job
                        .scope_includes(&land.scope_ns, &b.backup_type, &b.backup_id)
                        .unwrap_or(false)
                })
                .cloned()
                .collect();
            let writers: Vec<AuthId> = land.writer.iter().cloned().collect();
            groups.extend(CopyGroup::from_backups(&taken, &writers));
        }
        Ok(groups)
    }
}

/// How a PBS is reached, as a remote entry of another PBS names it (`host`, `port`,
/// `fingerprint` of `GET /config/remote`, pbs-api-types `src/remote.rs` `RemoteConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PbsAddress {
    /// The host name or address, lower case, IPv6 without brackets.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The pinned SHA-256 certificate fingerprint, when known.
    pub fingerprint: Option<String>,
}

impl PbsAddress {
    /// The server at `host`:`port`.
    pub fn new(host: &str, port: u16) -> Self {
        Self {
            host: normal_host(host),
            port,
            fingerprint: None,
        }
    }

    /// The server of an API URL (`https://host:port/…`), port 8007 when the URL has none.
    pub fn from_url(url: &str) -> Option<Self> {
        let url = url::Url::parse(url).ok()?;
        let host = url.host_str()?;
        Some(Self::new(host, url.port().unwrap_or(crate::DEFAULT_PORT)))
    }

    /// With its pinned certificate fingerprint.
    pub fn fingerprint(mut self, fingerprint: Option<String>) -> Self {
        self.fingerprint = fingerprint;
        self
    }

    /// Whether `remote` points at this server ([`PbsAddress::server_match`]); `None` when
    /// that cannot be told.
    pub fn is_reached_by(&self, remote: &Remote) -> Option<bool> {
        let theirs = PbsAddress::new(&remote.host, remote.port_or_default())
            .fingerprint(remote.fingerprint.clone());
        self.server_match(&theirs)
    }

    /// Whether `other` may name the same server: `false` only when it is shown to be another
    /// ([`PbsAddress::server_match`] is `Some(false)`).
    pub fn same_server(&self, other: &PbsAddress) -> bool {
        self.server_match(other) != Some(false)
    }

    /// Whether `other` names the same server: `Some(false)` only when shown to be another,
    /// `None` when that cannot be told. When both
    /// give a certificate fingerprint, it decides (the clients pin the certificate by it, so
    /// one name or another reaches the same server). Otherwise the same host and port are the
    /// same server, and the same host on another port is another listener; but two host
    /// texts prove nothing: pve-storage's `server` is "Server IP or DNS name"
    /// (`src/PVE/Storage/Plugin.pm`) and the `fingerprint` is optional for trusted
    /// certificates (`src/PVE/Storage/PBSPlugin.pm`), so `10.0.0.5` and `pbs-franca.lan`
    /// may be one server.
    pub fn server_match(&self, other: &PbsAddress) -> Option<bool> {
        match (&self.fingerprint, &other.fingerprint) {
            (Some(mine), Some(theirs)) => {
                Some(normal_fingerprint(mine) == normal_fingerprint(theirs))
            }
            _ if other.host == self.host => Some(other.port == self.port),
            _ => None,
        }
    }
}

fn normal_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .to_ascii_lowercase()
}

fn normal_fingerprint(fingerprint: &str) -> String {
    fingerprint
        .chars()
        .filter(char::is_ascii_hexdigit)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Where a sync job writes one source namespace: the datastore and namespace on the
/// receiving PBS, and the namespace the job's scope is judged in (its `ns` side).
struct Landing<'a> {
    job: &'a SyncJob,
    store: &'a str,
    ns: String,
    scope_ns: String,
    /// The auth-id the job writes the copies as; `None` when not known.
    writer: Option<AuthId>,
}

/// The auth-id a pull job writes as: its `owner`, `root@pam` when unset (proxmox-backup
/// `src/api2/pull.rs` `PullParameters::try_from`; pbs-api-types `src/jobs.rs`
/// `SyncJobConfig.owner`).
fn pull_writer(job: &SyncJob) -> Option<AuthId> {
    job.owner.clone().or_else(|| "root@pam".parse().ok())
}

/// The namespace `ns` below `anchor` mapped below `onto`, as `BackupNamespace::map_prefix`
/// does; `None` when `ns` is not `anchor` or below it.
fn map_prefix(ns: &str, anchor: &str, onto: &str) -> Option<String> {
    let rest = if anchor.is_empty() {
        ns
    } else if ns == anchor {
        ""
    } else {
        ns.strip_prefix(anchor)?.strip_prefix('/')?
    };
    Some(match (onto.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_owned(),
        (false, true) => onto.to_owned(),
        (false, false) => format!("{onto}/{rest}"),
    })
}

/// The remote named `name` in `side`'s remote list: `Ok(None)` when the list lacks it.
fn remote_of<'a>(side: &'a PbsSide, name: &str) -> Result<Option<&'a Remote>, String> {
    match &side.remotes {
        Ok(remotes) => Ok(remotes.iter().find(|r| r.name == name)),
        Err(e) => Err(format!("the remotes could not be read: {e}")),
    }
}

/// Whether the job's remote points at `to`: `Err` when the remote list is unread or `to`'s
/// address is unknown.
fn points_at(side: &PbsSide, job: &SyncJob, to: &PbsSide) -> Result<bool, String> {
    let Some(name) = &job.remote else {
        return Ok(false);
    };
    let Some(remote) = remote_of(side, name)? else {
        return Ok(false);
    };
    let address = to
        .address
        .as_ref()
        .ok_or_else(|| "the other server's address is not known".to_owned())?;
    address.is_reached_by(remote).ok_or_else(|| {
        format!(
            "whether remote {} ({}) is {}:{} cannot be told: the names differ and no certificate fingerprint on both sides decides",
            remote.name, remote.host, address.host, address.port
        )
    })
}

/// The sync jobs that copy `store`/`ns` of `from` to `to` (pulls of `to`, pushes of `from`),
/// each with where it lands, and what could not be told.
fn copy_jobs<'a>(
    to: &'a PbsSide,
    from: &'a PbsSide,
    store: &str,
    ns: &str,
) -> (Vec<Landing<'a>>, Vec<String>) {
    let mut lands = Vec::new();
    let mut unknown = Vec::new();
    let mut note = |why: String| {
        if !unknown.contains(&why) {
            unknown.push(why);
        }
    };
    match &to.sync_jobs {
        Err(e) => note(format!(
            "the receiving server's sync jobs could not be read: {e}"
        )),
        Ok(jobs) => {
            for job in jobs
                .iter()
                .filter(|j| j.direction() == SyncDirection::Pull && j.remote_store == store)
            {
                match points_at(to, job, from) {
                    Err(why) => note(format!("pull job {}: {why}", job.id)),
                    Ok(false) => {}
                    Ok(true) => {
                        let remote_ns = job.remote_ns.as_deref().unwrap_or("");
                        let local_ns = job.ns.as_deref().unwrap_or("");
                        if let Some(landing) = map_prefix(ns, remote_ns, local_ns) {
                            lands.push(Landing {
                                job,
                                store: &job.store,
                                scope_ns: landing.clone(),
                                ns: landing,
                                writer: pull_writer(job),
                            });
                        }
                    }
                }
            }
        }
    }
    match &from.sync_jobs {
        Err(e) => note(format!(
            "the sending server's sync jobs could not be read: {e}"
        )),
        Ok(jobs) => {
            for job in jobs
                .iter()
                .filter(|j| j.direction() == SyncDirection::Push && j.store == store)
            {
                match points_at(from, job, to) {
                    Err(why) => note(format!("push job {}: {why}", job.id)),
                    Ok(false) => {}
                    Ok(true) => {
                        let local_ns = job.ns.as_deref().unwrap_or("");
                        let remote_ns = job.remote_ns.as_deref().unwrap_or("");
                        if let Some(landing) = map_prefix(ns, local_ns, remote_ns) {
                            // A push writes as its remote's `auth-id`
                            // (`src/server/push.rs` `PushTarget::remote_user`).
                            let writer = job
                                .remote
                                .as_deref()
                                .and_then(|name| remote_of(from, name).ok().flatten())
                                .map(|r| r.auth_id.clone());
                            lands.push(Landing {
                                job,
                                store: &job.remote_store,
                                ns: landing,
                                scope_ns: ns.to_owned(),
                                writer,
                            });
                        }
                    }
                }
            }
        }
    }
    (lands, unknown)
}

/// The copies of each target's datastore and namespace on the other site, read through this
/// PBS's remote scan (`GET /config/remote/{remote}/scan/{store}/groups`, proxmox-backup
/// `src/api2/config/remote.rs` `scan_remote_groups`) of `store`, in `namespace` or else the
/// target's own. The list is the remote credentials' view, so never complete. A group there
/// is the copy when its owner is one of `writers`, the auth-ids the syncs that make the copy
/// write as (a push of this PBS: the remote's `auth-id`; a pull of the other site: that job's
/// `owner`); with `writers` empty, whether a group is the copy cannot be told
/// ([`CopyGroup::is_copy`]). [`judge`] counts it only when its last backup was taken at the
/// time of one of this site's snapshots of the guest ([`CopyGroup::times`]).
pub async fn read_remote_copies(
    pbs: &crate::Client,
    remote: &str,
    store: &str,
    namespace: Option<&str>,
    targets: &[PbsTarget],
    site: &str,
    writers: &[AuthId],
) -> Vec<SiteCopies> {
    let mut out: Vec<SiteCopies> = Vec::new();
    for target in targets {
        let (local, ns) = (&target.datastore, &target.namespace);
        if out
            .iter()
            .any(|c| &c.datastore == local && &c.namespace == ns)
        {
            continue;
        }
        let remote_ns = namespace.unwrap_or(ns);
        let groups = pbs
            .remote_groups(remote, store, (!remote_ns.is_empty()).then_some(remote_ns))
            .await
            .map(|groups| CopyGroup::from_groups(&groups, writers))
            .map_err(|e| crate::report::error_chain(&e));
        out.push(SiteCopies::new(local, ns, site, groups, false));
    }
    out
}
