//! The server's release.

use serde::{Deserialize, Serialize};

/// `GET /version`: `{"version": "3.2", "release": "4", "repoid": "…"}` (proxmox-backup
/// `src/api2/version.rs`: `version` is `MAJOR.MINOR`, `release` the patch level).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct Version {
    /// `MAJOR.MINOR` (`4.0`).
    pub version: String,
    /// The patch level (`14`).
    pub release: String,
    /// The git commit it was built from.
    #[serde(default)]
    pub repoid: Option<String>,
}
