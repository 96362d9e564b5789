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
    /// Two RTX A5000; GPU 1 has a pending row remapping. Driver 550.54.15, CUDA 12.4. No XIDs.
    TwoA5000,
    /// As [`FakeNvml::TwoA5000`], and GPU 1 reports XID 79 then XID 13 through the event set.
    TwoA5000WithXids,
    /// NVML initializes but sees no GPU.
    NoDevice,
    /// `nvmlInit_v2` answers `NVML_ERROR_LIB_RM_VERSION_MISMATCH`.
    DriverMismatch,
}

impl FakeNvml {
    fn flags(self) -> &'static [&'static str] {
        match self {
            Self::TwoA5000 => &[],
            Self::TwoA5000WithXids => &["-DFAKE_XIDS=79,13"],
            Self::NoDevice => &["-DFAKE_DEVICE_COUNT=0"],
            Self::DriverMismatch => &["-DFAKE_INIT_RESULT=18"],
        }
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
    variant.flags().hash(&mut h);
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
            .args(variant.flags())
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
