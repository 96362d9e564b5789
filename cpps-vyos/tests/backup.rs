//! The backup flow end to end against the fake router of `common`: two backups of one router,
//! file names with the UTC time, the diff between them, the version footer, file modes, one folder
//! per router, and redaction.

mod common;

use common::{FOOTER, FakeRouter, Profile, config_fixture};
use cpps_vyos::ConfigTree;
use cpps_vyos::backup::{BackupOptions, backup};

fn at(s: &str) -> jiff::Timestamp {
    s.parse().unwrap()
}

fn tree(name: &str) -> ConfigTree {
    let mut t = ConfigTree::parse_boot(&config_fixture(name)).unwrap();
    t.footer = None;
    t
}

#[tokio::test]
async fn two_backups_of_one_router_and_the_diff_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let (_api, client, fake) = FakeRouter::new(Profile::V14, tree("cluster-basic.config.boot"))
        .start()
        .await;
    let mut opts = BackupOptions::new(dir.path());
    opts.now = at("2026-11-29T18:00:00Z");
    let r1 = backup(&client, &opts).await.unwrap();
    let label = cpps_vyos::backup::router_label(&client);
    assert!(label.starts_with("127.0.0.1_"), "{label}");
    assert_eq!(r1.router_dir, dir.path().join(&label));
    assert_eq!(
        r1.boot_file.file_name().unwrap(),
        "vyos-20261129T180000Z.config.boot"
    );
    assert_eq!(
        r1.set_file.file_name().unwrap(),
        "vyos-20261129T180000Z.set"
    );
    assert!(r1.previous.is_none() && r1.changes.is_empty());
    // The file is the router's configuration as `save` writes it, then its saved footer (from
    // `show system commit file 0`, vyos-1x `python/vyos/config_mgmt.py` `show_commit_file`)
    // after a blank line (`python/vyos/component_version.py` `write_string`).
    let written = std::fs::read_to_string(&r1.boot_file).unwrap();
    let mut running = fake.running();
    running.footer = Some(format!("\n{FOOTER}"));
    assert_eq!(written, running.to_saved_string());
    assert!(
        written.contains("    host-name \"vyos\"\n    login {\n"),
        "{written}"
    );
    assert_eq!(r1.footer.as_deref(), Some(FOOTER));
    assert!(r1.warnings.is_empty(), "{:?}", r1.warnings);
    assert_eq!(r1.tree, running);
    assert!(
        std::fs::read_to_string(&r1.set_file)
            .unwrap()
            .contains("set system host-name 'vyos'\n")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&r1.boot_file), 0o600);
        assert_eq!(mode(&r1.set_file), 0o600);
        assert_eq!(mode(&r1.router_dir), 0o700);
    }

    // The router changed: a new host name and one interface address fewer.
    {
        let mut st = fake.state.lock().unwrap();
        st.running
            .set_value(&["system", "host-name"], "franca-gw")
            .unwrap();
        st.running
            .apply(&cpps_vyos::Command::delete(
                ["interfaces", "ethernet", "eth1", "address"],
                None,
            ))
            .unwrap();
    }
    // Another router's backups in the same folder are not "the previous backup".
    let (_api2, other, _fake2) =
        FakeRouter::new(Profile::V15, tree("basic-api-service.config.boot"))
            .start()
            .await;
    opts.now = at("2026-11-29T19:00:00Z");
    let other_report = backup(&other, &opts).await.unwrap();
    assert!(other_report.previous.is_none());

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
            "delete interfaces ethernet eth1 address",
            "delete system host-name 'vyos'",
            "set system host-name 'franca-gw'",
        ]
    );
}

#[tokio::test]
async fn without_a_commit_archive_the_backup_says_it_has_no_footer() {
    let dir = tempfile::tempdir().unwrap();
    let fake = FakeRouter::new(Profile::V14, tree("cluster-basic.config.boot"));
    fake.state.lock().unwrap().footer = None;
    let (_api, client, _fake) = fake.start().await;
    let r = backup(&client, &BackupOptions::new(dir.path()))
        .await
        .unwrap();
    assert!(r.footer.is_none());
    assert!(r.warnings[0].contains("footer"), "{:?}", r.warnings);
}

/// X5 of the issue-32 audit, for backups: where the router's footer cannot be read, the operator
/// may name the version, and the file ends with the footer `component_version.py` writes for it
/// (`CONFIG_FILE_VERSION`), so that `ConfigMigrate` (vyos-1x `python/vyos/migrate.py`) migrates
/// it from there rather than from version 0. The router's own footer wins over a named one.
#[tokio::test]
async fn a_named_version_is_the_footer_only_where_the_router_has_none() {
    let version = cpps_vyos::ConfigVersion::new("interfaces@20:system@19", "1.3.0").unwrap();
    let named = "// Warning: Do not remove the following line.\n// vyos-config-version: \"interfaces@20:system@19\"\n// Release version: 1.3.0\n";
    for archive in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let fake = FakeRouter::new(Profile::V14, tree("cluster-basic.config.boot"));
        if !archive {
            fake.state.lock().unwrap().footer = None;
        }
        let (_api, client, _fake) = fake.start().await;
        let mut opts = BackupOptions::new(dir.path());
        opts.version = Some(version.clone());
        let r = backup(&client, &opts).await.unwrap();
        let text = std::fs::read_to_string(&r.boot_file).unwrap();
        let expected = if archive { FOOTER } else { named };
        assert!(text.ends_with(expected), "{archive}: {text}");
        assert!(r.warnings.is_empty(), "{archive}: {:?}", r.warnings);
        assert_eq!(
            ConfigTree::parse_saved(&text).unwrap().footer.as_deref(),
            Some(format!("\n{expected}").as_str())
        );
    }
}

#[tokio::test]
async fn redacted_backups_hold_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (_api, client, _fake) =
        FakeRouter::new(Profile::V15, tree("dialup-router-medium-vpn.config.boot"))
            .start()
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
    assert!(
        std::fs::read_to_string(&r.boot_file)
            .unwrap()
            .ends_with(FOOTER)
    );
    // A second backup in the same second never overwrites the first.
    let e = backup(&client, &opts).await.unwrap_err();
    assert!(matches!(e, cpps_vyos::Error::Io { .. }), "{e:?}");
}

/// A backup is a saved file, as `save` writes one (vyos-1x `src/helpers/vyos-save-config.py`:
/// `ct.to_string()`, then `add_system_version`, `python/vyos/component_version.py`
/// `write_string`: the body, `"\n"`, the footer lines): VyOS loads and migrates such a file with
/// `ConfigTree(text)` (`python/vyos/migrate.py` `ConfigMigrate.run`), whose lexer
/// (vyos1x-config `src/vyos1x_lexer.mll`) opens a string at `'`. showConfig prints
/// `Bob's-uplink` bare (vyatta-cfg `src/cnode/cnode-algorithm.cpp` quotes only values with
/// blanks), which that lexer splits. Failed first: the file held the bare word, and
/// `parse_saved` (VyOS's reading) refused it.
#[tokio::test]
async fn a_backup_is_a_saved_file_that_vyos_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let mut running = tree("cluster-basic.config.boot");
    running
        .apply(&cpps_vyos::Command::set(
            ["interfaces", "ethernet", "eth1", "description"],
            Some("Bob's-uplink"),
        ))
        .unwrap();
    let (_api, client, _fake) = FakeRouter::new(Profile::V14, running).start().await;
    let mut opts = BackupOptions::new(dir.path());
    opts.now = at("2026-11-29T18:00:00Z");
    let r1 = backup(&client, &opts).await.unwrap();
    let written = std::fs::read_to_string(&r1.boot_file).unwrap();
    assert!(
        written.contains("        description \"Bob's-uplink\"\n"),
        "{written}"
    );
    assert!(written.ends_with(&format!("}}\n\n{FOOTER}")), "{written}");
    let read = ConfigTree::parse_saved(&written).unwrap();
    assert_eq!(
        read.value(&["interfaces", "ethernet", "eth1", "description"]),
        Some("Bob's-uplink")
    );
    assert_eq!(read.to_saved_string(), written);
    // Nothing changed on the router: nothing changed between the two backups.
    opts.now = at("2026-11-29T19:00:00Z");
    let r2 = backup(&client, &opts).await.unwrap();
    assert_eq!(r2.previous.as_deref(), Some(r1.boot_file.as_path()));
    assert!(r2.changes.is_empty(), "{:?}", r2.changes);
}

/// The suspected stale footer of the s42 audit of issue 32, confirmed for a router without
/// `system config-management commit-revisions`: vyos-1x `src/conf_mode/system_config-management.py`
/// then unlinks the `01vyos-commit-revision` post-commit hook, so `ConfigMgmt.commit_revision`
/// (`python/vyos/config_mgmt.py`) no longer archives, while `show_commit_file(0)`
/// (`_get_file_revision`) still serves the last archived `config.boot.0.gz`, footer and all,
/// and `show_commit_log` says "commit log is empty or stale". That footer may name the
/// migrations of an older image, so it is not used: the named version is, or the backup says it
/// has none and why. Failed first: the stale archive's footer was written.
#[tokio::test]
async fn a_stale_archive_gives_no_footer() {
    let version = cpps_vyos::ConfigVersion::new("interfaces@20:system@19", "1.3.0").unwrap();
    let named = "// Warning: Do not remove the following line.\n// vyos-config-version: \"interfaces@20:system@19\"\n// Release version: 1.3.0\n";
    for profile in [Profile::V14, Profile::V15] {
        for name_it in [false, true] {
            let dir = tempfile::tempdir().unwrap();
            let fake = FakeRouter::new(profile, tree("cluster-basic.config.boot"));
            fake.state.lock().unwrap().commit_revisions = false;
            let (_api, client, _fake) = fake.start().await;
            let mut opts = BackupOptions::new(dir.path());
            if name_it {
                opts.version = Some(version.clone());
            }
            let r = backup(&client, &opts).await.unwrap();
            let text = std::fs::read_to_string(&r.boot_file).unwrap();
            if name_it {
                assert!(text.ends_with(named), "{profile:?}: {text}");
                assert!(r.warnings.is_empty(), "{profile:?}: {:?}", r.warnings);
            } else {
                assert!(r.footer.is_none(), "{profile:?}: {:?}", r.footer);
                assert!(!text.contains("vyos-config-version"), "{profile:?}: {text}");
                assert!(
                    r.warnings[0].contains("commit-revisions is not configured"),
                    "{profile:?}: {:?}",
                    r.warnings
                );
            }
        }
    }
}

/// A previous backup over the 8 MiB cap (the cap the client puts on a router's answer,
/// cpps-http `DEFAULT_MAX_RESPONSE_BYTES`) is refused by its size before it is read: a sparse
/// file of cap + 1 bytes (`set_len`, nothing written) gives an error naming the file, its size
/// and the cap, and no new backup is written. Failed first: the file was read whole and the
/// error was a parse error.
#[test]
fn a_previous_backup_over_the_cap_is_refused_unread() {
    let cap: u64 = 8 * 1024 * 1024;
    let dir = tempfile::tempdir().unwrap();
    let router_dir = dir.path().join("sp-gw");
    std::fs::create_dir(&router_dir).unwrap();
    let big = router_dir.join("vyos-20261129T170000Z.config.boot");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(cap + 1)
        .unwrap();
    let mut opts = BackupOptions::new(dir.path());
    opts.router = Some("sp-gw".to_owned());
    opts.now = at("2026-11-29T18:00:00Z");
    let err = cpps_vyos::backup::save(tree("cluster-basic.config.boot"), &opts).unwrap_err();
    let message = err.to_string();
    assert_eq!(cap, cpps_vyos::backup::MAX_FILE_BYTES);
    match &err {
        cpps_vyos::Error::FileTooLarge { path, size, cap: c } => {
            assert_eq!((path, *size, *c), (&big, cap + 1, cap));
        }
        other => panic!("not FileTooLarge: {other}"),
    }
    assert!(message.contains(&big.display().to_string()), "{message}");
    assert!(message.contains(&format!("{} bytes", cap + 1)), "{message}");
    assert!(
        message.contains(&format!("cap of {cap} bytes")),
        "{message}"
    );
    let files: Vec<_> = std::fs::read_dir(&router_dir).unwrap().collect();
    assert_eq!(files.len(), 1, "nothing new is written: {files:?}");
}

/// A file whose length says nothing (a character device, as a pipe or a growing file) is read
/// at most one byte past the cap and refused: `/dev/zero` reports length 0 and never ends.
#[test]
fn a_file_whose_length_lies_is_read_only_up_to_the_cap() {
    let cap = cpps_vyos::backup::MAX_FILE_BYTES;
    let zero = std::path::Path::new("/dev/zero");
    match cpps_vyos::backup::read_file(zero) {
        Err(cpps_vyos::Error::FileTooLarge { path, size, cap: c }) => {
            assert_eq!((path.as_path(), size, c), (zero, cap + 1, cap));
        }
        Err(other) => panic!("not FileTooLarge: {other}"),
        Ok(text) => panic!("read {} bytes", text.len()),
    }
}
