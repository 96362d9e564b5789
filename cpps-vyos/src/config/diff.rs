//! The difference of two trees as a batch of commands.

use std::collections::HashSet;

use indexmap::IndexMap;

use crate::config::set::Command;
use crate::config::tree::{Branch, ConfigTree, Leaf, Node, StepKind, Tag};

/// The commands that turn `from` into `to`: first the `delete`s, then the `set`s, then the
/// `comment`s, so the batch can be sent as one commit (VyOS's `/configure` applies them in order).
///
/// A node missing from `to` is deleted whole (one command, not one per leaf); a node new in `to` is
/// set leaf by leaf; a leaf whose values changed loses the values that went (`delete PATH 'old'`)
/// and gains the new ones (`set PATH 'new'`) when the values it keeps stay in order, and is deleted
/// and set again otherwise. Without VyOS's schema a single-valued leaf cannot be told from a
/// multi-valued one, so a changed value is a `delete` of the old one plus a `set` of the new one,
/// which VyOS accepts for both. The version footer is not part of the configuration and is ignored.
///
/// Applying the result to `from` with [`ConfigTree::apply_all`] gives a tree equal to `to`.
pub fn diff(from: &ConfigTree, to: &ConfigTree) -> Vec<Command> {
    let mut d = Diff::default();
    let mut path = Vec::new();
    let mut kinds = Vec::new();
    d.children(
        &from.root.children,
        &to.root.children,
        &mut path,
        &mut kinds,
    );
    let mut out = d.deletes;
    out.extend(d.sets);
    out.extend(d.comments);
    out
}

#[derive(Default)]
struct Diff {
    deletes: Vec<Command>,
    sets: Vec<Command>,
    comments: Vec<Command>,
}

impl Diff {
    fn children(
        &mut self,
        a: &IndexMap<String, Node>,
        b: &IndexMap<String, Node>,
        path: &mut Vec<String>,
        kinds: &mut Vec<StepKind>,
    ) {
        for name in a.keys() {
            if !b.contains_key(name) {
                path.push(name.clone());
                self.deletes.push(Command::delete(path.clone(), None));
                path.pop();
            }
        }
        for (name, bn) in b {
            path.push(name.clone());
            match (a.get(name), bn) {
                (None, _) => self.add_node(bn, path, kinds),
                (Some(Node::Leaf(al)), Node::Leaf(bl)) => {
                    kinds.push(StepKind::Leaf);
                    self.leaf(al, bl, path, kinds);
                    kinds.pop();
                }
                (Some(Node::Branch(ab)), Node::Branch(bb)) => {
                    kinds.push(StepKind::Node);
                    self.branch(ab, bb, path, kinds);
                    kinds.pop();
                }
                (Some(Node::Tag(at)), Node::Tag(bt)) => {
                    kinds.push(StepKind::Tag);
                    self.tag(at, bt, path, kinds);
                    kinds.pop();
                }
                (Some(_), _) => {
                    self.deletes.push(Command::delete(path.clone(), None));
                    self.add_node(bn, path, kinds);
                }
            }
            path.pop();
        }
    }

    fn branch(
        &mut self,
        a: &Branch,
        b: &Branch,
        path: &mut Vec<String>,
        kinds: &mut Vec<StepKind>,
    ) {
        self.children(&a.children, &b.children, path, kinds);
        self.comment(&a.comment, &b.comment, path);
    }

    fn tag(&mut self, a: &Tag, b: &Tag, path: &mut Vec<String>, kinds: &mut Vec<StepKind>) {
        for name in a.entries.keys() {
            if !b.entries.contains_key(name) {
                path.push(name.clone());
                self.deletes.push(Command::delete(path.clone(), None));
                path.pop();
            }
        }
        for (name, be) in &b.entries {
            path.push(name.clone());
            kinds.push(StepKind::Entry);
            match a.entries.get(name) {
                None => self.add_branch(be, path, kinds),
                Some(ae) => self.branch(ae, be, path, kinds),
            }
            kinds.pop();
            path.pop();
        }
    }

    fn leaf(&mut self, a: &Leaf, b: &Leaf, path: &[String], kinds: &[StepKind]) {
        // Whether the leaf is removed on the way (it then loses its comment too).
        let mut recreated = false;
        if a.values != b.values {
            // Membership through sets, so that a leaf of many values compares in linear time.
            let in_a: HashSet<&str> = a.values.iter().map(String::as_str).collect();
            let in_b: HashSet<&str> = b.values.iter().map(String::as_str).collect();
            let kept: Vec<&String> = a
                .values
                .iter()
                .filter(|v| in_b.contains(v.as_str()))
                .collect();
            let added: Vec<&String> = b
                .values
                .iter()
                .filter(|v| !in_a.contains(v.as_str()))
                .collect();
            let in_order = kept.len() + added.len() == b.values.len()
                && kept
                    .iter()
                    .chain(added.iter())
                    .zip(&b.values)
                    .all(|(x, y)| *x == y);
            if in_order && !a.values.is_empty() && !b.values.is_empty() {
                for v in a.values.iter().filter(|v| !in_b.contains(v.as_str())) {
                    self.deletes.push(Command::delete(path.to_vec(), Some(v)));
                }
                for v in added {
                    self.sets.push(Command::set_with_kinds(
                        path.to_vec(),
                        kinds.to_vec(),
                        Some(v.clone()),
                    ));
                }
                recreated = kept.is_empty();
            } else {
                // A valueless leaf becoming valued (or back), or values that change order.
                self.deletes.push(Command::delete(path.to_vec(), None));
                self.add_leaf_values(b, path, kinds);
                recreated = true;
            }
        }
        if recreated {
            if let Some(c) = &b.comment {
                self.comments.push(Command::comment(path.to_vec(), c));
            }
        } else {
            self.comment(&a.comment, &b.comment, path);
        }
    }

    fn comment(&mut self, a: &Option<String>, b: &Option<String>, path: &[String]) {
        if a != b {
            self.comments
                .push(Command::comment(path.to_vec(), b.as_deref().unwrap_or("")));
        }
    }

    /// Everything under a node that `from` lacks (path already holds the node's name).
    fn add_node(&mut self, node: &Node, path: &mut Vec<String>, kinds: &mut Vec<StepKind>) {
        match node {
            Node::Leaf(l) => {
                kinds.push(StepKind::Leaf);
                self.add_leaf_values(l, path, kinds);
                if let Some(c) = &l.comment {
                    self.comments.push(Command::comment(path.clone(), c));
                }
            }
            Node::Branch(b) => {
                kinds.push(StepKind::Node);
                self.add_branch(b, path, kinds);
            }
            Node::Tag(t) => {
                kinds.push(StepKind::Tag);
                for (name, e) in &t.entries {
                    path.push(name.clone());
                    kinds.push(StepKind::Entry);
                    self.add_branch(e, path, kinds);
                    kinds.pop();
                    path.pop();
                }
            }
        }
        kinds.pop();
    }

    fn add_leaf_values(&mut self, l: &Leaf, path: &[String], kinds: &[StepKind]) {
        if l.values.is_empty() {
            self.sets
                .push(Command::set_with_kinds(path.to_vec(), kinds.to_vec(), None));
        }
        for v in &l.values {
            self.sets.push(Command::set_with_kinds(
                path.to_vec(),
                kinds.to_vec(),
                Some(v.clone()),
            ));
        }
    }

    fn add_branch(&mut self, b: &Branch, path: &mut Vec<String>, kinds: &mut Vec<StepKind>) {
        if b.children.is_empty() {
            self.sets
                .push(Command::set_with_kinds(path.clone(), kinds.clone(), None));
        }
        for (name, child) in &b.children {
            path.push(name.clone());
            self.add_node(child, path, kinds);
            path.pop();
        }
        if let Some(c) = &b.comment {
            self.comments.push(Command::comment(path.clone(), c));
        }
    }
}
