//! The topology file format, as serde and JSON Schema see it.
//!
//! These types mirror the YAML one to one (unknown keys rejected) and keep the location of every
//! id and reference; [`super::convert`] turns them into the model and checks what serde cannot.
//! Each domain has its file (`compute`, `storage`, `network`, `platform`, `cross_cutting`), as
//! in the model and the rules.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::model::State;

/// Declares the file type of a component kind: its `id` first, the kind's own fields, then the
/// fields every component has (`state`, `note`, `use_case`, `deferred`), and the
/// [`ComponentFile`] accessor the converter reads them through.
///
/// Why a macro rather than one shared struct: every type rejects unknown keys
/// (`deny_unknown_fields`, for the "did you mean" diagnostics), and serde does not support
/// `#[serde(flatten)]` together with `deny_unknown_fields`; a flattened common part would
/// also lose the unknown key's location. The macro writes the shared fields once and keeps
/// each type flat, which is what both serde and the JSON Schema see.
macro_rules! component_file {
    (
        $(#[$attr:meta])*
        struct $name:ident {
            $($(#[$field_attr:meta])* pub(crate) $field:ident: $ty:ty,)*
        }
    ) => {
        #[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
        #[serde(deny_unknown_fields)]
        $(#[$attr])*
        pub(crate) struct $name {
            /// Unique id.
            pub(crate) id: At<String>,
            $($(#[$field_attr])* pub(crate) $field: $ty,)*
            /// `validated`, `declared` or `desired`: exactly one.
            #[schemars(required)]
            pub(crate) state: Option<At<FileState>>,
            /// Free text.
            #[serde(default)]
            pub(crate) note: Option<String>,
            /// The proven use case.
            #[serde(default)]
            pub(crate) use_case: Option<String>,
            /// Deferred on purpose (🚫).
            #[serde(default)]
            pub(crate) deferred: bool,
        }

        impl $crate::load::file::ComponentFile for $name {
            fn common(&self) -> $crate::load::file::Common<'_> {
                $crate::load::file::Common {
                    id: &self.id,
                    state: &self.state,
                    note: &self.note,
                    use_case: &self.use_case,
                    deferred: self.deferred,
                }
            }
        }
    };
}

mod compute;
mod cross_cutting;
mod network;
mod platform;
mod storage;

pub(crate) use compute::*;
pub(crate) use cross_cutting::*;
pub(crate) use network::*;
pub(crate) use platform::*;
pub(crate) use storage::*;

/// The fields every component of the file has.
pub(crate) struct Common<'a> {
    pub(crate) id: &'a At<String>,
    pub(crate) state: &'a Option<At<FileState>>,
    pub(crate) note: &'a Option<String>,
    pub(crate) use_case: &'a Option<String>,
    pub(crate) deferred: bool,
}

/// A component's file type (declared with `component_file!`).
pub(crate) trait ComponentFile {
    /// Its id, state, note, use case and deferral.
    fn common(&self) -> Common<'_>;
}

/// A value with the place it was read from.
#[derive(Clone, Debug)]
pub(crate) struct At<T> {
    pub(crate) value: T,
    pub(crate) at: serde_saphyr::Location,
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for At<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_saphyr::Spanned::<T>::deserialize(d)?;
        Ok(At {
            value: s.value,
            at: s.referenced,
        })
    }
}

impl<T: JsonSchema> JsonSchema for At<T> {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

/// The one state of a component: a single word, never a list.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FileState(pub(crate) State);

const STATES: &[&str] = &["validated", "declared", "desired"];

impl<'de> Deserialize<'de> for FileState {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = FileState;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("exactly one state: `validated`, `declared` or `desired`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FileState, E> {
                match v {
                    "validated" => Ok(FileState(State::Validated)),
                    "declared" => Ok(FileState(State::Declared)),
                    "desired" => Ok(FileState(State::Desired)),
                    other => Err(E::unknown_variant(other, STATES)),
                }
            }
        }
        d.deserialize_any(V)
    }
}

impl JsonSchema for FileState {
    fn schema_name() -> Cow<'static, str> {
        State::schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        State::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        State::json_schema(generator)
    }
}

/// A topology file: the declared infrastructure, one list per component kind.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "CPPS topology")]
pub(crate) struct TopologyFile {
    /// Format version; must be 1.
    pub(crate) version: At<u32>,
    /// A name for the infrastructure.
    #[serde(default)]
    pub(crate) name: Option<String>,
    /// Default recovery point objective of validated guests (`24h`, `1d`, `15m`).
    #[serde(default)]
    pub(crate) rpo: Option<At<String>>,
    /// Hardware tiers, as data with capabilities.
    #[serde(default)]
    pub(crate) tiers: Vec<TierFile>,
    /// Sites: the unit of autonomy.
    #[serde(default)]
    pub(crate) sites: Vec<SiteFile>,
    /// Proxmox VE clusters.
    #[serde(default)]
    pub(crate) proxmox_clusters: Vec<ProxmoxClusterFile>,
    /// Proxmox nodes.
    #[serde(default)]
    pub(crate) hosts: Vec<HostFile>,
    /// VMs and LXCs.
    #[serde(default)]
    pub(crate) guests: Vec<GuestFile>,
    /// LINSTOR storage pools.
    #[serde(default)]
    pub(crate) linstor_pools: Vec<LinstorPoolFile>,
    /// K3s clusters.
    #[serde(default)]
    pub(crate) k3s_clusters: Vec<K3sClusterFile>,
    /// ArgoCD instances.
    #[serde(default)]
    pub(crate) argocd: Vec<ArgoCdFile>,
    /// Proxmox Backup Servers.
    #[serde(default)]
    pub(crate) pbs: Vec<PbsFile>,
    /// VyOS routers.
    #[serde(default)]
    pub(crate) routers: Vec<RouterFile>,
    /// Traefik ingresses.
    #[serde(default)]
    pub(crate) traefik: Vec<TraefikFile>,
    /// Links between sites.
    #[serde(default)]
    pub(crate) links: Vec<LinkFile>,
    /// Multi-cluster patterns.
    #[serde(default)]
    pub(crate) patterns: Vec<PatternFile>,
    /// Cross-cutting capabilities.
    #[serde(default)]
    pub(crate) capabilities: Vec<CapabilityFile>,
    /// Other labelled facts of the documents.
    #[serde(default)]
    pub(crate) items: Vec<ItemFile>,
    /// Suppressed findings, each with a reason.
    #[serde(default)]
    pub(crate) suppressions: Vec<SuppressionFile>,
    /// The documents' pending items.
    #[serde(default)]
    pub(crate) pending: Vec<PendingFile>,
    /// The alternatives the decision table rejects, and what adopts each.
    #[serde(default)]
    pub(crate) rejected: Vec<RejectedFile>,
    /// Facts the two documents state differently.
    #[serde(default)]
    pub(crate) contradictions: Vec<ContradictionFile>,
}

impl<T: Default> Default for At<T> {
    fn default() -> Self {
        At {
            value: T::default(),
            at: serde_saphyr::Location::UNKNOWN,
        }
    }
}
