//! The typed model of an infrastructure: sites, hosts, guests, clusters, storage, backup, network,
//! ingress, GitOps, multi-cluster patterns and cross-cutting capabilities.
//!
//! A [`Topology`] holds one list per component kind ([`Parts`]) plus lookup maps by id, built
//! when it is made ([`Topology::from_parts`]) and rebuilt by every change ([`Topology::edit`]),
//! so a lookup never sees a stale index. Rules can therefore be written in O(n): iterate a
//! list, look references up by id in O(1).
//!
//! The kinds are grouped by domain, as the rules are (`rules/checks/`) and the file format is
//! (`load/file/`): `compute` (sites, tiers, hosts, guests, Proxmox clusters), `storage`
//! (LINSTOR, PBS), `network` (routers, Traefik, links), `platform` (K3s, ArgoCD, patterns) and
//! `cross_cutting` (capabilities, items, suppressions, and the documents' pending items, rejected
//! alternatives and contradictions, which are records rather than components); `ids`, `values`, `component` and
//! `topology` hold what every kind shares. Everything is re-exported here: `model::Host` is the
//! path to use.
//!
//! Every component carries one [`Meta`]: its [`State`] (exactly one, enforced by the loader),
//! an optional note and use case, and the [`Location`] of the component and of its key fields in
//! the file, so that a finding can point at the line that breaks a decision.
//!
//! Component ids are unique across the whole file (a host and a guest never share an id), so a
//! bare id names one component: that is what a finding's subject and a suppression's `subject`
//! are.

mod component;
mod compute;
mod cross_cutting;
mod decisions;
mod ids;
mod network;
mod platform;
mod storage;
mod topology;
mod values;

pub use component::*;
pub use compute::*;
pub use cross_cutting::*;
pub use decisions::*;
pub use ids::*;
pub use network::*;
pub use platform::*;
pub use storage::*;
pub use topology::*;
pub use values::*;
