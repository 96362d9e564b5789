//! VyOS: an HTTPS API client and a configuration model.
//!
//! - [`VyosClient`]: the HTTPS API on [`cpps_http`]: `/retrieve` ([`VyosClient::show_config`],
//!   [`VyosClient::return_values`], [`VyosClient::exists`]), `/configure` as one batch per commit
//!   with optional commit-confirm ([`VyosClient::configure`], [`VyosClient::confirm`]),
//!   `/config-file` ([`VyosClient::save`], [`VyosClient::load`], [`VyosClient::merge`]), the
//!   operational endpoints, and `GET /info`. One write in flight per router; writes are never
//!   retried, and a write without an answer is checked by reading the configuration back.
//! - [`config`]: a parser for `config.boot` and for `set` commands into one typed tree
//!   ([`ConfigTree`]), rendering back to both forms as VyOS does, a diff of two trees as the
//!   `set`/`delete` batch that turns one into the other, typed views and redaction of secrets.
//! - [`backup`]: saving a router's configuration to files and telling what changed since the last.
//!
//! ```no_run
//! use cpps_http::{HttpClient, SecretString, TlsMode};
//! use cpps_vyos::{VyosClient, config::{ConfigTree, diff}};
//!
//! # async fn run() -> Result<(), cpps_vyos::Error> {
//! let http = HttpClient::builder("https://192.168.10.1/".parse().unwrap())
//!     .tls(TlsMode::pinned("AB:CD:…")?)
//!     .build()?;
//! let router = VyosClient::new(http, SecretString::from("key".to_owned()));
//! let running = router.config_tree().await?;
//! let mut wanted = running.clone();
//! wanted.set_value(&["system", "host-name"], "franca-gw")?;
//! router.configure(&diff(&running, &wanted), std::num::NonZeroU32::new(5)).await?;
//! router.confirm().await?;
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod api;
mod auth;
pub mod backup;
mod client;
pub mod config;
mod error;

pub use api::config_file::ConfigSource;
pub use api::configure::{Committed, batch_landed};
pub use api::info::Info;
pub use api::retrieve::ConfigFormat;
pub use auth::ApiKey;
pub use client::VyosClient;
pub use config::{Command, ConfigTree, Op};
pub use cpps_http::SecretString;
pub use error::{Error, Landed, ParseError, ParseErrorKind};
