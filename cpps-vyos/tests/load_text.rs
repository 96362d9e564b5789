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
        .load(&ConfigSource::Inline(quoted.to_owned()), None)
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
        .load(&ConfigSource::Inline(secret.to_owned()), None)
        .await
        .unwrap_err();
    let shown = format!("{err} {err:?}");
    assert!(shown.contains("plaintext-password"), "{shown}");
    assert!(!shown.contains("S3cr"), "{shown}");
    assert!(fake.requests_to("config-file").is_empty());

    // Without such values `load` goes out; `merge` carries the quoted one.
    let plain = "system {\n    host-name \"Bob's gw\"\n}\n";
    client
        .load(&ConfigSource::Inline(plain.to_owned()), None)
        .await
        .unwrap();
    client
        .merge(&ConfigSource::Inline(quoted.to_owned()), None)
        .await
        .unwrap();
    assert_eq!(fake.requests_to("config-file").len(), 2);
    assert_eq!(
        fake.running()
            .value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("to \"Franca\" over the fibre")
    );
}
