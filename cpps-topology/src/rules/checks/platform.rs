//! Kubernetes-level rules: CNI-001…003, GPU-001…004, GPU-006, MESH-001…003, GITOPS-001.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt};

use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{
    ClusterPurpose, CniKind, ComponentRef, GuestKind, Host, K3sCluster, NodePlacement, PatternKind,
    State, TierCapabilities, Topology,
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

fn capabilities<'t>(topo: &'t Topology, host: &Host) -> Option<&'t TierCapabilities> {
    host.tier
        .as_ref()
        .and_then(|t| topo.tier(t))
        .map(|t| &t.capabilities)
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

/// Where a cluster's nodes are, or will be: `(placement, host, field)` for each listed node guest,
/// or for each candidate host when no node is listed yet.
fn placements<'t>(ctx: &Ctx<'t>, ki: usize) -> Vec<(NodePlacement, &'t Host, NodeField)> {
    let topo = ctx.topo;
    let k = &topo.k3s_clusters()[ki];
    let mut out = Vec::new();
    for &(i, gi) in &ctx.cluster_nodes[ki] {
        let g = &topo.guests()[gi];
        let Some(h) = ctx.guest_hosts[gi] else {
            continue;
        };
        let placement = match (g.kind, g.privileged) {
            (GuestKind::Vm, _) => NodePlacement::Vm,
            (GuestKind::Lxc, true) => NodePlacement::LxcPrivileged,
            (GuestKind::Lxc, false) => NodePlacement::Lxc,
        };
        out.push((placement, h, NodeField::Node(i)));
    }
    if k.nodes.is_empty()
        && let Some(placement) = k.node_placement
    {
        for (i, host) in k.candidate_hosts.iter().enumerate() {
            if let Some(h) = topo.host(host) {
                out.push((placement, h, NodeField::Candidate(i)));
            }
        }
    }
    out
}

/// CNI-001: Cilium runs on VM nodes; an LXC node is allowed only privileged, on a Tier 3 host
/// (GPU only through LXC), with an explicit exception on the cluster.
pub(super) fn cni_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for (ki, k) in topo.k3s_clusters().iter().enumerate() {
        if k.cni.kind != CniKind::Cilium {
            continue;
        }
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
            sink.emit_at(
                scaled(Severity::Error, k.meta.state),
                ComponentRef::K3sCluster(k),
                "node_placement",
                format!(
                    "k3s cluster {} plans Cilium on {why}: Cilium is supported on VMs",
                    k.id
                ),
            );
            continue;
        }
        for (placement, host, field) in placements(ctx, ki) {
            if placement == NodePlacement::Vm {
                continue;
            }
            let tier3 = capabilities(topo, host).is_some_and(|c| c.gpu_lxc_only);
            let allowed = placement == NodePlacement::LxcPrivileged
                && tier3
                && k.cilium_lxc_exception.is_some();
            if allowed {
                continue;
            }
            let why = if placement == NodePlacement::Lxc {
                "an unprivileged LXC".to_owned()
            } else if !tier3 {
                format!(
                    "a privileged LXC on {}, which is not a Tier 3 host",
                    host.id
                )
            } else {
                "a privileged LXC without a `cilium_lxc_exception` on the cluster".to_owned()
            };
            sink.emit_at(
                scaled(Severity::Error, k.meta.state),
                ComponentRef::K3sCluster(k),
                &field.path(),
                format!(
                    "k3s cluster {} runs Cilium with a node that is {why}: Cilium is supported on VMs",
                    k.id
                ),
            );
        }
    }
}

/// CNI-002: Cilium 1.16 or later.
pub(super) fn cni_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        if k.cni.kind != CniKind::Cilium {
            continue;
        }
        if let Some(v) = &k.cni.version
            && !(v.major() > 1
                || (v.major() == 1 && v.numbers().get(1).copied().unwrap_or(0) >= 16))
        {
            sink.emit_at(
                scaled(Severity::Warning, k.meta.state),
                ComponentRef::K3sCluster(k),
                "cni.version",
                format!("k3s cluster {} runs Cilium {v}, older than 1.16", k.id),
            );
        }
    }
}

/// CNI-003: a Cilium cluster declares NetworkPolicy default-deny.
pub(super) fn cni_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        if k.cni.kind == CniKind::Cilium && !k.default_deny {
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
}

/// GPU-001: GPU guests never join a general-purpose cluster.
pub(super) fn gpu_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for (ki, k) in topo.k3s_clusters().iter().enumerate() {
        if k.purpose != ClusterPurpose::General {
            continue;
        }
        for &(i, gi) in &ctx.cluster_nodes[ki] {
            let g = &topo.guests()[gi];
            if g.gpu.is_some() {
                sink.emit_at(
                    scaled(Severity::Error, k.meta.state.min(g.meta.state)),
                    ComponentRef::K3sCluster(k),
                    &format!("nodes[{i}]"),
                    format!(
                        "general-purpose k3s cluster {} has GPU guest {} as a node: GPU work runs in a separate cluster (ADR-009, architecture A)",
                        k.id, g.id
                    ),
                );
            }
        }
    }
}

/// GPU-002: a GPU cluster's placement follows its hosts' tier, and the documents' disagreement
/// about a placement is surfaced.
pub(super) fn gpu_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for (ki, k) in topo.k3s_clusters().iter().enumerate() {
        if k.purpose != ClusterPurpose::Gpu {
            continue;
        }
        let c = ComponentRef::K3sCluster(k);
        for (placement, host, field) in placements(ctx, ki) {
            let Some(caps) = capabilities(topo, host) else {
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
            let problem = if placement == NodePlacement::Lxc {
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
            };
            if let Some(problem) = problem {
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
        // The documents' own contradiction: two claims about the same cluster that disagree.
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
                            claim.quote
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
        if let Some(h) = topo.host(&g.host) {
            let available: u32 = h
                .gpus
                .iter()
                .filter(|x| x.model.eq_ignore_ascii_case(&gpu.model))
                .map(|x| x.count)
                .sum();
            if available < gpu.count {
                sink.emit_at(
                    severity,
                    c,
                    "gpu",
                    format!(
                        "guest {} uses {} × {} but its host {} has {available}",
                        g.id, gpu.count, gpu.model, h.id
                    ),
                );
            }
        }
    }
}

/// GPU-004: each GPU cluster in service is registered with an ArgoCD of its site, in service too.
pub(super) fn gpu_004(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        if k.purpose != ClusterPurpose::Gpu || k.meta.state == State::Desired {
            continue;
        }
        let local: Vec<_> = ctx
            .managers_of(k)
            .iter()
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
        sink.emit_at(
            Severity::Warning,
            ComponentRef::K3sCluster(k),
            "state",
            format!("GPU cluster {} {problem}", k.id),
        );
    }
}

/// GPU-006: ADR-009 review trigger: GPU clusters in service in two or more sites.
pub(super) fn gpu_006(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let gpu: Vec<&K3sCluster> = ctx
        .topo
        .k3s_clusters()
        .iter()
        .filter(|k| k.purpose == ClusterPurpose::Gpu && k.meta.state != State::Desired)
        .collect();
    let sites: BTreeSet<&str> = gpu.iter().map(|k| k.site.as_str()).collect();
    if sites.len() < 2 {
        return;
    }
    let list: Vec<&str> = sites.into_iter().collect();
    for k in gpu {
        sink.emit_at(
            Severity::Info,
            ComponentRef::K3sCluster(k),
            "purpose",
            format!(
                "GPU clusters run in {} sites ({}): an ADR-009 review trigger (ClusterMesh between GPU clusters)",
                list.len(),
                list.join(", ")
            ),
        );
    }
}

/// MESH-001: a ClusterMesh joins only Cilium clusters.
pub(super) fn mesh_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        if p.kind != PatternKind::ClusterMesh {
            continue;
        }
        let offenders: Vec<(usize, &K3sCluster)> = p
            .members
            .iter()
            .enumerate()
            .filter_map(|(i, m)| topo.k3s_cluster(m).map(|k| (i, k)))
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

/// MESH-002: MultiKueue reaches its workers through kubeconfigs (ArgoCD registration), not
/// ClusterMesh: a member no ArgoCD registers has no kubeconfig to be reached with.
pub(super) fn mesh_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        if p.kind != PatternKind::MultiKueue {
            continue;
        }
        let unregistered: Vec<&str> = p
            .members
            .iter()
            .chain(p.manager.iter())
            .filter_map(|m| topo.k3s_cluster(m))
            .filter(|k| ctx.managers_of(k).is_empty())
            .map(|k| k.id.as_str())
            .collect();
        if !unregistered.is_empty() {
            sink.emit_at(
                Severity::Info,
                ComponentRef::Pattern(p),
                "members",
                format!(
                    "MultiKueue {} needs API-server access and kubeconfigs for {}, which no ArgoCD registers (ClusterMesh is not needed)",
                    p.id,
                    unregistered.join(", ")
                ),
            );
        }
    }
}

/// MESH-003: Karmada stays deferred until 5+ clusters.
pub(super) fn mesh_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let clusters = topo
        .k3s_clusters()
        .iter()
        .filter(|k| k.meta.state != State::Desired)
        .count();
    for p in topo.patterns() {
        if p.kind == PatternKind::Karmada && p.meta.state != State::Desired && clusters < 5 {
            sink.emit_at(
                Severity::Warning,
                ComponentRef::Pattern(p),
                "state",
                format!(
                    "Karmada {} is {} with only {clusters} cluster(s) in service; the criterion is 5+ clusters or real dynamic scheduling",
                    p.id, p.meta.state
                ),
            );
        }
    }
}

/// GITOPS-001: one ArgoCD per site; every cluster in service is managed by exactly one ArgoCD,
/// of its own site.
pub(super) fn gitops_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for k in topo.k3s_clusters() {
        let managers = ctx.managers_of(k);
        let c = ComponentRef::K3sCluster(k);
        let severity = scaled(Severity::Error, k.meta.state);
        match managers {
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
    for a in topo.argocd() {
        for (index, id) in a.manages.iter().enumerate() {
            let Some(k) = topo.k3s_cluster(id) else {
                continue;
            };
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
