//! The configuration model: one typed tree read from showConfig text, saved files or `set`
//! commands, written back in each form, compared as a `set`/`delete` batch, viewed through typed
//! views and redacted.
//!
//! VyOS has three dialects of curly-brace text, kept apart here: showConfig text (vyatta-cfg
//! `src/cnode/cnode-algorithm.cpp`: values bare or in `"`, never escaped;
//! [`ConfigTree::parse_boot`], [`ConfigTree::to_boot_string`]); saved files and archived
//! revisions (vyos1x-config, every value quoted and escaped; [`ConfigTree::parse_saved`],
//! [`ConfigTree::to_saved_string`]); and the text `load` and `merge` read
//! ([`ConfigTree::to_load_string`]; `load`'s parser keeps escapes, `merge`'s decodes them).

mod boot;
mod diff;
pub mod hints;
mod lex;
mod load;
pub mod redact;
mod saved;
pub mod secrets;
mod set;
mod shown;
mod tree;
mod unique;
pub mod views;

pub use crate::error::{NotLoadable, ValuePosition};
pub use diff::diff;
pub use set::{Command, Op};
pub use tree::{Branch, ConfigTree, Leaf, Node, NodeRef, StepKind, Tag};

use crate::error::{ParseError, ParseErrorKind};

/// Which printer wrote a `showConfig` text ([`ConfigTree::printer_of_shown`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ShownBy {
    /// vyatta-cfg (`cli-shell-api showConfig`, the legacy backend): values bare unless they need
    /// quotes, nothing escaped, every line after a diff column.
    VyattaCfg,
    /// vyos1x-config (the vyconf backend: `render_at_level` from the first column, or
    /// `diff_show` one column in): every leaf value in `"` and escaped, tag values bare.
    Vyos1x,
    /// No value in the text tells the two apart (no value at all, or only values both printers
    /// quote): [`ConfigTree::parse_shown`] reads it when both dialects give the same tree and
    /// refuses it otherwise.
    Undecided,
}

impl ConfigTree {
    /// Reads showConfig text (`cli-shell-api showConfig`, as `/retrieve` and `vyos-backup` get
    /// it; vyatta-cfg `src/cnode/cnode-algorithm.cpp`): nothing is decoded. A file saved by 1.4
    /// or 1.5 is another dialect ([`ConfigTree::parse_saved`]).
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem.
    pub fn parse_boot(src: &str) -> Result<Self, ParseError> {
        boot::parse(src)
    }

    /// Which printer wrote `src`, a `showConfig` text of the API (`/retrieve` `raw`), told from
    /// its values. vyos-1x `python/vyos/configsession.py` `show_config` runs
    /// `cli-shell-api showConfig` on the legacy backend (vyatta-cfg
    /// `src/cnode/cnode-algorithm.cpp`: values bare unless `_print_value_str` must quote them,
    /// never escaped) and asks vyconf on the vyconf backend (`src/session.ml` `show_config`:
    /// vyos1x-config `render_at_level` from the first column in the older vyconf, `diff_show` one
    /// column in, like vyatta-cfg's `PFX_DIFF_NONE`, in the newer; both render every leaf value
    /// in `"`, escaped by `src/util.ml` `escape_string`). So the first column does not tell: a
    /// bare leaf value or a quoted tag value is vyatta-cfg's, a quoted value vyatta-cfg would
    /// print bare is vyos1x-config's, and a text with neither is [`ShownBy::Undecided`]. Which
    /// backend runs is a file on the router (`/run/vyconf_backend`, vyos-1x
    /// `python/vyos/utils/backend.py`) that the API does not show, and not a version.
    pub fn printer_of_shown(src: &str) -> ShownBy {
        shown::printer_of(src).by
    }

    /// Reads a `showConfig` text of the API in the dialect of the printer that wrote it
    /// ([`ConfigTree::printer_of_shown`]): vyatta-cfg's as [`ConfigTree::parse_boot`] reads it;
    /// vyos1x-config's (vyconf) with its quoted values decoded as vyos1x-config's lexer decodes
    /// them (`src/vyos1x_lexer.mll`). Unlike a saved file ([`ConfigTree::parse_saved`]), that
    /// text never went through Python's `unescape_backslash`, so its backslashes are read as
    /// written. An undecided text is read when both dialects read it alike, that is when no
    /// quoted value holds a `\` or `"`.
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem; for an undecided text,
    /// at the first quoted value that the two dialects read differently (the value is not
    /// shown: it may be a secret).
    pub fn parse_shown(src: &str) -> Result<Self, ParseError> {
        let verdict = shown::printer_of(src);
        match verdict.by {
            ShownBy::Vyos1x => boot::parse_saved(src),
            ShownBy::VyattaCfg => boot::parse(src),
            ShownBy::Undecided => match verdict.differs_at {
                None => boot::parse(src),
                Some(t) => Err(ParseError {
                    line: t.line,
                    column: t.column,
                    kind: ParseErrorKind::Unexpected {
                        found: "a quoted value holding `\\` or `\"`, which vyatta-cfg and vyos1x-config print differently, and no value that tells which printer wrote the text".to_owned(),
                        expected: "a showConfig text with a bare value, or a quoted value that needs no quotes",
                    },
                }),
            },
        }
    }

    /// Reads a saved file or an archived revision (`/config/config.boot`, `show system commit
    /// file N`, a commit-archive copy) as VyOS itself reads it: VyOS 1.4 and 1.5 write these with
    /// vyos1x-config, every value quoted and escaped, and read them through `ConfigTree(text)`
    /// (see [`ConfigTree::to_saved_string`]). Not for showConfig text ([`ConfigTree::parse_boot`]),
    /// whose values are never escaped.
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem; also for an escape VyOS's
    /// lexer does not know and for a bare value it would split (holding a quote).
    pub fn parse_saved(src: &str) -> Result<Self, ParseError> {
        saved::parse(src)
    }

    /// The tree as `save` writes it and the commit archive keeps it (vyos-1x
    /// `src/helpers/vyos-save-config.py`, `python/vyos/configtree.py` `to_string`; vyos1x-config
    /// `src/config_tree.ml` `render_values`, `src/util.ml` `escape_string`): every value in `"`,
    /// escaped, with `\\` put back single inside a quoted string that holds no escaped quote;
    /// tag values bare; then the footer as read. A tree read by [`ConfigTree::parse_saved`]
    /// renders back to its text byte for byte.
    pub fn to_saved_string(&self) -> String {
        saved::render(self)
    }

    /// Reads `set` commands (VyOS's `show configuration commands` form) into a tree.
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem.
    pub fn parse_set(src: &str) -> Result<Self, ParseError> {
        set::parse_tree(src)
    }

    /// The tree in showConfig's form, footer included: what `showConfig` prints, so a tree read
    /// from the router's showConfig text renders back to that text. What 1.4 and 1.5 save is
    /// [`ConfigTree::to_saved_string`].
    pub fn to_boot_string(&self) -> String {
        boot::render(self)
    }

    /// The tree as VyOS's `merge` reads it (vyos1x-config, `src/vyos1x_lexer.mll`: `'` and `"`
    /// open strings and `\` escapes in them): every value and tag value in double quotes with
    /// `\` and `"` escaped, then the footer as read. This is the text [`crate::Client::load`] and
    /// [`crate::Client::merge`] send for inline text. `load` reads it with vyatta-cfg's parser,
    /// which reads the same values except those with an escape: it keeps the backslash, so
    /// `load` refuses them ([`ConfigTree::check_loadable`]).
    pub fn to_load_string(&self) -> String {
        let mut out = boot::render_vyos1x(self);
        if let Some(footer) = &self.footer {
            out.push_str(footer);
        }
        out
    }

    /// Checks that `load` carries every value of the tree as it is: VyOS's `load` reads the
    /// text with vyatta-cfg's parser, which keeps escapes (see [`NotLoadable`]), so a value or tag
    /// value holding `"` or `\` is refused; `merge` decodes them.
    ///
    /// # Errors
    /// [`NotLoadable`] naming the path and position of the first such value, never the value.
    pub fn check_loadable(&self) -> Result<(), NotLoadable> {
        load::check(self)
    }

    /// The tree as `/retrieve` `showConfig` answers it inside the API's configuration session
    /// with nothing uncommitted: the `config.boot` form without footer, each line after a blank
    /// column (vyatta-cfg `src/cnode/cnode-algorithm.cpp` compares the active and the working
    /// configuration and prints `PFX_DIFF_NONE`, a blank, before every unchanged line).
    pub fn to_show_config_string(&self) -> String {
        let mut without_footer = self.clone();
        without_footer.footer = None;
        let mut out = String::new();
        for line in boot::render(&without_footer).lines() {
            out.push(' ');
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// The batch a soft rollback sends: the commands that turn `running` into the revision whose
/// archived text (`show system commit file N`, vyos-1x `python/vyos/config_mgmt.py`
/// `show_commit_file`) is `revision_text`. The archive holds saved files
/// (`_archive_active_config` runs the save script), so the text is read as VyOS's own
/// `rollback_soft` reads it (`ConfigTree(text)`, see [`ConfigTree::parse_saved`]). A saved file
/// prints an empty node and a valueless leaf alike, as a bare name, and vyos1x-config reads both
/// as one node; so a bare name that `running` holds as an empty node is that node, not a change.
///
/// # Errors
/// A [`ParseError`] when the revision's text does not parse.
pub fn rollback_soft_batch(
    running: &ConfigTree,
    revision_text: &str,
) -> Result<Vec<Command>, ParseError> {
    let mut revision = ConfigTree::parse_saved(revision_text)?;
    saved::align_empty_nodes(&mut revision, running);
    Ok(diff(running, &revision))
}

/// Reads each bare name of `saved_tree` (read from a saved file) that `like` holds as an empty
/// node as that node; see [`rollback_soft_batch`].
pub(crate) fn align_empty_nodes(saved_tree: &mut ConfigTree, like: &ConfigTree) {
    saved::align_empty_nodes(saved_tree, like);
}

/// Reads `set`, `delete` and `comment` lines into commands.
///
/// # Errors
/// A [`ParseError`] with the line and column of the first problem.
pub fn parse_commands(src: &str) -> Result<Vec<Command>, ParseError> {
    set::parse_commands(src)
}
