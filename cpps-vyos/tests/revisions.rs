//! Commit revisions as the archive holds them: saved files (vyos-1x `python/vyos/config_mgmt.py`
//! `_archive_active_config` archives what `src/helpers/vyos-save-config.py` wrote), read by
//! rollback-soft as VyOS reads them.

mod common;

use cpps_vyos::ConfigTree;
use cpps_vyos::config::{Command, Op, rollback_soft_batch};
use serde_json::json;
use wiremock::matchers::body_partial_json;

/// A revision equal to the running configuration gives an empty rollback-soft batch; a revision
/// whose values hold `"` and `\` gives the real values. The revision text comes from
/// `common::printers::sp_gw_config_boot` (vyos-1x `vyos-save-config.py`, `configtree.py`
/// `to_string`, vyos1x-config `config_tree.ml` `render_values`, `util.ml` `escape_string`), the
/// running tree from `sp_gw_show_config` (vyatta-cfg `cnode-algorithm.cpp`). VyOS's own
/// `ConfigMgmt.rollback_soft` reads the revision with `ConfigTree(text)`, which decodes the
/// escapes. Failed first: the revision was read undecoded, so the batch set `description` to
/// `to \"Franca\" over the \"long\" fibre`, backslashes included, and the banner likewise.
#[test]
fn rollback_soft_reads_the_archived_revision_decoded() {
    let running = ConfigTree::parse_boot(&common::printers::sp_gw_show_config()).unwrap();
    let revision = common::printers::sp_gw_config_boot();
    let batch = rollback_soft_batch(&running, &revision).unwrap();
    assert_eq!(batch, Vec::<Command>::new());

    // The router has since changed eth1's description; the rollback puts the real value back.
    let mut changed = running.clone();
    changed
        .set_value(&["interfaces", "ethernet", "eth1", "description"], "moved")
        .unwrap();
    let batch = rollback_soft_batch(&changed, &revision).unwrap();
    let batch: Vec<(Op, Vec<String>, Option<String>)> = batch
        .iter()
        .map(|c| (c.op, c.path.clone(), c.value.clone()))
        .collect();
    let path: Vec<String> = ["interfaces", "ethernet", "eth1", "description"]
        .map(str::to_owned)
        .to_vec();
    assert_eq!(
        batch,
        vec![
            (Op::Delete, path.clone(), Some("moved".to_owned())),
            (
                Op::Set,
                path,
                Some("to \"Franca\" over the \"long\" fibre".to_owned())
            ),
        ]
    );
}

/// A saved file prints an empty node as its bare name, as it prints a valueless leaf
/// (vyos1x-config `src/config_tree.ml` `render_node`: a node without children is `name` alone),
/// and its parser reads `name` alone as a node without values or children
/// (`src/vyos1x_parser.mly` `leaf_node_body`, "valueless node"): in vyos1x-config the two are one
/// node, so VyOS's own `rollback_soft` (`python/vyos/config_mgmt.py`, `load(rollback_ct,
/// switch='explicit')`) sees no change there. Real configurations hold such nodes (vyos-1x
/// `smoketest/configs/dialup-router-medium-vpn`: `policy route … rule 10 destination { }`).
/// Failed first: each empty `destination` was deleted and set again, 8 commands for nothing.
#[test]
fn an_empty_node_in_a_revision_is_not_a_change() {
    let running = ConfigTree::parse_boot(
        "policy {\n    route LAN {\n        rule 10 {\n            destination {\n            }\n            disable\n        }\n    }\n}\nsystem {\n    domain-name example.net\n}\n",
    )
    .unwrap();
    let mut saved = running.clone();
    saved.apply(&Command::delete(["system"], None)).unwrap();
    let revision = saved.to_saved_string();
    assert!(revision.contains("            destination\n"), "{revision}");
    let batch = rollback_soft_batch(&running, &revision).unwrap();
    let batch: Vec<(Op, Vec<String>)> = batch.iter().map(|c| (c.op, c.path.clone())).collect();
    assert_eq!(batch, vec![(Op::Delete, vec!["system".to_owned()])]);
}

/// `show system commit diff N` runs vyos-1x `src/op_mode/config_mgmt.py` `show_commit_diff`
/// with `rev=N` only, and `ConfigMgmt.show_commit_diff` (`python/vyos/config_mgmt.py`) then
/// compares revision N+1 with N: what commit N changed, not what changed since. Two revisions are
/// compared with `show system commit file N compare M` (`op-mode-definitions/show-system.xml.in`:
/// `diff` takes one revision), which diffs M against N; so "since N" is `file 0 compare N`.
/// Failed first: `commit_diff(0, Some(3))` sent `system commit diff 0 3`, which VyOS does not
/// have.
#[tokio::test]
async fn revision_diffs_use_the_commands_vyos_has() {
    let (api, client) = common::router().await;
    let answers: [(&[&str], &str); 2] = [
        (&["system", "commit", "diff", "3"], "what commit 3 changed"),
        (
            &["system", "commit", "file", "0", "compare", "3"],
            "since 3",
        ),
    ];
    for (words, text) in answers {
        common::post("/show")
            .and(body_partial_json(json!({"op": "show", "path": words})))
            .respond_with(common::ok(json!(text)))
            .mount(api.server())
            .await;
    }
    assert_eq!(
        client.commit_diff(3, None).await.unwrap(),
        "what commit 3 changed"
    );
    assert_eq!(client.commit_diff(0, Some(3)).await.unwrap(), "since 3");
}

/// X6 of the issue-32 audit: `show system commit diff N` of a revision that does not exist.
/// `ConfigMgmt.compare` (vyos-1x `python/vyos/config_mgmt.py`) returns `Invalid revision
/// number N` with rc 1, `show_commit_diff` drops the rc and returns the text, and
/// `src/op_mode/config_mgmt.py` prints it and exits 0: the API answers 200 with it. That is
/// no diff, so `commit_diff` is an error naming it. Failed first: the text came back as the
/// diff.
#[tokio::test]
async fn a_diff_of_a_revision_that_does_not_exist_is_an_error() {
    let tree = ConfigTree::parse_boot(&common::config_fixture(
        "dialup-router-medium-vpn.config.boot",
    ))
    .unwrap();
    for profile in [common::Profile::V14, common::Profile::V15] {
        let (_api, client, _fake) = common::FakeRouter::new(profile, tree.clone()).start().await;
        let diff = client.commit_diff(0, None).await.unwrap();
        assert_eq!(
            diff,
            "No changes between revisions 1 and 0 configurations.\n"
        );
        for (rev, rev2, missing) in [(1, None, 2), (7, None, 7), (0, Some(9), 9)] {
            let err = client.commit_diff(rev, rev2).await.unwrap_err();
            assert!(
                err.to_string()
                    .contains(&format!("Invalid revision number {missing}")),
                "{profile:?} {rev} {rev2:?}: {err}"
            );
        }
    }
}

/// V3 of the s42 audit of issue 32: without `system config-management commit-revisions`,
/// `show_commit_log` (vyos-1x `src/op_mode/config_mgmt.py`, `sagitta` and `current` alike)
/// prints "commit-revisions is not configured;\ncommit log is empty or stale:\n\n" before
/// `ConfigMgmt.format_log_data`'s table (`max_revisions == 0`: the commit hook archives nothing,
/// so revision N is no longer N commits ago). The list says each revision is stale, and a soft
/// rollback to one is refused before its file is read. With commit-revisions set, nothing is
/// stale and the rollback is planned. Failed first: the header was dropped, the revisions read
/// as current and the rollback batch was built.
#[tokio::test]
async fn a_stale_commit_log_says_so_and_refuses_a_soft_rollback() {
    let tree = ConfigTree::parse_boot(&common::config_fixture(
        "dialup-router-medium-vpn.config.boot",
    ))
    .unwrap();
    for profile in [common::Profile::V14, common::Profile::V15] {
        let fake = common::FakeRouter::new(profile, tree.clone());
        fake.state.lock().unwrap().commit_revisions = false;
        let (_api, client, fake) = fake.start().await;
        let revs = client.commit_revisions().await.unwrap();
        let seen: Vec<(u32, bool, Option<&str>)> = revs
            .iter()
            .map(|r| (r.number, r.stale, r.comment.as_deref()))
            .collect();
        assert_eq!(
            seen,
            [(0, true, Some("add the uplink")), (1, true, None)],
            "{profile:?}"
        );
        let err = client.rollback_soft_commands(0).await.unwrap_err();
        assert!(
            err.to_string()
                .contains("commit-revisions is not configured, so revision 0 is stale"),
            "{profile:?}: {err}"
        );
        let asked_file = fake
            .requests_to("show")
            .iter()
            .any(|b| b["path"] == json!(["system", "commit", "file", "0"]));
        assert!(!asked_file, "{profile:?}: the stale revision was read");

        fake.state.lock().unwrap().commit_revisions = true;
        let revs = client.commit_revisions().await.unwrap();
        assert!(revs.iter().all(|r| !r.stale), "{profile:?}: {revs:?}");
        assert_eq!(client.rollback_soft_commands(0).await.unwrap(), Vec::new());
    }
}
