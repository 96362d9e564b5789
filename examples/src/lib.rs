//! Thin example binaries over the cpps crates: argument parsing, wiring and printing only.
//!
//! The binaries live in `src/bin/`; logic worth testing lives in the library crates.
#![forbid(unsafe_code)]

// The README's Rust snippets are compiled (and the first screen's run) as doc tests of this
// crate, which depends on every client, so that the README stays true.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
