//! `linstor-health`: nodes, storage pools and every resource with its DRBD health class.
//!
//! ```console
//! LS_CONTROLLERS=linstor+ssl://10.10.20.1,pve-ippri-11 cargo run -p cpps-examples --bin linstor-health -- --format json
//! ```
//!
//! Controllers and credentials come from the environment as golinstor reads them
//! (`LS_CONTROLLERS`, `LS_USERNAME`/`LS_PASSWORD`, `LS_BEARER_TOKEN_FILE`, `LS_ROOT_CA`/
//! `LS_ROOT_CA_FILE`, `LS_USER_CERTIFICATE`/`LS_USER_KEY` and their `_FILE` forms; see
//! `cpps_linstor::ClientBuilder::from_env`). Read-only: it changes nothing.
//!
//! `--timeout SECONDS` (default 30) bounds the whole run: it is the client's deadline, and the
//! run stops when it is spent, whatever the controllers do. Each request gets a share of it
//! (divided by the number of controllers, at least 3 s), so that a controller that accepts the
//! connection and never answers leaves time to fail over to the next.
//!
//! Each resource shows its class as linstor-client would (a top layer other than DRBD is
//! "created", `INACTIVE` replicas are skipped, a group without `place_count` wants 2), its
//! replicas per site (`--site-property`, default `Aux/site`) and its risks.
//!
//! DRBD connections in `StandAlone` are listed with which side's data is newer where the disk
//! states tell, and as a possible split brain where both sides are `UpToDate`; it never
//! guesses which side to keep.
//!
//! With `--off-site`, it also reads the remotes, the backups in S3 remotes and the backup
//! schedules, and says per resource where its newest off-site copy is and how old it is. Only
//! finished, successful backups count; a schedule's last shipment is shown as an unconfirmed
//! attempt, since LINSTOR records when shipping starts, not whether it finished. An S3 backup
//! names no cluster, so one another cluster shipped to the same bucket under the same resource
//! name cannot be told apart: such copies say "cannot tell which cluster", and a resource
//! recent only by them is "CANNOT TELL", not fresh.
//!
//! With `--what-if-site-down SITE`, it also reads the controller's properties and says per
//! resource what that site going dark would do, by DRBD's quorum rules
//! (`cpps_linstor::site_loss`): loses quorum, loses its last `UpToDate` replica, loses its
//! Primary, or survives; a replica on a node without a known site is "cannot tell". Sites come
//! from the node property `--site-property` (default `Aux/site`) and, for nodes without it, from
//! `--site NODE=SITE` (repeatable). A site no node is known in is refused (exit 2), so that a
//! misspelt name does not read as "everything survives".
//!
//! With `--evacuate NODE`, it plans that node's evacuation for maintenance
//! (`cpps_linstor::evacuate`): per resource what the controller will do (deleted, replaced and
//! which nodes could take the new replica, or left), and whether it drops below its place count
//! or loses quorum or its last `UpToDate` replica while the node is away. It changes nothing
//! unless `--apply` is also given; then it sends `PUT /v1/nodes/NODE/evacuate`, and refuses to
//! when the pre-check finds a resource that would lose quorum or its last `UpToDate` replica.
//!
//! With `--l2l-target REMOTE=CONTROLLERS` (repeatable, with `--off-site`), the LINSTOR remote
//! `REMOTE` is read on its target cluster (`GET /v1/view/snapshots` there, with the same `LS_*`
//! credentials and TLS settings): a shipment counts as a copy once that cluster holds it in
//! full (`cpps_linstor::dr::assess_with_targets`), and was sent by this cluster (its
//! `Backup/FromClusterUUID` is this controller's `Cluster/LocalID`). Without it, copies on a
//! LINSTOR remote are reported as not confirmed.
//!
//! With `--vip URL`, an entry of `LS_CONTROLLERS` that is the controllers' VRRP VIP, every
//! controller of the list is asked directly first (`Client::probe_controllers`): which node's
//! controller answers, and whether the VIP gives the same answers. Calls then go to the VIP
//! first. A VIP that does not answer, or answers unlike the active node, or cannot be told,
//! makes the run exit 1.
//!
//! Where the controllers run as a drbd-reactor HA pair, the node on which their database
//! resource `linstor_db` is Primary runs the active one (`cpps_linstor::ha`); it is shown, and
//! the run's later calls go to that controller first.
//!
//! Exit status: 0 when all is well (pools low on space and risks are reported but do not fail), 1 when a
//! resource is degraded, desynced, disconnected or unknown, a node is evicted or offline, or
//! (with `--off-site`) a resource has no off-site copy younger than `--max-copy-age` known to be
//! this cluster's, or the copies could not be read, or (with `--what-if-site-down`) a resource would lose quorum or its
//! last `UpToDate` replica, or cannot be told (losing a Primary alone does not fail: a guest
//! running in the lost site always does), or (with `--evacuate`) the pre-check blocks the
//! evacuation; 2 when the controllers could not be asked within the timeout, the site or node
//! is not known, or the evacuation request failed.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_linstor::dr;
use cpps_linstor::evacuate;
use cpps_linstor::ha::{self, ActiveController};
use cpps_linstor::health::{self, HealthOptions};
use cpps_linstor::site_loss::{self, SiteLossEffect};
use cpps_linstor::split_brain;
use cpps_linstor::{Client, ClientBuilder, NodeName};

/// LINSTOR and DRBD health from the controllers in LS_CONTROLLERS.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// A pool with less free space than this fraction is reported as running out of space.
    #[arg(long, default_value_t = 0.10, value_parser = parse_fraction)]
    low_space: f64,
    /// The node property that names a node's site; each resource lists its replicas per site
    /// and the risks of its placement (all in one failure domain, no tie-breaker, cross-site
    /// replication, a quorum policy unlike its group's).
    #[arg(long, value_name = "KEY", default_value = health::DEFAULT_SITE_PROPERTY)]
    site_property: String,
    /// The longest the whole run may take, in seconds (connecting, every request, fail-over to
    /// the next controller); when it is spent the run stops with exit status 2.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    timeout: u64,
    /// Also read the remotes, backups and backup schedules, and say per resource which
    /// off-site copy it has and how old it is.
    #[arg(long)]
    off_site: bool,
    /// With --off-site: a resource whose newest off-site copy is older than this many hours
    /// (or that has none) is reported as stale and makes the run exit 1; so does one recent
    /// only by copies whose cluster cannot be told (an S3 backup names no cluster).
    #[arg(long, value_name = "HOURS", default_value_t = 26, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    max_copy_age: u64,
    /// Say per resource what this site going dark would do: lose quorum, lose its last
    /// UpToDate replica, lose its Primary, or survive.
    #[arg(long, value_name = "SITE")]
    what_if_site_down: Option<String>,
    /// The site of a node that does not carry --site-property, as NODE=SITE (repeatable).
    #[arg(long = "site", value_name = "NODE=SITE", value_parser = parse_node_site)]
    sites: Vec<(String, String)>,
    /// Plan the evacuation of this node for maintenance: what moves where, and whether a
    /// resource drops below its place count or loses quorum while the node is away.
    #[arg(long, value_name = "NODE")]
    evacuate: Option<NodeName>,
    /// With --evacuate: send the evacuation, unless the pre-check finds a resource that would
    /// lose quorum or its last UpToDate replica.
    #[arg(long, requires = "evacuate")]
    apply: bool,
    /// With --off-site: read the target cluster of LINSTOR remote REMOTE through CONTROLLERS
    /// (an LS_CONTROLLERS-style list), to confirm its copies (repeatable).
    #[arg(long = "l2l-target", value_name = "REMOTE=CONTROLLERS", value_parser = parse_node_site, requires = "off_site")]
    l2l_targets: Vec<(String, String)>,
    /// The entry of LS_CONTROLLERS that is the controllers' VRRP VIP: probe every controller,
    /// say which node is active and whether the VIP agrees, and send calls to the VIP first.
    /// Read as an LS_CONTROLLERS entry: `10.10.20.1` and `http://10.10.20.1` mean
    /// `http://10.10.20.1:3370/`.
    #[arg(long, value_name = "URL")]
    vip: Option<String>,
}

fn parse_node_site(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((node, site)) if !node.trim().is_empty() && !site.trim().is_empty() => {
            Ok((node.trim().to_owned(), site.trim().to_owned()))
        }
        _ => Err(format!("`{text}` is not NODE=SITE")),
    }
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

async fn run(args: &Args) -> anyhow::Result<bool> {
    let timeout = Duration::from_secs(args.timeout);
    let deadline = tokio::time::Instant::now() + timeout;
    let controllers = std::env::var("LS_CONTROLLERS").unwrap_or_default();
    let share = request_share(timeout, &controllers);
    let client = ClientBuilder::from_env(&cpps_http::env::process_env)?
        .deadline(timeout)
        .connect_timeout(share.min(Duration::from_secs(5)))
        .request_timeout(share)
        .build()?;
    let findings = read_and_judge(args, &client, timeout, deadline).await?;
    match args.format {
        Format::Text => print_text(&findings),
        Format::Json => print_json(&findings, &client)?,
    }
    if let Some(Err(reason)) = &findings.off_site {
        eprintln!("linstor-health: off-site copies not readable: {reason}");
    }
    if let Some(plan) = findings.evacuation.as_ref().filter(|_| args.apply) {
        apply_evacuation(args, &client, plan, deadline).await?;
    }
    Ok(findings.fails())
}

/// What one run read from the controllers and judged, ready to print.
struct Findings {
    report: health::HealthReport,
    standalone: Vec<split_brain::StandAlone>,
    vrrp: Option<ha::ControllerHa>,
    ha_controller: ActiveController,
    site_loss: Option<site_loss::SiteLossReport>,
    evacuation: Option<evacuate::EvacuationPlan>,
    /// `None` without `--off-site`; the reason when the DR view could not be read.
    off_site: Option<Result<dr::DrReport, String>>,
}

impl Findings {
    /// Whether the run exits 1: alerts, off-site copies stale, unconfirmed or unreadable, a
    /// site loss that harms, a blocked evacuation or VIP trouble.
    fn fails(&self) -> bool {
        self.report.has_alerts()
            || self.stale()
            || self.cannot_tell()
            || self.site_losses()
            || self.blocked()
            || self.vip_trouble()
            || matches!(self.off_site, Some(Err(_)))
    }

    fn stale(&self) -> bool {
        matches!(&self.off_site, Some(Ok(view)) if view.stale > 0)
    }

    /// Recent only by copies another cluster may have shipped: not known to be fine.
    fn cannot_tell(&self) -> bool {
        matches!(&self.off_site, Some(Ok(view)) if view.cannot_tell > 0)
    }

    fn blocked(&self) -> bool {
        self.evacuation
            .as_ref()
            .is_some_and(evacuate::EvacuationPlan::blocked)
    }

    fn vip_trouble(&self) -> bool {
        self.vrrp
            .as_ref()
            .is_some_and(|ha| ha.vip != ha::VipState::Agrees)
    }

    /// Whether the site going dark loses a resource's quorum or last `UpToDate` replica, or
    /// cannot be told.
    fn site_losses(&self) -> bool {
        self.site_loss.as_ref().is_some_and(|r| {
            r.resources.iter().any(|resource| {
                resource.effects.iter().any(|e| {
                    matches!(
                        e,
                        SiteLossEffect::LosesQuorum
                            | SiteLossEffect::LosesLastUpToDate
                            | SiteLossEffect::CannotTell
                    )
                })
            })
        })
    }
}

/// What the run was waiting for when its time ran out: the requests in flight and those that
/// got no answer, each naming its controller.
fn spent(client: &Client, args: &Args) -> anyhow::Error {
    let controllers: Vec<String> = client.controllers().iter().map(|u| u.to_string()).collect();
    anyhow::anyhow!(
        "no complete answer from the LINSTOR controllers ({}) within --timeout {}s: {}",
        controllers.join(", "),
        args.timeout,
        client.activity()
    )
}

/// Reads the cluster (and the VIP, controller properties and DR view the flags ask for) and
/// judges it.
async fn read_and_judge(
    args: &Args,
    client: &Client,
    timeout: Duration,
    deadline: tokio::time::Instant,
) -> anyhow::Result<Findings> {
    // The client's deadline bounds each call on one controller; this bounds the whole run,
    // fail-over included. The call is polled through a reference, so that it is still in
    // flight (and named) when the time runs out.
    let vrrp = match &args.vip {
        Some(vip) => Some(probe_vip(client, &parse_vip(vip)?, deadline).await?),
        None => None,
    };
    let mut reading = std::pin::pin!(client.cluster_state());
    let state = tokio::time::timeout_at(deadline, &mut reading)
        .await
        .map_err(|_| spent(client, args))??;
    // The promoter runs the controller where its database is Primary: ask that one first,
    // unless the VIP was probed and answers.
    let ha_controller = ha::active_controller(&state, ha::DEFAULT_CONTROLLER_RESOURCE);
    if vrrp.as_ref().and_then(|ha| ha.preferred()).is_none() {
        client.prefer_controller(&ha_controller.hosts());
    }
    let mut options = HealthOptions::default();
    options.pool_low_free_fraction = args.low_space;
    options.site_property.clone_from(&args.site_property);
    options.node_sites = args.sites.iter().cloned().collect();
    let report = health::assess(&state, &options);
    let controller_props = if args.what_if_site_down.is_some() || args.evacuate.is_some() {
        let mut reading = std::pin::pin!(client.controller_properties());
        tokio::time::timeout_at(deadline, &mut reading)
            .await
            .map_err(|_| spent(client, args))??
            .0
    } else {
        Default::default()
    };
    let site_loss = match &args.what_if_site_down {
        Some(site) => Some(what_if(&state, &options, &controller_props, site)?),
        None => None,
    };
    let evacuation = match &args.evacuate {
        Some(node) => {
            if !state.nodes.iter().any(|n| n.name == node.as_str()) {
                anyhow::bail!("node `{node}` is not known to the controller");
            }
            Some(evacuate::plan(&state, &controller_props, node, &[], &[]))
        }
        None => None,
    };
    // The DR view is read after the health view, within what is left of the timeout: when it
    // cannot be read, the health report is still printed, with the reason.
    let off_site = if args.off_site {
        Some(read_off_site(args, client, &report, timeout, deadline).await)
    } else {
        None
    };
    // A StandAlone connection already makes its resource disconnected, an alert.
    let standalone = split_brain::standalone(&state);
    Ok(Findings {
        report,
        standalone,
        vrrp,
        ha_controller,
        site_loss,
        evacuation,
        off_site,
    })
}

/// The off-site copies of `report`'s resources (`--off-site`), or why they could not be read.
async fn read_off_site(
    args: &Args,
    client: &Client,
    report: &health::HealthReport,
    timeout: Duration,
    deadline: tokio::time::Instant,
) -> Result<dr::DrReport, String> {
    let names: Vec<&str> = report.resources.iter().map(|r| r.name.as_str()).collect();
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let max_age = Duration::from_secs(args.max_copy_age * 3600);
    let (targets, target_errors) = read_l2l_targets(args, timeout, deadline).await;
    let mut reading = std::pin::pin!(client.dr_state());
    match tokio::time::timeout_at(deadline, &mut reading).await {
        Ok(Ok(dr_state)) => {
            let mut view = dr::assess_with_targets(&dr_state, &targets, &names, now_ms, max_age);
            view.unreadable.extend(target_errors);
            Ok(view)
        }
        Ok(Err(e)) => Err(format!("{:#}", anyhow::Error::from(e))),
        Err(_) => Err(spent(client, args).to_string()),
    }
}

fn print_text(findings: &Findings) {
    print!("{}", health::render_text(&findings.report));
    print!("{}", split_brain::render_text(&findings.standalone));
    if let Some(ha) = &findings.vrrp {
        print!("{}", render_vrrp(ha));
    }
    match &findings.ha_controller {
        ActiveController::Node { node, .. } => {
            println!("CONTROLLER HA: linstor_db is Primary on {node} (the active controller)");
        }
        ActiveController::Several(nodes) => {
            println!(
                "CONTROLLER HA: linstor_db is Primary on several nodes: {}",
                nodes.join(", ")
            );
        }
        ActiveController::NotInUse => {
            println!(
                "CONTROLLER HA: linstor_db is Primary nowhere: the active controller cannot be told"
            );
        }
        ActiveController::NoResource => {}
    }
    if let Some(view) = &findings.site_loss {
        print!("{}", site_loss::render_text(view));
    }
    if let Some(plan) = &findings.evacuation {
        print!("{}", evacuate::render_text(plan));
    }
    match &findings.off_site {
        Some(Ok(view)) => print!("{}", dr::render_text(view)),
        Some(Err(reason)) => println!("OFF-SITE COPIES\n  not readable: {reason}"),
        None => {}
    }
}

fn print_json(findings: &Findings, client: &Client) -> anyhow::Result<()> {
    let report = &findings.report;
    let mut json = serde_json::json!({
        "controller": client.active_controller().as_str(),
        "alerts": report.has_alerts(),
        "pool_warnings": report.has_pool_warnings(),
        "risks": report.has_risks(),
        "report": report,
        "standalone": findings.standalone,
        "controller_ha": findings.ha_controller,
    });
    if let Some(ha) = &findings.vrrp {
        json["controller_vrrp"] = serde_json::to_value(ha)?;
    }
    if let Some(view) = &findings.site_loss {
        json["what_if_site_down"] = serde_json::to_value(view)?;
    }
    if let Some(plan) = &findings.evacuation {
        json["evacuate"] = serde_json::to_value(plan)?;
    }
    match &findings.off_site {
        Some(Ok(view)) => {
            json["off_site"] = serde_json::to_value(view)?;
            json["off_site_stale"] = serde_json::json!(findings.stale());
            json["off_site_cannot_tell"] = serde_json::json!(findings.cannot_tell());
        }
        Some(Err(reason)) => json["off_site_error"] = serde_json::json!(reason),
        None => {}
    }
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

/// Sends the evacuation (`--apply`) unless its pre-check blocks it.
async fn apply_evacuation(
    args: &Args,
    client: &Client,
    plan: &evacuate::EvacuationPlan,
    deadline: tokio::time::Instant,
) -> anyhow::Result<()> {
    if plan.blocked() {
        eprintln!(
            "linstor-health: not evacuating {}: the pre-check blocks it",
            plan.node
        );
        return Ok(());
    }
    let mut sending = std::pin::pin!(client.apply(&plan.request));
    let messages = tokio::time::timeout_at(deadline, &mut sending)
        .await
        .map_err(|_| spent(client, args))??;
    eprintln!("linstor-health: evacuation of {} started", plan.node);
    for message in messages.messages() {
        eprintln!("  {}", message.message);
    }
    Ok(())
}

/// Each request's share of the run: `timeout` divided by the number of controllers in the
/// `LS_CONTROLLERS`-style `list`, at least 3 s (and at most the whole run, and 30 s), so that a
/// controller that accepts and never answers leaves time to fail over to the next, as golinstor
/// fails over on any network error (`client/client.go` `retry`).
fn request_share(timeout: Duration, list: &str) -> Duration {
    let count = list.split(',').filter(|e| !e.trim().is_empty()).count();
    let share = timeout / u32::try_from(count.max(1)).unwrap_or(u32::MAX);
    share
        .max(Duration::from_secs(3))
        .min(timeout)
        .min(Duration::from_secs(30))
}

/// `--vip` read as an entry of `LS_CONTROLLERS` is (`ControllerList::parse`, with https for
/// an entry without a scheme when a TLS variable is set, as `ClientBuilder::from_env` does), so
/// that it compares equal to that entry however it is spelled.
fn parse_vip(text: &str) -> anyhow::Result<cpps_linstor::Url> {
    let https = cpps_linstor::ENV_TLS
        .iter()
        .any(|name| cpps_http::env::get(&cpps_http::env::process_env, name).is_some());
    let list = cpps_linstor::ControllerList::parse(text, https)
        .map_err(|e| anyhow::anyhow!("--vip {text}: {e}"))?;
    match list.urls() {
        [one] => Ok(one.clone()),
        _ => anyhow::bail!("--vip {text} names more than one controller"),
    }
}

/// Probes every controller of the list (`Client::probe_controllers`) with `vip` as the VIP,
/// refused when the list does not hold it.
async fn probe_vip(
    client: &Client,
    vip: &cpps_linstor::Url,
    deadline: tokio::time::Instant,
) -> anyhow::Result<ha::ControllerHa> {
    if !client.controllers().contains(&vip) {
        anyhow::bail!("--vip {vip} is not one of the controllers in LS_CONTROLLERS");
    }
    tokio::time::timeout_at(deadline, client.probe_controllers(Some(vip)))
        .await
        .map_err(|_| anyhow::anyhow!("the controllers could not be probed within --timeout"))
}

/// The controller HA through a VIP, in words.
fn render_vrrp(probed: &ha::ControllerHa) -> String {
    use ha::{ActiveNode, VipState};
    let active = match &probed.active {
        ActiveNode::One { url } => format!("the controller at {url} answers"),
        ActiveNode::None => "no controller node answers".to_owned(),
        ActiveNode::Several(urls) => format!("several controllers answer: {}", urls.join(", ")),
    };
    let vip = match &probed.vip {
        VipState::Agrees => "the VIP answers alike".to_owned(),
        VipState::NotAnswering => "the VIP does not answer".to_owned(),
        VipState::NotInList => "no VIP in the list".to_owned(),
        VipState::Differs { reason } => format!("the VIP differs: {reason}"),
        VipState::CannotTell { reason } => format!("cannot tell whether the VIP agrees: {reason}"),
    };
    format!("CONTROLLER HA (VRRP): {active}; {vip}\n")
}

/// The snapshots of each `--l2l-target` cluster, and the reason for each that could not be
/// read (within the run's deadline).
async fn read_l2l_targets(
    args: &Args,
    timeout: Duration,
    deadline: tokio::time::Instant,
) -> (
    std::collections::BTreeMap<String, Vec<cpps_linstor::types::snapshot::Snapshot>>,
    std::collections::BTreeMap<String, String>,
) {
    let mut targets = std::collections::BTreeMap::new();
    let mut errors = std::collections::BTreeMap::new();
    for (remote, controllers) in &args.l2l_targets {
        let read = async {
            let target = ClientBuilder::from_env(&cpps_http::env::process_env)?
                .controllers_text(controllers.clone())
                .deadline(timeout)
                .connect_timeout(request_share(timeout, controllers).min(Duration::from_secs(5)))
                .request_timeout(request_share(timeout, controllers))
                .build()?;
            anyhow::Ok(target.snapshots().await?)
        };
        match tokio::time::timeout_at(deadline, read).await {
            Ok(Ok(snapshots)) => {
                targets.insert(remote.clone(), snapshots);
            }
            Ok(Err(e)) => {
                errors.insert(
                    remote.clone(),
                    format!("target cluster not readable: {e:#}"),
                );
            }
            Err(_) => {
                errors.insert(
                    remote.clone(),
                    "target cluster not read within --timeout".to_owned(),
                );
            }
        }
    }
    (targets, errors)
}

/// [`site_loss::what_if_site_down`] for `site`, refused when no node is known in it.
fn what_if(
    state: &health::ClusterState,
    options: &HealthOptions,
    controller_props: &std::collections::BTreeMap<String, String>,
    site: &str,
) -> anyhow::Result<site_loss::SiteLossReport> {
    let view = site_loss::what_if_site_down(state, options, controller_props, site);
    if view.nodes.is_empty() {
        let known: std::collections::BTreeSet<String> = site_loss::node_sites(state, options)
            .into_values()
            .collect();
        let known: Vec<String> = known.into_iter().collect();
        anyhow::bail!(
            "no node is known in site `{site}` (known sites: {}; set them with --site-property or --site NODE=SITE)",
            if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            }
        );
    }
    Ok(view)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::from(1),
        Err(e) => {
            eprintln!("linstor-health: {e:#}");
            ExitCode::from(2)
        }
    }
}
