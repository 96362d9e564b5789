//! The operational readings of `cpps_vyos::status`, on text written as VyOS's printers write it:
//! `WireGuardOperational.show_interface` in vyos-1x (`sagitta`) `python/vyos/ifconfig/wireguard.py`
//! (a peer that never shook hands gets neither `latest handshake` nor `status`; `latest
//! handshake` is Python's `str(timedelta)`; transfer through `hurry.filesize` `alternative`) and
//! `VRRP.format` in `python/vyos/ifconfig/vrrp.py` (`tabulate`, headers Name, Interface, VRID,
//! State, Priority, Last Transition).

use std::time::Duration;

use cpps_vyos::status::{VrrpState, parse_vrrp, parse_wireguard};

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
