//! Which words of a `set` path name tag nodes.
//!
//! `set interfaces ethernet eth0 address '192.0.2.1/24'` does not say that `ethernet` is a tag node
//! and `eth0` one of its entries; VyOS knows it from its interface definitions, which this crate does
//! not ship. Where a tree already holds a node, [`crate::ConfigTree::apply`] follows that node. For
//! new nodes the kind is guessed: a word that [`TAG_NODES`] lists below its parent word and that is
//! followed by another word is a tag node and that next word its entry, and so is a word followed by
//! one that no node name can be (it holds a blank or a quote) and then by more words; the last word is a leaf when a value follows it or when it is not
//! an entry. So an empty plain node (`api { }`) read from the `set` form comes back as a valueless
//! leaf, and a tag node missing from the table comes back as plain nodes: both render the same `set`
//! lines, but their `config.boot` rendering differs from VyOS's.

use crate::config::lex::{name_problem, value_problem};
use crate::config::tree::StepKind;

/// VyOS tag nodes as `(parent, name)`: `name` is a tag node where the nearest word before it that is
/// not a tag entry is `parent` (`("interfaces", "ethernet")`, `("ethernet", "vif")`). Every tag node of
/// VyOS's own test configurations (`smoketest/configs`, `smoketest/config-tests`) is here, plus the
/// common ones of its interface definitions. The parent is needed because a name can be a tag node in
/// one place and a plain node in another (`vrrp group LAN` against `firewall group`). Sorted, for
/// binary search.
pub const TAG_NODES: &[(&str, &str)] = &[
    ("access-list", "rule"),
    ("access-list6", "rule"),
    ("address-range", "prefix"),
    ("address-range", "start"),
    ("arp", "interface"),
    ("as-path-list", "rule"),
    ("authentication", "psk"),
    ("authentication", "public-keys"),
    ("backend", "server"),
    ("bfd", "peer"),
    ("bgp", "neighbor"),
    ("bgp", "peer-group"),
    ("bonding", "vif"),
    ("bridge", "vif"),
    ("cluster", "group"),
    ("community-list", "rule"),
    ("conntrack-sync", "interface"),
    ("console", "device"),
    ("console", "facility"),
    ("container", "name"),
    ("container", "network"),
    ("destination", "rule"),
    ("dhcp-server", "shared-network-name"),
    ("dhcpv6-server", "shared-network-name"),
    ("dynamic", "interface"),
    ("dynamic", "name"),
    ("esp-group", "proposal"),
    ("ethernet", "pppoe"),
    ("ethernet", "vif"),
    ("ethernet", "vif-s"),
    ("filter", "rule"),
    ("firewall", "ipv6-name"),
    ("firewall", "name"),
    ("firewall", "zone"),
    ("forwarding", "domain"),
    ("global", "facility"),
    ("group", "address"),
    ("group", "address-group"),
    ("group", "domain-group"),
    ("group", "interface-group"),
    ("group", "ipv6-address-group"),
    ("group", "ipv6-network-group"),
    ("group", "mac-group"),
    ("group", "network-group"),
    ("group", "port-group"),
    ("host", "facility"),
    ("https", "virtual-host"),
    ("ignore", "rule"),
    ("ike-group", "proposal"),
    ("interface", "address"),
    ("interface", "prefix"),
    ("interface", "service"),
    ("interface-route", "next-hop-interface"),
    ("interface-route6", "next-hop-interface"),
    ("interfaces", "bonding"),
    ("interfaces", "bridge"),
    ("interfaces", "dummy"),
    ("interfaces", "ethernet"),
    ("interfaces", "geneve"),
    ("interfaces", "input"),
    ("interfaces", "l2tpv3"),
    ("interfaces", "loopback"),
    ("interfaces", "macsec"),
    ("interfaces", "openvpn"),
    ("interfaces", "pppoe"),
    ("interfaces", "pseudo-ethernet"),
    ("interfaces", "sstpc"),
    ("interfaces", "tunnel"),
    ("interfaces", "virtual-ethernet"),
    ("interfaces", "vti"),
    ("interfaces", "vxlan"),
    ("interfaces", "wireguard"),
    ("interfaces", "wireless"),
    ("interfaces", "wwan"),
    ("ipoe-server", "interface"),
    ("ipsec", "esp-group"),
    ("ipsec", "ike-group"),
    ("ipv4", "name"),
    ("ipv4", "rule"),
    ("ipv4-unicast", "network"),
    ("ipv6", "name"),
    ("ipv6", "rule"),
    ("ipv6-name", "rule"),
    ("ipv6-route", "rule"),
    ("ipv6-unicast", "network"),
    ("keys", "id"),
    ("large-community-list", "rule"),
    ("lldp", "interface"),
    ("local", "facility"),
    ("login", "radius-server"),
    ("login", "user"),
    ("md5", "key-id"),
    ("member", "interface"),
    ("name", "environment"),
    ("name", "port"),
    ("name", "rule"),
    ("name", "volume"),
    ("netflow", "server"),
    ("ntp", "server"),
    ("openvpn", "shared-secret"),
    ("options", "interface"),
    ("ospf", "interface"),
    ("pd", "interface"),
    ("peer", "tunnel"),
    ("pki", "ca"),
    ("pki", "certificate"),
    ("pki", "key-pair"),
    ("policy", "access-list"),
    ("policy", "access-list6"),
    ("policy", "as-path-list"),
    ("policy", "community-list"),
    ("policy", "ipv6-route"),
    ("policy", "large-community-list"),
    ("policy", "local-route"),
    ("policy", "local-route6"),
    ("policy", "prefix-list"),
    ("policy", "prefix-list6"),
    ("policy", "route"),
    ("policy", "route-map"),
    ("policy", "shaper"),
    ("pppoe-server", "interface"),
    ("prefix-delegation", "start"),
    ("prefix-list", "rule"),
    ("prefix-list6", "rule"),
    ("qos", "interface"),
    ("radius", "server"),
    ("remote", "facility"),
    ("reverse-proxy", "backend"),
    ("reverse-proxy", "service"),
    ("route", "interface"),
    ("route", "next-hop"),
    ("route", "rule"),
    ("route-map", "rule"),
    ("route6", "interface"),
    ("route6", "next-hop"),
    ("router-advert", "interface"),
    ("shaper", "class"),
    ("shared-network-name", "subnet"),
    ("site-to-site", "peer"),
    ("snmp", "community"),
    ("snmp", "listen-address"),
    ("source", "rule"),
    ("static", "interface-route"),
    ("static", "interface-route6"),
    ("static", "route"),
    ("static", "route6"),
    ("static", "table"),
    ("static-host-mapping", "host-name"),
    ("subnet", "range"),
    ("subnet", "static-mapping"),
    ("sysctl", "custom"),
    ("syslog", "host"),
    ("syslog", "remote"),
    ("table", "interface-route"),
    ("table", "route"),
    ("tacacs", "server"),
    ("task-scheduler", "task"),
    ("traffic-policy", "shaper"),
    ("v3", "group"),
    ("v3", "oid"),
    ("v3", "user"),
    ("v3", "view"),
    ("view", "oid"),
    ("vif-s", "vif-c"),
    ("vrf", "name"),
    ("vrrp", "group"),
    ("vrrp", "sync-group"),
    ("wan", "interface-health"),
    ("wan", "rule"),
    ("wireguard", "peer"),
    ("zone", "from"),
    ("zone-policy", "zone"),
];

/// Whether `name` below `parent` is in [`TAG_NODES`].
pub fn is_tag_node(parent: &str, name: &str) -> bool {
    TAG_NODES.binary_search(&(parent, name)).is_ok()
}

/// Guesses what each word of a `set`/`delete` path names (see the module documentation).
pub fn infer_kinds(path: &[String], has_value: bool) -> Vec<StepKind> {
    let mut kinds = Vec::with_capacity(path.len());
    let last = path.len().saturating_sub(1);
    let mut i = 0;
    let mut parent = "";
    while i < path.len() {
        // A word that no node name can be (a blank, a quote) is a tag entry, whatever the list
        // says: `config.boot` marks tag nodes by syntax, so unlisted ones reach `set` text too.
        // Only with a word after it: a last word that needs quotes reads back as a value.
        let next_is_entry = i + 1 < last
            && name_problem(&path[i + 1]).is_some()
            && value_problem(&path[i + 1]).is_none();
        if i < last && (is_tag_node(parent, &path[i]) || next_is_entry) {
            kinds.push(StepKind::Tag);
            kinds.push(StepKind::Entry);
            parent = &path[i];
            i += 2;
            continue;
        }
        parent = &path[i];
        kinds.push(if i == last {
            StepKind::Leaf
        } else {
            StepKind::Node
        });
        i += 1;
    }
    // An entry cannot carry a value: `tag entry 'v'` means the tag is a leaf after all.
    if has_value && kinds.last() == Some(&StepKind::Entry) {
        let n = kinds.len();
        kinds[n - 2] = StepKind::Node;
        kinds[n - 1] = StepKind::Leaf;
    }
    kinds
}
