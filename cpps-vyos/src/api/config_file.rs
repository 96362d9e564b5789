//! `POST /config-file`: saving, loading and merging configuration files (`vyos-http-api.md`,
//! "/config-file" and "Commit-confirm"; `ConfigFileModel` and `config_file_op` in vyos-1x
//! `src/services/api/rest/` (1.5): `op` save/load/merge/confirm, `file` or inline `string`,
//! `confirm_time` at the top level; on VyOS 1.4 (`src/services/vyos-http-api-server`, branch
//! `sagitta`) only `save` and `load` of a `file`).

use std::num::NonZeroU32;

use cpps_http::{Request, StatusCode};
use serde::Serialize;
use serde_json::Value;

use crate::api::configure::{Committed, ConfigureBody, WireCommand};
use crate::client::{Client, WriteFailure, data_text};
use crate::config::Command;
use crate::config::ConfigTree;
use crate::error::{Error, Landed};

const CONFIG_FILE: &str = "config-file";

/// Where `load`/`merge` take the configuration from.
///
/// Inline text is read on the router after `ConfigMigrate` (vyos-1x `python/vyos/migrate.py`),
/// which takes the text's syntax version from its footer and runs every migration script from
/// version 0 on a text without one (`component_version.py` `version_info_from_file`). So the
/// footer is never invented: the text carries its own, or the caller says where the text came
/// from ([`ConfigSource::InlineFromRouter`]) or which version it is in
/// ([`ConfigSource::InlineAt`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigSource {
    /// A file on the router (`file`).
    File(String),
    /// `config.boot` text in the form this crate reads and writes (VyOS's `showConfig` form),
    /// with its own version footer, as `save` writes a file; sent in the request (`string`;
    /// VyOS 1.5), re-rendered as VyOS's loader reads it ([`ConfigTree::to_load_string`]). Text
    /// without a footer is refused ([`Error::InlineConfigRefused`]), nothing sent.
    Inline(String),
    /// Text this router printed itself (`showConfig`, [`Client::show_config_raw`]; `showConfig`
    /// prints no footer), so in the syntax of the image it runs: sent with the router's own
    /// footer (`show system commit file 0`), refused when that cannot be read. Text that has a
    /// footer of its own is refused: send it as [`ConfigSource::Inline`].
    InlineFromRouter(String),
    /// Text written in the syntax `version` names (a text from another router or release):
    /// sent with that footer, so that VyOS migrates it from there. Text that has a footer of
    /// its own is refused: send it as [`ConfigSource::Inline`]. A `merge` on a build that does
    /// not migrate it takes only the router's own version (see [`Client::merge`]).
    InlineAt {
        /// The text, without footer.
        text: String,
        /// The syntax version it is written in.
        version: ConfigVersion,
    },
}

/// A configuration's syntax version, as the footer of a saved `config.boot` states it (vyos-1x
/// `python/vyos/component_version.py`, `CONFIG_FILE_VERSION`): the component versions
/// (`bgp@5:interfaces@32:system@27`) and the release (`1.4.0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigVersion {
    components: String,
    release: String,
}

impl ConfigVersion {
    /// The version `components` (`NAME@N` joined by `:`, as in the footer's
    /// `// vyos-config-version: "…"` line) of `release`, checked as `component_version.py`
    /// reads them back (`REGEX_COMPONENT_VERSION_VYOS`: `[\w@:-]+`; `REGEX_RELEASE_VERSION_VYOS`:
    /// no white space).
    ///
    /// # Errors
    /// [`Error::Config`] naming what is malformed.
    pub fn new(components: &str, release: &str) -> Result<Self, Error> {
        let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
        let component_ok = |p: &str| {
            p.split_once('@').is_some_and(|(name, n)| {
                !name.is_empty()
                    && name.chars().all(|c| word(c) || c == ',')
                    && !n.is_empty()
                    && n.chars().all(|c| c.is_ascii_digit())
            })
        };
        if components.is_empty() || !components.split(':').all(component_ok) {
            return Err(Error::Config {
                reason: format!(
                    "config version `{components}` is not `NAME@N` joined by `:` (the footer's \
                     `// vyos-config-version:` line, e.g. `bgp@5:interfaces@32:system@27`)"
                ),
            });
        }
        if release.is_empty() || release.chars().any(char::is_whitespace) {
            return Err(Error::Config {
                reason: format!("release `{release}` is empty or holds white space"),
            });
        }
        Ok(Self {
            components: components.to_owned(),
            release: release.to_owned(),
        })
    }

    /// The component versions (`bgp@5:interfaces@32:system@27`).
    pub fn components(&self) -> &str {
        &self.components
    }

    /// The release (`1.4.0`).
    pub fn release(&self) -> &str {
        &self.release
    }

    /// The footer lines as `component_version.py` writes them (`CONFIG_FILE_VERSION`).
    pub fn footer(&self) -> String {
        format!(
            "// Warning: Do not remove the following line.\n// vyos-config-version: \"{}\"\n// Release version: {}\n",
            self.components, self.release
        )
    }
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
    /// `merge` only: the text's values replace the router's (see [`Client::merge`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    destructive: Option<bool>,
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
            destructive: None,
        };
        self.file_write(&body).await
    }

    /// `POST /config-file` with `op: load`: replaces the configuration and commits it (optionally
    /// as a commit-confirm).
    ///
    /// # Errors
    /// As [`Client::merge`]; also [`Error::NotLoadable`] for inline text holding a value with
    /// `"` or `\` ([`ConfigTree::check_loadable`]), nothing sent.
    pub async fn load(
        &self,
        source: &ConfigSource,
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        self.load_or_merge("load", source, confirm_minutes).await
    }

    /// `POST /config-file` with `op: merge`: merges into the configuration and commits it (optionally
    /// as a commit-confirm). Inline text is sent as VyOS's loader reads it, with the version
    /// footer its source states (see [`ConfigSource`]).
    ///
    /// The text's values win: `destructive: true` is sent. Builds whose `ConfigFileModel` has
    /// `destructive` (vyos-1x PR #4574) merge with vyos1x-config `tree_merge`, which without it
    /// keeps every leaf the router already has, and with it replaces that leaf's values by the
    /// text's (a multi-valued leaf such as `address` then holds only the text's values). Older
    /// builds drop the field and `set` each of the text's leaves, adding to a multi-valued one.
    /// Those newer builds also merge without migrating, so text that is not the router's own
    /// (`Inline` with another footer, `InlineAt` another version) is refused there, and where
    /// `/openapi.json` cannot tell which helper runs.
    ///
    /// # Errors
    /// [`Error::Parse`] when inline text does not parse, and [`Error::InlineConfigRefused`] when
    /// its version footer is neither its own nor stated by the source, or the router's cannot
    /// be read for [`ConfigSource::InlineFromRouter`] (nothing is sent); [`Error::Api`] or
    /// [`Error::RefusedAfterCommit`] when VyOS refuses; with commit-confirm, [`Error::CommitConfirmNotInitialized`] as for
    /// [`Client::configure`] (a refusal is one unless the read-back shows nothing of inline text
    /// landed; a file cannot be checked); [`Error::WriteTimedOut`] when no answer came: for
    /// inline text the configuration is read back and checked for its `set` commands, for a file
    /// [`Landed::Unknown`]. After a refusal the API's shared configuration session is
    /// discarded, since `config_file_op` leaves what a failed load or commit did not take staged
    /// there for the next `/configure` of any client to commit; the error's message says
    /// whether that worked, and if not, what the operator must do.
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
            ConfigSource::Inline(s)
            | ConfigSource::InlineFromRouter(s)
            | ConfigSource::InlineAt { text: s, .. } => {
                let tree = ConfigTree::parse_boot(s)?;
                // `load` keeps escapes that `merge` decodes (N6 of issue 32).
                if op == "load" {
                    tree.check_loadable()?;
                }
                let text = self.load_text(source, &tree).await?;
                if op == "merge" {
                    self.check_merge_syntax(source, &tree).await?;
                }
                (None, Some(text), Some(tree))
            }
        };
        let commit_confirm = match confirm_minutes {
            Some(m) => Some(self.commit_confirm_for(m).await?),
            None => None,
        };
        let body = FileBody {
            op,
            file,
            string: string.as_deref(),
            confirm_time: confirm_minutes.map(NonZeroU32::get),
            // Always asked of a merge: a model without the field drops it (pydantic ignores
            // undeclared fields), and the helper from before it sets each changed leaf anyway.
            destructive: (op == "merge").then_some(true),
        };
        let commands: Vec<Command> = expected.map(|t| t.to_commands()).unwrap_or_default();
        let guard = self.write_guard().await;
        let before = self.config_tree().await.ok();
        let answer = self.write_once(CONFIG_FILE, &body).await;
        // A refusal leaves what the failed commit did not take staged (audit N5): cleared before
        // the read-back, under the same guard, so that no write of this process commits it.
        let staged = match &answer {
            Err(WriteFailure::Other(Error::Api { .. })) => Some(self.discard_staged().await),
            _ => None,
        };
        drop(guard);
        let result = self
            .after_write(
                CONFIG_FILE,
                answer,
                &commands,
                commit_confirm,
                before.as_ref(),
            )
            .await;
        match staged {
            Some(note) => result.map_err(|e| with_note(e, &note)),
            None => result,
        }
    }

    /// Discards the API's shared configuration session after a refused `load`/`merge`.
    ///
    /// `config_file_op` (vyos-1x `src/services/api/rest/routers.py`; `sagitta`
    /// `src/services/vyos-http-api-server`) answers a failed load or commit 400 without
    /// `session.discard()`, so the rest stays staged in the one session the API shares
    /// (`ConfigSession(os.getpid())`) and the next `/configure` of any client would commit it.
    /// Neither API has a discard operation, but `_configure_op` (same files) calls
    /// `session.discard()` when a command of its batch raises, and it raises on an unknown `op`
    /// before setting anything: a batch of one such command discards the session and changes
    /// nothing. Returns what to tell the user.
    async fn discard_staged(&self) -> String {
        // A non-empty path: `BasePathModel.check_non_empty` would refuse an empty one before
        // `_configure_op` runs.
        let path = ["system".to_owned()];
        let body = ConfigureBody {
            commands: vec![WireCommand {
                op: "discard",
                path: &path,
                value: None,
            }],
            confirm_time: None,
        };
        match self.write_once("configure", &body).await {
            Err(WriteFailure::Other(Error::Api { message, .. }))
                if message.contains("is not a valid operation") =>
            {
                "the API's configuration session was discarded, so nothing the refused write left \
                 stays staged there"
                    .to_owned()
            }
            other => format!(
                "what the refused write left may still be staged in the API's session, and the \
                 next /configure of any client would commit it (discarding it was answered: \
                 {}); restart the API (`sudo systemctl restart vyos-http-api`: a new process \
                 has a new session) before any other write",
                match other {
                    Ok(_) => "success".to_owned(),
                    Err(WriteFailure::Other(e)) => e.to_string(),
                    Err(WriteFailure::MaybeSent(e)) => e.to_string(),
                }
            ),
        }
    }

    /// The text of `tree` as VyOS's `load`/`merge` read it, with the version footer `source`
    /// states.
    ///
    /// `vyos-merge-config.py` and `vyos-load-config.py` (vyos-1x) parse with vyos1x-config, whose
    /// lexer (`src/vyos1x_lexer.mll`) reads `'` and `"` as string quotes and decodes `\`
    /// escapes, so VyOS's printed form (`description Bob's-uplink`) would break or be mangled:
    /// [`ConfigTree::to_load_string`] writes what that lexer reads back as this tree. Both run
    /// `ConfigMigrate` first (`python/vyos/migrate.py`), which reads the syntax version from the
    /// footer and runs every migration script from version 0 on a text without one
    /// (`component_version.py` `version_info_from_file` leaves `component` unset), and skips
    /// every migration on a text whose footer says current: so the footer is the text's own, the
    /// router's for its own `showConfig` text, or the one the caller names; never guessed.
    ///
    /// # Errors
    /// [`Error::InlineConfigRefused`] when the text has no footer and the source names none, when
    /// it has one and the source names another, or when the router's cannot be read.
    async fn load_text(&self, source: &ConfigSource, tree: &ConfigTree) -> Result<String, Error> {
        let mut tree = tree.clone();
        let own = tree.footer.as_deref().is_some_and(has_version_footer);
        let refuse = |reason: &str| {
            Err(Error::InlineConfigRefused {
                reason: reason.to_owned(),
            })
        };
        tree.footer = match (source, own) {
            (ConfigSource::Inline(_), true) => tree.footer.take(),
            (ConfigSource::Inline(_), false) => {
                return refuse(
                    "the text has no version footer, and VyOS would migrate it from version 0 \
                     (vyos-1x python/vyos/migrate.py): send this router's own showConfig text as \
                     ConfigSource::InlineFromRouter, or name its version with \
                     ConfigSource::InlineAt",
                );
            }
            (_, true) => {
                return refuse(
                    "the text has a version footer of its own: send it as ConfigSource::Inline",
                );
            }
            (ConfigSource::InlineAt { version, .. }, false) => Some(version.footer()),
            (_, false) => match crate::backup::saved_footer(self).await {
                Ok(footer) if has_version_footer(&footer) => Some(footer),
                _ => {
                    return refuse(
                        "the router's version footer could not be read or is stale (`show \
                         system commit file 0`; set `system config-management commit-revisions`): \
                         name the text's version with ConfigSource::InlineAt, else VyOS would \
                         migrate it from version 0 (vyos-1x python/vyos/migrate.py)",
                    );
                }
            },
        };
        Ok(tree.to_load_string())
    }

    /// Refuses a `merge` of text whose syntax version the router's merge helper would not
    /// migrate from (see [`MergeHelper`]): text that is not this router's own `showConfig` text
    /// goes out only where the helper migrates, or where its version is the router's own
    /// (`show system commit file 0`).
    ///
    /// # Errors
    /// [`Error::InlineConfigRefused`] naming both versions, or why it cannot tell.
    async fn check_merge_syntax(
        &self,
        source: &ConfigSource,
        tree: &ConfigTree,
    ) -> Result<(), Error> {
        let stated = match source {
            ConfigSource::InlineAt { version, .. } => version.components().to_owned(),
            ConfigSource::Inline(_) => tree
                .footer
                .as_deref()
                .and_then(footer_components)
                .unwrap_or_default()
                .to_owned(),
            _ => return Ok(()),
        };
        let why = match self.merge_helper().await? {
            MergeHelper::Migrating => return Ok(()),
            MergeHelper::TreeMerge => "this router's merge does not migrate: its helper \
                 (vyos-1x src/helpers/vyos-merge-config.py since PR #4574, shown by `destructive` \
                 in /config-file's schema) runs ConfigMigrate only under --migrate, which \
                 ConfigSession.merge_config never passes"
                .to_owned(),
            MergeHelper::Unknown(reason) => {
                format!("cannot tell whether this router's merge migrates the text ({reason})")
            }
        };
        let router = crate::backup::saved_footer(self).await;
        let own = router.as_deref().ok().and_then(footer_components);
        if own.is_some_and(|own| own == stated) {
            return Ok(());
        }
        let theirs = match &router {
            Ok(_) => own.map_or_else(|| "unreadable".to_owned(), |o| format!("\"{o}\"")),
            Err(e) => format!("unreadable: {e}"),
        };
        Err(Error::InlineConfigRefused {
            reason: format!(
                "{why}, and the text's version \"{stated}\" is not the router's ({theirs}): it \
                 would land unmigrated; send the router's own syntax"
            ),
        })
    }

    /// `GET /openapi.json`: which `merge` helper the router runs, from whether `ConfigFileModel`
    /// declares `destructive` (vyos-1x PR #4574 added the field and rewrote the helper).
    async fn merge_helper(&self) -> Result<MergeHelper, Error> {
        let response = self.http.execute(Request::get("openapi.json")).await?;
        if response.status() != StatusCode::OK {
            return Ok(MergeHelper::Unknown(format!(
                "GET /openapi.json answered {}",
                response.status()
            )));
        }
        let Ok(doc) = response.json::<Value>() else {
            return Ok(MergeHelper::Unknown(
                "GET /openapi.json is not JSON".to_owned(),
            ));
        };
        Ok(
            match crate::api::openapi::request_has_field(&doc, "/config-file", "destructive") {
                Some(true) => MergeHelper::TreeMerge,
                Some(false) => MergeHelper::Migrating,
                None => MergeHelper::Unknown(
                    "the API's schema has no /config-file request body".to_owned(),
                ),
            },
        )
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

/// Which helper runs a `merge` on the router, as `/config-file`'s schema shows it.
#[derive(Debug)]
enum MergeHelper {
    /// `ConfigFileModel` declares `destructive` (vyos-1x PR #4574, T7499): the helper merges
    /// with vyos1x-config `src/union.ml` `tree_merge` (a leaf the router has keeps its values
    /// unless `destructive`, when the text's replace them) and does not migrate the text.
    TreeMerge,
    /// No `destructive`: the helper from before PR #4574 runs `ConfigMigrate` (from the
    /// text's footer) and then `my_set` for each of the text's commands the running
    /// configuration lacks.
    Migrating,
    /// The schema could not be read, so which helper runs is not known.
    Unknown(String),
}

/// The component versions of a footer's `// vyos-config-version: "…"` line.
fn footer_components(footer: &str) -> Option<&str> {
    footer.lines().find_map(|l| {
        l.trim()
            .strip_prefix("// vyos-config-version:")
            .map(|v| v.trim().trim_matches('"'))
    })
}

/// `e` with `note` added to VyOS's message, for the refusals a `load`/`merge` can end in.
fn with_note(e: Error, note: &str) -> Error {
    match e {
        Error::Api {
            endpoint,
            status,
            message,
        } => Error::Api {
            endpoint,
            status,
            message: format!("{message}; {note}"),
        },
        Error::RefusedAfterCommit {
            endpoint,
            status,
            message,
            landed,
            commands,
        } => Error::RefusedAfterCommit {
            endpoint,
            status,
            message: format!("{message}; {note}"),
            landed,
            commands,
        },
        Error::CommitConfirmRefused {
            endpoint,
            status,
            message,
        } => Error::CommitConfirmRefused {
            endpoint,
            status,
            message: format!("{message}; {note}"),
        },
        Error::CommitConfirmNotInitialized {
            endpoint,
            message,
            landed,
        } => Error::CommitConfirmNotInitialized {
            endpoint,
            message: format!("{message}; {note}"),
            landed,
        },
        other => other,
    }
}

/// Whether `footer` holds the version lines `python/vyos/component_version.py` looks for
/// (`REGEX_WARN_VYOS` and `REGEX_COMPONENT_VERSION_VYOS`, or their Vyatta forms).
fn has_version_footer(footer: &str) -> bool {
    (footer.contains("// Warning: Do not remove the following line.")
        && footer.contains("// vyos-config-version:"))
        || (footer.contains("/* Warning: Do not remove the following line. */")
            && footer.contains("vyatta-config-version:"))
}
