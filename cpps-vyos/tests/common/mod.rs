//! Shared setup of the API tests.
//!
//! No VyOS router can run here, so the API tests use wiremock servers shaped after VyOS's own
//! documents and server code: `../shared/specs/vyos-http-api.md` (newest API document: `/info`,
//! `merge` and inline `string`, commit-confirm with `confirm_time` and `op: confirm`) and vyos-1x
//! `src/services/api/rest/models.py` and `routers.py` (JSON bodies with `key`; answers
//! `{"success","data","error"}` sent as `text/html` by `HTMLResponse`; error text HTML-escaped by
//! `escape(msg, quote=False)`; 400 for a refused command, 401 for a bad key, 422/500; one global
//! lock around every configuration session). Each test names the behaviour it relies on.
#![allow(dead_code, unreachable_pub)]

use cpps_http::test_util::MockApi;
use cpps_vyos::VyosClient;
use serde_json::{Value, json};
use wiremock::ResponseTemplate;

/// The API key the tests use.
pub const KEY: &str = "S3cur3-test-key-do-not-log";

/// A mock router and a client of it.
pub async fn router() -> (MockApi, VyosClient) {
    let api = MockApi::start("").await;
    let client = VyosClient::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    (api, client)
}

/// VyOS's success answer (`models.success`): JSON in an `HTMLResponse`, so `text/html`.
pub fn ok(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .insert_header("content-type", "text/html; charset=utf-8")
        .set_body_string(json!({"success": true, "data": data, "error": null}).to_string())
}

/// VyOS's error answer (`models.error`): the message HTML-escaped, `text/html`.
pub fn err(status: u16, message: &str) -> ResponseTemplate {
    let escaped = message
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    ResponseTemplate::new(status)
        .insert_header("content-type", "text/html; charset=utf-8")
        .set_body_string(json!({"success": false, "data": null, "error": escaped}).to_string())
}

/// A fixture file of `tests/fixtures/vyos-configs`.
pub fn config_fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/vyos-configs/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}
