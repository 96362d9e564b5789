//! `GET /info`: version and host name, without a key (`vyos-http-api.md`, "/info"; VyOS 1.5).
//! Older routers do not have the endpoint.

use cpps_http::{Request, StatusCode};
use serde::Deserialize;

use crate::client::{VyosClient, decode};
use crate::error::Error;

/// What `/info` tells.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[non_exhaustive]
pub struct Info {
    /// `version` (`1.5-rolling`), empty when the router hides it.
    #[serde(default)]
    pub version: String,
    /// `hostname`, empty when the router hides it.
    #[serde(default)]
    pub hostname: String,
    /// `banner`.
    #[serde(default)]
    pub banner: String,
}

impl VyosClient {
    /// `GET /info`: the router's version and host name; `Ok(None)` on routers without the endpoint
    /// (it answers 404 or 405 there).
    ///
    /// # Errors
    /// [`Error::Http`] for transport failures, [`Error::Api`] for other refusals,
    /// [`Error::UnexpectedAnswer`] when the data is not the documented object.
    pub async fn info(&self) -> Result<Option<Info>, Error> {
        let response = self.http.execute(Request::get("info")).await?;
        if matches!(
            response.status(),
            StatusCode::NOT_FOUND | StatusCode::METHOD_NOT_ALLOWED
        ) {
            return Ok(None);
        }
        let data = decode("info", response)?;
        serde_json::from_value(data)
            .map(Some)
            .map_err(|e| Error::UnexpectedAnswer {
                endpoint: "info",
                message: e.to_string(),
            })
    }
}
