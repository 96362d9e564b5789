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
    UnreadList,
};
use crate::live::source::Source;

/// One K3s cluster's API server, read through `kube` with [`cpps_gpu::k8s::collect`] (list
/// calls of nodes, pods, daemonsets, configmaps, Kueue, Argo CD and cert-manager objects; a list
/// not read is kept in [`KubeFacts::unread`]), and the Argo CD cluster Secrets of Argo CD's
/// namespace, the one holding `argocd-cm` (two more lists, GPU-004's live part).
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
        let mut facts = kube_facts(&snapshot);
        facts.server = self.endpoint();
        facts.api_server = kubeconfig_server(&self.kubeconfig);
        (facts.argocd_clusters, facts.argocd_in_cluster_disabled) = argocd_clusters(&client).await;
        Ok(facts)
    }
}

/// The `server` of the cluster of `kubeconfig`'s current context, without a trailing `/`, when
/// the file names one (it was read a moment ago to build the client).
fn kubeconfig_server(kubeconfig: &std::path::Path) -> Option<String> {
    let config = kube::config::Kubeconfig::read_from(kubeconfig).ok()?;
    let current = config.current_context.as_deref()?;
    let context = config.contexts.iter().find(|c| c.name == current)?;
    let cluster_name = &context.context.as_ref()?.cluster;
    let cluster = config.clusters.iter().find(|c| &c.name == cluster_name)?;
    let server = cluster.cluster.as_ref()?.server.as_deref()?;
    Some(server.trim_end_matches('/').to_owned()).filter(|s| !s.is_empty())
}

/// The Argo CD cluster Secrets Argo CD reads: those in its own namespace, the one holding its
/// `argocd-cm` ConfigMap ([`cpps_gpu::k8s::argocd::argocd_namespace`]), each decoded on its
/// own, and whether its `argocd-cm` turns off deploying to its own cluster. A namespace that
/// cannot be told (none or several hold `argocd-cm`), an unreadable `argocd-cm` or a refused
/// list is "cannot tell".
async fn argocd_clusters(client: &kube::Client) -> (ArgoClusters, bool) {
    use cpps_gpu::k8s::argocd::{argocd_namespace, in_cluster_enabled, list_cluster_secrets};
    let read = async {
        let ns = argocd_namespace(client).await?;
        let in_cluster = in_cluster_enabled(client, &ns).await?;
        Ok::<_, String>((list_cluster_secrets(client, &ns).await?, in_cluster))
    };
    match read.await {
        Ok((secrets, in_cluster)) => (
            ArgoClusters::Read(secrets.into_iter().map(Into::into).collect()),
            !in_cluster,
        ),
        Err(why) => (ArgoClusters::Unknown { why }, false),
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

/// The lists of a snapshot that were not read. [`cpps_gpu::k8s::collect`] reads each list on
/// its own, so a refused list (a 403, Kueue's conversion webhook answering 500) arrives empty
/// while the others are read; the facts keep which, so each live rule that needs an unread list
/// says "cannot tell", naming it, and the others still judge.
fn unread_lists(unread: &[Unread]) -> Vec<UnreadList> {
    unread
        .iter()
        .map(|u| UnreadList {
            kind: u.kind.to_owned(),
            why: u.why.clone(),
        })
        .collect()
}

/// The facts of a cluster snapshot.
pub fn kube_facts(s: &ClusterSnapshot) -> KubeFacts {
    // Served and read: a refused list is neither "not served" nor an empty truth.
    let served = |what: &str| {
        !s.missing.iter().any(|m| m.0.contains(what))
            && !s.unread.iter().any(|u| u.kind.contains(what))
    };
    KubeFacts {
        server: String::new(),
        api_server: None,
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
        argocd_in_cluster_disabled: false,
        unread: unread_lists(&s.unread),
        kueue_webhook_down: kueue_webhook_down(s),
    }
}

/// cpps-gpu's one answer for Kueue kinds read at an older version: each is Kueue's conversion
/// webhook answering 500 (kueue `config/components/crd/kustomization.yaml`
/// `patches/webhook_in_*.yaml`; apiextensions-apiserver `webhook_converter.go` `Convert`).
fn kueue_webhook_down(s: &ClusterSnapshot) -> Vec<String> {
    let mut findings = Vec::new();
    cpps_gpu::k8s::checks::kueue_fallbacks(s, &mut findings);
    findings
        .into_iter()
        .filter(|f| f.code == "kueue-conversion-webhook-down")
        .map(|f| f.message)
        .collect()
}

#[cfg(test)]
mod tests {
    use cpps_gpu::k8s::snapshot::KueueFallback;

    use super::*;

    /// Audit 34 C2: when Kueue's conversion webhook (served by kueue-controller-manager) is
    /// down, the newest Kueue version answers 500 and cpps-gpu reads the kind at an older one
    /// (`kueue_fallbacks`). The live facts keep that it is down, in cpps-gpu's words, instead
    /// of a ClusterQueue list that looks read and healthy.
    #[test]
    fn a_kueue_fallback_says_the_conversion_webhook_is_down() {
        let mut s = ClusterSnapshot::empty();
        assert_eq!(kube_facts(&s).kueue_webhook_down, Vec::<String>::new());
        s.kueue_fallbacks = vec![KueueFallback::new(
            "kueue.x-k8s.io ClusterQueue",
            "v1beta2",
            "v1beta1",
            "500 Internal Server Error: conversion webhook for kueue.x-k8s.io/v1beta1, \
             Kind=ClusterQueue failed",
        )];
        assert_eq!(
            kube_facts(&s).kueue_webhook_down,
            [
                "Kueue's conversion webhook is down (is kueue-controller-manager running?): read \
                 at v1beta1 because v1beta2 answered 500 Internal Server Error: conversion webhook \
                 for kueue.x-k8s.io/v1beta1, Kind=ClusterQueue failed"
            ]
        );
    }
}
