//! The fault suite: every binary that talks to a server (inventory, pbs-report, linstor-health,
//! vyos-backup, audit, the exporter's first scrape, driver-update) run against a fault server on
//! 127.0.0.1 in each scenario of [`Scenario`], one table-driven test. Each cell asserts:
//!
//! * no panic (exit status 101, `panicked at`);
//! * finished within its `--timeout` plus [`MARGIN`];
//! * an error that names what went wrong (a phrase of the scenario's [`Scenario::evidence`]),
//!   or, where the scenario ends in a good answer, that the binary read it;
//! * none of the client's secrets in stdout or stderr, even when the server echoes them;
//! * no write sent (a plan or a report never changes anything);
//! * no read sent more often than the retry policy allows
//!   (`cpps_http::RetryPolicy::default().max_attempts`, the most any client here is given).
//!
//! The fault server is this file's own: a raw HTTP/1.1 server on Tokio, so that it can do what
//! no well-behaved server does (reset a connection mid-body, send a byte a second, promise
//! 200 MB). It speaks each service's envelope ([`Flavor`]) just enough for the good answers.
//! The table of results (scenario × binary) is printed on stderr; run with `--nocapture` to see
//! it.

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{free_port, repo, scrape};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// What each binary is given as `--timeout`.
const TIMEOUT: Duration = Duration::from_secs(4);
/// What a run may take beyond its `--timeout`: process start and printing (debug build, two
/// cores shared with the fault server).
const MARGIN: Duration = Duration::from_secs(3);
/// A run still going after this long is killed (it has failed its bound long before).
const KILL_AFTER: Duration = Duration::from_secs(25);

const PVE_TOKEN_ID: &str = "root@pam!faults";
const PVE_SECRET: &str = "5ec2e7a1-0d1e-4f00-9c3a-pve0secret00";
const PBS_SECRET: &str = "7b1c0e4f-2a3d-4e5f-8a9b-pbs0secret00";
const LS_USER: &str = "faultadmin";
const LS_PASSWORD: &str = "Ls-Pa55w0rd-faults";
const VYOS_KEY: &str = "vyos-api-key-faults-31337";

/// Every form of every secret the binaries are given: none may be printed.
fn secrets() -> Vec<String> {
    use base64::Engine as _;
    let basic =
        base64::engine::general_purpose::STANDARD.encode(format!("{LS_USER}:{LS_PASSWORD}"));
    vec![
        PVE_SECRET.to_owned(),
        format!("{PVE_TOKEN_ID}={PVE_SECRET}"),
        PBS_SECRET.to_owned(),
        LS_PASSWORD.to_owned(),
        basic,
        VYOS_KEY.to_owned(),
    ]
}

/// A way for a server to misbehave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scenario {
    /// Good answers only: each binary's baseline, against which the others are read.
    Healthy,
    /// Headers and half a body, then a TCP reset.
    ResetMidBody,
    /// Accepts the connection, reads the request, never answers.
    NeverAnswer,
    /// A good answer, one byte a second.
    OneBytePerSecond,
    /// The first answer of every path is a 500, 502 or 503 (in turn); the next is good.
    Burst5xxThenSuccess,
    /// A proxy's HTML error page with status 200.
    Html200,
    /// The good answer cut in the middle (with a matching `Content-Length`).
    TruncatedJson,
    /// Valid JSON of the wrong shape (`[true]` where an object or a list of objects is due).
    WrongShape,
    /// The envelope holds `null`.
    DataNull,
    /// A 200 MB body, streamed.
    HugeBody,
    /// `302 Found` to the same URL, every time.
    RedirectLoop,
    /// A good answer with a value of a server enum this client does not know.
    UnknownEnum,
    /// `401` every time.
    Unauthorized,
    /// `401` whose reason phrase and body echo the credential received.
    UnauthorizedEcho,
}

const SCENARIOS: [Scenario; 13] = [
    Scenario::ResetMidBody,
    Scenario::NeverAnswer,
    Scenario::OneBytePerSecond,
    Scenario::Burst5xxThenSuccess,
    Scenario::Html200,
    Scenario::TruncatedJson,
    Scenario::WrongShape,
    Scenario::DataNull,
    Scenario::HugeBody,
    Scenario::RedirectLoop,
    Scenario::UnknownEnum,
    Scenario::Unauthorized,
    Scenario::UnauthorizedEcho,
];

impl Scenario {
    fn name(self) -> &'static str {
        match self {
            Self::Healthy => "(healthy)",
            Self::ResetMidBody => "reset mid-body",
            Self::NeverAnswer => "never answers",
            Self::OneBytePerSecond => "1 byte/s",
            Self::Burst5xxThenSuccess => "5xx then ok",
            Self::Html200 => "HTML 200",
            Self::TruncatedJson => "truncated JSON",
            Self::WrongShape => "wrong shape",
            Self::DataNull => "data: null",
            Self::HugeBody => "200 MB body",
            Self::RedirectLoop => "redirect loop",
            Self::UnknownEnum => "unknown enum",
            Self::Unauthorized => "401",
            Self::UnauthorizedEcho => "401 echo",
        }
    }

    /// Phrases of which at least one must appear in the output (lower-cased): the error names
    /// what went wrong. For the scenarios that end in a good answer, what shows it was read.
    fn evidence(self) -> &'static [&'static str] {
        match self {
            Self::Healthy => &[
                FAULT_NODE,
                "faultstore",
                "vm-900-disk-0",
                "fault-router",
                "(ct 201)",
            ],
            Self::ResetMidBody => &["reset", "connection", "body", "closed", "incomplete"],
            Self::NeverAnswer | Self::OneBytePerSecond => &[
                "timeout",
                "timed out",
                "deadline",
                "no answer",
                "gave up",
                "ran out",
                "time limit",
            ],
            // The good answer was read (one of its names is printed), or the error names the
            // status (a client may leave a 500, or a POST read, unretried).
            Self::Burst5xxThenSuccess => &[
                FAULT_NODE,
                "faultstore",
                "vm-900-disk-0",
                "fault-router",
                "(ct 201)",
                "500",
                "502",
                "503",
            ],
            Self::Html200 | Self::TruncatedJson | Self::WrongShape | Self::DataNull => &[
                "json",
                "decode",
                "expected",
                "invalid type",
                "eof",
                "null",
                "unexpected",
                "parse",
            ],
            Self::HugeBody => &["too large", "limit", "bytes", "cap", "size"],
            Self::RedirectLoop => &["302", "redirect"],
            // Kept, not rejected: the value is printed, or the read succeeded (checked apart:
            // no "unknown variant" anywhere).
            Self::UnknownEnum => &[
                UNKNOWN_VALUE,
                FAULT_NODE,
                "faultstore",
                "vm-900-disk-0",
                "(ct 201)",
            ],
            Self::Unauthorized | Self::UnauthorizedEcho => &[
                "401",
                "unauthorized",
                "authentication",
                "credential",
                "permission",
                "refused the api key",
            ],
        }
    }
}

/// The node, store, resource and host names of the good answers.
const FAULT_NODE: &str = "pve-fault-1";
/// The enum value no client knows.
const UNKNOWN_VALUE: &str = "hibernating-in-2031";

/// How a service wraps its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flavor {
    /// `{"data": …}` (Proxmox VE).
    Proxmox,
    /// `{"data": …}` (Proxmox Backup Server).
    Pbs,
    /// Bare JSON (LINSTOR).
    Linstor,
    /// `{"success": …, "data": …, "error": …}` (VyOS).
    Vyos,
}

impl Flavor {
    fn wrap(self, data: &str) -> String {
        match self {
            Self::Proxmox | Self::Pbs => format!(r#"{{"data":{data}}}"#),
            Self::Linstor => data.to_owned(),
            Self::Vyos => format!(r#"{{"success":true,"data":{data},"error":null}}"#),
        }
    }

    /// Whether `method path` changes something on the server.
    fn is_write(self, method: &str, path: &str) -> bool {
        match self {
            // VyOS reads are POSTs too: /retrieve (showConfig, returnValues, exists), /show
            // and /info (vyos-1x `src/services/api/rest/routers.py`).
            Self::Vyos => {
                !(method == "GET"
                    || (method == "POST"
                        && ["/retrieve", "/show", "/info"]
                            .iter()
                            .any(|p| path.ends_with(p))))
            }
            _ => !matches!(method, "GET" | "HEAD"),
        }
    }

    /// The good answer to `path` (without the query) of `request` (head and body): enough
    /// for every binary's reads.
    fn good(self, path: &str, request: &str, unknown: bool) -> String {
        let status = if unknown { UNKNOWN_VALUE } else { "running" };
        let data = match self {
            Self::Proxmox => {
                if path.ends_with("/cluster/resources") {
                    format!(
                        r#"[{{"id":"node/{FAULT_NODE}","type":"node","node":"{FAULT_NODE}","status":"online"}},{{"id":"qemu/900","type":"qemu","vmid":900,"node":"{FAULT_NODE}","name":"fault-vm","status":"{status}"}},{{"id":"lxc/201","type":"lxc","vmid":201,"node":"pve-ippri-32","name":"monitoring","status":"running"}}]"#
                    )
                } else if path.ends_with("/version") {
                    r#"{"version":"9.0.3","release":"9.0","repoid":"abcdef12"}"#.to_owned()
                } else if path.ends_with("/cluster/status") {
                    format!(
                        r#"[{{"type":"cluster","name":"fault","quorate":1,"nodes":1,"version":1,"id":"cluster"}},{{"type":"node","name":"{FAULT_NODE}","online":1,"local":1,"nodeid":1,"id":"node/{FAULT_NODE}"}}]"#
                    )
                } else if path.ends_with("/lxc/201/config") {
                    r#"{"hostname":"monitoring","rootfs":"linstor-ssd:vm-201-disk-0,size=8G","unprivileged":1,"digest":"0"}"#.to_owned()
                } else if path.ends_with("/config") {
                    r#"{"hostname":"fault-vm","digest":"0"}"#.to_owned()
                } else {
                    "[]".to_owned()
                }
            }
            Self::Pbs => {
                if path.ends_with("/admin/datastore") || path.ends_with("/config/datastore") {
                    r#"[{"store":"faultstore","name":"faultstore","path":"/mnt/faultstore"}]"#
                        .to_owned()
                } else if path.ends_with("/namespace") {
                    r#"[{"ns":""}]"#.to_owned()
                } else if path.ends_with("/snapshots") {
                    let state = if unknown { UNKNOWN_VALUE } else { "ok" };
                    format!(
                        r#"[{{"backup-type":"vm","backup-id":"900","backup-time":1780000000,"size":1,"files":["index.json.blob"],"verification":{{"state":"{state}","upid":"UPID:pbs:0000:0000:0000:00000000:verify:faultstore:root@pam:"}}}}]"#
                    )
                } else if path.ends_with("/version") {
                    r#"{"version":"4.0","release":"4.0.11","repoid":"abcdef12"}"#.to_owned()
                } else {
                    "[]".to_owned()
                }
            }
            Self::Linstor => {
                if path.ends_with("/v1/nodes") {
                    let state = if unknown { UNKNOWN_VALUE } else { "ONLINE" };
                    format!(
                        r#"[{{"name":"{FAULT_NODE}","type":"SATELLITE","connection_status":"{state}","props":{{}}}}]"#
                    )
                } else if path.ends_with("/v1/view/resources") {
                    let disk = if unknown { UNKNOWN_VALUE } else { "UpToDate" };
                    format!(
                        r#"[{{"name":"vm-900-disk-0","node_name":"{FAULT_NODE}","layer_object":{{"type":"DRBD","drbd":{{"connections":{{}}}}}},"state":{{"in_use":false}},"volumes":[{{"volume_number":0,"storage_pool_name":"ssd-pool","state":{{"disk_state":"{disk}"}}}}]}}]"#
                    )
                } else if path.ends_with("/v1/resource-definitions") {
                    r#"[{"name":"vm-900-disk-0","resource_group_name":"rg","props":{}}]"#.to_owned()
                } else if path.ends_with("/v1/controller/version") {
                    r#"{"version":"1.31.0","git_hash":"0","build_time":"now","rest_api_version":"1.25.0"}"#.to_owned()
                } else {
                    "[]".to_owned()
                }
            }
            Self::Vyos => {
                if path.ends_with("/retrieve") && request.contains("raw") {
                    // showConfig with `configFormat: raw` answers config.boot text.
                    r#""system {\n    host-name fault-router\n}\ninterfaces {\n    ethernet eth0 {\n        address 192.0.2.1/24\n    }\n}\n""#.to_owned()
                } else if path.ends_with("/retrieve") {
                    r#"{"system":{"host-name":"fault-router"},"interfaces":{"ethernet":{"eth0":{"address":["192.0.2.1/24"]}}}}"#.to_owned()
                } else if path.ends_with("/info") {
                    r#"{"version":"1.5","hostname":"fault-router","banner":""}"#.to_owned()
                } else {
                    "{}".to_owned()
                }
            }
        };
        self.wrap(&data)
    }
}

/// One request the fault server received.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    target: String,
}

/// The fault server: one scenario, one flavor, every path.
struct FaultServer {
    url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl FaultServer {
    async fn start(scenario: Scenario, flavor: Flavor) -> FaultServer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let url = format!("http://{addr}/");
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let counts: Arc<Mutex<BTreeMap<String, usize>>> = Arc::default();
        let task = {
            let seen = seen.clone();
            let url = url.clone();
            tokio::spawn(async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        continue;
                    };
                    let seen = seen.clone();
                    let counts = counts.clone();
                    let url = url.clone();
                    tokio::spawn(async move {
                        let _ = serve(stream, scenario, flavor, &seen, &counts, &url).await;
                    });
                }
            })
        };
        FaultServer { url, seen, task }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

/// Reads one request (head and `Content-Length` body); `None` at the end of the connection.
async fn read_request(stream: &mut TcpStream) -> std::io::Result<Option<(String, String, String)>> {
    let mut buf = Vec::new();
    let mut chunk = [0_u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(None);
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .filter_map(|l| l.split_once(':'))
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.trim().parse().ok())
        .unwrap_or(0);
    let mut body = buf[head_end..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    let mut first = head.lines().next().unwrap_or("").split_whitespace();
    let method = first.next().unwrap_or("").to_owned();
    let target = first.next().unwrap_or("").to_owned();
    Ok(Some((
        method,
        target,
        format!("{head}{}", String::from_utf8_lossy(&body)),
    )))
}

fn response(status: &str, content_type: &str, body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Writes the start of a good answer's `body` (half of it, with the whole length announced),
/// then closes the connection with a reset.
async fn write_half_then_reset(
    stream: &mut TcpStream,
    json: &str,
    body: &str,
) -> std::io::Result<()> {
    let half = &body[..body.len() / 2];
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {json}\r\nContent-Length: {}\r\n\r\n{half}",
        body.len()
    );
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    // SO_LINGER 0: closing sends a reset, not a FIN. (Deprecated because a non-zero
    // linger blocks the thread on drop; a zero one does not.)
    #[allow(deprecated)]
    stream.set_linger(Some(Duration::ZERO))?;
    Ok(())
}

/// Writes a 200 MB answer.
async fn write_huge_body(stream: &mut TcpStream, json: &str) -> std::io::Result<()> {
    // 200 MB of one JSON string, written in 64 KiB pieces: never held whole.
    const TOTAL: usize = 200 * 1024 * 1024;
    let open = r#"{"data":""#;
    let close = r#""}"#;
    let head =
        format!("HTTP/1.1 200 OK\r\nContent-Type: {json}\r\nContent-Length: {TOTAL}\r\n\r\n{open}");
    stream.write_all(head.as_bytes()).await?;
    let piece = vec![b'a'; 64 * 1024];
    let mut left = TOTAL - open.len() - close.len();
    while left > 0 {
        let n = left.min(piece.len());
        stream.write_all(&piece[..n]).await?;
        left -= n;
    }
    stream.write_all(close.as_bytes()).await?;
    Ok(())
}

/// What each service answers a request without valid credentials.
fn unauthorized_body(flavor: Flavor) -> String {
    match flavor {
        Flavor::Vyos => {
            r#"{"success":false,"data":null,"error":"Valid API key is required"}"#.to_owned()
        }
        Flavor::Linstor => {
            r#"[{"ret_code":-4611686018427387904,"message":"Authentication failed"}]"#.to_owned()
        }
        _ => r#"{"data":null}"#.to_owned(),
    }
}

/// What the client sent as its credential: the Authorization header, or the `key` field of a
/// VyOS form, with the characters that would break the answer's JSON blanked.
fn sent_credential(request: &str) -> String {
    request
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("authorization")
                .then(|| v.trim().to_owned())
        })
        .or_else(|| {
            request
                .rsplit("\r\n\r\n")
                .next()
                .filter(|b| !b.is_empty())
                .map(str::to_owned)
        })
        .unwrap_or_default()
        .replace(['"', '\\', '\r', '\n'], " ")
}

/// The answer of a server that echoes the credential it refused in `message`.
fn echo_body(flavor: Flavor, message: &str) -> String {
    match flavor {
        Flavor::Vyos => {
            format!(r#"{{"success":false,"data":null,"error":"{message}"}}"#)
        }
        Flavor::Linstor => {
            format!(r#"[{{"ret_code":-4611686018427387904,"message":"{message}"}}]"#)
        }
        _ => format!(r#"{{"data":null,"message":"{message}"}}"#),
    }
}

/// Writes `answer` one byte a second.
async fn write_slowly(stream: &mut TcpStream, answer: &[u8]) -> std::io::Result<()> {
    for byte in answer {
        stream.write_all(&[*byte]).await?;
        stream.flush().await?;
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    Ok(())
}

/// The first answer of a burst of 5xx: 500, 502 or 503 by how many requests came before.
fn burst_5xx(requests_before: usize) -> Vec<u8> {
    let status = [
        "500 Internal Server Error",
        "502 Bad Gateway",
        "503 Service Unavailable",
    ][requests_before % 3];
    response(status, "text/plain", "try again\n")
}

/// The page a reverse proxy answers, with a 200, when the service behind it is down.
const NGINX_BAD_GATEWAY: &str = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1><p>nginx</p></body></html>\n";

/// Notes a request in `seen` and `counts`: how many times its path was asked, this one included.
fn record(
    seen: &Mutex<Vec<Seen>>,
    counts: &Mutex<BTreeMap<String, usize>>,
    method: &str,
    path: &str,
    target: &str,
) -> usize {
    seen.lock().unwrap().push(Seen {
        method: method.to_owned(),
        path: path.to_owned(),
        target: target.to_owned(),
    });
    let mut counts = counts.lock().unwrap();
    let n = counts.entry(path.to_owned()).or_default();
    *n += 1;
    *n
}

async fn serve(
    mut stream: TcpStream,
    scenario: Scenario,
    flavor: Flavor,
    seen: &Mutex<Vec<Seen>>,
    counts: &Mutex<BTreeMap<String, usize>>,
    base: &str,
) -> std::io::Result<()> {
    while let Some((method, target, request)) = read_request(&mut stream).await? {
        let path = target.split('?').next().unwrap_or("").to_owned();
        let nth = record(seen, counts, &method, &path, &target);
        let json = "application/json;charset=UTF-8";
        match scenario {
            // A good answer; for UnknownEnum with a server enum value the clients do not know.
            Scenario::Healthy | Scenario::UnknownEnum => {
                let unknown = scenario == Scenario::UnknownEnum;
                stream
                    .write_all(&response(
                        "200 OK",
                        json,
                        &flavor.good(&path, &request, unknown),
                    ))
                    .await?;
            }
            Scenario::ResetMidBody => {
                let body = flavor.good(&path, &request, false);
                return write_half_then_reset(&mut stream, json, &body).await;
            }
            Scenario::NeverAnswer => {
                // Hold the connection until the client gives up.
                let mut sink = [0_u8; 1024];
                while stream.read(&mut sink).await? > 0 {}
                return Ok(());
            }
            Scenario::OneBytePerSecond => {
                let answer = response("200 OK", json, &flavor.good(&path, &request, false));
                write_slowly(&mut stream, &answer).await?;
            }
            Scenario::Burst5xxThenSuccess => {
                let answer = if nth == 1 {
                    burst_5xx(seen.lock().unwrap().len())
                } else {
                    response("200 OK", json, &flavor.good(&path, &request, false))
                };
                stream.write_all(&answer).await?;
            }
            Scenario::Html200 => {
                let answer = response("200 OK", "text/html", NGINX_BAD_GATEWAY);
                stream.write_all(&answer).await?;
            }
            Scenario::TruncatedJson => {
                let body = flavor.good(&path, &request, false);
                stream
                    .write_all(&response("200 OK", json, &body[..body.len() / 2]))
                    .await?;
            }
            Scenario::WrongShape => {
                stream
                    .write_all(&response("200 OK", json, &flavor.wrap("[true]")))
                    .await?;
            }
            Scenario::DataNull => {
                stream
                    .write_all(&response("200 OK", json, &flavor.wrap("null")))
                    .await?;
            }
            Scenario::HugeBody => write_huge_body(&mut stream, json).await?,
            Scenario::RedirectLoop => {
                let location = format!("{}{}", base.trim_end_matches('/'), target);
                let answer = format!(
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\n\r\n"
                );
                stream.write_all(answer.as_bytes()).await?;
            }
            Scenario::Unauthorized => {
                let body = unauthorized_body(flavor);
                stream
                    .write_all(&response("401 authentication failure", json, &body))
                    .await?;
            }
            Scenario::UnauthorizedEcho => {
                let message = format!(
                    "credential '{}' is not valid here",
                    sent_credential(&request)
                );
                let body = echo_body(flavor, &message);
                // pve-http-server puts the error message in the reason phrase too
                // (pve-http-server src/PVE/APIServer/AnyEvent.pm, `error`).
                stream
                    .write_all(&response(&format!("401 {message}"), json, &body))
                    .await?;
            }
        }
        stream.flush().await?;
    }
    Ok(())
}

/// Cells that fail today because of a defect of the binary or of its client library, with what
/// the defect is. They are shown as KNOWN in the table, not hidden, and do not fail the test;
/// a KNOWN cell that passes shows as FIXED? so that its line here is removed.
const KNOWN_DEFECTS: &[(Binary, Scenario, &str)] = &[];

/// Why a scenario says nothing about a binary, if it does not.
fn not_applicable(binary: Binary, scenario: Scenario) -> Option<&'static str> {
    match (binary, scenario) {
        (Binary::VyosBackup, Scenario::UnknownEnum) => {
            Some("a backup reads configuration text, which has no server enum")
        }
        (Binary::VyosApply, Scenario::UnknownEnum) => {
            Some("a plan reads configuration text and the API schema, which have no server enum")
        }
        _ => None,
    }
}

/// A binary under test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Binary {
    Inventory,
    PbsReport,
    LinstorHealth,
    VyosBackup,
    VyosApply,
    Audit,
    Exporter,
    DriverUpdate,
}

const BINARIES: [Binary; 8] = [
    Binary::Inventory,
    Binary::PbsReport,
    Binary::LinstorHealth,
    Binary::VyosBackup,
    Binary::VyosApply,
    Binary::Audit,
    Binary::Exporter,
    Binary::DriverUpdate,
];

impl Binary {
    fn name(self) -> &'static str {
        match self {
            Self::Inventory => "inventory",
            Self::PbsReport => "pbs-report",
            Self::LinstorHealth => "linstor-health",
            Self::VyosBackup => "vyos-backup",
            Self::VyosApply => "vyos-apply",
            Self::Audit => "audit",
            Self::Exporter => "exporter",
            Self::DriverUpdate => "driver-update",
        }
    }

    fn exe(self) -> &'static str {
        match self {
            Self::Inventory => env!("CARGO_BIN_EXE_inventory"),
            Self::PbsReport => env!("CARGO_BIN_EXE_pbs-report"),
            Self::LinstorHealth => env!("CARGO_BIN_EXE_linstor-health"),
            Self::VyosBackup => env!("CARGO_BIN_EXE_vyos-backup"),
            Self::VyosApply => env!("CARGO_BIN_EXE_vyos-apply"),
            Self::Audit => env!("CARGO_BIN_EXE_audit"),
            Self::Exporter => env!("CARGO_BIN_EXE_exporter"),
            Self::DriverUpdate => env!("CARGO_BIN_EXE_driver-update"),
        }
    }

    /// The servers it talks to in this suite.
    fn flavors(self) -> &'static [Flavor] {
        match self {
            Self::Inventory | Self::Audit | Self::Exporter => &[Flavor::Proxmox],
            Self::PbsReport => &[Flavor::Pbs],
            Self::LinstorHealth => &[Flavor::Linstor],
            Self::VyosBackup | Self::VyosApply => &[Flavor::Vyos],
            Self::DriverUpdate => &[Flavor::Proxmox, Flavor::Linstor],
        }
    }

    /// Whether a run cut by its `--timeout` names what it was waiting for: the request and
    /// the server's address, as its other errors do (issue 37).
    fn names_what_it_waited_for(self) -> bool {
        matches!(
            self,
            Self::LinstorHealth | Self::Inventory | Self::PbsReport
        )
    }

    /// Whether its `--help` documents `--timeout`.
    fn documents_timeout(self) -> bool {
        let out = std::process::Command::new(self.exe())
            .arg("--help")
            .output()
            .expect("--help runs");
        String::from_utf8_lossy(&out.stdout).contains("--timeout")
    }
}

/// What one run printed, how it ended and how long it took.
struct Run {
    status: Option<i32>,
    /// stdout, stderr (each cut at [`KEPT`]), what the exporter served, what vyos-backup wrote.
    output: String,
    /// How many bytes it wrote on stdout and stderr together.
    printed: usize,
    elapsed: Duration,
}

/// How much of each of a run's streams is kept for the checks.
const KEPT: usize = 8 << 20;
/// The most a run may print: an error, even about a 200 MB answer, is a few lines.
const PRINTED_AT_MOST: usize = 1 << 20;

/// Reads `stream` to its end while the process runs (so that it never blocks on a full
/// pipe), keeping the first [`KEPT`] bytes; also how many bytes there were.
fn drain<R>(stream: Option<R>) -> tokio::task::JoinHandle<(Vec<u8>, usize)>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        let mut kept = Vec::new();
        let mut total = 0;
        let Some(mut stream) = stream else {
            return (kept, total);
        };
        let mut buf = vec![0_u8; 64 * 1024];
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
            total += n;
            let room = KEPT.saturating_sub(kept.len()).min(n);
            kept.extend_from_slice(&buf[..room]);
        }
        (kept, total)
    })
}

const CLEARED: [&str; 14] = [
    "PROXMOX_VE_ENDPOINT",
    "PROXMOX_VE_API_TOKEN",
    "PROXMOX_VE_USERNAME",
    "PROXMOX_VE_PASSWORD",
    "PROXMOX_VE_INSECURE",
    "PBS_REPOSITORY",
    "PBS_PASSWORD",
    "PBS_FINGERPRINT",
    "LS_CONTROLLERS",
    "LS_USERNAME",
    "LS_PASSWORD",
    "VYOS_URL",
    "VYOS_API_KEY",
    "KUBECONFIG",
];

/// The command line and environment that point `binary` at the fault servers (the second one
/// is driver-update's LINSTOR), its files under `dir`; and the exporter's port, for the exporter.
fn command_for(
    binary: Binary,
    servers: &[&FaultServer],
    dir: &std::path::Path,
) -> (tokio::process::Command, Option<u16>) {
    let url = |i: usize| servers[i].url.clone();
    let mut cmd = tokio::process::Command::new(binary.exe());
    for var in CLEARED {
        cmd.env_remove(var);
    }
    let host = url(0)
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let mut exporter_port = None;
    match binary {
        Binary::Inventory => {
            cmd.env("PROXMOX_VE_ENDPOINT", url(0)).env(
                "PROXMOX_VE_API_TOKEN",
                format!("{PVE_TOKEN_ID}={PVE_SECRET}"),
            );
        }
        Binary::PbsReport => {
            cmd.env("PBS_REPOSITORY", format!("report@pbs!ro@{host}:faultstore"))
                .env("PBS_PASSWORD", PBS_SECRET)
                .env("CPPS_PBS_URL", url(0));
        }
        Binary::LinstorHealth => {
            cmd.env("LS_CONTROLLERS", url(0))
                .env("LS_USERNAME", LS_USER)
                .env("LS_PASSWORD", LS_PASSWORD);
        }
        Binary::VyosBackup => {
            cmd.env("VYOS_URL", url(0))
                .env("VYOS_API_KEY", VYOS_KEY)
                .arg("--out")
                .arg(dir.join("backup"));
        }
        // Its default mode, the plan: reads only.
        Binary::VyosApply => {
            let file = dir.join("change.set");
            std::fs::write(&file, "set system domain-name 'example.net'\n").unwrap();
            cmd.env("VYOS_URL", url(0))
                .env("VYOS_API_KEY", VYOS_KEY)
                .arg("--commands")
                .arg(file);
        }
        Binary::Audit | Binary::Exporter | Binary::DriverUpdate => {
            let mut sp = format!(
                "sites:\n  sp:\n    proxmox:\n      url: {}\n      token_env: FAULT_PVE_TOKEN\n",
                url(0)
            );
            if binary == Binary::DriverUpdate {
                sp.push_str(&format!(
                    "    linstor:\n      controllers: {}\n      user: {LS_USER}\n      password_env: FAULT_LS_PASSWORD\n",
                    url(1)
                ));
            }
            let file = dir.join("endpoints.yaml");
            std::fs::write(&file, sp).unwrap();
            let topology: PathBuf = if binary == Binary::DriverUpdate {
                cmd.args(["--host", "pve-ippri-32", "--snapshot", "pre-driver-faults"]);
                repo("cpps-topology/tests/fixtures/live/driver-update.yaml")
            } else {
                repo("cpps-topology/tests/fixtures/live/two-sites.yaml")
            };
            cmd.arg("--topology")
                .arg(topology)
                .arg("--endpoints")
                .arg(&file)
                .env("FAULT_PVE_TOKEN", format!("{PVE_TOKEN_ID}={PVE_SECRET}"))
                .env("FAULT_LS_PASSWORD", LS_PASSWORD)
                .env_remove("CI");
            if binary == Binary::Exporter {
                let port = free_port();
                cmd.args([
                    "--listen",
                    &format!("127.0.0.1:{port}"),
                    "--interval",
                    "600",
                ]);
                exporter_port = Some(port);
            }
        }
    }
    (cmd, exporter_port)
}

/// Runs `binary` against the fault servers: what it printed, how it ended, how long it took.
async fn run_binary(binary: Binary, servers: &[&FaultServer], timeout_flag: bool) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let (mut cmd, exporter_port) = command_for(binary, servers, dir.path());
    let mut scraped_text = String::new();
    if timeout_flag {
        cmd.args(["--timeout", &TIMEOUT.as_secs().to_string()]);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let started = Instant::now();
    let mut child = cmd.spawn().expect("the binary runs");
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let (status, elapsed) = if let Some(port) = exporter_port {
        // The exporter serves until stopped: its run is the time to the first 200.
        let scraped = scrape(port, None, KILL_AFTER).await;
        let elapsed = started.elapsed();
        let _ = child.start_kill();
        scraped_text = scraped.as_ref().map(|s| s.text.clone()).unwrap_or_default();
        (scraped.map(|_| 0), elapsed)
    } else {
        match tokio::time::timeout(KILL_AFTER, child.wait()).await {
            Ok(status) => (status.ok().and_then(|s| s.code()), started.elapsed()),
            Err(_) => {
                let _ = child.start_kill();
                (None, started.elapsed())
            }
        }
    };
    let _ = child.wait().await;
    let (stdout, out_bytes) = stdout.await.unwrap();
    let (stderr, err_bytes) = stderr.await.unwrap();
    let mut output = String::from_utf8_lossy(&stdout).into_owned();
    output.push_str(&String::from_utf8_lossy(&stderr));
    output.push_str(&scraped_text);
    // What vyos-backup wrote is output too.
    if let Ok(entries) = std::fs::read_dir(dir.path().join("backup")) {
        for e in entries.flatten() {
            output.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    Run {
        status,
        output,
        printed: out_bytes + err_bytes,
        elapsed,
    }
}

/// The verdict of one cell: `None` when every assertion holds, else what failed.
/// Whether `output` names a request to the fault server: a method, then its URL on 127.0.0.1.
fn names_a_request(output: &str) -> bool {
    ["get http://127.0.0.1:", "get https://127.0.0.1:"]
        .iter()
        .any(|request| output.contains(request))
}

fn judge(
    scenario: Scenario,
    binary: Binary,
    run: &Run,
    servers: &[&FaultServer],
    timeout_flag: bool,
    baseline: &str,
) -> Vec<String> {
    let mut failed = Vec::new();
    let lower = run.output.to_lowercase();
    // An error is what the healthy run did not print: the evidence of a fault is looked for
    // in the lines that are new (so that a plan's own words cannot pass for an error).
    let seen_before: std::collections::BTreeSet<&str> = baseline.lines().collect();
    let new_lines: String = run
        .output
        .lines()
        .filter(|l| !seen_before.contains(l))
        .map(|l| format!("{}\n", l.to_lowercase()))
        .collect();
    let searched = match scenario {
        Scenario::Healthy | Scenario::Burst5xxThenSuccess | Scenario::UnknownEnum => &lower,
        _ => &new_lines,
    };
    if run.status == Some(101) || lower.contains("panicked at") {
        failed.push("panicked".to_owned());
    }
    let bound = if timeout_flag {
        TIMEOUT + MARGIN
    } else {
        KILL_AFTER
    };
    if run.elapsed > bound {
        failed.push(format!("took {:.1?} (bound {bound:?})", run.elapsed));
    }
    if run.printed > PRINTED_AT_MOST {
        failed.push(format!("printed {} bytes", run.printed));
    }
    if !scenario.evidence().iter().any(|e| searched.contains(e)) {
        failed.push(format!("no {:?} in the output", scenario.evidence()));
    }
    let silent = matches!(scenario, Scenario::NeverAnswer | Scenario::OneBytePerSecond);
    if silent && binary.names_what_it_waited_for() && !names_a_request(searched) {
        failed.push("the timeout names no request (method, server and path)".to_owned());
    }
    if scenario == Scenario::UnknownEnum {
        if lower.contains("unknown variant") {
            failed.push("rejected an unknown enum value".to_owned());
        }
        // Kept and never reported as healthy: shown as it came, or (the exporter, whose
        // series carry no status label) a guest in that state is not up.
        let kept = match binary {
            Binary::Exporter => run.output.contains(r#"pve_up{site="sp",id="qemu/900"} 0"#),
            // The plan reads only the GPU host's containers; CT 201 is running.
            Binary::DriverUpdate => lower.contains("(ct 201)"),
            _ => run.output.contains(UNKNOWN_VALUE),
        };
        if !kept {
            failed.push(format!(
                "the unknown value `{UNKNOWN_VALUE}` is neither shown nor treated as not healthy"
            ));
        }
    }
    for secret in secrets() {
        if run.output.contains(&secret) {
            failed.push(format!("printed the secret `{secret}`"));
        }
    }
    let max = cpps_http::RetryPolicy::default().max_attempts as usize;
    for (server, flavor) in servers.iter().zip(binary.flavors()) {
        let seen = server.seen();
        if let Some(w) = seen.iter().find(|s| flavor.is_write(&s.method, &s.path)) {
            failed.push(format!("sent a write: {} {}", w.method, w.target));
        }
        let mut per_target: BTreeMap<(String, String), usize> = BTreeMap::new();
        for s in &seen {
            *per_target
                .entry((s.method.clone(), s.target.clone()))
                .or_default() += 1;
        }
        for ((method, target), n) in per_target {
            // A redirect loop's Location is the same URL: a client that followed it would
            // show here too.
            if n > max {
                failed.push(format!("sent {method} {target} {n} times (at most {max})"));
            }
        }
    }
    failed
}

/// Writes what one run printed and every request it sent under `dump`, for reading after the
/// fact.
fn dump_run(
    dump: &std::path::Path,
    binary: Binary,
    scenario: Scenario,
    run: &Run,
    failed: &[String],
    servers: &[&FaultServer],
) {
    let requests: Vec<String> = servers
        .iter()
        .flat_map(|s| s.seen())
        .map(|s| format!("{} {}", s.method, s.target))
        .collect();
    std::fs::write(
        dump.join(format!(
            "{}-{}.txt",
            binary.name(),
            scenario.name().replace([' ', '/', ':'], "_")
        )),
        format!(
            "exit {:?} after {:.2?}\nfailed: {failed:?}\nrequests:\n  {}\noutput:\n{}",
            run.status,
            run.elapsed,
            requests.join("\n  "),
            run.output
        ),
    )
    .unwrap();
}

/// The table of results, scenario × binary, as Markdown.
fn result_table(rows: &BTreeMap<&str, Vec<String>>) -> String {
    let mut table = format!(
        "| scenario | {} |\n|---|",
        BINARIES.map(Binary::name).join(" | ")
    );
    table.push_str(&"---|".repeat(BINARIES.len()));
    table.push('\n');
    for scenario in std::iter::once(Scenario::Healthy).chain(SCENARIOS) {
        table.push_str(&format!(
            "| {} | {} |\n",
            scenario.name(),
            rows[scenario.name()].join(" | ")
        ));
    }
    table
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_binary_survives_every_fault() {
    let mut rows: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut known_seen = Vec::new();
    let mut details = Vec::new();
    // Everything each run printed and every request it sent, for reading after the fact.
    let dump = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("faults");
    std::fs::create_dir_all(&dump).unwrap();
    for binary in BINARIES {
        let timeout_flag = binary.documents_timeout();
        let mut baseline = String::new();
        for scenario in std::iter::once(Scenario::Healthy).chain(SCENARIOS) {
            if let Some(why) = not_applicable(binary, scenario) {
                rows.entry(scenario.name())
                    .or_default()
                    .push(format!("n/a: {why}"));
                continue;
            }
            let mut owned = Vec::new();
            for flavor in binary.flavors() {
                owned.push(FaultServer::start(scenario, *flavor).await);
            }
            let servers: Vec<&FaultServer> = owned.iter().collect();
            let run = run_binary(binary, &servers, timeout_flag).await;
            let failed = judge(scenario, binary, &run, &servers, timeout_flag, &baseline);
            if scenario == Scenario::Healthy {
                baseline.clone_from(&run.output);
            }
            dump_run(&dump, binary, scenario, &run, &failed, &servers);
            let known = KNOWN_DEFECTS
                .iter()
                .find(|(b, s, _)| *b == binary && *s == scenario)
                .map(|(_, _, why)| *why);
            let exit = run.status.map_or("-".to_owned(), |c| c.to_string());
            let cell = if failed.is_empty() && known.is_some() {
                format!("FIXED? {:.1}s exit {exit}", run.elapsed.as_secs_f64())
            } else if failed.is_empty() {
                format!("ok {:.1}s exit {exit}", run.elapsed.as_secs_f64())
            } else if let Some(why) = known {
                known_seen.push(format!(
                    "{} × {}: {why} (now: {})",
                    binary.name(),
                    scenario.name(),
                    failed.join("; ")
                ));
                format!("KNOWN {:.1}s", run.elapsed.as_secs_f64())
            } else if !timeout_flag {
                // This binary has no documented `--timeout` yet: its row is expected to fail,
                // and is shown, not hidden.
                format!("XFAIL {:.1}s", run.elapsed.as_secs_f64())
            } else {
                failures.push(format!(
                    "{} × {}: {}",
                    binary.name(),
                    scenario.name(),
                    failed.join("; ")
                ));
                format!("FAIL {:.1}s", run.elapsed.as_secs_f64())
            };
            if !failed.is_empty() {
                let excerpt: String = run.output.chars().take(600).collect();
                details.push(format!(
                    "--- {} × {} (exit {:?}): {}\n{excerpt}",
                    binary.name(),
                    scenario.name(),
                    run.status,
                    failed.join("; ")
                ));
            }
            rows.entry(scenario.name()).or_default().push(cell);
        }
    }
    let table = result_table(&rows);
    eprintln!(
        "fault suite (--timeout {}s, margin {}s):\n{table}",
        TIMEOUT.as_secs(),
        MARGIN.as_secs()
    );
    if !known_seen.is_empty() {
        eprintln!(
            "known defects (KNOWN cells):\n  {}",
            known_seen.join("\n  ")
        );
    }
    for d in &details {
        eprintln!("{d}");
    }
    eprintln!("every run's output and requests: {}", dump.display());
    assert!(
        failures.is_empty(),
        "{} cells failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
