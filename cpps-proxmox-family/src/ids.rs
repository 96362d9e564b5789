//! The product switch and the user and token ids shared by PVE and PBS.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::Error;

/// Which Proxmox product a client talks to: the login flow, cookie and token header differ
/// only in names and one separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Product {
    /// Proxmox VE (`PVEAuthCookie`, `PVEAPIToken=USER@REALM!ID=SECRET`, port 8006).
    Pve,
    /// Proxmox Backup Server (`PBSAuthCookie`, `PBSAPIToken=USER@REALM!ID:SECRET`, port 8007).
    Pbs,
}

impl Product {
    /// The name of the ticket cookie.
    pub fn cookie_name(self) -> &'static str {
        match self {
            Product::Pve => "PVEAuthCookie",
            Product::Pbs => "PBSAuthCookie",
        }
    }

    /// The prefix of the API-token `Authorization` header value.
    pub fn token_scheme(self) -> &'static str {
        match self {
            Product::Pve => "PVEAPIToken",
            Product::Pbs => "PBSAPIToken",
        }
    }

    /// The character between token id and secret in the token header (`=` for PVE, `:` for
    /// PBS; see PVE's `PVE::APIServer::AnyEvent` and proxmox-backup's `extract_auth_data`).
    pub fn token_separator(self) -> char {
        match self {
            Product::Pve => '=',
            Product::Pbs => ':',
        }
    }

    /// The prefix of a ticket (`PVE:` or `PBS:`), also used to recognise a TFA challenge
    /// ticket (`PVE:!tfa!…`).
    pub fn ticket_prefix(self) -> &'static str {
        match self {
            Product::Pve => "PVE",
            Product::Pbs => "PBS",
        }
    }

    /// The default API port.
    pub fn default_port(self) -> u16 {
        match self {
            Product::Pve => 8006,
            Product::Pbs => 8007,
        }
    }
}

fn valid_realm(realm: &str) -> bool {
    // The safe-id syntax (pve-apidoc.json / pbs-apidoc.json `realm` pattern).
    (crate::names::SAFE_ID.matches)(realm)
}

fn valid_user_name(name: &str) -> bool {
    // `[^\s:/[:cntrl:]]+`
    !name.is_empty()
        && !name
            .chars()
            .any(|c| c.is_whitespace() || c == ':' || c == '/' || c.is_control())
}

/// Validates `name@realm`: what [`UserId`] checks.
fn check_user_id(text: &str) -> Result<(), Error> {
    let (name, realm) = text
        .rsplit_once('@')
        .ok_or_else(|| Error::invalid("user id", text, "expected `name@realm`"))?;
    if !valid_user_name(name) {
        return Err(Error::invalid(
            "user id",
            text,
            "the name must not be empty nor contain spaces, `:` or `/`",
        ));
    }
    if !valid_realm(realm) {
        return Err(Error::invalid(
            "user id",
            text,
            "the realm must match [A-Za-z0-9_][A-Za-z0-9._-]*",
        ));
    }
    if text.len() > 64 {
        return Err(Error::invalid("user id", text, "longer than 64 characters"));
    }
    Ok(())
}

cpps_http::validated_string! {
    /// A user id `name@realm` (`root@pam`, `ci@pve`).
    #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub struct UserId(String);
    check = check_user_id;
    error = Error;
}

impl UserId {
    /// The realm (`pam`, `pve`, …).
    pub fn realm(&self) -> &str {
        self.0.rsplit_once('@').map_or("", |(_, r)| r)
    }
}

/// An API-token id `name@realm!token` (the part before the secret).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenId {
    user: UserId,
    token: String,
}

impl TokenId {
    /// Validates `name@realm!token`.
    pub fn new(text: &str) -> Result<Self, Error> {
        let (user, token) = text
            .split_once('!')
            .ok_or_else(|| Error::invalid("API token id", text, "expected `user@realm!token`"))?;
        let user = UserId::new(user)?;
        if !valid_realm(token) {
            return Err(Error::invalid(
                "API token id",
                text,
                "the token name must match [A-Za-z0-9_][A-Za-z0-9._-]*",
            ));
        }
        Ok(TokenId {
            user,
            token: token.to_owned(),
        })
    }

    /// The owning user.
    pub fn user(&self) -> &UserId {
        &self.user
    }

    /// The token name (after `!`).
    pub fn token_name(&self) -> &str {
        &self.token
    }
}

/// Who ran something: a user or an API token (`root@pam` or `root@pam!ci`), as in task
/// UPIDs and task lists.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum AuthId {
    /// A user.
    User(UserId),
    /// An API token.
    Token(TokenId),
}

impl AuthId {
    /// The user (the token's owner for a token).
    pub fn user(&self) -> &UserId {
        match self {
            AuthId::User(u) => u,
            AuthId::Token(t) => t.user(),
        }
    }
}

impl AuthId {
    /// Who started a task, from the `user` and `tokenid` members of a task answer.
    ///
    /// PVE splits a token's id in its task lists and task status (pve-manager
    /// `PVE/API2/Tasks.pm`, `convert_token_task`: `user` is `root@pam`, `tokenid` is `tok`);
    /// PBS splits it in the task status (proxmox-backup `src/api2/node/tasks.rs`,
    /// `get_task_status`: `user` from `Authid::user`, `tokenid` the token name) but sends the
    /// whole `root@pam!tok` as `user` in task lists (`into_task_list_item`). Both forms give
    /// the same id; `None` when the text is not a valid id.
    pub fn from_task_fields(user: &str, tokenid: Option<&str>) -> Option<AuthId> {
        match tokenid.filter(|t| !t.is_empty()) {
            Some(token) if !user.contains('!') => format!("{user}!{token}").parse().ok(),
            _ => user.parse().ok(),
        }
    }
}

impl FromStr for AuthId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        if s.contains('!') {
            TokenId::new(s).map(AuthId::Token)
        } else {
            UserId::new(s).map(AuthId::User)
        }
    }
}

impl fmt::Display for AuthId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthId::User(u) => u.fmt(f),
            AuthId::Token(t) => t.fmt(f),
        }
    }
}

/// `Debug` of the ids shows their text, as `TokenId(root@pam!ci)`; `TokenId` and `AuthId` are
/// read and written as their text too, serde through `FromStr` and `Display`.
fn debug_as_text(f: &mut fmt::Formatter<'_>, ty: &str, text: &dyn fmt::Display) -> fmt::Result {
    write!(f, "{ty}({text})")
}

impl fmt::Debug for UserId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_as_text(f, "UserId", self)
    }
}

impl fmt::Debug for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_as_text(f, "TokenId", self)
    }
}

impl fmt::Debug for AuthId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_as_text(f, "AuthId", self)
    }
}

impl Serialize for TokenId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for AuthId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for TokenId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl<'de> Deserialize<'de> for AuthId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

impl FromStr for TokenId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        TokenId::new(s)
    }
}

impl fmt::Display for TokenId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}!{}", self.user, self.token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_and_print() {
        let t: TokenId = "root@pam!ci".parse().unwrap();
        assert_eq!(t.user().as_str(), "root@pam");
        assert_eq!(t.token_name(), "ci");
        assert_eq!(t.to_string(), "root@pam!ci");
        let a: AuthId = "ops@pve!runbook".parse().unwrap();
        assert!(matches!(a, AuthId::Token(_)));
        assert_eq!(a.user().realm(), "pve");
        assert!("root".parse::<UserId>().is_err());
        assert!("root@".parse::<UserId>().is_err());
        assert!("a b@pam".parse::<UserId>().is_err());
        assert!("root@pam!".parse::<TokenId>().is_err());
    }

    #[test]
    fn task_authors_read_in_both_layouts() {
        let split = AuthId::from_task_fields("root@pam", Some("ci")).unwrap();
        let whole = AuthId::from_task_fields("root@pam!ci", None).unwrap();
        assert_eq!(split, whole);
        assert!(matches!(split, AuthId::Token(_)));
        assert_eq!(
            AuthId::from_task_fields("root@pam", None)
                .unwrap()
                .to_string(),
            "root@pam"
        );
        assert_eq!(
            AuthId::from_task_fields("root@pam!ci", Some("ci"))
                .unwrap()
                .to_string(),
            "root@pam!ci"
        );
    }
}
