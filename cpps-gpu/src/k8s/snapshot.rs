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
use super::worker_kubeconfig::{WorkerKubeconfig, WorkerSecret, judge_kubeconfig};
use crate::error::Error;

/// A resource kind the cluster does not serve (its CRD is not installed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Missing(pub &'static str);

/// A kind the cluster serves whose list could not be read (refused, or the server failed): the
/// checks that need it say "cannot tell" instead of judging from an empty list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Unread {
    /// The kind, named as in [`Missing`] (`kueue.x-k8s.io ClusterQueue`).
    pub kind: &'static str,
    /// Why it was not read (the status and the server's message).
    pub why: String,
}

impl Unread {
    /// `kind` could not be read, because of `why`.
    pub fn new(kind: &'static str, why: impl Into<String>) -> Self {
        Self {
            kind,
            why: why.into(),
        }
    }
}

/// A Kueue kind read at an older version because its newest answered 500 (Kueue's conversion
/// webhook down; [`kueue::Fallback`]): read, and Kueue is not well.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct KueueFallback {
    /// The kind, named as in [`Missing`] (`kueue.x-k8s.io ClusterQueue`).
    pub kind: &'static str,
    /// The version that answered 500.
    pub refused: String,
    /// The version it was read at.
    pub read_at: String,
    /// What the server said at `refused`.
    pub why: String,
}

impl KueueFallback {
    /// `kind` read at `read_at` because `refused` answered `why` (for facts and tests built
    /// outside this crate).
    pub fn new(kind: &'static str, refused: &str, read_at: &str, why: &str) -> Self {
        Self {
            kind,
            refused: refused.to_owned(),
            read_at: read_at.to_owned(),
            why: why.to_owned(),
        }
    }
}

/// `v1 Node`, as [`Unread::kind`] names it.
pub const NODE: &str = "v1 Node";
/// `v1 Pod`.
pub const POD: &str = "v1 Pod";
/// `apps/v1 DaemonSet`.
pub const DAEMON_SET: &str = "apps/v1 DaemonSet";
/// `v1 ConfigMap`.
pub const CONFIG_MAP: &str = "v1 ConfigMap";
/// `node.k8s.io/v1 RuntimeClass`.
pub const RUNTIME_CLASS: &str = "node.k8s.io/v1 RuntimeClass";
/// `kueue.x-k8s.io ResourceFlavor`.
pub const RESOURCE_FLAVOR: &str = "kueue.x-k8s.io ResourceFlavor";
/// `kueue.x-k8s.io ClusterQueue`.
pub const CLUSTER_QUEUE: &str = "kueue.x-k8s.io ClusterQueue";
/// `kueue.x-k8s.io LocalQueue`.
pub const LOCAL_QUEUE: &str = "kueue.x-k8s.io LocalQueue";
/// `kueue.x-k8s.io Workload`.
pub const WORKLOAD: &str = "kueue.x-k8s.io Workload";
/// `kueue.x-k8s.io AdmissionCheck`.
pub const ADMISSION_CHECK: &str = "kueue.x-k8s.io AdmissionCheck";
/// `kueue.x-k8s.io MultiKueueConfig`.
pub const MULTIKUEUE_CONFIG: &str = "kueue.x-k8s.io MultiKueueConfig";
/// `kueue.x-k8s.io MultiKueueCluster`.
pub const MULTIKUEUE_CLUSTER: &str = "kueue.x-k8s.io MultiKueueCluster";
/// `argoproj.io/v1alpha1 Application`.
pub const APPLICATION: &str = "argoproj.io/v1alpha1 Application";
/// `cert-manager.io/v1 Certificate`.
pub const CERTIFICATE: &str = "cert-manager.io/v1 Certificate";

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
    /// Served kinds whose list could not be read: their fields above are empty, and that is
    /// not the truth.
    pub unread: Vec<Unread>,
    /// Kueue kinds read at an older version because the newest answered 500 (their
    /// `kueue_versions` entry names the version read).
    pub kueue_fallbacks: Vec<KueueFallback>,
    /// Kueue objects, Applications and Certificates that were listed but do not decode (each a
    /// finding; the rest is read).
    pub undecodable: Vec<Undecodable>,
    /// The GPU device-plugin pods and their readiness.
    pub plugin_pods: Vec<nodes::PluginPod>,
    /// RuntimeClasses, name to handler (`node.k8s.io/v1`); `None` when they could not be read
    /// (not served: `missing` says so; or refused or failed: `unread` says so).
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
            unread: vec![],
            kueue_fallbacks: vec![],
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

fn or_missing<T>(
    v: Option<Vec<T>>,
    what: &'static str,
    missing: &mut Vec<Missing>,
    unread: &[Unread],
) -> Vec<T> {
    v.unwrap_or_else(|| {
        if !unread.iter().any(|u| u.kind == what) {
            missing.push(Missing(what));
        }
        Vec::new()
    })
}

/// A list's outcome: a failure is recorded in `unread` (and read as `None`, which
/// [`or_missing`] then does not call "not served").
fn read<T>(r: Result<Option<T>, Error>, kind: &'static str, unread: &mut Vec<Unread>) -> Option<T> {
    r.unwrap_or_else(|e| {
        unread.push(Unread::new(kind, why(kind, &e)));
        None
    })
}

/// Why a list failed. Kueue's CRDs convert between v1beta1 and v1beta2 through Kueue's own
/// webhook (kueue `config/components/crd/kustomization.yaml`, `patches/webhook_in_*.yaml`), and
/// apiextensions-apiserver answers 500 for a list whose conversion webhook fails
/// (`pkg/apiserver/conversion/webhook_converter.go`): that is Kueue down, not the cluster.
fn why(kind: &str, e: &Error) -> String {
    match e {
        Error::Kube {
            source: kube::Error::Api(s),
            ..
        } => {
            let said = format!("{} {}: {}", s.code, s.reason, s.message);
            if s.code == 500 && kind.starts_with("kueue.x-k8s.io") {
                format!(
                    "Kueue's API is unavailable (is kueue-controller-manager, its conversion \
                     webhook, running?): {said}"
                )
            } else {
                said
            }
        }
        other => other.to_string(),
    }
}

/// What [`items`] sets aside: undecodable objects, and the Kueue kinds read at an older version.
#[derive(Default)]
struct Aside {
    undecodable: Vec<Undecodable>,
    fallbacks: Vec<KueueFallback>,
}

/// The items of a list of `kind`, its undecodable objects and its fallback moved to `aside`;
/// `None` (not served) stays `None`.
fn items<T>(listed: Option<Listed<T>>, kind: &'static str, aside: &mut Aside) -> Option<Vec<T>> {
    listed.map(|l| {
        aside.undecodable.extend(l.undecodable);
        if let Some(fb) = l.fallback {
            aside.fallbacks.push(KueueFallback {
                kind,
                refused: fb.refused,
                read_at: fb.read_at,
                why: fb.why,
            });
        }
        l.items
    })
}

/// Reads the cluster: `GET` lists of nodes, pods, daemonsets, configmaps (all namespaces), the
/// Kueue resources at the version the server serves (discovery first), and the Argo CD and
/// cert-manager resources, at most 12 requests in flight. Each list is read on its own: one
/// that is refused or fails is recorded in [`ClusterSnapshot::unread`], and the rest is read.
///
/// # Errors
/// [`Error::Kube`] when Kueue's API discovery fails (other than "not served").
pub async fn collect(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    // Boxed: the joined list futures are large.
    Box::pin(collect_inner(client)).await
}

async fn collect_inner(client: &kube::Client) -> Result<ClusterSnapshot, Error> {
    let served = kueue::served_versions(client).await?;
    let (core, queues, others) = futures::join!(
        list_core(client),
        list_queues(client, &served),
        list_others(client, &served),
    );
    let lists = sort_answers(core, queues, others);
    let kueue_namespace = kueue_namespace(&lists.pods, &lists.configmaps);
    let worker_secrets = worker_secrets(
        client,
        &lists.multikueue_clusters,
        kueue_namespace.as_deref(),
    )
    .await;
    Ok(assemble(lists, &served, worker_secrets))
}

/// One list's answer: the items, `None` when the kind is not served, or the error.
type Answer<T> = Result<Option<T>, Error>;

/// The core lists' answers: nodes, pods, DaemonSets, ConfigMaps.
type CoreAnswers = (
    Answer<Vec<Node>>,
    Answer<Vec<Pod>>,
    Answer<Vec<DaemonSet>>,
    Answer<Vec<ConfigMap>>,
);

/// The Kueue queue lists' answers: ResourceFlavors, ClusterQueues, LocalQueues, Workloads.
type QueueAnswers = (
    Answer<Listed<ResourceFlavor>>,
    Answer<Listed<ClusterQueue>>,
    Answer<Listed<LocalQueue>>,
    Answer<Listed<Workload>>,
);

/// The other lists' answers: MultiKueue's three kinds, Applications, Certificates and
/// RuntimeClasses.
type OtherAnswers = (
    Answer<Listed<AdmissionCheck>>,
    Answer<Listed<MultiKueueConfig>>,
    Answer<Listed<MultiKueueCluster>>,
    Answer<Listed<Application>>,
    Answer<Listed<Certificate>>,
    Answer<Vec<RuntimeClass>>,
);

/// `GET` the core lists, all at once.
async fn list_core(client: &kube::Client) -> CoreAnswers {
    futures::join!(
        list_all::<Node>(client),
        list_all::<Pod>(client),
        list_all::<DaemonSet>(client),
        list_all::<ConfigMap>(client),
    )
}

/// `GET` the Kueue queue lists at the versions the server serves, all at once.
async fn list_queues(client: &kube::Client, served: &ServedVersions) -> QueueAnswers {
    futures::join!(
        kueue::list_served::<ResourceFlavor>(
            client,
            served,
            None,
            "ResourceFlavor",
            "resourceflavors"
        ),
        kueue::list_served::<ClusterQueue>(client, served, None, "ClusterQueue", "clusterqueues"),
        kueue::list_served::<LocalQueue>(client, served, None, "LocalQueue", "localqueues"),
        kueue::list_served::<Workload>(client, served, None, "Workload", "workloads"),
    )
}

/// `GET` the MultiKueue, Argo CD, cert-manager and RuntimeClass lists, all at once.
async fn list_others(client: &kube::Client, served: &ServedVersions) -> OtherAnswers {
    futures::join!(
        kueue::list_served::<AdmissionCheck>(
            client,
            served,
            None,
            "AdmissionCheck",
            "admissionchecks"
        ),
        kueue::list_served::<MultiKueueConfig>(
            client,
            served,
            None,
            "MultiKueueConfig",
            "multikueueconfigs"
        ),
        kueue::list_served::<MultiKueueCluster>(
            client,
            served,
            None,
            "MultiKueueCluster",
            "multikueueclusters"
        ),
        list_items::<Application>(client, "Application"),
        list_items::<Certificate>(client, "Certificate"),
        list_all::<RuntimeClass>(client),
    )
}

/// Every list as read: the core ones empty when unread, the others `None` when not served or
/// unread (`unread` tells which), with what [`items`] set aside.
struct Lists {
    nodes: Vec<Node>,
    pods: Vec<Pod>,
    daemonsets: Vec<DaemonSet>,
    configmaps: Vec<ConfigMap>,
    resource_flavors: Option<Vec<ResourceFlavor>>,
    cluster_queues: Option<Vec<ClusterQueue>>,
    local_queues: Option<Vec<LocalQueue>>,
    workloads: Option<Vec<Workload>>,
    admission_checks: Option<Vec<AdmissionCheck>>,
    multikueue_configs: Option<Vec<MultiKueueConfig>>,
    multikueue_clusters: Vec<MultiKueueCluster>,
    applications: Option<Vec<Application>>,
    certificates: Option<Vec<Certificate>>,
    runtime_classes: Option<Vec<RuntimeClass>>,
    unread: Vec<Unread>,
    aside: Aside,
}

/// Sorts the answers into [`Lists`]: each failure into `unread`, in the order the kinds are
/// listed here, and each list's undecodable objects and fallback aside.
fn sort_answers(core: CoreAnswers, queues: QueueAnswers, others: OtherAnswers) -> Lists {
    let mut unread = Vec::new();
    let r = &mut unread;
    let (nodes, pods, daemonsets, configmaps) = core;
    let (nodes, pods) = (read(nodes, NODE, r), read(pods, POD, r));
    let daemonsets = read(daemonsets, DAEMON_SET, r);
    let configmaps = read(configmaps, CONFIG_MAP, r);
    let mut aside = Aside::default();
    let u = &mut aside;
    let (flavors, cqs, lqs, wls) = queues;
    let flavors = items(read(flavors, RESOURCE_FLAVOR, r), RESOURCE_FLAVOR, u);
    let cqs = items(read(cqs, CLUSTER_QUEUE, r), CLUSTER_QUEUE, u);
    let lqs = items(read(lqs, LOCAL_QUEUE, r), LOCAL_QUEUE, u);
    let wls = items(read(wls, WORKLOAD, r), WORKLOAD, u);
    let (acs, mkconfs, mks, apps, certs, runtime_classes) = others;
    let acs = items(read(acs, ADMISSION_CHECK, r), ADMISSION_CHECK, u);
    let mkconfs = items(read(mkconfs, MULTIKUEUE_CONFIG, r), MULTIKUEUE_CONFIG, u);
    let mks = items(read(mks, MULTIKUEUE_CLUSTER, r), MULTIKUEUE_CLUSTER, u);
    let apps = items(read(apps, APPLICATION, r), APPLICATION, u);
    let certs = items(read(certs, CERTIFICATE, r), CERTIFICATE, u);
    let runtime_classes = read(runtime_classes, RUNTIME_CLASS, r);
    Lists {
        nodes: nodes.unwrap_or_default(),
        pods: pods.unwrap_or_default(),
        daemonsets: daemonsets.unwrap_or_default(),
        configmaps: configmaps.unwrap_or_default(),
        resource_flavors: flavors,
        cluster_queues: cqs,
        local_queues: lqs,
        workloads: wls,
        admission_checks: acs,
        multikueue_configs: mkconfs,
        multikueue_clusters: mks.unwrap_or_default(),
        applications: apps,
        certificates: certs,
        runtime_classes,
        unread,
        aside,
    }
}

/// The snapshot of what was read: the node inventory, the device plugins' configurations and
/// the CNI worked out from the core lists, and each kind neither read nor unread `missing`.
fn assemble(
    lists: Lists,
    served: &ServedVersions,
    worker_secrets: Vec<WorkerSecret>,
) -> ClusterSnapshot {
    let Lists {
        nodes: raw_nodes,
        pods,
        daemonsets,
        configmaps,
        resource_flavors,
        cluster_queues,
        local_queues,
        workloads,
        admission_checks,
        multikueue_configs,
        multikueue_clusters,
        applications,
        certificates,
        runtime_classes,
        unread,
        aside,
    } = lists;
    let Aside {
        undecodable,
        fallbacks: kueue_fallbacks,
    } = aside;
    let mut missing = Vec::new();
    if runtime_classes.is_none() && !unread.iter().any(|x| x.kind == RUNTIME_CLASS) {
        missing.push(Missing(RUNTIME_CLASS));
    }
    let device_plugins = sharing::deployments(&daemonsets);
    let (plugin_configs, plugin_config_errors) = sharing::configs(&device_plugins, &configmaps);
    let m = &mut missing;
    ClusterSnapshot {
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
        kueue_versions: kueue_versions(served, &kueue_fallbacks),
        resource_flavors: or_missing(resource_flavors, RESOURCE_FLAVOR, m, &unread),
        cluster_queues: or_missing(cluster_queues, CLUSTER_QUEUE, m, &unread),
        local_queues: or_missing(local_queues, LOCAL_QUEUE, m, &unread),
        workloads: or_missing(workloads, WORKLOAD, m, &unread),
        // Only MultiKueue managers have these: absent CRDs are not a gap of a plain Kueue.
        admission_checks: admission_checks.unwrap_or_default(),
        multikueue_configs: multikueue_configs.unwrap_or_default(),
        multikueue_clusters,
        applications: or_missing(applications, APPLICATION, m, &unread),
        certificates: or_missing(certificates, CERTIFICATE, m, &unread),
        missing,
        unread,
        kueue_fallbacks,
        undecodable,
    }
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

/// Kueue's namespace, where MultiKueue reads its kubeconfig Secrets (kueue
/// `pkg/controller/admissionchecks/multikueue/multikueuecluster.go` `getKubeConfigFromSecret`,
/// `c.configNamespace`): the Configuration's `namespace` in the `kueue-manager-config`
/// ConfigMap (kueue `config/components/manager/kustomization.yaml`, prefixed by
/// `config/default`), which `apis/config/v1beta2/defaults.go` `SetDefaults_Configuration`
/// defaults to the manager's own namespace (`getOperatorNamespace`), that is the ConfigMap's;
/// else the namespace of the controller-manager pod (labels `control-plane:
/// controller-manager` and `app.kubernetes.io/name: kueue`, or a `kueue` image). `None` when
/// neither is found: the namespace is not guessed.
fn kueue_namespace(pods: &[Pod], configmaps: &[ConfigMap]) -> Option<String> {
    /// The one field of Kueue's Configuration read here.
    #[derive(serde::Deserialize)]
    struct Configuration {
        namespace: Option<String>,
    }
    let mut configured = configmaps.iter().filter_map(|cm| {
        if cm.metadata.name.as_deref() != Some("kueue-manager-config") {
            return None;
        }
        let yaml = cm.data.as_ref()?.get("controller_manager_config.yaml")?;
        let config: Configuration = serde_saphyr::from_str(yaml).ok()?;
        config.namespace.or_else(|| cm.metadata.namespace.clone())
    });
    // Two installs' ConfigMaps do not say which one manages MultiKueue: then the pod decides.
    match (configured.next(), configured.next()) {
        (Some(ns), None) => Some(ns),
        _ => kueue_pod_namespace(pods),
    }
}

/// The namespace of Kueue's controller-manager pod, if one is listed.
fn kueue_pod_namespace(pods: &[Pod]) -> Option<String> {
    pods.iter()
        .find(|p| {
            let label = |k: &str| p.metadata.labels.as_ref().and_then(|l| l.get(k));
            let manager = label("control-plane").is_some_and(|v| v == "controller-manager");
            // kueue config/default/kustomization.yaml labels every object it deploys so.
            let named = label("app.kubernetes.io/name").is_some_and(|v| v == "kueue");
            let kueue = p.spec.iter().flat_map(|s| &s.containers).any(|c| {
                c.image
                    .as_deref()
                    .is_some_and(|i| i.contains("/kueue/kueue") || i.contains("/kueue:"))
            });
            manager && (named || kueue)
        })
        .and_then(|p| p.metadata.namespace.clone())
}

/// `GET` each MultiKueueCluster's kubeconfig Secret in `namespace`, one at a time; only what
/// [`judge_kubeconfig`] makes of it is kept, never the Secret's data.
async fn worker_secrets(
    client: &kube::Client,
    clusters: &[MultiKueueCluster],
    namespace: Option<&str>,
) -> Vec<WorkerSecret> {
    let mut out = Vec::new();
    for c in clusters {
        let (Some(cluster), Some(name)) = (c.metadata.name.as_deref(), c.kubeconfig_secret())
        else {
            continue;
        };
        let Some(namespace) = namespace else {
            // Looking in a guessed namespace would report a Secret that exists as missing.
            out.push(WorkerSecret {
                cluster: cluster.to_owned(),
                secret: format!("<Kueue's namespace>/{name}"),
                state: WorkerKubeconfig::Unreadable(
                    "Kueue's namespace cannot be told: no kueue-manager-config ConfigMap and no Kueue controller-manager pod was read".to_owned(),
                ),
            });
            continue;
        };
        let api: kube::Api<k8s_openapi::api::core::v1::Secret> =
            kube::Api::namespaced(client.clone(), namespace);
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

/// The version each kind was read at, by kind name: the newest served, or the older one a
/// fallback read it at.
fn kueue_versions(
    served: &ServedVersions,
    fallbacks: &[KueueFallback],
) -> BTreeMap<String, String> {
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
    .filter_map(|(kind, plural)| {
        let fallback = fallbacks
            .iter()
            .find(|f| f.kind.strip_prefix("kueue.x-k8s.io ") == Some(kind));
        let version = fallback.map(|f| f.read_at.as_str()).or(served.of(plural))?;
        Some((kind.to_owned(), version.to_owned()))
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(namespace: &str, labels: &[(&str, &str)], image: &str) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": namespace,
                "labels": labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<BTreeMap<_, _>>()},
            "spec": {"containers": [{"name": "manager", "image": image}]},
        }))
        .unwrap()
    }

    fn manager_config(namespace: &str, yaml: &str) -> ConfigMap {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "kueue-manager-config", "namespace": namespace},
            "data": {"controller_manager_config.yaml": yaml},
        }))
        .unwrap()
    }

    /// Kueue's namespace is read, never guessed (kueue `apis/config/v1beta2/defaults.go`
    /// `SetDefaults_Configuration`: the Configuration's `namespace`, else the manager's own,
    /// `getOperatorNamespace`; the ConfigMap is `config/components/manager`'s `manager-config`
    /// prefixed `kueue-` by `config/default/kustomization.yaml`, which also labels the pod
    /// `control-plane: controller-manager` and `app.kubernetes.io/name: kueue`).
    #[test]
    fn kueue_namespace_comes_from_its_configuration_or_pod_never_a_guess() {
        let config = "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nnamespace: batch-system\n";
        let mirror = "registry.example.org/mirror/queue-manager:v0.16.0";
        let labels = [
            ("control-plane", "controller-manager"),
            ("app.kubernetes.io/name", "kueue"),
        ];
        // The Configuration names the namespace: it wins over where the ConfigMap lives.
        let cms = [manager_config("kueue", config)];
        assert_eq!(kueue_namespace(&[], &cms).as_deref(), Some("batch-system"));
        // Without `namespace`, the default is the manager's own: the ConfigMap's namespace.
        let cms = [manager_config(
            "kueue",
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n",
        )];
        assert_eq!(kueue_namespace(&[], &cms).as_deref(), Some("kueue"));
        // A renamed mirror image: the pod is found by its labels.
        let pods = [pod("queues", &labels, mirror)];
        assert_eq!(kueue_namespace(&pods, &[]).as_deref(), Some("queues"));
        // Neither: cannot tell, not "kueue-system".
        let other = [pod(
            "queues",
            &[("control-plane", "controller-manager")],
            mirror,
        )];
        assert_eq!(kueue_namespace(&other, &[]), None);
        assert_eq!(kueue_namespace(&[], &[]), None);
    }
    use std::io::{Read, Write};

    /// One answer per path, from a tiny HTTP server on 127.0.0.1 (the shape of a kube-apiserver
    /// whose reader may not list ConfigMaps and whose Kueue controller is down). With
    /// `v1beta1`, Kueue 0.15's CRDs: v1beta1 served and the storage version, v1beta2 served
    /// through the conversion webhook (kueue v0.15.0
    /// `config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml`, `storage: true` on
    /// v1beta1), so a list at v1beta1 needs no conversion (kubernetes
    /// `staging/src/k8s.io/apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go`
    /// `getObjectsToConvert` sends only objects not already at the version asked for).
    fn answer(path: &str, v1beta1: bool) -> (u16, String) {
        let empty =
            r#"{"kind":"List","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[]}"#;
        let status = |code: u16, reason: &str, message: &str| {
            let body = serde_json::json!({"kind": "Status", "apiVersion": "v1", "metadata": {},
                "status": "Failure", "message": message, "reason": reason, "code": code});
            (code, body.to_string())
        };
        match path {
            "/apis/kueue.x-k8s.io/v1beta1" if v1beta1 => (
                200,
                serde_json::json!({"kind": "APIResourceList", "apiVersion": "v1",
                    "groupVersion": "kueue.x-k8s.io/v1beta1", "resources": [
                    {"name": "clusterqueues", "singularName": "clusterqueue", "namespaced": false, "kind": "ClusterQueue", "verbs": ["list"]},
                    {"name": "localqueues", "singularName": "localqueue", "namespaced": true, "kind": "LocalQueue", "verbs": ["list"]}]})
                .to_string(),
            ),
            // kueue v0.14.0 `site/static/examples/admin/single-clusterqueue-setup.yaml`.
            "/apis/kueue.x-k8s.io/v1beta1/clusterqueues" if v1beta1 => (
                200,
                serde_json::json!({"kind": "ClusterQueueList", "apiVersion": "kueue.x-k8s.io/v1beta1",
                    "metadata": {"resourceVersion": "7"}, "items": [
                    {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
                     "metadata": {"name": "cluster-queue"},
                     "spec": {"namespaceSelector": {}, "resourceGroups": [
                        {"coveredResources": ["cpu", "memory"], "flavors": [
                            {"name": "default-flavor", "resources": [
                                {"name": "cpu", "nominalQuota": 9},
                                {"name": "memory", "nominalQuota": "36Gi"}]}]}]}}]})
                .to_string(),
            ),
            "/apis/kueue.x-k8s.io/v1beta2" => (
                200,
                serde_json::json!({"kind": "APIResourceList", "apiVersion": "v1",
                    "groupVersion": "kueue.x-k8s.io/v1beta2", "resources": [
                    {"name": "clusterqueues", "singularName": "clusterqueue", "namespaced": false, "kind": "ClusterQueue", "verbs": ["list"]},
                    {"name": "localqueues", "singularName": "localqueue", "namespaced": true, "kind": "LocalQueue", "verbs": ["list"]},
                    {"name": "workloads", "singularName": "workload", "namespaced": true, "kind": "Workload", "verbs": ["list"]},
                    {"name": "resourceflavors", "singularName": "resourceflavor", "namespaced": false, "kind": "ResourceFlavor", "verbs": ["list"]}]})
                .to_string(),
            ),
            // apiextensions-apiserver `pkg/apiserver/conversion/webhook_converter.go` `Convert`:
            // "conversion webhook for %v failed: %v", answered as a 500.
            "/apis/kueue.x-k8s.io/v1beta2/clusterqueues" => status(
                500,
                "InternalError",
                "conversion webhook for kueue.x-k8s.io/v1beta1, Kind=ClusterQueue failed: Post \"https://kueue-webhook-service.kueue-system.svc:443/convert?timeout=30s\": dial tcp 10.43.12.7:443: connect: connection refused",
            ),
            "/api/v1/configmaps" => status(
                403,
                "Forbidden",
                "configmaps is forbidden: User \"gpu-reader\" cannot list resource \"configmaps\" in API group \"\" at the cluster scope",
            ),
            "/api/v1/nodes"
            | "/api/v1/pods"
            | "/apis/apps/v1/daemonsets"
            | "/apis/node.k8s.io/v1/runtimeclasses"
            | "/apis/kueue.x-k8s.io/v1beta2/localqueues"
            | "/apis/kueue.x-k8s.io/v1beta2/workloads"
            | "/apis/kueue.x-k8s.io/v1beta2/resourceflavors" => (200, empty.to_owned()),
            _ => status(404, "NotFound", "the server could not find the requested resource"),
        }
    }

    fn serve(v1beta1: bool) -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for c in listener.incoming() {
                let Ok(mut c) = c else { continue };
                let mut seen = Vec::new();
                let mut buf = [0u8; 4096];
                while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
                    match c.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => seen.extend_from_slice(&buf[..n]),
                    }
                }
                let head = String::from_utf8_lossy(&seen);
                let target = head.split(' ').nth(1).unwrap_or("/");
                let (code, body) = answer(target.split('?').next().unwrap_or("/"), v1beta1);
                let _ = write!(
                    c,
                    "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        port
    }

    /// A 403 on ConfigMaps and a 500 on ClusterQueues (Kueue's conversion webhook down) do not
    /// sink the snapshot: each is recorded, and the checks that need it say "cannot tell".
    #[tokio::test]
    async fn one_failed_list_is_recorded_and_the_rest_is_read() {
        let port = serve(false);
        let config = kube::Config::new(format!("http://127.0.0.1:{port}").parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let snap = collect(&client).await.unwrap();
        let kinds: Vec<&str> = snap.unread.iter().map(|u| u.kind).collect();
        assert_eq!(kinds, [CONFIG_MAP, CLUSTER_QUEUE]);
        assert!(
            snap.unread[0]
                .why
                .starts_with("403 Forbidden: configmaps is forbidden")
        );
        assert!(snap.unread[1].why.starts_with("Kueue's API is unavailable"));
        assert!(
            snap.unread[1]
                .why
                .contains("500 InternalError: conversion webhook")
        );
        assert!(!snap.missing.contains(&Missing(CLUSTER_QUEUE)));
        assert!(snap.missing.contains(&Missing(APPLICATION)));
    }

    /// Issue 34 C2. Kueue 0.15 stores v1beta1 and serves v1beta2 through its conversion
    /// webhook: with the webhook down, the v1beta2 list answers 500, and the same objects are
    /// read at v1beta1 with no conversion. The snapshot reads them there, and says the webhook
    /// failed (which version answered what), rather than leaving the ClusterQueues unread.
    #[tokio::test]
    async fn a_500_from_the_conversion_webhook_is_read_at_the_older_version() {
        let port = serve(true);
        let config = kube::Config::new(format!("http://127.0.0.1:{port}").parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        let snap = collect(&client).await.unwrap();
        let kinds: Vec<&str> = snap.unread.iter().map(|u| u.kind).collect();
        assert_eq!(kinds, [CONFIG_MAP]);
        let names: Vec<Option<&str>> = snap
            .cluster_queues
            .iter()
            .map(|c| c.metadata.name.as_deref())
            .collect();
        assert_eq!(names, [Some("cluster-queue")]);
        assert_eq!(
            snap.kueue_versions.get("ClusterQueue").map(String::as_str),
            Some("v1beta1")
        );
        // LocalQueues answered at v1beta2: read there.
        assert_eq!(
            snap.kueue_versions.get("LocalQueue").map(String::as_str),
            Some("v1beta2")
        );
        assert_eq!(snap.kueue_fallbacks.len(), 1);
        let fb = &snap.kueue_fallbacks[0];
        assert_eq!(
            (fb.kind, fb.refused.as_str(), fb.read_at.as_str()),
            (CLUSTER_QUEUE, "v1beta2", "v1beta1")
        );
        assert!(
            fb.why.starts_with("500 InternalError: conversion webhook"),
            "{}",
            fb.why
        );
    }
}
