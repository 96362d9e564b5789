//! What NVML reports on a GPU host, in a shape independent of `cpps-gpu`'s `nvml`.

use serde::Serialize;

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
    /// The XID history since boot from the host's kernel log; `None` when it was not read.
    pub xid_history: Option<XidHistoryFact>,
    /// How many GPUs NVML lists (`nvmlDeviceGetCount_v2`): `Some(0)` when NVML initialised,
    /// so the driver is loaded, but lists none; `None` when the count was not read (facts
    /// built by hand). GPU-005 compares it with the GPUs the file declares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_count: Option<u32>,
}

/// What the kernel log says about XIDs since boot (graded by `cpps_gpu::health`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum XidHistoryFact {
    /// The log could not be read or was empty: the history cannot be told.
    Unknown {
        /// Why.
        why: String,
    },
    /// The log was read.
    Read {
        /// The critical XIDs, one line per GPU and code (`XID 79 x2 on GPU 1 (…)…`).
        critical: Vec<String>,
        /// What of the history could not be read: lines in an unknown format, or a log that
        /// no longer reaches back to boot. Not a clean history: "cannot tell" for that part.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unreadable: Vec<String>,
        /// XIDs at a PCI address NVML does not list here: another GPU of the host (one
        /// kernel log per host), said but never graded as this host's own GPUs'.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        other_gpus: Vec<String>,
    },
}
