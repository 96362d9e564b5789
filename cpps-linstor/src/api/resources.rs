//! Resource groups, resource definitions and resources.

use cpps_http::Request;

use crate::client::Client;
use crate::error::Error;
use crate::names::{NodeName, ResourceGroupName, ResourceName};
use crate::plan::Plan;
use crate::types::rc::ApiCallRcList;
use crate::types::resource::{ResourceDefinition, ResourceGroup, ResourceWithVolumes};

impl Client {
    /// `GET /v1/resource-groups`: every resource group with its select filter.
    pub async fn resource_groups(&self) -> Result<Vec<ResourceGroup>, Error> {
        self.get_json(Request::get("v1/resource-groups")).await
    }

    /// `GET /v1/resource-groups?resource_groups=NAME`: one resource group, `None` when unknown.
    pub async fn resource_group(
        &self,
        name: &ResourceGroupName,
    ) -> Result<Option<ResourceGroup>, Error> {
        self.get_named(
            "v1/resource-groups",
            "resource_groups",
            name.as_str(),
            |g: &ResourceGroup| &g.name,
        )
        .await
    }

    /// `GET /v1/resource-groups?resource_groups=NAME`, then `PUT /v1/resource-groups/{group}`:
    /// applies [`Plan::resource_group_place_count_keeping_nodes`] with the group's current `node_name_list`,
    /// which a filter of `place_count` alone would clear. A group that changes between the read
    /// and the write keeps the list as read. When the read fails, nothing is sent.
    pub async fn set_place_count(
        &self,
        group: &ResourceGroupName,
        place_count: u32,
    ) -> Result<ApiCallRcList, Error> {
        let current = self.resource_group(group).await?;
        let nodes = current
            .and_then(|g| g.select_filter)
            .map(|f| f.node_name_list)
            .unwrap_or_default();
        self.apply(&Plan::resource_group_place_count_keeping_nodes(
            group,
            place_count,
            &nodes,
        )?)
        .await
    }

    /// `GET /v1/resource-definitions`: every resource definition.
    pub async fn resource_definitions(&self) -> Result<Vec<ResourceDefinition>, Error> {
        self.get_json(Request::get("v1/resource-definitions")).await
    }

    /// `GET /v1/resource-definitions?resource_definitions=NAME`: one resource definition,
    /// `None` when unknown (the spec has no single-object `GET` for it).
    pub async fn resource_definition(
        &self,
        name: &ResourceName,
    ) -> Result<Option<ResourceDefinition>, Error> {
        self.get_named(
            "v1/resource-definitions",
            "resource_definitions",
            name.as_str(),
            |d: &ResourceDefinition| &d.name,
        )
        .await
    }

    /// `DELETE /v1/resource-definitions/{resource}`: applies
    /// [`Plan::resource_definition_delete`].
    pub async fn delete_resource_definition(
        &self,
        resource: &ResourceName,
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::resource_definition_delete(resource))
            .await
    }

    /// `GET /v1/view/resources`: every resource on every node, with volumes, disk states,
    /// replication states and DRBD connections, in one request without `offset`/`limit`, as
    /// linstor-client and python-linstor ask for it.
    ///
    /// One request, because every request to this path, a page or not, makes the controller ask
    /// every satellite with thin volumes for their allocation and build the whole list before it
    /// cuts the page (linstor-server `CtrlVlmListApiCallHandler.listVlms` through
    /// `VlmAllocatedFetcherProto.requestVlmAllocated`; `View.viewResources` applies
    /// `skip(offset).limit(limit)` afterwards): pages of 50 cost 60 such fan-outs for 3,000
    /// replicas. The answer, 2 to 3 KiB per replica, may be up to
    /// [`ClientBuilder::resources_view_max_response_bytes`](crate::ClientBuilder::resources_view_max_response_bytes)
    /// (128 MiB by default) instead of `max_response_bytes`; a larger one is refused with an
    /// error naming that setting.
    pub async fn resources_view(&self) -> Result<Vec<ResourceWithVolumes>, Error> {
        let cap = self.resources_view_max_response_bytes();
        self.get_json(Request::get("v1/view/resources").max_response_bytes(cap))
            .await
            .map_err(|e| match e {
                Error::Http(http) => {
                    Error::Http(http.naming_cap("resources_view_max_response_bytes"))
                }
                other => other,
            })
    }

    /// `GET /v1/view/resources?nodes=…&resources=…`: the resources view, filtered (an empty
    /// slice means no filter on that field).
    pub async fn resources_view_filtered(
        &self,
        nodes: &[NodeName],
        resources: &[ResourceName],
    ) -> Result<Vec<ResourceWithVolumes>, Error> {
        let mut request = Request::get("v1/view/resources");
        for node in nodes {
            request = request.query("nodes", node);
        }
        for resource in resources {
            request = request.query("resources", resource);
        }
        self.get_json(request).await
    }
}
