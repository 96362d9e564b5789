//! How bad a finding is: one scale for the health checks, the cluster checks and the policies
//! they share with `cpps-topology`'s live rules (its own module, so that `health` and `policy`
//! both use it without importing each other).

use serde::Serialize;

/// How bad a finding is. Ordered: `Ok < Info < Warning < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Nothing to report.
    Ok,
    /// Worth knowing, no action.
    Info,
    /// Needs attention soon.
    Warning,
    /// Page someone.
    Critical,
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Ok => "ok",
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Critical => "critical",
        })
    }
}
