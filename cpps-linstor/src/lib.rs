//! Typed async client for the LINSTOR controller REST API (v1), with DRBD health.
//!
//! - **Controllers** from `LS_CONTROLLERS` (comma-separated, parsed like golinstor and
//!   python-linstor), with fail-over to the next controller when one cannot be reached
//!   ([`Client`], [`ControllerList`]). Basic auth, bearer tokens and client certificates.
//!   Redirects are never followed: LINSTOR's HTTP→HTTPS redirect drops query strings and turns
//!   POST into GET, so a 3xx is [`Error::Redirected`], telling to use the https URL.
//! - **`ApiCallRc` decoded exactly** ([`ApiCallRc`]): type bits compared exactly (an error is not
//!   a warning), object and operation bits exposed; error bodies accepted as arrays or single
//!   objects; warnings of successful writes returned to the caller ([`ApiCallRcList`]).
//! - **Typed reads** of nodes, storage pools, resource groups, resource definitions, the
//!   resources view with DRBD state, controller properties, snapshots and error reports, with
//!   offset/limit pagination as a `Stream` ([`Client::paginate`]).
//! - **Writes as plans** ([`Plan`]): snapshot create/delete/restore/rollback, a resource group's
//!   `place_count`, node and controller properties. A plan is shown before
//!   [`Client::apply`] sends it.
//! - **Health** ([`health::assess`]): per resource healthy / degraded / desynced / disconnected /
//!   unknown; evicted and offline nodes; pools running out of space.
//!
//! ```no_run
//! use cpps_linstor::{Client, health};
//!
//! # async fn run() -> Result<(), cpps_linstor::Error> {
//! let linstor = Client::from_env()?; // LS_CONTROLLERS=linstor+ssl://10.10.20.1,pve-ippri-11
//! let state = linstor.cluster_state().await?;
//! let report = health::assess(&state, &health::HealthOptions::default());
//! for resource in &report.resources {
//!     println!("{} {}", resource.name, resource.class);
//! }
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod api;
mod auth;
mod client;
pub mod dr;
mod envelope;
mod error;
pub mod health;
pub mod names;
mod plan;
pub mod types;

pub use auth::Credentials;
pub use client::{
    Client, ClientBuilder, ControllerList, DEFAULT_HTTP_PORT, DEFAULT_HTTPS_PORT, env_vars,
};
pub use envelope::LinstorEnvelope;
pub use error::Error;
pub use names::{
    InvalidName, NodeName, ResourceGroupName, ResourceName, SnapshotName, StoragePoolName,
};
pub use plan::Plan;
pub use types::rc::{ApiCallRc, ApiCallRcList, RcKind, RcObject, RcOperation, codes};

pub use cpps_http::{ClientIdentity, RetryPolicy, SecretString, TlsMode, TlsVars, Url};
