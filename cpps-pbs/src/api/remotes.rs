//! Remotes: the other PBS servers sync jobs talk to.

use crate::endpoints::{PERMISSIONS, REMOTE_SCAN_GROUPS, REMOTES};
use crate::types::{BackupGroup, Permissions, Remote};
use crate::{Client, Error};

impl Client {
    /// The configured remotes, with their host and pinned fingerprint: `GET /config/remote`.
    pub async fn remotes(&self) -> Result<Vec<Remote>, Error> {
        self.get(REMOTES.call(&[])).await
    }

    /// The backup groups in namespace `ns` (the root when `None`) of datastore `store` on the
    /// remote `remote`, as the remote lists them to the credentials this server keeps for it:
    /// `GET /config/remote/{remote}/scan/{store}/groups` (proxmox-backup
    /// `src/api2/config/remote.rs` `scan_remote_groups`). That is how a copy the other site
    /// pulled is seen from here. The remote's `list_groups` hides the groups its credentials
    /// neither own nor may audit, so a group missing from the answer may still be there.
    pub async fn remote_groups(
        &self,
        remote: &str,
        store: &str,
        ns: Option<&str>,
    ) -> Result<Vec<BackupGroup>, Error> {
        self.get_list(
            REMOTE_SCAN_GROUPS
                .call(&[remote, store])
                .string("namespace", ns),
        )
        .await
    }

    /// The caller's privileges, `GET /access/permissions` (of `path` only when given): ACL
    /// path → privilege name → whether it propagates to the paths below. Paths where the
    /// caller holds nothing are left out (proxmox-backup `src/api2/access/mod.rs`,
    /// `list_permissions`).
    pub async fn permissions(&self, path: Option<&str>) -> Result<Permissions, Error> {
        self.get(PERMISSIONS.call(&[]).string("path", path)).await
    }
}
