//! The smoke run of the NVML path on a real GPU (`cargo xtask gpu-smoke`, through the example
//! `gpu-smoke`): load NVML, count and name the devices, read the driver version, each GPU's ECC
//! mode and remapped rows, register an XID event set and poll it once. It prints what it saw and
//! is never needed to build or pass the tests (they use the fake library).

use std::ffi::OsStr;
use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::Error;
use crate::nvml::{EccMode, GpuSource, NvmlSource, Reading, RemappedRows, Unwatched, XidEvent};

/// One GPU as the smoke run saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmokeGpu {
    /// NVML index.
    pub index: u32,
    /// Product name.
    pub name: Reading<String>,
    /// UUID.
    pub uuid: Reading<String>,
    /// ECC mode.
    pub ecc_mode: Reading<EccMode>,
    /// Row remapping.
    pub remapped_rows: Reading<RemappedRows>,
}

/// What the smoke run saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SmokeReport {
    /// Devices NVML counts.
    pub device_count: u32,
    /// The driver version.
    pub driver_version: Reading<String>,
    /// The NVML library version.
    pub nvml_version: Reading<String>,
    /// Each GPU.
    pub gpus: Vec<SmokeGpu>,
    /// GPUs registered in the XID event set.
    pub watched: Vec<u32>,
    /// GPUs that could not be registered, and why.
    pub unwatched: Vec<Unwatched>,
    /// XID events the poll returned.
    pub events: Vec<XidEvent>,
    /// How long the poll waited.
    pub poll: Duration,
    /// How long the whole run took.
    pub elapsed: Duration,
}

/// Runs the smoke: NVML from `library` (the system's `libnvidia-ml.so.1` when `None`), the event
/// set polled for `poll`.
///
/// # Errors
/// [`Error::NvmlUnavailable`] when there is no NVML library, driver or GPU; [`Error::Nvml`] when
/// an NVML call the run needs fails.
pub fn smoke(library: Option<&OsStr>, poll: Duration) -> Result<SmokeReport, Error> {
    let started = Instant::now();
    let source = NvmlSource::open(library)?;
    let host = source.host()?;
    let gpus = source.gpus()?;
    let watch = source.xid_events(poll, 64)?;
    let watched = gpus
        .iter()
        .map(|g| g.index)
        .filter(|i| !watch.unwatched.iter().any(|u| u.gpu_index == *i))
        .collect();
    Ok(SmokeReport {
        device_count: source.device_count(),
        driver_version: host.driver_version,
        nvml_version: host.nvml_version,
        gpus: gpus
            .into_iter()
            .map(|g| SmokeGpu {
                index: g.index,
                name: g.name,
                uuid: g.uuid,
                ecc_mode: g.ecc.mode,
                remapped_rows: g.remapped_rows,
            })
            .collect(),
        watched,
        unwatched: watch.unwatched,
        events: watch.events,
        poll,
        elapsed: started.elapsed(),
    })
}

fn reading<T>(r: &Reading<T>, f: impl Fn(&T) -> String) -> String {
    match r {
        Reading::Value(v) => f(v),
        Reading::NotSupported => "not supported".to_owned(),
        Reading::Failed { error } => format!("error ({error})"),
    }
}

impl fmt::Display for SmokeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "devices: {}", self.device_count)?;
        writeln!(
            f,
            "driver: {}, NVML {}",
            reading(&self.driver_version, String::clone),
            reading(&self.nvml_version, String::clone)
        )?;
        for g in &self.gpus {
            writeln!(
                f,
                "GPU {}: {} {}; ECC {}; remapped rows {}",
                g.index,
                reading(&g.name, String::clone),
                reading(&g.uuid, String::clone),
                reading(&g.ecc_mode, |m| format!(
                    "{} (pending {})",
                    if m.current { "on" } else { "off" },
                    if m.pending { "on" } else { "off" }
                )),
                reading(&g.remapped_rows, |r| format!(
                    "correctable {}, uncorrectable {}, pending {}, failure {}",
                    r.correctable, r.uncorrectable, r.pending, r.failure
                )),
            )?;
        }
        let watched: Vec<String> = self.watched.iter().map(u32::to_string).collect();
        writeln!(
            f,
            "XID event set: GPUs [{}] registered, polled up to {} ms: {} event(s)",
            watched.join(", "),
            self.poll.as_millis(),
            self.events.len()
        )?;
        for u in &self.unwatched {
            writeln!(f, "  GPU {} not registered: {}", u.gpu_index, u.reason)?;
        }
        for e in &self.events {
            writeln!(
                f,
                "  XID {} on GPU {}",
                e.xid,
                e.gpu_index
                    .map_or_else(|| "?".to_owned(), |i| i.to_string())
            )?;
        }
        write!(f, "took {} ms", self.elapsed.as_millis())
    }
}
