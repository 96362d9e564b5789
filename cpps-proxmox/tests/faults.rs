//! Retries, malformed bodies and long task logs, against wiremock (what fakepve does not
//! produce on demand). Each test names the document that says PVE behaves so.

mod common;

use std::time::Duration;

use cpps_http::StatusCode;
use cpps_http::test_util::MockApi;
use cpps_proxmox::family::WaitOptions;
use cpps_proxmox::{Client, Error};
use serde_json::json;
use wiremock::ResponseTemplate;
use wiremock::matchers::query_param;

fn client(api: &MockApi) -> Client {
    common::mock_client(api)
}

#[tokio::test]
async fn the_token_header_has_pves_form() {
    // pve-docs, "API Tokens": `Authorization: PVEAPIToken=USER@REALM!TOKENID=UUID`.
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("GET", "version").and(wiremock::matchers::header(
            "authorization",
            "PVEAPIToken=root@pam!ci=5ecr3t",
        )),
        common::version_answer("9.0.10"),
    )
    .await;
    assert_eq!(client(&api).version().await.unwrap().version, "9.0.10");
}

#[tokio::test]
async fn reads_are_retried_after_a_proxy_error_and_writes_are_not() {
    // pveproxy answers 502/503 while it or pvedaemon restarts (a reload during an upgrade);
    // cpps-http's RetryPolicy repeats only reads.
    let api = common::pve_mock_api().await;
    common::pve_call("GET", "nodes")
        .respond_with(ResponseTemplate::new(502))
        .up_to_n_times(2)
        .with_priority(1)
        .mount(api.server())
        .await;
    common::mount_once(
        &api,
        common::pve_call("GET", "nodes"),
        common::data_answer(json!([{"node": "pve1", "status": "online"}])),
    )
    .await;
    assert_eq!(client(&api).nodes().await.unwrap().len(), 1);
    common::mount_once(
        &api,
        common::pve_call("POST", "nodes/pve1/qemu/100/status/start"),
        ResponseTemplate::new(503),
    )
    .await;
    let err = client(&api)
        .node("pve1")
        .qemu(100.try_into().unwrap())
        .start()
        .await
        .unwrap_err();
    assert_eq!(err.status(), Some(StatusCode::SERVICE_UNAVAILABLE));
    api.verify().await;
}

#[tokio::test]
async fn malformed_bodies_are_typed_errors() {
    // A reverse proxy in front of pveproxy can answer with HTML (fakepve's `fail(html=True)`
    // models the same); a truncated or mistyped body must not panic.
    let api = common::pve_mock_api().await;
    common::pve_call("GET", "version")
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>maintenance</html>"))
        .mount(api.server())
        .await;
    common::pve_call("GET", "nodes")
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string(r#"{"data":[{"node":"pve1","status":"online"},{"node":"pve2","#),
        )
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/status")
        .respond_with(common::data_answer(
            json!([{"type": "cluster", "id": "cluster", "name": "c", "quorate": "maybe"}]),
        ))
        .mount(api.server())
        .await;
    common::pve_call("GET", "cluster/resources")
        .respond_with(
            ResponseTemplate::new(500).set_body_string("<html><body>502 Bad Gateway</body></html>"),
        )
        .mount(api.server())
        .await;
    let pve = client(&api);
    let err = pve.version().await.unwrap_err();
    assert!(
        matches!(&err, Error::Http(e) if e.decode_path() == Some(".")),
        "{err:?}"
    );
    let err = pve.nodes().await.unwrap_err();
    assert!(
        matches!(&err, Error::Http(cpps_http::Error::Decode { .. })),
        "{err:?}"
    );
    let err = pve.cluster().status().await.unwrap_err();
    assert!(
        matches!(&err, Error::Http(e) if e.decode_path() == Some("data[0].quorate")),
        "{err:?}"
    );
    let err = pve.cluster().resources(None).await.unwrap_err();
    match &err {
        Error::Api {
            status, message, ..
        } => {
            assert_eq!(*status, StatusCode::INTERNAL_SERVER_ERROR);
            assert!(message.contains("Bad Gateway"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn a_failed_task_with_a_long_log_carries_its_last_lines() {
    // PVE's `GET /nodes/{node}/tasks/{upid}/log` pages with `start`/`limit` and reports
    // `total` (pve-apidoc.json; PVE::API2::Tasks::read_task_log).
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000ABCD:00001234:66000000:qmigrate:100:root@pam!ci:");
    let task = upid.task_path();
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/status")),
        common::data_answer(common::task_status(&upid, Some("migration aborted"))),
    )
    .await;
    let lines: Vec<_> = (1..=100)
        .map(|n| json!({"n": n, "t": format!("line {n}")}))
        .collect();
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/log")).and(query_param("start", "0")),
        ResponseTemplate::new(200).set_body_json(json!({"data": lines[..3], "total": 100})),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/log"))
            .and(query_param("start", "97"))
            .and(query_param("limit", "3")),
        ResponseTemplate::new(200).set_body_json(json!({"data": lines[97..], "total": 100})),
    )
    .await;
    let started = std::time::Instant::now();
    let err = client(&api)
        .wait(
            &upid,
            &WaitOptions::default()
                .log_tail_lines(3)
                .intervals(Duration::from_secs(5), Duration::from_secs(5)),
        )
        .await
        .unwrap_err();
    // The task had stopped at the first poll: no sleep happened.
    assert!(started.elapsed() < Duration::from_secs(2));
    match err {
        Error::TaskFailed {
            exit_status,
            log_tail,
            ..
        } => {
            assert_eq!(exit_status, "migration aborted");
            assert_eq!(log_tail, ["line 98", "line 99", "line 100"]);
        }
        other => panic!("unexpected {other:?}"),
    }
    api.verify().await;
}

/// `Client::task_log` reads a log from its first line in pages: PVE's `start` is the number of
/// lines skipped and `total` the log's length (pve-manager `PVE/API2/Tasks.pm`
/// `read_task_log`; pve-common `src/PVE/Tools.pm` `dump_logfile_by_filehandle`: `next if
/// $count++ < $start`). A log longer than the cap is said not to be whole.
#[tokio::test]
async fn a_task_log_is_read_in_pages_up_to_a_cap() {
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000ABCD:00001234:66000000:vzdump::root@pam:");
    let task = upid.task_path();
    let total = cpps_proxmox::TASK_LOG_PAGE + 2;
    let lines: Vec<_> = (1..=total)
        .map(|n| json!({"n": n, "t": format!("line {n}")}))
        .collect();
    let page = cpps_proxmox::TASK_LOG_PAGE.to_string();
    let first = usize::try_from(cpps_proxmox::TASK_LOG_PAGE).unwrap();
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/log"))
            .and(query_param("start", "0"))
            .and(query_param("limit", page.as_str())),
        ResponseTemplate::new(200).set_body_json(json!({"data": lines[..first], "total": total})),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/log"))
            .and(query_param("start", page.as_str()))
            .and(query_param("limit", page.as_str())),
        ResponseTemplate::new(200).set_body_json(json!({"data": lines[first..], "total": total})),
    )
    .await;
    let log = client(&api).task_log(&upid, 100_000).await.unwrap();
    assert!(log.whole);
    assert_eq!(log.lines.len() as u64, total);
    assert_eq!(log.lines.last(), Some(&format!("line {total}")));
    api.verify().await;

    // A cap below the log's length: the lines read, not whole.
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_call("GET", &format!("{task}/log"))
            .and(query_param("start", "0"))
            .and(query_param("limit", "3")),
        ResponseTemplate::new(200).set_body_json(json!({"data": lines[..3], "total": total})),
    )
    .await;
    let log = client(&api).task_log(&upid, 3).await.unwrap();
    assert!(!log.whole);
    assert_eq!(log.lines, ["line 1", "line 2", "line 3"]);
    api.verify().await;
}

#[tokio::test]
async fn waiting_polls_until_stopped_then_times_out_when_asked() {
    // PVE's task status says `running` until the worker ends (pve-apidoc.json, `status` enum).
    let api = common::pve_mock_api().await;
    let upid = common::upid("UPID:pve1:0000ABCD:00001234:66000000:qmstart:100:root@pam:");
    let status = format!("{}/status", upid.task_path());
    let running = common::data_answer(common::task_status(&upid, None));
    common::pve_call("GET", &status)
        .respond_with(running.clone())
        .up_to_n_times(3)
        .with_priority(1)
        .mount(api.server())
        .await;
    common::mount_once(
        &api,
        common::pve_call("GET", &status),
        common::data_answer(common::task_status(&upid, Some("WARNINGS: 2"))),
    )
    .await;
    let pve = client(&api);
    let outcome = pve
        .wait(
            &upid,
            &WaitOptions::default().intervals(Duration::from_millis(5), Duration::from_millis(20)),
        )
        .await
        .unwrap();
    assert_eq!(outcome.polls, 4);
    assert_eq!(
        outcome.exit_status,
        cpps_proxmox::family::ExitStatus::Warnings(2)
    );
    api.verify().await;

    let api = common::pve_mock_api().await;
    common::pve_call("GET", &status)
        .respond_with(running)
        .mount(api.server())
        .await;
    let err = client(&api)
        .wait(
            &upid,
            &WaitOptions::default()
                .timeout(Some(Duration::from_millis(100)))
                .intervals(Duration::from_millis(10), Duration::from_millis(30)),
        )
        .await
        .unwrap_err();
    assert!(matches!(err, Error::TaskTimeout { .. }), "{err:?}");
}
