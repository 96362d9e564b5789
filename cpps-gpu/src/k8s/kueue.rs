//! Kueue (`kueue.x-k8s.io`): ResourceFlavors, ClusterQueues, LocalQueues, Workloads,
//! AdmissionChecks, MultiKueueConfigs and MultiKueueClusters; submitting a batch Job to a
//! LocalQueue and following its Workload to admission and completion. Kueue schedules; this
//! module only submits and watches.
//!
//! Versions: Kueue serves `v1beta2` (storage) and the deprecated `v1beta1`; older Kueue serves
//! `v1beta1` only, and a cluster may be in between (one resource at `v1beta1` only). The reads ask
//! the server which versions it serves ([`served_versions`]) and read each resource at the newest
//! one served, recording which; when that list answers 500 because Kueue's conversion webhook
//! is down, an older version served is read instead (on Kueue 0.15, v1beta1, the storage
//! version, needs no conversion) and the fallback is reported ([`Fallback`]). The types here
//! decode both: where the versions differ in a field
//! read here, both spellings are accepted (`apis/kueue/v1beta1/clusterqueue_conversion.go`:
//! `spec.cohort` became `cohortName`; `spec.admissionChecks` was folded into
//! `admissionChecksStrategy` in `apis/kueue/v1beta2/clusterqueue_types.go`).

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

use super::custom::{custom_resource, new_object};
use crate::error::Error;

/// Kueue's API group.
pub const GROUP: &str = "kueue.x-k8s.io";
/// The versions read, newest first.
pub const VERSIONS: [&str; 2] = ["v1beta2", "v1beta1"];
/// The controller name of MultiKueue's AdmissionCheck (`MultiKueueControllerName` in
/// `apis/kueue/v1beta1/multikueue_types.go` and `v1beta2`).
pub const MULTIKUEUE_CONTROLLER: &str = "kueue.x-k8s.io/multikueue";
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology_name: Option<String>,
}

impl ResourceFlavor {
    /// A flavor with the given node labels.
    pub fn new(name: &str, node_labels: BTreeMap<String, String>) -> Self {
        new_object!(
            None,
            name,
            Self {
                spec: ResourceFlavorSpec {
                    node_labels,
                    ..ResourceFlavorSpec::default()
                },
            }
        )
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
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// The cohort it borrows in (`cohort` in `v1beta1`).
    #[serde(alias = "cohort", skip_serializing_if = "Option::is_none")]
    pub cohort_name: Option<String>,
    /// `v1beta1` only: the AdmissionChecks every Workload needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub admission_checks: Vec<String>,
    /// The AdmissionChecks, with the flavors each applies to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission_checks_strategy: Option<AdmissionChecksStrategy>,
    /// Namespaces allowed to submit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    /// Quotas.
    #[serde(default)]
    pub resource_groups: Vec<ResourceGroup>,
    /// `StrictFIFO` or `BestEffortFIFO`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queueing_strategy: Option<String>,
    /// `None`, `Hold` or `HoldAndDrain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

/// `ClusterQueue.spec.admissionChecksStrategy`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionChecksStrategy {
    /// The checks.
    #[serde(default)]
    pub admission_checks: Vec<AdmissionCheckStrategyRule>,
}

/// One AdmissionCheck of a ClusterQueue.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStrategyRule {
    /// The AdmissionCheck's name.
    pub name: String,
    /// The flavors it applies to (all when empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on_flavors: Vec<String>,
}

impl ClusterQueueSpec {
    /// The names of every AdmissionCheck of the queue, in either version's field.
    pub fn admission_check_names(&self) -> impl Iterator<Item = &str> {
        self.admission_checks.iter().map(String::as_str).chain(
            self.admission_checks_strategy
                .iter()
                .flat_map(|s| s.admission_checks.iter().map(|r| r.name.as_str())),
        )
    }
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub borrowing_limit: Option<Quantity>,
    /// How much it may lend.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lending_limit: Option<Quantity>,
}

/// What both kinds of queue report in their `status`: the conditions and the Workload counts
/// (`ClusterQueueStatus` and `LocalQueueStatus` in kubernetes-sigs/kueue
/// `apis/kueue/v1beta2/clusterqueue_types.go` and `localqueue_types.go` share these fields, with
/// the same JSON names as in `apis/kueue/v1beta1/clusterqueue_types.go` and `localqueue_types.go`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueueStatus {
    /// Conditions (`Active`, …).
    #[serde(default)]
    pub conditions: Vec<Condition>,
    /// Workloads waiting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pending_workloads: Option<i32>,
    /// Workloads holding quota.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserving_workloads: Option<i32>,
    /// Workloads admitted and not finished.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admitted_workloads: Option<i32>,
}

/// `ClusterQueue.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterQueueStatus {
    /// The conditions and Workload counts every queue reports.
    #[serde(flatten)]
    pub queue: QueueStatus,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<Quantity>,
    /// Borrowed from the cohort.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    /// The queue; `+optional` in `localqueue_types.go`, so an absent one is the empty spec.
    #[serde(default)]
    pub spec: LocalQueueSpec,
    /// What Kueue observed (its conditions and Workload counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<QueueStatus>,
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
    /// The ClusterQueue behind it; optional (`+optional`, `omitempty` in
    /// `apis/kueue/v1beta2/localqueue_types.go`), and without one the queue admits nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_queue: Option<String>,
    /// `None`, `Hold` or `HoldAndDrain`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_policy: Option<String>,
}

impl LocalQueue {
    /// A LocalQueue in `namespace` backed by `cluster_queue`.
    pub fn new(namespace: &str, name: &str, cluster_queue: &str) -> Self {
        new_object!(
            Some(namespace),
            name,
            Self {
                spec: LocalQueueSpec {
                    cluster_queue: Some(cluster_queue.to_owned()),
                    stop_policy: None,
                },
                status: None,
            }
        )
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
    #[serde(skip_serializing_if = "Option::is_none")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_name: Option<String>,
    /// Pod sets.
    #[serde(default)]
    pub pod_sets: Vec<PodSet>,
    /// Priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// Whether the workload may be admitted.
    #[serde(skip_serializing_if = "Option::is_none")]
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    /// MultiKueue: the worker cluster it was dispatched to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_name: Option<String>,
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
    #[serde(skip_serializing_if = "Option::is_none")]
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

    /// Why Kueue has not admitted it: the reason and message of a `QuotaReserved` condition
    /// that is `False` (kueue `pkg/workload/workload.go` `UnsetQuotaReservationWithCondition`,
    /// with reasons such as `Inadmissible` (`apis/kueue/v1beta2/workload_types.go`
    /// `WorkloadInadmissible`) and `Pending`). `None` once quota is reserved, or when Kueue has
    /// not said.
    pub fn not_admitted_because(&self) -> Option<String> {
        if !matches!(self.state(), WorkloadState::Pending) {
            return None;
        }
        self.status
            .iter()
            .flat_map(|s| s.conditions.iter())
            .find(|c| c.type_ == "QuotaReserved" && c.status == "False")
            .map(|c| format!("{}: {}", c.reason, c.message))
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

/// An AdmissionCheck: a controller that must approve Workloads of the ClusterQueues using it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheck {
    /// `kueue.x-k8s.io/v1beta2` or `v1beta1`.
    pub api_version: String,
    /// `AdmissionCheck`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The check.
    pub spec: AdmissionCheckSpec,
    /// Whether its controller is active.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<AdmissionCheckStatus>,
}
custom_resource!(
    AdmissionCheck,
    "kueue.x-k8s.io",
    "v1beta1",
    "AdmissionCheck",
    "admissionchecks",
    ClusterResourceScope
);

/// `AdmissionCheck.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckStatus {
    /// Conditions (`Active`, set by the check's controller).
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// `AdmissionCheck.spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdmissionCheckSpec {
    /// The controller, e.g. `kueue.x-k8s.io/multikueue`.
    pub controller_name: String,
    /// Its parameters object.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parameters: Option<ParametersReference>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `AdmissionCheck.spec.parameters`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParametersReference {
    /// API group of the parameters object.
    pub api_group: String,
    /// Its kind (`MultiKueueConfig` for MultiKueue).
    pub kind: String,
    /// Its name.
    pub name: String,
}

impl AdmissionCheck {
    /// A MultiKueue AdmissionCheck whose parameters are the MultiKueueConfig `config`.
    pub fn multikueue(name: &str, config: &str) -> Self {
        new_object!(
            None,
            name,
            Self {
                spec: AdmissionCheckSpec {
                    controller_name: MULTIKUEUE_CONTROLLER.to_owned(),
                    parameters: Some(ParametersReference {
                        api_group: GROUP.to_owned(),
                        kind: "MultiKueueConfig".to_owned(),
                        name: config.to_owned(),
                    }),
                    other: serde_json::Map::new(),
                },
                status: None,
            }
        )
    }

    /// Whether MultiKueue's controller handles it.
    pub fn is_multikueue(&self) -> bool {
        self.spec.controller_name == MULTIKUEUE_CONTROLLER
    }

    /// The MultiKueueConfig it names, when its parameters are one.
    pub fn multikueue_config(&self) -> Option<&str> {
        self.spec
            .parameters
            .as_ref()
            .filter(|p| p.api_group == GROUP && p.kind == "MultiKueueConfig")
            .map(|p| p.name.as_str())
    }
}

/// A MultiKueueConfig: the worker clusters a MultiKueue AdmissionCheck dispatches to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiKueueConfig {
    /// `kueue.x-k8s.io/v1beta2` or `v1beta1`.
    pub api_version: String,
    /// `MultiKueueConfig`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// The clusters.
    pub spec: MultiKueueConfigSpec,
}
custom_resource!(
    MultiKueueConfig,
    "kueue.x-k8s.io",
    "v1beta1",
    "MultiKueueConfig",
    "multikueueconfigs",
    ClusterResourceScope
);

/// `MultiKueueConfig.spec`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiKueueConfigSpec {
    /// Names of MultiKueueCluster objects.
    #[serde(default)]
    pub clusters: Vec<String>,
}

impl MultiKueueConfig {
    /// A MultiKueueConfig over `clusters`.
    pub fn new(name: &str, clusters: &[&str]) -> Self {
        new_object!(
            None,
            name,
            Self {
                spec: MultiKueueConfigSpec {
                    clusters: clusters.iter().map(|c| (*c).to_owned()).collect(),
                },
            }
        )
    }
}

/// A MultiKueue worker cluster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MultiKueueCluster {
    /// `kueue.x-k8s.io/v1beta2` or `v1beta1`.
    pub api_version: String,
    /// `MultiKueueCluster`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// How to reach it.
    #[serde(default)]
    pub spec: serde_json::Value,
    /// Whether it is connected (`Active` condition).
    #[serde(skip_serializing_if = "Option::is_none")]
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

    /// The Secret (in Kueue's namespace) holding its kubeconfig: `spec.clusterSource.kubeConfig`
    /// (v1beta2) or `spec.kubeConfig` (v1beta1), when `locationType` is `Secret` (the default);
    /// `None` for a `Path` or a ClusterProfile (kueue `apis/kueue/v1beta2/multikueue_types.go`).
    pub fn kubeconfig_secret(&self) -> Option<&str> {
        let kc = self
            .spec
            .pointer("/clusterSource/kubeConfig")
            .or_else(|| self.spec.get("kubeConfig"))?;
        match kc.get("locationType").and_then(|t| t.as_str()) {
            None | Some("Secret") => kc.get("location")?.as_str(),
            Some(_) => None,
        }
    }

    /// The `Active` condition's reason and message when it is not `True`.
    pub fn inactive_because(&self) -> Option<String> {
        if self.is_active() {
            return None;
        }
        Some(
            self.status
                .iter()
                .flat_map(|s| s.conditions.iter())
                .find(|c| c.type_ == "Active")
                .map_or_else(
                    || "no Active condition".to_owned(),
                    |c| format!("{}: {}", c.reason, c.message),
                ),
        )
    }
}

/// Which version of each Kueue resource the server serves (the newest of [`VERSIONS`]), and
/// the older ones it also serves.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ServedVersions {
    /// Version by resource plural, e.g. `clusterqueues` → `v1beta2`.
    pub by_plural: BTreeMap<String, String>,
    /// Older versions also served, newest first, by plural (`clusterqueues` → `[v1beta1]`):
    /// where the newest answers 500 because Kueue's conversion webhook is down.
    pub older: BTreeMap<String, Vec<String>>,
}

impl ServedVersions {
    /// The version `plural` is served at, if any.
    pub fn of(&self, plural: &str) -> Option<&str> {
        self.by_plural.get(plural).map(String::as_str)
    }

    /// The older versions `plural` is also served at, newest first.
    pub fn older_of(&self, plural: &str) -> &[String] {
        self.older.get(plural).map_or(&[], Vec::as_slice)
    }
}

/// Asks the server which Kueue versions it serves: `GET /apis/kueue.x-k8s.io/{version}` for each
/// of [`VERSIONS`] (404 when a version is not served).
///
/// # Errors
/// [`Error::Kube`] when discovery fails otherwise.
pub async fn served_versions(client: &kube::Client) -> Result<ServedVersions, Error> {
    let mut served = ServedVersions::default();
    for version in VERSIONS {
        let group_version = format!("{GROUP}/{version}");
        match client.list_api_group_resources(&group_version).await {
            Ok(list) => {
                for r in list.resources.iter().filter(|r| !r.name.contains('/')) {
                    if served.by_plural.contains_key(&r.name) {
                        let older = served.older.entry(r.name.clone()).or_default();
                        older.push(version.to_owned());
                    } else {
                        served.by_plural.insert(r.name.clone(), version.to_owned());
                    }
                }
            }
            Err(kube::Error::Api(s)) if s.code == 404 => {}
            Err(source) => {
                return Err(Error::kube("GET", format!("/apis/{group_version}"), source));
            }
        }
    }
    Ok(served)
}

/// A Kueue object the list returned that does not decode into this crate's type: a finding about
/// that one object, while the rest of the list is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Undecodable {
    /// `Kind namespace/name` (or `Kind name` for a cluster-scoped kind).
    pub object: String,
    /// The decoding error, with the field it stopped at.
    pub reason: String,
}

/// The items of one list: those that decode, and those that do not.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<K> {
    /// The objects that decode.
    pub items: Vec<K>,
    /// The objects that do not.
    pub undecodable: Vec<Undecodable>,
    /// Set when the newest version failed with a 500 and the list was read at an older one.
    pub fallback: Option<Fallback>,
}

/// A Kueue list read at an older version because the newest answered 500: Kueue's CRDs
/// convert through Kueue's own webhook (kueue `config/components/crd/kustomization.yaml`,
/// `patches/webhook_in_*.yaml`), and apiextensions-apiserver fails the whole list when that
/// webhook does not answer (`pkg/apiserver/conversion/webhook_converter.go` `Convert`). Objects
/// stored at the older version are read there with no conversion (`getObjectsToConvert` sends
/// only those not already at the version asked for); on Kueue 0.15 that is v1beta1, its storage
/// version (`config/components/crd/bases/*.yaml`, `storage: true`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fallback {
    /// The version that answered 500 (`v1beta2`).
    pub refused: String,
    /// The version the list was read at (`v1beta1`).
    pub read_at: String,
    /// What the server said at `refused`: status, reason and message.
    pub why: String,
}

/// Decodes the list's items one by one, so that one odd object is a finding about that object and
/// not a failed list.
pub(crate) fn decode_items<K>(kind: &str, items: Vec<kube::api::DynamicObject>) -> Listed<K>
where
    K: serde::de::DeserializeOwned,
{
    let mut listed = Listed {
        items: Vec::with_capacity(items.len()),
        undecodable: Vec::new(),
        fallback: None,
    };
    for o in items {
        let object = format!(
            "{kind} {}{}",
            o.metadata
                .namespace
                .as_deref()
                .map(|n| format!("{n}/"))
                .unwrap_or_default(),
            o.metadata.name.as_deref().unwrap_or("")
        );
        let decoded = serde_json::to_value(&o).and_then(serde_json::from_value::<K>);
        match decoded {
            Ok(k) => listed.items.push(k),
            Err(e) => listed.undecodable.push(Undecodable {
                object,
                reason: e.to_string(),
            }),
        }
    }
    listed
}

/// Lists a Kueue resource at the version the server serves it at (`GET
/// /apis/kueue.x-k8s.io/{version}/{plural}`, all namespaces), decoding each item on its own;
/// `None` when it is not served. When that version answers 500 (Kueue's conversion webhook
/// down), the older versions served are tried in turn, and the one read is named in
/// [`Listed::fallback`].
pub(crate) async fn list_served<K>(
    client: &kube::Client,
    served: &ServedVersions,
    namespace: Option<&str>,
    kind: &str,
    plural: &str,
) -> Result<Option<Listed<K>>, Error>
where
    K: serde::de::DeserializeOwned,
{
    let Some(version) = served.of(plural) else {
        return Ok(None);
    };
    let first = list_at(client, namespace, kind, plural, version).await;
    let (path, status) = match first {
        Err((path, kube::Error::Api(s))) if s.code == 500 => (path, s),
        Err((path, source)) => return Err(Error::kube("GET", path, source)),
        Ok(listed) => return Ok(listed),
    };
    for older in served.older_of(plural) {
        if let Ok(Some(mut listed)) = list_at::<K>(client, namespace, kind, plural, older).await {
            listed.fallback = Some(Fallback {
                refused: version.to_owned(),
                read_at: older.clone(),
                why: format!("{} {}: {}", status.code, status.reason, status.message),
            });
            return Ok(Some(listed));
        }
    }
    Err(Error::kube("GET", path, kube::Error::Api(status)))
}

/// One list at `version`; the path with the error.
async fn list_at<K>(
    client: &kube::Client,
    namespace: Option<&str>,
    kind: &str,
    plural: &str,
    version: &str,
) -> Result<Option<Listed<K>>, (String, kube::Error)>
where
    K: serde::de::DeserializeOwned,
{
    let resource = kube::discovery::ApiResource {
        group: GROUP.to_owned(),
        version: version.to_owned(),
        api_version: format!("{GROUP}/{version}"),
        kind: kind.to_owned(),
        plural: plural.to_owned(),
    };
    let (path, api) = match namespace {
        Some(ns) => (
            format!("/apis/{GROUP}/{version}/namespaces/{ns}/{plural}"),
            kube::Api::<kube::api::DynamicObject>::namespaced_with(client.clone(), ns, &resource),
        ),
        None => (
            format!("/apis/{GROUP}/{version}/{plural}"),
            kube::Api::<kube::api::DynamicObject>::all_with(client.clone(), &resource),
        ),
    };
    match api.list(&ListParams::default()).await {
        Ok(list) => Ok(Some(decode_items(kind, list.items))),
        Err(kube::Error::Api(s)) if s.code == 404 => Ok(None),
        Err(source) => Err((path, source)),
    }
}

/// A batch Job to send to a LocalQueue.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct JobSubmission {
    /// Namespace (the LocalQueue's).
    pub namespace: String,
    /// The Job's name prefix: the server completes `{name}-` into a unique name
    /// (`generateName`), so that submitting again never collides with an earlier Job.
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
    /// Seconds after it finishes that the Job (and so its pods and Workload) may be deleted
    /// (`ttlSecondsAfterFinished`); `None` keeps it.
    pub ttl_seconds_after_finished: Option<i32>,
}

/// How long a finished Job is kept by default: an hour, long enough to read its logs.
pub const DEFAULT_TTL_SECONDS_AFTER_FINISHED: i32 = 3600;

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
            ttl_seconds_after_finished: Some(DEFAULT_TTL_SECONDS_AFTER_FINISHED),
        }
    }

    /// The Job that would be created: the plan. Created suspended, as Kueue requires: Kueue
    /// unsuspends it on admission. Named by the server from `generateName` (a fixed name made
    /// the second submission a 409 AlreadyExists), and deleted `ttlSecondsAfterFinished` after it
    /// finishes.
    pub fn job(&self) -> Job {
        let mut limits = BTreeMap::new();
        if self.gpus > 0 {
            limits.insert("nvidia.com/gpu".to_owned(), Quantity(self.gpus.to_string()));
        }
        Job {
            metadata: ObjectMeta {
                generate_name: Some(format!("{}-", self.name)),
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
                ttl_seconds_after_finished: self.ttl_seconds_after_finished,
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

/// How far [`follow_workload`] follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Until {
    /// Until the Workload is admitted (or evicted, or finished).
    Admitted,
    /// Until the Workload is finished.
    Finished,
}

/// What following a Workload showed, complete or cut short by the timeout.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Followed {
    /// The Workload as last read, once Kueue has created it.
    pub workload: Option<Workload>,
    /// The states it went through, in order, without repeats.
    pub states: Vec<WorkloadState>,
    /// The timeout ended the wait before the Workload got there.
    pub timed_out: bool,
}

/// Follows the Workload Kueue creates for the Job with `job_uid` (its owner reference) until
/// `until`, polling `GET /apis/kueue.x-k8s.io/{version}/namespaces/{ns}/workloads` every
/// `interval`, at the version the server serves. Ends at `timeout` with what it saw
/// ([`Followed::timed_out`]): partial results are results.
///
/// # Errors
/// [`Error::Kube`] on API errors; [`Error::Invalid`] when Workloads are not served.
pub async fn follow_workload(
    client: &kube::Client,
    namespace: &str,
    job_uid: &str,
    until: Until,
    timeout: Duration,
    interval: Duration,
) -> Result<Followed, Error> {
    let deadline = tokio::time::Instant::now() + timeout;
    let served = served_versions(client).await?;
    let mut followed = Followed {
        workload: None,
        states: Vec::new(),
        timed_out: false,
    };
    loop {
        let Some(list) =
            list_served::<Workload>(client, &served, Some(namespace), "Workload", "workloads")
                .await?
        else {
            return Err(Error::Invalid {
                field: format!("/apis/{GROUP}"),
                reason: "the server serves no Kueue Workloads (is Kueue installed?)".to_owned(),
            });
        };
        if let Some(wl) = list.items.into_iter().find(|w| w.is_owned_by(job_uid)) {
            let state = wl.state();
            if followed.states.last() != Some(&state) {
                followed.states.push(state.clone());
            }
            followed.workload = Some(wl);
            let done = matches!(
                (until, &state),
                (_, WorkloadState::Finished { .. })
                    | (
                        Until::Admitted,
                        WorkloadState::Admitted { .. } | WorkloadState::Evicted { .. }
                    )
            );
            if done {
                return Ok(followed);
            }
        }
        let now = tokio::time::Instant::now();
        if now >= deadline {
            followed.timed_out = true;
            return Ok(followed);
        }
        tokio::time::sleep(interval.min(deadline - now)).await;
    }
}

/// Where a Workload was admitted and where its pods ran.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Placement {
    /// The ClusterQueue that admitted it.
    pub cluster_queue: Option<String>,
    /// The flavor of each resource, per pod set (`main/nvidia.com/gpu` → `a5000`).
    pub flavors: BTreeMap<String, String>,
    /// MultiKueue: the worker cluster it was dispatched to (`status.clusterName`).
    pub worker_cluster: Option<String>,
    /// The nodes its pods were bound to (`spec.nodeName` of the Job's pods), sorted.
    pub nodes: Vec<String>,
}

impl Placement {
    /// The placement from the Workload and the Job's pods.
    pub fn of(workload: &Workload, pods: &[k8s_openapi::api::core::v1::Pod]) -> Self {
        let status = workload.status.as_ref();
        let admission = status.and_then(|s| s.admission.as_ref());
        let mut nodes: Vec<String> = pods
            .iter()
            .filter_map(|p| p.spec.as_ref().and_then(|s| s.node_name.clone()))
            .collect();
        nodes.sort();
        nodes.dedup();
        Self {
            cluster_queue: admission.map(|a| a.cluster_queue.clone()),
            flavors: admission
                .iter()
                .flat_map(|a| a.pod_set_assignments.iter())
                .flat_map(|ps| {
                    ps.flavors
                        .iter()
                        .map(move |(r, f)| (format!("{}/{r}", ps.name), f.clone()))
                })
                .collect(),
            worker_cluster: status.and_then(|s| s.cluster_name.clone()),
            nodes,
        }
    }
}

/// A batch Job submitted for real and followed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BatchRun {
    /// `namespace/name` of the Job.
    pub job: String,
    /// Its UID.
    pub uid: String,
    /// What its Workload went through.
    pub followed: Followed,
    /// Where it was admitted and ran, once admitted.
    pub placement: Option<Placement>,
}

impl BatchRun {
    /// Whether the Workload finished with reason `Succeeded`.
    pub fn succeeded(&self) -> bool {
        matches!(
            self.followed.states.last(),
            Some(WorkloadState::Finished { reason }) if reason == "Succeeded"
        )
    }
}

/// The label the Job controller puts on a Job's pods (`batch.kubernetes.io/job-name` since
/// Kubernetes 1.27; `job-name` before, and still set).
const JOB_NAME_LABEL: &str = "job-name";

/// Submits `submission` for real (`POST …/jobs`), follows its Workload until it finishes or
/// `timeout` passes (see [`follow_workload`]), then reads the Job's pods (`GET
/// /api/v1/namespaces/{ns}/pods?labelSelector=job-name={name}`) for where it ran.
///
/// # Errors
/// [`Error::Kube`] when the Job is refused or a read fails.
pub async fn run_batch(
    client: &kube::Client,
    submission: &JobSubmission,
    timeout: Duration,
    interval: Duration,
) -> Result<BatchRun, Error> {
    let started = tokio::time::Instant::now();
    let job = submission.submit(client, false).await?;
    let left = timeout.saturating_sub(started.elapsed());
    follow_batch(client, submission, &job, left, interval).await
}

/// The second half of [`run_batch`], for a `job` already created from `submission`: follows its
/// Workload for at most `timeout`, then reads where it ran. A caller that keeps `job` can still
/// name the Job it created when this fails.
///
/// # Errors
/// [`Error::Kube`] when a read fails.
pub async fn follow_batch(
    client: &kube::Client,
    submission: &JobSubmission,
    job: &Job,
    timeout: Duration,
    interval: Duration,
) -> Result<BatchRun, Error> {
    let started = tokio::time::Instant::now();
    let uid = job.metadata.uid.clone().unwrap_or_default();
    // The name the server generated: the Job's pods carry it in their `job-name` label.
    let name = job.metadata.name.clone().unwrap_or_default();
    let left = timeout.saturating_sub(started.elapsed());
    let followed = follow_workload(
        client,
        &submission.namespace,
        &uid,
        Until::Finished,
        left,
        interval,
    )
    .await?;
    let admitted = followed.states.iter().any(|s| {
        matches!(
            s,
            WorkloadState::Admitted { .. } | WorkloadState::Finished { .. }
        )
    });
    let placement = match (&followed.workload, admitted) {
        (Some(wl), true) => {
            let pods: kube::Api<k8s_openapi::api::core::v1::Pod> =
                kube::Api::namespaced(client.clone(), &submission.namespace);
            let lp = ListParams::default().labels(&format!("{JOB_NAME_LABEL}={name}"));
            let pods = pods.list(&lp).await.map_err(|source| {
                Error::kube(
                    "GET",
                    format!("/api/v1/namespaces/{}/pods", submission.namespace),
                    source,
                )
            })?;
            Some(Placement::of(wl, &pods.items))
        }
        _ => None,
    };
    Ok(BatchRun {
        job: format!("{}/{name}", submission.namespace),
        uid,
        followed,
        placement,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Suspected item of issue 34, confirmed: a fixed Job name makes a second submission a 409
    /// (AlreadyExists). `ObjectMeta.generateName` (k8s.io/apimachinery `meta/v1/types.go`): "a
    /// unique name ONLY IF the Name field has not been provided"; `JobSpec.ttlSecondsAfterFinished`
    /// (k8s.io/api `batch/v1/types.go`): once finished, the Job "is eligible to be automatically
    /// deleted", so repeated submissions do not pile up.
    #[test]
    fn each_submission_gets_a_name_of_its_own_and_a_ttl() {
        let job = JobSubmission::new("ml", "smoke", "team-a", "busybox", &["true"], 0).job();
        assert_eq!(job.metadata.name, None);
        assert_eq!(job.metadata.generate_name.as_deref(), Some("smoke-"));
        assert_eq!(
            job.spec.as_ref().unwrap().ttl_seconds_after_finished,
            Some(3600)
        );
    }

    /// Issue 34 D3. kubernetes-sigs/kueue `apis/kueue/v1beta2/localqueue_types.go`: `ClusterQueue
    /// ClusterQueueReference json:"clusterQueue,omitempty"` with `+optional` (and `omitempty` in
    /// `apis/kueue/v1beta1/localqueue_types.go`; `clusterQueue` is not in the CRD's `required`
    /// list, `config/components/crd/bases/kueue.x-k8s.io_localqueues.yaml`). The server answers
    /// such a LocalQueue without the field.
    #[test]
    fn a_local_queue_without_cluster_queue_decodes() {
        let v = serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
            "metadata": {"name": "team-b", "namespace": "ml"},
            "spec": {}
        });
        let lq: LocalQueue = serde_json::from_value(v).expect("clusterQueue is optional");
        let back = serde_json::to_value(&lq).unwrap();
        assert_eq!(back["spec"].get("clusterQueue"), None);
        assert_eq!(lq.metadata.name.as_deref(), Some("team-b"));
        assert_eq!(lq.spec.cluster_queue, None);
    }

    /// Audit 34 N5: `LocalQueue.Spec` is `+optional` (kubernetes-sigs/kueue
    /// `apis/kueue/v1beta2/localqueue_types.go`): a queue without `spec` is one without a
    /// clusterQueue, not an object that cannot be read.
    #[test]
    fn a_local_queue_without_spec_has_no_cluster_queue() {
        let objects: Vec<kube::api::DynamicObject> = serde_json::from_value(serde_json::json!([
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "bare", "namespace": "ml"}}
        ]))
        .unwrap();
        let listed = decode_items::<LocalQueue>("LocalQueue", objects);
        assert!(listed.undecodable.is_empty(), "{:?}", listed.undecodable);
        assert_eq!(listed.items.len(), 1);
        assert_eq!(listed.items[0].spec, LocalQueueSpec::default());
    }

    /// Issue 34 D3: the list is decoded item by item; an object that does not decode is named
    /// with its reason, and the others are read.
    #[test]
    fn one_odd_object_does_not_sink_the_list() {
        let objects: Vec<kube::api::DynamicObject> = serde_json::from_value(serde_json::json!([
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "team-a", "namespace": "ml"}, "spec": {"clusterQueue": "gpu"}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "odd", "namespace": "ml"}, "spec": {"clusterQueue": 7}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue",
             "metadata": {"name": "team-b", "namespace": "ml"}, "spec": {}}
        ]))
        .unwrap();
        let listed = decode_items::<LocalQueue>("LocalQueue", objects);
        let names: Vec<_> = listed
            .items
            .iter()
            .map(|l| (l.metadata.name.as_deref(), l.spec.cluster_queue.as_deref()))
            .collect();
        assert_eq!(
            names,
            [(Some("team-a"), Some("gpu")), (Some("team-b"), None)]
        );
        assert_eq!(listed.undecodable.len(), 1);
        assert_eq!(listed.undecodable[0].object, "LocalQueue ml/odd");
        assert!(
            listed.undecodable[0].reason.contains("invalid type"),
            "{}",
            listed.undecodable[0].reason
        );
    }

    /// Both queues' `status` carry the same conditions and Workload counts, under the same JSON
    /// names in both served versions (kubernetes-sigs/kueue
    /// `apis/kueue/v1beta2/clusterqueue_types.go` and `localqueue_types.go`, and
    /// `apis/kueue/v1beta1/clusterqueue_types.go` and `localqueue_types.go`), so this one answer
    /// stands for both; the ClusterQueue's flavor usage sits beside them, and a round trip writes
    /// the same camelCase fields back.
    #[test]
    fn both_queues_decode_the_shared_status() {
        let counts = serde_json::json!({
            "pendingWorkloads": 2, "reservingWorkloads": 1, "admittedWorkloads": 1,
            "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "",
                            "lastTransitionTime": "2026-01-01T00:00:00Z"}]
        });
        let mut cq_status = counts.clone();
        cq_status["flavorsUsage"] = serde_json::json!([{"name": "a5000", "resources": [
            {"name": "nvidia.com/gpu", "total": "1"}]}]);
        let cq: ClusterQueueStatus = serde_json::from_value(cq_status.clone()).unwrap();
        let lq: QueueStatus = serde_json::from_value(counts.clone()).unwrap();
        assert_eq!(cq.queue, lq);
        assert_eq!(
            (
                lq.pending_workloads,
                lq.reserving_workloads,
                lq.admitted_workloads
            ),
            (Some(2), Some(1), Some(1))
        );
        assert_eq!(lq.conditions[0].type_, "Active");
        assert_eq!(cq.flavors_usage[0].resources[0].name, "nvidia.com/gpu");
        assert_eq!(serde_json::to_value(&cq).unwrap(), cq_status);
        assert_eq!(serde_json::to_value(&lq).unwrap(), counts);
    }

    /// A ClusterQueue as a `v1beta1`-only Kueue serves it (kubernetes-sigs/kueue
    /// `apis/kueue/v1beta1/clusterqueue_types.go`: `spec.cohort`, `spec.admissionChecks` as a
    /// list of names) and as `v1beta2` does (`cohortName`, `admissionChecksStrategy`): both
    /// decode into the same fields.
    #[test]
    fn cluster_queue_of_either_version() {
        let v1beta1: ClusterQueue = serde_json::from_value(serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
            "metadata": {"name": "manager"},
            "spec": {"cohort": "gpus", "admissionChecks": ["multikueue"],
                     "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                         {"name": "a5000", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]}]}
        }))
        .unwrap();
        let v1beta2: ClusterQueue = serde_json::from_value(serde_json::json!({
            "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
            "metadata": {"name": "manager"},
            "spec": {"cohortName": "gpus",
                     "admissionChecksStrategy": {"admissionChecks": [{"name": "multikueue"}]},
                     "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": [
                         {"name": "a5000", "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "8"}]}]}]}
        }))
        .unwrap();
        for cq in [&v1beta1, &v1beta2] {
            assert_eq!(cq.spec.cohort_name.as_deref(), Some("gpus"));
            assert_eq!(
                cq.spec.admission_check_names().collect::<Vec<_>>(),
                ["multikueue"]
            );
            assert_eq!(
                cq.spec.resource_groups[0].flavors[0].resources[0]
                    .nominal_quota
                    .0,
                "8"
            );
        }
    }
}
