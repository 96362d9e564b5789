//! Argo CD Applications (`argoproj.io/v1alpha1`): sync and health status, the operation phase and
//! error conditions (the "ArgoCD out-of-sync" alert).

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Serialize};

use super::custom::{custom_resource, new_object, string_enum};
use crate::health::Severity;

/// An Argo CD Application.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Application {
    /// `argoproj.io/v1alpha1`.
    pub api_version: String,
    /// `Application`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// What to deploy where.
    pub spec: ApplicationSpec,
    /// What the controller observed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<ApplicationStatus>,
}
custom_resource!(
    Application,
    "argoproj.io",
    "v1alpha1",
    "Application",
    "applications",
    NamespaceResourceScope
);

/// `Application.spec` (the fields read here; others are kept).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationSpec {
    /// The Argo CD project.
    pub project: String,
    /// The target cluster and namespace.
    pub destination: Destination,
    /// Fields not modelled here (`source`, `sources`, `syncPolicy`, …).
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `Application.spec.destination`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Destination {
    /// API server URL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Cluster name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Namespace.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

string_enum! {
    /// `status.sync.status`.
    SyncStatusCode { Synced = "Synced", OutOfSync = "OutOfSync" }
}

string_enum! {
    /// `status.health.status` (argoproj/gitops-engine `pkg/health/health.go`).
    HealthStatusCode {
        Healthy = "Healthy",
        Progressing = "Progressing",
        Degraded = "Degraded",
        Suspended = "Suspended",
        Missing = "Missing",
        /// Argo CD's own "Unknown": "health assessment failed and actual health status is
        /// unknown".
        NotAssessed = "Unknown",
    }
}

/// How an Application's health is reported, one answer for this crate's checks and the live
/// audit's GITOPS-002: `Degraded` and `Missing` (its resources "missing in the cluster",
/// `pkg/health/health.go`) are critical; Argo CD's `Unknown` and any value this crate does not
/// know are a warning, since its health cannot be told; `Healthy`, `Progressing` and `Suspended`
/// are not findings.
pub fn health_severity(code: &HealthStatusCode) -> Option<Severity> {
    match code {
        HealthStatusCode::Degraded | HealthStatusCode::Missing => Some(Severity::Critical),
        HealthStatusCode::NotAssessed | HealthStatusCode::Unknown(_) => Some(Severity::Warning),
        HealthStatusCode::Healthy | HealthStatusCode::Progressing | HealthStatusCode::Suspended => {
            None
        }
    }
}

string_enum! {
    /// `status.operationState.phase`.
    OperationPhase {
        Running = "Running",
        Terminating = "Terminating",
        Failed = "Failed",
        Error = "Error",
        Succeeded = "Succeeded",
    }
}

/// `Application.status` (the fields read here; others are kept).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationStatus {
    /// Sync state.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync: Option<SyncStatus>,
    /// Health.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<HealthStatus>,
    /// The last or current operation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_state: Option<OperationState>,
    /// Conditions (`ComparisonError`, `SyncError`, …).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<ApplicationCondition>,
    /// Last reconciliation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reconciled_at: Option<Time>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `status.sync`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncStatus {
    /// `Synced`, `OutOfSync` or `Unknown`.
    pub status: SyncStatusCode,
    /// The revision compared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

/// `status.health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HealthStatus {
    /// The health code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<HealthStatusCode>,
    /// Message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `status.operationState`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationState {
    /// Phase.
    pub phase: OperationPhase,
    /// Message (typically errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The requested operation.
    #[serde(default)]
    pub operation: serde_json::Value,
    /// Start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<Time>,
    /// End.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Time>,
}

/// `status.conditions[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplicationCondition {
    /// Type; error types end in `Error`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Message.
    pub message: String,
    /// When it appeared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
}

impl Application {
    /// An Application of `project` deploying to `server`/`namespace` (the rest of the spec, e.g.
    /// `source`, goes in [`ApplicationSpec::other`]).
    pub fn new(
        namespace: &str,
        name: &str,
        project: &str,
        server: &str,
        dest_namespace: &str,
    ) -> Self {
        new_object!(
            Some(namespace),
            name,
            Self {
                spec: ApplicationSpec {
                    project: project.to_owned(),
                    destination: Destination {
                        server: Some(server.to_owned()),
                        name: None,
                        namespace: Some(dest_namespace.to_owned()),
                    },
                    other: serde_json::Map::new(),
                },
                status: None,
            }
        )
    }
}
