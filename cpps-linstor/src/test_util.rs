//! A wiremock LINSTOR controller serving this crate's payload fixtures (`tests/fixtures`: real
//! controller answer shapes, a resource `Inconsistent`, one `Outdated`, one on an offline
//! satellite), for the tests of this crate and of the crates built on it (feature `test-util`).

use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The five lists [`crate::Client::cluster_state`] reads: nodes, storage pools, resource
/// groups, resource definitions, resources.
pub const CLUSTER_STATE_PATHS: [&str; 5] = [
    "/v1/nodes",
    "/v1/view/storage-pools",
    "/v1/resource-groups",
    "/v1/resource-definitions",
    "/v1/view/resources",
];

/// The fixtures answering [`CLUSTER_STATE_PATHS`], in the same order.
pub const CLUSTER_STATE_FIXTURES: [&str; 5] = [
    "nodes.json",
    "storage_pools.json",
    "resource_groups.json",
    "resource_definitions.json",
    "resources.json",
];

/// This crate's payload fixture `tests/fixtures/NAME` as JSON (panics naming the file when it
/// is missing or invalid: a broken fixture is a bug in the test).
pub fn fixture(name: &str) -> Value {
    cpps_http::test_util::load_fixture(env!("CARGO_MANIFEST_DIR"), name)
}

/// Mounts on `server` the GETs of [`CLUSTER_STATE_PATHS`], each answered `200` with its body of
/// `answers` (same order); with `times`, each is expected that many times (checked by
/// `MockServer::verify`).
pub async fn mount_cluster_lists(server: &MockServer, answers: [Value; 5], times: Option<u64>) {
    for (route, body) in CLUSTER_STATE_PATHS.into_iter().zip(answers) {
        let mock = Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(body));
        match times {
            Some(n) => mock.expect(n),
            None => mock,
        }
        .mount(server)
        .await;
    }
}

/// [`mount_cluster_lists`] answering with [`CLUSTER_STATE_FIXTURES`].
pub async fn mount_cluster_state(server: &MockServer, times: Option<u64>) {
    mount_cluster_lists(server, CLUSTER_STATE_FIXTURES.map(fixture), times).await;
}
