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
    /// No bearer token (client certificate or exec plugin): its expiry is not read here.
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
    match user["user"]["token"].as_str() {
        Some(token) => WorkerKubeconfig::Token {
            expires: jwt_exp(token),
        },
        None => WorkerKubeconfig::NoToken,
    }
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
            judge_kubeconfig(kubeconfig("{client-certificate-data: AAAA}").as_bytes()),
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
