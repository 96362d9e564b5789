//! Spare connections opened ahead of a fan-out (`HttpClient::preconnect`): they carry the next
//! requests instead of new handshakes, and nothing is sent on them before.

mod common;

use std::time::Duration;

use common::{KeepAliveServer, TestPki};
use cpps_http::{HttpClient, Request, TlsMode};

/// A [`KeepAliveServer`] answering after `answer_delay`, and a client trusting it whose idle
/// pooled connections are kept for `idle`.
async fn server_and_client(
    answer_delay: Duration,
    idle: Duration,
) -> (KeepAliveServer, HttpClient) {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, answer_delay).await;
    let client = HttpClient::builder(
        format!("https://localhost:{}/", server.port)
            .parse()
            .unwrap(),
    )
    .tls(TlsMode::CaPem(pki.ca_pem.clone().into_bytes()))
    .pool_idle_timeout(idle)
    .build()
    .unwrap();
    (server, client)
}

/// Waits until `done` holds, for at most 5 s.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..500 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("not within 5 s: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn preconnected_connections_carry_the_next_requests_and_send_nothing_before() {
    // Answers take 200 ms, so the four requests are in flight at once.
    let (server, client) =
        server_and_client(Duration::from_millis(200), Duration::from_secs(90)).await;
    client.preconnect(4);
    // Counted before `preconnect` returns, so the next requests wait for them.
    assert_eq!(client.spare_connections(), 4);
    assert_eq!(client.spare_connections_started(), 4);
    until("4 connections accepted", || server.connections() == 4).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.requests(), 0, "a spare sends nothing");

    let answers = futures_join(&client, 4).await;
    assert!(answers.iter().all(|status| *status == 200), "{answers:?}");
    assert_eq!(server.requests(), 4);
    assert_eq!(server.connections(), 4, "the requests took the spares");
    assert_eq!(client.spare_connections(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_wait_for_spares_still_being_opened() {
    let (server, client) = server_and_client(Duration::ZERO, Duration::from_secs(90)).await;
    // The requests leave at once, while the spares' handshakes are under way.
    client.preconnect(3);
    let answers = futures_join(&client, 3).await;
    assert_eq!(answers, vec![200, 200, 200]);
    assert_eq!(server.requests(), 3);
    // The spares' handshakes all end (a request may have reused the first spare meanwhile),
    // and nothing else is opened.
    until("3 connections accepted", || server.connections() == 3).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.connections(), 3);
    assert_eq!(client.spare_connections_started(), 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spare_nobody_takes_is_closed_and_not_handed_out() {
    // Spares live as long as idle pooled connections, at most 3 s.
    let (server, client) = server_and_client(Duration::ZERO, Duration::from_millis(200)).await;
    client.preconnect(2);
    until("2 connections accepted", || server.connections() == 2).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(client.spare_connections(), 0);
    let answer = client.execute(Request::get("version")).await.unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(
        server.connections(),
        3,
        "a new connection, not a stale spare"
    );
}

#[tokio::test]
async fn outside_a_runtime_preconnect_does_nothing() {
    let (server, client) = server_and_client(Duration::ZERO, Duration::from_secs(90)).await;
    let handle = std::thread::spawn(move || {
        client.preconnect(2);
        client.spare_connections_started()
    });
    assert_eq!(handle.join().unwrap(), 0);
    assert_eq!(server.connections(), 0);
}

/// `count` GETs at once; their statuses.
async fn futures_join(client: &HttpClient, count: usize) -> Vec<u16> {
    let mut tasks = Vec::new();
    for _ in 0..count {
        let client = client.clone();
        tasks.push(tokio::spawn(async move {
            client
                .execute(Request::get("version"))
                .await
                .unwrap()
                .status()
                .as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for task in tasks {
        statuses.push(task.await.unwrap());
    }
    statuses
}
