//! Everything read from one cluster, in one concurrent round of list calls.

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod};
use serde::Serialize;

use super::argocd::Application;
use super::certmanager::Certificate;
use super::cni::{self, CniObservation};
use super::kueue::{ClusterQueue, LocalQueue, MultiKueueCluster, ResourceFlavor, Workload};
use super::list_all;
use super::nodes::{self, GpuNode};
use super::timeslicing::{self, TimeSlicingConfig};
use crate::error::Error;

/// A resource kind the cluster does not serve (its CRD is not installed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing(pub &'static str);

/// The cluster's state as read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterSnapshot {
    /// Node inventory.
    pub nodes: Vec<GpuNode>,
    /// Time-slicing configurations found in ConfigMaps.
    pub time_slicing: Vec<TimeSlicingConfig>,
    /// ConfigMaps whose time-slicing configuration could not be parsed, with the error.
    pub time_slicing_errors: Vec<String>,
    /// Kueue ResourceFlavors.
    pub resource_flavors: Vec<ResourceFlavor>,
    /// Kueue ClusterQueues.
    pub cluster_queues: Vec<ClusterQueue>,
    /// Kueue LocalQueues.
    pub local_queues: Vec<LocalQueue>,
    /// Kueue Workloads.
    pub workloads: Vec<Workload>,
    /// MultiKueue clusters.
    pub multikueue_clusters: Vec<MultiKueueCluster>,
    /// Argo CD Applications.
    pub applications: Vec<Application>,
    /// cert-manager Certificates.
    pub certificates: Vec<Certificate>,
    /// CNIs observed.
    pub cni: Vec<CniObservation>,
    /// Resource kinds not served by this cluster.
    pub missing: Vec<Missing>,
}

fn or_missing<T>(v: Option<Vec<T>>, what: &'static str, missing: &mut Vec<Missing>) -> Vec<T> {
    v.unwrap_or_else(|| {
        missing.push(Missing(what));
        Vec::new()
    })
}

/// Reads the cluster: `GET` lists of nodes, pods, daemonsets, configmaps (all namespaces), and of
/// the Kueue, Argo CD and cert-manager resources, at most 12 requests in flight.
///
/// # Errors
/// [`Error::Kube`] for any failed list other than "resource not served".
pub async fn collect(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    // Boxed: the joined list futures are large.
    Box::pin(collect_inner(client)).await
}

async fn collect_inner(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    let (core, custom) = futures::try_join!(
        async {
            futures::try_join!(
                list_all::<Node>(client),
                list_all::<Pod>(client),
                list_all::<DaemonSet>(client),
                list_all::<ConfigMap>(client),
            )
        },
        async {
            futures::try_join!(
                list_all::<ResourceFlavor>(client),
                list_all::<ClusterQueue>(client),
                list_all::<LocalQueue>(client),
                list_all::<Workload>(client),
                list_all::<MultiKueueCluster>(client),
                list_all::<Application>(client),
                list_all::<Certificate>(client),
            )
        }
    )?;
    let (raw_nodes, pods, daemonsets, configmaps) = core;
    let (flavors, cqs, lqs, wls, mks, apps, certs) = custom;
    let mut missing = Vec::new();
    let raw_nodes = raw_nodes.unwrap_or_default();
    let pods = pods.unwrap_or_default();
    let mut time_slicing = Vec::new();
    let mut time_slicing_errors = Vec::new();
    for cm in configmaps.unwrap_or_default() {
        let name = format!(
            "{}/{}",
            cm.metadata.namespace.as_deref().unwrap_or(""),
            cm.metadata.name.as_deref().unwrap_or("")
        );
        for (key, value) in cm.data.iter().flatten() {
            if !value.contains("timeSlicing") {
                continue;
            }
            match timeslicing::parse(&name, key, value) {
                Ok(Some(c)) => time_slicing.push(c),
                Ok(None) => {}
                Err(e) => time_slicing_errors.push(match std::error::Error::source(&e) {
                    Some(s) => format!("{e}: {s}"),
                    None => e.to_string(),
                }),
            }
        }
    }
    Ok(ClusterSnapshot {
        nodes: nodes::inventory(&raw_nodes, &pods),
        cni: cni::observe(&daemonsets.unwrap_or_default(), &raw_nodes),
        time_slicing,
        time_slicing_errors,
        resource_flavors: or_missing(
            flavors,
            "kueue.x-k8s.io/v1beta2 ResourceFlavor",
            &mut missing,
        ),
        cluster_queues: or_missing(cqs, "kueue.x-k8s.io/v1beta2 ClusterQueue", &mut missing),
        local_queues: or_missing(lqs, "kueue.x-k8s.io/v1beta2 LocalQueue", &mut missing),
        workloads: or_missing(wls, "kueue.x-k8s.io/v1beta2 Workload", &mut missing),
        multikueue_clusters: or_missing(
            mks,
            "kueue.x-k8s.io/v1beta1 MultiKueueCluster",
            &mut missing,
        ),
        applications: or_missing(apps, "argoproj.io/v1alpha1 Application", &mut missing),
        certificates: or_missing(certs, "cert-manager.io/v1 Certificate", &mut missing),
        missing,
    })
}
