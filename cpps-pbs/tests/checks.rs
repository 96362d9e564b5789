//! The derived backup checks over the fixtures (shaped as `pbs-apidoc.json` says; no fake PBS
//! server exists, see `common`), at the fixtures' "now".

mod common;

use std::time::Duration;

use common::data;
use cpps_pbs::checks::{
    self, CrossSiteSync, JobIssue, JobKind, Sites, datastore_sync, job_problems, newest_per_guest,
};
use cpps_pbs::types::{
    BackupType, GcStatus, PruneJob, Remote, Snapshot, SyncJob, VerifyJob, VerifyState,
};

const H: i64 = 3600;

fn rpo() -> Duration {
    checks::parse_duration("26h").unwrap()
}

#[test]
fn newest_snapshot_per_guest_with_age_verification_and_rpo() {
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let guests = newest_per_guest("store1", "", &snapshots, common::NOW, rpo());
    let ids: Vec<String> = guests
        .iter()
        .map(|g| format!("{}/{}", g.backup_type, g.backup_id))
        .collect();
    assert_eq!(ids, ["vm/100", "vm/101", "ct/200", "host/cfg-pbs-a"]);

    let vm100 = &guests[0];
    assert_eq!(vm100.snapshot_count, 2);
    assert_eq!(vm100.newest_time, common::NOW - 2 * H);
    assert_eq!(vm100.newest_age_secs, 2 * 3600);
    assert_eq!(vm100.newest_verification, Some(VerifyState::Ok));
    assert!(!vm100.rpo_breached && !vm100.verified_rpo_breached);

    // The newest snapshot failed verification; the newest good one is 50 h old.
    let vm101 = &guests[1];
    assert_eq!(vm101.newest_verification, Some(VerifyState::Failed));
    assert!(vm101.newest_verify_failed());
    assert_eq!(vm101.newest_verified_ok_time, Some(common::NOW - 50 * H));
    assert!(!vm101.rpo_breached);
    assert!(vm101.verified_rpo_breached);

    // 74 h old and never verified.
    let ct200 = &guests[2];
    assert_eq!(ct200.newest_age_secs, 74 * 3600);
    assert_eq!(ct200.newest_verification, None);
    assert!(ct200.rpo_breached && ct200.verified_rpo_breached);

    let host = &guests[3];
    assert_eq!(host.backup_type, BackupType::Host);
    assert!(!host.rpo_breached);

    // A looser RPO clears the breach.
    let loose = newest_per_guest(
        "store1",
        "",
        &snapshots,
        common::NOW,
        Duration::from_secs(80 * 3600),
    );
    assert!(loose.iter().all(|g| !g.rpo_breached));
}

#[test]
fn guest_ids_sort_numerically_and_future_times_count_as_fresh() {
    let mut snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    snapshots.truncate(1);
    let mut other = snapshots[0].clone();
    other.backup_id = "99".to_owned();
    other.backup_time = common::NOW + 600; // a PVE clock ahead of ours
    snapshots.push(other);
    let guests = newest_per_guest("store1", "", &snapshots, common::NOW, rpo());
    assert_eq!(guests[0].backup_id, "99");
    assert_eq!(guests[0].newest_age_secs, 0);
    assert_eq!(guests[1].backup_id, "100");
}

#[test]
fn cross_site_sync_per_datastore() {
    let jobs: Vec<SyncJob> = data("sync_jobs.json");
    let remotes: Vec<Remote> = data("remotes.json");
    let sites = Sites::new("site-a").with_remote("pbs-b", "site-b");

    let store1 = datastore_sync("store1", &jobs, &remotes, &sites, common::NOW, rpo());
    assert_eq!(store1.cross_site, CrossSiteSync::Ok);
    assert_eq!(store1.links.len(), 1);
    let link = &store1.links[0];
    assert_eq!(link.job_id, "s-push-b");
    assert_eq!(link.direction.as_str(), "push");
    assert_eq!(link.remote_host.as_deref(), Some("pbs-b.site-b.example"));
    assert_eq!(link.remote_site.as_deref(), Some("site-b"));
    assert_eq!(link.cross_site, Some(true));
    assert!(link.succeeded());

    // `offsite` only pulls from site B: it holds site B's copy, and its own backups do not
    // leave the site (issue 14, defect 8). Its failed pull is the incoming verdict.
    let offsite = datastore_sync("offsite", &jobs, &remotes, &sites, common::NOW, rpo());
    assert_eq!(offsite.cross_site, CrossSiteSync::PullOnly);
    assert_eq!(offsite.incoming, CrossSiteSync::Failed);
    assert!(!offsite.links[0].succeeded());

    let archive = datastore_sync("archive", &jobs, &remotes, &sites, common::NOW, rpo());
    assert_eq!(archive.cross_site, CrossSiteSync::SameSiteOnly);
    assert_eq!(archive.links[0].cross_site, Some(false));

    assert_eq!(
        datastore_sync("nosuch", &jobs, &remotes, &sites, common::NOW, rpo()).cross_site,
        CrossSiteSync::None
    );
    // Without knowing the sites, a sync to a remote proves nothing.
    assert_eq!(
        datastore_sync(
            "store1",
            &jobs,
            &remotes,
            &Sites::unknown(),
            common::NOW,
            rpo()
        )
        .cross_site,
        CrossSiteSync::SiteUnknown
    );
    // Remotes are found by host too; a remote in the same site is not an off-site copy.
    let by_host = Sites::new("site-a").with_remote("pbs-b.site-b.example", "site-b");
    assert_eq!(
        datastore_sync("store1", &jobs, &remotes, &by_host, common::NOW, rpo()).cross_site,
        CrossSiteSync::Ok
    );
    let same = Sites::new("site-a").with_remote("pbs-b", "site-a");
    assert_eq!(
        datastore_sync("store1", &jobs, &remotes, &same, common::NOW, rpo()).cross_site,
        CrossSiteSync::SameSiteOnly
    );
    // The remote list could not be read: the site is found by the remote's name.
    let by_name = datastore_sync("store1", &jobs, &[], &sites, common::NOW, rpo());
    assert_eq!(by_name.cross_site, CrossSiteSync::Ok);
    assert_eq!(by_name.links[0].remote_site.as_deref(), Some("site-b"));
    assert_eq!(
        datastore_sync("store1", &jobs, &[], &by_host, common::NOW, rpo()).cross_site,
        CrossSiteSync::SiteUnknown
    );
    // A job that never finished a run.
    let mut fresh = jobs.clone();
    fresh[0].status.last_run_state = None;
    assert_eq!(
        datastore_sync("store1", &fresh, &remotes, &sites, common::NOW, rpo()).cross_site,
        CrossSiteSync::NeverRun
    );
}

/// Issue 14, defect 8: direction and age. The direction of a sync job says whose backups move
/// (`sync-direction` in pbs-apidoc.json, PBS 4: `pull` copies the remote's backups here, `push`
/// copies this datastore's to the remote); before the fix a store that only pulled from the
/// other site counted as having an off-site copy, and a success older than the RPO still
/// counted as ok.
#[test]
fn the_cross_site_verdict_needs_a_push_to_the_other_site_within_the_rpo() {
    let jobs: Vec<SyncJob> = data("sync_jobs.json");
    let remotes: Vec<Remote> = data("remotes.json");
    let sites = Sites::new("site-a").with_remote("pbs-b", "site-b");

    // A pull from the other site that succeeded an hour ago: site B's backups are here, this
    // datastore's are not there.
    let mut pull_ok = jobs.clone();
    pull_ok[1].status.last_run_state = Some(cpps_pbs::types::ExitStatus::Ok);
    pull_ok[1].status.last_run_endtime = Some(common::NOW - 3600);
    let offsite = datastore_sync("offsite", &pull_ok, &remotes, &sites, common::NOW, rpo());
    assert_eq!(offsite.cross_site, CrossSiteSync::PullOnly);
    assert_eq!(offsite.incoming, CrossSiteSync::Ok);
    assert!(!offsite.cross_site.is_ok());

    // The push to site B last succeeded 30 hours ago, RPO 26 h: stale, not ok.
    let mut old = jobs.clone();
    old[0].status.last_run_endtime = Some(common::NOW - 30 * 3600);
    let store1 = datastore_sync("store1", &old, &remotes, &sites, common::NOW, rpo());
    assert_eq!(store1.cross_site, CrossSiteSync::Stale);
    assert!(store1.links[0].stale);
    assert_eq!(store1.links[0].last_run_age_secs, Some(30 * 3600));
    // The same job within a looser RPO is ok.
    let loose = Duration::from_secs(48 * 3600);
    assert_eq!(
        datastore_sync("store1", &old, &remotes, &sites, common::NOW, loose).cross_site,
        CrossSiteSync::Ok
    );
    // A success with no end time cannot be shown to be recent.
    let mut no_end = jobs.clone();
    no_end[0].status.last_run_endtime = None;
    assert_eq!(
        datastore_sync("store1", &no_end, &remotes, &sites, common::NOW, rpo()).cross_site,
        CrossSiteSync::Stale
    );
    // A direction a newer PBS adds proves nothing.
    let mut odd = jobs.clone();
    odd[0].sync_direction = Some(cpps_pbs::types::SyncDirection::Unknown("mirror".to_owned()));
    assert_eq!(
        datastore_sync("store1", &odd, &remotes, &sites, common::NOW, rpo()).cross_site,
        CrossSiteSync::DirectionUnknown
    );
}

/// Issue 14, defect 9: a verification state this client does not know (a newer PBS's value;
/// pbs-api-types `VerifyState` has `ok` and `failed` today) is not ok.
#[test]
fn an_unknown_verification_state_is_not_ok() {
    let mut snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    snapshots.retain(|s| s.backup_id == "100");
    let newest = snapshots.iter_mut().max_by_key(|s| s.backup_time).unwrap();
    newest.verification.as_mut().unwrap().state =
        VerifyState::Unknown("corrupt-chunks-pending".to_owned());
    let guests = newest_per_guest("store1", "", &snapshots, common::NOW, rpo());
    assert_eq!(guests.len(), 1);
    assert!(guests[0].newest_verify_unknown());
    assert!(!guests[0].newest_verified_ok());
    assert!(!guests[0].newest_verify_failed());
}

#[test]
fn failed_and_overdue_jobs() {
    let prune: Vec<PruneJob> = data("prune_jobs.json");
    let sync: Vec<SyncJob> = data("sync_jobs.json");
    let verify: Vec<VerifyJob> = data("verify_jobs.json");
    let gc: Vec<GcStatus> = data("gc_jobs.json");
    let problems = job_problems(
        &prune,
        &sync,
        &verify,
        &gc,
        common::NOW,
        Duration::from_secs(3600),
    );
    let summary: Vec<(JobKind, &str, bool)> = problems
        .iter()
        .map(|p| (p.kind, p.id.as_str(), p.is_failure()))
        .collect();
    // The disabled prune job `p-archive` is skipped although its last run failed; `s-push-b`
    // is due right now, which is not overdue.
    assert_eq!(
        summary,
        [
            (JobKind::Sync, "s-pull-b", true),
            (JobKind::Verify, "v-store1", true),
            (JobKind::GarbageCollection, "offsite", true),
            (JobKind::Prune, "p-offsite", false),
        ]
    );
    let JobIssue::Failed {
        state,
        upid,
        endtime,
    } = &problems[1].issue
    else {
        panic!("v-store1 failed");
    };
    assert_eq!(
        state.to_string(),
        "verification failed - please check the log for details"
    );
    assert_eq!(upid.as_ref().unwrap().worker_type(), "verificationjob");
    assert_eq!(*endtime, Some(common::NOW - 17 * H + 900));
    assert_eq!(
        problems[3].issue,
        JobIssue::Overdue {
            next_run: common::NOW - 5 * H,
            late_by_secs: 5 * 3600
        }
    );
    // Six hours of grace: the prune job is no longer overdue.
    let lenient = job_problems(
        &prune,
        &sync,
        &verify,
        &gc,
        common::NOW,
        Duration::from_secs(6 * 3600),
    );
    assert!(lenient.iter().all(|p| p.is_failure()));
}

/// A snapshot whose manifest exists but cannot be loaded is listed with its files, the
/// manifest among them, by name only, and with no `size` (proxmox-backup `src/tools/mod.rs`
/// v4.2.0 `backup_info_to_snapshot_list_item`, the `Err` arm; `src/api2/admin/datastore.rs`
/// `list_snapshots_blocking` in 3.x); the `Ok` arm always sends `size`. A sync skips such a
/// snapshot as an in-progress backup (`src/server/sync.rs` `filter_out_in_progress`:
/// `item.size.is_none()`), so it is not a finished backup.
#[test]
fn a_snapshot_whose_manifest_cannot_be_loaded_is_unfinished() {
    let unreadable: Snapshot = serde_json::from_value(serde_json::json!({
        "backup-type": "vm", "backup-id": "100", "backup-time": common::NOW - 600,
        "files": [{"filename": "drive-scsi0.img.fidx"}, {"filename": "index.json.blob"},
                  {"filename": "qemu-server.conf.blob"}],
        "protected": false, "owner": "backup@pbs!pve-a"
    }))
    .unwrap();
    assert!(!unreadable.is_finished());
    let mut snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    snapshots.push(unreadable);
    let guests = newest_per_guest("store1", "", &snapshots, common::NOW, rpo());
    assert_eq!(guests[0].backup_id, "100");
    assert_eq!(guests[0].newest_time, common::NOW - 2 * H);
    assert_eq!(guests[0].unfinished_count, 1);
}

/// N5: `GET /admin/datastore/{store}/snapshots` lists unfinished snapshots too (proxmox-backup
/// `src/api2/admin/datastore.rs` `list_snapshots_blocking`). A snapshot without its manifest
/// `index.json.blob` is unfinished (`pbs-datastore/src/backup_info.rs` `is_finished`); its
/// manifest cannot be read, so the server lists its files by name with no `size` and no
/// `verification` (the `Err` arm of `info_to_snapshot_list_item`). A running or abandoned
/// backup must not satisfy the RPO, nor be planned for a verify.
#[test]
fn an_unfinished_snapshot_is_not_the_newest_backup() {
    let mut snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    // vm/100's newest finished snapshot is 2 h old; add a running one from 10 minutes ago,
    // shaped as the server's `Err` arm writes it.
    let running: Snapshot = serde_json::from_value(serde_json::json!({
        "backup-type": "vm", "backup-id": "100", "backup-time": common::NOW - 600,
        "files": [{"filename": "drive-scsi0.img.fidx"}, {"filename": "qemu-server.conf.blob"}],
        "protected": false, "owner": "backup@pbs!pve-a"
    }))
    .unwrap();
    assert!(!running.is_finished());
    assert!(snapshots[0].is_finished());
    snapshots.push(running);
    // ct/300 has only an abandoned snapshot.
    let abandoned: Snapshot = serde_json::from_value(serde_json::json!({
        "backup-type": "ct", "backup-id": "300", "backup-time": common::NOW - 3600,
        "files": ["root.pxar.didx"], "protected": false
    }))
    .unwrap();
    snapshots.push(abandoned);
    let guests = newest_per_guest("store1", "", &snapshots, common::NOW, rpo());
    let vm100 = &guests[0];
    assert_eq!(vm100.backup_id, "100");
    assert_eq!(vm100.newest_time, common::NOW - 2 * H);
    assert_eq!(vm100.newest_verification, Some(VerifyState::Ok));
    assert_eq!(vm100.snapshot_count, 2);
    assert_eq!(vm100.unfinished_count, 1);
    // No finished snapshot: no backup, so no entry (and nothing to verify).
    assert!(guests.iter().all(|g| g.backup_id != "300"));
}

/// N10: while a job runs, PBS's job state is `Started { upid }` and proxmox-backup
/// `src/server/jobstate.rs` `compute_schedule_status` answers `last-run-upid` with no
/// `last-run-state` and no `last-run-endtime` (the previous run's result is not kept), and
/// computes `next-run` from the start. A long push that runs now is neither "never ran" nor
/// overdue.
#[test]
fn a_running_sync_job_is_running_not_never_run() {
    let mut jobs: Vec<SyncJob> = data("sync_jobs.json");
    jobs.truncate(1);
    let job: SyncJob = serde_json::from_value(serde_json::json!({
        "id": "s-push-b", "store": "store1", "remote": "pbs-b", "remote-store": "from-site-a",
        "sync-direction": "push", "schedule": "hourly",
        // Started six hours before the fixtures' now (0x6B0B8720), still running.
        "last-run-upid": "UPID:pbs-a:00000901:0000A1B2:0000001F:6B0B8720:syncjob:pbs\\x2db\\x3afrom\\x2dsite\\x2da\\x3astore1\\x3a\\x3as\\x2dpush\\x2db:root@pam:",
        "next-run": common::NOW - 5 * H
    }))
    .unwrap();
    assert!(job.status.is_running());
    assert_eq!(job.status.running_since(), Some(common::NOW - 6 * H));
    jobs[0] = job;
    let remotes: Vec<Remote> = data("remotes.json");
    let sites = Sites::new("site-a").with_remote("pbs-b", "site-b");
    let store1 = datastore_sync("store1", &jobs, &remotes, &sites, common::NOW, rpo());
    assert_eq!(store1.cross_site, CrossSiteSync::Running);
    assert_eq!(store1.links[0].running_since, Some(common::NOW - 6 * H));
    let problems = job_problems(&[], &jobs, &[], &[], common::NOW, Duration::from_secs(3600));
    assert!(problems.is_empty(), "{problems:?}");
}

/// N6: the namespace scope of a sync job: `ns` and the namespaces below it, down to
/// `max-depth` levels (0: `ns` alone; none: every level), as pbs-api-types `src/jobs.rs`
/// `SyncJobConfig` documents `max-depth` ("0 == no recursion, empty == automatic full
/// recursion").
#[test]
fn a_sync_job_scope_follows_its_namespace_and_depth() {
    let mut job: SyncJob = data::<Vec<SyncJob>>("sync_jobs.json").remove(0);
    job.ns = Some("site-a".to_owned());
    let vm = BackupType::Vm;
    assert_eq!(job.scope_includes("site-a", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("site-a/lab/gpu", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("", &vm, "100"), Some(false));
    assert_eq!(job.scope_includes("site-ab", &vm, "100"), Some(false));
    job.max_depth = Some(1);
    assert_eq!(job.scope_includes("site-a/lab", &vm, "100"), Some(true));
    assert_eq!(
        job.scope_includes("site-a/lab/gpu", &vm, "100"),
        Some(false)
    );
    job.max_depth = Some(0);
    assert_eq!(job.scope_includes("site-a/lab", &vm, "100"), Some(false));
    job.group_filter = vec![
        "include:type:vm".to_owned(),
        "exclude:group:vm/101".to_owned(),
    ];
    assert_eq!(job.scope_includes("site-a", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("site-a", &vm, "101"), Some(false));
    assert_eq!(
        job.scope_includes("site-a", &BackupType::Ct, "200"),
        Some(false)
    );
    job.group_filter = vec!["mirror:vm".to_owned()];
    assert_eq!(job.scope_includes("site-a", &vm, "100"), None);
}

/// Regex group filters, as proxmox-backup evaluates them: pbs-api-types `src/jobs.rs`
/// `FilterType::from_str` compiles `regex:RE` with the `regex` crate, and
/// `src/datastore.rs` `BackupGroup::matches` calls `regex.is_match(&self.to_string())` on
/// `type/id`: unanchored, so `vm/1` matches `vm/100`. A regex the server would refuse to
/// compile cannot be judged here.
#[test]
fn a_sync_job_regex_filter_is_matched_on_type_slash_id_unanchored() {
    let mut job: SyncJob = data::<Vec<SyncJob>>("sync_jobs.json").remove(0);
    let vm = BackupType::Vm;
    job.group_filter = vec!["regex:^vm/1\\d\\d$".to_owned()];
    assert_eq!(job.scope_includes("", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("", &vm, "200"), Some(false));
    assert_eq!(job.scope_includes("", &BackupType::Ct, "100"), Some(false));
    // Unanchored: `vm/1` is found inside `vm/100` and `ct/vm/1` never exists.
    job.group_filter = vec!["include:regex:vm/1".to_owned()];
    assert_eq!(job.scope_includes("", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("", &vm, "21"), Some(false));
    // An exclude regex removes what the include admitted.
    job.group_filter = vec![
        "type:vm".to_owned(),
        "exclude:regex:^vm/9[0-9]+$".to_owned(),
    ];
    assert_eq!(job.scope_includes("", &vm, "100"), Some(true));
    assert_eq!(job.scope_includes("", &vm, "900"), Some(false));
    // A regex the server could not compile: not judged.
    job.group_filter = vec!["regex:vm/(".to_owned()];
    assert_eq!(job.scope_includes("", &vm, "100"), None);
}

/// E7: proxmox-backup `src/api2/admin/datastore.rs` `garbage_collection_status` counts the
/// next run from now when GC never ran (`let mut last = epoch_i64()`), and `gc-schedule` is
/// optional, so neither reads as overdue; `src/api2/admin/gc.rs` `list_all_gc_jobs` drops a
/// datastore whose status fails (`filter_map(|store| garbage_collection_status(..).ok())`).
/// Each is a warning: no schedule, never ran, or not in the list (cannot tell).
#[test]
fn gc_without_schedule_never_run_or_unlisted_is_a_warning() {
    let mut gc: Vec<GcStatus> = data("gc_jobs.json");
    gc[1].schedule = None;
    gc[1].last_run_state = None;
    gc[1].last_run_endtime = None;
    let stores = ["store1", "offsite", "archive"].map(str::to_owned);
    assert_eq!(
        checks::gc_warnings(&stores, &gc),
        [
            "datastore offsite has no garbage-collection schedule",
            "datastore offsite was never garbage-collected",
            "cannot tell the garbage collection of datastore archive: GET /admin/gc leaves it out (a datastore whose GC status fails is dropped from the list)",
        ]
    );
}

/// E7 leftover (audit 31): proxmox-backup `src/api2/admin/datastore.rs`
/// `garbage_collection_status` answers the `upid` of the last GC that finished (the
/// in-memory/`.gc-status` status, which pbs-datastore `src/datastore.rs`
/// `DataStore::garbage_collection` stores only at the end of a run) and takes
/// `last-run-state`/`last-run-endtime` from the job state file (`src/server/jobstate.rs`
/// `compute_schedule_status`): a GC that never ran has neither `upid` nor state; a `upid`
/// without a state is a GC that runs now (the file says `Started`) or a state file that could
/// not be read (`JobState::load(..).ok()`). That GC did run once, and when it last ended
/// cannot be told: a warning, never silence.
#[test]
fn a_gc_task_without_a_state_is_running_or_unreadable_not_silent() {
    let mut gc: Vec<GcStatus> = data("gc_jobs.json");
    assert!(gc[0].counters.upid.is_some());
    gc[0].last_run_state = None;
    gc[0].last_run_endtime = None;
    gc[0].duration = None;
    // Never ran: no task of a finished run at all.
    gc[1].counters.upid = None;
    gc[1].last_run_state = None;
    gc[1].last_run_endtime = None;
    let stores = ["store1", "offsite"].map(str::to_owned);
    assert_eq!(
        checks::gc_warnings(&stores, &gc),
        [
            "cannot tell when datastore store1 was last garbage-collected: a garbage collection runs now, or its job state could not be read (GET /admin/gc names a finished run's task but no state or end)",
            "datastore offsite was never garbage-collected",
        ]
    );
}
