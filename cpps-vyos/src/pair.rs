//! The two routers of a site as a pair: their VRRP groups and the WireGuard tunnel between them
//! compared, as typed findings ([`compare`]). Secrets are compared, never shown.
//!
//! Sources: vyos-1x `interface-definitions/high-availability.xml.in` (`vrrp group NAME`: `vrid`,
//! `address`, `priority` defaulting to 100, `authentication type`/`password`, `no-preempt`,
//! `advertise-interval` defaulting to 1, `peer-address`, `hello-source-address`; `vrrp
//! global-parameters version`), as `data/templates/high-availability/keepalived.conf.j2` hands
//! them to keepalived, judged by what keepalived does with them (acassen/keepalived
//! `keepalived/vrrp/vrrp.c`), and
//! `interfaces_wireguard.xml.in` (`peer NAME`: `public-key`, `allowed-ips`, `address` and `port`
//! of the endpoint; the interface's `port`). The configuration holds only an interface's
//! private key, so its public key comes from the live summary
//! (`show interfaces wireguard NAME summary`: `public key:` in both printers; [`read_side`]).

use std::collections::{BTreeMap, BTreeSet};
use std::net::IpAddr;

use secrecy::ExposeSecret;

use crate::config::views::{VrrpGroup, WireGuardInterface};
use crate::{Client, ConfigTree, Error};

/// VRRP's priority when none is set (`high-availability.xml.in`, `defaultValue` 100).
const DEFAULT_PRIORITY: u8 = 100;

/// One router of the pair.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct PairSide {
    /// Its name in the findings.
    pub label: String,
    /// Its running configuration.
    pub tree: ConfigTree,
    /// Each WireGuard interface's public key, from its live summary; an interface missing here
    /// cannot be matched.
    pub wireguard_keys: BTreeMap<String, String>,
}

impl PairSide {
    /// A side from its configuration and its interfaces' public keys.
    pub fn new(label: &str, tree: ConfigTree, wireguard_keys: BTreeMap<String, String>) -> Self {
        Self {
            label: label.to_owned(),
            tree,
            wireguard_keys,
        }
    }
}

/// Reads one side from a router: `POST /retrieve` `showConfig`, then `POST /show`
/// `interfaces wireguard NAME summary` for each configured interface (one that cannot be read
/// is left out of the keys, so its tunnel reads as "cannot tell").
///
/// # Errors
/// As [`Client::config_tree`] and [`ConfigTree::wireguard`].
pub async fn read_side(client: &Client, label: &str) -> Result<PairSide, Error> {
    let tree = client.config_tree().await?;
    let mut keys = BTreeMap::new();
    for iface in tree.wireguard()? {
        if let Ok(status) = client.wireguard_summary(&iface.name).await
            && let Some(key) = status.public_key
        {
            keys.insert(iface.name.clone(), key);
        }
    }
    Ok(PairSide::new(label, tree, keys))
}

/// What a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PairArea {
    /// A VRRP group.
    Vrrp,
    /// The WireGuard tunnel.
    WireGuard,
}

/// How sure a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PairKind {
    /// The two sides disagree.
    Mismatch,
    /// The configuration alone cannot tell (a key could not be read, an endpoint behind NAT).
    CannotTell,
}

/// One difference between the two routers.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct PairFinding {
    /// VRRP or WireGuard.
    pub area: PairArea,
    /// The group, or `A wg0 peer NAME`.
    pub subject: String,
    /// Mismatch or cannot tell.
    pub kind: PairKind,
    /// What differs, without any secret.
    pub message: String,
}

/// Both comparisons: [`compare_vrrp`] then [`compare_wireguard`].
///
/// # Errors
/// [`Error::InvalidValue`] when a side's VRRP or WireGuard configuration does not read
/// (a `vrid` that is not a number, say).
pub fn compare(a: &PairSide, b: &PairSide) -> Result<Vec<PairFinding>, Error> {
    let mut out = compare_vrrp(a, b)?;
    out.extend(compare_wireguard(a, b)?);
    Ok(out)
}

fn finding(area: PairArea, subject: &str, kind: PairKind, message: String) -> PairFinding {
    PairFinding {
        area,
        subject: subject.to_owned(),
        kind,
        message,
    }
}

/// The VRRP groups, each group on both sides (paired by interface and VRID, as keepalived
/// pairs them on the wire, else by name; differing names are said), with the same VRID,
/// virtual addresses, authentication (under VRRP version 2), preemption and
/// `rfc3768-compatibility`, the same VRRP version and (under version 2) advert interval,
/// unicast peers that reach each other (`peer-address`, `hello-source-address`), and different
/// priorities (equal priorities leave the master to the higher interface address).
///
/// # Errors
/// As [`ConfigTree::vrrp_groups`]; [`Error::InvalidValue`] when `advertise-interval` or
/// `global-parameters version` is not a number.
pub fn compare_vrrp(a: &PairSide, b: &PairSide) -> Result<Vec<PairFinding>, Error> {
    let (ga, gb) = (a.tree.vrrp_groups()?, b.tree.vrrp_groups()?);
    let mut out = Vec::new();
    for (x, y) in pair_groups(&ga, &gb) {
        let (name, other) = match (x, y) {
            (Some(x), Some(y)) => (&x.name, &y.name),
            (Some(x), None) => (&x.name, &x.name),
            (None, Some(y)) => (&y.name, &y.name),
            (None, None) => continue,
        };
        let mismatch = |m: String| finding(PairArea::Vrrp, name, PairKind::Mismatch, m);
        let (x, y) = match (x, y) {
            (Some(x), Some(y)) => (x, y),
            (Some(_), None) => {
                out.push(mismatch(format!("only on {}", a.label)));
                continue;
            }
            _ => {
                out.push(mismatch(format!("only on {}", b.label)));
                continue;
            }
        };
        if name != other {
            let (interface, vrid) = wire_id(x).unwrap_or_default();
            out.push(mismatch(format!(
                "named {name} on {}, {other} on {}: the same group on the wire (VRID {vrid} on \
                 {interface})",
                a.label, b.label
            )));
        }
        let timing = compare_timing((a, x), (b, y))?;
        let v3 = timing.version == 3;
        out.extend(compare_group((a, x), (b, y), v3).into_iter().map(mismatch));
        out.extend(timing.findings.into_iter().map(mismatch));
        out.extend(
            compare_unicast((a, x), (b, y))
                .into_iter()
                .map(|(kind, m)| finding(PairArea::Vrrp, name, kind, m)),
        );
        if x.rfc3768_compatibility != y.rfc3768_compatibility {
            out.push(mismatch(format!(
                "rfc3768-compatibility is {} on {}, {} on {}: the virtual address moves \
                 between two MAC addresses",
                x.rfc3768_compatibility, a.label, y.rfc3768_compatibility, b.label
            )));
        }
    }
    Ok(out)
}

/// A group's identity on the wire: keepalived reads adverts on the group's interface and finds
/// the group by the advert's VRID (acassen/keepalived `keepalived/vrrp/vrrp_scheduler.c`
/// `vrrp_dispatcher_read`); the name never travels.
fn wire_id(g: &VrrpGroup) -> Option<(&str, u8)> {
    Some((g.interface.as_deref()?, g.vrid?))
}

/// Whether two groups, one of each side, are taken for the same group.
type SameGroup = fn(&VrrpGroup, &VrrpGroup) -> bool;

/// The groups of both sides in pairs, sorted by name: first those with the same interface and
/// VRID (the same group to keepalived, whatever their names), then, among the rest, those with
/// the same name (so that a VRID or interface that differs is said as such); a group left over
/// is on one side only.
fn pair_groups<'g>(
    ga: &'g [VrrpGroup],
    gb: &'g [VrrpGroup],
) -> Vec<(Option<&'g VrrpGroup>, Option<&'g VrrpGroup>)> {
    let mut taken = vec![false; gb.len()];
    let mut partner: Vec<Option<usize>> = vec![None; ga.len()];
    let passes: [SameGroup; 2] = [
        |x, y| wire_id(x).is_some() && wire_id(x) == wire_id(y),
        |x, y| x.name == y.name,
    ];
    for same in passes {
        for (i, x) in ga.iter().enumerate() {
            if partner[i].is_some() {
                continue;
            }
            if let Some(j) = (0..gb.len()).find(|&j| !taken[j] && same(x, &gb[j])) {
                taken[j] = true;
                partner[i] = Some(j);
            }
        }
    }
    let mut out: Vec<_> = ga
        .iter()
        .zip(&partner)
        .map(|(x, j)| (Some(x), j.map(|j| &gb[j])))
        .chain(
            gb.iter()
                .zip(&taken)
                .filter(|(_, t)| !**t)
                .map(|(y, _)| (None, Some(y))),
        )
        .collect();
    out.sort_by(|p, q| {
        let name = |(x, y): &(Option<&VrrpGroup>, Option<&VrrpGroup>)| {
            x.or(*y).map(|g| g.name.clone()).unwrap_or_default()
        };
        name(p).cmp(&name(q))
    });
    out
}

/// The settings of one group both sides must share: VRID, virtual addresses, authentication
/// (only under version 2: keepalived ignores it under version 3, `keepalived/vrrp/vrrp.c`
/// `vrrp_complete_instance`, "VRRP version 3 does not support authentication"), preemption,
/// and priorities that differ.
fn compare_group(
    (a, x): (&PairSide, &VrrpGroup),
    (b, y): (&PairSide, &VrrpGroup),
    v3: bool,
) -> Vec<String> {
    let mut out = Vec::new();
    if x.vrid != y.vrid {
        out.push(format!(
            "VRID {:?} on {}, {:?} on {}",
            x.vrid, a.label, y.vrid, b.label
        ));
    }
    let (ax, ay): (BTreeSet<&String>, BTreeSet<&String>) =
        (x.addresses.iter().collect(), y.addresses.iter().collect());
    if ax != ay {
        out.push(format!(
            "virtual addresses {ax:?} on {}, {ay:?} on {}",
            a.label, b.label
        ));
    }
    let (px, py) = (priority(x), priority(y));
    if px == py {
        out.push(format!(
            "both have priority {px}: the master is chosen by interface address"
        ));
    }
    if !v3 && x.authentication_type != y.authentication_type {
        out.push(format!(
            "authentication type {:?} on {}, {:?} on {}",
            x.authentication_type, a.label, y.authentication_type, b.label
        ));
    }
    let same_password = match (&x.authentication_password, &y.authentication_password) {
        (Some(p), Some(q)) => p.expose_secret() == q.expose_secret(),
        (None, None) => true,
        _ => false,
    };
    if !v3 && !same_password {
        out.push("the authentication passwords differ".to_owned());
    }
    if x.no_preempt != y.no_preempt {
        out.push(format!(
            "no-preempt is {} on {}, {} on {}",
            x.no_preempt, a.label, y.no_preempt, b.label
        ));
    }
    out
}

/// A group's priority, with VyOS's default.
fn priority(g: &VrrpGroup) -> u8 {
    g.priority.unwrap_or(DEFAULT_PRIORITY)
}

/// The VRRP version both sides run a group with (3 when either runs 3), and the findings of
/// [`compare_timing`].
struct Timing {
    version: u8,
    findings: Vec<String>,
}

/// The VRRP version and advert interval of a group on both sides (audit X8 of issue 32).
/// vyos-1x `data/templates/high-availability/keepalived.conf.j2` writes `advert_int` from
/// `advertise-interval` (default 1, `high-availability.xml.in`) and `vrrp_version` from
/// `global-parameters version` only when set, so keepalived's default applies: version 2
/// (acassen/keepalived `keepalived/core/global_data.c`), and always 3 for an IPv6 group
/// (`vrrp.c` `vrrp_complete_instance`). `vrrp.c` `vrrp_check_packet` refuses an advert of
/// another version (`VRRP_PACKET_KO`) and, under version 2, drops one with another `adver_int`
/// (`VRRP_PACKET_DROP`, "multiple master"); under version 3 it only logs the interval.
fn compare_timing(
    (a, x): (&PairSide, &VrrpGroup),
    (b, y): (&PairSide, &VrrpGroup),
) -> Result<Timing, Error> {
    let (vx, vy) = (version(a, x)?, version(b, y)?);
    let mut findings = Vec::new();
    if vx != vy {
        findings.push(format!(
            "VRRP version {vx} on {}, {vy} on {}: each refuses the other's adverts, so both \
             become MASTER",
            a.label, b.label
        ));
        return Ok(Timing {
            version: vx.max(vy),
            findings,
        });
    }
    let (ix, iy) = (advert_interval(a, x)?, advert_interval(b, y)?);
    if vx == 2 && ix != iy {
        findings.push(format!(
            "advertise-interval {ix} on {}, {iy} on {}: under VRRP version 2 each drops the \
             other's adverts, so both become MASTER",
            a.label, b.label
        ));
    }
    Ok(Timing {
        version: vx,
        findings,
    })
}

/// A leaf of `side` as a number, `default` when unset.
fn leaf_number(side: &PairSide, path: &[&str], default: u8) -> Result<u8, Error> {
    match side.tree.value(path) {
        None => Ok(default),
        Some(v) => v.parse().map_err(|_| Error::InvalidValue {
            path: path.join(" "),
            value: v.to_owned(),
            expected: "u8",
        }),
    }
}

/// The VRRP version keepalived runs `g` with: 3 for a group whose first virtual address is
/// IPv6 (keepalived takes the instance's family from it, as the template's `use_vmac` line
/// does), else `global-parameters version`, else 2.
fn version(side: &PairSide, g: &VrrpGroup) -> Result<u8, Error> {
    if first_is_v6(g) {
        return Ok(3);
    }
    let path = ["high-availability", "vrrp", "global-parameters", "version"];
    leaf_number(side, &path, 2)
}

fn first_is_v6(g: &VrrpGroup) -> bool {
    g.addresses
        .first()
        .and_then(|a| a.split('/').next())
        .and_then(|a| a.parse::<IpAddr>().ok())
        .is_some_and(|a| a.is_ipv6())
}

/// `advertise-interval`, default 1 (`high-availability.xml.in`).
fn advert_interval(side: &PairSide, g: &VrrpGroup) -> Result<u8, Error> {
    let path = [
        "high-availability",
        "vrrp",
        "group",
        g.name.as_str(),
        "advertise-interval",
    ];
    leaf_number(side, &path, 1)
}

/// Unicast VRRP (audit X8 of issue 32): `peer-address` becomes keepalived's `unicast_peer`
/// and `hello-source-address` its `unicast_src_ip` (vyos-1x
/// `data/templates/high-availability/keepalived.conf.j2`). A side sends its adverts to its
/// `unicast_peer` addresses and receives them on a raw socket bound to its own source address
/// (acassen/keepalived `keepalived/vrrp/vrrp_scheduler.c` `vrrp_create_sockpool`,
/// `vrrp.c` `open_vrrp_read_socket`); Linux gives a bound raw socket only datagrams addressed
/// to that address (`net/ipv4/raw.c` `__raw_v4_lookup`). The source is not filtered (that
/// needs `check_unicast_src`, which VyOS never sets). So each side's `peer-address` must name
/// the address the other listens on ([`listen_addresses`]). One side unicast and the other
/// multicast never hear each other.
fn compare_unicast(
    (a, x): (&PairSide, &VrrpGroup),
    (b, y): (&PairSide, &VrrpGroup),
) -> Vec<(PairKind, String)> {
    match (x.peer_addresses.is_empty(), y.peer_addresses.is_empty()) {
        (true, true) => return Vec::new(),
        (false, true) | (true, false) => {
            let (uni, multi) = if y.peer_addresses.is_empty() {
                (a, b)
            } else {
                (b, a)
            };
            return vec![(
                PairKind::Mismatch,
                format!(
                    "unicast (peer-address) on {}, multicast on {}: they never hear each other \
                     and both become MASTER",
                    uni.label, multi.label
                ),
            )];
        }
        (false, false) => {}
    }
    let mut out = Vec::new();
    for ((sender, sent), (deaf, listener)) in [((a, x), (b, y)), ((b, y), (a, x))] {
        let Some((listen, why)) = listen_addresses(deaf, listener) else {
            out.push((
                PairKind::CannotTell,
                format!(
                    "{} listens for unicast adverts on its IPv6 link-local address, which the \
                     configuration does not hold: whether {}'s peer-address {:?} reaches it \
                     cannot be told",
                    deaf.label, sender.label, sent.peer_addresses
                ),
            ));
            continue;
        };
        if listen.len() == 1 && sent.peer_addresses.contains(&listen[0]) {
            continue;
        }
        if sent.peer_addresses.iter().any(|p| listen.contains(p)) {
            out.push((
                PairKind::CannotTell,
                format!(
                    "{} listens on the first of its addresses on {why} {listen:?}, which the \
                     configuration does not fix: whether {}'s peer-address {:?} is that one \
                     cannot be told",
                    deaf.label, sender.label, sent.peer_addresses
                ),
            ));
            continue;
        }
        let outcome = if priority(listener) > priority(sent) {
            format!(
                "{} takes the master role whenever it runs, whatever no-preempt says",
                deaf.label
            )
        } else {
            "both become MASTER".to_owned()
        };
        out.push((
            PairKind::Mismatch,
            format!(
                "{} never receives {}'s adverts: {} sends them to {:?}, and {} listens only on \
                 {} ({why}): {outcome}",
                deaf.label,
                sender.label,
                sender.label,
                sent.peer_addresses,
                deaf.label,
                listen.join(", ")
            ),
        ));
    }
    out
}

/// The addresses a side receives unicast adverts on, and what they are: its
/// `hello-source-address`, else its addresses on the group's interface of the group's family
/// (keepalived `vrrp.c` `set_vrrp_src_addr` takes the interface's first one). `None` for an
/// IPv6 group without `hello-source-address`: keepalived then uses the link-local address
/// (`keepalived_netlink.c`, only link-local addresses are kept for IPv6).
fn listen_addresses(side: &PairSide, g: &VrrpGroup) -> Option<(Vec<String>, String)> {
    if let Some(src) = &g.hello_source_address {
        return Some((vec![src.clone()], "its hello-source-address".to_owned()));
    }
    let v6 = first_is_v6(g);
    if v6 {
        return None;
    }
    let iface = g.interface.clone().unwrap_or_default();
    let addresses = side
        .tree
        .interfaces()
        .into_iter()
        .filter(|i| i.name == iface)
        .flat_map(|i| i.addresses)
        .filter_map(|a| {
            let host = a.split('/').next().unwrap_or("").to_owned();
            host.parse::<IpAddr>()
                .ok()
                .filter(|ip| ip.is_ipv6() == v6)
                .map(|_| host)
        })
        .collect();
    Some((addresses, format!("its address on {iface}")))
}

/// The WireGuard tunnel: for each side, the interface whose peer holds the other side's
/// interface key; that peer's allowed-ips must cover the other interface's addresses and its
/// endpoint port must be the other's listening port, and at least one side must know the
/// other's endpoint. An endpoint address that is none of the other router's interface
/// addresses cannot be told from the configuration (NAT).
///
/// # Errors
/// As [`ConfigTree::wireguard`].
pub fn compare_wireguard(a: &PairSide, b: &PairSide) -> Result<Vec<PairFinding>, Error> {
    let (wa, wb) = (a.tree.wireguard()?, b.tree.wireguard()?);
    let mut out = Vec::new();
    if wa.is_empty() && wb.is_empty() {
        return Ok(out);
    }
    let ab = one_way(a, &wa, b, &wb, &mut out);
    let ba = one_way(b, &wb, a, &wa, &mut out);
    if let (Some(false), Some(false)) = (ab, ba) {
        out.push(finding(
            PairArea::WireGuard,
            &format!("{} and {}", a.label, b.label),
            PairKind::Mismatch,
            "neither side has the other's endpoint address: no side can start the tunnel"
                .to_owned(),
        ));
    }
    Ok(out)
}

/// Checks `from`'s peer for `to`. Returns whether that peer has an endpoint address, `None`
/// when no such peer was found.
fn one_way(
    from: &PairSide,
    wf: &[WireGuardInterface],
    to: &PairSide,
    wt: &[WireGuardInterface],
    out: &mut Vec<PairFinding>,
) -> Option<bool> {
    let wg = |subject: &str, kind, m: String| finding(PairArea::WireGuard, subject, kind, m);
    let found = wt.iter().find_map(|it| {
        let key = to.wireguard_keys.get(&it.name)?;
        wf.iter().find_map(|i| {
            i.peers
                .iter()
                .find(|p| p.public_key.as_deref() == Some(key.as_str()))
                .map(|p| (i, p, it))
        })
    });
    let Some((iface, peer, other)) = found else {
        let (kind, why) = if wt.iter().all(|i| to.wireguard_keys.contains_key(&i.name)) {
            (
                PairKind::Mismatch,
                "no peer holds the public key of any of its interfaces",
            )
        } else {
            (
                PairKind::CannotTell,
                "its interfaces' public keys could not be read",
            )
        };
        out.push(wg(
            &from.label,
            kind,
            format!("no tunnel to {} found: {why}", to.label),
        ));
        return None;
    };
    let subject = format!("{} {} peer {}", from.label, iface.name, peer.name);
    for address in &other.addresses {
        if !peer.allowed_ips.iter().any(|net| covers(net, address)) {
            out.push(wg(
                &subject,
                PairKind::Mismatch,
                format!(
                    "allowed-ips {:?} do not cover {}'s {} address {address}",
                    peer.allowed_ips, to.label, other.name
                ),
            ));
        }
    }
    match (peer.port, other.port) {
        (Some(p), Some(listen)) if p != listen => out.push(wg(
            &subject,
            PairKind::Mismatch,
            format!(
                "endpoint port {p}, but {}'s {} listens on {listen}",
                to.label, other.name
            ),
        )),
        // Without `port` the kernel picks a random one (vyos-documentation
        // `docs/configuration/interfaces/wireguard.rst`): the tunnel works when the other end
        // initiates, which the configuration does not say.
        (Some(p), None) => out.push(wg(
            &subject,
            PairKind::CannotTell,
            format!(
                "endpoint port {p}, but {}'s {} sets no port and listens on a random one: the \
                 tunnel works only while {} initiates it",
                to.label, other.name, to.label
            ),
        )),
        _ => {}
    }
    if let Some(addr) = &peer.address {
        let known = to
            .tree
            .interfaces()
            .iter()
            .flat_map(|i| i.addresses.iter())
            .any(|a| a.split('/').next() == Some(addr.as_str()));
        if !known {
            out.push(wg(
                &subject,
                PairKind::CannotTell,
                format!(
                    "endpoint {addr} is none of {}'s interface addresses (NAT, or a wrong address)",
                    to.label
                ),
            ));
        }
    }
    Some(peer.address.is_some())
}

/// Whether the prefix `net` (`192.168.10.2/32`) holds the host part of `address`
/// (`192.168.10.2/24`). Text that is not an address covers nothing.
fn covers(net: &str, address: &str) -> bool {
    let host = address
        .split('/')
        .next()
        .and_then(|h| h.parse::<IpAddr>().ok());
    let (base, len) = match net.split_once('/') {
        Some((b, l)) => (b.parse::<IpAddr>().ok(), l.parse::<u32>().ok()),
        None => (net.parse::<IpAddr>().ok(), None),
    };
    match (host, base) {
        (Some(IpAddr::V4(h)), Some(IpAddr::V4(b))) => {
            let len = len.unwrap_or(32).min(32);
            let mask = u32::MAX.checked_shl(32 - len).unwrap_or(0);
            u32::from(h) & mask == u32::from(b) & mask
        }
        (Some(IpAddr::V6(h)), Some(IpAddr::V6(b))) => {
            let len = len.unwrap_or(128).min(128);
            let mask = u128::MAX.checked_shl(128 - len).unwrap_or(0);
            u128::from(h) & mask == u128::from(b) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::covers;

    #[test]
    fn prefixes_cover_host_parts() {
        assert!(covers("192.168.10.2/32", "192.168.10.2/24"));
        assert!(covers("192.168.10.0/24", "192.168.10.7/24"));
        assert!(covers("0.0.0.0/0", "10.0.0.1/8"));
        assert!(!covers("192.168.10.3/32", "192.168.10.2/24"));
        assert!(covers("2001:db8::/64", "2001:db8::2/64"));
        assert!(!covers("2001:db8::/64", "192.168.10.2/24"));
        assert!(!covers("garbage", "192.168.10.2/24"));
    }
}
