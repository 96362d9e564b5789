//! The backup report, read from a wiremock server serving the fixtures (shaped as
//! `pbs-apidoc.json` says; no fake PBS server exists, see `common`), built at the fixtures'
//! "now", rendered as text and JSON.

mod common;

use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_pbs::checks::Sites;
use cpps_pbs::report::{self, Inventory, Report, ReportOptions};
use serde_json::json;

/// Issue 30 section 5: the whole output of `report::collect`, `report::build` and
/// `Report::to_text` for one scenario, pinned byte for byte in `tests/golden/report/{name}.txt`
/// (the text, the report as JSON and, when `collect` read it, the inventory's `Debug`; the mock
/// server's port masked), so
/// that reshaping those functions changes nothing. `CPPS_UPDATE_GOLDEN=1` rewrites the file
/// instead; a rewrite is reviewed as a diff.
fn pin(name: &str, collected: Option<&Inventory>, report: &Report) {
    let mut got = format!(
        "{}\n--- JSON ---\n{}\n",
        report.to_text(),
        serde_json::to_string_pretty(report).expect("a report serializes"),
    );
    if let Some(inventory) = collected {
        got.push_str(&format!("--- inventory ---\n{inventory:#?}\n"));
    }
    let got = mask_ports(&got);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/report")
        .join(format!("{name}.txt"));
    if std::env::var_os("CPPS_UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("the golden folder");
        std::fs::write(&path, &got).expect("the golden file is written");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (CPPS_UPDATE_GOLDEN=1 writes it)", path.display()));
    if got != want {
        let (g, w): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
        let at = (0..g.len().max(w.len()))
            .find(|&i| g.get(i) != w.get(i))
            .unwrap_or(0);
        panic!(
            "{name}: differs from {} at line {}:\n got: {:?}\nwant: {:?}",
            path.display(),
            at + 1,
            g.get(at),
            w.get(at)
        );
    }
}

/// `text` with every `127.0.0.1:PORT` written `127.0.0.1:PORT`: the mock server's port changes
/// from run to run.
fn mask_ports(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("127.0.0.1:") {
        let (before, after) = rest.split_at(at + "127.0.0.1:".len());
        out.push_str(before);
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push_str("PORT");
        }
        rest = &after[digits..];
    }
    out.push_str(rest);
    out
}

async fn inventory(stores: Option<&[String]>) -> Inventory {
    inventory_with(stores, true).await
}

/// The fixtures' server up to `store1`'s root namespace: the version, the datastores, the jobs,
/// the remotes (or a refusal of them), full rights, `store1`'s namespaces and its root
/// snapshots. Each test adds what it reads beyond that.
async fn serve_through_store1_root(api: &MockApi, remotes_readable: bool) {
    common::serve_version(api, "4.0", "14").await;
    common::serve_authorized(api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    common::serve_fixture(
        api,
        "/admin/sync",
        &[("sync-direction", "all")],
        "sync_jobs.json",
    )
    .await;
    common::serve_fixture(api, "/admin/verify", &[], "verify_jobs.json").await;
    common::serve_fixture(api, "/admin/prune", &[], "prune_jobs.json").await;
    common::serve_fixture(api, "/admin/gc", &[], "gc_jobs.json").await;
    if remotes_readable {
        common::serve_fixture(api, "/config/remote", &[], "remotes.json").await;
    } else {
        common::serve_permission_denied(api, "/config/remote").await;
    }
    common::serve_full_rights(api).await;
    common::serve_fixture(
        api,
        "/admin/datastore/store1/namespace",
        &[],
        "namespaces_store1.json",
    )
    .await;
    // The root namespace is asked for without `ns`.
    common::serve_fixture_without(
        api,
        "/admin/datastore/store1/snapshots",
        "ns",
        "snapshots_store1.json",
        1,
    )
    .await;
}

async fn inventory_with(stores: Option<&[String]>, remotes_readable: bool) -> Inventory {
    let api = common::mock_api().await;
    serve_through_store1_root(&api, remotes_readable).await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[("ns", "pve-b")],
        "snapshots_pve_b.json",
    )
    .await;
    if stores.is_none() {
        common::serve_json(
            &api,
            "/admin/datastore/offsite/namespace",
            &[],
            json!({"data": [{"ns": ""}]}),
        )
        .await;
        common::serve_json(
            &api,
            "/admin/datastore/offsite/snapshots",
            &[],
            json!({"data": []}),
        )
        .await;
        // An unmounted removable datastore: the report keeps the error and goes on.
        common::serve_error(
            &api,
            "/admin/datastore/archive/namespace",
            400,
            "datastore 'archive' is not mounted\n",
            1,
        )
        .await;
    }
    let inventory = report::collect(&common::token_client(&api), stores).await;
    api.verify().await;
    api.assert_no_unexpected_requests();
    inventory
}

fn options() -> ReportOptions {
    ReportOptions::new(Duration::from_secs(26 * 3600))
        .sites(Sites::new("site-a").with_remote("pbs-b", "site-b"))
}

/// The report of `store1` alone, at the fixtures' "now", with [`options`].
fn store1_report(inventory: &Inventory) -> Report {
    report::build(
        inventory,
        common::NOW,
        &options().stores(vec!["store1".to_owned()]),
    )
}

#[tokio::test]
async fn report_over_all_datastores() {
    let inventory = inventory(None).await;
    let report = report::build(&inventory, common::NOW, &options());
    pin("all_datastores", Some(&inventory), &report);
    let s = report.summary;
    assert_eq!((s.datastores, s.unreadable_datastores, s.guests), (3, 1, 5));
    assert_eq!((s.rpo_breaches, s.verify_failures, s.unverified), (1, 1, 1));
    assert_eq!((s.failed_jobs, s.overdue_jobs), (3, 1));
    assert_eq!(s.without_cross_site_sync, 2);
    assert!(report.is_failing());

    let archive = &report.datastores[2];
    assert_eq!(archive.store, "archive");
    let error = archive.error.as_deref().unwrap();
    assert!(
        error.contains("datastore 'archive' is not mounted"),
        "{error}"
    );

    let text = report.to_text();
    for line in [
        "PBS backup report at 2026-11-29T08:00:00Z, RPO 1d2h",
        "datastore store1  used 1.4 TiB of 3.6 TiB",
        "  cross-site copy of its backups: ok",
        "    s-push-b push pbs-b (site-b):from-site-a, last run OK, 55m ago",
        "  vm/100           2026-11-29T06:00:00Z       2h         2  ok         ok",
        "  vm/101           2026-11-28T12:00:00Z      20h         2  FAILED     ok",
        "  ct/200           2026-11-26T06:00:00Z     3d2h         1  never      BREACHED",
        "  pve-b:vm/300     2026-11-29T05:00:00Z       3h         1  ok         ok",
        "datastore offsite",
        "  cross-site copy of its backups: none (only pulls the other site's backups; push these to the other site)",
        "  copy of the other site's backups: FAILED (the last run to the other site failed)",
        "  no backups",
        "  ERROR: snapshots could not be read: GET http://127.0.0.1:",
        "  FAILED   sync s-pull-b (offsite): connection error: tcp connect error: No route to host (os error 113)",
        "  FAILED   verify v-store1 (store1): verification failed - please check the log for details",
        "  FAILED   garbage-collection offsite (offsite): unknown",
        "  OVERDUE  prune p-offsite (offsite): due 2026-11-29T03:00:00Z, 5h late",
        "result: FAIL",
    ] {
        assert!(text.contains(line), "missing {line:?} in\n{text}");
    }

    let value = serde_json::to_value(&report).unwrap();
    assert_eq!(value["rpo_secs"], 93_600);
    assert_eq!(value["datastores"][0]["guests"][2]["rpo_breached"], true);
    assert_eq!(value["datastores"][0]["guests"][4]["namespace"], "pve-b");
    assert_eq!(
        value["datastores"][0]["guests"][1]["newest_verification"],
        "failed"
    );
    assert_eq!(value["datastores"][0]["sync"]["cross_site"], "ok");
    assert_eq!(
        value["datastores"][1]["sync"]["links"][0]["last_run"],
        "connection error: tcp connect error: No route to host (os error 113)"
    );
    assert_eq!(value["jobs"][1]["issue"], "failed");
    assert_eq!(value["jobs"][1]["kind"], "verify");
    assert_eq!(value["jobs"][3]["issue"], "overdue");
    assert_eq!(value["jobs"][3]["late_by_secs"], 18_000);
    assert_eq!(value["summary"]["failed_jobs"], 3);
}

#[tokio::test]
async fn report_over_one_datastore_reads_only_its_snapshots() {
    let stores = vec!["store1".to_owned()];
    let inventory = inventory(Some(&stores)).await;
    let report = store1_report(&inventory);
    pin("store1", Some(&inventory), &report);
    assert_eq!(report.datastores.len(), 1);
    // Only store1's problems count: the failed verify job.
    assert_eq!(
        report
            .jobs
            .iter()
            .map(|j| j.id.as_str())
            .collect::<Vec<_>>(),
        ["v-store1"]
    );
    assert_eq!(report.summary.rpo_breaches, 1);
    assert!(report.is_failing());
}

// Reading remotes needs `Remote.Audit` (pbs-apidoc.json's permissions of `GET /config/remote`),
// which a datastore-audit token may lack: the report goes on, matching sites by remote name.
#[tokio::test]
async fn unreadable_remotes_do_not_stop_the_report() {
    let stores = vec!["store1".to_owned()];
    let inventory = inventory_with(Some(&stores), false).await;
    assert!(inventory.remotes.is_empty());
    let error = inventory.remotes_error.as_deref().unwrap();
    assert!(error.contains("permission check failed"), "{error}");
    let report = store1_report(&inventory);
    pin("remotes_unreadable", Some(&inventory), &report);
    let store1 = &report.datastores[0];
    assert_eq!(store1.sync.cross_site, cpps_pbs::checks::CrossSiteSync::Ok);
    assert_eq!(store1.sync.links[0].remote_host, None);
    assert_eq!(store1.sync.links[0].remote_site.as_deref(), Some("site-b"));
    let text = report.to_text();
    assert!(
        text.contains("warning: remotes could not be read (GET http://127.0.0.1:"),
        "{text}"
    );
    assert!(text.contains("sites matched by remote name only"), "{text}");
}

#[test]
fn a_healthy_inventory_passes() {
    // Keep vm/100 only: fresh and verified.
    let mut inventory = store1_inventory(vm100_snapshots());
    inventory.datastores = common::data("datastores.json");
    let report = store1_report(&inventory);
    pin("healthy", None, &report);
    assert!(!report.is_failing(), "{}", report.to_text());
    assert!(report.to_text().contains("result: OK"));
    assert_eq!(report.summary.without_cross_site_sync, 0);
}

/// Issue 14, defects 2 and 3: a PBS 3.1 (no `GET /admin/gc`, no `sync-direction`) and a token
/// that may not list verify jobs (403). Before, one failed call lost the whole report
/// (`try_join!`); now every other part is read, the failure is kept per part, and the endpoint
/// the release lacks is a typed "not supported" that is never requested.
#[tokio::test]
async fn an_old_pbs_and_a_forbidden_part_still_give_a_report() {
    let api = common::mock_api().await;
    common::serve_version(&api, "3.1", "2").await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    common::serve_fixture_without(&api, "/admin/sync", "sync-direction", "sync_jobs.json", 1).await;
    common::serve_permission_denied(&api, "/admin/verify").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    let inventory = collect_store1_with_remotes(&api).await;
    assert_eq!(inventory.datastores.len(), 3);
    assert_eq!(inventory.sync_jobs.len(), 3);
    assert_eq!(inventory.prune_jobs.len(), 3);
    assert!(inventory.verify_jobs.is_empty());
    assert_eq!(
        part_errors(&inventory),
        [
            ("verify jobs (GET /admin/verify)", Some(403), false),
            ("garbage-collection jobs (GET /admin/gc)", None, true),
        ]
    );
    let report = store1_report(&inventory);
    pin("old_pbs_verify_forbidden", Some(&inventory), &report);
    assert!(report.is_partial());
    assert_eq!(report.summary.unread_parts, 1);
    assert_eq!(report.summary.guests, 4);
    let text = report.to_text();
    assert!(
        text.contains("error: verify jobs (GET /admin/verify) could not be read: GET "),
        "{text}"
    );
    assert!(
        text.contains("not supported: garbage-collection jobs (GET /admin/gc): GET /admin/gc is not supported by PBS 3.1.2 (it needs PBS 3.2.0 or later)"),
        "{text}"
    );
    assert!(
        text.contains("(PARTIAL: some parts could not be read)"),
        "{text}"
    );
}

/// Issue 14, defect 9: a newest snapshot whose verification state is a value this client does
/// not know fails the report and is shown as unknown, never as verified.
#[test]
fn an_unknown_verification_state_fails_the_report() {
    let mut snapshots = vm100_snapshots();
    for snapshot in &mut snapshots {
        if let Some(v) = snapshot.verification.as_mut() {
            v.state = cpps_pbs::types::VerifyState::Unknown("pending".to_owned());
        }
    }
    let inventory = store1_inventory(snapshots);
    let report = store1_report(&inventory);
    pin("verification_unknown", None, &report);
    assert_eq!(report.summary.verify_unknown, 1);
    assert_eq!(report.summary.verify_failures, 0);
    assert!(report.is_failing());
    let text = report.to_text();
    assert!(text.contains("UNKNOWN (pending)"), "{text}");
    assert!(text.contains("result: FAIL"), "{text}");
}

/// Issue 20, the fault suite's `pbs-report` after a reset: the release is read once per run.
/// When `GET /version` fails (here 503 on every attempt, which the retry policy repeats: four
/// attempts in all), the parts that choose by the release (the sync job list's
/// `sync-direction`, PBS 3.3+; `GET /admin/gc`, PBS 3.2+) each get that one failure as their
/// error and send nothing, and no part asks for the version again. Before, each of them asked
/// in turn after the other's failure: eight requests where the policy allows four.
#[tokio::test]
async fn a_failed_version_read_is_sent_once_and_shared_by_the_parts_that_need_it() {
    let api = common::mock_api().await;
    // One read with its retries.
    common::serve_error(&api, "/version", 503, "service unavailable\n", 4).await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    common::serve_fixture(&api, "/admin/verify", &[], "verify_jobs.json").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    // Neither `GET /admin/sync` nor `GET /admin/gc` is sent (the catch-all would list them).
    let inventory = collect_store1_with_remotes(&api).await;
    assert_eq!(
        part_errors(&inventory),
        [
            ("sync jobs (GET /admin/sync)", Some(503), false),
            ("garbage-collection jobs (GET /admin/gc)", Some(503), false),
        ]
    );
    // The same failure, word for word, for both parts: the version read's.
    assert_eq!(inventory.errors[0].error, inventory.errors[1].error);
    assert!(
        inventory.errors[0].error.contains("/version"),
        "{}",
        inventory.errors[0].error
    );
    // Everything that does not depend on the release was read.
    assert_eq!(inventory.datastores.len(), 3);
    assert_eq!(inventory.verify_jobs.len(), 2);
    assert_eq!(inventory.prune_jobs.len(), 3);
    let report = store1_report(&inventory);
    pin("version_failed", Some(&inventory), &report);
    assert!(report.is_partial());
    assert_eq!(report.summary.guests, 4);
}

/// Each part error of `inventory` as (part, status, not supported).
fn part_errors(inventory: &Inventory) -> Vec<(&str, Option<u16>, bool)> {
    inventory
        .errors
        .iter()
        .map(|e| (e.part.as_str(), e.status, e.not_supported))
        .collect()
}

/// Serves the remotes and `store1`'s root namespace with its snapshots, then collects the
/// report of `store1` and checks that every mounted answer was asked for and nothing else.
async fn collect_store1_with_remotes(api: &MockApi) -> Inventory {
    common::serve_fixture(api, "/config/remote", &[], "remotes.json").await;
    common::serve_full_rights(api).await;
    common::serve_json(
        api,
        "/admin/datastore/store1/namespace",
        &[],
        json!({"data": [{"ns": ""}]}),
    )
    .await;
    common::serve_fixture(
        api,
        "/admin/datastore/store1/snapshots",
        &[],
        "snapshots_store1.json",
    )
    .await;
    let stores = vec!["store1".to_owned()];
    let inventory = report::collect(&common::token_client(api), Some(&stores)).await;
    api.verify().await;
    api.assert_no_unexpected_requests();
    inventory
}

/// The snapshots of vm/100 in `store1` (fixture `snapshots_store1.json`).
fn vm100_snapshots() -> Vec<cpps_pbs::types::Snapshot> {
    let mut snapshots: Vec<cpps_pbs::types::Snapshot> = common::data("snapshots_store1.json");
    snapshots.retain(|s| s.backup_id == "100");
    snapshots
}

/// An inventory of `store1` holding `snapshots` (root namespace), the first sync job and the
/// remotes of the fixtures.
fn store1_inventory(snapshots: Vec<cpps_pbs::types::Snapshot>) -> Inventory {
    let mut inventory = Inventory::default();
    inventory
        .snapshots
        .insert("store1".to_owned(), Ok([(String::new(), snapshots)].into()));
    inventory.sync_jobs = common::data("sync_jobs.json");
    inventory.sync_jobs.truncate(1);
    inventory.remotes = common::data("remotes.json");
    inventory
}

/// N7: without `Remote.Audit`, PBS does not refuse the sync job list or the remote list, it
/// **filters** them: 200 with fewer items. proxmox-backup `src/api2/admin/sync.rs`
/// `list_config_sync_jobs` keeps only the jobs `check_sync_job_read_access`
/// (`src/api2/config/sync.rs`) allows (Datastore.Audit on the job's namespace, Remote.Audit on
/// its remote), and `src/api2/config/remote.rs` `list_remotes` is "filtered by Remote.Audit
/// privileges". So an empty list from a token that lacks those rights is no proof that no sync
/// job exists: the report must say it cannot tell, never "none (no sync job)". The caller's
/// rights are read from `GET /access/permissions` (`src/api2/access/mod.rs`
/// `list_permissions`: path → privilege → propagates; paths without privileges are left out).
#[tokio::test]
async fn sync_jobs_hidden_by_the_token_rights_are_not_stated_as_none() {
    let api = common::mock_api().await;
    common::serve_version(&api, "4.0", "14").await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    let empty = json!({"data": []});
    common::serve_json(
        &api,
        "/admin/sync",
        &[("sync-direction", "all")],
        empty.clone(),
    )
    .await;
    common::serve_fixture(&api, "/admin/verify", &[], "verify_jobs.json").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    common::serve_fixture(&api, "/admin/gc", &[], "gc_jobs.json").await;
    common::serve_json(&api, "/config/remote", &[], empty).await;
    // A datastore-audit token: no `/remote` entry at all.
    let rights = json!({"data": {
        "/datastore": {"Datastore.Audit": true},
        "/datastore/store1": {"Datastore.Audit": true}
    }});
    let store1 = json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}});
    common::serve_rights(&api, rights, &[("/datastore/store1", store1)]).await;
    common::serve_json(
        &api,
        "/admin/datastore/store1/namespace",
        &[],
        json!({"data": [{"ns": ""}]}),
    )
    .await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        "snapshots_store1.json",
    )
    .await;
    let stores = vec!["store1".to_owned()];
    let inventory = report::collect(&common::token_client(&api), Some(&stores)).await;
    let report = store1_report(&inventory);
    pin("sync_jobs_hidden", Some(&inventory), &report);
    let store1 = &report.datastores[0];
    assert_eq!(
        store1.sync.cross_site,
        cpps_pbs::checks::CrossSiteSync::CannotTell
    );
    let text = report.to_text();
    assert!(!text.contains("no sync job"), "{text}");
    assert!(text.contains("cannot tell"), "{text}");
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Issue 31 follow-up (N7): PBS lists a sync job only when the caller holds `Datastore.Audit`
/// on the job's own datastore (namespace) path, looked up there (proxmox-backup 3.2.4
/// `src/api2/config/sync.rs` `check_sync_job_read_access`: `lookup_privs(auth_id,
/// &job.acl_path())`, then `Remote.Audit` on `/remote/{remote}`). An ACL of the caller on
/// `/datastore/store1` replaces the Audit it inherits from `/datastore` (`pbs-config/src/acl.rs`
/// `AclTree::roles`), so store1's jobs are hidden although `/datastore` says Audit. Asked with
/// `path`, `list_permissions` (`src/api2/access/mod.rs`) answers only that path, and leaves it
/// out when the caller holds nothing there: `{}`. The report must say per datastore that it
/// cannot tell, never "none (no sync job)".
#[tokio::test]
async fn a_deeper_acl_on_the_datastore_hides_its_sync_jobs() {
    let api = common::mock_api().await;
    common::serve_version(&api, "4.0", "14").await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    let empty = json!({"data": []});
    common::serve_json(
        &api,
        "/admin/sync",
        &[("sync-direction", "all")],
        empty.clone(),
    )
    .await;
    common::serve_fixture(&api, "/admin/verify", &[], "verify_jobs.json").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    common::serve_fixture(&api, "/admin/gc", &[], "gc_jobs.json").await;
    common::serve_json(&api, "/config/remote", &[], empty).await;
    // Without `path`: Audit propagating from `/datastore` and `/remote`; `/datastore/store1`
    // is left out (NoAccess there, no privileges).
    let inherited = json!({"data": {
        "/datastore": {"Datastore.Audit": true},
        "/remote": {"Remote.Audit": true}
    }});
    common::serve_rights(
        &api,
        inherited,
        &[("/datastore/store1", json!({"data": {}}))],
    )
    .await;
    common::serve_json(
        &api,
        "/admin/datastore/store1/namespace",
        &[],
        json!({"data": [{"ns": ""}]}),
    )
    .await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        "snapshots_store1.json",
    )
    .await;
    let stores = vec!["store1".to_owned()];
    let inventory = report::collect(&common::token_client(&api), Some(&stores)).await;
    api.verify().await;
    api.assert_no_unexpected_requests();
    let report = store1_report(&inventory);
    let store1 = &report.datastores[0];
    assert_eq!(
        store1.sync.cross_site,
        cpps_pbs::checks::CrossSiteSync::CannotTell
    );
    let hidden = store1.sync_jobs_hidden.as_deref().unwrap_or_default();
    assert!(
        hidden.contains("Datastore.Audit on /datastore/store1"),
        "{hidden}"
    );
    let text = report.to_text();
    assert!(!text.contains("no sync job"), "{text}");
    assert!(
        text.contains("Datastore.Audit on /datastore/store1"),
        "{text}"
    );
}

/// Store1 (namespaces `` and `pve-b`, the fixtures' two remotes, no sync job listed) collected
/// with Audit on `/datastore/store1` itself and the whole rights answer `rights` (`GET
/// /access/permissions`): the report of store1.
async fn store1_with_rights(rights: serde_json::Value) -> Report {
    let store1 = json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}});
    store1_with_rights_on(rights, store1).await
}

/// [`store1_with_rights`] with `store1` the answer for `/datastore/store1` itself.
async fn store1_with_rights_on(rights: serde_json::Value, store1: serde_json::Value) -> Report {
    store1_report(&store1_rights_inventory(rights, store1).await)
}

/// The inventory [`store1_with_rights_on`] reports on.
async fn store1_rights_inventory(
    rights: serde_json::Value,
    store1: serde_json::Value,
) -> Inventory {
    let api = common::mock_api().await;
    common::serve_version(&api, "4.0", "14").await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    common::serve_fixture(&api, "/status/datastore-usage", &[], "datastore_usage.json").await;
    let empty = json!({"data": []});
    common::serve_json(&api, "/admin/sync", &[("sync-direction", "all")], empty).await;
    common::serve_fixture(&api, "/admin/verify", &[], "verify_jobs.json").await;
    common::serve_fixture(&api, "/admin/prune", &[], "prune_jobs.json").await;
    common::serve_fixture(&api, "/admin/gc", &[], "gc_jobs.json").await;
    common::serve_fixture(&api, "/config/remote", &[], "remotes.json").await;
    common::serve_rights(&api, rights, &[("/datastore/store1", store1)]).await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/namespace",
        &[],
        "namespaces_store1.json",
    )
    .await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[("ns", "pve-b")],
        "snapshots_pve_b.json",
    )
    .await;
    common::serve_fixture(
        &api,
        "/admin/datastore/store1/snapshots",
        &[],
        "snapshots_store1.json",
    )
    .await;
    let stores = vec!["store1".to_owned()];
    let inventory = report::collect(&common::token_client(&api), Some(&stores)).await;
    api.verify().await;
    api.assert_no_unexpected_requests();
    inventory
}

/// L3 (audit 31, third look): over all datastores, the report covers what
/// `GET /admin/datastore` listed, and PBS lists only the datastores the caller may audit or
/// back up to (proxmox-backup `src/api2/admin/datastore.rs` `get_datastore_list`). A token
/// whose Audit is on `/datastore/store1` alone may not see the others: the report says so and
/// is partial; with Audit propagating from `/datastore` the list is whole. Naming the
/// datastores ([`ReportOptions::stores`]) leaves the list out of it.
#[tokio::test]
async fn over_all_datastores_a_list_the_token_may_not_see_whole_is_partial() {
    let store1 = json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}});
    let only_store1 = json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}});
    let inventory = store1_rights_inventory(only_store1, store1.clone()).await;
    let all = ReportOptions::new(Duration::from_secs(86_400));
    let report = report::build(&inventory, common::NOW, &all);
    assert_eq!(
        report.datastores_hidden.as_deref(),
        Some(
            "the credentials hold neither Datastore.Audit nor Datastore.Backup propagating \
             from /datastore"
        )
    );
    assert!(report.is_partial());
    assert!(
        report
            .to_text()
            .contains("datastores PBS may have left out of the list: the credentials hold"),
        "{}",
        report.to_text()
    );
    let named = report::build(
        &inventory,
        common::NOW,
        &all.clone().stores(vec!["store1".to_owned()]),
    );
    assert_eq!(named.datastores_hidden, None);

    let whole = json!({"data": {"/datastore": {"Datastore.Audit": true}}});
    let inventory = store1_rights_inventory(whole, store1).await;
    assert_eq!(
        report::build(&inventory, common::NOW, &all).datastores_hidden,
        None
    );
}

/// F6 (audit 31): PBS lists a sync job only with `Datastore.Audit` looked up on the job's own
/// `acl_path`, `/datastore/{store}/{ns}` for a job anchored in a namespace, and, for a push,
/// `Remote.Audit` on its `remote_acl_path`, `/remote/{remote}/{remote-store}[/{remote-ns}]`
/// (proxmox-backup `src/api2/config/sync.rs` `check_sync_job_read_access`; pbs-api-types
/// `src/jobs.rs` `SyncJobConfig::acl_path`, `remote_acl_path`; `src/datastore.rs`
/// `BackupNamespace::acl_path`, `remote_acl_path`). An ACL there (a DatastoreBackup role on the
/// namespace, a role without Remote.Audit on the remote's datastore) replaces the Audit
/// inherited from `/datastore` and `/remote` (`pbs-config/src/acl.rs` `AclTree::roles`), and
/// the whole `GET /access/permissions` answer names such a path with the privileges looked up
/// there (`src/api2/access/mod.rs` `list_permissions`, `populate_acl_paths`). So Audit on
/// `/datastore/store1` and propagating from `/datastore` and `/remote` does not make the job
/// list whole: the verdict is "cannot tell", naming the path, never "none (no sync job)".
#[tokio::test]
async fn a_namespace_or_push_target_acl_hides_sync_jobs_of_the_datastore() {
    let inherited = json!({
        "/datastore": {"Datastore.Audit": true},
        "/remote": {"Remote.Audit": true}
    });
    let with = |path: &str, privileges: serde_json::Value| {
        let mut rights = inherited.clone();
        rights[path] = privileges;
        json!({ "data": rights })
    };
    let cases = [
        (
            with("/datastore/store1/pve-b", json!({"Datastore.Backup": true})),
            "Datastore.Audit on /datastore/store1/pve-b",
        ),
        (
            with("/remote/pbs-b/from-site-a", json!({"Remote.Read": true})),
            "Remote.Audit on /remote/pbs-b/from-site-a",
        ),
    ];
    for (rights, lacking) in cases {
        let report = store1_with_rights(rights).await;
        let store1 = &report.datastores[0];
        assert_eq!(
            store1.sync.cross_site,
            cpps_pbs::checks::CrossSiteSync::CannotTell,
            "{lacking}"
        );
        let hidden = store1.sync_jobs_hidden.as_deref().unwrap_or_default();
        assert!(hidden.contains(lacking), "{lacking}: {hidden}");
        assert!(!report.to_text().contains("no sync job"), "{lacking}");
    }
    // Where those paths keep Audit the list is whole, and no copy is then a fact.
    let audit = json!({"Datastore.Audit": true, "Remote.Audit": true});
    let report = store1_with_rights(with("/datastore/store1/pve-b", audit)).await;
    let store1 = &report.datastores[0];
    assert_eq!(store1.sync_jobs_hidden, None);
    assert_eq!(
        store1.sync.cross_site,
        cpps_pbs::checks::CrossSiteSync::None
    );
}

/// J2 (audit 31): PBS lists a namespace only where the caller holds one of
/// `Datastore.Modify`, `.Read`, `.Backup` or `.Audit` on the namespace's own ACL path, and
/// drops the others silently (proxmox-backup `src/api2/admin/namespace.rs` `list_namespaces`,
/// `NS_PRIVS_OK` in `src/backup/hierarchy.rs`). Replaced on `/datastore/store1` by a
/// propagating role that grants none of them, or below it by an ACL that grants none, a
/// namespace and its guests' RPO breaches vanish from the report: it must say so and be
/// partial. M7 (audit 31, fourth look): a role held on `/datastore/store1` without propagating
/// (the `false` of `GET /access/permissions`) applies to that node alone, and below it the
/// Audit propagating from `/datastore` still reaches every namespace (`pbs-config/src/acl.rs`
/// `AclTree::roles`, `extract_user_roles`): nothing is hidden then.
#[tokio::test]
async fn namespaces_the_token_may_not_see_make_the_report_partial() {
    let inherited = json!({
        "/datastore": {"Datastore.Audit": true},
        "/remote": {"Remote.Audit": true}
    });
    let whole = json!({ "data": inherited });
    let replaced = json!({"data": {"/datastore/store1": {"Datastore.Prune": true}}});
    let report = store1_with_rights_on(whole.clone(), replaced).await;
    let hidden = report.datastores[0].namespaces_hidden.as_deref();
    assert_eq!(
        hidden,
        Some(
            "the token holds none of Datastore.Modify, Datastore.Read, Datastore.Backup, \
             Datastore.Audit propagating on /datastore/store1"
        )
    );
    assert!(report.is_partial());
    let text = report.to_text();
    assert!(
        text.contains("  namespaces PBS may have left out of the list: the token holds none"),
        "{text}"
    );

    let not_propagating = json!({"data": {"/datastore/store1": {"Datastore.Audit": false}}});
    let report = store1_with_rights_on(whole.clone(), not_propagating).await;
    assert_eq!(report.datastores[0].namespaces_hidden, None);

    let mut deeper = inherited.clone();
    deeper["/datastore/store1/archive"] = json!({"Datastore.Prune": true});
    let report = store1_with_rights(json!({ "data": deeper })).await;
    assert_eq!(
        report.datastores[0].namespaces_hidden.as_deref(),
        Some(
            "the token holds none of Datastore.Modify, Datastore.Read, Datastore.Backup, \
             Datastore.Audit on /datastore/store1/archive"
        )
    );

    let report = store1_with_rights(whole).await;
    assert_eq!(report.datastores[0].namespaces_hidden, None);
    assert!(!report.is_partial());
}

/// N6: a sync job copies only its scope: the groups of its namespace `ns` and, within
/// `max-depth` (none: every level), the namespaces below, that pass its `group-filter`
/// (pbs-api-types `src/jobs.rs` `SyncJobConfig`; filters `type:`, `group:`, `regex:`, with
/// `include:`/`exclude:`, applied as `src/datastore.rs` `BackupGroup::apply_filters` does:
/// any include must match when there is one, no exclude may match). A push of `type:ct` from
/// `store1` does not copy `vm/100` off-site, so the datastore is not "ok" as a whole.
#[test]
fn a_push_copies_only_the_groups_in_its_scope() {
    let with_filter = |filters: &[&str]| {
        let mut inventory = store1_inventory(vm100_snapshots());
        inventory.sync_jobs[0].group_filter = filters.iter().map(|f| (*f).to_owned()).collect();
        let report = store1_report(&inventory);
        let store1 = report.datastores[0].clone();
        (store1.sync.cross_site, store1.guests[0].off_site)
    };
    use cpps_pbs::checks::CrossSiteSync;
    assert_eq!(with_filter(&[]), (CrossSiteSync::Ok, Some(true)));
    assert_eq!(
        with_filter(&["type:ct"]),
        (CrossSiteSync::Partial, Some(false))
    );
    assert_eq!(
        with_filter(&["group:vm/100"]),
        (CrossSiteSync::Ok, Some(true))
    );
    assert_eq!(
        with_filter(&["type:vm", "exclude:group:vm/100"]),
        (CrossSiteSync::Partial, Some(false))
    );
    // A regular expression is matched as PBS matches it (pbs-api-types
    // `BackupGroup::matches`: unanchored, on `type/id`); one PBS could not compile cannot be
    // judged: cannot tell, never ok.
    assert_eq!(
        with_filter(&["regex:^vm/1"]),
        (CrossSiteSync::Ok, Some(true))
    );
    assert_eq!(
        with_filter(&["regex:^ct/"]),
        (CrossSiteSync::Partial, Some(false))
    );
    assert_eq!(
        with_filter(&["regex:vm/("]),
        (CrossSiteSync::CannotTell, None)
    );
    // A namespace outside the job's: `ns` is `pve-b`, the guest is in the root.
    let mut inventory = store1_inventory(vm100_snapshots());
    inventory.sync_jobs[0].ns = Some("pve-b".to_owned());
    let report = store1_report(&inventory);
    pin("push_of_another_namespace", None, &report);
    assert_eq!(report.datastores[0].sync.cross_site, CrossSiteSync::Partial);
    assert!(
        report.to_text().contains("not copied off-site"),
        "{}",
        report.to_text()
    );
}

/// Suspected item of issue 31, confirmed: the snapshots are read namespace by namespace
/// (proxmox-backup `src/api2/admin/datastore.rs` `list_snapshots` takes one `ns`), and one
/// namespace that fails (here a 403: the token may audit the root but not `pve-b`, whose ACL
/// path is `/datastore/store1/pve-b`) dropped the whole datastore from the report. The other
/// namespaces are kept; the failed one is an error of its own that fails the report.
#[tokio::test]
async fn one_failing_namespace_keeps_the_rest_of_the_datastore() {
    let api = common::mock_api().await;
    serve_through_store1_root(&api, true).await;
    wiremock::Mock::given(wiremock::matchers::method("GET"))
        .and(wiremock::matchers::path(
            "/api2/json/admin/datastore/store1/snapshots",
        ))
        .and(wiremock::matchers::query_param("ns", "pve-b"))
        .respond_with(
            wiremock::ResponseTemplate::new(403)
                .set_body_json(json!({"data": null, "message": "permission check failed\n"})),
        )
        .mount(api.server())
        .await;
    let stores = vec!["store1".to_owned()];
    let inventory = report::collect(&common::token_client(&api), Some(&stores)).await;
    let report = store1_report(&inventory);
    pin("namespace_forbidden", Some(&inventory), &report);
    let store1 = &report.datastores[0];
    assert_eq!(store1.error, None);
    assert_eq!(report.summary.guests, 4, "{}", report.to_text());
    assert_eq!(store1.namespace_errors.len(), 1);
    assert!(
        store1.namespace_errors[0].contains("pve-b"),
        "{:?}",
        store1.namespace_errors
    );
    assert_eq!(report.summary.unreadable_namespaces, 1);
    assert!(report.is_failing());
    let text = report.to_text();
    assert!(
        text.contains("namespace `pve-b` could not be read"),
        "{text}"
    );
    api.verify().await;
}

/// D9: `--fix --apply` verifies the newest **finished** snapshot, not the whole group. A group
/// verification runs `verify_backup_dir` on every snapshot of the group, an abandoned one
/// included (proxmox-backup `src/backup/verify.rs` `verify_backup_group`; a snapshot with no
/// manifest gives "manifest load error" and counts as failed), and the task then ends in
/// "verification failed" (`src/api2/admin/datastore.rs` `verify`). With `backup-time` as well
/// as `backup-type` and `backup-id`, the same call verifies that one snapshot
/// (`verify`: the `(Some, Some, Some)` arm, worker type `verify_snapshot`).
#[tokio::test]
async fn the_fix_verifies_the_newest_finished_snapshot_not_the_group() {
    use wiremock::matchers::{body_string_contains, method, path};
    use wiremock::{Mock, ResponseTemplate};
    let mut snapshots: Vec<cpps_pbs::types::Snapshot> = common::data("snapshots_store1.json");
    snapshots.retain(|s| s.backup_id == "200");
    // An abandoned backup after the finished one: no `index.json.blob`
    // (`src/api2/admin/datastore.rs` `list_snapshots_blocking` lists it all the same).
    let mut abandoned = serde_json::to_value(&snapshots[0]).unwrap();
    abandoned["backup-time"] = (snapshots[0].backup_time + 86_400).into();
    abandoned["files"] = json!([{"filename": "root.pxar.didx", "crypt-mode": "none"}]);
    snapshots.push(serde_json::from_value(abandoned).unwrap());
    let finished_time = 1_795_672_800_i64;
    let inventory = store1_inventory(snapshots);
    let report = store1_report(&inventory);
    pin("abandoned_snapshot", None, &report);
    let plan = cpps_pbs::fix::plan(&report);
    let verifies: Vec<String> = plan
        .iter()
        .map(ToString::to_string)
        .filter(|a| a.starts_with("verify store1"))
        .collect();
    assert_eq!(
        verifies,
        ["verify store1 ct/200/2026-11-26T06:00:00Z (its newest snapshot was never verified)"]
    );

    let api = common::mock_api().await;
    let status = common::load("task_status_failed.json");
    let upid_text = status["data"]["upid"].as_str().unwrap().to_owned();
    let upid: cpps_pbs::Upid = upid_text.parse().unwrap();
    Mock::given(method("POST"))
        .and(path("/api2/json/admin/datastore/store1/verify"))
        .and(body_string_contains("backup-type=ct"))
        .and(body_string_contains("backup-id=200"))
        .and(body_string_contains(format!("backup-time={finished_time}")))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"data": upid_text})))
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
    let only_verifies: Vec<_> = plan
        .into_iter()
        .filter(|a| a.to_string().starts_with("verify store1"))
        .collect();
    let options = cpps_proxmox_family::WaitOptions::default()
        .intervals(Duration::from_millis(5), Duration::from_millis(10));
    let applied = cpps_pbs::fix::apply(&common::token_client(&api), &only_verifies, &options).await;
    let outcomes: Vec<_> = applied.iter().map(|a| a.outcome.clone()).collect();
    assert_eq!(outcomes, [Ok("OK".to_owned())]);
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// E7: a datastore missing from `GET /admin/gc` (proxmox-backup `src/api2/admin/gc.rs`
/// `list_all_gc_jobs` drops one whose `garbage_collection_status` fails) is a warning in the
/// report, "cannot tell", not a pass; with its GC listed, scheduled and run, there is none.
#[test]
fn a_datastore_missing_from_the_gc_list_is_a_warning() {
    let mut inventory = store1_inventory(vm100_snapshots());
    let report = store1_report(&inventory);
    pin("gc_unlisted", None, &report);
    assert_eq!(
        report.warnings,
        [
            "cannot tell the garbage collection of datastore store1: GET /admin/gc leaves it out (a datastore whose GC status fails is dropped from the list)"
        ]
    );
    assert!(
        report
            .to_text()
            .contains("warning: cannot tell the garbage collection of datastore store1")
    );
    inventory.gc_jobs = common::data("gc_jobs.json");
    assert!(store1_report(&inventory).warnings.is_empty());
}

/// S1: a sync job with `verified-only` or `encrypted-only` (pbs-api-types `src/jobs.rs`
/// `SyncJobConfig`) skips each snapshot that is not verified ok, or that has an archive not
/// encrypted (proxmox-backup `src/server/sync.rs` `exclude_not_verified_or_encrypted`: every
/// file `encrypt`, the manifest `sign-only`, the client log any). Such a push copies a guest
/// off-site only through a snapshot it takes, within the RPO; a snapshot list that gives only
/// archive names cannot say whether they are encrypted.
#[test]
fn a_verified_or_encrypted_only_push_copies_only_such_snapshots() {
    use cpps_pbs::checks::CrossSiteSync;
    use cpps_pbs::types::SnapshotFile;
    let content = |name: &str, mode: &str| SnapshotFile::Content {
        filename: name.to_owned(),
        crypt_mode: Some(mode.to_owned()),
        size: Some(1024),
    };
    let files = |archive_mode: &str| {
        vec![
            content("drive-scsi0.img.fidx", archive_mode),
            content("index.json.blob", "sign-only"),
            content("qemu-server.conf.blob", archive_mode),
            content("client.log.blob", "none"),
        ]
    };
    let judge = |snapshots: Vec<cpps_pbs::types::Snapshot>, verified: bool, encrypted: bool| {
        let mut inventory = store1_inventory(snapshots);
        inventory.sync_jobs[0].verified_only = Some(verified);
        inventory.sync_jobs[0].encrypted_only = Some(encrypted);
        let store1 = store1_report(&inventory).datastores[0].clone();
        (store1.sync.cross_site, store1.guests[0].off_site)
    };
    // The newest snapshot (2 h old) is not verified; the verified one is 30 h old.
    let mut unverified = vm100_snapshots();
    unverified.sort_by_key(|s| s.backup_time);
    unverified[1].verification = None;
    assert_eq!(
        judge(unverified.clone(), false, false),
        (CrossSiteSync::Ok, Some(true))
    );
    assert_eq!(
        judge(unverified, true, false),
        (CrossSiteSync::Partial, Some(false))
    );
    // Encrypted archives pass encrypted-only; plain ones do not; bare names cannot tell.
    let with_files = |mode: Option<&str>| {
        let mut snapshots = vm100_snapshots();
        for s in &mut snapshots {
            if let Some(mode) = mode {
                s.files = files(mode);
            }
        }
        snapshots
    };
    assert_eq!(
        judge(with_files(Some("encrypt")), true, true),
        (CrossSiteSync::Ok, Some(true))
    );
    assert_eq!(
        judge(with_files(Some("none")), false, true),
        (CrossSiteSync::Partial, Some(false))
    );
    assert_eq!(
        judge(with_files(None), false, true),
        (CrossSiteSync::CannotTell, None)
    );
}

/// G2 (audit 31): a push skips a group that another user owns on the target, with a warning,
/// and goes on (proxmox-backup `src/server/push.rs` `fetch_target_groups`, `push_group_do`:
/// "not owned by remote user … skipping upload", `Ok` for that group). Both sites number their
/// guests from 100, so the target may hold its own `vm/100`. A warning in a task makes it end
/// `WARNINGS: N` (proxmox-rs `proxmox-log/src/tasklog_layer.rs` counts each WARN and ERROR
/// event), so after a push that ended with warnings whether each group was copied cannot be
/// told from this side; one that ended `OK` skipped none.
#[test]
fn a_push_that_ended_with_warnings_may_have_skipped_a_group() {
    use cpps_pbs::checks::CrossSiteSync;
    use cpps_pbs::types::ExitStatus;
    let judge = |state: &str| {
        let mut inventory = store1_inventory(vm100_snapshots());
        inventory.sync_jobs[0].status.last_run_state = Some(ExitStatus::parse(state));
        let store1 = store1_report(&inventory).datastores[0].clone();
        (store1.sync.cross_site, store1.guests[0].off_site)
    };
    assert_eq!(judge("OK"), (CrossSiteSync::Ok, Some(true)));
    assert_eq!(judge("WARNINGS: 1"), (CrossSiteSync::CannotTell, None));
}

/// S1 (audit 31, third look): a push copies the snapshots a group holds when the run reaches
/// it (proxmox-backup `src/server/push.rs` `push_group` lists the source snapshots then), so
/// a snapshot taken after the run started is not shown to be in the copy. The fixture's push
/// started at `NOW - 1 h` (its UPID's start, `6B0BCD70`); vm/100's snapshot of `NOW - 2 h` is
/// copied; with only a snapshot of `NOW - 30 min` within the RPO, whether it went off-site
/// cannot be told (before, any push that ended recently counted, whatever it held).
#[test]
fn a_snapshot_taken_after_the_push_started_is_not_shown_off_site() {
    use cpps_pbs::checks::CrossSiteSync;
    let inventory = store1_inventory(vm100_snapshots());
    let store1 = store1_report(&inventory).datastores[0].clone();
    assert_eq!(
        (store1.sync.cross_site, store1.guests[0].off_site),
        (CrossSiteSync::Ok, Some(true))
    );
    let mut late = vm100_snapshots();
    late.retain(|s| s.backup_time == common::NOW - 2 * 3600);
    late[0].backup_time = common::NOW - 1800;
    let store1 = store1_report(&store1_inventory(late)).datastores[0].clone();
    assert_eq!(
        (store1.sync.cross_site, store1.guests[0].off_site),
        (CrossSiteSync::CannotTell, None)
    );
}

/// M4 (audit 31, fourth look): a `verified-only` push judges each snapshot's verification
/// when it runs (proxmox-backup `src/server/sync.rs` `exclude_not_verified_or_encrypted`,
/// from `src/server/push.rs` `push_group`) and skips the others silently. vm/100's newest
/// snapshot (`NOW - 2 h`) verified at `NOW - 1.5 h` (its verify UPID's start), before the push
/// started at `NOW - 1 h`: copied. Verified only at `NOW - 30 min`, after the push started,
/// it was not shown to be verified when the push looked: cannot tell.
#[test]
fn a_verification_after_a_verified_only_push_started_did_not_count_for_it() {
    use cpps_pbs::checks::CrossSiteSync;
    let judge = |snapshots: Vec<cpps_pbs::types::Snapshot>| {
        let mut inventory = store1_inventory(snapshots);
        inventory.sync_jobs[0].verified_only = Some(true);
        let store1 = store1_report(&inventory).datastores[0].clone();
        (store1.sync.cross_site, store1.guests[0].off_site)
    };
    let mut newest_only = vm100_snapshots();
    newest_only.retain(|s| s.backup_time == common::NOW - 2 * 3600);
    assert_eq!(judge(newest_only.clone()), (CrossSiteSync::Ok, Some(true)));
    let late = format!(
        "UPID:pbs-a:00000777:0000A1B2:0000000C:{:08X}:verificationjob:store1\\x3av\\x2dstore1:root@pam:",
        common::NOW - 1800
    );
    newest_only[0].verification.as_mut().unwrap().upid = late.parse().unwrap();
    assert_eq!(judge(newest_only), (CrossSiteSync::CannotTell, None));
}

/// The sync link states the fixtures do not hold, pinned by [`pin`]: a run going on (the
/// state and end absent, the task kept: pbs-api-types `src/jobs.rs` `JobScheduleStatus`), a
/// job that never ran, a success older than the RPO, a success without an end time, and a
/// remote in no known site; beside a newest snapshot with an unfinished one after it.
#[test]
fn every_sync_link_state_renders_as_pinned() {
    let mut jobs = common::load("sync_jobs.json")["data"].clone();
    let job = |i: usize, edit: &dyn Fn(&mut serde_json::Map<String, serde_json::Value>)| {
        let mut job = jobs[i].as_object().expect("a job").clone();
        job["store"] = "store1".into();
        edit(&mut job);
        serde_json::Value::Object(job)
    };
    let running = job(0, &|j| {
        j.remove("last-run-state");
        j.remove("last-run-endtime");
    });
    let never = job(0, &|j| {
        j["id"] = "s-never".into();
        j["remote"] = "pbs-c".into();
        for key in ["last-run-state", "last-run-endtime", "last-run-upid"] {
            j.remove(key);
        }
    });
    let stale = job(2, &|_| {});
    let no_end = job(1, &|j| {
        j["last-run-state"] = "OK".into();
        j.remove("last-run-endtime");
    });
    jobs = json!([running, never, stale, no_end]);
    let mut snapshots: Vec<cpps_pbs::types::Snapshot> = common::data("snapshots_store1.json");
    let mut abandoned = serde_json::to_value(&snapshots[0]).expect("a snapshot");
    abandoned["backup-time"] = (common::NOW - 60).into();
    abandoned["files"] = json!([{"filename": "root.pxar.didx", "crypt-mode": "none"}]);
    snapshots.push(serde_json::from_value(abandoned).expect("a snapshot"));
    let mut inventory = store1_inventory(snapshots);
    inventory.sync_jobs = serde_json::from_value(jobs).expect("sync jobs");
    inventory.sync_lists_complete = Some(true);
    let store1 = json!({"/datastore/store1": {"Datastore.Audit": true}});
    let store1 = serde_json::from_value(store1).expect("rights");
    inventory
        .store_rights
        .insert("/datastore/store1".to_owned(), Ok(store1));
    let report = store1_report(&inventory);
    pin("sync_link_states", None, &report);
    let unknown_sites =
        ReportOptions::new(Duration::from_secs(26 * 3600)).stores(vec!["store1".to_owned()]);
    let report = report::build(&inventory, common::NOW, &unknown_sites);
    pin("sync_link_states_sites_unknown", None, &report);
}

/// L4 (audit 31, third look): for a datastore on S3 (`backend-type: s3`, PBS 4.x),
/// `GET /status/datastore-usage` gives the file system of its local cache (proxmox-backup
/// `src/api2/status/mod.rs` `datastore_status`: `fs_info(datastore.base_path())` whatever
/// the backend): the report says so instead of calling it the datastore's capacity. M5 (audit
/// 31, fourth look): 4.0 and 4.1 have S3 datastores but say no `backend-type` (v4.0.11,
/// v4.1.0 `datastore_status`), so there it cannot be told; before 4.0 there is no S3.
#[tokio::test]
async fn an_s3_datastores_usage_is_said_to_be_its_local_caches() {
    let store1 = json!({"data": {"/datastore/store1": {"Datastore.Audit": true}}});
    let whole = json!({"data": {"/datastore": {"Datastore.Audit": true}}});
    let mut inventory = store1_rights_inventory(whole, store1).await;
    assert_eq!(
        inventory.release.as_ref().map(|r| (r.major, r.minor)),
        Some((4, 0))
    );
    let set_backend = |inventory: &mut Inventory, backend| {
        let usage = inventory.usage.iter_mut().find(|u| u.store == "store1");
        usage.unwrap().backend_type = backend;
    };
    // As 4.0 and 4.1 answer: no `backend-type`.
    set_backend(&mut inventory, None);
    let on_4_0 = store1_report(&inventory);
    assert_eq!(on_4_0.datastores[0].usage_of_local_cache, None);
    assert!(
        on_4_0.to_text().contains(
            "(its file system's; whether that is an S3 datastore's local cache is not said)"
        ),
        "{}",
        on_4_0.to_text()
    );
    inventory.release = Some(cpps_proxmox_family::ServerVersion::from_pbs("3.4", "1").unwrap());
    assert_eq!(
        store1_report(&inventory).datastores[0].usage_of_local_cache,
        Some(false)
    );
    set_backend(&mut inventory, Some(cpps_pbs::types::BackendType::S3));
    let report = store1_report(&inventory);
    assert_eq!(report.datastores[0].usage_of_local_cache, Some(true));
    let text = report.to_text();
    assert!(
        text.contains("datastore store1  local cache used "),
        "{text}"
    );
}
