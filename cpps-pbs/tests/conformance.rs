//! Conformance of the client with Proxmox's PBS API schema, `pbs-apidoc.json` (PBS 4.x).
//!
//! Walks [`cpps_pbs::endpoints::ENDPOINTS`], the table every request of the client is built
//! from, with the Proxmox family's one check (`ApiDoc::check_table`, which `cpps-proxmox` runs
//! on its table too): the path and method exist; every path placeholder and every parameter
//! the client may send is a parameter of that method, with the same type; the answer is an
//! object, an array or a UPID as the table says; the version gates are noted. Then every field
//! of the typed answer
//! (from the type's JSON Schema, so serde renames are what is checked) exists in the schema
//! with a compatible type, is not required where the schema makes it optional, and every enum
//! value the client knows is one the schema lists.
//!
//! No fake PBS server exists; the schema is the reference (see `common`).

mod common;

use cpps_pbs::endpoints::{ENDPOINTS, Endpoint, Returns};
use cpps_proxmox_family::apidoc::Reference;
use cpps_proxmox_family::{Answer, Param, Product, ServerVersion};
use serde_json::Value;

fn schema_of(type_name: &str) -> Value {
    common::with_answer_type!(
        type_name,
        |T| schemars::schema_for!(T).as_value().clone(),
        other => panic!("no JSON Schema for type {other}: add it to common::with_answer_type")
    )
}

/// Follows `$ref` into `$defs` of the root schema.
fn resolve<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference.trim_start_matches("#/$defs/");
            resolve(&root["$defs"][name], root)
        }
        None => schema,
    }
}

/// The non-null alternatives of a schema: the branches of `anyOf`/`oneOf`, or the schema with
/// `null` removed from its `type` list.
fn alternatives<'a>(schema: &'a Value, root: &'a Value) -> Vec<(Vec<String>, &'a Value)> {
    let schema = resolve(schema, root);
    if let Some(branches) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        return branches
            .iter()
            .flat_map(|branch| alternatives(branch, root))
            .collect();
    }
    let types: Vec<String> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ if schema.get("properties").is_some() => vec!["object".to_owned()],
        _ => Vec::new(),
    };
    let types: Vec<String> = types.into_iter().filter(|t| t != "null").collect();
    if types.is_empty() {
        return Vec::new();
    }
    vec![(types, schema)]
}

fn compatible(ours: &str, theirs: &str) -> bool {
    ours == theirs || (theirs == "number" && ours == "integer")
}

/// Compares one of our schemas with the apidoc's, appending problems.
fn compare(ours: &Value, root: &Value, theirs: &Value, at: &str, problems: &mut Vec<String>) {
    let Some(their_type) = theirs.get("type").and_then(Value::as_str) else {
        return;
    };
    let options = alternatives(ours, root);
    let Some((_, ours)) = options
        .iter()
        .find(|(types, _)| types.iter().any(|t| compatible(t, their_type)))
    else {
        problems.push(format!(
            "{at}: ours is {:?}, the schema says {their_type}",
            options.iter().map(|(t, _)| t).collect::<Vec<_>>()
        ));
        return;
    };
    match their_type {
        "object" => {
            let Some(our_properties) = ours.get("properties").and_then(Value::as_object) else {
                return;
            };
            let their_properties = theirs.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = ours
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for (name, our_property) in our_properties {
                let Some(their_property) = their_properties.and_then(|p| p.get(name)) else {
                    problems.push(format!("{at}.{name}: not in the schema"));
                    continue;
                };
                if required.contains(&name.as_str()) && common::is_optional(their_property) {
                    problems.push(format!(
                        "{at}.{name}: required by our type, optional in the schema"
                    ));
                }
                compare(
                    our_property,
                    root,
                    their_property,
                    &format!("{at}.{name}"),
                    problems,
                );
            }
        }
        "array" => {
            if let (Some(our_items), Some(their_items)) = (ours.get("items"), theirs.get("items")) {
                compare(our_items, root, their_items, &format!("{at}[]"), problems);
            }
        }
        "string" => {
            let known = ours.get("examples").and_then(Value::as_array);
            let listed = theirs.get("enum").and_then(Value::as_array);
            if let (Some(known), Some(listed)) = (known, listed) {
                for value in known {
                    if !listed.contains(value) {
                        problems.push(format!(
                            "{at}: {value} is not one of the schema's {listed:?}"
                        ));
                    }
                }
            }
        }
        _ => {}
    }
}

/// The schema's release: `pbs-apidoc.json` is PBS 4's (see `shared/specs/SOURCE.md`).
const SCHEMA_RELEASE: ServerVersion = ServerVersion::new(4, 0, 0);

fn reference() -> Reference<'static> {
    Reference {
        product: Product::Pbs,
        version: SCHEMA_RELEASE,
        missing_fields: &[],
        optional_placeholders: &[],
    }
}

#[test]
fn every_endpoint_exists_with_its_parameters() {
    let report = common::schema().check_table(ENDPOINTS.iter().copied(), &reference());
    assert!(report.problems.is_empty(), "{}", report.problems.join("\n"));
    assert_eq!(report.endpoints_checked, ENDPOINTS.len());
    // The members of plain structs are checked by name here; types that flatten a part (the
    // job lists' `JobRunStatus`) only by their JSON Schema, below, with the rest.
    assert!(
        report.fields_checked > 70,
        "only {} fields were checked by name",
        report.fields_checked
    );
    // The gates the client applies (`GC_JOBS_SINCE`, `SYNC_DIRECTION_SINCE`) are noted, and
    // PBS 4's schema has both.
    assert_eq!(
        report.notes,
        [
            "GET /admin/gc: since 3.2.0; in the schema of 4.0.0, checked",
            "GET /admin/sync `sync-direction`: since 3.3.0; in the schema of 4.0.0, checked",
        ]
    );
}

/// The shared check fails on a wrong PBS entry: a parameter of the wrong type, a UPID answer
/// the schema types otherwise, an undocumented answer the schema now describes.
#[test]
fn the_check_fails_on_a_wrong_entry() {
    const WRONG: &[Endpoint] = &[
        Endpoint::new(
            "GET",
            "/admin/datastore/{store}/status",
            Returns::Object(Answer::keys("DatastoreStatus", || &["total", "avail"])),
        )
        .params(&[Param::string("verbose")]),
        Endpoint::new("GET", "/admin/datastore/{store}/gc", Returns::Upid),
        Endpoint::new("GET", "/admin/datastore", Returns::UndocumentedUpid),
    ];
    let report = common::schema().check_table(WRONG, &reference());
    assert_eq!(
        report.problems,
        [
            "GET /admin/datastore/{store}/status: `verbose` is \"boolean\" in the schema, string here",
            "GET /admin/datastore/{store}/gc: answers object, the client reads a UPID string",
            "GET /admin/datastore: answers array, the client reads an answer the schema does not describe (`null`)",
        ],
        "{:#?}",
        report.problems
    );
}

#[test]
fn every_typed_field_exists_in_the_schema() {
    let mut problems = Vec::new();
    let mut fields_checked = 0;
    for endpoint in ENDPOINTS {
        let id = endpoint.id();
        let info = common::schema()
            .method(endpoint.path, endpoint.method)
            .unwrap_or_else(|| panic!("{id}: not in the schema"));
        let returns = &info["returns"];
        // The kind of each answer (object, array, UPID, undocumented) is checked by
        // `check_table` above; here the types of the members.
        let (answer, theirs) = match endpoint.returns {
            Returns::Object(answer) => (answer, returns),
            Returns::List(answer) => (answer, &returns["items"]),
            _ => continue,
        };
        let type_name = answer.name;
        if let Some(family_type) = type_name.strip_prefix("family::") {
            fields_checked += check_family_type(family_type, theirs, &id, &mut problems);
            continue;
        }
        let ours = schema_of(type_name);
        fields_checked += ours["properties"].as_object().map_or(0, |p| p.len());
        compare(
            &ours,
            &ours,
            theirs,
            &format!("{id} {type_name}"),
            &mut problems,
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(
        fields_checked > 100,
        "only {fields_checked} fields were checked"
    );
}

/// `cpps-proxmox`'s family types have no JSON Schema: decode a complete fixture into the type,
/// serialize it back, and check every member it writes against the schema. The login answer's
/// type is private; the members it reads are checked by name.
fn check_family_type(name: &str, theirs: &Value, id: &str, problems: &mut Vec<String>) -> usize {
    let written = match name {
        "TaskStatus" => {
            let status: cpps_pbs::types::TaskStatus = common::data("task_status_failed.json");
            serde_json::to_value(status).unwrap()
        }
        "LogLine" => {
            let lines: Vec<cpps_proxmox_family::LogLine> = common::data("task_log.json");
            serde_json::to_value(&lines[0]).unwrap()
        }
        "Ticket" => serde_json::json!({ "ticket": "x", "CSRFPreventionToken": "y" }),
        other => panic!("no check for family type {other}"),
    };
    let before = problems.len();
    common::check_shape(
        theirs,
        &written,
        &format!("{id} family::{name}"),
        true,
        problems,
    );
    // Members the schema requires but the type skips when empty are not our concern here.
    let mut index = before;
    while index < problems.len() {
        if problems[index].ends_with("required by the schema, missing") {
            problems.remove(index);
        } else {
            index += 1;
        }
    }
    written.as_object().map_or(0, |o| o.len())
}

#[test]
fn the_comparison_catches_drift() {
    // A type with a misspelt field, a wrong type and a value the schema does not list.
    let ours = serde_json::json!({
        "type": "object",
        "properties": {
            "backup_type": { "type": "string" },
            "backup-id": { "type": "integer" },
            "backup-time": { "type": "integer" },
            "verification": { "type": ["object", "null"], "properties": {
                "state": { "type": "string", "examples": ["ok", "corrupt"] }
            }},
            "size": { "type": "integer" }
        },
        "required": ["size"]
    });
    let info = common::schema()
        .method("/admin/datastore/{store}/snapshots", "GET")
        .unwrap();
    let mut problems = Vec::new();
    compare(&ours, &ours, &info["returns"]["items"], "x", &mut problems);
    let text = problems.join("\n");
    assert!(text.contains("x.backup_type: not in the schema"), "{text}");
    assert!(text.contains("x.backup-id: ours is"), "{text}");
    assert!(text.contains("x.verification.state: \"corrupt\""), "{text}");
    assert!(
        text.contains("x.size: required by our type, optional"),
        "{text}"
    );
    assert_eq!(problems.len(), 4, "{text}");
}

/// `DatastoreName` follows the schema's `store` parameter: the pattern of pbs-api-types'
/// `PROXMOX_SAFE_ID_REGEX` (`src/lib.rs`) and the bounds of `DATASTORE_SCHEMA`
/// (`src/datastore.rs`), as pbs-apidoc.json writes them.
#[test]
fn the_datastore_name_rule_is_the_schemas() {
    let info = common::schema()
        .method("/admin/datastore/{store}/status", "GET")
        .unwrap();
    let store = &info["parameters"]["properties"]["store"];
    let rule = cpps_pbs::types::DatastoreName::RULE;
    assert_eq!(store["pattern"], format!("/^{}$/", rule.syntax.pattern));
    assert_eq!(store["minLength"], rule.min_len);
    assert_eq!(store["maxLength"], rule.max_len);
}
