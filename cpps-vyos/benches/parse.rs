//! How the `config.boot` and `set` readers scale with a leaf of many values (a firewall group of
//! 60,000 addresses once took 6.6 s in both): the fastest samples (each at least 100 ms of
//! runs) at N, 10·N and 100·N values in wall time and in the thread's CPU time, the ratios, and
//! whether 10× the input costs at most 12× the CPU time on the larger pair. A benchmark, not a
//! test: `cargo bench -p cpps-vyos --bench parse` (part of `cargo xtask bench parsers`). On a
//! loaded machine the time ratios move by half between runs; instruction counts do not: where
//! valgrind is installed the bench counts them itself (cachegrind, parse minus input
//! generation) at N and 10·N.
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
fn time(rounds: usize, f: impl Fn()) -> (Duration, Option<Duration>) {
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

/// Instructions of this binary run as `CPPS_VYOS_BENCH_ONLY=what` under cachegrind, where
/// valgrind is installed.
fn instructions(what: &str) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = std::process::Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .env("CPPS_VYOS_BENCH_ONLY", what)
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
        let inputs: Vec<String> = sizes.iter().map(|&n| make(n)).collect();
        assert!(inputs.iter().all(|input| parse(input).is_ok()));
        let timed: Vec<(Duration, Option<Duration>)> = inputs
            .iter()
            .zip([7, 5, 3])
            .map(|(input, rounds)| time(rounds, || parse(input).unwrap()))
            .collect();
        drop(inputs);
        for (n, (wall, cpu)) in sizes.iter().zip(&timed) {
            let cpu = cpu.map_or("-".to_owned(), |c| {
                format!("{:.1} ms", c.as_secs_f64() * 1e3)
            });
            println!(
                "{name} {n} values: wall {:.1} ms, cpu {cpu}",
                wall.as_secs_f64() * 1e3
            );
        }
        let mut verdict = None;
        for (i, pair) in timed.windows(2).enumerate() {
            let ((small_wall, small_cpu), (large_wall, large_cpu)) = (pair[0], pair[1]);
            let wall_ratio = large_wall.as_secs_f64() / small_wall.as_secs_f64();
            let cpu_ratio = small_cpu
                .zip(large_cpu)
                .map(|(s, l)| l.as_secs_f64() / s.as_secs_f64());
            println!(
                "{name} {} -> {} values: wall {wall_ratio:.1}x, cpu {}",
                sizes[i],
                sizes[i + 1],
                cpu_ratio.map_or("-".to_owned(), |r| format!("{r:.1}x"))
            );
            verdict = Some(cpu_ratio.unwrap_or(wall_ratio));
        }
        if let Some(ratio) = verdict {
            println!(
                "target {name} 10x input ({} -> {} values) <= 12x time ({ratio:.1}x): {}",
                sizes[1],
                sizes[2],
                if ratio <= 12.0 { "PASS" } else { "MISS" }
            );
        }
        let count = |n: usize| {
            instructions(&format!("{name}:{n}"))
                .zip(instructions(&format!("gen-{name}:{n}")))
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
