//! The controller list, the client builder and the client with its fail-over.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cpps_http::env::Lookup;
use cpps_http::{Delivery, HttpClient, Request, Response, RetryPolicy, SecretString, Url};
use serde::de::DeserializeOwned;

use crate::auth::Credentials;
use crate::envelope::{LinstorEnvelope, decode_write};
use crate::error::Error;
use crate::plan::Plan;
use crate::types::misc::{ControllerProperties, ControllerVersion};
use crate::types::rc::ApiCallRcList;

/// The controller's plain HTTP port.
pub const DEFAULT_HTTP_PORT: u16 = 3370;
/// The controller's HTTPS port.
pub const DEFAULT_HTTPS_PORT: u16 = 3371;

// The environment variables [`ClientBuilder::from_env`] reads, as golinstor names them
// (`client/client.go`: `ControllerUrlEnv`, `UsernameEnv`, …).
/// Comma-separated controllers (default `localhost`).
pub const ENV_CONTROLLERS: &str = "LS_CONTROLLERS";
/// User name for HTTP Basic authentication.
pub const ENV_USERNAME: &str = "LS_USERNAME";
/// Password for HTTP Basic authentication.
pub const ENV_PASSWORD: &str = "LS_PASSWORD";
/// Path of a file holding the bearer token (raw, or JSON `{"token": "…"}`).
pub const ENV_BEARER_TOKEN_FILE: &str = "LS_BEARER_TOKEN_FILE";
/// The CA certificates of the controllers' HTTPS, as PEM text.
pub const ENV_ROOT_CA: &str = "LS_ROOT_CA";
/// The path of a PEM file with the CA certificates.
pub const ENV_ROOT_CA_FILE: &str = "LS_ROOT_CA_FILE";
/// The client certificate, as PEM text.
pub const ENV_USER_CERTIFICATE: &str = "LS_USER_CERTIFICATE";
/// The path of the client certificate's PEM file.
pub const ENV_USER_CERTIFICATE_FILE: &str = "LS_USER_CERTIFICATE_FILE";
/// The client certificate's private key, as PEM text.
pub const ENV_USER_KEY: &str = "LS_USER_KEY";
/// The path of the private key's PEM file.
pub const ENV_USER_KEY_FILE: &str = "LS_USER_KEY_FILE";
/// The variables whose presence makes entries without a scheme use https (golinstor's
/// `defaultScheme`).
pub const ENV_TLS: [&str; 6] = [
    ENV_ROOT_CA,
    ENV_ROOT_CA_FILE,
    ENV_USER_CERTIFICATE,
    ENV_USER_CERTIFICATE_FILE,
    ENV_USER_KEY,
    ENV_USER_KEY_FILE,
];

/// The LINSTOR controllers to talk to, in order of preference.
///
/// Parsed like `LS_CONTROLLERS` (golinstor `client/client.go` `parseBaseURL`, python-linstor
/// `linstor/linstorapi.py` `controller_uri_list`): a comma-separated list whose empty entries are
/// skipped and whose entries are `host`, `host:port`, `[v6]:port`, or a URL with scheme `http`,
/// `https`, `linstor` (= `http`) or `linstor+ssl` (= `https`). Without a port, `http` uses 3370
/// and `https` 3371; without a scheme, `http` is used unless TLS material was configured.
///
/// What golinstor's URL parser (Go's `net/url`) refuses is refused here too, naming the entry:
/// more than one `://`, an unknown scheme, a port that is not a number, and a host holding a
/// character that cannot be in a host name (a backslash, a space, a control character). A path
/// other than `/`, a query, a fragment or a user name is refused as well: golinstor would drop
/// or misuse them silently.
///
/// One difference: an entry without a scheme that starts with a digit or `[` and has a port,
/// such as `10.0.0.1:3370` or `[::1]:3370`, is accepted as python-linstor and linstor-client
/// accept it (`controller_uri_list` prefixes `linstor://`), where golinstor refuses it (Go's
/// `net/url`: "first path segment in URL cannot contain colon"). Tools built on golinstor
/// (linstor-csi, …) need `http://10.0.0.1:3370` for the same controller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerList(Vec<Url>);

impl ControllerList {
    /// Parses a list; entries without a scheme get `https` when `default_https` is set.
    pub fn parse(list: &str, default_https: bool) -> Result<Self, Error> {
        let urls = list
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| parse_controller(entry, default_https))
            .collect::<Result<Vec<_>, _>>()?;
        if urls.is_empty() {
            return Err(Error::InvalidController {
                entry: list.to_owned(),
                reason: "the list names no controller".to_owned(),
            });
        }
        Ok(ControllerList(urls))
    }

    /// One controller URL, taken as is (it must be an `http` or `https` URL).
    pub fn single(url: Url) -> Result<Self, Error> {
        Self::parse(url.as_str(), false)
    }

    /// The controllers' base URLs.
    pub fn urls(&self) -> &[Url] {
        &self.0
    }
}

/// Whether `c` may appear in a host name as Go's `net/url` accepts it (`shouldEscape` in
/// `encodeHost` mode): letters, digits and `-._~`; `%` starts an escape. The sub-delimiters Go
/// also lets through (`!$&'()*+,;=<>"`) can be in no resolvable host name and are refused.
fn is_host_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '%')
}

/// The entry as an error may show it: a user name and password before `@` are left out.
fn shown_entry(entry: &str) -> String {
    match entry.rsplit_once('@') {
        Some((before, after)) => match before.split_once("://") {
            Some((scheme, _)) => format!("{scheme}://[user info]@{after}"),
            None => format!("[user info]@{after}"),
        },
        None => entry.to_owned(),
    }
}

fn parse_controller(entry: &str, default_https: bool) -> Result<Url, Error> {
    let fail = |reason: &str| Error::InvalidController {
        entry: shown_entry(entry),
        reason: reason.to_owned(),
    };
    if let Some(c) = entry.chars().find(|c| c.is_control()) {
        // Go's `net/url`: "invalid control character in URL".
        return Err(fail(&format!(
            "control character {:?} in the entry",
            c.escape_default().to_string()
        )));
    }
    let parts: Vec<&str> = entry.split("://").collect();
    let (scheme, rest) = match parts.as_slice() {
        [rest] => (if default_https { "https" } else { "http" }, *rest),
        [scheme, rest] => {
            let scheme = match scheme.to_ascii_lowercase().as_str() {
                "http" | "linstor" => "http",
                "https" | "linstor+ssl" => "https",
                _ => {
                    return Err(fail(
                        "unknown scheme; use http, https, linstor or linstor+ssl",
                    ));
                }
            };
            (scheme, *rest)
        }
        _ => return Err(fail("more than one `://`")),
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if authority.contains(['/', '?', '#', '@']) {
        return Err(fail(
            "give only a host and a port (no path, query or user name)",
        ));
    }
    let (host, port) = if let Some(after_bracket) = authority.strip_prefix('[') {
        let (v6, tail) = after_bracket
            .split_once(']')
            .ok_or_else(|| fail("unterminated IPv6 address"))?;
        if v6.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(fail(&format!("`[{v6}]` is not an IPv6 address")));
        }
        let port = match tail {
            "" => None,
            tail => Some(
                tail.strip_prefix(':')
                    .ok_or_else(|| fail("unexpected text after the IPv6 address"))?,
            ),
        };
        (format!("[{v6}]"), port)
    } else {
        let mut pieces = authority.split(':');
        let host = pieces.next().unwrap_or_default().to_owned();
        let port = pieces.next();
        if pieces.next().is_some() {
            return Err(fail("more than one port"));
        }
        if let Some(bad) = host.chars().find(|c| !is_host_char(*c)) {
            // Go's `net/url` refuses these with "invalid character … in host name"; the WHATWG
            // parser of the `url` crate would instead read a backslash as a path separator and
            // build `http://pve-ippri-11/:3370/` out of `pve-ippri-11\`.
            return Err(fail(&format!("invalid character `{bad}` in the host name")));
        }
        (host, port)
    };
    if host.is_empty() {
        return Err(fail("no host"));
    }
    let port: u16 = match port {
        // Go's `validOptionalPort` accepts an empty port (`host:`); golinstor then adds the
        // default one.
        None | Some("") => {
            if scheme == "https" {
                DEFAULT_HTTPS_PORT
            } else {
                DEFAULT_HTTP_PORT
            }
        }
        Some(port) => port.parse().ok().filter(|p| *p != 0).ok_or_else(|| {
            fail(&format!(
                "the port `{port}` is not a number from 1 to 65535"
            ))
        })?,
    };
    let url: Url = format!("{scheme}://{host}:{port}/")
        .parse()
        .map_err(|e| fail(&format!("not a valid host: {e}")))?;
    if url.host_str().is_none() || url.path() != "/" {
        return Err(fail("not a valid host"));
    }
    Ok(url)
}

#[derive(Clone)]
enum Controllers {
    Text(String),
    List(ControllerList),
}

impl std::fmt::Debug for Controllers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // A list not parsed yet may hold a user name and password (`http://u:p@host`), which
            // the parser refuses; until then it is not shown.
            Controllers::Text(text) if text.contains('@') => {
                f.write_str("Text([holds user info, not shown])")
            }
            Controllers::Text(text) => f.debug_tuple("Text").field(text).finish(),
            Controllers::List(list) => f.debug_tuple("List").field(list).finish(),
        }
    }
}

/// Configures and builds a [`Client`].
///
/// The transport settings (`tls`, `client_identity`, `connect_timeout`, `request_timeout`,
/// `deadline`, `max_response_bytes`, `retry`, `user_agent`, pool settings, `http_settings`) are
/// the ones of every cpps client. LINSTOR's defaults: connect 5 s, one attempt 30 s, one call on
/// one controller 60 s, two attempts per controller (fail-over to the next controller is the main
/// retry).
#[derive(Debug)]
#[must_use]
pub struct ClientBuilder {
    http: cpps_http::ClientBuilder,
    controllers: Controllers,
    default_https: bool,
    credentials: Credentials,
    resources_view_max_response_bytes: usize,
}

/// The default response-size cap of the unpaged resources view
/// ([`ClientBuilder::resources_view_max_response_bytes`]): 128 MiB, room for ten times a
/// 3,000-replica estate at the 2 to 3 KiB a replica takes in linstor-server's answer.
pub const DEFAULT_RESOURCES_VIEW_MAX_RESPONSE_BYTES: usize = 128 << 20;

impl ClientBuilder {
    cpps_http::forward_http_settings!();

    fn new(controllers: Controllers) -> Self {
        ClientBuilder {
            http: cpps_http::ClientBuilder::default()
                .connect_timeout(Duration::from_secs(5))
                .request_timeout(Duration::from_secs(30))
                .deadline(Duration::from_secs(60))
                .retry(RetryPolicy {
                    max_attempts: 2,
                    initial_backoff: Duration::from_millis(100),
                    max_backoff: Duration::from_secs(2),
                }),
            controllers,
            default_https: false,
            credentials: Credentials::None,
            resources_view_max_response_bytes: DEFAULT_RESOURCES_VIEW_MAX_RESPONSE_BYTES,
        }
    }

    /// The response-size cap of the one unpaged read of `GET /v1/view/resources`
    /// ([`Client::resources_view`], default [`DEFAULT_RESOURCES_VIEW_MAX_RESPONSE_BYTES`]), in
    /// place of `max_response_bytes` for that read only: the view is read whole because every
    /// request to it, a page or not, makes the controller ask every satellite.
    pub fn resources_view_max_response_bytes(mut self, bytes: usize) -> Self {
        self.resources_view_max_response_bytes = bytes;
        self
    }

    /// Reads the variables golinstor reads (`client/client.go`, `NewClient` and
    /// `buildHttpClient`), through `lookup`:
    ///
    /// | variable | meaning |
    /// | --- | --- |
    /// | `LS_CONTROLLERS` | the controllers ([`ControllerList`]; default `localhost`) |
    /// | `LS_USERNAME`, `LS_PASSWORD` | HTTP Basic authentication (sent when the user name is set) |
    /// | `LS_BEARER_TOKEN_FILE` | a file holding a bearer token, raw or as JSON `{"token": …}`; it wins over Basic, as in golinstor |
    /// | `LS_ROOT_CA` / `LS_ROOT_CA_FILE` | the CA certificates: PEM text / the path of a PEM file |
    /// | `LS_USER_CERTIFICATE` / `LS_USER_CERTIFICATE_FILE` | the client certificate: PEM text / path |
    /// | `LS_USER_KEY` / `LS_USER_KEY_FILE` | its private key: PEM text / path |
    ///
    /// The PEM variables hold the certificates themselves, the `_FILE` ones a path (golinstor
    /// `buildHttpClient`). With any TLS variable set, entries of `LS_CONTROLLERS` without a
    /// scheme use https (golinstor `defaultScheme`). A certificate without a key, or a key
    /// without a certificate, is an error; so is setting both the text and the file form of one
    /// thing (golinstor silently prefers the file): the error names both variables.
    ///
    /// It is [`crate::Config::from_env`] then [`ClientBuilder::from_config`]: the one path
    /// from settings to a client.
    pub fn from_env(lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        ClientBuilder::from_config(&crate::Config::from_env(lookup)?, lookup)
    }

    /// The controllers, already parsed.
    pub fn controllers(mut self, controllers: ControllerList) -> Self {
        self.controllers = Controllers::List(controllers);
        self
    }

    /// The controllers as an `LS_CONTROLLERS`-style list, parsed when the client is built.
    pub fn controllers_text(mut self, list: impl Into<String>) -> Self {
        self.controllers = Controllers::Text(list.into());
        self
    }

    /// Whether entries of a controllers text without a scheme use https (default: only when
    /// [`from_env`](Self::from_env) saw a TLS variable, as golinstor does).
    pub fn default_https(mut self, https: bool) -> Self {
        self.default_https = https;
        self
    }

    /// Credentials sent with every request.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = credentials;
        self
    }

    /// Builds the client: one connection pool per controller.
    pub fn build(self) -> Result<Client, Error> {
        let controllers = match self.controllers {
            Controllers::List(list) => list,
            Controllers::Text(text) => ControllerList::parse(&text, self.default_https)?,
        };
        let auth = self.credentials.to_auth();
        let mut endpoints = Vec::with_capacity(controllers.0.len());
        for url in controllers.0 {
            let mut http = self.http.clone().base_url(url.clone()).build()?;
            if let Some(auth) = &auth {
                http = http.with_auth(auth.clone());
            }
            endpoints.push(Endpoint { url, http });
        }
        Ok(Client {
            inner: Arc::new(Inner {
                endpoints,
                active: AtomicUsize::new(0),
                resources_view_max_response_bytes: self.resources_view_max_response_bytes,
            }),
        })
    }
}

/// Reads a bearer token file as golinstor's `tokenFromFile` does: the `token` member of a JSON
/// object, or else the whole content, trimmed.
pub(crate) fn token_from_file(path: &str) -> Result<SecretString, Error> {
    let content = std::fs::read_to_string(path).map_err(|e| Error::InvalidArgument {
        name: ENV_BEARER_TOKEN_FILE,
        reason: format!("cannot read {path}: {e}"),
    })?;
    if let Ok(serde_json::Value::Object(map)) = serde_json::from_str(&content)
        && let Some(serde_json::Value::String(token)) = map.get("token")
    {
        return Ok(SecretString::from(token.clone()));
    }
    Ok(SecretString::from(content.trim().to_owned()))
}

#[derive(Debug)]
struct Endpoint {
    url: Url,
    http: HttpClient,
}

#[derive(Debug)]
struct Inner {
    endpoints: Vec<Endpoint>,
    active: AtomicUsize,
    resources_view_max_response_bytes: usize,
}

/// A LINSTOR controller client: cheap to clone, clones share the connection pools.
///
/// Calls go to the controller that answered last. When a request got no answer from it, the
/// next controller of the list is tried, and the one that answers becomes the active one, as
/// golinstor does on any network error (`client/client.go`, `retry` and
/// `findRespondingController`):
///
/// - a read (an idempotent request) moves on after any error that came with no answer: refused,
///   DNS, TLS handshake, a connect timeout (a powered-off host or a cut-off site drops the
///   SYNs), and also a connection that broke or timed out after the request was written, such
///   as a pooled keep-alive connection to a controller that has since died or hung. When the
///   active controller took the request and gave no answer, it is asked once more at the end,
///   since it may only have been slow (golinstor resends to the first controller that accepts
///   a connection, which may be the same one);
/// - a write moves on only when it certainly was not sent ([`Delivery::NotSent`]); once it may
///   have reached a controller it is never sent to another one.
///
/// In one pass over the list, every controller but the last is asked once, so that a silent
/// controller costs one timeout, not one per retry; the last one gets the retry policy, and so
/// does a controller that answered with 429, 502, 503 or 504. cpps-http's TCP keepalive and
/// pool idle time close pooled connections to a dead controller while they are idle.
///
/// ```no_run
/// # async fn run() -> Result<(), cpps_linstor::Error> {
/// let linstor = cpps_linstor::Client::from_env()?;
/// for node in linstor.nodes().await? {
///     println!("{} {:?}", node.name, node.connection_status);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

impl Client {
    /// The cap of [`Client::resources_view`]
    /// ([`ClientBuilder::resources_view_max_response_bytes`]).
    pub(crate) fn resources_view_max_response_bytes(&self) -> usize {
        self.inner.resources_view_max_response_bytes
    }

    /// A builder for these controllers, an `LS_CONTROLLERS`-style list
    /// (`"linstor+ssl://10.10.20.1,pve-ippri-11"`), parsed when the client is built.
    pub fn builder(controllers: impl Into<String>) -> ClientBuilder {
        ClientBuilder::new(Controllers::Text(controllers.into()))
    }

    /// A client configured from the process environment; see [`ClientBuilder::from_env`].
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env(&cpps_http::env::process_env)?.build()
    }

    /// The controllers' base URLs, in order.
    pub fn controllers(&self) -> Vec<&Url> {
        self.inner.endpoints.iter().map(|e| &e.url).collect()
    }

    /// The controller calls go to now.
    pub fn active_controller(&self) -> &Url {
        let index = self.inner.active.load(Ordering::Relaxed) % self.inner.endpoints.len();
        &self.inner.endpoints[index].url
    }

    /// Makes the first controller whose URL host is one of `hosts` (node names or addresses,
    /// compared without regard to case) the one calls go to first, as if it had answered last;
    /// fail-over still moves on from it. Returns its URL, or `None` (nothing changed) when no
    /// controller matches. [`crate::ha::active_controller`] says which node runs the active
    /// controller of a drbd-reactor HA pair.
    pub fn prefer_controller(&self, hosts: &[&str]) -> Option<&Url> {
        let index = self.inner.endpoints.iter().position(|e| {
            e.url.host_str().is_some_and(|host| {
                let host = host.trim_start_matches('[').trim_end_matches(']');
                hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
            })
        })?;
        self.inner.active.store(index, Ordering::Relaxed);
        Some(&self.inner.endpoints[index].url)
    }

    /// Asks every controller of the list at once, each directly and once (no fail-over, no
    /// retries): `GET /v1/controller/version`, then, of one that answered,
    /// `GET /v1/controller/properties`. Returns each URL with its answers, in list order.
    pub(crate) async fn ask_each_controller(
        &self,
    ) -> Vec<(
        Url,
        Result<ControllerVersion, Error>,
        Option<ControllerProperties>,
    )> {
        let asks = self.inner.endpoints.iter().map(|e| async move {
            let get = |path: &'static str| Request::get(path).idempotent(false);
            let version = e
                .http
                .send(&LinstorEnvelope, get("v1/controller/version"))
                .await;
            let properties = match version {
                Ok(_) => e
                    .http
                    .send(&LinstorEnvelope, get("v1/controller/properties"))
                    .await
                    .ok(),
                Err(_) => None,
            };
            (e.url.clone(), version, properties)
        });
        futures::future::join_all(asks).await
    }

    /// Makes the controller with exactly this URL the one calls go to first; `false` when the
    /// list holds no such URL.
    pub(crate) fn prefer_url(&self, url: &Url) -> bool {
        match self.inner.endpoints.iter().position(|e| &e.url == url) {
            Some(index) => {
                self.inner.active.store(index, Ordering::Relaxed);
                true
            }
            None => false,
        }
    }

    /// What the client is waiting for, across its controllers: the requests in flight and the
    /// last few that got no answer ([`cpps_http::ActivitySnapshot`]), for a caller whose own
    /// time limit ran out to name them.
    pub fn activity(&self) -> cpps_http::ActivitySnapshot {
        // The controllers' clients come from clones of one builder, so they share one record.
        self.inner.endpoints[0].http.activity().snapshot()
    }

    /// Sends `request` through `call` to the active controller, failing over as described on
    /// [`Client`].
    async fn fail_over<R, F, Fut>(&self, request: Request, call: F) -> Result<R, Error>
    where
        F: Fn(HttpClient, Request) -> Fut,
        Fut: Future<Output = Result<R, Error>>,
    {
        let count = self.inner.endpoints.len();
        let start = self.inner.active.load(Ordering::Relaxed) % count;
        let read = request.is_idempotent();
        // (controller, whether it gets the retry policy): one pass over the list from the
        // active controller, the last one with the retry policy.
        let mut plan: Vec<(usize, bool)> = (0..count)
            .map(|step| ((start + step) % count, step + 1 == count))
            .collect();
        let mut tried = Vec::with_capacity(count + 1);
        let mut last: Option<cpps_http::Error> = None;
        let mut step = 0;
        while let Some(&(index, with_retries)) = plan.get(step) {
            step += 1;
            let endpoint = &self.inner.endpoints[index];
            let once = if with_retries {
                request.clone()
            } else {
                request.clone().idempotent(false)
            };
            let mut outcome = call(endpoint.http.clone(), once).await;
            match outcome {
                Err(Error::Http(e)) if not_sent(&e) || (read && unanswered(&e)) => {
                    tracing::warn!(controller = %endpoint.url, error = %e, "LINSTOR controller did not answer");
                    tried.push(endpoint.url.to_string());
                    // golinstor's `findRespondingController` may pick the controller that
                    // failed again: one that accepted the read may only have been slow.
                    if read && step == 1 && count > 1 && e.delivery() == Delivery::MaybeSent {
                        plan.push((start, false));
                    }
                    last = Some(more_telling(last, e));
                    continue;
                }
                Err(ref e) if !with_retries && read && worth_retrying(e) => {
                    // The controller answered: give it the retries it would have had alone.
                    outcome = call(endpoint.http.clone(), request.clone()).await;
                }
                _ => {}
            }
            if index != start {
                tracing::info!(controller = %endpoint.url, "failed over to another LINSTOR controller");
            }
            self.inner.active.store(index, Ordering::Relaxed);
            return outcome;
        }
        match last {
            Some(last) => Err(Error::NoControllerReachable { tried, last }),
            // `count` is at least one, so the loop ran and either returned or set `last`.
            None => Err(Error::InvalidController {
                entry: String::new(),
                reason: "no controller configured".to_owned(),
            }),
        }
    }

    /// Sends a request to the active controller, failing over when it cannot be reached.
    /// Returns the answer whatever its status; use [`Client::get_json`] and [`Client::apply`]
    /// for decoded answers.
    pub async fn execute(&self, request: Request) -> Result<Response, Error> {
        Box::pin(self.fail_over(request, |http, request| async move {
            http.execute(request).await.map_err(Error::from)
        }))
        .await
    }

    /// Sends a read and decodes the answer as `T` through [`LinstorEnvelope`] (with
    /// [`HttpClient::send`]); any other answer becomes a typed error.
    pub async fn get_json<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        // Boxed: the fail-over state machine is large, and `cluster_state` joins five reads.
        Box::pin(self.fail_over(request, |http, request| async move {
            http.send(&LinstorEnvelope, request).await
        }))
        .await
    }

    /// `GET PATH?FILTER=NAME` of a list endpoint, and its entry named `name` (`None` when the
    /// controller does not know it): the published spec has no single-object `GET` for these.
    pub(crate) async fn get_named<T: DeserializeOwned>(
        &self,
        path: &str,
        filter: &str,
        name: &str,
        name_of: fn(&T) -> &str,
    ) -> Result<Option<T>, Error> {
        let list: Vec<T> = self
            .get_json(Request::get(path).query(filter, name))
            .await?;
        Ok(list.into_iter().find(|entry| name_of(entry) == name))
    }

    /// Sends the request a [`Plan`] describes and returns LINSTOR's messages, warnings included.
    ///
    /// An answer holding an error message is an [`Error::Api`] even with a 2xx status.
    pub async fn apply(&self, plan: &Plan) -> Result<ApiCallRcList, Error> {
        let messages = Box::pin(
            self.fail_over(plan.to_request()?, |http, request| async move {
                decode_write(http.execute(request).await?)
            }),
        )
        .await?;
        for warning in messages.warnings() {
            tracing::warn!(ret_code = warning.ret_code, message = %warning.message, "LINSTOR warning");
        }
        Ok(messages)
    }

    /// Applies plans in order, stopping at the first error; returns each plan's messages.
    pub async fn apply_all(&self, plans: &[Plan]) -> Result<Vec<ApiCallRcList>, Error> {
        let mut answers = Vec::with_capacity(plans.len());
        for plan in plans {
            answers.push(self.apply(plan).await?);
        }
        Ok(answers)
    }
}

/// Whether the request certainly never reached the controller, so that the next one may get it.
/// A request that cannot even be formed (`Config`) would fail the same way everywhere.
fn not_sent(error: &cpps_http::Error) -> bool {
    error.delivery() == Delivery::NotSent && !matches!(error, cpps_http::Error::Config { .. })
}

/// Whether the request got no answer at all: a connection that failed or was refused, or a
/// timeout before an answer came. A read that got none moves to the next controller, as
/// golinstor's `retry` does on any `net.Error` (`client/client.go`).
fn unanswered(error: &cpps_http::Error) -> bool {
    matches!(
        error,
        cpps_http::Error::Connect { .. }
            | cpps_http::Error::Transport { .. }
            | cpps_http::Error::Timeout { .. }
            | cpps_http::Error::Deadline { .. }
    )
}

/// The error to report when no controller answered: the newest one, unless an older one may
/// have been sent and the newest certainly was not, so that [`Error::delivery`] stays true.
fn more_telling(kept: Option<cpps_http::Error>, newest: cpps_http::Error) -> cpps_http::Error {
    match kept {
        Some(kept)
            if kept.delivery() == Delivery::MaybeSent && newest.delivery() == Delivery::NotSent =>
        {
            kept
        }
        _ => newest,
    }
}

/// What cpps-http retries on one server: answers 429/502/503/504 and failures after sending.
fn worth_retrying(error: &Error) -> bool {
    error.delivery() == Delivery::MaybeSent
        || error
            .status()
            .is_some_and(|s| matches!(s.as_u16(), 429 | 502 | 503 | 504))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(entry: &str, https: bool) -> String {
        ControllerList::parse(entry, https).unwrap().urls()[0].to_string()
    }

    fn reason(entry: &str) -> String {
        match ControllerList::parse(entry, false) {
            Err(Error::InvalidController {
                entry: named,
                reason,
            }) => {
                assert_eq!(named, entry.trim(), "the error names the bad entry");
                reason
            }
            other => panic!("`{entry}` should be refused, got {other:?}"),
        }
    }

    // The accepted forms and their URLs are golinstor's `TestNewClient_ViaEnv`
    // (client/client_test.go); `10.10.20.1:3370` is accepted as python-linstor does (see
    // `an_address_with_a_port_and_no_scheme_is_accepted_and_documented`).
    #[test]
    fn controller_entries_follow_golinstor() {
        for (entry, https, url) in [
            ("just.domain", false, "http://just.domain:3370/"),
            ("linstor://just.domain", false, "http://just.domain:3370/"),
            (
                "linstor+ssl://just.domain",
                false,
                "https://just.domain:3371/",
            ),
            ("just.domain:4000", false, "http://just.domain:4000/"),
            ("http://just.domain", false, "http://just.domain:3370/"),
            ("https://just.domain", false, "https://just.domain:3371/"),
            (
                "http://[fe80::5054:ff:fe00:a]:3370",
                false,
                "http://[fe80::5054:ff:fe00:a]:3370/",
            ),
            ("just.domain", true, "https://just.domain:3371/"),
            ("just.domain:4000", true, "https://just.domain:4000/"),
            ("[::1]:3370", false, "http://[::1]:3370/"),
            ("10.10.20.1:3370", false, "http://10.10.20.1:3370/"),
            ("http://10.10.20.1:80", false, "http://10.10.20.1/"),
            ("pve-ippri-11:", false, "http://pve-ippri-11:3370/"),
        ] {
            assert_eq!(one(entry, https), url, "`{entry}` (https {https})");
        }
        let list = ControllerList::parse("a, linstor+ssl://b ,c:1,,", false).unwrap();
        let urls: Vec<String> = list.urls().iter().map(Url::to_string).collect();
        assert_eq!(urls, ["http://a:3370/", "https://b:3371/", "http://c:1/"]);
    }

    // Issue 16, defect 6: `pve-ippri-11\` became `http://pve-ippri-11/:3370/` (the WHATWG parser
    // reads `\` as `/`). Go's `net/url`, which golinstor's `parseBaseURL` uses, refuses a host
    // with a character outside its host alphabet ("invalid character … in host name"), a port
    // that is not a number ("invalid port") and control characters; the entry is named.
    #[test]
    fn controller_garbage_is_refused_naming_the_entry() {
        for (entry, says) in [
            ("pve-ippri-11\\", "invalid character `\\`"),
            ("pve ippri 11", "invalid character ` `"),
            ("http://pve-ippri-11\\:3370", "invalid character"),
            ("pve-ippri-11:33x0", "the port `33x0`"),
            ("pve-ippri-11:0", "the port `0`"),
            ("pve-ippri-11:99999", "the port `99999`"),
            ("pve\u{7}ippri", "control character"),
            ("https://http://just.domain:4000", "more than one `://`"),
            ("https://just.domain:4000:5000", "more than one port"),
            ("ftp://x", "unknown scheme"),
            ("http://x/v1", "no path"),
            ("[fe80::zz]:3370", "not an IPv6 address"),
            ("http://:3370", "no host"),
        ] {
            let reason = reason(entry);
            assert!(reason.contains(says), "`{entry}`: {reason}");
        }
        assert!(
            ControllerList::parse("http://admin@x", false)
                .unwrap_err()
                .to_string()
                .contains("user name")
        );
        let err = ControllerList::parse("pve-ippri-11, pve-ippri-12\\", false).unwrap_err();
        assert!(
            err.to_string().contains("`pve-ippri-12\\`"),
            "the bad entry of a list is named: {err}"
        );
        assert!(ControllerList::parse(" , ", false).is_err());
    }

    // Issue 33: `10.0.0.1:3370` is where this parser and golinstor's part. Go's `net/url`
    // (`getScheme`: a scheme cannot start with a digit or `[`, so the entry is a path; then
    // `parse`: "first path segment in URL cannot contain colon") refuses it, and golinstor's
    // `NewClient` fails with "failed to parse controller URLs". python-linstor's
    // `controller_uri_list` (linstor/linstorapi.py, whose docstring converts "a simple
    // '10.0.0.1,10.0.0.2' ip/host list") prefixes `linstor://` and accepts it, and so does
    // linstor-client, which reads the same `LS_CONTROLLERS`. It is accepted here, and the crate
    // docs and the README's variables table say that golinstor refuses it.
    #[test]
    fn an_address_with_a_port_and_no_scheme_is_accepted_and_documented() {
        assert_eq!(one("10.0.0.1:3370", false), "http://10.0.0.1:3370/");
        assert_eq!(one("[::1]:3370", true), "https://[::1]:3370/");
        // This module's code, without these tests (which name what they look for).
        let own = include_str!("client.rs");
        let own_docs = own.split("#[cfg(test)]").next().unwrap_or(own);
        for (file, text) in [
            ("cpps-linstor/src/lib.rs", include_str!("lib.rs")),
            ("cpps-linstor/src/client.rs", own_docs),
            ("README.md", include_str!("../../README.md")),
        ] {
            assert!(
                text.contains("`10.0.0.1:3370`") && text.contains("golinstor refuses"),
                "{file} does not say that golinstor refuses `10.0.0.1:3370`"
            );
        }
    }

    #[test]
    fn a_builder_never_shows_user_info_of_its_controllers() {
        let builder = Client::builder("http://admin:hunter2@pve-ippri-11");
        let shown = format!("{builder:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        let err = builder.build().unwrap_err().to_string();
        assert!(err.contains("user name"), "{err}");
        assert!(err.contains("`http://[user info]@pve-ippri-11`"), "{err}");
        assert!(!err.contains("hunter2"), "{err}");
    }
}
