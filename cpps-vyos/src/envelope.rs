//! VyOS's answer envelope, `{"success": bool, "data": …, "error": str | null}`, decoded in one
//! place for every call.
//!
//! Sources: `success()`/`error()` in vyos-1x `src/services/api/rest/models.py` (1.5) and in
//! `src/services/vyos-http-api-server` (1.4, branch `sagitta`): the JSON is sent in an
//! `HTMLResponse`, so as `text/html`; 1.5 HTML-escapes the error text
//! (`escape(msg, quote=False)`), 1.4 does not, so the text is unescaped only for a router not
//! known to be 1.4 (the client's cached version decides); a bad key is 401 "Valid API key is
//! required" (`auth_required`), a refused command 400, a malformed request 400 (both versions'
//! `validation_exception_handler` answers through `error()`) or 422, an internal error 500.

use cpps_http::{Response, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::Error;

/// The decoder of one endpoint's answers: implements [`cpps_http::Envelope`], so reads go through
/// [`cpps_http::HttpClient::send`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VyosEnvelope {
    /// The endpoint the answer comes from (`retrieve`, `configure`, …), named in errors.
    pub endpoint: &'static str,
    /// Whether the router HTML-escapes the text of its errors: VyOS 1.5 and later do, 1.4 does
    /// not. A client sets it from the router's version: false only once the version is known to
    /// be 1.4 (true while it is not known, and for [`crate::ApiGeneration::Unknown`]).
    pub errors_escaped: bool,
}

#[derive(Deserialize)]
struct Body {
    success: bool,
    #[serde(default)]
    data: Value,
    error: Option<String>,
}

impl cpps_http::Envelope for VyosEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        let data = decode_data(self.endpoint, &response, self.errors_escaped)?;
        serde_json::from_value(data).map_err(|e| Error::UnexpectedAnswer {
            endpoint: self.endpoint,
            message: response.scrub(&e.to_string()),
        })
    }
}

/// The `data` of a successful answer, or the structured error of any other (its text unescaped
/// when `errors_escaped`).
pub(crate) fn decode_data(
    endpoint: &'static str,
    response: &Response,
    errors_escaped: bool,
) -> Result<Value, Error> {
    let status = response.status();
    let body: Option<Body> = serde_json::from_slice(response.bytes()).ok();
    match body {
        Some(b) if b.success && status.is_success() => Ok(b.data),
        _ if status == StatusCode::UNAUTHORIZED => Err(Error::Unauthorized { endpoint }),
        Some(b) => {
            let text = b.error.as_deref().unwrap_or("");
            Err(Error::Api {
                endpoint,
                status: status.as_u16(),
                message: response.scrub(&if errors_escaped {
                    unescape_html(text)
                } else {
                    text.to_owned()
                }),
            })
        }
        None if status.is_success() => Err(Error::UnexpectedAnswer {
            endpoint,
            message: format!("not a VyOS answer: {}", response.excerpt()),
        }),
        None => Err(Error::Http(response.clone().into_status_error())),
    }
}

/// Undoes Python's `html.escape(msg, quote=False)` (and the quote forms, should a server send them).
pub(crate) fn unescape_html(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}
