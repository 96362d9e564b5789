//! BACKUP-003 takes a group for a guest's only where this site's PVE writes and no other writer
//! may have written it (issue 31, H6). Both sites number guests from 100, and the other site's
//! PBS may push its `vm/100` into this site's PBS. The other site's PBS reading is cpps-pbs's
//! fixtures `sync_jobs.json` (push job `s-push-b` into remote `pbs-b`'s `from-site-a`) and
//! `remotes.json` (`pbs-b`, written as `sync@pbs!site-a`), shaped as `pbs-apidoc.json` says.
#![cfg(feature = "live")]

mod common;

use std::path::Path;

use common::{live_estate, rule_messages, running_guest};
use cpps_pbs::chain::{ChainInput, PbsAddress, PbsSide, PbsTarget};
use cpps_topology::live::facts::{
    GuestBackupFact, PbsChainReading, PbsFacts, PveChainReading, PveFacts, SiteObservation, Sourced,
};
use cpps_topology::live::{self, LiveOptions, Observation};

/// "Now" of cpps-pbs's fixtures: 2026-11-29T08:00:00Z.
const NOW: i64 = 1_795_939_200;

/// This site's PBS as franca's remote `pbs-b` names it (cpps-pbs `remotes.json`).
const HOST: &str = "pbs-b.site-b.example";
const FINGERPRINT: &str = "64:d3:ff:3a:50:38:53:5a:9b:f7:50:8a:c1:ed:6c:13:05:13:c3:12:1b:d5:9a:30:ed:38:0c:a3:11:c8:1f:59";

/// The auth-id franca's push writes as: the remote's (proxmox-backup `src/server/push.rs`
/// `PushParameters::new` logs in as the remote's `auth-id`, and `src/api2/backup/mod.rs`
/// makes the caller the owner of a group it creates, `create_locked_backup_group`).
const PUSHER: &str = "sync@pbs!site-a";

fn fixture_data<T: serde::de::DeserializeOwned>(name: &str) -> T {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../cpps-pbs/tests/fixtures")
        .join(name);
    let text = std::fs::read_to_string(&file).unwrap();
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    serde_json::from_value(value["data"].clone()).unwrap()
}

/// A group backed up a minute ago, verified, owned by `owner`.
fn group(store: &str, ty: &str, id: &str, owner: Option<&str>) -> GuestBackupFact {
    GuestBackupFact {
        store: store.to_owned(),
        namespace: String::new(),
        backup_type: ty.to_owned(),
        backup_id: id.to_owned(),
        newest_time: NOW - 60,
        newest_verified_time: Some(NOW - 60),
        owner: owner.map(str::to_owned),
    }
}

/// Site sp: its PVE writes to `pve_store` on this PBS (pve-storage `PBSPlugin.pm`: `server`,
/// `datastore`, no `namespace`); its PBS holds `backups`.
fn sp(pve_store: &str, backups: Vec<GuestBackupFact>) -> SiteObservation {
    let mut input = ChainInput::default();
    input.targets = vec![
        PbsTarget::new("pbs-sp", pve_store, "")
            .server(PbsAddress::new(HOST, 8007).fingerprint(Some(FINGERPRINT.to_owned()))),
    ];
    let mut site = SiteObservation::new("sp");
    site.proxmox = Sourced::Observed(PveFacts {
        guests: vec![
            running_guest(100, "gitlab"),
            running_guest(101, "legacy-nfs"),
            running_guest(200, "monitoring"),
        ],
        chain: PveChainReading::new(Ok(input)),
        ..PveFacts::default()
    });
    let mut side = PbsSide::new(true);
    side.address = Some(PbsAddress::new(HOST, 8007).fingerprint(Some(FINGERPRINT.to_owned())));
    // The token audits every datastore and remote: PBS hides no sync job from it.
    side.sync_jobs_hidden = None;
    site.pbs = Sourced::Observed(PbsFacts {
        server: format!("https://{HOST}:8007"),
        datastores: vec!["store1".to_owned(), "from-site-a".to_owned()],
        backups,
        chain: PbsChainReading::new(side),
        ..PbsFacts::default()
    });
    site
}

/// Site franca: its PBS pushes `store1` into remote `pbs-b`'s `from-site-a` (this site's).
fn franca() -> SiteObservation {
    let mut side = PbsSide::new(true);
    side.sync_jobs = Ok(fixture_data("sync_jobs.json"));
    side.sync_jobs_hidden = None;
    side.remotes = Ok(fixture_data("remotes.json"));
    let mut site = SiteObservation::new("franca");
    site.pbs = Sourced::Observed(PbsFacts {
        server: "https://pbs-a.site-a.example:8007".to_owned(),
        chain: PbsChainReading::new(side),
        ..PbsFacts::default()
    });
    site
}

fn backup_003(sites: Vec<SiteObservation>) -> Vec<String> {
    let observed = Observation {
        taken_at: NOW,
        sites,
    };
    let audit = live::audit(&live_estate(), &observed, &LiveOptions::at(NOW));
    rule_messages(&audit.report, "BACKUP-003")
}

// The case: franca's push left its own `vm/100` in `from-site-a`, owned by the push's
// remote user; sp's PVE writes to `store1` and has no backup of 100 there. The group is not
// gitlab's. Failed first: no finding (the one `vm/100` on the server was taken as gitlab's,
// recent and verified).
#[test]
fn a_group_pushed_by_the_other_site_is_not_this_guests() {
    let sites = vec![
        sp(
            "store1",
            vec![
                group("from-site-a", "vm", "100", Some(PUSHER)),
                group("store1", "vm", "101", Some("pve-sp@pbs")),
                group("store1", "ct", "200", Some("pve-sp@pbs")),
            ],
        ),
        franca(),
    ];
    assert_eq!(
        backup_003(sites),
        [
            "warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://pbs-b.site-b.example:8007: vm/100 is in from-site-a, where no PBS storage of this site's PVE writes (store1): it may be another cluster's, written by a push sync or by that cluster's storage"
        ]
    );
}

// Where sp's PVE and franca's push write the same datastore, the owner tells the groups apart:
// a push writes only into groups its auth-id owns (`src/server/push.rs` `push_group_do` skips
// others), and a backup only into groups of the caller (`src/api2/backup/mod.rs`, "backup
// owner check failed"). Owned by the push's user: franca's; by another: sp's own; owner not
// listed: cannot tell.
#[test]
fn where_both_write_the_owner_decides() {
    let sites = vec![
        sp(
            "from-site-a",
            vec![
                group("from-site-a", "vm", "100", Some(PUSHER)),
                group("from-site-a", "vm", "101", Some("pve-sp@pbs")),
                group("from-site-a", "ct", "200", None),
            ],
        ),
        franca(),
    ];
    assert_eq!(
        backup_003(sites),
        [
            "warning gitlab guest gitlab (100) has no backup of its own on https://pbs-b.site-b.example:8007: vm/100 in from-site-a is owned by sync@pbs!site-a, as which push job s-push-b of site franca's PBS writes",
            "warning monitoring guest monitoring (200): cannot tell whether it has a backup on https://pbs-b.site-b.example:8007: ct/200 in from-site-a may be written by push job s-push-b of site franca's PBS, and who owns the group or whom it writes as is not known",
        ]
    );
}

// Without this site's PVE storages no group can be placed: "cannot tell", never a backup.
#[test]
fn without_the_pve_storages_a_group_is_ambiguous() {
    let mut site = sp(
        "store1",
        vec![group("store1", "vm", "100", Some("pve-sp@pbs"))],
    );
    if let Sourced::Observed(pve) = &mut site.proxmox {
        pve.chain = PveChainReading::new(Err("403 Forbidden".to_owned()));
    }
    let messages = backup_003(vec![site]);
    assert!(
        messages.contains(&"warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://pbs-b.site-b.example:8007: vm/100 is in store1, and where this site's PVE writes is not known (this site's PVE storages could not be read: 403 Forbidden)".to_owned()),
        "{messages:#?}"
    );
}

// A writer list that could not be read adds an unknown writer, not none: with franca's sync
// jobs unread (PBS filters or refuses them by the token's rights, proxmox-backup
// `src/api2/admin/sync.rs` `list_config_sync_jobs`), its push may have written sp's `vm/100`,
// so BACKUP-003 cannot tell; a check that found no input is never "ok". Failed first: the group
// was taken as gitlab's, and nothing was said.
#[test]
fn an_unread_push_list_of_the_other_site_is_cannot_tell() {
    let mut other = franca();
    if let Sourced::Observed(pbs) = &mut other.pbs {
        let mut side = PbsSide::new(true);
        side.sync_jobs = Err("403 Forbidden".to_owned());
        side.remotes = Ok(fixture_data("remotes.json"));
        pbs.chain = PbsChainReading::new(side);
    }
    let sites = vec![
        sp(
            "store1",
            vec![
                group("store1", "vm", "100", Some("pve-sp@pbs")),
                group("store1", "vm", "101", Some("pve-sp@pbs")),
                group("store1", "ct", "200", Some("pve-sp@pbs")),
            ],
        ),
        other,
    ];
    let messages = backup_003(sites);
    assert!(
        messages.contains(&"warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://pbs-b.site-b.example:8007: vm/100 in store1 may have been written by a writer whose list could not be read (site franca's PBS sync jobs: 403 Forbidden)".to_owned()),
        "{messages:#?}"
    );
}

/// L2 (audit 31, third look): PBS lists a sync job only with `Datastore.Audit` on its datastore
/// and `Remote.Audit` on its remote (proxmox-backup `src/api2/config/sync.rs`
/// `check_sync_job_read_access`, filtering, not refusing), so a push of franca that the token
/// may not see may have written `vm/100` here: a whole-looking list is not the truth.
#[test]
fn a_push_list_the_token_may_not_see_whole_is_cannot_tell() {
    let mut other = franca();
    if let Sourced::Observed(pbs) = &mut other.pbs {
        let mut side = PbsSide::new(true);
        side.sync_jobs = Ok(Vec::new());
        side.sync_jobs_hidden =
            Some("the token lacks Remote.Audit propagating from /remote".to_owned());
        side.remotes = Ok(fixture_data("remotes.json"));
        pbs.chain = PbsChainReading::new(side);
    }
    let sites = vec![
        sp(
            "store1",
            vec![group("store1", "vm", "100", Some("pve-sp@pbs"))],
        ),
        other,
    ];
    let messages = backup_003(sites);
    assert!(
        messages.contains(&"warning gitlab guest gitlab (100): cannot tell whether it has a backup on https://pbs-b.site-b.example:8007: vm/100 in store1 may have been written by a writer whose list could not be read (site franca's PBS sync jobs may leave some out: the token lacks Remote.Audit propagating from /remote)".to_owned()),
        "{messages:#?}"
    );
}

/// K2, the owner part (audit 31, second look): sp's PVE storage writes as `pve-sp@pbs`
/// (pve-storage `src/PVE/Storage/PBSPlugin.pm` `username`), and a new group is owned by the
/// auth-id that created it, which alone adds snapshots to it (proxmox-backup
/// `src/api2/backup/mod.rs`, "backup owner check failed"). A `vm/100` in sp's place owned by
/// someone else (an operator's `proxmox-backup-client` run, another cluster's storage) is not
/// gitlab's backup; owned by `pve-sp@pbs`, it is.
#[test]
fn a_group_owned_by_another_than_the_pve_storages_user_is_not_this_guests() {
    let sites = |owner: &str| {
        let mut site = sp(
            "store1",
            vec![
                group("store1", "vm", "100", Some(owner)),
                group("store1", "vm", "101", Some("pve-sp@pbs")),
                group("store1", "ct", "200", Some("pve-sp@pbs")),
            ],
        );
        if let Sourced::Observed(pve) = &mut site.proxmox {
            let mut input = ChainInput::default();
            input.targets = vec![
                PbsTarget::new("pbs-sp", "store1", "")
                    .server(PbsAddress::new(HOST, 8007).fingerprint(Some(FINGERPRINT.to_owned())))
                    .username(Some("pve-sp@pbs".to_owned())),
            ];
            pve.chain = PveChainReading::new(Ok(input));
        }
        vec![site, franca()]
    };
    assert_eq!(
        backup_003(sites("admin@pbs")),
        [
            "warning gitlab guest gitlab (100) has no backup of its own on https://pbs-b.site-b.example:8007: vm/100 in store1 is owned by admin@pbs, and this site's PVE writes there as pve-sp@pbs"
        ]
    );
    assert_eq!(backup_003(sites("pve-sp@pbs")), Vec::<String>::new());
}
