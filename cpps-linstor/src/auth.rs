//! Credentials for the controller's REST API: none, HTTP Basic, or a bearer token.
//!
//! Client certificates are configured on the builder ([`crate::ClientBuilder::client_identity`]):
//! they are part of TLS, not of a header.

use std::fmt;
use std::sync::Arc;

use cpps_http::{Auth, HeaderAuth, SecretString};

/// How the client authenticates to the controller.
#[derive(Clone, Default)]
#[non_exhaustive]
pub enum Credentials {
    /// No credentials (the controller's default).
    #[default]
    None,
    /// HTTP Basic authentication (LINSTOR with LDAP authentication).
    Basic {
        /// User name.
        user: String,
        /// Password.
        password: SecretString,
    },
    /// `Authorization: Bearer <token>` (LINSTOR's auth tokens, `/v1/controller/auth/token`).
    Bearer(SecretString),
}

impl Credentials {
    /// HTTP Basic credentials.
    pub fn basic(user: impl Into<String>, password: SecretString) -> Self {
        Credentials::Basic {
            user: user.into(),
            password,
        }
    }

    /// A bearer token.
    pub fn bearer(token: SecretString) -> Self {
        Credentials::Bearer(token)
    }

    pub(crate) fn to_auth(&self) -> Option<Arc<dyn Auth>> {
        match self {
            Credentials::None => None,
            Credentials::Basic { user, password } => {
                Some(Arc::new(HeaderAuth::basic(user, password)))
            }
            Credentials::Bearer(token) => Some(Arc::new(HeaderAuth::bearer(token))),
        }
    }
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::None => f.write_str("None"),
            Credentials::Basic { user, .. } => f
                .debug_struct("Basic")
                .field("user", user)
                .field("password", &"[redacted]")
                .finish(),
            Credentials::Bearer(_) => f.write_str("Bearer([redacted])"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_secrets() {
        let basic = Credentials::basic("admin", SecretString::from("hunter2"));
        let bearer = Credentials::bearer(SecretString::from("tok-123"));
        let text = format!("{basic:?} {bearer:?}");
        assert!(!text.contains("hunter2"), "{text}");
        assert!(!text.contains("tok-123"), "{text}");
        assert!(text.contains("admin"), "{text}");
    }
}
