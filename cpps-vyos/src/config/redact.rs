//! Removing secrets from a configuration before it is logged or stored. What counts as a secret
//! is [`crate::config::secrets`]: the same list that `Debug` of a tree or a command uses.

use crate::config::secrets::{classify, redact_value};
use crate::config::tree::{Branch, ConfigTree, Node, Tag};

pub use crate::config::secrets::{REDACTED, is_secret_path};

/// Whether a leaf with this name holds a secret wherever it is (the path-dependent rules need
/// the whole path: [`is_secret_path`]).
pub fn is_secret_leaf(name: &str) -> bool {
    is_secret_path(&[name])
}

impl ConfigTree {
    /// Replaces every secret value (see [`crate::config::secrets`]) with [`REDACTED`] (the
    /// password of a commit-archive URL only), and every SNMP community name (the community
    /// string is the secret) with `redacted-1`, `redacted-2`, …. Public keys are left alone. An
    /// empty value (`plaintext-password ""`) stays empty, so a redacted configuration still shows
    /// that no password is set.
    pub fn redact(&mut self) {
        let mut path = Vec::new();
        redact_branch(&mut self.root, &mut path);
        if let Some(Node::Branch(snmp)) = self.root.children.get_mut("service").and_then(|n| {
            if let Node::Branch(b) = n {
                b.children.get_mut("snmp")
            } else {
                None
            }
        }) && let Some(Node::Tag(Tag { entries })) = snmp.children.get_mut("community")
        {
            let old = std::mem::take(entries);
            for (i, (_, entry)) in old.into_iter().enumerate() {
                entries.insert(format!("redacted-{}", i + 1), entry);
            }
        }
    }

    /// A redacted copy; see [`ConfigTree::redact`].
    #[must_use]
    pub fn redacted(&self) -> ConfigTree {
        let mut t = self.clone();
        t.redact();
        t
    }
}

fn redact_branch(b: &mut Branch, path: &mut Vec<String>) {
    for (name, node) in &mut b.children {
        path.push(name.clone());
        match node {
            Node::Leaf(leaf) => {
                if let Some(kind) = classify(path) {
                    for v in &mut leaf.values {
                        *v = redact_value(kind, v);
                    }
                    let mut seen = std::collections::HashSet::new();
                    leaf.values.retain(|v| seen.insert(v.clone()));
                }
            }
            Node::Branch(inner) => redact_branch(inner, path),
            Node::Tag(t) => {
                for (entry_name, entry) in &mut t.entries {
                    path.push(entry_name.clone());
                    redact_branch(entry, path);
                    path.pop();
                }
            }
        }
        path.pop();
    }
}
