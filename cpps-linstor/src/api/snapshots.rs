//! Snapshots: list, create, delete, restore, roll back.

use cpps_http::{Request, encode_segment};

use crate::client::Client;
use crate::error::Error;
use crate::names::{NodeName, ResourceName, SnapshotName};
use crate::plan::Plan;
use crate::types::rc::ApiCallRcList;
use crate::types::snapshot::Snapshot;

impl Client {
    /// `GET /v1/view/snapshots`: every snapshot.
    pub async fn snapshots(&self) -> Result<Vec<Snapshot>, Error> {
        self.get_json(Request::get("v1/view/snapshots")).await
    }

    /// `GET /v1/resource-definitions/{resource}/snapshots`: the snapshots of one resource.
    pub async fn snapshots_of(&self, resource: &ResourceName) -> Result<Vec<Snapshot>, Error> {
        self.get_json(Request::get(format!(
            "v1/resource-definitions/{}/snapshots",
            encode_segment(resource.as_str())
        )))
        .await
    }

    /// `POST /v1/resource-definitions/{resource}/snapshots`: applies
    /// [`Plan::snapshot_create`].
    pub async fn create_snapshot(
        &self,
        resource: &ResourceName,
        snapshot: &SnapshotName,
        nodes: &[NodeName],
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::snapshot_create(resource, snapshot, nodes))
            .await
    }

    /// `DELETE /v1/resource-definitions/{resource}/snapshots/{snapshot}`: applies
    /// [`Plan::snapshot_delete`].
    pub async fn delete_snapshot(
        &self,
        resource: &ResourceName,
        snapshot: &SnapshotName,
        nodes: &[NodeName],
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::snapshot_delete(resource, snapshot, nodes))
            .await
    }

    /// `POST /v1/resource-definitions/{resource}/snapshot-rollback/{snapshot}`: applies
    /// [`Plan::snapshot_rollback`].
    pub async fn rollback_snapshot(
        &self,
        resource: &ResourceName,
        snapshot: &SnapshotName,
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::snapshot_rollback(resource, snapshot))
            .await
    }

    /// `POST /v1/resource-definitions`, then `…/snapshot-restore-volume-definition/{snapshot}`
    /// and `…/snapshot-restore-resource/{snapshot}`: applies [`Plan::snapshot_restore`],
    /// stopping at the first error.
    pub async fn restore_snapshot(
        &self,
        resource: &ResourceName,
        snapshot: &SnapshotName,
        target: &ResourceName,
        nodes: &[NodeName],
    ) -> Result<Vec<ApiCallRcList>, Error> {
        self.apply_all(&Plan::snapshot_restore(resource, snapshot, target, nodes))
            .await
    }
}
