//! GPU-005's live part: the running NVIDIA driver is the pinned one; NVRM/XID errors and
//! critical GPUs raise an alert; a host listing fewer GPUs than the file declares is never ok.

use crate::finding::Severity;
use crate::live::facts::{GpuHostFacts, XidHistoryFact};
use crate::live::rules::{Live, LiveCheck, emit_on, from_gpu_severity};
use crate::model::{ComponentRef, Host};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[(RuleId("GPU-005"), gpu_005)];

/// The XID history since boot (the host's kernel log): critical XIDs are a warning, as those
/// NVML reported while listening are; a log that could not be read, or read only in part
/// (unknown line formats, a ring that no longer reaches boot), is "cannot tell" (info).
fn xid_history(facts: &GpuHostFacts, host: &str, c: ComponentRef<'_>, sink: &mut Sink<'_>) {
    match &facts.xid_history {
        None => {}
        Some(XidHistoryFact::Unknown { why }) => emit_on(
            sink,
            Severity::Info,
            c,
            format!("cannot tell the XID history since boot on {host}: {why}"),
        ),
        Some(XidHistoryFact::Read {
            critical,
            unreadable,
            other_gpus,
        }) => {
            if !other_gpus.is_empty() {
                emit_on(
                    sink,
                    Severity::Info,
                    c,
                    format!(
                        "XIDs since boot on a GPU of {host} that NVML does not list there (kernel \
                         log): {}",
                        other_gpus.join("; ")
                    ),
                );
            }
            if !critical.is_empty() {
                emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!(
                        "critical XID errors since boot on {host} (kernel log): {}",
                        critical.join("; ")
                    ),
                );
            }
            if !unreadable.is_empty() {
                emit_on(
                    sink,
                    Severity::Info,
                    c,
                    format!(
                        "cannot tell all of the XID history since boot on {host}: {}",
                        unreadable.join("; ")
                    ),
                );
            }
        }
    }
}

/// Fewer GPUs listed than the file declares for `host` is never ok, as `gpu-health
/// --expect-gpus` judges it (examples `gpu-health.rs`): a GPU that fell off the bus or failed
/// to initialise is not listed, and a host whose NVML lists none has its driver loaded.
fn declared_gpus(facts: &GpuHostFacts, host: &Host, sink: &mut Sink<'_>) {
    let declared = host.gpu_count_at_least();
    let Some(listed) = facts.device_count.filter(|&n| n < declared) else {
        return;
    };
    let message = if listed == 0 {
        format!(
            "NVML lists no GPU on {}, though the NVIDIA driver is loaded and the file declares \
             {declared}",
            host.id
        )
    } else {
        format!(
            "NVML lists {listed} GPU(s) on {}, the file declares {declared}",
            host.id
        )
    };
    emit_on(sink, Severity::Warning, ComponentRef::Host(host), message);
}

/// GPU-005: the running NVIDIA driver is the pinned one; NVRM/XID errors raise an alert.
pub(crate) fn gpu_005(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (host_id, source) in &site.gpus {
            let (Some(facts), Some(host)) = (source.observed(), live.declared.host(host_id)) else {
                continue;
            };
            let c = ComponentRef::Host(host);
            // The pin: the host's own, else that of a K3s cluster whose nodes run on it.
            let pinned = host.nvidia_driver.clone().or_else(|| {
                live.topo
                    .guests_on(&host.id)
                    .filter_map(|g| live.topo.cluster_of_guest(&g.id))
                    .find_map(|k| k.nvidia_driver.clone())
            });
            let mismatch = pinned.as_ref().and_then(|pin| {
                live.options
                    .driver_pin
                    .judge(facts.driver_version.as_deref(), pin.as_str())
            });
            match (&pinned, &facts.driver_version, mismatch) {
                (Some(pin), Some(running), Some(severity)) => emit_on(
                    sink,
                    from_gpu_severity(severity),
                    c,
                    format!(
                        "NVIDIA driver {running} is running on {}, the file pins {pin}",
                        host.id
                    ),
                ),
                // A pin and no version read: unknown, never a driver that matches. The policy's
                // `unreadable` severity says how loud.
                (Some(pin), None, Some(severity)) => emit_on(
                    sink,
                    from_gpu_severity(severity),
                    c,
                    format!(
                        "the NVIDIA driver version running on {} could not be read, the file pins {pin}: whether it is the pinned one is unknown",
                        host.id
                    ),
                ),
                (None, Some(running), _) => emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!(
                        "NVIDIA driver {running} is running on {} but the file pins no version (ADR-009: document the exact version)",
                        host.id
                    ),
                ),
                _ => {}
            }
            if !facts.critical_xids.is_empty() {
                // A GPU NVML reports lost carries cpps-gpu's pseudo-XID, which no driver prints.
                let codes: Vec<String> = facts
                    .critical_xids
                    .iter()
                    .map(|&xid| match xid {
                        cpps_gpu::xid::GPU_LOST => "GPU lost".to_owned(),
                        xid => xid.to_string(),
                    })
                    .collect();
                emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!("critical XID errors on {}: {}", host.id, codes.join(", ")),
                );
            }
            xid_history(facts, host.id.as_str(), c, sink);
            declared_gpus(facts, host, sink);
            for gpu in facts.gpus.iter().filter(|g| g.health == "critical") {
                emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!(
                        "GPU {} ({}) is critical: {}",
                        gpu.index,
                        gpu.uuid.as_deref().unwrap_or("no UUID"),
                        gpu.findings.join("; ")
                    ),
                );
            }
        }
    }
}
