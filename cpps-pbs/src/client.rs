//! The client and its builder: one `cpps-http` client with PBS credentials, answers decoded by
//! [`PbsEnvelope`](crate::envelope::PbsEnvelope), and the server's release read once.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use cpps_http::{HttpClient, SecretString, Url};
use cpps_proxmox_family::{ServerVersion, TokenId, UserId};
use serde::de::DeserializeOwned;
use tokio::sync::OnceCell;

use crate::auth::Credentials;
use crate::endpoints::{Call, VERSION};
use crate::envelope::PbsEnvelope;
use crate::types::Version;
use crate::{Error, Repository};

/// The environment variable naming the repository (`proxmox-backup-client`).
pub const ENV_REPOSITORY: &str = "PBS_REPOSITORY";
/// The environment variable holding the password, or the secret of an API token.
pub const ENV_PASSWORD: &str = "PBS_PASSWORD";
/// The environment variable holding the server's pinned certificate fingerprint.
pub const ENV_FINGERPRINT: &str = "PBS_FINGERPRINT";
/// The environment variable that overrides the API URL derived from the repository (a PBS
/// behind a reverse proxy, or a test server): for example `https://backup.example/pbs/api2/json`.
pub const ENV_URL: &str = "CPPS_PBS_URL";

/// The TLS variables of a PBS client, read by [`cpps_http::TlsMode::from_env`]:
/// `PBS_FINGERPRINT`.
pub fn tls_vars() -> cpps_http::TlsVars {
    cpps_http::TlsVars::new().fingerprint(ENV_FINGERPRINT)
}

/// The response-size cap of list calls (snapshots, groups, tasks) unless the builder or the
/// call sets another: 128 MiB, ten times the largest real answer it guards. A snapshot list
/// answers about 650 bytes a snapshot; a 600-guest site keeping about 30 snapshots a guest in
/// one namespace answers about 12 MB.
pub const DEFAULT_LIST_MAX_RESPONSE_BYTES: usize = 128 << 20;

/// Configures a [`Client`].
///
/// ```no_run
/// use cpps_pbs::{Client, ClientBuilder};
///
/// # async fn run() -> Result<(), cpps_pbs::Error> {
/// // PBS_REPOSITORY=report@pbs!ro@pbs-a.example:store1, PBS_PASSWORD=<token secret>,
/// // PBS_FINGERPRINT=AA:BB:…
/// let pbs = ClientBuilder::from_env(&cpps_http::env::process_env)?
///     .deadline(std::time::Duration::from_secs(30))
///     .build()?;
/// let store = pbs.repository().map(|r| r.store().to_string()).unwrap_or_default();
/// for snapshot in pbs.snapshots(&store, &Default::default()).await? {
///     println!("{}/{} {}", snapshot.backup_type, snapshot.backup_id, snapshot.backup_time);
/// }
/// # Ok(())
/// # }
/// ```
#[must_use]
pub struct ClientBuilder {
    url: Result<Url, Error>,
    http: cpps_http::ClientBuilder,
    credentials: Option<Credentials>,
    repository: Option<Repository>,
    list_max_response_bytes: usize,
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("url", &self.url.as_ref().map(Url::as_str))
            .field("http", &self.http)
            .field("credentials", &self.credentials)
            .field(
                "repository",
                &self.repository.as_ref().map(ToString::to_string),
            )
            .field("list_max_response_bytes", &self.list_max_response_bytes)
            .finish()
    }
}

fn defaults() -> cpps_http::ClientBuilder {
    cpps_http::ClientBuilder::default()
        .connect_timeout(Duration::from_secs(5))
        .request_timeout(Duration::from_secs(30))
        .deadline(Duration::from_secs(60))
}

impl ClientBuilder {
    cpps_http::forward_http_settings!();

    /// A builder for a repository: its host and port, its auth id with `secret` as the token
    /// secret or the password (as `proxmox-backup-client` reads `PBS_PASSWORD`).
    pub fn for_repository(repository: &Repository, secret: SecretString) -> Self {
        ClientBuilder {
            url: Ok(repository.base_url()),
            http: defaults(),
            credentials: Some(crate::credentials_for(repository.auth_id(), secret)),
            repository: Some(repository.clone()),
            list_max_response_bytes: DEFAULT_LIST_MAX_RESPONSE_BYTES,
        }
    }

    /// A builder from the variables `proxmox-backup-client` reads, through `lookup` (tests
    /// pass a closure over a map; [`Client::from_env`] passes the process environment):
    ///
    /// | variable | meaning |
    /// | --- | --- |
    /// | `PBS_REPOSITORY` | `[[user@realm[!token]@]host[:port]:]datastore` (required) |
    /// | `PBS_PASSWORD` | the password, or the token secret when the repository names a token (required) |
    /// | `PBS_FINGERPRINT` | SHA-256 fingerprint of the server certificate to pin; without it the system's roots |
    /// | `CPPS_PBS_URL` | an API URL replacing the one derived from the repository |
    ///
    /// The pin is strict: `proxmox-backup-client` also accepts a certificate the system
    /// trusts whatever its fingerprint; this client accepts only the pinned one.
    ///
    /// It is [`crate::Config::from_env`] then [`ClientBuilder::from_config`]: the one path
    /// from settings to a client.
    pub fn from_env(lookup: &dyn Fn(&str) -> Option<String>) -> Result<Self, Error> {
        ClientBuilder::from_config(&crate::Config::from_env(lookup)?, lookup)
    }

    /// Replaces the API URL (`https://host:8007/api2/json/`; `/api2/json` is added when
    /// missing).
    pub fn url(mut self, url: Url) -> Self {
        self.url = Ok(url.clone());
        if !url.path().trim_end_matches('/').ends_with("/api2/json") {
            self.url = cpps_proxmox_family::api_base(url.as_str()).map_err(Error::from);
        }
        self
    }

    /// Sets the credentials.
    pub fn credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Uses an API token (`Authorization: PBSAPIToken=USER@REALM!TOKEN:SECRET`).
    pub fn api_token(self, id: TokenId, secret: SecretString) -> Self {
        self.credentials(Credentials::Token { id, secret })
    }

    /// Logs in with a user and password (ticket).
    pub fn password(self, user: UserId, password: SecretString) -> Self {
        self.credentials(Credentials::Password { user, password })
    }

    /// The response-size cap of list calls (default [`DEFAULT_LIST_MAX_RESPONSE_BYTES`]);
    /// single-object reads keep the client's cap ([`ClientBuilder::max_response_bytes`]).
    pub fn list_max_response_bytes(mut self, bytes: usize) -> Self {
        self.list_max_response_bytes = bytes;
        self
    }

    /// The repository the builder was made for, if any.
    pub fn repository(&self) -> Option<&Repository> {
        self.repository.as_ref()
    }

    /// Builds the client; no request is sent (a ticket login happens on the first call).
    pub fn build(self) -> Result<Client, Error> {
        let credentials = self.credentials.ok_or_else(|| Error::Config {
            name: "credentials",
            reason: "are not set: give an API token or a user and password".to_owned(),
        })?;
        let http = self.http.base_url(self.url?).build()?;
        let mut client = Client::new(http, credentials);
        client.repository = self.repository.map(Arc::new);
        client.list_max_response_bytes = self.list_max_response_bytes;
        Ok(client)
    }
}

/// A Proxmox Backup Server API client. Cheap to clone: clones share one connection pool, one
/// login and the server's release once read.
///
/// ```no_run
/// # async fn run() -> Result<(), cpps_pbs::Error> {
/// let pbs = cpps_pbs::Client::from_env()?;
/// println!("PBS {}", pbs.server_version().await?);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Client {
    pub(crate) http: HttpClient,
    version: Arc<OnceCell<ServerVersion>>,
    repository: Option<Arc<Repository>>,
    list_max_response_bytes: usize,
}

impl Client {
    /// Starts configuring a client for `url` (`https://host:8007/`; `/api2/json` is added when
    /// missing). Give credentials with [`ClientBuilder::api_token`] or
    /// [`ClientBuilder::password`].
    pub fn builder(url: impl AsRef<str>) -> ClientBuilder {
        ClientBuilder {
            url: cpps_proxmox_family::api_base(url.as_ref()).map_err(Error::from),
            http: defaults(),
            credentials: None,
            repository: None,
            list_max_response_bytes: DEFAULT_LIST_MAX_RESPONSE_BYTES,
        }
    }

    /// A client configured from `PBS_REPOSITORY`, `PBS_PASSWORD`, `PBS_FINGERPRINT` and
    /// `CPPS_PBS_URL` in the process environment ([`ClientBuilder::from_env`]).
    pub fn from_env() -> Result<Client, Error> {
        ClientBuilder::from_env(&cpps_http::env::process_env)?.build()
    }

    /// A client over `http` (whose base URL ends in `/api2/json/`) that authenticates with
    /// `credentials`.
    pub fn new(http: HttpClient, credentials: Credentials) -> Self {
        let auth = crate::auth::pbs_auth(credentials, &http);
        Client {
            http: http.with_auth(auth),
            version: Arc::new(OnceCell::new()),
            repository: None,
            list_max_response_bytes: DEFAULT_LIST_MAX_RESPONSE_BYTES,
        }
    }

    /// The underlying HTTP client (authenticated), for calls this crate does not type.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// The repository the client was configured with, if any.
    pub fn repository(&self) -> Option<&Repository> {
        self.repository.as_deref()
    }

    /// The same client (sharing its pool, login and version) with another response-size cap
    /// for list calls: `pbs.with_list_max_response_bytes(1 << 30).snapshots(…)`.
    pub fn with_list_max_response_bytes(&self, bytes: usize) -> Client {
        Client {
            list_max_response_bytes: bytes,
            ..self.clone()
        }
    }

    /// `GET /version`.
    pub async fn version(&self) -> Result<Version, Error> {
        self.get(VERSION.call(&[])).await
    }

    /// The server's release, read once with `GET /version` and kept (clones share it).
    /// Calls whose endpoints or parameters differ between releases (PBS 3.0–3.2, 3.3+, 4)
    /// choose by it.
    pub async fn server_version(&self) -> Result<ServerVersion, Error> {
        self.version
            .get_or_try_init(|| async {
                let version = self.version().await?;
                Ok::<_, Error>(ServerVersion::from_pbs(&version.version, &version.release)?)
            })
            .await
            .copied()
    }

    /// Fails with [`Error::NotSupported`] when the server is older than `since`.
    pub(crate) async fn require(
        &self,
        what: &'static str,
        since: ServerVersion,
    ) -> Result<(), Error> {
        let version = self.server_version().await?;
        if version >= since {
            Ok(())
        } else {
            Err(Error::NotSupported {
                what: what.to_owned(),
                version,
                since: Some(since),
            })
        }
    }

    /// Sends a call and decodes the `data` of its answer.
    pub(crate) async fn get<T: DeserializeOwned>(&self, call: Call) -> Result<T, Error> {
        self.http.send(&PbsEnvelope, call.into_request()).await
    }

    /// Sends a list call, with the list cap.
    pub(crate) async fn get_list<T: DeserializeOwned>(&self, call: Call) -> Result<T, Error> {
        // The list cap, not the client's `max_response_bytes`, applies: the hint says so.
        self.http
            .send(
                &PbsEnvelope,
                call.into_request()
                    .max_response_bytes(self.list_max_response_bytes),
            )
            .await
            .map_err(|e| match e {
                Error::Http(http) => Error::Http(http.naming_cap(
                    "list_max_response_bytes on the client's builder, or Client::with_list_max_response_bytes for one call",
                )),
                other => other,
            })
    }
}
