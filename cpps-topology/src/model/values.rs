//! What every component carries ([`Meta`], [`State`], [`Location`]) and the value types the
//! file writes as strings ([`Version`], [`Rpo`]).

// foldhash: paths are the loader's own keys; see `Topology`'s index.
use foldhash::{HashMap, HashMapExt};
use std::fmt;
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
    Desired,
    /// Exists in IaC (Pulumi/Ansible) but not applied or validated in production (🚧).
    Declared,
    /// Works in production today with real traffic or data (✅).
    Validated,
}

impl State {
    /// All three states, least mature first.
    pub const ALL: [State; 3] = [State::Desired, State::Declared, State::Validated];

    /// `validated`, `declared` or `desired`.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Desired => "desired",
            State::Declared => "declared",
            State::Validated => "validated",
        }
    }
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
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
    fields: HashMap<Box<str>, Location>,
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
            fields: HashMap::new(),
        }
    }

    /// Where the value of field `path` is in the file, falling back to the component's own
    /// location. Paths are the YAML keys under the component, dotted for nested mappings and
    /// with `[i]` for list items: `host`, `state`, `linstor.interface`, `nodes[2]`,
    /// `nodes[2].host`, `place_count`, `ha`, `members[0]`, `sync_to[0].target`, `alerts[1]`.
    pub fn at(&self, path: &str) -> Location {
        self.field_location(path).unwrap_or(self.location)
    }

    /// Where the value of field `path` is in the file, if it was recorded. O(1).
    pub fn field_location(&self, path: &str) -> Option<Location> {
        self.fields.get(path).copied()
    }

    /// Records where field `path` is (the loader calls this). O(1): a host with thousands of
    /// GPUs loads in time linear in their number.
    pub fn set_field_location(&mut self, path: impl Into<Box<str>>, location: Location) {
        self.fields.insert(path.into(), location);
    }

    /// Every recorded field location, in file order.
    pub fn field_locations(&self) -> impl Iterator<Item = (&str, Location)> {
        let mut fields: Vec<(&str, Location)> =
            self.fields.iter().map(|(p, l)| (&**p, *l)).collect();
        fields.sort_by_key(|&(p, l)| (l.offset, l.line, l.column, p));
        fields.into_iter()
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
