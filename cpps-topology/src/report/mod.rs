//! Findings, reports and their four formats: text, JSON, SARIF 2.1.0 and JUnit XML.
//!
//! A [`Report`] is what [`crate::check::check`] returns: the findings of every static rule (with
//! the suppressions of the topology file applied), notes about the suppressions themselves, and a
//! [`Summary`]. [`Report::render`] writes it in one of the [`Format`]s; [`Report::fails`] says
//! whether CI should fail.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

pub use crate::finding::{Finding, Location, Severity, Subject, Suppressed};
use crate::model::StateCounts;

mod json;
mod junit;
mod sarif;
mod text;

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
#[non_exhaustive]
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

cpps_named_enum::named_enum! {
    /// An output format of [`Report::render`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    #[non_exhaustive]
    pub enum Format {
        /// A table grouped by site and severity, for terminals and CI logs.
        #[default]
        Text => "text",
        /// `{"findings":[…],"summary":{…},"notes":[…]}`.
        Json => "json",
        /// SARIF 2.1.0, for GitHub code scanning.
        Sarif => "sarif",
        /// JUnit XML: one test case per rule × subject.
        Junit => "junit",
    }
}

impl Format {
    /// Every format, in the order of `--format`'s help.
    pub const ALL: [Format; 4] = [Self::Text, Self::Json, Self::Sarif, Self::Junit];
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
