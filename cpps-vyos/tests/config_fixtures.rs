//! The configuration model against VyOS's own configurations (`tests/fixtures/vyos-configs`, see the
//! README there): every file parses, renders back, and the `set` rendering of each old `config.boot`
//! covers the commands VyOS shows for it after migration, except the ones its migration scripts
//! changed, each of which is explained below.

mod common;

use std::collections::HashSet;

use common::config_fixture;
use cpps_vyos::ConfigTree;
use cpps_vyos::ParseErrorKind;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/vyos-configs");

const PAIRS: &[&str] = &[
    "basic-api-service",
    "basic-vyos",
    "bgp-azure-ipsec-gateway",
    "cluster-basic",
    "dialup-router-medium-vpn",
    "dialup-router-wireguard-ipv6",
    "nat-basic",
    "vrf-bgp-pppoe-underlay",
];

/// What VyOS's migration scripts changed between the old `config.boot` and the `.commands` file:
/// `(pattern, reason)`; in a pattern `*` stands for one word and a final `**` for the rest of the line.
const MIGRATIONS: &[(&str, &str)] = &[
    (
        "set interfaces ethernet * offload gro",
        "interfaces migration writes the GRO offload default out",
    ),
    (
        "set system conntrack modules **",
        "conntrack migration writes the default helper modules out",
    ),
    (
        "set system conntrack timeout",
        "custom conntrack timeouts moved away, an empty `timeout` stays",
    ),
    (
        "set system conntrack ignore ipv4 rule **",
        "conntrack ignore rules moved below `ipv4`",
    ),
    (
        "set system syslog global facility local7 **",
        "syslog facility `protocols` renamed `local7`",
    ),
    (
        "set system syslog * facility auth **",
        "syslog facility `security` renamed `auth`",
    ),
    (
        "set system syslog host * facility auth **",
        "syslog facility `security` renamed `auth`",
    ),
    (
        "set system syslog host * protocol 'udp'",
        "syslog migration writes the default protocol out",
    ),
    (
        "set system logs logrotate **",
        "`system syslog file messages archive` became `system logs logrotate`",
    ),
    (
        "set service ntp server **",
        "`system ntp` moved to `service ntp`",
    ),
    (
        "set service ntp allow-client address **",
        "ntp migration adds `allow-client` (old default: anyone)",
    ),
    (
        "set service https allow-client address *",
        "`virtual-host … allow-client` moved up to `service https`",
    ),
    (
        "set high-availability vrrp group * address *",
        "VRRP `virtual-address` leaf became the `address` tag node",
    ),
    (
        "set high-availability vrrp group VyOS **",
        "the legacy `cluster` node was migrated to `high-availability vrrp group`",
    ),
    (
        "set firewall global-options **",
        "global firewall options moved below `firewall global-options`",
    ),
    (
        "set firewall ipv4 name **",
        "`firewall name` moved to `firewall ipv4 name`, rules rewritten",
    ),
    (
        "set firewall ipv6 name **",
        "`firewall ipv6-name` moved to `firewall ipv6 name`, rules rewritten",
    ),
    (
        "set firewall zone **",
        "`zone-policy zone` moved to `firewall zone`",
    ),
    (
        "set firewall group address-group * description **",
        "firewall migration cuts descriptions to 255 characters",
    ),
    (
        "set nat destination rule * inbound-interface name *",
        "NAT `inbound-interface X` became `inbound-interface name X`",
    ),
    (
        "set nat source rule * outbound-interface name *",
        "NAT `outbound-interface X` became `outbound-interface name X`",
    ),
    (
        "set nat source rule * translation options port-mapping 'random'",
        "NAT port-mapping `fully-random` became `random`",
    ),
    (
        "set protocols static route * interface *",
        "`protocols static interface-route` merged into `route … interface`",
    ),
    (
        "set protocols static route6 * interface *",
        "`protocols static interface-route6` merged into `route6 … interface`",
    ),
    (
        "set protocols static table * route * interface *",
        "`table … interface-route` merged into `table … route … interface`",
    ),
    (
        "set protocols static arp interface **",
        "static ARP entries grouped by interface",
    ),
    (
        "set protocols bgp **",
        "`protocols bgp ASN` became `protocols bgp` with `system-as ASN`",
    ),
    (
        "set protocols ospf interface **",
        "per-interface `ip ospf` settings moved to `protocols ospf interface`",
    ),
    (
        "set interfaces * * ip adjust-mss *",
        "`policy route … set tcp-mss` became the interface's `ip adjust-mss`",
    ),
    (
        "set interfaces pppoe * ipv6 adjust-mss *",
        "`policy route6 … set tcp-mss` became `ipv6 adjust-mss`",
    ),
    (
        "set interfaces wireguard * peer * public-key *",
        "WireGuard `pubkey` renamed `public-key`",
    ),
    (
        "set interfaces wireguard * peer * address *",
        "WireGuard `endpoint host:port` split into `address` and `port`",
    ),
    (
        "set interfaces wireguard * peer * port *",
        "WireGuard `endpoint host:port` split into `address` and `port`",
    ),
    (
        "set interfaces wireguard * private-key *",
        "the key file named by `private-key` was read into the config",
    ),
    (
        "set interfaces openvpn **",
        "OpenVPN ciphers renamed, TLS files replaced by PKI names",
    ),
    (
        "set interfaces pppoe * authentication **",
        "PPPoE moved out of `interfaces ethernet … pppoe N`; `authentication user` renamed `username`",
    ),
    (
        "set interfaces pppoe * mtu *",
        "`interfaces ethernet … pppoe N` moved out, default MTU written out",
    ),
    (
        "set interfaces pppoe * source-interface *",
        "`interfaces ethernet eth0 pppoe 0` became `pppoe0 source-interface eth0`",
    ),
    (
        "set policy route * interface *",
        "`interfaces … policy route X` became `policy route X interface …`",
    ),
    (
        "set policy route6 **",
        "`policy ipv6-route` renamed `policy route6`, interface moved in",
    ),
    (
        "set qos policy shaper **",
        "`traffic-policy shaper` moved to `qos policy shaper`",
    ),
    (
        "set service dhcp-server shared-network-name **",
        "DHCP options moved below `option`, `subnet-id` added, `mac-address` renamed `mac`, failover split out",
    ),
    (
        "set service dhcp-server high-availability **",
        "DHCP `failover` became `high-availability`",
    ),
    (
        "set service dhcpv6-server shared-network-name **",
        "DHCPv6 ranges numbered, options below `option`, `interface` and `subnet-id` added",
    ),
    (
        "set service ssh ciphers *",
        "comma-separated SSH ciphers split into values",
    ),
    (
        "set service ssh key-exchange *",
        "comma-separated SSH key exchanges split into values",
    ),
    (
        "set service conntrack-sync accept-protocol *",
        "comma-separated protocols split into values",
    ),
    (
        "set service dns forwarding name-server *",
        "DNS forwarding `name-server` leaf became a tag node",
    ),
    (
        "set service dns forwarding domain * name-server *",
        "DNS forwarding `domain … server` became `name-server`",
    ),
    (
        "set service dns dynamic name **",
        "dynamic DNS restructured into `name` entries",
    ),
    (
        "set service lldp snmp",
        "LLDP `snmp enable` became a valueless `snmp`",
    ),
    (
        "set service snmp v3 **",
        "SNMPv3 `encrypted-key` renamed `encrypted-password`, engine id normalised",
    ),
    (
        "set system flow-accounting netflow source-address *",
        "netflow `source-ip` renamed `source-address`",
    ),
    (
        "set system login radius **",
        "`radius-server` became `radius server`, `secret` renamed `key`",
    ),
    (
        "set system name-server 'pppoe0'",
        "`system name-servers-dhcp` merged into `system name-server`",
    ),
    (
        "set system option **",
        "`system options` renamed `system option`, its leaves renamed",
    ),
    (
        "set system sysctl parameter **",
        "`system sysctl custom` renamed `system sysctl parameter`",
    ),
    (
        "set vpn ipsec **",
        "IPsec: `ipsec-interfaces` flattened, peers named, PSKs moved to `authentication psk`, logging renamed",
    ),
];

fn matches(pattern: &str, line: &str) -> bool {
    let mut words = line.split_whitespace();
    for p in pattern.split_whitespace() {
        if p == "**" {
            return true;
        }
        match words.next() {
            Some(w) if p == "*" || p == w => {}
            _ => return false,
        }
    }
    words.next().is_none()
}

#[test]
fn every_fixture_parses_and_reads_back_from_its_own_rendering() {
    let mut names: Vec<String> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".config.boot") || n == "config.boot.default")
        .collect();
    names.sort();
    assert_eq!(names.len(), 9, "{names:?}");
    for name in names {
        let tree = ConfigTree::parse_boot(&config_fixture(&name))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            tree.root.children.len() >= 2,
            "{name}: only {} top-level nodes",
            tree.root.children.len()
        );
        let boot = tree.to_boot_string();
        assert_eq!(
            ConfigTree::parse_boot(&boot).unwrap(),
            tree,
            "{name}: config.boot rendering"
        );
        let set = tree.to_set_string();
        let from_set = ConfigTree::parse_set(&set).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(from_set.to_set_string(), set, "{name}: set rendering");
    }
}

#[test]
fn every_commands_file_parses_and_renders_back_line_for_line() {
    for base in PAIRS {
        let text = config_fixture(&format!("{base}.commands"));
        let tree = ConfigTree::parse_set(&text).unwrap_or_else(|e| panic!("{base}: {e}"));
        assert_eq!(tree.to_set_string(), text, "{base}");
        // And through the config.boot form.
        let again = ConfigTree::parse_boot(&tree.to_boot_string()).unwrap();
        assert_eq!(again.to_set_string(), text, "{base} via config.boot");
    }
}

/// Smoketest configurations (vyos-1x `smoketest/configs/NAME`) that are exactly VyOS's own printer
/// output. The other five were edited by hand upstream (values quoted that VyOS prints bare, such
/// as `balance "round-robin"` in `basic-vyos`, a repeated `password` line in
/// `dialup-router-medium-vpn`, a blank line in `vrf-bgp-pppoe-underlay`): they read into the
/// same tree as their rendering (`every_fixture_parses_and_reads_back_from_its_own_rendering`)
/// but are not byte for byte what a router prints.
const PRINTER_EXACT_SMOKETESTS: &[&str] = &[
    "basic-api-service",
    "bgp-azure-ipsec-gateway",
    "cluster-basic",
];

fn showconfig(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/showconfig/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The property of the router's own text: `render(parse(text)) == text`, byte for byte, footer
/// included.
#[test]
fn every_router_file_renders_back_byte_for_byte() {
    for b in PRINTER_EXACT_SMOKETESTS {
        let text = config_fixture(&format!("{b}.config.boot"));
        let tree = ConfigTree::parse_boot(&text).unwrap_or_else(|e| panic!("{b}: {e}"));
        assert_eq!(tree.to_boot_string(), text, "{b}");
    }
}

/// A saved file (and an archived revision, which is one) as 1.4 and 1.5 write it, produced by
/// `common::printers::sp_gw_config_boot`, which follows vyos-1x `src/helpers/vyos-save-config.py`
/// (`ct.to_string()`, `"\n"`, the footer), `python/vyos/configtree.py` `to_string`
/// (`unescape_backslash`) and vyos1x-config `src/config_tree.ml` `render_values` /
/// `render_tag_node_child` with `src/util.ml` `escape_string`: every value in `"`, escaped, and
/// a backslash put back single where its quoted string holds no escaped quote. It reads as
/// VyOS's `ConfigTree(text)` reads it (`escape_backslash`, then `src/vyos1x_lexer.mll`) and
/// renders back byte for byte. Failed first: the revision text was read with the showConfig
/// reader, which decodes nothing (`to \"Franca\"…` kept its backslashes).
#[test]
fn a_saved_file_reads_as_vyos_reads_it_and_renders_back() {
    let text = common::printers::sp_gw_config_boot();
    // The printer's rules, visible in its text.
    for line in [
        "        description \"Bob's-uplink\"\n",
        "        description \"C:\\tunnels\\sp-franca\"\n",
        " \"to \\\"Franca\\\" over the \\\"long\\\" fibre\"\n",
        " \"see \\\"C:\\\\ops\\\" and C:\\log\"\n",
        "        community pub*lic {\n",
        "}\n\n\n// Warning: Do not remove the following line.\n",
    ] {
        assert!(text.contains(line), "{line:?} not in\n{text}");
    }
    let tree = ConfigTree::parse_saved(&text).unwrap();
    let eth = |n: &str, leaf: &str| {
        tree.value(&["interfaces", "ethernet", n, leaf])
            .map(str::to_owned)
    };
    assert_eq!(eth("eth0", "description").as_deref(), Some("Bob's-uplink"));
    assert_eq!(
        eth("eth1", "description").as_deref(),
        Some("to \"Franca\" over the \"long\" fibre")
    );
    assert_eq!(
        tree.value(&["interfaces", "wireguard", "wg0", "description"]),
        Some("C:\\tunnels\\sp-franca")
    );
    assert_eq!(
        tree.value(&["system", "login", "banner", "post-login"]),
        Some("see \"C:\\ops\" and C:\\log")
    );
    assert_eq!(
        tree.value(&["service", "https", "listen-address"]),
        Some("*")
    );
    assert_eq!(tree.value(common::PLAINTEXT_PASSWORD), Some(""));
    assert_eq!(
        tree.value(&["service", "snmp", "trap-target", "192.0.2.50", "community"]),
        Some("Tr4p'Secret")
    );
    assert!(tree.exists(&["service", "snmp", "community", "pub*lic"]));
    let footer = tree.footer.as_deref().unwrap();
    assert!(
        footer.starts_with(
            "\n\n// Warning: Do not remove the following line.\n// vyos-config-version: \"bgp@5:"
        ),
        "{footer:?}"
    );
    assert_eq!(tree.to_saved_string(), text);
    // The same tree as the router's showConfig prints it.
    let shown = ConfigTree::parse_boot(&common::printers::sp_gw_show_config()).unwrap();
    assert_eq!(tree.root, shown.root);
}

/// A value or tag value that starts and ends with `'` is printed bare by VyOS (vyatta-cfg
/// `src/cnode/cnode-algorithm.cpp` `_print_value_str` and `_diff_show_other` quote only for a
/// blank or one of `*}{;`), and its own config lexer opens a quoted string only at `"`
/// (`src/cparse/cparse_lex.l`: `<sValue>\"`; an unquoted value is
/// `[^{"[:space:]][^{[:space:]]*`), so `'uplink'` is the value `'uplink'`, quotes included.
/// Failed first: the reader took `'` for a quote, read `uplink` and rendered `"'uplink'"`-less
/// text, so render∘parse was not the identity and diffs showed false changes.
#[test]
fn single_quotes_in_config_boot_are_part_of_the_value() {
    let text = "interfaces {\n    ethernet eth0 {\n        description 'uplink'\n    }\n    ethernet eth1 {\n        description '\n    }\n}\nservice {\n    snmp {\n        community 'ro' {\n            authorization ro\n        }\n    }\n}\n";
    let tree = ConfigTree::parse_boot(text).unwrap();
    assert_eq!(
        tree.value(&["interfaces", "ethernet", "eth0", "description"]),
        Some("'uplink'")
    );
    assert_eq!(
        tree.value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("'")
    );
    assert!(tree.exists(&["service", "snmp", "community", "'ro'", "authorization"]));
    assert_eq!(tree.to_boot_string(), text);
    // The `set` form quotes every value, here with `"` (a `'` ends the value), and quotes a tag
    // word that starts with a quote; both read back as written.
    let set = tree.to_set_string();
    assert_eq!(
        set,
        "set interfaces ethernet eth0 description \"'uplink'\"\nset interfaces ethernet eth1 description \"'\"\nset service snmp community \"'ro'\" authorization 'ro'\n"
    );
    assert_eq!(ConfigTree::parse_set(&set).unwrap().root, tree.root);
}

/// `/retrieve` `showConfig` inside the API's session prints a blank column before each line
/// (vyatta-cfg `src/cnode/cnode-algorithm.cpp`: `PFX_DIFF_NONE` for unchanged lines of the active
/// against the working configuration) and no footer.
#[test]
fn the_api_showconfig_form_reads_and_renders_back() {
    let text = common::printers::sp_gw_show_config();
    let tree = ConfigTree::parse_boot(&text).unwrap();
    assert_eq!(tree.to_show_config_string(), text);
    assert_eq!(
        tree.value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("to \"Franca\" over the \"long\" fibre")
    );
    assert_eq!(
        tree.value(&["system", "login", "banner", "post-login"]),
        Some("see \"C:\\ops\" and C:\\log")
    );
    assert!(tree.exists(&["service", "snmp", "community", "pub*lic"]));
}

/// While the session holds uncommitted changes, showConfig marks lines `+`, `-` and `>`
/// (`PFX_DIFF_ADD`, `PFX_DIFF_DEL`, `PFX_DIFF_UPD` in vyatta-cfg `src/cnode/cnode-algorithm.cpp`):
/// refused, naming the first marked line, never read as a name.
#[test]
fn marks_of_uncommitted_changes_are_refused_with_their_line() {
    let err = ConfigTree::parse_boot(&showconfig("sp-gw-pending.showconfig")).unwrap_err();
    assert_eq!((err.line, err.column), (19, 1));
    assert_eq!(err.kind, ParseErrorKind::UncommittedChange { mark: '+' });
    assert!(err.to_string().contains("uncommitted"), "{err}");
}

/// `data/config.boot.default` (vyos-1x) is written by hand with every value quoted: it reads into
/// the same tree as VyOS's own rendering of it, which quotes only what needs quotes.
#[test]
fn the_hand_written_default_config_reads_as_vyos_prints_it() {
    let text = config_fixture("config.boot.default");
    let tree = ConfigTree::parse_boot(&text).unwrap();
    assert_eq!(tree.footer, None);
    let rendered = tree.to_boot_string();
    assert!(
        rendered.contains("        commit-revisions 100\n"),
        "{rendered}"
    );
    assert!(
        rendered.contains("                plaintext-password \"\"\n"),
        "{rendered}"
    );
    assert_eq!(
        rendered,
        text.replace('"', "")
            .replace("plaintext-password \n", "plaintext-password \"\"\n")
    );
    assert_eq!(ConfigTree::parse_boot(&rendered).unwrap(), tree);
}

#[test]
fn footers_are_kept_verbatim() {
    let tree = ConfigTree::parse_boot(&config_fixture("basic-vyos.config.boot")).unwrap();
    let footer = tree.footer.as_deref().unwrap();
    assert!(footer.starts_with(
        "/* Warning: Do not remove the following line. */\n/* === vyatta-config-version: "
    ));
    assert!(footer.ends_with("=== */\n/* Release version: 1.2.6 */\n"));
    let tree = ConfigTree::parse_boot(&config_fixture("basic-api-service.config.boot")).unwrap();
    let footer = tree.footer.clone().unwrap();
    // The blank lines between the last node and the footer belong to the footer.
    assert!(footer.starts_with("\n\n// Warning: Do not remove the following line.\n// vyos-config-version: \"broadcast-relay@1:"), "{footer:?}");
    assert!(footer.ends_with("// Release version: 1.3-rolling-202010241631\n"));
    assert!(
        tree.to_boot_string()
            .ends_with(&format!("    }}\n}}\n{footer}"))
    );
}

#[test]
fn set_rendering_covers_the_migrated_commands_except_documented_migrations() {
    let mut used = vec![false; MIGRATIONS.len()];
    let mut total_covered = 0;
    for base in PAIRS {
        let tree = ConfigTree::parse_boot(&config_fixture(&format!("{base}.config.boot"))).unwrap();
        let ours: HashSet<String> = tree.to_set_string().lines().map(str::to_owned).collect();
        let expected = config_fixture(&format!("{base}.commands"));
        let (covered, uncovered): (Vec<&str>, Vec<&str>) =
            expected.lines().partition(|l| ours.contains(*l));
        total_covered += covered.len();
        // The concrete list of what migration changed, checked in next to the fixture.
        let listed = config_fixture(&format!("{base}.migrated"));
        assert_eq!(
            uncovered,
            listed.lines().collect::<Vec<_>>(),
            "{base}: uncovered commands changed"
        );
        for line in &uncovered {
            let rule = MIGRATIONS.iter().position(|(p, _)| matches(p, line));
            let Some(i) = rule else {
                panic!("{base}: no migration explains `{line}`")
            };
            used[i] = true;
        }
    }
    for (i, (p, _)) in MIGRATIONS.iter().enumerate() {
        assert!(used[i], "migration rule `{p}` explains nothing");
    }
    // Of the 1676 commands, 891 were changed by migration; the rest the old files already say.
    assert_eq!(total_covered, 1676 - 891);
}

#[test]
fn concrete_migration_counts() {
    let counts: Vec<(&str, usize)> = PAIRS
        .iter()
        .map(|b| (*b, config_fixture(&format!("{b}.migrated")).lines().count()))
        .collect();
    assert_eq!(
        counts,
        vec![
            ("basic-api-service", 18),
            ("basic-vyos", 60),
            ("bgp-azure-ipsec-gateway", 161),
            ("cluster-basic", 8),
            ("dialup-router-medium-vpn", 128),
            ("dialup-router-wireguard-ipv6", 508),
            ("nat-basic", 6),
            ("vrf-bgp-pppoe-underlay", 2),
        ]
    );
}
