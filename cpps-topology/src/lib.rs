//! The typed model of the CPPS infrastructure, its ADR rule catalogue and reports.
//!
//! This crate will hold: the model and its YAML loader, the embedded default topology, the rules
//! and the report formats. Without features it does no I/O beyond reading a file. Nothing is
//! implemented yet.
#![forbid(unsafe_code)]
