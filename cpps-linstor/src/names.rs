//! Typed names for the objects a call addresses, validated before they reach a URL or a body.
//!
//! The rules follow LINSTOR's own checks: node names are host names (2–255 characters, letters,
//! digits, `-`, `_`, `.`, starting with a letter or digit); resource, resource group, snapshot and
//! storage pool names are 2–48 characters of letters, digits, `_` and `-`, starting with a letter
//! or `_`.

use std::fmt;
use std::ops::RangeInclusive;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

/// A name that failed validation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {kind} `{value}`: {reason}")]
pub struct InvalidName {
    /// What kind of name it was.
    pub kind: &'static str,
    /// The rejected value.
    pub value: String,
    /// Which rule it broke.
    pub reason: &'static str,
}

/// The rule one kind of name follows: its length, its first character, all its characters,
/// each with the reason a name breaking it is refused for.
struct NameRule {
    length: RangeInclusive<usize>,
    length_reason: &'static str,
    first: fn(char) -> bool,
    first_reason: &'static str,
    every: fn(char) -> bool,
    every_reason: &'static str,
}

/// Resource, resource group, snapshot and storage pool names.
const OBJECT_NAME: NameRule = NameRule {
    length: 2..=48,
    length_reason: "must be 2 to 48 characters long",
    first: |c| c.is_ascii_alphabetic() || c == '_',
    first_reason: "must start with a letter or `_`",
    every: |c| c.is_ascii_alphanumeric() || c == '_' || c == '-',
    every_reason: "may hold only letters, digits, `_` and `-`",
};

/// Node names: host names.
const NODE_NAME: NameRule = NameRule {
    length: 2..=255,
    length_reason: "must be 2 to 255 characters long",
    first: |c| c.is_ascii_alphanumeric(),
    first_reason: "must start with a letter or digit",
    every: |c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'),
    every_reason: "may hold only letters, digits, `-`, `_` and `.`",
};

impl NameRule {
    /// `value` as a name of `kind`, or the first part of the rule it breaks.
    fn check(&self, kind: &'static str, value: &str) -> Result<(), InvalidName> {
        let reason = if !self.length.contains(&value.chars().count()) {
            self.length_reason
        } else if !value.chars().next().is_some_and(self.first) {
            self.first_reason
        } else if !value.chars().all(self.every) {
            self.every_reason
        } else {
            return Ok(());
        };
        Err(InvalidName {
            kind,
            value: value.to_owned(),
            reason,
        })
    }
}

macro_rules! name_type {
    ($(#[$meta:meta])* $name:ident, $kind:literal, $rule:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Validates and wraps a name.
            pub fn new(value: impl Into<String>) -> Result<Self, InvalidName> {
                let value = value.into();
                $rule.check($kind, &value)?;
                Ok($name(value))
            }

            /// The name.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl FromStr for $name {
            type Err = InvalidName;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                $name::new(value)
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = String::deserialize(deserializer)?;
                $name::new(value).map_err(serde::de::Error::custom)
            }
        }
    };
}

name_type!(
    /// A node name (`pve-ippri-31`).
    NodeName,
    "node name",
    NODE_NAME
);
name_type!(
    /// A resource (definition) name (`vm-100-disk-1`).
    ResourceName,
    "resource name",
    OBJECT_NAME
);
name_type!(
    /// A resource group name (`sp-ssd`).
    ResourceGroupName,
    "resource group name",
    OBJECT_NAME
);
name_type!(
    /// A snapshot name (`before-upgrade`).
    SnapshotName,
    "snapshot name",
    OBJECT_NAME
);
name_type!(
    /// A storage pool name (`ssd-pool`).
    StoragePoolName,
    "storage pool name",
    OBJECT_NAME
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_linstor_rules() {
        assert!(NodeName::new("pve-ippri-31").is_ok());
        assert!(NodeName::new("node1.example.org").is_ok());
        assert!(NodeName::new("-x").is_err());
        assert!(NodeName::new("a/b").is_err());
        assert!(ResourceName::new("vm-100-disk-1").is_ok());
        assert!(ResourceName::new("1abc").is_err());
        assert!(ResourceName::new("a").is_err());
        assert!(ResourceName::new("x".repeat(49)).is_err());
        let err = SnapshotName::new("a b").unwrap_err();
        assert_eq!(err.kind, "snapshot name");
        assert_eq!(
            err.to_string(),
            "invalid snapshot name `a b`: may hold only letters, digits, `_` and `-`"
        );
        let parsed: ResourceGroupName = serde_json::from_str("\"sp-ssd\"").unwrap();
        assert_eq!(parsed.as_str(), "sp-ssd");
        assert!(serde_json::from_str::<ResourceGroupName>("\"../x\"").is_err());
    }
}
