//! Observed facts: what the live systems say exists, in a shape independent of each client.
//!
//! Each system's facts are defined in its own folder (`live/pve/facts.rs`, …) and re-exported
//! here; this module holds what every system shares: which source a fact comes from, why a
//! source gave none, and one site's observation of all of them. The sources fill these from the
//! clients' typed answers; [`super::diff()`] and [`super::rules`] read only these, so both are
//! pure functions that tests drive with constructed facts.

use std::fmt;

use serde::Serialize;

pub use super::gpu::facts::{GpuFact, GpuHostFacts, XidHistoryFact};
pub use super::kube::facts::{
    ArgoApp, ArgoClusterSecret, ArgoClusters, CertFact, KubeFacts, UnreadList,
};
pub use super::linstor::facts::{
    DrbdConnectionFact, LinstorFacts, LinstorGroup, LinstorNode, LinstorReading, LinstorResource,
    LinstorStoragePool,
};
pub use super::pbs::facts::{GuestBackupFact, PbsChainReading, PbsFacts, PbsJobFact};
pub use super::pve::facts::{PveChainReading, PveFacts, PveGuest, PveGuestKind, PveNode};
pub use super::vyos::facts::{
    BgpNeighborFact, IpsecTunnelFact, RouterSide, VrrpFact, VyosFacts, WireGuardPeerFact,
};

cpps_named_enum::named_enum! {
    /// Which live system a fact or a failure comes from.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "snake_case")]
    #[non_exhaustive]
    pub enum SourceKind {
        /// The Proxmox VE API of the site's cluster.
        Proxmox => "proxmox",
        /// The site's Proxmox Backup Server.
        Pbs => "pbs",
        /// The site's LINSTOR controller.
        Linstor => "linstor",
        /// The site's VyOS router.
        Vyos => "vyos",
        /// A K3s cluster's API server.
        Kubernetes => "kubernetes",
        /// NVML on a GPU host.
        Nvml => "nvml",
    }
}

/// Why a source gave no facts: it could not be reached, refused the credentials, answered
/// something unusable, or did not answer before the deadline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SourceFailure {
    /// The system.
    pub source: SourceKind,
    /// Where it was asked (URL, kubeconfig path, NVML library), never a secret.
    pub endpoint: String,
    /// What went wrong, with the causes joined by `: `.
    pub reason: String,
}

impl SourceFailure {
    /// A failure of `source` at `endpoint`, with the error and its causes as the reason.
    pub fn from_error(
        source: SourceKind,
        endpoint: impl Into<String>,
        error: &dyn std::error::Error,
    ) -> Self {
        Self {
            source,
            endpoint: endpoint.into(),
            reason: error_chain(error),
        }
    }
}

impl fmt::Display for SourceFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: {}", self.source, self.endpoint, self.reason)
    }
}

/// An error and its sources joined by `: ` (the workspace's one renderer, in `cpps-http`).
pub use cpps_http::error_chain;

/// What one source of one site yielded.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "status", content = "value", rename_all = "snake_case")]
#[derive(Default)]
pub enum Sourced<T> {
    /// No endpoint is configured for it: nothing can be said.
    #[default]
    NotConfigured,
    /// It answered.
    Observed(T),
    /// It did not answer usably.
    Failed(SourceFailure),
}

impl<T> Sourced<T> {
    /// The facts, when observed.
    pub fn observed(&self) -> Option<&T> {
        match self {
            Self::Observed(t) => Some(t),
            _ => None,
        }
    }

    /// The failure, when it failed.
    pub fn failure(&self) -> Option<&SourceFailure> {
        match self {
            Self::Failed(f) => Some(f),
            _ => None,
        }
    }

    /// Whether an endpoint was configured (observed or failed).
    pub fn is_configured(&self) -> bool {
        !matches!(self, Self::NotConfigured)
    }
}

impl<T> From<Result<T, SourceFailure>> for Sourced<T> {
    fn from(result: Result<T, SourceFailure>) -> Self {
        match result {
            Ok(t) => Self::Observed(t),
            Err(f) => Self::Failed(f),
        }
    }
}

/// Everything observed in one site.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SiteObservation {
    /// The site id of the topology.
    pub site: String,
    /// Proxmox VE.
    pub proxmox: Sourced<PveFacts>,
    /// LINSTOR.
    pub linstor: Sourced<LinstorFacts>,
    /// PBS.
    pub pbs: Sourced<PbsFacts>,
    /// VyOS.
    pub vyos: Sourced<VyosFacts>,
    /// The second router of the site's VRRP pair (`vyos_peer` of the endpoints); not
    /// configured where the site has one router.
    pub vyos_peer: Sourced<VyosFacts>,
    /// K3s clusters, by cluster id.
    pub kubernetes: Vec<(String, Sourced<KubeFacts>)>,
    /// GPU hosts, by host id.
    pub gpus: Vec<(String, Sourced<GpuHostFacts>)>,
}

impl SiteObservation {
    /// An observation of `site` with nothing configured.
    pub fn new(site: impl Into<String>) -> Self {
        Self {
            site: site.into(),
            ..Self::default()
        }
    }

    /// Every failure of this site's sources.
    pub fn failures(&self) -> Vec<&SourceFailure> {
        let mut out: Vec<&SourceFailure> = [
            self.proxmox.failure(),
            self.linstor.failure(),
            self.pbs.failure(),
            self.vyos.failure(),
            self.vyos_peer.failure(),
        ]
        .into_iter()
        .flatten()
        .collect();
        out.extend(self.kubernetes.iter().filter_map(|(_, s)| s.failure()));
        out.extend(self.gpus.iter().filter_map(|(_, s)| s.failure()));
        out
    }

    /// How many sources were configured, and how many of them answered.
    pub fn answered(&self) -> (usize, usize) {
        let states = [
            (
                self.proxmox.is_configured(),
                self.proxmox.observed().is_some(),
            ),
            (
                self.linstor.is_configured(),
                self.linstor.observed().is_some(),
            ),
            (self.pbs.is_configured(), self.pbs.observed().is_some()),
            (self.vyos.is_configured(), self.vyos.observed().is_some()),
            (
                self.vyos_peer.is_configured(),
                self.vyos_peer.observed().is_some(),
            ),
        ];
        let mut configured = 0;
        let mut answered = 0;
        let mut add = |c: bool, a: bool| {
            configured += usize::from(c);
            answered += usize::from(a);
        };
        for (c, a) in states {
            add(c, a);
        }
        for (_, s) in &self.kubernetes {
            add(s.is_configured(), s.observed().is_some());
        }
        for (_, s) in &self.gpus {
            add(s.is_configured(), s.observed().is_some());
        }
        (configured, answered)
    }
}

/// What the live systems said, site by site.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Observation {
    /// When the observation started (Unix seconds).
    pub taken_at: i64,
    /// Sites, in the order of the sources.
    pub sites: Vec<SiteObservation>,
}

impl Observation {
    /// The observation of `site`.
    pub fn site(&self, site: &str) -> Option<&SiteObservation> {
        self.sites.iter().find(|s| s.site == site)
    }
}
