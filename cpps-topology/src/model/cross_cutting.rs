//! Cross-cutting capabilities (secrets, TLS, IAM, observability, CI/CD, supply chain), other
//! labelled facts of the documents, and suppressions of findings.

use serde::{Deserialize, Serialize};

use super::{CapabilityId, ItemId, K3sClusterId, Location, Meta, SiteId, State};

/// Kind of a cross-cutting capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum CapabilityKind {
    /// Secrets management.
    Secrets,
    /// Certificates (TLS).
    Tls,
    /// Identity and access.
    Iam,
    /// Observability.
    Observability,
    /// CI/CD of IaC.
    CiCd,
    /// Supply chain (registry and images).
    SupplyChain,
}

/// The five basic alerts ("Pelo menos 5 alertas básicos").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AlertKind {
    /// Node down.
    NodeDown,
    /// LINSTOR degraded.
    LinstorDegraded,
    /// DRBD desync.
    DrbdDesync,
    /// ArgoCD out-of-sync.
    ArgocdOutOfSync,
    /// Certificate expiring.
    CertExpiring,
}

impl AlertKind {
    /// The five basic alerts.
    pub const BASIC: [AlertKind; 5] = [
        AlertKind::NodeDown,
        AlertKind::LinstorDegraded,
        AlertKind::DrbdDesync,
        AlertKind::ArgocdOutOfSync,
        AlertKind::CertExpiring,
    ];
}

/// An alert of an observability capability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Alert {
    /// Which alert.
    pub kind: AlertKind,
    /// Its state.
    pub state: State,
    /// Free text.
    pub note: Option<String>,
    /// Where it is in the file.
    pub location: Location,
}

/// A cross-cutting capability (or one part of it, e.g. the OTel collector of observability).
#[derive(Clone, Debug, PartialEq)]
pub struct Capability {
    /// Id.
    pub id: CapabilityId,
    /// Kind.
    pub kind: CapabilityKind,
    /// The tool or decision (`SOPS + age`, `OpenObserve`).
    pub tool: Option<String>,
    /// The site, when local to one. Location: `meta.at("site")`.
    pub site: Option<SiteId>,
    /// Alerts (observability).
    pub alerts: Vec<Alert>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Any other labelled fact of the documents (an application, a pending decision, a layer item).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Id.
    pub id: ItemId,
    /// The layer of the architecture (`8a`, `3`, `1`).
    pub layer: Option<String>,
    /// Its site. Location: `meta.at("site")`.
    pub site: Option<SiteId>,
    /// The cluster it runs in. Location: `meta.at("cluster")`.
    pub cluster: Option<K3sClusterId>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A suppression of one rule for one subject, written in the file with a reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    /// Rule id (`LINSTOR-002`).
    pub rule: String,
    /// Component id (the finding's subject), or `*` for every subject.
    pub subject: String,
    /// Why (required, non-empty).
    pub reason: String,
    /// Last day the suppression holds; after it the finding comes back.
    pub expires: Option<jiff::civil::Date>,
    /// Where the suppression is in the file.
    pub location: Location,
}

impl Suppression {
    /// Whether this suppression covers `rule` for `subject` on `today` (not expired:
    /// `today <= expires`).
    pub fn covers(&self, rule: &str, subject: &str, today: jiff::civil::Date) -> bool {
        self.rule == rule
            && (self.subject == "*" || self.subject == subject)
            && self.expires.is_none_or(|e| today <= e)
    }
}
