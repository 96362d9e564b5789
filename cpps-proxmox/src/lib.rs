//! Typed async client for the Proxmox VE API (PVE 8/9).
//!
//! This crate will hold: API-token and ticket authentication, the `{"data": …}` envelope decoder,
//! typed reads (cluster status and resources, nodes, guests and their configs, HA, storage, tasks,
//! snapshots), property-string parsing, UPIDs and task waiting, and the writes the runbooks need.
//! It builds on `cpps-http`. Nothing is implemented yet.
#![forbid(unsafe_code)]
