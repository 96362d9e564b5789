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
    state_counts: StateCounts,
    refs: Refs,
}

/// A position in one of the component lists (`topology.guests()[i]`), or none: a reference
/// resolved once, when the topology is indexed. Four bytes, so that the arrays aligned with the
/// guests stay small.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pos(u32);

impl Default for Pos {
    fn default() -> Self {
        Pos::NONE
    }
}

impl Pos {
    /// No component: no reference, or one that names no component of its kind.
    const NONE: Pos = Pos(u32::MAX);

    /// Position `i` (a position past `u32::MAX - 1`, four billion components, reads as none).
    fn at(i: usize) -> Pos {
        u32::try_from(i).map_or(Pos::NONE, Pos)
    }

    /// The position, if any.
    pub(crate) fn get(self) -> Option<usize> {
        (self != Pos::NONE).then_some(self.0 as usize)
    }
}

/// A site id interned when the topology is indexed: two components name the same site exactly
/// when their keys are equal. A declared site's key is its position in [`Topology::sites`] (the
/// first one, if two share an id); ids that no site declares get the keys after those.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct SiteKey(u32);

impl SiteKey {
    /// The key as an index into arrays of [`Refs::site_keys`] entries.
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// Lists of positions per group (the guests of each host, the nodes of each cluster, the PBS of
/// each site, …), stored flat: one allocation whatever the number of groups.
#[derive(Clone, Debug)]
pub(crate) struct Grouped<T> {
    /// `items[starts[g]..starts[g + 1]]` is group `g`.
    starts: Vec<usize>,
    items: Vec<T>,
}

impl<T> Default for Grouped<T> {
    fn default() -> Self {
        Grouped {
            starts: vec![0],
            items: Vec::new(),
        }
    }
}

impl<T: Copy + Default> Grouped<T> {
    /// `groups` groups of the `(group, item)` pairs that `pairs` yields (it is called twice:
    /// to count, then to place), each group in the order of the pairs. Pairs of a group past
    /// `groups` are left out.
    fn build<I: Iterator<Item = (usize, T)>>(groups: usize, pairs: impl Fn() -> I) -> Self {
        let mut starts = vec![0usize; groups + 1];
        for (g, _) in pairs() {
            if let Some(count) = starts.get_mut(g + 1) {
                *count += 1;
            }
        }
        for g in 0..groups {
            starts[g + 1] += starts[g];
        }
        let mut next = starts.clone();
        let mut items = vec![T::default(); starts[groups]];
        for (g, item) in pairs() {
            if g < groups {
                items[next[g]] = item;
                next[g] += 1;
            }
        }
        Grouped { starts, items }
    }

    /// The items of group `g` (none for a group past the last).
    pub(crate) fn of(&self, g: usize) -> &[T] {
        match (self.starts.get(g), self.starts.get(g + 1)) {
            (Some(&a), Some(&b)) => &self.items[a..b],
            _ => &[],
        }
    }
}

/// A node of a K3s cluster that names a guest of the topology.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ClusterNode {
    /// Its position in the cluster's `nodes` (`nodes[i]`).
    pub(crate) field: u32,
    /// The guest's position in [`Topology::guests`].
    pub(crate) guest: u32,
}

/// Where a guest is first listed as a K3s node (clusters in file order, then nodes in order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Listing {
    /// The cluster's position in [`Topology::k3s_clusters`], none when no cluster lists it.
    pub(crate) cluster: Pos,
    /// The node's position in that cluster's `nodes`.
    pub(crate) field: u32,
}

/// Declares the one-bit flags of a packed facts type (a `flags` field of type `$bits`): a
/// constant for each flag's bit, an accessor that reads it, and `$pack`, which packs the flags of
/// one component, each set where the condition written after it (`if …`) holds.
macro_rules! packed_flags {
    (
        $bits:ty;
        fn $pack:ident($($arg:ident: $ty:ty),*);
        $( $(#[$doc:meta])* $name:ident => $bit:ident = $shift:literal if $set:expr, )+
    ) => {
        $( const $bit: $bits = 1 << $shift; )+
        $(
            $(#[$doc])*
            pub(crate) fn $name(self) -> bool {
                self.flags & Self::$bit != 0
            }
        )+

        /// The flags of one component, packed.
        fn $pack($($arg: $ty),*) -> $bits {
            let mut flags = 0;
            $( if $set { flags |= Self::$bit; } )+
            flags
        }
    };
}

/// What the checks filter every guest on, packed in four bytes (a [`Guest`] is about 300): a
/// check's pass over 100k guests reads 400 kB of these instead of 30 MB of guests, and reads a
/// guest itself only where the facts say it may emit a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GuestFacts {
    /// `meta.state`.
    pub(crate) state: State,
    /// `ha_state`.
    pub(crate) ha_state: Option<State>,
    /// `kind`.
    pub(crate) kind: GuestKind,
    /// The flags below, one bit each.
    flags: u8,
}

impl GuestFacts {
    packed_flags! {
        u8;
        fn flags_of(g: &Guest);
        /// `meta.deferred`.
        deferred => DEFERRED = 0 if g.meta.deferred,
        /// `privileged`.
        privileged => PRIVILEGED = 1 if g.privileged,
        /// `ha`.
        ha => HA = 2 if g.ha,
        /// `gpu` is set.
        gpu => GPU = 3 if g.gpu.is_some(),
        /// `storage` is set.
        storage => STORAGE = 4 if g.storage.is_some(),
        /// `backup` is set.
        backup => BACKUP = 5 if g.backup.is_some(),
        /// One of `meta.note`, `meta.use_case`, `role` (its free text) is set.
        free_text => FREE_TEXT = 6
            if g.meta.note.is_some() || g.meta.use_case.is_some() || g.role.is_some(),
    }

    fn of(g: &Guest) -> Self {
        GuestFacts {
            state: g.meta.state,
            ha_state: g.ha_state,
            kind: g.kind,
            flags: Self::flags_of(g),
        }
    }
}

/// What the checks filter every host on, packed in two bytes (a [`Host`] is about 300): the
/// checks that follow each guest to its host read these instead of the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HostFacts {
    /// `meta.state`.
    pub(crate) state: State,
    /// The flags below, one bit each.
    flags: u8,
}

impl HostFacts {
    packed_flags! {
        u8;
        fn flags_of(h: &Host);
        /// The host runs a LINSTOR satellite (`linstor.roles`).
        satellite => SATELLITE = 0 if h.linstor.as_ref().is_some_and(|l| l.is_satellite()),
        /// The host runs a LINSTOR controller (`linstor.roles`).
        controller => CONTROLLER = 1 if h.linstor.as_ref().is_some_and(|l| l.is_controller()),
        /// One of `meta.note`, `meta.use_case` (its free text) is set.
        free_text => FREE_TEXT = 2 if h.meta.note.is_some() || h.meta.use_case.is_some(),
        /// `meta.deferred`.
        deferred => DEFERRED = 3 if h.meta.deferred,
        /// Its LINSTOR replication interface is written but empty (or blank).
        empty_interface => EMPTY_INTERFACE = 4 if host_interface_is_empty(h),
    }

    fn of(h: &Host) -> Self {
        HostFacts {
            state: h.meta.state,
            flags: Self::flags_of(h),
        }
    }
}

/// What the checks filter every K3s cluster on, packed in eight bytes (a [`K3sCluster`] is about
/// 400, on several cache lines): a check's pass over the clusters reads these, and reads a
/// cluster only where they say it may emit a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClusterFacts {
    /// `meta.state`.
    pub(crate) state: State,
    /// `purpose`.
    pub(crate) purpose: ClusterPurpose,
    /// `cni.kind`.
    pub(crate) cni: CniKind,
    /// `node_placement`.
    pub(crate) node_placement: Option<NodePlacement>,
    /// `cert_manager.state`.
    pub(crate) cert_manager: Option<State>,
    /// The flags below, one bit each.
    flags: u16,
}

impl ClusterFacts {
    packed_flags! {
        u16;
        fn flags_of(k: &K3sCluster, resolved: usize);
        /// `nodes` is not empty (its entries may name no guest of the topology).
        lists_nodes => NODES = 0 if !k.nodes.is_empty(),
        /// `candidate_hosts` is not empty.
        has_candidates => CANDIDATES = 1 if !k.candidate_hosts.is_empty(),
        /// `cilium_lxc_exception` is set.
        lxc_exception => LXC_EXCEPTION = 2 if k.cilium_lxc_exception.is_some(),
        /// `default_deny`.
        default_deny => DEFAULT_DENY = 3 if k.default_deny,
        /// One of `meta.note`, `meta.use_case`, `cert_manager.note`, `cilium_lxc_exception`,
        /// `placement_claims` (its free text) is set.
        free_text => FREE_TEXT = 4
            if k.meta.note.is_some()
                || k.meta.use_case.is_some()
                || k.cert_manager.as_ref().is_some_and(|cm| cm.note.is_some())
                || k.cilium_lxc_exception.is_some()
                || !k.placement_claims.is_empty(),
        /// Some entry of `nodes` names no guest of the topology (a topology built in code).
        unresolved_nodes => UNRESOLVED_NODES = 5 if resolved < k.nodes.len(),
        /// `meta.deferred`.
        deferred => DEFERRED = 6 if k.meta.deferred,
        /// `cert_manager.dns01_cluster_issuer`.
        dns01_issuer => DNS01_ISSUER = 7
            if k.cert_manager.as_ref().is_some_and(|cm| cm.dns01_cluster_issuer),
        /// `review_signals` is not empty.
        review_signals => REVIEW_SIGNALS = 8 if !k.review_signals.is_empty(),
    }

    /// The facts of `k`, of whose `nodes` `resolved` name a guest of the topology.
    fn of(k: &K3sCluster, resolved: usize) -> Self {
        ClusterFacts {
            state: k.meta.state,
            purpose: k.purpose,
            cni: k.cni.kind,
            node_placement: k.node_placement,
            cert_manager: k.cert_manager.as_ref().map(|cm| cm.state),
            flags: Self::flags_of(k, resolved),
        }
    }
}

/// The references between components resolved to positions, and the site ids interned, when
/// the topology is indexed: the checks read these arrays instead of looking ids up, so a check of
/// 100k guests touches no id string until it emits a finding. Every array is aligned with the
/// component list it is named after; references are resolved as the lookups by id resolve them
/// (the first component with an id wins).
#[derive(Clone, Debug, Default)]
pub(crate) struct Refs {
    /// The key of each site.
    pub(crate) site_keys: Vec<SiteKey>,
    /// The key of each host's site.
    pub(crate) host_site: Vec<SiteKey>,
    /// The hardware tier of each host.
    pub(crate) host_tier: Vec<Pos>,
    /// The Proxmox cluster of each host.
    pub(crate) host_pve_cluster: Vec<Pos>,
    /// The key of each Proxmox cluster's site.
    pub(crate) pve_cluster_site: Vec<SiteKey>,
    /// The packed facts of each guest.
    pub(crate) guest_facts: Vec<GuestFacts>,
    /// The host of each guest.
    pub(crate) guest_host: Vec<Pos>,
    /// The LINSTOR pool of each guest (`storage`).
    pub(crate) guest_storage: Vec<Pos>,
    /// The PBS of each guest (`backup`).
    pub(crate) guest_backup: Vec<Pos>,
    /// Where each guest is first listed as a K3s node (for a guest whose id an earlier guest
    /// has, that guest's listing).
    pub(crate) guest_listing: Vec<Listing>,
    /// The key of each K3s cluster's site.
    pub(crate) cluster_site: Vec<SiteKey>,
    /// The nodes of each K3s cluster that name a guest, in order.
    pub(crate) cluster_nodes: Grouped<ClusterNode>,
    /// The ArgoCD instances that list each K3s cluster in `manages`, in file order (by the
    /// position of the first cluster with the id, see [`Refs::managers_of`]).
    cluster_managers: Grouped<u32>,
    /// The key of each pool's site.
    pub(crate) pool_site: Vec<SiteKey>,
    /// The pools each host is a node of, in file order (by the position of the first host
    /// with the id, see [`Refs::pools_of_host`]).
    host_pools: Grouped<u32>,
    /// The host of each entry of each pool's `nodes`, aligned with the entries.
    pub(crate) pool_nodes: Grouped<Pos>,
    /// The host of each controller host of each pool, aligned with
    /// [`LinstorController::hosts_with_fields`]: `controller.primary` (if set), then each
    /// `controller.standby` entry.
    pub(crate) pool_controllers: Grouped<Pos>,
    /// The packed facts of each host.
    pub(crate) host_facts: Vec<HostFacts>,
    /// The packed facts of each K3s cluster.
    pub(crate) cluster_facts: Vec<ClusterFacts>,
    /// The K3s cluster of each entry of each pattern's `members`, aligned with the entries.
    pub(crate) pattern_members: Grouped<Pos>,
    /// The key of each PBS's site.
    pub(crate) pbs_site: Vec<SiteKey>,
    /// The key of each ArgoCD's site.
    pub(crate) argocd_site: Vec<SiteKey>,
    /// The K3s cluster of each entry of each ArgoCD's `manages`, aligned with the entries.
    pub(crate) argocd_manages: Grouped<Pos>,
    /// The PBS of each site key, in file order.
    pub(crate) pbs_by_site: Grouped<u32>,
    /// The routers of each site key, in file order.
    pub(crate) routers_by_site: Grouped<u32>,
    /// The Traefik instances of each site key, in file order.
    pub(crate) traefik_by_site: Grouped<u32>,
    /// The ArgoCD instances of each site key, in file order.
    pub(crate) argocd_by_site: Grouped<u32>,
    /// The K3s clusters of each site key, in file order.
    pub(crate) clusters_by_site: Grouped<u32>,
    /// The hosts of each site key whose LINSTOR replication interface is written empty (or
    /// blank), in file order.
    pub(crate) empty_interface_by_site: Grouped<u32>,
    /// The first host with each host's id, where ids repeat (empty when they are unique).
    host_first: Vec<u32>,
    /// The first K3s cluster with each cluster's id, where ids repeat (empty when unique).
    cluster_first: Vec<u32>,
}

impl Refs {
    /// The ArgoCD instances (positions) that list K3s cluster `ki` in `manages`.
    pub(crate) fn managers_of(&self, ki: usize) -> &[u32] {
        self.cluster_managers.of(first_of(&self.cluster_first, ki))
    }

    /// The pools (positions) that host `hi` is a node of.
    pub(crate) fn pools_of_host(&self, hi: usize) -> &[u32] {
        self.host_pools.of(first_of(&self.host_first, hi))
    }
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

/// The position of the first component with the id of component `i`, given the array of those
/// positions (empty when ids are unique).
fn first_of(first: &[u32], i: usize) -> usize {
    first.get(i).map_or(i, |&f| f as usize)
}

/// The position of the first item with each item's id, where ids repeat; empty when they are
/// unique (`map` holds one entry per id).
fn first_positions<K: std::hash::Hash + Eq, T>(
    items: &[T],
    map: &HashMap<K, usize>,
    key: impl Fn(&T) -> &K,
) -> Vec<u32> {
    if map.len() == items.len() {
        return Vec::new();
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| map.get(key(item)).copied().unwrap_or(i) as u32)
        .collect()
}

/// Builds the [`Refs`] of `parts`, given the lookup maps by id already built (`ix`).
fn resolve(parts: &Parts, ix: &Index) -> Refs {
    let sites = site_keys(parts, ix);
    let host_tier = parts
        .hosts
        .iter()
        .map(|h| h.tier.as_ref().map_or(Pos::NONE, |t| pos(&ix.tiers, t)))
        .collect();
    let host_pve_cluster = parts
        .hosts
        .iter()
        .map(|h| {
            h.proxmox_cluster
                .as_ref()
                .map_or(Pos::NONE, |c| pos(&ix.proxmox_clusters, c))
        })
        .collect();
    let guest_host = parts
        .guests
        .iter()
        .map(|g| pos(&ix.hosts, &g.host))
        .collect();
    let guest_storage = parts
        .guests
        .iter()
        .map(|g| {
            g.storage
                .as_ref()
                .map_or(Pos::NONE, |p| pos(&ix.linstor_pools, p))
        })
        .collect();
    let guest_backup = parts
        .guests
        .iter()
        .map(|g| g.backup.as_ref().map_or(Pos::NONE, |p| pos(&ix.pbs, p)))
        .collect();
    let (cluster_nodes, guest_listing) = cluster_listing(parts, ix);
    let by_site = |keys: &[SiteKey]| {
        Grouped::build(sites.count, || {
            keys.iter().enumerate().map(|(i, k)| (k.index(), i as u32))
        })
    };
    Refs {
        argocd_manages: argocd_manages(parts, ix),
        pool_nodes: pool_nodes(parts, ix),
        pool_controllers: pool_controllers(parts, ix),
        pattern_members: pattern_members(parts, ix),
        host_facts: parts.hosts.iter().map(HostFacts::of).collect(),
        cluster_facts: parts
            .k3s_clusters
            .iter()
            .enumerate()
            .map(|(ki, k)| ClusterFacts::of(k, cluster_nodes.of(ki).len()))
            .collect(),
        guest_facts: parts.guests.iter().map(GuestFacts::of).collect(),
        pbs_by_site: by_site(&sites.pbs_site),
        routers_by_site: by_site(&sites.router_site),
        traefik_by_site: by_site(&sites.traefik_site),
        argocd_by_site: by_site(&sites.argocd_site),
        clusters_by_site: by_site(&sites.cluster_site),
        empty_interface_by_site: empty_interface_by_site(parts, &sites),
        site_keys: sites.site_keys,
        host_site: sites.host_site,
        host_tier,
        host_pve_cluster,
        pve_cluster_site: sites.pve_cluster_site,
        guest_host,
        guest_storage,
        guest_backup,
        guest_listing,
        cluster_site: sites.cluster_site,
        cluster_nodes,
        cluster_managers: cluster_managers(parts, ix),
        pool_site: sites.pool_site,
        host_pools: host_pools(parts, ix),
        pbs_site: sites.pbs_site,
        argocd_site: sites.argocd_site,
        host_first: first_positions(&parts.hosts, &ix.hosts, |h| &h.id),
        cluster_first: first_positions(&parts.k3s_clusters, &ix.k3s_clusters, |k| &k.id),
    }
}

/// The site keys of every component with a site, built together: each id only referenced gets
/// the next key, in one fixed order.
struct SiteKeys {
    site_keys: Vec<SiteKey>,
    host_site: Vec<SiteKey>,
    cluster_site: Vec<SiteKey>,
    pool_site: Vec<SiteKey>,
    pbs_site: Vec<SiteKey>,
    argocd_site: Vec<SiteKey>,
    router_site: Vec<SiteKey>,
    traefik_site: Vec<SiteKey>,
    pve_cluster_site: Vec<SiteKey>,
    /// How many keys there are: the declared sites and the ids only referenced.
    count: usize,
}

/// Sites: declared ones first (the first of an id wins), then each id only referenced.
fn site_keys(parts: &Parts, ix: &Index) -> SiteKeys {
    let mut undeclared: HashMap<SiteId, SiteKey> = HashMap::new();
    let site_keys: Vec<SiteKey> = parts
        .sites
        .iter()
        .enumerate()
        .map(|(i, s)| SiteKey(ix.sites.get(&s.id).copied().unwrap_or(i) as u32))
        .collect();
    let declared = parts.sites.len();
    let mut key = |id: &SiteId| -> SiteKey {
        if let Some(&i) = ix.sites.get(id) {
            return SiteKey(i as u32);
        }
        if let Some(&k) = undeclared.get(id) {
            return k;
        }
        let k = SiteKey((declared + undeclared.len()) as u32);
        undeclared.insert(id.clone(), k);
        k
    };
    let host_site: Vec<SiteKey> = parts.hosts.iter().map(|h| key(&h.site)).collect();
    let cluster_site: Vec<SiteKey> = parts.k3s_clusters.iter().map(|k| key(&k.site)).collect();
    let pool_site: Vec<SiteKey> = parts.linstor_pools.iter().map(|p| key(&p.site)).collect();
    let pbs_site: Vec<SiteKey> = parts.pbs.iter().map(|p| key(&p.site)).collect();
    let argocd_site: Vec<SiteKey> = parts.argocd.iter().map(|a| key(&a.site)).collect();
    let router_site: Vec<SiteKey> = parts.routers.iter().map(|r| key(&r.site)).collect();
    let traefik_site: Vec<SiteKey> = parts.traefik.iter().map(|t| key(&t.site)).collect();
    let pve_cluster_site: Vec<SiteKey> = parts
        .proxmox_clusters
        .iter()
        .map(|p| key(&p.site))
        .collect();
    SiteKeys {
        site_keys,
        host_site,
        cluster_site,
        pool_site,
        pbs_site,
        argocd_site,
        router_site,
        traefik_site,
        pve_cluster_site,
        count: declared + undeclared.len(),
    }
}

/// The position of the component with id `id` in `map`, none when no component has it.
fn pos<K: std::hash::Hash + Eq>(map: &HashMap<K, usize>, id: &K) -> Pos {
    map.get(id).map_or(Pos::NONE, |&i| Pos::at(i))
}

/// The resolved nodes of each K3s cluster, and where each guest is first listed (a guest whose
/// id repeats takes the listing of the first guest with that id).
fn cluster_listing(parts: &Parts, ix: &Index) -> (Grouped<ClusterNode>, Vec<Listing>) {
    let node_guests: Vec<Vec<ClusterNode>> = parts
        .k3s_clusters
        .iter()
        .map(|k| {
            k.nodes
                .iter()
                .enumerate()
                .filter_map(|(i, n)| {
                    ix.guests.get(n).map(|&g| ClusterNode {
                        field: i as u32,
                        guest: g as u32,
                    })
                })
                .collect()
        })
        .collect();
    let cluster_nodes = Grouped::build(node_guests.len(), || {
        node_guests
            .iter()
            .enumerate()
            .flat_map(|(ki, nodes)| nodes.iter().map(move |&n| (ki, n)))
    });
    let unlisted = Listing {
        cluster: Pos::NONE,
        field: 0,
    };
    let mut guest_listing = vec![unlisted; parts.guests.len()];
    for (ki, nodes) in node_guests.iter().enumerate() {
        for n in nodes {
            let listing = &mut guest_listing[n.guest as usize];
            if listing.cluster == Pos::NONE {
                *listing = Listing {
                    cluster: Pos::at(ki),
                    field: n.field,
                };
            }
        }
    }
    drop(node_guests);
    let guest_first = first_positions(&parts.guests, &ix.guests, |g| &g.id);
    for (gi, &first) in guest_first.iter().enumerate() {
        guest_listing[gi] = guest_listing[first as usize];
    }
    (cluster_nodes, guest_listing)
}

/// The ArgoCD instances (positions) that list each K3s cluster in `manages`.
fn cluster_managers(parts: &Parts, ix: &Index) -> Grouped<u32> {
    Grouped::build(parts.k3s_clusters.len(), || {
        parts.argocd.iter().enumerate().flat_map(|(ai, a)| {
            a.manages
                .iter()
                .filter_map(|k| ix.k3s_clusters.get(k))
                .map(move |&ki| (ki, ai as u32))
        })
    })
}

/// The pools (positions) that each host is a node of.
fn host_pools(parts: &Parts, ix: &Index) -> Grouped<u32> {
    Grouped::build(parts.hosts.len(), || {
        parts.linstor_pools.iter().enumerate().flat_map(|(pi, p)| {
            p.nodes
                .iter()
                .filter_map(|n| ix.hosts.get(&n.host))
                .map(move |&hi| (hi, pi as u32))
        })
    })
}

/// The hosts (positions) of each site key whose LINSTOR interface is written but empty.
fn empty_interface_by_site(parts: &Parts, sites: &SiteKeys) -> Grouped<u32> {
    Grouped::build(sites.count, || {
        parts
            .hosts
            .iter()
            .zip(&sites.host_site)
            .enumerate()
            .filter(|(_, (h, _))| host_interface_is_empty(h))
            .map(|(i, (_, k))| (k.index(), i as u32))
    })
}

/// Each ArgoCD's `manages`, resolved entry by entry.
fn argocd_manages(parts: &Parts, ix: &Index) -> Grouped<Pos> {
    Grouped::build(parts.argocd.len(), || {
        parts.argocd.iter().enumerate().flat_map(|(ai, a)| {
            a.manages
                .iter()
                .map(move |k| (ai, pos(&ix.k3s_clusters, k)))
        })
    })
}

/// Each pool's nodes' hosts, resolved entry by entry.
fn pool_nodes(parts: &Parts, ix: &Index) -> Grouped<Pos> {
    Grouped::build(parts.linstor_pools.len(), || {
        parts
            .linstor_pools
            .iter()
            .enumerate()
            .flat_map(|(pi, p)| p.nodes.iter().map(move |n| (pi, pos(&ix.hosts, &n.host))))
    })
}

/// Each pool's controller hosts (primary, then standby), resolved entry by entry.
fn pool_controllers(parts: &Parts, ix: &Index) -> Grouped<Pos> {
    Grouped::build(parts.linstor_pools.len(), || {
        parts.linstor_pools.iter().enumerate().flat_map(|(pi, p)| {
            let hosts = p
                .controller
                .iter()
                .flat_map(|c| c.primary.iter().chain(&c.standby));
            hosts.map(move |h| (pi, pos(&ix.hosts, h)))
        })
    })
}

/// Each pattern's members, resolved entry by entry.
fn pattern_members(parts: &Parts, ix: &Index) -> Grouped<Pos> {
    Grouped::build(parts.patterns.len(), || {
        parts.patterns.iter().enumerate().flat_map(|(pi, p)| {
            p.members
                .iter()
                .map(move |k| (pi, pos(&ix.k3s_clusters, k)))
        })
    })
}

/// Whether a host's LINSTOR replication interface is written but empty (or blank).
pub(crate) fn host_interface_is_empty(host: &Host) -> bool {
    host.linstor
        .as_ref()
        .and_then(|l| l.interface.as_deref())
        .is_some_and(|i| i.trim().is_empty())
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
        ix.refs = resolve(&self.parts, &ix);
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
        let gi = *self.index.guests.get(guest)?;
        let ki = self.index.refs.guest_listing.get(gi)?.cluster.get()?;
        self.parts.k3s_clusters.get(ki)
    }

    /// The position in [`Topology::guests`] of the guest with this id.
    pub(crate) fn guest_position(&self, id: &GuestId) -> Option<usize> {
        self.index.guests.get(id).copied()
    }

    /// The position in [`Topology::hosts`] of the host with this id.
    pub(crate) fn host_position(&self, id: &HostId) -> Option<usize> {
        self.index.hosts.get(id).copied()
    }

    /// The position in [`Topology::argocd`] of the ArgoCD with this id.
    pub(crate) fn argocd_position(&self, id: &ArgoCdId) -> Option<usize> {
        self.index.argocd.get(id).copied()
    }

    /// The position in [`Topology::k3s_clusters`] of the K3s cluster with this id.
    pub(crate) fn k3s_cluster_position(&self, id: &K3sClusterId) -> Option<usize> {
        self.index.k3s_clusters.get(id).copied()
    }

    /// The references resolved to positions and the site keys, for the checks.
    pub(crate) fn refs(&self) -> &Refs {
        &self.index.refs
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
        self.components_in_order(&self.parts.guests)
    }

    /// Every component but the guests, in the order of [`Topology::components`]: for the checks
    /// that judge the guests on their packed facts instead.
    pub(crate) fn components_besides_guests(&self) -> impl Iterator<Item = ComponentRef<'_>> + '_ {
        self.components_in_order(&[])
    }

    /// The components in the order of [`Topology::components`], with `guests` in the guests'
    /// place (all of them, or none).
    fn components_in_order<'a>(
        &'a self,
        guests: &'a [Guest],
    ) -> impl Iterator<Item = ComponentRef<'a>> + 'a {
        let it = self.parts.sites.iter().map(ComponentRef::Site);
        let it = it.chain(self.parts.hosts.iter().map(ComponentRef::Host));
        let it = it.chain(guests.iter().map(ComponentRef::Guest));
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
