//! The three sources side by side: what the topology file claims, what the IaC declares and
//! what the live systems show, with the state the evidence supports.

use std::fmt::Write as _;

use serde::Serialize;

use super::checks::{covered, resolve};
use super::{Evidence, EvidenceKind};
use crate::model::{State, Topology};

cpps_named_enum::named_enum! {
    /// What the live systems say of a component, for [`sources_table`].
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    #[non_exhaustive]
    pub enum LiveSeen {
        /// A source that answered shows it.
        Present => "present",
        /// A source that answered does not show it.
        Absent => "absent",
        /// Its source failed.
        Unknown => "unknown",
        /// No live source was asked, or none can show it.
        NotObserved => "not observed",
    }
}

cpps_named_enum::named_enum! {
    /// The state the evidence supports.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    #[non_exhaustive]
    pub enum Supported {
        /// Seen live, and declared in the IaC where an IaC input covers its kind.
        Validated => "validated",
        /// Seen live, and the IaC that covers its kind does not declare it: it works, made by hand.
        ValidatedManual => "validated (manual)",
        /// In the IaC, not seen live (or not observed).
        Declared => "declared",
        /// Neither in the IaC nor seen live.
        Desired => "desired",
        /// Not in the IaC and its live source failed: nothing can be said.
        Unknown => "unknown",
    }
}

/// Whether the evidence bears the claim out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// The evidence supports the claimed state.
    Agrees,
    /// The evidence supports another state.
    Contradicts,
    /// The evidence given cannot decide (a validated claim no live source was asked about, a
    /// kind no IaC input covers).
    Unverified,
}

impl Verdict {
    /// The mark of a row: ` ` agrees, `≠` contradicts, `?` unverified.
    pub fn mark(self) -> char {
        match self {
            Self::Agrees => ' ',
            Self::Contradicts => '≠',
            Self::Unverified => '?',
        }
    }
}

fn verdict(claimed: State, live: LiveSeen, in_iac: bool, covered: bool) -> Verdict {
    use LiveSeen::{Absent, NotObserved, Present, Unknown};
    match (claimed, live) {
        (State::Validated, Present) => Verdict::Agrees,
        (State::Validated, Absent) => Verdict::Contradicts,
        (State::Validated, Unknown | NotObserved) => Verdict::Unverified,
        // Live but claimed declared: the evidence supports promoting it.
        (State::Declared, Present) => Verdict::Contradicts,
        (State::Declared, _) if in_iac => Verdict::Agrees,
        (State::Declared, _) if covered => Verdict::Contradicts,
        (State::Declared, _) => Verdict::Unverified,
        (State::Desired, Present) => Verdict::Contradicts,
        (State::Desired, _) if in_iac => Verdict::Contradicts,
        (State::Desired, _) => Verdict::Agrees,
    }
}

/// One component, three sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourcesRow {
    /// The component id.
    pub id: String,
    /// Its kind (`guest`, `host`, …).
    pub kind: &'static str,
    /// Its site.
    pub site: Option<String>,
    /// What the topology file claims.
    pub claimed: State,
    /// The IaC inputs that declare it (`pulumi-export`, `ansible`, …), each once.
    pub iac: Vec<EvidenceKind>,
    /// What the live systems say.
    pub live: LiveSeen,
    /// The state the evidence supports.
    pub supported: Supported,
    /// Whether that bears the claim out.
    pub verdict: Verdict,
}

/// The rows for every component the IaC declares, whose kind the evidence given decides, or
/// that a live source can show; `live` says what the live systems show of a component id.
pub fn sources_table(
    topology: &Topology,
    evidence: &Evidence,
    live: &dyn Fn(&str) -> LiveSeen,
) -> Vec<SourcesRow> {
    let resolved = resolve(topology, evidence);
    let mut rows = Vec::new();
    for c in topology.components() {
        let mut iac: Vec<EvidenceKind> = resolved
            .by_component
            .get(c.id_str())
            .map(|ds| ds.iter().map(|d| d.origin.kind).collect())
            .unwrap_or_default();
        iac.sort();
        iac.dedup();
        let seen = live(c.id_str());
        let is_covered = covered(topology, evidence, c);
        if iac.is_empty() && seen == LiveSeen::NotObserved && !is_covered {
            continue;
        }
        let supported = match (seen, iac.is_empty()) {
            (LiveSeen::Present, false) => Supported::Validated,
            // "By hand" only where an IaC input covers the kind and does not declare it.
            (LiveSeen::Present, true) if is_covered => Supported::ValidatedManual,
            (LiveSeen::Present, true) => Supported::Validated,
            (_, false) => Supported::Declared,
            (LiveSeen::Unknown, true) => Supported::Unknown,
            (_, true) => Supported::Desired,
        };
        rows.push(SourcesRow {
            id: c.id_str().to_owned(),
            kind: crate::finding::kind_name(c.kind()),
            site: topology.site_of(c).map(|s| s.to_string()),
            claimed: c.meta().state,
            verdict: verdict(c.meta().state, seen, !iac.is_empty(), is_covered),
            iac,
            live: seen,
            supported,
        });
    }
    rows
}

/// The rows as a text table; `≠` marks a row whose evidence contradicts the claim, `?` one it
/// cannot decide.
pub fn render_table(rows: &[SourcesRow]) -> String {
    let iac_text = |r: &SourcesRow| {
        if r.iac.is_empty() {
            "-".to_owned()
        } else {
            r.iac
                .iter()
                .map(|k| k.as_str())
                .collect::<Vec<_>>()
                .join("+")
        }
    };
    let width = |f: &dyn Fn(&SourcesRow) -> usize, min: usize| {
        rows.iter().map(f).max().unwrap_or(0).max(min)
    };
    let w_id = width(&|r| r.id.len() + r.kind.len() + 3, 9);
    let w_iac = width(&|r| iac_text(r).len(), 3);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "  {:<w_id$}  {:<9}  {:<w_iac$}  {:<12}  evidence supports",
        "component", "topology", "IaC", "live"
    );
    for r in rows {
        let mark = r.verdict.mark();
        let _ = writeln!(
            out,
            "{mark} {:<w_id$}  {:<9}  {:<w_iac$}  {:<12}  {}",
            format!("{} ({})", r.id, r.kind),
            r.claimed.as_str(),
            iac_text(r),
            r.live.as_str(),
            r.supported.as_str()
        );
    }
    out
}
