//! `/cluster/…`.

use cpps_http::Method;

use super::request;

use crate::endpoints::HA_RULES_SINCE;
use crate::family::{ServerVersion, WaitOptions};
use crate::types::{
    BackupJob, ClusterResource, ClusterStatusEntry, HaMove, HaResource, HaSid, HaStatusEntry,
    NotBackedUp, PoolInfo, PoolMembers, ResourceFilter, Uncovered,
};
use crate::{Client, Error, HaReached, HaWanted, PveError};

/// A guest to put under the HA manager (`POST /cluster/ha/resources`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HaResourceSpec {
    /// The guest (`vm:100`, `ct:200`).
    pub sid: HaSid,
    /// The requested state (`started`, `stopped`, `disabled`, `ignored`); PVE's default is
    /// `started`.
    pub state: Option<String>,
    /// A comment.
    pub comment: Option<String>,
    /// Restarts on the same node before relocating.
    pub max_restart: Option<u32>,
    /// Relocations to other nodes before giving up.
    pub max_relocate: Option<u32>,
    /// An HA group: PVE 8 only (PVE 9 replaced groups with rules and refuses it once the
    /// groups are migrated: pve-ha-manager `src/PVE/API2/HA/Resources.pm`, "invalid parameter
    /// 'group': ha groups have been migrated to rules").
    pub group: Option<String>,
    /// `failback`: PVE 9 only (pve-ha-manager 5.0, "resources: introduce failback property").
    /// [`ClusterApi::ha_add`] refuses it with a group, whose `nofailback` the HA manager uses
    /// instead, and while a node may run PVE 8, whose CRM ignores it.
    pub failback: Option<bool>,
}

impl HaResourceSpec {
    /// The guest, with PVE's defaults for everything else.
    pub fn new(sid: HaSid) -> Self {
        HaResourceSpec {
            sid,
            state: None,
            comment: None,
            max_restart: None,
            max_relocate: None,
            group: None,
            failback: None,
        }
    }

    /// Sets the requested state.
    pub fn state(mut self, state: impl Into<String>) -> Self {
        self.state = Some(state.into());
        self
    }

    /// Sets the comment.
    pub fn comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = Some(comment.into());
        self
    }

    /// The form for `version`: `failback` is sent to PVE 9 only, and `group` unless the
    /// cluster's groups have been migrated to rules (`groups_migrated`); otherwise
    /// [`Error::NotSupported`], nothing is sent.
    fn form(
        &self,
        version: ServerVersion,
        groups_migrated: bool,
    ) -> Result<Vec<(&'static str, String)>, Error> {
        let mut form = vec![("sid", self.sid.to_string())];
        if let Some(state) = &self.state {
            form.push(("state", state.clone()));
        }
        if let Some(comment) = &self.comment {
            form.push(("comment", comment.clone()));
        }
        if let Some(n) = self.max_restart {
            form.push(("max_restart", n.to_string()));
        }
        if let Some(n) = self.max_relocate {
            form.push(("max_relocate", n.to_string()));
        }
        if let Some(group) = &self.group {
            if groups_migrated {
                return Err(Error::NotSupported {
                    what: "an HA group (the cluster's HA groups have been migrated to rules)"
                        .to_owned(),
                    version,
                    since: None,
                });
            }
            form.push(("group", group.clone()));
        }
        if let Some(failback) = self.failback {
            if version < HA_RULES_SINCE {
                return Err(Error::NotSupported {
                    what: "HA `failback` (PVE 9 and later)".to_owned(),
                    version,
                    since: None,
                });
            }
            form.push(("failback", if failback { "1" } else { "0" }.to_owned()));
        }
        Ok(form)
    }
}

/// Cluster-wide endpoints. Get one with [`Client::cluster`].
#[derive(Debug, Clone)]
pub struct ClusterApi {
    client: Client,
}

impl ClusterApi {
    pub(crate) fn new(client: Client) -> Self {
        ClusterApi { client }
    }

    /// `GET /cluster/status`: the cluster entry (quorum) and one entry per node.
    pub async fn status(&self) -> Result<Vec<ClusterStatusEntry>, Error> {
        self.client
            .get(request(Method::GET, "/cluster/status", &[])?)
            .await
    }

    /// `GET /cluster/resources?type=…`: nodes, guests, storages, pools, SDN; `None` for all.
    pub async fn resources(
        &self,
        filter: Option<ResourceFilter>,
    ) -> Result<Vec<ClusterResource>, Error> {
        let mut call = request(Method::GET, "/cluster/resources", &[])?;
        if let Some(filter) = filter {
            call = call.query("type", filter.as_str());
        }
        // A list call: a big cluster's answer is tens of MiB (the list cap, not the 8 MiB one).
        self.client.get_list(call).await
    }

    /// `GET /cluster/ha/resources`.
    pub async fn ha_resources(&self) -> Result<Vec<HaResource>, Error> {
        self.client
            .get_list(request(Method::GET, "/cluster/ha/resources", &[])?)
            .await
    }

    /// `GET /cluster/ha/groups`: whether the cluster's HA groups have been migrated to rules,
    /// after which PVE 9 refuses `group` and before which it refuses rule writes. Upstream's
    /// test is "no group left" (pve-ha-manager `src/PVE/HA/Config.pm`
    /// `have_groups_been_migrated`); the CRM migrates them once every node runs PVE 9
    /// (`HA/Manager.pm`). On a migrated PVE 9 the list dies with "cannot index groups: ha
    /// groups have been migrated to rules" (`HA/Groups.pm` `index`), read as `true`; any other
    /// error is returned (for example a 403: the list needs `Sys.Audit` on `/`).
    pub async fn ha_groups_migrated(&self) -> Result<bool, Error> {
        let groups: Result<Vec<serde_json::Value>, Error> =
            match request(Method::GET, "/cluster/ha/groups", &[]) {
                Ok(call) => self.client.get(call).await,
                Err(e) => Err(e),
            };
        match groups {
            Ok(groups) => Ok(groups.is_empty()),
            Err(Error::Api { message, .. }) if message.contains("have been migrated to rules") => {
                Ok(true)
            }
            Err(e) => Err(e),
        }
    }

    /// `GET /cluster/ha/resources/{sid}`.
    pub async fn ha_resource(&self, sid: &str) -> Result<HaResource, Error> {
        self.client
            .get(request(Method::GET, "/cluster/ha/resources/{sid}", &[sid])?)
            .await
    }

    /// `POST /cluster/ha/resources`: puts a guest under the HA manager. The parameters
    /// differ between PVE 8 and 9 ([`HaResourceSpec::group`], [`HaResourceSpec::failback`]);
    /// the release is read once ([`Client::server_version`]). On PVE 9 a `group` is sent while
    /// the cluster still has groups ([`ClusterApi::ha_groups_migrated`]). A `failback` is sent
    /// only without a group and once every node says it runs PVE 9
    /// ([`ClusterApi::failback_ignored_by`]); otherwise [`PveError::HaNotHonoured`], nothing
    /// sent.
    pub async fn ha_add(&self, spec: &HaResourceSpec) -> Result<(), Error> {
        if spec.group.is_some() && spec.failback.is_some() {
            // pve-ha-manager `src/PVE/HA/Manager.pm` runs `migrate_groups_to_resources`, which
            // sets a grouped resource's `failback` from its group (`src/PVE/HA/Groups.pm`).
            return Err(Error::Product(PveError::HaNotHonoured {
                what: "`failback`".to_owned(),
                reason: "the HA manager takes a grouped resource's failback from its group's `nofailback`".to_owned(),
            }));
        }
        let version = self.client.server_version().await?;
        let groups_migrated =
            spec.group.is_some() && version >= HA_RULES_SINCE && self.ha_groups_migrated().await?;
        let form = spec.form(version, groups_migrated)?;
        if spec.failback.is_some()
            && let Some(reason) = self.failback_ignored_by().await?
        {
            let what = "`failback`".to_owned();
            return Err(Error::Product(PveError::HaNotHonoured { what, reason }));
        }
        let _: Option<serde_json::Value> = self
            .client
            .get(request(Method::POST, "/cluster/ha/resources", &[])?.form(&form))
            .await?;
        Ok(())
    }

    /// Which nodes would ignore an HA resource's `failback`, if any: those running PVE 8 and
    /// those that do not say their release (`GET /nodes`, then each node's
    /// `GET /nodes/{node}/status`). Any node may become the CRM master, and a PVE 8 one skips
    /// the property its section config does not know (pve-ha-manager 5.0 added it).
    pub async fn failback_ignored_by(&self) -> Result<Option<String>, Error> {
        let nodes = self.client.nodes().await?;
        let releases = futures::future::join_all(nodes.iter().map(|n| async {
            let status = self.client.node(n.node.as_str()).status().await;
            (n.node.to_string(), status)
        }))
        .await;
        let mut ignoring = Vec::new();
        for (node, status) in releases {
            let status = match status {
                Ok(status) => status,
                Err(e) => {
                    ignoring.push(format!("node {node} did not say its release ({e})"));
                    continue;
                }
            };
            // pve-manager `PVE/API2/Nodes.pm` `status`: `pve-manager/9.0.10/<commit>`.
            let text = status.pveversion.split('/').nth(1).unwrap_or("");
            match ServerVersion::from_pve(text) {
                Ok(v) if v >= HA_RULES_SINCE => {}
                Ok(_) => ignoring.push(format!("node {node} runs pve-manager {text}")),
                Err(_) => ignoring.push(format!(
                    "node {node} reports pveversion `{}`, which names no release",
                    status.pveversion
                )),
            }
        }
        Ok((!ignoring.is_empty()).then(|| {
            format!(
                "{}: a PVE 8 node as CRM master ignores it",
                ignoring.join(", and ")
            )
        }))
    }

    /// `DELETE /cluster/ha/resources/{sid}`: takes a guest out of the HA manager (the guest
    /// itself is untouched).
    pub async fn ha_remove(&self, sid: &HaSid) -> Result<(), Error> {
        let _: Option<serde_json::Value> = self
            .client
            .get(request(
                Method::DELETE,
                "/cluster/ha/resources/{sid}",
                &[&sid.to_string()],
            )?)
            .await?;
        Ok(())
    }

    /// `POST /cluster/ha/resources/{sid}/migrate` (online) or `…/relocate` (stop, move,
    /// start): asks the HA manager to move the guest to `node`. PVE 9 answers what moves along
    /// and what blocks the move ([`HaMove`]), PVE 8 `null` (an empty [`HaMove`]). The move
    /// happens later: wait for it with [`ClusterApi::ha_wait`] and [`HaWanted::OnNode`].
    ///
    /// A move that resources block is [`PveError::HaWait`] at once: PVE queues the command, but
    /// the HA manager drops it (pve-ha-manager `src/PVE/HA/Manager.pm`
    /// `queue_resource_motion`: one negative resource affinity "is enough to not execute
    /// migration"), so waiting would only run out.
    pub async fn ha_move(&self, sid: &HaSid, node: &str, relocate: bool) -> Result<HaMove, Error> {
        let action = if relocate { "relocate" } else { "migrate" };
        let answer: Option<HaMove> = self
            .client
            .get(
                request(
                    Method::POST,
                    &format!("/cluster/ha/resources/{{sid}}/{action}"),
                    &[&sid.to_string()],
                )?
                .form(&[("node", node)]),
            )
            .await?;
        let answer = answer.unwrap_or_default();
        if !answer.blocking.is_empty() {
            let blockers: Vec<String> = answer
                .blocking
                .iter()
                .map(|b| {
                    format!(
                        "{} ({})",
                        b.sid,
                        b.cause.as_deref().unwrap_or("no cause given")
                    )
                })
                .collect();
            return Err(Error::from(PveError::HaWait {
                sid: sid.to_string(),
                wanted: format!("on node {node}"),
                reason: format!(
                    "blocked by {}; the HA manager drops the queued {action}",
                    blockers.join(", ")
                ),
            }));
        }
        Ok(answer)
    }

    /// Polls `GET /cluster/ha/status/current` until the HA manager shows `wanted` for `sid`,
    /// within `options.timeout` ([`PveError::HaTimeout`]; a service in `error` is
    /// [`PveError::HaWait`]). Without `Sys.Audit` on `/` it follows the guest's `hastate` in
    /// `GET /cluster/resources`, or ends with [`PveError::HaUnobserved`].
    pub async fn ha_wait(
        &self,
        sid: &HaSid,
        wanted: HaWanted,
        options: &WaitOptions,
    ) -> Result<HaReached, Error> {
        let started = tokio::time::Instant::now();
        crate::ha::wait_for_guest(
            &self.client,
            &sid.vmid.to_string(),
            wanted,
            options,
            crate::ha::deadline(started, options),
        )
        .await
    }

    /// `GET /cluster/backup`: the scheduled vzdump jobs.
    pub async fn backup_jobs(&self) -> Result<Vec<BackupJob>, Error> {
        self.client
            .get_list(request(Method::GET, "/cluster/backup", &[])?)
            .await
    }

    /// `GET /cluster/backup-info/not-backed-up`: the guests that no vzdump job names, enabled
    /// or not, on any storage (pve-manager `PVE/API2/Cluster/BackupInfo.pm`,
    /// `get_included_vmids`), of those the caller may audit (`VM.Audit` filters the list).
    /// An empty answer does not mean every guest is backed up: see
    /// [`ClusterApi::guests_without_job`].
    ///
    /// # Errors
    /// A 403 without `Sys.Audit` on `/` (the endpoint's permission check). One job naming a
    /// pool that no longer exists fails the whole list: PVE answers 500 "pool '…' does not
    /// exist" (`PVE/API2Tools.pm` `get_resource_pool_guest_members`), returned as
    /// [`Error::Api`] saying so, not as not-found: the endpoint is there.
    pub async fn not_backed_up(&self) -> Result<Vec<NotBackedUp>, Error> {
        self.client
            .get_list(request(
                Method::GET,
                "/cluster/backup-info/not-backed-up",
                &[],
            )?)
            .await
            .map_err(|e| match e {
                Error::NotFound {
                    method,
                    url,
                    status,
                    message,
                } if message.starts_with("pool '") => Error::Api {
                    method,
                    url,
                    status,
                    message: format!(
                        "{message} (a vzdump job names this pool, and PVE cannot list the \
                         guests without a job until the job or the pool is fixed)"
                    ),
                    errors: Default::default(),
                },
                e => e,
            })
    }

    /// `GET /cluster/backup` and `GET /cluster/resources?type=vm`: the guests that no job for
    /// which `counts` holds includes (for example `BackupJob::is_enabled`), judged by
    /// [`crate::types::uncovered_guests`]. Both lists are filtered by the caller's rights.
    ///
    /// A counted `pool` job whose pool no listed guest shows is read with
    /// `GET /pools/{poolid}`: without `Pool.Audit` on `/pool/<pool>`, PVE drops the guests'
    /// `pool` field (pve-manager `PVE/API2/Cluster.pm` `resources`), yet vzdump still backs
    /// the members up. If that read fails too, the guests it may cover are "cannot tell".
    pub async fn guests_without_job(
        &self,
        counts: impl Fn(&BackupJob) -> bool,
    ) -> Result<Uncovered<ClusterResource>, Error> {
        let jobs = self.backup_jobs().await?;
        let guests = self.resources(Some(ResourceFilter::Vm)).await?;
        let mut pools = PoolMembers::from_resources(&guests);
        for job in jobs.iter().filter(|job| counts(job)) {
            let Some(pool) = &job.pool else { continue };
            if pools.knows(pool) {
                continue;
            }
            match self.pool(pool).await {
                Ok(info) => pools.insert(pool.clone(), info.guests()),
                Err(e) => pools.unreadable(pool.clone(), e.to_string()),
            }
        }
        let found = crate::types::uncovered_guests(&jobs, &guests, &pools, counts);
        Ok(Uncovered {
            uncovered: found.uncovered.into_iter().cloned().collect(),
            cannot_tell: found
                .cannot_tell
                .into_iter()
                .map(|(g, why)| (g.clone(), why))
                .collect(),
        })
    }

    /// `GET /access/permissions?path=/vms`: whether `GET /cluster/resources` shows the caller
    /// every guest. PVE skips each guest without `VM.Audit` on `/vms/<vmid>` (pve-manager
    /// `PVE/API2/Cluster.pm` `resources`: `next if !$rpcenv->check(..., "/vms/$vmid",
    /// ['VM.Audit'], 1)`), silently. `Ok(None)` when `VM.Audit` on `/vms` is held and
    /// propagates (pve-access-control `PVE/API2/AccessControl.pm` `permissions` answers
    /// `{path: {privilege: propagate}}`, `{}` without any), else `Ok(Some(why))`: the list may
    /// leave guests out (a pool-scoped token, for one). A deeper `NoAccess` on one guest is
    /// not shown by this read; that guest would still be left out.
    pub async fn guest_list_trimmed(&self) -> Result<Option<String>, Error> {
        let rights = self
            .client
            .get_raw("access/permissions", &[("path", "/vms")])
            .await?;
        // Real PVE answers for the path asked; an answer keyed by `/` (fakepve's) says the
        // same of every path below it.
        let held = ["/vms", "/"]
            .iter()
            .find_map(|path| rights.get(*path))
            .and_then(|privileges| privileges.get("VM.Audit"))
            // `propagate` is 0 or 1 (or a string of those from an older PVE).
            .and_then(|propagate| {
                crate::family::de::opt_bool(propagate.clone())
                    .ok()
                    .flatten()
            });
        Ok(match held {
            Some(true) => None,
            Some(false) => Some(
                "VM.Audit on /vms does not propagate: the guest list may leave out guests"
                    .to_owned(),
            ),
            None => Some(
                "VM.Audit on /vms is not held: the guest list leaves out the guests the \
                 credentials may not audit"
                    .to_owned(),
            ),
        })
    }

    /// `GET /pools/{poolid}`: a pool and its members. Needs `Pool.Audit` on `/pool/{poolid}`
    /// (pve-manager `PVE/API2/Pool.pm` `read_pool`). A nested pool (`lab/gpu`, PVE 8.1 on) is
    /// read with `GET /pools?poolid=…` (`index`) instead: the server unescapes the path before
    /// it looks up the handler (pve-http-server `src/PVE/APIServer/AnyEvent.pm`), so the path
    /// form cannot name it. `index` asks for `Pool.Audit` but does not refuse without it, so a
    /// nested pool may be read where a plain one is refused.
    pub async fn pool(&self, poolid: &str) -> Result<PoolInfo, Error> {
        if !poolid.contains('/') {
            return self
                .client
                .get(request(Method::GET, "/pools/{poolid}", &[poolid])?)
                .await;
        }
        let call = request(Method::GET, "/pools", &[])?.query("poolid", poolid);
        // A list of exactly this pool (an unknown one is an error answer, "pool '…' does not
        // exist"); another length is a decode error.
        let (pool,): (PoolInfo,) = self.client.get_list(call).await?;
        Ok(pool)
    }

    /// `GET /cluster/ha/status/current`: quorum, master, LRMs and services.
    pub async fn ha_status(&self) -> Result<Vec<HaStatusEntry>, Error> {
        self.client
            .get(request(Method::GET, "/cluster/ha/status/current", &[])?)
            .await
    }
}
