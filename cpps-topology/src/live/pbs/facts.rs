//! What a Proxmox Backup Server reports, in a shape independent of `cpps-pbs`.

use std::fmt;
use std::sync::Arc;

use cpps_pbs::chain::PbsSide;
use serde::Serialize;

/// The newest backup of one guest in one datastore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestBackupFact {
    /// The datastore.
    pub store: String,
    /// The namespace, empty for the root.
    pub namespace: String,
    /// `vm` or `ct`.
    pub backup_type: String,
    /// The backup id (the VM id).
    pub backup_id: String,
    /// When the newest snapshot was taken (Unix seconds).
    pub newest_time: i64,
    /// When the newest snapshot that verified OK was taken.
    pub newest_verified_time: Option<i64>,
    /// The group's owner (an auth-id, `user@realm` or `user@realm!token`) as the snapshot list
    /// gives it; `None` when it leaves it out. The owner is whoever wrote the group first: the
    /// PVE storage's user for a backup, the remote's user for a push sync.
    pub owner: Option<String>,
}

/// A PBS job and its last state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PbsJobFact {
    /// `sync`, `verify`, `prune` or `gc`.
    pub kind: String,
    /// Job id.
    pub id: String,
    /// The datastore.
    pub store: String,
    /// Whether the last finished run succeeded; `None` when no run has finished: it never ran
    /// (no `last-run-upid`), or one runs now (a `last-run-upid` without `last-run-state` or
    /// `last-run-endtime`, proxmox-backup `src/server/jobstate.rs` `compute_schedule_status`
    /// for `JobState::Started`), so `None` is no proof that the job never ran.
    pub last_ok: Option<bool>,
    /// The last run's end (Unix seconds).
    pub last_end: Option<i64>,
    /// When the run going on now started (its task's start time), `None` when none runs. PBS
    /// keeps no previous result while a job runs (`compute_schedule_status`, `Started`), so
    /// the metrics serve this beside [`Self::last_ok`] for the alert to hold the last result.
    pub running_since: Option<i64>,
    /// For a sync job that pulls from a remote (or whose direction is unknown): the local
    /// namespace it writes into, empty for the root. Pulled groups keep the remote's ids.
    pub pulls_into: Option<String>,
}

/// Everything read from one site's PBS.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PbsFacts {
    /// The server.
    pub server: String,
    /// Datastore names.
    pub datastores: Vec<String>,
    /// Jobs.
    pub jobs: Vec<PbsJobFact>,
    /// The newest backup per guest and datastore.
    pub backups: Vec<GuestBackupFact>,
    /// Parts that could not be read and did not stop the observation (one datastore's
    /// snapshots, a job list the token may not see), each with its error.
    pub partial: Vec<String>,
    /// For each datastore the source was told to expect
    /// ([`PbsSource::expect_datastores`](crate::live::sources::PbsSource::expect_datastores))
    /// that the list lacks: whether the caller's rights on `/datastore/{name}` itself
    /// (`GET /access/permissions?path=`) hold `Datastore.Audit` or `Datastore.Backup`, with
    /// which PBS would list it if it existed (proxmox-backup `src/api2/admin/datastore.rs`
    /// `get_datastore_list`), or why they could not be read. A name not here was not asked.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub unlisted_rights: std::collections::BTreeMap<String, Result<bool, String>>,
    /// The newest finished backups per datastore and namespace, for BACKUP-005 (this site's
    /// backups, and the copies of the other site's); not serialised.
    #[serde(skip)]
    pub chain: PbsChainReading,
}

/// What the PBS answered for the backup chain ([`PbsSide`]); "not read" by default. Two
/// readings are equal when they are the same reading; Debug prints no content.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct PbsChainReading(Option<Arc<PbsSide>>);

impl PbsChainReading {
    /// A reading.
    pub fn new(side: PbsSide) -> Self {
        Self(Some(Arc::new(side)))
    }

    /// What was read; `None` when not read.
    pub fn get(&self) -> Option<&PbsSide> {
        self.0.as_deref()
    }
}

impl PartialEq for PbsChainReading {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for PbsChainReading {}

impl fmt::Debug for PbsChainReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.0.is_some() { "read" } else { "none" };
        write!(f, "PbsChainReading({what})")
    }
}
