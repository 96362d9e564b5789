//! `POST /config-file`: saving, loading and merging configuration files (`vyos-http-api.md`,
//! "/config-file" and "Commit-confirm"; `ConfigFileModel` and `config_file_op` in vyos-1x
//! `src/services/api/rest/` (1.5): `op` save/load/merge/confirm, `file` or inline `string`,
//! `confirm_time` at the top level; on VyOS 1.4 (`src/services/vyos-http-api-server`, branch
//! `sagitta`) only `save` and `load` of a `file`).

use std::num::NonZeroU32;

use serde::Serialize;

use crate::api::configure::Committed;
use crate::client::{Client, WriteFailure, data_text};
use crate::config::Command;
use crate::config::ConfigTree;
use crate::error::{Error, Landed};

const CONFIG_FILE: &str = "config-file";

/// Where `load`/`merge` take the configuration from.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigSource {
    /// A file on the router (`file`).
    File(String),
    /// `config.boot` text sent in the request (`string`; VyOS 1.4+).
    Inline(String),
}

#[derive(Serialize)]
struct FileBody<'a> {
    op: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    string: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirm_time: Option<u32>,
}

impl Client {
    /// `POST /config-file` with `op: save`: writes the running configuration to `file`, or to
    /// `/config/config.boot` when `None`.
    ///
    /// # Errors
    /// [`Error::Api`], [`Error::Http`]; [`Error::WriteTimedOut`] with [`Landed::Unknown`] when no
    /// answer came (a save is not visible in the configuration).
    pub async fn save(&self, file: Option<&str>) -> Result<Committed, Error> {
        let body = FileBody {
            op: "save",
            file,
            string: None,
            confirm_time: None,
        };
        self.file_write(&body).await
    }

    /// `POST /config-file` with `op: load`: replaces the configuration and commits it (optionally
    /// as a commit-confirm).
    ///
    /// # Errors
    /// As [`Client::merge`].
    pub async fn load(
        &self,
        source: &ConfigSource,
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        self.load_or_merge("load", source, confirm_minutes).await
    }

    /// `POST /config-file` with `op: merge`: merges into the configuration and commits it (optionally
    /// as a commit-confirm).
    ///
    /// # Errors
    /// [`Error::Parse`] when inline text does not parse (nothing is sent); [`Error::Api`] when VyOS
    /// refuses; with commit-confirm, [`Error::CommitConfirmNotInitialized`] as for
    /// [`Client::configure`] (a refusal is one unless the read-back shows nothing of inline text
    /// landed; a file cannot be checked); [`Error::WriteTimedOut`] when no answer came: for
    /// inline text the configuration is read back and checked for its `set` commands, for a file
    /// [`Landed::Unknown`].
    pub async fn merge(
        &self,
        source: &ConfigSource,
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        self.load_or_merge("merge", source, confirm_minutes).await
    }

    async fn load_or_merge(
        &self,
        op: &'static str,
        source: &ConfigSource,
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        let (file, string, expected) = match source {
            ConfigSource::File(f) => (Some(f.as_str()), None, None),
            // Checked before sending, and kept to tell afterwards whether it landed.
            ConfigSource::Inline(s) => (None, Some(s.as_str()), Some(ConfigTree::parse_boot(s)?)),
        };
        let commit_confirm = match confirm_minutes {
            Some(m) => Some(self.commit_confirm_for(m).await?),
            None => None,
        };
        let body = FileBody {
            op,
            file,
            string,
            confirm_time: confirm_minutes.map(NonZeroU32::get),
        };
        let commands: Vec<Command> = expected.map(|t| t.to_commands()).unwrap_or_default();
        let guard = self.write_guard().await;
        let answer = self.write_once(CONFIG_FILE, &body).await;
        drop(guard);
        self.after_write(CONFIG_FILE, answer, &commands, commit_confirm)
            .await
    }

    async fn file_write(&self, body: &FileBody<'_>) -> Result<Committed, Error> {
        let _guard = self.write_guard().await;
        match self.write_once(CONFIG_FILE, body).await {
            Ok(data) => Ok(Committed::message_only(data_text(CONFIG_FILE, data)?)),
            Err(WriteFailure::Other(e)) => Err(e),
            Err(WriteFailure::MaybeSent(source)) => Err(Error::WriteTimedOut {
                endpoint: CONFIG_FILE,
                landed: Landed::Unknown {
                    reason: format!("`{}` of a file cannot be checked from here", body.op),
                },
                source,
            }),
        }
    }
}
