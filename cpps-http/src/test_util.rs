//! A wiremock harness shared by every crate's tests (feature `test-util`).
//!
//! [`MockApi::start`] starts a wiremock server whose lowest-priority mock answers every request
//! that no other mock matched with `500` and the body `unexpected METHOD PATH?QUERY`, so a test
//! that calls a wrong URL fails with a readable message instead of a bare 404.
//! [`MockApi::unexpected_requests`] lists them for assertions.

pub mod bench;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use wiremock::matchers::any;
use wiremock::{Mock, MockServer, Request as WireRequest, Respond, ResponseTemplate};

use crate::{ClientBuilder, HttpClient, RetryPolicy, TlsMode, Url};

/// An environment holding `pairs` (name, value) and nothing else, for the service crates'
/// `ClientBuilder::from_env(lookup)`: tests read variables through it, never through the
/// process environment.
pub fn env_lookup(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let vars: std::collections::HashMap<String, String> = pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    move |name| vars.get(name).cloned()
}

/// The status the catch-all answers with.
pub const UNEXPECTED_STATUS: u16 = 500;

/// A running wiremock server with the catch-all responder mounted.
#[derive(Debug)]
pub struct MockApi {
    server: MockServer,
    base_path: String,
    unexpected: Arc<Mutex<Vec<String>>>,
}

struct CatchAll(Arc<Mutex<Vec<String>>>);

impl Respond for CatchAll {
    fn respond(&self, request: &WireRequest) -> ResponseTemplate {
        if let Ok(mut seen) = self.0.lock() {
            seen.push(describe(request));
        }
        ResponseTemplate::new(UNEXPECTED_STATUS)
            .insert_header("content-type", "text/plain")
            .set_body_string(describe(request))
    }
}

fn describe(request: &WireRequest) -> String {
    match request.url.query() {
        Some(query) => format!(
            "unexpected {} {}?{query}",
            request.method,
            request.url.path()
        ),
        None => format!("unexpected {} {}", request.method, request.url.path()),
    }
}

impl MockApi {
    /// Starts a server; clients made by [`MockApi::client_builder`] use `base_path` (for example
    /// `/api2/json`) as their base.
    pub async fn start(base_path: &str) -> Self {
        let server = MockServer::start().await;
        let unexpected = Arc::new(Mutex::new(Vec::new()));
        Mock::given(any())
            .respond_with(CatchAll(unexpected.clone()))
            .with_priority(u8::MAX)
            .named("catch-all: unexpected request")
            .mount(&server)
            .await;
        MockApi {
            server,
            base_path: base_path.trim_end_matches('/').to_owned(),
            unexpected,
        }
    }

    /// The wiremock server, for mounting mocks.
    pub fn server(&self) -> &MockServer {
        &self.server
    }

    /// The base URL clients should use (`http://127.0.0.1:PORT/base_path/`).
    pub fn base_url(&self) -> Url {
        let mut url: Url = self
            .server
            .uri()
            .parse()
            .expect("wiremock serves a valid URL");
        url.set_path(&format!("{}/", self.base_path));
        url
    }

    /// A builder for a client of this server: plain HTTP, short back-off so retry tests are fast.
    pub fn client_builder(&self) -> ClientBuilder {
        HttpClient::builder(self.base_url())
            .tls(TlsMode::SystemRoots)
            .retry(RetryPolicy {
                max_attempts: 4,
                initial_backoff: Duration::from_millis(5),
                max_backoff: Duration::from_millis(20),
            })
            .deadline(Duration::from_secs(10))
    }

    /// A client of this server with the test defaults.
    pub fn client(&self) -> HttpClient {
        self.client_builder()
            .build()
            .expect("a client for a local wiremock server builds")
    }

    /// Every request that reached the catch-all, described as `METHOD PATH?QUERY`.
    pub fn unexpected_requests(&self) -> Vec<String> {
        self.unexpected
            .lock()
            .map(|seen| seen.clone())
            .unwrap_or_default()
    }

    /// Fails the test, listing them, if the server got requests it was not told about.
    #[track_caller]
    pub fn assert_no_unexpected_requests(&self) {
        let unexpected = self.unexpected_requests();
        assert!(unexpected.is_empty(), "unexpected requests: {unexpected:?}");
    }

    /// Header `name` of each request the server received, in order: a request's values joined
    /// by `, ` (so that a header sent twice shows), `None` where it had none.
    pub async fn header_of_each_request(&self, name: &str) -> Vec<Option<String>> {
        let requests = self.server.received_requests().await.unwrap_or_default();
        requests
            .iter()
            .map(|request| {
                let values: Vec<&str> = request
                    .headers
                    .get_all(name)
                    .iter()
                    .map(|v| v.to_str().unwrap_or("(not text)"))
                    .collect();
                (!values.is_empty()).then(|| values.join(", "))
            })
            .collect()
    }

    /// Verifies the expectations of every mounted mock (`.expect(n)`), panicking with wiremock's
    /// report when one is not met.
    pub async fn verify(&self) {
        self.server.verify().await;
    }
}

/// Reads a JSON fixture from the calling crate's `tests/fixtures/` folder.
///
/// ```no_run
/// let body: serde_json::Value = cpps_http::fixture!("cluster_resources.json");
/// ```
#[macro_export]
macro_rules! fixture {
    ($name:expr) => {
        $crate::test_util::load_fixture(env!("CARGO_MANIFEST_DIR"), $name)
    };
}

/// Reads `CRATE_DIR/tests/fixtures/NAME` as JSON, panicking with the path when it is missing or
/// invalid (a broken fixture is a bug in the test).
pub fn load_fixture(crate_dir: &str, name: &str) -> serde_json::Value {
    let path = std::path::Path::new(crate_dir)
        .join("tests")
        .join("fixtures")
        .join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read fixture {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("fixture {} is not valid JSON: {e}", path.display()))
}

/// A server on 127.0.0.1 that answers every connection with the same raw bytes (status line,
/// headers and body as given), then closes it: for answers wiremock cannot send, such as a
/// custom HTTP reason phrase (`HTTP/1.1 500 Configuration file … does not exist`).
#[derive(Debug)]
pub struct RawServer {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl RawServer {
    /// Starts the server; `answer` is written verbatim after each request's head is read.
    pub async fn start(answer: impl Into<Vec<u8>>) -> Self {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let answer: Arc<[u8]> = answer.into().into();
        let (listener, port) = loopback_listener().await;
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = requests.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                let answer = answer.clone();
                let seen = seen.clone();
                tokio::spawn(async move {
                    let mut head = Vec::new();
                    let mut buf = [0u8; 4096];
                    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => head.extend_from_slice(&buf[..n]),
                        }
                    }
                    let text = String::from_utf8_lossy(&head);
                    if let Ok(mut seen) = seen.lock() {
                        seen.push(text.lines().next().unwrap_or_default().to_owned());
                    }
                    let _ = stream.write_all(&answer).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        RawServer {
            port,
            requests,
            task,
        }
    }

    /// `http://127.0.0.1:PORT/` + `base_path`.
    pub fn url(&self, base_path: &str) -> Url {
        loopback_url(self.port, base_path)
    }

    /// The request lines received so far (`GET /api2/json/version HTTP/1.1`).
    pub fn request_lines(&self) -> Vec<String> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

/// A listener on an ephemeral port of 127.0.0.1, and that port.
async fn loopback_listener() -> (tokio::net::TcpListener, u16) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1");
    let port = listener.local_addr().expect("local address").port();
    (listener, port)
}

/// `http://127.0.0.1:PORT/` + `base_path`.
fn loopback_url(port: u16, base_path: &str) -> Url {
    format!(
        "http://127.0.0.1:{port}/{}",
        base_path.trim_start_matches('/')
    )
    .parse()
    .expect("a loopback URL")
}

impl Drop for RawServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A TCP relay on 127.0.0.1 in front of a server (wiremock's, say) that notes when it accepted
/// each connection: what a test needs to tell how many connections a client opened, and when
/// (wiremock does not say).
#[derive(Debug)]
pub struct CountingProxy {
    port: u16,
    accepted: Arc<Mutex<Vec<std::time::Instant>>>,
    task: tokio::task::JoinHandle<()>,
}

impl CountingProxy {
    /// Starts relaying every connection to `upstream`.
    pub async fn start(upstream: std::net::SocketAddr) -> Self {
        let (listener, port) = loopback_listener().await;
        let accepted = Arc::new(Mutex::new(Vec::new()));
        let noted = accepted.clone();
        let task = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if let Ok(mut noted) = noted.lock() {
                    noted.push(std::time::Instant::now());
                }
                tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(upstream).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
            }
        });
        CountingProxy {
            port,
            accepted,
            task,
        }
    }

    /// `http://127.0.0.1:PORT/` + `base_path`.
    pub fn url(&self, base_path: &str) -> Url {
        loopback_url(self.port, base_path)
    }

    /// When each connection was accepted, in order.
    pub fn accepted(&self) -> Vec<std::time::Instant> {
        self.accepted.lock().map(|a| a.clone()).unwrap_or_default()
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A listening socket on 127.0.0.1 that never accepts, with its accept queue filled, so that
/// a new connection's SYN is dropped and `connect` hangs until the client's connect timeout:
/// what a powered-off host or a site cut off by a firewall looks like, unlike a closed port
/// (which refuses at once).
#[derive(Debug)]
pub struct SilentListener {
    port: u16,
    _listener: tokio::net::TcpListener,
    _fillers: Vec<tokio::net::TcpStream>,
}

impl SilentListener {
    /// Binds with a backlog of one and fills the queue. Linux keeps up to backlog + 1
    /// established connections waiting for `accept`; SYNs beyond that are dropped
    /// (`net.ipv4.tcp_abort_on_overflow` = 0, the default).
    pub async fn start() -> Self {
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket
            .bind("127.0.0.1:0".parse().expect("address"))
            .expect("bind 127.0.0.1");
        let listener = socket.listen(1).expect("listen");
        let address = listener.local_addr().expect("local address");
        let mut fillers = Vec::new();
        for _ in 0..8 {
            match tokio::time::timeout(
                Duration::from_millis(200),
                tokio::net::TcpStream::connect(address),
            )
            .await
            {
                Ok(Ok(stream)) => fillers.push(stream),
                // The queue is full: this connect was not answered.
                _ => break,
            }
        }
        SilentListener {
            port: address.port(),
            _listener: listener,
            _fillers: fillers,
        }
    }

    /// `http://127.0.0.1:PORT/` + `base_path`.
    pub fn url(&self, base_path: &str) -> Url {
        loopback_url(self.port, base_path)
    }
}
