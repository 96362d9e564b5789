//! XID history since boot, read from the kernel log: NVML only reports XIDs that happen while a
//! program listens, so the driver's `NVRM: Xid` lines are the record of what happened before.
//!
//! The line the driver prints (NVIDIA/open-gpu-kernel-modules, `src/nvidia/src/kernel/gpu/rc/
//! kernel_rc.c`, `krcReportXid`, macro `XID_PRINT_WITH_ATTR`):
//!
//! ```text
//! NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, <message>
//! NVRM: Xid (PCI:%04x:%02x:%02x): %d, <message>                      (no process context)
//! NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u): %d, ...                 (MIG GPU instance)
//! NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u): %d, ...     (and compute instance)
//! ```
//!
//! The PCI address is domain, bus and device (no function). XID 154's message names the new
//! recovery action (`src/nvidia/src/kernel/gpu/gpu.c`: "GPU recovery action changed from 0x%x
//! (%s) to 0x%x (%s)"), so it is graded by that action as NVML's event is.
//!
//! The log is read from `/dev/kmsg` (one record per read, `pri,seq,usec,flags;message`, then
//! continuation lines starting with a space; Linux `Documentation/ABI/testing/dev-kmsg`) or from
//! text such as `journalctl -k -b -o short-monotonic` or `dmesg` (`[ seconds.micros] message`).

use std::collections::BTreeMap;
use std::fmt;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::nvml::GpuSnapshot;
use crate::xid::{self, RecoveryAction, XidClass};

/// Read at most this many bytes of kernel log by default. The kernel's ring buffer is at most
/// 32 MiB (`CONFIG_LOG_BUF_SHIFT` ≤ 25), and `/dev/kmsg` adds a header per record.
pub const DEFAULT_CAP: usize = 64 * 1024 * 1024;

/// A GPU's PCI address as the driver prints it in an XID line: domain, bus, device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PciAddress {
    /// PCI domain (segment).
    pub domain: u32,
    /// Bus number.
    pub bus: u8,
    /// Device number.
    pub device: u8,
}

impl PciAddress {
    /// Parses `DDDD:BB:DD` (the kernel line) or NVML's `DDDDDDDD:BB:DD.F` (the function is
    /// ignored: the driver's line does not carry it).
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.split_once('.').map_or(s, |(addr, _function)| addr);
        let mut parts = s.split(':');
        let (domain, bus, device) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || bus.len() != 2 || device.len() != 2 {
            return None;
        }
        Some(Self {
            domain: u32::from_str_radix(domain, 16).ok()?,
            bus: u8::from_str_radix(bus, 16).ok()?,
            device: u8::from_str_radix(device, 16).ok()?,
        })
    }

    /// The GPU of `gpus` at this address (by NVML's PCI bus id), if any.
    pub fn gpu<'a>(&self, gpus: &'a [GpuSnapshot]) -> Option<&'a GpuSnapshot> {
        gpus.iter().find(|g| {
            g.pci_bus_id
                .value()
                .and_then(|id| Self::parse(id))
                .is_some_and(|a| a == *self)
        })
    }
}

impl fmt::Display for PciAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}",
            self.domain, self.bus, self.device
        )
    }
}

/// One `NVRM: Xid` line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct XidLine {
    /// The GPU.
    pub pci: PciAddress,
    /// The MIG GPU instance (`GPU-I:`), when the driver attributed it to one.
    pub gpu_instance: Option<u32>,
    /// The MIG compute instance (`GPU-CI:`).
    pub compute_instance: Option<u32>,
    /// The XID code.
    pub xid: u64,
    /// Everything after the code: process and the driver's message.
    pub detail: String,
}

/// Where in a message the driver's XID line starts.
const MARKER: &str = "NVRM: Xid (";

/// What a message with `NVRM: Xid (` in it says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum XidMessage {
    /// The line, read.
    Xid(XidLine),
    /// A line in a format this parser does not know (kept as a finding, never dropped).
    Unreadable,
}

/// Parses the XID line in `message` (kernel log text with or without a prefix); `None` when
/// the message has no `NVRM: Xid (`.
pub fn parse_xid_message(message: &str) -> Option<XidMessage> {
    let at = message.find(MARKER)?;
    Some(
        parse_after_marker(&message[at + MARKER.len()..])
            .map_or(XidMessage::Unreadable, XidMessage::Xid),
    )
}

fn parse_after_marker(rest: &str) -> Option<XidLine> {
    let (attr, rest) = rest.split_once("): ")?;
    let mut words = attr.split(' ');
    let address = words.next()?;
    // Older drivers printed the address without `PCI:`.
    let pci = PciAddress::parse(address.strip_prefix("PCI:").unwrap_or(address))?;
    let (mut gpu_instance, mut compute_instance) = (None, None);
    for word in words {
        if let Some(n) = word.strip_prefix("GPU-I:") {
            gpu_instance = Some(n.parse().ok()?);
        } else if let Some(n) = word.strip_prefix("GPU-CI:") {
            compute_instance = Some(n.parse().ok()?);
        } else {
            return None;
        }
    }
    let (code, detail) = rest.split_once(',').unwrap_or((rest, ""));
    Some(XidLine {
        pci,
        gpu_instance,
        compute_instance,
        xid: code.trim().parse().ok()?,
        detail: detail.trim().to_owned(),
    })
}

impl XidLine {
    /// The row of the one XID table for this line; XID 154 by the action its message names.
    pub fn info(&self) -> xid::XidInfo {
        xid::classify_event(self.xid, self.recovery_action())
    }

    /// XID 154's new recovery action, from "… to 0x%x (%s)".
    fn recovery_action(&self) -> Option<RecoveryAction> {
        if self.xid != 154 {
            return None;
        }
        let (_, to) = self.detail.rsplit_once(" to 0x")?;
        let hex: String = to.chars().take_while(char::is_ascii_hexdigit).collect();
        u32::from_str_radix(&hex, 16)
            .ok()
            .map(RecoveryAction::from_nvml)
    }
}

/// One kernel-log record: its time since boot when the format carries it, and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Record<'a> {
    seq: Option<u64>,
    since_boot: Option<Duration>,
    message: &'a str,
}

/// Splits a log line: a `/dev/kmsg` record (`pri,seq,usec,flags[,…];message`), a text line
/// with a `[ seconds.micros]` prefix (dmesg, `journalctl -o short-monotonic`), or plain text.
fn record(line: &str) -> Record<'_> {
    if let Some((header, message)) = line.split_once(';') {
        let fields: Vec<&str> = header.split(',').collect();
        if let [pri, seq, usec, _flags, ..] = fields.as_slice()
            && pri.parse::<u32>().is_ok()
            && let (Ok(seq), Ok(usec)) = (seq.parse::<u64>(), usec.parse::<u64>())
        {
            return Record {
                seq: Some(seq),
                since_boot: Some(Duration::from_micros(usec)),
                message,
            };
        }
    }
    let since_boot = line
        .trim_start()
        .strip_prefix('[')
        .and_then(|r| r.split_once(']'))
        .and_then(|(secs, _)| secs.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64);
    Record {
        seq: None,
        since_boot,
        message: line,
    }
}

/// The XIDs of one GPU and one code (and class: XID 154 lines differ by action).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct XidCount {
    /// The GPU.
    pub pci: PciAddress,
    /// The XID code.
    pub xid: u64,
    /// Its class in the one XID table.
    pub class: XidClass,
    /// What it means.
    pub meaning: &'static str,
    /// How many lines.
    pub count: u64,
    /// Time since boot of the last one, when the log format carries it.
    pub last_since_boot: Option<Duration>,
    /// The last line's detail (process and message).
    pub last_detail: String,
    /// A later XID 154 on this GPU said its recovery action went back to None: the driver
    /// logs 154 on every change of action (open-gpu-kernel-modules `gpu.c`
    /// `_gpuRefreshRecoveryActionInLock`), so this code is history, not the GPU's state now.
    pub superseded: bool,
}

impl XidCount {
    /// NVML reads the current recovery action of the GPU at this address as None (field 230,
    /// [`GpuSnapshot::recovery_action`]). The driver sets it back to None silently when it
    /// re-initialises the adapter, after a GPU reset too: `gpuPostConstruct_IMPL` starts from
    /// UNKNOWN and `_gpuRefreshRecoveryActionInLock` logs XID 154 only when the old action was
    /// not UNKNOWN (open-gpu-kernel-modules `src/nvidia/src/kernel/gpu/gpu.c`), so no
    /// "to 0x0 (None)" line closes the history then. A GPU not listed or not read is not None.
    pub fn cleared_now(&self, gpus: &[GpuSnapshot]) -> bool {
        self.pci
            .gpu(gpus)
            .and_then(|g| g.recovery_action.value())
            .is_some_and(|a| *a == RecoveryAction::None)
    }

    /// Whether this code is still the GPU's state, as gpu-health's history judge grades it:
    /// neither a later XID 154 to None ([`XidCount::superseded`]) nor NVML's current action
    /// ([`XidCount::cleared_now`]) closed it.
    pub fn is_current(&self, gpus: &[GpuSnapshot]) -> bool {
        !self.superseded && !self.cleared_now(gpus)
    }
}

/// The XID history found in a kernel log.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct XidHistory {
    /// Per GPU, XID code and class, sorted.
    pub counts: Vec<XidCount>,
    /// Whether the log read goes back to boot without a gap: `/dev/kmsg` numbers its records
    /// from 0 at boot, so a first record above 0, a jump, or records lost while reading mean
    /// older lines were overwritten. `None` for text, which does not say.
    pub complete: Option<bool>,
    /// `NVRM: Xid` lines this parser could not read (a format it does not know): never healthy.
    pub unparsed: Vec<String>,
}

impl XidHistory {
    /// The history in `log`: each line a `/dev/kmsg` record or text; `/dev/kmsg` continuation
    /// lines (starting with a space) are skipped.
    pub fn from_log(log: &KernelLog) -> Self {
        let mut counts: BTreeMap<(PciAddress, u64, XidClass), XidCount> = BTreeMap::new();
        let mut unparsed = Vec::new();
        let mut next_seq: Option<u64> = None;
        let (mut any_kmsg, mut gap) = (false, false);
        for line in log.text.lines().filter(|l| !l.starts_with(' ')) {
            let rec = record(line);
            if let Some(seq) = rec.seq {
                // The first record must be 0 and each next one the one after it.
                gap |= seq != next_seq.unwrap_or(0);
                next_seq = seq.checked_add(1);
                any_kmsg = true;
            }
            match parse_xid_message(rec.message) {
                None => {}
                Some(XidMessage::Unreadable) => unparsed.push(rec.message.to_owned()),
                Some(XidMessage::Xid(x)) => add(&mut counts, &x, rec.since_boot),
            }
        }
        let complete = if log.records_lost {
            Some(false)
        } else {
            any_kmsg.then_some(!gap)
        };
        Self {
            counts: counts.into_values().collect(),
            complete,
            unparsed,
        }
    }

    /// The worst class among the XIDs found; `None` when there are none.
    pub fn worst(&self) -> Option<XidClass> {
        self.counts.iter().map(|c| c.class).max_by_key(|c| rank(*c))
    }
}

/// Orders classes by how much they need attention (an unclassified code is never healthy: it
/// ranks with warnings, above application errors).
fn rank(class: XidClass) -> u8 {
    match class {
        XidClass::NoAction => 0,
        XidClass::Application => 1,
        XidClass::Warning | XidClass::Unclassified => 2,
        XidClass::Critical => 3,
    }
}

fn add(
    counts: &mut BTreeMap<(PciAddress, u64, XidClass), XidCount>,
    line: &XidLine,
    since_boot: Option<Duration>,
) {
    let info = line.info();
    let entry = counts
        .entry((line.pci, line.xid, info.class))
        .or_insert_with(|| XidCount {
            pci: line.pci,
            xid: line.xid,
            class: info.class,
            meaning: info.meaning,
            count: 0,
            last_since_boot: None,
            last_detail: String::new(),
            superseded: false,
        });
    entry.count += 1;
    entry.superseded = false;
    entry.last_since_boot = since_boot.or(entry.last_since_boot);
    entry.meaning = info.meaning;
    entry.last_detail.clone_from(&line.detail);
    // A change back to "no action needed" closes everything this GPU logged before it.
    if line.recovery_action() == Some(RecoveryAction::None) {
        let pci = line.pci;
        for c in counts.values_mut().filter(|c| c.pci == pci) {
            c.superseded = c.xid != 154 || c.class != info.class;
        }
    }
}

/// Kernel log text as read, lossily decoded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelLog {
    /// The records or lines, newline-separated.
    pub text: String,
    /// `/dev/kmsg` said records were overwritten while it was read (`EPIPE`).
    pub records_lost: bool,
}

/// Why the kernel log could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KernelLogError {
    /// Opening or reading failed.
    #[error("cannot read the kernel log {path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// More than the cap was there.
    #[error("the kernel log {path} holds more than {cap} bytes; not read (raise the cap)")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The cap, in bytes.
        cap: usize,
    },
    /// The log held nothing. A real `/dev/kmsg` always holds records from boot; an empty one is
    /// a stand-in (inside a container, a link to `/dev/null` or `/dev/console`): no input.
    #[error("the kernel log {path} is empty: cannot tell the XID history")]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// `/dev/kmsg` cannot be read without blocking on this platform.
    #[error("cannot read {path} without blocking on this platform")]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
}

/// `O_NONBLOCK` where it is Linux's generic value (`include/uapi/asm-generic/fcntl.h`,
/// 00004000): `/dev/kmsg` then answers `EAGAIN` at the end instead of waiting for new records.
/// Elsewhere (other systems, the few architectures with their own value) it is not known here.
const O_NONBLOCK: Option<i32> = if cfg!(all(
    target_os = "linux",
    any(
        target_arch = "x86_64",
        target_arch = "x86",
        target_arch = "aarch64",
        target_arch = "arm",
        target_arch = "riscv64",
        target_arch = "powerpc64",
        target_arch = "s390x",
        target_arch = "loongarch64"
    )
)) {
    Some(0o4000)
} else {
    None
};

/// Reads the kernel log at `path` (`/dev/kmsg`, or a text file such as a saved journal) up to
/// `cap` bytes, without waiting for new records. More than `cap` is an error, not a silently
/// shortened history; an empty log is an error too ([`KernelLogError::Empty`]), not a history
/// without XIDs.
pub fn read_kernel_log(path: &Path, cap: usize) -> Result<KernelLog, KernelLogError> {
    let io = |source| KernelLogError::Io {
        path: path.to_owned(),
        source,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
        match O_NONBLOCK {
            Some(flag) => {
                options.custom_flags(flag);
            }
            None if std::fs::metadata(path)
                .map_err(io)?
                .file_type()
                .is_char_device() =>
            {
                return Err(KernelLogError::Unsupported {
                    path: path.to_owned(),
                });
            }
            None => {}
        }
    }
    let file = options.open(path).map_err(io)?;
    let log = read_bounded(file, cap).map_err(|e| match e {
        Bounded::Io(source) => io(source),
        Bounded::TooLarge => KernelLogError::TooLarge {
            path: path.to_owned(),
            cap,
        },
    })?;
    // Nothing read is no input (a `/dev/null` stand-in), never a history without XIDs.
    if log.text.is_empty() {
        return Err(KernelLogError::Empty {
            path: path.to_owned(),
        });
    }
    Ok(log)
}

enum Bounded {
    Io(std::io::Error),
    TooLarge,
}

/// Reads until the end (`Ok(0)`) or `WouldBlock` (`/dev/kmsg` has no more records), at most
/// `cap` bytes. `/dev/kmsg` answers `EPIPE` once when records it was about to return were
/// overwritten (`kernel/printk/printk.c`, `devkmsg_read`); reading goes on, the gap noted.
fn read_bounded(mut reader: impl Read, cap: usize) -> Result<KernelLog, Bounded> {
    // One `/dev/kmsg` record must fit one read (the kernel formats at most 8 KiB per record).
    let mut buf = vec![0_u8; 16 * 1024];
    let mut bytes = Vec::new();
    let mut records_lost = false;
    let mut broken_pipes = 0_u32;
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if bytes.len() + n > cap {
                    return Err(Bounded::TooLarge);
                }
                bytes.extend_from_slice(&buf[..n]);
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => break,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            // A log overwritten faster than it is read could answer EPIPE forever.
            Err(e) if e.kind() == ErrorKind::BrokenPipe && broken_pipes < 1024 => {
                broken_pipes += 1;
                records_lost = true;
            }
            Err(e) => return Err(Bounded::Io(e)),
        }
    }
    Ok(KernelLog {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        records_lost,
    })
}

/// Prometheus/OpenMetrics text for the history (the same lines are valid in both formats; no
/// `# EOF`): per GPU (`pci_bus_id`), XID and class, the number of lines, the number still
/// current (0 once a later XID 154 back to None closed them, [`XidCount::superseded`]) and the
/// time since boot of the last one; whether the history is complete (absent when the format cannot tell); the
/// lines not understood.
pub fn exposition(history: &XidHistory) -> String {
    exposition_now(history, &[])
}

/// [`exposition`] judged with NVML's readings of this host's GPUs: a code whose GPU's current
/// recovery action is None serves 0 current lines ([`XidCount::is_current`], the judge
/// gpu-health uses), and each GPU whose action was read serves `cpps_gpu_recovery_action`
/// (NVML's value, `NVML_FI_DEV_GET_GPU_RECOVERY_ACTION`, and its name). A GPU whose action
/// could not be read (a driver before R570 answers NOT_SUPPORTED) serves no sample, so
/// nothing reads it as None.
pub fn exposition_now(history: &XidHistory, gpus: &[GpuSnapshot]) -> String {
    let mut out = up(true);
    family(
        &mut out,
        "cpps_gpu_xid_log_lines",
        "NVRM Xid lines in the kernel log since boot, per GPU, XID and class",
    );
    for c in &history.counts {
        sample(&mut out, "cpps_gpu_xid_log_lines", c, c.count.to_string());
    }
    // What the history judge grades as the GPU's state (health's `xid-history`): a later XID
    // 154 back to None closes what the GPU logged before it, so alerts read this series, not
    // the count since boot, and stop once the prescribed reset or drain is done.
    family(
        &mut out,
        "cpps_gpu_xid_log_current_lines",
        "NVRM Xid lines since boot per GPU, XID and class that no later XID 154 back to recovery action None closed (0 once closed)",
    );
    for c in &history.counts {
        let current = if c.is_current(gpus) { c.count } else { 0 };
        sample(
            &mut out,
            "cpps_gpu_xid_log_current_lines",
            c,
            current.to_string(),
        );
    }
    recovery_actions(&mut out, gpus);
    family(
        &mut out,
        "cpps_gpu_xid_log_last_seconds_since_boot",
        "Seconds after boot of the last NVRM Xid line, per GPU, XID and class",
    );
    for c in &history.counts {
        if let Some(t) = c.last_since_boot {
            let value = format!("{:.6}", t.as_secs_f64());
            sample(
                &mut out,
                "cpps_gpu_xid_log_last_seconds_since_boot",
                c,
                value,
            );
        }
    }
    family(
        &mut out,
        "cpps_gpu_xid_log_complete",
        "1 if the kernel log read reaches back to boot without a gap, 0 if older lines were lost",
    );
    if let Some(complete) = history.complete {
        out.push_str(&format!(
            "cpps_gpu_xid_log_complete {}\n",
            u8::from(complete)
        ));
    }
    family(
        &mut out,
        "cpps_gpu_xid_log_unparsed",
        "NVRM Xid lines in the kernel log in a format this exporter cannot read",
    );
    out.push_str(&format!(
        "cpps_gpu_xid_log_unparsed {}\n",
        history.unparsed.len()
    ));
    out
}

/// `cpps_gpu_recovery_action` per GPU whose action NVML read, by the PCI address the XID
/// lines carry, so a rule can join the two on `pci_bus_id`.
fn recovery_actions(out: &mut String, gpus: &[GpuSnapshot]) {
    family(
        out,
        "cpps_gpu_recovery_action",
        "NVML's current recovery action per GPU (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION: 0 none, 1 gpu_reset, 2 node_reboot, 3 drain_p2p, 4 drain_and_reset, 5 recover_imex_domain, 6 bus_reset, 7 system_reboot)",
    );
    for g in gpus {
        let pci = g.pci_bus_id.value().and_then(|id| PciAddress::parse(id));
        if let (Some(pci), Some(action)) = (pci, g.recovery_action.value()) {
            let (value, name) = action_label(*action);
            out.push_str(&format!(
                "cpps_gpu_recovery_action{{pci_bus_id=\"{pci}\",action=\"{name}\"}} {value}\n"
            ));
        }
    }
}

/// NVML's value of an action (`nvmlGpuRecoveryAction_t`, nvml.h) and its name as a label.
fn action_label(action: RecoveryAction) -> (u32, &'static str) {
    match action {
        RecoveryAction::None => (0, "none"),
        RecoveryAction::GpuReset => (1, "gpu_reset"),
        RecoveryAction::NodeReboot => (2, "node_reboot"),
        RecoveryAction::DrainP2p => (3, "drain_p2p"),
        RecoveryAction::DrainAndReset => (4, "drain_and_reset"),
        RecoveryAction::RecoverImexDomain => (5, "recover_imex_domain"),
        RecoveryAction::BusReset => (6, "bus_reset"),
        RecoveryAction::SystemReboot => (7, "system_reboot"),
        RecoveryAction::Unknown(v) => (v, "unknown"),
    }
}

/// The exposition when the log could not be read: `cpps_gpu_xid_log_up 0` and nothing else,
/// so no alert reads an unread log as "no XIDs".
pub fn exposition_unreadable() -> String {
    up(false)
}

fn up(read: bool) -> String {
    let mut out = String::new();
    family(
        &mut out,
        "cpps_gpu_xid_log_up",
        "1 if the kernel log was read for NVRM Xid lines at the last observation, 0 if not",
    );
    out.push_str(&format!("cpps_gpu_xid_log_up {}\n", u8::from(read)));
    out
}

fn family(out: &mut String, name: &str, help: &str) {
    out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
}

fn sample(out: &mut String, name: &str, c: &XidCount, value: String) {
    out.push_str(&format!(
        "{name}{{pci_bus_id=\"{}\",xid=\"{}\",class=\"{}\"}} {value}\n",
        c.pci,
        c.xid,
        class_label(c.class)
    ));
}

/// The class as a label value (the same words as its JSON form).
pub fn class_label(class: XidClass) -> &'static str {
    match class {
        XidClass::Application => "application",
        XidClass::NoAction => "no_action",
        XidClass::Warning => "warning",
        XidClass::Critical => "critical",
        XidClass::Unclassified => "unclassified",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvml::{GpuSnapshot, Reading};

    const KMSG: &str = include_str!("../tests/fixtures/kmsg/nvrm-xid.kmsg");
    const JOURNAL: &str = include_str!("../tests/fixtures/kmsg/journal-short-monotonic.txt");

    fn log(text: &str) -> KernelLog {
        KernelLog {
            text: text.to_owned(),
            records_lost: false,
        }
    }

    fn pci(bus: u8) -> PciAddress {
        PciAddress {
            domain: 0,
            bus,
            device: 0,
        }
    }

    /// Rows (GPU, XID, class, count, seconds since boot of the last one).
    fn rows(h: &XidHistory) -> Vec<(String, u64, XidClass, u64, Option<f64>)> {
        h.counts
            .iter()
            .map(|c| {
                let last = c.last_since_boot.map(|d| d.as_secs_f64());
                (c.pci.to_string(), c.xid, c.class, c.count, last)
            })
            .collect()
    }

    /// The driver's formats (open-gpu-kernel-modules `kernel_rc.c` `krcReportXid`,
    /// `kern_gpu_error_cont_ga100.c`, `osinit.c`, `gpu.c`; see the fixture's README) read from
    /// `/dev/kmsg` records: counts and last time per GPU and XID, graded by the one table, XID
    /// 154 by the action its message names, MIG attribution folded into the GPU.
    #[test]
    fn kmsg_records_give_counts_and_last_time_per_gpu() {
        let h = XidHistory::from_log(&log(KMSG));
        use XidClass::{Critical, Unclassified, Warning};
        assert_eq!(
            rows(&h),
            vec![
                ("0000:01:00".to_owned(), 94, Warning, 2, Some(5.310012)),
                ("0000:01:00".to_owned(), 95, Critical, 1, Some(7.2)),
                ("0000:01:00".to_owned(), 154, Critical, 1, Some(7.2001)),
                ("0000:41:00".to_owned(), 32, Unclassified, 1, Some(9.5)),
                ("0000:41:00".to_owned(), 79, Critical, 1, Some(9.0)),
                ("0000:41:00".to_owned(), 154, Warning, 1, Some(9.000001)),
            ]
        );
        assert_eq!(h.complete, Some(true));
        assert_eq!(h.unparsed.len(), 1, "{:?}", h.unparsed);
        assert!(h.unparsed[0].contains("MIG:7"));
        assert_eq!(h.worst(), Some(Critical));
        assert_eq!(h.counts[4].last_detail, "GPU has fallen off the bus.");
        assert_eq!(
            h.counts[2].meaning,
            "GPU recovery action changed to GPU_RESET (reset the GPU)"
        );
    }

    /// The driver logs XID 154 on every change of recovery action, back to None too
    /// (open-gpu-kernel-modules `src/nvidia/src/kernel/gpu/gpu.c`
    /// `_gpuRefreshRecoveryActionInLock`): a later "to 0x0 (None)" on a GPU supersedes what
    /// that GPU logged before it, and only that GPU's; an XID after it is current again.
    #[test]
    fn a_later_154_back_to_none_supersedes_that_gpus_older_xids() {
        let text = format!(
            "{KMSG}3,10,9700000,-;NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed \
             from 0x1 (GPU Reset Required) to 0x0 (None)\n"
        );
        let h = XidHistory::from_log(&log(&text));
        let superseded: Vec<(String, u64, bool)> = h
            .counts
            .iter()
            .map(|c| (c.pci.to_string(), c.xid, c.superseded))
            .collect();
        assert_eq!(
            superseded,
            vec![
                ("0000:01:00".to_owned(), 94, true),
                ("0000:01:00".to_owned(), 95, true),
                ("0000:01:00".to_owned(), 154, false),
                ("0000:01:00".to_owned(), 154, true),
                ("0000:41:00".to_owned(), 32, false),
                ("0000:41:00".to_owned(), 79, false),
                ("0000:41:00".to_owned(), 154, false),
            ]
        );
        let again = format!("{text}3,11,9800000,-;NVRM: Xid (PCI:0000:01:00): 95, pid=1, again\n");
        let h = XidHistory::from_log(&log(&again));
        let xid95 = h.counts.iter().find(|c| c.xid == 95).map(|c| c.superseded);
        assert_eq!(xid95, Some(false));
    }

    /// What an alert reads must be what the history judge says: a GPU whose recovery action a
    /// later XID 154 put back to None (open-gpu-kernel-modules `src/nvidia/src/kernel/gpu/gpu.c`
    /// `_gpuRefreshRecoveryActionInLock` logs that change too) serves 0 current lines for what
    /// it logged before; the lines since boot stay counted.
    #[test]
    fn exposition_serves_the_xids_a_later_154_to_none_did_not_close() {
        let text = format!(
            "{KMSG}3,10,9700000,-;NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed \
             from 0x1 (GPU Reset Required) to 0x0 (None)\n"
        );
        let served = exposition(&XidHistory::from_log(&log(&text)));
        for line in [
            "# TYPE cpps_gpu_xid_log_current_lines gauge",
            "cpps_gpu_xid_log_current_lines{pci_bus_id=\"0000:01:00\",xid=\"95\",class=\"critical\"} 0",
            "cpps_gpu_xid_log_current_lines{pci_bus_id=\"0000:01:00\",xid=\"154\",class=\"critical\"} 0",
            "cpps_gpu_xid_log_current_lines{pci_bus_id=\"0000:01:00\",xid=\"94\",class=\"warning\"} 0",
            "cpps_gpu_xid_log_current_lines{pci_bus_id=\"0000:41:00\",xid=\"79\",class=\"critical\"} 1",
            "cpps_gpu_xid_log_lines{pci_bus_id=\"0000:01:00\",xid=\"95\",class=\"critical\"} 1",
        ] {
            assert!(
                served.lines().any(|l| l == line),
                "{line} missing:\n{served}"
            );
        }
        // Before the 154 back to None, GPU 01:00's reset-requiring XID 95 is current.
        let before = exposition(&XidHistory::from_log(&log(KMSG)));
        let current_95 = "cpps_gpu_xid_log_current_lines{pci_bus_id=\"0000:01:00\",xid=\"95\",class=\"critical\"} 1";
        assert!(before.lines().any(|l| l == current_95), "{before}");
    }

    /// A GPU reset or adapter re-init sets the recovery action back to None without a line:
    /// `gpuPostConstruct_IMPL` starts from UNKNOWN and `_gpuRefreshRecoveryActionInLock` logs
    /// XID 154 only `if (oldAction != GPU_RECOVERY_ACTION_UNKNOWN)` (open-gpu-kernel-modules
    /// `src/nvidia/src/kernel/gpu/gpu.c`). So the exporter judges by NVML's current action
    /// (field 230) as gpu-health does: None closes that GPU's history, a pending reset keeps it
    /// current, and an unread action (NOT_SUPPORTED before R570) is never taken as None.
    #[test]
    fn exposition_now_closes_the_history_of_a_gpu_nvml_reads_as_recovered() {
        use crate::nvml::FakeGpuSource;
        let history = XidHistory::from_log(&log(KMSG));
        let mut recovered = FakeGpuSource::healthy_gpu(0, "GPU-a");
        recovered.recovery_action = Reading::Value(RecoveryAction::None);
        let mut pending = FakeGpuSource::healthy_gpu(0x40, "GPU-b");
        pending.recovery_action = Reading::Value(RecoveryAction::GpuReset);
        let served = exposition_now(&history, &[recovered.clone(), pending.clone()]);
        let current = |pci: &str, xid: u64, class: &str| {
            format!(
                "cpps_gpu_xid_log_current_lines{{pci_bus_id=\"{pci}\",xid=\"{xid}\",class=\"{class}\"}} "
            )
        };
        let value = |text: &str, prefix: &str| -> Option<String> {
            text.lines()
                .find_map(|l| l.strip_prefix(prefix).map(str::to_owned))
        };
        assert_eq!(
            value(&served, &current("0000:01:00", 95, "critical")),
            Some("0".into())
        );
        assert_eq!(
            value(&served, &current("0000:01:00", 94, "warning")),
            Some("0".into())
        );
        assert_eq!(
            value(&served, &current("0000:41:00", 79, "critical")),
            Some("1".into())
        );
        assert_eq!(
            value(
                &served,
                "cpps_gpu_xid_log_lines{pci_bus_id=\"0000:01:00\",xid=\"95\",class=\"critical\"} "
            ),
            Some("1".into())
        );
        for line in [
            "# TYPE cpps_gpu_recovery_action gauge",
            "cpps_gpu_recovery_action{pci_bus_id=\"0000:01:00\",action=\"none\"} 0",
            "cpps_gpu_recovery_action{pci_bus_id=\"0000:41:00\",action=\"gpu_reset\"} 1",
        ] {
            assert!(
                served.lines().any(|l| l == line),
                "{line} missing:\n{served}"
            );
        }
        // Field 230 unread: the history stays current and no action is served.
        let mut unread = recovered;
        unread.recovery_action = Reading::NotSupported;
        let served = exposition_now(&history, &[unread]);
        assert_eq!(
            value(&served, &current("0000:01:00", 95, "critical")),
            Some("1".into())
        );
        assert!(!served.contains("cpps_gpu_recovery_action{"), "{served}");
        assert!(
            history
                .counts
                .iter()
                .all(|c| c.is_current(&[pending.clone()]) != c.superseded)
        );
    }

    /// `/dev/kmsg` numbers records from 0 at boot (Linux `Documentation/ABI/testing/dev-kmsg`):
    /// a log starting later, a jump, or an `EPIPE` while reading means lines were lost, and the
    /// history says so instead of passing for "since boot".
    #[test]
    fn a_log_with_lost_records_is_not_complete() {
        let later: String = KMSG.lines().skip(1).map(|l| format!("{l}\n")).collect();
        assert_eq!(XidHistory::from_log(&log(&later)).complete, Some(false));
        let jump = KMSG.replace("3,6,9000000", "3,60,9000000");
        assert_eq!(XidHistory::from_log(&log(&jump)).complete, Some(false));
        let lost = KernelLog {
            text: KMSG.to_owned(),
            records_lost: true,
        };
        assert_eq!(XidHistory::from_log(&lost).complete, Some(false));
    }

    /// Journal text (`journalctl -k -o short-monotonic`) carries the time since boot in
    /// brackets; the default `short` format does not; neither says whether lines were lost.
    #[test]
    fn journal_text_is_read_and_cannot_tell_completeness() {
        let h = XidHistory::from_log(&log(JOURNAL));
        use XidClass::{Critical, Warning};
        assert_eq!(
            rows(&h),
            vec![
                ("0000:01:00".to_owned(), 94, Warning, 1, Some(5.210012)),
                ("0000:41:00".to_owned(), 79, Critical, 2, Some(9.0)),
            ]
        );
        assert_eq!(h.complete, None);
        assert_eq!(XidHistory::from_log(&log("")).worst(), None);
    }

    /// NVML's bus id is `%08X:%02X:%02X.0` (go-nvml `gen/nvml/nvml.h`,
    /// `NVML_DEVICE_PCI_BUS_ID_FMT`); the driver's line has `%04x:%02x:%02x`. Both name one GPU.
    #[test]
    fn the_kernel_address_finds_the_nvml_gpu() {
        let mut gpus = vec![
            crate::nvml::FakeGpuSource::healthy_gpu(0, "GPU-a"),
            crate::nvml::FakeGpuSource::healthy_gpu(1, "GPU-b"),
        ];
        gpus[0].pci_bus_id = Reading::Value("00000000:01:00.0".to_owned());
        gpus[1].pci_bus_id = Reading::Value("00000000:41:00.0".to_owned());
        let found = |a: PciAddress| a.gpu(&gpus).map(|g: &GpuSnapshot| g.index);
        assert_eq!(found(pci(0x41)), Some(1));
        assert_eq!(found(pci(0x01)), Some(0));
        assert_eq!(found(pci(0x02)), None);
        assert_eq!(PciAddress::parse("0000:4a:00"), Some(pci(0x4a)));
        assert_eq!(PciAddress::parse("0000:4a"), None);
        assert_eq!(PciAddress::parse("zz:4a:00"), None);
    }

    /// A reader that answers each item in turn, then `WouldBlock` (as `/dev/kmsg` opened with
    /// `O_NONBLOCK` does at its end: `kernel/printk/printk.c`, `devkmsg_read`).
    struct Script(Vec<Result<&'static str, ErrorKind>>);

    impl Read for Script {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.0.is_empty() {
                return Err(ErrorKind::WouldBlock.into());
            }
            match self.0.remove(0) {
                Ok(s) => {
                    buf[..s.len()].copy_from_slice(s.as_bytes());
                    Ok(s.len())
                }
                Err(kind) => Err(kind.into()),
            }
        }
    }

    #[test]
    fn reading_stops_at_the_end_notes_epipe_and_refuses_more_than_the_cap() {
        let script = || {
            Script(vec![
                Ok("6,0,0,-;a\n"),
                Err(ErrorKind::BrokenPipe),
                Ok("6,5,1,-;b\n"),
            ])
        };
        let Ok(read) = read_bounded(script(), 1024) else {
            panic!("read fails")
        };
        assert_eq!(read.text, "6,0,0,-;a\n6,5,1,-;b\n");
        assert!(read.records_lost);
        assert!(matches!(read_bounded(script(), 15), Err(Bounded::TooLarge)));
        let denied = Script(vec![Err(ErrorKind::PermissionDenied)]);
        assert!(matches!(read_bounded(denied, 1024), Err(Bounded::Io(_))));
        // The error names the file and the cap.
        let e = KernelLogError::TooLarge {
            path: "/dev/kmsg".into(),
            cap: 15,
        };
        assert_eq!(
            e.to_string(),
            "the kernel log /dev/kmsg holds more than 15 bytes; not read (raise the cap)"
        );
    }

    /// Audit 34 S-a: in an LXC container `/dev/kmsg` is often a link to `/dev/console` or
    /// `/dev/null` (LXC's `lxc.kmsg`, lxc.container.conf(5); the usual kubelet-in-LXC
    /// workaround `ln -sf /dev/null /dev/kmsg`), which reads as nothing. A real `/dev/kmsg`
    /// always holds records from boot (Linux `Documentation/ABI/testing/dev-kmsg`: records
    /// are numbered from 0 at boot), so an empty read is no input, not "no XIDs".
    #[test]
    fn an_empty_log_is_not_read() {
        let e = read_kernel_log(Path::new("/dev/null"), 1024).unwrap_err();
        assert!(matches!(e, KernelLogError::Empty { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "the kernel log /dev/null is empty: cannot tell the XID history"
        );
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("kmsg");
        std::fs::write(&empty, "").unwrap();
        let e = read_kernel_log(&empty, 1024).unwrap_err();
        assert!(matches!(e, KernelLogError::Empty { .. }), "{e:?}");
    }

    #[test]
    fn a_missing_file_is_a_clear_error() {
        let e = read_kernel_log(Path::new("/nonexistent/kmsg"), 1024).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot read the kernel log /nonexistent/kmsg"
        );
    }

    #[test]
    fn exposition_has_one_sample_per_gpu_xid_and_class() {
        let text = exposition(&XidHistory::from_log(&log(KMSG)));
        for line in [
            "cpps_gpu_xid_log_lines{pci_bus_id=\"0000:01:00\",xid=\"94\",class=\"warning\"} 2",
            "cpps_gpu_xid_log_lines{pci_bus_id=\"0000:41:00\",xid=\"79\",class=\"critical\"} 1",
            "cpps_gpu_xid_log_last_seconds_since_boot{pci_bus_id=\"0000:41:00\",xid=\"79\",class=\"critical\"} 9.000000",
            "cpps_gpu_xid_log_complete 1",
            "cpps_gpu_xid_log_unparsed 1",
            "cpps_gpu_xid_log_up 1",
            "# TYPE cpps_gpu_xid_log_lines gauge",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} missing:\n{text}");
        }
        assert_eq!(text.matches("cpps_gpu_xid_log_lines{").count(), 6);
        let unread = exposition_unreadable();
        assert_eq!(
            unread
                .lines()
                .filter(|l| !l.starts_with('#'))
                .collect::<Vec<_>>(),
            ["cpps_gpu_xid_log_up 0"]
        );
        // Text says nothing about completeness: no sample rather than a guess.
        let journal = exposition(&XidHistory::from_log(&log(JOURNAL)));
        assert!(
            !journal
                .lines()
                .any(|l| l.starts_with("cpps_gpu_xid_log_complete")),
            "{journal}"
        );
    }
}
