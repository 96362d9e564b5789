//! What one poll costs the controller (issue 33, S2): how many `GET /v1/view/resources`
//! requests `Client::cluster_state` sends at 600 and 3,000 replicas, counted, never timed.
//!
//! linstor-server answers every request to that path, a page or not, by asking every satellite
//! with thin volumes for their allocation and building the whole list, and only then cuts the
//! page: `CtrlVlmListApiCallHandler.listVlms` calls `VlmAllocatedFetcherProto.fetchVlmAllocated`
//! (`requestVlmAllocated` streams every node that `hasThinVlms`), and `View.viewResources`
//! (`listVolumesApiCallRcWithToResponse`) applies `skip(offset).limit(limit)` to the assembled
//! list. So each request is one fan-out to the satellites, and the count of requests is the cost.
//!
//! The controller here is wiremock, paging as `View.java` does; each request it received is
//! then sent to Prism serving the official spec (`CPPS_TEST_PRISM_URL`, under
//! `cargo xtask test`), which must accept it.

mod common;

use cpps_http::{Request, StatusCode};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use common::{client_for, fixture, mock, mock_client, prism_url};

/// Answers `GET /v1/view/resources` from `replicas` as `View.listVolumesApiCallRcWithToResponse`
/// does: with `limit > 0`, `skip(offset).limit(limit)`; otherwise the whole list.
struct PagedView {
    replicas: Vec<Value>,
}

impl wiremock::Respond for PagedView {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let param = |name: &str| -> usize {
            request
                .url
                .query_pairs()
                .find(|(key, _)| key == name)
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0)
        };
        let (offset, limit) = (param("offset"), param("limit"));
        let page: Vec<&Value> = if limit > 0 {
            self.replicas.iter().skip(offset).take(limit).collect()
        } else {
            self.replicas.iter().collect()
        };
        ResponseTemplate::new(200).set_body_json(page)
    }
}

/// `count` replicas shaped as the fixture's first one (`resources.json`), three per resource.
fn replicas(count: usize) -> Vec<Value> {
    let template = fixture("resources.json")[0].clone();
    (0..count)
        .map(|i| {
            let mut replica = template.clone();
            replica["name"] = Value::from(format!("vm-{}-disk-0", 100 + i / 3));
            replica["node_name"] = Value::from(format!("pve-ippri-{}", 11 + i % 3));
            replica
        })
        .collect()
}

/// The `GET /v1/view/resources` requests one `cluster_state` sends at `count` replicas, each as
/// path and query.
async fn view_requests(count: usize) -> Vec<(String, Vec<(String, String)>)> {
    let server = mock().await;
    let empty = Value::Array(Vec::new());
    for list in [
        "/v1/nodes",
        "/v1/view/storage-pools",
        "/v1/resource-groups",
        "/v1/resource-definitions",
    ] {
        common::serve_get(&server, list, common::ok(empty.clone())).await;
    }
    Mock::given(method("GET"))
        .and(path("/v1/view/resources"))
        .respond_with(PagedView {
            replicas: replicas(count),
        })
        .mount(server.server())
        .await;
    let state = mock_client(&server)
        .cluster_state()
        .await
        .expect("the lists decode");
    assert_eq!(state.resources.len(), count, "every replica read");
    server.assert_no_unexpected_requests();
    server
        .server()
        .received_requests()
        .await
        .expect("wiremock records requests")
        .into_iter()
        .filter(|r| r.url.path() == "/v1/view/resources")
        .map(|r| {
            let query = r
                .url
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect();
            (r.url.path().trim_start_matches('/').to_owned(), query)
        })
        .collect()
}

// Pages of 50 (the spec's `Limit` maximum) sent 13 requests at 600 replicas and 61 at 3,000,
// each one fan-out to every satellite; this failed before `cluster_state` read the view in one
// request.
#[tokio::test]
async fn a_poll_reads_the_resources_view_in_one_request_at_600_and_3000_replicas() {
    let prism = prism_url("CPPS_TEST_PRISM_URL").map(|url| client_for(&[url]));
    for count in [600, 3_000] {
        let requests = view_requests(count).await;
        println!(
            "{count} replicas: {} GET /v1/view/resources per poll",
            requests.len()
        );
        assert_eq!(requests.len(), 1, "{count} replicas: {requests:?}");
        let Some(prism) = &prism else { continue };
        for (path, query) in requests {
            let mut request = Request::get(path.clone());
            for (key, value) in &query {
                request = request.query(key.clone(), value);
            }
            let response = prism.execute(request).await.expect("Prism answers");
            assert_ne!(
                response.status(),
                StatusCode::UNPROCESSABLE_ENTITY,
                "Prism rejected {path} {query:?}: {}",
                response.text()
            );
            assert!(response.status().is_success(), "{}", response.status());
        }
    }
}

/// `count` storage pools shaped as the fixture's thin pool (`storage_pools.json`), three per node.
fn storage_pools(count: usize) -> Vec<Value> {
    let template = fixture("storage_pools.json")[2].clone();
    (0..count)
        .map(|i| {
            let mut pool = template.clone();
            pool["storage_pool_name"] = Value::from(format!("pool-{}", i % 3));
            pool["node_name"] = Value::from(format!("pve-{}", i / 3));
            pool
        })
        .collect()
}

/// The `GET /v1/view/storage-pools` requests one `cluster_state` of `client_of(server)` sends
/// at `count` pools, each as its query, with the pools it read.
async fn storage_pool_requests(
    count: usize,
    client_of: impl FnOnce(&cpps_http::test_util::MockApi) -> cpps_linstor::Client,
) -> (Vec<Vec<(String, String)>>, usize) {
    let server = mock().await;
    let empty = Value::Array(Vec::new());
    for list in [
        "/v1/nodes",
        "/v1/resource-groups",
        "/v1/resource-definitions",
        "/v1/view/resources",
    ] {
        common::serve_get(&server, list, common::ok(empty.clone())).await;
    }
    Mock::given(method("GET"))
        .and(path("/v1/view/storage-pools"))
        .respond_with(PagedView {
            replicas: storage_pools(count),
        })
        .mount(server.server())
        .await;
    let state = client_of(&server)
        .cluster_state()
        .await
        .expect("the lists decode");
    server.assert_no_unexpected_requests();
    let requests = server
        .server()
        .received_requests()
        .await
        .expect("wiremock records requests")
        .into_iter()
        .filter(|r| r.url.path() == "/v1/view/storage-pools")
        .map(|r| {
            r.url
                .query_pairs()
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .collect();
    (requests, state.storage_pools.len())
}

// N2 (audit 33): every request to `/v1/view/storage-pools`, a page or not, makes the controller
// ask every satellite with thin pools for its free space before it cuts the page
// (linstor-server `View.viewStoragePools` → `CtrlStorPoolListApiCallHandler.listStorPools` with
// `fromCache = false` → `freeCapacityFetcher.fetchThinFreeSpaceInfo`; `storPoolListToResponse`
// applies `skip(offset).limit(limit)` afterwards). Pages of 50 sent 7 requests at 300 pools and
// 31 at 1,500, each a fan-out; this failed before `cluster_state` read the list in one request.
#[tokio::test]
async fn a_poll_reads_the_storage_pools_in_one_request_at_300_and_1500_pools() {
    let prism = prism_url("CPPS_TEST_PRISM_URL").map(|url| client_for(&[url]));
    for count in [300, 1_500] {
        let (requests, read) = storage_pool_requests(count, mock_client).await;
        assert_eq!(read, count, "every pool read");
        println!(
            "{count} pools: {} GET /v1/view/storage-pools per poll",
            requests.len()
        );
        assert_eq!(requests, [Vec::<(String, String)>::new()], "{count} pools");
        let Some(prism) = &prism else { continue };
        let response = prism
            .execute(Request::get("v1/view/storage-pools"))
            .await
            .expect("Prism answers");
        assert!(response.status().is_success(), "{}", response.status());
    }
}

// Past the client's response cap (`max_response_bytes`) the whole list is refused, and the
// pools are read again in pages of 50 (the spec's `Limit` maximum) that fit under it: 300 pools
// of about 700 bytes against a 64 KiB cap.
#[tokio::test]
async fn storage_pools_past_the_cap_are_read_in_pages() {
    let size = serde_json::to_vec(&storage_pools(300)).unwrap().len();
    assert!(
        size > 64 * 1024,
        "the whole list ({size} bytes) must pass the cap"
    );
    let (requests, read) = storage_pool_requests(300, |server| {
        common::single_attempt_builder(server.base_url().as_str())
            .max_response_bytes(64 * 1024)
            .build()
            .expect("a client builds")
    })
    .await;
    assert_eq!(read, 300);
    let offsets: Vec<Option<String>> = requests
        .iter()
        .map(|q| {
            q.iter()
                .find(|(k, _)| k == "offset")
                .map(|(_, v)| v.clone())
        })
        .collect();
    let page = |o: &str| Some(o.to_owned());
    assert_eq!(
        offsets,
        [
            None,
            page("0"),
            page("50"),
            page("100"),
            page("150"),
            page("200"),
            page("250"),
            page("300")
        ]
    );
}
