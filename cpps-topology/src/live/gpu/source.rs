//! NVML on a GPU host: driver version, per-GPU health and XIDs.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use cpps_gpu::health::{HealthPolicy, host_verdict};
use cpps_gpu::nvml::{self, HostSnapshot};

use crate::live::facts::{GpuFact, GpuHostFacts, SourceFailure, SourceKind};
use crate::live::source::Source;

/// The GPUs of the host this program runs on, read through NVML (`nvml-wrapper`), with the
/// library found by the loader or at `library`.
///
/// NVML calls block, so they run on Tokio's blocking pool; the library is opened at each
/// observation and closed after it.
#[derive(Debug, Clone)]
pub struct NvmlSource {
    library: Option<PathBuf>,
    xid_wait: Duration,
}

impl NvmlSource {
    /// A source over the NVML library at `library` (the loader's `libnvidia-ml.so.1` when
    /// `None`), listening for XID events for `xid_wait`.
    pub fn new(library: Option<PathBuf>, xid_wait: Duration) -> Self {
        Self { library, xid_wait }
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
        let result = tokio::task::spawn_blocking(move || {
            let source = nvml::NvmlSource::open(library.as_deref().map(|p| p.as_os_str()))?;
            nvml::snapshot(&source, wait)
        })
        .await;
        match result {
            Ok(Ok(snapshot)) => Ok(gpu_facts(&snapshot)),
            Ok(Err(e)) => Err(SourceFailure::from_error(SourceKind::Nvml, endpoint, &e)),
            Err(join) => Err(SourceFailure::from_error(SourceKind::Nvml, endpoint, &join)),
        }
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
    }
}
