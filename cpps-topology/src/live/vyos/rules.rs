//! The live network rules over what the VyOS routers report (`docs/live-invariants.md`):
//! LINK-001 (a declared cross-site link's WireGuard peer shook hands recently; a DRBD connection
//! across the link that is not `Connected` is traced to it), LINK-002 (BGP sessions
//! Established and IPsec tunnels up), LINK-003 (the link's two routers agree on their WireGuard
//! tunnel, compared by `cpps_vyos::pair`), VRRP-001 (VRRP groups MASTER or BACKUP on both routers
//! of a pair, and never MASTER on both) and VRRP-002
//! (a site's two routers agree on their VRRP groups, compared by `cpps_vyos::pair`).
//!
//! Which WireGuard peer carries a link: the topology names routers and sites, VyOS names peers,
//! so the peer of a link on the local router is the one named after the remote router or the
//! remote site (case-insensitive), else the one whose `allowed-ips` overlap a subnet the remote
//! router routes. A BGP neighbor or IPsec tunnel belongs to a link when its address is in such a
//! subnet or in the link peer's `allowed-ips`; otherwise it is reported on the router.

use cpps_vyos::pair::{self, PairKind, PairSide};
use cpps_vyos::status::bgp::configured_bgp_neighbors;
use foldhash::{HashMap, HashMapExt};

use super::facts::{VrrpFact, VyosFacts, WireGuardPeerFact};
use crate::finding::Severity;
use crate::live::facts::{DrbdConnectionFact, SiteObservation};
use crate::live::rules::{Live, LiveCheck, emit_on};
use crate::model::{ComponentRef, Link, Router, State};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[
    (RuleId("LINK-001"), link_001),
    (RuleId("LINK-002"), link_002),
    (RuleId("LINK-003"), link_003),
    (RuleId("VRRP-001"), vrrp_001),
    (RuleId("VRRP-002"), vrrp_002),
];

/// A handshake older than this is stale: VyOS's own `status: active` threshold (vyos-1x
/// `python/vyos/ifconfig/wireguard.py`, "Five minutes and the tunnel is still active"); a peer
/// that carries traffic renews its session every two minutes (WireGuard's REKEY_AFTER_TIME).
pub(crate) const HANDSHAKE_STALE_SECS: u64 = 300;

/// An address or network, as bits.
#[derive(Debug, Clone, Copy)]
struct Net {
    v6: bool,
    bits: u128,
    len: u8,
}

impl Net {
    /// `10.0.0.0/16`, `fd00::/64`, or a bare address (a host).
    fn parse(s: &str) -> Option<Self> {
        let (addr, len) = match s.trim().split_once('/') {
            Some((a, l)) => (a, Some(l.parse::<u8>().ok()?)),
            None => (s.trim(), None),
        };
        let ip: std::net::IpAddr = addr.parse().ok()?;
        // An IPv4 address fills the top 32 bits, so its prefix length counts from the top as
        // an IPv6 one does.
        let (v6, bits, max) = match ip {
            std::net::IpAddr::V4(v4) => (false, u128::from(u32::from(v4)) << 96, 32),
            std::net::IpAddr::V6(v6) => (true, u128::from(v6), 128),
        };
        let len = len.unwrap_or(max);
        (len <= max).then_some(Self { v6, bits, len })
    }

    /// Whether the two share an address.
    fn overlaps(self, other: Self) -> bool {
        if self.v6 != other.v6 {
            return false;
        }
        let len = self.len.min(other.len);
        let mask = if len == 0 {
            0
        } else {
            u128::MAX << (128 - u32::from(len))
        };
        self.bits & mask == other.bits & mask
    }
}

fn any_overlap<'a>(a: impl IntoIterator<Item = &'a String>, b: &[Net]) -> bool {
    a.into_iter()
        .filter_map(|s| Net::parse(s))
        .any(|n| b.iter().any(|m| n.overlaps(*m)))
}

/// One end of a declared link: its site, the router there, the other end.
struct LinkEnd<'a> {
    link: &'a Link,
    site: &'a str,
    local: Option<&'a Router>,
    remote: Option<&'a Router>,
    remote_site: &'a str,
    /// The subnets the remote router routes, parsed.
    remote_nets: Vec<Net>,
    /// The local router's WireGuard peer that carries the link.
    peer: Option<&'a WireGuardPeerFact>,
}

impl<'a> LinkEnd<'a> {
    fn local_name(&self) -> String {
        router_name(self.local, self.site)
    }

    /// The WireGuard peer of `facts` that carries the link: by name (`by_name`: the peers by
    /// lower-case name), else by `allowed-ips`. An enabled peer is preferred: a disabled one
    /// named for the site gives way to an enabled one routing the remote subnets (a peer
    /// replaced by another), and is kept only when none does.
    fn find_peer(
        &self,
        facts: &'a VyosFacts,
        by_name: &HashMap<String, &'a WireGuardPeerFact>,
    ) -> Option<&'a WireGuardPeerFact> {
        let named = by_name
            .get(&self.remote_site.to_ascii_lowercase())
            .or_else(|| {
                self.remote
                    .and_then(|r| by_name.get(&r.id.as_str().to_ascii_lowercase()))
            })
            .copied();
        let routing = |enabled_only: bool| {
            facts.wireguard.iter().find(|p| {
                (!enabled_only || p.disabled.is_none())
                    && any_overlap(&p.allowed_ips, &self.remote_nets)
            })
        };
        match named {
            Some(p) if p.disabled.is_none() => Some(p),
            Some(p) => routing(true).or(Some(p)),
            None => routing(true).or_else(|| routing(false)),
        }
    }

    /// Whether `address` is on the link's far side: in a subnet of the remote router or in the
    /// link peer's `allowed-ips`.
    fn carries(&self, address: &str) -> bool {
        let Some(addr) = address.split(',').find_map(Net::parse) else {
            return false;
        };
        self.remote_nets.iter().any(|n| n.overlaps(addr))
            || self.peer.is_some_and(|p| {
                p.allowed_ips
                    .iter()
                    .filter_map(|s| Net::parse(s))
                    .any(|n| n.overlaps(addr))
            })
    }
}

/// The ends of every declared (or validated) link whose site was observed through its router.
fn link_ends<'a>(live: &Live<'a>) -> Vec<(LinkEnd<'a>, &'a SiteObservation, &'a VyosFacts)> {
    let mut sites: HashMap<&str, &SiteObservation> =
        HashMap::with_capacity(live.observed.sites.len());
    for s in &live.observed.sites {
        sites.entry(s.site.as_str()).or_insert(s);
    }
    let mut peers_by_name: HashMap<&str, HashMap<String, &WireGuardPeerFact>> = HashMap::new();
    let mut out = Vec::new();
    for link in live
        .topo
        .links()
        .iter()
        .filter(|l| l.meta.state >= State::Declared)
    {
        for (here, there) in [(0, 1), (1, 0)] {
            let (site, remote_site) = (link.sites[here].as_str(), link.sites[there].as_str());
            let Some(observation) = sites.get(site).copied() else {
                continue;
            };
            let Some(facts) = observation.vyos.observed() else {
                continue;
            };
            let by_name = peers_by_name.entry(site).or_insert_with(|| {
                let mut m = HashMap::with_capacity(facts.wireguard.len());
                for p in &facts.wireguard {
                    m.entry(p.peer.to_ascii_lowercase()).or_insert(p);
                }
                m
            });
            let end_in = |s: &str| {
                link.endpoints
                    .iter()
                    .filter_map(|id| live.topo.router(id))
                    .find(|r| r.site.as_str() == s)
            };
            let remote = end_in(remote_site);
            let remote_nets = remote
                .map(|r| r.subnets.iter().filter_map(|s| Net::parse(s)).collect())
                .unwrap_or_default();
            let mut end = LinkEnd {
                link,
                site,
                local: end_in(site),
                remote,
                remote_site,
                remote_nets,
                peer: None,
            };
            end.peer = end.find_peer(facts, by_name);
            out.push((end, observation, facts));
        }
    }
    out
}

/// `2h3m` / `45s`.
fn ago(secs: u64) -> String {
    if secs >= 86_400 {
        format!("{}d{}h", secs / 86_400, (secs % 86_400) / 3600)
    } else if secs >= 3600 {
        format!("{}h{}m", secs / 3600, (secs % 3600) / 60)
    } else if secs >= 60 {
        format!("{}m{}s", secs / 60, secs % 60)
    } else {
        format!("{secs}s")
    }
}

/// The severity of a link problem: an error on a validated link, a warning on a declared one.
fn link_severity(link: &Link) -> Severity {
    if link.meta.state == State::Validated {
        Severity::Error
    } else {
        Severity::Warning
    }
}

/// The DRBD connections not `Connected` between nodes of two different sites, by the pair of
/// sites (in name order), from every site's LINSTOR facts.
fn cross_site_drbd<'a>(
    live: &Live<'a>,
) -> HashMap<(&'a str, &'a str), Vec<&'a DrbdConnectionFact>> {
    let mut out: HashMap<(&str, &str), Vec<&DrbdConnectionFact>> = HashMap::new();
    for site in &live.observed.sites {
        let Some(facts) = site.linstor.observed() else {
            continue;
        };
        for c in &facts.connections_down {
            let (Some(a), Some(b)) = (live.declared.host(&c.node), live.declared.host(&c.peer))
            else {
                continue;
            };
            let (a, b) = (a.site.as_str(), b.site.as_str());
            if a != b {
                out.entry(if a < b { (a, b) } else { (b, a) })
                    .or_default()
                    .push(c);
            }
        }
    }
    out
}

/// The reading errors of `facts` for the `show` command starting with `command`.
fn partial<'f>(facts: &'f VyosFacts, command: &str) -> Vec<&'f str> {
    facts
        .partial
        .iter()
        .filter(|p| p.starts_with(command))
        .map(String::as_str)
        .collect()
}

/// LINK-001: the WireGuard peer of each observed end of a declared link shook hands within
/// [`HANDSHAKE_STALE_SECS`]; a DRBD connection across the link that is not `Connected` is named
/// with the stale peer, in one finding.
/// Why a WireGuard peer disabled by `by` has no handshake to judge: a peer's own `disable`
/// keeps it out of the kernel (vyos-1x `python/vyos/ifconfig/wireguard.py`
/// `WireGuardIf.update` skips it, T4702); its interface's `disable` sets the interface
/// administratively down (`python/vyos/ifconfig/interface.py` `Interface.update`).
fn why_not_checked(by: &str) -> &'static str {
    if by == "disable" {
        "the kernel holds no such peer"
    } else {
        "the interface is administratively down"
    }
}

pub(crate) fn link_001(live: &Live<'_>, sink: &mut Sink<'_>) {
    let drbd = cross_site_drbd(live);
    for (end, _, facts) in link_ends(live) {
        let subject = ComponentRef::Link(end.link);
        let severity = link_severity(end.link);
        let router = end.local_name();
        let Some(peer) = end.peer else {
            let subnets = end.remote.map(|r| r.subnets.join(", ")).unwrap_or_default();
            emit_on(
                sink,
                severity,
                subject,
                format!(
                    "link {}: {router} has no WireGuard peer for site {} (none is named {}{}{})",
                    end.link.id,
                    end.remote_site,
                    end.remote_site,
                    end.remote
                        .map(|r| format!(" or {}", r.id))
                        .unwrap_or_default(),
                    if subnets.is_empty() {
                        String::new()
                    } else {
                        format!(", none allows {subnets}")
                    }
                ),
            );
            continue;
        };
        let what = format!(
            "WireGuard peer {} on {} of {router}",
            peer.peer, peer.interface
        );
        // A disabled peer or interface has no handshake due ([`why_not_checked`]).
        if let Some(by) = &peer.disabled {
            emit_on(
                sink,
                Severity::Info,
                subject,
                format!(
                    "link {}: {what} is disabled by configuration (`{by}`), so it is not checked: {}",
                    end.link.id,
                    why_not_checked(by)
                ),
            );
            continue;
        }
        if !peer.observed {
            let why = partial(
                facts,
                &format!("show interfaces wireguard {} summary", peer.interface),
            );
            emit_on(
                sink,
                Severity::Warning,
                subject,
                format!(
                    "link {}: the state of {what} is unknown{}",
                    end.link.id,
                    if why.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", why.join("; "))
                    }
                ),
            );
            continue;
        }
        let handshake = match peer.latest_handshake_secs {
            Some(s) if s <= HANDSHAKE_STALE_SECS => continue,
            Some(s) => format!("has had no handshake for {}", ago(s)),
            None => "has never had a handshake".to_owned(),
        };
        let key = if end.site < end.remote_site {
            (end.site, end.remote_site)
        } else {
            (end.remote_site, end.site)
        };
        let stuck = drbd.get(&key).map_or(&[][..], Vec::as_slice);
        let message = if stuck.is_empty() {
            format!("link {}: {what} {handshake}", end.link.id)
        } else {
            let names: Vec<String> = stuck
                .iter()
                .map(|c| format!("{} {} → {} {}", c.resource, c.node, c.peer, c.state))
                .collect();
            format!(
                "link {}: DRBD connection{} {} across the link; {what} {handshake}",
                end.link.id,
                if stuck.len() == 1 { "" } else { "s" },
                names.join(", ")
            )
        };
        emit_on(sink, severity, subject, message);
    }
}

/// The router component each site's VyOS source stands for: the first declared router of the
/// site that has a VRRP peer, else the first one.
fn site_routers<'a>(live: &Live<'a>) -> HashMap<&'a str, &'a Router> {
    let mut out: HashMap<&str, &Router> = HashMap::with_capacity(live.topo.routers().len());
    for r in live.topo.routers() {
        let slot = out.entry(r.site.as_str()).or_insert(r);
        if slot.vrrp_peer.is_none() && r.vrrp_peer.is_some() {
            *slot = r;
        }
    }
    out
}

/// How messages name the router of `site`: its id, or "the router of" the site when the
/// topology declares none there.
fn router_name(router: Option<&Router>, site: &str) -> String {
    router.map_or_else(|| format!("the router of {site}"), |r| r.id.to_string())
}

/// A site whose VyOS was observed: its facts, the component its findings are about (its router,
/// or the site when the topology declares no router there) and how messages name the router.
struct ObservedRouter<'a> {
    site: &'a str,
    facts: &'a VyosFacts,
    subject: ComponentRef<'a>,
    name: String,
}

/// Every site whose VyOS was observed, with its router.
fn observed_routers<'a>(live: &Live<'a>) -> Vec<ObservedRouter<'a>> {
    let routers = site_routers(live);
    live.observed
        .sites
        .iter()
        .filter_map(|site| {
            let facts = site.vyos.observed()?;
            let router = routers.get(site.site.as_str()).copied();
            let subject = router
                .map(ComponentRef::Router)
                .or_else(|| live.site_ref(&site.site))?;
            Some(ObservedRouter {
                site: &site.site,
                facts,
                subject,
                name: router_name(router, &site.site),
            })
        })
        .collect()
}

/// LINK-002: BGP sessions Established and IPsec tunnels up; on a link's far side the finding is
/// the link's, otherwise the router's. A neighbor shut down on purpose (`Idle (Admin)`) is not
/// reported; a configured neighbor missing from its VRF's summary and BGP configured without an
/// instance are ([`bgp_gaps`]).
pub(crate) fn link_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    let ends = link_ends(live);
    let mut ends_of: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, (end, _, _)) in ends.iter().enumerate() {
        ends_of.entry(end.site).or_default().push(i);
    }
    for ObservedRouter {
        site,
        facts,
        subject: fallback,
        name: router_name,
    } in observed_routers(live)
    {
        let mine = ends_of.get(site).map_or(&[][..], Vec::as_slice);
        let subject_of = |address: &str, named: &str| -> ComponentRef<'_> {
            mine.iter()
                .map(|&i| &ends[i].0)
                .find(|end| {
                    end.carries(address)
                        || named.eq_ignore_ascii_case(end.remote_site)
                        || end
                            .remote
                            .is_some_and(|r| named.eq_ignore_ascii_case(r.id.as_str()))
                })
                .map_or(fallback, |end| ComponentRef::Link(end.link))
        };
        for n in facts
            .bgp
            .iter()
            .flatten()
            .filter(|n| !n.established && !n.admin_down)
        {
            emit_on(
                sink,
                Severity::Warning,
                subject_of(&n.neighbor, ""),
                format!(
                    "BGP session of {router_name} to {} (AS {}, {}{}) is {} (Up/Down {})",
                    n.neighbor,
                    n.remote_as,
                    n.family,
                    n.vrf
                        .as_deref()
                        .filter(|v| *v != DEFAULT_VRF)
                        .map_or_else(String::new, |v| format!(", VRF {v}")),
                    n.state,
                    n.up_down
                ),
            );
        }
        for (address, message) in bgp_gaps(facts, &router_name) {
            let subject = address.map_or(fallback, |a| subject_of(&a, ""));
            emit_on(sink, Severity::Warning, subject, message);
        }
        for t in facts.ipsec.iter().flatten().filter(|t| !t.up) {
            emit_on(
                sink,
                Severity::Warning,
                subject_of(&t.remote_address, &t.connection),
                format!(
                    "IPsec tunnel {} of connection {} (remote {}) on {router_name} is {}",
                    t.tunnel, t.connection, t.remote_address, t.state
                ),
            );
        }
        for p in partial(facts, "show bgp")
            .into_iter()
            .chain(partial(facts, "show vpn ipsec"))
        {
            emit_on(
                sink,
                Severity::Warning,
                fallback,
                format!("{router_name}: cannot be read: {p}"),
            );
        }
    }
}

/// The second router of each site whose `vyos_peer` was observed: the router the topology
/// pairs with the site's (`vrrp_peer`) when declared, else "the second router of" the site.
fn observed_peers<'a>(live: &Live<'a>) -> Vec<ObservedRouter<'a>> {
    let routers = site_routers(live);
    live.observed
        .sites
        .iter()
        .filter_map(|site| {
            let facts = site.vyos_peer.observed()?;
            let first = routers.get(site.site.as_str()).copied();
            let second = first
                .and_then(|r| r.vrrp_peer.as_ref())
                .and_then(|id| live.topo.router(id));
            let subject = second
                .or(first)
                .map(ComponentRef::Router)
                .or_else(|| live.site_ref(&site.site))?;
            Some(ObservedRouter {
                site: &site.site,
                facts,
                subject,
                name: second.map_or_else(
                    || format!("the second router of {}", site.site),
                    |r| r.id.to_string(),
                ),
            })
        })
        .collect()
}

/// The name FRR gives the default VRF's instance (`VRF_DEFAULT_NAME`, FRRouting `lib/vrf.h`).
const DEFAULT_VRF: &str = "default";

/// LINK-002's comparison of the configured BGP neighbors
/// (`cpps_vyos::status::bgp::configured_bgp_neighbors`) with the summary of every VRF (`show
/// bgp vrf all summary`, FRRouting `bgpd/bgp_vty.c` `bgp_show_all_instances_summary_vty`), VRF
/// by VRF: an activated neighbor missing from its VRF's part of it (FRR holds no session for
/// it; an instance missing from the text has none at all), and BGP configured while FRR answers
/// `% BGP instance not found`. Each with the neighbor's address when the finding is about one.
/// Without the router's configuration it cannot tell, and says so: FRR's summary lists only
/// the sessions it holds, so the summary alone cannot show a neighbor missing from it.
fn bgp_gaps(facts: &VyosFacts, router: &str) -> Vec<(Option<String>, String)> {
    let Some(side) = facts.side.get() else {
        return vec![(
            None,
            format!(
                "cannot tell whether every BGP neighbor configured on {router} holds a \
                 session: its configuration was not read"
            ),
        )];
    };
    let configured = configured_bgp_neighbors(&side.tree);
    let activated: Vec<_> = configured.iter().filter(|c| c.activated).collect();
    let mut out = Vec::new();
    match &facts.bgp {
        // A failed reading is said by the `partial` lines.
        None if partial(facts, "show bgp").is_empty() && !activated.is_empty() => {
            let mut vrfs: Vec<&str> = activated
                .iter()
                .map(|c| c.vrf.as_deref().unwrap_or(DEFAULT_VRF))
                .collect();
            vrfs.sort_unstable();
            vrfs.dedup();
            let plural = |n: usize| if n == 1 { "" } else { "s" };
            let (n, v) = (activated.len(), vrfs.len());
            out.push((
                None,
                format!(
                    "BGP is configured on {router} ({n} neighbor{} in {v} VRF{}) but FRR \
                     answers `% BGP instance not found`: no session runs",
                    plural(n),
                    plural(v)
                ),
            ));
        }
        None => {}
        Some(listed) => {
            for c in activated {
                let vrf = c.vrf.as_deref().unwrap_or(DEFAULT_VRF);
                let held = listed
                    .iter()
                    .any(|n| n.vrf.as_deref().unwrap_or(DEFAULT_VRF) == vrf && c.is(&n.neighbor));
                if !held {
                    let within = c
                        .vrf
                        .as_deref()
                        .map_or_else(String::new, |v| format!(" in VRF {v}"));
                    out.push((
                        Some(c.neighbor.clone()),
                        format!(
                            "BGP neighbor {} of {router}{within} is configured but not in `show \
                             bgp vrf all summary`: FRR holds no session for it",
                            c.neighbor
                        ),
                    ));
                }
            }
        }
    }
    out
}

/// VRRP-001: every VRRP group of a router, the second router of a pair (`vyos_peer`)
/// included, is MASTER or BACKUP; FAULT, INIT and any other word are findings (unknown is never
/// healthy), and so is a state that could not be read. The two routers of a pair are judged
/// together group by group ([`pair_states`]): MASTER on both is a split brain, and neither
/// MASTER means nobody holds the virtual addresses.
pub(crate) fn vrrp_001(live: &Live<'_>, sink: &mut Sink<'_>) {
    let firsts = observed_routers(live);
    let seconds = observed_peers(live);
    for first in &firsts {
        if let Some(second) = seconds.iter().find(|s| s.site == first.site) {
            pair_states(first, second, sink);
        }
    }
    for router in firsts.iter().chain(&seconds) {
        group_states(router, sink);
    }
}

/// A group's identity on the wire: keepalived reads adverts on the group's interface and
/// finds the group by the header's VRID (acassen/keepalived `keepalived/vrrp/vrrp_scheduler.c`
/// `vrrp_dispatcher_read`, `rb_find(&hd->vrid, &sock->rb_vrid, …)`); the name never travels.
fn wire_id(g: &VrrpFact) -> Option<(&str, u8)> {
    Some((g.interface.as_deref()?, g.vrid?))
}

/// Whether a group's virtual addresses are IPv6, `None` without any. A group holds one family
/// only, and a VRID may be used once per family on an interface (vyos-1x
/// `src/conf_mode/high-availability.py` `verify`; keepalived keeps an IPv4 and an IPv6 socket),
/// so the family is part of the group's identity on the wire.
fn is_v6(g: &VrrpFact) -> Option<bool> {
    g.addresses.first().map(|a| a.contains(':'))
}

/// Whether two groups may be of one address family (unknown on either side may).
fn same_family(a: &VrrpFact, b: &VrrpFact) -> bool {
    match (is_v6(a), is_v6(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// The group of `other` that `g` speaks with: the same interface and VRID; else the same VRID
/// on an interface the other router names differently (interface names are each router's own:
/// `eth1` on one may be `eth2` or a bond on the other), with the same name or, since the group
/// name is a local tag too (vyos-1x `high-availability.xml.in`), a shared virtual address; or,
/// where either lacks interface or VRID, the same name. Groups of different address families
/// ([`is_v6`]) are never paired.
fn counterpart<'f>(g: &VrrpFact, other: &'f VyosFacts) -> Option<&'f VrrpFact> {
    let same_wire =
        |o: &&VrrpFact| wire_id(g).is_some() && wire_id(g) == wire_id(o) && same_family(g, o);
    let same_vrid = |o: &&VrrpFact| g.vrid.is_some() && o.vrid == g.vrid && same_family(g, o);
    let renamed_nic = |o: &&VrrpFact| same_vrid(o) && o.group == g.group;
    let renamed_both = |o: &&VrrpFact| same_vrid(o) && shares_address(g, o);
    let by_name =
        |o: &&VrrpFact| (wire_id(g).is_none() || wire_id(o).is_none()) && o.group == g.group;
    (other.vrrp.iter().find(same_wire))
        .or_else(|| other.vrrp.iter().find(renamed_nic))
        .or_else(|| other.vrrp.iter().find(renamed_both))
        .or_else(|| other.vrrp.iter().find(by_name))
}

/// Whether two groups have a virtual address in common, prefix lengths aside
/// (`10.0.0.1/24` and `10.0.0.1` are one address).
fn shares_address(a: &VrrpFact, b: &VrrpFact) -> bool {
    let ip = |s: &String| s.split('/').next().unwrap_or_default().to_owned();
    a.addresses
        .iter()
        .any(|x| b.addresses.iter().any(|y| ip(x) == ip(y)))
}

/// VRRP-001's judgement of the two routers of a pair, group by group, each group matched with
/// its [`counterpart`] (names that differ are both said). MASTER on both is a split brain:
/// keepalived's `vrrp_state_become_master` (`keepalived/vrrp/vrrp.c`) adds the virtual
/// addresses on each. Neither MASTER, both states read, means neither holds them: a BACKUP
/// stays BACKUP while adverts come (`vrrp_state_backup`), and FAULT or INIT holds nothing
/// (states 0-3 of vyos-1x `python/vyos/ifconfig/vrrp.py`); the states are named. A state not
/// read is [`group_states`]' finding alone.
fn pair_states(first: &ObservedRouter<'_>, second: &ObservedRouter<'_>, sink: &mut Sink<'_>) {
    let (a, b) = (&first.name, &second.name);
    for g in &first.facts.vrrp {
        let Some(o) = counterpart(g, second.facts) else {
            continue;
        };
        if g.disabled.is_some() || o.disabled.is_some() {
            continue;
        }
        let (Some(sa), Some(sb)) = (g.state.as_deref(), o.state.as_deref()) else {
            continue;
        };
        let mut label = format!("VRRP group {}", g.group);
        if o.group != g.group {
            label = format!("VRRP group {} of {a} ({} on {b})", g.group, o.group);
        }
        match (wire_id(g), wire_id(o)) {
            (Some((i, vrid)), Some((j, _))) if i == j => {
                label.push_str(&format!(" (VRID {vrid} on {i})"));
            }
            (Some((i, vrid)), Some((j, _))) => {
                label.push_str(&format!(" (VRID {vrid} on {i} of {a}, {j} of {b})"));
            }
            _ => {}
        }
        let message = match (sa, sb) {
            ("MASTER", "MASTER") => format!(
                "{label} is MASTER on both {a} and {b}: a split brain, both hold its virtual \
                 addresses"
            ),
            ("MASTER", _) | (_, "MASTER") => continue,
            ("BACKUP", "BACKUP") => format!(
                "{label} is BACKUP on both {a} and {b}: neither holds its virtual addresses"
            ),
            _ => format!(
                "{label} is MASTER on neither router: {sa} on {a}, {sb} on {b}, so neither \
                 holds its virtual addresses"
            ),
        };
        emit_on(sink, Severity::Warning, first.subject, message);
    }
}

/// VRRP-001's judgement of one router's group states.
fn group_states(router: &ObservedRouter<'_>, sink: &mut Sink<'_>) {
    let ObservedRouter {
        facts,
        subject,
        name,
        ..
    } = router;
    let failed = partial(facts, "show vrrp");
    for g in &facts.vrrp {
        let on = g
            .interface
            .as_deref()
            .map(|i| format!(" on {i}"))
            .unwrap_or_default();
        // keepalived runs no disabled group (vyos-1x `data/templates/high-availability/
        // keepalived.conf.j2`), so it has no state: said, not judged.
        if let Some(by) = &g.disabled {
            emit_on(
                sink,
                Severity::Info,
                *subject,
                format!(
                    "VRRP group {}{on} of {name} is disabled by configuration (`{by}`), so it is not checked: keepalived does not run it",
                    g.group
                ),
            );
            continue;
        }
        match g.state.as_deref() {
            Some("MASTER" | "BACKUP") => {}
            Some(state) => emit_on(
                sink,
                Severity::Warning,
                *subject,
                format!("VRRP group {}{on} of {name} is {state}", g.group),
            ),
            None => emit_on(
                sink,
                Severity::Warning,
                *subject,
                format!(
                    "the state of VRRP group {}{on} of {name} is unknown{}",
                    g.group,
                    if failed.is_empty() {
                        " (not in `show vrrp`)".to_owned()
                    } else {
                        format!(" ({})", failed.join("; "))
                    }
                ),
            ),
        }
    }
}

/// LINK-003: the two routers of a declared cross-site link agree on their WireGuard tunnel:
/// each has a peer carrying the other's interface public key, with `allowed-ips` covering the
/// other's addresses and the other's listening port (`cpps_vyos::pair::compare_wireguard`, after
/// vyos-1x `interfaces_wireguard.xml.in`). What the configurations cannot settle (a key not
/// read, an endpoint behind NAT) is "cannot tell". An end not observed is STATE-002's.
pub(crate) fn link_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    let side_of = |site: &str| -> Option<&PairSide> {
        live.observed
            .sites
            .iter()
            .find(|s| s.site == site)
            .and_then(|s| s.vyos.observed())
            .and_then(|f| f.side.get())
    };
    for link in live
        .topo
        .links()
        .iter()
        .filter(|l| l.meta.state >= State::Declared)
    {
        let (Some(a), Some(b)) = (
            side_of(link.sites[0].as_str()),
            side_of(link.sites[1].as_str()),
        ) else {
            continue;
        };
        let subject = ComponentRef::Link(link);
        match pair::compare_wireguard(a, b) {
            Ok(findings) => {
                for f in findings {
                    let (severity, prefix) = match f.kind {
                        PairKind::Mismatch => (link_severity(link), ""),
                        _ => (Severity::Warning, "cannot tell: "),
                    };
                    let message = format!("link {}: {prefix}{}", link.id, f.message);
                    emit_on(sink, severity, subject, message);
                }
            }
            Err(e) => emit_on(
                sink,
                Severity::Warning,
                subject,
                format!(
                    "link {}: the two routers' WireGuard configurations cannot be compared: {e}",
                    link.id
                ),
            ),
        }
    }
}

/// VRRP-002: where a site declares the second router of a VRRP pair (`vyos_peer`), the two
/// routers agree on their VRRP groups (VRID, virtual addresses, authentication, preemption,
/// different priorities), compared by `cpps_vyos::pair::compare_vrrp`. A site with one router
/// cannot tell: the documents declare one router per site and VRRP for VyOS as desired, so no
/// pair is there to compare (info), unless the router already runs VRRP groups, whose other
/// half is then unseen (warning).
pub(crate) fn vrrp_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    let routers = site_routers(live);
    for router in observed_routers(live) {
        let Some(site) = live.observed.sites.iter().find(|s| s.site == router.site) else {
            continue;
        };
        let subject = router.subject;
        let name = &router.name;
        if !site.vyos_peer.is_configured() {
            let declared = routers.get(router.site).and_then(|r| r.vrrp_peer.as_ref());
            let (severity, why) = match declared {
                Some(peer) => (
                    Severity::Warning,
                    format!(
                        "the topology pairs it with {peer}, but the endpoints file names no `vyos_peer` for site {}",
                        router.site
                    ),
                ),
                None if !router.facts.vrrp.is_empty() => (
                    Severity::Warning,
                    "it runs VRRP groups, but the site declares no second router (`vyos_peer`)"
                        .to_owned(),
                ),
                None => (
                    Severity::Info,
                    "one router is declared at the site".to_owned(),
                ),
            };
            emit_on(
                sink,
                severity,
                subject,
                format!("cannot tell whether the VRRP pair of {name} agrees: {why}"),
            );
            continue;
        }
        let sides = (router.facts.side.get(), site.vyos_peer.observed());
        let (Some(a), Some(b)) = (sides.0, sides.1.and_then(|f| f.side.get())) else {
            emit_on(
                sink,
                Severity::Warning,
                subject,
                format!(
                    "cannot tell whether the VRRP pair of {name} agrees: a router of the pair was not read"
                ),
            );
            continue;
        };
        match pair::compare_vrrp(a, b) {
            Ok(findings) => {
                for f in findings {
                    let (severity, prefix) = match f.kind {
                        PairKind::Mismatch => (Severity::Warning, ""),
                        _ => (Severity::Warning, "cannot tell: "),
                    };
                    emit_on(
                        sink,
                        severity,
                        subject,
                        format!("VRRP pair of {name}: {prefix}{}", f.message),
                    );
                }
            }
            Err(e) => emit_on(
                sink,
                Severity::Warning,
                subject,
                format!("the VRRP configurations of {name}'s pair cannot be compared: {e}"),
            ),
        }
    }
}
