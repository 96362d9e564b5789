//! The topology file format, as serde and JSON Schema see it.
//!
//! These types mirror the YAML one to one (unknown keys rejected) and keep the location of every
//! id and reference; [`super::convert`] turns them into the model and checks what serde cannot.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use crate::model::{
    AlertKind, CapabilityKind, ClusterPurpose, CniKind, GuestKind, LinkKind, LinstorRole,
    NodePlacement, PatternKind, State,
};

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
}

/// Capabilities of a hardware tier.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "TierCapabilities")]
pub(crate) struct TierCapabilitiesFile {
    /// The host has an integrated GPU for the display.
    #[serde(default)]
    pub(crate) igpu: bool,
    /// PCIe passthrough of the GPU to a VM is possible.
    #[serde(default)]
    pub(crate) gpu_passthrough_vm: bool,
    /// The only GPU path is a privileged LXC.
    #[serde(default)]
    pub(crate) gpu_lxc_only: bool,
    /// The NVIDIA card is shared between display and workload.
    #[serde(default)]
    pub(crate) gpu_shared_with_display: bool,
}

/// A hardware tier (not a component: no state).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Tier")]
pub(crate) struct TierFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// What the tier is.
    #[serde(default)]
    pub(crate) description: Option<String>,
    /// What it allows.
    #[serde(default)]
    pub(crate) capabilities: TierCapabilitiesFile,
}

/// A site.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Site")]
pub(crate) struct SiteFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Human name.
    #[serde(default)]
    pub(crate) name: Option<String>,
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

/// A Proxmox cluster.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ProxmoxCluster")]
pub(crate) struct ProxmoxClusterFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
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

/// GPUs of one model.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Gpu")]
pub(crate) struct GpuFile {
    /// Model (`A5000`).
    pub(crate) model: At<String>,
    /// How many (at least 1).
    #[serde(default = "one")]
    pub(crate) count: At<u32>,
}

fn one() -> At<u32> {
    At {
        value: 1,
        at: serde_saphyr::Location::UNKNOWN,
    }
}

/// A host's part in LINSTOR.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "HostLinstor")]
pub(crate) struct HostLinstorFile {
    /// Roles: `controller`, `satellite`.
    #[serde(default)]
    pub(crate) roles: At<Vec<LinstorRole>>,
    /// Replication network interface (an empty string is kept as written).
    #[serde(default)]
    pub(crate) interface: Option<At<String>>,
}

impl<T: Default> Default for At<T> {
    fn default() -> Self {
        At {
            value: T::default(),
            at: serde_saphyr::Location::UNKNOWN,
        }
    }
}

/// A Proxmox node.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Host")]
pub(crate) struct HostFile {
    /// Unique id (the node name).
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// Its Proxmox cluster.
    #[serde(default)]
    pub(crate) proxmox_cluster: Option<At<String>>,
    /// Its hardware tier.
    #[serde(default)]
    pub(crate) tier: Option<At<String>>,
    /// Its GPUs.
    #[serde(default)]
    pub(crate) gpus: Vec<At<GpuFile>>,
    /// Its PVE version (`8.4`).
    #[serde(default)]
    pub(crate) pve_version: Option<At<String>>,
    /// Its LINSTOR roles and replication interface.
    #[serde(default)]
    pub(crate) linstor: Option<At<HostLinstorFile>>,
    /// The pinned NVIDIA driver version.
    #[serde(default)]
    pub(crate) nvidia_driver: Option<At<String>>,
    /// The documents count this host but do not name it: the id is a placeholder.
    #[serde(default)]
    pub(crate) placeholder: bool,
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

/// A VM or LXC.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Guest")]
pub(crate) struct GuestFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// The host it runs on.
    pub(crate) host: At<String>,
    /// `vm` or `lxc`.
    pub(crate) kind: At<GuestKind>,
    /// Privileged LXC (never for a VM).
    #[serde(default)]
    pub(crate) privileged: Option<At<bool>>,
    /// Declared as a Proxmox HA resource.
    #[serde(default)]
    pub(crate) ha: Option<At<bool>>,
    /// State of the `ha` property when it lags the guest's.
    #[serde(default)]
    pub(crate) ha_state: Option<At<FileState>>,
    /// Starts on boot.
    #[serde(default)]
    pub(crate) on_boot: bool,
    /// The role it plays.
    #[serde(default)]
    pub(crate) role: Option<String>,
    /// The GPU it uses from its host.
    #[serde(default)]
    pub(crate) gpu: Option<At<GpuFile>>,
    /// The LINSTOR pool holding its disks.
    #[serde(default)]
    pub(crate) storage: Option<At<String>>,
    /// The PBS that backs it up.
    #[serde(default)]
    pub(crate) backup: Option<At<String>>,
    /// Its RPO (`24h`).
    #[serde(default)]
    pub(crate) rpo: Option<At<String>>,
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

/// A node of a LINSTOR pool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PoolNode")]
pub(crate) struct PoolNodeFile {
    /// The host.
    pub(crate) host: At<String>,
    /// Holds a replica (default) or is diskless.
    #[serde(default = "yes")]
    pub(crate) diskful: bool,
}

fn yes() -> bool {
    true
}

/// The LINSTOR controller of a pool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Controller")]
pub(crate) struct ControllerFile {
    /// Host of the primary controller.
    #[serde(default)]
    pub(crate) primary: Option<At<String>>,
    /// Hosts of standby controllers.
    #[serde(default)]
    pub(crate) standby: Vec<At<String>>,
    /// VRRP virtual IP.
    #[serde(default)]
    pub(crate) vip: Option<At<String>>,
    /// The controller is HA.
    #[serde(default)]
    pub(crate) ha: bool,
}

/// A LINSTOR pool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "LinstorPool")]
pub(crate) struct LinstorPoolFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// Storage provider (`lvm-thin`).
    pub(crate) provider: String,
    /// Backing storage pool name.
    #[serde(default)]
    pub(crate) storage_pool: Option<String>,
    /// Its nodes.
    #[serde(default)]
    pub(crate) nodes: Vec<At<PoolNodeFile>>,
    /// DRBD replicas per resource.
    pub(crate) place_count: At<u32>,
    /// Its controller.
    #[serde(default)]
    pub(crate) controller: Option<At<ControllerFile>>,
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

/// A cluster's CNI.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Cni")]
pub(crate) struct CniFile {
    /// `flannel`, `cilium` or `calico`.
    pub(crate) kind: At<CniKind>,
    /// Its version.
    #[serde(default)]
    pub(crate) version: Option<At<String>>,
}

/// cert-manager in a cluster.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CertManager")]
pub(crate) struct CertManagerFile {
    /// A ClusterIssuer with a DNS-01 solver exists.
    #[serde(default)]
    pub(crate) dns01_cluster_issuer: bool,
    /// The DNS-01 provider (`cloudflare`).
    #[serde(default)]
    pub(crate) dns01_provider: Option<String>,
    /// State of cert-manager in this cluster: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// A placement stated by a document.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PlacementClaim")]
pub(crate) struct PlacementClaimFile {
    /// The placement stated.
    pub(crate) placement: NodePlacement,
    /// The CNI stated with it.
    #[serde(default)]
    pub(crate) cni: Option<CniKind>,
    /// The document (file name in `seeds/`).
    pub(crate) source: String,
    /// The quoted sentence.
    pub(crate) quote: String,
}

/// A K3s cluster.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "K3sCluster")]
pub(crate) struct K3sClusterFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// Guests that are its nodes.
    #[serde(default)]
    pub(crate) nodes: Vec<At<String>>,
    /// Placement of its nodes: `vm`, `lxc`, `lxc_privileged`.
    #[serde(default)]
    pub(crate) node_placement: Option<At<NodePlacement>>,
    /// Hosts the nodes may go to.
    #[serde(default)]
    pub(crate) candidate_hosts: Vec<At<String>>,
    /// Its CNI.
    pub(crate) cni: At<CniFile>,
    /// `general` or `gpu`.
    pub(crate) purpose: At<ClusterPurpose>,
    /// NetworkPolicy default-deny.
    #[serde(default)]
    pub(crate) default_deny: Option<At<bool>>,
    /// Hubble enabled.
    #[serde(default)]
    pub(crate) hubble: bool,
    /// cert-manager.
    #[serde(default)]
    pub(crate) cert_manager: Option<At<CertManagerFile>>,
    /// Pinned NVIDIA driver version for its GPU nodes.
    #[serde(default)]
    pub(crate) nvidia_driver: Option<At<String>>,
    /// Explicit exception allowing Cilium on LXC nodes, with its reason.
    #[serde(default)]
    pub(crate) cilium_lxc_exception: Option<At<String>>,
    /// Placements the documents state for this cluster.
    #[serde(default)]
    pub(crate) placement_claims: Vec<At<PlacementClaimFile>>,
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

/// An ArgoCD instance.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "ArgoCd")]
pub(crate) struct ArgoCdFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// The cluster it runs in.
    #[serde(default)]
    pub(crate) runs_in: Option<At<String>>,
    /// The clusters it manages.
    #[serde(default)]
    pub(crate) manages: Vec<At<String>>,
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

/// A PBS datastore.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Datastore")]
pub(crate) struct DatastoreFile {
    /// Name.
    pub(crate) name: String,
    /// Encrypted at rest.
    #[serde(default)]
    pub(crate) encrypted: bool,
}

/// A PBS sync job.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PbsSync")]
pub(crate) struct PbsSyncFile {
    /// Target PBS.
    pub(crate) target: At<String>,
    /// The link it runs over.
    #[serde(default)]
    pub(crate) link: Option<At<String>>,
}

/// A Proxmox Backup Server.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Pbs")]
pub(crate) struct PbsFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// The guest it runs in.
    #[serde(default)]
    pub(crate) guest: Option<At<String>>,
    /// Datastores.
    #[serde(default)]
    pub(crate) datastores: Vec<At<DatastoreFile>>,
    /// Sync jobs to other PBS servers.
    #[serde(default)]
    pub(crate) sync_to: Vec<At<PbsSyncFile>>,
    /// The RPO it delivers.
    #[serde(default)]
    pub(crate) rpo: Option<At<String>>,
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

/// A VyOS router.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Router")]
pub(crate) struct RouterFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// VRRP peer router.
    #[serde(default)]
    pub(crate) vrrp_peer: Option<At<String>>,
    /// WireGuard peer routers.
    #[serde(default)]
    pub(crate) wireguard_peers: Vec<At<String>>,
    /// Subnets routed.
    #[serde(default)]
    pub(crate) subnets: Vec<String>,
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

/// A Traefik ingress.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Traefik")]
pub(crate) struct TraefikFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Its site.
    pub(crate) site: At<String>,
    /// The guest it runs in.
    #[serde(default)]
    pub(crate) guest: Option<At<String>>,
    /// Its address.
    #[serde(default)]
    pub(crate) address: Option<At<String>>,
    /// Declared HA.
    #[serde(default)]
    pub(crate) ha: Option<At<bool>>,
    /// State of the `ha` property when it lags the component's.
    #[serde(default)]
    pub(crate) ha_state: Option<At<FileState>>,
    /// Starts on boot.
    #[serde(default)]
    pub(crate) on_boot: bool,
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

/// A link between two sites.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Link")]
pub(crate) struct LinkFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// `wireguard`.
    pub(crate) kind: LinkKind,
    /// The two sites it joins.
    pub(crate) sites: At<Vec<At<String>>>,
    /// Routers at its ends.
    #[serde(default)]
    pub(crate) endpoints: Vec<At<String>>,
    /// The network it runs over.
    #[serde(default)]
    pub(crate) over: Option<String>,
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

/// A multi-cluster pattern.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Pattern")]
pub(crate) struct PatternFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// `cluster_mesh`, `multi_kueue`, `application_set`, `karmada`.
    pub(crate) kind: PatternKind,
    /// Member clusters.
    #[serde(default)]
    pub(crate) members: Vec<At<String>>,
    /// Managing cluster.
    #[serde(default)]
    pub(crate) manager: Option<At<String>>,
    /// ArgoCD driving it.
    #[serde(default)]
    pub(crate) argocd: Option<At<String>>,
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

/// An alert.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Alert")]
pub(crate) struct AlertFile {
    /// Which alert.
    pub(crate) kind: AlertKind,
    /// Its state: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// A cross-cutting capability.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Capability")]
pub(crate) struct CapabilityFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// `secrets`, `tls`, `iam`, `observability`, `ci_cd`, `supply_chain`.
    pub(crate) kind: CapabilityKind,
    /// The tool or decision.
    #[serde(default)]
    pub(crate) tool: Option<String>,
    /// The site, when local to one.
    #[serde(default)]
    pub(crate) site: Option<At<String>>,
    /// Alerts (observability).
    #[serde(default)]
    pub(crate) alerts: Vec<At<AlertFile>>,
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

/// Any other labelled fact.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Item")]
pub(crate) struct ItemFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// Layer of the architecture (`8a`).
    #[serde(default)]
    pub(crate) layer: Option<String>,
    /// Its site.
    #[serde(default)]
    pub(crate) site: Option<At<String>>,
    /// The cluster it runs in.
    #[serde(default)]
    pub(crate) cluster: Option<At<String>>,
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

/// A suppressed finding.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Suppression")]
pub(crate) struct SuppressionFile {
    /// Rule id (`LINSTOR-002`).
    pub(crate) rule: At<String>,
    /// Component id, or `*`.
    pub(crate) subject: At<String>,
    /// Why (required).
    pub(crate) reason: At<String>,
    /// Last day it holds (`2026-12-31`).
    #[serde(default)]
    pub(crate) expires: Option<At<String>>,
}
