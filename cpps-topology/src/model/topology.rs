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
    /// Where each guest id is first listed as a K3s node: the cluster and the node's field.
    listings: HashMap<GuestId, (usize, usize)>,
    /// The ArgoCD instances that list each K3s cluster id in `manages`, once per entry.
    managers: HashMap<K3sClusterId, Vec<usize>>,
    /// The LINSTOR pools that list each host id among their `nodes`, once per entry.
    pools_by_host: HashMap<HostId, Vec<usize>>,
    state_counts: StateCounts,
}

/// The items at the positions that `by` groups under `key`, in file order (none when `by` has no
/// such group).
fn grouped<'a, K: std::hash::Hash + Eq, T>(
    by: &'a HashMap<K, Vec<usize>>,
    key: &K,
    items: &'a [T],
) -> impl Iterator<Item = &'a T> + 'a {
    by.get(key)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|&i| items.get(i))
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
            match ix.guests_by_host.get_mut(&g.host) {
                Some(guests) => guests.push(i),
                None => {
                    ix.guests_by_host.insert(g.host.clone(), vec![i]);
                }
            }
        }
        for (i, h) in self.parts.hosts.iter().enumerate() {
            ix.hosts_by_site.entry(h.site.clone()).or_default().push(i);
            if let Some(c) = &h.proxmox_cluster {
                ix.hosts_by_cluster.entry(c.clone()).or_default().push(i);
            }
        }
        self.index_references(&mut ix);
        self.index = ix;
        let mut counts = StateCounts::default();
        for c in self.components() {
            match c.meta().state {
                State::Validated => counts.validated += 1,
                State::Declared => counts.declared += 1,
                State::Desired => counts.desired += 1,
            }
        }
        self.index.state_counts = counts;
    }

    /// Fills the maps that follow references backwards (node listings, `manages`, pool nodes),
    /// keeping only the entries that name a component of the topology.
    fn index_references(&self, ix: &mut Index) {
        for (ki, k) in self.parts.k3s_clusters.iter().enumerate() {
            for (i, n) in k.nodes.iter().enumerate() {
                if ix.guests.contains_key(n) && !ix.listings.contains_key(n) {
                    ix.listings.insert(n.clone(), (ki, i));
                }
            }
        }
        for (ai, a) in self.parts.argocd.iter().enumerate() {
            for k in a
                .manages
                .iter()
                .filter(|k| ix.k3s_clusters.contains_key(*k))
            {
                ix.managers.entry(k.clone()).or_default().push(ai);
            }
        }
        for (pi, p) in self.parts.linstor_pools.iter().enumerate() {
            for n in p.nodes.iter().filter(|n| ix.hosts.contains_key(&n.host)) {
                ix.pools_by_host.entry(n.host.clone()).or_default().push(pi);
            }
        }
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
        grouped(&self.index.guests_by_host, host, &self.parts.guests)
    }

    /// The hosts of a site, in file order.
    pub fn hosts_in<'a>(&'a self, site: &SiteId) -> impl Iterator<Item = &'a Host> + 'a {
        grouped(&self.index.hosts_by_site, site, &self.parts.hosts)
    }

    /// The hosts of a Proxmox cluster, in file order.
    pub fn hosts_of_cluster<'a>(
        &'a self,
        cluster: &ProxmoxClusterId,
    ) -> impl Iterator<Item = &'a Host> + 'a {
        grouped(&self.index.hosts_by_cluster, cluster, &self.parts.hosts)
    }

    /// The (first) K3s cluster that lists this guest as a node.
    pub fn cluster_of_guest(&self, guest: &GuestId) -> Option<&K3sCluster> {
        self.listing_of(guest).map(|(k, _)| k)
    }

    /// The host a guest runs on (`host`).
    pub fn host_of(&self, guest: &Guest) -> Option<&Host> {
        self.host(&guest.host)
    }

    /// The LINSTOR pool a guest's disks are on (`storage`).
    pub fn pool_of(&self, guest: &Guest) -> Option<&LinstorPool> {
        self.linstor_pool(guest.storage.as_ref()?)
    }

    /// The PBS a guest is backed up to (`backup`).
    pub fn backup_of(&self, guest: &Guest) -> Option<&Pbs> {
        self.pbs_server(guest.backup.as_ref()?)
    }

    /// The hardware tier of a host (`tier`).
    pub fn tier_of(&self, host: &Host) -> Option<&HardwareTier> {
        self.tier(host.tier.as_ref()?)
    }

    /// The Proxmox cluster a host joins (`proxmox_cluster`).
    pub fn proxmox_cluster_of(&self, host: &Host) -> Option<&ProxmoxCluster> {
        self.proxmox_cluster(host.proxmox_cluster.as_ref()?)
    }

    /// The (first) K3s cluster that lists this guest as a node, with the node's position in
    /// its `nodes` (clusters in file order, then nodes in order).
    pub fn listing_of(&self, guest: &GuestId) -> Option<(&K3sCluster, usize)> {
        let &(ki, i) = self.index.listings.get(guest)?;
        self.parts.k3s_clusters.get(ki).map(|k| (k, i))
    }

    /// The nodes of a K3s cluster that name a guest of the topology, with their position in
    /// its `nodes`, in order.
    pub fn nodes_of<'a>(
        &'a self,
        cluster: &'a K3sCluster,
    ) -> impl Iterator<Item = (usize, &'a Guest)> + 'a {
        let nodes = cluster.nodes.iter().enumerate();
        nodes.filter_map(|(i, n)| self.guest(n).map(|g| (i, g)))
    }

    /// The ArgoCD instances that list this K3s cluster in `manages`, in file order (an
    /// instance that lists it twice, twice).
    pub fn managers_of<'a>(
        &'a self,
        cluster: &K3sCluster,
    ) -> impl Iterator<Item = &'a ArgoCd> + 'a {
        grouped(&self.index.managers, &cluster.id, &self.parts.argocd)
    }

    /// The K3s clusters an ArgoCD manages, with the position of the entry in its `manages`
    /// (entries naming no cluster are left out).
    pub fn managed_by<'a>(
        &'a self,
        argocd: &'a ArgoCd,
    ) -> impl Iterator<Item = (usize, &'a K3sCluster)> + 'a {
        let manages = argocd.manages.iter().enumerate();
        manages.filter_map(|(i, k)| self.k3s_cluster(k).map(|k| (i, k)))
    }

    /// The LINSTOR pools that list this host among their `nodes`, in file order (a pool that
    /// lists it twice, twice).
    pub fn pools_of_host<'a>(&'a self, host: &Host) -> impl Iterator<Item = &'a LinstorPool> + 'a {
        grouped(
            &self.index.pools_by_host,
            &host.id,
            &self.parts.linstor_pools,
        )
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

    /// Number of components in each state (counted when the topology is indexed).
    pub fn state_counts(&self) -> StateCounts {
        self.index.state_counts
    }

    /// The RPO that applies to a guest: its own, else the file's.
    pub fn rpo_of(&self, guest: &Guest) -> Option<Rpo> {
        guest.rpo.or(self.rpo)
    }
}
