//! Findings: what the rules produce and every report carries.
//!
//! A [`Finding`] names the rule that fired ([`RuleId`]), its [`Severity`], the [`Subject`] at
//! fault, a message and a [`Location`] in the topology file; a [`Suppressed`] marks one that a
//! suppression of the file covers. The static checks (`rules`), the live checks (`live`) and the
//! report formats (`report`) all import this module, and it imports only the model, so no module
//! cycle runs through it: the catalogue adds [`RuleId::info`] and [`Finding::rule_info`] from
//! `rules`, the one place that knows the rules.

use std::fmt;

use serde::Serialize;

use crate::model::{ComponentId, ComponentKind};

/// The id of a rule of the catalogue, e.g. `LINSTOR-001`.
///
/// A `RuleId` always names a rule of [`crate::rules::catalogue()`]: parsing an unknown id fails
/// with a suggestion of the nearest known one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(pub(crate) &'static str);

impl RuleId {
    /// The id as written in the catalogue.
    pub fn as_str(&self) -> &'static str {
        self.0
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl Serialize for RuleId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0)
    }
}

cpps_named_enum::named_enum! {
    /// How serious a finding is.
    ///
    /// Ordered: `Info < Warning < Error`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Severity {
        /// A review trigger or a fact worth seeing (a roadmap item, a known trade-off).
        Info => "info",
        /// A known gap or pending item.
        Warning => "warning",
        /// The infrastructure breaks a decision.
        Error => "error",
    }
}

/// The component a finding is about: its typed id, or the topology as a whole (for a finding
/// that no single component carries, such as a missing capability).
///
/// Component ids are unique across the topology file, so a subject displays as the bare id
/// (`pve-ippri-34`), which is also how a suppression names it; the topology displays as
/// `(topology)`, which no component id can be.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Subject {
    /// A component of the topology.
    Component(ComponentId),
    /// The topology as a whole.
    Topology,
}

impl Subject {
    /// The bare id (`(topology)` for the topology).
    pub fn id(&self) -> &str {
        match self {
            Self::Component(id) => id.as_str(),
            Self::Topology => "(topology)",
        }
    }

    /// The kind of subject in snake case: `host`, `k3s_cluster`, …, `topology`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Component(id) => kind_name(id.kind()),
            Self::Topology => "topology",
        }
    }
}

/// The snake-case name of a component kind, as written in reports.
pub(crate) fn kind_name(kind: ComponentKind) -> &'static str {
    match kind {
        ComponentKind::Site => "site",
        ComponentKind::Host => "host",
        ComponentKind::Guest => "guest",
        ComponentKind::ProxmoxCluster => "proxmox_cluster",
        ComponentKind::LinstorPool => "linstor_pool",
        ComponentKind::K3sCluster => "k3s_cluster",
        ComponentKind::ArgoCd => "argocd",
        ComponentKind::Pbs => "pbs",
        ComponentKind::Router => "router",
        ComponentKind::Traefik => "traefik",
        ComponentKind::Link => "link",
        ComponentKind::Pattern => "pattern",
        ComponentKind::Capability => "capability",
        ComponentKind::Item => "item",
    }
}

impl From<ComponentId> for Subject {
    fn from(id: ComponentId) -> Self {
        Self::Component(id)
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl Serialize for Subject {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

/// A position in the topology file (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Location {
    /// The file, as given to the loader (relative to the repository when it can be).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

impl Location {
    /// A location in `file` at `line`:`column` (both 1-based; 0 is raised to 1).
    pub fn new(file: impl Into<String>, line: u32, column: u32) -> Self {
        Self {
            file: file.into(),
            line: line.max(1),
            column: column.max(1),
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// A suppression of the topology file that matched a finding and is in force.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suppressed {
    /// Why the finding is accepted (required in the file).
    pub justification: String,
    /// The last day the suppression is in force, when it has one.
    #[serde(serialize_with = "serialize_date")]
    pub expires: Option<jiff::civil::Date>,
    /// Where the suppression is written.
    pub location: Option<Location>,
}

fn serialize_date<S: serde::Serializer>(
    date: &Option<jiff::civil::Date>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match date {
        Some(date) => serializer.collect_str(date),
        None => serializer.serialize_none(),
    }
}

/// One place where the topology breaks a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule.
    pub rule: RuleId,
    /// The severity of this finding (the rule's, or lower for a component that is not in
    /// production yet).
    pub severity: Severity,
    /// The component at fault.
    pub subject: Subject,
    /// The site the component belongs to; `None` for cross-site or global components.
    pub site: Option<String>,
    /// What is wrong, in one or two sentences naming the components involved.
    pub message: String,
    /// Where the component is written in the topology file.
    pub location: Location,
    /// The suppression in force for this finding, if any.
    pub suppressed: Option<Suppressed>,
}

impl Finding {
    /// Whether a suppression in force covers this finding.
    pub fn is_suppressed(&self) -> bool {
        self.suppressed.is_some()
    }

    /// A stable fingerprint of the finding: `RULE-ID/id` (independent of line numbers).
    pub fn fingerprint(&self) -> String {
        format!("{}/{}", self.rule, self.subject)
    }
}
