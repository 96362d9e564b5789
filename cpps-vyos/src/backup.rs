//! Saving a router's configuration to files, and what changed since the previous save.
//!
//! Each backup is two files in one folder, named after the router's host name and the UTC time:
//! `HOST-YYYYMMDDTHHMMSSZ.config.boot` (VyOS's curly-brace form, what `load` takes back) and
//! `HOST-YYYYMMDDTHHMMSSZ.set` (the `set` commands). The previous backup is the newest
//! `*.config.boot` of that form already in the folder; the change is [`crate::config::diff`] from it.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::client::VyosClient;
use crate::config::{Command, ConfigTree, diff};
use crate::error::Error;

/// What to save and where.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BackupOptions {
    /// The folder (created when missing).
    pub out_dir: PathBuf,
    /// Whether to replace secrets before writing (see [`ConfigTree::redact`]).
    pub redact: bool,
    /// The time that names the files.
    pub now: Timestamp,
}

impl BackupOptions {
    /// Options for `out_dir`, unredacted, at the current time.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        Self {
            out_dir: out_dir.into(),
            redact: false,
            now: Timestamp::now(),
        }
    }
}

/// What a backup wrote and found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BackupReport {
    /// The `config.boot` file written.
    pub boot_file: PathBuf,
    /// The `set` commands file written.
    pub set_file: PathBuf,
    /// The previous backup compared against, if there was one.
    pub previous: Option<PathBuf>,
    /// The commands that turn the previous backup into this one (empty when nothing changed or there
    /// was no previous backup).
    pub changes: Vec<Command>,
    /// The configuration saved (redacted when asked).
    pub tree: ConfigTree,
}

/// `POST /retrieve` (`showConfig`, `raw`) and writes the two files; see the module documentation.
///
/// # Errors
/// Any error of [`VyosClient::config_tree`]; [`Error::Io`] when the folder or a file cannot be
/// written (an existing file is never overwritten) or the previous backup cannot be read;
/// [`Error::Parse`] when the previous backup does not parse.
pub async fn backup(client: &VyosClient, opts: &BackupOptions) -> Result<BackupReport, Error> {
    let mut tree = client.config_tree().await?;
    if opts.redact {
        tree.redact();
    }
    save(tree, opts)
}

/// Writes `tree` as a backup in `opts.out_dir` and compares it with the previous one (the part of
/// [`backup`] that does not talk to the router).
///
/// # Errors
/// As [`backup`].
pub fn save(tree: ConfigTree, opts: &BackupOptions) -> Result<BackupReport, Error> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| Error::Io { path, source }
    };
    std::fs::create_dir_all(&opts.out_dir).map_err(io(&opts.out_dir))?;
    let previous = newest_backup(&opts.out_dir)?;
    let changes = match &previous {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(io(p))?;
            diff(&ConfigTree::parse_boot(&text)?, &tree)
        }
        None => Vec::new(),
    };
    let host = tree
        .host_name()
        .filter(|h| is_file_word(h))
        .unwrap_or("vyos");
    let stamp = opts.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let boot_file = opts.out_dir.join(format!("{host}-{stamp}.config.boot"));
    let set_file = opts.out_dir.join(format!("{host}-{stamp}.set"));
    write_new(&boot_file, &tree.to_boot_string())?;
    write_new(&set_file, &tree.to_set_string())?;
    Ok(BackupReport {
        boot_file,
        set_file,
        previous,
        changes,
        tree,
    })
}

fn is_file_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !s.starts_with('.')
}

fn write_new(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write;
    let err = |source| Error::Io {
        path: path.to_owned(),
        source,
    };
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(err)?;
    f.write_all(text.as_bytes()).map_err(err)?;
    f.sync_all().map_err(err)
}

/// The newest `HOST-YYYYMMDDTHHMMSSZ.config.boot` in `dir`, by the time in its name.
fn newest_backup(dir: &Path) -> Result<Option<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(|source| Error::Io {
        path: dir.to_owned(),
        source,
    })?;
    let mut best: Option<(String, PathBuf)> = None;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".config.boot") else {
            continue;
        };
        let Some(stamp) = stem.rsplit('-').next() else {
            continue;
        };
        let well_formed = stamp.len() == 16
            && stamp.as_bytes()[8] == b'T'
            && stamp.ends_with('Z')
            && stamp[..8]
                .bytes()
                .chain(stamp[9..15].bytes())
                .all(|b| b.is_ascii_digit());
        if well_formed && best.as_ref().is_none_or(|(b, _)| stamp > b.as_str()) {
            best = Some((stamp.to_owned(), entry.path()));
        }
    }
    Ok(best.map(|(_, p)| p))
}
