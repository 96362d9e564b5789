//! The sweep's connections (`inventory::list_round`): the list round opens those of the
//! fan-out that follows it, against wiremock behind a relay that notes each connection.

mod common;

use std::time::{Duration, Instant};

use cpps_http::Request;
use cpps_http::test_util::CountingProxy;
use cpps_proxmox::Client;
use cpps_proxmox::inventory::{NEAR_CONCURRENCY, list_round};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path_regex};

/// Each answer is held this long: the list round lasts about as long, and the fan-out's
/// requests are all in flight at once.
const HOLD: Duration = Duration::from_millis(150);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_round_opens_every_connection_of_the_fan_out() {
    let api = common::pve_mock_api().await;
    Mock::given(method("GET"))
        .and(path_regex("^/api2/json/"))
        .respond_with(common::data_answer(json!([])).set_delay(HOLD))
        .mount(api.server())
        .await;
    let proxy = CountingProxy::start(*api.server().address()).await;
    let client = Client::builder(proxy.url("/api2/json").as_str())
        .api_token_str("root@pam!ci=5ecr3t")
        .expect("a valid token")
        .build()
        .expect("the client builds");
    let get = |path: String| {
        let http = client.http().clone();
        async move { http.execute(Request::get(path)).await.map(|a| a.status()) }
    };

    // The list round of `inventory::collect`: four lists at once.
    let lists = [
        "nodes",
        "cluster/resources",
        "cluster/ha/resources",
        "access/permissions",
    ];
    let (listed, bound) = list_round(
        &client,
        lists.len(),
        NEAR_CONCURRENCY,
        futures::future::join_all(lists.map(|p| get(p.to_owned()))),
    )
    .await;
    let list_ended = Instant::now();
    assert!(
        listed
            .iter()
            .all(|s| s.as_ref().is_ok_and(|s| s.is_success()))
    );
    // The concurrency asked for is the near bound, so the bound is it whatever the connect took.
    assert_eq!(bound, NEAR_CONCURRENCY);
    // Once the list's own connections are back in the pool, the fan-out: `bound` reads at once.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let configs = (0..bound).map(|i| get(format!("nodes/pve1/lxc/{}/config", 100 + i)));
    let answered = futures::future::join_all(configs).await;
    assert!(
        answered
            .iter()
            .all(|s| s.as_ref().is_ok_and(|s| s.is_success()))
    );

    // The list's requests took spares too (`HttpClient::preconnect`), so the round opens the
    // bound in all; one opened after it would hold a fan-out read for its handshakes.
    let accepted = proxy.accepted();
    let late = accepted.iter().filter(|at| **at > list_ended).count();
    assert_eq!(
        (accepted.len(), late),
        (bound, 0),
        "connections in all, and opened after the list round"
    );
}
