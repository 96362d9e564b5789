//! `driver-update`: the NVIDIA driver update runbook of ADR-009 for one GPU host, as a plan.
//!
//! ```console
//! cargo run -p cpps-examples --bin driver-update -- --host pve-ippri-31 --target-driver 550.127.05 \
//!     --endpoints endpoints.yaml
//! cargo run -p cpps-examples --bin driver-update -- --host pve-ippri-31 --endpoints endpoints.yaml --apply
//! ```
//!
//! It finds the host's GPU LXC(s) in the topology and in Proxmox, the LINSTOR resources behind
//! their volumes, and prints the maintenance steps and the rollback. By default nothing is
//! changed. `--apply` executes the one step that can be automated safely, the LINSTOR snapshot
//! (the rollback point), and waits until every snapshot is `SUCCESSFUL`; the rest stays with
//! the operator.
//!
//! `--timeout SECONDS` (default 30) bounds the whole run, `--apply` included: reading Proxmox
//! and LINSTOR for the plan, then taking the snapshots and waiting for them (each wait also
//! stops at `--wait`). A run cut off by it says which step was left unfinished; give a longer
//! `--timeout` with `--apply` on a slow controller.
//!
//! Exit codes: 0 plan printed (and, with `--apply`, every snapshot taken); 1 a snapshot failed;
//! 2 the input cannot be used.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Parser;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use cpps_topology::live::runbook::{DriverUpdatePlan, apply_snapshots, plan_driver_update};
use cpps_topology::live::{self, ObserveOptions};

/// Plan (and with --apply, take the snapshots of) an NVIDIA driver update.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The GPU host (a host id of the topology).
    #[arg(long)]
    host: String,
    /// The driver version to install.
    #[arg(long)]
    target_driver: Option<String>,
    /// The snapshot name (default `pre-driver-YYYYMMDD`).
    #[arg(long)]
    snapshot: Option<String>,
    /// The topology file (default: the embedded CPPS topology).
    #[arg(long)]
    topology: Option<PathBuf>,
    /// The endpoints file (default: the clients' environment variables, for the host's site).
    #[arg(long)]
    endpoints: Option<PathBuf>,
    /// Output format: text or json.
    #[arg(long, default_value = "text")]
    format: String,
    /// Take the LINSTOR snapshots now and wait for them.
    #[arg(long)]
    apply: bool,
    /// Seconds to wait for each snapshot (within `--timeout`).
    #[arg(long, default_value_t = 300)]
    wait: u64,
    /// Seconds the whole run may take, `--apply` included: every request to a server ends by
    /// then.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

fn invalid(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("driver-update: {message}");
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    match run(&Args::parse()).await {
        Ok(code) | Err(code) => code,
    }
}

/// Reads, plans, prints and (with `--apply`) takes the snapshots; `Err` is an early exit whose
/// message is already printed.
async fn run(args: &Args) -> Result<ExitCode, ExitCode> {
    let timeout = Duration::from_secs(args.timeout.max(1));
    let deadline = Instant::now() + timeout;
    if !matches!(args.format.as_str(), "text" | "json") {
        return Err(invalid(format!(
            "unknown format `{}` (text or json)",
            args.format
        )));
    }
    let loaded = cpps_topology::load_or_default(args.topology.as_deref());
    let topology = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprint!("{}", e.render());
            return Err(ExitCode::from(2));
        }
    };
    let Some(host) = topology.hosts().iter().find(|h| h.id.as_str() == args.host) else {
        return Err(invalid(format!("the topology has no host `{}`", args.host)));
    };
    let site = host.site.to_string();
    let lookup = |k: &str| std::env::var(k).ok();
    let endpoints = site_endpoints(args, &topology, &site, &lookup)?;
    let left = deadline.saturating_duration_since(Instant::now());
    let options = ClientOptions::bounded_by(left);
    let sources = endpoints.sources(&options, &lookup).map_err(invalid)?;
    let observe = ObserveOptions::new(ObserveOptions::default().concurrency, left);
    let observed = live::observe(&sources, &observe).await;
    let site_obs = observed.site(&site);
    for failure in site_obs.map(|s| s.failures()).unwrap_or_default() {
        eprintln!("driver-update: {failure}");
    }
    let snapshot = args.snapshot.clone().unwrap_or_else(todays_snapshot_name);
    let plan = plan_driver_update(
        &topology,
        &args.host,
        site_obs.and_then(|s| s.proxmox.observed()),
        site_obs.and_then(|s| s.linstor.observed()),
        &snapshot,
        args.target_driver.as_deref(),
    )
    .map_err(invalid)?;
    print_plan(args, &plan)?;
    if !args.apply {
        if args.format == "text" {
            println!("\nPlan only: nothing was changed. --apply takes the LINSTOR snapshots.");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if plan.snapshots.is_empty() {
        eprintln!("driver-update: --apply: the plan has no LINSTOR snapshot to take");
        return Ok(ExitCode::from(1));
    }
    let client = match endpoints.linstor_client(&site, &options, &lookup) {
        Ok(Some(c)) => c,
        Ok(None) => return Err(invalid(format!("site {site} has no LINSTOR endpoint"))),
        Err(e) => return Err(invalid(e)),
    };
    Ok(take_snapshots(args, &client, &plan, &snapshot, deadline, timeout).await)
}

/// The endpoints of the host's site only (from `--endpoints` or the environment), checked
/// against the topology; Kubernetes and NVML are not read.
fn site_endpoints(
    args: &Args,
    topology: &cpps_topology::Topology,
    site: &str,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> Result<Endpoints, ExitCode> {
    let endpoints = match &args.endpoints {
        Some(path) => Endpoints::load(path),
        None => Endpoints::from_env(site, None, lookup),
    };
    let mut endpoints = endpoints
        .and_then(|e| e.check_against(topology).map(|()| e))
        .map_err(invalid)?;
    // Only the host's site matters here.
    endpoints.sites.retain(|s, _| *s == site);
    if let Some(s) = endpoints.sites.get_mut(site) {
        s.kubernetes.clear();
        s.nvml.clear();
    }
    Ok(endpoints)
}

/// `pre-driver-YYYYMMDD`, today's default snapshot name.
fn todays_snapshot_name() -> String {
    let today = cpps_topology::check::today();
    format!(
        "pre-driver-{:04}{:02}{:02}",
        today.year(),
        today.month(),
        today.day()
    )
}

fn print_plan(args: &Args, plan: &DriverUpdatePlan) -> Result<(), ExitCode> {
    if args.format == "json" {
        match serde_json::to_string_pretty(plan) {
            Ok(text) => println!("{text}"),
            Err(e) => return Err(invalid(e)),
        }
    } else {
        print!("{}", plan.to_text());
    }
    Ok(())
}

/// Takes the plan's snapshots within the deadline and says, per snapshot, whether it is
/// `SUCCESSFUL`: exit 0 only when every one is.
async fn take_snapshots(
    args: &Args,
    client: &cpps_linstor::Client,
    plan: &DriverUpdatePlan,
    snapshot: &str,
    deadline: Instant,
    timeout: Duration,
) -> ExitCode {
    let left = deadline.saturating_duration_since(Instant::now());
    let wait = Duration::from_secs(args.wait).min(left);
    let applied = tokio::time::timeout_at(
        deadline.into(),
        apply_snapshots(client, plan, wait, Duration::from_millis(500)),
    )
    .await;
    let Ok(outcomes) = applied else {
        eprintln!(
            "driver-update: --timeout of {timeout:?} reached while taking the snapshots: their state is unknown; check them in LINSTOR before going on"
        );
        eprintln!("driver-update: do NOT update the driver: the rollback point is not confirmed");
        return ExitCode::from(1);
    };
    let mut ok = outcomes.len() == plan.snapshots.len();
    for o in &outcomes {
        ok &= o.successful;
        eprintln!(
            "driver-update: snapshot {snapshot} of {}: {}{}",
            o.resource,
            if o.successful { "SUCCESSFUL" } else { "FAILED" },
            if o.messages.is_empty() {
                String::new()
            } else {
                format!(" ({})", o.messages.join("; "))
            }
        );
    }
    if ok {
        eprintln!("driver-update: every snapshot is taken; continue with step 5 of the plan");
        ExitCode::SUCCESS
    } else {
        eprintln!("driver-update: do NOT update the driver: the rollback point is missing");
        ExitCode::from(1)
    }
}
