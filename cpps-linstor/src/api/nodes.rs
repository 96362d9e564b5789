//! Nodes and their network interfaces.

use std::collections::BTreeMap;

use cpps_http::{Request, encode_segment};

use crate::client::Client;
use crate::error::Error;
use crate::names::NodeName;
use crate::plan::Plan;
use crate::types::node::{NetInterface, Node};
use crate::types::rc::ApiCallRcList;

impl Client {
    /// `GET /v1/nodes`: every node.
    pub async fn nodes(&self) -> Result<Vec<Node>, Error> {
        self.get_json(Request::get("v1/nodes")).await
    }

    /// `GET /v1/nodes?nodes=NAME`: one node, `None` when the controller does not know it.
    ///
    /// The list endpoint with a filter is used because the single-node `GET /v1/nodes/{node}`
    /// is not part of the published spec.
    pub async fn node(&self, name: &NodeName) -> Result<Option<Node>, Error> {
        self.get_named("v1/nodes", "nodes", name.as_str(), |n: &Node| &n.name)
            .await
    }

    /// `GET /v1/nodes/{node}/net-interfaces`.
    pub async fn net_interfaces(&self, node: &NodeName) -> Result<Vec<NetInterface>, Error> {
        self.get_json(Request::get(format!(
            "v1/nodes/{}/net-interfaces",
            encode_segment(node.as_str())
        )))
        .await
    }

    /// `PUT /v1/nodes/{node}`: applies [`Plan::node_set_properties`].
    pub async fn set_node_properties(
        &self,
        node: &NodeName,
        set: &BTreeMap<String, String>,
        delete: &[String],
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::node_set_properties(node, set, delete)?)
            .await
    }
}
