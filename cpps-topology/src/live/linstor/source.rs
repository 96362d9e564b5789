//! LINSTOR: nodes, interfaces, storage pools, place counts and resource health.

use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use cpps_linstor::Client;
use cpps_linstor::health::{self, ClusterState, HealthOptions};

use crate::live::facts::{
    DrbdConnectionFact, LinstorFacts, LinstorGroup, LinstorNode, LinstorReading, LinstorResource,
    LinstorStoragePool, SourceFailure, SourceKind,
};
use crate::live::source::Source;

/// A site's LINSTOR controllers, read through [`cpps_linstor::Client`]
/// ([`Client::cluster_state`]: `GET /v1/nodes`, `/v1/view/storage-pools`,
/// `/v1/resource-groups`, `/v1/resource-definitions`, `/v1/view/resources`).
#[derive(Debug, Clone)]
pub struct LinstorSource {
    client: Client,
}

impl LinstorSource {
    /// A source over `client`.
    pub fn new(client: Client) -> Self {
        Self { client }
    }

    /// The client, for the driver-update runbook's snapshot step.
    pub fn client(&self) -> &Client {
        &self.client
    }
}

#[async_trait]
impl Source<LinstorFacts> for LinstorSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Linstor
    }

    fn endpoint(&self) -> String {
        self.client
            .controllers()
            .iter()
            .map(|u| u.as_str().trim_end_matches('/'))
            .collect::<Vec<_>>()
            .join(",")
    }

    async fn observe(&self) -> Result<LinstorFacts, SourceFailure> {
        let state = self
            .client
            .cluster_state()
            .await
            .map_err(|e| SourceFailure::from_error(SourceKind::Linstor, self.endpoint(), &e))?;
        // Without them the quorum settings cannot be resolved: LINSTOR-008 then says so.
        let props = self.client.controller_properties().await.ok().map(|p| p.0);
        let mut facts = linstor_facts(&state);
        facts.reading = LinstorReading::new(state, props);
        facts.controller = self
            .client
            .active_controller()
            .as_str()
            .trim_end_matches('/')
            .to_owned();
        Ok(facts)
    }
}

/// The facts of a LINSTOR cluster state: the client's health assessment plus the nodes'
/// interfaces, the pools and the groups' place counts.
pub fn linstor_facts(state: &ClusterState) -> LinstorFacts {
    let report = health::assess(state, &HealthOptions::default());
    let mut pools_of: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut nodes_of: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for r in &state.resources {
        nodes_of
            .entry(r.name.as_str())
            .or_default()
            .insert(r.node_name.clone());
        for v in &r.volumes {
            if let Some(pool) = &v.storage_pool_name {
                pools_of
                    .entry(r.name.as_str())
                    .or_default()
                    .insert(pool.clone());
            }
        }
    }
    // The DRBD connections that are down, as cpps-linstor's health counts them (from online
    // nodes only: an offline satellite's view is stale).
    let online = state.online_nodes();
    let mut connections_down = Vec::new();
    for r in state
        .resources
        .iter()
        .filter(|r| online.contains(r.node_name.as_str()))
    {
        for (peer, c) in r.drbd_connections().into_iter().flatten() {
            let state = c.message.as_ref();
            if c.connected == Some(false)
                || state.is_some_and(|s| {
                    *s != cpps_linstor::types::resource::DrbdConnectionState::Connected
                })
            {
                connections_down.push(DrbdConnectionFact {
                    resource: r.name.clone(),
                    node: r.node_name.clone(),
                    peer: peer.clone(),
                    state: state.map_or_else(|| "not connected".to_owned(), ToString::to_string),
                });
            }
        }
    }
    LinstorFacts {
        reading: LinstorReading::default(),
        connections_down,
        controller: String::new(),
        nodes: state
            .nodes
            .iter()
            .map(|n| LinstorNode {
                name: n.name.clone(),
                online: n.is_online(),
                evicted: n.is_evicted(),
                interfaces: n
                    .net_interfaces
                    .iter()
                    .map(|i| (i.name.clone(), i.address.clone()))
                    .collect(),
            })
            .collect(),
        storage_pools: state
            .storage_pools
            .iter()
            .map(|p| LinstorStoragePool {
                node: p.node_name.clone().unwrap_or_default(),
                name: p.storage_pool_name.clone(),
            })
            .collect(),
        groups: state
            .resource_groups
            .iter()
            .flat_map(|g| group_facts(g, &state.resource_definitions))
            .collect(),
        resources: report
            .resources
            .iter()
            .map(|r| LinstorResource {
                name: r.name.clone(),
                class: r.class.as_str().to_owned(),
                diskful: r.diskful,
                up_to_date: r.up_to_date,
                place_count: r.place_count,
                storage_pools: pools_of
                    .get(r.name.as_str())
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default(),
                nodes: nodes_of
                    .get(r.name.as_str())
                    .map(|s| s.iter().cloned().collect())
                    .unwrap_or_default(),
                findings: r.findings.iter().map(|f| f.message.clone()).collect(),
            })
            .collect(),
    }
}

/// A resource group's facts, one entry per storage pool it places on, so that its place count
/// is compared on each (N7 of audit 33).
///
/// The list is what the controller places on: linstor-server `ResourceGroups.selectFilterToApi`
/// takes `storage_pool_list` and falls back to `storage_pool` only when the list is empty, and
/// `Json.apiToResourceGroup` writes `storage_pool` as the list's first entry. A group with
/// neither places on any pool and gives one entry without a pool. `definitions` are the
/// controller's resource definitions, each in the group it names (`resource_group_name`).
fn group_facts(
    g: &cpps_linstor::types::resource::ResourceGroup,
    definitions: &[cpps_linstor::types::resource::ResourceDefinition],
) -> Vec<LinstorGroup> {
    let place_count = g.select_filter.as_ref().and_then(|f| f.place_count);
    let in_group = definitions
        .iter()
        .filter(|d| d.resource_group_name.as_deref() == Some(g.name.as_str()))
        .count();
    let pools: Vec<Option<String>> = match g.select_filter.as_ref() {
        Some(f) if !f.storage_pool_list.is_empty() => {
            f.storage_pool_list.iter().cloned().map(Some).collect()
        }
        Some(f) => vec![f.storage_pool.clone()],
        None => vec![None],
    };
    pools
        .into_iter()
        .map(|storage_pool| LinstorGroup {
            name: g.name.clone(),
            storage_pool,
            place_count,
            definitions: in_group,
        })
        .collect()
}
