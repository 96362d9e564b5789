//! The JSON format:
//! `{"findings":[{"rule","severity","subject","message","location":{"file","line","column"},"suppressed",…}],"summary":{…},"notes":[…]}`.

use serde::Serialize;

use super::{Finding, Location, Note, Report, Severity, Subject, Summary, Suppressed};
use crate::rules::RuleId;

#[derive(Serialize)]
struct JsonReport<'a> {
    file: &'a str,
    findings: Vec<JsonFinding<'a>>,
    summary: JsonSummary,
    notes: &'a [Note],
}

#[derive(Serialize)]
struct JsonSummary {
    errors: usize,
    warnings: usize,
    infos: usize,
    suppressed: usize,
    rules_checked: usize,
    components: JsonStates,
}

#[derive(Serialize)]
struct JsonStates {
    validated: usize,
    declared: usize,
    desired: usize,
    total: usize,
}

impl From<&Summary> for JsonSummary {
    fn from(summary: &Summary) -> Self {
        let c = summary.components;
        Self {
            errors: summary.errors,
            warnings: summary.warnings,
            infos: summary.infos,
            suppressed: summary.suppressed,
            rules_checked: summary.rules_checked,
            components: JsonStates {
                validated: c.validated,
                declared: c.declared,
                desired: c.desired,
                total: c.total(),
            },
        }
    }
}

#[derive(Serialize)]
struct JsonFinding<'a> {
    rule: RuleId,
    severity: Severity,
    subject: &'a Subject,
    subject_kind: &'static str,
    message: &'a str,
    location: &'a Location,
    suppressed: bool,
    suppression: Option<&'a Suppressed>,
    site: Option<&'a str>,
    title: &'static str,
    citation: JsonCitation,
    remediation: &'static str,
    fingerprint: String,
}

#[derive(Serialize)]
struct JsonCitation {
    document: &'static str,
    quote: &'static str,
}

impl<'a> JsonFinding<'a> {
    fn new(finding: &'a Finding) -> Self {
        let info = finding.rule_info();
        let citation = info.citation();
        Self {
            rule: finding.rule,
            severity: finding.severity,
            subject: &finding.subject,
            subject_kind: finding.subject.kind(),
            message: &finding.message,
            location: &finding.location,
            suppressed: finding.is_suppressed(),
            suppression: finding.suppressed.as_ref(),
            site: finding.site.as_deref(),
            title: info.title,
            citation: JsonCitation {
                document: citation.document.file_name(),
                quote: citation.quote,
            },
            remediation: info.remediation,
            fingerprint: finding.fingerprint(),
        }
    }
}

pub(super) fn render(report: &Report) -> String {
    let doc = JsonReport {
        file: &report.file,
        findings: report.findings.iter().map(JsonFinding::new).collect(),
        summary: JsonSummary::from(&report.summary),
        notes: &report.notes,
    };
    // Serializing these plain structs to a String cannot fail (no maps with non-string keys, no
    // custom serializers that error); fall back to an empty object rather than panic.
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}
