//! Proxmox Backup Server: datastores, jobs, the newest (verified) snapshot per guest.
//!
//! This system's room of the live half: `source.rs` asks the client, `facts.rs` is what it
//! answered, `index.rs` looks it up by name and `site.rs` is its part of a site's comparison. It
//! imports no other system's folder.

pub(crate) mod facts;
pub(crate) mod index;
pub(crate) mod site;
pub(crate) mod source;
