//! What the workspace's benchmarks share (`harness = false` bench targets): the thread's CPU
//! clock, the fastest of several samples, instruction counts under cachegrind, the process's
//! memory figures, and the scaling verdict "ten times the input costs at most N times the time".
//!
//! Nothing here asserts on time: benchmarks print figures and `PASS`/`MISS` lines.

use std::process::Command;
use std::time::{Duration, Instant};

/// Time this thread has spent on a CPU (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`), to the
/// nanosecond. On a shared machine wall time also counts the waits for a core.
///
/// Not `/proc/thread-self/schedstat`: Linux brings that figure up to date only when the thread
/// is switched out or at the scheduler's tick, so a thread that runs undisturbed (as a bench on
/// a quiet machine does) sees it move in steps of a tick (4 ms here), a few per cent of a 100 ms
/// sample.
pub fn thread_cpu() -> Option<Duration> {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    let nanos =
        u64::try_from(now.tv_sec).ok()? * 1_000_000_000 + u64::try_from(now.tv_nsec).ok()?;
    Some(Duration::from_nanos(nanos))
}

/// A field of `/proc/self/status` in KiB (`"VmHWM:"`, `"VmRSS:"`), where Linux reports it.
pub fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Minor page faults of this process so far (`/proc/self/stat`, field 10), where Linux reports
/// them: each is a page the kernel mapped, zeroed, for memory touched the first time.
pub fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command's name (field 2) may hold spaces; the fields after it do not.
    let (_, after_name) = stat.rsplit_once(')')?;
    after_name.split_whitespace().nth(7)?.parse().ok()
}

/// One timing of a function: per run, in wall time and in this thread's CPU time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    /// Wall time per run.
    pub wall: Duration,
    /// CPU time of this thread per run, where Linux reports it.
    pub cpu: Option<Duration>,
}

/// The fastest of `rounds` samples of `f`, per run. One run that is not counted comes first (the
/// allocator maps its memory, the input is paged in); it also sets how many runs a sample holds,
/// enough for at least 100 ms, so that a sample of a fast function is not a few clock reads.
pub fn fastest(rounds: usize, mut f: impl FnMut()) -> Sample {
    let started = Instant::now();
    f();
    let once = started.elapsed().max(Duration::from_micros(1));
    let batch =
        u32::try_from((Duration::from_millis(100).as_nanos() / once.as_nanos()).clamp(1, 100_000))
            .unwrap_or(1);
    let mut best = Sample {
        wall: Duration::MAX,
        cpu: None,
    };
    for _ in 0..rounds {
        let cpu_start = thread_cpu();
        let started = Instant::now();
        for _ in 0..batch {
            f();
        }
        let cpu = match (cpu_start, thread_cpu()) {
            // A clock that did not advance over a 100 ms round gives no sample.
            (Some(a), Some(b)) => Some(b.saturating_sub(a) / batch).filter(|c| !c.is_zero()),
            _ => None,
        };
        best = best.or_faster(Sample {
            wall: started.elapsed() / batch,
            cpu,
        });
    }
    best
}

impl Sample {
    /// The faster of the two, clock by clock (a missing CPU time is no sample).
    pub fn or_faster(self, other: Sample) -> Sample {
        Sample {
            wall: self.wall.min(other.wall),
            cpu: match (self.cpu, other.cpu) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// [`fastest`] of `f` on each of `inputs` over `rounds` rounds, the inputs taking turns within
/// each round (one [`fastest`] sample each): a neighbour's burst on a shared machine then slows
/// every input alike rather than the one being timed at that moment. One sample per input, in
/// their order.
pub fn fastest_in_turns<I>(rounds: usize, inputs: &[I], mut f: impl FnMut(&I)) -> Vec<Sample> {
    let mut best = vec![
        Sample {
            wall: Duration::MAX,
            cpu: None,
        };
        inputs.len()
    ];
    for _ in 0..rounds {
        for (input, best) in inputs.iter().zip(&mut best) {
            *best = best.or_faster(fastest(1, || f(input)));
        }
    }
    best
}

/// Runs `f` on the inputs in turn for `duration` before anything is timed: a core that was idle
/// runs slower for a while (the first input timed in a fresh process came out up to 40 % slow).
pub fn warm_up<I>(duration: Duration, inputs: &[I], mut f: impl FnMut(&I)) {
    let started = Instant::now();
    while started.elapsed() < duration {
        inputs.iter().for_each(&mut f);
    }
}

/// Instructions of this very binary run with `env_var=what` under cachegrind (the bench is
/// expected to do only `what` then exit), where valgrind is installed.
pub fn instructions(env_var: &str, what: &str) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let output = Command::new("valgrind")
        .args([
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
        ])
        .arg(exe)
        .env(env_var, what)
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

/// Prints the ratios of consecutive `sizes` (wall and CPU time) of the samples `timed`, and one
/// `PASS`/`MISS` line judged on the last pair (CPU time where known): ten times the input costs
/// at most `limit` times the time. `unit` names what a size counts ("keys", "values").
pub fn print_scaling(name: &str, unit: &str, sizes: &[usize], timed: &[Sample], limit: f64) {
    let mut verdict = None;
    for (i, pair) in timed.windows(2).enumerate() {
        let (small, large) = (pair[0], pair[1]);
        let wall = large.wall.as_secs_f64() / small.wall.as_secs_f64().max(1e-9);
        let cpu = small
            .cpu
            .zip(large.cpu)
            .map(|(s, l)| l.as_secs_f64() / s.as_secs_f64().max(1e-9));
        println!(
            "{name} {} -> {} {unit}: wall {wall:.1}x, cpu {}",
            sizes[i],
            sizes[i + 1],
            cpu.map_or("-".to_owned(), |r| format!("{r:.1}x"))
        );
        verdict = Some((i, cpu.unwrap_or(wall)));
    }
    if let Some((i, ratio)) = verdict {
        println!(
            "target {name} 10x input ({} -> {} {unit}) <= {limit}x time ({ratio:.1}x): {}",
            sizes[i],
            sizes[i + 1],
            if ratio <= limit { "PASS" } else { "MISS" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_faster_of_two_samples_is_taken_clock_by_clock() {
        let ms = Duration::from_millis;
        let a = Sample {
            wall: ms(5),
            cpu: Some(ms(4)),
        };
        let b = Sample {
            wall: ms(3),
            cpu: Some(ms(6)),
        };
        let no_cpu = Sample {
            wall: ms(9),
            cpu: None,
        };
        assert_eq!(
            a.or_faster(b),
            Sample {
                wall: ms(3),
                cpu: Some(ms(4))
            }
        );
        assert_eq!(a.or_faster(no_cpu), a);
        assert_eq!(no_cpu.or_faster(b), b);
    }

    #[test]
    fn the_thread_clock_moves_with_work_and_never_past_the_wall_clock() {
        let wall_start = Instant::now();
        let cpu_start = thread_cpu().expect("Linux has CLOCK_THREAD_CPUTIME_ID");
        let mut spins = 0u64;
        // Busy until the thread has been on a CPU for 2 ms (bounded by 10 s of wall time).
        while thread_cpu().unwrap().saturating_sub(cpu_start) < Duration::from_millis(2)
            && wall_start.elapsed() < Duration::from_secs(10)
        {
            spins = std::hint::black_box(spins + 1);
        }
        let cpu = thread_cpu().unwrap().saturating_sub(cpu_start);
        let wall = wall_start.elapsed();
        assert!(
            cpu >= Duration::from_millis(2),
            "{cpu:?} on a CPU in {wall:?}"
        );
        assert!(cpu <= wall, "thread CPU {cpu:?} exceeds wall {wall:?}");
        // Finer than a scheduler tick (4 ms): a clock moving a tick at a time would first pass
        // 2 ms at 4. Time waiting for a core is not counted, so a busy neighbour does not add.
        assert!(
            cpu < Duration::from_millis(3),
            "the clock jumped to {cpu:?}"
        );
    }

    #[test]
    fn samples_in_turns_come_one_per_input_in_order() {
        let mut seen: Vec<u32> = Vec::new();
        let timed = fastest_in_turns(2, &[1u32, 2, 3], |&i| seen.push(i));
        assert_eq!(timed.len(), 3);
        assert!(
            timed.iter().all(|s| s.wall < Duration::MAX),
            "each input was timed"
        );
        // Each input's runs come together, and each round visits every input in order.
        seen.dedup();
        assert_eq!(seen, [1, 2, 3, 1, 2, 3]);
    }
}
