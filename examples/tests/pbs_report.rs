//! Runs the built `pbs-report` binary against a wiremock server serving `cpps-pbs`'s fixtures,
//! which are shaped exactly as Proxmox's PBS API schema (`pbs-apidoc.json`) says; no fake PBS
//! server exists. `CPPS_PBS_URL` points the binary at the mock (plain HTTP on 127.0.0.1).

mod common;

use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param};
use wiremock::{Mock, MockServer, ResponseTemplate};

const SECRET: &str = "0b7a9c7e-3a53-4d6b-9d0a-2f0e6c1f1e55";

fn fixture(name: &str) -> Value {
    common::json_file(&format!("cpps-pbs/tests/fixtures/{name}"))
}

async fn serve(server: &MockServer, route: &str, body: Value) {
    Mock::given(method("GET"))
        .and(path(format!("/api2/json{route}")))
        .and(header(
            "authorization",
            format!("PBSAPIToken=report@pbs!ro:{SECRET}").as_str(),
        ))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(server)
        .await;
}

/// Serves the version of a PBS 4 (proxmox-backup `src/api2/version.rs`: `version` is
/// MAJOR.MINOR, `release` the patch), where `sync-direction` and `GET /admin/gc` are both
/// there, and the fixtures' datastore list.
async fn serve_pbs4_datastores(server: &MockServer) {
    serve(
        server,
        "/version",
        json!({"data": {"version": "4.0", "release": "14", "repoid": "d3adb33f"}}),
    )
    .await;
    serve(server, "/admin/datastore", fixture("datastores.json")).await;
}

async fn pbs(snapshots: Value, sync: Value, verify: Value, prune: Value, gc: Value) -> MockServer {
    let server = MockServer::start().await;
    serve_pbs4_datastores(&server).await;
    serve(
        &server,
        "/status/datastore-usage",
        fixture("datastore_usage.json"),
    )
    .await;
    serve(&server, "/admin/verify", verify).await;
    serve(&server, "/admin/prune", prune).await;
    serve(&server, "/admin/gc", gc).await;
    serve(&server, "/config/remote", fixture("remotes.json")).await;
    // A token that sees every sync job and remote (proxmox-backup `src/api2/access/mod.rs`
    // `list_permissions`); without these rights PBS filters the lists (issue 31, N7).
    serve(
        &server,
        "/access/permissions",
        json!({"data": {
            "/datastore": {"Datastore.Audit": true},
            "/remote": {"Remote.Audit": true}
        }}),
    )
    .await;
    serve(
        &server,
        "/admin/datastore/store1/namespace",
        json!({"data": [{"ns": ""}]}),
    )
    .await;
    serve(&server, "/admin/datastore/store1/snapshots", snapshots).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/admin/sync"))
        .and(query_param("sync-direction", "all"))
        .respond_with(ResponseTemplate::new(200).set_body_json(sync))
        .expect(1)
        .mount(&server)
        .await;
    server
}

async fn run(server: &MockServer, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_pbs-report"))
        .args(args)
        .env("PBS_REPOSITORY", "report@pbs!ro@pbs-a.example:store1")
        .env("PBS_PASSWORD", SECRET)
        .env("CPPS_PBS_URL", format!("{}/api2/json", server.uri()))
        .env_remove("PBS_FINGERPRINT")
        .output()
        .await
        .expect("pbs-report runs")
}

/// [`pbs`] serving the crate's fixtures unchanged.
async fn pbs_with_fixtures() -> MockServer {
    pbs(
        fixture("snapshots_store1.json"),
        fixture("sync_jobs.json"),
        fixture("verify_jobs.json"),
        fixture("prune_jobs.json"),
        fixture("gc_jobs.json"),
    )
    .await
}

fn now() -> i64 {
    jiff::Timestamp::now().as_second()
}

#[tokio::test]
async fn fixtures_report_breaches_and_failures_and_exits_1() {
    let server = pbs_with_fixtures().await;
    let out = run(
        &server,
        &["--site", "site-a", "--remote-site", "pbs-b=site-b"],
    )
    .await;
    let text = common::stdout_of_exit(&out, 1);
    for expected in [
        "datastore store1  used 1.4 TiB of 3.6 TiB",
        "  cross-site copy of its backups: ",
        "    s-push-b push pbs-b (site-b):from-site-a, last run OK, ",
        "  FAILED   verify v-store1 (store1): verification failed - please check the log for details",
        "result: FAIL",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in\n{text}");
    }
    // The fixtures are from 2026-11-29T08:00Z, so every guest is past a 26 h RPO by now
    // or soon; vm/101's newest snapshot failed verification whatever the date.
    let vm101 = text
        .lines()
        .find(|l| l.trim_start().starts_with("vm/101"))
        .unwrap_or_else(|| panic!("no vm/101 line in\n{text}"));
    assert!(vm101.contains("FAILED"), "{vm101}");
    // Only the repository's datastore is reported unless --all-datastores.
    assert!(!text.contains("datastore offsite"), "{text}");
    server.verify().await;
}

#[tokio::test]
async fn json_output_and_a_healthy_store_exit_0() {
    let fresh = now() - 3600;
    let upid = "UPID:pbs-a:00000777:0000A1B2:0000000B:6B0A5FD0:verificationjob:store1:root@pam:";
    let snapshots = json!({"data": [
        {"backup-type": "vm", "backup-id": "100", "backup-time": fresh, "files": ["index.json.blob"],
         "protected": false, "verification": {"state": "ok", "upid": upid}},
        {"backup-type": "ct", "backup-id": "200", "backup-time": fresh - 600, "files": ["index.json.blob"],
         "protected": false, "verification": {"state": "ok", "upid": upid}}
    ]});
    let ok_job = |id: &str, kind: &str| {
        let mut job = json!({"id": id, "store": "store1", "schedule": "daily",
                             "last-run-state": "OK", "last-run-endtime": fresh, "next-run": now() + 3600});
        if kind == "sync" {
            job["remote"] = "pbs-b".into();
            job["remote-store"] = "from-site-a".into();
            job["sync-direction"] = "push".into();
        }
        job
    };
    let server = pbs(
        snapshots,
        json!({"data": [ok_job("s-push-b", "sync")]}),
        json!({"data": [ok_job("v-store1", "verify")]}),
        json!({"data": [ok_job("p-store1", "prune")]}),
        json!({"data": []}),
    )
    .await;
    let out = run(
        &server,
        &[
            "--format",
            "json",
            "--rpo",
            "2h",
            "--site",
            "site-a",
            "--remote-site",
            "pbs-b.site-b.example=site-b",
        ],
    )
    .await;
    let stdout = common::stdout_of_exit(&out, 0);
    let report: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    assert_eq!(report["rpo_secs"], 7200);
    assert_eq!(report["summary"]["guests"], 2);
    assert_eq!(report["summary"]["rpo_breaches"], 0);
    assert_eq!(report["summary"]["failed_jobs"], 0);
    assert_eq!(report["datastores"][0]["store"], "store1");
    assert_eq!(report["datastores"][0]["sync"]["cross_site"], "ok");
    assert_eq!(report["datastores"][0]["guests"][0]["backup_id"], "100");
    assert_eq!(
        report["datastores"][0]["guests"][0]["newest_verification"],
        "ok"
    );
    server.verify().await;
}

#[tokio::test]
async fn a_missing_repository_exits_2_naming_the_variable() {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_pbs-report"))
        .env_remove("PBS_REPOSITORY")
        .env("PBS_PASSWORD", SECRET)
        .output()
        .await
        .expect("pbs-report runs");
    let stderr = common::stderr_of_exit_saying(&out, 2, "PBS_REPOSITORY is not set");
    assert!(!stderr.contains(SECRET), "{stderr}");
}

#[tokio::test]
async fn a_bad_rpo_is_refused_by_name() {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_pbs-report"))
        .args(["--rpo", "26x"])
        .output()
        .await
        .expect("pbs-report runs");
    common::stderr_of_exit_saying(&out, 2, "invalid duration `26x`");
}

#[tokio::test]
async fn the_help_documents_the_timeout_and_the_exit_status() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_pbs-report"));
    assert!(help.contains("partial"), "{help}");
}

/// Issue 14, defect 3 and issue 20, defect 1: a PBS that lists datastores but never answers
/// the job lists. The run ends within `--timeout`, prints what it read and each part that did
/// not finish, and exits 1 (partial).
#[tokio::test]
async fn a_server_that_stops_answering_gives_a_partial_report_within_the_timeout() {
    let server = MockServer::start().await;
    serve_pbs4_datastores(&server).await;
    serve(
        &server,
        "/admin/datastore/store1/namespace",
        json!({"data": [{"ns": ""}]}),
    )
    .await;
    serve(
        &server,
        "/admin/datastore/store1/snapshots",
        fixture("snapshots_store1.json"),
    )
    .await;
    // Everything else hangs far longer than the run may take.
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": []}))
                .set_delay(std::time::Duration::from_secs(60)),
        )
        .with_priority(10)
        .mount(&server)
        .await;
    let started = std::time::Instant::now();
    let out = run(&server, &["--timeout", "3"]).await;
    let elapsed = started.elapsed();
    let text = common::stdout_of_exit(&out, 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        elapsed < std::time::Duration::from_secs(3 + 5),
        "took {elapsed:?}"
    );
    assert!(text.contains("datastore store1"), "{text}");
    assert!(text.contains("vm/100"), "{text}");
    assert!(
        text.contains("(PARTIAL: some parts could not be read)"),
        "{text}"
    );
    assert!(
        stderr.contains("sync jobs (GET /admin/sync) could not be read"),
        "{stderr}"
    );
    assert!(!stderr.contains(SECRET) && !text.contains(SECRET));
}

fn post_requests(requests: &[wiremock::Request]) -> Vec<String> {
    requests
        .iter()
        .filter(|r| r.method.as_str() == "POST")
        .map(|r| r.url.path().to_owned())
        .collect()
}

/// Capability: `--fix` prints the plan and sends no write; `--fix --apply` runs it, each task
/// waited on (the run call answers the worker's UPID: proxmox-backup
/// `src/api2/admin/verify.rs` `run_verification_job`).
#[tokio::test]
async fn fix_plans_by_default_and_applies_with_apply() {
    let server = pbs_with_fixtures().await;
    let out = run(
        &server,
        &["--fix", "--site", "site-a", "--remote-site", "pbs-b=site-b"],
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("fix plan (nothing changed; run again with --apply):"),
        "{text}"
    );
    assert!(
        text.contains("  run verify job v-store1 (its last run failed)"),
        "{text}"
    );
    assert!(
        text.contains("  verify store1 ct/200 (its newest snapshot was never verified)"),
        "{text}"
    );
    let requests = server.received_requests().await.unwrap_or_default();
    assert!(
        post_requests(&requests).is_empty(),
        "{:?}",
        post_requests(&requests)
    );

    // --apply: the same plan, run.
    let server = pbs_with_fixtures().await;
    let status = fixture("task_status_failed.json");
    let upid = status["data"]["upid"].as_str().unwrap().to_owned();
    let mut ok = status.clone();
    ok["data"]["exitstatus"] = "OK".into();
    for route in [
        "/admin/verify/v-store1/run",
        "/admin/datastore/store1/verify",
    ] {
        Mock::given(method("POST"))
            .and(path(format!("/api2/json{route}")))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": upid})))
            .mount(&server)
            .await;
    }
    let parsed: cpps_pbs::Upid = upid.parse().unwrap();
    Mock::given(method("GET"))
        .and(path(format!("/api2/json/{}/status", parsed.task_path())))
        .respond_with(ResponseTemplate::new(200).set_body_json(ok))
        .mount(&server)
        .await;
    let out = run(
        &server,
        &[
            "--fix",
            "--apply",
            "--site",
            "site-a",
            "--remote-site",
            "pbs-b=site-b",
        ],
    )
    .await;
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("fix: applying"), "{text}");
    assert!(
        text.contains("  done: run verify job v-store1 (its last run failed) -> OK"),
        "{text}"
    );
    let requests = server.received_requests().await.unwrap_or_default();
    let posts = post_requests(&requests);
    assert!(
        posts.contains(&"/api2/json/admin/verify/v-store1/run".to_owned()),
        "{posts:?}"
    );
    assert!(
        posts.contains(&"/api2/json/admin/datastore/store1/verify".to_owned()),
        "{posts:?}"
    );
}
