//! Removing the client's own secrets from text that comes from a server.
//!
//! Redacting secret-looking JSON keys ([`redact_json`](crate::redact_json)) is not enough: a
//! server may echo the credential it received in an error message
//! (`credential 'PVEAPIToken=…=S3cr3t' is not valid here`). A [`Scrubber`] knows the exact
//! strings this client sends (the whole header value, the token secret, the password, the
//! base64 of a Basic credential and their percent-encoded forms) and replaces every occurrence
//! with `[redacted]` before the text reaches an error, a log line or a report.

use std::fmt;

/// What replaces a secret in scrubbed text.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not scrubbed: replacing every `a` of a text would destroy it
/// without protecting anything (no credential of the supported servers is this short).
const MIN_SECRET_CHARS: usize = 4;

/// The set of exact secret strings one client must never let through.
#[derive(Clone, Default)]
pub struct Scrubber {
    // Longest first, so that a whole header value is replaced before its secret part.
    secrets: Vec<String>,
}

impl fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Scrubber({} secrets)", self.secrets.len())
    }
}

impl Scrubber {
    /// A scrubber for these secrets (and their percent-encoded forms).
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let mut all: Vec<String> = Vec::new();
        for secret in secrets {
            let secret = secret.as_ref();
            if secret.chars().count() < MIN_SECRET_CHARS {
                continue;
            }
            all.push(secret.to_owned());
            let encoded = crate::encode_segment(secret);
            if encoded != secret {
                all.push(encoded);
            }
        }
        all.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        all.dedup();
        Scrubber { secrets: all }
    }

    /// Whether there is nothing to scrub.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The length in bytes of the longest secret (0 when there is none): how far beyond a cut
    /// a secret that straddles it can reach.
    pub(crate) fn longest_secret_bytes(&self) -> usize {
        self.secrets.first().map_or(0, String::len)
    }

    /// `text` with every occurrence of every secret replaced by [`REDACTED`].
    pub fn scrub(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for secret in &self.secrets {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), REDACTED);
            }
        }
        out
    }

    /// Whether `text` contains any of the secrets (for tests and assertions).
    pub fn leaks(&self, text: &str) -> bool {
        self.secrets
            .iter()
            .any(|secret| text.contains(secret.as_str()))
    }
}

/// The forms of an `Authorization`-style header value that must never be echoed: the whole
/// value; the credential after the scheme (`Basic X`, `Bearer X`); for Basic, the decoded
/// `user:password` and the password; for `PVEAPIToken=user@realm!id=SECRET` and
/// `PBSAPIToken=user@realm!id:SECRET`, the secret after the last separator.
pub fn header_value_forms(value: &str) -> Vec<String> {
    let mut forms = vec![value.to_owned()];
    if let Some((scheme, credential)) = value.split_once(' ') {
        forms.push(credential.to_owned());
        if scheme.eq_ignore_ascii_case("basic") {
            use base64::Engine;
            if let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(credential)
                && let Ok(decoded) = String::from_utf8(decoded)
            {
                if let Some((_, password)) = decoded.split_once(':') {
                    forms.push(password.to_owned());
                }
                forms.push(decoded);
            }
        }
    }
    if let Some(token) = value
        .strip_prefix("PVEAPIToken=")
        .or_else(|| value.strip_prefix("PBSAPIToken="))
    {
        forms.push(token.to_owned());
        if let Some((_, secret)) = token.rsplit_once(['=', ':']) {
            forms.push(secret.to_owned());
        }
    }
    forms
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn echoed_token_is_scrubbed_whole_and_in_parts() {
        let forms = header_value_forms("PVEAPIToken=root@pam!ci=5f0c-S3cr3t-9a");
        let scrubber = Scrubber::new(&forms);
        let echoed = "credential 'PVEAPIToken=root@pam!ci=5f0c-S3cr3t-9a' is not valid here; secret 5f0c-S3cr3t-9a";
        let clean = scrubber.scrub(echoed);
        assert!(!clean.contains("S3cr3t"), "{clean}");
        assert_eq!(
            clean,
            "credential '[redacted]' is not valid here; secret [redacted]"
        );
    }

    #[test]
    fn basic_credentials_are_scrubbed_in_base64_and_plain() {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD.encode("admin:hunter22");
        let scrubber = Scrubber::new(header_value_forms(&format!("Basic {b64}")));
        let clean = scrubber.scrub(&format!("user admin sent {b64}, admin:hunter22 (hunter22)"));
        assert!(
            !clean.contains(&b64) && !clean.contains("hunter22"),
            "{clean}"
        );
        assert!(
            clean.contains("admin"),
            "the user name is not a secret: {clean}"
        );
    }

    #[test]
    fn percent_encoded_echo_is_scrubbed_and_short_values_are_left_alone() {
        let scrubber = Scrubber::new(["p@ss word", "ab"]);
        assert_eq!(scrubber.scrub("q=p%40ss%20word"), "q=[redacted]");
        assert_eq!(scrubber.scrub("abc"), "abc");
    }
}
