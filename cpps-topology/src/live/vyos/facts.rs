//! What a VyOS router reports, in a shape independent of `cpps-vyos`.

use std::fmt;
use std::sync::Arc;

use cpps_vyos::pair::PairSide;
use serde::Serialize;

/// A VRRP group on a router.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VrrpFact {
    /// Group name.
    pub group: String,
    /// Interface.
    pub interface: Option<String>,
    /// The VRID (`vrid`): with the interface, what identifies the group on the wire.
    pub vrid: Option<u8>,
    /// Virtual addresses.
    pub addresses: Vec<String>,
    /// Its live state as `show vrrp` prints it (`MASTER`, `BACKUP`, `FAULT`, `INIT`, or any
    /// other word, kept); `None` when not read (the reading failed, or the group is not in
    /// `show vrrp`).
    pub state: Option<String>,
    /// The configuration node that disables the group, when one does: `disable` (the group's
    /// own) or `high-availability disable` (all of VRRP). keepalived does not run it, so it
    /// has no state to judge.
    pub disabled: Option<String>,
}

/// One WireGuard peer of a router: its configuration and its live state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireGuardPeerFact {
    /// The interface (`wg0`).
    pub interface: String,
    /// The peer's name in the configuration.
    pub peer: String,
    /// Its `allowed-ips` (configuration).
    pub allowed_ips: Vec<String>,
    /// Its configured `address` (the remote end), when set.
    pub address: Option<String>,
    /// Whether the live state was read (`show interfaces wireguard IFACE summary`): without it
    /// nothing is known of the handshake.
    pub observed: bool,
    /// Seconds since the latest handshake; `None`: none ever (or not observed).
    pub latest_handshake_secs: Option<u64>,
    /// The configuration node that disables the peer, when one does: `disable` (the peer's
    /// own) or `interfaces wireguard IFACE disable` (its interface). The kernel then holds no
    /// session for it, so it has no handshake to judge.
    pub disabled: Option<String>,
}

/// One BGP neighbor as the router's summary reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BgpNeighborFact {
    /// The VRF of the instance FRR lists the neighbor under (`default`, `blue`), as
    /// `show bgp vrf all summary` heads it; `None`: not printed, read as the default VRF.
    pub vrf: Option<String>,
    /// The address family (`IPv4 Unicast`).
    pub family: String,
    /// The neighbor's address.
    pub neighbor: String,
    /// Its AS.
    pub remote_as: String,
    /// The session state as FRR prints it (`Established`, `Active`, `Idle (Admin)`, …).
    pub state: String,
    /// Whether it is Established (an unknown state is not).
    pub established: bool,
    /// Whether it is shut down on purpose (`Idle (Admin)`).
    pub admin_down: bool,
    /// `Up/Down` as printed.
    pub up_down: String,
}

/// One IPsec tunnel (CHILD_SA) as `show vpn ipsec connections` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IpsecTunnelFact {
    /// The IKE connection (the site-to-site peer).
    pub connection: String,
    /// The tunnel.
    pub tunnel: String,
    /// The remote address(es), comma-separated.
    pub remote_address: String,
    /// `up`, `down` or any other word, kept.
    pub state: String,
    /// Whether it is up (an unknown state is not).
    pub up: bool,
}

/// What one site's VyOS router reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VyosFacts {
    /// The router.
    pub server: String,
    /// `system host-name`.
    pub host_name: Option<String>,
    /// VRRP groups.
    pub vrrp: Vec<VrrpFact>,
    /// WireGuard peers (`interface/peer`).
    pub wireguard_peers: Vec<String>,
    /// WireGuard peers with their live state.
    pub wireguard: Vec<WireGuardPeerFact>,
    /// BGP neighbors; `None`: no BGP instance on the router (or the summary could not be read:
    /// see `partial`).
    pub bgp: Option<Vec<BgpNeighborFact>>,
    /// IPsec tunnels; `None`: IPsec is not configured (or could not be read: see `partial`).
    pub ipsec: Option<Vec<IpsecTunnelFact>>,
    /// Parts that could not be read and did not stop the observation (one WireGuard
    /// interface's state, the VRRP, BGP or IPsec reading), each with its error.
    pub partial: Vec<String>,
    /// The router's configuration and its interfaces' public keys, for the rules that compare
    /// two routers with `cpps-vyos` itself (LINK-003); not serialised.
    #[serde(skip)]
    pub side: RouterSide,
}

/// One router as `cpps_vyos::pair` compares it. Its configuration holds secrets (private keys,
/// VRRP passwords), so Debug prints none of it; two are equal when they are the same reading.
#[derive(Clone, Default)]
pub struct RouterSide(Option<Arc<PairSide>>);

impl RouterSide {
    /// A side read from a router.
    pub fn new(side: PairSide) -> Self {
        Self(Some(Arc::new(side)))
    }

    /// The side; `None` when the facts were built without one.
    pub fn get(&self) -> Option<&PairSide> {
        self.0.as_deref()
    }
}

impl PartialEq for RouterSide {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for RouterSide {}

impl fmt::Debug for RouterSide {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(side) => write!(f, "RouterSide({})", side.label),
            None => f.write_str("RouterSide(none)"),
        }
    }
}
