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
//! used). `CPPS_PBS_URL` replaces the API URL derived from the repository. Read-only unless
//! `--fix --apply`: `--fix` prints the plan of what would fix the report (run failed or overdue
//! sync/verify/prune jobs again, verify guests never verified) and changes nothing; with
//! `--apply` it runs the plan, each task waited on to its end.
//!
//! Every run ends within `--timeout` seconds (default 30): the client's deadline is set to it,
//! and what was read by then is reported. Each part that could not be read (a job list the
//! token may not see, an endpoint the server's release lacks, one datastore) is printed with
//! its error beside the rest; the report is then partial.
//!
//! Exit status: 0 when all is well; 1 when a guest's newest backup is older than the RPO or
//! failed verification (or has an unknown verification state), a job's last run failed, a
//! datastore could not be read, or the report is partial; 2 when the report could not be made
//! (configuration, or nothing answered within the timeout).

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_pbs::checks::{Sites, parse_duration};
use cpps_pbs::report::{self, ReportOptions};
use cpps_pbs::{ClientBuilder, Error};

/// Backup report of the Proxmox Backup Server in PBS_REPOSITORY.
///
/// Exit status: 0 all is well; 1 a problem was found (RPO breach, failed or unknown
/// verification, failed job, unreadable datastore) or the report is partial (some parts could
/// not be read; each is printed with its error); 2 the report could not be made.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The longest the whole run may take, in seconds: the client's deadline, and the end of
    /// the run; what was read by then is reported.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
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
    /// Print the plan of what would fix the report (run failed or overdue jobs, verify
    /// unverified guests); nothing is changed without --apply.
    #[arg(long)]
    fix: bool,
    /// With --fix: run the plan, waiting for each task to end.
    #[arg(long, requires = "fix")]
    apply: bool,
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

async fn run(args: &Args) -> Result<(bool, bool), Error> {
    let timeout = Duration::from_secs(args.timeout);
    let builder = ClientBuilder::from_env(&cpps_http::env::process_env)?
        .deadline(timeout)
        .request_timeout(timeout);
    let store = builder.repository().map(|r| r.store().to_string());
    let pbs = builder.build()?;
    let stores = (!args.all_datastores).then(|| store.into_iter().collect::<Vec<_>>());
    // Every part ends by the timeout; what was read by then is reported.
    let inventory = Box::pin(report::collect_within(
        &pbs,
        stores.as_deref(),
        Some(timeout),
    ))
    .await;
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
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        ),
    }
    for error in report.errors.iter().filter(|e| !e.not_supported) {
        eprintln!(
            "pbs-report: {} could not be read: {}",
            error.part, error.error
        );
    }
    let mut fix_failed = false;
    if args.fix {
        let plan = cpps_pbs::fix::plan(&report);
        if plan.is_empty() {
            println!("\nfix: nothing to do");
        } else if !args.apply {
            println!("\nfix plan (nothing changed; run again with --apply):");
            for action in &plan {
                println!("  {action}");
            }
        } else {
            println!("\nfix: applying {} action(s)", plan.len());
            let options = cpps_proxmox::family::WaitOptions::default()
                .timeout(Some(timeout))
                .intervals(Duration::from_millis(200), Duration::from_secs(2));
            for applied in cpps_pbs::fix::apply(&pbs, &plan, &options).await {
                match &applied.outcome {
                    Ok(status) => println!("  done: {} -> {status}", applied.action),
                    Err(error) => {
                        fix_failed = true;
                        println!("  FAILED: {}: {error}", applied.action);
                    }
                }
            }
        }
    }
    if inventory.datastores.is_empty() && report.is_partial() {
        // Not even the datastore list: there is no report to speak of.
        return Err(Error::Config {
            name: "PBS_REPOSITORY",
            reason: "names a server that answered none of the report's reads".to_owned(),
        });
    }
    Ok((report.is_failing() || fix_failed, report.is_partial()))
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match Box::pin(run(&args)).await {
        Ok((false, false)) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::from(1),
        Err(error) => {
            eprintln!("pbs-report: {}", report::error_chain(&error));
            ExitCode::from(2)
        }
    }
}
