//! Node maintenance: what evacuating a node would do ([`plan`]), checked before
//! `PUT /v1/nodes/{node}/evacuate` is sent.
//!
//! For each resource on the node it says what linstor-server will do, as
//! `CtrlNodeApiCallHandler.evacuateNodeInTrasaction` decides it: a resource that is not DRBD is
//! not evacuated (`WARN_NOT_EVACUATING`); a diskless replica, or a diskful one not `UpToDate`,
//! is only deleted (a replica whose disk state is unknown, its node offline, counts as
//! `UpToDate` there: `allVolumesUpToDate`'s `defaultIfUnknown` is `true`); a replica whose
//! `UpToDate` diskful peers (`getUpToDatePeerCount`: not `DELETE`, `EVACUATE`, `INACTIVE` or
//! `DRBD_DISKLESS`) already meet the group's place count is only deleted; any other gets a new
//! replica from the autoplacer first, and is deleted once it synced. The autoplacer's choice is
//! the controller's; the plan lists the nodes that could take it (online, with a diskful pool
//! the group's `storage_pool_list` names, or any diskful pool when it names none, as
//! `autoplacer/StorPoolFilter` filters; within `target`/`do_not_target`): first those holding a
//! DRBD diskless replica of the resource, which the controller turns diskful
//! (`getStorPoolForEvacuation`), else those holding none. The group's other filters
//! (`replicas_on_different`, `provider_list`, free space, pool-kind mixing) are not applied.
//!
//! The pre-check says, per resource, what the node being away does meanwhile: fewer `UpToDate`
//! replicas than the place count, and the DRBD quorum count of
//! [`site_loss::what_if_nodes_down`] (loses quorum, loses
//! its last `UpToDate` replica, loses its Primary). linstor-client's `advise maintenance`
//! (`advise.py`, `maintenance`) flags a single replica and fewer than three replicas; this
//! counts the votes instead.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::health::{ClusterState, DEFAULT_PLACE_COUNT};
use crate::names::NodeName;
use crate::plan::Plan;
use crate::site_loss::{self, SiteLossEffect};
use crate::types::LayerType;
use crate::types::resource::{AutoSelectFilter, DiskState, ResourceWithVolumes};

cpps_http::named_enum! {
    /// What the controller does with a resource of the evacuated node.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum EvacuateAction {
        /// Not a DRBD resource: it stays (`WARN_NOT_EVACUATING`).
        NotEvacuated => "not_evacuated",
        /// A diskless replica: deleted.
        DeletedDiskless => "deleted_diskless",
        /// A diskful replica not `UpToDate`: deleted, not replaced.
        DeletedNotUpToDate => "deleted_not_up_to_date",
        /// Its `UpToDate` peers already meet the place count: deleted, not replaced.
        DeletedPeersSuffice => "deleted_peers_suffice",
        /// A new replica is placed elsewhere first; this one is deleted once it synced.
        Replaced => "replaced",
        /// It would be replaced, but no node could take the new replica.
        NoTarget => "no_target",
    }
}

/// One resource of the evacuated node.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvacuatedResource {
    /// Resource name.
    pub name: String,
    /// What the controller does with it.
    pub action: EvacuateAction,
    /// Nodes that could take the new replica (for [`EvacuateAction::Replaced`]).
    pub candidates: Vec<String>,
    /// The diskful replicas wanted (the group's place count, or 2).
    pub wanted: usize,
    /// `UpToDate` diskful replicas left while the node is away.
    pub up_to_date_while_away: usize,
    /// DRBD's answer while the node is away (empty: nothing lost).
    pub while_away: Vec<SiteLossEffect>,
    /// Why, in words.
    pub reasons: Vec<String>,
}

impl EvacuatedResource {
    /// Whether it has fewer `UpToDate` replicas than wanted while the node is away.
    pub fn below_place_count(&self) -> bool {
        self.up_to_date_while_away < self.wanted
    }

    /// Whether the node's absence costs quorum or the last `UpToDate` replica, or cannot be told.
    pub fn blocks(&self) -> bool {
        self.while_away.iter().any(|e| {
            matches!(
                e,
                SiteLossEffect::LosesQuorum
                    | SiteLossEffect::LosesLastUpToDate
                    | SiteLossEffect::CannotTell
            )
        })
    }
}

/// The evacuation of one node, before it is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct EvacuationPlan {
    /// The node.
    pub node: String,
    /// The request that starts it.
    pub request: Plan,
    /// Each resource on the node, by name.
    pub resources: Vec<EvacuatedResource>,
}

impl EvacuationPlan {
    /// Whether a resource would lose quorum or its last `UpToDate` replica while the node is
    /// away, or cannot be told: a reason not to apply it.
    pub fn blocked(&self) -> bool {
        self.resources.iter().any(EvacuatedResource::blocks)
    }
}

/// Whether a replica runs DRBD: its layer tree or a volume's top layer says so.
fn is_drbd(replica: &ResourceWithVolumes) -> bool {
    replica
        .layer_object
        .as_ref()
        .and_then(|l| l.find_drbd())
        .is_some()
        || replica.volumes.iter().any(|v| {
            v.layer_data_list
                .first()
                .is_some_and(|top| top.layer_type == Some(LayerType::Drbd))
        })
}

/// Whether the evacuated replica counts as `UpToDate`, as
/// `SatelliteResourceStateDrbdUtils.allVolumesUpToDate(apiCtx, rsc)` answers it with
/// `defaultIfUnknown = true`: only the volumes the satellite reported a disk state for are
/// checked, so a replica with none (its node offline, or no state received yet) counts as
/// `UpToDate`. `None` when no volume has a known disk state.
fn evacuee_up_to_date(replica: &ResourceWithVolumes) -> Option<bool> {
    let mut known = replica
        .volumes
        .iter()
        .filter_map(|v| v.disk_state())
        .peekable();
    known.peek()?;
    Some(known.all(|d| d == &DiskState::UpToDate))
}

fn all_up_to_date(replica: &ResourceWithVolumes) -> bool {
    !replica.volumes.is_empty()
        && replica
            .volumes
            .iter()
            .all(|v| v.disk_state() == Some(&DiskState::UpToDate))
}

/// The evacuation of `node`: the request (`target`/`do_not_target` as the spec's
/// `NodeEvacuate`), and per resource what the controller will do and what the node's absence
/// costs meanwhile.
pub fn plan(
    state: &ClusterState,
    controller_props: &BTreeMap<String, String>,
    node: &NodeName,
    target: &[NodeName],
    do_not_target: &[NodeName],
) -> EvacuationPlan {
    let away = site_loss::what_if_nodes_down(state, controller_props, &[node.as_str()]);
    let mut resources = Vec::new();
    for replica in state
        .resources
        .iter()
        .filter(|r| r.node_name == node.as_str())
    {
        let peers: Vec<&ResourceWithVolumes> = state
            .resources
            .iter()
            .filter(|r| r.name == replica.name && r.node_name != node.as_str())
            .collect();
        let filter = state
            .resource_definitions
            .iter()
            .find(|d| d.name == replica.name)
            .and_then(|d| d.resource_group_name.as_deref())
            .and_then(|g| state.resource_groups.iter().find(|rg| rg.name == g))
            .and_then(|g| g.select_filter.as_ref());
        let wanted = filter
            .and_then(|f| f.place_count)
            .unwrap_or(DEFAULT_PLACE_COUNT);
        let wanted = usize::try_from(wanted).unwrap_or(0);
        let up_to_date_peers = peers
            .iter()
            .filter(|p| {
                !["DELETE", "EVACUATE", "INACTIVE"]
                    .iter()
                    .any(|f| p.has_flag(f))
                    && !p.is_diskless()
                    && all_up_to_date(p)
            })
            .count();
        let mut reasons = Vec::new();
        let up_to_date = evacuee_up_to_date(replica);
        let (action, candidates) = if !is_drbd(replica) {
            (EvacuateAction::NotEvacuated, Vec::new())
        } else if replica.is_diskless() {
            (EvacuateAction::DeletedDiskless, Vec::new())
        } else if up_to_date == Some(false) {
            (EvacuateAction::DeletedNotUpToDate, Vec::new())
        } else if up_to_date_peers >= wanted {
            (EvacuateAction::DeletedPeersSuffice, Vec::new())
        } else {
            if up_to_date.is_none() {
                reasons.push(
                    "its disk state unknown (node offline or no state yet): the controller counts it as UpToDate and replaces it"
                        .to_owned(),
                );
            }
            let pools = filter
                .map(AutoSelectFilter::storage_pools)
                .unwrap_or_default();
            let (candidates, toggle) =
                candidates(state, &pools, &peers, node, target, do_not_target);
            if candidates.is_empty() {
                reasons.push("no online node with a diskful pool its group allows".to_owned());
                (EvacuateAction::NoTarget, candidates)
            } else {
                if toggle {
                    reasons.push(format!(
                        "the controller turns the diskless replica on {} diskful (toggle disk) before it places a new one",
                        candidates.join(" or ")
                    ));
                }
                (EvacuateAction::Replaced, candidates)
            }
        };
        let loss = away.iter().find(|r| r.name == replica.name);
        if let Some(loss) = loss {
            reasons.extend(loss.reasons.iter().cloned());
        }
        resources.push(EvacuatedResource {
            name: replica.name.clone(),
            action,
            candidates,
            wanted,
            up_to_date_while_away: up_to_date_peers,
            while_away: loss.map(|l| l.effects.clone()).unwrap_or_default(),
            reasons,
        });
    }
    resources.sort_by(|a, b| a.name.cmp(&b.name));
    EvacuationPlan {
        node: node.to_string(),
        request: Plan::node_evacuate(node, target, do_not_target),
        resources,
    }
}

/// The nodes that could take a new replica of `replica`, and whether they are nodes whose
/// diskless replica would be turned diskful.
///
/// A node qualifies when it is online, not `node`, not evacuating or evicted, has a diskful
/// pool the group's filter allows (`pools`; empty: any), and is within `target` (when given)
/// and outside `do_not_target`. The controller first tries the nodes that hold a DRBD diskless replica of
/// the resource (a client or a tie-breaker; `TIE_BREAKER` includes `DRBD_DISKLESS`'s bits in
/// linstor-server `Resource.Flags`): `CtrlNodeApiCallHandler.getStorPoolForEvacuation` limits
/// the autoplacer to them ("first try to toggle disk if possible") and
/// `evacuateNodeInTrasaction` then calls `resourceToggleDisk(INTO_DRBD_DISKFUL)`. Only when none
/// qualifies does it look at the nodes that hold no replica of the resource.
fn candidates(
    state: &ClusterState,
    pools: &[&str],
    peers: &[&ResourceWithVolumes],
    node: &NodeName,
    target: &[NodeName],
    do_not_target: &[NodeName],
) -> (Vec<String>, bool) {
    let holding: BTreeSet<&str> = peers.iter().map(|p| p.node_name.as_str()).collect();
    let drbd_diskless: BTreeSet<&str> = peers
        .iter()
        .filter(|p| p.has_flag("DRBD_DISKLESS") || p.has_flag("TIE_BREAKER"))
        .map(|p| p.node_name.as_str())
        .collect();
    let allowed = |name: &str| {
        (target.is_empty() || target.iter().any(|t| t.as_str() == name))
            && !do_not_target.iter().any(|t| t.as_str() == name)
    };
    let qualified = |among: &dyn Fn(&str) -> bool| -> Vec<String> {
        state
            .nodes
            .iter()
            .filter(|n| n.name != node.as_str() && among(n.name.as_str()))
            .filter(|n| n.is_online() && !n.is_evicted() && !n.has_flag("EVACUATE"))
            .filter(|n| allowed(&n.name))
            .filter(|n| {
                state.storage_pools.iter().any(|p| {
                    p.node_name.as_deref() == Some(n.name.as_str())
                        && !p.is_diskless()
                        && pool_allowed(pools, &p.storage_pool_name)
                })
            })
            .map(|n| n.name.clone())
            .collect()
    };
    let toggled = qualified(&|name| drbd_diskless.contains(name));
    if toggled.is_empty() {
        (qualified(&|name| !holding.contains(name)), false)
    } else {
        (toggled, true)
    }
}

/// Whether the group's pool list lets the autoplacer use `pool`: linstor-server
/// `autoplacer/StorPoolFilter.filter` filters by name (`equalsIgnoreCase`) only when the list is
/// non-empty.
fn pool_allowed(pools: &[&str], pool: &str) -> bool {
    pools.is_empty() || pools.iter().any(|p| p.eq_ignore_ascii_case(pool))
}

/// Renders a plan as plain text: the request, then each resource with its action and what the
/// node's absence costs.
pub fn render_text(plan: &EvacuationPlan) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(out, "EVACUATE {}", plan.node);
    let _ = writeln!(out, "  request: {}", plan.request);
    for r in &plan.resources {
        let _ = write!(out, "  {:<32} {}", r.name, r.action);
        if !r.candidates.is_empty() {
            let _ = write!(out, " (to one of {})", r.candidates.join(", "));
        }
        let _ = write!(
            out,
            "; while away {}/{} UpToDate",
            r.up_to_date_while_away, r.wanted
        );
        if r.below_place_count() {
            out.push_str(" BELOW PLACE COUNT");
        }
        for effect in &r.while_away {
            let _ = write!(out, " {}", effect.as_str().to_ascii_uppercase());
        }
        out.push('\n');
        for reason in &r.reasons {
            let _ = writeln!(out, "      {reason}");
        }
    }
    if plan.blocked() {
        let _ = writeln!(
            out,
            "  BLOCKED: a resource would lose quorum or its last UpToDate replica (or cannot be told)"
        );
    }
    out
}
