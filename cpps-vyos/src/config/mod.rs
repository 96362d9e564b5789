//! The configuration model: one typed tree read from either `config.boot` or `set` commands, written
//! back in either form, compared as a `set`/`delete` batch, viewed through typed views and redacted.

mod boot;
mod diff;
pub mod hints;
mod lex;
pub mod redact;
pub mod secrets;
mod set;
mod tree;
mod unique;
pub mod views;

pub use diff::diff;
pub use set::{Command, Op};
pub use tree::{Branch, ConfigTree, Leaf, Node, NodeRef, StepKind, Tag};

use crate::error::ParseError;

impl ConfigTree {
    /// Reads a `config.boot` file (curly-brace form).
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem.
    pub fn parse_boot(src: &str) -> Result<Self, ParseError> {
        boot::parse(src)
    }

    /// Reads `set` commands (VyOS's `show configuration commands` form) into a tree.
    ///
    /// # Errors
    /// A [`ParseError`] with the line and column of the first problem.
    pub fn parse_set(src: &str) -> Result<Self, ParseError> {
        set::parse_tree(src)
    }

    /// The tree in VyOS's `config.boot` form, footer included: what `showConfig` prints and
    /// `save` writes, so a tree read from the router's text renders back to that text.
    pub fn to_boot_string(&self) -> String {
        boot::render(self)
    }

    /// The tree as VyOS's `load` and `merge` read it (vyos1x-config, `src/vyos1x_lexer.mll`:
    /// `'` and `"` open strings and `\` escapes in them): every value and tag value in double
    /// quotes with `\` and `"` escaped, then the footer as read. This is the text
    /// [`crate::Client::load`] and [`crate::Client::merge`] send for inline text.
    pub fn to_load_string(&self) -> String {
        let mut out = boot::render_vyos1x(self);
        if let Some(footer) = &self.footer {
            out.push_str(footer);
        }
        out
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

/// Reads `set`, `delete` and `comment` lines into commands.
///
/// # Errors
/// A [`ParseError`] with the line and column of the first problem.
pub fn parse_commands(src: &str) -> Result<Vec<Command>, ParseError> {
    set::parse_commands(src)
}
