//! PVE-003's fix as a plan: a guest declared `ha: true` must be a real Proxmox HA resource,
//! «HA declarado» is not HA until the HA manager runs it.
//!
//! [`plan_ha`] compares the topology with what each site's Proxmox says (the observed
//! [`PveFacts`]) and lists, for every guest (or Traefik guest) declared HA that is no HA
//! resource, the `ha-manager add` that makes it one and the wait for the HA manager to show it
//! in the state it is in now. A guest that is an HA resource in Proxmox but is not declared HA
//! is a report line, never a removal: the topology may be the one that is behind. Nothing is
//! changed by planning; [`apply_ha`] executes the adds of one site, each waited on to its end.
//!
//! The requested state is the guest's own (`started` when it runs, `stopped` when it does not),
//! so that putting it under the HA manager neither starts nor stops it; PVE's default for a new
//! resource would be `started` (pve-ha-manager `src/PVE/HA/Resources.pm`).

use std::fmt;
use std::fmt::Write as _;

use cpps_proxmox::api::HaResourceSpec;
use cpps_proxmox::family::WaitOptions;
use cpps_proxmox::types::{GuestKind as PveKind, HaSid};
use cpps_proxmox::{HaReached, HaWanted, VmId};
use serde::Serialize;

use super::facts::{Observation, PveFacts, PveGuest, PveGuestKind};
use super::pve::index::PveIndex;
use crate::model::Topology;

/// The comment the plan gives each resource it adds, so that a person reading `ha-manager
/// status` knows where it came from.
pub const HA_COMMENT: &str = "cpps: declared `ha: true` in the topology (PVE-003)";

cpps_named_enum::named_enum! {
    /// The state an added resource is asked for: the guest's own. Its name is how `ha-manager`
    /// and the API write it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum HaRequest {
        /// The guest runs: `--state started`.
        Started => "started",
        /// The guest is stopped: `--state stopped`.
        Stopped => "stopped",
    }
}

impl HaRequest {
    fn wanted(self) -> HaWanted {
        match self {
            Self::Started => HaWanted::Started,
            Self::Stopped => HaWanted::Stopped,
        }
    }
}

/// One planned `ha-manager add`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HaAdd {
    /// The site.
    pub site: String,
    /// The component of the topology that declares `ha: true` (a guest, or a Traefik instance
    /// whose guest this is).
    pub component: String,
    /// The HA resource id (`vm:120`, `ct:202`).
    pub sid: String,
    /// The node the guest is on.
    pub node: String,
    /// The state asked for.
    pub state: HaRequest,
}

impl HaAdd {
    /// The typed resource id.
    fn typed_sid(&self) -> Option<HaSid> {
        self.sid.parse().ok()
    }

    /// The API request of the step.
    pub fn request(&self) -> String {
        format!(
            "POST /cluster/ha/resources sid={} state={} comment=\"{HA_COMMENT}\" (ha-manager add {} --state {})",
            self.sid, self.state, self.sid, self.state
        )
    }

    /// What the step waits for.
    pub fn wait(&self) -> String {
        format!(
            "wait until GET /cluster/ha/status/current shows service {} `{}` (on {})",
            self.sid, self.state, self.node
        )
    }
}

impl fmt::Display for HaAdd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} declares `ha: true`: {}, then {}",
            self.site,
            self.component,
            self.request(),
            self.wait()
        )
    }
}

/// The whole plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HaPlan {
    /// The resources to add, site by site, in the topology's order.
    pub adds: Vec<HaAdd>,
    /// HA resources of Proxmox that the topology does not declare HA: reported, not removed.
    pub undeclared: Vec<String>,
    /// What the plan could not establish and a person must check.
    pub warnings: Vec<String>,
}

impl HaPlan {
    /// Whether there is nothing to add.
    pub fn is_empty(&self) -> bool {
        self.adds.is_empty()
    }

    /// The adds of one site.
    pub fn adds_of<'a>(&'a self, site: &'a str) -> impl Iterator<Item = &'a HaAdd> + 'a {
        self.adds.iter().filter(move |a| a.site == site)
    }

    /// The plan as text.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.adds.is_empty() {
            out.push_str("HA (PVE-003): nothing to add\n");
        } else {
            let _ = writeln!(out, "HA (PVE-003): {} resource(s) to add", self.adds.len());
            for (i, add) in self.adds.iter().enumerate() {
                let _ = writeln!(out, "{:>3}. {add}", i + 1);
            }
        }
        for line in &self.undeclared {
            let _ = writeln!(out, "  report: {line}");
        }
        for line in &self.warnings {
            let _ = writeln!(out, "  warning: {line}");
        }
        out
    }
}

/// Plans the HA adds of every site of `observed`.
pub fn plan_ha(topology: &Topology, observed: &Observation) -> HaPlan {
    let mut plan = HaPlan::default();
    for site in &observed.sites {
        let part = plan_site_ha(topology, &site.site, site.proxmox.observed());
        plan.adds.extend(part.adds);
        plan.undeclared.extend(part.undeclared);
        plan.warnings.extend(part.warnings);
    }
    plan
}

/// Plans the HA adds of `site` from what its Proxmox says (`None`: not observed, which is a
/// warning when the site declares an HA guest, never a guess).
pub fn plan_site_ha(topology: &Topology, site: &str, pve: Option<&PveFacts>) -> HaPlan {
    let mut plan = HaPlan::default();
    let declared = declared_guests(topology, site);
    let Some(facts) = pve else {
        if declared.iter().any(|(_, _, ha)| *ha) {
            plan.warnings.push(format!(
                "site {site}: Proxmox was not observed, so no HA resource can be planned"
            ));
        }
        return plan;
    };
    if let Some(why) = facts.ha_resources_unread() {
        plan.warnings.push(format!(
            "site {site}: HA resources: {why}; HA is then known only from `hastate` in /cluster/resources, and an add of a resource that exists fails with \"already defined\""
        ));
    }
    let index = PveIndex::new(facts);
    for (component, name, ha) in &declared {
        let Some(g) = index.guest(name) else {
            if *ha {
                let why = index
                    .nameless_guests()
                    .map_or_else(String::new, |why| format!(": {why}"));
                plan.warnings.push(format!(
                    "site {site}: {component} declares `ha: true` but Proxmox has no guest named {name}{why}"
                ));
            }
            continue;
        };
        plan_guest(&mut plan, site, component, g, *ha);
    }
    undeclared(&mut plan, site, facts, &declared);
    plan
}

/// A guest the site declares, as `(component, guest name, ha)`: the component is the guest, or
/// the Traefik instance that makes it HA.
pub(crate) type DeclaredGuest<'t> = (String, &'t str, bool);

/// The declared HA guests of the site: guests, and the guests Traefik instances run in.
pub(crate) fn declared_guests<'t>(topology: &'t Topology, site: &str) -> Vec<DeclaredGuest<'t>> {
    let mut declared: Vec<DeclaredGuest<'t>> = Vec::new();
    for guest in topology.guests().iter().filter(|g| {
        topology
            .site_of_guest(g)
            .is_some_and(|s| s.as_str() == site)
    }) {
        declared.push((guest.id.to_string(), guest.id.as_str(), guest.ha));
    }
    for traefik in topology
        .traefik()
        .iter()
        .filter(|t| t.site.as_str() == site)
    {
        let name = traefik
            .guest
            .as_ref()
            .map_or(traefik.id.as_str(), |g| g.as_str());
        // A Traefik instance in a declared guest: the guest's own `ha` or the instance's.
        match declared.iter_mut().find(|(_, n, _)| *n == name) {
            Some(entry) => {
                if traefik.ha && !entry.2 {
                    entry.0 = traefik.id.to_string();
                    entry.2 = true;
                }
            }
            None => declared.push((traefik.id.to_string(), name, traefik.ha)),
        }
    }
    declared
}

/// The HA add of guest `g`, which `component` declares (`ha`), where it is not an HA resource
/// yet; a warning where it is one that does not fail over, or where no add can be planned.
fn plan_guest(plan: &mut HaPlan, site: &str, component: &str, g: &PveGuest, ha: bool) {
    if ha && let Some(state) = g.ha_without_failover() {
        let sid = format!(
            "{}:{}",
            if g.kind == PveGuestKind::Lxc {
                "ct"
            } else {
                "vm"
            },
            g.vmid
        );
        // A service in `error` takes no request but `disabled` (pve-ha-manager
        // `src/PVE/API2/HA/Resources.pm`, "must be disabled and fixed first").
        let fix = if state == "error" {
            format!(
                "set it `disabled` (`ha-manager set {sid} --state disabled`), fix the cause, then set it `started`"
            )
        } else {
            format!("set its state to `started` (`ha-manager set {sid} --state started`)")
        };
        plan.warnings.push(format!(
            "site {site}: {component} ({} {}) is an HA resource in state `{state}`, which the HA manager does not recover: {fix}; this plan changes no existing resource",
            kind_word(g.kind),
            g.vmid,
        ));
    }
    if !ha || g.ha {
        return;
    }
    let state = match g.status.as_str() {
        "running" => HaRequest::Started,
        "stopped" => HaRequest::Stopped,
        other => {
            plan.warnings.push(format!(
                "site {site}: {component} ({} {}) is `{other}`: no state to keep, no HA resource planned",
                kind_word(g.kind),
                g.vmid
            ));
            return;
        }
    };
    let kind = match g.kind {
        PveGuestKind::Vm => PveKind::Qemu,
        PveGuestKind::Lxc => PveKind::Lxc,
    };
    let Ok(vmid) = VmId::new(g.vmid) else {
        plan.warnings.push(format!(
            "site {site}: {component} has VM id {}, which is not a Proxmox VM id",
            g.vmid
        ));
        return;
    };
    plan.adds.push(HaAdd {
        site: site.to_owned(),
        component: component.to_owned(),
        sid: HaSid { kind, vmid }.to_string(),
        node: g.node.clone(),
        state,
    });
}

/// HA resources the topology does not declare HA: listed, never removed.
fn undeclared(plan: &mut HaPlan, site: &str, facts: &PveFacts, declared: &[DeclaredGuest<'_>]) {
    for g in facts.guests.iter().filter(|g| g.ha) {
        let name = g.name.as_deref().unwrap_or("");
        let declared_ha = declared.iter().find(|(_, n, _)| *n == name);
        let what = match declared_ha {
            Some((_, _, true)) => continue,
            Some((component, _, false)) => format!("{component} does not declare `ha: true`"),
            None => "the topology does not declare it".to_owned(),
        };
        plan.undeclared.push(format!(
            "site {site}: {} {} ({}) is a Proxmox HA resource{} but {what}: not removed (declare `ha: true`, or remove it by hand with `ha-manager remove {}`)",
            kind_word(g.kind),
            g.vmid,
            if name.is_empty() { "no name" } else { name },
            g.ha_state
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default(),
            sid_text(g.kind, g.vmid),
        ));
    }
}

fn kind_word(kind: PveGuestKind) -> &'static str {
    match kind {
        PveGuestKind::Vm => "VM",
        PveGuestKind::Lxc => "CT",
    }
}

fn sid_text(kind: PveGuestKind, vmid: u32) -> String {
    match kind {
        PveGuestKind::Vm => format!("vm:{vmid}"),
        PveGuestKind::Lxc => format!("ct:{vmid}"),
    }
}

/// What one executed add did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HaAddOutcome {
    /// The step.
    pub add: HaAdd,
    /// Whether `POST /cluster/ha/resources` was accepted.
    pub added: bool,
    /// What the HA manager showed at the end of the wait, when it showed the state asked for.
    pub reached: Option<HaReached>,
    /// Whether `GET /cluster/ha/resources` lists the resource afterwards.
    pub listed: bool,
    /// What went wrong, if anything.
    pub error: Option<String>,
}

impl HaAddOutcome {
    /// Added, shown in the state asked for by the HA manager, and listed.
    pub fn is_done(&self) -> bool {
        self.added && self.reached.is_some() && self.listed && self.error.is_none()
    }
}

impl fmt::Display for HaAddOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_done() {
            write!(
                f,
                "{} ({}): HA resource, {} on {}",
                self.add.sid,
                self.add.component,
                self.reached.as_ref().map_or("", |r| r.state.as_str()),
                self.reached.as_ref().map_or("", |r| r.node.as_str())
            )
        } else {
            write!(
                f,
                "{} ({}): NOT done: {}",
                self.add.sid,
                self.add.component,
                self.error.as_deref().unwrap_or("not confirmed")
            )
        }
    }
}

/// Executes the adds of `site`: `POST /cluster/ha/resources` with the guest's own state and
/// [`HA_COMMENT`], then a wait (`GET /cluster/ha/status/current`, within `options.timeout`)
/// until the HA manager shows the service in that state, then `GET /cluster/ha/resources` to
/// confirm it is configured. Each add is independent: one that fails is reported and the next
/// is tried. `client` is the site's Proxmox.
pub async fn apply_ha(
    client: &cpps_proxmox::Client,
    plan: &HaPlan,
    site: &str,
    options: &WaitOptions,
) -> Vec<HaAddOutcome> {
    let cluster = client.cluster();
    let mut outcomes = Vec::new();
    for add in plan.adds_of(site) {
        let mut outcome = HaAddOutcome {
            add: add.clone(),
            added: false,
            reached: None,
            listed: false,
            error: None,
        };
        let Some(sid) = add.typed_sid() else {
            outcome.error = Some(format!("`{}` is not an HA resource id", add.sid));
            outcomes.push(outcome);
            continue;
        };
        let spec = HaResourceSpec::new(sid)
            .state(add.state.as_str())
            .comment(HA_COMMENT);
        if let Err(e) = cluster.ha_add(&spec).await {
            outcome.error = Some(super::facts::error_chain(&e));
            outcomes.push(outcome);
            continue;
        }
        outcome.added = true;
        match cluster.ha_wait(&sid, add.state.wanted(), options).await {
            Ok(reached) => outcome.reached = Some(reached),
            Err(e) => outcome.error = Some(super::facts::error_chain(&e)),
        }
        match cluster.ha_resources().await {
            Ok(list) => {
                outcome.listed = list.iter().any(|r| r.guest() == Some(sid));
                if !outcome.listed && outcome.error.is_none() {
                    outcome.error = Some("GET /cluster/ha/resources does not list it".to_owned());
                }
            }
            Err(e) => {
                if outcome.error.is_none() {
                    outcome.error = Some(super::facts::error_chain(&e));
                }
            }
        }
        outcomes.push(outcome);
    }
    outcomes
}
