//! Runs the built `pbs-report` binary against a wiremock server serving `cpps-pbs`'s fixtures,
//! which are shaped exactly as Proxmox's PBS API schema (`pbs-apidoc.json`) says; no fake PBS
//! server exists. `CPPS_PBS_URL` points the binary at the mock (plain HTTP on 127.0.0.1).

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

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
    // `--chain` asks the rights on the datastore's own path (`cpps_pbs::chain::read_path_rights`):
    // `list_permissions` with `path` answers the privileges looked up there alone, which
    // the Audit propagating from `/datastore` reaches.
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(query_param("path", "/datastore/store1"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}})),
        )
        .with_priority(1)
        .mount(&server)
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
         "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}},
        {"backup-type": "ct", "backup-id": "200", "backup-time": fresh - 600, "files": ["index.json.blob"],
         "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}}
    ]});
    // A finished run keeps its task (proxmox-backup `src/server/jobstate.rs`
    // `JobState::Finished { upid, endtime, state }`): started a minute after the snapshots,
    // ended a minute later. A push's copy is judged by that start.
    let ok_job = |id: &str, kind: &str| {
        // The worker types of `src/server/{sync,verify_job,prune_job}.rs`.
        let worker = if kind == "verify" {
            "verification"
        } else {
            kind
        };
        let upid = format!(
            "UPID:pbs-a:00000900:0000A1B2:0000001E:{:08X}:{worker}job:{}:root@pam:",
            fresh + 60,
            id.replace('-', "\\x2d")
        );
        let mut job = json!({"id": id, "store": "store1", "schedule": "daily",
                             "last-run-state": "OK", "last-run-upid": upid,
                             "last-run-endtime": fresh + 120, "next-run": now() + 3600});
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
        text.contains(
            "  verify store1 ct/200/2026-11-26T06:00:00Z (its newest snapshot was never verified)"
        ),
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

/// Runs `pbs-report` against the PBS mock `server`, with the PVE variables `pve` (no PVE
/// variable of the caller's environment leaks in).
async fn run_with_pve(
    server: &MockServer,
    args: &[&str],
    pve: &[(&str, String)],
) -> std::process::Output {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_pbs-report"));
    for var in [
        "PROXMOX_VE_ENDPOINT",
        "PROXMOX_VE_API_TOKEN",
        "PROXMOX_VE_USERNAME",
        "PROXMOX_VE_PASSWORD",
        "PROXMOX_VE_CA_FILE",
        "PROXMOX_VE_FINGERPRINT",
        "PROXMOX_VE_INSECURE",
        "PBS_FINGERPRINT",
    ] {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .env("PBS_REPOSITORY", "report@pbs!ro@pbs-a.example:store1")
        .env("PBS_PASSWORD", SECRET)
        .env("CPPS_PBS_URL", format!("{}/api2/json", server.uri()))
        .envs(pve.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .await
        .expect("pbs-report runs")
}

/// A PBS 4 holding fresh, verified backups of vm/100 and ct/200 in store1, whose remote
/// `pbs-b` lists only vm/100 in `from-site-a` (the remote scan, proxmox-backup
/// `src/api2/config/remote.rs` `scan_remote_groups`, answers the remote's `list_groups`).
async fn pbs_for_the_chain(fresh: i64) -> MockServer {
    let group = json!({"backup-type": "vm", "backup-id": "100", "last-backup": fresh,
        "backup-count": 3, "files": ["index.json.blob"], "owner": "sync@pbs"});
    pbs_for_the_chain_copy(fresh, json!({"data": []}), group).await
}

/// [`pbs_for_the_chain`] with `sync` as this PBS's sync jobs and `group` as the one group the
/// remote scan of `pbs-b` lists.
async fn pbs_for_the_chain_copy(fresh: i64, sync: Value, group: Value) -> MockServer {
    let upid = "UPID:pbs-a:00000777:0000A1B2:0000000B:6B0A5FD0:verificationjob:store1:root@pam:";
    let snapshots = json!({"data": [
        {"backup-type": "vm", "backup-id": "100", "backup-time": fresh, "files": ["index.json.blob"],
         "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}},
        {"backup-type": "ct", "backup-id": "200", "backup-time": fresh - 600, "files": ["index.json.blob"],
         "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}}
    ]});
    let none = json!({"data": []});
    let server = pbs(snapshots, sync, none.clone(), none.clone(), none).await;
    serve(
        &server,
        "/config/remote/pbs-b/scan/from-site-a/groups",
        json!({"data": [group]}),
    )
    .await;
    server
}

/// A PVE cluster (wiremock) as pve-manager and pve-storage answer: three guests
/// (`GET /cluster/resources?type=vm`), the PBS storage `pbs-franca` on store1 beside `local`
/// (`GET /storage`, pve-storage `PVE/API2/Storage/Config.pm`), an enabled job to it for 100
/// and 200 and a disabled one to local (`GET /cluster/backup`), and on pve1 one vzdump task
/// for several guests, so without an id (pve-manager `PVE/API2/VZDump.pm`). The task starts
/// before the snapshots it took (PBS's 200 is `fresh - 600`): a task that took no snapshot of
/// a guest is not that guest's run (`cpps_pbs::chain` F5).
async fn pve_for_the_chain(fresh: i64) -> MockServer {
    let start = fresh - 900;
    let pve1_tasks = json!([
        {"upid": format!("UPID:pve1:0000A1B6:0001C3D4:{start:08X}:vzdump::root@pam:"), "node": "pve1",
         "type": "vzdump", "id": "", "user": "root@pam", "starttime": start, "endtime": fresh + 60,
         "status": "OK"}
    ]);
    pve_for_the_chain_with(pve1_tasks).await
}

/// [`pve_for_the_chain`] with `pve1_tasks` as pve1's vzdump tasks.
async fn pve_for_the_chain_with(pve1_tasks: Value) -> MockServer {
    let pve2_tasks = ResponseTemplate::new(200).set_body_json(json!({"data": []}));
    pve_for_the_chain_nodes(pve1_tasks, pve2_tasks).await
}

/// [`pve_for_the_chain`] with `pve1_tasks` as pve1's vzdump tasks and `pve2_tasks` as the
/// answer for pve2's.
async fn pve_for_the_chain_nodes(pve1_tasks: Value, pve2_tasks: ResponseTemplate) -> MockServer {
    pve_for_the_chain_jobs(pve1_tasks, pve2_tasks, &[]).await
}

/// [`pve_for_the_chain_nodes`] with `more_jobs` beside the two jobs of `GET /cluster/backup`.
async fn pve_for_the_chain_jobs(
    pve1_tasks: Value,
    pve2_tasks: ResponseTemplate,
    more_jobs: &[Value],
) -> MockServer {
    pve_for_the_chain_storages(pve1_tasks, pve2_tasks, more_jobs, &[]).await
}

/// [`pve_for_the_chain_jobs`] with `more_storages` beside the two of `GET /storage`.
async fn pve_for_the_chain_storages(
    pve1_tasks: Value,
    pve2_tasks: ResponseTemplate,
    more_jobs: &[Value],
    more_storages: &[Value],
) -> MockServer {
    let server = MockServer::start().await;
    let answer = |path_: &str, data: Value| {
        Mock::given(method("GET"))
            .and(path(format!("/api2/json/{path_}")))
            .and(header("authorization", "PVEAPIToken=root@pam!ci=5ecr3t"))
            .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": data})))
            .expect(1)
    };
    // The vzdump tasks are asked for by type (`typefilter`), running ones included.
    let tasks = |node: &str, answer: ResponseTemplate| {
        Mock::given(method("GET"))
            .and(path(format!("/api2/json/nodes/{node}/tasks")))
            .and(query_param("typefilter", "vzdump"))
            .and(query_param("source", "all"))
            .respond_with(answer)
            .expect(1)
    };
    answer("cluster/resources", json!([
        {"id": "qemu/100", "type": "qemu", "vmid": 100, "node": "pve1", "name": "gitlab", "status": "running"},
        {"id": "lxc/200", "type": "lxc", "vmid": 200, "node": "pve1", "name": "dns1", "status": "running"},
        {"id": "qemu/300", "type": "qemu", "vmid": 300, "node": "pve2", "name": "scratch", "status": "stopped"}
    ]))
    .mount(&server)
    .await;
    let mut storages = vec![
        json!({"storage": "local", "type": "dir", "path": "/var/lib/vz", "content": "backup,iso,vztmpl",
         "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"}),
        json!({"storage": "pbs-franca", "type": "pbs", "server": "pbs-a.example", "datastore": "store1",
         "username": "backup@pbs!pve", "content": "backup",
         "encryption-key": "a7:49:ff:53:3a:b2:0d:4c:77:e4:1c:52:de:6f:80:57:dd:5b:b9:2f:d0:62:23:c0:1c:6a:a6:9f:2f:2c:93:3a",
         "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"}),
    ];
    storages.extend_from_slice(more_storages);
    answer("storage", Value::Array(storages))
        .mount(&server)
        .await;
    let mut jobs = vec![
        json!({"id": "backup-5f1a", "type": "vzdump", "enabled": 1, "schedule": "21:00", "storage": "pbs-franca",
         "vmid": "100,200", "mode": "snapshot"}),
        json!({"id": "backup-old", "type": "vzdump", "enabled": 0, "schedule": "sun 03:00", "storage": "local",
         "all": 1, "exclude": "300"}),
    ];
    jobs.extend_from_slice(more_jobs);
    answer("cluster/backup", Value::Array(jobs))
        .mount(&server)
        .await;
    // A token that may audit every guest (pve-access-control `PVE/API2/AccessControl.pm`
    // `permissions`: `{ $path => { privilege => propagate } }`); a test may mount another
    // answer before this one.
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(query_param("path", "/vms"))
        .respond_with(
            ResponseTemplate::new(200).set_body_json(json!({"data": {"/vms": {"VM.Audit": 1}}})),
        )
        .with_priority(5)
        .mount(&server)
        .await;
    let pve1_tasks = ResponseTemplate::new(200).set_body_json(json!({"data": pve1_tasks}));
    tasks("pve1", pve1_tasks).mount(&server).await;
    tasks("pve2", pve2_tasks).mount(&server).await;
    server
}

/// Capability (issue 31): the backup chain per guest across both sites. 100 is backed up and
/// verified, and its copy on site-b is cannot tell: no push job of this PBS and no
/// `--copy-owner` say which auth-id writes the copy, so whether `sync@pbs`'s group is the copy
/// or site-b's own backup cannot be told (`a_finished_copy_written_by_the_sync_is_copied`); 200's copy is not among the groups the remote's
/// credentials list, which is "cannot tell" (`list_groups` filters by owner); 300 is only in
/// a disabled job to local storage, a breach.
#[tokio::test]
async fn the_backup_chain_gives_one_verdict_per_guest() {
    let fresh = now() - 3600;
    let pbs = pbs_for_the_chain(fresh).await;
    let pve = pve_for_the_chain(fresh).await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let args = [
        "--format",
        "json",
        "--site",
        "site-a",
        "--remote-site",
        "pbs-b=site-b",
        "--chain",
        "--copy",
        "pbs-b:from-site-a",
    ];
    let out = run_with_pve(&pbs, &args, &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let chain = both["chain"].as_array().expect("a chain list");
    let verdicts: Vec<(u64, &str)> = chain
        .iter()
        .map(|c| (c["vmid"].as_u64().unwrap(), c["verdict"].as_str().unwrap()))
        .collect();
    assert_eq!(
        verdicts,
        [(100, "cannot-tell"), (200, "cannot-tell"), (300, "breach")],
        "{stdout}"
    );
    assert_eq!(chain[0]["backed_up"], fresh);
    assert_eq!(chain[0]["copied"], Value::Null);
    assert_eq!(chain[0]["copy_site"], "site-b");
    assert_eq!(chain[0]["encrypted"], true);
    assert_eq!(chain[0]["last_run"]["state"], "shared");
    assert_eq!(both["report"]["summary"]["guests"], 2);
    pbs.verify().await;
    pve.verify().await;

    // The text form says it in one line per guest.
    let pbs = pbs_for_the_chain(fresh).await;
    let pve = pve_for_the_chain(fresh).await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let out = run_with_pve(&pbs, &args[2..], &env).await;
    let text = common::stdout_of_exit(&out, 1);
    let line = text
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("100 (gitlab) cannot tell: backed up here at")
        })
        .unwrap_or_else(|| panic!("no chain line for 100 in\n{text}"));
    assert!(
        text.contains("cannot tell whether vm/100 on site-b is the copy"),
        "{text}"
    );
    assert!(!line.contains("copied to site-b at"), "{line}");
    assert!(text.contains("no enabled vzdump job to a PBS storage of this report includes it"));
}

/// Issue 31: `--chain --copy` could never be ok, and (G2, audit 31) took any group of the
/// guest's id as its copy. The remote scan forwards the remote's `list_groups` answer
/// (proxmox-backup `src/api2/config/remote.rs` `scan_remote_groups`), whose `files` are its
/// `last-backup` snapshot's, finished when the manifest is among them (`list_groups`,
/// `pbs-datastore/src/backup_info.rs` `is_finished`), and whose `owner` is the group's
/// (pbs-api-types `GroupListItem`). A sync writes only into a group its auth-id owns: a push of
/// this PBS as the remote's `auth-id` (`sync@pbs!site-a` in `remotes.json`;
/// `src/server/push.rs` `PushTarget::remote_user`, `push_group_do` skips another's group), a
/// pull of the other site as its job's `owner` (`--copy-owner`; `src/server/pull.rs`
/// `pull_ns`). Both clusters number guests from 100, so site B's own vm/100 is no copy.
#[tokio::test]
async fn a_finished_copy_written_by_the_sync_is_copied() {
    let fresh = now() - 3600;
    let push = json!({"data": [{"id": "s-push-b", "store": "store1", "remote": "pbs-b",
        "remote-store": "from-site-a", "sync-direction": "push", "last-run-state": "OK",
        "last-run-endtime": fresh + 600, "next-run": fresh + 4200}]});
    let gitlab = async |sync: &Value, owner: &str, more: &[&str]| {
        let group = json!({"backup-type": "vm", "backup-id": "100", "last-backup": fresh,
            "backup-count": 3, "files": ["drive-scsi0.img.fidx", "index.json.blob"],
            "owner": owner});
        let pbs = pbs_for_the_chain_copy(fresh, sync.clone(), group).await;
        let pve = pve_for_the_chain(fresh).await;
        let env = [
            ("PROXMOX_VE_ENDPOINT", pve.uri()),
            ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
        ];
        let mut args = vec!["--format", "json", "--site", "site-a", "--remote-site"];
        args.extend(["pbs-b=site-b", "--chain", "--copy", "pbs-b:from-site-a"]);
        args.extend_from_slice(more);
        let out = run_with_pve(&pbs, &args, &env).await;
        let stdout = common::stdout_of_exit(&out, 1);
        let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
        both["chain"][0].clone()
    };
    let pushed = gitlab(&push, "sync@pbs!site-a", &[]).await;
    assert_eq!(pushed["vmid"], 100);
    assert_eq!(pushed["verdict"], "ok", "{pushed}");
    assert_eq!(pushed["copied"], fresh);
    // Site B's own backup of its vm/100, written by its PVE's token.
    let own = gitlab(&push, "backup@pbs!pve-b", &[]).await;
    assert_eq!(own["verdict"], "breach", "{own}");
    assert_eq!(own["copied"], Value::Null);
    assert_eq!(
        own["reasons"],
        json!([
            "no copy on site-b: its vm/100 there is owned by backup@pbs!pve-b, not by the auth-id the sync job writes as"
        ])
    );
    // No push from here: the other site's pull, whose owner only the operator can say.
    let none = json!({"data": []});
    let pulled = gitlab(&none, "root@pam", &["--copy-owner", "root@pam"]).await;
    assert_eq!(pulled["verdict"], "ok", "{pulled}");
    let unknown = gitlab(&none, "root@pam", &[]).await;
    assert_eq!(unknown["verdict"], "cannot-tell", "{unknown}");
    assert_eq!(
        unknown["reasons"],
        json!([
            "cannot tell whether vm/100 on site-b is the copy: the auth-id the sync job writes as is not known"
        ])
    );
}

/// G3 (audit 31): a pool-scoped token. pve-manager `PVE/API2/Cluster.pm` `resources` skips,
/// silently, each guest without `VM.Audit` on `/vms/<vmid>`, and
/// `GET /access/permissions?path=/vms` (pve-access-control `PVE/API2/AccessControl.pm`
/// `permissions`) answers `{"/vms": {}}`: the chain's guest list may be partial, which the
/// report says on stderr and in the JSON (`guests_trimmed`), exit 1.
#[tokio::test]
async fn a_guest_list_that_may_be_partial_is_said() {
    let fresh = now() - 3600;
    let pbs = pbs_for_the_chain(fresh).await;
    let pve = pve_for_the_chain(fresh).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .and(query_param("path", "/vms"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": {"/vms": {}}})))
        .with_priority(1)
        .mount(&pve)
        .await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let args = ["--format", "json", "--chain", "--copy", "pbs-b:from-site-a"];
    let out = run_with_pve(&pbs, &args, &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let why = "VM.Audit on /vms is not held: the guest list leaves out the guests the credentials may not audit";
    assert_eq!(both["guests_trimmed"], why, "{stdout}");
    assert!(
        stderr.contains(&format!("the guest list may be partial: {why}")),
        "{stderr}"
    );
}

/// S5: `GET /nodes/{node}/tasks` is proxied to the node (pve-manager `PVE/API2/Tasks.pm`
/// `node_tasks`, `proxyto => 'node'`), and an offline node's answer is the connection error's
/// 595, which the proxy passes on (pve-http-server `src/PVE/APIServer/AnyEvent.pm`
/// `proxy_request`, `$hdr->{Status}` of AnyEvent::HTTP). Only the guests of that node are
/// "cannot tell": 100 and 200 on pve1 keep pve1's shared run, 300 on pve2 names the error.
#[tokio::test]
async fn one_offline_node_leaves_only_its_guests_last_run_unknown() {
    let fresh = now() - 3600;
    let start = fresh - 900;
    let pbs = pbs_for_the_chain(fresh).await;
    let pve1_tasks = json!([
        {"upid": format!("UPID:pve1:0000A1B6:0001C3D4:{start:08X}:vzdump::root@pam:"), "node": "pve1",
         "type": "vzdump", "id": "", "user": "root@pam", "starttime": start, "endtime": fresh + 60,
         "status": "OK"}
    ]);
    let offline = ResponseTemplate::new(595).set_body_string("");
    let pve = pve_for_the_chain_nodes(pve1_tasks, offline).await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let args = ["--format", "json", "--chain", "--copy", "pbs-b:from-site-a"];
    let out = run_with_pve(&pbs, &args, &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let states: Vec<(u64, &str)> = both["chain"]
        .as_array()
        .expect("a chain list")
        .iter()
        .map(|c| {
            (
                c["vmid"].as_u64().unwrap(),
                c["last_run"]["state"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [(100, "shared"), (200, "shared"), (300, "cannot-tell")],
        "{stdout}"
    );
    let reasons = both["chain"][2]["reasons"].to_string();
    assert!(
        reasons.contains("the vzdump tasks of node pve2 could not be read"),
        "{reasons}"
    );
}

/// E2: a pool job's members are hidden from a token without `Pool.Audit` on `/pool/prod`:
/// `GET /cluster/resources` drops the guests' `pool` (pve-manager `PVE/API2/Cluster.pm`
/// `resources`, `delete $entry->{pool}`) and `GET /pools/prod` is refused
/// (`PVE/API2/Pool.pm` `read_pool`, `check => ['perm', '/pool/{poolid}', ['Pool.Audit']]`),
/// yet vzdump backs the members up (`PVE/VZDump.pm` `get_included_guests`). 300, in no other
/// enabled job, is then "cannot tell", not "no enabled vzdump job includes it".
#[tokio::test]
async fn a_pool_job_with_hidden_members_is_cannot_tell_not_a_breach() {
    let fresh = now() - 3600;
    let start = fresh - 900;
    let pbs = pbs_for_the_chain(fresh).await;
    let pve1_tasks = json!([
        {"upid": format!("UPID:pve1:0000A1B6:0001C3D4:{start:08X}:vzdump::root@pam:"), "node": "pve1",
         "type": "vzdump", "id": "", "user": "root@pam", "starttime": start, "endtime": fresh + 60,
         "status": "OK"}
    ]);
    let pve2_tasks = ResponseTemplate::new(200).set_body_json(json!({"data": []}));
    let pool_job = json!({"id": "backup-prod", "type": "vzdump", "enabled": 1, "schedule": "22:00",
                          "storage": "pbs-franca", "pool": "prod", "mode": "snapshot"});
    let pve = pve_for_the_chain_jobs(pve1_tasks, pve2_tasks, &[pool_job]).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/pools/prod"))
        .respond_with(
            ResponseTemplate::new(403)
                .set_body_json(json!({"data": null}))
                .insert_header("content-type", "application/json;charset=UTF-8"),
        )
        .expect(1)
        .mount(&pve)
        .await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let args = ["--format", "json", "--chain", "--copy", "pbs-b:from-site-a"];
    let out = run_with_pve(&pbs, &args, &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let scratch = &both["chain"][2];
    assert_eq!(scratch["vmid"], 300, "{stdout}");
    assert_eq!(scratch["verdict"], "cannot-tell", "{scratch}");
    let reasons = scratch["reasons"].to_string();
    assert!(
        reasons.contains("job backup-prod may include it") && reasons.contains("pool prod"),
        "{reasons}"
    );
    assert!(!reasons.contains("no enabled vzdump job"), "{reasons}");
    pve.verify().await;
}

/// E3: a PVE storage names its PBS by `server` (and `port`, `fingerprint`) beside the
/// datastore (pve-storage `src/PVE/Storage/PBSPlugin.pm` `options`), so `pbs-sitio-b`, on
/// `pbs-a.example:8008`'s `store1`, does not write to this report's `pbs-a.example:store1`
/// (port 8007). The vm/300 listed here (a pull from the other site, say) is then not 300's
/// backup: 300 is backed up by no job of this report.
#[tokio::test]
async fn a_pbs_storage_on_another_server_is_not_judged_here() {
    let fresh = now() - 3600;
    let upid = "UPID:pbs-a:00000777:0000A1B2:0000000B:6B0A5FD0:verificationjob:store1:root@pam:";
    let snapshot = |ty: &str, id: &str| {
        json!({"backup-type": ty, "backup-id": id, "backup-time": fresh, "files": ["index.json.blob"],
               "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}})
    };
    let snapshots =
        json!({"data": [snapshot("vm", "100"), snapshot("ct", "200"), snapshot("vm", "300")]});
    let none = json!({"data": []});
    let pbs = pbs(snapshots, none.clone(), none.clone(), none.clone(), none).await;
    let other_storage = json!({"storage": "pbs-sitio-b", "type": "pbs", "server": "pbs-a.example",
        "port": 8008, "datastore": "store1", "username": "backup@pbs!pve", "content": "backup",
        "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"});
    let other_job = json!({"id": "backup-b", "type": "vzdump", "enabled": 1, "schedule": "23:00",
        "storage": "pbs-sitio-b", "vmid": "300", "mode": "snapshot"});
    let pve = pve_for_the_chain_storages(
        json!([]),
        ResponseTemplate::new(200).set_body_json(json!({"data": []})),
        &[other_job],
        &[other_storage],
    )
    .await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let out = run_with_pve(&pbs, &["--format", "json", "--chain"], &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let scratch = &both["chain"][2];
    assert_eq!(scratch["vmid"], 300, "{stdout}");
    assert_eq!(scratch["storage"], Value::Null, "{scratch}");
    assert_eq!(scratch["backed_up"], Value::Null, "{scratch}");
    assert_eq!(scratch["verdict"], "breach", "{scratch}");
    // 100 on pbs-a.example's store1 (port 8007 on both sides) is still judged here.
    assert_eq!(both["chain"][0]["storage"], "pbs-franca", "{stdout}");
    assert_eq!(both["chain"][0]["backed_up"], fresh, "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("PVE storage pbs-sitio-b writes to pbs-a.example:8008, not to this PBS (pbs-a.example:8007)"),
        "{stderr}"
    );
}

/// G1 (audit 31): one PVE storage names one datastore (pve-storage
/// `src/PVE/Storage/PBSPlugin.pm` `options`: `datastore`), and one PBS holds many
/// (proxmox-backup `src/api2/admin/datastore.rs` `get_datastore_list`). `pbs-archive` writes
/// to this same server's `store2`, which the default report (the repository's `store1` only)
/// does not read: 300, backed up there by `backup-arch`, is "cannot tell" (its datastore was
/// not read), never a breach for "no enabled vzdump job".
#[tokio::test]
async fn a_pbs_storage_on_an_unread_datastore_is_cannot_tell() {
    let fresh = now() - 3600;
    let upid = "UPID:pbs-a:00000777:0000A1B2:0000000B:6B0A5FD0:verificationjob:store1:root@pam:";
    let snapshot = |ty: &str, id: &str| {
        json!({"backup-type": ty, "backup-id": id, "backup-time": fresh, "files": ["index.json.blob"],
               "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}})
    };
    let snapshots = json!({"data": [snapshot("vm", "100"), snapshot("ct", "200")]});
    let none = json!({"data": []});
    let pbs = pbs(snapshots, none.clone(), none.clone(), none.clone(), none).await;
    let archive = json!({"storage": "pbs-archive", "type": "pbs", "server": "pbs-a.example",
        "datastore": "store2", "username": "backup@pbs!pve", "content": "backup",
        "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"});
    let archive_job = json!({"id": "backup-arch", "type": "vzdump", "enabled": 1,
        "schedule": "23:00", "storage": "pbs-archive", "vmid": "300", "mode": "snapshot"});
    let pve = pve_for_the_chain_storages(
        json!([]),
        ResponseTemplate::new(200).set_body_json(json!({"data": []})),
        &[archive_job],
        &[archive],
    )
    .await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let out = run_with_pve(&pbs, &["--format", "json", "--chain"], &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let scratch = &both["chain"][2];
    assert_eq!(scratch["vmid"], 300, "{stdout}");
    assert_eq!(scratch["storage"], "pbs-archive", "{scratch}");
    assert_eq!(scratch["jobs"], json!(["backup-arch"]), "{scratch}");
    assert_eq!(scratch["verdict"], "cannot-tell", "{scratch}");
    let reasons = scratch["reasons"].to_string();
    assert!(
        reasons.contains("datastore store2 was not read"),
        "{reasons}"
    );
    assert!(!reasons.contains("no enabled vzdump job"), "{reasons}");
    // 100 on store1 is still judged here.
    assert_eq!(both["chain"][0]["backed_up"], fresh, "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "PVE storage pbs-archive writes to datastore store2, which this report does not read"
        ),
        "{stderr}"
    );
}

/// F3 (audit 31): pve-storage's `server` is "Server IP or DNS name" (`src/PVE/Storage/Plugin.pm`)
/// and the `fingerprint` is optional for a trusted certificate (`src/PVE/Storage/PBSPlugin.pm`
/// `options`), so `pbs-por-ip`, on `10.0.0.5`'s `store1` with no fingerprint, may or may not
/// write to this report's `pbs-a.example:store1`. The vm/300 listed here is then no proof
/// that 300 is backed up here, nor is its absence a breach: 300 is "cannot tell", and the
/// reason names both servers (`PbsAddress::server_match` is `None`).
#[tokio::test]
async fn a_pbs_storage_named_by_another_host_text_is_cannot_tell() {
    let fresh = now() - 3600;
    let upid = "UPID:pbs-a:00000777:0000A1B2:0000000B:6B0A5FD0:verificationjob:store1:root@pam:";
    let snapshot = |ty: &str, id: &str| {
        json!({"backup-type": ty, "backup-id": id, "backup-time": fresh, "files": ["index.json.blob"],
               "size": 1024, "protected": false, "verification": {"state": "ok", "upid": upid}})
    };
    let snapshots =
        json!({"data": [snapshot("vm", "100"), snapshot("ct", "200"), snapshot("vm", "300")]});
    let none = json!({"data": []});
    let pbs = pbs(snapshots, none.clone(), none.clone(), none.clone(), none).await;
    let by_ip = json!({"storage": "pbs-por-ip", "type": "pbs", "server": "10.0.0.5",
        "datastore": "store1", "username": "backup@pbs!pve", "content": "backup",
        "digest": "c8a3d4fa0a47f0e63e1ba0b8b5ee3d3cb6e7c0b2"});
    let by_ip_job = json!({"id": "backup-ip", "type": "vzdump", "enabled": 1, "schedule": "23:00",
        "storage": "pbs-por-ip", "vmid": "300", "mode": "snapshot"});
    let pve = pve_for_the_chain_storages(
        json!([]),
        ResponseTemplate::new(200).set_body_json(json!({"data": []})),
        &[by_ip_job],
        &[by_ip],
    )
    .await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", pve.uri()),
        ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
    ];
    let out = run_with_pve(&pbs, &["--format", "json", "--chain"], &env).await;
    let stdout = common::stdout_of_exit(&out, 1);
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let scratch = &both["chain"][2];
    assert_eq!(scratch["vmid"], 300, "{stdout}");
    assert_eq!(scratch["storage"], "pbs-por-ip", "{scratch}");
    assert_eq!(scratch["backed_up"], Value::Null, "{scratch}");
    assert_eq!(scratch["verdict"], "cannot-tell", "{scratch}");
    assert!(
        scratch["reasons"].to_string().contains(
            "whether storage pbs-por-ip's server 10.0.0.5:8007 is this PBS (pbs-a.example:8007) cannot be told"
        ),
        "{scratch}"
    );
    // 100 on pbs-franca (pbs-a.example, as the repository names it) is still judged here.
    assert_eq!(both["chain"][0]["backed_up"], fresh, "{stdout}");
}

/// D8: a token without `Sys.Audit` on `/nodes/{node}` sees only its own tasks (pve-manager
/// `PVE/API2/Tasks.pm` `node_tasks`, `$filter_task`), and scheduled backups run as
/// `root@pam`, so an empty task list proves nothing. `pbs-report` asks
/// `GET /access/permissions?path=/nodes/{node}` (pve-access-control
/// `PVE/API2/AccessControl.pm` `permissions`: `{}` when nothing is held there): without the
/// privilege, 100 and 200, in a PBS job with no task seen, say the list may be filtered; with
/// it, they do not.
#[tokio::test]
async fn a_task_list_without_sys_audit_may_be_filtered() {
    let fresh = now() - 3600;
    let reasons_of_100 = |audit: bool| async move {
        let pbs = pbs_for_the_chain(fresh).await;
        let pve = pve_for_the_chain_with(json!([])).await;
        for node in ["pve1", "pve2"] {
            let rights = if audit {
                json!({format!("/nodes/{node}"): {"Sys.Audit": 1}})
            } else {
                json!({})
            };
            Mock::given(method("GET"))
                .and(path("/api2/json/access/permissions"))
                .and(query_param("path", format!("/nodes/{node}")))
                .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": rights})))
                .mount(&pve)
                .await;
        }
        let env = [
            ("PROXMOX_VE_ENDPOINT", pve.uri()),
            ("PROXMOX_VE_API_TOKEN", "root@pam!ci=5ecr3t".to_owned()),
        ];
        let args = ["--format", "json", "--chain", "--copy", "pbs-b:from-site-a"];
        let out = run_with_pve(&pbs, &args, &env).await;
        let stdout = common::stdout_of_exit(&out, 1);
        let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
        let gitlab = both["chain"][0].clone();
        assert_eq!(gitlab["vmid"], 100, "{stdout}");
        assert_eq!(gitlab["last_run"]["state"], "not-seen", "{stdout}");
        gitlab["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let filtered = "no vzdump task of it was seen, and the task lists may leave out other users' tasks (Sys.Audit on /nodes/<node> not known to be held)";
    assert!(
        reasons_of_100(false).await.iter().any(|r| r == filtered),
        "a token without Sys.Audit"
    );
    assert!(
        !reasons_of_100(true).await.iter().any(|r| r == filtered),
        "a token with Sys.Audit"
    );
}

/// The backup chain against fakepve (run by `cargo xtask test`): the guests, the storage list
/// (with a PBS storage created through `POST /storage`, validated by fakepve as pve-storage's
/// `PBSPlugin`), the vzdump jobs and the vzdump tasks all come from it. fakepve's
/// `GET /cluster/backup` is a schema placeholder (one job for pool `example` to `local`), so no
/// job to the PBS storage covers any guest: every guest is a breach, and 100's own vzdump task
/// (fakepve's `backup`, named after the guest) is its last run. That task ended OK and its log
/// is not read (only failed ones' are), and no snapshot here follows it, so where it wrote
/// cannot be told (pve-manager `PVE/VZDump.pm` `exec_backup` names the storage only in the
/// log): its last run is "unplaced", not a run of this chain.
#[tokio::test]
async fn the_backup_chain_reads_the_guests_storages_and_tasks_of_fakepve() {
    let Some(s) =
        pve::fakepve("the_backup_chain_reads_the_guests_storages_and_tasks_of_fakepve").await
    else {
        return;
    };
    s.control("backup", json!({"vmid": 100})).await;
    let client = s.token_client();
    client
        .post_raw(
            "storage",
            &[
                ("storage", "pbs-chain-report"),
                ("type", "pbs"),
                ("server", "127.0.0.1"),
                ("datastore", "store1"),
                ("username", "backup@pbs"),
            ],
        )
        .await
        .unwrap();
    let pbs = pbs_with_fixtures().await;
    let env = [
        ("PROXMOX_VE_ENDPOINT", s.pve.url.clone()),
        (
            "PROXMOX_VE_API_TOKEN",
            format!("{}={}", s.pve.token_id, s.pve.token_secret),
        ),
        ("PROXMOX_VE_CA_FILE", s.pve.ca_file.display().to_string()),
    ];
    let out = run_with_pve(&pbs, &["--format", "json", "--chain"], &env).await;
    let removed = client
        .raw(cpps_http::Method::DELETE, "storage/pbs-chain-report", &[])
        .await;
    let stdout = common::stdout_of_exit(&out, 1);
    removed.unwrap();
    let both: Value = serde_json::from_str(&stdout).expect("the output is JSON");
    let chain = both["chain"]
        .as_array()
        .unwrap_or_else(|| panic!("{stdout}"));
    let vmids: Vec<u64> = chain.iter().map(|c| c["vmid"].as_u64().unwrap()).collect();
    assert_eq!(vmids, [100, 101, 200, 201, 202], "{stdout}");
    for guest in chain {
        assert_eq!(guest["verdict"], "breach", "{guest}");
        assert_eq!(
            guest["reasons"][0],
            "no enabled vzdump job to a PBS storage of this report includes it"
        );
    }
    assert_eq!(chain[0]["last_run"]["state"], "unplaced", "{}", chain[0]);
    let why = chain[0]["last_run"]["why"].as_str().unwrap_or_default();
    assert!(why.contains("its log was not read"), "{why}");
    assert_eq!(chain[0]["last_run"]["status"], "OK");
    assert_eq!(chain[0]["last_run"]["success"], true);
}
