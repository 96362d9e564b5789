//! How the `config.boot` and `set` readers scale with a leaf of many values (a firewall group of
//! 60,000 addresses once took 6.6 s in both): after a second of warm-up, the fastest of five
//! samples (each at least 100 ms of runs; the sizes take turns within each round) at N, 10·N and
//! 100·N values in wall time and in the thread's CPU time, the ratios, and
//! whether 10× the input costs at most 12× the CPU time on the larger pair. A benchmark, not a
//! test: `cargo bench -p cpps-vyos --bench parse` (part of `cargo xtask bench parsers`). On a
//! loaded machine the time ratios move by half between runs; instruction counts do not: where
//! valgrind is installed the bench counts them itself (cachegrind, parse minus input
//! generation) at N and 10·N.
#![allow(missing_docs)]

use std::time::Duration;

use cpps_http::test_util::bench::{fastest_in_turns, instructions, print_scaling, warm_up};

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

fn main() {
    // `CPPS_VYOS_BENCH_ONLY=boot:60000` (or `set:N`) parses once and prints nothing; `gen-boot:N`
    // and `gen-set:N` only build the input: for instruction counts (`valgrind`), which a loaded
    // machine cannot disturb.
    if let Ok(only) = std::env::var("CPPS_VYOS_BENCH_ONLY") {
        let (which, n) = only.split_once(':').unwrap_or((only.as_str(), "6000"));
        let n: usize = n.parse().unwrap_or(6_000);
        match which {
            "boot" => drop(ConfigTree::parse_boot(&boot_text(n)).unwrap()),
            "gen-boot" => drop(std::hint::black_box(boot_text(n))),
            "gen-set" => drop(std::hint::black_box(set_text(n))),
            _ => drop(ConfigTree::parse_set(&set_text(n)).unwrap()),
        }
        return;
    }
    // `CPPS_VYOS_BENCH_N` changes the smallest size (default 6,000; then ten and a hundred
    // times it). The target is judged on the larger pair (60,000 -> 600,000 values by
    // default), where neither input with its tree fits the 4 MiB L2 cache, on CPU time; the
    // smaller pair, and instruction counts at it, are printed too.
    let small: usize = std::env::var("CPPS_VYOS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6_000);
    let sizes = [small, small * 10, small * 100];
    // `CPPS_VYOS_BENCH_PARSER=boot` (or `set`) runs that one only.
    let only_parser = std::env::var("CPPS_VYOS_BENCH_PARSER").ok();
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
        if only_parser.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let inputs: Vec<String> = sizes.iter().map(|&n| make(n)).collect();
        assert!(inputs.iter().all(|input| parse(input).is_ok()));
        warm_up(Duration::from_secs(1), &inputs, |input| {
            parse(input).unwrap()
        });
        let timed = fastest_in_turns(5, &inputs, |input| parse(input).unwrap());
        drop(inputs);
        for (n, sample) in sizes.iter().zip(&timed) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| {
                format!("{:.1} ms", c.as_secs_f64() * 1e3)
            });
            println!(
                "{name} {n} values: wall {:.1} ms, cpu {cpu}",
                sample.wall.as_secs_f64() * 1e3
            );
        }
        print_scaling(name, "values", &sizes, &timed, 12.0);
        let count = |n: usize| {
            instructions("CPPS_VYOS_BENCH_ONLY", &format!("{name}:{n}"))
                .zip(instructions(
                    "CPPS_VYOS_BENCH_ONLY",
                    &format!("gen-{name}:{n}"),
                ))
                .map(|(p, g)| p.saturating_sub(g))
        };
        match (count(sizes[0]), count(sizes[1])) {
            (Some(a), Some(b)) => println!(
                "{name} {} -> {} values: {a} and {b} instructions ({:.2}x)",
                sizes[0],
                sizes[1],
                b as f64 / a.max(1) as f64
            ),
            _ => println!("{name} instructions: valgrind is not installed"),
        }
    }
}
