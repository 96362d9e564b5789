//! Datastores, their status and usage, and garbage collection.

use serde::{Deserialize, Deserializer, Serialize};

use super::{ExitStatus, Upid};

cpps_http::named_enum! {
    /// Where a datastore keeps its chunks (`backend-type`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum BackendType {
        /// A local file system (`filesystem`).
        Filesystem => "filesystem",
        /// An S3-compatible object store (`s3`).
        S3 => "s3",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

cpps_http::named_enum! {
    /// Whether a removable datastore is mounted (`mount-status`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum MountStatus {
        /// Mounted (`mounted`).
        Mounted => "mounted",
        /// Not mounted (`notmounted`).
        NotMounted => "notmounted",
        /// Not a removable datastore (`nonremovable`).
        NonRemovable => "nonremovable",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// One entry of `GET /admin/datastore`: a datastore the caller may see.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct Datastore {
    /// The datastore name.
    pub store: String,
    /// The comment.
    #[serde(default)]
    pub comment: Option<String>,
    /// The maintenance mode as a property string (`type=read-only,message=…`), when one is set.
    #[serde(default)]
    pub maintenance: Option<String>,
    /// Whether a removable datastore is mounted.
    #[serde(default)]
    pub mount_status: Option<MountStatus>,
    /// The storage backend.
    #[serde(default)]
    pub backend_type: Option<BackendType>,
}

/// Group and snapshot counts of one backup type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TypeCounts {
    /// The number of groups.
    pub groups: u64,
    /// The number of snapshots.
    pub snapshots: u64,
}

/// Group and snapshot counts per backup type (`counts` of a datastore status).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TypeCountsByType {
    /// Virtual machines.
    #[serde(default)]
    pub vm: Option<TypeCounts>,
    /// Containers.
    #[serde(default)]
    pub ct: Option<TypeCounts>,
    /// Hosts.
    #[serde(default)]
    pub host: Option<TypeCounts>,
    /// Groups of other types.
    #[serde(default)]
    pub other: Option<TypeCounts>,
}

/// Cache statistics of a garbage collection run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct GcCacheStats {
    /// Atime-update cache hits.
    pub hits: u64,
    /// Atime-update cache misses.
    pub misses: u64,
}

/// What the last garbage collection found (`gc-status` of a datastore status or usage entry).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct GcCounters {
    /// The task of the last run.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub upid: Option<Upid>,
    /// Index files processed.
    #[serde(default)]
    pub index_file_count: u64,
    /// Bytes referred to by index files.
    #[serde(default)]
    pub index_data_bytes: u64,
    /// Bytes used on disk.
    #[serde(default)]
    pub disk_bytes: u64,
    /// Chunks used on disk.
    #[serde(default)]
    pub disk_chunks: u64,
    /// Bytes removed.
    #[serde(default)]
    pub removed_bytes: u64,
    /// Chunks removed.
    #[serde(default)]
    pub removed_chunks: u64,
    /// Bytes pending removal.
    #[serde(default)]
    pub pending_bytes: u64,
    /// Chunks pending removal.
    #[serde(default)]
    pub pending_chunks: u64,
    /// Chunks marked bad by verify that GC removed.
    #[serde(default)]
    pub removed_bad: u64,
    /// Chunks still marked bad after GC.
    #[serde(default)]
    pub still_bad: u64,
    /// Cache statistics.
    #[serde(default)]
    pub cache_stats: Option<GcCacheStats>,
}

/// The garbage-collection job of one datastore: `GET /admin/datastore/{store}/gc` and the
/// entries of `GET /admin/gc`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct GcStatus {
    /// The datastore.
    #[serde(default)]
    pub store: Option<String>,
    /// The schedule (a systemd-like calendar event), when GC is scheduled.
    #[serde(default)]
    pub schedule: Option<String>,
    /// How the last run ended (`OK`, `WARNINGS: N`, `unknown` or the error message).
    #[serde(default, with = "super::exit_status::option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub last_run_state: Option<ExitStatus>,
    /// When the last run ended (UNIX epoch).
    #[serde(default)]
    pub last_run_endtime: Option<i64>,
    /// When the next run is due (UNIX epoch).
    #[serde(default)]
    pub next_run: Option<i64>,
    /// How long the last run took, in seconds.
    #[serde(default)]
    pub duration: Option<i64>,
    /// What the last run found.
    #[serde(flatten)]
    pub counters: GcCounters,
}

/// `GET /admin/datastore/{store}/status`: space and, with `verbose`, counts and GC results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct DatastoreStatus {
    /// Total space in bytes.
    pub total: u64,
    /// Used space in bytes.
    pub used: u64,
    /// Available space in bytes.
    pub avail: u64,
    /// Group and snapshot counts per backup type (verbose only).
    #[serde(default)]
    pub counts: Option<TypeCountsByType>,
    /// What the last garbage collection found (verbose only).
    #[serde(default)]
    pub gc_status: Option<GcCounters>,
    /// The storage backend.
    #[serde(default)]
    pub backend_type: Option<BackendType>,
}

/// One entry of `GET /status/datastore-usage`: usage, history and a fill-up estimate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct DatastoreUsage {
    /// The datastore name.
    pub store: String,
    /// Size of the underlying storage in bytes; `None` when the server does not know it.
    #[serde(default, deserialize_with = "bytes_unless_negative")]
    pub total: Option<u64>,
    /// Used bytes; `None` when the server does not know them.
    #[serde(default, deserialize_with = "bytes_unless_negative")]
    pub used: Option<u64>,
    /// Available bytes; `None` when the server does not know them.
    #[serde(default, deserialize_with = "bytes_unless_negative")]
    pub avail: Option<u64>,
    /// Why the datastore could not be looked up, when it could not.
    #[serde(default)]
    pub error: Option<String>,
    /// Estimated UNIX epoch at which the storage is full (in the past: usage is not growing).
    #[serde(default)]
    pub estimated_full_date: Option<i64>,
    /// Usage fractions of the last month; `None` where no data point exists.
    #[serde(default)]
    pub history: Option<Vec<Option<f64>>>,
    /// Start of the history (UNIX epoch).
    #[serde(default)]
    pub history_start: Option<i64>,
    /// Resolution of the history in seconds.
    #[serde(default)]
    pub history_delta: Option<u64>,
    /// What the last garbage collection found.
    #[serde(default)]
    pub gc_status: Option<GcCounters>,
    /// Whether a removable datastore is mounted.
    #[serde(default)]
    pub mount_status: Option<MountStatus>,
    /// The storage backend.
    #[serde(default)]
    pub backend_type: Option<BackendType>,
}

/// Reads a byte count of `GET /status/datastore-usage`. PBS 3.0 and 3.1 write `-1` for "not
/// known" (proxmox-backup `pbs-api-types/src/datastore.rs` v3.1.2
/// `DataStoreStatusListItem::empty`, sent by `src/api2/status.rs` `datastore_status` for a store
/// that fails lookup or that the caller reaches only through a namespace); later releases leave
/// the field out. Both, and any negative number, are `None`, so one such store does not fail
/// the whole list.
fn bytes_unless_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    if let Some(bytes) = number.as_u64() {
        return Ok(Some(bytes));
    }
    if number.as_i64().is_some() {
        return Ok(None);
    }
    Err(serde::de::Error::custom(format!(
        "expected a byte count, got {number}"
    )))
}
