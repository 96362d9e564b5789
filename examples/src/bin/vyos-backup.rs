//! `vyos-backup`: saves a VyOS router's configuration in `config.boot` and `set` forms, in a folder
//! of that router, named with the router's host name and the UTC time, and prints what changed
//! since that router's previous backup. Read-only towards the router (`POST /retrieve` and
//! `POST /show`).
//!
//! ```text
//! VYOS_URL=https://192.168.10.1 VYOS_API_KEY=… [VYOS_FINGERPRINT=AB:CD:…] vyos-backup --out DIR [--redact]
//!     [--config-version COMPONENTS --release RELEASE] [--timeout SECONDS]
//! ```
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use cpps_vyos::backup::{BackupOptions, backup};
use cpps_vyos::{ClientBuilder, Url};

/// Back up a VyOS router's configuration.
///
/// The router comes from the environment: VYOS_URL (the API root, e.g. https://192.168.10.1/),
/// VYOS_API_KEY (`service https api keys id … key …`) and VYOS_FINGERPRINT (SHA-256 of the
/// router's certificate, AB:CD:…; without it the system roots verify it).
///
/// Each router gets a folder below DIR, named after its address; the previous backup is the
/// newest one in that folder. Backup files are created with mode 0600 and the folders this
/// program creates with mode 0700: unless --redact is given, a backup holds every secret of the
/// router. The config.boot file is written as VyOS's `save` writes one (every value quoted and
/// escaped, so that VyOS loads and migrates it as it reads its own), followed by the
/// `// vyos-config-version:` footer of its saved configuration.
#[derive(Parser)]
#[command(name = "vyos-backup", version)]
struct Args {
    /// The folder for the backups (created when missing, mode 0700).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace secrets (keys, passwords, hashes, PSKs, SNMP communities, the password of
    /// commit-archive URLs) before writing; public keys are kept.
    #[arg(long)]
    redact: bool,
    /// The router's API URL (default: $VYOS_URL).
    #[arg(long, value_name = "URL")]
    url: Option<Url>,
    /// The configuration's syntax version (`bgp@5:interfaces@32:system@27`, the footer's
    /// `vyos-config-version` line), written as the footer only when the router's own cannot be
    /// read; without it such a backup has no footer, and VyOS would migrate it from version 0.
    #[arg(long, value_name = "COMPONENTS", requires = "release")]
    config_version: Option<String>,
    /// With --config-version: the release the version belongs to (`1.4.0`).
    #[arg(long, value_name = "RELEASE", requires = "config_version")]
    release: Option<String>,
    /// Seconds the whole run may take, every request and retry included; the run stops with an
    /// error when they are up.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let timeout = Duration::from_secs(args.timeout.max(1));
    let started = Instant::now();
    // What the router's client waits on, to name it if the time runs out.
    let activity = cpps_http::Activity::default();
    let outcome = tokio::time::timeout(timeout, run(&args, timeout, activity.clone())).await;
    match outcome {
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(e)) => {
            eprintln!("vyos-backup: {e:#}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!(
                "vyos-backup: gave up after {:.1} s (--timeout {}): {}",
                started.elapsed().as_secs_f64(),
                args.timeout,
                activity.snapshot()
            );
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args, timeout: Duration, activity: cpps_http::Activity) -> anyhow::Result<()> {
    let url = args.url.as_ref().map(Url::to_string);
    let lookup = |name: &str| match (name, &url) {
        (cpps_vyos::ENV_URL, Some(u)) => Some(u.clone()),
        _ => cpps_http::env::process_env(name),
    };
    // Each call ends within the run's time: one attempt may use it all, retries share it.
    let router = ClientBuilder::from_env(&lookup)
        .context("router settings")?
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .request_timeout(timeout)
        .deadline(timeout)
        .activity(activity)
        .build()
        .context("HTTP client")?;
    let mut opts = BackupOptions::new(&args.out);
    opts.redact = args.redact;
    if let (Some(components), Some(release)) = (&args.config_version, &args.release) {
        opts.version =
            Some(cpps_vyos::ConfigVersion::new(components, release).context("--config-version")?);
    }
    let report = backup(&router, &opts).await.context("backup")?;
    println!("saved {}", report.boot_file.display());
    println!("saved {}", report.set_file.display());
    match &report.footer {
        Some(footer) => println!(
            "footer: {}",
            footer
                .lines()
                .find(|l| l.contains("vyos-config-version") || l.contains("config-version"))
                .unwrap_or("(kept)")
        ),
        None => println!("footer: none"),
    }
    for w in &report.warnings {
        println!("warning: {w}");
    }
    match &report.previous {
        None => println!(
            "no previous backup of this router in {}",
            report.router_dir.display()
        ),
        Some(prev) if report.changes.is_empty() => println!("no change since {}", prev.display()),
        Some(prev) => {
            println!(
                "{} change(s) since {}:",
                report.changes.len(),
                prev.display()
            );
            for c in &report.changes {
                if args.redact {
                    println!("{c}");
                } else {
                    // The changes of an unredacted backup are printed with secrets hidden.
                    println!("{}", redacted_line(c));
                }
            }
        }
    }
    Ok(())
}

/// A command as text, its secret value and an SNMP community name hidden (same list as
/// `--redact`; `Command::redacted`).
fn redacted_line(c: &cpps_vyos::Command) -> String {
    c.redacted().to_string()
}
