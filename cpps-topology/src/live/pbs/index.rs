//! Lookups into a site's PBS facts by backup id and datastore, built once per site so that matching declared components with what the source
//! reports costs O(1) per component (the "no quadratic rule" invariant, for the live half).

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashSet};

use super::facts::{GuestBackupFact, PbsFacts};

/// A site's PBS backups by backup id (the VM id), and its datastores.
#[derive(Debug, Default)]
pub(crate) struct PbsIndex<'a> {
    backups: HashMap<&'a str, Vec<&'a GuestBackupFact>>,
    datastores: HashSet<&'a str>,
}

impl<'a> PbsIndex<'a> {
    pub(crate) fn new(facts: &'a PbsFacts) -> Self {
        let mut index = Self::default();
        for backup in &facts.backups {
            index
                .backups
                .entry(backup.backup_id.as_str())
                .or_default()
                .push(backup);
        }
        index.datastores = facts.datastores.iter().map(String::as_str).collect();
        index
    }

    /// The backups of guest `backup_id`, one per datastore and namespace.
    pub(crate) fn backups(&self, backup_id: &str) -> &[&'a GuestBackupFact] {
        self.backups.get(backup_id).map_or(&[], Vec::as_slice)
    }

    /// Whether the server has datastore `name`.
    pub(crate) fn has_datastore(&self, name: &str) -> bool {
        self.datastores.contains(name)
    }
}
