//! Generators of topologies for tests and benchmarks.
//!
//! * [`synthetic`] — a deterministic topology of `n` guests (benchmarks: 10k, 100k).
//! * [`generate`] — a valid topology from a [`Shape`] and a seed.
//! * [`valid_topology`] (feature `proptest`) — a proptest strategy over [`generate`].
//! * [`rename_all`] — the same topology with every id replaced by [`renamed`]`(id)`.
//! * [`default_with_guests`], [`default_of_size`] — the embedded default file with extra guests
//!   (benchmarks of the loader and of a whole check).
//!
//! # What "valid" means
//!
//! Generated topologies are built so that no rule of the catalogue whose severity is `error`
//! can fire, by construction:
//! every component has a state; sites, routers and links are `validated` (at least as mature
//! as anything depending on them), other components get a state drawn from the seed (all
//! `validated` when [`Shape::random_states`] is false) but never more mature than what they
//! depend on (guest ≤ host, pool ≤ its hosts, cluster ≤ its node guests, ArgoCD ≤ the cluster
//! it runs in, pattern ≤ its members, cert-manager and alerts = their owner); exactly one router, one Traefik,
//! one ArgoCD and one Proxmox cluster per site; every Proxmox cluster, LINSTOR pool, K3s
//! cluster, ArgoCD, PBS and Traefik only involves components of its own site; every LINSTOR
//! satellite has a non-empty replication interface; every pool node runs a satellite and every
//! controller host a controller; `1 <= place_count <=` diskful nodes;
//! general clusters have only VM nodes (Cilium ≥ 1.16 with default-deny, or flannel) and no
//! GPU guest; GPU clusters are flannel, `purpose: gpu`, `node_placement: lxc_privileged`, made of
//! privileged LXCs that use the A5000 of their Tier 3 host; each cluster is managed by exactly
//! the ArgoCD of its site; ClusterMesh joins only Cilium clusters; cross-site dependencies
//! (PBS sync, ClusterMesh, MultiKueue) only join sites that a validated WireGuard link joins
//! (with 2 or 3 sites, every pair is linked); no note holds anything secret-looking; no
//! placement claims. Warnings and infos may fire (e.g. no VRRP peer).
//!
//! Ids follow `s{site}`, `s{site}-h{host}`, `s{site}-h{host}-g{guest}`, `s{site}-k{n}`,
//! `s{site}-gpu`, `s{site}-pool{n}`, `s{site}-argocd`, `s{site}-pbs`, `s{site}-vyos`,
//! `s{site}-traefik`, `s{site}-pve`, `wg-s{a}-s{b}`, `mesh`, `multikueue`, `obs`.

use crate::model::{
    Alert, AlertKind, ArgoCd, Capability, CapabilityKind, CertManager, ClusterPurpose, Cni,
    CniKind, Datastore, Gpu, Guest, GuestKind, HardwareTier, Host, HostLinstor, K3sCluster, Link,
    LinkKind, LinstorController, LinstorPool, LinstorRole, Location, Meta, NodePlacement, Parts,
    Pattern, PatternKind, Pbs, PbsSync, PoolNode, ProxmoxCluster, Router, Site, State,
    TierCapabilities, Topology, Traefik, Version,
};

/// The size and randomness of a generated topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Number of sites (at least 1).
    pub sites: usize,
    /// Hosts per site (at least 1).
    pub hosts_per_site: usize,
    /// Total guests, spread round-robin over all hosts.
    pub guests: usize,
    /// Draw component states from the seed; `false`: every component is `validated`.
    pub random_states: bool,
}

/// SplitMix64: a tiny deterministic generator, so a seed always gives the same topology.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }

    fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }
}

/// Generated ids only use `[a-z0-9-]` and stay short, so they always parse.
fn id<T: std::str::FromStr>(s: String) -> T
where
    T::Err: std::fmt::Debug,
{
    s.parse().expect("generated ids are valid")
}

struct Gen {
    rng: Rng,
    random_states: bool,
}

impl Gen {
    fn state(&mut self) -> State {
        if self.random_states {
            State::ALL[self.rng.below(3) as usize]
        } else {
            State::Validated
        }
    }

    fn meta(&mut self) -> Meta {
        Meta::new(self.state())
    }

    /// A state no more mature than `max` (what the component depends on).
    fn meta_at_most(&mut self, max: State) -> Meta {
        Meta::new(self.state().min(max))
    }
}

/// A deterministic, valid topology with exactly `guests` guests: 2 sites, about one host per
/// 25 guests (at least one per site), every component `validated`. For benchmarks.
pub fn synthetic(guests: usize) -> Topology {
    let hosts = (guests / 25).max(2);
    generate(
        Shape {
            sites: 2,
            hosts_per_site: hosts.div_ceil(2),
            guests,
            random_states: false,
        },
        0x00C0_FFEE,
    )
}

/// The embedded default file with `guests` extra guests (`bench-0`, `bench-1`, …; three in five
/// VMs, the rest LXCs, spread over the default's hosts), all validated. For benchmarks.
pub fn default_with_guests(guests: usize) -> String {
    extended_default(|_, added| added < guests).0
}

/// The embedded default file with as few extra guests (as [`default_with_guests`] writes them)
/// as make it at least `bytes` long; returns the text and how many guests were added.
pub fn default_of_size(bytes: usize) -> (String, usize) {
    let rest = crate::DEFAULT_TOPOLOGY_YAML.len();
    extended_default(|written, _| written + rest < bytes)
}

/// The default file with extra guests inserted at the top of its `guests:` list while `more(text
/// written so far, guests added)` holds.
fn extended_default(mut more: impl FnMut(usize, usize) -> bool) -> (String, usize) {
    use std::fmt::Write as _;
    let text = crate::DEFAULT_TOPOLOGY_YAML;
    let hosts: Vec<String> = crate::default_topology()
        .hosts()
        .iter()
        .filter(|h| !h.placeholder)
        .map(|h| h.id.to_string())
        .collect();
    let marker = "\nguests:\n";
    let at = text
        .find(marker)
        .expect("the default file has a guests list")
        + marker.len();
    let mut out = String::from(&text[..at]);
    let mut added = 0;
    while more(out.len() - at, added) {
        let host = &hosts[added % hosts.len()];
        let kind = if added % 5 < 3 { "vm" } else { "lxc" };
        let _ = writeln!(
            out,
            "  - {{ id: bench-{added}, host: {host}, kind: {kind}, state: validated }}"
        );
        added += 1;
    }
    out.push_str(&text[at..]);
    (out, added)
}

/// A valid topology of the given shape (see the module docs for what "valid" guarantees).
///
/// The parts are built in one fixed order: the random draws, and so the topology of a seed,
/// depend on it.
pub fn generate(shape: Shape, seed: u64) -> Topology {
    let mut g = Gen {
        rng: Rng(seed),
        random_states: shape.random_states,
    };
    let n_sites = shape.sites.max(1);
    let hps = shape.hosts_per_site.max(1);
    let name = format!("generated {n_sites}x{hps} seed {seed}");
    let mut t = Parts::default();
    add_tiers(&mut t);
    for s in 0..n_sites {
        add_site(&mut g, &mut t, s, hps);
    }
    let (general, gpu_nodes) = add_guests(&mut g, &mut t, shape.guests, n_sites, hps);
    let mut cilium = Vec::new();
    let mut gpu_clusters = Vec::new();
    for s in 0..n_sites {
        let mut managed = add_general_clusters(&mut g, &mut t, s, &general[s], &mut cilium);
        if let Some(cid) = add_gpu_cluster(&mut g, &mut t, s, &gpu_nodes[s]) {
            managed.push(cid.clone());
            gpu_clusters.push(cid);
        }
        add_argocd(&mut g, &mut t, s, managed);
    }
    if n_sites > 1 {
        link_sites(&mut t, n_sites);
    }
    // Cross-site patterns only when every pair of sites is linked (n <= 3).
    if n_sites <= 3 {
        add_patterns(&mut g, &mut t, cilium, gpu_clusters);
    }
    add_observability(&mut g, &mut t);
    let mut topology = Topology::from_parts(t);
    topology.name = Some(name);
    topology
}

/// The two hardware tiers the generated hosts use.
fn add_tiers(t: &mut Parts) {
    t.tiers.push(HardwareTier {
        id: id("tier-2a".to_owned()),
        description: None,
        capabilities: TierCapabilities {
            gpu_passthrough_vm: true,
            igpu: true,
            ..TierCapabilities::default()
        },
        location: Location::UNKNOWN,
    });
    t.tiers.push(HardwareTier {
        id: id("tier-3".to_owned()),
        description: None,
        capabilities: TierCapabilities {
            gpu_lxc_only: true,
            gpu_shared_with_display: true,
            ..TierCapabilities::default()
        },
        location: Location::UNKNOWN,
    });
}

/// Site `s`: its Proxmox cluster, router, Traefik, `hps` hosts, pools and PBS.
fn add_site(g: &mut Gen, t: &mut Parts, s: usize, hps: usize) {
    t.sites.push(Site {
        id: id(format!("s{s}")),
        name: None,
        meta: Meta::new(State::Validated),
    });
    t.proxmox_clusters.push(ProxmoxCluster {
        id: id(format!("s{s}-pve")),
        site: id(format!("s{s}")),
        meta: g.meta(),
    });
    t.routers.push(Router {
        id: id(format!("s{s}-vyos")),
        site: id(format!("s{s}")),
        host: None,
        guest: None,
        vrrp_peer: None,
        wireguard_peers: Vec::new(),
        subnets: vec![format!("10.{s}.0.0/16")],
        // Validated: the validated links depend on their end routers.
        meta: Meta::new(State::Validated),
    });
    t.traefik.push(Traefik {
        id: id(format!("s{s}-traefik")),
        site: id(format!("s{s}")),
        guest: None,
        host: None,
        address: None,
        ha: false,
        ha_state: None,
        on_boot: true,
        meta: g.meta(),
    });
    add_hosts(g, t, s, hps);
    add_pools(g, t, s, hps);
    t.pbs.push(Pbs {
        id: id(format!("s{s}-pbs")),
        site: id(format!("s{s}")),
        guest: None,
        datastores: vec![Datastore {
            name: "main".to_owned(),
            encrypted: true,
        }],
        sync_to: Vec::new(),
        rpo: None,
        meta: g.meta(),
    });
}

/// The `hps` hosts of site `s`.
fn add_hosts(g: &mut Gen, t: &mut Parts, s: usize, hps: usize) {
    for h in 0..hps {
        // Every fourth host is Tier 3 with an A5000, every other one Tier 2A with an A5500
        // that no guest uses.
        let (tier, gpus) = match h % 4 {
            3 => (Some(id("tier-3".to_owned())), vec![gpu("A5000")]),
            1 => (Some(id("tier-2a".to_owned())), vec![gpu("A5500")]),
            _ => (None, Vec::new()),
        };
        // Every host is the primary or a standby controller of its pool (below), so every
        // host runs a controller as well as a satellite.
        let roles = vec![LinstorRole::Satellite, LinstorRole::Controller];
        t.hosts.push(Host {
            id: id(format!("s{s}-h{h}")),
            site: id(format!("s{s}")),
            proxmox_cluster: Some(id(format!("s{s}-pve"))),
            tier,
            gpus,
            pve_version: Version::new("9.0").ok(),
            linstor: Some(HostLinstor {
                roles,
                interface: Some(format!("eth{}", 1 + g.rng.below(3))),
            }),
            nvidia_driver: None,
            placeholder: false,
            meta: g.meta(),
        });
    }
}

/// The pools of site `s`: up to 3 consecutive hosts of its `hps` each.
fn add_pools(g: &mut Gen, t: &mut Parts, s: usize, hps: usize) {
    for (p, chunk) in (0..hps).collect::<Vec<_>>().chunks(3).enumerate() {
        let nodes: Vec<PoolNode> = chunk
            .iter()
            .map(|h| PoolNode {
                host: id(format!("s{s}-h{h}")),
                diskful: true,
            })
            .collect();
        let place_count = 1 + g.rng.below(nodes.len() as u64) as u32;
        let first_host = t.hosts.len() - hps;
        let max = chunk
            .iter()
            .map(|&h| t.hosts[first_host + h].meta.state)
            .min()
            .unwrap_or(State::Validated);
        t.linstor_pools.push(LinstorPool {
            id: id(format!("s{s}-pool{p}")),
            site: id(format!("s{s}")),
            provider: "lvm-thin".to_owned(),
            storage_pool: Some("linstor_ssd".to_owned()),
            controller: Some(LinstorController {
                primary: Some(nodes[0].host.clone()),
                standby: nodes[1..].iter().map(|n| n.host.clone()).collect(),
                vip: None,
                ha: nodes.len() > 1,
            }),
            nodes,
            place_count: Some(place_count),
            backend: None,
            meta: g.meta_at_most(max),
        });
    }
}

/// Per site, the positions of the general VM guests and of the GPU guests (in that order).
type SiteGuests = (Vec<Vec<usize>>, Vec<Vec<usize>>);

/// `guests` guests, round-robin over every host of every site.
fn add_guests(g: &mut Gen, t: &mut Parts, guests: usize, n_sites: usize, hps: usize) -> SiteGuests {
    let total_hosts = n_sites * hps;
    let mut general: Vec<Vec<usize>> = vec![Vec::new(); n_sites];
    let mut gpu_nodes: Vec<Vec<usize>> = vec![Vec::new(); n_sites];
    let mut per_host = vec![0usize; total_hosts];
    t.guests.reserve(guests);
    for k in 0..guests {
        let hi = k % total_hosts;
        let (s, h) = (hi / hps, hi % hps);
        let n = per_host[hi];
        per_host[hi] += 1;
        let tier3 = h % 4 == 3;
        let (kind, privileged, gpu_use) = if tier3 && n == 0 {
            (GuestKind::Lxc, true, Some(gpu("A5000")))
        } else if n % 5 == 4 {
            (GuestKind::Lxc, false, None)
        } else {
            (GuestKind::Vm, false, None)
        };
        let idx = t.guests.len();
        if gpu_use.is_some() {
            gpu_nodes[s].push(idx);
        } else if kind == GuestKind::Vm {
            general[s].push(idx);
        }
        t.guests.push(Guest {
            id: id(format!("s{s}-h{h}-g{n}")),
            host: id(format!("s{s}-h{h}")),
            kind,
            privileged,
            ha: g.rng.bool(),
            ha_state: None,
            on_boot: true,
            role: None,
            gpu: gpu_use.map(Box::new),
            storage: Some(id(format!("s{s}-pool{}", h / 3))),
            backup: Some(id(format!("s{s}-pbs"))),
            rpo: None,
            meta: g.meta_at_most(t.hosts[hi].meta.state),
        });
    }
    (general, gpu_nodes)
}

/// The general VM clusters of site `s`, of up to 10 of its `general` guests each; the Cilium
/// ones are added to `cilium`. Returns their ids.
fn add_general_clusters(
    g: &mut Gen,
    t: &mut Parts,
    s: usize,
    general: &[usize],
    cilium: &mut Vec<String>,
) -> Vec<String> {
    let mut managed = Vec::new();
    for (c, chunk) in general.chunks(10).enumerate() {
        let is_cilium = g.rng.bool();
        let cid = format!("s{s}-k{c}");
        let max = chunk
            .iter()
            .map(|&i| t.guests[i].meta.state)
            .min()
            .unwrap_or(State::Validated);
        if is_cilium {
            cilium.push(cid.clone());
        }
        managed.push(cid.clone());
        let meta = g.meta_at_most(max);
        t.k3s_clusters.push(K3sCluster {
            id: id(cid),
            site: id(format!("s{s}")),
            nodes: chunk.iter().map(|&i| t.guests[i].id.clone()).collect(),
            node_placement: Some(NodePlacement::Vm),
            candidate_hosts: Vec::new(),
            cni: if is_cilium {
                Cni {
                    kind: CniKind::Cilium,
                    version: Version::new("1.16.3").ok(),
                }
            } else {
                Cni {
                    kind: CniKind::Flannel,
                    version: None,
                }
            },
            purpose: ClusterPurpose::General,
            default_deny: true,
            hubble: is_cilium,
            cert_manager: Some(CertManager {
                dns01_cluster_issuer: true,
                dns01_provider: Some("cloudflare".to_owned()),
                state: meta.state,
                note: None,
            }),
            nvidia_driver: None,
            cilium_lxc_exception: None,
            placement_claims: Vec::new(),
            review_signals: Vec::new(),
            cilium_vm_poc: None,
            meta,
        });
    }
    managed
}

/// The GPU cluster of site `s`, of its `gpu_nodes`, if it has any; returns its id.
fn add_gpu_cluster(g: &mut Gen, t: &mut Parts, s: usize, gpu_nodes: &[usize]) -> Option<String> {
    if !gpu_nodes.is_empty() {
        let max = gpu_nodes
            .iter()
            .map(|&i| t.guests[i].meta.state)
            .min()
            .unwrap_or(State::Validated);
        let cid = format!("s{s}-gpu");
        let meta = g.meta_at_most(max);
        t.k3s_clusters.push(K3sCluster {
            id: id(cid.clone()),
            site: id(format!("s{s}")),
            nodes: gpu_nodes.iter().map(|&i| t.guests[i].id.clone()).collect(),
            node_placement: Some(NodePlacement::LxcPrivileged),
            candidate_hosts: Vec::new(),
            cni: Cni {
                kind: CniKind::Flannel,
                version: None,
            },
            purpose: ClusterPurpose::Gpu,
            default_deny: true,
            hubble: false,
            cert_manager: Some(CertManager {
                dns01_cluster_issuer: true,
                dns01_provider: Some("cloudflare".to_owned()),
                state: meta.state,
                note: None,
            }),
            nvidia_driver: Version::new("550.54.15").ok(),
            cilium_lxc_exception: None,
            placement_claims: Vec::new(),
            review_signals: Vec::new(),
            cilium_vm_poc: None,
            meta,
        });
        return Some(cid);
    }
    None
}

/// The ArgoCD of site `s`, managing the clusters `managed`; it runs in the first, unless that
/// is the GPU cluster.
fn add_argocd(g: &mut Gen, t: &mut Parts, s: usize, managed: Vec<String>) {
    let runs_in: Option<crate::model::K3sClusterId> = managed
        .first()
        .filter(|c| !c.ends_with("-gpu"))
        .map(|c| id(c.clone()));
    let max = runs_in
        .as_ref()
        .and_then(|c| t.k3s_clusters.iter().find(|k| &k.id == c))
        .map_or(State::Validated, |k| k.meta.state);
    t.argocd.push(ArgoCd {
        id: id(format!("s{s}-argocd")),
        site: id(format!("s{s}")),
        runs_in,
        manages: managed.into_iter().map(id).collect(),
        repo_layout: None,
        meta: g.meta_at_most(max),
    });
}

/// Links between the `n_sites` sites: a ring over them (with 2 or 3 sites, every pair); PBS
/// syncs along it.
fn link_sites(t: &mut Parts, n_sites: usize) {
    let pairs: Vec<(usize, usize)> = if n_sites == 2 {
        vec![(0, 1)]
    } else {
        (0..n_sites).map(|a| (a, (a + 1) % n_sites)).collect()
    };
    for &(a, b) in &pairs {
        let lid = format!("wg-s{a}-s{b}");
        t.links.push(Link {
            id: id(lid.clone()),
            kind: LinkKind::Wireguard,
            sites: [id(format!("s{a}")), id(format!("s{b}"))],
            endpoints: vec![id(format!("s{a}-vyos")), id(format!("s{b}-vyos"))],
            over: None,
            meta: Meta::new(State::Validated),
        });
        t.routers[a].wireguard_peers.push(id(format!("s{b}-vyos")));
        t.routers[b].wireguard_peers.push(id(format!("s{a}-vyos")));
        t.pbs[a].sync_to.push(PbsSync {
            target: id(format!("s{b}-pbs")),
            link: Some(id(lid)),
        });
    }
}

/// The least mature state of the clusters named `members`.
fn least_mature(t: &Parts, members: &[String]) -> State {
    members
        .iter()
        .filter_map(|m| t.k3s_clusters.iter().find(|k| k.id.as_str() == m))
        .map(|k| k.meta.state)
        .min()
        .unwrap_or(State::Validated)
}

/// The cross-site patterns (a Cilium ClusterMesh, a MultiKueue), each no more mature than its
/// least mature member.
fn add_patterns(g: &mut Gen, t: &mut Parts, cilium: Vec<String>, gpu_clusters: Vec<String>) {
    if cilium.len() >= 2 {
        let max = least_mature(t, &cilium);
        t.patterns.push(Pattern {
            id: id("mesh".to_owned()),
            kind: PatternKind::ClusterMesh,
            members: cilium.into_iter().map(id).collect(),
            manager: None,
            argocd: None,
            meta: g.meta_at_most(max),
        });
    }
    if gpu_clusters.len() >= 2 {
        let max = least_mature(t, &gpu_clusters);
        t.patterns.push(Pattern {
            id: id("multikueue".to_owned()),
            kind: PatternKind::MultiKueue,
            manager: Some(id(gpu_clusters[0].clone())),
            members: gpu_clusters.into_iter().map(id).collect(),
            argocd: None,
            meta: g.meta_at_most(max),
        });
    }
}

/// The observability capability, with the basic alerts.
fn add_observability(g: &mut Gen, t: &mut Parts) {
    let meta = g.meta();
    t.capabilities.push(Capability {
        id: id("obs".to_owned()),
        kind: CapabilityKind::Observability,
        tool: Some("OpenObserve".to_owned()),
        site: None,
        alerts: AlertKind::BASIC
            .iter()
            .map(|&kind| Alert {
                kind,
                state: meta.state,
                note: None,
                location: Location::UNKNOWN,
            })
            .collect(),
        metrics: Vec::new(),
        choices: Default::default(),
        meta,
    });
}

fn gpu(model: &str) -> Gpu {
    Gpu {
        model: model.to_owned(),
        count: Some(1),
    }
}

/// The new name [`rename_all`] gives to `id`: `r-` followed by the id reversed
/// (`s0-h1` → `r-1h-0s`). Injective, and keeps ids valid.
pub fn renamed(id: &str) -> String {
    let mut s = String::with_capacity(id.len() + 2);
    s.push_str("r-");
    s.extend(id.chars().rev());
    s
}

/// An id, or a field holding ids, that [`rename_all`] renames in place.
trait Rename {
    fn rename(&mut self);
}

impl<T: crate::model::SharedId + AsRef<str>> Rename for T {
    fn rename(&mut self) {
        // `renamed` of a valid id is a valid id (same characters, starts with `r`), unless it
        // grows past the length limit: then the id is kept.
        if let Ok(id) = renamed(self.as_ref()).parse() {
            *self = id;
        }
    }
}

impl<T: Rename> Rename for Option<T> {
    fn rename(&mut self) {
        self.iter_mut().for_each(Rename::rename);
    }
}

impl<T: Rename> Rename for Vec<T> {
    fn rename(&mut self) {
        self.iter_mut().for_each(Rename::rename);
    }
}

impl<T: Rename, const N: usize> Rename for [T; N] {
    fn rename(&mut self) {
        self.iter_mut().for_each(Rename::rename);
    }
}

/// Renames the listed fields of each element of each list (`list => field, …;`), and
/// implements [`Rename`] for the parts of a component that hold ids (`impl Part => field, …;`).
macro_rules! rename_fields {
    ($(impl $part:ty => $($part_field:ident),+;)*) => {
        $(impl Rename for $part {
            fn rename(&mut self) {
                $( self.$part_field.rename(); )+
            }
        })*
    };
    ($($list:expr => $($field:ident),+;)*) => {
        $(for x in &mut $list {
            $( x.$field.rename(); )+
        })*
    };
}

rename_fields! {
    impl PoolNode => host;
    impl LinstorController => primary, standby;
    impl PbsSync => target, link;
}

/// The same topology with every id — components, tiers, every reference and suppression
/// subject — replaced by [`renamed`]`(id)`. Locations, states and all other fields are kept;
/// lookups are rebuilt. A rule that depends on names rather than structure will see a change.
pub fn rename_all(topology: &Topology) -> Topology {
    let mut renamed_topology = topology.clone();
    renamed_topology.edit(|t| {
        rename_fields! {
            t.tiers => id;
            t.sites => id;
            t.proxmox_clusters => id, site;
            t.hosts => id, site, proxmox_cluster, tier;
            t.guests => id, host, storage, backup;
            t.linstor_pools => id, site, nodes, controller;
            t.k3s_clusters => id, site, nodes, candidate_hosts;
            t.argocd => id, site, runs_in, manages;
            t.pbs => id, site, guest, sync_to;
            t.routers => id, site, host, guest, vrrp_peer, wireguard_peers;
            t.traefik => id, site, guest, host;
            t.links => id, sites, endpoints;
            t.patterns => id, members, manager, argocd;
            t.capabilities => id, site;
            t.items => id, site, cluster;
        }
        for x in &mut t.suppressions {
            if x.subject != "*" {
                x.subject = renamed(&x.subject);
            }
        }
    });
    renamed_topology
}

/// Proptest strategy: a valid topology (see the module docs) of 1–3 sites, 1–8 hosts per site,
/// 0–60 guests, random states. Shrinks towards fewer sites, hosts and guests.
#[cfg(feature = "proptest")]
pub fn valid_topology() -> impl proptest::strategy::Strategy<Value = Topology> {
    use proptest::prelude::*;
    shape_and_seed().prop_map(|(shape, seed)| generate(shape, seed))
}

/// Proptest strategy: a [`Shape`] and seed, for tests that want to build and then mutate: the
/// shapes of [`valid_topology`].
#[cfg(feature = "proptest")]
pub fn shape_and_seed() -> impl proptest::strategy::Strategy<Value = (Shape, u64)> {
    use proptest::prelude::*;
    (
        1usize..=3,
        1usize..=8,
        0usize..=60,
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(|(sites, hosts_per_site, guests, seed, random_states)| {
            (
                Shape {
                    sites,
                    hosts_per_site,
                    guests,
                    random_states,
                },
                seed,
            )
        })
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// Every reference that does not resolve, and every id used twice.
    fn structural_problems(t: &Topology) -> Vec<String> {
        let mut p = Vec::new();
        let mut seen = HashSet::new();
        for c in t.components() {
            if !seen.insert(c.id_str().to_owned()) {
                p.push(format!("duplicate {}", c.id_str()));
            }
        }
        for h in t.hosts() {
            if t.site(&h.site).is_none() {
                p.push(format!("{} site", h.id));
            }
            if h.proxmox_cluster
                .as_ref()
                .is_some_and(|c| t.proxmox_cluster(c).is_none())
            {
                p.push(format!("{} cluster", h.id));
            }
            if h.tier.as_ref().is_some_and(|x| t.tier(x).is_none()) {
                p.push(format!("{} tier", h.id));
            }
        }
        for g in t.guests() {
            if t.host(&g.host).is_none()
                || g.storage
                    .as_ref()
                    .is_some_and(|s| t.linstor_pool(s).is_none())
                || g.backup.as_ref().is_some_and(|b| t.pbs_server(b).is_none())
            {
                p.push(format!("{} refs", g.id));
            }
        }
        for pool in t.linstor_pools() {
            if pool.nodes.iter().any(|n| t.host(&n.host).is_none()) {
                p.push(format!("{} nodes", pool.id));
            }
        }
        for k in t.k3s_clusters() {
            if k.nodes.iter().any(|n| t.guest(n).is_none()) || t.site(&k.site).is_none() {
                p.push(format!("{} nodes", k.id));
            }
        }
        for a in t.argocd() {
            if a.manages.iter().any(|c| t.k3s_cluster(c).is_none()) {
                p.push(format!("{} manages", a.id));
            }
        }
        for x in t.pbs() {
            if x.sync_to.iter().any(|s| t.pbs_server(&s.target).is_none()) {
                p.push(format!("{} sync", x.id));
            }
        }
        for l in t.links() {
            if l.endpoints.iter().any(|r| t.router(r).is_none()) {
                p.push(format!("{} endpoints", l.id));
            }
        }
        for x in t.patterns() {
            if x.members.iter().any(|m| t.k3s_cluster(m).is_none()) {
                p.push(format!("{} members", x.id));
            }
        }
        p
    }

    #[test]
    fn synthetic_has_exactly_the_guests_asked_and_is_deterministic() {
        let a = synthetic(1_000);
        let b = synthetic(1_000);
        assert_eq!(a.guests().len(), 1_000);
        assert_eq!(a.sites().len(), 2);
        assert_eq!(a.hosts().len(), 40);
        let ids = |t: &Topology| {
            t.components()
                .map(|c| c.id_str().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(ids(&a), ids(&b));
        assert!(structural_problems(&a).is_empty());
        assert_eq!(a.state_counts().total(), a.state_counts().validated);
        assert_eq!(synthetic(0).guests().len(), 0);
        assert_eq!(synthetic(10_000).guests().len(), 10_000);
    }

    #[test]
    fn generated_topologies_resolve_every_reference_and_respect_the_invariants() {
        for seed in 0..40 {
            for sites in 1..=3 {
                let t = generate(
                    Shape {
                        sites,
                        hosts_per_site: 1 + (seed as usize % 8),
                        guests: (seed as usize * 7) % 61,
                        random_states: seed % 2 == 0,
                    },
                    seed,
                );
                assert_eq!(structural_problems(&t), Vec::<String>::new(), "seed {seed}");
                for p in t.linstor_pools() {
                    assert!(
                        p.place_count
                            .is_some_and(|c| c >= 1 && c as usize <= p.diskful_count())
                    );
                    assert!(
                        p.nodes
                            .iter()
                            .all(|n| t.host(&n.host).unwrap().site == p.site)
                    );
                }
                for h in t.hosts() {
                    let l = h.linstor.as_ref().unwrap();
                    assert!(!l.interface.as_deref().unwrap_or("").is_empty());
                }
                for g in t.guests().iter().filter(|g| g.gpu.is_some()) {
                    assert!(g.kind == GuestKind::Lxc && g.privileged);
                    assert!(t.host(&g.host).unwrap().has_gpu_model("A5000"));
                }
                assert_eq!(t.routers().len(), sites);
                assert_eq!(t.argocd().len(), sites);
            }
        }
    }

    #[test]
    fn rename_all_changes_every_id_and_keeps_every_reference() {
        let t = generate(
            Shape {
                sites: 3,
                hosts_per_site: 5,
                guests: 50,
                random_states: true,
            },
            7,
        );
        let r = rename_all(&t);
        assert_eq!(structural_problems(&r), Vec::<String>::new());
        let before: Vec<String> = t.components().map(|c| c.id_str().to_owned()).collect();
        let after: Vec<String> = r.components().map(|c| c.id_str().to_owned()).collect();
        assert_eq!(before.len(), after.len());
        for (b, a) in before.iter().zip(&after) {
            assert_eq!(a, &renamed(b));
        }
        assert_eq!(renamed("s0-h1"), "r-1h-0s");
        assert_eq!(t.state_counts(), r.state_counts());
    }
}
