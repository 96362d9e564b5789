//! The kubeconfig a MultiKueue manager uses to reach a worker cluster: a Secret in Kueue's
//! namespace, key `kubeconfig` (kubernetes-sigs/kueue `apis/kueue/v1beta2/multikueue_types.go`,
//! `MultiKueueConfigSecretKey`, `SecretLocationType`: "the name of the secret inside the
//! namespace in which the kueue controller manager is running"), read for whether it is there
//! and when its bearer token expires. The token itself is never kept, printed or returned:
//! only its `exp` claim (RFC 7519 §4.1.4, seconds since the epoch).

use serde::Serialize;

/// The namespace Kueue's manifests install it in (`config/default/kustomization.yaml`), used
/// when no Kueue controller-manager pod says otherwise.
pub const DEFAULT_KUEUE_NAMESPACE: &str = "kueue-system";

/// What the worker cluster's kubeconfig Secret holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WorkerKubeconfig {
    /// No such Secret.
    Missing,
    /// The Secret could not be read (e.g. 403): cannot tell.
    Unreadable(String),
    /// The Secret has no `kubeconfig` key.
    NoKubeconfigKey,
    /// The `kubeconfig` value is not a kubeconfig this reader understands.
    Unparsable(String),
    /// A bearer token, with its expiry when it is a JWT with `exp` (seconds since the epoch).
    Token {
        /// `exp`, when the token carries one.
        expires: Option<i64>,
    },
    /// A client certificate (`client-certificate-data`), with its `notAfter` (seconds since the
    /// epoch) when it decodes as an X.509 certificate; `None`: its expiry cannot be told.
    ClientCertificate {
        /// `notAfter`, when read.
        expires: Option<i64>,
    },
    /// Neither a bearer token nor inline client certificate (an exec plugin, or files on the
    /// manager's disk): its expiry is not read here.
    NoToken,
}

/// One MultiKueueCluster's kubeconfig Secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WorkerSecret {
    /// The MultiKueueCluster.
    pub cluster: String,
    /// `namespace/name` of the Secret.
    pub secret: String,
    /// What it holds.
    pub state: WorkerKubeconfig,
}

/// Reads the `kubeconfig` value: the token of the current context's user (or of the only
/// user), and its `exp`.
pub fn judge_kubeconfig(kubeconfig: &[u8]) -> WorkerKubeconfig {
    let text = String::from_utf8_lossy(kubeconfig);
    let parsed: serde_json::Value = match serde_saphyr::from_str(&text) {
        Ok(v) => v,
        Err(e) => return WorkerKubeconfig::Unparsable(e.to_string()),
    };
    let users = parsed["users"].as_array().cloned().unwrap_or_default();
    let current = parsed["current-context"].as_str().unwrap_or("");
    let context_user = parsed["contexts"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|c| c["name"].as_str() == Some(current))
        .and_then(|c| c["context"]["user"].as_str());
    let user = match context_user {
        Some(name) => users.iter().find(|u| u["name"].as_str() == Some(name)),
        None if users.len() == 1 => users.first(),
        None => None,
    };
    let Some(user) = user else {
        return WorkerKubeconfig::Unparsable("no user for the current context".to_owned());
    };
    if let Some(token) = user["user"]["token"].as_str() {
        return WorkerKubeconfig::Token {
            expires: jwt_exp(token),
        };
    }
    match user["user"]["client-certificate-data"].as_str() {
        Some(data) => WorkerKubeconfig::ClientCertificate {
            expires: certificate_not_after(data),
        },
        None => WorkerKubeconfig::NoToken,
    }
}

/// The `notAfter` of the certificate in `client-certificate-data` (base64 of PEM, or of DER).
fn certificate_not_after(data: &str) -> Option<i64> {
    let decoded = base64(data)?;
    let der = match std::str::from_utf8(&decoded) {
        Ok(pem) if pem.contains("-----BEGIN CERTIFICATE-----") => {
            let body: String = pem
                .lines()
                .skip_while(|l| !l.starts_with("-----BEGIN CERTIFICATE-----"))
                .skip(1)
                .take_while(|l| !l.starts_with("-----END"))
                .collect();
            base64(&body)?
        }
        _ => decoded,
    };
    der_not_after(&der)
}

/// One DER element at the start of `buf`: (tag, contents, the rest after it).
fn der_element(buf: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = buf.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0_usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// `tbsCertificate.validity.notAfter` (RFC 5280 §4.1: Certificate SEQUENCE, tbsCertificate
/// SEQUENCE { [0] version OPTIONAL, serialNumber, signature, issuer, validity, … }; §4.1.2.5:
/// UTCTime `YYMMDDHHMMSSZ`, years 50–99 being 19xx, or GeneralizedTime `YYYYMMDDHHMMSSZ`).
fn der_not_after(der: &[u8]) -> Option<i64> {
    let (0x30, cert, _) = der_element(der)? else {
        return None;
    };
    let (0x30, tbs, _) = der_element(cert)? else {
        return None;
    };
    let mut rest = tbs;
    if rest.first() == Some(&0xa0) {
        rest = der_element(rest)?.2;
    }
    for _ in 0..3 {
        rest = der_element(rest)?.2; // serialNumber, signature, issuer
    }
    let (0x30, validity, _) = der_element(rest)? else {
        return None;
    };
    let (tag, not_after, _) = der_element(der_element(validity)?.2)?;
    let text = std::str::from_utf8(not_after).ok()?.strip_suffix('Z')?;
    let (year, rest) = match tag {
        0x17 if text.len() == 12 => {
            let yy: i16 = text[..2].parse().ok()?;
            (if yy >= 50 { 1900 + yy } else { 2000 + yy }, &text[2..])
        }
        0x18 if text.len() == 14 => (text[..4].parse().ok()?, &text[4..]),
        _ => return None,
    };
    let n = |i: usize| rest.get(i..i + 2)?.parse::<i8>().ok();
    let at = jiff::civil::DateTime::new(year, n(0)?, n(2)?, n(4)?, n(6)?, n(8)?, 0).ok()?;
    Some(
        at.to_zoned(jiff::tz::TimeZone::UTC)
            .ok()?
            .timestamp()
            .as_second(),
    )
}

/// Decodes standard base64 (RFC 4648 §4), skipping whitespace, as kubeconfig's `*-data`
/// fields and PEM bodies hold it.
fn base64(s: &str) -> Option<Vec<u8>> {
    let url: String = s
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '+' => '-',
            '/' => '_',
            c => c,
        })
        .collect();
    base64url(&url)
}

/// The `exp` claim of a JWT (`header.payload.signature`, base64url without padding, RFC 7515
/// §2), or `None` for a token that is not a JWT or has no `exp`.
fn jwt_exp(token: &str) -> Option<i64> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64url(payload)?;
    let claims: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
    claims["exp"].as_i64()
}

/// Decodes unpadded (or padded) base64url.
fn base64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0_u32, 0_u32);
    for c in s.trim_end_matches('=').bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A JWT whose payload is `{"exp":1767225600,"sub":"system:serviceaccount:kueue:w"}`
    /// (base64url, RFC 7515); the signature part is not checked.
    const TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE3NjcyMjU2MDAsInN1YiI6InN5c3RlbTpzZXJ2aWNlYWNjb3VudDprdWV1ZTp3In0.c2ln";

    fn kubeconfig(user: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: w\nclusters:\n- name: w\n  cluster: {{server: 'https://127.0.0.1:6443'}}\ncontexts:\n- name: w\n  context: {{cluster: w, user: u}}\nusers:\n- name: u\n  user: {user}\n"
        )
    }

    /// A self-signed client certificate as K3s writes them into `k3s.yaml` (`O=system:masters`,
    /// `CN=system:admin`), made with `openssl x509 -req -days 365`: notAfter
    /// 2027-12-06T08:37:59Z. PEM, base64-encoded as kubeconfig's `client-certificate-data`
    /// (client-go `tools/clientcmd/api/v1/types.go` `AuthInfo.ClientCertificateData`).
    const CLIENT_CERT: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJYRENDQVFFQ0ZHYWdoMktKcUNwVitsV0V4blYzZk9hK1JOakRNQW9HQ0NxR1NNNDlCQU1DTURBeEZ6QVYKQmdOVkJBb01Ebk41YzNSbGJUcHRZWE4wWlhKek1SVXdFd1lEVlFRRERBeHplWE4wWlcwNllXUnRhVzR3SGhjTgpNall4TWpBMk1EZ3pOelU1V2hjTk1qY3hNakEyTURnek56VTVXakF3TVJjd0ZRWURWUVFLREE1emVYTjBaVzA2CmJXRnpkR1Z5Y3pFVk1CTUdBMVVFQXd3TWMzbHpkR1Z0T21Ga2JXbHVNRmt3RXdZSEtvWkl6ajBDQVFZSUtvWkkKemowREFRY0RRZ0FFWGhTNzlSUE82TCtQaTRmK2tycjVxREhqVEhaWE9uVTM4YUlJWndYQ3JLOVgvZWgvR0R6QQpLUllLRGp1NkRjMFVTWU9xamt3eDM0ZitITG0yRTRsWHZqQUtCZ2dxaGtqT1BRUURBZ05KQURCR0FpRUE4Y1MrClZET2tHclRxRGorUFNBNUxYQWdLdjl3MzRZbE9zUlQvVUtoRE84SUNJUUQwMzhSaG4xeUFzRno0S1o2YjE5TlIKLzhidDRpNVR3aEFvL0hLcHVqNDFodz09Ci0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

    /// Audit S-h, confirmed: a client-certificate kubeconfig (K3s's own `k3s.yaml`; its client
    /// certificates last a year) was `NoToken` and skipped, so its expiry went unchecked and
    /// unsaid. The certificate's `notAfter` (RFC 5280 §4.1.2.5, UTCTime) is read instead.
    #[test]
    fn a_client_certificate_expiry_is_read() {
        let state = judge_kubeconfig(
            kubeconfig(&format!(
                "{{client-certificate-data: {CLIENT_CERT}, client-key-data: AAAA}}"
            ))
            .as_bytes(),
        );
        assert_eq!(
            state,
            WorkerKubeconfig::ClientCertificate {
                expires: Some(1_828_082_279)
            }
        );
        // Not a certificate: kept as "expiry unknown", never as a credential that lasts.
        assert_eq!(
            judge_kubeconfig(kubeconfig("{client-certificate-data: AAAA}").as_bytes()),
            WorkerKubeconfig::ClientCertificate { expires: None }
        );
    }

    #[test]
    fn the_token_expiry_is_read_and_the_token_is_not_kept() {
        let state = judge_kubeconfig(kubeconfig(&format!("{{token: {TOKEN}}}")).as_bytes());
        assert_eq!(
            state,
            WorkerKubeconfig::Token {
                expires: Some(1_767_225_600)
            }
        );
        assert!(!format!("{state:?}").contains("eyJ"));
        assert_eq!(
            judge_kubeconfig(kubeconfig("{token: not-a-jwt}").as_bytes()),
            WorkerKubeconfig::Token { expires: None }
        );
        assert_eq!(
            judge_kubeconfig(kubeconfig("{exec: {command: aws}}").as_bytes()),
            WorkerKubeconfig::NoToken
        );
        assert!(matches!(
            judge_kubeconfig(b"users: [unclosed"),
            WorkerKubeconfig::Unparsable(_)
        ));
        assert_eq!(base64url("aGk"), Some(b"hi".to_vec()));
        assert_eq!(base64url("a$"), None);
    }
}
