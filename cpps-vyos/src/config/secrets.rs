//! Which leaves of a VyOS configuration hold secrets: the one list that `Debug` of a tree or a
//! command, [`crate::ConfigTree::redact`] (and so `vyos-backup --redact`), and every other
//! consumer of this crate use.
//!
//! The list comes from vyos-1x `interface-definitions/` (branch `current`): every `leafNode` whose
//! value is a credential. By name, anywhere: `password`, `plaintext-password`,
//! `encrypted-password` (login users, VRRP, PPPoE, BGP/LDP/RIP neighbours, dynamic DNS, web
//! proxy, telegraf, accel-ppp local users: `include/generic-password.xml.i`,
//! `include/bgp/neighbor-password.xml.i`, `include/auth-local-users.xml.i`, …), `passphrase`
//! (`include/pki/private-key.xml.i`, wireless), `pre-shared-secret`
//! (`include/ipsec/authentication-pre-shared-secret.xml.i`), `secret` (IPsec PSKs, `vpn_ipsec.xml.in`;
//! stunnel PSKs), `preshared-key` and `private-key` (WireGuard), `md5-key` (OSPF), `cak` (MACsec,
//! `interfaces_macsec.xml.in`), `shared-secret` (`vpn l2tp remote-access lns shared-secret`,
//! `vpn_l2tp.xml.in`), `token` and `client-secret` (`service_monitoring_telegraf.xml.in`), and
//! `key`: RADIUS/TACACS server keys (`include/radius-server-key.xml.i`), HTTPS API keys, PKI
//! private keys (`include/pki/cli-private-key-base64.xml.i`), OpenVPN shared secrets
//! (`pki openvpn shared-secret NAME key`), OTP keys; `md5`, the IS-IS and OpenFabric password
//! below `area-password`, `domain-password` and an interface's `password`
//! (`include/isis/password.xml.i`, `include/openfabric/password.xml.i`; no other leaf has that
//! name); `cisco-authentication`, NHRP's pass phrase on 1.4 (`protocols_nhrp.xml.in`).
//!
//! By place: `protocols nhrp tunnel TUN authentication`, NHRP's pass phrase on 1.5 (FRR's
//! nhrpd; vyos-documentation `docs/configexamples/dmvpn-dualhub-dualcloud.rst`), where every
//! other `authentication` leaf names a type (`include/ospf/protocol-common-config.xml.i`,
//! `include/stunnel/protocol-options.xml.i`); `service snmp trap-target ADDRESS community` (`service_snmp.xml.in`), the names of
//! `service snmp community NAME` (the name is the community string; see
//! [`crate::ConfigTree::redact`]), and the password in the URL of
//! `system config-management commit-archive location` (`system_config-management.xml.in`:
//! `scp://user:password@host/dir`).
//!
//! Public keys are not secrets: `key` below `public-keys NAME` (SSH, `include/pki/openssh-key.xml.i`)
//! and below `public` (`pki key-pair NAME public key`, `include/pki/cli-public-key-base64.xml.i`),
//! and `public-key` (WireGuard) are left alone. Names that only refer to a secret stored elsewhere
//! (`crypt-key`, `auth-key`, `shared-secret-key` of OpenVPN, `local-key`/`remote-key` of IPsec)
//! are not secrets either.

/// Leaf names whose values are secrets wherever they are (see the module documentation for the
/// exceptions of `key`). `encrypted-key` is the SNMPv3 key of VyOS 1.2/1.3 configurations
/// (`service snmp v3 user NAME auth encrypted-key`), renamed `encrypted-password` since.
pub const SECRET_LEAVES: &[&str] = &[
    "cak",
    "cisco-authentication",
    "client-secret",
    "encrypted-key",
    "encrypted-password",
    "key",
    "md5",
    "md5-key",
    "passphrase",
    "password",
    "plaintext-password",
    "pre-shared-secret",
    "preshared-key",
    "private-key",
    "secret",
    "shared-secret",
    "token",
];

/// How a secret leaf is redacted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SecretKind {
    /// The whole value is the secret.
    Value,
    /// The value is a URL whose password (`user:password@`) is the secret.
    UrlPassword,
}

/// What a redacted value becomes.
pub const REDACTED: &str = "<redacted>";

/// Whether the leaf at `path` (its words from the root, or from any node above it, tag values
/// included; the last word is the leaf's name) holds a secret, and how it is redacted.
///
/// A path that starts below the root is judged on what it shows, so the exceptions that need
/// the words above (`public-keys NAME key`) may not apply: the answer then errs on the side of
/// secrecy.
pub fn classify<S: AsRef<str>>(path: &[S]) -> Option<SecretKind> {
    let word = |back: usize| -> Option<&str> {
        path.len().checked_sub(back + 1).map(|i| path[i].as_ref())
    };
    let name = word(0)?;
    match name {
        "key" => {
            // `public-keys NAME key` (SSH) and `public key` (PKI key pairs) are public.
            if word(2) == Some("public-keys") || word(1) == Some("public") {
                None
            } else {
                Some(SecretKind::Value)
            }
        }
        // `protocols nhrp tunnel TUN authentication`; no other tunnel has this leaf.
        "authentication" if word(2) == Some("tunnel") => Some(SecretKind::Value),
        "community" if word(2) == Some("trap-target") => Some(SecretKind::Value),
        "location" if word(1) == Some("commit-archive") => Some(SecretKind::UrlPassword),
        _ if SECRET_LEAVES.contains(&name) => Some(SecretKind::Value),
        _ => None,
    }
}

/// Whether the leaf at `path` holds a secret; see [`classify`].
pub fn is_secret_path<S: AsRef<str>>(path: &[S]) -> bool {
    classify(path).is_some()
}

/// The value with its secret part replaced by [`REDACTED`]; an empty value stays empty (so a
/// redacted configuration still shows that no password is set).
pub fn redact_value(kind: SecretKind, value: &str) -> String {
    if value.is_empty() {
        return String::new();
    }
    match kind {
        SecretKind::Value => REDACTED.to_owned(),
        SecretKind::UrlPassword => redact_url_password(value),
    }
}

/// `scheme://user:password@host/…` with the password replaced; other values unchanged.
fn redact_url_password(url: &str) -> String {
    match url_password(url) {
        Some((from, to)) => format!("{}{REDACTED}{}", &url[..from], &url[to..]),
        None => url.to_owned(),
    }
}

/// Where the password of `scheme://user:password@host/…` lies in `url`, as a byte range.
fn url_password(url: &str) -> Option<(usize, usize)> {
    let rest_at = url.find("://")? + 3;
    let rest = &url[rest_at..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    let at = authority.rfind('@')?;
    let colon = authority[..at].find(':')?;
    Some((rest_at + colon + 1, rest_at + at))
}

/// The secret texts a batch carries: the values [`crate::config::Command::redacted`] hides
/// (for a commit-archive URL, its password) and the names of `service snmp community NAME`.
/// Empty secrets are left out, as [`redact_value`] keeps them.
pub(crate) fn batch_secrets(commands: &[crate::config::Command]) -> Vec<String> {
    let mut out = Vec::new();
    for c in commands {
        if c.path.len() > 3 && c.path[..3] == ["service", "snmp", "community"] {
            out.push(c.path[3].clone());
        }
        if c.op == crate::config::Op::Comment {
            continue;
        }
        match (classify(&c.path), c.value.as_deref()) {
            (Some(SecretKind::Value), Some(v)) => out.push(v.to_owned()),
            (Some(SecretKind::UrlPassword), Some(v)) => {
                if let Some((from, to)) = url_password(v) {
                    out.push(v[from..to].to_owned());
                }
            }
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty());
    // The longest first, so that a secret holding another is replaced whole.
    out.sort_by_key(|s| std::cmp::Reverse(s.len()));
    out
}

/// `text` with every occurrence of each of `secrets` replaced by [`REDACTED`].
pub(crate) fn scrub(text: &str, secrets: &[String]) -> String {
    let mut out = text.to_owned();
    for s in secrets {
        if out.contains(s.as_str()) {
            out = out.replace(s.as_str(), REDACTED);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_archive_urls_lose_only_their_password() {
        assert_eq!(
            redact_value(
                SecretKind::UrlPassword,
                "scp://backup:Hunter2@192.0.2.5:/srv/cfg"
            ),
            "scp://backup:<redacted>@192.0.2.5:/srv/cfg"
        );
        assert_eq!(
            redact_value(SecretKind::UrlPassword, "tftp://192.0.2.5/cfg"),
            "tftp://192.0.2.5/cfg"
        );
        assert_eq!(
            redact_value(SecretKind::UrlPassword, "ftp://user@host/x"),
            "ftp://user@host/x"
        );
    }

    /// The secrets a refusal's text may echo: a commit-archive URL's password (not the whole
    /// URL), an SNMP community name, a password; not a comment's text nor an empty value.
    #[test]
    fn a_batch_gives_its_secret_texts() {
        use crate::config::Command;
        let batch = [
            Command::set(
                ["system", "config-management", "commit-archive", "location"],
                Some("scp://backup:ArchPw1@192.0.2.5:/srv"),
            ),
            Command::set(
                ["service", "snmp", "community", "Comm9", "authorization"],
                Some("ro"),
            ),
            Command::set(
                [
                    "system",
                    "login",
                    "user",
                    "bob",
                    "authentication",
                    "plaintext-password",
                ],
                Some(""),
            ),
            Command::comment(
                ["protocols", "bgp", "neighbor", "192.0.2.2", "password"],
                "rotated",
            ),
            Command::set(
                ["protocols", "bgp", "neighbor", "192.0.2.2", "password"],
                Some("Pw"),
            ),
        ];
        assert_eq!(batch_secrets(&batch), ["ArchPw1", "Comm9", "Pw"]);
        // Issue 32, V6: a refusal is scrubbed of IS-IS/OpenFabric and NHRP credentials too.
        let routing = [
            Command::set(
                ["protocols", "isis", "interface", "eth1", "password", "md5"],
                Some("IsisMd5x"),
            ),
            Command::set(
                ["protocols", "nhrp", "tunnel", "tun0", "authentication"],
                Some("Nhrp1"),
            ),
            Command::set(
                ["protocols", "ospf", "area", "0", "authentication"],
                Some("md5"),
            ),
        ];
        assert_eq!(batch_secrets(&routing), ["IsisMd5x", "Nhrp1"]);
        assert_eq!(
            scrub("[x ArchPw1 Comm9 Pw]", &batch_secrets(&batch)),
            "[x <redacted> <redacted> <redacted>]"
        );
    }
}
