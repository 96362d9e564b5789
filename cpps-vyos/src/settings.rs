//! The one shape of a VyOS client's settings: [`Config`], read from an endpoints file (serde),
//! from `VYOS_URL`, `VYOS_API_KEY` and `VYOS_FINGERPRINT` ([`Config::from_env`]) or written in
//! code, and turned into a client by [`ClientBuilder::from_config`] only.

use std::path::PathBuf;

use cpps_http::env::Lookup;
use cpps_http::{ExposeSecret, Limits, SecretSource, SecretString, SettingError, TlsKeys, TlsMode};
use serde::Deserialize;

use crate::client::{ENV_API_KEY, ENV_URL, tls_vars};
use crate::{Client, ClientBuilder, Error};

/// Everything a VyOS client is built from. `Debug` shows no secret.
///
/// In an endpoints file (the key is named by `key_env` or `key_file`, never written):
///
/// ```yaml
/// url: https://192.168.10.1/
/// key_env: VYOS_SP_KEY
/// fingerprint: AA:BB:…         # or ca_file: …, or insecure: true; else the system's roots
/// limits: { deadline: 60 }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Keys")]
pub struct Config {
    /// The router's API root, `https://192.168.10.1/`.
    pub url: String,
    /// The HTTPS API key (`service https api keys id ID key KEY`).
    pub key: SecretSource,
    /// How the router's certificate is verified.
    pub tls: TlsMode,
    /// Timeouts and the response-size cap.
    pub limits: Limits,
}

/// The keys of [`Config`] in a file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    url: String,
    key_env: Option<String>,
    key_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    fingerprint: Option<String>,
    #[serde(default)]
    insecure: bool,
    #[serde(default)]
    limits: Limits,
}

impl TryFrom<Keys> for Config {
    type Error = SettingError;

    fn try_from(k: Keys) -> Result<Self, SettingError> {
        let key = SecretSource::required_keys("key", k.key_env, k.key_file, "the HTTPS API key")?;
        let tls = TlsKeys {
            ca_file: k.ca_file,
            fingerprint: k.fingerprint,
            insecure: k.insecure,
        }
        .mode()?;
        Ok(Config {
            url: k.url,
            key,
            tls,
            limits: k.limits,
        })
    }
}

impl Config {
    /// The settings of `VYOS_URL`, `VYOS_API_KEY` and `VYOS_FINGERPRINT`, read through
    /// `lookup`. The key stays in its variable: the config names it,
    /// [`ClientBuilder::from_config`] reads it.
    ///
    /// # Errors
    /// [`Error::Config`] naming the variable that is missing or invalid.
    pub fn from_env(lookup: Lookup<'_>) -> Result<Config, Error> {
        let url = cpps_http::env::get(lookup, ENV_URL).ok_or_else(|| Error::Config {
            reason: format!(
                "{ENV_URL} is not set (the router's API URL, e.g. https://192.168.10.1/)"
            ),
        })?;
        if let Err(e) = url.parse::<cpps_http::Url>() {
            return Err(Error::Config {
                reason: format!("{ENV_URL} `{url}` is not a URL: {e}"),
            });
        }
        Ok(Config {
            url,
            key: SecretSource::Env(ENV_API_KEY.to_owned()),
            tls: TlsMode::from_env(&tls_vars(), lookup)?.unwrap_or_default(),
            limits: Limits::default(),
        })
    }
}

impl ClientBuilder {
    /// The builder `config` describes, its key read now through `lookup` (a variable) or from
    /// its file: the one path from settings to a client, TLS included.
    ///
    /// # Errors
    /// [`Error::Config`] naming the key's variable or file when it cannot be read.
    pub fn from_config(config: &Config, lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        let key = config
            .key
            .resolve("key", lookup)
            .map_err(|e| Error::Config {
                reason: e.to_string(),
            })?;
        // A key is one word: whitespace around it is not part of it.
        let key = SecretString::from(key.expose_secret().trim().to_owned());
        Ok(Client::builder(&config.url)
            .api_key(key)
            .tls(config.tls.clone())
            .http_settings(|http| config.limits.apply(http)))
    }
}
