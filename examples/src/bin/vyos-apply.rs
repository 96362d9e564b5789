//! `vyos-apply`: applies `set`/`delete` commands to a VyOS router safely. By default it only
//! plans: it prints what would be sent and whether the router's API has commit-confirm. With
//! `--apply` it commits with commit-confirm (`--confirm-minutes`), checks WireGuard handshakes,
//! BGP sessions, VRRP roles and the addresses named by `--reach` (the API's `/traceroute`
//! where `/openapi.json` lists it, else route and neighbour tables) on this router and, with `--check`, on its peer, and confirms
//! only when nothing that held before broke; otherwise the router's timer reverts the change,
//! or, where the API has no commit-confirm, the inverse batch is sent. Also the commit
//! revisions: `--revisions`, `--diff N`, `--rollback-soft N` (planned, or applied as above;
//! refused when the log says it is stale, without `commit-revisions`); and `--upgrade-plan URL`, the staged image upgrade of the pair (plan only).
//!
//! ```text
//! VYOS_URL=https://192.168.10.1 VYOS_API_KEY=… [VYOS_FINGERPRINT=…] \
//!   [VYOS_PEER_URL=… VYOS_PEER_API_KEY=… VYOS_PEER_FINGERPRINT=…] \
//!   vyos-apply [--commands FILE] [--apply [--confirm-minutes N] [--check] [--reach ADDR]… [--settle S]
//!              [--commit-timeout S] [--check-timeout S] [--confirm-timeout S]
//!              [--allow-unsaved-revert]]
//!              [--revisions | --diff N [--diff-from M] | --rollback-soft N | --upgrade-plan URL]
//!              [--timeout SECONDS]
//! ```
#![forbid(unsafe_code)]

use std::num::NonZeroU32;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use cpps_vyos::apply::{
    ApplyOptions, ApplyOutcome, StepBudgets, revert_archive_missing, safe_apply,
    unsaved_before_arming,
};
use cpps_vyos::{Client, ClientBuilder, Command, CommitConfirmSupport, Url};

/// Apply commands to a VyOS router, proving the change from its peer before keeping it.
///
/// The router comes from VYOS_URL, VYOS_API_KEY and VYOS_FINGERPRINT (SHA-256 of its
/// certificate, AB:CD:…; without it the system roots verify it); its peer, for --check, from
/// VYOS_PEER_URL, VYOS_PEER_API_KEY and VYOS_PEER_FINGERPRINT.
///
/// Without --apply nothing is written. With --apply the commands are committed with
/// commit-confirm where the router's API has it (`confirm_time` in /openapi.json): if a check
/// that held before the change fails after it, the change is NOT confirmed and VyOS reverts it
/// when the timer runs out (reboot into the saved configuration, or reload, as its answer
/// says). Where the API has no commit-confirm (VyOS 1.4), the change is committed for good and
/// rolled back by sending the inverse commands when a check fails. Secrets are never printed.
///
/// --reach ADDR (repeatable) names addresses that must stay reachable, from this router and,
/// with --check, from the peer. Where the router's /openapi.json lists /traceroute (later 1.5
/// builds, vyos-1x PR #4151), its mtr probe proves delivery: the last hop is the address itself
/// with less than 100 % loss (one mtr cycle a probe, so one not delivered is sent again, three
/// in all), and the route's path is compared all the same. Elsewhere the API
/// has no ping operation and no probe (1.4, and 1.5 before that PR), so "reachable" is read from the router's tables: the best route to ADDR
/// (`show ip route ADDR`, FRR) is installed with an active next hop that is no blackhole or
/// `unreachable`, and that next hop's neighbour (`show arp` / `show ipv6 neighbors`) is not
/// FAILED or INCOMPLETE. Over a point-to-point interface (WireGuard, tunnels, PPP), which keeps
/// no neighbour entries, the route alone is the evidence and the check says so; elsewhere a
/// missing neighbour entry cannot tell. The path (next hop and interface) must stay the same
/// after the change, and never fall back to the default route unless ADDR was reached by it
/// before. The tables show that the router forwards towards ADDR, not that ADDR answers. A
/// table or probe that cannot be read counts as broken, so nothing is confirmed.
#[derive(Parser)]
#[command(name = "vyos-apply", version)]
struct Args {
    /// A file of `set`/`delete` commands, one a line, as `show configuration commands` prints
    /// them: a value in `'` is read as VyOS escapes it (`'a\"b'` is `a"b`), one in `"` as written.
    #[arg(long, value_name = "FILE")]
    commands: Option<PathBuf>,
    /// Commit the change (default: plan only).
    #[arg(long)]
    apply: bool,
    /// Minutes of commit-confirm before VyOS reverts an unconfirmed change.
    #[arg(long, value_name = "N", default_value_t = NonZeroU32::MIN.saturating_add(4))]
    confirm_minutes: NonZeroU32,
    /// Also check from the peer router (VYOS_PEER_URL, VYOS_PEER_API_KEY).
    #[arg(long)]
    check: bool,
    /// An address that must stay reachable (repeatable): checked before and after the change
    /// on this router and, with --check, on the peer; see above for what "reachable" means.
    #[arg(long, value_name = "ADDR")]
    reach: Vec<std::net::IpAddr>,
    /// Seconds to wait after the commit before checking. Only a proof made after the commit
    /// counts: a WireGuard handshake after it, or more bytes received than right after it. Tunnels
    /// re-handshake once their session is 120 s old (REKEY_AFTER_TIME in wireguard's
    /// messages.h) and a packet goes through, so the default, 130, lets an untouched tunnel
    /// prove itself. A quiet peer that shows no proof yet, and whose renewal is not due, is
    /// read again when it is due if that fits in --confirm-minutes (with the check and confirm
    /// timeouts), and judged then; otherwise the change is neither kept nor undone.
    #[arg(long, value_name = "SECONDS", default_value_t = 130)]
    settle: u64,
    /// With --apply: seconds for the commit and its read-back (and, when the write fails or a
    /// check fails on a router without commit-confirm, for the inverse batch). Past it the write
    /// counts as one without answer: the configuration is read back.
    #[arg(long, value_name = "SECONDS", default_value_t = 60)]
    commit_timeout: u64,
    /// With --apply: seconds for the checks after the settle, both routers at once. A router
    /// not read by then cannot tell, which counts as broken.
    #[arg(long, value_name = "SECONDS", default_value_t = 45)]
    check_timeout: u64,
    /// With --apply: seconds for the confirm and the save after it (on a router without
    /// commit-confirm, for the save).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    confirm_timeout: u64,
    /// Arm commit-confirm even where the running configuration has commits that are not saved.
    /// By default nothing is sent then: with the `reboot` action, a revert reboots into
    /// /config/config.boot and drops those commits too (vyos-1x `config_mgmt.py` `revert`), and
    /// a saved file that cannot be read cannot tell what it would drop.
    #[arg(long)]
    allow_unsaved_revert: bool,
    /// List the commit revisions (`show system commit`).
    #[arg(long)]
    revisions: bool,
    /// Show what commit N changed: revision N+1 against N (`show system commit diff N`, vyos-1x
    /// `config_mgmt.py` `show_commit_diff`). What changed since N is `--diff 0 --diff-from N`.
    #[arg(long, value_name = "N")]
    diff: Option<u32>,
    /// With --diff M: what changed from revision N to M (`show system commit file M compare N`).
    #[arg(long, value_name = "N", requires = "diff")]
    diff_from: Option<u32>,
    /// Go back to revision N without reboot: the commands that turn the running configuration
    /// into it, planned, or applied safely with --apply.
    #[arg(long, value_name = "N")]
    rollback_soft: Option<u32>,
    /// Plan (only) an upgrade to the image at URL. With VRRP groups on this router: the pair,
    /// the VRRP backup first, then the checks, then the master (needs VYOS_PEER_URL,
    /// VYOS_PEER_API_KEY). Without (one router a site): save, back up, add the image, reboot in
    /// a window, check from the peer site's router, and the way back (`set system image
    /// default-boot` of the current image).
    #[arg(long, value_name = "URL")]
    upgrade_plan: Option<String>,
    /// The router's API URL (default: $VYOS_URL).
    #[arg(long, value_name = "URL")]
    url: Option<Url>,
    /// Seconds for the reads: of a plan or a read-only run (its whole time), and, with
    /// --apply, of the plan and of the reads before the change (each). With --apply and
    /// commit-confirm, the steps after the commit (--commit-timeout + --settle +
    /// --check-timeout + --confirm-timeout) must fit in --confirm-minutes, or nothing is sent:
    /// VyOS would revert while the run still checks.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    let started = Instant::now();
    let activity = cpps_http::Activity::default();
    let limit = run_limit(&args);
    match tokio::time::timeout(limit, run(&args, activity.clone())).await {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("vyos-apply: {e:#}");
            ExitCode::FAILURE
        }
        Err(_) => {
            eprintln!(
                "vyos-apply: gave up after {:.1} s (the sum of the step timeouts): {}",
                started.elapsed().as_secs_f64(),
                activity.snapshot()
            );
            ExitCode::FAILURE
        }
    }
}

/// The step budgets of --apply.
fn budgets(args: &Args) -> StepBudgets {
    let mut b = StepBudgets::default();
    b.pre_reads = Duration::from_secs(args.timeout.max(1));
    b.commit = Duration::from_secs(args.commit_timeout.max(1));
    b.checks = Duration::from_secs(args.check_timeout.max(1));
    b.confirm = Duration::from_secs(args.confirm_timeout.max(1));
    b
}

/// The whole run's limit: --timeout without --apply; with it, the plan, then each step's
/// budget (a second commit budget for an inverse batch), and a margin.
fn run_limit(args: &Args) -> Duration {
    let reads = Duration::from_secs(args.timeout.max(1));
    if !args.apply {
        return reads;
    }
    let b = budgets(args);
    reads
        + b.pre_reads
        + b.after_commit(Duration::from_secs(args.settle))
        + b.commit
        + Duration::from_secs(10)
}

/// The longest single request any step may make.
fn request_limit(args: &Args) -> Duration {
    let b = budgets(args);
    b.pre_reads.max(b.commit).max(b.checks).max(b.confirm)
}

/// A client from the environment; `prefix` maps `VYOS_` to `VYOS_PEER_` for the peer.
fn client(
    url: Option<&Url>,
    peer: bool,
    timeout: Duration,
    activity: cpps_http::Activity,
) -> anyhow::Result<Client> {
    let url = url.map(Url::to_string);
    let lookup = |name: &str| match (name, &url) {
        (cpps_vyos::ENV_URL, Some(u)) => Some(u.clone()),
        _ if peer => cpps_http::env::process_env(&name.replacen("VYOS_", "VYOS_PEER_", 1)),
        _ => cpps_http::env::process_env(name),
    };
    ClientBuilder::from_env(&lookup)
        .context(if peer {
            "peer settings"
        } else {
            "router settings"
        })?
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .request_timeout(timeout)
        .deadline(timeout)
        .activity(activity)
        .build()
        .context("HTTP client")
}

async fn run(args: &Args, activity: cpps_http::Activity) -> anyhow::Result<ExitCode> {
    let timeout = request_limit(args);
    let router = client(args.url.as_ref(), false, timeout, activity.clone())?;
    if args.revisions {
        let revisions = router
            .commit_revisions()
            .await
            .context("show system commit")?;
        if revisions.iter().any(|r| r.stale) {
            println!(
                "STALE: commit-revisions is not configured, so VyOS archives no commit; these \
                 revisions are not counted back from the running configuration, and \
                 --rollback-soft refuses them"
            );
        }
        for r in revisions {
            let comment = r.comment.map(|c| format!("  ({c})")).unwrap_or_default();
            println!(
                "{}  {}  by {}  via {}{comment}",
                r.number, r.time, r.user, r.via
            );
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(image) = &args.upgrade_plan {
        return upgrade_plan(&router, image, timeout, activity.clone()).await;
    }
    if let Some(n) = args.diff {
        print!(
            "{}",
            router
                .commit_diff(n, args.diff_from)
                .await
                .context("show system commit diff")?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let commands = match (&args.commands, args.rollback_soft) {
        (Some(path), None) => {
            // Capped as a router's answer is: an endless or huge file is refused unread.
            let text = cpps_vyos::backup::read_file(path).context("the commands file")?;
            cpps_vyos::config::parse_commands(&text).context("the commands file")?
        }
        (None, Some(n)) => router
            .rollback_soft_commands(n)
            .await
            .with_context(|| format!("revision {n}"))?,
        _ => bail!("give either --commands FILE or --rollback-soft N"),
    };
    plan(&router, &commands, args).await?;
    if !args.apply {
        println!("plan only: nothing was sent (use --apply)");
        return Ok(ExitCode::SUCCESS);
    }
    let peer = if args.check {
        Some(client(None, true, timeout, activity)?)
    } else {
        None
    };
    let mut opts = ApplyOptions::new(args.confirm_minutes);
    opts.settle = Duration::from_secs(args.settle);
    opts.budgets = budgets(args);
    opts.reach.clone_from(&args.reach);
    opts.allow_unsaved_revert = args.allow_unsaved_revert;
    let report = safe_apply(&router, peer.as_ref(), &commands, &opts)
        .await
        .context("apply")?;
    for c in report.after.iter().filter(|c| c.healthy != Some(true)) {
        println!("check {}: {} is {}", c.router, c.subject, c.state);
    }
    print!("{report}");
    Ok(match report.outcome {
        ApplyOutcome::Kept { .. } => ExitCode::SUCCESS,
        _ => ExitCode::from(2),
    })
}

/// `--upgrade-plan`: the staged plan of a VRRP pair when this router has VRRP groups, else the
/// plan for a site with one router (seed 004: one VyOS router a site today), checked from the
/// peer site's router (VYOS_PEER_URL). Plan only.
async fn upgrade_plan(
    router: &Client,
    image: &str,
    timeout: Duration,
    activity: cpps_http::Activity,
) -> anyhow::Result<ExitCode> {
    let this = router
        .vrrp_status()
        .await
        .context("show vrrp (this router)")?;
    let plan = if this.is_empty() {
        // Read now: this plan is made around image changes (S8).
        let version = router.version_fresh().await.context("show version")?;
        // Images are named after the version (`show version` on 1.4 says `VyOS 1.4.0`, the
        // image is `1.4.0`); `show system image` lists them.
        let current = match version.text.trim_start_matches("VyOS ") {
            "" => "the current image (see `show system image`)".to_owned(),
            name => name.to_owned(),
        };
        println!("this router has no VRRP group: one router at this site");
        cpps_vyos::upgrade::single_router_plan("this", "peer site", &current, image)
    } else {
        let peer = client(None, true, timeout, activity)?;
        let other = peer.vrrp_status().await.context("show vrrp (peer)")?;
        // The configured groups say which have `no-preempt`, and so which roles the last
        // check expects (the pair's configurations agree or `pair` reports it).
        let configured = router
            .config_tree()
            .await
            .context("read this router's configuration")?
            .vrrp_groups()
            .context("high-availability vrrp group")?;
        cpps_vyos::upgrade::upgrade_plan(("this", &this), ("peer", &other), &configured, image)
    };
    print!("{plan}");
    println!("plan only: nothing was sent");
    Ok(if plan.refused.is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::SUCCESS
    })
}

/// Prints the plan: the router's capability and the commands, secrets hidden
/// (`ConfigurePlan`'s text redacts them).
async fn plan(router: &Client, commands: &[Command], args: &Args) -> anyhow::Result<()> {
    let running = router
        .config_tree()
        .await
        .context("the running configuration")?;
    println!(
        "router: {}",
        running.host_name().unwrap_or("(no host name)")
    );
    let support = router
        .commit_confirm_support()
        .await
        .context("/openapi.json")?;
    let has_confirm = support == CommitConfirmSupport::Yes;
    match support {
        CommitConfirmSupport::Yes => {
            println!("commit-confirm: yes (confirm_time in /openapi.json)");
        }
        CommitConfirmSupport::No { reason } | CommitConfirmSupport::Unknown { reason } => {
            println!(
                "commit-confirm: NO ({reason}); with --apply, a failed check is undone by sending the inverse commands"
            );
        }
        _ => println!("commit-confirm: NO (an answer this program does not know)"),
    }
    if has_confirm {
        let mut opts = ApplyOptions::new(args.confirm_minutes);
        opts.allow_unsaved_revert = args.allow_unsaved_revert;
        let refusal = match unsaved_before_arming(router, &running, &opts).await {
            Some(why) => Some(why),
            None => revert_archive_missing(router).await,
        };
        if let Some(refusal) = refusal {
            println!("with --apply: REFUSED: {refusal}");
        }
    }
    let minutes = has_confirm.then_some(args.confirm_minutes);
    let plan = router
        .plan_configure(commands, minutes)
        .await
        .context("plan")?;
    print!("{plan}");
    Ok(())
}
