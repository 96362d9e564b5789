//! Kubernetes' part of a site's comparison: each K3s cluster with the API server its kubeconfig
//! reaches (nodes, CNI), and each Argo CD with the cluster it runs in.

use std::collections::BTreeMap;

use cpps_gpu::k8s::snapshot::{APPLICATION, DAEMON_SET, NODE};
use foldhash::HashSet;

use super::facts::KubeFacts;
use crate::live::diff::{Builder, DriftKind, Evidence, evidence_of};
use crate::live::facts::{SiteObservation, Sourced};
use crate::model::{ComponentRef, Site};

/// Compares `site_id`'s K3s clusters and Argo CD instances with what their API servers report.
/// A list the API server did not give leaves what it shows unknown: the cluster's nodes (Node
/// list), its CNI (DaemonSet list), an Argo CD's Applications.
pub(crate) fn compare(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site) {
    let topo = b.topo;
    let kube: BTreeMap<&str, &Sourced<KubeFacts>> = site
        .kubernetes
        .iter()
        .map(|(id, s)| (id.as_str(), s))
        .collect();
    for cluster in topo.k3s_clusters().iter().filter(|c| c.site == site_id.id) {
        let c = ComponentRef::K3sCluster(cluster);
        let Some(source) = kube.get(cluster.id.as_str()) else {
            b.record(c, site, Evidence::NotObserved);
            continue;
        };
        // A Node list not read leaves the cluster's membership unknown, not empty.
        let nodes_unread = source.observed().and_then(|f| f.not_read(NODE));
        let evidence = match nodes_unread {
            Some(unread) => Evidence::Unknown(format!("cluster {}: {unread}", cluster.id)),
            None => evidence_of(source, |_| true),
        };
        b.record(c, site, evidence);
        let Some(facts) = source.observed().filter(|_| nodes_unread.is_none()) else {
            continue;
        };
        let observed_nodes = kube_nodes(facts);
        let names = cluster.nodes.iter().map(|n| n.as_str());
        b.declared_missing(
            site,
            c,
            "nodes",
            names,
            |n| observed_nodes.contains(n),
            |missing| {
                format!(
                    "cluster {} has no Kubernetes node named {missing}",
                    cluster.id
                )
            },
        );
        let declared_cni = format!("{:?}", cluster.cni.kind).to_ascii_lowercase();
        // Without the DaemonSets, K3s's flannel annotations would pass for the CNI.
        let cni_read = facts.not_read(DAEMON_SET).is_none();
        if cni_read && !facts.cni.is_empty() && !facts.cni.iter().any(|(k, _)| *k == declared_cni) {
            let seen: Vec<&str> = facts.cni.iter().map(|(k, _)| k.as_str()).collect();
            b.drift(
                site,
                c,
                DriftKind::Mismatch {
                    property: "cni".to_owned(),
                    declared: declared_cni.clone(),
                    observed: seen.join(","),
                },
                format!(
                    "cluster {} runs {}, declared {declared_cni}",
                    cluster.id,
                    seen.join(", ")
                ),
            );
        }
    }
    for argocd in topo.argocd().iter().filter(|a| a.site == site_id.id) {
        let c = ComponentRef::ArgoCd(argocd);
        let source = argocd
            .runs_in
            .as_ref()
            .and_then(|r| kube.get(r.as_str()).copied());
        let unread = source
            .and_then(|s| s.observed())
            .and_then(|f| f.not_read(APPLICATION));
        let evidence = match (source, unread) {
            (Some(_), Some(unread)) => {
                Evidence::Unknown(format!("Argo CD {}: {unread}", argocd.id))
            }
            (Some(s), None) => evidence_of(s, |f| f.argocd_served),
            (None, _) => Evidence::NotObserved,
        };
        b.record(c, site, evidence);
    }
}

/// The node names a Kubernetes cluster reports.
pub(crate) fn kube_nodes(facts: &KubeFacts) -> HashSet<&str> {
    facts.nodes.iter().map(String::as_str).collect()
}
