//! The validated-name building block of the Proxmox family: the name syntaxes the servers
//! check ([`Syntax`]), a rule with its length bounds ([`NameRule`]), and
//! [`validated_name!`](crate::validated_name), which declares a name type of a product crate
//! (PVE's `NodeName` and `SnapshotName`, PBS's `DatastoreName`) over a rule, with the product's
//! own `Error`. Every such type rejects a name with the same message shape:
//! `invalid {kind} `{name}`: {reason}`.

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
}

/// Declares a name type over a [`NameRule`], with the calling crate's error type: `new`
/// (the error is `$error::invalid(kind, name, reason)`), `as_str`, `RULE`, `FromStr`,
/// `TryFrom<&str>`, `TryFrom<String>`, `AsRef<str>`, `Display`, `Debug` (`Name(text)`), serde
/// (as the string, validated when read), and with the calling crate's feature `schema` a
/// `schemars` schema (the pattern and the length bounds). Used by `cpps-proxmox` and
/// `cpps-pbs` alike, so that neither writes a name type by hand.
///
/// ```
/// use cpps_proxmox_family::{Error, names::{NameRule, SAFE_ID}};
///
/// const REMOTE_ID: NameRule = NameRule::new("remote id", SAFE_ID).length(3, 32);
/// cpps_proxmox_family::validated_name! {
///     /// A remote's id.
///     pub struct RemoteId(rule = REMOTE_ID, error = Error);
/// }
/// assert_eq!(RemoteId::new("pbs-b").unwrap().as_str(), "pbs-b");
/// assert_eq!(
///     RemoteId::new("-b").unwrap_err().to_string(),
///     "invalid remote id `-b`: must be 3 to 32 characters long, not 2"
/// );
/// ```
#[macro_export]
macro_rules! validated_name {
    (
        $(#[$meta:meta])*
        pub struct $name:ident(rule = $rule:expr, error = $error:ty);
    ) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(::std::string::String);

        impl $name {
            /// The rule every value follows.
            pub const RULE: $crate::names::NameRule = $rule;

            /// Validates the name.
            pub fn new(name: impl ::std::convert::Into<::std::string::String>) -> ::std::result::Result<Self, $error> {
                let name = name.into();
                match Self::RULE.violation(&name) {
                    ::std::option::Option::None => ::std::result::Result::Ok($name(name)),
                    ::std::option::Option::Some(reason) => {
                        ::std::result::Result::Err(<$error>::invalid(Self::RULE.kind, &name, reason))
                    }
                }
            }

            /// The name.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $error;
            fn from_str(s: &str) -> ::std::result::Result<Self, $error> {
                $name::new(s)
            }
        }

        impl ::std::convert::TryFrom<&str> for $name {
            type Error = $error;
            fn try_from(s: &str) -> ::std::result::Result<Self, $error> {
                $name::new(s)
            }
        }

        impl ::std::convert::TryFrom<::std::string::String> for $name {
            type Error = $error;
            fn try_from(s: ::std::string::String) -> ::std::result::Result<Self, $error> {
                $name::new(s)
            }
        }

        impl ::std::convert::AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl ::std::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                ::std::write!(f, ::std::concat!(::std::stringify!($name), "({})"), self.0)
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let value = <::std::string::String as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                $name::new(value).map_err(<D::Error as $crate::__private::serde::de::Error>::custom)
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                let rule = Self::RULE;
                let mut schema = schemars::json_schema!({
                    "type": "string",
                    "pattern": ::std::format!("^{}$", rule.syntax.pattern),
                    "minLength": rule.min_len,
                });
                if rule.max_len != usize::MAX {
                    schema.insert("maxLength".into(), rule.max_len.into());
                }
                schema
            }
        }
    };
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
}
