//! Property tests of the configuration model: reading back a rendering gives the same tree (both
//! forms), applying `diff(a, b)` to `a` gives `b`, and no input makes a reader panic.

mod common;

use cpps_vyos::config::{
    Branch, Command, ConfigTree, Leaf, Node, Tag, diff, hints, parse_commands,
};
use indexmap::IndexMap;
use proptest::prelude::*;

fn name() -> impl Strategy<Value = String> {
    // Words that are tag nodes below some of the others (see `hints::TAG_NODES`), and plain words.
    prop::sample::select(vec![
        "interfaces",
        "ethernet",
        "vif",
        "wireguard",
        "peer",
        "high-availability",
        "vrrp",
        "group",
        "address",
        "system",
        "host-name",
        "disable",
        "a",
        "b",
        "c-d",
    ])
    .prop_map(str::to_owned)
}

fn entry_name() -> impl Strategy<Value = String> {
    "[a-z0-9][a-z0-9./:-]{0,7}"
}

/// Whether the tree accepts `v` as a value (the text forms cannot carry every string: see
/// `cpps_vyos::config` and `Error::Unrepresentable`).
fn accepted(v: &str) -> bool {
    ConfigTree::new()
        .apply(&Command::set(["a"], Some(v)))
        .is_ok()
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9./:-]{0,8}",
        // Apostrophes, inner quotes, backslashes and VyOS's quoting characters, as VyOS prints
        // them: unescaped.
        "[ a-z'\"\\\\{}/*#;\t\r+>-]{0,8}",
        any::<String>(),
    ]
    .prop_filter("representable", |v| accepted(v))
}

fn comment() -> impl Strategy<Value = Option<String>> {
    prop::option::of(
        "[a-zA-Z0-9=:.'\"][a-zA-Z0-9 =:.'\"]{0,10}[a-zA-Z0-9=:.]".prop_filter(
            "representable",
            |c| {
                let mut t = ConfigTree::new();
                t.apply(&Command::set(["a"], None)).is_ok()
                    && t.apply(&Command::comment(["a"], c)).is_ok()
            },
        ),
    )
}

fn leaf() -> impl Strategy<Value = Leaf> {
    (comment(), prop::collection::vec(value(), 0..4)).prop_map(|(comment, mut values)| {
        let mut seen = std::collections::HashSet::new();
        values.retain(|v| seen.insert(v.clone()));
        Leaf { comment, values }
    })
}

fn children(
    inner: impl Strategy<Value = Node>,
    max: usize,
) -> impl Strategy<Value = IndexMap<String, Node>> {
    prop::collection::vec((name(), inner), 0..max).prop_map(|v| v.into_iter().collect())
}

fn node() -> impl Strategy<Value = Node> {
    leaf()
        .prop_map(Node::Leaf)
        .prop_recursive(4, 40, 4, |inner| {
            prop_oneof![
                (comment(), children(inner.clone(), 4))
                    .prop_map(|(comment, children)| Node::Branch(Branch { comment, children })),
                prop::collection::vec((entry_name(), comment(), children(inner, 3)), 1..3)
                    .prop_map(|es| {
                        Node::Tag(Tag {
                            entries: es
                                .into_iter()
                                .map(|(e, comment, children)| (e, Branch { comment, children }))
                                .collect(),
                        })
                    }),
            ]
        })
}

fn tree() -> impl Strategy<Value = ConfigTree> {
    (
        children(node(), 5),
        prop::option::of(Just(
            "// Warning: Do not remove the following line.\n// vyos-config-version: \"bgp@5:system@27\"\n// Release version: 1.5\n"
                .to_owned(),
        )),
    )
        .prop_map(|(children, footer)| ConfigTree { root: Branch { comment: None, children }, footer })
}

/// Makes a tree expressible in the `set` form, which carries no node kinds: tag nodes only where
/// `hints::TAG_NODES` has them, no plain node named like a tag node there, no empty plain nodes
/// (they read back as valueless leaves), no footer.
fn conform(tree: &mut ConfigTree) {
    fn branch(b: &mut Branch, parent: &str) {
        let old = std::mem::take(&mut b.children);
        for (mut name, mut node) in old {
            match &mut node {
                Node::Tag(t) if !hints::is_tag_node(parent, &name) => {
                    let replacement = hints::TAG_NODES
                        .iter()
                        .find(|(p, n)| *p == parent && !b.children.contains_key(*n))
                        .map(|(_, n)| (*n).to_owned());
                    match replacement {
                        Some(r) => name = r,
                        None => {
                            let entries = std::mem::take(&mut t.entries);
                            node = Node::Branch(Branch {
                                comment: None,
                                children: entries
                                    .into_iter()
                                    .map(|(k, v)| (k, Node::Branch(v)))
                                    .collect(),
                            });
                        }
                    }
                }
                Node::Branch(_) | Node::Leaf(_) if hints::is_tag_node(parent, &name) => {
                    name.push('x')
                }
                _ => {}
            }
            if b.children.contains_key(&name) {
                continue;
            }
            match &mut node {
                Node::Branch(inner) => {
                    branch(inner, &name);
                    if inner.children.is_empty() {
                        node = Node::Leaf(Leaf {
                            comment: inner.comment.take(),
                            values: Vec::new(),
                        });
                    }
                }
                Node::Tag(t) => {
                    for e in t.entries.values_mut() {
                        branch(e, &name);
                    }
                }
                Node::Leaf(_) => {}
            }
            b.children.insert(name, node);
        }
    }
    tree.footer = None;
    branch(&mut tree.root, "");
}

/// Makes a tree one the saved-file dialect carries (see `cpps_vyos::config::ConfigTree::
/// to_saved_string`): no empty plain or tag node (vyos1x-config `render_node` prints it as its
/// bare name, a valueless leaf), and no control character in a value (`escape_string` writes a
/// tab as `\t`, which `escape_backslash` then reads back as a backslash and a `t`, on VyOS too).
fn saved_conform(tree: &mut ConfigTree) {
    fn branch(b: &mut Branch) {
        for node in b.children.values_mut() {
            match node {
                Node::Branch(inner) => {
                    branch(inner);
                    if inner.children.is_empty() {
                        *node = Node::Leaf(Leaf {
                            comment: inner.comment.take(),
                            values: Vec::new(),
                        });
                    }
                }
                Node::Tag(t) => t.entries.values_mut().for_each(branch),
                Node::Leaf(l) => {
                    for v in &mut l.values {
                        v.retain(|c| !c.is_control());
                    }
                    let mut seen = std::collections::HashSet::new();
                    l.values.retain(|v| seen.insert(v.clone()));
                }
            }
        }
    }
    branch(&mut tree.root);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    // The saved-file dialect reads back as the same tree and renders back byte for byte, and
    // VyOS's own reading of it (`escape_backslash`, then vyos1x-config's lexer: `common::
    // printers::py_escape_backslash` and `common::vyos1x`) gives the same commands.
    #[test]
    fn saved_rendering_reads_back_as_vyos_reads_it(mut t in tree()) {
        saved_conform(&mut t);
        let text = t.to_saved_string();
        let back = ConfigTree::parse_saved(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &t, "{}", text);
        prop_assert_eq!(back.to_saved_string(), text.clone());
        let vyos = common::vyos1x::parse(&common::printers::py_escape_backslash(&text))
            .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let values = |cmds: Vec<Command>| {
            let mut v: Vec<_> = cmds.into_iter().filter(|c| c.op != cpps_vyos::config::Op::Comment).map(|c| (c.path, c.value)).collect();
            v.sort();
            v
        };
        prop_assert_eq!(values(vyos), values(t.to_commands()), "{}", text);
    }

    #[test]
    fn the_saved_reader_never_panics(s in any::<String>()) {
        let _ = ConfigTree::parse_saved(&s);
    }

    #[test]
    fn boot_rendering_reads_back_as_the_same_tree(t in tree()) {
        let text = t.to_boot_string();
        let back = ConfigTree::parse_boot(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, t, "{}", text);
    }

    #[test]
    fn set_rendering_reads_back_as_the_same_tree(mut t in tree()) {
        conform(&mut t);
        let text = t.to_set_string();
        let back = ConfigTree::parse_set(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(back, t, "{}", text);
    }

    // What `load`/`merge` send (`ConfigTree::to_load_string`) reads back as the same tree in
    // the dialect of VyOS's loader (vyos1x-config `src/vyos1x_lexer.mll`, `common::vyos1x`),
    // whatever quotes and backslashes the values hold. Comments are not compared: the loader's
    // reader in `common` drops them.
    #[test]
    fn load_rendering_reads_back_in_the_loaders_dialect(mut t in tree()) {
        conform(&mut t);
        let text = t.to_load_string();
        let cmds = common::vyos1x::parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let mut back = ConfigTree::default();
        for c in &cmds {
            back.apply(c).map_err(|e| TestCaseError::fail(format!("{c}: {e}\n{text}")))?;
        }
        let no_comments = |s: String| {
            s.lines().filter(|l| !l.starts_with("comment ")).collect::<Vec<_>>().join("\n")
        };
        prop_assert_eq!(no_comments(back.to_set_string()), no_comments(t.to_set_string()), "{}", text);
    }

    #[test]
    fn applying_the_diff_gives_the_target(a in tree(), b in tree()) {
        let cmds = diff(&a, &b);
        let mut t = a.clone();
        for c in &cmds {
            t.apply(c).map_err(|e| TestCaseError::fail(format!("{c}: {e}")))?;
        }
        t.footer = b.footer.clone();
        prop_assert_eq!(&t, &b);
        // A tree has no difference with itself.
        prop_assert!(diff(&b, &b).is_empty());
    }

    #[test]
    fn the_diff_also_applies_through_its_text_form(a in tree(), b in tree()) {
        // Only where the text form can say what the commands mean (see `conform`).
        let (mut a, mut b) = (a, b);
        conform(&mut a);
        conform(&mut b);
        let text: String = diff(&a, &b).iter().map(|c| format!("{c}\n")).collect();
        let cmds = parse_commands(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        let mut t = a.clone();
        for c in &cmds {
            t.apply(c).map_err(|e| TestCaseError::fail(format!("{c}: {e}\n{text}")))?;
        }
        prop_assert_eq!(&t, &b, "diff:\n{}\nfrom:\n{}", text, a.to_set_string());
    }

    /// Any text the `set` reader accepts renders, in both forms, to text that reads back as the
    /// same tree (`set }` used to be accepted and render to a `config.boot` nothing could read).
    #[test]
    fn any_accepted_set_text_reads_back_from_both_renderings(lines in prop::collection::vec(
        prop::collection::vec(prop::sample::select(vec![
            "interfaces", "ethernet", "eth0", "address", "}", "{", "'", "\"", "'a b'", "\"x y\"",
            "'it's'", "'}'", "';'", "*", "a\"b", "+x", "-y", ">z", "//", "/*", "'v'", "''", "\"q\"\"",
        ]), 1..6).prop_map(|w| format!("set {}", w.join(" "))),
        1..6,
    )) {
        let text = lines.join("\n");
        if let Ok(t) = ConfigTree::parse_set(&text) {
            let boot = t.to_boot_string();
            let back = ConfigTree::parse_boot(&boot).map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n=>\n{boot}")))?;
            prop_assert_eq!(&back, &t, "{}\n=>\n{}", text, boot);
            let set = t.to_set_string();
            let back = ConfigTree::parse_set(&set).map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n=>\n{set}")))?;
            prop_assert_eq!(&back, &t, "{}\n=>\n{}", text, set);
        }
    }

    /// Any text the `config.boot` reader accepts renders to text that reads back as the same tree.
    #[test]
    fn any_accepted_boot_text_reads_back_from_its_rendering(parts in prop::collection::vec(prop::sample::select(vec![
        "{", "}", "\"", "'", "/* c */\n", "//x\n", "\n", " ", "a", "b c", "\\", "x 'v'\n", "d \"e f\" {\n", "g h\"i\n",
    ]), 0..40)) {
        let s: String = parts.concat();
        if let Ok(t) = ConfigTree::parse_boot(&s) {
            let boot = t.to_boot_string();
            let back = ConfigTree::parse_boot(&boot).map_err(|e| TestCaseError::fail(format!("{e}\n{s:?}\n=>\n{boot}")))?;
            prop_assert_eq!(&back, &t, "{:?}\n=>\n{}", s, boot);
        }
    }

    /// Direction config.boot → `set` (reliability issue 37, item 3): any `config.boot` text the
    /// reader accepts renders to `set` text the `set` reader accepts, names with quotes
    /// (`u"`, found by the fault suite) and nesting near the limit included.
    #[test]
    fn any_accepted_boot_text_renders_to_set_text_that_reads(
        parts in prop::collection::vec(prop::sample::select(vec![
            "u\"\n", "x\"y {\n", "a'\n", "v 'w'\n", "q \"r s\" {\n", "}\n", "n {\n", "+m\n", "-k {\n",
            "//c\n", "l 1\n",
        ]), 0..12),
        depth in 60usize..70,
    ) {
        let s = format!("{}{}{}", "d {\n".repeat(depth), parts.concat(), "}\n".repeat(depth));
        if let Ok(t) = ConfigTree::parse_boot(&s) {
            let set = t.to_set_string();
            ConfigTree::parse_set(&set).map_err(|e| TestCaseError::fail(format!("{e}\n{s}\n=>\n{set}")))?;
        }
    }

    /// Direction `set` → config.boot: any `set` text the reader accepts renders to `config.boot`
    /// text the `config.boot` reader accepts: the same nesting limit both ways (a deep `set` file
    /// once rendered to a backup that `vyos-backup`'s next run could not read).
    #[test]
    fn any_accepted_set_text_renders_to_boot_text_that_reads(
        words in prop::collection::vec(prop::sample::select(vec![
            "a", "interfaces", "ethernet", "eth0", "vif", "10", "peer", "p1",
        ]), 55..75),
        value in prop::option::of(Just("'v'")),
    ) {
        let text = format!("set {}{}", words.join(" "), value.map(|v| format!(" {v}")).unwrap_or_default());
        if let Ok(t) = ConfigTree::parse_set(&text) {
            let boot = t.to_boot_string();
            let back = ConfigTree::parse_boot(&boot).map_err(|e| TestCaseError::fail(format!("{e}\n{text}\n=>\n{boot}")))?;
            prop_assert_eq!(&back.to_set_string(), &t.to_set_string());
        }
    }

    #[test]
    fn arbitrary_text_never_panics(s in any::<String>()) {
        let _ = ConfigTree::parse_boot(&s);
        let _ = ConfigTree::parse_set(&s);
        let _ = parse_commands(&s);
    }

    #[test]
    fn config_like_text_never_panics(parts in prop::collection::vec(prop::sample::select(vec![
        "{", "}", "\"", "'", "/*", "*/", "//", "\n", " ", "a", "b c", "\\", "set ", "delete ", "comment ", "x 'v'\n",
    ]), 0..60)) {
        let s: String = parts.concat();
        let _ = ConfigTree::parse_boot(&s);
        let _ = ConfigTree::parse_set(&s);
        let _ = parse_commands(&s);
    }
}

/// The two minimised inputs of reliability issue 37, item 3: a `config.boot` node name `u"`
/// (its `set` rendering could not be read) is refused by both readers alike, and a `set` path 65
/// braces deep (its `config.boot` rendering could not be read) is refused as `config.boot` refuses
/// it; 64 braces read back both ways.
#[test]
fn quoted_names_and_deep_nesting_are_refused_alike_in_both_forms() {
    let boot = ConfigTree::parse_boot("u\"\n").unwrap_err();
    let set = ConfigTree::parse_set("set u\"").unwrap_err();
    assert!(
        boot.to_string()
            .contains("a node name cannot hold blanks, quotes"),
        "{boot}"
    );
    assert!(
        set.to_string()
            .contains("a node name cannot hold blanks, quotes"),
        "{set}"
    );
    let path = |n: usize| format!("set {} leaf 'v'", vec!["a"; n].join(" "));
    let ok = ConfigTree::parse_set(&path(64)).unwrap();
    assert_eq!(ConfigTree::parse_boot(&ok.to_boot_string()).unwrap(), ok);
    let deep = ConfigTree::parse_set(&path(65)).unwrap_err();
    assert!(deep.to_string().contains("more than 64 levels"), "{deep}");
    let boot_deep = format!("{}leaf v\n{}", "a {\n".repeat(65), "}\n".repeat(65));
    assert_eq!(
        ConfigTree::parse_boot(&boot_deep).unwrap_err().kind,
        cpps_vyos::ParseErrorKind::TooDeep
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let s = "a {\n".repeat(10_000);
    let err = ConfigTree::parse_boot(&s).unwrap_err();
    assert_eq!(err.kind, cpps_vyos::ParseErrorKind::TooDeep);
    assert_eq!(err.line, 65);
}

/// Found by `any_accepted_set_text_reads_back_from_both_renderings`: an empty tag entry that
/// needs quotes (`set interfaces ethernet }`) rendered as `set interfaces ethernet '}'`, which
/// reads back as the tag's value. Neither text form can say it both ways, so it is refused.
#[test]
fn an_empty_tag_entry_that_needs_quotes_is_refused() {
    let err = ConfigTree::parse_set("set interfaces ethernet }").unwrap_err();
    assert!(err.to_string().contains("empty tag entry"), "{err}");
    // A lone `'` is bare in config.boot but quoted in `set` text (seed `f10fadb0…`).
    let err = ConfigTree::parse_set("set interfaces ethernet '").unwrap_err();
    assert!(err.to_string().contains("empty tag entry"), "{err}");
    // With something below it, the entry is written before its children and reads back.
    let t = ConfigTree::parse_set("set interfaces ethernet } address '10.0.0.1/24'").unwrap();
    assert_eq!(ConfigTree::parse_set(&t.to_set_string()).unwrap(), t);
}

/// The input CI's property run found (seed `361dca0a…` in `config_props.proptest-regressions`):
/// `config.boot` marks a tag node by its syntax (`q "r s" {`), so an entry of a tag node that
/// `hints::TAG_NODES` does not list may hold blanks; its `set` rendering `set q 'r s' v` must read
/// back with `r s` as that tag's entry, since no node name can hold a blank (vyos1x-config
/// `src/vyos1x_lexer.mll` reads a quoted word only as a value).
#[test]
fn an_unlisted_tag_entry_with_blanks_reads_back_from_its_set_rendering() {
    let boot = ConfigTree::parse_boot("q \"r s\" {\n    v 'w'\n}\n").unwrap();
    let set = boot.to_set_string();
    assert_eq!(set, "set q 'r s' v \"'w'\"\n");
    assert_eq!(ConfigTree::parse_set(&set).unwrap(), boot);
}
