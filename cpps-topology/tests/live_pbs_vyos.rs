//! The PBS and VyOS parts of the audit, through an endpoints file. No PBS or VyOS server runs
//! here: wiremock answers with cpps-pbs's fixtures (shaped as `pbs-apidoc.json` says, checked
//! by cpps-pbs's `tests/fixtures.rs`) and with a real VyOS configuration from VyOS's own test
//! suite (cpps-vyos's `tests/fixtures/vyos-configs`), in the `/retrieve` answer shape of
//! `vyos-http-api.md`, and with `/show` texts written as VyOS's printers write them (each cited
//! where it is mounted).
#![cfg(feature = "live")]

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{live_estate, load, rule_messages, running_guest};
use cpps_http::test_util::MockApi;
use cpps_pbs::chain::{ChainInput, PbsTarget};
use cpps_topology::Topology;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use cpps_topology::live::facts::{
    BgpNeighborFact, DrbdConnectionFact, GuestBackupFact, IpsecTunnelFact, LinstorFacts, PbsFacts,
    PbsJobFact, PveChainReading, PveFacts, PveNode, RouterSide, SiteObservation, Sourced, VrrpFact,
    VyosFacts, WireGuardPeerFact,
};
use cpps_topology::live::{self, LiveOptions, Observation, ObserveOptions};
use cpps_vyos::ConfigTree;
use cpps_vyos::pair::PairSide;
use serde_json::json;
use wiremock::matchers::{body_partial_json, method, path, query_param};
use wiremock::{Mock, ResponseTemplate};

/// "Now" of cpps-pbs's fixtures: 2026-11-29T08:00:00Z.
const NOW: i64 = 1_795_939_200;

/// The audit of `topology` over `sites`, observed and judged at [`NOW`].
fn audit_at_now(topology: &Topology, sites: Vec<SiteObservation>) -> live::Audit {
    live::audit(
        topology,
        &Observation {
            taken_at: NOW,
            sites,
        },
        &LiveOptions::at(NOW),
    )
}

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
    // The remotes say where the sync jobs copy to (BACKUP-005).
    get(&api, "/config/remote", pbs_fixture("remotes.json"), None).await;
    // A token with the `Audit` role on `/` (pbs-api-types `src/acl.rs` `ROLE_AUDIT`:
    // Sys.Audit and Datastore.Audit) and `RemoteAudit` on `/remote`, so the datastore and sync
    // job lists are whole (proxmox-backup `src/api2/access/mod.rs` `list_permissions`: the
    // default paths and each ACL path where the caller holds something, path → privilege →
    // propagates).
    let audit = json!({"Datastore.Audit": true, "Sys.Audit": true});
    get(
        &api,
        "/access/permissions",
        json!({"data": {
            "/": audit, "/access": audit, "/datastore": audit, "/system": audit,
            "/remote": {"Datastore.Audit": true, "Sys.Audit": true, "Remote.Audit": true}
        }}),
        None,
    )
    .await;
    audit_below_datastore(&api).await;
    api
}

/// `GET /access/permissions?path=/datastore/…` of a token whose Audit propagates from
/// `/datastore` with no ACL of its own below: proxmox-backup `list_permissions` answers the
/// privileges looked up on that path alone (`CachedUserInfo::lookup_privs_details`), which
/// the propagated Audit reaches.
async fn audit_below_datastore(api: &MockApi) {
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(wiremock::matchers::query_param_contains(
            "path",
            "/datastore/",
        ))
        .respond_with(|request: &wiremock::Request| {
            let asked = request
                .url
                .query_pairs()
                .find(|(k, _)| k == "path")
                .map(|(_, v)| v.into_owned())
                .unwrap_or_default();
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": {asked: {"Datastore.Audit": true}}}))
        })
        .with_priority(1)
        .mount(api.server())
        .await;
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
    // The peers are printed only by `show interfaces wireguard NAME summary` (vyos-1x
    // `op-mode-definitions/show-interfaces-wireguard.xml.in`); on 1.5 it is `show_summary`, that is
    // `python/vyos/ifconfig/wireguard.py` `show_interface`: a peer that never shook
    // hands has neither `latest handshake` nor `status`; `latest handshake` is `str(timedelta)`;
    // a peer without live state (pink) is not listed.
    let wg0 = "interface: wg0\n  address: 192.168.10.1/24\n  public key: cHVibGljLWtleS1vZi13ZzAtMDAwMDAwMDAwMDAwMDA=\n  private key: (hidden)\n  listening port: 7777\n\n  peer: red\n    public key: ALGWvMJCKpHF2tVH3hEIHqUe9iFfAmZATUUok/WQzks=\n    latest handshake: 0:00:40\n    status: active\n    allowed ips: 192.168.10.4/32\n    transfer: 1 MB received, 2 MB sent\n    persistent keepalive: every 20 seconds\n\n  peer: green\n    public key: 5iQUD3VoCDBTPXAPHOwUJ0p7xzKGHEY/wQmgvBVmaFI=\n    allowed ips: 192.168.10.21/32\n    persistent keepalive: every 25 seconds\n\n  peer: blue\n    public key: G4pZishpMRrLmd96Kr6V7LIuNGdcUb81gWaYZ+FWkG0=\n    latest handshake: 1:02:03\n    status: inactive\n    allowed ips: 192.168.10.3/32\n";
    show(
        &api,
        &["interfaces", "wireguard", "wg0", "summary"],
        ok_text(wg0),
    )
    .await;
    // A reading that fails (the API answers a refused command 400, vyos-1x
    // `src/services/api/rest/routers.py` `show_op`) is one partial line; the rest is kept.
    show(
        &api,
        &["interfaces", "wireguard", "wg1", "summary"],
        ResponseTemplate::new(400).set_body_string(
            json!({"success": false, "data": null, "error": "wg1: device busy"}).to_string(),
        ),
    )
    .await;
    // vyos-1x `python/vyos/ifconfig/vrrp.py` `VRRP.format` (tabulate).
    show(
        &api,
        &["vrrp"],
        ok_text("Name    Interface      VRID  State      Priority  Last Transition\n------  -----------  ------  -------  ----------  -----------------\nLAN     eth1              1  FAULT           100  2m3s\n"),
    )
    .await;
    // FRR `bgpd/bgp_vty.c` `bgp_show_summary_vty`: no BGP instance. Not an error: `None`. The
    // source reads every VRF (`show bgp vrf all summary`, vyos-1x
    // `op-mode-definitions/show-bgp.xml.in`), not the default one only.
    show(
        &api,
        &["bgp", "vrf", "all", "summary"],
        ok_text("% BGP instance not found\n"),
    )
    .await;
    // vyos-1x `src/op_mode/ipsec.py` `show_connections` (cpps-vyos's fixture, printed by tabulate).
    show(
        &api,
        &["vpn", "ipsec", "connections"],
        ok_text(&read("cpps-vyos/tests/fixtures/show/ipsec-connections.txt")),
    )
    .await;
    api
}

fn ok_text(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_string(json!({"success": true, "data": text, "error": null}).to_string())
}

async fn show(api: &MockApi, words: &[&str], response: ResponseTemplate) {
    Mock::given(method("POST"))
        .and(path("/show"))
        .and(body_partial_json(json!({"op": "show", "path": words})))
        .respond_with(response)
        .mount(api.server())
        .await;
}

#[tokio::test]
async fn backups_jobs_and_router_facts_feed_the_audit() {
    let pbs = pbs().await;
    let router = vyos().await;
    let observed = observe_sp(&pbs, &router).await;
    pbs.assert_no_unexpected_requests();
    router.assert_no_unexpected_requests();
    let sp = observed.site("sp").unwrap();
    let facts = sp
        .pbs
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.pbs.failure()));
    assert_pbs_facts(facts);
    let vyos = sp
        .vyos
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.vyos.failure()));
    assert_vyos_facts(vyos);
    assert_backup_003_over(sp.pbs.clone());
}

/// What `live::observe` finds of site `sp` through an endpoints file that names the fake PBS
/// `pbs` and the fake router `router`.
async fn observe_sp(pbs: &MockApi, router: &MockApi) -> Observation {
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
    let mut options = ClientOptions::default();
    options.retries = 0;
    let sources = endpoints.sources(&options, &lookup).unwrap();
    live::observe(&sources, &ObserveOptions::default()).await
}

/// The PBS facts of the fixtures: datastores, the newest backup of each group, the jobs' last
/// outcomes and which sync jobs pull from a remote.
fn assert_pbs_facts(facts: &PbsFacts) {
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
    // The group's owner, as the snapshot list gives it (pbs-api-types `SnapshotListItem.owner`).
    assert_eq!(facts.backups[0].owner.as_deref(), Some("backup@pbs!pve-a"));
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
    // Only a pull from a remote brings another server's group ids here (BACKUP-003): the
    // push from store1 and the local sync into archive do not.
    let pulls: Vec<(&str, Option<&str>)> = facts
        .jobs
        .iter()
        .filter(|j| j.kind == "sync")
        .map(|j| (j.id.as_str(), j.pulls_into.as_deref()))
        .collect();
    assert_eq!(
        pulls,
        [
            ("s-push-b", None),
            ("s-pull-b", Some("")),
            ("s-local", None)
        ]
    );
}

/// The router facts of the fixtures: VRRP, WireGuard peers and handshakes, no BGP, the IPsec
/// tunnels, and the one `show` that failed kept as partial.
fn assert_vyos_facts(vyos: &VyosFacts) {
    assert_eq!(vyos.host_name.as_deref(), Some("vyos"));
    assert_eq!(vyos.vrrp.len(), 1, "{vyos:?}");
    assert_eq!(vyos.vrrp[0].group, "LAN");
    assert_eq!(vyos.vrrp[0].interface.as_deref(), Some("eth1"));
    assert_eq!(vyos.vrrp[0].addresses, ["192.168.0.1/24"]);
    assert_eq!(
        vyos.wireguard_peers,
        ["wg0/red", "wg0/green", "wg0/blue", "wg0/pink", "wg1/sam"]
    );
    let handshakes: Vec<(&str, &str, bool, Option<u64>)> = vyos
        .wireguard
        .iter()
        .map(|p| {
            (
                p.interface.as_str(),
                p.peer.as_str(),
                p.observed,
                p.latest_handshake_secs,
            )
        })
        .collect();
    assert_eq!(
        handshakes,
        [
            ("wg0", "red", true, Some(40)),
            ("wg0", "green", true, None),
            ("wg0", "blue", true, Some(3723)),
            ("wg0", "pink", true, None),
            ("wg1", "sam", false, None),
        ]
    );
    assert_eq!(
        vyos.wireguard[4].allowed_ips,
        ["10.1.1.0/24", "10.89.90.1/32"]
    );
    assert_eq!(vyos.vrrp[0].state.as_deref(), Some("FAULT"));
    assert_eq!(vyos.bgp, None, "no BGP instance is no error");
    let tunnels: Vec<(&str, &str, &str, bool)> = vyos
        .ipsec
        .as_ref()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t.connection.as_str(),
                t.tunnel.as_str(),
                t.state.as_str(),
                t.up,
            )
        })
        .collect();
    assert_eq!(
        tunnels,
        [
            ("franca", "franca-tunnel-0", "up", true),
            ("branch", "branch-tunnel-0", "down", false),
        ]
    );
    assert_eq!(vyos.partial.len(), 1, "{:?}", vyos.partial);
    assert!(
        vyos.partial[0].starts_with("show interfaces wireguard wg1 summary: ")
            && vyos.partial[0].contains("wg1: device busy"),
        "{:?}",
        vyos.partial
    );
}

/// BACKUP-003 over what PBS said (`pbs`), with the VM ids Proxmox would give.
fn assert_backup_003_over(pbs: Sourced<PbsFacts>) {
    let topology = live_estate();
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        nodes: vec![PveNode {
            name: "pve-ippri-31".to_owned(),
            online: true,
            pve_version: None,
        }],
        guests: vec![
            running_guest(100, "gitlab"),
            running_guest(101, "legacy-nfs"),
            running_guest(200, "monitoring"),
        ],
        partial: Vec::new(),
        chain: pve_writing(&[("store1", "")]),
        guests_trimmed: None,
    });
    site.pbs = pbs;
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "BACKUP-003"),
        [
            "warning legacy-nfs guest legacy-nfs (101): newest verified backup is 2d2h old, RPO is 1d (newest backup 20h0m ago)",
            "warning monitoring guest monitoring (200): newest verified backup is none, RPO is 1d (newest backup 3d2h ago)",
        ]
    );
}

fn backup_group(store: &str, namespace: &str, ty: &str, id: &str) -> GuestBackupFact {
    GuestBackupFact {
        store: store.to_owned(),
        namespace: namespace.to_owned(),
        backup_type: ty.to_owned(),
        backup_id: id.to_owned(),
        newest_time: NOW - 60,
        newest_verified_time: Some(NOW - 60),
        owner: None,
    }
}

/// What this site's PVE read: PBS storages writing to `places` (datastore, namespace), as
/// pve-storage `src/PVE/Storage/PBSPlugin.pm` names them (`datastore`, `namespace`).
fn pve_writing(places: &[(&str, &str)]) -> PveChainReading {
    let mut input = ChainInput::default();
    input.targets = places
        .iter()
        .enumerate()
        .map(|(i, (store, ns))| PbsTarget::new(format!("pbs{i}"), *store, *ns))
        .collect();
    PveChainReading::new(Ok(input))
}

/// BACKUP-003 matches a guest's backups by type and id, and never counts a group that may be
/// another guest's. A PBS group is `{type}/{id}` in a datastore and namespace (proxmox-backup
/// `pbs-api-types/src/datastore.rs`, `BackupGroup { ty, id }` under a `BackupNamespace`), and a
/// pull sync keeps the source's group ids (`src/server/pull.rs`, `pull_group`), so the other
/// site's `vm/101`, pulled here, has this site's guest 101's id; a `ct/100` is not VM 100's.
#[test]
fn backup_003_matches_type_and_refuses_ambiguous_groups() {
    let topology = live_estate();
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        nodes: Vec::new(),
        guests: vec![
            running_guest(100, "gitlab"),
            running_guest(101, "legacy-nfs"),
            running_guest(200, "monitoring"),
        ],
        partial: Vec::new(),
        // Storages writing where each group is, so that the place decides nothing here.
        chain: pve_writing(&[("store1", ""), ("store1", "franca"), ("mirror", "")]),
        guests_trimmed: None,
    });
    site.pbs = Sourced::Observed(PbsFacts {
        server: "https://127.0.0.1:8007".to_owned(),
        datastores: vec!["store1".to_owned(), "mirror".to_owned()],
        jobs: vec![PbsJobFact {
            kind: "sync".to_owned(),
            id: "pull-franca".to_owned(),
            store: "mirror".to_owned(),
            last_ok: Some(true),
            last_end: Some(NOW),
            running_since: None,
            pulls_into: Some(String::new()),
        }],
        backups: vec![
            // VM 100 has no backup: a container 100 is another guest.
            backup_group("store1", "", "ct", "100"),
            // VM 101's only group is in the datastore a sync pulls the other site into.
            backup_group("mirror", "", "vm", "101"),
            // Container 200 has two groups: the facts do not say which one is its own.
            backup_group("store1", "", "ct", "200"),
            backup_group("store1", "franca", "ct", "200"),
        ],
        partial: Vec::new(),
        chain: Default::default(),
        unlisted_rights: Default::default(),
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "BACKUP-003"),
        [
            "warning gitlab guest gitlab (100) has no backup on https://127.0.0.1:8007",
            "warning legacy-nfs guest legacy-nfs (101): cannot tell whether it has a backup on https://127.0.0.1:8007: vm/101 is in mirror (a sync job pulls into it, keeping the other server's group ids)",
            "warning monitoring guest monitoring (200): cannot tell whether it has a backup on https://127.0.0.1:8007: ct/200 is in more than one place (store1, store1 namespace `franca`), and the facts do not say which is this guest's",
        ]
    );
}

/// BACKUP-003 does not say "has no backup" when part of the server went unread: a namespace
/// or datastore whose snapshots could not be listed may hold the guest's group. proxmox-backup
/// `src/api2/admin/datastore.rs` `list_snapshots` and `src/api2/admin/namespace.rs`
/// `list_namespaces` answer 403 (or fail on an unmounted datastore) for one part while the
/// rest reads fine; the source keeps each such part in `PbsFacts::partial`.
#[test]
fn backup_003_cannot_tell_over_a_partial_answer() {
    let topology = live_estate();
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        nodes: Vec::new(),
        guests: vec![
            running_guest(100, "gitlab"),
            running_guest(200, "monitoring"),
        ],
        partial: Vec::new(),
        chain: pve_writing(&[("store1", "")]),
        guests_trimmed: None,
    });
    site.pbs = Sourced::Observed(PbsFacts {
        server: "https://127.0.0.1:8007".to_owned(),
        datastores: vec!["store1".to_owned()],
        jobs: Vec::new(),
        backups: vec![backup_group("store1", "", "ct", "200")],
        partial: vec!["snapshots of datastore store1 namespace `pve-b`: 403 Forbidden".to_owned()],
        chain: Default::default(),
        unlisted_rights: Default::default(),
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "BACKUP-003"),
        [
            "warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://127.0.0.1:8007: vm/100 was not found, but part of the server was not read (snapshots of datastore store1 namespace `pve-b`: 403 Forbidden)",
        ]
    );
}

/// D3/D4: a datastore the credentials may not see is left out of `GET /admin/datastore`
/// (proxmox-backup `src/api2/admin/datastore.rs` `get_datastore_list`), and with it every
/// group it holds, so over a list that may be filtered a group not found is "cannot tell".
#[test]
fn backup_003_cannot_tell_over_a_datastore_list_that_may_be_filtered() {
    let topology = live_estate();
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        nodes: Vec::new(),
        guests: vec![running_guest(100, "gitlab")],
        partial: Vec::new(),
        chain: pve_writing(&[("store1", "")]),
        guests_trimmed: None,
    });
    let filtered = "datastore list may be filtered: the credentials hold neither Datastore.Audit nor Datastore.Backup propagating from /datastore";
    site.pbs = Sourced::Observed(PbsFacts {
        server: "https://127.0.0.1:8007".to_owned(),
        datastores: vec!["store1".to_owned()],
        jobs: Vec::new(),
        backups: Vec::new(),
        partial: vec![filtered.to_owned()],
        chain: Default::default(),
        unlisted_rights: Default::default(),
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "BACKUP-003"),
        [format!(
            "warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://127.0.0.1:8007: vm/100 was not found, but part of the server was not read ({filtered})"
        )]
    );
}

/// Two sites joined by a validated WireGuard link; SP's router also has a VRRP peer.
const LINKED: &str = "\
version: 1
name: linked sites
sites:
  - { id: sp, state: validated }
  - { id: franca, state: validated }
proxmox_clusters:
  - { id: pve-sp, site: sp, state: validated }
  - { id: pve-franca, site: franca, state: validated }
hosts:
  - { id: pve-ippri-31, site: sp, proxmox_cluster: pve-sp, state: validated }
  - { id: pve-labri-31, site: franca, proxmox_cluster: pve-franca, state: validated }
routers:
  - { id: vyos-sp, site: sp, subnets: [192.168.10.0/23], vrrp_peer: vyos-sp-b, state: validated }
  - { id: vyos-sp-b, site: sp, vrrp_peer: vyos-sp, state: validated }
  - { id: vyos-franca, site: franca, subnets: [10.20.0.0/16], state: validated }
links:
  - id: wg-sp-franca
    kind: wireguard
    sites: [sp, franca]
    endpoints: [vyos-sp, vyos-franca]
    state: validated
";

fn peer(
    interface: &str,
    name: &str,
    allowed: &[&str],
    handshake: Option<u64>,
) -> WireGuardPeerFact {
    WireGuardPeerFact {
        interface: interface.to_owned(),
        peer: name.to_owned(),
        allowed_ips: allowed.iter().map(|s| (*s).to_owned()).collect(),
        address: None,
        observed: true,
        latest_handshake_secs: handshake,
        disabled: None,
    }
}

fn neighbor(address: &str, state: &str) -> BgpNeighborFact {
    BgpNeighborFact {
        vrf: Some("default".to_owned()),
        family: "IPv4 Unicast".to_owned(),
        neighbor: address.to_owned(),
        remote_as: "65020".to_owned(),
        state: state.to_owned(),
        established: state == "Established",
        admin_down: state == "Idle (Admin)",
        up_down: "never".to_owned(),
    }
}

/// A group on eth1 whose VRID was not read: matched across a pair by name.
fn vrrp(group: &str, state: Option<&str>) -> VrrpFact {
    VrrpFact {
        group: group.to_owned(),
        interface: Some("eth1".to_owned()),
        vrid: None,
        addresses: Vec::new(),
        state: state.map(str::to_owned),
        disabled: None,
    }
}

/// A group with its VRID, as `vyos_facts` reads it from the configuration.
fn vrrp_on(group: &str, interface: &str, vrid: u8, state: &str) -> VrrpFact {
    VrrpFact {
        interface: Some(interface.to_owned()),
        vrid: Some(vrid),
        ..vrrp(group, Some(state))
    }
}

// The case: a DRBD connection across the sites stuck in `Connecting` (LINSTOR's view,
// linstor-server's `DrbdConnection` states) and the link's WireGuard peer without a handshake
// (VyOS prints no `latest handshake` for a peer that never shook hands, vyos-1x
// `python/vyos/ifconfig/wireguard.py`) are one LINK-001 finding naming both. The far end whose
// peer shook hands 30 s ago says nothing; BGP and IPsec sessions down are LINK-002 findings, on
// the link when the neighbor is on its far side (in the remote router's subnets), on the router
// otherwise, and a neighbor shut down on purpose is none; VRRP groups not MASTER/BACKUP are
// VRRP-001 findings, an unknown state included.
#[test]
fn routers_and_drbd_feed_the_network_rules() {
    let topology = load("linked.yaml", LINKED);
    let mut sp = SiteObservation::new("sp");
    sp.linstor = Sourced::Observed(LinstorFacts {
        connections_down: vec![
            DrbdConnectionFact {
                resource: "pm-1a2b3c4d_300".to_owned(),
                node: "pve-ippri-31".to_owned(),
                peer: "pve-labri-31".to_owned(),
                state: "Connecting".to_owned(),
            },
            // Within one site: not the link's.
            DrbdConnectionFact {
                resource: "pm-1a2b3c4d_301".to_owned(),
                node: "pve-ippri-31".to_owned(),
                peer: "pve-ippri-32".to_owned(),
                state: "StandAlone".to_owned(),
            },
        ],
        ..LinstorFacts::default()
    });
    sp.vyos = Sourced::Observed(VyosFacts {
        server: "https://127.0.0.1:8443".to_owned(),
        vrrp: vec![
            vrrp("LAN", Some("MASTER")),
            vrrp("MGMT", Some("FAULT")),
            vrrp("DMZ", Some("DISABLED")),
        ],
        wireguard: vec![
            peer("wg0", "laptop", &["192.168.10.50/32"], Some(10)),
            peer("wg1", "franca", &["10.255.0.2/32", "10.20.0.0/16"], None),
        ],
        bgp: Some(vec![
            neighbor("10.20.0.1", "Active"),
            // Outside the remote /16 by one bit.
            neighbor("10.21.0.1", "OpenSent"),
            neighbor("203.0.113.1", "Connect"),
            neighbor("198.51.100.1", "Idle (Admin)"),
            neighbor("192.168.11.2", "Established"),
        ]),
        ipsec: Some(vec![IpsecTunnelFact {
            connection: "branch".to_owned(),
            tunnel: "branch-tunnel-0".to_owned(),
            remote_address: "203.0.113.9".to_owned(),
            state: "down".to_owned(),
            up: false,
        }]),
        ..VyosFacts::default()
    });
    let mut franca = SiteObservation::new("franca");
    franca.vyos = Sourced::Observed(VyosFacts {
        server: "https://127.0.0.2:8443".to_owned(),
        // Found by its allowed-ips (SP's subnet), not by name.
        wireguard: vec![peer("wg0", "praca-da-se", &["192.168.10.0/23"], Some(30))],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![sp, franca]);
    assert_eq!(
        rule_messages(&audit.report, "LINK-001"),
        [
            "error wg-sp-franca link wg-sp-franca: DRBD connection pm-1a2b3c4d_300 pve-ippri-31 → pve-labri-31 Connecting across the link; WireGuard peer franca on wg1 of vyos-sp has never had a handshake"
        ]
    );
    assert_eq!(
        rule_messages(&audit.report, "LINK-002"),
        [
            // Facts built without configurations: no gap can be judged (bgp_gaps_cannot_tell_…).
            "warning vyos-franca cannot tell whether every BGP neighbor configured on vyos-franca holds a session: its configuration was not read",
            "warning vyos-sp BGP session of vyos-sp to 10.21.0.1 (AS 65020, IPv4 Unicast) is OpenSent (Up/Down never)",
            "warning vyos-sp BGP session of vyos-sp to 203.0.113.1 (AS 65020, IPv4 Unicast) is Connect (Up/Down never)",
            "warning vyos-sp IPsec tunnel branch-tunnel-0 of connection branch (remote 203.0.113.9) on vyos-sp is down",
            "warning vyos-sp cannot tell whether every BGP neighbor configured on vyos-sp holds a session: its configuration was not read",
            "warning wg-sp-franca BGP session of vyos-sp to 10.20.0.1 (AS 65020, IPv4 Unicast) is Active (Up/Down never)",
        ]
    );
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group DMZ on eth1 of vyos-sp is DISABLED",
            "warning vyos-sp VRRP group MGMT on eth1 of vyos-sp is FAULT",
        ]
    );
}

// A peer that shook hands too long ago (more than VyOS's five minutes of `active`) without any
// DRBD connection down is a LINK-001 finding of its own; a link end without any peer for the
// link is one too; a router without BGP or IPsec (`None`) and whose readings failed says which
// reading failed.
#[test]
fn stale_or_missing_peers_and_failed_readings() {
    let topology = load("linked.yaml", LINKED);
    let mut sp = SiteObservation::new("sp");
    sp.vyos = Sourced::Observed(VyosFacts {
        vrrp: vec![vrrp("LAN", None)],
        wireguard: vec![peer("wg1", "Franca", &["10.255.0.2/32"], Some(7_380))],
        partial: vec![
            "show vrrp: HTTP request failed: timed out".to_owned(),
            "show bgp summary: unexpected answer from /show: junk".to_owned(),
        ],
        ..VyosFacts::default()
    });
    let mut franca = SiteObservation::new("franca");
    franca.vyos = Sourced::Observed(VyosFacts {
        wireguard: vec![peer("wg0", "laptop", &["172.16.0.5/32"], Some(5))],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![sp, franca]);
    assert_eq!(
        rule_messages(&audit.report, "LINK-001"),
        [
            "error wg-sp-franca link wg-sp-franca: WireGuard peer Franca on wg1 of vyos-sp has had no handshake for 2h3m",
            "error wg-sp-franca link wg-sp-franca: vyos-franca has no WireGuard peer for site sp (none is named sp or vyos-sp, none allows 192.168.10.0/23)",
        ]
    );
    assert_eq!(
        rule_messages(&audit.report, "LINK-002"),
        [
            "warning vyos-franca cannot tell whether every BGP neighbor configured on vyos-franca holds a session: its configuration was not read",
            "warning vyos-sp cannot tell whether every BGP neighbor configured on vyos-sp holds a session: its configuration was not read",
            "warning vyos-sp vyos-sp: cannot be read: show bgp summary: unexpected answer from /show: junk"
        ]
    );
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp the state of VRRP group LAN on eth1 of vyos-sp is unknown (show vrrp: HTTP request failed: timed out)"
        ]
    );
}

const KEY_SP: &str = "c3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3A=";
const KEY_FRANCA: &str = "ZnJhbmNhZnJhbmNhZnJhbmNhZnJhbmNhZnJhbmNhZnI=";

/// One end of `wg-sp-franca`, in the configuration nodes of vyos-1x
/// `interface-definitions/interfaces_wireguard.xml.in` (`peer NAME`: `public-key`,
/// `allowed-ips`, `address`, `port`); `peer_key` is the key its peer carries, `own_key` the
/// interface's public key as `show interfaces wireguard wg0 summary` prints it (`None`: not read).
fn wireguard_end(me: &str, peer_key: &str, own_key: Option<&str>) -> VyosFacts {
    let (wan, other_wan, tun, other_tun) = match me {
        "sp" => ("198.51.100.1", "198.51.100.2", "10.255.0.1", "10.255.0.2"),
        _ => ("198.51.100.2", "198.51.100.1", "10.255.0.2", "10.255.0.1"),
    };
    let tree = ConfigTree::parse_set(&format!(
        "set interfaces ethernet eth0 address '{wan}/24'
set interfaces wireguard wg0 address '{tun}/30'
set interfaces wireguard wg0 port '51820'
set interfaces wireguard wg0 private-key 'cHJpdmF0ZS1rZXktbmV2ZXItc2hvd24tMDAwMDAwMDA='
set interfaces wireguard wg0 peer other public-key '{peer_key}'
set interfaces wireguard wg0 peer other allowed-ips '{other_tun}/32'
set interfaces wireguard wg0 peer other address '{other_wan}'
set interfaces wireguard wg0 peer other port '51820'
"
    ))
    .unwrap();
    let keys = own_key
        .map(|k| BTreeMap::from([("wg0".to_owned(), k.to_owned())]))
        .unwrap_or_default();
    VyosFacts {
        side: RouterSide::new(PairSide::new(&format!("vyos-{me}"), tree, keys)),
        ..VyosFacts::default()
    }
}

fn link_003(sp: VyosFacts, franca: VyosFacts) -> Vec<String> {
    let topology = load("linked.yaml", LINKED);
    let mut sites = [SiteObservation::new("sp"), SiteObservation::new("franca")];
    sites[0].vyos = Sourced::Observed(sp);
    sites[1].vyos = Sourced::Observed(franca);
    let observed = Observation {
        taken_at: 0,
        sites: sites.into(),
    };
    let audit = live::audit(&topology, &observed, &LiveOptions::at(0));
    rule_messages(&audit.report, "LINK-003")
}

/// LINK-003 compares the two ends of a declared link with `cpps_vyos::pair::compare_wireguard`:
/// a tunnel whose ends carry each other's keys is no finding; a peer key that is not the other
/// end's interface key is; an interface key that could not be read is "cannot tell".
#[test]
fn the_two_ends_of_a_link_are_compared_as_a_pair() {
    let matching = link_003(
        wireguard_end("sp", KEY_FRANCA, Some(KEY_SP)),
        wireguard_end("franca", KEY_SP, Some(KEY_FRANCA)),
    );
    assert_eq!(matching, Vec::<String>::new());
    let wrong_key = link_003(
        wireguard_end("sp", KEY_SP, Some(KEY_SP)),
        wireguard_end("franca", KEY_SP, Some(KEY_FRANCA)),
    );
    assert_eq!(
        wrong_key,
        [
            "error wg-sp-franca link wg-sp-franca: no tunnel to vyos-franca found: no peer holds the public key of any of its interfaces"
        ]
    );
    let unread = link_003(
        wireguard_end("sp", KEY_FRANCA, Some(KEY_SP)),
        wireguard_end("franca", KEY_SP, None),
    );
    assert_eq!(
        unread,
        [
            "warning wg-sp-franca link wg-sp-franca: cannot tell: no tunnel to vyos-franca found: its interfaces' public keys could not be read"
        ]
    );
}

/// A PBS holding datastore store1 with no snapshot, observed through the endpoints file with
/// the rights `full` (`GET /access/permissions`) and `at_store1` (its answer for
/// `?path=/datastore/store1`).
async fn observe_store1(full: serde_json::Value, at_store1: serde_json::Value) -> PbsFacts {
    let api = MockApi::start("/api2/json").await;
    get(
        &api,
        "/admin/datastore",
        json!({"data": [{"store": "store1"}]}),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/namespace",
        json!({"data": [{"ns": ""}]}),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/snapshots",
        json!({"data": []}),
        None,
    )
    .await;
    get(
        &api,
        "/version",
        json!({"data": {"version": "4.0", "release": "14", "repoid": "d3adb33f"}}),
        None,
    )
    .await;
    for route in [
        "/admin/sync",
        "/admin/verify",
        "/admin/prune",
        "/config/remote",
    ] {
        get(&api, route, json!({"data": []}), None).await;
    }
    get(&api, "/access/permissions", json!({"data": full}), None).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(query_param("path", "/datastore/store1"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": at_store1})))
        .with_priority(1)
        .mount(api.server())
        .await;
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!(
            "sites:\n  sp:\n    pbs:\n      repository: report@pbs!ro@127.0.0.1:store1\n      url: {}\n      password_env: PBS_SECRET\n",
            api.base_url(),
        ),
    )
    .unwrap();
    let lookup = |k: &str| (k == "PBS_SECRET").then(|| "0b7a0c4e-secret".to_owned());
    let mut options = ClientOptions::default();
    options.retries = 0;
    let sources = endpoints.sources(&options, &lookup).unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    api.assert_no_unexpected_requests();
    let sp = observed.site("sp").unwrap();
    sp.pbs
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.pbs.failure()))
        .clone()
}

/// F6 (audit 31): an ACL of the caller on `/datastore/store1` REPLACES the Audit it inherits
/// from `/datastore` (proxmox-backup `pbs-config/src/acl.rs` `AclTree::roles`: "overwrite
/// previous mappings"), and `list_snapshots_blocking` looks Audit up on that path
/// (`src/backup/hierarchy.rs` `check_ns_privs_full`). A NoAccess there is not even named in
/// the whole `GET /access/permissions` answer (`src/api2/access/mod.rs` `list_permissions`:
/// "Don't leak ACL paths where we don't have any privileges"); asked with
/// `?path=/datastore/store1`, the same function answers the privileges on that path alone, `{}`
/// for none. Either way the snapshot list holds only the caller's own groups.
#[tokio::test]
async fn a_deeper_acl_replaces_the_audit_inherited_from_datastore() {
    let trimmed = [
        "snapshots of datastore store1 namespace `` may leave groups out: without Datastore.Audit on /datastore/store1 PBS lists only the groups the credentials own",
    ];
    let backup_only = observe_store1(
        json!({
            "/datastore": {"Datastore.Audit": true},
            "/datastore/store1": {"Datastore.Backup": true, "Datastore.Read": true}
        }),
        json!({"/datastore/store1": {"Datastore.Backup": true, "Datastore.Read": true}}),
    )
    .await;
    assert_eq!(backup_only.partial, trimmed);
    let side = backup_only.chain.get().unwrap();
    assert!(side.backups[0].trimmed.is_some(), "{side:?}");
    let no_access =
        observe_store1(json!({"/datastore": {"Datastore.Audit": true}}), json!({})).await;
    assert_eq!(no_access.partial, trimmed);
}

/// D4: `GET /admin/datastore` lists only the datastores the caller may audit or back up to,
/// or holds a privilege below (proxmox-backup `src/api2/admin/datastore.rs`
/// `get_datastore_list`), so a declared datastore missing from the list of a token without
/// `Datastore.Audit` (or `Datastore.Backup`) propagating from `/datastore` may be hidden, not
/// gone: no "has no datastore" drift is stated, and the PBS observation says its list may be
/// filtered. With the rights, the same list is whole and the drift stands.
#[tokio::test]
async fn a_datastore_list_filtered_by_the_rights_is_no_proof_of_absence() {
    // Datastore.Audit on store1 only: another datastore would be left out of the list.
    let narrow = observe_store1(
        json!({"/datastore/store1": {"Datastore.Audit": false}}),
        json!({"/datastore/store1": {"Datastore.Audit": false}}),
    )
    .await;
    assert!(
        narrow
            .partial
            .iter()
            .any(|p| p.starts_with("datastore list may be filtered")),
        "{:?}",
        narrow.partial
    );
    let whole = observe_store1(
        json!({"/datastore": {"Datastore.Audit": true}}),
        json!({"/datastore/store1": {"Datastore.Audit": true}}),
    )
    .await;
    assert!(whole.partial.is_empty(), "{:?}", whole.partial);
    // E4: Datastore.Backup without Datastore.Audit makes the datastore list whole but the
    // snapshot list the owner's only (proxmox-backup `src/api2/admin/datastore.rs`
    // `list_snapshots_blocking`, `check_backup_owner`): a group missing from it proves nothing.
    let owner = observe_store1(
        json!({"/datastore": {"Datastore.Backup": true}}),
        json!({"/datastore/store1": {"Datastore.Backup": true}}),
    )
    .await;
    assert_eq!(
        owner.partial,
        [
            "snapshots of datastore store1 namespace `` may leave groups out: without Datastore.Audit on /datastore/store1 PBS lists only the groups the credentials own"
        ]
    );

    // `rules/base.yaml` declares datastore `main` on pbs-alpha, which neither list holds.
    let topology = load(
        "tests/fixtures/rules/base.yaml",
        &read("cpps-topology/tests/fixtures/rules/base.yaml"),
    );
    let drift_about_datastores = |facts: PbsFacts| {
        let mut alpha = SiteObservation::new("alpha");
        alpha.pbs = Sourced::Observed(facts);
        let audit = audit_at_now(&topology, vec![alpha]);
        audit
            .diff
            .drift
            .iter()
            .filter(|d| d.message.contains("datastore"))
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        drift_about_datastores(narrow),
        [
            "cannot tell whether pbs-alpha has datastore main: not listed, maybe hidden by permission (datastore list may be filtered: the credentials hold neither Datastore.Audit nor Datastore.Backup propagating from /datastore)"
        ]
    );
    // F6 (audit 31): Audit propagating from `/datastore` is no proof either, as an ACL on
    // `/datastore/main` replaces it (`pbs-config/src/acl.rs` `AclTree::roles`); only the
    // rights on that path itself are (`unlisted_datastores_are_judged_by_their_own_path`).
    assert_eq!(
        drift_about_datastores(whole),
        [
            "cannot tell whether pbs-alpha has datastore main: not listed, maybe hidden by permission (the rights on /datastore/main were not read)"
        ]
    );
}

/// F6 (audit 31): `GET /admin/datastore` lists a datastore only with `Datastore.Audit` or
/// `Datastore.Backup` looked up on `/datastore/{store}` (or a privilege below), proxmox-backup
/// `src/api2/admin/datastore.rs` `get_datastore_list`, and an ACL on that path (NoAccess)
/// replaces the Audit inherited from `/datastore` (`pbs-config/src/acl.rs` `AclTree::roles`).
/// So a declared datastore the list lacks is missing only when `?path=/datastore/{name}`
/// (`src/api2/access/mod.rs` `list_permissions`: the privileges looked up on that path, `{}`
/// where the caller holds none) shows one of the two; otherwise it may be hidden.
#[tokio::test]
async fn unlisted_datastores_are_judged_by_their_own_path() {
    let topology = load(
        "tests/fixtures/rules/base.yaml",
        &read("cpps-topology/tests/fixtures/rules/base.yaml"),
    );
    let mut drift = Vec::new();
    for at_main in [
        json!({"/datastore/main": {"Datastore.Audit": true}}),
        json!({}),
    ] {
        let facts = observe_expecting_main(&topology, at_main).await;
        let mut alpha = SiteObservation::new("alpha");
        alpha.pbs = Sourced::Observed(facts);
        let audit = audit_at_now(&topology, vec![alpha]);
        drift.extend(
            (audit.diff.drift.iter())
                .filter(|d| d.message.contains("datastore"))
                .map(|d| d.message.clone()),
        );
    }
    assert_eq!(
        drift,
        [
            "pbs-alpha has no datastore main",
            "cannot tell whether pbs-alpha has datastore main: not listed, maybe hidden by permission (the credentials hold neither Datastore.Audit nor Datastore.Backup on /datastore/main)",
        ]
    );
}

/// [`observe_store1`]'s PBS, with Audit propagating from `/datastore`, read through the
/// endpoints' sources for `topology` (which declares datastore `main`); `at_main` answers
/// `?path=/datastore/main`.
async fn observe_expecting_main(topology: &Topology, at_main: serde_json::Value) -> PbsFacts {
    let api = MockApi::start("/api2/json").await;
    let empty = json!({"data": []});
    get(
        &api,
        "/admin/datastore",
        json!({"data": [{"store": "store1"}]}),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/namespace",
        json!({"data": [{"ns": ""}]}),
        None,
    )
    .await;
    get(
        &api,
        "/admin/datastore/store1/snapshots",
        empty.clone(),
        None,
    )
    .await;
    for route in [
        "/admin/sync",
        "/admin/verify",
        "/admin/prune",
        "/config/remote",
    ] {
        get(&api, route, empty.clone(), None).await;
    }
    get(
        &api,
        "/version",
        json!({"data": {"version": "4.0", "release": "14", "repoid": "d3adb33f"}}),
        None,
    )
    .await;
    let full = json!({"data": {"/datastore": {"Datastore.Audit": true}}});
    get(&api, "/access/permissions", full, None).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(query_param("path", "/datastore/main"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": at_main})))
        .expect(1)
        .with_priority(1)
        .mount(api.server())
        .await;
    // Mounted after the mock above, which wiremock tries first at the same priority.
    audit_below_datastore(&api).await;
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!(
            "sites:\n  alpha:\n    pbs:\n      repository: report@pbs!ro@127.0.0.1:store1\n      url: {}\n      password_env: PBS_SECRET\n",
            api.base_url(),
        ),
    )
    .unwrap();
    let lookup = |k: &str| (k == "PBS_SECRET").then(|| "0b7a0c4e-secret".to_owned());
    let mut options = ClientOptions::default();
    options.retries = 0;
    // `sources_for` tells the PBS source the datastores the topology declares (`main`).
    let sources = endpoints.sources_for(topology, &options, &lookup).unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    api.assert_no_unexpected_requests();
    let alpha = observed.site("alpha").unwrap();
    (alpha.pbs.observed())
        .unwrap_or_else(|| panic!("{:?}", alpha.pbs.failure()))
        .clone()
}

/// A router of the SP pair, its VRRP group written in the nodes of vyos-1x
/// `interface-definitions/high-availability.xml.in` (`group`, `interface`, `vrid`, `address`,
/// `priority`), as cpps-vyos's own pair tests write it.
fn vrrp_router(label: &str, priority: u8, vrid: u8) -> VyosFacts {
    let tree = ConfigTree::parse_set(&format!(
        "set interfaces ethernet eth1 address '192.168.10.{priority}/23'
set high-availability vrrp group LAN interface 'eth1'
set high-availability vrrp group LAN vrid '{vrid}'
set high-availability vrrp group LAN address '192.168.10.1/23'
set high-availability vrrp group LAN priority '{priority}'
"
    ))
    .unwrap();
    VyosFacts {
        side: RouterSide::new(PairSide::new(label, tree, BTreeMap::new())),
        ..VyosFacts::default()
    }
}

fn vrrp_002(topology: &str, sp: VyosFacts, peer: Sourced<VyosFacts>) -> Vec<String> {
    let topology = load("linked.yaml", topology);
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(sp);
    site.vyos_peer = peer;
    let observed = Observation {
        taken_at: 0,
        sites: vec![site],
    };
    let audit = live::audit(&topology, &observed, &LiveOptions::at(0));
    rule_messages(&audit.report, "VRRP-002")
}

/// VRRP-002 compares a site's two routers with `cpps_vyos::pair::compare_vrrp` where the
/// endpoints name the second one (`vyos_peer`): a pair that agrees is no finding, a VRID that
/// differs is. Without a second router it cannot tell, and says why: the topology's
/// `vrrp_peer` names a pair the endpoints do not reach (warning), or the site has one router,
/// as the documents say of VyOS today ("VRRP HA pra VyOS (single-node hoje)"; info).
#[test]
fn a_sites_two_routers_are_compared_as_a_vrrp_pair() {
    let pair = |peer_vrid| {
        vrrp_002(
            LINKED,
            vrrp_router("gw-a", 200, 10),
            Sourced::Observed(vrrp_router("gw-b", 100, peer_vrid)),
        )
    };
    assert_eq!(pair(10), Vec::<String>::new());
    assert_eq!(
        pair(11),
        ["warning vyos-sp VRRP pair of vyos-sp: VRID Some(10) on gw-a, Some(11) on gw-b"]
    );
    let unpaired = vrrp_002(LINKED, vrrp_router("gw-a", 200, 10), Sourced::NotConfigured);
    assert_eq!(
        unpaired,
        [
            "warning vyos-sp cannot tell whether the VRRP pair of vyos-sp agrees: the topology pairs it with vyos-sp-b, but the endpoints file names no `vyos_peer` for site sp"
        ]
    );
    let single = LINKED.replace(", vrrp_peer: vyos-sp-b", "").replace(
        "  - { id: vyos-sp-b, site: sp, vrrp_peer: vyos-sp, state: validated }\n",
        "",
    );
    let alone = vrrp_002(&single, VyosFacts::default(), Sourced::NotConfigured);
    assert_eq!(
        alone,
        [
            "info vyos-sp cannot tell whether the VRRP pair of vyos-sp agrees: one router is declared at the site"
        ]
    );
}

/// The endpoints file names a site's second router as `vyos_peer`, with the fields of `vyos`.
#[test]
fn the_endpoints_file_names_a_second_router() {
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        "sites:\n  sp:\n    vyos:\n      url: https://127.0.0.1:8443\n      key_env: VYOS_A\n    vyos_peer:\n      url: https://127.0.0.1:8444\n      key_env: VYOS_B\n",
    )
    .unwrap();
    let sp = &endpoints.sites["sp"];
    assert_eq!(sp.vyos.as_ref().unwrap().url, "https://127.0.0.1:8443");
    assert_eq!(sp.vyos_peer.as_ref().unwrap().url, "https://127.0.0.1:8444");
    let lookup = |k: &str| matches!(k, "VYOS_A" | "VYOS_B").then(|| "key".to_owned());
    let sources = endpoints
        .sources(&ClientOptions::default(), &lookup)
        .unwrap();
    assert_eq!(sources.sites[0].len(), 2);
    assert!(sources.sites[0].vyos_peer.is_some());
}

/// The second router of a VRRP pair (`vyos_peer`) is judged as the first is: its groups are
/// MASTER or BACKUP (VRRP-001, named by the router the topology pairs with the site's, here
/// `vyos-sp-b`), and a group MASTER on both routers is a split brain, named by group: both then
/// hold its virtual addresses (keepalived's `vrrp_state_become_master` adds the VIPs on each).
/// The states are those of `show vrrp` (vyos-1x `src/op_mode/vrrp.py`, the `State` column of
/// keepalived's JSON). Failed first: only `vyos` was judged, so neither the FAULT nor the
/// unknown state of the second router nor the split brain was reported.
#[test]
fn the_second_router_is_judged_and_a_split_brain_is_named_by_group() {
    let topology = load("linked.yaml", LINKED);
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(VyosFacts {
        vrrp: vec![
            vrrp("LAN", Some("MASTER")),
            vrrp("MGMT", Some("BACKUP")),
            vrrp("DMZ", Some("BACKUP")),
        ],
        ..VyosFacts::default()
    });
    site.vyos_peer = Sourced::Observed(VyosFacts {
        vrrp: vec![
            vrrp("LAN", Some("MASTER")),
            vrrp("MGMT", Some("FAULT")),
            vrrp("DMZ", None),
        ],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group LAN is MASTER on both vyos-sp and vyos-sp-b: a split brain, both hold its virtual addresses",
            "warning vyos-sp VRRP group MGMT is MASTER on neither router: BACKUP on vyos-sp, FAULT on vyos-sp-b, so neither holds its virtual addresses",
            "warning vyos-sp-b VRRP group MGMT on eth1 of vyos-sp-b is FAULT",
            "warning vyos-sp-b the state of VRRP group DMZ on eth1 of vyos-sp-b is unknown (not in `show vrrp`)",
        ]
    );
}

/// LINK-002 compares the configured BGP neighbors (`cpps_vyos::status::bgp::
/// configured_bgp_neighbors`, vyos-1x `protocols_bgp.xml.in` and `vrf.xml.in`) with the
/// summary of every VRF (`show bgp vrf all summary`, FRRouting `bgpd/bgp_vty.c`
/// `bgp_show_all_instances_summary_vty`, each instance headed with its VRF), VRF by VRF: an
/// activated neighbor its VRF's summary lacks has no session in FRR, even when the same
/// address is a neighbor of another VRF; BGP configured while FRR answers `% BGP instance not
/// found` (`bgp_show_summary_vty`) runs no session. A neighbor without an address family is in
/// no summary (vyos-1x `bgpd.frr.j2` writes `no bgp default ipv4-unicast`) and is not
/// reported. A session down in another VRF names its VRF. Failed first: the rule said "cannot
/// tell" for VRF blue and matched neighbors across VRFs.
#[test]
fn configured_bgp_neighbors_missing_from_the_summary_are_link_002_findings() {
    let topology = load("linked.yaml", LINKED);
    let tree = ConfigTree::parse_set(
        "set protocols bgp system-as '65010'
set protocols bgp neighbor 10.20.0.1 remote-as '65020'
set protocols bgp neighbor 10.20.0.1 address-family ipv4-unicast
set protocols bgp neighbor 192.0.2.77 remote-as '65077'
set protocols bgp neighbor 192.0.2.77 address-family ipv4-unicast
set protocols bgp neighbor 192.0.2.88 remote-as '65088'
set vrf name blue table '100'
set vrf name blue protocols bgp system-as '65010'
set vrf name blue protocols bgp neighbor 10.1.0.2 remote-as '65101'
set vrf name blue protocols bgp neighbor 10.1.0.2 address-family ipv4-unicast
set vrf name blue protocols bgp neighbor 10.1.0.3 remote-as '65101'
set vrf name blue protocols bgp neighbor 10.1.0.3 address-family ipv4-unicast
set vrf name red table '200'
set vrf name red protocols bgp system-as '65010'
set vrf name red protocols bgp neighbor 192.0.2.77 remote-as '65077'
set vrf name red protocols bgp neighbor 192.0.2.77 address-family ipv4-unicast
",
    )
    .unwrap();
    let facts = |bgp| VyosFacts {
        bgp,
        side: RouterSide::new(PairSide::new("gw-a", tree.clone(), BTreeMap::new())),
        ..VyosFacts::default()
    };
    let link_002 = |facts: VyosFacts| {
        let mut sp = SiteObservation::new("sp");
        sp.vyos = Sourced::Observed(facts);
        rule_messages(&audit_at_now(&topology, vec![sp]).report, "LINK-002")
    };
    let in_vrf = |vrf: &str, address: &str, state: &str| BgpNeighborFact {
        vrf: Some(vrf.to_owned()),
        ..neighbor(address, state)
    };
    assert_eq!(
        link_002(facts(Some(vec![
            neighbor("10.20.0.1", "Established"),
            in_vrf("blue", "10.1.0.2", "Established"),
            in_vrf("blue", "10.1.0.3", "Active"),
            // In red only: the default VRF's 192.0.2.77 still has no session.
            in_vrf("red", "192.0.2.77", "Established"),
        ]))),
        [
            "warning vyos-sp BGP neighbor 192.0.2.77 of vyos-sp is configured but not in `show bgp vrf all summary`: FRR holds no session for it",
            "warning vyos-sp BGP session of vyos-sp to 10.1.0.3 (AS 65020, IPv4 Unicast, VRF blue) is Active (Up/Down never)",
        ]
    );
    assert_eq!(
        link_002(facts(Some(vec![neighbor("10.20.0.1", "Established")]))),
        [
            "warning vyos-sp BGP neighbor 10.1.0.2 of vyos-sp in VRF blue is configured but not in `show bgp vrf all summary`: FRR holds no session for it",
            "warning vyos-sp BGP neighbor 10.1.0.3 of vyos-sp in VRF blue is configured but not in `show bgp vrf all summary`: FRR holds no session for it",
            "warning vyos-sp BGP neighbor 192.0.2.77 of vyos-sp in VRF red is configured but not in `show bgp vrf all summary`: FRR holds no session for it",
            "warning vyos-sp BGP neighbor 192.0.2.77 of vyos-sp is configured but not in `show bgp vrf all summary`: FRR holds no session for it",
        ]
    );
    assert_eq!(
        link_002(facts(None)),
        [
            "warning vyos-sp BGP is configured on vyos-sp (5 neighbors in 3 VRFs) but FRR answers `% BGP instance not found`: no session runs",
        ]
    );
}

/// Without the router's configuration LINK-002 cannot tell whether a configured BGP neighbor
/// is missing from `show bgp vrf all summary` (FRR lists only the sessions it holds,
/// FRRouting `bgpd/bgp_vty.c` `bgp_show_summary`), so it says so instead of passing: a check
/// that found no input is "cannot tell", never "ok". Failed first: no finding at all.
#[test]
fn bgp_gaps_cannot_tell_without_the_routers_configuration() {
    let topology = load("linked.yaml", LINKED);
    for bgp in [Some(vec![neighbor("192.168.11.2", "Established")]), None] {
        let mut sp = SiteObservation::new("sp");
        sp.vyos = Sourced::Observed(VyosFacts {
            bgp: bgp.clone(),
            ..VyosFacts::default()
        });
        assert_eq!(
            rule_messages(&audit_at_now(&topology, vec![sp]).report, "LINK-002"),
            [
                "warning vyos-sp cannot tell whether every BGP neighbor configured on vyos-sp holds a session: its configuration was not read",
            ],
            "{bgp:?}"
        );
    }
}

/// Audit V8 (issue 32): interface names are each router's own (keepalived
/// `keepalived/vrrp/vrrp_scheduler.c` `vrrp_dispatcher_read` finds a group by the advert's VRID
/// on the receiving socket, whatever the NIC is called), so `LAN` VRID 10 on `eth1` of one
/// router and on `eth2` of the other is one group, and MASTER on both is a split brain. Failed
/// first: the two were never paired and nothing was said.
#[test]
fn a_group_on_differently_named_interfaces_is_still_one_group() {
    let topology = load("linked.yaml", LINKED);
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(VyosFacts {
        vrrp: vec![vrrp_on("LAN", "eth1", 10, "MASTER")],
        ..VyosFacts::default()
    });
    site.vyos_peer = Sourced::Observed(VyosFacts {
        vrrp: vec![vrrp_on("LAN", "eth2", 10, "MASTER")],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group LAN (VRID 10 on eth1 of vyos-sp, eth2 of vyos-sp-b) is MASTER on both vyos-sp and vyos-sp-b: a split brain, both hold its virtual addresses"
        ]
    );
}

/// Y2 (s45 audit of issue 32): the group name is each router's own too (vyos-1x
/// `interface-definitions/high-availability.xml.in`: `vrrp group NAME` is a local tag), so
/// `LAN` VRID 10 on `eth1` of one router and `LAN-B` VRID 10 on `bond0` of the other, with one
/// virtual address, are one group on the wire (keepalived `vrrp_scheduler.c`
/// `vrrp_dispatcher_read` matches the advert's VRID, whatever the NIC or group is called), and
/// MASTER on both is a split brain. Matched by VRID and a shared virtual address. Failed first:
/// nothing was said.
#[test]
fn a_group_renamed_on_a_renamed_nic_is_paired_by_vrid_and_address() {
    let topology = load("linked.yaml", LINKED);
    let with_vip = |g: VrrpFact| VrrpFact {
        addresses: vec!["10.10.0.1/24".to_owned()],
        ..g
    };
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(VyosFacts {
        vrrp: vec![with_vip(vrrp_on("LAN", "eth1", 10, "MASTER"))],
        ..VyosFacts::default()
    });
    site.vyos_peer = Sourced::Observed(VyosFacts {
        vrrp: vec![
            with_vip(vrrp_on("LAN-B", "bond0", 10, "MASTER")),
            // Same VRID on another NIC, no shared address: another group.
            vrrp_on("OTHER", "eth9", 10, "BACKUP"),
        ],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group LAN of vyos-sp (LAN-B on vyos-sp-b) (VRID 10 on eth1 of vyos-sp, bond0 of vyos-sp-b) is MASTER on both vyos-sp and vyos-sp-b: a split brain, both hold its virtual addresses"
        ]
    );
}

/// Z4 (s45 second audit of issue 32): a VRID may be used once per address family on one
/// interface, and a group may not mix IPv4 and IPv6 (vyos-1x circinus
/// `src/conf_mode/high-availability.py` `verify`: "Create individual groups for IPv4 and
/// IPv6!"); keepalived keeps an IPv4 and an IPv6 socket apart. So dual-stack `LAN4` and `LAN6`,
/// both VRID 10 on eth1, are two groups, and `LAN6` MASTER on both routers is a split brain.
/// Failed first: both of one router's groups were paired with the other's `LAN4`, and nothing
/// was said.
#[test]
fn a_dual_stack_pair_is_told_apart_by_address_family() {
    let topology = load("linked.yaml", LINKED);
    let with = |g: VrrpFact, vip: &str| VrrpFact {
        addresses: vec![vip.to_owned()],
        ..g
    };
    let groups = |v6_state: &str| {
        vec![
            with(vrrp_on("LAN4", "eth1", 10, "BACKUP"), "10.10.0.1/24"),
            with(vrrp_on("LAN6", "eth1", 10, v6_state), "fd00:10::1/64"),
        ]
    };
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(VyosFacts {
        vrrp: groups("MASTER"),
        ..VyosFacts::default()
    });
    site.vyos_peer = Sourced::Observed(VyosFacts {
        vrrp: vec![
            with(vrrp_on("LAN4", "eth1", 10, "MASTER"), "10.10.0.1/24"),
            with(vrrp_on("LAN6", "eth1", 10, "MASTER"), "fd00:10::1/64"),
        ],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group LAN6 (VRID 10 on eth1) is MASTER on both vyos-sp and vyos-sp-b: a split brain, both hold its virtual addresses"
        ]
    );
}

/// The two routers' groups are paired as keepalived pairs them on the wire: by interface and
/// VRID (acassen/keepalived `keepalived/vrrp/vrrp_scheduler.c` `vrrp_dispatcher_read` finds the
/// group by the advert's VRID among the groups of the receiving socket's interface); the group
/// name is local. So `LAN` on one router and `lan-v4` on the other, both VRID 10 on eth1, are
/// one group, and a split brain between them is named with both names; two groups named `LAN`
/// with different VRIDs are two groups. A group MASTER on neither router leaves its virtual
/// addresses with nobody: BACKUP on both (keepalived's `vrrp_state_backup` stays BACKUP while
/// adverts come), or BACKUP beside FAULT or INIT (states of vyos-1x
/// `python/vyos/ifconfig/vrrp.py`), the states named. Failed first: groups were matched by
/// name only, and neither case without a MASTER was reported.
#[test]
fn a_pair_is_judged_by_vrid_and_a_group_without_master_is_named() {
    let topology = load("linked.yaml", LINKED);
    let mut site = SiteObservation::new("sp");
    site.vyos = Sourced::Observed(VyosFacts {
        vrrp: vec![
            vrrp_on("LAN", "eth1", 10, "MASTER"),
            vrrp_on("MGMT", "eth2", 20, "BACKUP"),
            vrrp_on("DMZ", "eth3", 30, "BACKUP"),
            vrrp_on("WAN", "eth0", 40, "MASTER"),
        ],
        ..VyosFacts::default()
    });
    site.vyos_peer = Sourced::Observed(VyosFacts {
        vrrp: vec![
            vrrp_on("lan-v4", "eth1", 10, "MASTER"),
            vrrp_on("MGMT", "eth2", 20, "BACKUP"),
            vrrp_on("DMZ", "eth3", 30, "FAULT"),
            // Same name, another VRID: not WAN's partner, so no split brain.
            vrrp_on("WAN", "eth0", 41, "MASTER"),
        ],
        ..VyosFacts::default()
    });
    let audit = audit_at_now(&topology, vec![site]);
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "warning vyos-sp VRRP group DMZ (VRID 30 on eth3) is MASTER on neither router: BACKUP on vyos-sp, FAULT on vyos-sp-b, so neither holds its virtual addresses",
            "warning vyos-sp VRRP group LAN of vyos-sp (lan-v4 on vyos-sp-b) (VRID 10 on eth1) is MASTER on both vyos-sp and vyos-sp-b: a split brain, both hold its virtual addresses",
            "warning vyos-sp VRRP group MGMT (VRID 20 on eth2) is BACKUP on both vyos-sp and vyos-sp-b: neither holds its virtual addresses",
            "warning vyos-sp-b VRRP group DMZ on eth3 of vyos-sp-b is FAULT",
        ]
    );
}
