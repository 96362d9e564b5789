//! The PVE client and its builder.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use cpps_http::{HttpClient, Method, Request, RetryPolicy, SecretString, TlsMode, Url};
use futures::StreamExt;
use serde::de::DeserializeOwned;

use crate::Error;
use crate::api::{ClusterApi, NodeApi};
use crate::family::Credentials;
use crate::family::{
    self, Product, TaskOutcome, TicketAuth, TokenAuth, TotpSource, Upid, WaitOptions,
};
use crate::types::{
    ClusterResource, GuestKind, LxcConfig, NodeListItem, NodeName, QemuConfig, ResourceFilter,
    ResourceType, Version, VmId,
};

/// Configures a [`Client`].
///
/// ```no_run
/// use cpps_proxmox::Client;
/// use cpps_http::TlsMode;
///
/// # async fn run() -> Result<(), cpps_proxmox::Error> {
/// // Self-signed clusters: pin the node certificate's SHA-256 fingerprint (shown by
/// // `pvenode cert info` and in the web UI under Node → System → Certificates).
/// let pve = Client::builder("https://pve-ippri-31.example:8006/")
///     .api_token_str("automation@pve!inventory=0b7a0c4e-…")?
///     .tls(TlsMode::pinned("AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99")?)
///     .build()?;
/// println!("{}", pve.version().await?.version);
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    url: String,
    tls: TlsMode,
    credentials: Option<Credentials>,
    totp: Option<TotpSource>,
    renew_after: Duration,
    connect_timeout: Duration,
    request_timeout: Duration,
    deadline: Duration,
    retry: RetryPolicy,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("url", &self.url)
            .field("tls", &self.tls)
            .field("credentials", &self.credentials)
            .field("totp", &self.totp.as_ref().map(|_| "[callback]"))
            .field("request_timeout", &self.request_timeout)
            .field("deadline", &self.deadline)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// Uses an API token.
    pub fn api_token(mut self, id: family::TokenId, secret: SecretString) -> Self {
        self.credentials = Some(Credentials::Token { id, secret });
        self
    }

    /// Uses an API token written `USER@REALM!ID=SECRET` (the bpg Terraform provider's
    /// `PROXMOX_VE_API_TOKEN` form).
    pub fn api_token_str(self, token: &str) -> Result<Self, Error> {
        let (id, secret) = family::split_token(token)?;
        Ok(self.api_token(id, secret))
    }

    /// Logs in with a user and password (ticket).
    pub fn password(mut self, user: family::UserId, password: SecretString) -> Self {
        self.credentials = Some(Credentials::Password { user, password });
        self
    }

    /// Sets the credentials.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Answers a TOTP second-factor challenge with codes from `source` (password login).
    pub fn totp(mut self, source: TotpSource) -> Self {
        self.totp = Some(source);
        self
    }

    /// Renews the ticket once it is this old (default one hour; tickets live two).
    pub fn renew_ticket_after(mut self, age: Duration) -> Self {
        self.renew_after = age;
        self
    }

    /// How the server certificate is verified. For self-signed clusters pin the node's
    /// fingerprint ([`TlsMode::pinned`]) or trust `/etc/pve/pve-root-ca.pem`
    /// ([`TlsMode::ca_file`]); the insecure mode exists only by its long name.
    pub fn tls(mut self, tls: TlsMode) -> Self {
        self.tls = tls;
        self
    }

    /// Time allowed for one attempt (default 30 s).
    pub fn request_timeout(mut self, timeout: Duration) -> Self {
        self.request_timeout = timeout;
        self
    }

    /// Time allowed to connect (default 5 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Time allowed for one call, retries included (default 60 s).
    pub fn deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    /// Retry policy for reads.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Builds the client (no request is sent; a password login happens on the first call or
    /// with [`Client::login`]).
    pub fn build(self) -> Result<Client, Error> {
        let url = api_base(&self.url)?;
        let http = HttpClient::builder(url)
            .tls(self.tls)
            .connect_timeout(self.connect_timeout)
            .request_timeout(self.request_timeout)
            .deadline(self.deadline)
            .retry(self.retry)
            .build()?;
        let credentials = self.credentials.ok_or_else(|| Error::Config {
            reason: "no credentials: set an API token or a user and password".to_owned(),
        })?;
        Ok(match credentials {
            Credentials::Token { id, secret } => Client {
                http: http.with_auth(Arc::new(TokenAuth::new(Product::Pve, id, &secret))),
                ticket: None,
            },
            Credentials::Password { user, password } => {
                let mut auth = TicketAuth::new(Product::Pve, &http, user, password)
                    .renew_after(self.renew_after);
                if let Some(totp) = self.totp {
                    auth = auth.with_totp(totp);
                }
                let auth = Arc::new(auth);
                Client {
                    http: http.with_auth(auth.clone()),
                    ticket: Some(auth),
                }
            }
        })
    }
}

/// `https://host:8006/` or `https://host:8006/api2/json` → `https://host:8006/api2/json/`.
fn api_base(text: &str) -> Result<Url, Error> {
    let mut url: Url = text.trim().parse().map_err(|e| Error::Config {
        reason: format!("endpoint `{text}` is not a URL: {e}"),
    })?;
    let path = url.path().trim_end_matches('/').to_owned();
    if path.ends_with("/api2/json") {
        url.set_path(&format!("{path}/"));
    } else {
        url.set_path(&format!("{path}/api2/json/"));
    }
    Ok(url)
}

/// A typed Proxmox VE client. Cheap to clone: clones share one connection pool and one login.
///
/// Handlers name the API's shape: `pve.node("pve-ippri-31").lxc(vmid).config().await?`.
#[derive(Clone)]
pub struct Client {
    http: HttpClient,
    ticket: Option<Arc<TicketAuth>>,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("http", &self.http).finish()
    }
}

/// A guest to read, for [`Client::guest_configs`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GuestRef {
    /// The node it runs on.
    pub node: NodeName,
    /// VM or container.
    pub kind: GuestKind,
    /// Its id.
    pub vmid: VmId,
}

impl GuestRef {
    /// The guest a `/cluster/resources` entry names (`None` for nodes, storages, …).
    pub fn from_resource(resource: &ClusterResource) -> Option<GuestRef> {
        let kind = match resource.kind {
            ResourceType::Qemu => GuestKind::Qemu,
            ResourceType::Lxc => GuestKind::Lxc,
            _ => return None,
        };
        Some(GuestRef {
            node: resource.node_name()?,
            kind,
            vmid: resource.vmid?,
        })
    }
}

/// A guest configuration of either kind.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum GuestConfig {
    /// A VM's.
    Qemu(QemuConfig),
    /// A container's.
    Lxc(LxcConfig),
}

impl Client {
    /// Starts configuring a client for `endpoint` (`https://host:8006/`; `/api2/json` is
    /// added when missing).
    pub fn builder(endpoint: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            url: endpoint.into(),
            tls: TlsMode::SystemRoots,
            credentials: None,
            totp: None,
            renew_after: family::DEFAULT_RENEW_AFTER,
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            deadline: Duration::from_secs(60),
            retry: RetryPolicy::default(),
        }
    }

    /// The underlying HTTP client (authenticated), for calls this crate does not model.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// Logs in now when the client uses a password (`POST /access/ticket`); a no-op for tokens.
    pub async fn login(&self) -> Result<(), Error> {
        if let Some(ticket) = &self.ticket {
            ticket.login().await?;
        }
        Ok(())
    }

    pub(crate) async fn get<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        self.http.send(&family::DataEnvelope, request).await
    }

    pub(crate) async fn write_upid(&self, request: Request) -> Result<Upid, Error> {
        self.get(request).await
    }

    /// `GET /version`.
    pub async fn version(&self) -> Result<Version, Error> {
        self.get(Request::get("version")).await
    }

    /// `GET /nodes`.
    pub async fn nodes(&self) -> Result<Vec<NodeListItem>, Error> {
        self.get(Request::get("nodes")).await
    }

    /// Cluster-wide endpoints (`/cluster/…`).
    pub fn cluster(&self) -> ClusterApi {
        ClusterApi::new(self.clone())
    }

    /// Endpoints of one node (`/nodes/{node}/…`). The name is checked when a call is made.
    pub fn node(&self, node: impl AsRef<str>) -> NodeApi {
        NodeApi::new(self.clone(), node.as_ref())
    }

    /// Waits for a task: polls `GET /nodes/{node}/tasks/{upid}/status` with back-off until it
    /// stops; a failed task is [`Error::TaskFailed`] with the log tail
    /// (`GET /nodes/{node}/tasks/{upid}/log`).
    pub async fn wait(&self, upid: &Upid, options: &WaitOptions) -> Result<TaskOutcome, Error> {
        family::wait_task(&self.http, upid, &upid.task_path(), options).await
    }

    /// The guests of the cluster: `GET /cluster/resources?type=vm`.
    pub async fn guests(&self) -> Result<Vec<GuestRef>, Error> {
        let resources = self.cluster().resources(Some(ResourceFilter::Vm)).await?;
        Ok(resources
            .iter()
            .filter_map(GuestRef::from_resource)
            .collect())
    }

    /// Reads many guest configurations (`GET /nodes/{node}/{qemu|lxc}/{vmid}/config`) with at
    /// most `concurrency` requests in flight, over the one connection pool. Results come
    /// back in the order of `guests`, each with its own outcome.
    pub async fn guest_configs(
        &self,
        guests: Vec<GuestRef>,
        concurrency: usize,
    ) -> Vec<(GuestRef, Result<GuestConfig, Error>)> {
        let concurrency = concurrency.max(1);
        let mut results: Vec<(usize, GuestRef, Result<GuestConfig, Error>)> =
            futures::stream::iter(guests.into_iter().enumerate())
                .map(|(index, guest)| async move {
                    let node = self.node(guest.node.as_str());
                    let result = match guest.kind {
                        GuestKind::Qemu => {
                            node.qemu(guest.vmid).config().await.map(GuestConfig::Qemu)
                        }
                        GuestKind::Lxc => node.lxc(guest.vmid).config().await.map(GuestConfig::Lxc),
                    };
                    (index, guest, result)
                })
                .buffer_unordered(concurrency)
                .collect()
                .await;
        results.sort_by_key(|(index, _, _)| *index);
        results.into_iter().map(|(_, g, r)| (g, r)).collect()
    }

    /// `GET /{path}` for endpoints not typed yet: returns the envelope's `data`.
    pub async fn get_raw(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> Result<serde_json::Value, Error> {
        let mut request = Request::get(path.trim_start_matches('/'));
        for (k, v) in query {
            request = request.query(*k, v);
        }
        self.get(request).await
    }

    /// `POST /{path}` with form parameters, for endpoints not typed yet: returns `data`
    /// (often a UPID string: parse it with [`Upid::parse`]).
    pub async fn post_raw(
        &self,
        path: &str,
        form: &[(&str, &str)],
    ) -> Result<serde_json::Value, Error> {
        self.raw(Method::POST, path, form).await
    }

    /// Any method on `/{path}` with form parameters (`PUT` and `DELETE` too).
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        params: &[(&str, &str)],
    ) -> Result<serde_json::Value, Error> {
        let path = path.trim_start_matches('/');
        let request = if method == Method::GET || method == Method::DELETE {
            let mut r = Request::new(method, path);
            for (k, v) in params {
                r = r.query(*k, v);
            }
            r
        } else {
            Request::new(method, path).form(params)
        };
        self.get(request).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_gets_the_api_prefix() {
        assert_eq!(
            api_base("https://h:8006/").unwrap().as_str(),
            "https://h:8006/api2/json/"
        );
        assert_eq!(
            api_base("https://h:8006").unwrap().as_str(),
            "https://h:8006/api2/json/"
        );
        assert_eq!(
            api_base("https://h:8006/api2/json").unwrap().as_str(),
            "https://h:8006/api2/json/"
        );
        assert!(api_base("not a url").is_err());
    }

    #[test]
    fn builder_needs_credentials_and_hides_secrets() {
        let err = Client::builder("https://127.0.0.1:8006/")
            .build()
            .unwrap_err();
        assert!(err.to_string().contains("no credentials"), "{err}");
        let b = Client::builder("https://127.0.0.1:8006/")
            .api_token_str("root@pam!ci=hunter2")
            .unwrap();
        let debug = format!("{b:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
    }
}
