//! The one error type of the crate.

use std::collections::BTreeMap;
use std::time::Duration;

use cpps_http::{Delivery, Method, StatusCode, Url};

use crate::family::Upid;

/// An error of the Proxmox VE client. Errors of the Proxmox-family pieces
/// ([`crate::family::Error`]) convert into it variant by variant.
///
/// No variant holds a secret: messages come from the server's answer (redacted by `cpps-http`)
/// or name the value that was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request failed in the shared runtime (connection, TLS, timeout, decoding, auth).
    #[error("request failed")]
    Http(#[from] cpps_http::Error),

    /// The server answered with an error status and a message (PVE puts it in the body's
    /// `message` and in the HTTP reason phrase).
    #[error("{method} {url} answered {status}: {message}")]
    Api {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status.
        status: StatusCode,
        /// The server's message, trimmed.
        message: String,
        /// Per-parameter messages of a 400 "Parameter verification failed." answer
        /// (PVE's `errors` map), sorted by parameter name.
        errors: BTreeMap<String, String>,
    },

    /// The object does not exist: a 404, or PVE's HTTP 500 "Configuration file … does not
    /// exist" and similar "does not exist" answers.
    #[error("{method} {url}: not found: {message}")]
    NotFound {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status the server used (404 or 500).
        status: StatusCode,
        /// The server's message, trimmed.
        message: String,
    },

    /// A write sent the configuration digest it read, and the configuration has changed since:
    /// nothing was changed (a concurrent change is never silently overwritten).
    #[error("{method} {url}: the configuration changed since it was read: {message}")]
    Conflict {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status the server used.
        status: StatusCode,
        /// The server's message, trimmed.
        message: String,
    },

    /// A server release that lacks what was asked for; nothing was sent.
    #[error("{what} is not supported by PVE {version}")]
    NotSupported {
        /// What was asked for.
        what: String,
        /// The server's release.
        version: crate::family::ServerVersion,
    },

    /// A task ended with an error exit status.
    #[error("task {upid} failed: {exit_status}")]
    TaskFailed {
        /// The task.
        upid: Box<Upid>,
        /// The exit status as the server wrote it (`Error: …`, or PVE's bare error message).
        exit_status: String,
        /// The last lines of the task log.
        log_tail: Vec<String>,
    },

    /// A task did not stop within the time allowed.
    #[error("task {upid} still running after {waited:?}")]
    TaskTimeout {
        /// The task.
        upid: Box<Upid>,
        /// How long the caller waited.
        waited: Duration,
    },

    /// The HA manager did not show the requested state within the time allowed (after a
    /// `hastart`/`hastop`/`hamigrate` task, which only queues the request).
    #[error("HA resource {sid} not {wanted} after {waited:?} ({last_seen})")]
    HaTimeout {
        /// The resource (`vm:100`).
        sid: String,
        /// What was waited for (`started`, `stopped`, `on node pve2`).
        wanted: String,
        /// What the HA manager showed last.
        last_seen: String,
        /// How long the caller waited.
        waited: Duration,
    },

    /// The HA manager shows that a queued action cannot happen (the service is in `error`,
    /// being removed, or ignored), or the request cannot be followed.
    #[error("HA resource {sid} will not be {wanted}: {reason}")]
    HaWait {
        /// The resource.
        sid: String,
        /// What was waited for.
        wanted: String,
        /// Why it will not happen.
        reason: String,
    },

    /// A value does not have the syntax it must have (a UPID, a VM id, a user id, a property
    /// string, a node name).
    #[error("invalid {kind} `{input}`: {reason}")]
    Invalid {
        /// What kind of value was expected (`UPID`, `VM id`, `property string net0`, …).
        kind: &'static str,
        /// The offending input, shortened to 120 characters.
        input: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The client configuration is incomplete or inconsistent.
    #[error("invalid client configuration: {reason}")]
    Config {
        /// What is wrong, naming the setting.
        reason: String,
    },
}

impl Error {
    /// Whether the request may have reached the server.
    pub fn delivery(&self) -> Delivery {
        match self {
            Error::Http(e) => e.delivery(),
            Error::Api { .. }
            | Error::NotFound { .. }
            | Error::Conflict { .. }
            | Error::TaskFailed { .. }
            | Error::TaskTimeout { .. }
            | Error::HaTimeout { .. }
            | Error::HaWait { .. } => Delivery::Answered,
            Error::Invalid { .. } | Error::Config { .. } | Error::NotSupported { .. } => {
                Delivery::NotSent
            }
        }
    }

    /// Whether the error says the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }

    /// The HTTP status of the answer, when the server answered.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Http(e) => e.status(),
            Error::Api { status, .. }
            | Error::NotFound { status, .. }
            | Error::Conflict { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether a write was refused because the configuration changed since it was read.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Error::Conflict { .. })
    }

    /// The per-parameter messages of a 400 answer (empty for other errors).
    pub fn field_errors(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Error::Api { errors, .. } if !errors.is_empty() => Some(errors),
            _ => None,
        }
    }

    pub(crate) fn invalid(kind: &'static str, input: &str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            kind,
            input: crate::family::error::shorten(input),
            reason: reason.into(),
        }
    }
}

crate::family_error_from!(crate::family::Error => Error);
