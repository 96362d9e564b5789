//! The typed model of an infrastructure: sites, hosts, guests, clusters, storage, backup, network,
//! ingress, GitOps, multi-cluster patterns and cross-cutting capabilities.
//!
//! A [`Topology`] holds one `Vec` per component kind plus lookup maps by id, built by
//! [`Topology::reindex`] (the loader and the generators in `testing` call it for you). Rules can
//! therefore be written in O(n): iterate a `Vec`, look references up by id in O(1).
//!
//! Every component carries one [`Meta`]: its [`State`] (exactly one, enforced by the loader),
//! an optional note and use case, and the [`Location`] of the component and of its key fields in
//! the file, so that a finding can point at the line that breaks a decision.
//!
//! Component ids are unique across the whole file (a host and a guest never share an id), so a
//! bare id names one component: that is what a finding's subject and a suppression's `subject`
//! are.

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt};
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Why a string is not a valid component id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    /// The id is empty.
    #[error("id is empty")]
    Empty,
    /// The id is longer than [`MAX_ID_LEN`] bytes.
    #[error("id is longer than {MAX_ID_LEN} bytes")]
    TooLong,
    /// The id holds a character outside `A-Z a-z 0-9 - _ .` or does not start with a letter or digit.
    #[error(
        "id `{0}` may only hold letters, digits, `-`, `_` and `.`, and must start with a letter or digit"
    )]
    InvalidChar(String),
}

/// The longest id accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

fn validate_id(s: &str) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::Empty);
    }
    if s.len() > MAX_ID_LEN {
        return Err(IdError::TooLong);
    }
    let mut chars = s.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if !first_ok
        || !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(IdError::InvalidChar(s.to_owned()));
    }
    Ok(())
}

macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(try_from = "String", into = "String")]
        pub struct $name(String);

        impl $name {
            /// Validates and wraps an id: 1–128 bytes of letters, digits, `-`, `_`, `.`,
            /// starting with a letter or digit.
            pub fn new(id: impl Into<String>) -> Result<Self, IdError> {
                let id = id.into();
                validate_id(&id)?;
                Ok(Self(id))
            }

            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = IdError;
            fn from_str(s: &str) -> Result<Self, IdError> {
                Self::new(s)
            }
        }

        impl TryFrom<String> for $name {
            type Error = IdError;
            fn try_from(s: String) -> Result<Self, IdError> {
                Self::new(s)
            }
        }

        impl From<$name> for String {
            fn from(id: $name) -> String {
                id.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }
    };
}

typed_id!(
    /// Id of a [`Site`] (`franca`, `sp`).
    SiteId
);
typed_id!(
    /// Id of a [`HardwareTier`] (`tier-2a`, `tier-3`).
    TierId
);
typed_id!(
    /// Id of a [`Host`], a Proxmox node (`pve-ippri-31`).
    HostId
);
typed_id!(
    /// Id of a [`Guest`], a VM or LXC (`gpu-sp-01`).
    GuestId
);
typed_id!(
    /// Id of a [`ProxmoxCluster`].
    ProxmoxClusterId
);
typed_id!(
    /// Id of a [`LinstorPool`].
    LinstorPoolId
);
typed_id!(
    /// Id of a [`K3sCluster`].
    K3sClusterId
);
typed_id!(
    /// Id of an [`ArgoCd`] instance.
    ArgoCdId
);
typed_id!(
    /// Id of a [`Pbs`] server.
    PbsId
);
typed_id!(
    /// Id of a VyOS [`Router`].
    RouterId
);
typed_id!(
    /// Id of a [`Traefik`] instance.
    TraefikId
);
typed_id!(
    /// Id of a cross-site [`Link`].
    LinkId
);
typed_id!(
    /// Id of a multi-cluster [`Pattern`].
    PatternId
);
typed_id!(
    /// Id of a cross-cutting [`Capability`].
    CapabilityId
);
typed_id!(
    /// Id of an [`Item`], a labelled fact of the documents that is no other kind of component.
    ItemId
);

/// Where something appears in the topology file: 1-based line and column (in characters), plus
/// the byte offset and byte length used to draw a diagnostic. [`Location::UNKNOWN`] (all zero)
/// for components built in code rather than loaded from a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column in characters; 0 when unknown.
    pub column: u32,
    /// Byte offset in the file.
    pub offset: usize,
    /// Length in bytes of the located text (at least 1 when known).
    pub len: usize,
}

impl Location {
    /// No location: the component was built in code.
    pub const UNKNOWN: Location = Location {
        line: 0,
        column: 0,
        offset: 0,
        len: 0,
    };

    /// Whether this points into a file (line > 0).
    pub fn is_known(&self) -> bool {
        self.line > 0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// The maturity of a component, from the table "Os 3 estados".
///
/// Ordered by maturity: `Desired < Declared < Validated`, so "a state at least as mature as"
/// is `a >= b`.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Roadmap: an architectural decision with neither code nor validation (❌, 🚫 deferred).
    Desired,
    /// Exists in IaC (Pulumi/Ansible) but not applied or validated in production (🚧).
    Declared,
    /// Works in production today with real traffic or data (✅).
    Validated,
}

impl State {
    /// All three states, least mature first.
    pub const ALL: [State; 3] = [State::Desired, State::Declared, State::Validated];

    /// `validated`, `declared` or `desired`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Desired => "desired",
            State::Declared => "declared",
            State::Validated => "validated",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What every component carries: its state, note, use case and locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The one state of the component.
    pub state: State,
    /// Free text from the documents (🚧 partial details, "deferred", "placeholder name", …).
    pub note: Option<String>,
    /// The proven use case that justifies the component (principle "Frugalidade operacional").
    pub use_case: Option<String>,
    /// Marked 🚫 in the documents: deferred on purpose (state is then `desired`).
    pub deferred: bool,
    /// Where the component's `id:` value is in the file.
    pub location: Location,
    fields: Vec<(Box<str>, Location)>,
}

impl Meta {
    /// A component in `state` with no note, no use case and no location.
    pub fn new(state: State) -> Self {
        Meta {
            state,
            note: None,
            use_case: None,
            deferred: false,
            location: Location::UNKNOWN,
            fields: Vec::new(),
        }
    }

    /// Where the value of field `path` is in the file, falling back to the component's own
    /// location. Paths are the YAML keys under the component, dotted for nested mappings and
    /// with `[i]` for list items: `host`, `state`, `linstor.interface`, `nodes[2]`,
    /// `nodes[2].host`, `place_count`, `ha`, `members[0]`, `sync_to[0].target`, `alerts[1]`.
    pub fn at(&self, path: &str) -> Location {
        self.field_location(path).unwrap_or(self.location)
    }

    /// Where the value of field `path` is in the file, if it was recorded.
    pub fn field_location(&self, path: &str) -> Option<Location> {
        self.fields
            .iter()
            .find(|(p, _)| &**p == path)
            .map(|(_, l)| *l)
    }

    /// Records where field `path` is (the loader calls this).
    pub fn set_field_location(&mut self, path: impl Into<Box<str>>, location: Location) {
        let path = path.into();
        if let Some(slot) = self.fields.iter_mut().find(|(p, _)| *p == path) {
            slot.1 = location;
        } else {
            self.fields.push((path, location));
        }
    }

    /// Every recorded field location, in file order.
    pub fn field_locations(&self) -> impl Iterator<Item = (&str, Location)> {
        self.fields.iter().map(|(p, l)| (&**p, *l))
    }
}

/// A version number such as `8.4`, `1.16.3` or `550.54.15`, compared numerically.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    raw: String,
    numbers: Vec<u64>,
}

/// Why a string is not a [`Version`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a version: expected numbers separated by dots, such as `8.4` or `1.16.3`")]
pub struct VersionError(pub String);

impl Version {
    /// Parses `[v]N(.N)*` optionally followed by `-suffix` or `+suffix`.
    pub fn new(raw: impl Into<String>) -> Result<Self, VersionError> {
        let raw = raw.into();
        let body = raw.strip_prefix('v').unwrap_or(&raw);
        let end = body.find(['-', '+']).unwrap_or(body.len());
        let (nums, suffix) = body.split_at(end);
        let numbers: Result<Vec<u64>, _> = nums.split('.').map(str::parse::<u64>).collect();
        match numbers {
            Ok(numbers)
                if !numbers.is_empty()
                    && nums
                        .split('.')
                        .all(|p| p.bytes().all(|b| b.is_ascii_digit()))
                    && (suffix.is_empty() || suffix.len() > 1) =>
            {
                Ok(Version { raw, numbers })
            }
            _ => Err(VersionError(raw)),
        }
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The numeric parts (`1.16.3` → `[1, 16, 3]`).
    pub fn numbers(&self) -> &[u64] {
        &self.numbers
    }

    /// The first number.
    pub fn major(&self) -> u64 {
        self.numbers[0]
    }

    /// Whether this version is at least `min`, comparing numerically part by part, missing
    /// parts counting as 0 (`1.16` ≥ `1.16.0`).
    pub fn at_least(&self, min: &Version) -> bool {
        let n = self.numbers.len().max(min.numbers.len());
        for i in 0..n {
            let a = self.numbers.get(i).copied().unwrap_or(0);
            let b = min.numbers.get(i).copied().unwrap_or(0);
            if a != b {
                return a > b;
            }
        }
        true
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, VersionError> {
        Version::new(s)
    }
}

/// A recovery point objective: the most data, in time, a restore may lose (`15m`, `24h`, `1d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rpo {
    seconds: u64,
}

/// Why a string is not an [`Rpo`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a duration: expected a number and a unit m, h, d or w, such as `24h`")]
pub struct RpoError(pub String);

impl Rpo {
    /// An RPO of `seconds`.
    pub fn from_secs(seconds: u64) -> Self {
        Rpo { seconds }
    }

    /// The RPO in seconds.
    pub fn as_secs(self) -> u64 {
        self.seconds
    }
}

impl FromStr for Rpo {
    type Err = RpoError;
    fn from_str(s: &str) -> Result<Self, RpoError> {
        let err = || RpoError(s.to_owned());
        let unit_at = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?;
        let (num, unit) = s.split_at(unit_at);
        let n: u64 = num.parse().map_err(|_| err())?;
        let factor = match unit {
            "m" => 60,
            "h" => 3_600,
            "d" => 86_400,
            "w" => 604_800,
            _ => return Err(err()),
        };
        let seconds = n.checked_mul(factor).ok_or_else(err)?;
        if seconds == 0 {
            return Err(err());
        }
        Ok(Rpo { seconds })
    }
}

impl fmt::Display for Rpo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.seconds;
        if s.is_multiple_of(604_800) {
            write!(f, "{}w", s / 604_800)
        } else if s.is_multiple_of(86_400) {
            write!(f, "{}d", s / 86_400)
        } else if s.is_multiple_of(3_600) {
            write!(f, "{}h", s / 3_600)
        } else if s.is_multiple_of(60) {
            write!(f, "{}m", s / 60)
        } else {
            write!(f, "{s}s")
        }
    }
}

/// A site: the unit of autonomy (principle "Autonomia por site").
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// Id (`franca`, `sp`).
    pub id: SiteId,
    /// Human name (`SP — Praça da Sé`).
    pub name: Option<String>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// What a hardware tier allows, as data (never hard-coded host names).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TierCapabilities {
    /// The host has an integrated GPU for the display.
    pub igpu: bool,
    /// PCIe passthrough of the GPU to a VM is possible (Tier 2A).
    pub gpu_passthrough_vm: bool,
    /// The only GPU path is a privileged LXC (Tier 3).
    pub gpu_lxc_only: bool,
    /// The NVIDIA card is shared between the display and the workload (Tier 3).
    pub gpu_shared_with_display: bool,
}

/// A hardware tier. Not a component: it has no state.
#[derive(Clone, Debug, PartialEq)]
pub struct HardwareTier {
    /// Id (`tier-3`).
    pub id: TierId,
    /// What the tier is.
    pub description: Option<String>,
    /// What it allows.
    pub capabilities: TierCapabilities,
    /// Where its `id:` is in the file.
    pub location: Location,
}

/// GPUs of one model on a host, or requested by a guest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gpu {
    /// Model (`A5000`, `A5500`).
    pub model: String,
    /// How many (at least 1).
    pub count: u32,
}

/// A LINSTOR role of a host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LinstorRole {
    /// Runs a LINSTOR controller.
    Controller,
    /// Runs a LINSTOR satellite (stores or attaches DRBD resources).
    Satellite,
}

/// A host's part in LINSTOR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLinstor {
    /// Roles (`controller`, `satellite`).
    pub roles: Vec<LinstorRole>,
    /// The replication network interface. `Some("")` is an empty interface as written in the file
    /// (pve-ippri-34), `None` is "not given".
    pub interface: Option<String>,
}

impl HostLinstor {
    /// Whether the host is a satellite.
    pub fn is_satellite(&self) -> bool {
        self.roles.contains(&LinstorRole::Satellite)
    }

    /// Whether the host runs a controller.
    pub fn is_controller(&self) -> bool {
        self.roles.contains(&LinstorRole::Controller)
    }
}

/// A Proxmox node.
#[derive(Clone, Debug, PartialEq)]
pub struct Host {
    /// Id (`pve-ippri-31`).
    pub id: HostId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// Its Proxmox cluster. Location: `meta.at("proxmox_cluster")`.
    pub proxmox_cluster: Option<ProxmoxClusterId>,
    /// Its hardware tier. Location: `meta.at("tier")`.
    pub tier: Option<TierId>,
    /// Its GPUs. Locations: `meta.at("gpus[i]")`.
    pub gpus: Vec<Gpu>,
    /// Its PVE version. Location: `meta.at("pve_version")`.
    pub pve_version: Option<Version>,
    /// Its LINSTOR roles and replication interface. Locations: `meta.at("linstor")`,
    /// `meta.at("linstor.interface")`, `meta.at("linstor.roles")`.
    pub linstor: Option<HostLinstor>,
    /// The NVIDIA driver version pinned for this host. Location: `meta.at("nvidia_driver")`.
    pub nvidia_driver: Option<Version>,
    /// The documents count this host but do not name it: its id is a placeholder.
    pub placeholder: bool,
    /// State, note, use case, locations.
    pub meta: Meta,
}

impl Host {
    /// Total number of GPUs.
    pub fn gpu_count(&self) -> u32 {
        self.gpus.iter().map(|g| g.count).sum()
    }

    /// Whether the host has a GPU of `model`.
    pub fn has_gpu_model(&self, model: &str) -> bool {
        self.gpus
            .iter()
            .any(|g| g.count > 0 && g.model.eq_ignore_ascii_case(model))
    }
}

/// VM or LXC.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GuestKind {
    /// Full virtualization (QEMU).
    Vm,
    /// Container (LXC).
    Lxc,
}

/// A VM or LXC on a host.
#[derive(Clone, Debug, PartialEq)]
pub struct Guest {
    /// Id (`gpu-sp-01`).
    pub id: GuestId,
    /// The host it runs on. Location: `meta.at("host")`.
    pub host: HostId,
    /// VM or LXC. Location: `meta.at("kind")`.
    pub kind: GuestKind,
    /// For an LXC: privileged. Always false for a VM. Location: `meta.at("privileged")`.
    pub privileged: bool,
    /// Declared HA (a Proxmox HA resource). Location: `meta.at("ha")`.
    pub ha: bool,
    /// The state of the `ha` property itself when it is less mature than the guest
    /// (traefik-sp: the VM runs, its HA is only declared). `None`: same as the guest.
    pub ha_state: Option<State>,
    /// Starts on boot.
    pub on_boot: bool,
    /// The role it plays (`k3s-server`, `pbs`, `traefik`).
    pub role: Option<String>,
    /// The GPU it uses from its host. Location: `meta.at("gpu")`.
    pub gpu: Option<Gpu>,
    /// The LINSTOR pool holding its disks. Location: `meta.at("storage")`.
    pub storage: Option<LinstorPoolId>,
    /// The PBS that backs it up. Location: `meta.at("backup")`.
    pub backup: Option<PbsId>,
    /// Its recovery point objective, overriding the file's `rpo`.
    pub rpo: Option<Rpo>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A Proxmox VE cluster (one per site: a cross-site cluster is rejected).
#[derive(Clone, Debug, PartialEq)]
pub struct ProxmoxCluster {
    /// Id.
    pub id: ProxmoxClusterId,
    /// The site it is declared in. Its hosts name it in `proxmox_cluster`. Location: `meta.at("site")`.
    pub site: SiteId,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A node of a LINSTOR pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolNode {
    /// The host.
    pub host: HostId,
    /// Holds a replica (diskful) or only attaches / breaks ties (diskless).
    pub diskful: bool,
}

/// The LINSTOR controller serving a pool.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinstorController {
    /// The host running the primary controller. Location: `meta.at("controller.primary")`.
    pub primary: Option<HostId>,
    /// Standby controller hosts. Locations: `meta.at("controller.standby[i]")`.
    pub standby: Vec<HostId>,
    /// The VRRP virtual IP of the controller (`10.10.20.1`).
    pub vip: Option<IpAddr>,
    /// The controller is HA (VRRP or primary + standby), as the documents state it.
    pub ha: bool,
}

/// A LINSTOR storage pool replicated by DRBD.
#[derive(Clone, Debug, PartialEq)]
pub struct LinstorPool {
    /// Id (`sp-ssd`).
    pub id: LinstorPoolId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// Storage provider (`lvm-thin`).
    pub provider: String,
    /// The backing storage pool name (`linstor_ssd`).
    pub storage_pool: Option<String>,
    /// Its nodes. Locations: `meta.at("nodes[i]")`, `meta.at("nodes[i].host")`.
    pub nodes: Vec<PoolNode>,
    /// DRBD replicas per resource. Location: `meta.at("place_count")`.
    pub place_count: u32,
    /// Its controller. Location: `meta.at("controller")`.
    pub controller: Option<LinstorController>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

impl LinstorPool {
    /// Number of diskful nodes.
    pub fn diskful_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.diskful).count()
    }
}

/// A Kubernetes CNI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CniKind {
    /// K3s default.
    Flannel,
    /// Cilium (ADR-002).
    Cilium,
    /// Calico.
    Calico,
}

/// A cluster's CNI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cni {
    /// Which CNI. Location: `meta.at("cni.kind")`.
    pub kind: CniKind,
    /// Its version. Location: `meta.at("cni.version")`.
    pub version: Option<Version>,
}

/// What a K3s cluster is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClusterPurpose {
    /// General workloads.
    General,
    /// GPU workloads only (ADR-009).
    Gpu,
}

/// How a cluster's nodes are (or will be) placed, for clusters whose node guests are not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NodePlacement {
    /// VMs.
    Vm,
    /// Unprivileged LXCs.
    Lxc,
    /// Privileged LXCs.
    LxcPrivileged,
}

/// A placement for a cluster as one of the documents states it. Two claims that disagree on a
/// cluster are a contradiction between the documents (Franca GPU placement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementClaim {
    /// The placement stated.
    pub placement: NodePlacement,
    /// The CNI stated with it.
    pub cni: Option<CniKind>,
    /// The document it comes from (file name in `seeds/`).
    pub source: String,
    /// The quoted sentence.
    pub quote: String,
    /// Where the claim is in the file.
    pub location: Location,
}

/// cert-manager in a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertManager {
    /// Whether a ClusterIssuer with a DNS-01 solver exists.
    pub dns01_cluster_issuer: bool,
    /// The DNS-01 provider (`cloudflare`).
    pub dns01_provider: Option<String>,
    /// The state of cert-manager in this cluster (it may lag the cluster's).
    pub state: State,
    /// Free text.
    pub note: Option<String>,
}

/// A K3s cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct K3sCluster {
    /// Id (`k3s-gpu-sp`).
    pub id: K3sClusterId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The guests that are its nodes. Locations: `meta.at("nodes[i]")`.
    pub nodes: Vec<GuestId>,
    /// Placement of its nodes when they are not listed (or to state the intent). Location:
    /// `meta.at("node_placement")`.
    pub node_placement: Option<NodePlacement>,
    /// Hosts the nodes may go to when not yet placed. Locations: `meta.at("candidate_hosts[i]")`.
    pub candidate_hosts: Vec<HostId>,
    /// Its CNI. Location: `meta.at("cni")`.
    pub cni: Cni,
    /// General or GPU. Location: `meta.at("purpose")`.
    pub purpose: ClusterPurpose,
    /// NetworkPolicy default-deny. Location: `meta.at("default_deny")`.
    pub default_deny: bool,
    /// Hubble enabled.
    pub hubble: bool,
    /// cert-manager, if any. Location: `meta.at("cert_manager")`.
    pub cert_manager: Option<CertManager>,
    /// NVIDIA driver version pinned for the cluster's GPU nodes. Location: `meta.at("nvidia_driver")`.
    pub nvidia_driver: Option<Version>,
    /// An explicit exception allowing Cilium on LXC nodes (ADR-002 Tier 3), with its reason.
    /// Location: `meta.at("cilium_lxc_exception")`.
    pub cilium_lxc_exception: Option<String>,
    /// Placements the documents state for this cluster. Locations in each claim.
    pub placement_claims: Vec<PlacementClaim>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// An ArgoCD instance.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgoCd {
    /// Id.
    pub id: ArgoCdId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The cluster it runs in. Location: `meta.at("runs_in")`.
    pub runs_in: Option<K3sClusterId>,
    /// The clusters it manages. Locations: `meta.at("manages[i]")`.
    pub manages: Vec<K3sClusterId>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A PBS datastore.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datastore {
    /// Name.
    pub name: String,
    /// Encrypted at rest.
    pub encrypted: bool,
}

/// A PBS sync job to another PBS.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PbsSync {
    /// The target PBS. Location: `meta.at("sync_to[i].target")`.
    pub target: PbsId,
    /// The link the sync runs over. Location: `meta.at("sync_to[i].link")`.
    pub link: Option<LinkId>,
}

/// A Proxmox Backup Server.
#[derive(Clone, Debug, PartialEq)]
pub struct Pbs {
    /// Id.
    pub id: PbsId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The guest it runs in. Location: `meta.at("guest")`.
    pub guest: Option<GuestId>,
    /// Its datastores. Locations: `meta.at("datastores[i]")`.
    pub datastores: Vec<Datastore>,
    /// Sync jobs to other PBS servers. Locations: `meta.at("sync_to[i]")`.
    pub sync_to: Vec<PbsSync>,
    /// The RPO it is meant to deliver.
    pub rpo: Option<Rpo>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A VyOS router.
#[derive(Clone, Debug, PartialEq)]
pub struct Router {
    /// Id.
    pub id: RouterId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// Its VRRP peer. Location: `meta.at("vrrp_peer")`.
    pub vrrp_peer: Option<RouterId>,
    /// Its WireGuard peers. Locations: `meta.at("wireguard_peers[i]")`.
    pub wireguard_peers: Vec<RouterId>,
    /// Subnets it routes (`192.168.10.0/23`).
    pub subnets: Vec<String>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A Traefik ingress.
#[derive(Clone, Debug, PartialEq)]
pub struct Traefik {
    /// Id.
    pub id: TraefikId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The guest it runs in, if modelled. Location: `meta.at("guest")`.
    pub guest: Option<GuestId>,
    /// Its address.
    pub address: Option<IpAddr>,
    /// Declared HA. Location: `meta.at("ha")`.
    pub ha: bool,
    /// The state of the `ha` property when it lags the component's (traefik-sp: `declared`).
    pub ha_state: Option<State>,
    /// Starts on boot.
    pub on_boot: bool,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Kind of a cross-site link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LinkKind {
    /// A WireGuard tunnel between routers.
    Wireguard,
}

/// A link between two sites.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Id.
    pub id: LinkId,
    /// Kind.
    pub kind: LinkKind,
    /// The two sites it joins. Locations: `meta.at("sites[0]")`, `meta.at("sites[1]")`.
    pub sites: [SiteId; 2],
    /// The routers at its ends. Locations: `meta.at("endpoints[i]")`.
    pub endpoints: Vec<RouterId>,
    /// The network it runs over (`UnespNet`).
    pub over: Option<String>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

impl Link {
    /// Whether the link joins sites `a` and `b` (in either order).
    pub fn joins(&self, a: &SiteId, b: &SiteId) -> bool {
        (&self.sites[0] == a && &self.sites[1] == b) || (&self.sites[0] == b && &self.sites[1] == a)
    }
}

/// Kind of a multi-cluster pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PatternKind {
    /// Cilium ClusterMesh.
    ClusterMesh,
    /// Kueue MultiKueue.
    MultiKueue,
    /// ArgoCD ApplicationSet.
    ApplicationSet,
    /// Karmada federation.
    Karmada,
}

/// A multi-cluster pattern joining clusters.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Id.
    pub id: PatternId,
    /// Kind.
    pub kind: PatternKind,
    /// Member clusters. Locations: `meta.at("members[i]")`.
    pub members: Vec<K3sClusterId>,
    /// The managing cluster (MultiKueue manager). Location: `meta.at("manager")`.
    pub manager: Option<K3sClusterId>,
    /// The ArgoCD driving it (ApplicationSet). Location: `meta.at("argocd")`.
    pub argocd: Option<ArgoCdId>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Kind of a cross-cutting capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CapabilityKind {
    /// Secrets management.
    Secrets,
    /// Certificates (TLS).
    Tls,
    /// Identity and access.
    Iam,
    /// Observability.
    Observability,
    /// CI/CD of IaC.
    CiCd,
    /// Supply chain (registry and images).
    SupplyChain,
}

/// The five basic alerts ("Pelo menos 5 alertas básicos").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AlertKind {
    /// Node down.
    NodeDown,
    /// LINSTOR degraded.
    LinstorDegraded,
    /// DRBD desync.
    DrbdDesync,
    /// ArgoCD out-of-sync.
    ArgocdOutOfSync,
    /// Certificate expiring.
    CertExpiring,
}

impl AlertKind {
    /// The five basic alerts.
    pub const BASIC: [AlertKind; 5] = [
        AlertKind::NodeDown,
        AlertKind::LinstorDegraded,
        AlertKind::DrbdDesync,
        AlertKind::ArgocdOutOfSync,
        AlertKind::CertExpiring,
    ];
}

/// An alert of an observability capability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Which alert.
    pub kind: AlertKind,
    /// Its state.
    pub state: State,
    /// Free text.
    pub note: Option<String>,
    /// Where it is in the file.
    pub location: Location,
}

/// A cross-cutting capability (or one part of it, e.g. the OTel collector of observability).
#[derive(Clone, Debug, PartialEq)]
pub struct Capability {
    /// Id.
    pub id: CapabilityId,
    /// Kind.
    pub kind: CapabilityKind,
    /// The tool or decision (`SOPS + age`, `OpenObserve`).
    pub tool: Option<String>,
    /// The site, when local to one. Location: `meta.at("site")`.
    pub site: Option<SiteId>,
    /// Alerts (observability).
    pub alerts: Vec<Alert>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Any other labelled fact of the documents (an application, a pending decision, a layer item).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Id.
    pub id: ItemId,
    /// The layer of the architecture (`8a`, `3`, `1`).
    pub layer: Option<String>,
    /// Its site. Location: `meta.at("site")`.
    pub site: Option<SiteId>,
    /// The cluster it runs in. Location: `meta.at("cluster")`.
    pub cluster: Option<K3sClusterId>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A suppression of one rule for one subject, written in the file with a reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    /// Rule id (`LINSTOR-002`).
    pub rule: String,
    /// Component id (the finding's subject), or `*` for every subject.
    pub subject: String,
    /// Why (required, non-empty).
    pub reason: String,
    /// Last day the suppression holds; after it the finding comes back.
    pub expires: Option<jiff::civil::Date>,
    /// Where the suppression is in the file.
    pub location: Location,
}

impl Suppression {
    /// Whether this suppression covers `rule` for `subject` on `today` (not expired:
    /// `today <= expires`).
    pub fn covers(&self, rule: &str, subject: &str, today: jiff::civil::Date) -> bool {
        self.rule == rule
            && (self.subject == "*" || self.subject == subject)
            && self.expires.is_none_or(|e| today <= e)
    }
}

/// The kind of a component.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ComponentKind {
    /// [`Site`].
    Site,
    /// [`Host`].
    Host,
    /// [`Guest`].
    Guest,
    /// [`ProxmoxCluster`].
    ProxmoxCluster,
    /// [`LinstorPool`].
    LinstorPool,
    /// [`K3sCluster`].
    K3sCluster,
    /// [`ArgoCd`].
    ArgoCd,
    /// [`Pbs`].
    Pbs,
    /// [`Router`].
    Router,
    /// [`Traefik`].
    Traefik,
    /// [`Link`].
    Link,
    /// [`Pattern`].
    Pattern,
    /// [`Capability`].
    Capability,
    /// [`Item`].
    Item,
}

impl ComponentKind {
    /// The singular name used in messages (`host`, `k3s cluster`).
    pub fn as_str(self) -> &'static str {
        match self {
            ComponentKind::Site => "site",
            ComponentKind::Host => "host",
            ComponentKind::Guest => "guest",
            ComponentKind::ProxmoxCluster => "proxmox cluster",
            ComponentKind::LinstorPool => "linstor pool",
            ComponentKind::K3sCluster => "k3s cluster",
            ComponentKind::ArgoCd => "argocd",
            ComponentKind::Pbs => "pbs",
            ComponentKind::Router => "router",
            ComponentKind::Traefik => "traefik",
            ComponentKind::Link => "link",
            ComponentKind::Pattern => "pattern",
            ComponentKind::Capability => "capability",
            ComponentKind::Item => "item",
        }
    }
}

impl fmt::Display for ComponentKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A typed id of any component (a finding's subject). Displays as the bare id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ComponentId {
    /// A site.
    Site(SiteId),
    /// A host.
    Host(HostId),
    /// A guest.
    Guest(GuestId),
    /// A Proxmox cluster.
    ProxmoxCluster(ProxmoxClusterId),
    /// A LINSTOR pool.
    LinstorPool(LinstorPoolId),
    /// A K3s cluster.
    K3sCluster(K3sClusterId),
    /// An ArgoCD.
    ArgoCd(ArgoCdId),
    /// A PBS.
    Pbs(PbsId),
    /// A router.
    Router(RouterId),
    /// A Traefik.
    Traefik(TraefikId),
    /// A link.
    Link(LinkId),
    /// A pattern.
    Pattern(PatternId),
    /// A capability.
    Capability(CapabilityId),
    /// An item.
    Item(ItemId),
}

impl ComponentId {
    /// The kind of component.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentId::Site(_) => ComponentKind::Site,
            ComponentId::Host(_) => ComponentKind::Host,
            ComponentId::Guest(_) => ComponentKind::Guest,
            ComponentId::ProxmoxCluster(_) => ComponentKind::ProxmoxCluster,
            ComponentId::LinstorPool(_) => ComponentKind::LinstorPool,
            ComponentId::K3sCluster(_) => ComponentKind::K3sCluster,
            ComponentId::ArgoCd(_) => ComponentKind::ArgoCd,
            ComponentId::Pbs(_) => ComponentKind::Pbs,
            ComponentId::Router(_) => ComponentKind::Router,
            ComponentId::Traefik(_) => ComponentKind::Traefik,
            ComponentId::Link(_) => ComponentKind::Link,
            ComponentId::Pattern(_) => ComponentKind::Pattern,
            ComponentId::Capability(_) => ComponentKind::Capability,
            ComponentId::Item(_) => ComponentKind::Item,
        }
    }

    /// The bare id.
    pub fn as_str(&self) -> &str {
        match self {
            ComponentId::Site(i) => i.as_str(),
            ComponentId::Host(i) => i.as_str(),
            ComponentId::Guest(i) => i.as_str(),
            ComponentId::ProxmoxCluster(i) => i.as_str(),
            ComponentId::LinstorPool(i) => i.as_str(),
            ComponentId::K3sCluster(i) => i.as_str(),
            ComponentId::ArgoCd(i) => i.as_str(),
            ComponentId::Pbs(i) => i.as_str(),
            ComponentId::Router(i) => i.as_str(),
            ComponentId::Traefik(i) => i.as_str(),
            ComponentId::Link(i) => i.as_str(),
            ComponentId::Pattern(i) => i.as_str(),
            ComponentId::Capability(i) => i.as_str(),
            ComponentId::Item(i) => i.as_str(),
        }
    }
}

impl fmt::Display for ComponentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A borrowed component of any kind.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ComponentRef<'a> {
    /// A site.
    Site(&'a Site),
    /// A host.
    Host(&'a Host),
    /// A guest.
    Guest(&'a Guest),
    /// A Proxmox cluster.
    ProxmoxCluster(&'a ProxmoxCluster),
    /// A LINSTOR pool.
    LinstorPool(&'a LinstorPool),
    /// A K3s cluster.
    K3sCluster(&'a K3sCluster),
    /// An ArgoCD.
    ArgoCd(&'a ArgoCd),
    /// A PBS.
    Pbs(&'a Pbs),
    /// A router.
    Router(&'a Router),
    /// A Traefik.
    Traefik(&'a Traefik),
    /// A link.
    Link(&'a Link),
    /// A pattern.
    Pattern(&'a Pattern),
    /// A capability.
    Capability(&'a Capability),
    /// An item.
    Item(&'a Item),
}

impl<'a> ComponentRef<'a> {
    /// Its state, note, use case and locations.
    pub fn meta(&self) -> &'a Meta {
        match *self {
            ComponentRef::Site(c) => &c.meta,
            ComponentRef::Host(c) => &c.meta,
            ComponentRef::Guest(c) => &c.meta,
            ComponentRef::ProxmoxCluster(c) => &c.meta,
            ComponentRef::LinstorPool(c) => &c.meta,
            ComponentRef::K3sCluster(c) => &c.meta,
            ComponentRef::ArgoCd(c) => &c.meta,
            ComponentRef::Pbs(c) => &c.meta,
            ComponentRef::Router(c) => &c.meta,
            ComponentRef::Traefik(c) => &c.meta,
            ComponentRef::Link(c) => &c.meta,
            ComponentRef::Pattern(c) => &c.meta,
            ComponentRef::Capability(c) => &c.meta,
            ComponentRef::Item(c) => &c.meta,
        }
    }

    /// Its typed id.
    pub fn id(&self) -> ComponentId {
        match *self {
            ComponentRef::Site(c) => ComponentId::Site(c.id.clone()),
            ComponentRef::Host(c) => ComponentId::Host(c.id.clone()),
            ComponentRef::Guest(c) => ComponentId::Guest(c.id.clone()),
            ComponentRef::ProxmoxCluster(c) => ComponentId::ProxmoxCluster(c.id.clone()),
            ComponentRef::LinstorPool(c) => ComponentId::LinstorPool(c.id.clone()),
            ComponentRef::K3sCluster(c) => ComponentId::K3sCluster(c.id.clone()),
            ComponentRef::ArgoCd(c) => ComponentId::ArgoCd(c.id.clone()),
            ComponentRef::Pbs(c) => ComponentId::Pbs(c.id.clone()),
            ComponentRef::Router(c) => ComponentId::Router(c.id.clone()),
            ComponentRef::Traefik(c) => ComponentId::Traefik(c.id.clone()),
            ComponentRef::Link(c) => ComponentId::Link(c.id.clone()),
            ComponentRef::Pattern(c) => ComponentId::Pattern(c.id.clone()),
            ComponentRef::Capability(c) => ComponentId::Capability(c.id.clone()),
            ComponentRef::Item(c) => ComponentId::Item(c.id.clone()),
        }
    }

    /// The bare id, without cloning.
    pub fn id_str(&self) -> &'a str {
        match *self {
            ComponentRef::Site(c) => c.id.as_str(),
            ComponentRef::Host(c) => c.id.as_str(),
            ComponentRef::Guest(c) => c.id.as_str(),
            ComponentRef::ProxmoxCluster(c) => c.id.as_str(),
            ComponentRef::LinstorPool(c) => c.id.as_str(),
            ComponentRef::K3sCluster(c) => c.id.as_str(),
            ComponentRef::ArgoCd(c) => c.id.as_str(),
            ComponentRef::Pbs(c) => c.id.as_str(),
            ComponentRef::Router(c) => c.id.as_str(),
            ComponentRef::Traefik(c) => c.id.as_str(),
            ComponentRef::Link(c) => c.id.as_str(),
            ComponentRef::Pattern(c) => c.id.as_str(),
            ComponentRef::Capability(c) => c.id.as_str(),
            ComponentRef::Item(c) => c.id.as_str(),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentRef::Site(_) => ComponentKind::Site,
            ComponentRef::Host(_) => ComponentKind::Host,
            ComponentRef::Guest(_) => ComponentKind::Guest,
            ComponentRef::ProxmoxCluster(_) => ComponentKind::ProxmoxCluster,
            ComponentRef::LinstorPool(_) => ComponentKind::LinstorPool,
            ComponentRef::K3sCluster(_) => ComponentKind::K3sCluster,
            ComponentRef::ArgoCd(_) => ComponentKind::ArgoCd,
            ComponentRef::Pbs(_) => ComponentKind::Pbs,
            ComponentRef::Router(_) => ComponentKind::Router,
            ComponentRef::Traefik(_) => ComponentKind::Traefik,
            ComponentRef::Link(_) => ComponentKind::Link,
            ComponentRef::Pattern(_) => ComponentKind::Pattern,
            ComponentRef::Capability(_) => ComponentKind::Capability,
            ComponentRef::Item(_) => ComponentKind::Item,
        }
    }
}

/// Where a source file came from, for diagnostics and reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file name as given (`topology/cpps.yaml`).
    pub name: String,
    /// The full text.
    pub text: Arc<str>,
}

/// How many components are in each state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateCounts {
    /// `validated`.
    pub validated: usize,
    /// `declared`.
    pub declared: usize,
    /// `desired`.
    pub desired: usize,
}

impl StateCounts {
    /// Total.
    pub fn total(&self) -> usize {
        self.validated + self.declared + self.desired
    }
}

/// The whole infrastructure.
///
/// The `Vec`s are public so rules iterate them and tests mutate them; after changing an id or
/// adding/removing a component call [`Topology::reindex`] so lookups see it (changing any other
/// field needs no reindex).
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// The file format version (`version: 1`).
    pub version: u32,
    /// A name for the infrastructure.
    pub name: Option<String>,
    /// The default RPO for validated guests (BACKUP-003).
    pub rpo: Option<Rpo>,
    /// Sites.
    pub sites: Vec<Site>,
    /// Hardware tiers.
    pub tiers: Vec<HardwareTier>,
    /// Proxmox hosts.
    pub hosts: Vec<Host>,
    /// VMs and LXCs.
    pub guests: Vec<Guest>,
    /// Proxmox clusters.
    pub proxmox_clusters: Vec<ProxmoxCluster>,
    /// LINSTOR pools.
    pub linstor_pools: Vec<LinstorPool>,
    /// K3s clusters.
    pub k3s_clusters: Vec<K3sCluster>,
    /// ArgoCD instances.
    pub argocd: Vec<ArgoCd>,
    /// PBS servers.
    pub pbs: Vec<Pbs>,
    /// VyOS routers.
    pub routers: Vec<Router>,
    /// Traefik instances.
    pub traefik: Vec<Traefik>,
    /// Cross-site links.
    pub links: Vec<Link>,
    /// Multi-cluster patterns.
    pub patterns: Vec<Pattern>,
    /// Cross-cutting capabilities.
    pub capabilities: Vec<Capability>,
    /// Other labelled facts.
    pub items: Vec<Item>,
    /// Suppressions of findings.
    pub suppressions: Vec<Suppression>,
    /// The file it was loaded from, if any.
    pub source: Option<Source>,
    index: Index,
}

#[derive(Clone, Debug, Default)]
struct Index {
    sites: HashMap<SiteId, usize>,
    tiers: HashMap<TierId, usize>,
    hosts: HashMap<HostId, usize>,
    guests: HashMap<GuestId, usize>,
    proxmox_clusters: HashMap<ProxmoxClusterId, usize>,
    linstor_pools: HashMap<LinstorPoolId, usize>,
    k3s_clusters: HashMap<K3sClusterId, usize>,
    argocd: HashMap<ArgoCdId, usize>,
    pbs: HashMap<PbsId, usize>,
    routers: HashMap<RouterId, usize>,
    traefik: HashMap<TraefikId, usize>,
    links: HashMap<LinkId, usize>,
    patterns: HashMap<PatternId, usize>,
    capabilities: HashMap<CapabilityId, usize>,
    items: HashMap<ItemId, usize>,
    guests_by_host: HashMap<HostId, Vec<usize>>,
    hosts_by_site: HashMap<SiteId, Vec<usize>>,
    hosts_by_cluster: HashMap<ProxmoxClusterId, Vec<usize>>,
    cluster_of_guest: HashMap<GuestId, usize>,
}

fn index_of<K: std::hash::Hash + Eq + Clone, T>(
    items: &[T],
    key: impl Fn(&T) -> &K,
) -> HashMap<K, usize> {
    let mut map = HashMap::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        map.entry(key(item).clone()).or_insert(i);
    }
    map
}

macro_rules! lookup {
    ($(#[$doc:meta])* $fn:ident, $field:ident, $id:ty, $ty:ty) => {
        $(#[$doc])*
        pub fn $fn(&self, id: &$id) -> Option<&$ty> {
            self.index.$field.get(id).and_then(|&i| self.$field.get(i))
        }
    };
}

impl Topology {
    /// An empty topology (format version 1).
    pub fn new() -> Self {
        Topology {
            version: 1,
            ..Topology::default()
        }
    }

    /// Rebuilds the lookup maps. O(n). When two components share an id the first one wins
    /// (the loader rejects duplicates before this matters).
    pub fn reindex(&mut self) {
        let mut ix = Index {
            sites: index_of(&self.sites, |c| &c.id),
            tiers: index_of(&self.tiers, |c| &c.id),
            hosts: index_of(&self.hosts, |c| &c.id),
            guests: index_of(&self.guests, |c| &c.id),
            proxmox_clusters: index_of(&self.proxmox_clusters, |c| &c.id),
            linstor_pools: index_of(&self.linstor_pools, |c| &c.id),
            k3s_clusters: index_of(&self.k3s_clusters, |c| &c.id),
            argocd: index_of(&self.argocd, |c| &c.id),
            pbs: index_of(&self.pbs, |c| &c.id),
            routers: index_of(&self.routers, |c| &c.id),
            traefik: index_of(&self.traefik, |c| &c.id),
            links: index_of(&self.links, |c| &c.id),
            patterns: index_of(&self.patterns, |c| &c.id),
            capabilities: index_of(&self.capabilities, |c| &c.id),
            items: index_of(&self.items, |c| &c.id),
            ..Index::default()
        };
        for (i, g) in self.guests.iter().enumerate() {
            ix.guests_by_host.entry(g.host.clone()).or_default().push(i);
        }
        for (i, h) in self.hosts.iter().enumerate() {
            ix.hosts_by_site.entry(h.site.clone()).or_default().push(i);
            if let Some(c) = &h.proxmox_cluster {
                ix.hosts_by_cluster.entry(c.clone()).or_default().push(i);
            }
        }
        for (i, c) in self.k3s_clusters.iter().enumerate() {
            for n in &c.nodes {
                ix.cluster_of_guest.entry(n.clone()).or_insert(i);
            }
        }
        self.index = ix;
    }

    lookup!(
        /// The site with this id.
        site, sites, SiteId, Site
    );
    lookup!(
        /// The hardware tier with this id.
        tier, tiers, TierId, HardwareTier
    );
    lookup!(
        /// The host with this id.
        host, hosts, HostId, Host
    );
    lookup!(
        /// The guest with this id.
        guest, guests, GuestId, Guest
    );
    lookup!(
        /// The Proxmox cluster with this id.
        proxmox_cluster, proxmox_clusters, ProxmoxClusterId, ProxmoxCluster
    );
    lookup!(
        /// The LINSTOR pool with this id.
        linstor_pool, linstor_pools, LinstorPoolId, LinstorPool
    );
    lookup!(
        /// The K3s cluster with this id.
        k3s_cluster, k3s_clusters, K3sClusterId, K3sCluster
    );
    lookup!(
        /// The ArgoCD with this id.
        argocd_instance, argocd, ArgoCdId, ArgoCd
    );
    lookup!(
        /// The PBS with this id.
        pbs_server, pbs, PbsId, Pbs
    );
    lookup!(
        /// The router with this id.
        router, routers, RouterId, Router
    );
    lookup!(
        /// The Traefik with this id.
        traefik_instance, traefik, TraefikId, Traefik
    );
    lookup!(
        /// The link with this id.
        link, links, LinkId, Link
    );
    lookup!(
        /// The pattern with this id.
        pattern, patterns, PatternId, Pattern
    );
    lookup!(
        /// The capability with this id.
        capability, capabilities, CapabilityId, Capability
    );
    lookup!(
        /// The item with this id.
        item, items, ItemId, Item
    );

    /// The guests on a host, in file order.
    pub fn guests_on<'a>(&'a self, host: &HostId) -> impl Iterator<Item = &'a Guest> + 'a {
        self.index
            .guests_by_host
            .get(host)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&i| self.guests.get(i))
    }

    /// The hosts of a site, in file order.
    pub fn hosts_in<'a>(&'a self, site: &SiteId) -> impl Iterator<Item = &'a Host> + 'a {
        self.index
            .hosts_by_site
            .get(site)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&i| self.hosts.get(i))
    }

    /// The hosts of a Proxmox cluster, in file order.
    pub fn hosts_of_cluster<'a>(
        &'a self,
        cluster: &ProxmoxClusterId,
    ) -> impl Iterator<Item = &'a Host> + 'a {
        self.index
            .hosts_by_cluster
            .get(cluster)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&i| self.hosts.get(i))
    }

    /// The (first) K3s cluster that lists this guest as a node.
    pub fn cluster_of_guest(&self, guest: &GuestId) -> Option<&K3sCluster> {
        self.index
            .cluster_of_guest
            .get(guest)
            .and_then(|&i| self.k3s_clusters.get(i))
    }

    /// The site of a guest (through its host).
    pub fn site_of_guest(&self, guest: &Guest) -> Option<&SiteId> {
        self.host(&guest.host).map(|h| &h.site)
    }

    /// The site a component belongs to: its `site` field, or its host's site for a guest,
    /// `None` for links, patterns and site-less capabilities and items.
    pub fn site_of(&self, c: ComponentRef<'_>) -> Option<SiteId> {
        match c {
            ComponentRef::Site(s) => Some(s.id.clone()),
            ComponentRef::Host(h) => Some(h.site.clone()),
            ComponentRef::Guest(g) => self.site_of_guest(g).cloned(),
            ComponentRef::ProxmoxCluster(p) => Some(p.site.clone()),
            ComponentRef::LinstorPool(p) => Some(p.site.clone()),
            ComponentRef::K3sCluster(k) => Some(k.site.clone()),
            ComponentRef::ArgoCd(a) => Some(a.site.clone()),
            ComponentRef::Pbs(p) => Some(p.site.clone()),
            ComponentRef::Router(r) => Some(r.site.clone()),
            ComponentRef::Traefik(t) => Some(t.site.clone()),
            ComponentRef::Capability(c) => c.site.clone(),
            ComponentRef::Item(i) => i.site.clone(),
            ComponentRef::Link(_) | ComponentRef::Pattern(_) => None,
        }
    }

    /// Every component, kind by kind in the order of the fields, each in file order.
    pub fn components(&self) -> impl Iterator<Item = ComponentRef<'_>> + '_ {
        let it = self.sites.iter().map(ComponentRef::Site);
        let it = it.chain(self.hosts.iter().map(ComponentRef::Host));
        let it = it.chain(self.guests.iter().map(ComponentRef::Guest));
        let it = it.chain(
            self.proxmox_clusters
                .iter()
                .map(ComponentRef::ProxmoxCluster),
        );
        let it = it.chain(self.linstor_pools.iter().map(ComponentRef::LinstorPool));
        let it = it.chain(self.k3s_clusters.iter().map(ComponentRef::K3sCluster));
        let it = it.chain(self.argocd.iter().map(ComponentRef::ArgoCd));
        let it = it.chain(self.pbs.iter().map(ComponentRef::Pbs));
        let it = it.chain(self.routers.iter().map(ComponentRef::Router));
        let it = it.chain(self.traefik.iter().map(ComponentRef::Traefik));
        let it = it.chain(self.links.iter().map(ComponentRef::Link));
        let it = it.chain(self.patterns.iter().map(ComponentRef::Pattern));
        let it = it.chain(self.capabilities.iter().map(ComponentRef::Capability));
        it.chain(self.items.iter().map(ComponentRef::Item))
    }

    /// The component with this bare id, of any kind.
    pub fn component(&self, id: &str) -> Option<ComponentRef<'_>> {
        let ix = &self.index;
        macro_rules! try_kind {
            ($field:ident, $variant:ident) => {
                if let Some(&i) = ix.$field.get(id) {
                    if let Some(c) = self.$field.get(i) {
                        return Some(ComponentRef::$variant(c));
                    }
                }
            };
        }
        try_kind!(sites, Site);
        try_kind!(hosts, Host);
        try_kind!(guests, Guest);
        try_kind!(proxmox_clusters, ProxmoxCluster);
        try_kind!(linstor_pools, LinstorPool);
        try_kind!(k3s_clusters, K3sCluster);
        try_kind!(argocd, ArgoCd);
        try_kind!(pbs, Pbs);
        try_kind!(routers, Router);
        try_kind!(traefik, Traefik);
        try_kind!(links, Link);
        try_kind!(patterns, Pattern);
        try_kind!(capabilities, Capability);
        try_kind!(items, Item);
        None
    }

    /// Number of components in each state.
    pub fn state_counts(&self) -> StateCounts {
        let mut counts = StateCounts::default();
        for c in self.components() {
            match c.meta().state {
                State::Validated => counts.validated += 1,
                State::Declared => counts.declared += 1,
                State::Desired => counts.desired += 1,
            }
        }
        counts
    }

    /// The RPO that applies to a guest: its own, else the file's.
    pub fn rpo_of(&self, guest: &Guest) -> Option<Rpo> {
        guest.rpo.or(self.rpo)
    }
}
