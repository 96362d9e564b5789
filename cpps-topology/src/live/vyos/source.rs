//! VyOS: the router's host name, VRRP groups and their states, WireGuard peers and their
//! handshakes, BGP neighbors and IPsec tunnels.

use async_trait::async_trait;
use cpps_vyos::status::{BgpSummary, IpsecConnection, VrrpStatus, WireGuardStatus};
use cpps_vyos::{Client, ConfigTree};

use cpps_vyos::pair::PairSide;

use crate::live::facts::{
    BgpNeighborFact, IpsecTunnelFact, RouterSide, SourceFailure, SourceKind, VrrpFact, VyosFacts,
    WireGuardPeerFact, error_chain,
};
use crate::live::source::Source;

/// A site's VyOS router, read through [`cpps_vyos::Client::config_tree`]
/// (`POST /retrieve`, `showConfig`) and its operational readings through `POST /show`:
/// [`Client::wireguard_summary`] per WireGuard interface (the one command that prints its
/// peers on a real router), [`Client::vrrp_status`] when VRRP is
/// configured, [`Client::bgp_summary_all_vrfs`] and [`Client::ipsec_connections`].
///
/// The configuration is required (without it the source failed); each reading that fails is
/// one line of [`VyosFacts::partial`] and the rest is kept. A router without BGP or IPsec is
/// not an error: it says so itself (FRR's `% BGP instance not found`, vyos-1x
/// `src/op_mode/ipsec.py`'s `IPsec not initialized`), and the facts hold `None`. Those IPsec
/// words also come when charon is down; with `vpn ipsec` configured the client reads them as a
/// failed reading, one line of [`VyosFacts::partial`], which LINK-002 reports.
#[derive(Debug, Clone)]
pub struct VyosSource {
    client: Client,
    endpoint: String,
}

impl VyosSource {
    /// A source over `client`, reported as `endpoint`.
    pub fn new(client: Client, endpoint: impl Into<String>) -> Self {
        Self {
            client,
            endpoint: endpoint.into(),
        }
    }
}

#[async_trait]
impl Source<VyosFacts> for VyosSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Vyos
    }

    fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    async fn observe(&self) -> Result<VyosFacts, SourceFailure> {
        let tree = self
            .client
            .config_tree()
            .await
            .map_err(|e| SourceFailure::from_error(SourceKind::Vyos, &self.endpoint, &e))?;
        let mut facts = vyos_facts(&tree)
            .map_err(|e| SourceFailure::from_error(SourceKind::Vyos, &self.endpoint, &e))?;
        facts.server = self.endpoint.clone();
        let mut interfaces: Vec<String> = facts
            .wireguard
            .iter()
            .map(|p| p.interface.clone())
            .collect();
        interfaces.dedup();
        let mut keys = std::collections::BTreeMap::new();
        for interface in interfaces {
            match self.client.wireguard_summary(&interface).await {
                Ok(status) => {
                    if let Some(key) = &status.public_key {
                        keys.insert(interface.clone(), key.clone());
                    }
                    apply_wireguard(&mut facts, &status);
                }
                Err(e) => facts.partial.push(format!(
                    "show interfaces wireguard {interface} summary: {}",
                    error_chain(&e)
                )),
            }
        }
        // With every group disabled keepalived runs none (or is stopped), so there is no state
        // to read and a failed reading would say nothing.
        if facts.vrrp.iter().any(|g| g.disabled.is_none()) {
            match self.client.vrrp_status().await {
                Ok(groups) => apply_vrrp(&mut facts, &groups),
                Err(e) => facts
                    .partial
                    .push(format!("show vrrp: {}", error_chain(&e))),
            }
        }
        // Every VRF's instance, so LINK-002 can judge each VRF's neighbors (`show bgp
        // summary` prints the default one only).
        match self.client.bgp_summary_all_vrfs().await {
            Ok(summary) => facts.bgp = summary.as_ref().map(bgp_facts),
            Err(e) => facts
                .partial
                .push(format!("show bgp vrf all summary: {}", error_chain(&e))),
        }
        match self.client.ipsec_connections().await {
            Ok(connections) => facts.ipsec = connections.as_deref().map(ipsec_facts),
            Err(e) => facts
                .partial
                .push(format!("show vpn ipsec connections: {}", error_chain(&e))),
        }
        let label = facts
            .host_name
            .clone()
            .unwrap_or_else(|| self.endpoint.clone());
        facts.side = RouterSide::new(PairSide::new(&label, tree, keys));
        Ok(facts)
    }
}

/// The facts of a router configuration (no secret is kept: keys and passwords are dropped).
/// The live parts (handshakes, VRRP states, BGP, IPsec) are empty: [`VyosSource`] fills them.
pub fn vyos_facts(tree: &ConfigTree) -> Result<VyosFacts, cpps_vyos::Error> {
    let interfaces = tree.wireguard()?;
    Ok(VyosFacts {
        server: String::new(),
        host_name: tree.host_name().map(ToOwned::to_owned),
        vrrp: tree
            .vrrp_groups()?
            .into_iter()
            .map(|g| VrrpFact {
                disabled: group_disabled(tree, &g.name),
                group: g.name,
                interface: g.interface,
                vrid: g.vrid,
                addresses: g.addresses,
                state: None,
            })
            .collect(),
        wireguard_peers: interfaces
            .iter()
            .flat_map(|i| i.peers.iter().map(|p| format!("{}/{}", i.name, p.name)))
            .collect(),
        wireguard: interfaces
            .into_iter()
            .flat_map(|i| {
                let name = i.name;
                let down = interface_disabled(tree, &name);
                i.peers.into_iter().map(move |p| WireGuardPeerFact {
                    interface: name.clone(),
                    disabled: if p.disabled {
                        Some("disable".to_owned())
                    } else {
                        down.clone()
                    },
                    peer: p.name,
                    allowed_ips: p.allowed_ips,
                    address: p.address,
                    observed: false,
                    latest_handshake_secs: None,
                })
            })
            .collect(),
        bgp: None,
        ipsec: None,
        partial: Vec::new(),
        side: RouterSide::default(),
    })
}

/// What disables VRRP group `name`, if anything: its own `disable` (vyos-1x
/// `interface-definitions/high-availability.xml.in`; `data/templates/high-availability/
/// keepalived.conf.j2` writes no such group, so `show vrrp` has no row for it), else
/// `high-availability disable` (`src/conf_mode/high-availability.py` `apply` stops keepalived).
fn group_disabled(tree: &ConfigTree, name: &str) -> Option<String> {
    if tree.exists(&["high-availability", "vrrp", "group", name, "disable"]) {
        Some("disable".to_owned())
    } else if tree.exists(&["high-availability", "disable"]) {
        Some("high-availability disable".to_owned())
    } else {
        None
    }
}

/// What disables every peer of WireGuard interface `name`, if anything: the interface's own
/// `disable` (vyos-1x `interface-definitions/interfaces_wireguard.xml.in`), which sets it
/// administratively down (`python/vyos/ifconfig/interface.py` `Interface.update`).
fn interface_disabled(tree: &ConfigTree, name: &str) -> Option<String> {
    tree.exists(&["interfaces", "wireguard", name, "disable"])
        .then(|| format!("interfaces wireguard {name} disable"))
}

/// Marks the peers of `status.interface` as observed, with their handshakes. A configured peer
/// that the summary does not list is observed with no handshake: both printers list the peers
/// the kernel holds (`wg show` on 1.4; on 1.5 the configured peers the kernel knows), so an
/// unlisted one has no session.
pub fn apply_wireguard(facts: &mut VyosFacts, status: &WireGuardStatus) {
    let live: std::collections::HashMap<&str, _> = status
        .peers
        .iter()
        .map(|p| (p.name.as_str(), p.latest_handshake))
        .collect();
    for peer in facts
        .wireguard
        .iter_mut()
        .filter(|p| p.interface == status.interface)
    {
        peer.observed = true;
        peer.latest_handshake_secs = live
            .get(peer.peer.as_str())
            .copied()
            .flatten()
            .map(|d| d.as_secs());
    }
}

/// Sets each configured group's live state from `show vrrp` (by group name and interface).
pub fn apply_vrrp(facts: &mut VyosFacts, groups: &[VrrpStatus]) {
    let mut by_interface: std::collections::HashMap<(&str, &str), &VrrpStatus> =
        std::collections::HashMap::with_capacity(groups.len());
    let mut by_name: std::collections::HashMap<&str, &VrrpStatus> =
        std::collections::HashMap::with_capacity(groups.len());
    for g in groups {
        by_interface
            .entry((g.group.as_str(), g.interface.as_str()))
            .or_insert(g);
        by_name.entry(g.group.as_str()).or_insert(g);
    }
    for group in &mut facts.vrrp {
        let key = (
            group.group.as_str(),
            group.interface.as_deref().unwrap_or(""),
        );
        group.state = by_interface
            .get(&key)
            .or_else(|| by_name.get(group.group.as_str()))
            .map(|g| vrrp_state_word(&g.state));
    }
}

fn vrrp_state_word(state: &cpps_vyos::status::VrrpState) -> String {
    use cpps_vyos::status::VrrpState;
    match state {
        VrrpState::Master => "MASTER".to_owned(),
        VrrpState::Backup => "BACKUP".to_owned(),
        VrrpState::Fault => "FAULT".to_owned(),
        VrrpState::Init => "INIT".to_owned(),
        VrrpState::Unknown(s) => s.clone(),
        _ => format!("{state:?}"),
    }
}

/// Every neighbor of every address family of a BGP summary.
pub fn bgp_facts(summary: &BgpSummary) -> Vec<BgpNeighborFact> {
    summary
        .neighbors()
        .map(|(family, n)| BgpNeighborFact {
            vrf: family.vrf.clone(),
            family: family.family.clone(),
            neighbor: n.neighbor.clone(),
            remote_as: n.remote_as.clone(),
            state: n.state.as_str().to_owned(),
            established: n.state.is_established(),
            admin_down: n.state == cpps_vyos::status::BgpState::IdleAdmin,
            up_down: n.up_down.clone(),
        })
        .collect()
}

/// The tunnels (CHILD_SAs) of `show vpn ipsec connections`, each with its IKE connection (the
/// row before it of type IKE).
pub fn ipsec_facts(rows: &[IpsecConnection]) -> Vec<IpsecTunnelFact> {
    let mut ike = String::new();
    let mut out = Vec::new();
    for row in rows {
        if !row.is_tunnel() {
            ike.clone_from(&row.name);
            continue;
        }
        out.push(IpsecTunnelFact {
            connection: ike.clone(),
            tunnel: row.name.clone(),
            remote_address: row.remote_address.clone(),
            state: row.state.as_str().to_owned(),
            up: row.state.is_up(),
        });
    }
    out
}
