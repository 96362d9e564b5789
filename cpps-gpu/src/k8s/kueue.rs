//! Kueue (`kueue.x-k8s.io/v1beta2`): ResourceFlavors, ClusterQueues, LocalQueues, Workloads, and
//! MultiKueueClusters (read through `v1beta1`, which Kueue still serves); submitting a batch Job to
//! a LocalQueue and following its Workload to admission. Kueue schedules; this module only
//! submits and watches.

use std::collections::BTreeMap;
use std::time::Duration;

use k8s_openapi::api::batch::v1::{Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Container, PodSpec, PodTemplateSpec, ResourceRequirements, Taint, Toleration,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta};
use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::api::{ListParams, PostParams};
use serde::{Deserialize, Serialize};

use super::custom::custom_resource;
use crate::error::Error;

/// The API group and version read here.
pub const API_VERSION: &str = "kueue.x-k8s.io/v1beta2";
/// The label that sends a Job to a LocalQueue.
pub const QUEUE_NAME_LABEL: &str = "kueue.x-k8s.io/queue-name";

/// A ResourceFlavor: a kind of node, by labels and taints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavor {
    /// `kueue.x-k8s.io/v1beta2`.
    pub api_version: String,
    /// `ResourceFlavor`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The flavor.
    #[serde(default)]
    pub spec: ResourceFlavorSpec,
}
custom_resource!(
    ResourceFlavor,
    "kueue.x-k8s.io",
    "v1beta2",
    "ResourceFlavor",
    "resourceflavors",
    ClusterResourceScope
);

/// `ResourceFlavor.spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceFlavorSpec {
    /// Labels the flavor's nodes carry.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_labels: BTreeMap<String, String>,
    /// Taints the flavor's nodes carry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node_taints: Vec<Taint>,
    /// Tolerations added to admitted pods.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    /// Topology for topology-aware scheduling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topology_name: Option<String>,
}

impl ResourceFlavor {
    /// A flavor with the given node labels.
    pub fn new(name: &str, node_labels: BTreeMap<String, String>) -> Self {
        Self {
            api_version: API_VERSION.to_owned(),
            kind: "ResourceFlavor".to_owned(),
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                ..ObjectMeta::default()
            },
            spec: ResourceFlavorSpec {
                node_labels,
                ..ResourceFlavorSpec::default()
            },
        }
    }
}

/// A ClusterQueue: quotas per flavor and resource.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueue {
    /// `kueue.x-k8s.io/v1beta2`.
    pub api_version: String,
    /// `ClusterQueue`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The queue.
    #[serde(default)]
    pub spec: ClusterQueueSpec,
    /// What Kueue observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ClusterQueueStatus>,
}
custom_resource!(
    ClusterQueue,
    "kueue.x-k8s.io",
    "v1beta2",
    "ClusterQueue",
    "clusterqueues",
    ClusterResourceScope
);

/// `ClusterQueue.spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueSpec {
    /// The cohort it borrows in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cohort_name: Option<String>,
    /// Namespaces allowed to submit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    /// Quotas.
    #[serde(default)]
    pub resource_groups: Vec<ResourceGroup>,
    /// `StrictFIFO` or `BestEffortFIFO`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queueing_strategy: Option<String>,
    /// `None`, `Hold` or `HoldAndDrain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

/// A group of resources with the flavors that provide them.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceGroup {
    /// The resources, e.g. `cpu`, `nvidia.com/gpu`.
    pub covered_resources: Vec<String>,
    /// The flavors, each with a quota per resource.
    pub flavors: Vec<FlavorQuotas>,
}

/// One flavor's quotas.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorQuotas {
    /// The ResourceFlavor's name.
    pub name: String,
    /// Quota per resource.
    pub resources: Vec<ResourceQuota>,
}

/// One resource's quota.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceQuota {
    /// The resource.
    pub name: String,
    /// The quota.
    pub nominal_quota: Quantity,
    /// How much more it may borrow.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Quantity>,
    /// How much it may lend.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Quantity>,
}

/// `ClusterQueue.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    /// Conditions (`Active`, …).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Workloads waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_workloads: Option<i32>,
    /// Workloads holding quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserving_workloads: Option<i32>,
    /// Workloads admitted and not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted_workloads: Option<i32>,
    /// Quota in use, by flavor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flavors_usage: Vec<FlavorUsage>,
    /// Quota reserved, by flavor.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flavors_reservation: Vec<FlavorUsage>,
}

/// Usage of one flavor.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlavorUsage {
    /// The flavor.
    pub name: String,
    /// Per resource.
    #[serde(default)]
    pub resources: Vec<ResourceUsage>,
}

/// Usage of one resource.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUsage {
    /// The resource.
    pub name: String,
    /// Used, including borrowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<Quantity>,
    /// Borrowed from the cohort.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub borrowed: Option<Quantity>,
}

/// A LocalQueue: where a namespace submits work.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueue {
    /// `kueue.x-k8s.io/v1beta2`.
    pub api_version: String,
    /// `LocalQueue`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The queue.
    pub spec: LocalQueueSpec,
    /// What Kueue observed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<LocalQueueStatus>,
}
custom_resource!(
    LocalQueue,
    "kueue.x-k8s.io",
    "v1beta2",
    "LocalQueue",
    "localqueues",
    NamespaceResourceScope
);

/// `LocalQueue.spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueSpec {
    /// The ClusterQueue behind it.
    pub cluster_queue: String,
    /// `None`, `Hold` or `HoldAndDrain`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

/// `LocalQueue.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalQueueStatus {
    /// Conditions (`Active`, …).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Workloads waiting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_workloads: Option<i32>,
    /// Workloads holding quota.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserving_workloads: Option<i32>,
    /// Workloads admitted and not finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted_workloads: Option<i32>,
}

impl LocalQueue {
    /// A LocalQueue in `namespace` backed by `cluster_queue`.
    pub fn new(namespace: &str, name: &str, cluster_queue: &str) -> Self {
        Self {
            api_version: API_VERSION.to_owned(),
            kind: "LocalQueue".to_owned(),
            metadata: ObjectMeta {
                name: Some(name.to_owned()),
                namespace: Some(namespace.to_owned()),
                ..ObjectMeta::default()
            },
            spec: LocalQueueSpec {
                cluster_queue: cluster_queue.to_owned(),
                stop_policy: None,
            },
            status: None,
        }
    }
}

/// A Workload: Kueue's unit of admission, created by Kueue for each queued Job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Workload {
    /// `kueue.x-k8s.io/v1beta2`.
    pub api_version: String,
    /// `Workload`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The workload.
    #[serde(default)]
    pub spec: WorkloadSpec,
    /// What Kueue decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<WorkloadStatus>,
}
custom_resource!(
    Workload,
    "kueue.x-k8s.io",
    "v1beta2",
    "Workload",
    "workloads",
    NamespaceResourceScope
);

/// `Workload.spec` (the fields read here; others are kept).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// The LocalQueue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_name: Option<String>,
    /// Pod sets.
    #[serde(default)]
    pub pod_sets: Vec<PodSet>,
    /// Priority.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Whether the workload may be admitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active: Option<bool>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// A set of identical pods.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSet {
    /// Name (`main` for a Job).
    pub name: String,
    /// Number of pods.
    pub count: i32,
    /// The pods.
    pub template: PodTemplateSpec,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `Workload.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// Conditions: `QuotaReserved`, `Admitted`, `Finished`, `Evicted`, `PodsReady`, …
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Where it was admitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `Workload.status.admission`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Admission {
    /// The ClusterQueue that admitted it.
    pub cluster_queue: String,
    /// Flavors and usage per pod set.
    #[serde(default)]
    pub pod_set_assignments: Vec<PodSetAssignment>,
}

/// Flavors and usage of one pod set.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSetAssignment {
    /// The pod set.
    pub name: String,
    /// Flavor per resource.
    #[serde(default)]
    pub flavors: BTreeMap<String, String>,
    /// Usage per resource.
    #[serde(default)]
    pub resource_usage: BTreeMap<String, Quantity>,
    /// Pods.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}

/// Where a Workload stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WorkloadState {
    /// Waiting for quota.
    Pending,
    /// Quota reserved in a ClusterQueue, admission checks pending.
    QuotaReserved {
        /// The ClusterQueue.
        cluster_queue: String,
    },
    /// Admitted: its pods may run.
    Admitted {
        /// The ClusterQueue.
        cluster_queue: String,
    },
    /// Evicted (preempted, stopped queue, …).
    Evicted {
        /// Kueue's reason.
        reason: String,
    },
    /// Finished.
    Finished {
        /// Kueue's reason (`Succeeded`, `Failed`).
        reason: String,
    },
}

fn condition_true<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions
        .iter()
        .find(|c| c.type_ == type_ && c.status == "True")
}

impl Workload {
    /// Where it stands, from its conditions (the latest stage wins).
    pub fn state(&self) -> WorkloadState {
        let Some(status) = &self.status else {
            return WorkloadState::Pending;
        };
        let cq = || {
            status
                .admission
                .as_ref()
                .map(|a| a.cluster_queue.clone())
                .unwrap_or_default()
        };
        let c = &status.conditions;
        if let Some(f) = condition_true(c, "Finished") {
            WorkloadState::Finished {
                reason: f.reason.clone(),
            }
        } else if let Some(e) = condition_true(c, "Evicted") {
            WorkloadState::Evicted {
                reason: e.reason.clone(),
            }
        } else if condition_true(c, "Admitted").is_some() {
            WorkloadState::Admitted {
                cluster_queue: cq(),
            }
        } else if condition_true(c, "QuotaReserved").is_some() {
            WorkloadState::QuotaReserved {
                cluster_queue: cq(),
            }
        } else {
            WorkloadState::Pending
        }
    }

    /// Whether the Workload belongs to the object with this UID (its owner reference).
    pub fn is_owned_by(&self, uid: &str) -> bool {
        self.metadata
            .owner_references
            .iter()
            .flatten()
            .any(|o| o.uid == uid)
    }
}

/// A MultiKueue worker cluster (`kueue.x-k8s.io/v1beta1`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiKueueCluster {
    /// `kueue.x-k8s.io/v1beta1`.
    pub api_version: String,
    /// `MultiKueueCluster`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// How to reach it.
    #[serde(default)]
    pub spec: serde_json::Value,
    /// Whether it is connected (`Active` condition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<MultiKueueClusterStatus>,
}
custom_resource!(
    MultiKueueCluster,
    "kueue.x-k8s.io",
    "v1beta1",
    "MultiKueueCluster",
    "multikueueclusters",
    ClusterResourceScope
);

/// `MultiKueueCluster.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiKueueClusterStatus {
    /// Conditions (`Active`).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

impl MultiKueueCluster {
    /// Whether the `Active` condition is `True`.
    pub fn is_active(&self) -> bool {
        self.status
            .as_ref()
            .is_some_and(|s| condition_true(&s.conditions, "Active").is_some())
    }
}

/// A batch Job to send to a LocalQueue.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobSubmission {
    /// Namespace (the LocalQueue's).
    pub namespace: String,
    /// Job name.
    pub name: String,
    /// The LocalQueue.
    pub queue: String,
    /// Container image.
    pub image: String,
    /// Command.
    pub command: Vec<String>,
    /// `nvidia.com/gpu` per pod (0 for none).
    pub gpus: u32,
    /// Parallel pods.
    pub parallelism: i32,
}

impl JobSubmission {
    /// A one-pod Job running `command` in `image`, asking for `gpus` GPUs, for `queue`.
    pub fn new(
        namespace: &str,
        name: &str,
        queue: &str,
        image: &str,
        command: &[&str],
        gpus: u32,
    ) -> Self {
        Self {
            namespace: namespace.to_owned(),
            name: name.to_owned(),
            queue: queue.to_owned(),
            image: image.to_owned(),
            command: command.iter().map(|s| (*s).to_owned()).collect(),
            gpus,
            parallelism: 1,
        }
    }

    /// The Job that would be created: the plan. Created suspended, as Kueue requires: Kueue
    /// unsuspends it on admission.
    pub fn job(&self) -> Job {
        let mut limits = BTreeMap::new();
        if self.gpus > 0 {
            limits.insert("nvidia.com/gpu".to_owned(), Quantity(self.gpus.to_string()));
        }
        Job {
            metadata: ObjectMeta {
                name: Some(self.name.clone()),
                namespace: Some(self.namespace.clone()),
                labels: Some(BTreeMap::from([(
                    QUEUE_NAME_LABEL.to_owned(),
                    self.queue.clone(),
                )])),
                ..ObjectMeta::default()
            },
            spec: Some(JobSpec {
                suspend: Some(true),
                parallelism: Some(self.parallelism),
                completions: Some(self.parallelism),
                backoff_limit: Some(0),
                template: PodTemplateSpec {
                    metadata: None,
                    spec: Some(PodSpec {
                        restart_policy: Some("Never".to_owned()),
                        containers: vec![Container {
                            name: "main".to_owned(),
                            image: Some(self.image.clone()),
                            command: Some(self.command.clone()),
                            resources: Some(ResourceRequirements {
                                limits: (!limits.is_empty()).then(|| limits.clone()),
                                requests: (!limits.is_empty()).then_some(limits),
                                ..ResourceRequirements::default()
                            }),
                            ..Container::default()
                        }],
                        ..PodSpec::default()
                    }),
                },
                ..JobSpec::default()
            }),
            status: None,
        }
    }

    /// Creates the Job (`POST /apis/batch/v1/namespaces/{ns}/jobs`); with `dry_run` the server
    /// validates and answers without storing anything.
    ///
    /// # Errors
    /// [`Error::Kube`] when the server refuses it.
    pub async fn submit(&self, client: &kube::Client, dry_run: bool) -> Result<Job, Error> {
        let api: kube::Api<Job> = kube::Api::namespaced(client.clone(), &self.namespace);
        let pp = PostParams {
            dry_run,
            ..PostParams::default()
        };
        api.create(&pp, &self.job()).await.map_err(|source| {
            Error::kube(
                "POST",
                format!("/apis/batch/v1/namespaces/{}/jobs", self.namespace),
                source,
            )
        })
    }
}

/// Follows the Workload Kueue creates for the Job with `job_uid` until it is admitted, evicted
/// or finished, polling `GET /apis/kueue.x-k8s.io/v1beta2/namespaces/{ns}/workloads` every
/// `interval`; returns the Workload and the states it went through.
///
/// # Errors
/// [`Error::Timeout`] when nothing decisive happens within `timeout`; [`Error::Kube`] on API errors.
pub async fn follow_workload(
    client: &kube::Client,
    namespace: &str,
    job_uid: &str,
    timeout: Duration,
    interval: Duration,
) -> Result<(Workload, Vec<WorkloadState>), Error> {
    let api: kube::Api<Workload> = kube::Api::namespaced(client.clone(), namespace);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut seen: Vec<WorkloadState> = Vec::new();
    loop {
        let list = api.list(&ListParams::default()).await.map_err(|source| {
            Error::kube(
                "GET",
                format!("/apis/kueue.x-k8s.io/v1beta2/namespaces/{namespace}/workloads"),
                source,
            )
        })?;
        if let Some(wl) = list.items.into_iter().find(|w| w.is_owned_by(job_uid)) {
            let state = wl.state();
            if seen.last() != Some(&state) {
                seen.push(state.clone());
            }
            if matches!(
                state,
                WorkloadState::Admitted { .. }
                    | WorkloadState::Evicted { .. }
                    | WorkloadState::Finished { .. }
            ) {
                return Ok((wl, seen));
            }
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(Error::Timeout {
                what: format!("the Workload of Job uid {job_uid} in {namespace} to be admitted"),
            });
        }
        tokio::time::sleep(interval).await;
    }
}
