//! Garbage-collection, prune, sync and verify jobs with their last and next runs.

use crate::endpoints::{GC_JOBS, PRUNE_JOBS, SYNC_JOBS, VERIFY_JOBS};
use crate::types::{GcStatus, PruneJob, SyncJob, VerifyJob};
use crate::{Error, PbsClient};

impl PbsClient {
    /// The garbage-collection job of every datastore (or of `store`): `GET /admin/gc`.
    pub async fn gc_jobs(&self, store: Option<&str>) -> Result<Vec<GcStatus>, Error> {
        self.get(GC_JOBS.call(&[]).string("store", store)).await
    }

    /// The prune jobs (of `store`, or all): `GET /admin/prune`.
    pub async fn prune_jobs(&self, store: Option<&str>) -> Result<Vec<PruneJob>, Error> {
        self.get(PRUNE_JOBS.call(&[]).string("store", store)).await
    }

    /// The sync jobs of both directions (of `store`, or all):
    /// `GET /admin/sync?sync-direction=all`.
    ///
    /// The parameter is always sent: without it PBS lists pull jobs only (its default is
    /// `pull`, per `pbs-apidoc.json`), and push jobs to another site would go unseen.
    pub async fn sync_jobs(&self, store: Option<&str>) -> Result<Vec<SyncJob>, Error> {
        self.get(
            SYNC_JOBS
                .call(&[])
                .string("store", store)
                .string("sync-direction", Some("all")),
        )
        .await
    }

    /// The verify jobs (of `store`, or all): `GET /admin/verify`.
    pub async fn verify_jobs(&self, store: Option<&str>) -> Result<Vec<VerifyJob>, Error> {
        self.get(VERIFY_JOBS.call(&[]).string("store", store)).await
    }
}
