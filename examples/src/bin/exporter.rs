//! `exporter`: serves the live state of every site on `/metrics` in the Prometheus text format,
//! refreshed on an interval: the five basic alerts of the documents (node down, LINSTOR
//! degraded, DRBD desync, ArgoCD out-of-sync, certificate expiring) as metrics naming their
//! subject, PBS job states and newest-backup age per guest, GPU health, and the audit's
//! findings. Alerting rules for them: `examples/alerts/cpps.rules.yml`.
//!
//! ```console
//! cargo run -p cpps-examples --bin exporter -- --endpoints endpoints.yaml --listen 127.0.0.1:9842
//! curl -s http://127.0.0.1:9842/metrics
//! ```
//!
//! A small HTTP/1.1 server on Tokio: `GET /metrics` only, one response per connection. Until
//! the first observation ends, `/metrics` answers 503.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::RwLock;

/// Serve the live state as Prometheus metrics.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The topology file (default: the embedded CPPS topology).
    #[arg(long)]
    topology: Option<PathBuf>,
    /// The endpoints file (default: the clients' environment variables, for `--site`).
    #[arg(long)]
    endpoints: Option<PathBuf>,
    /// The site the environment variables describe.
    #[arg(long)]
    site: Option<String>,
    /// The K3s cluster `KUBECONFIG` reaches, when using the environment.
    #[arg(long)]
    kube_cluster: Option<String>,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:9842")]
    listen: SocketAddr,
    /// Seconds between observations.
    #[arg(long, default_value_t = 60)]
    interval: u64,
    /// Seconds one observation may take.
    #[arg(long, default_value_t = 30)]
    deadline: u64,
}

type Shared = Arc<RwLock<Option<String>>>;

async fn respond(mut stream: TcpStream, metrics: Shared) -> std::io::Result<()> {
    let mut buf = vec![0_u8; 8192];
    let mut len = 0;
    // Read the request head (the body of a GET is ignored).
    loop {
        let n = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut buf[len..]))
            .await
            .map_err(|_| std::io::Error::from(std::io::ErrorKind::TimedOut))??;
        len += n;
        if n == 0 || buf[..len].windows(4).any(|w| w == b"\r\n\r\n") || len == buf.len() {
            break;
        }
    }
    let head = String::from_utf8_lossy(&buf[..len]);
    let mut parts = head.lines().next().unwrap_or("").split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let path = target.split('?').next().unwrap_or("");
    let (status, content_type, body) = match (method, path) {
        ("GET" | "HEAD", "/metrics") => match metrics.read().await.clone() {
            Some(text) => ("200 OK", "text/plain; version=0.0.4; charset=utf-8", text),
            None => (
                "503 Service Unavailable",
                "text/plain; charset=utf-8",
                "the first observation is still running\n".to_owned(),
            ),
        },
        ("GET" | "HEAD", "/") => (
            "200 OK",
            "text/plain; charset=utf-8",
            "cpps exporter: see /metrics\n".to_owned(),
        ),
        ("GET" | "HEAD", _) => (
            "404 Not Found",
            "text/plain; charset=utf-8",
            "not found\n".to_owned(),
        ),
        _ => (
            "405 Method Not Allowed",
            "text/plain; charset=utf-8",
            "only GET\n".to_owned(),
        ),
    };
    let mut response = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    if method != "HEAD" {
        response.push_str(&body);
    }
    stream.write_all(response.as_bytes()).await?;
    stream.shutdown().await
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let loaded = match &args.topology {
        Some(path) => cpps_topology::load_file(path),
        None => cpps_topology::try_default_topology(),
    };
    let topology = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprint!("{}", e.render());
            return ExitCode::from(2);
        }
    };
    let lookup = |k: &str| std::env::var(k).ok();
    let endpoints = match &args.endpoints {
        Some(path) => Endpoints::load(path),
        None => match (&args.site, topology.sites.as_slice()) {
            (Some(s), _) => Endpoints::from_env(s, args.kube_cluster.as_deref(), &lookup),
            (None, [only]) => {
                Endpoints::from_env(only.id.as_str(), args.kube_cluster.as_deref(), &lookup)
            }
            (None, _) => {
                eprintln!(
                    "exporter: the topology has several sites: give --endpoints, or --site for the environment variables"
                );
                return ExitCode::from(2);
            }
        },
    };
    let sources = match endpoints
        .and_then(|e| e.check_against(&topology).map(|()| e))
        .and_then(|e| e.sources(&ClientOptions::default(), &lookup))
    {
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

    let metrics: Shared = Arc::new(RwLock::new(None));
    let refresh = {
        let metrics = metrics.clone();
        let options = ObserveOptions {
            concurrency: 8,
            deadline: Duration::from_secs(args.deadline),
        };
        let interval = Duration::from_secs(args.interval.max(1));
        async move {
            loop {
                let observed = live::observe(&sources, &options).await;
                let audit = live::audit(&topology, &observed, &LiveOptions::default());
                let text = live::metrics::render(&observed, Some(&audit.report));
                *metrics.write().await = Some(text);
                tokio::time::sleep(interval).await;
            }
        }
    };
    tokio::spawn(refresh);
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let metrics = metrics.clone();
                tokio::spawn(async move {
                    if let Err(e) = respond(stream, metrics).await {
                        eprintln!("exporter: connection: {e}");
                    }
                });
            }
            Err(e) => eprintln!("exporter: accept: {e}"),
        }
    }
}
