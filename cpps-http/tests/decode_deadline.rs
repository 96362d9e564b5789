//! Decoding a large answer is part of the call: it stops at the call's deadline.
//!
//! The fault suite's `inventory` × 200 MB cell: three 200 MB answers fit the list cap, and
//! decoding them took longer than `--timeout`, because nothing interrupts a decode that runs.

use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_http::{Delivery, Envelope, Error, HttpClient, Request, Response, RetryPolicy};
use serde::Deserialize;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

/// One list entry that takes 5 ms to decode: 4 096 of them stand for an answer too large to
/// decode within the deadline (about 20 s), on a machine of any speed.
struct SlowEntry;

impl<'de> Deserialize<'de> for SlowEntry {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        std::thread::sleep(Duration::from_millis(5));
        serde::de::IgnoredAny::deserialize(deserializer)?;
        Ok(SlowEntry)
    }
}

#[derive(Deserialize)]
struct Data<T> {
    #[allow(dead_code)]
    data: T,
}

/// A service envelope of the shape every client crate has: `{"data": …}` through
/// [`Response::json`].
struct DataEnvelope;

impl Envelope for DataEnvelope {
    type Error = Error;

    fn decode<T: serde::de::DeserializeOwned>(&self, response: Response) -> Result<T, Error> {
        let data: Data<T> = response.error_for_status()?.json()?;
        Ok(data.data)
    }
}

/// 4 096 entries of 1 KiB: 4 MiB, over the 1 MiB from which decoding looks at the clock.
fn slow_answer() -> String {
    let entry = format!(r#""{}""#, "x".repeat(1022));
    format!(r#"{{"data":[{}]}}"#, vec![entry; 4096].join(","))
}

async fn api_with_slow_answer() -> MockApi {
    let api = MockApi::start("/api2/json").await;
    Mock::given(method("GET"))
        .and(path("/api2/json/cluster/resources"))
        .respond_with(ResponseTemplate::new(200).set_body_string(slow_answer()))
        .expect(1)
        .mount(api.server())
        .await;
    api
}

fn assert_decode_ran_out(error: &Error, deadline: Duration) {
    let Error::Deadline {
        method,
        url,
        deadline: elapsed,
        delivery,
    } = error
    else {
        panic!("expected a deadline error, got {error:?}");
    };
    assert_eq!(method, "GET");
    assert_eq!(url.path(), "/api2/json/cluster/resources");
    assert_eq!(*elapsed, deadline);
    // The answer arrived whole: the deadline ran out while it was decoded (a deadline that
    // elapses while the answer is on its way says "maybe sent").
    assert_eq!(*delivery, Delivery::Answered);
    let text = error.to_string();
    assert!(text.contains("GET http://127.0.0.1:"), "{text}");
    assert!(
        text.contains("/api2/json/cluster/resources exceeded its deadline of 2s"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn decoding_a_large_answer_stops_at_the_calls_deadline() {
    let api = api_with_slow_answer().await;
    let deadline = Duration::from_secs(2);
    let client = single_attempt_client(&api, deadline);
    let error = client
        .send::<_, Vec<SlowEntry>>(&DataEnvelope, Request::get("cluster/resources"))
        .await
        .err()
        .expect("decoding 4 096 slow entries outlasts the deadline");
    assert_decode_ran_out(&error, deadline);
    api.verify().await;
}

#[tokio::test]
async fn a_large_answer_read_by_hand_is_decoded_within_the_same_deadline() {
    let api = api_with_slow_answer().await;
    let deadline = Duration::from_secs(2);
    let client = single_attempt_client(&api, deadline);
    let error = client
        .send_json::<Data<Vec<SlowEntry>>>(Request::get("cluster/resources"))
        .await
        .err()
        .expect("decoding 4 096 slow entries outlasts the deadline");
    assert_decode_ran_out(&error, deadline);
    api.verify().await;
}

/// A client of `api` with `deadline` per call and no retry.
fn single_attempt_client(api: &MockApi, deadline: Duration) -> HttpClient {
    api.client_builder()
        .deadline(deadline)
        .retry(RetryPolicy::none())
        .build()
        .unwrap()
}
