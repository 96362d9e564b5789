//! NVIDIA GPU health through NVML and the GPU clusters' state through Kubernetes.
//!
//! - [`nvml`]: a small [`GpuSource`](nvml::GpuSource) trait with an NVML implementation
//!   (through `nvml-wrapper`) and a fake for callers' tests.
//! - [`xid`]: the XID table (critical / warning / application), citing NVIDIA's Xid catalog per
//!   code; XID 154 classified by its recovery action.
//! - [`kernel_log`]: the XID history since boot from the kernel log (`/dev/kmsg` or journal
//!   text): `NVRM: Xid` lines counted per GPU and XID, graded by the one table, with a bounded
//!   read and the exporter's metric families.
//! - [`health`]: per-GPU and per-host verdicts (ECC mode and counters, row remapping, XIDs by
//!   one matching rule, the kernel log's XID history since boot) and the pinned-driver check.
//! - [`smoke`]: the smoke run of the NVML path on a real GPU (`cargo xtask gpu-smoke`).
//! - [`policy`]: the thresholds shared with `cpps-topology`'s live rules (certificate expiry,
//!   driver pin), so one fact gets one answer.
//! - [`kube`](crate::k8s): GPU nodes, the NVIDIA device plugin (its configuration, time-slicing
//!   and MPS) and HAMi, Kueue (at the version the server serves; MultiKueue managers), Argo CD
//!   Applications, cert-manager Certificates and the CNI, with the cross-checks between them, and
//!   batch Jobs submitted to a LocalQueue and followed to completion.
//!
//! This crate does not depend on `cpps-http`: Kubernetes is reached through `kube`.

pub mod error;
pub mod health;
pub mod k8s;
pub mod kernel_log;
pub mod nvml;
pub mod policy;
mod severity;
pub mod smoke;
#[cfg(feature = "test-util")]
pub mod test_util;
pub mod xid;

pub use error::{Error, NvmlUnavailable};
