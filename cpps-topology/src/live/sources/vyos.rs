//! VyOS: the router's host name, VRRP groups and WireGuard peers.

use async_trait::async_trait;
use cpps_vyos::{Client, ConfigTree};

use super::Source;
use crate::live::facts::{SourceFailure, SourceKind, VrrpFact, VyosFacts};

/// A site's VyOS router, read through [`cpps_vyos::Client::config_tree`]
/// (`POST /retrieve`, `showConfig`).
#[derive(Debug, Clone)]
pub struct VyosSource {
    client: Client,
    endpoint: String,
}

impl VyosSource {
    /// A source over `client`, reported as `endpoint`.
    pub fn new(client: Client, endpoint: impl Into<String>) -> Self {
        Self {
            client,
            endpoint: endpoint.into(),
        }
    }
}

#[async_trait]
impl Source<VyosFacts> for VyosSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Vyos
    }

    fn endpoint(&self) -> String {
        self.endpoint.clone()
    }

    async fn observe(&self) -> Result<VyosFacts, SourceFailure> {
        let tree = self
            .client
            .config_tree()
            .await
            .map_err(|e| SourceFailure::from_error(SourceKind::Vyos, &self.endpoint, &e))?;
        let mut facts = vyos_facts(&tree)
            .map_err(|e| SourceFailure::from_error(SourceKind::Vyos, &self.endpoint, &e))?;
        facts.server = self.endpoint.clone();
        Ok(facts)
    }
}

/// The facts of a router configuration (no secret is kept: keys and passwords are dropped).
pub fn vyos_facts(tree: &ConfigTree) -> Result<VyosFacts, cpps_vyos::Error> {
    Ok(VyosFacts {
        server: String::new(),
        host_name: tree.host_name().map(ToOwned::to_owned),
        vrrp: tree
            .vrrp_groups()?
            .into_iter()
            .map(|g| VrrpFact {
                group: g.name,
                interface: g.interface,
                addresses: g.addresses,
            })
            .collect(),
        wireguard_peers: tree
            .wireguard()?
            .into_iter()
            .flat_map(|i| {
                let name = i.name;
                i.peers
                    .into_iter()
                    .map(move |p| format!("{name}/{}", p.name))
            })
            .collect(),
    })
}
