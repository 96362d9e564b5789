//! Peers and VRRP groups the operator disabled on purpose (issue 32, V9). No VyOS router runs
//! here: wiremock answers `/retrieve` with a configuration written in the nodes of vyos-1x's
//! interface definitions and `/show` with texts as vyos-1x's printers write them (each cited
//! where it is mounted).
#![cfg(feature = "live")]

mod common;

use common::{load, rule_messages};
use cpps_http::test_util::MockApi;
use cpps_topology::live::endpoints::{ClientOptions, Endpoints};
use cpps_topology::live::{self, LiveOptions, Observation, ObserveOptions};
use serde_json::json;
use wiremock::matchers::{body_partial_json, method, path};
use wiremock::{Mock, ResponseTemplate};

/// Two sites joined by a validated WireGuard link, one router each.
const LINKED: &str = "\
version: 1
name: linked sites
sites:
  - { id: sp, state: validated }
  - { id: franca, state: validated }
routers:
  - { id: vyos-sp, site: sp, subnets: [192.168.10.0/23], state: validated }
  - { id: vyos-franca, site: franca, subnets: [10.20.0.0/16], state: validated }
links:
  - id: wg-sp-franca
    kind: wireguard
    sites: [sp, franca]
    endpoints: [vyos-sp, vyos-franca]
    state: validated
";

/// SP's router. `peer franca disable` is vyos-1x `interface-definitions/interfaces_wireguard.xml.in`
/// (`peer` includes `generic-disable-node.xml.i`); `group DMZ disable` is
/// `interface-definitions/high-availability.xml.in` (the group includes the same node).
const DISABLED_PEER_AND_GROUP: &str = "\
high-availability {
    vrrp {
        group DMZ {
            address 192.168.30.1/24 {
            }
            disable
            interface eth3
            vrid 30
        }
        group LAN {
            address 192.168.10.1/23 {
            }
            interface eth1
            vrid 10
        }
    }
}
interfaces {
    ethernet eth1 {
        address 192.168.10.2/23
    }
    wireguard wg1 {
        address 10.255.0.1/30
        peer franca {
            address 198.51.100.2
            allowed-ips 10.20.0.0/16
            disable
            port 51820
            public-key ZnJhbmNhZnJhbmNhZnJhbmNhZnJhbmNhZnJhbmNhZnI=
        }
        port 51820
        private-key cHJpdmF0ZS1rZXktbmV2ZXItc2hvd24tMDAwMDAwMDA=
    }
}
system {
    host-name vyos-sp
}
";

/// `show interfaces wireguard wg1 summary` (vyos-1x `python/vyos/ifconfig/wireguard.py`
/// `show_interface`): the disabled peer is not in the kernel (`WireGuardIf.update` skips a peer
/// with `disable`, T4702), so the summary lists none.
const WG1_SUMMARY: &str = "interface: wg1\n  address: 10.255.0.1/30\n  public key: c3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3Bzc3A=\n  private key: (hidden)\n  listening port: 51820\n";

/// `show vrrp` (vyos-1x `python/vyos/ifconfig/vrrp.py` `VRRP.format`): keepalived runs LAN
/// only, as `data/templates/high-availability/keepalived.conf.j2` writes no disabled group.
const SHOW_VRRP: &str = "Name    Interface      VRID  State      Priority  Last Transition\n------  -----------  ------  -------  ----------  -----------------\nLAN     eth1             10  MASTER          100  2m3s\n";

fn ok_text(text: &str) -> ResponseTemplate {
    ResponseTemplate::new(200)
        .set_body_string(json!({"success": true, "data": text, "error": null}).to_string())
}

async fn show(api: &MockApi, words: &[&str], text: &str) {
    Mock::given(method("POST"))
        .and(path("/show"))
        .and(body_partial_json(json!({"op": "show", "path": words})))
        .respond_with(ok_text(text))
        .mount(api.server())
        .await;
}

/// A router answering `config` for `/retrieve` (`vyos-http-api.md`: `showConfig` with
/// `configFormat: raw` answers the config.boot text as `data`), with no BGP instance (FRR
/// `bgpd/bgp_vty.c` `bgp_show_summary_vty`) and no IPsec (vyos-1x `src/op_mode/ipsec.py`).
async fn router(config: &str) -> MockApi {
    let api = MockApi::start("").await;
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .respond_with(ok_text(config))
        .with_priority(5)
        .mount(api.server())
        .await;
    // `vyos-http-api.md`, "/retrieve" `exists`: `vpn ipsec` is not configured.
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .and(body_partial_json(json!({"op": "exists"})))
        .respond_with(
            ResponseTemplate::new(200).set_body_string(
                json!({"success": true, "data": false, "error": null}).to_string(),
            ),
        )
        .with_priority(1)
        .mount(api.server())
        .await;
    show(
        &api,
        &["bgp", "vrf", "all", "summary"],
        "% BGP instance not found\n",
    )
    .await;
    show(
        &api,
        &["vpn", "ipsec", "connections"],
        "IPsec not initialized\n",
    )
    .await;
    api
}

/// The audit of [`LINKED`] over site `sp` observed through `router`.
async fn audit_sp(router: &MockApi) -> (Observation, live::Audit) {
    let key = std::env::temp_dir().join(format!("cpps-vyos-disabled-{}", std::process::id()));
    std::fs::write(&key, "S3cur3\n").unwrap();
    let endpoints = Endpoints::parse(
        "endpoints.yaml",
        &format!(
            "sites:\n  sp:\n    vyos:\n      url: {}\n      key_file: {}\n",
            router.base_url(),
            key.display()
        ),
    )
    .unwrap();
    let mut options = ClientOptions::default();
    options.retries = 0;
    let sources = endpoints.sources(&options, &|_| None).unwrap();
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let topology = load("linked.yaml", LINKED);
    let audit = live::audit(&topology, &observed, &LiveOptions::at(observed.taken_at));
    (observed, audit)
}

// A peer and a group disabled in the configuration are not checked, and say so (info: the rule
// passes); they are neither "never had a handshake" nor "unknown". The enabled group is judged
// as before. Failed first: LINK-001 said "has never had a handshake" (error) and VRRP-001 "the
// state of VRRP group DMZ on eth3 of vyos-sp is unknown (not in `show vrrp`)".
#[tokio::test]
async fn disabled_peers_and_groups_are_not_checked() {
    let api = router(DISABLED_PEER_AND_GROUP).await;
    show(
        &api,
        &["interfaces", "wireguard", "wg1", "summary"],
        WG1_SUMMARY,
    )
    .await;
    show(&api, &["vrrp"], SHOW_VRRP).await;
    let (_, audit) = audit_sp(&api).await;
    assert_eq!(
        rule_messages(&audit.report, "LINK-001"),
        [
            "info wg-sp-franca link wg-sp-franca: WireGuard peer franca on wg1 of vyos-sp is disabled by configuration (`disable`), so it is not checked: the kernel holds no such peer"
        ]
    );
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "info vyos-sp VRRP group DMZ on eth3 of vyos-sp is disabled by configuration (`disable`), so it is not checked: keepalived does not run it"
        ]
    );
}

// `high-availability disable` (the node at the top of `high-availability.xml.in`) stops
// keepalived (vyos-1x `src/conf_mode/high-availability.py` `apply`: `systemctl stop`), so every
// group is disabled and `show vrrp` is not asked: no reading can fail for it. Failed first:
// VRRP-001 said the state of LAN was unknown (the `show vrrp` reading failed).
#[tokio::test]
async fn high_availability_disabled_disables_every_group() {
    let config = DISABLED_PEER_AND_GROUP.replace(
        "high-availability {\n",
        "high-availability {\n    disable\n",
    );
    let api = router(&config).await;
    show(
        &api,
        &["interfaces", "wireguard", "wg1", "summary"],
        WG1_SUMMARY,
    )
    .await;
    let (observed, audit) = audit_sp(&api).await;
    let facts = observed.site("sp").unwrap().vyos.observed().unwrap();
    assert_eq!(facts.partial, Vec::<String>::new());
    assert_eq!(
        rule_messages(&audit.report, "VRRP-001"),
        [
            "info vyos-sp VRRP group DMZ on eth3 of vyos-sp is disabled by configuration (`disable`), so it is not checked: keepalived does not run it",
            "info vyos-sp VRRP group LAN on eth1 of vyos-sp is disabled by configuration (`high-availability disable`), so it is not checked: keepalived does not run it",
        ]
    );
}

// `interfaces wireguard wg1 disable` (the interface's `generic-disable-node.xml.i`) sets the
// interface administratively down (vyos-1x `python/vyos/ifconfig/interface.py`
// `Interface.update`: `state = 'down' if 'disable' in config`); its peers are configured, so
// the reason is the interface, not a peer the kernel lacks. Failed first: the message said
// "the kernel holds no such peer".
#[tokio::test]
async fn a_disabled_interface_is_said_to_be_down_not_peerless() {
    let config = DISABLED_PEER_AND_GROUP
        .replace(
            "            disable\n            port 51820\n",
            "            port 51820\n",
        )
        .replace(
            "    wireguard wg1 {\n",
            "    wireguard wg1 {\n        disable\n",
        );
    assert!(config.contains("wg1 {\n        disable\n"), "{config}");
    let api = router(&config).await;
    show(
        &api,
        &["interfaces", "wireguard", "wg1", "summary"],
        WG1_SUMMARY,
    )
    .await;
    show(&api, &["vrrp"], SHOW_VRRP).await;
    let (_, audit) = audit_sp(&api).await;
    assert_eq!(
        rule_messages(&audit.report, "LINK-001"),
        [
            "info wg-sp-franca link wg-sp-franca: WireGuard peer franca on wg1 of vyos-sp is disabled by configuration (`interfaces wireguard wg1 disable`), so it is not checked: the interface is administratively down"
        ]
    );
}
