//! NVML on a GPU host: the driver version, each GPU's health, XIDs.
//!
//! This system's room of the live half: `source.rs` asks the client, `facts.rs` is what it answered
//! and `rules.rs` holds its live rules. It imports no other system's folder.

pub(crate) mod facts;
pub(crate) mod rules;
pub(crate) mod source;
