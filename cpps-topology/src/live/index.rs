//! The declared components the live rules look up by what a source reports, built once per
//! audit. Each system's lookups into its own facts are in its folder (`pve/index.rs`, …): `diff`
//! and the live rules never search a list inside a loop over components (the "no quadratic
//! rule" invariant, for the live half).

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashMapExt};

use crate::live::linstor::index::pool_key;
use crate::model::{ArgoCd, ComponentRef, K3sClusterId, LinstorPool, SiteId, Topology};

/// The declared components the live checks look up by what a source reports: a site by its id,
/// a LINSTOR pool by the storage pool it names, a K3s cluster by id, the ArgoCD running in a
/// cluster. Built once per audit.
#[derive(Debug)]
pub(crate) struct DeclaredIndex<'t> {
    topo: &'t Topology,
    /// `(site, storage pool name)` → the pool, the name as [`pool_key`] keys it: LINSTOR's
    /// names are case-insensitive.
    pools_by_storage_name: HashMap<(&'t str, String), &'t LinstorPool>,
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
                .entry((pool.site.as_str(), pool_key(name)))
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
        self.pools_by_storage_name
            .get(&(site, pool_key(name)))
            .copied()
    }

    /// The ArgoCD that runs in cluster `id`.
    pub(crate) fn argocd_in(&self, id: &str) -> Option<&'t ArgoCd> {
        self.argocd_by_cluster.get(id).copied()
    }
}
