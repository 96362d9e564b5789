//! Lookups into a site's PBS facts by backup group and datastore, built once per site so that matching declared components with what the source
//! reports costs O(1) per component (the "no quadratic rule" invariant, for the live half).

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashSet};

use super::facts::{GuestBackupFact, PbsFacts};

/// A site's PBS backups by group (type and id), and its datastores.
#[derive(Debug, Default)]
pub(crate) struct PbsIndex<'a> {
    backups: HashMap<(&'a str, &'a str), Vec<&'a GuestBackupFact>>,
    datastores: HashSet<&'a str>,
    /// Where sync jobs pull another server's groups: datastore and namespace.
    pull_targets: Vec<(&'a str, &'a str)>,
}

/// What the facts say about one guest's backup group.
#[derive(Debug)]
pub(crate) enum GuestBackups<'a> {
    /// No group of this type and id anywhere on the server.
    None,
    /// Exactly one group where this site's PVE writes, that no other writer may have written.
    One(&'a GuestBackupFact),
    /// Groups with this type and id that may be another guest's: why, in words.
    Ambiguous(String),
    /// Groups with this type and id where this site's PVE writes, each shown to be another
    /// writer's (owned by the auth-id a push from another site writes as): which, in words.
    Foreign(String),
}

impl<'a> PbsIndex<'a> {
    pub(crate) fn new(facts: &'a PbsFacts) -> Self {
        let mut index = Self::default();
        for backup in &facts.backups {
            index
                .backups
                .entry((backup.backup_type.as_str(), backup.backup_id.as_str()))
                .or_default()
                .push(backup);
        }
        index.datastores = facts.datastores.iter().map(String::as_str).collect();
        index.pull_targets = facts
            .jobs
            .iter()
            .filter_map(|j| Some((j.store.as_str(), j.pulls_into.as_deref()?)))
            .collect();
        index
    }

    /// The backups of group `backup_type/backup_id` (`vm/100`, `ct/200`) that are this site's
    /// guest's. A group is a type and an id in a datastore and namespace (proxmox-backup
    /// `pbs-api-types/src/datastore.rs`, `BackupGroup`), so two clusters' guests with one VM id
    /// meet in one server: a pull sync keeps the source's group ids (`src/server/pull.rs`), a
    /// push from the other site's PBS writes its groups here (`src/server/push.rs`), and another
    /// cluster's storage may back up here directly. A group is this guest's only where this
    /// site's PVE writes ([`Writers::pve`]) and no other writer may have written it.
    pub(crate) fn guest_backups(
        &self,
        backup_type: &str,
        backup_id: &str,
        writers: &Writers<'_>,
    ) -> GuestBackups<'a> {
        let group = format!("{backup_type}/{backup_id}");
        let found = self
            .backups
            .get(&(backup_type, backup_id))
            .map_or(&[][..], Vec::as_slice);
        if found.is_empty() {
            return GuestBackups::None;
        }
        let places = || {
            found
                .iter()
                .map(|b| place(b))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let pve = match &writers.pve {
            Ok(pve) => pve,
            Err(why) => {
                return GuestBackups::Ambiguous(format!(
                    "{group} is in {}, and where this site's PVE writes is not known ({why})",
                    places()
                ));
            }
        };
        let (mut mine, mut theirs, mut doubts) = (Vec::new(), Vec::new(), Vec::new());
        for b in found.iter().copied() {
            let here: Vec<&PvePlace<'_>> = pve
                .iter()
                .filter(|p| p.store == b.store && p.ns == b.namespace)
                .collect();
            if here.is_empty() {
                continue;
            }
            if let Some(why) = not_pves(b, &here) {
                theirs.push(format!("{group} in {} {why}", place(b)));
                continue;
            }
            if self.pulled_into(b) {
                doubts.push(format!(
                    "{group} is in {} (a sync job pulls into it, keeping the other server's group ids)",
                    place(b)
                ));
                continue;
            }
            match writers.other_writer(b) {
                Ok(Some(what)) => theirs.push(format!(
                    "{group} in {} is owned by {}, as which {what} writes",
                    place(b),
                    b.owner.as_deref().unwrap_or_default()
                )),
                Ok(None) if !writers.unread.is_empty() => doubts.push(format!(
                    "{group} in {} may have been written by a writer whose list could not be read ({})",
                    place(b),
                    writers.unread.join("; ")
                )),
                Ok(None) => mine.push(b),
                Err(why) => doubts.push(format!("{group} in {} {why}", place(b))),
            }
        }
        match (mine.as_slice(), doubts.is_empty()) {
            (_, false) => GuestBackups::Ambiguous(doubts.join("; ")),
            ([one], true) => GuestBackups::One(one),
            ([], true) if !theirs.is_empty() => GuestBackups::Foreign(theirs.join("; ")),
            ([], true) => GuestBackups::Ambiguous(format!(
                "{group} is in {}, where no PBS storage of this site's PVE writes ({}): it may be another cluster's, written by a push sync or by that cluster's storage",
                places(),
                writers.pve_places()
            )),
            (several, true) => GuestBackups::Ambiguous(format!(
                "{group} is in more than one place ({}), and the facts do not say which is this guest's",
                several
                    .iter()
                    .map(|b| place(b))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }

    /// Whether a sync job pulls into `backup`'s namespace or one above it: a pull writes the
    /// remote's groups below its target namespace (to `max-depth`, which is not read here, so
    /// every namespace below counts).
    fn pulled_into(&self, backup: &GuestBackupFact) -> bool {
        self.pull_targets.iter().any(|&(store, ns)| {
            store == backup.store
                && (ns.is_empty()
                    || backup.namespace == ns
                    || backup
                        .namespace
                        .strip_prefix(ns)
                        .is_some_and(|rest| rest.starts_with('/')))
        })
    }

    /// Whether the server has datastore `name`.
    pub(crate) fn has_datastore(&self, name: &str) -> bool {
        self.datastores.contains(name)
    }
}

/// Who writes where on one site's PBS, as the other systems' facts say; built by the rule
/// that joins them (BACKUP-003), so that this folder reads no other system's facts.
#[derive(Debug)]
pub(crate) struct Writers<'a> {
    /// Each PBS storage of this site's PVE that may be on this server; `Err` saying why when
    /// the storages were not read.
    pub(crate) pve: Result<Vec<PvePlace<'a>>, String>,
    /// The other writers into this server: the other sites' push jobs and PVE storages.
    pub(crate) others: Vec<OtherWriter<'a>>,
    /// The writer lists that could not be read, each in words with why: an unknown writer
    /// that may have written any group, so no group is taken as this guest's while one is.
    pub(crate) unread: Vec<String>,
}

/// Where a PBS storage of this site's PVE writes, and as whom (pve-storage
/// `src/PVE/Storage/PBSPlugin.pm`: `datastore`, `namespace`, `username`).
#[derive(Debug)]
pub(crate) struct PvePlace<'a> {
    /// The datastore written.
    pub(crate) store: &'a str,
    /// The namespace written, empty for the root.
    pub(crate) ns: &'a str,
    /// The user or token it writes as, which owns the groups it creates; `None` when not
    /// known.
    pub(crate) owner: Option<&'a str>,
}

/// Another writer into this PBS: it writes `store`/`ns` (and below, for a sync) as `owner`.
#[derive(Debug)]
pub(crate) struct OtherWriter<'a> {
    /// The datastore written.
    pub(crate) store: &'a str,
    /// The namespace written, empty for the root.
    pub(crate) ns: &'a str,
    /// Whether it writes the namespaces below `ns` too (a sync maps the source's namespaces
    /// below its target, proxmox-backup `src/server/push.rs`).
    pub(crate) below: bool,
    /// The auth-id its groups are owned by; `None` when not known.
    pub(crate) owner: Option<String>,
    /// What it is, in words (`push job p1 of site franca's PBS`).
    pub(crate) what: String,
}

impl Writers<'_> {
    /// Which other writer wrote `backup`: `Ok(Some(what))` when its owner is the one a writer
    /// of its place writes as, `Ok(None)` when no writer of its place may have written it. A group's owner is the auth-id that created it, and only that owner adds snapshots
    /// (proxmox-backup `src/api2/backup/mod.rs`: `create_locked_backup_group` with the
    /// caller's auth-id, then "backup owner check failed"), so an owner that differs from the
    /// writer's says it is not the writer's. `Err` when either owner is not known.
    fn other_writer(&self, backup: &GuestBackupFact) -> Result<Option<&str>, String> {
        let mut doubt = None;
        for w in self.others.iter().filter(|w| w.writes(backup)) {
            match (&backup.owner, &w.owner) {
                (Some(o), Some(theirs)) if o == theirs => return Ok(Some(&w.what)),
                (Some(_), Some(_)) => {}
                _ => {
                    doubt.get_or_insert_with(|| {
                        format!(
                            "may be written by {}, and who owns the group or whom it writes as is not known",
                            w.what
                        )
                    });
                }
            }
        }
        doubt.map_or(Ok(None), Err)
    }

    /// This site's PVE places, in words.
    fn pve_places(&self) -> String {
        match &self.pve {
            Ok(places) if places.is_empty() => "none is listed".to_owned(),
            Ok(places) => places
                .iter()
                .map(|p| place_of(p.store, p.ns))
                .collect::<Vec<_>>()
                .join(", "),
            Err(why) => why.clone(),
        }
    }
}

/// Why `backup` is not a group this site's PVE wrote, when its owner shows it: a group is
/// owned by the auth-id that created it and only that owner adds snapshots (proxmox-backup
/// `src/api2/backup/mod.rs`, "backup owner check failed"), so a group whose owner is none of
/// the users the PVE storages of its place write as (each known) is someone else's.
fn not_pves(backup: &GuestBackupFact, here: &[&PvePlace<'_>]) -> Option<String> {
    let owner = backup.owner.as_deref()?;
    let users: Vec<&str> = here.iter().map(|p| p.owner).collect::<Option<_>>()?;
    (!users.contains(&owner)).then(|| {
        format!(
            "is owned by {owner}, and this site's PVE writes there as {}",
            users.join(" or ")
        )
    })
}

impl OtherWriter<'_> {
    /// Whether it writes `backup`'s datastore and namespace.
    fn writes(&self, backup: &GuestBackupFact) -> bool {
        self.store == backup.store
            && (backup.namespace == self.ns
                || (self.below
                    && (self.ns.is_empty()
                        || backup
                            .namespace
                            .strip_prefix(self.ns)
                            .is_some_and(|rest| rest.starts_with('/')))))
    }
}

/// A datastore, and its namespace unless it is the root.
fn place_of(store: &str, ns: &str) -> String {
    if ns.is_empty() {
        store.to_owned()
    } else {
        format!("{store} namespace `{ns}`")
    }
}

/// A group's datastore, and its namespace unless it is the root.
fn place(backup: &GuestBackupFact) -> String {
    place_of(&backup.store, &backup.namespace)
}
