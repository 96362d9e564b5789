//! The API key.
//!
//! VyOS reads the key from the request itself, not from a header: the `key` field of the JSON body
//! (or of the form, which 1.3 also accepts) — `vyos-http-api.md`, "Authentication", and
//! `ApiModel.key` in vyos-1x `src/services/api/rest/models.py` (1.5) and
//! `src/services/vyos-http-api-server` (1.4, branch `sagitta`). The key is added to the body only
//! when the request is built, and cpps-http's `Request` never shows its body in `Debug`. The key
//! is also handed to cpps-http as a secret to scrub ([`KeyScrub`]), so a router that echoes it in
//! an error message never gets it into an [`crate::Error`].

use std::fmt;

use cpps_http::{ExposeSecret, Request, SecretString};

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

/// The key as cpps-http sees it: nothing to add to the headers (the key is in the body), one
/// secret to scrub from every text the router sends back.
#[derive(Clone)]
pub(crate) struct KeyScrub(pub(crate) ApiKey);

impl fmt::Debug for KeyScrub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("KeyScrub([redacted])")
    }
}

#[async_trait::async_trait]
impl cpps_http::Auth for KeyScrub {
    async fn authorize(&self, _request: &mut Request) -> Result<(), cpps_http::Error> {
        Ok(())
    }

    fn secrets(&self) -> Vec<String> {
        vec![self.0.expose().to_owned()]
    }
}
