//! BACKUP-005, the backup chain of each guest across both sites, in the live audit. The facts
//! carry the readings the sources keep (`PveFacts::chain`, `PbsFacts::chain`), and the rule
//! judges them with `cpps_pbs::chain::judge`, the code `pbs-report --chain` runs. The PBS
//! snapshots are cpps-pbs's `tests/fixtures/snapshots_store1.json` (proxmox-backup
//! `src/api2/admin/datastore.rs` `list_snapshots_blocking`), with the changes each test names.
#![cfg(feature = "live")]

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

mod common;

use std::path::Path;
use std::time::Duration;

use common::{LIVE_ESTATE, live_estate, load, rule_messages};
use cpps_pbs::chain::{
    ChainGuest, ChainInput, ChainJob, PbsAddress, PbsSide, PbsTarget, SiteBackups, VzdumpRun,
};
use cpps_pbs::checks::newest_per_guest;
use cpps_pbs::types::{BackupType, ExitStatus, Remote, Snapshot, SyncJob};
use cpps_topology::live::facts::{
    PbsChainReading, PbsFacts, PbsJobFact, PveChainReading, PveFacts, SiteObservation,
    SourceFailure, SourceKind, Sourced,
};
use cpps_topology::live::{self, LiveOptions, Observation};

/// "Now" of cpps-pbs's fixtures: 2026-11-29T08:00:00Z.
const NOW: i64 = 1_795_939_200;
const H: i64 = 3600;

fn snapshots() -> Vec<Snapshot> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cpps-pbs/tests/fixtures/snapshots_store1.json");
    let text = std::fs::read_to_string(file).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    serde_json::from_value(value["data"].clone()).unwrap()
}

/// A copy of the fixture's snapshot of `vm/100` taken `hours` ago, as `ty/id`.
fn like_gitlab(ty: BackupType, id: &str, hours: i64) -> Snapshot {
    let mut s = snapshots()
        .into_iter()
        .find(|s| s.backup_id == "100" && s.backup_time == NOW - hours * H)
        .unwrap();
    s.backup_type = ty;
    s.backup_id = id.to_owned();
    s
}

/// SP's PBS `store1`: gitlab (vm/100) backed up and verified 2 h ago; monitoring (ct/201)
/// likewise; legacy-nfs (ct/202) finished and verified 30 h ago, and a newer snapshot 1 h ago
/// that is not finished (no files: `backup_info.rs` `is_finished` is the manifest's presence).
fn sp_snapshots() -> Vec<Snapshot> {
    let mut unfinished = like_gitlab(BackupType::Ct, "202", 2);
    unfinished.backup_time = NOW - H;
    unfinished.files.clear();
    unfinished.verification = None;
    vec![
        like_gitlab(BackupType::Vm, "100", 2),
        like_gitlab(BackupType::Ct, "201", 2),
        like_gitlab(BackupType::Ct, "202", 30),
        unfinished,
    ]
}

/// SP's PVE side: the three guests in one enabled job to the PBS storage `pbs-sp`, whose
/// last runs (one task per node for several guests, pve-manager `PVE/API2/VZDump.pm`) ended
/// OK, with task lists known to be whole.
fn sp_pve() -> PveFacts {
    let mut input = ChainInput::default();
    input.guests = vec![
        ChainGuest::new(100, BackupType::Vm)
            .name("gitlab")
            .node("pve-ippri-31"),
        ChainGuest::new(201, BackupType::Ct)
            .name("monitoring")
            .node("pve-ippri-32"),
        ChainGuest::new(202, BackupType::Ct)
            .name("legacy-nfs")
            .node("pve-ippri-32"),
    ];
    input.targets = vec![PbsTarget::new("pbs-sp", "store1", "")];
    input.targets_complete = true;
    input.jobs = vec![ChainJob::new(
        "backup-daily",
        true,
        Some("pbs-sp".to_owned()),
        vec![100, 201, 202],
    )];
    input.runs = Ok(["pve-ippri-31", "pve-ippri-32"]
        .map(|n| VzdumpRun::new(n, None, NOW - 3 * H).ended(NOW - 2 * H, ExitStatus::parse("OK")))
        .to_vec());
    input.runs_complete = true;
    PveFacts {
        chain: PveChainReading::new(Ok(input)),
        ..PveFacts::default()
    }
}

fn pbs_facts(server: &str, side: PbsSide, jobs: Vec<PbsJobFact>) -> PbsFacts {
    PbsFacts {
        server: server.to_owned(),
        jobs,
        chain: PbsChainReading::new(side),
        ..PbsFacts::default()
    }
}

/// SP's PBS, read whole, at `https://127.0.0.1:8007`, with no sync job and no remote.
fn sp_pbs() -> PbsFacts {
    let mut side = PbsSide::new(true);
    side.address = PbsAddress::from_url("https://127.0.0.1:8007");
    side.sync_jobs = Ok(Vec::new());
    // The token audits every datastore and remote: PBS hides no sync job from it.
    side.sync_jobs_hidden = None;
    side.remotes = Ok(Vec::new());
    side.backups = vec![SiteBackups::new(
        "store1",
        "",
        Ok(newest_per_guest(
            "store1",
            "",
            &sp_snapshots(),
            NOW,
            Duration::MAX,
        )),
    )];
    pbs_facts("https://127.0.0.1:8007", side, Vec::new())
}

/// Franca's PBS: a sync job pulling SP's datastore into `mirror`, namespace `sp` (a pull keeps
/// the source's group ids, proxmox-backup `src/server/pull.rs` `pull_group`), holding copies
/// of gitlab and legacy-nfs but none of monitoring.
fn franca_pbs() -> PbsFacts {
    let mut side = PbsSide::new(true);
    // A pull writes as its job's `owner`, `root@pam` when unset (proxmox-backup
    // `src/api2/pull.rs` `PullParameters::try_from`; `src/server/pull.rs` `pull_ns`).
    side.backups = franca_copies("root@pam");
    side.address = PbsAddress::from_url("https://127.0.0.1:8008");
    side.sync_jobs = Ok(vec![sync_job(
        "pull-sp", "mirror", "sp", "sp", "store1", "pull",
    )]);
    side.sync_jobs_hidden = None;
    side.remotes = Ok(vec![remote("sp", "127.0.0.1", 8007)]);
    let pull = PbsJobFact {
        kind: "sync".to_owned(),
        id: "pull-sp".to_owned(),
        store: "mirror".to_owned(),
        last_ok: Some(true),
        last_end: Some(NOW - H),
        running_since: None,
        pulls_into: Some("sp".to_owned()),
    };
    pbs_facts("https://127.0.0.1:8008", side, vec![pull])
}

/// `snapshots` with their group's owner set to `owner` (pbs-api-types `SnapshotListItem.owner`).
fn owned_by(owner: &str, mut snapshots: Vec<Snapshot>) -> Vec<Snapshot> {
    for s in &mut snapshots {
        s.owner = Some(owner.parse().unwrap());
    }
    snapshots
}

/// Franca's `mirror`/`sp` holding gitlab and legacy-nfs, owned by `owner`.
fn franca_copies(owner: &str) -> Vec<SiteBackups> {
    let copies = owned_by(
        owner,
        vec![
            like_gitlab(BackupType::Vm, "100", 2),
            like_gitlab(BackupType::Ct, "202", 30),
        ],
    );
    vec![SiteBackups::new(
        "mirror",
        "sp",
        Ok(newest_per_guest(
            "mirror",
            "sp",
            &copies,
            NOW,
            Duration::MAX,
        )),
    )]
}

/// A sync job as `GET /admin/sync` lists it (pbs-api-types `src/jobs.rs` `SyncJobConfig`:
/// `store`/`ns` are this server's side, `remote`/`remote-store`/`remote-ns` the other's,
/// `sync-direction` pull or push).
fn sync_job(
    id: &str,
    store: &str,
    ns: &str,
    remote: &str,
    remote_store: &str,
    direction: &str,
) -> SyncJob {
    serde_json::from_value(serde_json::json!({
        "id": id, "store": store, "ns": ns, "remote": remote,
        "remote-store": remote_store, "sync-direction": direction,
    }))
    .unwrap()
}

/// A remote as `GET /config/remote` lists it (pbs-api-types `src/remote.rs` `RemoteConfig`).
fn remote(name: &str, host: &str, port: u16) -> Remote {
    serde_json::from_value(serde_json::json!({
        "name": name, "host": host, "port": port, "auth-id": "sync@pbs",
    }))
    .unwrap()
}

/// `pbs` with its chain reading changed by `change`.
fn changed(mut pbs: PbsFacts, change: impl FnOnce(&mut PbsSide)) -> PbsFacts {
    let mut side = pbs.chain.get().unwrap().clone();
    change(&mut side);
    pbs.chain = PbsChainReading::new(side);
    pbs
}

fn audit(franca: Sourced<PbsFacts>) -> Vec<String> {
    audit_of(&live_estate(), franca)
}

fn audit_of(topology: &cpps_topology::Topology, franca: Sourced<PbsFacts>) -> Vec<String> {
    audit_with(topology, sp_pbs(), franca)
}

fn audit_pve(pve: PveFacts, franca: Sourced<PbsFacts>) -> Vec<String> {
    audit_full(&live_estate(), pve, sp_pbs(), franca)
}

fn audit_with(
    topology: &cpps_topology::Topology,
    sp_pbs: PbsFacts,
    franca: Sourced<PbsFacts>,
) -> Vec<String> {
    audit_full(topology, sp_pve(), sp_pbs, franca)
}

fn audit_full(
    topology: &cpps_topology::Topology,
    sp_pve: PveFacts,
    sp_pbs: PbsFacts,
    franca: Sourced<PbsFacts>,
) -> Vec<String> {
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(sp_pve);
    sp.pbs = Sourced::Observed(sp_pbs);
    let mut fr = SiteObservation::new("franca");
    fr.pbs = franca;
    let audit = live::audit(
        topology,
        &Observation {
            taken_at: NOW,
            sites: vec![sp, fr],
        },
        &LiveOptions::at(NOW),
    );
    rule_messages(&audit.report, "BACKUP-005")
}

fn at(hours: i64) -> jiff::Timestamp {
    jiff::Timestamp::from_second(NOW - hours * H).unwrap()
}

/// One guest fine (no finding), one with no copy on the other site, one whose newest snapshot
/// is unfinished (its newest *finished* one, 30 h old, is judged against the 24 h RPO).
#[test]
fn backup_005_judges_each_guests_chain_across_both_sites() {
    let found = audit(Sourced::Observed(franca_pbs()));
    assert_eq!(
        found,
        [
            format!(
                "warning legacy-nfs backup chain of guest 202 (legacy-nfs) BREACH: backed up here at {t30}, verified (snapshot of {t30}), copied to franca at {t30}; the newest finished backup ({t30}) is older than the RPO; no backup verified ok within the RPO; the newest copy on franca ({t30}) is older than the RPO (RPO 1d)",
                t30 = at(30)
            ),
            format!(
                "warning monitoring backup chain of guest 201 (monitoring) BREACH: backed up here at {t2}, verified (snapshot of {t2}), no copy seen on franca; no copy on franca (RPO 1d)",
                t2 = at(2)
            ),
        ]
    );
}

/// The other site's PBS not read: every copy is "cannot tell", never ok, and a breach here
/// stays a breach.
#[test]
fn backup_005_cannot_tell_a_copy_when_the_other_sites_pbs_was_not_read() {
    let found = audit(Sourced::Failed(SourceFailure {
        source: SourceKind::Pbs,
        endpoint: "https://127.0.0.1:8008".to_owned(),
        reason: "connection refused".to_owned(),
    }));
    assert_eq!(found.len(), 3, "{found:#?}");
    let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
    assert_eq!(
        gitlab,
        &format!(
            "warning gitlab backup chain of guest 100 (gitlab) cannot tell: backed up here at {t2}, verified (snapshot of {t2}), copy not read; the copy on franca could not be read: the PBS of site franca was not read: pbs at https://127.0.0.1:8008: connection refused (RPO 1d)",
            t2 = at(2)
        )
    );
    assert!(
        found
            .iter()
            .any(|m| m.contains("guest 202 (legacy-nfs) BREACH"))
    );
}

/// The other site's PBS read, but not its sync jobs (PBS filters or refuses them without
/// `Remote.Audit`: proxmox-backup `src/api2/admin/sync.rs` `check_sync_job_read_access`):
/// where the copies land is unknown, so every copy is "cannot tell".
#[test]
fn backup_005_cannot_tell_a_copy_when_the_other_sites_sync_jobs_are_unread() {
    let mut franca = changed(franca_pbs(), |side| {
        side.sync_jobs = Err("403 Forbidden: permission check failed".to_owned());
    });
    franca.jobs.clear();
    franca
        .partial
        .push("sync jobs: 403 Forbidden: permission check failed".to_owned());
    let found = audit(Sourced::Observed(franca));
    let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
    assert!(
        gitlab.contains("cannot tell")
            && gitlab.contains("the copy on franca could not be read: the receiving server's sync jobs could not be read: 403 Forbidden"),
        "{gitlab}"
    );
}

/// L2 (audit 31, third look): franca's token lacks Remote.Audit, so PBS may have left a sync
/// job out of `GET /admin/sync` (proxmox-backup `src/api2/config/sync.rs`
/// `check_sync_job_read_access` filters rather than refuses) that copies monitoring somewhere
/// else: its missing copy is "cannot tell", not a breach.
#[test]
fn backup_005_cannot_tell_a_missing_copy_when_sync_jobs_may_be_hidden() {
    let franca = changed(franca_pbs(), |side| {
        side.sync_jobs_hidden =
            Some("the token lacks Remote.Audit propagating from /remote".to_owned());
    });
    let found = audit(Sourced::Observed(franca));
    let monitoring = found.iter().find(|m| m.contains("guest 201")).unwrap();
    assert_eq!(
        monitoring,
        &format!(
            "warning monitoring backup chain of guest 201 (monitoring) cannot tell: backed up here at {t2}, verified (snapshot of {t2}), no copy seen on franca; not among the groups and sync jobs of franca that the credentials may list (RPO 1d)",
            t2 = at(2)
        )
    );
}

/// Without an RPO in the documents the ages are "not stated": every guest is said, the ages
/// are not judged, and what breaches without them (monitoring's missing copy) still does.
#[test]
fn backup_005_without_a_stated_rpo_judges_all_but_the_ages() {
    let text = LIVE_ESTATE.replace("\nrpo: 24h\n", "\n");
    assert_ne!(text, LIVE_ESTATE);
    let topology = load("tests/fixtures/live/two-sites.yaml", &text);
    let found = audit_of(&topology, Sourced::Observed(franca_pbs()));
    assert_eq!(found.len(), 3, "{found:#?}");
    let t30 = at(30);
    assert!(found.contains(&format!(
        "warning legacy-nfs backup chain of guest 202 (legacy-nfs) ok: backed up here at {t30}, verified (snapshot of {t30}), copied to franca at {t30}; RPO not stated, so the ages were not judged"
    )));
    let monitoring = found.iter().find(|m| m.contains("guest 201")).unwrap();
    assert!(monitoring.contains("BREACH") && monitoring.contains("no copy on franca"));
}

/// E8: a pull job counts as SP's copy only when its remote points at SP's PBS (host and port,
/// or the fingerprint) and its `remote-store` is the datastore SP's PVE writes to
/// (proxmox-backup `src/server/pull.rs` `PullParameters::new`: one remote, one remote store
/// and namespace a job). Franca pulling `store1` from a third server, or another store of SP,
/// copies nothing of SP's guests, however their group ids match.
#[test]
fn backup_005_counts_only_pull_jobs_from_this_sites_pbs_and_store() {
    let third = changed(franca_pbs(), |side| {
        side.remotes = Ok(vec![remote("sp", "127.0.0.1", 8009)]);
    });
    let other_store = changed(franca_pbs(), |side| {
        side.sync_jobs = Ok(vec![sync_job(
            "pull-sp", "mirror", "sp", "sp", "store2", "pull",
        )]);
    });
    for franca in [third, other_store] {
        let found = audit(Sourced::Observed(franca));
        let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
        assert_eq!(
            gitlab,
            &format!(
                "warning gitlab backup chain of guest 100 (gitlab) cannot tell: backed up here at {t2}, verified (snapshot of {t2}), copy not read; the copy on franca could not be read: no sync job copies datastore store1 to franca (RPO 1d)",
                t2 = at(2)
            )
        );
    }
}

/// E8: the remotes that say where a pull job reads from could not be read (`GET
/// /config/remote` needs `Remote.Audit`, proxmox-backup `src/api2/config/remote.rs`
/// `list_remotes`): cannot tell.
#[test]
fn backup_005_cannot_tell_a_copy_when_the_remotes_are_unread() {
    let franca = changed(franca_pbs(), |side| {
        side.remotes = Err("403 Forbidden".to_owned())
    });
    let found = audit(Sourced::Observed(franca));
    let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
    assert!(
        gitlab.contains("cannot tell")
            && gitlab.contains("pull job pull-sp: the remotes could not be read: 403 Forbidden"),
        "{gitlab}"
    );
}

/// S4: PBS 3.3+ push jobs run on the sender (`sync-direction: push`, proxmox-backup
/// `src/server/push.rs` `PushParameters::new`: `store`/`ns` local, `remote-store`/`remote-ns`
/// on the remote, namespaces mapped by prefix in `map_to_target`), so franca has no pull job.
/// SP's push job into franca's `mirror`/`sp` makes the copies read there count.
#[test]
fn backup_005_reads_a_copy_pushed_by_this_site() {
    // A push writes as its remote's `auth-id`, `sync@pbs` here (proxmox-backup
    // `src/server/push.rs` `PushTarget::remote_user`).
    let mut franca = changed(franca_pbs(), |side| {
        side.sync_jobs = Ok(Vec::new());
        side.backups = franca_copies("sync@pbs");
    });
    franca.jobs.clear();
    let mut push = sync_job("push-franca", "store1", "", "franca", "mirror", "push");
    push.remote_ns = Some("sp".to_owned());
    let sp = changed(sp_pbs(), |side| {
        side.sync_jobs = Ok(vec![push]);
        side.remotes = Ok(vec![remote("franca", "127.0.0.1", 8008)]);
    });
    let found = audit_with(&live_estate(), sp, Sourced::Observed(franca));
    assert_eq!(found.len(), 2, "{found:#?}");
    let monitoring = found.iter().find(|m| m.contains("guest 201")).unwrap();
    assert!(
        monitoring.contains("BREACH: ") && monitoring.contains("no copy on franca"),
        "{monitoring}"
    );
    assert!(
        found
            .iter()
            .any(|m| m.contains("guest 202 (legacy-nfs) BREACH"))
    );
}

/// G2 (audit 31): both sites number their guests from 100, so franca's `mirror`/`sp` may hold
/// franca's own vm/100 (written by its PVE's token) rather than SP's. A pull writes only into
/// a group its job's owner owns ("owner check failed", proxmox-backup `src/server/pull.rs`
/// `pull_ns`; the group's owner is pbs-api-types `SnapshotListItem.owner`), so that group is
/// no copy: BACKUP-005 says gitlab has none.
#[test]
fn backup_005_takes_no_group_of_another_owner_as_the_copy() {
    let franca = changed(franca_pbs(), |side| {
        side.backups = franca_copies("backup@pbs!pve-franca");
    });
    let found = audit(Sourced::Observed(franca));
    let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
    assert!(
        gitlab.contains("BREACH: ")
            && gitlab
                .contains("no copy on franca: its vm/100 there is owned by backup@pbs!pve-franca"),
        "{gitlab}"
    );
}

/// E3: a PVE storage of type `pbs` names its server as well as its datastore (pve-storage
/// `src/PVE/Storage/PBSPlugin.pm` `options`: `server`, `port`, `fingerprint`, `datastore`).
/// SP's storage writing to franca's PBS (127.0.0.1:8008) under the datastore name `store1`
/// is not judged against SP's own `store1`, where the same group ids sit.
#[test]
fn backup_005_matches_a_storage_to_a_pbs_by_its_server_too() {
    let mut pve = sp_pve();
    let mut input = pve.chain.get().unwrap().clone().unwrap();
    input.targets = vec![
        PbsTarget::new("pbs-sp", "store1", "")
            .server(PbsAddress::from_url("https://127.0.0.1:8008").unwrap()),
    ];
    pve.chain = PveChainReading::new(Ok(input));
    let found = audit_pve(pve, Sourced::Observed(franca_pbs()));
    let gitlab = found.iter().find(|m| m.contains("guest 100")).unwrap();
    assert_eq!(
        gitlab,
        "warning gitlab backup chain of guest 100 (gitlab) BREACH: no backup here, never verified, copy not read; no enabled vzdump job to a PBS storage of this report includes it (RPO 1d)"
    );
}

/// G3: `GET /cluster/resources` skips, silently, each guest without `VM.Audit` on
/// `/vms/{vmid}` (pve-manager `PVE/API2/Cluster.pm` `resources`: `next if
/// !$rpcenv->check($authuser, "/vms/$vmid", ['VM.Audit'], 1)`), so over a pool-scoped token
/// the chain is judged for a subset of the guests. BACKUP-005 says that it cannot tell the
/// chain of the guests it may not see, instead of staying silent about them.
#[test]
fn backup_005_cannot_tell_the_guests_a_trimmed_list_leaves_out() {
    let mut pve = sp_pve();
    pve.guests_trimmed = Some(
        "VM.Audit on /vms is not held: the guest list leaves out the guests the credentials may not audit"
            .to_owned(),
    );
    let found = audit_pve(pve, Sourced::Observed(franca_pbs()));
    assert!(
        found.contains(&"warning sp cannot tell the backup chain of the guests of site sp that PVE did not list: the guest list may be trimmed: VM.Audit on /vms is not held: the guest list leaves out the guests the credentials may not audit".to_owned()),
        "{found:#?}"
    );
    // The guests it did list are judged as before.
    assert!(
        found
            .iter()
            .any(|m| m.contains("guest 202 (legacy-nfs) BREACH")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|m| m.contains("guest 201 (monitoring) BREACH")),
        "{found:#?}"
    );
}

/// A vzdump task log, line by line as pve-manager writes it (`PVE/VZDump.pm` `exec_backup`,
/// `exec_backup_task`; pve-guest-common `src/PVE/VZDump/Plugin.pm` `debugmsg`): guest 100's
/// part refused (stop mode on an HA service, `exec_backup_task`'s `die`), 201's finished.
const STOP_MODE_REFUSED: &str = "Cannot execute a backup with stop mode on a HA managed and enabled Service. Use snapshot mode or disable the Service.";

fn vzdump_log_lines() -> Vec<String> {
    vec![
        "INFO: starting new backup job: vzdump 100 201 --mode stop --storage pbs-sp".to_owned(),
        format!("ERROR: Backup of VM 100 failed - {STOP_MODE_REFUSED}"),
        "INFO: Failed at 2026-11-29 06:00:01".to_owned(),
        "INFO: Starting Backup of VM 201 (lxc)".to_owned(),
        "INFO: Backup started at 2026-11-29 06:00:01".to_owned(),
        "INFO: Finished Backup of VM 201 (00:00:40)".to_owned(),
        "INFO: Backup finished at 2026-11-29 06:00:41".to_owned(),
        "INFO: Backup job finished with errors".to_owned(),
        "TASK ERROR: job errors".to_owned(),
    ]
}

/// The lists of a site where gitlab (100) runs on pve-ippri-32: the guests, the storages (a
/// PBS one, `pbs-sp`) and one daily vzdump job to it.
fn gitlab_site_lists() -> [(&'static str, serde_json::Value); 3] {
    [
        (
            "cluster/resources",
            serde_json::json!([{"id": "qemu/100", "type": "qemu", "vmid": 100,
                                "node": "pve-ippri-32", "name": "gitlab", "status": "running"}]),
        ),
        (
            "storage",
            serde_json::json!([{"storage": "pbs-sp", "type": "pbs", "datastore": "store1",
                                "server": "127.0.0.1", "content": "backup"},
                               {"storage": "local", "type": "dir", "path": "/var/lib/vz",
                                "content": "iso,vztmpl,backup"}]),
        ),
        (
            "cluster/backup",
            serde_json::json!([{"id": "backup-daily", "type": "vzdump", "enabled": 1,
                                "schedule": "21:00", "storage": "pbs-sp", "vmid": "100,201"}]),
        ),
    ]
}

/// The backup chain's input as the PVE side reads it (`PveSource::backup_chain`) from a
/// cluster where gitlab (100) runs on pve-ippri-32, with the vzdump tasks of pve-ippri-31 and
/// -32 as given and the log of `upid` (read once, from its first line), then gitlab's
/// snapshot of 30 hours ago in store1.
async fn chain_input(
    on_31: serde_json::Value,
    on_32: serde_json::Value,
    upid: &cpps_proxmox::Upid,
    log: Vec<String>,
) -> ChainInput {
    use wiremock::matchers::query_param;
    let api = pve::pve_mock_api().await;
    let answer = |data: serde_json::Value| pve::data_answer(data);
    let routes = gitlab_site_lists().into_iter().chain([
        (
            "nodes",
            serde_json::json!([{"node": "pve-ippri-31", "status": "online"},
                               {"node": "pve-ippri-32", "status": "online"},
                               {"node": "pve-ippri-33", "status": "offline"}]),
        ),
        ("nodes/pve-ippri-31/tasks", on_31),
        ("nodes/pve-ippri-32/tasks", on_32),
        (
            "access/permissions",
            serde_json::json!({"/nodes/pve-ippri-31": {"Sys.Audit": 1},
                               "/nodes/pve-ippri-32": {"Sys.Audit": 1}}),
        ),
    ]);
    for (route, data) in routes {
        pve::pve_call("GET", route)
            .respond_with(answer(data))
            .mount(api.server())
            .await;
    }
    let lines: Vec<serde_json::Value> = log
        .iter()
        .enumerate()
        .map(|(n, t)| serde_json::json!({"n": n + 1, "t": t}))
        .collect();
    pve::mount_once(
        &api,
        pve::pve_call("GET", &format!("{}/log", upid.task_path())).and(query_param("start", "0")),
        wiremock::ResponseTemplate::new(200)
            .set_body_json(serde_json::json!({"data": lines, "total": lines.len()})),
    )
    .await;
    let mut input = live::sources::PveSource::backup_chain(&pve::mock_client(&api))
        .await
        .unwrap();
    api.verify().await;
    // An offline node without guests is not asked: its list would only wait for a 595.
    api.assert_no_unexpected_requests();
    input.here = vec![SiteBackups::new(
        "store1",
        "",
        Ok(newest_per_guest(
            "store1",
            "",
            &[like_gitlab(BackupType::Vm, "100", 30)],
            NOW,
            Duration::MAX,
        )),
    )];
    input
}

/// `pbs-report --chain` reads the guests' nodes and every online node. When `GET /nodes` fails
/// (here a 500 as PVE writes errors, pve-http-server `src/PVE/APIServer/Formatter/Standard.pm`),
/// only the guests' nodes are known, so the other nodes' task lists, where a guest moved off
/// one keeps its runs before, are said not read; before, the failure was dropped.
#[tokio::test]
async fn a_failed_node_list_leaves_the_other_nodes_task_lists_unread() {
    let api = pve::pve_mock_api().await;
    let routes = gitlab_site_lists().into_iter().chain([
        ("nodes/pve-ippri-32/tasks", serde_json::json!([])),
        (
            "access/permissions",
            serde_json::json!({"/nodes/pve-ippri-32": {"Sys.Audit": 1}}),
        ),
    ]);
    for (route, data) in routes {
        pve::pve_call("GET", route)
            .respond_with(pve::data_answer(data))
            .mount(api.server())
            .await;
    }
    pve::pve_call("GET", "nodes")
        .respond_with(pve::error_answer(500, "cluster not ready - no quorum?"))
        .mount(api.server())
        .await;
    let input = live::sources::PveSource::backup_chain(&pve::mock_client(&api))
        .await
        .unwrap();
    let [(node, why)] = input.runs_unread.as_slice() else {
        panic!("{:?}", input.runs_unread);
    };
    assert_eq!(node, "(other nodes)");
    assert!(
        why.starts_with("the node list could not be read (") && why.contains("no quorum"),
        "{why}"
    );
    assert!(why.ends_with("): only the guests' nodes were"), "{why}");
}

/// H1 (audit 31): a run counts for the chain only when its log shows it wrote to the chain's
/// PBS storage (pve-manager `PVE/VZDump.pm` `exec_backup`: "starting new backup job: vzdump
/// 100 --storage pbs-sp …"), so the log of a guest's own failed task must be read too, or its
/// failure is only "cannot tell". A task for one guest names it in the list's `id`
/// (`PVE/API2/VZDump.pm` `vzdump`), and a failed one ends `job errors` (`exec_backup`'s
/// `die "job errors"`). Failed first: no log was read and the verdict was "cannot tell".
#[tokio::test]
async fn a_guests_own_failed_pbs_run_is_read_from_its_log() {
    let upid = pve::upid("UPID:pve-ippri-32:0000ABCE:00001235:6929B010:vzdump:100:root@pam:");
    let on_32 = serde_json::json!([{"upid": upid.to_string(), "node": "pve-ippri-32",
                                    "type": "vzdump", "id": "100", "user": "root@pam",
                                    "starttime": NOW - 2 * H, "endtime": NOW - H,
                                    "status": "job errors"}]);
    let log = vec![
        "INFO: starting new backup job: vzdump 100 --mode snapshot --storage pbs-sp".to_owned(),
        "INFO: Starting Backup of VM 100 (qemu)".to_owned(),
        format!("ERROR: Backup of VM 100 failed - {STOP_MODE_REFUSED}"),
        "INFO: Failed at 2026-11-29 06:00:01".to_owned(),
        "INFO: Backup job finished with errors".to_owned(),
        "TASK ERROR: job errors".to_owned(),
    ];
    let input = chain_input(serde_json::json!([]), on_32, &upid, log).await;
    let chains = cpps_pbs::chain::judge(&input, NOW, Duration::from_secs(48 * 3600));
    assert_eq!(chains.len(), 1);
    assert_eq!(
        chains[0].last_run,
        cpps_pbs::chain::LastRun::Ended {
            end: NOW - H,
            status: "job errors".to_owned(),
            success: false,
        },
        "{}",
        chains[0]
    );
    assert_eq!(chains[0].verdict, cpps_pbs::chain::Verdict::Breach);
}

/// F5 (audit 31): gitlab (100) now runs on pve-ippri-32, after HA moved it off pve-ippri-31,
/// where the nightly task for several guests failed its part. The PVE side reads the vzdump
/// tasks of every node `GET /nodes` lists, not only of the nodes hosting guests now, and the
/// log of a task for several guests (`GET /nodes/{node}/tasks/{upid}/log`, pve-manager
/// `PVE/API2/Tasks.pm` `read_task_log`), so gitlab is judged from its old node's task: a
/// breach with the log's error. An offline node hosting no guest is not asked (`node_tasks`
/// is proxied to the node, `proxyto => 'node'`).
#[tokio::test]
async fn a_migrated_guests_failed_part_of_a_shared_task_is_read_from_its_old_node() {
    let upid = pve::upid("UPID:pve-ippri-31:0000ABCD:00001234:6929B010:vzdump::root@pam:");
    let on_31 = serde_json::json!([{"upid": upid.to_string(), "node": "pve-ippri-31",
                                    "type": "vzdump", "id": "", "user": "root@pam",
                                    "starttime": NOW - 2 * H, "endtime": NOW - H,
                                    "status": "job errors"}]);
    let input = chain_input(on_31, serde_json::json!([]), &upid, vzdump_log_lines()).await;
    let chains = cpps_pbs::chain::judge(&input, NOW, Duration::from_secs(48 * 3600));
    assert_eq!(chains.len(), 1);
    assert_eq!(
        chains[0].last_run,
        cpps_pbs::chain::LastRun::Ended {
            end: NOW - H,
            status: STOP_MODE_REFUSED.to_owned(),
            success: false,
        },
        "{}",
        chains[0]
    );
    assert_eq!(chains[0].verdict, cpps_pbs::chain::Verdict::Breach);
}

/// K1 (audit 31, second pass): `GET /storage` lists storages of every type (pve-storage
/// `PVE/API2/Storage/Config.pm` `index`), here the `dir` storage `local` beside `pbs-sp`.
/// gitlab's own task to `local` failed after its PBS run ended OK (the log's command,
/// pve-manager `PVE/VZDump.pm` `exec_backup`: "starting new backup job: vzdump 100 --storage
/// local"): a listed storage outside the chain is elsewhere, so the PBS run is gitlab's last.
/// Failed first: the `local` run was "cannot tell", as if the storage list hid `local`.
#[tokio::test]
async fn a_guests_failed_run_to_a_listed_dir_storage_is_elsewhere() {
    let upid = pve::upid("UPID:pve-ippri-32:0000ABCF:00001236:6929B010:vzdump:100:root@pam:");
    let on_32 = serde_json::json!([
        {"upid": "UPID:pve-ippri-32:0000ABC0:00001230:6929B000:vzdump:100:root@pam:",
         "node": "pve-ippri-32", "type": "vzdump", "id": "100", "user": "root@pam",
         "starttime": NOW - 30 * H, "endtime": NOW - 30 * H + 600, "status": "OK"},
        {"upid": upid.to_string(), "node": "pve-ippri-32", "type": "vzdump", "id": "100",
         "user": "root@pam", "starttime": NOW - 2 * H, "endtime": NOW - H,
         "status": "job errors"}]);
    let log = vec![
        "INFO: starting new backup job: vzdump 100 --mode snapshot --storage local".to_owned(),
        "INFO: Starting Backup of VM 100 (qemu)".to_owned(),
        "ERROR: Backup of VM 100 failed - unable to create temporary directory".to_owned(),
        "INFO: Failed at 2026-11-29 07:00:01".to_owned(),
        "INFO: Backup job finished with errors".to_owned(),
        "TASK ERROR: job errors".to_owned(),
    ];
    let input = chain_input(serde_json::json!([]), on_32, &upid, log).await;
    let chains = cpps_pbs::chain::judge(&input, NOW, Duration::from_secs(48 * 3600));
    assert_eq!(chains.len(), 1);
    assert_eq!(
        chains[0].last_run,
        cpps_pbs::chain::LastRun::Ended {
            end: NOW - 30 * H + 600,
            status: "OK".to_owned(),
            success: true,
        },
        "{}",
        chains[0]
    );
    assert!(
        chains[0].reasons.iter().all(|r| !r.contains("storage")),
        "{}",
        chains[0]
    );
}
