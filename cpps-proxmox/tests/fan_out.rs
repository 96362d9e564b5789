//! The sweep's list round (`inventory::list_round`) against wiremock: it opens the connections
//! of the fan-out that follows it (behind a relay that notes each connection), and the fan-out
//! starts once the list it needs is in.

mod common;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cpps_http::Request;
use cpps_http::test_util::{CountingProxy, SilentListener};
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

/// A site that answers every read with an empty list at once, and a client of it.
async fn empty_lists_site() -> (cpps_http::test_util::MockApi, Client) {
    let api = common::pve_mock_api().await;
    Mock::given(method("GET"))
        .and(path_regex("^/api2/json/"))
        .respond_with(common::data_answer(json!([])))
        .mount(api.server())
        .await;
    let client = common::mock_client(&api);
    (api, client)
}

/// The list round starts its requests once the first connect has told how near the server is,
/// so a near one is asked for the lists uncompressed (`cpps_http::NEAR_CONNECT`): pveproxy
/// gzips an answer at level 9 only for a request that accepts it (pve-http-server
/// `src/PVE/APIServer/AnyEvent.pm` `response`), and on a LAN that gzip of a 600-guest
/// `/cluster/resources` costs more than its bytes do. (A loopback connect of plain HTTP ends
/// so soon that the list's requests would mostly know without the wait; the next test pins
/// the wait itself.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_list_round_asks_a_near_server_for_the_lists_uncompressed() {
    let (api, client) = empty_lists_site().await;
    let http = client.http().clone();
    let lists = ["nodes", "cluster/resources", "cluster/ha/resources"];
    let list = futures::future::join_all(lists.map(|p| http.execute(Request::get(p))));
    let (listed, _) = list_round(&client, lists.len(), NEAR_CONCURRENCY, list).await;
    assert!(listed.iter().all(Result::is_ok));

    let first_connect = http
        .first_connect_time()
        .await
        .expect("a connect to 127.0.0.1");
    // A machine so loaded that 127.0.0.1 took longer than `NEAR_CONNECT` sees a far server.
    let near = first_connect <= cpps_http::NEAR_CONNECT;
    let expected = if near { "identity" } else { "gzip" };
    assert_eq!(
        api.header_of_each_request("accept-encoding").await,
        vec![Some(expected.to_owned()); lists.len()],
        "first connect {first_connect:?}"
    );
}

/// The list round opens a connection for each of its requests, which may be more than the
/// caller's bound; the fan-out's bound stays the caller's.
#[tokio::test]
async fn the_bound_stays_within_a_concurrency_smaller_than_the_list() {
    let (_api, client) = empty_lists_site().await;
    let http = client.http().clone();
    let lists = [
        "nodes",
        "cluster/resources",
        "cluster/ha/resources",
        "storage",
    ];
    let (listed, bound) = list_round(
        &client,
        lists.len(),
        2,
        futures::future::join_all(lists.map(|p| http.execute(Request::get(p)))),
    )
    .await;
    assert!(listed.iter().all(Result::is_ok));
    assert_eq!(bound, 2);
}

/// While the first connect has not ended, the list waits for it, but no longer than
/// `NEAR_CONNECT`: a connect that takes longer is a far server's, asked for gzip anyway, and
/// the list must not wait for a server that never answers. Here the connect hangs (a listener
/// whose accept queue is full), so the list starts after `NEAR_CONNECT`, long before the
/// client's connect timeout.
#[tokio::test]
async fn the_list_waits_for_the_first_connect_at_most_near_connect() {
    let silent = SilentListener::start().await;
    let client = Client::builder(silent.url("/api2/json").as_str())
        .api_token_str("root@pam!ci=5ecr3t")
        .expect("a valid token")
        .connect_timeout(Duration::from_secs(60))
        .build()
        .expect("the client builds");
    let began = Instant::now();
    let (started, bound) =
        list_round(&client, 1, NEAR_CONCURRENCY, async { began.elapsed() }).await;
    assert!(
        started >= cpps_http::NEAR_CONNECT,
        "the list started {started:?} after the round, before any connect ended"
    );
    assert!(started < Duration::from_secs(30), "{started:?}");
    // No connect ended, so the bound is the near one.
    assert_eq!(bound, NEAR_CONCURRENCY);
}

/// Issue 36: the sweep's configs start once the guest list is in, while the other lists of
/// the round finish (here the HA resources, held 1.5 s). Before, the configs waited for the
/// slowest list of the round. Answers in the shapes of pve-manager `PVE/API2/Cluster.pm`
/// `resources` and pve-access-control `PVE/API2/AccessControl.pm` `permissions`.
#[tokio::test]
async fn the_configs_start_once_the_guest_list_is_in() {
    const SLOW: Duration = Duration::from_millis(1500);
    let api = common::pve_mock_api().await;
    let lists = [
        (
            "nodes",
            json!([{"node": "pve1", "status": "online"}]),
            Duration::ZERO,
        ),
        (
            "cluster/resources",
            json!([{"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve1",
                    "name": "dns1", "status": "running"}]),
            Duration::ZERO,
        ),
        ("cluster/ha/resources", json!([]), SLOW),
        (
            "access/permissions",
            json!({"/vms": {"VM.Audit": 1}}),
            Duration::ZERO,
        ),
    ];
    for (route, data, delay) in lists {
        common::pve_call("GET", route)
            .respond_with(common::data_answer(data).set_delay(delay))
            .mount(api.server())
            .await;
    }
    let config_asked: Arc<Mutex<Option<Instant>>> = Arc::default();
    let asked = config_asked.clone();
    common::pve_call("GET", "nodes/pve1/lxc/200/config")
        .respond_with(move |_: &wiremock::Request| {
            asked.lock().unwrap().get_or_insert_with(Instant::now);
            common::data_answer(json!({"hostname": "dns1", "unprivileged": 1}))
        })
        .mount(api.server())
        .await;
    let started = Instant::now();
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 4, None).await;
    assert!(inventory.errors.is_empty(), "{:?}", inventory.errors);
    assert_eq!(inventory.guests[0].privileged, Some(false));
    let asked = config_asked.lock().unwrap().expect("the config is read");
    assert!(
        asked.duration_since(started) < SLOW,
        "{:?}",
        asked.duration_since(started)
    );
}

/// Issue 36: the lists still on their way count in the fan-out's bound. Five in flight; the HA
/// resources held 600 ms, each of eight configs 200 ms: until the HA list has come, the three
/// lists but the guest list hold three slots (`inventory::holding_slots`, given back with the
/// last of them), and two configs go at a time. Without the lists' share the configs went five
/// at a time beside the HA list (six requests in flight for a bound of five).
/// Answers in the shapes of pve-manager `PVE/API2/Cluster.pm` `resources`, pve-ha-manager
/// `src/PVE/API2/HA/Resources.pm` `index`, pve-access-control `PVE/API2/AccessControl.pm`
/// `permissions` and pve-container `src/PVE/API2/LXC/Config.pm` `vm_config` (the same in PVE 8.4
/// and 9: the list round reads no field that differs).
#[tokio::test]
async fn the_lists_still_on_their_way_count_in_the_bound() {
    const SLOW: Duration = Duration::from_millis(600);
    const HOLD: Duration = Duration::from_millis(200);
    let api = common::pve_mock_api().await;
    let containers: Vec<serde_json::Value> = (200..208)
        .map(|vmid| {
            json!({"id": format!("lxc/{vmid}"), "type": "lxc", "vmid": vmid,
                           "node": "pve1", "name": format!("ct{vmid}"), "status": "running"})
        })
        .collect();
    let lists = [
        (
            "nodes",
            json!([{"node": "pve1", "status": "online"}]),
            Duration::ZERO,
        ),
        ("cluster/resources", json!(containers), Duration::ZERO),
        ("cluster/ha/resources", json!([]), SLOW),
        (
            "access/permissions",
            json!({"/vms": {"VM.Audit": 1}}),
            Duration::ZERO,
        ),
    ];
    let arrivals: Arc<Mutex<Vec<(String, Instant)>>> = Arc::default();
    for (route, data, delay) in lists {
        let arrivals = arrivals.clone();
        common::pve_call("GET", route)
            .respond_with(move |request: &wiremock::Request| {
                let arrived = (request.url.path().to_owned(), Instant::now());
                arrivals.lock().unwrap().push(arrived);
                common::data_answer(data.clone()).set_delay(delay)
            })
            .mount(api.server())
            .await;
    }
    let config_arrivals = arrivals.clone();
    Mock::given(method("GET"))
        .and(path_regex("^/api2/json/nodes/pve1/lxc/[0-9]+/config$"))
        .respond_with(move |request: &wiremock::Request| {
            let arrived = (request.url.path().to_owned(), Instant::now());
            config_arrivals.lock().unwrap().push(arrived);
            common::data_answer(json!({"hostname": "ct", "unprivileged": 1})).set_delay(HOLD)
        })
        .mount(api.server())
        .await;
    let inventory = cpps_proxmox::inventory::collect(&common::mock_client(&api), 5, None).await;
    assert!(inventory.errors.is_empty(), "{:?}", inventory.errors);
    assert_eq!(inventory.guests.len(), 8);

    let arrivals = arrivals.lock().unwrap().clone();
    let ha_ends = arrivals
        .iter()
        .find(|(path, _)| path.ends_with("/cluster/ha/resources"))
        .map(|(_, at)| *at + SLOW)
        .unwrap();
    let configs: Vec<Instant> = arrivals
        .iter()
        .filter(|(path, _)| path.ends_with("/config"))
        .map(|(_, at)| *at)
        .collect();
    assert_eq!(configs.len(), 8);
    assert!(
        configs.iter().any(|at| *at < ha_ends),
        "the configs start before the HA list has come"
    );
    // A request held `HOLD` is in flight for most of it: those arriving within one window were
    // in flight together.
    let window = HOLD - Duration::from_millis(20);
    for at in &configs {
        let together = configs
            .iter()
            .filter(|o| **o <= *at && at.duration_since(**o) < window)
            .count();
        let lists = usize::from(*at < ha_ends);
        assert!(
            together + lists <= 5,
            "{together} configs and {lists} list at once"
        );
    }
}
