//! The dialect of saved files and archived revisions: `/config/config.boot` as `save` writes it,
//! the `config.boot.N.gz` revisions `show system commit file N` prints, and remote commit-archive
//! copies.
//!
//! VyOS 1.4 and 1.5 write them with vyos1x-config, not with vyatta-cfg's showConfig printer:
//! vyos-1x `src/helpers/vyos-save-config.py` writes `ct.to_string()` of the running tree, then
//! `"\n"` and the version footer, and `python/vyos/config_mgmt.py` `_archive_active_config`
//! archives what that script saved. `ConfigTree.to_string` (`python/vyos/configtree.py`) is
//! vyos1x-config's renderer (`src/config_tree.ml` `render_values`, `render_tag_node_child`):
//! every value in `"` escaped by `src/util.ml` `escape_string` (`\"`, `\\`, `\n`, `\t`, `\r`,
//! `\b`, `\DDD` for other control bytes), tag values bare and unescaped; then
//! `unescape_backslash` turns `\\` back into `\` inside any quoted string that holds a backslash
//! but no other quote before its closing quote and line feed.
//!
//! VyOS reads such text with `ConfigTree(text)`: `escape_backslash` (the same pattern, `\` to
//! `\\`), then vyos1x-config's lexer (`src/vyos1x_lexer.mll`), which decodes `\/ \\ \b \f \n \r
//! \t \' \"` in quoted strings and knows no other escape. This reader does the same, so a value
//! reads as VyOS's rollback and compare see it. A bare word holding a quote, or starting like a
//! comment, is refused: that lexer would split it. Error columns count the text after the
//! backslash doubling.

use std::borrow::Cow;

use indexmap::IndexMap;

use crate::config::tree::{ConfigTree, Node};
use crate::error::ParseError;

/// vyos-1x `python/vyos/configtree.py` `replace_backslash`: applies `replace` to every match of
/// `("[^"]*[\\][^"]*"\n|'[^']*[\\][^']*'\n)`, left to right, never overlapping. A match runs from
/// a quote to the next same quote, which a line feed must follow, and holds a backslash.
fn replace_backslash<'a>(s: &'a str, replace: impl Fn(&str) -> String) -> Cow<'a, str> {
    let bytes = s.as_bytes();
    let mut out = String::new();
    let (mut copied, mut i) = (0, 0);
    while i < bytes.len() {
        let q = bytes[i];
        if matches!(q, b'"' | b'\'') {
            let close = bytes[i + 1..]
                .iter()
                .position(|&b| b == q)
                .map(|p| p + i + 1);
            if let Some(j) = close
                .filter(|&j| bytes.get(j + 1) == Some(&b'\n') && bytes[i + 1..j].contains(&b'\\'))
            {
                out.push_str(&s[copied..i + 1]);
                out.push_str(&replace(&s[i + 1..j]));
                copied = j;
                i = j + 2;
                continue;
            }
        }
        i += 1;
    }
    if copied == 0 && out.is_empty() {
        return Cow::Borrowed(s);
    }
    out.push_str(&s[copied..]);
    Cow::Owned(out)
}

/// `escape_backslash`, applied by `ConfigTree(text)` before parsing.
fn escape_backslash(s: &str) -> Cow<'_, str> {
    replace_backslash(s, |m| m.replace('\\', "\\\\"))
}

/// `unescape_backslash`, applied by `ConfigTree.to_string` after rendering.
fn unescape_backslash(s: &str) -> String {
    replace_backslash(s, |m| m.replace("\\\\", "\\")).into_owned()
}

/// Reads a saved file (see the module documentation).
pub(crate) fn parse(src: &str) -> Result<ConfigTree, ParseError> {
    let escaped = escape_backslash(src);
    crate::config::boot::parse_saved(&escaped)
}

/// Reads each bare name of `tree` (a saved file) that `like` holds as an empty node as that
/// node. vyos1x-config renders a node without children as its bare name, as it renders a
/// valueless leaf (`src/config_tree.ml` `render_node`), and reads a bare name back as a node
/// without values or children (`src/vyos1x_parser.mly` `leaf_node_body`): to VyOS the two are one
/// node, so comparing a saved file with a running tree must not see a change there.
pub(crate) fn align_empty_nodes(tree: &mut ConfigTree, like: &ConfigTree) {
    align_children(&mut tree.root.children, &like.root.children);
}

fn align_children(children: &mut IndexMap<String, Node>, like: &IndexMap<String, Node>) {
    for (name, node) in children.iter_mut() {
        match (node, like.get(name)) {
            (node @ Node::Leaf(_), Some(Node::Branch(b))) if b.children.is_empty() => {
                if let Node::Leaf(leaf) = node
                    && leaf.values.is_empty()
                {
                    let comment = leaf.comment.take();
                    *node = Node::Branch(crate::config::tree::Branch {
                        comment,
                        children: IndexMap::new(),
                    });
                }
            }
            (Node::Branch(b), Some(Node::Branch(l))) => {
                align_children(&mut b.children, &l.children)
            }
            (Node::Tag(t), Some(Node::Tag(l))) => {
                for (entry, b) in t.entries.iter_mut() {
                    if let Some(l) = l.entries.get(entry) {
                        align_children(&mut b.children, &l.children);
                    }
                }
            }
            _ => {}
        }
    }
}

/// vyos1x-config `src/util.ml` `escape_string`: `"` and `\` get a backslash; line feed, tab,
/// carriage return and backspace their letter; other bytes below 32 and DEL three decimal digits.
fn escape_string(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            c if u32::from(c) < 32 || u32::from(c) == 127 => {
                out.push_str(&format!("\\{:03}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// The text `save` writes for `tree`: vyos1x-config's rendering (see the module documentation)
/// through `unescape_backslash`, then the footer as read (a saved file's footer starts with the
/// blank lines `to_string` and the save script put before it).
pub(crate) fn render(tree: &ConfigTree) -> String {
    let mut body = String::new();
    render_nodes(&mut body, &tree.root.children, 0);
    let mut out = unescape_backslash(&body);
    if let Some(footer) = &tree.footer {
        out.push_str(footer);
    }
    out
}

/// `Renderer.render_node` with an indent of four: a comment as `/* c */` before its node; a leaf
/// as `name "value"` per value or its bare name; a node as `name {` … `}`, or its bare name
/// when it has no children; each tag entry as `name value {` … `}` with the value as it is.
fn render_nodes(out: &mut String, children: &IndexMap<String, Node>, level: usize) {
    let indent = "    ".repeat(level);
    let comment = |out: &mut String, c: &Option<String>| {
        if let Some(c) = c {
            out.push_str(&format!("{indent}/* {c} */\n"));
        }
    };
    for (name, node) in children {
        match node {
            Node::Leaf(leaf) => {
                comment(out, &leaf.comment);
                if leaf.values.is_empty() {
                    out.push_str(&format!("{indent}{name}\n"));
                }
                for v in &leaf.values {
                    out.push_str(&format!("{indent}{name} \"{}\"\n", escape_string(v)));
                }
            }
            Node::Branch(b) => {
                comment(out, &b.comment);
                if b.children.is_empty() {
                    out.push_str(&format!("{indent}{name}\n"));
                } else {
                    out.push_str(&format!("{indent}{name} {{\n"));
                    render_nodes(out, &b.children, level + 1);
                    out.push_str(&format!("{indent}}}\n"));
                }
            }
            Node::Tag(t) if t.entries.is_empty() => out.push_str(&format!("{indent}{name}\n")),
            Node::Tag(t) => {
                for (entry, b) in &t.entries {
                    comment(out, &b.comment);
                    out.push_str(&format!("{indent}{name} {entry} {{\n"));
                    render_nodes(out, &b.children, level + 1);
                    out.push_str(&format!("{indent}}}\n"));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pattern of vyos-1x `python/vyos/configtree.py` `replace_backslash`: a quoted string
    /// counts only when its closing quote ends the line and it holds a backslash; an escaped
    /// quote splits it.
    #[test]
    fn the_backslash_pattern_is_vyos_own() {
        assert_eq!(escape_backslash("a \"C:\\x\"\n"), "a \"C:\\\\x\"\n");
        assert_eq!(escape_backslash("a \"C:\\x\" {\n"), "a \"C:\\x\" {\n");
        assert_eq!(escape_backslash("a \"x\\\"y\\z\"\n"), "a \"x\\\"y\\\\z\"\n");
        assert_eq!(escape_backslash("a 'p\\q'\n"), "a 'p\\\\q'\n");
        assert_eq!(unescape_backslash("a \"C:\\\\x\"\n"), "a \"C:\\x\"\n");
        assert!(matches!(escape_backslash("a \"b\"\n"), Cow::Borrowed(_)));
    }

    /// vyos1x-config `src/util.ml` `escape_string`: quotes, backslashes, newlines and control
    /// characters escaped, other text kept.
    #[test]
    fn values_are_escaped_as_vyos1x_escapes_them() {
        assert_eq!(
            escape_string("a\"\\\n\u{1}\u{7f}é"),
            "a\\\"\\\\\\n\\001\\127é"
        );
    }
}
