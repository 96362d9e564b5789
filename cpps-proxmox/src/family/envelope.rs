//! The `{"data": …}` envelope of every Proxmox API answer, and its error bodies.

use std::collections::BTreeMap;

use cpps_http::{Response, StatusCode};
use serde::Deserialize;
use serde::de::DeserializeOwned;

use crate::Error;

/// The decoder of Proxmox answers: implements [`cpps_http::Envelope`] with
/// [`decode_envelope`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DataEnvelope;

impl cpps_http::Envelope for DataEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        decode_envelope(response)
    }
}

#[derive(Deserialize)]
struct Data<T> {
    data: T,
}

/// A decoded `{"data": …, "total": …}` answer, for list endpoints that also report a total
/// count (task logs and task lists).
#[derive(Debug, Clone, Deserialize)]
#[non_exhaustive]
pub struct Page<T> {
    /// The `data` member.
    pub data: T,
    /// The `total` member, when the server sent one.
    #[serde(default, deserialize_with = "crate::family::de::opt_u64")]
    pub total: Option<u64>,
}

#[derive(Deserialize, Default)]
struct ErrorBody {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    errors: Option<serde_json::Value>,
}

/// Decodes a complete answer: `data` of a 2xx answer into `T`, any other status into
/// [`Error::Api`] or [`Error::NotFound`].
///
/// Error answers of `pve-http-server` and `proxmox-rest-server` carry the message in the HTTP
/// reason phrase and, in the JSON formatter, in the body as `{"data": null, "message": "…\n"}`;
/// a 400 "Parameter verification failed." adds `"errors": {"param": "message", …}`. A 404, or a
/// 500 whose message says "does not exist" (PVE answers `GET /nodes/{node}/qemu/{vmid}/config` for
/// a missing guest with HTTP 500 "Configuration file 'nodes/…/qemu-server/999.conf' does not
/// exist"), becomes [`Error::NotFound`]. A body that is not JSON still yields a structured
/// error with a redacted excerpt.
pub fn decode_envelope<T: DeserializeOwned>(response: Response) -> Result<T, Error> {
    if response.status().is_success() {
        let envelope: Data<T> = response.json()?;
        Ok(envelope.data)
    } else {
        Err(error_from_response(response))
    }
}

/// Like [`decode_envelope`], keeping the `total` member beside `data`.
pub fn decode_page<T: DeserializeOwned>(response: Response) -> Result<Page<T>, Error> {
    if response.status().is_success() {
        Ok(response.json()?)
    } else {
        Err(error_from_response(response))
    }
}

/// Builds the structured error for a non-success answer (see [`decode_envelope`]).
pub fn error_from_response(response: Response) -> Error {
    let status = response.status();
    let body: ErrorBody = serde_json::from_slice(response.bytes()).unwrap_or_default();
    let message = body
        .message
        .map(|m| m.trim().to_owned())
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| {
            let excerpt = response.excerpt();
            if excerpt.trim().is_empty() {
                status.canonical_reason().unwrap_or("error").to_owned()
            } else {
                excerpt.trim().to_owned()
            }
        });
    let errors = field_errors(body.errors);
    if is_not_found(status, &message) {
        return Error::NotFound {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            message,
        };
    }
    Error::Api {
        method: response.method().clone(),
        url: response.url().clone(),
        status,
        message,
        errors,
    }
}

/// Whether an error answer means "no such object": a 404, or a 500 whose message says
/// "does not exist" (PVE's wording for a missing guest configuration, storage or node file).
pub fn is_not_found(status: StatusCode, message: &str) -> bool {
    status == StatusCode::NOT_FOUND
        || (status == StatusCode::INTERNAL_SERVER_ERROR
            && message.to_ascii_lowercase().contains("does not exist"))
}

/// Flattens PVE's `errors` member (an object of strings; nested values are written as JSON).
fn field_errors(errors: Option<serde_json::Value>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(serde_json::Value::Object(map)) = errors {
        for (key, value) in map {
            let text = match value {
                serde_json::Value::String(s) => s.trim().to_owned(),
                other => other.to_string(),
            };
            out.insert(key, text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpps_http::{HeaderMap, Method};

    fn answer(status: u16, body: &str) -> Response {
        Response::from_parts(
            Method::GET,
            "https://pve.example:8006/api2/json/nodes/pve1/qemu/999/config"
                .parse()
                .unwrap(),
            StatusCode::from_u16(status).unwrap(),
            HeaderMap::new(),
            body.to_owned(),
        )
    }

    #[test]
    fn success_yields_data() {
        let v: Vec<u32> = decode_envelope(answer(200, r#"{"data":[1,2,3]}"#)).unwrap();
        assert_eq!(v, vec![1, 2, 3]);
    }

    #[test]
    fn parameter_errors_are_kept_per_field() {
        let body = r#"{"data":null,"message":"Parameter verification failed.\n","errors":{"vmid":"type check ('integer') failed - got 'abc'\n"}}"#;
        let err = decode_envelope::<serde_json::Value>(answer(400, body)).unwrap_err();
        let errors = err.field_errors().expect("field errors");
        assert_eq!(errors["vmid"], "type check ('integer') failed - got 'abc'");
        assert!(err.to_string().contains("Parameter verification failed."));
    }

    #[test]
    fn does_not_exist_is_not_found() {
        let body = r#"{"data":null,"message":"Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist\n"}"#;
        let err = decode_envelope::<serde_json::Value>(answer(500, body)).unwrap_err();
        assert!(err.is_not_found(), "{err:?}");
        let other = decode_envelope::<serde_json::Value>(answer(
            500,
            r#"{"data":null,"message":"got timeout\n"}"#,
        ))
        .unwrap_err();
        assert!(!other.is_not_found());
        assert_eq!(other.status(), Some(StatusCode::INTERNAL_SERVER_ERROR));
    }

    #[test]
    fn garbage_error_body_keeps_an_excerpt() {
        let err = decode_envelope::<serde_json::Value>(answer(502, "<html>bad gateway</html>"))
            .unwrap_err();
        match err {
            Error::Api {
                message, status, ..
            } => {
                assert_eq!(status, StatusCode::BAD_GATEWAY);
                assert!(message.contains("bad gateway"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn malformed_success_body_names_the_path() {
        let err = decode_envelope::<Vec<u32>>(answer(200, r#"{"data":[1,"x"]}"#)).unwrap_err();
        match err {
            Error::Http(inner) => assert_eq!(inner.decode_path(), Some("data[1]")),
            other => panic!("unexpected {other:?}"),
        }
    }
}
