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

use crate::config::Command;
use crate::config::tree::{Branch, ConfigTree, Node};
use crate::error::{NotLoadable, ValuePosition};

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
