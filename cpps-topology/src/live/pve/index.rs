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
    /// The guests listed without a name, by VMID.
    nameless: Vec<u32>,
}

impl<'a> PveIndex<'a> {
    pub(crate) fn new(facts: &'a PveFacts) -> Self {
        let mut index = Self {
            nodes: HashMap::with_capacity(facts.nodes.len()),
            guests: HashMap::with_capacity(facts.guests.len()),
            nameless: Vec::new(),
        };
        for node in &facts.nodes {
            index.nodes.entry(node.name.as_str()).or_insert(node);
        }
        // Names are not unique in Proxmox; the first guest of a name, in the API's order, is the
        // one a declared guest of that name designates.
        for guest in &facts.guests {
            match guest.name.as_deref() {
                Some(name) => {
                    index.guests.entry(name).or_insert(guest);
                }
                None => index.nameless.push(guest.vmid),
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

    /// Why a name that designates no guest may still be one, when the list has guests without
    /// a name: `/cluster/resources` takes a guest's name from its node's status data alone,
    /// which pmxcfs drops five minutes after the node last sent it, so the guests of a node
    /// down that long come without one (pve-manager `PVE/API2Tools.pm` `extract_vm_stats`,
    /// pve-cluster `src/pmxcfs/status.c` `rrd_entry_is_old`).
    pub(crate) fn nameless_guests(&self) -> Option<String> {
        if self.nameless.is_empty() {
            return None;
        }
        let vmids: Vec<String> = self.nameless.iter().map(u32::to_string).collect();
        Some(format!(
            "Proxmox lists guest(s) {} without a name (their node's status data is over five minutes old), so whether one of them is this guest cannot be told",
            vmids.join(", ")
        ))
    }
}
