//! Reading and writing the curly-brace `config.boot` form.
//!
//! The text is what VyOS prints (`cli-shell-api showConfig`, vyatta-cfg
//! `src/cnode/cnode-algorithm.cpp`) and saves: bare or double-quoted values, never escaped (see
//! [`crate::config::lex`] for the quoting rules); a newline ends a leaf; `name value {` opens a tag
//! entry; a `/* … */` comment on its own line belongs to the node after it; `//` lines are skipped;
//! a repeated leaf adds values; a repeated tag node adds entries. The version footer (everything
//! after the last node, when it holds a comment: `// vyos-config-version: …`) is kept byte for
//! byte. Rendering writes the same form: four spaces per level, a value quoted only where VyOS
//! quotes it, a tag entry as `name entry {`, the footer as read. So rendering a tree read from
//! VyOS's own text gives that text back, byte for byte.

use std::collections::HashSet;

use indexmap::IndexMap;
use indexmap::map::Entry as MapEntry;

use crate::config::lex::{Tok, Token, boot_value, tokenize};
use crate::config::tree::{Branch, ConfigTree, Leaf, Node, Tag};
use crate::error::{ParseError, ParseErrorKind};

/// Nesting deeper than this is refused (real configurations stay below 15).
const MAX_DEPTH: usize = 64;

/// Reads a `config.boot` file.
pub(crate) fn parse(src: &str) -> Result<ConfigTree, ParseError> {
    let tokens = tokenize(src, true)?;
    let mut p = Parser {
        tokens,
        pos: 0,
        last_node_end: None,
    };
    let mut footer_start = None;
    let root = p.contents(0, &mut footer_start)?;
    // The footer starts on the line after the last node, blank lines included, so that the
    // text renders back byte for byte.
    let footer = footer_start.map(|comment_at: usize| {
        let from = p.last_node_end.map_or(0, |after| {
            let next_line = src[after..].find('\n').map_or(src.len(), |n| after + n + 1);
            // A comment on the last node's own line starts the footer there.
            next_line.min(comment_at)
        });
        src[from..].to_owned()
    });
    Ok(ConfigTree { root, footer })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    /// The byte offset of the last token of the last top-level node read (values hold no line
    /// break, so the node ends on that token's line).
    last_node_end: Option<usize>,
}

impl Parser {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof, and `pos` never passes it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    /// The next token, moved out of the list (a consumed token is never read again, except for
    /// its offset); the final end-of-input token stays.
    fn next(&mut self) -> Token {
        if self.pos < self.tokens.len() - 1 {
            let t = &mut self.tokens[self.pos];
            let taken = Token {
                kind: std::mem::replace(&mut t.kind, Tok::Newline),
                ..*t
            };
            self.pos += 1;
            taken
        } else {
            self.peek().clone()
        }
    }

    fn error(t: &Token, kind: ParseErrorKind) -> ParseError {
        ParseError {
            line: t.line,
            column: t.column,
            kind,
        }
    }

    fn unexpected(t: &Token, expected: &'static str) -> ParseError {
        Self::error(
            t,
            ParseErrorKind::Unexpected {
                found: t.kind.describe(),
                expected,
            },
        )
    }

    /// The nodes up to the closing `}` (consumed) or, at depth 0, the end of the input.
    fn contents(
        &mut self,
        depth: usize,
        footer_start: &mut Option<usize>,
    ) -> Result<Branch, ParseError> {
        let mut branch = Branch::default();
        // Leaves that got values from more than one line: their duplicates are dropped once the
        // branch is complete (one pass each, so a leaf with many values reads in linear time).
        let mut repeated: HashSet<String> = HashSet::new();
        let mut comments: Vec<String> = Vec::new();
        let mut first_comment: Option<Token> = None;
        loop {
            let t = self.next();
            match &t.kind {
                Tok::Newline => {}
                Tok::LineComment | Tok::Comment(_) => {
                    if depth == 0 && footer_start.is_none() {
                        *footer_start = Some(t.offset);
                    }
                    if let Tok::Comment(text) = &t.kind {
                        if first_comment.is_none() {
                            first_comment = Some(t.clone());
                        }
                        comments.push(text.trim().to_owned());
                    }
                }
                Tok::Eof if depth == 0 => return Ok(dedup(branch, &repeated)),
                Tok::Eof => return Err(Self::error(&t, ParseErrorKind::MissingCloseBrace)),
                Tok::RBrace if depth == 0 => return Err(Self::unexpected(&t, "a node name")),
                Tok::RBrace => {
                    if let Some(c) = first_comment {
                        return Err(Self::error(&c, ParseErrorKind::DanglingComment));
                    }
                    return Ok(dedup(branch, &repeated));
                }
                // A word that starts with an unclosed quote is a value, never a name: VyOS
                // prints names bare, and such a name would not read back.
                Tok::Ident(name) if name.starts_with(['"', '\'']) => {
                    return Err(Self::unexpected(&t, "a node name"));
                }
                Tok::Ident(name) => {
                    let name = name.clone();
                    *footer_start = if depth == 0 { None } else { *footer_start };
                    let comment = take_comment(&mut comments);
                    first_comment = None;
                    self.node(&mut branch, name, comment, &t, depth, &mut repeated)?;
                    if depth == 0 {
                        self.last_node_end = Some(self.tokens[self.pos.saturating_sub(1)].offset);
                    }
                }
                Tok::Str(_) | Tok::LBrace => return Err(Self::unexpected(&t, "a node name")),
            }
        }
    }

    /// The rest of a node whose name was just read.
    fn node(
        &mut self,
        branch: &mut Branch,
        name: String,
        comment: Option<String>,
        at: &Token,
        depth: usize,
        repeated: &mut HashSet<String>,
    ) -> Result<(), ParseError> {
        // `}` and the end of input end a valueless leaf and are left to the caller.
        let t = if matches!(self.peek().kind, Tok::RBrace | Tok::Eof) {
            self.peek().clone()
        } else {
            self.next()
        };
        match t.kind {
            Tok::LBrace => {
                if depth + 1 > MAX_DEPTH {
                    return Err(Self::error(&t, ParseErrorKind::TooDeep));
                }
                let mut inner = self.contents(depth + 1, &mut None)?;
                inner.comment = comment;
                insert(branch, name, Node::Branch(inner), at, repeated)
            }
            Tok::Ident(value) | Tok::Str(value) => {
                let end = self.peek().clone();
                match end.kind {
                    Tok::LBrace => {
                        self.next();
                        if depth + 1 > MAX_DEPTH {
                            return Err(Self::error(&end, ParseErrorKind::TooDeep));
                        }
                        let mut entry = self.contents(depth + 1, &mut None)?;
                        entry.comment = comment;
                        let mut entries = IndexMap::new();
                        entries.insert(value, entry);
                        insert(branch, name, Node::Tag(Tag { entries }), at, repeated)
                    }
                    Tok::Newline | Tok::Eof | Tok::RBrace => insert(
                        branch,
                        name,
                        Node::Leaf(Leaf {
                            comment,
                            values: vec![value],
                        }),
                        at,
                        repeated,
                    ),
                    _ => Err(Self::unexpected(&end, "end of line after a value")),
                }
            }
            Tok::Newline | Tok::Eof | Tok::RBrace => insert(
                branch,
                name,
                Node::Leaf(Leaf {
                    comment,
                    values: Vec::new(),
                }),
                at,
                repeated,
            ),
            Tok::Comment(_) | Tok::LineComment => {
                Err(Self::unexpected(&t, "a value, `{` or end of line"))
            }
        }
    }
}

/// Several comments in front of one node are kept together, one per line (VyOS keeps only the last).
fn take_comment(comments: &mut Vec<String>) -> Option<String> {
    let joined: Vec<String> = comments.drain(..).filter(|c| !c.is_empty()).collect();
    if joined.is_empty() {
        None
    } else {
        Some(joined.join("\n"))
    }
}

/// Adds a node read from the file: a repeated leaf adds its values, a repeated tag node its entries;
/// anything else repeated is an error, as in VyOS's parser.
fn insert(
    branch: &mut Branch,
    name: String,
    node: Node,
    at: &Token,
    repeated: &mut HashSet<String>,
) -> Result<(), ParseError> {
    let err = |kind| ParseError {
        line: at.line,
        column: at.column,
        kind,
    };
    match branch.children.entry(name) {
        MapEntry::Vacant(v) => {
            v.insert(node);
            Ok(())
        }
        MapEntry::Occupied(mut o) => {
            let name = o.key().clone();
            match (o.get_mut(), node) {
                (Node::Leaf(old), Node::Leaf(new)) => {
                    if !new.values.is_empty() {
                        repeated.insert(name.clone());
                    }
                    old.values.extend(new.values);
                    if old.comment.is_none() {
                        old.comment = new.comment;
                    }
                    Ok(())
                }
                (Node::Tag(old), Node::Tag(new)) => {
                    for (k, v) in new.entries {
                        if old.entries.contains_key(&k) {
                            return Err(err(ParseErrorKind::Duplicate {
                                name: format!("{name} {k}"),
                            }));
                        }
                        old.entries.insert(k, v);
                    }
                    Ok(())
                }
                (Node::Branch(_), Node::Branch(_)) => Err(err(ParseErrorKind::Duplicate { name })),
                _ => Err(err(ParseErrorKind::Conflict { name })),
            }
        }
    }
}

/// Drops repeated values of the leaves named in `repeated`, keeping the first of each.
fn dedup(mut branch: Branch, repeated: &HashSet<String>) -> Branch {
    for name in repeated {
        if let Some(Node::Leaf(leaf)) = branch.children.get_mut(name) {
            let keep: Vec<bool> = {
                let mut seen = HashSet::with_capacity(leaf.values.len());
                leaf.values
                    .iter()
                    .map(|v| seen.insert(v.as_str()))
                    .collect()
            };
            let mut keep = keep.into_iter();
            leaf.values.retain(|_| keep.next().unwrap_or(true));
        }
    }
    branch
}

/// Renders a tree in VyOS's `config.boot` form.
pub(crate) fn render(tree: &ConfigTree) -> String {
    let mut out = String::new();
    render_children(&mut out, &tree.root.children, 0);
    // The footer as read, byte for byte (its own line breaks included).
    if let Some(footer) = &tree.footer {
        out.push_str(footer);
    }
    out
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn comment(out: &mut String, c: &Option<String>, level: usize) {
    if let Some(c) = c {
        indent(out, level);
        // Comments that cannot be written (holding `*/`) are refused when they enter the tree.
        out.push_str("/* ");
        out.push_str(c);
        out.push_str(" */\n");
    }
}

fn render_children(out: &mut String, children: &IndexMap<String, Node>, level: usize) {
    for (name, node) in children {
        match node {
            Node::Leaf(leaf) => {
                comment(out, &leaf.comment, level);
                if leaf.values.is_empty() {
                    indent(out, level);
                    out.push_str(name);
                    out.push('\n');
                }
                for v in &leaf.values {
                    indent(out, level);
                    out.push_str(name);
                    out.push(' ');
                    out.push_str(&boot_value(v));
                    out.push('\n');
                }
            }
            Node::Branch(b) => {
                comment(out, &b.comment, level);
                indent(out, level);
                out.push_str(name);
                out.push_str(" {\n");
                render_children(out, &b.children, level + 1);
                indent(out, level);
                out.push_str("}\n");
            }
            // A tag node without entries has nothing to show; VyOS removes such nodes.
            Node::Tag(t) => {
                for (entry, b) in &t.entries {
                    comment(out, &b.comment, level);
                    indent(out, level);
                    out.push_str(name);
                    out.push(' ');
                    out.push_str(&boot_value(entry));
                    out.push_str(" {\n");
                    render_children(out, &b.children, level + 1);
                    indent(out, level);
                    out.push_str("}\n");
                }
            }
        }
    }
}
