//! The typed model of the CPPS infrastructure, its ADR rule catalogue and reports.
//!
//! Without features this crate does no I/O beyond reading a topology file: model, loader, rules
//! and report formats. [`iac`] reads the team's Pulumi and Ansible evidence files (a stack
//! export, a program run under the Pulumi SDK's mocks, a stack config, `ansible-inventory
//! --list`) and compares them with the states the file claims. Feature `live` observes the real
//! systems through the client crates and reports drift and the live rules ([`live`]).
//!
//! | feature | what it adds |
//! | --- | --- |
//! | `live` | observation of Proxmox VE, PBS, LINSTOR, VyOS, Kubernetes and NVML; `diff`; live rules; runbooks as plans (ADR-009's driver update, PVE-003's HA resources) |
//! | `proptest` | proptest strategies for valid topologies in [`testing`] |
#![forbid(unsafe_code)]

pub mod check;
pub mod diagram;
pub mod finding;
pub mod iac;
#[cfg(feature = "live")]
pub mod live;
pub mod load;
pub mod model;
pub mod report;
pub mod rules;
pub mod schema;
pub mod testing;

pub use load::{
    DEFAULT_TOPOLOGY_NAME, DEFAULT_TOPOLOGY_YAML, LoadError, default_topology, load_file,
    load_or_default, load_str, try_default_topology,
};
pub use model::Topology;
