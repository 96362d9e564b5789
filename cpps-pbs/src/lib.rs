//! Typed async client for the Proxmox Backup Server API (PBS 4.x), and the backup checks built
//! on its answers.
//!
//! - [`types`]: the answers, shaped as `pbs-apidoc.json` describes them; unknown enum values
//!   are kept, added fields are tolerated.
//! - [`endpoints::ENDPOINTS`]: the one table of the endpoints the crate calls, checked against
//!   the API schema by the conformance test.
//! - [`Repository`] and [`PbsConfig`]: `PBS_REPOSITORY`, `PBS_PASSWORD` and `PBS_FINGERPRINT`,
//!   read as `proxmox-backup-client` reads them.
//! - [`checks`]: pure functions over typed answers: the newest snapshot per guest and its age,
//!   verification, recovery-point breaches, cross-site sync per datastore, failed and overdue
//!   jobs.
#![forbid(unsafe_code)]

mod api;
mod auth;
pub mod checks;
mod client;
mod config;
pub mod endpoints;
mod error;
pub mod types;

pub use api::{SnapshotQuery, TaskQuery};
pub use auth::Credentials;
pub use client::PbsClient;
pub use config::{ENV_FINGERPRINT, ENV_PASSWORD, ENV_REPOSITORY, ENV_URL, PbsConfig, Repository};
pub use error::Error;
pub use types::Upid;

/// The default port of the PBS API.
pub const DEFAULT_PORT: u16 = 8007;
