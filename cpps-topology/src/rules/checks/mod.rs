//! The static checks: one function per rule with a static part, over indexes built once.
//!
//! Every check receives the [`Ctx`] (the topology with its references resolved to positions when
//! it was built, see [`Refs`]) and a [`Sink`] that only emits findings of the check's own rule. No
//! check compares every component with every other: each iterates one list and follows its
//! references by position (or, for the few lists that do not grow with the guests, by id in a
//! `HashMap`), so a check costs O(n) and the whole run O(n log n) with the final sort. A pass over
//! the guests, hosts or K3s clusters filters on their packed facts ([`Refs`]: a few bytes each)
//! and reads a component itself only where it may emit; repeated references in a list are found
//! by position ([`Repeats`]). Ids and field paths are formatted only when a finding is emitted.
//!
//! Checks beyond this table (the live rules, the IaC rules) join the same report through
//! [`crate::check::ExtraChecks`] and [`crate::check::run`].

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::RuleId;
use crate::finding::{Finding, Location, Severity, Subject};
use crate::model::{
    ArgoCd, ClusterFacts, ComponentRef, Host, K3sCluster, Location as ModelLocation, Pos, Refs,
    Site, SiteId, SiteKey, State, TierCapabilities, Topology,
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

/// The topology, its resolved references ([`Refs`]: built once with the topology) and the one
/// index the checks add: the most mature link between two sites.
pub(crate) struct Ctx<'t> {
    pub(crate) topo: &'t Topology,
    /// The references of the topology resolved to positions, and its site keys.
    pub(crate) refs: &'t Refs,
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
        Ctx {
            topo,
            refs: topo.refs(),
            best_link,
        }
    }

    /// The most mature WireGuard link between sites `a` and `b`.
    pub(crate) fn link_state(&self, a: &SiteId, b: &SiteId) -> Option<State> {
        self.best_link.get(&site_pair(a, b)).copied()
    }

    /// The ArgoCD instances (positions, see [`Ctx::argocd_at`]) that list K3s cluster `ki`
    /// among their `manages`.
    pub(crate) fn managers_of(&self, ki: usize) -> &'t [u32] {
        self.refs.managers_of(ki)
    }

    /// The ArgoCD at a position of [`Ctx::managers_of`].
    pub(crate) fn argocd_at(&self, a: u32) -> &'t ArgoCd {
        &self.topo.argocd()[a as usize]
    }

    /// The K3s clusters that ArgoCD `ai` manages, with the position of the entry in
    /// `manages` (entries naming no cluster are left out).
    pub(crate) fn managed_by(&self, ai: usize) -> impl Iterator<Item = (usize, usize)> + 't {
        self.refs
            .argocd_manages
            .of(ai)
            .iter()
            .enumerate()
            .filter_map(|(i, k)| k.get().map(|k| (i, k)))
    }

    /// The declared site of a site key (none for an id that no site declares).
    pub(crate) fn site(&self, key: SiteKey) -> Option<&'t Site> {
        self.topo.sites().get(key.index())
    }

    /// The host of guest `gi` with its position.
    pub(crate) fn host_of_guest_at(&self, gi: usize) -> Option<(usize, &'t Host)> {
        let hi = self.refs.guest_host.get(gi)?.get()?;
        self.topo.hosts().get(hi).map(|h| (hi, h))
    }

    /// The capabilities of the hardware tier of host `hi`: none when the host has no tier, or
    /// one the topology does not model (each rule that judges a host on its tier says what such
    /// an unknown means for it: CNI-001, GPU-002, DOC-002).
    pub(crate) fn tier_capabilities(&self, hi: usize) -> Option<&'t TierCapabilities> {
        let tier = self.refs.host_tier.get(hi)?.get()?;
        self.topo.tiers().get(tier).map(|t| &t.capabilities)
    }

    /// The node guests of K3s cluster `ki` with their field position (`nodes[i]`), in order.
    pub(crate) fn nodes_of(&self, ki: usize) -> impl Iterator<Item = (usize, usize)> + 't {
        self.refs
            .cluster_nodes
            .of(ki)
            .iter()
            .map(|n| (n.field as usize, n.guest as usize))
    }

    /// The K3s clusters whose packed facts pass `keep`, with their position and facts: the pass
    /// reads the facts of every cluster and a cluster itself only where `keep` holds.
    pub(crate) fn clusters_where(
        &self,
        keep: impl Fn(&ClusterFacts) -> bool,
    ) -> impl Iterator<Item = (usize, &'t ClusterFacts, &'t K3sCluster)> {
        self.refs
            .cluster_facts
            .iter()
            .zip(self.topo.k3s_clusters())
            .enumerate()
            .filter_map(move |(ki, (f, k))| keep(f).then_some((ki, f, k)))
    }

    /// Whether K3s cluster `ki` lists any guest of the topology as a node.
    pub(crate) fn has_nodes(&self, ki: usize) -> bool {
        !self.refs.cluster_nodes.of(ki).is_empty()
    }
}

/// Finds the repeated entries of lists of references resolved to positions (a pool's nodes, an
/// ArgoCD's `manages`, a pattern's members), O(1) per entry: each position keeps the number of
/// the list that last named it, so one array serves every list of a check. An entry that names
/// no component (a topology built in code) is compared by its text: two entries name the same
/// component exactly when their ids are equal.
pub(crate) struct Repeats<'t> {
    last_list: Vec<u32>,
    list: u32,
    unresolved: HashSet<&'t str>,
}

impl<'t> Repeats<'t> {
    /// For lists of positions below `positions`.
    pub(crate) fn new(positions: usize) -> Self {
        Repeats {
            last_list: vec![0; positions],
            list: 0,
            unresolved: HashSet::new(),
        }
    }

    /// Starts the next list (call it before the first): no entry is named yet.
    pub(crate) fn next_list(&mut self) {
        self.list += 1;
        self.unresolved.clear();
    }

    /// Whether the current list named this entry before: `at` is its position, `id` its text.
    pub(crate) fn repeated(&mut self, at: Pos, id: &'t str) -> bool {
        match at.get().and_then(|i| self.last_list.get_mut(i)) {
            Some(last) => std::mem::replace(last, self.list) == self.list,
            None => !self.unresolved.insert(id),
        }
    }

    /// Whether the current list named this entry, without counting this as naming it.
    pub(crate) fn named(&self, at: Pos, id: &str) -> bool {
        match at.get().and_then(|i| self.last_list.get(i)) {
            Some(&last) => last == self.list,
            None => self.unresolved.contains(id),
        }
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
