//! `check(&Topology) -> Report`: runs every static rule and applies the file's suppressions.
//!
//! Checking never fails: whatever the topology holds, the answer is a [`Report`] (a topology that
//! could not be loaded never reaches this point; the loader reports that).
//!
//! # Suppressions
//!
//! A suppression of the topology file names a rule, a subject (a component id, or `*` for every
//! subject) and a reason, and may give an expiry date. A finding covered by a suppression in force
//! stays in the report, marked suppressed with the reason; it no longer fails CI. After the expiry
//! date the finding counts again and the report carries a note saying the suppression expired.
//! A suppression naming an unknown rule, or matching no finding, also yields a note, so stale
//! suppressions do not pile up unseen.

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt};

use crate::finding::{Finding, Location, Suppressed};
use crate::model::{Suppression, Topology};
use crate::report::{Note, Report};
use crate::rules::RuleId;
use crate::rules::checks::{Ctx, STATIC_CHECKS, Sink};

/// The file name shown in locations when the topology was built in code rather than loaded.
pub const BUILT_IN_CODE: &str = "<topology built in code>";

/// How [`run`] checks a topology.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckOptions {
    /// The day suppressions are judged against: one whose expiry date is before it no longer
    /// applies.
    pub today: jiff::civil::Date,
}

impl CheckOptions {
    /// Options that judge suppressions as of `today`.
    pub fn on(today: jiff::civil::Date) -> Self {
        Self { today }
    }
}

impl Default for CheckOptions {
    /// Suppressions judged as of today (UTC).
    fn default() -> Self {
        Self::on(today())
    }
}

/// Checks run after the static ones, into the same report: the extension point through which
/// the `live` feature adds its rules (drift and the live rules) without a second copy of the
/// static loop, the suppressions or the report's counts.
pub trait ExtraChecks {
    /// How many rules these checks add to the report's "rules checked".
    fn rule_count(&self) -> usize;

    /// The findings (with locations in `file`) and the notes of these checks.
    fn run(&self, topology: &Topology, file: &str) -> ExtraFindings;
}

/// What one [`ExtraChecks`] adds to the report.
#[derive(Debug, Default)]
pub struct ExtraFindings {
    /// Its findings, to which the file's suppressions then apply.
    pub findings: Vec<Finding>,
    /// Its notes.
    pub notes: Vec<Note>,
}

/// Checks a topology against every static rule of the catalogue, as of today (UTC).
///
/// # Examples
///
/// ```
/// let report = cpps_topology::check::check(&cpps_topology::model::Topology::new());
/// assert_eq!(report.summary.errors, 0);
/// ```
pub fn check(topology: &Topology) -> Report {
    run(topology, &CheckOptions::default(), &[])
}

/// Checks a topology as of `today`: suppressions whose expiry date is before `today` no longer
/// apply.
pub fn check_on(topology: &Topology, today: jiff::civil::Date) -> Report {
    run(topology, &CheckOptions::on(today), &[])
}

/// Runs every static rule, then each of `extra_checks`, applies the file's suppressions to all
/// their findings and builds one [`Report`]: the one loop every check of a topology goes
/// through ([`check`], `cargo xtask check`, and the live audit).
pub fn run(
    topology: &Topology,
    options: &CheckOptions,
    extra_checks: &[&dyn ExtraChecks],
) -> Report {
    let file = topology
        .source
        .as_ref()
        .map_or(BUILT_IN_CODE, |s| s.name.as_str());
    let ctx = Ctx::new(topology);
    let mut sink = Sink::new(topology, file);
    for (rule, run) in STATIC_CHECKS {
        sink.set_rule(*rule);
        run(&ctx, &mut sink);
    }
    let mut findings = sink.into_findings();
    let mut extra_notes = Vec::new();
    let mut rules_checked = STATIC_CHECKS.len();
    for extra in extra_checks {
        let added = extra.run(topology, file);
        findings.extend(added.findings);
        extra_notes.extend(added.notes);
        rules_checked += extra.rule_count();
    }
    let mut notes = Vec::new();
    apply_suppressions(topology, file, options.today, &mut findings, &mut notes);
    notes.extend(extra_notes);
    Report::new(
        file,
        findings,
        notes,
        topology.state_counts(),
        rules_checked,
    )
}

fn apply_suppressions(
    topology: &Topology,
    file: &str,
    today: jiff::civil::Date,
    findings: &mut [Finding],
    notes: &mut Vec<Note>,
) {
    let location = |s: &Suppression| {
        s.location
            .is_known()
            .then(|| Location::new(file, s.location.line, s.location.column))
    };
    // (rule, subject) -> suppressions; `*` subjects under (rule, "*").
    let mut by_key: HashMap<(RuleId, &str), Vec<usize>> = HashMap::new();
    for (i, s) in topology.suppressions().iter().enumerate() {
        match s.rule.parse::<RuleId>() {
            Ok(rule) => by_key
                .entry((rule, s.subject.as_str()))
                .or_default()
                .push(i),
            Err(unknown) => notes.push(Note {
                message: format!("suppression of `{}` for `{}`: {unknown}", s.rule, s.subject),
                location: location(s),
            }),
        }
    }
    let mut used = vec![false; topology.suppressions().len()];
    let mut expired_seen = vec![false; topology.suppressions().len()];
    for finding in findings.iter_mut() {
        let candidates = [
            by_key.get(&(finding.rule, finding.subject.id())),
            by_key.get(&(finding.rule, "*")),
        ];
        let mut in_force = None;
        for &i in candidates.into_iter().flatten().flatten() {
            let s = &topology.suppressions()[i];
            used[i] = true;
            if s.expires.is_none_or(|e| today <= e) {
                in_force = Some(i);
                break;
            }
            expired_seen[i] = true;
        }
        if let Some(i) = in_force {
            let s = &topology.suppressions()[i];
            finding.suppressed = Some(Suppressed {
                justification: s.reason.clone(),
                expires: s.expires,
                location: location(s),
            });
        }
    }
    for (i, s) in topology.suppressions().iter().enumerate() {
        if expired_seen[i] {
            let expires = s.expires.map(|d| d.to_string()).unwrap_or_default();
            notes.push(Note {
                message: format!(
                    "suppression of {} for {} expired on {expires}; its findings count again ({})",
                    s.rule, s.subject, s.reason
                ),
                location: location(s),
            });
        } else if !used[i] && s.rule.parse::<RuleId>().is_ok() {
            notes.push(Note {
                message: format!(
                    "suppression of {} for {} matches no finding; remove it",
                    s.rule, s.subject
                ),
                location: location(s),
            });
        }
    }
}

/// What `cargo xtask check` should print and exit with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    /// The rendered report (empty when the topology could not be loaded).
    pub stdout: String,
    /// Diagnostics: the loader's rustc-like error, or nothing.
    pub stderr: String,
    /// 0: no unsuppressed error (nor warning with `deny_warnings`); 1: there are; 2: the
    /// topology file could not be read or parsed.
    pub exit_code: u8,
}

/// Exit code: the check ran and nothing fails CI.
pub const EXIT_OK: u8 = 0;
/// Exit code: unsuppressed errors (or warnings, when denied).
pub const EXIT_FINDINGS: u8 = 1;
/// Exit code: the topology file cannot be read or parsed.
pub const EXIT_INVALID: u8 = 2;

impl CheckRun {
    /// A topology (or other input) that could not be used: nothing on stdout, `stderr` as the
    /// diagnostics, [`EXIT_INVALID`].
    pub fn invalid(stderr: String) -> Self {
        Self {
            stdout: String::new(),
            stderr,
            exit_code: EXIT_INVALID,
        }
    }

    /// `report` rendered in `format`, exiting [`EXIT_FINDINGS`] when it fails CI (with
    /// `deny_warnings`, warnings fail too) and [`EXIT_OK`] otherwise.
    pub fn from_report(
        report: &Report,
        format: crate::report::Format,
        deny_warnings: bool,
    ) -> Self {
        Self {
            stdout: report.render(format),
            stderr: String::new(),
            exit_code: if report.fails(deny_warnings) {
                EXIT_FINDINGS
            } else {
                EXIT_OK
            },
        }
    }
}

/// Loads `topology` (or the embedded default topology when `None`), checks it as of `today` with
/// `extra_checks` (such as [`crate::iac::IacChecks`] for `--iac`), and renders the report in
/// `format`: the whole of `cargo xtask check` except printing, its one library entry point.
pub fn run_check(
    topology: Option<&std::path::Path>,
    extra_checks: &[&dyn ExtraChecks],
    format: crate::report::Format,
    deny_warnings: bool,
    today: jiff::civil::Date,
) -> CheckRun {
    match crate::load::load_or_default(topology) {
        Err(error) => CheckRun::invalid(error.render()),
        Ok(topology) => {
            let report = run(&topology, &CheckOptions::on(today), extra_checks);
            CheckRun::from_report(&report, format, deny_warnings)
        }
    }
}

/// Today's date in UTC, the date suppressions are judged against by [`check`].
pub fn today() -> jiff::civil::Date {
    jiff::Timestamp::now()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
}
