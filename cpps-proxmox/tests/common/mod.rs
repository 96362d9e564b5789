//! Shared test setup: the PVE API schema, the fakepve server started by
//! `xtask/env/fakepve.sh` (found through `CPPS_TEST_FAKEPVE`), and the wiremock server with
//! the PVE answers the wiremock tests share (a finished task, the HA manager's status).
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_http::{HttpClient, Request, RetryPolicy, SecretString, TlsMode};
use cpps_proxmox::Client;
use cpps_proxmox::family::{Upid, WaitOptions};
use serde::Deserialize;
use serde_json::{Value, json};
use wiremock::matchers::{body_string_contains, method, path};
use wiremock::{Mock, ResponseTemplate};

/// The folder holding the upstream API schema (a copy of `shared/specs/`, see `SOURCE.md` there).
pub fn specs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/schema")
}

/// The PVE API schema, loaded once.
pub fn pve_schema() -> &'static cpps_proxmox::family::apidoc::ApiDoc {
    static DOC: OnceLock<cpps_proxmox::family::apidoc::ApiDoc> = OnceLock::new();
    DOC.get_or_init(|| {
        cpps_proxmox::family::apidoc::ApiDoc::load(&specs_dir().join("pve-apidoc.json"))
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

/// What `xtask/env/fakepve.sh` wrote to `fakepve.json`.
#[derive(Debug, Clone, Deserialize)]
pub struct FakePve {
    pub url: String,
    pub ca_file: PathBuf,
    pub other_ca_file: PathBuf,
    pub fingerprint: String,
    pub token_id: String,
    pub token_secret: String,
    pub user: String,
    pub password: String,
    pub control_url: String,
}

/// The fakepve variable.
pub const FAKEPVE_VAR: &str = "CPPS_TEST_FAKEPVE";

fn load_fakepve() -> Option<FakePve> {
    let path = std::env::var(FAKEPVE_VAR).ok().filter(|p| !p.is_empty())?;
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{FAKEPVE_VAR}={path} cannot be read: {e}"));
    let state: FakePve =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path} is not fakepve.json: {e}"));
    for url in [&state.url, &state.control_url] {
        assert!(
            url.starts_with("https://127.0.0.1:") || url.starts_with("http://127.0.0.1:"),
            "tests only target 127.0.0.1, not {url}"
        );
    }
    Some(state)
}

/// Serializes the fakepve tests: they share one server and some inject faults.
static SERVER_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A fakepve session: holds the server for one test, with every fault cleared.
pub struct Session {
    pub pve: FakePve,
    control: HttpClient,
    _guard: tokio::sync::MutexGuard<'static, ()>,
}

/// The fakepve server for one test, or `None` (after printing why) when `CPPS_TEST_FAKEPVE`
/// is not set.
pub async fn fakepve(test: &str) -> Option<Session> {
    let Some(pve) = load_fakepve() else {
        println!("skipped {test}: {FAKEPVE_VAR} not set (run `cargo xtask test`)");
        return None;
    };
    let guard = SERVER_LOCK.lock().await;
    let control = HttpClient::builder(pve.control_url.parse().expect("control url"))
        .retry(RetryPolicy::none())
        .build()
        .expect("control client");
    let session = Session {
        pve,
        control,
        _guard: guard,
    };
    session.control("reset", serde_json::json!({})).await;
    Some(session)
}

/// The name of the running test: libtest runs each test on a thread it names after the test.
pub fn this_test() -> String {
    std::thread::current()
        .name()
        .unwrap_or("an unnamed test")
        .to_owned()
}

/// The fakepve session of the test it stands in ([`fakepve`], named by [`this_test`]), or a
/// return from that test, after saying why, when `CPPS_TEST_FAKEPVE` is not set.
#[allow(unused_macros)]
macro_rules! fakepve_or_return {
    () => {
        match $crate::common::fakepve(&$crate::common::this_test()).await {
            Some(session) => session,
            None => return,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use fakepve_or_return;

impl Session {
    /// Calls the control endpoint (`POST /NAME` with a JSON body), panicking on failure.
    pub async fn control(&self, name: &str, body: Value) -> Value {
        let response = self
            .control
            .execute(Request::post(name).json(&body).expect("json"))
            .await
            .unwrap_or_else(|e| panic!("control {name}: {e}"));
        assert!(
            response.status().is_success(),
            "control {name}: {}",
            response.text()
        );
        response.json().expect("control answers JSON")
    }

    /// The requests fakepve recorded from index `since`: `(method, path)`.
    pub async fn requests_since(&self, since: u64) -> (u64, Vec<(String, String)>) {
        #[derive(Deserialize)]
        struct Seen {
            total: u64,
            requests: Vec<Entry>,
        }
        #[derive(Deserialize)]
        struct Entry {
            method: String,
            path: String,
        }
        let seen: Seen = self
            .control
            .send_json(Request::get("requests").query("since", since))
            .await
            .expect("requests");
        (
            seen.total,
            seen.requests
                .into_iter()
                .map(|e| (e.method, e.path))
                .collect(),
        )
    }

    /// The number of requests fakepve has recorded so far.
    pub async fn request_count(&self) -> u64 {
        self.requests_since(u64::MAX >> 1).await.0
    }

    /// Injects `pve.fail(method, suffix, status, message, times)`.
    pub async fn fail(
        &self,
        method: &str,
        suffix: &str,
        status: u16,
        message: &str,
        times: Option<u32>,
    ) {
        self.control(
            "fail",
            serde_json::json!({"method": method, "suffix": suffix, "status": status, "message": message, "times": times}),
        )
        .await;
    }

    fn builder(&self) -> cpps_proxmox::ClientBuilder {
        Client::builder(&self.pve.url)
            .tls(TlsMode::ca_file(&self.pve.ca_file))
            .request_timeout(Duration::from_secs(10))
            .deadline(Duration::from_secs(20))
            .retry(RetryPolicy {
                max_attempts: 3,
                initial_backoff: Duration::from_millis(10),
                max_backoff: Duration::from_millis(50),
            })
    }

    /// A client with the API token, verifying TLS with the CA file.
    pub fn token_builder(&self) -> cpps_proxmox::ClientBuilder {
        self.builder().api_token(
            self.pve.token_id.parse().expect("token id"),
            SecretString::from(self.pve.token_secret.clone()),
        )
    }

    /// A client with the API token.
    pub fn token_client(&self) -> Client {
        self.token_builder().build().expect("token client")
    }

    /// A client logging in with root@pam's password.
    pub fn password_builder(&self) -> cpps_proxmox::ClientBuilder {
        self.builder().password(
            self.pve.user.parse().expect("user"),
            SecretString::from(self.pve.password.clone()),
        )
    }

    /// A client logging in with root@pam's password.
    pub fn password_client(&self) -> Client {
        self.password_builder().build().expect("password client")
    }
}

/// A wiremock server for the PVE API: below `/api2/json`, answering every request it was not
/// told about with "unexpected METHOD PATH" (see [`assert_no_unexpected_requests`]).
pub async fn pve_mock_api() -> MockApi {
    MockApi::start("/api2/json").await
}

/// A mock of `METHOD /api2/json/API_PATH`, for a test to add matchers and an answer to.
pub fn pve_call(http_method: &str, api_path: &str) -> wiremock::MockBuilder {
    Mock::given(method(http_method)).and(path(format!("/api2/json/{api_path}")))
}

/// A mock of `METHOD /api2/json/API_PATH` whose form body holds each of `parts` (`key=value`,
/// form-encoded: `sid=vm%3A100`).
pub fn pve_form_call(http_method: &str, api_path: &str, parts: &[&str]) -> wiremock::MockBuilder {
    parts
        .iter()
        .fold(pve_call(http_method, api_path), |call, part| {
            call.and(body_string_contains(*part))
        })
}

/// Mounts `call` answering `answer`; it must be called exactly once (checked by
/// `MockApi::verify`).
pub async fn mount_once(api: &MockApi, call: wiremock::MockBuilder, answer: ResponseTemplate) {
    call.respond_with(answer)
        .expect(1)
        .mount(api.server())
        .await;
}

/// Mounts a mock of `METHOD /api2/json/API_PATH` that answers `{"data": data}` and must be
/// called exactly once (checked by `MockApi::verify`).
pub async fn expect_once(api: &MockApi, http_method: &str, api_path: &str, data: Value) {
    mount_once(api, pve_call(http_method, api_path), data_answer(data)).await;
}

/// The answer of `GET /version` from a PVE of `version` (`9.0.10`): pve-manager
/// `PVE/API2/Version.pm` writes the version, the release (its major and minor) and the
/// repository's commit.
pub fn version_answer(version: &str) -> ResponseTemplate {
    let release = version
        .rsplit_once('.')
        .map_or(version, |(release, _)| release);
    data_answer(json!({"version": version, "release": release, "repoid": "0c5b3a7f"}))
}

/// Mounts `GET /version` answering as a PVE of `version`; it must be asked exactly once.
pub async fn expect_version_once(api: &MockApi, version: &str) {
    mount_once(api, pve_call("GET", "version"), version_answer(version)).await;
}

/// A 200 answer `{"data": data}`, the envelope of every PVE answer (pve-http-server
/// `src/PVE/APIServer/Formatter/Standard.pm`).
pub fn data_answer(data: Value) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({ "data": data }))
}

/// An error answer as PVE writes it from libpve-http-server-perl 5.2.0 on: the status, and
/// `{"data": null, "message": message}` (pve-http-server `src/PVE/APIServer/Formatter/Standard.pm`).
pub fn error_answer(status: u16, message: &str) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({ "data": null, "message": message }))
}

/// Task-wait options for tests against fakepve (a real server's pace): polls every 20 to
/// 200 ms, gives up after 30 s.
pub fn fakepve_wait() -> WaitOptions {
    WaitOptions::default()
        .intervals(Duration::from_millis(20), Duration::from_millis(200))
        .timeout(Some(Duration::from_secs(30)))
}

/// A VM id known to be valid.
pub fn vmid(id: u32) -> cpps_proxmox::types::VmId {
    cpps_proxmox::types::VmId::new(id).unwrap()
}

/// Task-wait options for tests against a mock: polls every 5 to 20 ms, gives up after 5 s.
pub fn quick_wait() -> WaitOptions {
    WaitOptions::default()
        .intervals(Duration::from_millis(5), Duration::from_millis(20))
        .timeout(Some(Duration::from_secs(5)))
}

/// A client of `url` with the API token `root@pam!ci` and the default retry policy.
pub fn token_client(url: &str) -> Client {
    Client::builder(url)
        .api_token_str("root@pam!ci=5ecr3t")
        .expect("a valid token")
        .build()
        .expect("the client builds")
}

/// A UPID known to be valid.
pub fn upid(text: &str) -> Upid {
    text.parse().expect("a valid UPID")
}

/// The data of `GET /nodes/{node}/tasks/{upid}/status` as pve-manager `PVE/API2/Tasks.pm`
/// `read_task_status` writes it: the UPID's own parts (`PVE::Tools::upid_decode`, a token's
/// name split off into `tokenid` by `convert_token_task`), `running`, or `stopped` with its
/// `exitstatus`.
pub fn task_status(upid: &Upid, exitstatus: Option<&str>) -> Value {
    let (user, tokenid) = match upid.user().split_once('!') {
        Some((user, token)) => (user, Some(token)),
        None => (upid.user(), None),
    };
    let mut status = json!({
        "upid": upid.as_str(), "node": upid.node(), "pid": upid.pid(), "pstart": upid.pstart(),
        "starttime": upid.starttime(), "type": upid.worker_type(), "id": upid.worker_id(),
        "user": user, "status": if exitstatus.is_some() { "stopped" } else { "running" },
    });
    if let Some(token) = tokenid {
        status["tokenid"] = json!(token);
    }
    if let Some(exitstatus) = exitstatus {
        status["exitstatus"] = json!(exitstatus);
    }
    status
}

/// Serves a task that has stopped with `OK` ([`task_status`]) and its log lines `log`.
pub async fn serve_finished_task(api: &MockApi, upid: &Upid, log: &[&str]) {
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/status", upid.task_path())))
        .respond_with(data_answer(task_status(upid, Some("OK"))))
        .mount(api.server())
        .await;
    let lines: Vec<Value> = log
        .iter()
        .enumerate()
        .map(|(i, t)| json!({"n": i + 1, "t": t}))
        .collect();
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/log", upid.task_path())))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"data": lines, "total": log.len()})),
        )
        .mount(api.server())
        .await;
}

/// `GET /cluster/ha/status/current` as pve-ha-manager `src/PVE/API2/HA/Status.pm` writes a
/// service entry (`sid`, `node`, `crm_state`, verbose `state`, `request_state`), answered
/// `first` for `times` reads, then `then`.
pub async fn serve_ha_status(api: &MockApi, first: Value, times: u64, then: Value) {
    let status = |service: Value| {
        json!({"data": [
            {"id": "quorum", "type": "quorum", "status": "OK", "quorate": 1, "node": "pve1"},
            {"id": "master", "type": "master", "node": "pve1",
             "status": "pve1 (active, Tue Dec  1 10:00:00 2026)", "timestamp": 1795960800},
            service
        ]})
    };
    Mock::given(method("GET"))
        .and(path("/api2/json/cluster/ha/status/current"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status(first)))
        .up_to_n_times(times)
        .with_priority(1)
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path("/api2/json/cluster/ha/status/current"))
        .respond_with(ResponseTemplate::new(200).set_body_json(status(then)))
        .with_priority(2)
        .mount(api.server())
        .await;
}

/// Waits on the finished task `upid` (its log `log`) on a fresh mock server whose HA manager
/// shows `first` for `times` reads of `GET /cluster/ha/status/current`, then `then`.
pub async fn wait_through_ha(
    upid: &Upid,
    log: &[&str],
    first: Value,
    times: u64,
    then: Value,
    options: &WaitOptions,
) -> Result<cpps_proxmox::WaitOutcome, cpps_proxmox::Error> {
    let api = pve_mock_api().await;
    serve_finished_task(&api, upid, log).await;
    serve_ha_status(&api, first, times, then).await;
    mock_client(&api).wait(upid, options).await
}

/// One service entry of `GET /cluster/ha/status/current` for `vm:100`.
pub fn ha_service_entry(node: &str, crm: &str, state: &str, request: &str) -> Value {
    json!({"id": "service:vm:100", "type": "service", "sid": "vm:100", "node": node,
           "crm_state": crm, "state": state, "request_state": request,
           "status": format!("vm:100 ({node}, {state})")})
}

/// A client of a wiremock server (token auth, quick retries), for the wiremock tests.
pub fn mock_client(api: &MockApi) -> Client {
    Client::builder(api.base_url().as_str())
        .api_token_str("root@pam!ci=5ecr3t")
        .expect("a valid token")
        .retry(RetryPolicy {
            max_attempts: 3,
            initial_backoff: Duration::from_millis(5),
            max_backoff: Duration::from_millis(20),
        })
        .build()
        .expect("the client builds")
}

/// A raw HTTP/1.1 answer with this status line, a JSON body and `Connection: close`, for
/// `cpps_http::test_util::RawServer` (which sends the reason phrases wiremock cannot).
pub fn raw_response(status_line: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status_line}\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}
