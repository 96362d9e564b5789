//! The smoke run of the NVML path on a real GPU (`cargo xtask gpu-smoke`, through the example
//! `gpu-smoke`): load NVML, count and name the devices, read the driver version, each GPU's ECC
//! mode and remapped rows, register an XID event set and poll it once. It prints what it saw and
//! is never needed to build or pass the tests (they use the fake library).

use std::ffi::OsStr;
use std::fmt;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::Error;
use crate::nvml::{
    EccMode, GpuSource, Limits, NvmlSource, Reading, RemappedRows, Unwatched, XidEvent,
};

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
    /// PCI bus id, as NVML writes it (`00000000:01:00.0`).
    pub pci_bus_id: Reading<String>,
    /// Core temperature, °C.
    pub temperature_c: Reading<u32>,
    /// Power draw, mW.
    pub power_mw: Reading<u32>,
    /// Enforced power limit, mW.
    pub power_limit_mw: Reading<u32>,
    /// Clock event reasons, thresholds, PCIe link and spare rows.
    pub limits: Limits,
}

/// What the smoke run saw.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
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
                pci_bus_id: g.pci_bus_id,
                temperature_c: g.temperature_c,
                power_mw: g.power_mw,
                power_limit_mw: g.power_limit_mw,
                limits: g.limits,
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

/// The second and third lines of a GPU: bus id, temperature against NVML's thresholds, power,
/// clock event reasons, PCIe link, spare-row banks.
fn write_limits(f: &mut fmt::Formatter<'_>, g: &SmokeGpu) -> fmt::Result {
    let l = &g.limits;
    let celsius = |r: &Reading<u32>| reading(r, |v| format!("{v} °C"));
    let watts = |r: &Reading<u32>| reading(r, |v| format!("{:.1} W", f64::from(*v) / 1000.0));
    writeln!(
        f,
        "  PCI {}; temperature {} (slowdown {}, shutdown {}); power {} of {}",
        reading(&g.pci_bus_id, String::clone),
        celsius(&g.temperature_c),
        celsius(&l.slowdown_temperature_c),
        celsius(&l.shutdown_temperature_c),
        watts(&g.power_mw),
        watts(&g.power_limit_mw),
    )?;
    writeln!(
        f,
        "  clock event reasons {}; PCIe {}; spare-row banks {}",
        reading(&l.clock_event_reasons, |b| format!("{b:#x}")),
        reading(&l.pcie, |p| format!(
            "Gen{} x{} (max Gen{} x{})",
            p.generation, p.width, p.max_generation, p.max_width
        )),
        reading(&l.row_remapper, |h| format!(
            "max {}, high {}, partial {}, low {}, none {}",
            h.max, h.high, h.partial, h.low, h.none
        )),
    )
}

/// The `nvidia-smi -q` lines to print next to the NVML readings, per GPU: the values this smoke
/// reads, by the names `nvidia-smi -q` gives them. Names differ by driver: older ones say
/// "Clocks Throttle Reasons" and "Power Draw", newer ones (R535 on) "Clocks Event Reasons" and
/// "Average Power Draw" / "Instantaneous Power Draw" (`power.draw.average` and
/// `power.draw.instant` in `--help-query-gpu`), and some boards give temperatures against the
/// T.Limit ("GPU Shutdown T.Limit Temp").
const SMI_KEYS: &[&str] = &[
    "Product Name",
    "GPU UUID",
    "GPU Current Temp",
    "GPU Shutdown Temp",
    "GPU Slowdown Temp",
    "GPU T.Limit Temp",
    "GPU Shutdown T.Limit Temp",
    "GPU Slowdown T.Limit Temp",
    "Power Draw",
    "Average Power Draw",
    "Instantaneous Power Draw",
    "Current Power Limit",
    "Enforced Power Limit",
    "PCIe Generation",
    "Link Width",
    "ECC Mode",
    "Clocks Event Reasons",
    "Clocks Throttle Reasons",
    "Remapped Rows",
];

/// Picks from `nvidia-smi -q` text, for each `GPU <bus id>` section, the lines of `SMI_KEYS`
/// (and the lines nested under them), each written `Parent / Key : value` so that `Current`
/// and `Max` say what they are. Indentation gives the nesting; a line without ` : ` is a header.
pub fn nvidia_smi_q_sections(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut stack: Vec<(usize, String)> = Vec::new();
    for line in text.lines() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim();
        if let Some(bus) = trimmed.strip_prefix("GPU ").filter(|_| indent == 0) {
            out.push((bus.trim().to_owned(), Vec::new()));
            stack.clear();
            continue;
        }
        let Some((_, lines)) = out.last_mut() else {
            continue;
        };
        while stack.last().is_some_and(|(i, _)| *i >= indent) {
            stack.pop();
        }
        let (key, value) = match trimmed.split_once(" : ") {
            Some((k, v)) => (k.trim(), Some(v.trim())),
            None => (trimmed.trim_end_matches(':').trim(), None),
        };
        let mut path: Vec<&str> = stack.iter().map(|(_, k)| k.as_str()).collect();
        path.push(key);
        match value {
            None => stack.push((indent, key.to_owned())),
            Some(v) if path.iter().any(|p| SMI_KEYS.contains(p)) => {
                lines.push(format!("{} : {v}", path.join(" / ")));
            }
            Some(_) => {}
        }
    }
    out
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
            write_limits(f, g)?;
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
