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

/// Like [`DataEnvelope`], but a success decodes the whole body, not only `data`: for list
/// answers that carry a `total` beside it (`HttpClient::send::<_, Page<T>>(&PageEnvelope, …)`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageEnvelope;

impl cpps_http::Envelope for PageEnvelope {
    type Error = Error;

    fn decode<T: DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        if response.status().is_success() {
            Ok(response.json()?)
        } else {
            Err(error_from_response(response))
        }
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
    #[serde(default, deserialize_with = "crate::de::opt_integer")]
    pub total: Option<u64>,
}

#[derive(Deserialize)]
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
/// reason phrase; the JSON formatter also puts it in the body as `{"data": null, "message":
/// "…\n"}` since libpve-http-server-perl 5.2.0 (January 2025, pve-http-server
/// `src/PVE/APIServer/Formatter/Standard.pm`, "fix #6503"); before, the body is only
/// `{"data":null}` and the message is in the reason phrase alone. A 400 "Parameter verification
/// failed." adds `"errors": {"param": "message", …}`. The message is taken from, in order: the
/// body's `message`, a reason phrase other than the status's canonical one, a body that is not
/// the JSON envelope (a proxy's HTML page), the canonical reason. A 404, or a 500 whose message
/// says "does not exist" (PVE answers `GET /nodes/{node}/qemu/{vmid}/config` for a missing guest
/// with HTTP 500 "Configuration file 'nodes/…/qemu-server/999.conf' does not exist"), becomes
/// [`Error::NotFound`], whichever layout carried the message. Every text is scrubbed of the
/// client's own secrets ([`Response::scrub`]).
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
    let body: Option<ErrorBody> = serde_json::from_slice(response.bytes()).ok();
    let from_body = body
        .as_ref()
        .and_then(|b| b.message.as_deref())
        .map(|m| response.scrub(m.trim()))
        .filter(|m| !m.is_empty());
    let message = from_body
        .or_else(|| {
            response
                .has_custom_reason()
                .then(|| response.reason())
                .flatten()
                .map(|r| r.trim().to_owned())
                .filter(|r| !r.is_empty())
        })
        .or_else(|| {
            // Not the JSON envelope: a plain-text message (pve-http-server's own errors since
            // 5.2.0) or a proxy's page; keep a redacted excerpt.
            (body.is_none())
                .then(|| response.excerpt().trim().to_owned())
                .filter(|e| !e.is_empty())
        })
        .unwrap_or_else(|| status.canonical_reason().unwrap_or("error").to_owned());
    let errors = field_errors(&response, body.and_then(|b| b.errors));
    if is_conflict(&message) {
        return Error::Conflict {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            message,
        };
    }
    if is_not_found(status, &message) {
        return Error::NotFound {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            message,
        };
    }
    // A missing object named by a parameter: PVE answers an unknown UPID with the parameter
    // error `upid: "no such task"` (pve-manager `PVE/API2/Tasks.pm`, `raise_param_exc`).
    if status == StatusCode::BAD_REQUEST
        && let Some((field, text)) = errors.iter().find(|(_, text)| is_not_found(status, text))
    {
        return Error::NotFound {
            method: response.method().clone(),
            url: response.url().clone(),
            status,
            message: format!("{field}: {text}"),
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

/// Whether an error answer means "no such object": a 404; a 500 whose message says
/// "does not exist" (PVE's wording for a missing guest configuration, storage or node file);
/// or a 400 or 500 whose message starts with "no such" and names an object. PBS's section
/// configurations fail a lookup with "no such datastore 'x'" / "no such sync 'x'" (proxmox
/// `proxmox-section-config` `lookup_json`), which `proxmox-rest-server` `error_to_response`
/// answers as 400; pve-ha-manager dies with "no such resource 'vm:100'" (`HA/Resources.pm`),
/// a 500. "no such option" and "no such property" name a parameter, not an object.
pub fn is_not_found(status: StatusCode, message: &str) -> bool {
    let lower = message.trim_start().to_ascii_lowercase();
    let no_such_object = lower.starts_with("no such ")
        && !lower.starts_with("no such option")
        && !lower.starts_with("no such property");
    status == StatusCode::NOT_FOUND
        || (status == StatusCode::INTERNAL_SERVER_ERROR && lower.contains("does not exist"))
        || ((status == StatusCode::BAD_REQUEST || status == StatusCode::INTERNAL_SERVER_ERROR)
            && no_such_object)
}

/// Whether an error message says that a write's `digest` no longer matches the configuration:
/// pve-common `src/PVE/Tools.pm` `assert_if_modified` dies with "detected modified
/// configuration - file changed by other user? Try again." (used by pve-container's and the HA
/// manager's config updates, and written the same by proxmox-backup's config API), qemu-server
/// `src/PVE/API2/Qemu.pm` `update_vm` with "checksum mismatch (file change by other user?)".
pub fn is_conflict(message: &str) -> bool {
    message.contains("detected modified configuration")
        || message.contains("checksum mismatch (file change by other user?)")
}

/// Flattens PVE's `errors` member (an object of strings; nested values are written as JSON),
/// scrubbed of the client's secrets.
fn field_errors(
    response: &Response,
    errors: Option<serde_json::Value>,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(serde_json::Value::Object(map)) = errors {
        for (key, value) in map {
            let text = match value {
                serde_json::Value::String(s) => s.trim().to_owned(),
                other => other.to_string(),
            };
            out.insert(key, response.scrub(&text));
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

    /// "no such <object>" is a not-found at 400 (PBS) and 500 (PVE); "no such option" is a
    /// parameter error (pve-ha-manager `HA/Config.pm`: "no such option '$k'").
    #[test]
    fn no_such_object_is_not_found_but_no_such_option_is_not() {
        for (status, message, found) in [
            (400, "no such datastore 'nope'", true),
            (400, "no such sync 'nightly'", true),
            (500, "no such resource 'vm:999'\n", true),
            (500, "no such option 'group'\n", false),
            (403, "no such user", false),
        ] {
            assert_eq!(
                is_not_found(StatusCode::from_u16(status).unwrap(), message),
                found,
                "{status} {message}"
            );
        }
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
