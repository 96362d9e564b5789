//! `pve-upgrade`: the plan of a rolling PVE major upgrade (8 → 9 by default), node by node.
//!
//! ```console
//! PROXMOX_VE_ENDPOINT=https://pve1:8006/ PROXMOX_VE_API_TOKEN='audit@pve!ro=…' \
//!     cargo run -p cpps-examples --bin pve-upgrade -- --timeout 30
//! ```
//!
//! Configured as `inventory` is (`PROXMOX_VE_ENDPOINT`, `PROXMOX_VE_API_TOKEN` or user and
//! password, and the TLS variables). It reads the version of every node
//! (`GET /nodes/{node}/status`, `pveversion`), the quorum (`GET /cluster/status`), the HA
//! group→rule migration state (`GET /cluster/ha/groups`: pve-ha-manager `HA/Config.pm`
//! `have_groups_been_migrated`; the CRM migrates the groups once every node runs 9,
//! `HA/Manager.pm`), the rules on 9 (`GET /cluster/ha/rules`) and the guests
//! (`GET /cluster/resources?type=vm`), then prints, for each node still below the target
//! release: the quorum check before it, node maintenance, the guests that will move (HA
//! resources, moved by the HA stack) and those that must be moved or stopped by hand, the
//! upgrade and reboot, and the checks after it.
//!
//! It is a plan: nothing is changed. `--apply` is refused before anything is sent, because
//! node maintenance has no API endpoint: `ha-manager crm-command node-maintenance enable|disable`
//! is a method of the command-line handler only (pve-ha-manager `src/PVE/CLI/ha_manager.pm`,
//! `node-maintenance-set`, which queues the CRM command on the node itself; no such path is in
//! the API schema), and the package upgrade runs on the node.
//!
//! Every run ends within `--timeout` seconds (default 30): the client's deadline.
//!
//! Exit status: 0 the plan was made and nothing blocks it (or every node already runs the
//! target); 1 the plan was made but something blocks a step (a node offline or of unknown
//! version, a quorum that would be lost, a part that could not be read); 2 no plan could be
//! made (configuration, nothing answered), or `--apply` was asked for.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_proxmox::types::{
    ClusterResource, ClusterStatusEntry, ClusterStatusType, NodeState, ResourceFilter,
};
use cpps_proxmox::{Client, ClientBuilder};
use serde::Serialize;

/// The plan of a rolling PVE major upgrade of the cluster in PROXMOX_VE_ENDPOINT.
///
/// Exit status: 0 plan made, nothing blocks it; 1 plan made, a step is blocked or a part
/// could not be read; 2 no plan (configuration, no answer), or --apply asked for.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// The longest the whole run may take, in seconds: the client's deadline.
    #[arg(long, value_name = "SECONDS", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// The major release to upgrade to.
    #[arg(long, default_value_t = 9)]
    target: u64,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Carry the plan out. Refused: node maintenance has no API endpoint (see the docs).
    #[arg(long)]
    apply: bool,
}

/// One node as the plan sees it.
#[derive(Debug, Serialize)]
struct NodePlan {
    node: String,
    online: bool,
    /// `pve-manager/9.0.3/…` as the node reports it, or why it could not be read.
    pveversion: Result<String, String>,
    /// The major release, when the version could be read and parsed.
    major: Option<u64>,
    /// HA resources on the node: the HA stack moves them when maintenance is enabled.
    ha_guests: Vec<u32>,
    /// Running guests not managed by HA: to migrate or shut down by hand.
    manual_guests: Vec<u32>,
}

/// The whole plan.
#[derive(Debug, Serialize)]
struct Plan {
    target: u64,
    quorate: Option<bool>,
    nodes_total: usize,
    ha_groups_migrated: Result<bool, String>,
    ha_rules: Option<Result<usize, String>>,
    nodes: Vec<NodePlan>,
    /// Why a step cannot be taken, one line each.
    blockers: Vec<String>,
}

/// The release major of a `pveversion` (`pve-manager/9.0.3/abc`).
fn major_of(pveversion: &str) -> Option<u64> {
    pveversion
        .strip_prefix("pve-manager/")?
        .split(['.', '/'])
        .next()?
        .parse()
        .ok()
}

async fn read_plan(pve: &Client, target: u64) -> Result<Plan, cpps_proxmox::Error> {
    let nodes = pve.nodes().await?;
    let status = pve.cluster().status().await.unwrap_or_default();
    let quorate = status
        .iter()
        .find(|e: &&ClusterStatusEntry| e.kind == ClusterStatusType::Cluster)
        .and_then(|e| e.quorate);
    let guests = pve.cluster().resources(Some(ResourceFilter::Vm)).await;
    let mut blockers = Vec::new();
    let guests: Vec<ClusterResource> = guests.unwrap_or_else(|e| {
        blockers.push(format!("the guests could not be read: {e}"));
        Vec::new()
    });
    let mut plans = Vec::new();
    for item in &nodes {
        let name = item.node.to_string();
        let pveversion = pve
            .node(&name)
            .status()
            .await
            .map(|s| s.pveversion)
            .map_err(|e| e.to_string());
        let major = pveversion.as_deref().ok().and_then(major_of);
        let on_node = |g: &&ClusterResource| g.node.as_deref() == Some(name.as_str());
        let running = |g: &&ClusterResource| g.status.as_deref() == Some("running");
        // An `ignored` HA resource is left alone by the HA manager (pve-ha-manager
        // `HA/Manager.pm` drops ignored services), so it does not move with maintenance.
        let ha = |g: &&ClusterResource| g.hastate.as_deref().is_some_and(|s| s != "ignored");
        plans.push(NodePlan {
            online: item.status == NodeState::Online,
            ha_guests: guests
                .iter()
                .filter(on_node)
                .filter(ha)
                .filter_map(|g| g.vmid.map(|v| v.get()))
                .collect(),
            manual_guests: guests
                .iter()
                .filter(on_node)
                .filter(running)
                .filter(|g| !ha(g))
                .filter_map(|g| g.vmid.map(|v| v.get()))
                .collect(),
            node: name,
            pveversion,
            major,
        });
    }
    let ha_groups_migrated = pve
        .cluster()
        .ha_groups_migrated()
        .await
        .map_err(|e| e.to_string());
    // Rules exist from PVE 9 on (pve-ha-manager 5.0); an 8.x node answers no such path.
    let ha_rules = if plans.iter().any(|p| p.major.is_some_and(|m| m >= 9)) {
        Some(
            pve.get_raw("cluster/ha/rules", &[])
                .await
                .map(|v| v.as_array().map_or(0, Vec::len))
                .map_err(|e| e.to_string()),
        )
    } else {
        None
    };
    let mut plan = Plan {
        target,
        quorate,
        nodes_total: nodes.len(),
        ha_groups_migrated,
        ha_rules,
        nodes: plans,
        blockers,
    };
    plan.blockers.extend(blockers_of(&plan));
    Ok(plan)
}

/// What blocks the plan: unknown quorum or versions, offline nodes, a quorum that one node
/// out would lose (each node one vote, as corosync's default).
fn blockers_of(plan: &Plan) -> Vec<String> {
    let mut out = Vec::new();
    match plan.quorate {
        Some(true) => {}
        Some(false) => out.push("the cluster is not quorate now".to_owned()),
        None => out.push("the quorum could not be read".to_owned()),
    }
    let online = plan.nodes.iter().filter(|n| n.online).count();
    if plan.nodes_total > 1 && (online - usize::from(online > 0)) * 2 <= plan.nodes_total {
        out.push(format!(
            "with one of the {online} online nodes out, {} of {} votes would not be a quorum",
            online.saturating_sub(1),
            plan.nodes_total
        ));
    }
    for node in &plan.nodes {
        if !node.online {
            out.push(format!("{} is offline", node.node));
        }
        if node.major.is_none() {
            let seen = match &node.pveversion {
                Ok(text) => format!("`{text}`"),
                Err(e) => format!("unreadable: {e}"),
            };
            out.push(format!("{}: version cannot be told ({seen})", node.node));
        }
    }
    if let Err(e) = &plan.ha_groups_migrated {
        out.push(format!(
            "the HA group migration state could not be read: {e}"
        ));
    }
    out
}

fn print_text(plan: &Plan) {
    let quorum = match plan.quorate {
        Some(true) => "quorate",
        Some(false) => "NOT quorate",
        None => "quorum unknown",
    };
    println!("cluster: {} nodes, {quorum}", plan.nodes_total);
    match &plan.ha_groups_migrated {
        Ok(true) => println!("HA: no group left (migrated to rules, or none defined)"),
        Ok(false) => {
            println!("HA: groups not migrated yet (the CRM migrates them once every node runs 9)")
        }
        Err(e) => println!("HA: group migration state cannot be told: {e}"),
    }
    match &plan.ha_rules {
        Some(Ok(n)) => println!("HA rules: {n}"),
        Some(Err(e)) => println!("HA rules: cannot be read: {e}"),
        None => {}
    }
    for node in &plan.nodes {
        let version = node.pveversion.as_deref().unwrap_or("unknown");
        println!("node {}: {version}", node.node);
    }
    let todo: Vec<&NodePlan> = plan
        .nodes
        .iter()
        .filter(|n| n.major.is_none_or(|m| m < plan.target))
        .collect();
    if todo.is_empty() {
        println!(
            "\nevery node runs {} or later: nothing to upgrade",
            plan.target
        );
    }
    for (step, node) in todo.iter().enumerate() {
        print_steps(step + 1, node, plan.target);
    }
    for blocker in &plan.blockers {
        println!("BLOCKED: {blocker}");
    }
}

fn print_steps(step: usize, node: &NodePlan, target: u64) {
    let list = |ids: &[u32]| {
        if ids.is_empty() {
            "none".to_owned()
        } else {
            ids.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    println!("\nstep {step}: {}", node.node);
    println!("  before: the cluster is quorate with {} out", node.node);
    println!(
        "  on the node: ha-manager crm-command node-maintenance enable {} (no API endpoint)",
        node.node
    );
    println!("  moved by HA: {}", list(&node.ha_guests));
    println!(
        "  to migrate or shut down by hand: {}",
        list(&node.manual_guests)
    );
    println!("  on the node: pve8to9 --full, then the {target}.x upgrade and a reboot");
    println!(
        "  on the node: ha-manager crm-command node-maintenance disable {}",
        node.node
    );
    println!(
        "  after: {} online, pveversion {target}.x, cluster quorate, its HA resources back",
        node.node
    );
}

async fn run(args: &Args) -> Result<bool, String> {
    if args.apply {
        return Err("--apply is refused: node maintenance has no API endpoint \
                    (pve-ha-manager src/PVE/CLI/ha_manager.pm node-maintenance-set is a \
                    command-line method); run the plan's node steps on each node"
            .to_owned());
    }
    let timeout = Duration::from_secs(args.timeout);
    let pve = ClientBuilder::from_env(&cpps_http::env::process_env)
        .and_then(|b| b.deadline(timeout).request_timeout(timeout).build())
        .map_err(|e| cpps_http::error_chain(&e))?;
    let plan = read_plan(&pve, args.target)
        .await
        .map_err(|e| cpps_http::error_chain(&e))?;
    match args.format {
        Format::Text => print_text(&plan),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&plan).unwrap_or_default()
        ),
    }
    Ok(plan.blockers.is_empty())
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    match Box::pin(run(&args)).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(error) => {
            eprintln!("pve-upgrade: {error}");
            ExitCode::from(2)
        }
    }
}
