//! Saving a router's configuration to files, and what changed since that router's previous save.
//!
//! Each router has its own folder below the backup folder, named after the router's address
//! (`192.168.10.1`, `sp-gw.example:8443`), so that "the previous backup" is always one of the same
//! router, even when several routers are saved into one folder or a router changed its host
//! name. Each backup is two files there, named after the router's host name and the UTC time:
//!
//! - `HOST-YYYYMMDDTHHMMSSZ.config.boot`: a saved file, as `save` writes one (vyos-1x
//!   `src/helpers/vyos-save-config.py`, [`ConfigTree::to_saved_string`]: every value quoted and
//!   escaped), then a blank line and the `// vyos-config-version: …` footer of its saved
//!   configuration. VyOS loads and migrates a file with `ConfigTree(text)` (vyos-1x
//!   `python/vyos/migrate.py`), whose lexer opens a string at `'`: showConfig text, which prints
//!   `Bob's-uplink` bare, would break there. The footer is what tells
//!   VyOS which migrations a file needs: a file loaded without it runs every migration from
//!   version 0. `showConfig` does not print it, so it is read from the newest commit revision
//!   (`show system commit file 0` through `POST /show`, vyos-1x `python/vyos/config_mgmt.py`
//!   `show_commit_file`; the archive is written by `save_config` with the footer of
//!   `python/vyos/component_version.py`). Where that is not available, or is stale (without
//!   `commit-revisions` nothing is archived any more: [`crate::apply::Revision::stale`]), the
//!   version named in [`BackupOptions::version`] is used, or the backup says it has none
//!   ([`BackupReport::warnings`]). With redaction, the tree is redacted before it is written.
//! - `HOST-YYYYMMDDTHHMMSSZ.set`: the `set` commands.
//!
//! The files are created with mode 0600 and a folder this module creates with mode 0700 (on
//! Unix): a backup holds every secret of the router unless redacted. An existing file is never
//! overwritten. The previous backup is the newest `*.config.boot` of that form in the router's
//! folder, read with [`ConfigTree::parse_saved`] (or as showConfig text, as backups were written
//! before); the change is [`crate::config::diff`] from it.

use std::path::{Path, PathBuf};

use jiff::Timestamp;

use crate::client::Client;
use crate::config::{Command, ConfigTree, diff};
use crate::error::Error;

/// What to save and where.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BackupOptions {
    /// The folder (created when missing); each router gets a folder below it.
    pub out_dir: PathBuf,
    /// Whether to replace secrets before writing (see [`ConfigTree::redact`]).
    pub redact: bool,
    /// The time that names the files.
    pub now: Timestamp,
    /// The router's folder name; `None`: the address of the client's base URL
    /// ([`router_label`]).
    pub router: Option<String>,
    /// The syntax version the operator states for the router's configuration, written as the
    /// footer only when the router's own cannot be read (`show system commit file 0`): VyOS
    /// migrates a file without footer from version 0 (vyos-1x `python/vyos/migrate.py`), and
    /// a version is never guessed. The router's own footer wins.
    pub version: Option<crate::ConfigVersion>,
}

impl BackupOptions {
    /// Options for `out_dir`, unredacted, at the current time.
    pub fn new(out_dir: impl Into<PathBuf>) -> Self {
        Self {
            out_dir: out_dir.into(),
            redact: false,
            now: Timestamp::now(),
            router: None,
            version: None,
        }
    }
}

/// What a backup wrote and found.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct BackupReport {
    /// The router's folder.
    pub router_dir: PathBuf,
    /// The `config.boot` file written.
    pub boot_file: PathBuf,
    /// The `set` commands file written.
    pub set_file: PathBuf,
    /// The previous backup of the same router compared against, if there was one.
    pub previous: Option<PathBuf>,
    /// The commands that turn the previous backup into this one (empty when nothing changed or there
    /// was no previous backup).
    pub changes: Vec<Command>,
    /// The configuration saved (redacted when asked).
    pub tree: ConfigTree,
    /// The version footer written into the file, when the router gave one.
    pub footer: Option<String>,
    /// What the user should know (a missing footer).
    pub warnings: Vec<String>,
}

/// The folder name of a router: the host (and port, when not the default) of its base URL.
pub fn router_label(client: &Client) -> String {
    let url = client.http().base_url();
    let host = url.host_str().unwrap_or("router");
    match url.port() {
        Some(port) => format!("{host}_{port}"),
        None => host.to_owned(),
    }
}

/// `POST /retrieve` (`showConfig`, `raw`) and `POST /show` (`system commit file 0`, for the
/// footer), then writes the two files; see the module documentation.
///
/// # Errors
/// Any error of [`Client::show_config_raw`] (the footer's read may fail: that is a warning);
/// [`Error::Parse`] when the router's text does not parse; [`Error::Io`] when a folder or a file
/// cannot be written (an existing file is never overwritten) or the previous backup cannot be
/// read; [`Error::FileTooLarge`] when the previous backup is over [`MAX_FILE_BYTES`].
pub async fn backup(client: &Client, opts: &BackupOptions) -> Result<BackupReport, Error> {
    let raw = client.show_config_raw(&[]).await?;
    let mut tree = ConfigTree::parse_shown(&raw)?;
    let mut warnings = Vec::new();
    // showConfig prints no footer; a text that has one keeps its own (it is part of `raw`).
    let raw_footer = tree.footer.take();
    let footer = match &raw_footer {
        Some(f) => Ok(f.clone()),
        None => saved_footer(client).await,
    };
    let footer = match (footer, &opts.version) {
        (Ok(f), _) => Some(f),
        (Err(_), Some(v)) => Some(v.footer()),
        (Err(why), None) => {
            warnings.push(format!(
                "the router's version footer could not be read ({why}; set `system config-management commit-revisions` to keep an archive) and none was named (BackupOptions::version): the backup has none, and VyOS would run every migration when loading it"
            ));
            None
        }
    };
    if opts.redact {
        tree.redact();
    }
    tree.footer = footer.as_deref().map(saved_file_footer);
    let text = tree.to_saved_string();
    let mut opts = opts.clone();
    opts.router.get_or_insert_with(|| router_label(client));
    let mut report = write(tree, &text, &opts)?;
    report.footer = footer;
    report.warnings = warnings;
    Ok(report)
}

/// The footer of the newest commit revision (`show system commit file 0`), without the blank
/// lines before it; the reason when there is none to trust: no archive, no footer in it, or a
/// stale archive. Without `commit-revisions`, vyos-1x
/// `src/conf_mode/system_config-management.py` unlinks the post-commit hook that archives
/// (`ConfigMgmt.commit_revision`, `python/vyos/config_mgmt.py`), yet `show_commit_file(0)`
/// still serves the last archived file, whose footer may be an older image's
/// ([`crate::apply::Revision::stale`]); a log that cannot be read cannot tell either. After an
/// image upgrade and reboot the footer is the new image's: `vyos-router` migrates
/// `/config/config.boot` in place before loading it (`migrate_bootfile`, `python/vyos/migrate.py`
/// `ConfigMigrate.write_config` writes the new footer), and the boot commit runs the post-commit
/// hooks (vyatta-cfg `src/commit/commit-algorithm.cpp`, `_execute_hooks(POST_COMMIT)`) that
/// `system_config-management.py` `apply` has just linked again, so `commit_revision`'s
/// `_archive_active_config` copies that migrated file, which differs from the archived one, in
/// as revision 0.
pub(crate) async fn saved_footer(client: &Client) -> Result<String, String> {
    match client.commit_revisions().await {
        Ok(revs) if revs.iter().any(|r| r.stale) => {
            return Err(
                "`show system commit` says commit-revisions is not configured: the \
                        archived revision 0 is stale, and its footer may name an older image's \
                        migrations"
                    .to_owned(),
            );
        }
        Ok(_) => {}
        Err(e) => return Err(format!("`show system commit` could not be read ({e})")),
    }
    saved_footer_of_revision(client)
        .await
        .ok_or_else(|| "`show system commit file 0` gave no footer".to_owned())
}

/// The footer of `show system commit file 0`, as [`saved_footer`] gives it.
async fn saved_footer_of_revision(client: &Client) -> Option<String> {
    let text = client.show(&["system", "commit", "file", "0"]).await.ok()?;
    // An archived revision is a saved file (vyos-1x `config_mgmt.py` `_archive_active_config`).
    let footer = ConfigTree::parse_saved(&text).ok()?.footer?;
    Some(footer.trim_start_matches('\n').to_owned())
}

/// The footer as `save` puts it after the body (vyos-1x `python/vyos/component_version.py`
/// `write_string`: the body, which ends with a line feed, then `"\n"` and the footer lines), so
/// that the file reads back with this footer ([`ConfigTree::parse_saved`] keeps the blank line).
fn saved_file_footer(footer: &str) -> String {
    format!("\n{}", footer.trim_start_matches('\n'))
}

/// Writes `tree` as a backup (its saved-file rendering, [`ConfigTree::to_saved_string`], footer
/// included) and compares it with the previous one of the same router (the part of [`backup`]
/// that does not talk to the router). The router's folder is `opts.router`, or the tree's host
/// name.
///
/// # Errors
/// As [`backup`].
pub fn save(tree: ConfigTree, opts: &BackupOptions) -> Result<BackupReport, Error> {
    let text = tree.to_saved_string();
    let footer = tree.footer.clone();
    let mut report = write(tree, &text, opts)?;
    report.footer = footer;
    Ok(report)
}

/// The largest configuration file this crate reads from disk (a previous backup, and
/// `vyos-apply`'s commands file through [`read_file`]): 8 MiB, the cap the client puts on a
/// router's answer ([`cpps_http::DEFAULT_MAX_RESPONSE_BYTES`]), since a backup holds what a
/// router answered. A larger file is refused before it is read.
pub const MAX_FILE_BYTES: u64 = cpps_http::DEFAULT_MAX_RESPONSE_BYTES as u64;

/// Reads a text file of at most [`MAX_FILE_BYTES`]: refused by its length first, then read at
/// most one byte past the cap, since the length can lie (a pipe, a file still growing).
///
/// # Errors
/// [`Error::FileTooLarge`] over the cap; [`Error::Io`] when it cannot be read or is not UTF-8.
pub fn read_file(path: &Path) -> Result<String, Error> {
    use std::io::Read as _;
    let too_large = |size| Error::FileTooLarge {
        path: path.to_owned(),
        size,
        cap: MAX_FILE_BYTES,
    };
    let file = std::fs::File::open(path).map_err(io(path))?;
    let size = file.metadata().map_err(io(path))?.len();
    if size > MAX_FILE_BYTES {
        return Err(too_large(size));
    }
    // Bytes, not a string: the cut one byte past the cap may split a character, and that file
    // is too large, not malformed.
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io(path))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    String::from_utf8(bytes)
        .map_err(|e| io(path)(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.to_owned();
    move |source| Error::Io { path, source }
}

fn write(tree: ConfigTree, boot_text: &str, opts: &BackupOptions) -> Result<BackupReport, Error> {
    let host = tree
        .host_name()
        .filter(|h| is_file_word(h))
        .unwrap_or("vyos")
        .to_owned();
    let label = opts
        .router
        .clone()
        .filter(|r| is_file_word(r))
        .unwrap_or_else(|| host.clone());
    create_private_dir(&opts.out_dir)?;
    let router_dir = opts.out_dir.join(&label);
    create_private_dir(&router_dir)?;
    let previous = newest_backup(&router_dir)?;
    let changes = match &previous {
        Some(p) => {
            let text = read_file(p)?;
            diff(&previous_tree(&text, &tree)?, &tree)
        }
        None => Vec::new(),
    };
    let stamp = opts.now.strftime("%Y%m%dT%H%M%SZ").to_string();
    let boot_file = router_dir.join(format!("{host}-{stamp}.config.boot"));
    let set_file = router_dir.join(format!("{host}-{stamp}.set"));
    write_new(&boot_file, boot_text)?;
    write_new(&set_file, &tree.to_set_string())?;
    Ok(BackupReport {
        router_dir,
        boot_file,
        set_file,
        previous,
        changes,
        tree,
        footer: None,
        warnings: Vec::new(),
    })
}

/// A previous backup: a saved file, or showConfig text as backups were written before they
/// became saved files. A bare name the new tree holds as an empty node is that node (a saved
/// file prints both alike, see [`crate::config::rollback_soft_batch`]).
fn previous_tree(text: &str, tree: &ConfigTree) -> Result<ConfigTree, Error> {
    let mut previous = match ConfigTree::parse_saved(text) {
        Ok(t) => t,
        Err(saved) => ConfigTree::parse_boot(text).map_err(|_| saved)?,
    };
    crate::config::align_empty_nodes(&mut previous, tree);
    Ok(previous)
}

fn is_file_word(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !s.starts_with('.')
}

/// Creates `dir` (and missing parents) with mode 0700 on Unix; an existing folder is left as it
/// is.
fn create_private_dir(dir: &Path) -> Result<(), Error> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir).map_err(io(dir))
}

fn write_new(path: &Path, text: &str) -> Result<(), Error> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path).map_err(io(path))?;
    f.write_all(text.as_bytes()).map_err(io(path))?;
    f.sync_all().map_err(io(path))
}

/// The newest `HOST-YYYYMMDDTHHMMSSZ.config.boot` in `dir`, by the time in its name.
fn newest_backup(dir: &Path) -> Result<Option<PathBuf>, Error> {
    let entries = std::fs::read_dir(dir).map_err(io(dir))?;
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
