//! Every fixture decodes into its type, and every field of every fixture exists in
//! `pbs-apidoc.json` with the schema's type, so the fixtures cannot drift from the schema.
//!
//! No fake PBS server exists; the schema is the reference (see `common`).

mod common;

use cpps_pbs::endpoints::{self, Endpoint, Returns};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Each fixture and the endpoint whose answer it is.
const FIXTURES: &[(&str, &Endpoint)] = &[
    ("datastores.json", &endpoints::DATASTORES),
    ("datastores_unknown.json", &endpoints::DATASTORES),
    ("datastore_status_store1.json", &endpoints::DATASTORE_STATUS),
    ("datastore_usage.json", &endpoints::DATASTORE_USAGE),
    ("namespaces_store1.json", &endpoints::NAMESPACES),
    ("groups_store1.json", &endpoints::GROUPS),
    ("snapshots_store1.json", &endpoints::SNAPSHOTS),
    ("snapshots_unknown.json", &endpoints::SNAPSHOTS),
    ("snapshots_pve_b.json", &endpoints::SNAPSHOTS),
    ("gc_store1.json", &endpoints::GC_STATUS),
    ("gc_jobs.json", &endpoints::GC_JOBS),
    ("prune_jobs.json", &endpoints::PRUNE_JOBS),
    ("sync_jobs.json", &endpoints::SYNC_JOBS),
    ("verify_jobs.json", &endpoints::VERIFY_JOBS),
    ("remotes.json", &endpoints::REMOTES),
    ("tasks.json", &endpoints::TASKS),
    ("task_status_running.json", &endpoints::TASK_STATUS),
    ("task_status_failed.json", &endpoints::TASK_STATUS),
    ("task_log.json", &endpoints::TASK_LOG),
    ("access_ticket.json", &endpoints::TICKET),
];

fn decode_as<T: DeserializeOwned>(data: &Value, list: bool) -> Result<usize, String> {
    let text = data.to_string();
    if list {
        cpps_http::decode_json::<Vec<T>>(text.as_bytes())
            .map(|items| items.len())
            .map_err(|(path, message)| format!("at {path}: {message}"))
    } else {
        cpps_http::decode_json::<T>(text.as_bytes())
            .map(|_| 1)
            .map_err(|(path, message)| format!("at {path}: {message}"))
    }
}

fn decode(returns: Returns, data: &Value) -> Result<usize, String> {
    let (name, list) = match returns {
        Returns::Object(answer) => (answer.name, false),
        Returns::List(answer) | Returns::UndocumentedList(answer) => (answer.name, true),
        other => return Err(format!("unhandled {other:?}")),
    };
    match name {
        "family::TaskStatus" => decode_as::<cpps_proxmox_family::TaskStatus>(data, list),
        "family::LogLine" => decode_as::<cpps_proxmox_family::LogLine>(data, list),
        // The login answer's type is private to `cpps-proxmox`; `tests/auth.rs` logs in with
        // this fixture. Here: the two members the login reads are strings.
        "family::Ticket" => ["ticket", "CSRFPreventionToken"]
            .iter()
            .all(|key| data[key].is_string())
            .then_some(1)
            .ok_or_else(|| "ticket or CSRFPreventionToken missing".to_owned()),
        name => common::with_answer_type!(
            name,
            |T| decode_as::<T>(data, list),
            other => Err(format!("no decoder for type {other}"))
        ),
    }
}

#[test]
fn every_fixture_decodes_into_its_type() {
    for (fixture, endpoint) in FIXTURES {
        let body = common::load(fixture);
        let data = body
            .get("data")
            .unwrap_or_else(|| panic!("{fixture}: no `data`"));
        let count = decode(endpoint.returns, data)
            .unwrap_or_else(|e| panic!("{fixture} does not decode: {e}"));
        assert!(count > 0, "{fixture} is empty");
    }
}

#[test]
fn every_fixture_field_exists_in_the_schema() {
    let mut problems = Vec::new();
    for (fixture, endpoint) in FIXTURES {
        let info = common::schema()
            .method(endpoint.path, endpoint.method)
            .unwrap_or_else(|| panic!("{} {} not in the schema", endpoint.method, endpoint.path));
        let returns = &info["returns"];
        if let Returns::UndocumentedList(_) = endpoint.returns {
            // Nothing to compare with: the schema declares the answer as `null`.
            continue;
        }
        let body = common::load(fixture);
        let object = body.as_object().expect("a fixture is an object");
        // Task logs carry `total` beside `data`, as proxmox-rest-server writes list answers.
        let keys: Vec<&String> = object.keys().filter(|k| *k != "total").collect();
        assert_eq!(
            keys,
            ["data"],
            "{fixture}: the envelope holds `data` (and `total`)"
        );
        // The `*_unknown.json` fixtures carry enum values the schema does not list, on purpose.
        let unknown_values = fixture.ends_with("_unknown.json");
        let before = problems.len();
        common::check_shape(
            returns,
            &body["data"],
            fixture,
            !unknown_values,
            &mut problems,
        );
        if unknown_values {
            let mut strict = Vec::new();
            common::check_shape(returns, &body["data"], fixture, true, &mut strict);
            assert!(
                strict.len() > problems.len() - before,
                "{fixture} should hold at least one value outside a schema enum"
            );
        }
    }
    assert!(
        problems.is_empty(),
        "fixtures drift from pbs-apidoc.json:\n{}",
        problems.join("\n")
    );
}

#[test]
fn every_fixture_file_is_listed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the fixtures folder exists")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut listed: Vec<String> = FIXTURES
        .iter()
        .map(|(name, _)| (*name).to_owned())
        .collect();
    listed.sort();
    assert_eq!(files, listed, "list every fixture in FIXTURES");
}

#[test]
fn the_shape_check_catches_drift() {
    // The checker itself must fail on a renamed field, a wrong type and a missing field.
    let info = common::schema()
        .method("/admin/datastore/{store}/snapshots", "GET")
        .unwrap();
    let drifted = serde_json::json!([{
        "backup_type": "vm", "backup-id": 100, "files": [], "protected": false
    }]);
    let mut problems = Vec::new();
    common::check_shape(&info["returns"], &drifted, "x", true, &mut problems);
    let text = problems.join("\n");
    assert!(
        text.contains("x[0].backup_type: not in the schema"),
        "{text}"
    );
    assert!(
        text.contains("x[0].backup-id: is integer, the schema says string"),
        "{text}"
    );
    assert!(
        text.contains("x[0].backup-time: required by the schema, missing"),
        "{text}"
    );
}
