//! Setup shared by the integration tests: clients of local controllers, the wiremock
//! controller and its version answers, fixtures, Prism, silent controllers.
#![allow(dead_code)]

use std::time::Duration;

use cpps_http::Url;
use cpps_http::test_util::{MockApi, SilentListener};
use cpps_linstor::health::ClusterState;
use cpps_linstor::{Client, ClientBuilder, RetryPolicy};
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockBuilder, ResponseTemplate};

/// The controller list `LS_CONTROLLERS` would hold for these URLs.
fn controller_list<'a>(urls: impl IntoIterator<Item = &'a Url>) -> String {
    urls.into_iter()
        .map(Url::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

/// A builder for these controllers (comma-separated) that tries each request once.
pub(crate) fn single_attempt_builder(controllers: &str) -> ClientBuilder {
    Client::builder(controllers).retry(RetryPolicy::none())
}

/// A client for these controllers with test timeouts and no retries, so that fail-over is
/// immediate.
pub(crate) fn client_for(urls: &[Url]) -> Client {
    single_attempt_builder(&controller_list(urls))
        .connect_timeout(Duration::from_secs(2))
        .deadline(Duration::from_secs(20))
        .build()
        .expect("a client for local test servers builds")
}

/// The connect timeout of [`client_with_retries`]: what a silent controller costs.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_millis(400);

/// A client with the crate's default retry policy (two attempts per controller) and a short
/// connect timeout ([`CONNECT_TIMEOUT`]).
pub(crate) fn client_with_retries(urls: &[&Url]) -> Client {
    Client::builder(controller_list(urls.iter().copied()))
        .connect_timeout(CONNECT_TIMEOUT)
        .request_timeout(Duration::from_secs(5))
        .deadline(Duration::from_secs(20))
        .build()
        .expect("a client for local test servers builds")
}

/// A `ControllerVersion` answer, shaped as the spec says (`GET /v1/controller/version`).
pub(crate) fn controller_version_body(version: &str) -> Value {
    json!({"version": version, "git_hash": "3e9306a9", "build_time": "2026-06-02T00:00:00+00:00", "rest_api_version": "1.28.0"})
}

/// A mock of `METHOD PATH` on a controller, for a test to add matchers and an answer to.
pub(crate) fn controller_call(http_method: &str, api_path: &str) -> MockBuilder {
    Mock::given(method(http_method)).and(path(api_path))
}

/// A JSON answer with this status (an `ApiCallRc` list, a model, a list of models).
pub(crate) fn json_answer(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

/// An answer of one LINSTOR `ApiCallRc` message (`[{"ret_code": …, "message": …}]`, as
/// linstor-server `Json.java` `apiCallRcToJson` writes it) with this status.
pub(crate) fn rc_answer(status: u16, ret_code: i64, message: &str) -> ResponseTemplate {
    json_answer(status, json!([{"ret_code": ret_code, "message": message}]))
}

/// A `200` JSON answer.
pub(crate) fn ok(body: Value) -> ResponseTemplate {
    json_answer(200, body)
}

/// Mounts `GET PATH` answering `answer`, as often as it is asked.
pub(crate) async fn serve_get(server: &MockApi, api_path: &str, answer: ResponseTemplate) {
    mount(server, controller_call("GET", api_path), answer).await;
}

/// Mounts `call` (a [`controller_call`], perhaps with more matchers) answering `answer`, as often
/// as it is asked.
pub(crate) async fn mount(server: &MockApi, call: MockBuilder, answer: ResponseTemplate) {
    call.respond_with(answer).mount(server.server()).await;
}

/// Mounts `call` answering `answer`, expected `times` times (checked by `server.verify()`).
pub(crate) async fn mount_times(
    server: &MockApi,
    call: MockBuilder,
    answer: ResponseTemplate,
    times: u64,
) {
    call.respond_with(answer)
        .expect(times)
        .mount(server.server())
        .await;
}

/// Mounts `call` answering `answer`, expected exactly once.
pub(crate) async fn mount_once(server: &MockApi, call: MockBuilder, answer: ResponseTemplate) {
    mount_times(server, call, answer, 1).await;
}

/// Mounts `GET /v1/controller/version` answering `version`, expected `times` times.
pub(crate) async fn serve_version(server: &MockApi, version: &str, times: u64) {
    let call = controller_call("GET", "/v1/controller/version");
    mount_times(server, call, version_answer(version), times).await;
}

/// Mounts `GET /v1/controller/version` answering `version` to requests with this
/// `Authorization` header only, expected `times` times.
pub(crate) async fn serve_version_to(
    server: &MockApi,
    authorization: &str,
    version: &str,
    times: u64,
) {
    let call = controller_call("GET", "/v1/controller/version")
        .and(header("authorization", authorization));
    mount_times(server, call, version_answer(version), times).await;
}

/// The `200` answer of `GET /v1/controller/version` with `version`.
pub(crate) fn version_answer(version: &str) -> ResponseTemplate {
    json_answer(200, controller_version_body(version))
}

/// The version the controller answered (`GET /v1/controller/version`), panicking on an error.
pub(crate) async fn answered_version(client: &Client) -> Option<String> {
    client
        .controller_version()
        .await
        .expect("the controller answers its version")
        .version
}

/// A wiremock server with the catch-all responder, serving at `/`.
pub(crate) async fn mock() -> MockApi {
    MockApi::start("").await
}

/// A client of one wiremock server.
pub(crate) fn mock_client(mock: &MockApi) -> Client {
    client_for(&[mock.base_url()])
}

/// A URL of 127.0.0.1 on which nothing listens (a port that was just free).
pub(crate) fn closed_port_url() -> Url {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    let port = listener.local_addr().expect("local address").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/")
        .parse()
        .expect("valid URL")
}

/// A fixture file as text.
pub(crate) fn fixture_text(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A fixture file as JSON.
pub(crate) fn fixture(name: &str) -> Value {
    cpps_http::fixture!(name)
}

fn decode<T: serde::de::DeserializeOwned>(name: &str) -> T {
    let text = fixture_text(name);
    cpps_http::decode_json(text.as_bytes())
        .unwrap_or_else(|(path, message)| panic!("{name} at {path}: {message}"))
}

/// The cluster described by the JSON fixtures.
pub(crate) fn fixture_state() -> ClusterState {
    ClusterState {
        nodes: decode("nodes.json"),
        storage_pools: decode("storage_pools.json"),
        resource_groups: decode("resource_groups.json"),
        resource_definitions: decode("resource_definitions.json"),
        resources: decode("resources.json"),
    }
}

/// The URL of a Prism server from `var`, or `None` after printing the skip line.
pub(crate) fn prism_url(var: &str) -> Option<Url> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => {
            let url: Url = value
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{var}={value} is not a URL: {e}"));
            assert_eq!(
                url.host_str(),
                Some("127.0.0.1"),
                "{var} must point at 127.0.0.1"
            );
            Some(url)
        }
        _ => {
            println!("skipped: {var} not set (run `cargo xtask test`)");
            None
        }
    }
}

/// A controller that never accepts a connection (cpps-http's [`SilentListener`]: a full accept
/// queue, so the kernel drops the SYNs and a connect times out, as against a powered-off host or
/// a site that was cut off). Keep the guard alive while the URL is used.
pub(crate) struct SilentController {
    _listener: SilentListener,
    /// The controller's URL.
    pub(crate) url: Url,
}

/// Starts a [`SilentController`].
pub(crate) async fn silent_controller() -> SilentController {
    let listener = SilentListener::start().await;
    SilentController {
        url: listener.url(""),
        _listener: listener,
    }
}

/// A controller that answers its first request, over HTTP/1.1 with keep-alive, and then never
/// answers again: neither on that kept-alive connection nor on new ones, which it still
/// accepts. It is a controller that hung, or whose site was cut off, after a first poll left a
/// pooled connection to it in the client (issue 33, D5). It counts the requests and
/// connections it got.
pub(crate) struct GoesSilent {
    /// The controller's URL.
    pub(crate) url: Url,
    requests: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    connections: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl GoesSilent {
    /// Requests received (their heads read to the end), the answered first one included.
    pub(crate) fn requests(&self) -> usize {
        self.requests.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Connections accepted.
    pub(crate) fn connections(&self) -> usize {
        self.connections.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Drop for GoesSilent {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a [`GoesSilent`] controller whose one answer is `GET /v1/controller/version` with
/// `version` (whatever the first request asked).
pub(crate) async fn goes_silent_after_one_answer(version: &str) -> GoesSilent {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local address").port();
    let body = controller_version_body(version).to_string();
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    let requests = Arc::new(AtomicUsize::new(0));
    let connections = Arc::new(AtomicUsize::new(0));
    let (counted, accepted) = (requests.clone(), connections.clone());
    let task = tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            accepted.fetch_add(1, Ordering::SeqCst);
            let (counted, answer) = (counted.clone(), answer.clone());
            tokio::spawn(async move {
                let mut seen = Vec::new();
                let mut buffer = [0_u8; 4096];
                // Reads until the client closes; answers only the very first request head.
                while let Ok(read) = stream.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    seen.extend_from_slice(&buffer[..read]);
                    while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                        seen.drain(..end + 4);
                        if counted.fetch_add(1, Ordering::SeqCst) == 0
                            && stream.write_all(answer.as_bytes()).await.is_err()
                        {
                            return;
                        }
                    }
                }
            });
        }
    });
    GoesSilent {
        url: format!("http://127.0.0.1:{port}/")
            .parse()
            .expect("valid URL"),
        requests,
        connections,
        task,
    }
}
