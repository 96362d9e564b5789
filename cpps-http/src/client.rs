//! The client: one connection pool, a base URL, timeouts, retries, a size cap and auth.

use std::fmt;
use std::future::Future as _;
use std::sync::Arc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::header::{ACCEPT_ENCODING, HeaderValue, RETRY_AFTER, USER_AGENT};
use http::{Method, StatusCode};
use serde::de::DeserializeOwned;
use tokio::time::Instant;
use url::Url;

use crate::activity::Activity;
use crate::auth::Auth;
use crate::error::sanitize_url;
use crate::pool::{SpareRole, Spares, SparesLayer};
use crate::request::{CallDeadline, DEADLINE_CHECKED_BYTES, Request, Response};
use crate::retry::RetryPolicy;
use crate::tls::{ClientIdentity, TlsMode};
use crate::{Delivery, Error, Scrubber};

/// The default cap on response bodies: 8 MiB.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;

/// The first connect time (TCP and TLS handshakes, [`HttpClient::first_connect_time`]) up to
/// which a server counts as near: about two round trips and both sides' handshake work on a
/// LAN. A near server is asked for its answers uncompressed.
pub const NEAR_CONNECT: Duration = Duration::from_millis(5);

/// How long an idle pooled connection is kept by default: 30 s. A connection idle longer is
/// likelier to lead to a server that restarted, died or was cut off, and a request sent on it
/// waits out the request timeout instead of failing at connect (hyper's default is 90 s).
const DEFAULT_POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// TCP keepalive of every connection: the first probe after this much idle time
/// (`TCP_KEEPIDLE`), ...
const TCP_KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
/// ... the next ones this far apart (`TCP_KEEPINTVL`), ...
const TCP_KEEPALIVE_INTERVAL: Duration = Duration::from_secs(5);
/// ... and the connection closed after this many unanswered probes (`TCP_KEEPCNT`): a dead
/// peer is noticed after 25 s of idle time, before [`DEFAULT_POOL_IDLE_TIMEOUT`] ends, where
/// reqwest's defaults (15 s, 15 s, 3) take 60 s.
const TCP_KEEPALIVE_PROBES: u32 = 3;

/// Configures and builds an [`HttpClient`].
///
/// ```
/// use std::time::Duration;
/// use cpps_http::{HttpClient, TlsMode};
///
/// let client = HttpClient::builder("https://pve.example:8006/api2/json".parse()?)
///     .tls(TlsMode::pinned(
///         "AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99",
///     )?)
///     .request_timeout(Duration::from_secs(10))
///     .build()?;
/// assert_eq!(client.base_url().as_str(), "https://pve.example:8006/api2/json/");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct ClientBuilder {
    base_url: Option<Url>,
    user_agent: String,
    connect_timeout: Duration,
    request_timeout: Duration,
    deadline: Duration,
    max_response_bytes: usize,
    tls: TlsMode,
    identity: Option<ClientIdentity>,
    retry: RetryPolicy,
    pool_idle_timeout: Duration,
    pool_max_idle_per_host: usize,
    activity: Activity,
}

impl Default for ClientBuilder {
    /// The defaults, without a base URL yet: service crates' builders hold one of these and
    /// set the URL when they know it ([`ClientBuilder::base_url`]).
    fn default() -> Self {
        ClientBuilder {
            base_url: None,
            user_agent: concat!("cpps/", env!("CARGO_PKG_VERSION")).to_owned(),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            tls: TlsMode::SystemRoots,
            identity: None,
            retry: RetryPolicy::default(),
            pool_idle_timeout: DEFAULT_POOL_IDLE_TIMEOUT,
            pool_max_idle_per_host: 256,
            activity: Activity::default(),
        }
    }
}

impl ClientBuilder {
    /// Sets the base URL, such as `https://host:8006/api2/json` (required before
    /// [`build`](ClientBuilder::build)).
    pub fn base_url(mut self, base_url: Url) -> Self {
        self.base_url = Some(base_url);
        self
    }

    /// Sets the `User-Agent` header (default `cpps/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = user_agent.into();
        self
    }

    /// Time allowed to establish a connection, TLS included (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Time allowed for one attempt, from sending to the end of the body (default 30 s).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Time allowed for one call, all attempts and back-off included (default 60 s). Decoding
    /// an answer larger than 1 MiB ([`Response::json`], through which service crates decode
    /// what [`HttpClient::send`] returns) stops there too, with [`Error::Deadline`].
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Largest response body accepted, in bytes (default [`DEFAULT_MAX_RESPONSE_BYTES`]); a
    /// single request can raise or lower it with [`Request::max_response_bytes`].
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// How the server's certificate is verified (default: system roots).
    pub fn tls(mut self, tls: TlsMode) -> Self {
        self.tls = tls;
        self
    }

    /// A client certificate to present.
    pub fn client_identity(mut self, identity: ClientIdentity) -> Self {
        self.identity = Some(identity);
        self
    }

    /// The retry policy for requests that are safe to repeat.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// How long an idle pooled connection is kept (default 30 s).
    /// Every connection also has TCP keepalive (first probe after 10 s idle, then every 5 s,
    /// closed after 3 unanswered), so a pooled connection to a dead server is closed while
    /// idle.
    pub fn pool_idle_timeout(mut self, timeout: Duration) -> Self {
        self.pool_idle_timeout = timeout;
        self
    }

    /// How many idle connections per host the pool keeps (default 256). Keep it at least the
    /// number of requests a caller keeps in flight to one host: a connection returned to a
    /// full pool is closed, and the next request pays a new TCP and TLS handshake (with 32
    /// and 64 requests in flight, an inventory sweep opened 90 connections instead of 64).
    pub fn pool_max_idle_per_host(mut self, count: usize) -> Self {
        self.pool_max_idle_per_host = count;
        self
    }

    /// Reports this client's requests into `activity` (by default each builder has its own,
    /// shared by the clients built from its clones): a caller whose own time limit runs out
    /// reads [`Activity::snapshot`] to say what it was waiting for.
    pub fn activity(mut self, activity: Activity) -> Self {
        self.activity = activity;
        self
    }

    /// Builds the client. Fails on an unusable base URL or TLS configuration.
    pub fn build(self) -> Result<HttpClient, Error> {
        let Some(mut base_url) = self.base_url else {
            return Err(Error::Config {
                reason: "no base URL: set one with ClientBuilder::base_url".to_owned(),
            });
        };
        if base_url.cannot_be_a_base() || !matches!(base_url.scheme(), "http" | "https") {
            return Err(Error::Config {
                reason: format!("base URL `{base_url}` must be an http or https URL"),
            });
        }
        if !base_url.username().is_empty() || base_url.password().is_some() {
            return Err(Error::Config {
                reason: "base URL must not carry a user name or password; use the client's auth"
                    .to_owned(),
            });
        }
        if !base_url.path().ends_with('/') {
            let path = format!("{}/", base_url.path());
            base_url.set_path(&path);
        }
        base_url.set_query(None);
        base_url.set_fragment(None);
        HeaderValue::from_str(&self.user_agent).map_err(|_| Error::Config {
            reason: "user agent is not a valid header value".to_owned(),
        })?;

        let tls = crate::tls::client_config(&self.tls, self.identity.as_ref())?;
        let spares = Spares::new(
            self.pool_idle_timeout.min(SPARE_MAX_AGE),
            self.connect_timeout,
        );
        // The client and its opener of spare connections connect alike: one TLS configuration
        // (its session cache included), the same connector settings.
        let connector = || {
            reqwest::Client::builder()
                .use_preconfigured_tls(tls.clone())
                .connect_timeout(self.connect_timeout)
                .pool_idle_timeout(self.pool_idle_timeout)
                .pool_max_idle_per_host(self.pool_max_idle_per_host)
                // Redirects are never followed: a redirect can drop a query string, turn a POST
                // into a GET, or move credentials to another host. Service crates see the 3xx and
                // explain it.
                .redirect(reqwest::redirect::Policy::none())
                .tcp_nodelay(true)
                .tcp_keepalive(TCP_KEEPALIVE_IDLE)
                .tcp_keepalive_interval(TCP_KEEPALIVE_INTERVAL)
                .tcp_keepalive_retries(TCP_KEEPALIVE_PROBES)
        };
        let built = |builder: reqwest::ClientBuilder| {
            builder.build().map_err(|e| Error::Config {
                reason: format!("cannot build the HTTP client: {e}"),
            })
        };
        let layer = |role| SparesLayer {
            spares: spares.clone(),
            role,
        };
        let http = built(connector().connector_layer(layer(SpareRole::Take)))?;
        let opener = built(connector().connector_layer(layer(SpareRole::Open)))?;
        Ok(HttpClient {
            inner: Arc::new(Inner {
                http,
                opener,
                spares,
                base_url,
                user_agent: self.user_agent,
                request_timeout: self.request_timeout,
                deadline: self.deadline,
                max_response_bytes: self.max_response_bytes,
                retry: self.retry,
                tls_mode: self.tls,
                connect_timeout: self.connect_timeout,
                activity: self.activity,
            }),
            auth: None,
            scrubber: Arc::default(),
        })
    }
}

/// The longest a spare connection ([`HttpClient::preconnect`]) waits for a request: PVE's API
/// server closes a connection idle for 5 s (pve-http-server `src/PVE/APIServer/AnyEvent.pm`:
/// `$self->{timeout} = 5`, the timeout of each connection's handle).
const SPARE_MAX_AGE: Duration = Duration::from_secs(3);

struct Inner {
    http: reqwest::Client,
    /// Opens spare connections for `http` and sends nothing ([`crate::pool`]).
    opener: reqwest::Client,
    spares: Spares,
    base_url: Url,
    user_agent: String,
    request_timeout: Duration,
    deadline: Duration,
    max_response_bytes: usize,
    retry: RetryPolicy,
    tls_mode: TlsMode,
    connect_timeout: Duration,
    activity: Activity,
}

/// A cheap-to-clone REST client: clones share one connection pool.
///
/// It sends [`Request`]s relative to its base URL and returns complete [`Response`]s of any
/// status; service crates decode success and error bodies themselves (see
/// [`Envelope`](crate::Envelope)).
///
/// Answers are asked gzipped, except from a near server: once the client's first connect
/// took [`NEAR_CONNECT`] or less, a request that names no encodings of its own asks for them
/// uncompressed, since on a LAN compressing costs both ends more than the bytes do.
#[derive(Clone)]
pub struct HttpClient {
    inner: Arc<Inner>,
    auth: Option<Arc<dyn Auth>>,
    scrubber: Arc<Scrubber>,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("base_url", &self.inner.base_url.as_str())
            .field("user_agent", &self.inner.user_agent)
            .field("tls", &self.inner.tls_mode)
            .field("request_timeout", &self.inner.request_timeout)
            .field("deadline", &self.inner.deadline)
            .field("max_response_bytes", &self.inner.max_response_bytes)
            .field("retry", &self.inner.retry)
            .field("auth", &self.auth)
            .finish()
    }
}

impl HttpClient {
    /// What this client is waiting for: its requests in flight and the last few that got no
    /// answer (shared with the clients built from clones of its builder).
    pub fn activity(&self) -> &Activity {
        &self.inner.activity
    }

    /// Starts configuring a client for a base URL such as `https://host:8006/api2/json`.
    pub fn builder(base_url: Url) -> ClientBuilder {
        ClientBuilder::default().base_url(base_url)
    }

    /// The base URL (always ending in `/`).
    pub fn base_url(&self) -> &Url {
        &self.inner.base_url
    }

    /// The configured overall deadline per call.
    pub fn deadline(&self) -> Duration {
        self.inner.deadline
    }

    /// A clone that attaches credentials through `auth`, sharing the connection pool.
    ///
    /// The auth's [`secrets`](Auth::secrets) are scrubbed from every text of every answer this
    /// client returns ([`Response::text`], [`Response::excerpt`], decode messages, reason
    /// phrases).
    pub fn with_auth(&self, auth: Arc<dyn Auth>) -> HttpClient {
        let scrubber = Arc::new(Scrubber::new(auth.secrets()));
        HttpClient {
            inner: self.inner.clone(),
            auth: Some(auth),
            scrubber,
        }
    }

    /// Removes this client's own secrets from `text` (see [`Scrubber`]): for texts a service
    /// crate receives other than through a [`Response`].
    pub fn scrub(&self, text: &str) -> String {
        self.scrubber.scrub(text)
    }

    /// A clone without credentials, sharing the connection pool (for login requests).
    ///
    /// It keeps scrubbing the secrets of the auth it was made from: a login answer that echoes
    /// the password must not show it either.
    pub fn without_auth(&self) -> HttpClient {
        HttpClient {
            inner: self.inner.clone(),
            auth: None,
            scrubber: self.scrubber.clone(),
        }
    }

    /// Starts opening `count` connections to the base URL's server in the background, for
    /// requests about to be made, and returns at once.
    ///
    /// A request that finds no idle connection in the pool takes one of these (established, or
    /// still being opened) instead of opening its own: a fan-out that follows a list round
    /// calls it when the list requests leave, so that its handshakes overlap the list's round
    /// trip instead of following it. Nothing is sent on these connections until a request takes
    /// one; one not taken within 3 s is closed (PVE closes a connection idle for 5 s). Outside
    /// a Tokio runtime it does nothing. Opening fewer than asked is harmless: requests then
    /// open their own connections, as without it.
    pub fn preconnect(&self, count: usize) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        for _ in 0..count {
            // The opener's request ends with an error as soon as its connection has started
            // (`pool::OPENED_AS_SPARE`), without being sent. Its first poll, here, reaches the
            // connector (the opener's pool never holds a connection), so the spare is counted
            // before this returns and the next request of this client waits for it.
            let mut opening = Box::pin(self.inner.opener.get(self.inner.base_url.clone()).send());
            let mut context = std::task::Context::from_waker(std::task::Waker::noop());
            if opening.as_mut().poll(&mut context).is_pending() {
                runtime.spawn(async move {
                    let _ = opening.await;
                });
            }
        }
    }

    /// How long this client's first connection took to establish (TCP and TLS handshakes,
    /// about two round trips plus both sides' handshake work), waiting for it if none has been
    /// established yet; `None` when that first connect failed. A fan-out sizes itself by it:
    /// a server that answers a handshake in a millisecond gains nothing from many connections
    /// in flight, one tens of milliseconds away gains round trips.
    pub async fn first_connect_time(&self) -> Option<Duration> {
        self.inner.spares.first_connect().await
    }

    /// Spare connections ([`preconnect`](HttpClient::preconnect)) established or being opened
    /// that no request has taken yet.
    pub fn spare_connections(&self) -> usize {
        self.inner.spares.available()
    }

    /// Spare connections started since the client was built
    /// ([`preconnect`](HttpClient::preconnect)).
    pub fn spare_connections_started(&self) -> usize {
        self.inner.spares.started()
    }

    /// The absolute URL of a path relative to the base URL.
    pub fn url_for(&self, path: &str) -> Result<Url, Error> {
        self.inner
            .base_url
            .join(path.trim_start_matches('/'))
            .map_err(|e| Error::Config {
                reason: format!("path `{path}` does not form a URL: {e}"),
            })
    }

    /// Sends a request and decodes the answer, whatever its status, with the service's
    /// [`Envelope`](crate::Envelope): its success shape or its structured error.
    pub async fn send<E: crate::Envelope, T: DeserializeOwned>(
        &self,
        envelope: &E,
        request: Request,
    ) -> Result<T, E::Error> {
        let response = self.execute(request).await?;
        // Decoding a large answer is CPU work that would hold this worker thread, and with it
        // the timers of every task on it (a binary's --timeout among them): on a multi-thread
        // runtime it tells the runtime to move those tasks elsewhere first. The decoding itself
        // stops at the call's deadline (`Response::json`): this task's own timers cannot fire
        // while it runs.
        if response.body.len() > DEADLINE_CHECKED_BYTES
            && tokio::runtime::Handle::try_current().is_ok_and(|handle| {
                handle.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
            })
        {
            tokio::task::block_in_place(|| envelope.decode(response))
        } else {
            envelope.decode(response)
        }
    }

    /// Sends a request and decodes a successful JSON answer; any other status is
    /// [`Error::Status`].
    pub async fn send_json<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        self.execute(request).await?.error_for_status()?.json()
    }

    /// Sends a request and returns the complete answer, whatever its status.
    ///
    /// Applies auth (once more after a refresh when the server answers 401), retries requests
    /// that are safe to repeat on connection failures and 429/502/503/504 with jittered
    /// exponential back-off, and stops at the overall deadline.
    pub async fn execute(&self, request: Request) -> Result<Response, Error> {
        let mut url = self.url_for(&request.path)?;
        if !request.query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(request.query.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        }
        let deadline = self.inner.deadline;
        let started = Instant::now();
        // Wall-clock time, for decoding the answer later (`Response::json`), which is work on
        // this thread that no timer can interrupt.
        let decode_deadline = CallDeadline {
            at: std::time::Instant::now() + deadline,
            budget: deadline,
        };
        let mut may_have_sent = false;
        let named = format!("{} {}", request.method, sanitize_url(&url));
        let in_flight = self.inner.activity.start(named.clone());
        let outcome = tokio::time::timeout(
            deadline,
            self.execute_attempts(&request, &url, started, &mut may_have_sent),
        )
        .await;
        in_flight.finish();
        let outcome = self.note_unanswered(&named, outcome, deadline);
        match outcome {
            Ok(result) => result.map(|mut response| {
                response.deadline = Some(decode_deadline);
                response
            }),
            Err(_) => Err(Error::Deadline {
                method: request.method.clone(),
                url: sanitize_url(&url),
                deadline,
                delivery: if may_have_sent {
                    Delivery::MaybeSent
                } else {
                    Delivery::NotSent
                },
            }),
        }
    }

    /// Records a request that ended without an answer (a transport error, or the deadline) in
    /// the client's [`Activity`]; an answer of any status, and one refused for its size, are
    /// not recorded.
    fn note_unanswered(
        &self,
        named: &str,
        outcome: Result<Result<Response, Error>, tokio::time::error::Elapsed>,
        deadline: Duration,
    ) -> Result<Result<Response, Error>, tokio::time::error::Elapsed> {
        match &outcome {
            Ok(Err(e)) if !e.is_body_too_large() && e.status().is_none() => {
                self.inner
                    .activity
                    .unanswered(named, &crate::error_chain(e));
            }
            Err(_) => self.inner.activity.unanswered(
                named,
                &format!("no answer within the {deadline:?} deadline"),
            ),
            Ok(_) => {}
        }
        outcome
    }

    async fn execute_attempts(
        &self,
        request: &Request,
        url: &Url,
        started: Instant,
        may_have_sent: &mut bool,
    ) -> Result<Response, Error> {
        let retry = &self.inner.retry;
        let mut attempt: u32 = 0;
        let mut refreshed = false;
        loop {
            attempt += 1;
            // While an attempt is in flight nobody can tell whether its bytes reached the server,
            // so a deadline that fires now reports "maybe sent"; an attempt that ends as
            // "not sent" restores what was known before it.
            let sent_before = *may_have_sent;
            *may_have_sent = true;
            let result = self.attempt(request, url).await;
            if let Err(e) = &result
                && e.delivery() == Delivery::NotSent
            {
                *may_have_sent = sent_before;
            }
            if let Ok(response) = &result
                && response.status == StatusCode::UNAUTHORIZED
                && !refreshed
                && let Some(auth) = &self.auth
            {
                refreshed = true;
                // A 401 means the server refused the request before acting on it, so sending
                // it once more with fresh credentials is safe for any method.
                if auth.refresh(self).await? {
                    tracing::debug!(method = %request.method, path = %request.path, "credentials refreshed after 401; repeating once");
                    continue;
                }
            }
            let wait = match &result {
                Ok(response) => retryable_status(response.status).then(|| retry_after(response)),
                Err(e) => retryable_error(e).then_some(None),
            };
            let Some(server_hint) = wait else {
                return result;
            };
            if !request.idempotent || attempt >= retry.max_attempts {
                return result;
            }
            let backoff = server_hint
                .map(|hint| hint.min(retry.max_backoff))
                .unwrap_or_else(|| retry.backoff(attempt));
            if started.elapsed() + backoff >= self.inner.deadline {
                return result;
            }
            tracing::debug!(
                method = %request.method,
                path = %request.path,
                attempt,
                backoff_ms = backoff.as_millis() as u64,
                "retrying a request that is safe to repeat"
            );
            tokio::time::sleep(backoff).await;
        }
    }

    /// Whether to ask for the answer uncompressed (else reqwest asks for gzip): from a near
    /// server ([`NEAR_CONNECT`]), where the bytes cost little and compressing costs both ends
    /// CPU on the path of every answer. pveproxy compresses at level 9, and then only for a
    /// request that accepts gzip or deflate (pve-http-server `src/PVE/APIServer/AnyEvent.pm`
    /// `response`: `$nocomp`). A request that names its own encodings keeps them.
    fn asks_uncompressed(&self, request: &Request) -> bool {
        !request.headers.contains_key(ACCEPT_ENCODING)
            && self.inner.spares.first_connect_within(NEAR_CONNECT)
    }

    async fn attempt(&self, request: &Request, url: &Url) -> Result<Response, Error> {
        let mut request = request.clone();
        if let Some(auth) = &self.auth {
            auth.authorize(&mut request).await?;
        }
        let clean_url = sanitize_url(url);
        let mut builder = self
            .inner
            .http
            .request(request.method.clone(), url.clone())
            .timeout(self.inner.request_timeout)
            .headers(request.headers.clone())
            .header(USER_AGENT, &self.inner.user_agent);
        if self.asks_uncompressed(&request) {
            builder = builder.header(ACCEPT_ENCODING, HeaderValue::from_static("identity"));
        }
        if let Some(body) = &request.body {
            builder = builder.body(body.clone());
        }
        let started = Instant::now();
        let response = builder
            .send()
            .await
            .map_err(|e| self.transport_error(e, &request.method, &clean_url, false))?;
        let status = response.status();
        let headers = response.headers().clone();
        // hyper keeps an HTTP/1.1 reason phrase only when it differs from the canonical one.
        let reason = response
            .extensions()
            .get::<hyper::ext::ReasonPhrase>()
            .map(|phrase| String::from_utf8_lossy(phrase.as_bytes()).into_owned());
        let limit = request
            .max_response_bytes
            .unwrap_or(self.inner.max_response_bytes);
        let body = self
            .read_body(response, &request.method, &clean_url, limit)
            .await?;
        tracing::debug!(
            method = %request.method,
            path = %request.path,
            status = status.as_u16(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            bytes = body.len(),
            "http call"
        );
        Ok(Response {
            method: request.method,
            url: clean_url,
            status,
            headers,
            body,
            reason,
            scrubber: self.scrubber.clone(),
            // Set by `execute` for the whole call.
            deadline: None,
        })
    }

    async fn read_body(
        &self,
        mut response: reqwest::Response,
        method: &Method,
        url: &Url,
        limit: usize,
    ) -> Result<Bytes, Error> {
        let too_large = || Error::BodyTooLarge {
            method: method.clone(),
            url: url.clone(),
            limit,
        };
        if response
            .content_length()
            .is_some_and(|length| length > limit as u64)
        {
            return Err(too_large());
        }
        let mut body = BytesMut::new();
        while let Some(chunk) = response
            .chunk()
            .await
            .map_err(|e| self.transport_error(e, method, url, true))?
        {
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body.freeze())
    }

    fn transport_error(
        &self,
        error: reqwest::Error,
        method: &Method,
        url: &Url,
        reading_body: bool,
    ) -> Error {
        let connect = error.is_connect() && !reading_body;
        if error.is_timeout() {
            return Error::Timeout {
                method: method.clone(),
                url: url.clone(),
                // A connect that timed out waited for the connect timeout, not the request's.
                timeout: if connect {
                    self.inner.connect_timeout
                } else {
                    self.inner.request_timeout
                },
                delivery: if connect {
                    Delivery::NotSent
                } else {
                    Delivery::MaybeSent
                },
            };
        }
        let source: crate::BoxError = Box::new(error.without_url());
        if connect {
            Error::Connect {
                url: url.clone(),
                source,
            }
        } else {
            Error::Transport {
                method: method.clone(),
                url: url.clone(),
                source,
            }
        }
    }
}

fn retryable_status(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 502 | 503 | 504)
}

fn retryable_error(error: &Error) -> bool {
    matches!(
        error,
        Error::Connect { .. } | Error::Transport { .. } | Error::Timeout { .. }
    )
}

/// The server's `Retry-After` in seconds, when it gave one.
fn retry_after(response: &Response) -> Option<Duration> {
    response
        .headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    // Issue 33, D5: a pooled connection idle for 90 s (hyper's default) to a controller that died
    // meanwhile cost a whole request timeout before the client failed over; 30 s bounds that,
    // and TCP keepalive closes such a connection after 25 s of idle time
    // (`tests/keepalive.rs` checks the socket).
    #[test]
    fn idle_pooled_connections_are_kept_30_seconds() {
        assert_eq!(
            ClientBuilder::default().pool_idle_timeout,
            Duration::from_secs(30)
        );
        let keepalive_closes_after =
            TCP_KEEPALIVE_IDLE + TCP_KEEPALIVE_INTERVAL * TCP_KEEPALIVE_PROBES;
        assert!(keepalive_closes_after < DEFAULT_POOL_IDLE_TIMEOUT);
    }
}
