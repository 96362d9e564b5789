//! The backup chain per guest across both sites (`cpps_pbs::chain`), judged from answers
//! shaped as the servers write them: the PBS snapshot and group lists are the fixtures of
//! `tests/fixtures/` (proxmox-backup `src/api2/admin/datastore.rs` `list_snapshots_blocking`,
//! `list_groups`; the remote scan, `src/api2/config/remote.rs` `scan_remote_groups`, forwards
//! the remote's `list_groups` answer unchanged).

mod common;

use std::time::Duration;

use common::{NOW, data};
use cpps_pbs::chain::{
    ChainGuest, ChainInput, ChainJob, CopyGroup, GuestOutcome, LastRun, PbsTarget, RunLog,
    SiteBackups, SiteCopies, Verdict, VzdumpRun, judge,
};
use cpps_pbs::checks::newest_per_guest;
use cpps_pbs::types::{BackupGroup, BackupType, ExitStatus, Snapshot};

const H: i64 = 3600;

fn rpo() -> Duration {
    Duration::from_secs(26 * 3600)
}

/// The estate of the fixtures: guests 100 and 101 (VMs), 200 (a container) in a job to the
/// PBS storage `pbs-franca`, and 300 only in a disabled job to local storage.
fn input() -> ChainInput {
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let mut input = ChainInput::default();
    input.guests = vec![
        ChainGuest::new(100, BackupType::Vm)
            .name("gitlab")
            .node("pve1"),
        ChainGuest::new(101, BackupType::Vm)
            .name("build-runner")
            .node("pve2"),
        ChainGuest::new(200, BackupType::Ct)
            .name("dns1")
            .node("pve1"),
        ChainGuest::new(300, BackupType::Vm)
            .name("scratch")
            .node("pve2"),
    ];
    input.targets = vec![PbsTarget::new("pbs-franca", "store1", "").encrypted(true)];
    input.targets_complete = true;
    input.jobs = vec![
        ChainJob::new(
            "backup-5f1a",
            true,
            Some("pbs-franca".to_owned()),
            vec![100, 101, 200],
        ),
        ChainJob::new(
            "backup-old",
            false,
            Some("local".to_owned()),
            vec![100, 101, 200, 300],
        ),
    ];
    // pve-manager `PVE/API2/VZDump.pm`: a task for several guests of a node has no id; one for
    // a single guest is named after it.
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - 3 * H).ended(NOW - 2 * H, ExitStatus::parse("OK")),
        VzdumpRun::new("pve2", Some(101), NOW - 4 * H)
            .ended(NOW - 4 * H + 60, ExitStatus::parse("job errors"))
            .log(pbs_failure(101)),
    ]);
    input.here = vec![SiteBackups::new(
        "store1",
        "",
        Ok(newest_per_guest("store1", "", &snapshots, NOW, rpo())),
    )];
    // The other site's copy, read as its finished snapshots, written by a sync that writes
    // as the fixture's owner (`a_group_of_the_same_id_owned_by_another_is_not_the_copy`).
    input.there = vec![SiteCopies::new(
        "store1",
        "",
        "site-b",
        Ok(CopyGroup::from_backups(
            &newest_per_guest("store1", "", &snapshots, NOW, rpo()),
            &[writer()],
        )),
        true,
    )];
    input
}

/// The owner of the fixtures' guest groups (`snapshots_store1.json`, `groups_store1.json`).
fn writer() -> cpps_pbs::types::AuthId {
    "backup@pbs!pve-a".parse().unwrap()
}

fn find(chains: &[cpps_pbs::chain::GuestChain], vmid: u32) -> &cpps_pbs::chain::GuestChain {
    chains.iter().find(|c| c.vmid == vmid).unwrap()
}

#[test]
fn each_guest_gets_one_verdict_over_the_whole_chain() {
    let chains = judge(&input(), NOW, rpo());
    assert_eq!(chains.len(), 4);
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
    assert_eq!(gitlab.backed_up, Some(NOW - 2 * H));
    assert_eq!(gitlab.verified, Some(NOW - 2 * H));
    assert_eq!(gitlab.copied, Some(NOW - 2 * H));
    assert_eq!(gitlab.storage.as_deref(), Some("pbs-franca"));
    assert_eq!(gitlab.encrypted, Some(true));
    assert!(matches!(gitlab.last_run, LastRun::Shared { start, .. } if start == NOW - 3 * H));
    assert!(
        gitlab.to_string().contains("copied to site-b at"),
        "{gitlab}"
    );

    // 101: the newest snapshot failed verification, the last verified one is 50 h old, and
    // its own vzdump task failed.
    let runner = find(&chains, 101);
    assert_eq!(runner.verdict, Verdict::Breach);
    assert_eq!(runner.verified, Some(NOW - 50 * H));
    assert!(
        matches!(&runner.last_run, LastRun::Ended { success: false, status, .. } if status == "job errors")
    );
    assert_eq!(runner.reasons.len(), 3, "{:?}", runner.reasons);

    // 200: 74 h old here and there, never verified.
    let dns = find(&chains, 200);
    assert_eq!(dns.verdict, Verdict::Breach);
    assert_eq!(dns.backed_up, Some(NOW - 74 * H));
    assert_eq!(dns.verified, None);
    assert!(dns.reasons.iter().any(|r| r.contains("older than the RPO")));
    assert!(
        dns.reasons
            .iter()
            .any(|r| r.contains("newest copy on site-b"))
    );

    // 300: only a disabled job to local storage names it.
    let scratch = find(&chains, 300);
    assert_eq!(scratch.verdict, Verdict::Breach);
    assert_eq!(
        scratch.reasons,
        ["no enabled vzdump job to a PBS storage of this report includes it"]
    );
    assert!(scratch.jobs.is_empty() && scratch.storage.is_none());
}

/// K2, the owner part (audit 31, second look): the storage writes as its `username`
/// (pve-storage `src/PVE/Storage/PBSPlugin.pm`), and a group is owned by the auth-id that
/// created it, which alone adds snapshots (proxmox-backup `src/api2/backup/mod.rs`, "backup
/// owner check failed"). The fixtures' groups are owned by `backup@pbs!pve-a`: written as
/// that, gitlab is ok; written as another user, its `vm/100` there is someone else's.
#[test]
fn a_group_owned_by_another_than_the_storages_user_is_not_its_backup() {
    let mut mine = input();
    mine.targets[0] = mine.targets[0].clone().username(Some(writer().to_string()));
    assert_eq!(find(&judge(&mine, NOW, rpo()), 100).verdict, Verdict::Ok);
    let mut other = input();
    other.targets[0] = other.targets[0]
        .clone()
        .username(Some("pve-b@pbs".to_owned()));
    let chains = judge(&other, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::Breach);
    assert_eq!(gitlab.backed_up, None);
    assert!(
        gitlab.reasons.contains(
            &"its vm/100 in datastore store1 is owned by backup@pbs!pve-a, not by pve-b@pbs, as which storage pbs-franca writes".to_owned()
        ),
        "{:?}",
        gitlab.reasons
    );
}

/// proxmox-backup `list_snapshots_blocking` lists running and abandoned backups too
/// (`backup_info.rs` `is_finished`: no manifest). A backup of 200 taken an hour ago and not
/// finished is no backup: 200 still breaches.
#[test]
fn a_running_backup_is_no_link_of_the_chain() {
    let mut snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let mut running = snapshots
        .iter()
        .find(|s| s.backup_id == "200")
        .unwrap()
        .clone();
    running.backup_time = NOW - H;
    running.files.clear();
    running.verification = None;
    snapshots.push(running);
    let mut input = input();
    input.here[0].backups = Ok(newest_per_guest("store1", "", &snapshots, NOW, rpo()));
    let chains = judge(&input, NOW, rpo());
    let dns = find(&chains, 200);
    assert_eq!(dns.backed_up, Some(NOW - 74 * H));
    assert_eq!(dns.verdict, Verdict::Breach);
}

/// What could not be read is "cannot tell", never ok: a storage list filtered by
/// `Datastore.Audit` (pve-storage `PVE/API2/Storage/Config.pm` `index`), a remote scan that
/// lists only what the remote's credentials own or may audit (`list_groups`), an unreadable
/// datastore, and task lists that did not answer.
#[test]
fn what_was_not_read_or_was_filtered_is_cannot_tell() {
    let mut input = input();
    input.targets_complete = false;
    input
        .guests
        .push(ChainGuest::new(201, BackupType::Ct).node("pve2"));
    input.jobs.push(ChainJob::new(
        "backup-hidden",
        true,
        Some("pbs-other".to_owned()),
        vec![201],
    ));
    input.runs = Err("403 Permission check failed".to_owned());
    if let Ok(groups) = &mut input.there[0].groups {
        groups.retain(|g| g.backup_id != "100");
    }
    input.there[0].complete = false;
    // 100 is also in a job to a storage the list does not show: its PBS job decides.
    input.jobs.push(ChainJob::new(
        "backup-usb",
        true,
        Some("usb-disk".to_owned()),
        vec![100],
    ));
    let chains = judge(&input, NOW, rpo());
    let hidden = find(&chains, 201);
    assert_eq!(hidden.verdict, Verdict::CannotTell, "{hidden}");
    assert!(hidden.reasons[0].contains("pbs-other"));
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(gitlab.last_run, LastRun::CannotTell);
    assert_eq!(gitlab.copied, None);
    assert!(gitlab.reasons.iter().any(|r| r.contains("may list")));
    // A breach stays a breach beside what cannot be told.
    assert_eq!(find(&chains, 200).verdict, Verdict::Breach);

    input.here[0].backups = Err("datastore 'store1' is not mounted".to_owned());
    input.there.clear();
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell);
    assert_eq!(gitlab.backed_up, None);
    assert!(gitlab.reasons.iter().any(|r| r.contains("not mounted")));
}

/// A copy missing from a list known to be whole is a breach; a copy older than the RPO too.
#[test]
fn a_missing_or_old_copy_on_the_other_site_breaches() {
    let mut input = input();
    if let Ok(groups) = &mut input.there[0].groups {
        groups.retain(|g| g.backup_id != "100");
    }
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::Breach);
    assert_eq!(gitlab.reasons, ["no copy on site-b"]);
    assert!(gitlab.to_string().contains("no copy seen on site-b"));
}

/// The copy seen from this site: `GET /config/remote/{name}/scan/{store}/groups` with
/// `namespace` (proxmox-backup `src/api2/config/remote.rs` `scan_remote_groups`, which
/// answers the remote's own `list_groups` list, here `groups_store1.json`), and the 403 of a
/// token without `Remote.Audit` on `/remote/{name}` (its `access` permission).
#[tokio::test]
async fn the_other_sites_groups_are_read_through_the_remote_scan() {
    let api = common::mock_api().await;
    common::serve_fixture(
        &api,
        "/config/remote/pbs-b/scan/from-site-a/groups",
        &[("namespace", "site-a")],
        "groups_store1.json",
    )
    .await;
    common::serve_permission_denied(&api, "/config/remote/pbs-c/scan/from-site-a/groups").await;
    let pbs = common::token_client(&api);
    let groups = pbs
        .remote_groups("pbs-b", "from-site-a", Some("site-a"))
        .await
        .unwrap();
    let copies = CopyGroup::from_groups(&groups, &[writer()]);
    assert_eq!(copies.len(), 4);
    assert_eq!(copies[0].backup_id, "100");
    assert_eq!(copies[0].newest, NOW - 2 * H);
    assert!(copies[0].finished);
    assert_eq!(copies[0].is_copy, Some(true));
    // `host/cfg-pbs-a` is root@pam's: not written by that sync.
    assert_eq!(copies[3].is_copy, Some(false));
    let denied = pbs
        .remote_groups("pbs-c", "from-site-a", None)
        .await
        .unwrap_err();
    assert_eq!(denied.status(), Some(cpps_http::StatusCode::FORBIDDEN));
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Issue 31 (`pbs-report --chain --copy` could never be ok): a group list's `files` are those
/// of its `last-backup` snapshot (proxmox-backup `src/api2/admin/datastore.rs` `list_groups`:
/// `files: last_backup.files`), and a snapshot is finished when its manifest is among them
/// (`pbs-datastore/src/backup_info.rs` `is_finished`). `groups_store1.json` lists the manifest
/// in each group, so the copy of 100 is copied. The fold of `list_groups` may end on a snapshot
/// still being written (no manifest, here a transfer that has sent only the config): that one
/// is no copy, and within the RPO it is cannot tell, since an older finished one is not listed.
#[test]
fn a_group_lists_last_backup_is_finished_when_its_manifest_is_listed() {
    let mut groups: Vec<BackupGroup> = data("groups_store1.json");
    let mut input = input();
    let there = |groups: &[BackupGroup]| {
        vec![SiteCopies::new(
            "store1",
            "",
            "site-b",
            Ok(CopyGroup::from_groups(groups, &[writer()])),
            true,
        )]
    };
    input.there = there(&groups);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
    assert_eq!(gitlab.copied, Some(NOW - 2 * H));

    groups[0].files = vec!["qemu-server.conf.blob".to_owned()];
    input.there = there(&groups);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(gitlab.copied, None);
    assert_eq!(
        gitlab.reasons,
        [format!(
            "cannot tell whether the newest copy on site-b ({}) finished: a group list's last backup may be a snapshot still being written",
            jiff::Timestamp::from_second(NOW - 2 * 3600).unwrap()
        )]
    );
}

/// D8: without `Sys.Audit` on `/nodes/{node}`, PVE lists only the caller's own tasks
/// (pve-manager `PVE/API2/Tasks.pm` `node_tasks`: `$filter_task` skips a task unless
/// `$auditor || $check_task_user->($task, $user)`), and scheduled backups run as `root@pam`.
/// An empty task list from such a token is no proof that no backup ran or failed: a guest in a
/// PBS job with no task seen is "cannot tell", until the caller says the lists are whole.
#[test]
fn a_task_list_that_may_be_filtered_does_not_hide_a_failed_backup() {
    let mut input = input();
    input.runs = Ok(Vec::new());
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.last_run, LastRun::NotSeen);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [
            "no vzdump task of it was seen, and the task lists may leave out other users' tasks (Sys.Audit on /nodes/<node> not known to be held)"
        ]
    );
    // 300 is in no PBS job: its breach says so, and no task is expected of it.
    let scratch = find(&chains, 300);
    assert_eq!(
        scratch.reasons,
        ["no enabled vzdump job to a PBS storage of this report includes it"]
    );
    // With the lists known to be whole, no task seen is what it says.
    input.runs_complete = true;
    let chains = judge(&input, NOW, rpo());
    assert_eq!(find(&chains, 100).verdict, Verdict::Ok);
}

/// E1: pve-manager `PVE/API2/VZDump.pm` `vzdump` names the task after the guest only when it
/// backs up one guest of the node (`$taskid = $local_vmids->[0] if scalar(@$local_vmids) ==
/// 1`); the nightly job backs up several in one task with no id. The last run is the newest
/// relevant task by its end (a start is not a finish), shared or own: an old failed manual
/// backup does not outlive the nightly runs that ended OK after it.
#[test]
fn the_last_run_is_the_newest_to_end_shared_or_own() {
    let mut input = input();
    input.runs = Ok(vec![
        // A manual backup of 100 two days ago that failed.
        VzdumpRun::new("pve1", Some(100), NOW - 48 * H).ended(
            NOW - 48 * H + 60,
            ExitStatus::parse("interrupted by signal"),
        ),
        // The nightly run of pve1's guests, started before a manual one of 100 and ended
        // after it.
        VzdumpRun::new("pve1", None, NOW - 6 * H).ended(NOW - 2 * H, ExitStatus::parse("OK")),
        VzdumpRun::new("pve1", Some(100), NOW - 5 * H)
            .ended(NOW - 4 * H, ExitStatus::parse("job errors")),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(
        gitlab.last_run,
        LastRun::Shared {
            start: NOW - 6 * H,
            end: NOW - 2 * H,
            status: "OK".to_owned(),
            success: true,
        }
    );
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
}

/// E1: a failed run for several guests (`job errors`, pve-manager `PVE/VZDump.pm` `exec_backup`
/// ends the task so when any guest failed) is a finding for the guests of its node in a PBS
/// job, unless a snapshot taken by that run is here: the run's log alone would say whom it
/// failed.
#[test]
fn a_failed_shared_run_is_a_finding_for_its_nodes_guests() {
    let mut input = input();
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - H).ended(NOW - H / 2, ExitStatus::parse("job errors")),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [format!(
            "the last vzdump task for several guests of its node failed at {}: job errors, and no snapshot of it taken by that run is here",
            jiff::Timestamp::from_second(NOW - H / 2).unwrap()
        )]
    );
    // A snapshot taken by that run is here: that guest's part succeeded.
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - 3 * H).ended(NOW - H, ExitStatus::parse("job errors")),
    ]);
    let chains = judge(&input, NOW, rpo());
    assert_eq!(find(&chains, 100).verdict, Verdict::Ok);
}

/// E4: with `Datastore.Backup` but not `Datastore.Audit`, PBS lists only the groups the
/// credentials own (proxmox-backup `src/api2/admin/datastore.rs` `list_snapshots_blocking`:
/// `list_all = !check_ns_privs_full(.., PRIV_DATASTORE_AUDIT, PRIV_DATASTORE_BACKUP)`, then
/// `if !list_all && check_backup_owner(..).is_err()` skips the group), and vzdump writes as
/// PVE's own PBS user. A guest with no snapshot in such a list is "cannot tell".
#[test]
fn a_guest_missing_from_an_owner_trimmed_list_is_cannot_tell() {
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let owned: Vec<Snapshot> = snapshots
        .into_iter()
        .filter(|s| s.backup_id != "100")
        .collect();
    let mut input = input();
    input.here = vec![
        SiteBackups::new(
            "store1",
            "",
            Ok(newest_per_guest("store1", "", &owned, NOW, rpo())),
        )
        .trimmed("Datastore.Backup without Datastore.Audit lists only the owned groups"),
    ];
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [
            "no snapshot of vm/100 is listed in datastore store1, and the list may leave it out: Datastore.Backup without Datastore.Audit lists only the owned groups"
        ]
    );
}

/// S5: one node's task list failing (an offline node answers 595: pve-manager
/// `PVE/API2/Tasks.pm` `node_tasks` is `proxyto => 'node'`) leaves the other nodes' runs
/// standing. Only pve2's guests, a guest whose node is not known, and a guest in a job whose
/// run was seen nowhere (it may have left pve2) are "cannot tell".
#[test]
fn an_unread_node_leaves_only_its_guests_last_run_unknown() {
    let mut input = input();
    input.runs_unread = vec![("pve2".to_owned(), "595 No route to host".to_owned())];
    if let Ok(runs) = &mut input.runs {
        runs.retain(|r| r.node != "pve2");
    }
    input.guests.push(ChainGuest::new(102, BackupType::Vm));
    let chains = judge(&input, NOW, rpo());
    assert!(matches!(
        find(&chains, 100).last_run,
        LastRun::Shared { .. }
    ));
    // pve1's shared run ended OK but took no snapshot of 200 (74 h old): not 200's run (F5).
    // No run of 200 was seen, and 200 may have come from pve2 (an HA recovery), whose list
    // holds its runs from before: "cannot tell".
    let ct = find(&chains, 200);
    assert_eq!(ct.last_run, LastRun::NotSeen);
    assert!(
        ct.reasons.iter().any(|r| r
            == "no vzdump task of it was seen, and the task lists of pve2 were not read: a guest moved from one keeps its last run there"),
        "{ct}"
    );
    let runner = find(&chains, 101);
    assert_eq!(runner.last_run, LastRun::CannotTell);
    assert!(
        runner
            .reasons
            .iter()
            .any(|r| r == "the vzdump tasks of node pve2 could not be read: 595 No route to host"),
        "{runner}"
    );
    assert_eq!(find(&chains, 102).last_run, LastRun::CannotTell);
}

/// E2: an enabled pool job whose members the credentials may not see may back 300 up
/// (pve-manager `PVE/VZDump.pm` `get_included_guests` reads the pool from `user.cfg`), so 300
/// is "cannot tell"; the same job disabled leaves the breach.
#[test]
fn a_job_that_may_include_a_guest_leaves_no_job_untold() {
    let mut input = input();
    let why = "no guest listed shows pool prod (PVE hides it without Pool.Audit on /pool/prod)";
    input.jobs.push(
        ChainJob::new(
            "backup-prod",
            true,
            Some("pbs-franca".to_owned()),
            Vec::new(),
        )
        .unsure(vec![(300, why.to_owned())]),
    );
    let chains = judge(&input, NOW, rpo());
    let scratch = find(&chains, 300);
    assert_eq!(scratch.verdict, Verdict::CannotTell, "{scratch}");
    assert_eq!(
        scratch.reasons,
        [format!("job backup-prod may include it: {why}")]
    );
    input.jobs.last_mut().unwrap().enabled = false;
    assert_eq!(
        find(&judge(&input, NOW, rpo()), 300).verdict,
        Verdict::Breach
    );
}

/// F3 (audit 31): a PVE storage names its PBS by "Server IP or DNS name" (pve-storage
/// `src/PVE/Storage/Plugin.pm`, the `server` option) and its `fingerprint` is optional, for
/// servers with a trusted certificate (`src/PVE/Storage/PBSPlugin.pm` `options`). So
/// storage.cfg's `10.0.0.5` and the endpoints' `pbs-franca.lan`, with no fingerprint on one
/// side, may be the same server: the target is kept and its guests are "cannot tell", never
/// the BREACH "no job includes it". Differing fingerprints prove another server; equal
/// fingerprints under other names prove the same one.
#[test]
fn a_host_name_mismatch_without_fingerprints_is_cannot_tell() {
    use cpps_pbs::chain::{PbsAddress, PbsSide};
    const FP_A: &str = "ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89";
    const FP_B: &str = "01:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89:ab:cd:ef:01:23:45:67:89";
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let mut side = PbsSide::new(true);
    side.address = Some(PbsAddress::new("pbs-franca.lan", 8007));
    side.backups = vec![SiteBackups::new(
        "store1",
        "",
        Ok(newest_per_guest("store1", "", &snapshots, NOW, rpo())),
    )];
    let by_ip = |fp: Option<&str>| {
        PbsTarget::new("pbs-franca", "store1", "")
            .server(PbsAddress::new("10.0.0.5", 8007).fingerprint(fp.map(str::to_owned)))
    };

    // No fingerprint on either side: kept, and read as "cannot tell".
    let mut case = input();
    case.targets = vec![by_ip(None)];
    case.retain_targets(|t| side.serves(t));
    assert_eq!(case.targets.len(), 1);
    case.here = side.here(&case.targets);
    let gitlab = find(&judge(&case, NOW, rpo()), 100).clone();
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert!(
        gitlab
            .reasons
            .iter()
            .any(|r| r.contains("10.0.0.5") && r.contains("pbs-franca.lan")),
        "{gitlab}"
    );

    // A fingerprint on one side only: still cannot tell.
    side.address = Some(PbsAddress::new("pbs-franca.lan", 8007).fingerprint(Some(FP_A.to_owned())));
    assert!(side.serves(&by_ip(None)));
    assert!(side.here(&[by_ip(None)])[0].backups.is_err());

    // Equal fingerprints: the same server under another name, read as such.
    assert!(side.serves(&by_ip(Some(FP_A))));
    assert!(side.here(&[by_ip(Some(FP_A))])[0].backups.is_ok());

    // Differing fingerprints: another server, dropped with its jobs.
    let mut case = input();
    case.targets = vec![by_ip(Some(FP_B))];
    case.retain_targets(|t| side.serves(t));
    assert!(case.targets.is_empty());
    assert!(
        case.jobs
            .iter()
            .all(|j| j.storage.as_deref() != Some("pbs-franca"))
    );
}

/// F4 (audit 31): `pbs-report --chain` builds this site's backups from the report's inventory
/// with [`cpps_pbs::chain::site_backups`]. Without `Datastore.Audit` on the namespace's path,
/// proxmox-backup `src/api2/admin/datastore.rs` `list_snapshots_blocking` lists only the
/// groups the caller owns (`list_all` false, then `check_backup_owner` per group), and vzdump
/// writes as PVE's own PBS user. So with a Backup-only token (`GET /access/permissions?path=`,
/// `src/api2/access/mod.rs` `list_permissions`: path → privilege → propagates) a group
/// missing from the list is "cannot tell", not "no finished backup"; with Audit on
/// `/datastore`, propagating, the list is whole and the missing group is a breach.
#[test]
fn site_backups_carry_an_owner_trimmed_list() {
    use std::collections::BTreeMap;
    let owned: Vec<Snapshot> = data::<Vec<Snapshot>>("snapshots_store1.json")
        .into_iter()
        .filter(|s| s.backup_id != "100")
        .collect();
    let mut inventory = cpps_pbs::report::Inventory::default();
    inventory.snapshots.insert(
        "store1".to_owned(),
        Ok(BTreeMap::from([(String::new(), owned)])),
    );
    let rights_of = |path: &str, privilege: &str| -> Result<cpps_pbs::types::Permissions, String> {
        Ok(BTreeMap::from([(
            path.to_owned(),
            BTreeMap::from([(privilege.to_owned(), true)]),
        )]))
    };
    let mut input = input();
    let mut rights = cpps_pbs::chain::PathRights::new();
    rights.insert(
        "/datastore/store1".to_owned(),
        rights_of("/datastore/store1", "Datastore.Backup"),
    );
    input.here = cpps_pbs::chain::site_backups(&inventory, &input.targets, &rights, NOW, rpo());
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [
            "no snapshot of vm/100 is listed in datastore store1, and the list may leave it out: without Datastore.Audit on /datastore/store1 PBS lists only the groups the credentials own"
        ]
    );

    // Audit propagating from `/datastore`: asked on `/datastore/store1`, PBS answers the
    // privilege there.
    rights.insert(
        "/datastore/store1".to_owned(),
        rights_of("/datastore/store1", "Datastore.Audit"),
    );
    input.here = cpps_pbs::chain::site_backups(&inventory, &input.targets, &rights, NOW, rpo());
    assert_eq!(
        find(&judge(&input, NOW, rpo()), 100).verdict,
        Verdict::Breach
    );
}

/// F5 (audit 31): a vzdump task names no job. pve-manager `PVE/Jobs/VZDump.pm` `run` passes
/// the job id to `PVE/API2/VZDump.pm` `vzdump` only as `job-id`, which `PVE/VZDump.pm` uses
/// for the notification's `backup-job` field; the task is `fork_worker('vzdump', $taskid, ..)`
/// with `$taskid` the guest only when one guest of the node is backed up, so a task for
/// several guests carries neither guest nor job. A later task of ANOTHER job on the same node
/// that ended OK and took no snapshot of the guest did not back it up here (a task that ended
/// OK backed every guest it had up): the guest's own failed task stays its last run. Where
/// the snapshots could not be read, such a task may or may not be the guest's: "cannot tell".
#[test]
fn another_jobs_later_shared_run_does_not_hide_a_guests_own_failure() {
    let mut input = input();
    // 100's newest snapshot is two hours old; a manual backup of it failed after that, then
    // another job backed other guests of pve1 up.
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", Some(100), NOW - 90 * 60)
            .ended(
                NOW - 80 * 60,
                ExitStatus::parse("unable to connect to backup server"),
            )
            .log(pbs_failure(100)),
        VzdumpRun::new("pve1", None, NOW - 60 * 60).ended(NOW - 30 * 60, ExitStatus::parse("OK")),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(
        gitlab.last_run,
        LastRun::Ended {
            end: NOW - 80 * 60,
            status: "unable to connect to backup server".to_owned(),
            success: false,
        }
    );
    assert_eq!(gitlab.verdict, Verdict::Breach, "{gitlab}");

    // The snapshots unread: whether the later task covered 100 cannot be told.
    input.here[0].backups = Err("datastore 'store1' is not mounted".to_owned());
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert!(
        gitlab.reasons.iter().any(|r| r.contains(
            "a task names no job, and no snapshot of it taken by that run is known here"
        )),
        "{gitlab}"
    );
}

/// A vzdump task log as pve-manager writes it: `PVE/VZDump.pm` `exec_backup` (`starting new
/// backup job: {cmdline}`, then `Backup job finished with errors` once every guest was
/// tried), `exec_backup_task` (`Backup of VM {vmid} failed - {error}`, here the stop-mode
/// refusal it dies with before the guest's start line; `Starting Backup of VM {vmid}
/// ({type})`, `Finished Backup of VM {vmid} ({duration})`), each through pve-guest-common
/// `src/PVE/VZDump/Plugin.pm` `debugmsg` (`INFO: ` / `ERROR: `), and pve-common
/// `src/PVE/RESTEnvironment.pm`'s last line `TASK ERROR: {error}`.
fn vzdump_log(failed: u32, finished: u32) -> Vec<String> {
    vec![
        format!(
            "INFO: starting new backup job: vzdump {failed} {finished} --mode stop --storage pbs-franca"
        ),
        format!(
            "ERROR: Backup of VM {failed} failed - Cannot execute a backup with stop mode on a HA managed and enabled Service. Use snapshot mode or disable the Service."
        ),
        "INFO: Failed at 2026-11-29 07:00:01".to_owned(),
        format!("INFO: Starting Backup of VM {finished} (qemu)"),
        "INFO: Backup started at 2026-11-29 07:00:01".to_owned(),
        "INFO: status = running".to_owned(),
        "INFO: backup mode: stop".to_owned(),
        format!("INFO: Finished Backup of VM {finished} (00:01:10)"),
        "INFO: Backup finished at 2026-11-29 07:01:11".to_owned(),
        "INFO: Backup job finished with errors".to_owned(),
        "TASK ERROR: job errors".to_owned(),
    ]
}

const STOP_MODE_REFUSED: &str = "Cannot execute a backup with stop mode on a HA managed and enabled Service. Use snapshot mode or disable the Service.";

/// The log names each guest's part; it names every guest of its task only when read to its
/// end and the job went through its guests (not `Backup job failed - …`, which leaves the
/// loop: `exec_backup`'s `die`). A start line with no outcome is a part cut off.
#[test]
fn a_vzdump_log_names_each_guests_part() {
    let lines = vzdump_log(250, 260);
    let log = RunLog::parse(&lines, true);
    assert_eq!(
        log.guests,
        [
            (250, GuestOutcome::Failed(STOP_MODE_REFUSED.to_owned())),
            (260, GuestOutcome::Finished),
        ]
    );
    assert!(log.names_all);
    assert!(!RunLog::parse(&lines, false).names_all);
    let cut = [
        "INFO: starting new backup job: vzdump --all 1 --storage pbs-franca",
        "INFO: Starting Backup of VM 270 (lxc)",
        "ERROR: Backup job failed - interrupted by signal",
    ];
    let log = RunLog::parse(&cut, true);
    assert_eq!(log.guests, [(270, GuestOutcome::Unfinished)]);
    assert!(!log.names_all);
}

/// F5 (audit 31): a task for several guests names no guest in the task list, but its log
/// does. Another job's failed task on pve1, after gitlab's newest snapshot, whose log names
/// only other guests (read whole), was not gitlab's: gitlab's last run is the nightly one,
/// and it is ok, not "cannot tell".
#[test]
fn another_jobs_failed_shared_run_whose_log_names_others_leaves_a_guest_alone() {
    let mut input = input();
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - 3 * H).ended(NOW - 2 * H, ExitStatus::parse("OK")),
        VzdumpRun::new("pve1", None, NOW - H)
            .ended(NOW - H / 2, ExitStatus::parse("job errors"))
            .log(RunLog::parse(&vzdump_log(250, 260), true)),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(
        gitlab.last_run,
        LastRun::Shared {
            start: NOW - 3 * H,
            end: NOW - 2 * H,
            status: "OK".to_owned(),
            success: true,
        }
    );
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
}

/// F5 (audit 31): gitlab was backed up on pve1, then HA moved it to pve2. The failed task for
/// several guests on pve1 whose log says gitlab's part failed is gitlab's last run, a
/// breach with the log's error, although gitlab now runs elsewhere. A guest its log names
/// as finished is ok by it.
#[test]
fn a_guest_migrated_after_a_failed_backup_is_judged_from_its_old_nodes_task() {
    let mut input = input();
    input.guests[0] = ChainGuest::new(100, BackupType::Vm)
        .name("gitlab")
        .node("pve2");
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - H)
            .ended(NOW - H / 2, ExitStatus::parse("job errors"))
            .log(RunLog::parse(&vzdump_log(100, 200), true)),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(
        gitlab.last_run,
        LastRun::Ended {
            end: NOW - H / 2,
            status: STOP_MODE_REFUSED.to_owned(),
            success: false,
        }
    );
    assert_eq!(gitlab.verdict, Verdict::Breach, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [format!(
            "its last vzdump task failed at {}: {STOP_MODE_REFUSED}",
            jiff::Timestamp::from_second(NOW - H / 2).unwrap()
        )]
    );
    let dns = find(&chains, 200);
    assert!(
        matches!(&dns.last_run, LastRun::Ended { success: true, status, .. } if status == "OK"),
        "{dns}"
    );
}

/// Suspected "F5 timing" (audit 31), confirmed: the snapshots and the tasks are read at
/// different moments (`pbs-report --chain` reads PBS first), so a task for several guests that
/// ended OK after the snapshot list was read took a snapshot that list does not show, and
/// `last_run`'s "an OK task whose snapshot is not here was another job's" passes it over: the
/// guest's earlier failed task would be its last run, a breach. Where the task's log was read
/// and names the guest (`PVE/VZDump.pm` `exec_backup_task`: `Finished Backup of VM 100`), that
/// task is the guest's own, whatever the snapshots show. A task whose log was not read is
/// still passed over.
#[test]
fn a_shared_run_that_ended_after_the_snapshots_were_read_counts_when_its_log_names_the_guest() {
    let mut input = input();
    let own_failed = VzdumpRun::new("pve1", Some(100), NOW - 110 * 60)
        .ended(
            NOW - 100 * 60,
            ExitStatus::parse("unable to connect to backup server"),
        )
        .log(pbs_failure(100));
    // Started after gitlab's newest listed snapshot (2 h old), ended after the list was read.
    let shared =
        VzdumpRun::new("pve1", None, NOW - 90 * 60).ended(NOW - 10 * 60, ExitStatus::parse("OK"));
    let log = [
        "INFO: starting new backup job: vzdump 100 200 --storage pbs-franca --mode snapshot",
        "INFO: Starting Backup of VM 100 (qemu)",
        "INFO: Finished Backup of VM 100 (00:40:00)",
        "INFO: Starting Backup of VM 200 (lxc)",
        "INFO: Finished Backup of VM 200 (00:30:00)",
        "INFO: Backup job finished successfully",
        "TASK OK",
    ];
    input.runs = Ok(vec![own_failed.clone(), shared.clone()]);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert!(
        matches!(&gitlab.last_run, LastRun::Ended { success: false, end, .. } if *end == NOW - 100 * 60),
        "{gitlab}"
    );
    input.runs = Ok(vec![own_failed, shared.log(RunLog::parse(&log, true))]);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(
        gitlab.last_run,
        LastRun::Ended {
            end: NOW - 10 * 60,
            status: "OK".to_owned(),
            success: true,
        }
    );
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
}

/// F6 (audit 31): only the rights on the list's own path say it is whole. proxmox-backup
/// `list_snapshots_blocking` looks `Datastore.Audit` up on the namespace's ACL path
/// (`src/backup/hierarchy.rs` `check_ns_privs_full`), where an ACL of the caller REPLACES what
/// it inherits (`pbs-config/src/acl.rs` `AclTree::roles`: "overwrite previous mappings"), and
/// `GET /access/permissions` without `path` leaves out a path where the caller holds nothing
/// (`src/api2/access/mod.rs` `list_permissions`: "Don't leak ACL paths where we don't have any
/// privileges"). An Audit propagating from `/datastore` is then no proof.
#[test]
fn only_the_rights_on_the_path_itself_say_a_snapshot_list_is_whole() {
    use cpps_pbs::chain::snapshots_trimmed;
    let answer = |value: serde_json::Value| -> Result<cpps_pbs::types::Permissions, String> {
        Ok(serde_json::from_value(value).unwrap())
    };
    // The whole list: Audit propagating from `/datastore`, and the caller's DatastoreBackup on
    // `/datastore/store1`, which replaces it there.
    let replaced = answer(serde_json::json!({
        "/datastore": {"Datastore.Audit": true},
        "/datastore/store1": {"Datastore.Backup": true, "Datastore.Read": true}
    }));
    assert_eq!(
        snapshots_trimmed(&replaced, "store1", "").as_deref(),
        Some(
            "without Datastore.Audit on /datastore/store1 PBS lists only the groups the credentials own"
        )
    );
    // NoAccess on `/datastore/store1`: the whole list does not name the path at all, and
    // `?path=/datastore/store1` answers `{}`.
    let hidden = answer(serde_json::json!({"/datastore": {"Datastore.Audit": true}}));
    assert!(snapshots_trimmed(&hidden, "store1", "").is_some());
    assert!(snapshots_trimmed(&answer(serde_json::json!({})), "store1", "").is_some());
    // `?path=/datastore/store1/dev` with Audit held there, propagating or not: whole.
    let dev = answer(serde_json::json!({"/datastore/store1/dev": {"Datastore.Audit": false}}));
    assert_eq!(snapshots_trimmed(&dev, "store1", "dev"), None);
}

/// F3 (audit 31), two PVE storages on one datastore: `pbs-franca` names this PBS as the
/// endpoints do, `pbs-por-ip` names `10.0.0.5` with no fingerprint (pve-storage
/// `src/PVE/Storage/Plugin.pm`: `server` is "Server IP or DNS name"; `PBSPlugin.pm`: the
/// `fingerprint` is optional). The place is read once, for the storage surely here; the guests
/// of the other storage are still "cannot tell", not judged with this server's snapshots.
#[test]
fn a_doubtful_storage_sharing_a_place_with_a_sure_one_is_cannot_tell() {
    use cpps_pbs::chain::{PbsAddress, PbsSide};
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let mut side = PbsSide::new(true);
    side.address = Some(PbsAddress::new("pbs-franca.lan", 8007));
    side.backups = vec![SiteBackups::new(
        "store1",
        "",
        Ok(newest_per_guest("store1", "", &snapshots, NOW, rpo())),
    )];
    let mut input = input();
    input.targets = vec![
        PbsTarget::new("pbs-por-ip", "store1", "").server(PbsAddress::new("10.0.0.5", 8007)),
        PbsTarget::new("pbs-franca", "store1", "")
            .encrypted(true)
            .server(PbsAddress::new("pbs-franca.lan", 8007)),
    ];
    input.jobs.push(ChainJob::new(
        "backup-ip",
        true,
        Some("pbs-por-ip".to_owned()),
        vec![300],
    ));
    input.here = side.here(&input.targets);
    assert_eq!(input.here.len(), 1);
    let chains = judge(&input, NOW, rpo());
    let scratch = find(&chains, 300);
    assert_eq!(scratch.verdict, Verdict::CannotTell, "{scratch}");
    assert_eq!(scratch.backed_up, None);
    assert!(
        scratch
            .reasons
            .iter()
            .any(|r| r.contains("10.0.0.5:8007") && r.contains("pbs-franca.lan:8007")),
        "{scratch}"
    );
    assert_eq!(find(&chains, 100).verdict, Verdict::Ok);
}

/// Site A's PBS (`pbs-a.example:8007`) holding the fixture's backups in `store1`, and site B's
/// (`pbs-b.example:8007`) holding the same groups in `mirror`, owned by `owner` there; then
/// B's copies of A's `store1` ([`cpps_pbs::chain::PbsSide::copies`]). The copy is made by B
/// pulling from its remote `a` (job `owner` `pull_owner`, unset when `None`) or, with
/// `pull_owner` left out, by A pushing to its remote `b` (auth-id `sync@pbs!site-a`). Jobs and
/// remotes are shaped as `GET /admin/sync` and `GET /config/remote` list them (pbs-api-types
/// `src/jobs.rs` `SyncJobConfig`, `src/remote.rs` `RemoteConfig`).
fn copies_on_b(push: bool, pull_owner: Option<&str>, owner: Option<&str>) -> Vec<SiteCopies> {
    copies_on_b_at(push, pull_owner, owner, 0)
}

/// [`copies_on_b`], B's snapshots taken `shift` seconds after A's.
fn copies_on_b_at(
    push: bool,
    pull_owner: Option<&str>,
    owner: Option<&str>,
    shift: i64,
) -> Vec<SiteCopies> {
    use cpps_pbs::chain::{PbsAddress, PbsSide};
    use cpps_pbs::types::{Remote, SyncJob};
    let snapshots: Vec<Snapshot> = data("snapshots_store1.json");
    let side = |host: &str, store: &str, snapshots: &[Snapshot], remote: &str, to: &str| {
        let mut side = PbsSide::new(true);
        side.address = Some(PbsAddress::new(host, 8007));
        side.backups = vec![SiteBackups::new(
            store,
            "",
            Ok(newest_per_guest(store, "", snapshots, NOW, rpo())),
        )];
        side.sync_jobs = Ok(Vec::new());
        let remote: Remote = serde_json::from_value(serde_json::json!({
            "name": remote, "host": to, "port": 8007, "auth-id": "sync@pbs!site-a",
        }))
        .unwrap();
        side.remotes = Ok(vec![remote]);
        side
    };
    let mut theirs = snapshots.clone();
    for s in &mut theirs {
        s.owner = owner.map(|o| o.parse().unwrap());
        s.backup_time += shift;
    }
    let mut a = side("pbs-a.example", "store1", &snapshots, "b", "pbs-b.example");
    let mut b = side("pbs-b.example", "mirror", &theirs, "a", "pbs-a.example");
    let job = |id: &str, store: &str, remote: &str, remote_store: &str, direction: &str| {
        let mut job = serde_json::json!({
            "id": id, "store": store, "remote": remote, "remote-store": remote_store,
            "sync-direction": direction,
        });
        if let Some(o) = pull_owner.filter(|_| !push) {
            job["owner"] = o.into();
        }
        serde_json::from_value::<SyncJob>(job).unwrap()
    };
    if push {
        a.sync_jobs = Ok(vec![job("push-b", "store1", "b", "mirror", "push")]);
    } else {
        b.sync_jobs = Ok(vec![job("pull-a", "mirror", "a", "store1", "pull")]);
    }
    b.copies(&a, &[PbsTarget::new("pbs-franca", "store1", "")], "site-b")
}

/// G2 (audit 31): both clusters number their guests from 100, so the place a copy lands in may
/// hold the receiving site's own `vm/100`. A group has one owner (pbs-api-types
/// `src/datastore.rs` `GroupListItem.owner`, `SnapshotListItem.owner`), and a sync writes only
/// into a group its own auth-id owns: a pull writes as its job's `owner`, `root@pam` when unset
/// (proxmox-backup `src/api2/pull.rs` `PullParameters::try_from`), and fails a group another
/// owns ("owner check failed", `src/server/pull.rs` `pull_ns`); a push writes as its remote's
/// `auth-id` and skips such a group with a warning (`src/server/push.rs`
/// `fetch_target_groups`, `push_group_do`; PBS 3.3+). A group owned by another is that site's
/// own backup, not the copy; one whose owner is not listed cannot be told.
#[test]
fn a_group_of_the_same_id_owned_by_another_is_not_the_copy() {
    let gitlab = |copies: Vec<SiteCopies>| {
        let mut input = input();
        input.there = copies;
        find(&judge(&input, NOW, rpo()), 100).clone()
    };
    // Pulled by a job with no `owner`: the copy is root@pam's.
    let pulled = gitlab(copies_on_b(false, None, Some("root@pam")));
    assert_eq!(pulled.verdict, Verdict::Ok, "{pulled}");
    assert_eq!(pulled.copied, Some(NOW - 2 * H));
    // Site B's own backup of its vm/100 (written by its PVE's token) is no copy of A's.
    let own = gitlab(copies_on_b(false, None, Some("backup@pbs!pve-b")));
    assert_eq!(own.verdict, Verdict::Breach, "{own}");
    assert_eq!(own.copied, None);
    assert_eq!(
        own.reasons,
        [
            "no copy on site-b: its vm/100 there is owned by backup@pbs!pve-b, not by the auth-id the sync job writes as"
        ]
    );
    // A namespace holds one group per id, so this is no copy even in a list that may leave
    // groups out.
    let mut partial = copies_on_b(false, None, Some("backup@pbs!pve-b"));
    partial[0].complete = false;
    assert_eq!(gitlab(partial).verdict, Verdict::Breach);
    // A job with an `owner` writes as that owner, so root@pam's group is not its copy.
    let other = gitlab(copies_on_b(false, Some("sync@pbs"), Some("root@pam")));
    assert_eq!(other.verdict, Verdict::Breach, "{other}");
    let theirs = gitlab(copies_on_b(false, Some("sync@pbs"), Some("sync@pbs")));
    assert_eq!(theirs.verdict, Verdict::Ok, "{theirs}");
    // Pushed by A: the copy is the remote's auth-id's.
    let pushed = gitlab(copies_on_b(true, None, Some("sync@pbs!site-a")));
    assert_eq!(pushed.verdict, Verdict::Ok, "{pushed}");
    assert_eq!(pushed.copied, Some(NOW - 2 * H));
    let skipped = gitlab(copies_on_b(true, None, Some("root@pam")));
    assert_eq!(skipped.verdict, Verdict::Breach, "{skipped}");
    // No owner listed: whether it is the copy cannot be told.
    let unlisted = gitlab(copies_on_b(true, None, None));
    assert_eq!(unlisted.verdict, Verdict::CannotTell, "{unlisted}");
    assert_eq!(unlisted.copied, None);
    assert_eq!(
        unlisted.reasons,
        ["cannot tell whether vm/100 on site-b is the copy: the list gives no owner"]
    );
}

/// The log of a vzdump task for guest 100 alone, started with `args` (pve-manager
/// `PVE/API2/VZDump.pm` `vzdump` builds the line's command with pve-guest-common
/// `src/PVE/VZDump/Common.pm` `command_line`: the guests, then `--{option} {value}`), as
/// `PVE/VZDump.pm` writes it: `exec_backup` (`starting new backup job: {cmdline}`, `Backup
/// job finished …`), `exec_backup_task` (`Starting Backup of VM`, `creating {vzdump |
/// Proxmox Backup Server} archive '{target}'`, `Finished Backup of VM`, or `Backup of VM 100
/// failed - {error}` with the max-backup-limit refusal it dies with before the start line),
/// each through pve-guest-common `src/PVE/VZDump/Plugin.pm` `debugmsg`.
fn single_guest_log(vmid: u32, args: &str, archive: Option<&str>) -> Vec<String> {
    let mut lines = vec![format!(
        "INFO: starting new backup job: vzdump {vmid} {args}"
    )];
    match archive {
        Some(archive) => lines.extend([
            format!("INFO: Starting Backup of VM {vmid} (qemu)"),
            "INFO: Backup started at 2026-11-29 07:30:00".to_owned(),
            "INFO: status = running".to_owned(),
            format!("INFO: creating {archive}"),
            format!("INFO: Finished Backup of VM {vmid} (00:01:00)"),
            "INFO: Backup finished at 2026-11-29 07:31:00".to_owned(),
            "INFO: Backup job finished successfully".to_owned(),
            "TASK OK".to_owned(),
        ]),
        None => lines.extend([
            format!("ERROR: Backup of VM {vmid} failed - {MAX_BACKUPS}"),
            "INFO: Failed at 2026-11-29 07:01:00".to_owned(),
            "INFO: Backup job finished with errors".to_owned(),
            "TASK ERROR: job errors".to_owned(),
        ]),
    }
    lines
}

/// What the log of a failed vzdump task of `vmid` alone to `pbs-franca` says
/// ([`single_guest_log`]).
fn pbs_failure(vmid: u32) -> RunLog {
    RunLog::parse(
        &single_guest_log(vmid, "--storage pbs-franca --mode snapshot", None),
        true,
    )
}

const MAX_BACKUPS: &str = "There is a max backup limit of 3 enforced by the target storage or the vzdump parameters. Either increase the limit or delete old backups.";

/// H1 (issue 31): a vzdump task counts for the chain only when its log shows it wrote to the
/// chain's PBS storage. gitlab's PBS backup failed an hour ago; a manual `vzdump 100
/// --storage local` succeeded after it. The manual dump is no PBS run (its log's `--storage
/// local`, pve-manager `PVE/VZDump.pm` `exec_backup`, and its `creating vzdump archive` line,
/// `exec_backup_task`), so the failed PBS run stays the last run: a breach, with the PBS
/// run's error. With neither log read, which storage each wrote to cannot be told: the OK
/// task took no snapshot here (gitlab's newest is older than its start) and is passed over,
/// and the failed one may be a PBS run or not: "cannot tell", never ok.
#[test]
fn a_manual_local_dump_after_a_failed_pbs_run_does_not_hide_the_failure() {
    let mut input = input();
    let pbs = VzdumpRun::new("pve1", Some(100), NOW - 60 * 60)
        .ended(NOW - 59 * 60, ExitStatus::parse("job errors"));
    let local = VzdumpRun::new("pve1", Some(100), NOW - 30 * 60)
        .ended(NOW - 29 * 60, ExitStatus::parse("OK"));
    let logged = |run: &VzdumpRun, lines: Vec<String>| run.clone().log(RunLog::parse(&lines, true));
    input.runs = Ok(vec![
        logged(
            &pbs,
            single_guest_log(100, "--storage pbs-franca --mode snapshot", None),
        ),
        logged(
            &local,
            single_guest_log(
                100,
                "--mode snapshot --storage local --compress zstd",
                Some(
                    "vzdump archive '/var/lib/vz/dump/vzdump-qemu-100-2026_11_29-07_30_00.vma.zst'",
                ),
            ),
        ),
    ]);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(
        gitlab.last_run,
        LastRun::Ended {
            end: NOW - 59 * 60,
            status: "job errors".to_owned(),
            success: false,
        },
        "{gitlab}"
    );
    assert_eq!(gitlab.verdict, Verdict::Breach, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [format!(
            "its last vzdump task failed at {}: job errors",
            jiff::Timestamp::from_second(NOW - 59 * 60).unwrap()
        )]
    );

    input.runs = Ok(vec![pbs, local]);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert!(
        gitlab.reasons.iter().any(|r| r.contains("job errors")
            && r.contains("storage pbs-franca")
            && r.contains("its log was not read")),
        "{gitlab}"
    );
}

/// H1 (issue 31): where a task wrote, from its log. pve-manager `PVE/VZDump.pm` `exec_backup`
/// logs the command (pve-guest-common `src/PVE/VZDump/Common.pm` `command_line`: `--storage`
/// only when given, values through pve-common `src/PVE/Tools.pm` `shellquote`); without it,
/// `exec_backup_task`'s archive line tells a file (`creating vzdump archive`) from a PBS
/// snapshot, which names no storage.
#[test]
fn a_vzdump_log_says_where_the_task_wrote() {
    use cpps_pbs::chain::Written;
    let written = |args: &str, archive: Option<&str>| {
        RunLog::parse(&single_guest_log(100, args, archive), true).written
    };
    assert_eq!(
        written("--mode snapshot --storage local", None),
        Written::Storage("local".to_owned())
    );
    // A quoted value holding ` --storage ` is one word.
    assert_eq!(
        written(
            "--notes-template '{{guestname}} --storage x'\\''s' --storage pbs-franca",
            None
        ),
        Written::Storage("pbs-franca".to_owned())
    );
    assert_eq!(
        written(
            "--mode snapshot",
            Some("vzdump archive '/var/lib/vz/dump/vzdump-qemu-100-2026_11_29-07_30_00.vma.zst'")
        ),
        Written::NotPbs("a vzdump archive".to_owned())
    );
    assert_eq!(
        written("--dumpdir /mnt/usb", None),
        Written::NotPbs("--dumpdir /mnt/usb".to_owned())
    );
    // To vzdump.conf's storage, a PBS one: which cannot be told.
    assert_eq!(
        written(
            "--mode snapshot",
            Some("Proxmox Backup Server archive 'vm/100/2026-11-29T07:30:00Z'")
        ),
        Written::Untold
    );
    // A log read from past its first line.
    assert_eq!(
        RunLog::parse(&single_guest_log(100, "--storage local", None)[1..], false).written,
        Written::Untold
    );
}

/// H7 (issue 31): site B's PVE writes its own backups as the same auth-id the pull job writes
/// as (both `root@pam`), so B's own `vm/100`, taken on B's schedule, has the owner a copy would
/// have. A pull keeps each snapshot's backup time (proxmox-backup `src/server/pull.rs`
/// `pull_group`: the target snapshot is `backup_dir(target_ns, from_snapshot)`, created by
/// `pull_snapshot_from`'s `create_locked_backup_dir`), so a group none of whose snapshots
/// was taken at one of A's snapshot times is no copy of A's that A still holds: "cannot
/// tell", never ok. The same owner with A's times is the copy.
#[test]
fn a_group_of_the_pull_owner_is_the_copy_only_with_the_sources_backup_times() {
    let gitlab = |copies: Vec<SiteCopies>| {
        let mut input = input();
        input.there = copies;
        find(&judge(&input, NOW, rpo()), 100).clone()
    };
    let own = gitlab(copies_on_b_at(false, None, Some("root@pam"), 30 * 60));
    assert_eq!(own.verdict, Verdict::CannotTell, "{own}");
    assert_eq!(own.copied, None);
    assert!(
        own.reasons
            .iter()
            .any(|r| r.starts_with("cannot tell whether vm/100 on site-b is the copy")),
        "{own}"
    );
    let copy = gitlab(copies_on_b_at(false, None, Some("root@pam"), 0));
    assert_eq!(copy.verdict, Verdict::Ok, "{copy}");
    assert_eq!(copy.copied, Some(NOW - 2 * H));
}

/// H1 (issue 31): a task of gitlab's own that still runs, whose log was not read, may be a
/// manual dump to another storage: it does not replace the failed PBS run before it
/// (`single_guest_log`'s lines, pve-manager `PVE/VZDump.pm`).
#[test]
fn a_running_task_of_untold_storage_does_not_hide_a_failed_pbs_run() {
    let mut input = input();
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", Some(100), NOW - 60 * 60)
            .ended(NOW - 59 * 60, ExitStatus::parse("job errors"))
            .log(pbs_failure(100)),
        VzdumpRun::new("pve1", Some(100), NOW - 10 * 60),
    ]);
    let gitlab = find(&judge(&input, NOW, rpo()), 100).clone();
    assert!(
        matches!(&gitlab.last_run, LastRun::Ended { success: false, end, .. } if *end == NOW - 59 * 60),
        "{gitlab}"
    );
    assert_eq!(gitlab.verdict, Verdict::Breach, "{gitlab}");
}

/// K1 (audit 31, second pass): a run logged to a storage `GET /storage` listed that is no
/// PBS storage of the chain wrote elsewhere, and the chain looks further back. pve-manager
/// `PVE/VZDump.pm` `exec_backup` logs the command with `--storage local`; pve-storage
/// `PVE/API2/Storage/Config.pm` `index` lists storages of every type, filtered only by
/// `Datastore.Audit` / `Datastore.AllocateSpace` on `/storage/<storage>`. gitlab's own task
/// to `local` failed an hour ago, after the shared PBS run that ended OK: the chain is ok by
/// the PBS run. A storage missing from the list (rights may hide it) stays "cannot tell".
/// Failed first: the failed `local` run was "cannot tell" (the list "does not show it").
#[test]
fn a_failed_run_to_a_listed_non_pbs_storage_is_elsewhere() {
    let mut input = input();
    input.targets_complete = false;
    input.storages = vec!["pbs-franca".to_owned(), "local".to_owned()];
    let manual = |storage: &str| {
        VzdumpRun::new("pve1", Some(100), NOW - H)
            .ended(NOW - H + 60, ExitStatus::parse("job errors"))
            .log(RunLog::parse(
                &single_guest_log(100, &format!("--storage {storage} --mode snapshot"), None),
                true,
            ))
    };
    let shared =
        VzdumpRun::new("pve1", None, NOW - 3 * H).ended(NOW - 2 * H, ExitStatus::parse("OK"));
    input.runs = Ok(vec![shared.clone(), manual("local")]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(
        gitlab.last_run,
        LastRun::Shared {
            start: NOW - 3 * H,
            end: NOW - 2 * H,
            status: "OK".to_owned(),
            success: true,
        },
        "{gitlab}"
    );
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");

    input.runs = Ok(vec![shared, manual("usb-hidden")]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert!(
        gitlab.reasons.iter().any(|r| r.contains(
            "it wrote to storage usb-hidden, which the storage list the credentials see does not show"
        )),
        "{gitlab}"
    );
}

/// K1: a PBS storage `retain_targets` dropped as another server's is still a listed storage,
/// so gitlab's failed run to it wrote elsewhere, though the caller filled no `storages`.
/// Failed first: the run to `pbs-elsewhere` was "cannot tell".
#[test]
fn a_failed_run_to_a_pbs_storage_of_another_server_is_elsewhere() {
    let mut input = input();
    input.targets_complete = false;
    input
        .targets
        .push(PbsTarget::new("pbs-elsewhere", "store1", ""));
    input.retain_targets(|t| t.storage != "pbs-elsewhere");
    input.runs = Ok(vec![
        VzdumpRun::new("pve1", None, NOW - 3 * H).ended(NOW - 2 * H, ExitStatus::parse("OK")),
        VzdumpRun::new("pve1", Some(100), NOW - H)
            .ended(NOW - H + 60, ExitStatus::parse("job errors"))
            .log(RunLog::parse(
                &single_guest_log(100, "--storage pbs-elsewhere", None),
                true,
            )),
    ]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert!(
        matches!(gitlab.last_run, LastRun::Shared { start, success: true, .. } if start == NOW - 3 * H),
        "{gitlab}"
    );
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
}

/// K5 (audit 31, second pass): gitlab's own task on pve1 ended OK (its snapshot 2 h ago is
/// from it), then a task for several guests on pve1 failed, and HA moved gitlab to pve2. The
/// PVE side reads only the newest few logs of such tasks per node (cpps-topology
/// `live/pve/chain.rs` `logged_tasks`), so that failed task's log may be unread; it may
/// have failed gitlab's part (pve-manager `PVE/VZDump.pm` `exec_backup`: `job errors` when
/// any guest failed). Started after gitlab's last placed run and not followed by a snapshot
/// of gitlab here, it leaves the chain "cannot tell", on any node. A snapshot newer than its
/// start shows gitlab was backed up since: ok. Failed first: the verdict was ok.
#[test]
fn an_unread_failed_shared_task_after_the_last_run_is_cannot_tell() {
    let mut input = input();
    input.guests[0] = ChainGuest::new(100, BackupType::Vm)
        .name("gitlab")
        .node("pve2");
    let own = VzdumpRun::new("pve1", Some(100), NOW - 3 * H)
        .ended(NOW - 3 * H + 600, ExitStatus::parse("OK"));
    let failed = |start: i64| {
        VzdumpRun::new("pve1", None, start).ended(start + 600, ExitStatus::parse("job errors"))
    };
    input.runs = Ok(vec![own.clone(), failed(NOW - H)]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert!(
        matches!(&gitlab.last_run, LastRun::Ended { success: true, end, .. } if *end == NOW - 3 * H + 600),
        "{gitlab}"
    );
    assert_eq!(gitlab.verdict, Verdict::CannotTell, "{gitlab}");
    assert_eq!(
        gitlab.reasons,
        [format!(
            "a vzdump task for several guests on node pve1 ended at {} (job errors) after its last run; its log was not read, and no snapshot of it taken since that task started is here",
            jiff::Timestamp::from_second(NOW - H + 600).unwrap()
        )]
    );

    // Started before the snapshot of 2 h ago: gitlab was backed up since.
    input.runs = Ok(vec![own, failed(NOW - 2 * H - 1800)]);
    let chains = judge(&input, NOW, rpo());
    let gitlab = find(&chains, 100);
    assert_eq!(gitlab.verdict, Verdict::Ok, "{gitlab}");
}

/// A guest of a node whose status data is over five minutes old comes in
/// `GET /cluster/resources` without `template` (pve-manager `PVE/API2Tools.pm`
/// `extract_vm_stats` takes `name`, `status` and `template` from that data alone), so it may be
/// a template, which the chain does not judge: what would be a breach is "cannot tell", with
/// why. What holds of a template too (an ok) stays as it is.
#[test]
fn a_guest_that_may_be_a_template_has_no_breach() {
    let why = "Proxmox lists it without its node's status data";
    let mut input = input();
    for guest in &mut input.guests {
        *guest = guest.clone().may_be_template(why);
    }
    let chains = judge(&input, NOW, rpo());
    let scratch = find(&chains, 300);
    assert_eq!(scratch.verdict, Verdict::CannotTell, "{scratch}");
    assert_eq!(
        scratch.reasons,
        [format!(
            "it may be a template, which is not judged ({why}); if it is none: no enabled vzdump job to a PBS storage of this report includes it"
        )]
    );
    assert_eq!(find(&chains, 100).verdict, Verdict::Ok);
    // 101's breaches (a failed verification, its own failed task) are each kept, as unknowns.
    let runner = find(&chains, 101);
    assert_eq!(runner.verdict, Verdict::CannotTell);
    assert_eq!(runner.reasons.len(), 3, "{:?}", runner.reasons);
    assert!(
        runner
            .reasons
            .iter()
            .all(|r| r.starts_with("it may be a template"))
    );
}

/// S3: a node's task list is cut at the request's `limit`, and its `total` says how many tasks
/// matched (pve-manager `PVE/API2/Tasks.pm` `node_tasks`: `$count` counts every task the
/// filters pass, `set_result_attrib('total', $count)`). A guest in a PBS job with no task seen
/// in a cut list may have its last run among the older ones: "cannot tell", with the count.
#[test]
fn a_cut_task_list_does_not_prove_that_no_task_ran() {
    let mut input = input();
    input.runs_complete = true;
    input.runs = Ok(Vec::new());
    let gitlab = |input: &ChainInput| find(&judge(input, NOW, rpo()), 100).clone();
    assert_eq!(gitlab(&input).verdict, Verdict::Ok);
    input.runs_cut = vec![(
        "pve1".to_owned(),
        "the newest 1000 of 1342 vzdump tasks".to_owned(),
    )];
    let cut = gitlab(&input);
    assert_eq!(cut.verdict, Verdict::CannotTell, "{cut}");
    assert_eq!(
        cut.reasons,
        [
            "no vzdump task of it was seen, and the task list of pve1 holds only the newest 1000 of 1342 vzdump tasks"
        ]
    );
}
