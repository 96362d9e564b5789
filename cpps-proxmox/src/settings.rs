//! The one shape of a PVE client's settings: [`Config`], read from an endpoints file (serde),
//! from the bpg Terraform provider's variables ([`Config::from_env`]) or written in code, and
//! turned into a client by [`ClientBuilder::from_config`] only.

use std::path::PathBuf;

use cpps_http::env::Lookup;
use cpps_http::{ExposeSecret, Limits, SecretSource, SettingError, TlsKeys, TlsMode};
use serde::Deserialize;

use crate::client::{ENV_API_TOKEN, ENV_ENDPOINT, ENV_PASSWORD, ENV_USERNAME, tls_vars};
use crate::{Client, ClientBuilder, Error};

/// How a PVE client logs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Login {
    /// An API token `user@realm!id=secret` (the secret part of the text is the secret).
    Token(SecretSource),
    /// A user (`root@pam`) and password: a ticket login.
    Password {
        /// The user id.
        user: String,
        /// The password.
        password: SecretSource,
    },
}

/// Everything a PVE client is built from. `Debug` shows no secret.
///
/// In an endpoints file (every key but `url` and the login optional; a secret is named by
/// `token_env`/`token_file` or `password_env`/`password_file`, never written):
///
/// ```yaml
/// url: https://pve-ippri-31.example:8006/
/// token_env: PVE_SP_TOKEN           # or user: root@pam with password_env / password_file
/// fingerprint: AA:BB:…              # or ca_file: /etc/pve/pve-root-ca.pem, or insecure: true
/// limits: { deadline: 60 }          # connect_timeout, request_timeout, max_response_bytes
/// list_max_response_bytes: 33554432
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Keys")]
pub struct Config {
    /// `https://host:8006/` (`/api2/json` is added).
    pub url: String,
    /// The credentials.
    pub login: Login,
    /// How the server's certificate is verified.
    pub tls: TlsMode,
    /// Timeouts and the response-size cap.
    pub limits: Limits,
    /// The cap of list calls ([`ClientBuilder::list_max_response_bytes`]).
    pub list_max_response_bytes: Option<usize>,
}

/// The keys of [`Config`] in a file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    url: String,
    token_env: Option<String>,
    token_file: Option<PathBuf>,
    user: Option<String>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    fingerprint: Option<String>,
    #[serde(default)]
    insecure: bool,
    #[serde(default)]
    limits: Limits,
    list_max_response_bytes: Option<usize>,
}

impl TryFrom<Keys> for Config {
    type Error = SettingError;

    fn try_from(k: Keys) -> Result<Self, SettingError> {
        let token = SecretSource::from_keys("token", k.token_env, k.token_file)?;
        let password = SecretSource::from_keys("password", k.password_env, k.password_file)?;
        let login = match (token, k.user, password) {
            (Some(token), None, None) => Login::Token(token),
            (None, Some(user), Some(password)) => Login::Password { user, password },
            _ => {
                return Err(SettingError::new(
                    "",
                    "give token_env/token_file, or user with password_env/password_file",
                ));
            }
        };
        let tls = TlsKeys {
            ca_file: k.ca_file,
            fingerprint: k.fingerprint,
            insecure: k.insecure,
        }
        .mode()?;
        Ok(Config {
            url: k.url,
            login,
            tls,
            limits: k.limits,
            list_max_response_bytes: k.list_max_response_bytes,
        })
    }
}

impl Config {
    /// The settings the bpg Terraform provider's variables give, read through `lookup` (see
    /// [`ClientBuilder::from_env`] for the table). Secrets stay in their variables: the
    /// config names them, [`ClientBuilder::from_config`] reads them.
    pub fn from_env(lookup: Lookup<'_>) -> Result<Config, Error> {
        let get = |name: &str| cpps_http::env::get(lookup, name);
        let url = get(ENV_ENDPOINT).ok_or_else(|| Error::Config {
            name: ENV_ENDPOINT,
            reason: format!("{ENV_ENDPOINT} is not set (e.g. https://host:8006/)"),
        })?;
        let login = match (get(ENV_API_TOKEN), get(ENV_USERNAME), lookup(ENV_PASSWORD)) {
            (Some(_), _, _) => Login::Token(SecretSource::Env(ENV_API_TOKEN.to_owned())),
            (None, Some(user), Some(password)) if !password.is_empty() => Login::Password {
                user,
                password: SecretSource::Env(ENV_PASSWORD.to_owned()),
            },
            (None, Some(_), _) => {
                return Err(Error::Config {
                    name: ENV_PASSWORD,
                    reason: format!("{ENV_USERNAME} is set but {ENV_PASSWORD} is not"),
                });
            }
            (None, None, _) => {
                return Err(Error::Config {
                    name: "credentials",
                    reason: format!("set {ENV_API_TOKEN}, or {ENV_USERNAME} and {ENV_PASSWORD}"),
                });
            }
        };
        let tls = TlsMode::from_env(&tls_vars(), lookup).map_err(|e| Error::Config {
            name: "TLS",
            reason: crate::inventory::error_chain(&e),
        })?;
        Ok(Config {
            url,
            login,
            tls: tls.unwrap_or_default(),
            limits: Limits::default(),
            list_max_response_bytes: None,
        })
    }
}

fn setting(e: SettingError) -> Error {
    Error::Config {
        name: "settings",
        reason: e.to_string(),
    }
}

impl ClientBuilder {
    /// The builder `config` describes, its secrets read now through `lookup` (variables) or
    /// from their files: the one path from settings to a client, TLS included.
    pub fn from_config(config: &Config, lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        let mut builder = Client::builder(config.url.clone());
        builder = match &config.login {
            Login::Token(token) => {
                let token = token.resolve("token", lookup).map_err(setting)?;
                builder
                    .api_token_str(token.expose_secret().trim())
                    .map_err(|e| Error::Config {
                        name: "token",
                        reason: format!("token: {e}"),
                    })?
            }
            Login::Password { user, password } => {
                let user = user.parse().map_err(|e| Error::Config {
                    name: "user",
                    reason: format!("user `{user}`: {e}"),
                })?;
                builder.password(user, password.resolve("password", lookup).map_err(setting)?)
            }
        };
        builder = builder
            .tls(config.tls.clone())
            .http_settings(|http| config.limits.apply(http));
        if let Some(bytes) = config.list_max_response_bytes {
            builder = builder.list_max_response_bytes(bytes);
        }
        Ok(builder)
    }
}
