//! The Kubernetes platform: K3s clusters, ArgoCD, multi-cluster patterns.

use serde::{Deserialize, Serialize};

use super::{
    ArgoCdId, GuestId, HostId, K3sClusterId, Location, Meta, PatternId, SiteId, State, Version,
};

/// A Kubernetes CNI.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CniKind {
    /// K3s default.
    Flannel,
    /// Cilium (ADR-002).
    Cilium,
    /// Calico.
    Calico,
}

/// A cluster's CNI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cni {
    /// Which CNI. Location: `meta.at("cni.kind")`.
    pub kind: CniKind,
    /// Its version. Location: `meta.at("cni.version")`.
    pub version: Option<Version>,
}

/// What a K3s cluster is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ClusterPurpose {
    /// General workloads.
    General,
    /// GPU workloads only (ADR-009).
    Gpu,
}

/// How a cluster's nodes are (or will be) placed, for clusters whose node guests are not listed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum NodePlacement {
    /// VMs.
    Vm,
    /// Unprivileged LXCs.
    Lxc,
    /// Privileged LXCs.
    LxcPrivileged,
}

/// A placement for a cluster as one of the documents states it. Two claims that disagree on a
/// cluster are a contradiction between the documents (Franca GPU placement).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacementClaim {
    /// The placement stated.
    pub placement: NodePlacement,
    /// The CNI stated with it.
    pub cni: Option<CniKind>,
    /// The document it comes from (file name in `seeds/`).
    pub source: String,
    /// The quoted sentence.
    pub quote: String,
    /// Where the claim is in the file.
    pub location: Location,
}

/// A condition ADR-009 names as a reason to review its decision, recorded on a cluster by the
/// team when it holds (most of them are judgments or facts of the workloads that neither the file
/// nor the live systems show otherwise). Rules GPU-006 and GPU-007 report each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ReviewSignal {
    /// "Gestão de 2 clusters virar maior overhead que ganho de isolamento" (GPU-006).
    TwoClusterOverhead,
    /// "Workloads GPU + apps gerais misturados virarem padrão" (GPU-006).
    MixedWorkloads,
    /// "Cilium NetworkPolicy virar requisito formal pra workloads GPU" (GPU-006).
    CiliumPolicyRequired,
    /// "Driver NVIDIA + LXC mostrarem instabilidade em produção" (GPU-006).
    DriverInstability,
    /// "Aparecer hardware GPU adicional que justifique node pool" (GPU-006).
    AdditionalGpuHardware,
    /// "Pipeline stateful distribuído cross-site com latência baixa" (GPU-007).
    CrossSiteStatefulPipeline,
    /// "Compliance L7 formal" (GPU-007; also GPU-006's formal policy requirement).
    L7Compliance,
    /// "Multi-tenant GPU estrito com L7 NetworkPolicy" (GPU-007; also GPU-006's).
    MultiTenantL7,
    /// "GPU bursting com pod migração" (GPU-007; also "bursting" of "Adicionar quando
    /// ClusterMesh entre os 2 clusters virar útil").
    PodMigrationBursting,
    /// "50+ workloads cross-site se descobrindo entre si" (GPU-006: the Cilium features lost in
    /// the GPU cluster would matter).
    FiftyCrossSiteWorkloads,
    /// "MultiKueue avançado" of "Adicionar quando ClusterMesh entre os 2 clusters virar útil"
    /// (GPU-007).
    AdvancedMultiKueue,
    /// "Hubble unificado" of the same sentence (GPU-007).
    UnifiedHubble,
}

/// cert-manager in a cluster.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertManager {
    /// Whether a ClusterIssuer with a DNS-01 solver exists.
    pub dns01_cluster_issuer: bool,
    /// The DNS-01 provider (`cloudflare`).
    pub dns01_provider: Option<String>,
    /// The state of cert-manager in this cluster (it may lag the cluster's).
    pub state: State,
    /// Free text.
    pub note: Option<String>,
}

/// A K3s cluster.
#[derive(Clone, Debug, PartialEq)]
pub struct K3sCluster {
    /// Id (`k3s-gpu-sp`).
    pub id: K3sClusterId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The guests that are its nodes. Locations: `meta.at("nodes[i]")`.
    pub nodes: Vec<GuestId>,
    /// Placement of its nodes when they are not listed (or to state the intent). Location:
    /// `meta.at("node_placement")`.
    pub node_placement: Option<NodePlacement>,
    /// Hosts the nodes may go to when not yet placed. Locations: `meta.at("candidate_hosts[i]")`.
    pub candidate_hosts: Vec<HostId>,
    /// Its CNI. Location: `meta.at("cni")`.
    pub cni: Cni,
    /// General or GPU. Location: `meta.at("purpose")`.
    pub purpose: ClusterPurpose,
    /// NetworkPolicy default-deny. Location: `meta.at("default_deny")`.
    pub default_deny: bool,
    /// Hubble enabled (Cilium's observability: only a Cilium cluster has it, REL-001). Location:
    /// `meta.at("hubble")`.
    pub hubble: bool,
    /// cert-manager, if any. Location: `meta.at("cert_manager")`.
    pub cert_manager: Option<CertManager>,
    /// NVIDIA driver version pinned for the cluster's GPU nodes. Location: `meta.at("nvidia_driver")`.
    pub nvidia_driver: Option<Version>,
    /// An explicit exception allowing Cilium on LXC nodes (ADR-002 Tier 3), with its reason.
    /// Location: `meta.at("cilium_lxc_exception")`.
    pub cilium_lxc_exception: Option<String>,
    /// Placements the documents state for this cluster. Locations in each claim.
    pub placement_claims: Vec<PlacementClaim>,
    /// ADR-009 review conditions the team records as holding for this cluster. Locations:
    /// `meta.at("review_signals[i]")`.
    pub review_signals: Vec<ReviewSignal>,
    /// The state of the proof of concept of VM nodes with Cilium for this GPU cluster (ADR-009:
    /// "avalia migrar pra VM + Cilium com POC validado primeiro"). Location:
    /// `meta.at("cilium_vm_poc")`.
    pub cilium_vm_poc: Option<State>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// An ArgoCD instance.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgoCd {
    /// Id.
    pub id: ArgoCdId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The cluster it runs in. Location: `meta.at("runs_in")`.
    pub runs_in: Option<K3sClusterId>,
    /// The clusters it manages. Locations: `meta.at("manages[i]")`.
    pub manages: Vec<K3sClusterId>,
    /// The layout of the repository it reconciles from (decision table «GitOps repo»), when
    /// stated. Location: `meta.at("repo_layout")`.
    pub repo_layout: Option<super::RepoLayout>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Kind of a multi-cluster pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PatternKind {
    /// Cilium ClusterMesh.
    ClusterMesh,
    /// Kueue MultiKueue.
    MultiKueue,
    /// ArgoCD ApplicationSet.
    ApplicationSet,
    /// Karmada federation.
    Karmada,
}

/// A multi-cluster pattern joining clusters.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    /// Id.
    pub id: PatternId,
    /// Kind.
    pub kind: PatternKind,
    /// Member clusters. Locations: `meta.at("members[i]")`.
    pub members: Vec<K3sClusterId>,
    /// The managing cluster (MultiKueue manager). Location: `meta.at("manager")`.
    pub manager: Option<K3sClusterId>,
    /// The ArgoCD driving it (ApplicationSet). Location: `meta.at("argocd")`.
    pub argocd: Option<ArgoCdId>,
    /// State, note, use case, locations.
    pub meta: Meta,
}
