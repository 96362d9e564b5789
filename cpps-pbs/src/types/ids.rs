//! Typed identifiers with validating constructors.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;

cpps_proxmox::keep_unknown_enum! {
    /// The type of a backup group: a VM, a container or a host (`backup-type`).
    BackupType {
        /// A QEMU virtual machine (`vm`).
        Vm = "vm",
        /// A container (`ct`).
        Ct = "ct",
        /// A host backup made by `proxmox-backup-client` (`host`).
        Host = "host",
    }
}

fn invalid(kind: &'static str, input: &str, reason: impl Into<String>) -> Error {
    Error::Invalid {
        kind,
        input: input.chars().take(120).collect(),
        reason: reason.into(),
    }
}

/// PBS's "safe id" syntax: `[A-Za-z0-9_][A-Za-z0-9._-]*` (datastore names, realms, token names).
pub(crate) fn is_safe_id(value: &str) -> bool {
    let mut chars = value.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// The name of a datastore: 3 to 32 characters of PBS's safe-id syntax (`DATASTORE_SCHEMA`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DatastoreName(String);

impl DatastoreName {
    /// Validates a datastore name.
    pub fn new(name: impl Into<String>) -> Result<Self, Error> {
        let name = name.into();
        let length = name.chars().count();
        if !(3..=32).contains(&length) {
            return Err(invalid(
                "datastore name",
                &name,
                format!("must be 3 to 32 characters long, not {length}"),
            ));
        }
        if !is_safe_id(&name) {
            return Err(invalid(
                "datastore name",
                &name,
                "may contain only letters, digits, `_`, `.` and `-`, and not start with `.` or `-`",
            ));
        }
        Ok(DatastoreName(name))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for DatastoreName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for DatastoreName {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self, Error> {
        DatastoreName::new(s)
    }
}

impl Serialize for DatastoreName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for DatastoreName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        DatastoreName::new(value).map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "schema")]
impl schemars::JsonSchema for DatastoreName {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DatastoreName".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string" })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datastore_names() {
        assert_eq!(DatastoreName::new("store1").unwrap().as_str(), "store1");
        assert!(DatastoreName::new("ab").is_err());
        assert!(DatastoreName::new("-abc").is_err());
        assert!(DatastoreName::new("a/bc").is_err());
        assert!(DatastoreName::new("x".repeat(33)).is_err());
    }

    #[test]
    fn backup_type_keeps_unknown_values() {
        assert_eq!(BackupType::from("vm"), BackupType::Vm);
        let other: BackupType = serde_json::from_str("\"tape\"").unwrap();
        assert_eq!(other, BackupType::Unknown("tape".to_owned()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"tape\"");
    }
}
