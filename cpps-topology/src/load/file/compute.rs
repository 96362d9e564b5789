//! File types of the compute domain: hardware tiers, sites, Proxmox clusters, hosts, guests.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{At, FileState};
use crate::model::{GuestKind, LinstorRole};

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

component_file! {
    /// A site.
    #[schemars(rename = "Site")]
    struct SiteFile {
        /// Human name.
        #[serde(default)]
        pub(crate) name: Option<String>,
    }
}

component_file! {
    /// A Proxmox cluster.
    #[schemars(rename = "ProxmoxCluster")]
    struct ProxmoxClusterFile {
        /// Its site.
        pub(crate) site: At<String>,
    }
}

/// GPUs of one model.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Gpu")]
pub(crate) struct GpuFile {
    /// Model (`A5000`).
    pub(crate) model: At<String>,
    /// How many (at least 1); left out when not known.
    #[serde(default)]
    pub(crate) count: Option<At<u32>>,
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

component_file! {
    /// A Proxmox node (its id is the node name).
    #[schemars(rename = "Host")]
    struct HostFile {
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
    }
}

component_file! {
    /// A VM or LXC.
    #[schemars(rename = "Guest")]
    // `gpu`, which few guests have, is boxed: a large file is mostly guests, and each guest's
    // file form is held until the guests are converted (112 bytes fewer each).
    struct GuestFile {
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
        pub(crate) gpu: Option<Box<At<GpuFile>>>,
        /// The LINSTOR pool holding its disks.
        #[serde(default)]
        pub(crate) storage: Option<At<String>>,
        /// The PBS that backs it up.
        #[serde(default)]
        pub(crate) backup: Option<At<String>>,
        /// Its RPO (`24h`).
        #[serde(default)]
        pub(crate) rpo: Option<At<String>>,
    }
}
