//! The two routers of a site as a pair: their VRRP groups and the WireGuard tunnel between them
//! compared, as typed findings ([`compare`]). Secrets are compared, never shown.
//!
//! Sources: vyos-1x `interface-definitions/high-availability.xml.in` (`vrrp group NAME`: `vrid`,
//! `address`, `priority` defaulting to 100, `authentication type`/`password`, `no-preempt`) and
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

/// The VRRP groups, matched by name: each group on both sides, with the same VRID, virtual
/// addresses, authentication, preemption and `rfc3768-compatibility`, unicast peers that name
/// each other (`peer-address`, `hello-source-address`), and different priorities (equal
/// priorities leave the master to the higher interface address).
///
/// # Errors
/// As [`ConfigTree::vrrp_groups`].
pub fn compare_vrrp(a: &PairSide, b: &PairSide) -> Result<Vec<PairFinding>, Error> {
    let ga: BTreeMap<String, VrrpGroup> = a
        .tree
        .vrrp_groups()?
        .into_iter()
        .map(|g| (g.name.clone(), g))
        .collect();
    let gb: BTreeMap<String, VrrpGroup> = b
        .tree
        .vrrp_groups()?
        .into_iter()
        .map(|g| (g.name.clone(), g))
        .collect();
    let mut out = Vec::new();
    let names: BTreeSet<&String> = ga.keys().chain(gb.keys()).collect();
    for name in names {
        let mismatch = |m: String| finding(PairArea::Vrrp, name, PairKind::Mismatch, m);
        let (x, y) = match (ga.get(name), gb.get(name)) {
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
        if x.vrid != y.vrid {
            out.push(mismatch(format!(
                "VRID {:?} on {}, {:?} on {}",
                x.vrid, a.label, y.vrid, b.label
            )));
        }
        let (ax, ay): (BTreeSet<&String>, BTreeSet<&String>) =
            (x.addresses.iter().collect(), y.addresses.iter().collect());
        if ax != ay {
            out.push(mismatch(format!(
                "virtual addresses {ax:?} on {}, {ay:?} on {}",
                a.label, b.label
            )));
        }
        let (px, py) = (
            x.priority.unwrap_or(DEFAULT_PRIORITY),
            y.priority.unwrap_or(DEFAULT_PRIORITY),
        );
        if px == py {
            out.push(mismatch(format!(
                "both have priority {px}: the master is chosen by interface address"
            )));
        }
        if x.authentication_type != y.authentication_type {
            out.push(mismatch(format!(
                "authentication type {:?} on {}, {:?} on {}",
                x.authentication_type, a.label, y.authentication_type, b.label
            )));
        }
        let same_password = match (&x.authentication_password, &y.authentication_password) {
            (Some(p), Some(q)) => p.expose_secret() == q.expose_secret(),
            (None, None) => true,
            _ => false,
        };
        if !same_password {
            out.push(mismatch("the authentication passwords differ".to_owned()));
        }
        if x.no_preempt != y.no_preempt {
            out.push(mismatch(format!(
                "no-preempt is {} on {}, {} on {}",
                x.no_preempt, a.label, y.no_preempt, b.label
            )));
        }
        out.extend(compare_unicast((a, x), (b, y)).into_iter().map(mismatch));
        if x.rfc3768_compatibility != y.rfc3768_compatibility {
            out.push(mismatch(format!(
                "rfc3768-compatibility is {} on {}, {} on {}: the virtual address moves between \
                 two MAC addresses",
                x.rfc3768_compatibility, a.label, y.rfc3768_compatibility, b.label
            )));
        }
    }
    Ok(out)
}

/// Unicast VRRP (audit X8 of issue 32): `peer-address` becomes keepalived's `unicast_peer`
/// and `hello-source-address` its `unicast_src_ip` (vyos-1x
/// `data/templates/high-availability/keepalived.conf.j2`). keepalived takes a unicast advert
/// only from an address in its `unicast_peer` list, so each side's `peer-address` must name an
/// address the other sends from; one side unicast and the other multicast never hear each
/// other. Either way both become MASTER.
fn compare_unicast(
    (a, x): (&PairSide, &VrrpGroup),
    (b, y): (&PairSide, &VrrpGroup),
) -> Vec<String> {
    match (x.peer_addresses.is_empty(), y.peer_addresses.is_empty()) {
        (true, true) => return Vec::new(),
        (false, true) | (true, false) => {
            let (uni, multi) = if y.peer_addresses.is_empty() {
                (a, b)
            } else {
                (b, a)
            };
            return vec![format!(
                "unicast (peer-address) on {}, multicast on {}: they never hear each other and \
                 both become MASTER",
                uni.label, multi.label
            )];
        }
        (false, false) => {}
    }
    let mut out = Vec::new();
    for ((me, mine), (other, theirs)) in [((a, x), (b, y)), ((b, y), (a, x))] {
        let sources = advert_sources(other, theirs);
        if !mine.peer_addresses.iter().any(|p| sources.contains(p)) {
            out.push(format!(
                "{}'s peer-address {:?} names none of the addresses {} sends its adverts from \
                 ({sources:?}): {} ignores them and both become MASTER",
                me.label, mine.peer_addresses, other.label, me.label
            ));
        }
    }
    out
}

/// The addresses a side sends its adverts from: its `hello-source-address`, else its
/// addresses on the group's interface (without the prefix length).
fn advert_sources(side: &PairSide, g: &VrrpGroup) -> Vec<String> {
    if let Some(src) = &g.hello_source_address {
        return vec![src.clone()];
    }
    side.tree
        .interfaces()
        .into_iter()
        .filter(|i| Some(&i.name) == g.interface.as_ref())
        .flat_map(|i| i.addresses)
        .map(|a| a.split('/').next().unwrap_or("").to_owned())
        .collect()
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
