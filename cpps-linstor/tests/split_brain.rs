//! `StandAlone` DRBD connections and possible split brains, from the states the controller
//! reports (`GET /v1/view/resources`: `layer_object.drbd.connections` and `state.disk_state`).

use cpps_linstor::health::ClusterState;
use cpps_linstor::split_brain::{self, StandAlone, Verdict};
use cpps_linstor::types::resource::DrbdConnectionState;
use serde_json::{Value, json};

fn decode<T: serde::de::DeserializeOwned>(v: Value) -> T {
    serde_json::from_value(v).expect("decodes")
}

fn node(name: &str, status: &str) -> Value {
    json!({"name": name, "type": "SATELLITE", "connection_status": status, "props": {}, "flags": [], "net_interfaces": []})
}

/// A DRBD replica of one volume in `disk_state`, with its connection states towards peers
/// (`connected` as linstor-server `Json.java` writes it: true only for `Connected`).
fn replica(
    rsc: &str,
    node: &str,
    flags: &[&str],
    disk_state: &str,
    peers: &[(&str, &str)],
) -> Value {
    let connections: serde_json::Map<String, Value> = peers
        .iter()
        .map(|(peer, state)| {
            (
                (*peer).to_owned(),
                json!({"connected": *state == "Connected", "message": state}),
            )
        })
        .collect();
    json!({
        "name": rsc, "node_name": node, "props": {}, "flags": flags,
        "layer_object": {"type": "DRBD", "drbd": {"connections": connections}},
        "volumes": [{
            "volume_number": 0,
            "layer_data_list": [{"type": "DRBD", "data": {}}, {"type": "STORAGE", "data": {}}],
            "state": {"disk_state": disk_state, "replication_states": {}}
        }]
    })
}

fn state(nodes: &[(&str, &str)], resources: Value) -> ClusterState {
    ClusterState {
        nodes: nodes.iter().map(|(n, s)| decode(node(n, s))).collect(),
        resources: decode(resources),
        ..ClusterState::default()
    }
}

fn only(state: &ClusterState) -> StandAlone {
    let mut found = split_brain::standalone(state);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

// LINBIT/drbd9-tests `tests/split-brain`: two nodes with up-to-date data are disconnected,
// both write, and on reconnecting each connection ends `StandAlone` (drbd >= 9.0.26; up to
// 9.0.25 one side often stayed `Connecting`), while each side's disk stays `UpToDate`. The test
// then picks the side to discard by hand (`connect --discard-my-data`): the states do not say.
// Being in use on one side does not say either, so it is not used.
#[test]
fn two_up_to_date_sides_apart_are_a_possible_split_brain_never_a_guess() {
    for far_side in ["StandAlone", "Connecting"] {
        let mut a = replica(
            "vm-100-disk-0",
            "n1",
            &[],
            "UpToDate",
            &[("n2", "StandAlone")],
        );
        a["state"] = json!({"in_use": true});
        let b = replica("vm-100-disk-0", "n2", &[], "UpToDate", &[("n1", far_side)]);
        let found = only(&state(&[("n1", "ONLINE"), ("n2", "ONLINE")], json!([a, b])));
        assert_eq!(found.nodes, ["n1", "n2"]);
        assert_eq!(
            found.states,
            [
                Some(DrbdConnectionState::StandAlone),
                Some(decode(json!(far_side)))
            ]
        );
        assert_eq!(found.verdict, Verdict::PossibleSplitBrain, "{far_side}");
        let text = split_brain::render_text(&[found]);
        assert!(
            text.contains("vm-100-disk-0 n1 (StandAlone) ↔ n2 ("),
            "{text}"
        );
        assert!(
            text.contains("the states do not say which side to keep"),
            "{text}"
        );
    }
}

// DRBD marks a peer's disk `Outdated` when it may no longer be current (fencing, a lost
// connection while the other side stayed primary), and a resync target is `Inconsistent`: the
// `UpToDate` side is likely newer. Only likely: on reconnecting, LINBIT/drbd
// `drbd/drbd_receiver.c` `drbd_sync_handshake` takes the direction from `drbd_uuid_compare`,
// and `disk_states_to_strategy` overrides it only where the UUIDs leave it open: a side
// outdated after it wrote apart is a split brain, or the sync source if only it wrote, and
// with no writes since they parted nothing is resynced. The text says so.
#[test]
fn an_outdated_side_is_behind_the_up_to_date_one() {
    let found = only(&state(
        &[("n1", "ONLINE"), ("n2", "ONLINE")],
        json!([
            replica(
                "vm-100-disk-0",
                "n1",
                &[],
                "Outdated",
                &[("n2", "StandAlone")]
            ),
            replica(
                "vm-100-disk-0",
                "n2",
                &[],
                "UpToDate",
                &[("n1", "StandAlone")]
            )
        ]),
    ));
    assert_eq!(
        found.verdict,
        Verdict::Newer {
            newer: "n2".to_owned(),
            older: "n1".to_owned()
        }
    );
    let text = split_brain::render_text(&[found]);
    assert!(
        text.contains(
            "n1 is marked behind, n2 UpToDate: n2 is likely the current one; DRBD decides by \
             generation UUIDs, which LINSTOR does not report"
        ),
        "{text}"
    );
    assert!(!text.contains("has the newer data"), "{text}");
}

// A tie-breaker or client holds no data, so nothing diverged; a side on an offline node is not
// seen, and then nothing is said about whose data is newer.
#[test]
fn a_diskless_side_or_an_unseen_side_says_no_more_than_it_can() {
    let found = split_brain::standalone(&state(
        &[("n1", "ONLINE"), ("n2", "ONLINE"), ("n3", "OFFLINE")],
        json!([
            replica(
                "vm-100-disk-0",
                "n1",
                &[],
                "UpToDate",
                &[("n2", "StandAlone"), ("n3", "StandAlone")]
            ),
            // The peer of a side gone `StandAlone` lost the connection and keeps trying.
            replica(
                "vm-100-disk-0",
                "n2",
                &["DISKLESS", "DRBD_DISKLESS", "TIE_BREAKER"],
                "Diskless",
                &[("n1", "Connecting")]
            ),
            replica(
                "vm-100-disk-0",
                "n3",
                &[],
                "UpToDate",
                &[("n1", "Connected")]
            ),
            replica(
                "vm-101-disk-0",
                "n1",
                &[],
                "UpToDate",
                &[("n2", "Connected")]
            ),
            replica(
                "vm-101-disk-0",
                "n2",
                &[],
                "UpToDate",
                &[("n1", "Connected")]
            )
        ]),
    ));
    let verdicts: Vec<(&[String; 2], &Verdict)> =
        found.iter().map(|c| (&c.nodes, &c.verdict)).collect();
    assert_eq!(
        verdicts,
        [
            (
                &["n1".to_owned(), "n2".to_owned()],
                &Verdict::Diskless {
                    node: "n2".to_owned()
                }
            ),
            (
                &["n1".to_owned(), "n3".to_owned()],
                &Verdict::CannotTell {
                    reason: "n3 is not seen (not online, or no replica listed)".to_owned()
                }
            ),
        ]
    );
    assert_eq!(
        found[1].states,
        [Some(DrbdConnectionState::StandAlone), None]
    );
    assert_eq!(
        found[0].states[1],
        Some(DrbdConnectionState::Connecting),
        "each side's own report is kept"
    );
}

/// `replica` with one volume per `(volume_number, disk_state)`.
fn with_volumes(mut replica: Value, volumes: &[(i64, &str)]) -> Value {
    let volume = replica["volumes"][0].clone();
    replica["volumes"] = volumes
        .iter()
        .map(|(number, disk_state)| {
            let mut v = volume.clone();
            v["volume_number"] = json!(number);
            v["state"]["disk_state"] = json!(disk_state);
            v
        })
        .collect();
    replica
}

/// A side's volumes: `(volume_number, disk_state)`.
type Volumes<'a> = &'a [(i64, &'a str)];

fn two_sides(n1: Volumes<'_>, n2: Volumes<'_>) -> Verdict {
    let side = |node: &str, peer: &str, volumes: &[(i64, &str)]| {
        let one = replica(
            "vm-100-disk-0",
            node,
            &[],
            "UpToDate",
            &[(peer, "StandAlone")],
        );
        with_volumes(one, volumes)
    };
    let state = state(
        &[("n1", "ONLINE"), ("n2", "ONLINE")],
        json!([side("n1", "n2", n1), side("n2", "n1", n2)]),
    );
    only(&state).verdict
}

// LINBIT/drbd `drbd/drbd_receiver.c`: `drbd_sync_handshake` runs for each peer device, that is
// each volume, and `drbd_uuid_compare` decides each volume's direction or split brain apart. A
// side is newer only where no volume says otherwise: a volume UpToDate on both sides is a
// possible split brain whatever the others say, volumes behind on opposite sides cannot be
// told, and a volume in another state is read, not skipped.
#[test]
fn the_verdict_weighs_every_volume() {
    let cannot_tell = |reason: &str| Verdict::CannotTell {
        reason: reason.to_owned(),
    };
    let newer_n2 = Verdict::Newer {
        newer: "n2".to_owned(),
        older: "n1".to_owned(),
    };
    let cases: [(Volumes<'_>, Volumes<'_>, Verdict); 9] = [
        (
            &[(0, "Outdated"), (1, "UpToDate")],
            &[(0, "UpToDate"), (1, "Outdated")],
            cannot_tell("the volumes disagree: volume 0 is behind on n1, volume 1 on n2"),
        ),
        (
            &[(0, "UpToDate"), (1, "UpToDate")],
            &[(0, "UpToDate"), (1, "Outdated")],
            Verdict::PossibleSplitBrain,
        ),
        // A volume UpToDate on both is a possible split brain, whatever comes before it.
        (
            &[(0, "Outdated"), (1, "UpToDate")],
            &[(0, "Outdated"), (1, "UpToDate")],
            Verdict::PossibleSplitBrain,
        ),
        (
            &[(0, "Failed"), (1, "UpToDate")],
            &[(0, "UpToDate"), (1, "UpToDate")],
            Verdict::PossibleSplitBrain,
        ),
        (
            &[(0, "Outdated"), (1, "Failed")],
            &[(0, "UpToDate"), (1, "UpToDate")],
            cannot_tell("volume 1 on n1: disk state Failed"),
        ),
        (
            &[(0, "Outdated"), (1, "Outdated")],
            &[(0, "Outdated"), (1, "UpToDate")],
            cannot_tell("volume 0 is behind on both sides"),
        ),
        (
            &[(0, "Outdated")],
            &[(0, "UpToDate"), (1, "UpToDate")],
            cannot_tell("volume 1 is listed on n2 only"),
        ),
        (
            &[(0, "Inconsistent"), (1, "Outdated")],
            &[(0, "UpToDate"), (1, "UpToDate")],
            newer_n2.clone(),
        ),
        // linstor-server `DrbdVolume.diskStateInfo`: a resync target with a known percentage.
        (&[(0, "SyncTarget(42.50%)")], &[(0, "UpToDate")], newer_n2),
    ];
    for (n1, n2, expected) in cases {
        assert_eq!(two_sides(n1, n2), expected, "{n1:?} against {n2:?}");
    }
}

// linstor-server `CtrlRscToggleDiskApiCallHandler.markDiskRemoving`: a replica whose disk is
// being removed is flagged `DRBD_DISKLESS` (with `DISK_REMOVING`) before its satellite has
// detached the disk, which may hold writes the other side lacks; its disk states tell. An NVMe
// or EBS initiator is diskless to LINSTOR (`Resource.Flags`: `NVME_INITIATOR` and
// `EBS_INITIATOR` carry `DISKLESS`, which `FlagsHelper.toStringList` writes too) but a diskful
// DRBD peer (`Resource.isDrbdDiskless`: `DRBD_DISKLESS` only).
#[test]
fn a_side_still_removing_its_disk_or_an_initiator_is_not_diskless() {
    for flags in [
        &["DRBD_DISKLESS", "DISKLESS", "DISK_REMOVING"][..],
        &["DISKLESS", "NVME_INITIATOR"],
        &["DISKLESS", "EBS_INITIATOR"],
    ] {
        let side = replica(
            "vm-100-disk-0",
            "n1",
            flags,
            "UpToDate",
            &[("n2", "StandAlone")],
        );
        let other = replica(
            "vm-100-disk-0",
            "n2",
            &[],
            "UpToDate",
            &[("n1", "StandAlone")],
        );
        let found = only(&state(
            &[("n1", "ONLINE"), ("n2", "ONLINE")],
            json!([side, other]),
        ));
        assert_eq!(found.verdict, Verdict::PossibleSplitBrain, "{flags:?}");
    }
}
