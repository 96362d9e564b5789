//! Loading a topology file: YAML → [`Topology`], with errors that point at the line and column.
//!
//! The loader rejects, each with its location and a rustc-like diagnostic ([`miette`]):
//! YAML syntax errors, unknown keys and values (with a "did you mean" suggestion), a component
//! without a `state` or with two (STATE-001 is structural and enforced here), duplicate ids
//! (ids are unique across all component kinds), references to components that do not exist
//! (the error is at the reference), invalid ids, versions, durations, addresses and dates, a VM
//! marked privileged, a link that does not join two distinct sites, a suppression without a
//! reason or naming an unknown component. It never panics, whatever the input.
//!
//! Cost: linear in the file. `cargo xtask bench load` measures it against serde-saphyr parsing
//! the same file into a generic value (`serde_json::Value`), on files of the default topology
//! grown with one-line guests (about 73 bytes each) to 5, 20 and 50 MB: the loader takes
//! 1.1–1.2× the generic parse's CPU time, and its peak memory (the process's high-water mark
//! over what it held before reading the file, the file's text included) is 6.1–7.0× the file's
//! size (about 290 MiB for 50 MB), where the generic value takes 14×. That is the bound this
//! crate holds to: **at most 8× the file's size** for such files, less where entries are
//! longer, because what grows is a constant amount per guest, about 440 bytes at the peak: the
//! text (73), the [`Guest`](crate::model::Guest) (248, of which 128 its
//! [`Meta`](crate::model::Meta) with three field locations held inline, 16 bytes each), its id's
//! text (48 with the allocator's rounding: ids are shared `Arc<str>`, so a reference or an
//! index entry copies no text) and the topology's indexes (about 75). Each guest is converted
//! as soon as it is parsed, so that the file form of the guests never accumulates; the
//! converter's own tables (the ids, a 4-byte slot per guest, and the lines) are freed before
//! the indexes are built. When a list of tiers, sites, Proxmox clusters or hosts comes after
//! the guests, the file is read a second time (the guests collected, then converted one by
//! one), so that what is reported never depends on the order of the lists.
//!
//! ```
//! let yaml = "version: 1\nsites:\n  - id: sp\n    state: validated\n";
//! let topology = cpps_topology::load::load_str("example.yaml", yaml).unwrap();
//! assert_eq!(topology.sites()[0].id.as_str(), "sp");
//! ```

mod convert;
pub(crate) mod file;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use miette::{Diagnostic, LabeledSpan, NamedSource, SourceCode};

use crate::model::{Location, Source, Topology};

/// The only file format version this crate reads.
pub const FORMAT_VERSION: u32 = 1;

/// The largest topology file (or text) the loader reads, in bytes: 2 MiB. Real topology files
/// are tens of KiB (the default one is about 40 KiB); a larger input is refused at once, before
/// it is parsed, instead of costing seconds of parsing (the README's performance section gives
/// the load time at this size).
pub const MAX_TOPOLOGY_BYTES: u64 = 2 * 1024 * 1024;

/// Why a topology could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// The file (or text) is larger than [`MAX_TOPOLOGY_BYTES`]; nothing of it was parsed.
    #[error(
        "topology file `{name}` is {size} bytes, over the cap of {cap} bytes (real topology files are tens of KiB)"
    )]
    TooLarge {
        /// The file name (the path given, or the name passed to [`load_str`]).
        name: String,
        /// Its size in bytes (at least `cap + 1` when the file grew while it was read).
        size: u64,
        /// The cap, [`MAX_TOPOLOGY_BYTES`].
        cap: u64,
    },
    /// The file could not be read.
    #[error("cannot read topology file `{}`", path.display())]
    Read {
        /// The path given.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file was read but is not a valid topology.
    #[error("{0}")]
    Invalid(Box<FileError>),
}

impl LoadError {
    /// The first file error, if the file was read.
    pub fn file_error(&self) -> Option<&FileError> {
        match self {
            LoadError::Invalid(e) => Some(e),
            LoadError::Read { .. } | LoadError::TooLarge { .. } => None,
        }
    }

    /// Every file error (the first one and the related ones), empty for [`LoadError::Read`].
    pub fn file_errors(&self) -> Vec<&FileError> {
        match self {
            LoadError::Invalid(e) => std::iter::once(&**e).chain(e.related.iter()).collect(),
            LoadError::Read { .. } | LoadError::TooLarge { .. } => Vec::new(),
        }
    }

    /// The location of the first error in the file, if any.
    pub fn location(&self) -> Option<Location> {
        self.file_error().map(|e| e.location)
    }

    /// The diagnostic as rustc-like text without colours, with the source line and a caret.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let handler =
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
                .with_width(100);
        if handler.render_report(&mut out, self).is_err() {
            out = self.to_string();
        }
        out
    }
}

impl Diagnostic for LoadError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        match self {
            LoadError::Invalid(e) => e.code(),
            LoadError::Read { .. } => Some(Box::new("topology::read")),
            LoadError::TooLarge { .. } => Some(Box::new("topology::too_large")),
        }
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.file_error().and_then(|e| e.help())
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.file_error().and_then(|e| e.source_code())
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.file_error().and_then(|e| e.labels())
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        self.file_error().and_then(|e| e.related())
    }
}

/// One error in a topology file, at a location.
#[derive(Debug)]
pub struct FileError {
    /// What is wrong.
    pub kind: FileErrorKind,
    /// Where (line and column are 1-based; [`Location::UNKNOWN`] when the parser gave none).
    pub location: Location,
    /// Further errors found in the same file (the loader reports them all).
    pub related: Vec<FileError>,
    source: Option<NamedSource<Arc<str>>>,
    /// Where `source` starts in the file, and where that start is in `source`: they differ
    /// when `source` is a window of a line too long to show whole.
    window: (usize, usize),
}

/// A source line longer than this is shown as a window around the error, never whole: a 50 MB
/// file on one line must not become a 50 MB diagnostic.
const MAX_SHOWN_LINE_BYTES: usize = 400;

/// How many bytes of a long line are shown on each side of the error.
const SHOWN_AROUND_BYTES: usize = 120;

impl FileError {
    fn new(kind: FileErrorKind, location: Location, source: Option<&Source>) -> Self {
        let (source, window) = match source {
            Some(s) => {
                let (text, window) = shown_source(&s.text, &location);
                (Some(NamedSource::new(s.name.clone(), text)), window)
            }
            None => (None, (0, 0)),
        };
        FileError {
            kind,
            location,
            related: Vec::new(),
            source,
            window,
        }
    }

    /// The message, the label and the help as one line, for tests and logs:
    /// `3:5: unknown key `stat`: did you mean `state`?`.
    pub fn summary(&self) -> String {
        let mut s = format!("{}: {}", self.location, self.kind);
        if let Some(help) = self.kind.help() {
            s.push_str(": ");
            s.push_str(&help);
        }
        s
    }
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind, f)
    }
}

impl std::error::Error for FileError {}

impl Diagnostic for FileError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.kind.code()))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.kind
            .help()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        if !self.location.is_known() || self.source.is_none() {
            return None;
        }
        let shown_len = self.source.as_ref().map_or(0, |s| s.inner().len());
        // Offsets of the file, moved into the shown window; a span outside it is not labelled.
        let shown = |offset: usize, len: usize| {
            let offset = offset.checked_sub(self.window.0)? + self.window.1;
            (offset < shown_len).then(|| (offset, len.max(1).min(shown_len - offset)))
        };
        let (offset, len) = shown(self.location.offset, self.location.len)?;
        let span = LabeledSpan::new(Some(self.kind.label()), offset, len);
        let mut labels = vec![span];
        if let FileErrorKind::DuplicateId { first, .. } = &self.kind
            && first.is_known()
            && let Some((offset, len)) = shown(first.offset, first.len)
        {
            labels.push(LabeledSpan::new(
                Some("first defined here".to_owned()),
                offset,
                len,
            ));
        }
        Some(Box::new(labels.into_iter()))
    }
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn Diagnostic> + 'a>> {
        if self.related.is_empty() {
            None
        } else {
            Some(Box::new(self.related.iter().map(|e| e as &dyn Diagnostic)))
        }
    }
}

/// The text a diagnostic shows for an error at `location` in `text`, and the offset in `text`
/// where it starts. The whole file when the error's line is short; otherwise the lines before
/// it kept as empty lines (so that line numbers stay right) and a window of the long line
/// around the error, each side cut at a character boundary and marked `…`.
fn shown_source(text: &Arc<str>, location: &Location) -> (Arc<str>, (usize, usize)) {
    let offset = location.offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    if line_end - line_start <= MAX_SHOWN_LINE_BYTES {
        return (text.clone(), (0, 0));
    }
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(offset.saturating_sub(SHOWN_AROUND_BYTES).max(line_start));
    // A long located text (a 2 MB key) is shown by its beginning only.
    let shown_len = location.len.clamp(1, SHOWN_AROUND_BYTES);
    let to = floor((offset + shown_len + SHOWN_AROUND_BYTES).min(line_end));
    let newlines = text[..line_start].bytes().filter(|b| *b == b'\n').count();
    let mut shown = "\n".repeat(newlines);
    let lead = if from > line_start { "…" } else { "" };
    shown.push_str(lead);
    shown.push_str(&text[from..to]);
    if to < line_end {
        shown.push('…');
    }
    // The window's byte `from` is at `newlines + lead.len()` in the shown text.
    (Arc::from(shown), (from, newlines + lead.len()))
}

/// A key or value of the file as a message quotes it: cut after 80 characters, so that a
/// 50 MB key cannot become a 50 MB message.
fn clip(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(80) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes)", &text[..cut], text.len()))
        }
    }
}

/// What is wrong in a topology file.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileErrorKind {
    /// Not YAML, or a value of the wrong type.
    Syntax {
        /// The parser's message.
        message: String,
    },
    /// A key that the format does not have.
    UnknownKey {
        /// The key as written.
        key: String,
        /// The keys allowed there.
        expected: Vec<String>,
        /// The closest allowed key, if close enough.
        suggestion: Option<String>,
    },
    /// A value outside a fixed set (`kind: vn`).
    UnknownValue {
        /// The value as written.
        value: String,
        /// The values allowed.
        expected: Vec<String>,
        /// The closest allowed value, if close enough.
        suggestion: Option<String>,
    },
    /// A required key is missing.
    MissingKey {
        /// The key.
        key: String,
    },
    /// A key appears twice in one mapping (a doubled `state` breaks STATE-001).
    DuplicateKey {
        /// The key.
        key: String,
    },
    /// A component has no `state` (STATE-001).
    MissingState {
        /// Its kind.
        kind: String,
        /// Its id.
        id: String,
    },
    /// A value that parses but is not acceptable (bad id, version, duration, address, date…).
    InvalidValue {
        /// The key.
        field: String,
        /// Why.
        message: String,
    },
    /// Two components share an id.
    DuplicateId {
        /// The id.
        id: String,
        /// Where it was first defined.
        first: Location,
    },
    /// A reference to a component that does not exist.
    UnknownReference {
        /// The kind expected (`host`, `hardware tier`).
        kind: String,
        /// The id referenced.
        id: String,
        /// The closest id of that kind, if close enough.
        suggestion: Option<String>,
        /// The kind of the component that has this id, when it exists with another kind.
        found_kind: Option<String>,
    },
    /// The `version:` is not one this crate reads.
    UnsupportedVersion {
        /// The version written.
        version: u32,
    },
}

impl FileErrorKind {
    /// A stable code (`topology::unknown_key`).
    pub fn code(&self) -> &'static str {
        match self {
            FileErrorKind::Syntax { .. } => "topology::syntax",
            FileErrorKind::UnknownKey { .. } => "topology::unknown_key",
            FileErrorKind::UnknownValue { .. } => "topology::unknown_value",
            FileErrorKind::MissingKey { .. } => "topology::missing_key",
            FileErrorKind::DuplicateKey { .. } => "topology::duplicate_key",
            FileErrorKind::MissingState { .. } => "topology::missing_state",
            FileErrorKind::InvalidValue { .. } => "topology::invalid_value",
            FileErrorKind::DuplicateId { .. } => "topology::duplicate_id",
            FileErrorKind::UnknownReference { .. } => "topology::unknown_reference",
            FileErrorKind::UnsupportedVersion { .. } => "topology::unsupported_version",
        }
    }

    /// The text under the caret.
    pub fn label(&self) -> String {
        match self {
            FileErrorKind::Syntax { .. } => "here".to_owned(),
            FileErrorKind::UnknownKey { .. } => "unknown key".to_owned(),
            FileErrorKind::UnknownValue { .. } => "unknown value".to_owned(),
            FileErrorKind::MissingKey { key } => format!("`{key}` missing in this mapping"),
            FileErrorKind::DuplicateKey { .. } => "given again here".to_owned(),
            FileErrorKind::MissingState { .. } => "this component has no state".to_owned(),
            FileErrorKind::InvalidValue { .. } => "invalid value".to_owned(),
            FileErrorKind::DuplicateId { .. } => "defined again here".to_owned(),
            FileErrorKind::UnknownReference { kind, .. } => format!("no {kind} has this id"),
            FileErrorKind::UnsupportedVersion { .. } => "unsupported".to_owned(),
        }
    }

    /// A hint for fixing it.
    pub fn help(&self) -> Option<String> {
        match self {
            FileErrorKind::UnknownKey {
                suggestion,
                expected,
                ..
            }
            | FileErrorKind::UnknownValue {
                suggestion,
                expected,
                ..
            } => match suggestion {
                Some(s) => Some(format!("did you mean `{s}`?")),
                None if !expected.is_empty() => Some(format!(
                    "expected one of {}",
                    expected
                        .iter()
                        .map(|e| format!("`{e}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                None => None,
            },
            FileErrorKind::DuplicateKey { key } if key == "state" => Some(
                "a component has exactly one state: `validated`, `declared` or `desired`".to_owned(),
            ),
            FileErrorKind::DuplicateKey { .. } => Some("remove one of the two".to_owned()),
            FileErrorKind::MissingState { .. } => Some(
                "add `state: validated`, `declared` or `desired`: every component has exactly one state"
                    .to_owned(),
            ),
            FileErrorKind::DuplicateId { first, .. } if first.is_known() => Some(format!(
                "ids are unique across all components; first defined at line {}",
                first.line
            )),
            FileErrorKind::DuplicateId { .. } => {
                Some("ids are unique across all components".to_owned())
            }
            FileErrorKind::UnknownReference {
                suggestion,
                found_kind,
                id,
                kind,
            } => match (found_kind, suggestion) {
                (Some(other), _) => Some(format!("`{id}` is a {other}, not a {kind}")),
                (None, Some(s)) => Some(format!("did you mean `{s}`?")),
                (None, None) => Some(format!("declare the {kind} or fix the id")),
            },
            FileErrorKind::UnsupportedVersion { .. } => {
                Some(format!("this crate reads `version: {FORMAT_VERSION}`"))
            }
            FileErrorKind::Syntax { .. }
            | FileErrorKind::MissingKey { .. }
            | FileErrorKind::InvalidValue { .. } => None,
        }
    }
}

impl fmt::Display for FileErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileErrorKind::Syntax { message } => f.write_str(message),
            FileErrorKind::UnknownKey { key, .. } => write!(f, "unknown key `{}`", clip(key)),
            FileErrorKind::UnknownValue { value, .. } => {
                write!(f, "unknown value `{}`", clip(value))
            }
            FileErrorKind::MissingKey { key } => write!(f, "missing key `{key}`"),
            FileErrorKind::DuplicateKey { key } => write!(f, "key `{}` given twice", clip(key)),
            FileErrorKind::MissingState { kind, id } => write!(f, "{kind} `{id}` has no state"),
            FileErrorKind::InvalidValue { field, message } => {
                write!(f, "invalid `{field}`: {message}")
            }
            FileErrorKind::DuplicateId { id, .. } => write!(f, "duplicate id `{id}`"),
            FileErrorKind::UnknownReference { kind, id, .. } => write!(f, "unknown {kind} `{id}`"),
            FileErrorKind::UnsupportedVersion { version } => {
                write!(f, "unsupported format version {version}")
            }
        }
    }
}

/// Loads a topology from YAML text. `name` is the file name shown in diagnostics. Text over
/// [`MAX_TOPOLOGY_BYTES`] is refused unparsed.
pub fn load_str(name: &str, text: &str) -> Result<Topology, LoadError> {
    within_cap(name, text.len() as u64)?;
    load_source(Source {
        name: name.to_owned(),
        text: Arc::from(text),
    })
}

/// `Err(TooLarge)` when `size` is over [`MAX_TOPOLOGY_BYTES`].
fn within_cap(name: &str, size: u64) -> Result<(), LoadError> {
    if size > MAX_TOPOLOGY_BYTES {
        return Err(LoadError::TooLarge {
            name: name.to_owned(),
            size,
            cap: MAX_TOPOLOGY_BYTES,
        });
    }
    Ok(())
}

/// Reads and loads a topology file; a file over [`MAX_TOPOLOGY_BYTES`] is refused before it is
/// read whole.
pub fn load_file(path: impl AsRef<Path>) -> Result<Topology, LoadError> {
    use std::io::Read as _;
    let path = path.as_ref();
    let name = path.display().to_string();
    let read_error = |source| LoadError::Read {
        path: path.to_owned(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    within_cap(&name, file.metadata().map_err(read_error)?.len())?;
    // The metadata can lie (a pipe, a file still growing): read at most one byte past the cap.
    let mut text = String::new();
    file.take(MAX_TOPOLOGY_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(read_error)?;
    within_cap(&name, text.len() as u64)?;
    // Into the shared text the topology keeps, and the read buffer freed before parsing: the
    // file is held once while it loads, not twice.
    load_source(Source {
        name,
        text: Arc::from(text),
    })
}

fn load_source(source: Source) -> Result<Topology, LoadError> {
    convert::load(source).map_err(|e| LoadError::Invalid(Box::new(e)))
}

/// Loads the topology file at `path`, or the embedded default topology
/// ([`DEFAULT_TOPOLOGY_YAML`]) when there is none: what every binary's `--topology FILE`
/// means.
pub fn load_or_default(path: Option<&Path>) -> Result<Topology, LoadError> {
    match path {
        Some(path) => load_file(path),
        None => try_default_topology(),
    }
}

/// Closest candidate to `word`, if close enough to be a likely typo.
pub(crate) fn suggest<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        let score = strsim::jaro_winkler(word, c);
        let better = best.is_none_or(|(b, bc)| score > b || (score == b && c < bc));
        if score >= 0.8 && better {
            best = Some((score, c));
        }
    }
    best.map(|(_, c)| c.to_owned())
}

/// The CPPS infrastructure as the source documents describe it (`topology/cpps.yaml`).
pub const DEFAULT_TOPOLOGY_YAML: &str = include_str!("../../topology/cpps.yaml");

/// The file name the default topology reports in diagnostics and findings.
pub const DEFAULT_TOPOLOGY_NAME: &str = "cpps-topology/topology/cpps.yaml";

/// The embedded default topology, loaded.
///
/// The file is compiled into the crate and `tests/default.rs` loads it, so this cannot fail
/// at run time unless the crate was built from an untested file; [`try_default_topology`]
/// returns the error instead of panicking.
pub fn default_topology() -> Topology {
    match try_default_topology() {
        Ok(t) => t,
        Err(e) => panic!(
            "the embedded default topology does not load: {}",
            e.render()
        ),
    }
}

/// The embedded default topology, or why it does not load.
pub fn try_default_topology() -> Result<Topology, LoadError> {
    load_str(DEFAULT_TOPOLOGY_NAME, DEFAULT_TOPOLOGY_YAML)
}
