//! Commit revisions as the archive holds them: saved files (vyos-1x `python/vyos/config_mgmt.py`
//! `_archive_active_config` archives what `src/helpers/vyos-save-config.py` wrote), read by
//! rollback-soft as VyOS reads them.

mod common;

use cpps_vyos::ConfigTree;
use cpps_vyos::config::{Command, Op, rollback_soft_batch};

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

