//! Lookups into one site's observed facts, built once per site, so that matching declared
//! components with what a source reports costs O(1) per component: `diff` and the live rules
//! never search a list of facts inside a loop over components (the "no quadratic rule"
//! invariant, for the live half).
//!
//! The facts themselves stay lists in the order the servers answered (that is what reports and
//! the exporter show); these indexes borrow them.

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashMapExt, HashSet};

use super::facts::{
    GuestBackupFact, KubeFacts, LinstorFacts, PbsFacts, PveFacts, PveGuest, PveNode,
};
use crate::model::{ArgoCd, ComponentRef, K3sClusterId, LinstorPool, SiteId, Topology};

/// A site's Proxmox facts by name.
#[derive(Debug, Default)]
pub(crate) struct PveIndex<'a> {
    nodes: HashMap<&'a str, &'a PveNode>,
    guests: HashMap<&'a str, &'a PveGuest>,
}

impl<'a> PveIndex<'a> {
    pub(crate) fn new(facts: &'a PveFacts) -> Self {
        let mut index = Self {
            nodes: HashMap::with_capacity(facts.nodes.len()),
            guests: HashMap::with_capacity(facts.guests.len()),
        };
        for node in &facts.nodes {
            index.nodes.entry(node.name.as_str()).or_insert(node);
        }
        // Names are not unique in Proxmox; the first guest of a name, in the API's order, is the
        // one a declared guest of that name designates.
        for guest in &facts.guests {
            if let Some(name) = guest.name.as_deref() {
                index.guests.entry(name).or_insert(guest);
            }
        }
        index
    }

    /// The Proxmox node of this name.
    pub(crate) fn node(&self, name: &str) -> Option<&'a PveNode> {
        self.nodes.get(name).copied()
    }

    /// The Proxmox guest a declared guest (or Traefik) name designates.
    pub(crate) fn guest(&self, name: &str) -> Option<&'a PveGuest> {
        self.guests.get(name).copied()
    }
}

/// A site's LINSTOR facts by storage pool.
#[derive(Debug, Default)]
pub(crate) struct LinstorIndex<'a> {
    /// The nodes each storage pool is on.
    pool_nodes: HashMap<&'a str, HashSet<&'a str>>,
    /// The `place_count`s of the resource groups on each storage pool.
    group_counts: HashMap<&'a str, Vec<i64>>,
}

impl<'a> LinstorIndex<'a> {
    pub(crate) fn new(facts: &'a LinstorFacts) -> Self {
        let mut index = Self::default();
        for pool in &facts.storage_pools {
            index
                .pool_nodes
                .entry(pool.name.as_str())
                .or_default()
                .insert(pool.node.as_str());
        }
        for group in &facts.groups {
            if let (Some(pool), Some(count)) = (group.storage_pool.as_deref(), group.place_count) {
                index.group_counts.entry(pool).or_default().push(count);
            }
        }
        index
    }

    /// The nodes storage pool `name` is on (empty when no node has it).
    pub(crate) fn pool_nodes(&self, name: &str) -> Option<&HashSet<&'a str>> {
        self.pool_nodes.get(name)
    }

    /// The `place_count`s of the resource groups on storage pool `name`.
    pub(crate) fn group_counts(&self, name: &str) -> &[i64] {
        self.group_counts.get(name).map_or(&[], Vec::as_slice)
    }
}

/// A site's PBS backups by backup id (the VM id), and its datastores.
#[derive(Debug, Default)]
pub(crate) struct PbsIndex<'a> {
    backups: HashMap<&'a str, Vec<&'a GuestBackupFact>>,
    datastores: HashSet<&'a str>,
}

impl<'a> PbsIndex<'a> {
    pub(crate) fn new(facts: &'a PbsFacts) -> Self {
        let mut index = Self::default();
        for backup in &facts.backups {
            index
                .backups
                .entry(backup.backup_id.as_str())
                .or_default()
                .push(backup);
        }
        index.datastores = facts.datastores.iter().map(String::as_str).collect();
        index
    }

    /// The backups of guest `backup_id`, one per datastore and namespace.
    pub(crate) fn backups(&self, backup_id: &str) -> &[&'a GuestBackupFact] {
        self.backups.get(backup_id).map_or(&[], Vec::as_slice)
    }

    /// Whether the server has datastore `name`.
    pub(crate) fn has_datastore(&self, name: &str) -> bool {
        self.datastores.contains(name)
    }
}

/// The node names a Kubernetes cluster reports.
pub(crate) fn kube_nodes(facts: &KubeFacts) -> HashSet<&str> {
    facts.nodes.iter().map(String::as_str).collect()
}

/// The declared components the live checks look up by what a source reports: a site by its id,
/// a LINSTOR pool by the storage pool it names, a K3s cluster by id, the ArgoCD running in a
/// cluster. Built once per audit.
#[derive(Debug)]
pub(crate) struct DeclaredIndex<'t> {
    topo: &'t Topology,
    /// `(site, storage pool name)` → the pool.
    pools_by_storage_name: HashMap<(&'t str, &'t str), &'t LinstorPool>,
    /// The ArgoCD instances by the cluster they run in (the first one of each).
    argocd_by_cluster: HashMap<&'t str, &'t ArgoCd>,
}

impl<'t> DeclaredIndex<'t> {
    pub(crate) fn new(topo: &'t Topology) -> Self {
        let mut index = Self {
            topo,
            pools_by_storage_name: HashMap::with_capacity(topo.linstor_pools().len()),
            argocd_by_cluster: HashMap::with_capacity(topo.argocd().len()),
        };
        for pool in topo.linstor_pools() {
            let name = pool.storage_pool.as_deref().unwrap_or(pool.id.as_str());
            index
                .pools_by_storage_name
                .entry((pool.site.as_str(), name))
                .or_insert(pool);
        }
        for argocd in topo.argocd() {
            if let Some(cluster) = &argocd.runs_in {
                index
                    .argocd_by_cluster
                    .entry(cluster.as_str())
                    .or_insert(argocd);
            }
        }
        index
    }

    /// The site with this id, as a component.
    pub(crate) fn site(&self, id: &str) -> Option<ComponentRef<'t>> {
        let id: SiteId = id.parse().ok()?;
        self.topo.site(&id).map(ComponentRef::Site)
    }

    /// The K3s cluster with this id.
    pub(crate) fn k3s_cluster(&self, id: &str) -> Option<&'t crate::model::K3sCluster> {
        let id: K3sClusterId = id.parse().ok()?;
        self.topo.k3s_cluster(&id)
    }

    /// The host with this id.
    pub(crate) fn host(&self, id: &str) -> Option<&'t crate::model::Host> {
        self.topo.host(&id.parse().ok()?)
    }

    /// The pool of `site` whose storage pool (or id) is `name`.
    pub(crate) fn pool_named(&self, site: &str, name: &str) -> Option<&'t LinstorPool> {
        self.pools_by_storage_name.get(&(site, name)).copied()
    }

    /// The ArgoCD that runs in cluster `id`.
    pub(crate) fn argocd_in(&self, id: &str) -> Option<&'t ArgoCd> {
        self.argocd_by_cluster.get(id).copied()
    }
}
