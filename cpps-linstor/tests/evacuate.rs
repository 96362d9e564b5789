//! Node maintenance (issue 33, "Capabilities"): the evacuation plan of a node of
//! `tests/fixtures/site_loss_two_sites.json`, each action as linstor-server
//! `CtrlNodeApiCallHandler.evacuateNodeInTrasaction` decides it (diskless or not `UpToDate`:
//! deleted; `getUpToDatePeerCount` already at the place count: deleted; otherwise replaced by the
//! autoplacer), and each pre-check by DRBD's quorum count (`cpps_linstor::site_loss`).

use cpps_linstor::evacuate::{self, EvacuateAction};
use cpps_linstor::health::ClusterState;
use cpps_linstor::site_loss::SiteLossEffect;
use cpps_linstor::{NodeName, Plan};
use serde_json::{Value, json};

fn state() -> ClusterState {
    let fixture = cpps_linstor::test_util::fixture("site_loss_two_sites.json");
    fn list<T: serde::de::DeserializeOwned>(fixture: &Value, key: &str) -> Vec<T> {
        serde_json::from_value(fixture[key].clone()).expect(key)
    }
    ClusterState {
        nodes: list(&fixture, "nodes"),
        storage_pools: list(&fixture, "storage_pools"),
        resource_groups: list(&fixture, "resource_groups"),
        resource_definitions: list(&fixture, "resource_definitions"),
        resources: list(&fixture, "resources"),
    }
}

/// A resource's row: name, action, candidates, `UpToDate` replicas while away, DRBD's answer.
type Row<'a> = (
    &'a str,
    EvacuateAction,
    Vec<&'a str>,
    usize,
    Vec<SiteLossEffect>,
);

fn node(name: &str) -> NodeName {
    name.parse().unwrap()
}

/// The plan's resources as comparable rows: name, action, candidates, UpToDate replicas
/// while the node is away, and what its absence costs.
fn rows(plan: &evacuate::EvacuationPlan) -> Vec<Row<'_>> {
    plan.resources
        .iter()
        .map(|r| {
            let candidates = r.candidates.iter().map(String::as_str).collect();
            (
                r.name.as_str(),
                r.action,
                candidates,
                r.up_to_date_while_away,
                r.while_away.clone(),
            )
        })
        .collect()
}

/// What evacuating pve-franca-1 from `state()` does to each resource, one row each.
fn expected_rows() -> Vec<Row<'static>> {
    use EvacuateAction::*;
    use SiteLossEffect::*;
    vec![
        // 3 UpToDate peers meet place_count 2; 3 of 4 votes keep quorum.
        (
            "vm-100-disk-0",
            DeletedPeersSuffice,
            vec![],
            3,
            vec![LosesPrimary],
        ),
        // 1 peer of 2 wanted: replaced on a node without it; 1 of 2 votes lacks quorum.
        (
            "vm-101-disk-0",
            Replaced,
            vec!["pve-sp-1", "pve-sp-2"],
            1,
            vec![LosesQuorum],
        ),
        ("vm-102-disk-0", DeletedPeersSuffice, vec![], 2, vec![]),
        // Quorum off: one replica left, below place_count, still writable.
        (
            "vm-103-disk-0",
            Replaced,
            vec!["pve-franca-2", "pve-sp-2"],
            1,
            vec![],
        ),
        // N8 (audit 33): pve-franca-2 holds a DRBD_DISKLESS tie-breaker of it, and the
        // controller tries those nodes first: linstor-server `CtrlNodeApiCallHandler`
        // `getStorPoolForEvacuation` ("first try to toggle disk if possible", the autoplacer
        // limited to `ResourceUtils.filterResourcesDrbdDiskless`), then
        // `evacuateNodeInTrasaction` calls `resourceToggleDisk(INTO_DRBD_DISKFUL)` there.
        // Only when none can take it do nodes without the resource (pve-sp-2) come in.
        (
            "vm-104-disk-0",
            Replaced,
            vec!["pve-franca-2"],
            1,
            vec![LosesPrimary],
        ),
        // The only UpToDate replica leaves; the Outdated one cannot hold quorum.
        (
            "vm-105-disk-0",
            Replaced,
            vec!["pve-franca-2", "pve-sp-2"],
            0,
            vec![LosesLastUpToDate, LosesQuorum],
        ),
    ]
}

#[test]
fn evacuating_a_node_says_what_moves_and_what_its_absence_costs() {
    let plan = evacuate::plan(
        &state(),
        &Default::default(),
        &node("pve-franca-1"),
        &[],
        &[],
    );
    assert_eq!(rows(&plan), expected_rows());
    assert!(plan.resources[1].below_place_count() && plan.resources[1].blocks());
    assert!(!plan.resources[3].blocks() && plan.resources[3].below_place_count());
    assert!(plan.blocked());
    assert_eq!(
        plan.request,
        Plan {
            description: "evacuate node pve-franca-1".to_owned(),
            method: cpps_http::Method::PUT,
            path: "v1/nodes/pve-franca-1/evacuate".to_owned(),
            query: vec![],
            body: Some(json!({})),
        }
    );
    assert_eq!(
        plan.resources[4].reasons,
        [
            "the controller turns the diskless replica on pve-franca-2 diskful (toggle disk) before it places a new one",
            "Primary on pve-franca-1"
        ]
    );
    let text = evacuate::render_text(&plan);
    assert!(
        text.contains("  vm-101-disk-0                    replaced (to one of pve-sp-1, pve-sp-2); while away 1/2 UpToDate BELOW PLACE COUNT LOSES_QUORUM\n"),
        "{text}"
    );
}

// `target` and `do_not_target` narrow the candidates as the spec's `NodeEvacuate` describes,
// and travel in the request body.
#[test]
fn targets_narrow_the_candidates_and_travel_in_the_request() {
    let plan = evacuate::plan(
        &state(),
        &Default::default(),
        &node("pve-franca-1"),
        &[node("pve-sp-1"), node("pve-sp-2")],
        &[node("pve-sp-1")],
    );
    let vm103 = plan
        .resources
        .iter()
        .find(|r| r.name == "vm-103-disk-0")
        .unwrap();
    assert_eq!(vm103.candidates, ["pve-sp-2"]);
    assert_eq!(
        plan.request.body,
        Some(json!({"target": ["pve-sp-1", "pve-sp-2"], "do_not_target": ["pve-sp-1"]}))
    );
}

// A node whose resources all keep quorum and an UpToDate peer is not blocked.
#[test]
fn a_node_whose_peers_suffice_is_not_blocked() {
    let plan = evacuate::plan(&state(), &Default::default(), &node("pve-sp-2"), &[], &[]);
    let names: Vec<(&str, EvacuateAction)> = plan
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.action))
        .collect();
    assert_eq!(
        names,
        [
            ("vm-100-disk-0", EvacuateAction::DeletedPeersSuffice),
            ("vm-102-disk-0", EvacuateAction::DeletedPeersSuffice)
        ]
    );
    assert!(!plan.blocked());
}

// C1 (audit 33): evacuating a node the controller cannot see. linstor-server
// `CtrlNodeApiCallHandler.evacuateNodeInTrasaction` asks
// `SatelliteResourceStateDrbdUtils.allVolumesUpToDate(apiCtx, rsc)`, whose `defaultIfUnknown`
// is `true`: a replica with no satellite state (its node OFFLINE: `PeerOffline` starts with an
// empty `SatelliteState`) counts as UpToDate, so it is replaced when its UpToDate peers fall
// short of the place count. The view then shows its volumes without `state`
// (`Json.java`: `vlmState` only from the satellite's volume states).
#[test]
fn a_replica_whose_state_is_unknown_is_replaced_as_if_up_to_date() {
    let mut state = state();
    for n in state.nodes.iter_mut().filter(|n| n.name == "pve-franca-1") {
        n.connection_status = Some(cpps_linstor::types::node::ConnectionStatus::Offline);
    }
    for r in state
        .resources
        .iter_mut()
        .filter(|r| r.node_name == "pve-franca-1")
    {
        for v in &mut r.volumes {
            v.state = None;
        }
    }
    let plan = evacuate::plan(&state, &Default::default(), &node("pve-franca-1"), &[], &[]);
    let got: Vec<(&str, EvacuateAction)> = plan
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.action))
        .collect();
    use EvacuateAction::*;
    assert_eq!(
        got,
        [
            ("vm-100-disk-0", DeletedPeersSuffice),
            ("vm-101-disk-0", Replaced),
            ("vm-102-disk-0", DeletedPeersSuffice),
            ("vm-103-disk-0", Replaced),
            ("vm-104-disk-0", Replaced),
            ("vm-105-disk-0", Replaced),
        ]
    );
    assert!(
        plan.resources[1]
            .reasons
            .iter()
            .any(|r| r.contains("state unknown")),
        "{:?}",
        plan.resources[1].reasons
    );
}

// C4 (audit 33): the new replica's pool is the autoplacer's pick under the group's own filter.
// linstor-server `CtrlNodeApiCallHandler.getStorPoolForEvacuation` merges the group's
// `AutoSelectFilter` into each `autoplacer.autoPlace`, and `autoplacer/StorPoolFilter.filter`
// keeps a pool by name only when the group's `storage_pool_list` is non-empty, matching names
// with `equalsIgnoreCase`; without a list any diskful pool of an online node qualifies.
#[test]
fn candidates_follow_the_group_pool_list_not_the_replica_pool_name() {
    use cpps_linstor::types::resource::AutoSelectFilter;
    let mut state = state();
    for p in state
        .storage_pools
        .iter_mut()
        .filter(|p| p.node_name.as_deref() == Some("pve-sp-2") && !p.is_diskless())
    {
        p.storage_pool_name = "hdd-pool".to_owned();
    }
    let lists = [
        ("sp-ssd", vec!["ssd-pool"]),
        ("majority-group", vec!["SSD-pool", "HDD-POOL"]),
    ];
    for (group, pools) in lists {
        let g = state
            .resource_groups
            .iter_mut()
            .find(|g| g.name == group)
            .unwrap();
        let filter = g
            .select_filter
            .get_or_insert_with(AutoSelectFilter::default);
        filter.storage_pool_list = pools.into_iter().map(str::to_owned).collect();
    }
    let plan = evacuate::plan(&state, &Default::default(), &node("pve-franca-1"), &[], &[]);
    let got: Vec<(&str, Vec<&str>)> = plan
        .resources
        .iter()
        .filter(|r| r.action == EvacuateAction::Replaced)
        .map(|r| {
            let candidates = r.candidates.iter().map(String::as_str).collect();
            (r.name.as_str(), candidates)
        })
        .collect();
    assert_eq!(
        got,
        [
            // Both names listed, in another case: pve-sp-2's hdd-pool qualifies.
            ("vm-101-disk-0", vec!["pve-sp-1", "pve-sp-2"]),
            // Group `plain` lists no pool: any diskful pool.
            ("vm-103-disk-0", vec!["pve-franca-2", "pve-sp-2"]),
            ("vm-104-disk-0", vec!["pve-franca-2"]),
            // `sp-ssd` lists only ssd-pool: pve-sp-2 is out.
            ("vm-105-disk-0", vec!["pve-franca-2"]),
        ]
    );
}
