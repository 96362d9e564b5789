//! What a K3s cluster's API server reports, in a shape independent of `cpps-gpu`'s `k8s`.

use serde::Serialize;

/// An Argo CD Application's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgoApp {
    /// `namespace/name`.
    pub name: String,
    /// `Synced`, `OutOfSync`, `Unknown` or absent.
    pub sync: Option<String>,
    /// `Healthy`, `Degraded`, … or absent.
    pub health: Option<String>,
}

/// A cert-manager Certificate's expiry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertFact {
    /// `namespace/name`.
    pub name: String,
    /// Its `Ready` condition.
    pub ready: bool,
    /// `status.notAfter`, seconds since the Unix epoch.
    pub not_after: Option<i64>,
}

/// Everything read from one K3s cluster's API server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KubeFacts {
    /// The API server.
    pub server: String,
    /// Node names.
    pub nodes: Vec<String>,
    /// Nodes that show a GPU.
    pub gpu_nodes: Vec<String>,
    /// CNIs seen (`cilium`, `flannel`) with their versions.
    pub cni: Vec<(String, Option<String>)>,
    /// Argo CD Applications (empty when the CRD is not served).
    pub applications: Vec<ArgoApp>,
    /// Whether the Argo CD Application CRD is served.
    pub argocd_served: bool,
    /// cert-manager Certificates.
    pub certificates: Vec<CertFact>,
    /// Whether the cert-manager Certificate CRD is served.
    pub cert_manager_served: bool,
    /// Kueue ClusterQueues.
    pub cluster_queues: Vec<String>,
}
