//! `POST /configure`: a batch of `set`/`delete`/`comment` commands committed at once, optionally
//! with commit-confirm; the plan of such a write; and the read-back after it.
//!
//! Sources (each pinned by a test in `tests/configure.rs`):
//! - `vyos-http-api.md` ("/configure": a list of commands is one session and one commit;
//!   "Commit-confirm": `confirm_time` minutes, then `op: confirm`; `system config-management
//!   commit-confirm action`: `reload`, or `reboot` to the SAVED configuration, the default);
//! - vyos-1x `src/services/api/rest/models.py` and `routers.py` (1.5: `ConfigureListModel` has
//!   `key`, `commands`, `confirm_time` at the top level; `_configure_op` commits with
//!   `commit_confirm(minutes=…)` and answers its text, "Initialized commit-confirm; N minutes to
//!   confirm before reboot" in `python/vyos/config_mgmt.py`);
//! - vyos-1x `src/services/vyos-http-api-server` on `sagitta` (1.4: `ConfigureListModel` has no
//!   `confirm_time`, pydantic drops it, the batch is committed for good);
//! - both servers: a change below `service https` is committed in a background task
//!   (`call_commit`) after the answer "Requested HTTP API server configuration change; commit
//!   will be called in the background", and a failure of that commit is only logged.

use std::fmt;
use std::num::NonZeroU32;
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use crate::api::openapi::CommitConfirmSupport;
use crate::client::{Client, WriteFailure, data_text};
use crate::config::{Command, ConfigTree, NodeRef, Op, secrets};
use crate::error::{Error, Landed};

const CONFIGURE: &str = "configure";
const CONFIG_FILE: &str = "config-file";

/// The words of VyOS's answer when commit-confirm started its timer (`commit_confirm` in vyos-1x
/// `python/vyos/config_mgmt.py`).
pub(crate) const CONFIRM_STARTED: &str = "Initialized commit-confirm";
/// The words of VyOS's answer when a change of `service https` is committed after the answer
/// (`self_ref_msg` in `routers.py` / `vyos-http-api-server`).
pub(crate) const BACKGROUND_COMMIT: &str = "commit will be called in the background";
/// How often, and how far apart, a background commit is looked for in the configuration.
const BACKGROUND_READS: u32 = 5;
const BACKGROUND_WAIT: Duration = Duration::from_secs(1);

/// One command of a `/configure` batch as sent.
#[derive(Serialize)]
pub(crate) struct WireCommand<'a> {
    pub(crate) op: &'static str,
    pub(crate) path: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) value: Option<&'a str>,
}

/// The body of `POST /configure`.
#[derive(Serialize)]
pub(crate) struct ConfigureBody<'a> {
    pub(crate) commands: Vec<WireCommand<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) confirm_time: Option<u32>,
}

#[derive(Serialize)]
struct ConfirmBody {
    op: &'static str,
}

/// What VyOS does when a commit-confirm is not confirmed in time
/// (`system config-management commit-confirm action`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfirmAction {
    /// `reboot` (the default): the router REBOOTS into its saved configuration
    /// (`/config/config.boot`), losing every commit not saved, not only this one.
    Reboot,
    /// `reload`: the previous configuration is loaded again, without reboot.
    Reload,
    /// A value this client does not know, kept as sent.
    Unknown(String),
}

impl ConfirmAction {
    fn from_value(v: Option<&str>) -> Self {
        match v {
            None | Some("reboot") => ConfirmAction::Reboot,
            Some("reload") => ConfirmAction::Reload,
            Some(other) => ConfirmAction::Unknown(other.to_owned()),
        }
    }
}

impl fmt::Display for ConfirmAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfirmAction::Reboot => {
                f.write_str("REBOOT the router into its saved configuration (/config/config.boot)")
            }
            ConfirmAction::Reload => f.write_str("reload the previous configuration"),
            ConfirmAction::Unknown(v) => write!(f, "`{v}` (an action this client does not know)"),
        }
    }
}

/// A commit-confirm that VyOS started.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommitConfirm {
    /// Minutes until VyOS acts.
    pub minutes: u32,
    /// What it does then, unless [`Client::confirm`] is called.
    pub action: ConfirmAction,
}

/// Whether one command shows its effect in the configuration read back after the write.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CommandLanded {
    /// The command.
    pub command: Command,
    /// `Some(true)` when the configuration shows it, `Some(false)` when it does not, `None` for
    /// a comment (not checked) or when the configuration could not be read.
    pub landed: Option<bool>,
}

/// What a successful write answered, and what the configuration read back after it shows.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Committed {
    /// VyOS's message (commit warnings, "Initialized commit-confirm; N minutes to confirm …");
    /// empty when it had none.
    pub message: String,
    /// The whole batch, judged from the configuration read back.
    pub landed: Landed,
    /// Each command, judged from the configuration read back.
    pub commands: Vec<CommandLanded>,
    /// Whether VyOS committed in the background (changes below `service https`): it answered
    /// before the commit ran and would not report its failure; [`Committed::landed`] is what the
    /// read-back found.
    pub background_commit: bool,
    /// The commit-confirm VyOS started, if one was asked; its action is the one VyOS's answer
    /// names.
    pub commit_confirm: Option<CommitConfirm>,
    /// Things the caller should tell the user.
    pub warnings: Vec<String>,
}

impl Committed {
    pub(crate) fn message_only(message: String) -> Self {
        Self {
            message,
            landed: Landed::Unknown {
                reason: "this write leaves no trace in the configuration".to_owned(),
            },
            commands: Vec::new(),
            background_commit: false,
            commit_confirm: None,
            warnings: Vec::new(),
        }
    }
}

/// The answer of a successful [`Client::confirm`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Confirmed {
    /// VyOS's message ("Reboot timer stopped" / "Reload timer stopped").
    pub message: String,
    /// The answer of the `save` sent after it, so that the next reboot keeps the change.
    pub saved: Committed,
}

/// What [`Client::configure`] would do, without doing it ([`Client::plan_configure`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigurePlan {
    /// The router's version.
    pub version: crate::RouterVersion,
    /// The commands, in order, as one commit.
    pub commands: Vec<Command>,
    /// The commands already in effect in the running configuration.
    pub already_in_effect: usize,
    /// The commit-confirm that would be asked, and what VyOS would do if it is not confirmed as
    /// its configuration says; the router's answer to the write decides
    /// ([`Committed::commit_confirm`]).
    pub commit_confirm: Option<CommitConfirm>,
    /// Why commit-confirm cannot be used on this router, when it was asked and cannot.
    pub commit_confirm_refused: Option<String>,
    /// Whether VyOS would commit in the background (changes below `service https`).
    pub background_commit: bool,
}

impl fmt::Display for ConfigurePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "router version {} ({:?} API); {} command(s) in one commit, {} already in effect:",
            if self.version.text.is_empty() {
                "hidden"
            } else {
                &self.version.text
            },
            self.version.api,
            self.commands.len(),
            self.already_in_effect
        )?;
        // Secret values never reach a printed plan.
        for c in &self.commands {
            writeln!(f, "  {}", c.redacted())?;
        }
        if let Some(reason) = &self.commit_confirm_refused {
            writeln!(f, "commit-confirm REFUSED: {reason}; nothing would be sent")?;
        }
        if let Some(cc) = &self.commit_confirm {
            writeln!(
                f,
                "commit-confirm: unless confirmed within {} minute(s), VyOS will {} \
                 (system config-management commit-confirm action); the router's answer decides \
                 (some 1.5 builds reload whatever the setting says) and the write reports it; \
                 after the confirm the configuration is saved",
                cc.minutes, cc.action
            )?;
        }
        if self.background_commit {
            writeln!(
                f,
                "changes below `service https`: VyOS commits them in the background, after \
                 answering, and does not report a failure; the result is checked by reading the \
                 configuration back"
            )?;
            if self.commit_confirm.is_some() {
                writeln!(
                    f,
                    "with commit-confirm, VyOS starts the timer in the background too: its answer \
                     cannot say the timer started, so the write is reported as not initialized \
                     and `confirm` tells whether a timer is pending"
                )?;
            }
        }
        Ok(())
    }
}

/// The action a commit-confirm answer names: `commit_confirm` in vyos-1x
/// `python/vyos/config_mgmt.py` answers "Initialized commit-confirm; N minutes to confirm before
/// reboot" or "… before reload". Any other word, or none, is kept as
/// [`ConfirmAction::Unknown`].
fn action_from_answer(message: &str) -> ConfirmAction {
    let line = message
        .lines()
        .find(|l| l.contains(CONFIRM_STARTED))
        .unwrap_or(message)
        .trim();
    match line.rsplit_once(" before ") {
        Some((_, "reboot")) => ConfirmAction::Reboot,
        Some((_, "reload")) => ConfirmAction::Reload,
        Some((_, other)) => ConfirmAction::Unknown(other.to_owned()),
        None => ConfirmAction::Unknown(line.to_owned()),
    }
}

/// Whether a batch changes `service https` (committed in the background by VyOS).
pub fn touches_https_service(commands: &[Command]) -> bool {
    commands.iter().any(|c| {
        c.path.first().map(String::as_str) == Some("service")
            && c.path.get(1).map(String::as_str) == Some("https")
    })
}

/// What a read-back right after a write without an answer can tell (S3 of issue 32): only that
/// the change is in. nginx waits 600 s for the API (`proxy_read_timeout 600` in vyos-1x
/// `data/templates/https/nginx.default.j2`, both branches) and the API's commit goes on after
/// the client stopped waiting, under `_configure_op`'s lock, which `retrieve_op`
/// (`src/services/api/rest/routers.py`) does not take: a read-back that does not show the
/// change may have raced a commit still running.
fn after_timeout(seen: Landed) -> Landed {
    match seen {
        Landed::Yes | Landed::Unknown { .. } => seen,
        other => Landed::Unknown {
            reason: format!(
                "the read-back shows landed: {other}, but the commit may still be running on the \
                 router (its API goes on after the client stops waiting, and reads do not wait \
                 for it): read the configuration again later"
            ),
        },
    }
}

/// Each command not judged: the configuration could not be read.
fn unread(commands: &[Command]) -> Vec<CommandLanded> {
    commands
        .iter()
        .map(|c| CommandLanded {
            command: c.clone(),
            landed: None,
        })
        .collect()
}

/// [`read_back`] of `now`, except that a configuration equal to `before` (read before the
/// write) shows nothing landed: commands that were already in effect did not land.
fn landed_since(
    before: Option<&ConfigTree>,
    now: &ConfigTree,
    commands: &[Command],
) -> (Landed, Vec<CommandLanded>) {
    let (landed, per_command) = read_back_since(before, now, commands);
    if before != Some(now) {
        return (landed, per_command);
    }
    let per_command = per_command
        .into_iter()
        .map(|c| CommandLanded {
            landed: c.landed.map(|_| false),
            ..c
        })
        .collect();
    (Landed::No, per_command)
}

/// What a write's caller should be told: a background commit, the timer started, and a
/// read-back that does not show the whole change.
fn write_warnings(
    background_commit: bool,
    commit_confirm: Option<&CommitConfirm>,
    landed: &Landed,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if background_commit {
        warnings.push(
            "VyOS commits changes below `service https` in the background after answering and does not report a failure; the configuration was read back to check it"
                .to_owned(),
        );
    }
    if let Some(cc) = commit_confirm {
        warnings.push(format!(
            "commit-confirm started: unless confirmed within {} minute(s), VyOS will {}",
            cc.minutes, cc.action
        ));
    }
    if *landed != Landed::Yes {
        warnings.push(format!(
            "the configuration read back does not show the whole change (landed: {landed})"
        ));
    }
    warnings
}

/// What is known of a change when the configuration could not be read back.
fn read_back_failed(e: &Error) -> Landed {
    Landed::Unknown {
        reason: format!("reading the configuration back failed: {e}"),
    }
}

impl Client {
    /// What [`Client::configure`] would do, read from the router without writing: its version
    /// (read now, [`Client::version_fresh`]),
    /// whether commit-confirm can be used and what happens if it is not confirmed
    /// (`POST /retrieve` `returnValue` of `system config-management commit-confirm action`,
    /// default `reboot`), which commands are already in effect, and whether the commit runs in
    /// the background.
    ///
    /// # Errors
    /// As [`Client::version_fresh`] and [`Client::config_tree`].
    pub async fn plan_configure(
        &self,
        commands: &[Command],
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<ConfigurePlan, Error> {
        // Read now: the client may have kept a reading from before an image change (S8).
        let version = self.version_fresh().await?;
        let running = self.config_tree().await?;
        let (mut commit_confirm, mut refused) = (None, None);
        if let Some(minutes) = confirm_minutes {
            match self.commit_confirm_for(minutes).await {
                Ok(cc) => commit_confirm = Some(cc),
                Err(Error::CommitConfirmUnsupported { reason, .. }) => refused = Some(reason),
                Err(e) => return Err(e),
            }
        }
        let (_, landed) = read_back(&running, commands);
        Ok(ConfigurePlan {
            version,
            commands: commands.to_vec(),
            already_in_effect: landed.iter().filter(|c| c.landed == Some(true)).count(),
            commit_confirm,
            commit_confirm_refused: refused,
            background_commit: touches_https_service(commands),
        })
    }

    /// Checks that the router can honour a commit-confirm, from the API's own schema
    /// ([`Client::commit_confirm_support`]: `confirm_time` in the `/configure` request of
    /// `/openapi.json`, never the presence of `/info`), and reads what it does when the confirm
    /// does not come.
    ///
    /// # Errors
    /// [`Error::CommitConfirmUnsupported`] when the schema has no `confirm_time` or cannot be
    /// read; errors of [`Client::commit_confirm_support`], [`Client::version`] and
    /// [`Client::return_value`].
    pub(crate) async fn commit_confirm_for(
        &self,
        minutes: NonZeroU32,
    ) -> Result<CommitConfirm, Error> {
        self.require_commit_confirm().await?;
        let action = self
            .return_value(&["system", "config-management", "commit-confirm", "action"])
            .await?;
        Ok(CommitConfirm {
            minutes: minutes.get(),
            action: ConfirmAction::from_value(action.as_deref()),
        })
    }

    /// [`Error::CommitConfirmUnsupported`] unless the API's schema shows `confirm_time`.
    async fn require_commit_confirm(&self) -> Result<(), Error> {
        let reason = match self.commit_confirm_support().await? {
            CommitConfirmSupport::Yes => return Ok(()),
            CommitConfirmSupport::No { reason } | CommitConfirmSupport::Unknown { reason } => {
                reason
            }
        };
        Err(self.confirm_unsupported(reason).await)
    }

    /// [`Error::CommitConfirmUnsupported`] only when the API's schema was read and shows no
    /// `confirm_time`. A schema that cannot be read now is not "no": the write before the
    /// confirm already read it, and a confirm skipped for a failed read lets VyOS's timer
    /// revert (by default, reboot) a change whose checks held; a router without the operation
    /// refuses it (`config_file_op` answers 400 "'confirm' is not a valid operation"), which
    /// changes nothing.
    async fn refuse_confirm_only_if_absent(&self) -> Result<(), Error> {
        match self.commit_confirm_support().await {
            Ok(CommitConfirmSupport::No { reason }) => Err(self.confirm_unsupported(reason).await),
            Ok(_) | Err(_) => Ok(()),
        }
    }

    /// [`Error::CommitConfirmUnsupported`] for `reason`, naming the router's version; the
    /// version's error when it cannot be read.
    async fn confirm_unsupported(&self, reason: String) -> Error {
        match self.version().await {
            Ok(v) => Error::CommitConfirmUnsupported {
                version: if v.text.is_empty() {
                    "unknown".to_owned()
                } else {
                    v.text
                },
                reason,
            },
            Err(e) => e,
        }
    }

    /// `POST /configure` with `commands` as ONE request, so VyOS applies them in one session and one
    /// commit; with `confirm_minutes`, as a commit-confirm: unless [`Client::confirm`] is called in
    /// time, VyOS reboots into its saved configuration (or reloads the previous one, as
    /// `system config-management commit-confirm action` says; [`Committed::commit_confirm`]).
    /// An empty batch sends nothing.
    ///
    /// Before sending a commit-confirm, the API's schema is read
    /// ([`Client::commit_confirm_support`]): a server whose `/configure` model does not declare
    /// `confirm_time` (VyOS 1.4, and 1.5 builds before vyos-1x PR #4533) would drop it and commit
    /// for good, so the client refuses. After every
    /// write the configuration is read back and each command judged
    /// ([`Committed::commands`]); a change below `service https`, which VyOS commits in the
    /// background after answering, is looked for a few times.
    ///
    /// Waits for any other write to this router in this process first, and is never retried.
    ///
    /// # Errors
    /// [`Error::EmptyPath`] for a command without a path and
    /// [`Error::CommitConfirmUnsupported`] (nothing is sent); when VyOS refuses the batch, the
    /// configuration is read back: [`Error::Api`] when none of it shows or the configuration
    /// equals the one read before the write (a batch refused as a whole), else
    /// [`Error::RefusedAfterCommit`] with each command's state (vyatta-cfg keeps every priority
    /// subtree whose commit succeeded and VyOS discards only the rest, so part of a refused
    /// batch can be live, and unsaved); [`Error::CommitConfirmNotInitialized`] when the
    /// answer does not say that the confirm timer started (with commit-confirm, a refusal whose
    /// read-back does not show the batch absent is one too: VyOS commits before it starts the
    /// timer); [`Error::CommitConfirmRefused`] for a commit-confirmed batch refused with nothing
    /// landed (the first commit-confirm builds armed the timer before the commit);
    /// [`Error::WriteTimedOut`] when no answer came, or only nginx's own 502/504 page (the
    /// API's commit may go on behind it): the configuration was read back, and
    /// [`Landed`] is `Yes` only when the change shows, else unknown (the commit may still be
    /// running on the router).
    pub async fn configure(
        &self,
        commands: &[Command],
        confirm_minutes: Option<NonZeroU32>,
    ) -> Result<Committed, Error> {
        if commands.is_empty() {
            let mut done = Committed::message_only(String::new());
            done.landed = Landed::Yes;
            return Ok(done);
        }
        if commands.iter().any(|c| c.path.is_empty()) {
            return Err(Error::EmptyPath);
        }
        let commit_confirm = match confirm_minutes {
            Some(m) => Some(self.commit_confirm_for(m).await?),
            None => None,
        };
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
        let guard = self.write_guard().await;
        // Read under the guard, so that no write of this process comes between: a refusal is
        // judged against it.
        let before = self.config_tree().await.ok();
        let answer = self.write_once(CONFIGURE, &body).await;
        drop(guard);
        self.after_write(CONFIGURE, answer, commands, commit_confirm, before.as_ref())
            .await
    }

    /// Whether the batch `commands` shows in the configuration read back now
    /// ([`Client::config_tree`]); unknown, with the reason, when the read fails.
    async fn batch_landed_now(&self, commands: &[Command], before: Option<&ConfigTree>) -> Landed {
        match self.config_tree().await {
            Ok(tree) => read_back_since(before, &tree, commands).0,
            Err(e) => read_back_failed(&e),
        }
    }

    /// The configuration read back after a write and judged per command: once, or, after a
    /// `background_commit`, up to [`BACKGROUND_READS`] times until the whole change shows.
    async fn read_back_after(
        &self,
        commands: &[Command],
        background_commit: bool,
        before: Option<&ConfigTree>,
    ) -> (Landed, Vec<CommandLanded>) {
        let reads = if background_commit {
            BACKGROUND_READS
        } else {
            1
        };
        let mut outcome = (
            Landed::Unknown {
                reason: "not read back".to_owned(),
            },
            commands
                .iter()
                .map(|c| CommandLanded {
                    command: c.clone(),
                    landed: None,
                })
                .collect::<Vec<_>>(),
        );
        for attempt in 0..reads {
            if attempt > 0 {
                tokio::time::sleep(BACKGROUND_WAIT).await;
            }
            match self.config_tree().await {
                Ok(tree) => {
                    outcome = read_back_since(before, &tree, commands);
                    if outcome.0 == Landed::Yes {
                        break;
                    }
                }
                Err(e) => outcome.0 = read_back_failed(&e),
            }
        }
        outcome
    }

    /// Everything after a write's answer: the commit-confirm check, the background-commit
    /// warning and the read-back.
    pub(crate) async fn after_write(
        &self,
        endpoint: &'static str,
        answer: Result<Value, WriteFailure>,
        commands: &[Command],
        commit_confirm: Option<CommitConfirm>,
        before: Option<&ConfigTree>,
    ) -> Result<Committed, Error> {
        let data = match scrub_refusal(answer, commands) {
            Ok(data) => data,
            Err(failure) => {
                let confirm = commit_confirm.is_some();
                return Err(self
                    .write_failed(endpoint, failure, commands, confirm, before)
                    .await);
            }
        };
        let message = data_text(endpoint, data)?;
        let background_commit =
            message.contains(BACKGROUND_COMMIT) || touches_https_service(commands);
        if commit_confirm.is_some() && !message.contains(CONFIRM_STARTED) {
            // Below `service https`, 1.5 commits and starts the timer in a background task
            // (`call_commit_confirm` in `routers.py`) after answering `self_ref_msg`: the answer
            // cannot tell, so the read-back waits for the commit as for any background commit.
            return Err(Error::CommitConfirmNotInitialized {
                endpoint,
                message,
                landed: self
                    .read_back_after(commands, background_commit, before)
                    .await
                    .0,
            });
        }
        // What VyOS does without a confirm is what its answer says ("… before reload"), not what
        // the configuration says: `current`'s `ConfigMgmt.__init__` (vyos-1x
        // `python/vyos/config_mgmt.py`, T5976) compares the dict `commit_confirm` with
        // `'reboot'`, so it reloads whatever `commit-confirm action` holds.
        let commit_confirm = commit_confirm.map(|mut cc| {
            cc.action = action_from_answer(&message);
            cc
        });
        let outcome = self
            .read_back_after(commands, background_commit, before)
            .await;
        let warnings = write_warnings(background_commit, commit_confirm.as_ref(), &outcome.0);
        Ok(Committed {
            message,
            landed: outcome.0,
            commands: outcome.1,
            background_commit,
            commit_confirm,
            warnings,
        })
    }

    /// The error of a write that was refused or got no answer, with what the configuration read
    /// back shows (`confirm`: a commit-confirm was asked).
    async fn write_failed(
        &self,
        endpoint: &'static str,
        failure: WriteFailure,
        commands: &[Command],
        confirm: bool,
        before: Option<&ConfigTree>,
    ) -> Error {
        match failure {
            WriteFailure::Other(Error::Api {
                status, message, ..
            }) if confirm || !commands.is_empty() => {
                self.refused(endpoint, (status, message), commands, confirm, before)
                    .await
            }
            // nginx answers a write it gave up on with its own page, 504 once `proxy_read_timeout
            // 600` ran out, 502 when the API went away (vyos-1x
            // `data/templates/https/nginx.default.j2`, both branches), while the API's commit may
            // go on (audit N9): no answer from VyOS, so read back as after a timeout.
            WriteFailure::Other(Error::Http(source))
                if source
                    .status()
                    .is_some_and(|s| s.as_u16() == 502 || s.as_u16() == 504) =>
            {
                Error::WriteTimedOut {
                    endpoint,
                    landed: after_timeout(self.batch_landed_now(commands, before).await),
                    source,
                }
            }
            WriteFailure::Other(e) => e,
            WriteFailure::MaybeSent(source) => Error::WriteTimedOut {
                endpoint,
                landed: after_timeout(self.batch_landed_now(commands, before).await),
                source,
            },
        }
    }

    /// The error of a write VyOS refused (`status`, `message`), judged by the read-back.
    async fn refused(
        &self,
        endpoint: &'static str,
        (status, message): (u16, String),
        commands: &[Command],
        confirm: bool,
        before: Option<&ConfigTree>,
    ) -> Error {
        let (landed, per_command) = match self.config_tree().await {
            Ok(now) => landed_since(before, &now, commands),
            Err(e) => (read_back_failed(&e), unread(commands)),
        };
        match (confirm, landed) {
            // The first commit-confirm `_configure_op` armed the timer before committing, so a
            // refusal that left nothing may still have a timer running (S1 of issue 32).
            (true, Landed::No) => Error::CommitConfirmRefused {
                endpoint,
                status,
                message,
            },
            // With commit-confirm, later builds commit before they start the timer
            // (`run_commit_confirm` in vyos-1x `src/services/api/rest/routers.py`), so a refused
            // timer ("Another confirm is pending", `commit_confirm` in
            // `python/vyos/config_mgmt.py`) is answered 400 after the batch was committed for
            // good: the read-back tells.
            (true, landed) => Error::CommitConfirmNotInitialized {
                endpoint,
                message,
                landed,
            },
            // A configuration equal to the one read before the write was refused as a whole
            // (audit N10), even when some commands were already in effect.
            (false, Landed::No) => Error::Api {
                endpoint,
                status,
                message,
            },
            // vyatta-cfg `src/commit/commit-algorithm.cpp` commits each priority subtree that
            // succeeds (`_commit_exec_prio_subtree`) and the API discards only the rest, so a
            // refusal may leave part of the batch live: the read-back tells, per command.
            (false, landed) => Error::RefusedAfterCommit {
                endpoint,
                status,
                message,
                landed,
                commands: per_command,
            },
        }
    }

    /// Keeps a commit-confirm's changes: `POST /config-file` with `op: confirm` (stops VyOS's
    /// reboot or reload timer), then `op: save`, because a commit-confirm is not saved and the
    /// next reboot would otherwise lose it.
    ///
    /// # Errors
    /// [`Error::CommitConfirmUnsupported`] on routers whose API schema has no `confirm_time`
    /// (nothing is sent; a schema that cannot be read now does not stop the confirm, since the
    /// write before it read the schema and a skipped confirm lets the timer revert); [`Error::NothingToConfirm`] when VyOS says no confirm is pending (the timer ran out: the
    /// router is reverting or has reverted); [`Error::Api`] when VyOS refuses;
    /// [`Error::WriteTimedOut`] (with [`Landed::Unknown`]: a confirm leaves no trace in the
    /// configuration) when no answer came; [`Error::ConfirmedNotSaved`] when the confirm went
    /// through and only the save after it failed (save again; do not confirm again);
    /// [`Error::UnexpectedAnswer`] when the answer does not say a timer was stopped (the vyconf
    /// backend answers `unimplemented`), and nothing is saved.
    pub async fn confirm(&self) -> Result<Confirmed, Error> {
        // The `confirm` operation came with `confirm_time` (vyos-1x PR #4533); only a schema
        // read that shows no `confirm_time` stops it (the s42 audit's suspected item).
        self.refuse_confirm_only_if_absent().await?;
        let guard = self.write_guard().await;
        let message = match self
            .write_once(CONFIG_FILE, &ConfirmBody { op: "confirm" })
            .await
        {
            Ok(data) => data_text(CONFIG_FILE, data)?,
            Err(WriteFailure::Other(e)) => return Err(e),
            Err(WriteFailure::MaybeSent(source)) => {
                return Err(Error::WriteTimedOut {
                    endpoint: CONFIG_FILE,
                    landed: Landed::Unknown {
                        reason: "a confirm cannot be seen in the configuration".to_owned(),
                    },
                    source,
                });
            }
        };
        drop(guard);
        // `confirm` in vyos-1x `python/vyos/config_mgmt.py` answers "No confirm pending" when
        // the timer is not running.
        if message.contains("No confirm pending") {
            return Err(Error::NothingToConfirm { message });
        }
        // Only "Reboot timer stopped" / "Reload timer stopped" (`confirm` in
        // `config_mgmt.py`) says a timer was stopped. With the vyconf backend,
        // `ConfigSession.confirm` (`python/vyos/configsession.py`) returns the text
        // `unimplemented`, which the API answers as a success (S10 of issue 32).
        if !message.contains("timer stopped") {
            return Err(Error::UnexpectedAnswer {
                endpoint: CONFIG_FILE,
                message: format!(
                    "the confirm's answer {message:?} does not say a timer was stopped; nothing \
                     was saved"
                ),
            });
        }
        // The timer is stopped: a failed save must not read as a failed confirm, since a retried
        // confirm would find nothing pending (`NothingToConfirm`, "the timer ran out").
        match self.save(None).await {
            Ok(saved) => Ok(Confirmed { message, saved }),
            Err(e) => Err(Error::ConfirmedNotSaved {
                message,
                source: Box::new(e),
            }),
        }
    }
}

/// The configuration read back judged against the commands as one batch: each command's path
/// holds what the whole batch, applied in order, makes there, so a `delete` a later `set`
/// overrides counts by that `set` (comments are not checked). A password set as plaintext is not judged here
/// (`None`): see [`read_back_since`].
pub fn read_back(tree: &ConfigTree, commands: &[Command]) -> (Landed, Vec<CommandLanded>) {
    read_back_since(None, tree, commands)
}

/// The leaf that replaces the write-only leaf at `path` during the commit, if `path` is one:
/// vyos-1x `src/conf_mode/system_login.py` `generate()` turns `system login user U
/// authentication plaintext-password P` into `encrypted-password HASH`, and
/// `src/conf_mode/service_snmp.py` `generate()` does so for `service snmp v3 user U auth` and
/// `privacy` (current: `delete_cli_node`/`add_cli_node`; sagitta: `my_delete`/`my_set`).
pub fn write_only_replacement(path: &[String]) -> Option<Vec<String>> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let known = matches!(
        p.as_slice(),
        [
            "system",
            "login",
            "user",
            _,
            "authentication",
            "plaintext-password"
        ] | [
            "service",
            "snmp",
            "v3",
            "user",
            _,
            "auth" | "privacy",
            "plaintext-password"
        ]
    );
    known.then(|| {
        let mut r = path[..path.len() - 1].to_vec();
        r.push("encrypted-password".to_owned());
        r
    })
}

/// Whether a `set` of a write-only leaf shows: the plaintext still there (the commit has not
/// run its script), or a hash at the replacement that differs from the one read `before` the
/// write. An unchanged hash, or no reading from before, cannot tell (`None`): an SNMPv3 hash
/// of the same password and engine id does not change. The secret is never compared with the
/// hash.
fn write_only_seen(
    before: Option<&ConfigTree>,
    now: &ConfigTree,
    c: &Command,
    replacement: &[String],
) -> Option<bool> {
    let value = c.value.as_ref()?;
    if now.values(&c.path).contains(value) {
        return Some(true);
    }
    let hash = now.values(replacement);
    if hash.is_empty() {
        return Some(false);
    }
    match before {
        Some(b) if b.values(replacement) != hash => Some(true),
        _ => None,
    }
}

/// `base` with the batch applied in order, as VyOS's session does before its one commit
/// (vyos-1x `src/services/api/rest/routers.py` `_configure_op`: `session.set`/`delete` per
/// command, then `session.commit()`; sagitta's `src/services/vyos-http-api-server` alike). A
/// command that does not fit changes nothing here.
fn expected_after(base: &ConfigTree, commands: &[Command]) -> ConfigTree {
    let mut expected = base.clone();
    for c in commands {
        let _ = expected.apply(c);
    }
    expected
}

/// Whether `now` holds at `c`'s path what the whole batch made there (`expected`), so that a
/// command a later one overrides (`delete P; set P v`) counts by the batch's result. A value
/// is judged alone; a `set` of a node only by its presence (others may add below it); a
/// `delete` the batch recreates after it by the whole node, write-only leaves aside.
fn as_expected(now: &ConfigTree, expected: &ConfigTree, c: &Command, batch: &[Command]) -> bool {
    if let Some(v) = &c.value {
        return now.values(&c.path).contains(v) == expected.values(&c.path).contains(v);
    }
    match (expected.exists(&c.path), c.op) {
        (false, _) => !now.exists(&c.path),
        (true, Op::Set) => now.exists(&c.path),
        (true, _) => {
            same_node(now.get(&c.path), expected.get(&c.path))
                || same_without_write_only(now, expected, &c.path, batch)
        }
    }
}

/// [`as_expected`] of a recreated node when VyOS rewrote a password the batch set below it
/// ([`write_only_replacement`]): the node compared without the plaintext and its hash.
fn same_without_write_only(
    now: &ConfigTree,
    expected: &ConfigTree,
    path: &[String],
    batch: &[Command],
) -> bool {
    let rewritten: Vec<(Vec<String>, Vec<String>)> = batch
        .iter()
        .filter(|c| c.op == Op::Set && c.path.starts_with(path))
        .filter_map(|c| write_only_replacement(&c.path).map(|r| (c.path.clone(), r)))
        .collect();
    if rewritten.is_empty() {
        return false;
    }
    let (mut now, mut expected) = (now.clone(), expected.clone());
    for (plain, hash) in &rewritten {
        for t in [&mut now, &mut expected] {
            let _ = t.apply(&Command::delete(plain.clone(), None));
            let _ = t.apply(&Command::delete(hash.clone(), None));
        }
    }
    same_node(now.get(path), expected.get(path))
}

/// Whether two nodes are the same, comments included (both absent counts).
pub(crate) fn same_node(a: Option<NodeRef<'_>>, b: Option<NodeRef<'_>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(NodeRef::Leaf(a)), Some(NodeRef::Leaf(b))) => a == b,
        (Some(NodeRef::Branch(a)), Some(NodeRef::Branch(b))) => a == b,
        (Some(NodeRef::Tag(a)), Some(NodeRef::Tag(b))) => a == b,
        _ => false,
    }
}

/// [`read_back`] with the configuration read `before` the write, which lets a password set as
/// plaintext be judged: VyOS replaces it with its hash during the commit
/// ([`write_only_replacement`]), so a new hash where the plaintext was set means it landed.
pub fn read_back_since(
    before: Option<&ConfigTree>,
    tree: &ConfigTree,
    commands: &[Command],
) -> (Landed, Vec<CommandLanded>) {
    let expected = expected_after(before.unwrap_or(tree), commands);
    let mut checked = 0usize;
    let mut present = 0usize;
    let mut write_only_unknown = false;
    let per_command = commands
        .iter()
        .map(|c| {
            let kept = c
                .value
                .as_ref()
                .is_some_and(|v| expected.values(&c.path).contains(v));
            let seen = match (c.op, write_only_replacement(&c.path)) {
                (Op::Set, Some(r)) if kept => {
                    let seen = write_only_seen(before, tree, c, &r);
                    write_only_unknown |= seen.is_none();
                    seen
                }
                (Op::Comment, _) => None,
                _ => Some(as_expected(tree, &expected, c, commands)),
            };
            if let Some(s) = seen {
                checked += 1;
                present += usize::from(s);
            }
            CommandLanded {
                command: c.clone(),
                landed: seen,
            }
        })
        .collect();
    let landed = if write_only_unknown && present == checked {
        Landed::Unknown {
            reason: "a password set as plaintext shows no new hash: VyOS replaces it with \
                     `encrypted-password` during the commit, and a hash equal to the one \
                     before cannot tell whether it landed"
                .to_owned(),
        }
    } else if checked == 0 {
        Landed::Unknown {
            reason: "no command to check (only comments, or a file on the router)".to_owned(),
        }
    } else if present == checked {
        Landed::Yes
    } else if present == 0 {
        Landed::No
    } else {
        Landed::Partly {
            landed: present,
            checked,
        }
    };
    (landed, per_command)
}

/// Whether the configuration read back shows the commands' effect: every `set` present and every
/// `delete` gone ([`Landed::Yes`]), none of them ([`Landed::No`]), or some ([`Landed::Partly`]).
/// Comments are not checked. A command that was already in effect before the write counts as landed.
pub fn batch_landed(tree: &ConfigTree, commands: &[Command]) -> Landed {
    read_back(tree, commands).0
}

/// The answer with the batch's secrets replaced by the redaction marker in a refusal's text.
/// VyOS echoes the path it refuses, value included: vyatta-cfg `src/cstore/cstore.cpp`
/// `get_parsed_tmpl` answers "Configuration path: [PATH VALUE] is not valid", and vyos-1x
/// `python/vyos/configsession.py` `__run_command` raises `ConfigSessionError` with that output,
/// which the API's `/configure` answers as its `error`.
fn scrub_refusal(
    answer: Result<Value, WriteFailure>,
    commands: &[Command],
) -> Result<Value, WriteFailure> {
    match answer {
        Err(WriteFailure::Other(Error::Api {
            endpoint,
            status,
            message,
        })) => Err(WriteFailure::Other(Error::Api {
            endpoint,
            status,
            message: secrets::scrub(&message, &secrets::batch_secrets(commands)),
        })),
        other => other,
    }
}
