//! Argo CD Applications (`argoproj.io/v1alpha1`): sync and health status, the operation phase and
//! error conditions (the "ArgoCD out-of-sync" alert).

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Serialize};

use super::custom::{custom_resource, new_object};
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

cpps_named_enum::named_enum! {
    /// `status.sync.status`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum SyncStatusCode {
        /// `Synced`.
        Synced => "Synced",
        /// `OutOfSync`.
        OutOfSync => "OutOfSync",
        _ => Unknown(String),
    }
}

cpps_named_enum::named_enum! {
    /// `status.health.status` (argoproj/gitops-engine `pkg/health/health.go`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum HealthStatusCode {
        /// `Healthy`.
        Healthy => "Healthy",
        /// `Progressing`.
        Progressing => "Progressing",
        /// `Degraded`.
        Degraded => "Degraded",
        /// `Suspended`.
        Suspended => "Suspended",
        /// `Missing`.
        Missing => "Missing",
        /// `Unknown`, Argo CD's own: "health assessment failed and actual health status is
        /// unknown".
        NotAssessed => "Unknown",
        _ => Unknown(String),
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

cpps_named_enum::named_enum! {
    /// `status.operationState.phase`.
    #[derive(Debug, Clone, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum OperationPhase {
        /// `Running`.
        Running => "Running",
        /// `Terminating`.
        Terminating => "Terminating",
        /// `Failed`.
        Failed => "Failed",
        /// `Error`.
        Error => "Error",
        /// `Succeeded`.
        Succeeded => "Succeeded",
        _ => Unknown(String),
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

/// The label selector of Argo CD's cluster Secrets (argo-cd `common/common.go`
/// `LabelKeySecretType` = `argocd.argoproj.io/secret-type`, `LabelValueSecretTypeCluster` =
/// `cluster`).
pub const CLUSTER_SECRET_SELECTOR: &str = "argocd.argoproj.io/secret-type=cluster";

/// One Argo CD cluster Secret, decoded as argo-cd `util/db/cluster.go` `SecretToCluster` reads
/// it, without its `config`: that holds the cluster's credentials, so only whether Argo CD
/// would accept it is kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterSecret {
    /// `namespace/name` of the Secret.
    pub secret: String,
    /// Its `name` key: the cluster name Applications' `destination.name` and `argocd cluster
    /// list` use (absent or empty: none).
    pub name: Option<String>,
    /// Its `server` key without trailing `/` (`SecretToCluster` trims it with
    /// `strings.TrimRight`).
    pub server: Option<String>,
    /// Why Argo CD would refuse the Secret (`config` that is not a JSON object: "failed to
    /// unmarshal cluster config"; a key that is not UTF-8), if it would.
    pub problem: Option<String>,
}

/// Decodes one cluster Secret as [`ClusterSecret`] says. Never fails: an odd Secret is a
/// [`ClusterSecret::problem`], a finding about that Secret, never a failed list.
pub fn cluster_secret(secret: &k8s_openapi::api::core::v1::Secret) -> ClusterSecret {
    let data = secret.data.as_ref();
    let mut problems = Vec::new();
    let mut text = |key: &str| {
        let bytes = data?.get(key)?;
        match std::str::from_utf8(&bytes.0) {
            Ok(t) => Some(t.to_owned()),
            Err(_) => {
                problems.push(format!("its `{key}` is not UTF-8"));
                None
            }
        }
    };
    let name = text("name").filter(|n| !n.is_empty());
    let server = text("server")
        .map(|s| s.trim_end_matches('/').to_owned())
        .filter(|s| !s.is_empty());
    // Go's `json.Unmarshal` into the `ClusterConfig` struct takes an object or `null`. Neither
    // the bytes nor serde's message (which may quote them) leave this function.
    let parses = |c: &[u8]| {
        serde_json::from_slice::<Option<serde_json::Map<String, serde_json::Value>>>(c).is_ok()
    };
    let config = data.and_then(|d| d.get("config"));
    if config.is_some_and(|c| !c.0.is_empty() && !parses(&c.0)) {
        problems.push("its `config` is not a JSON object".to_owned());
    }
    ClusterSecret {
        secret: format!(
            "{}/{}",
            secret.metadata.namespace.as_deref().unwrap_or(""),
            secret.metadata.name.as_deref().unwrap_or("")
        ),
        name,
        server,
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

/// The name of Argo CD's settings ConfigMap (argo-cd `common/common.go` `ArgoCDConfigMapName`).
/// Argo CD reads it from its own namespace (`util/settings/settings.go` `GetConfigMapByName`), so
/// the namespace that holds it is Argo CD's.
pub const ARGOCD_CONFIG_MAP: &str = "argocd-cm";

/// Argo CD's namespace from the namespaces holding a ConfigMap [`ARGOCD_CONFIG_MAP`]: the one
/// namespace, or `Err` saying why it cannot be told (none holds it: no Argo CD here, or it is
/// installed some other way; several do: several Argo CD instances, and which one is meant is
/// not known).
pub fn argocd_namespace_of(namespaces: &[String]) -> Result<String, String> {
    match namespaces {
        [one] => Ok(one.clone()),
        [] => Err(format!(
            "no namespace holds Argo CD's ConfigMap {ARGOCD_CONFIG_MAP}, so Argo CD's namespace \
             cannot be told"
        )),
        several => Err(format!(
            "several namespaces hold a ConfigMap {ARGOCD_CONFIG_MAP} ({}), so which is Argo \
             CD's cannot be told",
            several.join(", ")
        )),
    }
}

/// Argo CD's namespace in the cluster of `client`, found as [`argocd_namespace_of`] says, from
/// the metadata of the ConfigMaps named [`ARGOCD_CONFIG_MAP`] in every namespace. `Err` says why
/// it cannot be told, a refused list included.
pub async fn argocd_namespace(client: &kube::Client) -> Result<String, String> {
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> = kube::Api::all(client.clone());
    let params =
        kube::api::ListParams::default().fields(&format!("metadata.name={ARGOCD_CONFIG_MAP}"));
    let what = format!("listing the ConfigMaps named {ARGOCD_CONFIG_MAP}");
    let list = api.list_metadata(&params).await.map_err(|e| match e {
        kube::Error::Api(status) => format!("{what} answered {} {}", status.code, status.reason),
        e => format!("{what} failed: {e}"),
    })?;
    let mut namespaces: Vec<String> = list
        .items
        .into_iter()
        .filter_map(|cm| cm.metadata.namespace)
        .collect();
    namespaces.sort();
    namespaces.dedup();
    argocd_namespace_of(&namespaces)
}

/// The key of [`ARGOCD_CONFIG_MAP`] that turns off deploying to the cluster Argo CD runs in
/// (argo-cd `util/settings/settings.go` `inClusterEnabledKey`).
pub const IN_CLUSTER_ENABLED_KEY: &str = "cluster.inClusterEnabled";

/// Whether Argo CD may deploy to the cluster it runs in, from its `argocd-cm` data: anything but
/// the text `false` leaves it on (argo-cd `util/settings/settings.go`
/// `updateSettingsFromConfigMap`: `InClusterEnabled = Data[inClusterEnabledKey] != "false"`).
/// When it is off, `util/db/cluster.go` `ListClusters` lists neither the local cluster nor a
/// Secret for `https://kubernetes.default.svc`.
pub fn in_cluster_enabled_of(data: Option<&std::collections::BTreeMap<String, String>>) -> bool {
    data.and_then(|d| d.get(IN_CLUSTER_ENABLED_KEY))
        .is_none_or(|v| v != "false")
}

/// [`in_cluster_enabled_of`] read from the [`ARGOCD_CONFIG_MAP`] in `namespace`. `Err` says why
/// it could not be read (a 403 when the kubeconfig may not get ConfigMaps).
pub async fn in_cluster_enabled(client: &kube::Client, namespace: &str) -> Result<bool, String> {
    let api: kube::Api<k8s_openapi::api::core::v1::ConfigMap> =
        kube::Api::namespaced(client.clone(), namespace);
    let what = format!("reading ConfigMap {ARGOCD_CONFIG_MAP} in namespace {namespace}");
    match api.get(ARGOCD_CONFIG_MAP).await {
        Ok(cm) => Ok(in_cluster_enabled_of(cm.data.as_ref())),
        Err(kube::Error::Api(status)) => {
            Err(format!("{what} answered {} {}", status.code, status.reason))
        }
        Err(e) => Err(format!("{what} failed: {e}")),
    }
}

/// The Argo CD cluster Secrets in `namespace`, Argo CD's own (see [`argocd_namespace`]), each
/// decoded on its own. Argo CD reads cluster Secrets from its namespace only (argo-cd
/// `util/db/secrets.go` `listSecretsByType`: `secretsLister.Secrets(db.ns)`), so a labelled
/// Secret elsewhere registers nothing. `Err` says why the list could not be read (a 403 when
/// the kubeconfig may not list Secrets): which clusters are registered then cannot be told,
/// never "none".
pub async fn list_cluster_secrets(
    client: &kube::Client,
    namespace: &str,
) -> Result<Vec<ClusterSecret>, String> {
    let api: kube::Api<k8s_openapi::api::core::v1::Secret> =
        kube::Api::namespaced(client.clone(), namespace);
    let params = kube::api::ListParams::default().labels(CLUSTER_SECRET_SELECTOR);
    let what =
        format!("listing Secrets labelled {CLUSTER_SECRET_SELECTOR} in namespace {namespace}");
    match api.list(&params).await {
        Ok(list) => Ok(list.items.iter().map(cluster_secret).collect()),
        Err(kube::Error::Api(status)) => {
            Err(format!("{what} answered {} {}", status.code, status.reason))
        }
        Err(e) => Err(format!("{what} failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// argo-cd `util/settings/settings.go` `updateSettingsFromConfigMap`: only the text `false`
    /// turns in-cluster deployment off; an absent key or map leaves it on.
    #[test]
    fn in_cluster_deployment_is_off_only_for_false() {
        let data = |v: &str| {
            std::collections::BTreeMap::from([(IN_CLUSTER_ENABLED_KEY.to_owned(), v.to_owned())])
        };
        assert!(in_cluster_enabled_of(None));
        assert!(in_cluster_enabled_of(Some(
            &std::collections::BTreeMap::new()
        )));
        assert!(in_cluster_enabled_of(Some(&data("true"))));
        assert!(in_cluster_enabled_of(Some(&data("False"))));
        assert!(!in_cluster_enabled_of(Some(&data("false"))));
    }

    /// One namespace holding `argocd-cm` is Argo CD's; none or several cannot be told.
    #[test]
    fn argocd_namespace_is_the_one_holding_argocd_cm() {
        assert_eq!(
            argocd_namespace_of(&["argocd".to_owned()]),
            Ok("argocd".to_owned())
        );
        assert_eq!(
            argocd_namespace_of(&[]),
            Err(
                "no namespace holds Argo CD's ConfigMap argocd-cm, so Argo CD's namespace \
                 cannot be told"
                    .to_owned()
            )
        );
        assert_eq!(
            argocd_namespace_of(&["argocd".to_owned(), "argocd-staging".to_owned()]),
            Err(
                "several namespaces hold a ConfigMap argocd-cm (argocd, argocd-staging), so \
                 which is Argo CD's cannot be told"
                    .to_owned()
            )
        );
    }
}
