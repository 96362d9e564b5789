//! The LINSTOR part of the audit: through an endpoints file to a wiremock controller serving
//! cpps-linstor's payload fixtures (real controller answer shapes: a resource `Inconsistent`,
//! one `Outdated`, one on an offline satellite), with Franca's controller cut off; and against
//! Prism serving the official LINSTOR OpenAPI file when `CPPS_TEST_PRISM_URL` is set.
#![cfg(feature = "live")]

mod common;

use common::{closed_port, load, of_rule, subject_messages};
use cpps_http::test_util::MockApi;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use std::collections::BTreeMap;

use cpps_linstor::health::ClusterState;
use cpps_topology::live::facts::{
    LinstorFacts, LinstorReading, Observation, SiteObservation, SourceKind, Sourced,
};
use cpps_topology::live::sources::linstor_facts;
use cpps_topology::live::{self, LiveOptions, ObserveOptions};

const TOPOLOGY: &str = "
version: 1
sites:
  - { id: sp, state: validated }
  - { id: franca, state: validated }
hosts:
  - { id: pve-ippri-11, site: sp, linstor: { roles: [satellite], interface: data }, state: validated }
  - { id: pve-ippri-12, site: sp, linstor: { roles: [satellite], interface: data }, state: validated }
  - { id: pve-ippri-31, site: sp, linstor: { roles: [satellite], interface: data }, state: validated }
  - { id: pve-labri-31, site: franca, linstor: { roles: [satellite], interface: data }, state: validated }
  - { id: pve-labri-32, site: franca, linstor: { roles: [satellite], interface: data }, state: validated }
linstor_pools:
  - id: sp-ssd
    site: sp
    provider: lvm-thin
    storage_pool: ssd-pool
    nodes: [{ host: pve-ippri-11 }, { host: pve-ippri-12 }, { host: pve-ippri-31 }]
    place_count: 2
    state: validated
  - id: franca-ssd
    site: franca
    provider: lvm-thin
    storage_pool: linstor_ssd
    nodes: [{ host: pve-labri-31 }, { host: pve-labri-32 }]
    place_count: 2
    state: validated
";

async fn controller() -> MockApi {
    let server = MockApi::start("").await;
    cpps_linstor::test_util::mount_cluster_state(server.server(), None).await;
    // A string map (`Properties` in the LINSTOR OpenAPI file; the AutoEvict keys are those its
    // `PUT /v1/controller/properties` documents), with no quorum setting: DRBD's `off`.
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path("/v1/controller/properties"))
        .respond_with(
            wiremock::ResponseTemplate::new(200).set_body_json(serde_json::json!({
                "DrbdOptions/AutoEvictAllowEviction": "True",
                "DrbdOptions/Net/protocol": "C"
            })),
        )
        .mount(server.server())
        .await;
    server
}

#[tokio::test]
async fn resource_health_per_pool_while_the_other_sites_controller_is_cut_off() {
    let server = controller().await;
    let port = closed_port();
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!(
            "sites:\n  sp:\n    linstor:\n      controllers: {}\n  franca:\n    linstor:\n      controllers: http://127.0.0.1:{port}\n",
            server.base_url().as_str().trim_end_matches('/')
        ),
    )
    .unwrap();
    let topology = load("linstor.yaml", TOPOLOGY);
    endpoints.check_against(&topology).unwrap();
    let mut options = ClientOptions::default();
    options.retries = 0;
    let sources = endpoints.sources(&options, &|_| None).unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    server.assert_no_unexpected_requests();

    let sp = observed.site("sp").unwrap().linstor.observed().unwrap();
    assert_eq!(
        sp.controller,
        server.base_url().as_str().trim_end_matches('/')
    );
    let classes: Vec<(&str, &str, usize, usize)> = sp
        .resources
        .iter()
        .map(|r| (r.name.as_str(), r.class.as_str(), r.up_to_date, r.diskful))
        .collect();
    assert_eq!(
        classes,
        [
            ("vm-100-disk-0", "healthy", 2, 2),
            // In group sp-ssd-3: 2 UpToDate replicas of the 3 its place count asks for.
            ("vm-101-disk-0", "degraded", 2, 2),
            ("vm-102-disk-0", "desynced", 1, 2),
            ("vm-103-disk-0", "disconnected", 1, 2),
            ("vm-104-disk-0", "unknown", 1, 2),
        ]
    );
    let n11 = sp.nodes.iter().find(|n| n.name == "pve-ippri-11").unwrap();
    assert!(n11.online);
    assert!(n11.interfaces.iter().any(|(name, _)| name == "data"));
    let franca = observed.site("franca").unwrap().linstor.failure().unwrap();
    assert_eq!(franca.source, SourceKind::Linstor);

    let audit = live::audit(&topology, &observed, &LiveOptions::default());
    let linstor_007 = subject_messages(&of_rule(&audit.report.findings, "LINSTOR-007"));
    assert_eq!(linstor_007.len(), 4, "{linstor_007:#?}");
    for (line, (resource, class)) in linstor_007.iter().zip([
        ("vm-101-disk-0", "degraded (2 of 3 replicas UpToDate)"),
        ("vm-102-disk-0", "desynced (1 of 2 replicas UpToDate)"),
        ("vm-103-disk-0", "disconnected (1 of 2 replicas UpToDate)"),
        ("vm-104-disk-0", "unknown (1 of 2 replicas UpToDate)"),
    ]) {
        assert!(
            line.starts_with(&format!("sp-ssd resource {resource} is {class}")),
            "{line}"
        );
    }
    // The pool's storage pool exists on its three nodes; sp-ssd is present.
    assert_eq!(audit.diff.evidence("sp-ssd").unwrap().as_str(), "present");
    assert_eq!(
        audit.diff.evidence("franca-ssd").unwrap().as_str(),
        "unknown"
    );
    let cut_off: Vec<&str> = of_rule(&audit.report.findings, "STATE-002")
        .into_iter()
        .filter(|f| f.subject.id() == "franca")
        .map(|f| f.message.as_str())
        .collect();
    assert_eq!(cut_off.len(), 1, "{cut_off:?}");
    assert!(
        cut_off[0].starts_with(&format!(
            "site franca cannot be observed through linstor at http://127.0.0.1:{port}: "
        )) && cut_off[0].ends_with("1 validated component cannot be verified: franca-ssd"),
        "{}",
        cut_off[0]
    );
    // OBS-001: SP's LINSTOR alerts are computable, Franca's are not.
    let obs = subject_messages(&of_rule(&audit.report.findings, "OBS-001"));
    assert!(
        obs.iter().any(|m| m.starts_with(
            "franca in site franca the basic alerts LINSTOR degraded, DRBD desync cannot be evaluated: linstor at"
        )),
        "{obs:#?}"
    );
    assert!(
        !obs.iter()
            .any(|m| m.starts_with("sp ") && m.contains("LINSTOR")),
        "{obs:#?}"
    );
}

#[tokio::test]
async fn the_official_spec_served_by_prism_is_observed() {
    let Some(url) = std::env::var("CPPS_TEST_PRISM_URL")
        .ok()
        .filter(|u| !u.trim().is_empty())
    else {
        println!("skipped: CPPS_TEST_PRISM_URL not set (run `cargo xtask test`)");
        return;
    };
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!("sites:\n  sp:\n    linstor:\n      controllers: {url}\n"),
    )
    .unwrap();
    let sources = endpoints
        .sources(&ClientOptions::default(), &|_| None)
        .unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let sp = observed.site("sp").unwrap();
    let facts = sp
        .linstor
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.linstor.failure()));
    // Prism answers with the spec's examples: every list decodes and is assessed.
    assert!(!facts.nodes.is_empty(), "{facts:?}");
    assert!(facts.resources.iter().all(|r| !r.class.is_empty()));
}

/// The cluster of cpps-linstor's `tests/fixtures/site_loss_two_sites.json` (the lists
/// linstor-client's advise reads, `linstor_client/commands/advise.py` `_state_of_the_world`;
/// nodes placed by their `Aux/site` property in `franca` and `sp`), with the controller's
/// properties as given (`None`: not read).
fn stretched_cluster(props: Option<BTreeMap<String, String>>) -> LinstorFacts {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cpps-linstor/tests/fixtures/site_loss_two_sites.json"
    );
    let fixture: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    fn list<T: serde::de::DeserializeOwned>(fixture: &serde_json::Value, key: &str) -> Vec<T> {
        serde_json::from_value(fixture[key].clone()).unwrap()
    }
    let state = ClusterState {
        nodes: list(&fixture, "nodes"),
        storage_pools: list(&fixture, "storage_pools"),
        resource_groups: list(&fixture, "resource_groups"),
        resource_definitions: list(&fixture, "resource_definitions"),
        resources: list(&fixture, "resources"),
    };
    let mut facts = linstor_facts(&state);
    facts.reading = LinstorReading::new(state, props);
    facts
}

fn site_loss_findings(facts: LinstorFacts) -> Vec<String> {
    let topology = load("stretched.yaml", TOPOLOGY);
    let mut sp = SiteObservation::new("sp");
    sp.linstor = Sourced::Observed(facts);
    let observed = Observation {
        taken_at: 0,
        sites: vec![sp],
    };
    let audit = live::audit(&topology, &observed, &LiveOptions::at(0));
    subject_messages(&of_rule(&audit.report.findings, "LINSTOR-008"))
}

/// LINSTOR-008 on a cluster stretched over both sites: what Franca going dark would do, as the
/// fixture's expected answer for `franca` says (worked out by DRBD's quorum rules, drbd
/// `drbd/drbd_state.c` `calc_quorum`): vm-100 and vm-104 lose quorum, vm-100, vm-101 and vm-104
/// their Primary, vm-101 and vm-105 their last UpToDate replica, vm-105 quorum too.
#[test]
fn a_resource_that_would_not_survive_the_other_site_is_a_finding() {
    assert_eq!(
        site_loss_findings(stretched_cluster(Some(BTreeMap::new()))),
        [
            "sp if site franca went dark, 2 LINSTOR resources of site sp would lose their last UpToDate replica: vm-101-disk-0, vm-105-disk-0",
            "sp if site franca went dark, 3 LINSTOR resources of site sp would lose quorum: vm-100-disk-0, vm-104-disk-0, vm-105-disk-0",
            "sp if site franca went dark, 3 LINSTOR resources of site sp would lose their Primary: vm-100-disk-0, vm-101-disk-0, vm-104-disk-0",
        ]
    );
}

/// Without the controller's properties (the last place a quorum setting is looked for,
/// linstor-server `CtrlRscAutoQuorumHelper.getPrioProps`), no count can be made: "cannot tell",
/// never "survives".
#[test]
fn without_the_controller_properties_the_site_loss_cannot_be_told() {
    assert_eq!(
        site_loss_findings(stretched_cluster(None)),
        [
            "sp cannot tell whether LINSTOR at sp survives another site going dark: the controller's properties, where DRBD quorum may be set, could not be read"
        ]
    );
}

/// N7 (audit 33): a group that places on several storage pools has its place_count compared
/// on every one of them. linstor-server `ResourceGroups.selectFilterToApi` takes
/// `storage_pool_list` (falling back to `storage_pool` only when the list is empty), and
/// `Json.java` `apiToAutoSelectFilter` writes `storage_pool` as the list's first entry, so
/// the group below places on `nvme-pool` and `ssd-pool` alike.
#[test]
fn a_group_on_several_pools_is_compared_on_each() {
    let groups = serde_json::json!([
        {"name": "sp-mixed", "select_filter": {"place_count": 3, "storage_pool": "nvme-pool",
          "storage_pool_list": ["nvme-pool", "ssd-pool"]}}
    ]);
    let state = pool_on_three_nodes("ssd-pool", groups, Vec::new());
    let audit = audit_of(&state);
    assert_eq!(
        sp_ssd_drift(&audit),
        ["a resource group on ssd-pool places 3 replicas, sp-ssd declares 2"]
    );
}

/// C3 (audit 33): a group with no storage pool list places on any pool. linstor-server
/// `autoplacer/StorPoolFilter.filter` takes the group's `getStorPoolNameList()` and disqualifies
/// a pool by name only when that list is non-null and non-empty, so the group below (like
/// `DfltRscGrp`) may place on `ssd-pool`: its place_count is compared there too, once a
/// resource definition is in it. Every controller has `DfltRscGrp`, with 2 replicas and no
/// pool (linstor-server's consolidated init migration; `AutoSelectorConfig`), and one that
/// holds no definition places nothing: not a drift (review of the live LINSTOR code, C1).
#[test]
fn a_group_with_no_pool_list_is_compared_on_every_pool() {
    let groups = serde_json::json!([
        {"name": "DfltRscGrp", "select_filter": {"place_count": 3}},
        {"name": "no-count"}
    ]);
    let unused = group_drift(groups.clone(), Vec::new());
    assert_eq!(unused, [] as [&str; 0]);
    let definitions = serde_json::json!([{"name": "pvc-1", "resource_group_name": "DfltRscGrp"}]);
    assert_eq!(
        group_drift(groups, serde_json::from_value(definitions).unwrap()),
        [
            "a resource group with no pool list, which may place on ssd-pool, places 3 replicas, sp-ssd declares 2"
        ]
    );
}

/// The drift messages about sp-ssd when the controller has three nodes with `ssd-pool`, and
/// `groups` and `definitions`.
fn group_drift(
    groups: serde_json::Value,
    definitions: Vec<cpps_linstor::types::resource::ResourceDefinition>,
) -> Vec<String> {
    let state = pool_on_three_nodes("ssd-pool", groups, definitions);
    sp_ssd_drift(&audit_of(&state))
}

/// The live audit of [`TOPOLOGY`] with `state` as site sp's LINSTOR.
fn audit_of(state: &ClusterState) -> live::Audit {
    let topology = load("linstor.yaml", TOPOLOGY);
    let mut sp = SiteObservation::new("sp");
    sp.linstor = Sourced::Observed(linstor_facts(state));
    let observed = Observation {
        taken_at: 0,
        sites: vec![sp],
    };
    live::audit(&topology, &observed, &LiveOptions::at(0))
}

/// The drift messages of `audit` about pool sp-ssd.
fn sp_ssd_drift(audit: &live::Audit) -> Vec<String> {
    audit
        .diff
        .drift
        .iter()
        .filter(|d| d.component.as_deref() == Some("sp-ssd"))
        .map(|d| d.message.clone())
        .collect()
}

/// LINSTOR-001's live part (review of the live LINSTOR code, C5): the file names each
/// satellite's replication interface (`data`), and the controller lists each node's net
/// interfaces (`GET /v1/nodes` `net_interfaces`, linstor-server `JsonGenTypes.NetInterface`:
/// `name`, `address`, `satellite_port`, `satellite_encryption_type`; `LsIpAddress` refuses
/// anything but an IP address, so no real interface has an empty one). A node LINSTOR lists
/// without the declared interface cannot replicate over it: an error. A node LINSTOR does not
/// list is STATE-002's, not this rule's.
#[test]
fn linstor_001_live_a_node_without_its_declared_interface_is_an_error() {
    let interface = |name: &str, address: &str| {
        serde_json::json!({"name": name, "address": address, "satellite_port": 3366,
                           "satellite_encryption_type": "PLAIN"})
    };
    let nodes = serde_json::json!([
        {"name": "pve-ippri-11", "type": "SATELLITE", "connection_status": "ONLINE",
         "net_interfaces": [interface("default", "10.1.0.11"), interface("data", "10.9.0.11")]},
        {"name": "pve-ippri-12", "type": "SATELLITE", "connection_status": "ONLINE",
         "net_interfaces": [interface("default", "10.1.0.12")]}
    ]);
    let state = ClusterState {
        nodes: serde_json::from_value(nodes).unwrap(),
        storage_pools: Vec::new(),
        resource_groups: Vec::new(),
        resource_definitions: Vec::new(),
        resources: Vec::new(),
    };
    let audit = audit_of(&state);
    let live_001: Vec<String> = common::messages(&of_rule(&audit.report.findings, "LINSTOR-001"));
    assert_eq!(
        live_001,
        [
            "error pve-ippri-12 LINSTOR lists node pve-ippri-12 without the replication interface `data` the file declares (its interfaces: default 10.1.0.12): DRBD cannot replicate over it"
        ]
    );
}

/// C2 (review of the live LINSTOR code): LINSTOR's names are case-insensitive: a storage pool
/// name keeps its display case and compares upper-cased (linstor-server `GenericName`), and the
/// autoplacer matches a group's pools with `equalsIgnoreCase` (`autoplacer/StorPoolFilter`).
/// A declared `ssd-pool` is the controller's `SSD-Pool`, and a group on `Ssd-Pool` places there.
#[test]
fn a_storage_pool_is_matched_whatever_its_case() {
    let groups = serde_json::json!([
        {"name": "vms", "select_filter": {"place_count": 3, "storage_pool_list": ["Ssd-Pool"]}}
    ]);
    let state = pool_on_three_nodes("SSD-Pool", groups, Vec::new());
    let audit = audit_of(&state);
    assert_eq!(audit.diff.evidence("sp-ssd").unwrap().as_str(), "present");
    assert_eq!(
        sp_ssd_drift(&audit),
        ["a resource group on ssd-pool places 3 replicas, sp-ssd declares 2"]
    );
}

/// A controller with storage pool `pool` on pve-ippri-11, -12 and -31, the resource groups
/// `groups` and the resource definitions `definitions` (linstor-server `JsonGenTypes`
/// `StoragePool`, `ResourceGroup`, `ResourceDefinition`).
fn pool_on_three_nodes(
    pool: &str,
    groups: serde_json::Value,
    definitions: Vec<cpps_linstor::types::resource::ResourceDefinition>,
) -> ClusterState {
    let on = |node: &str| serde_json::json!({"storage_pool_name": pool, "node_name": node, "provider_kind": "LVM_THIN"});
    let pools = serde_json::json!([on("pve-ippri-11"), on("pve-ippri-12"), on("pve-ippri-31")]);
    ClusterState {
        nodes: Vec::new(),
        storage_pools: serde_json::from_value(pools).unwrap(),
        resource_groups: serde_json::from_value(groups).unwrap(),
        resource_definitions: definitions,
        resources: Vec::new(),
    }
}
