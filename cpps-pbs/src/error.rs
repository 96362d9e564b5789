//! The one error type of the crate.

/// An error of the PBS client, of its configuration, or of a value that failed validation.
///
/// No variant holds a secret.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The request failed in the shared runtime (connection, TLS, timeout, decoding, auth).
    #[error("request failed")]
    Http(#[from] cpps_http::Error),

    /// The server refused the request or answered an error (PBS's message and per-parameter
    /// errors are in the source), a task failed, or an id did not parse.
    #[error("PBS API call failed")]
    Api(#[from] cpps_proxmox::Error),

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

    /// A configuration variable is missing or wrong.
    #[error("{name} {reason}")]
    Config {
        /// The variable (`PBS_REPOSITORY`, `PBS_PASSWORD`, `PBS_FINGERPRINT`).
        name: &'static str,
        /// What is wrong with it.
        reason: String,
    },
}
