//! Credentials: an API token or a user's password, as `PBS_REPOSITORY` and `PBS_PASSWORD`
//! give them.
//!
//! The header and the ticket flow are `cpps-proxmox`'s, parameterized for PBS:
//! `Authorization: PBSAPIToken=USER@REALM!TOKENID:SECRET` (a `:` before the secret, where PVE
//! writes `=`), or `POST /access/ticket` then the `PBSAuthCookie` cookie and a
//! `CSRFPreventionToken` header on writes.

use std::sync::Arc;

use cpps_http::{Auth, HttpClient, SecretString};
use cpps_proxmox_family::{Product, TicketAuth, TokenAuth};

use crate::types::AuthId;

/// The shared Proxmox-family credentials (`cpps_proxmox_family::Credentials`).
pub use cpps_proxmox_family::Credentials;

/// What `proxmox-backup-client` does with an auth id and `PBS_PASSWORD`: the secret of a token
/// id, the password of a user id.
pub fn credentials_for(auth_id: AuthId, secret: SecretString) -> Credentials {
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

/// The [`Auth`] that attaches `credentials` for PBS; `http` is the unauthenticated client whose
/// connection pool ticket logins share.
pub(crate) fn pbs_auth(credentials: Credentials, http: &HttpClient) -> Arc<dyn Auth> {
    match credentials {
        Credentials::Token { id, secret } => Arc::new(TokenAuth::new(Product::Pbs, id, &secret)),
        Credentials::Password { user, password } => {
            Arc::new(TicketAuth::new(Product::Pbs, http, user, password))
        }
    }
}
