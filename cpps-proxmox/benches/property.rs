//! `cargo bench -p cpps-proxmox --bench property`: parse time of PVE property strings against
//! their number of keys, to show the parser is linear (issue 20: 30 000 keys took 3.2 s when
//! the duplicate check was quadratic).
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench property -- [KEYS]
//! ```
//!
//! Parses strings of `KEYS` (default 3 000) and ten times as many keys (30 000: the size issue
//! 20 measured), several rounds each,
//! and prints the fastest rounds, their ratio, and `PASS` when ten times the input takes at most
//! twelve times as long (`MISS` otherwise). A benchmark, not a test: it asserts nothing.

use std::hint::black_box;
use std::time::{Duration, Instant};

use cpps_proxmox::types::{PropertyString, Volume};

fn text(keys: usize) -> String {
    let mut out = String::from("local-lvm:vm-100-disk-0");
    for i in 0..keys {
        out.push_str(&format!(",key{i}=value{i}"));
    }
    out
}

/// The fastest round: on a shared machine the other rounds measure the neighbours too.
fn fastest(samples: Vec<Duration>) -> Duration {
    samples.into_iter().min().unwrap_or_default()
}

fn measure(text: &str, rounds: usize) -> (Duration, Duration) {
    let mut generic = Vec::with_capacity(rounds);
    let mut typed = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let started = Instant::now();
        black_box(PropertyString::parse(black_box(text)).expect("the bench text parses"));
        generic.push(started.elapsed());
        let started = Instant::now();
        black_box(
            black_box(text)
                .parse::<Volume>()
                .expect("the bench text parses"),
        );
        typed.push(started.elapsed());
    }
    (fastest(generic), fastest(typed))
}

fn main() {
    let keys: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(3_000);
    let small = text(keys);
    let large = text(keys * 10);
    let (small_generic, small_typed) = measure(&small, 51);
    let (large_generic, large_typed) = measure(&large, 11);
    for (name, small, large) in [
        ("PropertyString::parse", small_generic, large_generic),
        ("Volume::from_str", small_typed, large_typed),
    ] {
        let ratio = large.as_secs_f64() / small.as_secs_f64().max(1e-9);
        println!(
            "{name}: {keys} keys {small:?}, {} keys {large:?}, ratio {ratio:.1} (target <= 12): {}",
            keys * 10,
            if ratio <= 12.0 { "PASS" } else { "MISS" }
        );
    }
}
