//! Removing secrets from a configuration before it is logged or stored.
//!
//! What counts as a secret comes from VyOS's own test configurations (see the fixtures' README):
//! WireGuard private and preshared keys, HTTPS API keys, password hashes and plaintext passwords of
//! users, VRRP, PPPoE, OpenVPN, BGP, dynamic DNS and RADIUS passwords or secrets, IPsec pre-shared
//! secrets, OSPF MD5 keys, SNMPv3 keys and SNMP community names.

use crate::config::tree::{Branch, ConfigTree, Node, Tag};

/// What a redacted value becomes.
pub const REDACTED: &str = "<redacted>";

/// Leaf names whose values are secrets.
const SECRET_LEAVES: &[&str] = &[
    "cak",
    "encrypted-key",
    "encrypted-password",
    "key",
    "md5-key",
    "passphrase",
    "password",
    "plaintext-password",
    "pre-shared-secret",
    "preshared-key",
    "private-key",
    "secret",
    "secret-key",
];

/// Whether a leaf with this name holds a secret (wherever it is; see [`ConfigTree::redact`] for the
/// exceptions that depend on the place).
pub fn is_secret_leaf(name: &str) -> bool {
    SECRET_LEAVES.contains(&name)
}

impl ConfigTree {
    /// Replaces every secret value with [`REDACTED`], and every SNMP community name (the community
    /// string is the secret) with `redacted-1`, `redacted-2`, ….  A `key` below `public-keys` (an SSH
    /// public key) is left alone. An empty value (`plaintext-password ""`) stays empty, so a redacted
    /// configuration still shows that no password is set.
    pub fn redact(&mut self) {
        redact_branch(&mut self.root, "");
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

fn redact_branch(b: &mut Branch, parent: &str) {
    for (name, node) in &mut b.children {
        match node {
            Node::Leaf(leaf) => {
                if is_secret_leaf(name) && !(name == "key" && parent == "public-keys") {
                    for v in &mut leaf.values {
                        if !v.is_empty() {
                            REDACTED.clone_into(v);
                        }
                    }
                    leaf.values.dedup();
                }
            }
            Node::Branch(inner) => redact_branch(inner, name),
            Node::Tag(t) => {
                for entry in t.entries.values_mut() {
                    redact_branch(entry, name);
                }
            }
        }
    }
}
