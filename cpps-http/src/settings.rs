//! The words every client's `Config` is written in: where a secret comes from
//! ([`SecretSource`]), how the server is verified ([`TlsMode`], read from its keys by
//! [`TlsKeys`]), and the time limits and size cap of the transport ([`Limits`]).
//!
//! Each service crate has one `Config` built from these, read by serde (an endpoints file), by
//! `Config::from_env` (its documented variables) or written in code; its
//! `ClientBuilder::from_config` is the one path from settings to a client.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use secrecy::ExposeSecret;
use serde::{Deserialize, Deserializer};

use crate::env::Lookup;
use crate::{ClientBuilder, SecretString, TlsMode};

/// A setting that cannot be used: the key (or variable) it is about, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    /// The key (`token`, `password_env`), relative to the client's settings; empty when the
    /// settings as a whole are wrong.
    pub field: String,
    /// What is wrong. Never holds a secret.
    pub reason: String,
}

impl SettingError {
    /// A setting error about `field`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> Self {
        SettingError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}

impl std::error::Error for SettingError {}

/// Where a secret is: given in code, in an environment variable, or in a file.
///
/// `Debug` shows the variable or the path, never a value. An endpoints file may only name a
/// variable or a file (`token_env`, `token_file`); a value comes from code.
#[derive(Clone)]
pub enum SecretSource {
    /// The secret itself (from code).
    Value(SecretString),
    /// The environment variable holding it, read through the lookup given to
    /// [`SecretSource::resolve`]; its value is used as given (a password may end in spaces).
    Env(String),
    /// A file holding it; a final line ending is not part of the secret.
    File(PathBuf),
}

impl SecretSource {
    /// The secret: the value, the variable's value through `lookup`, or the file's text. The
    /// error names `field` and the variable or file, never the value. A variable that is unset
    /// or blank is an error, as is an unreadable or blank file.
    pub fn resolve(&self, field: &str, lookup: Lookup<'_>) -> Result<SecretString, SettingError> {
        let value =
            match self {
                SecretSource::Value(value) => return Ok(value.clone()),
                SecretSource::Env(name) => lookup(name)
                    .filter(|v| !v.trim().is_empty())
                    .ok_or_else(|| {
                        SettingError::new(field, format!("environment variable {name} is not set"))
                    })?,
                SecretSource::File(path) => std::fs::read_to_string(path)
                    .map_err(|e| {
                        SettingError::new(
                            field,
                            format!("cannot read secret file {}: {e}", path.display()),
                        )
                    })?
                    .trim_end_matches(['\n', '\r'])
                    .to_owned(),
            };
        if value.trim().is_empty() {
            return Err(SettingError::new(field, format!("{self:?} is empty")));
        }
        Ok(SecretString::from(value))
    }

    /// The source that a pair of keys `<field>_env` and `<field>_file` names (`None` when
    /// neither is given); giving both is an error naming `<field>_env`.
    pub fn from_keys(
        field: &str,
        env: Option<String>,
        file: Option<PathBuf>,
    ) -> Result<Option<SecretSource>, SettingError> {
        match (env, file) {
            (Some(_), Some(_)) => Err(SettingError::new(
                format!("{field}_env"),
                format!("give `{field}_env` or `{field}_file`, not both"),
            )),
            (Some(name), None) => Ok(Some(SecretSource::Env(name))),
            (None, Some(path)) => Ok(Some(SecretSource::File(path))),
            (None, None) => Ok(None),
        }
    }

    /// [`SecretSource::from_keys`] for a secret the client cannot work without; `what` says
    /// what it is.
    pub fn required_keys(
        field: &str,
        env: Option<String>,
        file: Option<PathBuf>,
        what: &str,
    ) -> Result<SecretSource, SettingError> {
        Self::from_keys(field, env, file)?.ok_or_else(|| {
            SettingError::new("", format!("give {field}_env or {field}_file ({what})"))
        })
    }
}

impl fmt::Debug for SecretSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretSource::Value(_) => f.write_str("Value([redacted])"),
            SecretSource::Env(name) => f.debug_tuple("Env").field(name).finish(),
            SecretSource::File(path) => f.debug_tuple("File").field(path).finish(),
        }
    }
}

/// Two sources are equal when they name the same variable or file, or hold the same value.
impl PartialEq for SecretSource {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (SecretSource::Value(a), SecretSource::Value(b)) => {
                a.expose_secret() == b.expose_secret()
            }
            (SecretSource::Env(a), SecretSource::Env(b)) => a == b,
            (SecretSource::File(a), SecretSource::File(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for SecretSource {}

/// How to verify the server, as the keys of a settings file name it: at most one of
/// `ca_file`, `fingerprint` and `insecure: true`; none means the system's roots.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsKeys {
    /// A PEM file of trusted CA certificates.
    pub ca_file: Option<PathBuf>,
    /// The SHA-256 fingerprint of the server's certificate to pin.
    pub fingerprint: Option<String>,
    /// No verification at all (a lab only).
    #[serde(default)]
    pub insecure: bool,
}

impl TlsKeys {
    /// The mode these keys choose; two of them, or a fingerprint that does not parse, is an
    /// error naming the key.
    pub fn mode(self) -> Result<TlsMode, SettingError> {
        match (self.ca_file, self.fingerprint, self.insecure) {
            (None, None, false) => Ok(TlsMode::SystemRoots),
            (Some(ca), None, false) => Ok(TlsMode::CaFile(ca)),
            (None, Some(fp), false) => TlsMode::pinned(&fp)
                .map_err(|e| SettingError::new("fingerprint", crate::error_chain(&e))),
            (None, None, true) => Ok(TlsMode::DangerAcceptInvalidCerts),
            _ => Err(SettingError::new(
                "",
                "give at most one of ca_file, fingerprint and insecure",
            )),
        }
    }
}

/// A [`TlsMode`] reads from its [`TlsKeys`]: `{fingerprint: "AA:BB:…"}`, `{ca_file: …}`,
/// `{insecure: true}` or `{}` for the system's roots.
impl<'de> Deserialize<'de> for TlsMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        TlsKeys::deserialize(deserializer)?
            .mode()
            .map_err(serde::de::Error::custom)
    }
}

/// The transport's time limits and size cap; what is not set keeps the client's default.
/// A settings file gives seconds: `limits: { connect_timeout: 5, deadline: 60 }`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Time allowed to connect, TLS included.
    #[serde(default, deserialize_with = "seconds")]
    pub connect_timeout: Option<Duration>,
    /// Time allowed for one attempt.
    #[serde(default, deserialize_with = "seconds")]
    pub request_timeout: Option<Duration>,
    /// Time allowed for one call, retries included.
    #[serde(default, deserialize_with = "seconds")]
    pub deadline: Option<Duration>,
    /// Largest response body accepted, in bytes.
    pub max_response_bytes: Option<usize>,
}

impl Limits {
    /// These limits where set, `fallback`'s where not.
    #[must_use]
    pub fn or(self, fallback: Limits) -> Limits {
        Limits {
            connect_timeout: self.connect_timeout.or(fallback.connect_timeout),
            request_timeout: self.request_timeout.or(fallback.request_timeout),
            deadline: self.deadline.or(fallback.deadline),
            max_response_bytes: self.max_response_bytes.or(fallback.max_response_bytes),
        }
    }

    /// `http` with the limits that are set.
    pub fn apply(&self, mut http: ClientBuilder) -> ClientBuilder {
        if let Some(t) = self.connect_timeout {
            http = http.connect_timeout(t);
        }
        if let Some(t) = self.request_timeout {
            http = http.request_timeout(t);
        }
        if let Some(t) = self.deadline {
            http = http.deadline(t);
        }
        if let Some(bytes) = self.max_response_bytes {
            http = http.max_response_bytes(bytes);
        }
        http
    }
}

/// A duration written in seconds (`5`, `0.5`); negative or not finite is refused.
fn seconds<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Duration>, D::Error> {
    let Some(secs) = Option::<f64>::deserialize(deserializer)? else {
        return Ok(None);
    };
    Duration::try_from_secs_f64(secs).map(Some).map_err(|_| {
        serde::de::Error::custom(format!("{secs} is not a number of seconds (0 or more)"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_value_is_never_shown_and_sources_resolve() {
        let value = SecretSource::Value(SecretString::from("hunter2".to_owned()));
        assert_eq!(format!("{value:?}"), "Value([redacted])");
        let env = |name: &str| (name == "T").then(|| "s3cret ".to_owned());
        let got = SecretSource::Env("T".to_owned())
            .resolve("token", &env)
            .unwrap();
        // A variable's value is used as given: a password may end in a space.
        assert_eq!(got.expose_secret(), "s3cret ");
        let missing = SecretSource::Env("U".to_owned())
            .resolve("token", &env)
            .unwrap_err();
        assert_eq!(
            missing.to_string(),
            "token: environment variable U is not set"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("secret");
        std::fs::write(&path, "from-file\n").unwrap();
        let file = SecretSource::File(path).resolve("token", &env).unwrap();
        assert_eq!(file.expose_secret(), "from-file");
    }

    #[test]
    fn keys_name_one_source_and_one_tls_mode() {
        let both = SecretSource::from_keys("password", Some("A".into()), Some("/b".into()));
        assert_eq!(
            both.unwrap_err().to_string(),
            "password_env: give `password_env` or `password_file`, not both"
        );
        let two = TlsKeys {
            ca_file: Some("/ca".into()),
            insecure: true,
            ..TlsKeys::default()
        };
        assert_eq!(
            two.mode().unwrap_err().reason,
            "give at most one of ca_file, fingerprint and insecure"
        );
        let bad = TlsKeys {
            fingerprint: Some("AA:BB".to_owned()),
            ..TlsKeys::default()
        };
        assert_eq!(bad.mode().unwrap_err().field, "fingerprint");
        let mode: TlsMode = serde_json::from_str(r#"{"insecure": true}"#).unwrap();
        assert_eq!(mode, TlsMode::DangerAcceptInvalidCerts);
        assert!(serde_json::from_str::<TlsMode>(r#"{"insecur": true}"#).is_err());
    }

    #[test]
    fn limits_read_seconds_and_fall_back() {
        let limits: Limits =
            serde_json::from_str(r#"{"deadline": 1.5, "max_response_bytes": 10}"#).unwrap();
        assert_eq!(limits.deadline, Some(Duration::from_millis(1500)));
        assert!(serde_json::from_str::<Limits>(r#"{"deadline": -1}"#).is_err());
        let fallback = Limits {
            deadline: Some(Duration::from_secs(9)),
            connect_timeout: Some(Duration::from_secs(2)),
            ..Limits::default()
        };
        let merged = limits.or(fallback);
        assert_eq!(merged.deadline, Some(Duration::from_millis(1500)));
        assert_eq!(merged.connect_timeout, Some(Duration::from_secs(2)));
        assert_eq!(merged.max_response_bytes, Some(10));
    }
}
