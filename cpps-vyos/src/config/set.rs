//! The `set` command form: VyOS's `show configuration commands` rendering, and reading it back.
//!
//! Rendering follows VyOS's `show configuration commands` (vyos-1x `vyos-config-to-commands`,
//! `python/vyos/configtree.py` `to_commands`: vyos1x-config `src/config_tree.ml`
//! `render_commands` and `src/util.ml` `escape_string`, then `unescape_backslash`): one `set`
//! line per value, the value in single quotes with `"` written `\"` and `\` written as VyOS
//! writes it (see [`crate::config::lex`]), a valueless leaf or an empty node as a bare path, a
//! path word quoted where `config.boot` quotes it, `comment PATH 'text'` after a commented node.
//! A value VyOS cannot print unambiguously (a `'` before a blank, a control character) goes in
//! double quotes as it is. Reading accepts `set`, `delete` and `comment` lines; a quoted last
//! word is the value: in `'` it is read as VyOS prints it, so a line pasted from the router
//! means the value the router holds (`'a\"b'` is `a"b`); in `"`, and a comment or path word, as
//! written. A node
//! name, value or comment that one of the two text forms cannot carry is refused with
//! [`Error::Unrepresentable`], so every tree this reader accepts renders to text that reads back.
//! The text form does not say which words are tag nodes: see [`crate::config::hints`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use indexmap::IndexMap;

use crate::config::hints;
use crate::config::lex::{Tok, Token, decode_set_value, set_text, set_value, set_word, tokenize};
use crate::config::tree::{Branch, ConfigTree, Leaf, Node, StepKind, Tag};
use crate::config::unique::{self, ValueHasher};
use crate::error::{Error, ParseError, ParseErrorKind};

/// What a [`Command`] does.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Op {
    /// `set PATH ['VALUE']`.
    Set,
    /// `delete PATH ['VALUE']`.
    Delete,
    /// `comment PATH 'TEXT'` (an empty text removes the comment).
    Comment,
}

impl Op {
    /// The command word (`set`, `delete`, `comment`), also the `op` of VyOS's `/configure` API.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Set => "set",
            Op::Delete => "delete",
            Op::Comment => "comment",
        }
    }
}

/// One configuration command. Its `Debug` hides the value of a secret leaf (see
/// [`crate::config::secrets::is_secret_path`]); its `Display` is the VyOS text, value included.
#[derive(Clone, PartialEq, Eq)]
pub struct Command {
    /// set, delete or comment.
    pub op: Op,
    /// The path words, as VyOS's API takes them (`["interfaces", "ethernet", "eth0", "address"]`).
    pub path: Vec<String>,
    /// The value of a `set`/`delete` (none for a valueless leaf or a whole node), or a comment's text.
    pub value: Option<String>,
    /// What each path word names (same length as `path`); used when a `set` creates nodes.
    kinds: Vec<StepKind>,
}

impl Command {
    /// A `set`; what the path words name is guessed with [`hints::infer_kinds`].
    pub fn set<I, S>(path: I, value: Option<&str>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let path: Vec<String> = path.into_iter().map(Into::into).collect();
        let kinds = hints::infer_kinds(&path, value.is_some());
        Self {
            op: Op::Set,
            path,
            value: value.map(str::to_owned),
            kinds,
        }
    }

    /// A `set` whose path words are described by `kinds` (one per word).
    pub fn set_with_kinds(path: Vec<String>, kinds: Vec<StepKind>, value: Option<String>) -> Self {
        Self {
            op: Op::Set,
            path,
            value,
            kinds,
        }
    }

    /// A `delete` of a node, or of one value of a leaf.
    pub fn delete<I, S>(path: I, value: Option<&str>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::on_nodes(Op::Delete, path, value.map(str::to_owned))
    }

    /// A `comment` (an empty text removes the comment).
    pub fn comment<I, S>(path: I, text: &str) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::on_nodes(Op::Comment, path, Some(text.to_owned()))
    }

    /// A command that creates nothing (`delete`, `comment`): every path word is a plain node.
    fn on_nodes<I, S>(op: Op, path: I, value: Option<String>) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let path: Vec<String> = path.into_iter().map(Into::into).collect();
        let kinds = vec![StepKind::Node; path.len()];
        Self {
            op,
            path,
            value,
            kinds,
        }
    }

    /// What each path word names.
    pub fn kinds(&self) -> &[StepKind] {
        &self.kinds
    }
}

impl Command {
    /// A copy safe to print: a secret value (the list of [`crate::config::secrets`]) and the
    /// name of an SNMP community (`service snmp community NAME`: the name is the community
    /// string, vyos-1x `interface-definitions/service_snmp.xml.in`) are replaced with
    /// [`crate::config::secrets::REDACTED`], as [`crate::ConfigTree::redact`] does in a tree.
    #[must_use]
    pub fn redacted(&self) -> Command {
        use crate::config::secrets::{REDACTED, classify, redact_value};
        let mut out = self.clone();
        if let Some(name) = out.path.get_mut(3)
            && self.path[..3] == ["service", "snmp", "community"]
        {
            REDACTED.clone_into(name);
        }
        if self.op != Op::Comment
            && let (Some(kind), Some(v)) = (classify(&self.path), out.value.as_mut())
        {
            *v = redact_value(kind, v);
        }
        out
    }
}

impl fmt::Debug for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.redacted();
        f.debug_struct("Command")
            .field("op", &self.op)
            .field("path", &shown.path)
            .field("value", &shown.value)
            .field("kinds", &self.kinds)
            .finish()
    }
}

impl fmt::Display for Command {
    /// VyOS's text form: `set interfaces ethernet eth0 address '192.0.2.1/24'`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.op.as_str())?;
        for w in &self.path {
            write!(f, " {}", set_word(w))?;
        }
        match &self.value {
            Some(v) if self.op == Op::Comment => write!(f, " {}", set_text(v))?,
            Some(v) => write!(f, " {}", set_value(v))?,
            None => {}
        }
        Ok(())
    }
}

impl ConfigTree {
    /// Applies one command, as VyOS's configuration session would (without its schema).
    ///
    /// # Errors
    /// [`Error::NoSuchNode`] for a `delete`/`comment` of something absent; [`Error::BelowLeaf`],
    /// [`Error::NotALeaf`] or [`Error::TagComment`] for a path that does not fit the tree.
    pub fn apply(&mut self, cmd: &Command) -> Result<(), Error> {
        match cmd.op {
            Op::Set => self.set_path(&cmd.path, &cmd.kinds, cmd.value.as_deref()),
            Op::Delete => self.delete_path(&cmd.path, cmd.value.as_deref()),
            Op::Comment => self.comment_path(&cmd.path, cmd.value.as_deref().unwrap_or("")),
        }
    }

    /// Makes `value` the only value of the leaf at `path` (creating the path as a `set` would), as
    /// VyOS's `set` does for a single-valued leaf. [`Command::set`] applied to an existing leaf adds a
    /// value instead, because without VyOS's schema a multi-valued leaf cannot be told apart.
    ///
    /// # Errors
    /// As [`ConfigTree::apply`] for the `set`.
    pub fn set_value<S: Into<String> + Clone>(
        &mut self,
        path: &[S],
        value: &str,
    ) -> Result<(), Error> {
        let path: Vec<String> = path.iter().cloned().map(Into::into).collect();
        if let Some(crate::config::NodeRef::Leaf(_)) = self.get(&path) {
            self.delete_path(&path, None)?;
        }
        self.apply(&Command::set(path, Some(value)))
    }

    /// Applies commands in order; stops at the first that fails.
    ///
    /// # Errors
    /// As [`ConfigTree::apply`].
    pub fn apply_all<'a, I: IntoIterator<Item = &'a Command>>(
        &mut self,
        cmds: I,
    ) -> Result<(), Error> {
        cmds.into_iter().try_for_each(|c| self.apply(c))
    }

    /// The tree as `set` commands (and `comment` commands), one per line.
    pub fn to_commands(&self) -> Vec<Command> {
        let mut out = Vec::new();
        let mut path = Vec::new();
        let mut kinds = Vec::new();
        commands_of(&self.root.children, &mut path, &mut kinds, &mut out);
        out
    }

    /// The tree in VyOS's `show configuration commands` form, one command per line, ending in a newline.
    pub fn to_set_string(&self) -> String {
        let mut s = String::new();
        for c in self.to_commands() {
            s.push_str(&c.to_string());
            s.push('\n');
        }
        s
    }
}

fn commands_of(
    children: &IndexMap<String, Node>,
    path: &mut Vec<String>,
    kinds: &mut Vec<StepKind>,
    out: &mut Vec<Command>,
) {
    for (name, node) in children {
        path.push(name.clone());
        match node {
            Node::Leaf(leaf) => {
                kinds.push(StepKind::Leaf);
                if leaf.values.is_empty() {
                    out.push(Command::set_with_kinds(path.clone(), kinds.clone(), None));
                }
                for v in &leaf.values {
                    out.push(Command::set_with_kinds(
                        path.clone(),
                        kinds.clone(),
                        Some(v.clone()),
                    ));
                }
                if let Some(c) = &leaf.comment {
                    out.push(Command::comment(path.clone(), c));
                }
            }
            Node::Branch(b) => {
                kinds.push(StepKind::Node);
                branch_commands(b, path, kinds, out);
            }
            Node::Tag(t) => {
                kinds.push(StepKind::Tag);
                for (entry, b) in &t.entries {
                    path.push(entry.clone());
                    kinds.push(StepKind::Entry);
                    branch_commands(b, path, kinds, out);
                    path.pop();
                    kinds.pop();
                }
            }
        }
        path.pop();
        kinds.pop();
    }
}

/// The commands of a branch (a node or a tag entry) at `path`: a bare `set` when it has no
/// children, then its children's, then its comment.
fn branch_commands(
    b: &Branch,
    path: &mut Vec<String>,
    kinds: &mut Vec<StepKind>,
    out: &mut Vec<Command>,
) {
    if b.children.is_empty() {
        out.push(Command::set_with_kinds(path.clone(), kinds.clone(), None));
    }
    commands_of(&b.children, path, kinds, out);
    if let Some(c) = &b.comment {
        out.push(Command::comment(path.clone(), c));
    }
}

/// Reads `set`/`delete`/`comment` lines; blank lines and lines starting with `#` are skipped.
pub(crate) fn parse_commands(src: &str) -> Result<Vec<Command>, ParseError> {
    let mut out = Vec::new();
    for (idx, line) in src.lines().enumerate() {
        let line_no = idx + 1;
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let tokens = tokenize(line, false).map_err(|e| ParseError { line: line_no, ..e })?;
        let words: Vec<_> = tokens
            .into_iter()
            .filter(|t| !matches!(t.kind, Tok::Newline | Tok::Eof))
            .collect();
        let Some((first, rest)) = words.split_first() else {
            continue;
        };
        let err = |t: &Token<'_>, kind| ParseError {
            line: line_no,
            column: t.column,
            kind,
        };
        let op = match &first.kind {
            Tok::Ident(w) if *w == "set" => Op::Set,
            Tok::Ident(w) if *w == "delete" => Op::Delete,
            Tok::Ident(w) if *w == "comment" => Op::Comment,
            Tok::Ident(w) | Tok::Str(w) => {
                return Err(err(
                    first,
                    ParseErrorKind::UnknownCommand {
                        word: (*w).to_owned(),
                    },
                ));
            }
            _ => continue,
        };
        // A value in `'` is read as VyOS prints it (`decode_set_value`); in `"`, which VyOS never
        // prints, as written.
        let (value, path_tokens) = match rest.split_last() {
            Some((
                t @ Token {
                    kind: Tok::Str(v), ..
                },
                before,
            )) if op != Op::Comment && line.as_bytes().get(t.offset) == Some(&b'\'') => {
                (Some(decode_set_value(v)), before)
            }
            Some((
                Token {
                    kind: Tok::Str(v), ..
                },
                before,
            )) => (Some(Cow::Borrowed(*v)), before),
            _ => (None, rest),
        };
        let value = value.as_deref();
        if op == Op::Comment && value.is_none() {
            return Err(err(first, ParseErrorKind::MissingCommentText));
        }
        let path: Vec<String> = path_tokens
            .iter()
            .map(|t| match &t.kind {
                Tok::Ident(w) | Tok::Str(w) => (*w).to_owned(),
                _ => String::new(),
            })
            .collect();
        if path.is_empty() {
            return Err(err(first, ParseErrorKind::EmptyPath));
        }
        out.push(match op {
            Op::Set => Command::set(path, value),
            Op::Delete => Command::delete(path, value),
            Op::Comment => Command::comment(path, value.unwrap_or("")),
        });
    }
    Ok(out)
}

/// Reads `set` commands into a tree: each command is applied in turn to an empty tree.
///
/// A `set` of a value that the leaf already has is a no-op. To stay linear for a leaf with many
/// values, a value is added without looking for it, its hash is kept, and the leaf's repeats are
/// dropped later (see [`unique`]): before a `delete` that reaches the leaf, and at the end. So
/// every command sees the values it would see had each `set` looked first.
pub(crate) fn parse_tree(src: &str) -> Result<ConfigTree, ParseError> {
    let mut tree = ConfigTree::new();
    let hasher = ValueHasher::default();
    // The leaves that got values without a look, with the hash of each of their values.
    let mut unchecked: HashMap<Vec<String>, Vec<u64>> = HashMap::new();
    for (idx, line) in src.lines().enumerate() {
        let cmds = parse_commands(line).map_err(|e| ParseError { line: idx + 1, ..e })?;
        for c in &cmds {
            let err = |e: Error| ParseError {
                line: idx + 1,
                column: line.len() - line.trim_start().len() + 1,
                kind: ParseErrorKind::Apply(e.to_string()),
            };
            match (c.op, &c.value) {
                (Op::Set, Some(v)) => {
                    let hashes = match unchecked.get_mut(&c.path) {
                        Some(hashes) => hashes,
                        None => {
                            let present = tree.values(&c.path).iter().map(|x| hasher.hash(x));
                            unchecked.entry(c.path.clone()).or_insert(present.collect())
                        }
                    };
                    tree.set_path_unchecked(&c.path, &c.kinds, Some(v))
                        .map_err(err)?;
                    hashes.push(hasher.hash(v));
                }
                (Op::Delete, _) => {
                    // The leaves at or below the deleted path get their repeats dropped first.
                    unchecked.retain(|path, hashes| {
                        if !path.starts_with(&c.path) {
                            return true;
                        }
                        if let Some(leaf) = leaf_mut(&mut tree, path) {
                            unique::keep_first(&mut leaf.values, hashes);
                        }
                        false
                    });
                    tree.apply(c).map_err(err)?;
                }
                // A comment or a `set` without a value changes no leaf's values.
                _ => tree.apply(c).map_err(err)?,
            }
        }
    }
    for (path, hashes) in &unchecked {
        if let Some(leaf) = leaf_mut(&mut tree, path) {
            unique::keep_first(&mut leaf.values, hashes);
        }
    }
    Ok(tree)
}

/// The leaf at `path`, to change.
fn leaf_mut<'t>(tree: &'t mut ConfigTree, path: &[String]) -> Option<&'t mut Leaf> {
    enum Cur<'a> {
        Branch(&'a mut Branch),
        Tag(&'a mut Tag),
        Leaf(&'a mut Leaf),
    }
    let mut cur = Cur::Branch(&mut tree.root);
    for step in path {
        cur = match cur {
            Cur::Branch(b) => match b.children.get_mut(step.as_str())? {
                Node::Leaf(l) => Cur::Leaf(l),
                Node::Branch(b) => Cur::Branch(b),
                Node::Tag(t) => Cur::Tag(t),
            },
            Cur::Tag(t) => Cur::Branch(t.entries.get_mut(step.as_str())?),
            Cur::Leaf(_) => return None,
        };
    }
    match cur {
        Cur::Leaf(l) => Some(l),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(src: &str) -> Vec<String> {
        parse_tree(src).unwrap().values(&["a", "v"]).to_vec()
    }

    #[test]
    fn a_value_set_again_is_kept_once_in_first_order() {
        assert_eq!(
            values("set a v 'x'\nset a v 'y'\nset a v 'x'\nset a v 'z'\nset a v 'y'\n"),
            ["x", "y", "z"]
        );
    }

    #[test]
    fn a_value_set_again_after_a_comment_or_a_delete_elsewhere_is_kept_once() {
        assert_eq!(values("set a v 'x'\ncomment a v 'c'\nset a v 'x'\n"), ["x"]);
        assert_eq!(
            values("set a v 'x'\nset b w\ndelete b w\nset a v 'x'\nset a v 'y'\n"),
            ["x", "y"]
        );
    }

    #[test]
    fn a_delete_sees_the_values_without_repeats() {
        // Had the repeat stayed until the end, one `x` would survive the delete.
        assert_eq!(
            values("set a v 'x'\nset a v 'x'\nset a v 'y'\ndelete a v 'x'\nset a v 'x'\n"),
            ["y", "x"]
        );
        assert_eq!(
            values("set a v 'x'\nset a v 'x'\ndelete a\nset a v 'y'\n"),
            ["y"]
        );
    }
}
