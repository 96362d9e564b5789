//! Typed values of the PVE API.
//!
//! Structs ignore fields they do not know (a newer PVE adds some); enums keep values they do
//! not know in a last `Unknown(String)` variant.

mod backup;
mod cluster;
mod guest;
mod ha;
mod ids;
mod node;
mod property;
mod storage;
mod task;

pub use backup::{
    BackupJob, Inclusion, NotBackedUp, PoolInfo, PoolMember, PoolMembers, Uncovered, VzdumpStart,
    uncovered_guests,
};
pub use cluster::{
    ClusterResource, ClusterStatusEntry, ClusterStatusType, ResourceFilter, ResourceType, Version,
};
pub use guest::{
    Config, GuestCurrentStatus, GuestKind, GuestStatus, LxcConfig, LxcListItem, PendingEntry,
    Privilege, QemuConfig, QemuListItem, Snapshot,
};
pub use ha::{HaBlocker, HaMove, HaResource, HaSid, HaStatusEntry, HaStatusType};
pub use ids::{NodeName, SnapshotName, VmId};
pub use node::{NodeListItem, NodeMemory, NodeRootFs, NodeState, NodeStatus};
pub use property::{
    LxcFeatures, LxcNet, MAX_PROPERTY_STRING, OtherKeys, PropertyString, QEMU_NIC_MODELS,
    QemuMemory, QemuNet, Volume,
};
pub use storage::{NodeStorage, StorageConfig};
pub use task::{TaskFilter, TaskListItem, TaskLog};
