//! The one decoder of controller answers: [`LinstorEnvelope`] for reads, [`decode_write`] for the
//! `ApiCallRc` lists of writes.
//!
//! LINSTOR has no success envelope: a read answers the object or the list itself. Errors are
//! `ApiCallRc` lists (linstor-server `controller/src/main/java/com/linbit/linstor/api/rest/v1/
//! serializer/Json.java`, `apiCallRcToJson`), sent as an array even where the spec announces a
//! single object; both shapes are accepted.

use cpps_http::{HeaderName, Response};
use serde::de::DeserializeOwned;

use crate::error::Error;
use crate::types::rc::{ApiCallRc, ApiCallRcList, decode_error_body};

/// The decoder of LINSTOR answers: implements [`cpps_http::Envelope`], so that every read goes
/// through [`cpps_http::HttpClient::send`].
///
/// A redirect is [`Error::Redirected`] (never followed), an error status with an `ApiCallRc` body
/// is [`Error::Api`], any other error status is [`Error::Http`] with a scrubbed excerpt, and a 2xx
/// body is decoded as `T`, naming the JSON path that failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LinstorEnvelope;

impl cpps_http::Envelope for LinstorEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        let response = check(response)?;
        Ok(response.json()?)
    }
}

/// Maps redirects and error statuses to typed errors; passes 2xx answers through.
pub(crate) fn check(response: Response) -> Result<Response, Error> {
    let status = response.status();
    if status.is_redirection() {
        let location = response
            .headers()
            .get(HeaderName::from_static("location"))
            .and_then(|v| v.to_str().ok())
            .map(|v| response.scrub(v))
            .unwrap_or_default();
        return Err(Error::Redirected {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            location,
        });
    }
    if status.is_success() {
        return Ok(response);
    }
    match decode_error_body(response.bytes()) {
        Some(messages) => Err(Error::Api {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            messages: scrubbed(&response, messages),
        }),
        None => Err(Error::Http(response.into_status_error())),
    }
}

/// Decodes the answer of a write: an `ApiCallRc` list, a single object, or nothing. An answer
/// holding an error message is an [`Error::Api`] even with a 2xx status.
pub(crate) fn decode_write(response: Response) -> Result<ApiCallRcList, Error> {
    let response = check(response)?;
    let messages = if response.bytes().iter().all(u8::is_ascii_whitespace) {
        ApiCallRcList::default()
    } else {
        match decode_error_body(response.bytes()) {
            Some(list) => list,
            None => response.json::<ApiCallRcList>()?,
        }
    };
    let messages = scrubbed(&response, messages);
    if messages.has_errors() {
        return Err(Error::Api {
            method: response.method().clone(),
            url: response.url().clone(),
            status: response.status(),
            messages,
        });
    }
    Ok(messages)
}

/// The messages with the client's own secrets removed from every text the controller wrote.
fn scrubbed(response: &Response, messages: ApiCallRcList) -> ApiCallRcList {
    let scrub_opt = |text: Option<String>| text.map(|t| response.scrub(&t));
    ApiCallRcList(
        messages
            .0
            .into_iter()
            .map(|rc| ApiCallRc {
                message: response.scrub(&rc.message),
                cause: scrub_opt(rc.cause),
                details: scrub_opt(rc.details),
                correction: scrub_opt(rc.correction),
                ..rc
            })
            .collect(),
    )
}
