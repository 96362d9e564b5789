//! `pbs-report`: per datastore and per guest, the newest backup's age and verification, RPO
//! breaches, cross-site sync, and failed or overdue prune/sync/verify/GC jobs.
//!
//! ```console
//! PBS_REPOSITORY='report@pbs!ro@pbs-a.example:store1' PBS_PASSWORD=<token secret> \
//! PBS_FINGERPRINT=64:d3:… cargo run -p cpps-examples --bin pbs-report -- --rpo 26h \
//!     --site site-a --remote-site pbs-b=site-b
//! ```
//!
//! Configured as `proxmox-backup-client` is: `PBS_REPOSITORY`
//! (`[[user@realm!token]@]host[:port]:datastore`, port 8007 by default), `PBS_PASSWORD` (the
//! password, or the token secret when the repository names a token) and `PBS_FINGERPRINT`
//! (the server certificate's SHA-256 fingerprint; without it the system's trust store is
//! used). `CPPS_PBS_URL` replaces the API URL derived from the repository. Read-only: it
//! changes nothing.
//!
//! Exit status: 0 when all is well, 1 when a guest's newest backup is older than the RPO or
//! failed verification, a job's last run failed, or a datastore could not be read; 2 when the
//! report could not be made.

use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, ValueEnum};
use cpps_pbs::checks::{Sites, parse_duration};
use cpps_pbs::report::{self, ReportOptions};
use cpps_pbs::{PbsClient, PbsConfig};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Backup report of the Proxmox Backup Server in PBS_REPOSITORY.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Recovery-point objective: a newest backup older than this is a breach (`26h`, `1d12h`).
    #[arg(long, default_value = "26h", value_parser = parse_rpo)]
    rpo: Duration,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Report on every datastore the credentials can see, not only the repository's.
    #[arg(long)]
    all_datastores: bool,
    /// The site this PBS is in (to tell cross-site sync jobs from local ones).
    #[arg(long)]
    site: Option<String>,
    /// The site of a remote, by remote name or host: `pbs-b=site-b` (repeatable).
    #[arg(long = "remote-site", value_parser = parse_pair)]
    remote_sites: Vec<(String, String)>,
    /// A job whose next run is later than this is reported as overdue.
    #[arg(long, default_value = "1h", value_parser = parse_rpo)]
    overdue_grace: Duration,
}

fn parse_rpo(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| e.to_string())
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((remote, site)) if !remote.is_empty() && !site.is_empty() => {
            Ok((remote.to_owned(), site.to_owned()))
        }
        _ => Err(format!("`{text}` is not REMOTE=SITE")),
    }
}

async fn run(args: &Args) -> anyhow::Result<bool> {
    let config = PbsConfig::from_env()?;
    let pbs = PbsClient::from_config(&config)?;
    let stores = (!args.all_datastores).then(|| vec![config.repository.store().to_string()]);
    let inventory = report::collect(&pbs, stores.as_deref()).await?;
    let mut sites = match &args.site {
        Some(site) => Sites::new(site.clone()),
        None => Sites::unknown(),
    };
    for (remote, site) in &args.remote_sites {
        sites = sites.with_remote(remote.clone(), site.clone());
    }
    let mut options = ReportOptions::new(args.rpo)
        .sites(sites)
        .overdue_grace(args.overdue_grace);
    if let Some(stores) = stores {
        options = options.stores(stores);
    }
    let report = report::build(&inventory, jiff::Timestamp::now().as_second(), &options);
    match args.format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
    }
    Ok(report.is_failing())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match Box::pin(run(&args)).await {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(error) => {
            eprintln!("pbs-report: {}", report::error_chain(error.as_ref()));
            ExitCode::from(2)
        }
    }
}
