//! What `load` can carry.
//!
//! `load` and `merge` read the text differently. `merge` (vyos-1x
//! `src/helpers/vyos-merge-config.py`) parses it with vyos1x-config, which decodes `\"` and `\\`
//! (`src/vyos1x_lexer.mll`). `load` (`src/helpers/vyos-load-config.py`) runs `ConfigMigrate`,
//! which leaves a text with the router's own footer untouched (`python/vyos/migrate.py` `run`),
//! then `cli-shell-api loadFile`, whose parser (vyatta-cfg `src/cparse/cparse_lex.l`, `<sQStr>\\.`)
//! keeps every escape as written. So a value holding `"` or `\`, which the text sent must escape
//! for the first reader ([`crate::ConfigTree::to_load_string`]), would land with its backslashes.
//! Such a value is refused for `load`; `merge` carries it.

use std::fmt;

use crate::config::Command;
use crate::config::tree::{Branch, ConfigTree, Node};

/// Which value of a node `load` cannot carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValuePosition {
    /// The value at this index (from 0, in the leaf's order) of the leaf at the path.
    Value(usize),
    /// The tag value (the entry's name) at this index of the tag node at the path.
    TagValue(usize),
}

/// A value that `load` would change (see the module documentation): where it is, never what it
/// is (it may be a secret). The path is redacted as [`Command::redacted`] redacts one.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct NotLoadable {
    /// The path of the leaf or tag node holding the value.
    pub path: Vec<String>,
    /// Which of its values.
    pub position: ValuePosition,
}

impl fmt::Display for NotLoadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.position {
            ValuePosition::Value(i) => format!("value {} of", i + 1),
            ValuePosition::TagValue(i) => format!("tag value {} of", i + 1),
        };
        write!(
            f,
            "{what} `{}` holds a `\"` or a `\\`, which VyOS's `load` keeps escaped (vyatta-cfg src/cparse/cparse_lex.l); use merge",
            self.path.join(" ")
        )
    }
}

impl std::error::Error for NotLoadable {}

/// Whether `load` would read `value` back with backslashes added.
fn changed_by_load(value: &str) -> bool {
    value.contains(['"', '\\'])
}

/// The first value of `tree` that `load` cannot carry, in the tree's order.
pub(crate) fn check(tree: &ConfigTree) -> Result<(), NotLoadable> {
    let mut path = Vec::new();
    walk(&tree.root, &mut path)
}

fn refused(path: &[String], position: ValuePosition) -> NotLoadable {
    NotLoadable {
        path: Command::set(path.to_vec(), None).redacted().path,
        position,
    }
}

fn walk(branch: &Branch, path: &mut Vec<String>) -> Result<(), NotLoadable> {
    for (name, node) in &branch.children {
        path.push(name.clone());
        match node {
            Node::Leaf(leaf) => {
                if let Some(i) = leaf.values.iter().position(|v| changed_by_load(v)) {
                    return Err(refused(path, ValuePosition::Value(i)));
                }
            }
            Node::Branch(b) => walk(b, path)?,
            Node::Tag(t) => {
                if let Some(i) = t.entries.keys().position(|v| changed_by_load(v)) {
                    return Err(refused(path, ValuePosition::TagValue(i)));
                }
                for (entry, b) in &t.entries {
                    path.push(entry.clone());
                    walk(b, path)?;
                    path.pop();
                }
            }
        }
        path.pop();
    }
    Ok(())
}
