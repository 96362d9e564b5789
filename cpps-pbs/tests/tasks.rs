//! Task lists, task status and waiting for a task, against a wiremock server serving fixtures
//! shaped as `pbs-apidoc.json` says. No fake PBS server exists; see `common`.

mod common;

use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_pbs::TaskQuery;
use cpps_pbs::types::{ExitStatus, TaskState, Upid};
use cpps_proxmox_family::WaitOptions;
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

fn failed_upid() -> Upid {
    common::load("task_status_failed.json")["data"]["upid"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

fn status_path(upid: &Upid) -> String {
    format!("/api2/json/{}/status", upid.task_path())
}

#[tokio::test]
async fn lists_tasks_with_filters() {
    let api = common::mock_api().await;
    common::serve_authorized(
        &api,
        "/nodes/localhost/tasks",
        &[
            ("since", "1795800000"),
            ("limit", "100"),
            ("errors", "true"),
            ("store", "store1"),
            ("typefilter", "verif"),
        ],
        "tasks.json",
    )
    .await;
    let query = TaskQuery {
        since: Some(1_795_800_000),
        limit: Some(100),
        errors: Some(true),
        store: Some("store1".to_owned()),
        typefilter: Some("verif".to_owned()),
        ..TaskQuery::default()
    };
    let tasks = common::token_client(&api)
        .tasks("localhost", &query)
        .await
        .unwrap();
    assert_eq!(tasks.len(), 3);
    assert_eq!(tasks[0].worker_type, "verificationjob");
    assert!(!tasks[0].status.as_ref().unwrap().is_success());
    assert_eq!(tasks[1].status, Some(ExitStatus::Ok));
    // A running task has neither `status` nor `endtime`.
    assert_eq!((tasks[2].status.as_ref(), tasks[2].endtime), (None, None));
    assert_eq!(tasks[2].upid.user(), "backup@pbs!pve-a");
    assert_eq!(tasks[2].upid.task_id(), Some(0x28));
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn reads_the_status_of_a_running_task() {
    let api = common::mock_api().await;
    let body = common::load("task_status_running.json");
    let upid: Upid = body["data"]["upid"].as_str().unwrap().parse().unwrap();
    Mock::given(method("GET"))
        .and(path(status_path(&upid)))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(api.server())
        .await;
    let status = common::token_client(&api).task_status(&upid).await.unwrap();
    assert_eq!(status.status, TaskState::Running);
    assert_eq!(status.exit_status(), None);
    assert_eq!(status.tokenid.as_deref(), Some("pve-a"));
    assert_eq!(status.upid, upid);
    api.verify().await;
}

#[tokio::test]
async fn waiting_for_a_failed_task_returns_its_log_tail() {
    let api = common::mock_api().await;
    let upid = failed_upid();
    let mut running = common::load("task_status_failed.json");
    running["data"]["status"] = "running".into();
    running["data"]
        .as_object_mut()
        .unwrap()
        .remove("exitstatus");
    running["data"].as_object_mut().unwrap().remove("endtime");
    Mock::given(method("GET"))
        .and(path(status_path(&upid)))
        .respond_with(ResponseTemplate::new(200).set_body_json(running))
        .up_to_n_times(1)
        .with_priority(1)
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path(status_path(&upid)))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(common::load("task_status_failed.json")),
        )
        .with_priority(2)
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/log", upid.task_path())))
        .and(query_param("start", "0"))
        .respond_with(ResponseTemplate::new(200).set_body_json(common::load("task_log.json")))
        .mount(api.server())
        .await;
    let err = failed_wait(&api, &upid).await;
    let cpps_pbs::Error::TaskFailed {
        exit_status,
        log_tail,
        ..
    } = &err
    else {
        panic!("expected a failed task, got {err:?}");
    };
    assert_eq!(
        exit_status,
        "verification failed - please check the log for details"
    );
    assert_eq!(log_tail.len(), 5);
    assert!(log_tail[4].starts_with("TASK ERROR"), "{log_tail:?}");
    api.assert_no_unexpected_requests();
}

/// A task log served the way PBS serves it: `start` counts from 1 and lines numbered below it
/// are skipped (proxmox-backup `src/api2/node/tasks.rs`, `read_task_log`: `count += 1; if count
/// < start { continue }`), `limit` lines are returned, `total` is the number of lines.
struct PbsTaskLog {
    lines: Vec<String>,
}

impl wiremock::Respond for PbsTaskLog {
    fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
        let param = |name: &str| {
            request
                .url
                .query_pairs()
                .find(|(k, _)| k == name)
                .and_then(|(_, v)| v.parse::<usize>().ok())
        };
        let start = param("start").unwrap_or(0);
        let limit = param("limit").unwrap_or(50);
        let data: Vec<serde_json::Value> = self
            .lines
            .iter()
            .enumerate()
            .map(|(i, t)| (i + 1, t))
            .filter(|(n, _)| *n >= start)
            .take(limit)
            .map(|(n, t)| serde_json::json!({"n": n, "t": t}))
            .collect();
        ResponseTemplate::new(200)
            .set_body_json(serde_json::json!({"data": data, "total": self.lines.len()}))
    }
}

/// Issue 14, defect 6: PBS counts `start` from 1 (PVE from 0), so asking PBS for the tail
/// with PVE's `start = total - lines` loses the last line, the `TASK ERROR` line.
#[tokio::test]
async fn the_failure_log_tail_of_a_long_pbs_log_keeps_its_last_line() {
    let api = common::mock_api().await;
    let upid = failed_upid();
    Mock::given(method("GET"))
        .and(path(status_path(&upid)))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(common::load("task_status_failed.json")),
        )
        .mount(api.server())
        .await;
    let mut lines: Vec<String> = (1..30)
        .map(|i| format!("verify store1:vm/100/2026-11-28T{i:02}:00:00Z - checking chunks"))
        .collect();
    lines.push("TASK ERROR: verification failed - please check the log for details".to_owned());
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/log", upid.task_path())))
        .respond_with(PbsTaskLog { lines })
        .mount(api.server())
        .await;
    let err = failed_wait(&api, &upid).await;
    let cpps_pbs::Error::TaskFailed { log_tail, .. } = &err else {
        panic!("expected a failed task, got {err:?}");
    };
    assert_eq!(log_tail.len(), 10, "{log_tail:?}");
    assert_eq!(
        log_tail.last().map(String::as_str),
        Some("TASK ERROR: verification failed - please check the log for details")
    );
    assert!(log_tail[0].contains("T21:00"), "{log_tail:?}");
}

/// PBS answers the status of a task it has no record of with HTTP 200, `stopped` and
/// `exitstatus: "unknown"`, not an error (proxmox-backup `src/api2/node/tasks.rs`
/// `get_task_status`, v3.2.7 and v4.2.0: `upid_read_status(&upid).unwrap_or(TaskState::Unknown
/// ..)`), and its log with a 400 (`read_task_log`: `File::open(path)?`). The status is not a
/// success, and the wait ends at once with an error that says the outcome is unknown.
#[tokio::test]
async fn waiting_for_a_task_pbs_does_not_know_ends_with_an_unknown_outcome() {
    let api = common::mock_api().await;
    let upid = failed_upid();
    let body = json!({"data": {
        "upid": upid.to_string(), "node": "pbs-a", "pid": 1911, "pstart": 41394,
        "starttime": 1_795_878_000, "type": "verificationjob", "id": "store1:v-store1",
        "user": "root@pam", "status": "stopped", "exitstatus": "unknown"
    }});
    Mock::given(method("GET"))
        .and(path(status_path(&upid)))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(2)
        .mount(api.server())
        .await;
    let log_path = format!("/{}/log", upid.task_path());
    common::serve_error(
        &api,
        &log_path,
        400,
        "No such file or directory (os error 2)",
        1,
    )
    .await;
    let pbs = common::token_client(&api);
    let status = pbs.task_status(&upid).await.unwrap();
    assert_eq!(status.exit_status(), Some(ExitStatus::Unknown));
    assert!(!status.exit_status().unwrap().is_success());
    let err = failed_wait(&api, &upid).await;
    let cpps_pbs::Error::TaskFailed {
        exit_status,
        log_tail,
        ..
    } = &err
    else {
        panic!("expected a task with an unknown outcome, got {err:?}");
    };
    assert_eq!((exit_status.as_str(), log_tail.len()), ("unknown", 0));
    assert!(
        err.to_string()
            .ends_with("does not know how it ended (exit status `unknown`)"),
        "{err}"
    );
    api.verify().await;
}

/// Waits for `upid` with short intervals and a 10-line log tail, expecting the task to fail.
async fn failed_wait(api: &MockApi, upid: &Upid) -> cpps_pbs::Error {
    let options = WaitOptions::default()
        .intervals(Duration::from_millis(5), Duration::from_millis(10))
        .log_tail_lines(10);
    common::token_client(api)
        .wait_task(upid, &options)
        .await
        .unwrap_err()
}
