//! Live observation: what the real systems say, compared with the declared topology
//! (feature `live`).
//!
//! The documents insist that every claim is "validated in production", "declared in IaC" or
//! "desired", and that mixing them is "o erro mais comum". This module decides the state by
//! evidence:
//!
//! 1. [`endpoints`]: where each site's systems are (a YAML file without secrets, or the
//!    clients' environment variables) → [`sources::Sources`];
//! 2. [`observe`]: every site at once, a bounded number of sources in flight and one
//!    deadline; a source that fails is reported in its own site and hides nothing else;
//! 3. [`diff()`]: per component, the evidence against the declared state;
//! 4. [`audit`]: the static findings, the drift and the live rules in one
//!    [`crate::report::Report`], suppressions applied;
//! 5. the runbooks, plans first and executed only when asked: [`runbook`] (ADR-009's driver
//!    update, its LINSTOR snapshots) and [`runbook_ha`] (PVE-003: an HA resource for each guest
//!    declared `ha: true`, waited on until the HA manager shows it; `audit --fix`).
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use cpps_topology::live::{self, endpoints::{ClientOptions, Endpoints}};
//!
//! let topology = cpps_topology::default_topology();
//! let endpoints = Endpoints::load("endpoints.yaml".as_ref())?;
//! endpoints.check_against(&topology)?;
//! let sources = endpoints.sources(&ClientOptions::default(), &|k| std::env::var(k).ok())?;
//! let observed = live::observe(&sources, &live::ObserveOptions::default()).await;
//! let audit = live::audit(&topology, &observed, &live::LiveOptions::default());
//! print!("{}", audit.report.render(cpps_topology::report::Format::Text));
//! # Ok(())
//! # }
//! ```

pub mod diff;
pub mod endpoints;
pub mod facts;
mod index;
pub mod metrics;
mod observe;
pub mod rules;
pub mod runbook;
pub mod runbook_ha;
mod source;
pub mod sources;
mod systems;

// One room per live system: its source, facts, lookups, part of a site's comparison and live
// rules. The public paths are the façades above (`facts`, `sources`).
mod gpu;
mod kube;
mod linstor;
mod pbs;
mod pve;
mod vyos;

pub use diff::Diff;
pub use facts::{Observation, SiteObservation, SourceFailure, SourceKind, Sourced};
pub use observe::{
    DEFAULT_SOURCE_CONCURRENCY, NoProgress, ObserveOptions, Progress, observe, observe_with,
};
pub use rules::LiveOptions;
pub use systems::diff;

use crate::check::{CheckOptions, ExtraChecks, ExtraFindings};
use crate::model::Topology;
use crate::report::{Note, Report};

/// The outcome of an audit: one report, and the comparison it was built from.
#[derive(Debug, Clone)]
pub struct Audit {
    /// Static findings, drift and live rules, suppressions applied.
    pub report: Report,
    /// Evidence per component and the differences.
    pub diff: Diff,
}

/// The live rules over one observation, as [`crate::check::run`]'s extra checks.
struct LiveChecks<'a> {
    observed: &'a Observation,
    diff: &'a Diff,
    options: LiveOptions,
}

impl ExtraChecks for LiveChecks<'_> {
    fn rule_count(&self) -> usize {
        systems::live_check_count()
    }

    fn run(&self, topology: &Topology, file: &str) -> ExtraFindings {
        let findings =
            systems::live_findings(topology, file, self.observed, self.diff, self.options);
        // A component live but not yet `validated` is not a broken decision: the report says
        // the evidence supports promoting it.
        let notes = self
            .diff
            .drift
            .iter()
            .filter(|d| matches!(d.kind, diff::DriftKind::LiveButNotValidated))
            .map(|d| Note {
                message: d.message.clone(),
                location: None,
            })
            .collect();
        ExtraFindings { findings, notes }
    }
}

/// The static rules, the drift and the live rules over `observed`, in one report, with the
/// topology file's suppressions applied to all of them (judged as of `options.now`).
pub fn audit(topology: &Topology, observed: &Observation, options: &LiveOptions) -> Audit {
    audit_with(topology, observed, options, &[])
}

/// [`audit`] with `extra` checks in the same report (such as the IaC rules of
/// [`crate::iac::IacChecks`]).
pub fn audit_with(
    topology: &Topology,
    observed: &Observation,
    options: &LiveOptions,
    extra: &[&dyn ExtraChecks],
) -> Audit {
    let diff = diff(topology, observed);
    let today = jiff::Timestamp::from_second(options.now)
        .unwrap_or_else(|_| jiff::Timestamp::now())
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date();
    let live = LiveChecks {
        observed,
        diff: &diff,
        options: *options,
    };
    let mut checks: Vec<&dyn ExtraChecks> = vec![&live];
    checks.extend_from_slice(extra);
    let report = crate::check::run(topology, &CheckOptions::on(today), &checks);
    Audit { report, diff }
}
