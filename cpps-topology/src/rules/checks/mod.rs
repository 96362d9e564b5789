//! The static checks: one function per rule with a static part, over indexes built once.
//!
//! Every check receives the [`Ctx`] (the topology) and a [`Sink`] that only emits findings of the
//! check's own rule. A check iterates the components and follows their references through the
//! topology's typed lookups (`host_of`, `pool_of`, `nodes_of`, `managers_of`, …), each a
//! `HashMap` lookup by id built once with the topology, so no check compares every component with
//! every other. The estate has about 130 components and ten times that is the largest size that
//! matters: the checks read the components themselves, plainly.
//!
//! Checks beyond this table (the live rules, the IaC rules) join the same report through
//! [`crate::check::ExtraChecks`] and [`crate::check::run`].

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt, HashSet};

use super::RuleId;
use crate::finding::{Finding, Location, Severity, Subject};
use crate::model::{
    ClusterPurpose, ComponentRef, Host, K3sCluster, Location as ModelLocation, SiteId, State,
    TierCapabilities, Topology,
};

mod compute;
#[cfg(feature = "live")]
pub(crate) use compute::lagging_majors;
mod documents;
mod network;
mod platform;
mod relations;
mod secrets;
mod state;
mod storage;

/// A static check: reads the topology through `Ctx`, emits findings of one rule into `Sink`.
pub(crate) type StaticCheck = fn(&Ctx<'_>, &mut Sink<'_>);

/// Every rule with a static part and its check, in catalogue order.
pub(crate) static STATIC_CHECKS: &[(RuleId, StaticCheck)] = &[
    (RuleId("STATE-001"), state::state_001),
    (RuleId("SITE-001"), compute::site_001),
    (RuleId("PVE-001"), compute::pve_001),
    (RuleId("PVE-002"), compute::pve_002),
    (RuleId("PVE-003"), compute::pve_003),
    (RuleId("LINSTOR-001"), storage::linstor_001),
    (RuleId("LINSTOR-002"), storage::linstor_002),
    (RuleId("LINSTOR-003"), storage::linstor_003),
    (RuleId("LINSTOR-004"), storage::linstor_004),
    (RuleId("LINSTOR-005"), storage::linstor_005),
    (RuleId("LINSTOR-006"), storage::linstor_006),
    (RuleId("BACKUP-001"), storage::backup_001),
    (RuleId("BACKUP-002"), storage::backup_002),
    (RuleId("BACKUP-004"), storage::backup_004),
    (RuleId("HADR-001"), storage::hadr_001),
    (RuleId("NET-001"), network::net_001),
    (RuleId("NET-002"), network::net_002),
    (RuleId("NET-003"), network::net_003),
    (RuleId("INGRESS-001"), network::ingress_001),
    (RuleId("INGRESS-002"), network::ingress_002),
    (RuleId("CNI-001"), platform::cni_001),
    (RuleId("CNI-002"), platform::cni_002),
    (RuleId("CNI-003"), platform::cni_003),
    (RuleId("GPU-001"), platform::gpu_001),
    (RuleId("GPU-002"), platform::gpu_002),
    (RuleId("GPU-003"), platform::gpu_003),
    (RuleId("GPU-004"), platform::gpu_004),
    (RuleId("GPU-006"), platform::gpu_006),
    (RuleId("GPU-007"), platform::gpu_007),
    (RuleId("GPU-008"), platform::gpu_008),
    (RuleId("MESH-001"), platform::mesh_001),
    (RuleId("MESH-002"), platform::mesh_002),
    (RuleId("MESH-003"), platform::mesh_003),
    (RuleId("GITOPS-001"), platform::gitops_001),
    (RuleId("SEC-001"), state::sec_001),
    (RuleId("OBS-001"), state::obs_001),
    (RuleId("FRUGAL-001"), state::frugal_001),
    (RuleId("REL-001"), relations::rel_001),
    (RuleId("REL-002"), relations::rel_002),
    (RuleId("DOC-001"), documents::doc_001),
    (RuleId("DOC-002"), documents::doc_002),
    (RuleId("DOC-003"), documents::doc_003),
    (RuleId("DOC-004"), documents::doc_004),
    (RuleId("DOC-005"), documents::doc_005),
    (RuleId("DOC-006"), documents::doc_006),
    (RuleId("DOC-007"), documents::doc_007),
    (RuleId("DOC-008"), documents::doc_008),
];

/// The severity of a finding on a component in `state`: a `desired` component is a roadmap fact,
/// so at most `info`; `declared` and `validated` components keep the rule's severity (the IaC or
/// the production system breaks the decision).
pub(crate) fn scaled(base: Severity, state: State) -> Severity {
    match state {
        State::Desired => Severity::Info,
        State::Declared | State::Validated => base,
    }
}

/// The topology and the one index the checks add: the most mature link between two sites.
pub(crate) struct Ctx<'t> {
    pub(crate) topo: &'t Topology,
    /// The most mature WireGuard link between two sites (key: the two site ids, sorted).
    best_link: HashMap<(&'t str, &'t str), State>,
}

impl<'t> Ctx<'t> {
    pub(crate) fn new(topo: &'t Topology) -> Self {
        let mut best_link = HashMap::new();
        for link in topo.links() {
            let key = site_pair(&link.sites[0], &link.sites[1]);
            let best = best_link.entry(key).or_insert(link.meta.state);
            *best = (*best).max(link.meta.state);
        }
        Ctx { topo, best_link }
    }

    /// The most mature WireGuard link between sites `a` and `b`.
    pub(crate) fn link_state(&self, a: &SiteId, b: &SiteId) -> Option<State> {
        self.best_link.get(&site_pair(a, b)).copied()
    }

    /// The capabilities of a host's hardware tier: none when the host has no tier, or one the
    /// topology does not model (each rule that judges a host on its tier says what such an
    /// unknown means for it: CNI-001, GPU-002, DOC-002).
    pub(crate) fn tier_capabilities(&self, host: &Host) -> Option<&'t TierCapabilities> {
        self.topo.tier_of(host).map(|t| &t.capabilities)
    }

    /// Whether a K3s cluster lists any guest of the topology as a node.
    pub(crate) fn has_nodes(&self, k: &K3sCluster) -> bool {
        self.topo.nodes_of(k).next().is_some()
    }
}

/// The GPU K3s clusters in service (declared or validated), in file order.
pub(crate) fn gpu_clusters_in_service(topo: &Topology) -> impl Iterator<Item = &K3sCluster> {
    let clusters = topo.k3s_clusters().iter();
    clusters.filter(|k| k.purpose == ClusterPurpose::Gpu && k.meta.state != State::Desired)
}

/// Finds the repeated entries of lists of ids (a pool's nodes, an ArgoCD's `manages`, a
/// pattern's members): two entries name the same component exactly when their ids are equal.
#[derive(Default)]
pub(crate) struct Repeats<'t> {
    named: HashSet<&'t str>,
}

impl<'t> Repeats<'t> {
    /// Starts the next list (call it before the first): no entry is named yet.
    pub(crate) fn next_list(&mut self) {
        self.named.clear();
    }

    /// Whether the current list named this id before.
    pub(crate) fn repeated(&mut self, id: &'t str) -> bool {
        !self.named.insert(id)
    }

    /// Whether the current list named this id, without counting this as naming it.
    pub(crate) fn named(&self, id: &str) -> bool {
        self.named.contains(id)
    }
}

/// A document's sentence as a finding shows it: a table row's tab-separated cells read as the
/// table's columns (`a | b`). Every rule that quotes a document renders it through here, so a
/// quote reads the same in DOC-001, DOC-002 and GPU-002; the file keeps the tab, as the document
/// writes it.
pub(crate) fn quoted(text: &str) -> String {
    text.replace('\t', " | ")
}

/// What the file's `contradictions:` record of the documents' disagreement on `subject` (and
/// `field`: `None` for the subject's own state) says, as a clause to append to a finding that
/// rests on the state or value the file follows: the other claims' sentences against the
/// followed ones, and what the file follows. Empty when no record is about it.
pub(crate) fn disputes(topo: &Topology, subject: &str, field: Option<&str>) -> String {
    topo.contradictions()
        .iter()
        .filter(|c| c.subject == subject && c.field.as_deref() == field)
        .map(|c| {
            let followed = |x: &crate::model::DocumentClaim| {
                x.state == c.follows
                    && (c.follows_value.is_none() || x.value == c.follows_value)
            };
            let says = |keep: bool| {
                c.claims
                    .iter()
                    .filter(|x| followed(x) == keep)
                    .map(|x| format!("«{}»", quoted(&x.quote.text)))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            let follows = match &c.follows_value {
                Some(v) => format!("{}, `{v}`", c.follows),
                None => c.follows.to_string(),
            };
            format!(
                "; the documents disagree on {subject} (contradiction {}): {} against {}, and the file follows {follows}",
                c.id,
                says(false),
                says(true)
            )
        })
        .collect()
}

fn site_pair<'a>(a: &'a SiteId, b: &'a SiteId) -> (&'a str, &'a str) {
    if a.as_str() <= b.as_str() {
        (a.as_str(), b.as_str())
    } else {
        (b.as_str(), a.as_str())
    }
}

/// Collects the findings of one rule.
pub(crate) struct Sink<'t> {
    topo: &'t Topology,
    file: &'t str,
    rule: RuleId,
    findings: Vec<Finding>,
}

impl<'t> Sink<'t> {
    pub(crate) fn new(topo: &'t Topology, file: &'t str) -> Self {
        Sink {
            topo,
            file,
            rule: STATIC_CHECKS[0].0,
            findings: Vec::new(),
        }
    }

    pub(crate) fn set_rule(&mut self, rule: RuleId) {
        self.rule = rule;
    }

    pub(crate) fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    /// A report location for a model location (unknown locations point at the file's start).
    pub(crate) fn location(&self, at: ModelLocation) -> Location {
        Location::new(self.file, at.line, at.column)
    }

    /// Emits a finding on component `c`, at `at` in the file.
    pub(crate) fn emit(
        &mut self,
        severity: Severity,
        c: ComponentRef<'_>,
        at: ModelLocation,
        message: String,
    ) {
        let site = self.topo.site_of(c).map(|s| s.as_str().to_owned());
        let location = self.location(at);
        self.findings.push(Finding {
            rule: self.rule,
            severity,
            subject: Subject::Component(c.id()),
            site,
            message,
            location,
            suppressed: None,
        });
    }

    /// Emits a finding on component `c` at the location of its field `field`.
    pub(crate) fn emit_at(
        &mut self,
        severity: Severity,
        c: ComponentRef<'_>,
        field: &str,
        message: String,
    ) {
        let at = c.meta().at(field);
        self.emit(severity, c, at, message);
    }

    /// Emits a finding about the topology as a whole.
    pub(crate) fn emit_topology(&mut self, severity: Severity, at: ModelLocation, message: String) {
        let location = self.location(at);
        self.findings.push(Finding {
            rule: self.rule,
            severity,
            subject: Subject::Topology,
            site: None,
            message,
            location,
            suppressed: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::model::Topology;
    use crate::testing::{Shape, generate};

    fn topology() -> Topology {
        let shape = Shape {
            sites: 2,
            hosts_per_site: 4,
            guests: 60,
            random_states: false,
        };
        generate(shape, 7)
    }

    fn id<T: std::str::FromStr>(text: &str) -> T
    where
        T::Err: std::fmt::Debug,
    {
        text.parse().expect("a valid id")
    }

    /// The checks rely on the topology's lookups resolving an id as `Topology::host` and friends
    /// do: the first component with the id wins, and a list that names a component twice yields
    /// it twice.
    #[test]
    fn lookups_follow_ids_with_the_first_component_winning() {
        let mut t = topology();
        let (guest, first, pool) = t.edit(|parts| {
            let guest = parts.k3s_clusters[0].nodes[1].clone();
            // A later cluster lists the same guest; a second host takes the first's id, in
            // another site, and the guest runs on that id.
            parts.k3s_clusters[1].nodes.insert(0, guest.clone());
            let mut twin = parts.hosts[0].clone();
            twin.site = id("elsewhere");
            parts.hosts.push(twin);
            let host = parts.hosts[0].id.clone();
            let g = parts.guests.iter_mut().find(|g| g.id == guest);
            g.expect("the node guest").host = host.clone();
            // An ArgoCD manages the first cluster twice; a pool lists the first host twice.
            let k = parts.k3s_clusters[0].id.clone();
            parts.argocd[0].manages.push(k.clone());
            let pool = &mut parts.linstor_pools[0];
            pool.nodes[0].host = host;
            pool.nodes.push(pool.nodes[0].clone());
            (guest, k, pool.id.clone())
        });
        let (k, field) = t.listing_of(&guest).expect("the guest is listed");
        assert_eq!((&k.id, field), (&first, 1));
        assert_eq!(t.cluster_of_guest(&guest).map(|k| &k.id), Some(&first));
        let later = &t.k3s_clusters()[1];
        assert_eq!(
            t.nodes_of(later).next().map(|(i, g)| (i, &g.id)),
            Some((0, &guest))
        );

        let g = t.guest(&guest).expect("the guest");
        let original = &t.hosts()[0];
        assert_eq!(t.host_of(g).map(|h| &h.site), Some(&original.site));
        let twin = t.hosts().last().expect("the twin host");
        let pools: Vec<&str> = t.pools_of_host(twin).map(|p| p.id.as_str()).collect();
        let of_original: Vec<&str> = t.pools_of_host(original).map(|p| p.id.as_str()).collect();
        assert_eq!(pools, of_original);
        let entries = t.linstor_pools()[0].nodes.iter();
        let listed = entries.filter(|n| n.host == original.id).count();
        assert!(listed >= 2);
        assert_eq!(
            pools.iter().filter(|p| **p == pool.as_str()).count(),
            listed
        );

        let k = &t.k3s_clusters()[0];
        let managers: Vec<&str> = t.managers_of(k).map(|a| a.id.as_str()).collect();
        let argocd = t.argocd()[0].id.as_str();
        assert_eq!(managers.iter().filter(|a| **a == argocd).count(), 2);
    }

    #[test]
    fn a_guest_follows_its_storage_backup_and_host_tier() {
        let t = topology();
        let g = &t.guests()[0];
        assert_eq!(t.pool_of(g).map(|p| &p.id), g.storage.as_ref());
        assert_eq!(t.backup_of(g).map(|p| &p.id), g.backup.as_ref());
        let h = t.host_of(g).expect("the host");
        assert_eq!(
            t.proxmox_cluster_of(h).map(|c| &c.id),
            h.proxmox_cluster.as_ref()
        );
        assert_eq!(t.tier_of(h).map(|x| &x.id), h.tier.as_ref());
        let mut unset = g.clone();
        unset.storage = None;
        unset.backup = None;
        unset.host = id("no-such-host");
        assert!(t.pool_of(&unset).is_none() && t.backup_of(&unset).is_none());
        assert!(t.host_of(&unset).is_none());
    }
}
