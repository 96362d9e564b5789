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

use std::collections::HashMap;
use std::str::FromStr;

use serde_saphyr::MessageFormatter;

use super::file::{At, Common, ComponentFile, FileState, TopologyFile};
use super::{FORMAT_VERSION, FileError, FileErrorKind, suggest};
use crate::model::{ComponentKind, IdError, Location, Meta, Parts, Rpo, Source, State, Topology};

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
        let line_end = self.text[line_start.min(self.text.len())..]
            .find('\n')
            .map_or(self.text.len(), |i| line_start + i);
        let from_col = || {
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
        let mut len = l.span().byte_len().map_or(1, |n| n as usize);
        // One line at most, never past the end, at least one character.
        let end_of_line = self.text[offset..]
            .find('\n')
            .map_or(self.text.len(), |i| offset + i);
        len = len.min(end_of_line - offset);
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

struct Cx<'a> {
    lines: Lines<'a>,
    errors: Vec<(FileErrorKind, Location)>,
    ids: HashMap<String, (ComponentKind, Location)>,
    tiers: HashMap<String, Location>,
    refs: Vec<(Target, String, Location)>,
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

/// Parses, converts and checks a whole file.
pub(super) fn load(source: Source) -> Result<Topology, FileError> {
    let text = source.text.clone();
    let lines = Lines::new(&text);
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
    let file: TopologyFile = match serde_saphyr::from_str_with_options(&text, options) {
        Ok(f) => f,
        Err(e) => {
            let location = e
                .location()
                .map_or(Location::UNKNOWN, |l| lines.location(&l));
            let kind = map_parse_error(&e);
            // An unknown key is often a misplaced secret (`token: …`): the diagnostic shows the
            // key and masks what follows it on that line.
            let shown = match &kind {
                FileErrorKind::UnknownKey { .. } if location.is_known() => {
                    masked_after_key(&source, location)
                }
                _ => source,
            };
            return Err(FileError::new(kind, location, Some(&shown)));
        }
    };
    let mut cx = Cx {
        lines,
        errors: Vec::new(),
        ids: HashMap::new(),
        tiers: HashMap::new(),
        refs: Vec::new(),
    };
    let mut topology = cx.convert(file);
    cx.check_references();
    if cx.errors.is_empty() {
        topology.source = Some(source);
        return Ok(topology);
    }
    cx.errors.sort_by_key(|(_, l)| (l.line, l.column));
    let mut errors = cx
        .errors
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

    /// Parses a component's own id and registers it (duplicates are errors), then builds its
    /// meta (a missing state is an error).
    fn component<T: FromStr<Err = IdError>>(
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
        let parsed = self.parse::<T>("id", id);
        if let Some(&(_, first)) = self.ids.get(&id.value) {
            self.error(
                FileErrorKind::DuplicateId {
                    id: id.value.clone(),
                    first,
                },
                at,
            );
        } else {
            self.ids.insert(id.value.clone(), (kind, at));
        }
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
    fn reference<T: FromStr<Err = IdError>>(
        &mut self,
        meta: &mut Meta,
        path: impl Into<String>,
        target: Target,
        v: &At<String>,
    ) -> Option<T> {
        let path = path.into();
        let at = self.loc(&v.at);
        meta.set_field_location(path.clone(), at);
        let parsed = self.parse::<T>(&path, v)?;
        self.refs.push((target, v.value.clone(), at));
        Some(parsed)
    }

    fn opt_reference<T: FromStr<Err = IdError>>(
        &mut self,
        meta: &mut Meta,
        path: &str,
        target: Target,
        v: &Option<At<String>>,
    ) -> Option<T> {
        v.as_ref()
            .and_then(|v| self.reference(meta, path, target, v))
    }

    fn references<T: FromStr<Err = IdError>>(
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
        let at = self.loc(&v.at);
        meta.set_field_location(path, at);
        self.parse(path, v)
    }

    fn flag(&mut self, meta: &mut Meta, path: &str, v: &Option<At<bool>>) -> bool {
        match v {
            Some(v) => {
                let at = self.loc(&v.at);
                meta.set_field_location(path, at);
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
        let at = self.loc(&s.at);
        meta.set_field_location(path, at);
        Some(s.value.0)
    }

    fn convert(&mut self, mut f: TopologyFile) -> Topology {
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
        // Kind by kind, in the order written here (the ids of earlier kinds are registered
        // first); each converter records its errors and yields `None` for a component it
        // cannot build, so that every error of the file is reported at once.
        let parts = Parts {
            tiers: f.tiers.iter().filter_map(|c| self.tier(c)).collect(),
            sites: f.sites.iter().filter_map(|c| self.site(c)).collect(),
            proxmox_clusters: f
                .proxmox_clusters
                .iter()
                .filter_map(|c| self.proxmox_cluster(c))
                .collect(),
            hosts: f.hosts.iter().filter_map(|c| self.host(c)).collect(),
            // The guests are most of a large file: their file form is freed as soon as they
            // are converted, so that it and the model are not held together to the end.
            guests: {
                let guests = std::mem::take(&mut f.guests);
                guests.iter().filter_map(|c| self.guest(c)).collect()
            },
            linstor_pools: f
                .linstor_pools
                .iter()
                .filter_map(|c| self.linstor_pool(c))
                .collect(),
            k3s_clusters: f
                .k3s_clusters
                .iter()
                .filter_map(|c| self.k3s_cluster(c))
                .collect(),
            argocd: f.argocd.iter().filter_map(|c| self.argocd(c)).collect(),
            pbs: f.pbs.iter().filter_map(|c| self.pbs(c)).collect(),
            routers: f.routers.iter().filter_map(|c| self.router(c)).collect(),
            traefik: f.traefik.iter().filter_map(|c| self.traefik(c)).collect(),
            links: f.links.iter().filter_map(|c| self.link(c)).collect(),
            patterns: f.patterns.iter().filter_map(|c| self.pattern(c)).collect(),
            capabilities: f
                .capabilities
                .iter()
                .filter_map(|c| self.capability(c))
                .collect(),
            items: f.items.iter().filter_map(|c| self.item(c)).collect(),
            suppressions: f
                .suppressions
                .iter()
                .filter_map(|c| self.suppression(c))
                .collect(),
            ..Parts::default()
        };
        let (pending, rejected, contradictions) = self.documents(&f, &parts.items);
        let parts = Parts {
            pending,
            rejected,
            contradictions,
            ..parts
        };
        let mut topology = Topology::from_parts(parts);
        topology.version = f.version.value;
        topology.name = f.name;
        topology.rpo = rpo;
        topology
    }

    fn check_references(&mut self) {
        let mut by_kind: HashMap<ComponentKind, Vec<&str>> = HashMap::new();
        let refs = std::mem::take(&mut self.refs);
        let mut new_errors = Vec::new();
        for (target, id, at) in &refs {
            let found = self.ids.get(id.as_str()).map(|(k, _)| *k);
            let ok = match target {
                Target::Tier => self.tiers.contains_key(id.as_str()),
                Target::Any => found.is_some(),
                Target::Kind(k) => found == Some(*k),
            };
            if ok {
                continue;
            }
            let suggestion = match target {
                Target::Tier => suggest(id, self.tiers.keys().map(String::as_str)),
                Target::Any => suggest(id, self.ids.keys().map(String::as_str)),
                Target::Kind(k) => {
                    if by_kind.is_empty() {
                        for (name, (kind, _)) in &self.ids {
                            by_kind.entry(*kind).or_default().push(name);
                        }
                    }
                    suggest(id, by_kind.get(k).into_iter().flatten().copied())
                }
            };
            new_errors.push((
                FileErrorKind::UnknownReference {
                    kind: target.name().to_owned(),
                    id: id.clone(),
                    suggestion,
                    found_kind: match target {
                        Target::Kind(_) => found.map(|k| k.as_str().to_owned()),
                        Target::Tier | Target::Any => None,
                    },
                },
                *at,
            ));
        }
        self.errors.extend(new_errors);
    }
}
