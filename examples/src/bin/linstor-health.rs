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
//! run stops when it is spent, whatever the controllers do.
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
//! attempt, since LINSTOR records when shipping starts, not whether it finished.
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
//! Where the controllers run as a drbd-reactor HA pair, the node on which their database
//! resource `linstor_db` is Primary runs the active one (`cpps_linstor::ha`); it is shown, and
//! the run's later calls go to that controller first.
//!
//! Exit status: 0 when all is well (pools low on space and risks are reported but do not fail), 1 when a
//! resource is degraded, desynced, disconnected or unknown, a node is evicted or offline, or
//! (with `--off-site`) a resource has no off-site copy younger than `--max-copy-age` or the
//! copies could not be read, or (with `--what-if-site-down`) a resource would lose quorum or its
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
use cpps_linstor::{ClientBuilder, NodeName};

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
    /// (or that has none) is reported as stale and makes the run exit 1.
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
    let client = ClientBuilder::from_env(&cpps_http::env::process_env)?
        .deadline(timeout)
        .connect_timeout(timeout.min(Duration::from_secs(5)))
        .request_timeout(timeout.min(Duration::from_secs(30)))
        .build()?;
    // What the run was waiting for when its time ran out: the requests in flight and those
    // that got no answer, each naming its controller.
    let spent = || {
        let controllers: Vec<String> = client.controllers().iter().map(|u| u.to_string()).collect();
        anyhow::anyhow!(
            "no complete answer from the LINSTOR controllers ({}) within --timeout {}s: {}",
            controllers.join(", "),
            args.timeout,
            client.activity()
        )
    };
    // The client's deadline bounds each call on one controller; this bounds the whole run,
    // fail-over included. The call is polled through a reference, so that it is still in
    // flight (and named) when the time runs out.
    let mut reading = std::pin::pin!(client.cluster_state());
    let state = tokio::time::timeout_at(deadline, &mut reading)
        .await
        .map_err(|_| spent())??;
    // The promoter runs the controller where its database is Primary: ask that one first.
    let ha_controller = ha::active_controller(&state, ha::DEFAULT_CONTROLLER_RESOURCE);
    client.prefer_controller(&ha_controller.hosts());
    let mut options = HealthOptions::default();
    options.pool_low_free_fraction = args.low_space;
    options.site_property.clone_from(&args.site_property);
    options.node_sites = args.sites.iter().cloned().collect();
    let report = health::assess(&state, &options);
    let controller_props = if args.what_if_site_down.is_some() || args.evacuate.is_some() {
        let mut reading = std::pin::pin!(client.controller_properties());
        tokio::time::timeout_at(deadline, &mut reading)
            .await
            .map_err(|_| spent())??
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
    let blocked = evacuation
        .as_ref()
        .is_some_and(evacuate::EvacuationPlan::blocked);
    let site_losses = site_loss.as_ref().is_some_and(|r| {
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
    });
    // The DR view is read after the health view, within what is left of the timeout: when it
    // cannot be read, the health report is still printed, with the reason.
    let off_site = if args.off_site {
        let names: Vec<&str> = report.resources.iter().map(|r| r.name.as_str()).collect();
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let max_age = Duration::from_secs(args.max_copy_age * 3600);
        Some({
            let mut reading = std::pin::pin!(client.dr_state());
            match tokio::time::timeout_at(deadline, &mut reading).await {
                Ok(Ok(dr_state)) => Ok(dr::assess(&dr_state, &names, now_ms, max_age)),
                Ok(Err(e)) => Err(format!("{:#}", anyhow::Error::from(e))),
                Err(_) => Err(spent().to_string()),
            }
        })
    } else {
        None
    };
    let stale = matches!(&off_site, Some(Ok(view)) if view.stale > 0);
    // A StandAlone connection already makes its resource disconnected, an alert.
    let standalone = split_brain::standalone(&state);
    match args.format {
        Format::Text => {
            print!("{}", health::render_text(&report));
            print!("{}", split_brain::render_text(&standalone));
            match &ha_controller {
                ActiveController::Node { node, .. } => {
                    println!(
                        "CONTROLLER HA: linstor_db is Primary on {node} (the active controller)"
                    );
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
            if let Some(view) = &site_loss {
                print!("{}", site_loss::render_text(view));
            }
            if let Some(plan) = &evacuation {
                print!("{}", evacuate::render_text(plan));
            }
            match &off_site {
                Some(Ok(view)) => print!("{}", dr::render_text(view)),
                Some(Err(reason)) => println!("OFF-SITE COPIES\n  not readable: {reason}"),
                None => {}
            }
        }
        Format::Json => {
            let mut json = serde_json::json!({
                "controller": client.active_controller().as_str(),
                "alerts": report.has_alerts(),
                "pool_warnings": report.has_pool_warnings(),
                "risks": report.has_risks(),
                "report": report,
                "standalone": standalone,
                "controller_ha": ha_controller,
            });
            if let Some(view) = &site_loss {
                json["what_if_site_down"] = serde_json::to_value(view)?;
            }
            if let Some(plan) = &evacuation {
                json["evacuate"] = serde_json::to_value(plan)?;
            }
            match &off_site {
                Some(Ok(view)) => {
                    json["off_site"] = serde_json::to_value(view)?;
                    json["off_site_stale"] = serde_json::json!(stale);
                }
                Some(Err(reason)) => json["off_site_error"] = serde_json::json!(reason),
                None => {}
            }
            println!("{}", serde_json::to_string_pretty(&json)?);
        }
    }
    if let Some(Err(reason)) = &off_site {
        eprintln!("linstor-health: off-site copies not readable: {reason}");
    }
    if let Some(plan) = evacuation.as_ref().filter(|_| args.apply) {
        if blocked {
            eprintln!(
                "linstor-health: not evacuating {}: the pre-check blocks it",
                plan.node
            );
        } else {
            let mut sending = std::pin::pin!(client.apply(&plan.request));
            let messages = tokio::time::timeout_at(deadline, &mut sending)
                .await
                .map_err(|_| spent())??;
            eprintln!("linstor-health: evacuation of {} started", plan.node);
            for message in messages.messages() {
                eprintln!("  {}", message.message);
            }
        }
    }
    Ok(report.has_alerts() || stale || site_losses || blocked || matches!(off_site, Some(Err(_))))
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
