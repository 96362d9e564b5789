//! `POST /retrieve`: reading the running configuration (`vyos-http-api.md`, "/retrieve";
//! `RetrieveModel` and `retrieve_op` in vyos-1x `src/services/api/rest/`).

use serde::Serialize;
use serde_json::Value;

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

fn words(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| (*s).to_owned()).collect()
}

impl Client {
    /// `POST /retrieve` with `op: showConfig`: the configuration below `path` (empty: all) in the
    /// given form; JSON forms come back as JSON, `raw` as a JSON string.
    ///
    /// # Errors
    /// [`Error::Api`] when VyOS refuses (for example a path that does not exist), [`Error::Http`] for
    /// transport failures.
    pub async fn show_config(&self, path: &[&str], format: ConfigFormat) -> Result<Value, Error> {
        let path = words(path);
        self.read::<_, Value>(
            RETRIEVE,
            &RetrieveBody {
                op: "showConfig",
                path: &path,
                config_format: Some(format.as_str()),
            },
        )
        .await
    }

    /// `POST /retrieve` with `op: showConfig` and `configFormat: raw`: the configuration below
    /// `path` as `config.boot` text.
    ///
    /// # Errors
    /// As [`Client::show_config`], and [`Error::UnexpectedAnswer`] when the answer is not text.
    pub async fn show_config_raw(&self, path: &[&str]) -> Result<String, Error> {
        match self.show_config(path, ConfigFormat::Raw).await? {
            Value::String(s) => Ok(s),
            other => Err(Error::UnexpectedAnswer {
                endpoint: RETRIEVE,
                message: format!("showConfig raw answered {}, expected text", kind(&other)),
            }),
        }
    }

    /// `POST /retrieve` (`showConfig`, `raw`) for the whole configuration, parsed into a tree.
    ///
    /// # Errors
    /// As [`Client::show_config_raw`], and [`Error::Parse`] when the text does not parse.
    pub async fn config_tree(&self) -> Result<ConfigTree, Error> {
        let text = self.show_config_raw(&[]).await?;
        Ok(ConfigTree::parse_boot(&text)?)
    }

    /// `POST /retrieve` with `op: returnValue`: the value of the leaf at `path`, `None` when unset.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`], or [`Error::UnexpectedAnswer`] for a non-text answer.
    pub async fn return_value(&self, path: &[&str]) -> Result<Option<String>, Error> {
        let path = words(path);
        match self
            .read::<_, Value>(
                RETRIEVE,
                &RetrieveBody {
                    op: "returnValue",
                    path: &path,
                    config_format: None,
                },
            )
            .await?
        {
            Value::Null => Ok(None),
            Value::String(s) => Ok(Some(s)),
            other => Err(Error::UnexpectedAnswer {
                endpoint: RETRIEVE,
                message: format!("returnValue answered {}, expected text", kind(&other)),
            }),
        }
    }

    /// `POST /retrieve` with `op: returnValues`: the values of the multi-value leaf at `path`.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`], or [`Error::UnexpectedAnswer`] for a non-list answer.
    pub async fn return_values(&self, path: &[&str]) -> Result<Vec<String>, Error> {
        let path = words(path);
        let data: Value = self
            .read(
                RETRIEVE,
                &RetrieveBody {
                    op: "returnValues",
                    path: &path,
                    config_format: None,
                },
            )
            .await?;
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
        let path = words(path);
        match self
            .read::<_, Value>(
                RETRIEVE,
                &RetrieveBody {
                    op: "exists",
                    path: &path,
                    config_format: None,
                },
            )
            .await?
        {
            Value::Bool(b) => Ok(b),
            other => Err(Error::UnexpectedAnswer {
                endpoint: RETRIEVE,
                message: format!("exists answered {}, expected a boolean", kind(&other)),
            }),
        }
    }
}
