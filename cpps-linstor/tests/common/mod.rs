//! Setup shared by the integration tests.
#![allow(dead_code)]

use std::time::Duration;

use cpps_http::Url;
use cpps_http::test_util::{MockApi, SilentListener};
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
