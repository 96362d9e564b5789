//! The one error type of this crate.

use cpps_http::{Delivery, Method, StatusCode, Url};

use crate::names::InvalidName;
use crate::types::rc::{ApiCallRc, ApiCallRcList, RcKind};

/// An error of the LINSTOR client.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The controller list (`LS_CONTROLLERS`) could not be parsed.
    #[error("invalid controller `{entry}`: {reason}")]
    InvalidController {
        /// The entry as written.
        entry: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A name given to a call is not a valid LINSTOR name.
    #[error(transparent)]
    InvalidName(#[from] InvalidName),
    /// A value given to a call is out of range.
    #[error("invalid argument `{name}`: {reason}")]
    InvalidArgument {
        /// The argument.
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// No controller answered (a read tries each one, a write each one it certainly did not
    /// reach); [`Error::delivery`] says whether the request may have reached one.
    #[error("no LINSTOR controller could be reached (tried {})", .tried.join(", "))]
    NoControllerReachable {
        /// The controllers tried, in order (the first one twice when it was asked again).
        tried: Vec<String>,
        /// The last error, or an earlier one after which the request may have been sent.
        #[source]
        last: cpps_http::Error,
    },
    /// The controller answered with a redirect, which is never followed: LINSTOR's
    /// HTTP→HTTPS redirect (`Rest/AutoHTTPs`) drops the query string and turns a POST into a GET
    /// (LINBIT/linstor-server#521).
    #[error(
        "{method} {url} was redirected to {location}; use the https:// URL of the controller in LS_CONTROLLERS"
    )]
    Redirected {
        /// The request method.
        method: Method,
        /// The URL requested.
        url: Url,
        /// The redirect status.
        status: StatusCode,
        /// The `Location` header (empty when absent).
        location: String,
    },
    /// LINSTOR refused or failed the call and said why in an `ApiCallRc` list.
    #[error("{method} {url} failed with {status}: {}", first_error_message(.messages))]
    Api {
        /// The request method.
        method: Method,
        /// The URL requested.
        url: Url,
        /// The HTTP status (a 2xx when the answer was a success status holding an error).
        status: StatusCode,
        /// Every message of the answer, errors, warnings and infos alike.
        messages: ApiCallRcList,
    },
    /// A snapshot restore failed at one of its steps; says what was cleaned up or what is left.
    #[error("restoring snapshot {snapshot} of {resource} into {target} failed at: {step}; {left}")]
    RestoreFailed {
        /// The source resource.
        resource: String,
        /// The snapshot.
        snapshot: String,
        /// The target resource.
        target: String,
        /// The step that failed (its plan's description).
        step: String,
        /// What the failure leaves on the controller, in words.
        left: String,
        /// Whether the target resource definition is left behind.
        target_left: bool,
        /// The error of the step.
        #[source]
        source: Box<Error>,
    },
    /// Transport, TLS, status or decoding error of the HTTP runtime.
    #[error(transparent)]
    Http(#[from] cpps_http::Error),
}

fn first_error_message(messages: &ApiCallRcList) -> String {
    messages
        .errors()
        .next()
        .or_else(|| messages.messages().first())
        .map(|rc| rc.message.clone())
        .unwrap_or_else(|| "no message".to_owned())
}

impl Error {
    /// Whether the request may have reached a controller.
    pub fn delivery(&self) -> Delivery {
        match self {
            Error::InvalidController { .. }
            | Error::InvalidName(_)
            | Error::InvalidArgument { .. } => Delivery::NotSent,
            Error::NoControllerReachable { last, .. } => last.delivery(),
            Error::Redirected { .. } | Error::Api { .. } => Delivery::Answered,
            Error::RestoreFailed { source, .. } => source.delivery(),
            Error::Http(e) => e.delivery(),
        }
    }

    /// The HTTP status of the answer, when a controller answered.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Redirected { status, .. } | Error::Api { status, .. } => Some(*status),
            Error::RestoreFailed { source, .. } => source.status(),
            Error::Http(e) => e.status(),
            _ => None,
        }
    }

    /// The `ApiCallRc` messages of a LINSTOR error answer.
    pub fn api_messages(&self) -> Option<&ApiCallRcList> {
        match self {
            Error::Api { messages, .. } => Some(messages),
            Error::RestoreFailed { source, .. } => source.api_messages(),
            _ => None,
        }
    }

    /// Whether the answer holds an error with this code (see [`crate::codes`]).
    pub fn has_error_code(&self, code: u64) -> bool {
        self.api_messages()
            .is_some_and(|m| m.messages().iter().any(|rc| rc.is(RcKind::Error, code)))
    }

    /// Whether the request certainly never reached a controller (safe to send again).
    pub fn is_not_sent(&self) -> bool {
        self.delivery() == Delivery::NotSent
    }

    /// Whether the controller answered 404.
    pub fn is_not_found(&self) -> bool {
        self.status() == Some(StatusCode::NOT_FOUND)
    }

    /// The first error message of a LINSTOR error answer.
    pub fn first_api_error(&self) -> Option<&ApiCallRc> {
        self.api_messages()?.errors().next()
    }
}
