//! `exporter`: serves the live state of every site on `/metrics`, refreshed on an interval: the
//! five basic alerts of the documents (node down, LINSTOR degraded, DRBD desync, ArgoCD
//! out-of-sync, certificate expiring) as metrics naming their subject, PBS job states and
//! newest-backup age per guest, GPU health, and the audit's findings. Alerting rules for them:
//! `examples/alerts/cpps.rules.yml`. With `--kernel-log /dev/kmsg` (or a saved
//! `journalctl -k -b -o short-monotonic`), also the XID history of this host's GPUs since boot
//! (`cpps_gpu_xid_log_*`, read by `cpps_gpu::kernel_log`), with its alerts in
//! `examples/alerts/gpu-xid.rules.yml`. The history is judged by each GPU's current recovery
//! action as NVML reads it (`--nvml-library`), as gpu-health judges it: a GPU reset clears the
//! action without a log line, so the log alone cannot tell a recovered GPU.
//!
//! ```console
//! cargo run -p cpps-examples --bin exporter -- --endpoints endpoints.yaml --listen 127.0.0.1:9842
//! curl -s http://127.0.0.1:9842/metrics
//! ```
//!
//! Served by hyper (HTTP/1.1, keep-alive); the exposition is written by `prometheus-client`:
//! OpenMetrics text when the scraper asks for it (Prometheus does), the Prometheus text format
//! 0.0.4 otherwise. Until the first observation ends, `/metrics` answers 503. Each observation
//! is bounded by `--timeout`; the sources that failed are printed on stderr after each one.

use std::convert::Infallible;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use clap::Parser;
use cpps_examples::LiveTargets;
use cpps_gpu::nvml::{GpuSnapshot, GpuSource, NvmlSource};
use cpps_topology::live::endpoints::ClientOptions;
use cpps_topology::live::metrics::{Exposition, Metrics};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};
use http_body_util::Full;
use hyper::header::{ACCEPT, ALLOW, CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;

/// Serve the live state as Prometheus metrics.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(flatten)]
    live: LiveTargets,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9842")]
    listen: SocketAddr,
    /// Seconds between observations.
    #[arg(long, default_value_t = 60)]
    interval: u64,
    /// Seconds one observation may take, the first one included (so the first scrape answers
    /// 200 at most this long after start): every request to a server ends by then, and a
    /// source still unanswered is reported as down (`cpps_up 0`) with the reason on stderr.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// Read this host's kernel log at each observation for `NVRM: Xid` lines: `/dev/kmsg`
    /// (needs root or CAP_SYSLOG where `kernel.dmesg_restrict` is 1) or a text file. An empty
    /// log (inside a container, `/dev/kmsg` linked to `/dev/null`) is `cpps_gpu_xid_log_up 0`.
    #[arg(long, value_name = "PATH")]
    kernel_log: Option<PathBuf>,
    /// Refuse a kernel log larger than this many bytes (the read is an error, reported as
    /// `cpps_gpu_xid_log_up 0`, rather than a silently shortened history).
    #[arg(long, value_name = "BYTES", default_value_t = cpps_gpu::kernel_log::DEFAULT_CAP)]
    kernel_log_cap: usize,
    /// With `--kernel-log`: the NVML library to read each GPU's current recovery action from
    /// (`cpps_gpu_recovery_action`; a GPU whose action is None has no current XID lines).
    /// When it cannot be read, the history is judged by the log alone and stderr says why.
    #[arg(long, value_name = "PATH", default_value = cpps_gpu::nvml::DEFAULT_LIBRARY)]
    nvml_library: OsString,
}

/// NVML, opened at the first observation that can and then kept open: the last close of the
/// device shuts the adapter down when persistence mode is off (open-gpu-kernel-modules
/// `kernel-open/nvidia/nv.c` `nv_stop_device` → `nv_shutdown_adapter`), which an exporter
/// should not cause each minute.
type NvmlSlot = Arc<Mutex<Option<NvmlSource>>>;

/// This host's GPUs as NVML reads them now, or why they cannot be read (NVML is opened again
/// at the next observation then).
fn nvml_gpus(
    slot: &Mutex<Option<NvmlSource>>,
    library: &OsString,
) -> Result<Vec<GpuSnapshot>, String> {
    let mut guard = slot
        .lock()
        .map_err(|_| "an earlier NVML read panicked".to_owned())?;
    let source = match guard.take() {
        Some(source) => source,
        None => NvmlSource::open(Some(library)).map_err(|e| e.to_string())?,
    };
    let gpus = source.gpus().map_err(|e| e.to_string())?;
    *guard = Some(source);
    Ok(gpus)
}

/// The XID history families for `--kernel-log`, judged by NVML's current recovery actions,
/// and a line for the log when the log or NVML could not be read.
async fn xid_families(
    path: &Path,
    cap: usize,
    nvml: &NvmlSlot,
    library: &OsString,
) -> (String, Option<String>) {
    use cpps_gpu::kernel_log::{
        XidHistory, exposition_now, exposition_unreadable, read_kernel_log,
    };
    let (owned, nvml, library) = (path.to_owned(), nvml.clone(), library.clone());
    let read = tokio::task::spawn_blocking(move || {
        (read_kernel_log(&owned, cap), nvml_gpus(&nvml, &library))
    });
    match read.await {
        Ok((Ok(log), gpus)) => {
            let history = XidHistory::from_log(&log);
            match gpus {
                Ok(gpus) => (exposition_now(&history, &gpus), None),
                Err(e) => (
                    exposition_now(&history, &[]),
                    Some(format!("NVML ({e}): judged by the log alone")),
                ),
            }
        }
        Ok((Err(e), _)) => {
            let why = std::error::Error::source(&e).map_or(String::new(), |s| format!(": {s}"));
            (exposition_unreadable(), Some(format!("{e}{why}")))
        }
        Err(e) => (exposition_unreadable(), Some(e.to_string())),
    }
}

/// `encoded` with `families` added: before OpenMetrics' closing `# EOF`, or at the end.
fn with_families(encoded: String, families: &str) -> String {
    match encoded.strip_suffix("# EOF\n") {
        Some(body) => format!("{body}{families}# EOF\n"),
        None => encoded + families,
    }
}

/// The last observation, encoded in both expositions.
struct Scrape {
    openmetrics: Bytes,
    text: Bytes,
}

type Shared = Arc<RwLock<Option<Arc<Scrape>>>>;

fn plain(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// `GET /metrics` (and `HEAD`: hyper leaves out the body); anything else is 404 or 405.
fn respond<B>(request: &Request<B>, state: &Shared) -> Response<Full<Bytes>> {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut response = plain(StatusCode::METHOD_NOT_ALLOWED, "only GET and HEAD\n");
        response
            .headers_mut()
            .insert(ALLOW, HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match request.uri().path() {
        "/metrics" => {
            let scrape = state.read().ok().and_then(|s| s.clone());
            let Some(scrape) = scrape else {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the first observation is still running\n",
                );
            };
            let accept = request.headers().get(ACCEPT).and_then(|v| v.to_str().ok());
            let exposition = Exposition::negotiate(accept);
            let body = match exposition {
                Exposition::OpenMetrics => scrape.openmetrics.clone(),
                Exposition::PrometheusText => scrape.text.clone(),
            };
            let mut response = Response::new(Full::new(body));
            response.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(exposition.content_type()),
            );
            response
        }
        "/" => plain(StatusCode::OK, "cpps exporter: see /metrics\n"),
        _ => plain(StatusCode::NOT_FOUND, "not found\n"),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let loaded = cpps_topology::load_or_default(args.live.topology.as_deref());
    let topology = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
    };
    let lookup = |k: &str| std::env::var(k).ok();
    let timeout = Duration::from_secs(args.timeout.max(1));
    let client_options = ClientOptions::bounded_by(timeout);
    let sources = match args.live.endpoints(&topology, &lookup).and_then(|e| {
        e.sources_for(&topology, &client_options, &lookup)
            .map_err(|e| e.to_string())
    }) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("exporter: {e}");
            return ExitCode::from(2);
        }
    };
    let listener = match TcpListener::bind(args.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("exporter: cannot listen on {}: {e}", args.listen);
            return ExitCode::from(2);
        }
    };
    let addr = listener.local_addr().unwrap_or(args.listen);
    eprintln!("exporter: listening on http://{addr}/metrics");

    let state: Shared = Arc::new(RwLock::new(None));
    let refresh = {
        let state = state.clone();
        let options = ObserveOptions::new(8, timeout);
        let interval = Duration::from_secs(args.interval.max(1));
        let kernel_log = args.kernel_log.clone();
        let kernel_log_cap = args.kernel_log_cap;
        let (nvml, nvml_library): (NvmlSlot, _) = (Arc::default(), args.nvml_library.clone());
        async move {
            loop {
                let started = Instant::now();
                let observed = live::observe(&sources, &options).await;
                let audit = live::audit(&topology, &observed, &LiveOptions::default());
                let metrics = Metrics::new(&observed, Some(&audit.report));
                let (xids, xid_failure) = match &kernel_log {
                    Some(path) => xid_families(path, kernel_log_cap, &nvml, &nvml_library).await,
                    None => (String::new(), None),
                };
                let scrape = Scrape {
                    openmetrics: with_families(metrics.encode(Exposition::OpenMetrics), &xids)
                        .into(),
                    text: with_families(metrics.encode(Exposition::PrometheusText), &xids).into(),
                };
                // The log of an observation is written, in one piece, before a scrape can see
                // the observation: whoever reads the metrics can read why a source failed.
                eprint!("{}", observation_log(&observed, started, xid_failure));
                if let Ok(mut slot) = state.write() {
                    *slot = Some(Arc::new(scrape));
                }
                tokio::time::sleep(interval).await;
            }
        }
    };
    tokio::spawn(refresh);
    match serve(listener, state).await {}
}

/// What one observation says about each site's sources (answered, and why each failed) and
/// the XID history, as the lines printed to stderr.
fn observation_log(
    observed: &live::Observation,
    started: Instant,
    xid_failure: Option<String>,
) -> String {
    let mut log = String::new();
    for site in &observed.sites {
        let (configured, answered) = site.answered();
        log.push_str(&format!(
            "exporter: site {}: {answered}/{configured} sources answered in {:.1?}\n",
            site.site,
            started.elapsed()
        ));
        for failure in site.failures() {
            log.push_str(&format!("exporter:   {failure}\n"));
        }
    }
    if let Some(why) = xid_failure {
        log.push_str(&format!("exporter: XID history: {why}\n"));
    }
    log
}

/// Serves `/metrics` from the latest scrape in `state`, one task per connection, forever.
async fn serve(listener: TcpListener, state: Shared) -> Infallible {
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                eprintln!("exporter: accept: {e}");
                continue;
            }
        };
        let state = state.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                let response = respond(&request, &state);
                async move { Ok::<_, Infallible>(response) }
            });
            // A client that does not finish its request head in 10 s is dropped.
            let served = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(Duration::from_secs(10))
                .serve_connection(TokioIo::new(stream), service)
                .await;
            if let Err(e) = served {
                eprintln!("exporter: connection: {e}");
            }
        });
    }
}
