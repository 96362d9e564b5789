//! Typed async client for the Proxmox VE API (PVE 8/9).
//!
//! It builds on `cpps-http`. [`family`] holds the pieces shared with Proxmox Backup Server
//! (envelope, auth, UPIDs, task waiting).
#![forbid(unsafe_code)]

mod error;
pub mod family;

pub use error::Error;
