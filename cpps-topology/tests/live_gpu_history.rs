//! GPU-005's XID history since boot: the live NVML source on the fake NVML library (cpps-gpu's
//! test fake, loaded by the real nvml-wrapper) with a kernel-log fixture, audited against the
//! two-site estate (pve-ippri-31 pins the fake's driver, 550.54.15, so only the history speaks).
#![cfg(feature = "live")]

mod common;

use std::path::PathBuf;
use std::time::Duration;

use common::{live_estate, messages, of_rule};
use cpps_gpu::test_util::{FakeNvml, fake_nvml_library};
use cpps_topology::live::sources::{NvmlSource, Sources};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};

/// GPU-005's messages after observing the fake host with `kernel_log` as its kernel log.
async fn gpu_005(kernel_log: PathBuf) -> Vec<String> {
    let lib = fake_nvml_library(FakeNvml::TwoA5000).expect("gcc builds the fake NVML library");
    let mut sources = Sources::default();
    let source =
        NvmlSource::new(Some(lib), Duration::from_millis(100)).with_kernel_log(Some(kernel_log));
    sources.site_mut("sp").gpus = vec![("pve-ippri-31".to_owned(), Box::new(source))];
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let audit = live::audit(&live_estate(), &observed, &LiveOptions::default());
    let mut found = messages(&of_rule(&audit.report.findings, "GPU-005"));
    found.sort();
    found
}

/// NVML reports only XIDs that happen while it listens; the driver's `NVRM: Xid` lines since
/// boot are in the kernel log (NVIDIA/open-gpu-kernel-modules `kernel_rc.c` `krcReportXid`;
/// the fixture is cpps-gpu's, as `journalctl -k -o short-monotonic` prints it). XID 79 on the
/// fake's GPU 1 (bus 0x41) is critical in the one XID table, so GPU-005 names it; XID 94
/// (contained ECC) is only a warning there and is left to gpu-health. An empty log (a
/// `/dev/null` stand-in in a container) is "cannot tell", never a history without XIDs.
#[tokio::test]
async fn gpu_005_reads_the_xid_history_since_boot() {
    let fixture = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../cpps-gpu/tests/fixtures/kmsg/journal-short-monotonic.txt"
    ));
    assert_eq!(
        gpu_005(fixture).await,
        [
            "warning pve-ippri-31 critical XID errors since boot on pve-ippri-31 (kernel log): \
          XID 79 x2 on GPU 1 (0000:41:00), last 9.0 s after boot: GPU has fallen off the bus"
        ]
    );

    // This crate has no temporary-directory helper: a file named after this process.
    let empty = std::env::temp_dir().join(format!("cpps-gpu-005-kmsg-{}", std::process::id()));
    std::fs::write(&empty, "").unwrap();
    assert_eq!(
        gpu_005(empty.clone()).await,
        [format!(
            "info pve-ippri-31 cannot tell the XID history since boot on pve-ippri-31: the kernel \
             log {} is empty: cannot tell the XID history",
            empty.display()
        )]
    );
    std::fs::remove_file(&empty).unwrap();
}
