//! Typed ids: VM ids, node names, snapshot names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;
use crate::family::names::{self, NameRule};

/// A guest id (`vmid`): 100 to 999 999 999 (`pve-vmid` in pve-apidoc.json).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VmId(u32);

impl VmId {
    /// The smallest valid id.
    pub const MIN: u32 = 100;
    /// The largest valid id.
    pub const MAX: u32 = 999_999_999;

    /// Validates an id.
    pub fn new(id: u32) -> Result<Self, Error> {
        if (Self::MIN..=Self::MAX).contains(&id) {
            Ok(VmId(id))
        } else {
            Err(Error::invalid(
                "VM id",
                &id.to_string(),
                "must be between 100 and 999999999",
            ))
        }
    }

    /// The number.
    pub fn get(self) -> u32 {
        self.0
    }
}

impl TryFrom<u32> for VmId {
    type Error = Error;
    fn try_from(id: u32) -> Result<Self, Error> {
        VmId::new(id)
    }
}

impl FromStr for VmId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let id: u32 = s
            .trim()
            .parse()
            .map_err(|_| Error::invalid("VM id", s, "not a number"))?;
        VmId::new(id)
    }
}

impl fmt::Display for VmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl fmt::Debug for VmId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "VmId({})", self.0)
    }
}

impl Serialize for VmId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

impl<'de> Deserialize<'de> for VmId {
    /// Accepts a number or a string (PVE sends both).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let id: u32 = crate::family::de::integer(d)?;
        VmId::new(id).map_err(serde::de::Error::custom)
    }
}

/// `pve-node` (a host name label: at most 63 characters).
const NODE_NAME: NameRule = NameRule::new("node name", names::PVE_NODE).length(1, 63);

/// `pve-configid`, at most 40 characters (the `snapname` parameter in pve-apidoc.json).
const SNAPSHOT_NAME: NameRule = NameRule::new("snapshot name", names::PVE_CONFIG_ID).length(2, 40);

cpps_http::validated_string! {
    /// A cluster node name (`pve-ippri-31`): letters, digits and inner `-` (`pve-node`).
    #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct NodeName(String);
    check = |name| NODE_NAME.check(name);
    error = Error;
    schema = schemars::Schema::from(NODE_NAME.json_schema());
}

impl fmt::Debug for NodeName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "NodeName({})", self.0)
    }
}

impl NodeName {
    /// The rule every value follows.
    pub const RULE: NameRule = NODE_NAME;
}

cpps_http::validated_string! {
    /// A snapshot name: a letter, then at least one letter, digit, `_` or `-`, at most 40
    /// characters (`pve-configid` in pve-apidoc.json).
    #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct SnapshotName(String);
    check = |name| SNAPSHOT_NAME.check(name);
    error = Error;
    schema = schemars::Schema::from(SNAPSHOT_NAME.json_schema());
}

impl fmt::Debug for SnapshotName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SnapshotName({})", self.0)
    }
}

impl SnapshotName {
    /// The rule every value follows.
    pub const RULE: NameRule = SNAPSHOT_NAME;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_validate() {
        assert!(VmId::new(99).is_err());
        assert_eq!(VmId::new(100).unwrap().get(), 100);
        assert_eq!("201".parse::<VmId>().unwrap().to_string(), "201");
        let v: VmId = serde_json::from_str("\"300\"").unwrap();
        assert_eq!(v.get(), 300);
        assert!(NodeName::new("pve-ippri-31").is_ok());
        assert!(NodeName::new("-x").is_err());
        assert!(NodeName::new("a b").is_err());
        assert!(SnapshotName::new("pre-upgrade_1").is_ok());
        assert!(SnapshotName::new("1st").is_err());
        // pve-common `src/PVE/JSONSchema.pm` `$CONFIGID_RE` (`[a-z][a-z0-9_-]+`, /i) needs two
        // characters and has no dot; `snapname` has `maxLength` 40 in pve-apidoc.json.
        assert!(SnapshotName::new("a").is_err());
        assert!(SnapshotName::new("a.b").is_err());
        assert!(SnapshotName::new("x".repeat(41)).is_err());
        assert_eq!(
            NodeName::new("-x").unwrap_err().to_string(),
            "invalid node name `-x`: must match [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?"
        );
    }
}
