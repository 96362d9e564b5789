//! Times `check` on synthetic topologies of 10k and 100k guests (`testing::synthetic`).
//!
//! A plain benchmark binary (`harness = false`): `cargo bench -p cpps-topology --bench rules`.
//! Prints `name: value` lines: the median time of several runs per size, the findings count,
//! and the ratio of the two medians. Targets: under 250 ms at 100k guests on one core, and a
//! ratio of at most 11 for 10× the input (no quadratic rule, and no rule that reads the whole
//! model: the checks read the arrays the topology resolves when it is built, references as
//! positions and a few bytes of packed facts per guest, host and K3s cluster instead of the
//! ~300–400 of a `Guest` or a `K3sCluster`, see `model::Topology`). A third size, 1M guests, is
//! timed with `--bench` only.
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
    println!("check_{name}_guests_wall_ms: {:.2}", ms(t.wall));
    if let Some(cpu) = t.cpu {
        println!("check_{name}_guests_cpu_ms: {:.2}", ms(cpu));
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
    // `CPPS_RULES_BENCH_ONLY=N`: one check of N guests and nothing else, for profilers
    // (`CPPS_RULES_BENCH_BATCH=B`: B checks instead of one, for sampling profilers).
    if let Some(n) = std::env::var("CPPS_RULES_BENCH_ONLY")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        let batch = std::env::var("CPPS_RULES_BENCH_BATCH")
            .ok()
            .and_then(|b| b.parse().ok())
            .unwrap_or(1);
        let t = median_check(n, 1, batch);
        println!("check_{n}_guests_wall_ms: {:.2}", ms(t.wall));
        return;
    }
    // `cargo test --benches` runs bench binaries without `--bench`: keep that run short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let runs = if quick { 1 } else { 11 };
    // Batches that make each sample last about 0.2 s of CPU (a 10k check takes 0.5-1 ms): the
    // thread's CPU clock advances in scheduler ticks of a few milliseconds, so a sample of 50 ms
    // would move a ratio by up to 10 % either way.
    let small = median_check(10_000, runs, if quick { 1 } else { 400 });
    let large = median_check(100_000, runs, if quick { 1 } else { 40 });
    // A third size, past the caches: a quadratic rule would make 1M/100k ~100; a linear check
    // shows 10 plus the step from cache to memory (the resolved arrays of 1M guests no longer
    // fit in the caches that hold those of 100k).
    let huge = (!quick).then(|| median_check(1_000_000, 3, 3));
    print_timing("10k", &small);
    print_timing("100k", &large);
    print_scaling("100k_over_10k", &small, &large);
    if let Some(huge) = &huge {
        print_timing("1m", huge);
        print_scaling("1m_over_100k", &large, huge);
    }
    println!("runs_per_size: {runs}");
    println!(
        "target check 100k guests < 250 ms: {}",
        if large.wall.as_secs_f64() < 0.25 {
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
        "target scaling 100k/10k <= 11: {}",
        if large_time.as_secs_f64() / small_time.as_secs_f64() <= 11.0 {
            "PASS"
        } else {
            "MISS"
        }
    );
}
