//! The validated-name building block of the Proxmox family: the name syntaxes the servers
//! check ([`Syntax`]) and a rule with its length bounds ([`NameRule`]), whose
//! [`NameRule::check`] a product crate's name type (PVE's `NodeName` and `SnapshotName`, PBS's
//! `DatastoreName`, declared with `cpps_http::validated_string!`) runs. Every such type rejects a
//! name with the same message shape: `invalid {kind} `{name}`: {reason}`.
//!
//! ```
//! use cpps_proxmox_family::{Error, names::{NameRule, SAFE_ID}};
//!
//! const REMOTE_ID: NameRule = NameRule::new("remote id", SAFE_ID).length(3, 32);
//! cpps_http::validated_string! {
//!     /// A remote's id.
//!     #[derive(Debug, Clone, PartialEq, Eq)]
//!     pub struct RemoteId(String);
//!     check = |name| REMOTE_ID.check(name);
//!     error = Error;
//! }
//! assert_eq!(RemoteId::new("pbs-b").unwrap().as_str(), "pbs-b");
//! assert_eq!(
//!     RemoteId::new("-b").unwrap_err().to_string(),
//!     "invalid remote id `-b`: must be 3 to 32 characters long, not 2"
//! );
//! ```

use serde_json::{Map, Value};

use crate::{FamilyError, ProductError};

/// A name syntax as a server's schema writes it, with a test of it and its wording for users.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Syntax {
    /// The regular expression (without anchors), as the upstream schema writes it.
    pub pattern: &'static str,
    /// Whether a whole name matches `pattern`.
    pub matches: fn(&str) -> bool,
    /// What `pattern` allows, in words: the reason given when a name does not match.
    pub explained: &'static str,
}

fn safe_id(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn config_id(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && name.len() >= 2
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

fn node_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

/// Proxmox's "safe id" (`PROXMOX_SAFE_ID_REGEX` of pbs-api-types, from proxmox-schema's
/// `SAFE_ID_REGEX`): datastore, remote and job ids, realms, token names.
pub const SAFE_ID: Syntax = Syntax {
    pattern: r"(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)",
    matches: safe_id,
    explained: "may contain only letters, digits, `_`, `.` and `-`, and not start with `.` or `-`",
};

/// PVE's `pve-configid` (pve-common `src/PVE/JSONSchema.pm`, `$CONFIGID_RE`, case-insensitive):
/// snapshot names and other configuration ids; at least two characters.
pub const PVE_CONFIG_ID: Syntax = Syntax {
    pattern: r"[a-zA-Z][a-zA-Z0-9_\-]+",
    matches: config_id,
    explained: "must start with a letter and hold at least one more letter, digit, `_` or `-`, \
                and nothing else",
};

/// PVE's `pve-node` (pve-common `src/PVE/JSONSchema.pm`, `pve_verify_node_name`).
pub const PVE_NODE: Syntax = Syntax {
    pattern: r"[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?",
    matches: node_name,
    explained: "must match [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?",
};

/// What a validated name must be: its kind (for messages), its syntax and its length bounds.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct NameRule {
    /// What kind of name (`datastore name`), as messages name it.
    pub kind: &'static str,
    /// The syntax.
    pub syntax: Syntax,
    /// The fewest characters allowed.
    pub min_len: usize,
    /// The most characters allowed.
    pub max_len: usize,
}

impl NameRule {
    /// A rule of `syntax` with no length bounds but non-empty.
    pub const fn new(kind: &'static str, syntax: Syntax) -> NameRule {
        NameRule {
            kind,
            syntax,
            min_len: 1,
            max_len: usize::MAX,
        }
    }

    /// With these length bounds (characters, both included).
    pub const fn length(self, min_len: usize, max_len: usize) -> NameRule {
        NameRule {
            min_len,
            max_len,
            ..self
        }
    }

    /// Why `name` breaks the rule, or `None` when it follows it.
    pub fn violation(&self, name: &str) -> Option<String> {
        let length = name.chars().count();
        if !(self.min_len..=self.max_len).contains(&length) {
            return Some(if self.max_len == usize::MAX && self.min_len <= 1 {
                "must not be empty".to_owned()
            } else if self.max_len == usize::MAX {
                format!(
                    "must be at least {} characters long, not {length}",
                    self.min_len
                )
            } else {
                format!(
                    "must be {} to {} characters long, not {length}",
                    self.min_len, self.max_len
                )
            });
        }
        (!(self.syntax.matches)(name)).then(|| self.syntax.explained.to_owned())
    }

    /// `Ok` when `name` follows the rule, else the product's [`FamilyError::Invalid`] with the
    /// rule's kind and [`Self::violation`]'s reason: the check a name type declared with
    /// `cpps_http::validated_string!` runs.
    pub fn check<P: ProductError>(&self, name: &str) -> Result<(), FamilyError<P>> {
        match self.violation(name) {
            None => Ok(()),
            Some(reason) => Err(FamilyError::invalid(self.kind, name, reason)),
        }
    }

    /// The JSON Schema of a name following the rule (the pattern, anchored, and the length
    /// bounds), as the object `schemars::Schema::from` takes.
    pub fn json_schema(&self) -> Map<String, Value> {
        let mut schema = Map::new();
        schema.insert("type".into(), "string".into());
        schema.insert(
            "pattern".into(),
            format!("^{}$", self.syntax.pattern).into(),
        );
        schema.insert("minLength".into(), self.min_len.into());
        if self.max_len != usize::MAX {
            schema.insert("maxLength".into(), self.max_len.into());
        }
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pbs-api-types `src/lib.rs`: `PROXMOX_SAFE_ID_REGEX` is proxmox-schema's
    /// `SAFE_ID_REGEX`, `^(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)$` (also the `realm` and `store`
    /// patterns of pbs-apidoc.json).
    #[test]
    fn safe_ids_follow_proxmox_safe_id_regex() {
        for good in ["store1", "_x", "a.b-c_d", "9", "PBS-B"] {
            assert!((SAFE_ID.matches)(good), "{good}");
        }
        for bad in ["", "-a", ".a", "a/b", "a b", "a:b", "ä"] {
            assert!(!(SAFE_ID.matches)(bad), "{bad}");
        }
    }

    /// pve-common `src/PVE/JSONSchema.pm`: `$CONFIGID_RE = qr/[a-z][a-z0-9_-]+/i`, checked
    /// by `pve_verify_configid` as `^$CONFIGID_RE$`: a letter, then at least one more.
    #[test]
    fn config_ids_follow_pve_configid() {
        for good in ["pre-upgrade_1", "Ab", "x9", "a-"] {
            assert!((PVE_CONFIG_ID.matches)(good), "{good}");
        }
        for bad in ["a", "1st", "_a", "a.b", "a b", ""] {
            assert!(!(PVE_CONFIG_ID.matches)(bad), "{bad}");
        }
    }

    /// pve-common `src/PVE/JSONSchema.pm` `pve_verify_node_name`:
    /// `^([a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?)$`.
    #[test]
    fn node_names_follow_pve_node() {
        for good in ["pve-ippri-31", "a", "PVE1"] {
            assert!((PVE_NODE.matches)(good), "{good}");
        }
        for bad in ["-x", "x-", "a b", "a.b", "a_b", ""] {
            assert!(!(PVE_NODE.matches)(bad), "{bad}");
        }
    }

    #[test]
    fn lengths_are_counted_in_characters_and_named_in_the_reason() {
        let rule = NameRule::new("datastore name", SAFE_ID).length(3, 32);
        assert_eq!(rule.violation("store1"), None);
        assert_eq!(
            rule.violation("ab").as_deref(),
            Some("must be 3 to 32 characters long, not 2")
        );
        assert_eq!(
            NameRule::new("x", PVE_CONFIG_ID).violation("").as_deref(),
            Some("must not be empty")
        );
        assert_eq!(rule.violation("a/bc").as_deref(), Some(SAFE_ID.explained));
    }

    #[test]
    fn the_schema_anchors_the_pattern_and_states_the_bounds() {
        let rule = NameRule::new("datastore name", SAFE_ID).length(3, 32);
        assert_eq!(
            Value::Object(rule.json_schema()),
            serde_json::json!({
                "type": "string",
                "pattern": format!("^{}$", SAFE_ID.pattern),
                "minLength": 3,
                "maxLength": 32,
            })
        );
        let open = NameRule::new("x", SAFE_ID).json_schema();
        assert!(!open.contains_key("maxLength"));
    }
}
