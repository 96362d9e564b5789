//! `linstor-health`: nodes, storage pools and every resource with its DRBD health class.
//!
//! ```console
//! LS_CONTROLLERS=linstor+ssl://10.10.20.1,pve-ippri-11 cargo run -p cpps-examples --bin linstor-health -- --format json
//! ```
//!
//! Controllers and credentials come from the environment as golinstor reads them
//! (`LS_CONTROLLERS`, `LS_USERNAME`/`LS_PASSWORD`, `LS_BEARER_TOKEN_FILE`, `LS_ROOT_CA`/
//! `LS_ROOT_CA_FILE`, `LS_USER_CERTIFICATE`/`LS_USER_KEY` and their `_FILE` forms; see
//! `cpps_linstor::ClientBuilder::from_env`). Read-only: it changes nothing.
//!
//! `--timeout SECONDS` (default 30) bounds the whole run: it is the client's deadline, and the
//! run stops when it is spent, whatever the controllers do.
//!
//! Each resource shows its class as linstor-client would (a top layer other than DRBD is
//! "created", `INACTIVE` replicas are skipped, a group without `place_count` wants 2), its
//! replicas per site (`--site-property`, default `Aux/site`) and its risks.
//!
//! Exit status: 0 when all is well (pools low on space and risks are reported but do not fail), 1 when a
//! resource is degraded, desynced, disconnected or unknown, or a node is evicted or offline,
//! 2 when the controllers could not be asked within the timeout.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use cpps_linstor::ClientBuilder;
use cpps_linstor::health::{self, HealthOptions};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// LINSTOR and DRBD health from the controllers in LS_CONTROLLERS.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// A pool with less free space than this fraction is reported as running out of space.
    #[arg(long, default_value_t = 0.10, value_parser = parse_fraction)]
    low_space: f64,
    /// The node property that names a node's site; each resource lists its replicas per site
    /// and the risks of its placement (all in one failure domain, no tie-breaker, cross-site
    /// replication, a quorum policy unlike its group's).
    #[arg(long, value_name = "KEY", default_value = health::DEFAULT_SITE_PROPERTY)]
    site_property: String,
    /// The longest the whole run may take, in seconds (connecting, every request, fail-over to
    /// the next controller); when it is spent the run stops with exit status 2.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

async fn run(args: &Args) -> anyhow::Result<bool> {
    let timeout = Duration::from_secs(args.timeout);
    let client = ClientBuilder::from_env(&cpps_http::env::process_env)?
        .deadline(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(5)))
        .request_timeout(timeout.min(Duration::from_secs(30)))
        .build()?;
    // The client's deadline bounds each call on one controller; this bounds the whole run,
    // fail-over included.
    let state = tokio::time::timeout(timeout, client.cluster_state())
        .await
        .map_err(|_| {
            anyhow::anyhow!(
                "no complete answer from the LINSTOR controllers within --timeout {}s",
                args.timeout
            )
        })??;
    let report = health::assess(
        &state,
        &HealthOptions {
            pool_low_free_fraction: args.low_space,
            site_property: args.site_property.clone(),
            ..HealthOptions::default()
        },
    );
    match args.format {
        Format::Text => print!("{}", health::render_text(&report)),
        Format::Json => {
            let json = serde_json::json!({
                "controller": client.active_controller().as_str(),
                "alerts": report.has_alerts(),
                "pool_warnings": report.has_pool_warnings(),
                "risks": report.has_risks(),
                "report": report,
            });
            println!("{}", serde_json::to_string_pretty(&json)?);
        }
    }
    Ok(report.has_alerts())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(e) => {
            eprintln!("linstor-health: {e:#}");
            ExitCode::from(2)
        }
    }
}
