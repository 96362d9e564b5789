//! `StandAlone` DRBD connections and possible split brains, read from the connection and disk
//! states the controller reports (`GET /v1/view/resources`).
//!
//! A DRBD connection in `StandAlone` does not reconnect by itself. DRBD drops a connection so
//! when it finds a split brain it cannot resolve ("Split-Brain detected but unresolved, dropping
//! connection!"); since DRBD 9.0.26 both sides do (LINBIT/drbd9-tests `tests/split-brain`: after
//! both nodes wrote while apart, each connection ends `StandAlone`, earlier versions often left
//! one side `Connecting`), and each side still calls its own disk `UpToDate`. A connection is
//! also `StandAlone` after `drbdadm disconnect`, or when the peers' settings clash (a
//! `verify-alg` or a disk size the other refuses: linstor-server
//! `CtrlRscDfnAutoVerifyAlgoHelper`, `CtrlRscToggleDiskApiCallHandler`).
//!
//! [`standalone`] lists each such pair once, with what both sides report, and names a side as
//! newer only where the disk states record one behind: an `UpToDate` side against an `Outdated`
//! or `Inconsistent` one. That is a likely direction, not DRBD's decision: on reconnecting DRBD
//! compares its data-generation UUIDs, which the controller does not report, and consults the
//! disk states only where the UUIDs leave the direction open (drbd `drbd/drbd_receiver.c`:
//! `drbd_sync_handshake` calls `drbd_uuid_compare`, then `disk_states_to_strategy`). Two
//! `UpToDate` diskful sides are a possible split brain, and which holds the data to keep is
//! never guessed, not even from which side is in use.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::health::ClusterState;
use crate::types::resource::{DiskState, DrbdConnectionState, ResourceWithVolumes};

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
    /// Both sides are diskful and every volume of both is `UpToDate`: each may hold writes the
    /// other lacks (a split brain), or the connection was dropped for another reason. Which
    /// side to keep is not in these states.
    PossibleSplitBrain,
    /// `newer`'s volumes are all `UpToDate`, and `older` has one `Outdated`, `Inconsistent` or
    /// resyncing: DRBD marks a disk so when it lacks writes a peer has, so `older` likely
    /// resyncs from `newer` once connected. DRBD decides that from its data-generation UUIDs,
    /// not from these states, and sees a split brain if `older` also wrote while apart (it was
    /// outdated after writing, by hand or by fencing).
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

/// A side's data, as its disk states say.
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
        if side.is_diskless() {
            return Verdict::Diskless {
                node: node.to_owned(),
            };
        }
    }
    match (data(side_a), data(side_b)) {
        (Data::UpToDate, Data::UpToDate) => Verdict::PossibleSplitBrain,
        (Data::UpToDate, Data::Behind) => Verdict::Newer {
            newer: a.to_owned(),
            older: b.to_owned(),
        },
        (Data::Behind, Data::UpToDate) => Verdict::Newer {
            newer: b.to_owned(),
            older: a.to_owned(),
        },
        (Data::Behind, Data::Behind) => Verdict::CannotTell {
            reason: "both sides are Outdated or Inconsistent".to_owned(),
        },
        (Data::Unclear(why), _) => Verdict::CannotTell {
            reason: format!("{a}: {why}"),
        },
        (_, Data::Unclear(why)) => Verdict::CannotTell {
            reason: format!("{b}: {why}"),
        },
    }
}

/// A side's data: `UpToDate` when every volume says so, behind when one is `Outdated` or
/// `Inconsistent`, else unclear (no volume, no state, or another state).
fn data(replica: &ResourceWithVolumes) -> Data {
    if replica.volumes.is_empty() {
        return Data::Unclear("no volume listed".to_owned());
    }
    let mut all_up_to_date = true;
    for volume in &replica.volumes {
        match volume.disk_state() {
            Some(DiskState::UpToDate) => {}
            Some(DiskState::Outdated | DiskState::Inconsistent) => return Data::Behind,
            Some(other) => {
                all_up_to_date = false;
                if !matches!(other, DiskState::Unknown(s) if s.starts_with("SyncTarget(")) {
                    return Data::Unclear(format!("disk state {other}"));
                }
            }
            None => return Data::Unclear("no disk state".to_owned()),
        }
    }
    if all_up_to_date {
        Data::UpToDate
    } else {
        // A resync target (`SyncTarget(42.50%)`) is behind its source.
        Data::Behind
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
                "{older} is marked behind, {newer} UpToDate: {older} likely resyncs from \
                {newer}; DRBD decides by generation UUIDs, which LINSTOR does not report"
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
