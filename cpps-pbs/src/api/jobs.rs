//! Garbage-collection, prune, sync and verify jobs with their last and next runs.

use crate::endpoints::{
    GC_JOBS, GC_JOBS_SINCE, PRUNE_JOBS, RUN_PRUNE_JOB, RUN_SYNC_JOB, RUN_VERIFY_JOB,
    SYNC_DIRECTION_SINCE, SYNC_JOBS, VERIFY_DATASTORE, VERIFY_JOBS,
};
use crate::types::{BackupType, GcStatus, PruneJob, SyncJob, Upid, VerifyJob};

/// The kinds of job that run on demand ([`Client::run_job`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum RunnableJob {
    /// A sync job: `POST /admin/sync/{id}/run`.
    Sync,
    /// A verify job: `POST /admin/verify/{id}/run`.
    Verify,
    /// A prune job: `POST /admin/prune/{id}/run`.
    Prune,
}

/// What `POST /admin/datastore/{store}/verify` verifies: the whole datastore, or a namespace,
/// group, one snapshot, or the snapshots not verified recently.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct VerifyRequest {
    /// The namespace; the root when `None`.
    pub ns: Option<String>,
    /// Only this group's type and id (a guest: `vm`, `100`).
    pub group: Option<(BackupType, String)>,
    /// Only the snapshot of [`VerifyRequest::group`] taken at this UNIX time (`backup-time`).
    /// PBS then verifies that one snapshot (proxmox-backup `src/api2/admin/datastore.rs`
    /// `verify`, worker type `verify_snapshot`); it refuses a time without a group.
    pub backup_time: Option<i64>,
    /// Skip snapshots verified within `outdated_after` days.
    pub ignore_verified: Option<bool>,
    /// Days after which a verification is outdated.
    pub outdated_after: Option<i64>,
}

impl VerifyRequest {
    /// One guest's group.
    pub fn group(backup_type: BackupType, backup_id: impl Into<String>) -> Self {
        VerifyRequest {
            group: Some((backup_type, backup_id.into())),
            ..VerifyRequest::default()
        }
    }

    /// One snapshot of a guest's group: the one taken at `backup_time` (UNIX epoch). Unlike
    /// [`VerifyRequest::group`], it does not touch the group's other snapshots, among them an
    /// unfinished one whose verification fails (`src/backup/verify.rs` `verify_backup_dir`).
    pub fn snapshot(
        backup_type: BackupType,
        backup_id: impl Into<String>,
        backup_time: i64,
    ) -> Self {
        VerifyRequest {
            backup_time: Some(backup_time),
            ..VerifyRequest::group(backup_type, backup_id)
        }
    }

    /// In namespace `ns`.
    pub fn in_namespace(mut self, ns: impl Into<String>) -> Self {
        self.ns = Some(ns.into()).filter(|n| !n.is_empty());
        self
    }
}
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

    /// Runs a job now: `POST /admin/{sync|verify|prune}/{id}/run`; the answer is the worker's
    /// task (wait for it with [`Client::wait_task`]).
    pub async fn run_job(&self, kind: RunnableJob, id: &str) -> Result<Upid, Error> {
        let endpoint = match kind {
            RunnableJob::Sync => &RUN_SYNC_JOB,
            RunnableJob::Verify => &RUN_VERIFY_JOB,
            RunnableJob::Prune => &RUN_PRUNE_JOB,
        };
        self.get(endpoint.call(&[id])).await
    }

    /// Starts a verification: `POST /admin/datastore/{store}/verify`; the answer is the
    /// worker's task.
    pub async fn verify(&self, store: &str, request: &VerifyRequest) -> Result<Upid, Error> {
        let (backup_type, backup_id) = match &request.group {
            Some((t, id)) => (Some(t.as_str()), Some(id.as_str())),
            None => (None, None),
        };
        self.get(
            VERIFY_DATASTORE
                .call(&[store])
                .string("ns", request.ns.as_deref())
                .string("backup-type", backup_type)
                .string("backup-id", backup_id)
                .integer("backup-time", request.backup_time)
                .boolean("ignore-verified", request.ignore_verified)
                .integer("outdated-after", request.outdated_after),
        )
        .await
    }
}
