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

/// Values per group (on average at most): a group's set, 9 bytes a slot, takes under 150 KiB.
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
    // Indices are kept in 32 bits, so that a group's entries take 8 bytes each; a leaf of more
    // values than that (over 8 GiB of text) gets one plain set.
    let repeats = if u32::try_from(values.len()).is_ok() {
        repeats_by_groups(values, hashes)
    } else {
        let mut seen = std::collections::HashSet::with_capacity(values.len());
        (0..values.len())
            .filter(|&i| !seen.insert(values[i].as_str()))
            .collect()
    };
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

/// The indices of the values equal to one before them, found group by group (see the module
/// documentation); `values` has at most `u32::MAX` entries.
fn repeats_by_groups(values: &[String], hashes: &[u64]) -> Vec<usize> {
    let groups = values.len().div_ceil(GROUP).next_power_of_two();
    // The high half of a hash chooses the group, the low half is the key inside it.
    let group_of = |hash: u64| (hash >> 32) as usize & (groups - 1);
    let key_of = |hash: u64| hash as u32;
    let mut starts = vec![0usize; groups + 1];
    for &hash in hashes {
        starts[group_of(hash) + 1] += 1;
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    // (key, index) by group, each group in file order.
    let mut grouped = vec![(0u32, 0u32); values.len()];
    let mut next = starts.clone();
    for (i, &hash) in (0u32..).zip(hashes) {
        let slot = &mut next[group_of(hash)];
        grouped[*slot] = (key_of(hash), i);
        *slot += 1;
    }
    let mut repeats = Vec::new();
    let mut seen: HashMap<u32, u32, BuildHasherDefault<Prehashed>> =
        HashMap::with_capacity_and_hasher(values.len().min(GROUP), BuildHasherDefault::default());
    let text = |i: u32| values[i as usize].as_str();
    for g in 0..groups {
        let group = &grouped[starts[g]..starts[g + 1]];
        seen.clear();
        for (pos, &(key, i)) in group.iter().enumerate() {
            match seen.entry(key) {
                Entry::Vacant(slot) => {
                    slot.insert(i);
                }
                Entry::Occupied(first) => {
                    // Different values with one key (a few times per leaf of a million): then
                    // every earlier value of the group with that key is compared.
                    if text(*first.get()) == text(i)
                        || group[..pos]
                            .iter()
                            .any(|&(k, j)| k == key && text(j) == text(i))
                    {
                        repeats.push(i as usize);
                    }
                }
            }
        }
    }
    repeats
}

/// Hashes a key that is already part of a hash: spreads its bits over 64 (the table tags its
/// slots with the top seven).
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        // Only `write_u32` is used; anything else is folded in, still correct.
        for &b in bytes {
            self.write_u32(u32::from(b) ^ (self.0 as u32).rotate_left(8));
        }
    }

    fn write_u32(&mut self, key: u32) {
        self.0 = u64::from(key).wrapping_mul(0x9e37_79b9_7f4a_7c15);
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
        // Only the low halves (the keys inside a group) equal.
        let mut got = values.clone();
        keep_first(&mut got, &[7, 7 | 1 << 40, 7, 7 | 2 << 40, 7 | 1 << 40]);
        assert_eq!(got, ["x", "y", "z"]);
    }
}
