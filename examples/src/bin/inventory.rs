//! `inventory`: the nodes and guests of a Proxmox VE cluster, with each container's privilege
//! and each guest's HA state. Read-only.
//!
//! ```text
//! inventory [--format text|json] [--concurrency N] [--timeout SECONDS]
//! ```
//!
//! Configured like the bpg Terraform provider (`cpps_proxmox::ClientBuilder::from_env`):
//! `PROXMOX_VE_ENDPOINT` (`https://host:8006/`), `PROXMOX_VE_API_TOKEN`
//! (`user@realm!id=secret`; it wins over user and password) or `PROXMOX_VE_USERNAME` and
//! `PROXMOX_VE_PASSWORD`, and `PROXMOX_VE_CA_FILE` or `PROXMOX_VE_FINGERPRINT` (pin the node
//! certificate of a self-signed cluster), or `PROXMOX_VE_INSECURE=true` only when asked.
//!
//! JSON: `{"nodes":[{"node","status"}],"guests":[{"node","vmid","kind","name","status","privileged" (lxc),"ha"}],"errors":[{"part","error","status","not_supported"}],"guests_trimmed"}`:
//! `guests_trimmed` is `null`, or why the guest list may leave guests out (PVE skips, silently,
//! each guest the credentials may not audit; the inventory is then partial, exit 1).
#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use cpps_examples::Format;
use cpps_proxmox::ClientBuilder;
use cpps_proxmox::inventory::{self, Completeness};

/// Lists the nodes and guests of a Proxmox VE cluster.
///
/// A part that cannot be read (the HA resources for a token without Sys.Audit on /, the
/// configuration of a container on an offline node) is printed with its error beside the
/// rest.
///
/// Exit status: 0 everything was read; 1 partial (some parts could not be read, or the guest
/// list may leave out guests the credentials may not audit; each is printed with why); 2
/// nothing could be read, or the configuration is wrong.
#[derive(Debug, Parser)]
#[command(name = "inventory", version)]
struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Container configurations read at once (one connection each; the library's
    /// `cpps_proxmox::DEFAULT_CONCURRENCY`, which says what the bound trades off).
    #[arg(long, default_value_t = cpps_proxmox::DEFAULT_CONCURRENCY)]
    concurrency: usize,
    /// The longest the whole run may take, in seconds: the client's deadline, and the end of
    /// the run; what was read by then is printed.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
}

async fn run(args: Args) -> anyhow::Result<Completeness> {
    let timeout = Duration::from_secs(args.timeout);
    let client = ClientBuilder::from_env(&cpps_http::env::process_env)
        .context("reading the PROXMOX_VE_* configuration")?
        .deadline(timeout)
        .request_timeout(timeout)
        .build()
        .context("configuring the client")?;
    let report = inventory::collect(&client, args.concurrency, Some(timeout)).await;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Text => print!("{}", report.to_text()),
    }
    for e in &report.errors {
        eprintln!("inventory: {} could not be read: {}", e.part, e.error);
    }
    // The exit status says partial; this says why, as each unread part does.
    if let Some(why) = &report.guests_trimmed {
        eprintln!("inventory: the guest list may leave out guests: {why}");
    }
    Ok(report.completeness())
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(Completeness::Complete) => ExitCode::SUCCESS,
        Ok(Completeness::Partial) => ExitCode::from(1),
        Ok(_) => ExitCode::from(2),
        Err(error) => {
            eprintln!("inventory: {error:#}");
            ExitCode::from(2)
        }
    }
}
