//! The committed JSON Schema is current, is a valid draft 2020-12 schema, accepts every file
//! the loader accepts and rejects structural mistakes.

use cpps_topology::schema::{SCHEMA_PATH, json_schema, json_schema_string};
use serde_json::Value;

fn committed() -> String {
    let path = format!("{}/{SCHEMA_PATH}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn yaml_to_json(text: &str) -> Value {
    serde_saphyr::from_str::<Value>(text).expect("the YAML parses")
}

fn validator() -> jsonschema::Validator {
    jsonschema::validator_for(&json_schema()).expect("the schema compiles")
}

#[test]
fn the_committed_schema_is_current() {
    assert!(
        committed() == json_schema_string(),
        "{SCHEMA_PATH} is stale: run `cargo xtask schema` and commit the result"
    );
}

#[test]
fn the_schema_is_a_valid_2020_12_schema_of_the_format() {
    let schema = json_schema();
    assert!(jsonschema::meta::is_valid(&schema));
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["required"], serde_json::json!(["version"]));
    assert_eq!(schema["additionalProperties"], false);
    // Every component requires its state; unknown keys are refused everywhere.
    for def in [
        "Site",
        "Host",
        "Guest",
        "LinstorPool",
        "K3sCluster",
        "Traefik",
        "Pbs",
    ] {
        let d = &schema["$defs"][def];
        assert_eq!(d["additionalProperties"], false, "{def}");
        let required = d["required"].as_array().unwrap();
        assert!(
            required.contains(&Value::from("state")),
            "{def}: {required:?}"
        );
        assert!(required.contains(&Value::from("id")), "{def}: {required:?}");
    }
}

#[test]
fn the_default_topology_loads_and_matches_the_schema() {
    cpps_topology::try_default_topology().expect("the default topology loads");
    let instance = yaml_to_json(cpps_topology::DEFAULT_TOPOLOGY_YAML);
    let v = validator();
    let errors: Vec<String> = v.iter_errors(&instance).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn the_valid_fixture_matches_the_schema() {
    let path = format!(
        "{}/tests/fixtures/load/valid_minimal.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    cpps_topology::load_str("valid_minimal.yaml", &text).unwrap();
    assert!(validator().is_valid(&yaml_to_json(&text)));
}

#[test]
fn the_schema_rejects_what_the_loader_rejects_structurally() {
    let v = validator();
    let fixtures = [
        "unknown_key.yaml",
        "missing_state.yaml",
        "unknown_value.yaml",
        "state_list.yaml",
    ];
    for name in fixtures {
        let path = format!("{}/tests/fixtures/load/{name}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(path).unwrap();
        assert!(cpps_topology::load_str(name, &text).is_err(), "{name}");
        assert!(
            !v.is_valid(&yaml_to_json(&text)),
            "{name} passes the schema"
        );
    }
}
