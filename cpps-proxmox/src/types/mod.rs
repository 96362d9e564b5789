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

pub use backup::{BackupJob, NotBackedUp};
pub use cluster::{
    ClusterResource, ClusterStatusEntry, ClusterStatusType, ResourceFilter, ResourceType, Version,
};
pub use guest::{
    Config, GuestCurrentStatus, GuestKind, GuestStatus, LxcConfig, LxcListItem, PendingEntry,
    Privilege, QemuConfig, QemuListItem, Snapshot,
};
pub use ha::{HaResource, HaSid, HaStatusEntry, HaStatusType};
pub use ids::{NodeName, SnapshotName, VmId};
pub use node::{NodeListItem, NodeMemory, NodeRootFs, NodeState, NodeStatus};
pub use property::{
    LxcFeatures, LxcNet, PropertyString, QEMU_NIC_MODELS, QemuMemory, QemuNet, Volume,
};
pub use storage::NodeStorage;
pub use task::{TaskFilter, TaskListItem};

/// Declares a string enum that keeps unknown values: serde, `Display`, `FromStr`, `as_str`.
macro_rules! open_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident => $text:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
            /// A value this client does not know, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// The text as PVE writes it.
            pub fn as_str(&self) -> &str {
                match self {
                    $($name::$variant => $text,)*
                    $name::Unknown(s) => s,
                }
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                match s {
                    $($text => $name::$variant,)*
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok($name::from(s))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                Ok($name::from(text.as_ref()))
            }
        }
    };
}
pub(crate) use open_enum;
