//! Prune, sync and verify jobs, and how tasks end.

use serde::{Deserialize, Serialize};

use super::{AuthId, ExitStatus, Upid};

cpps_http::named_enum! {
    /// The direction of a sync job (`sync-direction`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum SyncDirection {
        /// Pull from the remote into the local datastore (`pull`, the default).
        Pull => "pull",
        /// Push from the local datastore to the remote (`push`).
        Push => "push",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// The schedule state of a job: its last run and its next one (PBS's `JobScheduleStatus`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct JobRunStatus {
    /// How the last run ended (`OK`, `WARNINGS: N`, `unknown` or the error message).
    #[serde(default, with = "super::exit_status::option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub last_run_state: Option<ExitStatus>,
    /// The task of the last run.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub last_run_upid: Option<Upid>,
    /// When the last run ended (UNIX epoch).
    #[serde(default)]
    pub last_run_endtime: Option<i64>,
    /// When the next run is due (UNIX epoch).
    #[serde(default)]
    pub next_run: Option<i64>,
}

/// One entry of `GET /admin/sync`: a sync job and its schedule state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct SyncJob {
    /// The job id.
    pub id: String,
    /// The local datastore.
    pub store: String,
    /// The local namespace.
    #[serde(default)]
    pub ns: Option<String>,
    /// The remote; absent for a sync between local datastores.
    #[serde(default)]
    pub remote: Option<String>,
    /// The datastore on the remote.
    pub remote_store: String,
    /// The namespace on the remote.
    #[serde(default)]
    pub remote_ns: Option<String>,
    /// Pull (the default when absent) or push.
    #[serde(default)]
    pub sync_direction: Option<SyncDirection>,
    /// The owner of pulled groups.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub owner: Option<AuthId>,
    /// The schedule, when the job runs on one.
    #[serde(default)]
    pub schedule: Option<String>,
    /// Whether snapshots that vanished from the source are removed.
    #[serde(default)]
    pub remove_vanished: Option<bool>,
    /// Only verified snapshots are synchronized.
    #[serde(default)]
    pub verified_only: Option<bool>,
    /// Only encrypted snapshots are synchronized.
    #[serde(default)]
    pub encrypted_only: Option<bool>,
    /// The comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// How many namespace levels below `ns` the job takes (0: `ns` only; none: all).
    #[serde(default)]
    pub max_depth: Option<u64>,
    /// The group filters, as written (`type:vm`, `group:vm/100`, `regex:RE`, each optionally
    /// prefixed `include:` or `exclude:`).
    #[serde(default)]
    pub group_filter: Vec<String>,
    /// Only the last N snapshots of each group are copied.
    #[serde(default)]
    pub transfer_last: Option<u64>,
    /// Last and next run.
    #[serde(flatten)]
    pub status: JobRunStatus,
}

impl SyncJob {
    /// The direction, `pull` when the server left it out.
    pub fn direction(&self) -> SyncDirection {
        self.sync_direction.clone().unwrap_or(SyncDirection::Pull)
    }

    /// Whether the group `backup_type/backup_id` in namespace `namespace` (`""`: the root) of
    /// the job's local datastore is in the job's scope: in `ns` or below it within
    /// `max-depth`, and passing `group-filter` (pbs-api-types `src/jobs.rs` `SyncJobConfig`,
    /// `GroupFilter`; `src/datastore.rs` `BackupGroup::apply_filters`: with any include filter
    /// one must match, and no exclude filter may; a `regex:` filter is matched unanchored against
    /// `type/id`, as `BackupGroup::matches` does). `None` when a filter is one this client
    /// does not know, or a `regex:` that does not compile.
    pub fn scope_includes(
        &self,
        namespace: &str,
        backup_type: &super::BackupType,
        backup_id: &str,
    ) -> Option<bool> {
        let anchor = self.ns.as_deref().unwrap_or("");
        let below = if anchor.is_empty() {
            Some(namespace)
        } else if namespace == anchor {
            Some("")
        } else {
            namespace
                .strip_prefix(anchor)
                .and_then(|rest| rest.strip_prefix('/'))
        };
        let Some(below) = below else {
            return Some(false);
        };
        let depth = if below.is_empty() {
            0
        } else {
            below.split('/').count() as u64
        };
        if self.max_depth.is_some_and(|max| depth > max) {
            return Some(false);
        }
        let group = format!("{backup_type}/{backup_id}");
        let mut includes = Vec::new();
        let mut excludes = Vec::new();
        for filter in &self.group_filter {
            let (exclude, rest) = match filter.split_once(':') {
                Some(("exclude", rest)) => (true, rest),
                Some(("include", rest)) => (false, rest),
                _ => (false, filter.as_str()),
            };
            let matched = match rest.split_once(':') {
                Some(("type", value)) => value == backup_type.to_string(),
                Some(("group", value)) => value == group,
                // PBS compiles the filter with the same `regex` crate and matches it,
                // unanchored, against `type/id` (pbs-api-types `BackupGroup::matches`); one
                // it could not compile is not judged here.
                Some(("regex", value)) => regex::Regex::new(value).ok()?.is_match(&group),
                _ => return None,
            };
            if exclude {
                excludes.push(matched);
            } else {
                includes.push(matched);
            }
        }
        let included = includes.is_empty() || includes.iter().any(|m| *m);
        Some(included && !excludes.iter().any(|m| *m))
    }
}

/// One entry of `GET /admin/verify`: a verify job and its schedule state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct VerifyJob {
    /// The job id.
    pub id: String,
    /// The datastore.
    pub store: String,
    /// The namespace.
    #[serde(default)]
    pub ns: Option<String>,
    /// The schedule, when the job runs on one.
    #[serde(default)]
    pub schedule: Option<String>,
    /// Skip snapshots whose last verification is recent enough.
    #[serde(default)]
    pub ignore_verified: Option<bool>,
    /// Days after which a verification is outdated.
    #[serde(default)]
    pub outdated_after: Option<i64>,
    /// The comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// Last and next run.
    #[serde(flatten)]
    pub status: JobRunStatus,
}

/// One entry of `GET /admin/prune`: a prune job and its schedule state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct PruneJob {
    /// The job id.
    pub id: String,
    /// The datastore.
    pub store: String,
    /// The namespace.
    #[serde(default)]
    pub ns: Option<String>,
    /// The schedule.
    pub schedule: String,
    /// Whether the job is disabled.
    #[serde(default)]
    pub disable: Option<bool>,
    /// Snapshots to keep regardless of age.
    #[serde(default)]
    pub keep_last: Option<u64>,
    /// Hourly snapshots to keep.
    #[serde(default)]
    pub keep_hourly: Option<u64>,
    /// Daily snapshots to keep.
    #[serde(default)]
    pub keep_daily: Option<u64>,
    /// Weekly snapshots to keep.
    #[serde(default)]
    pub keep_weekly: Option<u64>,
    /// Monthly snapshots to keep.
    #[serde(default)]
    pub keep_monthly: Option<u64>,
    /// Yearly snapshots to keep.
    #[serde(default)]
    pub keep_yearly: Option<u64>,
    /// The comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// Last and next run.
    #[serde(flatten)]
    pub status: JobRunStatus,
}

impl JobRunStatus {
    /// Whether a run is going on now: the job has a task but neither a result nor an end
    /// (proxmox-backup `src/server/jobstate.rs` `compute_schedule_status`, state `Started`).
    /// The previous run's result is not kept while it runs.
    pub fn is_running(&self) -> bool {
        self.last_run_upid.is_some()
            && self.last_run_state.is_none()
            && self.last_run_endtime.is_none()
    }

    /// When the running run started (its task's start time), if one runs.
    pub fn running_since(&self) -> Option<i64> {
        if !self.is_running() {
            return None;
        }
        self.last_run_upid
            .as_ref()
            .and_then(|upid| i64::try_from(upid.starttime()).ok())
    }
}
