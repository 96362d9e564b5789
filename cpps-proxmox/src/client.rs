//! The PVE client and its builder.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use cpps_http::{HttpClient, Method, Request, SecretString, Url};
use futures::StreamExt;
use serde::de::DeserializeOwned;
use tokio::sync::OnceCell;

use crate::Error;
use crate::api::{ClusterApi, NodeApi};
use crate::envelope::PveEnvelope;
use crate::family::Credentials;
use crate::family::{
    self, Product, ServerVersion, TaskOutcome, TicketAuth, TokenAuth, TotpSource, Upid, WaitOptions,
};
use crate::types::{
    ClusterResource, GuestKind, LxcConfig, NodeListItem, NodeName, QemuConfig, ResourceFilter,
    ResourceType, StorageConfig, TaskLog, Version, VmId,
};

/// The environment variable naming the API endpoint (`https://host:8006/`), as the bpg
/// Terraform provider reads it.
pub const ENV_ENDPOINT: &str = "PROXMOX_VE_ENDPOINT";
/// The API token, `user@realm!id=secret` (bpg provider). It wins over user and password.
pub const ENV_API_TOKEN: &str = "PROXMOX_VE_API_TOKEN";
/// The user for a ticket login (bpg provider), with [`ENV_PASSWORD`].
pub const ENV_USERNAME: &str = "PROXMOX_VE_USERNAME";
/// The password for a ticket login (bpg provider).
pub const ENV_PASSWORD: &str = "PROXMOX_VE_PASSWORD";
/// `true` turns certificate verification off (bpg provider); only by this name.
pub const ENV_INSECURE: &str = "PROXMOX_VE_INSECURE";
/// A PEM file of trusted CA certificates (`/etc/pve/pve-root-ca.pem`).
pub const ENV_CA_FILE: &str = "PROXMOX_VE_CA_FILE";
/// The SHA-256 fingerprint of the node certificate to pin (`AA:BB:…`).
pub const ENV_FINGERPRINT: &str = "PROXMOX_VE_FINGERPRINT";

/// The TLS variables of a PVE client, read by [`cpps_http::TlsMode::from_env`].
pub fn tls_vars() -> cpps_http::TlsVars {
    cpps_http::TlsVars::new()
        .ca_file(ENV_CA_FILE)
        .fingerprint(ENV_FINGERPRINT)
        .insecure(ENV_INSECURE)
}

/// The one default bound on requests in flight for fan-out reads ([`Client::guest_configs`],
/// [`crate::inventory::collect`], the `inventory` binary's `--concurrency`). PVE speaks HTTP/1.1,
/// so each request in flight is a connection with its own handshakes: 64 keeps a cross-site
/// sweep within a few round trips, and the sweep itself uses fewer for a near server
/// ([`crate::inventory::config_bound`]). The README's performance section has the measurements.
pub const DEFAULT_CONCURRENCY: usize = 64;

/// The response-size cap of list calls (`/cluster/resources`, HA resources, task lists) unless
/// the builder or the call sets another: 32 MiB, ten times the largest real answer it guards.
/// A `/cluster/resources` of 10 000 guests is about 3.2 MB (318 bytes an entry: the decode
/// bench's 100 000-entry answer is 31.8 MB); the estate's 600-guest sites answer about 0.2 MB.
pub const DEFAULT_LIST_MAX_RESPONSE_BYTES: usize = 32 << 20;

/// The most lines one `GET /nodes/{node}/tasks/{upid}/log` of [`Client::task_log`] asks for.
pub const TASK_LOG_PAGE: u64 = 5000;

/// Configures a [`Client`].
///
/// ```no_run
/// use cpps_proxmox::{Client, TlsMode};
///
/// # async fn run() -> Result<(), cpps_proxmox::Error> {
/// // Self-signed clusters: pin the node certificate's SHA-256 fingerprint (shown by
/// // `pvenode cert info` and in the web UI under Node → System → Certificates).
/// let pve = Client::builder("https://pve-ippri-31.example:8006/")
///     .api_token_str("automation@pve!inventory=0b7a0c4e-…")?
///     .tls(TlsMode::pinned("AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99")?)
///     .deadline(std::time::Duration::from_secs(30))
///     .build()?;
/// println!("{}", pve.version().await?.version);
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    endpoint: String,
    http: cpps_http::ClientBuilder,
    credentials: Option<Credentials>,
    totp: Option<TotpSource>,
    renew_after: Duration,
    list_max_response_bytes: usize,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("endpoint", &self.endpoint)
            .field("http", &self.http)
            .field("credentials", &self.credentials)
            .field("totp", &self.totp.as_ref().map(|_| "[callback]"))
            .field("list_max_response_bytes", &self.list_max_response_bytes)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    cpps_http::forward_http_settings!();

    /// A builder from the variables users of the bpg Terraform provider already set, read
    /// through `lookup` (tests pass a closure over a map; [`Client::from_env`] passes the
    /// process environment):
    ///
    /// | variable | meaning |
    /// | --- | --- |
    /// | `PROXMOX_VE_ENDPOINT` | `https://host:8006/` (required) |
    /// | `PROXMOX_VE_API_TOKEN` | `user@realm!id=secret`; wins over user and password, as in bpg |
    /// | `PROXMOX_VE_USERNAME`, `PROXMOX_VE_PASSWORD` | ticket login |
    /// | `PROXMOX_VE_CA_FILE` | PEM file of trusted CAs |
    /// | `PROXMOX_VE_FINGERPRINT` | SHA-256 fingerprint of the node certificate to pin |
    /// | `PROXMOX_VE_INSECURE` | `true`: no certificate verification |
    ///
    /// At most one TLS variable may be set ([`cpps_http::TlsMode::from_env`]: the error names
    /// both); none means the system's roots. It is [`crate::Config::from_env`] then
    /// [`ClientBuilder::from_config`]: the one path from settings to a client.
    pub fn from_env(lookup: &dyn Fn(&str) -> Option<String>) -> Result<ClientBuilder, Error> {
        ClientBuilder::from_config(&crate::Config::from_env(lookup)?, lookup)
    }

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

    /// The response-size cap of list calls (default [`DEFAULT_LIST_MAX_RESPONSE_BYTES`]);
    /// single-object reads keep the client's cap ([`ClientBuilder::max_response_bytes`]).
    pub fn list_max_response_bytes(mut self, bytes: usize) -> Self {
        self.list_max_response_bytes = bytes;
        self
    }

    /// Builds the client (no request is sent; a password login happens on the first call or
    /// with [`Client::login`]).
    pub fn build(self) -> Result<Client, Error> {
        let url = api_base(&self.endpoint)?;
        let http = self.http.base_url(url).build()?;
        let credentials = self.credentials.ok_or_else(|| Error::Config {
            name: "credentials",
            reason: "no credentials: set an API token or a user and password".to_owned(),
        })?;
        let (http, ticket) = match credentials {
            Credentials::Token { id, secret } => (
                http.with_auth(Arc::new(TokenAuth::new(Product::Pve, id, &secret))),
                None,
            ),
            Credentials::Password { user, password } => {
                let mut auth = TicketAuth::new(Product::Pve, &http, user, password)
                    .renew_after(self.renew_after);
                if let Some(totp) = self.totp {
                    auth = auth.with_totp(totp);
                }
                let auth = Arc::new(auth);
                (http.with_auth(auth.clone()), Some(auth))
            }
        };
        Ok(Client {
            http,
            ticket,
            version: Arc::new(OnceCell::new()),
            list_max_response_bytes: self.list_max_response_bytes,
        })
    }
}

fn api_base(text: &str) -> Result<Url, Error> {
    family::api_base(text).map_err(|e| Error::Config {
        name: "endpoint",
        reason: e.to_string(),
    })
}

/// The settings that raise the cap of list calls, as a size refusal names them.
const LIST_CAP_SETTING: &str = "list_max_response_bytes on the client's builder, or Client::with_list_max_response_bytes for one call";

/// A typed Proxmox VE client. Cheap to clone: clones share one connection pool and one login.
///
/// Handlers name the API's shape: `pve.node("pve-ippri-31").lxc(vmid).config().await?`.
#[derive(Clone)]
pub struct Client {
    http: HttpClient,
    ticket: Option<Arc<TicketAuth>>,
    version: Arc<OnceCell<ServerVersion>>,
    list_max_response_bytes: usize,
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client").field("http", &self.http).finish()
    }
}

/// What [`Client::wait`] saw at the end: the task's outcome, and for an HA-managed action what
/// the HA manager showed. Dereferences to the [`TaskOutcome`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WaitOutcome {
    /// The task.
    pub task: TaskOutcome,
    /// For a `hastart`/`hastop`/`hamigrate` task: the state (and node) the HA manager reached,
    /// which is what was waited for; `None` for any other task.
    pub ha: Option<crate::ha::HaReached>,
}

impl std::ops::Deref for WaitOutcome {
    type Target = TaskOutcome;

    fn deref(&self) -> &TaskOutcome {
        &self.task
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
    /// What this client is waiting for: its requests in flight and the last few that got no
    /// answer (cut off by a caller's time limit, or failed without one), for a caller whose own
    /// time limit ran out to name them.
    pub fn activity(&self) -> cpps_http::ActivitySnapshot {
        self.http.activity().snapshot()
    }

    /// Starts configuring a client for `endpoint` (`https://host:8006/`; `/api2/json` is
    /// added when missing).
    pub fn builder(endpoint: impl Into<String>) -> ClientBuilder {
        ClientBuilder {
            endpoint: endpoint.into(),
            // PVE's own defaults: pveproxy answers most reads within seconds, but a config
            // read proxied to a busy node (`proxyto`) can take longer.
            http: cpps_http::ClientBuilder::default()
                .connect_timeout(Duration::from_secs(5))
                .request_timeout(Duration::from_secs(30))
                .deadline(Duration::from_secs(60)),
            credentials: None,
            totp: None,
            renew_after: family::DEFAULT_RENEW_AFTER,
            list_max_response_bytes: DEFAULT_LIST_MAX_RESPONSE_BYTES,
        }
    }

    /// A client configured from the `PROXMOX_VE_*` variables of the process environment
    /// ([`ClientBuilder::from_env`]).
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env(&cpps_http::env::process_env)?.build()
    }

    /// The same client (sharing its pool, login and version) with another response-size
    /// cap for list calls: `pve.with_list_max_response_bytes(1 << 30).cluster().resources(None)`.
    pub fn with_list_max_response_bytes(&self, bytes: usize) -> Client {
        Client {
            list_max_response_bytes: bytes,
            ..self.clone()
        }
    }

    /// The server's release: `GET /version`, read once and kept (clones share it). Calls
    /// whose parameters differ between PVE 8 and 9 choose by it.
    pub async fn server_version(&self) -> Result<ServerVersion, Error> {
        self.version
            .get_or_try_init(|| async {
                let version = self.version().await?;
                Ok::<_, Error>(ServerVersion::from_pve(&version.version)?)
            })
            .await
            .copied()
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
        self.http.send(&PveEnvelope, request).await
    }

    /// A list read, with the list cap.
    pub(crate) async fn get_list<T: DeserializeOwned>(&self, request: Request) -> Result<T, Error> {
        // The list cap, not the client's `max_response_bytes`, applies: the hint says so.
        self.get(request.max_response_bytes(self.list_max_response_bytes))
            .await
            .map_err(|e| match e {
                Error::Http(http) => Error::Http(http.naming_cap(LIST_CAP_SETTING)),
                other => other,
            })
    }

    /// A list read keeping its `total` ([`family::Page`]), with the list cap.
    pub(crate) async fn get_page<T: DeserializeOwned>(
        &self,
        request: Request,
    ) -> Result<family::Page<T>, Error> {
        let request = request.max_response_bytes(self.list_max_response_bytes);
        let page: Result<family::Page<T>, Error> = self
            .http
            .send(&family::PageEnvelope, request)
            .await
            .map_err(Error::from);
        page.map_err(|e| match e {
            Error::Http(http) => Error::Http(http.naming_cap(LIST_CAP_SETTING)),
            other => other,
        })
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

    /// `GET /storage` (with `type` when `kind` is given): the storages' configuration, as
    /// `storage.cfg` holds it, of those the caller may audit (pve-storage
    /// `src/PVE/API2/Storage/Config.pm` `index` leaves out the others, so the list may be
    /// filtered). `Some("pbs")` gives the Proxmox Backup Server targets.
    pub async fn storage_configs(&self, kind: Option<&str>) -> Result<Vec<StorageConfig>, Error> {
        let mut request = Request::get("storage");
        if let Some(kind) = kind {
            request = request.query("type", kind);
        }
        self.get_list(request).await
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
    ///
    /// For a guest under the HA manager, start, stop, shutdown and migrate answer the UPID of a
    /// `hastart`, `hastop` or `hamigrate` worker that only queues the request and ends OK at
    /// once. Its end is not the action's: the wait goes on polling
    /// `GET /cluster/ha/status/current` until the service shows the requested state (and the
    /// target node, for a migration), within the same `options.timeout`
    /// ([`PveError::HaTimeout`](crate::PveError::HaTimeout)), and [`WaitOutcome::ha`] says
    /// what it waited for.
    pub async fn wait(&self, upid: &Upid, options: &WaitOptions) -> Result<WaitOutcome, Error> {
        let started = tokio::time::Instant::now();
        let task =
            family::wait_task(&self.http, Product::Pve, upid, &upid.task_path(), options).await?;
        let ha = match crate::ha::wanted_after(self, upid).await? {
            Some(wanted) => Some(
                crate::ha::wait_for(
                    self,
                    upid,
                    wanted,
                    options,
                    crate::ha::deadline(started, options),
                )
                .await?,
            ),
            None => None,
        };
        Ok(WaitOutcome { task, ha })
    }

    /// A task's log from its first line, at most `max_lines` of it:
    /// `GET /nodes/{node}/tasks/{upid}/log?start=…&limit=…`, in pages of at most
    /// [`TASK_LOG_PAGE`] lines. PVE's `start` is the number of lines to skip and its `total`
    /// the log's length (pve-manager `PVE/API2/Tasks.pm` `read_task_log`, pve-common
    /// `src/PVE/Tools.pm` `dump_logfile_by_filehandle`, where `limit=0` would read the whole
    /// file, so it is never sent). [`TaskLog::whole`] says whether the lines reach the end.
    pub async fn task_log(&self, upid: &Upid, max_lines: u64) -> Result<TaskLog, Error> {
        let path = format!("{}/log", upid.task_path());
        let mut lines: Vec<String> = Vec::new();
        loop {
            let start = lines.len() as u64;
            let limit = max_lines.saturating_sub(start).min(TASK_LOG_PAGE);
            if limit == 0 {
                return Ok(TaskLog {
                    lines,
                    whole: false,
                });
            }
            let page: family::Page<Vec<family::LogLine>> = self
                .http
                .send(
                    &family::PageEnvelope,
                    Request::get(&path)
                        .query("start", start)
                        .query("limit", limit)
                        .max_response_bytes(self.list_max_response_bytes),
                )
                .await?;
            let got = page.data.len() as u64;
            lines.extend(page.data.into_iter().map(|line| line.t));
            // Without a `total`, a short page is the end.
            let end = page
                .total
                .map_or(got < limit, |total| lines.len() as u64 >= total);
            if end || got == 0 {
                return Ok(TaskLog { whole: end, lines });
            }
        }
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
    /// most `concurrency` requests in flight ([`DEFAULT_CONCURRENCY`] unless the caller knows
    /// better), over the one connection pool. Results come
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
