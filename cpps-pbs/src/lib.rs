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
//! - [`report`]: the backup report of the `pbs-report` example, built from those checks.
//! - [`PbsClient`]: the typed reads, on `cpps-http` and `cpps-proxmox`'s Proxmox-family
//!   pieces (envelope, token and ticket auth, UPIDs, task wait).
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `schema` | `schemars::JsonSchema` for the typed answers (the conformance test compares them with `pbs-apidoc.json`) |
//!
//! ```no_run
//! use std::time::Duration;
//! use cpps_pbs::{PbsClient, PbsConfig, report};
//!
//! # async fn run() -> Result<(), cpps_pbs::Error> {
//! let config = PbsConfig::from_env()?;
//! let pbs = PbsClient::from_config(&config)?;
//! let inventory = report::collect(&pbs, None).await?;
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
pub mod checks;
mod client;
mod config;
pub mod endpoints;
mod error;
pub mod report;
pub mod types;

pub use api::{SnapshotQuery, TaskQuery};
pub use auth::{Credentials, credentials_for};
pub use client::PbsClient;
pub use config::{ENV_FINGERPRINT, ENV_PASSWORD, ENV_REPOSITORY, ENV_URL, PbsConfig, Repository};
pub use error::Error;
pub use types::Upid;

/// The default port of the PBS API.
pub const DEFAULT_PORT: u16 = 8007;
