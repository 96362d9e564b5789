//! Peak memory and time of the 100k-guest audit path: load a topology file, check it, render the
//! report. `cargo bench -p cpps-topology --bench audit_memory -- [GUESTS]`.
//!
//! The file is the embedded CPPS default with `GUESTS` (default 100 000) extra validated guests
//! spread over its named hosts, written in the file format itself, so the loader's span tracking
//! and diagnostics are part of what is measured. Peak memory is the process's high-water mark
//! (`VmHWM` in `/proc/self/status`), read after the report is rendered.

use std::fmt::Write as _;
use std::time::Instant;

use cpps_topology::report::Format;
use cpps_topology::{DEFAULT_TOPOLOGY_YAML, default_topology, load_str};

/// The process's peak resident set size in MiB, where Linux reports it.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

fn file_with_guests(guests: usize) -> String {
    let hosts: Vec<String> = default_topology()
        .hosts()
        .iter()
        .filter(|h| !h.placeholder)
        .map(|h| h.id.to_string())
        .collect();
    let mut extra = String::with_capacity(guests * 80);
    for i in 0..guests {
        let host = &hosts[i % hosts.len()];
        let kind = if i % 5 < 3 { "vm" } else { "lxc" };
        let _ = writeln!(
            extra,
            "  - {{ id: bench-{i}, host: {host}, kind: {kind}, state: validated }}"
        );
    }
    let marker = "\nguests:\n";
    let at = DEFAULT_TOPOLOGY_YAML
        .find(marker)
        .expect("the default file has a guests list")
        + marker.len();
    let mut text = String::with_capacity(DEFAULT_TOPOLOGY_YAML.len() + extra.len());
    text.push_str(&DEFAULT_TOPOLOGY_YAML[..at]);
    text.push_str(&extra);
    text.push_str(&DEFAULT_TOPOLOGY_YAML[at..]);
    text
}

fn main() {
    let guests: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    let text = file_with_guests(guests);
    let before = peak_rss_mib();
    let started = Instant::now();
    let topology = match load_str("bench.yaml", &text) {
        Ok(topology) => topology,
        Err(e) => {
            eprintln!("{}", e.render());
            std::process::exit(2);
        }
    };
    let loaded = started.elapsed();
    let report = cpps_topology::check::check(&topology);
    let checked = started.elapsed();
    let json = report.render(Format::Json);
    let rendered = started.elapsed();
    println!("guests: {}", topology.guests().len());
    println!("file_bytes: {}", text.len());
    println!("findings: {}", report.findings.len());
    println!("report_bytes: {}", json.len());
    println!("load_ms: {:.1}", loaded.as_secs_f64() * 1e3);
    println!("check_ms: {:.1}", (checked - loaded).as_secs_f64() * 1e3);
    println!("render_ms: {:.1}", (rendered - checked).as_secs_f64() * 1e3);
    if let Some(before) = before {
        println!("rss_before_load_mib: {before:.1}");
    }
    match peak_rss_mib() {
        Some(peak) => {
            println!("peak_rss_mib: {peak:.1}");
            println!(
                "target peak RSS < 300 MB: {}",
                if peak * 1.048_576 < 300.0 {
                    "PASS"
                } else {
                    "MISS"
                }
            );
        }
        None => println!("peak_rss_mib: unavailable (no /proc/self/status)"),
    }
}
