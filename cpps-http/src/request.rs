//! Requests and responses, independent of the HTTP library underneath.

use std::cell::Cell;
use std::fmt;
use std::io::{self, BufReader, Read};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{CONTENT_TYPE, HeaderName, HeaderValue};
use http::{HeaderMap, Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::Serialize;
use serde::de::DeserializeOwned;
use url::Url;

use std::sync::Arc;

use crate::error::redacted_excerpt;
use crate::{Delivery, Error, Scrubber};

/// How many characters of a body an error keeps.
pub(crate) const EXCERPT_CHARS: usize = 240;

/// Bodies larger than this are decoded through a reader that checks the call's deadline
/// ([`Response::json`]); smaller ones are decoded straight from memory.
pub(crate) const DEADLINE_CHECKED_BYTES: usize = 1024 * 1024;

/// How many bytes of a large body are decoded between two looks at the clock.
const DEADLINE_CHECK_EVERY_BYTES: usize = 256 * 1024;

/// When the call that got an answer must be over: decoding a large answer is part of the call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CallDeadline {
    /// The moment the call's deadline elapses.
    pub(crate) at: Instant,
    /// The deadline the call was given (named in [`Error::Deadline`]).
    pub(crate) budget: Duration,
}

/// One HTTP request, relative to the client's base URL.
///
/// Build it with [`Request::get`], [`Request::post`] (and friends), then send it with
/// [`HttpClient::execute`](crate::HttpClient::execute). Its `Debug` never shows sensitive
/// headers nor the body.
#[derive(Clone)]
#[must_use]
pub struct Request {
    pub(crate) method: Method,
    pub(crate) path: String,
    pub(crate) query: Vec<(String, String)>,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Option<Bytes>,
    pub(crate) idempotent: bool,
    pub(crate) max_response_bytes: Option<usize>,
}

impl Request {
    /// A request with any method. `path` is relative to the base URL (a leading `/` is ignored).
    /// GET, HEAD, PUT, DELETE and OPTIONS are treated as safe to repeat; see
    /// [`Request::idempotent`].
    pub fn new(method: Method, path: impl Into<String>) -> Self {
        let idempotent = matches!(
            method,
            Method::GET | Method::HEAD | Method::OPTIONS | Method::PUT | Method::DELETE
        );
        // PUT and DELETE are idempotent in HTTP's sense, but a retried DELETE may answer "not
        // found" and a PUT may race another writer; retries are for GET/HEAD/OPTIONS only unless
        // the caller says otherwise.
        let idempotent = idempotent && !matches!(method, Method::PUT | Method::DELETE);
        Request {
            method,
            path: path.into(),
            query: Vec::new(),
            headers: HeaderMap::new(),
            body: None,
            idempotent,
            max_response_bytes: None,
        }
    }

    /// A `GET` request.
    pub fn get(path: impl Into<String>) -> Self {
        Self::new(Method::GET, path)
    }

    /// A `POST` request.
    pub fn post(path: impl Into<String>) -> Self {
        Self::new(Method::POST, path)
    }

    /// A `PUT` request.
    pub fn put(path: impl Into<String>) -> Self {
        Self::new(Method::PUT, path)
    }

    /// A `DELETE` request.
    pub fn delete(path: impl Into<String>) -> Self {
        Self::new(Method::DELETE, path)
    }

    /// The method.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The path relative to the base URL.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Adds a query parameter.
    pub fn query(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.query.push((key.into(), value.to_string()));
        self
    }

    /// Adds a header from typed parts.
    pub fn header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.append(name, value);
        self
    }

    /// Adds a header, failing on an invalid name or value.
    pub fn try_header(mut self, name: &str, value: &str) -> Result<Self, Error> {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| Error::Config {
            reason: format!("invalid header name `{name}`"),
        })?;
        let value = HeaderValue::from_str(value).map_err(|_| Error::Config {
            reason: format!("invalid value for header `{name}`"),
        })?;
        self.headers.append(name, value);
        Ok(self)
    }

    /// Adds a header whose value is a secret: it is marked sensitive (HTTP/2 never indexes it)
    /// and `Debug` shows it as redacted.
    pub fn sensitive_header(
        mut self,
        name: HeaderName,
        value: &SecretString,
    ) -> Result<Self, Error> {
        let mut value =
            HeaderValue::from_str(value.expose_secret()).map_err(|_| Error::Config {
                reason: format!("the secret for header `{name}` is not a valid header value"),
            })?;
        value.set_sensitive(true);
        self.headers.append(name, value);
        Ok(self)
    }

    /// Sets a JSON body (and `Content-Type: application/json`).
    pub fn json<T: Serialize + ?Sized>(mut self, body: &T) -> Result<Self, Error> {
        let bytes = serde_json::to_vec(body).map_err(|e| Error::Config {
            reason: format!("request body cannot be encoded as JSON: {e}"),
        })?;
        self.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        self.body = Some(Bytes::from(bytes));
        Ok(self)
    }

    /// Sets an `application/x-www-form-urlencoded` body from key/value pairs.
    pub fn form<K: AsRef<str>, V: AsRef<str>>(mut self, pairs: &[(K, V)]) -> Self {
        let mut encoder = url::form_urlencoded::Serializer::new(String::new());
        for (key, value) in pairs {
            encoder.append_pair(key.as_ref(), value.as_ref());
        }
        self.headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("application/x-www-form-urlencoded"),
        );
        self.body = Some(Bytes::from(encoder.finish()));
        self
    }

    /// Sets a raw body with a content type.
    pub fn body(mut self, content_type: &'static str, body: impl Into<Bytes>) -> Self {
        self.headers
            .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
        self.body = Some(body.into());
        self
    }

    /// Caps this request's response body at `bytes` instead of the client's cap
    /// ([`ClientBuilder::max_response_bytes`](crate::ClientBuilder::max_response_bytes)): list
    /// calls whose answers grow with the estate give themselves a cap sized for them.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = Some(bytes);
        self
    }

    /// Marks the request as safe (or not) to repeat after a failure. Writes are not, unless the
    /// caller knows the server treats them idempotently.
    pub fn idempotent(mut self, idempotent: bool) -> Self {
        self.idempotent = idempotent;
        self
    }

    /// Whether the request may be repeated after a failure.
    pub fn is_idempotent(&self) -> bool {
        self.idempotent
    }

    /// The headers set so far (sensitive values stay marked as such).
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// Mutable access to the headers, for [`Auth`](crate::Auth) implementations.
    pub fn headers_mut(&mut self) -> &mut HeaderMap {
        &mut self.headers
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("query", &self.query)
            .field("headers", &RedactedHeaders(&self.headers))
            .field(
                "body",
                &format_args!("{} bytes", self.body.as_ref().map_or(0, Bytes::len)),
            )
            .field("idempotent", &self.idempotent)
            .finish()
    }
}

/// Shows header names, and values only for headers that are not sensitive.
pub(crate) struct RedactedHeaders<'a>(pub(crate) &'a HeaderMap);

impl fmt::Debug for RedactedHeaders<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut map = f.debug_map();
        for (name, value) in self.0 {
            let secret_name = matches!(
                name.as_str(),
                "authorization" | "cookie" | "set-cookie" | "proxy-authorization"
            ) || crate::error::is_secret_key(name.as_str());
            if value.is_sensitive() || secret_name {
                map.entry(&name.as_str(), &"[redacted]");
            } else {
                map.entry(&name.as_str(), &value.to_str().unwrap_or("[binary]"));
            }
        }
        map.finish()
    }
}

/// A complete answer: status, headers and the body, read within the size cap.
#[derive(Clone)]
pub struct Response {
    pub(crate) method: Method,
    pub(crate) url: Url,
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
    pub(crate) reason: Option<String>,
    pub(crate) scrubber: Arc<Scrubber>,
    /// Set by the client: decoding a large body stops there ([`Response::json`]).
    pub(crate) deadline: Option<CallDeadline>,
}

impl Response {
    /// Builds a response by hand, for service-crate decoders' unit tests.
    pub fn from_parts(
        method: Method,
        url: Url,
        status: StatusCode,
        headers: HeaderMap,
        body: impl Into<Bytes>,
    ) -> Self {
        Response {
            method,
            url,
            status,
            headers,
            body: body.into(),
            reason: None,
            scrubber: Arc::default(),
            deadline: None,
        }
    }

    /// The same response with the HTTP reason phrase the server sent (for decoders' tests).
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }

    /// The same response scrubbed of these secrets (for decoders' tests; the client sets its
    /// own).
    pub fn with_scrubber(mut self, scrubber: Scrubber) -> Self {
        self.scrubber = Arc::new(scrubber);
        self
    }

    /// The HTTP/1.1 reason phrase as the server sent it (`Configuration file … does not
    /// exist`), or the status's canonical reason when the server sent that one (or none, as in
    /// HTTP/2). Proxmox VE before libpve-http-server-perl 5.2.0 puts its error message only
    /// here. Scrubbed of the client's secrets.
    pub fn reason(&self) -> Option<String> {
        match &self.reason {
            Some(reason) => Some(self.scrub(reason)),
            None => self.status.canonical_reason().map(str::to_owned),
        }
    }

    /// Whether the server sent a reason phrase other than the status's canonical one.
    pub fn has_custom_reason(&self) -> bool {
        self.reason.is_some()
    }

    /// `text` with the client's own secrets removed: service crates pass every message they take
    /// from an answer through it before keeping it in an error.
    pub fn scrub(&self, text: &str) -> String {
        self.scrubber.scrub(text)
    }

    /// The HTTP status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The headers (sensitive ones such as `Set-Cookie` are not redacted here: do not log them).
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The body.
    pub fn bytes(&self) -> &Bytes {
        &self.body
    }

    /// The method of the request that got this answer.
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The URL that was requested (without user-info).
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The body as UTF-8 text (invalid sequences replaced), scrubbed of the client's secrets.
    pub fn text(&self) -> String {
        self.scrub(&String::from_utf8_lossy(&self.body))
    }

    /// A short, redacted excerpt of the body, for errors: secret-looking JSON keys redacted and
    /// the client's own secrets scrubbed.
    pub fn excerpt(&self) -> String {
        if self.scrubber.is_empty() {
            return redacted_excerpt(&self.body, EXCERPT_CHARS);
        }
        // Scrub before cutting, so that a secret straddling the cut cannot leave its first half
        // behind; only the beginning of a large body can be shown, so only it is scrubbed.
        let shown = if self.body.len() > crate::error::EXCERPT_PARSE_LIMIT {
            &self.body[..crate::error::EXCERPT_PREFIX_BYTES]
        } else {
            &self.body[..]
        };
        let scrubbed = self.scrub(&String::from_utf8_lossy(shown));
        redacted_excerpt(scrubbed.as_bytes(), EXCERPT_CHARS)
    }

    /// Decodes the body as JSON, whatever the `Content-Type` says. A failure names the JSON path
    /// (`data[3].vmid`) and keeps a redacted excerpt.
    ///
    /// A body larger than 1 MiB of an answer the client received is decoded within what is left
    /// of the call's deadline ([`ClientBuilder::deadline`](crate::ClientBuilder::deadline)):
    /// the decoder reads it in pieces of 256 KiB and looks at the clock before each, so that
    /// decoding 200 MB cannot outlast the deadline; running out is [`Error::Deadline`] with
    /// [`Delivery::Answered`]. Smaller bodies, and responses built by hand, are decoded
    /// straight from memory, without the clock.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, Error> {
        let decoded = match self.deadline {
            Some(deadline) if self.body.len() > DEADLINE_CHECKED_BYTES => {
                decode_json_before(&self.body, deadline.at)
            }
            _ => decode_json_uncut(&self.body).map_err(Failure::Invalid),
        };
        decoded.map_err(|failure| match failure {
            Failure::Expired => Error::Deadline {
                method: self.method.clone(),
                url: self.url.clone(),
                deadline: self.deadline.map_or(Duration::ZERO, |d| d.budget),
                delivery: Delivery::Answered,
            },
            Failure::Invalid((path, message)) => Error::Decode {
                method: self.method.clone(),
                url: self.url.clone(),
                status: self.status,
                path: self.scrub_shortened(&path, DECODE_TEXT_CHARS),
                message: self.scrub_shortened(&message, DECODE_TEXT_CHARS),
                excerpt: self.excerpt(),
            },
        })
    }

    /// `text` scrubbed, then cut to `max_chars` characters ([`shorten`]). Only the part that can
    /// be shown is scrubbed (a 200 MB string quoted in a decode message is not scanned whole),
    /// with enough beyond the cut that a secret straddling it is replaced, not half shown.
    fn scrub_shortened(&self, text: &str, max_chars: usize) -> String {
        let Some((cut, _)) = text.char_indices().nth(max_chars) else {
            return shorten(&self.scrub(text), max_chars);
        };
        let mut end = (cut + self.scrubber.longest_secret_bytes()).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        let scrubbed = self.scrub(&text[..end]);
        match scrubbed.char_indices().nth(max_chars) {
            Some((cut, _)) => format!("{}… ({} bytes in all)", &scrubbed[..cut], text.len()),
            None => format!("{scrubbed}… ({} bytes in all)", text.len()),
        }
    }

    /// Returns the response if its status is a success, otherwise [`Error::Status`].
    pub fn error_for_status(self) -> Result<Self, Error> {
        if self.status.is_success() {
            Ok(self)
        } else {
            Err(self.into_status_error())
        }
    }

    /// The [`Error::Status`] describing this answer.
    pub fn into_status_error(self) -> Error {
        Error::Status {
            excerpt: self.excerpt(),
            reason: self.has_custom_reason().then(|| self.reason()).flatten(),
            method: self.method,
            url: self.url,
            status: self.status,
        }
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("method", &self.method)
            .field("url", &self.url.as_str())
            .field("status", &self.status)
            .field("headers", &RedactedHeaders(&self.headers))
            .field("body", &format_args!("{} bytes", self.body.len()))
            .finish()
    }
}

/// Decodes JSON, returning the path and message of a failure.
///
/// Both are cut to a few hundred characters: serde quotes the offending value in its message
/// (`invalid type: string "…"`), and a 200 MB string must not become a 200 MB error.
pub fn decode_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, (String, String)> {
    decode_json_uncut(body).map_err(|(path, message)| {
        (
            shorten(&path, DECODE_TEXT_CHARS),
            shorten(&message, DECODE_TEXT_CHARS),
        )
    })
}

/// How many characters of a decode failure's path and message an error keeps.
const DECODE_TEXT_CHARS: usize = 300;

/// `text` cut to `max_chars` characters, with an ellipsis and the length when it was longer.
pub(crate) fn shorten(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}… ({} bytes in all)", &text[..cut], text.len()),
    }
}

fn decode_json_uncut<T: DeserializeOwned>(body: &[u8]) -> Result<T, (String, String)> {
    // Tracking the path costs about a third of decoding; only a failure needs it, so the
    // answer is decoded plainly first and, when that fails, again for the path.
    if let Ok(value) = serde_json::from_slice(body) {
        return Ok(value);
    }
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let value: T = serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        (path, e.into_inner().to_string())
    })?;
    deserializer
        .end()
        .map_err(|e| (".".to_owned(), e.to_string()))?;
    Ok(value)
}

/// Why decoding stopped: the deadline, or the JSON (its path and message).
enum Failure {
    Expired,
    Invalid((String, String)),
}

/// Decodes JSON from a reader over `body` that fails once `deadline` has passed (looking at the
/// clock every [`DEADLINE_CHECK_EVERY_BYTES`]).
fn decode_json_before<T: DeserializeOwned>(body: &[u8], deadline: Instant) -> Result<T, Failure> {
    let expired = Cell::new(false);
    let reader = BufReader::with_capacity(
        DEADLINE_CHECK_EVERY_BYTES,
        DeadlineReader {
            rest: body,
            deadline,
            expired: &expired,
        },
    );
    let mut deserializer = serde_json::Deserializer::from_reader(reader);
    let decoded = serde_path_to_error::deserialize(&mut deserializer)
        .map_err(|e| {
            let path = e.path().to_string();
            (path, e.into_inner().to_string())
        })
        .and_then(|value: T| {
            deserializer
                .end()
                .map(|()| value)
                .map_err(|e| (".".to_owned(), e.to_string()))
        });
    match decoded {
        _ if expired.get() => Err(Failure::Expired),
        Ok(value) => Ok(value),
        Err(invalid) => Err(Failure::Invalid(invalid)),
    }
}

/// Hands out `rest` until `deadline`; after it, fails (and says so in `expired`).
struct DeadlineReader<'a> {
    rest: &'a [u8],
    deadline: Instant,
    expired: &'a Cell<bool>,
}

impl Read for DeadlineReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.rest.is_empty() {
            return Ok(0);
        }
        if Instant::now() >= self.deadline {
            self.expired.set(true);
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the call's deadline elapsed while its answer was decoded",
            ));
        }
        self.rest.read(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Guest {
        vmid: u32,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct List {
        data: Vec<Guest>,
    }

    #[test]
    fn decode_error_names_the_json_path() {
        let body = br#"{"data":[{"vmid":100},{"vmid":"x"}]}"#;
        let (path, message) = decode_json::<List>(body).unwrap_err();
        assert_eq!(path, "data[1].vmid");
        assert!(message.contains("invalid type"), "{message}");
    }

    #[test]
    fn a_huge_offending_value_does_not_make_a_huge_error() {
        let body = format!(r#"{{"data":[{{"vmid":"{}"}}]}}"#, "x".repeat(1_000_000));
        let (path, message) = decode_json::<List>(body.as_bytes()).unwrap_err();
        assert_eq!(path, "data[0].vmid");
        assert!(message.chars().count() < 400, "{} chars", message.len());
        assert!(message.contains("bytes in all"), "{message}");
    }

    /// A body of `entries` guests, over the size where decoding looks at the clock.
    fn large_guest_list(entries: usize) -> String {
        let items: Vec<String> = (0..entries)
            .map(|i| format!(r#"{{"vmid":{i},"name":"guest-{i:0>40}"}}"#))
            .collect();
        let body = format!(r#"{{"data":[{}]}}"#, items.join(","));
        assert!(body.len() > DEADLINE_CHECKED_BYTES, "{} bytes", body.len());
        body
    }

    fn answer(body: String, deadline: Option<CallDeadline>) -> Response {
        let mut response = Response::from_parts(
            Method::GET,
            "http://127.0.0.1:9/cluster/resources".parse().unwrap(),
            StatusCode::OK,
            HeaderMap::new(),
            body,
        );
        response.deadline = deadline;
        response
    }

    #[test]
    fn a_large_body_decoded_after_its_deadline_is_a_deadline_error() {
        let budget = Duration::from_secs(4);
        let response = answer(
            large_guest_list(30_000),
            Some(CallDeadline {
                at: Instant::now(),
                budget,
            }),
        );
        let error = response.json::<List>().unwrap_err();
        let Error::Deadline {
            method,
            url,
            deadline,
            delivery,
        } = &error
        else {
            panic!("expected a deadline error, got {error:?}");
        };
        assert_eq!(*method, Method::GET);
        assert_eq!(url.as_str(), "http://127.0.0.1:9/cluster/resources");
        assert_eq!(*deadline, budget);
        // The server answered: only the decoding ran out of time.
        assert_eq!(*delivery, Delivery::Answered);
        assert_eq!(
            error.to_string(),
            "GET http://127.0.0.1:9/cluster/resources exceeded its deadline of 4s"
        );
    }

    #[test]
    fn a_large_body_within_its_deadline_decodes_as_from_memory() {
        let body = large_guest_list(30_000);
        let later = Some(CallDeadline {
            at: Instant::now() + Duration::from_secs(3600),
            budget: Duration::from_secs(3600),
        });
        let through_reader: serde_json::Value = answer(body.clone(), later).json().unwrap();
        let from_memory: serde_json::Value = answer(body.clone(), None).json().unwrap();
        assert_eq!(through_reader, from_memory);
        assert_eq!(through_reader["data"][29_999]["vmid"], 29_999);
        let list: List = answer(body.clone(), later).json().unwrap();
        assert_eq!(list.data.len(), 30_000);
        // A wrong value deep in a large body is a decode error naming its path either way.
        let bad = body.replacen(r#""vmid":29999"#, r#""vmid":"x""#, 1);
        for deadline in [later, None] {
            let Error::Decode { path, .. } =
                answer(bad.clone(), deadline).json::<List>().unwrap_err()
            else {
                panic!("expected a decode error");
            };
            assert_eq!(path, "data[29999].vmid");
        }
    }

    #[test]
    fn a_huge_quoted_value_is_scrubbed_in_its_shown_part_only() {
        // A 2 MB string where a list is due: serde quotes it whole in its message, which begins
        // with `invalid type: string "` (22 characters).
        let secret = "S3cr3t-0123456789";
        let quoted = |before: usize| {
            let body = format!(
                r#"{{"data":"{}{secret}{}"}}"#,
                "a".repeat(before),
                "b".repeat(2 * DEADLINE_CHECKED_BYTES)
            );
            let response = answer(body, None).with_scrubber(Scrubber::new([secret]));
            let Error::Decode { message, .. } = response.json::<List>().unwrap_err() else {
                panic!("expected a decode error");
            };
            message
        };
        let shown = quoted(100);
        assert!(!shown.contains("S3cr3t"), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
        assert!(shown.chars().count() < DECODE_TEXT_CHARS + 40, "{shown}");
        assert!(shown.ends_with("bytes in all)"), "{shown}");
        // A secret straddling the cut leaves no prefix behind.
        let straddling = quoted(DECODE_TEXT_CHARS - 22 - 5);
        assert!(!straddling.contains("S3cr3"), "{straddling}");
        assert!(straddling.contains("[reda"), "{straddling}");
    }

    #[test]
    fn debug_redacts_sensitive_headers_and_body() {
        let secret = SecretString::from("PVEAPIToken=root@pam!ci=hunter2");
        let request = Request::post("nodes")
            .sensitive_header(http::header::AUTHORIZATION, &secret)
            .unwrap()
            .try_header("x-visible", "shown")
            .unwrap()
            .json(&serde_json::json!({"password": "hunter2"}))
            .unwrap();
        let debug = format!("{request:?}");
        assert!(!debug.contains("hunter2"), "{debug}");
        assert!(debug.contains("[redacted]"), "{debug}");
        assert!(debug.contains("shown"), "{debug}");
    }

    #[test]
    fn only_reads_are_retryable_by_default() {
        assert!(Request::get("x").is_idempotent());
        assert!(!Request::post("x").is_idempotent());
        assert!(!Request::put("x").is_idempotent());
        assert!(!Request::delete("x").is_idempotent());
        assert!(Request::post("x").idempotent(true).is_idempotent());
    }
}
