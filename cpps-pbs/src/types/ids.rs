//! Typed identifiers with validating constructors.

use cpps_proxmox_family::names::{NameRule, SAFE_ID};

use crate::Error;

cpps_http::named_enum! {
    /// The type of a backup group: a VM, a container or a host (`backup-type`).
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum BackupType {
        /// A QEMU virtual machine (`vm`).
        Vm => "vm",
        /// A container (`ct`).
        Ct => "ct",
        /// A host backup made by `proxmox-backup-client` (`host`).
        Host => "host",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// `DATASTORE_SCHEMA` of pbs-api-types (`src/datastore.rs`): the safe-id syntax, 3 to 32
/// characters.
const DATASTORE_NAME: NameRule = NameRule::new("datastore name", SAFE_ID).length(3, 32);

cpps_http::validated_string! {
    /// The name of a datastore: 3 to 32 characters of PBS's safe-id syntax (`DATASTORE_SCHEMA`).
    #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct DatastoreName(String);
    check = |name| DATASTORE_NAME.check(name);
    error = Error;
    schema = schemars::Schema::from(DATASTORE_NAME.json_schema());
}

impl DatastoreName {
    /// The rule every value follows.
    pub const RULE: NameRule = DATASTORE_NAME;
}

impl std::fmt::Debug for DatastoreName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DatastoreName({})", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// pbs-api-types `src/datastore.rs` `DATASTORE_SCHEMA`: `PROXMOX_SAFE_ID_FORMAT` (the
    /// `PROXMOX_SAFE_ID_REGEX` of `src/lib.rs`, `^(?:[A-Za-z0-9_][A-Za-z0-9._\-]*)$`),
    /// `min_length(3)`, `max_length(32)`.
    #[test]
    fn datastore_names() {
        assert_eq!(DatastoreName::new("store1").unwrap().as_str(), "store1");
        assert_eq!(
            "_a.b-c".parse::<DatastoreName>().unwrap().to_string(),
            "_a.b-c"
        );
        assert!(DatastoreName::new("ab").is_err());
        assert!(DatastoreName::new("-abc").is_err());
        assert!(DatastoreName::new("a/bc").is_err());
        assert!(DatastoreName::new("x".repeat(32)).is_ok());
        assert!(DatastoreName::new("x".repeat(33)).is_err());
        // The family's message shape, in `cpps_pbs::Error`.
        let Err(error @ Error::Invalid { .. }) = DatastoreName::new("-abc") else {
            panic!("not an invalid name");
        };
        assert_eq!(
            error.to_string(),
            "invalid datastore name `-abc`: may contain only letters, digits, `_`, `.` and `-`, \
             and not start with `.` or `-`"
        );
        assert_eq!(
            DatastoreName::new("ab").unwrap_err().to_string(),
            "invalid datastore name `ab`: must be 3 to 32 characters long, not 2"
        );
        let read: Result<DatastoreName, _> = serde_json::from_str("\"a/b\"");
        assert!(
            read.unwrap_err()
                .to_string()
                .contains("invalid datastore name")
        );
        assert_eq!(
            format!("{:?}", DatastoreName::new("store1").unwrap()),
            "DatastoreName(store1)"
        );
    }

    #[test]
    fn backup_type_keeps_unknown_values() {
        assert_eq!(BackupType::from("vm"), BackupType::Vm);
        let other: BackupType = serde_json::from_str("\"tape\"").unwrap();
        assert_eq!(other, BackupType::Unknown("tape".to_owned()));
        assert_eq!(serde_json::to_string(&other).unwrap(), "\"tape\"");
    }
}
