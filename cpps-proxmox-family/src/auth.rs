//! API-token and ticket authentication, shared by PVE and PBS.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use cpps_http::{
    Auth, ExposeSecret, HeaderAuth, HeaderName, HttpClient, Method, Request, SecretString,
};
use serde::Deserialize;
use tokio::sync::{Mutex, RwLock};
use tokio::time::Instant;

use crate::Error;
use crate::{Product, TokenId, UserId};

/// `Authorization: PVEAPIToken=USER@REALM!ID=SECRET` (PVE) or
/// `Authorization: PBSAPIToken=USER@REALM!ID:SECRET` (PBS).
///
/// API tokens need no CSRF token and never expire by themselves; they are the recommended way
/// for automation. The secret never appears in `Debug`.
#[derive(Clone)]
pub struct TokenAuth {
    id: TokenId,
    header: HeaderAuth,
}

impl TokenAuth {
    /// A token header for `product`.
    pub fn new(product: Product, id: TokenId, secret: &SecretString) -> Self {
        let value = format!(
            "{}={}{}{}",
            product.token_scheme(),
            id,
            product.token_separator(),
            secret.expose_secret()
        );
        TokenAuth {
            id,
            header: HeaderAuth::new(
                HeaderName::from_static("authorization"),
                SecretString::from(value),
            ),
        }
    }

    /// The token id.
    pub fn id(&self) -> &TokenId {
        &self.id
    }
}

impl fmt::Debug for TokenAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenAuth")
            .field("id", &self.id)
            .field("secret", &"[redacted]")
            .finish()
    }
}

#[async_trait]
impl Auth for TokenAuth {
    async fn authorize(&self, request: &mut Request) -> Result<(), cpps_http::Error> {
        self.header.authorize(request).await
    }

    /// The whole `PVEAPIToken=…`/`PBSAPIToken=…` value, the token and its secret: a server that
    /// echoes the credential it got must not get it into an error or a report.
    fn secrets(&self) -> Vec<String> {
        self.header.secrets()
    }
}

/// Splits a token written as `USER@REALM!ID=SECRET` (the form of the bpg Terraform provider's
/// `PROXMOX_VE_API_TOKEN`, and of PVE's header) or `USER@REALM!ID:SECRET` (PBS's header) into
/// the id and the secret.
pub fn split_token(text: &str) -> Result<(TokenId, SecretString), Error> {
    let text = text.trim();
    let text = text
        .strip_prefix("PVEAPIToken=")
        .or_else(|| text.strip_prefix("PBSAPIToken="))
        .unwrap_or(text);
    // The token name cannot contain `=` or `:`; the secret is a UUID. Split at the first
    // separator after the `!`.
    let bang = text.find('!').ok_or_else(|| {
        Error::invalid(
            "API token",
            "[redacted]",
            "expected `user@realm!tokenid=secret`",
        )
    })?;
    let sep = text[bang..]
        .find(['=', ':'])
        .map(|i| i + bang)
        .ok_or_else(|| {
            Error::invalid(
                "API token",
                &text[..bang],
                "expected `user@realm!tokenid=secret`: no `=` before the secret",
            )
        })?;
    let id = TokenId::new(&text[..sep])?;
    let secret = &text[sep + 1..];
    if secret.is_empty() {
        return Err(Error::invalid(
            "API token",
            &text[..sep],
            "the secret after `=` is empty",
        ));
    }
    Ok((id, SecretString::from(secret.to_owned())))
}

/// Produces the current TOTP code (six digits) for a second-factor login. Called once per
/// login that asks for a second factor.
pub type TotpSource = Arc<dyn Fn() -> Result<SecretString, String> + Send + Sync>;

/// How long a ticket is used before it is renewed. PVE and PBS tickets are valid for 2 hours
/// (`PVE::AccessControl` and proxmox-auth-api: `TICKET_LIFETIME` 2 h); renewing after one hour
/// leaves room for clock skew and long calls.
pub const DEFAULT_RENEW_AFTER: Duration = Duration::from_secs(3600);

#[derive(Deserialize)]
struct TicketAnswer {
    #[serde(default)]
    ticket: Option<String>,
    #[serde(rename = "CSRFPreventionToken", default)]
    csrf: Option<String>,
    #[serde(rename = "NeedTFA", default, deserialize_with = "crate::de::opt_bool")]
    need_tfa: Option<bool>,
}

struct Ticket {
    ticket: SecretString,
    csrf: Option<SecretString>,
    obtained: Instant,
}

/// Ticket authentication: `POST /access/ticket` with user and password, then the ticket in
/// the `PVEAuthCookie` (or `PBSAuthCookie`) cookie and a `CSRFPreventionToken` header on every
/// request that is not a GET or HEAD.
///
/// - The first request logs in (or call [`TicketAuth::login`] to check credentials early).
/// - A ticket older than the renewal age ([`DEFAULT_RENEW_AFTER`]) is renewed before the next
///   request by posting it as the password, as the Proxmox web UI does; if renewal is refused
///   the password is used again.
/// - When the server answers 401 mid-session (tickets revoked, key rotated), `cpps-http` calls
///   [`Auth::refresh`] once, which logs in again with the password.
/// - A user with a TOTP second factor is supported with [`TicketAuth::with_totp`]: the first
///   answer is a `PVE:!tfa!…` challenge ticket, answered by posting `tfa-challenge` and
///   `password=totp:CODE`.
///
/// Tickets, CSRF tokens and the password are secrets and never appear in `Debug`.
pub struct TicketAuth {
    product: Product,
    login: HttpClient,
    user: UserId,
    password: SecretString,
    totp: Option<TotpSource>,
    renew_after: Duration,
    state: RwLock<Option<Ticket>>,
    login_lock: Mutex<Option<Instant>>,
}

impl fmt::Debug for TicketAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TicketAuth")
            .field("product", &self.product)
            .field("user", &self.user)
            .field("password", &"[redacted]")
            .field("totp", &self.totp.as_ref().map(|_| "[callback]"))
            .field("renew_after", &self.renew_after)
            .finish_non_exhaustive()
    }
}

/// The path of the login endpoint, relative to `/api2/json/`.
pub const TICKET_PATH: &str = "access/ticket";

impl TicketAuth {
    /// Ticket auth for `user`. `client` is the (unauthenticated) client whose connection pool
    /// the login requests share.
    pub fn new(
        product: Product,
        client: &HttpClient,
        user: UserId,
        password: SecretString,
    ) -> Self {
        TicketAuth {
            product,
            login: client.without_auth(),
            user,
            password,
            totp: None,
            renew_after: DEFAULT_RENEW_AFTER,
            state: RwLock::new(None),
            login_lock: Mutex::new(None),
        }
    }

    /// Answers a TOTP second-factor challenge with codes from `source`.
    pub fn with_totp(mut self, source: TotpSource) -> Self {
        self.totp = Some(source);
        self
    }

    /// Renews the ticket once it is older than `age` (default [`DEFAULT_RENEW_AFTER`]; must be
    /// below the 2 h lifetime).
    pub fn renew_after(mut self, age: Duration) -> Self {
        self.renew_after = age;
        self
    }

    /// The user.
    pub fn user(&self) -> &UserId {
        &self.user
    }

    /// Logs in now: `POST /access/ticket` (and the TFA step when asked), replacing any ticket.
    pub async fn login(&self) -> Result<(), cpps_http::Error> {
        let _guard = self.login_lock.lock().await;
        let ticket = self.password_login().await?;
        *self.state.write().await = Some(ticket);
        Ok(())
    }

    /// Whether a ticket is held.
    pub async fn has_ticket(&self) -> bool {
        self.state.read().await.is_some()
    }

    async fn post_ticket(&self, form: &[(&str, &str)]) -> Result<TicketAnswer, cpps_http::Error> {
        let request = Request::post(TICKET_PATH).form(form).idempotent(true);
        let response = self.login.execute(request).await?;
        let status = response.status();
        if !status.is_success() {
            let message = match crate::error_from_response(response) {
                Error::Api { message, .. } | Error::NotFound { message, .. } => message,
                other => other.to_string(),
            };
            return Err(cpps_http::Error::Auth {
                reason: format!(
                    "{} login as {} refused ({status}): {message}",
                    self.product.ticket_prefix(),
                    self.user
                ),
            });
        }
        #[derive(Deserialize)]
        struct Data {
            data: TicketAnswer,
        }
        let data: Data = response.json()?;
        Ok(data.data)
    }

    fn ticket_from(&self, answer: TicketAnswer) -> Result<Ticket, cpps_http::Error> {
        let ticket = answer.ticket.ok_or_else(|| cpps_http::Error::Auth {
            reason: format!("login as {} answered without a ticket", self.user),
        })?;
        Ok(Ticket {
            ticket: SecretString::from(ticket),
            csrf: answer.csrf.map(SecretString::from),
            obtained: Instant::now(),
        })
    }

    async fn password_login(&self) -> Result<Ticket, cpps_http::Error> {
        let answer = self
            .post_ticket(&[
                ("username", self.user.as_str()),
                ("password", self.password.expose_secret()),
            ])
            .await?;
        let challenge = answer
            .ticket
            .as_deref()
            .is_some_and(|t| t.contains("!tfa!"));
        if !(challenge || answer.need_tfa == Some(true)) {
            return self.ticket_from(answer);
        }
        // Second factor (PVE >= 7.2 and PBS): the ticket is a signed challenge; answer it
        // with `tfa-challenge` and `password=totp:CODE` (PVE `POST /access/ticket`,
        // parameter `tfa-challenge` in pve-apidoc.json).
        let Some(totp) = &self.totp else {
            return Err(cpps_http::Error::Auth {
                reason: format!(
                    "user {} needs a second factor (TOTP) and none is configured",
                    self.user
                ),
            });
        };
        let challenge_ticket = answer.ticket.ok_or_else(|| cpps_http::Error::Auth {
            reason: "second-factor challenge without a ticket".to_owned(),
        })?;
        let code = totp().map_err(|reason| cpps_http::Error::Auth {
            reason: format!("no TOTP code for {}: {reason}", self.user),
        })?;
        let password = SecretString::from(format!("totp:{}", code.expose_secret()));
        let answer = self
            .post_ticket(&[
                ("username", self.user.as_str()),
                ("tfa-challenge", &challenge_ticket),
                ("password", password.expose_secret()),
            ])
            .await?;
        if answer
            .ticket
            .as_deref()
            .is_some_and(|t| t.contains("!tfa!"))
        {
            return Err(cpps_http::Error::Auth {
                reason: format!("second factor of {} was not accepted", self.user),
            });
        }
        self.ticket_from(answer)
    }

    /// Renews by posting the current ticket as the password; falls back to the password.
    async fn renew(&self, old: &SecretString) -> Result<Ticket, cpps_http::Error> {
        match self
            .post_ticket(&[
                ("username", self.user.as_str()),
                ("password", old.expose_secret()),
            ])
            .await
        {
            Ok(answer) => self.ticket_from(answer),
            Err(cpps_http::Error::Auth { .. }) => {
                tracing::debug!(user = %self.user, "ticket renewal refused; logging in with the password");
                self.password_login().await
            }
            Err(other) => Err(other),
        }
    }

    /// The ticket to use now, logging in or renewing first when needed.
    async fn current(&self) -> Result<(SecretString, Option<SecretString>), cpps_http::Error> {
        {
            let state = self.state.read().await;
            if let Some(t) = state.as_ref()
                && t.obtained.elapsed() < self.renew_after
            {
                return Ok((t.ticket.clone(), t.csrf.clone()));
            }
        }
        let _guard = self.login_lock.lock().await;
        // Another request may have logged in or renewed while this one waited for the lock.
        let old = {
            let state = self.state.read().await;
            match state.as_ref() {
                Some(t) if t.obtained.elapsed() < self.renew_after => {
                    return Ok((t.ticket.clone(), t.csrf.clone()));
                }
                Some(t) => Some(t.ticket.clone()),
                None => None,
            }
        };
        let fresh = match old {
            Some(old) => self.renew(&old).await?,
            None => self.password_login().await?,
        };
        let out = (fresh.ticket.clone(), fresh.csrf.clone());
        *self.state.write().await = Some(fresh);
        Ok(out)
    }
}

/// How recently a re-login after a 401 must have happened for another 401 to reuse it (so that
/// many requests failing at once cause one re-login, not many).
const RELOGIN_GRACE: Duration = Duration::from_secs(2);

#[async_trait]
impl Auth for TicketAuth {
    /// The password (the ticket changes; the password, which a login answer could echo, does
    /// not).
    fn secrets(&self) -> Vec<String> {
        vec![self.password.expose_secret().to_owned()]
    }

    async fn authorize(&self, request: &mut Request) -> Result<(), cpps_http::Error> {
        let (ticket, csrf) = self.current().await?;
        let cookie = SecretString::from(format!(
            "{}={}",
            self.product.cookie_name(),
            ticket.expose_secret()
        ));
        let taken = std::mem::replace(request, Request::get(""));
        let mut out = taken.sensitive_header(HeaderName::from_static("cookie"), &cookie)?;
        if !matches!(*out.method(), Method::GET | Method::HEAD)
            && let Some(csrf) = csrf
        {
            out = out.sensitive_header(HeaderName::from_static("csrfpreventiontoken"), &csrf)?;
        }
        *request = out;
        Ok(())
    }

    async fn refresh(&self, _client: &HttpClient) -> Result<bool, cpps_http::Error> {
        let mut relogged = self.login_lock.lock().await;
        if relogged.is_some_and(|at| at.elapsed() < RELOGIN_GRACE) {
            // A concurrent request's 401 has just caused a re-login: use its ticket.
            return Ok(true);
        }
        tracing::debug!(user = %self.user, "401 with a ticket; logging in again");
        let fresh = self.password_login().await?;
        *self.state.write().await = Some(fresh);
        *relogged = Some(Instant::now());
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_split_in_both_styles() {
        let (id, secret) = split_token("root@pam!ci=0b7a-11").unwrap();
        assert_eq!(id.to_string(), "root@pam!ci");
        assert_eq!(secret.expose_secret(), "0b7a-11");
        let (id, secret) = split_token("PBSAPIToken=backup@pbs!sync:abc").unwrap();
        assert_eq!(id.to_string(), "backup@pbs!sync");
        assert_eq!(secret.expose_secret(), "abc");
        let err = split_token("root@pam=abc").unwrap_err().to_string();
        assert!(!err.contains("abc"), "{err}");
        assert!(split_token("root@pam!ci=").is_err());
    }

    #[test]
    fn token_debug_hides_the_secret() {
        let (id, secret) = split_token("root@pam!ci=hunter2").unwrap();
        let auth = TokenAuth::new(Product::Pbs, id, &secret);
        let debug = format!("{auth:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("root@pam!ci"), "{debug}");
    }
}

/// How a Proxmox VE or Backup Server client authenticates: an API token, or a user and password
/// for a ticket login. Shared by `cpps-proxmox` and `cpps-pbs`; `Debug` redacts the secrets.
#[derive(Clone)]
pub enum Credentials {
    /// `Authorization: PVEAPIToken=USER@REALM!ID=SECRET` (PVE) or `PBSAPIToken=…:SECRET` (PBS);
    /// recommended for automation (no CSRF token, no expiry).
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
