//! The typed answers of the PBS API, shaped as `pbs-apidoc.json` (PBS 4.x) describes them.
//!
//! Structs tolerate fields they do not know (servers add fields before clients learn them);
//! enums that mirror a server value keep unknown values in a last `Unknown(String)` variant.
//! Times are UNIX epochs in seconds, as the server sends them.

mod datastore;
mod ids;
mod jobs;
mod remote;
mod snapshot;
mod task;
mod version;

pub(crate) mod exit_status;

pub use cpps_proxmox_family::{AuthId, ExitStatus, TaskState, TaskStatus, Upid};
pub use datastore::{
    BackendType, Datastore, DatastoreStatus, DatastoreUsage, GcCacheStats, GcCounters, GcStatus,
    MountStatus, TypeCounts, TypeCountsByType,
};
pub use ids::{BackupType, DatastoreName};
pub use jobs::{JobRunStatus, PruneJob, SyncDirection, SyncJob, VerifyJob};
pub use remote::{Permissions, Remote};
pub use snapshot::{BackupGroup, Namespace, Snapshot, SnapshotFile, Verification, VerifyState};
pub use task::TaskListItem;
pub use version::Version;
