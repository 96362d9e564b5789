//! Remotes, backups shipped to them, and backup schedules: the cross-site DR view.
//!
//! Secrets the spec lets these objects carry (`S3Remote.secret_key`, `LinstorRemote.passphrase`)
//! are not part of these models: they are never decoded, so they cannot be kept or shown
//! (linstor-server `Json.java` does not send them either: "encrypted passphrase intentionally not
//! serialized").

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::de;

/// An S3 remote (`S3Remote`), without its keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct S3Remote {
    /// Remote name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub remote_name: String,
    /// S3 endpoint.
    pub endpoint: Option<String>,
    /// Bucket.
    pub bucket: Option<String>,
    /// Region.
    pub region: Option<String>,
}

/// Another LINSTOR cluster as a remote (`LinstorRemote`), without its passphrase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinstorRemote {
    /// Remote name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub remote_name: String,
    /// The other cluster's controller URL.
    pub url: Option<String>,
    /// The other cluster's id.
    pub cluster_id: Option<String>,
}

/// An AWS EBS remote (`EbsRemote`), without its keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EbsRemote {
    /// Remote name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub remote_name: String,
    /// Endpoint.
    pub endpoint: Option<String>,
    /// Region.
    pub region: Option<String>,
    /// Availability zone.
    pub availability_zone: Option<String>,
}

/// Every remote of the cluster (`GET /v1/remotes`, `RemoteList`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remotes {
    /// S3 remotes.
    #[serde(default, deserialize_with = "de::null_default")]
    pub s3_remotes: Vec<S3Remote>,
    /// LINSTOR remotes.
    #[serde(default, deserialize_with = "de::null_default")]
    pub linstor_remotes: Vec<LinstorRemote>,
    /// EBS remotes.
    #[serde(default, deserialize_with = "de::null_default")]
    pub ebs_remotes: Vec<EbsRemote>,
}

impl Remotes {
    /// Every remote's name with its kind (`s3`, `linstor`, `ebs`).
    pub fn names(&self) -> impl Iterator<Item = (&str, &'static str)> {
        self.s3_remotes
            .iter()
            .map(|r| (r.remote_name.as_str(), "s3"))
            .chain(
                self.linstor_remotes
                    .iter()
                    .map(|r| (r.remote_name.as_str(), "linstor")),
            )
            .chain(
                self.ebs_remotes
                    .iter()
                    .map(|r| (r.remote_name.as_str(), "ebs")),
            )
    }

    fn merge(mut self, other: Remotes) -> Remotes {
        self.s3_remotes.extend(other.s3_remotes);
        self.linstor_remotes.extend(other.linstor_remotes);
        self.ebs_remotes.extend(other.ebs_remotes);
        self
    }
}

/// The answer of `GET /v1/remotes`: linstor-server `Remotes.java` (`getRemotes`) writes one
/// `RemoteList` object; the spec announces an array of them. Both are accepted.
#[derive(Deserialize)]
#[serde(untagged)]
pub(crate) enum RemotesAnswer {
    One(Remotes),
    Many(Vec<Remotes>),
}

impl RemotesAnswer {
    /// The remotes, merged when the answer was an array.
    pub(crate) fn into_remotes(self) -> Remotes {
        match self {
            RemotesAnswer::One(one) => one,
            RemotesAnswer::Many(many) => many.into_iter().fold(Remotes::default(), Remotes::merge),
        }
    }
}

/// One backup in a remote (`Backup`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Backup {
    /// Backup id.
    #[serde(default, deserialize_with = "de::null_default")]
    pub id: String,
    /// When it started, in milliseconds since the Unix epoch.
    pub start_timestamp: Option<i64>,
    /// When it finished, in milliseconds since the Unix epoch.
    pub finished_timestamp: Option<i64>,
    /// The resource it was taken from.
    #[serde(default, deserialize_with = "de::null_default")]
    pub origin_rsc: String,
    /// The snapshot it was shipped from.
    pub origin_snap: Option<String>,
    /// The node it was shipped from.
    pub origin_node: Option<String>,
    /// Failure messages.
    pub fail_messages: Option<String>,
    /// Whether it completed successfully.
    pub success: Option<bool>,
    /// Whether it is being shipped now.
    pub shipping: Option<bool>,
    /// Whether it can be restored.
    pub restorable: Option<bool>,
    /// The backup it is incremental to.
    pub based_on_id: Option<String>,
}

impl Backup {
    /// Whether it is a complete copy: finished, successful, not being shipped, and not known
    /// to be unrestorable.
    pub fn is_complete(&self) -> bool {
        self.success == Some(true) && self.shipping != Some(true) && self.restorable != Some(false)
    }
}

/// The backups of one remote (`GET /v1/remotes/{remote}/backups`, `BackupList`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupList {
    /// Backups LINSTOR made or could have made, by id.
    #[serde(default, deserialize_with = "de::null_default")]
    pub linstor: BTreeMap<String, Backup>,
}

impl BackupList {
    /// The first base in `backup`'s incremental chain that this list no longer holds, or holds
    /// as not restorable; `None` when the chain reaches a full backup. linstor-server
    /// `CtrlBackupApiCallHandler.getBackupFromMetadata` never checks the chain, while a restore
    /// (`CtrlBackupRestoreApiCallHandler`) follows it to the full backup. `based_on_id` is the
    /// base's meta key (`S3MetafileNameInfo.toString`, the id and `.meta`). Read it only on an
    /// unfiltered list.
    pub fn missing_base<'a>(&'a self, backup: &'a Backup) -> Option<&'a str> {
        let mut current = backup;
        // Each step moves to another entry, so a chain longer than the list is a loop.
        for _ in 0..=self.linstor.len() {
            // No base: a full backup ends the chain.
            let base = current.based_on_id.as_deref().map(str::trim);
            let base = base.filter(|b| !b.is_empty())?;
            let id = base.strip_suffix(".meta").unwrap_or(base);
            match self.linstor.values().find(|b| b.id == id || b.id == base) {
                Some(found) if found.restorable != Some(false) => current = found,
                _ => return Some(base),
            }
        }
        current.based_on_id.as_deref()
    }
}

cpps_http::named_enum! {
    /// What a schedule does after a failed shipping (`Schedule.on_failure`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum OnFailure {
        /// Wait for the next run.
        Skip => "SKIP",
        /// Retry up to `max_retries` times.
        Retry => "RETRY",
        _ => Unknown(String),
    }
}

/// A backup schedule (`Schedule`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedule {
    /// Schedule name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub schedule_name: String,
    /// Cron expression of full backups.
    #[serde(default, deserialize_with = "de::null_default")]
    pub full_cron: String,
    /// Cron expression of incremental backups.
    pub inc_cron: Option<String>,
    /// Snapshots kept locally.
    pub keep_local: Option<i64>,
    /// Full backups kept on the remote.
    pub keep_remote: Option<i64>,
    /// What happens after a failure.
    pub on_failure: Option<OnFailure>,
    /// Retries when `on_failure` is `RETRY`.
    pub max_retries: Option<i64>,
}

/// `{"data": [...]}` of the schedule endpoints (`ScheduleList`, `ScheduledRscsList`).
#[derive(Deserialize)]
#[serde(bound(deserialize = "T: Deserialize<'de>"))]
pub(crate) struct DataList<T> {
    #[serde(default = "Vec::new", deserialize_with = "de::null_default")]
    pub(crate) data: Vec<T>,
}

/// A resource, a remote and a schedule that ships it there
/// (`GET /v1/view/schedules-by-resource`, `ScheduledRscs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScheduledResource {
    /// Resource name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub rsc_name: String,
    /// Remote name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub remote_name: String,
    /// Schedule name.
    #[serde(default, deserialize_with = "de::null_default")]
    pub schedule_name: String,
    /// Why the resource has no active schedule; when set, the times below mean nothing.
    pub reason: Option<String>,
    /// When the last scheduled shipping *started* (ms since the epoch; negative: never).
    /// linstor-server writes it as shipping starts and keeps it when shipping fails
    /// (`CtrlBackupCreateApiCallHandler.setIncrementalDependentProps`), so it is no proof of a
    /// copy.
    pub last_snap_time: Option<i64>,
    /// Whether that shipping was incremental.
    pub last_snap_inc: Option<bool>,
    /// When the next shipping happens (ms since the epoch; negative: running now).
    pub next_exec_time: Option<i64>,
}

impl ScheduledResource {
    /// When the last scheduled shipping started, when one did and the schedule is active. It
    /// may have failed since: the backup list says which shipments finished.
    pub fn last_started(&self) -> Option<i64> {
        if self.reason.as_deref().is_some_and(|r| !r.trim().is_empty()) {
            return None;
        }
        self.last_snap_time.filter(|t| *t >= 0)
    }
}
