//! High availability: `/cluster/ha/resources` and `/cluster/ha/status/current`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;
use crate::family::de;
use crate::types::{ClusterResource, GuestKind, ResourceType, VmId};

/// An HA resource id: `vm:100` or `ct:200`. A bare VMID is refused by [`FromStr`]: PVE
/// resolves it through the guest list, which [`HaSid::resolve`] does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HaSid {
    /// VM or container.
    pub kind: GuestKind,
    /// The guest.
    pub vmid: VmId,
}

impl HaSid {
    /// Reads `text` as PVE does (pve-ha-manager `src/PVE/HA/Config.pm` `parse_sid`): `vm:ID`
    /// and `ct:ID` as written, and a bare VMID by looking its type up among `guests` (the
    /// `qemu` and `lxc` entries of `GET /cluster/resources`), so `200` is `ct:200` for a
    /// container. A bare VMID that is not among them is an error, as on the server.
    pub fn resolve(text: &str, guests: &[ClusterResource]) -> Result<HaSid, Error> {
        if text.contains(':') {
            return text.parse();
        }
        let vmid: VmId = text.parse()?;
        let kind = guests
            .iter()
            .filter(|g| g.vmid == Some(vmid))
            .find_map(|g| match g.kind {
                ResourceType::Qemu => Some(GuestKind::Qemu),
                ResourceType::Lxc => Some(GuestKind::Lxc),
                _ => None,
            })
            .ok_or_else(|| {
                Error::invalid(
                    "HA resource id",
                    text,
                    "unable to detect the type from the VMID: the VM/CT does not exist",
                )
            })?;
        Ok(HaSid { kind, vmid })
    }
}

impl FromStr for HaSid {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        let (kind, id) = match s.split_once(':') {
            Some(("vm", id)) => (GuestKind::Qemu, id),
            Some(("ct", id)) => (GuestKind::Lxc, id),
            Some(_) => {
                return Err(Error::invalid(
                    "HA resource id",
                    s,
                    "expected `vm:ID` or `ct:ID`",
                ));
            }
            // PVE finds a bare VMID's type in the cluster's vmlist (`HA/Config.pm`
            // `parse_sid`); guessing `vm:` would name the wrong resource for a container.
            None => {
                return Err(Error::invalid(
                    "HA resource id",
                    s,
                    "expected `vm:ID` or `ct:ID` (a bare VMID needs the guest list: HaSid::resolve)",
                ));
            }
        };
        Ok(HaSid {
            kind,
            vmid: id.parse()?,
        })
    }
}

impl fmt::Display for HaSid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            GuestKind::Qemu => "vm",
            GuestKind::Lxc => "ct",
        };
        write!(f, "{prefix}:{}", self.vmid)
    }
}

impl Serialize for HaSid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for HaSid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// One entry of `GET /cluster/ha/resources`.
///
/// pve-apidoc.json documents only `sid` for the list items; PVE returns the resource's
/// configuration beside it (`PVE::API2::HA::Resources` index: `type`, `state`, `group`, …),
/// which the conformance test checks against `GET /cluster/ha/resources/{sid}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HaResource {
    /// `vm:100`, `ct:200`.
    pub sid: String,
    /// `vm` or `ct`.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Requested state (`started`, `stopped`, `disabled`, `ignored`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// HA group (PVE 8; rules replace groups in PVE 9).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Comment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// Restart attempts on the same node.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub max_restart: Option<u32>,
    /// Relocation attempts.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub max_relocate: Option<u32>,
}

impl HaResource {
    /// The resource id, typed (`None` for ids this client does not know).
    pub fn guest(&self) -> Option<HaSid> {
        self.sid.parse().ok()
    }

    /// The state the resource requests, as the HA manager reads it: `started` where none is
    /// written (the list gives the section config as written, so the schema's default is left
    /// out), and for the old `enabled` (pve-ha-manager `src/PVE/HA/Config.pm`
    /// `read_and_check_resources_config`).
    pub fn requested_state(&self) -> &str {
        match self.state.as_deref() {
            None | Some("enabled") => "started",
            Some(state) => state,
        }
    }
}

cpps_http::named_enum! {
    /// The kind of a `/cluster/ha/status/current` entry.
    #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum HaStatusType {
        /// Quorum.
        Quorum => "quorum",
        /// The cluster resource manager master.
        Master => "master",
        /// A node's local resource manager.
        Lrm => "lrm",
        /// A managed resource.
        Service => "service",
        /// Fencing (PVE 9).
        Fencing => "fencing",
        _ => Unknown(String),
    }
    impl JsonSchema;
}

/// One entry of `GET /cluster/ha/status/current`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HaStatusEntry {
    /// `quorum`, `master`, `lrm:NODE`, `service:SID`.
    pub id: String,
    /// The kind.
    #[serde(rename = "type")]
    pub kind: HaStatusType,
    /// Human-readable status line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    /// Node (lrm, master, service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// Quorum entry: whether quorate.
    #[serde(default, deserialize_with = "de::opt_bool")]
    pub quorate: Option<bool>,
    /// Service: the resource id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sid: Option<String>,
    /// Service: the current state (`started`, `stopped`, `fence`, `error`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Service: the requested state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Service: the CRM state.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crm_state: Option<String>,
    /// Last update (Unix epoch seconds).
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub timestamp: Option<u64>,
    /// Fencing entry (pve-ha-manager 5.1.3+): `armed`, `standby`, `disarming`, `disarmed`.
    #[serde(
        rename = "armed-state",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub armed_state: Option<String>,
    /// Fencing entry, while disarmed: `freeze` or `ignore`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_mode: Option<String>,
}

/// What PVE 9 answers to an HA migrate or relocate (pve-ha-manager
/// `src/PVE/API2/HA/Resources.pm`); PVE 8 answers `null`, read as the default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub struct HaMove {
    /// The node asked for.
    #[serde(default)]
    pub requested_node: Option<String>,
    /// Resources that move along (positive resource affinity).
    #[serde(default, rename = "comigrated-resources")]
    pub comigrated: Vec<String>,
    /// Resources that keep it from the node (negative resource affinity): the HA manager
    /// drops such a move.
    #[serde(default, rename = "blocking-resources")]
    pub blocking: Vec<HaBlocker>,
}

/// A resource blocking an HA move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HaBlocker {
    /// The blocking resource (`ct:201`).
    pub sid: String,
    /// Why (`resource-affinity`; a newer release's value is kept as written).
    #[serde(default)]
    pub cause: Option<String>,
}
