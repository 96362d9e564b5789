//! cert-manager Certificates (`cert-manager.io/v1`) with their expiry (the "cert expiring" alert).

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use serde::{Deserialize, Serialize};

use super::custom::{custom_resource, new_object};

/// A cert-manager Certificate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Certificate {
    /// `cert-manager.io/v1`.
    pub api_version: String,
    /// `Certificate`.
    pub kind: String,
    /// Object metadata.
    pub metadata: ObjectMeta,
    /// What to issue.
    pub spec: CertificateSpec,
    /// What cert-manager did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<CertificateStatus>,
}
custom_resource!(
    Certificate,
    "cert-manager.io",
    "v1",
    "Certificate",
    "certificates",
    NamespaceResourceScope
);

/// `Certificate.spec` (the fields read here; others are kept).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateSpec {
    /// The Secret that receives the certificate.
    pub secret_name: String,
    /// The issuer.
    pub issuer_ref: IssuerRef,
    /// DNS names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dns_names: Vec<String>,
    /// Common name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub common_name: Option<String>,
    /// Requested lifetime, e.g. `2160h`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    /// Renew this long before expiry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renew_before: Option<String>,
    /// Fields not modelled here.
    #[serde(flatten)]
    pub other: serde_json::Map<String, serde_json::Value>,
}

/// `spec.issuerRef`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuerRef {
    /// Issuer name.
    pub name: String,
    /// `Issuer` or `ClusterIssuer`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// API group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// `Certificate.status`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateStatus {
    /// Conditions (`Ready`, `Issuing`).
    #[serde(default)]
    pub conditions: Vec<CertificateCondition>,
    /// Start of validity of the current certificate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_before: Option<Time>,
    /// Expiry of the current certificate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_after: Option<Time>,
    /// When cert-manager will renew it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renewal_time: Option<Time>,
    /// Issuance count.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<i64>,
    /// Failed issuances in a row.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_issuance_attempts: Option<i64>,
    /// Last failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_failure_time: Option<Time>,
}

/// `status.conditions[]`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CertificateCondition {
    /// `Ready` or `Issuing`.
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False`, `Unknown`.
    pub status: String,
    /// Reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// When it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
}

impl Certificate {
    /// A Certificate for `dns_names` issued by the ClusterIssuer `issuer` into `secret_name`.
    pub fn new(
        namespace: &str,
        name: &str,
        secret_name: &str,
        issuer: &str,
        dns_names: &[&str],
    ) -> Self {
        new_object!(
            Some(namespace),
            name,
            Self {
                spec: CertificateSpec {
                    secret_name: secret_name.to_owned(),
                    issuer_ref: IssuerRef {
                        name: issuer.to_owned(),
                        kind: Some("ClusterIssuer".to_owned()),
                        group: Some("cert-manager.io".to_owned()),
                    },
                    dns_names: dns_names.iter().map(|s| (*s).to_owned()).collect(),
                    ..CertificateSpec::default()
                },
                status: None,
            }
        )
    }

    /// Whether the `Ready` condition is `True`.
    pub fn is_ready(&self) -> bool {
        self.status.as_ref().is_some_and(|s| {
            s.conditions
                .iter()
                .any(|c| c.type_ == "Ready" && c.status == "True")
        })
    }
}
