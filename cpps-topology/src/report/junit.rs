//! JUnit XML: one `<testsuite>` per static rule, one `<testcase>` per rule × subject.
//!
//! An unsuppressed error or warning is a `<failure>`, a suppressed finding is `<skipped>` with the
//! justification, an info finding passes with its message in `<system-out>`. A rule with no
//! finding has one passing test case named `all components`, so CI shows that it ran.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{Finding, Report, Severity, Subject};
use crate::rules::{self, RuleId};

pub(super) fn render(report: &Report) -> String {
    // rule -> subject -> findings; rules in catalogue order, subjects sorted.
    let mut by_rule: BTreeMap<RuleId, BTreeMap<&Subject, Vec<&Finding>>> = BTreeMap::new();
    for finding in &report.findings {
        by_rule
            .entry(finding.rule)
            .or_default()
            .entry(&finding.subject)
            .or_default()
            .push(finding);
    }

    let mut suites = String::new();
    let (mut total_tests, mut total_failures, mut total_skipped) = (0usize, 0usize, 0usize);
    for rule in rules::catalogue() {
        let cases = by_rule.remove(&rule.id);
        if !rule.kind.has_static_part() && cases.is_none() {
            continue;
        }
        let mut body = String::new();
        let (mut tests, mut failures, mut skipped) = (0usize, 0usize, 0usize);
        match cases {
            None => {
                tests += 1;
                let _ = writeln!(
                    body,
                    "    <testcase classname=\"{}\" name=\"all components\" file=\"{}\"/>",
                    escape(rule.id.as_str()),
                    escape(&report.file)
                );
            }
            Some(cases) => {
                for (subject, findings) in cases {
                    tests += 1;
                    let outcome = case(&mut body, rule.id, subject, &findings);
                    match outcome {
                        Outcome::Failed => failures += 1,
                        Outcome::Skipped => skipped += 1,
                        Outcome::Passed => {}
                    }
                }
            }
        }
        total_tests += tests;
        total_failures += failures;
        total_skipped += skipped;
        let _ = writeln!(
            suites,
            "  <testsuite name=\"{}: {}\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"{skipped}\">",
            escape(rule.id.as_str()),
            escape(rule.title)
        );
        suites.push_str(&body);
        suites.push_str("  </testsuite>\n");
    }

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"cpps-topology check {}\" tests=\"{total_tests}\" failures=\"{total_failures}\" errors=\"0\" skipped=\"{total_skipped}\">",
        escape(&report.file)
    );
    out.push_str(&suites);
    out.push_str("</testsuites>\n");
    out
}

enum Outcome {
    Passed,
    Failed,
    Skipped,
}

fn case(out: &mut String, rule: RuleId, subject: &Subject, findings: &[&Finding]) -> Outcome {
    let first = findings[0];
    let _ = writeln!(
        out,
        "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" line=\"{}\">",
        escape(rule.as_str()),
        escape(&subject.to_string()),
        escape(&first.location.file),
        first.location.line
    );
    let failing: Vec<&&Finding> = findings
        .iter()
        .filter(|f| !f.is_suppressed() && f.severity >= Severity::Warning)
        .collect();
    let info = rule.info();
    let outcome = if let Some(worst) = failing.iter().max_by_key(|f| f.severity) {
        let mut text = String::new();
        for finding in &failing {
            let _ = writeln!(
                text,
                "{} at {}: {}",
                finding.severity, finding.location, finding.message
            );
        }
        let _ = writeln!(text, "source: {}", info.citation());
        let _ = writeln!(text, "fix: {}", info.remediation);
        let _ = writeln!(
            out,
            "      <failure type=\"{}\" message=\"{}\">{}</failure>",
            worst.severity,
            escape(&worst.message),
            escape(&text)
        );
        Outcome::Failed
    } else if findings.iter().all(|f| f.is_suppressed()) {
        let reasons: Vec<&str> = findings
            .iter()
            .filter_map(|f| f.suppressed.as_ref().map(|s| s.justification.as_str()))
            .collect();
        let _ = writeln!(
            out,
            "      <skipped message=\"suppressed: {}\"/>",
            escape(&reasons.join("; "))
        );
        Outcome::Skipped
    } else {
        Outcome::Passed
    };
    let mut system_out = String::new();
    for finding in findings {
        if finding.severity == Severity::Info || finding.is_suppressed() {
            let _ = writeln!(
                system_out,
                "{}{} at {}: {}",
                finding.severity,
                if finding.is_suppressed() {
                    " (suppressed)"
                } else {
                    ""
                },
                finding.location,
                finding.message
            );
        }
    }
    if !system_out.is_empty() {
        let _ = writeln!(
            out,
            "      <system-out>{}</system-out>",
            escape(&system_out)
        );
    }
    out.push_str("    </testcase>\n");
    outcome
}

/// Escapes text for XML 1.0 content and attribute values; characters XML 1.0 cannot carry at
/// all (most C0 controls, U+FFFE, U+FFFF) become U+FFFD.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_covers_markup_quotes_and_invalid_controls() {
        assert_eq!(
            escape("a<b>&\"c\"'d'"),
            "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;"
        );
        assert_eq!(escape("x\u{0}y\u{1b}z\tw"), "x\u{FFFD}y\u{FFFD}z\tw");
        assert_eq!(escape("ação ↔"), "ação ↔");
    }
}
