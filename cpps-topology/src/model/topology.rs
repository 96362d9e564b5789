//! The whole infrastructure and its lookup indexes.

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt};
use std::sync::Arc;

use super::*;

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

/// The component lists of a [`Topology`], in file order: what a topology is built from
/// ([`Topology::from_parts`]) and what [`Topology::edit`] hands out to change one.
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct Parts {
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
    /// The documents' pending items (not components).
    pub pending: Vec<PendingItem>,
    /// The alternatives the decision table rejects (not components).
    pub rejected: Vec<RejectedAlternative>,
    /// Facts the two documents state differently (not components).
    pub contradictions: Vec<Contradiction>,
}

/// The whole infrastructure.
///
/// The component lists are private and read through accessors ([`Topology::hosts`], …); they
/// change only through [`Topology::edit`], which rebuilds the lookup indexes when the change is
/// done, so a lookup never sees a stale index.
#[derive(Clone, Debug, Default)]
pub struct Topology {
    /// The file format version (`version: 1`).
    pub version: u32,
    /// A name for the infrastructure.
    pub name: Option<String>,
    /// The default RPO for validated guests (BACKUP-003).
    pub rpo: Option<Rpo>,
    /// The file it was loaded from, if any.
    pub source: Option<Source>,
    parts: Parts,
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
            self.index.$field.get(id).and_then(|&i| self.parts.$field.get(i))
        }
    };
}

macro_rules! accessors {
    ($($(#[$doc:meta])* $field:ident: $ty:ty;)*) => {
        $(
            $(#[$doc])*
            pub fn $field(&self) -> &[$ty] {
                &self.parts.$field
            }
        )*
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

    /// A topology of these components (format version 1), indexed.
    pub fn from_parts(parts: Parts) -> Self {
        let mut topology = Topology {
            parts,
            ..Topology::new()
        };
        topology.reindex();
        topology
    }

    /// Changes the components through `change`, then rebuilds the lookup indexes (O(n)), so
    /// that no lookup sees the topology as it was before.
    pub fn edit<R>(&mut self, change: impl FnOnce(&mut Parts) -> R) -> R {
        let result = change(&mut self.parts);
        self.reindex();
        result
    }

    /// The component lists.
    pub fn parts(&self) -> &Parts {
        &self.parts
    }

    /// The component lists, without the indexes.
    pub fn into_parts(self) -> Parts {
        self.parts
    }

    accessors! {
        /// Sites.
        sites: Site;
        /// Hardware tiers.
        tiers: HardwareTier;
        /// Proxmox hosts.
        hosts: Host;
        /// VMs and LXCs.
        guests: Guest;
        /// Proxmox clusters.
        proxmox_clusters: ProxmoxCluster;
        /// LINSTOR pools.
        linstor_pools: LinstorPool;
        /// K3s clusters.
        k3s_clusters: K3sCluster;
        /// ArgoCD instances.
        argocd: ArgoCd;
        /// PBS servers.
        pbs: Pbs;
        /// VyOS routers.
        routers: Router;
        /// Traefik instances.
        traefik: Traefik;
        /// Cross-site links.
        links: Link;
        /// Multi-cluster patterns.
        patterns: Pattern;
        /// Cross-cutting capabilities.
        capabilities: Capability;
        /// Other labelled facts.
        items: Item;
        /// Suppressions of findings.
        suppressions: Suppression;
        /// The documents' pending items.
        pending: PendingItem;
        /// The alternatives the decision table rejects.
        rejected: RejectedAlternative;
        /// Facts the two documents state differently.
        contradictions: Contradiction;
    }

    /// Rebuilds the lookup maps. O(n). When two components share an id the first one wins
    /// (the loader rejects duplicates before this matters).
    fn reindex(&mut self) {
        let mut ix = Index {
            sites: index_of(&self.parts.sites, |c| &c.id),
            tiers: index_of(&self.parts.tiers, |c| &c.id),
            hosts: index_of(&self.parts.hosts, |c| &c.id),
            guests: index_of(&self.parts.guests, |c| &c.id),
            proxmox_clusters: index_of(&self.parts.proxmox_clusters, |c| &c.id),
            linstor_pools: index_of(&self.parts.linstor_pools, |c| &c.id),
            k3s_clusters: index_of(&self.parts.k3s_clusters, |c| &c.id),
            argocd: index_of(&self.parts.argocd, |c| &c.id),
            pbs: index_of(&self.parts.pbs, |c| &c.id),
            routers: index_of(&self.parts.routers, |c| &c.id),
            traefik: index_of(&self.parts.traefik, |c| &c.id),
            links: index_of(&self.parts.links, |c| &c.id),
            patterns: index_of(&self.parts.patterns, |c| &c.id),
            capabilities: index_of(&self.parts.capabilities, |c| &c.id),
            items: index_of(&self.parts.items, |c| &c.id),
            ..Index::default()
        };
        for (i, g) in self.parts.guests.iter().enumerate() {
            ix.guests_by_host.entry(g.host.clone()).or_default().push(i);
        }
        for (i, h) in self.parts.hosts.iter().enumerate() {
            ix.hosts_by_site.entry(h.site.clone()).or_default().push(i);
            if let Some(c) = &h.proxmox_cluster {
                ix.hosts_by_cluster.entry(c.clone()).or_default().push(i);
            }
        }
        for (i, c) in self.parts.k3s_clusters.iter().enumerate() {
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
            .filter_map(|&i| self.parts.guests.get(i))
    }

    /// The hosts of a site, in file order.
    pub fn hosts_in<'a>(&'a self, site: &SiteId) -> impl Iterator<Item = &'a Host> + 'a {
        self.index
            .hosts_by_site
            .get(site)
            .map(Vec::as_slice)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&i| self.parts.hosts.get(i))
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
            .filter_map(|&i| self.parts.hosts.get(i))
    }

    /// The (first) K3s cluster that lists this guest as a node.
    pub fn cluster_of_guest(&self, guest: &GuestId) -> Option<&K3sCluster> {
        self.index
            .cluster_of_guest
            .get(guest)
            .and_then(|&i| self.parts.k3s_clusters.get(i))
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
        let it = self.parts.sites.iter().map(ComponentRef::Site);
        let it = it.chain(self.parts.hosts.iter().map(ComponentRef::Host));
        let it = it.chain(self.parts.guests.iter().map(ComponentRef::Guest));
        let it = it.chain(
            self.parts
                .proxmox_clusters
                .iter()
                .map(ComponentRef::ProxmoxCluster),
        );
        let it = it.chain(
            self.parts
                .linstor_pools
                .iter()
                .map(ComponentRef::LinstorPool),
        );
        let it = it.chain(self.parts.k3s_clusters.iter().map(ComponentRef::K3sCluster));
        let it = it.chain(self.parts.argocd.iter().map(ComponentRef::ArgoCd));
        let it = it.chain(self.parts.pbs.iter().map(ComponentRef::Pbs));
        let it = it.chain(self.parts.routers.iter().map(ComponentRef::Router));
        let it = it.chain(self.parts.traefik.iter().map(ComponentRef::Traefik));
        let it = it.chain(self.parts.links.iter().map(ComponentRef::Link));
        let it = it.chain(self.parts.patterns.iter().map(ComponentRef::Pattern));
        let it = it.chain(self.parts.capabilities.iter().map(ComponentRef::Capability));
        it.chain(self.parts.items.iter().map(ComponentRef::Item))
    }

    /// The component with this bare id, of any kind.
    pub fn component(&self, id: &str) -> Option<ComponentRef<'_>> {
        let ix = &self.index;
        macro_rules! try_kind {
            ($field:ident, $variant:ident) => {
                if let Some(&i) = ix.$field.get(id) {
                    if let Some(c) = self.parts.$field.get(i) {
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
