//! The one error type of the Proxmox family, [`FamilyError`], generic over what differs between
//! the products ([`ProductError`]): each product crate names it `Error`
//! (`cpps_proxmox::Error = FamilyError<PveError>`, `cpps_pbs::Error = FamilyError<PbsError>`),
//! so that no variant, helper or conversion is written twice, and a PBS user never reads PVE
//! wording.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use cpps_http::{Delivery, Method, StatusCode, Url};

use crate::{ServerVersion, Upid};

/// What differs between the Proxmox products' errors: the product's name, how a configuration
/// error reads, and the product's own errors (the type itself, carried by
/// [`FamilyError::Product`]).
pub trait ProductError: std::error::Error + Send + Sync + 'static {
    /// The product's name in the texts (`"PVE"`, `"PBS"`).
    const NAME: &'static str;

    /// How [`FamilyError::Config`] reads for this product; `name` is the setting.
    fn config_text(name: &str, reason: &str) -> String;

    /// Whether the request of one of the product's own errors may have reached the server.
    fn delivery(&self) -> Delivery;
}

/// A product client's own errors (PVE's, PBS's): the family's [`Error`] converts into that
/// product's [`FamilyError`] variant by variant. The family's own [`Shared`] is not one, so the
/// conversion is never the identity.
pub trait ProductClient: ProductError {}

/// The own errors of the family itself: none. [`Error`] is `FamilyError<Shared>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {}

impl fmt::Display for Shared {
    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {}
    }
}

impl std::error::Error for Shared {}

impl ProductError for Shared {
    const NAME: &'static str = "Proxmox";

    fn config_text(name: &str, reason: &str) -> String {
        format!("{name} {reason}")
    }

    fn delivery(&self) -> Delivery {
        match *self {}
    }
}

/// An error of a Proxmox-family piece ([`decode_envelope`](crate::decode_envelope),
/// [`wait_task`](crate::wait_task), the id and UPID parsers, the token splitter).
///
/// The product crates convert it into their own `Error` (`cpps_proxmox::Error`,
/// `cpps_pbs::Error`, the same [`FamilyError`] over their own errors) variant by variant. No
/// variant holds a secret: messages come from the server's answer, scrubbed of the client's
/// own secrets, or name the value that was wrong.
pub type Error = FamilyError<Shared>;

/// The error of a Proxmox product client: the variants every Proxmox client has, and the
/// product's own errors in [`FamilyError::Product`].
///
/// ```
/// use cpps_proxmox_family::{Error, FamilyError};
/// let error = Error::invalid("UPID", "x", "too short");
/// assert_eq!(error.to_string(), "invalid UPID `x`: too short");
/// assert_eq!(error.delivery(), cpps_http::Delivery::NotSent);
/// assert!(matches!(error, FamilyError::Invalid { kind: "UPID", .. }));
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FamilyError<P: ProductError> {
    /// The request failed in the shared runtime (connection, TLS, timeout, decoding, auth).
    #[error("request failed")]
    Http(#[from] cpps_http::Error),

    /// The server answered with an error status and a message (the body's `message`, or the
    /// HTTP reason phrase on servers that put it only there).
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

    /// The object does not exist: a 404, a HTTP 500 "… does not exist" answer, or a 400/500
    /// "no such …" naming an object ([`is_not_found`](crate::is_not_found)).
    #[error("{method} {url}: not found: {message}")]
    NotFound {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status the server used (404, 400 or 500).
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

    /// A task ended with an error exit status, or with one that says its outcome is unknown.
    #[error("task {upid} {}", task_end_text(.exit_status))]
    TaskFailed {
        /// The task.
        upid: Box<Upid>,
        /// The exit status as the server wrote it: the bare error message, or `unknown` when
        /// PBS does not know how the task ended
        /// ([`ExitStatus::Unknown`](crate::ExitStatus::Unknown)).
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

    /// A value does not have the syntax it must have (a UPID, an id, a name, a property
    /// string): nothing was sent.
    #[error("invalid {kind} `{input}`: {reason}")]
    Invalid {
        /// What kind of value was expected (`UPID`, `user id`, `datastore name`, …).
        kind: &'static str,
        /// The offending input, shortened to 120 characters.
        input: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The server's release lacks what was asked for (an endpoint, a parameter): nothing was
    /// sent.
    #[error("{}", not_supported_text::<P>(.what, .version, .since))]
    NotSupported {
        /// What was asked for (`GET /admin/gc`, `HA failback`).
        what: String,
        /// The server's release.
        version: ServerVersion,
        /// The first release that has it, when the client knows it.
        since: Option<ServerVersion>,
    },

    /// The client configuration is missing or wrong: nothing was sent.
    #[error("{}", P::config_text(.name, .reason))]
    Config {
        /// The variable or setting (`PBS_REPOSITORY`, `PROXMOX_VE_ENDPOINT`, `credentials`).
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },

    /// An error of the product's own (PVE's HA waits).
    #[error(transparent)]
    Product(P),
}

/// [`FamilyError::NotSupported`]'s text, naming the product.
fn not_supported_text<P: ProductError>(
    what: &str,
    version: &ServerVersion,
    since: &Option<ServerVersion>,
) -> String {
    let name = P::NAME;
    match since {
        Some(since) => {
            format!(
                "{what} is not supported by {name} {version} (it needs {name} {since} or later)"
            )
        }
        None => format!("{what} is not supported by {name} {version}"),
    }
}

impl<P: ProductError> FamilyError<P> {
    /// Whether the request may have reached the server.
    pub fn delivery(&self) -> Delivery {
        match self {
            Self::Http(e) => e.delivery(),
            Self::Api { .. }
            | Self::NotFound { .. }
            | Self::Conflict { .. }
            | Self::TaskFailed { .. }
            | Self::TaskTimeout { .. } => Delivery::Answered,
            Self::Invalid { .. } | Self::NotSupported { .. } | Self::Config { .. } => {
                Delivery::NotSent
            }
            Self::Product(own) => own.delivery(),
        }
    }

    /// The HTTP status of the answer, when the server answered.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Self::Http(e) => e.status(),
            Self::Api { status, .. }
            | Self::NotFound { status, .. }
            | Self::Conflict { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether the error says the object does not exist.
    pub fn is_not_found(&self) -> bool {
        matches!(self, Self::NotFound { .. })
    }

    /// Whether a write was refused because the configuration changed since it was read.
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Conflict { .. })
    }

    /// Whether the server's release lacks what was asked for (nothing was sent).
    pub fn is_not_supported(&self) -> bool {
        matches!(self, Self::NotSupported { .. })
    }

    /// The per-parameter messages of a 400 answer (`None` for other errors).
    pub fn field_errors(&self) -> Option<&BTreeMap<String, String>> {
        match self {
            Self::Api { errors, .. } if !errors.is_empty() => Some(errors),
            _ => None,
        }
    }

    /// A validation error ([`Self::Invalid`]), with the input shortened to 120 characters.
    pub fn invalid(kind: &'static str, input: &str, reason: impl Into<String>) -> Self {
        Self::Invalid {
            kind,
            input: shorten(input),
            reason: reason.into(),
        }
    }
}

/// How [`FamilyError::TaskFailed`] says the task ended: an unknown outcome is not called a
/// failure.
fn task_end_text(exit_status: &str) -> String {
    if exit_status == "unknown" {
        "stopped, and the server does not know how it ended (exit status `unknown`)".to_owned()
    } else {
        format!("failed: {exit_status}")
    }
}

impl<P: ProductError> crate::PartFailure for FamilyError<P> {
    fn status(&self) -> Option<StatusCode> {
        FamilyError::status(self)
    }

    fn is_not_supported(&self) -> bool {
        FamilyError::is_not_supported(self)
    }
}

impl<P: ProductClient> From<P> for FamilyError<P> {
    fn from(own: P) -> Self {
        Self::Product(own)
    }
}

impl<P: ProductClient> From<Error> for FamilyError<P> {
    fn from(error: Error) -> Self {
        match error {
            Error::Http(e) => Self::Http(e),
            Error::Api {
                method,
                url,
                status,
                message,
                errors,
            } => Self::Api {
                method,
                url,
                status,
                message,
                errors,
            },
            Error::NotFound {
                method,
                url,
                status,
                message,
            } => Self::NotFound {
                method,
                url,
                status,
                message,
            },
            Error::Conflict {
                method,
                url,
                status,
                message,
            } => Self::Conflict {
                method,
                url,
                status,
                message,
            },
            Error::TaskFailed {
                upid,
                exit_status,
                log_tail,
            } => Self::TaskFailed {
                upid,
                exit_status,
                log_tail,
            },
            Error::TaskTimeout { upid, waited } => Self::TaskTimeout { upid, waited },
            Error::Invalid {
                kind,
                input,
                reason,
            } => Self::Invalid {
                kind,
                input,
                reason,
            },
            Error::NotSupported {
                what,
                version,
                since,
            } => Self::NotSupported {
                what,
                version,
                since,
            },
            Error::Config { name, reason } => Self::Config { name, reason },
            Error::Product(never) => match never {},
        }
    }
}

/// `input` cut to 120 characters, with `…` when cut.
fn shorten(input: &str) -> String {
    let mut shown: String = input.chars().take(120).collect();
    if input.chars().nth(120).is_some() {
        shown.push('…');
    }
    shown
}
