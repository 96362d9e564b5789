//! Observed facts: what the live systems say exists, in a shape independent of each client.
//!
//! The adapters of [`super::sources`] fill these from the clients' typed answers; [`super::diff()`]
//! and [`super::rules`] read only these, so both are pure functions that tests drive with
//! constructed facts.

use std::fmt;

use serde::Serialize;

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

// ---------------------------------------------------------------------------------------------
// Proxmox VE.

/// A Proxmox VE node as `GET /nodes` and `GET /nodes/{node}/status` report it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PveNode {
    /// Node name.
    pub name: String,
    /// Whether `GET /nodes` says `online`.
    pub online: bool,
    /// The `pve-manager` version (`9.0.10`), when the node's status could be read.
    pub pve_version: Option<String>,
}

cpps_named_enum::named_enum! {
    /// VM or container. Its name (`vm`, `lxc`) is how the topology file writes guest kinds.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
    #[serde(rename_all = "snake_case")]
    pub enum PveGuestKind {
        /// A QEMU VM.
        Vm => "vm",
        /// An LXC container.
        Lxc => "lxc",
    }
}

/// A guest as the cluster reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PveGuest {
    /// The VM id.
    pub vmid: u32,
    /// Its name (host name for containers); `None` when PVE reports none.
    pub name: Option<String>,
    /// The node it runs on.
    pub node: String,
    /// VM or container.
    pub kind: PveGuestKind,
    /// `running`, `stopped`, …
    pub status: String,
    /// Containers: whether it is privileged; `None` for VMs or when the config was unreadable.
    pub privileged: Option<bool>,
    /// Whether it is a Proxmox HA resource (listed by `GET /cluster/ha/resources`, or with an
    /// HA state in `GET /cluster/resources`).
    pub ha: bool,
    /// The HA state when managed (`started`, …).
    pub ha_state: Option<String>,
    /// The storage volumes of its configuration (`storage:volume`), for containers.
    pub volumes: Vec<String>,
}

/// Everything read from one site's Proxmox VE cluster.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PveFacts {
    /// Nodes, by name.
    pub nodes: Vec<PveNode>,
    /// Guests, by VM id.
    pub guests: Vec<PveGuest>,
    /// Problems that did not stop the observation (a node whose status could not be read).
    pub partial: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// LINSTOR.

/// A LINSTOR node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorNode {
    /// Node name.
    pub name: String,
    /// Whether the controller sees it `ONLINE`.
    pub online: bool,
    /// Whether it is evicted.
    pub evicted: bool,
    /// Network interfaces and their addresses (an empty address is kept, as written).
    pub interfaces: Vec<(String, String)>,
}

/// A LINSTOR storage pool on one node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorStoragePool {
    /// The node.
    pub node: String,
    /// The pool name.
    pub name: String,
}

/// A resource group and the place count it asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorGroup {
    /// Group name.
    pub name: String,
    /// The storage pool it places on, when set.
    pub storage_pool: Option<String>,
    /// Its place count, when set.
    pub place_count: Option<i64>,
}

/// The health of one resource across its replicas (from `cpps_linstor::health`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinstorResource {
    /// Resource name.
    pub name: String,
    /// `healthy`, `degraded`, `desynced`, `disconnected` or `unknown`.
    pub class: String,
    /// Diskful replicas.
    pub diskful: usize,
    /// Diskful replicas with every volume `UpToDate`.
    pub up_to_date: usize,
    /// The group's place count, when known.
    pub place_count: Option<i64>,
    /// The storage pools its volumes are in.
    pub storage_pools: Vec<String>,
    /// The nodes holding a replica.
    pub nodes: Vec<String>,
    /// What the health assessment found, in words.
    pub findings: Vec<String>,
}

/// A DRBD connection that is not `Connected`, as the reporting node sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DrbdConnectionFact {
    /// The resource.
    pub resource: String,
    /// The node reporting it.
    pub node: String,
    /// The peer node.
    pub peer: String,
    /// The DRBD connection state (`Connecting`, `StandAlone`, …, or `not connected`).
    pub state: String,
}

/// Everything read from one site's LINSTOR controller.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LinstorFacts {
    /// The controller that answered.
    pub controller: String,
    /// Nodes.
    pub nodes: Vec<LinstorNode>,
    /// Storage pools.
    pub storage_pools: Vec<LinstorStoragePool>,
    /// Resource groups.
    pub groups: Vec<LinstorGroup>,
    /// Resources with their health.
    pub resources: Vec<LinstorResource>,
    /// DRBD connections not `Connected`, seen from online nodes.
    pub connections_down: Vec<DrbdConnectionFact>,
}

// ---------------------------------------------------------------------------------------------
// Kubernetes.

/// An Argo CD Application's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArgoApp {
    /// `namespace/name`.
    pub name: String,
    /// `Synced`, `OutOfSync`, `Unknown` or absent.
    pub sync: Option<String>,
    /// `Healthy`, `Degraded`, … or absent.
    pub health: Option<String>,
}

/// A cert-manager Certificate's expiry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CertFact {
    /// `namespace/name`.
    pub name: String,
    /// Its `Ready` condition.
    pub ready: bool,
    /// `status.notAfter`, seconds since the Unix epoch.
    pub not_after: Option<i64>,
}

/// Everything read from one K3s cluster's API server.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct KubeFacts {
    /// The API server.
    pub server: String,
    /// Node names.
    pub nodes: Vec<String>,
    /// Nodes that show a GPU.
    pub gpu_nodes: Vec<String>,
    /// CNIs seen (`cilium`, `flannel`) with their versions.
    pub cni: Vec<(String, Option<String>)>,
    /// Argo CD Applications (empty when the CRD is not served).
    pub applications: Vec<ArgoApp>,
    /// Whether the Argo CD Application CRD is served.
    pub argocd_served: bool,
    /// cert-manager Certificates.
    pub certificates: Vec<CertFact>,
    /// Whether the cert-manager Certificate CRD is served.
    pub cert_manager_served: bool,
    /// Kueue ClusterQueues.
    pub cluster_queues: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// NVML.

/// One GPU's health.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuFact {
    /// NVML index.
    pub index: u32,
    /// UUID, when read.
    pub uuid: Option<String>,
    /// Model name, when read.
    pub name: Option<String>,
    /// `ok`, `warning` or `critical`.
    pub health: String,
    /// What was found.
    pub findings: Vec<String>,
}

/// What NVML says on one GPU host.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GpuHostFacts {
    /// The running NVIDIA driver version.
    pub driver_version: Option<String>,
    /// GPUs.
    pub gpus: Vec<GpuFact>,
    /// XID codes seen while listening, with the GPU UUID when known.
    pub xids: Vec<(Option<String>, u64)>,
    /// Critical XIDs among them (NVRM errors the documents ask to alert on).
    pub critical_xids: Vec<u64>,
}

// ---------------------------------------------------------------------------------------------
// PBS and VyOS.

/// The newest backup of one guest in one datastore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GuestBackupFact {
    /// The datastore.
    pub store: String,
    /// The namespace, empty for the root.
    pub namespace: String,
    /// `vm` or `ct`.
    pub backup_type: String,
    /// The backup id (the VM id).
    pub backup_id: String,
    /// When the newest snapshot was taken (Unix seconds).
    pub newest_time: i64,
    /// When the newest snapshot that verified OK was taken.
    pub newest_verified_time: Option<i64>,
}

/// A PBS job and its last state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PbsJobFact {
    /// `sync`, `verify`, `prune` or `gc`.
    pub kind: String,
    /// Job id.
    pub id: String,
    /// The datastore.
    pub store: String,
    /// Whether the last run succeeded; `None` when it never ran.
    pub last_ok: Option<bool>,
    /// The last run's end (Unix seconds).
    pub last_end: Option<i64>,
}

/// Everything read from one site's PBS.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PbsFacts {
    /// The server.
    pub server: String,
    /// Datastore names.
    pub datastores: Vec<String>,
    /// Jobs.
    pub jobs: Vec<PbsJobFact>,
    /// The newest backup per guest and datastore.
    pub backups: Vec<GuestBackupFact>,
    /// Parts that could not be read and did not stop the observation (one datastore's
    /// snapshots, a job list the token may not see), each with its error.
    pub partial: Vec<String>,
}

/// A VRRP group on a router.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VrrpFact {
    /// Group name.
    pub group: String,
    /// Interface.
    pub interface: Option<String>,
    /// Virtual addresses.
    pub addresses: Vec<String>,
    /// Its live state as `show vrrp` prints it (`MASTER`, `BACKUP`, `FAULT`, `INIT`, or any
    /// other word, kept); `None` when not read (the reading failed, or the group is not in
    /// `show vrrp`).
    pub state: Option<String>,
}

/// One WireGuard peer of a router: its configuration and its live state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WireGuardPeerFact {
    /// The interface (`wg0`).
    pub interface: String,
    /// The peer's name in the configuration.
    pub peer: String,
    /// Its `allowed-ips` (configuration).
    pub allowed_ips: Vec<String>,
    /// Its configured `address` (the remote end), when set.
    pub address: Option<String>,
    /// Whether the live state was read (`show interfaces wireguard IFACE`): without it nothing
    /// is known of the handshake.
    pub observed: bool,
    /// Seconds since the latest handshake; `None`: none ever (or not observed).
    pub latest_handshake_secs: Option<u64>,
}

/// One BGP neighbor as the router's summary reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BgpNeighborFact {
    /// The address family (`IPv4 Unicast`).
    pub family: String,
    /// The neighbor's address.
    pub neighbor: String,
    /// Its AS.
    pub remote_as: String,
    /// The session state as FRR prints it (`Established`, `Active`, `Idle (Admin)`, …).
    pub state: String,
    /// Whether it is Established (an unknown state is not).
    pub established: bool,
    /// Whether it is shut down on purpose (`Idle (Admin)`).
    pub admin_down: bool,
    /// `Up/Down` as printed.
    pub up_down: String,
}

/// One IPsec tunnel (CHILD_SA) as `show vpn ipsec connections` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IpsecTunnelFact {
    /// The IKE connection (the site-to-site peer).
    pub connection: String,
    /// The tunnel.
    pub tunnel: String,
    /// The remote address(es), comma-separated.
    pub remote_address: String,
    /// `up`, `down` or any other word, kept.
    pub state: String,
    /// Whether it is up (an unknown state is not).
    pub up: bool,
}

/// What one site's VyOS router reports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VyosFacts {
    /// The router.
    pub server: String,
    /// `system host-name`.
    pub host_name: Option<String>,
    /// VRRP groups.
    pub vrrp: Vec<VrrpFact>,
    /// WireGuard peers (`interface/peer`).
    pub wireguard_peers: Vec<String>,
    /// WireGuard peers with their live state.
    pub wireguard: Vec<WireGuardPeerFact>,
    /// BGP neighbors; `None`: no BGP instance on the router (or the summary could not be read:
    /// see `partial`).
    pub bgp: Option<Vec<BgpNeighborFact>>,
    /// IPsec tunnels; `None`: IPsec is not configured (or could not be read: see `partial`).
    pub ipsec: Option<Vec<IpsecTunnelFact>>,
    /// Parts that could not be read and did not stop the observation (one WireGuard
    /// interface's state, the VRRP, BGP or IPsec reading), each with its error.
    pub partial: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Per site.

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
