//! XID codes reported by the NVIDIA driver (`NVRM: Xid …` in the kernel log, or NVML's
//! `nvmlEventTypeXidCriticalError` events), each classified for alerting.
//!
//! Sources for the meanings: NVIDIA's "Xid Errors" document and its Xid catalog for Ampere and
//! newer GPUs (<https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html>, columns
//! "Description" and "Resolution Bucket"), and NVIDIA's "GPU Memory Error Management" document
//! for the ECC, page-retirement and row-remapping codes
//! (<https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html>).

use serde::Serialize;

/// How an XID should be handled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum XidClass {
    /// The application on the GPU caused it; the GPU itself is fine. Not paged.
    Application,
    /// Worth a look; the GPU keeps working, perhaps until the next reset.
    Warning,
    /// The GPU (or its memory, link or firmware) failed: page someone, drain the node.
    Critical,
    /// A code that is not in this table.
    Unclassified,
}

/// One row of the XID table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct XidInfo {
    /// The XID code.
    pub code: u64,
    /// How to handle it.
    pub class: XidClass,
    /// What NVIDIA says it means.
    pub meaning: &'static str,
}

/// The pseudo-XID this crate uses when NVML reports a GPU as lost (`NVML_ERROR_GPU_IS_LOST`),
/// which the driver does not always accompany with XID 79.
pub const GPU_LOST: u64 = u64::MAX;

const fn row(code: u64, class: XidClass, meaning: &'static str) -> XidInfo {
    XidInfo {
        code,
        class,
        meaning,
    }
}

use XidClass::{Application, Critical, Warning};

/// The table, sorted by code.
pub const XID_TABLE: &[XidInfo] = &[
    // Catalog: ROBUST_CHANNEL_FIFO_ERROR_IDLE_TIMEOUT, "GPU stopped processing", RESTART_APP.
    row(
        8,
        Application,
        "GPU stopped processing (channel idle timeout)",
    ),
    // Catalog: ROBUST_CHANNEL_GR_EXCEPTION, "Graphics Engine Exception", RESTART_APP.
    row(
        13,
        Application,
        "graphics engine exception (usually an out-of-range access in a kernel)",
    ),
    // Catalog: "GPU memory page fault", RESTART_APP; an illegal address in the application.
    row(
        31,
        Application,
        "GPU memory page fault (illegal memory access by the application)",
    ),
    // Catalog: "GPU stopped processing", RESTART_APP; a user application fault.
    row(
        43,
        Application,
        "GPU stopped processing (the application faulted)",
    ),
    // Catalog: "Preemptive cleanup, due to previous errors"; the driver ended the application's channels.
    row(
        45,
        Application,
        "preemptive cleanup after an earlier error (the application was stopped)",
    ),
    // Catalog and memory-error document: "Double Bit ECC Error", RESET_GPU.
    row(48, Critical, "double-bit (uncorrectable) ECC error"),
    // Catalog: "Internal micro-controller halt", RESET_GPU.
    row(62, Critical, "internal micro-controller halt"),
    // Memory-error document: a page retirement or row remapping was recorded; a reset applies it.
    row(
        63,
        Warning,
        "ECC page retirement or row remapping recorded (reset to apply)",
    ),
    // Memory-error document: the page retirement / row remapper recording failed, RESET_GPU / RMA.
    row(
        64,
        Critical,
        "ECC page retirement or row remapping recording failure",
    ),
    // Catalog: "NVDEC0 Exception" / video processor exception, RESTART_APP.
    row(68, Application, "video decoder (NVDEC) exception"),
    // Catalog: "NVLINK Error", RESET_GPU / CONTACT_SUPPORT.
    row(74, Critical, "NVLink error"),
    // Catalog: "GPU has fallen off the bus", RESET_GPU / reboot.
    row(79, Critical, "GPU has fallen off the bus"),
    // Catalog: "High single-bit ECC error rate", CONTACT_SUPPORT.
    row(92, Critical, "high single-bit ECC error rate"),
    // Memory-error document: contained ECC error, the affected application was stopped; reset soon.
    row(
        94,
        Warning,
        "contained ECC error (affected application stopped; reset the GPU soon)",
    ),
    // Memory-error document: uncontained ECC error, all applications affected, RESET_GPU.
    row(95, Critical, "uncontained ECC error"),
    // Catalog: "Context Switch Timeout Error", RESTART_APP.
    row(109, Application, "context switch timeout"),
    // Catalog: "GSP RPC Timeout", RESET_GPU.
    row(119, Critical, "GPU System Processor (GSP) RPC timeout"),
    // Catalog: "GSP Error", RESET_GPU.
    row(120, Critical, "GPU System Processor (GSP) error"),
    // Catalog: "Unrecovered ECC Error", RESET_GPU.
    row(140, Critical, "unrecovered ECC error"),
    // Catalog: "GPU Recovery Action Changed"; the driver now asks for a reset or reboot.
    row(
        154,
        Critical,
        "GPU recovery action changed (reset or reboot required)",
    ),
    // NVML: NVML_ERROR_GPU_IS_LOST, "the GPU has fallen off the bus or has otherwise become
    // inaccessible" (nvml.h); not an XID of its own, kept here so it is classified like 79.
    row(
        GPU_LOST,
        Critical,
        "GPU lost (NVML cannot reach it any more)",
    ),
];

/// Classifies an XID code; codes not in [`XID_TABLE`] are [`XidClass::Unclassified`].
pub fn classify(code: u64) -> XidInfo {
    match XID_TABLE.binary_search_by_key(&code, |r| r.code) {
        Ok(i) => XID_TABLE[i],
        Err(_) => XidInfo {
            code,
            class: XidClass::Unclassified,
            meaning: "not in the XID table",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_sorted_and_unique() {
        assert!(XID_TABLE.windows(2).all(|w| w[0].code < w[1].code));
    }

    #[test]
    fn issue_classes() {
        for c in [48, 62, 64, 74, 79, 92, 95, 119, 120, GPU_LOST] {
            assert_eq!(classify(c).class, Critical, "xid {c}");
        }
        for c in [63, 94] {
            assert_eq!(classify(c).class, Warning, "xid {c}");
        }
        for c in [13, 31, 43, 45, 68, 109] {
            assert_eq!(classify(c).class, Application, "xid {c}");
        }
        assert_eq!(classify(79).meaning, "GPU has fallen off the bus");
        let unknown = classify(12345);
        assert_eq!(unknown.class, XidClass::Unclassified);
        assert_eq!(unknown.code, 12345);
    }
}
