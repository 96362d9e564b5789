//! `inventory`: the nodes and guests of a Proxmox VE cluster, with each container's privilege
//! and each guest's HA state. Read-only.
//!
//! ```text
//! inventory [--format text|json] [--concurrency N]
//! ```
//!
//! Configured like the bpg Terraform provider: `PROXMOX_VE_ENDPOINT` (`https://host:8006/`),
//! `PROXMOX_VE_API_TOKEN` (`user@realm!id=secret`) or `PROXMOX_VE_USERNAME` and
//! `PROXMOX_VE_PASSWORD`, and `PROXMOX_VE_CA_FILE` or `PROXMOX_VE_FINGERPRINT` (pin the node
//! certificate of a self-signed cluster), or `PROXMOX_VE_INSECURE=true` only when asked.
//!
//! JSON: `{"nodes":[{"node","status"}],"guests":[{"node","vmid","kind","name","status","privileged" (lxc),"ha"}]}`.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, ValueEnum};
use cpps_proxmox::inventory;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Json,
}

/// Lists the nodes and guests of a Proxmox VE cluster.
#[derive(Debug, Parser)]
#[command(name = "inventory", version)]
struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Container configurations read at once.
    #[arg(long, default_value_t = 8)]
    concurrency: usize,
}

async fn run(args: Args) -> anyhow::Result<()> {
    let client = inventory::builder_from_env(|k| std::env::var(k).ok())
        .context("reading the PROXMOX_VE_* configuration")?
        .build()
        .context("configuring the client")?;
    let report = inventory::collect(&client, args.concurrency)
        .await
        .context("reading the cluster")?;
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Format::Text => print!("{}", report.to_text()),
    }
    Ok(())
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(Args::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("inventory: {error:#}");
            ExitCode::FAILURE
        }
    }
}
