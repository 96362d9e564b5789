//! No secret appears in the `Debug`/`Display` of clients, requests or errors, nor in logs.
//!
//! This file holds one test on purpose: it installs a thread-local tracing subscriber, and
//! tracing caches each call site's interest globally, so another test hitting the same call
//! sites on another thread at the same moment could make this one see no events.

use std::io::Write;
use std::sync::{Arc, Mutex};

use cpps_http::test_util::MockApi;
use cpps_http::{HeaderAuth, Request, SecretString};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, ResponseTemplate};

const TOKEN: &str = "d6f1c7a0-5e2b-4c3e-9f1a-7b2e8c4d9a10";

/// Collects everything the tracing subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn no_token_in_debug_display_errors_or_traces() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let api = MockApi::start("/api2/json").await;
    // A server that echoes credentials back in its error body (some do, in "token" fields).
    Mock::given(method("GET"))
        .and(path("/api2/json/version"))
        .and(header("authorization", format!("Bearer {TOKEN}").as_str()))
        .respond_with(ResponseTemplate::new(403).set_body_string(format!(
            r#"{{"message":"permission denied","token":"{TOKEN}"}}"#
        )))
        .expect(1)
        .mount(api.server())
        .await;
    let secret = SecretString::from(TOKEN);
    let client = api
        .client()
        .with_auth(Arc::new(HeaderAuth::bearer(&secret)));
    let request = Request::get("version")
        .sensitive_header(http::header::HeaderName::from_static("x-api-key"), &secret)
        .unwrap();
    let request_debug = format!("{request:?}");
    let client_debug = format!("{client:?}");
    let err = client
        .send_json::<serde_json::Value>(request)
        .await
        .unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(403));
    let err_debug = format!("{err:?}");
    let err_display = err.to_string();
    let auth_debug = format!("{:?}", HeaderAuth::bearer(&secret));
    let secret_debug = format!("{secret:?}");
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(logs.contains("http call"), "the request was traced: {logs}");
    for (what, text) in [
        ("request Debug", &request_debug),
        ("client Debug", &client_debug),
        ("error Debug", &err_debug),
        ("error Display", &err_display),
        ("auth Debug", &auth_debug),
        ("secret Debug", &secret_debug),
        ("traces", &logs),
    ] {
        assert!(!text.contains(TOKEN), "{what} leaks the token: {text}");
    }
    assert!(err_debug.contains("[redacted]"), "{err_debug}");
    api.verify().await;
}
