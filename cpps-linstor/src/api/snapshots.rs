//! Snapshots: list, create, delete, restore, roll back.

use cpps_http::{Delivery, Request, encode_segment};

use crate::client::Client;
use crate::error::Error;
use crate::names::{NodeName, ResourceGroupName, ResourceName, SnapshotName};
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

    /// Restores snapshot `snapshot` of `resource` into a new resource `target`:
    /// `GET /v1/resource-definitions?resource_definitions={resource}` for the source's resource
    /// group, then the three requests of [`Plan::snapshot_restore`] in that group, stopping at
    /// the first error.
    ///
    /// The target is created in the source's group, so that it keeps the group's `place_count`,
    /// layer stack and DRBD options (a definition created without `resource_group_name` lands
    /// in `DfltRscGrp`). When a step after the creation fails, the target definition is deleted
    /// (`DELETE /v1/resource-definitions/{target}`) so that no empty definition is left behind;
    /// [`Error::RestoreFailed`] says which step failed and whether the target is left (the
    /// deletion failed, or the creation may have been sent but its answer was lost).
    pub async fn restore_snapshot(
        &self,
        resource: &ResourceName,
        snapshot: &SnapshotName,
        target: &ResourceName,
        nodes: &[NodeName],
    ) -> Result<Vec<ApiCallRcList>, Error> {
        let source =
            self.resource_definition(resource)
                .await?
                .ok_or_else(|| Error::InvalidArgument {
                    name: "resource",
                    reason: format!("the controller knows no resource definition {resource}"),
                })?;
        let group = source
            .resource_group_name
            .as_deref()
            .map(str::parse::<ResourceGroupName>)
            .transpose()?;
        let plans = Plan::snapshot_restore(resource, snapshot, target, group.as_ref(), nodes);
        let failed =
            |step: &Plan, left: String, target_left: bool, source: Error| Error::RestoreFailed {
                resource: resource.to_string(),
                snapshot: snapshot.to_string(),
                target: target.to_string(),
                step: step.description.clone(),
                left,
                target_left,
                source: Box::new(source),
            };
        let mut answers = Vec::with_capacity(plans.len());
        let Some((create, rest)) = plans.split_first() else {
            return Ok(answers);
        };
        match self.apply(create).await {
            Ok(answer) => answers.push(answer),
            Err(e) if e.delivery() == Delivery::MaybeSent => {
                let left = format!(
                    "resource definition {target} may have been created: check with `linstor resource-definition list -r {target}`"
                );
                return Err(failed(create, left, true, e));
            }
            Err(e) => {
                return Err(failed(create, "nothing was created".to_owned(), false, e));
            }
        }
        for step in rest {
            match self.apply(step).await {
                Ok(answer) => answers.push(answer),
                Err(e) => {
                    let (left, target_left) = match self.delete_resource_definition(target).await {
                        Ok(_) => (
                            format!("resource definition {target} was deleted again"),
                            false,
                        ),
                        Err(cleanup) => (
                            format!(
                                "resource definition {target} is left behind (deleting it failed: {cleanup}); delete it with `linstor resource-definition delete {target}`"
                            ),
                            true,
                        ),
                    };
                    return Err(failed(step, left, target_left, e));
                }
            }
        }
        Ok(answers)
    }
}
