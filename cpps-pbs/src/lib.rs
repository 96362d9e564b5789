//! Typed async client for the Proxmox Backup Server API (PBS 4.x), and the backup checks built
//! on its answers.
//!
//! - [`types`]: the answers, shaped as `pbs-apidoc.json` describes them; unknown enum values
//!   are kept, added fields are tolerated.
//! - [`endpoints::ENDPOINTS`]: the one table of the endpoints the crate calls (data of the
//!   Proxmox family's `Endpoint` type, with the version gates the client applies), checked
//!   against the API schema by the family's one conformance check; every request is built
//!   from an entry.
//! - [`Client`] and [`ClientBuilder`]: [`ClientBuilder::from_env`] reads `PBS_REPOSITORY`,
//!   `PBS_PASSWORD` and `PBS_FINGERPRINT` as `proxmox-backup-client` does ([`Repository`]),
//!   `CPPS_PBS_URL` replaces the API URL; the transport settings (TLS, timeouts, deadline, size
//!   cap, retry) are `cpps-http`'s, forwarded once. The server's release is read once
//!   ([`Client::server_version`]) and chosen by where PBS 3.0–3.2, 3.3+ and 4 differ: a call
//!   the server cannot answer is [`Error::NotSupported`], sent to no server.
//! - Settings have one shape, [`Config`] (repository, the secret as a
//!   [`cpps_http::SecretSource`], the pin, URL, [`cpps_http::Limits`], list cap): an endpoints
//!   file reads it with serde, [`Config::from_env`] from the variables below, code writes it;
//!   only [`ClientBuilder::from_config`] turns it into a builder (`from_env` is the two in a
//!   row).
//! - [`checks`]: pure functions over typed answers: the newest finished snapshot per guest and
//!   its age, verification, recovery-point breaches, cross-site sync per datastore (and, in the
//!   report, per group by each push's scope), running, failed and overdue jobs.
//! - [`chain`]: the backup chain of each guest across both sites (PVE storage of type `pbs`,
//!   vzdump job and its last task, newest finished snapshot, verification, the copy on the
//!   other site's PBS), one verdict per guest against the RPO; unknown or permission-filtered
//!   parts are "cannot tell", never ok. The copy is read with [`Client::remote_groups`]
//!   (`GET /config/remote/{name}/scan/{store}/groups`) or a second client; a group there is
//!   the copy only when the auth-id the sync writes as owns it (the other site numbers its
//!   guests from 100 too).
//! - [`report`]: the backup report of the `pbs-report` example, built from those checks.
//! - [`fix`]: what would fix a report (run failed or overdue jobs, verify the newest finished
//!   snapshot of unverified guests), as a plan, and applying it with each task waited on.
//! - the typed reads, on `cpps-http` and `cpps-proxmox`'s Proxmox-family pieces (envelope,
//!   token and ticket auth, UPIDs, task wait, the endpoint table, validated names such as
//!   [`types::DatastoreName`], and [`Error`], the family's generic error over
//!   [`PbsError`]); every read decodes through [`PbsEnvelope`].
//!
//! | variable | meaning |
//! | --- | --- |
//! | `PBS_REPOSITORY` | `[[user@realm[!token]@]host[:port]:]datastore` (required) |
//! | `PBS_PASSWORD` | the password, or the token secret (required) |
//! | `PBS_FINGERPRINT` | SHA-256 fingerprint of the server certificate to pin |
//! | `CPPS_PBS_URL` | an API URL replacing the repository's |
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `schema` | `schemars::JsonSchema` for the typed answers (the conformance test compares them with `pbs-apidoc.json`) |
//!
//! ```no_run
//! use std::time::Duration;
//! use cpps_pbs::{Client, report};
//!
//! # async fn run() -> Result<(), cpps_pbs::Error> {
//! let pbs = Client::from_env()?;
//! let inventory = report::collect(&pbs, None).await;
//! let now = std::time::SystemTime::now()
//!     .duration_since(std::time::UNIX_EPOCH)
//!     .map_or(0, |d| d.as_secs() as i64);
//! let report = report::build(&inventory, now, &report::ReportOptions::new(Duration::from_secs(26 * 3600)));
//! print!("{}", report.to_text());
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

mod api;
mod auth;
pub mod chain;
pub mod checks;
mod client;
mod config;
pub mod endpoints;
mod envelope;
mod error;
pub mod fix;
pub mod report;
pub mod rights;
mod settings;
pub mod types;

pub use api::{RunnableJob, SnapshotQuery, TaskQuery, VerifyRequest};
pub use auth::{Credentials, credentials_for};
pub use client::{
    Client, ClientBuilder, DEFAULT_LIST_MAX_RESPONSE_BYTES, ENV_FINGERPRINT, ENV_PASSWORD,
    ENV_REPOSITORY, ENV_URL, tls_vars,
};
pub use config::Repository;
pub use cpps_http::{ClientIdentity, RetryPolicy, SecretString, TlsMode, TlsVars, Url};
pub use envelope::PbsEnvelope;
pub use error::{Error, PbsError};
pub use settings::Config;
pub use types::Upid;

/// The default port of the PBS API.
pub const DEFAULT_PORT: u16 = 8007;
