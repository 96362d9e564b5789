//! `cargo bench -p cpps-proxmox --bench property` (part of `cargo xtask bench parsers`): parse
//! time of PVE property strings against their number of keys, to show the parser is linear
//! (issue 20: 30 000 keys took 3.2 s when the duplicate check was quadratic).
//!
//! ```text
//! cargo bench -p cpps-proxmox --bench property -- [KEYS]
//! ```
//!
//! Parses strings of `KEYS` (default 3 000), ten and a hundred times as many keys, and prints
//! for each size the fastest sample (each at least 100 ms of runs) in wall time and in the
//! thread's CPU time (`/proc/thread-self/schedstat`: a shared machine's waits for a core are not
//! the parser's), the ratios of consecutive sizes, and one `PASS`/`MISS` line per parser: ten
//! times the input at most twelve times the CPU time, judged on the larger pair (30 000 →
//! 300 000 keys by default), where neither size fits the 4 MiB L2 cache (the smaller pair is
//! printed too). On a shared machine these ratios move by half between runs (the neighbours'
//! use of the shared cache and memory bandwidth, page faults where the allocator gave memory
//! back between samples); instruction counts do not: where valgrind is installed the bench
//! counts them (cachegrind, `CPPS_PROPERTY_BENCH_ONLY=parse:N` minus `gen:N`, the input's
//! generation) at `KEYS` and ten times it. A benchmark, not a test: it asserts nothing.

use std::hint::black_box;
use std::process::Command;
use std::time::{Duration, Instant};

use cpps_proxmox::types::{PropertyString, Volume};

fn text(keys: usize) -> String {
    let mut out = String::from("local-lvm:vm-100-disk-0");
    for i in 0..keys {
        out.push_str(&format!(",key{i}=value{i}"));
    }
    out
}

/// Time this thread has spent on a CPU (first field of schedstat), where Linux reports it.
fn thread_cpu() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        text.split_whitespace().next()?.parse().ok()?,
    ))
}

/// The fastest of `rounds` samples of `f` in wall time and in this thread's CPU time, per run.
/// One run that is not counted comes first (the allocator maps its memory, the input is paged
/// in); it also sets how many runs a sample holds, enough for at least 100 ms, because the CPU
/// clock of schedstat advances only at scheduler ticks.
fn fastest(rounds: usize, f: impl Fn()) -> (Duration, Option<Duration>) {
    let started = Instant::now();
    f();
    let once = started.elapsed().max(Duration::from_micros(1));
    let batch = (Duration::from_millis(100).as_nanos() / once.as_nanos()).clamp(1, 100_000) as u32;
    let (mut wall, mut cpu) = (Duration::MAX, None::<Duration>);
    for _ in 0..rounds {
        let cpu_start = thread_cpu();
        let started = Instant::now();
        for _ in 0..batch {
            f();
        }
        wall = wall.min(started.elapsed() / batch);
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu()) {
            let spent = b.saturating_sub(a) / batch;
            cpu = Some(cpu.map_or(spent, |c| c.min(spent)));
        }
    }
    (wall, cpu)
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

/// Instructions of this binary run as `CPPS_PROPERTY_BENCH_ONLY=what` under cachegrind.
fn instructions(what: &str) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .env("CPPS_PROPERTY_BENCH_ONLY", what)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stderr);
    let line = text.lines().find(|l| l.contains("I   refs:"))?;
    line.rsplit(':')
        .next()?
        .trim()
        .replace(',', "")
        .parse()
        .ok()
}

fn main() {
    // `CPPS_PROPERTY_BENCH_ONLY=parse:N` (generic and typed) or `gen:N` (the input only) runs
    // once and prints nothing: for instruction counts.
    if let Ok(only) = std::env::var("CPPS_PROPERTY_BENCH_ONLY") {
        let (what, n) = only.split_once(':').unwrap_or(("parse", only.as_str()));
        let input = text(n.parse().unwrap_or(3_000));
        if what == "parse" {
            parse_generic(&input);
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
    let sizes = [keys, keys * 10, keys * 100];
    let inputs: Vec<String> = sizes.iter().map(|&n| text(n)).collect();
    for (name, parse) in [
        ("PropertyString::parse", parse_generic as fn(&str)),
        ("Volume::from_str", parse_typed),
    ] {
        let timed: Vec<(Duration, Option<Duration>)> = inputs
            .iter()
            .zip([9, 7, 5])
            .map(|(input, rounds)| fastest(rounds, || parse(input)))
            .collect();
        for (n, (wall, cpu)) in sizes.iter().zip(&timed) {
            let cpu = cpu.map_or("-".to_owned(), |c| format!("{c:?}"));
            println!("{name} {n} keys: wall {wall:?}, cpu {cpu}");
        }
        let mut verdict = None;
        for (i, pair) in timed.windows(2).enumerate() {
            let ((small_wall, small_cpu), (large_wall, large_cpu)) = (pair[0], pair[1]);
            let wall_ratio = large_wall.as_secs_f64() / small_wall.as_secs_f64().max(1e-9);
            let cpu_ratio = small_cpu
                .zip(large_cpu)
                .map(|(s, l)| l.as_secs_f64() / s.as_secs_f64().max(1e-9));
            println!(
                "{name} {} -> {} keys: wall {wall_ratio:.1}x, cpu {}",
                sizes[i],
                sizes[i + 1],
                cpu_ratio.map_or("-".to_owned(), |r| format!("{r:.1}x"))
            );
            verdict = Some(cpu_ratio.unwrap_or(wall_ratio));
        }
        if let Some(ratio) = verdict {
            println!(
                "target {name} 10x input ({} -> {} keys) <= 12x time ({ratio:.1}x): {}",
                sizes[1],
                sizes[2],
                if ratio <= 12.0 { "PASS" } else { "MISS" }
            );
        }
    }
    let count = |what: &str, n: usize| instructions(&format!("{what}:{n}"));
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
