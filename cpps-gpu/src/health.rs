//! Health verdicts per GPU and per host, from a [`HostSnapshot`], and the pinned-driver check.

use serde::Serialize;

use crate::nvml::{GpuSnapshot, HostSnapshot, Reading};
use crate::xid::{self, XidClass};

/// How bad a finding is. Ordered: `Ok < Info < Warning < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Nothing to report.
    Ok,
    /// Worth knowing, no action.
    Info,
    /// Needs attention soon.
    Warning,
    /// Page someone.
    Critical,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Ok => "ok",
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Critical => "critical",
        })
    }
}

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
    /// Warn at or above this core temperature (°C).
    pub temperature_warning_c: u32,
    /// Critical at or above this core temperature (°C).
    pub temperature_critical_c: u32,
    /// The driver version the runbook pins, if any.
    pub pinned_driver: Option<String>,
}

impl Default for HealthPolicy {
    /// 85 °C warning and 93 °C critical (the RTX A5000 starts slowing down around 93 °C).
    fn default() -> Self {
        Self {
            temperature_warning_c: 85,
            temperature_critical_c: 93,
            pinned_driver: None,
        }
    }
}

impl HealthPolicy {
    /// The default thresholds with a pinned driver version.
    pub fn with_pinned_driver(mut self, version: impl Into<String>) -> Self {
        self.pinned_driver = Some(version.into());
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

/// The pinned-driver check: observed vs expected driver version.
pub fn check_driver(observed: &Reading<String>, pinned: &str) -> Option<Finding> {
    match observed {
        Reading::Value(v) if v == pinned => None,
        Reading::Value(v) => Some(Finding::new(
            Severity::Critical,
            "driver-not-pinned",
            format!("NVIDIA driver {v} is running, the pinned version is {pinned}"),
        )),
        _ => Some(Finding::new(
            Severity::Warning,
            "driver-unknown",
            format!("the NVIDIA driver version cannot be read (pinned: {pinned})"),
        )),
    }
}

fn xid_finding(code: u64) -> Finding {
    let info = xid::classify(code);
    let severity = match info.class {
        XidClass::Critical => Severity::Critical,
        XidClass::Warning | XidClass::Unclassified => Severity::Warning,
        XidClass::Application => Severity::Info,
    };
    Finding::new(severity, "xid", format!("XID {code}: {}", info.meaning))
}

/// The verdict for one GPU (XIDs are matched to it by index or UUID).
pub fn gpu_verdict(gpu: &GpuSnapshot, host: &HostSnapshot, policy: &HealthPolicy) -> GpuVerdict {
    let mut f = Vec::new();
    if gpu.lost {
        f.push(xid_finding(xid::GPU_LOST));
    }
    if let Reading::Failed { error } = &gpu.uuid {
        f.push(Finding::new(
            Severity::Warning,
            "unreadable",
            format!("the GPU's UUID cannot be read: {error}"),
        ));
    }
    if let Some(&t) = gpu.temperature_c.value() {
        if t >= policy.temperature_critical_c {
            f.push(Finding::new(
                Severity::Critical,
                "temperature",
                format!("{t} °C, at or above {} °C", policy.temperature_critical_c),
            ));
        } else if t >= policy.temperature_warning_c {
            f.push(Finding::new(
                Severity::Warning,
                "temperature",
                format!("{t} °C, at or above {} °C", policy.temperature_warning_c),
            ));
        }
    }
    if let Some(ecc) = gpu.ecc.value()
        && ecc.volatile_uncorrected > 0
    {
        f.push(Finding::new(
            Severity::Critical,
            "ecc-uncorrected",
            format!(
                "{} uncorrectable ECC errors since the driver loaded",
                ecc.volatile_uncorrected
            ),
        ));
    }
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
    for e in &host.xids {
        let mine = match (&e.gpu_uuid, &uuid) {
            (Some(a), Some(b)) => a == b,
            _ => e.gpu_index == Some(gpu.index),
        };
        if mine {
            f.push(xid_finding(e.xid));
        }
    }
    GpuVerdict {
        index: gpu.index,
        uuid,
        severity: worst(&f),
        findings: f,
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
        && let Some(f) = check_driver(&host.host.driver_version, pinned)
    {
        findings.push(f);
    }
    for e in &host.xids {
        let matched = host.gpus.iter().any(|g| {
            e.gpu_uuid
                .as_ref()
                .is_some_and(|u| g.uuid.value() == Some(u))
                || (e.gpu_uuid.is_none() && e.gpu_index == Some(g.index))
        });
        if !matched {
            findings.push(xid_finding(e.xid));
        }
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
    use crate::nvml::{FakeGpuSource, HostInfo, RemappedRows, XidEvent};

    fn host(gpus: Vec<GpuSnapshot>, xids: Vec<XidEvent>) -> HostSnapshot {
        HostSnapshot {
            host: HostInfo {
                driver_version: Reading::Value("550.54.15".into()),
                cuda_driver_version: Reading::NotSupported,
                nvml_version: Reading::NotSupported,
            },
            gpus,
            xids,
        }
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
    fn driver_pin_mismatch_is_critical() {
        let h = host(vec![], vec![]);
        let v = host_verdict(
            &h,
            &HealthPolicy::default().with_pinned_driver("535.183.01"),
        );
        assert_eq!(v.severity, Severity::Critical);
        assert_eq!(v.findings[0].code, "driver-not-pinned");
        assert!(v.findings[0].message.contains("550.54.15"));
        assert!(v.findings[0].message.contains("535.183.01"));
        assert_eq!(
            check_driver(&Reading::NotSupported, "1").map(|f| f.severity),
            Some(Severity::Warning)
        );
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
                XidEvent {
                    gpu_index: Some(1),
                    gpu_uuid: Some("GPU-b".into()),
                    xid: 13,
                },
                XidEvent {
                    gpu_index: None,
                    gpu_uuid: Some("GPU-a".into()),
                    xid: 94,
                },
                XidEvent {
                    gpu_index: Some(7),
                    gpu_uuid: None,
                    xid: 79,
                },
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
            v.gpus[0].findings[0].message,
            "XID 18446744073709551615: GPU lost (NVML cannot reach it any more)"
        );
        assert!(v.is_critical());
    }
}
