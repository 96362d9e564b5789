//! What a Proxmox Backup Server reports, in a shape independent of `cpps-pbs`.

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
    /// Whether the last run succeeded; `None` when it never ran.
    pub last_ok: Option<bool>,
    /// The last run's end (Unix seconds).
    pub last_end: Option<i64>,
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
}
