//! Health verdicts per GPU and per host, from a [`HostSnapshot`], and the pinned-driver check.

use serde::Serialize;

use crate::kernel_log::{KernelLogError, XidHistory};
use crate::nvml::{Ecc, GpuSnapshot, HostSnapshot, OpenError, Reading, XidEvent};
use crate::policy::DriverPinPolicy;
pub use crate::severity::Severity;
use crate::xid::{self, XidClass};

/// One thing found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// How bad.
    pub severity: Severity,
    /// A stable machine-readable code, e.g. `remapped-rows-pending`.
    pub code: String,
    /// The object concerned (`Kind namespace/name`), for cluster findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub object: Option<String>,
    /// What was found, for people.
    pub message: String,
}

impl Finding {
    /// A finding.
    pub fn new(severity: Severity, code: &str, message: impl Into<String>) -> Self {
        Self {
            severity,
            code: code.to_owned(),
            object: None,
            message: message.into(),
        }
    }

    /// The same finding about `object`.
    pub fn about(mut self, object: impl Into<String>) -> Self {
        self.object = Some(object.into());
        self
    }
}

/// Thresholds for the verdicts.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HealthPolicy {
    /// Warn at or above this core temperature (°C) when NVML gives no slowdown threshold.
    pub temperature_warning_c: u32,
    /// Critical at or above this core temperature (°C) when NVML gives no slowdown threshold.
    pub temperature_critical_c: u32,
    /// Warn this many °C below the GPU's own slowdown threshold (critical at it).
    pub temperature_margin_c: u32,
    /// The driver version the runbook pins, if any.
    pub pinned_driver: Option<String>,
    /// How a driver other than the pinned one is reported (shared with GPU-005).
    pub driver_pin: DriverPinPolicy,
    /// ECC must be on: a production GPU host (default). ECC switched off, which the RTX A5000
    /// and A5500 allow, is then a warning; otherwise it is only reported.
    pub require_ecc: bool,
}

impl Default for HealthPolicy {
    /// 85 °C warning and 93 °C critical (the RTX A5000 starts slowing down around 93 °C), ECC
    /// required, the default [`DriverPinPolicy`].
    fn default() -> Self {
        Self {
            temperature_warning_c: 85,
            temperature_critical_c: 93,
            temperature_margin_c: 5,
            pinned_driver: None,
            driver_pin: DriverPinPolicy::default(),
            require_ecc: true,
        }
    }
}

impl HealthPolicy {
    /// The default thresholds with a pinned driver version.
    pub fn with_pinned_driver(mut self, version: impl Into<String>) -> Self {
        self.pinned_driver = Some(version.into());
        self
    }

    /// The same policy with another driver-pin severity.
    pub fn with_driver_pin(mut self, driver_pin: DriverPinPolicy) -> Self {
        self.driver_pin = driver_pin;
        self
    }

    /// The same policy for a host where ECC may be off (a workstation, not production).
    pub fn ecc_optional(mut self) -> Self {
        self.require_ecc = false;
        self
    }
}

/// The verdict for one GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuVerdict {
    /// NVML index.
    pub index: u32,
    /// UUID, if read.
    pub uuid: Option<String>,
    /// The worst finding's severity (`Ok` when there is none).
    pub severity: Severity,
    /// What was found.
    pub findings: Vec<Finding>,
}

/// The verdict for the host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostVerdict {
    /// The worst severity on the host.
    pub severity: Severity,
    /// Host-wide findings (driver pin, XIDs of unknown GPUs).
    pub findings: Vec<Finding>,
    /// Per-GPU verdicts.
    pub gpus: Vec<GpuVerdict>,
}

impl HostVerdict {
    /// Whether anything is critical.
    pub fn is_critical(&self) -> bool {
        self.severity == Severity::Critical
    }
}

fn worst(findings: &[Finding]) -> Severity {
    findings
        .iter()
        .map(|f| f.severity)
        .max()
        .unwrap_or(Severity::Ok)
}

/// The pinned-driver check: observed vs expected driver version, judged by `pin`.
pub fn check_driver(
    observed: &Reading<String>,
    pinned: &str,
    pin: &DriverPinPolicy,
) -> Option<Finding> {
    let running = observed.value().map(String::as_str);
    let severity = pin.judge(running, pinned)?;
    Some(match running {
        Some(v) => Finding::new(
            severity,
            "driver-not-pinned",
            format!("NVIDIA driver {v} is running, the pinned version is {pinned}"),
        ),
        None => Finding::new(
            severity,
            "driver-unknown",
            format!("the NVIDIA driver version cannot be read (pinned: {pinned})"),
        ),
    })
}

/// The severity of an XID class: one mapping for NVML's events and the kernel log's history.
fn class_severity(class: XidClass) -> Severity {
    match class {
        XidClass::Critical => Severity::Critical,
        XidClass::Warning | XidClass::Unclassified => Severity::Warning,
        XidClass::Application | XidClass::NoAction => Severity::Info,
    }
}

/// What the XID history since boot says ([`kernel_log`](crate::kernel_log)): each GPU's XIDs
/// graded by the one XID table (as NVML's events are), matched to `gpus` by PCI address;
/// `NVRM: Xid` lines in an unknown format are a warning, and a history that no longer reaches
/// back to boot is said. A log that could not be read, or was empty, is "cannot tell" (a
/// warning), never a history without XIDs.
pub fn xid_history_findings(
    history: &Result<XidHistory, KernelLogError>,
    gpus: &[GpuSnapshot],
) -> Vec<Finding> {
    let history = match history {
        Ok(h) => h,
        Err(e) => {
            return vec![Finding::new(
                Severity::Warning,
                "xid-history-unknown",
                format!("cannot tell the XID history since boot: {e}"),
            )];
        }
    };
    // Every GPU here says where it is: an address none of them has is another GPU of the host.
    let addresses_known = !gpus.is_empty() && gpus.iter().all(|g| g.pci_bus_id.value().is_some());
    let mut findings: Vec<Finding> = history
        .counts
        .iter()
        .map(|c| {
            let snapshot = c.pci.gpu(gpus);
            let last = c.last_since_boot.map_or_else(String::new, |d| {
                format!(", last {:.1} s after boot", d.as_secs_f64())
            });
            if snapshot.is_none() && addresses_known {
                return other_gpu_finding(c, &last);
            }
            let gpu = snapshot.map_or_else(
                || format!("PCI {} (no GPU NVML lists there)", c.pci),
                |g| format!("GPU {} ({})", g.index, c.pci),
            );
            let message = format!("XID {} x{} on {gpu}{last}: {}", c.xid, c.count, c.meaning);
            // The driver's current recovery action is the GPU's state now; a history since
            // boot only says what happened (open-gpu-kernel-modules `gpu.c`
            // `_gpuRefreshRecoveryActionInLock` logs 154 on each change, back to None too).
            // The exporter's `exposition_now` serves the same judge (`XidCount::is_current`).
            if c.cleared_now(gpus) {
                Finding::new(
                    Severity::Info,
                    "xid-history",
                    format!("{message} (history: NVML's current recovery action is None)"),
                )
            } else if c.superseded {
                Finding::new(
                    Severity::Info,
                    "xid-history",
                    format!("{message} (history: a later XID 154 changed the action to None)"),
                )
            } else {
                Finding::new(class_severity(c.class), "xid-history", message)
            }
        })
        .collect();
    if !history.unparsed.is_empty() {
        findings.push(Finding::new(
            Severity::Warning,
            "xid-history-unparsed",
            format!(
                "{} NVRM: Xid line(s) in a format this reader does not know, first: {}",
                history.unparsed.len(),
                history.unparsed[0]
            ),
        ));
    }
    if history.complete == Some(false) {
        findings.push(Finding::new(
            Severity::Info,
            "xid-history-incomplete",
            "the kernel log no longer reaches back to boot: older XIDs may be missing",
        ));
    }
    findings
}

/// An XID at an address no GPU of this node has. Linux keeps one kernel log per host
/// (`kernel/printk/printk.c`: one ring buffer, not namespaced), so a container holding some of
/// the host's GPUs reads the others' XIDs too: they are said, at most as a warning, and never
/// graded as this node's own.
fn other_gpu_finding(c: &crate::kernel_log::XidCount, last: &str) -> Finding {
    let severity = match c.class {
        XidClass::Critical | XidClass::Warning | XidClass::Unclassified if !c.superseded => {
            Severity::Warning
        }
        _ => Severity::Info,
    };
    Finding::new(
        severity,
        "xid-history-other-gpu",
        format!(
            "XID {} x{} on another GPU of this host (PCI {}, not one NVML lists here){last}: {}",
            c.xid, c.count, c.pci, c.meaning
        ),
    )
}

fn xid_finding(event: &XidEvent) -> Finding {
    let info = xid::classify_event(event.xid, event.recovery_action);
    let severity = class_severity(info.class);
    // A lost GPU is NVML's answer, not an XID the driver logged: it gets its own code and no
    // made-up XID number.
    if event.xid == xid::GPU_LOST {
        return Finding::new(severity, "gpu-lost", info.meaning);
    }
    Finding::new(
        severity,
        "xid",
        format!("XID {}: {}", event.xid, info.meaning),
    )
}

/// The one finding for a GPU NVML could not open (`nvmlDeviceGetHandleByIndex_v2` failed): no
/// reading exists, so listing each unreadable value would only hide what is wrong.
fn unopened_finding(gpu: &GpuSnapshot, why: &OpenError) -> Finding {
    let cannot_open = |detail: &str| {
        Finding::new(
            Severity::Critical,
            "gpu-unopenable",
            format!("NVML cannot open the GPU: {detail}"),
        )
    };
    match why {
        OpenError::Lost => xid_finding(&XidEvent::new(Some(gpu.index), None, xid::GPU_LOST)),
        OpenError::InsufficientPower => cannot_open(
            "its external power cables are not properly attached (NVML_ERROR_INSUFFICIENT_POWER)",
        ),
        OpenError::IrqIssue => cannot_open(
            "the NVIDIA kernel driver detected an interrupt issue (NVML_ERROR_IRQ_ISSUE)",
        ),
        OpenError::NoPermission => Finding::new(
            Severity::Warning,
            "gpu-no-permission",
            "no permission to open the GPU (NVML_ERROR_NO_PERMISSION): cannot tell its health",
        ),
        OpenError::Other(e) => cannot_open(e),
    }
}

/// The ECC findings: the mode, then uncorrected errors by counter, each counter on its own.
fn ecc_findings(ecc: &Ecc, policy: &HealthPolicy, f: &mut Vec<Finding>) {
    let disabled = if policy.require_ecc {
        Severity::Warning
    } else {
        Severity::Info
    };
    match &ecc.mode {
        Reading::Value(m) if !m.current => f.push(Finding::new(
            disabled,
            "ecc-disabled",
            if m.pending {
                "ECC is disabled (enabled again after the next reboot); memory errors go undetected"
                    .to_owned()
            } else {
                "ECC is disabled; memory errors go undetected (nvidia-smi -e 1 and a reboot enable it)"
                    .to_owned()
            },
        )),
        Reading::Value(m) if !m.pending => f.push(Finding::new(
            disabled,
            "ecc-disabled-pending",
            "ECC will be disabled at the next reboot",
        )),
        Reading::Value(_) => {}
        Reading::NotSupported if policy.require_ecc => f.push(Finding::new(
            Severity::Info,
            "ecc-not-supported",
            "this GPU does not report an ECC mode",
        )),
        Reading::NotSupported => {}
        Reading::Failed { error } => f.push(Finding::new(
            Severity::Warning,
            "ecc-unreadable",
            format!("the ECC mode cannot be read: {error}"),
        )),
    }
    if let Some(&n) = ecc.volatile_uncorrected.value()
        && n > 0
    {
        f.push(Finding::new(
            Severity::Critical,
            "ecc-uncorrected-volatile",
            format!("{n} uncorrectable ECC errors since the driver loaded (volatile counter)"),
        ));
    }
    // The lifetime count survives reboots: errors older than this driver load are not in the
    // volatile counter, and a board that had them must not look healthy after a reboot.
    if let Some(&n) = ecc.aggregate_uncorrected.value() {
        let recent = ecc.volatile_uncorrected.value().copied().unwrap_or(0);
        if n > recent {
            f.push(Finding::new(
                Severity::Warning,
                "ecc-uncorrected-aggregate",
                format!(
                    "{n} uncorrectable ECC errors over the board's life (aggregate counter), {} of them before this driver load",
                    n - recent
                ),
            ));
        }
    }
    let failed: Vec<String> = [
        ("volatile corrected", &ecc.volatile_corrected),
        ("volatile uncorrected", &ecc.volatile_uncorrected),
        ("aggregate corrected", &ecc.aggregate_corrected),
        ("aggregate uncorrected", &ecc.aggregate_uncorrected),
    ]
    .into_iter()
    .filter_map(|(name, r)| match r {
        Reading::Failed { error } => Some(format!("{name}: {error}")),
        _ => None,
    })
    .collect();
    if !failed.is_empty() {
        f.push(Finding::new(
            Severity::Warning,
            "ecc-unreadable",
            format!("ECC counters cannot be read ({})", failed.join("; ")),
        ));
    }
}

/// The verdict for one GPU; its XIDs are those whose [`XidEvent::owner`] it is.
pub fn gpu_verdict(gpu: &GpuSnapshot, host: &HostSnapshot, policy: &HealthPolicy) -> GpuVerdict {
    let mut f = Vec::new();
    if let Some(why) = &gpu.unopened {
        f.push(unopened_finding(gpu, why));
        xid_findings(gpu, host, &mut f);
        return GpuVerdict {
            index: gpu.index,
            uuid: None,
            severity: worst(&f),
            findings: f,
        };
    }
    if gpu.lost {
        f.push(xid_finding(&XidEvent::new(
            Some(gpu.index),
            None,
            xid::GPU_LOST,
        )));
    }
    if let Reading::Failed { error } = &gpu.uuid {
        f.push(Finding::new(
            Severity::Warning,
            "unreadable",
            format!("the GPU's UUID cannot be read: {error}"),
        ));
    }
    temperature_findings(gpu, policy, &mut f);
    limit_findings(gpu, &mut f);
    ecc_findings(&gpu.ecc, policy, &mut f);
    if let Some(r) = gpu.remapped_rows.value() {
        if r.failure {
            f.push(Finding::new(
                Severity::Critical,
                "remapped-rows-failure",
                "row remapping failed: the board has no spare rows left (RMA)",
            ));
        }
        if r.pending {
            f.push(Finding::new(
                Severity::Warning,
                "remapped-rows-pending",
                format!(
                    "a row remapping waits for a GPU reset ({} rows remapped for uncorrectable errors)",
                    r.uncorrectable
                ),
            ));
        }
    }
    if let Some(p) = gpu.retired_pages.value()
        && p.pending
    {
        f.push(Finding::new(
            Severity::Warning,
            "retired-pages-pending",
            "memory pages wait for a reboot to be retired",
        ));
    }
    let uuid = gpu.uuid.value().cloned();
    for u in host
        .xid_unwatched
        .iter()
        .filter(|u| u.gpu_index == gpu.index)
    {
        f.push(Finding::new(
            Severity::Info,
            "xid-not-watched",
            format!("XID events of this GPU are not watched: {}", u.reason),
        ));
    }
    xid_findings(gpu, host, &mut f);
    GpuVerdict {
        index: gpu.index,
        uuid,
        severity: worst(&f),
        findings: f,
    }
}

/// The core temperature against the GPU's own thresholds (`NVML_TEMPERATURE_THRESHOLD_SLOWDOWN`
/// and `_SHUTDOWN`, nvml.h): critical at slowdown (hardware slowdown has begun) or shutdown,
/// a warning within the policy's margin below slowdown. Only without a readable slowdown
/// threshold do the policy's fixed temperatures apply.
fn temperature_findings(gpu: &GpuSnapshot, policy: &HealthPolicy, f: &mut Vec<Finding>) {
    let Some(&t) = gpu.temperature_c.value() else {
        return;
    };
    let limits = &gpu.limits;
    let shutdown = limits.shutdown_temperature_c.value().copied();
    let (severity, message) = match limits.slowdown_temperature_c.value().copied() {
        Some(_) if shutdown.is_some_and(|x| t >= x) => (
            Severity::Critical,
            format!(
                "{t} °C, at or above its shutdown threshold {} °C",
                shutdown.unwrap_or_default()
            ),
        ),
        Some(s) if t >= s => (
            Severity::Critical,
            format!("{t} °C, at or above its slowdown threshold {s} °C (hardware slowdown)"),
        ),
        Some(s) if t.saturating_add(policy.temperature_margin_c) >= s => (
            Severity::Warning,
            format!(
                "{t} °C, within {} °C of its slowdown threshold {s} °C",
                policy.temperature_margin_c
            ),
        ),
        Some(_) => return,
        None if t >= policy.temperature_critical_c => (
            Severity::Critical,
            format!(
                "{t} °C, at or above {} °C (NVML gives no slowdown threshold)",
                policy.temperature_critical_c
            ),
        ),
        None if t >= policy.temperature_warning_c => (
            Severity::Warning,
            format!(
                "{t} °C, at or above {} °C (NVML gives no slowdown threshold)",
                policy.temperature_warning_c
            ),
        ),
        None => return,
    };
    f.push(Finding::new(severity, "temperature", message));
}

/// The `nvmlClocksEventReason*` bits of nvml.h (go-nvml `gen/nvml/nvml.h`; nvml-wrapper 0.13
/// `ThrottleReasons`) and how each is judged: the slowdowns (thermal, power brake, the
/// hardware slowdown nvml.h ties to heat, a power-supply brake or too much power draw) are
/// warnings, the software power cap is worth knowing, the rest (idle, application clocks, sync
/// boost, display clocks) are normal operation.
const CLOCK_EVENT_REASONS: &[(u64, &str, Severity)] = &[
    (0x1, "GPU idle", Severity::Ok),
    (0x2, "applications clocks setting", Severity::Ok),
    (0x4, "software power cap", Severity::Info),
    (0x8, "hardware slowdown", Severity::Warning),
    (0x10, "sync boost", Severity::Ok),
    (0x20, "software thermal slowdown", Severity::Warning),
    (0x40, "hardware thermal slowdown", Severity::Warning),
    (0x80, "hardware power brake slowdown", Severity::Warning),
    (0x100, "display clock setting", Severity::Ok),
];

/// Clock event reasons, power draw against the enforced limit, the PCIe link against its
/// maximum, and memory banks without spare rows.
fn limit_findings(gpu: &GpuSnapshot, f: &mut Vec<Finding>) {
    if let Some(&bits) = gpu.limits.clock_event_reasons.value() {
        clock_findings(bits, f);
    }
    if let (Some(&p), Some(&limit)) = (gpu.power_mw.value(), gpu.power_limit_mw.value())
        && p > limit
    {
        f.push(Finding::new(
            Severity::Warning,
            "power-over-limit",
            format!(
                "draws {:.1} W, above its enforced power limit {:.1} W",
                f64::from(p) / 1000.0,
                f64::from(limit) / 1000.0
            ),
        ));
    }
    if let Some(link) = gpu.limits.pcie.value() {
        pcie_findings(gpu, link, f);
    }
    if let Some(h) = gpu.limits.row_remapper.value() {
        if h.none > 0 {
            f.push(Finding::new(
                Severity::Warning,
                "remapper-banks-exhausted",
                format!(
                    "{} memory bank(s) have no spare row left: a new uncorrectable error there cannot be remapped",
                    h.none
                ),
            ));
        } else if h.low > 0 {
            f.push(Finding::new(
                Severity::Info,
                "remapper-banks-low",
                format!("{} memory bank(s) have few spare rows left", h.low),
            ));
        }
    }
}

fn clock_findings(bits: u64, f: &mut Vec<Finding>) {
    for severity in [Severity::Warning, Severity::Info] {
        let names: Vec<&str> = CLOCK_EVENT_REASONS
            .iter()
            .filter(|(bit, _, s)| bits & bit != 0 && *s == severity)
            .map(|(_, name, _)| *name)
            .collect();
        if !names.is_empty() {
            let code = match severity {
                Severity::Warning => "clocks-slowdown",
                _ => "clocks-power-cap",
            };
            let message = format!("clocks held down by {}", names.join(", "));
            f.push(Finding::new(severity, code, message));
        }
    }
    let known = CLOCK_EVENT_REASONS
        .iter()
        .fold(0, |acc, (bit, _, _)| acc | bit);
    if bits & !known != 0 {
        f.push(Finding::new(
            Severity::Warning,
            "clocks-unknown-reason",
            format!(
                "clock event reason bits {:#x} that this table does not know",
                bits & !known
            ),
        ));
    }
}

/// Utilization (percent of one NVML sample) from which a GPU counts as under load.
const PCIE_LOAD_PERCENT: u32 = 50;

/// A link below its maximum while the GPU clearly works is a downtrained link (a slot, riser or
/// card problem) and a warning. Otherwise it proves nothing: nvidia-smi's man page says the
/// current link "generation and width ... may be reduced when the GPU is not in use", so it is
/// Info "cannot tell", never a pass. "Clearly works" is conservative because utilization is one
/// short sample and a card driving a display is a few percent busy at idle: at least
/// [`PCIE_LOAD_PERCENT`], and NVML's clock event reasons read without `GpuIdle` (0x1).
fn pcie_findings(gpu: &GpuSnapshot, link: &crate::nvml::PcieLink, f: &mut Vec<Finding>) {
    if link.generation >= link.max_generation && link.width >= link.max_width {
        return;
    }
    let text = format!(
        "PCIe link Gen{} x{}, below the Gen{} x{} this GPU and slot allow",
        link.generation, link.width, link.max_generation, link.max_width
    );
    let clocks_idle = gpu.limits.clock_event_reasons.value().map(|b| b & 0x1 != 0);
    let percent = gpu.utilization.value().map(|u| u.gpu_percent);
    let why = match (clocks_idle, percent) {
        (Some(false), Some(p)) if p >= PCIE_LOAD_PERCENT => {
            f.push(Finding::new(
                Severity::Warning,
                "pcie-downtrained",
                format!("{text}, while the GPU is busy ({p}% utilization)"),
            ));
            return;
        }
        (Some(true), _) | (_, Some(0)) => "the GPU is idle".to_owned(),
        (None, Some(p)) => {
            format!("NVML's clock event reasons could not be read, {p}% utilization in one sample")
        }
        (_, Some(p)) => {
            format!("the GPU is not clearly under load, {p}% utilization in one sample")
        }
        (_, None) => "its utilization could not be read".to_owned(),
    };
    f.push(Finding::new(
        Severity::Info,
        "pcie-link-reduced",
        format!("{text}: cannot tell ({why}; the link downshifts when not in use)"),
    ));
}

/// The XID findings of the events whose [`XidEvent::owner`] is `gpu`; a lost GPU is reported once.
fn xid_findings(gpu: &GpuSnapshot, host: &HostSnapshot, f: &mut Vec<Finding>) {
    for e in &host.xids {
        if e.owner(&host.gpus).is_some_and(|g| g.index == gpu.index) {
            let finding = xid_finding(e);
            if finding.code == "gpu-lost" && f.iter().any(|x| x.code == "gpu-lost") {
                continue;
            }
            f.push(finding);
        }
    }
}

/// The verdict for the host: every GPU, the pinned driver, XIDs that match no GPU.
pub fn host_verdict(host: &HostSnapshot, policy: &HealthPolicy) -> HostVerdict {
    let gpus: Vec<GpuVerdict> = host
        .gpus
        .iter()
        .map(|g| gpu_verdict(g, host, policy))
        .collect();
    let mut findings = Vec::new();
    if let Some(pinned) = &policy.pinned_driver
        && let Some(f) = check_driver(&host.host.driver_version, pinned, &policy.driver_pin)
    {
        findings.push(f);
    }
    for e in host.xids.iter().filter(|e| e.owner(&host.gpus).is_none()) {
        findings.push(xid_finding(e));
    }
    let severity = worst(&findings).max(
        gpus.iter()
            .map(|g| g.severity)
            .max()
            .unwrap_or(Severity::Ok),
    );
    HostVerdict {
        severity,
        findings,
        gpus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvml::{FakeGpuSource, HostInfo, RemappedRows};
    use crate::xid::RecoveryAction;

    fn host(gpus: Vec<GpuSnapshot>, xids: Vec<XidEvent>) -> HostSnapshot {
        HostSnapshot {
            host: HostInfo {
                driver_version: Reading::Value("550.54.15".into()),
                cuda_driver_version: Reading::NotSupported,
                nvml_version: Reading::NotSupported,
            },
            gpus,
            xids,
            xid_unwatched: vec![],
        }
    }

    /// The driver's current recovery action (`NVML_FI_DEV_GET_GPU_RECOVERY_ACTION`, go-nvml
    /// `gen/nvml/nvml.h`) is the GPU's state now; the kernel log is a history since boot.
    /// After a reset or drain the action reads None (open-gpu-kernel-modules `gpu.c`
    /// `_gpuRefreshRecoveryActionInLock`), and the old critical XIDs are then history (Info).
    #[test]
    fn xid_history_is_history_once_the_current_action_is_none_or_superseded() {
        use crate::kernel_log::{KernelLog, XidHistory};
        let log = |text: &str| KernelLog {
            text: text.to_owned(),
            records_lost: false,
        };
        let xid95 = "3,0,7200000,-;NVRM: Xid (PCI:0000:01:00): 95, pid=7062, Uncontained: \
                     LTC TAG (0x2, 0x1). RST: Yes, D-RST: No\n";
        let history = Ok(XidHistory::from_log(&log(xid95)));
        let mut gpu = FakeGpuSource::healthy_gpu(0, "GPU-a");
        let severities = |gpu: &GpuSnapshot, h: &Result<XidHistory, KernelLogError>| {
            xid_history_findings(h, std::slice::from_ref(gpu))
                .iter()
                .map(|f| f.severity)
                .collect::<Vec<_>>()
        };
        // Without a current action the history keeps its grade.
        assert_eq!(severities(&gpu, &history), vec![Severity::Critical]);
        gpu.recovery_action = Reading::Value(RecoveryAction::GpuReset);
        assert_eq!(severities(&gpu, &history), vec![Severity::Critical]);
        gpu.recovery_action = Reading::Value(RecoveryAction::None);
        assert_eq!(severities(&gpu, &history), vec![Severity::Info]);
        // A later XID 154 "to 0x0 (None)" on the same GPU: history even without NVML's reading.
        gpu.recovery_action = Reading::NotSupported;
        let later = format!(
            "{xid95}3,1,7300000,-;NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action \
             changed from 0x1 (GPU Reset Required) to 0x0 (None)\n"
        );
        let history = Ok(XidHistory::from_log(&log(&later)));
        let findings = xid_history_findings(&history, std::slice::from_ref(&gpu));
        assert!(
            findings.iter().all(|f| f.severity == Severity::Info),
            "{findings:?}"
        );
        assert!(findings[0].message.contains("history"), "{findings:?}");
    }

    /// Linux keeps one kernel log per host (`kernel/printk/printk.c`: one ring buffer, no
    /// namespace; `devkmsg_open` reads it whole), so an LXC that holds some of the host's GPUs
    /// reads the other GPUs' XIDs too. An XID at an address NVML does not list here is another
    /// GPU of this host: a warning at most, named by address, never this node's critical. When
    /// a GPU's own address cannot be read (a lost GPU), the XID may be its: full grade.
    #[test]
    fn an_xid_of_a_gpu_nvml_does_not_list_is_another_gpu_of_the_host() {
        use crate::kernel_log::{KernelLog, XidHistory};
        let text = "3,0,9000000,-;NVRM: Xid (PCI:0000:41:00): 79, GPU has fallen off the bus.\n\
                    3,1,9500000,-;NVRM: Xid (PCI:0000:41:00): 13, pid=8001, name=python3, \
                    Graphics Exception\n";
        let history = Ok(XidHistory::from_log(&KernelLog {
            text: text.to_owned(),
            records_lost: false,
        }));
        let mut gpu = FakeGpuSource::healthy_gpu(0, "GPU-a");
        let graded = |gpu: &GpuSnapshot| {
            xid_history_findings(&history, std::slice::from_ref(gpu))
                .into_iter()
                .map(|f| (f.severity, f.code))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            graded(&gpu),
            vec![
                (Severity::Info, "xid-history-other-gpu".to_owned()),
                (Severity::Warning, "xid-history-other-gpu".to_owned()),
            ]
        );
        let findings = xid_history_findings(&history, std::slice::from_ref(&gpu));
        assert!(
            findings[1]
                .message
                .contains("another GPU of this host (PCI 0000:41:00"),
            "{findings:?}"
        );
        gpu.pci_bus_id = Reading::Failed {
            error: "GPU_IS_LOST".to_owned(),
        };
        assert_eq!(
            graded(&gpu),
            vec![
                (Severity::Info, "xid-history".to_owned()),
                (Severity::Critical, "xid-history".to_owned()),
            ]
        );
    }

    #[test]
    fn healthy_host_is_ok() {
        let h = host(vec![FakeGpuSource::healthy_gpu(0, "GPU-a")], vec![]);
        let v = host_verdict(&h, &HealthPolicy::default().with_pinned_driver("550.54.15"));
        assert_eq!(v.severity, Severity::Ok);
        assert!(v.findings.is_empty());
        assert_eq!(v.gpus[0].uuid.as_deref(), Some("GPU-a"));
    }

    #[test]
    fn driver_pin_mismatch_follows_the_shared_policy() {
        let h = host(vec![], vec![]);
        let v = host_verdict(
            &h,
            &HealthPolicy::default().with_pinned_driver("535.183.01"),
        );
        // GPU-005's severity in the ADR catalogue: a warning.
        assert_eq!(v.severity, Severity::Warning);
        assert_eq!(v.findings[0].code, "driver-not-pinned");
        assert!(v.findings[0].message.contains("550.54.15"));
        assert!(v.findings[0].message.contains("535.183.01"));
        assert_eq!(
            check_driver(&Reading::NotSupported, "1", &DriverPinPolicy::default())
                .map(|f| f.severity),
            Some(Severity::Warning)
        );
        let strict = HealthPolicy::default()
            .with_pinned_driver("535.183.01")
            .with_driver_pin(DriverPinPolicy::default().with_mismatch(Severity::Critical));
        assert_eq!(host_verdict(&h, &strict).severity, Severity::Critical);
    }

    #[test]
    fn xids_go_to_their_gpu_and_classify() {
        let mut g1 = FakeGpuSource::healthy_gpu(1, "GPU-b");
        g1.remapped_rows = Reading::Value(RemappedRows {
            correctable: 0,
            uncorrectable: 1,
            pending: true,
            failure: false,
        });
        let h = host(
            vec![FakeGpuSource::healthy_gpu(0, "GPU-a"), g1],
            vec![
                XidEvent::new(Some(1), Some("GPU-b"), 13),
                XidEvent::new(None, Some("GPU-a"), 94),
                XidEvent::new(Some(7), None, 79),
            ],
        );
        let v = host_verdict(&h, &HealthPolicy::default());
        assert_eq!(v.gpus[0].severity, Severity::Warning);
        assert_eq!(
            v.gpus[0].findings[0].message,
            "XID 94: contained ECC error (affected application stopped; reset the GPU soon)"
        );
        let codes: Vec<_> = v.gpus[1]
            .findings
            .iter()
            .map(|f| (f.code.as_str(), f.severity))
            .collect();
        assert_eq!(
            codes,
            [
                ("remapped-rows-pending", Severity::Warning),
                ("xid", Severity::Info)
            ]
        );
        // XID 79 of a GPU that is not in the list is a host finding, and critical.
        assert_eq!(v.findings.len(), 1);
        assert_eq!(v.findings[0].severity, Severity::Critical);
        assert!(v.is_critical());
    }

    #[test]
    fn one_matching_rule_reports_each_xid_once() {
        // GPU 1's UUID could not be read when the GPUs were read, but the event's could.
        let mut g1 = FakeGpuSource::healthy_gpu(1, "GPU-b");
        g1.uuid = Reading::Failed {
            error: "Unknown Error".into(),
        };
        let h = host(
            vec![FakeGpuSource::healthy_gpu(0, "GPU-a"), g1],
            vec![
                XidEvent::new(Some(1), Some("GPU-b"), 79),
                // An index that disagrees with a known UUID: the UUID wins.
                XidEvent::new(Some(1), Some("GPU-a"), 94),
                // A known UUID no GPU has, on an index whose GPU has another UUID: the host's.
                XidEvent::new(Some(0), Some("GPU-z"), 48),
            ],
        );
        let v = host_verdict(&h, &HealthPolicy::default());
        let xids = |fs: &[Finding]| -> Vec<String> {
            fs.iter()
                .filter(|f| f.code == "xid")
                .map(|f| f.message.clone())
                .collect()
        };
        assert_eq!(
            xids(&v.gpus[0].findings),
            ["XID 94: contained ECC error (affected application stopped; reset the GPU soon)"]
        );
        assert_eq!(
            xids(&v.gpus[1].findings),
            ["XID 79: GPU has fallen off the bus"]
        );
        assert_eq!(
            xids(&v.findings),
            ["XID 48: double-bit (uncorrectable) ECC error"]
        );
    }

    #[test]
    fn ecc_mode_and_counters_each_count() {
        let policy = HealthPolicy::default();
        let codes = |ecc: Ecc, policy: &HealthPolicy| -> Vec<(String, Severity)> {
            let mut g = FakeGpuSource::healthy_gpu(0, "GPU-a");
            g.ecc = ecc;
            gpu_verdict(&g, &host(vec![], vec![]), policy)
                .findings
                .into_iter()
                .map(|f| (f.code, f.severity))
                .collect()
        };
        assert!(codes(Ecc::enabled_and_clean(), &policy).is_empty());
        let mut off = Ecc::enabled_and_clean();
        off.mode = Reading::Value(crate::nvml::EccMode {
            current: false,
            pending: false,
        });
        off.volatile_uncorrected = Reading::NotSupported;
        off.aggregate_uncorrected = Reading::Value(2);
        assert_eq!(
            codes(off.clone(), &policy),
            [
                ("ecc-disabled".to_owned(), Severity::Warning),
                ("ecc-uncorrected-aggregate".to_owned(), Severity::Warning),
            ]
        );
        assert_eq!(
            codes(off, &HealthPolicy::default().ecc_optional())[0],
            ("ecc-disabled".to_owned(), Severity::Info)
        );
        let mut recent = Ecc::enabled_and_clean();
        recent.volatile_uncorrected = Reading::Value(1);
        recent.aggregate_uncorrected = Reading::Value(1);
        assert_eq!(
            codes(recent, &policy),
            [("ecc-uncorrected-volatile".to_owned(), Severity::Critical)]
        );
    }

    #[test]
    fn temperature_lost_and_ecc() {
        let mut g = FakeGpuSource::healthy_gpu(0, "GPU-a");
        g.temperature_c = Reading::Value(88);
        let h = host(vec![g.clone()], vec![]);
        assert_eq!(
            host_verdict(&h, &HealthPolicy::default()).severity,
            Severity::Warning
        );
        g.temperature_c = Reading::Value(95);
        let h = host(vec![g.clone()], vec![]);
        assert_eq!(
            host_verdict(&h, &HealthPolicy::default()).severity,
            Severity::Critical
        );
        let mut g = FakeGpuSource::healthy_gpu(0, "GPU-a");
        g.lost = true;
        let v = host_verdict(&host(vec![g], vec![]), &HealthPolicy::default());
        assert_eq!(
            (
                v.gpus[0].findings[0].code.as_str(),
                v.gpus[0].findings[0].message.as_str()
            ),
            (
                "gpu-lost",
                "GPU lost: NVML cannot reach it any more (fallen off the bus or otherwise inaccessible)"
            )
        );
        assert!(v.is_critical());
    }
}
