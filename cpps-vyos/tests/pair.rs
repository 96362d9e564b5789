//! The pair comparison of two routers (`cpps_vyos::pair`). The configurations use the nodes of
//! vyos-1x `interface-definitions/high-availability.xml.in` (`vrrp group NAME`: `interface`,
//! `vrid`, `address`, `priority`, `authentication type`/`password`, `no-preempt`) and
//! `interfaces_wireguard.xml.in` (`peer NAME`: `public-key`, `allowed-ips`, `address`, `port`);
//! the interfaces' public keys are read from `show interfaces wireguard NAME summary` as both
//! printers print them (`public key:`), on the fake 1.4 and 1.5 routers of `common`.

mod common;

use std::collections::BTreeMap;

use common::{FakeRouter, Profile, config_fixture};
use cpps_vyos::ConfigTree;
use cpps_vyos::pair::{PairArea, PairKind, PairSide, compare, read_side};

const KEY_A: &str = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE=";
const KEY_B: &str = "YmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmJiYmI=";

/// A router of the pair: `me` is `a` or `b`, the other end is the other letter.
fn router(me: &str, priority: u8, extra: &str) -> ConfigTree {
    let (my_wan, other_wan, my_tun, other_tun, other_key) = match me {
        "a" => (
            "198.51.100.1",
            "198.51.100.2",
            "10.255.0.1",
            "10.255.0.2",
            KEY_B,
        ),
        _ => (
            "198.51.100.2",
            "198.51.100.1",
            "10.255.0.2",
            "10.255.0.1",
            KEY_A,
        ),
    };
    let text = format!(
        "set interfaces ethernet eth0 address '{my_wan}/24'
set interfaces ethernet eth1 address '192.0.2.{}/24'
set interfaces wireguard wg0 address '{my_tun}/30'
set interfaces wireguard wg0 port '51820'
set interfaces wireguard wg0 private-key 'cHJpdmF0ZS1rZXktbmV2ZXItc2hvd24tMDAwMDAwMDA='
set interfaces wireguard wg0 peer other public-key '{other_key}'
set interfaces wireguard wg0 peer other allowed-ips '{other_tun}/32'
set interfaces wireguard wg0 peer other address '{other_wan}'
set interfaces wireguard wg0 peer other port '51820'
set high-availability vrrp group LAN interface 'eth1'
set high-availability vrrp group LAN vrid '10'
set high-availability vrrp group LAN address '192.0.2.254/24'
set high-availability vrrp group LAN priority '{priority}'
set high-availability vrrp group LAN authentication type 'plaintext-password'
set high-availability vrrp group LAN authentication password 'VrrpS3cr'
{extra}",
        if me == "a" { 2 } else { 3 }
    );
    ConfigTree::parse_set(&text).unwrap()
}

fn side(label: &str, tree: ConfigTree, key: Option<&str>) -> PairSide {
    let keys: BTreeMap<String, String> = key
        .map(|k| BTreeMap::from([("wg0".to_owned(), k.to_owned())]))
        .unwrap_or_default();
    PairSide::new(label, tree, keys)
}

#[test]
fn a_matching_pair_has_no_finding() {
    let a = side("gw-a", router("a", 200, ""), Some(KEY_A));
    let b = side("gw-b", router("b", 100, ""), Some(KEY_B));
    assert_eq!(compare(&a, &b).unwrap(), []);
}

#[test]
fn each_difference_is_a_finding_and_no_secret_is_shown() {
    let a = side(
        "gw-a",
        router("a", 100, "set high-availability vrrp group LAN no-preempt"),
        Some(KEY_A),
    );
    let b_extra = "set high-availability vrrp group LAN vrid '11'
set high-availability vrrp group LAN authentication password 'Other-S3cr'
set high-availability vrrp group DMZ vrid '20'
set high-availability vrrp group DMZ interface 'eth1'
set interfaces wireguard wg0 peer other allowed-ips '10.255.0.9/32'
set interfaces wireguard wg0 peer other port '51821'";
    let mut b_tree = router("b", 100, b_extra);
    // A configuration read without VyOS's schema keeps every `set` value of a leaf: the
    // values replaced are deleted, as VyOS's single-valued leaves would hold one.
    let lan = "high-availability vrrp group LAN";
    let peer = "interfaces wireguard wg0 peer other";
    for (path, old) in [
        (format!("{lan} vrid"), "10"),
        (format!("{lan} authentication password"), "VrrpS3cr"),
        (format!("{peer} allowed-ips"), "10.255.0.1/32"),
        (format!("{peer} port"), "51820"),
    ] {
        let path: Vec<&str> = path.split(' ').collect();
        b_tree
            .apply(&cpps_vyos::Command::delete(path, Some(old)))
            .unwrap();
    }
    let b = side("gw-b", b_tree, Some(KEY_B));
    let found = compare(&a, &b).unwrap();
    let messages: Vec<(PairArea, &str, &str)> = found
        .iter()
        .map(|f| (f.area, f.subject.as_str(), f.message.as_str()))
        .collect();
    assert_eq!(
        messages,
        [
            (PairArea::Vrrp, "DMZ", "only on gw-b"),
            (
                PairArea::Vrrp,
                "LAN",
                "VRID Some(10) on gw-a, Some(11) on gw-b"
            ),
            (
                PairArea::Vrrp,
                "LAN",
                "both have priority 100: the master is chosen by interface address"
            ),
            (PairArea::Vrrp, "LAN", "the authentication passwords differ"),
            (
                PairArea::Vrrp,
                "LAN",
                "no-preempt is true on gw-a, false on gw-b"
            ),
            (
                PairArea::WireGuard,
                "gw-b wg0 peer other",
                "allowed-ips [\"10.255.0.9/32\"] do not cover gw-a's wg0 address 10.255.0.1/30"
            ),
            (
                PairArea::WireGuard,
                "gw-b wg0 peer other",
                "endpoint port 51821, but gw-a's wg0 listens on 51820"
            ),
        ]
    );
    let all = format!("{found:?}");
    for secret in [
        "VrrpS3cr",
        "Other-S3cr",
        "cHJpdmF0ZS1rZXktbmV2ZXItc2hvd24tMDAwMDAwMDA=",
    ] {
        assert!(!all.contains(secret), "{all}");
    }
}

#[test]
fn a_key_that_could_not_be_read_cannot_tell_and_a_wrong_key_is_a_mismatch() {
    let a = side("gw-a", router("a", 200, ""), None);
    let b = side("gw-b", router("b", 100, ""), Some(KEY_B));
    let found = compare(&a, &b).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, PairKind::CannotTell);
    assert_eq!(found[0].subject, "gw-b");

    let b = side("gw-b", router("b", 100, ""), Some(KEY_A));
    let a = side("gw-a", router("a", 200, ""), Some(KEY_A));
    let found = compare(&a, &b).unwrap();
    assert!(
        found.iter().any(|f| f.kind == PairKind::Mismatch
            && f.message
                == "no tunnel to gw-b found: no peer holds the public key of any of its interfaces"),
        "{found:?}"
    );
}

/// The interface's public key comes from the summary both printers print: `wg show` on 1.4,
/// `interfaces_wireguard.py show_summary` on 1.5 (the fake prints each as its code does).
#[tokio::test]
async fn the_interface_key_is_read_from_both_printers() {
    for profile in [Profile::V14, Profile::V15] {
        let tree = ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot"))
            .unwrap();
        let (_api, client, _fake) = FakeRouter::new(profile, tree).start().await;
        let side = read_side(&client, "gw").await.unwrap();
        assert_eq!(
            side.wireguard_keys.get("wg0").map(String::as_str),
            Some("cHVibGljLWtleS1vZi13ZzAtMDAwMDAwMDAwMDAwMDA="),
            "{profile:?}"
        );
    }
}

/// An interface without `port` listens on a port the kernel picks at random
/// (vyos-documentation `docs/configuration/interfaces/wireguard.rst`: "otherwise the port is
/// randomly chosen"), so the other end's endpoint port cannot be judged from the configuration:
/// "cannot tell", not a mismatch (a tunnel the port-less end initiates works).
#[test]
fn an_endpoint_towards_an_interface_without_port_cannot_tell() {
    let a = side("gw-a", router("a", 200, ""), Some(KEY_A));
    let without_port = router("b", 100, "")
        .to_set_string()
        .replace("set interfaces wireguard wg0 port '51820'\n", "");
    assert!(!without_port.contains("wg0 port"), "{without_port}");
    let b = side(
        "gw-b",
        ConfigTree::parse_set(&without_port).unwrap(),
        Some(KEY_B),
    );
    let found = compare(&a, &b).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].area, PairArea::WireGuard);
    assert_eq!(found[0].kind, PairKind::CannotTell);
    assert_eq!(
        found[0].message,
        "endpoint port 51820, but gw-b's wg0 sets no port and listens on a random one: the tunnel works only while gw-b initiates it"
    );
}

/// X8 of the issue-32 audit: unicast VRRP. `peer-address` (multi), `hello-source-address` and
/// `rfc3768-compatibility` (vyos-1x `interface-definitions/high-availability.xml.in`) become
/// keepalived's `unicast_peer`, `unicast_src_ip` (`mcast_src_ip` without peers) and `use_vmac`
/// (`data/templates/high-availability/keepalived.conf.j2`). Each side's `peer-address` must
/// name the address the other listens on: its `hello-source-address`, else its address on the
/// group's interface (the test `a_side_that_is_not_sent_its_adverts_is_deaf_…` says why); one
/// side unicast and the other multicast never hear each other. `rfc3768-compatibility` on one
/// side only moves the virtual address between two MACs. Failed first: none of these was compared (no finding).
#[test]
fn unicast_peers_that_do_not_name_each_other_split_the_master_role() {
    let lan = "set high-availability vrrp group LAN";
    // Matching unicast pair: each names the other's eth1 address or hello source.
    let a = side(
        "gw-a",
        router(
            "a",
            200,
            &format!("{lan} peer-address '192.0.2.3'\n{lan} hello-source-address '192.0.2.2'"),
        ),
        Some(KEY_A),
    );
    let b = side(
        "gw-b",
        router("b", 100, &format!("{lan} peer-address '192.0.2.2'")),
        Some(KEY_B),
    );
    assert_eq!(compare(&a, &b).unwrap(), []);

    // gw-b names an address gw-a does not send from; gw-a's vmac only on one side.
    let a = side(
        "gw-a",
        router(
            "a",
            200,
            &format!("{lan} peer-address '192.0.2.3'\n{lan} rfc3768-compatibility"),
        ),
        Some(KEY_A),
    );
    let b = side(
        "gw-b",
        router("b", 100, &format!("{lan} peer-address '192.0.2.9'")),
        Some(KEY_B),
    );
    let found = compare(&a, &b).unwrap();
    let messages: Vec<(&str, PairKind)> =
        found.iter().map(|f| (f.message.as_str(), f.kind)).collect();
    assert_eq!(
        messages,
        [
            (
                "gw-a never receives gw-b's adverts: gw-b sends them to [\"192.0.2.9\"], and gw-a listens only on 192.0.2.2 (its address on eth1): gw-a takes the master role whenever it runs, whatever no-preempt says",
                PairKind::Mismatch
            ),
            (
                "rfc3768-compatibility is true on gw-a, false on gw-b: the virtual address moves between two MAC addresses",
                PairKind::Mismatch
            ),
        ]
    );

    // One side unicast, the other multicast.
    let a = side(
        "gw-a",
        router("a", 200, &format!("{lan} peer-address '192.0.2.3'")),
        Some(KEY_A),
    );
    let b = side("gw-b", router("b", 100, ""), Some(KEY_B));
    let found = compare(&a, &b).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].message,
        "unicast (peer-address) on gw-a, multicast on gw-b: they never hear each other and both become MASTER"
    );
}

/// X8 (rest) of the issue-32 audit: the advert interval and the VRRP version.
/// vyos-1x `data/templates/high-availability/keepalived.conf.j2` writes `advert_int` from the
/// group's `advertise-interval` (`high-availability.xml.in`, `defaultValue` 1) and
/// `vrrp_version` from `global-parameters version` only when set; keepalived's default is
/// version 2 (acassen/keepalived `keepalived/core/global_data.c`, `data->vrrp_version =
/// VRRP_VERSION_2`), and an IPv6 group is always version 3 (`keepalived/vrrp/vrrp.c`
/// `vrrp_complete_instance`). `vrrp_check_packet` answers an advert of another version
/// `VRRP_PACKET_KO` ("wrong VRRP version") and, under version 2, one whose `adver_int` is not
/// its own `VRRP_PACKET_DROP` ("to prevent concurent VRID running => multiple master"); under
/// version 3 it only logs the interval, and it ignores authentication ("VRRP version 3 does not
/// support authentication"). Failed first: no finding for either, and a password mismatch
/// under version 3 was reported.
#[test]
fn advert_interval_and_version_mismatches_split_the_master_role() {
    let lan = "set high-availability vrrp group LAN";
    let a = side(
        "gw-a",
        router("a", 200, &format!("{lan} advertise-interval '2'")),
        Some(KEY_A),
    );
    let b = side("gw-b", router("b", 100, ""), Some(KEY_B));
    let messages: Vec<String> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(
        messages,
        [
            "advertise-interval 2 on gw-a, 1 on gw-b: under VRRP version 2 each drops the other's adverts, so both become MASTER"
        ]
    );

    // Version 3 on one side only: the adverts of the other version are refused.
    let v3 = "set high-availability vrrp global-parameters version '3'";
    let a = side("gw-a", router("a", 200, v3), Some(KEY_A));
    let messages: Vec<String> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(
        messages,
        [
            "VRRP version 3 on gw-a, 2 on gw-b: each refuses the other's adverts, so both become MASTER"
        ]
    );

    // Version 3 on both: another interval is only logged, and authentication is ignored.
    let b_tree = router(
        "b",
        100,
        &format!("{v3}\n{lan} advertise-interval '3'\n{lan} authentication password 'Other-S3'"),
    );
    let mut b_tree = b_tree;
    b_tree
        .apply(&cpps_vyos::Command::delete(
            [
                "high-availability",
                "vrrp",
                "group",
                "LAN",
                "authentication",
                "password",
            ],
            Some("VrrpS3cr"),
        ))
        .unwrap();
    let b = side("gw-b", b_tree, Some(KEY_B));
    assert_eq!(compare(&a, &b).unwrap(), []);

    // An IPv6 group is version 3 whatever `global-parameters version` says.
    let v6 = |me: &str, priority: u8, extra: &str| {
        router(
            me,
            priority,
            &format!(
                "set high-availability vrrp group V6 interface 'eth1'
set high-availability vrrp group V6 vrid '16'
set high-availability vrrp group V6 address '2001:db8::254/64'
set high-availability vrrp group V6 priority '{priority}'
{extra}"
            ),
        )
    };
    let a = side("gw-a", v6("a", 200, v3), Some(KEY_A));
    let b = side(
        "gw-b",
        v6(
            "b",
            100,
            "set high-availability vrrp group V6 advertise-interval '4'",
        ),
        Some(KEY_B),
    );
    let found: Vec<(String, String)> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| (f.subject, f.message))
        .collect();
    assert_eq!(
        found,
        [(
            "LAN".to_owned(),
            "VRRP version 3 on gw-a, 2 on gw-b: each refuses the other's adverts, so both become MASTER"
                .to_owned()
        )]
    );
}

/// X8 (rest), unicast. The audit held that keepalived filters unicast adverts by source only
/// with `check_unicast_src` (acassen/keepalived `keepalived/vrrp/vrrp_parser.c`
/// `vrrp_check_unicast_src_handler`, opt-in, and VyOS's template never sets it), so any
/// address of the other router would do. The receiving side settles it otherwise:
/// `keepalived/vrrp/vrrp_scheduler.c` `vrrp_create_sockpool` opens a unicast instance's read
/// socket with `unicast_src = &vrrp->saddr` (`unicast_src_ip`, VyOS's `hello-source-address`,
/// else the interface's first address: `vrrp.c` `set_vrrp_src_addr`), and
/// `vrrp.c` `open_vrrp_read_socket` binds the raw socket to it; Linux delivers to a bound raw
/// socket only datagrams addressed to that address (torvalds/linux `net/ipv4/raw.c`
/// `__raw_v4_lookup`, `inet_rcv_saddr != laddr`). So a side whose `hello-source-address` the
/// other's `peer-address` does not name never receives the other's adverts. Who is deaf
/// decides the outcome: the higher-priority side deaf takes the master role whenever it runs
/// (the master it preempts hears it); the lower-priority side deaf becomes MASTER beside the
/// master. Failed first: the finding named the wrong side as deaf and always said both become
/// MASTER.
#[test]
fn a_side_that_is_not_sent_its_adverts_is_deaf_and_priority_decides_the_outcome() {
    let lan = "set high-availability vrrp group LAN";
    // gw-a (priority 200) listens on its hello source 192.0.2.12; gw-b sends to its eth1 .2.
    let a = side(
        "gw-a",
        router(
            "a",
            200,
            &format!(
                "set interfaces ethernet eth1 address '192.0.2.12/24'\n{lan} peer-address '192.0.2.3'\n{lan} hello-source-address '192.0.2.12'"
            ),
        ),
        Some(KEY_A),
    );
    let b = side(
        "gw-b",
        router("b", 100, &format!("{lan} peer-address '192.0.2.2'")),
        Some(KEY_B),
    );
    let messages: Vec<String> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(
        messages,
        [
            "gw-a never receives gw-b's adverts: gw-b sends them to [\"192.0.2.2\"], and gw-a listens only on 192.0.2.12 (its hello-source-address): gw-a takes the master role whenever it runs, whatever no-preempt says"
        ]
    );

    // The same with the lower-priority side deaf: two masters.
    let a = side(
        "gw-a",
        router("a", 200, &format!("{lan} peer-address '192.0.2.9'")),
        Some(KEY_A),
    );
    let b = side(
        "gw-b",
        router("b", 100, &format!("{lan} peer-address '192.0.2.2'")),
        Some(KEY_B),
    );
    let messages: Vec<String> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| f.message)
        .collect();
    assert_eq!(
        messages,
        [
            "gw-b never receives gw-a's adverts: gw-a sends them to [\"192.0.2.9\"], and gw-b listens only on 192.0.2.3 (its address on eth1): both become MASTER"
        ]
    );
}

/// Two groups are the same group when keepalived would make them one: adverts are read on the
/// group's interface and matched by their VRID (acassen/keepalived
/// `keepalived/vrrp/vrrp_scheduler.c` `vrrp_dispatcher_read`, `rb_find` on the socket's VRIDs);
/// the name is local to each router. So `LAN` on gw-a and `lan-v4` on gw-b, both VRID 10 on
/// eth1, are compared as one group (the differing names said), not reported as two groups each
/// on one router. Groups that share a name but not the wire identity are still paired by name,
/// so that a VRID that differs is said as such. Failed first: "LAN only on gw-a" and "lan-v4
/// only on gw-b".
#[test]
fn groups_are_paired_by_interface_and_vrid_before_names() {
    let a = side("gw-a", router("a", 200, ""), Some(KEY_A));
    let renamed = router("b", 100, "")
        .to_set_string()
        .replace("vrrp group LAN ", "vrrp group lan-v4 ");
    let b = side(
        "gw-b",
        ConfigTree::parse_set(&renamed).unwrap(),
        Some(KEY_B),
    );
    let found: Vec<(PairArea, String, PairKind, String)> = compare(&a, &b)
        .unwrap()
        .into_iter()
        .map(|f| (f.area, f.subject, f.kind, f.message))
        .collect();
    assert_eq!(
        found,
        [(
            PairArea::Vrrp,
            "LAN".to_owned(),
            PairKind::Mismatch,
            "named LAN on gw-a, lan-v4 on gw-b: the same group on the wire (VRID 10 on eth1)"
                .to_owned()
        )]
    );
}
