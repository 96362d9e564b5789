//! Kubernetes: a K3s cluster's nodes, GPU nodes, CNI, Argo CD Applications, cert-manager
//! Certificates and Kueue ClusterQueues.

use std::path::PathBuf;

use async_trait::async_trait;
use cpps_gpu::k8s::ClusterSnapshot;
use cpps_gpu::k8s::argocd::ClusterSecret;
use cpps_gpu::k8s::cni::CniKind;
use cpps_gpu::k8s::snapshot::Unread;

use crate::live::facts::{
    ArgoApp, ArgoClusterSecret, ArgoClusters, CertFact, KubeFacts, SourceFailure, SourceKind,
};
use crate::live::source::Source;

/// One K3s cluster's API server, read through `kube` with [`cpps_gpu::k8s::collect`] (list
/// calls of nodes, pods, daemonsets, configmaps, Kueue, Argo CD and cert-manager objects), and
/// its Argo CD cluster Secrets (one more list, GPU-004's live part).
///
/// The client is built from the kubeconfig at each observation, so a rotated kubeconfig is
/// picked up by a long-running exporter.
#[derive(Debug, Clone)]
pub struct KubeSource {
    kubeconfig: PathBuf,
}

impl KubeSource {
    /// A source reading the cluster of `kubeconfig`'s current context.
    pub fn new(kubeconfig: impl Into<PathBuf>) -> Self {
        Self {
            kubeconfig: kubeconfig.into(),
        }
    }

    fn fail(&self, error: &dyn std::error::Error) -> SourceFailure {
        SourceFailure::from_error(SourceKind::Kubernetes, self.endpoint(), error)
    }
}

#[async_trait]
impl Source<KubeFacts> for KubeSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Kubernetes
    }

    fn endpoint(&self) -> String {
        self.kubeconfig.display().to_string()
    }

    async fn observe(&self) -> Result<KubeFacts, SourceFailure> {
        let client = cpps_gpu::k8s::client_from_kubeconfig(&self.kubeconfig)
            .await
            .map_err(|e| self.fail(&e))?;
        let snapshot = cpps_gpu::k8s::collect(&client)
            .await
            .map_err(|e| self.fail(&e))?;
        if let Some(reason) = unread_lists(&snapshot.unread) {
            return Err(SourceFailure {
                source: SourceKind::Kubernetes,
                endpoint: self.endpoint(),
                reason,
            });
        }
        let mut facts = kube_facts(&snapshot);
        facts.server = self.endpoint();
        facts.argocd_clusters = argocd_clusters(&client).await;
        Ok(facts)
    }
}

/// The Argo CD cluster Secrets of the API server ([`cpps_gpu::k8s::argocd::list_cluster_secrets`]:
/// every namespace, each Secret decoded on its own; a refused list is "cannot tell").
async fn argocd_clusters(client: &kube::Client) -> ArgoClusters {
    match cpps_gpu::k8s::argocd::list_cluster_secrets(client).await {
        Ok(secrets) => ArgoClusters::Read(secrets.into_iter().map(Into::into).collect()),
        Err(why) => ArgoClusters::Unknown { why },
    }
}

impl From<ClusterSecret> for ArgoClusterSecret {
    fn from(s: ClusterSecret) -> Self {
        Self {
            secret: s.secret,
            name: s.name,
            server: s.server,
            problem: s.problem,
        }
    }
}

/// Why the facts of a snapshot cannot be trusted, when some of its lists were not read.
/// [`cpps_gpu::k8s::collect`] reads each list on its own, so a refused list (a 403, Kueue's
/// conversion webhook answering 500) arrives empty; the facts have no "unread" state per list,
/// so the source fails as a whole and every live rule over it says "cannot tell", rather than
/// judging an empty list as the truth.
fn unread_lists(unread: &[Unread]) -> Option<String> {
    (!unread.is_empty()).then(|| {
        let lists: Vec<String> = unread
            .iter()
            .map(|u| format!("{}: {}", u.kind, u.why))
            .collect();
        format!("lists not read: {}", lists.join("; "))
    })
}

/// The facts of a cluster snapshot.
pub fn kube_facts(s: &ClusterSnapshot) -> KubeFacts {
    let served = |what: &str| !s.missing.iter().any(|m| m.0.contains(what));
    KubeFacts {
        server: String::new(),
        nodes: s.nodes.iter().map(|n| n.name.clone()).collect(),
        gpu_nodes: s
            .nodes
            .iter()
            .filter(|n| n.has_gpu())
            .map(|n| n.name.clone())
            .collect(),
        cni: s
            .cni
            .iter()
            .map(|c| {
                let kind = match c.kind {
                    CniKind::Cilium => "cilium",
                    CniKind::Flannel => "flannel",
                    #[allow(unreachable_patterns)]
                    _ => "other",
                };
                (kind.to_owned(), c.version.clone())
            })
            .collect(),
        applications: s
            .applications
            .iter()
            .map(|a| {
                let status = a.status.as_ref();
                ArgoApp {
                    name: format!(
                        "{}/{}",
                        a.metadata.namespace.as_deref().unwrap_or(""),
                        a.metadata.name.as_deref().unwrap_or("")
                    ),
                    sync: status
                        .and_then(|st| st.sync.as_ref())
                        .map(|sync| sync.status.as_str().to_owned()),
                    health: status
                        .and_then(|st| st.health.as_ref())
                        .and_then(|h| h.status.as_ref())
                        .map(|h| h.as_str().to_owned()),
                }
            })
            .collect(),
        argocd_served: served("Application"),
        certificates: s
            .certificates
            .iter()
            .map(|c| CertFact {
                name: format!(
                    "{}/{}",
                    c.metadata.namespace.as_deref().unwrap_or(""),
                    c.metadata.name.as_deref().unwrap_or("")
                ),
                ready: c.is_ready(),
                not_after: c
                    .status
                    .as_ref()
                    .and_then(|st| st.not_after.as_ref())
                    .map(|t| t.0.as_second()),
            })
            .collect(),
        cert_manager_served: served("Certificate"),
        cluster_queues: s
            .cluster_queues
            .iter()
            .filter_map(|q| q.metadata.name.clone())
            .collect(),
        argocd_clusters: ArgoClusters::NotRead,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list refused while the others were read (cpps-gpu `collect` reads each on its own)
    /// fails the source, naming the list, so no rule judges its empty stand-in.
    #[test]
    fn a_list_not_read_fails_the_source_and_is_named() {
        assert_eq!(unread_lists(&[]), None);
        let refused = [Unread::new(
            cpps_gpu::k8s::snapshot::APPLICATION,
            "403 Forbidden",
        )];
        assert_eq!(
            unread_lists(&refused).as_deref(),
            Some("lists not read: argoproj.io/v1alpha1 Application: 403 Forbidden")
        );
    }
}
