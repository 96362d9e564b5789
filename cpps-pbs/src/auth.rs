//! Credentials: an API token or a user's password, as `PBS_REPOSITORY` and `PBS_PASSWORD`
//! give them.
//!
//! The header and the ticket flow are `cpps-proxmox`'s, parameterized for PBS:
//! `Authorization: PBSAPIToken=USER@REALM!TOKENID:SECRET` (a `:` before the secret, where PVE
//! writes `=`), or `POST /access/ticket` then the `PBSAuthCookie` cookie and a
//! `CSRFPreventionToken` header on writes.

use std::fmt;
use std::sync::Arc;

use cpps_http::{Auth, HttpClient, SecretString};
use cpps_proxmox::family::{Product, TicketAuth, TokenAuth, TokenId, UserId};

use crate::types::AuthId;

/// How the client authenticates.
#[derive(Clone)]
#[non_exhaustive]
pub enum Credentials {
    /// An API token and its secret (no CSRF token, no expiry).
    Token {
        /// The token id `user@realm!token`.
        id: TokenId,
        /// The secret.
        secret: SecretString,
    },
    /// A user and password, for a ticket login.
    Password {
        /// The user `name@realm`.
        user: UserId,
        /// The password.
        password: SecretString,
    },
}

impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Credentials::Token { id, .. } => f
                .debug_struct("Token")
                .field("id", id)
                .field("secret", &"[redacted]")
                .finish(),
            Credentials::Password { user, .. } => f
                .debug_struct("Password")
                .field("user", user)
                .field("password", &"[redacted]")
                .finish(),
        }
    }
}

impl Credentials {
    /// What `proxmox-backup-client` does with an auth id and `PBS_PASSWORD`: the secret of a
    /// token id, the password of a user id.
    pub fn for_auth_id(auth_id: AuthId, secret: SecretString) -> Self {
        match auth_id {
            AuthId::Token(id) => Credentials::Token { id, secret },
            AuthId::User(user) => Credentials::Password {
                user,
                password: secret,
            },
            // `AuthId` may grow; anything that is not a token logs in with its user.
            other => Credentials::Password {
                user: other.user().clone(),
                password: secret,
            },
        }
    }

    /// The [`Auth`] that attaches these credentials; `http` is the unauthenticated client whose
    /// connection pool ticket logins share.
    pub(crate) fn into_auth(self, http: &HttpClient) -> Arc<dyn Auth> {
        match self {
            Credentials::Token { id, secret } => {
                Arc::new(TokenAuth::new(Product::Pbs, id, &secret))
            }
            Credentials::Password { user, password } => {
                Arc::new(TicketAuth::new(Product::Pbs, http, user, password))
            }
        }
    }
}
