//! Pulumi: the stack export (and the mock run in its shape) and the stack config.
//!
//! The export is the engine's apitype `UntypedDeployment` (`{"version": 3, "deployment":
//! {"manifest", "resources": [{"urn", "type", "custom", "id", "inputs", "outputs", "parent",
//! "provider", "dependencies"}]}}`). Inputs are read first and outputs fill what inputs lack
//! (a resource read or imported has outputs only).

use std::collections::HashMap;

use serde_json::Value as Json;

use super::yaml::{self, Node, Spanned};
use super::{
    Declaration, DeclaredKind, Evidence, EvidenceKind, FieldValue, HaResource, IacError, Lines,
    Origin, Value,
};
use crate::iac::mapping::Field;

/// The signature key and value the engine puts on a secret (`sig.Secret` of the Pulumi SDK).
pub(crate) const SECRET_SIG_KEY: &str = "4dabf18193072939515e22adb298388d";
/// `sig.Secret`.
pub(crate) const SECRET_SIG: &str = "1b47061264138c4ac30d75fd1eb44270";

/// Guest resource types of both provider majors (tokens as the `pulumi-proxmoxve` packages
/// register them; `tests/iac.rs` names the package files).
const VM_TYPES: &[&str] = &[
    "proxmoxve:VM/virtualMachine:VirtualMachine",
    "proxmoxve:index/vmLegacy:VmLegacy",
    "proxmoxve:index/vm:Vm",
];
const CONTAINER_TYPES: &[&str] = &[
    "proxmoxve:CT/container:Container",
    "proxmoxve:index/containerLegacy:ContainerLegacy",
];
const HA_TYPES: &[&str] = &[
    "proxmoxve:HA/hAResource:HAResource",
    "proxmoxve:index/haresourceLegacy:HaresourceLegacy",
    "proxmoxve:index/haresource:Haresource",
];

/// The resource-type token's kind, if it is one cpps reads.
pub(crate) fn type_kind(token: &str) -> Option<DeclaredKind> {
    if VM_TYPES.contains(&token) {
        Some(DeclaredKind::Vm)
    } else if CONTAINER_TYPES.contains(&token) {
        Some(DeclaredKind::Container)
    } else {
        None
    }
}

fn is_secret(value: &Json) -> bool {
    value
        .as_object()
        .and_then(|o| o.get(SECRET_SIG_KEY))
        .and_then(Json::as_str)
        == Some(SECRET_SIG)
}

/// The offset of the first `"urn": "…"` value of each URN in `text`, in one pass.
fn urn_offsets(text: &str) -> HashMap<String, usize> {
    let mut offsets = HashMap::new();
    for (at, _) in text.match_indices("\"urn\"") {
        let rest = &text[at + 5..];
        let rest_trimmed = rest.trim_start();
        let Some(after_colon) = rest_trimmed.strip_prefix(':') else {
            continue;
        };
        let value = after_colon.trim_start();
        let value_at = text.len() - value.len();
        let Some(body) = value.strip_prefix('"') else {
            continue;
        };
        let mut end = None;
        let mut escaped = false;
        for (i, c) in body.char_indices() {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => {
                    end = Some(i);
                    break;
                }
                _ => {}
            }
        }
        if let Some(end) = end {
            // URNs hold no JSON escapes in practice; an escaped one is decoded for the key.
            let raw = &body[..end];
            let urn = serde_json::from_str::<String>(&format!("\"{raw}\""))
                .unwrap_or_else(|_| raw.to_owned());
            offsets.entry(urn).or_insert(value_at);
        }
    }
    offsets
}

pub(super) fn read_state(
    evidence: &mut Evidence,
    kind: EvidenceKind,
    file: &str,
    text: &str,
) -> Result<(), IacError> {
    let document: Json = serde_json::from_str(text).map_err(|e| IacError::json(file, &e))?;
    check_version(file, &document)?;
    let resources = document
        .get("deployment")
        .and_then(|d| d.get("resources"))
        .and_then(Json::as_array)
        .ok_or_else(|| IacError::shape(file, "deployment.resources", "missing or not a list"))?;
    let lines = Lines::new(text);
    let offsets = urn_offsets(text);
    for (i, resource) in resources.iter().enumerate() {
        let path = |field: &str| format!("deployment.resources[{i}].{field}");
        let urn = resource
            .get("urn")
            .and_then(Json::as_str)
            .ok_or_else(|| IacError::shape(file, path("urn"), "missing or not a string"))?;
        let token = resource
            .get("type")
            .and_then(Json::as_str)
            .ok_or_else(|| IacError::shape(file, path("type"), "missing or not a string"))?;
        // A resource the engine is about to delete (`delete: true`) is not declared any more.
        if resource.get("delete").and_then(Json::as_bool) == Some(true) {
            continue;
        }
        let (line, column) = offsets
            .get(urn)
            .map_or((0, 0), |offset| lines.position(*offset));
        let origin = Origin {
            kind,
            file: file.to_owned(),
            line,
            column,
            urn: Some(urn.to_owned()),
        };
        if HA_TYPES.contains(&token) {
            let resource_id = ha_resource_id(file, i, resource)?;
            evidence.ha_resources.push(HaResource {
                resource_id,
                origin,
            });
            continue;
        }
        let Some(declared) = type_kind(token) else {
            *evidence.other_types.entry(token.to_owned()).or_default() += 1;
            continue;
        };
        evidence
            .declarations
            .push(declaration(resource, declared, urn, origin));
    }
    Ok(())
}

/// The stack export's `version`: `pulumi stack export` writes 3, the only one read.
fn check_version(file: &str, document: &Json) -> Result<(), IacError> {
    match document.get("version").and_then(Json::as_u64) {
        Some(3) => {}
        Some(other) => {
            return Err(IacError::shape(
                file,
                "version",
                format!(
                    "deployment version {other} is not supported (pulumi stack export writes 3)"
                ),
            ));
        }
        None => {
            return Err(IacError::shape(
                file,
                "version",
                "missing: not a `pulumi stack export` document",
            ));
        }
    }
    Ok(())
}

/// The input `name` of a resource, else its output of that name; null is absent.
fn input<'a>(resource: &'a Json, name: &str) -> Option<&'a Json> {
    resource
        .get("inputs")
        .and_then(|m| m.get(name))
        .or_else(|| resource.get("outputs").and_then(|m| m.get(name)))
        .filter(|v| !v.is_null())
}

/// The `resourceId` of HA resource `i` (`vm:120`), `[secret]` where the state hides it.
fn ha_resource_id(file: &str, i: usize, resource: &Json) -> Result<String, IacError> {
    let path = |field: &str| format!("deployment.resources[{i}].{field}");
    let resource_id = input(resource, "resourceId").ok_or_else(|| {
        IacError::shape(
            file,
            path("inputs.resourceId"),
            "an HA resource without resourceId",
        )
    })?;
    match resource_id {
        Json::String(s) => Ok(s.clone()),
        v if is_secret(v) => Ok("[secret]".to_owned()),
        _ => Err(IacError::shape(
            file,
            path("inputs.resourceId"),
            "not a string such as \"vm:120\"",
        )),
    }
}

/// The declaration of `resource`, a `declared` guest named by its hostname or name, else by its
/// URN's last part.
fn declaration(resource: &Json, declared: DeclaredKind, urn: &str, origin: Origin) -> Declaration {
    let input = |name: &str| input(resource, name);
    let urn_name = urn.rsplit("::").next().unwrap_or(urn).to_owned();
    let name = match declared {
        DeclaredKind::Container => input("initialization")
            .and_then(|i| i.get("hostname"))
            .and_then(Json::as_str)
            .map(str::to_owned),
        _ => input("name").and_then(Json::as_str).map(str::to_owned),
    }
    .unwrap_or(urn_name);
    let mut fields = Vec::new();
    let mut push = |field: Field, value: Value| {
        fields.push(FieldValue {
            field,
            value,
            origin: origin.clone(),
        });
    };
    if let Some(v) = input("nodeName") {
        push(Field::Host, scalar(v));
    }
    // 7.x and the 8.x legacy resources: `vmId`; the 8.x `Vm` resource: `resourceId`.
    if let Some(v) = input("vmId").or_else(|| input("resourceId")) {
        push(Field::VmId, scalar(v));
    }
    if let Some(v) = input("onBoot").or_else(|| input("startOnBoot")) {
        push(Field::OnBoot, scalar(v));
    }
    if declared == DeclaredKind::Container {
        // The provider's default is an unprivileged container.
        match input("unprivileged") {
            Some(v) => push(
                Field::Privileged,
                match scalar(v) {
                    Value::Bool(b) => Value::Bool(!b),
                    other => other,
                },
            ),
            None => push(Field::Privileged, Value::Bool(false)),
        }
    }
    Declaration {
        name,
        kind: declared,
        origin,
        fields,
    }
}

/// A JSON scalar as a [`Value`]: whole numbers (the engine writes `120` or `120.0`) as
/// [`Value::Int`], numeric strings stay text.
fn scalar(v: &Json) -> Value {
    if is_secret(v) {
        return Value::Secret;
    }
    match v {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => match n.as_u64() {
            Some(n) => Value::Int(n),
            None => match n.as_f64() {
                Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Value::Int(f as u64),
                _ => Value::Text(n.to_string()),
            },
        },
        Json::String(s) => Value::Text(s.clone()),
        other => Value::Text(other.to_string()),
    }
}

fn yaml_scalar(node: &Node) -> Value {
    match node {
        Node::Bool(b) => Value::Bool(*b),
        Node::Int(n) => u64::try_from(*n).map_or_else(|_| Value::Text(n.to_string()), Value::Int),
        Node::Float(f) => Value::Text(f.to_string()),
        Node::Str(s) => Value::Text(s.clone()),
        Node::Null => Value::Text(String::new()),
        // `secure:` is how a stack config holds an encrypted value.
        Node::Map(entries) if entries.len() == 1 && entries[0].0 == "secure" => Value::Secret,
        Node::Map(_) | Node::Seq(_) => Value::Text("(structured value)".to_owned()),
    }
}

pub(super) fn read_config(evidence: &mut Evidence, file: &str, text: &str) -> Result<(), IacError> {
    let document: Spanned = yaml::parse(text).map_err(|e| IacError::yaml(file, &e))?;
    let config = document
        .node
        .get("config")
        .ok_or_else(|| IacError::shape(file, "config", "missing: not a Pulumi stack config"))?;
    if !matches!(config.node, Node::Map(_)) {
        return Err(IacError::shape(
            file,
            "config",
            "not a mapping of `project:key` to values",
        ));
    }
    let origin_at = |s: &Spanned| Origin {
        kind: EvidenceKind::PulumiConfig,
        file: file.to_owned(),
        line: s.line,
        column: s.column,
        urn: None,
    };
    let source_lines: Vec<&str> = text.lines().collect();
    let keys = evidence.mapping.pulumi.config.clone();
    for mapped in &keys {
        let Some(value) = config.node.get(&mapped.key) else {
            continue;
        };
        let Node::Map(entries) = &value.node else {
            return Err(IacError::shape(
                file,
                format!("config.{}", mapped.key),
                "not a mapping of component names to their settings",
            ));
        };
        for (name, settings) in entries {
            let Node::Map(settings_entries) = &settings.node else {
                return Err(IacError::shape(
                    file,
                    format!("config.{}.{name}", mapped.key),
                    "not a mapping of settings",
                ));
            };
            let fields = settings_entries
                .iter()
                .filter_map(|(setting, v)| {
                    mapped.fields.get(setting).map(|field| FieldValue {
                        field: *field,
                        value: yaml_scalar(&v.node),
                        origin: origin_at(v),
                    })
                })
                .collect();
            // The entry's place is its key: on the mapping's own line (flow style) or on the
            // line before it (block style).
            let mut origin = origin_at(settings);
            let key = format!("{name}:");
            let line_text = |n: u32| source_lines.get((n as usize).wrapping_sub(1)).copied();
            if let Some(at) = line_text(settings.line).and_then(|l| l.find(&key)) {
                origin.column = u32::try_from(at + 1).unwrap_or(u32::MAX);
            } else if let Some(at) =
                line_text(settings.line.saturating_sub(1)).and_then(|l| l.find(&key))
            {
                origin.line = settings.line - 1;
                origin.column = u32::try_from(at + 1).unwrap_or(u32::MAX);
            }
            evidence.declarations.push(Declaration {
                name: name.clone(),
                kind: DeclaredKind::ConfigEntry,
                origin,
                fields,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urn_offsets_are_found_in_one_pass() {
        let text = "{\n  \"urn\": \"urn:a\",\n  \"x\": {\"urn\" : \"urn:b\"}\n}";
        let offsets = urn_offsets(text);
        let lines = Lines::new(text);
        assert_eq!(lines.position(offsets["urn:a"]), (2, 10));
        // Both point at the opening quote of the URN's string.
        assert_eq!(lines.position(offsets["urn:b"]), (3, 17));
    }

    #[test]
    fn scalars_keep_whole_numbers_and_hide_secrets() {
        assert_eq!(scalar(&serde_json::json!(120.0)), Value::Int(120));
        assert_eq!(scalar(&serde_json::json!(120)), Value::Int(120));
        assert_eq!(scalar(&serde_json::json!("120")), Value::Text("120".into()));
        let secret = serde_json::json!({SECRET_SIG_KEY: SECRET_SIG, "ciphertext": "v1:abc"});
        assert_eq!(scalar(&secret), Value::Secret);
    }
}
