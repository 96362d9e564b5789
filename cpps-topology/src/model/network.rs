//! Network: VyOS routers, Traefik ingresses, links between sites.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::{GuestId, HostId, LinkId, Meta, RouterId, SiteId, State, TraefikId};

/// A VyOS router.
#[derive(Clone, Debug, PartialEq)]
pub struct Router {
    /// Id.
    pub id: RouterId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The host it runs on directly (bare metal or the host's own network stack), if modelled.
    /// Location: `meta.at("host")`.
    pub host: Option<HostId>,
    /// The guest (VM) it runs in, if modelled. Location: `meta.at("guest")`.
    pub guest: Option<GuestId>,
    /// Its VRRP peer: routers joined by `vrrp_peer` (in either direction) form one VRRP group.
    /// Location: `meta.at("vrrp_peer")`.
    pub vrrp_peer: Option<RouterId>,
    /// Its WireGuard peers. Locations: `meta.at("wireguard_peers[i]")`.
    pub wireguard_peers: Vec<RouterId>,
    /// Subnets it routes (`192.168.10.0/23`).
    pub subnets: Vec<String>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// A Traefik ingress.
#[derive(Clone, Debug, PartialEq)]
pub struct Traefik {
    /// Id.
    pub id: TraefikId,
    /// Its site. Location: `meta.at("site")`.
    pub site: SiteId,
    /// The guest it runs in, if modelled. Location: `meta.at("guest")`.
    pub guest: Option<GuestId>,
    /// The host it runs on directly, if modelled. Location: `meta.at("host")`.
    pub host: Option<HostId>,
    /// Its address.
    pub address: Option<IpAddr>,
    /// Declared HA. Location: `meta.at("ha")`.
    pub ha: bool,
    /// The state of the `ha` property when it lags the component's (traefik-sp: `declared`).
    pub ha_state: Option<State>,
    /// Starts on boot.
    pub on_boot: bool,
    /// State, note, use case, locations.
    pub meta: Meta,
}

/// Kind of a cross-site link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum LinkKind {
    /// A WireGuard tunnel between routers.
    Wireguard,
}

/// A link between two sites.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    /// Id.
    pub id: LinkId,
    /// Kind.
    pub kind: LinkKind,
    /// The two sites it joins. Locations: `meta.at("sites[0]")`, `meta.at("sites[1]")`.
    pub sites: [SiteId; 2],
    /// The routers at its ends. Locations: `meta.at("endpoints[i]")`.
    pub endpoints: Vec<RouterId>,
    /// The network it runs over (`UnespNet`).
    pub over: Option<String>,
    /// State, note, use case, locations.
    pub meta: Meta,
}

impl Link {
    /// Whether the link joins sites `a` and `b` (in either order).
    pub fn joins(&self, a: &SiteId, b: &SiteId) -> bool {
        (&self.sites[0] == a && &self.sites[1] == b) || (&self.sites[0] == b && &self.sites[1] == a)
    }
}
