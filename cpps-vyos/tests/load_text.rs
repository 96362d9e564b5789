//! Inline text for `load`, which VyOS reads with a different parser than `merge`.

mod common;

use common::{FakeRouter, Profile};
use cpps_vyos::config::{NotLoadable, ValuePosition};
use cpps_vyos::{ConfigSource, ConfigTree, Error};

fn start_tree() -> ConfigTree {
    ConfigTree::parse_boot("system {\n    host-name sp-gw\n}\n").unwrap()
}

/// `load` runs vyos-1x `src/helpers/vyos-load-config.py`: `ConfigMigrate` leaves a text with the
/// router's footer untouched (`python/vyos/migrate.py` `run`), then `cli-shell-api loadFile`
/// parses it with vyatta-cfg `src/cparse/cparse_lex.l`, which keeps every escape in a quoted
/// value as written (`<sQStr>\\.`). The text sent must escape `"` and `\` for vyos1x-config
/// (`merge`), so under `load` such a value would land with its backslashes. It is refused, naming
/// where it is and never what it is, and nothing is sent; `merge` still carries it. Failed first:
/// the text was sent and the value changed on the router.
#[tokio::test]
async fn load_refuses_values_it_would_change_and_names_only_where_they_are() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    let quoted = "interfaces {\n    ethernet eth1 {\n        address 10.10.0.1/24\n        description \"to \"Franca\" over the fibre\"\n    }\n}\n";
    match client
        .load(&ConfigSource::InlineFromRouter(quoted.to_owned()), None)
        .await
    {
        Err(Error::NotLoadable(NotLoadable { path, position, .. })) => {
            assert_eq!(path, ["interfaces", "ethernet", "eth1", "description"]);
            assert_eq!(position, ValuePosition::Value(0));
        }
        other => panic!("{other:?}"),
    }
    // A secret with a backslash: its place is named, its value is not.
    let secret = "system {\n    login {\n        user ops {\n            authentication {\n                plaintext-password S3cr\\et\n            }\n        }\n    }\n}\n";
    let err = client
        .load(&ConfigSource::InlineFromRouter(secret.to_owned()), None)
        .await
        .unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(shown.contains("plaintext-password"), "{shown}");
    assert!(!shown.contains("S3cr"), "{shown}");
    assert!(fake.requests_to("config-file").is_empty());

    // Without such values `load` goes out; `merge` carries the quoted one.
    let plain = "system {\n    host-name \"Bob's gw\"\n}\n";
    client
        .load(&ConfigSource::InlineFromRouter(plain.to_owned()), None)
        .await
        .unwrap();
    client
        .merge(&ConfigSource::InlineFromRouter(quoted.to_owned()), None)
        .await
        .unwrap();
    assert_eq!(fake.requests_to("config-file").len(), 2);
    assert_eq!(
        fake.running()
            .value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("to \"Franca\" over the fibre")
    );
}

/// A text in VyOS 1.3's syntax, without footer (as `showConfig` of that release printed it).
const OLD_TEXT: &str =
    "interfaces {\n    ethernet eth1 {\n        address 10.10.0.1/24\n    }\n}\n";

/// X5 of the issue-32 audit: a footerless text is not declared current by invention. VyOS runs
/// `ConfigMigrate` before `load`/`merge` (vyos-1x `src/helpers/vyos-load-config.py`,
/// `vyos-merge-config.py`; `python/vyos/migrate.py` `ConfigMigrate.run`): the syntax version
/// comes from the text's footer (`python/vyos/component_version.py` `version_info_from_file`),
/// a text without one is migrated from version 0, and one whose footer names the running
/// versions is not migrated at all. Stamping the router's footer on a 1.3 text would skip the
/// migrations it needs. Failed first: the text was sent with the router's footer.
#[tokio::test]
async fn a_text_without_footer_is_refused_unless_its_origin_is_stated() {
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    for op in ["load", "merge"] {
        let source = ConfigSource::Inline(OLD_TEXT.to_owned());
        let result = if op == "load" {
            client.load(&source, None).await
        } else {
            client.merge(&source, None).await
        };
        match result {
            Err(Error::InlineConfigRefused { reason }) => {
                assert!(reason.contains("version 0"), "{op}: {reason}");
                assert!(reason.contains("InlineFromRouter"), "{op}: {reason}");
                assert!(reason.contains("InlineAt"), "{op}: {reason}");
            }
            other => panic!("{op}: {other:?}"),
        }
    }
    assert!(fake.requests_to("config-file").is_empty());
    assert_eq!(fake.running(), start_tree());
}

/// The three ways a text states its version (X5): its own footer; this router's own
/// `showConfig` text, sent with the router's footer (`show system commit file 0`, an archived
/// config.boot); or a version the caller names, sent as `component_version.py` writes a footer
/// (`CONFIG_FILE_VERSION`: the warning line, `// vyos-config-version: "…"`, `// Release
/// version: …`), which `ConfigMigrate` then migrates from. A text with a footer of its own sent
/// as another source, or router text when the router's footer cannot be read, is refused.
#[tokio::test]
async fn a_text_is_sent_with_the_footer_its_source_states() {
    use cpps_vyos::ConfigVersion;
    let (_api, client, fake) = FakeRouter::new(Profile::V15, start_tree()).start().await;
    let sent = |i: usize| -> String {
        fake.requests_to("config-file")[i]["string"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    client
        .merge(&ConfigSource::InlineFromRouter(OLD_TEXT.to_owned()), None)
        .await
        .unwrap();
    assert!(sent(0).ends_with(common::FOOTER), "{}", sent(0));
    assert!(!fake.state.lock().unwrap().migrated_from_zero);

    let v13 = ConfigVersion::new("interfaces@20:system@19", "1.3.0").unwrap();
    let at = ConfigSource::InlineAt {
        text: OLD_TEXT.to_owned(),
        version: v13,
    };
    client.merge(&at, None).await.unwrap();
    let footer = "// Warning: Do not remove the following line.\n// vyos-config-version: \"interfaces@20:system@19\"\n// Release version: 1.3.0\n";
    assert!(sent(1).ends_with(footer), "{}", sent(1));
    assert!(!sent(1).contains("interfaces@32"), "{}", sent(1));

    let with_own = format!("{OLD_TEXT}{footer}");
    client
        .merge(&ConfigSource::Inline(with_own.clone()), None)
        .await
        .unwrap();
    assert!(sent(2).ends_with(footer), "{}", sent(2));
    assert_eq!(
        fake.running()
            .value(&["interfaces", "ethernet", "eth1", "address"]),
        Some("10.10.0.1/24")
    );

    // Two footers for one text: refused.
    match client
        .merge(&ConfigSource::InlineFromRouter(with_own), None)
        .await
    {
        Err(Error::InlineConfigRefused { reason }) => {
            assert!(reason.contains("footer of its own"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // No commit archive: the router's footer cannot be read, so its text is refused.
    fake.state.lock().unwrap().footer = None;
    match client
        .merge(&ConfigSource::InlineFromRouter(OLD_TEXT.to_owned()), None)
        .await
    {
        Err(Error::InlineConfigRefused { reason }) => {
            assert!(reason.contains("InlineAt"), "{reason}");
            assert!(reason.contains("version 0"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fake.requests_to("config-file").len(), 3);
}

/// `ConfigVersion` takes only what `component_version.py` reads back
/// (`REGEX_COMPONENT_VERSION_VYOS` `"([\w@:-]+)"`, `component_from_string` `([\w,-]+)@(\d+)`,
/// `REGEX_RELEASE_VERSION_VYOS` `(\S*)`).
#[test]
fn a_config_version_is_what_the_footer_reader_reads() {
    use cpps_vyos::ConfigVersion;
    let v = ConfigVersion::new("bgp@5:https@6:interfaces@32:system@27", "1.4.0").unwrap();
    assert_eq!(
        v.footer(),
        "// Warning: Do not remove the following line.\n// vyos-config-version: \"bgp@5:https@6:interfaces@32:system@27\"\n// Release version: 1.4.0\n"
    );
    assert_eq!(v.components(), "bgp@5:https@6:interfaces@32:system@27");
    assert_eq!(v.release(), "1.4.0");
    for (components, release) in [
        ("", "1.4.0"),
        ("bgp 5", "1.4.0"),
        ("bgp@five", "1.4.0"),
        ("bgp@5::system@2", "1.4.0"),
        ("bgp@5\"", "1.4.0"),
        ("bgp@5", ""),
        ("bgp@5", "1.4 0"),
    ] {
        assert!(
            matches!(
                ConfigVersion::new(components, release),
                Err(Error::Config { .. })
            ),
            "{components:?} {release:?}"
        );
    }
}
