//! What Proxmox VE reports, in a shape independent of `cpps-proxmox`.

use std::fmt;
use std::sync::Arc;

use cpps_pbs::chain::ChainInput;
use serde::Serialize;

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
    /// The HA state when managed (`started`, …): the HA manager's state of the service, or
    /// the configured one where the manager holds none (pve-manager `PVE/API2/Cluster.pm`,
    /// `resources`: `hastate`).
    pub ha_state: Option<String>,
    /// The HA resource's requested state (`started`, `stopped`, `disabled`, `ignored`, or any
    /// other word, kept), when `GET /cluster/ha/resources` was read and lists the guest.
    pub ha_request: Option<String>,
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
    /// The PVE side of the backup chain, for BACKUP-005 (which judges it with
    /// [`cpps_pbs::chain::judge`]); not serialised.
    #[serde(skip)]
    pub chain: PveChainReading,
    /// Why `guests` may leave guests out, when it may: `GET /cluster/resources` skips the
    /// guests without `VM.Audit` (pve-manager `PVE/API2/Cluster.pm` `resources`), so a
    /// declared guest not listed is then "cannot tell", not missing. `None`: the list is whole
    /// (`VM.Audit` on `/vms`, propagated).
    pub guests_trimmed: Option<String>,
}

/// How [`PveFacts::partial`] begins the line saying that `GET /cluster/ha/resources` failed.
pub(crate) const HA_RESOURCES_UNREAD: &str = "HA resources: ";

impl PveFacts {
    /// Why the HA resources' requested states are unknown, when their list could not be read.
    pub(crate) fn ha_resources_unread(&self) -> Option<&str> {
        self.partial
            .iter()
            .find_map(|p| p.strip_prefix(HA_RESOURCES_UNREAD))
    }
}

/// The PVE side of the backup chain ([`ChainInput`] with no PBS part), or why it could not be
/// read; "not read" by default. Two readings are equal when they are the same reading; Debug
/// prints no content.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct PveChainReading(Option<Arc<Result<ChainInput, String>>>);

impl PveChainReading {
    /// A reading: the PVE side, or why it could not be read.
    pub fn new(read: Result<ChainInput, String>) -> Self {
        Self(Some(Arc::new(read)))
    }

    /// The PVE side; `None` when not read.
    pub fn get(&self) -> Option<&Result<ChainInput, String>> {
        self.0.as_deref()
    }
}

impl PartialEq for PveChainReading {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for PveChainReading {}

impl fmt::Debug for PveChainReading {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = if self.0.is_some() { "read" } else { "none" };
        write!(f, "PveChainReading({what})")
    }
}

impl PveGuest {
    /// The HA state that keeps this guest from failing over, when it has one: `ignored` (the
    /// manager drops the service from its state) or `disabled` (it stays stopped and is never
    /// fenced nor recovered): pve-ha-manager `src/PVE/HA/Manager.pm`, `update` ("removing stale
    /// service … ignored state requested") and `next_state_stopped` (returns for `disabled`
    /// before the fencing of an offline node). Read from the requested state, else from
    /// `hastate`, which is the requested state for a service the manager dropped.
    ///
    /// Or the CRM state `error`, whatever the request: `next_state_error` acts only once the
    /// request is `disabled`, so the service is neither recovered nor moved, and
    /// `src/PVE/API2/HA/Resources.pm` refuses any other request for it. `hastate` is the CRM
    /// state while the manager holds one (pve-manager `PVE/API2/Cluster.pm`, `resources`).
    pub fn ha_without_failover(&self) -> Option<&str> {
        if self.ha_state.as_deref() == Some("error") {
            return Some("error");
        }
        let state = self.ha_request.as_deref().or(self.ha_state.as_deref())?;
        matches!(state, "ignored" | "disabled").then_some(state)
    }
}
