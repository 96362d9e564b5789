//! Storage and backup: LINSTOR pools replicated by DRBD, Proxmox Backup Servers.

use std::net::IpAddr;

use super::{GuestId, HostId, LinkId, LinstorPoolId, Meta, PbsId, Rpo, SiteId};

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

impl LinstorController {
    /// Every controller host (the primary first, then the standbys) with the field that names
    /// it (`controller.primary`, `controller.standby[i]`), for findings that point at it.
    pub fn hosts_with_fields(&self) -> impl Iterator<Item = (&HostId, String)> {
        let primary = self
            .primary
            .iter()
            .map(|h| (h, "controller.primary".to_owned()));
        let standby = self
            .standby
            .iter()
            .enumerate()
            .map(|(i, h)| (h, format!("controller.standby[{i}]")));
        primary.chain(standby)
    }
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
    /// DRBD replicas per resource, when the file states it (the documents state it for the SP SSD
    /// pool only; a rule that needs it says "not stated" otherwise). Location:
    /// `meta.at("place_count")`.
    pub place_count: Option<u32>,
    /// Its controller. Location: `meta.at("controller")`.
    pub controller: Option<LinstorController>,
    /// The replicated storage it is (decision table «Storage replicado»), when stated.
    /// Location: `meta.at("backend")`.
    pub backend: Option<super::StorageBackend>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

impl LinstorPool {
    /// Number of diskful nodes.
    pub fn diskful_count(&self) -> usize {
        self.nodes.iter().filter(|n| n.diskful).count()
    }
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
