//! `ApiCallRc`: LINSTOR's answer to every write, and its error body.
//!
//! The `ret_code` is a 64-bit mask. Its layout is LINSTOR's `ApiConsts` (mirrored in golinstor's
//! `apiconsts.go`): bits 62–63 are the message type, bits 24–25 the operation, bits 18–22 the
//! object, and bits 0–14 the code. The type bits are compared *exactly*: an error has both bits
//! set (`0xC…`), a warning only bit 63 (`0x8…`), an info only bit 62 (`0x4…`), a success
//! neither. python-linstor tests `ret_code & MASK_WARN`, which is also true for errors; this
//! module does not.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::types::de;

/// The two message-type bits (`ApiConsts.MASK_BITS_TYPE`).
pub const MASK_BITS_TYPE: u64 = 0xC000_0000_0000_0000;
/// Type bits of an error (`ApiConsts.MASK_ERROR`).
pub const MASK_ERROR: u64 = 0xC000_0000_0000_0000;
/// Type bits of a warning (`ApiConsts.MASK_WARN`).
pub const MASK_WARN: u64 = 0x8000_0000_0000_0000;
/// Type bits of an info message (`ApiConsts.MASK_INFO`).
pub const MASK_INFO: u64 = 0x4000_0000_0000_0000;
/// Type bits of a success (`ApiConsts.MASK_SUCCESS`).
pub const MASK_SUCCESS: u64 = 0;
/// The operation bits (`ApiConsts.MASK_BITS_OP`).
pub const MASK_BITS_OP: u64 = 0x0000_0000_0300_0000;
/// The object bits (`ApiConsts.MASK_BITS_OBJ`).
pub const MASK_BITS_OBJ: u64 = 0x0000_0000_007C_0000;
/// The code bits (`ApiConsts.MASK_BITS_CODE`).
pub const MASK_BITS_CODE: u64 = 0x0000_0000_0000_7FFF;

cpps_http::named_enum! {
    /// What kind of message an [`ApiCallRc`] is, from its two type bits.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum RcKind {
        /// Neither type bit set.
        Success => "success",
        /// Only bit 62 set.
        Info => "info",
        /// Only bit 63 set.
        Warning => "warning",
        /// Both type bits set.
        Error => "error",
    }
}

impl RcKind {
    /// The kind encoded in a `ret_code`.
    pub fn of(ret_code: i64) -> RcKind {
        match ret_code as u64 & MASK_BITS_TYPE {
            MASK_ERROR => RcKind::Error,
            MASK_WARN => RcKind::Warning,
            MASK_INFO => RcKind::Info,
            _ => RcKind::Success,
        }
    }
}

/// The operation encoded in a `ret_code` (bits 24–25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RcOperation {
    /// No operation bits set.
    None,
    /// `MASK_CRT`.
    Create,
    /// `MASK_MOD`.
    Modify,
    /// `MASK_DEL`.
    Delete,
}

impl RcOperation {
    /// The operation encoded in a `ret_code`.
    pub fn of(ret_code: i64) -> RcOperation {
        match ret_code as u64 & MASK_BITS_OP {
            0x0100_0000 => RcOperation::Create,
            0x0200_0000 => RcOperation::Modify,
            0x0300_0000 => RcOperation::Delete,
            _ => RcOperation::None,
        }
    }
}

/// The object kind encoded in a `ret_code` (bits 18–22), per `ApiConsts`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum RcObject {
    /// No object bits set.
    None,
    /// `MASK_REMOTE`.
    Remote,
    /// `MASK_BACKUP`.
    Backup,
    /// `MASK_SNAPSHOT`.
    Snapshot,
    /// `MASK_CTRL_CONF`.
    ControllerConfig,
    /// `MASK_STOR_POOL`.
    StoragePool,
    /// `MASK_STOR_POOL_DFN`.
    StoragePoolDefinition,
    /// `MASK_NET_IF`.
    NetInterface,
    /// `MASK_VLM_CONN`.
    VolumeConnection,
    /// `MASK_RSC_CONN`.
    ResourceConnection,
    /// `MASK_NODE_CONN`.
    NodeConnection,
    /// `MASK_VLM`.
    Volume,
    /// `MASK_VLM_DFN`.
    VolumeDefinition,
    /// `MASK_RSC`.
    Resource,
    /// `MASK_RSC_DFN`.
    ResourceDefinition,
    /// `MASK_NODE`.
    Node,
    /// `MASK_KVS`.
    KeyValueStore,
    /// `MASK_RSC_GRP`.
    ResourceGroup,
    /// `MASK_VLM_GRP`.
    VolumeGroup,
    /// `MASK_PHYSICAL_DEVICE`.
    PhysicalDevice,
    /// `MASK_EXT_FILES`.
    ExternalFiles,
    /// `MASK_SCHEDULE`.
    Schedule,
    /// Object bits this client does not know, kept as the masked value.
    Unknown(u64),
}

impl RcObject {
    /// The object kind encoded in a `ret_code`.
    pub fn of(ret_code: i64) -> RcObject {
        match ret_code as u64 & MASK_BITS_OBJ {
            0 => RcObject::None,
            0x04_0000 => RcObject::Remote,
            0x08_0000 => RcObject::Backup,
            0x0C_0000 => RcObject::Snapshot,
            0x10_0000 => RcObject::ControllerConfig,
            0x14_0000 => RcObject::StoragePool,
            0x18_0000 => RcObject::StoragePoolDefinition,
            0x1C_0000 => RcObject::NetInterface,
            0x20_0000 => RcObject::VolumeConnection,
            0x24_0000 => RcObject::ResourceConnection,
            0x28_0000 => RcObject::NodeConnection,
            0x2C_0000 => RcObject::Volume,
            0x30_0000 => RcObject::VolumeDefinition,
            0x34_0000 => RcObject::Resource,
            0x38_0000 => RcObject::ResourceDefinition,
            0x3C_0000 => RcObject::Node,
            0x40_0000 => RcObject::KeyValueStore,
            0x44_0000 => RcObject::ResourceGroup,
            0x48_0000 => RcObject::VolumeGroup,
            0x4C_0000 => RcObject::PhysicalDevice,
            0x50_0000 => RcObject::ExternalFiles,
            0x54_0000 => RcObject::Schedule,
            other => RcObject::Unknown(other),
        }
    }
}

/// A few well-known codes (the low 15 bits), from `ApiConsts`.
pub mod codes {
    /// `CREATED` (success).
    pub const CREATED: u64 = 1;
    /// `DELETED` (success).
    pub const DELETED: u64 = 2;
    /// `MODIFIED` (success).
    pub const MODIFIED: u64 = 3;
    /// `FAIL_INVLD_PLACE_COUNT`.
    pub const FAIL_INVALID_PLACE_COUNT: u64 = 219;
    /// `FAIL_NOT_FOUND_NODE`.
    pub const FAIL_NOT_FOUND_NODE: u64 = 300;
    /// `FAIL_NOT_FOUND_RSC_DFN`.
    pub const FAIL_NOT_FOUND_RESOURCE_DEFINITION: u64 = 301;
    /// `FAIL_NOT_FOUND_SNAPSHOT_DFN`.
    pub const FAIL_NOT_FOUND_SNAPSHOT_DEFINITION: u64 = 313;
    /// `FAIL_NOT_FOUND_RSC_GRP`.
    pub const FAIL_NOT_FOUND_RESOURCE_GROUP: u64 = 317;
    /// `FAIL_EXISTS_SNAPSHOT_DFN`.
    pub const FAIL_EXISTS_SNAPSHOT_DEFINITION: u64 = 514;
    /// `FAIL_NOT_ENOUGH_FREE_SPACE`.
    pub const FAIL_NOT_ENOUGH_FREE_SPACE: u64 = 980;
    /// `FAIL_INSUFFICIENT_REPLICA_COUNT`.
    pub const FAIL_INSUFFICIENT_REPLICA_COUNT: u64 = 991;
    /// `FAIL_NOT_CONNECTED`.
    pub const FAIL_NOT_CONNECTED: u64 = 995;
    /// `FAIL_NOT_ENOUGH_NODES`.
    pub const FAIL_NOT_ENOUGH_NODES: u64 = 996;
    /// `FAIL_IN_USE`.
    pub const FAIL_IN_USE: u64 = 997;
    /// `WARN_NOT_CONNECTED`.
    pub const WARN_NOT_CONNECTED: u64 = 1002;
    /// `WARN_STLT_NOT_UPDATED`.
    pub const WARN_SATELLITE_NOT_UPDATED: u64 = 1003;
    /// `WARN_NODE_EVICTED`.
    pub const WARN_NODE_EVICTED: u64 = 1017;
}

/// One message of a LINSTOR answer (`ApiCallRc` in the spec).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiCallRc {
    /// The masked return code; see [`ApiCallRc::kind`], [`ApiCallRc::operation`],
    /// [`ApiCallRc::object`] and [`ApiCallRc::code`].
    pub ret_code: i64,
    /// The message.
    #[serde(default, deserialize_with = "de::null_default")]
    pub message: String,
    /// Cause of the error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    /// Details of the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<String>,
    /// Possible correction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub correction: Option<String>,
    /// Ids of the error reports about this message (`linstor error-reports show ID`).
    #[serde(default, deserialize_with = "de::null_default")]
    pub error_report_ids: Vec<String>,
    /// The objects involved (`Node`, `RscDfn`, `SnapshotName`, …).
    #[serde(default, deserialize_with = "de::null_default")]
    pub obj_refs: BTreeMap<String, String>,
    /// When the message was created (RFC 3339), when the controller says.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_at: Option<String>,
}

impl ApiCallRc {
    /// The message type, from the two type bits compared exactly.
    pub fn kind(&self) -> RcKind {
        RcKind::of(self.ret_code)
    }

    /// Whether this is an error (both type bits set).
    pub fn is_error(&self) -> bool {
        self.kind() == RcKind::Error
    }

    /// Whether this is a warning (bit 63 only; an error is not a warning).
    pub fn is_warning(&self) -> bool {
        self.kind() == RcKind::Warning
    }

    /// Whether this is an info message (bit 62 only; an error is not an info).
    pub fn is_info(&self) -> bool {
        self.kind() == RcKind::Info
    }

    /// Whether this is a success (no type bit set).
    pub fn is_success(&self) -> bool {
        self.kind() == RcKind::Success
    }

    /// The operation bits.
    pub fn operation(&self) -> RcOperation {
        RcOperation::of(self.ret_code)
    }

    /// The object bits.
    pub fn object(&self) -> RcObject {
        RcObject::of(self.ret_code)
    }

    /// The code (the low 15 bits), to compare with [`codes`].
    pub fn code(&self) -> u64 {
        self.ret_code as u64 & MASK_BITS_CODE
    }

    /// Whether this message has the given type and code, comparing the type bits exactly (unlike
    /// golinstor's error matching, object and operation bits are left to
    /// [`ApiCallRc::object`] and [`ApiCallRc::operation`]).
    pub fn is(&self, kind: RcKind, code: u64) -> bool {
        self.kind() == kind && self.code() == code
    }
}

impl fmt::Display for ApiCallRc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.kind(), self.message)?;
        if let Some(cause) = &self.cause {
            write!(f, "; cause: {cause}")?;
        }
        if let Some(details) = &self.details {
            write!(f, "; details: {details}")?;
        }
        if let Some(correction) = &self.correction {
            write!(f, "; correction: {correction}")?;
        }
        if !self.error_report_ids.is_empty() {
            write!(f, "; error reports: {}", self.error_report_ids.join(", "))?;
        }
        Ok(())
    }
}

/// The list of messages LINSTOR answers a write with (`ApiCallRcList`).
///
/// Writes return it even when they succeed, because a successful write can carry warnings
/// (`WARN_NOT_CONNECTED` when a satellite is offline, for instance) that the caller must see.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApiCallRcList(pub Vec<ApiCallRc>);

impl ApiCallRcList {
    /// All messages.
    pub fn messages(&self) -> &[ApiCallRc] {
        &self.0
    }

    /// Messages of one kind.
    pub fn of_kind(&self, kind: RcKind) -> impl Iterator<Item = &ApiCallRc> {
        self.0.iter().filter(move |rc| rc.kind() == kind)
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &ApiCallRc> {
        self.of_kind(RcKind::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &ApiCallRc> {
        self.of_kind(RcKind::Warning)
    }

    /// The info messages.
    pub fn infos(&self) -> impl Iterator<Item = &ApiCallRc> {
        self.of_kind(RcKind::Info)
    }

    /// Whether any message is an error.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// Whether any message is a warning.
    pub fn has_warnings(&self) -> bool {
        self.warnings().next().is_some()
    }

    /// The most severe kind present (`None` for an empty list).
    pub fn worst(&self) -> Option<RcKind> {
        self.0.iter().map(ApiCallRc::kind).max()
    }

    /// Every error report id mentioned.
    pub fn error_report_ids(&self) -> impl Iterator<Item = &str> {
        self.0
            .iter()
            .flat_map(|rc| rc.error_report_ids.iter().map(String::as_str))
    }
}

impl fmt::Display for ApiCallRcList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, rc) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{rc}")?;
        }
        Ok(())
    }
}

impl<'a> IntoIterator for &'a ApiCallRcList {
    type Item = &'a ApiCallRc;
    type IntoIter = std::slice::Iter<'a, ApiCallRc>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// Decodes an error body: an `ApiCallRc` array, or the single object the spec announces for
/// `OperationFailed` answers (real controllers send an array there too). `None` when the body is
/// neither.
pub(crate) fn decode_error_body(body: &[u8]) -> Option<ApiCallRcList> {
    if let Ok(list) = serde_json::from_slice::<Vec<ApiCallRc>>(body) {
        return Some(ApiCallRcList(list));
    }
    serde_json::from_slice::<ApiCallRc>(body)
        .ok()
        .map(|rc| ApiCallRcList(vec![rc]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_enough_nodes_decodes_every_part() {
        // 0xC000000000000000 | MASK_CRT | MASK_RSC_GRP | FAIL_NOT_ENOUGH_NODES (996).
        let rc = ApiCallRc {
            ret_code: -4611686018406153244,
            message: "Not enough available nodes".to_owned(),
            cause: None,
            details: None,
            correction: None,
            error_report_ids: vec![],
            obj_refs: BTreeMap::new(),
            created_at: None,
        };
        assert_eq!(rc.kind(), RcKind::Error);
        assert!(!rc.is_warning());
        assert!(!rc.is_info());
        assert_eq!(rc.operation(), RcOperation::Create);
        assert_eq!(rc.object(), RcObject::ResourceGroup);
        assert_eq!(rc.code(), codes::FAIL_NOT_ENOUGH_NODES);
        assert!(rc.is(RcKind::Error, codes::FAIL_NOT_ENOUGH_NODES));
        assert!(!rc.is(RcKind::Warning, codes::FAIL_NOT_ENOUGH_NODES));
    }

    #[test]
    fn single_object_error_bodies_are_accepted() {
        let list = decode_error_body(br#"{"ret_code": -4611686018427387904, "message": "x"}"#)
            .expect("object form decodes");
        assert_eq!(list.0.len(), 1);
        assert!(decode_error_body(b"<html>").is_none());
    }
}
