//! The Proxmox API viewer's schema dump (`apidoc.json` of PVE and PBS), for conformance tests
//! (feature `test-util`).
//!
//! Both products publish their API as one tree: `[{path, text, leaf, info: {GET: {parameters,
//! returns, …}, …}, children: […]}]`. PVE writes booleans as `0/1`, PBS as JSON booleans; the
//! helpers here accept both.
//!
//! [`ApiDoc::check_table`] is the one conformance check of an endpoint table
//! ([`family::Endpoint`](crate::Endpoint)) against a schema: `cpps-proxmox` and
//! `cpps-pbs` both call it from their conformance tests.

use std::borrow::Borrow;
use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::{Endpoint, Gate, Product, Returns, ServerVersion};

/// A loaded schema tree.
#[derive(Debug, Clone)]
pub struct ApiDoc {
    tree: Value,
}

impl ApiDoc {
    /// Reads a schema dump, naming the file in the error.
    pub fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let tree = serde_json::from_str(&text)
            .map_err(|e| format!("{} is not JSON: {e}", path.display()))?;
        Ok(ApiDoc { tree })
    }

    /// A schema tree already parsed (for tests of the checks themselves).
    pub fn from_tree(tree: Value) -> Self {
        ApiDoc { tree }
    }

    /// The whole tree.
    pub fn tree(&self) -> &Value {
        &self.tree
    }

    /// `info.METHOD` of the node whose `path` is `api_path` (for example
    /// `/nodes/{node}/qemu/{vmid}/config`, `GET`).
    pub fn method(&self, api_path: &str, http_method: &str) -> Option<&Value> {
        fn find<'a>(nodes: &'a Value, wanted: &str) -> Option<&'a Value> {
            for node in nodes.as_array()? {
                if node.get("path").and_then(Value::as_str) == Some(wanted) {
                    return Some(node);
                }
                if let Some(children) = node.get("children")
                    && let Some(found) = find(children, wanted)
                {
                    return Some(found);
                }
            }
            None
        }
        find(&self.tree, api_path)?.get("info")?.get(http_method)
    }
}

/// Whether a schema property is optional (`"optional": 1` in PVE's dump, `true` in PBS's).
pub fn is_optional(property: &Value) -> bool {
    match property.get("optional") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() == Some(1),
        _ => false,
    }
}

/// A place where the schema says less than the server does: a member the client reads that
/// the schema does not declare, or a path placeholder the schema calls optional.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaGap {
    /// The endpoint's method.
    pub method: &'static str,
    /// The endpoint's path.
    pub path: &'static str,
    /// The member or parameter.
    pub name: &'static str,
    /// Where upstream shows it (the file), or why the client relies on it anyway.
    pub why: &'static str,
}

impl SchemaGap {
    fn is(&self, endpoint: &Endpoint, name: &str) -> bool {
        self.method == endpoint.method && self.path == endpoint.path && self.name == name
    }
}

/// What [`ApiDoc::check_table`] checks a table against.
#[derive(Debug, Clone, Copy)]
pub struct Reference<'a> {
    /// The product whose schema it is (PBS types every UPID with a pattern; PVE does not).
    pub product: Product,
    /// The release the schema was taken from: gated endpoints and parameters are checked
    /// where that release has them, and only noted where it does not.
    pub version: ServerVersion,
    /// Members the client reads that the schema does not declare.
    pub missing_fields: &'a [SchemaGap],
    /// Path placeholders the schema calls optional (the client always sends them, in the path).
    pub optional_placeholders: &'a [SchemaGap],
}

/// What [`ApiDoc::check_table`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Conformance {
    /// Each disagreement between the table and the schema, naming the endpoint.
    pub problems: Vec<String>,
    /// Each version gate, and what the schema's release says about it.
    pub notes: Vec<String>,
    /// How many endpoints were found in the schema.
    pub endpoints_checked: usize,
    /// How many returned members were checked by name.
    pub fields_checked: usize,
}

impl ApiDoc {
    /// Checks an endpoint table against this schema: every endpoint's path and method exist;
    /// every path placeholder is a required parameter of the method; every parameter the
    /// client may send is declared, with the same type; the answer is what the table says (an
    /// object, an array, a UPID string, or undocumented `null`); every member the client
    /// reads is a property of the answer, or listed in `reference.missing_fields`; every
    /// listed gap is of an endpoint in the table and still a gap (a stale one is a problem). An endpoint or
    /// parameter whose gate excludes the schema's release is not required to be there; each
    /// gate is noted.
    pub fn check_table<E: Borrow<Endpoint>>(
        &self,
        table: impl IntoIterator<Item = E>,
        reference: &Reference<'_>,
    ) -> Conformance {
        let mut report = Conformance::default();
        let mut seen = BTreeSet::new();
        for endpoint in table {
            let endpoint = endpoint.borrow();
            let id = endpoint.id();
            if !seen.insert(id.clone()) {
                report.problems.push(format!("{id}: listed twice"));
            }
            let present = self.method(endpoint.path, endpoint.method);
            if endpoint.gate != Gate::Always {
                report.notes.push(gate_note(
                    &id,
                    endpoint.gate,
                    reference.version,
                    present.is_some(),
                ));
            }
            let Some(info) = present else {
                if endpoint.gate.admits(reference.version) {
                    report
                        .problems
                        .push(format!("{id}: no such path and method"));
                }
                continue;
            };
            report.endpoints_checked += 1;
            check_params(endpoint, info, reference, &id, &mut report);
            check_returns(endpoint, info, reference, &id, &mut report);
        }
        for gap in reference.missing_fields {
            self.check_gap(gap, &seen, &mut report, |info| {
                returned_properties(info).contains(gap.name)
            });
        }
        for gap in reference.optional_placeholders {
            self.check_gap(gap, &seen, &mut report, |info| {
                info["parameters"]["properties"]
                    .get(gap.name)
                    .is_some_and(|p| !is_optional(p))
            });
        }
        report
    }
}

impl ApiDoc {
    fn check_gap(
        &self,
        gap: &SchemaGap,
        table: &BTreeSet<String>,
        report: &mut Conformance,
        closed: impl Fn(&Value) -> bool,
    ) {
        let id = format!("{} {}", gap.method, gap.path);
        if !table.contains(&id) {
            report.problems.push(format!(
                "{id}: a gap for `{}` of an endpoint not in the table",
                gap.name
            ));
        } else if self.method(gap.path, gap.method).is_some_and(closed) {
            report.problems.push(format!(
                "{id}: the schema declares `{}` now; drop the gap",
                gap.name
            ));
        }
    }
}

fn gate_note(id: &str, gate: Gate, version: ServerVersion, present: bool) -> String {
    let schema = if present {
        "in the schema"
    } else {
        "not in the schema"
    };
    let checked = if gate.admits(version) {
        "checked"
    } else {
        "not required"
    };
    format!("{id}: {gate}; {schema} of {version}, {checked}")
}

fn check_params(
    endpoint: &Endpoint,
    info: &Value,
    reference: &Reference<'_>,
    id: &str,
    report: &mut Conformance,
) {
    let version = reference.version;
    let parameters = info["parameters"]["properties"].as_object();
    for placeholder in endpoint.path_params() {
        let excused = || {
            reference
                .optional_placeholders
                .iter()
                .any(|gap| gap.is(endpoint, placeholder))
        };
        match parameters.and_then(|p| p.get(placeholder)) {
            Some(p) if !is_optional(p) || excused() => {}
            Some(_) => report
                .problems
                .push(format!("{id}: `{placeholder}` is optional in the schema")),
            None => report
                .problems
                .push(format!("{id}: `{placeholder}` is not a parameter")),
        }
        if endpoint.param(placeholder).is_some() {
            report.problems.push(format!(
                "{id}: `{placeholder}` is a path placeholder, not a parameter to send"
            ));
        }
    }
    for param in endpoint.params {
        let name = param.name;
        if param.gate != Gate::Always {
            let present = parameters.is_some_and(|p| p.contains_key(name));
            report.notes.push(gate_note(
                &format!("{id} `{name}`"),
                param.gate,
                version,
                present,
            ));
        }
        match parameters.and_then(|p| p.get(name)) {
            Some(p) if p["type"] == param.kind.schema_name() => {}
            Some(p) => report.problems.push(format!(
                "{id}: `{name}` is {} in the schema, {} here",
                p["type"],
                param.kind.schema_name()
            )),
            None if !param.gate.admits(version) => {}
            None => report
                .problems
                .push(format!("{id}: `{name}` is not a parameter")),
        }
    }
}

fn check_returns(
    endpoint: &Endpoint,
    info: &Value,
    reference: &Reference<'_>,
    id: &str,
    report: &mut Conformance,
) {
    let returns = &info["returns"];
    let kind = returns["type"].as_str().unwrap_or("untyped");
    let expect = |wanted: &str, what: &str, report: &mut Conformance| {
        let ok = kind == wanted;
        if !ok {
            report
                .problems
                .push(format!("{id}: answers {kind}, the client reads {what}"));
        }
        ok
    };
    match endpoint.returns {
        Returns::Object(_) => {
            if !expect("object", "an object", report) {
                return;
            }
        }
        Returns::List(_) => {
            if !expect("array", "an array", report) {
                return;
            }
        }
        Returns::UndocumentedList(_) | Returns::UndocumentedUpid => {
            // If the schema starts describing it, the table must say what it says.
            expect(
                "null",
                "an answer the schema does not describe (`null`)",
                report,
            );
            return;
        }
        Returns::Upid => {
            if expect("string", "a UPID string", report) {
                // PBS types every UPID with its pattern (`UPID_SCHEMA` of pbs-api-types);
                // PVE's schema says only `string`.
                let pattern = returns["pattern"].as_str();
                let names_upid = pattern.is_some_and(|p| p.contains("UPID"));
                if (reference.product == Product::Pbs || pattern.is_some()) && !names_upid {
                    report.problems.push(format!(
                        "{id}: the answer's pattern is not a UPID's: {returns}"
                    ));
                }
            }
            return;
        }
        Returns::Nothing => return,
    }
    let known = returned_properties(info);
    for field in endpoint.returned_fields() {
        report.fields_checked += 1;
        if known.contains(*field) {
            continue;
        }
        let excused = reference
            .missing_fields
            .iter()
            .any(|gap| gap.is(endpoint, field));
        if !excused {
            report.problems.push(format!(
                "{id}: `{field}` is not in `returns` (known: {known:?})"
            ));
        }
    }
}

/// The property names of a method's answer (of its items, for an array).
pub fn returned_properties(info: &Value) -> BTreeSet<String> {
    let returns = &info["returns"];
    let object = if returns["type"] == "array" {
        &returns["items"]
    } else {
        returns
    };
    object["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}
