//! Proxmox Backup Server: datastores, jobs, and the newest (verified) snapshot per guest.

use std::time::Duration;

use async_trait::async_trait;
use cpps_pbs::chain::{PbsSide, SiteBackups};
use cpps_pbs::types::{BackupType, SyncDirection};
use cpps_pbs::{Client, SnapshotQuery};

use crate::live::facts::{
    GuestBackupFact, PbsChainReading, PbsFacts, PbsJobFact, SourceFailure, SourceKind,
};
use crate::live::source::Source;

/// A site's PBS, read through [`cpps_pbs::Client`]: `GET /admin/datastore`, then per
/// datastore `GET /admin/datastore/{store}/namespace` and `…/snapshots` per namespace, and
/// `GET /admin/sync`, `/admin/verify`, `/admin/prune` for the jobs' last runs, and
/// `GET /access/permissions` to know whether the datastore list is whole (and, with `path`,
/// whether each snapshot list is). Only the datastore
/// list is required; any other part that fails, or may be filtered, is kept in
/// [`PbsFacts::partial`].
#[derive(Debug, Clone)]
pub struct PbsSource {
    client: Client,
    endpoint: String,
    fingerprint: Option<String>,
    expected: Vec<String>,
}

impl PbsSource {
    /// A source over `client`, reported as `endpoint`.
    pub fn new(client: Client, endpoint: impl Into<String>) -> Self {
        Self {
            client,
            endpoint: endpoint.into(),
            fingerprint: None,
            expected: Vec::new(),
        }
    }

    /// With the datastores the topology declares on this server: for each one the list lacks,
    /// the source asks the rights on its own path (`GET /access/permissions?path=/datastore/…`)
    /// into [`PbsFacts::unlisted_rights`], since only they tell a missing datastore from one
    /// hidden by an ACL there (proxmox-backup `pbs-config/src/acl.rs` `AclTree::roles`: a
    /// deeper ACL replaces what `/datastore` grants).
    pub fn expect_datastores(mut self, names: impl IntoIterator<Item = String>) -> Self {
        self.expected = names.into_iter().collect();
        self
    }

    /// With the server's pinned certificate fingerprint, which the other site's remote entry
    /// for this server may name (BACKUP-005 matches remotes by it).
    pub fn fingerprint(mut self, fingerprint: Option<String>) -> Self {
        self.fingerprint = fingerprint;
        self
    }

    fn fail(&self, error: &cpps_pbs::Error) -> SourceFailure {
        SourceFailure::from_error(SourceKind::Pbs, &self.endpoint, error)
    }
}

/// How [`PbsFacts::partial`] begins its entry for a datastore list that may leave datastores
/// out; the diff reads it.
pub(crate) const DATASTORES_FILTERED: &str = "datastore list may be filtered";

/// Whether the rights on `/datastore/{name}` itself make PBS list `name` when it exists, for
/// each of `names` (`GET /access/permissions?path=`; `get_datastore_list` lists a datastore
/// with `Datastore.Audit` or `Datastore.Backup` there), or why they could not be read.
async fn unlisted_rights(
    c: &Client,
    names: impl Iterator<Item = &String>,
) -> std::collections::BTreeMap<String, Result<bool, String>> {
    let mut rights = std::collections::BTreeMap::new();
    for name in names {
        let path = cpps_pbs::chain::acl_path(name, "");
        let answer = c.permissions(Some(&path)).await.map(|answer| {
            let here = answer.get(&path);
            ["Datastore.Audit", "Datastore.Backup"]
                .iter()
                .any(|p| here.is_some_and(|here| here.contains_key(*p)))
        });
        let answer = answer.map_err(|e| crate::live::facts::error_chain(&e));
        rights.insert(name.clone(), answer);
    }
    rights
}

/// A job of any kind, so that the three lists are handled alike.
enum Job {
    Sync(cpps_pbs::types::SyncJob),
    Verify(cpps_pbs::types::VerifyJob),
    Prune(cpps_pbs::types::PruneJob),
}

impl Job {
    fn fact(&self) -> PbsJobFact {
        match self {
            Job::Sync(j) => PbsJobFact {
                // A pull keeps the remote's group ids (proxmox-backup `src/server/pull.rs`), so
                // its target may hold another cluster's guests under this cluster's VM ids. A
                // local sync (no remote) copies this server's own groups.
                pulls_into: (j.remote.is_some() && j.direction() != SyncDirection::Push)
                    .then(|| j.ns.clone().unwrap_or_default()),
                ..job("sync", &j.id, &j.store, &j.status)
            },
            Job::Verify(j) => job("verify", &j.id, &j.store, &j.status),
            Job::Prune(j) => job("prune", &j.id, &j.store, &j.status),
        }
    }
}

fn job(kind: &str, id: &str, store: &str, status: &cpps_pbs::types::JobRunStatus) -> PbsJobFact {
    PbsJobFact {
        kind: kind.to_owned(),
        id: id.to_owned(),
        store: store.to_owned(),
        last_ok: status.last_run_state.as_ref().map(|s| s.is_success()),
        last_end: status.last_run_endtime,
        running_since: status.running_since(),
        pulls_into: None,
    }
}

/// What the snapshot lists of one PBS gave: the guests' newest backups, the chain's reading
/// of each datastore and namespace, and what could not be read or may be filtered.
struct Snapshots {
    now: i64,
    backups: Vec<GuestBackupFact>,
    side: PbsSide,
    partial: Vec<String>,
}

impl Snapshots {
    /// Reads `store`'s namespaces, then each namespace's snapshots.
    async fn store(&mut self, c: &Client, store: &str) {
        let namespaces = match c.namespaces(store, None, None).await {
            Ok(namespaces) => namespaces,
            Err(e) => {
                let e = crate::live::facts::error_chain(&e);
                self.partial
                    .push(format!("namespaces of datastore {store}: {e}"));
                self.side.unread.push((store.to_owned(), e));
                return;
            }
        };
        for ns in &namespaces {
            self.namespace(c, store, &ns.ns).await;
        }
    }

    /// Reads the snapshots of `store`/`ns`, and the caller's rights on its path to know
    /// whether the list is whole.
    async fn namespace(&mut self, c: &Client, store: &str, ns: &str) {
        let query = if ns.is_empty() {
            SnapshotQuery::default()
        } else {
            SnapshotQuery::default().in_namespace(ns.to_owned())
        };
        let snapshots = match c.snapshots(store, &query).await {
            Ok(snapshots) => snapshots,
            Err(e) => {
                let e = crate::live::facts::error_chain(&e);
                self.partial.push(format!(
                    "snapshots of datastore {store} namespace `{ns}`: {e}"
                ));
                self.side.backups.push(SiteBackups::new(store, ns, Err(e)));
                return;
            }
        };
        // The RPO is judged by BACKUP-003 against the topology; here only the newest
        // snapshot and the newest verified one matter.
        let newest =
            cpps_pbs::checks::newest_per_guest(store, ns, &snapshots, self.now, Duration::MAX);
        let mut read = SiteBackups::new(store, ns, Ok(newest.clone()));
        // Only the rights asked on the path itself are exact: a deeper ACL replaces an Audit
        // inherited from `/datastore`, and a path with no privilege is left out of the whole
        // list (`cpps_pbs::chain::snapshots_trimmed`).
        let rights = c
            .permissions(Some(&cpps_pbs::chain::acl_path(store, ns)))
            .await
            .map_err(|e| crate::live::facts::error_chain(&e));
        // An owner-trimmed list proves no absence: BACKUP-003 reads this entry of `partial`
        // ("snapshots of …"), BACKUP-005 the reading's `trimmed`.
        if let Some(why) = cpps_pbs::chain::snapshots_trimmed(&rights, store, ns) {
            self.partial.push(format!(
                "snapshots of datastore {store} namespace `{ns}` may leave groups out: {why}"
            ));
            read = read.trimmed(why);
        }
        self.side.backups.push(read);
        self.backups.extend(
            newest
                .into_iter()
                .filter(|g| matches!(g.backup_type, BackupType::Vm | BackupType::Ct))
                .map(|g| GuestBackupFact {
                    store: g.store,
                    namespace: ns.to_owned(),
                    backup_type: g.backup_type.to_string(),
                    backup_id: g.backup_id,
                    newest_time: g.newest_time,
                    newest_verified_time: g.newest_verified_ok_time,
                    owner: g.owner.as_ref().map(ToString::to_string),
                }),
        );
    }
}

#[async_trait]
impl Source<PbsFacts> for PbsSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Pbs
    }

    fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    async fn observe(&self) -> Result<PbsFacts, SourceFailure> {
        let c = &self.client;
        // The datastore list is required: without it nothing about the PBS can be said. Every
        // other part is read whatever happens to the rest, and a failure is kept in
        // `partial` (a 403 on a job list, an unmounted datastore, an old PBS's 404).
        let stores = c.datastores().await.map_err(|e| self.fail(&e))?;
        let unlisted =
            (self.expected.iter()).filter(|name| !stores.iter().any(|s| &s.store == *name));
        let unlisted_rights = unlisted_rights(c, unlisted).await;
        let mut partial = Vec::new();
        let rights = c
            .permissions(None)
            .await
            .map_err(|e| crate::live::facts::error_chain(&e));
        if let Some(why) =
            cpps_pbs::rights::datastores_hidden(rights.as_ref().map_err(String::as_str))
        {
            partial.push(format!("{DATASTORES_FILTERED}: {why}"));
        }
        let mut read = Snapshots {
            now: jiff::Timestamp::now().as_second(),
            backups: Vec::new(),
            // The backup chain's reading: the same snapshots, per datastore and namespace.
            side: PbsSide::new(partial.is_empty()),
            partial,
        };
        for store in &stores {
            read.store(c, &store.store).await;
        }
        let Snapshots {
            backups,
            mut side,
            mut partial,
            ..
        } = read;
        let (sync, verify, prune, remotes) = futures::join!(
            c.sync_jobs(None),
            c.verify_jobs(None),
            c.prune_jobs(None),
            c.remotes()
        );
        // Where copies go (BACKUP-005): this server's address as a remote names it, its sync
        // jobs and the remotes they name.
        side.address = cpps_pbs::chain::PbsAddress::from_url(&self.endpoint)
            .map(|a| a.fingerprint(self.fingerprint.clone()));
        side.sync_jobs_hidden =
            cpps_pbs::rights::sync_jobs_hidden(rights.as_ref().map_err(String::as_str));
        side.sync_jobs = sync
            .as_ref()
            .map(Clone::clone)
            .map_err(|e| crate::live::facts::error_chain(e));
        side.remotes = remotes.map_err(|e| crate::live::facts::error_chain(&e));
        let mut list = |name: &str, result| match result {
            Ok(list) => list,
            Err(e) => {
                partial.push(format!("{name}: {}", crate::live::facts::error_chain(&e)));
                Vec::new()
            }
        };
        let sync = list(
            "sync jobs",
            sync.map(|l| l.into_iter().map(Job::Sync).collect()),
        );
        let verify = list(
            "verify jobs",
            verify.map(|l| l.into_iter().map(Job::Verify).collect()),
        );
        let prune = list(
            "prune jobs",
            prune.map(|l| l.into_iter().map(Job::Prune).collect()),
        );
        let jobs: Vec<PbsJobFact> = sync
            .iter()
            .chain(&verify)
            .chain(&prune)
            .map(Job::fact)
            .collect();
        Ok(PbsFacts {
            server: self.endpoint.clone(),
            datastores: stores.into_iter().map(|s| s.store).collect(),
            jobs,
            backups,
            partial,
            unlisted_rights,
            chain: PbsChainReading::new(side),
        })
    }
}
