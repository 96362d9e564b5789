//! `POST /retrieve`: reading the running configuration (`vyos-http-api.md`, "/retrieve";
//! `RetrieveModel` and `retrieve_op` in vyos-1x `src/services/api/rest/`).

use serde::Serialize;
use serde_json::Value;

use crate::api::words;
use crate::client::{Client, kind};
use crate::config::ConfigTree;
use crate::error::Error;

const RETRIEVE: &str = "retrieve";

#[derive(Serialize)]
struct RetrieveBody<'a> {
    op: &'static str,
    path: &'a [String],
    #[serde(rename = "configFormat", skip_serializing_if = "Option::is_none")]
    config_format: Option<&'static str>,
}

/// The forms `showConfig` can answer in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigFormat {
    /// Nested JSON objects (the default).
    Json,
    /// VyOS's JSON AST, with node kinds.
    JsonAst,
    /// The `config.boot` text.
    Raw,
}

impl ConfigFormat {
    fn as_str(self) -> &'static str {
        match self {
            ConfigFormat::Json => "json",
            ConfigFormat::JsonAst => "json_ast",
            ConfigFormat::Raw => "raw",
        }
    }
}

/// The error for an answer of the wrong JSON kind to `what`.
fn unexpected(what: &str, answer: &Value, expected: &str) -> Error {
    Error::UnexpectedAnswer {
        endpoint: RETRIEVE,
        message: format!("{what} answered {}, expected {expected}", kind(answer)),
    }
}

impl Client {
    /// `POST /retrieve` with `op` on `path` (and `configFormat` when given): the answer's data.
    async fn retrieve(
        &self,
        op: &'static str,
        path: &[&str],
        format: Option<ConfigFormat>,
    ) -> Result<Value, Error> {
        let path = words(path);
        let body = RetrieveBody {
            op,
            path: &path,
            config_format: format.map(ConfigFormat::as_str),
        };
        self.read(RETRIEVE, &body).await
    }

    /// `POST /retrieve` with `op: showConfig`: the configuration below `path` (empty: all) in the
    /// given form; JSON forms come back as JSON, `raw` as a JSON string.
    ///
    /// # Errors
    /// [`Error::Api`] when VyOS refuses (for example a path that does not exist), [`Error::Http`] for
    /// transport failures.
    pub async fn show_config(&self, path: &[&str], format: ConfigFormat) -> Result<Value, Error> {
        self.retrieve("showConfig", path, Some(format)).await
    }

    /// `POST /retrieve` with `op: showConfig` and `configFormat: raw`: the configuration below
    /// `path` as `config.boot` text.
    ///
    /// # Errors
    /// As [`Client::show_config`], and [`Error::UnexpectedAnswer`] when the answer is not text.
    pub async fn show_config_raw(&self, path: &[&str]) -> Result<String, Error> {
        match self.show_config(path, ConfigFormat::Raw).await? {
            Value::String(s) => Ok(s),
            other => Err(unexpected("showConfig raw", &other, "text")),
        }
    }

    /// `POST /retrieve` (`showConfig`, `raw`) for the whole configuration, parsed into a tree in
    /// the dialect of the printer that wrote it, told by its values ([`ConfigTree::parse_shown`]:
    /// vyatta-cfg's on the legacy backend, vyos1x-config's `render_at_level` or `diff_show` on
    /// the vyconf backend).
    ///
    /// # Errors
    /// As [`Client::show_config_raw`], and [`Error::Parse`] when the text does not parse.
    pub async fn config_tree(&self) -> Result<ConfigTree, Error> {
        let text = self.show_config_raw(&[]).await?;
        Ok(ConfigTree::parse_shown(&text)?)
    }

    /// `POST /retrieve` with `op: returnValue`: the value of the leaf at `path`, `None` when unset.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`], or [`Error::UnexpectedAnswer`] for a non-text answer.
    pub async fn return_value(&self, path: &[&str]) -> Result<Option<String>, Error> {
        match self.retrieve("returnValue", path, None).await? {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            other => Err(unexpected("returnValue", &other, "text")),
        }
    }

    /// `POST /retrieve` with `op: returnValues`: the values of the multi-value leaf at `path`.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`], or [`Error::UnexpectedAnswer`] for a non-list answer.
    pub async fn return_values(&self, path: &[&str]) -> Result<Vec<String>, Error> {
        let data = self.retrieve("returnValues", path, None).await?;
        serde_json::from_value(data).map_err(|e| Error::UnexpectedAnswer {
            endpoint: RETRIEVE,
            message: format!("returnValues: {e}"),
        })
    }

    /// `POST /retrieve` with `op: exists`: whether `path` exists in the configuration.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`], or [`Error::UnexpectedAnswer`] for a non-boolean answer.
    pub async fn exists(&self, path: &[&str]) -> Result<bool, Error> {
        match self.retrieve("exists", path, None).await? {
            Value::Bool(b) => Ok(b),
            other => Err(unexpected("exists", &other, "a boolean")),
        }
    }
}
