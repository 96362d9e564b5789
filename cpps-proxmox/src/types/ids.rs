//! Typed ids: VM ids, node names, snapshot names.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;

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
        let id = crate::family::de::u32(d)?;
        VmId::new(id).map_err(serde::de::Error::custom)
    }
}

/// Validates a name against `[a-zA-Z0-9]([a-zA-Z0-9\-]*[a-zA-Z0-9])?` (`pve-node`).
fn valid_node(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 63
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
}

macro_rules! name_type {
    ($(#[$doc:meta])* $ty:ident, $kind:literal, $check:expr, $rule:literal) => {
        $(#[$doc])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $ty(String);

        impl $ty {
            /// Validates the name.
            pub fn new(name: impl Into<String>) -> Result<Self, Error> {
                let name = name.into();
                let check: fn(&str) -> bool = $check;
                if check(&name) {
                    Ok($ty(name))
                } else {
                    Err(Error::invalid($kind, &name, $rule))
                }
            }

            /// The name.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl FromStr for $ty {
            type Err = Error;
            fn from_str(s: &str) -> Result<Self, Error> {
                $ty::new(s)
            }
        }

        impl TryFrom<&str> for $ty {
            type Error = Error;
            fn try_from(s: &str) -> Result<Self, Error> {
                $ty::new(s)
            }
        }

        impl TryFrom<String> for $ty {
            type Error = Error;
            fn try_from(s: String) -> Result<Self, Error> {
                $ty::new(s)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($ty), "({})"), self.0)
            }
        }

        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(&self.0)
            }
        }

        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $ty::new(String::deserialize(d)?).map_err(serde::de::Error::custom)
            }
        }
    };
}

name_type!(
    /// A cluster node name (`pve-ippri-31`): letters, digits and inner `-` (`pve-node`).
    NodeName,
    "node name",
    valid_node,
    "must match [a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?"
);

name_type!(
    /// A snapshot name: a letter, then letters, digits, `_` or `-`, at most 40 characters
    /// (`pve-configid` in pve-apidoc.json).
    SnapshotName,
    "snapshot name",
    |s| {
        let mut chars = s.chars();
        s.len() <= 40
            && matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    },
    "must start with a letter and hold only letters, digits, `_` and `-` (at most 40)"
);

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
    }
}
