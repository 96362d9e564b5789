//! The small shared REST runtime of the cpps clients.
//!
//! `cpps-proxmox`, `cpps-pbs`, `cpps-linstor` and `cpps-vyos` build on it so that the risky parts
//! exist once: TLS (system roots, a CA bundle, a pinned leaf-certificate fingerprint, or an
//! insecure mode asked for by name), secrets that never reach `Debug`, errors or logs, retries
//! with jittered back-off only for requests that are safe to repeat, an overall deadline per call
//! (decoding a large answer included), a cap on response size, and JSON decoding that names the
//! path that failed.
//!
//! One connection pool per client, with connections opened ahead of a fan-out
//! ([`HttpClient::preconnect`]) so that their handshakes overlap the round trip before it.
//!
//! It models no resources, no pagination and no login flow: each service crate brings its own
//! envelope decoding ([`Envelope`]), authentication ([`Auth`]) and error type. What every
//! service crate would otherwise write again is here once: the builders' transport setters
//! ([`forward_http_settings!`]), and, re-exported from `cpps-named-enum`, the string enum
//! ([`named_enum!`], closed or keeping a server's unknown values) and the validated string
//! newtype ([`validated_string!`]).
//!
//! ```no_run
//! use cpps_http::{HttpClient, Request, TlsMode};
//!
//! # async fn run() -> Result<(), cpps_http::Error> {
//! let client = HttpClient::builder("https://pbs.example:8007/api2/json".parse().unwrap())
//!     .tls(TlsMode::ca_file("/etc/proxmox-backup/proxy.pem"))
//!     .build()?;
//! let answer = client.execute(Request::get("version")).await?;
//! println!("{} {}", answer.status(), answer.text());
//! # Ok(())
//! # }
//! ```
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `test-util` | [`test_util`]: a wiremock server with a catch-all "unexpected request" responder, a client factory and a fixture loader, shared by every crate's tests; [`test_util::bench`]: the benchmarks' CPU clock, fastest sample, cachegrind counts, memory figures and scaling verdict |
#![forbid(unsafe_code)]

mod activity;
mod auth;
mod client;
pub mod env;
mod error;
mod forward;
mod pool;
mod request;
mod retry;
mod scrub;
mod settings;
mod tls;

#[cfg(feature = "test-util")]
pub mod test_util;

pub use activity::{Activity, ActivitySnapshot};
pub use auth::{Auth, HeaderAuth};
pub use client::{ClientBuilder, DEFAULT_MAX_RESPONSE_BYTES, HttpClient, NEAR_CONNECT};
pub use error::{
    BoxError, Delivery, Error, error_chain, is_secret_key, redact_json, redacted_excerpt,
};
pub use request::{Request, Response, decode_json};
pub use retry::RetryPolicy;
pub use scrub::{REDACTED, Scrubber, header_value_forms};
pub use settings::{Limits, SecretSource, SettingError, TlsKeys};
pub use tls::{ClientIdentity, Fingerprint, TlsMode, TlsVars};

pub use cpps_named_enum::{ValidatedString, named_enum, validated_string};
pub use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
pub use secrecy::{ExposeSecret, SecretString};
pub use url::Url;

/// Decodes a service's answers: its success envelope and its error bodies.
///
/// Each service crate implements it once (`{"data": …}` for Proxmox, `ApiCallRc` arrays for
/// LINSTOR, `{"success","data","error"}` for VyOS), so that every call of that crate goes through
/// one function that always yields a structured error, even from a garbage body.
/// [`HttpClient::send`] executes a request and hands the answer to it.
pub trait Envelope {
    /// The service crate's error type.
    type Error: std::error::Error + From<Error>;

    /// Turns a complete answer into the typed value or the service's error.
    fn decode<T: serde::de::DeserializeOwned>(&self, response: Response) -> Result<T, Self::Error>;
}

/// Percent-encodes one path segment (a node name, a resource name) for use in a request path.
pub fn encode_segment(segment: &str) -> String {
    url::form_urlencoded::byte_serialize(segment.as_bytes())
        .collect::<String>()
        // form encoding writes spaces as `+`, which a path does not decode.
        .replace('+', "%20")
}
