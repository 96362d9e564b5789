//! The configuration tree: the typed form of a VyOS configuration.
//!
//! The model follows VyOS's own (`vyos1x-config`, `config_tree.ml`): a node is a leaf (with zero or
//! more values), a plain node with children, or a tag node whose children are named entries
//! (`ethernet eth0 { … }`). Children keep the order in which they were read; equality of children
//! ignores that order (as VyOS, which sorts them), equality of a leaf's values does not.

use std::fmt;

use indexmap::IndexMap;

use crate::config::lex::{comment_problem, name_problem, set_needs_quotes, value_problem};
use crate::config::secrets::is_secret_path;
use crate::error::Error as ApplyError;

/// A whole configuration: the top-level nodes and the version footer.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ConfigTree {
    /// The top-level nodes (`interfaces`, `system`, …); the root never has a comment.
    pub root: Branch,
    /// The version footer (`// vyos-config-version: …` or the older `/* === vyatta-config-version … */`
    /// lines) exactly as it was read, without trailing whitespace; `None` when the file had none.
    pub footer: Option<String>,
}

/// A node of the tree.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Node {
    /// A leaf: `host-name "vyos"`, several lines for a multi-value, or a valueless leaf (`disable`).
    Leaf(Leaf),
    /// A plain node with children: `system { … }`.
    Branch(Branch),
    /// A tag node: `ethernet eth0 { … }`, one entry per tag value.
    Tag(Tag),
}

/// A leaf node.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Leaf {
    /// The `/* … */` comment in front of the node, trimmed.
    pub comment: Option<String>,
    /// The values in file order; empty for a valueless leaf.
    pub values: Vec<String>,
}

/// A plain node (or a tag entry, or the root).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Branch {
    /// The `/* … */` comment in front of the node, trimmed.
    pub comment: Option<String>,
    /// The children by name, in file order.
    pub children: IndexMap<String, Node>,
}

/// A tag node: its entries by tag value. A tag node itself carries no comment (VyOS renders the
/// comment of each entry, never one of the tag node). Its `Debug` shows the entries as branches,
/// secrets redacted.
#[derive(Clone, PartialEq, Eq, Default, Debug)]
pub struct Tag {
    /// The entries by tag value, in file order.
    pub entries: IndexMap<String, Branch>,
}

/// What a step of a configuration path names; it decides what a `set` creates where the tree has no
/// node yet (the `set` text form does not say it, see [`crate::config::hints`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum StepKind {
    /// A plain node.
    Node,
    /// A tag node; the next step is one of its entries.
    Tag,
    /// An entry of the tag node named by the previous step.
    Entry,
    /// A leaf (always the last step).
    Leaf,
}

/// Nesting deeper than this many braces is refused by both readers (real configurations stay
/// below 15), so whatever one form reads, the other can read back.
pub(crate) const MAX_DEPTH: usize = 64;

/// A borrowed view of the node at some path.
#[derive(Clone, Copy, Debug)]
pub enum NodeRef<'a> {
    /// A leaf.
    Leaf(&'a Leaf),
    /// A plain node, a tag entry or the root.
    Branch(&'a Branch),
    /// A tag node.
    Tag(&'a Tag),
}

impl Leaf {
    /// A leaf with these values (none: a valueless leaf).
    pub fn new<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            comment: None,
            values: values.into_iter().map(Into::into).collect(),
        }
    }
}

impl fmt::Debug for Leaf {
    // Values are shown: a leaf alone does not know its name. Branches redact secret leaves by name.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Leaf")
            .field("comment", &self.comment)
            .field("values", &self.values)
            .finish()
    }
}

impl fmt::Debug for Branch {
    // Secret leaves are judged by their path from this node (see `secrets::classify`): the same
    // rules and exceptions as `ConfigTree::redact`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(
            &BranchDebug {
                branch: self,
                path: Vec::new(),
            },
            f,
        )
    }
}

/// A branch shown with the path above it, so that secret leaves are recognised by place.
struct BranchDebug<'a> {
    branch: &'a Branch,
    path: Vec<&'a str>,
}

impl fmt::Debug for BranchDebug<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Children<'a>(&'a BranchDebug<'a>);
        impl fmt::Debug for Children<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut m = f.debug_map();
                for (name, node) in &self.0.branch.children {
                    let mut path = self.0.path.clone();
                    path.push(name);
                    match node {
                        Node::Leaf(leaf) if is_secret_path(&path) && !leaf.values.is_empty() => {
                            m.entry(name, &"<redacted>");
                        }
                        Node::Leaf(leaf) => {
                            m.entry(name, leaf);
                        }
                        Node::Branch(b) => {
                            m.entry(name, &BranchDebug { branch: b, path });
                        }
                        Node::Tag(t) => {
                            struct Entries<'a>(&'a Tag, Vec<&'a str>);
                            impl fmt::Debug for Entries<'_> {
                                fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                                    let mut m = f.debug_map();
                                    for (entry, b) in &self.0.entries {
                                        let mut path = self.1.clone();
                                        path.push(entry);
                                        m.entry(entry, &BranchDebug { branch: b, path });
                                    }
                                    m.finish()
                                }
                            }
                            m.entry(name, &Entries(t, path));
                        }
                    }
                }
                m.finish()
            }
        }
        f.debug_struct("Branch")
            .field("comment", &self.branch.comment)
            .field("children", &Children(self))
            .finish()
    }
}

impl fmt::Debug for ConfigTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConfigTree")
            .field("root", &self.root)
            .field("footer", &self.footer)
            .finish()
    }
}

impl Branch {
    /// The node at `path` below this one.
    pub fn get<S: AsRef<str>>(&self, path: &[S]) -> Option<NodeRef<'_>> {
        let mut cur = NodeRef::Branch(self);
        for step in path {
            let step = step.as_ref();
            cur = match cur {
                NodeRef::Branch(b) => match b.children.get(step)? {
                    Node::Leaf(l) => NodeRef::Leaf(l),
                    Node::Branch(b) => NodeRef::Branch(b),
                    Node::Tag(t) => NodeRef::Tag(t),
                },
                NodeRef::Tag(t) => NodeRef::Branch(t.entries.get(step)?),
                NodeRef::Leaf(_) => return None,
            };
        }
        Some(cur)
    }

    /// The plain node or tag entry at `path`.
    pub fn branch<S: AsRef<str>>(&self, path: &[S]) -> Option<&Branch> {
        match self.get(path)? {
            NodeRef::Branch(b) => Some(b),
            _ => None,
        }
    }

    /// The entries of the tag node at `path` (an empty iterator when there is none).
    pub fn entries<S: AsRef<str>>(&self, path: &[S]) -> impl Iterator<Item = (&str, &Branch)> {
        let tag = match self.get(path) {
            Some(NodeRef::Tag(t)) => Some(t),
            _ => None,
        };
        tag.into_iter()
            .flat_map(|t| t.entries.iter().map(|(k, v)| (k.as_str(), v)))
    }

    /// The values of the leaf at `path` (empty when there is no such leaf).
    pub fn values<S: AsRef<str>>(&self, path: &[S]) -> &[String] {
        match self.get(path) {
            Some(NodeRef::Leaf(l)) => &l.values,
            _ => &[],
        }
    }

    /// The first value of the leaf at `path`.
    pub fn value<S: AsRef<str>>(&self, path: &[S]) -> Option<&str> {
        self.values(path).first().map(String::as_str)
    }

    /// Whether any node exists at `path`.
    pub fn exists<S: AsRef<str>>(&self, path: &[S]) -> bool {
        self.get(path).is_some()
    }
}

impl ConfigTree {
    /// An empty configuration without footer.
    pub fn new() -> Self {
        Self::default()
    }

    /// The node at `path`; see [`Branch::get`].
    pub fn get<S: AsRef<str>>(&self, path: &[S]) -> Option<NodeRef<'_>> {
        self.root.get(path)
    }

    /// The values of the leaf at `path`; see [`Branch::values`].
    pub fn values<S: AsRef<str>>(&self, path: &[S]) -> &[String] {
        self.root.values(path)
    }

    /// The first value of the leaf at `path`.
    pub fn value<S: AsRef<str>>(&self, path: &[S]) -> Option<&str> {
        self.root.value(path)
    }

    /// Whether any node exists at `path`.
    pub fn exists<S: AsRef<str>>(&self, path: &[S]) -> bool {
        self.root.exists(path)
    }

    /// Creates the nodes of `path` that are missing (with the given kinds) and adds `value` to the leaf
    /// at its end, as VyOS's `set` does. Setting a value a leaf already has, or a node that exists, is
    /// a no-op.
    pub(crate) fn set_path(
        &mut self,
        path: &[String],
        kinds: &[StepKind],
        value: Option<&str>,
    ) -> Result<(), ApplyError> {
        self.set_path_checked(path, kinds, value, true)
    }

    /// [`ConfigTree::set_path`] without looking for `value` among the leaf's values: the caller
    /// knows it is not there (the `set` reader, which keeps the values it has seen).
    pub(crate) fn set_path_unchecked(
        &mut self,
        path: &[String],
        kinds: &[StepKind],
        value: Option<&str>,
    ) -> Result<(), ApplyError> {
        self.set_path_checked(path, kinds, value, false)
    }

    fn set_path_checked(
        &mut self,
        path: &[String],
        kinds: &[StepKind],
        value: Option<&str>,
        look_for_value: bool,
    ) -> Result<(), ApplyError> {
        self.check_settable(path, kinds, value)?;
        let mut cur = Cur::Branch(&mut self.root);
        let last = path.len() - 1;
        for (i, word) in path.iter().enumerate() {
            let is_last = i == last;
            cur = match cur {
                Cur::Tag(t) => {
                    if is_last && value.is_some() {
                        return Err(ApplyError::NotALeaf {
                            path: path.join(" "),
                        });
                    }
                    Cur::Branch(tag_entry(t, &path[..=i], is_last)?)
                }
                Cur::Branch(b) => {
                    let kind = kinds.get(i).copied().unwrap_or(StepKind::Node);
                    let step = Step {
                        path,
                        i,
                        kind,
                        value,
                        look_for_value,
                    };
                    match branch_child(b, word, &step)? {
                        Some(next) => next,
                        None => return Ok(()),
                    }
                }
            };
        }
        Ok(())
    }

    /// What [`ConfigTree::set_path`] refuses before it walks: an empty path, a node nested deeper
    /// than `config.boot` can be read back, a value no text form can carry.
    fn check_settable(
        &self,
        path: &[String],
        kinds: &[StepKind],
        value: Option<&str>,
    ) -> Result<(), ApplyError> {
        if path.is_empty() {
            return Err(ApplyError::EmptyPath);
        }
        // Each word opens at most one brace, so only long paths need counting.
        if path.len() > MAX_DEPTH && self.braces_along(path, kinds, value) > MAX_DEPTH {
            return Err(unrepresentable(
                path,
                "node name",
                &path[path.len() - 1],
                "nodes nested more than 64 levels deep cannot be read back from config.boot",
            ));
        }
        if let Some(v) = value
            && let Some(reason) = value_problem(v)
        {
            return Err(unrepresentable(path, "value", v, reason));
        }
        Ok(())
    }

    /// How many braces `config.boot` would open down to the node that setting `path` (with
    /// `kinds` and `value`, as [`ConfigTree::set_path`] takes them) creates or reaches: one per
    /// plain node and one per tag entry; a leaf and a tag node's name open none.
    fn braces_along(&self, path: &[String], kinds: &[StepKind], value: Option<&str>) -> usize {
        enum At<'a> {
            Branch(Option<&'a Branch>),
            Tag(Option<&'a Tag>),
        }
        let mut at = At::Branch(Some(&self.root));
        let mut braces = 0;
        let last = path.len().saturating_sub(1);
        for (i, word) in path.iter().enumerate() {
            let kind = kinds.get(i).copied().unwrap_or(StepKind::Node);
            at = match at {
                At::Tag(t) => {
                    braces += 1;
                    At::Branch(t.and_then(|t| t.entries.get(word)))
                }
                At::Branch(b) => match b.and_then(|b| b.children.get(word)) {
                    Some(Node::Leaf(_)) => return braces,
                    Some(Node::Branch(inner)) => {
                        braces += 1;
                        At::Branch(Some(inner))
                    }
                    Some(Node::Tag(t)) => At::Tag(Some(t)),
                    None if i == last && (value.is_some() || kind == StepKind::Leaf) => {
                        return braces;
                    }
                    None if i != last && kind == StepKind::Tag => At::Tag(None),
                    None => {
                        braces += 1;
                        At::Branch(None)
                    }
                },
            };
        }
        braces
    }

    /// Removes the node at `path`, or only `value` from the leaf there, as VyOS's `delete` does; a
    /// leaf left without values and a tag node left without entries are removed too.
    pub(crate) fn delete_path(
        &mut self,
        path: &[String],
        value: Option<&str>,
    ) -> Result<(), ApplyError> {
        if path.is_empty() {
            return Err(ApplyError::EmptyPath);
        }
        let missing = || ApplyError::NoSuchNode {
            path: path.join(" "),
        };
        fn in_branch(b: &mut Branch, path: &[String], value: Option<&str>) -> Result<bool, ()> {
            // Returns whether the node named by path[0] was removed from `b`.
            let name = &path[0];
            if path.len() == 1 {
                match (b.children.get_mut(name), value) {
                    (None, _) => Err(()),
                    (Some(Node::Leaf(leaf)), Some(v)) => {
                        let pos = leaf.values.iter().position(|x| x == v).ok_or(())?;
                        leaf.values.remove(pos);
                        if leaf.values.is_empty() {
                            b.children.shift_remove(name);
                            return Ok(true);
                        }
                        Ok(false)
                    }
                    (Some(_), Some(_)) => Err(()),
                    (Some(_), None) => {
                        b.children.shift_remove(name);
                        Ok(true)
                    }
                }
            } else {
                match b.children.get_mut(name) {
                    Some(Node::Branch(inner)) => in_branch(inner, &path[1..], value).map(|_| false),
                    Some(Node::Tag(tag)) => {
                        let entry_name = &path[1];
                        if path.len() == 2 {
                            if value.is_some() || tag.entries.shift_remove(entry_name).is_none() {
                                return Err(());
                            }
                        } else {
                            let entry = tag.entries.get_mut(entry_name).ok_or(())?;
                            in_branch(entry, &path[2..], value)?;
                        }
                        if tag.entries.is_empty() {
                            b.children.shift_remove(name);
                            return Ok(true);
                        }
                        Ok(false)
                    }
                    _ => Err(()),
                }
            }
        }
        in_branch(&mut self.root, path, value)
            .map(|_| ())
            .map_err(|()| missing())
    }

    /// Sets (or, with an empty text, removes) the comment of the node at `path`.
    pub(crate) fn comment_path(
        &mut self,
        path: &[String],
        comment: &str,
    ) -> Result<(), ApplyError> {
        if path.is_empty() {
            return Err(ApplyError::EmptyPath);
        }
        // Stored trimmed, as `config.boot` reads it back.
        let comment = comment.trim();
        if let Some(reason) = comment_problem(comment) {
            return Err(unrepresentable(path, "comment", comment, reason));
        }
        let comment = if comment.is_empty() {
            None
        } else {
            Some(comment.to_owned())
        };
        let missing = || ApplyError::NoSuchNode {
            path: path.join(" "),
        };
        let (parent_path, name) = path.split_at(path.len() - 1);
        let name = &name[0];
        let mut cur: &mut Branch = &mut self.root;
        let mut i = 0;
        while i < parent_path.len() {
            match cur.children.get_mut(&parent_path[i]).ok_or_else(missing)? {
                Node::Branch(b) => {
                    cur = b;
                    i += 1;
                }
                Node::Tag(t) => {
                    if i + 1 == parent_path.len() {
                        // `name` is the entry.
                        let entry = t.entries.get_mut(name).ok_or_else(missing)?;
                        entry.comment = comment;
                        return Ok(());
                    }
                    cur = t.entries.get_mut(&parent_path[i + 1]).ok_or_else(missing)?;
                    i += 2;
                }
                Node::Leaf(_) => return Err(missing()),
            }
        }
        match cur.children.get_mut(name).ok_or_else(missing)? {
            Node::Leaf(l) => l.comment = comment,
            Node::Branch(b) => b.comment = comment,
            Node::Tag(_) => {
                return Err(ApplyError::TagComment {
                    path: path.join(" "),
                });
            }
        }
        Ok(())
    }
}

/// Where [`ConfigTree::set_path`] stands while it walks: in a branch or in a tag node.
enum Cur<'a> {
    Branch(&'a mut Branch),
    Tag(&'a mut Tag),
}

/// One step of [`ConfigTree::set_path`] in a branch: the whole path, the index of the word, its
/// kind, and the value being set.
struct Step<'p> {
    path: &'p [String],
    i: usize,
    kind: StepKind,
    value: Option<&'p str>,
    look_for_value: bool,
}

/// The entry `path`'s last word names in the tag node `t`, created when missing.
fn tag_entry<'a>(
    t: &'a mut Tag,
    path: &[String],
    is_last: bool,
) -> Result<&'a mut Branch, ApplyError> {
    let word = &path[path.len() - 1];
    if !t.entries.contains_key(word) {
        if let Some(reason) = value_problem(word) {
            return Err(unrepresentable(path, "tag value", word, reason));
        }
        // An empty entry ends its `set` line; quoted, as config.boot would write it, it would
        // read back as the tag's value.
        if is_last && set_needs_quotes(word) {
            return Err(unrepresentable(
                path,
                "tag value",
                word,
                "an empty tag entry that needs quotes would read back as a value in a `set` command",
            ));
        }
    }
    Ok(t.entries.entry(word.clone()).or_default())
}

/// The child `word` of `b`, created when missing with the kind the step asks for; where to go
/// next, or `None` once the value is in its leaf.
fn branch_child<'a>(
    b: &'a mut Branch,
    word: &String,
    step: &Step<'_>,
) -> Result<Option<Cur<'a>>, ApplyError> {
    let (path, i, value) = (step.path, step.i, step.value);
    let is_last = i + 1 == path.len();
    if !b.children.contains_key(word) {
        if let Some(reason) = name_problem(word) {
            return Err(unrepresentable(&path[..=i], "node name", word, reason));
        }
        let node = if is_last {
            match (value, step.kind) {
                (Some(_), _) | (None, StepKind::Leaf) => Node::Leaf(Leaf::default()),
                (None, _) => Node::Branch(Branch::default()),
            }
        } else if step.kind == StepKind::Tag {
            Node::Tag(Tag::default())
        } else {
            Node::Branch(Branch::default())
        };
        b.children.insert(word.clone(), node);
    }
    let Some(child) = b.children.get_mut(word) else {
        return Err(ApplyError::EmptyPath);
    };
    let not_a_leaf = || ApplyError::NotALeaf {
        path: path.join(" "),
    };
    match child {
        Node::Leaf(leaf) => {
            if !is_last {
                return Err(ApplyError::BelowLeaf {
                    path: path[..=i].join(" "),
                });
            }
            if let Some(v) = value
                && (!step.look_for_value || !leaf.values.iter().any(|x| x == v))
            {
                leaf.values.push(v.to_owned());
            }
            Ok(None)
        }
        Node::Branch(_) | Node::Tag(_) if is_last && value.is_some() => Err(not_a_leaf()),
        Node::Branch(inner) => Ok(Some(Cur::Branch(inner))),
        Node::Tag(inner) => Ok(Some(Cur::Tag(inner))),
    }
}

/// The error for text that the VyOS text forms cannot carry; a secret leaf's value is not shown.
fn unrepresentable(
    path: &[String],
    what: &'static str,
    text: &str,
    reason: &'static str,
) -> ApplyError {
    let text = if what == "value" && is_secret_path(path) {
        crate::config::secrets::REDACTED.to_owned()
    } else {
        text.to_owned()
    };
    ApplyError::Unrepresentable {
        path: path.join(" "),
        what,
        text,
        reason,
    }
}
