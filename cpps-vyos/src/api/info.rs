//! `GET /info` (VyOS 1.5) and the router's version, which decides what the API can do.
//!
//! Sources: `vyos-http-api.md` ("/info": version, host name and banner, without a key; VyOS 1.5)
//! and vyos-1x `src/services/api/rest/models.py` (`InfoQueryParams`, current). VyOS 1.4's server
//! (`src/services/vyos-http-api-server` on `sagitta`) has no `/info`, no `confirm_time` in
//! `ConfigureListModel`/`ConfigFileModel` (pydantic drops unknown fields, so a commit-confirm
//! request would commit for good) and no `confirm` operation in `config_file_op`; there the
//! version comes from `show version` through `POST /show` (`show_op`, `session.show`).

use cpps_http::{Request, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::client::{Client, decode};
use crate::error::Error;
pub use crate::version::{ApiGeneration, RouterVersion, VersionSource};

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

#[derive(Serialize)]
struct ShowBody<'a> {
    op: &'static str,
    path: &'a [&'a str],
}

impl Client {
    /// `GET /info`: the router's version and host name; `Ok(None)` on routers without the endpoint
    /// (VyOS 1.4: it answers 404 or 405 there).
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
        // Only 1.5 and later serve `/info`: their errors are escaped.
        let data = decode("info", &response, true)?;
        serde_json::from_value(data)
            .map(Some)
            .map_err(|e| Error::UnexpectedAnswer {
                endpoint: "info",
                message: e.to_string(),
            })
    }

    /// The router's version: `GET /info` (1.5), or `show version` through `POST /show` where
    /// there is no `/info` (1.4). Read once, then the latest reading of this client and its
    /// clones is kept: after an image change (`/image add` and a reboot, a rollback to another
    /// image) or a reboot, read it with [`Client::version_fresh`], which replaces the kept
    /// reading (and so how error texts are read, [`crate::envelope`]). What the router can do
    /// is not taken from it: [`Client::commit_confirm_support`] reads the API's schema on every
    /// call.
    ///
    /// # Errors
    /// As [`Client::info`] and [`Client::show`].
    pub async fn version(&self) -> Result<RouterVersion, Error> {
        match self.cached_version() {
            Some(v) => Ok(v),
            None => self.version_fresh().await,
        }
    }

    /// The router's version read now, as [`Client::version`] reads it, never from the kept
    /// reading, which it then replaces for this client and its clones: what the upgrade plan's
    /// "`show version` names the new image" step ([`crate::upgrade`]), the plan of a write
    /// ([`Client::plan_configure`]) and the safe apply ([`crate::apply::safe_apply`]) read,
    /// since the image may have changed since the last reading.
    ///
    /// # Errors
    /// As [`Client::info`] and [`Client::show`].
    pub async fn version_fresh(&self) -> Result<RouterVersion, Error> {
        let version = self.read_version().await?;
        self.store_version(&version);
        Ok(version)
    }

    /// `GET /info`, else `show version`.
    async fn read_version(&self) -> Result<RouterVersion, Error> {
        if let Some(info) = self.info().await? {
            return Ok(RouterVersion::from_text(&info.version, VersionSource::Info));
        }
        let data: Value = self
            .read(
                "show",
                &ShowBody {
                    op: "show",
                    path: &["version"],
                },
            )
            .await?;
        let text = crate::client::data_text("show", data)?;
        let version = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("Version:"))
            .unwrap_or("")
            .trim()
            .to_owned();
        Ok(RouterVersion::from_text(
            &version,
            VersionSource::ShowVersion,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_texts_name_their_api() {
        let show = |t| RouterVersion::from_text(t, VersionSource::ShowVersion).api;
        let info = |t| RouterVersion::from_text(t, VersionSource::Info).api;
        assert_eq!(show("VyOS 1.4.0"), ApiGeneration::V14);
        assert_eq!(show("1.4-rolling-202308240020"), ApiGeneration::V14);
        assert_eq!(show("VyOS 1.3.8"), ApiGeneration::V14);
        // A 1.5 build without `/info` predates the commit-confirm API.
        assert_eq!(show("1.5-rolling-202410060007"), ApiGeneration::Unknown);
        assert_eq!(info("1.5-rolling"), ApiGeneration::V15);
        assert_eq!(info("2025.01.01-0019-rolling"), ApiGeneration::V15);
        assert_eq!(info(""), ApiGeneration::V15);
        assert_eq!(info("1.4.1"), ApiGeneration::V14);
        assert_eq!(show("circinus"), ApiGeneration::Unknown);
    }
}
