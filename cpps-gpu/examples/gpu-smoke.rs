//! `gpu-smoke`: the NVML path on the real GPUs of this machine, in a few seconds; prints what it
//! saw (device count, names, driver version, ECC mode, remapped rows, an XID event set registered
//! and polled). Run by `cargo xtask gpu-smoke`; never needed to build or pass the tests.
//!
//! ```text
//! cargo run -p cpps-gpu --example gpu-smoke -- [--nvml-lib PATH] [--poll-ms MS]
//! ```
//!
//! Exit status 0 when NVML answered, 1 when there is no NVML library, driver or GPU (one line
//! saying which), 2 on bad arguments or a failed NVML call.

use std::ffi::OsString;
use std::process::ExitCode;
use std::time::Duration;

use cpps_gpu::{Error, NvmlUnavailable};

fn usage() -> ExitCode {
    eprintln!("usage: gpu-smoke [--nvml-lib PATH] [--poll-ms MS]");
    ExitCode::from(2)
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
