//! Controller fail-over, redirects and credentials, against wiremock.

mod common;

use std::time::Instant;

use cpps_http::test_util::{MockApi, env_lookup};
use cpps_http::{Delivery, Url};
use cpps_linstor::{Client, ClientBuilder, Credentials, Error, SecretString};
use wiremock::matchers::method;
use wiremock::{Mock, ResponseTemplate};

use common::{
    CONNECT_TIMEOUT, client_for, client_with_retries, closed_port_url, mock, mock_client,
    silent_controller,
};

/// Mounts `POST /v1/resource-definitions/vm-100-disk-0/snapshots` answering that snapshot
/// `snap1` was registered, expected once.
async fn serve_snapshot_creation(server: &MockApi) {
    common::mount_once(
        server,
        common::controller_call("POST", "/v1/resource-definitions/vm-100-disk-0/snapshots"),
        common::rc_answer(
            201,
            17563649,
            "New snapshot 'snap1' of resource 'vm-100-disk-0' registered.",
        ),
    )
    .await;
}

/// Creates the snapshot [`serve_snapshot_creation`] answers through `client`, which must reach
/// `second` (after failing over), and checks LINSTOR's success message.
async fn create_snapshot_on(client: &Client, second: &MockApi) {
    let answer = client
        .create_snapshot(
            &"vm-100-disk-0".parse().unwrap(),
            &"snap1".parse().unwrap(),
            &[],
        )
        .await
        .expect("snapshot created on the second controller");
    assert_eq!(answer.messages().len(), 1);
    assert!(answer.messages()[0].is_success());
    second.verify().await;
}

// golinstor's `TestBaseURLFailover` (client/client_test.go) is the behaviour mirrored here: the
// first controller is down, the next one answers and becomes the active one.
#[tokio::test]
async fn fails_over_to_the_next_controller_and_stays_there() {
    let second = mock().await;
    common::serve_version(&second, "1.31.0", 2).await;
    let dead = closed_port_url();
    let client = client_for(&[dead.clone(), second.base_url()]);
    assert_eq!(client.active_controller(), &dead);

    let version = client
        .controller_version()
        .await
        .expect("second controller answers");
    assert_eq!(version.version.as_deref(), Some("1.31.0"));
    assert_eq!(client.active_controller(), &second.base_url());

    // The next call goes straight to the controller that answered.
    client.controller_version().await.expect("still answering");
    assert_eq!(client.active_controller(), &second.base_url());
    second.verify().await;
    second.assert_no_unexpected_requests();
}

#[tokio::test]
async fn no_reachable_controller_lists_every_one_tried() {
    let first = closed_port_url();
    let second = closed_port_url();
    let client = client_for(&[first.clone(), second.clone()]);
    let err = client.nodes().await.expect_err("nothing listens");
    match &err {
        Error::NoControllerReachable { tried, last } => {
            assert_eq!(tried, &vec![first.to_string(), second.to_string()]);
            assert!(last.is_connect(), "{last:?}");
        }
        other => panic!("expected NoControllerReachable, got {other:?}"),
    }
    assert_eq!(err.delivery(), Delivery::NotSent);
}

// A write is also safe to send to the next controller when the first refused the connection:
// the request was never sent (`Delivery::NotSent`).
#[tokio::test]
async fn writes_fail_over_only_on_connection_errors() {
    let second = mock().await;
    serve_snapshot_creation(&second).await;
    let client = client_for(&[closed_port_url(), second.base_url()]);
    create_snapshot_on(&client, &second).await;
}

// LINSTOR's `Rest/AutoHTTPs` answers plain HTTP with a redirect to https://…:3371 whose Location
// drops the query string (LINBIT/linstor-server#521; the 302 seen in LINBIT/linstor-gui#8).
// Following it would silently return unfiltered lists or turn a POST into a GET, so it is an
// error that says to use https.
#[tokio::test]
async fn redirects_are_not_followed_and_say_to_use_https() {
    let server = mock().await;
    common::mount_once(
        &server,
        common::controller_call("GET", "/v1/view/resources"),
        ResponseTemplate::new(302)
            .insert_header("Location", "https://127.0.0.1:3371/v1/view/resources"),
    )
    .await;
    let client = mock_client(&server);
    let err = client
        .resources_view_filtered(&[], &["vm-100-disk-0".parse().unwrap()])
        .await
        .expect_err("a redirect is an error");
    match &err {
        Error::Redirected {
            status, location, ..
        } => {
            assert_eq!(status.as_u16(), 302);
            assert_eq!(location, "https://127.0.0.1:3371/v1/view/resources");
        }
        other => panic!("expected Redirected, got {other:?}"),
    }
    assert!(err.to_string().contains("use the https:// URL"), "{err}");
    server.verify().await;
    server.assert_no_unexpected_requests();
}

// The spec's `securitySchemes.bearerAuth` (`Authorization: Bearer …`); golinstor's
// `TestBearerTokenOpt` checks the same header.
#[tokio::test]
async fn bearer_token_and_basic_credentials_are_sent() {
    let server = mock().await;
    common::serve_version_to(&server, "Bearer AbCdEfg1234567890", "bearer", 1).await;
    common::serve_version_to(&server, "Basic YWRtaW46aHVudGVyMg==", "basic", 1).await;
    let base: Url = server.base_url();
    let build = |credentials: Credentials| {
        common::single_attempt_builder(base.as_str())
            .credentials(credentials)
            .build()
            .unwrap()
    };
    let bearer = build(Credentials::bearer(SecretString::from("AbCdEfg1234567890")));
    let basic = build(Credentials::basic("admin", SecretString::from("hunter2")));
    assert_eq!(
        common::answered_version(&bearer).await.as_deref(),
        Some("bearer")
    );
    assert_eq!(
        common::answered_version(&basic).await.as_deref(),
        Some("basic")
    );
    assert!(!format!("{bearer:?}{basic:?}").contains("hunter2"));
    server.verify().await;
}

// A 401 answer of an unauthenticated call: LINSTOR answers with an ApiCallRc array
// (`API_CALL_AUTH_REQ` = 0x0FFFFFFFFFFFFFFE | MASK_ERROR in ApiConsts).
#[tokio::test]
async fn unauthorized_answers_decode_their_messages() {
    let server = mock().await;
    common::mount(
        &server,
        common::controller_call("GET", "/v1/nodes"),
        common::rc_answer(401, -3458764513820540930, "Authentication required"),
    )
    .await;
    let err = mock_client(&server).nodes().await.expect_err("401");
    assert_eq!(err.status().map(|s| s.as_u16()), Some(401));
    let messages = err.api_messages().expect("ApiCallRc list");
    assert_eq!(messages.messages()[0].message, "Authentication required");
    assert!(messages.messages()[0].is_error());
}

// Issue 16, defect 1. A powered-off controller host (or a site cut off) drops the SYNs: the
// connect times out, which reqwest reports as both `is_connect` and `is_timeout` and cpps-http
// as `Timeout { delivery: NotSent }`. golinstor fails over on any `net.Error`, timeouts included
// (client/client.go, `retry` and `findRespondingController`). The silent controller gets one
// attempt (one connect timeout, not one per retry), then the next controller answers.
#[tokio::test]
async fn a_silent_controller_costs_one_connect_timeout_then_the_next_answers() {
    let silent = silent_controller().await;
    let second = mock().await;
    common::serve_version(&second, "1.31.0", 1).await;
    let second_url = second.base_url();
    let client = client_with_retries(&[&silent.url, &second_url]);
    let started = Instant::now();
    let version = client
        .controller_version()
        .await
        .expect("the second controller answers");
    let elapsed = started.elapsed();
    assert_eq!(version.version.as_deref(), Some("1.31.0"));
    assert_eq!(client.active_controller(), &second_url);
    // One attempt on the silent controller: at least one connect timeout, and less than the two
    // a retry on it would have cost.
    assert!(elapsed >= CONNECT_TIMEOUT, "{elapsed:?}");
    assert!(
        elapsed < 2 * CONNECT_TIMEOUT,
        "{elapsed:?}: the silent controller was retried"
    );
    second.verify().await;
    second.assert_no_unexpected_requests();
}

// Writes fail over on a connect timeout too: a connect that timed out sent nothing.
#[tokio::test]
async fn a_write_fails_over_past_a_silent_controller() {
    let silent = silent_controller().await;
    let second = mock().await;
    serve_snapshot_creation(&second).await;
    let second_url = second.base_url();
    let client = client_with_retries(&[&silent.url, &second_url]);
    create_snapshot_on(&client, &second).await;
}

// Every controller silent: each is tried once (the last with its retry policy), the error lists
// them in order and says nothing was sent.
#[tokio::test]
async fn silent_controllers_are_each_tried_and_listed() {
    let first = silent_controller().await;
    let second = silent_controller().await;
    let client = common::single_attempt_builder(&format!("{},{}", first.url, second.url))
        .connect_timeout(CONNECT_TIMEOUT)
        .build()
        .unwrap();
    let started = Instant::now();
    let err = client.nodes().await.expect_err("nobody accepts");
    let elapsed = started.elapsed();
    match &err {
        Error::NoControllerReachable { tried, last } => {
            assert_eq!(tried, &vec![first.url.to_string(), second.url.to_string()]);
            assert!(
                matches!(
                    last,
                    cpps_http::Error::Timeout {
                        delivery: Delivery::NotSent,
                        ..
                    }
                ),
                "{last:?}"
            );
        }
        other => panic!("expected NoControllerReachable, got {other:?}"),
    }
    assert_eq!(err.delivery(), Delivery::NotSent);
    assert!(
        elapsed >= 2 * CONNECT_TIMEOUT && elapsed < 3 * CONNECT_TIMEOUT,
        "{elapsed:?}"
    );
}

fn controllers_from(pairs: &[(&str, &str)]) -> Result<Vec<String>, Error> {
    let client = ClientBuilder::from_env(&env_lookup(pairs))?.build()?;
    Ok(client.controllers().iter().map(|u| u.to_string()).collect())
}

fn ca_pem() -> String {
    let key = rcgen::KeyPair::generate().unwrap();
    let mut params = rcgen::CertificateParams::new(vec!["linstor.test".to_owned()]).unwrap();
    params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    params.self_signed(&key).unwrap().pem()
}

// golinstor client/client.go (`NewClient`, `buildHttpClient`, `defaultScheme`) and its
// `TestNewClient_ViaEnv` (client/client_test.go): `LS_CONTROLLERS` defaults to localhost,
// `LS_ROOT_CA` holds the CA as PEM text (`LS_ROOT_CA_FILE` a path), and any TLS variable makes
// entries without a scheme use https on 3371.
#[test]
fn from_env_reads_the_variables_golinstor_reads() {
    assert_eq!(controllers_from(&[]).unwrap(), ["http://localhost:3370/"]);
    assert_eq!(
        controllers_from(&[("LS_CONTROLLERS", "just.domain")]).unwrap(),
        ["http://just.domain:3370/"]
    );
    let pem = ca_pem();
    assert_eq!(
        controllers_from(&[("LS_CONTROLLERS", "just.domain"), ("LS_ROOT_CA", &pem)]).unwrap(),
        ["https://just.domain:3371/"]
    );
    assert_eq!(
        controllers_from(&[("LS_CONTROLLERS", "just.domain:4000"), ("LS_ROOT_CA", &pem)]).unwrap(),
        ["https://just.domain:4000/"]
    );
    let dir = std::env::temp_dir().join(format!("cpps-linstor-env-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_file = dir.join("ca.pem");
    std::fs::write(&ca_file, &pem).unwrap();
    assert_eq!(
        controllers_from(&[
            ("LS_CONTROLLERS", "a,linstor://b"),
            ("LS_ROOT_CA_FILE", ca_file.to_str().unwrap())
        ])
        .unwrap(),
        ["https://a:3371/", "http://b:3370/"]
    );
    // The text and the file form of the CA at once: one error naming both variables.
    let err = controllers_from(&[
        ("LS_ROOT_CA", &pem),
        ("LS_ROOT_CA_FILE", ca_file.to_str().unwrap()),
    ])
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("LS_ROOT_CA") && err.contains("LS_ROOT_CA_FILE"),
        "{err}"
    );
    // golinstor's "parse-error-inconsistent-env" cases: a certificate without a key, or a key
    // without a certificate.
    for lone in ["LS_USER_CERTIFICATE", "LS_USER_KEY", "LS_USER_KEY_FILE"] {
        let err = controllers_from(&[
            ("LS_CONTROLLERS", "https://just.domain:4000"),
            (lone, "stuff"),
        ])
        .unwrap_err()
        .to_string();
        assert!(err.contains("set both or none"), "{lone}: {err}");
    }
    let err = controllers_from(&[("LS_CONTROLLERS", "pve-ippri-11\\")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("pve-ippri-11\\"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

// `LS_USERNAME`/`LS_PASSWORD` are Basic credentials; a token from `LS_BEARER_TOKEN_FILE` (raw
// text or JSON `{"token": …}`, golinstor's `tokenFromFile`) overrides them, as golinstor's
// `BearerToken` option says ("this will override any authentication happening via Basic
// Authentication").
#[tokio::test]
async fn from_env_credentials_basic_and_bearer_file() {
    let server = mock().await;
    common::serve_version_to(&server, "Basic YWRtaW46aHVudGVyMg==", "basic", 1).await;
    common::serve_version_to(&server, "Bearer AbCdEfg1234567890", "bearer", 2).await;
    let url = server.base_url().to_string();
    let basic = ClientBuilder::from_env(&env_lookup(&[
        ("LS_CONTROLLERS", &url),
        ("LS_USERNAME", "admin"),
        ("LS_PASSWORD", "hunter2"),
    ]))
    .unwrap()
    .build()
    .unwrap();
    assert_eq!(
        common::answered_version(&basic).await.as_deref(),
        Some("basic")
    );
    let dir = std::env::temp_dir().join(format!("cpps-linstor-token-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, content) in [
        ("raw", "AbCdEfg1234567890\n"),
        ("json", r#"{"token": "AbCdEfg1234567890", "expires": 0}"#),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, content).unwrap();
        let bearer = ClientBuilder::from_env(&env_lookup(&[
            ("LS_CONTROLLERS", &url),
            ("LS_USERNAME", "admin"),
            ("LS_PASSWORD", "hunter2"),
            ("LS_BEARER_TOKEN_FILE", file.to_str().unwrap()),
        ]))
        .unwrap()
        .build()
        .unwrap();
        assert_eq!(
            common::answered_version(&bearer).await.as_deref(),
            Some("bearer"),
            "{name}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    server.verify().await;
}

// Issue 20, defect 2: a controller (or a proxy before it) that echoes the credential it received
// must not get it printed. Every text of an answer goes through cpps-http's scrubber of the
// client's own secrets (the password, and the Basic value's base64) before it is kept in an
// error: the `ApiCallRc` messages LINSTOR writes (linstor-server `Json.java`,
// `apiCallRcToJson`: `message`, `cause`, `details`, `correction`) and the excerpt of any other
// body.
#[tokio::test]
async fn echoed_credentials_never_reach_an_error() {
    let server = mock().await;
    common::mount(
        &server,
        common::controller_call("GET", "/v1/nodes"),
        common::json_answer(
            401,
            serde_json::json!([{
                "ret_code": -3458764513820540930_i64,
                "message": "credential 'Basic YWRtaW46aHVudGVyMg==' is not valid here",
                "cause": "password hunter2 was refused",
                "details": "user admin, password hunter2",
                "correction": "check YWRtaW46aHVudGVyMg=="
            }]),
        ),
    )
    .await;
    common::mount(
        &server,
        common::controller_call("GET", "/v1/view/storage-pools"),
        ResponseTemplate::new(403)
            .set_body_string("<html>Authorization: Basic YWRtaW46aHVudGVyMg== denied</html>"),
    )
    .await;
    let client = common::single_attempt_builder(server.base_url().as_str())
        .credentials(Credentials::basic("admin", SecretString::from("hunter2")))
        .build()
        .unwrap();
    for err in [
        client.nodes().await.expect_err("401"),
        client.storage_pools().await.expect_err("403"),
    ] {
        let shown = format!(
            "{err} {err:?} {}",
            err.api_messages()
                .map(ToString::to_string)
                .unwrap_or_default()
        );
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!shown.contains("YWRtaW46aHVudGVyMg=="), "{shown}");
    }
    let err = client.nodes().await.expect_err("401");
    assert!(
        err.api_messages().unwrap().messages()[0]
            .message
            .contains("is not valid here"),
        "the rest of the message is kept"
    );
}

// A reachable controller keeps its retries when others are listed after it: the one-attempt
// rule is for requests that did not reach it. A 503 (the controller starting up) is retried on
// the same controller, and the next one is never asked.
#[tokio::test]
async fn a_reachable_first_controller_still_gets_its_retries() {
    let first = mock().await;
    let second = mock().await;
    common::controller_call("GET", "/v1/controller/version")
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(1)
        .expect(1)
        .mount(first.server())
        .await;
    common::serve_version(&first, "first", 1).await;
    common::mount_times(
        &second,
        Mock::given(method("GET")),
        common::version_answer("second"),
        0,
    )
    .await;
    let (first_url, second_url) = (first.base_url(), second.base_url());
    let client = client_with_retries(&[&first_url, &second_url]);
    let version = client
        .controller_version()
        .await
        .expect("the first answers");
    assert_eq!(version.version.as_deref(), Some("first"));
    assert_eq!(client.active_controller(), &first_url);
    first.verify().await;
    second.verify().await;
}

/// The per-attempt timeout of the clients of the D5 tests: what a controller that accepts but
/// never answers costs per request.
const REQUEST_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

/// A client of `controllers` with the crate's default retry policy and short timeouts.
fn client_of_short_patience(controllers: &[&Url]) -> Client {
    let list: Vec<&str> = controllers.iter().map(|u| u.as_str()).collect();
    Client::builder(list.join(","))
        .connect_timeout(CONNECT_TIMEOUT)
        .request_timeout(REQUEST_TIMEOUT)
        .deadline(std::time::Duration::from_secs(5))
        .build()
        .expect("a client for local test servers builds")
}

// Issue 33, D5. golinstor fails over on any network error, a read timeout included
// (client/client.go `retry`: any `net.Error` makes `findRespondingController` dial every
// controller and resend the request to the first that accepts). Here the first controller
// answers one poll, which leaves a kept-alive connection in the pool, and then goes silent.
// The next read is sent on that pooled connection and times out: a read that got no answer
// moves to the next controller, after one attempt on the silent one.
#[tokio::test]
async fn a_read_fails_over_when_a_pooled_controller_goes_silent() {
    let first = common::goes_silent_after_one_answer("1.30.0").await;
    let second = mock().await;
    common::serve_version(&second, "1.31.0", 1).await;
    let second_url = second.base_url();
    let client = client_of_short_patience(&[&first.url, &second_url]);
    assert_eq!(
        common::answered_version(&client).await.as_deref(),
        Some("1.30.0")
    );
    let started = Instant::now();
    let version = client
        .controller_version()
        .await
        .expect("the second controller answers");
    let elapsed = started.elapsed();
    assert_eq!(version.version.as_deref(), Some("1.31.0"));
    assert_eq!(client.active_controller(), &second_url);
    assert_eq!(
        (first.requests(), first.connections()),
        (2, 1),
        "the second read went once to the silent controller, on the pooled connection"
    );
    assert!(
        elapsed >= REQUEST_TIMEOUT && elapsed < 2 * REQUEST_TIMEOUT,
        "{elapsed:?}: one request timeout on the silent controller"
    );
    second.verify().await;
}

// Issue 33, D5: golinstor's `findRespondingController` dials every controller, the one that
// failed included, and resends to the first in the list that accepts, so a controller that was
// only slow is asked again. Here the next controller is down: the silent one is asked again,
// last, once; the error lists every attempt and says the request may have been sent.
#[tokio::test]
async fn a_read_asks_the_first_controller_again_last() {
    let first = common::goes_silent_after_one_answer("1.30.0").await;
    let dead = closed_port_url();
    let client = client_of_short_patience(&[&first.url, &dead]);
    common::answered_version(&client).await;
    let err = client
        .controller_version()
        .await
        .expect_err("nobody answers");
    match &err {
        Error::NoControllerReachable { tried, .. } => assert_eq!(
            tried,
            &vec![
                first.url.to_string(),
                dead.to_string(),
                first.url.to_string()
            ]
        ),
        other => panic!("expected NoControllerReachable, got {other:?}"),
    }
    assert_eq!(err.delivery(), Delivery::MaybeSent);
    assert_eq!(first.requests(), 3, "answered, timed out, asked again once");
}

// A write that may have reached the silent controller is never sent to another one: LINSTOR
// may be applying it (a refusal or a timeout does not mean nothing happened).
#[tokio::test]
async fn a_write_that_may_have_been_sent_stays_on_its_controller() {
    let first = common::goes_silent_after_one_answer("1.30.0").await;
    let second = mock().await;
    let second_url = second.base_url();
    let client = client_of_short_patience(&[&first.url, &second_url]);
    common::answered_version(&client).await;
    let err = client
        .create_snapshot(
            &"vm-100-disk-0".parse().unwrap(),
            &"snap1".parse().unwrap(),
            &[],
        )
        .await
        .expect_err("the silent controller never answers");
    assert_eq!(err.delivery(), Delivery::MaybeSent, "{err:?}");
    assert_eq!(client.active_controller(), &first.url);
    assert_eq!(first.requests(), 2);
    second.assert_no_unexpected_requests();
}
