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

pub use load::{LoadError, load_file, load_or_default, load_str};
pub use model::Topology;

/// The CPPS infrastructure as the source documents describe it (`topology/cpps.yaml`).
pub const DEFAULT_TOPOLOGY_YAML: &str = include_str!("../topology/cpps.yaml");

/// The file name the default topology reports in diagnostics and findings.
pub const DEFAULT_TOPOLOGY_NAME: &str = "cpps-topology/topology/cpps.yaml";

/// The embedded default topology, loaded.
///
/// The file is compiled into the crate and `tests/default.rs` loads it, so this cannot fail
/// at run time unless the crate was built from an untested file; [`try_default_topology`]
/// returns the error instead of panicking.
pub fn default_topology() -> Topology {
    match try_default_topology() {
        Ok(t) => t,
        Err(e) => panic!(
            "the embedded default topology does not load: {}",
            e.render()
        ),
    }
}

/// The embedded default topology, or why it does not load.
pub fn try_default_topology() -> Result<Topology, LoadError> {
    load_str(DEFAULT_TOPOLOGY_NAME, DEFAULT_TOPOLOGY_YAML)
}
