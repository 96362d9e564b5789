//! Storage pools.

use cpps_http::Request;

use crate::client::Client;
use crate::error::Error;
use crate::names::NodeName;
use crate::types::storage::StoragePool;

impl Client {
    /// `GET /v1/view/storage-pools`: every storage pool of every node.
    pub async fn storage_pools(&self) -> Result<Vec<StoragePool>, Error> {
        self.get_json(Request::get("v1/view/storage-pools")).await
    }

    /// `GET /v1/view/storage-pools?nodes=…`: the storage pools of some nodes.
    pub async fn storage_pools_of(&self, nodes: &[NodeName]) -> Result<Vec<StoragePool>, Error> {
        let mut request = Request::get("v1/view/storage-pools");
        for node in nodes {
            request = request.query("nodes", node);
        }
        self.get_json(request).await
    }
}
