//! Reading GPUs: the [`GpuSource`] trait, its NVML implementation [`NvmlSource`], and
//! [`FakeGpuSource`] for callers' tests.
//!
//! Every per-GPU value is a [`Reading`]: a value, "not supported" (the GPU or the library does
//! not offer it, e.g. MIG on an RTX A5000, or a function missing from an older library), or the
//! error of that one call. One missing value never fails the whole read.

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use nvml_wrapper::Nvml;
use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enum_wrappers::device::{EccCounter, MemoryError, TemperatureSensor};
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::enums::event::XidError;
use nvml_wrapper::error::NvmlError;
use serde::Serialize;

use crate::error::{Error, NvmlUnavailable};
use crate::xid::{self, RecoveryAction};

/// The library name NVML is loaded from by default (what the NVIDIA driver installs).
pub const DEFAULT_LIBRARY: &str = "libnvidia-ml.so.1";

/// One value read from NVML.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reading<T> {
    /// The value.
    Value(T),
    /// This GPU, driver or library does not offer it.
    NotSupported,
    /// The call failed.
    Failed {
        /// The error, as a short phrase.
        error: String,
    },
}

impl<T> Reading<T> {
    /// The value, if there is one.
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Value(v) => Some(v),
            _ => None,
        }
    }

    /// Maps the value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Reading<U> {
        match self {
            Self::Value(v) => Reading::Value(f(v)),
            Self::NotSupported => Reading::NotSupported,
            Self::Failed { error } => Reading::Failed { error },
        }
    }

    fn failed(error: &str) -> Self {
        Self::Failed {
            error: error.to_owned(),
        }
    }

    fn from_nvml(r: Result<T, NvmlError>, lost: &mut bool) -> Self {
        match r {
            Ok(v) => Self::Value(v),
            // A symbol the loaded library does not export: an older driver, or a fake.
            Err(NvmlError::NotSupported | NvmlError::FailedToLoadSymbol(_)) => Self::NotSupported,
            Err(NvmlError::FunctionNotFound) => Self::NotSupported,
            Err(e) => {
                if matches!(e, NvmlError::GpuLost) {
                    *lost = true;
                }
                Self::Failed {
                    error: e.to_string(),
                }
            }
        }
    }
}

/// A CUDA driver API version (`12040` → 12.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct CudaVersion {
    /// Major version.
    pub major: i32,
    /// Minor version.
    pub minor: i32,
}

impl CudaVersion {
    /// Decodes NVML's integer form (`1000 * major + 10 * minor`).
    pub fn from_nvml(v: i32) -> Self {
        Self {
            major: v / 1000,
            minor: (v % 1000) / 10,
        }
    }
}

impl std::fmt::Display for CudaVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Host-wide NVML facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostInfo {
    /// The NVIDIA driver version, e.g. `550.54.15`.
    pub driver_version: Reading<String>,
    /// The CUDA driver API version the driver supports.
    pub cuda_driver_version: Reading<CudaVersion>,
    /// The NVML library version.
    pub nvml_version: Reading<String>,
}

/// Frame-buffer memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Memory {
    /// Installed.
    pub total: u64,
    /// Allocated.
    pub used: u64,
    /// Unallocated.
    pub free: u64,
}

/// Utilization over the driver's last sample period, in percent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Utilization {
    /// Time one or more kernels ran.
    pub gpu_percent: u32,
    /// Time device memory was read or written.
    pub memory_percent: u32,
}

/// ECC mode (`nvmlDeviceGetEccMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EccMode {
    /// ECC is on now.
    pub current: bool,
    /// ECC will be on after the next reboot.
    pub pending: bool,
}

/// ECC: the mode and the four error counters, each read on its own, so that one counter the
/// board does not offer (or ECC switched off, which the RTX A5000 and A5500 allow) leaves the
/// others readable.
///
/// NVML API reference, `nvmlDeviceGetTotalEccErrors`: the *volatile* counter is "reset each time
/// the driver loads", the *aggregate* one "persists across reboots and driver loads" (it is the
/// board's lifetime count); `nvmlEccCounterType_t` in nvml.h.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Ecc {
    /// Whether ECC is on.
    pub mode: Reading<EccMode>,
    /// Corrected errors since the last driver load.
    pub volatile_corrected: Reading<u64>,
    /// Uncorrected errors since the last driver load.
    pub volatile_uncorrected: Reading<u64>,
    /// Corrected errors over the board's life.
    pub aggregate_corrected: Reading<u64>,
    /// Uncorrected errors over the board's life.
    pub aggregate_uncorrected: Reading<u64>,
}

impl Ecc {
    /// ECC on, every counter zero: for building fakes.
    pub fn enabled_and_clean() -> Self {
        Self {
            mode: Reading::Value(EccMode {
                current: true,
                pending: true,
            }),
            volatile_corrected: Reading::Value(0),
            volatile_uncorrected: Reading::Value(0),
            aggregate_corrected: Reading::Value(0),
            aggregate_uncorrected: Reading::Value(0),
        }
    }

    fn failed(error: &str) -> Self {
        Self {
            mode: Reading::failed(error),
            volatile_corrected: Reading::failed(error),
            volatile_uncorrected: Reading::failed(error),
            aggregate_corrected: Reading::failed(error),
            aggregate_uncorrected: Reading::failed(error),
        }
    }
}

/// Retired memory pages (pre-Ampere boards; Ampere and newer remap rows instead).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RetiredPages {
    /// Pages retired for multiple single-bit errors.
    pub single_bit: u32,
    /// Pages retired for a double-bit error.
    pub double_bit: u32,
    /// Pages waiting for a reboot to be retired.
    pub pending: bool,
}

/// The PCIe link: what it trained to and the most this GPU and slot allow
/// (`nvmlDeviceGetCurrPcieLinkGeneration`/`Width`, `nvmlDeviceGetMaxPcieLinkGeneration`/`Width`:
/// "the maximum ... possible with this device and system", go-nvml `gen/nvml/nvml.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct PcieLink {
    /// Current link generation.
    pub generation: u32,
    /// Highest generation this GPU and slot allow.
    pub max_generation: u32,
    /// Current link width (lanes).
    pub width: u32,
    /// Widest link this GPU and slot allow.
    pub max_width: u32,
}

/// Spare-row availability per memory bank (`nvmlRowRemapperHistogramValues_t`, nvml.h: "max"
/// counts the banks with all reserved rows available, "none" the banks with none left).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RowRemapperHistogram {
    /// Banks with every spare row available.
    pub max: u32,
    /// Banks with high availability.
    pub high: u32,
    /// Banks with partial availability.
    pub partial: u32,
    /// Banks with low availability.
    pub low: u32,
    /// Banks with no spare row left.
    pub none: u32,
}

/// What limits the GPU now: clock event (throttle) reasons, NVML's own temperature
/// thresholds, the PCIe link and the row remapper's spare rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Limits {
    /// `nvmlDeviceGetCurrentClocksEventReasons` (else the deprecated `…ThrottleReasons`) as
    /// sent: the `nvmlClocksEventReason*` bits of nvml.h, unknown bits kept.
    pub clock_event_reasons: Reading<u64>,
    /// `NVML_TEMPERATURE_THRESHOLD_SLOWDOWN`: where the GPU begins hardware slowdown (°C).
    pub slowdown_temperature_c: Reading<u32>,
    /// `NVML_TEMPERATURE_THRESHOLD_SHUTDOWN`: where it shuts down for protection (°C).
    pub shutdown_temperature_c: Reading<u32>,
    /// The PCIe link.
    pub pcie: Reading<PcieLink>,
    /// `nvmlDeviceGetRowRemapperHistogram`.
    pub row_remapper: Reading<RowRemapperHistogram>,
}

impl Limits {
    fn failed(error: &str) -> Self {
        Self {
            clock_event_reasons: Reading::failed(error),
            slowdown_temperature_c: Reading::failed(error),
            shutdown_temperature_c: Reading::failed(error),
            pcie: Reading::failed(error),
            row_remapper: Reading::failed(error),
        }
    }
}

/// Row remapping (Ampere and newer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RemappedRows {
    /// Rows remapped for correctable errors.
    pub correctable: u32,
    /// Rows remapped for uncorrectable errors.
    pub uncorrectable: u32,
    /// A remapping waits for a GPU reset.
    pub pending: bool,
    /// A remapping failed: the board has run out of spare rows.
    pub failure: bool,
}

/// MIG mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MigMode {
    /// MIG is on now.
    pub current: bool,
    /// MIG will be on after the next reset.
    pub pending: bool,
}

/// A process holding a compute context on a GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GpuProcess {
    /// Host process id.
    pub pid: u32,
    /// GPU memory the process uses, when the driver can tell.
    pub used_memory: Option<u64>,
}

/// Why NVML could not open a GPU: the answer of `nvmlDeviceGetHandleByIndex_v2`, whose documented
/// failures (go-nvml `gen/nvml/nvml.h`) each say something about the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum OpenError {
    /// `NVML_ERROR_INSUFFICIENT_POWER`: "any attached devices have improperly attached external
    /// power cables".
    InsufficientPower,
    /// `NVML_ERROR_IRQ_ISSUE`: "NVIDIA kernel detected an interrupt issue with the attached GPUs".
    IrqIssue,
    /// `NVML_ERROR_NO_PERMISSION`: "the user doesn't have permission to talk to this device".
    NoPermission,
    /// `NVML_ERROR_GPU_IS_LOST`: "the target GPU has fallen off the bus or is otherwise
    /// inaccessible".
    Lost,
    /// Any other answer, as NVML worded it.
    Other(String),
}

impl OpenError {
    fn from_nvml(e: &NvmlError) -> Self {
        match e {
            NvmlError::InsufficientPower => Self::InsufficientPower,
            NvmlError::IrqIssue => Self::IrqIssue,
            NvmlError::NoPermission => Self::NoPermission,
            NvmlError::GpuLost => Self::Lost,
            other => Self::Other(other.to_string()),
        }
    }
}

/// Everything read about one GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GpuSnapshot {
    /// NVML index.
    pub index: u32,
    /// UUID, e.g. `GPU-3f8a2c1e-…`.
    pub uuid: Reading<String>,
    /// Product name, e.g. `NVIDIA RTX A5000`.
    pub name: Reading<String>,
    /// PCI bus id, e.g. `00000000:01:00.0`.
    pub pci_bus_id: Reading<String>,
    /// Frame-buffer memory.
    pub memory: Reading<Memory>,
    /// Utilization.
    pub utilization: Reading<Utilization>,
    /// Core temperature in °C.
    pub temperature_c: Reading<u32>,
    /// Power draw in milliwatts.
    pub power_mw: Reading<u32>,
    /// Enforced power limit in milliwatts.
    pub power_limit_mw: Reading<u32>,
    /// ECC mode and counters.
    pub ecc: Ecc,
    /// Retired pages.
    pub retired_pages: Reading<RetiredPages>,
    /// Remapped rows.
    pub remapped_rows: Reading<RemappedRows>,
    /// Throttling, thresholds, PCIe link and spare rows.
    pub limits: Limits,
    /// MIG mode.
    pub mig_mode: Reading<MigMode>,
    /// Compute processes.
    pub processes: Reading<Vec<GpuProcess>>,
    /// The recovery action the driver asks for now (`NVML_FI_DEV_GET_GPU_RECOVERY_ACTION`):
    /// the GPU's current state, which supersedes its XID history since boot.
    pub recovery_action: Reading<RecoveryAction>,
    /// Some call answered `NVML_ERROR_GPU_IS_LOST`.
    pub lost: bool,
    /// NVML could not open the GPU at all; every reading is then `Failed` with this reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unopened: Option<OpenError>,
}

impl GpuSnapshot {
    /// A label for messages: the UUID, or `GPU <index>`.
    pub fn label(&self) -> String {
        match self.uuid.value() {
            Some(u) => format!("GPU {} ({u})", self.index),
            None => format!("GPU {}", self.index),
        }
    }
}

/// An XID event seen on a GPU.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct XidEvent {
    /// NVML index of the GPU, when it could be read.
    pub gpu_index: Option<u32>,
    /// UUID of the GPU, when it could be read.
    pub gpu_uuid: Option<String>,
    /// The XID code (999 when the driver reports an unknown XID).
    pub xid: u64,
    /// For XID 154: the recovery action the driver asks for, read as the field
    /// `NVML_FI_DEV_GET_GPU_RECOVERY_ACTION` when the event arrived (`None` when unreadable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_action: Option<RecoveryAction>,
}

impl XidEvent {
    /// An event without payload.
    pub fn new(gpu_index: Option<u32>, gpu_uuid: Option<&str>, xid: u64) -> Self {
        Self {
            gpu_index,
            gpu_uuid: gpu_uuid.map(str::to_owned),
            xid,
            recovery_action: None,
        }
    }

    /// The GPU of `gpus` this event belongs to, by the one matching rule every verdict uses:
    /// the GPU with the event's UUID; else, when the event's or that GPU's UUID is unknown, the
    /// GPU with the event's index; else none (the event becomes a host finding).
    pub fn owner<'a>(&self, gpus: &'a [GpuSnapshot]) -> Option<&'a GpuSnapshot> {
        if let Some(uuid) = &self.gpu_uuid
            && let Some(g) = gpus.iter().find(|g| g.uuid.value() == Some(uuid))
        {
            return Some(g);
        }
        let index = self.gpu_index?;
        gpus.iter()
            .find(|g| g.index == index)
            .filter(|g| self.gpu_uuid.is_none() || g.uuid.value().is_none())
    }
}

/// A GPU whose XID events are not watched, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unwatched {
    /// NVML index.
    pub gpu_index: u32,
    /// Why (NVML's answer).
    pub reason: String,
}

/// What listening for XIDs gave.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct XidWatch {
    /// The events, in arrival order.
    pub events: Vec<XidEvent>,
    /// GPUs that could not be registered for XID events.
    pub unwatched: Vec<Unwatched>,
}

/// The whole host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HostSnapshot {
    /// Host-wide facts.
    pub host: HostInfo,
    /// The GPUs, by index.
    pub gpus: Vec<GpuSnapshot>,
    /// XID events seen while listening.
    pub xids: Vec<XidEvent>,
    /// GPUs whose XID events could not be watched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub xid_unwatched: Vec<Unwatched>,
}

/// Where GPU readings come from: NVML, or a fake in tests.
pub trait GpuSource {
    /// Driver, CUDA and NVML versions.
    fn host(&self) -> Result<HostInfo, Error>;
    /// Every GPU, by index.
    fn gpus(&self) -> Result<Vec<GpuSnapshot>, Error>;
    /// Critical XID events that arrive within `wait` (at most `max` of them), and the GPUs that
    /// could not be watched.
    fn xid_events(&self, wait: Duration, max: usize) -> Result<XidWatch, Error>;
}

/// Reads everything from a source: host facts, GPUs, then XIDs for up to `xid_wait`.
pub fn snapshot(source: &dyn GpuSource, xid_wait: Duration) -> Result<HostSnapshot, Error> {
    let host = source.host()?;
    let gpus = source.gpus()?;
    let watch = source.xid_events(xid_wait, 256)?;
    Ok(HostSnapshot {
        host,
        gpus,
        xids: watch.events,
        xid_unwatched: watch.unwatched,
    })
}

/// GPUs read through NVML (`nvml-wrapper`).
pub struct NvmlSource {
    nvml: Nvml,
    count: u32,
}

impl std::fmt::Debug for NvmlSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NvmlSource")
            .field("count", &self.count)
            .finish_non_exhaustive()
    }
}

fn unavailable(library: &str, e: NvmlError) -> Error {
    let reason = match e {
        NvmlError::LibloadingError(l) => NvmlUnavailable::LibraryMissing {
            library: library.to_owned(),
            detail: l.to_string(),
        },
        NvmlError::FailedToLoadSymbol(s) => NvmlUnavailable::LibraryMissing {
            library: library.to_owned(),
            detail: s,
        },
        NvmlError::DriverNotLoaded => NvmlUnavailable::DriverNotLoaded,
        NvmlError::LibRmVersionMismatch => NvmlUnavailable::DriverMismatch,
        NvmlError::NoPermission => NvmlUnavailable::NoPermission,
        NvmlError::NotFound | NvmlError::LibraryNotFound => NvmlUnavailable::LibraryMissing {
            library: library.to_owned(),
            detail: e.to_string(),
        },
        other => {
            return Error::Nvml {
                call: "nvmlInit_v2",
                source: other,
            };
        }
    };
    Error::NvmlUnavailable(reason)
}

impl NvmlSource {
    /// Loads NVML from `library` (default [`DEFAULT_LIBRARY`]) and initializes it.
    ///
    /// # Errors
    /// [`Error::NvmlUnavailable`] when the library is missing, the driver is not loaded or does
    /// not match the library, or there is no GPU; [`Error::Nvml`] for other init failures.
    pub fn open(library: Option<&OsStr>) -> Result<Self, Error> {
        let name = library.unwrap_or(OsStr::new(DEFAULT_LIBRARY));
        let label = name.to_string_lossy().into_owned();
        let nvml = Nvml::builder()
            .lib_path(name)
            .init()
            .map_err(|e| unavailable(&label, e))?;
        let count = nvml.device_count().map_err(|e| match e {
            NvmlError::DriverNotLoaded
            | NvmlError::LibRmVersionMismatch
            | NvmlError::NoPermission => unavailable(&label, e),
            other => Error::Nvml {
                call: "nvmlDeviceGetCount_v2",
                source: other,
            },
        })?;
        if count == 0 {
            return Err(NvmlUnavailable::NoDevice.into());
        }
        Ok(Self { nvml, count })
    }

    /// The number of GPUs NVML sees.
    pub fn device_count(&self) -> u32 {
        self.count
    }

    /// One GPU's snapshot; a GPU NVML cannot open still gets one, its open error in every
    /// reading.
    fn read_gpu(&self, index: u32) -> GpuSnapshot {
        match self.nvml.device_by_index(index) {
            Ok(device) => read_opened_gpu(&self.nvml, &device, index),
            Err(e) => unopened_gpu(index, &e),
        }
    }
}

/// The snapshot of a GPU NVML could not open: every reading carries the open error.
fn unopened_gpu(index: u32, e: &NvmlError) -> GpuSnapshot {
    let msg = e.to_string();
    GpuSnapshot {
        index,
        uuid: Reading::failed(&msg),
        name: Reading::failed(&msg),
        pci_bus_id: Reading::failed(&msg),
        memory: Reading::failed(&msg),
        utilization: Reading::failed(&msg),
        temperature_c: Reading::failed(&msg),
        power_mw: Reading::failed(&msg),
        power_limit_mw: Reading::failed(&msg),
        ecc: Ecc::failed(&msg),
        retired_pages: Reading::failed(&msg),
        remapped_rows: Reading::failed(&msg),
        limits: Limits::failed(&msg),
        mig_mode: Reading::failed(&msg),
        processes: Reading::failed(&msg),
        recovery_action: Reading::failed(&msg),
        lost: matches!(e, NvmlError::GpuLost),
        unopened: Some(OpenError::from_nvml(e)),
    }
}

/// The snapshot of an opened GPU, each value read on its own; `lost` is set when any call
/// answers `GPU_IS_LOST`.
fn read_opened_gpu(nvml: &Nvml, device: &nvml_wrapper::Device<'_>, index: u32) -> GpuSnapshot {
    let mut lost = false;
    let l = &mut lost;
    let uuid = Reading::from_nvml(device.uuid(), l);
    let name = Reading::from_nvml(device.name(), l);
    let pci_bus_id = Reading::from_nvml(device.pci_info().map(|p| p.bus_id), l);
    let memory = Reading::from_nvml(
        device.memory_info().map(|m| Memory {
            total: m.total,
            used: m.used,
            free: m.free,
        }),
        l,
    );
    let utilization = Reading::from_nvml(
        device.utilization_rates().map(|u| Utilization {
            gpu_percent: u.gpu,
            memory_percent: u.memory,
        }),
        l,
    );
    let temperature_c = Reading::from_nvml(device.temperature(TemperatureSensor::Gpu), l);
    let power_mw = Reading::from_nvml(device.power_usage(), l);
    let power_limit_mw = Reading::from_nvml(device.enforced_power_limit(), l);
    let ecc = read_ecc(device, l);
    let retired_pages = Reading::from_nvml(retired_pages(device), l);
    let remapped_rows = Reading::from_nvml(remapped_rows(nvml, device), l);
    let limits = read_limits(nvml, device, l);
    let mig_mode = Reading::from_nvml(
        device.mig_mode().map(|m| MigMode {
            current: m.current == 1,
            pending: m.pending == 1,
        }),
        l,
    );
    let processes = Reading::from_nvml(compute_processes(device), l);
    let recovery_action = read_recovery_action(device, l);
    GpuSnapshot {
        index,
        uuid,
        name,
        pci_bus_id,
        memory,
        utilization,
        temperature_c,
        power_mw,
        power_limit_mw,
        ecc,
        retired_pages,
        remapped_rows,
        limits,
        mig_mode,
        processes,
        recovery_action,
        lost,
        unopened: None,
    }
}

/// The [`Ecc`] mode and the four error counters of one GPU, each read on its own.
fn read_ecc(device: &nvml_wrapper::Device<'_>, l: &mut bool) -> Ecc {
    Ecc {
        mode: Reading::from_nvml(
            device.is_ecc_enabled().map(|m| EccMode {
                current: m.currently_enabled,
                pending: m.pending_enabled,
            }),
            l,
        ),
        volatile_corrected: Reading::from_nvml(
            device.total_ecc_errors(MemoryError::Corrected, EccCounter::Volatile),
            l,
        ),
        volatile_uncorrected: Reading::from_nvml(
            device.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Volatile),
            l,
        ),
        aggregate_corrected: Reading::from_nvml(
            device.total_ecc_errors(MemoryError::Corrected, EccCounter::Aggregate),
            l,
        ),
        aggregate_uncorrected: Reading::from_nvml(
            device.total_ecc_errors(MemoryError::Uncorrected, EccCounter::Aggregate),
            l,
        ),
    }
}

/// The retired-page counts of one GPU (one reading: any failing call fails it).
fn retired_pages(device: &nvml_wrapper::Device<'_>) -> Result<RetiredPages, NvmlError> {
    use nvml_wrapper::enum_wrappers::device::RetirementCause;
    Ok(RetiredPages {
        single_bit: device
            .retired_pages(RetirementCause::MultipleSingleBitEccErrors)?
            .len() as u32,
        double_bit: device
            .retired_pages(RetirementCause::DoubleBitEccError)?
            .len() as u32,
        pending: device.are_pages_pending_retired()?,
    })
}

/// The compute processes running on one GPU, with their memory where the driver tells it.
fn compute_processes(device: &nvml_wrapper::Device<'_>) -> Result<Vec<GpuProcess>, NvmlError> {
    device.running_compute_processes().map(|ps| {
        ps.into_iter()
            .map(|p| GpuProcess {
                pid: p.pid,
                used_memory: match p.used_gpu_memory {
                    UsedGpuMemory::Used(b) => Some(b),
                    UsedGpuMemory::Unavailable => None,
                },
            })
            .collect()
    })
}

/// `nvmlDeviceGetRemappedRows`, which nvml-wrapper 0.13 does not wrap: called through the
/// library's own symbol table.
// SAFETY: the symbol comes from the `NvmlLib` that nvml-wrapper loaded and keeps alive as long
// as `nvml` (borrowed here); `device.handle()` is a live handle from that same library (the
// `Device` borrows `nvml`); the four out-pointers are to local `c_uint`s, matching the nvml.h
// signature `nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned int *corrRows,
// unsigned int *uncRows, unsigned int *isPending, unsigned int *failureOccurred)`.
#[allow(unsafe_code)]
fn remapped_rows(
    nvml: &Nvml,
    device: &nvml_wrapper::Device<'_>,
) -> Result<RemappedRows, NvmlError> {
    let sym = nvml_wrapper::error::nvml_sym(nvml.lib().nvmlDeviceGetRemappedRows.as_ref())?;
    let (mut corr, mut unc, mut pending, mut failure) = (0, 0, 0, 0);
    let rc = unsafe {
        sym(
            device.handle(),
            &mut corr,
            &mut unc,
            &mut pending,
            &mut failure,
        )
    };
    nvml_wrapper::error::nvml_try(rc)?;
    Ok(RemappedRows {
        correctable: corr,
        uncorrectable: unc,
        pending: pending != 0,
        failure: failure != 0,
    })
}

/// The [`Limits`] of one GPU, each value read on its own.
fn read_limits(nvml: &Nvml, device: &nvml_wrapper::Device<'_>, l: &mut bool) -> Limits {
    use nvml_wrapper::enum_wrappers::device::TemperatureThreshold;
    // The current symbol first (audit S-f): nvml.h marks the throttle one DEPRECATED(13.0).
    // nvml-wrapper 0.13 `current_throttle_reasons` truncates unknown bits; the raw value is
    // rebuilt from the strict call's `IncorrectBits` so that a bit added by a newer driver is
    // kept and reported. An older library without the event symbol falls back to it.
    let reasons = match clock_event_reasons(nvml, device) {
        Err(NvmlError::FailedToLoadSymbol(_)) => match device.current_throttle_reasons_strict() {
            Ok(r) => Ok(r.bits()),
            Err(NvmlError::IncorrectBits(nvml_wrapper::error::Bits::U64(bits))) => Ok(bits),
            Err(e) => Err(e),
        },
        other => other,
    };
    let pcie = (|| {
        Ok(PcieLink {
            generation: device.current_pcie_link_gen()?,
            max_generation: device.max_pcie_link_gen()?,
            width: device.current_pcie_link_width()?,
            max_width: device.max_pcie_link_width()?,
        })
    })();
    Limits {
        clock_event_reasons: Reading::from_nvml(reasons, l),
        slowdown_temperature_c: Reading::from_nvml(
            device.temperature_threshold(TemperatureThreshold::Slowdown),
            l,
        ),
        shutdown_temperature_c: Reading::from_nvml(
            device.temperature_threshold(TemperatureThreshold::Shutdown),
            l,
        ),
        pcie: Reading::from_nvml(pcie, l),
        row_remapper: Reading::from_nvml(row_remapper_histogram(nvml, device), l),
    }
}

/// `nvmlDeviceGetCurrentClocksEventReasons` (R535 and later), which nvml-wrapper 0.13 does not
/// wrap (it calls the deprecated `nvmlDeviceGetCurrentClocksThrottleReasons`, same bits):
/// called through the library's own symbol table; the raw bits, unknown ones kept.
// SAFETY: as for `remapped_rows`: the symbol and the handle come from the same live `Nvml`;
// the out-pointer is to a local `unsigned long long`, as nvml.h's signature
// `nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t, unsigned long long *)`.
#[allow(unsafe_code)]
fn clock_event_reasons(nvml: &Nvml, device: &nvml_wrapper::Device<'_>) -> Result<u64, NvmlError> {
    let sym =
        nvml_wrapper::error::nvml_sym(nvml.lib().nvmlDeviceGetCurrentClocksEventReasons.as_ref())?;
    let mut reasons: std::ffi::c_ulonglong = 0;
    let rc = unsafe { sym(device.handle(), &raw mut reasons) };
    nvml_wrapper::error::nvml_try(rc)?;
    Ok(reasons)
}

/// `nvmlDeviceGetRowRemapperHistogram`, which nvml-wrapper 0.13 does not wrap: called through
/// the library's own symbol table.
// SAFETY: as for `remapped_rows`: the symbol and the handle come from the same live `Nvml`;
// the out-pointer is to a local `#[repr(C)]` copy of the struct nvml.h's signature
// `nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t,
// nvmlRowRemapperHistogramValues_t *values)` takes (five `unsigned int`s).
#[allow(unsafe_code)]
fn row_remapper_histogram(
    nvml: &Nvml,
    device: &nvml_wrapper::Device<'_>,
) -> Result<RowRemapperHistogram, NvmlError> {
    let sym = nvml_wrapper::error::nvml_sym(nvml.lib().nvmlDeviceGetRowRemapperHistogram.as_ref())?;
    // nvml.h's struct, five `unsigned int`s in this order (nvml-wrapper does not re-export
    // nvml-wrapper-sys's copy of it).
    #[repr(C)]
    struct Values {
        max: std::ffi::c_uint,
        high: std::ffi::c_uint,
        partial: std::ffi::c_uint,
        low: std::ffi::c_uint,
        none: std::ffi::c_uint,
    }
    let mut v = Values {
        max: 0,
        high: 0,
        partial: 0,
        low: 0,
        none: 0,
    };
    let rc = unsafe { sym(device.handle(), (&raw mut v).cast()) };
    nvml_wrapper::error::nvml_try(rc)?;
    Ok(RowRemapperHistogram {
        max: v.max,
        high: v.high,
        partial: v.partial,
        low: v.low,
        none: v.none,
    })
}

impl GpuSource for NvmlSource {
    fn host(&self) -> Result<HostInfo, Error> {
        let mut lost = false;
        Ok(HostInfo {
            driver_version: Reading::from_nvml(self.nvml.sys_driver_version(), &mut lost),
            cuda_driver_version: Reading::from_nvml(
                self.nvml
                    .sys_cuda_driver_version()
                    .map(CudaVersion::from_nvml),
                &mut lost,
            ),
            nvml_version: Reading::from_nvml(self.nvml.sys_nvml_version(), &mut lost),
        })
    }

    fn gpus(&self) -> Result<Vec<GpuSnapshot>, Error> {
        Ok((0..self.count).map(|i| self.read_gpu(i)).collect())
    }

    fn xid_events(&self, wait: Duration, max: usize) -> Result<XidWatch, Error> {
        let (set, unwatched) = match self.xid_event_set()? {
            Some(x) => x,
            // No event set: no GPU is registered, so none is watched.
            None => {
                let unwatched = (0..self.count)
                    .map(|gpu_index| Unwatched {
                        gpu_index,
                        reason: "this NVML library has no XID event support (nvmlEventSetCreate)"
                            .to_owned(),
                    })
                    .collect();
                return Ok(XidWatch {
                    events: vec![],
                    unwatched,
                });
            }
        };
        let Some(set) = set else {
            return Ok(XidWatch {
                events: vec![],
                unwatched,
            });
        };
        let deadline = Instant::now() + wait;
        let mut events = Vec::new();
        while events.len() < max {
            let left = deadline.saturating_duration_since(Instant::now());
            let ms = u32::try_from(left.as_millis()).unwrap_or(u32::MAX);
            match set.wait(ms) {
                Ok(data) => {
                    let Some(xid) = data.event_data else { continue };
                    let xid = match xid {
                        XidError::Value(v) => v,
                        XidError::Unknown => 999,
                    };
                    events.push(XidEvent {
                        gpu_index: data.device.index().ok(),
                        gpu_uuid: data.device.uuid().ok(),
                        xid,
                        recovery_action: if xid == 154 {
                            recovery_action(&data.device)
                        } else {
                            None
                        },
                    });
                }
                // nvml.h, nvmlEventSetWait_v2: TIMEOUT also when "interrupt arrived", before the
                // timeout passed; the window goes on until its deadline.
                Err(NvmlError::Timeout) => {}
                // nvml.h: GPU_IS_LOST "if a GPU has fallen off the bus". The GPU's failure, not
                // the read's: reported as an event, and the wait ends (the set stays lost).
                Err(NvmlError::GpuLost) => {
                    events.push(XidEvent::new(self.lost_gpu(), None, xid::GPU_LOST));
                    break;
                }
                Err(source) => {
                    return Err(Error::Nvml {
                        call: "nvmlEventSetWait_v2",
                        source,
                    });
                }
            }
            if left.is_zero() {
                break;
            }
        }
        Ok(XidWatch { events, unwatched })
    }
}

/// `NVML_FI_DEV_GET_GPU_RECOVERY_ACTION` (nvml.h), not translated by nvml-wrapper's field-id
/// schemes (they remap 251..=273 only).
const FI_DEV_GET_GPU_RECOVERY_ACTION: u32 = 230;

/// The recovery action the GPU asks for now, through `nvmlDeviceGetFieldValues`.
fn recovery_action(device: &nvml_wrapper::Device<'_>) -> Option<RecoveryAction> {
    read_recovery_action(device, &mut false).value().copied()
}

/// [`recovery_action`] as a reading: a driver without field 230 answers `NOT_SUPPORTED` in
/// the field's own status.
fn read_recovery_action(
    device: &nvml_wrapper::Device<'_>,
    lost: &mut bool,
) -> Reading<RecoveryAction> {
    use nvml_wrapper::enums::device::SampleValue;
    use nvml_wrapper::structs::device::FieldId;
    let values = match device.field_values_for(&[FieldId(FI_DEV_GET_GPU_RECOVERY_ACTION)]) {
        Ok(v) => v,
        Err(e) => return Reading::from_nvml(Err(e), lost),
    };
    let Some(first) = values.into_iter().next() else {
        return Reading::failed("no field value returned");
    };
    let value = match first.and_then(|f| f.value) {
        Ok(v) => v,
        Err(e) => return Reading::from_nvml(Err(e), lost),
    };
    match value {
        SampleValue::U32(v) => Reading::Value(RecoveryAction::from_nvml(v)),
        SampleValue::U64(v) => u32::try_from(v).map(RecoveryAction::from_nvml).map_or_else(
            |_| Reading::failed("recovery action out of range"),
            Reading::Value,
        ),
        _ => Reading::failed("recovery action of an unexpected type"),
    }
}

impl NvmlSource {
    /// The first GPU whose UUID read answers `GPU_IS_LOST`: the one an event wait's
    /// `GPU_IS_LOST` was about, as far as NVML can tell.
    fn lost_gpu(&self) -> Option<u32> {
        (0..self.count).find(|&i| {
            matches!(
                self.nvml.device_by_index(i).and_then(|d| d.uuid()),
                Err(NvmlError::GpuLost)
            )
        })
    }
}

/// The event set and the GPUs left out of it.
type XidSet<'a> = (Option<nvml_wrapper::event::EventSet<'a>>, Vec<Unwatched>);

impl NvmlSource {
    /// Registers every GPU that supports them for critical-XID events in one set.
    ///
    /// NVML API reference, `nvmlDeviceRegisterEvents`: "If function reports
    /// NVML_ERROR_NOT_SUPPORTED, event set can still be used. None of the requested eventTypes are
    /// registered in that case." nvml-wrapper 0.13 (`Device::register_events`) frees the set on
    /// every failed registration instead, so (1) a GPU whose `nvmlDeviceGetSupportedEventTypes`
    /// mask lacks XID events is not registered at all, and (2) when a registration fails anyway
    /// the set is rebuilt with the GPUs registered so far. Either way the GPU is reported as
    /// unwatched. `None` when the library has no event support at all.
    fn xid_event_set(&self) -> Result<Option<XidSet<'_>>, Error> {
        let create = || match self.nvml.create_event_set() {
            Ok(s) => Ok(Some(s)),
            Err(NvmlError::NotSupported | NvmlError::FailedToLoadSymbol(_)) => Ok(None),
            Err(source) => Err(Error::Nvml {
                call: "nvmlEventSetCreate",
                source,
            }),
        };
        let Some(mut set) = create()? else {
            return Ok(None);
        };
        let mut watched: Vec<u32> = Vec::new();
        let mut unwatched = Vec::new();
        for i in 0..self.count {
            let device = match self.nvml.device_by_index(i) {
                Ok(d) => d,
                Err(e) => {
                    unwatched.push(Unwatched {
                        gpu_index: i,
                        reason: e.to_string(),
                    });
                    continue;
                }
            };
            match device.supported_event_types() {
                Ok(types) if !types.contains(EventTypes::CRITICAL_XID_ERROR) => {
                    unwatched.push(Unwatched {
                        gpu_index: i,
                        reason: "the GPU does not support XID events".to_owned(),
                    });
                    continue;
                }
                // No mask to go by: try to register.
                Ok(_) | Err(_) => {}
            }
            match device.register_events(EventTypes::CRITICAL_XID_ERROR, set) {
                Ok(s) => {
                    set = s;
                    watched.push(i);
                }
                Err(e) => {
                    tracing::debug!(gpu = i, error = %e.error, "XID events not available");
                    unwatched.push(Unwatched {
                        gpu_index: i,
                        reason: e.error.to_string(),
                    });
                    match self.rebuild_event_set(&mut watched, &mut unwatched, &create)? {
                        Some(s) => set = s,
                        None => return Ok(Some((None, unwatched))),
                    }
                }
            }
        }
        if watched.is_empty() {
            return Ok(Some((None, unwatched)));
        }
        Ok(Some((Some(set), unwatched)))
    }

    /// A new set holding the GPUs of `watched`; one that fails now moves to `unwatched`.
    fn rebuild_event_set<'a>(
        &'a self,
        watched: &mut Vec<u32>,
        unwatched: &mut Vec<Unwatched>,
        create: &dyn Fn() -> Result<Option<nvml_wrapper::event::EventSet<'a>>, Error>,
    ) -> Result<Option<nvml_wrapper::event::EventSet<'a>>, Error> {
        'again: loop {
            let Some(mut set) = create()? else {
                return Ok(None);
            };
            for (k, &i) in watched.iter().enumerate() {
                let registered = self
                    .nvml
                    .device_by_index(i)
                    .map_err(|e| e.to_string())
                    .and_then(|d| {
                        d.register_events(EventTypes::CRITICAL_XID_ERROR, set)
                            .map_err(|e| e.error.to_string())
                    });
                match registered {
                    Ok(s) => set = s,
                    Err(reason) => {
                        unwatched.push(Unwatched {
                            gpu_index: i,
                            reason,
                        });
                        watched.remove(k);
                        continue 'again;
                    }
                }
            }
            return Ok(Some(set));
        }
    }
}

/// A [`GpuSource`] that returns what it was given: for callers' tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FakeGpuSource {
    /// What [`GpuSource::host`] returns.
    pub host: HostInfo,
    /// What [`GpuSource::gpus`] returns.
    pub gpus: Vec<GpuSnapshot>,
    /// What [`GpuSource::xid_events`] returns (cut to `max`).
    pub xids: Vec<XidEvent>,
}

impl FakeGpuSource {
    /// A healthy GPU with the given index and UUID, for building fakes.
    pub fn healthy_gpu(index: u32, uuid: &str) -> GpuSnapshot {
        GpuSnapshot {
            index,
            uuid: Reading::Value(uuid.to_owned()),
            name: Reading::Value("NVIDIA RTX A5000".to_owned()),
            pci_bus_id: Reading::Value(format!("00000000:{:02x}:00.0", index + 1)),
            memory: Reading::Value(Memory {
                total: 24_564 << 20,
                used: 0,
                free: 24_564 << 20,
            }),
            utilization: Reading::Value(Utilization {
                gpu_percent: 0,
                memory_percent: 0,
            }),
            temperature_c: Reading::Value(40),
            power_mw: Reading::Value(60_000),
            power_limit_mw: Reading::Value(230_000),
            ecc: Ecc::enabled_and_clean(),
            retired_pages: Reading::NotSupported,
            remapped_rows: Reading::Value(RemappedRows {
                correctable: 0,
                uncorrectable: 0,
                pending: false,
                failure: false,
            }),
            recovery_action: Reading::NotSupported,
            limits: Limits {
                clock_event_reasons: Reading::Value(0),
                slowdown_temperature_c: Reading::Value(93),
                shutdown_temperature_c: Reading::Value(98),
                pcie: Reading::Value(PcieLink {
                    generation: 4,
                    max_generation: 4,
                    width: 16,
                    max_width: 16,
                }),
                row_remapper: Reading::Value(RowRemapperHistogram {
                    max: 64,
                    high: 0,
                    partial: 0,
                    low: 0,
                    none: 0,
                }),
            },
            mig_mode: Reading::NotSupported,
            processes: Reading::Value(vec![]),
            lost: false,
            unopened: None,
        }
    }
}

impl GpuSource for FakeGpuSource {
    fn host(&self) -> Result<HostInfo, Error> {
        Ok(self.host.clone())
    }

    fn gpus(&self) -> Result<Vec<GpuSnapshot>, Error> {
        Ok(self.gpus.clone())
    }

    fn xid_events(&self, _wait: Duration, max: usize) -> Result<XidWatch, Error> {
        Ok(XidWatch {
            events: self.xids.iter().take(max).cloned().collect(),
            unwatched: vec![],
        })
    }
}
