//! The client: one `cpps-http` client with PBS credentials, and the envelope decoder of
//! `cpps-proxmox`.

use cpps_http::{ClientBuilder, HttpClient, TlsMode};
use serde::de::DeserializeOwned;

use crate::auth::Credentials;
use crate::endpoints::Call;
use crate::{Error, PbsConfig};

/// A Proxmox Backup Server API client. Cheap to clone: clones share one connection pool.
///
/// ```no_run
/// use cpps_pbs::{PbsClient, PbsConfig};
///
/// # async fn run() -> Result<(), cpps_pbs::Error> {
/// // PBS_REPOSITORY=report@pbs!ro@pbs-a.example:store1, PBS_PASSWORD=<token secret>,
/// // PBS_FINGERPRINT=AA:BB:…
/// let config = PbsConfig::from_env()?;
/// let pbs = PbsClient::from_config(&config)?;
/// for snapshot in pbs.snapshots(config.repository.store().as_str(), &Default::default()).await? {
///     println!("{}/{} {}", snapshot.backup_type, snapshot.backup_id, snapshot.backup_time);
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct PbsClient {
    pub(crate) http: HttpClient,
}

impl PbsClient {
    /// A client over `http` (whose base URL ends in `/api2/json/`) that authenticates with
    /// `credentials`.
    pub fn new(http: HttpClient, credentials: Credentials) -> Self {
        let auth = crate::auth::pbs_auth(credentials, &http);
        PbsClient {
            http: http.with_auth(auth),
        }
    }

    /// The HTTP client builder for a configuration: the repository's (or `CPPS_PBS_URL`'s) base
    /// URL, and the server certificate pinned to `PBS_FINGERPRINT` when given, the system's
    /// trust store otherwise. The pin is strict: `proxmox-backup-client` also accepts a
    /// certificate the system trusts whatever its fingerprint, this client accepts only the
    /// pinned one. Adjust timeouts on the builder, then pass the built client to
    /// [`PbsClient::new`].
    pub fn http_builder(config: &PbsConfig) -> ClientBuilder {
        let tls = match config.fingerprint {
            Some(fingerprint) => TlsMode::Pinned(fingerprint),
            None => TlsMode::SystemRoots,
        };
        HttpClient::builder(config.base_url()).tls(tls)
    }

    /// A client for a configuration read by [`PbsConfig::from_env`]: token auth when the
    /// repository names a token, ticket login otherwise.
    pub fn from_config(config: &PbsConfig) -> Result<Self, Error> {
        let http = Self::http_builder(config).build()?;
        Ok(Self::new(http, config.credentials()))
    }

    /// The underlying HTTP client (authenticated), for calls this crate does not type.
    pub fn http(&self) -> &HttpClient {
        &self.http
    }

    /// Sends a call and decodes the `data` of its answer.
    pub(crate) async fn get<T: DeserializeOwned>(&self, call: Call) -> Result<T, Error> {
        let response = self.http.execute(call.into_request()).await?;
        Ok(cpps_proxmox::family::decode_envelope(response)?)
    }
}
