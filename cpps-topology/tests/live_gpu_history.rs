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

/// Audit C4. A history read only in part is not a clean one: `/dev/kmsg` starts at the oldest
/// record the ring still keeps once it has wrapped (Linux `kernel/printk/printk.c`
/// `devkmsg_open`), so a first record above 0 means older XIDs are gone; and an `NVRM: Xid`
/// line in a format the reader does not know (open-gpu-kernel-modules `kernel_rc.c`
/// `krcReportXid` is the known one) may be any XID. Both are "cannot tell" (info).
#[tokio::test]
async fn gpu_005_says_cannot_tell_for_a_history_read_in_part() {
    let path = std::env::temp_dir().join(format!("cpps-gpu-005-part-{}", std::process::id()));
    // A /dev/kmsg read whose first record is 7: the ring wrapped.
    std::fs::write(&path, "6,7,9100000,-;usb 1-1: new device\n").unwrap();
    let found = gpu_005(path.clone()).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "info pve-ippri-31 cannot tell all of the XID history since boot on pve-ippri-31: \
             the kernel log no longer reaches back to boot"
        ),
        "{found:?}"
    );
    // A line in a format the reader does not know.
    std::fs::write(
        &path,
        "[    9.600000] pve-gpu1 kernel: NVRM: Xid (PCI:0000:41:00 MIG:7): 13, pid=8001, \
         name=python3, a format this parser does not know\n",
    )
    .unwrap();
    let found = gpu_005(path.clone()).await;
    std::fs::remove_file(&path).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "info pve-ippri-31 cannot tell all of the XID history since boot on pve-ippri-31: \
             1 NVRM: Xid line(s) in a format this reader does not know"
        ),
        "{found:?}"
    );
}

/// Linux keeps one kernel log per host (`kernel/printk/printk.c`, one ring buffer, not
/// namespaced), so a host whose other GPUs NVML does not list here (bound to vfio-pci, or held
/// by another container) shows their XIDs too. cpps-gpu grades them apart
/// (`xid-history-other-gpu`, never as this node's own); GPU-005 says them as an Info line
/// rather than dropping them. The fake's GPUs are at 0000:01:00 and 0000:41:00; 0000:81:00 is
/// another GPU.
#[tokio::test]
async fn gpu_005_names_the_xids_of_another_gpu_of_the_host() {
    let path = std::env::temp_dir().join(format!("cpps-gpu-005-other-{}", std::process::id()));
    std::fs::write(
        &path,
        "[    7.000000] pve-gpu1 kernel: NVRM: Xid (PCI:0000:81:00): 79, GPU has fallen off the bus.\n",
    )
    .unwrap();
    let found = gpu_005(path.clone()).await;
    std::fs::remove_file(&path).unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with(
            "info pve-ippri-31 XIDs since boot on a GPU of pve-ippri-31 that NVML does not list \
             there (kernel log): XID 79 x1 on another GPU of this host (PCI 0000:81:00"
        ),
        "{found:?}"
    );
}

/// A host the file declares with GPUs whose NVML lists none is not a host without GPUs: NVML
/// initialised, so the driver is loaded, and a GPU that failed to initialise is not listed
/// (go-nvml `gen/nvml/nvml.h` `nvmlDeviceGetCount_v2` counts the accessible devices). GPU-005
/// judges it as `gpu-health --expect-gpus` does (examples `gpu-health.rs`
/// `unavailable_finding`): fewer than declared is never ok. pve-ippri-31 declares one A5000.
#[tokio::test]
async fn gpu_005_says_a_declared_gpu_host_showing_none_is_missing_its_gpus() {
    let lib = fake_nvml_library(FakeNvml::NoDevice).expect("gcc builds the fake NVML library");
    let mut sources = Sources::default();
    let source = NvmlSource::new(Some(lib), Duration::from_millis(100)).with_kernel_log(None);
    sources.site_mut("sp").gpus = vec![("pve-ippri-31".to_owned(), Box::new(source))];
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let audit = live::audit(&live_estate(), &observed, &LiveOptions::default());
    let found = messages(&of_rule(&audit.report.findings, "GPU-005"));
    assert!(
        found.contains(
            &"warning pve-ippri-31 NVML lists no GPU on pve-ippri-31, though the NVIDIA driver \
              is loaded and the file declares 1"
                .to_owned()
        ),
        "{found:?}"
    );
}
