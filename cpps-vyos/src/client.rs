//! The client: one router, its API key, the router's write lock (shared by every client of that
//! router in this process) and its version (found once per client and its clones, replaced by
//! every fresh reading).

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Duration;

use cpps_http::env::Lookup;
use cpps_http::{Delivery, HttpClient, Request, Response, TlsVars, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::auth::{ApiKey, KeyScrub};
use crate::envelope::{VyosEnvelope, decode_data};
use crate::error::Error;
use crate::version::RouterVersion;

/// The environment variables [`ClientBuilder::from_env`] reads.
pub const ENV_URL: &str = "VYOS_URL";
/// The API key variable.
pub const ENV_API_KEY: &str = "VYOS_API_KEY";
/// The pinned-certificate variable (SHA-256 of the router's certificate, `AB:CD:…`).
pub const ENV_FINGERPRINT: &str = "VYOS_FINGERPRINT";

/// The TLS variables of VyOS, read by [`cpps_http::TlsMode::from_env`].
pub fn tls_vars() -> TlsVars {
    TlsVars::new().fingerprint(ENV_FINGERPRINT)
}

/// A client of one VyOS router's HTTPS API.
///
/// Cheap to clone; clones share the connection pool. Writes (`/configure`, `/config-file`,
/// `/image`, `/reset`, `/reboot`, `/poweroff`) are serialised per router: every client in this
/// process whose base URL is the same waits for the write in flight to end. VyOS's server holds one
/// global lock around a configuration session and commit (`_configure_op` in vyos-1x
/// `src/services/api/rest/routers.py`; `lock` in `src/services/vyos-http-api-server` on
/// `sagitta`); concurrent writers queue on it until their requests time out, which is how clients
/// that write in parallel wedge the API. Writes are never retried: a write is checked by reading
/// the configuration back (see [`crate::Landed`]).
#[derive(Clone)]
pub struct Client {
    pub(crate) http: HttpClient,
    pub(crate) key: ApiKey,
    /// The write lock of the router, shared by every client of its base URL in this process.
    write: Arc<AsyncMutex<()>>,
    /// The router's latest version reading, shared by this client's clones: set by the first
    /// [`Client::version`] and replaced by every [`Client::version_fresh`], so that what is
    /// derived from it (how error texts are read) follows an image change.
    version: Arc<RwLock<Option<RouterVersion>>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("base_url", &self.http.base_url().as_str())
            .field("key", &self.key)
            .finish()
    }
}

/// One write lock per router base URL, for the life of the process.
fn lock_for(base: &str) -> Arc<AsyncMutex<()>> {
    static ROUTERS: OnceLock<Mutex<HashMap<String, Arc<AsyncMutex<()>>>>> = OnceLock::new();
    let map = ROUTERS.get_or_init(Default::default);
    // A poisoned map only means another thread panicked while inserting; the map is still usable.
    let mut map = map.lock().unwrap_or_else(PoisonError::into_inner);
    map.entry(base.to_owned()).or_default().clone()
}

/// A request body with the key in front of the endpoint's fields.
#[derive(Serialize)]
struct Keyed<'a, T: Serialize> {
    key: &'a str,
    #[serde(flatten)]
    rest: &'a T,
}

/// Builds a [`Client`]: the router's URL and API key, and the transport settings of
/// `cpps_http::ClientBuilder` (forwarded by `cpps_http::forward_http_settings!`).
///
/// ```no_run
/// # fn run() -> Result<(), cpps_vyos::Error> {
/// use cpps_vyos::{Client, SecretString, TlsMode};
///
/// let router = Client::builder("https://192.168.10.1/")
///     .api_key(SecretString::from("key".to_owned()))
///     .tls(TlsMode::pinned("AB:CD:…")?)
///     .deadline(std::time::Duration::from_secs(30))
///     .build()?;
/// # let _ = router; Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    http: cpps_http::ClientBuilder,
    key: Option<ApiKey>,
    /// Why the URL given to [`Client::builder`] is unusable, reported by `build`.
    url_error: Option<String>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    cpps_http::forward_http_settings!();

    /// The API key (`service https api keys id ID key KEY`).
    pub fn api_key(mut self, key: impl Into<ApiKey>) -> Self {
        self.key = Some(key.into());
        self
    }

    /// A builder from the variables VyOS users set: `VYOS_URL` (the router's API root, e.g.
    /// `https://192.168.10.1/`), `VYOS_API_KEY`, and `VYOS_FINGERPRINT` (SHA-256 of the router's
    /// certificate, read by [`cpps_http::TlsMode::from_env`]; without it, the system roots),
    /// all read through `lookup`: [`crate::Config::from_env`] then
    /// [`ClientBuilder::from_config`], the one path from settings to a client.
    ///
    /// # Errors
    /// [`Error::Config`] naming the variable that is missing or invalid.
    pub fn from_env(lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        ClientBuilder::from_config(&crate::Config::from_env(lookup)?, lookup)
    }

    /// The client.
    ///
    /// # Errors
    /// [`Error::Config`] without an API key; [`Error::Http`] for invalid transport settings.
    pub fn build(self) -> Result<Client, Error> {
        if let Some(reason) = self.url_error {
            return Err(Error::Config { reason });
        }
        let key = self.key.ok_or_else(|| Error::Config {
            reason: "no API key (ClientBuilder::api_key or VYOS_API_KEY)".to_owned(),
        })?;
        Ok(Client::new(self.http.build()?, key))
    }
}

impl Client {
    /// A builder for the router whose API root is `base_url` (e.g. `https://192.168.10.1/`), with
    /// cpps-http's default timeouts (10 s connect, 30 s per attempt, 60 s deadline per call).
    /// A URL that does not parse is reported by [`ClientBuilder::build`], as the other clients
    /// do.
    pub fn builder(base_url: impl AsRef<str>) -> ClientBuilder {
        let text = base_url.as_ref();
        let mut http = cpps_http::ClientBuilder::default().connect_timeout(Duration::from_secs(10));
        let mut url_error = None;
        match text.trim().parse::<Url>() {
            Ok(url) => http = http.base_url(url),
            Err(e) => url_error = Some(format!("router URL `{text}` is not a URL: {e}")),
        }
        ClientBuilder {
            http,
            key: None,
            url_error,
        }
    }

    /// [`ClientBuilder::from_env`] on the process environment, then [`ClientBuilder::build`].
    ///
    /// # Errors
    /// As those two.
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env(&cpps_http::env::process_env)?.build()
    }

    /// A client for the router that `http` points at (its base URL is the router's root),
    /// authenticating with `key`.
    pub fn new(http: HttpClient, key: impl Into<ApiKey>) -> Self {
        let key = key.into();
        let write = lock_for(http.base_url().as_str());
        let http = http.with_auth(Arc::new(KeyScrub(key.clone())));
        Self {
            http,
            key,
            write,
            version: Arc::default(),
        }
    }

    /// The underlying HTTP client.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// Waits until no other write to this router is in flight in this process.
    pub(crate) async fn write_guard(&self) -> OwnedMutexGuard<()> {
        self.write.clone().lock_owned().await
    }

    /// The latest version reading of this client and its clones, if any (see
    /// [`Client::version`]).
    pub(crate) fn cached_version(&self) -> Option<RouterVersion> {
        // A poisoned lock only means a thread panicked while storing a clone; the value is whole.
        self.version
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Keeps `version` as the router's latest reading, replacing any older one.
    pub(crate) fn store_version(&self, version: &RouterVersion) {
        *self.version.write().unwrap_or_else(PoisonError::into_inner) = Some(version.clone());
    }

    /// Whether this router's error texts are HTML-escaped (see [`VyosEnvelope::errors_escaped`]):
    /// not while its latest version reading says 1.4.
    pub(crate) fn errors_escaped(&self) -> bool {
        self.cached_version()
            .is_none_or(|v| v.api != crate::ApiGeneration::V14)
    }

    fn request<T: Serialize>(&self, endpoint: &'static str, body: &T) -> Result<Request, Error> {
        let keyed = Keyed {
            key: self.key.expose(),
            rest: body,
        };
        Ok(Request::post(endpoint).json(&keyed)?)
    }

    /// POSTs a read (safe to repeat: cpps-http retries it on connection failures) and decodes
    /// its `data` through [`VyosEnvelope`].
    pub(crate) async fn read<B: Serialize, T: DeserializeOwned>(
        &self,
        endpoint: &'static str,
        body: &B,
    ) -> Result<T, Error> {
        let request = self.request(endpoint, body)?.idempotent(true);
        let envelope = VyosEnvelope {
            endpoint,
            errors_escaped: self.errors_escaped(),
        };
        self.http.send(&envelope, request).await
    }

    /// POSTs a write, once. The caller holds the write guard.
    pub(crate) async fn write_once<T: Serialize>(
        &self,
        endpoint: &'static str,
        body: &T,
    ) -> Result<Value, WriteFailure> {
        let request = self
            .request(endpoint, body)
            .map_err(WriteFailure::Other)?
            .idempotent(false);
        match self.http.execute(request).await {
            Ok(response) => {
                decode(endpoint, &response, self.errors_escaped()).map_err(WriteFailure::Other)
            }
            Err(e) if e.delivery() == Delivery::MaybeSent => Err(WriteFailure::MaybeSent(e)),
            Err(e) => Err(WriteFailure::Other(e.into())),
        }
    }
}

/// How a single write attempt failed.
pub(crate) enum WriteFailure {
    /// No answer, but the request may have reached the router.
    MaybeSent(cpps_http::Error),
    /// Anything else (never sent, or answered with an error).
    Other(Error),
}

/// The `data` of an answer (see [`crate::envelope`]).
pub(crate) fn decode(
    endpoint: &'static str,
    response: &Response,
    errors_escaped: bool,
) -> Result<Value, Error> {
    decode_data(endpoint, response, errors_escaped)
}

/// Turns VyOS's `data` into text: operational commands answer a string, some answer `null`.
pub(crate) fn data_text(endpoint: &'static str, data: Value) -> Result<String, Error> {
    match data {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s),
        other => Err(Error::UnexpectedAnswer {
            endpoint,
            message: format!("expected text, got {}", kind(&other)),
        }),
    }
}

pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
