//! Everything read from one cluster, in one concurrent round of list calls.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{ConfigMap, Node, Pod};
use k8s_openapi::api::node::v1::RuntimeClass;
use serde::Serialize;

use super::argocd::Application;
use super::certmanager::Certificate;
use super::cni::{self, CniObservation};
use super::kueue::{
    self, AdmissionCheck, ClusterQueue, Listed, LocalQueue, MultiKueueCluster, MultiKueueConfig,
    ResourceFlavor, ServedVersions, Undecodable, Workload,
};
use super::list_all;
use super::nodes::{self, GpuNode};
use super::sharing::{self, ConfigError, PluginConfig, PluginDeployment};
use super::worker_kubeconfig::{
    DEFAULT_KUEUE_NAMESPACE, WorkerKubeconfig, WorkerSecret, judge_kubeconfig,
};
use crate::error::Error;

/// A resource kind the cluster does not serve (its CRD is not installed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing(pub &'static str);

/// The cluster's state as read.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClusterSnapshot {
    /// Node inventory.
    pub nodes: Vec<GpuNode>,
    /// NVIDIA device-plugin DaemonSets that read a ConfigMap.
    pub device_plugins: Vec<PluginDeployment>,
    /// The configurations (keys) of those ConfigMaps.
    pub plugin_configs: Vec<PluginConfig>,
    /// Keys of those ConfigMaps that could not be parsed.
    pub plugin_config_errors: Vec<ConfigError>,
    /// The Kueue version each Kueue kind was read at (`ClusterQueue` → `v1beta2`).
    pub kueue_versions: BTreeMap<String, String>,
    /// Kueue ResourceFlavors.
    pub resource_flavors: Vec<ResourceFlavor>,
    /// Kueue ClusterQueues.
    pub cluster_queues: Vec<ClusterQueue>,
    /// Kueue LocalQueues.
    pub local_queues: Vec<LocalQueue>,
    /// Kueue Workloads.
    pub workloads: Vec<Workload>,
    /// Kueue AdmissionChecks.
    pub admission_checks: Vec<AdmissionCheck>,
    /// MultiKueue configurations.
    pub multikueue_configs: Vec<MultiKueueConfig>,
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
    /// Kueue objects, Applications and Certificates that were listed but do not decode (each a
    /// finding; the rest is read).
    pub undecodable: Vec<Undecodable>,
    /// The GPU device-plugin pods and their readiness.
    pub plugin_pods: Vec<nodes::PluginPod>,
    /// RuntimeClasses, name to handler (`node.k8s.io/v1`); `None` when they could not be read
    /// (not served, or the reader may not list them: then `missing` says so).
    pub runtime_classes: Option<BTreeMap<String, String>>,
    /// The kubeconfig Secret of each MultiKueueCluster that names one.
    pub worker_secrets: Vec<WorkerSecret>,
}

impl ClusterSnapshot {
    /// A snapshot of a cluster with nothing in it (for building test inputs).
    pub fn empty() -> Self {
        Self {
            nodes: vec![],
            device_plugins: vec![],
            plugin_configs: vec![],
            plugin_config_errors: vec![],
            kueue_versions: BTreeMap::new(),
            resource_flavors: vec![],
            cluster_queues: vec![],
            local_queues: vec![],
            workloads: vec![],
            admission_checks: vec![],
            multikueue_configs: vec![],
            multikueue_clusters: vec![],
            applications: vec![],
            certificates: vec![],
            cni: vec![],
            missing: vec![],
            undecodable: vec![],
            plugin_pods: vec![],
            runtime_classes: None,
            worker_secrets: vec![],
        }
    }

    /// Whether this cluster is a MultiKueue manager: a ClusterQueue uses an AdmissionCheck of
    /// the MultiKueue controller, so its Workloads run on worker clusters, not here.
    pub fn is_multikueue_manager(&self) -> bool {
        self.admission_checks
            .iter()
            .any(AdmissionCheck::is_multikueue)
    }
}

fn or_missing<T>(v: Option<Vec<T>>, what: &'static str, missing: &mut Vec<Missing>) -> Vec<T> {
    v.unwrap_or_else(|| {
        missing.push(Missing(what));
        Vec::new()
    })
}

/// The items of a Kueue list, its undecodable objects moved to `undecodable`; `None` (not
/// served) stays `None`.
fn items<T>(listed: Option<Listed<T>>, undecodable: &mut Vec<Undecodable>) -> Option<Vec<T>> {
    listed.map(|l| {
        undecodable.extend(l.undecodable);
        l.items
    })
}

/// Reads the cluster: `GET` lists of nodes, pods, daemonsets, configmaps (all namespaces), the
/// Kueue resources at the version the server serves (discovery first), and the Argo CD and
/// cert-manager resources, at most 12 requests in flight.
///
/// # Errors
/// [`Error::Kube`] for any failed list other than "resource not served".
pub async fn collect(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    // Boxed: the joined list futures are large.
    Box::pin(collect_inner(client)).await
}

async fn collect_inner(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    let served = kueue::served_versions(client).await?;
    let (core, queues, others) = futures::try_join!(
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
                kueue::list_served::<ResourceFlavor>(
                    client,
                    &served,
                    None,
                    "ResourceFlavor",
                    "resourceflavors"
                ),
                kueue::list_served::<ClusterQueue>(
                    client,
                    &served,
                    None,
                    "ClusterQueue",
                    "clusterqueues"
                ),
                kueue::list_served::<LocalQueue>(
                    client,
                    &served,
                    None,
                    "LocalQueue",
                    "localqueues"
                ),
                kueue::list_served::<Workload>(client, &served, None, "Workload", "workloads"),
            )
        },
        async {
            futures::try_join!(
                kueue::list_served::<AdmissionCheck>(
                    client,
                    &served,
                    None,
                    "AdmissionCheck",
                    "admissionchecks"
                ),
                kueue::list_served::<MultiKueueConfig>(
                    client,
                    &served,
                    None,
                    "MultiKueueConfig",
                    "multikueueconfigs"
                ),
                kueue::list_served::<MultiKueueCluster>(
                    client,
                    &served,
                    None,
                    "MultiKueueCluster",
                    "multikueueclusters"
                ),
                list_items::<Application>(client, "Application"),
                list_items::<Certificate>(client, "Certificate"),
                list_permitted::<RuntimeClass>(client),
            )
        }
    )?;
    let (raw_nodes, pods, daemonsets, configmaps) = core;
    let mut undecodable = Vec::new();
    let u = &mut undecodable;
    let (flavors, cqs, lqs, wls) = queues;
    let (flavors, cqs, lqs, wls) = (
        items(flavors, u),
        items(cqs, u),
        items(lqs, u),
        items(wls, u),
    );
    let (acs, mkconfs, mks, apps, certs, runtime_classes) = others;
    let (acs, mkconfs, mks) = (items(acs, u), items(mkconfs, u), items(mks, u));
    let (apps, certs) = (items(apps, u), items(certs, u));
    let mut missing = Vec::new();
    if runtime_classes.is_none() {
        missing.push(Missing("node.k8s.io/v1 RuntimeClass"));
    }
    let raw_nodes = raw_nodes.unwrap_or_default();
    let pods = pods.unwrap_or_default();
    let daemonsets = daemonsets.unwrap_or_default();
    let device_plugins = sharing::deployments(&daemonsets);
    let (plugin_configs, plugin_config_errors) =
        sharing::configs(&device_plugins, &configmaps.unwrap_or_default());
    let mks = mks.unwrap_or_default();
    let worker_secrets = worker_secrets(client, &mks, &kueue_namespace(&pods)).await;
    Ok(ClusterSnapshot {
        worker_secrets,
        nodes: nodes::inventory(&raw_nodes, &pods),
        plugin_pods: nodes::plugin_pods(&pods),
        runtime_classes: runtime_classes.map(|rcs| {
            rcs.into_iter()
                .map(|rc| (rc.metadata.name.unwrap_or_default(), rc.handler))
                .collect()
        }),
        cni: cni::observe(&daemonsets, &raw_nodes),
        device_plugins,
        plugin_configs,
        plugin_config_errors,
        kueue_versions: kueue_versions(&served),
        resource_flavors: or_missing(flavors, "kueue.x-k8s.io ResourceFlavor", &mut missing),
        cluster_queues: or_missing(cqs, "kueue.x-k8s.io ClusterQueue", &mut missing),
        local_queues: or_missing(lqs, "kueue.x-k8s.io LocalQueue", &mut missing),
        workloads: or_missing(wls, "kueue.x-k8s.io Workload", &mut missing),
        // Only MultiKueue managers have these: absent CRDs are not a gap of a plain Kueue.
        admission_checks: acs.unwrap_or_default(),
        multikueue_configs: mkconfs.unwrap_or_default(),
        multikueue_clusters: mks,
        applications: or_missing(apps, "argoproj.io/v1alpha1 Application", &mut missing),
        certificates: or_missing(certs, "cert-manager.io/v1 Certificate", &mut missing),
        missing,
        undecodable,
    })
}

/// Lists every `K` (all namespaces) and decodes the items one by one (as the Kueue lists are):
/// one Application or Certificate the types here cannot read is a finding about that object
/// (in `undecodable`), not a failed snapshot. `None` when the kind is not served.
async fn list_items<K>(client: &kube::Client, kind: &str) -> Result<Option<Listed<K>>, Error>
where
    K: kube::Resource<DynamicType = ()> + serde::de::DeserializeOwned,
{
    let resource = kube::discovery::ApiResource::erase::<K>(&());
    let api = kube::Api::<kube::api::DynamicObject>::all_with(client.clone(), &resource);
    match api.list(&kube::api::ListParams::default()).await {
        Ok(list) => Ok(Some(kueue::decode_items(kind, list.items))),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
        Err(source) => Err(Error::kube("GET", K::url_path(&(), None), source)),
    }
}

/// Kueue's namespace: that of its controller-manager pod (label `control-plane:
/// controller-manager` with a `kueue` image, as Kueue's manifests deploy it), else
/// [`DEFAULT_KUEUE_NAMESPACE`].
fn kueue_namespace(pods: &[Pod]) -> String {
    pods.iter()
        .find(|p| {
            let manager = p
                .metadata
                .labels
                .as_ref()
                .and_then(|l| l.get("control-plane"))
                .is_some_and(|v| v == "controller-manager");
            let kueue = p.spec.iter().flat_map(|s| &s.containers).any(|c| {
                c.image
                    .as_deref()
                    .is_some_and(|i| i.contains("/kueue/kueue") || i.contains("/kueue:"))
            });
            manager && kueue
        })
        .and_then(|p| p.metadata.namespace.clone())
        .unwrap_or_else(|| DEFAULT_KUEUE_NAMESPACE.to_owned())
}

/// `GET` each MultiKueueCluster's kubeconfig Secret in `namespace`, one at a time; only what
/// [`judge_kubeconfig`] makes of it is kept, never the Secret's data.
async fn worker_secrets(
    client: &kube::Client,
    clusters: &[MultiKueueCluster],
    namespace: &str,
) -> Vec<WorkerSecret> {
    let api: kube::Api<k8s_openapi::api::core::v1::Secret> =
        kube::Api::namespaced(client.clone(), namespace);
    let mut out = Vec::new();
    for c in clusters {
        let (Some(cluster), Some(name)) = (c.metadata.name.as_deref(), c.kubeconfig_secret())
        else {
            continue;
        };
        let state = match api.get_opt(name).await {
            Ok(None) => WorkerKubeconfig::Missing,
            Ok(Some(secret)) => match secret.data.as_ref().and_then(|d| d.get("kubeconfig")) {
                Some(bytes) => judge_kubeconfig(&bytes.0),
                None => WorkerKubeconfig::NoKubeconfigKey,
            },
            Err(kube::Error::Api(s)) => {
                WorkerKubeconfig::Unreadable(format!("{} {}", s.code, s.reason))
            }
            Err(e) => WorkerKubeconfig::Unreadable(e.to_string()),
        };
        out.push(WorkerSecret {
            cluster: cluster.to_owned(),
            secret: format!("{namespace}/{name}"),
            state,
        });
    }
    out
}

/// [`list_all`], with a refusal (401, 403) read as "not read" instead of a failed snapshot: a
/// reader that may not list this kind still gets everything else, and the gap is in `missing`.
async fn list_permitted<K>(client: &kube::Client) -> Result<Option<Vec<K>>, Error>
where
    K: kube::Resource<DynamicType = ()> + Clone + std::fmt::Debug + serde::de::DeserializeOwned,
{
    match list_all::<K>(client).await {
        Err(Error::Kube {
            source: kube::Error::Api(s),
            ..
        }) if s.code == 401 || s.code == 403 => Ok(None),
        other => other,
    }
}

/// The version each kind was read at, by kind name.
fn kueue_versions(served: &ServedVersions) -> BTreeMap<String, String> {
    [
        ("ResourceFlavor", "resourceflavors"),
        ("ClusterQueue", "clusterqueues"),
        ("LocalQueue", "localqueues"),
        ("Workload", "workloads"),
        ("AdmissionCheck", "admissionchecks"),
        ("MultiKueueConfig", "multikueueconfigs"),
        ("MultiKueueCluster", "multikueueclusters"),
    ]
    .into_iter()
    .filter_map(|(kind, plural)| served.of(plural).map(|v| (kind.to_owned(), v.to_owned())))
    .collect()
}
