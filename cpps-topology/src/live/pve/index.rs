//! Lookups into a site's Proxmox facts by name, built once per site so that matching declared components with what the source
//! reports costs O(1) per component (the "no quadratic rule" invariant, for the live half).

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashMapExt};

use super::facts::{PveFacts, PveGuest, PveNode};

/// A site's Proxmox facts by name.
#[derive(Debug, Default)]
pub(crate) struct PveIndex<'a> {
    nodes: HashMap<&'a str, &'a PveNode>,
    guests: HashMap<&'a str, &'a PveGuest>,
}

impl<'a> PveIndex<'a> {
    pub(crate) fn new(facts: &'a PveFacts) -> Self {
        let mut index = Self {
            nodes: HashMap::with_capacity(facts.nodes.len()),
            guests: HashMap::with_capacity(facts.guests.len()),
        };
        for node in &facts.nodes {
            index.nodes.entry(node.name.as_str()).or_insert(node);
        }
        // Names are not unique in Proxmox; the first guest of a name, in the API's order, is the
        // one a declared guest of that name designates.
        for guest in &facts.guests {
            if let Some(name) = guest.name.as_deref() {
                index.guests.entry(name).or_insert(guest);
            }
        }
        index
    }

    /// The Proxmox node of this name.
    pub(crate) fn node(&self, name: &str) -> Option<&'a PveNode> {
        self.nodes.get(name).copied()
    }

    /// The Proxmox guest a declared guest (or Traefik) name designates.
    pub(crate) fn guest(&self, name: &str) -> Option<&'a PveGuest> {
        self.guests.get(name).copied()
    }
}
