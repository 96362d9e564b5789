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

pub use cpps_proxmox::family::{AuthId, ExitStatus, TaskState, TaskStatus, Upid};
pub use datastore::{
    BackendType, Datastore, DatastoreStatus, DatastoreUsage, GcCacheStats, GcCounters, GcStatus,
    MountStatus, TypeCounts, TypeCountsByType,
};
pub use ids::{BackupType, DatastoreName};
pub use jobs::{JobRunStatus, PruneJob, SyncDirection, SyncJob, VerifyJob};
pub use remote::Remote;
pub use snapshot::{BackupGroup, Namespace, Snapshot, SnapshotFile, Verification, VerifyState};
pub use task::TaskListItem;
pub use version::Version;

/// Declares an enum that mirrors a string value of the server and keeps unknown values.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this client does not know, kept as the server wrote it.
            Unknown(String),
        }

        impl $name {
            /// The values this client knows, as the server writes them.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            /// The value as the server writes it.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Unknown(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $wire => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok($name::from(value))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(deserializer)?;
                Ok($name::from(value.as_ref()))
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                // `examples`, not `enum`: any other string is accepted and kept.
                schemars::json_schema!({ "type": "string", "examples": $name::KNOWN })
            }
        }
    };
}
pub(crate) use string_enum;
