//! The backup checks, as pure functions over typed answers.
//!
//! Nothing here does I/O: callers pass what the API answered and the current time (UNIX epoch
//! seconds), so every rule is tested with fixed inputs. Results are plain data (`Serialize`)
//! for text and JSON reports.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::Serialize;

use crate::Error;
use crate::types::{
    AuthId, BackupType, ExitStatus, GcStatus, JobRunStatus, PruneJob, Remote, Snapshot,
    SyncDirection, SyncJob, Upid, VerifyJob, VerifyState,
};

/// Parses a duration such as `26h`, `90m`, `1d12h` or `3600s` (units `s`, `m`, `h`, `d`, `w`;
/// a bare number is seconds).
pub fn parse_duration(text: &str) -> Result<Duration, Error> {
    let invalid = |reason: &str| Error::Invalid {
        kind: "duration",
        input: text.chars().take(120).collect(),
        reason: reason.to_owned(),
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(invalid("is empty; write it like `26h` or `1d12h`"));
    }
    if trimmed.chars().all(|c| c.is_ascii_digit()) {
        return trimmed
            .parse::<u64>()
            .map(Duration::from_secs)
            .map_err(|_| invalid("is too large"));
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    for c in trimmed.chars() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return Err(invalid("units are s, m, h, d and w")),
        };
        if number.is_empty() {
            return Err(invalid("each unit needs a number before it"));
        }
        let value: u64 = number.parse().map_err(|_| invalid("is too large"))?;
        number.clear();
        total = value
            .checked_mul(unit)
            .and_then(|seconds| total.checked_add(seconds))
            .ok_or_else(|| invalid("is too large"))?;
    }
    if !number.is_empty() {
        return Err(invalid("the last number has no unit"));
    }
    Ok(Duration::from_secs(total))
}

/// Seconds from `then` to `now`, never negative (a clock ahead of ours counts as age 0).
fn age(now: i64, then: i64) -> u64 {
    u64::try_from(now.saturating_sub(then)).unwrap_or(0)
}

/// The newest backup of one guest (a backup group) in one datastore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct GuestBackup {
    /// The datastore.
    pub store: String,
    /// The namespace, empty for the root.
    pub namespace: String,
    /// `vm`, `ct` or `host`.
    pub backup_type: BackupType,
    /// The backup id (the VM id for guests).
    pub backup_id: String,
    /// How many finished snapshots the group holds.
    pub snapshot_count: usize,
    /// How many unfinished snapshots (running or abandoned backups, no manifest) the group
    /// holds; they are left out of every other field.
    pub unfinished_count: usize,
    /// When the newest snapshot was taken (UNIX epoch).
    pub newest_time: i64,
    /// Age of the newest snapshot in seconds.
    pub newest_age_secs: u64,
    /// Verification of the newest snapshot; `None` when it was never verified.
    pub newest_verification: Option<VerifyState>,
    /// When the newest snapshot that verified OK was taken.
    pub newest_verified_ok_time: Option<i64>,
    /// The newest snapshot is older than the RPO.
    pub rpo_breached: bool,
    /// No snapshot that verified OK is within the RPO.
    pub verified_rpo_breached: bool,
    /// Whether a push to another site that succeeded within the RPO has this group in its
    /// scope (and, under `verified-only` / `encrypted-only`, a snapshot within the RPO that
    /// passes them); `None` when that cannot be told (or was not judged: [`crate::report::build`]
    /// judges it).
    pub off_site: Option<bool>,
    /// The group's owner, as the newest finished snapshot's list item gives it (pbs-api-types
    /// `SnapshotListItem.owner` is the group's owner); `None` when the list leaves it out. A
    /// sync writes only into a group its own auth-id owns ([`crate::chain::CopyGroup`]). Not
    /// in the report's JSON.
    #[serde(skip_serializing)]
    pub owner: Option<AuthId>,
    /// When each finished snapshot of the group was taken, oldest first: a sync keeps a
    /// snapshot's time, so a copy elsewhere is told by it ([`crate::chain::CopyGroup`]). Not
    /// in the report's JSON.
    #[serde(skip_serializing)]
    pub backup_times: Vec<i64>,
}

impl GuestBackup {
    /// Whether the newest snapshot failed verification.
    pub fn newest_verify_failed(&self) -> bool {
        matches!(self.newest_verification, Some(VerifyState::Failed))
    }

    /// Whether the newest snapshot's verification state is a value this client does not know
    /// (a newer PBS's). Unknown is not ok: it is counted and fails the report, never shown as
    /// verified.
    pub fn newest_verify_unknown(&self) -> bool {
        matches!(self.newest_verification, Some(VerifyState::Unknown(_)))
    }

    /// Whether the newest snapshot verified ok.
    pub fn newest_verified_ok(&self) -> bool {
        matches!(self.newest_verification, Some(VerifyState::Ok))
    }
}

/// The newest snapshot per guest in the snapshot list of one namespace of a datastore, its
/// age at `now`, its verification, and whether it breaches `rpo`. Sorted by backup type, then
/// id (numerically when both ids are numbers). Linear in the number of snapshots.
///
/// Only finished snapshots count ([`Snapshot::is_finished`]): the list also holds running and
/// abandoned backups, which are no backup yet. They are counted in
/// [`GuestBackup::unfinished_count`]; a group with no finished snapshot has no backup and no
/// entry.
pub fn newest_per_guest(
    store: &str,
    namespace: &str,
    snapshots: &[Snapshot],
    now: i64,
    rpo: Duration,
) -> Vec<GuestBackup> {
    struct Acc<'a> {
        count: usize,
        newest: &'a Snapshot,
        newest_ok: Option<i64>,
        times: Vec<i64>,
    }
    let mut groups: HashMap<(&BackupType, &str), Acc<'_>> = HashMap::new();
    let mut unfinished: HashMap<(&BackupType, &str), usize> = HashMap::new();
    for snapshot in snapshots {
        if !snapshot.is_finished() {
            *unfinished
                .entry((&snapshot.backup_type, snapshot.backup_id.as_str()))
                .or_default() += 1;
            continue;
        }
        let ok_time = snapshot.verified_ok().then_some(snapshot.backup_time);
        groups
            .entry((&snapshot.backup_type, snapshot.backup_id.as_str()))
            .and_modify(|acc| {
                acc.count += 1;
                if snapshot.backup_time > acc.newest.backup_time {
                    acc.newest = snapshot;
                }
                acc.newest_ok = acc.newest_ok.max(ok_time);
                acc.times.push(snapshot.backup_time);
            })
            .or_insert(Acc {
                count: 1,
                newest: snapshot,
                newest_ok: ok_time,
                times: vec![snapshot.backup_time],
            });
    }
    let rpo_secs = rpo.as_secs();
    let mut guests: Vec<GuestBackup> = groups
        .into_values()
        .map(|mut acc| {
            let newest_age_secs = age(now, acc.newest.backup_time);
            acc.times.sort_unstable();
            GuestBackup {
                store: store.to_owned(),
                namespace: namespace.to_owned(),
                backup_type: acc.newest.backup_type.clone(),
                backup_id: acc.newest.backup_id.clone(),
                snapshot_count: acc.count,
                unfinished_count: unfinished
                    .get(&(&acc.newest.backup_type, acc.newest.backup_id.as_str()))
                    .copied()
                    .unwrap_or(0),
                newest_time: acc.newest.backup_time,
                newest_age_secs,
                newest_verification: acc.newest.verification.as_ref().map(|v| v.state.clone()),
                newest_verified_ok_time: acc.newest_ok,
                rpo_breached: newest_age_secs > rpo_secs,
                verified_rpo_breached: acc.newest_ok.is_none_or(|ok| age(now, ok) > rpo_secs),
                off_site: None,
                owner: acc.newest.owner.clone(),
                backup_times: acc.times,
            }
        })
        .collect();
    guests.sort_by(|a, b| {
        let key = |g: &GuestBackup| (g.backup_id.parse::<u64>().ok(), g.backup_id.clone());
        a.backup_type
            .cmp(&b.backup_type)
            .then_with(|| key(a).cmp(&key(b)))
    });
    guests
}

/// Which site each remote belongs to, and the local site.
///
/// A client crate knows no topology, so the caller says it: remotes are looked up by their
/// name first, then by their host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sites {
    local: Option<String>,
    remotes: BTreeMap<String, String>,
}

impl Sites {
    /// The local site, with no remote mapped yet.
    pub fn new(local: impl Into<String>) -> Self {
        Sites {
            local: Some(local.into()),
            remotes: BTreeMap::new(),
        }
    }

    /// No site known: every remote's site is unknown.
    pub fn unknown() -> Self {
        Sites::default()
    }

    /// Says that the remote with this name or host is in `site`.
    pub fn with_remote(mut self, name_or_host: impl Into<String>, site: impl Into<String>) -> Self {
        self.remotes.insert(name_or_host.into(), site.into());
        self
    }

    /// The site of a remote, when known.
    pub fn site_of(&self, remote: &Remote) -> Option<&str> {
        self.remotes
            .get(&remote.name)
            .or_else(|| self.remotes.get(&remote.host))
            .map(String::as_str)
    }

    /// The site of a remote known by name only (its configuration could not be read).
    pub fn site_of_name(&self, name: &str) -> Option<&str> {
        self.remotes.get(name).map(String::as_str)
    }

    /// Whether a remote is in another site than the local one; `None` when either is unknown.
    pub fn is_other_site(&self, remote: &Remote) -> Option<bool> {
        self.differs(self.site_of(remote)?)
    }

    fn differs(&self, site: &str) -> Option<bool> {
        Some(site != self.local.as_deref()?)
    }
}

/// One sync job of a datastore, and where it leads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SyncLink {
    /// The job id.
    pub job_id: String,
    /// Pull (the other side's backups come here) or push (this datastore's backups leave).
    pub direction: SyncDirection,
    /// The remote; `None` for a sync between local datastores.
    pub remote: Option<String>,
    /// The remote's host, when the remote is configured.
    pub remote_host: Option<String>,
    /// The datastore on the other side.
    pub remote_store: String,
    /// The remote's site, when known.
    pub remote_site: Option<String>,
    /// Whether the other side is another site; `None` when unknown.
    pub cross_site: Option<bool>,
    /// How the last run ended; `None` when it never ran or runs now ([`SyncLink::running_since`]).
    #[serde(serialize_with = "crate::types::exit_status::option::serialize")]
    pub last_run: Option<ExitStatus>,
    /// When the last run ended.
    pub last_run_endtime: Option<i64>,
    /// How long ago the last run ended, in seconds.
    pub last_run_age_secs: Option<u64>,
    /// The last run succeeded but ended longer ago than the RPO.
    pub stale: bool,
    /// When the run going on now started; PBS keeps no result of the run before it.
    pub running_since: Option<i64>,
}

impl SyncLink {
    /// Whether the last run succeeded (with or without warnings).
    pub fn succeeded(&self) -> bool {
        self.last_run.as_ref().is_some_and(ExitStatus::is_success)
    }

    /// Whether the last run succeeded within the RPO.
    pub fn succeeded_recently(&self) -> bool {
        self.succeeded() && !self.stale
    }
}

/// A verdict on the copies between this site and another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum CrossSiteSync {
    /// A job to another site succeeded within the RPO.
    Ok,
    /// A job to another site last succeeded longer ago than the RPO.
    Stale,
    /// Jobs to another site exist, none last succeeded, and one failed.
    Failed,
    /// Jobs to another site exist but none has finished a run yet.
    NeverRun,
    /// A job to another site runs now and none has a result: PBS drops the previous result
    /// while a run goes on, so whether a copy exists is known when it ends.
    Running,
    /// Jobs to remotes exist but the site of at least one remote is not known.
    SiteUnknown,
    /// A job's direction is a value this client does not know; it proves nothing.
    DirectionUnknown,
    /// Only pull jobs from another site: the other site's backups come here, but this
    /// datastore's own backups do not leave (a pull by the other PBS is not visible here).
    PullOnly,
    /// Sync jobs exist, but only to the same site or between local datastores.
    SameSiteOnly,
    /// A job to another site succeeded within the RPO, but some groups of the datastore are
    /// outside the scope of every such job (its namespace, `max-depth` or group filter).
    Partial,
    /// No sync job involves this datastore in this direction.
    None,
    /// The lists read do not show a copy, but they may be incomplete: PBS filters the sync
    /// jobs and remotes by the caller's rights instead of refusing them (proxmox-backup
    /// `src/api2/admin/sync.rs`, `check_sync_job_read_access`; `src/api2/config/remote.rs`),
    /// and the caller was not shown to hold `Remote.Audit` and `Datastore.Audit`.
    CannotTell,
}

impl CrossSiteSync {
    /// Whether the verdict is good (only [`CrossSiteSync::Ok`] is).
    pub fn is_ok(self) -> bool {
        self == CrossSiteSync::Ok
    }
}

/// The sync state of one datastore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DatastoreSync {
    /// The datastore.
    pub store: String,
    /// Its sync jobs.
    pub links: Vec<SyncLink>,
    /// Whether this datastore's own backups have a recent copy in another site: push jobs to
    /// another site (the off-site copy the RPO is about).
    pub cross_site: CrossSiteSync,
    /// Whether the other site's backups are copied here: pull jobs from another site.
    pub incoming: CrossSiteSync,
}

/// The verdict over the cross-site links of one direction.
fn verdict(links: &[&SyncLink]) -> Option<CrossSiteSync> {
    let cross: Vec<&&SyncLink> = links
        .iter()
        .filter(|l| l.cross_site == Some(true))
        .collect();
    Some(if cross.iter().any(|l| l.succeeded_recently()) {
        CrossSiteSync::Ok
    } else if cross.iter().any(|l| l.succeeded()) {
        CrossSiteSync::Stale
    } else if cross
        .iter()
        .any(|l| l.last_run.as_ref().is_some_and(|run| !run.is_success()))
    {
        CrossSiteSync::Failed
    } else if cross.iter().any(|l| l.running_since.is_some()) {
        CrossSiteSync::Running
    } else if !cross.is_empty() {
        CrossSiteSync::NeverRun
    } else if links.iter().any(|l| l.cross_site.is_none()) {
        CrossSiteSync::SiteUnknown
    } else {
        return None;
    })
}

/// For one datastore: the sync jobs that pull into it or push from it, where they lead, and
/// two verdicts at `now`: whether its own backups reach another site (push jobs to another
/// site, last succeeded within `rpo`) and whether the other site's backups come here (pull
/// jobs from another site).
///
/// Direction matters: a pull job copies the remote's backups into this datastore, so a store
/// that only pulls from the other site holds the other site's copy, not an off-site copy of
/// its own ([`CrossSiteSync::PullOnly`]). Age matters: a job whose last success ended longer
/// ago than the RPO (`last-run-endtime`) is [`CrossSiteSync::Stale`], not ok. List the jobs
/// with `sync-direction=all` (PBS 3.3+), otherwise PBS lists pull jobs only.
pub fn datastore_sync(
    store: &str,
    jobs: &[SyncJob],
    remotes: &[Remote],
    sites: &Sites,
    now: i64,
    rpo: Duration,
) -> DatastoreSync {
    let by_name: HashMap<&str, &Remote> = remotes.iter().map(|r| (r.name.as_str(), r)).collect();
    let links: Vec<SyncLink> = jobs
        .iter()
        .filter(|job| job.store == store)
        .map(|job| {
            let remote = job
                .remote
                .as_deref()
                .and_then(|name| by_name.get(name).copied());
            let last_run_age_secs = job.status.last_run_endtime.map(|end| age(now, end));
            let succeeded = job
                .status
                .last_run_state
                .as_ref()
                .is_some_and(ExitStatus::is_success);
            SyncLink {
                job_id: job.id.clone(),
                direction: job.direction(),
                remote: job.remote.clone(),
                remote_host: remote.map(|r| r.host.clone()),
                remote_store: job.remote_store.clone(),
                remote_site: match (&job.remote, remote) {
                    (_, Some(remote)) => sites.site_of(remote),
                    // A remote missing from the list (not configured, or the list could not be
                    // read): known by its name only.
                    (Some(name), None) => sites.site_of_name(name),
                    (None, None) => None,
                }
                .map(str::to_owned),
                cross_site: match (&job.remote, remote) {
                    (None, _) => Some(false),
                    (Some(_), Some(remote)) => sites.is_other_site(remote),
                    (Some(name), None) => sites.site_of_name(name).and_then(|s| sites.differs(s)),
                },
                last_run: job.status.last_run_state.clone(),
                last_run_endtime: job.status.last_run_endtime,
                last_run_age_secs,
                // A success without an end time cannot be shown to be recent.
                stale: succeeded && last_run_age_secs.is_none_or(|a| a > rpo.as_secs()),
                running_since: job.status.running_since(),
            }
        })
        .collect();
    let pushes: Vec<&SyncLink> = links
        .iter()
        .filter(|l| l.direction == SyncDirection::Push)
        .collect();
    let pulls: Vec<&SyncLink> = links
        .iter()
        .filter(|l| l.direction == SyncDirection::Pull)
        .collect();
    let unknown_direction = links
        .iter()
        .any(|l| matches!(l.direction, SyncDirection::Unknown(_)) && l.cross_site != Some(false));
    let incoming = verdict(&pulls).unwrap_or(if pulls.is_empty() {
        CrossSiteSync::None
    } else {
        CrossSiteSync::SameSiteOnly
    });
    let cross_site = match verdict(&pushes) {
        Some(v) => v,
        None if unknown_direction => CrossSiteSync::DirectionUnknown,
        None if pulls.iter().any(|l| l.cross_site == Some(true)) => CrossSiteSync::PullOnly,
        None if incoming == CrossSiteSync::SiteUnknown => CrossSiteSync::SiteUnknown,
        None if !links.is_empty() => CrossSiteSync::SameSiteOnly,
        None => CrossSiteSync::None,
    };
    DatastoreSync {
        store: store.to_owned(),
        links,
        cross_site,
        incoming,
    }
}

/// The kind of a scheduled job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum JobKind {
    /// A prune job.
    Prune,
    /// A sync job.
    Sync,
    /// A verify job.
    Verify,
    /// A datastore's garbage collection.
    GarbageCollection,
}

/// What is wrong with a job.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "issue")]
#[non_exhaustive]
pub enum JobIssue {
    /// The last run failed.
    Failed {
        /// How it ended.
        #[serde(serialize_with = "crate::types::exit_status::serialize")]
        state: ExitStatus,
        /// Its task, when known.
        upid: Option<Upid>,
        /// When it ended.
        endtime: Option<i64>,
    },
    /// The next run was due more than the grace period ago and has not happened.
    Overdue {
        /// When it was due.
        next_run: i64,
        /// How late it is, in seconds.
        late_by_secs: u64,
    },
}

/// A job that failed or is overdue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct JobProblem {
    /// The kind of job.
    pub kind: JobKind,
    /// The job id (the datastore for garbage collection).
    pub id: String,
    /// The datastore.
    pub store: String,
    /// What is wrong.
    #[serde(flatten)]
    pub issue: JobIssue,
}

impl JobProblem {
    /// Whether the job's last run failed (rather than being overdue).
    pub fn is_failure(&self) -> bool {
        matches!(self.issue, JobIssue::Failed { .. })
    }
}

/// The jobs whose last run failed, or whose next run is more than `grace` overdue at `now`.
/// A job that runs now is neither.
///
/// A run that ended with warnings is not a failure. Disabled prune jobs are skipped. Failed
/// jobs come first, then overdue ones, each sorted by kind, store and id.
pub fn job_problems(
    prune: &[PruneJob],
    sync: &[SyncJob],
    verify: &[VerifyJob],
    gc: &[GcStatus],
    now: i64,
    grace: Duration,
) -> Vec<JobProblem> {
    let grace = grace.as_secs();
    let mut problems = Vec::new();
    let mut check = |kind: JobKind, id: &str, store: &str, status: &JobRunStatus| {
        if let Some(state) = &status.last_run_state
            && !state.is_success()
        {
            problems.push(JobProblem {
                kind,
                id: id.to_owned(),
                store: store.to_owned(),
                issue: JobIssue::Failed {
                    state: state.clone(),
                    upid: status.last_run_upid.clone(),
                    endtime: status.last_run_endtime,
                },
            });
        } else if status.is_running() {
            // A run is going on; its `next-run` counts from its start, so a long run would
            // read as overdue although it is happening.
        } else if let Some(next_run) = status.next_run {
            let late = age(now, next_run);
            if late > grace {
                problems.push(JobProblem {
                    kind,
                    id: id.to_owned(),
                    store: store.to_owned(),
                    issue: JobIssue::Overdue {
                        next_run,
                        late_by_secs: late,
                    },
                });
            }
        }
    };
    for job in prune.iter().filter(|job| job.disable != Some(true)) {
        check(JobKind::Prune, &job.id, &job.store, &job.status);
    }
    for job in sync {
        check(JobKind::Sync, &job.id, &job.store, &job.status);
    }
    for job in verify {
        check(JobKind::Verify, &job.id, &job.store, &job.status);
    }
    for status in gc {
        let store = status.store.clone().unwrap_or_default();
        let run = JobRunStatus {
            last_run_state: status.last_run_state.clone(),
            last_run_upid: status.counters.upid.clone(),
            last_run_endtime: status.last_run_endtime,
            next_run: status.next_run,
        };
        check(JobKind::GarbageCollection, &store, &store, &run);
    }
    problems.sort_by(|a, b| {
        (!a.is_failure(), a.kind, &a.store, &a.id).cmp(&(!b.is_failure(), b.kind, &b.store, &b.id))
    });
    problems
}

/// What the garbage-collection list says against the datastores `stores`, as warnings: a
/// datastore with no GC schedule, one never garbage-collected (no `upid`), one whose last
/// finished run is named but whose state and end are not (a run going on, or a job state file
/// PBS could not read: `garbage_collection_status` answers the same for both), and one missing
/// from the list.
/// None of them reads as overdue: proxmox-backup `src/api2/admin/datastore.rs`
/// `garbage_collection_status` counts the next run from now when GC never ran and leaves it
/// out without a schedule, and `src/api2/admin/gc.rs` `list_all_gc_jobs` drops a datastore
/// whose status fails (`filter_map(.. .ok())`), so a missing one is "cannot tell".
pub fn gc_warnings(stores: &[String], gc: &[GcStatus]) -> Vec<String> {
    let mut warnings = Vec::new();
    for store in stores {
        let Some(status) = gc.iter().find(|s| s.store.as_deref() == Some(store)) else {
            warnings.push(format!(
                "cannot tell the garbage collection of datastore {store}: GET /admin/gc leaves it out (a datastore whose GC status fails is dropped from the list)"
            ));
            continue;
        };
        if status.schedule.is_none() {
            warnings.push(format!(
                "datastore {store} has no garbage-collection schedule"
            ));
        }
        // The `upid` is the last finished run's (pbs-datastore `DataStore::garbage_collection`
        // stores the status only at a run's end); the state and end come from the job state
        // file, which says `Started` while a run goes on, or could not be read.
        if status.last_run_endtime.is_some() || status.last_run_state.is_some() {
            continue;
        }
        if status.counters.upid.is_some() {
            warnings.push(format!(
                "cannot tell when datastore {store} was last garbage-collected: a garbage collection runs now, or its job state could not be read (GET /admin/gc names a finished run's task but no state or end)"
            ));
        } else {
            warnings.push(format!("datastore {store} was never garbage-collected"));
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(
            parse_duration("26h").unwrap(),
            Duration::from_secs(26 * 3600)
        );
        assert_eq!(
            parse_duration("1d12h").unwrap(),
            Duration::from_secs(36 * 3600)
        );
        assert_eq!(parse_duration("90m").unwrap(), Duration::from_secs(5400));
        assert_eq!(parse_duration("45").unwrap(), Duration::from_secs(45));
        assert_eq!(parse_duration("1w").unwrap(), Duration::from_secs(604_800));
        for (bad, needle) in [
            ("", "empty"),
            ("26x", "units"),
            ("h", "number before"),
            ("1h30", "no unit"),
            ("99999999999999999999w", "too large"),
        ] {
            let err = parse_duration(bad).unwrap_err().to_string();
            assert!(err.contains(needle), "{bad}: {err}");
            assert!(err.contains("duration"), "{bad}: {err}");
        }
    }
}
