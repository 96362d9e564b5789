//! The backup flow end to end against a wiremock-served router: two backups, file names with the
//! UTC time, the diff between them, and redaction. No VyOS router can run here: wiremock answers as
//! VyOS's documents and server code say (`common` names them).

mod common;

use common::{config_fixture, ok, router};
use cpps_vyos::backup::{BackupOptions, backup};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

fn at(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

#[tokio::test]
async fn two_backups_and_the_diff_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let (api, client) = router().await;
    let first = config_fixture("cluster-basic.config.boot");
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .respond_with(ok(json!(first)))
        .up_to_n_times(1)
        .mount(api.server())
        .await;
    let mut opts = BackupOptions::new(dir.path());
    opts.now = at("2026-11-29T18:00:00Z");
    let r1 = backup(&client, &opts).await.unwrap();
    assert_eq!(
        r1.boot_file.file_name().unwrap(),
        "vyos-20261129T180000Z.config.boot"
    );
    assert_eq!(
        r1.set_file.file_name().unwrap(),
        "vyos-20261129T180000Z.set"
    );
    assert!(r1.previous.is_none() && r1.changes.is_empty());
    let written = std::fs::read_to_string(&r1.boot_file).unwrap();
    assert_eq!(
        cpps_vyos::ConfigTree::parse_boot(&written).unwrap(),
        r1.tree
    );
    assert!(
        std::fs::read_to_string(&r1.set_file)
            .unwrap()
            .contains("set system host-name 'vyos'\n")
    );

    // The router changed: a new host name and one interface address fewer.
    let second = first
        .replace("host-name vyos", "host-name franca-gw")
        .replace("        address 192.0.2.1/24\n", "");
    assert_ne!(second, first);
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .respond_with(ok(json!(second)))
        .mount(api.server())
        .await;
    opts.now = at("2026-11-29T19:30:05Z");
    let r2 = backup(&client, &opts).await.unwrap();
    assert_eq!(
        r2.boot_file.file_name().unwrap(),
        "franca-gw-20261129T193005Z.config.boot"
    );
    assert_eq!(r2.previous.as_deref(), Some(r1.boot_file.as_path()));
    let changes: Vec<String> = r2.changes.iter().map(ToString::to_string).collect();
    assert_eq!(
        changes,
        [
            // eth1 had that one address: the whole leaf goes.
            "delete interfaces ethernet eth1 address",
            "delete system host-name 'vyos'",
            "set system host-name 'franca-gw'",
        ]
    );
    assert!(
        api.unexpected_requests().is_empty(),
        "{:?}",
        api.unexpected_requests()
    );
}

#[tokio::test]
async fn redacted_backups_hold_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (api, client) = router().await;
    Mock::given(method("POST"))
        .and(path("/retrieve"))
        .respond_with(ok(json!(config_fixture(
            "dialup-router-medium-vpn.config.boot"
        ))))
        .mount(api.server())
        .await;
    let mut opts = BackupOptions::new(dir.path().join("nested"));
    opts.redact = true;
    opts.now = at("2026-11-29T18:00:00Z");
    let r = backup(&client, &opts).await.unwrap();
    for file in [&r.boot_file, &r.set_file] {
        let text = std::fs::read_to_string(file).unwrap();
        for secret in [
            "XpFtzx2Z+nR8pBv9",
            "ericandre2020",
            "AwesomeCommunity",
            "$6$",
        ] {
            assert!(
                !text.contains(secret),
                "{} holds `{secret}`",
                file.display()
            );
        }
        assert!(text.contains("<redacted>"));
    }
    // A second backup in the same second never overwrites the first.
    let e = backup(&client, &opts).await.unwrap_err();
    assert!(matches!(e, cpps_vyos::Error::Io { .. }), "{e:?}");
}
