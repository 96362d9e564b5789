//! Health derivation over the fixtures, and `Client::cluster_state` against wiremock.

mod common;

use cpps_linstor::health::{self, HealthClass, HealthOptions};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

use common::{fixture, fixture_state, mock, mock_client};

fn resource<'a>(report: &'a health::HealthReport, name: &str) -> &'a health::ResourceHealth {
    report
        .resources
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("{name} missing"))
}

#[test]
fn every_class_is_derived_from_the_view() {
    let report = health::assess(&fixture_state(), &HealthOptions::default());

    let healthy = resource(&report, "vm-100-disk-0");
    assert_eq!(
        healthy.class,
        HealthClass::Healthy,
        "{:?}",
        healthy.findings
    );
    assert_eq!(
        (healthy.diskful, healthy.up_to_date, healthy.diskless),
        (2, 2, 1)
    );
    assert_eq!(healthy.place_count, Some(2));

    // place_count 3, two UpToDate replicas: the SP SSD pool after raising place_count.
    let degraded = resource(&report, "vm-101-disk-0");
    assert_eq!(degraded.class, HealthClass::Degraded);
    assert_eq!(
        degraded.findings[0].message,
        "2 UpToDate diskful replicas, place_count 3"
    );

    let desynced = resource(&report, "vm-102-disk-0");
    assert_eq!(
        desynced.class,
        HealthClass::Desynced,
        "{:?}",
        desynced.findings
    );
    assert_eq!(desynced.syncing.len(), 2);
    assert_eq!(desynced.syncing[1].state, "SyncTarget");
    assert_eq!(desynced.syncing[1].done_percentage, Some(42.5));
    assert!(
        desynced
            .findings
            .iter()
            .any(|f| f.message == "volume 0 on pve-ippri-12 is Inconsistent")
    );

    let split = resource(&report, "vm-103-disk-0");
    assert_eq!(
        split.class,
        HealthClass::Disconnected,
        "{:?}",
        split.findings
    );
    assert!(
        split
            .findings
            .iter()
            .any(|f| f.message == "pve-ippri-11 → pve-ippri-12: StandAlone")
    );
    assert!(
        split
            .findings
            .iter()
            .any(|f| f.class == HealthClass::Desynced),
        "Outdated peer"
    );

    // The replica on the offline pve-ippri-33 has no state: unknown, never healthy.
    let unknown = resource(&report, "vm-104-disk-0");
    assert_eq!(
        unknown.class,
        HealthClass::Unknown,
        "{:?}",
        unknown.findings
    );
    assert_eq!(unknown.up_to_date, 1);
    assert!(
        unknown
            .findings
            .iter()
            .any(|f| f.message == "volume 0 on pve-ippri-33 has no state: the node is not online")
    );

    let c = report.counts;
    assert_eq!(
        (c.healthy, c.degraded, c.desynced, c.disconnected, c.unknown),
        (1, 1, 1, 1, 1)
    );
    // pve-labri-31 evicted; pve-ippri-33 offline; pve-labri-32 in an unknown status.
    assert_eq!((c.evicted_nodes, c.offline_nodes), (1, 2));
    let n34 = report
        .nodes
        .iter()
        .find(|n| n.name == "pve-ippri-34")
        .unwrap();
    assert_eq!(n34.interfaces_without_address, vec!["data".to_owned()]);
    // ssd-pool on pve-ippri-12: 52428800 of 1056964608 KiB free (5%) < 10%.
    assert_eq!(c.low_space_pools, 1);
    assert_eq!(c.failed_pools, 1);
    let low = report.pools.iter().find(|p| p.low_space).unwrap();
    assert_eq!(low.node.as_deref(), Some("pve-ippri-12"));
    assert!(
        report
            .pools
            .iter()
            .filter(|p| p.diskless)
            .all(|p| p.capacity.is_none())
    );
    assert_eq!(
        report.total_capacity.total_kib,
        3 * 1_056_964_608 + 3_900_000_000
    );
    assert!(report.has_alerts());
    assert!(report.has_pool_warnings());

    let text = health::render_text(&report);
    assert!(text.contains("vm-102-disk-0"), "{text}");
    assert!(
        text.contains("EVICTED (at 1767225600000 ms since epoch)"),
        "{text}"
    );
    assert!(text.contains("LOW SPACE"), "{text}");
    assert!(text.contains("SUMMARY: 1 healthy, 1 degraded, 1 desynced, 1 disconnected, 1 unknown; 1 evicted and 2 offline nodes"), "{text}");
}

#[test]
fn a_clean_cluster_has_no_alerts() {
    let mut state = fixture_state();
    state.nodes.retain(|n| n.is_online() && !n.is_evicted());
    state.resources.retain(|r| r.name == "vm-100-disk-0");
    state
        .resource_definitions
        .retain(|d| d.name == "vm-100-disk-0");
    let report = health::assess(
        &state,
        &HealthOptions {
            pool_low_free_fraction: 0.01,
        },
    );
    assert!(!report.has_alerts(), "{}", health::render_text(&report));
    assert_eq!(report.counts.healthy, 1);
    assert_eq!(report.counts.low_space_pools, 0);
}

#[tokio::test]
async fn cluster_state_fetches_the_five_lists() {
    let server = mock().await;
    for (route, file) in [
        ("/v1/nodes", "nodes.json"),
        ("/v1/view/storage-pools", "storage_pools.json"),
        ("/v1/resource-groups", "resource_groups.json"),
        ("/v1/resource-definitions", "resource_definitions.json"),
        ("/v1/view/resources", "resources.json"),
    ] {
        Mock::given(method("GET"))
            .and(path(route))
            .respond_with(ResponseTemplate::new(200).set_body_json(fixture(file)))
            .expect(1)
            .mount(server.server())
            .await;
    }
    let state = mock_client(&server)
        .cluster_state()
        .await
        .expect("all five decode");
    assert_eq!(state.resources.len(), 11);
    let report = health::assess(&state, &HealthOptions::default());
    assert_eq!(report.resources.len(), 5);
    server.verify().await;
}
