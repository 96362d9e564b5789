//! The controller list, the client builder and the client with its fail-over.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cpps_http::{
    ClientIdentity, HttpClient, Request, Response, RetryPolicy, SecretString, TlsMode, Url,
};
use serde::de::DeserializeOwned;

use crate::auth::Credentials;
use crate::error::Error;
use crate::plan::Plan;
use crate::types::rc::{ApiCallRcList, decode_error_body};

/// The controller's plain HTTP port.
pub const DEFAULT_HTTP_PORT: u16 = 3370;
/// The controller's HTTPS port.
pub const DEFAULT_HTTPS_PORT: u16 = 3371;

/// The LINSTOR controllers to talk to, in order of preference.
///
/// Parsed like golinstor and python-linstor parse `LS_CONTROLLERS`: a comma-separated list whose
/// entries are `host`, `host:port`, `[v6]:port`, or a URL with scheme `http`, `https`, `linstor`
/// (= `http`) or `linstor+ssl` (= `https`). Without a port, `http` uses 3370 and `https` 3371;
/// without a scheme, `http` is used unless TLS material was configured (golinstor switches to
/// `https` when `LS_ROOT_CA` or a client certificate is set). More than one `://` or more than one
/// port is an error, as in golinstor.
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

fn parse_controller(entry: &str, default_https: bool) -> Result<Url, Error> {
    let fail = |reason: &str| Error::InvalidController {
        entry: entry.to_owned(),
        reason: reason.to_owned(),
    };
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
        (host, port)
    };
    if host.is_empty() || host == "[]" {
        return Err(fail("no host"));
    }
    let port: u16 = match port {
        None => {
            if scheme == "https" {
                DEFAULT_HTTPS_PORT
            } else {
                DEFAULT_HTTP_PORT
            }
        }
        Some(port) => port
            .parse()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| fail("the port is not a number from 1 to 65535"))?,
    };
    format!("{scheme}://{host}:{port}/")
        .parse::<Url>()
        .map_err(|e| fail(&format!("not a valid host: {e}")))
}

/// Configures and builds a [`Client`].
#[must_use]
pub struct ClientBuilder {
    controllers: Option<ControllerList>,
    controllers_text: Option<String>,
    credentials: Credentials,
    tls: Option<TlsMode>,
    identity: Option<ClientIdentity>,
    connect_timeout: Duration,
    request_timeout: Duration,
    deadline: Duration,
    retry: Option<RetryPolicy>,
    user_agent: Option<String>,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("controllers", &self.controllers)
            .field("controllers_text", &self.controllers_text)
            .field("credentials", &self.credentials)
            .field("tls", &self.tls)
            .field("identity", &self.identity)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("deadline", &self.deadline)
            .field("retry", &self.retry)
            .finish()
    }
}

impl ClientBuilder {
    fn empty() -> Self {
        ClientBuilder {
            controllers: None,
            controllers_text: None,
            credentials: Credentials::None,
            tls: None,
            identity: None,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            retry: None,
            user_agent: None,
        }
    }

    /// Reads the configuration golinstor reads: `LS_CONTROLLERS` (default `localhost`),
    /// `LS_USERNAME` + `LS_PASSWORD` (Basic auth), `LS_BEARER_TOKEN`, `LS_ROOT_CA` (PEM text of
    /// the CA), and `LS_USER_CERTIFICATE` + `LS_USER_KEY` (PEM text of a client certificate and
    /// its key). With `LS_ROOT_CA` or a client certificate, entries without a scheme use https.
    pub fn from_env() -> Result<Self, Error> {
        let get = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        let mut builder = ClientBuilder::empty();
        builder.controllers_text =
            Some(get("LS_CONTROLLERS").unwrap_or_else(|| "localhost".to_owned()));
        match (
            get("LS_USERNAME"),
            get("LS_PASSWORD"),
            get("LS_BEARER_TOKEN"),
        ) {
            (Some(_), _, Some(_)) => {
                return Err(Error::InvalidArgument {
                    name: "LS_BEARER_TOKEN",
                    reason: "set either LS_USERNAME/LS_PASSWORD or LS_BEARER_TOKEN, not both"
                        .to_owned(),
                });
            }
            (Some(user), Some(password), None) => {
                builder.credentials = Credentials::basic(user, SecretString::from(password));
            }
            (Some(_), None, None) => {
                return Err(Error::InvalidArgument {
                    name: "LS_PASSWORD",
                    reason: "LS_USERNAME is set but LS_PASSWORD is not".to_owned(),
                });
            }
            (None, _, Some(token)) => {
                builder.credentials = Credentials::bearer(SecretString::from(token));
            }
            (None, _, None) => {}
        }
        if let Some(ca) = get("LS_ROOT_CA") {
            builder.tls = Some(TlsMode::CaPem(ca.into_bytes()));
        }
        match (get("LS_USER_CERTIFICATE"), get("LS_USER_KEY")) {
            (Some(cert), Some(key)) => {
                builder.identity = Some(ClientIdentity::from_pem(cert, key));
            }
            (None, None) => {}
            _ => {
                return Err(Error::InvalidArgument {
                    name: "LS_USER_CERTIFICATE",
                    reason: "LS_USER_CERTIFICATE and LS_USER_KEY must be set together".to_owned(),
                });
            }
        }
        Ok(builder)
    }

    /// The controllers, already parsed.
    pub fn controllers(mut self, controllers: ControllerList) -> Self {
        self.controllers = Some(controllers);
        self.controllers_text = None;
        self
    }

    /// The controllers as an `LS_CONTROLLERS`-style list, parsed when the client is built (so
    /// that the TLS settings can choose the default scheme).
    pub fn controllers_text(mut self, list: impl Into<String>) -> Self {
        self.controllers_text = Some(list.into());
        self.controllers = None;
        self
    }

    /// Credentials sent with every request.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = credentials;
        self
    }

    /// How the controllers' certificates are verified (default: system roots).
    pub fn tls(mut self, tls: TlsMode) -> Self {
        self.tls = Some(tls);
        self
    }

    /// A client certificate to present (LINSTOR's HTTPS with client authentication).
    pub fn client_identity(mut self, identity: ClientIdentity) -> Self {
        self.identity = Some(identity);
        self
    }

    /// Time allowed to connect to one controller (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Time allowed for one attempt (default 30 s).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Time allowed for one call on one controller, retries included (default 60 s).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Retry policy for reads on one controller (default: two attempts, 100 ms to 2 s apart;
    /// fail-over to the next controller is the main retry).
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = Some(retry);
        self
    }

    /// The `User-Agent` header.
    pub fn user_agent(mut self, user_agent: impl Into<String>) -> Self {
        self.user_agent = Some(user_agent.into());
        self
    }

    /// Builds the client: one connection pool per controller.
    pub fn build(self) -> Result<Client, Error> {
        let tls_configured = self.tls.is_some() || self.identity.is_some();
        let controllers = match (self.controllers, self.controllers_text) {
            (Some(list), _) => list,
            (None, Some(text)) => ControllerList::parse(&text, tls_configured)?,
            (None, None) => ControllerList::parse("localhost", tls_configured)?,
        };
        let auth = self.credentials.to_auth();
        let mut endpoints = Vec::with_capacity(controllers.0.len());
        for url in controllers.0 {
            let mut builder = HttpClient::builder(url.clone())
                .connect_timeout(self.connect_timeout)
                .request_timeout(self.request_timeout)
                .deadline(self.deadline);
            if let Some(tls) = &self.tls {
                builder = builder.tls(tls.clone());
            }
            if let Some(identity) = &self.identity {
                builder = builder.client_identity(identity.clone());
            }
            builder = builder.retry(self.retry.unwrap_or(RetryPolicy {
                max_attempts: 2,
                initial_backoff: Duration::from_millis(100),
                max_backoff: Duration::from_secs(2),
            }));
            if let Some(agent) = &self.user_agent {
                builder = builder.user_agent(agent.clone());
            }
            let mut http = builder.build()?;
            if let Some(auth) = &auth {
                http = http.with_auth(auth.clone());
            }
            endpoints.push(Endpoint { url, http });
        }
        Ok(Client {
            inner: Arc::new(Inner {
                endpoints,
                active: AtomicUsize::new(0),
            }),
        })
    }
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
}

/// A LINSTOR controller client: cheap to clone, clones share the connection pools.
///
/// Calls go to the controller that answered last; when it cannot be reached (connection refused,
/// DNS, TLS handshake: the request was not sent) the next controller of the list is tried, and
/// the one that answers becomes the active one. Errors after a request may have been sent are
/// never retried on another controller.
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
    /// A builder with no controllers set (they default to `localhost`).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::empty()
    }

    /// A builder configured from the environment; see [`ClientBuilder::from_env`].
    pub fn builder_from_env() -> Result<ClientBuilder, Error> {
        ClientBuilder::from_env()
    }

    /// A client configured from the environment; see [`ClientBuilder::from_env`].
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env()?.build()
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

    /// Sends a request to the active controller, failing over on connection errors. Returns the
    /// answer whatever its status; use [`Client::get_json`] and [`Client::apply`] for decoded
    /// answers.
    pub async fn execute(&self, request: Request) -> Result<Response, Error> {
        let count = self.inner.endpoints.len();
        let start = self.inner.active.load(Ordering::Relaxed) % count;
        let mut tried = Vec::with_capacity(count);
        let mut last = None;
        for step in 0..count {
            let index = (start + step) % count;
            let endpoint = &self.inner.endpoints[index];
            match endpoint.http.execute(request.clone()).await {
                Ok(response) => {
                    if index != start {
                        tracing::info!(controller = %endpoint.url, "failed over to another LINSTOR controller");
                    }
                    self.inner.active.store(index, Ordering::Relaxed);
                    return Ok(response);
                }
                Err(e) if e.is_connect() => {
                    tracing::warn!(controller = %endpoint.url, "LINSTOR controller unreachable");
                    tried.push(endpoint.url.to_string());
                    last = Some(e);
                }
                Err(e) => return Err(e.into()),
            }
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

    /// Sends a read and decodes the answer as `T`; any other answer becomes a typed error.
    pub async fn get_json<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        let response = check(self.execute(request).await?)?;
        Ok(response.json()?)
    }

    /// Sends the request a [`Plan`] describes and returns LINSTOR's messages, warnings included.
    ///
    /// An answer holding an error message is an [`Error::Api`] even with a 2xx status.
    pub async fn apply(&self, plan: &Plan) -> Result<ApiCallRcList, Error> {
        let response = check(self.execute(plan.to_request()?).await?)?;
        let messages = decode_write_body(&response)?;
        if messages.has_errors() {
            return Err(Error::Api {
                method: response.method().clone(),
                url: response.url().clone(),
                status: response.status(),
                messages,
            });
        }
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

/// Maps redirects and error statuses to typed errors.
fn check(response: Response) -> Result<Response, Error> {
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(cpps_http::HeaderName::from_static("location"))
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned();
        return Err(Error::Redirected {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            location,
        });
    }
    if status.is_success() {
        return Ok(response);
    }
    match decode_error_body(response.bytes()) {
        Some(messages) => Err(Error::Api {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            messages,
        }),
        None => Err(Error::Http(response.into_status_error())),
    }
}

/// Decodes the body of a successful write: an `ApiCallRc` list, a single object, or nothing.
fn decode_write_body(response: &Response) -> Result<ApiCallRcList, Error> {
    if response.bytes().iter().all(u8::is_ascii_whitespace) {
        return Ok(ApiCallRcList::default());
    }
    match decode_error_body(response.bytes()) {
        Some(list) => Ok(list),
        None => Ok(response.json::<ApiCallRcList>()?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(entry: &str, https: bool) -> String {
        ControllerList::parse(entry, https).unwrap().urls()[0].to_string()
    }

    #[test]
    fn controller_entries_follow_golinstor() {
        assert_eq!(one("just.domain", false), "http://just.domain:3370/");
        assert_eq!(
            one("linstor://just.domain", false),
            "http://just.domain:3370/"
        );
        assert_eq!(
            one("linstor+ssl://just.domain", false),
            "https://just.domain:3371/"
        );
        assert_eq!(one("just.domain:4000", false), "http://just.domain:4000/");
        assert_eq!(one("http://just.domain", false), "http://just.domain:3370/");
        assert_eq!(
            one("https://just.domain", false),
            "https://just.domain:3371/"
        );
        assert_eq!(one("just.domain", true), "https://just.domain:3371/");
        assert_eq!(one("just.domain:4000", true), "https://just.domain:4000/");
        assert_eq!(one("[::1]:3370", false), "http://[::1]:3370/");
        assert_eq!(one("http://10.10.20.1:80", false), "http://10.10.20.1/");
        assert!(ControllerList::parse("https://http://just.domain:4000", false).is_err());
        assert!(ControllerList::parse("https://just.domain:4000:5000", false).is_err());
        assert!(ControllerList::parse("ftp://x", false).is_err());
        assert!(ControllerList::parse(" , ", false).is_err());
        assert!(ControllerList::parse("http://x/v1", false).is_err());
        let list = ControllerList::parse("a, linstor+ssl://b ,c:1", false).unwrap();
        let urls: Vec<String> = list.urls().iter().map(Url::to_string).collect();
        assert_eq!(urls, ["http://a:3370/", "https://b:3371/", "http://c:1/"]);
    }
}
