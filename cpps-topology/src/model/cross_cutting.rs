//! Cross-cutting capabilities (secrets, TLS, IAM, observability, CI/CD, supply chain), other
//! labelled facts of the documents, suppressions of findings, and what the documents say that is
//! not a component: their pending items, the alternatives their decisions reject and the places
//! where the two documents contradict each other.

use serde::{Deserialize, Serialize};

use super::{
    CapabilityId, CniKind, ItemId, K3sClusterId, Location, Meta, PatternKind, SiteId, State,
};

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
    /// DNS serving a site's names (an essential service: "nada essencial depende de link
    /// cross-site").
    Dns,
}

/// What an observability capability collects metrics of ("Métricas LINSTOR/DRBD/PBS").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum MetricsSource {
    /// LINSTOR (controller, pools, resources).
    Linstor,
    /// DRBD replication.
    Drbd,
    /// Proxmox Backup Server.
    Pbs,
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
    /// NVRM (NVIDIA kernel driver) errors in a GPU host's `dmesg` ("alerta em erros NVRM"): not
    /// one of the five basic alerts, asked for by the driver runbook of ADR-009.
    NvrmErrors,
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
    /// What it collects metrics of (observability). Location: `meta.at("metrics")`.
    pub metrics: Vec<MetricsSource>,
    /// The options of the decision table it states (IaC tool, secrets tool, remote access,
    /// DNS failover, edge defense).
    pub choices: super::CapabilityChoices,
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
    /// The tool or product it is (`SeaweedFS`, `Trino`), what a rejected alternative is
    /// recognised by. Location: `meta.at("tool")`.
    pub tool: Option<String>,
    /// The id of a rejected alternative this item replaces where it is still in use (the
    /// migration of K3s Franca to Cilium replaces "flannel sem Cilium"). Location:
    /// `meta.at("replaces")`.
    pub replaces: Option<String>,
    /// What it provides that a rule asks for by structure, not by the tool's name. Location:
    /// `meta.at("role")`.
    pub role: Option<ItemRole>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// What an item provides that ADR-009's plan for two GPU clusters asks for (GPU-008).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ItemRole {
    /// Storage shared by the GPU clusters of the sites («Storage compartilhado via SeaweedFS
    /// replicado»).
    SharedGpuStorage,
    /// A model registry shared by them («Modelos compartilhados via MLflow centralizado»).
    ModelRegistry,
}

/// A sentence of one of the two source documents, quoted verbatim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quote {
    /// The document's file name (`004_29bfc39840ca04c0.txt`).
    pub source: String,
    /// The exact words (a tab of a document's table row is written `\t`).
    pub text: String,
}

/// A pending item of the documents ("Pendências", "Pendências críticas", "Pendências MVP",
/// "Decisões pendentes", "Decisão pendente"). Not a component: it is work to do on components,
/// which `about` names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingItem {
    /// Id, unique among the ids of the file.
    pub id: String,
    /// The section of the document it is listed in (`Camada 1 — Storage distribuído`).
    pub section: String,
    /// The item as the document writes it.
    pub quote: Quote,
    /// Where the work stands: `desired` (not started), `declared` (in progress, in code),
    /// `validated` (done in production).
    pub state: State,
    /// The components it is about. Locations in `about_locations`.
    pub about: Vec<String>,
    /// Where each `about` entry is in the file.
    pub about_locations: Vec<Location>,
    /// Free text.
    pub note: Option<String>,
    /// Where its `id:` is in the file.
    pub location: Location,
}

/// What in a topology adopts a rejected alternative.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AdoptionSignals {
    /// Words that, found (case-insensitively, as whole words) in a component's tool, LINSTOR
    /// provider or guest role, adopt the alternative (`ceph`, `sealed secrets`).
    pub tools: Vec<String>,
    /// A general-purpose K3s cluster running one of these CNIs adopts it (GPU clusters are out
    /// of Cilium's scope, ADR-009).
    pub cni: Vec<CniKind>,
    /// A multi-cluster pattern of one of these kinds adopts it, unless deferred.
    pub patterns: Vec<PatternKind>,
    /// GPU clusters of two or more sites all placed alike adopt it, unless a document's
    /// placement claim backs the placement (then GPU-002 reports the documents' disagreement).
    pub uniform_gpu_placement: bool,
    /// A component stating one of these `(field, value)` pairs in the fields of the decision
    /// table (`backend: ceph`, `iac_tool: terraform`) adopts it: judged on structure.
    pub choices: Vec<(&'static str, &'static str)>,
    /// The alternative is rejected «agora» (now) and the decision names it as its own future
    /// («→ Octelium/Teleport futuro», «→ CrowdSec futuro»): only a component in service
    /// (`declared` or `validated`) adopts it; a `desired` one is that future, planned.
    pub now_only: bool,
    /// The alternative is rejected until this many K3s clusters are in service (Karmada's
    /// «critério: 5+ clusters»): from then on it is no adoption, and MESH-003 asks to review it.
    pub until_clusters: Option<u32>,
}

impl AdoptionSignals {
    /// Whether no signal is given.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
            && self.cni.is_empty()
            && self.patterns.is_empty()
            && !self.uniform_gpu_placement
            && self.choices.is_empty()
    }
}

/// A row of the architecture's decision table ("Decisões arquiteturais (resumo)") seen from its
/// "Alternativa rejeitada" column: the option the team rejected, and how a topology that adopts
/// it is recognised. Not a component (it has no state): adopting it is the finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RejectedAlternative {
    /// Id, unique among the ids of the file.
    pub id: String,
    /// The row's "Tópico" cell, verbatim.
    pub topic: String,
    /// The row's "Decisão" cell, verbatim.
    pub decision: String,
    /// The row's "Alternativa rejeitada" cell, verbatim.
    pub alternative: String,
    /// The row's "Motivo" cell, verbatim.
    pub reason: String,
    /// The row's "ADR" cell (`—` when none).
    pub adr: Option<String>,
    /// What adopts it, for DOC-002.
    pub adopted_when: AdoptionSignals,
    /// The rule that already flags its adoption, when one does (`PVE-001`); DOC-002 then only
    /// checks that the rule exists.
    pub flagged_by: Option<String>,
    /// Free text.
    pub note: Option<String>,
    /// Where its `id:` is in the file.
    pub location: Location,
}

/// What one document states about a fact, as a state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocumentClaim {
    /// The sentence.
    pub quote: Quote,
    /// The state it gives the fact (`✅` is `validated`, `❌` `desired`, "já existe"
    /// `validated`).
    pub state: State,
    /// The value it gives the subject's field (`vm`, `lxc_privileged`, `1 per site`), when the
    /// documents disagree on a value rather than (or as well as) a state.
    pub value: Option<String>,
    /// Where the claim is in the file.
    pub location: Location,
}

/// A fact the two documents state differently (ADR-009 says "já existe" of what the architecture
/// marks ❌), recorded so that the check reports it (DOC-001), as GPU-002 does for the Franca GPU
/// placement.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contradiction {
    /// Id, unique among the ids of the file.
    pub id: String,
    /// The component the fact is about. Location: `subject_location`.
    pub subject: String,
    /// The field of the subject the fact is about (`backup`, `default_deny`), when it is not the
    /// subject's own state.
    pub field: Option<String>,
    /// What each document says.
    pub claims: Vec<DocumentClaim>,
    /// The state this file gives the fact (one of the claims', said why in `note`).
    pub follows: State,
    /// The value this file gives the subject's field, when the claims give values (one of
    /// theirs).
    pub follows_value: Option<String>,
    /// Why the file follows that claim.
    pub note: Option<String>,
    /// Where its `id:` is in the file.
    pub location: Location,
    /// Where its `subject:` is in the file.
    pub subject_location: Location,
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
