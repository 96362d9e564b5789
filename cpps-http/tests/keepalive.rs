//! Every client's pooled connections carry TCP keepalive, so that a connection to a server
//! that died while it sat idle in the pool is closed by the kernel before a request is sent
//! on it (issue 33, D5).

use std::time::Duration;

use cpps_http::{HttpClient, Request};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// A server on 127.0.0.1 answering one request with `200` over a kept-alive HTTP/1.1
/// connection; yields the client's port once it answered. The connection stays open.
async fn answer_once() -> (u16, tokio::sync::oneshot::Receiver<u16>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (send, receive) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut stream, peer) = listener.accept().await.unwrap();
        let mut seen = Vec::new();
        let mut buffer = [0_u8; 1024];
        while !seen.windows(4).any(|w| w == b"\r\n\r\n") {
            let read = stream.read(&mut buffer).await.unwrap();
            assert!(read > 0, "the client closed before its request ended");
            seen.extend_from_slice(&buffer[..read]);
        }
        stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}")
            .await
            .unwrap();
        send.send(peer.port()).unwrap();
        // Keeps the connection open while the test looks at it.
        let _ = stream.read(&mut buffer).await;
    });
    (port, receive)
}

/// The `tr` (timer kind) and `tm->when` (clock ticks, `USER_HZ` = 100) columns of the
/// established IPv4 socket whose local port is `port`, from `/proc/net/tcp` (Linux
/// `net/ipv4/tcp_ipv4.c`, `get_tcp4_sock`: timer 2 is the keepalive timer).
fn tcp_timer(port: u16) -> Option<(u8, u64)> {
    let table = std::fs::read_to_string("/proc/net/tcp").ok()?;
    table.lines().skip(1).find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let local_port = u16::from_str_radix(fields.get(1)?.rsplit(':').next()?, 16).ok()?;
        if local_port != port || *fields.get(3)? != "01" {
            return None;
        }
        let (kind, when) = fields.get(5)?.split_once(':')?;
        Some((kind.parse().ok()?, u64::from_str_radix(when, 16).ok()?))
    })
}

// The idle connection left in the pool after one answer has its keepalive timer running, due
// within the 10 s of idle time cpps-http asks for (`TCP_KEEPIDLE`). reqwest 0.12's defaults
// (`ClientBuilder::new`: keepalive 15 s, interval 15 s, 3 retries) notice a dead peer only after
// 60 s, past the 30 s pool idle time; this test saw 15 s before cpps-http set its own.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn pooled_connections_have_tcp_keepalive_within_ten_seconds() {
    let (port, client_port) = answer_once().await;
    let client = HttpClient::builder(format!("http://127.0.0.1:{port}/").parse().unwrap())
        .build()
        .unwrap();
    let answer = client.execute(Request::get("x")).await.unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    let client_port = client_port.await.unwrap();
    let (kind, when) = tcp_timer(client_port).expect("the pooled connection is established");
    assert_eq!(
        kind, 2,
        "keepalive timer running on the idle pooled connection"
    );
    assert!(
        when <= 1_000,
        "the first probe is due within 10 s, not in {} s",
        when / 100
    );
    drop(client);
    tokio::time::sleep(Duration::from_millis(10)).await;
}
