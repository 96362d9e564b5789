//! Findings, reports and their four formats: text, JSON, SARIF 2.1.0 and JUnit XML.
//!
//! A [`Report`] is what [`crate::check::check`] returns: the findings of every static rule (with
//! the suppressions of the topology file applied), notes about the suppressions themselves, and a
//! [`Summary`]. [`Report::render`] writes it in one of the [`Format`]s; [`Report::fails`] says
//! whether CI should fail.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::model::{ComponentId, ComponentKind, StateCounts};
use crate::rules::{RuleId, RuleInfo};

mod json;
mod junit;
mod sarif;
mod text;

/// How serious a finding is.
///
/// Ordered: `Info < Warning < Error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A review trigger or a fact worth seeing (a roadmap item, a known trade-off).
    Info,
    /// A known gap or pending item.
    Warning,
    /// The infrastructure breaks a decision.
    Error,
}

impl Severity {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
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
    /// The catalogue entry of the finding's rule.
    pub fn rule_info(&self) -> &'static RuleInfo {
        self.rule.info()
    }

    /// Whether a suppression in force covers this finding.
    pub fn is_suppressed(&self) -> bool {
        self.suppressed.is_some()
    }

    /// A stable fingerprint of the finding: `RULE-ID/id` (independent of line numbers).
    pub fn fingerprint(&self) -> String {
        format!("{}/{}", self.rule, self.subject)
    }
}

/// Something the report says about the check itself (an expired or unused suppression).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    /// The note.
    pub message: String,
    /// Where it applies in the topology file.
    pub location: Option<Location>,
}

/// Counts of a report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Summary {
    /// Unsuppressed errors.
    pub errors: usize,
    /// Unsuppressed warnings.
    pub warnings: usize,
    /// Unsuppressed infos.
    pub infos: usize,
    /// Findings covered by a suppression in force.
    pub suppressed: usize,
    /// Static rules that ran.
    pub rules_checked: usize,
    /// Components per state.
    pub components: StateCounts,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}, {} {}, {} {}, {} suppressed ({} rules); components: {} validated, {} declared, {} desired ({} in all)",
            self.errors,
            plural(self.errors, "error", "errors"),
            self.warnings,
            plural(self.warnings, "warning", "warnings"),
            self.infos,
            plural(self.infos, "info", "infos"),
            self.suppressed,
            self.rules_checked,
            self.components.validated,
            self.components.declared,
            self.components.desired,
            self.components.total(),
        )
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The result of checking a topology.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// The file that was checked, as shown in locations.
    pub file: String,
    /// Findings, sorted by site, severity (errors first), rule and subject.
    pub findings: Vec<Finding>,
    /// Notes about the check itself (suppressions that expired or matched nothing).
    pub notes: Vec<Note>,
    /// Counts.
    pub summary: Summary,
}

impl Report {
    /// A report of these findings; sorts them and computes the summary.
    pub fn new(
        file: impl Into<String>,
        mut findings: Vec<Finding>,
        notes: Vec<Note>,
        components: StateCounts,
        rules_checked: usize,
    ) -> Self {
        findings.sort_by(|a, b| {
            a.site
                .is_none()
                .cmp(&b.site.is_none())
                .then_with(|| a.site.cmp(&b.site))
                .then_with(|| b.severity.cmp(&a.severity))
                .then_with(|| a.rule.cmp(&b.rule))
                .then_with(|| a.subject.cmp(&b.subject))
                .then_with(|| a.message.cmp(&b.message))
        });
        let mut summary = Summary {
            rules_checked,
            components,
            ..Summary::default()
        };
        for finding in &findings {
            if finding.is_suppressed() {
                summary.suppressed += 1;
                continue;
            }
            match finding.severity {
                Severity::Error => summary.errors += 1,
                Severity::Warning => summary.warnings += 1,
                Severity::Info => summary.infos += 1,
            }
        }
        Self {
            file: file.into(),
            findings,
            notes,
            summary,
        }
    }

    /// Findings no suppression covers.
    pub fn active(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| !f.is_suppressed())
    }

    /// Whether CI should fail: an unsuppressed error, or with `deny_warnings` an unsuppressed
    /// warning.
    pub fn fails(&self, deny_warnings: bool) -> bool {
        self.summary.errors > 0 || (deny_warnings && self.summary.warnings > 0)
    }

    /// The report in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => text::render(self),
            Format::Json => json::render(self),
            Format::Sarif => sarif::render(self),
            Format::Junit => junit::render(self),
        }
    }
}

/// An output format of [`Report::render`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Format {
    /// A table grouped by site and severity, for terminals and CI logs.
    #[default]
    Text,
    /// `{"findings":[…],"summary":{…},"notes":[…]}`.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// JUnit XML: one test case per rule × subject.
    Junit,
}

impl Format {
    /// Every format, in the order of `--format`'s help.
    pub const ALL: [Format; 4] = [Self::Text, Self::Json, Self::Sarif, Self::Junit];

    /// `text`, `json`, `sarif` or `junit`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Text => "text",
            Self::Json => "json",
            Self::Sarif => "sarif",
            Self::Junit => "junit",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A format name that is not one of `text`, `json`, `sarif`, `junit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownFormat(pub String);

impl fmt::Display for UnknownFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown report format `{}` (expected text, json, sarif or junit)",
            self.0
        )
    }
}

impl std::error::Error for UnknownFormat {}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|format| format.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| UnknownFormat(s.to_owned()))
    }
}
