//! LINK-002's BGP gaps (issue 32, audit of s42): the BGP neighbors of the configuration
//! compared with FRR's summary, and the summary of every VRF.
//!
//! The configuration uses the nodes of vyos-1x `interface-definitions/protocols_bgp.xml.in`
//! (`neighbor NAME`: `remote-as`, `peer-group`, `address-family`; `peer-group NAME`) and
//! `vrf.xml.in` (`vrf name NAME protocols bgp`). vyos-1x `data/templates/frr/bgpd.frr.j2` writes
//! `no bgp default ipv4-unicast` and `neighbor X activate` only under an `address-family` of
//! the neighbor or of its peer group, and FRR's `bgp_show_summary_afi_safi` (FRRouting
//! `bgpd/bgp_vty.c`) prints only the families where `bgp_afi_safi_peer_exists`: a neighbor
//! with no family activated is in no summary, any other one is in it, in whatever state.

mod common;

use cpps_vyos::ConfigTree;
use cpps_vyos::status::bgp::{configured_bgp_neighbors, missing_from_summary};
use cpps_vyos::status::parse_bgp_summary;
use serde_json::json;
use wiremock::matchers::body_partial_json;

/// The SP router of the fixtures (`bgp-summary-frr*.txt` list 10.255.0.2, 192.0.2.9,
/// 198.51.100.1, 203.0.113.5 in IPv4 and fd00:255::2, 2001:db8::9 in IPv6), with neighbors the
/// summary misses, one without any family, and two VRFs.
const CONFIG: &str = "set protocols bgp system-as '65010'
set protocols bgp neighbor 10.255.0.2 remote-as '65020'
set protocols bgp neighbor 10.255.0.2 address-family ipv4-unicast
set protocols bgp neighbor 192.0.2.9 remote-as '65030'
set protocols bgp neighbor 192.0.2.9 address-family ipv4-unicast
set protocols bgp neighbor 198.51.100.1 remote-as '65040'
set protocols bgp neighbor 198.51.100.1 address-family ipv4-unicast
set protocols bgp neighbor 198.51.100.1 shutdown
set protocols bgp neighbor 203.0.113.5 remote-as '65050'
set protocols bgp neighbor 203.0.113.5 address-family ipv4-unicast
set protocols bgp neighbor FD00:255::2 remote-as '65020'
set protocols bgp neighbor FD00:255::2 address-family ipv6-unicast
set protocols bgp neighbor 2001:db8::9 remote-as '65030'
set protocols bgp neighbor 2001:db8::9 address-family ipv6-unicast
set protocols bgp neighbor 192.0.2.77 remote-as '65077'
set protocols bgp neighbor 192.0.2.77 address-family ipv4-unicast
set protocols bgp neighbor 192.0.2.88 remote-as '65088'
set protocols bgp neighbor 192.0.2.99 peer-group 'UPSTREAM'
set protocols bgp peer-group UPSTREAM remote-as '65099'
set protocols bgp peer-group UPSTREAM address-family ipv4-unicast
set vrf name blue table '100'
set vrf name blue protocols bgp system-as '65010'
set vrf name blue protocols bgp neighbor 10.1.0.2 remote-as '65101'
set vrf name blue protocols bgp neighbor 10.1.0.2 address-family ipv4-unicast
set vrf name red table '200'
set vrf name red protocols bgp system-as '65010'
set vrf name red protocols bgp neighbor 10.2.0.2 remote-as '65102'
set vrf name red protocols bgp neighbor 10.2.0.2 address-family ipv4-unicast
";

/// `show bgp vrf all summary` with every session up ([`common::bgp_vrf_all_summary`]).
fn vrf_all(frr10: bool) -> String {
    common::bgp_vrf_all_summary(frr10, true)
}

/// Failed first: nothing compared the configuration with the summary, and nothing read
/// another VRF than the default one.
#[test]
fn configured_neighbors_missing_from_the_summary_are_named() {
    let tree = ConfigTree::parse_set(CONFIG).unwrap();
    let configured = configured_bgp_neighbors(&tree);
    let listed: Vec<(Option<&str>, &str, bool)> = configured
        .iter()
        .map(|n| (n.vrf.as_deref(), n.neighbor.as_str(), n.activated))
        .collect();
    assert_eq!(
        listed,
        [
            (None, "10.255.0.2", true),
            (None, "192.0.2.9", true),
            (None, "198.51.100.1", true),
            (None, "203.0.113.5", true),
            (None, "FD00:255::2", true),
            (None, "2001:db8::9", true),
            (None, "192.0.2.77", true),
            (None, "192.0.2.88", false),
            (None, "192.0.2.99", true),
            (Some("blue"), "10.1.0.2", true),
            (Some("red"), "10.2.0.2", true),
        ]
    );
    for frr10 in [true, false] {
        // The default VRF's summary alone judges the default VRF's neighbors only.
        let name = if frr10 {
            "bgp-summary-frr10.txt"
        } else {
            "bgp-summary-frr9.1.txt"
        };
        let default = parse_bgp_summary(&common::show_fixture(name)).unwrap();
        let missing: Vec<&str> = missing_from_summary(&default, &configured, false)
            .iter()
            .map(|n| n.neighbor.as_str())
            .collect();
        assert_eq!(missing, ["192.0.2.77", "192.0.2.99"], "{name}");

        let all = parse_bgp_summary(&vrf_all(frr10)).unwrap();
        let missing: Vec<(Option<&str>, &str)> = missing_from_summary(&all, &configured, true)
            .iter()
            .map(|n| (n.vrf.as_deref(), n.neighbor.as_str()))
            .collect();
        assert_eq!(
            missing,
            [
                (None, "192.0.2.77"),
                (None, "192.0.2.99"),
                (Some("red"), "10.2.0.2")
            ],
            "frr10: {frr10}"
        );
    }
}

/// `show bgp vrf all summary` exists on 1.4 and 1.5: vyos-1x `op-mode-definitions/show-bgp.xml.in`
/// (sagitta, circinus, current) has `tagNode vrf` with `<list>all</list>` and
/// `include/bgp/show-bgp-common.xml.i` → `afi-common.xml.i` `node summary`, run by
/// `vtysh_wrapper.sh`. No instance at all is FRR's `% BGP instance not found`.
#[tokio::test]
async fn the_summary_of_every_vrf_is_read_through_show() {
    let (api, client) = common::router().await;
    common::post("/show")
        .and(body_partial_json(
            json!({"op": "show", "path": ["bgp", "vrf", "all", "summary"]}),
        ))
        .respond_with(common::ok(json!(vrf_all(true))))
        .mount(api.server())
        .await;
    let summary = client.bgp_summary_all_vrfs().await.unwrap().unwrap();
    let vrfs: Vec<(Option<&str>, &str, usize)> = summary
        .families
        .iter()
        .map(|f| (f.vrf.as_deref(), f.family.as_str(), f.neighbors.len()))
        .collect();
    assert_eq!(
        vrfs,
        [
            (Some("default"), "IPv4 Unicast", 4),
            (Some("default"), "IPv6 Unicast", 2),
            (Some("blue"), "IPv4 Unicast", 1),
        ]
    );

    let (api, client) = common::router().await;
    common::post("/show")
        .and(body_partial_json(
            json!({"op": "show", "path": ["bgp", "vrf", "all", "summary"]}),
        ))
        .respond_with(common::ok(json!("% BGP instance not found\n")))
        .mount(api.server())
        .await;
    assert_eq!(client.bgp_summary_all_vrfs().await.unwrap(), None);
}
