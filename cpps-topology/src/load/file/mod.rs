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
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

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

// Read with `TopologySeed`, which hands each guest over as soon as it is read and leaves
// `guests` empty: the file form of the guests, most of a large file, never accumulates. (Doc
// comments here are the JSON Schema's descriptions.)
/// A topology file: the declared infrastructure, one list per component kind.
#[derive(Debug, JsonSchema)]
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
    #[expect(
        dead_code,
        reason = "for the JSON Schema: the reader hands each guest over (`TopologySeed`)"
    )]
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

/// The keys of a topology file, in the order of [`TopologyFile`]'s fields (the order an
/// unknown key's "expected one of" lists them in).
const TOPOLOGY_FIELDS: &[&str] = &[
    "version",
    "name",
    "rpo",
    "tiers",
    "sites",
    "proxmox_clusters",
    "hosts",
    "guests",
    "linstor_pools",
    "k3s_clusters",
    "argocd",
    "pbs",
    "routers",
    "traefik",
    "links",
    "patterns",
    "capabilities",
    "items",
    "suppressions",
    "pending",
    "rejected",
    "contradictions",
];

const _: () = assert!(TOPOLOGY_FIELDS.len() == 22);

/// What reads a topology file is told, as it reads: when the `guests` key is reached (with
/// what was read before it), and each guest, in file order.
pub(crate) trait TopologyReader {
    /// The `guests` key is reached; `file` holds the keys read before it.
    fn before_guests(&mut self, file: &mut TopologyFile);
    /// A guest was read.
    fn guest(&mut self, guest: GuestFile);
}

/// Reads a [`TopologyFile`] and hands each guest to the reader as soon as it is read, leaving
/// `guests` empty. Otherwise the same reading (and the same errors, at the same places) as
/// serde's derived one: unknown keys rejected, a key given twice rejected, `version` required,
/// every other key optional. Also says whether a list of tiers, sites, Proxmox clusters or
/// hosts came after the guests.
pub(crate) struct TopologySeed<'r, R>(pub(crate) &'r mut R);

impl<'de, R: TopologyReader> DeserializeSeed<'de> for TopologySeed<'_, R> {
    type Value = (TopologyFile, bool);

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_struct("TopologyFile", TOPOLOGY_FIELDS, self)
    }
}

/// A key of the topology file, as an index in [`TOPOLOGY_FIELDS`].
struct TopologyKey(usize);

impl<'de> Deserialize<'de> for TopologyKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = TopologyKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("field identifier")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<TopologyKey, E> {
                match usize::try_from(v) {
                    Ok(i) if i < TOPOLOGY_FIELDS.len() => Ok(TopologyKey(i)),
                    // serde's derived message (its field count is checked below).
                    _ => Err(E::invalid_value(
                        de::Unexpected::Unsigned(v),
                        &"field index 0 <= i < 22",
                    )),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<TopologyKey, E> {
                TOPOLOGY_FIELDS
                    .iter()
                    .position(|f| *f == v)
                    .map(TopologyKey)
                    .ok_or_else(|| E::unknown_field(v, TOPOLOGY_FIELDS))
            }
            fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<TopologyKey, E> {
                self.visit_str(&String::from_utf8_lossy(v))
            }
        }
        d.deserialize_identifier(V)
    }
}

/// The `guests` list, each element handed over as it is read.
struct GuestsSeed<'r, R>(&'r mut R);

impl<'de, R: TopologyReader> DeserializeSeed<'de> for GuestsSeed<'_, R> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, R: TopologyReader> Visitor<'de> for GuestsSeed<'_, R> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(guest) = seq.next_element::<GuestFile>()? {
            self.0.guest(guest);
        }
        Ok(())
    }
}

impl<'de, R: TopologyReader> Visitor<'de> for TopologySeed<'_, R> {
    type Value = (TopologyFile, bool);

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("struct TopologyFile")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut seen = [false; TOPOLOGY_FIELDS.len()];
        let (mut guests_read, mut after_guests) = (false, false);
        let mut version = None;
        let mut file = TopologyFile {
            version: At::default(),
            name: None,
            rpo: None,
            tiers: Vec::new(),
            sites: Vec::new(),
            proxmox_clusters: Vec::new(),
            hosts: Vec::new(),
            guests: Vec::new(),
            linstor_pools: Vec::new(),
            k3s_clusters: Vec::new(),
            argocd: Vec::new(),
            pbs: Vec::new(),
            routers: Vec::new(),
            traefik: Vec::new(),
            links: Vec::new(),
            patterns: Vec::new(),
            capabilities: Vec::new(),
            items: Vec::new(),
            suppressions: Vec::new(),
            pending: Vec::new(),
            rejected: Vec::new(),
            contradictions: Vec::new(),
        };
        while let Some(TopologyKey(key)) = map.next_key()? {
            if std::mem::replace(&mut seen[key], true) {
                return Err(de::Error::duplicate_field(TOPOLOGY_FIELDS[key]));
            }
            let name = TOPOLOGY_FIELDS[key];
            after_guests |=
                guests_read && matches!(name, "tiers" | "sites" | "proxmox_clusters" | "hosts");
            match name {
                "version" => version = Some(map.next_value()?),
                "name" => file.name = map.next_value()?,
                "rpo" => file.rpo = map.next_value()?,
                "tiers" => file.tiers = map.next_value()?,
                "sites" => file.sites = map.next_value()?,
                "proxmox_clusters" => file.proxmox_clusters = map.next_value()?,
                "hosts" => file.hosts = map.next_value()?,
                "guests" => {
                    guests_read = true;
                    self.0.before_guests(&mut file);
                    map.next_value_seed(GuestsSeed(&mut *self.0))?;
                }
                "linstor_pools" => file.linstor_pools = map.next_value()?,
                "k3s_clusters" => file.k3s_clusters = map.next_value()?,
                "argocd" => file.argocd = map.next_value()?,
                "pbs" => file.pbs = map.next_value()?,
                "routers" => file.routers = map.next_value()?,
                "traefik" => file.traefik = map.next_value()?,
                "links" => file.links = map.next_value()?,
                "patterns" => file.patterns = map.next_value()?,
                "capabilities" => file.capabilities = map.next_value()?,
                "items" => file.items = map.next_value()?,
                "suppressions" => file.suppressions = map.next_value()?,
                "pending" => file.pending = map.next_value()?,
                "rejected" => file.rejected = map.next_value()?,
                _ => file.contradictions = map.next_value()?,
            }
        }
        file.version = version.ok_or_else(|| de::Error::missing_field("version"))?;
        Ok((file, after_guests))
    }
}

#[cfg(test)]
mod tests {
    use super::{TOPOLOGY_FIELDS, TopologyFile};

    /// The reader knows every key of the file's type (as its JSON Schema lists them).
    #[test]
    fn the_reader_reads_every_key_of_the_file_type() {
        let schema = schemars::schema_for!(TopologyFile).to_value();
        let mut keys: Vec<&str> = schema["properties"]
            .as_object()
            .expect("the schema has properties")
            .keys()
            .map(String::as_str)
            .collect();
        let mut fields = TOPOLOGY_FIELDS.to_vec();
        keys.sort_unstable();
        fields.sort_unstable();
        assert_eq!(keys, fields);
    }
}
