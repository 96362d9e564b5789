//! What the tests share: loading a fixture text, checking it on a fixed day, the findings as
//! `(rule, subject, severity)` triples (counted, and how two reports differ) or as
//! `severity subject message` lines, the rule tests' fixture and variant checks, finding one
//! finding, textual edits that must match exactly once, and the live tests' estate and closed
//! port.

// Each test file uses part of this module.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use cpps_topology::Topology;
use cpps_topology::check::check_on;
use cpps_topology::load::load_str;
use cpps_topology::report::{Finding, Format, Report, Severity};

/// A textual edit: `(find, replace)`; `find` must occur exactly once in the text it edits.
pub(crate) type Edit = (&'static str, &'static str);

/// The day every check runs on (suppressions' expiry depends on it).
pub(crate) fn today() -> jiff::civil::Date {
    jiff::civil::date(2026, 5, 2)
}

/// Loads `text` as the file `name`; a load error fails the test with its diagnostic.
pub(crate) fn load(name: &str, text: &str) -> Topology {
    load_str(name, text).unwrap_or_else(|e| panic!("{name} does not load:\n{}", e.render()))
}

/// Loads `text` as the file `name` (a load error fails the test with its diagnostic) and checks
/// it on [`today`].
pub(crate) fn run(text: &str, name: &str) -> Report {
    check_on(&load(name, text), today())
}

/// The finding of `rule` on `subject`, if the report has one.
pub(crate) fn finding<'r>(report: &'r Report, rule: &str, subject: &str) -> Option<&'r Finding> {
    report
        .findings
        .iter()
        .find(|f| f.rule.as_str() == rule && f.subject.id() == subject)
}

/// The finding of `rule` on `subject`; its absence fails the test, showing the whole report.
pub(crate) fn find<'r>(report: &'r Report, rule: &str, subject: &str) -> &'r Finding {
    finding(report, rule, subject).unwrap_or_else(|| {
        panic!(
            "no {rule} on {subject} in:\n{}",
            report.render(Format::Text)
        )
    })
}

/// The line of `text` that `finding` points at; a line 0 or past the end fails the test.
pub(crate) fn line_at<'t>(text: &'t str, finding: &Finding) -> &'t str {
    (finding.location.line as usize)
        .checked_sub(1)
        .and_then(|index| text.lines().nth(index))
        .unwrap_or_else(|| panic!("{} points at no line of the text", finding.location))
}

/// The findings of `rule`, in their order.
pub(crate) fn of_rule<'f>(findings: &'f [Finding], rule: &str) -> Vec<&'f Finding> {
    findings
        .iter()
        .filter(|f| f.rule.as_str() == rule)
        .collect()
}

/// Each finding as `severity subject message`.
pub(crate) fn messages(findings: &[&Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{} {} {}", f.severity, f.subject, f.message))
        .collect()
}

/// Each finding as `subject message`.
pub(crate) fn subject_messages(findings: &[&Finding]) -> Vec<String> {
    findings
        .iter()
        .map(|f| format!("{} {}", f.subject, f.message))
        .collect()
}

/// The findings of `rule` as `severity subject message`, sorted.
pub(crate) fn rule_messages(report: &Report, rule: &str) -> Vec<String> {
    let mut out = messages(&of_rule(&report.findings, rule));
    out.sort();
    out
}

/// The text of `path` under the crate's `docs/` (`seeds/…`, `adr-invariants.md`, …).
pub(crate) fn document(path: &str) -> String {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs")
        .join(path);
    std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("cannot read {} ({e})", file.display()))
}

/// The GPU, multi-cluster and GitOps rules: their fixtures and variants are in
/// `tests/rules_gpu_mesh.rs`, those of the other static rules in `tests/rules.rs`.
pub(crate) const GPU_MESH_RULES: &[&str] = &[
    "GPU-001",
    "GPU-004",
    "GPU-006",
    "GPU-007",
    "GPU-008",
    "MESH-002",
    "MESH-003",
    "GITOPS-001",
];

/// The two-site estate the live tests observe.
pub(crate) const LIVE_ESTATE: &str = include_str!("../fixtures/live/two-sites.yaml");

/// [`LIVE_ESTATE`], loaded.
pub(crate) fn live_estate() -> Topology {
    load("tests/fixtures/live/two-sites.yaml", LIVE_ESTATE)
}

/// A port of 127.0.0.1 on which nothing listens (one that was just free).
pub(crate) fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
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

/// A variant of the embedded default topology: one textual change (it must match the default
/// exactly once) that turns findings on or off. Users run the check on *their* file as it
/// evolves, so each rule is shown to follow a small change of the real topology.
pub(crate) struct Variant {
    /// The change.
    pub(crate) edit: Edit,
    /// Every `(rule, subject, severity)` the variant reports less often than the default, of
    /// every rule (counted).
    pub(crate) disappears: &'static [(&'static str, &'static str, Severity)],
    /// Every `(rule, subject, severity)` the variant reports more often than the default, of
    /// every rule (counted).
    pub(crate) appears: &'static [(&'static str, &'static str, Severity)],
}

/// Every finding as `(rule, subject)`.
pub(crate) fn pairs(report: &Report) -> BTreeSet<(String, String)> {
    found(report)
        .into_iter()
        .map(|(rule, subject, _)| (rule, subject))
        .collect()
}

/// Findings as `(rule, subject, severity)`, each with how many times it is reported.
pub(crate) type Counted = BTreeMap<(String, String, Severity), usize>;

/// Every finding of `report`, counted.
pub(crate) fn counted(report: &Report) -> Counted {
    let mut out = Counted::new();
    for f in &report.findings {
        *out.entry((f.rule.to_string(), f.subject.id().to_owned(), f.severity))
            .or_default() += 1;
    }
    out
}

/// `expect` as [`counted`] returns it: a triple listed twice counts two.
pub(crate) fn counted_list(expect: &[(&str, &str, Severity)]) -> Counted {
    let mut out = Counted::new();
    for (rule, subject, severity) in expect {
        *out.entry(((*rule).to_owned(), (*subject).to_owned(), *severity))
            .or_default() += 1;
    }
    out
}

/// How `after` differs from `before`: the findings it reports more often (`appeared`) and
/// those it reports less often (`disappeared`), each counted by the difference.
pub(crate) fn changes(before: &Counted, after: &Counted) -> (Counted, Counted) {
    let more = |a: &Counted, b: &Counted| -> Counted {
        a.iter()
            .filter_map(|(key, n)| {
                let less = b.get(key).copied().unwrap_or(0);
                (*n > less).then(|| (key.clone(), n - less))
            })
            .collect()
    };
    (more(after, before), more(before, after))
}

/// Checks the variant `what` of the default topology, whose findings are `default`: `edit` must
/// make exactly `appears` appear and `disappears` disappear (counted), among the findings of the
/// rules `compared` accepts. Each failure is pushed to `failures`.
pub(crate) fn check_default_variant(
    what: &str,
    edit: Edit,
    appears: &[(&str, &str, Severity)],
    disappears: &[(&str, &str, Severity)],
    (default, compared): (&Counted, &dyn Fn(&str) -> bool),
    failures: &mut Vec<String>,
) {
    let text = apply_to(cpps_topology::DEFAULT_TOPOLOGY_YAML, &[edit], what);
    let (appeared, disappeared) = changes(default, &counted(&run(&text, what)));
    let of_compared = |all: Counted| -> Counted {
        all.into_iter()
            .filter(|((rule, _, _), _)| compared(rule))
            .collect()
    };
    for (which, got, want) in [
        ("appeared", of_compared(appeared), appears),
        ("disappeared", of_compared(disappeared), disappears),
    ] {
        if got != counted_list(want) {
            failures.push(format!("{what}: {which} {got:?}, expected {want:?}"));
        }
    }
}

/// Checks `rule`'s variants of the default topology (whose findings are `default`): each one
/// must make exactly its `appears` appear and its `disappears` disappear, of every rule
/// (counted, see [`check_default_variant`]), and the rule itself must be among them. Each
/// failure is pushed to `failures`.
pub(crate) fn check_variants(
    rule: &str,
    variants: &[Variant],
    default: &Counted,
    failures: &mut Vec<String>,
) {
    for (i, v) in variants.iter().enumerate() {
        let what = format!("{rule} variant {i}");
        check_default_variant(
            &what,
            v.edit,
            v.appears,
            v.disappears,
            (default, &|_| true),
            failures,
        );
        if !v
            .disappears
            .iter()
            .chain(v.appears)
            .any(|(r, _, _)| *r == rule)
        {
            failures.push(format!("{what}: the variant must flip the rule itself"));
        }
    }
}

/// A rule against the rule tests' base fixture and against the default topology: the `pass`
/// edits of the base yield no finding of the rule, the `fail` edits exactly `expect` (which must
/// include the rule itself), and each of `variants` (at least one) flips the rule on the default
/// and changes exactly the findings it lists.
pub(crate) struct RuleCase {
    /// The rule.
    pub(crate) rule: &'static str,
    /// Edits of the base on which the rule does not fire.
    pub(crate) pass: &'static [Edit],
    /// Edits of the base that yield exactly `expect`.
    pub(crate) fail: &'static [Edit],
    /// `(rule, subject, severity)` of every finding of the failing fixture.
    pub(crate) expect: &'static [(&'static str, &'static str, Severity)],
    /// Variants of the default topology.
    pub(crate) variants: &'static [Variant],
}

/// What a [`RuleCase`]'s passing fixture may still report.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pass {
    /// No finding at all.
    Clean,
    /// No finding of the case's rule (other rules may fire).
    WithoutTheRule,
}

/// Checks the fixture `what`, `base` with `edits`: it must yield exactly `expect` (counted: a
/// finding listed twice must be reported twice), each finding located in the fixture's file.
/// Each failure is pushed to `failures`.
pub(crate) fn check_fixture(
    what: &str,
    (base, edits): (&str, &[Edit]),
    expect: &[(&str, &str, Severity)],
    failures: &mut Vec<String>,
) {
    let report = run(&apply_to(base, edits, what), what);
    let got = counted(&report);
    let want = counted_list(expect);
    if got != want {
        failures.push(format!("{what}: expected {want:?}, got {got:?}"));
    }
    for f in &report.findings {
        if f.location.line < 1 || f.location.file != what {
            failures.push(format!("{what}: bad location {}", f.location));
        }
    }
}

/// Checks `rule` against edits of `base`: the `pass` edits yield what `pass_means` allows, the
/// `fail` edits exactly `expect` (which must include the rule itself; see [`check_fixture`]).
/// Each failure is pushed to `failures`.
pub(crate) fn check_pass_fail(
    rule: &str,
    (pass, fail): (&[Edit], &[Edit]),
    expect: &[(&str, &str, Severity)],
    (base, pass_means): (&str, Pass),
    failures: &mut Vec<String>,
) {
    let what = format!("{rule} pass");
    let passing = found(&run(&apply_to(base, pass, &what), &what));
    let fired = match pass_means {
        Pass::Clean => !passing.is_empty(),
        Pass::WithoutTheRule => passing.iter().any(|(r, _, _)| r == rule),
    };
    if fired {
        failures.push(format!("{what}: unexpected findings {passing:?}"));
    }
    let what = format!("{rule} fail");
    check_fixture(&what, (base, fail), expect, failures);
    if !expect.iter().any(|(r, _, _)| *r == rule) {
        failures.push(format!("{what}: must fire the rule itself"));
    }
}

/// Checks each of `cases` over `base` (see [`RuleCase`]), pushing every failure to `failures`.
pub(crate) fn check_rule_cases(
    cases: &[RuleCase],
    base: &str,
    pass_means: Pass,
    failures: &mut Vec<String>,
) {
    let default = counted(&run(cpps_topology::DEFAULT_TOPOLOGY_YAML, "cpps.yaml"));
    for case in cases {
        check_pass_fail(
            case.rule,
            (case.pass, case.fail),
            case.expect,
            (base, pass_means),
            failures,
        );
        if case.variants.is_empty() {
            failures.push(format!("{}: no variant of the default", case.rule));
        }
        check_variants(case.rule, case.variants, &default, failures);
    }
}

/// A running guest on pve-ippri-31 as the live PVE facts hold it: a container from VMID 200
/// on, else a VM; no HA, no volumes.
#[cfg(feature = "live")]
pub(crate) fn running_guest(vmid: u32, name: &str) -> cpps_topology::live::facts::PveGuest {
    use cpps_topology::live::facts::{PveGuest, PveGuestKind};
    PveGuest {
        vmid,
        name: Some(name.to_owned()),
        node: "pve-ippri-31".to_owned(),
        kind: if vmid >= 200 {
            PveGuestKind::Lxc
        } else {
            PveGuestKind::Vm
        },
        status: "running".to_owned(),
        privileged: None,
        ha: false,
        ha_state: None,
        ha_request: None,
        volumes: Vec::new(),
    }
}
