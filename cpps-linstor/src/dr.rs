//! The cross-site DR view: which resources have an off-site copy, where, and how old it is.
//!
//! LINSTOR ships snapshots off site in two ways (linstor-server `Backups.java`,
//! `Schedules.java`): to an S3 (or EBS) remote, where each shipped snapshot is a
//! [`Backup`] listed by `GET /v1/remotes/{remote}/backups`, and to another LINSTOR cluster (a LINSTOR
//! remote), where the copy is a snapshot of the other cluster. Schedules ship periodically and
//! say when they last *started* shipping each resource (`GET /v1/view/schedules-by-resource`,
//! `last_snap_time`). [`Client::dr_state`] reads all of it; [`assess`] is a pure function that
//! says, per resource, its newest off-site copy and whether it is older than allowed.
//!
//! Only a finished, successful entry of a backup list is a copy, and an incremental one only
//! while its bases back to a full backup are listed and restorable
//! ([`BackupList::missing_base`]). A schedule's `last_snap_time`
//! is written when shipping starts (linstor-server `CtrlBackupCreateApiCallHandler`
//! `setIncrementalDependentProps`, called for S3 at the start of a backup and by
//! `CtrlBackupL2LSrcApiCallHandler` for a LINSTOR remote; `CtrlScheduleApiCallHandler` returns
//! it) and stays when that shipment fails, so it is shown as the last attempt, never as a copy.
//! A copy on another LINSTOR cluster is a snapshot of that cluster: [`assess_with_targets`]
//! judges it by what the target holds, read with a second client; without it such resources
//! show their last attempt and no confirmed copy, and the remote is listed as not confirmed.
//!
//! A target may hold shipments from several clusters: a target snapshot whose
//! `Backup/FromClusterUUID` is not this cluster's `Cluster/LocalID` is not this cluster's copy
//! (linstor-server `CtrlBackupL2LDstApiCallHandler` stores the sender's id in the shipment's
//! snapshot props, which `CtrlBackupRestoreApiCallHandler` writes on each node's snapshot:
//! REST `snapshots[].snapshot_props`). An S3 backup
//! cannot be told apart that way (the REST `Backup` names its `origin_node`, no cluster), so a
//! bucket shared with another cluster that names a resource alike mixes their backups: every
//! S3 copy, and a target snapshot whose sender cannot be told, is listed but shown as
//! "cannot tell which cluster" ([`OffSiteCopy::cluster_known`]), and never makes its resource
//! fresh: recent only by such copies, a resource is [`Freshness::CannotTell`].

use std::collections::BTreeMap;
use std::time::Duration;

use futures::StreamExt;
use serde::Serialize;

use crate::client::Client;
use crate::error::Error;
use crate::types::backup::{Backup, BackupList, Remotes, Schedule, ScheduledResource};
use crate::types::snapshot::Snapshot;

/// Remotes listed at once when their backups are read.
const REMOTES_IN_FLIGHT: usize = 4;

/// Everything the DR view is derived from.
#[derive(Debug, Clone, Default, Serialize)]
pub struct DrState {
    /// `GET /v1/remotes`.
    pub remotes: Remotes,
    /// `GET /v1/schedules`.
    pub schedules: Vec<Schedule>,
    /// `GET /v1/view/schedules-by-resource`.
    pub scheduled: Vec<ScheduledResource>,
    /// `GET /v1/remotes/{remote}/backups` of each S3 remote.
    pub backups: BTreeMap<String, BackupList>,
    /// Remotes whose backups could not be listed, with the reason (the others are still read).
    pub unreadable: BTreeMap<String, String>,
    /// This cluster's id, the controller property `Cluster/LocalID` (linstor-server
    /// `LinStor.PROP_KEY_CLUSTER_ID`); `None` when it could not be read.
    pub local_cluster_id: Option<String>,
}

impl Client {
    /// Fetches a [`DrState`]: `GET /v1/remotes`, `/v1/schedules` and
    /// `/v1/view/schedules-by-resource` at once, then `GET /v1/remotes/{remote}/backups` of each
    /// S3 remote, a few at a time, and this cluster's id from `GET /v1/controller/properties`
    /// (left `None` when that read fails). A remote whose backups cannot be listed is kept in
    /// [`DrState::unreadable`]; the rest of the view is still returned.
    pub async fn dr_state(&self) -> Result<DrState, Error> {
        let (remotes, schedules, scheduled) =
            futures::try_join!(self.remotes(), self.schedules(), self.scheduled_resources())?;
        let names: Vec<String> = remotes
            .s3_remotes
            .iter()
            .map(|r| r.remote_name.clone())
            .collect();
        let listed: Vec<(String, Result<BackupList, Error>)> = futures::stream::iter(names)
            .map(|name| async move {
                let answer = self.backups(&name, None).await;
                (name, answer)
            })
            .buffer_unordered(REMOTES_IN_FLIGHT)
            .collect()
            .await;
        // Without the id, copies on a target still count, shown as "cannot tell which cluster".
        let local_cluster_id = self.controller_properties().await.ok().and_then(|p| {
            let id = p.0.get(LOCAL_CLUSTER_ID)?.trim();
            (!id.is_empty()).then(|| id.to_owned())
        });
        let mut state = DrState {
            remotes,
            schedules,
            scheduled,
            local_cluster_id,
            ..DrState::default()
        };
        for (name, answer) in listed {
            match answer {
                Ok(list) => {
                    state.backups.insert(name, list);
                }
                Err(e) => {
                    state.unreadable.insert(name, e.to_string());
                }
            }
        }
        Ok(state)
    }
}

/// Where an off-site copy comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "by", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CopySource {
    /// A finished, successful backup listed in an S3 remote.
    Backup {
        /// The backup id.
        id: String,
    },
    /// A snapshot the target cluster of a LINSTOR remote received in full
    /// ([`assess_with_targets`]).
    TargetSnapshot {
        /// The snapshot's name on the target (`<backup name>_<source cluster hash>`).
        snapshot: String,
    },
}

/// One off-site copy of a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OffSiteCopy {
    /// The remote holding it.
    pub remote: String,
    /// The remote's kind (`s3`, `linstor`, `ebs`; `unknown` for a remote not listed).
    pub kind: String,
    /// How it is known.
    pub source: CopySource,
    /// When its shipping finished, in milliseconds since the Unix epoch. For a
    /// [`CopySource::TargetSnapshot`], which has no finish time upstream, the time its data
    /// was taken (the shipment's start): older, never fresher, than a finish time.
    pub shipped_at_ms: i64,
    /// Its age at the time of the assessment (zero when in the future).
    pub age: Duration,
    /// Whether it is known to come from this cluster: false for an S3 backup (the REST
    /// `Backup` names no cluster) and for a target snapshot when its sender's or this
    /// cluster's id is missing. Shown as "cannot tell which cluster".
    pub cluster_known: bool,
}

/// A schedule's last shipment of a resource: when it *started*, whatever became of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LastAttempt {
    /// The remote it was shipped to.
    pub remote: String,
    /// The remote's kind (`s3`, `linstor`, `ebs`; `unknown` for a remote not listed).
    pub kind: String,
    /// The schedule.
    pub schedule: String,
    /// When shipping started (`last_snap_time`), in milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// How long ago it started at the time of the assessment (zero when in the future).
    pub age: Duration,
}

/// Whether a resource has a recent enough off-site copy of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Freshness {
    /// A copy known to be this cluster's is within the allowed age.
    Fresh,
    /// No copy, of any cluster, is within the allowed age (or there is none).
    Stale,
    /// Only copies whose cluster cannot be told ([`OffSiteCopy::cluster_known`] false) are
    /// within the allowed age: in a bucket or target shared with another cluster, they may be
    /// that cluster's copies of a resource named alike.
    CannotTell,
}

/// The off-site copies of one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResourceDr {
    /// Resource name.
    pub resource: String,
    /// Every finished, successful copy, newest first.
    pub copies: Vec<OffSiteCopy>,
    /// The schedules' last shipments, newest first: not copies, since one may have failed.
    pub last_attempts: Vec<LastAttempt>,
    /// Schedules shipping it, as `schedule → remote`, with the reason when one is not active.
    pub schedules: Vec<String>,
    /// Whether a copy of its own is within the allowed age.
    pub verdict: Freshness,
}

impl ResourceDr {
    /// The newest copy.
    pub fn newest(&self) -> Option<&OffSiteCopy> {
        self.copies.first()
    }

    /// The newest schedule shipment when it started after the newest copy finished (or there
    /// is no copy): what finished copies cannot tell about.
    pub fn unconfirmed_attempt(&self) -> Option<&LastAttempt> {
        let attempt = self.last_attempts.first()?;
        match self.newest() {
            Some(copy) if copy.shipped_at_ms >= attempt.started_at_ms => None,
            _ => Some(attempt),
        }
    }
}

/// The DR view of a cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DrReport {
    /// Remotes as `(name, kind)`.
    pub remotes: Vec<(String, String)>,
    /// Resources, by name.
    pub resources: Vec<ResourceDr>,
    /// Resources without any off-site copy.
    pub without_copy: usize,
    /// Resources whose newest copy is older than allowed (those without copy included).
    pub stale: usize,
    /// Resources recent only by copies whose cluster cannot be told ([`Freshness::CannotTell`]).
    pub cannot_tell: usize,
    /// Of the stale ones, those whose schedule started a shipment within the allowed age: it
    /// may have finished (to a LINSTOR remote, whose copies this view does not read) or failed.
    pub unconfirmed: usize,
    /// Remotes whose backups could not be listed.
    pub unreadable: BTreeMap<String, String>,
}

/// Says, for each of `resources`, its off-site copies and whether the newest is older than
/// `max_age` at `now_ms` (milliseconds since the Unix epoch). Copies on LINSTOR remotes are not
/// confirmed: see [`assess_with_targets`].
pub fn assess(state: &DrState, resources: &[&str], now_ms: i64, max_age: Duration) -> DrReport {
    assess_with_targets(state, &BTreeMap::new(), resources, now_ms, max_age)
}

/// The snapshot-definition properties linstor-server keeps on the target cluster of an L2L
/// shipment, in `BackupShippingUtils.BACKUP_TARGET_PROPS_NAMESPC` (`BackupShipping/Target`).
const TARGET_SHIPPING_STATUS: &str = "BackupShipping/Target/ShippingStatus";
const TARGET_START_TIMESTAMP: &str = "BackupShipping/Target/BackupStartTimestamp";
/// The sending cluster's id on an L2L target snapshot, among each node's `snapshot_props`
/// (linstor-server `InternalApiConsts.KEY_BACKUP_L2L_SRC_CLUSTER_UUID`, set by
/// `CtrlBackupL2LDstApiCallHandler`).
const SOURCE_CLUSTER_ID: &str = "Backup/FromClusterUUID";
/// A cluster's own id among the controller properties (`LinStor.PROP_KEY_CLUSTER_ID`).
const LOCAL_CLUSTER_ID: &str = "Cluster/LocalID";

/// [`assess`], with the copies of LINSTOR remotes judged by what their target clusters hold:
/// `targets` maps a LINSTOR remote's name to the snapshots of the cluster it points to, read
/// with a second [`Client`] (`GET /v1/view/snapshots` there, [`Client::snapshots`]).
///
/// An L2L shipment is a copy only once the target has received it: linstor-server
/// `CtrlBackupRestoreApiCallHandler` sets the target snapshot's `ShippingStatus` to `Shipping`
/// when receiving starts, and `shippingReceivedInTransaction` sets `Success` or `Failed` when it
/// ends (and deletes a failed one); `CtrlBackupApiCallHandler` reads the same status to call a
/// backup shipped. Its time is `BackupStartTimestamp`, the source's start, since no finish time
/// is kept. The target resource is matched by name (`dst_rsc_name`, the source's name unless
/// renamed). A LINSTOR remote missing from `targets` is listed in [`DrReport::unreadable`] as
/// not confirmed, and its shipments stay attempts.
pub fn assess_with_targets(
    state: &DrState,
    targets: &BTreeMap<String, Vec<Snapshot>>,
    resources: &[&str],
    now_ms: i64,
    max_age: Duration,
) -> DrReport {
    let kinds: BTreeMap<&str, &str> = state.remotes.names().collect();
    let kind_of = |remote: &str| kinds.get(remote).copied().unwrap_or("unknown").to_owned();
    let mut copies: BTreeMap<&str, Vec<OffSiteCopy>> = BTreeMap::new();
    let mut attempts: BTreeMap<&str, Vec<LastAttempt>> = BTreeMap::new();
    let mut schedules: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let age =
        |at: i64| Duration::from_millis(u64::try_from(now_ms.saturating_sub(at)).unwrap_or(0));
    for entry in &state.scheduled {
        // linstor-server `CtrlScheduleApiCallHandler.listScheduledRscs` lists a resource with
        // no schedule with a null schedule and remote (`none set`): nothing to show.
        if entry.schedule_name.trim().is_empty() && entry.remote_name.trim().is_empty() {
            continue;
        }
        let mut label = format!("{} → {}", entry.schedule_name, entry.remote_name);
        if let Some(reason) = entry.reason.as_deref().filter(|r| !r.trim().is_empty()) {
            label.push_str(&format!(" (inactive: {reason})"));
        }
        schedules
            .entry(entry.rsc_name.as_str())
            .or_default()
            .push(label);
        if let Some(at) = entry.last_started() {
            attempts
                .entry(entry.rsc_name.as_str())
                .or_default()
                .push(LastAttempt {
                    remote: entry.remote_name.clone(),
                    kind: kind_of(&entry.remote_name),
                    schedule: entry.schedule_name.clone(),
                    started_at_ms: at,
                    age: age(at),
                });
        }
    }
    backup_copies(state, &kind_of, &age, &mut copies);
    let mut unreadable = state.unreadable.clone();
    for (remote, kind) in state.remotes.names().filter(|(_, k)| *k == "linstor") {
        match targets.get(remote) {
            Some(snapshots) => {
                let local = state.local_cluster_id.as_deref();
                target_copies(remote, kind, snapshots, local, &age, &mut copies);
            }
            None => {
                unreadable.insert(
                    remote.to_owned(),
                    "copies not confirmed: the target cluster was not read".to_owned(),
                );
            }
        }
    }
    let mut names: Vec<&str> = resources.to_vec();
    names.sort_unstable();
    names.dedup();
    let resources: Vec<ResourceDr> = names
        .into_iter()
        .map(|name| {
            let mut list = copies.remove(name).unwrap_or_default();
            list.sort_by_key(|c| std::cmp::Reverse(c.shipped_at_ms));
            let verdict = freshness(&list, max_age);
            let mut tried = attempts.remove(name).unwrap_or_default();
            tried.sort_by_key(|a| std::cmp::Reverse(a.started_at_ms));
            ResourceDr {
                resource: name.to_owned(),
                copies: list,
                last_attempts: tried,
                schedules: schedules.remove(name).unwrap_or_default(),
                verdict,
            }
        })
        .collect();
    let count = |v: Freshness| resources.iter().filter(|r| r.verdict == v).count();
    DrReport {
        remotes: state
            .remotes
            .names()
            .map(|(n, k)| (n.to_owned(), k.to_owned()))
            .collect(),
        without_copy: resources.iter().filter(|r| r.copies.is_empty()).count(),
        stale: count(Freshness::Stale),
        cannot_tell: count(Freshness::CannotTell),
        unconfirmed: resources
            .iter()
            .filter(|r| {
                r.verdict == Freshness::Stale
                    && r.unconfirmed_attempt().is_some_and(|a| a.age <= max_age)
            })
            .count(),
        resources,
        unreadable,
    }
}

/// The verdict on a resource's copies: a copy whose cluster cannot be told never makes it
/// fresh, since linstor-server `CtrlBackupApiCallHandler.listBackups` lists every backup of a
/// shared bucket, whichever cluster shipped it.
fn freshness(copies: &[OffSiteCopy], max_age: Duration) -> Freshness {
    let recent = |c: &&OffSiteCopy| c.age <= max_age;
    if copies.iter().filter(recent).any(|c| c.cluster_known) {
        Freshness::Fresh
    } else if copies.iter().any(|c| recent(&c)) {
        Freshness::CannotTell
    } else {
        Freshness::Stale
    }
}

/// The finished, successful backups of the S3 remotes, as copies per resource.
fn backup_copies<'a>(
    state: &'a DrState,
    kind_of: &dyn Fn(&str) -> String,
    age: &dyn Fn(i64) -> Duration,
    copies: &mut BTreeMap<&'a str, Vec<OffSiteCopy>>,
) {
    for (remote, list) in &state.backups {
        // An incremental whose base is gone cannot be restored (the list is read unfiltered).
        let restorable = |b: &&Backup| b.is_complete() && list.missing_base(b).is_none();
        for backup in list.linstor.values().filter(restorable) {
            // A start time is not a finish time: an entry without one is no finished copy.
            let Some(at) = backup.finished_timestamp else {
                continue;
            };
            copies
                .entry(backup.origin_rsc.as_str())
                .or_default()
                .push(OffSiteCopy {
                    remote: remote.clone(),
                    kind: kind_of(remote),
                    source: CopySource::Backup {
                        id: backup.id.clone(),
                    },
                    shipped_at_ms: at,
                    age: age(at),
                    cluster_known: false,
                });
        }
    }
}

/// The snapshots a LINSTOR remote's target cluster received in full, as copies per resource;
/// one sent by a cluster other than `local` is left out.
fn target_copies<'a>(
    remote: &str,
    kind: &str,
    snapshots: &'a [Snapshot],
    local: Option<&str>,
    age: &dyn Fn(i64) -> Duration,
    copies: &mut BTreeMap<&'a str, Vec<OffSiteCopy>>,
) {
    for snapshot in snapshots {
        if snapshot
            .props
            .get(TARGET_SHIPPING_STATUS)
            .map(String::as_str)
            != Some("Success")
        {
            continue;
        }
        // A copy without its time cannot be aged: it is left out rather than called fresh.
        let Some(at) = snapshot
            .props
            .get(TARGET_START_TIMESTAMP)
            .and_then(|t| t.trim().parse::<i64>().ok())
        else {
            continue;
        };
        let cluster_known = match (sender(snapshot), local) {
            (Sender::One(from), Some(local)) if from.eq_ignore_ascii_case(local) => true,
            // Another cluster's shipment to the same target: not this cluster's copy.
            (Sender::One(_), Some(_)) => continue,
            _ => false,
        };
        copies
            .entry(snapshot.resource_name.as_str())
            .or_default()
            .push(OffSiteCopy {
                remote: remote.to_owned(),
                kind: kind.to_owned(),
                source: CopySource::TargetSnapshot {
                    snapshot: snapshot.name.clone(),
                },
                shipped_at_ms: at,
                age: age(at),
                cluster_known,
            });
    }
}

/// Which cluster sent a target snapshot.
enum Sender<'a> {
    /// No node's snapshot names one.
    Unknown,
    /// Every node's snapshot that names one names this one.
    One(&'a str),
    /// The nodes' snapshots disagree: cannot tell.
    Several,
}

/// The sender's id, from each node's `snapshot_props`: linstor-server
/// `CtrlBackupRestoreApiCallHandler.createSnapshotAndVolumesForBackupRestore` writes the
/// shipment's snapshot props there (not into the definition's, which `props` shows).
fn sender(snapshot: &Snapshot) -> Sender<'_> {
    let mut found = Sender::Unknown;
    let ids = snapshot
        .snapshots
        .iter()
        .filter_map(|n| n.snapshot_props.get(SOURCE_CLUSTER_ID))
        .map(|id| id.trim())
        .filter(|id| !id.is_empty());
    for id in ids {
        found = match found {
            Sender::Unknown => Sender::One(id),
            Sender::One(seen) if seen.eq_ignore_ascii_case(id) => Sender::One(seen),
            _ => Sender::Several,
        };
    }
    found
}

/// `3 h 20 min`, `2 d 4 h`: an age for people.
pub fn age_text(age: Duration) -> String {
    let minutes = age.as_secs() / 60;
    match (minutes / (24 * 60), (minutes / 60) % 24, minutes % 60) {
        (0, 0, m) => format!("{m} min"),
        (0, h, m) => format!("{h} h {m} min"),
        (d, h, _) => format!("{d} d {h} h"),
    }
}

/// Renders the view as plain text: one line per resource with its newest copy.
pub fn render_text(report: &DrReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "OFF-SITE COPIES");
    if report.remotes.is_empty() {
        let _ = writeln!(
            out,
            "  no remote is configured: no resource has an off-site copy"
        );
    }
    for (remote, reason) in &report.unreadable {
        let _ = writeln!(out, "  remote {remote}: backups not readable: {reason}");
    }
    for resource in &report.resources {
        let newest = match resource.newest() {
            Some(copy) => {
                let via = match &copy.source {
                    CopySource::Backup { id } => format!("backup {id}"),
                    CopySource::TargetSnapshot { snapshot } => {
                        format!("snapshot {snapshot} on the target")
                    }
                };
                let unsure = if copy.cluster_known {
                    ""
                } else {
                    " (cannot tell which cluster)"
                };
                format!(
                    "newest copy on {} ({}) {} old, by {via}{unsure}",
                    copy.remote,
                    copy.kind,
                    age_text(copy.age)
                )
            }
            None => "no off-site copy".to_owned(),
        };
        let stale = match resource.verdict {
            Freshness::Fresh => "",
            Freshness::Stale => "  STALE",
            Freshness::CannotTell => "  CANNOT TELL",
        };
        let _ = writeln!(out, "  {:<32} {newest}{stale}", resource.resource);
        if let Some(attempt) = resource.unconfirmed_attempt() {
            let _ = writeln!(
                out,
                "  {:<32} last shipment by schedule {} to {} ({}) started {} ago (unconfirmed)",
                "",
                attempt.schedule,
                attempt.remote,
                attempt.kind,
                age_text(attempt.age)
            );
        }
    }
    let _ = writeln!(
        out,
        "  {} without an off-site copy, {} older than allowed or missing ({} with a newer \
         unconfirmed shipment), {} cannot tell (recent only by copies of an unknown cluster)",
        report.without_copy, report.stale, report.unconfirmed, report.cannot_tell
    );
    out
}
