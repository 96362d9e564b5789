//! PVE credentials: an API token or a user and password (ticket).

use std::fmt;

use cpps_http::SecretString;

use crate::family::{TokenId, UserId};

/// How the client authenticates.
#[derive(Clone)]
#[non_exhaustive]
pub enum Credentials {
    /// `Authorization: PVEAPIToken=USER@REALM!ID=SECRET` (recommended for automation).
    Token {
        /// `user@realm!tokenid`.
        id: TokenId,
        /// The token secret (a UUID).
        secret: SecretString,
    },
    /// Ticket login with a password (`POST /access/ticket`), renewed and re-obtained as needed.
    Password {
        /// `user@realm`.
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
