//! VyOS: an HTTPS API client and a configuration model.
//!
//! - [`Client`] (built with [`Client::builder`] or [`Client::from_env`]): the HTTPS API on
//!   [`cpps_http`]: `/retrieve` ([`Client::show_config`], [`Client::config_tree`],
//!   [`Client::return_values`], [`Client::exists`]), `/configure` as one batch per commit with
//!   optional commit-confirm ([`Client::plan_configure`], [`Client::configure`],
//!   [`Client::confirm`]), `/config-file` ([`Client::save`], [`Client::load`], [`Client::merge`]),
//!   the operational endpoints, `GET /info` and the router's version ([`Client::version`]),
//!   `GET /openapi.json` for commit-confirm ([`Client::commit_confirm_support`]). Every
//!   answer is decoded by [`envelope::VyosEnvelope`]; the text of an error answer
//!   ([`Error::Api`]) is HTML-unescaped as VyOS 1.5 escapes it, and kept as written while
//!   the latest version reading ([`Client::version`], [`Client::version_fresh`]) says 1.4; a
//!   refused write's text has the batch's secrets replaced by the redaction marker (VyOS echoes
//!   the refused path, value included). One write in flight per router; writes are never
//!   retried, and every write is checked by reading the configuration back
//!   ([`Committed::landed`], [`Committed::commands`]).
//! - [`config`]: parsers for showConfig text (exactly as VyOS prints it; vyatta-cfg's printer on
//!   the legacy backend, vyos1x-config's on vyconf, told apart by the text,
//!   [`ConfigTree::parse_shown`]), for saved files and archived revisions (the escaped dialect
//!   1.4 and 1.5 save, [`ConfigTree::parse_saved`]) and for `set` commands into one typed tree
//!   ([`ConfigTree`]), rendering back to each form, a check of what `load` can carry
//!   ([`ConfigTree::check_loadable`]), a diff of two trees as the `set`/`delete` batch that
//!   turns one into the other, typed views, and redaction of secrets by one list
//!   ([`config::secrets`]). The readers and the diff take time linear in the input, a leaf of
//!   hundreds of thousands of values included (`cargo bench -p cpps-vyos --bench real_sizes`).
//! - [`status`]: typed readings of `show interfaces wireguard NAME summary` (peers, handshake
//!   age, transfer; `wg show` on 1.4, VyOS's own table on 1.5), `show vrrp`, `show bgp summary` (FRR 9.1 on 1.4 and FRR 10 on 1.5) and `show vpn
//!   ipsec sa` / `connections`, for the inter-site view; a router without BGP or IPsec says so
//!   in its own words and reads as `None`, unknown states are kept and never read as up.
//! - [`apply`]: the safe apply ([`apply::safe_apply`]: commit with confirm, check WireGuard,
//!   BGP, VRRP and the reachability of named addresses ([`status::route`]: route and neighbour
//!   tables, the API has no ping) from this router and its peer, confirm only when nothing
//!   that held broke,
//!   else let the timer revert or roll back; each step within its [`apply::StepBudgets`], a
//!   refused or partly landed write read back and undone), and the commit revisions (list,
//!   compare, soft rollback).
//! - [`pair`]: the two routers of a site compared ([`pair::compare`]): VRRP groups (VRID,
//!   virtual addresses, priorities, authentication, preempt, VRRP version and advert interval,
//!   unicast peers) and the WireGuard tunnel (keys,
//!   allowed-ips, endpoints), as typed findings; secrets compared, never shown.
//! - [`upgrade`]: a staged image upgrade of the pair as a plan only
//!   ([`upgrade::upgrade_plan`]: the VRRP backup first, the checks, then the master), and of a
//!   site with one router ([`upgrade::single_router_plan`]: checked from the other site).
//! - [`backup`]: saving a router's configuration to files and telling what changed since the last
//!   backup of the same router.
//!
//! # Commit-confirm: what really happens
//!
//! VyOS 1.5's API takes `confirm_time`: the batch is committed and a timer started. If
//! [`Client::confirm`] does not come in time, VyOS reboots or reloads, as its answer to the
//! write says ("… to confirm before reboot"; [`Committed::commit_confirm`]): a REBOOT into the
//! saved configuration (`/config/config.boot`) drops every commit not saved, not only this one;
//! a reload loads the previous configuration. `system config-management commit-confirm action`
//! is meant to choose (default `reboot`, read into the plan), but `current`'s `ConfigMgmt`
//! (vyos-1x `python/vyos/config_mgmt.py`) reloads whatever it says, so the answer decides. A
//! confirmed change is not saved by VyOS, so
//! [`Client::confirm`] saves it. VyOS 1.4's API has no commit-confirm, nor have 1.5 builds
//! before vyos-1x PR #4533, though they answer `/info` (their models drop `confirm_time` and
//! commit for good), so the client decides from the API's own schema
//! ([`Client::commit_confirm_support`]: `confirm_time` in the `/configure` request of
//! `/openapi.json`) and, where it is absent or cannot be read, refuses with
//! [`Error::CommitConfirmUnsupported`] before sending anything; an
//! answer that does not say the timer started is [`Error::CommitConfirmNotInitialized`], and
//! so is a refusal after the commit ("Another confirm is pending": VyOS commits, then starts
//! the timer) unless the read-back shows that nothing landed.
//! Changes below `service https` are committed by VyOS in the background after it answered; the
//! client says so ([`Committed::background_commit`]) and reads the configuration back. With
//! commit-confirm, such an answer cannot say the timer started (1.5 starts it in the background
//! too): [`Error::CommitConfirmNotInitialized`], after the read-back waited for the commit.
//! The first commit-confirm builds armed the timer before committing, so a refused
//! commit-confirmed batch that left nothing is [`Error::CommitConfirmRefused`]: a timer may be
//! running, and [`Client::confirm`] stops it. With the vyconf backend VyOS answers
//! `unimplemented` to both commit-confirm and confirm, as a success: the write is
//! [`Error::CommitConfirmNotInitialized`] and the confirm [`Error::UnexpectedAnswer`]. A write
//! that got no answer may still be committing on the router (nginx waits 600 s and reads do
//! not wait for the commit): only a read-back that shows it says [`Landed::Yes`].
//!
//! # Environment
//!
//! | variable | meaning |
//! | --- | --- |
//! | `VYOS_URL` | the router's API root, e.g. `https://192.168.10.1/` |
//! | `VYOS_API_KEY` | the API key (`service https api keys id ID key KEY`) |
//! | `VYOS_FINGERPRINT` | SHA-256 of the router's certificate (`AB:CD:…`), pinned; without it the system roots verify it |
//!
//! These variables are one way to write the client's one settings shape, [`Config`] (URL, the
//! key as a [`cpps_http::SecretSource`], TLS, [`cpps_http::Limits`]): an endpoints file reads
//! it with serde, [`Config::from_env`] from these variables, code writes it; only
//! [`ClientBuilder::from_config`] turns it into a builder (`from_env` is the two in a row).
//!
//! ```no_run
//! use cpps_vyos::{Client, config::diff};
//!
//! # async fn run() -> Result<(), cpps_vyos::Error> {
//! let router = Client::from_env()?;
//! let running = router.config_tree().await?;
//! let mut wanted = running.clone();
//! wanted.set_value(&["system", "host-name"], "franca-gw")?;
//! let batch = diff(&running, &wanted);
//! let five = std::num::NonZeroU32::new(5);
//! println!("{}", router.plan_configure(&batch, five).await?);
//! let committed = router.configure(&batch, five).await?;
//! assert_eq!(committed.landed, cpps_vyos::Landed::Yes);
//! router.confirm().await?;
//! # Ok(())
//! # }
//! ```
#![forbid(unsafe_code)]

pub mod api;
pub mod apply;
mod auth;
pub mod backup;
mod client;
pub mod config;
pub mod envelope;
mod error;
pub mod pair;
mod settings;
pub mod status;
pub mod upgrade;
mod version;

pub use api::config_file::{ConfigSource, ConfigVersion};
pub use api::configure::{
    CommandLanded, CommitConfirm, Committed, ConfigurePlan, ConfirmAction, Confirmed, batch_landed,
    read_back, read_back_since, touches_https_service, write_only_replacement,
};
pub use api::info::{ApiGeneration, Info, RouterVersion, VersionSource};
pub use api::openapi::CommitConfirmSupport;
pub use api::retrieve::ConfigFormat;
pub use auth::ApiKey;
pub use client::{Client, ClientBuilder, ENV_API_KEY, ENV_FINGERPRINT, ENV_URL, tls_vars};
pub use config::{Command, ConfigTree, Op};
pub use cpps_http::{ClientIdentity, RetryPolicy, SecretString, TlsMode, TlsVars, Url};
pub use error::{Error, Landed, ParseError, ParseErrorKind};
pub use settings::Config;
