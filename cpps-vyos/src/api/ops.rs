//! Operational-mode endpoints: `/show`, `/generate`, `/reset`, `/image`, `/reboot`, `/poweroff`
//! (`vyos-http-api.md`; `ShowModel`, `GenerateModel`, `ResetModel`, `ImageModel`, `RebootModel`,
//! `PoweroffModel` in vyos-1x `src/services/api/rest/models.py`). Each answers text.
//!
//! Reboot and power-off are only ever sent by their own explicit calls; nothing in this crate sends
//! them on its own.

use serde::Serialize;

use crate::api::words;
use crate::client::{Client, WriteFailure, data_text};
use crate::error::{Error, Landed};

#[derive(Serialize)]
struct PathBody<'a> {
    op: &'static str,
    path: &'a [String],
}

#[derive(Serialize)]
struct ImageBody<'a> {
    op: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
}

impl Client {
    /// `POST /show`: runs `show PATH…` (e.g. `["system", "image"]`) and returns its output.
    ///
    /// # Errors
    /// [`Error::Api`] when VyOS refuses the command, [`Error::Http`].
    pub async fn show(&self, path: &[&str]) -> Result<String, Error> {
        let path = words(path);
        let data: serde_json::Value = self
            .read(
                "show",
                &PathBody {
                    op: "show",
                    path: &path,
                },
            )
            .await?;
        data_text("show", data)
    }

    /// `POST /generate`: runs `generate PATH…` (e.g. `["pki", "wireguard", "key-pair"]`). Not
    /// repeated on failure: generating twice gives different keys.
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn generate(&self, path: &[&str]) -> Result<String, Error> {
        self.op_write("generate", "generate", &words(path)).await
    }

    /// `POST /reset`: runs `reset PATH…` (e.g. `["ip", "bgp", "192.0.2.11"]`).
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`]; [`Error::WriteTimedOut`] with [`Landed::Unknown`] when no
    /// answer came.
    pub async fn reset(&self, path: &[&str]) -> Result<String, Error> {
        self.op_write("reset", "reset", &words(path)).await
    }

    /// `POST /reboot`: reboots the router (`path` as for the `reboot` command, e.g. `["now"]`).
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn reboot(&self, path: &[&str]) -> Result<String, Error> {
        self.op_write("reboot", "reboot", &words(path)).await
    }

    /// `POST /poweroff`: powers the router off (`path` as for `poweroff`, e.g. `["now"]`).
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn poweroff(&self, path: &[&str]) -> Result<String, Error> {
        self.op_write("poweroff", "poweroff", &words(path)).await
    }

    /// `POST /image` with `op: add`: downloads and installs the image at `url`.
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn image_add(&self, url: &str) -> Result<String, Error> {
        self.image(ImageBody {
            op: "add",
            url: Some(url),
            name: None,
        })
        .await
    }

    /// `POST /image` with `op: delete`: removes the installed image `name`.
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn image_delete(&self, name: &str) -> Result<String, Error> {
        self.image(ImageBody {
            op: "delete",
            url: None,
            name: Some(name),
        })
        .await
    }

    /// `POST /image` with `op: set_default`: boots `name` next time.
    ///
    /// # Errors
    /// As [`Client::reset`].
    pub async fn image_set_default(&self, name: &str) -> Result<String, Error> {
        self.image(ImageBody {
            op: "set_default",
            url: None,
            name: Some(name),
        })
        .await
    }

    async fn image(&self, body: ImageBody<'_>) -> Result<String, Error> {
        self.text_write("image", &body).await
    }

    async fn op_write(
        &self,
        endpoint: &'static str,
        op: &'static str,
        path: &[String],
    ) -> Result<String, Error> {
        self.text_write(endpoint, &PathBody { op, path }).await
    }

    /// Sends an operational command once (under the write guard) and returns the text it
    /// answered; a timeout leaves what happened unknown.
    async fn text_write<T: Serialize>(
        &self,
        endpoint: &'static str,
        body: &T,
    ) -> Result<String, Error> {
        let _guard = self.write_guard().await;
        match self.write_once(endpoint, body).await {
            Ok(data) => data_text(endpoint, data),
            Err(WriteFailure::Other(e)) => Err(e),
            Err(WriteFailure::MaybeSent(source)) => Err(unknown(endpoint, source)),
        }
    }
}

fn unknown(endpoint: &'static str, source: cpps_http::Error) -> Error {
    Error::WriteTimedOut {
        endpoint,
        landed: Landed::Unknown {
            reason: "an operational command leaves no trace in the configuration".to_owned(),
        },
        source,
    }
}
