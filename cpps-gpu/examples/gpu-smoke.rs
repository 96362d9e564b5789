//! `gpu-smoke`: the NVML path on the real GPUs of this machine, in a few seconds; prints what it
//! saw (device count, names, driver version, ECC mode, remapped rows, temperature against the
//! thresholds, power, clock event reasons, PCIe link, spare-row banks, an XID event set
//! registered and polled) and, where `nvidia-smi` exists, what `nvidia-smi -q` says of the same
//! values for each GPU (bounded to 30 s). Run by `cargo xtask gpu-smoke`; never needed to build
//! or pass the tests.
//!
//! ```text
//! cargo run -p cpps-gpu --example gpu-smoke -- [--nvml-lib PATH] [--poll-ms MS]
//! ```
//!
//! Exit status 0 when NVML answered, 1 when there is no NVML library, driver or GPU (one line
//! saying which), 2 on bad arguments or a failed NVML call.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use cpps_gpu::{Error, NvmlUnavailable};

fn usage() -> ExitCode {
    eprintln!("usage: gpu-smoke [--nvml-lib PATH] [--poll-ms MS]");
    ExitCode::from(2)
}

/// Runs `nvidia-smi -q` (at most 30 s) and prints, per GPU of `report`, the lines of its
/// section (matched by PCI bus id) that hold the readings above.
fn compare_with_nvidia_smi(report: &cpps_gpu::smoke::SmokeReport) {
    let child = std::process::Command::new("nvidia-smi")
        .arg("-q")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        println!("nvidia-smi: not found; nothing to compare with");
        return;
    };
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < Duration::from_secs(30) => {
                std::thread::sleep(Duration::from_millis(50));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                println!("nvidia-smi -q: no answer within 30 s");
                return;
            }
        }
    }
    let mut text = String::new();
    if let Some(mut out) = child.stdout.take() {
        let _ = std::io::Read::read_to_string(&mut out, &mut text);
    }
    let sections = cpps_gpu::smoke::nvidia_smi_q_sections(&text);
    for g in &report.gpus {
        let bus = g.pci_bus_id.value().map(String::as_str).unwrap_or("?");
        println!("GPU {} by nvidia-smi -q ({bus}):", g.index);
        match sections.iter().find(|(b, _)| b.eq_ignore_ascii_case(bus)) {
            Some((_, lines)) => lines.iter().for_each(|l| println!("  {l}")),
            None => println!("  no section for this bus id"),
        }
    }
}

fn main() -> ExitCode {
    let mut library: Option<OsString> = None;
    let mut poll = Duration::from_millis(2000);
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--nvml-lib") => match args.next() {
                Some(p) => library = Some(p),
                None => return usage(),
            },
            Some("--poll-ms") => match args.next().and_then(|v| v.to_str()?.parse().ok()) {
                Some(ms) => poll = Duration::from_millis(ms),
                None => return usage(),
            },
            _ => return usage(),
        }
    }
    match cpps_gpu::smoke::smoke(library.as_deref(), poll) {
        Ok(report) => {
            println!("{report}");
            compare_with_nvidia_smi(&report);
            ExitCode::SUCCESS
        }
        Err(Error::NvmlUnavailable(NvmlUnavailable::LibraryMissing { library, detail })) => {
            println!("gpu-smoke: no NVML library: {library} cannot be loaded ({detail})");
            ExitCode::from(1)
        }
        Err(Error::NvmlUnavailable(why)) => {
            println!("gpu-smoke: NVML not usable: {why}");
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!(
                "gpu-smoke: {e}: {}",
                std::error::Error::source(&e).map_or_else(String::new, ToString::to_string)
            );
            ExitCode::from(2)
        }
    }
}
