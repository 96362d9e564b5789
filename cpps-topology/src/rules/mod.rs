//! The ADR rule catalogue and the static checks.
//!
//! Every rule has a stable [`RuleId`] (users write suppressions against it), a default
//! [`Severity`], a [`RuleKind`] saying whether it looks at the declared file, at the live systems,
//! or at both, the sentence of the source document it comes from ([`Citation`]) and a remediation.
//!
//! [`crate::check::check`] runs the static part of every rule. Live rules are in the catalogue
//! already, so suppressions and reports can name them; their checks arrive with the `live` feature,
//! which adds a second table next to the static one (see [`RuleKind::has_live_part`]).

use std::fmt;
use std::str::FromStr;

use crate::finding::{Finding, Severity};

mod catalogue;
pub(crate) mod checks;

pub use crate::finding::RuleId;

impl RuleId {
    /// The catalogue entry of this rule.
    pub fn info(&self) -> &'static RuleInfo {
        // Every RuleId is built from the catalogue, so the lookup cannot fail; the fallback keeps
        // this total without a panic path.
        catalogue::CATALOGUE
            .iter()
            .find(|rule| rule.id.0 == self.0)
            .unwrap_or(&catalogue::CATALOGUE[0])
    }
}

impl Finding {
    /// The catalogue entry of the finding's rule.
    pub fn rule_info(&self) -> &'static RuleInfo {
        self.rule.info()
    }
}

/// A rule id that is not in the catalogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRuleId {
    /// The id as written.
    pub id: String,
    /// The nearest id of the catalogue, when one is close.
    pub suggestion: Option<RuleId>,
}

impl fmt::Display for UnknownRuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown rule id `{}`", self.id)?;
        if let Some(suggestion) = self.suggestion {
            write!(f, " (did you mean `{suggestion}`?)")?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownRuleId {}

impl FromStr for RuleId {
    type Err = UnknownRuleId;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let wanted = s.trim();
        if let Some(rule) = catalogue::CATALOGUE
            .iter()
            .find(|rule| rule.id.0.eq_ignore_ascii_case(wanted))
        {
            return Ok(rule.id);
        }
        let upper = wanted.to_ascii_uppercase();
        let suggestion = catalogue::CATALOGUE
            .iter()
            .map(|rule| (strsim::levenshtein(rule.id.0, &upper), rule.id))
            .filter(|(distance, _)| *distance <= 3)
            .min_by_key(|(distance, _)| *distance)
            .map(|(_, id)| id);
        Err(UnknownRuleId {
            id: s.to_owned(),
            suggestion,
        })
    }
}

impl<'de> serde::Deserialize<'de> for RuleId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// Whether a rule looks at the declared file, at the live systems, or at both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RuleKind {
    /// Decided from the topology file alone; run by [`crate::check::check`].
    Static,
    /// Needs what the live APIs report; run by the `live` feature.
    Live,
    /// A static part run by [`crate::check::check`] and a live part run by the `live` feature.
    StaticAndLive,
    /// Compares the file with IaC evidence (Pulumi, Ansible); run by [`crate::iac::IacChecks`].
    Iac,
}

impl RuleKind {
    /// Whether [`crate::check::check`] runs this rule.
    pub fn has_static_part(self) -> bool {
        matches!(self, Self::Static | Self::StaticAndLive)
    }

    /// Whether the rule has a part that needs the live systems.
    pub fn has_live_part(self) -> bool {
        matches!(self, Self::Live | Self::StaticAndLive)
    }

    /// `static`, `live`, `static+live` or `iac`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Static => "static",
            Self::Live => "live",
            Self::StaticAndLive => "static+live",
            Self::Iac => "iac",
        }
    }
}

impl fmt::Display for RuleKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One of the two source documents the rules cite (kept verbatim in `docs/seeds/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Document {
    /// `004_29bfc39840ca04c0.txt`: "Arquitetura da Infraestrutura".
    Architecture,
    /// `000_be2f9e2558fad79c.txt`: ADR-009, the separate GPU cluster.
    Adr009,
}

impl Document {
    /// The document's file name.
    pub fn file_name(self) -> &'static str {
        match self {
            Self::Architecture => "004_29bfc39840ca04c0.txt",
            Self::Adr009 => "000_be2f9e2558fad79c.txt",
        }
    }

    /// The document's title.
    pub fn title(self) -> &'static str {
        match self {
            Self::Architecture => "Arquitetura da Infraestrutura",
            Self::Adr009 => "ADR-009 — Cluster GPU separado, não worker do cluster K3s SP",
        }
    }
}

/// A sentence of a source document, quoted verbatim.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Citation {
    /// The document.
    pub document: Document,
    /// The exact words of the document (Portuguese).
    pub quote: &'static str,
}

impl fmt::Display for Citation {
    /// `file: «quote»`, a table row's tab-separated cells shown as columns (`a | b`), as every
    /// finding renders a quote; `quote` itself keeps the document's tab.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: «{}»",
            self.document.file_name(),
            checks::quoted(self.quote)
        )
    }
}

/// A rule of the catalogue.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct RuleInfo {
    /// The stable id.
    pub id: RuleId,
    /// The severity when the rule's decision is broken by a component that exists; findings on
    /// `declared` or `desired` components may be reported lower (see [`crate::check`]).
    pub severity: Severity,
    /// Static, live, or both.
    pub kind: RuleKind,
    /// A one-line title.
    pub title: &'static str,
    /// The sentences of the source documents the rule comes from; the first is the main one.
    pub citations: &'static [Citation],
    /// What to do when the rule fires.
    pub remediation: &'static str,
}

impl RuleInfo {
    /// The main citation.
    pub fn citation(&self) -> &'static Citation {
        &self.citations[0]
    }
}

/// Every rule, in catalogue order.
pub fn catalogue() -> &'static [RuleInfo] {
    catalogue::CATALOGUE
}

/// The rule with this id, if it exists (case-insensitive).
pub fn lookup(id: &str) -> Option<&'static RuleInfo> {
    id.parse::<RuleId>().ok().map(|id| id.info())
}
