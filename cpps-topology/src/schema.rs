//! The JSON Schema of the topology file format, generated from the types the loader reads.
//!
//! `cargo xtask schema` writes it to `cpps-topology/schema/topology.schema.json` (committed);
//! a test fails when the committed file differs from [`json_schema_string`]. The schema
//! describes structure only: states, references, duplicate ids and value formats are checked
//! by the loader.

/// Where the committed schema lives, relative to the `cpps-topology` crate root.
pub const SCHEMA_PATH: &str = "schema/topology.schema.json";

/// The JSON Schema (draft 2020-12) of a topology file.
pub fn json_schema() -> serde_json::Value {
    schemars::schema_for!(crate::load::file::TopologyFile).to_value()
}

/// The schema as committed: pretty-printed JSON with a final newline.
pub fn json_schema_string() -> String {
    let mut s = serde_json::to_string_pretty(&json_schema())
        .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    s.push('\n');
    s
}
