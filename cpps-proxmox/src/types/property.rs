//! PVE property strings (`virtio=AA:BB:…,bridge=vmbr0,firewall=1`), generic and typed.
//!
//! Syntax, from `PVE::JSONSchema::parse_property_string`: parts separated by `,`; a part
//! `key=value` (value non-empty), or at most one part without `=`, which is the value of the
//! format's default key (`file` of a disk, `volume` of a mount point, `current` of PVE 9
//! `memory`). Empty parts are ignored. `print_property_string` writes the default key's value
//! first, then the other keys sorted by name, which is the form the typed printers here
//! produce: so a string written by PVE prints back identically, and any string prints back to
//! one that parses to the same value.

use std::collections::BTreeMap;
use std::fmt;
use std::hash::BuildHasher;
use std::str::FromStr;

use crate::Error;
use crate::family::de::parse_bool;

/// A part of a property string's text: byte offsets into the text it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// The bytes `start..end` of a text whose length was checked to fit in `u32`.
    fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    fn get(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }
}

/// One `key=value` part: byte offsets into the text it was read from, the key from `start`
/// to the `=` at `equals`, the value from there to `end`; 16 bytes a part.
#[derive(Debug, Clone, Copy)]
struct Entry {
    start: u32,
    equals: u32,
    end: u32,
    /// Where [`sort_by_key_text`] puts the rank of the key it sorts by (room the 16 bytes have
    /// anyway, so a sort needs no copy of the entries); meaningless otherwise.
    rank: u32,
}

impl Entry {
    /// The part `text[start..end]` with its `=` at `equals`, in a text whose length was
    /// checked to fit in `u32`.
    fn new(start: usize, equals: usize, end: usize) -> Entry {
        Entry {
            start: start as u32,
            equals: equals as u32,
            end: end as u32,
            rank: 0,
        }
    }

    fn key(self, text: &str) -> &str {
        &text[self.start as usize..self.equals as usize]
    }

    fn value(self, text: &str) -> &str {
        &text[self.equals as usize + 1..self.end as usize]
    }
}

/// The `(key, value)` text of `entries`, in their order.
fn pairs<'a>(
    text: &'a str,
    entries: &'a [Entry],
) -> impl ExactSizeIterator<Item = (&'a str, &'a str)> + Clone + 'a {
    entries.iter().map(move |e| (e.key(text), e.value(text)))
}

/// How much of the text a parse copies at once (within a core's L1 cache).
const COPY_BLOCK: usize = 16 * 1024;

/// The longest property string parsed: offsets are held as `u32`.
const MAX_PROPERTY_STRING: usize = u32::MAX as usize;

/// A property string as parts, in the order written; unknown keys are kept.
///
/// Held compactly: the text once, and each part as offsets into it (a part costs 16 bytes
/// beside its text, not two allocations), so parsing is linear in time and memory however
/// many keys a string has.
#[derive(Clone, Default)]
pub struct PropertyString {
    text: String,
    default: Option<Span>,
    entries: Vec<Entry>,
    /// How many leading bytes the entries' keys share (at most: removing entries never makes
    /// it wrong), so a sort of the keys can skip them.
    shared_key_bytes: usize,
}

impl PropertyString {
    /// Parses a property string. Errors name the offending part.
    ///
    /// Linear in the length of `text`, in time and memory; `cargo bench -p cpps-proxmox
    /// --bench property` measures it.
    pub fn parse(text: &str) -> Result<Self, Error> {
        let (ps, []) = PropertyString::parse_setting_aside(text, [])?;
        Ok(ps)
    }

    /// Parses a property string, setting aside the values of `own` (the keys a typed value
    /// has fields for): they are not among the entries, and are returned in the order asked.
    ///
    /// One pass over the text (`parts_of`), the number of its parts estimated from its first
    /// block ([`estimated_parts`]): each part is checked, its key hashed into the [`KeyFilter`]
    /// of repeated keys or routed to `own`, the keys' shared prefix kept, and the text copied a
    /// block at a time behind the pass. The text is read from memory once.
    fn parse_setting_aside<const N: usize>(
        text: &str,
        own: [&str; N],
    ) -> Result<(Self, [Option<String>; N]), Error> {
        if text.len() > MAX_PROPERTY_STRING {
            return Err(Error::invalid(
                "property string",
                &text.chars().take(64).collect::<String>(),
                format!(
                    "{} bytes is longer than the 4 GiB a property string may be",
                    text.len()
                ),
            ));
        }
        let parts = estimated_parts(text);
        let mut out = PropertyString {
            text: String::with_capacity(text.len()),
            default: None,
            entries: Vec::with_capacity(parts),
            shared_key_bytes: 0,
        };
        // The text is copied as the pass goes, a block at a time while it is in the cache.
        let mut copied = 0;
        let mut set_aside: [Option<Span>; N] = [None; N];
        let own_first_bytes = FirstBytes::of(&own);
        // A text longer than its first block may have many more parts than that block says.
        let mut keys = KeyFilter::for_parts(if text.len() > COPY_BLOCK {
            parts.max(PAIRWISE_UP_TO + 1)
        } else {
            parts
        });
        let mut first_key: Option<&str> = None;
        // The first malformed part, if any; a repeated key before it is reported instead,
        // as a reading from left to right meets it first.
        let mut malformed = None;
        for (start, equals, end) in parts_of(text) {
            if end - copied >= COPY_BLOCK {
                // `end` is a `,` or the end of the text: a character boundary.
                out.text.push_str(&text[copied..end]);
                copied = end;
            }
            let part = &text[start..end];
            match equals {
                None if part.trim().is_empty() => {}
                Some(at) if at == start => {
                    malformed = Some(format!("part `{part}` has no key before `=`"));
                    break;
                }
                Some(at) if at + 1 == end => {
                    malformed = Some(format!("key `{}` has an empty value", &text[start..at]));
                    break;
                }
                Some(at) => {
                    let key = &text[start..at];
                    let own_key = own_first_bytes
                        .may_hold(key)
                        .then(|| own.iter().position(|&k| k == key))
                        .flatten();
                    if let Some(i) = own_key {
                        if set_aside[i].replace(Span::new(at + 1, end)).is_some() {
                            // Like a malformed part: a repeat among the entries before it
                            // comes first.
                            malformed = Some(format!("duplicate key `{key}`"));
                            break;
                        }
                        continue;
                    }
                    if let Some(keys) = &mut keys {
                        keys.add(key);
                    }
                    let first = *first_key.get_or_insert(key);
                    out.shared_key_bytes = if out.entries.is_empty() {
                        key.len()
                    } else {
                        shared_prefix(first, key, out.shared_key_bytes)
                    };
                    out.entries.push(Entry::new(start, at, end));
                }
                None if out.default.is_some() => {
                    malformed = Some(format!("more than one part without a key (`{part}`)"));
                    break;
                }
                None => out.default = Some(Span::new(start, end)),
            }
        }
        let duplicate = match keys {
            Some(keys) => keys.first_duplicate(text, &out.entries),
            None => first_duplicate_pairwise(text, &out.entries),
        };
        if let Some(second) = duplicate {
            let key = out.entries[second].key(text);
            return Err(Error::invalid(
                "property string",
                text,
                format!("duplicate key `{key}`"),
            ));
        }
        if let Some(reason) = malformed {
            return Err(Error::invalid("property string", text, reason));
        }
        out.text.push_str(&text[copied..]);
        // An estimate from a dense first block may have reserved far more parts than came.
        if out.entries.capacity() > 2 * out.entries.len() + 64 {
            out.entries.shrink_to_fit();
        }
        let values = set_aside.map(|span| span.map(|s| s.get(text).to_owned()));
        Ok((out, values))
    }

    /// [`PropertyString::parse_setting_aside`] for a format without a default key: a part
    /// without `=` is an error of `kind`.
    fn parse_keyed<const N: usize>(
        text: &str,
        kind: &'static str,
        own: [&str; N],
    ) -> Result<(Self, [Option<String>; N]), Error> {
        let (ps, values) = PropertyString::parse_setting_aside(text, own)?;
        match ps.default_value() {
            Some(d) => Err(Error::invalid(
                kind,
                text,
                format!("unexpected part `{d}` without a key"),
            )),
            None => Ok((ps, values)),
        }
    }

    /// The value of the part without `=` (the default key), if any.
    pub fn default_value(&self) -> Option<&str> {
        self.default.map(|s| s.get(&self.text))
    }

    /// The `key=value` parts, in the order written.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone + '_ {
        pairs(&self.text, &self.entries)
    }

    /// How many `key=value` parts there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is no `key=value` part (a default value may still be there).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.entries().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// Removes the default value and returns it.
    fn take_default(&mut self) -> Option<String> {
        self.default.take().map(|s| s.get(&self.text).to_owned())
    }

    /// Removes the first entry whose key matches and returns its key and value.
    fn take_where(&mut self, matches: impl Fn(&str) -> bool) -> Option<(String, String)> {
        let index = self
            .entries
            .iter()
            .position(|e| matches(e.key(&self.text)))?;
        let entry = self.entries.remove(index);
        Some((
            entry.key(&self.text).to_owned(),
            entry.value(&self.text).to_owned(),
        ))
    }

    /// Removes `key` and returns its value.
    fn take(&mut self, key: &str) -> Option<String> {
        self.take_where(|k| k == key).map(|(_, v)| v)
    }

    /// The entries left, as the other keys of a typed value (sorted by key).
    fn into_other_keys(self) -> OtherKeys {
        let mut entries = self.entries;
        sort_by_key_text(&self.text, &mut entries, self.shared_key_bytes);
        OtherKeys {
            text: self.text,
            entries,
        }
    }
}

/// Sorts `entries` (unique keys) by their keys' text, in place, in time linear in their number.
///
/// A string PVE wrote has its keys sorted already: one pass sees that. Otherwise the eight
/// bytes of each key after the `shared` ones all keys begin with are read as one integer, and
/// each byte is replaced by its rank among the values that byte takes in all the keys, in as
/// few bits as those need ([`ByteRanks`]: a digit takes 4 bits, not 8). The order is kept and
/// the bits are dense, so the top 32 of them ([`Entry::rank`]) tell most keys apart. The
/// entries are sorted by rank in place ([`sort_by_rank`]: no copy of them, and each pass
/// writes to at most 256 places at once, which stay in the cache), and entries of equal rank
/// by their keys' text.
fn sort_by_key_text(text: &str, entries: &mut [Entry], shared: usize) {
    let key = |e: &Entry| e.key(text).as_bytes();
    if entries.windows(2).all(|w| key(&w[0]) < key(&w[1])) {
        return;
    }
    if entries.len() <= SORT_SMALL_UP_TO {
        entries.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        return;
    }
    let bytes = text.as_bytes();
    let mut taken = [[0u64; 4]; 8];
    for e in entries.iter() {
        for (values, b) in taken
            .iter_mut()
            .zip(key_window(bytes, e, shared).to_be_bytes())
        {
            values[usize::from(b >> 6)] |= 1 << (b & 63);
        }
    }
    let ranks = ByteRanks::of(&taken);
    for e in entries.iter_mut() {
        e.rank = ranks.rank(key_window(bytes, e, shared));
    }
    sort_by_rank(entries, ranks.bits);
    for run in entries.chunk_by_mut(|a, b| a.rank == b.rank) {
        if run.len() > 1 {
            run.sort_unstable_by(|a, b| key(a).cmp(key(b)));
        }
    }
}

/// Up to this many items a sort compares them; more go by their bytes.
const SORT_SMALL_UP_TO: usize = 64;

/// The eight bytes of `entry`'s key after its first `shared`, as a big-endian integer, zero
/// past the key's end (so a key sorts before the keys it is a prefix of).
fn key_window(text: &[u8], entry: &Entry, shared: usize) -> u64 {
    let from = entry.start as usize + shared;
    let len = (entry.equals as usize).saturating_sub(from).min(8);
    match text.get(from..from + 8) {
        // Most keys: one load of eight bytes, the ones past the key masked off.
        Some(eight) => {
            let all = u64::from_be_bytes(eight.try_into().expect("eight bytes"));
            match len {
                0 => 0,
                8 => all,
                _ => all & !(u64::MAX >> (8 * len)),
            }
        }
        None => {
            let mut padded = [0u8; 8];
            padded[..len].copy_from_slice(&text[from..from + len]);
            u64::from_be_bytes(padded)
        }
    }
}

/// For each of the eight bytes of a key's window, each value's rank among the values that byte
/// takes in a set of keys, and the bits a rank needs there: a window's ranks side by side keep
/// its order in fewer bits.
struct ByteRanks {
    rank: [[u8; 256]; 8],
    width: [u32; 8],
    /// How many low bits of the ranks side by side are dropped to keep 32.
    dropped: u32,
    /// How many bits [`ByteRanks::rank`] gives (at most 32).
    bits: u32,
}

impl ByteRanks {
    /// The ranks of the values `taken` marks, for each byte (a 256-bit set a byte).
    fn of(taken: &[[u64; 4]; 8]) -> ByteRanks {
        let mut rank = [[0u8; 256]; 8];
        let mut width = [0u32; 8];
        for ((rank, width), taken) in rank.iter_mut().zip(&mut width).zip(taken) {
            let mut below = 0u32;
            for (value, r) in rank.iter_mut().enumerate() {
                // Values not taken get the next one's rank; no key has them.
                *r = below as u8;
                below += u32::from(taken[value >> 6] >> (value & 63) & 1 == 1);
            }
            *width = u32::BITS - below.saturating_sub(1).leading_zeros();
        }
        let total: u32 = width.iter().sum();
        let bits = total.min(32);
        ByteRanks {
            rank,
            width,
            dropped: total - bits,
            bits,
        }
    }

    /// The top [`ByteRanks::bits`] bits of `window`'s byte ranks side by side.
    fn rank(&self, window: u64) -> u32 {
        let mut packed = 0u64;
        for (byte, (rank, &width)) in window
            .to_be_bytes()
            .iter()
            .zip(self.rank.iter().zip(&self.width))
        {
            packed = (packed << width) | u64::from(rank[usize::from(*byte)]);
        }
        (packed >> self.dropped) as u32
    }
}

/// Sorts `items` by the low `bits` bits of their ranks (the bits above are equal), in place:
/// an American flag sort on the top eight of those bits (each item swapped into its bucket's
/// next free slot, in sweeps whose accesses overlap: 256 places written at once, which stay in
/// the cache), then each bucket the same way on the bits below, while it is in the cache;
/// buckets of a few items are compared.
fn sort_by_rank(items: &mut [Entry], bits: u32) {
    if bits == 0 {
        return;
    }
    if items.len() <= SORT_SMALL_UP_TO {
        items.sort_unstable_by_key(|e| e.rank);
        return;
    }
    let digit = bits.min(8);
    let below = bits - digit;
    let bucket_of = |e: &Entry| ((e.rank >> below) & ((1 << digit) - 1)) as usize;
    let mut starts = [0usize; 257];
    for e in items.iter() {
        starts[bucket_of(e) + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    // Each sweep sends every item not yet in its bucket's filled part to its bucket's next free
    // slot, the item there coming back to be sent on the next sweep: the items' destinations do
    // not depend on one another within a sweep, so the memory accesses of a large array overlap
    // instead of waiting one after another (as following one cycle of swaps would).
    let mut filled: [usize; 256] = std::array::from_fn(|bucket| starts[bucket]);
    let mut unfilled: Vec<usize> = (0..256).filter(|&b| starts[b + 1] > starts[b]).collect();
    while unfilled.len() > 1 {
        unfilled.retain(|&bucket| {
            for slot in filled[bucket]..starts[bucket + 1] {
                let belongs = bucket_of(&items[slot]);
                items.swap(slot, filled[belongs]);
                filled[belongs] += 1;
            }
            filled[bucket] < starts[bucket + 1]
        });
    }
    for bucket in starts.windows(2).filter(|w| w[1] - w[0] > 1) {
        sort_by_rank(&mut items[bucket[0]..bucket[1]], below);
    }
}

/// How many of the first `up_to` bytes `a` and `b` share.
fn shared_prefix(a: &str, b: &str, up_to: usize) -> usize {
    a.as_bytes()
        .iter()
        .zip(b.as_bytes())
        .take(up_to)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The first bytes of a few keys, as a 256-bit set: most other keys fail it at once.
struct FirstBytes([u64; 4]);

impl FirstBytes {
    fn of(keys: &[&str]) -> FirstBytes {
        let mut set = [0u64; 4];
        for b in keys.iter().filter_map(|k| k.as_bytes().first()) {
            set[usize::from(b >> 6)] |= 1 << (b & 63);
        }
        FirstBytes(set)
    }

    /// Whether `key` may be one of the keys (keys are never empty).
    fn may_hold(&self, key: &str) -> bool {
        let b = key.as_bytes()[0];
        self.0[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }
}

/// How many parts `text` has: counted in a text of one block, estimated from the first block
/// in a longer one (the vectors grow, and [`KeyFilter`] is rebuilt, when the rest has more).
fn estimated_parts(text: &str) -> usize {
    let head = &text.as_bytes()[..text.len().min(COPY_BLOCK)];
    let in_head = memchr::memchr_iter(b',', head).count() + 1;
    if head.len() == text.len() {
        in_head
    } else {
        (in_head as u64 * text.len() as u64 / head.len() as u64) as usize
    }
}

/// The parts of `text` as byte offsets, in order: `(start, first '=' if any, end)`, `end`
/// being the `,` that closes the part or the end of the text. One pass over the text, the
/// separators found by `memchr`'s vectorised search.
fn parts_of(text: &str) -> impl Iterator<Item = (usize, Option<usize>, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut separators = memchr::memchr2_iter(b',', b'=', bytes);
    let mut start = 0;
    let mut done = false;
    std::iter::from_fn(move || {
        if done {
            return None;
        }
        let mut equals = None;
        for at in separators.by_ref() {
            if bytes[at] == b',' {
                let part = (start, equals, at);
                start = at + 1;
                return Some(part);
            }
            equals = equals.or(Some(at));
        }
        done = true;
        Some((start, equals, bytes.len()))
    })
}

/// Up to this many keys, repeated keys are found by comparing every pair.
const PAIRWISE_UP_TO: usize = 16;

/// The position of the first entry whose key an earlier entry has already, comparing every
/// pair: for the few keys most property strings have.
fn first_duplicate_pairwise(text: &str, entries: &[Entry]) -> Option<usize> {
    let key = |i: usize| entries[i].key(text);
    (1..entries.len()).find(|&j| (0..j).any(|i| key(i) == key(j)))
}

/// Finds repeated keys among many, linear in time and small in memory: each key is hashed
/// once, as it is read, into a Bloom filter of 12 bits a key (one 64-bit word a key, four
/// bits of it: a key costs one memory access, and 300 000 keys take 450 kB, which stays in a
/// core's 2 MiB L2 cache beside the text streaming through it; 16 bits a key, 600 kB, did not
/// as well). A key whose bits are all set already may repeat an earlier one (about one key in
/// three hundred does by chance); only those are checked, by their hashes and then their text,
/// in [`KeyFilter::first_duplicate`].
///
/// Sized from an estimate of the keys (the parts of the text's first block, scaled to its
/// length: no pass over the whole text to count them); when more than twice as many come, the
/// filter is rebuilt for twice the keys seen from their kept hashes, finding what a filter of
/// that size from the start would have found (each rebuild doubles it: linear in all).
struct KeyFilter {
    hasher: foldhash::fast::RandomState,
    /// Three words for every sixteen keys it is sized for (12 bits a key): exactly, not rounded
    /// up to a power of two, which would make it up to twice that (at 300 000 keys 1 MiB
    /// instead of 450 kB).
    words: Vec<u64>,
    /// Each key's 32-bit hash, in reading order: the filter's bits are taken from it.
    hashes: Vec<u32>,
    /// Positions of the keys whose bits were all set already, in reading order.
    candidates: Vec<u32>,
    /// How many of the last hashes are not yet set in `words`: they are set a batch at a time,
    /// so that the accesses of a filter larger than the cache overlap instead of waiting one
    /// after another.
    pending: usize,
}

/// How many keys [`KeyFilter`] sets at once.
const FILTER_BATCH: usize = 32;

impl KeyFilter {
    /// A filter for about `parts` keys, or `None` when they are few enough to compare pairwise.
    fn for_parts(parts: usize) -> Option<KeyFilter> {
        if parts <= PAIRWISE_UP_TO {
            return None;
        }
        Some(KeyFilter {
            hasher: foldhash::fast::RandomState::default(),
            words: vec![0; (parts * 3).div_ceil(16)],
            hashes: Vec::with_capacity(parts),
            candidates: Vec::new(),
            pending: 0,
        })
    }

    /// Records the next entry's key.
    fn add(&mut self, key: &str) {
        self.hashes.push(self.hasher.hash_one(key) as u32);
        self.pending += 1;
        if self.pending == FILTER_BATCH {
            self.set_pending();
        }
    }

    /// Sets the pending keys' bits, in reading order, noting the keys whose bits were all set;
    /// rebuilds the filter first when it holds more than twice the keys it was sized for.
    fn set_pending(&mut self) {
        if self.hashes.len() * 3 > 32 * self.words.len() {
            self.words = vec![0; (self.hashes.len() * 3).div_ceil(8)];
            self.candidates.clear();
            self.pending = self.hashes.len();
        }
        let words = self.words.len() as u64;
        for i in self.hashes.len() - self.pending..self.hashes.len() {
            // The hash spread over 64 bits: its top half, scaled to the number of words (a
            // multiply and a shift), picks the word, its low bits the four bits in it.
            let mixed = u64::from(self.hashes[i]).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let word = (((mixed >> 32) * words) >> 32) as usize;
            let bits = (1u64 << (mixed & 63))
                | (1u64 << ((mixed >> 6) & 63))
                | (1u64 << ((mixed >> 12) & 63))
                | (1u64 << ((mixed >> 18) & 63));
            let seen = &mut self.words[word];
            if *seen & bits == bits {
                self.candidates.push(i as u32);
            }
            *seen |= bits;
        }
        self.pending = 0;
    }

    /// The position of the first entry whose key an earlier entry has already: the duplicate
    /// a reading from left to right meets first. `entries` are the ones whose keys were added.
    ///
    /// A repeated key is always a candidate (its earlier part set the same bits). The entries
    /// up to the last candidate whose 32-bit hash equals a candidate's are gathered, ordered by
    /// hash and position, and keys compared only within a group of equal hashes.
    fn first_duplicate(mut self, text: &str, entries: &[Entry]) -> Option<usize> {
        self.set_pending();
        let last = *self.candidates.last()? as usize;
        let mut wanted: Vec<u32> = self
            .candidates
            .iter()
            .map(|&i| self.hashes[i as usize])
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        // A 64 kbit map of the wanted hashes' low 16 bits passes over most entries at once.
        let mut quick = vec![0u64; 1 << 10];
        for &hash in &wanted {
            quick[(hash as usize >> 6) & 1023] |= 1 << (hash & 63);
        }
        let mut gathered: Vec<(u32, u32)> = self.hashes[..=last]
            .iter()
            .enumerate()
            .filter(|&(_, &hash)| {
                quick[(hash as usize >> 6) & 1023] & (1 << (hash & 63)) != 0
                    && wanted.binary_search(&hash).is_ok()
            })
            .map(|(i, &hash)| (hash, i as u32))
            .collect();
        gathered.sort_unstable();
        let key = |i: u32| entries[i as usize].key(text);
        gathered
            .chunk_by(|a, b| a.0 == b.0)
            .filter_map(|group| {
                // In a group, by position: the first that repeats one before it. Keys that
                // differ but share a hash are few (the 32-bit hash of a random seed).
                let mut distinct: Vec<u32> = Vec::new();
                group.iter().find_map(|&(_, later)| {
                    if distinct.iter().any(|&earlier| key(earlier) == key(later)) {
                        Some(later)
                    } else {
                        distinct.push(later);
                        None
                    }
                })
            })
            .min()
            .map(|i| i as usize)
    }
}

impl PartialEq for PropertyString {
    /// Equal when the default values and the parts (in order) are.
    fn eq(&self, other: &Self) -> bool {
        self.default_value() == other.default_value() && self.entries().eq(other.entries())
    }
}

impl Eq for PropertyString {}

impl fmt::Debug for PropertyString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PropertyString")
            .field("default", &self.default_value())
            .field("entries", &DebugEntries(self.entries()))
            .finish()
    }
}

/// Debug-prints `(key, value)` pairs as a list without collecting them.
struct DebugEntries<I>(I);

impl<'a, I: Iterator<Item = (&'a str, &'a str)> + Clone> fmt::Debug for DebugEntries<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.clone()).finish()
    }
}

impl FromStr for PropertyString {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        PropertyString::parse(s)
    }
}

impl fmt::Display for PropertyString {
    /// Writes the parts in the order held.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        if let Some(default) = self.default_value() {
            f.write_str(default)?;
            first = false;
        }
        for (k, v) in self.entries() {
            if !first {
                f.write_str(",")?;
            }
            first = false;
            write!(f, "{k}={v}")?;
        }
        Ok(())
    }
}

/// The keys of a typed property string that its type has no field for (`queues` of a NIC,
/// `iothread` of a disk, any key a later PVE adds), kept as written and sorted by key, as PVE
/// prints them.
///
/// Held like [`PropertyString`]: one text and offsets into it, so a string with many unknown
/// keys costs no allocation per key.
#[derive(Clone, Default)]
pub struct OtherKeys {
    text: String,
    /// Sorted by key; keys are unique.
    entries: Vec<Entry>,
}

impl OtherKeys {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.position(key)
            .ok()
            .map(|i| self.entries[i].value(&self.text))
    }

    /// The keys and values, sorted by key.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &str)> + Clone + '_ {
        pairs(&self.text, &self.entries)
    }

    /// How many keys there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Sets `key` to `value`, returning the value it replaced.
    ///
    /// # Panics
    ///
    /// Never for keys and values parsed from a string; only if the held text would pass
    /// 4 GiB.
    pub fn insert(&mut self, key: &str, value: &str) -> Option<String> {
        assert!(
            self.text.len() + key.len() + 1 + value.len() <= MAX_PROPERTY_STRING,
            "the other keys of a property string are limited to 4 GiB"
        );
        let start = self.text.len();
        self.text.push_str(key);
        self.text.push('=');
        self.text.push_str(value);
        let part = Entry::new(start, start + key.len(), self.text.len());
        match self.position(key) {
            Ok(i) => {
                let old = self.entries[i].value(&self.text).to_owned();
                self.entries[i] = part;
                Some(old)
            }
            Err(i) => {
                self.entries.insert(i, part);
                None
            }
        }
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|e| e.key(&self.text).cmp(key))
    }
}

impl PartialEq for OtherKeys {
    /// Equal when they hold the same keys with the same values.
    fn eq(&self, other: &Self) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for OtherKeys {}

impl fmt::Debug for OtherKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: AsRef<str>, V: AsRef<str>> FromIterator<(K, V)> for OtherKeys {
    /// Later values of a key replace earlier ones.
    fn from_iter<T: IntoIterator<Item = (K, V)>>(iter: T) -> Self {
        let mut out = OtherKeys::default();
        for (k, v) in iter {
            out.insert(k.as_ref(), v.as_ref());
        }
        out
    }
}

/// Writes the default value, then the `key=value` pairs of `fields` (a type's own keys) and
/// `other` merged in key order, PVE's canonical order. A key both hold is written once, with
/// the field's value.
fn print_canonical(
    f: &mut fmt::Formatter<'_>,
    default: Option<&str>,
    fields: BTreeMap<&str, String>,
    other: &OtherKeys,
) -> fmt::Result {
    let mut first = true;
    if let Some(default) = default {
        f.write_str(default)?;
        first = false;
    }
    let mut fields = fields.iter().map(|(k, v)| (*k, v.as_str())).peekable();
    let mut other = other.iter().peekable();
    loop {
        let (k, v) = match (fields.peek(), other.peek()) {
            (None, None) => break,
            (Some(_), None) => fields.next(),
            (None, Some(_)) => other.next(),
            (Some((a, _)), Some((b, _))) => match a.cmp(b) {
                std::cmp::Ordering::Less => fields.next(),
                std::cmp::Ordering::Greater => other.next(),
                std::cmp::Ordering::Equal => {
                    other.next();
                    fields.next()
                }
            },
        }
        .expect("peeked");
        if !first {
            f.write_str(",")?;
        }
        first = false;
        write!(f, "{k}={v}")?;
    }
    Ok(())
}

/// The value of a typed property string's field: read from the text of its key, printed back
/// as PVE writes it.
trait PropertyValue: Sized {
    /// `text`, the value of `key` in a `kind`, as this type.
    fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error>;

    /// The value as written in a property string.
    fn print(&self) -> String;
}

impl PropertyValue for String {
    fn read(text: String, _key: &str, _kind: &'static str) -> Result<Self, Error> {
        Ok(text)
    }

    fn print(&self) -> String {
        self.clone()
    }
}

/// A `0`/`1` flag.
impl PropertyValue for bool {
    fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error> {
        parse_bool(&text)
            .ok_or_else(|| Error::invalid(kind, &text, format!("`{key}` must be 0 or 1")))
    }

    fn print(&self) -> String {
        if *self { "1" } else { "0" }.to_owned()
    }
}

/// Numbers, written in decimal.
macro_rules! number_property_values {
    ($($number:ty),*) => {$(
        impl PropertyValue for $number {
            fn read(text: String, key: &str, kind: &'static str) -> Result<Self, Error> {
                text.parse()
                    .map_err(|_| Error::invalid(kind, &text, format!("`{key}` must be a number")))
            }

            fn print(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

number_property_values!(u16, u32, u64);

/// `value`, the text of `key` in a `kind` if the string has it, as `T`.
fn read_value<T: PropertyValue>(
    value: Option<String>,
    key: &str,
    kind: &'static str,
) -> Result<Option<T>, Error> {
    value.map(|v| T::read(v, key, kind)).transpose()
}

/// Declares a typed property string from one list of its keyed fields (`field: Type`, or
/// `field: Type = "key"` where the key is not the field's name; each an `Option<Type>` of the
/// struct): the struct, with `extra` for the other keys last;
/// `KEYS`; `from_keyed`, the value from the keyed fields' texts (in `KEYS` order, as
/// [`PropertyString::parse_setting_aside`] returns them) and the other keys; and `keyed_pairs`,
/// the keyed fields that are set, by key, for [`print_canonical`].
///
/// A type whose string has more than keyed fields (a NIC model key, a default part) names the
/// fields it reads itself in `lead { ... }` (they come first, and `from_keyed` leaves them at
/// their default) and implements `FromStr` and `Display` with those helpers. A type without
/// `lead` gets both: its string is keyed parts only (a part without a key is an error), printed
/// in PVE's canonical order.
macro_rules! typed_property_string {
    (@key $field:ident $key:literal) => {
        $key
    };
    (@key $field:ident) => {
        stringify!($field)
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident($kind:literal) {
            lead {
                $( $(#[$lead_meta:meta])* pub $lead:ident: $lead_type:ty, )*
            }
            $( $(#[$field_meta:meta])* $field:ident: $type:ty $(= $key:literal)?, )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Default)]
        #[non_exhaustive]
        pub struct $name {
            $( $(#[$lead_meta])* pub $lead: $lead_type, )*
            $( $(#[$field_meta])* pub $field: Option<$type>, )*
            /// Other keys (any this type has no field for, and any a later PVE adds), kept as
            /// written.
            pub extra: OtherKeys,
        }

        impl $name {
            /// The keys of this type's keyed fields; checked against pve-apidoc.json.
            pub const KEYS: &'static [&'static str] = &Self::OWN_KEYS;

            /// [`Self::KEYS`], as the array the parser sets aside.
            const OWN_KEYS: [&'static str; [$(stringify!($field)),*].len()] =
                [$(typed_property_string!(@key $field $($key)?)),*];

            /// What the errors call a string of this type.
            const KIND: &'static str = $kind;

            /// The value of the keyed fields' `values` (in [`Self::KEYS`] order) and `extra`,
            /// the `lead` fields left at their default.
            fn from_keyed(
                values: [Option<String>; Self::OWN_KEYS.len()],
                extra: OtherKeys,
            ) -> Result<Self, Error> {
                let [$($field),*] = values;
                Ok($name {
                    $( $lead: Default::default(), )*
                    $(
                        $field: read_value(
                            $field,
                            typed_property_string!(@key $field $($key)?),
                            $kind,
                        )?,
                    )*
                    extra,
                })
            }

            /// The keyed fields that are set, by key, as they print.
            fn keyed_pairs(&self) -> BTreeMap<&'static str, String> {
                let mut pairs = BTreeMap::new();
                $(
                    if let Some(value) = &self.$field {
                        let key = typed_property_string!(@key $field $($key)?);
                        pairs.insert(key, value.print());
                    }
                )*
                pairs
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $name:ident($kind:literal) {
            $( $(#[$field_meta:meta])* $field:ident: $type:ty $(= $key:literal)?, )*
        }
    ) => {
        typed_property_string! {
            $(#[$meta])*
            pub struct $name($kind) {
                lead {}
                $( $(#[$field_meta])* $field: $type $(= $key)?, )*
            }
        }

        impl FromStr for $name {
            type Err = Error;
            fn from_str(text: &str) -> Result<Self, Error> {
                let (ps, values) =
                    PropertyString::parse_keyed(text, $name::KIND, $name::OWN_KEYS)?;
                $name::from_keyed(values, ps.into_other_keys())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                print_canonical(f, None, self.keyed_pairs(), &self.extra)
            }
        }
    };
}

/// The NIC models a QEMU `netN` accepts as a key (`virtio=MAC`), from pve-apidoc.json `net[n]`.
pub const QEMU_NIC_MODELS: &[&str] = &[
    "e1000",
    "e1000-82540em",
    "e1000-82544gc",
    "e1000-82545em",
    "e1000e",
    "i82551",
    "i82557b",
    "i82559er",
    "ne2k_isa",
    "ne2k_pci",
    "pcnet",
    "rtl8139",
    "virtio",
    "vmxnet3",
];

typed_property_string! {
    /// A QEMU network device, `netN` (`virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,tag=20`):
    /// the model is a key of its own holding the MAC address, or `model=…` (with `macaddr=…`).
    /// `KEYS` leaves out `model` and the model keys ([`QEMU_NIC_MODELS`]); the keys without a
    /// field here (`rate`, `queues`, `trunks`, …) are in `extra`.
    pub struct QemuNet("QEMU net device") {
        lead {
            /// The NIC model (`virtio`, `e1000`, …): a key of [`QEMU_NIC_MODELS`], or `model`.
            pub model: String,
        }
        /// The MAC address.
        macaddr: String,
        /// The bridge.
        bridge: String,
        /// Whether the firewall applies.
        firewall: bool,
        /// VLAN tag.
        tag: u16,
        /// Whether the link is down.
        link_down: bool,
        /// MTU.
        mtu: u32,
    }
}

impl FromStr for QemuNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        let (mut ps, values) = PropertyString::parse_keyed(text, Self::KIND, Self::OWN_KEYS)?;
        let model_key = ps.take("model");
        let model_part = ps.take_where(|k| QEMU_NIC_MODELS.contains(&k));
        let mut net = QemuNet::from_keyed(values, ps.into_other_keys())?;
        net.model = match (model_part, model_key) {
            (Some((model, mac)), None) if net.macaddr.is_none() => {
                net.macaddr = Some(mac);
                model
            }
            (Some(_), _) => return Err(Error::invalid(Self::KIND, text, "model given twice")),
            (None, Some(model)) => model,
            (None, None) => {
                return Err(Error::invalid(
                    Self::KIND,
                    text,
                    "no NIC model (`virtio=MAC`)",
                ));
            }
        };
        Ok(net)
    }
}

impl fmt::Display for QemuNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = match &self.macaddr {
            Some(mac) => format!("{}={mac}", self.model),
            None => format!("model={}", self.model),
        };
        let mut pairs = self.keyed_pairs();
        pairs.remove("macaddr");
        print_canonical(f, Some(&head), pairs, &self.extra)
    }
}

typed_property_string! {
    /// A container network interface, `netN`
    /// (`name=eth0,bridge=vmbr0,hwaddr=…,ip=dhcp,type=veth`).
    pub struct LxcNet("container net device") {
        /// Interface name inside the container.
        name: String,
        /// The bridge.
        bridge: String,
        /// MAC address.
        hwaddr: String,
        /// IPv4 address with prefix, `dhcp` or `manual`.
        ip: String,
        /// IPv6 address with prefix, `auto`, `dhcp` or `manual`.
        ip6: String,
        /// IPv4 gateway.
        gw: String,
        /// IPv6 gateway.
        gw6: String,
        /// Whether the firewall applies.
        firewall: bool,
        /// VLAN tag.
        tag: u16,
        /// Interface type (`veth`).
        kind: String = "type",
        /// MTU.
        mtu: u32,
    }
}

typed_property_string! {
    /// A volume: a QEMU disk (`scsi0: local-lvm:vm-100-disk-0,iothread=1,size=32G`), a container
    /// `rootfs` (`local-lvm:vm-200-disk-0,size=8G`) or mount point `mpN`
    /// (`local-lvm:vm-200-disk-1,mp=/srv,backup=1,size=16G`). `KEYS` leaves out the default key
    /// (`file` for QEMU, `volume` for containers); `media` exists for QEMU disks, `mp` for
    /// container mount points.
    pub struct Volume("volume") {
        lead {
            /// The volume (`storage:name`, a path, `none`, or `cdrom`): the default key (`file`
            /// for QEMU, `volume` for containers).
            pub volume: String,
        }
        /// Size as written (`8G`, `512M`, `1T`).
        size: String,
        /// Mount path inside the container (`mpN` only).
        mp: String,
        /// `cdrom` or `disk` (QEMU).
        media: String,
        /// Whether backups include it.
        backup: bool,
    }
}

impl Volume {
    /// The size in bytes, from `size` (`K`, `M`, `G`, `T` suffixes, powers of 1024; bare
    /// numbers are bytes).
    pub fn size_bytes(&self) -> Option<u64> {
        let size = self.size.as_deref()?.trim();
        let (number, unit) = match size.char_indices().last()? {
            (i, c) if c.is_ascii_alphabetic() => (&size[..i], c.to_ascii_uppercase()),
            _ => (size, 'B'),
        };
        let factor: u64 = match unit {
            'B' => 1,
            'K' => 1 << 10,
            'M' => 1 << 20,
            'G' => 1 << 30,
            'T' => 1 << 40,
            _ => return None,
        };
        let value: f64 = number.parse().ok()?;
        (value >= 0.0).then_some((value * factor as f64) as u64)
    }

    /// The storage id of `storage:name` volumes.
    pub fn storage(&self) -> Option<&str> {
        let (storage, _) = self.volume.split_once(':')?;
        (!storage.starts_with('/')).then_some(storage)
    }
}

impl FromStr for Volume {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        let (mut ps, values) = PropertyString::parse_setting_aside(text, Self::OWN_KEYS)?;
        let volume = match ps.take_default() {
            Some(v) => v,
            None => ps
                .take("file")
                .or_else(|| ps.take("volume"))
                .ok_or_else(|| Error::invalid(Self::KIND, text, "no volume"))?,
        };
        Ok(Volume {
            volume,
            ..Volume::from_keyed(values, ps.into_other_keys())?
        })
    }
}

impl fmt::Display for Volume {
    /// Writes the volume as the leading part without a key, as PVE prints it, unless the
    /// volume text itself holds a `=` (`file==` parses to the volume `=`): a part without a
    /// key cannot hold one, so it is written `file=…` instead, which parses back to the same
    /// value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = self.keyed_pairs();
        if self.volume.contains('=') || self.volume.trim().is_empty() {
            pairs.insert("file", self.volume.clone());
            print_canonical(f, None, pairs, &self.extra)
        } else {
            print_canonical(f, Some(&self.volume), pairs, &self.extra)
        }
    }
}

typed_property_string! {
    /// Container `features` (`nesting=1,keyctl=1`).
    pub struct LxcFeatures("container features") {
        /// Nested containers (and Docker).
        nesting: bool,
        /// `keyctl()` for unprivileged containers.
        keyctl: bool,
        /// FUSE mounts.
        fuse: bool,
        /// `mknod()`.
        mknod: bool,
        /// Allowed file-system types for `mount` (`nfs;cifs`).
        mount: String,
        /// `/sys` mounted `rw`.
        force_rw_sys: bool,
    }
}

/// QEMU `memory`: a plain number of MiB before PVE 9, a property string with default key
/// `current` since (`4096` or `current=4096`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct QemuMemory {
    /// RAM in MiB.
    pub current: Option<u64>,
    /// Other keys, kept as written.
    pub extra: OtherKeys,
}

impl QemuMemory {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &["current"];

    /// RAM in bytes.
    pub fn bytes(&self) -> Option<u64> {
        self.current.map(|m| m.saturating_mul(1 << 20))
    }
}

impl FromStr for QemuMemory {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "QEMU memory";
        let (mut ps, [current]) = PropertyString::parse_setting_aside(text, ["current"])?;
        let explicit = read_value::<u64>(current, "current", KIND)?;
        let current =
            match ps.take_default() {
                Some(d) => {
                    if explicit.is_some() {
                        return Err(Error::invalid(KIND, text, "`current` given twice"));
                    }
                    Some(d.trim().parse().map_err(|_| {
                        Error::invalid(KIND, text, "memory must be a number of MiB")
                    })?)
                }
                None => explicit,
            };
        Ok(QemuMemory {
            current,
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for QemuMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let current = self.current.map(|c| c.to_string());
        print_canonical(f, current.as_deref(), BTreeMap::new(), &self.extra)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qemu_net_parses_and_prints() {
        let text = "virtio=BC:24:11:AA:BB:CC,bridge=vmbr0,firewall=1,queues=4,tag=20";
        let net: QemuNet = text.parse().unwrap();
        assert_eq!(net.model, "virtio");
        assert_eq!(net.macaddr.as_deref(), Some("BC:24:11:AA:BB:CC"));
        assert_eq!(net.bridge.as_deref(), Some("vmbr0"));
        assert_eq!(net.firewall, Some(true));
        assert_eq!(net.tag, Some(20));
        assert_eq!(net.extra.get("queues"), Some("4"));
        assert_eq!(net.to_string(), text);
    }

    #[test]
    fn qemu_net_takes_its_model_from_a_model_key_or_from_model_and_macaddr_once() {
        let net: QemuNet = "model=e1000,macaddr=BC:24:11:AA:BB:CC,bridge=vmbr0"
            .parse()
            .unwrap();
        assert_eq!(net.model, "e1000");
        assert_eq!(net.macaddr.as_deref(), Some("BC:24:11:AA:BB:CC"));
        assert_eq!(net.to_string(), "e1000=BC:24:11:AA:BB:CC,bridge=vmbr0");
        let no_mac: QemuNet = "model=virtio,bridge=vmbr0".parse().unwrap();
        assert_eq!(no_mac.to_string(), "model=virtio,bridge=vmbr0");
        for (text, reason) in [
            ("virtio=AA,model=e1000", "model given twice"),
            ("virtio=AA,macaddr=BB", "model given twice"),
            ("bridge=vmbr0,macaddr=AA", "no NIC model"),
            ("virtio=AA,tag=x", "`tag` must be a number"),
        ] {
            let err = text.parse::<QemuNet>().unwrap_err().to_string();
            assert!(err.contains(reason), "{text}: {err}");
        }
    }

    #[test]
    fn volumes_parse_sizes() {
        let rootfs: Volume = "local-lvm:vm-200-disk-0,size=8G".parse().unwrap();
        assert_eq!(rootfs.storage(), Some("local-lvm"));
        assert_eq!(rootfs.size_bytes(), Some(8 << 30));
        assert_eq!(rootfs.to_string(), "local-lvm:vm-200-disk-0,size=8G");
        let mp: Volume = "local-lvm:vm-200-disk-1,backup=1,mp=/srv,size=512M"
            .parse()
            .unwrap();
        assert_eq!(mp.mp.as_deref(), Some("/srv"));
        assert_eq!(mp.size_bytes(), Some(512 << 20));
        assert_eq!(
            mp.to_string(),
            "local-lvm:vm-200-disk-1,backup=1,mp=/srv,size=512M"
        );
        let explicit: Volume = "file=local:iso/debian.iso,media=cdrom".parse().unwrap();
        assert_eq!(explicit.volume, "local:iso/debian.iso");
    }

    #[test]
    fn features_and_memory() {
        let f: LxcFeatures = "keyctl=1,nesting=1".parse().unwrap();
        assert_eq!(f.nesting, Some(true));
        assert_eq!(f.keyctl, Some(true));
        assert_eq!(f.to_string(), "keyctl=1,nesting=1");
        let m: QemuMemory = "4096".parse().unwrap();
        assert_eq!(m.current, Some(4096));
        let m: QemuMemory = "current=2048".parse().unwrap();
        assert_eq!(m.bytes(), Some(2048 << 20));
        assert_eq!(m.to_string(), "2048");
    }

    #[test]
    fn lxc_net_reads_each_key_into_its_field_and_type_into_kind() {
        let text = "bridge=vmbr0,firewall=0,gw=10.0.0.1,gw6=fe80::1,hwaddr=BC:24:11:00:00:02,\
                    ip=10.0.0.5/24,ip6=auto,mtu=1400,name=eth0,rate=10,tag=5,type=veth";
        let net: LxcNet = text.parse().unwrap();
        assert_eq!(net.name.as_deref(), Some("eth0"));
        assert_eq!(net.bridge.as_deref(), Some("vmbr0"));
        assert_eq!(net.hwaddr.as_deref(), Some("BC:24:11:00:00:02"));
        assert_eq!(net.ip.as_deref(), Some("10.0.0.5/24"));
        assert_eq!(net.ip6.as_deref(), Some("auto"));
        assert_eq!(net.gw.as_deref(), Some("10.0.0.1"));
        assert_eq!(net.gw6.as_deref(), Some("fe80::1"));
        assert_eq!(net.firewall, Some(false));
        assert_eq!(net.tag, Some(5));
        assert_eq!(net.kind.as_deref(), Some("veth"));
        assert_eq!(net.mtu, Some(1400));
        let other: Vec<(&str, &str)> = net.extra.iter().collect();
        assert_eq!(other, [("rate", "10")], "only the key without a field");
        // A flag prints as PVE writes it (`0`), `kind` under its key `type`, all sorted by key.
        assert_eq!(net.to_string(), text);
        assert_eq!(LxcNet::KEYS[9], "type");
    }

    #[test]
    fn a_bad_value_names_its_key_and_the_kind_of_string() {
        fn error_of<T: FromStr<Err = Error>>(text: &str) -> (&'static str, String, String) {
            match text.parse::<T>() {
                Err(Error::Invalid {
                    kind,
                    input,
                    reason,
                }) => (kind, input, reason),
                Err(other) => panic!("{text}: {other:?}"),
                Ok(_) => panic!("{text} parsed"),
            }
        }
        let net = "container net device";
        let qemu_net = "QEMU net device";
        let features = "container features";
        let cases = [
            (
                error_of::<LxcNet>("firewall=maybe"),
                net,
                "maybe",
                "`firewall` must be 0 or 1",
            ),
            (
                error_of::<LxcNet>("tag=x"),
                net,
                "x",
                "`tag` must be a number",
            ),
            (
                error_of::<LxcNet>("tag=70000"),
                net,
                "70000",
                "`tag` must be a number",
            ),
            (
                error_of::<LxcNet>("mtu=-1"),
                net,
                "-1",
                "`mtu` must be a number",
            ),
            (
                error_of::<LxcNet>("name=eth0,eth1"),
                net,
                "name=eth0,eth1",
                "unexpected part `eth1` without a key",
            ),
            (
                error_of::<QemuNet>("virtio=AA,firewall=2"),
                qemu_net,
                "2",
                "`firewall` must be 0 or 1",
            ),
            (
                error_of::<QemuNet>("virtio=AA,link_down=2"),
                qemu_net,
                "2",
                "`link_down` must be 0 or 1",
            ),
            (
                error_of::<QemuNet>("virtio=AA,mtu=x"),
                qemu_net,
                "x",
                "`mtu` must be a number",
            ),
            (
                error_of::<Volume>("local:vm-1-disk-0,backup=2"),
                "volume",
                "2",
                "`backup` must be 0 or 1",
            ),
            (
                error_of::<Volume>("size=8G"),
                "volume",
                "size=8G",
                "no volume",
            ),
            (
                error_of::<LxcFeatures>("nesting=2"),
                features,
                "2",
                "`nesting` must be 0 or 1",
            ),
            (
                error_of::<LxcFeatures>("keyctl=2"),
                features,
                "2",
                "`keyctl` must be 0 or 1",
            ),
            (
                error_of::<LxcFeatures>("fuse=2"),
                features,
                "2",
                "`fuse` must be 0 or 1",
            ),
            (
                error_of::<LxcFeatures>("mknod=2"),
                features,
                "2",
                "`mknod` must be 0 or 1",
            ),
            (
                error_of::<LxcFeatures>("force_rw_sys=2"),
                features,
                "2",
                "`force_rw_sys` must be 0 or 1",
            ),
            (
                error_of::<QemuMemory>("current=x"),
                "QEMU memory",
                "x",
                "`current` must be a number",
            ),
        ];
        for ((kind, input, reason), want_kind, want_input, want_reason) in cases {
            assert_eq!(
                (kind, input.as_str(), reason.as_str()),
                (want_kind, want_input, want_reason)
            );
        }
    }

    #[test]
    fn flags_print_as_zero_or_one_and_mount_as_written() {
        let f: LxcFeatures = "nesting=1,fuse=0,mount=nfs;cifs,force_rw_sys=0,zz=1"
            .parse()
            .unwrap();
        assert_eq!(
            (f.nesting, f.fuse, f.force_rw_sys, f.keyctl, f.mknod),
            (Some(true), Some(false), Some(false), None, None)
        );
        assert_eq!(f.mount.as_deref(), Some("nfs;cifs"));
        assert_eq!(f.extra.iter().collect::<Vec<_>>(), [("zz", "1")]);
        assert_eq!(
            f.to_string(),
            "force_rw_sys=0,fuse=0,mount=nfs;cifs,nesting=1,zz=1"
        );
        let net: QemuNet = "e1000=AA,link_down=1,firewall=0,mtu=1500".parse().unwrap();
        assert_eq!(
            (net.link_down, net.firewall, net.mtu),
            (Some(true), Some(false), Some(1500))
        );
        assert_eq!(net.to_string(), "e1000=AA,firewall=0,link_down=1,mtu=1500");
        let disk: Volume = "local:vm-1-disk-0,backup=0".parse().unwrap();
        assert_eq!(disk.backup, Some(false));
        assert_eq!(disk.to_string(), "local:vm-1-disk-0,backup=0");
    }

    /// A small deterministic generator for the tests below (no dependency, same keys each run).
    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 33
    }

    /// Entries over `keys` joined as `k=v` parts, and the text they index.
    fn entries_of(keys: &[String]) -> (String, Vec<Entry>) {
        let text: String = keys.iter().map(|k| format!("{k}=v,")).collect();
        let mut entries = Vec::new();
        let mut at = 0;
        for k in keys {
            entries.push(Entry::new(at, at + k.len(), at + k.len() + 2));
            at += k.len() + 3;
        }
        (text, entries)
    }

    #[test]
    fn the_other_keys_sort_agrees_with_a_plain_sort_of_the_keys() {
        let mut seed = 7;
        // Around the sort's threshold and past it; keys that share long prefixes, keys
        // whose eight bytes after the shared prefix are equal, a key that is another's prefix,
        // and keys outside ASCII.
        for n in [0usize, 1, 2, 63, 64, 65, 1_000, 5_000, 40_000] {
            let mut keys: Vec<String> = (0..n)
                .map(|i| match i % 4 {
                    0 => format!("key{}", lcg(&mut seed)),
                    1 => format!("key-long-shared-{}", lcg(&mut seed) % 97),
                    2 => format!("k\u{e9}{}", lcg(&mut seed) % 1_000),
                    _ => format!("key{}", lcg(&mut seed) % 10),
                })
                .collect();
            keys.sort();
            keys.dedup();
            let mut shuffled = keys.clone();
            for i in (1..shuffled.len()).rev() {
                shuffled.swap(i, lcg(&mut seed) as usize % (i + 1));
            }
            let (text, mut entries) = entries_of(&shuffled);
            let shared = shuffled.iter().fold(usize::MAX, |shared, k| {
                shared_prefix(&shuffled[0], k, shared.min(k.len()))
            });
            sort_by_key_text(
                &text,
                &mut entries,
                shared.min(shuffled.first().map_or(0, String::len)),
            );
            let got: Vec<&str> = entries.iter().map(|e| e.key(&text)).collect();
            assert_eq!(got, keys, "{n} keys");
        }
    }

    #[test]
    fn the_key_filter_names_the_repeat_that_comparing_every_pair_names() {
        let mut seed = 11;
        for n in [17usize, 40, 300, 3_000] {
            for repeats in [0usize, 1, 3, 50] {
                let mut keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
                for _ in 0..repeats {
                    let from = lcg(&mut seed) as usize % n;
                    let to = lcg(&mut seed) as usize % n;
                    keys[to] = keys[from].clone();
                }
                let (text, entries) = entries_of(&keys);
                let mut filter = KeyFilter::for_parts(entries.len()).expect("more than 16");
                for e in &entries {
                    filter.add(e.key(&text));
                }
                assert_eq!(
                    filter.first_duplicate(&text, &entries),
                    first_duplicate_pairwise(&text, &entries),
                    "{n} keys, {repeats} repeats"
                );
            }
        }
        // A filter sized for far fewer keys than come (a text whose first block is sparse) is
        // rebuilt as they come, and finds the same repeat.
        for repeats in [0usize, 1, 7] {
            let mut keys: Vec<String> = (0..5_000).map(|i| format!("k{i}")).collect();
            for _ in 0..repeats {
                let from = lcg(&mut seed) as usize % keys.len();
                let to = lcg(&mut seed) as usize % keys.len();
                keys[to] = keys[from].clone();
            }
            let (text, entries) = entries_of(&keys);
            let mut filter = KeyFilter::for_parts(PAIRWISE_UP_TO + 1).expect("more than 16");
            for e in &entries {
                filter.add(e.key(&text));
            }
            assert!(
                filter.words.len() * 32 / 3 + FILTER_BATCH >= keys.len(),
                "rebuilt for the keys that came: at most 32 keys in three words"
            );
            assert_eq!(
                filter.first_duplicate(&text, &entries),
                first_duplicate_pairwise(&text, &entries),
                "5 000 keys, {repeats} repeats, filter sized for 17"
            );
        }
        // One key written over and over: found at its second part, not after comparing all.
        let keys = vec!["a".to_owned(); 100_000];
        let (text, entries) = entries_of(&keys);
        let mut filter = KeyFilter::for_parts(entries.len()).expect("more than 16");
        for e in &entries {
            filter.add(e.key(&text));
        }
        assert_eq!(filter.first_duplicate(&text, &entries), Some(1));
    }

    #[test]
    fn a_string_whose_first_block_has_few_parts_still_finds_its_repeated_key() {
        // The parts are estimated from the first 16 KiB, here one long default value: the
        // filter sized from that is rebuilt as the keys come.
        let head = "x".repeat(2 * COPY_BLOCK);
        let keys: String = (0..3_000).map(|i| format!(",key{i}=v{i}")).collect();
        let parsed = PropertyString::parse(&format!("{head}{keys}")).expect("unique keys");
        assert_eq!(parsed.len(), 3_000);
        assert_eq!(parsed.get("key2999"), Some("v2999"));
        let err = PropertyString::parse(&format!("{head}{keys},key1234=again,key77=again"))
            .expect_err("key1234 is repeated");
        assert!(
            err.to_string().contains("duplicate key `key1234`"),
            "names the first repeat: {err}"
        );
    }

    #[test]
    fn a_string_whose_first_block_is_dense_keeps_no_room_for_the_parts_it_lacks() {
        // 4 000 short parts, then one long value: the first block promises many more parts.
        let parts: String = (0..4_000).map(|i| format!("k{i}=v,")).collect();
        let text = format!("{parts}last={}", "x".repeat(20 * COPY_BLOCK));
        let parsed = PropertyString::parse(&text).expect("unique keys");
        assert_eq!(parsed.len(), 4_001);
        assert!(
            parsed.entries.capacity() <= 2 * parsed.len() + 64,
            "{} entries reserved for {}",
            parsed.entries.capacity(),
            parsed.len()
        );
    }

    #[test]
    fn bad_strings_are_errors() {
        assert!(PropertyString::parse("a,b").is_err());
        assert!(PropertyString::parse("=x").is_err());
        assert!(PropertyString::parse("k=").is_err());
        assert!(PropertyString::parse("k=1,k=2").is_err());
        assert!("bridge=vmbr0".parse::<QemuNet>().is_err());
        assert!("virtio=AA,firewall=maybe".parse::<QemuNet>().is_err());
        assert!("x".parse::<QemuMemory>().is_err());
    }
}
