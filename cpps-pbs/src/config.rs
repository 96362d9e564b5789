//! The repository as `proxmox-backup-client` writes it in `PBS_REPOSITORY`.

use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::str::FromStr;

use crate::types::{AuthId, DatastoreName};
use crate::{DEFAULT_PORT, Error};

/// A backup repository: `[[auth-id@]host[:port]:]datastore`, as `proxmox-backup-client` writes it.
///
/// The parsing follows proxmox-backup's `BackupRepository` and `BACKUP_REPO_URL_REGEX`:
/// the auth id is a user (`user@realm`) or an API token (`user@realm!token`); the host is a
/// DNS name, an IPv4 address or an IPv6 address in brackets (`[fd00::1]`); the port is 1 to 5
/// digits; the datastore is required. Defaults: host `localhost`, port 8007, user `root@pam`.
///
/// ```
/// use cpps_pbs::Repository;
///
/// let repo: Repository = "sync@pbs!report@[fd00::7]:8008:store1".parse()?;
/// assert_eq!(repo.host(), "[fd00::7]");
/// assert_eq!(repo.port(), 8008);
/// assert_eq!(repo.auth_id().to_string(), "sync@pbs!report");
/// assert_eq!(repo.store().as_str(), "store1");
/// assert_eq!(repo.base_url().as_str(), "https://[fd00::7]:8008/api2/json/");
/// # Ok::<(), cpps_pbs::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repository {
    auth_id: Option<AuthId>,
    host: Option<String>,
    port: Option<u16>,
    store: DatastoreName,
}

impl Repository {
    /// A repository from its parts; a bare IPv6 host is put in brackets.
    pub fn new(
        auth_id: Option<AuthId>,
        host: Option<String>,
        port: Option<u16>,
        store: DatastoreName,
    ) -> Self {
        let host = host.map(|host| {
            if host.parse::<Ipv6Addr>().is_ok() {
                format!("[{host}]")
            } else {
                host
            }
        });
        Repository {
            auth_id,
            host,
            port,
            store,
        }
    }

    /// The auth id, `root@pam` when the repository names none.
    pub fn auth_id(&self) -> AuthId {
        self.auth_id
            .clone()
            .unwrap_or_else(|| "root@pam".parse().expect("`root@pam` is a valid user id"))
    }

    /// The host, `localhost` when the repository names none (IPv6 addresses in brackets).
    pub fn host(&self) -> &str {
        self.host.as_deref().unwrap_or("localhost")
    }

    /// The port, 8007 when the repository names none.
    pub fn port(&self) -> u16 {
        self.port.unwrap_or(DEFAULT_PORT)
    }

    /// The datastore.
    pub fn store(&self) -> &DatastoreName {
        &self.store
    }

    /// The API base URL, `https://host:port/api2/json/`.
    pub fn base_url(&self) -> url::Url {
        // The host was validated as a DNS name or an IP address, so the URL is well formed.
        url::Url::parse(&format!(
            "https://{}:{}/api2/json/",
            self.host(),
            self.port()
        ))
        .unwrap_or_else(|_| unreachable_url())
    }
}

fn unreachable_url() -> url::Url {
    url::Url::parse("https://localhost:8007/api2/json/").expect("a constant URL parses")
}

impl serde::Serialize for Repository {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Repository {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Repository {
    /// Writes the repository as `proxmox-backup-client` does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.auth_id, &self.host, self.port) {
            (Some(auth_id), _, _) => write!(
                f,
                "{auth_id}@{}:{}:{}",
                self.host(),
                self.port(),
                self.store
            ),
            (None, Some(host), None) => write!(f, "{host}:{}", self.store),
            (None, _, Some(port)) => write!(f, "{}:{port}:{}", self.host(), self.store),
            (None, None, None) => write!(f, "{}", self.store),
        }
    }
}

fn bad_repository(input: &str, reason: impl Into<String>) -> Error {
    Error::Invalid {
        kind: "repository",
        input: input.chars().take(120).collect(),
        reason: reason.into(),
    }
}

fn is_dns_name(host: &str) -> bool {
    // `DNS_NAME_STR` of pbs-api-types: dot-separated labels of letters, digits and `-`, neither
    // starting nor ending with `-`.
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

impl FromStr for Repository {
    type Err = Error;

    fn from_str(input: &str) -> Result<Self, Error> {
        let text = input.trim();
        if text.is_empty() {
            return Err(bad_repository(
                input,
                "is empty; expected `[[user@realm!token]@]host[:port]:datastore`",
            ));
        }
        // The datastore never contains `:` (nor `]`), so it is what follows the last `:`.
        let (prefix, store) = match text.rsplit_once(':') {
            Some((prefix, store)) => (Some(prefix), store),
            None => (None, text),
        };
        let store = DatastoreName::new(store)
            .map_err(|e| bad_repository(input, format!("datastore: {e}")))?;
        let Some(prefix) = prefix else {
            return Ok(Repository::new(None, None, None, store));
        };
        // Hosts hold no `@`, so the last `@` ends the auth id.
        let (auth_id, host_port) = match prefix.rfind('@') {
            Some(at) => {
                let auth = prefix[..at].parse::<AuthId>().map_err(|e| {
                    bad_repository(
                        input,
                        format!("{e} (expected `user@realm` or `user@realm!token`)"),
                    )
                })?;
                (Some(auth), &prefix[at + 1..])
            }
            None => (None, prefix),
        };
        let (host, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
            let Some((address, rest)) = bracketed.split_once(']') else {
                return Err(bad_repository(
                    input,
                    "`[` of an IPv6 address is not closed",
                ));
            };
            if address.parse::<Ipv6Addr>().is_err() {
                return Err(bad_repository(
                    input,
                    format!("`{address}` is not an IPv6 address"),
                ));
            }
            let port = match rest {
                "" => None,
                _ => Some(rest.strip_prefix(':').ok_or_else(|| {
                    bad_repository(input, "expected `:port` after the IPv6 address")
                })?),
            };
            (format!("[{address}]"), port)
        } else {
            let (host, port) = match host_port.split_once(':') {
                Some((host, port)) => (host, Some(port)),
                None => (host_port, None),
            };
            if host.contains(':') || port.is_some_and(|p| p.contains(':')) {
                return Err(bad_repository(
                    input,
                    "an IPv6 address must be written in brackets: `[fd00::1]:store`",
                ));
            }
            if host.parse::<Ipv4Addr>().is_err() && !is_dns_name(host) {
                return Err(bad_repository(
                    input,
                    format!("`{host}` is neither a DNS name nor an IP address"),
                ));
            }
            (host.to_owned(), port)
        };
        let port = match port {
            None => None,
            Some(digits) => {
                let valid =
                    (1..=5).contains(&digits.len()) && digits.chars().all(|c| c.is_ascii_digit());
                match digits.parse::<u16>() {
                    Ok(port) if valid && port > 0 => Some(port),
                    _ => {
                        return Err(bad_repository(
                            input,
                            format!("port `{digits}` is not a number from 1 to 65535"),
                        ));
                    }
                }
            }
        };
        Ok(Repository {
            auth_id,
            host: Some(host),
            port,
            store,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Repository {
        text.parse()
            .unwrap_or_else(|e| panic!("{text} should parse: {e}"))
    }

    // The cases of proxmox-backup's own `BackupRepository` tests, plus the bracket rules.
    #[test]
    fn repository_forms() {
        let repo = parse("mystore");
        assert_eq!(
            (
                repo.host(),
                repo.port(),
                repo.auth_id().to_string().as_str()
            ),
            ("localhost", 8007, "root@pam")
        );
        assert_eq!(repo.store().as_str(), "mystore");

        let repo = parse("myhost:mystore");
        assert_eq!((repo.host(), repo.port()), ("myhost", 8007));

        let repo = parse("admin@pam@backuphost:8008:tank");
        assert_eq!(repo.auth_id().to_string(), "admin@pam");
        assert_eq!((repo.host(), repo.port()), ("backuphost", 8008));
        assert_eq!(repo.store().as_str(), "tank");

        let repo = parse("192.168.1.1:1234:mystore");
        assert_eq!((repo.host(), repo.port()), ("192.168.1.1", 1234));

        let repo = parse("[ff80::1]:9007:mystore");
        assert_eq!((repo.host(), repo.port()), ("[ff80::1]", 9007));
        assert_eq!(
            repo.base_url().as_str(),
            "https://[ff80::1]:9007/api2/json/"
        );

        let repo = parse("[ff80::1]:mystore");
        assert_eq!((repo.host(), repo.port()), ("[ff80::1]", 8007));

        let repo = parse("user@pbs!token@myhost:mystore");
        let AuthId::Token(token) = repo.auth_id() else {
            panic!("a token id")
        };
        assert_eq!(token.to_string(), "user@pbs!token");
        assert_eq!(token.token_name(), "token");
        assert_eq!(token.user().as_str(), "user@pbs");
    }

    #[test]
    fn repository_display_round_trips() {
        for text in [
            "mystore",
            "myhost:mystore",
            "admin@pam@backuphost:8008:tank",
        ] {
            assert_eq!(parse(text).to_string(), text);
        }
        // As proxmox-backup-client prints it: an auth id brings host and port along.
        assert_eq!(
            parse("admin@pam@backuphost:tank").to_string(),
            "admin@pam@backuphost:8007:tank"
        );
    }

    #[test]
    fn repository_serde_uses_the_text_form() {
        let repo = parse("admin@pam@backuphost:8008:tank");
        let json = serde_json::to_string(&repo).unwrap();
        assert_eq!(json, "\"admin@pam@backuphost:8008:tank\"");
        assert_eq!(serde_json::from_str::<Repository>(&json).unwrap(), repo);
        let err = serde_json::from_str::<Repository>("\"host:0:tank\"").unwrap_err();
        assert!(err.to_string().contains("port `0`"), "{err}");
    }

    #[test]
    fn new_brackets_bare_ipv6() {
        let store = DatastoreName::new("store").unwrap();
        let repo = Repository::new(None, Some("ff80::1".into()), None, store.clone());
        assert_eq!(repo.host(), "[ff80::1]");
        let repo = Repository::new(None, Some("[ff80::1]".into()), None, store);
        assert_eq!(repo.host(), "[ff80::1]");
    }

    #[test]
    fn repository_errors_name_what_is_wrong() {
        let cases = [
            ("", "is empty"),
            ("host:", "datastore"),
            ("ff80::1:store", "brackets"),
            ("[ff80::1:store", "not closed"),
            ("[nonsense]:store", "not an IPv6 address"),
            ("host:99999:store", "port `99999`"),
            ("host:0:store", "port `0`"),
            ("host:abc:store", "port `abc`"),
            ("bad_host!:store", "neither a DNS name"),
            ("root@host:store", "user id"),
            ("root@pam@:store", "neither a DNS name"),
        ];
        for (text, needle) in cases {
            let err = text.parse::<Repository>().unwrap_err();
            let message = err.to_string();
            assert!(message.contains(needle), "{text:?}: {message}");
            assert!(message.contains("repository"), "{text:?}: {message}");
        }
    }
}
