//! File types of the storage domain: LINSTOR pools and Proxmox Backup Servers.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{At, FileState};

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

component_file! {
    /// A LINSTOR pool.
    #[schemars(rename = "LinstorPool")]
    struct LinstorPoolFile {
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
        /// DRBD replicas per resource (leave it out when it is not known).
        #[serde(default)]
        pub(crate) place_count: Option<At<u32>>,
        /// Its controller.
        #[serde(default)]
        pub(crate) controller: Option<At<ControllerFile>>,
        /// The replicated storage it is: `linstor_drbd` (decided) or `ceph` (rejected).
        #[serde(default)]
        pub(crate) backend: Option<At<crate::model::StorageBackend>>,
    }
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

component_file! {
    /// A Proxmox Backup Server.
    #[schemars(rename = "Pbs")]
    struct PbsFile {
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
    }
}
