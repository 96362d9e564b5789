//! SARIF 2.1.0, in the shape GitHub code scanning accepts.
//!
//! `tool.driver.rules` lists the whole catalogue (with `shortDescription`, `fullDescription`,
//! `help` as text and Markdown, and the default level); each finding is a `result` with `ruleId`,
//! `ruleIndex`, `level`, `message`, one physical location with a line/column region, a logical
//! location naming the subject, and `partialFingerprints` made of the rule id and the subject, so
//! GitHub tracks a finding across edits that move lines. Suppressed findings carry
//! `suppressions: [{"kind": "inSource", "justification": …}]` (the suppression lives in the
//! topology file).

use serde_json::{Value, json};

use super::{Finding, Report, Severity};
use crate::rules::{self, RuleInfo};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The key of the fingerprint in `partialFingerprints`; versioned as the SARIF spec recommends.
pub(crate) const FINGERPRINT_KEY: &str = "cppsRuleSubject/v1";

pub(super) fn render(report: &Report) -> String {
    let catalogue = rules::catalogue();
    let rules: Vec<Value> = catalogue.iter().map(rule_descriptor).collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|finding| {
            let index = catalogue
                .iter()
                .position(|rule| rule.id == finding.rule)
                .unwrap_or(0);
            result(finding, index)
        })
        .collect();
    let doc = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "cpps-topology",
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": env!("CARGO_PKG_REPOSITORY"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    text
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn rule_descriptor(rule: &RuleInfo) -> Value {
    let mut text = format!(
        "{}\n\nKind: {}. Default severity: {}.\n",
        rule.title, rule.kind, rule.severity
    );
    let mut markdown = format!(
        "**{}**: {}\n\nKind: `{}`. Default severity: `{}`.\n\n",
        rule.id, rule.title, rule.kind, rule.severity
    );
    for citation in rule.citations {
        text.push_str(&format!(
            "Source: {} ({}): \"{}\"\n",
            citation.document.file_name(),
            citation.document.title(),
            citation.quote
        ));
        markdown.push_str(&format!(
            "> {}\n>\n> — `{}` ({})\n\n",
            citation.quote.replace('\n', " "),
            citation.document.file_name(),
            citation.document.title()
        ));
    }
    text.push_str(&format!("Remediation: {}\n", rule.remediation));
    markdown.push_str(&format!("**Remediation:** {}\n", rule.remediation));
    json!({
        "id": rule.id.as_str(),
        "shortDescription": { "text": rule.title },
        "fullDescription": { "text": format!("{} (source: {})", rule.title, rule.citation()) },
        "help": { "text": text, "markdown": markdown },
        "defaultConfiguration": { "level": level(rule.severity) },
        "properties": {
            "tags": ["cpps", "adr", rule.kind.as_str()],
            "kind": rule.kind.as_str(),
        },
    })
}

fn result(finding: &Finding, rule_index: usize) -> Value {
    let mut result = json!({
        "ruleId": finding.rule.as_str(),
        "ruleIndex": rule_index,
        "level": level(finding.severity),
        "message": { "text": finding.message },
        "locations": [{
            "physicalLocation": {
                "artifactLocation": { "uri": file_uri(&finding.location.file) },
                "region": {
                    "startLine": finding.location.line,
                    "startColumn": finding.location.column,
                },
            },
            "logicalLocations": [{
                "name": finding.subject.id(),
                "kind": finding.subject.kind(),
            }],
        }],
        "partialFingerprints": { FINGERPRINT_KEY: finding.fingerprint() },
    });
    if let (Some(suppressed), Some(object)) = (&finding.suppressed, result.as_object_mut()) {
        object.insert(
            "suppressions".to_owned(),
            json!([{ "kind": "inSource", "justification": suppressed.justification }]),
        );
    }
    result
}

/// A URI reference for a file path: relative paths stay relative (GitHub resolves them against the
/// repository root), absolute paths become `file://` URIs; bytes outside the unreserved set are
/// percent-encoded.
fn file_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut uri = String::with_capacity(path.len() + 8);
    if path.starts_with('/') {
        uri.push_str("file://");
    }
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                uri.push(byte as char)
            }
            _ => uri.push_str(&format!("%{byte:02X}")),
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::file_uri;

    #[test]
    fn file_uris_are_percent_encoded_references() {
        assert_eq!(
            file_uri("cpps-topology/topology/cpps.yaml"),
            "cpps-topology/topology/cpps.yaml"
        );
        assert_eq!(file_uri("/tmp/my file.yaml"), "file:///tmp/my%20file.yaml");
        assert_eq!(file_uri("a\\b#c.yaml"), "a/b%23c.yaml");
        assert_eq!(file_uri("sítio.yaml"), "s%C3%ADtio.yaml");
    }
}
