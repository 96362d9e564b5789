//! `cargo xtask bench`: benchmarks measured in one run on one machine, printed as `name: value`
//! lines, each subcommand ending with one `PASS`/`MISS` line per target. Nothing here is a timed
//! test: the figures are for reading, not for failing a build.
//!
//! * `sweep` — the inventory sweep (the reads of `inventory`: nodes, guests, HA resources, then
//!   every container's config) with proxmoxer (Python, the client users would otherwise pick,
//!   one request after the other) and with `cpps-proxmox` (`inventory::collect`), alternating,
//!   in three legs of one run:
//!   1. fakepve serving a 600-guest estate on 127.0.0.1 (a single-threaded Python server: this
//!      figure is bound by the server, kept for comparison);
//!   2. fakepve's answers, captured once, served by nginx (two workers, TLS 1.3, HTTP/1.1 with
//!      keep-alive like pveproxy): a server that is not the bottleneck; its access log counts
//!      the requests, the connections and the resumed TLS sessions of each client run;
//!   3. the same answers with a round-trip time (`--latency`, 20 ms): by default
//!      (`--delay-by segment`) nginx runs in a network namespace and the clients in another,
//!      joined by a user-space link that holds every frame (each TCP segment, ACK and handshake
//!      packet) half the RTT each way, like netem on a WAN (`bench_link`; root and
//!      `/dev/net/tun`, as this kernel has no qdiscs); `--delay-by proxy`, or a machine where
//!      the link cannot be built, holds each request the RTT in a TCP proxy on 127.0.0.1.
//!
//!   Each client runs under `xtask/bench/measure.py`, which reads its user+system CPU from
//!   `wait4` (process start-up included). Printed: median times, their ratio, CPU per request,
//!   connections opened, config round trips, the bounded floor (TCP+TLS once per connection,
//!   all opened at once, 2 RTT; the lists, 1 RTT; the config rounds, ⌈configs / bound⌉), the
//!   time from the last answer to the client's exit (through the link), the load average of
//!   each leg, and the targets.
//! * `audit` — the live `audit` end to end against two sites' servers, with a round-trip time
//!   per site held on every TCP segment (a link of two lanes, `--delay-by segment`) or on every
//!   request (`--delay-by proxy`): wall time, CPU, peak memory, phases, each system's own time
//!   (see the `bench_audit` module's docs).
//! * `rules` — `check` on synthetic topologies of 600 and 6,000 guests.
//! * `memory` — peak RSS of the audit path (load, check, render) at 6 000 extra guests.
//! * `load` — `cpps_topology::load` against serde-saphyr parsing the same file into a generic
//!   value, time and peak memory (each parse in a child process of its own), at the real file's
//!   size (50 kB), ten times it and the loader's 2 MiB cap (bench `load` of cpps-topology).
//! * `parsers` — the parsers at the sizes that occur, ten times them and their input's cap, in
//!   thread CPU time, with instruction counts when valgrind is installed: PVE property strings
//!   (bench `property` of cpps-proxmox: 10 keys, 100, the 64 KiB cap), the VyOS readers
//!   (`config.boot`, `showConfig`, `set`, one leaf of many values, WireGuard and BGP summaries;
//!   bench `real_sizes` of cpps-vyos) and the PBS snapshot and task lists (bench `parse` of
//!   cpps-pbs).

use std::path::Path;
use std::process::{Command, ExitCode};

use anyhow::{Context, Result, bail};

use crate::tools::cargo;

/// Arguments of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub(crate) struct BenchArgs {
    #[command(subcommand)]
    what: Bench,
}

#[derive(Debug, clap::Subcommand)]
enum Bench {
    /// proxmoxer vs cpps-proxmox on the same fakepve estate.
    Sweep(crate::bench_sweep::SweepArgs),
    /// The live `audit` timed whole against two sites of servers on 127.0.0.1.
    Audit(crate::bench_audit::AuditArgs),
    /// The rule engine at 600 and 6,000 guests.
    Rules,
    /// Peak memory of the audit path at 6 000 extra guests (ten times a 600-guest site).
    Memory,
    /// Loading topology files against serde-saphyr's generic parse: time and peak memory.
    Load {
        /// File sizes in kB (default 50, 500 and 2000: the real file, ten times it, the cap).
        sizes: Vec<usize>,
    },
    /// The property-string, VyOS and PBS parsers at real sizes, ten times them and their cap.
    Parsers,
    /// Every benchmark above.
    All,
}

pub(crate) fn run(args: BenchArgs) -> Result<ExitCode> {
    let root = crate::workspace_root()?;
    match args.what {
        Bench::Sweep(sweep) => crate::bench_sweep::run_sweep(&root, &sweep)?,
        Bench::Audit(audit) => crate::bench_audit::run_audit(&root, &audit)?,
        Bench::Rules => cargo_bench(&root, "cpps-topology", "rules", &[])?,
        Bench::Memory => cargo_bench(&root, "cpps-topology", "audit_memory", &[])?,
        Bench::Load { sizes } => {
            let sizes: Vec<String> = sizes.iter().map(ToString::to_string).collect();
            let sizes: Vec<&str> = sizes.iter().map(String::as_str).collect();
            cargo_bench(&root, "cpps-topology", "load", &sizes)?;
        }
        Bench::Parsers => run_parsers(&root)?,
        Bench::All => {
            crate::bench_sweep::run_sweep(&root, &crate::bench_sweep::SweepArgs::default())?;
            cargo_bench(&root, "cpps-topology", "rules", &[])?;
            cargo_bench(&root, "cpps-topology", "audit_memory", &[])?;
            cargo_bench(&root, "cpps-topology", "load", &[])?;
            run_parsers(&root)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The parser benches: each prints its times, ratios and `PASS`/`MISS` lines.
fn run_parsers(root: &Path) -> Result<()> {
    cargo_bench(root, "cpps-proxmox", "property", &[])?;
    cargo_bench(root, "cpps-vyos", "real_sizes", &[])?;
    cargo_bench(root, "cpps-pbs", "parse", &[])
}

/// Runs a `harness = false` bench of a crate in release mode, its output straight through.
fn cargo_bench(root: &Path, package: &str, bench: &str, args: &[&str]) -> Result<()> {
    let status = Command::new(cargo())
        .args(["bench", "-q", "-p", package, "--bench", bench, "--"])
        .args(args)
        .current_dir(root)
        .status()
        .with_context(|| format!("running the {bench} bench"))?;
    if !status.success() {
        bail!("the {bench} bench failed ({status})");
    }
    Ok(())
}
