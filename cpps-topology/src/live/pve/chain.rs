//! The PVE side of the backup chain ([`cpps_pbs::chain`]): the guests, the storages of type
//! `pbs`, the vzdump jobs with the guests each includes, and the vzdump tasks of every node,
//! with the logs that say which guests a task for several guests backed up.
//! `pbs-report --chain` and the live rule BACKUP-005 both read it here.

use cpps_pbs::chain::{ChainGuest, ChainInput, ChainJob, PbsAddress, PbsTarget, RunLog, VzdumpRun};
use cpps_pbs::types::{BackupType, ExitStatus};
use cpps_proxmox::types::{
    BackupJob, ClusterResource, Inclusion, NodeListItem, NodeState, PoolMembers, ResourceType,
    StorageConfig, TaskFilter, TaskListItem,
};
use cpps_proxmox::{Client, Upid};
use tokio::sync::Semaphore;

use crate::live::facts::error_chain;

/// The chain's lists that need no other answer: `GET /storage` and `GET /cluster/backup`.
/// The live source reads them in its list round ([`lists`]), beside the guests.
pub(crate) struct ChainLists {
    storages: Result<Vec<StorageConfig>, cpps_proxmox::Error>,
    jobs: Result<Vec<BackupJob>, cpps_proxmox::Error>,
}

impl ChainLists {
    /// Whether both lists were read: without either the chain is that error ([`assemble`]),
    /// and its other reads would be requests for nothing.
    pub(crate) fn readable(&self) -> bool {
        self.storages.is_ok() && self.jobs.is_ok()
    }
}

/// Reads [`ChainLists`], both at once.
pub(crate) async fn lists(pve: &Client) -> ChainLists {
    let cluster = pve.cluster();
    let (storages, jobs) = futures::join!(pve.storage_configs(None), cluster.backup_jobs());
    ChainLists { storages, jobs }
}

/// The PVE side of the chain, over the guests of `resources` (`GET /cluster/resources?type=vm`):
/// `GET /storage` (every storage of type `pbs` is a target), `GET /cluster/backup` (with
/// `GET /pools/{poolid}` for a pool job whose members the guest list hides), the vzdump
/// tasks of each node (with the logs of the newest tasks for several guests), and
/// `GET /access/permissions` to know whether those task lists are whole. An unreadable storage
/// or job list is the error: without it no guest can be judged. Two rounds: the lists and
/// `GET /nodes`, then the rest at once.
pub(crate) async fn read(
    pve: &Client,
    resources: &[ClusterResource],
) -> Result<ChainInput, String> {
    let (lists, nodes) = futures::join!(lists(pve), pve.nodes());
    if !lists.readable() {
        return assemble(resources, lists, PoolMembers::default(), None);
    }
    // When the node list cannot be read, the guests' nodes are all there is, and the other
    // nodes' task lists are not read.
    let (nodes, nodes_unread) = match nodes {
        Ok(nodes) => (nodes, None),
        Err(e) => (Vec::new(), Some(error_chain(&e))),
    };
    let unbounded = Semaphore::new(Semaphore::MAX_PERMITS);
    let (mut node_reads, pools) = futures::join!(
        read_nodes(pve, resources, &nodes, &unbounded),
        read_pools(pve, resources, &lists, &unbounded)
    );
    if let Some(why) = nodes_unread {
        let why = format!("the node list could not be read ({why}): only the guests' nodes were");
        node_reads.unread.push(("(other nodes)".to_owned(), why));
    }
    assemble(resources, lists, pools, Some(node_reads))
}

/// The chain's reads that need the node list only: every node's vzdump tasks with their logs
/// ([`read_runs`]), and whether the rights on every node make those lists whole.
pub(crate) struct NodeReads {
    runs: Vec<VzdumpRun>,
    unread: Vec<(String, String)>,
    cut: Vec<(String, String)>,
    complete: bool,
}

/// The guests of `resources` the chain judges: every guest not known to be a template.
fn chain_guests(resources: &[ClusterResource]) -> Vec<&ClusterResource> {
    resources
        .iter()
        .filter(|r| r.vmid.is_some() && r.template != Some(true))
        .collect()
}

/// Reads [`NodeReads`] for the guests' nodes and the online nodes of `listed_nodes`
/// ([`chain_nodes`]), each request holding one of `slots` while it is in flight, so that the
/// live source's fan-out and these share its bound.
pub(crate) async fn read_nodes(
    pve: &Client,
    resources: &[ClusterResource],
    listed_nodes: &[NodeListItem],
    slots: &Semaphore,
) -> NodeReads {
    let (nodes, left_out) = chain_nodes(&chain_guests(resources), listed_nodes);
    let nodes: Vec<&str> = nodes.iter().map(String::as_str).collect();
    let (mut reads, complete) = futures::join!(
        read_runs(pve, &nodes, slots),
        audits_every_node(pve, &nodes, slots)
    );
    reads.unread.extend(left_out);
    NodeReads { complete, ..reads }
}

/// [`read_nodes`], given up once `lists_failed` says that the chain's lists could not be read
/// ([`ChainLists::readable`]): `None` then. The live source starts the node reads before its
/// lists are all in.
pub(crate) async fn read_nodes_unless(
    pve: &Client,
    resources: &[ClusterResource],
    listed_nodes: &[NodeListItem],
    slots: &Semaphore,
    lists_failed: tokio::sync::oneshot::Receiver<()>,
) -> Option<NodeReads> {
    let reads = std::pin::pin!(read_nodes(pve, resources, listed_nodes, slots));
    // The signal is polled first: when it came already, no node read leaves.
    match futures::future::select(lists_failed, reads).await {
        futures::future::Either::Left((Ok(()), _)) => None,
        // The lists were read (the sender is dropped without a word).
        futures::future::Either::Left((Err(_), reads)) => Some(reads.await),
        futures::future::Either::Right((reads, _)) => Some(reads),
    }
}

/// The members of the pools that the enabled jobs of `lists` back up ([`pool_members`]), each
/// read holding one of `slots`; none when the lists could not be read (the chain is then that
/// error, [`assemble`]).
pub(crate) async fn read_pools(
    pve: &Client,
    resources: &[ClusterResource],
    lists: &ChainLists,
    slots: &Semaphore,
) -> PoolMembers {
    match (&lists.jobs, lists.readable()) {
        (Ok(jobs), true) => pool_members(pve, resources, jobs, slots).await,
        _ => PoolMembers::default(),
    }
}

/// The chain of `resources`' guests from its lists and reads. An unreadable storage or job
/// list is the error: without it no guest can be judged. Node reads given up (`None`, only
/// when a list failed) leave the runs unread.
pub(crate) fn assemble(
    resources: &[ClusterResource],
    lists: ChainLists,
    pools: PoolMembers,
    node_reads: Option<NodeReads>,
) -> Result<ChainInput, String> {
    let guests = chain_guests(resources);
    let storages = lists.storages.map_err(|e| error_chain(&e))?;
    let backup_jobs = lists.jobs.map_err(|e| error_chain(&e))?;
    let mut input = ChainInput::default();
    for guest in &guests {
        let (Some(vmid), Some(kind)) = (guest.vmid, backup_type(&guest.kind)) else {
            continue;
        };
        let mut chain_guest = ChainGuest::new(vmid.get(), kind);
        if let Some(name) = &guest.name {
            chain_guest = chain_guest.name(name.clone());
        }
        if let Some(node) = &guest.node {
            chain_guest = chain_guest.node(node.clone());
        }
        // pve-manager `PVE/API2Tools.pm` `extract_vm_stats` takes `name` and `template` from
        // the node's status data alone, which pmxcfs drops five minutes after the node last
        // sent it: without both, the guest may be a template.
        if guest.template.is_none() && guest.name.is_none() {
            chain_guest = chain_guest.may_be_template(
                "Proxmox lists it without its node's status data, which alone says whether a guest is a template",
            );
        }
        input.guests.push(chain_guest);
    }
    input.targets = storages
        .iter()
        .filter(|s| s.is_pbs())
        .map(|s| {
            let target = PbsTarget::new(
                s.storage.clone(),
                s.datastore.clone().unwrap_or_default(),
                s.namespace.clone().unwrap_or_default(),
            )
            .encrypted(s.is_encrypted())
            .enabled(s.is_enabled())
            .username(s.username.clone());
            // pve-storage `PBSPlugin.pm` `options`: `server` (and `port`, 8007 by default,
            // and `fingerprint`) name the PBS, so a datastore name alone is not a place.
            match &s.server {
                Some(server) => target.server(
                    PbsAddress::new(server, s.port.unwrap_or(cpps_pbs::DEFAULT_PORT))
                        .fingerprint(s.fingerprint.clone()),
                ),
                None => target,
            }
        })
        .collect();
    // GET /storage lists every type but is filtered by Datastore.Audit or
    // Datastore.AllocateSpace (pve-storage `PVE/API2/Storage/Config.pm` `index`), so a job's or
    // run's storage missing from it is "cannot tell"; a listed one not of type `pbs` is
    // simply another place.
    input.targets_complete = false;
    input.storages = storages.iter().map(|s| s.storage.clone()).collect();
    input.jobs = backup_jobs
        .iter()
        .filter(|job| {
            let listed = storages
                .iter()
                .any(|s| Some(&s.storage) == job.storage.as_ref());
            !listed
                || input
                    .targets
                    .iter()
                    .any(|t| Some(&t.storage) == job.storage.as_ref())
        })
        .map(|job| chain_job(job, &guests, &pools))
        .collect();
    match node_reads {
        Some(node_reads) => {
            input.runs = Ok(node_reads.runs);
            input.runs_unread = node_reads.unread;
            input.runs_cut = node_reads.cut;
            input.runs_complete = node_reads.complete;
        }
        None => input.runs = Err("the nodes' task lists were not read".to_owned()),
    }
    Ok(input)
}

/// The members of the pools that enabled jobs back up: from the guests' `pool` field, else
/// `GET /pools/{poolid}`. Without `Pool.Audit` on `/pool/<pool>` PVE hides both
/// (pve-manager `PVE/API2/Cluster.pm` `resources`: `delete $entry->{pool}`; `PVE/API2/Pool.pm`
/// `read_pool`), and the pool is recorded as unreadable.
async fn pool_members(
    pve: &Client,
    resources: &[ClusterResource],
    jobs: &[BackupJob],
    slots: &Semaphore,
) -> PoolMembers {
    let mut pools = PoolMembers::from_resources(resources);
    for job in jobs.iter().filter(|j| j.is_enabled()) {
        let Some(pool) = &job.pool else { continue };
        if pools.knows(pool) {
            continue;
        }
        match super::in_slot(slots, pve.cluster().pool(pool)).await {
            Ok(info) => pools.insert(pool.clone(), info.guests()),
            Err(e) => pools.unreadable(pool.clone(), error_chain(&e)),
        }
    }
    pools
}

/// `job` with the guests it includes and those it may include ([`BackupJob::inclusion`]).
fn chain_job(job: &BackupJob, guests: &[&ClusterResource], pools: &PoolMembers) -> ChainJob {
    let mut vmids = Vec::new();
    let mut unsure = Vec::new();
    for guest in guests {
        let Some(vmid) = guest.vmid.map(|v| v.get()) else {
            continue;
        };
        match job.inclusion(guest, pools) {
            Inclusion::Included => vmids.push(vmid),
            Inclusion::NotIncluded => {}
            Inclusion::CannotTell(why) => unsure.push((vmid, why)),
            // A later kind of answer is not "not included".
            other => unsure.push((vmid, format!("{other:?}"))),
        }
    }
    ChainJob::new(job.id.clone(), job.is_enabled(), job.storage.clone(), vmids).unsure(unsure)
}

/// The vzdump backup type of a guest resource.
fn backup_type(kind: &ResourceType) -> Option<BackupType> {
    match kind {
        ResourceType::Qemu => Some(BackupType::Vm),
        ResourceType::Lxc => Some(BackupType::Ct),
        _ => None,
    }
}

/// The guests' nodes and every online node of the cluster (`listed`, `GET /nodes`), each once;
/// and the nodes left out, with why. A guest moved since its last backup ran on another node,
/// whose task list holds that run; a node not online without guests is left out, since its
/// list is proxied to it (pve-manager `PVE/API2/Tasks.pm` `node_tasks`, `proxyto => 'node'`)
/// and would only wait for a 595, but its list is then not read.
fn chain_nodes(
    guests: &[&ClusterResource],
    listed: &[NodeListItem],
) -> (Vec<String>, Vec<(String, String)>) {
    let mut nodes: Vec<String> = guests.iter().filter_map(|g| g.node.clone()).collect();
    nodes.extend(
        listed
            .iter()
            .filter(|n| n.status == NodeState::Online)
            .map(|n| n.node.to_string()),
    );
    nodes.sort_unstable();
    nodes.dedup();
    let left_out = listed
        .iter()
        .filter(|n| nodes.binary_search(&n.node.to_string()).is_err())
        .map(|n| {
            let why = format!("not read: the node is {}", n.status.as_str());
            (n.node.to_string(), why)
        })
        .collect();
    (nodes, left_out)
}

/// Whether the caller holds `Sys.Audit` on `/nodes/{node}` of every node
/// (`GET /access/permissions?path=…`, pve-access-control `PVE/API2/AccessControl.pm`
/// `permissions`: `{path: {privilege: propagate}}`, `{}` without any). Without it PVE lists only
/// the caller's own tasks (pve-manager `PVE/API2/Tasks.pm` `node_tasks`), and scheduled
/// backups run as `root@pam`; a failed read counts as not held.
async fn audits_every_node(pve: &Client, nodes: &[&str], slots: &Semaphore) -> bool {
    let audits = |node: &str| {
        let path = format!("/nodes/{node}");
        async move {
            let rights = super::in_slot(
                slots,
                pve.get_raw("access/permissions", &[("path", path.as_str())]),
            )
            .await;
            // `propagate` is 0 or 1; the privilege is held either way.
            rights.is_ok_and(|r| r.get(&path).and_then(|p| p.get("Sys.Audit")).is_some())
        }
    };
    futures::future::join_all(nodes.iter().map(|n| audits(n)))
        .await
        .into_iter()
        .all(|held| held)
}

/// The vzdump tasks of `nodes` (`GET /nodes/{node}/tasks?typefilter=vzdump&source=all`,
/// running ones included), the nodes whose list failed, with the error, and those whose list
/// was cut at its limit ([`cut_note`]); whether they are whole is left to the caller. The list is
/// proxied to the node (pve-manager `PVE/API2/Tasks.pm` `node_tasks`, `proxyto => 'node'`;
/// pve-http-server `src/PVE/APIServer/AnyEvent.pm` `proxy_request` passes on the connection
/// error's 595), so one offline node must not hide the others' tasks. The logs of each
/// node's [`LOGS_PER_NODE`] newest tasks for several guests are read
/// ([`Client::task_log`]): a task list names no guest of such a task.
async fn read_runs(pve: &Client, nodes: &[&str], slots: &Semaphore) -> NodeReads {
    let mut reads = NodeReads {
        runs: Vec::new(),
        unread: Vec::new(),
        cut: Vec::new(),
        complete: false,
    };
    // Every node at once (a cluster has some tens at most), each node's logs at once.
    for (node, read) in nodes
        .iter()
        .zip(futures::future::join_all(nodes.iter().map(|n| node_runs(pve, n, slots))).await)
    {
        match read {
            Ok((node_runs, cut)) => {
                reads.runs.extend(node_runs);
                reads.cut.extend(cut.map(|c| ((*node).to_owned(), c)));
            }
            Err(e) => reads.unread.push(((*node).to_owned(), e)),
        }
    }
    reads
}

/// The most vzdump tasks of one node read.
const TASKS_PER_NODE: u32 = 1000;

/// What a node's task list holds when PVE counted more tasks than it listed: the list stops at
/// the `limit`, while `total` counts every task the filters pass (pve-manager
/// `PVE/API2/Tasks.pm` `node_tasks`).
fn cut_note(listed: usize, total: Option<u64>) -> Option<String> {
    let total = total.filter(|t| *t > listed as u64)?;
    Some(format!("the newest {listed} of {total} vzdump tasks"))
}

/// One node's vzdump tasks as runs, with the logs [`logged_tasks`] picks read, and what the
/// list holds when it was cut ([`cut_note`]); or why it could not be read.
async fn node_runs(
    pve: &Client,
    node: &str,
    slots: &Semaphore,
) -> Result<(Vec<VzdumpRun>, Option<String>), String> {
    let mut filter = TaskFilter::default()
        .typefilter("vzdump")
        .limit(TASKS_PER_NODE);
    filter.source = Some("all".to_owned());
    let node_api = pve.node(node);
    let page = super::in_slot(slots, node_api.tasks_page(&filter))
        .await
        .map_err(|e| error_chain(&e))?;
    let cut = cut_note(page.data.len(), page.total);
    let tasks = page.data;
    // The type is checked again: the filter is the server's, and a fake may ignore it.
    let tasks: Vec<&TaskListItem> = tasks.iter().filter(|t| t.worker_type == "vzdump").collect();
    let logged = logged_tasks(&tasks);
    let log_of = |task: &TaskListItem| {
        let wanted = logged.contains(&task.upid);
        let upid = task.upid.clone();
        async move {
            // A log that cannot be read leaves the task as the list shows it.
            match wanted {
                true => super::in_slot(slots, pve.task_log(&upid, LOG_LINES))
                    .await
                    .ok(),
                false => None,
            }
        }
    };
    let logs = futures::future::join_all(tasks.iter().map(|t| log_of(t))).await;
    let runs = tasks.iter().zip(logs).map(|(t, log)| vzdump_run(t, log));
    Ok((runs.collect(), cut))
}

/// A vzdump task of a node's list as a run, with its log when it was read.
fn vzdump_run(task: &TaskListItem, log: Option<cpps_proxmox::types::TaskLog>) -> VzdumpRun {
    let vmid = task.id.as_deref().and_then(|id| id.parse().ok());
    let start = i64::try_from(task.starttime).unwrap_or(i64::MAX);
    let mut run = VzdumpRun::new(task.node.clone(), vmid, start);
    if let Some(end) = task.endtime {
        let status = task.status.as_deref().unwrap_or("unknown");
        run = run.ended(
            i64::try_from(end).unwrap_or(i64::MAX),
            ExitStatus::parse(status),
        );
    }
    match log {
        Some(log) => run.log(RunLog::parse(&log.lines, log.whole)),
        None => run,
    }
}

/// How many tasks for several guests a node's log reads are for: its newest to end. Only
/// their logs say which guests they backed up; older ones are rarely a guest's last run, and
/// one that failed after a guest's last run leaves its chain "cannot tell" (`cpps_pbs::chain`).
const LOGS_PER_NODE: usize = 4;

/// The most lines of one task log read: a vzdump log takes some tens of lines a guest.
const LOG_LINES: u64 = 20_000;

/// The tasks for several guests (no id: pve-manager `PVE/API2/VZDump.pm` `vzdump` names a
/// task only after a single guest) whose logs are read: the [`LOGS_PER_NODE`] newest to end.
fn logged_tasks(tasks: &[&TaskListItem]) -> Vec<Upid> {
    let mut shared: Vec<&TaskListItem> = tasks
        .iter()
        .copied()
        .filter(|t| t.endtime.is_some() && t.id.as_deref().is_none_or(str::is_empty))
        .collect();
    shared.sort_by_key(|t| std::cmp::Reverse(t.endtime));
    let mut logged: Vec<Upid> = shared
        .into_iter()
        .take(LOGS_PER_NODE)
        .map(|t| t.upid.clone())
        .collect();
    logged.extend(newest_failed_per_guest(tasks));
    logged
}

/// Each guest's newest task for it alone that did not end `OK`: only its log says which
/// storage it wrote to (pve-manager `PVE/VZDump.pm` `exec_backup`: "starting new backup job:
/// vzdump … --storage NAME"), and the chain counts a run only for its PBS storage. A run that
/// ended OK is placed by the snapshots it made, without its log; a failed one made none.
fn newest_failed_per_guest(tasks: &[&TaskListItem]) -> Vec<Upid> {
    let mut newest: std::collections::BTreeMap<&str, &TaskListItem> = Default::default();
    for t in tasks {
        let guest = t.id.as_deref().filter(|id| !id.is_empty());
        let failed = t.endtime.is_some() && t.status.as_deref() != Some("OK");
        if let (Some(guest), true) = (guest, failed) {
            let slot = newest.entry(guest).or_insert(t);
            if t.starttime > slot.starttime {
                *slot = t;
            }
        }
    }
    newest.into_values().map(|t| t.upid.clone()).collect()
}
