//! The Proxmox API viewer's schema dump (`apidoc.json` of PVE and PBS), for conformance tests
//! (feature `test-util`).
//!
//! Both products publish their API as one tree: `[{path, text, leaf, info: {GET: {parameters,
//! returns, …}, …}, children: […]}]`. PVE writes booleans as `0/1`, PBS as JSON booleans; the
//! helpers here accept both.

use std::path::Path;

use serde_json::Value;

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
