//! The cpps side of `cargo xtask bench sweep`: one inventory sweep against a running fakepve.
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench sweep -- FAKEPVE_JSON [CONCURRENCY]
//! ```
//!
//! `FAKEPVE_JSON` is the file `xtask/env/fakepve.sh` (or the bench) writes: URL, CA file and API
//! token. The sweep is the same as proxmoxer's side (`xtask/bench/proxmoxer_sweep.py`): the
//! cluster's guests (`GET /cluster/resources?type=vm`) together with the HA status
//! (`GET /cluster/ha/status/current`), then every guest's config with at most `CONCURRENCY`
//! requests in flight over one connection pool. Prints `seconds: N`, `guests: N` and
//! `rounds: 2` (dependent request rounds: the critical path is `rounds × latency`).

use std::time::Instant;

use cpps_http::TlsMode;
use cpps_proxmox::Client;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let Some(info_path) = args.first() else {
        eprintln!("usage: sweep FAKEPVE_JSON [CONCURRENCY]");
        std::process::exit(2);
    };
    let concurrency: usize = args.get(1).and_then(|c| c.parse().ok()).unwrap_or(64);
    let info: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(info_path).expect("readable fakepve.json"))
            .expect("fakepve.json is JSON");
    let text = |key: &str| info[key].as_str().expect("fakepve.json field").to_owned();

    let started = Instant::now();
    let pve = Client::builder(text("url"))
        .api_token_str(&format!("{}={}", text("token_id"), text("token_secret")))
        .expect("token")
        .tls(TlsMode::ca_file(text("ca_file")))
        .build()
        .expect("client");
    let cluster = pve.cluster();
    let (guests, ha) = tokio::join!(pve.guests(), cluster.ha_status());
    let guests = guests.expect("guests");
    ha.expect("HA status");
    let total = guests.len();
    let configs = pve.guest_configs(guests, concurrency).await;
    let failed = configs.iter().filter(|(_, r)| r.is_err()).count();
    let elapsed = started.elapsed();
    assert_eq!(failed, 0, "every config must decode");
    println!("seconds: {:.6}", elapsed.as_secs_f64());
    println!("guests: {total}");
    println!("rounds: 2");
}
