//! NVML on a GPU host: driver version, per-GPU health and XIDs, and the XID history since boot
//! from its kernel log.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use cpps_gpu::NvmlUnavailable;
use cpps_gpu::health::{HealthPolicy, Severity, host_verdict, xid_history_findings};
use cpps_gpu::kernel_log::{self, XidHistory};
use cpps_gpu::nvml::{self, GpuSnapshot, HostSnapshot};

use crate::live::facts::{GpuFact, GpuHostFacts, SourceFailure, SourceKind, XidHistoryFact};
use crate::live::source::Source;

/// The GPUs of the host this program runs on, read through NVML (`nvml-wrapper`), with the
/// library found by the loader or at `library`.
///
/// NVML calls block, so they run on Tokio's blocking pool; the library is opened at each
/// observation and closed after it. NVML reports only the XIDs that happen while it listens, so
/// the history since boot is read from the kernel log (`/dev/kmsg` by default) too.
#[derive(Debug, Clone)]
pub struct NvmlSource {
    library: Option<PathBuf>,
    xid_wait: Duration,
    kernel_log: Option<PathBuf>,
}

/// The kernel log read by default: this host's, since the source runs on the GPU host.
const DEFAULT_KERNEL_LOG: &str = "/dev/kmsg";

impl NvmlSource {
    /// A source over the NVML library at `library` (the loader's `libnvidia-ml.so.1` when
    /// `None`), listening for XID events for `xid_wait`, with the XID history from `/dev/kmsg`.
    pub fn new(library: Option<PathBuf>, xid_wait: Duration) -> Self {
        Self {
            library,
            xid_wait,
            kernel_log: Some(PathBuf::from(DEFAULT_KERNEL_LOG)),
        }
    }

    /// The same source reading the XID history from `kernel_log` (`/dev/kmsg`, or a saved
    /// journal or dmesg text); `None` reads none, and GPU-005 then says nothing about it.
    #[must_use]
    pub fn with_kernel_log(mut self, kernel_log: Option<PathBuf>) -> Self {
        self.kernel_log = kernel_log;
        self
    }
}

#[async_trait]
impl Source<GpuHostFacts> for NvmlSource {
    fn kind(&self) -> SourceKind {
        SourceKind::Nvml
    }

    fn endpoint(&self) -> String {
        self.library.as_ref().map_or_else(
            || "libnvidia-ml.so.1".to_owned(),
            |p| p.display().to_string(),
        )
    }

    async fn observe(&self) -> Result<GpuHostFacts, SourceFailure> {
        let library = self.library.clone();
        let wait = self.xid_wait;
        let endpoint = self.endpoint();
        let kernel_log = self.kernel_log.clone();
        let result = tokio::task::spawn_blocking(move || {
            let source = match nvml::NvmlSource::open(library.as_deref().map(|p| p.as_os_str())) {
                Ok(source) => source,
                // NVML initialised, so the driver is loaded, yet lists no GPU: a fact GPU-005
                // judges against the GPUs the file declares, not a failed source.
                Err(cpps_gpu::Error::NvmlUnavailable(NvmlUnavailable::NoDevice)) => {
                    return Ok(None);
                }
                Err(e) => return Err(e),
            };
            let snapshot = nvml::snapshot(&source, wait)?;
            let history = kernel_log
                .as_deref()
                .map(|p| xid_history_fact(p, &snapshot.gpus));
            Ok::<_, cpps_gpu::Error>(Some((snapshot, source.device_count(), history)))
        })
        .await;
        match result {
            Ok(Ok(None)) => Ok(GpuHostFacts {
                device_count: Some(0),
                ..GpuHostFacts::default()
            }),
            Ok(Ok(Some((snapshot, count, history)))) => Ok(GpuHostFacts {
                xid_history: history,
                device_count: Some(count),
                ..gpu_facts(&snapshot)
            }),
            Ok(Err(e)) => Err(SourceFailure::from_error(SourceKind::Nvml, endpoint, &e)),
            Err(join) => Err(SourceFailure::from_error(SourceKind::Nvml, endpoint, &join)),
        }
    }
}

/// The XID history in the kernel log at `path`, graded by `cpps_gpu::health` against `gpus`:
/// its critical lines, or why it cannot be told (unreadable, or empty).
fn xid_history_fact(path: &Path, gpus: &[GpuSnapshot]) -> XidHistoryFact {
    let history = kernel_log::read_kernel_log(path, kernel_log::DEFAULT_CAP)
        .map(|log| XidHistory::from_log(&log));
    if let Err(e) = &history {
        return XidHistoryFact::Unknown { why: e.to_string() };
    }
    let findings = xid_history_findings(&history, gpus);
    // A wrapped ring or a line format the reader does not know leaves part of the history
    // unread (Linux `printk.c` `devkmsg_open` starts at the oldest record kept): never clean.
    let unreadable = findings
        .iter()
        .filter(|f| {
            matches!(
                f.code.as_str(),
                "xid-history-unparsed" | "xid-history-incomplete"
            )
        })
        .map(|f| f.message.clone())
        .collect();
    // XIDs of a GPU NVML does not list here: one kernel log per host, so another GPU's.
    let other_gpus = findings
        .iter()
        .filter(|f| f.code == "xid-history-other-gpu")
        .map(|f| f.message.clone())
        .collect();
    XidHistoryFact::Read {
        critical: findings
            .into_iter()
            .filter(|f| f.severity == Severity::Critical)
            .map(|f| f.message)
            .collect(),
        unreadable,
        other_gpus,
    }
}

/// The facts of an NVML host snapshot, judged by `cpps_gpu::health` (no pinned driver: the
/// pin is the topology's, compared by GPU-005).
pub fn gpu_facts(snapshot: &HostSnapshot) -> GpuHostFacts {
    let verdict = host_verdict(snapshot, &HealthPolicy::default());
    let critical: Vec<u64> = snapshot
        .xids
        .iter()
        // Classified with its payload (XID 154 by its recovery action), as cpps_gpu::health does.
        .filter(|x| {
            cpps_gpu::xid::classify_event(x.xid, x.recovery_action).class
                == cpps_gpu::xid::XidClass::Critical
        })
        .map(|x| x.xid)
        .collect();
    GpuHostFacts {
        driver_version: snapshot.host.driver_version.value().cloned(),
        gpus: snapshot
            .gpus
            .iter()
            .zip(verdict.gpus.iter())
            .map(|(g, v)| GpuFact {
                index: g.index,
                uuid: g.uuid.value().cloned(),
                name: g.name.value().cloned(),
                health: v.severity.to_string(),
                findings: v
                    .findings
                    .iter()
                    .map(|f| format!("{}: {}", f.code, f.message))
                    .collect(),
            })
            .collect(),
        xids: snapshot
            .xids
            .iter()
            .map(|x| (x.gpu_uuid.clone(), x.xid))
            .collect(),
        critical_xids: critical,
        xid_history: None,
        device_count: None,
    }
}
