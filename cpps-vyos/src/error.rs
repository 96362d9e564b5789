//! The crate's error type.

use std::fmt;

use cpps_http::{Delivery, StatusCode};

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The HTTP request failed (connection, TLS, timeout of a read, unexpected status).
    #[error("HTTP request failed")]
    Http(#[from] cpps_http::Error),
    /// The router answered 401: the API key is wrong or missing.
    #[error("the router refused the API key at /{endpoint}")]
    Unauthorized {
        /// The endpoint (`configure`, `retrieve`, …).
        endpoint: &'static str,
    },
    /// The router answered `success: false` (400 for a refused command, 422 for a malformed
    /// request, 500 for an internal error).
    #[error("/{endpoint} answered {status}: {message}")]
    Api {
        /// The endpoint.
        endpoint: &'static str,
        /// The HTTP status.
        status: u16,
        /// VyOS's `error` text, HTML entities decoded, the client's own API key removed; for a
        /// write, the batch's secret values and SNMP community names replaced by
        /// [`crate::config::secrets::REDACTED`] (VyOS echoes the path it refuses, value
        /// included: vyatta-cfg `src/cstore/cstore.cpp` `get_parsed_tmpl`).
        message: String,
    },
    /// The client was configured wrongly (a missing or invalid setting or environment variable).
    #[error("invalid client configuration: {reason}")]
    Config {
        /// What is wrong, naming the setting or variable.
        reason: String,
    },
    /// A commit-confirm was asked of a router whose API cannot honour it; nothing was sent.
    ///
    /// VyOS 1.4's API has no `confirm_time` (its pydantic models drop unknown fields, so the
    /// change would be committed for good) and no `confirm` operation.
    #[error(
        "router {version} cannot do commit-confirm through its API: {reason}; nothing was sent"
    )]
    CommitConfirmUnsupported {
        /// The version the router reported (`unknown` when it could not be told).
        version: String,
        /// Why the client refuses.
        reason: String,
    },
    /// A commit-confirm was sent but the answer does not say that VyOS started its confirm timer
    /// (a success without "Initialized commit-confirm", or a refusal that came after the commit,
    /// such as "Another confirm is pending", when the read-back does not rule the change out):
    /// the change may be committed FOR GOOD, without the automatic revert. VyOS 1.5 answers a
    /// change below `service https` before it commits it and starts the timer in the background,
    /// so such a change is always this error; [`Client::confirm`](crate::Client::confirm) then
    /// tells whether a timer is pending.
    #[error(
        "/{endpoint} did not say commit-confirm was initialized (answer: {message:?}); the change may be committed without revert; landed: {landed}"
    )]
    CommitConfirmNotInitialized {
        /// The endpoint.
        endpoint: &'static str,
        /// VyOS's answer text.
        message: String,
        /// Whether the change is in the configuration read back.
        landed: Landed,
    },
    /// VyOS refused a commit-confirmed write and the configuration read back shows none of it,
    /// yet a confirm timer may be running (S1 of issue 32): the first commit-confirm
    /// `_configure_op` of vyos-1x `src/services/api/rest/routers.py` calls
    /// `session.commit_confirm()` (which arms the systemd timer, `commit_confirm` in
    /// `python/vyos/config_mgmt.py`) BEFORE `session.commit()`, and a failed commit leaves that
    /// timer armed, so the router reboots (or reloads) when it runs out, with no warning; later
    /// builds (`run_commit_confirm`) commit first and arm nothing after a failure. The answer
    /// cannot tell them apart: call [`Client::confirm`](crate::Client::confirm), which stops such
    /// a timer or answers "No confirm pending" ([`Error::NothingToConfirm`]).
    #[error(
        "/{endpoint} answered {status}: {message}; nothing of the change shows, but a commit-confirm timer may be armed (call confirm to stop it)"
    )]
    CommitConfirmRefused {
        /// The endpoint.
        endpoint: &'static str,
        /// The HTTP status.
        status: u16,
        /// VyOS's `error` text.
        message: String,
    },
    /// `confirm` found no commit-confirm pending: the timer already ran out (the router is
    /// reverting, by reload or reboot, or has reverted) or nothing was committed with confirm.
    #[error("no commit-confirm is pending on the router (answer: {message:?})")]
    NothingToConfirm {
        /// VyOS's answer text.
        message: String,
    },
    /// `confirm` stopped the commit-confirm timer, so the change stays live, but the `save`
    /// after it failed: a reboot would lose the change. Call [`Client::save`](crate::Client::save)
    /// again, not `confirm` (which would now find nothing to confirm).
    #[error(
        "the commit-confirm was confirmed ({message:?}) but saving the configuration failed; the change is live and not saved"
    )]
    ConfirmedNotSaved {
        /// VyOS's answer to `confirm`.
        message: String,
        /// Why the save failed.
        #[source]
        source: Box<Error>,
    },
    /// The router's answer was not what the API documents.
    #[error("unexpected answer from /{endpoint}: {message}")]
    UnexpectedAnswer {
        /// The endpoint.
        endpoint: &'static str,
        /// What was wrong.
        message: String,
    },
    /// The router refused a write (`success: false`) and the configuration read back shows some
    /// or all of it, or cannot tell: a refusal does not mean nothing happened. vyatta-cfg
    /// `src/commit/commit-algorithm.cpp` commits each priority subtree on its own
    /// (`_commit_exec_prio_subtree`), keeps those that succeeded, and prints `Commit failed`
    /// when any failed; the API's `_configure_op` then only discards what is left of the session
    /// and answers 400. What did land is live and NOT saved. A command that was already in
    /// effect before the write reads as landed too.
    #[error(
        "/{endpoint} answered {status}: {message}; the configuration read back shows landed: {landed}"
    )]
    RefusedAfterCommit {
        /// The endpoint.
        endpoint: &'static str,
        /// The HTTP status.
        status: u16,
        /// VyOS's `error` text (the commit's output).
        message: String,
        /// The whole batch, judged from the configuration read back.
        landed: Landed,
        /// Each command, judged from the configuration read back (secret values are hidden
        /// in `Debug`).
        commands: Vec<crate::CommandLanded>,
    },
    /// Inline configuration text for `load`/`merge` that VyOS would not read as meant; nothing
    /// was sent.
    #[error("inline configuration refused, nothing was sent: {reason}")]
    InlineConfigRefused {
        /// Why.
        reason: String,
    },
    /// Inline text for `load` holds a value that VyOS's `load` would keep with its escapes
    /// (see [`crate::config::NotLoadable`]); nothing was sent. `merge` carries it.
    #[error("inline configuration refused for load, nothing was sent: {0}")]
    NotLoadable(#[from] NotLoadable),
    /// A write got no answer (it timed out or the connection broke after sending). It was not
    /// repeated; the configuration was read back to tell whether it took effect.
    #[error("write to /{endpoint} got no answer; landed: {landed}")]
    WriteTimedOut {
        /// The endpoint.
        endpoint: &'static str,
        /// Whether the change is in the configuration read back.
        landed: Landed,
        /// The transport error.
        #[source]
        source: cpps_http::Error,
    },
    /// A file could not be read or written.
    #[error("cannot access {}", path.display())]
    Io {
        /// The file.
        path: std::path::PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A configuration file is larger than [`crate::backup::MAX_FILE_BYTES`]; it was refused
    /// by its size, before it was read whole.
    #[error("{} is {size} bytes, over the cap of {cap} bytes", path.display())]
    FileTooLarge {
        /// The file.
        path: std::path::PathBuf,
        /// Its size in bytes (at least `cap + 1` when it grew while it was read, or is a pipe).
        size: u64,
        /// The cap, [`crate::backup::MAX_FILE_BYTES`].
        cap: u64,
    },
    /// A `config.boot` file or `set` commands could not be read.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// A command had an empty path.
    #[error("empty configuration path")]
    EmptyPath,
    /// A `delete` or `comment` named a node (or value) that does not exist.
    #[error("no node at `{path}`")]
    NoSuchNode {
        /// The path, words joined by spaces.
        path: String,
    },
    /// A path went on below a leaf.
    #[error("`{path}` is a leaf, the path cannot go below it")]
    BelowLeaf {
        /// The path up to the leaf.
        path: String,
    },
    /// A value was given for a node that is not a leaf.
    #[error("`{path}` is not a leaf, it takes no value")]
    NotALeaf {
        /// The path.
        path: String,
    },
    /// A value in the configuration does not have the type a typed view expects.
    #[error("`{path}` is `{value}`, expected {expected}")]
    InvalidValue {
        /// The path of the leaf.
        path: String,
        /// The value found (views never read secrets as numbers, so this is never a secret).
        value: String,
        /// The expected type.
        expected: &'static str,
    },
    /// A comment was put on a tag node itself (VyOS keeps comments on its entries only).
    #[error("`{path}` is a tag node, comment one of its entries instead")]
    TagComment {
        /// The path.
        path: String,
    },
    /// A node name, tag value, value or comment that VyOS's text forms cannot carry (see
    /// [`crate::config`]): accepting it would give a configuration that does not read back.
    #[error("`{path}`: {what} {text:?} cannot be written in a VyOS configuration: {reason}")]
    Unrepresentable {
        /// The path, words joined by spaces.
        path: String,
        /// `node name`, `tag value`, `value` or `comment`.
        what: &'static str,
        /// The offending text (never a secret's value: secret leaves say `<redacted>`).
        text: String,
        /// Why it cannot be written.
        reason: &'static str,
    },
}

impl Error {
    /// Whether the request may have reached the router: [`Delivery::NotSent`] for errors found
    /// before sending (configuration, parsing, refusals such as
    /// [`Error::CommitConfirmUnsupported`]), [`Delivery::MaybeSent`] for a write without an answer,
    /// [`Delivery::Answered`] when the router answered.
    pub fn delivery(&self) -> Delivery {
        match self {
            Error::Http(e) => e.delivery(),
            Error::WriteTimedOut { .. } => Delivery::MaybeSent,
            Error::Unauthorized { .. }
            | Error::Api { .. }
            | Error::RefusedAfterCommit { .. }
            | Error::CommitConfirmRefused { .. }
            | Error::ConfirmedNotSaved { .. }
            | Error::UnexpectedAnswer { .. }
            | Error::CommitConfirmNotInitialized { .. }
            | Error::NothingToConfirm { .. } => Delivery::Answered,
            Error::Config { .. }
            | Error::CommitConfirmUnsupported { .. }
            | Error::InlineConfigRefused { .. }
            | Error::NotLoadable(_)
            | Error::Io { .. }
            | Error::FileTooLarge { .. }
            | Error::Parse(_)
            | Error::EmptyPath
            | Error::NoSuchNode { .. }
            | Error::BelowLeaf { .. }
            | Error::NotALeaf { .. }
            | Error::InvalidValue { .. }
            | Error::TagComment { .. }
            | Error::Unrepresentable { .. } => Delivery::NotSent,
        }
    }

    /// The HTTP status of the router's answer, when there was one.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Http(e) => e.status(),
            Error::Unauthorized { .. } => Some(StatusCode::UNAUTHORIZED),
            Error::Api { status, .. }
            | Error::RefusedAfterCommit { status, .. }
            | Error::CommitConfirmRefused { status, .. } => StatusCode::from_u16(*status).ok(),
            _ => None,
        }
    }

    /// Whether the router said the path does not exist: 404, or 400 with vyatta-cfg's words for
    /// a missing node ("Specified configuration path is not valid" from `showConfig`,
    /// `src/cnode/cnode-algorithm.cpp`; "Nothing to delete (the specified … does not exist)",
    /// `src/cstore/cstore.cpp`; "Cannot delete [...]: path/value does not exist" in vyos-1x
    /// `routers.py`), or a node missing from a local tree.
    pub fn is_not_found(&self) -> bool {
        match self {
            Error::Api {
                status, message, ..
            } => {
                *status == 404
                    || (*status == 400
                        && (message.contains("does not exist")
                            || message.contains("Specified configuration path is not valid")))
            }
            Error::Http(e) => e.status() == Some(StatusCode::NOT_FOUND),
            Error::NoSuchNode { .. } => true,
            _ => false,
        }
    }
}

/// A syntax error, with the 1-based line and column where it was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}, column {column}: {kind}")]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was wrong.
    pub kind: ParseErrorKind,
}

/// What was wrong in a [`ParseError`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A quoted string had no closing quote.
    UnterminatedString,
    /// A `/*` comment had no closing `*/`.
    UnterminatedComment,
    /// A token that does not fit here; the string describes what was expected.
    Unexpected {
        /// What was found.
        found: String,
        /// What was expected instead.
        expected: &'static str,
    },
    /// A `{` was not closed before the end of the input.
    MissingCloseBrace,
    /// The same node (or tag entry) appears twice in one place.
    Duplicate {
        /// The node's name.
        name: String,
    },
    /// The same name is used as a leaf and as a node with children.
    Conflict {
        /// The node's name.
        name: String,
    },
    /// Nodes nested deeper than the parser accepts.
    TooDeep,
    /// A comment that is not followed by a node.
    DanglingComment,
    /// A `set` line that does not start with `set`, `delete` or `comment`.
    UnknownCommand {
        /// The first word of the line.
        word: String,
    },
    /// A command without a path.
    EmptyPath,
    /// A `comment` command whose text is not quoted.
    MissingCommentText,
    /// A command could not be applied to the tree built so far.
    Apply(String),
    /// A line marked by VyOS as an uncommitted change (`+` added, `-` deleted, `>` changed): the
    /// text is a comparison of two configurations, not one configuration.
    UncommittedChange {
        /// The mark.
        mark: char,
    },
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::UnterminatedString => f.write_str("quoted string is not closed"),
            Self::UnterminatedComment => f.write_str("comment is not closed with */"),
            Self::Unexpected { found, expected } => write!(f, "found {found}, expected {expected}"),
            Self::MissingCloseBrace => f.write_str("end of input before the closing }"),
            Self::Duplicate { name } => write!(f, "`{name}` appears twice"),
            Self::Conflict { name } => {
                write!(f, "`{name}` is both a leaf and a node with children")
            }
            Self::TooDeep => f.write_str("nodes nested too deeply"),
            Self::DanglingComment => f.write_str("comment is not followed by a node"),
            Self::UnknownCommand { word } => {
                write!(
                    f,
                    "unknown command `{word}`, expected set, delete or comment"
                )
            }
            Self::EmptyPath => f.write_str("command without a path"),
            Self::MissingCommentText => f.write_str("comment text must be quoted"),
            Self::Apply(msg) => f.write_str(msg),
            Self::UncommittedChange { mark } => write!(
                f,
                "line marked `{mark}`: the text shows uncommitted changes of a configuration session (commit or discard them first)"
            ),
        }
    }
}

/// Whether a write took effect, judged from the configuration read back after it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Landed {
    /// Every change is in the configuration: the commit happened.
    Yes,
    /// None of the changes is in the configuration: the commit did not happen (yet; VyOS documents
    /// that a commit that timed out may still complete, so read again before writing again).
    No,
    /// Some of the changes are in the configuration and some are not.
    Partly {
        /// How many of the checked commands show their effect.
        landed: usize,
        /// How many commands were checked (comments are not).
        checked: usize,
    },
    /// It cannot be told (the read-back failed, or the write leaves no trace in the
    /// configuration).
    Unknown {
        /// Why.
        reason: String,
    },
}

impl fmt::Display for Landed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Landed::Yes => f.write_str("yes"),
            Landed::No => f.write_str("no"),
            Landed::Partly { landed, checked } => {
                write!(f, "partly ({landed} of {checked} changes)")
            }
            Landed::Unknown { reason } => write!(f, "unknown ({reason})"),
        }
    }
}

/// Which value of a node `load` cannot carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValuePosition {
    /// The value at this index (from 0, in the leaf's order) of the leaf at the path.
    Value(usize),
    /// The tag value (the entry's name) at this index of the tag node at the path.
    TagValue(usize),
}

/// A value that `load` would change (see the module documentation): where it is, never what it
/// is (it may be a secret). The path is redacted as [`crate::config::Command::redacted`] redacts one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotLoadable {
    /// The path of the leaf or tag node holding the value.
    pub path: Vec<String>,
    /// Which of its values.
    pub position: ValuePosition,
}

impl fmt::Display for NotLoadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.position {
            ValuePosition::Value(i) => format!("value {} of", i + 1),
            ValuePosition::TagValue(i) => format!("tag value {} of", i + 1),
        };
        write!(
            f,
            "{what} `{}` holds a `\"` or a `\\`, which VyOS's `load` keeps escaped (vyatta-cfg src/cparse/cparse_lex.l); use merge",
            self.path.join(" ")
        )
    }
}

impl std::error::Error for NotLoadable {}
