//! The four report formats on one report with errors, warnings, infos, a suppressed finding,
//! notes and text that needs escaping.
//!
//! SARIF is validated against the official SARIF 2.1.0 JSON Schema
//! (`tests/fixtures/sarif-schema-2.1.0.json`, source in the `.SOURCE.md` next to it); JUnit is
//! parsed by an independent XML parser (roxmltree).

use std::collections::BTreeSet;

use cpps_topology::check::check_on;
use cpps_topology::load::load_str;
use cpps_topology::report::{Format, Report, Severity};
use cpps_topology::rules;
use serde_json::Value;

const BASE: &str = include_str!("fixtures/rules/base.yaml");
const REASON: &str = "spare router <arrives> in June & \"then\" we pair it \u{1}";

fn edit(text: &str, find: &str, replace: &str) -> String {
    assert_eq!(text.matches(find).count(), 1, "{find:?}");
    text.replacen(find, replace, 1)
}

/// base.yaml with: an empty replication interface on b3 (error, and a warning on ssd-beta, which
/// asks for 3 replicas before that fix), vyos-b1 without a VRRP peer (warning, suppressed),
/// pbs-beta unencrypted (info), an unused suppression (note).
fn report() -> Report {
    let mut text = BASE.to_owned();
    text = edit(
        &text,
        "    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n\nguests:",
        "    linstor: { roles: [satellite], interface: \"\" }\n    state: validated\n\nguests:",
    );
    text = edit(
        &text,
        "  - { id: vyos-b1, site: beta, vrrp_peer: vyos-b2, ",
        "  - { id: vyos-b1, site: beta, ",
    );
    text = edit(
        &text,
        "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b1, state: validated }\n",
        "",
    );
    text = edit(
        &text,
        "    guest: pbs-b-vm\n    datastores: [{ name: main, encrypted: true }]",
        "    guest: pbs-b-vm\n    datastores: [{ name: main, encrypted: false }]",
    );
    text.push_str(
        "\nsuppressions:\n  - rule: NET-002\n    subject: vyos-b1\n    reason: \"spare router <arrives> in June & \\\"then\\\" we pair it \\u0001\"\n    expires: 2026-06-30\n  - { rule: GPU-004, subject: gpu-alpha, reason: stale }\n",
    );
    let topology =
        load_str("infra/topology.yaml", &text).unwrap_or_else(|e| panic!("{}", e.render()));
    check_on(&topology, jiff::civil::date(2026, 5, 2))
}

#[test]
fn the_report_counts_and_orders_findings() {
    let r = report();
    let got: Vec<(&str, &str, Severity, bool)> = r
        .findings
        .iter()
        .map(|f| {
            (
                f.rule.as_str(),
                f.subject.id(),
                f.severity,
                f.is_suppressed(),
            )
        })
        .collect();
    // Sorted by site, then severity (errors first), then rule.
    assert_eq!(
        got,
        [
            ("LINSTOR-001", "b3", Severity::Error, false),
            ("LINSTOR-002", "ssd-beta", Severity::Warning, false),
            ("NET-002", "vyos-b1", Severity::Warning, true),
            ("BACKUP-004", "pbs-beta", Severity::Info, false),
        ]
    );
    assert_eq!(r.summary.errors, 1);
    assert_eq!(r.summary.warnings, 1);
    assert_eq!(r.summary.infos, 1);
    assert_eq!(r.summary.suppressed, 1);
    assert_eq!(
        r.summary.components.validated + 1,
        r.summary.components.total()
    );
    assert_eq!(
        r.summary.rules_checked,
        rules::catalogue()
            .iter()
            .filter(|x| x.kind.has_static_part())
            .count()
    );
    assert_eq!(r.notes.len(), 1);
    assert!(r.fails(false));
    assert_eq!(
        r.findings[2].suppressed.as_ref().unwrap().justification,
        REASON
    );
}

#[test]
fn json_has_the_documented_shape() {
    let r = report();
    let v: Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
    let findings = v["findings"].as_array().unwrap();
    assert_eq!(findings.len(), 4);
    let f = &findings[0];
    assert_eq!(f["rule"], "LINSTOR-001");
    assert_eq!(f["severity"], "error");
    assert_eq!(f["subject"], "b3");
    assert_eq!(f["subject_kind"], "host");
    assert_eq!(f["site"], "beta");
    assert_eq!(f["suppressed"], false);
    assert_eq!(f["location"]["file"], "infra/topology.yaml");
    assert!(f["location"]["line"].as_u64().unwrap() > 1);
    assert!(f["location"]["column"].as_u64().unwrap() >= 1);
    assert!(f["message"].as_str().unwrap().contains("b3"));
    assert_eq!(f["citation"]["document"], "004_29bfc39840ca04c0.txt");
    assert!(
        f["citation"]["quote"]
            .as_str()
            .unwrap()
            .contains("pve-ippri-34")
    );
    let s = &findings[2];
    assert_eq!(s["suppressed"], true);
    assert_eq!(s["suppression"]["justification"], REASON);
    assert_eq!(s["suppression"]["expires"], "2026-06-30");
    assert_eq!(findings[3]["severity"], "info");
    let summary = &v["summary"];
    assert_eq!(summary["errors"], 1);
    assert_eq!(summary["warnings"], 1);
    assert_eq!(summary["infos"], 1);
    assert_eq!(summary["suppressed"], 1);
    assert_eq!(
        summary["components"]["total"].as_u64().unwrap(),
        summary["components"]["validated"].as_u64().unwrap()
            + summary["components"]["declared"].as_u64().unwrap()
            + summary["components"]["desired"].as_u64().unwrap()
    );
    assert!(
        v["notes"][0]["message"]
            .as_str()
            .unwrap()
            .contains("GPU-004")
    );
}

fn sarif_validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(include_str!("fixtures/sarif-schema-2.1.0.json")).unwrap();
    jsonschema::validator_for(&schema).expect("the SARIF schema compiles")
}

fn assert_valid_sarif(doc: &Value) {
    let validator = sarif_validator();
    let errors: Vec<String> = validator
        .iter_errors(doc)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF schema violations:\n{}",
        errors.join("\n")
    );
}

#[test]
fn sarif_is_valid_and_carries_what_code_scanning_needs() {
    let r = report();
    let doc: Value = serde_json::from_str(&r.render(Format::Sarif)).unwrap();
    assert_valid_sarif(&doc);
    assert_eq!(doc["version"], "2.1.0");
    let run = &doc["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "cpps-topology");
    let rules_json = driver["rules"].as_array().unwrap();
    assert_eq!(rules_json.len(), rules::catalogue().len());
    for rule in rules_json {
        assert!(rule["shortDescription"]["text"].as_str().unwrap().len() > 5);
        assert!(
            rule["help"]["text"]
                .as_str()
                .unwrap()
                .contains("Remediation:")
        );
        assert!(
            rule["help"]["markdown"]
                .as_str()
                .unwrap()
                .contains("**Remediation:**")
        );
    }
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 4);
    let first = &results[0];
    assert_eq!(first["ruleId"], "LINSTOR-001");
    assert_eq!(first["level"], "error");
    let index = first["ruleIndex"].as_u64().unwrap() as usize;
    assert_eq!(rules_json[index]["id"], "LINSTOR-001");
    assert_eq!(
        first["partialFingerprints"]["cppsRuleSubject/v1"],
        "LINSTOR-001/b3"
    );
    let physical = &first["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], "infra/topology.yaml");
    assert_eq!(
        physical["region"]["startLine"].as_u64().unwrap(),
        u64::from(r.findings[0].location.line)
    );
    assert!(first.get("suppressions").is_none());
    let suppressed = &results[2];
    assert_eq!(suppressed["level"], "warning");
    assert_eq!(suppressed["suppressions"][0]["kind"], "inSource");
    assert_eq!(suppressed["suppressions"][0]["justification"], REASON);
    assert_eq!(results[3]["level"], "note");
}

#[test]
fn the_sarif_schema_rejects_a_broken_document() {
    // The validator really checks: a result without a message and with a bad level fails.
    let r = report();
    let mut doc: Value = serde_json::from_str(&r.render(Format::Sarif)).unwrap();
    let result = &mut doc["runs"][0]["results"][0];
    result.as_object_mut().unwrap().remove("message");
    result["level"] = Value::from("fatal");
    assert!(!sarif_validator().is_valid(&doc));
}

#[test]
fn sarif_of_an_empty_report_is_valid() {
    let topology = load_str("base.yaml", BASE).unwrap();
    let r = check_on(&topology, jiff::civil::date(2026, 5, 2));
    let doc: Value = serde_json::from_str(&r.render(Format::Sarif)).unwrap();
    assert_valid_sarif(&doc);
    assert_eq!(doc["runs"][0]["results"].as_array().unwrap().len(), 0);
}

#[test]
fn junit_is_well_formed_with_one_case_per_rule_and_subject() {
    let r = report();
    let xml = r.render(Format::Junit);
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    let cases: Vec<roxmltree::Node<'_, '_>> = root
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    let static_rules = rules::catalogue()
        .iter()
        .filter(|x| x.kind.has_static_part())
        .count();
    // Four rules have one subject each; every other static rule has one passing case.
    assert_eq!(cases.len(), static_rules);
    assert_eq!(
        root.attribute("tests"),
        Some(static_rules.to_string().as_str())
    );
    assert_eq!(root.attribute("failures"), Some("2"));
    assert_eq!(root.attribute("skipped"), Some("1"));

    let case = |class: &str| {
        cases
            .iter()
            .find(|c| c.attribute("classname") == Some(class))
            .copied()
            .unwrap()
    };
    let failed = case("LINSTOR-001");
    assert_eq!(failed.attribute("name"), Some("b3"));
    let failure = failed
        .children()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert_eq!(failure.attribute("type"), Some("error"));
    assert!(failure.text().unwrap().contains("004_29bfc39840ca04c0.txt"));

    let skipped = case("NET-002");
    let skip = skipped
        .children()
        .find(|n| n.has_tag_name("skipped"))
        .unwrap();
    // Markup and quotes survive escaping; the control character XML cannot carry is replaced.
    assert_eq!(
        skip.attribute("message"),
        Some("suppressed: spare router <arrives> in June & \"then\" we pair it \u{FFFD}")
    );

    let info = case("BACKUP-004");
    assert!(info.children().all(|n| !n.has_tag_name("failure")));
    let out = info
        .children()
        .find(|n| n.has_tag_name("system-out"))
        .unwrap();
    assert!(out.text().unwrap().contains("pbs-beta"));

    let quiet = case("PVE-001");
    assert_eq!(quiet.attribute("name"), Some("all components"));
    assert_eq!(quiet.children().filter(|n| n.is_element()).count(), 0);

    // No live-only rule appears.
    let classes: BTreeSet<&str> = cases
        .iter()
        .filter_map(|c| c.attribute("classname"))
        .collect();
    assert!(!classes.contains("LINSTOR-007"));
}

#[test]
fn text_groups_by_site_and_severity_with_citations() {
    let r = report();
    let text = r.render(Format::Text);
    assert!(
        text.starts_with("cpps-topology check: infra/topology.yaml\n"),
        "{text}"
    );
    let beta = text
        .find("== site beta: 1 errors, 1 warnings, 1 infos ==")
        .expect(&text);
    let error = text.find("error     LINSTOR-001").expect(&text);
    let info = text.find("info      BACKUP-004").expect(&text);
    assert!(beta < error && error < info, "{text}");
    assert!(text.contains("cite: 004_29bfc39840ca04c0.txt: «Corrigir linstor_interface vazio"));
    assert!(text.contains("fix:  set the host's LINSTOR replication interface"));
    let suppressed = text.find("== suppressed: 1 ==").expect(&text);
    assert!(text[suppressed..].contains("NET-002"));
    assert!(text[suppressed..].contains("suppressed: spare router"));
    assert!(text.contains("note: infra/topology.yaml:"), "{text}");
    assert!(
        text.contains("\nsummary: 1 error, 1 warning, 1 info, 1 suppressed ("),
        "{text}"
    );
    // Plain text for CI logs: no terminal escape sequences.
    assert!(!text.contains('\u{1b}'));
}

#[test]
fn formats_parse_from_their_names() {
    for format in Format::ALL {
        assert_eq!(format.as_str().parse::<Format>().unwrap(), format);
    }
    assert_eq!("SARIF".parse::<Format>().unwrap(), Format::Sarif);
    let err = "xml".parse::<Format>().unwrap_err();
    assert_eq!(
        err.to_string(),
        "unknown report format `xml` (expected text, json, sarif or junit)"
    );
}
