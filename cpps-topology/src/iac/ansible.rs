//! Ansible: the JSON of `ansible-inventory -i INVENTORY --list`.
//!
//! Its shape (ansible-core `lib/ansible/cli/inventory.py`, `json_inventory`): `_meta.hostvars`
//! maps every host to its variables, and every other top-level key is a group with `hosts`
//! and `children` lists. The JSON has no line numbers of the inventory; when the inventory
//! itself is given (`ansible-source`), findings point at the host's line there.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value as Json;

use super::{
    Declaration, DeclaredKind, Evidence, EvidenceKind, FieldValue, IacError, Origin, Value,
};

/// Where names are written in a file: the first line whose first token is the name.
struct NameLines {
    file: String,
    lines: Vec<String>,
    first: HashMap<String, usize>,
}

impl NameLines {
    fn new(file: &str, text: &str) -> Self {
        let lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let mut first = HashMap::new();
        for (i, line) in lines.iter().enumerate() {
            if let Some(token) = first_token(line) {
                first.entry(token.to_owned()).or_insert(i);
            }
        }
        Self {
            file: file.to_owned(),
            lines,
            first,
        }
    }

    /// (line, column) of `host`, 1-based.
    fn host(&self, host: &str) -> Option<(u32, u32)> {
        let i = *self.first.get(host)?;
        let column = self.lines[i].find(host).unwrap_or(0) + 1;
        Some((to_u32(i + 1), to_u32(column)))
    }

    /// (line, column) of variable `var` of `host`: on the host's line (INI `host var=value`)
    /// or in the block below it (YAML `host:` then `var: value` indented deeper).
    fn var(&self, host: &str, var: &str) -> Option<(u32, u32)> {
        let i = *self.first.get(host)?;
        let ini = format!("{var}=");
        if let Some(at) = self.lines[i].find(&ini) {
            return Some((to_u32(i + 1), to_u32(at + 1)));
        }
        let indent = indentation(&self.lines[i]);
        let yaml = format!("{var}:");
        for (j, line) in self.lines.iter().enumerate().skip(i + 1) {
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            if indentation(line) <= indent {
                break;
            }
            if line.trim_start().starts_with(&yaml) {
                return Some((to_u32(j + 1), to_u32(indentation(line) + 1)));
            }
        }
        None
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The first token of a line: up to whitespace, `:` or `=`; quotes removed.
fn first_token(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
        return None;
    }
    let end = trimmed
        .find(|c: char| c.is_whitespace() || c == ':' || c == '=')
        .unwrap_or(trimmed.len());
    let token = trimmed[..end].trim_matches(|c| c == '"' || c == '\'');
    (!token.is_empty()).then_some(token)
}

pub(super) fn read_list(
    evidence: &mut Evidence,
    file: &str,
    text: &str,
    source: Option<(&str, &str)>,
) -> Result<(), IacError> {
    let document: Json = serde_json::from_str(text).map_err(|e| IacError::json(file, &e))?;
    let groups = document
        .as_object()
        .ok_or_else(|| IacError::shape(file, "(top)", "not an object of groups"))?;
    let hostvars = document
        .get("_meta")
        .and_then(|m| m.get("hostvars"))
        .map(|h| {
            h.as_object()
                .ok_or_else(|| IacError::shape(file, "_meta.hostvars", "not an object of hosts"))
        })
        .transpose()?;
    let hosts = all_hosts(file, groups, hostvars)?;
    let json_lines = NameLines::new(file, &json_names(text));
    let source_lines = source.map(|(name, text)| NameLines::new(name, text));
    let place =
        |host: &str, var: Option<&str>| place(&json_lines, source_lines.as_ref(), host, var);
    let mapping = evidence.mapping.ansible.clone();
    for host in hosts {
        let vars = hostvars.and_then(|h| h.get(host)).and_then(Json::as_object);
        let mut fields = Vec::new();
        for (var, field) in &mapping.hostvars {
            let Some(value) = vars.and_then(|v| v.get(var)) else {
                continue;
            };
            fields.push(FieldValue {
                field: *field,
                value: hostvar_value(value),
                origin: place(host, Some(var)),
            });
        }
        evidence.declarations.push(Declaration {
            name: host.to_owned(),
            kind: DeclaredKind::InventoryHost,
            origin: place(host, None),
            fields,
        });
    }
    for (group, component) in &mapping.groups {
        if groups.contains_key(group) {
            let (line, column) = json_lines.host(group).unwrap_or((0, 0));
            evidence.declarations.push(Declaration {
                name: component.clone(),
                kind: DeclaredKind::InventoryGroup,
                origin: Origin {
                    kind: EvidenceKind::Ansible,
                    file: file.to_owned(),
                    line,
                    column,
                    urn: None,
                },
                fields: Vec::new(),
            });
        }
    }
    Ok(())
}

/// Every host: those with variables and those only listed in a group.
fn all_hosts<'a>(
    file: &str,
    groups: &'a serde_json::Map<String, Json>,
    hostvars: Option<&'a serde_json::Map<String, Json>>,
) -> Result<BTreeSet<&'a str>, IacError> {
    let mut hosts: BTreeSet<&str> = hostvars
        .map(|h| h.keys().map(String::as_str).collect())
        .unwrap_or_default();
    for (group, body) in groups {
        if group == "_meta" {
            continue;
        }
        if let Some(list) = body.get("hosts") {
            let list = list.as_array().ok_or_else(|| {
                IacError::shape(file, format!("{group}.hosts"), "not a list of host names")
            })?;
            for (i, host) in list.iter().enumerate() {
                hosts.insert(host.as_str().ok_or_else(|| {
                    IacError::shape(file, format!("{group}.hosts[{i}]"), "not a host name")
                })?);
            }
        }
    }
    Ok(hosts)
}

/// Where `host`'s variable `var` (or, without one, the host) is written: in the inventory's
/// source where it is given and names it, else in the JSON list output.
fn place(
    json_lines: &NameLines,
    source_lines: Option<&NameLines>,
    host: &str,
    var: Option<&str>,
) -> Origin {
    if let Some(lines) = source_lines {
        let at = var
            .and_then(|v| lines.var(host, v))
            .or_else(|| lines.host(host));
        if let Some((line, column)) = at {
            return Origin {
                kind: EvidenceKind::Ansible,
                file: lines.file.clone(),
                line,
                column,
                urn: None,
            };
        }
    }
    let (line, column) = json_lines.host(host).unwrap_or((0, 0));
    Origin {
        kind: EvidenceKind::Ansible,
        file: json_lines.file.clone(),
        line,
        column,
        urn: None,
    }
}

/// A host variable's value as the IaC evidence holds it.
fn hostvar_value(value: &Json) -> Value {
    match value {
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => n
            .as_u64()
            .map_or_else(|| Value::Text(n.to_string()), Value::Int),
        Json::String(s) => Value::Text(s.clone()),
        Json::Null => Value::Text(String::new()),
        // Vault-encrypted variables print as `{"__ansible_vault": "…"}`.
        Json::Object(o) if o.contains_key("__ansible_vault") => Value::Secret,
        other => Value::Text(other.to_string()),
    }
}

/// The JSON text with `"name": {` lines turned into `name: {`, so that [`NameLines`] finds the
/// line of each host's (and group's) object in the list output.
fn json_names(text: &str) -> String {
    text.lines()
        .map(|line| {
            let trimmed = line.trim_start();
            match trimmed.strip_prefix('"').and_then(|r| r.split_once("\":")) {
                Some((name, rest)) if rest.trim_start().starts_with('{') => {
                    format!("{}{name}:{rest}", &line[..line.len() - trimmed.len()])
                }
                _ => String::new(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
