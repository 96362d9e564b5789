//! The configuration model on small hand-written inputs: what the parser keeps, where it reports
//! errors, what the renderers write, what the diff sends, the typed views and redaction.

mod common;

use cpps_vyos::ParseErrorKind;
use cpps_vyos::config::{Command, ConfigTree, Node, NodeRef, diff, parse_commands};
use secrecy::ExposeSecret;

fn fixture(name: &str) -> ConfigTree {
    ConfigTree::parse_boot(&common::config_fixture(name)).unwrap()
}

const SAMPLE: &str = r#"interfaces {
    /* uplink */
    ethernet eth0 {
        address 192.0.2.1/24
        address "2001:db8::1/64"
        description "to "ISP""
        disable
    }
    // skipped like VyOS does
    ethernet eth1 {
    }
}
system {
    host-name r1
}
// Release version: 1.4
"#;

#[test]
fn parser_keeps_values_multi_values_tags_comments_and_footer() {
    let t = ConfigTree::parse_boot(SAMPLE).unwrap();
    assert_eq!(
        t.values(&["interfaces", "ethernet", "eth0", "address"]),
        ["192.0.2.1/24", "2001:db8::1/64"]
    );
    assert_eq!(
        t.value(&["interfaces", "ethernet", "eth0", "description"]),
        Some("to \"ISP\"")
    );
    assert!(
        matches!(t.get(&["interfaces", "ethernet", "eth0", "disable"]), Some(NodeRef::Leaf(l)) if l.values.is_empty())
    );
    let Some(NodeRef::Tag(tag)) = t.get(&["interfaces", "ethernet"]) else {
        panic!("not a tag node")
    };
    assert_eq!(tag.entries.keys().collect::<Vec<_>>(), ["eth0", "eth1"]);
    assert_eq!(tag.entries["eth0"].comment.as_deref(), Some("uplink"));
    assert!(tag.entries["eth1"].children.is_empty());
    assert_eq!(t.host_name(), Some("r1"));
    // The footer is kept byte for byte, up to the end of the file.
    assert_eq!(t.footer.as_deref(), Some("// Release version: 1.4\n"));
}

#[test]
fn renders_as_vyos_does() {
    let t = ConfigTree::parse_boot(SAMPLE).unwrap();
    assert_eq!(
        t.to_boot_string(),
        // vyatta-cfg `src/cnode/cnode-algorithm.cpp` (`_print_value_str`): quotes only around a
        // value with a blank (or `*}{;`), and no escape: the inner quotes stay as they are.
        "interfaces {\n    /* uplink */\n    ethernet eth0 {\n        address 192.0.2.1/24\n        address 2001:db8::1/64\n        description \"to \"ISP\"\"\n        disable\n    }\n    ethernet eth1 {\n    }\n}\nsystem {\n    host-name r1\n}\n// Release version: 1.4\n"
    );
    // vyos-1x `vyos-config-to-commands` (`configtree.py` `to_commands`): vyos1x-config
    // `escape_string` writes the inner quotes `\"`.
    assert_eq!(
        t.to_set_string(),
        "set interfaces ethernet eth0 address '192.0.2.1/24'\n\
         set interfaces ethernet eth0 address '2001:db8::1/64'\n\
         set interfaces ethernet eth0 description 'to \\\"ISP\\\"'\n\
         set interfaces ethernet eth0 disable\n\
         comment interfaces ethernet eth0 'uplink'\n\
         set interfaces ethernet eth1\n\
         set system host-name 'r1'\n"
    );
}

#[test]
fn errors_name_line_and_column() {
    let cases: &[(&str, usize, usize, ParseErrorKind)] = &[
        (
            " system {\n+    host-name r1\n }\n",
            2,
            1,
            ParseErrorKind::UncommittedChange { mark: '+' },
        ),
        (
            " system {\n-    host-name r1\n }\n",
            2,
            1,
            ParseErrorKind::UncommittedChange { mark: '-' },
        ),
        (
            " system {\n>    host-name r2\n }\n",
            2,
            1,
            ParseErrorKind::UncommittedChange { mark: '>' },
        ),
        (
            "system {\n    host-name r1\n",
            3,
            1,
            ParseErrorKind::MissingCloseBrace,
        ),
        (
            "system {\n}\n}\n",
            3,
            1,
            ParseErrorKind::Unexpected {
                found: "`}`".into(),
                expected: "a node name",
            },
        ),
        (
            "a {\n  /* x\n}\n",
            2,
            3,
            ParseErrorKind::UnterminatedComment,
        ),
        ("a {\n  /* x */\n}\n", 2, 3, ParseErrorKind::DanglingComment),
        (
            "a {\n}\na {\n}\n",
            3,
            1,
            ParseErrorKind::Duplicate { name: "a".into() },
        ),
        (
            "a 1\na {\n}\n",
            2,
            1,
            ParseErrorKind::Conflict { name: "a".into() },
        ),
        (
            "e x {\n}\ne x {\n}\n",
            3,
            1,
            ParseErrorKind::Duplicate { name: "e x".into() },
        ),
        (
            "a b c\n",
            1,
            5,
            ParseErrorKind::Unexpected {
                found: "`c`".into(),
                expected: "end of line after a value",
            },
        ),
    ];
    for (src, line, column, kind) in cases {
        let e = ConfigTree::parse_boot(src).unwrap_err();
        assert_eq!(
            (e.line, e.column, &e.kind),
            (*line, *column, kind),
            "{src:?}"
        );
    }
    let e = ConfigTree::parse_set("set a 'b'\nfrobnicate a\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 1));
    assert_eq!(
        e.kind,
        ParseErrorKind::UnknownCommand {
            word: "frobnicate".into()
        }
    );
    let e = ConfigTree::parse_set("set a 'b'\nset a 'c'\n  set a b 'x'\n").unwrap_err();
    assert_eq!((e.line, e.column), (3, 3));
    assert_eq!(
        e.to_string(),
        "line 3, column 3: `a` is a leaf, the path cannot go below it"
    );
}

#[test]
fn repeated_leaves_add_values_and_repeated_tags_add_entries() {
    let t = ConfigTree::parse_boot("a {\n  v 1\n  e x {\n  }\n  v 2\n  e y {\n  }\n  v 1\n}\n")
        .unwrap();
    assert_eq!(t.values(&["a", "v"]), ["1", "2"]);
    let Some(NodeRef::Tag(tag)) = t.get(&["a", "e"]) else {
        panic!()
    };
    assert_eq!(tag.entries.len(), 2);
}

#[test]
fn set_form_reads_tag_entries_valueless_leaves_and_comments() {
    let t = ConfigTree::parse_set(
        "set interfaces ethernet eth0 address '192.0.2.1/24'\n\
         set interfaces loopback lo\n\
         set service https api keys id main key 'k'\n\
         set system syslog global preserve-fqdn\n\
         comment interfaces ethernet eth0 'uplink'\n",
    )
    .unwrap();
    assert!(matches!(
        t.get(&["interfaces", "ethernet"]),
        Some(NodeRef::Tag(_))
    ));
    assert!(
        matches!(t.get(&["interfaces", "loopback", "lo"]), Some(NodeRef::Branch(b)) if b.children.is_empty())
    );
    assert!(matches!(
        t.get(&["service", "https", "api", "keys", "id"]),
        Some(NodeRef::Tag(_))
    ));
    assert!(
        matches!(t.get(&["system", "syslog", "global", "preserve-fqdn"]), Some(NodeRef::Leaf(l)) if l.values.is_empty())
    );
    let Some(NodeRef::Branch(eth0)) = t.get(&["interfaces", "ethernet", "eth0"]) else {
        panic!()
    };
    assert_eq!(eth0.comment.as_deref(), Some("uplink"));
    assert!(t.to_boot_string().starts_with("interfaces {\n    /* uplink */\n    ethernet eth0 {\n        address 192.0.2.1/24\n    }\n    loopback lo {\n    }\n}\n"));
}

#[test]
fn diff_is_the_minimal_batch() {
    let a = ConfigTree::parse_boot(
        "interfaces {\n ethernet eth0 {\n  address 192.0.2.1/24\n  address 192.0.2.2/24\n  mtu 1500\n }\n ethernet eth1 {\n  address 10.0.0.1/24\n }\n}\nsystem {\n host-name r1\n}\n",
    )
    .unwrap();
    let b = ConfigTree::parse_boot(
        "interfaces {\n ethernet eth0 {\n  address 192.0.2.1/24\n  address 192.0.2.3/24\n  mtu 1500\n }\n wireguard wg0 {\n  port 51820\n }\n}\nsystem {\n host-name r2\n}\n",
    )
    .unwrap();
    let cmds: Vec<String> = diff(&a, &b).iter().map(ToString::to_string).collect();
    assert_eq!(
        cmds,
        [
            "delete interfaces ethernet eth1",
            "delete interfaces ethernet eth0 address '192.0.2.2/24'",
            "delete system host-name 'r1'",
            "set interfaces ethernet eth0 address '192.0.2.3/24'",
            "set interfaces wireguard wg0 port '51820'",
            "set system host-name 'r2'",
        ]
    );
    let mut t = a.clone();
    t.apply_all(&diff(&a, &b)).unwrap();
    assert_eq!(t, b);
    assert!(diff(&b, &b).is_empty());
}

#[test]
fn deleting_the_last_entry_removes_the_tag_node() {
    let mut t =
        ConfigTree::parse_set("set interfaces ethernet eth0 address '192.0.2.1/24'\n").unwrap();
    t.apply(&Command::delete(["interfaces", "ethernet", "eth0"], None))
        .unwrap();
    assert!(t.get(&["interfaces", "ethernet"]).is_none());
    assert!(matches!(t.get(&["interfaces"]), Some(NodeRef::Branch(_))));
    let e = t
        .apply(&Command::delete(["interfaces", "bond"], None))
        .unwrap_err();
    assert_eq!(e.to_string(), "no node at `interfaces bond`");
}

#[test]
fn commands_render_and_read_back() {
    let cmds = parse_commands("set a b 'it\\'s'\ndelete a\ncomment a 'x'\n# note\n\n").unwrap();
    let rendered: Vec<String> = cmds.iter().map(ToString::to_string).collect();
    // `it\'s` holds a backslash that VyOS would have printed doubled before the inner `'`
    // (`escape_string`; `unescape_backslash` matches only from the last `'`), so it is read as
    // written and printed as VyOS prints that value.
    assert_eq!(cmds[0].value.as_deref(), Some("it\\'s"));
    assert_eq!(
        rendered,
        ["set a b 'it\\\\'s'", "delete a", "comment a 'x'"]
    );
}

#[test]
fn views_read_interfaces_wireguard_vrrp_and_the_api() {
    let t = fixture("basic-vyos.config.boot");
    let names: Vec<(String, Vec<String>)> = t
        .interfaces()
        .into_iter()
        .map(|i| (i.name, i.addresses))
        .collect();
    assert_eq!(
        names,
        [
            (
                "eth0".to_owned(),
                vec!["192.168.0.1/24".to_owned(), "fe88::1/56".to_owned()]
            ),
            ("eth1".to_owned(), vec![]),
            ("eth2".to_owned(), vec![]),
            ("eth2.100".to_owned(), vec!["100.100.0.1/24".to_owned()]),
            ("eth2.200".to_owned(), vec!["100.64.200.254/24".to_owned()]),
            (
                "eth2.200.201".to_owned(),
                vec!["100.64.201.254/24".to_owned(), "fe89::1/56".to_owned()]
            ),
            (
                "eth2.200.202".to_owned(),
                vec!["100.64.202.254/24".to_owned()]
            ),
            ("lo".to_owned(), vec![]),
        ]
    );

    let t = fixture("dialup-router-medium-vpn.config.boot");
    let wg = t.wireguard().unwrap();
    assert_eq!(
        wg.iter().map(|w| w.name.as_str()).collect::<Vec<_>>(),
        ["wg0", "wg1"]
    );
    let sam = &wg[1].peers[0];
    assert_eq!(sam.name, "sam");
    assert_eq!(sam.address.as_deref(), Some("192.0.2.45:1200"));
    assert_eq!(sam.persistent_keepalive, Some(20));
    assert_eq!(
        sam.preshared_key.as_ref().unwrap().expose_secret(),
        "XpFtzx2Z+nR8pBv9/sSf7I94OkZkVYTz0AeU5Q/QQUE="
    );
    assert!(
        !format!("{:?}", wg).contains("XpFtzx2Z"),
        "Debug shows a preshared key"
    );
    let vrrp = t.vrrp_groups().unwrap();
    assert_eq!(vrrp.len(), 1);
    assert_eq!(
        (vrrp[0].name.as_str(), vrrp[0].vrid, vrrp[0].priority),
        ("LAN", Some(1), Some(200))
    );
    assert_eq!(vrrp[0].addresses, ["192.168.0.1/24"]);
    assert_eq!(vrrp[0].interface.as_deref(), Some("eth1"));

    // The migrated form: `address` is a tag node and the password a secret.
    let t = ConfigTree::parse_set(&common::config_fixture("cluster-basic.commands")).unwrap();
    let vrrp = t.vrrp_groups().unwrap();
    assert_eq!(vrrp[0].addresses, ["192.0.2.10/24", "192.0.2.20/24"]);
    assert_eq!(
        vrrp[0]
            .authentication_password
            .as_ref()
            .unwrap()
            .expose_secret(),
        "qwerty"
    );
    assert_eq!(
        vrrp[0].authentication_type.as_deref(),
        Some("plaintext-password")
    );

    let t = fixture("basic-api-service.config.boot");
    let api = t.https_api().unwrap().unwrap();
    assert_eq!(api.keys.len(), 1);
    assert_eq!(
        (api.keys[0].id.as_str(), api.keys[0].key.expose_secret()),
        ("1", "S3cur3")
    );
    assert!(!format!("{api:?}").contains("S3cur3"));
    assert!(
        fixture("nat-basic.config.boot")
            .https_api()
            .unwrap()
            .is_none()
    );

    let bad = ConfigTree::parse_set("set high-availability vrrp group G vrid 'x1'\n").unwrap();
    let e = bad.vrrp_groups().unwrap_err();
    assert_eq!(
        e.to_string(),
        "`high-availability vrrp group G vrid` is `x1`, expected u8"
    );
}

#[test]
fn redaction_removes_every_secret_of_the_fixtures() {
    let secrets = [
        ("basic-api-service.config.boot", "S3cur3"),
        ("basic-vyos.config.boot", "$6$O5gJRlDYQpj$"),
        (
            "bgp-azure-ipsec-gateway.config.boot",
            "averysecretpsktowardsazure",
        ),
        ("bgp-azure-ipsec-gateway.config.boot", "secret1234"),
        (
            "bgp-azure-ipsec-gateway.config.boot",
            "0x1ad73f4620b8c0dd2de066622f875b16",
        ),
        ("bgp-azure-ipsec-gateway.config.boot", "VyOSR0xx123"),
        ("cluster-basic.config.boot", "qwerty"),
        ("dialup-router-medium-vpn.config.boot", "XpFtzx2Z+nR8pBv9"),
        ("dialup-router-medium-vpn.config.boot", "ericandre2020"),
        ("dialup-router-medium-vpn.config.boot", "AwesomeCommunity"),
        ("dialup-router-wireguard-ipv6.config.boot", "ro-community"),
        (
            "vrf-bgp-pppoe-underlay.config.boot",
            "iLJh6Me6AdPJtNv3dgGhUbtyFxExxmNU4v0Fs6YE2Xc=",
        ),
    ];
    for (name, secret) in secrets {
        let t = fixture(name);
        assert!(
            t.to_boot_string().contains(secret),
            "{name}: `{secret}` is not in the fixture"
        );
        let r = t.redacted();
        for text in [r.to_boot_string(), r.to_set_string(), format!("{r:?}")] {
            assert!(
                !text.contains(secret),
                "{name}: `{secret}` survived redaction"
            );
        }
        // Debug of an unredacted tree hides secret leaves (community names are entry names: shown).
        if !secret.contains("ommunity") {
            assert!(
                !format!("{t:?}").contains(secret),
                "{name}: Debug shows `{secret}`"
            );
        }
    }
    // Redaction keeps the structure and what is not secret.
    let t = fixture("dialup-router-medium-vpn.config.boot").redacted();
    assert_eq!(
        t.value(&[
            "interfaces",
            "wireguard",
            "wg1",
            "peer",
            "sam",
            "preshared-key"
        ]),
        Some("<redacted>")
    );
    assert_eq!(
        t.value(&["interfaces", "wireguard", "wg0", "peer", "red", "pubkey"])
            .map(str::len),
        Some(44)
    );
    let Some(NodeRef::Tag(c)) = t.get(&["service", "snmp", "community"]) else {
        panic!()
    };
    assert_eq!(c.entries.keys().collect::<Vec<_>>(), ["redacted-1"]);
    assert!(matches!(
        t.root.children.get("system"),
        Some(Node::Branch(_))
    ));
    // An empty plaintext password stays visibly empty.
    let t = fixture("basic-vyos.config.boot").redacted();
    assert_eq!(t.value(common::PLAINTEXT_PASSWORD), Some(""));
}

#[test]
fn the_tag_node_table_is_sorted_for_binary_search() {
    let table = cpps_vyos::config::hints::TAG_NODES;
    assert!(
        table.windows(2).all(|w| w[0] < w[1]),
        "TAG_NODES is not sorted or has duplicates"
    );
    assert!(cpps_vyos::config::hints::is_tag_node(
        "interfaces",
        "wireguard"
    ));
    assert!(cpps_vyos::config::hints::is_tag_node("vrrp", "group"));
    assert!(!cpps_vyos::config::hints::is_tag_node("firewall", "group"));
}

#[test]
fn command_debug_hides_secret_values() {
    let c = Command::set(
        ["interfaces", "wireguard", "wg0", "private-key"],
        Some("aGx+fvW916Ej7QRnBbW3QMold"),
    );
    assert!(!format!("{c:?}").contains("aGx+"), "{c:?}");
    assert!(
        c.to_string().contains("aGx+"),
        "Display is the command itself"
    );
    let c = Command::set(["system", "host-name"], Some("r1"));
    assert!(format!("{c:?}").contains("r1"));
}

/// Issue 32, V7: a `set` line as VyOS prints it means the value the router holds. VyOS's
/// `show configuration commands` and `vyos-config-to-commands` escape each value with
/// vyos1x-config `src/util.ml` `escape_string` and then run vyos-1x `python/vyos/configtree.py`
/// `unescape_backslash` over the text (`printers::vyos_set_commands`): a `"` prints as `\"`, and
/// a `\` prints single where the quoted value ends its line with a backslash after its last
/// inner `'` (the regex `'[^']*[\\][^']*'\n`), doubled before that `'`. The reader undoes
/// exactly that, and `Display` prints what VyOS prints. Failed first: `'to \"Franca\" …'` kept
/// its backslashes.
#[test]
fn set_lines_as_vyos_prints_them_mean_the_routers_values() {
    let cases: &[(&str, &str)] = &[
        (
            "interfaces ethernet eth1 description",
            "to \"Franca\" over the \"long\" fibre",
        ),
        (
            "interfaces wireguard wg0 description",
            "C:\\tunnels\\sp-franca",
        ),
        (
            "system login banner post-login",
            "see \"C:\\ops\" and C:\\log",
        ),
        ("system login banner pre-login", "it's \"x\" \\ y"),
        ("interfaces ethernet eth2 description", "a\\'b \"c\""),
        ("interfaces ethernet eth3 description", "plain"),
    ];
    let printed = common::printers::vyos_set_commands(cases);
    assert!(
        printed.contains("'to \\\"Franca\\\" over the \\\"long\\\" fibre'\n"),
        "{printed}"
    );
    assert!(printed.contains("'a\\\\'b \\\"c\\\"'\n"), "{printed}");
    let commands = parse_commands(&printed).unwrap();
    assert_eq!(commands.len(), cases.len());
    for ((path, value), (cmd, line)) in cases.iter().zip(commands.iter().zip(printed.lines())) {
        assert_eq!(cmd.path.join(" "), *path);
        assert_eq!(cmd.value.as_deref(), Some(*value), "{line}");
        assert_eq!(cmd.to_string(), line, "Display prints what VyOS prints");
    }
    // A value no VyOS printer wrote is read as written: a bare `"` and a `\` before another
    // character.
    let hand = parse_commands("set system login banner pre-login 'say \"hi\" C:\\x'").unwrap();
    assert_eq!(hand[0].value.as_deref(), Some("say \"hi\" C:\\x"));
}
