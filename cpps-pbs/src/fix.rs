//! `pbs-report --fix`: what would bring a report back to green, as a plan first.
//!
//! [`plan`] is pure: from a [`Report`] it lists the actions this client can take (run a failed
//! or overdue sync, verify or prune job again; run a push to the other site whose last success
//! is older than the RPO; verify a guest whose newest snapshot was never verified, or whose
//! verification state is unknown: that one snapshot, never the whole group). [`apply`] runs a plan's actions one at a time, each waited on
//! to its task's end. A failed verification is not in the plan: verifying the same snapshot
//! again does not repair it; a new backup does.

use std::collections::BTreeSet;
use std::fmt;

use cpps_proxmox_family::WaitOptions;
use serde::Serialize;

use crate::checks::{CrossSiteSync, JobKind};
use crate::report::{Report, error_chain};
use crate::types::{BackupType, ExitStatus, Upid};
use crate::{Client, RunnableJob, VerifyRequest};

/// One action of a plan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case", tag = "action")]
#[non_exhaustive]
pub enum FixAction {
    /// Run a job now (`POST /admin/{sync|verify|prune}/{id}/run`).
    RunJob {
        /// `sync`, `verify` or `prune`.
        kind: String,
        /// The job id.
        id: String,
        /// Why.
        reason: String,
    },
    /// Verify one guest's group (`POST /admin/datastore/{store}/verify`). [`plan`] no longer
    /// makes it: a group's verification also verifies its unfinished snapshots, and fails on
    /// them ([`FixAction::VerifySnapshot`]).
    VerifyGroup {
        /// The datastore.
        store: String,
        /// The namespace, empty for the root.
        namespace: String,
        /// `vm`, `ct` or `host`.
        backup_type: String,
        /// The backup id.
        backup_id: String,
        /// Why.
        reason: String,
    },
    /// Verify one snapshot of a guest's group: its newest finished one
    /// (`POST /admin/datastore/{store}/verify` with `backup-time`).
    VerifySnapshot {
        /// The datastore.
        store: String,
        /// The namespace, empty for the root.
        namespace: String,
        /// `vm`, `ct` or `host`.
        backup_type: String,
        /// The backup id.
        backup_id: String,
        /// When the snapshot was taken (UNIX epoch), which names it within its group.
        backup_time: i64,
        /// Why.
        reason: String,
    },
}

/// `ns:` for a namespace, nothing for the root: how the plan prefixes a group.
fn ns_prefix(namespace: &str) -> String {
    if namespace.is_empty() {
        String::new()
    } else {
        format!("{namespace}:")
    }
}

impl fmt::Display for FixAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FixAction::RunJob { kind, id, reason } => {
                write!(f, "run {kind} job {id} ({reason})")
            }
            FixAction::VerifyGroup {
                store,
                namespace,
                backup_type,
                backup_id,
                reason,
            } => {
                let ns = ns_prefix(namespace);
                write!(f, "verify {store} {ns}{backup_type}/{backup_id} ({reason})")
            }
            FixAction::VerifySnapshot {
                store,
                namespace,
                backup_type,
                backup_id,
                backup_time,
                reason,
            } => {
                // PBS names a snapshot `type/id/RFC 3339 time` (pbs-api-types `BackupDir`).
                let ns = ns_prefix(namespace);
                let time = jiff::Timestamp::from_second(*backup_time)
                    .map_or_else(|_| backup_time.to_string(), |t| t.to_string());
                write!(
                    f,
                    "verify {store} {ns}{backup_type}/{backup_id}/{time} ({reason})"
                )
            }
        }
    }
}

/// The actions that would fix what the report found, in a stable order, each once.
pub fn plan(report: &Report) -> Vec<FixAction> {
    let mut actions = BTreeSet::new();
    for job in &report.jobs {
        let kind = match job.kind {
            JobKind::Sync => "sync",
            JobKind::Verify => "verify",
            JobKind::Prune => "prune",
            _ => continue,
        };
        let reason = if job.is_failure() {
            "its last run failed"
        } else {
            "its run is overdue"
        };
        actions.insert(FixAction::RunJob {
            kind: kind.to_owned(),
            id: job.id.clone(),
            reason: reason.to_owned(),
        });
    }
    for store in &report.datastores {
        if store.sync.cross_site == CrossSiteSync::Stale {
            for link in store
                .sync
                .links
                .iter()
                .filter(|l| l.stale && l.cross_site == Some(true))
            {
                let already = actions.iter().any(
                    |a| matches!(a, FixAction::RunJob { kind, id, .. } if kind == "sync" && *id == link.job_id),
                );
                if !already {
                    actions.insert(FixAction::RunJob {
                        kind: "sync".to_owned(),
                        id: link.job_id.clone(),
                        reason: "its last success is older than the RPO".to_owned(),
                    });
                }
            }
        }
        for guest in &store.guests {
            let reason = if guest.newest_verification.is_none() {
                "its newest snapshot was never verified"
            } else if guest.newest_verify_unknown() {
                "its newest snapshot's verification state is unknown"
            } else {
                continue;
            };
            // The newest finished snapshot only: verifying the group would verify its running
            // or abandoned snapshots too, and fail on them (`src/backup/verify.rs`).
            actions.insert(FixAction::VerifySnapshot {
                store: store.store.clone(),
                namespace: guest.namespace.clone(),
                backup_type: guest.backup_type.to_string(),
                backup_id: guest.backup_id.clone(),
                backup_time: guest.newest_time,
                reason: reason.to_owned(),
            });
        }
    }
    actions.into_iter().collect()
}

/// How one applied action ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Applied {
    /// The action.
    pub action: FixAction,
    /// Its task, once started.
    pub upid: Option<String>,
    /// `OK`, `WARNINGS: N`, or why it failed (the error and the task's log tail).
    pub outcome: Result<String, String>,
}

/// Runs the actions of `plan` one after the other, each waited on to its task's end with
/// `options`; one failure does not stop the others.
pub async fn apply(client: &Client, plan: &[FixAction], options: &WaitOptions) -> Vec<Applied> {
    let mut done = Vec::with_capacity(plan.len());
    for action in plan {
        let started: Result<Upid, crate::Error> = match action {
            FixAction::RunJob { kind, id, .. } => {
                let kind = match kind.as_str() {
                    "sync" => RunnableJob::Sync,
                    "verify" => RunnableJob::Verify,
                    _ => RunnableJob::Prune,
                };
                client.run_job(kind, id).await
            }
            FixAction::VerifyGroup {
                store,
                namespace,
                backup_type,
                backup_id,
                ..
            } => {
                let request =
                    VerifyRequest::group(BackupType::from(backup_type.as_str()), backup_id.clone())
                        .in_namespace(namespace.clone());
                client.verify(store, &request).await
            }
            FixAction::VerifySnapshot {
                store,
                namespace,
                backup_type,
                backup_id,
                backup_time,
                ..
            } => {
                let request = VerifyRequest::snapshot(
                    BackupType::from(backup_type.as_str()),
                    backup_id.clone(),
                    *backup_time,
                )
                .in_namespace(namespace.clone());
                client.verify(store, &request).await
            }
        };
        let applied = match started {
            Err(error) => Applied {
                action: action.clone(),
                upid: None,
                outcome: Err(error_chain(&error)),
            },
            Ok(upid) => {
                let outcome = match client.wait_task(&upid, options).await {
                    Ok(outcome) => Ok(outcome.exit_status.to_string()),
                    Err(crate::Error::TaskFailed {
                        exit_status,
                        log_tail,
                        ..
                    }) => Err(format!(
                        "{}: {}",
                        ExitStatus::parse(&exit_status),
                        log_tail.last().map(String::as_str).unwrap_or("")
                    )),
                    Err(error) => Err(error_chain(&error)),
                };
                Applied {
                    action: action.clone(),
                    upid: Some(upid.to_string()),
                    outcome,
                }
            }
        };
        done.push(applied);
    }
    done
}
