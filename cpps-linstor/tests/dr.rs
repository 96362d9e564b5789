//! The cross-site DR view: remotes, backups and schedules, against wiremock.

mod common;

use std::time::Duration;

use cpps_linstor::dr::{self, CopySource, Freshness};
use serde_json::json;

use common::{mock, mock_client, ok, serve_get};

const HOUR_MS: i64 = 3_600_000;
const NOW: i64 = 1_767_225_600_000;

// linstor-server `Remotes.java` (`getRemotes`) answers one `RemoteList` object, where the spec
// announces an array of them; both decode. `Json.java` (`apiToS3Remote`, `apiToLinstorRemote`)
// sends no secret key or passphrase, and should a server send one, the models do not keep it.
#[tokio::test]
async fn remotes_decode_in_both_shapes_and_keep_no_secret() {
    let remote_list = json!({
        "s3_remotes": [{"remote_name": "s3-franca", "endpoint": "https://s3.franca.example", "bucket": "linstor", "region": "br", "access_key": "AKIA-ID", "secret_key": "s3cr3t-key"}],
        "linstor_remotes": [{"remote_name": "franca", "url": "https://10.10.10.1:3371", "passphrase": "pass-phrase", "cluster_id": "c0ffee"}],
        "ebs_remotes": null
    });
    for answer in [remote_list.clone(), json!([remote_list])] {
        let server = mock().await;
        serve_get(&server, "/v1/remotes", ok(answer)).await;
        let remotes = mock_client(&server)
            .remotes()
            .await
            .expect("remotes decode");
        let names: Vec<(&str, &str)> = remotes.names().collect();
        assert_eq!(names, [("s3-franca", "s3"), ("franca", "linstor")]);
        assert_eq!(remotes.s3_remotes[0].bucket.as_deref(), Some("linstor"));
        let shown = format!("{remotes:?}{}", serde_json::to_string(&remotes).unwrap());
        assert!(
            !shown.contains("s3cr3t-key") && !shown.contains("pass-phrase"),
            "{shown}"
        );
    }
}

/// The site of the DR view test: a LINSTOR and two S3 remotes (one unreadable), one schedule
/// shipping three resources, and the S3 remote's backups: finished, failed and running.
async fn serve_dr_site(server: &cpps_http::test_util::MockApi) {
    serve_get(
        server,
        "/v1/remotes",
        ok(json!({
            "s3_remotes": [{"remote_name": "s3-franca"}, {"remote_name": "s3-broken"}],
            "linstor_remotes": [{"remote_name": "franca"}]
        })),
    )
    .await;
    serve_get(
        server,
        "/v1/schedules",
        ok(json!({"data": [{"schedule_name": "nightly", "full_cron": "0 2 * * 0", "inc_cron": "0 2 * * *", "keep_remote": 7, "on_failure": "RETRY", "max_retries": 3}]})),
    )
    .await;
    serve_get(
        server,
        "/v1/view/schedules-by-resource",
        ok(json!({"data": [
            {"rsc_name": "vm-100-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": NOW - 3 * HOUR_MS, "last_snap_inc": true, "next_exec_time": NOW + 21 * HOUR_MS},
            {"rsc_name": "vm-101-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": -1, "next_exec_time": NOW + HOUR_MS},
            {"rsc_name": "vm-102-disk-0", "remote_name": "franca", "schedule_name": "nightly", "reason": "resource-definition is not deployed", "last_snap_time": NOW - HOUR_MS}
        ]})),
    )
    .await;
    serve_get(
        server,
        "/v1/remotes/s3-franca/backups",
        ok(json!({"linstor": {
            "vm-101-disk-0^back_20261130": {"id": "vm-101-disk-0^back_20261130", "origin_rsc": "vm-101-disk-0", "finished_timestamp": NOW - 30 * HOUR_MS, "success": true, "vlms": []},
            "vm-100-disk-0^back_old": {"id": "vm-100-disk-0^back_old", "origin_rsc": "vm-100-disk-0", "finished_timestamp": NOW - 50 * HOUR_MS, "success": true, "vlms": []},
            "vm-103-disk-0^back_failed": {"id": "vm-103-disk-0^back_failed", "origin_rsc": "vm-103-disk-0", "finished_timestamp": NOW - HOUR_MS, "success": false, "vlms": []},
            "vm-103-disk-0^back_running": {"id": "vm-103-disk-0^back_running", "origin_rsc": "vm-103-disk-0", "start_timestamp": NOW - HOUR_MS, "shipping": true, "vlms": []}
        }, "other": {}})),
    )
    .await;
    serve_get(
        server,
        "/v1/remotes/s3-broken/backups",
        common::rc_answer(500, -4611686018427386880, "Unable to reach the bucket"),
    )
    .await;
}

/// vm-100-disk-0: a finished S3 backup 50 h old, and a LINSTOR shipment started 3 h ago.
fn expect_vm100(vm100: &dr::ResourceDr) {
    // Its shipment to the LINSTOR remote started 3 h ago, which is no proof of a copy; its
    // finished S3 backup is 50 h old.
    let newest = vm100.newest().unwrap();
    assert_eq!(
        (newest.remote.as_str(), newest.kind.as_str()),
        ("s3-franca", "s3")
    );
    assert_eq!(
        newest.source,
        CopySource::Backup {
            id: "vm-100-disk-0^back_old".to_owned()
        }
    );
    assert_eq!(newest.age, Duration::from_secs(50 * 3600));
    assert_eq!(vm100.copies.len(), 1);
    assert_eq!(vm100.verdict, Freshness::Stale);
    let attempt = vm100.unconfirmed_attempt().unwrap();
    assert_eq!(
        (
            attempt.remote.as_str(),
            attempt.kind.as_str(),
            attempt.schedule.as_str()
        ),
        ("franca", "linstor", "nightly")
    );
    assert_eq!(attempt.age, Duration::from_secs(3 * 3600));
}

// Off-site copies from both ways LINSTOR ships (linstor-server `Backups.java` for S3 listings,
// `Schedules.java`/`View.java` for `schedules-by-resource`): a backup counts when it finished
// successfully (`success`, not `shipping`, not `restorable: false`); a schedule's
// `last_snap_time` is the start of its last shipment (see the D4 test below), shown as an
// unconfirmed attempt unless it is negative (never shipped) or a `reason` says the schedule is
// not active (the spec's `ScheduledRscs`: "If this is set, ignore all long and boolean
// parameters"). A remote whose listing fails is reported, and the rest still is.
#[tokio::test]
async fn dr_view_says_which_resources_have_an_off_site_copy_and_how_old() {
    let server = mock().await;
    serve_dr_site(&server).await;
    let state = mock_client(&server)
        .dr_state()
        .await
        .expect("the view is read");
    assert_eq!(state.schedules[0].keep_remote, Some(7));
    let report = dr::assess(
        &state,
        &[
            "vm-100-disk-0",
            "vm-101-disk-0",
            "vm-102-disk-0",
            "vm-103-disk-0",
        ],
        NOW,
        Duration::from_secs(26 * 3600),
    );
    let by_name = |name: &str| {
        report
            .resources
            .iter()
            .find(|r| r.resource == name)
            .unwrap()
    };

    expect_vm100(by_name("vm-100-disk-0"));

    // Never shipped by its schedule; its S3 backup is 30 h old: older than allowed.
    let vm101 = by_name("vm-101-disk-0");
    assert_eq!(vm101.newest().unwrap().remote, "s3-franca");
    assert_eq!(vm101.verdict, Freshness::Stale);
    // An inactive schedule's time is ignored; its reason is shown.
    let vm102 = by_name("vm-102-disk-0");
    assert!(vm102.copies.is_empty() && vm102.last_attempts.is_empty());
    assert_eq!(
        vm102.schedules,
        ["nightly → franca (inactive: resource-definition is not deployed)"]
    );
    // A failed and a running backup are no copies.
    assert!(by_name("vm-103-disk-0").copies.is_empty());
    assert_eq!(
        (report.without_copy, report.stale, report.unconfirmed),
        (2, 4, 1)
    );
    assert!(report.unreadable["s3-broken"].contains("Unable to reach the bucket"));

    let text = dr::render_text(&report);
    assert!(
        text.contains("vm-100-disk-0                    newest copy on s3-franca (s3) 2 d 2 h old, by backup vm-100-disk-0^back_old (cannot tell which cluster)  STALE\n                                   last shipment by schedule nightly to franca (linstor) started 3 h 0 min ago (unconfirmed)\n"),
        "{text}"
    );
    assert!(
        text.contains("vm-102-disk-0                    no off-site copy  STALE"),
        "{text}"
    );
    assert!(
        text.contains("remote s3-broken: backups not readable"),
        "{text}"
    );
}

// Issue 33, D4. linstor-server writes a schedule's `LastBackupTime` when shipping *starts*:
// `CtrlBackupCreateApiCallHandler.setIncrementalDependentProps` sets it to
// `System.currentTimeMillis()` for S3 while the backup is being started, and
// `CtrlBackupL2LSrcApiCallHandler` calls the same method for a LINSTOR remote before the copy
// is sent; `CtrlScheduleApiCallHandler.listActiveSchedules` returns it as `last_snap_time`.
// So a shipment that started an hour ago and then failed still shows `last_snap_time` one hour
// old. The backup list tells what finished: `CtrlBackupApiCallHandler` lists a backup whose
// S3 meta-file was written with its `finished_timestamp` and `success: true`, and one without a
// meta-file (shipping broke off) with only its `start_timestamp` and `success: false`, or
// `null` while shipping, and `restorable: false`. Only finished, successful entries are
// copies; the schedule's time is the last attempt.
#[test]
fn a_shipment_that_started_but_failed_is_no_fresh_copy() {
    let state = dr::DrState {
        remotes: serde_json::from_value(json!({"s3_remotes": [{"remote_name": "s3-franca"}]}))
            .unwrap(),
        scheduled: serde_json::from_value(json!([
            {"rsc_name": "vm-100-disk-0", "remote_name": "s3-franca", "schedule_name": "nightly", "last_snap_time": NOW - HOUR_MS, "last_snap_inc": true, "next_exec_time": NOW + 23 * HOUR_MS}
        ]))
        .unwrap(),
        backups: [(
            "s3-franca".to_owned(),
            serde_json::from_value(json!({"linstor": {
                "vm-100-disk-0^back_20261230_020000": {"id": "vm-100-disk-0^back_20261230_020000", "origin_rsc": "vm-100-disk-0", "start_timestamp": NOW - 31 * HOUR_MS, "finished_timestamp": NOW - 30 * HOUR_MS, "success": true, "shipping": false, "restorable": true},
                "vm-100-disk-0^back_20261231_230000": {"id": "vm-100-disk-0^back_20261231_230000", "origin_rsc": "vm-100-disk-0", "start_timestamp": NOW - HOUR_MS, "success": false, "shipping": false, "restorable": false},
                "vm-100-disk-0^back_20261231_235000": {"id": "vm-100-disk-0^back_20261231_235000", "origin_rsc": "vm-100-disk-0", "start_timestamp": NOW - HOUR_MS / 6, "success": true, "shipping": false}
            }}))
            .unwrap(),
        )]
        .into(),
        ..dr::DrState::default()
    };
    let report = dr::assess(
        &state,
        &["vm-100-disk-0"],
        NOW,
        Duration::from_secs(26 * 3600),
    );
    let vm100 = &report.resources[0];
    let ids: Vec<&CopySource> = vm100.copies.iter().map(|c| &c.source).collect();
    assert_eq!(
        ids,
        [&CopySource::Backup {
            id: "vm-100-disk-0^back_20261230_020000".to_owned()
        }],
        "only the finished, successful backup is a copy (a success without a finish time is \
         no finished copy)"
    );
    assert_eq!(vm100.newest().unwrap().age, Duration::from_secs(30 * 3600));
    assert_eq!(
        vm100.verdict,
        Freshness::Stale,
        "the newest finished copy is 30 h old"
    );
    assert_eq!(
        vm100.last_attempts[0].started_at_ms,
        NOW - HOUR_MS,
        "the schedule's time is kept as the last attempt"
    );
    assert_eq!(report.stale, 1);
    let text = dr::render_text(&report);
    assert!(
        text.contains("newest copy on s3-franca (s3) 1 d 6 h old, by backup vm-100-disk-0^back_20261230_020000"),
        "{text}"
    );
    assert!(
        text.contains("last shipment by schedule nightly to s3-franca (s3) started 1 h 0 min ago (unconfirmed)"),
        "{text}"
    );
}

// Issue 33, N3. linstor-server `CtrlBackupApiCallHandler.getBackupFromMetadata` sets a
// backup's `restorable` from its own volume keys only and passes the meta-file's `basedOn`
// through as `based_on_id` (`Json.java`; the base's meta key, `S3MetafileNameInfo.toString`,
// ending in `.meta`), never checking that the base is still there. A restore
// (`CtrlBackupRestoreApiCallHandler`, step 3a) follows that chain back to the full backup, so
// an incremental whose base was deleted cannot be restored: it is no off-site copy. The
// unbroken chain (full, then an incremental on it) still counts.
#[test]
fn an_incremental_backup_whose_base_is_gone_is_no_copy() {
    let backup = |id: &str, finished: i64, base: Option<&str>| json!({"id": id, "origin_rsc": id.split('^').next().unwrap(), "start_timestamp": finished - HOUR_MS, "finished_timestamp": finished, "success": true, "shipping": false, "restorable": true, "based_on_id": base});
    let state = dr::DrState {
        remotes: serde_json::from_value(json!({"s3_remotes": [{"remote_name": "s3-franca"}]}))
            .unwrap(),
        backups: [(
            "s3-franca".to_owned(),
            serde_json::from_value(json!({"linstor": {
                "vm-100-disk-0^back_20261229_020000": backup("vm-100-disk-0^back_20261229_020000", NOW - 50 * HOUR_MS, None),
                "vm-100-disk-0^back_20261231_020000": backup("vm-100-disk-0^back_20261231_020000", NOW - 2 * HOUR_MS, Some("vm-100-disk-0^back_20261230_020000.meta")),
                "vm-101-disk-0^back_20261230_020000": backup("vm-101-disk-0^back_20261230_020000", NOW - 26 * HOUR_MS, None),
                "vm-101-disk-0^back_20261231_020000": backup("vm-101-disk-0^back_20261231_020000", NOW - 2 * HOUR_MS, Some("vm-101-disk-0^back_20261230_020000.meta"))
            }}))
            .unwrap(),
        )]
        .into(),
        ..dr::DrState::default()
    };
    let report = dr::assess(
        &state,
        &["vm-100-disk-0", "vm-101-disk-0"],
        NOW,
        Duration::from_secs(26 * 3600),
    );
    let ids = |i: usize| -> Vec<CopySource> {
        let copies = &report.resources[i].copies;
        copies.iter().map(|c| c.source.clone()).collect()
    };
    let backup_id = |id: &str| CopySource::Backup { id: id.to_owned() };
    assert_eq!(
        ids(0),
        [backup_id("vm-100-disk-0^back_20261229_020000")],
        "the incremental on a deleted base is no copy"
    );
    assert_eq!(report.resources[0].verdict, Freshness::Stale);
    assert_eq!(
        ids(1),
        [
            backup_id("vm-101-disk-0^back_20261231_020000"),
            backup_id("vm-101-disk-0^back_20261230_020000")
        ]
    );
    // Recent, but an S3 backup names no cluster: it cannot make the resource fresh.
    assert_eq!(report.resources[1].verdict, Freshness::CannotTell);
}

// Issue 33, N6. linstor-server `CtrlScheduleApiCallHandler.listScheduledRscs` lists a resource
// with no schedule as a `ScheduledRscsPojo` with a null remote and schedule, the reason
// `none set` (`REASON_NONE_SET`) and -1 times: there is no schedule to show.
#[test]
fn a_resource_with_no_schedule_shows_none() {
    let state = dr::DrState {
        scheduled: serde_json::from_value(json!([
            {"rsc_name": "vm-104-disk-0", "remote_name": null, "schedule_name": null, "reason": "none set", "last_snap_time": -1, "last_snap_inc": false, "next_exec_time": -1}
        ]))
        .unwrap(),
        ..dr::DrState::default()
    };
    let report = dr::assess(
        &state,
        &["vm-104-disk-0"],
        NOW,
        Duration::from_secs(26 * 3600),
    );
    let vm104 = &report.resources[0];
    assert_eq!(vm104.schedules, Vec::<String>::new());
    assert!(vm104.last_attempts.is_empty() && vm104.copies.is_empty());
    assert_eq!(vm104.verdict, Freshness::Stale);
}

// An L2L shipment is a copy only once the target cluster has received it. On the target,
// linstor-server `CtrlBackupRestoreApiCallHandler` sets the snapshot definition's
// `BackupShipping/Target/ShippingStatus` to `Shipping` and `BackupStartTimestamp` (the source's
// start, `metadata.getStartTimestamp()`) when receiving starts; `shippingReceivedInTransaction`
// sets `Success` or `Failed` when it ends. The snapshot is named `<backup>_<source cluster
// hash>` (`CtrlBackupL2LDstApiCallHandler.startReceivingInTransaction`), in the target resource
// (`dst_rsc_name`). `GET /v1/view/snapshots` returns the definition's props merged into
// `props` (`Json.java`). Without the target read, nothing is confirmed.
#[test]
fn l2l_copies_are_confirmed_on_the_target() {
    let state = dr::DrState {
        remotes: serde_json::from_value(
            json!({"linstor_remotes": [{"remote_name": "franca", "cluster_id": "c0ffee12-0000-4000-8000-000000000001"}]}),
        )
        .unwrap(),
        scheduled: serde_json::from_value(json!([
            {"rsc_name": "vm-100-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": NOW - HOUR_MS, "last_snap_inc": true, "next_exec_time": NOW + 23 * HOUR_MS},
            {"rsc_name": "vm-101-disk-0", "remote_name": "franca", "schedule_name": "nightly", "last_snap_time": NOW - HOUR_MS, "last_snap_inc": true, "next_exec_time": NOW + 23 * HOUR_MS}
        ]))
        .unwrap(),
        // The sender's id on the target snapshots below: they are this cluster's copies.
        local_cluster_id: Some("5a11ad00-0000-4000-8000-000000000002".to_owned()),
        ..dr::DrState::default()
    };
    // The sender's id is a per-node snapshot prop (`snapshots[].snapshot_props`), see below.
    let target = |rsc: &str, name: &str, status: &str, start: i64| {
        json!({"name": name, "resource_name": rsc, "nodes": ["pve-labri-31"], "flags": ["SUCCESSFUL", "BACKUP"],
               "props": {"BackupShipping/Target/ShippingStatus": status,
                         "BackupShipping/Target/BackupStartTimestamp": start.to_string()},
               "snapshots": [{"node_name": "pve-labri-31", "snapshot_name": name, "flags": [],
                              "snapshot_props": {"Backup/FromClusterUUID": "5a11ad00-0000-4000-8000-000000000002",
                                                 "Backup/FromClusterName": "5a11ad00"}}]})
    };
    let snapshots: Vec<cpps_linstor::types::snapshot::Snapshot> = serde_json::from_value(json!([
        target(
            "vm-100-disk-0",
            "back_20261230_230000_5a11ad00",
            "Success",
            NOW - 25 * HOUR_MS
        ),
        target(
            "vm-100-disk-0",
            "back_20261231_230000_5a11ad00",
            "Shipping",
            NOW - HOUR_MS
        ),
        target(
            "vm-101-disk-0",
            "back_20261231_230000_5a11ad00",
            "Failed",
            NOW - HOUR_MS
        )
    ]))
    .unwrap();
    let resources = ["vm-100-disk-0", "vm-101-disk-0"];
    let max_age = Duration::from_secs(26 * 3600);

    let unread = dr::assess(&state, &resources, NOW, max_age);
    assert!(unread.resources.iter().all(|r| r.copies.is_empty()));
    assert_eq!(
        unread.unreadable["franca"],
        "copies not confirmed: the target cluster was not read"
    );
    assert_eq!(unread.unconfirmed, 2);

    let targets = [("franca".to_owned(), snapshots)].into();
    let report = dr::assess_with_targets(&state, &targets, &resources, NOW, max_age);
    let vm100 = &report.resources[0];
    assert_eq!(
        vm100.copies.iter().map(|c| &c.source).collect::<Vec<_>>(),
        [&CopySource::TargetSnapshot {
            snapshot: "back_20261230_230000_5a11ad00".to_owned()
        }],
        "only the snapshot the target received in full is a copy"
    );
    assert_eq!(vm100.newest().unwrap().age, Duration::from_secs(25 * 3600));
    assert_eq!(vm100.verdict, Freshness::Fresh);
    assert!(report.resources[1].copies.is_empty());
    assert_eq!(report.resources[1].verdict, Freshness::Stale);
    assert!(!report.unreadable.contains_key("franca"));
    let text = dr::render_text(&report);
    assert!(
        text.contains("newest copy on franca (linstor) 1 d 1 h old, by snapshot back_20261230_230000_5a11ad00 on the target"),
        "{text}"
    );
}

// Issue 33: copies from another cluster. An L2L target may receive shipments from several
// clusters: linstor-server `CtrlBackupL2LDstApiCallHandler.startReceivingInTransaction` puts
// the sender's id as `Backup/FromClusterUUID` (`InternalApiConsts.KEY_BACKUP_L2L_SRC_CLUSTER_UUID`)
// into the metadata's `getRsc().getSnapProps()`, and `CtrlBackupRestoreApiCallHandler
// .createSnapshotAndVolumesForBackupRestore` copies those into each node's `snap.getSnapProps()`,
// which `GET /v1/view/snapshots` shows as `snapshots[].snapshot_props` (`Json.apiToSnapshotNode`);
// the top-level `props` holds only resource- and snapshot-definition props (`Json.apiToSnapshot`),
// so the id is never there (audit 33 C6). Each cluster's own id is its controller property `Cluster/LocalID`
// (`LinStor.PROP_KEY_CLUSTER_ID`, which `CtrlBackupApiCallHandler.deleteAllLocalCluster` also
// compares with an S3 meta-file's `clusterId`). So a target snapshot from another cluster is
// not this cluster's copy. An S3 `Backup` of the REST API carries only `origin_node`, no
// cluster id (`docs/rest_v1_openapi.yaml` `Backup`), so a backup from another cluster of a
// resource named alike cannot be told apart: it counts, and says so.
#[test]
fn a_copy_from_another_cluster_is_not_this_clusters() {
    let here = "c0ffee12-0000-4000-8000-00000000000a";
    let state = dr::DrState {
        remotes: serde_json::from_value(json!({
            "linstor_remotes": [{"remote_name": "franca", "cluster_id": "c0ffee12-0000-4000-8000-000000000001"}],
            "s3_remotes": [{"remote_name": "s3-franca"}]
        }))
        .unwrap(),
        backups: [(
            "s3-franca".to_owned(),
            serde_json::from_value(json!({"linstor": {
                "vm-101-disk-0^back_20261231_200000": {"id": "vm-101-disk-0^back_20261231_200000", "origin_rsc": "vm-101-disk-0", "origin_node": "pve-ippri-11", "start_timestamp": NOW - 5 * HOUR_MS, "finished_timestamp": NOW - 4 * HOUR_MS, "success": true, "shipping": false, "restorable": true}
            }}))
            .unwrap(),
        )]
        .into(),
        local_cluster_id: Some(here.to_owned()),
        ..dr::DrState::default()
    };
    let target = |name: &str, from: &str, start: i64| {
        json!({"name": name, "resource_name": "vm-100-disk-0", "nodes": ["pve-labri-31"], "flags": ["SUCCESSFUL", "BACKUP"],
               "props": {"BackupShipping/Target/ShippingStatus": "Success",
                         "BackupShipping/Target/BackupStartTimestamp": start.to_string()},
               "snapshots": [{"node_name": "pve-labri-31", "snapshot_name": name, "flags": [],
                              "snapshot_props": {"Backup/FromClusterUUID": from}}]})
    };
    let snapshots: Vec<cpps_linstor::types::snapshot::Snapshot> = serde_json::from_value(json!([
        target("back_20261230_230000_c0ffee12", here, NOW - 25 * HOUR_MS),
        target(
            "back_20261231_230000_5a11ad00",
            "5a11ad00-0000-4000-8000-000000000002",
            NOW - HOUR_MS
        )
    ]))
    .unwrap();
    let targets = [("franca".to_owned(), snapshots)].into();
    let resources = ["vm-100-disk-0", "vm-101-disk-0"];
    let report = dr::assess_with_targets(
        &state,
        &targets,
        &resources,
        NOW,
        Duration::from_secs(26 * 3600),
    );
    let vm100 = &report.resources[0];
    assert_eq!(
        vm100.copies.iter().map(|c| &c.source).collect::<Vec<_>>(),
        [&CopySource::TargetSnapshot {
            snapshot: "back_20261230_230000_c0ffee12".to_owned()
        }],
        "the newer snapshot came from another cluster"
    );
    assert_eq!(vm100.verdict, Freshness::Fresh);
    // Audit 33 C2: linstor-server `CtrlBackupApiCallHandler.listBackups` lists every key of the
    // bucket (`getAllS3Keys`) whichever cluster shipped it (only `deleteAllLocalCluster` reads
    // the meta-file's `clusterId`), and `JsonGenTypes.Backup` carries no cluster id. A recent
    // S3 backup may be the other cluster's: the verdict is "cannot tell", never fresh.
    assert_eq!(report.resources[1].verdict, Freshness::CannotTell);
    assert_eq!((report.stale, report.cannot_tell), (0, 1));
    let text = dr::render_text(&report);
    assert!(
        text.contains(
            "  vm-101-disk-0                    newest copy on s3-franca (s3) 4 h 0 min old, by \
             backup vm-101-disk-0^back_20261231_200000 (cannot tell which cluster)  CANNOT TELL\n"
        ),
        "{text}"
    );
    assert!(
        !text.contains("back_20261230_230000_c0ffee12 on the target (cannot tell"),
        "{text}"
    );

    // Without this cluster's id, a target snapshot's sender cannot be told either.
    let unknown = dr::DrState {
        local_cluster_id: None,
        ..state
    };
    let report = dr::assess_with_targets(
        &unknown,
        &targets,
        &resources,
        NOW,
        Duration::from_secs(26 * 3600),
    );
    assert_eq!(report.resources[0].copies.len(), 2);
    assert_eq!(report.resources[0].verdict, Freshness::CannotTell);
    let text = dr::render_text(&report);
    assert!(
        text.contains(
            "by snapshot back_20261231_230000_5a11ad00 on the target (cannot tell which cluster)"
        ),
        "{text}"
    );
}
