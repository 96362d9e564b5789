//! The real nvml-wrapper code path against the fake `libnvidia-ml.so.1` (tests/fake-nvml).
//!
//! What the fake answers follows NVIDIA's NVML API reference
//! (<https://docs.nvidia.com/deploy/nvml-api/>): "Device Queries" for `nvmlDeviceGetEccMode` and
//! `nvmlDeviceGetTotalEccErrors` (volatile counters reset at each driver load, aggregate ones
//! persist), "Event Handling Methods" for `nvmlDeviceRegisterEvents` and
//! `nvmlDeviceGetSupportedEventTypes`, and "Field Value Queries" for
//! `NVML_FI_DEV_GET_GPU_RECOVERY_ACTION`. XID meanings: NVIDIA's Xid catalog
//! (<https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html>).

mod common;

use std::time::Duration;

use common::{FakeNvml, fake_nvml};
use cpps_gpu::health::{HealthPolicy, Severity, host_verdict};
use cpps_gpu::nvml::{
    CudaVersion, Ecc, EccMode, GpuProcess, GpuSource, Limits, Memory, NvmlSource, PcieLink,
    Reading, RemappedRows, RowRemapperHistogram, Unwatched, Utilization, snapshot,
};
use cpps_gpu::policy::DriverPinPolicy;
use cpps_gpu::xid::RecoveryAction;
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
        Ecc {
            mode: Reading::Value(EccMode {
                current: true,
                pending: true
            }),
            volatile_corrected: Reading::Value(0),
            volatile_uncorrected: Reading::Value(0),
            aggregate_corrected: Reading::Value(3),
            aggregate_uncorrected: Reading::Value(0),
        }
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
    let codes: Vec<&str> = v.gpus[1].findings.iter().map(|f| f.code.as_str()).collect();
    assert_eq!(
        codes,
        ["ecc-uncorrected-aggregate", "remapped-rows-pending"]
    );
    assert_eq!(v.severity, Severity::Warning);

    // GPU-005's severity (the shared DriverPinPolicy): a warning unless configured otherwise.
    let v = host_verdict(
        &snap,
        &HealthPolicy::default().with_pinned_driver("535.183.01"),
    );
    assert_eq!(v.findings[0].severity, Severity::Warning);
    assert_eq!(
        v.findings[0].message,
        "NVIDIA driver 550.54.15 is running, the pinned version is 535.183.01"
    );
    let v = host_verdict(
        &snap,
        &HealthPolicy::default()
            .with_pinned_driver("535.183.01")
            .with_driver_pin(DriverPinPolicy::default().with_mismatch(Severity::Critical)),
    );
    assert_eq!(v.severity, Severity::Critical);
}

/// Issue 18 item 1. GPU 1 of the fake had one uncorrectable error before this driver load: its
/// volatile counter (reset at each driver load) is 0, its aggregate one (persists across reboots)
/// is 1. The verdict uses both and names the counter.
#[test]
fn lifetime_uncorrected_errors_are_found_after_a_reboot() {
    let src = open(FakeNvml::TwoA5000).unwrap();
    let gpus = src.gpus().unwrap();
    assert_eq!(gpus[1].ecc.volatile_uncorrected, Reading::Value(0));
    assert_eq!(gpus[1].ecc.aggregate_uncorrected, Reading::Value(1));
    let snap = snapshot(&src, Duration::from_millis(10)).unwrap();
    let v = host_verdict(&snap, &HealthPolicy::default());
    let ecc = &v.gpus[1].findings[0];
    assert_eq!(
        (ecc.severity, ecc.code.as_str(), ecc.message.as_str()),
        (
            Severity::Warning,
            "ecc-uncorrected-aggregate",
            "1 uncorrectable ECC errors over the board's life (aggregate counter), 1 of them before this driver load"
        )
    );
}

/// Issue 18 item 2: the ECC mode and each counter are read on their own. With ECC off (nvml.h:
/// `nvmlDeviceGetEccMode` answers the current and pending `nvmlEnableState_t`), the volatile
/// counters answer NOT_SUPPORTED and the aggregate ones still answer; one missing counter on
/// another board leaves its other counters read.
#[test]
fn ecc_mode_and_each_counter_are_read_separately() {
    let src = open(FakeNvml::EccDisabledOnGpu0).unwrap();
    let gpus = src.gpus().unwrap();
    let g0 = &gpus[0].ecc;
    assert_eq!(
        g0.mode,
        Reading::Value(EccMode {
            current: false,
            pending: false
        })
    );
    assert_eq!(g0.volatile_corrected, Reading::NotSupported);
    assert_eq!(g0.volatile_uncorrected, Reading::NotSupported);
    assert_eq!(g0.aggregate_corrected, Reading::Value(3));
    assert_eq!(g0.aggregate_uncorrected, Reading::Value(0));
    let snap = snapshot(&src, Duration::from_millis(10)).unwrap();
    let v = host_verdict(&snap, &HealthPolicy::default());
    let f = &v.gpus[0].findings;
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].severity, f[0].code.as_str()),
        (Severity::Warning, "ecc-disabled")
    );
    assert_eq!(
        f[0].message,
        "ECC is disabled; memory errors go undetected (nvidia-smi -e 1 and a reboot enable it)"
    );
    // A workstation may run without ECC: then it is only reported.
    let v = host_verdict(&snap, &HealthPolicy::default().ecc_optional());
    assert_eq!(v.gpus[0].severity, Severity::Info);

    let src = open(FakeNvml::AggregateEccUnsupportedOnGpu1).unwrap();
    let g1 = &src.gpus().unwrap()[1].ecc;
    assert_eq!(
        (&g1.volatile_corrected, &g1.volatile_uncorrected),
        (&Reading::Value(0), &Reading::Value(0))
    );
    assert_eq!(
        (&g1.aggregate_corrected, &g1.aggregate_uncorrected),
        (&Reading::NotSupported, &Reading::NotSupported)
    );
    assert!(matches!(
        g1.mode,
        Reading::Value(EccMode { current: true, .. })
    ));
}

/// Issue 18 item 4. NVML API reference, `nvmlDeviceRegisterEvents`: "If function reports
/// NVML_ERROR_NOT_SUPPORTED, event set can still be used." GPU 0's XIDs stay watched when GPU 1
/// cannot be registered, whether its supported-event mask says so (it is then not registered) or
/// the registration itself fails (nvml-wrapper frees the set then, and it is rebuilt).
#[test]
fn earlier_gpus_stay_watched_when_one_gpu_cannot_register() {
    for (variant, reason) in [
        (
            FakeNvml::XidOnGpu0EventsUnsupportedOnGpu1,
            "the GPU does not support XID events",
        ),
        (
            FakeNvml::XidOnGpu0RegistrationFailsOnGpu1,
            "the requested operation is not available on the target device",
        ),
    ] {
        let src = open(variant).unwrap();
        let watch = src.xid_events(Duration::from_millis(50), 16).unwrap();
        let seen: Vec<_> = watch.events.iter().map(|x| (x.gpu_index, x.xid)).collect();
        assert_eq!(seen, [(Some(0), 48)], "{variant:?}");
        assert_eq!(watch.unwatched.len(), 1, "{variant:?}");
        assert_eq!(watch.unwatched[0].gpu_index, 1);
        assert!(
            watch.unwatched[0].reason.contains(reason),
            "{variant:?}: {}",
            watch.unwatched[0].reason
        );
        let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
        assert_eq!(
            snap.xid_unwatched,
            [Unwatched {
                gpu_index: 1,
                reason: watch.unwatched[0].reason.clone()
            }]
        );
        let v = host_verdict(&snap, &HealthPolicy::default());
        assert_eq!(v.gpus[0].severity, Severity::Critical, "{variant:?}");
        assert!(
            v.gpus[1]
                .findings
                .iter()
                .any(|f| f.code == "xid-not-watched" && f.severity == Severity::Info)
        );
    }
}

/// Issue 18 item 3: one matching rule. GPU 1's UUID read fails when the GPUs are read and works
/// when its XID arrives: the event is GPU 1's (by index, since that GPU's UUID is unknown) and is
/// reported once, not also as a host finding.
#[test]
fn an_xid_is_reported_once_when_a_uuid_read_fails() {
    let src = open(FakeNvml::XidWhileUuidFailsOnceOnGpu1).unwrap();
    let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
    assert!(matches!(snap.gpus[1].uuid, Reading::Failed { .. }));
    assert_eq!(
        snap.xids[0].gpu_uuid.as_deref(),
        Some("GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02")
    );
    let v = host_verdict(&snap, &HealthPolicy::default());
    let xid_79 = |fs: &[cpps_gpu::health::Finding]| {
        fs.iter()
            .filter(|f| f.message == "XID 79: GPU has fallen off the bus")
            .count()
    };
    assert_eq!(xid_79(&v.gpus[1].findings), 1);
    assert_eq!(xid_79(&v.gpus[0].findings), 0);
    assert_eq!(xid_79(&v.findings), 0, "{:?}", v.findings);
}

/// Issue 18 item 5. Xid catalog: XID 92 "High single-bit ECC error rate" (corrected errors: a
/// warning); XID 154 "GPU Recovery Action Changed", whose severity follows the recovery action
/// (nvml.h `nvmlDeviceGpuRecoveryAction_t`, NVIDIA's memory-error document: NONE means "the GPU can
/// be immediately used again").
#[test]
fn xid_92_is_a_warning_and_154_follows_its_recovery_action() {
    let cases = [
        (Some(0), RecoveryAction::None, Severity::Warning),
        (Some(1), RecoveryAction::GpuReset, Severity::Critical),
        (Some(2), RecoveryAction::NodeReboot, Severity::Critical),
        (Some(3), RecoveryAction::DrainP2p, Severity::Warning),
        // go-nvml gen/nvml/nvml.h `nvmlDeviceGpuRecoveryAction_t`: RECOVER_IMEX_DOMAIN = 5; the
        // NVML change log (v610 to v615) adds BUS_RESET and SYSTEM_REBOOT after it.
        (
            Some(5),
            RecoveryAction::RecoverImexDomain,
            Severity::Critical,
        ),
        (Some(6), RecoveryAction::BusReset, Severity::Critical),
        (Some(7), RecoveryAction::SystemReboot, Severity::Critical),
    ];
    for (action, expected, gpu_severity) in cases {
        let variant = FakeNvml::Xid92And154WithRecoveryAction(action.unwrap());
        let src = open(variant).unwrap();
        let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
        let got: Vec<_> = snap
            .xids
            .iter()
            .map(|x| (x.xid, x.recovery_action))
            .collect();
        assert_eq!(got, [(92, None), (154, Some(expected))]);
        let v = host_verdict(&snap, &HealthPolicy::default().ecc_optional());
        let xids: Vec<_> = v.gpus[1]
            .findings
            .iter()
            .filter(|f| f.code == "xid")
            .map(|f| (f.severity, f.message.as_str()))
            .collect();
        assert_eq!(
            xids[0],
            (
                Severity::Warning,
                "XID 92: high single-bit ECC error rate (corrected; watch the board)"
            )
        );
        let expected_154 = match expected {
            RecoveryAction::None => Severity::Info,
            RecoveryAction::DrainP2p => Severity::Warning,
            _ => Severity::Critical,
        };
        assert_eq!(xids[1].0, expected_154, "{expected:?}: {}", xids[1].1);
        assert_eq!(v.gpus[1].severity, gpu_severity, "{expected:?}");
    }
    // The action could not be read: a reset or reboot may be needed, so it stays critical.
    let src = open(FakeNvml::Xid154WithoutRecoveryAction).unwrap();
    let snap = snapshot(&src, Duration::from_millis(50)).unwrap();
    assert_eq!(snap.xids[0].recovery_action, None);
    let v = host_verdict(&snap, &HealthPolicy::default());
    assert!(
        v.gpus[1]
            .findings
            .iter()
            .any(|f| f.severity == Severity::Critical
                && f.message
                    == "XID 154: GPU recovery action changed (the action could not be read)")
    );
}

/// Issue 34 D4. go-nvml `gen/nvml/nvml.h`, `nvmlEventSetWait_v2`: "NVML_ERROR_GPU_IS_LOST if a
/// GPU has fallen off the bus or is otherwise inaccessible". That is the GPU's failure, not the
/// program's: the snapshot is kept and the lost GPU is a critical finding.
#[test]
fn gpu_lost_during_the_xid_wait_is_a_critical_finding() {
    let src = open(FakeNvml::LostDuringXidWait).unwrap();
    let snap = snapshot(&src, Duration::from_millis(100)).expect("a lost GPU is a finding");
    let got: Vec<_> = snap.xids.iter().map(|x| (x.gpu_index, x.xid)).collect();
    assert_eq!(got, [(Some(1), 79), (Some(1), cpps_gpu::xid::GPU_LOST)]);
    let v = host_verdict(&snap, &HealthPolicy::default());
    assert!(v.is_critical());
    let lost: Vec<_> = v.gpus[1]
        .findings
        .iter()
        .filter(|f| f.code == "gpu-lost")
        .map(|f| (f.severity, f.message.as_str()))
        .collect();
    assert_eq!(
        lost,
        [(
            Severity::Critical,
            "GPU lost: NVML cannot reach it any more (fallen off the bus or otherwise inaccessible)"
        )]
    );
    assert_eq!(v.gpus[0].severity, Severity::Ok);
}

/// Issue 34 D7. go-nvml `gen/nvml/nvml.h`, `nvmlDeviceGetHandleByIndex_v2` returns
/// INSUFFICIENT_POWER ("improperly attached external power cables"), NO_PERMISSION, IRQ_ISSUE
/// ("NVIDIA kernel detected an interrupt issue") and GPU_IS_LOST. A GPU that cannot be opened
/// is critical; without permission its health cannot be told.
#[test]
fn a_gpu_that_cannot_be_opened_is_critical_or_cannot_tell() {
    let cases = [
        (8, "gpu-unopenable", Severity::Critical, "power"),
        (11, "gpu-unopenable", Severity::Critical, "interrupt"),
        (15, "gpu-lost", Severity::Critical, "GPU lost"),
        (4, "gpu-no-permission", Severity::Warning, "cannot tell"),
    ];
    for (code, finding, severity, words) in cases {
        let src = open(FakeNvml::HandleErrorOnGpu1(code)).unwrap();
        let snap = snapshot(&src, Duration::from_millis(10)).unwrap();
        let v = host_verdict(&snap, &HealthPolicy::default());
        assert_eq!(v.gpus[0].severity, Severity::Ok, "code {code}");
        let got: Vec<_> = v.gpus[1]
            .findings
            .iter()
            .map(|f| (f.code.as_str(), f.severity))
            .collect();
        // One finding that says what is wrong, not a list of unreadable values.
        assert_eq!(got, [(finding, severity)], "code {code}");
        let message = &v.gpus[1].findings[0].message;
        assert!(message.contains(words), "code {code}: {message}");
        assert_eq!(v.gpus[1].severity, severity);
    }
}

/// Suspected item of issue 34: go-nvml `gen/nvml/nvml.h`, `nvmlEventSetWait_v2` "can return before
/// specified timeout passes (e.g. when interrupt arrives)" with NVML_ERROR_TIMEOUT. An early
/// TIMEOUT must not end the XID window.
#[test]
fn an_interrupt_does_not_end_the_xid_window() {
    let src = open(FakeNvml::XidAfterEarlyTimeout).unwrap();
    let started = std::time::Instant::now();
    let watch = src.xid_events(Duration::from_millis(300), 16).unwrap();
    let got: Vec<_> = watch.events.iter().map(|x| (x.gpu_index, x.xid)).collect();
    assert_eq!(got, [(Some(1), 48)]);
    // And the window still ends: the fake's waits take the time they are given.
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[test]
fn xid_events_through_the_event_set() {
    let src = open(FakeNvml::TwoA5000WithXids).unwrap();
    let xids = src
        .xid_events(Duration::from_millis(100), 16)
        .unwrap()
        .events;
    let codes: Vec<_> = xids.iter().map(|x| (x.gpu_index, x.xid)).collect();
    assert_eq!(codes, [(Some(1), 79), (Some(1), 13)]);
    assert_eq!(
        xids[0].gpu_uuid.as_deref(),
        Some("GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02")
    );
    // `max` bounds the read.
    assert_eq!(
        src.xid_events(Duration::from_millis(100), 1)
            .unwrap()
            .events
            .len(),
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

/// The smoke run (`cargo xtask gpu-smoke` on a GPU machine) through the same real nvml-wrapper
/// path: here on the fake, with XID 48 on GPU 0 and GPU 1 unable to register.
#[test]
fn smoke_run_reports_what_it_saw() {
    let lib = fake_nvml(FakeNvml::XidOnGpu0EventsUnsupportedOnGpu1);
    let report = cpps_gpu::smoke::smoke(Some(lib.as_os_str()), Duration::from_millis(20)).unwrap();
    assert_eq!(report.device_count, 2);
    assert_eq!(report.watched, [0]);
    let text = report.to_string();
    let lines: Vec<&str> = text.lines().collect();
    // Every reading the crate takes is printed, the limits included (to compare with
    // `nvidia-smi -q` on a real host).
    assert_eq!(
        &lines[..10],
        [
            "devices: 2",
            "driver: 550.54.15, NVML 12.550.54.15",
            "GPU 0: NVIDIA RTX A5000 GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01; ECC on (pending on); remapped rows correctable 0, uncorrectable 0, pending false, failure false",
            "  PCI 00000000:01:00.0; temperature 41 °C (slowdown 93 °C, shutdown 98 °C); power 61.0 W of 230.0 W",
            "  clock event reasons 0x0; PCIe Gen4 x16 (max Gen4 x16); spare-row banks max 64, high 0, partial 0, low 0, none 0",
            "GPU 1: NVIDIA RTX A5000 GPU-9b1d4f70-2e3c-4a5b-8d6e-0f1a2b3c4d02; ECC on (pending on); remapped rows correctable 0, uncorrectable 1, pending true, failure false",
            "  PCI 00000000:41:00.0; temperature 67 °C (slowdown 93 °C, shutdown 98 °C); power 88.0 W of 230.0 W",
            "  clock event reasons 0x1; PCIe Gen4 x16 (max Gen4 x16); spare-row banks max 63, high 1, partial 0, low 0, none 0",
            "XID event set: GPUs [0] registered, polled up to 20 ms: 1 event(s)",
            "  GPU 1 not registered: the GPU does not support XID events",
        ]
    );
    assert_eq!(lines[10], "  XID 48 on GPU 0");
    assert!(lines[11].starts_with("took "), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("libnvidia-ml.so.1");
    assert!(matches!(
        cpps_gpu::smoke::smoke(Some(missing.as_os_str()), Duration::ZERO),
        Err(Error::NvmlUnavailable(
            NvmlUnavailable::LibraryMissing { .. }
        ))
    ));
}

/// GPU 1's findings beyond the two every variant of the fake has (its lifetime uncorrectable
/// error and its pending row remapping): (code, severity, message).
fn gpu1_extra_findings(v: FakeNvml) -> Vec<(String, Severity, String)> {
    let src = open(v).unwrap();
    let snap = snapshot(&src, Duration::from_millis(10)).unwrap();
    let verdict = host_verdict(&snap, &HealthPolicy::default());
    verdict.gpus[1]
        .findings
        .iter()
        .filter(|f| {
            !["ecc-uncorrected-aggregate", "remapped-rows-pending"].contains(&f.code.as_str())
        })
        .map(|f| (f.code.clone(), f.severity, f.message.clone()))
        .collect()
}

fn row(code: &str, severity: Severity, message: &str) -> (String, Severity, String) {
    (code.to_owned(), severity, message.to_owned())
}

/// Issue 34, throttling and link health: read through nvml-wrapper 0.13
/// (`current_throttle_reasons_strict`, `temperature_threshold`, `current_pcie_link_gen`/`width`,
/// `max_pcie_link_gen`/`width`) and `nvmlDeviceGetRowRemapperHistogram` (nvml.h; not wrapped by
/// nvml-wrapper 0.13). The fake's healthy boards: no throttling but idle on GPU 1, slowdown
/// 93 °C and shutdown 98 °C, Gen4 x16 of Gen4 x16, GPU 1 with one bank below full spare rows.
#[test]
fn limits_are_read_from_nvml() {
    let gpus = open(FakeNvml::TwoA5000).unwrap().gpus().unwrap();
    let link = PcieLink {
        generation: 4,
        max_generation: 4,
        width: 16,
        max_width: 16,
    };
    assert_eq!(
        gpus[1].limits,
        Limits {
            clock_event_reasons: Reading::Value(0x1),
            slowdown_temperature_c: Reading::Value(93),
            shutdown_temperature_c: Reading::Value(98),
            pcie: Reading::Value(link),
            row_remapper: Reading::Value(RowRemapperHistogram {
                max: 63,
                high: 1,
                partial: 0,
                low: 0,
                none: 0,
            }),
        }
    );
    assert_eq!(gpus[0].limits.clock_event_reasons, Reading::Value(0));
    assert!(gpu1_extra_findings(FakeNvml::TwoA5000).is_empty());
}

/// Audit S-f, confirmed: nvml.h marks `nvmlDeviceGetCurrentClocksThrottleReasons`
/// `DEPRECATED(13.0)` in favour of `nvmlDeviceGetCurrentClocksEventReasons` (same bits).
/// nvml-wrapper 0.13 calls only the old symbol, so a library without it gave `NotSupported`:
/// the reasons went unread and unsaid. The current symbol is read first.
#[test]
fn clock_event_reasons_are_read_without_the_deprecated_symbol() {
    let bits = 0x8 | 0x4;
    let gpus = open(FakeNvml::ClockEventReasonsWithoutThrottleSymbolOnGpu1(bits))
        .unwrap()
        .gpus()
        .unwrap();
    assert_eq!(gpus[1].limits.clock_event_reasons, Reading::Value(bits));
    assert_eq!(gpus[0].limits.clock_event_reasons, Reading::Value(0));
}

/// nvml.h `nvmlClocksEventReason*`: HW slowdown 0x8 and HW thermal slowdown 0x40 hold clocks
/// down by half or more (warnings), the SW power cap 0x4 is reported, and a bit nvml.h does not
/// define here (0x400) is kept and never read as healthy.
#[test]
fn clock_event_reasons_are_judged_bit_by_bit() {
    let bits = 0x8 | 0x40 | 0x4 | 0x400;
    let gpus = open(FakeNvml::ClockEventReasonsOnGpu1(bits))
        .unwrap()
        .gpus()
        .unwrap();
    assert_eq!(gpus[1].limits.clock_event_reasons, Reading::Value(bits));
    assert_eq!(
        gpu1_extra_findings(FakeNvml::ClockEventReasonsOnGpu1(bits)),
        [
            row(
                "clocks-slowdown",
                Severity::Warning,
                "clocks held down by hardware slowdown, hardware thermal slowdown"
            ),
            row(
                "clocks-power-cap",
                Severity::Info,
                "clocks held down by software power cap"
            ),
            row(
                "clocks-unknown-reason",
                Severity::Warning,
                "clock event reason bits 0x400 that this table does not know"
            ),
        ]
    );
}

/// The temperature against NVML's own thresholds (`NVML_TEMPERATURE_THRESHOLD_SLOWDOWN` 93 °C
/// and `_SHUTDOWN` 98 °C on the fake), not fixed numbers: 86 °C is fine, 90 °C is within the
/// 5 °C margin, 94 °C is past slowdown, 99 °C past shutdown. Without thresholds the policy's
/// fixed 85/93 °C apply, and say so.
#[test]
fn temperature_is_judged_against_nvml_thresholds() {
    assert!(gpu1_extra_findings(FakeNvml::TemperatureOnGpu1(86)).is_empty());
    assert_eq!(
        gpu1_extra_findings(FakeNvml::TemperatureOnGpu1(90)),
        [row(
            "temperature",
            Severity::Warning,
            "90 °C, within 5 °C of its slowdown threshold 93 °C"
        )]
    );
    assert_eq!(
        gpu1_extra_findings(FakeNvml::TemperatureOnGpu1(94)),
        [row(
            "temperature",
            Severity::Critical,
            "94 °C, at or above its slowdown threshold 93 °C (hardware slowdown)"
        )]
    );
    assert_eq!(
        gpu1_extra_findings(FakeNvml::TemperatureOnGpu1(99)),
        [row(
            "temperature",
            Severity::Critical,
            "99 °C, at or above its shutdown threshold 98 °C"
        )]
    );
    assert_eq!(
        gpu1_extra_findings(FakeNvml::TemperatureWithoutThresholdsOnGpu1(86)),
        [row(
            "temperature",
            Severity::Warning,
            "86 °C, at or above 85 °C (NVML gives no slowdown threshold)"
        )]
    );
}

/// Power draw (`nvmlDeviceGetPowerUsage`) above the enforced limit
/// (`nvmlDeviceGetEnforcedPowerLimit`, 230 W on the fake) is a warning; at the limit it is not.
#[test]
fn power_draw_above_the_enforced_limit_is_a_warning() {
    assert!(gpu1_extra_findings(FakeNvml::PowerDrawOnGpu1(230_000)).is_empty());
    assert_eq!(
        gpu1_extra_findings(FakeNvml::PowerDrawOnGpu1(241_500)),
        [row(
            "power-over-limit",
            Severity::Warning,
            "draws 241.5 W, above its enforced power limit 230.0 W"
        )]
    );
}

/// The PCIe link in one GPU 1 scenario: Gen/width, utilization (%), clock event reason bits.
fn pcie_findings(
    generation: u32,
    width: u32,
    utilization: u32,
    clock_reasons: u64,
) -> Vec<(String, Severity, String)> {
    gpu1_extra_findings(FakeNvml::PcieLinkOnGpu1 {
        generation,
        width,
        utilization,
        clock_reasons,
    })
}

/// NVIDIA's nvidia-smi man page (nvidia-smi.1, "GPU Link Info" -> "Current": "The current link
/// generation and width. These may be reduced when the GPU is not in use.") says both the
/// generation and the width drop on an idle GPU, so a reduced link proves nothing unless the GPU
/// is clearly busy. Busy is judged conservatively: NVML's utilization is one sample ("Each sample
/// period may be between 1 second and 1/6 second", go-nvml gen/nvml/nvml.h `nvmlUtilization_t`),
/// and an A5000 that drives a display is a few percent busy at its idle link, so it takes at
/// least half of that sample and no `nvmlClocksEventReasonGpuIdle` (0x1, "Nothing is running on
/// the GPU and the clocks are dropping to Idle state") to call a reduced link downtrained.
/// Anything less is "cannot tell", reported, never a silent pass.
#[test]
fn a_downtrained_pcie_link_is_a_warning_only_under_clear_load() {
    let max = "below the Gen4 x16 this GPU and slot allow";
    assert_eq!(
        pcie_findings(4, 8, 90, 0),
        [row(
            "pcie-downtrained",
            Severity::Warning,
            &format!("PCIe link Gen4 x8, {max}, while the GPU is busy (90% utilization)")
        )]
    );
    assert_eq!(
        pcie_findings(1, 16, 0, 0x1),
        [row(
            "pcie-link-reduced",
            Severity::Info,
            &format!(
                "PCIe link Gen1 x16, {max}: cannot tell (the GPU is idle; the link downshifts when not in use)"
            )
        )]
    );
    // A display on the card: a few percent busy, clocks not idle, link at Gen1 x8.
    assert_eq!(
        pcie_findings(1, 8, 4, 0),
        [row(
            "pcie-link-reduced",
            Severity::Info,
            &format!(
                "PCIe link Gen1 x8, {max}: cannot tell (the GPU is not clearly under load, 4% utilization in one sample; the link downshifts when not in use)"
            )
        )]
    );
    // Busy by utilization, yet NVML says the clocks are dropping to idle: the load just ended.
    assert_eq!(
        pcie_findings(2, 16, 95, 0x1),
        [row(
            "pcie-link-reduced",
            Severity::Info,
            &format!(
                "PCIe link Gen2 x16, {max}: cannot tell (the GPU is idle; the link downshifts when not in use)"
            )
        )]
    );
    assert!(pcie_findings(4, 16, 0, 0x1).is_empty());
}

/// `nvmlRowRemapperHistogramValues_t.none` (nvml.h: "no reserved rows available") counts banks
/// where a new uncorrectable error cannot be remapped.
#[test]
fn banks_without_spare_rows_are_a_warning() {
    let gpus = open(FakeNvml::RemapperBanksExhaustedOnGpu1(2))
        .unwrap()
        .gpus()
        .unwrap();
    assert_eq!(
        gpus[1].limits.row_remapper,
        Reading::Value(RowRemapperHistogram {
            max: 61,
            high: 1,
            partial: 0,
            low: 0,
            none: 2,
        })
    );
    assert_eq!(
        gpu1_extra_findings(FakeNvml::RemapperBanksExhaustedOnGpu1(2)),
        [row(
            "remapper-banks-exhausted",
            Severity::Warning,
            "2 memory bank(s) have no spare row left: a new uncorrectable error there cannot be remapped"
        )]
    );
}

/// The lines the smoke prints from `nvidia-smi -q` next to its own readings. The text below is
/// written in the layout `nvidia-smi -q` uses (a `GPU <bus id>` header per GPU, indented
/// `Key : Value` lines, headers without a value nesting `Current`/`Max`); it is not a capture
/// of a real run, which only a GPU host can give.
#[test]
fn nvidia_smi_q_lines_are_picked_per_gpu_with_their_parents() {
    let text = "\
==============NVSMI LOG==============

Driver Version                            : 550.54.15

GPU 00000000:01:00.0
    Product Name                          : NVIDIA RTX A5000
    GPU UUID                              : GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01
    PCI
        GPU Link Info
            PCIe Generation
                Max                       : 4
                Current                   : 1
            Link Width
                Max                       : 16x
                Current                   : 16x
    Fan Speed                             : 30 %
    Temperature
        GPU Current Temp                  : 41 C
        GPU Shutdown Temp                 : 98 C

GPU 00000000:41:00.0
    Product Name                          : NVIDIA RTX A5000
";
    let sections = cpps_gpu::smoke::nvidia_smi_q_sections(text);
    assert_eq!(sections.len(), 2);
    assert_eq!(sections[0].0, "00000000:01:00.0");
    assert_eq!(
        sections[0].1,
        [
            "Product Name : NVIDIA RTX A5000",
            "GPU UUID : GPU-3f8a2c1e-7b4d-4e9a-9c21-5d6e7f801a01",
            "PCI / GPU Link Info / PCIe Generation / Max : 4",
            "PCI / GPU Link Info / PCIe Generation / Current : 1",
            "PCI / GPU Link Info / Link Width / Max : 16x",
            "PCI / GPU Link Info / Link Width / Current : 16x",
            "Temperature / GPU Current Temp : 41 C",
            "Temperature / GPU Shutdown Temp : 98 C",
        ]
    );
    assert_eq!(sections[1].1, ["Product Name : NVIDIA RTX A5000"]);
}

/// Drivers from R535 on print the power as "Average Power Draw" and "Instantaneous Power Draw"
/// under "GPU Power Readings" (and again under "GPU Memory Power Readings" and "Module Power
/// Readings"), with "Current Power Limit" instead of "Enforced Power Limit"; older drivers print
/// "Power Draw" under "Power Readings". nvidia-smi `--help-query-gpu` names the two readings
/// `power.draw.average` and `power.draw.instant`. Forms read in printed `nvidia-smi -q` output:
/// influxdata/telegraf issue 16569 ("nvidia-smi xml gpu_power_readings children changed
/// breaking power_draw reading"), netdata/netdata issue 15755 ("Nvidia driver 535 breaks nvidia
/// power metric"), and published `nvidia-smi -q -d POWER` runs on driver 580.65.06, whose
/// temperature block also prints "GPU Shutdown T.Limit Temp" / "GPU Slowdown T.Limit Temp"
/// (relative to the T.Limit) on some boards. The text below is written in that layout with
/// scenario values; it is not a capture of a run.
#[test]
fn nvidia_smi_q_power_lines_are_picked_in_old_and_new_layouts() {
    let new = "\
GPU 00000000:01:00.0
    Temperature
        GPU Current Temp                  : 38 C
        GPU T.Limit Temp                  : 55 C
        GPU Shutdown T.Limit Temp         : -5 C
        GPU Slowdown T.Limit Temp         : -2 C
    GPU Power Readings
        Average Power Draw                : 61.20 W
        Instantaneous Power Draw          : 63.05 W
        Current Power Limit               : 230.00 W
        Requested Power Limit             : 230.00 W
    Power Samples
        Avg                               : 60.90 W
    GPU Memory Power Readings
        Average Power Draw                : N/A
        Instantaneous Power Draw          : N/A
";
    let sections = cpps_gpu::smoke::nvidia_smi_q_sections(new);
    assert_eq!(
        sections[0].1,
        [
            "Temperature / GPU Current Temp : 38 C",
            "Temperature / GPU T.Limit Temp : 55 C",
            "Temperature / GPU Shutdown T.Limit Temp : -5 C",
            "Temperature / GPU Slowdown T.Limit Temp : -2 C",
            "GPU Power Readings / Average Power Draw : 61.20 W",
            "GPU Power Readings / Instantaneous Power Draw : 63.05 W",
            "GPU Power Readings / Current Power Limit : 230.00 W",
            "GPU Memory Power Readings / Average Power Draw : N/A",
            "GPU Memory Power Readings / Instantaneous Power Draw : N/A",
        ]
    );
    let old = "\
GPU 00000000:01:00.0
    Power Readings
        Power Management                  : Supported
        Power Draw                        : 65.79 W
        Power Limit                       : 230.00 W
        Enforced Power Limit              : 230.00 W
";
    assert_eq!(
        cpps_gpu::smoke::nvidia_smi_q_sections(old)[0].1,
        [
            "Power Readings / Power Draw : 65.79 W",
            "Power Readings / Enforced Power Limit : 230.00 W",
        ]
    );
}

/// Audit 34, gpu-smoke residual: with no event set (`nvmlEventSetCreate` not supported, or a
/// library without the symbol) no GPU is registered for XID events, so none may be reported
/// as watched (go-nvml `gen/nvml/nvml.h`: events are delivered only for the devices registered
/// with `nvmlDeviceRegisterEvents` on a set). Every GPU is unwatched, with the reason.
#[test]
fn without_an_event_set_no_gpu_is_watched() {
    let src = open(FakeNvml::EventSetUnsupported).expect("fake NVML opens");
    let watch = src.xid_events(Duration::from_millis(50), 16).unwrap();
    assert!(watch.events.is_empty());
    let unwatched: Vec<(u32, &str)> = watch
        .unwatched
        .iter()
        .map(|u| (u.gpu_index, u.reason.as_str()))
        .collect();
    let why = "this NVML library has no XID event support (nvmlEventSetCreate)";
    assert_eq!(unwatched, [(0, why), (1, why)]);
    let report = cpps_gpu::smoke::smoke(
        Some(fake_nvml(FakeNvml::EventSetUnsupported).as_os_str()),
        Duration::from_millis(50),
    )
    .unwrap();
    assert_eq!(report.watched, Vec::<u32>::new());
}
