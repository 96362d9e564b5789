//! `cargo xtask bench decode`: decoding a large `/cluster/resources` answer into the typed model
//! versus into `serde_json::Value`.
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench decode -- [ENTRIES]
//! ```
//!
//! Builds an answer of `ENTRIES` (default 100 000) guests shaped like PVE 9's, then decodes it
//! alternately both ways, several rounds, and prints the medians and their ratio.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cpps_proxmox::types::ClusterResource;

#[derive(serde::Deserialize)]
struct Envelope<T> {
    data: T,
}

fn answer(entries: usize) -> String {
    let mut items = Vec::with_capacity(entries);
    for i in 0..entries {
        let vmid = 100 + i;
        let node = format!("pve-ippri-{:02}", i % 13 + 1);
        let kind = if i % 5 < 3 { "qemu" } else { "lxc" };
        items.push(serde_json::json!({
            "id": format!("{kind}/{vmid}"),
            "type": kind,
            "node": node,
            "vmid": vmid,
            "name": format!("guest-{vmid}"),
            "status": if i % 7 == 0 { "stopped" } else { "running" },
            "template": 0,
            "cpu": 0.0123,
            "maxcpu": 4,
            "mem": 1_073_741_824u64,
            "maxmem": 4_294_967_296u64,
            "disk": 0,
            "maxdisk": 34_359_738_368u64,
            "netin": 123_456_789u64,
            "netout": 987_654_321u64,
            "diskread": 11_111u64,
            "diskwrite": 22_222u64,
            "uptime": 86_400,
            "tags": "prod;web",
        }));
    }
    serde_json::json!({ "data": items }).to_string()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let entries: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let body = answer(entries);
    let rounds = 9;
    let mut typed = Vec::new();
    let mut untyped = Vec::new();
    for _ in 0..rounds {
        let started = Instant::now();
        let decoded: Envelope<Vec<ClusterResource>> =
            serde_json::from_str(black_box(&body)).expect("typed decode");
        assert_eq!(decoded.data.len(), entries);
        black_box(&decoded);
        typed.push(started.elapsed());
        drop(decoded);

        let started = Instant::now();
        let value: serde_json::Value =
            serde_json::from_str(black_box(&body)).expect("value decode");
        black_box(&value);
        untyped.push(started.elapsed());
        drop(value);
    }
    let typed = median(typed);
    let untyped = median(untyped);
    let ratio = typed.as_secs_f64() / untyped.as_secs_f64();
    println!("entries: {entries}");
    println!("body_bytes: {}", body.len());
    println!("typed_ms: {:.2}", typed.as_secs_f64() * 1e3);
    println!("value_ms: {:.2}", untyped.as_secs_f64() * 1e3);
    println!("ratio: {ratio:.3}");
    println!(
        "target decode typed/value <= 1: {}",
        if ratio <= 1.0 { "PASS" } else { "MISS" }
    );
}
