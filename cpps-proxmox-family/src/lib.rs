//! The pieces every Proxmox product shares (PVE and PBS), in a crate of their own so that
//! `cpps-pbs` depends on them and not on the PVE client (`cpps-proxmox` re-exports this crate as
//! `cpps_proxmox::family`). It imports nothing of either product.
//!
//! Both products run the same REST framework family (`pve-http-server` for PVE,
//! `proxmox-rest-server` for PBS) and differ only in names:
//!
//! | piece | PVE | PBS |
//! | --- | --- | --- |
//! | answer envelope | `{"data": …}`, errors `{"data": null, "message", "errors"}` | same |
//! | booleans | Perl `0`/`1` (sometimes strings) | JSON booleans |
//! | ticket cookie | `PVEAuthCookie` | `PBSAuthCookie` |
//! | token header | `PVEAPIToken=USER@REALM!ID=SECRET` | `PBSAPIToken=USER@REALM!ID:SECRET` |
//! | UPID | `UPID:node:pid:pstart:starttime:type:id:user:` | `UPID:node:pid:pstart:task_id:starttime:type:id:authid:` |
//! | task status/log | `GET /nodes/{node}/tasks/{upid}/status`, `…/log` | same |
//!
//! What is here:
//!
//! - [`decode_envelope`] / [`DataEnvelope`]: the one decoder of `{"data": …}` answers and of
//!   error bodies into [`Error::Api`] (with the per-field `errors` map of a 400) or
//!   [`Error::NotFound`] (404, a 500 saying "does not exist", or a 400/500 "no such
//!   datastore/resource …"); [`decode_page`] keeps `total` too.
//! - [`de`]: `deserialize_with` helpers for `0`/`1` booleans and numbers sent as strings.
//! - [`TokenAuth`] and [`TicketAuth`], parameterized by [`Product`]: the API-token header, and
//!   the ticket flow (`POST /access/ticket`, cookie, `CSRFPreventionToken` on writes, renewal
//!   by posting the ticket as the password, one re-login on a 401, optional TOTP).
//! - [`Upid`]: parse and print both UPID layouts, keeping the text as sent.
//! - [`wait_task`], [`task_status`], [`task_log_tail`]: poll a task with back-off until it
//!   stops; a failure carries the log tail.
//! - [`PartError`] and [`bounded`]: a part of a report that could not be read (its error, or
//!   the run's time limit), kept beside what was read.
//! - [`UserId`], [`TokenId`], [`AuthId`]: validated ids; [`names`]: the validated-name building
//!   block ([`names::NameRule`] over the servers' syntaxes, whose [`names::NameRule::check`] a
//!   product's name type declared with `cpps_http::validated_string!` runs).
//! - [`Endpoint`]: the endpoint-table type of both clients (method, path, typed parameters,
//!   version [`Gate`]s, what the answer is read into), [`Endpoint::call`] building a request
//!   from an entry, and (feature `test-util`) `apidoc::ApiDoc::check_table`, the one
//!   conformance check of a table against a product's API schema.
//!
//! Errors are one generic [`FamilyError`] over what differs between the products
//! ([`ProductError`]): the family's own [`Error`] is `FamilyError<Shared>`, and
//! `cpps_proxmox::Error` and `cpps_pbs::Error` each convert it, so neither product's users see
//! the other's wording.
//!
//! ```no_run
//! use std::sync::Arc;
//! use cpps_http::{HttpClient, SecretString, TlsMode};
//! use cpps_proxmox_family::{self as family, Product, TicketAuth, TokenAuth, Upid, WaitOptions};
//!
//! # async fn run() -> Result<(), cpps_proxmox_family::Error> {
//! let http = HttpClient::builder("https://pbs.example:8007/api2/json".parse().unwrap())
//!     .tls(TlsMode::pinned("AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99")?)
//!     .build()?;
//! // Either a token …
//! let (id, secret) = family::split_token("backup@pbs!sync:0b7a…")?;
//! let api = http.with_auth(Arc::new(TokenAuth::new(Product::Pbs, id, &secret)));
//! // … or a ticket.
//! let ticket = TicketAuth::new(Product::Pbs, &http, "root@pam".parse()?, SecretString::from("…"));
//! let _api2 = http.with_auth(Arc::new(ticket));
//!
//! let version: serde_json::Value =
//!     family::decode_envelope(api.execute(cpps_http::Request::get("version")).await?)?;
//! let upid: Upid = "UPID:pbs1:00004F37:0039E469:00000000:5CA78B83:garbage_collection:store1:root@pam:".parse()?;
//! let outcome = family::wait_task(&api, Product::Pbs, &upid, &upid.task_path(), &WaitOptions::default()).await?;
//! println!("{version} {}", outcome.exit_status);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

#[cfg(feature = "test-util")]
pub mod apidoc;
mod auth;
pub mod de;
mod endpoints;
mod envelope;
pub(crate) mod error;
mod ids;
pub mod names;
mod part;
mod task;
mod upid;
mod version;

pub use auth::{
    Credentials, DEFAULT_RENEW_AFTER, TICKET_PATH, TicketAuth, TokenAuth, TotpSource, split_token,
};
pub use endpoints::{Answer, Call, Endpoint, Gate, Param, ParamType, Returns, fields_of};
pub use envelope::{
    DataEnvelope, Page, PageEnvelope, decode_envelope, decode_page, error_from_response,
    is_conflict, is_not_found,
};
pub use error::{Error, FamilyError, ProductClient, ProductError, Shared};

pub use ids::{AuthId, Product, TokenId, UserId};
pub use part::{PartError, PartFailure, bounded};
pub use task::{
    ExitStatus, LogLine, TaskOutcome, TaskState, TaskStatus, WaitOptions, log_tail_start,
    task_log_tail, task_status, wait_task,
};
pub use upid::{Upid, UpidParts};

/// The API base of a Proxmox server: `https://host:8006/` or `https://host:8006/api2/json` →
/// `https://host:8006/api2/json/` (both products serve their API below `/api2/json`).
pub fn api_base(endpoint: &str) -> Result<cpps_http::Url, Error> {
    let mut url: cpps_http::Url = endpoint
        .trim()
        .parse()
        .map_err(|e| Error::invalid("endpoint", endpoint, format!("not a URL: {e}")))?;
    let path = url.path().trim_end_matches('/').to_owned();
    if path.ends_with("/api2/json") {
        url.set_path(&format!("{path}/"));
    } else {
        url.set_path(&format!("{path}/api2/json/"));
    }
    Ok(url)
}
pub use version::ServerVersion;
