//! The cpps side of `cargo xtask bench sweep`: one inventory sweep, as `inventory` does it.
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench sweep -- SERVER_JSON [CONCURRENCY]
//! ```
//!
//! `SERVER_JSON` says where the server is (`url`, `ca_file`, `token_id`, `token_secret`: the
//! file `xtask/env/fakepve.sh` writes, or the bench's copy pointing at its static server). The
//! sweep is [`cpps_proxmox::inventory::collect`], the library call of the `inventory` binary:
//! the nodes, the cluster's guests, the HA resources and the rights on `/vms` at once, then every container's config
//! with at most `CONCURRENCY` requests in flight (default
//! [`cpps_proxmox::DEFAULT_CONCURRENCY`]) over one connection pool. proxmoxer's side
//! (`xtask/bench/proxmoxer_sweep.py`) makes the same reads. Prints `seconds: N` (from before
//! the client is built, so loading the trust store is counted), `guests: N`, `containers: N`,
//! `requests: N` and `concurrency: N`.

mod common;

use std::time::{Duration, Instant};

use cpps_http::TlsMode;
use cpps_proxmox::types::GuestKind;
use cpps_proxmox::{Client, inventory};

#[tokio::main]
async fn main() {
    let args = common::positional_args();
    let Some(info_path) = args.first() else {
        eprintln!("usage: sweep SERVER_JSON [CONCURRENCY]");
        std::process::exit(2);
    };
    let concurrency: usize = args
        .get(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(cpps_proxmox::DEFAULT_CONCURRENCY);
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(info_path).expect("readable server JSON"))
            .expect("the server file is JSON");
    let text = |key: &str| info[key].as_str().expect("server JSON field").to_owned();

    let started = Instant::now();
    let pve = Client::builder(text("url"))
        .api_token_str(&format!("{}={}", text("token_id"), text("token_secret")))
        .expect("token")
        .tls(TlsMode::ca_file(text("ca_file")))
        .build()
        .expect("client");
    let report = inventory::collect(&pve, concurrency, Some(Duration::from_secs(60))).await;
    let elapsed = started.elapsed();
    assert!(
        report.errors.is_empty(),
        "every part must be read: {:?}",
        report.errors
    );
    let containers = report
        .guests
        .iter()
        .filter(|g| g.kind == GuestKind::Lxc)
        .count();
    assert!(
        report
            .guests
            .iter()
            .filter(|g| g.kind == GuestKind::Lxc)
            .all(|g| g.privileged.is_some()),
        "every container's privilege must be known"
    );
    println!("seconds: {:.6}", elapsed.as_secs_f64());
    println!("guests: {}", report.guests.len());
    println!("containers: {containers}");
    // The list round: nodes, guests, HA resources and the rights on /vms
    // (`inventory::collect`).
    println!("requests: {}", containers + 4);
    println!("concurrency: {concurrency}");
}
