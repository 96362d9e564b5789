//! Reading and writing the curly-brace `config.boot` form.
//!
//! The grammar is VyOS's own (`vyos1x-config`: `vyos1x_lexer.mll`, `vyos1x_parser.mly`): bare, double-
//! or single-quoted values; a newline ends a leaf; `name value {` opens a tag entry; a `/* … */`
//! comment belongs to the node after it; `//` lines are skipped; a repeated leaf adds values; a
//! repeated tag node adds entries. The version footer (the comments after the last node) is kept
//! verbatim. Rendering follows VyOS's `Config_tree.Renderer.render_config`: four spaces per level,
//! every value double-quoted, a tag entry as `name entry {`.

use indexmap::IndexMap;
use indexmap::map::Entry as MapEntry;

use crate::config::lex::{Tok, Token, escape, tokenize, word};
use crate::config::tree::{Branch, ConfigTree, Leaf, Node, Tag};
use crate::error::{ParseError, ParseErrorKind};

/// Nesting deeper than this is refused (real configurations stay below 15).
const MAX_DEPTH: usize = 64;

/// Reads a `config.boot` file.
pub(crate) fn parse(src: &str) -> Result<ConfigTree, ParseError> {
    let tokens = tokenize(src, true)?;
    let mut p = Parser { tokens, pos: 0 };
    let mut footer_start = None;
    let root = p.contents(0, &mut footer_start)?;
    let footer = footer_start.map(|start: usize| src[start..].trim_end().to_owned());
    Ok(ConfigTree { root, footer })
}

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> &Token {
        // The token list always ends with Eof, and `pos` never passes it.
        &self.tokens[self.pos.min(self.tokens.len() - 1)]
    }

    fn next(&mut self) -> Token {
        let t = self.peek().clone();
        if self.pos < self.tokens.len() - 1 {
            self.pos += 1;
        }
        t
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
        let mut comments: Vec<String> = Vec::new();
        let mut first_comment: Option<Token> = None;
        loop {
            let t = self.next();
            match t.kind.clone() {
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
                Tok::Eof if depth == 0 => return Ok(branch),
                Tok::Eof => return Err(Self::error(&t, ParseErrorKind::MissingCloseBrace)),
                Tok::RBrace if depth == 0 => return Err(Self::unexpected(&t, "a node name")),
                Tok::RBrace => {
                    if let Some(c) = first_comment {
                        return Err(Self::error(&c, ParseErrorKind::DanglingComment));
                    }
                    return Ok(branch);
                }
                Tok::Ident(name) => {
                    *footer_start = if depth == 0 { None } else { *footer_start };
                    let comment = take_comment(&mut comments);
                    first_comment = None;
                    self.node(&mut branch, name, comment, &t, depth)?;
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
    ) -> Result<(), ParseError> {
        let t = self.peek().clone();
        if !matches!(t.kind, Tok::RBrace | Tok::Eof) {
            // `}` and the end of input end a valueless leaf and are left to the caller.
            self.next();
        }
        match t.kind {
            Tok::LBrace => {
                if depth + 1 > MAX_DEPTH {
                    return Err(Self::error(&t, ParseErrorKind::TooDeep));
                }
                let mut inner = self.contents(depth + 1, &mut None)?;
                inner.comment = comment;
                insert(branch, name, Node::Branch(inner), at)
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
                        insert(branch, name, Node::Tag(Tag { entries }), at)
                    }
                    Tok::Newline | Tok::Eof | Tok::RBrace => insert(
                        branch,
                        name,
                        Node::Leaf(Leaf {
                            comment,
                            values: vec![value],
                        }),
                        at,
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
fn insert(branch: &mut Branch, name: String, node: Node, at: &Token) -> Result<(), ParseError> {
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
                    for v in new.values {
                        if !old.values.contains(&v) {
                            old.values.push(v);
                        }
                    }
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

/// Renders a tree in VyOS's `config.boot` form.
pub(crate) fn render(tree: &ConfigTree) -> String {
    let mut out = String::new();
    render_children(&mut out, &tree.root.children, 0);
    if let Some(footer) = &tree.footer {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(footer);
        out.push('\n');
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
        // A comment cannot hold its own terminator; that one sequence is broken up.
        out.push_str("/* ");
        out.push_str(&c.replace("*/", "* /"));
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
                    out.push_str(&word(name, '"'));
                    out.push('\n');
                }
                for v in &leaf.values {
                    indent(out, level);
                    out.push_str(&word(name, '"'));
                    out.push(' ');
                    out.push_str(&escape(v, '"'));
                    out.push('\n');
                }
            }
            Node::Branch(b) => {
                comment(out, &b.comment, level);
                indent(out, level);
                out.push_str(&word(name, '"'));
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
                    out.push_str(&word(name, '"'));
                    out.push(' ');
                    out.push_str(&word(entry, '"'));
                    out.push_str(" {\n");
                    render_children(out, &b.children, level + 1);
                    indent(out, level);
                    out.push_str("}\n");
                }
            }
        }
    }
}
