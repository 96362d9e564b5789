//! Setup shared by the integration tests.
#![allow(dead_code)]

use std::time::Duration;

use cpps_http::Url;
use cpps_http::test_util::MockApi;
use cpps_linstor::health::ClusterState;
use cpps_linstor::{Client, RetryPolicy};

/// A client for these controllers with test timeouts and no retries, so that fail-over is
/// immediate.
pub(crate) fn client_for(urls: &[Url]) -> Client {
    let list = urls.iter().map(Url::as_str).collect::<Vec<_>>().join(",");
    Client::builder(list)
        .retry(RetryPolicy::none())
        .connect_timeout(Duration::from_secs(2))
        .deadline(Duration::from_secs(20))
        .build()
        .expect("a client for local test servers builds")
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
pub(crate) fn fixture(name: &str) -> serde_json::Value {
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

/// A controller that never accepts a connection: a listener on 127.0.0.1 with a backlog of 0
/// whose accept queue is filled, so that the kernel drops every further SYN and a client's
/// connect times out, as it does against a powered-off host or a site that was cut off. Keep the
/// guard alive while the URL is used.
pub(crate) struct SilentController {
    _listener: tokio::net::TcpListener,
    _queued: Vec<std::net::TcpStream>,
    /// The controller's URL.
    pub(crate) url: Url,
}

/// Starts a [`SilentController`]; panics when the accept queue cannot be filled (then the kernel
/// would answer, and the test would prove nothing).
pub(crate) fn silent_controller() -> SilentController {
    let socket = tokio::net::TcpSocket::new_v4().expect("a TCP socket");
    socket
        .bind("127.0.0.1:0".parse().expect("an address"))
        .expect("bind an ephemeral port");
    let addr = socket.local_addr().expect("local address");
    // `listen` needs a runtime only for the registration of the listener.
    let listener = socket.listen(0).expect("listen with a backlog of 0");
    let mut queued = Vec::new();
    loop {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(200)) {
            Ok(stream) => queued.push(stream),
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => break,
            Err(e) => panic!("filling the accept queue of {addr}: {e}"),
        }
        assert!(queued.len() < 64, "the accept queue of {addr} never fills");
    }
    SilentController {
        _listener: listener,
        _queued: queued,
        url: format!("http://{addr}/").parse().expect("valid URL"),
    }
}
