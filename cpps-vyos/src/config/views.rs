//! Typed views of the parts of a configuration this project works with.
//!
//! The paths are those of the VyOS 1.4/1.5 syntax (`smoketest/config-tests` in VyOS's repository),
//! with the older names that the same parts had in 1.2/1.3 where they differ (`virtual-address` for
//! VRRP addresses). Secrets come as [`SecretString`], so `Debug` of a view never shows them.

use secrecy::SecretString;

use crate::config::tree::{Branch, ConfigTree, Node};
use crate::error::Error;

/// An interface (or a VLAN sub-interface) with its addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Interface {
    /// The interface type: the word after `interfaces` (`ethernet`, `wireguard`, `bonding`, …).
    pub kind: String,
    /// The name as the system knows it: `eth0`, or `eth2.100`, `eth2.200.201` for `vif`, `vif-s`
    /// and `vif-c` sub-interfaces.
    pub name: String,
    /// `address` values (`192.0.2.1/24`, `dhcp`, `dhcpv6`).
    pub addresses: Vec<String>,
    /// `description`.
    pub description: Option<String>,
    /// Whether `disable` is set.
    pub disabled: bool,
    /// `vrf`.
    pub vrf: Option<String>,
}

/// A WireGuard interface.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WireGuardInterface {
    /// `wg0`.
    pub name: String,
    /// `address` values.
    pub addresses: Vec<String>,
    /// `description`.
    pub description: Option<String>,
    /// `port` (the listening UDP port).
    pub port: Option<u16>,
    /// `private-key`.
    pub private_key: Option<SecretString>,
    /// `peer` entries.
    pub peers: Vec<WireGuardPeer>,
}

/// A peer of a WireGuard interface.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct WireGuardPeer {
    /// The entry name (`peer NAME`).
    pub name: String,
    /// `public-key` (older: `pubkey`).
    pub public_key: Option<String>,
    /// `allowed-ips` values.
    pub allowed_ips: Vec<String>,
    /// `address` (older: `endpoint`, as `host:port`).
    pub address: Option<String>,
    /// `port`.
    pub port: Option<u16>,
    /// `preshared-key`.
    pub preshared_key: Option<SecretString>,
    /// `persistent-keepalive`, seconds.
    pub persistent_keepalive: Option<u16>,
    /// Whether `disable` is set.
    pub disabled: bool,
}

/// A VRRP group (`high-availability vrrp group NAME`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct VrrpGroup {
    /// The group name.
    pub name: String,
    /// `interface`.
    pub interface: Option<String>,
    /// `vrid`.
    pub vrid: Option<u8>,
    /// `priority`.
    pub priority: Option<u8>,
    /// Virtual addresses: the `address` entries (1.4+), or `virtual-address` values (1.2/1.3).
    pub addresses: Vec<String>,
    /// `authentication type` (`plaintext-password`, `ah`).
    pub authentication_type: Option<String>,
    /// `authentication password`.
    pub authentication_password: Option<SecretString>,
    /// Whether `no-preempt` is set.
    pub no_preempt: bool,
    /// `preempt-delay` in seconds (0-1000; `None`: not set, VyOS's default 0): how long a
    /// returning higher-priority router waits before it takes the role back (keepalived
    /// `preempt_delay`, written only without `no-preempt` by vyos-1x
    /// `data/templates/high-availability/keepalived.conf.j2`).
    pub preempt_delay: Option<u32>,
    /// `peer-address` values: unicast VRRP (keepalived's `unicast_peer`, vyos-1x
    /// `data/templates/high-availability/keepalived.conf.j2`); empty: multicast.
    pub peer_addresses: Vec<String>,
    /// `hello-source-address`: the adverts' source (`unicast_src_ip`, or `mcast_src_ip`).
    pub hello_source_address: Option<String>,
    /// Whether `rfc3768-compatibility` is set (`use_vmac`: a virtual MAC address).
    pub rfc3768_compatibility: bool,
}

/// `service https api` and the `service https` settings that decide how to reach it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpsApi {
    /// `api keys id ID key KEY`.
    pub keys: Vec<ApiKey>,
    /// `service https port` (1.5; the default is 443).
    pub port: Option<u16>,
    /// `service https listen-address` values.
    pub listen_addresses: Vec<String>,
    /// Whether `api rest` is present (1.5 requires it for the REST endpoints).
    pub rest: bool,
    /// Whether `api graphql` is present.
    pub graphql: bool,
}

/// One API key.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApiKey {
    /// The key's id (`keys id ID`).
    pub id: String,
    /// The key.
    pub key: SecretString,
}

fn number<T: std::str::FromStr>(
    b: &Branch,
    path: &[&str],
    at: &[&str],
) -> Result<Option<T>, Error> {
    match b.value(path) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| Error::InvalidValue {
            path: at.iter().chain(path).copied().collect::<Vec<_>>().join(" "),
            value: v.to_owned(),
            expected: std::any::type_name::<T>(),
        }),
    }
}

fn secret(b: &Branch, path: &[&str]) -> Option<SecretString> {
    b.value(path).map(|v| SecretString::from(v.to_owned()))
}

impl ConfigTree {
    /// `system host-name`.
    pub fn host_name(&self) -> Option<&str> {
        self.value(&["system", "host-name"])
    }

    /// Every interface and sub-interface under `interfaces`, in file order.
    pub fn interfaces(&self) -> Vec<Interface> {
        let mut out = Vec::new();
        let Some(ifaces) = self.root.branch(&["interfaces"]) else {
            return out;
        };
        for (kind, node) in &ifaces.children {
            let Node::Tag(tag) = node else { continue };
            for (name, b) in &tag.entries {
                collect_interface(kind, name.clone(), b, &mut out);
            }
        }
        out
    }

    /// `interfaces wireguard`.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] when a port or keepalive is not a number.
    pub fn wireguard(&self) -> Result<Vec<WireGuardInterface>, Error> {
        let mut out = Vec::new();
        for (name, b) in self.root.entries(&["interfaces", "wireguard"]) {
            let at = ["interfaces", "wireguard", name];
            let mut peers = Vec::new();
            for (peer, p) in b.entries(&["peer"]) {
                let at = ["interfaces", "wireguard", name, "peer", peer];
                peers.push(WireGuardPeer {
                    name: peer.to_owned(),
                    public_key: p
                        .value(&["public-key"])
                        .or(p.value(&["pubkey"]))
                        .map(str::to_owned),
                    allowed_ips: p.values(&["allowed-ips"]).to_vec(),
                    address: p
                        .value(&["address"])
                        .or(p.value(&["endpoint"]))
                        .map(str::to_owned),
                    port: number(p, &["port"], &at)?,
                    preshared_key: secret(p, &["preshared-key"]),
                    persistent_keepalive: number(p, &["persistent-keepalive"], &at)?,
                    disabled: p.exists(&["disable"]),
                });
            }
            out.push(WireGuardInterface {
                name: name.to_owned(),
                addresses: b.values(&["address"]).to_vec(),
                description: b.value(&["description"]).map(str::to_owned),
                port: number(b, &["port"], &at)?,
                private_key: secret(b, &["private-key"]),
                peers,
            });
        }
        Ok(out)
    }

    /// `high-availability vrrp group`.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] when `vrid` or `priority` is not a number from 0 to 255, or
    /// `preempt-delay` not a number.
    pub fn vrrp_groups(&self) -> Result<Vec<VrrpGroup>, Error> {
        let mut out = Vec::new();
        for (name, g) in self.root.entries(&["high-availability", "vrrp", "group"]) {
            let at = ["high-availability", "vrrp", "group", name];
            let mut addresses: Vec<String> =
                g.entries(&["address"]).map(|(a, _)| a.to_owned()).collect();
            addresses.extend(g.values(&["address"]).iter().cloned());
            addresses.extend(g.values(&["virtual-address"]).iter().cloned());
            out.push(VrrpGroup {
                name: name.to_owned(),
                interface: g.value(&["interface"]).map(str::to_owned),
                vrid: number(g, &["vrid"], &at)?,
                priority: number(g, &["priority"], &at)?,
                addresses,
                authentication_type: g.value(&["authentication", "type"]).map(str::to_owned),
                authentication_password: secret(g, &["authentication", "password"]),
                no_preempt: g.exists(&["no-preempt"]),
                preempt_delay: number(g, &["preempt-delay"], &at)?,
                peer_addresses: g.values(&["peer-address"]).to_vec(),
                hello_source_address: g.value(&["hello-source-address"]).map(str::to_owned),
                rfc3768_compatibility: g.exists(&["rfc3768-compatibility"]),
            });
        }
        Ok(out)
    }

    /// `service https api`; `None` when the API is not configured.
    ///
    /// # Errors
    /// [`Error::InvalidValue`] when `service https port` is not a port number.
    pub fn https_api(&self) -> Result<Option<HttpsApi>, Error> {
        let Some(https) = self.root.branch(&["service", "https"]) else {
            return Ok(None);
        };
        let api = match https.get(&["api"]) {
            Some(crate::config::NodeRef::Branch(b)) => b.clone(),
            // `set service https api` with nothing below reads back as a valueless leaf.
            Some(crate::config::NodeRef::Leaf(_)) => Branch::default(),
            _ => return Ok(None),
        };
        let keys = api
            .entries(&["keys", "id"])
            .filter_map(|(id, k)| {
                k.value(&["key"]).map(|key| ApiKey {
                    id: id.to_owned(),
                    key: SecretString::from(key.to_owned()),
                })
            })
            .collect();
        Ok(Some(HttpsApi {
            keys,
            port: number(https, &["port"], &["service", "https"])?,
            listen_addresses: https.values(&["listen-address"]).to_vec(),
            rest: api.exists(&["rest"]),
            graphql: api.exists(&["graphql"]),
        }))
    }
}

fn collect_interface(kind: &str, name: String, b: &Branch, out: &mut Vec<Interface>) {
    out.push(Interface {
        kind: kind.to_owned(),
        name: name.clone(),
        addresses: b.values(&["address"]).to_vec(),
        description: b.value(&["description"]).map(str::to_owned),
        disabled: b.exists(&["disable"]),
        vrf: b.value(&["vrf"]).map(str::to_owned),
    });
    for sub in ["vif", "vif-s", "vif-c"] {
        for (id, vb) in b.entries(&[sub]) {
            collect_interface(kind, format!("{name}.{id}"), vb, out);
        }
    }
}
