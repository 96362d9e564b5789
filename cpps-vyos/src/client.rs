//! The client: one router, its API key, and the write lock shared by every client of that router.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use cpps_http::{Delivery, HttpClient, Request, Response, StatusCode};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

use crate::auth::ApiKey;
use crate::error::Error;

/// A client of one VyOS router's HTTPS API.
///
/// Cheap to clone; clones share the connection pool. Writes (`/configure`, `/config-file`,
/// `/image`, `/reset`, `/reboot`, `/poweroff`) are serialised per router: every client in this
/// process whose base URL is the same waits for the write in flight to end. VyOS's server holds one
/// global lock around a configuration session and commit (`_configure_op` in vyos-1x
/// `src/services/api/rest/routers.py`); concurrent writers queue on it until their requests time
/// out, which is how clients that write in parallel wedge the API. Writes are never retried: a write
/// that may have been sent but got no answer is checked by reading the configuration back (see
/// [`crate::Landed`]).
#[derive(Clone)]
pub struct VyosClient {
    pub(crate) http: HttpClient,
    pub(crate) key: ApiKey,
    lock: Arc<AsyncMutex<()>>,
}

impl fmt::Debug for VyosClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VyosClient")
            .field("base_url", &self.http.base_url().as_str())
            .field("key", &self.key)
            .finish()
    }
}

/// One lock per router base URL, for the life of the process.
fn lock_for(base: &str) -> Arc<AsyncMutex<()>> {
    static LOCKS: OnceLock<Mutex<HashMap<String, Arc<AsyncMutex<()>>>>> = OnceLock::new();
    let map = LOCKS.get_or_init(Default::default);
    // A poisoned map only means another thread panicked while inserting; the map is still usable.
    let mut map = map
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    map.entry(base.to_owned()).or_default().clone()
}

/// VyOS's answer envelope: `{"success": bool, "data": …, "error": str | null}`
/// (`success()`/`error()` in `src/services/api/rest/models.py`).
#[derive(Deserialize)]
struct Envelope {
    success: bool,
    #[serde(default)]
    data: Value,
    #[serde(default)]
    error: Option<String>,
}

/// A request body with the key in front of the endpoint's fields.
#[derive(Serialize)]
struct Keyed<'a, T: Serialize> {
    key: &'a str,
    #[serde(flatten)]
    rest: &'a T,
}

impl VyosClient {
    /// A client for the router that `http` points at (its base URL is the router's root, e.g.
    /// `https://192.168.10.1/`), authenticating with `key`.
    pub fn new(http: HttpClient, key: impl Into<ApiKey>) -> Self {
        let lock = lock_for(http.base_url().as_str());
        Self {
            http,
            key: key.into(),
            lock,
        }
    }

    /// The underlying HTTP client.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// Waits until no other write to this router is in flight in this process.
    pub(crate) async fn write_guard(&self) -> OwnedMutexGuard<()> {
        self.lock.clone().lock_owned().await
    }

    fn request<T: Serialize>(&self, endpoint: &'static str, body: &T) -> Result<Request, Error> {
        let keyed = Keyed {
            key: self.key.expose(),
            rest: body,
        };
        Ok(Request::post(endpoint).json(&keyed)?)
    }

    /// POSTs a read (safe to repeat: cpps-http retries it on connection failures).
    pub(crate) async fn read<T: Serialize>(
        &self,
        endpoint: &'static str,
        body: &T,
    ) -> Result<Value, Error> {
        let request = self.request(endpoint, body)?.idempotent(true);
        let response = self.http.execute(request).await?;
        decode(endpoint, response)
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
            Ok(response) => decode(endpoint, response).map_err(WriteFailure::Other),
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

/// Decodes VyOS's envelope whatever the `Content-Type` says: the server sends JSON as `text/html`
/// (`HTMLResponse` in `models.py`). Error text is HTML-escaped by newer servers
/// (`escape(msg, quote=False)` in `models.error`) and is unescaped here.
pub(crate) fn decode(endpoint: &'static str, response: Response) -> Result<Value, Error> {
    let status = response.status();
    let envelope: Option<Envelope> = serde_json::from_slice(response.bytes()).ok();
    match envelope {
        Some(env) if env.success && status.is_success() => Ok(env.data),
        _ if status == StatusCode::UNAUTHORIZED => Err(Error::Unauthorized { endpoint }),
        Some(env) => Err(Error::Api {
            endpoint,
            status: status.as_u16(),
            message: unescape_html(env.error.as_deref().unwrap_or("")),
        }),
        None if status.is_success() => Err(Error::UnexpectedAnswer {
            endpoint,
            message: format!("not a VyOS answer: {}", response.excerpt()),
        }),
        None => Err(Error::Http(response.into_status_error())),
    }
}

/// Undoes Python's `html.escape(msg, quote=False)` (and the quote forms, should a server send them).
pub(crate) fn unescape_html(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
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
