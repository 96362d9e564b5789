//! Typed async client for the Proxmox Backup Server API (PBS 4.x).
//!
//! This crate will hold: token and ticket authentication (reusing the Proxmox-family pieces of
//! `cpps-proxmox`), typed reads of datastores, groups, snapshots and jobs, and the derived backup
//! checks (newest verified snapshot per guest, RPO breaches, cross-site sync). Nothing is
//! implemented yet.
#![forbid(unsafe_code)]
