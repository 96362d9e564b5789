//! `gpu-health`: local GPUs through NVML with their verdicts (ECC mode and counters, row
//! remapping, XIDs) and, given a kubeconfig, the GPU cluster's cross-checks. Read-only. Exit
//! status 1 on any critical finding, 2 when it could not run or could not tell the local GPUs'
//! state (an NVML that may not talk to the driver, or that does not answer). An NVML library
//! that loads but whose driver is not loaded or does not match it is critical.
//!
//! ```text
//! gpu-health [--nvml-lib PATH] [--kubeconfig PATH] [--driver-version V] [--format text|json]
//!            [--expect-gpus N] [--xid-wait-ms MS] [--kernel-log PATH|none] [--timeout SECONDS]
//! ```
//!
//! NVML reports only the XIDs that happen while it listens, so the history since boot is read
//! from the kernel log (`--kernel-log`, default `/dev/kmsg`; a saved `journalctl -k -b -o
//! short-monotonic` or `dmesg` text works too): the driver's `NVRM: Xid` lines, graded by the one
//! XID table and matched to the GPUs by PCI address. An empty or unreadable log is "cannot
//! tell" (a warning); `none` skips it and the report says so.
//!
//! `--timeout` (default 30 s) bounds the whole run: the XID wait is cut to it, and a cluster that
//! has not answered by then, or that refused to be read, is reported as a finding next to the
//! NVML results.
#![forbid(unsafe_code)]

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use cpps_examples::Format;
use cpps_gpu::NvmlUnavailable;
use cpps_gpu::health::{
    Finding, HealthPolicy, HostVerdict, Severity, host_verdict, xid_history_findings,
};
use cpps_gpu::k8s::checks::{self, CheckPolicy};
use cpps_gpu::kernel_log::{self, XidHistory};
use cpps_gpu::nvml::{GpuSnapshot, HostSnapshot, NvmlSource, Reading, snapshot};
use serde::Serialize;

/// NVIDIA GPU health (NVML) and the GPU cluster's Kubernetes state.
#[derive(Debug, Parser)]
#[command(name = "gpu-health", version)]
struct Args {
    /// The NVML library to load (default: libnvidia-ml.so.1 from the system).
    #[arg(long, value_name = "PATH")]
    nvml_lib: Option<PathBuf>,
    /// Check the cluster this kubeconfig points at.
    #[arg(long, value_name = "PATH")]
    kubeconfig: Option<PathBuf>,
    /// The pinned NVIDIA driver version; another running version is a warning (GPU-005's
    /// severity, shared with the live audit through cpps-gpu's driver-pin policy).
    #[arg(long, value_name = "V")]
    driver_version: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// The kernel log to read the XID history since boot from: `/dev/kmsg`, a saved journal or
    /// dmesg text, or `none`.
    #[arg(long, value_name = "PATH|none", default_value = "/dev/kmsg")]
    kernel_log: PathBuf,
    /// The number of GPUs this host is declared with (the topology's): NVML listing fewer, or
    /// none with the driver loaded, is critical; an NVML library missing is "cannot tell".
    /// Without it, a host where NVML finds no GPU is a host without GPUs.
    #[arg(long, value_name = "N")]
    expect_gpus: Option<u32>,
    /// How long to listen for XID events, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    xid_wait_ms: u64,
    /// Bound on the whole run, in seconds (NVML and the cluster); what answered in time is
    /// reported.
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    timeout: u64,
}

#[derive(Debug, Serialize)]
struct Report {
    nvml: NvmlReport,
    kernel_log: KernelLogReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    cluster: Option<ClusterReport>,
    severity: Severity,
}

#[derive(Debug, Serialize)]
struct NvmlReport {
    available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    unavailable: Option<String>,
    /// What an NVML that could not be used means for this host (none: no GPU here), or the GPUs
    /// missing against `--expect-gpus`.
    #[serde(skip_serializing_if = "Option::is_none")]
    finding: Option<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    snapshot: Option<HostSnapshot>,
    #[serde(skip_serializing_if = "Option::is_none")]
    verdict: Option<HostVerdict>,
}

/// The XID history since boot, as read from the kernel log.
#[derive(Debug, Serialize)]
struct KernelLogReport {
    /// The file read, or `none`.
    source: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    history: Option<XidHistory>,
    findings: Vec<Finding>,
}

/// Reads and grades the kernel log at `path` (`none`: not read) against the GPUs NVML listed.
fn read_kernel_log(path: &std::path::Path, gpus: &[GpuSnapshot]) -> KernelLogReport {
    let source = path.display().to_string();
    if path.as_os_str() == "none" {
        return KernelLogReport {
            source,
            history: None,
            findings: vec![],
        };
    }
    let history = kernel_log::read_kernel_log(path, kernel_log::DEFAULT_CAP)
        .map(|log| XidHistory::from_log(&log));
    KernelLogReport {
        source,
        findings: xid_history_findings(&history, gpus),
        history: history.ok(),
    }
}

#[derive(Debug, Serialize)]
struct ClusterReport {
    gpu_nodes: usize,
    missing: Vec<String>,
    findings: Vec<Finding>,
}

fn read_nvml(
    library: Option<PathBuf>,
    driver_version: Option<String>,
    expected: Option<u32>,
    xid_wait: Duration,
) -> anyhow::Result<NvmlReport> {
    let source = match NvmlSource::open(library.as_deref().map(|p| p.as_os_str())) {
        Ok(s) => s,
        Err(cpps_gpu::Error::NvmlUnavailable(why)) => {
            return Ok(NvmlReport {
                available: false,
                unavailable: Some(why.to_string()),
                finding: unavailable_finding(&why, expected.filter(|n| *n > 0)),
                snapshot: None,
                verdict: None,
            });
        }
        Err(e) => return Err(e.into()),
    };
    let snap = snapshot(&source, xid_wait)?;
    let mut policy = HealthPolicy::default();
    if let Some(v) = driver_version {
        policy = policy.with_pinned_driver(v);
    }
    let verdict = host_verdict(&snap, &policy);
    let listed = snap.gpus.len();
    // Fewer GPUs than declared: one that fell off the bus or failed to initialise is not listed.
    let finding = expected
        .filter(|n| usize::try_from(*n).is_ok_and(|n| listed < n))
        .map(|n| {
            Finding::new(
                Severity::Critical,
                "gpus-missing",
                format!("NVML lists {listed} GPU(s) here, {n} expected"),
            )
        });
    Ok(NvmlReport {
        available: true,
        unavailable: None,
        finding,
        snapshot: Some(snap),
        verdict: Some(verdict),
    })
}

/// No library or no GPU is a host without GPUs, unless the host is declared with `expected`
/// GPUs: then no GPU with the driver loaded (`nvmlInit_v2` succeeded) is critical, and no
/// library cannot tell. A library that loads but cannot reach its driver is a GPU host whose
/// GPUs cannot be used (nvml.h `nvmlInit_v2`: DRIVER_NOT_LOADED, LIB_RM_VERSION_MISMATCH), and
/// one that may not talk to it cannot tell.
fn unavailable_finding(why: &NvmlUnavailable, expected: Option<u32>) -> Option<Finding> {
    match (why, expected) {
        (NvmlUnavailable::NoDevice, Some(n)) => Some(Finding::new(
            Severity::Critical,
            "gpus-missing",
            format!(
                "NVML lists no GPU here, though the NVIDIA driver is loaded and {n} are expected"
            ),
        )),
        (NvmlUnavailable::LibraryMissing { .. }, Some(n)) => {
            Some(unreadable(format!("{n} GPU(s) expected, but {why}")))
        }
        _ => None,
    }
    .or_else(|| generic_unavailable_finding(why))
}

/// [`unavailable_finding`] for a host not declared with GPUs.
fn generic_unavailable_finding(why: &NvmlUnavailable) -> Option<Finding> {
    match why {
        NvmlUnavailable::LibraryMissing { .. } | NvmlUnavailable::NoDevice => None,
        NvmlUnavailable::DriverNotLoaded | NvmlUnavailable::DriverMismatch => Some(Finding::new(
            Severity::Critical,
            "nvml-driver-unusable",
            format!("the NVML library is installed but the NVIDIA driver cannot be used: {why}"),
        )),
        _ => Some(unreadable(why.to_string())),
    }
}

/// The local GPUs' state could not be read: a Warning that makes the run exit 2, never ok.
fn unreadable(why: String) -> Finding {
    Finding::new(
        Severity::Warning,
        "nvml-unreadable",
        format!("cannot tell the GPUs' state: {why}"),
    )
}

async fn read_cluster(path: &std::path::Path) -> anyhow::Result<ClusterReport> {
    let client = cpps_gpu::k8s::client_from_kubeconfig(path).await?;
    let snap = cpps_gpu::k8s::collect(&client).await?;
    let findings = checks::run(&snap, &CheckPolicy::default(), jiff::Timestamp::now());
    Ok(ClusterReport {
        gpu_nodes: snap.nodes.iter().filter(|n| n.has_gpu()).count(),
        missing: snap.missing.iter().map(|m| m.0.to_owned()).collect(),
        findings,
    })
}

fn show<T: std::fmt::Display>(r: &Reading<T>) -> String {
    match r {
        Reading::Value(v) => v.to_string(),
        Reading::NotSupported => "n/a".to_owned(),
        Reading::Failed { error } => format!("error ({error})"),
        _ => "?".to_owned(),
    }
}

fn gpu_line(g: &GpuSnapshot) -> String {
    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    let mem = match g.memory.value() {
        Some(m) => format!("{:.1}/{:.1} GiB", m.used as f64 / GIB, m.total as f64 / GIB),
        None => "memory n/a".to_owned(),
    };
    let ecc = match &g.ecc.mode {
        Reading::Value(m) if m.current => "ECC on".to_owned(),
        Reading::Value(_) => "ECC off".to_owned(),
        other => format!("ECC {}", show(&other.clone().map(|_| ""))),
    };
    format!(
        "GPU {} {} {} {} {} °C {} W {ecc}",
        g.index,
        show(&g.name),
        show(&g.uuid),
        mem,
        show(&g.temperature_c),
        g.power_mw.value().map_or_else(
            || "n/a".to_owned(),
            |mw| format!("{:.0}", f64::from(*mw) / 1000.0)
        ),
    )
}

fn print_text(r: &Report) {
    match (&r.nvml.snapshot, &r.nvml.verdict) {
        (Some(snap), Some(v)) => {
            println!(
                "host: driver {}, CUDA {}: {}",
                show(&snap.host.driver_version),
                show(&snap.host.cuda_driver_version),
                v.severity
            );
            for f in v.findings.iter().chain(&r.nvml.finding) {
                println!("  {} {}: {}", f.severity, f.code, f.message);
            }
            for (g, gv) in snap.gpus.iter().zip(&v.gpus) {
                println!("{}: {}", gpu_line(g), gv.severity);
                for f in &gv.findings {
                    println!("  {} {}: {}", f.severity, f.code, f.message);
                }
            }
            if snap.xids.is_empty() {
                println!("XIDs: none seen");
            } else {
                for x in &snap.xids {
                    let info = cpps_gpu::xid::classify_event(x.xid, x.recovery_action);
                    let gpu = x
                        .gpu_index
                        .map_or_else(|| "?".to_owned(), |i| i.to_string());
                    // A lost GPU is NVML's answer, not an XID number the driver logged.
                    let what = if x.xid == cpps_gpu::xid::GPU_LOST {
                        "GPU lost".to_owned()
                    } else {
                        format!("XID {}", x.xid)
                    };
                    println!("{what} on GPU {gpu}: {} ({:?})", info.meaning, info.class);
                }
            }
        }
        _ => {
            println!(
                "NVML not available here: {}",
                r.nvml.unavailable.as_deref().unwrap_or("unknown")
            );
            if let Some(f) = &r.nvml.finding {
                println!("  {} {}: {}", f.severity, f.code, f.message);
            }
        }
    }
    print_kernel_log(&r.kernel_log);
    if let Some(c) = &r.cluster {
        println!("cluster: {} GPU node(s)", c.gpu_nodes);
        for m in &c.missing {
            println!("  not served: {m}");
        }
        for f in &c.findings {
            match &f.object {
                Some(o) => println!("  {} {} {}: {}", f.severity, f.code, o, f.message),
                None => println!("  {} {}: {}", f.severity, f.code, f.message),
            }
        }
    }
    println!("overall: {}", r.severity);
}

fn print_kernel_log(k: &KernelLogReport) {
    match &k.history {
        None if k.findings.is_empty() => {
            println!("XID history since boot: not read ({})", k.source)
        }
        None => println!("XID history since boot ({}):", k.source),
        Some(h) => println!(
            "XID history since boot ({}): {} XID line(s)",
            k.source,
            h.counts.iter().map(|c| c.count).sum::<u64>()
        ),
    }
    for f in &k.findings {
        println!("  {} {}: {}", f.severity, f.code, f.message);
    }
}

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("gpu-health: {e}");
            return ExitCode::from(2);
        }
    };
    let code = runtime.block_on(async_main());
    // An NVML call still blocking past the timeout must not hold the exit.
    runtime.shutdown_background();
    code
}

async fn async_main() -> ExitCode {
    let args = Args::parse();
    match run(&args).await {
        Ok(report) => {
            match args.format {
                Format::Text => print_text(&report),
                Format::Json => match serde_json::to_string_pretty(&report) {
                    Ok(s) => println!("{s}"),
                    Err(e) => {
                        eprintln!("gpu-health: {e}");
                        return ExitCode::from(2);
                    }
                },
            }
            if report.severity == Severity::Critical {
                ExitCode::from(1)
            } else if report.nvml.finding.is_some() {
                // NVML is there but its answer is missing: the host's state is not told.
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) => {
            eprintln!("gpu-health: {e:#}");
            ExitCode::from(2)
        }
    }
}

async fn run(args: &Args) -> anyhow::Result<Report> {
    let timeout = Duration::from_secs(args.timeout);
    let deadline = tokio::time::Instant::now() + timeout;
    // The XID wait ends a little before the bound, so that the host's readings are reported.
    let xid_wait = Duration::from_millis(args.xid_wait_ms)
        .min(timeout.saturating_sub(Duration::from_millis(500)));
    let (library, driver) = (args.nvml_lib.clone(), args.driver_version.clone());
    let expected = args.expect_gpus;
    let nvml = tokio::task::spawn_blocking(move || read_nvml(library, driver, expected, xid_wait));
    let nvml = match tokio::time::timeout_at(deadline, nvml).await {
        Ok(joined) => joined??,
        Err(_) => {
            let why = format!("NVML did not answer within {} s", args.timeout);
            NvmlReport {
                available: false,
                finding: Some(unreadable(why.clone())),
                unavailable: Some(why),
                snapshot: None,
                verdict: None,
            }
        }
    };
    let gpus = nvml
        .snapshot
        .as_ref()
        .map(|s| s.gpus.clone())
        .unwrap_or_default();
    // No NVML library or no device: a host without GPUs has no XID history to read.
    let path = if !nvml.available && nvml.finding.is_none() {
        PathBuf::from("none")
    } else {
        args.kernel_log.clone()
    };
    let kernel_log = tokio::task::spawn_blocking(move || read_kernel_log(&path, &gpus)).await?;
    let cluster = match &args.kubeconfig {
        Some(p) => Some(
            match tokio::time::timeout_at(deadline, read_cluster(p)).await {
                Ok(Ok(report)) => report,
                // A refusal (403) or any failed read is a finding about the cluster; the host's
                // readings above stand on their own and are still reported.
                Ok(Err(e)) => ClusterReport {
                    gpu_nodes: 0,
                    missing: vec![],
                    findings: vec![Finding::new(
                        Severity::Warning,
                        "cluster-unreadable",
                        format!(
                            "the cluster could not be read, so its state cannot be told: {e:#}"
                        ),
                    )],
                },
                Err(_) => ClusterReport {
                    gpu_nodes: 0,
                    missing: vec![],
                    findings: vec![Finding::new(
                        Severity::Warning,
                        "cluster-timeout",
                        format!("the cluster was not read within {} s", args.timeout),
                    )],
                },
            },
        ),
        None => None,
    };
    let mut severity = nvml.verdict.as_ref().map_or(Severity::Ok, |v| v.severity);
    if !nvml.available && args.driver_version.is_some() {
        severity = severity.max(Severity::Warning);
    }
    if let Some(f) = &nvml.finding {
        severity = severity.max(f.severity);
    }
    for f in &kernel_log.findings {
        severity = severity.max(f.severity);
    }
    if let Some(c) = &cluster {
        severity = severity.max(
            c.findings
                .iter()
                .map(|f| f.severity)
                .max()
                .unwrap_or(Severity::Ok),
        );
    }
    Ok(Report {
        nvml,
        kernel_log,
        cluster,
        severity,
    })
}
