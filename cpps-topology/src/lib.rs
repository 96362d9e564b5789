//! The typed model of the CPPS infrastructure, its ADR rule catalogue and reports.
//!
//! Without features this crate does no I/O beyond reading a topology file: model, loader, rules
//! and report formats. Feature `live` (later) observes the real systems through the client crates.
#![forbid(unsafe_code)]

pub mod check;
pub mod load;
pub mod model;
pub mod report;
pub mod rules;
