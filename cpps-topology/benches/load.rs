//! `cargo xtask bench load`: loading a topology file ([`cpps_topology::load::load_file`])
//! against serde-saphyr parsing the same file into a generic value (`serde_json::Value`, the
//! untyped value serde-saphyr supports), time and peak memory, at several file sizes: by default
//! the size of the real topology file (about 50 kB), ten times it, and the loader's cap
//! ([`cpps_topology::load::MAX_TOPOLOGY_BYTES`], 2 MiB; a larger file is refused unparsed).
//!
//! ```text
//! cargo bench -p cpps-topology --bench load -- [kB ...]        (default: 50 500 2000)
//! ```
//!
//! Each file is the embedded CPPS default with extra validated guests spread over its named
//! hosts (the shape of the `audit_memory` bench), grown until it reaches the size asked for.
//! Every parse runs in a child process of its own (this binary, `--child loader|value FILE`),
//! the two alternating, after one warm-up of each, so that each child's peak resident set
//! (`VmHWM`) is its parse's alone. A child reads the file and parses it, both timed; its peak
//! memory is `VmHWM` after the parse minus `VmRSS` before the file was read (the file's text is
//! part of it). Printed: median times, their ratio, peak memory, its multiple of the file size
//! and its bytes per guest (with the size of a [`Guest`] and of its [`Meta`], for the
//! breakdown the loader's documentation gives), and one `PASS`/`MISS` line per target and size:
//! the loader at most 1.5× the generic parse, and from 1 MB up its peak memory at most 8× the
//! file size (the bound the loader's documentation states; below that the peak is the
//! process's fixed few MiB). A benchmark, not a test: it asserts nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use cpps_http::test_util::bench::{status_kib, thread_cpu};
use cpps_topology::model::{Guest, Meta};
use cpps_topology::testing::default_of_size;

/// The loader's time may be at most this multiple of serde-saphyr's generic parse.
const TIME_TARGET: f64 = 1.5;
/// The loader's peak memory may be at most this multiple of the file's size (issue 19's target,
/// and the bound `cpps_topology::load`'s documentation states).
const MEMORY_TARGET: f64 = 8.0;
/// The memory target is judged from this file size up (the loader's cap is 2 MiB).
const MEMORY_TARGET_FROM_BYTES: usize = 1_000_000;

/// Seconds this thread has spent on a CPU: on a shared machine, wall time also counts the
/// waits for a core.
fn thread_cpu_seconds() -> Option<f64> {
    thread_cpu().map(|d| d.as_secs_f64())
}

/// One child's figures.
#[derive(Debug, Clone, Copy)]
struct Sample {
    seconds: f64,
    cpu_seconds: f64,
    peak_kib: u64,
    guests: u64,
}

/// The child: read and parse `file` once, print the figures, exit.
fn child(which: &str, file: &Path) -> ! {
    let before = status_kib("VmRSS:").unwrap_or(0);
    let cpu_started = thread_cpu_seconds();
    let started = Instant::now();
    // What was parsed stays alive until the process exits (`exit` runs no destructor): its
    // drop is not part of the parse.
    let (items, _parsed): (usize, Box<dyn std::any::Any>) = match which {
        "loader" => match cpps_topology::load::load_file(file) {
            Ok(topology) => (topology.guests().len(), Box::new(topology)),
            Err(e) => {
                eprintln!("{}", e.render());
                std::process::exit(2);
            }
        },
        _ => {
            let text = std::fs::read_to_string(file).expect("the bench file is readable");
            // The loader's budget (it raises serde-saphyr's node and event caps so that a
            // datacenter-sized file parses at all).
            let options = serde_saphyr::options! {
                budget: serde_saphyr::budget! {
                    max_nodes: 8_000_000,
                    max_events: 32_000_000,
                },
            };
            let value: serde_json::Value = serde_saphyr::from_str_with_options(&text, options)
                .unwrap_or_else(|e| {
                    eprintln!("serde-saphyr: {e}");
                    std::process::exit(2);
                });
            let guests = value["guests"].as_array().map_or(0, Vec::len);
            (guests, Box::new((value, text)))
        }
    };
    let seconds = started.elapsed().as_secs_f64();
    let cpu_seconds = cpu_started
        .zip(thread_cpu_seconds())
        .map_or(seconds, |(a, b)| b - a);
    let peak = status_kib("VmHWM:").unwrap_or(0);
    println!("seconds: {seconds}");
    println!("cpu_seconds: {cpu_seconds}");
    println!("peak_kib: {}", peak.saturating_sub(before));
    println!("guests: {items}");
    std::process::exit(0);
}

fn run_child(which: &str, file: &Path) -> Sample {
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let output = Command::new(exe)
        .args(["--child", which])
        .arg(file)
        .output()
        .expect("the bench runs itself");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{which} child failed: {}{}",
        text,
        String::from_utf8_lossy(&output.stderr)
    );
    let field = |name: &str| -> f64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("no `{name}` in `{text}`"))
    };
    Sample {
        seconds: field("seconds:"),
        cpu_seconds: field("cpu_seconds:"),
        peak_kib: field("peak_kib:") as u64,
        guests: field("guests:") as u64,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn verdict(pass: bool) -> &'static str {
    if pass { "PASS" } else { "MISS" }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, which, file, ..] = &args[..]
        && flag == "--child"
    {
        child(which, Path::new(file));
    }
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() {
        vec![50, 500, 2000]
    } else {
        sizes
    };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bench-load");
    std::fs::create_dir_all(&dir).expect("the bench's directory can be made");
    println!("load_size_of_guest_bytes: {}", size_of::<Guest>());
    println!("load_size_of_meta_bytes: {}", size_of::<Meta>());
    let mut targets = Vec::new();
    for kb in sizes {
        let (text, guests) = default_of_size(kb * 1_000);
        let file = dir.join(format!("topology-{kb}kb.yaml"));
        std::fs::write(&file, &text).expect("the bench file can be written");
        let file_bytes = text.len();
        drop(text);
        // More rounds where a round is short.
        let rounds = if kb <= 500 { 9 } else { 5 };
        run_child("loader", &file);
        run_child("value", &file);
        let (mut loader, mut value) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            loader.push(run_child("loader", &file));
            value.push(run_child("value", &file));
        }
        let seconds = |s: &[Sample]| median(s.iter().map(|s| s.seconds).collect());
        let cpu = |s: &[Sample]| median(s.iter().map(|s| s.cpu_seconds).collect());
        let peak_mib =
            |s: &[Sample]| median(s.iter().map(|s| s.peak_kib as f64).collect()) / 1024.0;
        let (loader_s, value_s) = (cpu(&loader), cpu(&value));
        let (loader_peak, value_peak) = (peak_mib(&loader), peak_mib(&value));
        let file_mib = file_bytes as f64 / (1024.0 * 1024.0);
        let name = format!("load_{kb}kb");
        println!("{name}_file_bytes: {file_bytes}");
        println!("{name}_guests: {guests}");
        println!("{name}_rounds: {rounds}");
        println!("{name}_loader_median_wall_s: {:.3}", seconds(&loader));
        println!("{name}_saphyr_value_median_wall_s: {:.3}", seconds(&value));
        println!("{name}_loader_median_cpu_s: {loader_s:.3}");
        println!("{name}_saphyr_value_median_cpu_s: {value_s:.3}");
        println!("{name}_loader_over_value: {:.2}", loader_s / value_s);
        println!("{name}_loader_peak_mib: {loader_peak:.1}");
        println!(
            "{name}_loader_peak_over_file: {:.2}",
            loader_peak / file_mib
        );
        let loaded = loader.first().map_or(0, |s| s.guests).max(1);
        println!(
            "{name}_loader_peak_bytes_per_guest: {:.0}",
            loader_peak * 1024.0 * 1024.0 / loaded as f64
        );
        println!("{name}_saphyr_value_peak_mib: {value_peak:.1}");
        println!(
            "{name}_saphyr_value_peak_over_file: {:.2}",
            value_peak / file_mib
        );
        targets.push(format!(
            "target {name} loader <= {TIME_TARGET}x serde-saphyr's generic parse ({:.2}x): {}",
            loader_s / value_s,
            verdict(loader_s <= TIME_TARGET * value_s)
        ));
        // Below a megabyte the peak is the process's fixed few MiB, not the file's.
        if file_bytes >= MEMORY_TARGET_FROM_BYTES {
            targets.push(format!(
                "target {name} loader peak memory <= {MEMORY_TARGET}x the file ({:.2}x): {}",
                loader_peak / file_mib,
                verdict(loader_peak <= MEMORY_TARGET * file_mib)
            ));
        }
    }
    for line in targets {
        println!("{line}");
    }
}
