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
    /// The API server URL of the kubeconfig's current context, without a trailing `/` (what
    /// `argocd cluster add` stores as a cluster Secret's `server`: argo-cd `cmd/util/cluster.go`
    /// `NewCluster`, `Server: conf.Host`), when the kubeconfig names one.
    pub api_server: Option<String>,
    /// Node names.
    pub nodes: Vec<String>,
    /// Nodes that show a GPU.
    pub gpu_nodes: Vec<String>,
    /// CNIs seen (`cilium`, `flannel`) with their versions.
    pub cni: Vec<(String, Option<String>)>,
    /// Argo CD Applications (empty when the CRD is not served).
    pub applications: Vec<ArgoApp>,
    /// Whether the Argo CD Applications were read: their CRD is served and the list was given
    /// (when it was refused, [`KubeFacts::unread`] says why).
    pub argocd_served: bool,
    /// cert-manager Certificates.
    pub certificates: Vec<CertFact>,
    /// Whether the cert-manager Certificates were read: their CRD is served and the list was
    /// given (when it was refused, [`KubeFacts::unread`] says why).
    pub cert_manager_served: bool,
    /// Kueue ClusterQueues.
    pub cluster_queues: Vec<String>,
    /// The Argo CD cluster Secrets of this cluster (GPU-004's live part).
    pub argocd_clusters: ArgoClusters,
    /// The Argo CD here sets `cluster.inClusterEnabled: "false"` in its `argocd-cm`, so the
    /// cluster it runs in is no deploy target (argo-cd `util/settings/settings.go`,
    /// `util/db/cluster.go` `ListClusters`). Meaningful where [`KubeFacts::argocd_clusters`] was
    /// read; `false`, Argo CD's default, otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub argocd_in_cluster_disabled: bool,
    /// The lists the API server did not give (refused, or failed): the fields above that come
    /// from them are empty, and that is not the truth. Every other list was read.
    pub unread: Vec<UnreadList>,
    /// Kueue's conversion webhook is down: one line per Kueue kind that was read at an older
    /// version because the newest answered 500 (cpps-gpu's Critical
    /// `kueue-conversion-webhook-down`, the same words). Empty when every Kueue list was read
    /// at its newest served version.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kueue_webhook_down: Vec<String>,
}

impl KubeFacts {
    /// Why the list of `kind` (named as cpps-gpu's `k8s::snapshot` names it, e.g.
    /// `cert-manager.io/v1 Certificate`) was not read, if it was not.
    pub fn not_read(&self, kind: &str) -> Option<&UnreadList> {
        self.unread.iter().find(|u| u.kind == kind)
    }
}

/// A list an API server did not give: a rule that needs it says "cannot tell", naming it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadList {
    /// The kind, as cpps-gpu's `k8s::snapshot` names it (`cert-manager.io/v1 Certificate`).
    pub kind: String,
    /// Why (the status and the server's message, e.g. `403 Forbidden: …`).
    pub why: String,
}

impl std::fmt::Display for UnreadList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "its {} list was not read ({})", self.kind, self.why)
    }
}

/// What the Argo CD cluster Secrets (`argocd.argoproj.io/secret-type=cluster`) of one API server
/// say: the clusters an Argo CD running there can deploy to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub enum ArgoClusters {
    /// Not read (a fixture, or a source that does not list Secrets).
    #[default]
    NotRead,
    /// The list was read; each Secret decoded on its own.
    Read(Vec<ArgoClusterSecret>),
    /// The list could not be read (a 403 for Secrets, say): which clusters are registered
    /// cannot be told.
    Unknown {
        /// Why.
        why: String,
    },
}

/// One Argo CD cluster Secret, decoded as argo-cd `util/db/cluster.go` `SecretToCluster` does,
/// without its `config` (that holds the credentials; only whether it parses is kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgoClusterSecret {
    /// `namespace/name` of the Secret.
    pub secret: String,
    /// Its `name` key: the cluster name Applications and `argocd cluster list` use.
    pub name: Option<String>,
    /// Its `server` key, without a trailing `/` (as Argo CD trims it).
    pub server: Option<String>,
    /// Why Argo CD would refuse this Secret (its `config` is not JSON, a key is not UTF-8), if it
    /// would.
    pub problem: Option<String>,
}
