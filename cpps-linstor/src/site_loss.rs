//! What a site going dark would do to each resource, from the live placement and the DRBD
//! quorum settings: [`what_if_site_down`], a pure function over a [`ClusterState`].
//!
//! For each resource the surviving nodes (online now, not in the lost site) are counted as DRBD
//! counts them on a surviving diskful node (drbd `drbd/drbd_state.c`, `calc_quorum` and
//! `__calc_quorum_with_disk`):
//!
//! - **voters** are the diskful replicas: the surviving ones, `UpToDate` or merely present, and
//!   the absent ones (the lost site's, and those on nodes offline already), which count as
//!   unknown unless their last known disk state was `Outdated`. When every absent replica is
//!   outdated, DRBD drops them from the voters.
//! - **quorum** is reached with `up_to_date + present >= quorum_at` (`majority`: half the voters
//!   plus one; `all`: every voter; a number: that number) and `up_to_date >=` the
//!   `quorum-minimum-redundancy` threshold.
//! - **diskless tie-breakers**: with an even number of voters and exactly one vote short, a
//!   majority of the diskless replicas being reachable keeps quorum, provided the survivors had
//!   quorum before. DRBD counts every intentionally diskless peer here unless its
//!   `peer-tiebreaker` flag (DRBD 9.3.1, `ChangeLog`) is off; LINSTOR's own tie-breaker
//!   (`TIE_BREAKER` flag) is such a peer, added by linstor-server
//!   `CtrlRscAutoTieBreakerHelper.shouldTieBreakerExist` to an even count of diskful replicas.
//!   A LINSTOR diskless client (DRBD layer flag `CLIENT`) is one only on older DRBD: linstor-server
//!   `ConfFileBuilder.appendVlmIfPresent` writes `tiebreaker no` for it when the satellite runs
//!   DRBD kmod 9.3.1 and utils 9.34 or later. The REST answer does not carry the version, so
//!   where the verdict depends on whether clients vote the answer is "cannot tell".
//! - **DRBD connections**: DRBD counts a peer by its own connection (a peer whose `repl_state`
//!   is `L_OFF` is absent), so the count is made on each surviving diskful replica on an ONLINE
//!   node by the connection states it reports (`layer_object.drbd.connections`): a peer
//!   `StandAlone`, `Connecting` or otherwise not `Connected` is absent even on an ONLINE node,
//!   and a `Connected` one votes even on an OFFLINE node (LINSTOR's `OFFLINE` is only the
//!   controller's lost connection, linstor-server `TcpConnectorPeer.connectionStatus`). Quorum
//!   is kept when some such replica keeps it. A peer towards which no state is reported (an
//!   offline satellite shows none) is counted both as absent and as present (by its last known
//!   disk state); where the two differ the answer is "cannot tell", never a false answer.
//!
//! The setting is `DrbdOptions/Resource/quorum` (and `quorum-minimum-redundancy`,
//! `on-no-quorum`) as the satellite writes it into a node's `.res` file: from the resource on
//! that node, else its definition, else its group, else that node, else the controller
//! (linstor-server `satellite/.../layer/drbd/resfiles/ConfFileBuilder.java`,
//! `localRscPrioProps`: R, RD, RG, N, C). It is read on the surviving diskful replicas; when
//! they are set differently, the quorum answer cannot be told.
//! Unset everywhere, DRBD's own default, `off`, applies: nothing loses quorum, and a split can
//! leave both sides writing.
//!
//! Each resource gets its [`SiteLossEffect`]s: loses quorum, loses its last `UpToDate` replica,
//! loses its Primary (the replica `in_use` is in the lost site); none means it survives. A
//! replica whose node has no known site makes the answer "cannot tell", never "survives".

use std::collections::BTreeMap;

use serde::Serialize;

use crate::health::{ClusterState, HealthOptions};
use crate::types::LayerType;
use crate::types::node::Node;
use crate::types::resource::{DiskState, DrbdConnectionState, ResourceWithVolumes};

/// `DrbdOptions/Resource/quorum`.
const QUORUM_KEY: &str = "DrbdOptions/Resource/quorum";
/// `DrbdOptions/Resource/quorum-minimum-redundancy`.
const MIN_REDUNDANCY_KEY: &str = "DrbdOptions/Resource/quorum-minimum-redundancy";
/// `DrbdOptions/Resource/on-no-quorum`.
const ON_NO_QUORUM_KEY: &str = "DrbdOptions/Resource/on-no-quorum";

cpps_http::named_enum! {
    /// What losing the site does to a resource.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum SiteLossEffect {
        /// Some replica's site is not known, or a quorum setting is not understood: the answer
        /// cannot be told.
        CannotTell => "cannot_tell",
        /// No surviving diskful replica is `UpToDate`: the data is gone with the site.
        LosesLastUpToDate => "loses_last_up_to_date",
        /// The survivors lack quorum: with `on-no-quorum` they freeze or fail I/O.
        LosesQuorum => "loses_quorum",
        /// The Primary (the replica in use) is in the lost site: its guest stops and must be
        /// started on a survivor.
        LosesPrimary => "loses_primary",
    }
}

/// The quorum a resource runs with, and where each value comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuorumSetting {
    /// `quorum` (`off` when unset everywhere).
    pub quorum: String,
    /// Where it was set: `resource`, `resource definition`, `resource group`, `node`,
    /// `controller` or `DRBD default`.
    pub source: &'static str,
    /// `quorum-minimum-redundancy`, when set.
    pub minimum_redundancy: Option<String>,
    /// `on-no-quorum`, when set.
    pub on_no_quorum: Option<String>,
}

/// The DRBD vote count on the surviving side.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Votes {
    /// Surviving diskful replicas that are `UpToDate`.
    pub up_to_date: usize,
    /// Other surviving diskful replicas.
    pub present: usize,
    /// Absent diskful replicas whose last state was `Outdated`.
    pub outdated: usize,
    /// Other absent diskful replicas.
    pub unknown: usize,
    /// Surviving diskless replicas that always break ties (LINSTOR's `TIE_BREAKER`, and
    /// diskless replicas without the DRBD `CLIENT` flag).
    pub diskless: usize,
    /// Absent diskless replicas that always break ties.
    pub missing_diskless: usize,
    /// Surviving diskless clients (DRBD `CLIENT` flag, or no DRBD layer data): tie-breakers
    /// only on DRBD older than 9.3.1.
    pub clients: usize,
    /// Absent diskless clients.
    pub missing_clients: usize,
    /// The voters DRBD counts.
    pub voters: usize,
    /// The votes needed (`None` with quorum off).
    pub quorum_at: Option<usize>,
    /// Whether the diskless tie-breakers keep quorum.
    pub by_tie_breaker: bool,
}

/// One resource's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResourceSiteLoss {
    /// Resource name.
    pub name: String,
    /// The effects; empty means it survives.
    pub effects: Vec<SiteLossEffect>,
    /// The quorum setting used.
    pub quorum: QuorumSetting,
    /// The vote count after the loss.
    pub votes: Votes,
    /// Nodes of its replicas in the lost site.
    pub lost_nodes: Vec<String>,
    /// Why, in words.
    pub reasons: Vec<String>,
}

impl ResourceSiteLoss {
    /// Whether no effect applies.
    pub fn survives(&self) -> bool {
        self.effects.is_empty()
    }
}

/// The answer for one site.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SiteLossReport {
    /// The site assumed dark.
    pub site: String,
    /// The nodes in it.
    pub nodes: Vec<String>,
    /// Every resource with at least one active replica, by name.
    pub resources: Vec<ResourceSiteLoss>,
}

impl SiteLossReport {
    /// Resources with this effect.
    pub fn with(&self, effect: SiteLossEffect) -> impl Iterator<Item = &ResourceSiteLoss> {
        self.resources
            .iter()
            .filter(move |r| r.effects.contains(&effect))
    }

    /// Whether any resource would lose anything, or cannot be told.
    pub fn has_losses(&self) -> bool {
        self.resources.iter().any(|r| !r.survives())
    }
}

/// Each node's site: its [`HealthOptions::site_property`], else [`HealthOptions::node_sites`].
pub fn node_sites(state: &ClusterState, options: &HealthOptions) -> BTreeMap<String, String> {
    let mut sites = BTreeMap::new();
    for node in &state.nodes {
        if let Some(site) = node
            .props
            .get(&options.site_property)
            .map(|s| s.trim())
            .filter(|s| !s.is_empty())
        {
            sites.insert(node.name.clone(), site.to_owned());
        }
    }
    for (node, site) in &options.node_sites {
        sites.entry(node.clone()).or_insert_with(|| site.clone());
    }
    sites
}

/// What `site` going dark would do to each resource of `state`. `controller_props` are the
/// controller's properties (`GET /v1/controller/properties`), the last place a quorum setting
/// is looked for.
pub fn what_if_site_down(
    state: &ClusterState,
    options: &HealthOptions,
    controller_props: &BTreeMap<String, String>,
    site: &str,
) -> SiteLossReport {
    let sites = node_sites(state, options);
    let lost = |node: &str| sites.get(node).is_some_and(|s| s == site);
    SiteLossReport {
        site: site.to_owned(),
        nodes: sites
            .iter()
            .filter(|(_, s)| s.as_str() == site)
            .map(|(n, _)| n.clone())
            .collect(),
        resources: losses(state, controller_props, &lost, Some(&sites), site),
    }
}

/// What `nodes` going away together (maintenance, an evacuation) would do to each resource of
/// `state`, by the same count as [`what_if_site_down`]; no site is needed.
pub fn what_if_nodes_down(
    state: &ClusterState,
    controller_props: &BTreeMap<String, String>,
    nodes: &[&str],
) -> Vec<ResourceSiteLoss> {
    let lost = |node: &str| nodes.contains(&node);
    losses(state, controller_props, &lost, None, &nodes.join(", "))
}

/// Each resource's answer when the nodes `lost` says are gone; with `sites`, a replica on a
/// node without a site cannot be told. `label` names what went away, in reasons.
fn losses(
    state: &ClusterState,
    controller_props: &BTreeMap<String, String>,
    lost: &dyn Fn(&str) -> bool,
    sites: Option<&BTreeMap<String, String>>,
    label: &str,
) -> Vec<ResourceSiteLoss> {
    let nodes: BTreeMap<&str, &Node> = state.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let mut replicas: BTreeMap<&str, Vec<&ResourceWithVolumes>> = BTreeMap::new();
    for replica in &state.resources {
        // DRBD does not run an `INACTIVE` replica, `EVICTED` ones included (the flag carries
        // `INACTIVE`, and peers leave them out of their res files: see `health`), so it holds
        // no vote.
        if replica.has_flag("INACTIVE") || replica.has_flag("EVICTED") {
            continue;
        }
        replicas
            .entry(replica.name.as_str())
            .or_default()
            .push(replica);
    }
    let at = Placement {
        sites,
        nodes: &nodes,
        lost,
        label,
    };
    replicas
        .into_iter()
        .map(|(name, list)| {
            let (quorum, mixed) = survivors_quorum(state, name, &list, controller_props, &at);
            resource_loss(name, &list, quorum, mixed, &at)
        })
        .collect()
}

/// The quorum setting on the surviving diskful replicas of `name` (on all of them when none
/// survives), and a reason when the survivors are set differently.
fn survivors_quorum(
    state: &ClusterState,
    name: &str,
    replicas: &[&ResourceWithVolumes],
    controller: &BTreeMap<String, String>,
    at: &Placement<'_>,
) -> (QuorumSetting, Option<String>) {
    let node = |r: &ResourceWithVolumes| at.nodes.get(r.node_name.as_str()).copied();
    let diskful: Vec<&ResourceWithVolumes> = replicas
        .iter()
        .copied()
        .filter(|r| !r.is_diskless())
        .collect();
    let survivors: Vec<&ResourceWithVolumes> = diskful
        .iter()
        .copied()
        .filter(|r| node(r).is_some_and(Node::is_online) && !(at.lost)(&r.node_name))
        .collect();
    let judged = if survivors.is_empty() {
        &diskful
    } else {
        &survivors
    };
    let settings: Vec<(&str, QuorumSetting)> = judged
        .iter()
        .map(|r| {
            let setting = quorum_setting(state, name, Some((r, node(r))), controller);
            (r.node_name.as_str(), setting)
        })
        .collect();
    let Some((_, first)) = settings.first() else {
        return (quorum_setting(state, name, None, controller), None);
    };
    // `on-no-quorum` changes what a node does without quorum, not the count.
    let differ = settings.iter().any(|(_, s)| {
        (&s.quorum, &s.minimum_redundancy) != (&first.quorum, &first.minimum_redundancy)
    });
    let reason = (differ && !survivors.is_empty()).then(|| {
        let each: Vec<String> = settings
            .iter()
            .map(|(node, s)| format!("{node} {} ({})", s.quorum, s.source))
            .collect();
        format!(
            "quorum set differently on the surviving nodes: {}",
            each.join(", ")
        )
    });
    (first.clone(), reason)
}

/// The placement a resource is judged in.
struct Placement<'a> {
    /// Node sites, when a replica's site decides whether it is lost.
    sites: Option<&'a BTreeMap<String, String>>,
    nodes: &'a BTreeMap<&'a str, &'a Node>,
    lost: &'a dyn Fn(&str) -> bool,
    label: &'a str,
}

/// The quorum setting of resource `name` on one `replica` and its `node`: the resource, else
/// its definition, else its group, else the node, else the controller (`ConfFileBuilder`
/// `localRscPrioProps`). Without a replica, only the shared levels are read.
fn quorum_setting(
    state: &ClusterState,
    name: &str,
    replica: Option<(&ResourceWithVolumes, Option<&Node>)>,
    controller: &BTreeMap<String, String>,
) -> QuorumSetting {
    let definition = state.resource_definitions.iter().find(|d| d.name == name);
    let group = definition
        .and_then(|d| d.resource_group_name.as_deref())
        .and_then(|g| state.resource_groups.iter().find(|rg| rg.name == g));
    let levels: [(&'static str, Option<&BTreeMap<String, String>>); 5] = [
        ("resource", replica.map(|(r, _)| &r.props)),
        ("resource definition", definition.map(|d| &d.props)),
        ("resource group", group.map(|g| &g.props)),
        ("node", replica.and_then(|(_, n)| n).map(|n| &n.props)),
        ("controller", Some(controller)),
    ];
    let lookup = |key: &str| {
        levels.iter().find_map(|(source, props)| {
            let value = (*props)?.get(key)?.trim();
            (!value.is_empty()).then(|| (*source, value.to_owned()))
        })
    };
    let (source, quorum) = lookup(QUORUM_KEY).unwrap_or(("DRBD default", "off".to_owned()));
    QuorumSetting {
        quorum,
        source,
        minimum_redundancy: lookup(MIN_REDUNDANCY_KEY).map(|(_, v)| v),
        on_no_quorum: lookup(ON_NO_QUORUM_KEY).map(|(_, v)| v),
    }
}

/// A quorum threshold as DRBD's `calc_quorum_at` reads it: `majority`, `all`, a number, or
/// `off` (no threshold); `Err` for anything else.
fn threshold(setting: &str, voters: usize) -> Result<Option<usize>, ()> {
    match setting.trim().to_ascii_lowercase().as_str() {
        "off" => Ok(None),
        "majority" => Ok(Some(voters / 2 + 1)),
        "all" => Ok(Some(voters)),
        number => number.parse::<usize>().map(Some).map_err(|_| ()),
    }
}

/// Whether a diskful replica is `UpToDate`: every volume so, or, below a top layer other than
/// DRBD (which has no disk state: linstor-client `volume_expects_disk_state`), present.
fn replica_up_to_date(replica: &ResourceWithVolumes) -> bool {
    !replica.volumes.is_empty()
        && replica.volumes.iter().all(|v| {
            let drbd_top = match v.layer_data_list.first() {
                Some(top) => top.layer_type == Some(LayerType::Drbd),
                None => v.disk_state().is_some(),
            };
            !drbd_top || v.disk_state() == Some(&DiskState::UpToDate)
        })
}

fn replica_outdated(replica: &ResourceWithVolumes) -> bool {
    replica
        .volumes
        .iter()
        .any(|v| v.disk_state() == Some(&DiskState::Outdated))
}

/// DRBD's quorum decision over `votes` (fills `voters`, `quorum_at`, `by_tie_breaker`);
/// `clients_vote` says whether diskless clients break ties (DRBD before 9.3.1).
/// `Err` when a setting is not understood.
fn decide(
    votes: &mut Votes,
    quorum: &QuorumSetting,
    had_quorum: bool,
    clients_vote: bool,
) -> Result<bool, ()> {
    let v = votes;
    v.voters = if v.unknown > 0 {
        v.outdated + v.unknown + v.up_to_date + v.present
    } else {
        v.up_to_date + v.present
    };
    let Some(quorum_at) = threshold(&quorum.quorum, v.voters)? else {
        v.quorum_at = None;
        return Ok(true);
    };
    v.quorum_at = Some(quorum_at);
    let min_redundancy = match &quorum.minimum_redundancy {
        Some(setting) => threshold(setting, v.voters)?.unwrap_or(0),
        None => 0,
    };
    let reached = v.up_to_date + v.present;
    if reached >= quorum_at && v.up_to_date >= min_redundancy {
        return Ok(true);
    }
    let (here, away) = if clients_vote {
        (
            v.diskless + v.clients,
            v.missing_diskless + v.missing_clients,
        )
    } else {
        (v.diskless, v.missing_diskless)
    };
    let diskless_majority = (here + away) / 2 + 1;
    v.by_tie_breaker = v.voters != 0
        && v.voters.is_multiple_of(2)
        && reached + 1 == quorum_at
        && here >= diskless_majority
        && had_quorum;
    Ok(v.by_tie_breaker)
}

/// Whether a diskless replica may be a LINSTOR client rather than a tie-breaker: not
/// `TIE_BREAKER` (linstor-server `CtrlRscAutoTieBreakerHelper` clears `CLIENT` on those), and
/// its DRBD layer carries `CLIENT` or is not shown, so the flag cannot be read.
fn is_client(replica: &ResourceWithVolumes) -> bool {
    if replica.has_flag("TIE_BREAKER") {
        return false;
    }
    match replica.layer_object.as_ref().and_then(|l| l.find_drbd()) {
        Some(drbd) => drbd.flags.iter().any(|f| f.eq_ignore_ascii_case("CLIENT")),
        None => true,
    }
}

/// How the DRBD connection `judge` reports towards `replica`: `Some(true)` when `Connected`
/// (or `replica` is `judge` itself), `Some(false)` when down, `None` when not reported.
fn link(judge: &ResourceWithVolumes, replica: &ResourceWithVolumes) -> Option<bool> {
    if judge.node_name == replica.node_name {
        return Some(true);
    }
    let connection = judge.drbd_connections()?.get(&replica.node_name)?;
    match (&connection.message, connection.connected) {
        (Some(DrbdConnectionState::Unknown(_) | DrbdConnectionState::UnknownState), _) => None,
        (Some(state), connected) => {
            Some(*state == DrbdConnectionState::Connected && connected != Some(false))
        }
        (None, connected) => connected,
    }
}

/// The votes on the surviving side when the nodes `lost` says are gone, as the surviving
/// diskful replica `judge` counts them (drbd `drbd_state.c` `__calc_quorum_with_disk`: a peer
/// counts by `judge`'s own DRBD connection to it). Peers whose connection state is not
/// reported, and all peers without a `judge`, are uncertain: with `offline_vote` they count as
/// present by their last known disk state, else as absent; without a `judge`, a replica on an
/// ONLINE node counts as present.
fn count_votes(
    replicas: &[&ResourceWithVolumes],
    judge: Option<&ResourceWithVolumes>,
    online: &dyn Fn(&str) -> bool,
    lost: &dyn Fn(&str) -> bool,
    offline_vote: bool,
) -> Votes {
    let mut votes = Votes::default();
    for replica in replicas {
        let node = replica.node_name.as_str();
        // OFFLINE is the controller's connection to the satellite (linstor-server
        // `TcpConnectorPeer.connectionStatus`); DRBD counts a peer by its own connection, so an
        // offline node may still vote and an online one whose links are down does not.
        let linked = match judge {
            Some(judge) => link(judge, replica).unwrap_or(offline_vote),
            None => online(node) || offline_vote,
        };
        let here = linked && !lost(node);
        match (replica.is_diskless(), here) {
            (true, true) if is_client(replica) => votes.clients += 1,
            (true, false) if is_client(replica) => votes.missing_clients += 1,
            (true, true) => votes.diskless += 1,
            (true, false) => votes.missing_diskless += 1,
            (false, true) if replica_up_to_date(replica) => votes.up_to_date += 1,
            (false, true) => votes.present += 1,
            // The disk state of a replica on an offline node is stale, so it is unknown.
            (false, false) if online(node) && replica_outdated(replica) => votes.outdated += 1,
            (false, false) => votes.unknown += 1,
        }
    }
    votes
}

/// Whether the survivors keep quorum, judged on each surviving diskful replica on an ONLINE
/// node by the connections it reports (DRBD decides on each node), or, with none, by the
/// nodes' LINSTOR state. Kept when some judge keeps it: DRBD serves I/O there. Also returns
/// the count of the judge whose answer is given.
fn judged_quorum(
    replicas: &[&ResourceWithVolumes],
    quorum: &QuorumSetting,
    online: &dyn Fn(&str) -> bool,
    lost: &dyn Fn(&str) -> bool,
) -> (Votes, Result<bool, Untold>) {
    let mut judges: Vec<Option<&ResourceWithVolumes>> = replicas
        .iter()
        .filter(|r| !r.is_diskless() && online(&r.node_name) && !lost(&r.node_name))
        .map(|r| Some(*r))
        .collect();
    if judges.is_empty() {
        judges.push(None);
    }
    let mut answers = judges.into_iter().map(|judge| {
        let count = |lost: &dyn Fn(&str) -> bool, offline_vote| {
            count_votes(replicas, judge, online, lost, offline_vote)
        };
        let before = count(&|_| false, false);
        let mut votes = count(lost, false);
        let voting = (count(&|_| false, true), count(lost, true));
        let kept = quorum_kept(&mut votes, before, voting, quorum);
        (votes, kept)
    });
    let Some(first) = answers.next() else {
        return (Votes::default(), Err(Untold::Setting));
    };
    answers.fold(first, |best, next| match (&best.1, &next.1) {
        (Err(Untold::Setting) | Ok(true), _) => best,
        (_, Err(Untold::Setting) | Ok(true)) => next,
        (Ok(false), Err(Untold::Depends { .. })) => next,
        (
            Err(Untold::Depends { clients, offline }),
            Err(Untold::Depends {
                clients: more_clients,
                offline: more_offline,
            }),
        ) => {
            let merged = Untold::Depends {
                clients: *clients || *more_clients,
                offline: *offline || *more_offline,
            };
            (best.0, Err(merged))
        }
        _ => best,
    })
}

/// Why the survivors' quorum cannot be told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Untold {
    /// A setting is not understood.
    Setting,
    /// The counts differ on whether diskless clients vote (`clients`) and on whether replicas
    /// on nodes LINSTOR reports offline vote (`offline`).
    Depends { clients: bool, offline: bool },
}

/// Whether the survivors keep quorum, counted with and without the diskless clients'
/// tie-breaking votes, and with and without the votes of replicas on offline nodes. `votes` and
/// `before` count offline nodes as absent, `voting` (before, after) as present; `votes` is
/// filled by the count with clients voting and offline nodes absent.
fn quorum_kept(
    votes: &mut Votes,
    before: Votes,
    voting: (Votes, Votes),
    quorum: &QuorumSetting,
) -> Result<bool, Untold> {
    let answer = |after: &mut Votes, before: Votes, clients_vote: bool| {
        let had = decide(&mut before.clone(), quorum, true, clients_vote).unwrap_or(false);
        decide(after, quorum, had, clients_vote).map_err(|()| Untold::Setting)
    };
    let (mut without, mut offline_with, mut offline_without) = (*votes, voting.1, voting.1);
    let absent = [
        answer(votes, before, true)?,
        answer(&mut without, before, false)?,
    ];
    let present = [
        answer(&mut offline_with, voting.0, true)?,
        answer(&mut offline_without, voting.0, false)?,
    ];
    let clients = absent[0] != absent[1] || present[0] != present[1];
    let offline = absent != present;
    if clients || offline {
        Err(Untold::Depends { clients, offline })
    } else {
        Ok(absent[0])
    }
}

/// One resource's answer under `quorum`; `mixed` is why the survivors' quorum settings
/// differ, which leaves the quorum answer untold.
fn resource_loss(
    name: &str,
    replicas: &[&ResourceWithVolumes],
    quorum: QuorumSetting,
    mixed: Option<String>,
    at: &Placement<'_>,
) -> ResourceSiteLoss {
    let mut effects = Vec::new();
    let mut reasons = Vec::new();
    let online = |node: &str| at.nodes.get(node).is_some_and(|n| n.is_online());
    let in_site = at.lost;
    let lost_nodes: Vec<String> = replicas
        .iter()
        .map(|r| r.node_name.clone())
        .filter(|n| in_site(n))
        .collect();
    let unsited: Vec<&str> = replicas
        .iter()
        .map(|r| r.node_name.as_str())
        .filter(|n| at.sites.is_some_and(|sites| !sites.contains_key(*n)))
        .collect();
    // Whether any UpToDate data is left does not depend on who sees whom.
    let before = count_votes(replicas, None, &online, &|_| false, false);
    let votes = count_votes(replicas, None, &online, &in_site, false);
    if !unsited.is_empty() {
        // Whether those replicas go dark with the site decides every count below.
        return ResourceSiteLoss {
            name: name.to_owned(),
            effects: vec![SiteLossEffect::CannotTell],
            quorum,
            votes,
            lost_nodes,
            reasons: vec![format!("no site known for {}", unsited.join(", "))],
        };
    }
    if votes.up_to_date == 0 && before.up_to_date > 0 {
        effects.push(SiteLossEffect::LosesLastUpToDate);
        reasons.push(format!(
            "no UpToDate diskful replica outside {} ({} UpToDate now)",
            at.label, before.up_to_date
        ));
    } else if before.up_to_date == 0 {
        // Nothing is UpToDate even now: what the site takes with it cannot be told.
        effects.push(SiteLossEffect::CannotTell);
        reasons.push("no UpToDate diskful replica even now".to_owned());
    }
    let (votes, kept) = match mixed {
        Some(reason) => (votes, Err(Err(reason))),
        None => {
            let (votes, kept) = judged_quorum(replicas, &quorum, &online, &in_site);
            (votes, kept.map_err(Ok))
        }
    };
    let (effect, quorum_reasons) = quorum_effect(kept, &quorum, &votes, || {
        offline_reason(replicas, &online, &in_site)
    });
    effects.extend(effect);
    reasons.extend(quorum_reasons);
    let primary_lost: Vec<&str> = replicas
        .iter()
        .filter(|r| r.state.as_ref().and_then(|s| s.in_use) == Some(true))
        .map(|r| r.node_name.as_str())
        .filter(|n| in_site(n))
        .collect();
    if !primary_lost.is_empty() {
        effects.push(SiteLossEffect::LosesPrimary);
        reasons.push(format!("Primary on {}", primary_lost.join(", ")));
    } else if let Some(reason) = role_unknown(replicas, &online, &in_site) {
        effects.push(SiteLossEffect::CannotTell);
        reasons.push(reason);
    }
    effects.sort();
    effects.dedup();
    ResourceSiteLoss {
        name: name.to_owned(),
        effects,
        quorum,
        votes,
        lost_nodes,
        reasons,
    }
}

/// Why the lost site may hold the Primary though no replica says so: with no replica known
/// to be Primary, one in the site on a node the controller does not reach has no role, since
/// linstor-server keeps none for such a node (`ResourceStateEventHandler.execute` unsets
/// `in_use` when the satellite's stream closes; a new connection starts a fresh
/// `SatelliteState`), while DRBD there may still be Primary.
fn role_unknown(
    replicas: &[&ResourceWithVolumes],
    online: &dyn Fn(&str) -> bool,
    in_site: &dyn Fn(&str) -> bool,
) -> Option<String> {
    let in_use = |r: &&&ResourceWithVolumes| r.state.as_ref().and_then(|s| s.in_use);
    if replicas.iter().any(|r| in_use(&r) == Some(true)) {
        return None;
    }
    let unknown: Vec<&str> = replicas
        .iter()
        .filter(|r| in_use(r).is_none() && in_site(&r.node_name) && !online(&r.node_name))
        .map(|r| r.node_name.as_str())
        .collect();
    (!unknown.is_empty()).then(|| {
        format!(
            "whether {} holds the Primary is not known: the controller keeps no DRBD role for a node it does not reach",
            unknown.join(", ")
        )
    })
}

/// What the quorum judged after the loss (`kept`: kept or lost, or why it cannot be told)
/// adds to a resource's effects, and why.
fn quorum_effect(
    kept: Result<bool, Result<Untold, String>>,
    quorum: &QuorumSetting,
    votes: &Votes,
    offline_reason: impl FnOnce() -> String,
) -> (Option<SiteLossEffect>, Vec<String>) {
    let mut effect = None;
    let mut reasons = Vec::new();
    match kept {
        Err(Err(reason)) => {
            effect = Some(SiteLossEffect::CannotTell);
            reasons.push(reason);
        }
        Err(Ok(Untold::Setting)) => {
            effect = Some(SiteLossEffect::CannotTell);
            reasons.push(format!("quorum setting `{}` not understood", quorum.quorum));
        }
        Err(Ok(Untold::Depends { clients, offline })) => {
            effect = Some(SiteLossEffect::CannotTell);
            if clients {
                reasons.push(format!(
                    "quorum depends on whether {} diskless client(s) vote: DRBD 9.3.1 and \
                     later does not count a LINSTOR client (`tiebreaker no`), and the DRBD \
                     version is not known",
                    votes.clients + votes.missing_clients
                ));
            }
            if offline {
                reasons.push(offline_reason());
            }
        }
        Ok(false) if votes.up_to_date + votes.present > 0 => {
            effect = Some(SiteLossEffect::LosesQuorum);
            reasons.push(format!(
                "{} of {} votes left, {} needed ({} {})",
                votes.up_to_date + votes.present,
                votes.voters,
                votes.quorum_at.unwrap_or_default(),
                quorum.quorum,
                quorum.source
            ));
        }
        Ok(_) => {}
    }
    (effect, reasons)
}

/// Why replicas on surviving nodes LINSTOR reports offline, or towards which a surviving
/// diskful replica reports no DRBD connection state, leave the quorum untold.
fn offline_reason(
    replicas: &[&ResourceWithVolumes],
    online: &dyn Fn(&str) -> bool,
    lost: &dyn Fn(&str) -> bool,
) -> String {
    let judges: Vec<&ResourceWithVolumes> = replicas
        .iter()
        .copied()
        .filter(|r| !r.is_diskless() && online(&r.node_name) && !lost(&r.node_name))
        .collect();
    let offline: Vec<&str> = replicas
        .iter()
        .map(|r| r.node_name.as_str())
        .filter(|n| !online(n) && !lost(n))
        .collect();
    let unreported: Vec<&str> = replicas
        .iter()
        .filter(|r| !lost(&r.node_name) && judges.iter().any(|j| link(j, r).is_none()))
        .map(|r| r.node_name.as_str())
        .collect();
    let mut why = Vec::new();
    if !offline.is_empty() {
        why.push(format!(
            "replicas on {} vote: LINSTOR reports the node(s) not ONLINE to the controller, but \
             DRBD counts a peer by its own connection",
            offline.join(", ")
        ));
    }
    if !unreported.is_empty() {
        why.push(format!(
            "replicas on {} are seen: the view has no DRBD connection state towards them, and \
             DRBD counts a peer by its own connection",
            unreported.join(", ")
        ));
    }
    format!(
        "quorum depends on whether the {}",
        why.join("; and whether the ")
    )
}

/// Renders a report as plain text: one line per resource that does not survive, then a
/// summary.
pub fn render_text(report: &SiteLossReport) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "IF SITE {} GOES DOWN (nodes: {})",
        report.site,
        if report.nodes.is_empty() {
            "none known".to_owned()
        } else {
            report.nodes.join(", ")
        }
    );
    for resource in report.resources.iter().filter(|r| !r.survives()) {
        let effects: Vec<&str> = resource.effects.iter().map(|e| e.as_str()).collect();
        let _ = writeln!(
            out,
            "  {:<32} {}: {}",
            resource.name,
            effects.join(", "),
            resource.reasons.join("; ")
        );
    }
    let survive = report.resources.iter().filter(|r| r.survives()).count();
    let _ = writeln!(
        out,
        "  {survive} of {} resources survive",
        report.resources.len()
    );
    out
}
