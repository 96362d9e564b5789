//! The error of the Proxmox-family layer, which `cpps-proxmox` and `cpps-pbs` each convert
//! into their own `Error` (so that neither exposes the other's wording).

use std::collections::BTreeMap;
use std::time::Duration;

use cpps_http::{Delivery, Method, StatusCode, Url};

use crate::family::Upid;

/// An error of a Proxmox-family piece ([`decode_envelope`](crate::family::decode_envelope),
/// [`wait_task`](crate::family::wait_task), the id and UPID parsers, the token splitter).
///
/// The product crates convert it into their own error (`cpps_proxmox::Error`,
/// `cpps_pbs::Error`) variant by variant. No variant holds a secret: messages come from the
/// server's answer, scrubbed of the client's own secrets, or name the value that was wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request failed in the shared runtime (connection, TLS, timeout, decoding, auth).
    #[error("request failed")]
    Http(#[from] cpps_http::Error),

    /// The server answered with an error status and a message (from the body's `message`, or
    /// the HTTP reason phrase on servers that put it only there).
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
        /// Per-parameter messages of a 400 "Parameter verification failed." answer (the
        /// `errors` map), sorted by parameter name.
        errors: BTreeMap<String, String>,
    },

    /// The object does not exist: a 404, or an HTTP 500 "… does not exist" answer.
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

    /// A write sent the configuration digest it read, and the configuration has changed since
    /// (someone else wrote it): nothing was changed. Read again and decide again.
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

    /// A task ended with an error exit status.
    #[error("task {upid} failed: {exit_status}")]
    TaskFailed {
        /// The task.
        upid: Box<Upid>,
        /// The exit status as the server wrote it.
        exit_status: String,
        /// The last lines of the task log, the last one included.
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

    /// A value does not have the syntax it must have.
    #[error("invalid {kind} `{input}`: {reason}")]
    Invalid {
        /// What kind of value was expected (`UPID`, `user id`, …).
        kind: &'static str,
        /// The offending input, shortened to 120 characters.
        input: String,
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
            Error::Invalid { .. } => Delivery::NotSent,
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

    /// The per-parameter messages of a 400 answer (`None` for other errors).
    pub fn field_errors(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Error::Api { errors, .. } if !errors.is_empty() => Some(errors),
            _ => None,
        }
    }

    /// A validation error, with the input shortened to 120 characters.
    pub fn invalid(kind: &'static str, input: &str, reason: impl Into<String>) -> Self {
        Error::Invalid {
            kind,
            input: shorten(input),
            reason: reason.into(),
        }
    }
}

/// `input` cut to 120 characters, with `…` when cut.
pub(crate) fn shorten(input: &str) -> String {
    let mut shown: String = input.chars().take(120).collect();
    if input.chars().nth(120).is_some() {
        shown.push('…');
    }
    shown
}

/// Writes `impl From<family::Error> for $error`, variant by variant, for a product crate's
/// error type whose variants repeat the family's (`cpps-proxmox`'s and `cpps-pbs`'s `Error`):
/// the conversion is written once, here. `$family` is the path of `family::Error` as the calling
/// crate names it; the optional `other => …` arm maps variants a later family adds (another
/// crate must have it, `family::Error` being `#[non_exhaustive]`).
#[macro_export]
macro_rules! family_error_from {
    ($family:path => $error:ident $(, $other:ident => $fallback:expr)?) => {
        impl From<$family> for $error {
            fn from(error: $family) -> Self {
                use $family as F;
                match error {
                    F::Http(e) => $error::Http(e),
                    F::Api { method, url, status, message, errors } => {
                        $error::Api { method, url, status, message, errors }
                    }
                    F::NotFound { method, url, status, message } => {
                        $error::NotFound { method, url, status, message }
                    }
                    F::Conflict { method, url, status, message } => {
                        $error::Conflict { method, url, status, message }
                    }
                    F::TaskFailed { upid, exit_status, log_tail } => {
                        $error::TaskFailed { upid, exit_status, log_tail }
                    }
                    F::TaskTimeout { upid, waited } => $error::TaskTimeout { upid, waited },
                    F::Invalid { kind, input, reason } => $error::Invalid { kind, input, reason },
                    $($other => $fallback,)?
                }
            }
        }
    };
}
