//! What every component carries ([`Meta`], [`State`], [`Location`]) and the value types the
//! file writes as strings ([`Version`], [`Rpo`]).

// foldhash: paths are the loader's own keys; see `Topology`'s index.
use foldhash::HashMap;
use std::fmt;
use std::num::NonZeroU16;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// Where something appears in the topology file: 1-based line and column (in characters), plus
/// the byte offset and byte length used to draw a diagnostic. [`Location::UNKNOWN`] (all zero)
/// for components built in code rather than loaded from a file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Location {
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column in characters; 0 when unknown.
    pub column: u32,
    /// Byte offset in the file.
    pub offset: usize,
    /// Length in bytes of the located text (at least 1 when known).
    pub len: usize,
}

impl Location {
    /// No location: the component was built in code.
    pub const UNKNOWN: Location = Location {
        line: 0,
        column: 0,
        offset: 0,
        len: 0,
    };

    /// Whether this points into a file (line > 0).
    pub fn is_known(&self) -> bool {
        self.line > 0
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

cpps_named_enum::named_enum! {
    /// The maturity of a component, from the table "Os 3 estados".
    ///
    /// Ordered by maturity: `Desired < Declared < Validated`, so "a state at least as mature as"
    /// is `a >= b`.
    #[derive(
        Clone,
        Copy,
        Debug,
        PartialEq,
        Eq,
        Hash,
        PartialOrd,
        Ord,
        Serialize,
        Deserialize,
        schemars::JsonSchema,
    )]
    #[serde(rename_all = "snake_case")]
    pub enum State {
        /// Roadmap: an architectural decision with neither code nor validation (❌, 🚫 deferred).
        Desired => "desired",
        /// Exists in IaC (Pulumi/Ansible) but not applied or validated in production (🚧).
        Declared => "declared",
        /// Works in production today with real traffic or data (✅).
        Validated => "validated",
    }
}

impl State {
    /// All three states, least mature first.
    pub const ALL: [State; 3] = [State::Desired, State::Declared, State::Validated];
}

/// What every component carries: its state, note, use case and locations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Meta {
    /// The one state of the component.
    pub state: State,
    /// Free text from the documents (🚧 partial details, "deferred", "placeholder name", …).
    pub note: Option<String>,
    /// The proven use case that justifies the component (principle "Frugalidade operacional").
    pub use_case: Option<String>,
    /// Marked 🚫 in the documents: deferred on purpose (state is then `desired`).
    pub deferred: bool,
    /// Where the component's `id:` value is in the file.
    pub location: Location,
    fields: FieldLocations,
}

impl Meta {
    /// A component in `state` with no note, no use case and no location.
    pub fn new(state: State) -> Self {
        Meta {
            state,
            note: None,
            use_case: None,
            deferred: false,
            location: Location::UNKNOWN,
            fields: FieldLocations::default(),
        }
    }

    /// Where the value of field `path` is in the file, falling back to the component's own
    /// location. Paths are the YAML keys under the component, dotted for nested mappings and
    /// with `[i]` for list items: `host`, `state`, `linstor.interface`, `nodes[2]`,
    /// `nodes[2].host`, `place_count`, `ha`, `members[0]`, `sync_to[0].target`, `alerts[1]`.
    pub fn at(&self, path: &str) -> Location {
        self.field_location(path).unwrap_or(self.location)
    }

    /// Where the value of field `path` is in the file, if it was recorded. O(1) for list
    /// items, O(k) in the k named fields otherwise (a handful).
    pub fn field_location(&self, path: &str) -> Option<Location> {
        self.fields.get(path)
    }

    /// Records where field `path` is (the loader calls this), replacing what was recorded for
    /// it. O(1) for list items: a host with thousands of GPUs loads in time linear in their
    /// number.
    pub fn set_field_location(&mut self, path: impl AsRef<str>, location: Location) {
        self.fields.set(path.as_ref(), location);
    }

    /// Every recorded field location, in file order.
    pub fn field_locations(&self) -> impl Iterator<Item = (&str, Location)> {
        let mut fields = self.fields.all();
        fields.sort_by_key(|&(p, l)| (l.offset, l.line, l.column, p));
        fields.into_iter()
    }

    /// Frees the spare room of the field locations (the loader calls this once a component
    /// is built: a large file holds many components).
    pub(crate) fn shrink(&mut self) {
        self.fields.shrink();
    }
}

/// The field names a component's locations are kept under as a number, not as text: the
/// keys the loader records (sorted, for a binary search). Any other path (a list item such
/// as `gpus[3]`, a path set in code) is kept as text.
const KNOWN_FIELDS: [&str; 50] = [
    "address",
    "argocd",
    "backup",
    "candidate_hosts",
    "cert_manager",
    "cert_manager.state",
    "cilium_lxc_exception",
    "cilium_vm_poc",
    "cluster",
    "cni",
    "cni.kind",
    "cni.version",
    "controller",
    "controller.primary",
    "controller.standby",
    "controller.vip",
    "default_deny",
    "endpoints",
    "gpu",
    "guest",
    "ha",
    "ha_state",
    "host",
    "kind",
    "linstor",
    "linstor.interface",
    "linstor.roles",
    "manager",
    "manages",
    "members",
    "metrics",
    "node_placement",
    "nodes",
    "nvidia_driver",
    "place_count",
    "privileged",
    "proxmox_cluster",
    "purpose",
    "pve_version",
    "replaces",
    "rpo",
    "runs_in",
    "site",
    "sites",
    "state",
    "storage",
    "tier",
    "tool",
    "vrrp_peer",
    "wireguard_peers",
];

/// How many field locations a component holds in itself; more go to the heap. A guest
/// usually has its `state`, `host` and `kind`.
const INLINE_FIELDS: usize = 3;

/// The locations of a component's fields, 16 bytes each: the first three in the component
/// itself (48 bytes in all), more on the heap. A large file is mostly guests with a few fields
/// each; a map of strings to full locations cost about 100 bytes per field.
#[derive(Clone)]
enum FieldLocations {
    /// At most [`INLINE_FIELDS`] entries; the unused ones have the key [`FieldEntry::UNUSED`].
    Inline([FieldEntry; INLINE_FIELDS]),
    /// More entries, or text paths, or locations an entry cannot hold.
    Spilled(Box<SpilledFields>),
}

const _: () = assert!(size_of::<FieldLocations>() == 16 * INLINE_FIELDS);

impl Default for FieldLocations {
    fn default() -> Self {
        FieldLocations::Inline([FieldEntry::UNUSED_ENTRY; INLINE_FIELDS])
    }
}

/// One field: its key and its location.
#[derive(Clone, Copy, PartialEq, Eq)]
struct FieldEntry {
    /// An index in [`KNOWN_FIELDS`] plus one, [`FieldEntry::TEXT_PATH`] or
    /// [`FieldEntry::UNUSED`]. Never zero: an inline list's tag lives there.
    key: NonZeroU16,
    /// [`FieldEntry::WIDE`]: the location is in [`SpilledFields::wide`].
    len: u16,
    line: u32,
    column: u32,
    offset: u32,
}

impl FieldEntry {
    /// The key of an entry whose path is text (in [`SpilledFields::paths`]).
    const TEXT_PATH: NonZeroU16 = NonZeroU16::MAX;
    /// The key of an unused inline entry.
    const UNUSED: NonZeroU16 = NonZeroU16::new(u16::MAX - 1).expect("not zero");
    const UNUSED_ENTRY: FieldEntry = FieldEntry {
        key: Self::UNUSED,
        len: 0,
        line: 0,
        column: 0,
        offset: 0,
    };
    const WIDE: u16 = u16::MAX;

    fn known(index: usize) -> NonZeroU16 {
        NonZeroU16::new(index as u16 + 1).expect("an index plus one")
    }

    fn known_index(self) -> Option<usize> {
        let key = usize::from(self.key.get());
        (key <= KNOWN_FIELDS.len()).then(|| key - 1)
    }
}

#[derive(Clone, Default)]
struct SpilledFields {
    entries: Vec<FieldEntry>,
    /// The text paths, and the position of each one's entry.
    paths: HashMap<Box<str>, u32>,
    /// Locations that do not fit an entry (offset past 4 GiB, 64 KiB or longer), by entry
    /// position.
    wide: HashMap<u32, Location>,
}

impl FieldLocations {
    fn entries(&self) -> &[FieldEntry] {
        match self {
            FieldLocations::Inline(entries) => {
                let used = entries
                    .iter()
                    .position(|e| e.key == FieldEntry::UNUSED)
                    .unwrap_or(INLINE_FIELDS);
                &entries[..used]
            }
            FieldLocations::Spilled(s) => &s.entries,
        }
    }

    fn spilled(&mut self) -> &mut SpilledFields {
        if let FieldLocations::Inline(_) = self {
            let entries = self.entries().to_vec();
            *self = FieldLocations::Spilled(Box::new(SpilledFields {
                entries,
                ..SpilledFields::default()
            }));
        }
        match self {
            FieldLocations::Spilled(s) => s,
            FieldLocations::Inline(_) => unreachable!("spilled above"),
        }
    }

    fn push(&mut self, entry: FieldEntry) {
        let used = self.entries().len();
        match self {
            FieldLocations::Inline(entries) if used < INLINE_FIELDS => entries[used] = entry,
            _ => self.spilled().entries.push(entry),
        }
    }

    fn shrink(&mut self) {
        if let FieldLocations::Spilled(s) = self {
            s.entries.shrink_to_fit();
        }
    }

    fn spilled_ref(&self) -> Option<&SpilledFields> {
        match self {
            FieldLocations::Spilled(s) => Some(s),
            FieldLocations::Inline(_) => None,
        }
    }

    fn position(&self, path: &str) -> Option<usize> {
        match KNOWN_FIELDS.binary_search(&path) {
            Ok(index) => {
                let key = FieldEntry::known(index);
                self.entries().iter().position(|e| e.key == key)
            }
            Err(_) => self
                .spilled_ref()
                .and_then(|s| s.paths.get(path))
                .map(|&i| i as usize),
        }
    }

    fn location(&self, i: usize) -> Location {
        let e = self.entries()[i];
        if e.len == FieldEntry::WIDE
            && let Some(l) = self.spilled_ref().and_then(|s| s.wide.get(&(i as u32)))
        {
            return *l;
        }
        Location {
            line: e.line,
            column: e.column,
            offset: e.offset as usize,
            len: usize::from(e.len),
        }
    }

    fn get(&self, path: &str) -> Option<Location> {
        self.position(path).map(|i| self.location(i))
    }

    fn set(&mut self, path: &str, location: Location) {
        let i = match self.position(path) {
            Some(i) => i,
            None => {
                let i = self.entries().len();
                let key = match KNOWN_FIELDS.binary_search(&path) {
                    Ok(index) => FieldEntry::known(index),
                    Err(_) => {
                        self.spilled().paths.insert(path.into(), i as u32);
                        FieldEntry::TEXT_PATH
                    }
                };
                self.push(FieldEntry {
                    key,
                    ..FieldEntry::UNUSED_ENTRY
                });
                i
            }
        };
        let (offset, len) = match (u32::try_from(location.offset), u16::try_from(location.len)) {
            (Ok(offset), Ok(len)) if len != FieldEntry::WIDE => {
                if let FieldLocations::Spilled(s) = self {
                    s.wide.remove(&(i as u32));
                }
                (offset, len)
            }
            _ => {
                self.spilled().wide.insert(i as u32, location);
                (0, FieldEntry::WIDE)
            }
        };
        let entry = FieldEntry {
            key: self.entries()[i].key,
            len,
            line: location.line,
            column: location.column,
            offset,
        };
        match self {
            FieldLocations::Inline(entries) => entries[i] = entry,
            FieldLocations::Spilled(s) => s.entries[i] = entry,
        }
    }

    /// Every path and its location, in no order.
    fn all(&self) -> Vec<(&str, Location)> {
        let entries = self.entries();
        let mut text_paths: Vec<&str> = Vec::new();
        if let Some(s) = self.spilled_ref() {
            text_paths = vec![""; entries.len()];
            for (p, &i) in &s.paths {
                if let Some(slot) = text_paths.get_mut(i as usize) {
                    *slot = p;
                }
            }
        }
        entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let path = match e.known_index() {
                    Some(index) => KNOWN_FIELDS[index],
                    None => text_paths.get(i).copied().unwrap_or(""),
                };
                (path, self.location(i))
            })
            .collect()
    }
}

impl PartialEq for FieldLocations {
    /// The same paths at the same locations, in whatever order they were recorded.
    fn eq(&self, other: &Self) -> bool {
        self.entries().len() == other.entries().len()
            && self.all().iter().all(|&(p, l)| other.get(p) == Some(l))
    }
}

impl Eq for FieldLocations {}

impl fmt::Debug for FieldLocations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.all()).finish()
    }
}

/// A version number such as `8.4`, `1.16.3` or `550.54.15`, compared numerically.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Version {
    raw: String,
    numbers: Vec<u64>,
}

/// Why a string is not a [`Version`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a version: expected numbers separated by dots, such as `8.4` or `1.16.3`")]
pub struct VersionError(pub String);

impl Version {
    /// Parses `[v]N(.N)*` optionally followed by `-suffix` or `+suffix`.
    pub fn new(raw: impl Into<String>) -> Result<Self, VersionError> {
        let raw = raw.into();
        let body = raw.strip_prefix('v').unwrap_or(&raw);
        let end = body.find(['-', '+']).unwrap_or(body.len());
        let (nums, suffix) = body.split_at(end);
        let numbers: Result<Vec<u64>, _> = nums.split('.').map(str::parse::<u64>).collect();
        match numbers {
            Ok(numbers)
                if !numbers.is_empty()
                    && nums
                        .split('.')
                        .all(|p| p.bytes().all(|b| b.is_ascii_digit()))
                    && (suffix.is_empty() || suffix.len() > 1) =>
            {
                Ok(Version { raw, numbers })
            }
            _ => Err(VersionError(raw)),
        }
    }

    /// The text as written.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The numeric parts (`1.16.3` → `[1, 16, 3]`).
    pub fn numbers(&self) -> &[u64] {
        &self.numbers
    }

    /// The first number.
    pub fn major(&self) -> u64 {
        self.numbers[0]
    }

    /// Whether this version is at least `min`, comparing numerically part by part, missing
    /// parts counting as 0 (`1.16` ≥ `1.16.0`).
    pub fn at_least(&self, min: &Version) -> bool {
        let n = self.numbers.len().max(min.numbers.len());
        for i in 0..n {
            let a = self.numbers.get(i).copied().unwrap_or(0);
            let b = min.numbers.get(i).copied().unwrap_or(0);
            if a != b {
                return a > b;
            }
        }
        true
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.raw)
    }
}

impl FromStr for Version {
    type Err = VersionError;
    fn from_str(s: &str) -> Result<Self, VersionError> {
        Version::new(s)
    }
}

/// A recovery point objective: the most data, in time, a restore may lose (`15m`, `24h`, `1d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rpo {
    seconds: u64,
}

/// Why a string is not an [`Rpo`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a duration: expected a number and a unit m, h, d or w, such as `24h`")]
pub struct RpoError(pub String);

impl Rpo {
    /// An RPO of `seconds`.
    pub fn from_secs(seconds: u64) -> Self {
        Rpo { seconds }
    }

    /// The RPO in seconds.
    pub fn as_secs(self) -> u64 {
        self.seconds
    }
}

impl FromStr for Rpo {
    type Err = RpoError;
    fn from_str(s: &str) -> Result<Self, RpoError> {
        let err = || RpoError(s.to_owned());
        let unit_at = s.find(|c: char| !c.is_ascii_digit()).ok_or_else(err)?;
        let (num, unit) = s.split_at(unit_at);
        let n: u64 = num.parse().map_err(|_| err())?;
        let factor = match unit {
            "m" => 60,
            "h" => 3_600,
            "d" => 86_400,
            "w" => 604_800,
            _ => return Err(err()),
        };
        let seconds = n.checked_mul(factor).ok_or_else(err)?;
        if seconds == 0 {
            return Err(err());
        }
        Ok(Rpo { seconds })
    }
}

impl fmt::Display for Rpo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.seconds;
        if s.is_multiple_of(604_800) {
            write!(f, "{}w", s / 604_800)
        } else if s.is_multiple_of(86_400) {
            write!(f, "{}d", s / 86_400)
        } else if s.is_multiple_of(3_600) {
            write!(f, "{}h", s / 3_600)
        } else if s.is_multiple_of(60) {
            write!(f, "{}m", s / 60)
        } else {
            write!(f, "{s}s")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(line: u32, offset: usize, len: usize) -> Location {
        Location {
            line,
            column: 3,
            offset,
            len,
        }
    }

    #[test]
    fn the_known_fields_are_sorted_for_their_binary_search() {
        assert!(KNOWN_FIELDS.is_sorted());
    }

    #[test]
    fn field_locations_keep_known_and_text_paths_long_values_and_far_offsets() {
        let mut meta = Meta::new(State::Validated);
        meta.location = at(1, 0, 2);
        meta.set_field_location("host", at(2, 10, 5));
        meta.set_field_location("kind", at(3, 20, 2));
        assert_eq!(meta.field_location("host"), Some(at(2, 10, 5)));
        // A fourth field, a text path, a 100 kB value and a value past 4 GiB.
        meta.set_field_location("state", at(4, 30, 9));
        meta.set_field_location(format!("gpus[{}]", 7), at(5, 40, 1));
        meta.set_field_location("rpo", at(6, 50, 100_000));
        meta.set_field_location("ha", at(7, 5_000_000_000, 4));
        assert_eq!(meta.field_location("kind"), Some(at(3, 20, 2)));
        assert_eq!(meta.field_location("gpus[7]"), Some(at(5, 40, 1)));
        assert_eq!(meta.field_location("rpo"), Some(at(6, 50, 100_000)));
        assert_eq!(meta.field_location("ha"), Some(at(7, 5_000_000_000, 4)));
        assert_eq!(meta.field_location("gpus[8]"), None);
        assert_eq!(meta.at("gpus[8]"), at(1, 0, 2));
        // Recording a field again replaces its location, wide or not.
        meta.set_field_location("rpo", at(8, 60, 3));
        meta.set_field_location("host", at(9, 70, 70_000));
        assert_eq!(meta.field_location("rpo"), Some(at(8, 60, 3)));
        assert_eq!(meta.field_location("host"), Some(at(9, 70, 70_000)));
        let paths: Vec<&str> = meta.field_locations().map(|(p, _)| p).collect();
        assert_eq!(paths, ["kind", "state", "gpus[7]", "rpo", "host", "ha"]);
    }

    #[test]
    fn metas_are_equal_whatever_order_their_fields_were_recorded_in() {
        let mut a = Meta::new(State::Declared);
        let mut b = Meta::new(State::Declared);
        a.set_field_location("host", at(2, 10, 5));
        a.set_field_location("kind", at(3, 20, 2));
        b.set_field_location("kind", at(3, 20, 2));
        assert_ne!(a, b);
        b.set_field_location("host", at(2, 10, 5));
        assert_eq!(a, b);
        b.set_field_location("host", at(2, 11, 5));
        assert_ne!(a, b);
    }
}
