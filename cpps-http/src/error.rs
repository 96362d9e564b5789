//! The one error type of the runtime, and what it says about delivery.

use std::time::Duration;

use http::{Method, StatusCode};
use url::Url;

/// A boxed error source: foreign error types never appear in public variants.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Whether a failed request may have reached the server.
///
/// Callers decide about repeating a write with this: a request that was [`Delivery::NotSent`] can
/// be repeated without risk; one that [`Delivery::MaybeSent`] may already have changed the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Delivery {
    /// The request never left this process, or the connection failed before it was written
    /// (DNS, TCP connect, TLS handshake, invalid configuration).
    NotSent,
    /// The request may have reached the server, but no usable answer came back
    /// (reset after sending, timeout while waiting, truncated or oversized body).
    MaybeSent,
    /// The server answered; the answer was an error status or could not be decoded.
    Answered,
}

/// An error of the shared REST runtime.
///
/// Every variant says whether the request may have reached the server ([`Error::delivery`]).
/// No variant holds a secret: URLs have their user-info removed, bodies are shortened and their
/// secret-looking values redacted before they are kept.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The client configuration is invalid (for example an unusable base URL or header value).
    #[error("invalid client configuration: {reason}")]
    Config {
        /// What is wrong, naming the setting.
        reason: String,
    },
    /// The TLS configuration could not be built (unreadable CA file, bad fingerprint, no roots).
    #[error("invalid TLS configuration: {reason}")]
    Tls {
        /// What is wrong, naming the file or value.
        reason: String,
    },
    /// The connection could not be established: the request was not sent.
    #[error("could not connect to {url}")]
    Connect {
        /// The URL that was being requested (without user-info).
        url: Url,
        /// The underlying transport error.
        #[source]
        source: BoxError,
    },
    /// The connection failed after the request may have been written.
    #[error("{method} {url} failed after the request may have been sent")]
    Transport {
        /// The request method.
        method: Method,
        /// The URL that was being requested (without user-info).
        url: Url,
        /// The underlying transport error.
        #[source]
        source: BoxError,
    },
    /// One attempt exceeded the request timeout.
    #[error("{method} {url} timed out after {timeout:?}")]
    Timeout {
        /// The request method.
        method: Method,
        /// The URL that was being requested.
        url: Url,
        /// The per-request timeout that elapsed.
        timeout: Duration,
        /// Whether the request may have reached the server.
        delivery: Delivery,
    },
    /// The overall deadline of the call (all attempts and back-off) elapsed.
    #[error("{method} {url} exceeded its deadline of {deadline:?}")]
    Deadline {
        /// The request method.
        method: Method,
        /// The URL that was being requested.
        url: Url,
        /// The deadline that elapsed.
        deadline: Duration,
        /// Whether any attempt may have reached the server.
        delivery: Delivery,
    },
    /// The response body is larger than the configured cap.
    #[error(
        "response of {method} {url} is larger than the {limit}-byte limit (raise it with max_response_bytes on the client's builder, or on this request)"
    )]
    BodyTooLarge {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The configured cap in bytes.
        limit: usize,
    },
    /// The response body is larger than a cap that a service crate set for a kind of call
    /// (the list calls of the Proxmox clients), named by `setting` so that the hint points at
    /// the cap that applied, not at the client's `max_response_bytes` ([`Error::naming_cap`]).
    #[error(
        "response of {method} {url} is larger than the {limit}-byte limit (raise it with {setting})"
    )]
    BodyTooLargeFor {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The cap in bytes.
        limit: usize,
        /// The setting that set the cap, as its user writes it.
        setting: &'static str,
    },
    /// The server answered with an error status that the service crate did not map further.
    #[error("{method} {url} answered {status}{}", reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    Status {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status.
        status: StatusCode,
        /// The reason phrase, when the server sent one other than the status's canonical
        /// reason (scrubbed of the client's secrets).
        reason: Option<String>,
        /// A short, redacted excerpt of the body.
        excerpt: String,
    },
    /// The response body could not be decoded into the expected type.
    #[error("could not decode the response of {method} {url} at `{path}`: {message}")]
    Decode {
        /// The request method.
        method: Method,
        /// The URL that was requested.
        url: Url,
        /// The HTTP status of the answer.
        status: StatusCode,
        /// The JSON path where decoding failed (`.` for the root).
        path: String,
        /// What the decoder said.
        message: String,
        /// A short, redacted excerpt of the body.
        excerpt: String,
    },
    /// Authentication failed or the credentials could not be refreshed.
    #[error("authentication failed: {reason}")]
    Auth {
        /// What went wrong (never the credential itself).
        reason: String,
    },
}

impl Error {
    /// Whether the request may have reached the server.
    pub fn delivery(&self) -> Delivery {
        match self {
            Error::Config { .. } | Error::Tls { .. } | Error::Connect { .. } => Delivery::NotSent,
            Error::Transport { .. }
            | Error::BodyTooLarge { .. }
            | Error::BodyTooLargeFor { .. } => Delivery::MaybeSent,
            Error::Timeout { delivery, .. } | Error::Deadline { delivery, .. } => *delivery,
            Error::Status { .. } | Error::Decode { .. } => Delivery::Answered,
            Error::Auth { .. } => Delivery::Answered,
        }
    }

    /// The HTTP status of the answer, when the server answered.
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Status { status, .. } | Error::Decode { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Whether this error means the server could not be reached at all: connection refused,
    /// DNS, TLS handshake, and a connect that timed out (a powered-off host drops the SYNs).
    /// Fail-over code should rather ask [`Error::is_not_sent`].
    pub fn is_connect(&self) -> bool {
        matches!(
            self,
            Error::Connect { .. }
                | Error::Timeout {
                    delivery: Delivery::NotSent,
                    ..
                }
        )
    }

    /// Whether the request certainly never reached the server, so that sending it elsewhere
    /// (another controller) or again cannot repeat an action.
    pub fn is_not_sent(&self) -> bool {
        self.delivery() == Delivery::NotSent
    }

    /// Whether the answer was refused for its size ([`Error::BodyTooLarge`] or
    /// [`Error::BodyTooLargeFor`]).
    pub fn is_body_too_large(&self) -> bool {
        matches!(
            self,
            Error::BodyTooLarge { .. } | Error::BodyTooLargeFor { .. }
        )
    }

    /// This error, where it is a size refusal, with its hint naming `setting`: a service crate
    /// that gives a kind of call its own cap (per request) says which of its settings that is,
    /// since the default hint names the client's `max_response_bytes`. Other errors are
    /// returned as they are.
    pub fn naming_cap(self, setting: &'static str) -> Error {
        match self {
            Error::BodyTooLarge { method, url, limit } => Error::BodyTooLargeFor {
                method,
                url,
                limit,
                setting,
            },
            other => other,
        }
    }

    /// The JSON path of a decode failure.
    pub fn decode_path(&self) -> Option<&str> {
        match self {
            Error::Decode { path, .. } => Some(path),
            _ => None,
        }
    }
}

/// A short, redacted excerpt of a response body, for errors and logs.
///
/// JSON bodies have the values of secret-looking keys (`password`, `ticket`, `token`, `secret`,
/// `key`, `csrf`, `cookie`, `authorization`) replaced by `"[redacted]"`; the result is cut to
/// `max_chars` characters.
pub fn redacted_excerpt(body: &[u8], max_chars: usize) -> String {
    // A large body is not parsed whole to show a few hundred characters of it (a 200 MB answer
    // would cost seconds and its size again in memory): its beginning is redacted as text.
    let text = if body.len() > EXCERPT_PARSE_LIMIT {
        let prefix = &body[..body.len().min(EXCERPT_PREFIX_BYTES)];
        redact_json_text(&String::from_utf8_lossy(prefix))
    } else {
        match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(mut value) => {
                redact_json(&mut value);
                value.to_string()
            }
            Err(_) => redact_json_text(&String::from_utf8_lossy(body)),
        }
    };
    let mut out: String = text.chars().take(max_chars).collect();
    if text.chars().nth(max_chars).is_some() {
        out.push('…');
    }
    out
}

/// Bodies larger than this are excerpted from their beginning without being parsed.
pub(crate) const EXCERPT_PARSE_LIMIT: usize = 64 * 1024;

/// How much of a large body an excerpt looks at.
pub(crate) const EXCERPT_PREFIX_BYTES: usize = 8 * 1024;

/// Redacts `"secret-looking-key": "value"` pairs in text that is JSON-like but not parsed (a
/// truncated body, the beginning of a large one): the string value after such a key becomes
/// `[redacted]`, up to its closing quote or the end of the text.
fn redact_json_text(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'"' {
            i += 1;
            continue;
        }
        // A quoted string: is it a key followed by `:` and a string value?
        let Some(key_len) = text[i + 1..].find('"') else {
            break;
        };
        let key = &text[i + 1..i + 1 + key_len];
        let mut j = i + 1 + key_len + 1;
        while j < bytes.len() && bytes[j].is_ascii_whitespace() {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b':' && is_secret_key(key) {
            j += 1;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'"' {
                let start = j + 1;
                let mut end = start;
                while end < bytes.len() && bytes[end] != b'"' {
                    end += if bytes[end] == b'\\' { 2 } else { 1 };
                }
                let end = end.min(bytes.len());
                out.push_str(&text[copied..start]);
                out.push_str("[redacted]");
                copied = end;
                i = end + 1;
                continue;
            }
        }
        i += 1 + key_len + 1;
    }
    out.push_str(&text[copied.min(text.len())..]);
    out
}

/// Whether a JSON object key names a secret.
pub fn is_secret_key(key: &str) -> bool {
    const NEEDLES: [&str; 9] = [
        "password",
        "passwd",
        "ticket",
        "token",
        "secret",
        "key",
        "csrf",
        "cookie",
        "authorization",
    ];
    let lower = key.to_ascii_lowercase();
    NEEDLES.iter().any(|needle| lower.contains(needle))
}

/// Replaces the values of secret-looking keys in a JSON value, recursively.
pub fn redact_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map.iter_mut() {
                if is_secret_key(key) && !inner.is_null() {
                    *inner = serde_json::Value::String("[redacted]".to_owned());
                } else {
                    redact_json(inner);
                }
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// Removes user-info (a user name and password) from a URL before it is kept in an error.
pub(crate) fn sanitize_url(url: &Url) -> Url {
    let mut clean = url.clone();
    // Both setters fail only for URLs that cannot have user-info, which then have none.
    let _ = clean.set_username("");
    let _ = clean.set_password(None);
    clean
}

/// An error and its sources joined by `: `, skipping a source whose text the previous ones
/// already contain (a library that prints its cause in its own message is not repeated): the
/// one renderer of an error chain for every crate, binary and report.
///
/// ```
/// let io = std::io::Error::other("connection refused");
/// assert_eq!(cpps_http::error_chain(&io), "connection refused");
/// ```
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(inner) = source {
        let part = inner.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = inner.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpt_redacts_secret_keys_recursively() {
        let body = br#"{"data":{"ticket":"PVE:root@pam:ABC","CSRFPreventionToken":"xyz","username":"root@pam"}}"#;
        let excerpt = redacted_excerpt(body, 500);
        assert!(!excerpt.contains("ABC"), "{excerpt}");
        assert!(!excerpt.contains("xyz"), "{excerpt}");
        assert!(excerpt.contains("root@pam"), "{excerpt}");
        assert!(excerpt.contains("[redacted]"), "{excerpt}");
    }

    #[test]
    fn a_large_or_truncated_body_is_redacted_as_text() {
        let mut body =
            br#"{"data":{"ticket":"PVE:root@pam:SECRET1","user":"root@pam","x":""#.to_vec();
        body.extend(std::iter::repeat_n(b'a', 200 * 1024));
        let excerpt = redacted_excerpt(&body, 240);
        assert!(!excerpt.contains("SECRET1"), "{excerpt}");
        assert!(
            excerpt.starts_with(r#"{"data":{"ticket":"[redacted]","user":"root@pam""#),
            "{excerpt}"
        );
        let truncated = br#"{"password": "hunter22", "csrf":"#;
        let excerpt = redacted_excerpt(truncated, 240);
        assert_eq!(excerpt, r#"{"password": "[redacted]", "csrf":"#);
    }

    #[test]
    fn excerpt_is_cut_with_an_ellipsis() {
        let body = "x".repeat(1000);
        let excerpt = redacted_excerpt(body.as_bytes(), 10);
        assert_eq!(excerpt, format!("{}…", "x".repeat(10)));
    }

    #[test]
    fn sanitize_removes_user_info() {
        let url = Url::parse("https://user:hunter2@pve.example:8006/api2/json/").unwrap();
        assert_eq!(
            sanitize_url(&url).as_str(),
            "https://pve.example:8006/api2/json/"
        );
    }

    #[test]
    fn error_chain_joins_sources_once() {
        #[derive(Debug)]
        struct Outer(std::io::Error, &'static str);
        impl std::fmt::Display for Outer {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.1)
            }
        }
        impl std::error::Error for Outer {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let cause = || std::io::Error::other("connection refused");
        assert_eq!(
            error_chain(&Outer(cause(), "request failed")),
            "request failed: connection refused"
        );
        // A message that already holds its cause does not print it twice.
        assert_eq!(
            error_chain(&Outer(cause(), "request failed: connection refused")),
            "request failed: connection refused"
        );
    }

    /// N12: a size refusal renamed by the service crate names its setting and keeps its
    /// delivery; other errors pass unchanged.
    #[test]
    fn naming_cap_names_the_setting_that_applied() {
        let url: Url = "https://pve.example:8006/api2/json/cluster/resources"
            .parse()
            .unwrap();
        let refused = Error::BodyTooLarge {
            method: Method::GET,
            url: url.clone(),
            limit: 1024,
        };
        let named = refused.naming_cap("list_max_response_bytes");
        assert!(named.is_body_too_large());
        assert_eq!(named.delivery(), Delivery::MaybeSent);
        assert_eq!(
            named.to_string(),
            "response of GET https://pve.example:8006/api2/json/cluster/resources is larger than the 1024-byte limit (raise it with list_max_response_bytes)"
        );
        let other = Error::Config {
            reason: "no token".to_owned(),
        }
        .naming_cap("list_max_response_bytes");
        assert!(!other.is_body_too_large());
    }
}
