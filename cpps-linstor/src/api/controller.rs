//! The controller: version and properties.

use std::collections::BTreeMap;

use cpps_http::{Request, Url};

use crate::client::Client;
use crate::error::Error;
use crate::ha::{self, ControllerHa, ProbeOutcome, ProbedController};
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

    /// Asks every controller of the list directly (`GET /v1/controller/version`, then
    /// `GET /v1/controller/properties` of those that answered; all at once, each once, so a
    /// silent one costs one request timeout) and judges them with [`ha::assess_controllers`]:
    /// which controller node answers, and whether `vip`, the VRRP VIP's entry of the list,
    /// gives the same answers. Calls then go first to the VIP when it answers, else to the one
    /// answering node ([`ControllerHa::preferred`]); fail-over still moves on from it.
    ///
    /// Only one LINSTOR controller runs on one database at a time: a standby's port is closed
    /// or refuses, so it shows as [`ProbeOutcome::NotReached`].
    pub async fn probe_controllers(&self, vip: Option<&Url>) -> ControllerHa {
        let controllers = self
            .ask_each_controller()
            .await
            .into_iter()
            .map(|(url, version, properties)| ProbedController {
                is_vip: vip == Some(&url),
                url: url.to_string(),
                outcome: match version {
                    Ok(version) => ProbeOutcome::Answered {
                        version,
                        properties,
                    },
                    Err(e) => probe_error(&e),
                },
            })
            .collect();
        let assessed = ha::assess_controllers(controllers);
        if let Some(url) = assessed.preferred().and_then(|u| u.parse::<Url>().ok()) {
            self.prefer_url(&url);
        }
        assessed
    }
}

/// How a controller that gave no usable answer failed: not reached (the request was not
/// sent), reached without an answer, or answered with an error.
fn probe_error(error: &Error) -> ProbeOutcome {
    let text = error.to_string();
    match error {
        Error::Http(e) if e.is_not_sent() => ProbeOutcome::NotReached { error: text },
        Error::Http(e) if e.delivery() != cpps_http::Delivery::Answered => {
            ProbeOutcome::NoAnswer { error: text }
        }
        _ => ProbeOutcome::Failed { error: text },
    }
}
