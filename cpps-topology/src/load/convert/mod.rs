//! From the file types to the model: ids, states, references, values.
//!
//! This module holds what every kind shares (locations, ids and their uniqueness, references
//! and their existence check, values parsed from strings); each domain converts its own kinds
//! in its file (`compute`, `storage`, `network`, `platform`, `cross_cutting`), as in the model.

mod compute;
mod cross_cutting;
mod network;
mod platform;
mod storage;

use std::str::FromStr;
use std::sync::Arc;

// foldhash: the keys are the file's own ids; see `Topology`'s index.
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use serde_saphyr::MessageFormatter;

use super::file::{
    At, Common, ComponentFile, FileState, GuestFile, TopologyFile, TopologyReader, TopologySeed,
};
use super::{FORMAT_VERSION, FileError, FileErrorKind, suggest};
use crate::model::{
    ComponentKind, Guest, HardwareTier, Host, Location, Meta, Parts, ProxmoxCluster, Rpo, SharedId,
    Site, Source, State, Topology,
};

/// What kind a reference must point to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Kind(ComponentKind),
    Tier,
    /// Any component, or `*` (suppression subjects).
    Any,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Kind(k) => k.as_str(),
            Target::Tier => "hardware tier",
            Target::Any => "component",
        }
    }
}

/// Byte offsets of line starts, to turn line/column into offsets.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Lines { text, starts }
    }

    fn location(&self, l: &serde_saphyr::Location) -> Location {
        let (line, column) = (l.line(), l.column());
        if line == 0 || self.text.is_empty() {
            return Location::UNKNOWN;
        }
        let line_start = self
            .starts
            .get((line - 1) as usize)
            .copied()
            .unwrap_or(self.text.len());
        // Only when the parser gave no byte offset: the column's offset in its line.
        let from_col = || {
            let line_end = self.text[line_start.min(self.text.len())..]
                .find('\n')
                .map_or(self.text.len(), |i| line_start + i);
            let line_text = &self.text[line_start.min(line_end)..line_end];
            line_start
                + line_text
                    .char_indices()
                    .nth(column.saturating_sub(1) as usize)
                    .map_or(line_text.len(), |(i, _)| i)
        };
        let mut offset = l
            .span()
            .byte_offset()
            .map(|o| o as usize)
            .filter(|&o| o <= self.text.len() && self.text.is_char_boundary(o))
            .unwrap_or_else(from_col);
        let len = l.span().byte_len().map_or(1, |n| n as usize);
        // One line at most, never past the end, at least one character. Only the located
        // bytes are searched for the line's end: a file on one line is not scanned to its end
        // for each location.
        let end = offset.saturating_add(len).min(self.text.len());
        let mut len = self.text.as_bytes()[offset..end]
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(end - offset);
        if len == 0 {
            if offset >= self.text.len() {
                offset = self.text.len()
                    - self.text[..self.text.len()]
                        .chars()
                        .next_back()
                        .map_or(0, char::len_utf8);
            }
            len = self.text[offset..].chars().next().map_or(0, char::len_utf8);
        }
        Location {
            line: line.min(u32::MAX as u64) as u32,
            column: column.min(u32::MAX as u64) as u32,
            offset,
            len,
        }
    }
}

/// The converter's state: the text's lines, the errors found so far, every id declared (to
/// reject duplicates and check references) and the references to check once all are known.
struct Cx<'a> {
    lines: Lines<'a>,
    errors: Vec<(FileErrorKind, Location)>,
    /// Every component's id (unique across kinds), and the guests built so far.
    ids: Ids,
    /// The id of the guest being converted and where it is, unless it is a duplicate: it is
    /// registered once the guest is built (or not).
    pending_guest: Option<(Arc<str>, Location)>,
    tiers: HashMap<String, Location>,
    /// The references to check, except those of the guests that were built: those are checked
    /// from the guests themselves ([`Cx::check_references`]), so that a large file's guests do
    /// not each hold a queued copy of their references.
    refs: Vec<(Target, String, Location)>,
    /// The text of every valid id read outside the guests' own ids (components' ids and
    /// references), once: a reference shares the text of the id it names, so that 100k guests
    /// on 20 hosts hold 20 copies of the hosts' names, not 100k.
    names: HashSet<Arc<str>>,
}

/// Every component's id (unique across kinds): its kind and where it is defined, the first
/// one of a duplicated id only. The guests' ids, most of a large file, are positions in the
/// built guests' list in a table of 4-byte slots (an entry of a map of ids took 48 bytes);
/// the ids of the other components, and of guests that could not be built, are in a map.
struct Ids {
    others: HashMap<Arc<str>, (ComponentKind, Location)>,
    guests: Vec<Guest>,
    /// Open addressing with linear probing, a power of two long, at most 3/4 full.
    guest_slots: Vec<u32>,
    registered_guests: usize,
    hasher: foldhash::fast::RandomState,
}

impl Ids {
    const EMPTY: u32 = u32::MAX;

    fn new() -> Self {
        Ids {
            others: HashMap::new(),
            guests: Vec::new(),
            guest_slots: Vec::new(),
            registered_guests: 0,
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    fn slot_of(&self, id: &str) -> usize {
        use std::hash::BuildHasher;
        self.hasher.hash_one(id) as usize & (self.guest_slots.len() - 1)
    }

    /// The position of the registered guest with this id.
    fn guest_position(&self, id: &str) -> Option<usize> {
        if self.guest_slots.is_empty() {
            return None;
        }
        let mask = self.guest_slots.len() - 1;
        let mut slot = self.slot_of(id);
        loop {
            let at = self.guest_slots[slot];
            if at == Self::EMPTY {
                return None;
            }
            if self.guests[at as usize].id.as_str() == id {
                return Some(at as usize);
            }
            slot = (slot + 1) & mask;
        }
    }

    fn get(&self, id: &str) -> Option<(ComponentKind, Location)> {
        if let Some(&found) = self.others.get(id) {
            return Some(found);
        }
        self.guest_position(id)
            .map(|i| (ComponentKind::Guest, self.guests[i].meta.location))
    }

    /// Registers the id of a component (not a built guest) that is not registered yet.
    fn insert(&mut self, id: Arc<str>, kind: ComponentKind, at: Location) {
        self.others.insert(id, (kind, at));
    }

    /// Adds a built guest, and registers its id if `register` (it is not a duplicate).
    fn push_guest(&mut self, guest: Guest, register: bool) {
        let position = u32::try_from(self.guests.len()).unwrap_or(Self::EMPTY);
        if register && position == Self::EMPTY {
            // Past 4 billion guests: the map holds the id.
            self.others.insert(
                Arc::clone(guest.id.shared()),
                (ComponentKind::Guest, guest.meta.location),
            );
        } else if register {
            if (self.registered_guests + 1) * 4 > self.guest_slots.len() * 3 {
                self.grow();
            }
            self.place(guest.id.as_str(), position);
            self.registered_guests += 1;
        }
        self.guests.push(guest);
    }

    fn place(&mut self, id: &str, position: u32) {
        let mask = self.guest_slots.len() - 1;
        let mut slot = self.slot_of(id);
        while self.guest_slots[slot] != Self::EMPTY {
            slot = (slot + 1) & mask;
        }
        self.guest_slots[slot] = position;
    }

    fn grow(&mut self) {
        let len = (self.guest_slots.len() * 2).max(64);
        let old = std::mem::replace(&mut self.guest_slots, vec![Self::EMPTY; len]);
        for position in old.into_iter().filter(|&p| p != Self::EMPTY) {
            let id = Arc::clone(self.guests[position as usize].id.shared());
            self.place(&id, position);
        }
    }

    /// Every registered id and its kind, in no order.
    fn kinds(&self) -> impl Iterator<Item = (&str, ComponentKind)> {
        let others = self.others.iter().map(|(id, (kind, _))| (&**id, *kind));
        let guests = self
            .guest_slots
            .iter()
            .filter(|&&p| p != Self::EMPTY)
            .map(|&p| (self.guests[p as usize].id.as_str(), ComponentKind::Guest));
        others.chain(guests)
    }
}

fn map_parse_error(e: &serde_saphyr::Error) -> FileErrorKind {
    use serde_saphyr::Error as E;
    let inner = e.without_snippet();
    let inner = match inner {
        E::AliasError { error, .. } => error.without_snippet(),
        other => other,
    };
    match inner {
        E::SerdeUnknownField {
            field, expected, ..
        } => FileErrorKind::UnknownKey {
            key: field.clone(),
            suggestion: suggest(field, expected.iter().copied()),
            expected: expected.iter().map(|s| (*s).to_owned()).collect(),
        },
        E::SerdeUnknownVariant {
            variant, expected, ..
        } => FileErrorKind::UnknownValue {
            value: variant.clone(),
            suggestion: suggest(variant, expected.iter().copied()),
            expected: expected.iter().map(|s| (*s).to_owned()).collect(),
        },
        E::SerdeMissingField { field, .. } => FileErrorKind::MissingKey {
            key: (*field).to_owned(),
        },
        E::DuplicateMappingKey { key, .. } => FileErrorKind::DuplicateKey {
            key: key.clone().unwrap_or_else(|| "?".to_owned()),
        },
        other => FileErrorKind::Syntax {
            message: serde_saphyr::DefaultMessageFormatter
                .format_message(other)
                .into_owned(),
        },
    }
}

/// The most YAML events all aliases of a file may replay together.
const MAX_REPLAYED_ALIAS_EVENTS: usize = 20_000;

/// The most times one anchor may be aliased.
const MAX_EXPANSIONS_PER_ANCHOR: usize = 1_000;

/// `source` with the rest of the line after the key at `at` replaced by `*`, byte for byte, so
/// that every offset and column of the diagnostic stays where it was.
fn masked_after_key(source: &Source, at: Location) -> Source {
    let text = &source.text;
    let start = (at.offset + at.len).min(text.len());
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut masked = String::with_capacity(text.len());
    masked.push_str(&text[..start]);
    for (i, c) in text[start..end].char_indices() {
        // Keep the `:` and the blanks after the key; mask every other character's bytes.
        let keep = (c == ':' && i == 0) || c.is_whitespace();
        let width = c.len_utf8();
        if keep {
            masked.push(c);
        } else {
            masked.extend(std::iter::repeat_n('*', width));
        }
    }
    masked.push_str(&text[end..]);
    Source {
        name: source.name.clone(),
        text: masked.into(),
    }
}

/// The parser's options: serde-saphyr's defaults, with room for a datacenter-sized file.
fn parse_options() -> serde_saphyr::Options {
    // serde-saphyr's default budget (250k nodes, 1M events) protects against YAML bombs but
    // stops at about 40k guests; a datacenter model must load at 100k+ (the audit benchmark's
    // size), so the node and event caps are raised while the alias, anchor and depth caps stay.
    let mut options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_nodes: 8_000_000,
            max_events: 32_000_000,
        },
    };
    // Aliases are replayed event by event: a small file that aliases one big anchor again and
    // again expands to millions of events (an 80 KB file took 8 s to be refused at the default
    // cap of 1M replayed events). A topology has no use for that; a few anchors of shared
    // blocks replay far fewer events than these caps.
    options.alias_limits.max_total_replayed_events = MAX_REPLAYED_ALIAS_EVENTS;
    options.alias_limits.max_alias_expansions_per_anchor = MAX_EXPANSIONS_PER_ANCHOR;
    options
}

/// The components of the kinds converted before the guests (in [`Cx::convert`]'s order).
struct Early {
    tiers: Vec<HardwareTier>,
    sites: Vec<Site>,
    proxmox_clusters: Vec<ProxmoxCluster>,
    hosts: Vec<Host>,
}

/// What the parser hands the guests to.
///
/// Streaming (the usual case): the kinds before the guests are converted when the `guests`
/// key is reached, then each guest as soon as it is read, so that the file form of the guests
/// (most of a large file) never accumulates. That is the converter's order (tiers, sites,
/// Proxmox clusters, hosts, guests, then the rest) only if no list of those four kinds comes
/// after the guests in the file; when one does, the file is read again with the guests
/// collected, and converted in that order, so that what is reported (which of two components
/// sharing an id is the duplicate, and in which order) never depends on the file's order.
struct Reader<'c, 'a> {
    cx: &'c mut Cx<'a>,
    stream: bool,
    early: Option<Early>,
    guest_files: Vec<GuestFile>,
}

impl TopologyReader for Reader<'_, '_> {
    fn before_guests(&mut self, file: &mut TopologyFile) {
        if self.stream {
            self.early = Some(self.cx.early(file));
        }
    }

    fn guest(&mut self, guest: GuestFile) {
        if self.stream {
            self.cx.push_guest(&guest);
        } else {
            self.guest_files.push(guest);
        }
    }
}

/// Parses, converts and checks a whole file.
pub(super) fn load(source: Source) -> Result<Topology, FileError> {
    let text = source.text.clone();
    let mut stream = true;
    let (parts, version, name, rpo, mut errors) = loop {
        let mut cx = Cx {
            lines: Lines::new(&text),
            errors: Vec::new(),
            ids: Ids::new(),
            pending_guest: None,
            tiers: HashMap::new(),
            refs: Vec::new(),
            names: HashSet::new(),
        };
        // Room for one guest per line (at least 32 bytes each): the guests' list is not
        // copied as it grows (untouched room costs no memory), and the list is fitted to the
        // guests once they are read.
        cx.ids
            .guests
            .reserve(cx.lines.starts.len().min(text.len() / 32));
        let mut reader = Reader {
            cx: &mut cx,
            stream,
            early: None,
            guest_files: Vec::new(),
        };
        let read =
            serde_saphyr::with_deserializer_from_str_with_options(&text, parse_options(), |de| {
                serde::de::DeserializeSeed::deserialize(TopologySeed(&mut reader), de)
            });
        let (file, early_kinds_after_guests) = match read {
            Ok(read) => read,
            Err(e) => {
                let location = e
                    .location()
                    .map_or(Location::UNKNOWN, |l| cx.lines.location(&l));
                let kind = map_parse_error(&e);
                // An unknown key is often a misplaced secret (`token: …`): the diagnostic shows
                // the key and masks what follows it on that line.
                let shown = match &kind {
                    FileErrorKind::UnknownKey { .. } if location.is_known() => {
                        masked_after_key(&source, location)
                    }
                    _ => source,
                };
                return Err(FileError::new(kind, location, Some(&shown)));
            }
        };
        if stream && early_kinds_after_guests {
            stream = false;
            continue;
        }
        let Reader {
            early, guest_files, ..
        } = reader;
        let (mut parts, version, name, rpo) = cx.convert(file, early, guest_files);
        cx.check_references();
        parts.guests = std::mem::take(&mut cx.ids.guests);
        parts.guests.shrink_to_fit();
        // The ids and the lines are dropped before the topology's indexes are built: the
        // two are not held together.
        break (parts, version, name, rpo, cx.errors);
    };
    if errors.is_empty() {
        let mut topology = Topology::from_parts(parts);
        topology.version = version;
        topology.name = name;
        topology.rpo = rpo;
        topology.source = Some(source);
        return Ok(topology);
    }
    drop(parts);
    errors.sort_by_key(|(_, l)| (l.line, l.column));
    let mut errors = errors
        .into_iter()
        .map(|(k, l)| FileError::new(k, l, Some(&source)));
    let mut first = errors.next().expect("errors is not empty");
    first.related = errors.collect();
    Err(first)
}

impl Cx<'_> {
    fn loc(&self, l: &serde_saphyr::Location) -> Location {
        self.lines.location(l)
    }

    /// Notes in `meta` that its field `path` is written at `l`, and returns that location.
    fn locate(
        &self,
        meta: &mut Meta,
        path: impl AsRef<str>,
        l: &serde_saphyr::Location,
    ) -> Location {
        let at = self.loc(l);
        meta.set_field_location(path, at);
        at
    }

    fn error(&mut self, kind: FileErrorKind, at: Location) {
        self.errors.push((kind, at));
    }

    fn invalid(&mut self, field: &str, message: impl Into<String>, at: Location) {
        self.error(
            FileErrorKind::InvalidValue {
                field: field.to_owned(),
                message: message.into(),
            },
            at,
        );
    }

    fn parse<T: FromStr>(&mut self, field: &str, v: &At<String>) -> Option<T>
    where
        T::Err: std::fmt::Display,
    {
        match v.value.parse::<T>() {
            Ok(t) => Some(t),
            Err(e) => {
                let at = self.loc(&v.at);
                self.invalid(field, e.to_string(), at);
                None
            }
        }
    }

    /// Parses an id that other components may refer to, sharing its text with the other ids
    /// and references that have the same.
    fn shared_id<T: SharedId>(&mut self, field: &str, v: &At<String>) -> Option<T> {
        if let Some(name) = self.names.get(v.value.as_str()) {
            // Only valid ids are kept in `names`.
            return T::from_shared(name).ok();
        }
        let id = self.parse::<T>(field, v)?;
        self.names.insert(Arc::clone(id.shared()));
        Some(id)
    }

    /// Registers a component's id (duplicates are errors: the first one keeps the id). A
    /// guest's id waits in `pending_guest` until the guest is built, or not.
    fn register(&mut self, kind: ComponentKind, id: Arc<str>, at: Location) {
        if let Some((_, first)) = self.ids.get(&id) {
            self.error(
                FileErrorKind::DuplicateId {
                    id: id.to_string(),
                    first,
                },
                at,
            );
        } else if kind == ComponentKind::Guest {
            self.pending_guest = Some((id, at));
        } else {
            self.ids.insert(id, kind, at);
        }
    }

    /// Parses a component's own id and registers it (duplicates are errors), then builds its
    /// meta (a missing state is an error). A guest's id is its own text: nothing shares it.
    fn component<T: SharedId>(
        &mut self,
        kind: ComponentKind,
        file: &impl ComponentFile,
    ) -> Option<(T, Meta)> {
        let Common {
            id,
            state,
            note,
            use_case,
            deferred,
        } = file.common();
        let at = self.loc(&id.at);
        let parsed = if kind == ComponentKind::Guest {
            self.parse::<T>("id", id)
        } else {
            self.shared_id::<T>("id", id)
        };
        let text = parsed
            .as_ref()
            .map_or_else(|| Arc::from(id.value.as_str()), |p| Arc::clone(p.shared()));
        self.register(kind, text, at);
        let state = match state {
            Some(s) => {
                let sat = self.loc(&s.at);
                Some((s.value.0, sat))
            }
            None => {
                self.error(
                    FileErrorKind::MissingState {
                        kind: kind.as_str().to_owned(),
                        id: id.value.clone(),
                    },
                    at,
                );
                None
            }
        };
        let mut meta = Meta::new(state.map_or(State::Desired, |s| s.0));
        meta.note = note.clone();
        meta.use_case = use_case.clone();
        meta.deferred = deferred;
        meta.location = at;
        if let Some((_, sat)) = state {
            meta.set_field_location("state", sat);
        }
        Some((parsed?, meta))
    }

    /// Parses a reference, records its location under `path` and queues the existence check.
    fn reference<T: SharedId>(
        &mut self,
        meta: &mut Meta,
        path: impl AsRef<str>,
        target: Target,
        v: &At<String>,
    ) -> Option<T> {
        let path = path.as_ref();
        let at = self.locate(meta, path, &v.at);
        let parsed = self.shared_id::<T>(path, v)?;
        self.refs.push((target, v.value.clone(), at));
        Some(parsed)
    }

    fn opt_reference<T: SharedId>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        target: Target,
        v: &Option<At<String>>,
    ) -> Option<T> {
        v.as_ref()
            .and_then(|v| self.reference(meta, path, target, v))
    }

    fn references<T: SharedId>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        target: Target,
        vs: &[At<String>],
    ) -> Vec<T> {
        vs.iter()
            .enumerate()
            .filter_map(|(i, v)| self.reference(meta, format!("{path}[{i}]"), target, v))
            .collect()
    }

    fn field<T: FromStr>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        v: &Option<At<String>>,
    ) -> Option<T>
    where
        T::Err: std::fmt::Display,
    {
        let v = v.as_ref()?;
        self.locate(meta, path, &v.at);
        self.parse(path, v)
    }

    fn flag(&mut self, meta: &mut Meta, path: &str, v: &Option<At<bool>>) -> bool {
        match v {
            Some(v) => {
                self.locate(meta, path, &v.at);
                v.value
            }
            None => false,
        }
    }

    fn state_of(
        &mut self,
        meta: &mut Meta,
        path: &str,
        s: &Option<At<FileState>>,
    ) -> Option<State> {
        let s = s.as_ref()?;
        self.locate(meta, path, &s.at);
        Some(s.value.0)
    }

    /// Converts each of `files` with `convert`, keeping what it builds: a component it cannot
    /// build has recorded its errors.
    fn each<F, T>(
        &mut self,
        files: &[F],
        mut convert: impl FnMut(&mut Self, &F) -> Option<T>,
    ) -> Vec<T> {
        files.iter().filter_map(|c| convert(self, c)).collect()
    }

    /// Converts the kinds that come before the guests, and frees their file form.
    fn early(&mut self, f: &mut TopologyFile) -> Early {
        let early = Early {
            tiers: self.each(&f.tiers, Self::tier),
            sites: self.each(&f.sites, Self::site),
            proxmox_clusters: self.each(&f.proxmox_clusters, Self::proxmox_cluster),
            hosts: self.each(&f.hosts, Self::host),
        };
        f.tiers = Vec::new();
        f.sites = Vec::new();
        f.proxmox_clusters = Vec::new();
        f.hosts = Vec::new();
        early
    }

    /// Converts a guest and adds it to the guests. The references of a guest that is built
    /// are not queued: [`Cx::check_references`] checks them from the guest.
    fn push_guest(&mut self, g: &GuestFile) {
        let queued = self.refs.len();
        let built = self.guest(g);
        let pending = self.pending_guest.take();
        match built {
            Some(mut guest) => {
                self.refs.truncate(queued);
                guest.meta.shrink();
                self.ids.push_guest(guest, pending.is_some());
            }
            None => {
                if let Some((id, at)) = pending {
                    self.ids.insert(id, ComponentKind::Guest, at);
                }
            }
        }
    }

    /// Converts the file, kind by kind, in the order written here (the ids of earlier kinds
    /// are registered first); `early` and the guests are already converted if the file was
    /// streamed, else `guest_files` holds the guests. The guests stay in `self.ids`.
    fn convert(
        &mut self,
        f: TopologyFile,
        early: Option<Early>,
        guest_files: Vec<GuestFile>,
    ) -> (Parts, u32, Option<String>, Option<Rpo>) {
        let mut f = f;
        if f.version.value != FORMAT_VERSION {
            let at = self.loc(&f.version.at);
            self.error(
                FileErrorKind::UnsupportedVersion {
                    version: f.version.value,
                },
                at,
            );
        }
        let rpo = f.rpo.as_ref().and_then(|r| self.parse::<Rpo>("rpo", r));
        // Each converter records its errors and yields `None` for a component it cannot
        // build, so that every error of the file is reported at once.
        let early = match early {
            Some(early) => early,
            None => self.early(&mut f),
        };
        // Collected guests are converted one by one, each file form freed once converted.
        for g in guest_files {
            self.push_guest(&g);
        }
        let parts = Parts {
            tiers: early.tiers,
            sites: early.sites,
            proxmox_clusters: early.proxmox_clusters,
            hosts: early.hosts,
            linstor_pools: self.each(&f.linstor_pools, Self::linstor_pool),
            k3s_clusters: self.each(&f.k3s_clusters, Self::k3s_cluster),
            argocd: self.each(&f.argocd, Self::argocd),
            pbs: self.each(&f.pbs, Self::pbs),
            routers: self.each(&f.routers, Self::router),
            traefik: self.each(&f.traefik, Self::traefik),
            links: self.each(&f.links, Self::link),
            patterns: self.each(&f.patterns, Self::pattern),
            capabilities: self.each(&f.capabilities, Self::capability),
            items: self.each(&f.items, Self::item),
            suppressions: self.each(&f.suppressions, Self::suppression),
            ..Parts::default()
        };
        let (pending, rejected, contradictions) = self.documents(&f, &parts.items);
        let parts = Parts {
            pending,
            rejected,
            contradictions,
            ..parts
        };
        (parts, f.version.value, f.name, rpo)
    }

    /// Checks that every queued reference, and every reference of the built guests, names a
    /// component of the right kind.
    fn check_references(&mut self) {
        let refs = std::mem::take(&mut self.refs);
        let mut check = ReferenceCheck {
            ids: &self.ids,
            tiers: &self.tiers,
            by_kind: HashMap::new(),
            errors: Vec::new(),
        };
        for (target, id, at) in &refs {
            check.check(*target, id, *at);
        }
        for g in &self.ids.guests {
            check.check(
                Target::Kind(ComponentKind::Host),
                g.host.as_str(),
                g.meta.at("host"),
            );
            if let Some(s) = &g.storage {
                let target = Target::Kind(ComponentKind::LinstorPool);
                check.check(target, s.as_str(), g.meta.at("storage"));
            }
            if let Some(b) = &g.backup {
                check.check(
                    Target::Kind(ComponentKind::Pbs),
                    b.as_str(),
                    g.meta.at("backup"),
                );
            }
        }
        let errors = check.errors;
        self.errors.extend(errors);
    }
}

/// The existence check of references, once every id is known.
struct ReferenceCheck<'c> {
    ids: &'c Ids,
    tiers: &'c HashMap<String, Location>,
    /// The ids of each kind, built at the first reference to a missing one (for suggestions).
    by_kind: HashMap<ComponentKind, Vec<&'c str>>,
    errors: Vec<(FileErrorKind, Location)>,
}

impl ReferenceCheck<'_> {
    fn check(&mut self, target: Target, id: &str, at: Location) {
        let found = self.ids.get(id).map(|(k, _)| k);
        let ok = match target {
            Target::Tier => self.tiers.contains_key(id),
            Target::Any => found.is_some(),
            Target::Kind(k) => found == Some(k),
        };
        if ok {
            return;
        }
        let suggestion = match target {
            Target::Tier => suggest(id, self.tiers.keys().map(String::as_str)),
            Target::Any => suggest(id, self.ids.kinds().map(|(id, _)| id)),
            Target::Kind(k) => {
                if self.by_kind.is_empty() {
                    for (name, kind) in self.ids.kinds() {
                        self.by_kind.entry(kind).or_default().push(name);
                    }
                }
                suggest(id, self.by_kind.get(&k).into_iter().flatten().copied())
            }
        };
        self.errors.push((
            FileErrorKind::UnknownReference {
                kind: target.name().to_owned(),
                id: id.to_owned(),
                suggestion,
                found_kind: match target {
                    Target::Kind(_) => found.map(|k| k.as_str().to_owned()),
                    Target::Tier | Target::Any => None,
                },
            },
            at,
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::load::{FileErrorKind, load_str};

    /// `(line of the error, line of the first definition)` of each duplicate id.
    fn duplicates(text: &str) -> Vec<(u32, u32)> {
        let err = load_str("t.yaml", text).expect_err("a duplicate id is refused");
        err.file_errors()
            .iter()
            .map(|e| match &e.kind {
                FileErrorKind::DuplicateId { first, .. } => (e.location.line, first.line),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    /// The guests are converted as they are read; a list of hosts after them makes the file read
    /// again in the converter's order, so the guest is the duplicate in both files.
    #[test]
    fn a_guest_sharing_a_host_id_is_the_duplicate_whichever_list_comes_first() {
        let head = "version: 1\nsites:\n  - { id: sp, state: validated }\n";
        let hosts = "hosts:\n  - { id: h1, site: sp, state: validated }\n";
        let guests = "guests:\n  - { id: h1, host: h1, kind: vm, state: validated }\n";
        assert_eq!(duplicates(&format!("{head}{hosts}{guests}")), [(7, 5)]);
        assert_eq!(duplicates(&format!("{head}{guests}{hosts}")), [(5, 7)]);
    }

    /// A built guest's references are checked from the guest; a guest that cannot be built keeps
    /// its queued references, and both are reported.
    #[test]
    fn the_references_of_built_and_unbuilt_guests_are_checked() {
        let text = "version: 1\nsites:\n  - { id: sp, state: validated }\nguests:\n  - { id: g1, host: nohost, kind: vm, state: validated }\n  - { id: g2, host: \"bad host\", kind: vm, storage: nopool, state: validated }\n";
        let err = load_str("t.yaml", text).expect_err("refused");
        let summaries: Vec<String> = err.file_errors().iter().map(|e| e.summary()).collect();
        assert_eq!(summaries.len(), 3, "{summaries:?}");
        assert!(
            summaries[0].starts_with("5:21: unknown host `nohost`"),
            "{summaries:?}"
        );
        assert!(
            summaries[1].starts_with("6:21: invalid `host`"),
            "{summaries:?}"
        );
        assert!(
            summaries[2].starts_with("6:52: unknown linstor pool `nopool`"),
            "{summaries:?}"
        );
    }
}
