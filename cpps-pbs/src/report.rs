//! The backup report: per datastore and per guest, the newest snapshot's age and
//! verification, RPO breaches, cross-site sync, and failed or overdue jobs.
//!
//! [`collect`] reads what the report needs (bounded concurrency, one datastore's failure kept
//! beside the others' results); [`build`] is pure and turns it into a [`Report`], which
//! renders as text or serializes as JSON. The `pbs-report` example binary is a thin shell
//! around these three.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::time::Duration;

use cpps_proxmox_family::bounded;
use futures::StreamExt as _;
use serde::Serialize;

use crate::checks::{
    self, CrossSiteSync, DatastoreSync, GuestBackup, JobIssue, JobProblem, Sites, SyncLink,
};
use crate::rights::reaches;
use crate::types::{
    BackendType, Datastore, DatastoreUsage, GcStatus, PruneJob, Remote, Snapshot, SyncDirection,
    SyncJob, VerifyJob, VerifyState,
};
use crate::{Client, Error, SnapshotQuery};

/// How many datastores are read at once.
const CONCURRENT_STORES: usize = 4;

/// What the report looks at and how strict it is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReportOptions {
    /// The recovery-point objective: a newest snapshot older than this is a breach.
    pub rpo: Duration,
    /// A job whose next run is later than this is overdue.
    pub overdue_grace: Duration,
    /// The local site and the sites of the remotes.
    pub sites: Sites,
    /// The datastores to report on; all visible ones when `None`.
    pub stores: Option<Vec<String>>,
}

impl ReportOptions {
    /// An RPO, one hour of grace for overdue jobs, unknown sites, all datastores.
    pub fn new(rpo: Duration) -> Self {
        ReportOptions {
            rpo,
            overdue_grace: Duration::from_secs(3600),
            sites: Sites::unknown(),
            stores: None,
        }
    }

    /// Reports on these datastores only.
    pub fn stores(mut self, stores: Vec<String>) -> Self {
        self.stores = Some(stores);
        self
    }

    /// Says which site is local and where the remotes are.
    pub fn sites(mut self, sites: Sites) -> Self {
        self.sites = sites;
        self
    }

    /// Sets the grace period for overdue jobs.
    pub fn overdue_grace(mut self, grace: Duration) -> Self {
        self.overdue_grace = grace;
        self
    }
}

/// A part of the inventory that could not be read, and why (the Proxmox family's, which the
/// PVE inventory keeps too); the report is built from the rest.
pub use cpps_proxmox_family::PartError;

/// Everything the report is built from, as the API answered it.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct Inventory {
    /// `GET /admin/datastore`.
    pub datastores: Vec<Datastore>,
    /// `GET /status/datastore-usage`.
    pub usage: Vec<DatastoreUsage>,
    /// Per reported datastore, the snapshots of each namespace (`""` is the root), or why they
    /// could not be read.
    pub snapshots: BTreeMap<String, Result<BTreeMap<String, Vec<Snapshot>>, String>>,
    /// `GET /admin/sync` (`?sync-direction=all` on PBS 3.3+).
    pub sync_jobs: Vec<SyncJob>,
    /// `GET /admin/verify`.
    pub verify_jobs: Vec<VerifyJob>,
    /// `GET /admin/prune`.
    pub prune_jobs: Vec<PruneJob>,
    /// `GET /admin/gc` (PBS 3.2+).
    pub gc_jobs: Vec<GcStatus>,
    /// `GET /config/remote`.
    pub remotes: Vec<Remote>,
    /// Why the remotes could not be read (reading them needs `Remote.Audit`, which a
    /// datastore-audit token may lack); sites are then matched by remote name only.
    pub remotes_error: Option<String>,
    /// Per datastore, the namespaces whose snapshots could not be read, each with its error;
    /// the datastore's other namespaces are in [`Inventory::snapshots`].
    pub namespace_errors: BTreeMap<String, Vec<(String, String)>>,
    /// Whether the sync job and remote lists are known to be complete apart from each
    /// datastore's own path: the caller holds `Remote.Audit` on `/remote` and `Datastore.Audit`
    /// on `/datastore`, both propagating (`GET /access/permissions`). `None` when the rights
    /// could not be read. PBS filters both lists by these rights rather than refusing them, so
    /// only `Some(true)`, with [`Inventory::store_rights`] granting Audit on the datastore
    /// itself, lets the report say that no copy of that datastore exists.
    pub sync_lists_complete: Option<bool>,
    /// Per datastore read, the caller's rights on `/datastore/{store}` itself
    /// (`GET /access/permissions?path=`, keyed by that path; [`crate::rights::read_paths`]).
    /// PBS lists a sync job only with `Datastore.Audit` looked up on the job's own datastore
    /// path, where a deeper ACL replaces what `/datastore` grants (proxmox-backup
    /// `src/api2/config/sync.rs` `check_sync_job_read_access`, `pbs-config/src/acl.rs`
    /// `AclTree::roles`).
    pub store_rights: crate::rights::PathRights,
    /// The caller's rights (`GET /access/permissions`), or why they could not be read; `None`
    /// when not read. Whether a snapshot list may leave groups out is not read from them:
    /// only the answer for the list's own path is exact ([`crate::chain::snapshots_trimmed`]).
    pub rights: Option<Result<crate::types::Permissions, String>>,
    /// The server's release (`GET /version`), when it was read.
    pub release: Option<cpps_proxmox_family::ServerVersion>,
    /// The other parts that could not be read (the datastore list, usage, job lists, an
    /// endpoint the server's release lacks), each with its error.
    pub errors: Vec<PartError>,
}

/// Reads the inventory: the datastore list, usage, jobs and remotes, then the namespaces and
/// the snapshots of every namespace of each selected datastore, at most four datastores at a
/// time.
///
/// Every part is read whatever happens to the others; a part that fails is kept in
/// [`Inventory::errors`] (a datastore's in [`Inventory::snapshots`]) and the rest is read. So
/// an old PBS without `GET /admin/gc` (before 3.2, [`Error::NotSupported`]), a token without
/// `Remote.Audit`, or one unmounted datastore costs that part only.
///
/// Calls `GET /version` (once), `GET /admin/datastore`, `GET /status/datastore-usage`,
/// `GET /admin/sync`, `GET /admin/verify`, `GET /admin/prune`, `GET /admin/gc`,
/// `GET /config/remote`, `GET /access/permissions` (and `?path=/datastore/{store}` per datastore),
/// `GET /admin/datastore/{store}/namespace` and
/// `GET /admin/datastore/{store}/snapshots?ns=…`.
pub async fn collect(client: &Client, stores: Option<&[String]>) -> Inventory {
    collect_within(client, stores, None).await
}

/// Like [`collect`], ending by `within` when given: a part not finished by then is an error of
/// that part ("not finished within the run's time limit") and what was read is kept. The
/// `pbs-report` binary passes its `--timeout`.
pub async fn collect_within(
    client: &Client,
    stores: Option<&[String]>,
    within: Option<Duration>,
) -> Inventory {
    let deadline = within.map(|d| tokio::time::Instant::now() + d);
    let mut errors = Vec::new();
    // The datastore list first (the snapshots of all datastores need it), and beside it the
    // server's release, which the sync and GC job lists choose by. It is read once for the
    // run: when that read fails, those parts get its failure as their own error and nothing
    // asks `GET /version` again (the client's cache keeps only a success, so parts asking at
    // once after a failure would each send it, with its retries).
    let (datastores, version) = futures::join!(
        bounded(deadline, client.datastores()),
        bounded(deadline, client.server_version()),
    );
    let datastores = part(&mut errors, "datastores (GET /admin/datastore)", datastores);
    let selected: Vec<String> = match stores {
        Some(stores) => stores.to_vec(),
        None => datastores.iter().map(|d| d.store.clone()).collect(),
    };
    let store_rights = read_store_rights(client, &selected, deadline);
    let snapshots = read_snapshots(client, selected.clone(), deadline);
    // Boxed: nine answers held at once make a large future.
    let (
        (usage, sync_jobs, verify_jobs, prune_jobs, gc_jobs, remotes, rights, snapshots),
        store_rights,
    ) = Box::pin(async {
        futures::join!(
            async {
                futures::join!(
                    bounded(deadline, client.datastore_usage()),
                    after_version(&version, deadline, client.sync_jobs(None)),
                    bounded(deadline, client.verify_jobs(None)),
                    bounded(deadline, client.prune_jobs(None)),
                    after_version(&version, deadline, client.gc_jobs(None)),
                    bounded(deadline, client.remotes()),
                    bounded(deadline, client.permissions(None)),
                    snapshots,
                )
            },
            store_rights,
        )
    })
    .await;
    let usage = part(
        &mut errors,
        "datastore usage (GET /status/datastore-usage)",
        usage,
    );
    let sync_jobs = part(&mut errors, "sync jobs (GET /admin/sync)", sync_jobs);
    let verify_jobs = part(&mut errors, "verify jobs (GET /admin/verify)", verify_jobs);
    let prune_jobs = part(&mut errors, "prune jobs (GET /admin/prune)", prune_jobs);
    let gc_jobs = part(
        &mut errors,
        "garbage-collection jobs (GET /admin/gc)",
        gc_jobs,
    );
    let (snapshots, namespace_errors) = split_namespace_errors(snapshots);
    let (remotes, remotes_error): (Vec<Remote>, Option<String>) = match remotes {
        Ok(remotes) => (remotes, None),
        Err(error) => (Vec::new(), Some(error.error)),
    };
    Inventory {
        datastores,
        usage,
        snapshots,
        sync_jobs,
        verify_jobs,
        prune_jobs,
        gc_jobs,
        remotes,
        remotes_error,
        namespace_errors,
        sync_lists_complete: (rights.as_ref().ok())
            .map(|r| crate::rights::lacks_propagating(r).is_empty()),
        store_rights,
        rights: Some(rights.map_err(|e| e.error)),
        release: version.as_ref().ok().cloned(),
        // A part cut off by the time limit names the requests left without an answer.
        errors: {
            let activity = client.http.activity().snapshot();
            errors
                .into_iter()
                .map(|e| e.waiting_for(&activity))
                .collect()
        },
    }
}

/// The snapshots of each of `stores`, [`CONCURRENT_STORES`] datastores at a time, in the order
/// they finish.
async fn read_snapshots(
    client: &Client,
    stores: Vec<String>,
    deadline: Option<tokio::time::Instant>,
) -> Vec<(String, Result<StoreSnapshots, String>)> {
    futures::stream::iter(stores)
        .map(|store| async move {
            let answer = bounded(deadline, store_snapshots(client, &store))
                .await
                .map_err(|e| e.error);
            (store, answer)
        })
        .buffer_unordered(CONCURRENT_STORES)
        .collect::<Vec<_>>()
        .await
}

/// The caller's rights on each of `stores`' own path, one `GET /access/permissions?path=` each
/// ([`crate::rights::read_paths`]); a path not answered by the deadline holds that error.
async fn read_store_rights(
    client: &Client,
    stores: &[String],
    deadline: Option<tokio::time::Instant>,
) -> crate::rights::PathRights {
    let paths = stores
        .iter()
        .map(|store| crate::rights::acl_path(store, ""));
    match bounded(deadline, async {
        Ok::<_, Error>(crate::rights::read_paths(client, paths).await)
    })
    .await
    {
        Ok(rights) => rights,
        Err(error) => stores
            .iter()
            .map(|store| (crate::rights::acl_path(store, ""), Err(error.error.clone())))
            .collect(),
    }
}

/// Per datastore, the snapshots of each namespace, or why they could not be read.
type SnapshotsByStore = BTreeMap<String, Result<BTreeMap<String, Vec<Snapshot>>, String>>;

/// Per datastore, the namespaces whose snapshots could not be read, each with its error.
type NamespaceErrors = BTreeMap<String, Vec<(String, String)>>;

/// Each datastore's snapshots per namespace, and apart from them the namespaces that could not
/// be read, per datastore (only those datastores that have some).
fn split_namespace_errors(
    answers: Vec<(String, Result<StoreSnapshots, String>)>,
) -> (SnapshotsByStore, NamespaceErrors) {
    let mut namespace_errors = BTreeMap::new();
    let snapshots = answers
        .into_iter()
        .map(|(store, answer)| {
            let answer = answer.map(|(read, failed)| {
                if !failed.is_empty() {
                    namespace_errors.insert(store.clone(), failed);
                }
                read
            });
            (store, answer)
        })
        .collect();
    (snapshots, namespace_errors)
}

/// The list `result` holds, or an empty one with its error kept in `errors`.
fn part<T>(errors: &mut Vec<PartError>, name: &str, result: Result<Vec<T>, PartError>) -> Vec<T> {
    result.unwrap_or_else(|error| {
        errors.push(error.named(name));
        Vec::new()
    })
}

/// [`bounded`](cpps_proxmox_family::bounded) for a part that chooses by the server's release: when reading the release
/// failed, that failure is the part's error and `future` is never started (so it sends nothing).
async fn after_version<T>(
    version: &Result<cpps_proxmox_family::ServerVersion, PartError>,
    deadline: Option<tokio::time::Instant>,
    future: impl Future<Output = Result<T, Error>>,
) -> Result<T, PartError> {
    match version {
        Ok(_) => bounded(deadline, future).await,
        Err(error) => Err(error.clone()),
    }
}

/// The snapshots of each namespace of a datastore, and the namespaces that could not be read.
type StoreSnapshots = (BTreeMap<String, Vec<Snapshot>>, Vec<(String, String)>);

/// Reads the snapshots of `store` namespace by namespace. A namespace that fails (a token may
/// audit some namespaces only: each has its own ACL path) is kept as an error beside the
/// others; only a failed namespace list fails the datastore.
async fn store_snapshots(client: &Client, store: &str) -> Result<StoreSnapshots, Error> {
    let mut by_namespace = BTreeMap::new();
    let mut failed = Vec::new();
    for namespace in client.namespaces(store, None, None).await? {
        let query = SnapshotQuery {
            // The root is asked for without `ns`.
            ns: (!namespace.ns.is_empty()).then(|| namespace.ns.clone()),
            ..SnapshotQuery::default()
        };
        match client.snapshots(store, &query).await {
            Ok(snapshots) => {
                by_namespace.insert(namespace.ns, snapshots);
            }
            Err(e) => failed.push((namespace.ns, error_chain(&e))),
        }
    }
    Ok((by_namespace, failed))
}

/// An error and its sources joined by `: ` (the workspace's one renderer, in `cpps-http`).
pub use cpps_http::error_chain;

/// One datastore in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct DatastoreReport {
    /// The datastore.
    pub store: String,
    /// Used bytes, when the usage is known.
    pub used_bytes: Option<u64>,
    /// Total bytes, when the usage is known.
    pub total_bytes: Option<u64>,
    /// Whether the usage is the local cache's, not the datastore's: for an S3 datastore PBS
    /// reports the file system of its local cache (proxmox-backup `src/api2/status/mod.rs`
    /// `datastore_status`, `fs_info(datastore.base_path())` whatever the backend). `None`
    /// when that cannot be told: PBS 4.0 and 4.1 have S3 datastores but say no
    /// `backend-type` (it comes with 4.2), nor does a release that could not be read.
    pub usage_of_local_cache: Option<bool>,
    /// Why its snapshots could not be read.
    pub error: Option<String>,
    /// The namespaces whose snapshots could not be read, each with why (`ns `x`: …`); the
    /// other namespaces are reported.
    pub namespace_errors: Vec<String>,
    /// The newest backup of each guest, namespace by namespace (a guest in a namespace is
    /// written `ns:vm/100` in the text form).
    pub guests: Vec<GuestBackup>,
    /// Its sync jobs and the cross-site verdict.
    pub sync: DatastoreSync,
    /// Why PBS may have left some of its sync jobs out of the list, if it may
    /// ([`Inventory::sync_lists_complete`], [`Inventory::store_rights`]); a copy not seen is
    /// then "cannot tell".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sync_jobs_hidden: Option<String>,
    /// Why PBS may have left some of its namespaces, and their guests, out of the list, if it
    /// may ([`Inventory::store_rights`], [`Inventory::rights`]); the report is then partial.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespaces_hidden: Option<String>,
}

/// Counts over the whole report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Datastores reported.
    pub datastores: usize,
    /// Datastores whose snapshots could not be read.
    pub unreadable_datastores: usize,
    /// Namespaces whose snapshots could not be read (in readable datastores).
    pub unreadable_namespaces: usize,
    /// Guests (backup groups) reported.
    pub guests: usize,
    /// Guests whose newest snapshot is older than the RPO.
    pub rpo_breaches: usize,
    /// Guests whose newest snapshot failed verification.
    pub verify_failures: usize,
    /// Guests whose newest snapshot was never verified.
    pub unverified: usize,
    /// Guests whose newest snapshot has a verification state this client does not know (a
    /// newer PBS's value): not ok, and it fails the report.
    pub verify_unknown: usize,
    /// Jobs whose last run failed.
    pub failed_jobs: usize,
    /// Jobs whose next run is overdue.
    pub overdue_jobs: usize,
    /// Datastores whose own backups have no copy in another site made within the RPO (a
    /// successful push to another site).
    pub without_cross_site_sync: usize,
    /// Parts of the inventory that could not be read.
    pub unread_parts: usize,
}

/// The report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Report {
    /// When it was built (UNIX epoch).
    pub generated_at: i64,
    /// The RPO in seconds.
    pub rpo_secs: u64,
    /// Per datastore.
    pub datastores: Vec<DatastoreReport>,
    /// Failed and overdue jobs of the reported datastores.
    pub jobs: Vec<JobProblem>,
    /// Counts.
    pub summary: Summary,
    /// What could not be read but did not stop the report.
    pub warnings: Vec<String>,
    /// The parts of the inventory that could not be read; the report holds the rest.
    pub errors: Vec<PartError>,
    /// Over all datastores ([`ReportOptions::stores`] `None`): why PBS may have left some out
    /// of the list ([`crate::rights::datastores_hidden`]), `None` when it is whole or the
    /// datastores were named.
    pub datastores_hidden: Option<String>,
}

impl Report {
    /// Whether the report found a problem that fails it: an RPO breach, a failed job, a newest
    /// snapshot that failed verification or whose verification state is unknown, or a
    /// datastore or namespace that could not be read. Overdue jobs, unverified snapshots and
    /// missing cross-site sync are shown but do not fail it.
    pub fn is_failing(&self) -> bool {
        let s = &self.summary;
        s.rpo_breaches > 0
            || s.failed_jobs > 0
            || s.verify_failures > 0
            || s.verify_unknown > 0
            || s.unreadable_datastores > 0
            || s.unreadable_namespaces > 0
    }

    /// Whether some parts could not be read (the report shows the rest), or PBS may have left
    /// datastores ([`Report::datastores_hidden`]) or namespaces
    /// ([`DatastoreReport::namespaces_hidden`]) out; an endpoint the server's release lacks
    /// does not count.
    pub fn is_partial(&self) -> bool {
        self.errors.iter().any(|e| !e.not_supported)
            || self.datastores_hidden.is_some()
            || self
                .datastores
                .iter()
                .any(|d| d.namespaces_hidden.is_some())
    }

    /// The report as text for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "PBS backup report at {}, RPO {}",
            timestamp(self.generated_at),
            human_age(self.rpo_secs)
        );
        if let Some(why) = &self.datastores_hidden {
            let _ = writeln!(out, "datastores PBS may have left out of the list: {why}");
        }
        for store in &self.datastores {
            let _ = writeln!(out);
            write_datastore(&mut out, store);
        }
        let _ = writeln!(out);
        self.write_jobs(&mut out);
        for warning in &self.warnings {
            let _ = writeln!(out, "warning: {warning}");
        }
        for error in &self.errors {
            if error.not_supported {
                let _ = writeln!(out, "not supported: {}: {}", error.part, error.error);
            } else {
                let _ = writeln!(
                    out,
                    "error: {} could not be read: {}",
                    error.part, error.error
                );
            }
        }
        self.write_summary(&mut out);
        out
    }

    /// The failed and overdue jobs, one a line, or a line saying there are none.
    fn write_jobs(&self, out: &mut String) {
        if self.jobs.is_empty() {
            let _ = writeln!(out, "jobs: no failed or overdue job");
            return;
        }
        let _ = writeln!(out, "jobs:");
        for job in &self.jobs {
            let kind = serde_json::to_value(job.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let line = match &job.issue {
                JobIssue::Failed { state, .. } => {
                    format!("  FAILED   {kind} {} ({}): {state}", job.id, job.store)
                }
                JobIssue::Overdue {
                    next_run,
                    late_by_secs,
                } => format!(
                    "  OVERDUE  {kind} {} ({}): due {}, {} late",
                    job.id,
                    job.store,
                    timestamp(*next_run),
                    human_age(*late_by_secs)
                ),
            };
            let _ = writeln!(out, "{line}");
        }
    }

    /// The counts, then the result line.
    fn write_summary(&self, out: &mut String) {
        let s = &self.summary;
        let _ = writeln!(
            out,
            "\nsummary: {} datastores ({} unreadable, {} namespaces unreadable), {} guests, {} RPO breaches, {} failed verifications, {} unknown verification states, {} never verified, {} failed jobs, {} overdue jobs, {} datastores without a recent cross-site copy",
            s.datastores,
            s.unreadable_datastores,
            s.unreadable_namespaces,
            s.guests,
            s.rpo_breaches,
            s.verify_failures,
            s.verify_unknown,
            s.unverified,
            s.failed_jobs,
            s.overdue_jobs,
            s.without_cross_site_sync
        );
        let _ = writeln!(
            out,
            "result: {}{}",
            if self.is_failing() { "FAIL" } else { "OK" },
            if self.is_partial() {
                " (PARTIAL: some parts could not be read)"
            } else {
                ""
            }
        );
    }
}

/// One datastore as text: its usage, its cross-site verdicts and sync links, then its errors
/// or a table of its guests.
fn write_datastore(out: &mut String, store: &DatastoreReport) {
    let usage = match (store.used_bytes, store.total_bytes) {
        (Some(used), Some(total)) => format!(
            "  {}used {} of {}{}",
            if store.usage_of_local_cache == Some(true) {
                "local cache "
            } else {
                ""
            },
            human_bytes(used),
            human_bytes(total),
            if store.usage_of_local_cache.is_none() {
                " (its file system's; whether that is an S3 datastore's local cache is not said)"
            } else {
                ""
            }
        ),
        // PBS 3.0/3.1 send -1 for a usage they do not know (`DatastoreUsage::total`).
        _ => "  usage unknown".to_owned(),
    };
    let _ = writeln!(out, "datastore {}{usage}", store.store);
    let _ = writeln!(
        out,
        "  cross-site copy of its backups: {}",
        sync_text(store.sync.cross_site)
    );
    if store.sync.incoming != CrossSiteSync::None {
        let _ = writeln!(
            out,
            "  copy of the other site's backups: {}",
            sync_text(store.sync.incoming)
        );
    }
    if let Some(why) = &store.sync_jobs_hidden {
        let _ = writeln!(out, "  sync jobs PBS may have left out of the list: {why}");
    }
    if let Some(why) = &store.namespaces_hidden {
        let _ = writeln!(out, "  namespaces PBS may have left out of the list: {why}");
    }
    for link in &store.sync.links {
        let _ = writeln!(out, "{}", link_line(link));
    }
    if let Some(error) = &store.error {
        let _ = writeln!(out, "  ERROR: snapshots could not be read: {error}");
        return;
    }
    for error in &store.namespace_errors {
        let (ns, why) = error.split_once(": ").unwrap_or((error.as_str(), ""));
        let _ = writeln!(out, "  ERROR: {ns} could not be read: {why}");
    }
    if store.guests.is_empty() {
        let _ = writeln!(out, "  no backups");
        return;
    }
    let _ = writeln!(
        out,
        "  {:<16} {:<21} {:>7} {:>9}  {:<10} RPO",
        "GUEST", "NEWEST", "AGE", "SNAPSHOTS", "VERIFIED"
    );
    // Only where a copy to the other site exists at all is the per-group scope news.
    let copied = store.sync.links.iter().any(|l| l.cross_site == Some(true));
    for guest in &store.guests {
        let _ = writeln!(out, "{}", guest_line(guest, copied));
    }
}

/// One sync link: its job, direction, target and site, and how its last run went.
fn link_line(link: &SyncLink) -> String {
    let target = match (&link.remote, &link.remote_site) {
        (Some(remote), Some(site)) => format!("{remote} ({site})"),
        (Some(remote), None) => format!("{remote} (site unknown)"),
        (None, _) => "local".to_owned(),
    };
    let last = link.last_run.as_ref().map_or_else(
        || match link.running_since {
            Some(start) => format!("running since {}", timestamp(start)),
            None => "never ran".to_owned(),
        },
        |state| match link.last_run_age_secs {
            Some(age) => format!(
                "last run {state}, {} ago{}",
                human_age(age),
                if link.stale {
                    " (older than the RPO)"
                } else {
                    ""
                }
            ),
            None => format!("last run {state}"),
        },
    );
    format!(
        "    {} {} {target}:{}, {last}",
        link.job_id, link.direction, link.remote_store
    )
}

/// One guest's row of the table; `copied`: whether the datastore has a copy to the other site,
/// so that a group it leaves out is worth saying.
fn guest_line(guest: &GuestBackup, copied: bool) -> String {
    let verified = match &guest.newest_verification {
        Some(VerifyState::Ok) => "ok".to_owned(),
        Some(VerifyState::Failed) => "FAILED".to_owned(),
        Some(other) => format!("UNKNOWN ({other})"),
        None => "never".to_owned(),
    };
    // A running or abandoned backup is shown beside, never as, the newest.
    let mut unfinished = match guest.unfinished_count {
        0 => String::new(),
        n => format!(" ({n} unfinished)"),
    };
    if copied {
        match guest.off_site {
            Some(false) => unfinished.push_str(" (not copied off-site)"),
            None => unfinished.push_str(" (off-site copy: cannot tell)"),
            Some(true) => {}
        }
    }
    format!(
        "  {:<16} {:<21} {:>7} {:>9}  {:<10} {}{unfinished}",
        if guest.namespace.is_empty() {
            format!("{}/{}", guest.backup_type, guest.backup_id)
        } else {
            format!(
                "{}:{}/{}",
                guest.namespace, guest.backup_type, guest.backup_id
            )
        },
        timestamp(guest.newest_time),
        human_age(guest.newest_age_secs),
        guest.snapshot_count,
        verified,
        if guest.rpo_breached { "BREACHED" } else { "ok" }
    )
}

fn sync_text(verdict: CrossSiteSync) -> &'static str {
    match verdict {
        CrossSiteSync::Ok => "ok",
        CrossSiteSync::Stale => "STALE (the last success is older than the RPO)",
        CrossSiteSync::Failed => "FAILED (the last run to the other site failed)",
        CrossSiteSync::NeverRun => "never ran",
        CrossSiteSync::Running => "running now (its previous result is not kept while it runs)",
        CrossSiteSync::SiteUnknown => "unknown (say which site each remote is in)",
        CrossSiteSync::DirectionUnknown => "unknown (a sync direction this client does not know)",
        CrossSiteSync::PullOnly => {
            "none (only pulls the other site's backups; push these to the other site)"
        }
        CrossSiteSync::SameSiteOnly => "none (only same-site or local sync)",
        CrossSiteSync::Partial => {
            "PARTIAL (the pushes to the other site leave out some groups: namespace, max-depth or group filter)"
        }
        CrossSiteSync::None => "none (no sync job)",
        CrossSiteSync::CannotTell => {
            "cannot tell (no copy seen, but the token may not see every sync job)"
        }
    }
}

/// Judges per group whether a push to another site that succeeded within the RPO has it in its
/// scope ([`SyncJob::scope_includes`](crate::types::SyncJob::scope_includes)), and turns an
/// "ok" datastore verdict into [`CrossSiteSync::Partial`] when a group is left out, or
/// [`CrossSiteSync::CannotTell`] when that cannot be told: a job that pushes one namespace or
/// a few groups does not copy the whole datastore.
///
/// A job with `verified-only` or `encrypted-only` copies only the snapshots that pass them
/// ([`takes_a_recent_snapshot`]). A push whose last run ended with warnings may have skipped a
/// group that another user owns on the target (`src/server/push.rs` `push_group_do` warns and
/// goes on; the guest ids of both sites start at 100), so its groups are "cannot tell".
fn judge_off_site(
    guests: &mut [GuestBackup],
    sync: &mut DatastoreSync,
    jobs: &[SyncJob],
    snapshots: Option<&BTreeMap<String, Vec<Snapshot>>>,
    now: i64,
    rpo: Duration,
) {
    let pushes: Vec<(&SyncJob, bool)> = sync
        .links
        .iter()
        .filter(|l| {
            l.direction == SyncDirection::Push
                && l.cross_site == Some(true)
                && l.succeeded_recently()
        })
        .filter_map(|l| {
            let warned = matches!(l.last_run, Some(crate::types::ExitStatus::Warnings(_)));
            jobs.iter()
                .find(|j| j.id == l.job_id && j.store == sync.store)
                .map(|j| (j, warned))
        })
        .collect();
    for guest in guests.iter_mut() {
        let group: Vec<&Snapshot> = snapshots
            .and_then(|namespaces| namespaces.get(&guest.namespace))
            .into_iter()
            .flatten()
            .filter(|s| s.backup_type == guest.backup_type && s.backup_id == guest.backup_id)
            .collect();
        let scopes: Vec<Option<bool>> = pushes
            .iter()
            .map(|&(job, warned)| {
                match job.scope_includes(&guest.namespace, &guest.backup_type, &guest.backup_id) {
                    // A push skips, with a warning, a group another user owns on the target
                    // (proxmox-backup `src/server/push.rs` `push_group_do`).
                    Some(true) if warned => None,
                    Some(true) => takes_a_recent_snapshot(job, &group, now, rpo),
                    other => other,
                }
            })
            .collect();
        guest.off_site = if scopes.contains(&Some(true)) {
            Some(true)
        } else if scopes.contains(&None) {
            None
        } else {
            Some(false)
        };
    }
    if sync.cross_site == CrossSiteSync::Ok {
        if guests.iter().any(|g| g.off_site == Some(false)) {
            sync.cross_site = CrossSiteSync::Partial;
        } else if guests.iter().any(|g| g.off_site.is_none()) {
            sync.cross_site = CrossSiteSync::CannotTell;
        }
    }
}

/// Whether `job`'s last run copied one of `group`'s finished snapshots taken within `rpo` of
/// `now`. A run copies the snapshots a group holds when it reaches the group (proxmox-backup
/// `src/server/push.rs` `push_group` lists them then), so a snapshot taken after the run
/// started is not shown to be in it: with only such snapshots recent, `None`. One taken
/// before the start is assumed finished by the time the run reached its group; a group with
/// no recent finished snapshot is covered (its own RPO breach is reported). A job with
/// `verified-only` skips a snapshot not verified ok when the run looks (so a verification
/// that started after the run's start is not shown to count), one with `encrypted-only` a snapshot
/// with an archive not encrypted (pbs-api-types `src/jobs.rs` `SyncJobConfig`; proxmox-backup
/// `src/server/sync.rs` `exclude_not_verified_or_encrypted`, which the sync applies to each
/// snapshot). `None` too when a snapshot's encryption cannot be told.
fn takes_a_recent_snapshot(
    job: &SyncJob,
    group: &[&Snapshot],
    now: i64,
    rpo: Duration,
) -> Option<bool> {
    let verified_only = job.verified_only == Some(true);
    let encrypted_only = job.encrypted_only == Some(true);
    let started = job.status.last_run_upid.as_ref().map(|u| u.starttime());
    let rpo = i64::try_from(rpo.as_secs()).unwrap_or(i64::MAX);
    let recent: Vec<&&Snapshot> = group
        .iter()
        .filter(|s| s.is_finished() && now.saturating_sub(s.backup_time) <= rpo)
        .collect();
    if recent.is_empty() {
        // Nothing recent to copy: the group's own RPO breach says so; the push covers it.
        return Some(true);
    }
    let mut unknown = false;
    for snapshot in recent
        .into_iter()
        .filter(|s| !verified_only || s.verified_ok())
    {
        let start = started.and_then(|t| i64::try_from(t).ok());
        let before_the_run = start.is_some_and(|t| snapshot.backup_time <= t);
        // `verified-only` judges the verification as the run finds it: one that started
        // after the run began is not shown to have counted for it.
        let verified_in_time = !verified_only
            || (snapshot.verification.as_ref())
                .and_then(|v| i64::try_from(v.upid.starttime()).ok())
                .zip(start)
                .is_some_and(|(verified, start)| verified <= start);
        match (encrypted_only, snapshot.encrypted()) {
            (false, _) | (true, Some(true)) if before_the_run && verified_in_time => {
                return Some(true);
            }
            (true, Some(false)) => {}
            _ => unknown = true,
        }
    }
    if unknown { None } else { Some(false) }
}

/// A verdict that says a copy is absent becomes [`CrossSiteSync::CannotTell`] when the sync
/// lists may be filtered: a job hidden from the caller may make the copy. Verdicts about a job
/// that was seen (ok, stale, failed, never ran) stand.
fn unless_complete(verdict: CrossSiteSync) -> CrossSiteSync {
    match verdict {
        CrossSiteSync::None | CrossSiteSync::SameSiteOnly | CrossSiteSync::PullOnly => {
            CrossSiteSync::CannotTell
        }
        other => other,
    }
}

/// Builds the report at `now` (UNIX epoch seconds) from an inventory.
pub fn build(inventory: &Inventory, now: i64, options: &ReportOptions) -> Report {
    let stores: Vec<String> = match &options.stores {
        Some(stores) => stores.clone(),
        None => inventory
            .datastores
            .iter()
            .map(|d| d.store.clone())
            .collect(),
    };
    let mut summary = Summary::default();
    let datastores: Vec<DatastoreReport> = stores
        .iter()
        .map(|store| {
            let report = datastore_report(inventory, store, now, options);
            summary.count(&report);
            report
        })
        .collect();
    let jobs: Vec<JobProblem> = checks::job_problems(
        &inventory.prune_jobs,
        &inventory.sync_jobs,
        &inventory.verify_jobs,
        &inventory.gc_jobs,
        now,
        options.overdue_grace,
    )
    .into_iter()
    .filter(|job| stores.contains(&job.store))
    .collect();
    summary.failed_jobs = jobs.iter().filter(|j| j.is_failure()).count();
    summary.overdue_jobs = jobs.len() - summary.failed_jobs;
    summary.unread_parts = inventory.errors.iter().filter(|e| !e.not_supported).count();
    Report {
        generated_at: now,
        rpo_secs: options.rpo.as_secs(),
        datastores,
        jobs,
        summary,
        warnings: warnings(inventory, &stores),
        errors: inventory.errors.clone(),
        datastores_hidden: options
            .stores
            .is_none()
            .then(|| datastores_hidden(inventory))
            .flatten(),
    }
}

/// [`DatastoreReport::usage_of_local_cache`]: from the usage entry's `backend-type` (4.2
/// on); without it, no S3 before 4.0 (`false`), and cannot tell on 4.0/4.1 or an unknown
/// release.
fn usage_of_local_cache(inventory: &Inventory, usage: Option<&DatastoreUsage>) -> Option<bool> {
    match usage.and_then(|u| u.backend_type.as_ref()) {
        Some(backend) => Some(*backend == BackendType::S3),
        None => inventory
            .release
            .as_ref()
            .filter(|r| !r.at_least(4, 0, 0))
            .map(|_| false),
    }
}

/// Why the datastore list may leave datastores out ([`crate::rights::datastores_hidden`]).
fn datastores_hidden(inventory: &Inventory) -> Option<String> {
    match &inventory.rights {
        None => Some("the credentials' rights were not read".to_owned()),
        Some(rights) => crate::rights::datastores_hidden(rights.as_ref().map_err(String::as_str)),
    }
}

/// The report of one datastore: its newest backup per guest, its sync links and verdicts
/// (cannot tell where the sync lists may be filtered), and its unreadable namespaces.
fn datastore_report(
    inventory: &Inventory,
    store: &str,
    now: i64,
    options: &ReportOptions,
) -> DatastoreReport {
    let usage = inventory.usage.iter().find(|u| u.store == store);
    let (mut guests, error) = match inventory.snapshots.get(store) {
        Some(Ok(namespaces)) => (
            namespaces
                .iter()
                .flat_map(|(namespace, snapshots)| {
                    checks::newest_per_guest(store, namespace, snapshots, now, options.rpo)
                })
                .collect(),
            None,
        ),
        Some(Err(error)) => (Vec::new(), Some(error.clone())),
        None => (Vec::new(), Some("not read".to_owned())),
    };
    let mut sync = checks::datastore_sync(
        store,
        &inventory.sync_jobs,
        &inventory.remotes,
        &options.sites,
        now,
        options.rpo,
    );
    let sync_jobs_hidden = sync_jobs_hidden(inventory, store);
    if sync_jobs_hidden.is_some() {
        sync.cross_site = unless_complete(sync.cross_site);
        sync.incoming = unless_complete(sync.incoming);
    }
    let snapshots = inventory.snapshots.get(store).and_then(|r| r.as_ref().ok());
    judge_off_site(
        &mut guests,
        &mut sync,
        &inventory.sync_jobs,
        snapshots,
        now,
        options.rpo,
    );
    let namespace_errors: Vec<String> = inventory
        .namespace_errors
        .get(store)
        .into_iter()
        .flatten()
        .map(|(ns, e)| format!("namespace `{ns}`: {e}"))
        .collect();
    DatastoreReport {
        store: store.to_owned(),
        used_bytes: usage.and_then(|u| u.used),
        total_bytes: usage.and_then(|u| u.total),
        usage_of_local_cache: usage_of_local_cache(inventory, usage),
        error,
        namespace_errors,
        guests,
        sync,
        sync_jobs_hidden,
        namespaces_hidden: namespaces_hidden(inventory, store),
    }
}

/// The privileges any one of which lets PBS list a namespace: `NS_PRIVS_OK` (proxmox-backup
/// `src/backup/hierarchy.rs`), looked up on each namespace's own ACL path.
const NAMESPACE_PRIVILEGES: [&str; 4] = [
    "Datastore.Modify",
    "Datastore.Read",
    "Datastore.Backup",
    "Datastore.Audit",
];

/// Why PBS may have left some of `store`'s namespaces out of
/// `GET /admin/datastore/{store}/namespace`, if it may: `list_namespaces` (proxmox-backup
/// `src/api2/admin/namespace.rs`) drops, silently, each namespace where the caller holds none
/// of [`NAMESPACE_PRIVILEGES`]. They reach every namespace only when held on
/// `/datastore/{store}` propagating; a deeper ACL path that grants the caller something else
/// is named in the whole rights answer ([`Inventory::rights`]). One that grants nothing is
/// left out of that answer too (`list_permissions`), so it stays assumed, as for sync jobs
/// ([`sync_jobs_hidden`]).
fn namespaces_hidden(inventory: &Inventory, store: &str) -> Option<String> {
    let path = crate::rights::acl_path(store, "");
    let all = NAMESPACE_PRIVILEGES.join(", ");
    let own = match inventory.store_rights.get(&path) {
        None => Some(format!("the rights on {path} were not read")),
        Some(Err(error)) => Some(format!("the rights on {path} could not be read: {error}")),
        Some(Ok(rights)) => {
            // Below a path whose privileges all hold without propagating, what reaches
            // `/datastore` reaches the namespaces ([`crate::rights::reaches`]).
            let above = match &inventory.rights {
                Some(Ok(whole)) => whole
                    .get("/datastore")
                    .is_some_and(|held| reaches(held, &NAMESPACE_PRIVILEGES, false)),
                _ => false,
            };
            rights
                .get(&path)
                .is_none_or(|held| !reaches(held, &NAMESPACE_PRIVILEGES, above))
                .then(|| format!("the token holds none of {all} propagating on {path}"))
        }
    };
    let below = format!("{path}/");
    let deeper = inventory
        .rights
        .iter()
        .flat_map(|r| r.as_ref().ok())
        .flat_map(|rights| rights.iter())
        .filter(|(p, held)| {
            p.starts_with(&below) && NAMESPACE_PRIVILEGES.iter().all(|n| !held.contains_key(*n))
        })
        .map(|(p, _)| format!("the token holds none of {all} on {p}"));
    let why: Vec<String> = own.into_iter().chain(deeper).collect();
    (!why.is_empty()).then(|| why.join("; "))
}

/// Why PBS may have left some of `store`'s sync jobs out of `GET /admin/sync`, if it may. It
/// lists a job only with `Datastore.Audit` looked up on the job's own `acl_path`
/// (`/datastore/{store}[/{ns}]`) and `Remote.Audit` on `/remote/{remote}` for a pull, on its
/// `remote_acl_path` (`/remote/{remote}/{remote-store}[/{remote-ns}]`) for a push, or
/// `Datastore.Audit` on its local source (proxmox-backup `src/api2/config/sync.rs`
/// `check_sync_job_read_access`; pbs-api-types `src/jobs.rs` `SyncJobConfig::acl_path`,
/// `remote_acl_path`). An ACL on any of those paths replaces what its parents grant, so only
/// the answer for `/datastore/{store}` itself is exact for the datastore; a deeper ACL path
/// that grants the caller something is named in the whole rights answer
/// ([`crate::rights::deeper_paths_without_audit`]). One that grants nothing is left out of it too
/// (`list_permissions`), so it stays assumed.
fn sync_jobs_hidden(inventory: &Inventory, store: &str) -> Option<String> {
    let path = crate::rights::acl_path(store, "");
    let own = match inventory.store_rights.get(&path) {
        None => Some(format!("the rights on {path} were not read")),
        Some(Err(error)) => Some(format!("the rights on {path} could not be read: {error}")),
        Some(Ok(rights)) => rights
            .get(&path)
            .is_none_or(|privileges| !reaches(privileges, &["Datastore.Audit"], true))
            .then(|| format!("the token lacks Datastore.Audit on {path} itself")),
    };
    let rest = match inventory.sync_lists_complete {
        Some(true) => None,
        Some(false) => Some(match &inventory.rights {
            Some(Ok(rights)) => crate::rights::lacks_propagating(rights).join(" and "),
            _ => "the token lacks Remote.Audit on /remote or Datastore.Audit on /datastore"
                .to_owned(),
        }),
        None => Some(match &inventory.rights {
            Some(Err(error)) => format!("the token's rights could not be read: {error}"),
            _ => "the token's rights were not read".to_owned(),
        }),
    };
    let deeper = match &inventory.rights {
        Some(Ok(rights)) => {
            let below_store = format!("{}/", crate::rights::acl_path(store, ""));
            crate::rights::deeper_paths_without_audit(rights, &below_store)
        }
        _ => Vec::new(),
    };
    let why: Vec<String> = own.into_iter().chain(deeper).chain(rest).collect();
    (!why.is_empty()).then(|| why.join("; "))
}

impl Summary {
    /// Adds one datastore's counts.
    fn count(&mut self, store: &DatastoreReport) {
        let guests = &store.guests;
        self.unreadable_namespaces += store.namespace_errors.len();
        self.datastores += 1;
        self.unreadable_datastores += usize::from(store.error.is_some());
        self.guests += guests.len();
        self.rpo_breaches += guests.iter().filter(|g| g.rpo_breached).count();
        self.verify_failures += guests.iter().filter(|g| g.newest_verify_failed()).count();
        self.verify_unknown += guests.iter().filter(|g| g.newest_verify_unknown()).count();
        self.unverified += guests
            .iter()
            .filter(|g| g.newest_verification.is_none())
            .count();
        self.without_cross_site_sync += usize::from(!store.sync.cross_site.is_ok());
    }
}

/// What could not be read but did not stop the report: the remotes, and the garbage
/// collection of `stores` as the GC list tells it.
fn warnings(inventory: &Inventory, stores: &[String]) -> Vec<String> {
    // A GC list that failed, or that the release lacks, is in `errors`: nothing to judge.
    let gc_read = !inventory
        .errors
        .iter()
        .any(|e| e.part.contains("GET /admin/gc"));
    inventory
        .remotes_error
        .iter()
        .map(|e| format!("remotes could not be read ({e}); sites matched by remote name only"))
        .chain(
            gc_read
                .then(|| checks::gc_warnings(stores, &inventory.gc_jobs))
                .into_iter()
                .flatten(),
        )
        .collect()
}

fn timestamp(epoch: i64) -> String {
    jiff::Timestamp::from_second(epoch)
        .map(|t| t.to_string())
        .unwrap_or_else(|_| epoch.to_string())
}

/// `3d2h`, `20h`, `45m`, `30s`: the two largest units.
fn human_age(secs: u64) -> String {
    let units = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1)];
    let mut parts = Vec::new();
    let mut rest = secs;
    for (name, size) in units {
        if rest >= size || (parts.is_empty() && size == 1) {
            parts.push(format!("{}{name}", rest / size));
            rest %= size;
        }
        if parts.len() == 2 {
            break;
        }
    }
    // Drop a trailing zero unit (`2h0m` reads as `2h`).
    if parts.len() == 2 && parts[1].starts_with('0') {
        parts.pop();
    }
    parts.concat()
}

fn human_bytes(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < units.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_and_sizes_read_well() {
        assert_eq!(human_age(0), "0s");
        assert_eq!(human_age(45), "45s");
        assert_eq!(human_age(7200), "2h");
        assert_eq!(human_age(7260), "2h1m");
        assert_eq!(human_age(74 * 3600), "3d2h");
        assert_eq!(human_age(93_600), "1d2h");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1_500_000_000_000), "1.4 TiB");
    }
}
