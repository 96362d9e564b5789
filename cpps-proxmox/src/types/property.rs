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
    fn of(text: &str, part: &str) -> Span {
        // `part` is a sub-slice of `text`, whose length was checked to fit in `u32`.
        let start = part.as_ptr() as usize - text.as_ptr() as usize;
        Span {
            start: start as u32,
            end: (start + part.len()) as u32,
        }
    }

    fn get(self, text: &str) -> &str {
        &text[self.start as usize..self.end as usize]
    }
}

/// One `key=value` part.
#[derive(Debug, Clone, Copy)]
struct Entry {
    key: Span,
    value: Span,
}

/// The `(key, value)` text of `entries`, in their order.
fn pairs<'a>(
    text: &'a str,
    entries: &'a [Entry],
) -> impl ExactSizeIterator<Item = (&'a str, &'a str)> + Clone + 'a {
    entries
        .iter()
        .map(move |e| (e.key.get(text), e.value.get(text)))
}

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
}

impl PropertyString {
    /// Parses a property string. Errors name the offending part.
    ///
    /// Linear in the length of `text`, in time and memory (`first_duplicate` finds repeated
    /// keys); `cargo bench -p cpps-proxmox --bench property` measures it.
    pub fn parse(text: &str) -> Result<Self, Error> {
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
        let parts = text.bytes().filter(|&b| b == b',').count() + 1;
        let mut out = PropertyString {
            text: text.to_owned(),
            default: None,
            entries: Vec::with_capacity(parts),
        };
        // The first malformed part, if any; a duplicate key before it is reported instead,
        // as a reading from left to right meets it first.
        let mut malformed = None;
        for part in text.split(',') {
            if part.trim().is_empty() {
                continue;
            }
            match part.split_once('=') {
                Some(("", _)) => {
                    malformed = Some(format!("part `{part}` has no key before `=`"));
                    break;
                }
                Some((key, "")) => {
                    malformed = Some(format!("key `{key}` has an empty value"));
                    break;
                }
                Some((key, value)) => out.entries.push(Entry {
                    key: Span::of(text, key),
                    value: Span::of(text, value),
                }),
                None if out.default.is_some() => {
                    malformed = Some(format!("more than one part without a key (`{part}`)"));
                    break;
                }
                None => out.default = Some(Span::of(text, part)),
            }
        }
        if let Some(second) = first_duplicate(text, &out.entries) {
            let key = out.entries[second].key.get(text);
            return Err(Error::invalid(
                "property string",
                text,
                format!("duplicate key `{key}`"),
            ));
        }
        match malformed {
            Some(reason) => Err(Error::invalid("property string", text, reason)),
            None => Ok(out),
        }
    }

    /// Parses the property string of a format without a default key: a part without `=` is
    /// an error of `kind`.
    fn parse_keyed(text: &str, kind: &'static str) -> Result<Self, Error> {
        let ps = PropertyString::parse(text)?;
        match ps.default_value() {
            Some(d) => Err(Error::invalid(
                kind,
                text,
                format!("unexpected part `{d}` without a key"),
            )),
            None => Ok(ps),
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
            .position(|e| matches(e.key.get(&self.text)))?;
        let entry = self.entries.remove(index);
        Some((
            entry.key.get(&self.text).to_owned(),
            entry.value.get(&self.text).to_owned(),
        ))
    }

    /// Removes `key` and returns its value.
    fn take(&mut self, key: &str) -> Option<String> {
        self.take_where(|k| k == key).map(|(_, v)| v)
    }

    /// Removes the `keys` a typed value has fields for and returns their values, in the order
    /// asked, in one pass over the entries (keys are unique, so each is found once at most).
    fn take_keys<const N: usize>(&mut self, keys: [&str; N]) -> [Option<String>; N] {
        let mut values: [Option<String>; N] = std::array::from_fn(|_| None);
        let text = &self.text;
        self.entries.retain(|e| {
            let key = e.key.get(text);
            match keys.iter().position(|&wanted| wanted == key) {
                Some(i) => {
                    values[i] = Some(e.value.get(text).to_owned());
                    false
                }
                None => true,
            }
        });
        values
    }

    /// The entries left, as the other keys of a typed value (sorted by key).
    ///
    /// Sorted on the keys' first eight bytes as one integer, the keys themselves compared only
    /// where those are equal: an order of integers, not of strings scattered in the text.
    fn into_other_keys(self) -> OtherKeys {
        let text = &self.text;
        let key = |i: u32| self.entries[i as usize].key.get(text);
        let prefix = |key: &str| {
            let mut bytes = [0u8; 8];
            let head = &key.as_bytes()[..key.len().min(8)];
            bytes[..head.len()].copy_from_slice(head);
            u64::from_be_bytes(bytes)
        };
        let mut order: Vec<(u64, u32)> = (0..self.entries.len() as u32)
            .map(|i| (prefix(key(i)), i))
            .collect();
        // A string PVE wrote has its keys sorted already, which the sort sees in one pass.
        order.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| key(a.1).cmp(key(b.1))));
        let entries = order
            .iter()
            .map(|&(_, i)| self.entries[i as usize])
            .collect();
        OtherKeys {
            text: self.text,
            entries,
        }
    }
}

/// The position of the first entry whose key an earlier entry has already: the duplicate a
/// reading from left to right meets first.
///
/// Linear and cache-friendly at any size: a few keys are compared pairwise; more are hashed,
/// the hashes spread into partitions of about 2 048 by their top bits (one counting pass, one
/// scatter pass that keeps the entries' order), and each partition goes through one small hash
/// table that stays in a core's cache, keys compared where hashes are equal. (One hash table
/// over 300 000 keys would not stay in the cache and cost a miss a key.)
fn first_duplicate(text: &str, entries: &[Entry]) -> Option<usize> {
    const PAIRWISE_UP_TO: usize = 16;
    const PARTITION: usize = 2_048;
    let key = |i: u32| entries[i as usize].key.get(text);
    if entries.len() <= PAIRWISE_UP_TO {
        return (1..entries.len()).find(|&j| (0..j).any(|i| key(i as u32) == key(j as u32)));
    }
    let hasher = foldhash::fast::RandomState::default();
    let hashed: Vec<(u64, u32)> = (0..entries.len() as u32)
        .map(|i| (hasher.hash_one(key(i)), i))
        .collect();
    let bits = (entries.len() / PARTITION).max(1).ilog2().min(16);
    let partition = |hash: u64| {
        if bits == 0 {
            0
        } else {
            (hash >> (64 - bits)) as usize
        }
    };
    let mut starts = vec![0usize; (1 << bits) + 1];
    for &(hash, _) in &hashed {
        starts[partition(hash) + 1] += 1;
    }
    for p in 1..starts.len() {
        starts[p] += starts[p - 1];
    }
    let mut scattered = vec![(0u64, 0u32); hashed.len()];
    let mut next = starts.clone();
    for &(hash, i) in &hashed {
        let p = partition(hash);
        scattered[next[p]] = (hash, i);
        next[p] += 1;
    }
    drop(hashed);
    let mut first: Option<u32> = None;
    let largest = starts.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    // One small table, emptied for each partition: positions in the partition, by hash.
    let mut table: hashbrown::HashTable<u32> = hashbrown::HashTable::with_capacity(largest);
    for window in starts.windows(2) {
        // The scatter kept the entries' order: an earlier part of a key is met first.
        let part = &scattered[window[0]..window[1]];
        table.clear();
        for (at, &(hash, later)) in part.iter().enumerate() {
            let same = |p: &u32| {
                let (h, earlier) = part[*p as usize];
                h == hash && key(earlier) == key(later)
            };
            if table.find(hash, same).is_some() {
                first = Some(first.map_or(later, |f| f.min(later)));
            } else {
                table.insert_unique(hash, at as u32, |p| part[*p as usize].0);
            }
        }
    }
    first.map(|i| i as usize)
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
            .map(|i| self.entries[i].value.get(&self.text))
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
            self.text.len() + key.len() + value.len() <= MAX_PROPERTY_STRING,
            "the other keys of a property string are limited to 4 GiB"
        );
        let key_span = self.push_text(key);
        let value_span = self.push_text(value);
        match self.position(key) {
            Ok(i) => {
                let old = self.entries[i].value.get(&self.text).to_owned();
                self.entries[i].value = value_span;
                Some(old)
            }
            Err(i) => {
                self.entries.insert(
                    i,
                    Entry {
                        key: key_span,
                        value: value_span,
                    },
                );
                None
            }
        }
    }

    fn push_text(&mut self, part: &str) -> Span {
        let start = self.text.len() as u32;
        self.text.push_str(part);
        Span {
            start,
            end: self.text.len() as u32,
        }
    }

    fn position(&self, key: &str) -> Result<usize, usize> {
        self.entries
            .binary_search_by(|e| e.key.get(&self.text).cmp(key))
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

/// `value` (of `key`) as a `0`/`1` flag.
fn bool_value(value: Option<String>, key: &str, kind: &'static str) -> Result<Option<bool>, Error> {
    match value {
        None => Ok(None),
        Some(v) => parse_bool(&v)
            .map(Some)
            .ok_or_else(|| Error::invalid(kind, &v, format!("`{key}` must be 0 or 1"))),
    }
}

/// `value` (of `key`) as a number.
fn number_value<T: FromStr>(
    value: Option<String>,
    key: &str,
    kind: &'static str,
) -> Result<Option<T>, Error> {
    match value {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| Error::invalid(kind, &v, format!("`{key}` must be a number"))),
    }
}

fn put_bool(pairs: &mut BTreeMap<&'static str, String>, key: &'static str, value: Option<bool>) {
    if let Some(b) = value {
        pairs.insert(key, if b { "1" } else { "0" }.to_owned());
    }
}

fn put<T: ToString>(
    pairs: &mut BTreeMap<&'static str, String>,
    key: &'static str,
    value: &Option<T>,
) {
    if let Some(v) = value {
        pairs.insert(key, v.to_string());
    }
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

/// A QEMU network device, `netN` (`virtio=BC:24:11:00:00:01,bridge=vmbr0,firewall=1,tag=20`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct QemuNet {
    /// The NIC model (`virtio`, `e1000`, …).
    pub model: String,
    /// The MAC address.
    pub macaddr: Option<String>,
    /// The bridge.
    pub bridge: Option<String>,
    /// Whether the firewall applies.
    pub firewall: Option<bool>,
    /// VLAN tag.
    pub tag: Option<u16>,
    /// Whether the link is down.
    pub link_down: Option<bool>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Other keys (`rate`, `queues`, `trunks`, and any added later), kept as written.
    pub extra: OtherKeys,
}

impl QemuNet {
    /// The keys this type reads (besides the model keys); checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &[
        "model",
        "macaddr",
        "bridge",
        "firewall",
        "tag",
        "link_down",
        "mtu",
    ];
}

impl FromStr for QemuNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "QEMU net device";
        let mut ps = PropertyString::parse_keyed(text, KIND)?;
        let [
            mut model,
            mut macaddr,
            bridge,
            firewall,
            tag,
            link_down,
            mtu,
        ] = ps.take_keys([
            "model",
            "macaddr",
            "bridge",
            "firewall",
            "tag",
            "link_down",
            "mtu",
        ]);
        if let Some((m, mac)) = ps.take_where(|k| QEMU_NIC_MODELS.contains(&k)) {
            if model.is_some() || macaddr.is_some() {
                return Err(Error::invalid(KIND, text, "model given twice"));
            }
            model = Some(m);
            macaddr = Some(mac);
        }
        let model =
            model.ok_or_else(|| Error::invalid(KIND, text, "no NIC model (`virtio=MAC`)"))?;
        Ok(QemuNet {
            model,
            macaddr,
            bridge,
            firewall: bool_value(firewall, "firewall", KIND)?,
            tag: number_value(tag, "tag", KIND)?,
            link_down: bool_value(link_down, "link_down", KIND)?,
            mtu: number_value(mtu, "mtu", KIND)?,
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for QemuNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let head = match &self.macaddr {
            Some(mac) => format!("{}={mac}", self.model),
            None => format!("model={}", self.model),
        };
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "bridge", &self.bridge);
        put_bool(&mut pairs, "firewall", self.firewall);
        put(&mut pairs, "tag", &self.tag);
        put_bool(&mut pairs, "link_down", self.link_down);
        put(&mut pairs, "mtu", &self.mtu);
        print_canonical(f, Some(&head), pairs, &self.extra)
    }
}

/// A container network interface, `netN` (`name=eth0,bridge=vmbr0,hwaddr=…,ip=dhcp,type=veth`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LxcNet {
    /// Interface name inside the container.
    pub name: Option<String>,
    /// The bridge.
    pub bridge: Option<String>,
    /// MAC address.
    pub hwaddr: Option<String>,
    /// IPv4 address with prefix, `dhcp` or `manual`.
    pub ip: Option<String>,
    /// IPv6 address with prefix, `auto`, `dhcp` or `manual`.
    pub ip6: Option<String>,
    /// IPv4 gateway.
    pub gw: Option<String>,
    /// IPv6 gateway.
    pub gw6: Option<String>,
    /// Whether the firewall applies.
    pub firewall: Option<bool>,
    /// VLAN tag.
    pub tag: Option<u16>,
    /// Interface type (`veth`).
    pub kind: Option<String>,
    /// MTU.
    pub mtu: Option<u32>,
    /// Other keys, kept as written.
    pub extra: OtherKeys,
}

impl LxcNet {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &LXC_NET_KEYS;
}

/// [`LxcNet::KEYS`], as the array the parser takes them with.
const LXC_NET_KEYS: [&str; 11] = [
    "name", "bridge", "hwaddr", "ip", "ip6", "gw", "gw6", "firewall", "tag", "type", "mtu",
];

impl FromStr for LxcNet {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "container net device";
        let mut ps = PropertyString::parse_keyed(text, KIND)?;
        let [
            name,
            bridge,
            hwaddr,
            ip,
            ip6,
            gw,
            gw6,
            firewall,
            tag,
            kind,
            mtu,
        ] = ps.take_keys(LXC_NET_KEYS);
        Ok(LxcNet {
            name,
            bridge,
            hwaddr,
            ip,
            ip6,
            gw,
            gw6,
            firewall: bool_value(firewall, "firewall", KIND)?,
            tag: number_value(tag, "tag", KIND)?,
            kind,
            mtu: number_value(mtu, "mtu", KIND)?,
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for LxcNet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "name", &self.name);
        put(&mut pairs, "bridge", &self.bridge);
        put(&mut pairs, "hwaddr", &self.hwaddr);
        put(&mut pairs, "ip", &self.ip);
        put(&mut pairs, "ip6", &self.ip6);
        put(&mut pairs, "gw", &self.gw);
        put(&mut pairs, "gw6", &self.gw6);
        put_bool(&mut pairs, "firewall", self.firewall);
        put(&mut pairs, "tag", &self.tag);
        put(&mut pairs, "type", &self.kind);
        put(&mut pairs, "mtu", &self.mtu);
        print_canonical(f, None, pairs, &self.extra)
    }
}

/// A volume: a QEMU disk (`scsi0: local-lvm:vm-100-disk-0,iothread=1,size=32G`), a container
/// `rootfs` (`local-lvm:vm-200-disk-0,size=8G`) or mount point `mpN`
/// (`local-lvm:vm-200-disk-1,mp=/srv,backup=1,size=16G`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Volume {
    /// The volume (`storage:name`, a path, `none`, or `cdrom`): the default key (`file` for
    /// QEMU, `volume` for containers).
    pub volume: String,
    /// Size as written (`8G`, `512M`, `1T`).
    pub size: Option<String>,
    /// Mount path inside the container (`mpN` only).
    pub mp: Option<String>,
    /// `cdrom` or `disk` (QEMU).
    pub media: Option<String>,
    /// Whether backups include it.
    pub backup: Option<bool>,
    /// Other keys, kept as written.
    pub extra: OtherKeys,
}

impl Volume {
    /// The keys this type reads (besides the default key); checked against pve-apidoc.json
    /// (`media` exists for QEMU disks, `mp` for container mount points).
    pub const KEYS: &'static [&'static str] = &["size", "mp", "media", "backup"];

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
        const KIND: &str = "volume";
        let mut ps = PropertyString::parse(text)?;
        let [size, mp, media, backup] = ps.take_keys(["size", "mp", "media", "backup"]);
        let volume = match ps.take_default() {
            Some(v) => v,
            None => ps
                .take("file")
                .or_else(|| ps.take("volume"))
                .ok_or_else(|| Error::invalid(KIND, text, "no volume"))?,
        };
        Ok(Volume {
            volume,
            size,
            mp,
            media,
            backup: bool_value(backup, "backup", KIND)?,
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for Volume {
    /// Writes the volume as the leading part without a key, as PVE prints it, unless the
    /// volume text itself holds a `=` (`file==` parses to the volume `=`): a part without a
    /// key cannot hold one, so it is written `file=…` instead, which parses back to the same
    /// value.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put(&mut pairs, "size", &self.size);
        put(&mut pairs, "mp", &self.mp);
        put(&mut pairs, "media", &self.media);
        put_bool(&mut pairs, "backup", self.backup);
        if self.volume.contains('=') || self.volume.trim().is_empty() {
            pairs.insert("file", self.volume.clone());
            print_canonical(f, None, pairs, &self.extra)
        } else {
            print_canonical(f, Some(&self.volume), pairs, &self.extra)
        }
    }
}

/// Container `features` (`nesting=1,keyctl=1`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct LxcFeatures {
    /// Nested containers (and Docker).
    pub nesting: Option<bool>,
    /// `keyctl()` for unprivileged containers.
    pub keyctl: Option<bool>,
    /// FUSE mounts.
    pub fuse: Option<bool>,
    /// `mknod()`.
    pub mknod: Option<bool>,
    /// Allowed file-system types for `mount` (`nfs;cifs`).
    pub mount: Option<String>,
    /// `/sys` mounted `rw`.
    pub force_rw_sys: Option<bool>,
    /// Other keys, kept as written.
    pub extra: OtherKeys,
}

impl LxcFeatures {
    /// The keys this type reads; checked against pve-apidoc.json.
    pub const KEYS: &'static [&'static str] = &LXC_FEATURE_KEYS;
}

/// [`LxcFeatures::KEYS`], as the array the parser takes them with.
const LXC_FEATURE_KEYS: [&str; 6] = [
    "nesting",
    "keyctl",
    "fuse",
    "mknod",
    "mount",
    "force_rw_sys",
];

impl FromStr for LxcFeatures {
    type Err = Error;
    fn from_str(text: &str) -> Result<Self, Error> {
        const KIND: &str = "container features";
        let mut ps = PropertyString::parse_keyed(text, KIND)?;
        let [nesting, keyctl, fuse, mknod, mount, force_rw_sys] = ps.take_keys(LXC_FEATURE_KEYS);
        Ok(LxcFeatures {
            nesting: bool_value(nesting, "nesting", KIND)?,
            keyctl: bool_value(keyctl, "keyctl", KIND)?,
            fuse: bool_value(fuse, "fuse", KIND)?,
            mknod: bool_value(mknod, "mknod", KIND)?,
            mount,
            force_rw_sys: bool_value(force_rw_sys, "force_rw_sys", KIND)?,
            extra: ps.into_other_keys(),
        })
    }
}

impl fmt::Display for LxcFeatures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut pairs = BTreeMap::new();
        put_bool(&mut pairs, "nesting", self.nesting);
        put_bool(&mut pairs, "keyctl", self.keyctl);
        put_bool(&mut pairs, "fuse", self.fuse);
        put_bool(&mut pairs, "mknod", self.mknod);
        put(&mut pairs, "mount", &self.mount);
        put_bool(&mut pairs, "force_rw_sys", self.force_rw_sys);
        print_canonical(f, None, pairs, &self.extra)
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
        let mut ps = PropertyString::parse(text)?;
        let [current] = ps.take_keys(["current"]);
        let explicit = number_value::<u64>(current, "current", KIND)?;
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
