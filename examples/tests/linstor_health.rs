//! Runs the built `linstor-health` binary against a wiremock controller serving the payload
//! shapes of `cpps-linstor/tests/fixtures` (real shapes per the LINSTOR spec and LINBIT's issue
//! threads; see that folder's SOURCE.md), with a dead controller first in `LS_CONTROLLERS`.

mod common;

use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn fixture(name: &str) -> serde_json::Value {
    common::json_file(&format!("cpps-linstor/tests/fixtures/{name}"))
}

/// The replicas of `vm-100-disk-0` from the resources fixture: a resource that is healthy.
fn healthy_resources() -> serde_json::Value {
    let all = fixture("resources.json");
    let healthy = all
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["name"] == "vm-100-disk-0")
        .cloned()
        .collect();
    serde_json::Value::Array(healthy)
}

async fn controller(resources: serde_json::Value) -> MockServer {
    let server = MockServer::start().await;
    for (route, body) in [
        ("/v1/nodes", fixture("nodes.json")),
        ("/v1/view/storage-pools", fixture("storage_pools.json")),
        ("/v1/resource-groups", fixture("resource_groups.json")),
        (
            "/v1/resource-definitions",
            fixture("resource_definitions.json"),
        ),
        ("/v1/view/resources", resources),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .expect(1)
            .mount(&server)
            .await;
    }
    server
}

fn dead_controller() -> String {
    format!("127.0.0.1:{}", common::free_port())
}

/// Runs `linstor-health` with `args` and the variables `env`, every other variable
/// `cpps_linstor::ClientBuilder::from_env` reads removed.
async fn run_env(env: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_linstor-health"));
    for name in [
        "LS_CONTROLLERS",
        "LS_USERNAME",
        "LS_PASSWORD",
        "LS_BEARER_TOKEN_FILE",
        "LS_ROOT_CA",
        "LS_ROOT_CA_FILE",
        "LS_USER_CERTIFICATE",
        "LS_USER_CERTIFICATE_FILE",
        "LS_USER_KEY",
        "LS_USER_KEY_FILE",
    ] {
        command.env_remove(name);
    }
    command
        .envs(env.iter().copied())
        .args(args)
        .output()
        .await
        .expect("linstor-health runs")
}

/// Runs `linstor-health` with `args` against the controllers `controllers`.
async fn run(controllers: &str, args: &[&str]) -> std::process::Output {
    run_env(&[("LS_CONTROLLERS", controllers)], args).await
}

#[tokio::test]
async fn text_report_lists_every_class_and_exits_1() {
    let server = controller(fixture("resources.json")).await;
    let list = format!("{},{}", dead_controller(), server.uri());
    let out = run(&list, &[]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  vm-100-disk-0                    healthy      2/2 diskful UpToDate, place_count 2",
            "  vm-101-disk-0                    degraded     2/2 diskful UpToDate, place_count 3",
            "      desynced: volume 0 on pve-ippri-12 is SyncTarget towards pve-ippri-11 (42.5% done)",
            "      disconnected: pve-ippri-11 → pve-ippri-12: StandAlone",
            "      unknown: volume 0 on pve-ippri-33 has no state: the node is not online",
            "SUMMARY: 1 healthy, 1 degraded, 1 desynced, 1 disconnected, 1 unknown, 0 inactive; 4 at risk; 1 evicted and 2 offline nodes; 1 pools low on space, 1 with errors",
            "      risk no_tie_breaker: 2 diskful replicas and no diskless tie-breaker: a network split between them risks split brain",
            // Both sides StandAlone, one Outdated: the disk states say which is likely newer.
            "STANDALONE DRBD CONNECTIONS",
            "  vm-103-disk-0 pve-ippri-11 (StandAlone) ↔ pve-ippri-12 (StandAlone): pve-ippri-12 is marked behind, pve-ippri-11 UpToDate: pve-ippri-11 is likely the current one; DRBD decides by generation UUIDs, which LINSTOR does not report",
        ],
    );
    server.verify().await;
}

#[tokio::test]
async fn json_report_carries_classes_counts_and_the_controller() {
    let server = controller(healthy_resources()).await;
    let out = run(&server.uri(), &["--format", "json"]).await;
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON output");
    // Nodes evicted/offline in the fixtures still raise the alert.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json["alerts"], true);
    assert_eq!(
        json["standalone"],
        serde_json::json!([]),
        "no StandAlone connection"
    );
    assert_eq!(json["report"]["counts"]["evicted_nodes"], 1);
    let resources = json["report"]["resources"].as_array().unwrap();
    let vm100 = resources
        .iter()
        .find(|r| r["name"] == "vm-100-disk-0")
        .unwrap();
    assert_eq!(vm100["class"], "healthy");
    assert_eq!(vm100["up_to_date"], 2);
    assert_eq!(
        json["report"]["total_capacity"]["total_kib"],
        3 * 1_056_964_608_u64 + 3_900_000_000
    );
    assert_eq!(json["controller"], format!("{}/", server.uri()));
    server.verify().await;
}

#[tokio::test]
async fn unreachable_controllers_exit_2_with_the_reason() {
    let out = run(&format!("{},{}", dead_controller(), dead_controller()), &[]).await;
    common::stderr_of_exit_saying(&out, 2, "no LINSTOR controller could be reached");
}

// Credentials from the environment, as golinstor reads them (client/client.go,
// `BearerTokenFileEnv`): the token in the file `LS_BEARER_TOKEN_FILE` names becomes
// `Authorization: Bearer …` (the spec's `bearerAuth` scheme) on every request.
#[tokio::test]
async fn bearer_token_from_the_environment_is_sent() {
    let server = MockServer::start().await;
    for (route, body) in [
        ("/v1/nodes", serde_json::json!([])),
        ("/v1/view/storage-pools", serde_json::json!([])),
        ("/v1/resource-groups", serde_json::json!([])),
        ("/v1/resource-definitions", serde_json::json!([])),
        ("/v1/view/resources", serde_json::json!([])),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .and(wiremock::matchers::header(
                "authorization",
                "Bearer tok-123",
            ))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .expect(1)
            .mount(&server)
            .await;
    }
    let token_file =
        std::env::temp_dir().join(format!("linstor-health-token-{}", std::process::id()));
    std::fs::write(&token_file, "tok-123\n").unwrap();
    let out = run_env(
        &[
            ("LS_CONTROLLERS", &server.uri()),
            ("LS_BEARER_TOKEN_FILE", token_file.to_str().unwrap()),
        ],
        &[],
    )
    .await;
    std::fs::remove_file(&token_file).ok();
    let text = common::stdout_of_exit(&out, 0);
    assert!(text.ends_with("SUMMARY: 0 healthy, 0 degraded, 0 desynced, 0 disconnected, 0 unknown, 0 inactive; 0 at risk; 0 evicted and 0 offline nodes; 0 pools low on space, 0 with errors\n"), "{text}");
    server.verify().await;
}

// A client certificate without its key is a configuration error (golinstor's
// "inconsistent env" case), reported before anything is sent.
#[tokio::test]
async fn a_certificate_without_its_key_is_refused() {
    let out = run_env(
        &[
            ("LS_CONTROLLERS", "https://127.0.0.1:4000"),
            ("LS_USER_CERTIFICATE", "-----BEGIN CERTIFICATE-----"),
        ],
        &[],
    )
    .await;
    common::stderr_of_exit_saying(
        &out,
        2,
        "LS_USER_CERTIFICATE[_FILE] and LS_USER_KEY[_FILE]: set both or none",
    );
}

// Issue 20, defect 1: `--timeout` bounds the whole run. A controller that accepts the connection
// and never answers would otherwise hold the run until the library's deadline (60 s).
#[tokio::test]
async fn timeout_bounds_the_whole_run_against_a_controller_that_never_answers() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            open.push(stream);
        }
    });
    let started = std::time::Instant::now();
    let out = run(&format!("http://{addr}"), &["--timeout", "2"]).await;
    let elapsed = started.elapsed();
    held.abort();
    let err = common::stderr_of_exit(&out, 2);
    assert!(elapsed < std::time::Duration::from_secs(5), "{elapsed:?}");
    assert!(elapsed >= std::time::Duration::from_secs(2), "{elapsed:?}");
    assert!(err.contains("2s"), "the error names the timeout: {err}");
}

// Issue 33: `--timeout` is shared among the controllers, so that one that accepts the
// connection and never answers leaves time to fail over to the next within the run, as golinstor
// fails over on any network error (`client/client.go` `retry`, `findRespondingController`).
// With a request timeout equal to `--timeout`, the silent first controller used the whole run
// and the working one was never asked (exit 2).
#[tokio::test]
async fn timeout_leaves_time_to_fail_over_from_a_silent_first_controller() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((stream, _)) = listener.accept().await {
            open.push(stream);
        }
    });
    let server = controller(healthy_resources()).await;
    let list = format!("http://{addr},{}", server.uri());
    let out = run(&list, &["--timeout", "12", "--format", "json"]).await;
    held.abort();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "JSON output; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    // Nodes evicted/offline in the fixtures raise the alert: exit 1, not 2.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json["controller"], format!("{}/", server.uri()));
    server.verify().await;
}

#[test]
fn help_documents_the_timeout() {
    common::help_documenting_timeout(env!("CARGO_BIN_EXE_linstor-health"));
}

// The site view and the off-site copies: nodes carry their site in `Aux/site` (here set on the
// fixture nodes), and `--off-site` reads `/v1/remotes`, `/v1/schedules` and
// `/v1/view/schedules-by-resource` (shapes per linstor-server `Remotes.java` and the spec's
// `ScheduledRscsList`). A resource without a recent off-site copy makes the run exit 1; a
// schedule's `last_snap_time` is when its last shipment started (linstor-server
// `CtrlBackupCreateApiCallHandler.setIncrementalDependentProps`), so it shows as an
// unconfirmed attempt, not a copy.
#[tokio::test]
async fn off_site_copies_and_sites_are_shown() {
    let mut nodes = fixture("nodes.json");
    for node in nodes.as_array_mut().unwrap() {
        let site = if node["name"].as_str().unwrap().starts_with("pve-ippri") {
            "sp"
        } else {
            "franca"
        };
        node["props"]["Aux/site"] = serde_json::json!(site);
    }
    let server = MockServer::start().await;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    for (route, body) in [
        ("/v1/nodes", nodes),
        ("/v1/view/storage-pools", fixture("storage_pools.json")),
        ("/v1/resource-groups", fixture("resource_groups.json")),
        (
            "/v1/resource-definitions",
            fixture("resource_definitions.json"),
        ),
        ("/v1/view/resources", healthy_resources()),
        (
            "/v1/remotes",
            serde_json::json!({"linstor_remotes": [{"remote_name": "franca"}]}),
        ),
        (
            "/v1/schedules",
            serde_json::json!({"data": [{"schedule_name": "nightly", "full_cron": "0 2 * * *"}]}),
        ),
        (
            "/v1/view/schedules-by-resource",
            serde_json::json!({"data": [{"rsc_name": "vm-100-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": now_ms - 2 * 3_600_000}]}),
        ),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(body))
            .mount(&server)
            .await;
    }
    let out = run(&server.uri(), &["--off-site"]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "      sites: sp: 2 diskful (2 UpToDate), 1 tie-breaker",
            "OFF-SITE COPIES",
            "  vm-100-disk-0                    no off-site copy  STALE",
            "                                   last shipment by schedule nightly to franca (linstor) started 2 h 0 min ago (unconfirmed)",
            "  vm-101-disk-0                    no off-site copy  STALE",
        ],
    );
    assert!(
        text.contains("pve-ippri-11             SATELLITE  ONLINE  site sp"),
        "{text}"
    );
}

/// A controller serving the lists of `cpps-linstor/tests/fixtures/site_loss_witness.json` (two
/// sites, a witness site and a node with no site) and no controller property.
async fn witness_controller() -> MockServer {
    let placement = fixture("site_loss_witness.json");
    let server = MockServer::start().await;
    for (route, key) in [
        ("/v1/nodes", "nodes"),
        ("/v1/view/storage-pools", "storage_pools"),
        ("/v1/resource-groups", "resource_groups"),
        ("/v1/resource-definitions", "resource_definitions"),
        ("/v1/view/resources", "resources"),
        ("/v1/controller/properties", "controller_props"),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(placement[key].clone()))
            .mount(&server)
            .await;
    }
    server
}

// Issue 33, "what a site loss would do": `--what-if-site-down` answers per resource by DRBD's
// quorum rules (`cpps_linstor::site_loss`, whose tests derive each answer), `--site NODE=SITE`
// places a node without `Aux/site`, and losing data or quorum fails the run.
#[tokio::test]
async fn what_if_site_down_lists_what_the_site_takes() {
    let server = witness_controller().await;
    let out = run(
        &server.uri(),
        &["--what-if-site-down", "franca", "--format", "json"],
    )
    .await;
    let text = common::stdout_of_exit(&out, 1);
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    // No `linstor_db` resource here: no drbd-reactor HA pair to tell about.
    assert_eq!(
        json["controller_ha"],
        serde_json::json!({"kind": "no_resource"})
    );
    let view = &json["what_if_site_down"];
    assert_eq!(view["site"], "franca");
    let effects = |name: &str| {
        view["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .map(|r| r["effects"].clone())
    };
    assert_eq!(
        effects("vm-200-disk-0"),
        Some(serde_json::json!(["loses_primary"]))
    );
    assert_eq!(
        effects("vm-202-disk-0"),
        Some(serde_json::json!(["loses_last_up_to_date"]))
    );
    assert_eq!(
        effects("vm-203-disk-0"),
        Some(serde_json::json!(["cannot_tell"]))
    );

    // With the unplaced node given a site, vm-203 is told: its one survivor lacks quorum.
    let out = run(
        &server.uri(),
        &[
            "--what-if-site-down",
            "franca",
            "--site",
            "pve-lab-9=witness",
        ],
    )
    .await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "IF SITE franca GOES DOWN (nodes: pve-franca-1, pve-franca-2)",
            "  vm-203-disk-0                    loses_quorum: 1 of 2 votes left, 2 needed (majority resource definition)",
        ],
    );
}

// A site no node is in is refused, so that a misspelt name never reads as "all survive".
#[tokio::test]
async fn what_if_an_unknown_site_is_refused() {
    let server = witness_controller().await;
    let out = run(&server.uri(), &["--what-if-site-down", "frnaca"]).await;
    common::stderr_of_exit_saying(
        &out,
        2,
        "no node is known in site `frnaca` (known sites: franca, sp, witness;",
    );
}

/// A controller serving `cpps-linstor/tests/fixtures/site_loss_two_sites.json` (with storage
/// pools) and answering `PUT /v1/nodes/{node}/evacuate` with a success message, expected
/// `evacuations` times.
async fn two_site_controller(node: &str, evacuations: u64) -> MockServer {
    let placement = fixture("site_loss_two_sites.json");
    let server = MockServer::start().await;
    for (route, key) in [
        ("/v1/nodes", "nodes"),
        ("/v1/view/storage-pools", "storage_pools"),
        ("/v1/resource-groups", "resource_groups"),
        ("/v1/resource-definitions", "resource_definitions"),
        ("/v1/view/resources", "resources"),
        ("/v1/controller/properties", "controller_props"),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(placement[key].clone()))
            .mount(&server)
            .await;
    }
    // A success `ApiCallRc` (no error or warning bits), as the spec's `ApiCallRcList`.
    Mock::given(method("PUT"))
        .and(path(format!("/v1/nodes/{node}/evacuate")))
        .and(wiremock::matchers::body_json(serde_json::json!({})))
        .respond_with(ResponseTemplate::new(200).set_body_json(
            serde_json::json!([{"ret_code": 17563651, "message": "Node evacuation started"}]),
        ))
        .expect(evacuations)
        .mount(&server)
        .await;
    server
}

// Issue 33, node maintenance: the plan is shown and nothing is sent without --apply; with it,
// a node whose absence would cost quorum is not evacuated (exit 1), and one whose peers suffice
// is (the request as `cpps_linstor::Plan::node_evacuate` builds it, Prism-checked in
// cpps-linstor's tests/prism.rs).
#[tokio::test]
async fn evacuate_plans_and_applies_only_what_the_pre_check_allows() {
    let server = two_site_controller("pve-franca-1", 0).await;
    let out = run(&server.uri(), &["--evacuate", "pve-franca-1", "--apply"]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "EVACUATE pve-franca-1",
            "  request: evacuate node pve-franca-1: PUT /v1/nodes/pve-franca-1/evacuate {}",
            "  vm-101-disk-0                    replaced (to one of pve-sp-1, pve-sp-2); while away 1/2 UpToDate BELOW PLACE COUNT LOSES_QUORUM",
        ],
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not evacuating pve-franca-1"),
        "{out:?}"
    );
    server.verify().await;

    let server = two_site_controller("pve-sp-2", 1).await;
    let out = run(&server.uri(), &["--evacuate", "pve-sp-2", "--apply"]).await;
    // Exit 1 all the same: the placement's vm-105-disk-0 has an Outdated replica (desynced).
    let stderr = common::stderr_of_exit(&out, 1);
    assert!(
        stderr.contains("evacuation of pve-sp-2 started"),
        "{stderr}"
    );
    assert!(stderr.contains("Node evacuation started"), "{stderr}");
    server.verify().await;
}

/// Answers `GET route` with `body` on `server`, as often as asked.
async fn serve(server: &MockServer, route: &str, body: serde_json::Value) {
    Mock::given(method("GET"))
        .and(path(route))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .mount(server)
        .await;
}

/// The fixture lists with only the `ONLINE`, not evicted nodes and the healthy
/// `vm-100-disk-0` (and its definition): nothing the run alerts on.
async fn serve_healthy_cluster(server: &MockServer) {
    let mut nodes = fixture("nodes.json");
    nodes.as_array_mut().unwrap().retain(|n| {
        n["connection_status"] == "ONLINE"
            && !n["flags"]
                .as_array()
                .is_some_and(|f| f.iter().any(|f| f == "EVICTED"))
    });
    let mut definitions = fixture("resource_definitions.json");
    definitions
        .as_array_mut()
        .unwrap()
        .retain(|d| d["name"] == "vm-100-disk-0");
    for (route, body) in [
        ("/v1/nodes", nodes),
        ("/v1/view/storage-pools", fixture("storage_pools.json")),
        ("/v1/resource-groups", fixture("resource_groups.json")),
        ("/v1/resource-definitions", definitions),
        ("/v1/view/resources", healthy_resources()),
    ] {
        serve(server, route, body).await;
    }
}

/// A controller answering `GET /v1/controller/version` (the shape of `ControllerVersion` in
/// linstor-server `docs/rest_v1_openapi.yaml`) and `GET /v1/controller/properties`.
async fn ha_controller(properties: serde_json::Value) -> MockServer {
    let server = MockServer::start().await;
    let version = serde_json::json!({"version": "1.31.3", "git_hash": "3e9306a9", "build_time": "2026-06-02T00:00:00+00:00", "rest_api_version": "1.28.0"});
    serve(&server, "/v1/controller/version", version).await;
    serve(&server, "/v1/controller/properties", properties).await;
    server
}

// `--vip`: the VIP of a controller pair must answer as the one controller node that answers,
// with the same `GET /v1/controller/version` and `GET /v1/controller/properties` (linstor-server
// `docs/rest_v1_openapi.yaml`; judged by `cpps_linstor::ha::assess_controllers`). The run
// prints the verdict, exits 0 when the VIP agrees and the cluster is healthy, 1 when the VIP
// answers other properties, and 2 when the VIP is not an entry of `LS_CONTROLLERS`.
#[tokio::test]
async fn vip_agreeing_passes_and_a_differing_vip_exits_1() {
    let props = serde_json::json!({"DrbdOptions/Net/protocol": "C"});
    let node = ha_controller(props.clone()).await;
    let vip = ha_controller(props).await;
    serve_healthy_cluster(&vip).await;
    let list = format!("{},{}", node.uri(), vip.uri());
    let out = run(&list, &["--vip", &vip.uri()]).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &[&format!(
            "CONTROLLER HA (VRRP): the controller at {}/ answers; the VIP answers alike",
            node.uri()
        )],
    );

    let other = ha_controller(serde_json::json!({"DrbdOptions/Net/protocol": "A"})).await;
    serve_healthy_cluster(&other).await;
    let list = format!("{},{}", node.uri(), other.uri());
    let out = run(&list, &["--vip", &other.uri()]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[&format!(
            "CONTROLLER HA (VRRP): the controller at {}/ answers; the VIP differs: the VIP and {}/ answer other controller properties",
            node.uri(),
            node.uri()
        )],
    );

    let out = run(&node.uri(), &["--vip", &other.uri()]).await;
    common::stderr_of_exit_saying(&out, 2, "is not one of the controllers in LS_CONTROLLERS");
}

// `--vip` names an entry of `LS_CONTROLLERS`, so it is read as that list's entries are
// (`cpps_linstor::ControllerList::parse`, after python-linstor `linstorapi.py`
// `controller_uri_list` and golinstor `client/client.go` `parseBaseURL`): `10.10.20.1` and
// `http://10.10.20.1` are `http://10.10.20.1:3370/` there. The VIP spelled `host:port` or
// `linstor://host:port` is the list's `http://host:port/` and passes, as the same VIP does.
#[tokio::test]
async fn vip_is_read_as_an_ls_controllers_entry() {
    let props = serde_json::json!({"DrbdOptions/Net/protocol": "C"});
    let node = ha_controller(props.clone()).await;
    let vip = ha_controller(props).await;
    serve_healthy_cluster(&vip).await;
    let list = format!("{},{}", node.uri(), vip.uri());
    let host_port = vip.uri().trim_start_matches("http://").to_owned();
    for spelled in [host_port.clone(), format!("linstor://{host_port}")] {
        let out = run(&list, &["--vip", &spelled]).await;
        let text = common::stdout_of_exit(&out, 0);
        common::assert_has_lines(
            &text,
            &[&format!(
                "CONTROLLER HA (VRRP): the controller at {}/ answers; the VIP answers alike",
                node.uri()
            )],
        );
    }
}

/// The source cluster: healthy, shipping vm-100-disk-0 to the LINSTOR remote `franca` by
/// schedule, its last shipment started 2 h before `now_ms`.
async fn l2l_source(now_ms: i64) -> MockServer {
    let source = MockServer::start().await;
    serve_healthy_cluster(&source).await;
    for (route, body) in [
        (
            "/v1/remotes",
            serde_json::json!({"linstor_remotes": [{"remote_name": "franca", "cluster_id": "c0ffee12-0000-4000-8000-000000000001"}]}),
        ),
        (
            "/v1/schedules",
            serde_json::json!({"data": [{"schedule_name": "nightly", "full_cron": "0 2 * * *"}]}),
        ),
        (
            "/v1/view/schedules-by-resource",
            serde_json::json!({"data": [{"rsc_name": "vm-100-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": now_ms - 2 * 3_600_000}]}),
        ),
        // This cluster's id (linstor-server `LinStor.PROP_KEY_CLUSTER_ID`), which the target
        // snapshot names as its sender in `Backup/FromClusterUUID`.
        (
            "/v1/controller/properties",
            serde_json::json!({"Cluster/LocalID": "5a11ad00-0000-4000-8000-000000000002"}),
        ),
    ] {
        serve(&source, route, body).await;
    }
    source
}

/// The target's snapshot view: it holds vm-100-disk-0's shipment of 2 h before `now_ms` with
/// shipping status `status`, sent by the cluster `from`.
fn target_holding(now_ms: i64, status: &str, from: &str) -> serde_json::Value {
    serde_json::json!([{"name": "back_20261206_060000_5a11ad00", "resource_name": "vm-100-disk-0", "nodes": ["pve-labri-31"], "flags": ["SUCCESSFUL", "BACKUP"],
        "props": {"BackupShipping/Target/ShippingStatus": status,
                  "BackupShipping/Target/BackupStartTimestamp": (now_ms - 2 * 3_600_000).to_string()},
        // The sender's id is a per-node snapshot prop: `CtrlBackupRestoreApiCallHandler
        // .createSnapshotAndVolumesForBackupRestore` writes the shipment's snapshot props on
        // each node's snapshot (`Json.apiToSnapshotNode`), not in the top-level `props`.
        "snapshots": [{"node_name": "pve-labri-31", "snapshot_name": "back_20261206_060000_5a11ad00", "flags": [],
                       "snapshot_props": {"Backup/FromClusterUUID": from}}]}])
}

// `--l2l-target`: an L2L shipment is a copy once the target cluster holds the snapshot with
// `BackupShipping/Target/ShippingStatus` `Success` (linstor-server
// `CtrlBackupL2LDstApiCallHandler` and `CtrlBackupRestoreApiCallHandler`
// `shippingReceivedInTransaction`), aged by `BackupStartTimestamp`. Confirmed there, the copy
// is fresh and the run exits 0; a target holding only a `Failed` one, or one whose
// `Backup/FromClusterUUID` is another cluster's (`CtrlBackupL2LDstApiCallHandler`), leaves the
// resource without a copy (exit 1); without `--l2l-target` the remote is not confirmed (exit 1).
#[tokio::test]
async fn l2l_target_confirms_a_copy_the_target_holds() {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let source = l2l_source(now_ms).await;
    let target = MockServer::start().await;
    let here = "5a11ad00-0000-4000-8000-000000000002";
    serve(
        &target,
        "/v1/view/snapshots",
        target_holding(now_ms, "Success", here),
    )
    .await;
    let l2l = format!("franca={}", target.uri());
    let out = run(&source.uri(), &["--off-site", "--l2l-target", &l2l]).await;
    let text = common::stdout_of_exit(&out, 0);
    common::assert_has_lines(
        &text,
        &[
            "  vm-100-disk-0                    newest copy on franca (linstor) 2 h 0 min old, by snapshot back_20261206_060000_5a11ad00 on the target",
        ],
    );

    let failed = MockServer::start().await;
    serve(
        &failed,
        "/v1/view/snapshots",
        target_holding(now_ms, "Failed", here),
    )
    .await;
    // A snapshot another cluster shipped to the same target is not this cluster's copy.
    let theirs = MockServer::start().await;
    let other = "c0ffee12-0000-4000-8000-000000000009";
    serve(
        &theirs,
        "/v1/view/snapshots",
        target_holding(now_ms, "Success", other),
    )
    .await;
    for target in [&failed, &theirs] {
        let l2l = format!("franca={}", target.uri());
        let out = run(&source.uri(), &["--off-site", "--l2l-target", &l2l]).await;
        let text = common::stdout_of_exit(&out, 1);
        common::assert_has_lines(
            &text,
            &["  vm-100-disk-0                    no off-site copy  STALE"],
        );
    }

    // A received snapshot that names no sender may be another cluster's: the resource is
    // "cannot tell", not fresh, and the run exits 1 (audit 33 C2).
    let unnamed = MockServer::start().await;
    let mut body = target_holding(now_ms, "Success", here);
    body[0]["snapshots"] = serde_json::json!([]);
    serve(&unnamed, "/v1/view/snapshots", body).await;
    let l2l = format!("franca={}", unnamed.uri());
    let out = run(&source.uri(), &["--off-site", "--l2l-target", &l2l]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  vm-100-disk-0                    newest copy on franca (linstor) 2 h 0 min old, by snapshot back_20261206_060000_5a11ad00 on the target (cannot tell which cluster)  CANNOT TELL",
        ],
    );

    let out = run(&source.uri(), &["--off-site"]).await;
    let text = common::stdout_of_exit(&out, 1);
    common::assert_has_lines(
        &text,
        &[
            "  remote franca: backups not readable: copies not confirmed: the target cluster was not read",
        ],
    );
}
