//! Prune, sync, verify and GC jobs, and remotes, against a wiremock server serving fixtures
//! shaped as `pbs-apidoc.json` says. No fake PBS server exists; see `common`.

mod common;

use cpps_pbs::types::{ExitStatus, SyncDirection};

#[tokio::test]
async fn sync_jobs_are_listed_in_both_directions() {
    let api = common::mock_api().await;
    common::serve_version(&api, "4.0", "14").await;
    // Without `sync-direction=all` PBS lists pull jobs only (its default, per the schema).
    common::serve_authorized(
        &api,
        "/admin/sync",
        &[("sync-direction", "all")],
        "sync_jobs.json",
    )
    .await;
    let jobs = common::token_client(&api).sync_jobs(None).await.unwrap();
    assert_eq!(jobs.len(), 3);
    let push = &jobs[0];
    assert_eq!(push.direction(), SyncDirection::Push);
    assert_eq!(push.remote.as_deref(), Some("pbs-b"));
    assert_eq!(push.remote_store, "from-site-a");
    assert_eq!(push.status.last_run_state, Some(ExitStatus::Ok));
    assert_eq!(
        push.status.last_run_upid.as_ref().unwrap().task_id(),
        Some(30)
    );
    let pull = &jobs[1];
    assert_eq!(pull.direction(), SyncDirection::Pull);
    assert_eq!(
        pull.status.last_run_state,
        Some(ExitStatus::Failed(
            "connection error: tcp connect error: No route to host (os error 113)".to_owned()
        ))
    );
    assert_eq!(pull.verified_only, Some(true));
    let local = &jobs[2];
    assert_eq!(local.remote, None);
    assert_eq!(local.sync_direction, None);
    assert_eq!(local.direction(), SyncDirection::Pull);
    assert_eq!(local.status.last_run_state, Some(ExitStatus::Warnings(2)));
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn sync_jobs_of_one_store() {
    let api = common::mock_api().await;
    common::serve_version(&api, "3.3", "0").await;
    common::serve_fixture(
        &api,
        "/admin/sync",
        &[("store", "offsite"), ("sync-direction", "all")],
        "sync_jobs.json",
    )
    .await;
    common::token_client(&api)
        .sync_jobs(Some("offsite"))
        .await
        .unwrap();
    api.verify().await;
}

#[tokio::test]
async fn verify_jobs_show_a_failed_last_run() {
    let api = common::mock_api().await;
    common::serve_fixture(
        &api,
        "/admin/verify",
        &[("store", "store1")],
        "verify_jobs.json",
    )
    .await;
    let jobs = common::token_client(&api)
        .verify_jobs(Some("store1"))
        .await
        .unwrap();
    let failed = &jobs[0];
    assert_eq!(failed.id, "v-store1");
    let state = failed.status.last_run_state.as_ref().unwrap();
    assert!(!state.is_success());
    assert_eq!(
        state.to_string(),
        "verification failed - please check the log for details"
    );
    let upid = failed.status.last_run_upid.as_ref().unwrap();
    assert_eq!(upid.worker_type(), "verificationjob");
    assert_eq!(upid.node(), "pbs-a");
    assert_eq!(failed.status.next_run, Some(common::NOW + 7 * 3600));
    assert_eq!(failed.outdated_after, Some(30));
    assert_eq!(failed.ignore_verified, Some(true));
    api.verify().await;
}

#[tokio::test]
async fn prune_and_gc_jobs() {
    let api = common::mock_api().await;
    common::serve_version(&api, "3.2", "0").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    common::serve_fixture(&api, "/admin/gc", &[], "gc_jobs.json").await;
    let pbs = common::token_client(&api);
    let prune = pbs.prune_jobs(None).await.unwrap();
    assert_eq!(prune[0].keep_daily, Some(7));
    assert_eq!(prune[1].status.next_run, Some(common::NOW - 5 * 3600));
    assert_eq!(prune[2].disable, Some(true));
    let gc = pbs.gc_jobs(None).await.unwrap();
    assert_eq!(gc[1].store.as_deref(), Some("offsite"));
    // PBS writes `unknown` when a task's end was never recorded: that is not a success.
    let unknown = gc[1].last_run_state.as_ref().unwrap();
    assert_eq!(unknown.to_string(), "unknown");
    assert!(!unknown.is_success());
    api.verify().await;
}

#[tokio::test]
async fn remotes_with_fingerprints() {
    let api = common::mock_api().await;
    common::serve_fixture(&api, "/config/remote", &[], "remotes.json").await;
    let remotes = common::token_client(&api).remotes().await.unwrap();
    let b = &remotes[0];
    assert_eq!(b.host, "pbs-b.site-b.example");
    assert_eq!(b.auth_id.to_string(), "sync@pbs!site-a");
    let pin: cpps_http::Fingerprint = b.fingerprint.as_deref().unwrap().parse().unwrap();
    assert_eq!(pin.as_bytes()[0], 0x64);
    assert_eq!(remotes[1].port, None);
    assert_eq!(remotes[1].port_or_default(), 8007);
    api.verify().await;
}

/// Issue 14, defect 2: before PBS 3.3 `GET /admin/sync` declares only `store` (proxmox-backup
/// `src/api2/admin/sync.rs`, `list_sync_jobs`, up to 3.2.x) and rejects `sync-direction` as an
/// additional property; the client reads the release once and does not send it there. The mock
/// answers a request that carries it the way PBS 3.2 does, so sending it fails the test.
#[tokio::test]
async fn sync_jobs_of_pbs_3_2_are_listed_without_sync_direction() {
    use wiremock::matchers::{method, path};
    use wiremock::{Mock, ResponseTemplate};
    let api = common::mock_api().await;
    common::serve_version(&api, "3.2", "7").await;
    common::serve_fixture_without(&api, "/admin/sync", "sync-direction", "sync_jobs.json", 2).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/admin/sync"))
        .and(wiremock::matchers::query_param("sync-direction", "all"))
        .respond_with(ResponseTemplate::new(400).set_body_json(serde_json::json!({
            "data": null,
            "message": "parameter verification errors\n",
            "errors": {"sync-direction": "schema does not allow additional properties"}
        })))
        .mount(api.server())
        .await;
    let pbs = common::token_client(&api);
    assert_eq!(pbs.sync_jobs(None).await.unwrap().len(), 3);
    // The release is read once and kept: the second call sends no `GET /version`.
    assert_eq!(pbs.sync_jobs(None).await.unwrap().len(), 3);
    assert_eq!(
        pbs.server_version().await.unwrap(),
        cpps_proxmox_family::ServerVersion::new(3, 2, 7)
    );
    api.verify().await;
}

/// Issue 14, defect 2: `GET /admin/gc` exists from PBS 3.2 (proxmox-backup
/// `src/api2/admin/gc.rs`, added before the 3.2.0-1 release; `debian/changelog` 3.2.0-1: "add
/// global prune and GC job view"). A 3.1 server is not asked: the answer is a typed
/// `NotSupported`, and nothing is sent but `GET /version`.
#[tokio::test]
async fn gc_jobs_of_pbs_3_1_are_not_supported_and_not_requested() {
    let api = common::mock_api().await;
    common::serve_version(&api, "3.1", "5").await;
    let err = common::token_client(&api).gc_jobs(None).await.unwrap_err();
    assert!(err.is_not_supported(), "{err:?}");
    assert_eq!(
        err.to_string(),
        "GET /admin/gc is not supported by PBS 3.1.5 (it needs PBS 3.2.0 or later)"
    );
    assert_eq!(err.delivery(), cpps_http::Delivery::NotSent);
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Capability: a sync, verify or prune job runs on demand and is waited on to its end. The run
/// calls answer the worker's UPID, though the schema says `null` (proxmox-backup
/// `src/api2/admin/verify.rs` `run_verification_job -> Result<String, Error>` returns
/// `upid_str`; the same in `sync.rs` and `prune.rs`); a datastore verification is
/// `POST /admin/datastore/{store}/verify` with the group as form parameters.
#[tokio::test]
async fn jobs_run_on_demand_and_are_waited_on() {
    use cpps_pbs::types::BackupType;
    use cpps_pbs::{RunnableJob, VerifyRequest};
    use wiremock::matchers::{body_string_contains, method, path};
    use wiremock::{Mock, ResponseTemplate};
    let api = common::mock_api().await;
    let status = common::load("task_status_failed.json");
    let upid_text = status["data"]["upid"].as_str().unwrap().to_owned();
    let upid: cpps_pbs::Upid = upid_text.parse().unwrap();
    Mock::given(method("POST"))
        .and(path("/api2/json/admin/verify/v-store1/run"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"data": upid_text})),
        )
        .expect(1)
        .mount(api.server())
        .await;
    Mock::given(method("POST"))
        .and(path("/api2/json/admin/datastore/store1/verify"))
        .and(body_string_contains("backup-type=vm"))
        .and(body_string_contains("backup-id=100"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(serde_json::json!({"data": upid_text})),
        )
        .expect(1)
        .mount(api.server())
        .await;
    let mut ok = status.clone();
    ok["data"]["exitstatus"] = "OK".into();
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/status", upid.task_path())))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok))
        .mount(api.server())
        .await;
    let pbs = common::token_client(&api);
    let started = pbs.run_job(RunnableJob::Verify, "v-store1").await.unwrap();
    assert_eq!(started, upid);
    let options = cpps_proxmox_family::WaitOptions::default().intervals(
        std::time::Duration::from_millis(5),
        std::time::Duration::from_millis(10),
    );
    let outcome = pbs.wait_task(&started, &options).await.unwrap();
    assert!(outcome.exit_status.is_success());
    let again = pbs
        .verify("store1", &VerifyRequest::group(BackupType::Vm, "100"))
        .await
        .unwrap();
    assert_eq!(again, upid);
    api.verify().await;
    api.assert_no_unexpected_requests();
}
