//! The loader: every bad file is rejected with the exact message, line, column and hint;
//! good files keep the locations of their fields; no input makes it panic.

use cpps_topology::load::{FileErrorKind, LoadError, load_file, load_str};
use cpps_topology::model::{GuestKind, State};
use proptest::prelude::*;

fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/load/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn load_fixture(name: &str) -> Result<cpps_topology::Topology, LoadError> {
    load_str(name, &fixture(name))
}

/// `line:column: message: help` of every error of a fixture that must fail.
fn errors(name: &str) -> Vec<String> {
    match load_fixture(name) {
        Ok(_) => panic!("{name} loaded but must be rejected"),
        Err(e) => e.file_errors().iter().map(|e| e.summary()).collect(),
    }
}

#[test]
fn every_bad_fixture_is_rejected_with_its_message_line_and_column() {
    let cases: &[(&str, &str)] = &[
        (
            "unknown_key.yaml",
            "15:5: unknown key `stat`: did you mean `state`?",
        ),
        (
            "unknown_reference.yaml",
            "13:11: unknown host `pve-ipri-31`: did you mean `pve-ippri-31`?",
        ),
        (
            "wrong_kind_reference.yaml",
            "13:11: unknown host `sp`: `sp` is a site, not a host",
        ),
        (
            "missing_state.yaml",
            "12:9: guest `gpu-sp-01` has no state: add `state: validated`, `declared` or `desired`: every component has exactly one state",
        ),
        (
            "doubled_state.yaml",
            "16:5: key `state` given twice: a component has exactly one state: `validated`, `declared` or `desired`",
        ),
        (
            "state_list.yaml",
            "15:5: invalid type: sequence, expected exactly one state: `validated`, `declared` or `desired`",
        ),
        (
            "duplicate_id.yaml",
            "12:9: duplicate id `pve-ippri-31`: ids are unique across all components; first defined at line 8",
        ),
        (
            "unknown_value.yaml",
            "14:11: unknown value `vn`: expected one of `vm`, `lxc`",
        ),
        (
            "privileged_vm.yaml",
            "15:17: invalid `privileged`: only an LXC can be privileged",
        ),
        (
            "invalid_version.yaml",
            "13:18: invalid `pve_version`: `eight` is not a version: expected numbers separated by dots, such as `8.4` or `1.16.3`",
        ),
        (
            "invalid_vip.yaml",
            "17:24: invalid `controller.vip`: invalid IP address syntax",
        ),
        (
            "link_same_site.yaml",
            "14:12: invalid `sites`: a link joins two different sites",
        ),
        (
            "suppression_without_reason.yaml",
            "14:13: invalid `reason`: a suppression must give a reason",
        ),
        (
            "suppression_unknown_subject.yaml",
            "13:14: unknown component `pve-ippri-13`: did you mean `pve-ippri-31`?",
        ),
        (
            "invalid_id.yaml",
            "12:9: invalid `id`: id `gpu sp 01` may only hold letters, digits, `-`, `_` and `.`, and must start with a letter or digit",
        ),
        (
            "unsupported_version.yaml",
            "1:10: unsupported format version 2: this crate reads `version: 1`",
        ),
        (
            "syntax.yaml",
            "4:4: while parsing a block collection, did not find expected '-' indicator",
        ),
    ];
    for (file, expected) in cases {
        assert_eq!(errors(file), vec![(*expected).to_owned()], "{file}");
    }
}

#[test]
fn a_bad_date_in_a_suppression_is_rejected_at_the_date() {
    let errs = errors("suppression_bad_date.yaml");
    assert_eq!(errs.len(), 1);
    assert!(
        errs[0].starts_with("15:14: invalid `expires`: "),
        "{}",
        errs[0]
    );
}

#[test]
fn all_errors_of_a_file_are_reported_in_file_order() {
    assert_eq!(
        errors("several_errors.yaml"),
        vec![
            "13:11: unknown host `pve-ippri-32`: did you mean `pve-ippri-31`?",
            "19:13: unknown pbs `pbs-sp`: declare the pbs or fix the id",
            "22:9: k3s cluster `k3s-sp` has no state: add `state: validated`, `declared` or `desired`: every component has exactly one state",
            "24:17: unknown guest `g3`: declare the guest or fix the id",
        ]
    );
}

#[test]
fn typed_error_kinds_carry_the_details() {
    let err = load_fixture("unknown_reference.yaml").unwrap_err();
    let first = err.file_error().unwrap();
    assert_eq!(
        first.kind,
        FileErrorKind::UnknownReference {
            kind: "host".to_owned(),
            id: "pve-ipri-31".to_owned(),
            suggestion: Some("pve-ippri-31".to_owned()),
            found_kind: None,
        }
    );
    assert_eq!(first.kind.code(), "topology::unknown_reference");
    // The byte span covers exactly the reference.
    let text = fixture("unknown_reference.yaml");
    let loc = err.location().unwrap();
    assert_eq!(&text[loc.offset..loc.offset + loc.len], "pve-ipri-31");
    // Display is the short phrase, without the location or the source.
    assert_eq!(err.to_string(), "unknown host `pve-ipri-31`");

    let err = load_fixture("unknown_key.yaml").unwrap_err();
    match &err.file_error().unwrap().kind {
        FileErrorKind::UnknownKey {
            key,
            suggestion,
            expected,
        } => {
            assert_eq!(key, "stat");
            assert_eq!(suggestion.as_deref(), Some("state"));
            assert!(expected.iter().any(|k| k == "privileged"), "{expected:?}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn the_diagnostic_renders_like_rustc_with_file_line_and_caret() {
    let err = load_fixture("unknown_reference.yaml").unwrap_err();
    let text = err.render();
    assert!(text.contains("topology::unknown_reference"), "{text}");
    assert!(text.contains("unknown host `pve-ipri-31`"), "{text}");
    assert!(text.contains("[unknown_reference.yaml:13:11]"), "{text}");
    assert!(text.contains("13 │     host: pve-ipri-31"), "{text}");
    assert!(text.contains("no host has this id"), "{text}");
    assert!(
        text.contains("help: did you mean `pve-ippri-31`?"),
        "{text}"
    );

    // A duplicate id points at both definitions.
    let text = load_fixture("duplicate_id.yaml").unwrap_err().render();
    assert!(text.contains("first defined here"), "{text}");
    assert!(text.contains("defined again here"), "{text}");
}

#[test]
fn a_valid_file_loads_with_states_references_and_field_locations() {
    let t = load_fixture("valid_minimal.yaml").unwrap();
    assert_eq!(t.sites().len(), 2);
    let host = t.host(&"pve-ippri-31".parse().unwrap()).unwrap();
    assert_eq!(host.meta.state, State::Validated);
    assert_eq!(host.meta.location.line, 8);
    assert_eq!(host.meta.location.column, 9);
    assert_eq!(
        host.linstor.as_ref().unwrap().interface.as_deref(),
        Some("")
    );
    let at = host.meta.at("linstor.interface");
    assert_eq!((at.line, at.column), (11, 47));
    let guest = t.guest(&"gpu-sp-01".parse().unwrap()).unwrap();
    assert_eq!(guest.kind, GuestKind::Lxc);
    assert!(guest.privileged);
    assert_eq!(guest.meta.at("host").line, 14);
    assert_eq!(t.guests_on(&host.id).count(), 1);
    assert_eq!(t.site_of_guest(guest).unwrap().as_str(), "sp");
    let s = &t.suppressions()[0];
    assert_eq!(s.rule, "LINSTOR-001");
    assert_eq!(s.subject, "pve-ippri-31");
    assert_eq!(s.expires, Some(jiff::civil::date(2026, 12, 31)));
    assert_eq!((s.location.line, s.location.column), (19, 11));
    assert!(s.covers(
        "LINSTOR-001",
        "pve-ippri-31",
        jiff::civil::date(2026, 12, 31)
    ));
    assert!(!s.covers("LINSTOR-001", "pve-ippri-31", jiff::civil::date(2027, 1, 1)));
    assert_eq!(t.source.as_ref().unwrap().name, "valid_minimal.yaml");
}

#[test]
fn reading_a_missing_file_is_a_read_error_naming_the_path() {
    let err = load_file("/nonexistent/topology.yaml").unwrap_err();
    assert!(matches!(err, LoadError::Read { .. }));
    assert_eq!(
        err.to_string(),
        "cannot read topology file `/nonexistent/topology.yaml`"
    );
    assert!(err.location().is_none());
}

/// A file over the cap is refused before it is parsed, naming the size and the cap; the same
/// holds for text handed to `load_str`. Real topology files are tens of KiB.
#[test]
fn a_file_over_the_size_cap_is_refused_before_parsing() {
    let cap = cpps_topology::load::MAX_TOPOLOGY_BYTES;
    let over = usize::try_from(cap).unwrap() + 1;
    // Comment lines: nothing to parse, so only the cap can say why it is refused.
    let text = "#".repeat(over - 1) + "\n";
    let dir = std::env::temp_dir().join(format!("cpps-load-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("huge.yaml");
    std::fs::write(&path, &text).unwrap();

    let err = load_file(&path).unwrap_err();
    assert!(
        matches!(err, LoadError::TooLarge { size, cap: c, .. } if size == over as u64 && c == cap),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "topology file `{}` is {over} bytes, over the cap of {cap} bytes (real topology files are tens of KiB)",
            path.display()
        )
    );
    let err = load_str("huge.yaml", &text).unwrap_err();
    assert!(matches!(err, LoadError::TooLarge { .. }), "{err:?}");
    std::fs::remove_dir_all(&dir).unwrap();

    // At the cap exactly, the file is read and judged on its content.
    let at_cap = "#".repeat(usize::try_from(cap).unwrap() - 1) + "\n";
    assert!(!matches!(
        load_str("at-cap.yaml", &at_cap).unwrap_err(),
        LoadError::TooLarge { .. }
    ));
}

#[test]
fn load_file_reads_from_disk() {
    let path = format!(
        "{}/tests/fixtures/load/valid_minimal.yaml",
        env!("CARGO_MANIFEST_DIR")
    );
    let t = load_file(&path).unwrap();
    assert_eq!(t.source.unwrap().name, path);
}

#[test]
fn an_empty_file_is_an_error_not_a_panic() {
    let err = load_str("empty.yaml", "").unwrap_err();
    assert!(matches!(
        err.file_error().unwrap().kind,
        FileErrorKind::Syntax { .. }
    ));
}

const YAMLISH: &[&str] = &[
    "version: 1\n",
    "sites:\n",
    "hosts:\n",
    "guests:\n",
    "  - id: a\n",
    "  - id: b\n",
    "    state: validated\n",
    "    state: desired\n",
    "    site: a\n",
    "    host: b\n",
    "    kind: lxc\n",
    "    privileged: true\n",
    "    linstor: { roles: [satellite], interface: \"\" }\n",
    "links:\n",
    "    sites: [a, a]\n",
    "    kind: wireguard\n",
    "{",
    "[",
    "\"",
    "&x ",
    "*x\n",
    "<<: *x\n",
    "\t",
    "é",
    "🚧",
    "---\n",
    "... \n",
    "!!binary x\n",
    ": \n",
    "- \n",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_text_never_panics(text in ".{0,400}") {
        if let Err(e) = load_str("fuzz.yaml", &text) {
            // Rendering the diagnostic must not panic either.
            let _ = e.render();
        }
    }

    #[test]
    fn yaml_like_fragments_never_panic(parts in proptest::collection::vec(0..YAMLISH.len(), 0..40)) {
        let text: String = parts.iter().map(|&i| YAMLISH[i]).collect();
        if let Err(e) = load_str("fuzz.yaml", &text) {
            let rendered = e.render();
            prop_assert!(!rendered.is_empty());
            for fe in e.file_errors() {
                // Every known location lies inside the text.
                if fe.location.is_known() {
                    prop_assert!(fe.location.offset + fe.location.len <= text.len());
                }
            }
        }
    }
}

/// An alias bomb: one anchor holding a list, aliased again and again, so that a small file
/// expands to millions of YAML events. The loader refuses it from the parser's alias limits
/// (a cap on replayed events), with a located syntax error, before any of it is converted.
#[test]
fn alias_amplification_is_refused_with_a_clear_error() {
    let gpus: Vec<String> = (0..2_000)
        .map(|i| format!("{{ model: A{i}, count: 1 }}"))
        .collect();
    let mut text = format!(
        "version: 1\nsites:\n  - {{ id: sp, state: validated }}\nhosts:\n  - id: h0\n    site: sp\n    gpus: &g [{}]\n    state: validated\n",
        gpus.join(", ")
    );
    for i in 1..2_000 {
        text.push_str(&format!(
            "  - {{ id: h{i}, site: sp, gpus: *g, state: validated }}\n"
        ));
    }
    assert!(text.len() < 200_000, "{}", text.len());
    // Refused at the loader's cap of replayed alias events (in about 0.2 s in a debug build;
    // at serde-saphyr's default cap the same file took 8 s).
    let err = load_str("bomb.yaml", &text).expect_err("an alias bomb is refused");
    let e = err.file_error().expect("a file error");
    assert!(
        matches!(e.kind, FileErrorKind::Syntax { .. }),
        "{:?}",
        e.kind
    );
    assert!(e.to_string().contains("alias"), "{e}");
}

/// Anchors for a block shared by a few components stay well inside the alias limits.
#[test]
fn a_few_aliases_of_a_shared_block_still_load() {
    let text = "version: 1\nsites:\n  - { id: sp, state: validated }\nhosts:\n  - { id: h0, site: sp, gpus: &g [{ model: A5000, count: 1 }], state: validated }\n  - { id: h1, site: sp, gpus: *g, state: validated }\n  - { id: h2, site: sp, gpus: *g, state: validated }\n";
    let topology = load_str("shared.yaml", text).unwrap_or_else(|e| panic!("{}", e.render()));
    assert!(topology.hosts().iter().all(|h| h.gpu_count() == Some(1)));
}

/// A host with 16,000 GPUs loads with every GPU's location recorded: field locations are a map,
/// so recording one costs O(1) (a linear search made this load quadratic: 2.4 s).
#[test]
fn a_host_with_thousands_of_gpus_keeps_every_gpu_location() {
    let gpus: Vec<String> = (0..16_000)
        .map(|i| format!("{{ model: A{i}, count: 1 }}"))
        .collect();
    let text = format!(
        "version: 1\nsites:\n  - {{ id: sp, state: validated }}\nhosts:\n  - id: h0\n    site: sp\n    gpus: [{}]\n    state: validated\n",
        gpus.join(", ")
    );
    let topology = load_str("gpus.yaml", &text).unwrap_or_else(|e| panic!("{}", e.render()));
    let host = &topology.hosts()[0];
    assert_eq!(host.gpu_count(), Some(16_000));
    let last = host.meta.field_location("gpus[15999]").expect("recorded");
    assert_eq!(last.line, 7);
    assert_eq!(&text[last.offset..last.offset + 7], "{ model");
    // Every GPU, plus `site` and `state`.
    assert_eq!(host.meta.field_locations().count(), 16_000 + 2);
}

/// An unknown key is shown, its value is not: a misplaced secret never reaches the terminal.
#[test]
fn an_unknown_key_diagnostic_masks_the_value() {
    let text = "version: 1\nsites:\n  - id: sp\n    state: validated\n    api_token: PVEAPIToken=root@pam!ci=0b7a0c4e-5ecr-e7\n";
    let err = load_str("leak.yaml", text).unwrap_err();
    let e = err.file_error().expect("a file error");
    assert!(
        matches!(&e.kind, FileErrorKind::UnknownKey { key, .. } if key == "api_token"),
        "{:?}",
        e.kind
    );
    let rendered = err.render();
    assert!(rendered.contains("api_token"), "{rendered}");
    assert!(!rendered.contains("0b7a0c4e"), "{rendered}");
    assert!(!rendered.contains("PVEAPIToken"), "{rendered}");
    assert!(rendered.contains("api_token: ******"), "{rendered}");
    assert!(rendered.contains("[leak.yaml:5:5]"), "{rendered}");
}

/// A file on one very long line (a minified or generated file) must not be echoed whole: the
/// diagnostic shows a window around the error, and the location is still exact.
#[test]
fn a_very_long_line_is_shown_as_a_window_around_the_error() {
    let padding = "a".repeat(2_000_000);
    let text =
        format!("{{version: 1, sites: [{{id: sp, state: validated, junk: \"{padding}\"}}]}}");
    let err = load_str("one-line.yaml", &text).unwrap_err();
    let e = err.file_error().expect("a file error");
    assert!(
        matches!(&e.kind, FileErrorKind::UnknownKey { key, .. } if key == "junk"),
        "{:?}",
        e.kind
    );
    let column = text.find("junk").unwrap() as u32 + 1;
    assert_eq!((e.location.line, e.location.column), (1, column));
    let rendered = err.render();
    assert!(rendered.len() < 4_000, "{} bytes rendered", rendered.len());
    assert!(rendered.contains("junk"), "{rendered}");
    assert!(rendered.contains('…'), "the cut is marked: {rendered}");

    // An error far into the line gets its window there, with the text before it cut.
    let text =
        format!("{{version: 1, sites: [{{id: sp, state: validated}}], {padding}: 1, junk: 1}}");
    let err = load_str("one-line.yaml", &text).unwrap_err();
    let rendered = err.render();
    assert!(
        rendered.len() < 4_000,
        "{} bytes rendered: {:?} {:?}",
        rendered.len(),
        err.file_errors()
            .iter()
            .map(|e| e.summary().len())
            .collect::<Vec<_>>(),
        rendered.chars().take(600).collect::<String>()
    );
    assert!(err.location().is_some(), "{rendered}");
}

/// The benchmarks' files: the default with extra guests loads, with exactly that many more
/// guests, and the sized variant is at least as long as asked with as few guests as that takes.
#[test]
fn the_benchmark_files_are_the_default_with_extra_guests() {
    use cpps_topology::testing::{default_of_size, default_with_guests};
    let base = cpps_topology::default_topology().guests().len();
    let topology = load_str("bench.yaml", &default_with_guests(25)).unwrap();
    assert_eq!(topology.guests().len(), base + 25);
    let want = cpps_topology::DEFAULT_TOPOLOGY_YAML.len() + 10_000;
    let (text, added) = default_of_size(want);
    assert!(text.len() >= want, "{} < {want}", text.len());
    assert!(default_with_guests(added - 1).len() < want);
    assert_eq!(
        load_str("bench.yaml", &text).unwrap().guests().len(),
        base + added
    );
}

#[test]
fn the_hosts_of_a_site_or_cluster_and_the_guests_of_a_host_come_in_file_order() {
    // Sites, clusters and hosts interleaved, and ids out of alphabetical order, so that neither
    // grouping nor sorting could give the file's order by chance.
    let t = load_str(
        "order.yaml",
        "version: 1
sites:
  - { id: sp, state: validated }
  - { id: franca, state: validated }
proxmox_clusters:
  - { id: pve-sp, site: sp, state: validated }
  - { id: pve-franca, site: franca, state: validated }
hosts:
  - { id: h-sp-c, site: sp, proxmox_cluster: pve-sp, state: validated }
  - { id: h-fr-b, site: franca, proxmox_cluster: pve-franca, state: validated }
  - { id: h-sp-a, site: sp, state: validated }
  - { id: h-fr-a, site: franca, proxmox_cluster: pve-franca, state: validated }
  - { id: h-sp-b, site: sp, proxmox_cluster: pve-sp, state: validated }
guests:
  - { id: g-3, host: h-sp-c, kind: vm, state: validated }
  - { id: g-9, host: h-fr-b, kind: vm, state: validated }
  - { id: g-1, host: h-sp-c, kind: lxc, state: validated }
  - { id: g-2, host: h-sp-c, kind: vm, state: validated }
",
    )
    .unwrap_or_else(|e| panic!("{}", e.render()));
    // The ids each lookup gives, in its order.
    let in_site = |s: &str| {
        t.hosts_in(&s.parse().unwrap())
            .map(|h| h.id.as_str())
            .collect::<Vec<_>>()
    };
    let of_cluster = |c: &str| {
        t.hosts_of_cluster(&c.parse().unwrap())
            .map(|h| h.id.as_str())
            .collect::<Vec<_>>()
    };
    let on_host = |h: &str| {
        t.guests_on(&h.parse().unwrap())
            .map(|g| g.id.as_str())
            .collect::<Vec<_>>()
    };
    assert_eq!(in_site("sp"), ["h-sp-c", "h-sp-a", "h-sp-b"]);
    assert_eq!(in_site("franca"), ["h-fr-b", "h-fr-a"]);
    assert_eq!(of_cluster("pve-sp"), ["h-sp-c", "h-sp-b"]);
    assert_eq!(of_cluster("pve-franca"), ["h-fr-b", "h-fr-a"]);
    assert_eq!(on_host("h-sp-c"), ["g-3", "g-1", "g-2"]);
    assert_eq!(on_host("h-fr-b"), ["g-9"]);
    // A host without guests, a site and a cluster that are not there: nothing.
    assert_eq!(on_host("h-sp-a"), [""; 0]);
    assert_eq!(in_site("nowhere"), [""; 0]);
    assert_eq!(of_cluster("pve-nowhere"), [""; 0]);
}

/// A count the file does not write is not stated: the loader does not invent one (it used to
/// default a GPU count to 1 and required `place_count`). A GPU written without a count is at
/// least one.
#[test]
fn unstated_counts_stay_unstated() {
    let text = "version: 1\nsites:\n  - { id: sp, state: validated }\nhosts:\n  - { id: h0, site: sp, gpus: [{ model: A5000 }, { model: A5500, count: 2 }], linstor: { roles: [satellite], interface: ens19 }, state: validated }\nlinstor_pools:\n  - { id: p, site: sp, provider: lvm-thin, nodes: [{ host: h0 }], state: validated }\n";
    let topology = load_str("unstated.yaml", text).unwrap_or_else(|e| panic!("{}", e.render()));
    let host = &topology.hosts()[0];
    assert_eq!(host.gpus[0].count, None);
    assert_eq!(host.gpus[1].count, Some(2));
    assert_eq!(host.gpu_count(), None);
    assert_eq!(host.gpu_count_at_least(), 3);
    assert_eq!(topology.linstor_pools()[0].place_count, None);
}
