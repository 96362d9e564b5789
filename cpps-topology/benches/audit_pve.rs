//! The cpps side of the two-site leg of `cargo xtask bench sweep`: `audit`'s Proxmox VE phase.
//!
//! ```text
//! cargo bench -p cpps-topology --features live --bench audit_pve -- SERVER_JSON...
//! ```
//!
//! Each `SERVER_JSON` (the files of `cargo xtask bench sweep`: `url`, `ca_file`, `token_id`,
//! `token_secret`) is one site's Proxmox VE. The sites are observed at once, as `audit` does:
//! [`cpps_topology::live::observe`] over one [`PveSource`] per site, each with its own client
//! and pool, at the default bound (`ClientOptions::default().concurrency`). Per site that is the
//! list round (nodes, guests, HA resources, the rights on `/vms`, the backup chain's storages
//! and jobs) and one fan-out round (the chain's pools, task lists with their logs and rights,
//! every online node's status, every container's config). Prints `seconds: N` (from before the clients are built),
//! `guests: N`, `requests: N` and `concurrency: N`; every site must be read completely.

use std::time::{Duration, Instant};

use cpps_http::TlsMode;
use cpps_proxmox::Client;
use cpps_topology::live::endpoints::ClientOptions;
use cpps_topology::live::facts::PveGuestKind;
use cpps_topology::live::sources::{PveSource, Sources};
use cpps_topology::live::{self, ObserveOptions};

#[tokio::main]
async fn main() {
    let paths: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    if paths.is_empty() {
        eprintln!("usage: audit_pve SERVER_JSON...");
        std::process::exit(2);
    }
    let concurrency = ClientOptions::default().concurrency;
    let started = Instant::now();
    let mut sources = Sources::default();
    for (index, path) in paths.iter().enumerate() {
        let info: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).expect("readable server JSON"))
                .expect("the server file is JSON");
        let text = |key: &str| info[key].as_str().expect("server JSON field").to_owned();
        let client = Client::builder(text("url"))
            .api_token_str(&format!("{}={}", text("token_id"), text("token_secret")))
            .expect("token")
            .tls(TlsMode::ca_file(text("ca_file")))
            .build()
            .expect("client");
        sources.site_mut(&format!("site{index}")).proxmox =
            Some(Box::new(PveSource::new(client, text("url"), concurrency)));
    }
    let mut options = ObserveOptions::default();
    options.concurrency = paths.len();
    options.deadline = Duration::from_secs(60);
    let observation = live::observe(&sources, &options).await;
    let elapsed = started.elapsed();
    let (mut guests, mut requests) = (0, 0);
    for site in &observation.sites {
        let facts = site
            .proxmox
            .observed()
            .unwrap_or_else(|| panic!("{} must be observed: {:?}", site.site, site.proxmox));
        assert!(
            facts.partial.is_empty(),
            "{} must be read completely: {:?}",
            site.site,
            facts.partial
        );
        let containers = facts
            .guests
            .iter()
            .filter(|g| g.kind == PveGuestKind::Lxc)
            .count();
        let online = facts.nodes.iter().filter(|n| n.online).count();
        guests += facts.guests.len();
        // The sweep's part (nodes, guests, HA resources, the rights on /vms, node statuses,
        // configs); the server counts the chain's, which depend on its answers.
        requests += 4 + online + containers;
    }
    println!("seconds: {:.6}", elapsed.as_secs_f64());
    println!("guests: {guests}");
    println!("requests: {requests}");
    println!("concurrency: {concurrency}");
}
