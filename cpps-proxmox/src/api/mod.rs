//! Handlers: one per area of the API, each owning a client clone.

mod cluster;
mod guests;
mod nodes;

pub use cluster::{ClusterApi, HaResourceSpec};
pub use guests::{
    ConfigUpdate, GuestApi, GuestType, Lxc, LxcApi, MigrateOptions, Qemu, QemuApi, ShutdownOptions,
    SnapshotOptions,
};
pub use nodes::NodeApi;
