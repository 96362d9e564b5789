//! How the `config.boot` and `set` readers scale with a leaf of many values (a firewall group of
//! 60,000 addresses once took 6.6 s in both): times for N and 10·N values, and whether 10× the
//! input costs at most 12× the time. A benchmark, not a test: `cargo bench -p cpps-vyos --bench
//! parse`. On a loaded machine wall time is noise; instruction counts are not:
//! `CPPS_VYOS_BENCH_ONLY=boot:6000 valgrind --tool=callgrind target/release/deps/parse-…` (and
//! `boot:60000`, `set:6000`, `set:60000`). Measured on 2026-12-01 (input generation included):
//! `config.boot` 32.3 M and 318.4 M instructions (9.9×), `set` 91.2 M and 907.8 M (10.0×).
#![allow(missing_docs)]

use std::time::{Duration, Instant};

use cpps_vyos::ConfigTree;

fn boot_text(n: usize) -> String {
    let mut s = String::from("firewall {\n    group {\n        address-group big {\n");
    for i in 0..n {
        s.push_str(&format!(
            "            address 10.{}.{}.{}\n",
            i >> 16,
            (i >> 8) & 255,
            i & 255
        ));
    }
    s.push_str("        }\n    }\n}\n");
    s
}

fn set_text(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "set firewall group address-group big address '10.{}.{}.{}'\n",
                i >> 16,
                (i >> 8) & 255,
                i & 255
            )
        })
        .collect()
}

/// The best of five runs, after one run that is not counted (so that the allocator has its
/// memory mapped and the large input is not charged for first-touch page faults).
fn time(f: impl Fn()) -> Duration {
    f();
    (0..5)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    // `CPPS_VYOS_BENCH_ONLY=boot:60000` (or `set:N`) parses once and prints nothing: for
    // instruction counts (`valgrind --tool=callgrind`), which a loaded machine cannot disturb.
    if let Ok(only) = std::env::var("CPPS_VYOS_BENCH_ONLY") {
        let (which, n) = only.split_once(':').unwrap_or((only.as_str(), "6000"));
        let n: usize = n.parse().unwrap_or(6_000);
        match which {
            "boot" => drop(ConfigTree::parse_boot(&boot_text(n)).unwrap()),
            _ => drop(ConfigTree::parse_set(&set_text(n)).unwrap()),
        }
        return;
    }
    // `CPPS_VYOS_BENCH_N` changes the smaller size (default 6,000; the larger is ten times it).
    let small: usize = std::env::var("CPPS_VYOS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6_000);
    let large = small * 10;
    for (name, make, parse) in [
        (
            "boot",
            boot_text as fn(usize) -> String,
            (|s: &str| ConfigTree::parse_boot(s).map(|_| ())) as fn(&str) -> Result<(), _>,
        ),
        ("set", set_text, |s: &str| {
            ConfigTree::parse_set(s).map(|_| ())
        }),
    ] {
        let (a, b) = (make(small), make(large));
        assert!(parse(&b).is_ok());
        let ta = time(|| parse(&a).unwrap());
        let tb = time(|| parse(&b).unwrap());
        let ratio = tb.as_secs_f64() / ta.as_secs_f64();
        println!("{name} {small} values: {:.1} ms", ta.as_secs_f64() * 1e3);
        println!("{name} {large} values: {:.1} ms", tb.as_secs_f64() * 1e3);
        println!(
            "{name} 10x input: {ratio:.1}x time (target <= 12x) {}",
            if ratio <= 12.0 { "PASS" } else { "MISS" }
        );
    }
}
