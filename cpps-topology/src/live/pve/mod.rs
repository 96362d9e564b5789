//! Proxmox VE: nodes and their versions, guests, container privilege, HA resources.
//!
//! This system's room of the live half: `source.rs` asks the client, `facts.rs` is what it
//! answered, `index.rs` looks it up by name, `site.rs` is its part of a site's comparison and
//! `rules.rs` holds its live rules; `chain.rs` reads the PVE side of the backup chain. It imports no other system's folder.

pub(crate) mod chain;
pub(crate) mod facts;
pub(crate) mod index;
pub(crate) mod rules;
pub(crate) mod site;
pub(crate) mod source;
