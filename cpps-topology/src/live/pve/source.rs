//! Proxmox VE: nodes, versions, guests, container privilege and HA resources.

use std::collections::BTreeMap;

use async_trait::async_trait;
use cpps_proxmox::inventory::{holding_slots, list_round, needed_first, on_own_task};
use cpps_proxmox::types::{
    ClusterResource, GuestKind, LxcConfig, NodeListItem, NodeState, ResourceFilter,
};
use cpps_proxmox::{Client, GuestRef};
use futures::StreamExt as _;
use tokio::sync::Semaphore;

use crate::live::facts::{
    PveChainReading, PveFacts, PveGuest, PveGuestKind, PveNode, SourceFailure, SourceKind,
};
use crate::live::source::Source;

use super::chain;

/// A site's Proxmox VE cluster, read through [`cpps_proxmox::Client`].
///
/// One observation sends its lists at once: `GET /nodes`, `GET /cluster/resources?type=vm`,
/// `GET /cluster/ha/resources`, `GET /access/permissions?path=/vms` and the backup chain's
/// `GET /storage` and `GET /cluster/backup`. Then one fan-out round, at most `concurrency`
/// requests in flight (fewer for a near server; their connections opened during the list
/// round, [`cpps_proxmox::inventory::list_round`], the rule of the `inventory` sweep). It
/// starts once nodes and guests are in, while the other lists finish, holding their share of
/// the bound ([`cpps_proxmox::inventory::needed_first`], `holding_slots`): every node's vzdump
/// tasks and rights first, then `GET /nodes/{node}/status` for every online node and
/// `GET /nodes/{node}/lxc/{vmid}/config` for every container; a task list's logs as soon as
/// it is in, and the chain's pools once the round's other lists are, each ahead of the
/// configs not started yet. The chain (the reads of
/// [`PveSource::backup_chain`] over the same guest and node lists) is kept in
/// [`PveFacts::chain`].
#[derive(Debug, Clone)]
pub struct PveSource {
    client: Client,
    endpoint: String,
    concurrency: usize,
}

impl PveSource {
    /// A source over `client`, reported as `endpoint`, with at most `concurrency` requests in
    /// flight (at least 1).
    pub fn new(client: Client, endpoint: impl Into<String>, concurrency: usize) -> Self {
        Self {
            client,
            endpoint: endpoint.into(),
            concurrency: concurrency.max(1),
        }
    }

    /// The client, for callers that need more than the facts (the driver-update runbook).
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// The PVE side of the backup chain of `client`'s cluster: its guests
    /// (`GET /cluster/resources?type=vm`), storages of type `pbs`, vzdump jobs and their tasks,
    /// as the live audit's BACKUP-005 reads it. `pbs-report --chain` reads it here too, so the
    /// two judge the same input.
    ///
    /// # Errors
    /// Why a required list (guests, storages, jobs) could not be read.
    pub async fn backup_chain(client: &Client) -> Result<cpps_pbs::chain::ChainInput, String> {
        let resources = client
            .cluster()
            .resources(Some(ResourceFilter::Vm))
            .await
            .map_err(|e| crate::live::facts::error_chain(&e))?;
        chain::read(client, &resources).await
    }

    fn fail(&self, error: &cpps_proxmox::Error) -> SourceFailure {
        SourceFailure::from_error(SourceKind::Proxmox, &self.endpoint, error)
    }
}

/// The list round's requests: nodes, guests, HA resources, the rights on `/vms`, and the
/// chain's storages and vzdump jobs.
const LIST_REQUESTS: usize = 6;

/// A read of the fan-out round.
enum Read {
    Status(String),
    Config(GuestRef),
}

/// Its answer.
enum Answer {
    Status(String, Result<String, String>),
    Config(GuestRef, Result<LxcConfig, cpps_proxmox::Error>),
}

/// The requested state of each guest's HA resource, by VM id
/// ([`cpps_proxmox::types::HaResource::requested_state`]: `started` where none is written).
fn requested_states(list: &[cpps_proxmox::types::HaResource]) -> BTreeMap<u32, String> {
    list.iter()
        .filter_map(|r| Some((r.guest()?.vmid.get(), r.requested_state().to_owned())))
        .collect()
}

/// `pve-manager/9.0.10/abcdef` → `9.0.10`.
fn manager_version(text: &str) -> String {
    text.split('/').nth(1).unwrap_or(text).to_owned()
}

#[async_trait]
impl Source<PveFacts> for PveSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Proxmox
    }

    fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    async fn observe(&self) -> Result<PveFacts, SourceFailure> {
        let client = &self.client;
        let cluster = client.cluster();
        // The list round, with the fan-out's connections opened meanwhile (the same rule as
        // the `inventory` sweep: `cpps_proxmox::inventory::list_round`). Nodes and guests are
        // required: the first of them to fail ends the round (the other may be a large answer
        // still on its way). The fan-out starts once both are in; the HA resources, the
        // rights on `/vms` (whether the guest list is whole, E5) and the chain's lists finish
        // meanwhile.
        let ((required, other_lists), bound) = list_round(
            client,
            LIST_REQUESTS,
            self.concurrency,
            needed_first(
                Box::pin(futures::future::try_join(
                    client.nodes(),
                    cluster.resources(Some(ResourceFilter::Vm)),
                )),
                Box::pin(futures::future::join3(
                    cluster.ha_resources(),
                    cluster.guest_list_trimmed(),
                    chain::lists(client),
                )),
            ),
        )
        .await;
        // Without nodes and guests nothing about the site can be said.
        let (nodes, resources) = required.map_err(|e| self.fail(&e))?;

        // One fan-out round, its requests sharing `bound` slots. From now on: the chain's
        // task lists and rights on the nodes (polled before the statuses and configs, so they
        // take the first slots, since its task logs wait on its task lists), every online
        // node's status and every container's config. Once the round's other lists are in,
        // the chain's pools, ahead of the configs still to start
        // (`read_versions_and_configs`); or, when the chain's lists failed, no more of its
        // reads, since the chain is then that error.
        let slots = Semaphore::new(bound);
        // The lists still on their way (HA resources, the rights on `/vms`, storages and
        // jobs) hold their share of the bound until the last of them ends.
        let other_lists = holding_slots(&slots, LIST_REQUESTS - 2, other_lists);
        let (lists_failed, failure) = tokio::sync::oneshot::channel();
        let lists_and_pools = async {
            let (ha, trimmed, chain_lists) = other_lists.await;
            if !chain_lists.readable() {
                let _ = lists_failed.send(());
            }
            let pools = chain::read_pools(client, &resources, &chain_lists, &slots).await;
            (ha, trimmed, chain_lists, pools)
        };
        // The lists first: a failure they bring stops the node reads before they leave.
        let ((ha, trimmed, chain_lists, pools), node_reads, (versions, configs)) = futures::join!(
            lists_and_pools,
            chain::read_nodes_unless(client, &resources, &nodes, &slots, failure),
            read_versions_and_configs(client, &nodes, &resources, &slots, bound)
        );
        // A chain that could not be read is kept in the reading, where BACKUP-005 says
        // "cannot tell".
        let chain =
            PveChainReading::new(chain::assemble(&resources, chain_lists, pools, node_reads));
        // A list that may leave guests out makes a declared guest not seen "cannot tell".
        let guests_trimmed = trimmed.unwrap_or_else(|e| {
            Some(format!(
                "whether the guest list is whole could not be read: {}",
                crate::live::facts::error_chain(&e)
            ))
        });
        let mut partial = Vec::new();
        // HA resources may fail on their own: a cluster without HA configured still answers,
        // and `hastate` in the resources list says the same for managed guests.
        let ha_requests = match ha {
            Ok(list) => requested_states(&list),
            Err(e) => {
                partial.push(format!(
                    "{}{}",
                    super::facts::HA_RESOURCES_UNREAD,
                    crate::live::facts::error_chain(&e)
                ));
                BTreeMap::new()
            }
        };

        let lxc = container_facts(configs, &mut partial);

        let mut pve_nodes = pve_nodes(&nodes, &versions, &mut partial);
        pve_nodes.sort_by(|a, b| a.name.cmp(&b.name));

        let mut guests = pve_guests(&resources, &lxc, &ha_requests);
        guests.sort_by_key(|g| g.vmid);
        Ok(PveFacts {
            nodes: pve_nodes,
            guests,
            partial,
            chain,
            guests_trimmed,
        })
    }
}

/// The fan-out round's own reads: every online node's status (its manager version) and every
/// container's config, each holding one of `slots` in flight; the configs sorted by VMID.
///
/// At most `bound` of them wait for a slot or hold one: a read of the chain that starts
/// meanwhile waits in the slots' queue (first come, first served) behind none of the reads
/// not started yet. Each runs as a task of its own once it holds its slot
/// ([`on_own_task`]).
async fn read_versions_and_configs(
    client: &Client,
    nodes: &[NodeListItem],
    resources: &[ClusterResource],
    slots: &Semaphore,
    bound: usize,
) -> (
    BTreeMap<String, Result<String, String>>,
    Vec<(GuestRef, Result<LxcConfig, cpps_proxmox::Error>)>,
) {
    let reads: Vec<Read> = nodes
        .iter()
        .filter(|n| n.status == NodeState::Online)
        .map(|n| Read::Status(n.node.to_string()))
        .chain(
            resources
                .iter()
                .filter_map(GuestRef::from_resource)
                .filter(|g| g.kind == GuestKind::Lxc)
                .map(Read::Config),
        )
        .collect();
    let answers: Vec<Answer> = futures::stream::iter(reads)
        .map(|read| {
            let client = client.clone();
            super::in_slot(
                slots,
                on_own_task(async move { fan_out_read(&client, read).await }),
            )
        })
        .buffer_unordered(bound.max(1))
        .collect()
        .await;
    let mut versions: BTreeMap<String, Result<String, String>> = BTreeMap::new();
    let mut configs = Vec::new();
    for answer in answers {
        match answer {
            Answer::Status(node, result) => {
                versions.insert(node, result);
            }
            Answer::Config(guest, result) => configs.push((guest, result)),
        }
    }
    configs.sort_by_key(|(guest, _)| guest.vmid);
    (versions, configs)
}

/// One read of the fan-out round.
async fn fan_out_read(client: &Client, read: Read) -> Answer {
    match read {
        Read::Status(node) => {
            let result = client
                .node(&node)
                .status()
                .await
                .map(|s| manager_version(&s.pveversion))
                .map_err(|e| crate::live::facts::error_chain(&e));
            Answer::Status(node, result)
        }
        Read::Config(guest) => {
            let result = client
                .node(guest.node.as_str())
                .lxc(guest.vmid)
                .config()
                .await;
            Answer::Config(guest, result)
        }
    }
}

/// Each readable container's privilege and volumes by VMID; a config that could not be read
/// is said in `partial`.
fn container_facts(
    configs: Vec<(GuestRef, Result<LxcConfig, cpps_proxmox::Error>)>,
    partial: &mut Vec<String>,
) -> BTreeMap<u32, (Option<bool>, Vec<String>)> {
    let mut lxc: BTreeMap<u32, (Option<bool>, Vec<String>)> = BTreeMap::new();
    for (guest, result) in configs {
        match result {
            Ok(config) => {
                // A part of the config that does not parse leaves its fact unknown, and says so.
                let mut unread = |what: &str, e: &cpps_proxmox::Error| {
                    let e = crate::live::facts::error_chain(e);
                    partial.push(format!("config of CT {}: {what}: {e}", guest.vmid));
                };
                let privileged = config
                    .is_privileged()
                    .inspect_err(|e| unread("privilege", e))
                    .ok();
                let mut volumes = Vec::new();
                match config.rootfs() {
                    Ok(root) => volumes.extend(root.map(|r| r.volume)),
                    Err(e) => unread("rootfs", &e),
                }
                match config.mount_points() {
                    Ok(mps) => volumes.extend(mps.into_values().map(|v| v.volume)),
                    Err(e) => unread("mount points", &e),
                }
                lxc.insert(guest.vmid.get(), (privileged, volumes));
            }
            // A container removed between the two reads is simply gone; any other failure
            // means the privilege is unknown, which is said rather than guessed.
            Err(e) => partial.push(format!(
                "config of CT {}: {}",
                guest.vmid,
                crate::live::facts::error_chain(&e)
            )),
        }
    }

    lxc
}

/// The nodes with their manager versions; a status that could not be read is said in
/// `partial`.
fn pve_nodes(
    nodes: &[NodeListItem],
    versions: &BTreeMap<String, Result<String, String>>,
    partial: &mut Vec<String>,
) -> Vec<PveNode> {
    nodes
        .iter()
        .map(|n| {
            let name = n.node.to_string();
            let pve_version = match versions.get(&name) {
                Some(Ok(v)) => Some(v.clone()),
                Some(Err(e)) => {
                    partial.push(format!("status of node {name}: {e}"));
                    None
                }
                None => None,
            };
            PveNode {
                online: n.status == NodeState::Online,
                name,
                pve_version,
            }
        })
        .collect()
}

/// The guests of the resource list with their containers' facts and HA state and request.
fn pve_guests(
    resources: &[ClusterResource],
    lxc: &BTreeMap<u32, (Option<bool>, Vec<String>)>,
    ha_requests: &BTreeMap<u32, String>,
) -> Vec<PveGuest> {
    resources
        .iter()
        .filter_map(|r| {
            let guest = GuestRef::from_resource(r)?;
            let vmid = guest.vmid.get();
            let kind = match guest.kind {
                GuestKind::Lxc => PveGuestKind::Lxc,
                GuestKind::Qemu => PveGuestKind::Vm,
            };
            let (privileged, volumes) = lxc.get(&vmid).cloned().unwrap_or_default();
            let ha_state = r.hastate.clone().filter(|s| !s.is_empty());
            Some(PveGuest {
                vmid,
                name: r.name.clone(),
                node: guest.node.to_string(),
                kind,
                status: r.status.clone().unwrap_or_else(|| "unknown".to_owned()),
                privileged,
                ha: ha_state.is_some() || ha_requests.contains_key(&vmid),
                ha_state,
                ha_request: ha_requests.get(&vmid).cloned(),
                volumes,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{manager_version, requested_states};

    /// `GET /cluster/ha/resources` lists the section config as written (pve-ha-manager
    /// `src/PVE/API2/HA/Resources.pm`, `index`, over `read_resources_config`): `state` is absent
    /// where the default `started` was never written, and `ignored`/`disabled` are kept.
    #[test]
    fn a_resource_without_a_state_requests_started() {
        let list: Vec<cpps_proxmox::types::HaResource> =
            serde_json::from_value(serde_json::json!([
                {"sid": "vm:100", "type": "vm", "digest": "0"},
                {"sid": "ct:200", "type": "ct", "state": "ignored"},
                {"sid": "vm:101", "type": "vm", "state": "disabled"}
            ]))
            .unwrap();
        let states = requested_states(&list);
        assert_eq!(states[&100], "started");
        assert_eq!(states[&200], "ignored");
        assert_eq!(states[&101], "disabled");
    }

    #[test]
    fn manager_version_is_the_second_field() {
        assert_eq!(manager_version("pve-manager/9.0.10/0c5b3a7f"), "9.0.10");
        assert_eq!(manager_version("8.4.1"), "8.4.1");
    }
}
