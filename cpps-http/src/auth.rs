//! The hook through which service crates attach credentials.

use std::fmt;

use async_trait::async_trait;

use crate::{Error, HttpClient, Request};

/// Attaches credentials to requests, and refreshes them when the server says they expired.
///
/// Implementations hold their secrets as [`SecretString`](crate::SecretString), add them with
/// [`Request::sensitive_header`], and write `Debug` by hand so that no secret is printed.
#[async_trait]
pub trait Auth: Send + Sync + fmt::Debug {
    /// Adds credentials to an outgoing request (called before every attempt).
    async fn authorize(&self, request: &mut Request) -> Result<(), Error>;

    /// Called at most once per call, when the server answered 401. Returns `true` when new
    /// credentials were obtained and the request should be sent once more. `client` is the
    /// calling client; use [`HttpClient::without_auth`] for login requests.
    async fn refresh(&self, client: &HttpClient) -> Result<bool, Error> {
        let _ = client;
        Ok(false)
    }

    /// Every form of the credential this auth sends (header values, the secret alone, a
    /// password, base64 forms): the client scrubs them from any text that comes back from the
    /// server ([`Scrubber`](crate::Scrubber)), so an echoed credential never reaches an error,
    /// a log line or a report. [`header_value_forms`](crate::header_value_forms) derives the
    /// usual forms of an `Authorization` value. Implementations with a credential that changes
    /// (a ticket) return the forms that cannot change (the password).
    fn secrets(&self) -> Vec<String> {
        Vec::new()
    }
}

/// A fixed header carrying a secret, such as `Authorization: PVEAPIToken=…` or a bearer token.
#[derive(Clone)]
pub struct HeaderAuth {
    name: http::HeaderName,
    value: crate::SecretString,
}

impl HeaderAuth {
    /// Sends `value` in header `name` on every request, marked sensitive.
    pub fn new(name: http::HeaderName, value: crate::SecretString) -> Self {
        HeaderAuth { name, value }
    }

    /// `Authorization: Bearer <token>`.
    pub fn bearer(token: &crate::SecretString) -> Self {
        use secrecy::ExposeSecret;
        HeaderAuth::new(
            http::header::AUTHORIZATION,
            crate::SecretString::from(format!("Bearer {}", token.expose_secret())),
        )
    }

    /// `Authorization: Basic <base64(user:password)>`.
    pub fn basic(user: &str, password: &crate::SecretString) -> Self {
        use secrecy::ExposeSecret;
        let raw = format!("{user}:{}", password.expose_secret());
        HeaderAuth::new(
            http::header::AUTHORIZATION,
            crate::SecretString::from(format!("Basic {}", base64_encode(raw.as_bytes()))),
        )
    }
}

impl fmt::Debug for HeaderAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HeaderAuth")
            .field("name", &self.name)
            .field("value", &"[redacted]")
            .finish()
    }
}

#[async_trait]
impl Auth for HeaderAuth {
    async fn authorize(&self, request: &mut Request) -> Result<(), Error> {
        let taken = std::mem::replace(request, Request::get(""));
        *request = taken.sensitive_header(self.name.clone(), &self.value)?;
        Ok(())
    }

    fn secrets(&self) -> Vec<String> {
        use secrecy::ExposeSecret;
        crate::header_value_forms(self.value.expose_secret())
    }
}

fn base64_encode(input: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_auth_uses_standard_base64() {
        assert_eq!(
            base64_encode(b"Aladdin:open sesame"),
            "QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
    }
}
