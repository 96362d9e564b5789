//! Kubernetes-level rules: CNI-001…003, GPU-001…004, GPU-006…008, MESH-001…003, GITOPS-001.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use super::{Ctx, Sink, disputes, gpu_clusters_in_service, quoted, scaled};
use crate::finding::Severity;
use crate::model::{
    ClusterPurpose, CniKind, ComponentRef, GuestKind, Host, ItemRole, K3sCluster, NodePlacement,
    Pattern, PatternKind, ReviewSignal, State, TierCapabilities,
};

fn placement_name(p: NodePlacement) -> &'static str {
    match p {
        NodePlacement::Vm => "VM",
        NodePlacement::Lxc => "unprivileged LXC",
        NodePlacement::LxcPrivileged => "privileged LXC",
    }
}

fn cni_name(c: CniKind) -> &'static str {
    match c {
        CniKind::Flannel => "flannel",
        CniKind::Cilium => "Cilium",
        CniKind::Calico => "Calico",
    }
}

/// The field of a cluster that places a node: `nodes[i]` or `candidate_hosts[i]`, formatted only
/// when a finding needs it.
#[derive(Clone, Copy)]
enum NodeField {
    Node(usize),
    Candidate(usize),
}

impl NodeField {
    fn path(self) -> String {
        match self {
            Self::Node(i) => format!("nodes[{i}]"),
            Self::Candidate(i) => format!("candidate_hosts[{i}]"),
        }
    }
}

/// Where a node of a cluster is, or will be.
struct Placed<'t> {
    placement: NodePlacement,
    host: &'t Host,
    field: NodeField,
}

/// Where a cluster's nodes are, or will be: each listed node guest, or each candidate host when
/// no node is listed yet. An iterator, so that a check that skips most placements (the VM nodes)
/// allocates nothing per cluster.
fn placements<'t>(ctx: &Ctx<'t>, k: &'t K3sCluster) -> impl Iterator<Item = Placed<'t>> + 't {
    let topo = ctx.topo;
    let nodes = topo.nodes_of(k).filter_map(move |(i, g)| {
        let placement = match (g.kind, g.privileged) {
            (GuestKind::Vm, _) => NodePlacement::Vm,
            (GuestKind::Lxc, true) => NodePlacement::LxcPrivileged,
            (GuestKind::Lxc, false) => NodePlacement::Lxc,
        };
        Some(Placed {
            placement,
            host: topo.host_of(g)?,
            field: NodeField::Node(i),
        })
    });
    let planned = k.node_placement.filter(|_| k.nodes.is_empty());
    let candidates = planned.into_iter().flat_map(move |placement| {
        k.candidate_hosts
            .iter()
            .enumerate()
            .filter_map(move |(i, id)| {
                Some(Placed {
                    placement,
                    host: topo.host(id)?,
                    field: NodeField::Candidate(i),
                })
            })
    });
    nodes.chain(candidates)
}

/// The K3s clusters that run Cilium, in file order.
fn cilium_clusters<'t>(ctx: &Ctx<'t>) -> impl Iterator<Item = &'t K3sCluster> + 't {
    let clusters = ctx.topo.k3s_clusters().iter();
    clusters.filter(|k| k.cni.kind == CniKind::Cilium)
}

/// CNI-001: Cilium runs on VM nodes; an LXC node is allowed only privileged, on a Tier 3 host
/// (GPU only through LXC), with an explicit exception on the cluster.
pub(super) fn cni_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in cilium_clusters(ctx) {
        // A cluster with neither nodes nor candidate hosts yet is judged on its intended
        // placement alone: a plan to run Cilium on LXC breaks the decision before any node
        // exists.
        if k.nodes.is_empty()
            && k.candidate_hosts.is_empty()
            && let Some(placement) = k.node_placement
            && placement != NodePlacement::Vm
        {
            let why = match (placement, &k.cilium_lxc_exception) {
                (NodePlacement::LxcPrivileged, Some(_)) => {
                    "privileged LXC nodes, with an exception, but no candidate host shows the Tier 3 host the exception needs"
                }
                (NodePlacement::LxcPrivileged, None) => {
                    "privileged LXC nodes without a `cilium_lxc_exception` on the cluster"
                }
                _ => "unprivileged LXC nodes",
            };
            // A plan too: ADR-009 rejects (C) because «Cilium não roda confiavelmente em LXC»,
            // so planning it is at least a warning, never only a review fact.
            sink.emit_at(
                scaled(Severity::Error, k.meta.state).max(Severity::Warning),
                ComponentRef::K3sCluster(k),
                "node_placement",
                format!(
                    "k3s cluster {} plans Cilium on {why}: Cilium is supported on VMs{}",
                    k.id,
                    disputes(ctx.topo, k.id.as_str(), Some("node_placement"))
                ),
            );
            continue;
        }
        for Placed {
            placement,
            host,
            field,
        } in placements(ctx, k)
        {
            if placement == NodePlacement::Vm {
                continue;
            }
            // The host's tier: Tier 3 (GPU only through LXC), another, or unknown (no tier, or
            // one the topology does not model; GPU-002 reports that gap on GPU clusters).
            let tier3 = ctx.tier_capabilities(host).map(|c| c.gpu_lxc_only);
            let excepted =
                placement == NodePlacement::LxcPrivileged && k.cilium_lxc_exception.is_some();
            if excepted && tier3 == Some(true) {
                continue;
            }
            // A privileged LXC with the exception on a host of unknown tier: whether the
            // exception holds is unknown, said as such at a warning, never as "not Tier 3".
            let (severity, why) = if placement == NodePlacement::Lxc {
                (Severity::Error, "an unprivileged LXC".to_owned())
            } else if tier3 == Some(false) {
                (
                    Severity::Error,
                    format!(
                        "a privileged LXC on {}, which is not a Tier 3 host",
                        host.id
                    ),
                )
            } else if !excepted {
                (
                    Severity::Error,
                    "a privileged LXC without a `cilium_lxc_exception` on the cluster".to_owned(),
                )
            } else {
                (
                    Severity::Warning,
                    format!(
                        "a privileged LXC on {}, which has no hardware tier the topology knows, so whether its `cilium_lxc_exception` (Tier 3 only) holds is unknown",
                        host.id
                    ),
                )
            };
            sink.emit_at(
                scaled(severity, k.meta.state).max(Severity::Warning),
                ComponentRef::K3sCluster(k),
                &field.path(),
                format!(
                    "k3s cluster {} runs Cilium with a node that is {why}: Cilium is supported on VMs{}",
                    k.id,
                    disputes(ctx.topo, k.id.as_str(), Some("node_placement"))
                ),
            );
        }
    }
}

/// CNI-002: Cilium 1.16 or later. A Cilium cluster that declares no version, or only a major
/// `1` (no minor), leaves that unknown: said as such, never passed as 1.16 or later.
pub(super) fn cni_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in cilium_clusters(ctx) {
        let (field, message) = match &k.cni.version {
            None => (
                "cni",
                format!(
                    "k3s cluster {} runs Cilium without a `cni.version`: whether it is 1.16 or later is unknown",
                    k.id
                ),
            ),
            Some(v) if v.major() > 1 => continue,
            Some(v) if v.major() == 1 => match v.numbers().get(1) {
                Some(&minor) if minor >= 16 => continue,
                Some(_) => (
                    "cni.version",
                    format!("k3s cluster {} runs Cilium {v}, older than 1.16", k.id),
                ),
                None => (
                    "cni.version",
                    format!(
                        "k3s cluster {} runs Cilium {v} without a minor version: whether it is 1.16 or later is unknown",
                        k.id
                    ),
                ),
            },
            Some(v) => (
                "cni.version",
                format!("k3s cluster {} runs Cilium {v}, older than 1.16", k.id),
            ),
        };
        sink.emit_at(
            scaled(Severity::Warning, k.meta.state),
            ComponentRef::K3sCluster(k),
            field,
            message,
        );
    }
}

/// CNI-003: a Cilium cluster declares NetworkPolicy default-deny.
pub(super) fn cni_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in cilium_clusters(ctx).filter(|k| !k.default_deny) {
        sink.emit_at(
            scaled(Severity::Warning, k.meta.state),
            ComponentRef::K3sCluster(k),
            "default_deny",
            format!(
                "k3s cluster {} runs Cilium without NetworkPolicy default-deny",
                k.id
            ),
        );
    }
}

/// The members of a pattern that name a K3s cluster, with their position in `members`.
fn members<'t>(
    ctx: &Ctx<'t>,
    p: &'t Pattern,
) -> impl Iterator<Item = (usize, &'t K3sCluster)> + 't {
    let members = p.members.iter().enumerate();
    members.filter_map(|(i, id)| ctx.topo.k3s_cluster(id).map(|k| (i, k)))
}

/// The GPU K3s clusters, in file order.
fn gpu_clusters<'t>(ctx: &Ctx<'t>) -> impl Iterator<Item = &'t K3sCluster> + 't {
    let clusters = ctx.topo.k3s_clusters().iter();
    clusters.filter(|k| k.purpose == ClusterPurpose::Gpu)
}

/// The severity of adopting an architecture ADR-009 rejects: an error once it is in production,
/// a warning while it is only a plan (in the IaC or on the roadmap). Unlike [`scaled`], a desired
/// component does not lower it to info: planning a rejected architecture is itself the problem.
fn rejected_architecture(state: State) -> Severity {
    match state {
        State::Validated => Severity::Error,
        State::Declared | State::Desired => Severity::Warning,
    }
}

/// GPU-001: no architecture ADR-009 rejects: GPU guests as nodes of a general-purpose cluster
/// (B: one cluster with a GPU node pool; C: the GPU LXC as a Cilium node of it), nor a
/// ClusterMesh between a GPU cluster and a general-purpose one (D).
pub(super) fn gpu_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for k in topo.k3s_clusters() {
        if k.purpose != ClusterPurpose::General {
            continue;
        }
        for (i, g) in topo.nodes_of(k) {
            if g.gpu.is_none() {
                continue;
            }
            let alternative = if g.kind == GuestKind::Lxc && k.cni.kind == CniKind::Cilium {
                "(C), the GPU LXC as a node of the Cilium cluster"
            } else {
                "(B), one cluster with a GPU node pool"
            };
            sink.emit_at(
                rejected_architecture(k.meta.state.min(g.meta.state)),
                ComponentRef::K3sCluster(k),
                &format!("nodes[{i}]"),
                format!(
                    "general-purpose k3s cluster {} has GPU guest {} as a node: ADR-009 rejects architecture {alternative}; GPU work runs in a separate cluster (A)",
                    k.id, g.id
                ),
            );
        }
    }
    for p in topo.patterns() {
        if p.kind != PatternKind::ClusterMesh {
            continue;
        }
        let Some(general) = members(ctx, p)
            .map(|(_, k)| k)
            .filter(|k| k.purpose == ClusterPurpose::General)
            .max_by_key(|k| k.meta.state)
        else {
            continue;
        };
        for (i, gpu) in members(ctx, p).filter(|(_, k)| k.purpose == ClusterPurpose::Gpu) {
            sink.emit_at(
                rejected_architecture(p.meta.state.min(gpu.meta.state).min(general.meta.state)),
                ComponentRef::Pattern(p),
                &format!("members[{i}]"),
                format!(
                    "ClusterMesh {} joins GPU cluster {} with general-purpose cluster {}: ADR-009 rejects architecture (D), which needs Cilium in the GPU cluster's LXC; Traefik HTTP covers the use case",
                    p.id, gpu.id, general.id
                ),
            );
        }
    }
}

/// GPU-002: a GPU cluster's placement follows its hosts' tier, and the documents' disagreement
/// about a placement is surfaced.
pub(super) fn gpu_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in gpu_clusters(ctx) {
        let c = ComponentRef::K3sCluster(k);
        for Placed {
            placement,
            host,
            field,
        } in placements(ctx, k)
        {
            let Some(caps) = ctx.tier_capabilities(host) else {
                // Without a tier nothing says whether this host's GPU is reachable from a VM or
                // only from a privileged LXC: the placement cannot be judged, and that is a gap.
                sink.emit_at(
                    scaled(Severity::Warning, k.meta.state),
                    c,
                    &field.path(),
                    format!(
                        "GPU cluster {} is placed as {} on host {}, which has no hardware tier: whether its GPU allows that placement is unknown",
                        k.id,
                        placement_name(placement),
                        host.id
                    ),
                );
                continue;
            };
            if let Some(problem) = placement_problem(k, placement, host, caps) {
                sink.emit_at(
                    scaled(Severity::Error, k.meta.state),
                    c,
                    &field.path(),
                    format!(
                        "GPU cluster {} is placed as {} with {}: {problem}",
                        k.id,
                        placement_name(placement),
                        cni_name(k.cni.kind)
                    ),
                );
            }
        }
        documents_disagree(k, sink);
    }
}

/// GPU-002's problem with GPU cluster `k` placed as `placement` on `host`, of a tier with
/// `caps`, if there is one.
fn placement_problem(
    k: &K3sCluster,
    placement: NodePlacement,
    host: &Host,
    caps: &TierCapabilities,
) -> Option<String> {
    if placement == NodePlacement::Lxc {
        Some("an unprivileged LXC cannot use the host's NVIDIA card".to_owned())
    } else if caps.gpu_lxc_only && placement != NodePlacement::LxcPrivileged {
        Some(format!(
            "host {} is of a tier where the GPU is reachable only from a privileged LXC, not a {}",
            host.id,
            placement_name(placement)
        ))
    } else if caps.gpu_lxc_only && k.cni.kind == CniKind::Cilium {
        Some(format!(
            "host {} is of a tier where the GPU cluster runs in LXC, where Cilium is not supported",
            host.id
        ))
    } else if placement == NodePlacement::Vm && !caps.gpu_passthrough_vm {
        Some(format!(
            "host {}'s tier has no GPU passthrough to a VM",
            host.id
        ))
    } else {
        None
    }
}

/// GPU-002's note on the documents' own contradiction: two claims about where cluster `k` runs
/// that disagree.
fn documents_disagree(k: &K3sCluster, sink: &mut Sink<'_>) {
    let c = ComponentRef::K3sCluster(k);
    if let Some(first) = k.placement_claims.first() {
        let disagree = k
            .placement_claims
            .iter()
            .any(|c| c.placement != first.placement || c.cni != first.cni);
        if disagree {
            let claims: Vec<String> = k
                .placement_claims
                .iter()
                .map(|claim| {
                    let cni = claim
                        .cni
                        .map(|c| format!(" with {}", cni_name(c)))
                        .unwrap_or_default();
                    format!(
                        "{} says {}{cni} («{}»)",
                        claim.source,
                        placement_name(claim.placement),
                        quoted(&claim.quote)
                    )
                })
                .collect();
            let chosen = k
                .node_placement
                .map(|p| {
                    format!(
                        "; the topology chooses {} with {}",
                        placement_name(p),
                        cni_name(k.cni.kind)
                    )
                })
                .unwrap_or_default();
            sink.emit(
                Severity::Info,
                c,
                first.location,
                format!(
                    "the documents disagree on where GPU cluster {} runs: {}{chosen}",
                    k.id,
                    claims.join("; ")
                ),
            );
        }
    }
}

/// GPU-003: a guest using a GPU is privileged (when an LXC) and sits on a host with that GPU.
pub(super) fn gpu_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let Some(gpu) = &g.gpu else {
            continue;
        };
        let severity = scaled(Severity::Error, g.meta.state);
        let c = ComponentRef::Guest(g);
        if g.kind == GuestKind::Lxc && !g.privileged {
            sink.emit_at(
                severity,
                c,
                "privileged",
                format!(
                    "GPU guest {} is an unprivileged LXC: the NVIDIA device needs a privileged LXC",
                    g.id
                ),
            );
        }
        if let Some(h) = topo.host_of(g) {
            // Counts the file does not state are at least one GPU each, and no more is known:
            // a guest that may need more than that lower bound is "not stated", never a pass
            // nor an error.
            let of_model: Vec<Option<u32>> = h
                .gpus
                .iter()
                .filter(|x| x.model.eq_ignore_ascii_case(&gpu.model))
                .map(|x| x.count)
                .collect();
            let at_least: u32 = of_model.iter().map(|x| x.unwrap_or(1)).sum();
            let needs = gpu.count.unwrap_or(1);
            let unstated = of_model.iter().any(Option::is_none);
            if at_least < needs && !unstated {
                sink.emit_at(
                    severity,
                    c,
                    "gpu",
                    format!(
                        "guest {} uses {needs} × {} but its host {} has {at_least}",
                        g.id, gpu.model, h.id
                    ),
                );
            } else if at_least < needs {
                sink.emit_at(
                    scaled(Severity::Warning, g.meta.state),
                    c,
                    "gpu",
                    format!(
                        "guest {} uses {needs} × {} and its host {} has at least {at_least}: how many it has is not stated",
                        g.id, gpu.model, h.id
                    ),
                );
            }
        }
    }
}

/// GPU-004: each GPU cluster in service is registered with an ArgoCD of its site, in service too.
pub(super) fn gpu_004(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in gpu_clusters_in_service(ctx.topo) {
        let local: Vec<_> = ctx
            .topo
            .managers_of(k)
            .filter(|a| a.site == k.site)
            .collect();
        let problem = if local.is_empty() {
            format!("is registered with no ArgoCD of site {}", k.site)
        } else if local.iter().all(|a| a.meta.state < k.meta.state) {
            let names: Vec<String> = local
                .iter()
                .map(|a| format!("{} ({})", a.id, a.meta.state))
                .collect();
            format!(
                "is {} but the ArgoCD meant to manage it is not in service: {}",
                k.meta.state,
                names.join(", ")
            )
        } else {
            continue;
        };
        // Where the documents disagree on the ArgoCD's state, the file follows the architecture's
        // label of that ArgoCD («Cada item deste documento marca explicitamente seu estado.»);
        // the finding names the record and the sentences, so the other reading is in view.
        let disputed: Vec<String> = local
            .iter()
            .map(|a| disputes(ctx.topo, a.id.as_str(), None))
            .collect();
        sink.emit_at(
            Severity::Warning,
            ComponentRef::K3sCluster(k),
            "state",
            format!("GPU cluster {} {problem}{}", k.id, disputed.concat()),
        );
    }
}

/// Which of ADR-009's review lists a signal belongs to.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Review {
    /// "Critério de revisão": move to architecture (B), GPU-006.
    ArchitectureB,
    /// "As features Cilium perdidas no GPU seriam realmente relevantes se:", GPU-006 (the
    /// team's catalogue lists these among its triggers).
    LostCiliumFeatures,
    /// "Critério revisado pra reabrir Cilium no GPU" and "Adicionar quando ClusterMesh …
    /// virar útil", GPU-007.
    ReopenCilium,
}

/// The review list of a signal and the ADR-009 sentence it stands for.
fn review_trigger(signal: ReviewSignal) -> (Review, &'static str) {
    use Review::{ArchitectureB, LostCiliumFeatures, ReopenCilium};
    match signal {
        ReviewSignal::TwoClusterOverhead => (
            ArchitectureB,
            "Gestão de 2 clusters virar maior overhead que ganho de isolamento",
        ),
        ReviewSignal::MixedWorkloads => (
            ArchitectureB,
            "Workloads GPU + apps gerais misturados virarem padrão",
        ),
        ReviewSignal::CiliumPolicyRequired => (
            ArchitectureB,
            "Cilium NetworkPolicy virar requisito formal pra workloads GPU (compliance, multi-tenant)",
        ),
        ReviewSignal::DriverInstability => (
            ArchitectureB,
            "Driver NVIDIA + LXC mostrarem instabilidade em produção (kernel panics, etc.)",
        ),
        ReviewSignal::AdditionalGpuHardware => (
            ArchitectureB,
            "Aparecer hardware GPU adicional que justifique node pool em vez de cluster dedicado",
        ),
        ReviewSignal::CrossSiteStatefulPipeline => (
            ReopenCilium,
            "Pipeline stateful distribuído cross-site com latência baixa",
        ),
        ReviewSignal::L7Compliance => (ReopenCilium, "Compliance L7 formal"),
        ReviewSignal::MultiTenantL7 => (
            ReopenCilium,
            "Multi-tenant GPU estrito com L7 NetworkPolicy",
        ),
        ReviewSignal::PodMigrationBursting => (ReopenCilium, "GPU bursting com pod migração"),
        ReviewSignal::FiftyCrossSiteWorkloads => (
            LostCiliumFeatures,
            "50+ workloads cross-site se descobrindo entre si",
        ),
        ReviewSignal::AdvancedMultiKueue | ReviewSignal::UnifiedHubble => (
            ReopenCilium,
            "Adicionar quando ClusterMesh entre os 2 clusters virar útil (bursting, MultiKueue avançado, Hubble unificado)",
        ),
    }
}

/// GPU-006: ADR-009's "Critério de revisão", the five conditions to move to architecture (B):
/// recorded signals (a compliance or multi-tenant L7 requirement is also a formal Cilium
/// NetworkPolicy requirement), a GPU workload (layer 8b) placed in a general-purpose cluster, and
/// GPU hardware not yet in production in a site whose GPU cluster is.
pub(super) fn gpu_006(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let policy = review_trigger(ReviewSignal::CiliumPolicyRequired).1;
    for k in with_review_signals(ctx) {
        for (i, &signal) in k.review_signals.iter().enumerate() {
            let (what, quote) = match (review_trigger(signal), signal) {
                ((Review::ArchitectureB, quote), _) => ("for architecture (B)", quote),
                ((Review::LostCiliumFeatures, quote), _) => (
                    "under which the Cilium features lost in the GPU cluster matter",
                    quote,
                ),
                // A compliance or multi-tenant L7 requirement is a formal Cilium NetworkPolicy
                // requirement too ("(compliance, multi-tenant)").
                (_, ReviewSignal::L7Compliance | ReviewSignal::MultiTenantL7) => {
                    ("for architecture (B)", policy)
                }
                _ => continue,
            };
            sink.emit_at(
                Severity::Info,
                ComponentRef::K3sCluster(k),
                &format!("review_signals[{i}]"),
                format!(
                    "k3s cluster {} records an ADR-009 review trigger {what}: «{quote}»",
                    k.id
                ),
            );
        }
    }
    for item in topo.items() {
        let Some(k) = item.cluster.as_ref().and_then(|c| topo.k3s_cluster(c)) else {
            continue;
        };
        if k.purpose == ClusterPurpose::General && item.layer.as_deref() == Some("8b") {
            sink.emit_at(
                Severity::Info,
                ComponentRef::Item(item),
                "cluster",
                format!(
                    "GPU workload {} (layer 8b) runs in general-purpose cluster {}: an ADR-009 review trigger for architecture (B) («Workloads GPU + apps gerais misturados virarem padrão»)",
                    item.id, k.id
                ),
            );
        }
    }
    let gpu_sites: BTreeSet<&str> = gpu_clusters_in_service(topo)
        .map(|k| k.site.as_str())
        .collect();
    // "GPU em Franca também (justificaria ClusterMesh entre 2 GPU clusters)": GPU clusters in
    // service in two sites. ADR-009's later "Critério revisado" answers it with MultiKueue
    // (GPU-008), so it is a review fact, reported once per such cluster.
    if gpu_sites.len() >= 2 {
        let sites = gpu_sites.iter().copied().collect::<Vec<_>>().join(", ");
        for k in gpu_clusters_in_service(topo) {
            sink.emit_at(
                Severity::Info,
                ComponentRef::K3sCluster(k),
                "state",
                format!(
                    "GPU cluster {} is one of the GPU clusters in service in sites {sites}: an ADR-009 condition under which the Cilium features lost in the GPU cluster matter («GPU em Franca também (justificaria ClusterMesh entre 2 GPU clusters)»); its later criterion answers it with MultiKueue + Traefik + SeaweedFS replicado",
                    k.id
                ),
            );
        }
    }
    for h in topo.hosts() {
        if h.gpus.is_empty()
            || h.meta.state == State::Validated
            || !gpu_sites.contains(h.site.as_str())
        {
            continue;
        }
        sink.emit_at(
            Severity::Info,
            ComponentRef::Host(h),
            "gpus[0]",
            format!(
                "host {} brings GPU hardware that is not in production yet ({}) to site {}, whose GPU cluster is: an ADR-009 review trigger for architecture (B) («Aparecer hardware GPU adicional que justifique node pool em vez de cluster dedicado»)",
                h.id, h.meta.state, h.site
            ),
        );
    }
}

/// GPU-007: ADR-009's "Critério revisado pra reabrir Cilium no GPU": a recorded use case that
/// MultiKueue + Traefik + replicated SeaweedFS do not cover reopens the question.
pub(super) fn gpu_007(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in with_review_signals(ctx) {
        for (i, &signal) in k.review_signals.iter().enumerate() {
            let (Review::ReopenCilium, quote) = review_trigger(signal) else {
                continue;
            };
            sink.emit_at(
                Severity::Info,
                ComponentRef::K3sCluster(k),
                &format!("review_signals[{i}]"),
                format!(
                    "k3s cluster {} records a use case that reopens Cilium in the GPU cluster (ADR-009): «{quote}»",
                    k.id
                ),
            );
        }
    }
}

/// The clusters that record review signals.
fn with_review_signals<'t>(ctx: &Ctx<'t>) -> impl Iterator<Item = &'t K3sCluster> + 't {
    let clusters = ctx.topo.k3s_clusters().iter();
    clusters.filter(|k| !k.review_signals.is_empty())
}

/// Whether a cluster has (or plans) VM nodes.
fn has_vm_nodes(ctx: &Ctx<'_>, k: &K3sCluster) -> bool {
    k.node_placement == Some(NodePlacement::Vm)
        || ctx.topo.nodes_of(k).any(|(_, g)| g.kind == GuestKind::Vm)
}

/// GPU-008's «Comunicação com cluster Franca principal via Traefik HTTP»: a GPU cluster in
/// service talks to its site's main cluster through that site's Traefik, at least as mature as
/// itself.
fn traefik_for(ctx: &Ctx<'_>, k: &K3sCluster, sink: &mut Sink<'_>) {
    let best = ctx
        .topo
        .traefik()
        .iter()
        .filter(|t| t.site == k.site)
        .map(|t| t.meta.state)
        .max();
    if best.is_some_and(|b| b >= k.meta.state) {
        return;
    }
    let have = best.map_or("none".to_owned(), |b| format!("only {b}"));
    sink.emit_at(
        Severity::Warning,
        ComponentRef::K3sCluster(k),
        "site",
        format!(
            "GPU cluster {} ({}) talks to its site's main cluster through Traefik HTTP, and site {} has {have}: ADR-009 «Comunicação com cluster Franca principal via Traefik HTTP»",
            k.id, k.meta.state, k.site
        ),
    );
}

/// GPU-008's «Storage compartilhado via SeaweedFS replicado. Modelos compartilhados via MLflow
/// centralizado.»: with GPU clusters in service in two sites, an item providing shared GPU
/// storage and one providing the model registry (`role`), each at least as mature as the
/// cluster. Judged on the role, not on a tool's name.
fn shared_with_other_sites(ctx: &Ctx<'_>, k: &K3sCluster, sink: &mut Sink<'_>) {
    let mut missing = Vec::new();
    for (role, what) in [
        (
            ItemRole::SharedGpuStorage,
            "shared storage («Storage compartilhado via SeaweedFS replicado»)",
        ),
        (
            ItemRole::ModelRegistry,
            "model registry («Modelos compartilhados via MLflow centralizado»)",
        ),
    ] {
        let best = ctx
            .topo
            .items()
            .iter()
            .filter(|i| i.role == Some(role))
            .map(|i| i.meta.state)
            .max();
        if best.is_none_or(|b| b < k.meta.state) {
            let have = best.map_or("none is declared".to_owned(), |b| {
                format!("the best is {b}")
            });
            missing.push(format!("{what}: {have}"));
        }
    }
    if missing.is_empty() {
        return;
    }
    sink.emit_at(
        scaled(Severity::Warning, k.meta.state),
        ComponentRef::K3sCluster(k),
        "purpose",
        format!(
            "GPU cluster {} ({}) shares GPU work with the other sites' GPU clusters but has no {}",
            k.id,
            k.meta.state,
            missing.join("; no ")
        ),
    );
}

/// GPU-008: ADR-009's "Quando o cluster GPU Franca for provisionado": a GPU cluster goes on GPU
/// hosts of its site; VM + Cilium only after a validated proof of concept; once GPU clusters are
/// provisioned in two or more sites, MultiKueue and an ApplicationSet join each with the others.
/// (Its registration with the site's ArgoCD is GPU-004.)
pub(super) fn gpu_008(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let joined = joined_gpu_sites(ctx);
    let provisioned_sites: BTreeSet<&str> = gpu_clusters(ctx)
        .filter(|k| provisioned(k))
        .map(|k| k.site.as_str())
        .collect();
    for k in gpu_clusters(ctx) {
        candidate_hosts_elsewhere(ctx, k, sink);
        cilium_without_poc(ctx, k, sink);
        if provisioned(k) {
            traefik_for(ctx, k, sink);
        }
        if !provisioned(k) || provisioned_sites.len() < 2 {
            continue;
        }
        shared_with_other_sites(ctx, k, sink);
        let patterns = joined.get(k.id.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        not_joined(k, patterns, &provisioned_sites, sink);
    }
}

/// Whether `k` is a GPU cluster past desired (GPU-008's "provisioned").
fn provisioned(k: &K3sCluster) -> bool {
    k.purpose == ClusterPurpose::Gpu && k.meta.state != State::Desired
}

/// The MultiKueue and ApplicationSet patterns that join each provisioned GPU cluster, by its
/// id, each with the sites of the provisioned GPU clusters it joins.
type JoinedSites<'t> = HashMap<&'t str, Vec<(&'t Pattern, BTreeSet<&'t str>)>>;

/// For each MultiKueue and ApplicationSet, the sites of the provisioned GPU clusters it joins,
/// with the pattern itself: a pattern only planned does not link clusters in service.
fn joined_gpu_sites<'t>(ctx: &Ctx<'t>) -> JoinedSites<'t> {
    let topo = ctx.topo;
    let mut joined: JoinedSites<'t> = HashMap::new();
    for p in topo.patterns() {
        if !matches!(
            p.kind,
            PatternKind::MultiKueue | PatternKind::ApplicationSet
        ) {
            continue;
        }
        let clusters: Vec<&K3sCluster> = p
            .members
            .iter()
            .chain(p.manager.iter())
            .filter_map(|m| topo.k3s_cluster(m))
            .filter(|k| provisioned(k))
            .collect();
        let sites: BTreeSet<&str> = clusters.iter().map(|k| k.site.as_str()).collect();
        for k in clusters {
            joined
                .entry(k.id.as_str())
                .or_default()
                .push((p, sites.clone()));
        }
    }
    joined
}

/// GPU-008's candidate hosts of GPU cluster `k`: GPU hosts of its site.
fn candidate_hosts_elsewhere(ctx: &Ctx<'_>, k: &K3sCluster, sink: &mut Sink<'_>) {
    let (topo, c) = (ctx.topo, ComponentRef::K3sCluster(k));
    for (i, id) in k.candidate_hosts.iter().enumerate() {
        let Some(h) = topo.host(id) else {
            continue;
        };
        let problem = if h.site != k.site {
            format!("is in site {}", h.site)
        } else if h.gpus.is_empty() {
            "has no GPU".to_owned()
        } else {
            continue;
        };
        sink.emit_at(
            scaled(Severity::Warning, k.meta.state),
            c,
            &format!("candidate_hosts[{i}]"),
            format!(
                "GPU cluster {} of site {} may be placed on host {}, which {problem}: the GPU cluster goes on one of its site's GPU hosts (ADR-009)",
                k.id, k.site, h.id
            ),
        );
    }
}

/// GPU-008's VM + Cilium in GPU cluster `k`: only after a validated proof of concept.
fn cilium_without_poc(ctx: &Ctx<'_>, k: &K3sCluster, sink: &mut Sink<'_>) {
    let c = ComponentRef::K3sCluster(k);
    if k.cni.kind == CniKind::Cilium
        && has_vm_nodes(ctx, k)
        && k.cilium_vm_poc != Some(State::Validated)
    {
        let poc = k
            .cilium_vm_poc
            .map(|s| format!("its proof of concept is only {s}"))
            .unwrap_or_else(|| "no proof of concept is recorded (`cilium_vm_poc`)".to_owned());
        let field = if k.cilium_vm_poc.is_some() {
            "cilium_vm_poc"
        } else {
            "cni.kind"
        };
        sink.emit_at(
            scaled(Severity::Warning, k.meta.state),
            c,
            field,
            format!(
                "GPU cluster {} runs VM nodes with Cilium but {poc}: ADR-009 replicates the privileged LXC without Cilium and moves to VM + Cilium only with a validated POC first",
                k.id
            ),
        );
    }
}

/// GPU-008's MultiKueue and ApplicationSet of provisioned GPU cluster `k`: each joins it with
/// the GPU clusters of the other `provisioned_sites`, as mature as it (`patterns`: those that
/// join it).
fn not_joined(
    k: &K3sCluster,
    patterns: &[(&Pattern, BTreeSet<&str>)],
    provisioned_sites: &BTreeSet<&str>,
    sink: &mut Sink<'_>,
) {
    let c = ComponentRef::K3sCluster(k);
    for (kind, name) in [
        (PatternKind::MultiKueue, "MultiKueue"),
        (PatternKind::ApplicationSet, "ApplicationSet"),
    ] {
        let across: Vec<&Pattern> = patterns
            .iter()
            .filter(|(p, sites)| p.kind == kind && sites.iter().any(|s| *s != k.site.as_str()))
            .map(|(p, _)| *p)
            .collect();
        // The link is as mature as the cluster it serves, or it is not there yet.
        let linked = across.iter().any(|p| p.meta.state >= k.meta.state);
        if !linked {
            let only = across
                .iter()
                .map(|p| format!("{} is only {}", p.id, p.meta.state))
                .collect::<Vec<_>>();
            let only = if only.is_empty() {
                String::new()
            } else {
                format!(" as mature as it ({})", only.join(", "))
            };
            let others: Vec<&str> = provisioned_sites
                .iter()
                .copied()
                .filter(|s| *s != k.site.as_str())
                .collect();
            sink.emit_at(
                scaled(Severity::Warning, k.meta.state),
                c,
                "purpose",
                format!(
                    "GPU cluster {} ({}) of site {} is joined by no {name}{only} with the GPU clusters of {}: ADR-009 links the GPU clusters of the sites through MultiKueue + ApplicationSet",
                    k.id,
                    k.meta.state,
                    k.site,
                    others.join(", ")
                ),
            );
        }
    }
}

/// MESH-001: a ClusterMesh joins only Cilium clusters.
pub(super) fn mesh_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        if p.kind != PatternKind::ClusterMesh {
            continue;
        }
        let offenders: Vec<(usize, &K3sCluster)> = members(ctx, p)
            .filter(|(_, k)| k.cni.kind != CniKind::Cilium)
            .collect();
        if let Some((first, _)) = offenders.first() {
            let names: Vec<String> = offenders
                .iter()
                .map(|(_, k)| format!("{} ({})", k.id, cni_name(k.cni.kind)))
                .collect();
            sink.emit_at(
                scaled(Severity::Error, p.meta.state),
                ComponentRef::Pattern(p),
                &format!("members[{first}]"),
                format!(
                    "ClusterMesh {} joins clusters that do not run Cilium: {}",
                    p.id,
                    names.join(", ")
                ),
            );
        }
    }
}

/// MESH-002: MultiKueue reaches its workers' API servers with their kubeconfigs, not through
/// ClusterMesh: it names the manager cluster that connects to the workers, and every worker has a
/// kubeconfig to be reached with (the ArgoCD registration). The network path between two sites is
/// NET-003's.
pub(super) fn mesh_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        if p.kind != PatternKind::MultiKueue {
            continue;
        }
        if p.manager.is_none() {
            sink.emit_at(
                Severity::Info,
                ComponentRef::Pattern(p),
                "members",
                format!(
                    "MultiKueue {} names no manager: which cluster receives the jobs and reaches the workers' API servers is not stated",
                    p.id
                ),
            );
        }
        // The workers: the members but the manager.
        let unregistered: Vec<(usize, &str)> = members(ctx, p)
            .filter(|(_, k)| p.manager.as_ref() != Some(&k.id))
            .filter(|(_, k)| topo.managers_of(k).next().is_none())
            .map(|(i, k)| (i, k.id.as_str()))
            .collect();
        if let Some((first, _)) = unregistered.first() {
            let names: Vec<&str> = unregistered.iter().map(|(_, id)| *id).collect();
            sink.emit_at(
                Severity::Info,
                ComponentRef::Pattern(p),
                &format!("members[{first}]"),
                format!(
                    "MultiKueue {} reaches its workers' API servers with kubeconfigs, and no ArgoCD registers {} (ClusterMesh is not needed)",
                    p.id,
                    names.join(", ")
                ),
            );
        }
    }
}

/// The number of K3s clusters in service from which Karmada is no longer rejected: the file's
/// rejected Karmada records say it (`adopted_when.until_clusters`, which DOC-002 reads too), and
/// the architecture's «critério: 5+ clusters» when none does.
fn karmada_criterion(topo: &crate::model::Topology) -> usize {
    topo.rejected()
        .iter()
        .filter(|r| r.adopted_when.patterns.contains(&PatternKind::Karmada))
        .find_map(|r| r.adopted_when.until_clusters)
        .map_or(5, |n| n as usize)
}

/// MESH-003, both ways: Karmada adopted with fewer than 5 clusters in service (the count DOC-002
/// uses for the same record) is too early; with that many or more, its criterion is reached and
/// a Karmada still deferred (or absent) is due for review.
/// "Scheduling dinâmico real", the other half of the criterion, is not in the model.
pub(super) fn mesh_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let criterion = karmada_criterion(topo);
    let in_service = || {
        let clusters = topo.k3s_clusters().iter();
        clusters.filter(|k| k.meta.state != State::Desired)
    };
    let clusters = in_service().count();
    let mut karmada = topo
        .patterns()
        .iter()
        .filter(|p| p.kind == PatternKind::Karmada)
        .peekable();
    let fifth = in_service().nth(criterion.saturating_sub(1));
    if let Some(fifth) = fifth
        && karmada.peek().is_none()
    {
        sink.emit_at(
            Severity::Info,
            ComponentRef::K3sCluster(fifth),
            "state",
            format!(
                "k3s cluster {} brings the clusters in service to {clusters}: Karmada's criterion ({criterion}+ clusters) is reached and the topology has no Karmada; review whether to adopt it (ADR-004)",
                fifth.id
            ),
        );
    }
    for p in karmada {
        if p.meta.state != State::Desired && clusters < criterion {
            sink.emit_at(
                Severity::Warning,
                ComponentRef::Pattern(p),
                "state",
                format!(
                    "Karmada {} is {} with only {clusters} cluster(s) in service; the criterion is {criterion}+ clusters or real dynamic scheduling",
                    p.id, p.meta.state
                ),
            );
        } else if p.meta.state == State::Desired && clusters >= criterion {
            sink.emit_at(
                Severity::Info,
                ComponentRef::Pattern(p),
                "state",
                format!(
                    "Karmada {} is still {} with {clusters} clusters in service: its criterion ({criterion}+ clusters) is reached; review whether to adopt it (ADR-004)",
                    p.id,
                    if p.meta.deferred { "deferred" } else { "desired" }
                ),
            );
        }
    }
}

/// GITOPS-001: one independent ArgoCD per site (ADR-001: a site keeps reconciling when the other
/// site's ArgoCD or the link fails), which may manage several clusters of its site (ADR-009:
/// ArgoCD SP manages the main and the GPU cluster); every site with a K3s cluster has one; every
/// cluster in service is managed by exactly one ArgoCD, of its own site.
pub(super) fn gitops_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    sites_without_argocd(ctx, sink);
    managers_per_cluster(ctx, sink);
    managed_elsewhere(ctx, sink);
    argocd_per_site(ctx, sink);
}

/// GITOPS-001's sites with a K3s cluster and no ArgoCD.
fn sites_without_argocd(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for site in topo.sites() {
        let clusters: Vec<&K3sCluster> = topo
            .k3s_clusters()
            .iter()
            .filter(|k| k.site == site.id)
            .collect();
        if clusters.is_empty() || topo.argocd().iter().any(|a| a.site == site.id) {
            continue;
        }
        let most = clusters
            .iter()
            .map(|k| k.meta.state)
            .max()
            .unwrap_or(State::Desired);
        let names: Vec<&str> = clusters.iter().map(|k| k.id.as_str()).collect();
        sink.emit_at(
            scaled(Severity::Error, most),
            ComponentRef::Site(site),
            "id",
            format!(
                "site {} has K3s clusters ({}) but no ArgoCD: each site reconciles its own clusters with its own ArgoCD",
                site.id,
                names.join(", ")
            ),
        );
    }
}

/// GITOPS-001's clusters: one in service is managed by exactly one ArgoCD.
fn managers_per_cluster(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for k in topo.k3s_clusters() {
        let managers: Vec<_> = topo.managers_of(k).collect();
        if managers.len() == 1 || (managers.is_empty() && k.meta.state == State::Desired) {
            continue;
        }
        let c = ComponentRef::K3sCluster(k);
        let severity = scaled(Severity::Error, k.meta.state);
        match managers.as_slice() {
            [] if k.meta.state != State::Desired => sink.emit_at(
                severity,
                c,
                "state",
                format!("k3s cluster {} is managed by no ArgoCD", k.id),
            ),
            [] | [_] => {}
            many => {
                let names: Vec<&str> = many.iter().map(|a| a.id.as_str()).collect();
                sink.emit_at(
                    severity,
                    c,
                    "state",
                    format!(
                        "k3s cluster {} is managed by {} ArgoCD instances ({}): exactly one",
                        k.id,
                        many.len(),
                        names.join(", ")
                    ),
                );
            }
        }
    }
}

/// GITOPS-001's ArgoCD instances: each manages clusters of its own site.
fn managed_elsewhere(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for a in topo.argocd() {
        for (index, k) in topo.managed_by(a) {
            if k.site == a.site {
                continue;
            }
            sink.emit_at(
                scaled(Severity::Error, k.meta.state.min(a.meta.state)),
                ComponentRef::ArgoCd(a),
                &format!("manages[{index}]"),
                format!(
                    "ArgoCD {} of site {} manages cluster {} of site {}: each site reconciles its own clusters",
                    a.id, a.site, k.id, k.site
                ),
            );
        }
    }
}

/// GITOPS-001's sites: one ArgoCD in service each.
fn argocd_per_site(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let mut per_site: HashMap<&str, usize> = HashMap::new();
    for a in topo
        .argocd()
        .iter()
        .filter(|a| a.meta.state != State::Desired)
    {
        let n = per_site.entry(a.site.as_str()).or_default();
        *n += 1;
        if *n > 1 {
            sink.emit_at(
                scaled(Severity::Error, a.meta.state),
                ComponentRef::ArgoCd(a),
                "site",
                format!(
                    "ArgoCD {} is a second ArgoCD in site {}: one per site",
                    a.id, a.site
                ),
            );
        }
    }
}
