//! Partial results: what a report keeps of a part it could not read, beside what it read
//! (the PVE inventory and the PBS report build theirs the same way).

use std::future::Future;

use cpps_http::{StatusCode, error_chain};
use serde::Serialize;
use tokio::time::Instant;

/// What a part cut off by the run's time limit says.
const OUT_OF_TIME: &str = "not finished within the run's time limit";

/// A part of a report that could not be read, and why; the report is built from the rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct PartError {
    /// What could not be read (`nodes`, `HA resources`, `GET /admin/gc`, `datastores`, …).
    pub part: String,
    /// The error and its causes, scrubbed of the client's secrets.
    pub error: String,
    /// The HTTP status, when the server answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The server's release does not have it (not a failure of the server).
    pub not_supported: bool,
}

/// An error a part can fail with: a Proxmox client's `Error`.
pub trait PartFailure: std::error::Error {
    /// The HTTP status of the answer, when the server answered.
    fn status(&self) -> Option<StatusCode>;
    /// Whether the server's release lacks what was asked for.
    fn is_not_supported(&self) -> bool;
}

impl PartError {
    /// `part` failed with `error` (its causes joined by [`error_chain`]).
    pub fn new(part: impl Into<String>, error: &impl PartFailure) -> Self {
        PartError {
            part: part.into(),
            error: error_chain(error),
            status: error.status().map(|s| s.as_u16()),
            not_supported: error.is_not_supported(),
        }
    }

    /// `part` was not read within the run's time limit.
    pub fn out_of_time(part: impl Into<String>) -> Self {
        PartError {
            part: part.into(),
            error: OUT_OF_TIME.to_owned(),
            status: None,
            not_supported: false,
        }
    }

    /// For a part cut off by the run's time limit ([`PartError::out_of_time`]), the error names
    /// the requests the client was left waiting on (from its [`cpps_http::Activity`]); any
    /// other error is returned as it is.
    pub fn waiting_for(self, activity: &cpps_http::ActivitySnapshot) -> Self {
        if self.error != OUT_OF_TIME
            || activity.unanswered.is_empty() && activity.waiting.is_empty()
        {
            return self;
        }
        PartError {
            error: format!("{OUT_OF_TIME}: {activity}"),
            ..self
        }
    }

    /// The same error, of the part named `part`.
    pub fn named(self, part: impl Into<String>) -> Self {
        PartError {
            part: part.into(),
            ..self
        }
    }
}

/// Runs `future` until `deadline`, if any: its error, or running out of time, as a
/// [`PartError`] that the caller names ([`PartError::named`]).
pub async fn bounded<T, E: PartFailure>(
    deadline: Option<Instant>,
    future: impl Future<Output = Result<T, E>>,
) -> Result<T, PartError> {
    let result = match deadline {
        None => future.await,
        Some(at) => match tokio::time::timeout_at(at, future).await {
            Ok(result) => result,
            Err(_) => return Err(PartError::out_of_time("")),
        },
    };
    result.map_err(|error| PartError::new("", &error))
}
