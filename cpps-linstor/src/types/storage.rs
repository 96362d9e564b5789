//! Storage pools (`StoragePool` in the spec).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::types::de;
use crate::types::rc::ApiCallRc;

cpps_http::named_enum! {
    /// The storage backend of a pool (`ProviderKind`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ProviderKind {
        /// No backing storage (DRBD clients, tie-breakers).
        Diskless => "DISKLESS",
        /// LVM thick.
        Lvm => "LVM",
        /// LVM thin.
        LvmThin => "LVM_THIN",
        /// ZFS zvols.
        Zfs => "ZFS",
        /// Thin ZFS zvols.
        ZfsThin => "ZFS_THIN",
        /// Files.
        File => "FILE",
        /// Sparse files.
        FileThin => "FILE_THIN",
        /// SPDK.
        Spdk => "SPDK",
        /// EBS target.
        EbsTarget => "EBS_TARGET",
        /// EBS initiator.
        EbsInit => "EBS_INIT",
        _ => Unknown(String),
    }
}

/// What a diskless pool reports as its capacities: Java's `Long.MAX_VALUE`, meaning "does not
/// apply" (LINBIT/linstor-server#64).
pub const DISKLESS_CAPACITY: i64 = i64::MAX;

/// A storage pool on one node (`GET /v1/view/storage-pools`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoragePool {
    /// Pool name.
    pub storage_pool_name: String,
    /// Node the pool is on.
    pub node_name: Option<String>,
    /// Backend.
    pub provider_kind: ProviderKind,
    /// Properties (`StorDriver/LvmVg`, …).
    #[serde(default, deserialize_with = "de::null_default")]
    pub props: BTreeMap<String, String>,
    /// Static traits (`Provisioning`, `SupportsSnapshots`).
    #[serde(default, deserialize_with = "de::null_default")]
    pub static_traits: BTreeMap<String, String>,
    /// Free capacity in KiB; `i64::MAX` for diskless pools.
    pub free_capacity: Option<i64>,
    /// Total capacity in KiB; `i64::MAX` for diskless pools.
    pub total_capacity: Option<i64>,
    /// Free-space manager name.
    pub free_space_mgr_name: Option<String>,
    /// Object id.
    pub uuid: Option<String>,
    /// Messages about the pool (an error here means the pool is unusable).
    #[serde(default, deserialize_with = "de::null_default")]
    pub reports: Vec<ApiCallRc>,
    /// Whether the pool supports snapshots.
    pub supports_snapshots: Option<bool>,
    /// Shared space name.
    pub shared_space: Option<String>,
    /// Whether a shared pool uses external locking.
    pub external_locking: Option<bool>,
}

/// The capacities of a pool with real storage, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Capacity {
    /// Free KiB.
    pub free_kib: u64,
    /// Total KiB.
    pub total_kib: u64,
}

impl Capacity {
    /// Used KiB.
    pub fn used_kib(&self) -> u64 {
        self.total_kib.saturating_sub(self.free_kib)
    }

    /// Free fraction in `0.0..=1.0` (`None` for a zero-sized pool).
    pub fn free_fraction(&self) -> Option<f64> {
        (self.total_kib > 0).then(|| self.free_kib as f64 / self.total_kib as f64)
    }
}

impl StoragePool {
    /// Whether this is a diskless pool: provider `DISKLESS`, or the `i64::MAX` capacities that
    /// diskless pools report.
    pub fn is_diskless(&self) -> bool {
        self.provider_kind == ProviderKind::Diskless
            || self.free_capacity == Some(DISKLESS_CAPACITY)
            || self.total_capacity == Some(DISKLESS_CAPACITY)
    }

    /// The capacities of a pool with real storage; `None` for diskless pools and for pools whose
    /// capacities are unknown or negative (not yet reported).
    pub fn capacity(&self) -> Option<Capacity> {
        if self.is_diskless() {
            return None;
        }
        let free = u64::try_from(self.free_capacity?).ok()?;
        let total = u64::try_from(self.total_capacity?).ok()?;
        Some(Capacity {
            free_kib: free,
            total_kib: total,
        })
    }

    /// Whether any report on the pool is an error.
    pub fn has_error_reports(&self) -> bool {
        self.reports.iter().any(ApiCallRc::is_error)
    }
}

/// Sums the capacities of pools with real storage; diskless pools (`i64::MAX`) and pools with
/// unknown capacities are left out.
pub fn total_capacity<'a>(pools: impl IntoIterator<Item = &'a StoragePool>) -> Capacity {
    pools.into_iter().filter_map(StoragePool::capacity).fold(
        Capacity {
            free_kib: 0,
            total_kib: 0,
        },
        |sum, c| Capacity {
            free_kib: sum.free_kib.saturating_add(c.free_kib),
            total_kib: sum.total_kib.saturating_add(c.total_kib),
        },
    )
}
