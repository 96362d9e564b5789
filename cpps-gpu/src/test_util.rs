//! Test support (feature `test-util`): the fake `libnvidia-ml.so.1`.
//!
//! The C source lives in `tests/fake-nvml/fake_nvml.c`; [`fake_nvml_library`] compiles it with
//! `gcc -shared -fPIC` once per variant (into the system temporary directory, under a name derived
//! from the source and flags, so concurrent test processes share it) and returns its path, to be
//! given to [`NvmlSource::open`](crate::nvml::NvmlSource::open).

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// The C source of the fake library.
pub const FAKE_NVML_SOURCE: &str = include_str!("../tests/fake-nvml/fake_nvml.c");

/// Which fake to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FakeNvml {
    /// Two RTX A5000; GPU 1 has a pending row remapping and one uncorrectable ECC error over its
    /// life (aggregate counter) but none since the driver loaded (volatile). Driver 550.54.15,
    /// CUDA 12.4. No XIDs.
    TwoA5000,
    /// As [`FakeNvml::TwoA5000`], and GPU 1 reports XID 79 then XID 13 through the event set.
    TwoA5000WithXids,
    /// NVML initializes but sees no GPU.
    NoDevice,
    /// `nvmlInit_v2` answers `NVML_ERROR_LIB_RM_VERSION_MISMATCH`.
    DriverMismatch,
    /// `nvmlInit_v2` answers this `nvmlReturn_t` (9 `DRIVER_NOT_LOADED`, 4 `NO_PERMISSION`).
    InitError(u32),
    /// `nvmlInit_v2` never returns.
    InitHangs,
    /// As [`FakeNvml::TwoA5000`], with ECC disabled on GPU 0 (its volatile counters answer
    /// `NOT_SUPPORTED`, its aggregate ones still answer).
    EccDisabledOnGpu0,
    /// As [`FakeNvml::TwoA5000`], with GPU 1's aggregate ECC counters answering `NOT_SUPPORTED`.
    AggregateEccUnsupportedOnGpu1,
    /// XID 48 on GPU 0; GPU 1 does not support XID events (its supported-event mask says so and
    /// registering answers `NOT_SUPPORTED`).
    XidOnGpu0EventsUnsupportedOnGpu1,
    /// XID 48 on GPU 0; GPU 1's mask claims XID events but registering it answers
    /// `NOT_SUPPORTED`.
    XidOnGpu0RegistrationFailsOnGpu1,
    /// XID 79 on GPU 1, whose first UUID read fails (transiently).
    XidWhileUuidFailsOnceOnGpu1,
    /// XIDs 92 then 154 on GPU 1, with `NVML_FI_DEV_GET_GPU_RECOVERY_ACTION` answering the given
    /// `nvmlDeviceGpuRecoveryAction_t` value.
    Xid92And154WithRecoveryAction(u32),
    /// XID 154 on GPU 1 with the recovery-action field not supported.
    Xid154WithoutRecoveryAction,
    /// `nvmlDeviceGetHandleByIndex_v2` on GPU 1 answers this `nvmlReturn_t` (8
    /// `INSUFFICIENT_POWER`, 11 `IRQ_ISSUE`, 4 `NO_PERMISSION`, 15 `GPU_IS_LOST`).
    HandleErrorOnGpu1(u32),
    /// XID 79 on GPU 1, then `nvmlEventSetWait_v2` answers `GPU_IS_LOST`, and GPU 1's UUID read
    /// answers `GPU_IS_LOST` from then on.
    LostDuringXidWait,
    /// The first event wait answers `TIMEOUT` at once (an interrupt), then XID 48 arrives on GPU 1.
    XidAfterEarlyTimeout,
    /// `nvmlEventSetCreate` answers `NOT_SUPPORTED`: the library has no event support.
    EventSetUnsupported,
    /// GPU 1's clock event (throttle) reasons are these `nvmlClocksEventReason*` bits.
    ClockEventReasonsOnGpu1(u64),
    /// GPU 1 is at this temperature (°C); both boards' slowdown threshold is 93 °C and their
    /// shutdown threshold 98 °C.
    TemperatureOnGpu1(u32),
    /// GPU 1 is at this temperature (°C) and NVML offers no temperature thresholds.
    TemperatureWithoutThresholdsOnGpu1(u32),
    /// GPU 1 draws this many milliwatts (its enforced limit is 230 W).
    PowerDrawOnGpu1(u32),
    /// GPU 1's PCIe link trained to this generation and width (both boards allow Gen4 x16), at
    /// this GPU utilization (%) and with these `nvmlClocksEventReason*` bits (0x1 is GPU idle).
    PcieLinkOnGpu1 {
        /// Current generation.
        generation: u32,
        /// Current width.
        width: u32,
        /// GPU utilization, percent.
        utilization: u32,
        /// Clock event reason bits.
        clock_reasons: u64,
    },
    /// This many of GPU 1's memory banks have no spare row left.
    RemapperBanksExhaustedOnGpu1(u32),
    /// As [`FakeNvml::ClockEventReasonsOnGpu1`], from a library that no longer exports the
    /// deprecated `nvmlDeviceGetCurrentClocksThrottleReasons`, only
    /// `nvmlDeviceGetCurrentClocksEventReasons`.
    ClockEventReasonsWithoutThrottleSymbolOnGpu1(u64),
}

impl FakeNvml {
    fn flags(self) -> Vec<String> {
        let flags: &[&str] = match self {
            Self::TwoA5000 => &[],
            Self::TwoA5000WithXids => &["-DFAKE_XIDS=79,13"],
            Self::NoDevice => &["-DFAKE_DEVICE_COUNT=0"],
            Self::DriverMismatch => &["-DFAKE_INIT_RESULT=18"],
            Self::InitError(code) => return vec![format!("-DFAKE_INIT_RESULT={code}")],
            Self::InitHangs => &["-DFAKE_INIT_HANG"],
            Self::EccDisabledOnGpu0 => &["-DFAKE_ECC_DISABLED_DEVICE=0"],
            Self::AggregateEccUnsupportedOnGpu1 => &["-DFAKE_AGGREGATE_UNSUPPORTED_DEVICE=1"],
            Self::XidOnGpu0EventsUnsupportedOnGpu1 => &[
                "-DFAKE_XIDS=48",
                "-DFAKE_XID_DEVICE=0",
                "-DFAKE_EVENTS_UNSUPPORTED_DEVICE=1",
            ],
            Self::XidOnGpu0RegistrationFailsOnGpu1 => &[
                "-DFAKE_XIDS=48",
                "-DFAKE_XID_DEVICE=0",
                "-DFAKE_EVENTS_UNSUPPORTED_DEVICE=1",
                "-DFAKE_EVENTS_MASK_CLAIMS",
            ],
            Self::XidWhileUuidFailsOnceOnGpu1 => {
                &["-DFAKE_XIDS=79", "-DFAKE_UUID_FAIL_ONCE_DEVICE=1"]
            }
            Self::Xid92And154WithRecoveryAction(action) => {
                return vec![
                    "-DFAKE_XIDS=92,154".to_owned(),
                    format!("-DFAKE_RECOVERY_ACTION={action}"),
                ];
            }
            Self::Xid154WithoutRecoveryAction => &["-DFAKE_XIDS=154"],
            Self::HandleErrorOnGpu1(code) => {
                return vec![
                    "-DFAKE_HANDLE_ERROR_DEVICE=1".to_owned(),
                    format!("-DFAKE_HANDLE_ERROR={code}"),
                ];
            }
            Self::LostDuringXidWait => &["-DFAKE_XIDS=79", "-DFAKE_WAIT_LOST"],
            Self::XidAfterEarlyTimeout => &["-DFAKE_XIDS=48", "-DFAKE_EARLY_TIMEOUTS=1"],
            Self::EventSetUnsupported => &["-DFAKE_EVENT_SET_UNSUPPORTED"],
            Self::ClockEventReasonsOnGpu1(bits) => {
                return vec![format!("-DFAKE_CLOCK_REASONS_GPU1={bits:#x}ULL")];
            }
            Self::TemperatureOnGpu1(c) => return vec![format!("-DFAKE_TEMPERATURE_GPU1={c}")],
            Self::TemperatureWithoutThresholdsOnGpu1(c) => {
                return vec![
                    format!("-DFAKE_TEMPERATURE_GPU1={c}"),
                    "-DFAKE_NO_THRESHOLDS".to_owned(),
                ];
            }
            Self::PowerDrawOnGpu1(mw) => return vec![format!("-DFAKE_POWER_MW_GPU1={mw}")],
            Self::PcieLinkOnGpu1 {
                generation,
                width,
                utilization,
                clock_reasons,
            } => {
                return vec![
                    format!("-DFAKE_PCIE_GEN_GPU1={generation}"),
                    format!("-DFAKE_PCIE_WIDTH_GPU1={width}"),
                    format!("-DFAKE_UTIL_GPU1={utilization}"),
                    format!("-DFAKE_CLOCK_REASONS_GPU1={clock_reasons:#x}ULL"),
                ];
            }
            Self::ClockEventReasonsWithoutThrottleSymbolOnGpu1(bits) => {
                return vec![
                    format!("-DFAKE_CLOCK_REASONS_GPU1={bits:#x}ULL"),
                    "-DFAKE_NO_THROTTLE_SYMBOL".to_owned(),
                ];
            }
            Self::RemapperBanksExhaustedOnGpu1(n) => {
                return vec![format!("-DFAKE_REMAPPER_NONE_GPU1={n}")];
            }
        };
        flags.iter().map(|f| (*f).to_owned()).collect()
    }
}

/// Why the fake library could not be built.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Writing the source or running gcc failed.
    #[error("cannot run gcc for the fake NVML library")]
    Io(#[from] std::io::Error),
    /// gcc reported errors.
    #[error("gcc failed on the fake NVML library: {0}")]
    Gcc(String),
}

/// Compiles (once) and returns the path of the fake NVML library for `variant`.
///
/// # Errors
/// When gcc is missing or fails.
pub fn fake_nvml_library(variant: FakeNvml) -> Result<PathBuf, BuildError> {
    static BUILT: OnceLock<Mutex<HashMap<FakeNvml, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(|| Mutex::new(HashMap::new()));
    let mut built = built
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(p) = built.get(&variant) {
        return Ok(p.clone());
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    FAKE_NVML_SOURCE.hash(&mut h);
    let flags = variant.flags();
    flags.hash(&mut h);
    let dir = std::env::temp_dir()
        .join("cpps-fake-nvml")
        .join(format!("{:016x}", h.finish()));
    let lib = dir.join("libnvidia-ml.so.1");
    if !lib.exists() {
        std::fs::create_dir_all(&dir)?;
        let src = dir.join(format!("fake_nvml.{}.c", std::process::id()));
        std::fs::write(&src, FAKE_NVML_SOURCE)?;
        let tmp = dir.join(format!("libnvidia-ml.so.1.{}", std::process::id()));
        let out = std::process::Command::new("gcc")
            .args(["-shared", "-fPIC", "-O1", "-Wall", "-o"])
            .arg(&tmp)
            .args(&flags)
            .arg(&src)
            .output()?;
        let _ = std::fs::remove_file(&src);
        if !out.status.success() {
            return Err(BuildError::Gcc(
                String::from_utf8_lossy(&out.stderr).into_owned(),
            ));
        }
        std::fs::rename(&tmp, &lib)?;
    }
    built.insert(variant, lib.clone());
    Ok(lib)
}
