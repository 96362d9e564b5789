//! What the documents ask beyond the team's catalogue: DOC-001 (the documents contradict each
//! other), DOC-002 (a rejected alternative is adopted), DOC-003 (an essential service of a site
//! sits in another site), DOC-004 (storage metrics before production), DOC-005 (the NVRM
//! alert), DOC-006 (a PBS in service names its VM, which uses no GPU), DOC-007 (ArgoCD does not wait for
//! Cilium) and DOC-008 (the GPU LXC on LINSTOR and in PBS).

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use super::{Ctx, Sink, gpu_clusters_in_service, quoted, scaled};
use crate::finding::Severity;
use crate::model::{
    AlertKind, CapabilityKind, ClusterPurpose, CniKind, ComponentRef, GuestKind, Item, K3sCluster,
    MetricsSource, NodePlacement, PatternKind, RejectedAlternative, State, Topology,
};

fn cni_name(c: CniKind) -> &'static str {
    match c {
        CniKind::Flannel => "flannel",
        CniKind::Cilium => "Cilium",
        CniKind::Calico => "Calico",
    }
}

/// DOC-001: a fact the two documents state differently, recorded in `contradictions:`, is
/// reported (as GPU-002 reports the Franca GPU placement); a record whose chosen state no
/// document gives, or that the subject itself does not follow, is a mistake of the file.
pub(super) fn doc_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for c in topo.contradictions() {
        let Some(subject) = topo.component(&c.subject) else {
            continue;
        };
        let what = match &c.field {
            Some(field) => format!("{} {}.{field}", subject.kind(), c.subject),
            None => format!("{} {}", subject.kind(), c.subject),
        };
        let states: BTreeSet<State> = c.claims.iter().map(|claim| claim.state).collect();
        if !states.contains(&c.follows) {
            sink.emit(
                Severity::Warning,
                subject,
                c.location,
                format!(
                    "contradiction {}: the file follows `{}` for {what}, a state none of its claims gives",
                    c.id, c.follows
                ),
            );
        } else if c.field.is_none() && subject.meta().state != c.follows {
            sink.emit(
                Severity::Warning,
                subject,
                c.location,
                format!(
                    "contradiction {}: the file says it follows `{}` for {what}, but the component is {}",
                    c.id,
                    c.follows,
                    subject.meta().state
                ),
            );
        }
        // The claims may also disagree on a value of the subject's field (a placement, a count):
        // the file then follows one of their values.
        let values: BTreeSet<&str> = c
            .claims
            .iter()
            .filter_map(|claim| claim.value.as_deref())
            .collect();
        let follows_value = c.follows_value.as_deref();
        if !values.is_empty() && follows_value.is_none_or(|v| !values.contains(v)) {
            sink.emit(
                Severity::Warning,
                subject,
                c.location,
                format!(
                    "contradiction {}: its claims give values to {what} but the file follows {}",
                    c.id,
                    follows_value.map_or("none of them".to_owned(), |v| format!(
                        "`{v}`, a value none of its claims gives"
                    ))
                ),
            );
        }
        if states.len() < 2 && values.len() < 2 {
            // The claims agree: nothing to report.
            continue;
        }
        let with_value = |state: State, value: Option<&str>| match value {
            Some(v) => format!("{state}, `{v}`"),
            None => state.to_string(),
        };
        let claims: Vec<String> = c
            .claims
            .iter()
            .map(|claim| {
                format!(
                    "{} says {} («{}»)",
                    claim.quote.source,
                    with_value(claim.state, claim.value.as_deref()),
                    quoted(&claim.quote.text)
                )
            })
            .collect();
        sink.emit(
            Severity::Info,
            subject,
            c.location,
            format!(
                "the documents disagree on {what}: {}; the file follows {}",
                claims.join("; "),
                with_value(c.follows, follows_value)
            ),
        );
    }
}

/// Whether `text` holds `word` (both already lower case) as a whole word or phrase.
fn mentions(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// The texts of a component that name what it runs: a capability's or item's tool, a LINSTOR
/// pool's provider, a guest's role. Notes are prose (they may name a rejected option to say it
/// was rejected) and are not read.
fn tool_texts(c: ComponentRef<'_>) -> Vec<(&str, &'static str)> {
    let mut out = Vec::new();
    match c {
        ComponentRef::Capability(cap) => out.extend(cap.tool.as_deref().map(|t| (t, "tool"))),
        ComponentRef::Item(item) => out.extend(item.tool.as_deref().map(|t| (t, "tool"))),
        ComponentRef::LinstorPool(p) => out.push((p.provider.as_str(), "provider")),
        ComponentRef::Guest(g) => out.extend(g.role.as_deref().map(|t| (t, "role"))),
        _ => {}
    }
    out
}

/// The placement of a GPU cluster: its intended placement, else its first node's.
fn gpu_placement(topo: &Topology, k: &K3sCluster) -> Option<NodePlacement> {
    k.node_placement.or_else(|| {
        k.nodes
            .iter()
            .find_map(|n| topo.guest(n))
            .map(|g| match (g.kind, g.privileged) {
                (GuestKind::Vm, _) => NodePlacement::Vm,
                (GuestKind::Lxc, true) => NodePlacement::LxcPrivileged,
                (GuestKind::Lxc, false) => NodePlacement::Lxc,
            })
    })
}

/// What a GPU cluster's hosts' tier says of its placement.
#[derive(Debug, PartialEq, Eq)]
enum TierSays<'t> {
    /// Every host (nodes' hosts, or candidate hosts) is of a tier whose GPU is reachable only
    /// through a privileged LXC: the placement is not a choice.
    Forced,
    /// A host is of a tier that allows another placement.
    AllowsOtherwise,
    /// No host allows otherwise, but this one has no tier the topology knows (or no host is
    /// modelled): whether the placement is forced is unknown.
    Unknown(Option<&'t str>),
}

fn tier_says<'t>(ctx: &Ctx<'t>, k: &'t K3sCluster) -> TierSays<'t> {
    let topo = ctx.topo;
    let mut unknown = None;
    let mut any = false;
    for h in k
        .nodes
        .iter()
        .filter_map(|n| topo.guest(n))
        .map(|g| &g.host)
        .chain(&k.candidate_hosts)
        .filter_map(|h| topo.host(h))
    {
        any = true;
        match ctx.tier_capabilities(h) {
            Some(caps) if !caps.gpu_lxc_only => return TierSays::AllowsOtherwise,
            Some(_) => {}
            None => unknown = unknown.or(Some(h.id.as_str())),
        }
    }
    match (any, unknown) {
        (false, _) => TierSays::Unknown(None),
        (true, None) => TierSays::Forced,
        (true, Some(host)) => TierSays::Unknown(Some(host)),
    }
}

/// DOC-002: a component adopts an alternative the decision table rejects, in production or in
/// the plan; the severity follows its state. An item that `replaces` the alternative where it is
/// still in use (a planned migration) lowers an adoption in service to a warning.
pub(super) fn doc_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    if topo.rejected().is_empty() {
        return;
    }
    // Built once: the items that replace each rejected alternative, every component's tool
    // texts in lower case and its decision-table fields, so that each alternative costs one
    // pass over them.
    let replacements = replacements(topo);
    let tools = tool_texts_lowercase(topo);
    let choices = decision_choices(topo);
    let in_service = topo
        .k3s_clusters()
        .iter()
        .filter(|k| k.meta.state != State::Desired)
        .count();
    for r in topo.rejected() {
        flagged_by_known_rule(r, sink);
        let signals = &r.adopted_when;
        // Rejected only until the criterion of scale is met (Karmada: «critério: 5+ clusters»):
        // from there on MESH-003 asks to review it, with the same count.
        let criterion = match signals.until_clusters {
            Some(n) if in_service >= n as usize => continue,
            Some(n) => format!("; {in_service} K3s cluster(s) in service, the criterion is {n}+"),
            None => String::new(),
        };
        let adoption = Adoption {
            topo,
            r,
            replacements: &replacements,
            criterion,
        };
        adoption.stated_choices(sink, &choices);
        adoption.named_tools(sink, &tools);
        adoption.cni_and_patterns(sink);
        if signals.uniform_gpu_placement {
            adoption.uniform_gpu_placement(ctx, sink);
        }
    }
}

/// The items that replace each rejected alternative, by the alternative's id.
fn replacements(topo: &Topology) -> HashMap<&str, Vec<&Item>> {
    let mut replacements: HashMap<&str, Vec<&Item>> = HashMap::new();
    for item in topo.items() {
        if let Some(r) = &item.replaces {
            replacements.entry(r.as_str()).or_default().push(item);
        }
    }
    replacements
}

/// Every component's tool texts in lower case, as `(component, field, text)`; deferred
/// components adopt nothing yet.
fn tool_texts_lowercase(topo: &Topology) -> Vec<(ComponentRef<'_>, &'static str, String)> {
    topo.components()
        .filter(|c| !c.meta().deferred)
        .flat_map(|c| {
            tool_texts(c)
                .into_iter()
                .map(move |(text, field)| (c, field, text.to_lowercase()))
        })
        .collect()
}

/// Every decision-table field stated by a component, as `(component, field, value)`.
fn decision_choices(topo: &Topology) -> Vec<(ComponentRef<'_>, &'static str, &'static str)> {
    let mut choices: Vec<(ComponentRef<'_>, &'static str, &'static str)> = Vec::new();
    for p in topo.linstor_pools() {
        choices.extend(
            p.backend
                .map(|b| (ComponentRef::LinstorPool(p), "backend", b.as_str())),
        );
    }
    for a in topo.argocd() {
        choices.extend(
            a.repo_layout
                .map(|r| (ComponentRef::ArgoCd(a), "repo_layout", r.as_str())),
        );
    }
    for cap in topo.capabilities() {
        let c = ComponentRef::Capability(cap);
        choices.extend(cap.choices.pairs().into_iter().map(|(f, v)| (c, f, v)));
    }
    choices
}

/// DOC-002's warning on a rejected alternative said to be flagged by a rule that is not a
/// static rule of the catalogue.
fn flagged_by_known_rule(r: &RejectedAlternative, sink: &mut Sink<'_>) {
    if let Some(rule) = &r.flagged_by {
        let known = crate::rules::lookup(rule).is_some_and(|i| i.kind.has_static_part());
        if !known {
            sink.emit_topology(
                Severity::Warning,
                r.location,
                format!(
                    "rejected alternative {} is said to be flagged by `{rule}`, which is not a static rule of the catalogue",
                    r.id
                ),
            );
        }
    }
}

/// One rejected alternative, and what DOC-002's findings on its adoptions say.
struct Adoption<'a, 't> {
    topo: &'t Topology,
    r: &'t RejectedAlternative,
    /// The items that replace each rejected alternative.
    replacements: &'a HashMap<&'t str, Vec<&'t Item>>,
    /// The criterion of scale not yet met, as the end of the message, or empty.
    criterion: String,
}

impl Adoption<'_, '_> {
    /// The finding on `c` adopting the alternative by its `field` (`how`). `base`: an adoption
    /// the topology shows is an error; one that rests on an unknown (a host without a tier) a
    /// warning. Both follow the component's state.
    fn emit(
        &self,
        sink: &mut Sink<'_>,
        base: Severity,
        c: ComponentRef<'_>,
        field: &str,
        how: String,
    ) {
        let (topo, r, criterion) = (self.topo, self.r, &self.criterion);
        let meta = c.meta();
        if r.adopted_when.now_only && meta.state == State::Desired {
            // Rejected «agora»: a planned adoption is the decision's own future option.
            return;
        }
        let replacement = self
            .replacements
            .get(r.id.as_str())
            .into_iter()
            .flatten()
            .find(|item| match &item.cluster {
                Some(k) => k.as_str() == c.id_str(),
                None => item
                    .site
                    .as_ref()
                    .is_none_or(|s| topo.site_of(c).as_ref() == Some(s)),
            });
        let mut severity = scaled(base, meta.state);
        let mut planned = String::new();
        if let Some(item) = replacement {
            if severity == Severity::Error {
                severity = Severity::Warning;
            }
            planned = format!("; item {} ({}) replaces it", item.id, item.meta.state);
        }
        sink.emit_at(
        severity,
        c,
        field,
        format!(
            "{} {} ({}) {how}: «{}» is the alternative the decision table rejects for «{}» (decision: «{}»; «{}»){criterion}{planned}",
            c.kind(),
            c.id_str(),
            meta.state,
            quoted(&r.alternative),
            quoted(&r.topic),
            quoted(&r.decision),
            quoted(&r.reason)
        ),
    );
    }

    /// The decision-table fields: a component stating the rejected option adopts it.
    fn stated_choices(
        &self,
        sink: &mut Sink<'_>,
        choices: &[(ComponentRef<'_>, &'static str, &'static str)],
    ) {
        let signals = &self.r.adopted_when;
        if !signals.choices.is_empty() {
            for (c, field, value) in choices {
                if signals.choices.contains(&(*field, *value)) {
                    self.emit(
                        sink,
                        Severity::Error,
                        *c,
                        field,
                        format!("states `{field}: {value}`"),
                    );
                }
            }
        }
    }

    /// The tools: a component naming the alternative in a tool text adopts it, once.
    fn named_tools(&self, sink: &mut Sink<'_>, tools: &[(ComponentRef<'_>, &'static str, String)]) {
        let signals = &self.r.adopted_when;
        if !signals.tools.is_empty() {
            let mut last: Option<&str> = None;
            for (c, field, text) in tools {
                // One finding per component, even when two of its texts name the alternative.
                if last == Some(c.id_str()) {
                    continue;
                }
                if let Some(word) = signals.tools.iter().find(|w| mentions(text, w)) {
                    self.emit(
                        sink,
                        Severity::Error,
                        *c,
                        field,
                        format!("names `{word}` in its {field}"),
                    );
                    last = Some(c.id_str());
                }
            }
        }
    }

    /// A general-purpose cluster on the rejected CNI; a pattern of a rejected kind that is not
    /// deferred.
    fn cni_and_patterns(&self, sink: &mut Sink<'_>) {
        let (topo, signals) = (self.topo, &self.r.adopted_when);
        for k in topo.k3s_clusters() {
            if k.purpose == ClusterPurpose::General
                && !k.meta.deferred
                && signals.cni.contains(&k.cni.kind)
            {
                self.emit(
                    sink,
                    Severity::Error,
                    ComponentRef::K3sCluster(k),
                    "cni.kind",
                    format!("is a general-purpose cluster on {}", cni_name(k.cni.kind)),
                );
            }
        }
        for p in topo.patterns() {
            if !p.meta.deferred && signals.patterns.contains(&p.kind) {
                let kind = match p.kind {
                    PatternKind::ClusterMesh => "ClusterMesh",
                    PatternKind::MultiKueue => "MultiKueue",
                    PatternKind::ApplicationSet => "ApplicationSet",
                    PatternKind::Karmada => "Karmada",
                };
                self.emit(
                    sink,
                    Severity::Error,
                    ComponentRef::Pattern(p),
                    "state",
                    format!("is a {kind} pattern that is not deferred"),
                );
            }
        }
    }

    /// The GPU clusters of two or more sites all placed alike, where neither the tier nor a
    /// document makes that placement theirs.
    fn uniform_gpu_placement(&self, ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
        let topo = self.topo;
        let gpu: Vec<(&K3sCluster, NodePlacement)> = topo
            .k3s_clusters()
            .iter()
            .filter(|k| k.purpose == ClusterPurpose::Gpu)
            .filter_map(|k| gpu_placement(topo, k).map(|p| (k, p)))
            .collect();
        let sites: BTreeSet<&str> = gpu.iter().map(|(k, _)| k.site.as_str()).collect();
        let uniform = gpu.windows(2).all(|w| w[0].1 == w[1].1);
        if sites.len() >= 2 && uniform {
            for (k, p) in &gpu {
                // A placement the tier forces is not a standardisation; one a document
                // states for the cluster is that document's decision (GPU-002 reports the
                // documents' disagreement).
                let backed = k.placement_claims.iter().any(|c| c.placement == *p);
                if backed {
                    continue;
                }
                let sites = sites.iter().copied().collect::<Vec<_>>().join(", ");
                let (base, how) = match tier_says(ctx, k) {
                    TierSays::Forced => continue,
                    TierSays::AllowsOtherwise => (
                        Severity::Error,
                        format!(
                            "is placed like the GPU clusters of every other site although its hosts' tier allows otherwise, and no document states that placement for it ({sites})"
                        ),
                    ),
                    TierSays::Unknown(host) => (
                        Severity::Warning,
                        format!(
                            "is placed like the GPU clusters of every other site, no document states that placement for it ({sites}), and whether its hosts' tier forces it is unknown ({})",
                            match host {
                                Some(h) => format!("host {h} has no hardware tier"),
                                None => "no host of it is modelled".to_owned(),
                            }
                        ),
                    ),
                };
                self.emit(
                    sink,
                    base,
                    ComponentRef::K3sCluster(k),
                    "node_placement",
                    how,
                );
            }
        }
    }
}

/// DOC-003: nothing essential of a site depends on the cross-site link. A MultiKueue whose
/// manager sits in a site where none of its member clusters runs makes every member's batch
/// queue depend on the link; an identity provider or DNS placed in one site serves another site
/// that has none of its own. (A site's ArgoCD in another site is SITE-001 and GITOPS-001; its
/// backups, SITE-001.)
pub(super) fn doc_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        if p.kind != PatternKind::MultiKueue {
            continue;
        }
        let Some(manager) = p.manager.as_ref().and_then(|m| topo.k3s_cluster(m)) else {
            continue;
        };
        let members: Vec<&K3sCluster> = p
            .members
            .iter()
            .filter_map(|m| topo.k3s_cluster(m))
            .collect();
        if members.is_empty() || members.iter().any(|k| k.site == manager.site) {
            continue;
        }
        let sites: BTreeSet<&str> = members.iter().map(|k| k.site.as_str()).collect();
        sink.emit_at(
            scaled(Severity::Warning, p.meta.state),
            ComponentRef::Pattern(p),
            "manager",
            format!(
                "MultiKueue {} is managed from {} in site {}, where none of its clusters runs: the batch queue of {} depends on the cross-site link",
                p.id,
                manager.id,
                manager.site,
                sites.into_iter().collect::<Vec<_>>().join(", ")
            ),
        );
    }
    for kind in [CapabilityKind::Iam, CapabilityKind::Dns] {
        let of_kind: Vec<_> = topo
            .capabilities()
            .iter()
            .filter(|c| c.kind == kind)
            .collect();
        let served: BTreeSet<&str> = of_kind
            .iter()
            .filter_map(|c| c.site.as_ref().map(|s| s.as_str()))
            .collect();
        let without: Vec<&str> = topo
            .sites()
            .iter()
            .map(|s| s.id.as_str())
            .filter(|s| !served.contains(s))
            .collect();
        if of_kind.is_empty() || without.is_empty() {
            continue;
        }
        let what = if kind == CapabilityKind::Iam {
            "identity provider"
        } else {
            "DNS"
        };
        let unsited: Vec<_> = of_kind.iter().filter(|c| c.site.is_none()).collect();
        if !unsited.is_empty() {
            // Where it runs is not stated: whether the sites without one of their own depend on
            // the link cannot be told, which is said, never passed.
            for c in unsited {
                sink.emit_at(
                    scaled(Severity::Warning, c.meta.state),
                    ComponentRef::Capability(c),
                    "kind",
                    format!(
                        "cannot tell whether site(s) {} depend on the cross-site link for their {what}: {what} {} states no `site`",
                        without.join(", "),
                        c.id
                    ),
                );
            }
            continue;
        }
        for c in &of_kind {
            sink.emit_at(
                scaled(Severity::Warning, c.meta.state),
                ComponentRef::Capability(c),
                "site",
                format!(
                    "{what} {} runs in site {} and site(s) {} have none of their own: their logins or names depend on the cross-site link",
                    c.id,
                    c.site.as_ref().map_or("", |s| s.as_str()),
                    without.join(", ")
                ),
            );
        }
    }
}

/// DOC-004: a LINSTOR pool or a PBS in production has its metrics collected by an observability
/// capability in production ("Métricas LINSTOR/PBS antes de declarar produção").
pub(super) fn doc_004(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let collectors = |source: MetricsSource| -> (bool, Vec<String>) {
        let caps: Vec<_> = topo
            .capabilities()
            .iter()
            .filter(|c| c.kind == CapabilityKind::Observability && c.metrics.contains(&source))
            .collect();
        let live = caps.iter().any(|c| c.meta.state == State::Validated);
        let names = caps
            .iter()
            .map(|c| format!("{} is {}", c.id, c.meta.state))
            .collect();
        (live, names)
    };
    uncollected(
        sink,
        collectors(MetricsSource::Linstor),
        topo.linstor_pools()
            .iter()
            .filter(|p| p.meta.state == State::Validated)
            .map(ComponentRef::LinstorPool),
        ("LINSTOR pool", "LINSTOR"),
    );
    uncollected(
        sink,
        collectors(MetricsSource::Pbs),
        topo.pbs()
            .iter()
            .filter(|p| p.meta.state == State::Validated)
            .map(ComponentRef::Pbs),
        ("PBS", "PBS"),
    );
}

/// DOC-004's finding on each of `components` (validated ones, each a `what`, whose metrics are
/// `metrics`) unless a capability in production collects them: `collected` says whether one does,
/// and names the capabilities that would.
fn uncollected<'t>(
    sink: &mut Sink<'_>,
    (collected, names): (bool, Vec<String>),
    components: impl Iterator<Item = ComponentRef<'t>>,
    (what, metrics): (&str, &str),
) {
    if collected {
        return;
    }
    let why = if names.is_empty() {
        "none is declared".to_owned()
    } else {
        names.join(", ")
    };
    // The message after the component's id is the same for each: written once.
    let rest = format!(
        " is validated but no observability capability in production collects {metrics} metrics ({why})"
    );
    for c in components {
        let message = [what, " ", c.id_str(), &rest].concat();
        sink.emit_at(Severity::Warning, c, "state", message);
    }
}

/// DOC-005: a GPU cluster in service has an NVRM alert at least as mature as itself (the driver
/// runbook: "alerta em erros NVRM"). GPU-005's live part reads the errors themselves.
pub(super) fn doc_005(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let best = topo
        .capabilities()
        .iter()
        .filter(|c| c.kind == CapabilityKind::Observability)
        .flat_map(|c| {
            c.alerts
                .iter()
                .filter(|a| a.kind == AlertKind::NvrmErrors)
                .map(|a| a.state.min(c.meta.state))
        })
        .max();
    for k in gpu_clusters_in_service(ctx.topo) {
        if best.is_some_and(|b| b >= k.meta.state) {
            continue;
        }
        let have = match best {
            Some(b) => format!("the NVRM alert is only {b}"),
            None => "no NVRM alert is declared".to_owned(),
        };
        sink.emit_at(
            Severity::Warning,
            ComponentRef::K3sCluster(k),
            "state",
            format!(
                "GPU cluster {} is {} but {have}: the driver runbook asks for an alert on NVRM errors (dmesg + nvidia-smi)",
                k.id, k.meta.state
            ),
        );
    }
}

/// DOC-006: a PBS in service names the VM it runs in ("VM dedicada por site"), and that VM uses
/// no GPU. That the VM is dedicated (not an LXC, not a K3s node, no other PBS, Traefik or router in
/// it) is REL-002's; a VM in another site, SITE-001's.
pub(super) fn doc_006(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.pbs() {
        let severity = scaled(Severity::Warning, p.meta.state);
        let c = ComponentRef::Pbs(p);
        match p.guest.as_ref() {
            None if p.meta.state != State::Desired => sink.emit_at(
                severity,
                c,
                "state",
                format!(
                    "PBS {} is {} but the file does not say which VM it runs in: a dedicated VM of its site is the decision",
                    p.id, p.meta.state
                ),
            ),
            None => {}
            Some(id) => {
                if let Some(g) = topo.guest(id).filter(|g| g.gpu.is_some()) {
                    sink.emit_at(
                        severity,
                        c,
                        "guest",
                        format!(
                            "PBS {} runs in guest {}, which uses a GPU: a PBS VM is dedicated to backups",
                            p.id, g.id
                        ),
                    );
                }
            }
        }
    }
}

/// DOC-007: an ArgoCD does not wait for Cilium ("não depende de Cilium — pode subir antes/em
/// paralelo"). ADR-009 places ArgoCD SP in the main cluster, which runs Cilium («K3s SP
/// principal: workloads gerais (… ArgoCD SP …)»), so an ArgoCD planned there is the documents'
/// plan (REL-002 wants it in the site's general-purpose cluster): the architecture's sentence
/// is about order. What breaks it is an ArgoCD whose Cilium cluster is deferred: postponed with
/// it, the ArgoCD waits for Cilium.
pub(super) fn doc_007(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for a in topo.argocd() {
        let Some(k) = a.runs_in.as_ref().and_then(|id| topo.k3s_cluster(id)) else {
            continue;
        };
        if k.cni.kind != CniKind::Cilium || !k.meta.deferred {
            continue;
        }
        sink.emit_at(
            Severity::Info,
            ComponentRef::ArgoCd(a),
            "runs_in",
            format!(
                "ArgoCD {} ({}) is planned in {}, a Cilium cluster that is deferred: the ArgoCD waits for it, yet it does not depend on Cilium and can come up before or in parallel with it",
                a.id, a.meta.state, k.id
            ),
        );
    }
}

/// DOC-008: a GPU LXC in service keeps what ADR-009 chose LXC for: its disk on LINSTOR (the
/// runbook's rollback is a LINSTOR snapshot of the LXC) and a PBS backup.
pub(super) fn doc_008(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let has_both = g.storage.is_some() && g.backup.is_some();
        if g.kind != GuestKind::Lxc || g.meta.state == State::Desired || has_both {
            continue;
        }
        let in_gpu_cluster = || {
            topo.cluster_of_guest(&g.id)
                .is_some_and(|k| k.purpose == ClusterPurpose::Gpu)
        };
        if !(g.gpu.is_some() || in_gpu_cluster()) {
            continue;
        }
        let mut missing = Vec::new();
        if g.storage.is_none() {
            missing.push("no LINSTOR pool holds its disk (`storage`)");
        }
        if g.backup.is_none() {
            missing.push("no PBS backs it up (`backup`)");
        }
        if missing.is_empty() {
            continue;
        }
        let field = if g.storage.is_none() { "kind" } else { "state" };
        sink.emit_at(
            scaled(Severity::Warning, g.meta.state),
            ComponentRef::Guest(g),
            field,
            format!(
                "GPU LXC {} is {} but {}: ADR-009 runs the GPU cluster in LXC to keep it on LINSTOR (snapshot before a driver update) and in PBS",
                g.id,
                g.meta.state,
                missing.join(" and ")
            ),
        );
    }
}
