//! The one error type of the crate.

use std::collections::BTreeMap;
use std::time::Duration;

use cpps_http::{Delivery, Method, StatusCode, Url};
use cpps_proxmox::family::{ServerVersion, Upid};

/// An error of the PBS client, of its configuration, or of a value that failed validation.
///
/// Errors of the Proxmox-family pieces it shares with `cpps-proxmox` (envelope, task wait,
/// ids) convert into it variant by variant. No variant holds a secret: messages come from the
/// server's answer, scrubbed of the client's own secrets, or name the value that was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request failed in the shared runtime (connection, TLS, timeout, decoding, auth).
    #[error("request failed")]
    Http(#[from] cpps_http::Error),

    /// PBS answered with an error status and a message.
    #[error("{method} {url} answered {status}: {message}")]
    Api {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status.
        status: StatusCode,
        /// PBS's message, trimmed.
        message: String,
        /// Per-parameter messages of a 400 answer, sorted by parameter name.
        errors: BTreeMap<String, String>,
    },

    /// The object does not exist (a 404, or a 500 "… does not exist").
    #[error("{method} {url}: not found: {message}")]
    NotFound {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status the server used.
        status: StatusCode,
        /// PBS's message, trimmed.
        message: String,
    },

    /// A write sent the configuration digest it read, and the configuration has changed since:
    /// nothing was changed.
    #[error("{method} {url}: the configuration changed since it was read: {message}")]
    Conflict {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status the server used.
        status: StatusCode,
        /// PBS's message, trimmed.
        message: String,
    },

    /// A task ended with an error exit status (`Error: …`).
    #[error("task {upid} failed: {exit_status}")]
    TaskFailed {
        /// The task.
        upid: Box<Upid>,
        /// The exit status as PBS wrote it.
        exit_status: String,
        /// The last lines of the task log, the `TASK ERROR` line included.
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

    /// The server's release does not have this endpoint or parameter; nothing was sent.
    #[error("{what} is not supported by PBS {version} (it needs PBS {since} or later)")]
    NotSupported {
        /// What was asked for (`GET /admin/gc`).
        what: &'static str,
        /// The server's release.
        version: ServerVersion,
        /// The first release that has it.
        since: ServerVersion,
    },

    /// A value does not have the syntax it must have (a repository, an auth id, a datastore
    /// name, a duration).
    #[error("invalid {kind} `{input}`: {reason}")]
    Invalid {
        /// What kind of value was expected.
        kind: &'static str,
        /// The offending input, shortened to 120 characters.
        input: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A configuration variable or setting is missing or wrong.
    #[error("{name} {reason}")]
    Config {
        /// The variable or setting (`PBS_REPOSITORY`, `PBS_PASSWORD`, `PBS_FINGERPRINT`).
        name: &'static str,
        /// What is wrong with it.
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
            | Error::TaskTimeout { .. } => Delivery::Answered,
            Error::NotSupported { .. } | Error::Invalid { .. } | Error::Config { .. } => {
                Delivery::NotSent
            }
        }
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

    /// Whether the error says the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::NotFound { .. })
    }

    /// Whether the server's release lacks what was asked for.
    pub fn is_not_supported(&self) -> bool {
        matches!(self, Error::NotSupported { .. })
    }

    /// The per-parameter messages of a 400 answer (`None` for other errors).
    pub fn field_errors(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Error::Api { errors, .. } if !errors.is_empty() => Some(errors),
            _ => None,
        }
    }
}

// `family::Error` is non-exhaustive: a variant added there is still an error here.
cpps_proxmox::family_error_from!(cpps_proxmox::family::Error => Error, other => Error::Invalid {
    kind: "answer",
    input: String::new(),
    reason: other.to_string(),
});
