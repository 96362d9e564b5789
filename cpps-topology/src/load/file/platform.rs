//! File types of the Kubernetes platform: K3s clusters, ArgoCD, multi-cluster patterns.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{At, FileState};
use crate::model::{ClusterPurpose, CniKind, NodePlacement, PatternKind, ReviewSignal};

/// A cluster's CNI.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Cni")]
pub(crate) struct CniFile {
    /// `flannel`, `cilium` or `calico`.
    pub(crate) kind: At<CniKind>,
    /// Its version.
    #[serde(default)]
    pub(crate) version: Option<At<String>>,
}

/// cert-manager in a cluster.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "CertManager")]
pub(crate) struct CertManagerFile {
    /// A ClusterIssuer with a DNS-01 solver exists.
    #[serde(default)]
    pub(crate) dns01_cluster_issuer: bool,
    /// The DNS-01 provider (`cloudflare`).
    #[serde(default)]
    pub(crate) dns01_provider: Option<String>,
    /// State of cert-manager in this cluster: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// A placement stated by a document.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PlacementClaim")]
pub(crate) struct PlacementClaimFile {
    /// The placement stated.
    pub(crate) placement: NodePlacement,
    /// The CNI stated with it.
    #[serde(default)]
    pub(crate) cni: Option<CniKind>,
    /// The document (file name in `seeds/`).
    pub(crate) source: String,
    /// The quoted sentence.
    pub(crate) quote: String,
}

component_file! {
    /// A K3s cluster.
    #[schemars(rename = "K3sCluster")]
    struct K3sClusterFile {
        /// Its site.
        pub(crate) site: At<String>,
        /// Guests that are its nodes.
        #[serde(default)]
        pub(crate) nodes: Vec<At<String>>,
        /// Placement of its nodes: `vm`, `lxc`, `lxc_privileged`.
        #[serde(default)]
        pub(crate) node_placement: Option<At<NodePlacement>>,
        /// Hosts the nodes may go to.
        #[serde(default)]
        pub(crate) candidate_hosts: Vec<At<String>>,
        /// Its CNI.
        pub(crate) cni: At<CniFile>,
        /// `general` or `gpu`.
        pub(crate) purpose: At<ClusterPurpose>,
        /// NetworkPolicy default-deny.
        #[serde(default)]
        pub(crate) default_deny: Option<At<bool>>,
        /// Hubble enabled.
        #[serde(default)]
        pub(crate) hubble: Option<At<bool>>,
        /// cert-manager.
        #[serde(default)]
        pub(crate) cert_manager: Option<At<CertManagerFile>>,
        /// Pinned NVIDIA driver version for its GPU nodes.
        #[serde(default)]
        pub(crate) nvidia_driver: Option<At<String>>,
        /// Explicit exception allowing Cilium on LXC nodes, with its reason.
        #[serde(default)]
        pub(crate) cilium_lxc_exception: Option<At<String>>,
        /// Placements the documents state for this cluster.
        #[serde(default)]
        pub(crate) placement_claims: Vec<At<PlacementClaimFile>>,
        /// ADR-009 review conditions that hold for this cluster.
        #[serde(default)]
        pub(crate) review_signals: Vec<At<ReviewSignal>>,
        /// State of the VM + Cilium proof of concept for this GPU cluster: exactly one.
        #[serde(default)]
        pub(crate) cilium_vm_poc: Option<At<FileState>>,
    }
}

component_file! {
    /// An ArgoCD instance.
    #[schemars(rename = "ArgoCd")]
    struct ArgoCdFile {
        /// Its site.
        pub(crate) site: At<String>,
        /// The cluster it runs in.
        #[serde(default)]
        pub(crate) runs_in: Option<At<String>>,
        /// The clusters it manages.
        #[serde(default)]
        pub(crate) manages: Vec<At<String>>,
        /// The repository layout: `monorepo` (decided) or `multi_repo` (rejected).
        #[serde(default)]
        pub(crate) repo_layout: Option<At<crate::model::RepoLayout>>,
    }
}

component_file! {
    /// A multi-cluster pattern.
    #[schemars(rename = "Pattern")]
    struct PatternFile {
        /// `cluster_mesh`, `multi_kueue`, `application_set`, `karmada`.
        pub(crate) kind: PatternKind,
        /// Member clusters.
        #[serde(default)]
        pub(crate) members: Vec<At<String>>,
        /// Managing cluster.
        #[serde(default)]
        pub(crate) manager: Option<At<String>>,
        /// ArgoCD driving it.
        #[serde(default)]
        pub(crate) argocd: Option<At<String>>,
    }
}
