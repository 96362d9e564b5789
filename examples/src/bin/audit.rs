//! `audit`: the static findings of the topology, the drift between the topology and the live
//! systems, and the live rules, in one report.
//!
//! ```console
//! cargo run -p cpps-examples --bin audit -- --topology infra.yaml --endpoints endpoints.yaml
//! cargo run -p cpps-examples --bin audit -- --format sarif > audit.sarif
//! ```
//!
//! Endpoints come from `--endpoints` (a YAML file without secrets; see
//! `cpps_topology::live::endpoints`) or, without it, from the clients' environment variables
//! (`PROXMOX_VE_*`, `LS_CONTROLLERS`, `KUBECONFIG`) for `--site`.
//!
//! `--iac NAME=FILE` (repeatable, as `cargo xtask check --iac`) adds the team's Pulumi and
//! Ansible evidence: the IaC rules join the report, and the text output ends with each
//! component's three sources side by side (topology claim, IaC, live) and the state the evidence
//! supports.
//!
//! `--timeout SECONDS` (default 30) bounds the whole run: a server that never answers, or
//! answers one byte a second, costs at most that long, and is reported as a finding of its site.
//!
//! `--fix` prints, after the report, the plan that makes PVE-003 true
//! (`cpps_topology::live::runbook_ha`): for each guest declared `ha: true` that is no Proxmox
//! HA resource, the `ha-manager add` (in the state the guest is in now) and the wait for the HA
//! manager to show it; an HA resource the topology does not declare is a report line, never a
//! removal. Nothing is changed unless `--apply` is given too: then each add is sent to its
//! site's Proxmox and waited on, within what is left of `--timeout`.
//!
//! `--timings` prints to stderr, after the report, how long each phase took (`timing: phase
//! NAME SECONDS`: load, endpoints, observe, audit, render) and when each source answered,
//! counted from the start of the observation (`timing: source SITE KIND SECONDS ok|failed`);
//! `cargo xtask bench audit` reads these lines. No progress bar is drawn with it.
//!
//! Exit codes, as `cargo xtask check`: 0 nothing fails, 1 unsuppressed errors (or warnings with
//! `--deny warnings`, or an add of `--fix --apply` that was not confirmed), 2 the topology or
//! the endpoints cannot be used.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use clap::Parser;
use cpps_examples::LiveTargets;
use cpps_topology::Topology;
use cpps_topology::iac::{Evidence, IacChecks, IacInputs, LiveSeen, render_table, sources_table};
use cpps_topology::live::endpoints::{ClientOptions, Endpoints, EndpointsError};
use cpps_topology::live::{self, LiveOptions, Observation, ObserveOptions, Progress, SourceKind};
use cpps_topology::report::Format;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// Audit the live systems against the topology.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    #[command(flatten)]
    live: LiveTargets,
    /// Output format: text, json or sarif.
    #[arg(long, default_value = "text")]
    format: String,
    /// `--deny warnings`: unsuppressed warnings fail too.
    #[arg(long, value_parser = ["warnings"])]
    deny: Option<String>,
    /// Sources asked at once, across all sites (default: every source of a two-site estate, so
    /// none waits behind another; GPU hosts, whose XID window waits a fixed time, go first).
    #[arg(long, default_value_t = cpps_topology::live::DEFAULT_SOURCE_CONCURRENCY)]
    concurrency: usize,
    /// Seconds the whole run may take, from start to report: every request to a server ends
    /// by then, and a source still unanswered is reported as a finding of its site (the other
    /// sources' results are kept).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
    /// IaC evidence, as `cargo xtask check --iac` (repeatable): `pulumi-export=FILE`,
    /// `pulumi-mock=FILE`, `pulumi-config=FILE`, `ansible=FILE`, `ansible-source=FILE`,
    /// `mapping=FILE`. With it, the report adds the IaC rules and the text output a table of
    /// each component's three sources (topology claim, IaC, live).
    #[arg(long = "iac", value_name = "NAME=FILE")]
    iac: Vec<String>,
    /// Print the plan that fixes PVE-003 (an HA resource for each guest declared `ha: true`
    /// that has none); nothing is changed without --apply.
    #[arg(long)]
    fix: bool,
    /// With --fix: add the HA resources of the plan, waiting for the HA manager to show each.
    #[arg(long, requires = "fix")]
    apply: bool,
    /// Print each phase's time and each source's answer time to stderr (`timing:` lines).
    #[arg(long)]
    timings: bool,
}

/// One progress bar per site, on a terminal only.
struct Bars {
    multi: MultiProgress,
    bars: Mutex<BTreeMap<String, ProgressBar>>,
}

impl Progress for Bars {
    fn site_started(&self, site: &str, sources: usize) {
        let bar = self.multi.add(ProgressBar::new(sources as u64));
        bar.set_style(
            ProgressStyle::with_template("{prefix:>8} [{bar:20}] {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
        );
        bar.set_prefix(site.to_owned());
        if let Ok(mut bars) = self.bars.lock() {
            bars.insert(site.to_owned(), bar);
        }
    }

    fn source_done(&self, site: &str, source: SourceKind, ok: bool) {
        if let Ok(bars) = self.bars.lock()
            && let Some(bar) = bars.get(site)
        {
            bar.set_message(format!("{source} {}", if ok { "ok" } else { "FAILED" }));
            bar.inc(1);
            if bar.position() >= bar.length().unwrap_or(0) {
                bar.finish();
            }
        }
    }
}

/// `--timings`: when each source answered, from the start of the observation, and how long
/// each phase of the run took; printed to stderr at the end.
struct Timings {
    observing: Instant,
    phases: Mutex<Vec<(&'static str, Duration)>>,
    sources: Mutex<Vec<String>>,
}

impl Timings {
    fn new() -> Self {
        Self {
            observing: Instant::now(),
            phases: Mutex::new(Vec::new()),
            sources: Mutex::new(Vec::new()),
        }
    }

    /// Records that phase `name` ended now, having started at `since`; returns now.
    fn phase(&self, name: &'static str, since: Instant) -> Instant {
        let now = Instant::now();
        if let Ok(mut phases) = self.phases.lock() {
            phases.push((name, now - since));
        }
        now
    }

    fn print(&self) {
        if let Ok(phases) = self.phases.lock() {
            for (name, took) in phases.iter() {
                eprintln!("timing: phase {name} {:.6}", took.as_secs_f64());
            }
        }
        if let Ok(sources) = self.sources.lock() {
            for line in sources.iter() {
                eprintln!("timing: source {line}");
            }
        }
    }
}

impl Progress for Timings {
    fn site_started(&self, _: &str, _: usize) {}

    fn source_done(&self, site: &str, source: SourceKind, ok: bool) {
        let at = self.observing.elapsed().as_secs_f64();
        if let Ok(mut sources) = self.sources.lock() {
            let ok = if ok { "ok" } else { "failed" };
            sources.push(format!("{site} {source} {at:.6} {ok}"));
        }
    }
}

/// Observes `sources`, telling `timings` when given, else progress bars when `show_bars`.
async fn observe(
    sources: &live::sources::Sources,
    options: &ObserveOptions,
    show_bars: bool,
    timings: Option<&mut Timings>,
) -> Observation {
    if let Some(timings) = timings {
        timings.observing = Instant::now();
        return live::observe_with(sources, options, &*timings).await;
    }
    if show_bars {
        let bars = Bars {
            multi: MultiProgress::new(),
            bars: Mutex::new(BTreeMap::new()),
        };
        live::observe_with(sources, options, &bars).await
    } else {
        live::observe(sources, options).await
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("audit: {message}");
    ExitCode::from(cpps_topology::check::EXIT_INVALID)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let started = Instant::now();
    let mut timings = args.timings.then(Timings::new);
    let timeout = Duration::from_secs(args.timeout.max(1));
    let format: Format = match args.format.parse() {
        Ok(f @ (Format::Text | Format::Json | Format::Sarif)) => f,
        _ => {
            return fail(format!(
                "unknown format `{}` (text, json or sarif)",
                args.format
            ));
        }
    };
    let loaded = cpps_topology::load_or_default(args.live.topology.as_deref());
    let topology = match loaded {
        Ok(t) => t,
        Err(e) => {
            eprint!("{}", e.render());
            return ExitCode::from(cpps_topology::check::EXIT_INVALID);
        }
    };
    let evidence = match load_evidence(&args.iac) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let mut mark = started;
    if let Some(t) = &timings {
        mark = t.phase("load", mark);
    }
    let lookup = |k: &str| std::env::var(k).ok();
    let endpoints = match args.live.endpoints(&topology, &lookup) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    // What is left of `--timeout` after loading: the observation and every call end by then.
    let left = timeout.saturating_sub(started.elapsed());
    let sources = match endpoints.sources_for(&topology, &ClientOptions::bounded_by(left), &lookup)
    {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    if sources.is_empty() {
        eprintln!("audit: no live endpoint is configured: static findings only");
    }
    let options = ObserveOptions::new(args.concurrency, left);
    // A progress bar per site on a terminal, for text output only; none in CI or for JSON.
    let show_bars = format == Format::Text
        && std::io::stderr().is_terminal()
        && std::env::var_os("CI").is_none();
    if let Some(t) = &timings {
        mark = t.phase("endpoints", mark);
    }
    let observed = observe(&sources, &options, show_bars, timings.as_mut()).await;
    if let Some(t) = &timings {
        mark = t.phase("observe", mark);
    }
    let iac_checks = evidence.as_ref().map(IacChecks::new);
    let extra: Vec<&dyn cpps_topology::check::ExtraChecks> = iac_checks
        .iter()
        .map(|c| c as &dyn cpps_topology::check::ExtraChecks)
        .collect();
    let audit = live::audit_with(&topology, &observed, &LiveOptions::default(), &extra);
    if let Some(t) = &timings {
        mark = t.phase("audit", mark);
    }
    print!("{}", audit.report.render(format));
    if format == Format::Text {
        print_sources_summary(&observed, &audit.diff);
        if let Some(evidence) = &evidence {
            print_three_sources(&topology, evidence, &audit.diff);
        }
    }
    if let Some(t) = &timings {
        t.phase("render", mark);
        t.print();
    }
    let fix_failed = if args.fix {
        let deadline = started + timeout;
        match run_fix(
            &topology, &observed, &endpoints, &lookup, format, args.apply, deadline,
        )
        .await
        {
            Ok(failed) => failed,
            Err(e) => return fail(e),
        }
    } else {
        false
    };
    if fix_failed || audit.report.fails(args.deny.is_some()) {
        ExitCode::from(cpps_topology::check::EXIT_FINDINGS)
    } else {
        ExitCode::from(cpps_topology::check::EXIT_OK)
    }
}

/// The IaC evidence of `--iac`, none without it.
fn load_evidence(iac: &[String]) -> Result<Option<Evidence>, cpps_topology::iac::IacError> {
    if iac.is_empty() {
        return Ok(None);
    }
    IacInputs::parse(iac.iter().map(String::as_str))
        .and_then(|inputs| Evidence::load(&inputs))
        .map(Some)
}

/// What the live diff says of a component, for the three-source table.
fn live_seen(evidence: &live::diff::Evidence) -> LiveSeen {
    match evidence {
        live::diff::Evidence::Present => LiveSeen::Present,
        live::diff::Evidence::Absent => LiveSeen::Absent,
        live::diff::Evidence::Unknown(_) => LiveSeen::Unknown,
        live::diff::Evidence::NotObserved => LiveSeen::NotObserved,
    }
}

/// How many sources of each site answered, the failures, and the evidence counts.
fn print_sources_summary(observed: &Observation, diff: &live::diff::Diff) {
    println!();
    for site in &observed.sites {
        let (configured, answered) = site.answered();
        println!(
            "site {}: {answered}/{configured} sources answered",
            site.site
        );
        for failure in site.failures() {
            println!("  {failure}");
        }
    }
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for c in &diff.components {
        *counts.entry(c.evidence.as_str()).or_default() += 1;
    }
    let counts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!("evidence: {}", counts.join(", "));
}

/// Each component's three sources side by side: the topology's claim, the IaC, the live diff.
fn print_three_sources(topology: &Topology, evidence: &Evidence, diff: &live::diff::Diff) {
    let seen: BTreeMap<&str, LiveSeen> = diff
        .components
        .iter()
        .map(|c| (c.id.as_str(), live_seen(&c.evidence)))
        .collect();
    let live_of = |id: &str| seen.get(id).copied().unwrap_or(LiveSeen::NotObserved);
    println!();
    println!("three sources (≠: the evidence contradicts the claim, ?: it cannot decide):");
    print!(
        "{}",
        render_table(&sources_table(topology, evidence, &live_of))
    );
}

/// `--fix`: prints the PVE-003 plan and, with `--apply`, adds its HA resources site by site
/// before `deadline`. Returns whether an add was not confirmed; an error when a client cannot
/// be built from the endpoints.
async fn run_fix(
    topology: &Topology,
    observed: &Observation,
    endpoints: &Endpoints,
    lookup: &dyn Fn(&str) -> Option<String>,
    format: Format,
    apply: bool,
    deadline: Instant,
) -> Result<bool, EndpointsError> {
    let plan = live::runbook_ha::plan_ha(topology, observed);
    // Machine-readable reports keep stdout to themselves.
    let show = |line: &str| {
        if format == Format::Text {
            print!("{line}");
        } else {
            eprint!("{line}");
        }
    };
    show("\n");
    show(&plan.to_text());
    if !apply {
        if !plan.is_empty() {
            show("fix plan only: nothing was changed; run again with --apply\n");
        }
        return Ok(false);
    }
    let mut fix_failed = false;
    let left = deadline.saturating_duration_since(Instant::now());
    let options = ClientOptions::bounded_by(left);
    let mut sites: Vec<&str> = plan.adds.iter().map(|a| a.site.as_str()).collect();
    sites.dedup();
    for site in sites {
        let Some(client) = endpoints.proxmox_client(site, &options, lookup)? else {
            fix_failed = true;
            show(&format!("fix: site {site} has no Proxmox endpoint\n"));
            continue;
        };
        // The wait ends a little before the run does, so that the read-back after it and the
        // outcome's own error (what the HA manager showed) still fit.
        let left = deadline.saturating_duration_since(Instant::now());
        let wait = cpps_proxmox::family::WaitOptions::default()
            .timeout(Some(
                left.saturating_sub((left / 5).min(Duration::from_secs(2))),
            ))
            .intervals(Duration::from_millis(200), Duration::from_secs(2));
        let applied = tokio::time::timeout_at(
            deadline.into(),
            live::runbook_ha::apply_ha(&client, &plan, site, &wait),
        )
        .await;
        let Ok(outcomes) = applied else {
            fix_failed = true;
            show(&format!(
                "fix: --timeout reached while adding the HA resources of {site}: check `ha-manager status` there\n"
            ));
            continue;
        };
        for outcome in outcomes {
            fix_failed |= !outcome.is_done();
            show(&format!("fix: {outcome}\n"));
        }
    }
    Ok(fix_failed)
}
