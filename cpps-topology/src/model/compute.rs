//! Compute: sites, hardware tiers, Proxmox hosts and clusters, guests (VMs and LXCs).

use serde::{Deserialize, Serialize};

use super::{
    GuestId, HostId, LinstorPoolId, Location, Meta, PbsId, ProxmoxClusterId, Rpo, SiteId, State,
    TierId, Version,
};

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
    /// How many (at least 1), when the file states it: the documents name the model per host
    /// ("NVIDIA A5500") without a count, and a GPU written without one is at least one.
    pub count: Option<u32>,
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
    /// Total number of GPUs, when every entry states its count (`None`: not stated; the host
    /// has at least [`Host::gpu_count_at_least`]).
    pub fn gpu_count(&self) -> Option<u32> {
        self.gpus.iter().map(|g| g.count).sum()
    }

    /// The number of GPUs the host has at least: each entry's count, or one where it states none.
    pub fn gpu_count_at_least(&self) -> u32 {
        self.gpus.iter().map(|g| g.count.unwrap_or(1)).sum()
    }

    /// Whether the host has a GPU of `model`.
    pub fn has_gpu_model(&self, model: &str) -> bool {
        self.gpus
            .iter()
            .any(|g| g.count != Some(0) && g.model.eq_ignore_ascii_case(model))
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
    /// The GPU it uses from its host. Location: `meta.at("gpu")`. Boxed: few guests have
    /// one, and a large topology is mostly guests.
    pub gpu: Option<Box<Gpu>>,
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
