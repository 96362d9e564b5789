//! `vyos-backup`: saves a VyOS router's configuration in `config.boot` and `set` forms, named with
//! the router's host name and the UTC time, and prints what changed since the previous backup in the
//! same folder. Read-only towards the router (one `POST /retrieve`).
//!
//! ```text
//! VYOS_URL=https://192.168.10.1 VYOS_API_KEY=… vyos-backup --out DIR [--redact]
//! ```
//!
//! TLS comes from cpps-http's variables: `CPPS_CA_FILE`, `CPPS_FINGERPRINT` (SHA-256 of the router's
//! certificate) or `CPPS_INSECURE=true`; without any, the system roots.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use cpps_http::{HttpClient, SecretString, TlsMode, Url};
use cpps_vyos::VyosClient;
use cpps_vyos::backup::{BackupOptions, backup};

/// Back up a VyOS router's configuration. (No `Debug`: it holds the API key.)
#[derive(Parser)]
#[command(name = "vyos-backup", version)]
struct Args {
    /// The folder for the backups (created when missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Replace secrets (keys, passwords, hashes, SNMP communities) before writing.
    #[arg(long)]
    redact: bool,
    /// The router's API URL.
    #[arg(long, env = "VYOS_URL", value_name = "URL")]
    url: Url,
    /// The API key (`service https api keys id … key …`).
    #[arg(long, env = "VYOS_API_KEY", hide_env_values = true, value_name = "KEY")]
    api_key: String,
    /// Seconds to wait for the router.
    #[arg(long, default_value_t = 30)]
    timeout: u64,
}

impl Args {
    fn api_key(&self) -> SecretString {
        SecretString::from(self.api_key.clone())
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vyos-backup: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(args: &Args) -> anyhow::Result<()> {
    let tls = TlsMode::from_env(
        &cpps_http::TlsVars::new()
            .ca_file("CPPS_CA_FILE")
            .fingerprint("CPPS_FINGERPRINT")
            .insecure("CPPS_INSECURE"),
        &cpps_http::env::process_env,
    )
    .context("TLS settings")?
        .unwrap_or(TlsMode::SystemRoots);
    let http = HttpClient::builder(args.url.clone())
        .tls(tls)
        .request_timeout(Duration::from_secs(args.timeout))
        .deadline(Duration::from_secs(args.timeout.saturating_mul(2)))
        .build()
        .context("HTTP client")?;
    let router = VyosClient::new(http, args.api_key());
    let mut opts = BackupOptions::new(&args.out);
    opts.redact = args.redact;
    let report = backup(&router, &opts).await.context("backup")?;
    println!("saved {}", report.boot_file.display());
    println!("saved {}", report.set_file.display());
    match &report.previous {
        None => println!("no previous backup in {}", args.out.display()),
        Some(prev) if report.changes.is_empty() => println!("no change since {}", prev.display()),
        Some(prev) => {
            println!(
                "{} change(s) since {}:",
                report.changes.len(),
                prev.display()
            );
            for c in &report.changes {
                println!("{c}");
            }
        }
    }
    Ok(())
}
