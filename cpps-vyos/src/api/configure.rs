//! `POST /configure`: a batch of `set`/`delete`/`comment` commands committed at once, optionally
//! with commit-confirm.
//!
//! Sources: `vyos-http-api.md` ("/configure": a list of commands is one session and one commit;
//! "Commit-confirm": `confirm_time` minutes, then `op: confirm`), and vyos-1x
//! `src/services/api/rest/models.py` (`ConfigureListModel`: `key`, `commands`, `confirm_time` at
//! the top level — a `confirm_time` inside a command is ignored by the server) and `routers.py`
//! (`_configure_op`: one global lock, commit, `commit_confirm(minutes=…)`).

use std::num::NonZeroU32;

use serde::Serialize;

use crate::client::{VyosClient, WriteFailure, data_text};
use crate::config::{Command, ConfigTree, Op};
use crate::error::{Error, Landed};

const CONFIGURE: &str = "configure";
const CONFIG_FILE: &str = "config-file";

#[derive(Serialize)]
struct WireCommand<'a> {
    op: &'static str,
    path: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<&'a str>,
}

#[derive(Serialize)]
struct ConfigureBody<'a> {
    commands: Vec<WireCommand<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    confirm_time: Option<u32>,
}

#[derive(Serialize)]
struct ConfirmBody {
    op: &'static str,
}

/// What a successful write answered.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Committed {
    /// VyOS's message (commit warnings, "Initialized commit-confirm; N minutes to confirm …");
    /// empty when it had none.
    pub message: String,
}

impl VyosClient {
    /// `POST /configure` with `commands` as ONE request, so VyOS applies them in one session and one
    /// commit; with `confirm_minutes`, as a commit-confirm that VyOS reverts unless
    /// [`VyosClient::confirm`] is called in time. An empty batch sends nothing.
    ///
    /// Waits for any other write to this router in this process first, and is never retried.
    ///
    /// # Errors
    /// [`Error::EmptyPath`] for a command without a path (nothing is sent); [`Error::Api`] when VyOS
    /// refuses the batch (it then discards the whole session); [`Error::WriteTimedOut`] when no
    /// answer came: the configuration was read back and [`Landed`] says whether the change is in it.
    pub async fn configure(
        &self,
        commands: &[Command],
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        if commands.is_empty() {
            return Ok(Committed {
                message: String::new(),
            });
        }
        if commands.iter().any(|c| c.path.is_empty()) {
            return Err(Error::EmptyPath);
        }
        let body = ConfigureBody {
            commands: commands
                .iter()
                .map(|c| WireCommand {
                    op: c.op.as_str(),
                    path: &c.path,
                    value: c.value.as_deref(),
                })
                .collect(),
            confirm_time: confirm_minutes.map(NonZeroU32::get),
        };
        let _guard = self.write_guard().await;
        match self.write_once(CONFIGURE, &body).await {
            Ok(data) => Ok(Committed {
                message: data_text(CONFIGURE, data)?,
            }),
            Err(WriteFailure::Other(e)) => Err(e),
            Err(WriteFailure::MaybeSent(source)) => {
                let landed = match self.config_tree().await {
                    Ok(tree) => batch_landed(&tree, commands),
                    Err(e) => Landed::Unknown {
                        reason: format!("reading the configuration back failed: {e}"),
                    },
                };
                Err(Error::WriteTimedOut {
                    endpoint: CONFIGURE,
                    landed,
                    source,
                })
            }
        }
    }

    /// `POST /config-file` with `op: confirm`: keeps a commit-confirm's changes (stops VyOS's
    /// reload timer).
    ///
    /// # Errors
    /// [`Error::Api`] when there is nothing to confirm or VyOS refuses; [`Error::WriteTimedOut`]
    /// (with [`Landed::Unknown`]: a confirm leaves no trace in the configuration) when no answer came.
    pub async fn confirm(&self) -> Result<Committed, Error> {
        let _guard = self.write_guard().await;
        match self
            .write_once(CONFIG_FILE, &ConfirmBody { op: "confirm" })
            .await
        {
            Ok(data) => Ok(Committed {
                message: data_text(CONFIG_FILE, data)?,
            }),
            Err(WriteFailure::Other(e)) => Err(e),
            Err(WriteFailure::MaybeSent(source)) => Err(Error::WriteTimedOut {
                endpoint: CONFIG_FILE,
                landed: Landed::Unknown {
                    reason: "a confirm cannot be seen in the configuration".to_owned(),
                },
                source,
            }),
        }
    }
}

/// Whether the configuration read back shows the commands' effect: every `set` present and every
/// `delete` gone ([`Landed::Yes`]), none of them ([`Landed::No`]), or some ([`Landed::Unknown`]).
/// Comments are not checked. A command that was already in effect before the write counts as landed.
pub fn batch_landed(tree: &ConfigTree, commands: &[Command]) -> Landed {
    let mut checked = 0usize;
    let mut present = 0usize;
    for c in commands {
        let seen = match (c.op, &c.value) {
            (Op::Set, Some(v)) => tree.values(&c.path).contains(v),
            (Op::Set, None) => tree.exists(&c.path),
            (Op::Delete, Some(v)) => !tree.values(&c.path).contains(v),
            (Op::Delete, None) => !tree.exists(&c.path),
            (Op::Comment, _) => continue,
        };
        checked += 1;
        present += usize::from(seen);
    }
    if checked == 0 {
        Landed::Unknown {
            reason: "the batch holds only comments".to_owned(),
        }
    } else if present == checked {
        Landed::Yes
    } else if present == 0 {
        Landed::No
    } else {
        Landed::Unknown {
            reason: format!("{present} of {checked} changes are in the configuration"),
        }
    }
}
