//! The operational readings of `cpps_vyos::status`, on text written as VyOS's printers write it:
//! `WireGuardOperational.show_interface` in vyos-1x (`current`) `python/vyos/ifconfig/wireguard.py`
//! and wireguard-tools `src/show.c` `pretty_print` (see `common::printers`) (a peer that never shook hands gets neither `latest handshake` nor `status`; `latest
//! handshake` is Python's `str(timedelta)`; transfer through `hurry.filesize` `alternative`) and
//! `VRRP.format` in `python/vyos/ifconfig/vrrp.py` (`tabulate`, headers Name, Interface, VRID,
//! State, Priority, Last Transition), and the BGP and IPsec summaries (see each test).

mod common;

use std::time::Duration;

use common::printers::{self, LiveInterface, LivePeer};
use cpps_vyos::Error;
use cpps_vyos::status::{
    BgpState, IpsecState, PrefixCount, VrrpState, WireGuardPrinter, parse_bgp_summary,
    parse_ipsec_connections, parse_ipsec_sas, parse_vrrp, parse_wireguard,
};
use proptest::prelude::*;
use serde_json::json;
use wiremock::matchers::body_partial_json;

/// A peer's name, handshake age (s), status, bytes received and sent.
type PeerRow<'a> = (
    &'a str,
    Option<u64>,
    Option<&'a str>,
    Option<u64>,
    Option<u64>,
);

/// Three peers as the kernel holds them: one that shook hands 65 s ago and moved bytes, one
/// that never did (no allowed IPs), one a year and a month ago.
fn three_live_peers() -> LiveInterface {
    let peer = |name: &str, key: &str| LivePeer {
        name: name.to_owned(),
        public_key: key.to_owned(),
        preshared_key: false,
        endpoint: None,
        allowed_ips: Vec::new(),
        handshake_ago: None,
        rx: 0,
        tx: 0,
        keepalive: None,
    };
    LiveInterface {
        name: "wg0".to_owned(),
        public_key: "Zm9vYmFyYmF6cXV4MDAwMDAwMDAwMDAwMDAwMDAwMDA=".to_owned(),
        listen_port: 51820,
        description: Some("SP to Franca".to_owned()),
        addresses: vec!["10.255.0.1/30".to_owned()],
        peers: vec![
            LivePeer {
                preshared_key: true,
                endpoint: Some("198.51.100.7:51820".to_owned()),
                allowed_ips: vec!["10.255.0.0/30".to_owned(), "10.20.0.0/16".to_owned()],
                handshake_ago: Some(65),
                rx: 1_536,
                tx: 3 << 20,
                keepalive: Some(25),
                ..peer("franca", "RnJhbmNhUHViS2V5MDAwMDAwMDAwMDAwMDAwMDAwMDA=")
            },
            peer(
                "backup-site",
                "QmFja3VwU2l0ZVB1YktleTAwMDAwMDAwMDAwMDAwMDA=",
            ),
            LivePeer {
                allowed_ips: vec!["10.255.2.0/30".to_owned()],
                handshake_ago: Some(400 * 86_400 + 5),
                rx: 1,
                tx: 1_048_575,
                ..peer("old", "T2xkUGVlclB1YktleTAwMDAwMDAwMDAwMDAwMDAwMDA=")
            },
        ],
    }
}

// VyOS 1.4's `show interfaces wireguard NAME summary` is `sudo wg show NAME` (vyos-1x `sagitta`
// `op-mode-definitions/show-interfaces-wireguard.xml.in`), printed by wireguard-tools
// `src/show.c` `pretty_print`: `peer: KEY` at column 0, attributes two spaces in, handshakes as
// `ago` ("1 minute, 5 seconds ago"), transfers as `bytes` ("1.50 KiB"), `(none)` for no allowed
// IPs. The text comes from `common::printers::wg_show`, which follows that code. Failed before
// the reader knew `wg show`: it took the key for a name and skipped every attribute.
#[test]
fn wg_show_peers_by_key() {
    let text = printers::wg_show(&three_live_peers());
    assert!(text.contains("\npeer: RnJhbmNh"), "{text}");
    let all = parse_wireguard(&text);
    assert_eq!(all.len(), 1);
    let wg = &all[0];
    assert_eq!(
        (wg.interface.as_str(), wg.listen_port),
        ("wg0", Some(51820))
    );
    // `peer_cmp`: latest handshake first, never last.
    let keys: Vec<Option<&str>> = wg.peers.iter().map(|p| p.public_key.as_deref()).collect();
    assert_eq!(
        keys,
        [
            Some("RnJhbmNhUHViS2V5MDAwMDAwMDAwMDAwMDAwMDAwMDA="),
            Some("T2xkUGVlclB1YktleTAwMDAwMDAwMDAwMDAwMDAwMDA="),
            Some("QmFja3VwU2l0ZVB1YktleTAwMDAwMDAwMDAwMDAwMDA="),
        ]
    );
    let franca = &wg.peers[0];
    assert_eq!(franca.latest_handshake, Some(Duration::from_secs(65)));
    assert_eq!(
        franca.latest_handshake_printed.as_deref(),
        Some("1 minute, 5 seconds ago")
    );
    assert_eq!(franca.endpoint.as_deref(), Some("198.51.100.7:51820"));
    assert_eq!(franca.allowed_ips, ["10.255.0.0/30", "10.20.0.0/16"]);
    assert_eq!(
        (franca.rx_bytes, franca.tx_bytes),
        (Some(1_536), Some(3 << 20))
    );
    // `wg` has no status line and no names.
    assert_eq!((franca.status.as_deref(), franca.name.as_str()), (None, ""));
    let old = &wg.peers[1];
    assert_eq!(
        old.latest_handshake,
        Some(Duration::from_secs(400 * 86_400 + 5))
    );
    // "1 B received, 1024.00 KiB sent": two decimals of KiB, read back to the byte they round to.
    assert_eq!((old.rx_bytes, old.tx_bytes), (Some(1), Some(1 << 20)));
    let never = &wg.peers[2];
    assert_eq!(
        (
            never.latest_handshake,
            never.latest_handshake_printed.as_deref()
        ),
        (None, None)
    );
    assert!(never.allowed_ips.is_empty());
    assert!(!never.handshake_within(Duration::from_secs(3600)));
    assert_eq!(wg.printer, Some(WireGuardPrinter::WgShow));
}

// `show.c` `ago`: "Now" in the handshake's second, and a clock wound backward tells no age
// (kept as printed, never read as a fresh handshake); `src/terminal.c` writes colour codes only
// with `WG_COLOR_MODE=always`, and they are dropped.
#[test]
fn wg_show_now_backward_clock_and_colours() {
    let text = "\u{1b}[0m\u{1b}[32m\u{1b}[1minterface\u{1b}[0m: \u{1b}[32mwg0\u{1b}[0m\n  \u{1b}[1mlistening port\u{1b}[0m: 51820\n\n\u{1b}[33m\u{1b}[1mpeer\u{1b}[0m: \u{1b}[33mQUJD\u{1b}[0m\n  allowed ips: 10.0.0.1/32\n  latest handshake: Now\n\npeer: REVG\n  allowed ips: (none)\n  latest handshake: (System clock wound backward; connection problems may ensue.)\n";
    let wg = &parse_wireguard(text)[0];
    assert_eq!(
        (wg.interface.as_str(), wg.listen_port),
        ("wg0", Some(51820))
    );
    assert_eq!(wg.peers[0].public_key.as_deref(), Some("QUJD"));
    assert_eq!(wg.peers[0].latest_handshake, Some(Duration::ZERO));
    let backward = &wg.peers[1];
    assert_eq!(backward.latest_handshake, None);
    assert!(
        backward
            .latest_handshake_printed
            .as_deref()
            .is_some_and(|s| s.starts_with("(System clock wound backward"))
    );
    assert!(!backward.handshake_within(Duration::from_secs(3600)));
}

// VyOS 1.5 (`current`): `summary` runs `interfaces_wireguard.py show_summary`, which returns
// `WireGuardOperational.show_interface` (`python/vyos/ifconfig/wireguard.py`): names, `status`,
// `str(timedelta)` handshakes and `hurry.filesize` sizes; produced by
// `common::printers::vyos_show_interface`.
#[test]
fn vyos_table_from_its_printer() {
    let text = printers::vyos_show_interface(&three_live_peers());
    let wg = &parse_wireguard(&text)[0];
    assert_eq!(wg.printer, Some(WireGuardPrinter::VyosTable));
    let got: Vec<PeerRow<'_>> = wg
        .peers
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.latest_handshake.map(|d| d.as_secs()),
                p.status.as_deref(),
                p.rx_bytes,
                p.tx_bytes,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "franca",
                Some(65),
                Some("active"),
                Some(1 << 10),
                Some(3 << 20)
            ),
            ("backup-site", None, None, None, None),
            (
                "old",
                Some(400 * 86_400 + 5),
                Some("inactive"),
                Some(1),
                Some(1023 << 10)
            ),
        ]
    );
    assert_eq!(
        wg.peers[0].public_key.as_deref(),
        Some("RnJhbmNhUHViS2V5MDAwMDAwMDAwMDAwMDAwMDAwMDA=")
    );
}

// The client reads the command that prints peers, on both fake routers (`tests/common`): 1.4's
// `wg show` is named from the configuration by key, so both answer the same peers with the same
// handshakes. `show interfaces wireguard NAME` itself (`interfaces.py show`) prints no peer: the
// older reading says so instead of an empty, healthy-looking list.
#[tokio::test]
async fn wireguard_summary_on_both_profiles() {
    for profile in [common::Profile::V14, common::Profile::V15] {
        let tree = cpps_vyos::ConfigTree::parse_boot(&common::config_fixture(
            "dialup-router-medium-vpn.config.boot",
        ))
        .unwrap();
        let (_api, client, _fake) = common::FakeRouter::new(profile, tree).start().await;
        let wg = client.wireguard_summary("wg0").await.unwrap();
        let mut got: Vec<(String, Option<u64>, Vec<String>)> = wg
            .peers
            .iter()
            .map(|p| {
                (
                    p.name.clone(),
                    p.latest_handshake.map(|d| d.as_secs()),
                    p.allowed_ips.clone(),
                )
            })
            .collect();
        got.sort();
        let s = |v: &[&str]| v.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            got,
            [
                ("blue".to_owned(), Some(3_723), s(&["192.168.10.3/32"])),
                ("green".to_owned(), None, s(&["192.168.10.21/32"])),
                (
                    "pink".to_owned(),
                    Some(2 * 86_400 + 5),
                    s(&["192.168.10.14/32", "192.168.10.16/32"])
                ),
                ("red".to_owned(), Some(40), s(&["192.168.10.4/32"])),
            ],
            "{profile:?}"
        );
        let expected = match profile {
            common::Profile::V14 => WireGuardPrinter::WgShow,
            common::Profile::V15 => WireGuardPrinter::VyosTable,
        };
        assert_eq!(wg.printer, Some(expected));
        match client.wireguard_status("wg0").await.unwrap_err() {
            Error::UnexpectedAnswer { message, .. } => assert_eq!(
                message,
                "`show interfaces wireguard wg0` printed no interface"
            ),
            other => panic!("{other:?}"),
        }
    }
}

/// Family, VRF, router id, local AS, neighbors, total.
type FamilyRow<'a> = (
    &'a str,
    Option<&'a str>,
    Option<&'a str>,
    Option<&'a str>,
    usize,
    Option<u32>,
);

fn show_fixture(name: &str) -> String {
    common::show_fixture(name)
}

const WG: &str = "interface: wg0
  description: SP to Franca
  address: 10.255.0.1/30
  public key: Zm9vYmFyYmF6cXV4MDAwMDAwMDAwMDAwMDAwMDAwMDA=
  private key: (hidden)
  listening port: 51820

  peer: franca
    public key: RnJhbmNhUHViS2V5MDAwMDAwMDAwMDAwMDAwMDAwMDA=
    latest handshake: 0:01:05
    status: active
    endpoint: 198.51.100.7:51820
    allowed ips: 10.255.0.0/30, 10.20.0.0/16
    transfer: 12 MB received, 3 GB sent
    persistent keepalive: every 25 seconds

  peer: backup-site
    public key: QmFja3VwU2l0ZVB1YktleTAwMDAwMDAwMDAwMDAwMDA=
    endpoint: 203.0.113.9:51820
    allowed ips: 10.255.1.0/30

  peer: old
    public key: T2xkUGVlclB1YktleTAwMDAwMDAwMDAwMDAwMDAwMDA=
    latest handshake: 2 days, 3:04:05
    status: inactive
    allowed ips: 10.255.2.0/30

    RX:  bytes  packets  errors  dropped  overrun       mcast
      12582912    10231       0        0        0           0
";

#[test]
fn wireguard_peers_handshakes_and_transfer() {
    let all = parse_wireguard(WG);
    assert_eq!(all.len(), 1);
    let wg = &all[0];
    assert_eq!(wg.interface, "wg0");
    assert_eq!(wg.listen_port, Some(51820));
    let names: Vec<&str> = wg.peers.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["franca", "backup-site", "old"]);
    let franca = &wg.peers[0];
    assert_eq!(franca.latest_handshake, Some(Duration::from_secs(65)));
    assert_eq!(franca.status.as_deref(), Some("active"));
    assert_eq!(franca.endpoint.as_deref(), Some("198.51.100.7:51820"));
    assert_eq!(franca.allowed_ips, ["10.255.0.0/30", "10.20.0.0/16"]);
    assert_eq!(franca.rx_bytes, Some(12 << 20));
    assert_eq!(franca.tx_bytes, Some(3 << 30));
    assert!(franca.handshake_within(Duration::from_secs(180)));
    // Never shook hands: no handshake, no status, and not healthy.
    let never = &wg.peers[1];
    assert_eq!(
        (never.latest_handshake, never.status.as_deref()),
        (None, None)
    );
    assert!(!never.handshake_within(Duration::from_secs(3600)));
    let old = &wg.peers[2];
    assert_eq!(
        old.latest_handshake,
        Some(Duration::from_secs(2 * 86_400 + 3 * 3_600 + 4 * 60 + 5))
    );
    assert_eq!((old.rx_bytes, old.tx_bytes), (None, None));
}

#[test]
fn vrrp_table_with_an_unknown_state_kept() {
    let text = "\
Name  Interface  VRID  State     Priority  Last Transition
----  ---------  ----  --------  --------  ---------------
LAN   eth1         10  MASTER         200  1w2d3h4m5s
MGMT  eth2.20      20  BACKUP         100  59s
DMZ   eth3         30  DISABLED       150  n/a
";
    let groups = parse_vrrp(text);
    assert_eq!(groups.len(), 3);
    assert_eq!(groups[0].group, "LAN");
    assert_eq!(groups[0].interface, "eth1");
    assert_eq!(groups[0].vrid, Some(10));
    assert_eq!(groups[0].state, VrrpState::Master);
    assert_eq!(groups[0].priority, Some(200));
    assert_eq!(groups[0].last_transition, "1w2d3h4m5s");
    assert_eq!(groups[1].state, VrrpState::Backup);
    assert_eq!(groups[1].interface, "eth2.20");
    assert_eq!(groups[2].state, VrrpState::Unknown("DISABLED".into()));
    assert!(parse_vrrp("VRRP is not configured\n").is_empty());
}

// FRRouting `bgpd/bgp_vty.c` `bgp_show_summary` / `bgp_show_summary_afi_safi`, as VyOS runs it
// (`vtysh -c`, vyos-1x `src/op_mode/vtysh_wrapper.sh`). The fixtures are printed with FRR's own
// formats: neighbor column padded to 16, `4`, `%11pASP`, ` %9u %9u %8u %4zu %4zu %8s`, then
// ` %12u %8u` when Established, ` %12s` of `bgp_status_msg` or ` Idle (Admin)` and ` %8u` 0
// otherwise, then ` %s` of the description or ` N/A`; `peer_uptime` (`bgpd/bgpd.c`) for
// Up/Down. FRR 9.1 (VyOS 1.4, `frr-9.1`) heads a family `IPv4 Unicast Summary (VRF default):`
// and prints `local AS number 65010 vrf-id 0`; FRR 10 (VyOS 1.5, `frr-10.2`) `IPv4 Unicast
// Summary:` and `local AS number 65010 VRF default vrf-id 0`.
#[test]
fn bgp_summary_of_frr_9_and_10_reads_the_same() {
    for name in ["bgp-summary-frr9.1.txt", "bgp-summary-frr10.txt"] {
        let summary = parse_bgp_summary(&show_fixture(name)).unwrap_or_else(|| panic!("{name}"));
        let families: Vec<FamilyRow<'_>> = summary
            .families
            .iter()
            .map(|f| {
                (
                    f.family.as_str(),
                    f.vrf.as_deref(),
                    f.router_id.as_deref(),
                    f.local_as.as_deref(),
                    f.neighbors.len(),
                    f.total_neighbors,
                )
            })
            .collect();
        assert_eq!(
            families,
            [
                (
                    "IPv4 Unicast",
                    Some("default"),
                    Some("192.168.10.1"),
                    Some("65010"),
                    4,
                    Some(4)
                ),
                (
                    "IPv6 Unicast",
                    Some("default"),
                    Some("192.168.10.1"),
                    Some("65010"),
                    2,
                    Some(2)
                ),
            ],
            "{name}"
        );
        let v4 = &summary.families[0].neighbors;
        assert_eq!(v4[0].neighbor, "10.255.0.2");
        assert_eq!(v4[0].remote_as, "65020");
        assert_eq!(v4[0].state, BgpState::Established);
        assert_eq!(v4[0].prefixes_received, PrefixCount::Count(5));
        assert_eq!(v4[0].prefixes_sent, PrefixCount::Count(7));
        assert_eq!(
            (v4[0].messages_received, v4[0].messages_sent),
            (Some(1234), Some(1240))
        );
        assert_eq!(
            v4[0].since,
            Some(Duration::from_secs(86_400 + 2 * 3600 + 3 * 60))
        );
        assert_eq!(v4[0].description.as_deref(), Some("franca-gw"));
        assert_eq!(v4[1].state, BgpState::Active);
        assert_eq!((v4[1].up_down.as_str(), v4[1].since), ("never", None));
        assert_eq!(v4[1].prefixes_received, PrefixCount::None);
        assert_eq!(v4[1].description, None);
        assert_eq!(v4[2].state, BgpState::IdleAdmin);
        assert_eq!(v4[2].since, Some(Duration::from_secs(42)));
        // eBGP without policy: Established, but nothing accepted or sent.
        assert_eq!(v4[3].state, BgpState::Established);
        assert_eq!(v4[3].prefixes_received, PrefixCount::Policy);
        assert_eq!(v4[3].prefixes_sent, PrefixCount::Policy);
        assert_eq!(
            v4[3].since,
            Some(Duration::from_secs((2 * 7 + 3) * 86_400 + 4 * 3600))
        );
        assert_eq!(v4[3].description.as_deref(), Some("ISP uplink B"));
        let v6 = &summary.families[1].neighbors;
        assert_eq!(v6[0].neighbor, "fd00:255::2");
        assert_eq!(v6[1].state, BgpState::Connect);
        let down: Vec<&str> = summary
            .neighbors()
            .filter(|(_, n)| !n.state.is_established())
            .map(|(_, n)| n.neighbor.as_str())
            .collect();
        assert_eq!(down, ["192.0.2.9", "198.51.100.1", "2001:db8::9"]);
    }
}

// `bgp_show_summary`: a dynamic neighbor is marked `*`, a host name (`bgp default
// show-hostname`) printed as `host(address)`; the state column of a state FRR does not list is
// kept and is not Established; `Idle (PfxCt)` is the prefix limit.
#[test]
fn bgp_neighbor_forms_and_unknown_states() {
    let text = "\
IPv4 Unicast Summary:
BGP router identifier 10.0.0.1, local AS number 4200000001 VRF default vrf-id 0

Neighbor               V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc
*10.1.0.9              4      65009         5         5        0    0    0 00:01:00            1        1 N/A
franca(10.255.0.2)     4      65020         9         9        0    0    0 00:00:09 Idle (PfxCt)        0 N/A
10.1.0.7               4      65007         0         0        0    0    0    never      Fancy        0 N/A

Total number of neighbors 3
* - dynamic neighbor
1 dynamic neighbor(s), limit 100
";
    let summary = parse_bgp_summary(text).unwrap();
    let n = &summary.families[0].neighbors;
    assert_eq!(summary.families[0].local_as.as_deref(), Some("4200000001"));
    assert_eq!((n[0].neighbor.as_str(), n[0].dynamic), ("10.1.0.9", true));
    assert_eq!(n[1].neighbor, "10.255.0.2");
    assert_eq!(n[1].hostname.as_deref(), Some("franca"));
    assert_eq!(n[1].state, BgpState::IdlePrefixLimit);
    assert_eq!(n[2].state, BgpState::Unknown("Fancy".into()));
    assert!(!n[2].state.is_established());
}

// `bgp_show_summary_afi_safi`: BGP configured without a neighbor prints `% No BGP neighbors
// found in VRF default`: an empty summary. Anything else that is no summary is `None`.
#[test]
fn bgp_without_neighbors_and_junk() {
    let empty = parse_bgp_summary("% No BGP neighbors found in VRF default\n").unwrap();
    assert!(empty.families.is_empty());
    assert_eq!(
        parse_bgp_summary("% Unknown command: show bgp summary\n"),
        None
    );
    assert_eq!(parse_bgp_summary(""), None);
}

// vyos-1x `src/op_mode/ipsec.py` `_get_formatted_output_sas` (identical on `sagitta` and
// `current`): one row per CHILD_SA, `up` for INSTALLED, `down` otherwise, `N/A` where strongSwan
// gave nothing; printed by `tabulate` (fixture printed by tabulate 0.8.10, Debian bookworm's).
#[test]
fn ipsec_sas_with_states_kept() {
    let sas = parse_ipsec_sas(&show_fixture("ipsec-sa.txt")).unwrap();
    let rows: Vec<(&str, &IpsecState, Option<&str>, Option<&str>)> = sas
        .iter()
        .map(|s| {
            (
                s.connection.as_str(),
                &s.state,
                s.uptime.as_deref(),
                s.remote_address.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "franca-tunnel-0",
                &IpsecState::Up,
                Some("1h2m3s"),
                Some("198.51.100.7")
            ),
            (
                "franca-tunnel-1",
                &IpsecState::Down,
                None,
                Some("198.51.100.7")
            ),
            (
                "branch-tunnel-0",
                &IpsecState::Unknown("N/A".into()),
                Some("59s"),
                Some("203.0.113.9")
            ),
        ]
    );
    assert_eq!(sas[0].bytes.as_deref(), Some("117M/9M"));
    assert_eq!(sas[0].packets.as_deref(), Some("102K/99K"));
    assert_eq!(
        sas[0].proposal.as_deref(),
        Some("AES_CBC_256/HMAC_SHA2_256_128/MODP_2048")
    );
    assert_eq!(sas[2].remote_id.as_deref(), Some("branch.example.org"));
    assert!(!sas[2].state.is_up(), "unknown is never up");
    // strongSwan without any SA: the headers alone.
    assert_eq!(
        parse_ipsec_sas(&show_fixture("ipsec-sa-empty.txt")),
        Some(Vec::new())
    );
    assert_eq!(parse_ipsec_sas("IPsec not initialized\n"), None);
}

// vyos-1x `src/op_mode/ipsec.py` `_get_formatted_output_conections`: the IKE connection then its
// tunnels (`Type` IPsec), traffic selectors joined by line breaks (tabulate continues the row on
// the next line), `-` where there is nothing.
#[test]
fn ipsec_connections_with_multi_line_selectors() {
    let conns = parse_ipsec_connections(&show_fixture("ipsec-connections.txt")).unwrap();
    let rows: Vec<(&str, &str, bool, &IpsecState)> = conns
        .iter()
        .map(|c| (c.name.as_str(), c.kind.as_str(), c.is_tunnel(), &c.state))
        .collect();
    assert_eq!(
        rows,
        [
            ("franca", "IKEv2", false, &IpsecState::Up),
            ("franca-tunnel-0", "IPsec", true, &IpsecState::Up),
            ("branch", "IKEv1", false, &IpsecState::Down),
            ("branch-tunnel-0", "IPsec", true, &IpsecState::Down),
        ]
    );
    assert_eq!(conns[1].local_ts, ["10.10.0.0/16", "10.20.0.0/16"]);
    assert_eq!(conns[1].remote_ts, ["10.30.0.0/16"]);
    assert!(conns[0].local_ts.is_empty());
    assert_eq!(conns[2].local_id.as_deref(), Some("%any"));
    assert_eq!(conns[2].proposal, None);
}

/// A router whose `POST /show` answers each command of `answers` (its words) as given.
async fn router_showing(
    answers: &[(&[&str], wiremock::ResponseTemplate)],
) -> (cpps_http::test_util::MockApi, cpps_vyos::Client) {
    let (api, client) = common::router().await;
    for (words, response) in answers {
        common::post("/show")
            .and(body_partial_json(json!({"op": "show", "path": words})))
            .respond_with(response.clone())
            .mount(api.server())
            .await;
    }
    (api, client)
}

// Through `/show` (vyos-1x `src/services/api/rest/routers.py` `show_op`: `session.show(path)`,
// whose `__run_command` in `python/vyos/configsession.py` raises `ConfigSessionError` with the
// output when the command exits non-zero, answered 400). `ipsec.py` exits 1 after printing
// `IPsec not initialized` (`UnconfiguredSubsystem`, `__main__`); vtysh prints `% BGP instance not
// found` (`bgp_show_summary_vty`, CMD_WARNING). Either way, as text or as the error message, the
// subsystem is not configured (for IPsec, when the configuration has no `vpn ipsec`): `None`,
// not an error; other text is an error, never empty.
#[tokio::test]
async fn client_readings_through_show() {
    let (api, client) = router_showing(&[
        (
            &["bgp", "summary"],
            common::ok(json!(show_fixture("bgp-summary-frr10.txt"))),
        ),
        (
            &["vpn", "ipsec", "sa"],
            common::err(400, "IPsec not initialized\n"),
        ),
        (
            &["vpn", "ipsec", "connections"],
            common::ok(json!(show_fixture("ipsec-connections.txt"))),
        ),
    ])
    .await;
    // No `vpn ipsec` in the configuration: the words mean what they say (see
    // `ipsec_not_initialized_while_configured_is_an_error`).
    common::post("/retrieve")
        .and(body_partial_json(json!({"op": "exists"})))
        .respond_with(common::ok(json!(false)))
        .mount(api.server())
        .await;
    let bgp = client.bgp_summary().await.unwrap().unwrap();
    assert_eq!(bgp.families.len(), 2);
    assert_eq!(client.ipsec_sas().await.unwrap(), None);
    assert_eq!(client.ipsec_connections().await.unwrap().unwrap().len(), 4);

    let (_api, client) = router_showing(&[
        (
            &["bgp", "summary"],
            common::ok(json!("% BGP instance not found\n")),
        ),
        (
            &["vpn", "ipsec", "sa"],
            common::ok(json!(show_fixture("ipsec-sa.txt"))),
        ),
    ])
    .await;
    assert_eq!(client.bgp_summary().await.unwrap(), None);
    assert_eq!(client.ipsec_sas().await.unwrap().unwrap().len(), 3);

    let (_api, client) = router_showing(&[
        (
            &["bgp", "summary"],
            common::err(400, "% BGP instance not found\n"),
        ),
        (
            &["vpn", "ipsec", "sa"],
            common::ok(json!("Something else entirely\n")),
        ),
        (
            &["vpn", "ipsec", "connections"],
            common::err(400, "Failed to get connections\n"),
        ),
    ])
    .await;
    assert_eq!(client.bgp_summary().await.unwrap(), None);
    match client.ipsec_sas().await.unwrap_err() {
        Error::UnexpectedAnswer { endpoint, message } => assert_eq!(
            (endpoint, message.as_str()),
            (
                "show",
                "`show vpn ipsec sa` printed neither an SA table nor `IPsec not initialized`"
            )
        ),
        other => panic!("{other:?}"),
    }
    let err = client.ipsec_connections().await.unwrap_err();
    assert!(matches!(err, Error::Api { status: 400, .. }), "{err:?}");

    // The other readings' junk: each error names its command, what it expected and the line
    // that says "not configured".
    let junk = || common::ok(json!("Something else entirely\n"));
    let (_api, client) = router_showing(&[
        (&["bgp", "summary"], junk()),
        (&["vpn", "ipsec", "connections"], junk()),
    ])
    .await;
    for (err, expected) in [
        (
            client.bgp_summary().await.unwrap_err(),
            "`show bgp summary` printed neither a BGP summary nor `% BGP instance not found`",
        ),
        (
            client.ipsec_connections().await.unwrap_err(),
            "`show vpn ipsec connections` printed neither a connection table nor `IPsec not initialized`",
        ),
    ] {
        match err {
            Error::UnexpectedAnswer { endpoint, message } => {
                assert_eq!((endpoint, message.as_str()), ("show", expected));
            }
            other => panic!("{other:?}"),
        }
    }
}

// S4 of issue 32: vyos-1x `src/op_mode/vrrp.py` (`show vrrp` runs `vrrp.py --summary`,
// `op-mode-definitions/vrrp.xml.in`, both branches) prints `VRRP not configured!` and exits 0
// when no group is configured, and `VRRP is not running` and exits 0 when groups are configured
// but keepalived is down; the API answers both 200 with the text. Not configured is an empty
// list; not running is an error (the groups' states are unknown, never "no groups"); other text
// is an error too. Failed first: not running and junk both read as an empty list.
#[tokio::test]
async fn vrrp_not_running_is_not_an_empty_list() {
    for (text, expected) in [
        ("VRRP not configured!\n", Ok(0)),
        (
            "VRRP is not running\n",
            Err(
                "`show vrrp`: VRRP is not running (groups are configured but keepalived is down): their states are unknown",
            ),
        ),
        (
            "Something else entirely\n",
            Err("`show vrrp` printed neither a VRRP table nor `VRRP not configured!`"),
        ),
    ] {
        let (_api, client) = router_showing(&[(&["vrrp"], common::ok(json!(text)))]).await;
        let got = match client.vrrp_status().await {
            Ok(groups) => Ok(groups.len()),
            Err(Error::UnexpectedAnswer { message, .. }) => Err(message),
            Err(other) => panic!("{other:?}"),
        };
        assert_eq!(got, expected.map_err(str::to_owned), "{text}");
    }
}

// One pass over the text: 20 000 neighbors and 20 000 SAs read in well under a second; a
// quadratic reader would need minutes.
#[test]
fn readers_are_linear() {
    let mut bgp = String::from(
        "IPv4 Unicast Summary:\nNeighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc\n",
    );
    let mut sa = String::from(
        "Connection  State  Uptime  Bytes In/Out  Packets In/Out  Remote address  Remote ID  Proposal\n----------  -----  ------  ------------  --------------  --------------  ---------  --------\n",
    );
    for i in 0..20_000 {
        bgp.push_str(&format!("10.{}.{}.1       4      65020      1234      1240       12    0    0 01:02:03            5        7 N/A\n", i / 256, i % 256));
        sa.push_str(&format!(
            "t{i:<9}  up     1s      1B/1B         1/1             192.0.2.1       x          y\n"
        ));
    }
    let started = std::time::Instant::now();
    assert_eq!(
        parse_bgp_summary(&bgp).unwrap().families[0].neighbors.len(),
        20_000
    );
    assert_eq!(parse_ipsec_sas(&sa).unwrap().len(), 20_000);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    // Junk never panics any reader (byte offsets, short lines, multi-byte characters).
    #[test]
    fn readers_never_panic(text in "(?s)[ -~\u{e9}\u{2500}\t\n:()*,/-]{0,400}") {
        let _ = parse_wireguard(&text);
        let _ = parse_vrrp(&text);
        let _ = parse_bgp_summary(&text);
        let _ = parse_ipsec_sas(&text);
        let _ = parse_ipsec_connections(&text);
    }

    // Lines shaped like the real tables, cut and mixed, never panic either.
    #[test]
    fn table_like_junk_never_panics(
        lines in proptest::collection::vec(
            prop_oneof![
                Just("Neighbor        V         AS   MsgRcvd   MsgSent   TblVer  InQ OutQ  Up/Down State/PfxRcd   PfxSnt Desc".to_owned()),
                Just("IPv4 Unicast Summary (VRF default):".to_owned()),
                Just("BGP router identifier 1.2.3.4, local AS number".to_owned()),
                Just("---------------  -------  --------  --------------  ----------------  ----------------  ------------------  ---".to_owned()),
                Just("Connection       State    Uptime    Bytes In/Out    Packets In/Out    Remote address    Remote ID           Proposal".to_owned()),
                "[ a-z0-9.:()*/-]{0,120}",
                "[ \u{e9}\u{2500}x]{0,60}",
            ],
            0..30,
        )
    ) {
        let text = lines.join("\n");
        let _ = parse_bgp_summary(&text);
        let _ = parse_ipsec_sas(&text);
        let _ = parse_ipsec_connections(&text);
        let _ = parse_vrrp(&text);
        let _ = parse_wireguard(&text);
    }
}

// The fake router's two profiles (`tests/common`): the same client call reads FRR 9.1's summary
// on 1.4 and FRR 10's on 1.5 into the same values, and IPsec not configured is `None` on both.
#[tokio::test]
async fn bgp_and_ipsec_on_both_profiles() {
    for profile in [common::Profile::V14, common::Profile::V15] {
        let tree = cpps_vyos::ConfigTree::parse_boot(&common::config_fixture(
            "basic-api-service.config.boot",
        ))
        .unwrap();
        let (_api, client, _fake) = common::FakeRouter::new(profile, tree).start().await;
        let bgp = client.bgp_summary().await.unwrap().unwrap();
        let families: Vec<(&str, Option<&str>, usize)> = bgp
            .families
            .iter()
            .map(|f| (f.family.as_str(), f.vrf.as_deref(), f.neighbors.len()))
            .collect();
        assert_eq!(
            families,
            [
                ("IPv4 Unicast", Some("default"), 4),
                ("IPv6 Unicast", Some("default"), 2)
            ],
            "{profile:?}"
        );
        assert_eq!(client.ipsec_sas().await.unwrap(), None, "{profile:?}");
    }
}

/// A router whose `POST /show` answers `IPsec not initialized` for both IPsec readings (as the
/// refused command's message, `show_op` 400, or as text) and whose `POST /retrieve` `exists`
/// says whether `vpn ipsec` is configured.
async fn ipsec_not_initialized(
    configured: bool,
    as_text: bool,
) -> (cpps_http::test_util::MockApi, cpps_vyos::Client) {
    let answer = || {
        if as_text {
            common::ok(json!("IPsec not initialized\n"))
        } else {
            common::err(400, "IPsec not initialized\n")
        }
    };
    let (api, client) = router_showing(&[
        (&["vpn", "ipsec", "sa"], answer()),
        (&["vpn", "ipsec", "connections"], answer()),
    ])
    .await;
    common::post("/retrieve")
        .and(body_partial_json(
            json!({"op": "exists", "path": ["vpn", "ipsec"]}),
        ))
        .respond_with(common::ok(json!(configured)))
        .mount(api.server())
        .await;
    (api, client)
}

// V4 of the s42 audit of issue 32: vyos-1x `python/vyos/ipsec.py` `get_vici_sas` and
// `get_vici_connections` raise `ViciInitiateError('IPsec not initialized')` whenever
// `vici.Session()` cannot open strongSwan's socket, and `src/op_mode/ipsec.py`
// (`_get_raw_data_sas`, `_get_convert_data_connections`) turns it into `UnconfiguredSubsystem`:
// the same words when charon is down. `src/conf_mode/vpn_ipsec.py` `apply` runs `systemctl
// reload-or-restart strongswan.service` whenever `vpn ipsec` exists (`get_config` returns `None`
// only without it) and stops it otherwise, so with `vpn ipsec` configured the words mean charon
// does not answer: cannot tell, never `None` ("not configured"). Failed first: both were `None`.
#[tokio::test]
async fn ipsec_not_initialized_while_configured_is_an_error() {
    for as_text in [false, true] {
        let (_api, client) = ipsec_not_initialized(true, as_text).await;
        for err in [
            client.ipsec_sas().await.map(|_| ()).unwrap_err(),
            client.ipsec_connections().await.map(|_| ()).unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(
                text.contains("`vpn ipsec` is configured")
                    && text.contains("strongSwan (charon) is down or does not answer"),
                "{text}"
            );
        }
        let (_api, client) = ipsec_not_initialized(false, as_text).await;
        assert_eq!(client.ipsec_sas().await.unwrap(), None);
        assert_eq!(client.ipsec_connections().await.unwrap(), None);
    }
}
