//! The controller: version and properties.

use std::collections::BTreeMap;

use cpps_http::Request;

use crate::client::Client;
use crate::error::Error;
use crate::plan::Plan;
use crate::types::misc::{ControllerProperties, ControllerVersion};
use crate::types::rc::ApiCallRcList;

impl Client {
    /// `GET /v1/controller/version`.
    pub async fn controller_version(&self) -> Result<ControllerVersion, Error> {
        self.get_json(Request::get("v1/controller/version")).await
    }

    /// `GET /v1/controller/properties`: every controller property, with typed access to the
    /// `DrbdOptions/AutoEvict*` family.
    pub async fn controller_properties(&self) -> Result<ControllerProperties, Error> {
        self.get_json(Request::get("v1/controller/properties"))
            .await
    }

    /// `POST /v1/controller/properties`: applies [`Plan::controller_set_properties`].
    pub async fn set_controller_properties(
        &self,
        set: &BTreeMap<String, String>,
        delete: &[String],
    ) -> Result<ApiCallRcList, Error> {
        self.apply(&Plan::controller_set_properties(set, delete)?)
            .await
    }
}
