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
    /// Exactly one group, in a datastore no sync job pulls into.
    One(&'a GuestBackupFact),
    /// Groups with this type and id that may be another guest's: why, in words.
    Ambiguous(String),
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

    /// The backups of group `backup_type/backup_id` (`vm/100`, `ct/200`). A group is a type and
    /// an id in a datastore and namespace (proxmox-backup `pbs-api-types/src/datastore.rs`,
    /// `BackupGroup`), so two clusters' guests with one VM id meet in one server: a pull sync
    /// keeps the source's group ids (`src/server/pull.rs`), and another cluster may back up
    /// here directly. A group in a datastore a sync pulls into, or a group found in more than
    /// one place, is therefore not known to be this guest's.
    pub(crate) fn guest_backups(&self, backup_type: &str, backup_id: &str) -> GuestBackups<'a> {
        let group = format!("{backup_type}/{backup_id}");
        match self
            .backups
            .get(&(backup_type, backup_id))
            .map_or(&[][..], Vec::as_slice)
        {
            [] => GuestBackups::None,
            [one] if self.pulled_into(one) => GuestBackups::Ambiguous(format!(
                "{group} is in {} (a sync job pulls into it, keeping the other server's group ids)",
                place(one)
            )),
            [one] => GuestBackups::One(one),
            several => GuestBackups::Ambiguous(format!(
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

/// A group's datastore, and its namespace unless it is the root.
fn place(backup: &GuestBackupFact) -> String {
    if backup.namespace.is_empty() {
        backup.store.clone()
    } else {
        format!("{} namespace `{}`", backup.store, backup.namespace)
    }
}
