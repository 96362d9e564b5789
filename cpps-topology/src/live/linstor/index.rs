//! Lookups into a site's LINSTOR facts by storage pool, built once per site so that matching declared components with what the source
//! reports costs O(1) per component (the "no quadratic rule" invariant, for the live half).

// foldhash: keys are names the team's own systems report; see `Topology`'s index.
use foldhash::{HashMap, HashSet};

use super::facts::LinstorFacts;

/// A site's LINSTOR facts by storage pool, keyed by [`pool_key`]: LINSTOR's names are
/// case-insensitive (linstor-server `GenericName` compares them upper-cased, and
/// `autoplacer/StorPoolFilter` matches a group's pools with `equalsIgnoreCase`).
#[derive(Debug, Default)]
pub(crate) struct LinstorIndex<'a> {
    /// The nodes each storage pool is on.
    pool_nodes: HashMap<String, HashSet<&'a str>>,
    /// The `place_count`s of the resource groups on each storage pool.
    group_counts: HashMap<String, Vec<i64>>,
    /// The `place_count`s of the resource groups with no pool list that hold a resource
    /// definition: they place on any pool.
    any_pool_counts: Vec<i64>,
}

impl<'a> LinstorIndex<'a> {
    pub(crate) fn new(facts: &'a LinstorFacts) -> Self {
        let mut index = Self::default();
        for pool in &facts.storage_pools {
            index
                .pool_nodes
                .entry(pool_key(&pool.name))
                .or_default()
                .insert(pool.node.as_str());
        }
        for group in &facts.groups {
            let Some(count) = group.place_count else {
                continue;
            };
            // linstor-server `autoplacer/StorPoolFilter.filter` filters by pool name only when
            // the group's list is non-empty: without one, the group may place on every pool.
            // Such a group with no resource definition places nothing: every controller has
            // `DfltRscGrp` (2 replicas, no pool: linstor-server's consolidated init migration).
            match group.storage_pool.as_deref() {
                Some(pool) => index
                    .group_counts
                    .entry(pool_key(pool))
                    .or_default()
                    .push(count),
                None if group.definitions > 0 => index.any_pool_counts.push(count),
                None => {}
            }
        }
        index
    }

    /// The nodes storage pool `name` is on (empty when no node has it).
    pub(crate) fn pool_nodes(&self, name: &str) -> Option<&HashSet<&'a str>> {
        self.pool_nodes.get(&pool_key(name))
    }

    /// The `place_count`s of the resource groups on storage pool `name`.
    pub(crate) fn group_counts(&self, name: &str) -> &[i64] {
        self.group_counts
            .get(&pool_key(name))
            .map_or(&[], Vec::as_slice)
    }

    /// The `place_count`s of the resource groups with no pool list, which may place on any
    /// storage pool.
    pub(crate) fn any_pool_counts(&self) -> &[i64] {
        &self.any_pool_counts
    }
}

/// The key of a LINSTOR storage pool name: upper-cased, as linstor-server's `GenericName`
/// compares names.
pub(crate) fn pool_key(name: &str) -> String {
    name.to_uppercase()
}
