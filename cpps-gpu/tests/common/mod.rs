//! Shared test setup: the fake NVML library and the real kube-apiserver.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

pub use cpps_gpu::test_util::FakeNvml;

/// The compiled fake `libnvidia-ml.so.1` for `variant`.
pub fn fake_nvml(variant: FakeNvml) -> PathBuf {
    cpps_gpu::test_util::fake_nvml_library(variant).expect("gcc builds the fake NVML library")
}
