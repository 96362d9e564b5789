//! The exporter's dcgm-exporter-shaped `DCGM_FI_DEV_XID_ERRORS` from NVML's XID events: a GPU
//! NVML reports lost and an event NVML could not tie to a GPU.
#![cfg(feature = "live")]

use cpps_topology::live::facts::{GpuFact, GpuHostFacts, Observation, SiteObservation, Sourced};
use cpps_topology::live::metrics::render;

fn gpu(index: u32, uuid: &str) -> GpuFact {
    GpuFact {
        index,
        uuid: Some(uuid.to_owned()),
        name: Some("NVIDIA RTX A5000".to_owned()),
        health: "ok".to_owned(),
        findings: Vec::new(),
    }
}

/// The `DCGM_FI_DEV_XID_ERRORS` lines rendered for one host with these XID events.
fn xid_lines(xids: Vec<(Option<String>, u64)>) -> Vec<String> {
    let mut sp = SiteObservation::new("sp");
    sp.gpus = vec![(
        "pve-ippri-31".to_owned(),
        Sourced::Observed(GpuHostFacts {
            driver_version: Some("550.54.15".to_owned()),
            gpus: vec![gpu(0, "GPU-a"), gpu(1, "GPU-b")],
            xids,
            ..GpuHostFacts::default()
        }),
    )];
    let text = render(
        &Observation {
            taken_at: 0,
            sites: vec![sp],
        },
        None,
    );
    text.lines()
        .filter(|l| l.starts_with("DCGM_FI_DEV_XID_ERRORS{"))
        .map(str::to_owned)
        .collect()
}

/// cpps-gpu reports a GPU NVML calls lost (`nvmlEventSetWait_v2` answering
/// `NVML_ERROR_GPU_IS_LOST`, go-nvml `nvml.h`) as its pseudo-XID `cpps_gpu::xid::GPU_LOST`,
/// which no driver prints; the driver's own line for it is XID 79, "GPU has fallen off the bus"
/// (NVIDIA's Xid catalog), so the metric says 79, never `i64::MAX`. An event NVML gave without a
/// GPU UUID belongs to no GPU known here: it is its own series (`gpu="unknown"`), not the last
/// XID of every GPU of the host.
#[test]
fn a_lost_gpu_is_xid_79_and_an_event_without_uuid_is_no_gpus() {
    let lost = xid_lines(vec![
        (None, 13),
        (Some("GPU-b".to_owned()), cpps_gpu::xid::GPU_LOST),
    ]);
    let labels = |gpu: &str, uuid: &str, model: &str| {
        format!(
            r#"DCGM_FI_DEV_XID_ERRORS{{site="sp",Hostname="pve-ippri-31",gpu="{gpu}",UUID="{uuid}",modelName="{model}",DCGM_FI_DRIVER_VERSION="550.54.15"}}"#
        )
    };
    let model = "NVIDIA RTX A5000";
    assert_eq!(
        lost,
        [
            format!("{} 0", labels("0", "GPU-a", model)),
            format!("{} 79", labels("1", "GPU-b", model)),
            format!("{} 13", labels("unknown", "", "")),
        ]
    );
    // No event: every GPU is 0 and there is no series for unknown GPUs.
    assert_eq!(
        xid_lines(Vec::new()),
        [
            format!("{} 0", labels("0", "GPU-a", model)),
            format!("{} 0", labels("1", "GPU-b", model)),
        ]
    );
}
