//! The API key.
//!
//! VyOS reads the key from the request itself, not from a header: the `key` field of the JSON body
//! (or of the form, which 1.3 also accepts) — `vyos-http-api.md`, "Authentication", and
//! `src/services/api/rest/models.py` (`ApiModel.key`) in vyos-1x. The key is added to the body only
//! when the request is built, and cpps-http's `Request` never shows its body in `Debug`.

use std::fmt;

use cpps_http::{ExposeSecret, SecretString};

/// A VyOS HTTPS API key (`service https api keys id ID key KEY`).
#[derive(Clone)]
pub struct ApiKey(SecretString);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: SecretString) -> Self {
        Self(key)
    }

    pub(crate) fn expose(&self) -> &str {
        self.0.expose_secret()
    }
}

impl From<SecretString> for ApiKey {
    fn from(key: SecretString) -> Self {
        Self(key)
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}
