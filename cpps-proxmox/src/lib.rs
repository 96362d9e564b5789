//! Typed async client for the Proxmox VE API (PVE 8/9), on `cpps-http`.
//!
//! ```no_run
//! use cpps_proxmox::{Client, TlsMode, VmId, family::WaitOptions, types::SnapshotName};
//!
//! # async fn run() -> Result<(), cpps_proxmox::Error> {
//! let pve = Client::builder("https://pve-ippri-31.example:8006/")
//!     .api_token_str("automation@pve!runbook=0b7a0c4e-…")?
//!     .tls(TlsMode::ca_file("/etc/pve/pve-root-ca.pem"))
//!     .build()?;
//! let vmid = VmId::new(201)?;
//! let ct = pve.node("pve-ippri-31").lxc(vmid);
//! let config = ct.config().await?;
//! println!("privileged: {}", config.is_privileged()?);
//! let upid = ct.snapshot_create(&SnapshotName::new("pre-upgrade")?, &Default::default()).await?;
//! let outcome = pve.wait(&upid, &WaitOptions::default()).await?;
//! println!("{upid}: {}", outcome.exit_status);
//! # Ok(())
//! # }
//! ```
//!
//! - [`Client`] and [`ClientBuilder`]: the transport settings (TLS, timeouts, deadline, size
//!   cap, retry) are `cpps-http`'s, forwarded once; [`Client::from_env`] and
//!   [`ClientBuilder::from_env`] read the variables the bpg Terraform provider reads:
//!
//!   | variable | meaning |
//!   | --- | --- |
//!   | `PROXMOX_VE_ENDPOINT` | `https://host:8006/` (required) |
//!   | `PROXMOX_VE_API_TOKEN` | `user@realm!id=secret`; wins over user and password |
//!   | `PROXMOX_VE_USERNAME`, `PROXMOX_VE_PASSWORD` | ticket login |
//!   | `PROXMOX_VE_CA_FILE` | PEM file of trusted CAs |
//!   | `PROXMOX_VE_FINGERPRINT` | SHA-256 fingerprint of the node certificate to pin |
//!   | `PROXMOX_VE_INSECURE` | `true`: no certificate verification |
//!
//! - Settings have one shape, [`Config`] (URL, [`Login`] with its secret as a
//!   [`cpps_http::SecretSource`], TLS, [`cpps_http::Limits`], list cap): an endpoints file
//!   reads it with serde, [`Config::from_env`] from the variables above, code writes it; only
//!   [`ClientBuilder::from_config`] turns it into a builder (`from_env` is the two in a row).
//! - Authentication: API tokens, or tickets with renewal, one re-login on a 401 and TOTP.
//!   TLS: every `cpps-http` mode; pin the node fingerprint for self-signed clusters.
//! - One decoder ([`PveEnvelope`]) and one [`Error`] (`delivery()`, `status()`,
//!   `is_not_found()`, `is_conflict()`); the server's release is read once
//!   ([`Client::server_version`]) where PVE 8 and 9 differ.
//! - [`Client::wait`] follows an HA-managed guest's `hastart`/`hastop`/`hamigrate` task to the
//!   HA manager's final state; config writes send their `digest`.
//! - Typed reads and writes through handlers ([`Client::cluster`], [`Client::node`],
//!   [`api::NodeApi::qemu`], [`api::NodeApi::lxc`], both one generic [`api::GuestApi`] over
//!   the guest kind); [`Client::get_raw`] and
//!   [`Client::post_raw`] for the rest. [`ENDPOINTS`] lists every endpoint called, and the
//!   handlers build their requests from its entries, as data of
//!   the family's [`Endpoint`] type (with the PVE 8/9 gate [`HA_RULES_SINCE`]).
//! - Property strings ([`types::PropertyString`], [`types::QemuNet`], [`types::Volume`], …).
//! - [`family`]: the pieces shared with Proxmox Backup Server.
#![forbid(unsafe_code)]

pub mod api;
mod client;
mod endpoints;
mod envelope;
mod error;
/// The pieces shared with Proxmox Backup Server, in their own crate (`cpps-proxmox-family`).
pub use cpps_proxmox_family as family;
mod ha;
pub mod inventory;
mod settings;
pub mod types;

pub use client::{
    Client, ClientBuilder, DEFAULT_CONCURRENCY, DEFAULT_LIST_MAX_RESPONSE_BYTES, ENV_API_TOKEN,
    ENV_CA_FILE, ENV_ENDPOINT, ENV_FINGERPRINT, ENV_INSECURE, ENV_PASSWORD, ENV_USERNAME,
    GuestConfig, GuestRef, TASK_LOG_PAGE, WaitOutcome, tls_vars,
};
pub use cpps_http::{ClientIdentity, RetryPolicy, SecretString, TlsMode, TlsVars, Url};
pub use endpoints::{ENDPOINTS, HA_RULES_SINCE};
pub use envelope::PveEnvelope;
pub use error::{Error, PveError};
pub use family::Credentials;
pub use family::Upid;
pub use family::{Endpoint, Returns};
pub use ha::{HaReached, HaWanted};
pub use settings::{Config, Login};
pub use types::{NodeName, VmId};
