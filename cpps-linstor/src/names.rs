//! Typed names for the objects a call addresses, validated before they reach a URL or a body.
//!
//! The rules follow LINSTOR's own checks: node names are host names (2–255 characters, letters,
//! digits, `-`, `_`, `.`, starting with a letter or digit); resource, resource group, snapshot and
//! storage pool names are 2–48 characters of letters, digits, `_` and `-`, starting with a letter
//! or `_`.

use std::ops::RangeInclusive;

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

cpps_http::validated_string! {
    /// A node name (`pve-ippri-31`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct NodeName(String);
    check = |value| NODE_NAME.check("node name", value);
    error = InvalidName;
}

cpps_http::validated_string! {
    /// A resource (definition) name (`vm-100-disk-1`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct ResourceName(String);
    check = |value| OBJECT_NAME.check("resource name", value);
    error = InvalidName;
}

cpps_http::validated_string! {
    /// A resource group name (`sp-ssd`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct ResourceGroupName(String);
    check = |value| OBJECT_NAME.check("resource group name", value);
    error = InvalidName;
}

cpps_http::validated_string! {
    /// A snapshot name (`before-upgrade`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct SnapshotName(String);
    check = |value| OBJECT_NAME.check("snapshot name", value);
    error = InvalidName;
}

cpps_http::validated_string! {
    /// A storage pool name (`ssd-pool`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct StoragePoolName(String);
    check = |value| OBJECT_NAME.check("storage pool name", value);
    error = InvalidName;
}

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
