//! Typed async client for the LINSTOR controller REST API (v1).
//!
//! This crate will hold: controller fail-over from `LS_CONTROLLERS`, exact `ApiCallRc` decoding,
//! typed reads of nodes, storage pools, resource groups and resources, the writes the runbooks
//! need, and DRBD health derivation. It builds on `cpps-http`. Nothing is implemented yet.
#![forbid(unsafe_code)]
