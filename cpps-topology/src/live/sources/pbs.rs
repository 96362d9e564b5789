//! Proxmox Backup Server: datastores, jobs, and the newest (verified) snapshot per guest.

use std::time::Duration;

use async_trait::async_trait;
use cpps_pbs::types::BackupType;
use cpps_pbs::{PbsClient, SnapshotQuery};

use super::Source;
use crate::live::facts::{GuestBackupFact, PbsFacts, PbsJobFact, SourceFailure, SourceKind};

/// A site's PBS, read through [`cpps_pbs::PbsClient`]: `GET /admin/datastore`, then per
/// datastore `GET /admin/datastore/{store}/namespace` and `…/snapshots` per namespace, and
/// `GET /admin/sync`, `/admin/verify`, `/admin/prune` for the jobs' last runs.
#[derive(Debug, Clone)]
pub struct PbsSource {
    client: PbsClient,
    endpoint: String,
}

impl PbsSource {
    /// A source over `client`, reported as `endpoint`.
    pub fn new(client: PbsClient, endpoint: impl Into<String>) -> Self {
        Self {
            client,
            endpoint: endpoint.into(),
        }
    }

    fn fail(&self, error: &cpps_pbs::Error) -> SourceFailure {
        SourceFailure::from_error(SourceKind::Pbs, &self.endpoint, error)
    }
}

fn job(kind: &str, id: &str, store: &str, status: &cpps_pbs::types::JobRunStatus) -> PbsJobFact {
    PbsJobFact {
        kind: kind.to_owned(),
        id: id.to_owned(),
        store: store.to_owned(),
        last_ok: status.last_run_state.as_ref().map(|s| s.is_success()),
        last_end: status.last_run_endtime,
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
        let stores = c.datastores().await.map_err(|e| self.fail(&e))?;
        let now = jiff::Timestamp::now().as_second();
        let mut backups = Vec::new();
        for store in &stores {
            let namespaces = c
                .namespaces(&store.store, None, None)
                .await
                .map_err(|e| self.fail(&e))?;
            for ns in &namespaces {
                let query = if ns.ns.is_empty() {
                    SnapshotQuery::default()
                } else {
                    SnapshotQuery::default().in_namespace(ns.ns.clone())
                };
                let snapshots = c
                    .snapshots(&store.store, &query)
                    .await
                    .map_err(|e| self.fail(&e))?;
                // The RPO is judged by BACKUP-003 against the topology; here only the newest
                // snapshot and the newest verified one matter.
                let newest = cpps_pbs::checks::newest_per_guest(
                    &store.store,
                    &ns.ns,
                    &snapshots,
                    now,
                    Duration::MAX,
                );
                backups.extend(
                    newest
                        .into_iter()
                        .filter(|g| matches!(g.backup_type, BackupType::Vm | BackupType::Ct))
                        .map(|g| GuestBackupFact {
                            store: g.store,
                            namespace: ns.ns.clone(),
                            backup_type: g.backup_type.to_string(),
                            backup_id: g.backup_id,
                            newest_time: g.newest_time,
                            newest_verified_time: g.newest_verified_ok_time,
                        }),
                );
            }
        }
        let (sync, verify, prune) =
            futures::try_join!(c.sync_jobs(None), c.verify_jobs(None), c.prune_jobs(None))
                .map_err(|e| self.fail(&e))?;
        let mut jobs: Vec<PbsJobFact> = Vec::new();
        jobs.extend(sync.iter().map(|j| job("sync", &j.id, &j.store, &j.status)));
        jobs.extend(
            verify
                .iter()
                .map(|j| job("verify", &j.id, &j.store, &j.status)),
        );
        jobs.extend(
            prune
                .iter()
                .map(|j| job("prune", &j.id, &j.store, &j.status)),
        );
        Ok(PbsFacts {
            server: self.endpoint.clone(),
            datastores: stores.into_iter().map(|s| s.store).collect(),
            jobs,
            backups,
        })
    }
}
