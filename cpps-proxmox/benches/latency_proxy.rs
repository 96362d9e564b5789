//! A TCP proxy on 127.0.0.1 that adds a round-trip time to every connection through it, for
//! `cargo xtask bench sweep --latency` (this kernel has no `tc netem`).
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench latency_proxy -- UPSTREAM_PORT RTT_MS
//! ```
//!
//! Listens on a free port of 127.0.0.1, prints `port: N` and forwards every connection to
//! `127.0.0.1:UPSTREAM_PORT`. Each chunk read from either side is written to the other half an
//! RTT later, in order, without waiting for the chunks before it to arrive (a pipe with a
//! delay, not a stop-and-wait link), and the first chunk from a client waits one more RTT: the
//! TCP handshake the local kernel completed at once. So a TLS 1.3 request on a new connection
//! costs the client 3 RTT, as on a real link. Says on stderr how many connections it relayed when
//! it stops. Stops when its standard input closes (the bench holds it open) or after 15
//! minutes, whichever comes first.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// One way of one connection: read chunks, write each `delay` after it was read.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin + Send + 'static,
    delay: Duration,
    first_extra: Duration,
) {
    let (send, mut receive) = mpsc::unbounded_channel::<(Instant, Vec<u8>)>();
    let writer = tokio::spawn(async move {
        while let Some((due, chunk)) = receive.recv().await {
            tokio::time::sleep_until(due).await;
            if chunk.is_empty() {
                break;
            }
            if to.write_all(&chunk).await.is_err() {
                return;
            }
        }
        let _ = to.shutdown().await;
    });
    let mut extra = first_extra;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let read = from.read(&mut buffer).await.unwrap_or(0);
        let due = Instant::now() + delay + extra;
        extra = Duration::ZERO;
        // An empty chunk carries the end of the stream, delayed like the data before it.
        if send.send((due, buffer[..read].to_vec())).is_err() || read == 0 {
            break;
        }
    }
    drop(send);
    let _ = writer.await;
}

async fn relay(client: TcpStream, upstream_port: u16, rtt: Duration) {
    let Ok(upstream) = TcpStream::connect(("127.0.0.1", upstream_port)).await else {
        return;
    };
    let _ = client.set_nodelay(true);
    let _ = upstream.set_nodelay(true);
    let (client_read, client_write) = client.into_split();
    let (upstream_read, upstream_write) = upstream.into_split();
    tokio::join!(
        pump(client_read, upstream_write, rtt / 2, rtt),
        pump(upstream_read, client_write, rtt / 2, Duration::ZERO),
    );
}

#[tokio::main]
async fn main() {
    let args = common::positional_args();
    let (Some(upstream), Some(rtt)) = (
        args.first().and_then(|p| p.parse::<u16>().ok()),
        args.get(1).and_then(|r| r.parse::<u64>().ok()),
    ) else {
        eprintln!("usage: latency_proxy UPSTREAM_PORT RTT_MS");
        std::process::exit(2);
    };
    let rtt = Duration::from_millis(rtt);
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .expect("bind 127.0.0.1");
    println!(
        "port: {}",
        listener.local_addr().expect("local address").port()
    );
    let connections = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&connections);
    let accept = async move {
        while let Ok((client, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::Relaxed);
            tokio::spawn(relay(client, upstream, rtt));
        }
    };
    // The bench closes our standard input when it is done (or dies).
    let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = [0u8; 64];
        while std::io::Read::read(&mut std::io::stdin(), &mut sink).is_ok_and(|n| n > 0) {}
        let _ = closed.send(());
    });
    tokio::select! {
        () = accept => {}
        _ = stdin_closed => {}
        () = tokio::time::sleep(Duration::from_secs(15 * 60)) => {}
    }
    eprintln!(
        "latency proxy: {} connections relayed",
        connections.load(Ordering::Relaxed)
    );
}
