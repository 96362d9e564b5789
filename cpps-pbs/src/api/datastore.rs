//! Datastores, backup groups, snapshots and garbage collection.

use crate::endpoints::{
    DATASTORE_STATUS, DATASTORE_USAGE, DATASTORES, GC_STATUS, GROUPS, NAMESPACES, SNAPSHOTS,
};
use crate::types::{
    BackupGroup, BackupType, Datastore, DatastoreStatus, DatastoreUsage, GcStatus, Namespace,
    Snapshot,
};
use crate::{Client, Error};

/// Filters of [`Client::snapshots`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SnapshotQuery {
    /// The namespace (`a/b`); the root namespace when `None`.
    pub ns: Option<String>,
    /// Only snapshots of this type.
    pub backup_type: Option<BackupType>,
    /// Only snapshots with this backup id.
    pub backup_id: Option<String>,
}

impl SnapshotQuery {
    /// The snapshots of one guest (or host) group.
    pub fn group(backup_type: BackupType, backup_id: impl Into<String>) -> Self {
        SnapshotQuery {
            ns: None,
            backup_type: Some(backup_type),
            backup_id: Some(backup_id.into()),
        }
    }

    /// Looks in namespace `ns` instead of the root.
    pub fn in_namespace(mut self, ns: impl Into<String>) -> Self {
        self.ns = Some(ns.into());
        self
    }
}

impl Client {
    /// The datastores the caller may see: `GET /admin/datastore`.
    pub async fn datastores(&self) -> Result<Vec<Datastore>, Error> {
        self.get(DATASTORES.call(&[])).await
    }

    /// Space, and with `verbose` the group and snapshot counts and the last GC result:
    /// `GET /admin/datastore/{store}/status`.
    pub async fn datastore_status(
        &self,
        store: &str,
        verbose: bool,
    ) -> Result<DatastoreStatus, Error> {
        self.get(
            DATASTORE_STATUS
                .call(&[store])
                .boolean("verbose", verbose.then_some(true)),
        )
        .await
    }

    /// Usage, usage history and the estimated full date of every datastore:
    /// `GET /status/datastore-usage`.
    pub async fn datastore_usage(&self) -> Result<Vec<DatastoreUsage>, Error> {
        self.get(DATASTORE_USAGE.call(&[])).await
    }

    /// The namespaces of a datastore below `parent` (the root when `None`; the answer includes
    /// the parent itself), `max_depth` levels deep (the server's default is all 7):
    /// `GET /admin/datastore/{store}/namespace`.
    pub async fn namespaces(
        &self,
        store: &str,
        parent: Option<&str>,
        max_depth: Option<i64>,
    ) -> Result<Vec<Namespace>, Error> {
        self.get(
            NAMESPACES
                .call(&[store])
                .string("parent", parent)
                .integer("max-depth", max_depth),
        )
        .await
    }

    /// The backup groups of a datastore (namespace `ns`, the root when `None`):
    /// `GET /admin/datastore/{store}/groups`.
    pub async fn groups(&self, store: &str, ns: Option<&str>) -> Result<Vec<BackupGroup>, Error> {
        self.get_list(GROUPS.call(&[store]).string("ns", ns)).await
    }

    /// The snapshots of a datastore, filtered by `query`:
    /// `GET /admin/datastore/{store}/snapshots`. A list call: its answer may be as large as
    /// the list cap ([`ClientBuilder::list_max_response_bytes`](crate::ClientBuilder::list_max_response_bytes),
    /// [`Client::with_list_max_response_bytes`]).
    pub async fn snapshots(
        &self,
        store: &str,
        query: &SnapshotQuery,
    ) -> Result<Vec<Snapshot>, Error> {
        self.get_list(
            SNAPSHOTS
                .call(&[store])
                .string("ns", query.ns.as_deref())
                .string(
                    "backup-type",
                    query.backup_type.as_ref().map(BackupType::as_str),
                )
                .string("backup-id", query.backup_id.as_deref()),
        )
        .await
    }

    /// The garbage-collection state of a datastore: `GET /admin/datastore/{store}/gc`.
    pub async fn gc_status(&self, store: &str) -> Result<GcStatus, Error> {
        self.get(GC_STATUS.call(&[store])).await
    }
}
