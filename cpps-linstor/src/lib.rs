//! Typed async client for the LINSTOR controller REST API (v1), with DRBD health and the
//! cross-site DR view.
//!
//! - **One client shape** ([`Client`], [`ClientBuilder`]): the transport settings of every
//!   cpps client (`tls`, `client_identity`, `connect_timeout`, `request_timeout`, `deadline`,
//!   `max_response_bytes`, `retry`, `user_agent`, …) forwarded to `cpps_http::ClientBuilder`;
//!   every read decoded by one envelope ([`LinstorEnvelope`], through
//!   `cpps_http::HttpClient::send`); one [`Error`] with `delivery()`, `status()`,
//!   `is_not_found()`.
//! - **Controllers** from `LS_CONTROLLERS` (comma-separated, parsed like golinstor and
//!   python-linstor, refusing what golinstor refuses: [`ControllerList`]), with fail-over to the
//!   next controller as golinstor does: a read moves on after any error that got no answer
//!   (refused, DNS, TLS, a connect timeout, and a pooled connection that broke or went silent),
//!   a write only when it certainly did not reach a controller. Redirects are never
//!   followed: LINSTOR's HTTP→HTTPS redirect drops query strings and turns POST into GET, so a
//!   3xx is [`Error::Redirected`], telling to use the https URL.
//! - **`ApiCallRc` decoded exactly** ([`ApiCallRc`]): type bits compared exactly (an error is not
//!   a warning), object and operation bits exposed; error bodies accepted as arrays or single
//!   objects; warnings of successful writes returned to the caller ([`ApiCallRcList`]); the
//!   client's own secrets scrubbed from every message the controller writes.
//! - **Typed reads** of nodes, storage pools, resource groups, resource definitions, the
//!   resources view with DRBD state, controller properties, snapshots, error reports, remotes,
//!   backups and backup schedules, with offset/limit pagination as a `Stream`
//!   ([`Client::paginate`]).
//! - **Writes as plans** ([`Plan`]): snapshot create/delete/restore/rollback (a restore lands in
//!   the source's resource group and is cleaned up when it fails), a resource group's
//!   `place_count`, node and controller properties. A plan is shown before [`Client::apply`]
//!   sends it.
//! - **Health** ([`health::assess`]): per resource healthy / degraded / desynced / disconnected /
//!   unknown / inactive, classified as linstor-client shows volumes (but a replica on an
//!   evicted node is counted apart: DRBD no longer reaches it); replicas per site, DRBD quorum
//!   and tie-breakers, and placement risks; evicted and offline nodes; pools running out of
//!   space. [`Client::cluster_state`] keys each replica's DRBD connections by the peer's node
//!   name, where the controller sends its host name.
//! - **StandAlone connections** ([`split_brain::standalone`]): each DRBD connection that will
//!   not reconnect by itself, with which side's data is newer where the disk states tell, and a
//!   possible split brain (both sides `UpToDate`) where they do not; never a guess.
//! - **What a site loss would do** ([`site_loss::what_if_site_down`]): per resource whether
//!   the survivors keep DRBD quorum (majority of the diskful voters, diskless tie-breakers
//!   breaking an even split, the setting of the resource, definition, group, node or
//!   controller),
//!   keep an `UpToDate` replica and keep the Primary; a replica of unknown site, or a verdict
//!   that hangs on whether a diskless client votes (not on DRBD 9.3.1 and later), is "cannot
//!   tell".
//! - **Node maintenance** ([`evacuate::plan`]): what `PUT /v1/nodes/{node}/evacuate` will do
//!   per resource (deleted, replaced and where it could go, left), and whether a resource drops
//!   below its place count or loses quorum while the node is away.
//! - **Active controller** ([`ha::active_controller`]): of a drbd-reactor HA pair, the node
//!   where the controller's database resource is Primary; [`Client::prefer_controller`] sends
//!   calls there first. Of a VRRP VIP in front of the controller nodes
//!   ([`Client::probe_controllers`], [`ha::assess_controllers`]): which node's controller
//!   answers, whether the VIP gives the same answers, and calls sent to the VIP first.
//! - **DR view** ([`dr::assess`]): per resource its newest off-site copy (an S3 backup that
//!   finished successfully) and its age, and the schedules' last shipments as unconfirmed
//!   attempts (LINSTOR records when shipping starts, not whether it finished). Copies on
//!   another LINSTOR cluster count once that cluster holds them ([`dr::assess_with_targets`],
//!   read with a second client); without it they are not confirmed. A target snapshot sent by
//!   another cluster (`Backup/FromClusterUUID` other than this `Cluster/LocalID`) is not this
//!   cluster's copy; an S3 backup names no cluster, so it is shown as "cannot tell which
//!   cluster", and a resource recent only by such copies is [`dr::Freshness::CannotTell`].
//! - **Test helpers** (feature `test-util`, `test_util`): a wiremock controller serving this
//!   crate's payload fixtures, for the tests of the crates built on it.
//!
//! ## Environment variables
//!
//! [`ClientBuilder::from_env`] reads the variables golinstor reads (`client/client.go`):
//!
//! | variable | meaning |
//! | --- | --- |
//! | `LS_CONTROLLERS` | the controllers (default `localhost`); `10.0.0.1:3370`, an address with a port and no scheme, is accepted as python-linstor accepts it, though golinstor refuses it |
//! | `LS_USERNAME`, `LS_PASSWORD` | HTTP Basic authentication |
//! | `LS_BEARER_TOKEN_FILE` | path of a file holding a bearer token (wins over Basic) |
//! | `LS_ROOT_CA` / `LS_ROOT_CA_FILE` | CA certificates: PEM text / path of a PEM file |
//! | `LS_USER_CERTIFICATE` / `LS_USER_CERTIFICATE_FILE` | client certificate: PEM text / path |
//! | `LS_USER_KEY` / `LS_USER_KEY_FILE` | its private key: PEM text / path |
//!
//! With any TLS variable set, controllers written without a scheme use https on 3371.
//!
//! These variables are one way to write the client's one settings shape, [`Config`]
//! (controllers, [`Login`] with secrets as [`cpps_http::SecretSource`], TLS, [`Identity`],
//! [`cpps_http::Limits`], the view's cap): an endpoints file reads it with serde,
//! [`Config::from_env`] from these variables, code writes it; only
//! [`ClientBuilder::from_config`] turns it into a builder (`from_env` is the two in a row).
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
//!
//! The builder, for settings of its own:
//!
//! ```
//! use std::time::Duration;
//! use cpps_linstor::{Client, Credentials, RetryPolicy, SecretString};
//!
//! let linstor = Client::builder("linstor+ssl://10.10.20.1,linstor+ssl://10.10.20.2")
//!     .credentials(Credentials::basic("cpps", SecretString::from("…")))
//!     .deadline(Duration::from_secs(30))
//!     .retry(RetryPolicy::none())
//!     .build()?;
//! assert_eq!(linstor.controllers()[1].as_str(), "https://10.10.20.2:3371/");
//! # Ok::<(), cpps_linstor::Error>(())
//! ```
#![forbid(unsafe_code)]

pub mod api;
mod auth;
mod client;
pub mod dr;
mod envelope;
mod error;
pub mod evacuate;
pub mod ha;
pub mod health;
pub mod names;
mod plan;
mod settings;
pub mod site_loss;
pub mod split_brain;
#[cfg(feature = "test-util")]
pub mod test_util;
pub mod types;

pub use auth::Credentials;
pub use client::{
    Client, ClientBuilder, ControllerList, DEFAULT_HTTP_PORT, DEFAULT_HTTPS_PORT,
    DEFAULT_RESOURCES_VIEW_MAX_RESPONSE_BYTES, ENV_BEARER_TOKEN_FILE, ENV_CONTROLLERS,
    ENV_PASSWORD, ENV_ROOT_CA, ENV_ROOT_CA_FILE, ENV_TLS, ENV_USER_CERTIFICATE,
    ENV_USER_CERTIFICATE_FILE, ENV_USER_KEY, ENV_USER_KEY_FILE, ENV_USERNAME,
};
pub use envelope::LinstorEnvelope;
pub use error::Error;
pub use names::{
    InvalidName, NodeName, ResourceGroupName, ResourceName, SnapshotName, StoragePoolName,
};
pub use plan::Plan;
pub use settings::{Config, Identity, Login};
pub use types::rc::{ApiCallRc, ApiCallRcList, RcKind, RcObject, RcOperation, codes};

pub use cpps_http::{ClientIdentity, RetryPolicy, SecretString, TlsMode, TlsVars, Url};
