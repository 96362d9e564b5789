//! Text written by the routers' own printers, rule for rule, so fixtures are produced by the
//! printing code's logic rather than typed by hand. Each function names the code it follows.

/// One WireGuard peer's live state, as the kernel holds it (`wg show NAME dump`).
#[derive(Clone, Debug)]
pub struct LivePeer {
    /// The peer's name in the configuration (only VyOS's table prints it).
    pub name: String,
    pub public_key: String,
    pub preshared_key: bool,
    pub endpoint: Option<String>,
    pub allowed_ips: Vec<String>,
    /// Seconds since the latest handshake; `None`: never (the kernel's 0).
    pub handshake_ago: Option<u64>,
    pub rx: u64,
    pub tx: u64,
    pub keepalive: Option<u16>,
}

/// One WireGuard interface's live state.
#[derive(Clone, Debug)]
pub struct LiveInterface {
    pub name: String,
    pub public_key: String,
    pub listen_port: u16,
    pub description: Option<String>,
    pub addresses: Vec<String>,
    pub peers: Vec<LivePeer>,
}

/// wireguard-tools `src/show.c` `pretty_time`: the non-zero parts of years (365 days), days,
/// hours, minutes and seconds, each `N unit` with an `s` unless N is 1, joined by `, `.
pub fn wg_pretty_time(mut left: u64) -> String {
    let mut parts = Vec::new();
    for (size, unit) in [
        (365 * 86_400, "year"),
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ] {
        let n = left / size;
        left %= size;
        if n > 0 {
            parts.push(format!("{n} {unit}{}", if n == 1 { "" } else { "s" }));
        }
    }
    parts.join(", ")
}

/// wireguard-tools `src/show.c` `ago`: `Now` for the current second, else `pretty_time` and
/// ` ago`.
pub fn wg_ago(secs: u64) -> String {
    if secs == 0 {
        "Now".to_owned()
    } else {
        format!("{} ago", wg_pretty_time(secs))
    }
}

/// wireguard-tools `src/show.c` `bytes`: `%u B` below 1024, else `%.2f` of the largest of
/// KiB, MiB, GiB that keeps the number under 1024 (TiB above).
pub fn wg_bytes(b: u64) -> String {
    const K: u64 = 1024;
    if b < K {
        format!("{b} B")
    } else if b < K * K {
        format!("{:.2} KiB", b as f64 / 1024.0)
    } else if b < K * K * K {
        format!("{:.2} MiB", b as f64 / (1024.0 * 1024.0))
    } else if b < K * K * K * K {
        format!("{:.2} GiB", b as f64 / (1024.0 * 1024.0 * 1024.0))
    } else {
        format!("{:.2} TiB", b as f64 / (1024.0 * 1024.0 * 1024.0) / 1024.0)
    }
}

/// wireguard-tools `src/show.c` `pretty_print` with colours off (`src/terminal.c`
/// `filter_ansi`: stdout is no terminal under the API): the interface lines, a blank line when
/// there are peers, then each peer (sorted by `peer_cmp`: latest handshake first, those that
/// never shook hands last) with its attributes two spaces in and a blank line between peers.
/// Keys are `(hidden)` (`masked_key`, `WG_HIDE_KEYS` unset).
pub fn wg_show(iface: &LiveInterface) -> String {
    let mut out = format!("interface: {}\n", iface.name);
    out += &format!("  public key: {}\n", iface.public_key);
    out += "  private key: (hidden)\n";
    out += &format!("  listening port: {}\n", iface.listen_port);
    let mut peers = iface.peers.clone();
    peers.sort_by_key(|p| p.handshake_ago.unwrap_or(u64::MAX));
    if !peers.is_empty() {
        out += "\n";
    }
    for (i, p) in peers.iter().enumerate() {
        out += &format!("peer: {}\n", p.public_key);
        if p.preshared_key {
            out += "  preshared key: (hidden)\n";
        }
        if let Some(e) = &p.endpoint {
            out += &format!("  endpoint: {e}\n");
        }
        if p.allowed_ips.is_empty() {
            out += "  allowed ips: (none)\n";
        } else {
            out += &format!("  allowed ips: {}\n", p.allowed_ips.join(", "));
        }
        if let Some(s) = p.handshake_ago {
            out += &format!("  latest handshake: {}\n", wg_ago(s));
        }
        if p.rx > 0 || p.tx > 0 {
            out += &format!(
                "  transfer: {} received, {} sent\n",
                wg_bytes(p.rx),
                wg_bytes(p.tx)
            );
        }
        if let Some(k) = p.keepalive {
            out += &format!(
                "  persistent keepalive: every {}\n",
                wg_pretty_time(k.into())
            );
        }
        if i + 1 < peers.len() {
            out += "\n";
        }
    }
    out
}

/// Python's `str(datetime.timedelta(seconds=n))`: `H:MM:SS`, after `1 day, ` or `N days, `.
pub fn py_timedelta(secs: u64) -> String {
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let clock = format!("{}:{:02}:{:02}", rest / 3_600, rest % 3_600 / 60, rest % 60);
    match days {
        0 => clock,
        1 => format!("1 day, {clock}"),
        d => format!("{d} days, {clock}"),
    }
}

/// `hurry.filesize.size(n, system=alternative)`: the largest of PB, TB, GB, MB, KB (1024s) not
/// above `n`, the whole number `int(n / factor)`, else `byte`/`bytes`.
pub fn hurry_alternative(n: u64) -> String {
    for (factor, suffix) in [
        (1u64 << 50, "PB"),
        (1 << 40, "TB"),
        (1 << 30, "GB"),
        (1 << 20, "MB"),
        (1 << 10, "KB"),
    ] {
        if n >= factor {
            return format!("{} {suffix}", n / factor);
        }
    }
    format!("{n} {}", if n == 1 { "byte" } else { "bytes" })
}

/// vyos-1x (`current`) `python/vyos/ifconfig/wireguard.py` `WireGuardOperational.show_interface`,
/// as `src/op_mode/interfaces_wireguard.py` `show_summary` returns it and `print` writes it (one
/// more newline). Peers in configuration order, each that the kernel knows; `latest handshake`
/// and `status` only after a handshake; `transfer` only when a byte moved; a blank line after
/// every configured peer.
pub fn vyos_show_interface(iface: &LiveInterface) -> String {
    let mut out = format!("interface: {}\n", iface.name);
    if let Some(d) = &iface.description {
        out += &format!("  description: {d}\n");
    }
    if !iface.addresses.is_empty() {
        out += &format!("  address: {}\n", iface.addresses.join(", "));
    }
    out += &format!("  public key: {}\n", iface.public_key);
    out += "  private key: (hidden)\n";
    out += &format!("  listening port: {}\n", iface.listen_port);
    out += "\n";
    for p in &iface.peers {
        out += &format!("  peer: {}\n", p.name);
        out += &format!("    public key: {}\n", p.public_key);
        if let Some(s) = p.handshake_ago {
            out += &format!("    latest handshake: {}\n", py_timedelta(s));
            let status = if s < 300 { "active" } else { "inactive" };
            out += &format!("    status: {status}\n");
        }
        if let Some(e) = &p.endpoint {
            out += &format!("    endpoint: {e}\n");
        }
        out += &format!("    allowed ips: {}\n", p.allowed_ips.join(", "));
        if p.rx > 0 || p.tx > 0 {
            out += &format!(
                "    transfer: {} received, {} sent\n",
                hurry_alternative(p.rx),
                hurry_alternative(p.tx)
            );
        }
        if let Some(k) = p.keepalive {
            out += &format!("    persistent keepalive: every {k} seconds\n");
        }
        out += "\n";
    }
    out + "\n"
}

/// The live state the fake routers report for the peers of `wg0` in
/// `dialup-router-medium-vpn.config.boot` (VyOS's test configuration), by peer name: red shook
/// hands 40 s ago, blue an hour ago (1 h 2 min 3 s), pink two days ago, green never.
pub fn live_state(name: &str) -> (Option<u64>, u64, u64) {
    match name {
        "red" => (Some(40), 1_536, 3 * (1 << 20) + 5_000),
        "blue" => (Some(3_723), 700, 0),
        "pink" => (Some(2 * 86_400 + 5), 5 << 30, 1 << 30),
        _ => (None, 0, 0),
    }
}

/// A node of a configuration as vyatta-cfg's printer sees it (`CfgNode`), children in VyOS's
/// sorted order.
#[derive(Clone, Debug)]
pub enum CNode {
    /// A leaf with one or more values (a multi-value leaf prints one line per value).
    Leaf(&'static str, Vec<&'static str>),
    /// A valueless leaf (`is_leaf_typeless`): the name alone.
    Typeless(&'static str),
    /// An intermediate node, with an optional comment.
    Node(&'static str, Option<&'static str>, Vec<CNode>),
    /// A tag node's entry (`name value {`), with an optional comment.
    Tag(&'static str, &'static str, Option<&'static str>, Vec<CNode>),
}

/// vyatta-cfg `src/cnode/cnode-algorithm.cpp` `_print_value_str` (secrets not hidden): quotes
/// only a value that is empty or where `strcspn(vstr, "*}{;\011\012\013\014\015 ") < vlen`;
/// nothing is escaped.
fn cnode_value(v: &str) -> String {
    let special = |c: char| "*}{;\t\n\u{b}\u{c}\r ".contains(c);
    if v.is_empty() || v.chars().any(special) {
        format!("\"{v}\"")
    } else {
        v.to_owned()
    }
}

/// `_diff_show_other` for a tag value: the same `strcspn` test without the empty case.
fn cnode_tag_value(v: &str) -> String {
    if v.chars().any(|c| "*}{;\t\n\u{b}\u{c}\r ".contains(c)) {
        format!("\"{v}\"")
    } else {
        v.to_owned()
    }
}

/// vyatta-cfg `src/cnode/cnode-algorithm.cpp` `_show_diff` as showConfig runs it: every line
/// starts with `pfx` (`PFX_DIFF_NULL`, "", when both configurations are the same node, as for
/// the saved file; `PFX_DIFF_NONE`, " ", for an unchanged line of the active against the working
/// configuration, as inside the API's session) and four spaces per level
/// (`_diff_print_indent`); a comment is `/* c */` on the line before its node
/// (`_diff_print_comment`); a leaf is `name value` per value (`_diff_check_and_show_leaf`); a
/// typeless leaf is its name, other nodes `name {` or `name value {` … `}` (`_diff_show_other`).
pub fn cnode_print(nodes: &[CNode], pfx: &str) -> String {
    fn walk(out: &mut String, nodes: &[CNode], level: usize, pfx: &str) {
        let indent = |out: &mut String| {
            out.push_str(pfx);
            out.push_str(&"    ".repeat(level));
        };
        for n in nodes {
            match n {
                CNode::Leaf(name, values) => {
                    for v in values {
                        indent(out);
                        *out += &format!("{name} {}\n", cnode_value(v));
                    }
                }
                CNode::Typeless(name) => {
                    indent(out);
                    *out += &format!("{name}\n");
                }
                CNode::Node(name, comment, children) | CNode::Tag(name, _, comment, children) => {
                    if let Some(c) = comment {
                        indent(out);
                        *out += &format!("/* {c} */\n");
                    }
                    indent(out);
                    out.push_str(name);
                    if let CNode::Tag(_, value, _, _) = n {
                        *out += &format!(" {}", cnode_tag_value(value));
                    }
                    out.push_str(" {\n");
                    walk(out, children, level + 1, pfx);
                    indent(out);
                    out.push_str("}\n");
                }
            }
        }
    }
    let mut out = String::new();
    walk(&mut out, nodes, 0, pfx);
    out
}

/// vyos-1x `python/vyos/component_version.py` `CONFIG_FILE_VERSION`, as `save` appends it.
pub fn version_footer(components: &str, release: &str) -> String {
    format!(
        "// Warning: Do not remove the following line.\n// vyos-config-version: \"{components}\"\n// Release version: {release}\n"
    )
}

/// A São Paulo gateway's configuration whose values exercise the printers' rules: an
/// apostrophe, double quotes inside a value that needs quotes, backslashes (one before a `t`, as
/// in an escape), `*`, an empty value, a tag value with a `*` (legal for an SNMP community:
/// `[[:alnum:]-_!@*#]{1,100}`, vyos-1x `interface-definitions/service_snmp.xml.in`), secrets, a
/// comment.
pub fn sp_gw() -> Vec<CNode> {
    use CNode::{Leaf, Node, Tag};
    vec![
        Node(
            "interfaces",
            None,
            vec![
                Tag(
                    "ethernet",
                    "eth0",
                    None,
                    vec![
                        Leaf("address", vec!["192.0.2.1/24"]),
                        Leaf("description", vec!["Bob's-uplink"]),
                        Leaf("hw-id", vec!["00:50:56:aa:bb:01"]),
                    ],
                ),
                Tag(
                    "ethernet",
                    "eth1",
                    None,
                    vec![
                        Leaf("address", vec!["10.10.0.1/24"]),
                        Leaf("description", vec!["to \"Franca\" over the \"long\" fibre"]),
                    ],
                ),
                Tag(
                    "wireguard",
                    "wg0",
                    Some("inter-site tunnel"),
                    vec![
                        Leaf("address", vec!["10.255.0.1/30"]),
                        Leaf("description", vec!["C:\\tunnels\\sp-franca"]),
                        Tag(
                            "peer",
                            "franca",
                            None,
                            vec![
                                Leaf("address", vec!["198.51.100.7"]),
                                Leaf("allowed-ips", vec!["10.255.0.0/30"]),
                                Leaf("port", vec!["51820"]),
                                Leaf(
                                    "preshared-key",
                                    vec!["kP3x4mpleKey0000000000000000000000000000000="],
                                ),
                                Leaf(
                                    "public-key",
                                    vec!["Zm9vYmFyYmF6cXV4MDAwMDAwMDAwMDAwMDAwMDAwMDA="],
                                ),
                            ],
                        ),
                        Leaf("port", vec!["51820"]),
                        Leaf(
                            "private-key",
                            vec!["cHJpdmF0ZWtleTAwMDAwMDAwMDAwMDAwMDAwMDAwMDA="],
                        ),
                    ],
                ),
            ],
        ),
        Node(
            "service",
            None,
            vec![
                Node(
                    "https",
                    None,
                    vec![
                        Node(
                            "api",
                            None,
                            vec![Node(
                                "keys",
                                None,
                                vec![Tag(
                                    "id",
                                    "automation",
                                    None,
                                    vec![Leaf("key", vec!["s3cr3t key"])],
                                )],
                            )],
                        ),
                        Leaf("listen-address", vec!["*"]),
                    ],
                ),
                Node(
                    "snmp",
                    None,
                    vec![
                        Tag(
                            "community",
                            "pub*lic",
                            None,
                            vec![Leaf("authorization", vec!["ro"])],
                        ),
                        Tag(
                            "trap-target",
                            "192.0.2.50",
                            None,
                            vec![Leaf("community", vec!["Tr4p'Secret"])],
                        ),
                    ],
                ),
            ],
        ),
        Node(
            "system",
            None,
            vec![
                Node(
                    "config-management",
                    None,
                    vec![
                        Node(
                            "commit-archive",
                            None,
                            vec![Leaf(
                                "location",
                                vec!["scp://backup:Hunter2@192.0.2.5:/srv/vyos"],
                            )],
                        ),
                        Leaf("commit-revisions", vec!["100"]),
                    ],
                ),
                Leaf("host-name", vec!["sp-gw"]),
                Node(
                    "login",
                    None,
                    vec![
                        Node(
                            "banner",
                            None,
                            vec![
                                Leaf("post-login", vec!["see \"C:\\ops\" and C:\\log"]),
                                Leaf(
                                    "pre-login",
                                    vec!["Authorised access only; all sessions are logged"],
                                ),
                            ],
                        ),
                        Tag(
                            "user",
                            "vyos",
                            None,
                            vec![Node(
                                "authentication",
                                None,
                                vec![
                                    Leaf("encrypted-password", vec!["$6$rounds=656000$abc$xyz"]),
                                    Leaf("plaintext-password", vec![""]),
                                    Tag(
                                        "public-keys",
                                        "ops@laptop",
                                        None,
                                        vec![
                                            Leaf(
                                                "key",
                                                vec!["AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTests"],
                                            ),
                                            Leaf("type", vec!["ssh-ed25519"]),
                                        ],
                                    ),
                                ],
                            )],
                        ),
                    ],
                ),
            ],
        ),
    ]
}

/// vyos1x-config `src/util.ml` `escape_string` (`escape_bytes`): `"` and `\\` get a backslash,
/// line feed, tab, carriage return and backspace are `\\n`, `\\t`, `\\r`, `\\b`, other bytes
/// below 32 and 127 are `\\` and three decimal digits; printable and non-ASCII bytes stay.
pub fn vyos1x_escape(v: &str) -> String {
    let mut out = String::new();
    for c in v.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            c if (c as u32) < 32 || c as u32 == 127 => out.push_str(&format!("\\{:03}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// vyos1x-config `src/config_tree.ml` `Renderer.render_config` (indent 4): `render_values` writes
/// each value as `name "escaped"` (every value quoted, `Util.escape_string`), a valueless leaf as
/// its name; `render_comment` `/* c */` before a node; `render_node` `name {` … `}` for a node
/// with children; `render_tag_node_child` `parent value {` … `}` per entry with the tag value
/// bare and unescaped, and the entry's comment before it.
pub fn vyos1x_render(nodes: &[CNode]) -> String {
    fn walk(out: &mut String, nodes: &[CNode], level: usize) {
        let ind = "    ".repeat(level);
        for n in nodes {
            match n {
                CNode::Leaf(name, values) => {
                    for v in values {
                        *out += &format!("{ind}{name} \"{}\"\n", vyos1x_escape(v));
                    }
                }
                CNode::Typeless(name) => *out += &format!("{ind}{name}\n"),
                CNode::Node(name, comment, children) | CNode::Tag(name, _, comment, children) => {
                    if let Some(c) = comment {
                        *out += &format!("{ind}/* {c} */\n");
                    }
                    out.push_str(&ind);
                    out.push_str(name);
                    if let CNode::Tag(_, value, _, _) = n {
                        *out += &format!(" {value}");
                    }
                    out.push_str(" {\n");
                    walk(out, children, level + 1);
                    *out += &format!("{ind}}}\n");
                }
            }
        }
    }
    let mut out = String::new();
    walk(&mut out, nodes, 0);
    out
}

/// vyos-1x `python/vyos/configtree.py` `unescape_backslash` (`replace_backslash` with the pattern
/// `("[^"]*[\\][^"]*"\n|'[^']*[\\][^']*'\n)`): in each match, left to right and not
/// overlapping, `\\\\` becomes `\\`. A match runs from a quote to the next same quote, which
/// must be followed by a line feed, and holds a backslash.
pub fn py_unescape_backslash(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    loop {
        let Some(q) = rest.find(['"', '\'']) else {
            out.push_str(rest);
            return out;
        };
        let quote = &rest[q..q + 1];
        let after = &rest[q + 1..];
        let hit = after
            .find(quote)
            .filter(|&e| after[e + 1..].starts_with('\n') && after[..e].contains('\\'));
        match hit {
            Some(e) => {
                out.push_str(&rest[..=q]);
                out.push_str(&after[..e].replace("\\\\", "\\"));
                out.push_str(quote);
                out.push('\n');
                rest = &after[e + 2..];
            }
            None => {
                out.push_str(&rest[..=q]);
                rest = after;
            }
        }
    }
}

/// vyos-1x `python/vyos/configtree.py` `escape_backslash`, which `ConfigTree(text)` applies
/// before vyos1x-config parses: the same pattern as [`py_unescape_backslash`], `\\` to `\\\\`.
pub fn py_escape_backslash(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(q) = rest.find(['"', '\'']) {
        let quote = &rest[q..q + 1];
        let after = &rest[q + 1..];
        let hit = after
            .find(quote)
            .filter(|&e| after[e + 1..].starts_with('\n') && after[..e].contains('\\'));
        out.push_str(&rest[..=q]);
        match hit {
            Some(e) => {
                out.push_str(&after[..e].replace('\\', "\\\\"));
                out.push_str(quote);
                out.push('\n');
                rest = &after[e + 2..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    out
}

/// `sp_gw` as `save` writes it on 1.4 and 1.5, and as `config_mgmt.py`
/// `_archive_active_config` archives it (`save_config`, the same script): vyos-1x
/// `src/helpers/vyos-save-config.py` writes `ct.to_string()` of the running tree, `"\n"` and the
/// system footer (sagitta: `f.write`; current: `add_system_version`, `VersionInfo.write_string`,
/// the same bytes); `ConfigTree.to_string` (`python/vyos/configtree.py`) is vyos1x-config's
/// renderer ([`vyos1x_render`]) passed through `unescape_backslash`, then `"\n"` and the tree's
/// version string, empty for a tree read from `showConfig`.
pub fn sp_gw_config_boot() -> String {
    py_unescape_backslash(&vyos1x_render(&sp_gw()))
        + "\n"
        + "\n"
        + &version_footer(
            "bgp@5:broadcast-relay@1:cluster@2:config-management@1:conntrack@5:conntrack-sync@2:container@2:dhcp-relay@2:dhcp-server@8:dhcpv6-server@1:dns-dynamic@4:dns-forwarding@4:firewall@15:flow-accounting@1:https@6:ids@1:interfaces@32:ipoe-server@3:ipsec@13:isis@3:l2tp@9:lldp@2:mdns@1:monitoring@1:nat@8:nat66@3:ntp@3:openconnect@3:ospf@2:pim@1:policy@8:pppoe-server@10:pptp@5:qos@2:quagga@11:rip@1:rpki@2:salt@1:snmp@3:ssh@2:sstp@6:system@27:vrf@3:vrrp@4:vyos-accel-ppp@2:wanloadbalance@3:webproxy@2",
            "1.4.0",
        )
}

/// `sp_gw` as `/retrieve` `showConfig` prints it inside the API's session with nothing
/// uncommitted: `PFX_DIFF_NONE` before every line, no footer.
pub fn sp_gw_show_config() -> String {
    cnode_print(&sp_gw(), " ")
}

/// `sp_gw` as `/retrieve` `showConfig` (`raw`) answers on a router whose configuration backend
/// is vyconf: vyos-1x `src/services/api/rest/routers.py` `retrieve_op` returns
/// `session.show_config(path)` as it is for `raw`; `python/vyos/configsession.py`
/// `ConfigSession.show_config` asks `VyconfSession.show_config` (`python/vyos/vyconf_session.py`,
/// a `show_config` request with no format) instead of `cli-shell-api showConfig` once
/// `vyconf_backend()`; vyconf `src/vyconfd.ml` `show_config` takes the format `Curly` by default
/// and `src/session.ml` `show_config` answers `CT.render_at_level node path`, which in
/// vyos1x-config `src/config_tree.ml` is `render_config` of the node at the path: the
/// renderer of [`vyos1x_render`], with no diff column, no `unescape_backslash` (that is Python's
/// `ConfigTree.to_string`, not called here) and no footer.
pub fn sp_gw_vyconf_show_config() -> String {
    vyos1x_render(&sp_gw())
}

/// `nodes` as `/retrieve` `showConfig` (`raw`) answers on a router whose vyconf is the newer
/// one: vyconf `src/session.ml` `show_config` answers `CD.diff_show w.reference_tree path_show
/// w.running_config proposed_config` (no longer `render_at_level`); with nothing uncommitted the
/// two trees are equal, so vyos1x-config `src/diff.ml` `diff_calc` calls `diff_func [] Unchanged`
/// once, and `src/diff_show.ml` `diff_func` renders `Config_tree.render_config res.left` (the
/// renderer of [`vyos1x_render`]) through `annotate_rendered Unchanged`, which puts `" "` before
/// every non-empty line; the closing `diff_func ~descent:false []` adds nothing at the root.
pub fn vyconf_diff_show(nodes: &[CNode]) -> String {
    vyos1x_render(nodes)
        .split('\n')
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!(" {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `set` lines as VyOS prints them for `(path, value)` pairs held by a tree: vyos-1x
/// `op-mode-definitions/show-configuration.xml.in` (`show configuration commands`:
/// `cli-shell-api showCfg --show-active-only | vyos-config-to-commands`; also
/// `vyos-config-to-commands FILE` for a saved file) → `src/utils/vyos-config-to-commands`
/// `print(ConfigTree(text).to_commands())` → `python/vyos/configtree.py` `to_commands`:
/// vyos1x-config `src/config_tree.ml` `Renderer.render_commands` (each value through
/// `Util.escape_string`, then `render_set_path`: `set PATH 'VALUE'`, path words bare, lines
/// joined by `"\n"`), then `unescape_backslash` over the whole text; `print` adds the last line
/// feed.
pub fn vyos_set_commands(lines: &[(&str, &str)]) -> String {
    let text: Vec<String> = lines
        .iter()
        .map(|(path, v)| format!("set {path} '{}'", vyos1x_escape(v)))
        .collect();
    py_unescape_backslash(&(text.join("\n") + "\n"))
}
