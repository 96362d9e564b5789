//! `/cluster/…`.

use cpps_http::{Request, encode_segment};

use crate::types::{
    ClusterResource, ClusterStatusEntry, HaResource, HaStatusEntry, ResourceFilter,
};
use crate::{Client, Error};

/// Cluster-wide endpoints. Get one with [`Client::cluster`].
#[derive(Debug, Clone)]
pub struct ClusterApi {
    client: Client,
}

impl ClusterApi {
    pub(crate) fn new(client: Client) -> Self {
        ClusterApi { client }
    }

    /// `GET /cluster/status`: the cluster entry (quorum) and one entry per node.
    pub async fn status(&self) -> Result<Vec<ClusterStatusEntry>, Error> {
        self.client.get(Request::get("cluster/status")).await
    }

    /// `GET /cluster/resources?type=…`: nodes, guests, storages, pools, SDN; `None` for all.
    pub async fn resources(
        &self,
        filter: Option<ResourceFilter>,
    ) -> Result<Vec<ClusterResource>, Error> {
        let mut request = Request::get("cluster/resources");
        if let Some(filter) = filter {
            request = request.query("type", filter.as_str());
        }
        // A list call: a big cluster's answer is tens of MiB (the list cap, not the 8 MiB one).
        self.client.get_list(request).await
    }

    /// `GET /cluster/ha/resources`.
    pub async fn ha_resources(&self) -> Result<Vec<HaResource>, Error> {
        self.client
            .get_list(Request::get("cluster/ha/resources"))
            .await
    }

    /// `GET /cluster/ha/resources/{sid}`.
    pub async fn ha_resource(&self, sid: &str) -> Result<HaResource, Error> {
        self.client
            .get(Request::get(format!(
                "cluster/ha/resources/{}",
                encode_segment(sid)
            )))
            .await
    }

    /// `GET /cluster/ha/status/current`: quorum, master, LRMs and services.
    pub async fn ha_status(&self) -> Result<Vec<HaStatusEntry>, Error> {
        self.client
            .get(Request::get("cluster/ha/status/current"))
            .await
    }
}
