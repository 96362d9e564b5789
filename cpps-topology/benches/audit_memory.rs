//! Peak memory and time of the audit path: load a topology file, check it, render the report.
//! `cargo bench -p cpps-topology --bench audit_memory -- [GUESTS]`.
//!
//! The file is the embedded CPPS default with `GUESTS` (default 6 000: ten times a 600-guest
//! site, well inside the loader's 2 MiB cap, `load::MAX_TOPOLOGY_BYTES`) extra validated guests
//! spread over its named hosts, written in the file format itself, so the loader's span tracking
//! and diagnostics are part of what is measured. Peak memory is the process's high-water mark
//! (`VmHWM` in `/proc/self/status`), read after the report is rendered.

use std::time::Instant;

use cpps_http::test_util::bench::status_kib;
use cpps_topology::load_str;
use cpps_topology::report::Format;
use cpps_topology::testing::default_with_guests;

/// The process's peak resident set size in MiB, where Linux reports it.
fn peak_rss_mib() -> Option<f64> {
    status_kib("VmHWM:").map(|kib| kib as f64 / 1024.0)
}

fn main() {
    let guests: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(6_000);
    let text = default_with_guests(guests);
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
