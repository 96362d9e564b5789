//! Garbage-collection, prune, sync and verify jobs with their last and next runs.

use crate::endpoints::{
    GC_JOBS, GC_JOBS_SINCE, PRUNE_JOBS, SYNC_DIRECTION_SINCE, SYNC_JOBS, VERIFY_JOBS,
};
use crate::types::{GcStatus, PruneJob, SyncJob, VerifyJob};
use crate::{Client, Error};

impl Client {
    /// The garbage-collection job of every datastore (or of `store`): `GET /admin/gc`.
    ///
    /// PBS serves it from 3.2 on ([`GC_JOBS_SINCE`]); an older server gets no request and
    /// the answer is [`Error::NotSupported`] (use [`Client::gc_status`] per datastore there).
    pub async fn gc_jobs(&self, store: Option<&str>) -> Result<Vec<GcStatus>, Error> {
        self.require("GET /admin/gc", GC_JOBS_SINCE).await?;
        self.get(GC_JOBS.call(&[]).string("store", store)).await
    }

    /// The prune jobs (of `store`, or all): `GET /admin/prune`.
    pub async fn prune_jobs(&self, store: Option<&str>) -> Result<Vec<PruneJob>, Error> {
        self.get(PRUNE_JOBS.call(&[]).string("store", store)).await
    }

    /// The sync jobs of both directions (of `store`, or all):
    /// `GET /admin/sync?sync-direction=all` on PBS 3.3 and later, `GET /admin/sync` before.
    ///
    /// From 3.3 the parameter is needed: without it PBS lists pull jobs only (its default is
    /// `pull`, per `pbs-apidoc.json`), and push jobs to another site would go unseen. Before
    /// 3.3 there are no push jobs and the parameter is rejected ([`SYNC_DIRECTION_SINCE`]), so
    /// it is not sent.
    pub async fn sync_jobs(&self, store: Option<&str>) -> Result<Vec<SyncJob>, Error> {
        let direction = (self.server_version().await? >= SYNC_DIRECTION_SINCE).then_some("all");
        self.get(
            SYNC_JOBS
                .call(&[])
                .string("store", store)
                .string("sync-direction", direction),
        )
        .await
    }

    /// The verify jobs (of `store`, or all): `GET /admin/verify`.
    pub async fn verify_jobs(&self, store: Option<&str>) -> Result<Vec<VerifyJob>, Error> {
        self.get(VERIFY_JOBS.call(&[]).string("store", store)).await
    }
}
