//! Datastores, groups, snapshots and GC status against a wiremock server serving fixtures
//! shaped as `pbs-apidoc.json` says. No fake PBS server exists; see `common`.

mod common;

use cpps_pbs::SnapshotQuery;
use cpps_pbs::types::{BackendType, BackupType, MountStatus, SnapshotFile, VerifyState};
use serde_json::json;

#[tokio::test]
async fn lists_datastores_with_the_pbs_token_header() {
    let api = common::mock_api().await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    let stores = common::token_client(&api).datastores().await.unwrap();
    assert_eq!(
        stores.iter().map(|s| s.store.as_str()).collect::<Vec<_>>(),
        ["store1", "offsite", "archive"]
    );
    assert_eq!(stores[1].backend_type, Some(BackendType::S3));
    assert_eq!(stores[2].mount_status, Some(MountStatus::NotMounted));
    assert_eq!(
        stores[2].maintenance.as_deref(),
        Some("type=offline,message=disk swap")
    );
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn keeps_unknown_enum_values() {
    let api = common::mock_api().await;
    common::serve_fixture(&api, "/admin/datastore", &[], "datastores_unknown.json").await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        "snapshots_unknown.json",
    )
    .await;
    let pbs = common::token_client(&api);
    let stores = pbs.datastores().await.unwrap();
    assert_eq!(
        stores[0].backend_type,
        Some(BackendType::Unknown("tape-cache".to_owned()))
    );
    assert_eq!(
        stores[0].mount_status,
        Some(MountStatus::Unknown("detaching".to_owned()))
    );
    let snapshots = pbs
        .snapshots("store1", &SnapshotQuery::default())
        .await
        .unwrap();
    assert_eq!(
        snapshots[0].backup_type,
        BackupType::Unknown("tape".to_owned())
    );
    let verification = snapshots[0].verification.as_ref().unwrap();
    assert_eq!(
        verification.state,
        VerifyState::Unknown("pending".to_owned())
    );
    assert!(!snapshots[0].verified_ok());
    api.verify().await;
}

#[tokio::test]
async fn reads_status_with_verbose_and_usage() {
    let api = common::mock_api().await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/status",
        &[("verbose", "true")],
        "datastore_status_store1.json",
    )
    .await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    let pbs = common::token_client(&api);
    let status = pbs.datastore_status("store1", true).await.unwrap();
    assert_eq!(
        (status.total, status.used, status.avail),
        (4_000_000_000_000, 1_500_000_000_000, 2_500_000_000_000)
    );
    let counts = status.counts.unwrap();
    assert_eq!(counts.vm.unwrap().snapshots, 4);
    assert_eq!(counts.ct.unwrap().groups, 1);
    assert!(counts.other.is_none());
    let gc = status.gc_status.unwrap();
    assert_eq!(gc.still_bad, 1);
    assert_eq!(gc.upid.unwrap().worker_type(), "garbage_collection");

    let usage = pbs.datastore_usage().await.unwrap();
    assert_eq!(usage[0].history.as_ref().unwrap()[1], None);
    assert_eq!(usage[0].history_delta, Some(86_400));
    assert_eq!(
        usage[1].error.as_deref(),
        Some("datastore 'archive' is not mounted")
    );
    assert_eq!(usage[1].total, None);
    api.verify().await;
}

/// PBS 3.0 and 3.1 send a datastore whose usage they do not know with `-1` for `total`,
/// `used` and `avail` (proxmox-backup `pbs-api-types/src/datastore.rs` v3.1.2
/// `DataStoreStatusListItem::empty`): `src/api2/status.rs` `datastore_status` does so for a
/// store that fails lookup (with `error`) and for one the caller reaches only through
/// namespace privileges (without). Both are kept, with no usage, beside a normal entry.
#[tokio::test]
async fn reads_usage_that_pbs_3_1_does_not_know() {
    let api = common::mock_api().await;
    let gc = json!({
        "upid": null, "index-file-count": 0, "index-data-bytes": 0, "disk-bytes": 0,
        "disk-chunks": 0, "removed-bytes": 0, "removed-chunks": 0, "pending-bytes": 0,
        "pending-chunks": 0, "removed-bad": 0, "still-bad": 0
    });
    common::serve_json(
        &api,
        "/status/datastore-usage",
        &[],
        json!({"data": [
            {"store": "store1", "total": 4_000_000_000_000_u64, "used": 1_500_000_000_000_u64,
             "avail": 2_500_000_000_000_u64, "history": [0.35, null, 0.36],
             "history-start": 1_793_347_200, "history-delta": 86_400, "gc-status": gc},
            {"store": "archive", "total": -1, "used": -1, "avail": -1,
             "error": "datastore 'archive' is not mounted"},
            {"store": "tenant", "total": -1, "used": -1, "avail": -1}
        ]}),
    )
    .await;
    let usage = common::token_client(&api).datastore_usage().await.unwrap();
    let bytes: Vec<_> = usage
        .iter()
        .map(|u| (u.store.as_str(), u.total, u.used, u.avail))
        .collect();
    assert_eq!(
        bytes,
        [
            (
                "store1",
                Some(4_000_000_000_000),
                Some(1_500_000_000_000),
                Some(2_500_000_000_000)
            ),
            ("archive", None, None, None),
            ("tenant", None, None, None),
        ]
    );
    assert_eq!(usage[0].gc_status.as_ref().unwrap().upid, None);
    assert_eq!(
        usage[1].error.as_deref(),
        Some("datastore 'archive' is not mounted")
    );
    assert_eq!(usage[2].error, None);
    api.verify().await;
}

#[tokio::test]
async fn lists_groups_and_snapshots_with_filters() {
    let api = common::mock_api().await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/groups",
        &[("ns", "site-a/prod")],
        "groups_store1.json",
    )
    .await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[
            ("backup-type", "vm"),
            ("backup-id", "101"),
            ("ns", "site-a/prod"),
        ],
        "snapshots_store1.json",
    )
    .await;
    let pbs = common::token_client(&api);
    let groups = pbs.groups("store1", Some("site-a/prod")).await.unwrap();
    assert_eq!(groups.len(), 4);
    assert_eq!(groups[1].comment.as_deref(), Some("database"));
    assert_eq!(groups[3].owner.as_ref().unwrap().to_string(), "root@pam");
    assert_eq!(groups[2].last_backup, common::NOW - 74 * 3600);

    let query = SnapshotQuery::group(BackupType::Vm, "101").in_namespace("site-a/prod");
    let snapshots = pbs.snapshots("store1", &query).await.unwrap();
    let failed = &snapshots[3];
    assert_eq!(
        (failed.backup_type.as_str(), failed.backup_id.as_str()),
        ("vm", "101")
    );
    assert_eq!(
        failed.verification.as_ref().unwrap().state,
        VerifyState::Failed
    );
    assert_eq!(failed.size, Some(107_374_182_400));
    assert_eq!(failed.files[0].name(), "drive-scsi0.img.fidx");
    assert!(snapshots[5].protected);
    assert_eq!(
        snapshots[0].owner.as_ref().unwrap().to_string(),
        "backup@pbs!pve-a"
    );
    api.verify().await;
    api.assert_no_unexpected_requests();
}

// pbs-apidoc.json types snapshot `files` as archive names, but proxmox-backup's
// `SnapshotListItem` serializes `BackupContent` objects; real servers send those.
#[tokio::test]
async fn accepts_snapshot_files_as_the_server_serializes_them() {
    let api = common::mock_api().await;
    common::serve_json(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        json!({"data": [{
            "backup-type": "ct", "backup-id": "200", "backup-time": 1_795_672_800,
            "files": [{"filename": "root.pxar.didx", "crypt-mode": "encrypt", "size": 2_147_483_648_u64},
                      {"filename": "index.json.blob", "crypt-mode": "sign-only"}],
            "protected": false
        }]}),
    )
    .await;
    let snapshots = common::token_client(&api)
        .snapshots("store1", &SnapshotQuery::default())
        .await
        .unwrap();
    match &snapshots[0].files[0] {
        SnapshotFile::Content {
            filename,
            crypt_mode,
            size,
        } => {
            assert_eq!(filename, "root.pxar.didx");
            assert_eq!(crypt_mode.as_deref(), Some("encrypt"));
            assert_eq!(*size, Some(2_147_483_648));
        }
        other => panic!("expected an object, got {other:?}"),
    }
    assert_eq!(snapshots[0].files[1].name(), "index.json.blob");
}

#[tokio::test]
async fn reads_gc_status() {
    let api = common::mock_api().await;
    common::serve_fixture(&api, "/admin/datastore/store1/gc", &[], "gc_store1.json").await;
    let gc = common::token_client(&api)
        .gc_status("store1")
        .await
        .unwrap();
    assert_eq!(gc.store.as_deref(), Some("store1"));
    assert_eq!(gc.schedule.as_deref(), Some("daily"));
    assert!(gc.last_run_state.unwrap().is_success());
    assert_eq!(gc.next_run, Some(common::NOW + 16 * 3600));
    assert_eq!(gc.counters.disk_chunks, 45_678);
    assert_eq!(gc.counters.cache_stats.unwrap().misses, 5_678);
}

// proxmox-rest-server answers errors with the message in the body's `message` (see
// `cpps-proxmox`'s envelope docs); a permission error must come back typed, with it.
#[tokio::test]
async fn permission_errors_carry_the_server_message() {
    let api = common::mock_api().await;
    common::serve_permission_denied(&api, "/admin/datastore/store1/snapshots").await;
    let err = common::token_client(&api)
        .snapshots("store1", &SnapshotQuery::default())
        .await
        .unwrap_err();
    let cpps_pbs::Error::Api {
        status, message, ..
    } = &err
    else {
        panic!("expected an API error, got {err:?}");
    };
    assert_eq!(status.as_u16(), 403);
    assert_eq!(message, "permission check failed");
    assert!(!format!("{err:?}").contains(common::TOKEN_SECRET));
}

#[tokio::test]
async fn a_broken_answer_names_the_json_path() {
    let api = common::mock_api().await;
    common::serve_json(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        json!({"data": [{"backup-type": "vm", "backup-id": "100", "backup-time": "yesterday",
                         "files": [], "protected": false}]}),
    )
    .await;
    let err = common::token_client(&api)
        .snapshots("store1", &SnapshotQuery::default())
        .await
        .unwrap_err();
    let text = cpps_pbs::report::error_chain(&err);
    assert!(text.contains("data[0].backup-time"), "{text}");
}

/// N11: a datastore that does not exist. proxmox-backup looks it up in the section config
/// (`pbs-datastore/src/datastore.rs` `lookup_datastore` → `config.lookup("datastore", name)`),
/// whose `lookup_json` (proxmox `proxmox-section-config`) fails with `no such datastore
/// 'nope'`; that plain error (no `HttpError`) becomes HTTP 400 with the message as the body
/// (proxmox `proxmox-rest-server` `formatter.rs` `error_to_response`). It must read as "not
/// found", not as a bad request.
#[tokio::test]
async fn a_missing_datastore_is_not_found() {
    use wiremock::matchers::{method, path};
    let api = common::mock_api().await;
    wiremock::Mock::given(method("GET"))
        .and(path("/api2/json/admin/datastore/nope/status"))
        .respond_with(
            wiremock::ResponseTemplate::new(400)
                .insert_header("content-type", "application/json;charset=UTF-8")
                .set_body_string("no such datastore 'nope'"),
        )
        .expect(1)
        .mount(api.server())
        .await;
    let err = common::token_client(&api)
        .datastore_status("nope", false)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err:?}");
    assert_eq!(err.status(), Some(cpps_http::StatusCode::BAD_REQUEST));
    assert!(
        err.to_string().contains("no such datastore 'nope'"),
        "{err}"
    );
    api.verify().await;
}
