//! Thin example binaries over the cpps crates: argument parsing, wiring and printing only.
//!
//! The binaries live in `src/bin/`; logic worth testing lives in the library crates.
#![forbid(unsafe_code)]
