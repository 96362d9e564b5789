//! Retries and deadlines (the response-size cap is in `answers.rs`).
//!
//! The behaviour asserted here is the runtime's own contract (see the crate docs); servers are
//! wiremock or raw TCP listeners on 127.0.0.1.

mod common;

use std::sync::atomic::Ordering;
use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_http::{Delivery, Error, HttpClient, Request, RetryPolicy};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn a_get_is_retried_through_503s_until_200() {
    let api = MockApi::start("/api").await;
    Mock::given(method("GET"))
        .and(path("/api/version"))
        .respond_with(ResponseTemplate::new(503))
        .up_to_n_times(2)
        .expect(2)
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path("/api/version"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"v":1}"#))
        .expect(1)
        .mount(api.server())
        .await;
    let value: serde_json::Value = api
        .client()
        .send_json(Request::get("version"))
        .await
        .unwrap();
    assert_eq!(value["v"], 1);
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn retries_stop_after_max_attempts_with_the_last_status() {
    let api = MockApi::start("/api").await;
    Mock::given(method("GET"))
        .and(path("/api/version"))
        .respond_with(ResponseTemplate::new(502))
        .expect(4)
        .mount(api.server())
        .await;
    let err = api
        .client()
        .send_json::<serde_json::Value>(Request::get("version"))
        .await
        .unwrap_err();
    assert_eq!(err.status().map(|s| s.as_u16()), Some(502));
    assert_eq!(err.delivery(), Delivery::Answered);
    api.verify().await;
}

#[tokio::test]
async fn a_post_answered_503_is_not_retried() {
    let api = MockApi::start("/api").await;
    Mock::given(method("POST"))
        .and(path("/api/nodes/pve1/qemu/100/status/start"))
        .respond_with(ResponseTemplate::new(503))
        .expect(1)
        .mount(api.server())
        .await;
    let answer = api
        .client()
        .execute(Request::post("nodes/pve1/qemu/100/status/start"))
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 503);
    api.verify().await;
}

#[tokio::test]
async fn a_post_that_got_a_reset_is_not_retried() {
    let (port, connections) = common::start_resetting_server().await;
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .retry(RetryPolicy {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(1),
            max_backoff: Duration::from_millis(5),
        })
        .build()
        .unwrap();
    let err = client
        .execute(
            Request::post("snapshot")
                .json(&serde_json::json!({"name": "s1"}))
                .unwrap(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.delivery(), Delivery::MaybeSent, "{err:?}");
    assert!(matches!(err, Error::Transport { .. }), "{err:?}");
    assert_eq!(connections.load(Ordering::SeqCst), 1);

    // The same failure on a GET is retried up to the limit.
    let err = client.execute(Request::get("version")).await.unwrap_err();
    assert_eq!(err.delivery(), Delivery::MaybeSent);
    assert_eq!(connections.load(Ordering::SeqCst), 1 + 4);
}

#[tokio::test]
async fn connection_refused_is_not_sent_and_names_the_url() {
    let port = common::closed_port().await;
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/api/").parse().unwrap())
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let err = client.execute(Request::get("version")).await.unwrap_err();
    assert!(err.is_connect());
    assert_eq!(err.delivery(), Delivery::NotSent);
    assert_eq!(
        err.to_string(),
        format!("could not connect to http://127.0.0.1:{port}/api/version")
    );
}

#[tokio::test]
async fn the_deadline_bounds_all_attempts() {
    let api = MockApi::start("/api").await;
    Mock::given(method("GET"))
        .and(path("/api/slow"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(30)))
        .mount(api.server())
        .await;
    let client = api
        .client_builder()
        .request_timeout(Duration::from_secs(60))
        .deadline(Duration::from_millis(300))
        .build()
        .unwrap();
    let err = client.execute(Request::get("slow")).await.unwrap_err();
    match err {
        Error::Deadline {
            deadline, delivery, ..
        } => {
            assert_eq!(deadline, Duration::from_millis(300));
            assert_eq!(delivery, Delivery::MaybeSent);
        }
        other => panic!("expected a deadline error, got {other:?}"),
    }
}

#[tokio::test]
async fn the_request_timeout_fails_one_attempt() {
    let api = MockApi::start("/api").await;
    Mock::given(method("POST"))
        .and(path("/api/slow"))
        .respond_with(ResponseTemplate::new(200).set_delay(Duration::from_secs(30)))
        .expect(1)
        .mount(api.server())
        .await;
    let client = api
        .client_builder()
        .request_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let err = client.execute(Request::post("slow")).await.unwrap_err();
    assert!(
        matches!(err, Error::Timeout { delivery: Delivery::MaybeSent, timeout, .. } if timeout == Duration::from_millis(200)),
        "{err:?}"
    );
}

#[tokio::test]
async fn decode_errors_name_the_path_and_keep_a_redacted_excerpt() {
    let api = MockApi::start("/api").await;
    Mock::given(method("GET"))
        .and(path("/api/list"))
        .respond_with(
            ResponseTemplate::new(200).set_body_string(
                r#"{"data":[{"vmid":1,"ticket":"PVE:secret-ticket"},{"vmid":"x"}]}"#,
            ),
        )
        .mount(api.server())
        .await;
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Item {
        vmid: u32,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct List {
        data: Vec<Item>,
    }
    let err = api
        .client()
        .send_json::<List>(Request::get("list"))
        .await
        .unwrap_err();
    assert_eq!(err.decode_path(), Some("data[1].vmid"));
    let Error::Decode { excerpt, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(excerpt.contains("\"vmid\":\"x\""), "{excerpt}");
    assert!(!excerpt.contains("secret-ticket"), "{excerpt}");
}

#[tokio::test]
async fn a_wrong_url_fails_readably_through_the_catch_all() {
    let api = MockApi::start("/api").await;
    let err = api
        .client()
        .send_json::<serde_json::Value>(Request::get("nodes").query("type", "vm"))
        .await
        .unwrap_err();
    let Error::Status { excerpt, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(excerpt, "unexpected GET /api/nodes?type=vm");
    assert_eq!(
        api.unexpected_requests(),
        vec!["unexpected GET /api/nodes?type=vm"]
    );
}
