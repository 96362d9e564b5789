//! Dropping repeated values of a leaf in linear time, with the memory traffic of a leaf with
//! hundreds of thousands of values kept to passes over lists.
//!
//! One set of every value seen is the obvious way, but for a large leaf that set outgrows the
//! processor's cache and every insert becomes a cache miss at a random address (a firewall group
//! of 600,000 addresses spent most of its time there). So the values are cut into groups by
//! their hashes (a counting sort, file order kept inside each group): equal values share a hash
//! and so a group, and each group's set of hashes is small enough to stay in cache. A value's
//! text is read again only when its hash was seen before.

use std::collections::hash_map::{Entry, HashMap, RandomState};
use std::hash::{BuildHasher, BuildHasherDefault, Hasher};

/// Values per group (on average at most): a group's set, 17 bytes a slot, takes under 300 KiB.
const GROUP: usize = 1 << 13;

/// The hasher of one leaf's values: [`keep_first`] takes each value's hash under it, computed
/// while the value was read (its text was in cache then).
#[derive(Clone, Default)]
pub(crate) struct ValueHasher(RandomState);

impl ValueHasher {
    pub(crate) fn hash(&self, value: &str) -> u64 {
        self.0.hash_one(value)
    }
}

/// Drops every value equal to one before it, keeping the order: `a b a c b` becomes `a b c`.
/// `hashes[i]` is `values[i]`'s hash under one [`ValueHasher`].
pub(crate) fn keep_first(values: &mut Vec<String>, hashes: &[u64]) {
    debug_assert_eq!(values.len(), hashes.len());
    if values.len() < 2 {
        return;
    }
    let groups = values.len().div_ceil(GROUP).next_power_of_two();
    // Bits 32 and up choose the group: the group's own table indexes by the low bits and tags
    // slots with the top seven, so neither is the same for a whole group.
    let group_of = |hash: u64| (hash >> 32) as usize & (groups - 1);
    let mut starts = vec![0usize; groups + 1];
    for &hash in hashes {
        starts[group_of(hash) + 1] += 1;
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    // (hash, index) by group, each group in file order.
    let mut grouped = vec![(0u64, 0usize); values.len()];
    let mut next = starts.clone();
    for (i, &hash) in hashes.iter().enumerate() {
        let slot = &mut next[group_of(hash)];
        grouped[*slot] = (hash, i);
        *slot += 1;
    }
    let mut repeats = Vec::new();
    let mut seen: HashMap<u64, usize, BuildHasherDefault<Prehashed>> =
        HashMap::with_capacity_and_hasher(values.len().min(GROUP), BuildHasherDefault::default());
    for g in 0..groups {
        let group = &grouped[starts[g]..starts[g + 1]];
        seen.clear();
        for (pos, &(hash, i)) in group.iter().enumerate() {
            match seen.entry(hash) {
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
                Entry::Occupied(first) => {
                    let text = &values[i];
                    // Two different values with one 64-bit hash (about never): then every
                    // earlier value of the group with that hash is compared.
                    if values[*first.get()] == *text
                        || group[..pos]
                            .iter()
                            .any(|&(h, j)| h == hash && values[j] == *text)
                    {
                        repeats.push(i);
                    }
                }
            }
        }
    }
    if repeats.is_empty() {
        return;
    }
    let mut keep = vec![true; values.len()];
    for i in repeats {
        keep[i] = false;
    }
    let mut keep = keep.into_iter();
    values.retain(|_| keep.next().unwrap_or(true));
}

/// Hashes a `u64` that is already a hash to itself.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u64` is used; anything else is folded in, still correct.
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, hash: u64) {
        self.0 = hash;
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    /// The plain way, to compare with.
    fn reference(values: &[String]) -> Vec<String> {
        let mut seen = HashSet::new();
        values
            .iter()
            .filter(|v| seen.insert(v.as_str()))
            .cloned()
            .collect()
    }

    fn dedup(values: &[String], hasher: &ValueHasher) -> Vec<String> {
        let hashes: Vec<u64> = values.iter().map(|v| hasher.hash(v)).collect();
        let mut got = values.to_vec();
        keep_first(&mut got, &hashes);
        got
    }

    #[test]
    fn small_leaf_keeps_the_first_of_each_in_order() {
        let values: Vec<String> = ["a", "b", "a", "c", "b", "a"].map(String::from).into();
        assert_eq!(dedup(&values, &ValueHasher::default()), ["a", "b", "c"]);
    }

    #[test]
    fn large_leaf_by_groups_matches_the_plain_way() {
        // Far more than one group, repeats both near and far apart.
        let values: Vec<String> = (0..5 * GROUP + 17)
            .map(|i| format!("10.0.{}.{}", (i * 7919) % 3001, i % 5))
            .collect();
        let expected = reference(&values);
        assert!(expected.len() < values.len() && expected.len() > GROUP);
        assert_eq!(dedup(&values, &ValueHasher::default()), expected);
    }

    #[test]
    fn large_leaf_without_repeats_is_unchanged() {
        let values: Vec<String> = (0..3 * GROUP).map(|i| format!("v{i}")).collect();
        assert_eq!(dedup(&values, &ValueHasher::default()), values);
    }

    #[test]
    fn different_values_with_one_hash_are_both_kept() {
        // Every hash equal: each group's table sees nothing but collisions, and only the text
        // decides.
        let values: Vec<String> = ["x", "y", "x", "z", "y"].map(String::from).into();
        let mut got = values.clone();
        keep_first(&mut got, &[7; 5]);
        assert_eq!(got, ["x", "y", "z"]);
    }
}
