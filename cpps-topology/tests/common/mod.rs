//! What the rule tests share: loading a fixture text, checking it on a fixed day, the findings
//! as `(rule, subject, severity)` triples, and textual edits that must match exactly once.

// Each test file uses part of this module.
#![allow(dead_code)]

use std::collections::BTreeSet;

use cpps_topology::check::check_on;
use cpps_topology::load::load_str;
use cpps_topology::report::{Report, Severity};

/// A textual edit: `(find, replace)`; `find` must occur exactly once in the text it edits.
pub(crate) type Edit = (&'static str, &'static str);

/// The day every check runs on (suppressions' expiry depends on it).
pub(crate) fn today() -> jiff::civil::Date {
    jiff::civil::date(2026, 5, 2)
}

/// Loads `text` as the file `name` (a load error fails the test with its diagnostic) and checks
/// it on [`today`].
pub(crate) fn run(text: &str, name: &str) -> Report {
    let topology =
        load_str(name, text).unwrap_or_else(|e| panic!("{name} does not load:\n{}", e.render()));
    check_on(&topology, today())
}

/// Every finding as `(rule, subject, severity)`.
pub(crate) fn found(report: &Report) -> BTreeSet<(String, String, Severity)> {
    report
        .findings
        .iter()
        .map(|f| (f.rule.to_string(), f.subject.id().to_owned(), f.severity))
        .collect()
}

/// `base` with `edits` applied in order; each edit's target must occur exactly once (so a change
/// to the base cannot silently turn an edit into a no-op). `what` names the fixture in the
/// failure message.
pub(crate) fn apply_to(base: &str, edits: &[(&str, &str)], what: &str) -> String {
    let mut text = base.to_owned();
    for (find, replace) in edits {
        let n = text.matches(find).count();
        assert_eq!(
            n, 1,
            "{what}: edit target must occur exactly once, found {n} times: {find:?}"
        );
        text = text.replacen(find, replace, 1);
    }
    text
}
