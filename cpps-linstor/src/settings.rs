//! The one shape of a LINSTOR client's settings: [`Config`], read from an endpoints file
//! (serde), from golinstor's variables ([`Config::from_env`]) or written in code, and turned
//! into a client by [`ClientBuilder::from_config`] only.

use std::path::PathBuf;

use cpps_http::env::Lookup;
use cpps_http::{
    ClientIdentity, ExposeSecret, Limits, SecretSource, SecretString, SettingError, TlsKeys,
    TlsMode, TlsVars,
};
use serde::Deserialize;

use crate::auth::Credentials;
use crate::client::{
    ENV_BEARER_TOKEN_FILE, ENV_CONTROLLERS, ENV_PASSWORD, ENV_ROOT_CA, ENV_ROOT_CA_FILE,
    ENV_USER_CERTIFICATE, ENV_USER_CERTIFICATE_FILE, ENV_USER_KEY, ENV_USER_KEY_FILE, ENV_USERNAME,
    token_from_file,
};
use crate::{ClientBuilder, Error};

/// How a LINSTOR client authenticates.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Login {
    /// No credentials (the controller's default).
    #[default]
    None,
    /// `Authorization: Bearer`; a file holds the token raw or as JSON `{"token": …}`
    /// (golinstor `tokenFromFile`).
    Bearer(SecretSource),
    /// HTTP Basic; no password means an empty one, as golinstor sends it.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: Option<SecretSource>,
    },
}

/// A client certificate and its key (mutual TLS), each as PEM text in a variable or a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The certificate's PEM.
    pub certificate: SecretSource,
    /// The private key's PEM.
    pub key: SecretSource,
}

/// Everything a LINSTOR client is built from. `Debug` shows no secret.
///
/// In an endpoints file (a secret is named by `…_env` or `…_file`, never written):
///
/// ```yaml
/// controllers: linstor+ssl://10.10.20.1,pve-ippri-11   # LS_CONTROLLERS syntax
/// bearer_token_file: /etc/cpps/linstor-token           # or user: with password_env / _file
/// ca_file: /etc/cpps/linstor-ca.pem
/// limits: { deadline: 60 }
/// resources_view_max_response_bytes: 134217728
/// ```
///
/// Entries of `controllers` without a scheme use https when TLS material is given (a CA or
/// an identity), as golinstor's `defaultScheme` does.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(try_from = "Keys")]
pub struct Config {
    /// The controllers, an `LS_CONTROLLERS` list ([`crate::ControllerList`]).
    pub controllers: String,
    /// The credentials.
    pub login: Login,
    /// How the controllers' certificates are verified.
    pub tls: TlsMode,
    /// A client certificate to present.
    pub identity: Option<Identity>,
    /// Timeouts and the response-size cap.
    pub limits: Limits,
    /// The cap of the unpaged resources view
    /// ([`ClientBuilder::resources_view_max_response_bytes`]).
    pub resources_view_max_response_bytes: Option<usize>,
}

/// The keys of [`Config`] in a file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Keys {
    controllers: String,
    bearer_token_env: Option<String>,
    bearer_token_file: Option<PathBuf>,
    user: Option<String>,
    password_env: Option<String>,
    password_file: Option<PathBuf>,
    ca_file: Option<PathBuf>,
    #[serde(default)]
    limits: Limits,
    resources_view_max_response_bytes: Option<usize>,
}

impl TryFrom<Keys> for Config {
    type Error = SettingError;

    fn try_from(k: Keys) -> Result<Self, SettingError> {
        let bearer =
            SecretSource::from_keys("bearer_token", k.bearer_token_env, k.bearer_token_file)?;
        let password = SecretSource::from_keys("password", k.password_env, k.password_file)?;
        let login = match (bearer, k.user) {
            (Some(token), _) => Login::Bearer(token),
            (None, Some(user)) => Login::Basic { user, password },
            (None, None) => Login::None,
        };
        let tls = TlsKeys {
            ca_file: k.ca_file,
            ..TlsKeys::default()
        }
        .mode()?;
        Ok(Config {
            controllers: k.controllers,
            login,
            tls,
            identity: None,
            limits: k.limits,
            resources_view_max_response_bytes: k.resources_view_max_response_bytes,
        })
    }
}

impl Config {
    /// The settings golinstor's variables give, read through `lookup` (see
    /// [`ClientBuilder::from_env`] for the table). Secrets stay where they are: the config
    /// names the variable or file, [`ClientBuilder::from_config`] reads it.
    pub fn from_env(lookup: Lookup<'_>) -> Result<Config, Error> {
        let get = |name: &str| cpps_http::env::get(lookup, name);
        let login = if let Some(path) = get(ENV_BEARER_TOKEN_FILE) {
            Login::Bearer(SecretSource::File(path.into()))
        } else if let Some(user) = get(ENV_USERNAME) {
            Login::Basic {
                user,
                password: get(ENV_PASSWORD).map(|_| SecretSource::Env(ENV_PASSWORD.to_owned())),
            }
        } else {
            Login::None
        };
        let tls_vars = TlsVars::new().ca_pem(ENV_ROOT_CA).ca_file(ENV_ROOT_CA_FILE);
        let tls = TlsMode::from_env(&tls_vars, lookup)?.unwrap_or_default();
        let one_of = |pem: &'static str, file: &'static str| match (get(pem), get(file)) {
            (Some(_), Some(_)) => Err(Error::InvalidArgument {
                name: pem,
                reason: format!("{pem} and {file} are both set; set only one"),
            }),
            (Some(_), None) => Ok(Some(SecretSource::Env(pem.to_owned()))),
            (None, Some(path)) => Ok(Some(SecretSource::File(path.into()))),
            (None, None) => Ok(None),
        };
        // The pairing is checked before any file is read, as golinstor does.
        let identity = match (
            one_of(ENV_USER_CERTIFICATE, ENV_USER_CERTIFICATE_FILE)?,
            one_of(ENV_USER_KEY, ENV_USER_KEY_FILE)?,
        ) {
            (Some(certificate), Some(key)) => Some(Identity { certificate, key }),
            (None, None) => None,
            (certificate, _) => {
                return Err(Error::InvalidArgument {
                    name: if certificate.is_some() {
                        ENV_USER_KEY
                    } else {
                        ENV_USER_CERTIFICATE
                    },
                    reason: "LS_USER_CERTIFICATE[_FILE] and LS_USER_KEY[_FILE]: set both or none"
                        .to_owned(),
                });
            }
        };
        Ok(Config {
            controllers: get(ENV_CONTROLLERS).unwrap_or_else(|| "localhost".to_owned()),
            login,
            tls,
            identity,
            limits: Limits::default(),
            resources_view_max_response_bytes: None,
        })
    }
}

/// The secret of `source` for the key `field`, as a LINSTOR error naming the key.
fn secret(
    source: &SecretSource,
    field: &'static str,
    lookup: Lookup<'_>,
) -> Result<SecretString, Error> {
    source
        .resolve(field, lookup)
        .map_err(|e| Error::InvalidArgument {
            name: field,
            reason: e.reason,
        })
}

impl ClientBuilder {
    /// The builder `config` describes, its secrets read now through `lookup` (variables) or
    /// from their files: the one path from settings to a client, TLS included.
    pub fn from_config(config: &Config, lookup: Lookup<'_>) -> Result<ClientBuilder, Error> {
        let credentials = match &config.login {
            Login::None => Credentials::None,
            Login::Bearer(SecretSource::File(path)) => {
                Credentials::bearer(token_from_file(&path.display().to_string())?)
            }
            Login::Bearer(token) => Credentials::bearer(secret(token, "bearer_token", lookup)?),
            Login::Basic { user, password } => {
                let password = match password {
                    Some(p) => secret(p, "password", lookup)?,
                    None => SecretString::from(String::new()),
                };
                Credentials::basic(user.clone(), password)
            }
        };
        let default_https = config.tls != TlsMode::SystemRoots || config.identity.is_some();
        let mut builder = crate::Client::builder(config.controllers.clone())
            .default_https(default_https)
            .credentials(credentials)
            .tls(config.tls.clone())
            .http_settings(|http| config.limits.apply(http));
        if let Some(identity) = &config.identity {
            let certificate = secret(&identity.certificate, "certificate", lookup)?;
            let key = secret(&identity.key, "key", lookup)?;
            builder = builder.client_identity(ClientIdentity::from_pem(
                certificate.expose_secret().as_bytes().to_vec(),
                key.expose_secret().as_bytes().to_vec(),
            ));
        }
        if let Some(bytes) = config.resources_view_max_response_bytes {
            builder = builder.resources_view_max_response_bytes(bytes);
        }
        Ok(builder)
    }
}
