//! `cargo xtask check`: the ADR invariants of a topology file, for CI.
//!
//! All logic lives in `cpps_topology::check::run_check`; this module parses arguments, prints,
//! and exits with its code (0: clean, 1: findings that fail CI, 2: unreadable or invalid file).

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context as _, Result};
use cpps_topology::check::{CheckRun, ExtraChecks, run_check};
use cpps_topology::iac::{Evidence, IacChecks};
use cpps_topology::report::Format;

/// Arguments of `cargo xtask check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The topology file to check; without it, the embedded CPPS topology
    /// (`cpps-topology/topology/cpps.yaml`).
    #[arg(long, value_name = "FILE")]
    topology: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = FormatArg::Text)]
    format: FormatArg,
    /// `--deny warnings`: unsuppressed warnings fail the check too.
    #[arg(long, value_enum, value_name = "LEVEL")]
    deny: Option<Deny>,
    /// Write the report to FILE instead of standard output (e.g. a SARIF file to upload).
    #[arg(long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// IaC evidence compared with the file's claims (rules IAC-001…006), repeatable:
    /// `pulumi-export=FILE` (`pulumi stack export`), `pulumi-mock=FILE`
    /// (`xtask/iac/pulumi_mock_run.py`), `pulumi-config=FILE` (`Pulumi.<stack>.yaml`),
    /// `ansible=FILE` (`ansible-inventory --list`), `ansible-source=FILE` (the inventory, for
    /// line numbers), `mapping=FILE` (which key feeds which field; the CPPS mapping without).
    #[arg(long = "iac", value_name = "NAME=FILE")]
    iac: Vec<String>,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum FormatArg {
    /// A table grouped by site and severity.
    Text,
    /// `{"findings": […], "summary": {…}}`.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning.
    Sarif,
    /// JUnit XML, one test case per rule and subject.
    Junit,
}

impl From<FormatArg> for Format {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Text => Format::Text,
            FormatArg::Json => Format::Json,
            FormatArg::Sarif => Format::Sarif,
            FormatArg::Junit => Format::Junit,
        }
    }
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Deny {
    /// Fail on unsuppressed warnings as well as errors.
    Warnings,
}

pub(crate) fn run(args: CheckArgs) -> Result<ExitCode> {
    let deny_warnings = matches!(args.deny, Some(Deny::Warnings));
    let outcome = match Evidence::from_flags(args.iac.iter().map(String::as_str)) {
        // Evidence that cannot be used: exit 2 with the reason, no report.
        Err(e) => CheckRun::invalid(format!("error: {e}\n")),
        Ok(evidence) => {
            let iac = IacChecks::new(&evidence);
            let extra: Vec<&dyn ExtraChecks> = if args.iac.is_empty() {
                Vec::new()
            } else {
                vec![&iac]
            };
            run_check(
                args.topology.as_deref(),
                &extra,
                args.format.into(),
                deny_warnings,
                cpps_topology::check::today(),
            )
        }
    };
    if !outcome.stderr.is_empty() {
        eprint!("{}", outcome.stderr);
    }
    match &args.output {
        Some(path) if !outcome.stdout.is_empty() => std::fs::write(path, &outcome.stdout)
            .with_context(|| format!("writing the report to {}", path.display()))?,
        _ => std::io::stdout()
            .write_all(outcome.stdout.as_bytes())
            .context("writing the report")?,
    }
    Ok(ExitCode::from(outcome.exit_code))
}
