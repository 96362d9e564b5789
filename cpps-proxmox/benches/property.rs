//! `cargo bench -p cpps-proxmox --bench property` (part of `cargo xtask bench parsers`): parse
//! time of PVE property strings against their number of keys, to show the parser is linear
//! (issue 20: 30 000 keys took 3.2 s when the duplicate check was quadratic).
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench property -- [KEYS]
//! ```
//!
//! Runs itself twice, once with glibc's allocator as it comes and once with glibc keeping freed
//! memory (see `KEEP_FREED_MEMORY`), and in each run parses strings of `KEYS` (default 3 000),
//! ten and a hundred times as many keys. For each size it prints the fastest of nine samples
//! (each at least 100 ms of runs; the sizes take turns within each round, so a neighbour's
//! burst on a shared machine slows all sizes alike) in wall time and in the thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`: a shared machine's waits for a core are not the parser's) and
//! the page faults a parse takes, then the ratios of consecutive sizes and one `PASS`/`MISS` line
//! per parser and allocator setting: ten times the input at most twelve times the CPU time,
//! judged on the larger pair (30 000 → 300 000 keys by default; the smaller pair is printed
//! too). Every part has the same length, so ten times the keys is ten times the bytes, and the
//! keys come in no order, so `Volume` sorts them.
//!
//! The parser touches about 74 bytes a key (the text, read once, its copy, 16 bytes of offsets, a
//! 4-byte hash and 1.5 bytes of Bloom filter) and `Volume` sorts those offsets in place: 30 000
//! keys stay in a core's 2 MiB L2 cache between runs, 300 000 keys stream from the shared L3;
//! `-- 30000` judges 300 000 → 3 000 000 keys, both past the L2 (and past the 32 MiB above which
//! glibc maps every block anew, whatever its settings). On a shared machine these ratios move by
//! half between runs (the neighbours' use of the shared cache and memory bandwidth); instruction
//! counts do not: where valgrind is installed the bench counts them (cachegrind,
//! `CPPS_PROPERTY_BENCH_ONLY=parse:N` minus `gen:N`, the input's generation; `generic:N` and
//! `typed:N` run one parser) at `KEYS` and ten times it. A benchmark, not a test: it asserts
//! nothing.

use std::hint::black_box;

use std::time::Duration;

use cpps_http::test_util::bench::{
    fastest_in_turns, instructions, minor_faults, print_scaling, warm_up,
};

use cpps_proxmox::types::{PropertyString, Volume};

/// A volume with `keys` other keys, each part the same length (numbers written with eight
/// digits), so that ten times the keys is ten times the bytes; the keys come in no order
/// (`i × 7 919 mod keys`: a string PVE wrote has them sorted, which the parser sees in one
/// pass, so this measures the sort a string in no order needs).
fn text(keys: usize) -> String {
    use std::fmt::Write;
    let mut out = String::from("local-lvm:vm-100-disk-0");
    for i in 0..keys {
        let k = i * 7_919 % keys;
        write!(out, ",key{k:08}=value{k:08}").expect("writing to a String");
    }
    out
}

fn parse_generic(text: &str) {
    black_box(PropertyString::parse(black_box(text)).expect("the bench text parses"));
}

fn parse_typed(text: &str) {
    black_box(
        black_box(text)
            .parse::<Volume>()
            .expect("the bench text parses"),
    );
}

/// Names the allocator settings a timed run has (set for the runs this bench starts itself).
const ALLOCATOR_ENV: &str = "CPPS_PROPERTY_BENCH_ALLOCATOR";

/// glibc's settings that keep freed memory in the process: with its defaults, glibc gives
/// memory back to the kernel when more than twice the largest block freed so far lies free at
/// the top of the heap, and the next parse then takes every page anew (a page fault each); a
/// parse's blocks stay under that (the `Volume` sort needs no block of its own), but other
/// allocations of a process may not. With these, both sizes run on memory the process holds
/// already, as a long-running one would.
const KEEP_FREED_MEMORY: &str =
    "glibc.malloc.trim_threshold=4294967295:glibc.malloc.mmap_threshold=33554432";

/// Times both parsers at `keys`, ten and a hundred times as many, printing each size's fastest
/// sample, its page faults a parse, and the scaling verdicts, each line naming `allocator`.
fn timed_runs(keys: usize, allocator: &str) {
    let sizes = [keys, keys * 10, keys * 100];
    let inputs: Vec<String> = sizes.iter().map(|&n| text(n)).collect();
    let parsers = [
        ("PropertyString::parse", parse_generic as fn(&str)),
        ("Volume::from_str", parse_typed),
    ];
    for (_, parse) in parsers {
        warm_up(Duration::from_secs(1), &inputs, |input| parse(input));
    }
    for (parser, parse) in parsers {
        let name = format!("{parser} ({allocator})");
        let timed = fastest_in_turns(9, &inputs, |input| parse(input));
        for ((n, sample), input) in sizes.iter().zip(&timed).zip(&inputs) {
            let cpu = sample.cpu.map_or("-".to_owned(), |c| format!("{c:?}"));
            let faults =
                faults_a_parse(|| parse(input)).map_or("-".to_owned(), |f| format!("{f:.0}"));
            println!(
                "{name} {n} keys: wall {:?}, cpu {cpu}, page faults a parse {faults}",
                sample.wall
            );
        }
        print_scaling(&name, "keys", &sizes, &timed, 12.0);
    }
}

/// The page faults of one call of `parse`, averaged over a few after a first one.
fn faults_a_parse(mut parse: impl FnMut()) -> Option<f64> {
    parse();
    let before = minor_faults()?;
    for _ in 0..3 {
        parse();
    }
    Some((minor_faults()? - before) as f64 / 3.0)
}

fn main() {
    // `CPPS_PROPERTY_BENCH_ONLY=parse:N` (generic and typed), `generic:N`, `typed:N` or `gen:N`
    // (the input only) runs once and prints nothing: for instruction counts.
    if let Ok(only) = std::env::var("CPPS_PROPERTY_BENCH_ONLY") {
        let (what, n) = only.split_once(':').unwrap_or(("parse", only.as_str()));
        let input = text(n.parse().unwrap_or(3_000));
        if matches!(what, "parse" | "generic") {
            parse_generic(&input);
        }
        if matches!(what, "parse" | "typed") {
            parse_typed(&input);
        }
        black_box(input);
        return;
    }
    let keys: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(3_000);
    match std::env::var(ALLOCATOR_ENV) {
        Ok(allocator) => timed_runs(keys, &allocator),
        Err(_) => {
            // This bench again, once with glibc's defaults and once with freed memory kept.
            for (allocator, tunables) in [
                ("glibc defaults", None),
                ("freed memory kept", Some(KEEP_FREED_MEMORY)),
            ] {
                let mut run = std::process::Command::new(
                    std::env::current_exe().expect("the bench knows its own path"),
                );
                run.args(std::env::args().skip(1))
                    .env(ALLOCATOR_ENV, allocator);
                match tunables {
                    Some(tunables) => run.env("GLIBC_TUNABLES", tunables),
                    None => run.env_remove("GLIBC_TUNABLES"),
                };
                match run.status() {
                    Ok(status) if status.success() => {}
                    other => println!("{allocator}: the timed run failed: {other:?}"),
                }
            }
            let count = |what: &str, n: usize| {
                instructions("CPPS_PROPERTY_BENCH_ONLY", &format!("{what}:{n}"))
            };
            let counted = [keys, keys * 10].map(|n| {
                count("parse", n)
                    .zip(count("gen", n))
                    .map(|(p, g)| p.saturating_sub(g))
            });
            match counted {
                [Some(small), Some(large)] => println!(
                    "parsers {keys} -> {} keys: {small} and {large} instructions ({:.2}x)",
                    keys * 10,
                    large as f64 / small.max(1) as f64
                ),
                _ => println!("instructions: valgrind is not installed"),
            }
        }
    }
}
