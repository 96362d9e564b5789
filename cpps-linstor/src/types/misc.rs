//! Controller version, controller properties and error reports.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The controller's version (`GET /v1/controller/version`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ControllerVersion {
    /// LINSTOR version.
    pub version: Option<String>,
    /// Git hash.
    pub git_hash: Option<String>,
    /// Build time.
    pub build_time: Option<String>,
    /// REST API version.
    pub rest_api_version: Option<String>,
}

/// `DrbdOptions/AutoEvictAfterTime`: minutes a node may be offline before it is evicted.
pub const AUTO_EVICT_AFTER_TIME: &str = "DrbdOptions/AutoEvictAfterTime";
/// `DrbdOptions/AutoEvictMaxDisconnectedNodes`: percentage of nodes that may be disconnected at
/// once without stopping the eviction timer.
pub const AUTO_EVICT_MAX_DISCONNECTED_NODES: &str = "DrbdOptions/AutoEvictMaxDisconnectedNodes";
/// `DrbdOptions/AutoEvictMinReplicaCount`: replicas a resource should keep at all times.
pub const AUTO_EVICT_MIN_REPLICA_COUNT: &str = "DrbdOptions/AutoEvictMinReplicaCount";
/// `DrbdOptions/AutoEvictAllowEviction`: whether eviction is allowed.
pub const AUTO_EVICT_ALLOW_EVICTION: &str = "DrbdOptions/AutoEvictAllowEviction";

/// A property value that does not have the type the spec gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PropertyValueError {
    /// Property key.
    pub key: String,
    /// Value as sent.
    pub value: String,
    /// Expected type.
    pub expected: &'static str,
}

impl fmt::Display for PropertyValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "property `{}` has value `{}`, expected {}",
            self.key, self.value, self.expected
        )
    }
}

impl std::error::Error for PropertyValueError {}

/// The controller's properties (`GET /v1/controller/properties`), with typed access to the
/// `DrbdOptions/AutoEvict*` family.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ControllerProperties(pub BTreeMap<String, String>);

impl ControllerProperties {
    /// A property's raw value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    fn long(&self, key: &str) -> Option<Result<i64, PropertyValueError>> {
        let value = self.get(key)?;
        Some(value.trim().parse().map_err(|_| PropertyValueError {
            key: key.to_owned(),
            value: value.to_owned(),
            expected: "an integer",
        }))
    }

    /// `DrbdOptions/AutoEvictAfterTime` in minutes.
    pub fn auto_evict_after_minutes(&self) -> Option<Result<i64, PropertyValueError>> {
        self.long(AUTO_EVICT_AFTER_TIME)
    }

    /// `DrbdOptions/AutoEvictMaxDisconnectedNodes` in percent (0–100).
    pub fn auto_evict_max_disconnected_percent(&self) -> Option<Result<i64, PropertyValueError>> {
        let value = self.long(AUTO_EVICT_MAX_DISCONNECTED_NODES)?;
        Some(value.and_then(|percent| {
            if (0..=100).contains(&percent) {
                Ok(percent)
            } else {
                Err(PropertyValueError {
                    key: AUTO_EVICT_MAX_DISCONNECTED_NODES.to_owned(),
                    value: percent.to_string(),
                    expected: "a percentage from 0 to 100",
                })
            }
        }))
    }

    /// `DrbdOptions/AutoEvictMinReplicaCount`.
    pub fn auto_evict_min_replica_count(&self) -> Option<Result<i64, PropertyValueError>> {
        self.long(AUTO_EVICT_MIN_REPLICA_COUNT)
    }

    /// `DrbdOptions/AutoEvictAllowEviction` (`true`/`false`, any case).
    pub fn auto_evict_allow_eviction(&self) -> Option<Result<bool, PropertyValueError>> {
        let value = self.get(AUTO_EVICT_ALLOW_EVICTION)?;
        Some(match value.trim().to_ascii_lowercase().as_str() {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(PropertyValueError {
                key: AUTO_EVICT_ALLOW_EVICTION.to_owned(),
                value: value.to_owned(),
                expected: "true or false",
            }),
        })
    }

    /// Every `DrbdOptions/AutoEvict*` property, as sent.
    pub fn auto_evict(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0
            .iter()
            .filter(|(k, _)| k.starts_with("DrbdOptions/AutoEvict"))
            .map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// An error report (`GET /v1/error-reports`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ErrorReport {
    /// Node that wrote the report.
    pub node_name: Option<String>,
    /// When the error happened, in milliseconds since the Unix epoch (UTC).
    pub error_time: i64,
    /// File name (`ErrorReport-{instance}-{node}-{seq}.log`).
    pub filename: Option<String>,
    /// Full text, when asked for with `withContent=true`.
    pub text: Option<String>,
    /// Module (`CONTROLLER`, `SATELLITE`).
    pub module: Option<String>,
    /// LINSTOR version.
    pub version: Option<String>,
    /// Peer involved.
    pub peer: Option<String>,
    /// Exception class.
    pub exception: Option<String>,
    /// Exception message.
    pub exception_message: Option<String>,
    /// Source file of the exception.
    pub origin_file: Option<String>,
    /// Method of the exception.
    pub origin_method: Option<String>,
    /// Line of the exception.
    pub origin_line: Option<i64>,
}

impl ErrorReport {
    /// The report id (`5F1C6CAE-00000-000001`), from the file name.
    pub fn id(&self) -> Option<&str> {
        let name = self.filename.as_deref()?;
        Some(
            name.strip_prefix("ErrorReport-")
                .unwrap_or(name)
                .trim_end_matches(".log"),
        )
    }
}

/// Decoded `props` maps are plain string maps.
pub type Properties = BTreeMap<String, String>;
