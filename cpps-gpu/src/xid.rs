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
    /// Recorded by the driver, no action needed (XID 154 with recovery action NONE).
    NoAction,
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
    // Catalog: "High single-bit ECC error rate". Single-bit errors are corrected by ECC and the
    // GPU keeps working (memory-error document: corrected errors need no immediate action); a
    // rising rate is a reason to watch the board and plan its replacement, not to page.
    row(
        92,
        Warning,
        "high single-bit ECC error rate (corrected; watch the board)",
    ),
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
    // Catalog: "GPU Recovery Action Changed"; its payload is the new recovery action
    // (nvmlDeviceGpuRecoveryAction_t, read as NVML_FI_DEV_GET_GPU_RECOVERY_ACTION): see
    // [`classify_event`]. This row is the answer when the action could not be read.
    row(
        154,
        Critical,
        "GPU recovery action changed (the action could not be read)",
    ),
    // NVML: NVML_ERROR_GPU_IS_LOST, "the GPU has fallen off the bus or has otherwise become
    // inaccessible" (nvml.h); not an XID of its own, kept here so it is classified like 79.
    row(
        GPU_LOST,
        Critical,
        "GPU lost: NVML cannot reach it any more (fallen off the bus or otherwise inaccessible)",
    ),
];

/// The recovery action the driver asks for (`nvmlDeviceGpuRecoveryAction_t` in nvml.h), the
/// payload of XID 154.
///
/// NVIDIA's "GPU Memory Error Management" document, "Error Recovery and Response Flags": NONE,
/// "the GPU can be immediately used again by starting a new GPU process"; GPU_RESET, terminate the
/// GPU processes and reset the GPU; NODE_REBOOT, reboot the operating system; DRAIN_P2P, stop
/// peer-to-peer traffic; DRAIN_AND_RESET, both.
///
/// Values 0 to 5 as in go-nvml `gen/nvml/nvml.h` (RECOVER_IMEX_DOMAIN = 5 since NVML v595);
/// NVIDIA's NVML change log, "Changes between NVML v610 and v615", adds BUS_RESET and
/// SYSTEM_REBOOT after it, 6 and 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RecoveryAction {
    /// `NVML_GPU_RECOVERY_ACTION_NONE` (0).
    None,
    /// `NVML_GPU_RECOVERY_ACTION_GPU_RESET` (1).
    GpuReset,
    /// `NVML_GPU_RECOVERY_ACTION_NODE_REBOOT` (2).
    NodeReboot,
    /// `NVML_GPU_RECOVERY_ACTION_DRAIN_P2P` (3).
    DrainP2p,
    /// `NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET` (4).
    DrainAndReset,
    /// `NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN` (5).
    RecoverImexDomain,
    /// `NVML_GPU_RECOVERY_ACTION_BUS_RESET` (6).
    BusReset,
    /// `NVML_GPU_RECOVERY_ACTION_SYSTEM_REBOOT` (7).
    SystemReboot,
    /// A value this crate does not know, kept as sent.
    Unknown(u32),
}

impl RecoveryAction {
    /// Decodes NVML's value.
    pub fn from_nvml(v: u32) -> Self {
        match v {
            0 => Self::None,
            1 => Self::GpuReset,
            2 => Self::NodeReboot,
            3 => Self::DrainP2p,
            4 => Self::DrainAndReset,
            5 => Self::RecoverImexDomain,
            6 => Self::BusReset,
            7 => Self::SystemReboot,
            other => Self::Unknown(other),
        }
    }

    /// How to handle an XID 154 carrying this action: NONE needs nothing, draining peer-to-peer
    /// traffic is a warning, a reset, a reboot or an IMEX-domain recovery is critical. An action
    /// this table does not know is critical too: newer drivers have added only heavier actions
    /// (bus reset, system reboot), and a reset-sized action must never read as a warning.
    pub fn class(self) -> XidClass {
        match self {
            Self::None => XidClass::NoAction,
            Self::DrainP2p => Warning,
            Self::GpuReset
            | Self::NodeReboot
            | Self::DrainAndReset
            | Self::RecoverImexDomain
            | Self::BusReset
            | Self::SystemReboot
            | Self::Unknown(_) => Critical,
        }
    }

    fn meaning(self) -> &'static str {
        match self {
            Self::None => "GPU recovery action changed to NONE (no action needed)",
            Self::GpuReset => "GPU recovery action changed to GPU_RESET (reset the GPU)",
            Self::NodeReboot => "GPU recovery action changed to NODE_REBOOT (reboot the host)",
            Self::DrainP2p => {
                "GPU recovery action changed to DRAIN_P2P (stop peer-to-peer traffic)"
            }
            Self::DrainAndReset => {
                "GPU recovery action changed to DRAIN_AND_RESET (stop peer-to-peer traffic, reset the GPU)"
            }
            Self::RecoverImexDomain => {
                "GPU recovery action changed to RECOVER_IMEX_DOMAIN (recover the IMEX domain)"
            }
            Self::BusReset => "GPU recovery action changed to BUS_RESET (reset the GPU's PCIe bus)",
            Self::SystemReboot => "GPU recovery action changed to SYSTEM_REBOOT (reboot the host)",
            Self::Unknown(_) => {
                "GPU recovery action changed to an action this table does not know (treated as a reset)"
            }
        }
    }
}

/// Classifies an XID event with its payload: XID 154 follows its recovery action (see
/// [`RecoveryAction::class`]); every other code is [`classify`].
pub fn classify_event(code: u64, recovery_action: Option<RecoveryAction>) -> XidInfo {
    match (code, recovery_action) {
        (154, Some(action)) => XidInfo {
            code,
            class: action.class(),
            meaning: action.meaning(),
        },
        _ => classify(code),
    }
}

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
        for c in [48, 62, 64, 74, 79, 95, 119, 120, 154, GPU_LOST] {
            assert_eq!(classify(c).class, Critical, "xid {c}");
        }
        for c in [63, 92, 94] {
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

    /// Issue 34 D5. go-nvml `gen/nvml/nvml.h` `nvmlDeviceGpuRecoveryAction_t`:
    /// `NVML_GPU_RECOVERY_ACTION_RECOVER_IMEX_DOMAIN = 5`; NVIDIA's NVML change log ("Changes
    /// between NVML v610 and v615") adds `BUS_RESET` and `SYSTEM_REBOOT` after it (6 and 7). Each
    /// takes the GPU out of service, and an action this table does not know yet may be as bad.
    #[test]
    fn newer_recovery_actions_and_unknown_ones_are_critical() {
        for v in [5, 6, 7, 8, 77] {
            let action = RecoveryAction::from_nvml(v);
            assert_eq!(action.class(), Critical, "action {v} ({action:?})");
            assert_eq!(classify_event(154, Some(action)).class, Critical);
        }
        assert_eq!(
            classify_event(154, Some(RecoveryAction::from_nvml(6))).meaning,
            "GPU recovery action changed to BUS_RESET (reset the GPU's PCIe bus)"
        );
        assert_eq!(RecoveryAction::from_nvml(8), RecoveryAction::Unknown(8));
    }

    #[test]
    fn xid_154_follows_its_recovery_action() {
        let class = |a| classify_event(154, Some(RecoveryAction::from_nvml(a))).class;
        assert_eq!(class(0), XidClass::NoAction);
        assert_eq!(class(1), Critical);
        assert_eq!(class(2), Critical);
        assert_eq!(class(3), Warning);
        assert_eq!(class(4), Critical);
        assert_eq!(class(77), Critical);
        assert_eq!(RecoveryAction::from_nvml(77), RecoveryAction::Unknown(77));
        assert_eq!(classify_event(154, None).class, Critical);
        // The payload only matters for 154.
        assert_eq!(
            classify_event(13, Some(RecoveryAction::GpuReset)).class,
            Application
        );
    }
}
