//! The real nvml-wrapper code path against the fake `libnvidia-ml.so.1` (tests/fake-nvml).

mod common;

use std::time::Duration;

use common::{FakeNvml, fake_nvml};
use cpps_gpu::health::{HealthPolicy, Severity, host_verdict};
use cpps_gpu::nvml::{
    CudaVersion, EccCounts, GpuProcess, GpuSource, Memory, NvmlSource, Reading, RemappedRows,
    Utilization, snapshot,
};
use cpps_gpu::{Error, NvmlUnavailable};

const A5000_TOTAL: u64 = 24_564 * 1024 * 1024;
const GIB: u64 = 1024 * 1024 * 1024;

fn open(v: FakeNvml) -> Result<NvmlSource, Error> {
    NvmlSource::open(Some(fake_nvml(v).as_os_str()))
}

#[test]
fn reads_two_a5000s() {
    let src = open(FakeNvml::TwoA5000).expect("fake NVML opens");
    assert_eq!(src.device_count(), 2);
    let host = src.host().unwrap();
    assert_eq!(host.driver_version, Reading::Value("550.54.15".to_owned()));
    assert_eq!(
        host.cuda_driver_version,
        Reading::Value(CudaVersion {
            major: 12,
            minor: 4
        })
    );
    assert_eq!(host.nvml_version, Reading::Value("12.550.54.15".to_owned()));

    let gpus = src.gpus().unwrap();
    assert_eq!(gpus.len(), 2);
    let g0 = &gpus[0];
    assert_eq!(g0.index, 0);
    assert_eq!(g0.name, Reading::Value("NVIDIA RTX A5000".to_owned()));
    assert_eq!(
        g0.uuid,
        Reading::Value("GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01".to_owned())
    );
    assert_eq!(g0.pci_bus_id, Reading::Value("00000000:01:00.0".to_owned()));
    assert_eq!(
        g0.memory,
        Reading::Value(Memory {
            total: A5000_TOTAL,
            used: 2 * GIB,
            free: A5000_TOTAL - 300 * 1024 * 1024 - 2 * GIB,
        })
    );
    assert_eq!(
        g0.utilization,
        Reading::Value(Utilization {
            gpu_percent: 12,
            memory_percent: 5
        })
    );
    assert_eq!(g0.temperature_c, Reading::Value(41));
    assert_eq!(g0.power_mw, Reading::Value(61_000));
    assert_eq!(g0.power_limit_mw, Reading::Value(230_000));
    assert_eq!(
        g0.ecc,
        Reading::Value(EccCounts {
            volatile_corrected: 0,
            volatile_uncorrected: 0,
            aggregate_corrected: 3,
            aggregate_uncorrected: 0
        })
    );
    assert_eq!(
        g0.processes,
        Reading::Value(vec![GpuProcess {
            pid: 4242,
            used_memory: Some(2 * GIB - 512 * 1024 * 1024)
        }])
    );
    // Not exported by the fake (Ampere has no page retirement): typed "not supported".
    assert_eq!(g0.retired_pages, Reading::NotSupported);
    // Exported, answers NVML_ERROR_NOT_SUPPORTED (no MIG on an A5000).
    assert_eq!(g0.mig_mode, Reading::NotSupported);
    assert!(!g0.lost);

    let g1 = &gpus[1];
    assert_eq!(
        g1.uuid,
        Reading::Value("GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02".to_owned())
    );
    assert_eq!(g1.pci_bus_id, Reading::Value("00000000:41:00.0".to_owned()));
    assert_eq!(g1.temperature_c, Reading::Value(67));
    assert_eq!(
        g1.remapped_rows,
        Reading::Value(RemappedRows {
            correctable: 0,
            uncorrectable: 1,
            pending: true,
            failure: false
        })
    );
    assert_eq!(g1.processes, Reading::Value(vec![]));
}

#[test]
fn verdicts_and_pinned_driver() {
    let src = open(FakeNvml::TwoA5000).unwrap();
    let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
    assert!(snap.xids.is_empty());
    let v = host_verdict(
        &snap,
        &HealthPolicy::default().with_pinned_driver("550.54.15"),
    );
    assert_eq!(v.gpus[0].severity, Severity::Ok);
    assert_eq!(v.gpus[1].severity, Severity::Warning);
    assert_eq!(v.gpus[1].findings[0].code, "remapped-rows-pending");
    assert_eq!(v.severity, Severity::Warning);

    let v = host_verdict(
        &snap,
        &HealthPolicy::default().with_pinned_driver("535.183.01"),
    );
    assert_eq!(v.severity, Severity::Critical);
    assert_eq!(
        v.findings[0].message,
        "NVIDIA driver 550.54.15 is running, the pinned version is 535.183.01"
    );
}

#[test]
fn xid_events_through_the_event_set() {
    let src = open(FakeNvml::TwoA5000WithXids).unwrap();
    let xids = src.xid_events(Duration::from_millis(100), 16).unwrap();
    let codes: Vec<_> = xids.iter().map(|x| (x.gpu_index, x.xid)).collect();
    assert_eq!(codes, [(Some(1), 79), (Some(1), 13)]);
    assert_eq!(
        xids[0].gpu_uuid.as_deref(),
        Some("GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02")
    );
    // `max` bounds the read.
    assert_eq!(
        src.xid_events(Duration::from_millis(100), 1).unwrap().len(),
        1
    );

    let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
    let v = host_verdict(&snap, &HealthPolicy::default());
    assert_eq!(v.gpus[0].severity, Severity::Ok);
    assert_eq!(v.gpus[1].severity, Severity::Critical);
    let msgs: Vec<_> = v.gpus[1]
        .findings
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        msgs.contains(&"XID 79: GPU has fallen off the bus"),
        "{msgs:?}"
    );
    assert!(v.is_critical());
}

#[test]
fn no_library_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("libnvidia-ml.so.1");
    let err = NvmlSource::open(Some(missing.as_os_str())).unwrap_err();
    match err {
        Error::NvmlUnavailable(NvmlUnavailable::LibraryMissing { library, detail }) => {
            assert_eq!(library, missing.display().to_string());
            assert!(
                detail.contains("cannot open shared object file"),
                "{detail}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn no_device_and_driver_mismatch_are_typed() {
    assert!(matches!(
        open(FakeNvml::NoDevice).unwrap_err(),
        Error::NvmlUnavailable(NvmlUnavailable::NoDevice)
    ));
    let err = open(FakeNvml::DriverMismatch).unwrap_err();
    assert!(matches!(
        err,
        Error::NvmlUnavailable(NvmlUnavailable::DriverMismatch)
    ));
    assert_eq!(err.to_string(), "NVML is not available here");
}

#[test]
fn sources_can_be_opened_concurrently() {
    let handles: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                let s = open(FakeNvml::TwoA5000).unwrap();
                s.gpus().unwrap().len()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), 2);
    }
}
