//! Remotes: the other PBS servers sync jobs talk to.

use crate::endpoints::{PERMISSIONS, REMOTES};
use crate::types::{Permissions, Remote};
use crate::{Client, Error};

impl Client {
    /// The configured remotes, with their host and pinned fingerprint: `GET /config/remote`.
    pub async fn remotes(&self) -> Result<Vec<Remote>, Error> {
        self.get(REMOTES.call(&[])).await
    }

    /// The caller's privileges, `GET /access/permissions` (of `path` only when given): ACL
    /// path → privilege name → whether it propagates to the paths below. Paths where the
    /// caller holds nothing are left out (proxmox-backup `src/api2/access/mod.rs`,
    /// `list_permissions`).
    pub async fn permissions(&self, path: Option<&str>) -> Result<Permissions, Error> {
        self.get(PERMISSIONS.call(&[]).string("path", path)).await
    }
}
