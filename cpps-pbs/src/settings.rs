//! The one shape of a PBS client's settings: [`Config`], read from an endpoints file (serde),
//! from `proxmox-backup-client`'s variables ([`Config::from_env`]) or written in code, and
//! turned into a client by [`ClientBuilder::from_config`] only.

use std::path::PathBuf;

use cpps_http::env::Lookup;
use cpps_http::{Limits, SecretSource, SettingError, TlsKeys, TlsMode, Url};
use serde::Deserialize;

use crate::client::{ENV_FINGERPRINT, ENV_PASSWORD, ENV_REPOSITORY, ENV_URL, tls_vars};
use crate::{ClientBuilder, Error, Repository};

/// Everything a PBS client is built from. `Debug` shows no secret.
///
/// In an endpoints file (the secret is named by `password_env` or `password_file`, never
/// written):
///
/// ```yaml
/// repository: audit@pbs!ro@pbs-sp:store1   # PBS_REPOSITORY syntax
/// password_env: PBS_SP_SECRET              # the token secret or password
/// fingerprint: AA:BB:…                     # the pinned certificate; else the system's roots
/// url: https://backup.example/pbs/          # replaces the URL the repository gives
/// limits: { deadline: 60 }
/// list_max_response_bytes: 134217728
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Keys")]
pub struct Config {
    /// `[[user@realm[!token]@]host[:port]:]datastore`: the server, the auth id and the store.
    pub repository: Repository,
    /// The password, or the token secret when the repository names a token.
    pub password: SecretSource,
    /// How the server's certificate is verified (PBS pins: [`TlsMode::Pinned`]).
    pub tls: TlsMode,
    /// An API URL replacing the one derived from the repository, as written.
    pub url: Option<String>,
    /// Timeouts and the response-size cap.
    pub limits: Limits,
    /// The cap of list calls ([`ClientBuilder::list_max_response_bytes`]).
    pub list_max_response_bytes: Option<usize>,
}

impl Config {
    /// The API URL the client talks to: [`Config::url`], or the repository's.
    pub fn api_url(&self) -> String {
        self.url
            .clone()
            .unwrap_or_else(|| self.repository.base_url().to_string())
    }
}

/// The keys of [`Config`] in a file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    repository: String,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    fingerprint: Option<String>,
    url: Option<String>,
    #[serde(default)]
    limits: Limits,
    list_max_response_bytes: Option<usize>,
}

impl TryFrom<Keys> for Config {
    type Error = SettingError;

    fn try_from(k: Keys) -> Result<Self, SettingError> {
        let password = SecretSource::required_keys(
            "password",
            k.password_env,
            k.password_file,
            "the token secret",
        )?;
        let repository = k
            .repository
            .parse()
            .map_err(|e: Error| SettingError::new("repository", e.to_string()))?;
        if let Some(Err(e)) = k.url.as_deref().map(str::parse::<Url>) {
            return Err(SettingError::new("url", format!("is not a URL: {e}")));
        }
        let tls = TlsKeys {
            fingerprint: k.fingerprint,
            ..TlsKeys::default()
        }
        .mode()?;
        Ok(Config {
            repository,
            password,
            tls,
            url: k.url,
            limits: k.limits,
            list_max_response_bytes: k.list_max_response_bytes,
        })
    }
}

impl Config {
    /// The settings `proxmox-backup-client`'s variables give, read through `lookup` (see
    /// [`ClientBuilder::from_env`] for the table). The secret stays in `PBS_PASSWORD`: the
    /// config names it, [`ClientBuilder::from_config`] reads it.
    pub fn from_env(lookup: Lookup<'_>) -> Result<Config, Error> {
        let repository = cpps_http::env::get(lookup, ENV_REPOSITORY)
            .ok_or_else(|| Error::Config {
                name: ENV_REPOSITORY,
                reason: "is not set".to_owned(),
            })?
            .parse::<Repository>()
            .map_err(|e| Error::Config {
                name: ENV_REPOSITORY,
                reason: e.to_string(),
            })?;
        // The only TLS variable of PBS is the pin, so its name is the setting that is wrong.
        let tls = TlsMode::from_env(&tls_vars(), lookup).map_err(|e| Error::Config {
            name: ENV_FINGERPRINT,
            reason: crate::report::error_chain(&e),
        })?;
        let url = cpps_http::env::get(lookup, ENV_URL);
        if let Some(Err(e)) = url.as_deref().map(str::parse::<Url>) {
            return Err(Error::Config {
                name: ENV_URL,
                reason: format!("is not a URL: {e}"),
            });
        }
        Ok(Config {
            repository,
            password: SecretSource::Env(ENV_PASSWORD.to_owned()),
            tls: tls.unwrap_or_default(),
            url,
            limits: Limits::default(),
            list_max_response_bytes: None,
        })
    }
}

impl ClientBuilder {
    /// The builder `config` describes, its secret read now through `lookup` (a variable) or
    /// from its file: the one path from settings to a client, TLS included.
    pub fn from_config(config: &Config, lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        let password = config
            .password
            .resolve("password", lookup)
            .map_err(|e| Error::Config {
                name: "password",
                reason: e.reason,
            })?;
        let mut builder = ClientBuilder::for_repository(&config.repository, password)
            .tls(config.tls.clone())
            .http_settings(|http| config.limits.apply(http));
        if let Some(url) = &config.url {
            let url = url.parse::<Url>().map_err(|e| Error::Config {
                name: "url",
                reason: format!("is not a URL: {e}"),
            })?;
            builder = builder.url(url);
        }
        if let Some(bytes) = config.list_max_response_bytes {
            builder = builder.list_max_response_bytes(bytes);
        }
        Ok(builder)
    }
}
