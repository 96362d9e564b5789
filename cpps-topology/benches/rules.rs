//! Times `check` on synthetic topologies of 600 guests (a site's size) and 6,000 (ten times it),
//! built by `testing::synthetic`.
//!
//! A plain benchmark binary (`harness = false`): `cargo bench -p cpps-topology --bench rules`.
//! Prints `name: value` lines: the median time of several runs per size, the findings count,
//! and the ratio of the two medians. Targets: under 100 ms at 6,000 guests on one core, and a
//! ratio of at most 11 for 10× the input (no rule compares every component with every other).
//!
//! Two clocks: wall time, and the CPU time of the benchmark thread
//! (`CLOCK_THREAD_CPUTIME_ID`, nanoseconds on CPU). On a busy shared machine the wall time of
//! a long run is inflated by waiting for a core, so the CPU time is the figure to compare, and
//! the scaling verdict is judged on it; where that clock is unavailable the CPU lines are
//! omitted and the verdict is judged on wall time.

use std::time::{Duration, Instant};

use cpps_http::test_util::bench::thread_cpu;
use cpps_topology::check::check_on;
use cpps_topology::testing::synthetic;

struct Timing {
    wall: Duration,
    cpu: Option<Duration>,
    findings: usize,
    components: usize,
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Times `check` on `synthetic(guests)`: `runs` samples, each the mean of `batch` checks (so a
/// sample of a small topology lasts long enough for the CPU clock, which advances in scheduler
/// ticks, to be precise).
fn median_check(guests: usize, runs: usize, batch: u32) -> Timing {
    let topology = synthetic(guests);
    let today = jiff::civil::date(2026, 5, 2);
    // One warm-up run (allocator, caches), then the timed runs.
    let warm = check_on(&topology, today);
    let findings = warm.findings.len();
    let mut wall = Vec::with_capacity(runs);
    let mut cpu = Vec::with_capacity(runs);
    for _ in 0..runs {
        let cpu_start = thread_cpu();
        let start = Instant::now();
        for _ in 0..batch {
            let report = check_on(&topology, today);
            assert_eq!(report.findings.len(), findings, "check is deterministic");
        }
        wall.push(start.elapsed() / batch);
        if let (Some(a), Some(b)) = (cpu_start, thread_cpu()) {
            cpu.push(b.saturating_sub(a) / batch);
        }
    }
    Timing {
        wall: median(wall),
        cpu: (cpu.len() == runs).then(|| median(cpu)),
        findings,
        components: topology.components().count(),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The `check_{name}_…` lines of one size: its median wall and CPU times, its components and
/// findings.
fn print_timing(name: &str, t: &Timing) {
    println!("check_{name}_guests_wall_ms: {:.3}", ms(t.wall));
    if let Some(cpu) = t.cpu {
        println!("check_{name}_guests_cpu_ms: {:.3}", ms(cpu));
    }
    println!("check_{name}_components: {}", t.components);
    println!("check_{name}_findings: {}", t.findings);
}

/// The `scaling_ratio_{wall,cpu}_{ratio}` lines: `large`'s median over `small`'s (the CPU line
/// only where both CPU times are known).
fn print_scaling(ratio: &str, small: &Timing, large: &Timing) {
    println!(
        "scaling_ratio_wall_{ratio}: {:.2}",
        large.wall.as_secs_f64() / small.wall.as_secs_f64()
    );
    if let (Some(a), Some(b)) = (small.cpu, large.cpu) {
        println!(
            "scaling_ratio_cpu_{ratio}: {:.2}",
            b.as_secs_f64() / a.as_secs_f64()
        );
    }
}

fn main() {
    // `cargo test --benches` runs bench binaries without `--bench`: keep that run short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 11 };
    // Batches that make each sample last a good fraction of a second of CPU: the thread's CPU
    // clock advances in scheduler ticks of a few milliseconds, so a short sample would move a
    // ratio by up to 10 % either way.
    let small = median_check(600, runs, if quick { 1 } else { 2000 });
    let large = median_check(6_000, runs, if quick { 1 } else { 200 });
    print_timing("600", &small);
    print_timing("6000", &large);
    print_scaling("6000_over_600", &small, &large);
    println!("runs_per_size: {runs}");
    println!(
        "target check 6000 guests < 100 ms: {}",
        if large.wall.as_secs_f64() < 0.1 {
            "PASS"
        } else {
            "MISS"
        }
    );
    // Judged on CPU time where it is known (see the module docs), else on wall time.
    let (small_time, large_time) = match (small.cpu, large.cpu) {
        (Some(a), Some(b)) => (a, b),
        _ => (small.wall, large.wall),
    };
    println!(
        "target scaling 6000/600 <= 11: {}",
        if large_time.as_secs_f64() / small_time.as_secs_f64() <= 11.0 {
            "PASS"
        } else {
            "MISS"
        }
    );
}
