//! The text format: a table grouped by site and severity, readable in a terminal and in CI logs.
//!
//! Plain ASCII layout (no colours, no terminal control codes), so CI logs show it as it is.

use std::fmt::Write as _;

use super::{Finding, Report, Severity};

const CROSS_SITE: &str = "cross-site / global";

pub(super) fn render(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "cpps-topology check: {}", report.file);

    let active: Vec<&Finding> = report.active().collect();
    let suppressed: Vec<&Finding> = report
        .findings
        .iter()
        .filter(|f| f.is_suppressed())
        .collect();

    if active.is_empty() {
        let _ = writeln!(out, "\nno findings");
    } else {
        let widths = Widths::of(active.iter().copied());
        let mut groups: Vec<(Option<&str>, Vec<&Finding>)> = Vec::new();
        for finding in &active {
            let site = finding.site.as_deref();
            match groups.last_mut() {
                Some((last, members)) if *last == site => members.push(finding),
                _ => groups.push((site, vec![finding])),
            }
        }
        for (site, members) in groups {
            let title = match site {
                Some(site) => format!("site {site}"),
                None => CROSS_SITE.to_owned(),
            };
            let count = |severity| members.iter().filter(|f| f.severity == severity).count();
            let _ = writeln!(
                out,
                "\n== {title}: {} errors, {} warnings, {} infos ==",
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Info),
            );
            widths.header(&mut out);
            for finding in members {
                widths.row(&mut out, finding, None, &report.file);
            }
        }
    }

    if !suppressed.is_empty() {
        let widths = Widths::of(suppressed.iter().copied());
        let _ = writeln!(out, "\n== suppressed: {} ==", suppressed.len());
        widths.header(&mut out);
        for finding in suppressed {
            let why = finding.suppressed.as_ref().map(|s| {
                let until = s
                    .expires
                    .map(|d| format!(" (until {d})"))
                    .unwrap_or_default();
                format!("{}{until}", s.justification)
            });
            widths.row(&mut out, finding, why.as_deref(), &report.file);
        }
    }

    if !report.notes.is_empty() {
        let _ = writeln!(out);
        for note in &report.notes {
            match &note.location {
                Some(location) => {
                    let _ = writeln!(out, "note: {location}: {}", clean(&note.message));
                }
                None => {
                    let _ = writeln!(out, "note: {}", clean(&note.message));
                }
            }
        }
    }

    let _ = writeln!(out, "\nsummary: {}", report.summary);
    out
}

struct Widths {
    rule: usize,
    subject: usize,
}

const SEVERITY_WIDTH: usize = 8;
const INDENT: usize = 2;

impl Widths {
    fn of<'a>(findings: impl Iterator<Item = &'a Finding>) -> Self {
        let mut widths = Self {
            rule: "RULE".len(),
            subject: "SUBJECT".len(),
        };
        for finding in findings {
            widths.rule = widths.rule.max(finding.rule.as_str().len());
            widths.subject = widths.subject.max(subject_cell(finding).chars().count());
        }
        // A very long subject should not push every row off the screen.
        widths.subject = widths.subject.min(48);
        widths
    }

    fn header(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "{:INDENT$}{:<SEVERITY_WIDTH$}  {:<rule$}  {:<subject$}  LOCATION",
            "",
            "SEVERITY",
            "RULE",
            "SUBJECT",
            rule = self.rule,
            subject = self.subject,
        );
    }

    fn row(
        &self,
        out: &mut String,
        finding: &Finding,
        suppressed_because: Option<&str>,
        report_file: &str,
    ) {
        // A finding located in another file than the topology (IaC evidence) names the file.
        let location = if finding.location.file == report_file {
            format!("{}:{}", finding.location.line, finding.location.column)
        } else {
            finding.location.to_string()
        };
        let _ = writeln!(
            out,
            "{:INDENT$}{:<SEVERITY_WIDTH$}  {:<rule$}  {:<subject$}  {}",
            "",
            finding.severity.as_str(),
            finding.rule.as_str(),
            subject_cell(finding),
            location,
            rule = self.rule,
            subject = self.subject,
        );
        let pad = INDENT + SEVERITY_WIDTH + 2;
        let info = finding.rule_info();
        let _ = writeln!(out, "{:pad$}{}", "", clean(&finding.message));
        let _ = writeln!(out, "{:pad$}rule: {}", "", info.title);
        for citation in info.citations {
            let _ = writeln!(out, "{:pad$}cite: {citation}", "");
        }
        match suppressed_because {
            Some(why) => {
                let _ = writeln!(out, "{:pad$}suppressed: {}", "", clean(why));
            }
            None => {
                let _ = writeln!(out, "{:pad$}fix:  {}", "", info.remediation);
            }
        }
    }
}

fn subject_cell(finding: &Finding) -> String {
    format!("{} ({})", finding.subject.id(), finding.subject.kind())
}

/// Text from the topology file, made safe for a terminal: control characters (escape sequences
/// included) become U+FFFD.
fn clean(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect()
}
