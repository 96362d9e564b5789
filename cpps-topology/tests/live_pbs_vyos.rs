//! The PBS and VyOS parts of the audit, through an endpoints file. No PBS or VyOS server runs
//! here: wiremock answers with cpps-pbs's fixtures (shaped as `pbs-apidoc.json` says, checked
//! by cpps-pbs's `tests/fixtures.rs`) and with a real VyOS configuration from VyOS's own test
//! suite (cpps-vyos's `tests/fixtures/vyos-configs`), in the `/retrieve` answer shape of
//! `vyos-http-api.md`.
#![cfg(feature = "live")]

use std::path::Path;

use cpps_http::test_util::MockApi;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use cpps_topology::live::facts::{
    PveFacts, PveGuest, PveGuestKind, PveNode, SiteObservation, Sourced,
};
use cpps_topology::live::{self, LiveOptions, Observation, ObserveOptions};
use serde_json::json;
use wiremock::matchers::{method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

/// "Now" of cpps-pbs's fixtures: 2026-11-29T08:00:00Z.
const NOW: i64 = 1_795_939_200;

fn read(rel: &str) -> String {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel);
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()))
}

fn pbs_fixture(name: &str) -> serde_json::Value {
    serde_json::from_str(&read(&format!("cpps-pbs/tests/fixtures/{name}"))).unwrap()
}

async fn get(api: &MockApi, route: &str, body: serde_json::Value, ns: Option<&str>) {
    let mut mock = Mock::given(method("GET")).and(path(format!("/api2/json{route}")));
    let priority = if let Some(ns) = ns {
        mock = mock.and(query_param("ns", ns));
        1
    } else {
        5
    };
    mock.respond_with(ResponseTemplate::new(200).set_body_json(body))
        .with_priority(priority)
        .mount(api.server())
        .await;
}

async fn pbs() -> MockApi {
    let api = MockApi::start("/api2/json").await;
    let empty = json!({"data": []});
    let root_only = json!({"data": [{"ns": ""}]});
    get(
        &api,
        "/admin/datastore",
        pbs_fixture("datastores.json"),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/namespace",
        pbs_fixture("namespaces_store1.json"),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/snapshots",
        pbs_fixture("snapshots_pve_b.json"),
        Some("pve-b"),
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/snapshots",
        pbs_fixture("snapshots_store1.json"),
        None,
    )
    .await;
    for store in ["offsite", "archive"] {
        get(
            &api,
            &format!("/admin/datastore/{store}/namespace"),
            root_only.clone(),
            None,
        )
        .await;
        get(
            &api,
            &format!("/admin/datastore/{store}/snapshots"),
            empty.clone(),
            None,
        )
        .await;
    }
    // The client reads the release once (proxmox-backup `src/api2/version.rs`) to choose
    // whether `GET /admin/sync` takes `sync-direction` (PBS 3.3+).
    get(
        &api,
        "/version",
        json!({"data": {"version": "4.0", "release": "14", "repoid": "d3adb33f"}}),
        None,
    )
    .await;
    get(&api, "/admin/sync", pbs_fixture("sync_jobs.json"), None).await;
    get(&api, "/admin/verify", pbs_fixture("verify_jobs.json"), None).await;
    get(&api, "/admin/prune", pbs_fixture("prune_jobs.json"), None).await;
    api
}

async fn vyos() -> MockApi {
    let api = MockApi::start("").await;
    // `vyos-http-api.md`, "/retrieve": `showConfig` with `configFormat: raw` answers the
    // config.boot text as the JSON string `data`.
    let text = read("cpps-vyos/tests/fixtures/vyos-configs/dialup-router-medium-vpn.config.boot");
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string(json!({"success": true, "data": text, "error": null}).to_string()),
        )
        .mount(api.server())
        .await;
    api
}

fn guest(vmid: u32, name: &str) -> PveGuest {
    PveGuest {
        vmid,
        name: Some(name.to_owned()),
        node: "pve-ippri-31".to_owned(),
        kind: if vmid >= 200 {
            PveGuestKind::Lxc
        } else {
            PveGuestKind::Vm
        },
        status: "running".to_owned(),
        privileged: None,
        ha: false,
        ha_state: None,
        volumes: Vec::new(),
    }
}

#[tokio::test]
async fn backups_jobs_and_router_facts_feed_the_audit() {
    let pbs = pbs().await;
    let router = vyos().await;
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!(
            "sites:\n  sp:\n    pbs:\n      repository: report@pbs!ro@127.0.0.1:store1\n      url: {}\n      password_env: PBS_SECRET\n    vyos:\n      url: {}\n      key_file: {}\n",
            pbs.base_url(),
            router.base_url(),
            {
                let file = std::env::temp_dir().join(format!("cpps-vyos-key-{}", std::process::id()));
                std::fs::write(&file, "S3cur3\n").unwrap();
                file.display().to_string()
            }
        ),
    )
    .unwrap();
    let lookup = |k: &str| (k == "PBS_SECRET").then(|| "0b7a0c4e-secret".to_owned());
    let sources = endpoints
        .sources(
            &ClientOptions {
                retries: 0,
                ..ClientOptions::default()
            },
            &lookup,
        )
        .unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    assert!(
        pbs.unexpected_requests().is_empty(),
        "{:?}",
        pbs.unexpected_requests()
    );
    assert!(
        router.unexpected_requests().is_empty(),
        "{:?}",
        router.unexpected_requests()
    );
    let sp = observed.site("sp").unwrap();
    let facts = sp
        .pbs
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.pbs.failure()));
    assert_eq!(facts.datastores, ["store1", "offsite", "archive"]);
    let backups: Vec<(&str, &str, &str, i64, Option<i64>)> = facts
        .backups
        .iter()
        .map(|b| {
            (
                b.namespace.as_str(),
                b.backup_type.as_str(),
                b.backup_id.as_str(),
                b.newest_time,
                b.newest_verified_time,
            )
        })
        .collect();
    assert_eq!(
        backups,
        [
            ("", "vm", "100", 1_795_932_000, Some(1_795_932_000)),
            ("", "vm", "101", 1_795_867_200, Some(1_795_759_200)),
            ("", "ct", "200", 1_795_672_800, None),
            ("pve-b", "vm", "300", 1_795_928_400, Some(1_795_928_400)),
        ]
    );
    let jobs: Vec<(&str, &str, Option<bool>)> = facts
        .jobs
        .iter()
        .map(|j| (j.kind.as_str(), j.id.as_str(), j.last_ok))
        .collect();
    assert!(jobs.contains(&("sync", "s-push-b", Some(true))), "{jobs:?}");
    assert!(
        jobs.contains(&("sync", "s-pull-b", Some(false))),
        "{jobs:?}"
    );
    assert!(
        jobs.contains(&("verify", "v-store1", Some(false))),
        "{jobs:?}"
    );
    assert!(
        jobs.contains(&("prune", "p-store1", Some(true))),
        "{jobs:?}"
    );

    let vyos = sp
        .vyos
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.vyos.failure()));
    assert_eq!(vyos.host_name.as_deref(), Some("vyos"));
    assert_eq!(vyos.vrrp.len(), 1, "{vyos:?}");
    assert_eq!(vyos.vrrp[0].group, "LAN");
    assert_eq!(vyos.vrrp[0].interface.as_deref(), Some("eth1"));
    assert_eq!(vyos.vrrp[0].addresses, ["192.168.0.1/24"]);
    assert_eq!(
        vyos.wireguard_peers,
        ["wg0/red", "wg0/green", "wg0/blue", "wg0/pink", "wg1/sam"]
    );

    // BACKUP-003 over what PBS said, with the VM ids Proxmox would give.
    let topology = cpps_topology::load_str(
        "two-sites.yaml",
        include_str!("fixtures/live/two-sites.yaml"),
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        nodes: vec![PveNode {
            name: "pve-ippri-31".to_owned(),
            online: true,
            pve_version: None,
        }],
        guests: vec![
            guest(100, "gitlab"),
            guest(101, "legacy-nfs"),
            guest(200, "monitoring"),
        ],
        partial: Vec::new(),
    });
    site.pbs = sp.pbs.clone();
    let audit = live::audit(
        &topology,
        &Observation {
            taken_at: NOW,
            sites: vec![site],
        },
        &LiveOptions::at(NOW),
    );
    let mut backup: Vec<String> = audit
        .report
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "BACKUP-003")
        .map(|f| format!("{} {}", f.subject, f.message))
        .collect();
    backup.sort();
    assert_eq!(
        backup,
        [
            "legacy-nfs guest legacy-nfs (101): newest verified backup is 2d2h old, RPO is 1d (newest backup 20h0m ago)",
            "monitoring guest monitoring (200): newest verified backup is none, RPO is 1d (newest backup 3d2h ago)",
        ]
    );
}
