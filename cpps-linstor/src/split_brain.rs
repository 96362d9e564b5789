//! `StandAlone` DRBD connections and possible split brains, read from the connection and disk
//! states the controller reports (`GET /v1/view/resources`).
//!
//! DRBD drops a connection to `StandAlone` when it finds a split brain it cannot resolve
//! ("Split-Brain detected but unresolved, dropping connection!"); since DRBD 9.0.26 both sides
//! do (LINBIT/drbd9-tests `tests/split-brain`: after both nodes wrote while apart, each
//! connection ends `StandAlone`, earlier versions often left one side `Connecting`), and each
//! side still calls its own disk `UpToDate`. A connection is also `StandAlone` after `drbdadm
//! disconnect`, or when the peers' settings clash (a `verify-alg` or a disk size the other
//! refuses: linstor-server `CtrlRscDfnAutoVerifyAlgoHelper`, `CtrlRscToggleDiskApiCallHandler`).
//! DRBD does not reconnect it by itself; `drbdadm adjust` does (drbd-utils
//! `user/v9/drbdadm_adjust.c`), which a LINSTOR satellite runs whenever it applies a change to
//! the resource (linstor-server `DrbdLayer.adjustDrbd`), and a split brain then drops it again:
//! such a pair may be seen `Connecting` in between.
//!
//! [`standalone`] lists each such pair once, with what both sides report, and names a side as
//! newer only where the disk states record one behind: an `UpToDate` side against an `Outdated`
//! or `Inconsistent` one. That is a likely direction, not DRBD's decision: on reconnecting DRBD
//! compares its data-generation UUIDs, which the controller does not report, and consults the
//! disk states only where the UUIDs leave the direction open (drbd `drbd/drbd_receiver.c`:
//! `drbd_sync_handshake` calls `drbd_uuid_compare`, then `disk_states_to_strategy`), volume by
//! volume. A volume `UpToDate` on two diskful sides is a possible split brain, and which holds
//! the data to keep is never guessed, not even from which side is in use.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::health::ClusterState;
use crate::types::resource::{DiskState, DrbdConnectionState, ResourceWithVolumes, Volume};

/// One `StandAlone` DRBD connection between two replicas of a resource.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandAlone {
    /// Resource name.
    pub resource: String,
    /// The two nodes, in name order.
    pub nodes: [String; 2],
    /// What each node reports towards the other, in the order of `nodes`; `None` where that
    /// side is not seen (its node is not online, or it lists no such connection).
    pub states: [Option<DrbdConnectionState>; 2],
    /// What the disk states say about the two sides' data.
    pub verdict: Verdict,
}

/// What the disk states of a `StandAlone` pair say.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Verdict {
    /// Both sides are diskful and a volume is `UpToDate` on both: each may hold writes the
    /// other lacks (a split brain), or the connection was dropped for another reason. Which
    /// side to keep is not in these states.
    PossibleSplitBrain,
    /// Every volume is `UpToDate` on `newer` and `Outdated`, `Inconsistent` or resyncing on
    /// `older`: DRBD marks a disk so when it lacks writes a peer has, so `newer` is likely the
    /// current one. DRBD decides from its data-generation UUIDs, not from these states: if
    /// `older` wrote while apart (it was outdated after writing), the UUIDs show a split brain
    /// where both wrote, and point to `older`'s data where only it did.
    Newer {
        /// The node whose disk states say it is current.
        newer: String,
        /// The node whose disk states say it is behind.
        older: String,
    },
    /// One side has no disk, so no data can have diverged.
    Diskless {
        /// The diskless side.
        node: String,
    },
    /// The states do not tell.
    CannotTell {
        /// Why.
        reason: String,
    },
}

/// A volume's data, as its disk state says.
enum Data {
    UpToDate,
    Behind,
    Unclear(String),
}

/// Every `StandAlone` connection between replicas of a resource seen from an online node, each
/// pair once, in resource and node order.
pub fn standalone(state: &ClusterState) -> Vec<StandAlone> {
    let online = state.online_nodes();
    let mut replicas: BTreeMap<(&str, &str), &ResourceWithVolumes> = BTreeMap::new();
    for replica in &state.resources {
        replicas.insert((replica.name.as_str(), replica.node_name.as_str()), replica);
    }
    let mut pairs: BTreeSet<(&str, &str, &str)> = BTreeSet::new();
    for (&(resource, node), replica) in &replicas {
        if !online.contains(node) {
            continue;
        }
        for (peer, connection) in replica.drbd_connections().into_iter().flatten() {
            if connection.message == Some(DrbdConnectionState::StandAlone) {
                let (a, b) = if node <= peer.as_str() {
                    (node, peer.as_str())
                } else {
                    (peer.as_str(), node)
                };
                pairs.insert((resource, a, b));
            }
        }
    }
    pairs
        .into_iter()
        .map(|(resource, a, b)| {
            let side = |node: &str| {
                replicas
                    .get(&(resource, node))
                    .copied()
                    .filter(|_| online.contains(node))
            };
            let (side_a, side_b) = (side(a), side(b));
            let towards = |replica: Option<&ResourceWithVolumes>, peer: &str| {
                replica?.drbd_connections()?.get(peer)?.message.clone()
            };
            StandAlone {
                resource: resource.to_owned(),
                nodes: [a.to_owned(), b.to_owned()],
                states: [towards(side_a, b), towards(side_b, a)],
                verdict: verdict((a, side_a), (b, side_b)),
            }
        })
        .collect()
}

fn verdict(
    (a, side_a): (&str, Option<&ResourceWithVolumes>),
    (b, side_b): (&str, Option<&ResourceWithVolumes>),
) -> Verdict {
    let (Some(side_a), Some(side_b)) = (side_a, side_b) else {
        let unseen = if side_a.is_none() { a } else { b };
        return Verdict::CannotTell {
            reason: format!("{unseen} is not seen (not online, or no replica listed)"),
        };
    };
    for (node, side) in [(a, side_a), (b, side_b)] {
        if holds_no_drbd_data(side) {
            return Verdict::Diskless {
                node: node.to_owned(),
            };
        }
    }
    compare_volumes((a, side_a), (b, side_b))
        .unwrap_or_else(|reason| Verdict::CannotTell { reason })
}

/// Whether a replica holds no data DRBD replicates: flagged `DRBD_DISKLESS` (a client or
/// tie-breaker; linstor-server `Resource.isDrbdDiskless`), unless its disk is still being
/// removed (`CtrlRscToggleDiskApiCallHandler.markDiskRemoving` flags it before the satellite
/// detaches the disk). An NVMe or EBS initiator is diskless to LINSTOR but a diskful DRBD peer.
fn holds_no_drbd_data(replica: &ResourceWithVolumes) -> bool {
    replica.has_flag("DRBD_DISKLESS") && !replica.has_flag("DISK_REMOVING")
}

/// How one volume's two sides compare.
enum Pair {
    BothCurrent,
    BehindOnA(String),
    BehindOnB(String),
    /// Not comparable, and why.
    Unclear(String),
}

/// The verdict of two diskful sides, volume by volume, as DRBD decides each volume apart (a
/// handshake per peer device): a volume `UpToDate` on both is a possible split brain whatever
/// the others say; a side is newer only where every other volume is behind on the other side.
fn compare_volumes(
    (a, side_a): (&str, &ResourceWithVolumes),
    (b, side_b): (&str, &ResourceWithVolumes),
) -> Result<Verdict, String> {
    for (node, side) in [(a, side_a), (b, side_b)] {
        if side.volumes.is_empty() {
            return Err(format!("{node}: no volume listed"));
        }
    }
    let numbers: BTreeSet<Option<i64>> = side_a
        .volumes
        .iter()
        .chain(&side_b.volumes)
        .map(|v| v.volume_number)
        .collect();
    let pairs: Vec<Pair> = numbers
        .into_iter()
        .map(|number| pair((a, side_a), (b, side_b), number))
        .collect();
    if pairs.iter().any(|p| matches!(p, Pair::BothCurrent)) {
        return Ok(Verdict::PossibleSplitBrain);
    }
    let (mut behind_on_a, mut behind_on_b) = (Vec::new(), Vec::new());
    for pair in pairs {
        match pair {
            Pair::Unclear(why) => return Err(why),
            Pair::BehindOnA(label) => behind_on_a.push(label),
            Pair::BehindOnB(label) => behind_on_b.push(label),
            Pair::BothCurrent => {}
        }
    }
    let newer = |newer: &str, older: &str| Verdict::Newer {
        newer: newer.to_owned(),
        older: older.to_owned(),
    };
    match (behind_on_a.is_empty(), behind_on_b.is_empty()) {
        (true, false) => Ok(newer(a, b)),
        (false, true) => Ok(newer(b, a)),
        _ => Err(format!(
            "the volumes disagree: volume {} is behind on {a}, volume {} on {b}",
            behind_on_a.join(", "),
            behind_on_b.join(", ")
        )),
    }
}

/// How volume `number` compares between the two sides.
fn pair(
    (a, side_a): (&str, &ResourceWithVolumes),
    (b, side_b): (&str, &ResourceWithVolumes),
    number: Option<i64>,
) -> Pair {
    let label = number.map_or_else(|| "?".to_owned(), |n| n.to_string());
    let numbered = |side: &ResourceWithVolumes| {
        side.volumes
            .iter()
            .find(|v| v.volume_number == number)
            .map(data)
    };
    match (numbered(side_a), numbered(side_b)) {
        (_, None) => Pair::Unclear(format!("volume {label} is listed on {a} only")),
        (None, _) => Pair::Unclear(format!("volume {label} is listed on {b} only")),
        (Some(Data::Unclear(why)), _) => Pair::Unclear(format!("volume {label} on {a}: {why}")),
        (_, Some(Data::Unclear(why))) => Pair::Unclear(format!("volume {label} on {b}: {why}")),
        (Some(Data::UpToDate), Some(Data::UpToDate)) => Pair::BothCurrent,
        (Some(Data::UpToDate), Some(Data::Behind)) => Pair::BehindOnB(label),
        (Some(Data::Behind), Some(Data::UpToDate)) => Pair::BehindOnA(label),
        (Some(Data::Behind), Some(Data::Behind)) => {
            Pair::Unclear(format!("volume {label} is behind on both sides"))
        }
    }
}

/// What one volume's disk state says: `UpToDate`; behind when `Outdated`, `Inconsistent` or a
/// resync target (`SyncTarget(42.50%)`); else unclear.
fn data(volume: &Volume) -> Data {
    match volume.disk_state() {
        Some(DiskState::UpToDate) => Data::UpToDate,
        Some(DiskState::Outdated | DiskState::Inconsistent) => Data::Behind,
        Some(state) if state.sync_target_done().is_some() => Data::Behind,
        Some(other) => Data::Unclear(format!("disk state {other}")),
        None => Data::Unclear("no disk state".to_owned()),
    }
}

/// Renders the connections as plain text, one line each; nothing when there are none.
pub fn render_text(connections: &[StandAlone]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    if connections.is_empty() {
        return out;
    }
    let _ = writeln!(out, "STANDALONE DRBD CONNECTIONS");
    for c in connections {
        let shown = |s: &Option<DrbdConnectionState>| {
            s.as_ref()
                .map_or_else(|| "not seen".to_owned(), ToString::to_string)
        };
        let verdict = match &c.verdict {
            Verdict::PossibleSplitBrain => {
                "both UpToDate: possible split brain; the states do not \
                say which side to keep"
                    .to_owned()
            }
            Verdict::Newer { newer, older } => format!(
                "{older} is marked behind, {newer} UpToDate: {newer} is likely the current \
                one; DRBD decides by generation UUIDs, which LINSTOR does not report"
            ),
            Verdict::Diskless { node } => format!("{node} is diskless: no data diverged"),
            Verdict::CannotTell { reason } => format!("cannot tell which data is newer: {reason}"),
        };
        let _ = writeln!(
            out,
            "  {} {} ({}) ↔ {} ({}): {verdict}",
            c.resource,
            c.nodes[0],
            shown(&c.states[0]),
            c.nodes[1],
            shown(&c.states[1])
        );
    }
    out
}
