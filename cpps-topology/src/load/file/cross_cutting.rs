//! File types of the cross-cutting capabilities, other labelled facts and suppressions.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{At, FileState};
use crate::model::{AlertKind, CapabilityKind, CniKind, ItemRole, MetricsSource, PatternKind};

/// An alert.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Alert")]
pub(crate) struct AlertFile {
    /// Which alert.
    pub(crate) kind: AlertKind,
    /// Its state: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

component_file! {
    /// A cross-cutting capability.
    #[schemars(rename = "Capability")]
    struct CapabilityFile {
        /// `secrets`, `tls`, `iam`, `observability`, `ci_cd`, `supply_chain`.
        pub(crate) kind: CapabilityKind,
        /// The tool or decision.
        #[serde(default)]
        pub(crate) tool: Option<String>,
        /// The site, when local to one.
        #[serde(default)]
        pub(crate) site: Option<At<String>>,
        /// Alerts (observability).
        #[serde(default)]
        pub(crate) alerts: Vec<At<AlertFile>>,
        /// What it collects metrics of (observability): `linstor`, `drbd`, `pbs`.
        #[serde(default)]
        pub(crate) metrics: Option<At<Vec<MetricsSource>>>,
        /// The IaC tool (decision table «IaC Proxmox»).
        #[serde(default)]
        pub(crate) iac_tool: Option<At<crate::model::IacTool>>,
        /// The secrets tool (row «Secrets»).
        #[serde(default)]
        pub(crate) secrets_tool: Option<At<crate::model::SecretsTool>>,
        /// Tools for people to reach the sites (rows «Multi-site federação humana», «Acesso
        /// seguro humano»).
        #[serde(default)]
        pub(crate) remote_access: Option<At<Vec<crate::model::RemoteAccess>>>,
        /// How DNS fails over between sites (row «Failover DNS»).
        #[serde(default)]
        pub(crate) dns_failover: Option<At<crate::model::DnsFailover>>,
        /// The edge defense (row «Defesa de borda»).
        #[serde(default)]
        pub(crate) edge_defense: Option<At<Vec<crate::model::EdgeDefense>>>,
    }
}

component_file! {
    /// Any other labelled fact.
    #[schemars(rename = "Item")]
    struct ItemFile {
        /// Layer of the architecture (`8a`).
        #[serde(default)]
        pub(crate) layer: Option<String>,
        /// Its site.
        #[serde(default)]
        pub(crate) site: Option<At<String>>,
        /// The cluster it runs in.
        #[serde(default)]
        pub(crate) cluster: Option<At<String>>,
        /// The tool or product it is.
        #[serde(default)]
        pub(crate) tool: Option<At<String>>,
        /// The id of a rejected alternative it replaces where that is still in use.
        #[serde(default)]
        pub(crate) replaces: Option<At<String>>,
        /// What it provides (`shared_gpu_storage`, `model_registry`).
        #[serde(default)]
        pub(crate) role: Option<At<ItemRole>>,
    }
}

/// A sentence of a source document.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Quote")]
pub(crate) struct QuoteFile {
    /// The document's file name (`004_29bfc39840ca04c0.txt` or `000_be2f9e2558fad79c.txt`).
    pub(crate) source: At<String>,
    /// The exact words of the document.
    pub(crate) text: At<String>,
}

/// A pending item of the documents.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PendingItem")]
pub(crate) struct PendingFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// The section of the document that lists it.
    pub(crate) section: String,
    /// The item as the document writes it.
    pub(crate) quote: At<QuoteFile>,
    /// `desired` (not started), `declared` (in progress), `validated` (done): exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// The components it is about.
    #[serde(default)]
    pub(crate) about: Vec<At<String>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// What adopts a rejected alternative.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "AdoptionSignals")]
pub(crate) struct AdoptionFile {
    /// Words of a component's tool, LINSTOR provider or guest role.
    #[serde(default)]
    pub(crate) tools: Vec<String>,
    /// CNIs of a general-purpose cluster.
    #[serde(default)]
    pub(crate) cni: Vec<CniKind>,
    /// Kinds of multi-cluster patterns.
    #[serde(default)]
    pub(crate) patterns: Vec<PatternKind>,
    /// GPU clusters of every site placed alike.
    #[serde(default)]
    pub(crate) uniform_gpu_placement: bool,
    /// Pool backends that adopt it.
    #[serde(default)]
    pub(crate) backend: Vec<crate::model::StorageBackend>,
    /// ArgoCD repository layouts that adopt it.
    #[serde(default)]
    pub(crate) repo_layout: Vec<crate::model::RepoLayout>,
    /// Capability IaC tools that adopt it.
    #[serde(default)]
    pub(crate) iac_tool: Vec<crate::model::IacTool>,
    /// Capability secrets tools that adopt it.
    #[serde(default)]
    pub(crate) secrets_tool: Vec<crate::model::SecretsTool>,
    /// Capability remote-access tools that adopt it.
    #[serde(default)]
    pub(crate) remote_access: Vec<crate::model::RemoteAccess>,
    /// Capability DNS failovers that adopt it.
    #[serde(default)]
    pub(crate) dns_failover: Vec<crate::model::DnsFailover>,
    /// Capability edge defenses that adopt it.
    #[serde(default)]
    pub(crate) edge_defense: Vec<crate::model::EdgeDefense>,
    /// Rejected «agora»: only a component in service adopts it; a planned one is the
    /// decision's own future option.
    #[serde(default)]
    pub(crate) now_only: bool,
    /// Rejected until this many K3s clusters are in service.
    #[serde(default)]
    pub(crate) until_clusters: Option<u32>,
}

/// An alternative the decision table rejects.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "RejectedAlternative")]
pub(crate) struct RejectedFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// The row's "Tópico" cell.
    pub(crate) topic: String,
    /// The row's "Decisão" cell.
    pub(crate) decision: String,
    /// The row's "Alternativa rejeitada" cell.
    pub(crate) alternative: String,
    /// The row's "Motivo" cell.
    pub(crate) reason: String,
    /// The row's "ADR" cell.
    #[serde(default)]
    pub(crate) adr: Option<String>,
    /// What adopts it.
    #[serde(default)]
    pub(crate) adopted_when: Option<At<AdoptionFile>>,
    /// The rule that flags its adoption already.
    #[serde(default)]
    pub(crate) flagged_by: Option<At<String>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// What one document states about a fact.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "DocumentClaim")]
pub(crate) struct ClaimFile {
    /// The document's file name.
    pub(crate) source: At<String>,
    /// The sentence, verbatim.
    pub(crate) quote: At<String>,
    /// The state it gives the fact: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// The value it gives the subject's `field` (`vm`, `lxc_privileged`), when the documents
    /// disagree on a value rather than a state.
    #[serde(default)]
    pub(crate) value: Option<String>,
}

/// A fact the two documents state differently.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Contradiction")]
pub(crate) struct ContradictionFile {
    /// Unique id.
    pub(crate) id: At<String>,
    /// The component the fact is about.
    pub(crate) subject: At<String>,
    /// The field of the subject the fact is about.
    #[serde(default)]
    pub(crate) field: Option<String>,
    /// What each document says (at least two).
    pub(crate) claims: Vec<At<ClaimFile>>,
    /// The state this file gives the fact: exactly one.
    #[schemars(required)]
    pub(crate) follows: Option<At<FileState>>,
    /// The value this file gives the subject's `field`, when the claims give values.
    #[serde(default)]
    pub(crate) follows_value: Option<String>,
    /// Why the file follows that claim.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

/// A suppressed finding.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Suppression")]
pub(crate) struct SuppressionFile {
    /// Rule id (`LINSTOR-002`).
    pub(crate) rule: At<String>,
    /// Component id, or `*`.
    pub(crate) subject: At<String>,
    /// Why (required).
    pub(crate) reason: At<String>,
    /// Last day it holds (`2026-12-31`).
    #[serde(default)]
    pub(crate) expires: Option<At<String>>,
}
