//! Adapters from each client's typed answers to observed [facts](super::facts), behind one
//! small trait so that every source can be replaced in tests. Each system's adapter is in its
//! folder (`live/pve/source.rs`, …) and re-exported here.
//!
//! | source | facts | client |
//! | --- | --- | --- |
//! | [`PveSource`] | nodes, versions, guests, LXC privilege, HA resources | `cpps-proxmox` |
//! | [`LinstorSource`] | nodes, interfaces, pools, place counts, resource health | `cpps-linstor` |
//! | [`KubeSource`] | nodes, GPU nodes, CNI, Argo CD apps, certificates, Kueue | `cpps-gpu` (kube) |
//! | [`NvmlSource`] | driver version, GPU health, XIDs | `cpps-gpu` (NVML) |
//! | [`PbsSource`] | datastores, sync/verify/prune jobs, newest verified snapshot per guest | `cpps-pbs` |
//! | [`VyosSource`] | host name, VRRP groups and states, WireGuard peers and handshakes, BGP neighbors, IPsec tunnels | `cpps-vyos` |

use super::facts::{GpuHostFacts, KubeFacts, LinstorFacts, PbsFacts, PveFacts, VyosFacts};

pub use super::gpu::source::{NvmlSource, gpu_facts};
pub use super::kube::source::{KubeSource, kube_facts};
pub use super::linstor::source::{LinstorSource, linstor_facts};
pub use super::pbs::source::PbsSource;
pub use super::pve::source::PveSource;
pub use super::source::{BoxSource, Source};
pub use super::vyos::source::{
    VyosSource, apply_vrrp, apply_wireguard, bgp_facts, ipsec_facts, vyos_facts,
};

/// The sources of one site.
#[derive(Default)]
pub struct SiteSources {
    /// The site id of the topology.
    pub site: String,
    /// The site's Proxmox VE cluster.
    pub proxmox: Option<BoxSource<PveFacts>>,
    /// The site's LINSTOR controller(s).
    pub linstor: Option<BoxSource<LinstorFacts>>,
    /// The site's PBS.
    pub pbs: Option<BoxSource<PbsFacts>>,
    /// The site's VyOS router.
    pub vyos: Option<BoxSource<VyosFacts>>,
    /// The second router of the site's VRRP pair, when one is declared.
    pub vyos_peer: Option<BoxSource<VyosFacts>>,
    /// K3s clusters of the site, by cluster id.
    pub kubernetes: Vec<(String, BoxSource<KubeFacts>)>,
    /// GPU hosts read through NVML, by host id.
    pub gpus: Vec<(String, BoxSource<GpuHostFacts>)>,
}

impl SiteSources {
    /// No source yet for `site`.
    pub fn new(site: impl Into<String>) -> Self {
        Self {
            site: site.into(),
            ..Self::default()
        }
    }

    /// How many sources are configured.
    pub fn len(&self) -> usize {
        usize::from(self.proxmox.is_some())
            + usize::from(self.linstor.is_some())
            + usize::from(self.pbs.is_some())
            + usize::from(self.vyos.is_some())
            + usize::from(self.vyos_peer.is_some())
            + self.kubernetes.len()
            + self.gpus.len()
    }

    /// Whether no source is configured.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Debug for SiteSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SiteSources")
            .field("site", &self.site)
            .field("proxmox", &self.proxmox.as_ref().map(|s| s.endpoint()))
            .field("linstor", &self.linstor.as_ref().map(|s| s.endpoint()))
            .field("pbs", &self.pbs.as_ref().map(|s| s.endpoint()))
            .field("vyos", &self.vyos.as_ref().map(|s| s.endpoint()))
            .field("vyos_peer", &self.vyos_peer.as_ref().map(|s| s.endpoint()))
            .field("kubernetes", &endpoints_by_id(&self.kubernetes))
            .field("gpus", &endpoints_by_id(&self.gpus))
            .finish()
    }
}

/// Each source of `sources` as its id and endpoint (what `Debug` shows: never a secret).
fn endpoints_by_id<T>(sources: &[(String, BoxSource<T>)]) -> Vec<(&str, String)> {
    sources
        .iter()
        .map(|(id, s)| (id.as_str(), s.endpoint()))
        .collect()
}

/// The sources of every site.
#[derive(Debug, Default)]
pub struct Sources {
    /// Sites, in the order they are reported.
    pub sites: Vec<SiteSources>,
}

impl Sources {
    /// The sources of `site`, created empty when absent.
    pub fn site_mut(&mut self, site: &str) -> &mut SiteSources {
        if let Some(i) = self.sites.iter().position(|s| s.site == site) {
            &mut self.sites[i]
        } else {
            self.sites.push(SiteSources::new(site));
            let last = self.sites.len() - 1;
            &mut self.sites[last]
        }
    }

    /// How many sources are configured in all.
    pub fn len(&self) -> usize {
        self.sites.iter().map(SiteSources::len).sum()
    }

    /// Whether no source is configured.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
