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

/// `request`, run while it holds one of `slots`: the source's fan-out and the backup chain's
/// reads share one bound this way.
async fn in_slot<T>(slots: &tokio::sync::Semaphore, request: impl Future<Output = T>) -> T {
    // The semaphore is never closed; were it, the request would simply run unbounded.
    let _slot = slots.acquire().await.ok();
    request.await
}
