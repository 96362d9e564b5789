//! Reading and writing the curly-brace form of showConfig text.
//!
//! The text is what VyOS prints (`cli-shell-api showConfig`, vyatta-cfg
//! `src/cnode/cnode-algorithm.cpp`; VyOS 1.4 and 1.5 save another dialect, read by the same
//! parser in its saved mode, see [`crate::config::saved`]): bare or double-quoted values, never escaped (see
//! [`crate::config::lex`] for the quoting rules); a newline ends a leaf; `name value {` opens a tag
//! entry; a `/* … */` comment on its own line belongs to the node after it; `//` lines are skipped;
//! a repeated leaf adds values; a repeated tag node adds entries. The version footer (everything
//! after the last node, when it holds a comment: `// vyos-config-version: …`) is kept byte for
//! byte. Rendering writes the same form: four spaces per level, a value quoted only where VyOS
//! quotes it, a tag entry as `name entry {`, the footer as read. So rendering a tree read from
//! VyOS's own text gives that text back, byte for byte.

use std::borrow::Cow;

use indexmap::IndexMap;

use crate::config::lex::{Lexer, Tok, Token, boot_value, decode_vyos1x_quoted, name_problem};
use crate::config::tree::{Branch, ConfigTree, Leaf, MAX_DEPTH, Node, Tag};
use crate::config::unique::{self, ValueHasher};
use crate::error::{ParseError, ParseErrorKind};

/// Reads a `config.boot` file.
///
/// The tokens are read one at a time and borrow from `src`; a value is copied once, into its
/// leaf, and hashed while it is in cache; repeats are dropped when the branch is complete (see
/// [`unique`]). So a value costs one allocation, and a leaf with many values reads in linear
/// time.
pub(crate) fn parse(src: &str) -> Result<ConfigTree, ParseError> {
    parse_with(src, false)
}

/// Reads a saved file whose backslashes were already doubled as VyOS's `ConfigTree` does (see
/// [`crate::config::saved`]): the same structure, with quoted values decoded as vyos1x-config's
/// lexer decodes them and bare values that lexer would split refused.
pub(crate) fn parse_saved(src: &str) -> Result<ConfigTree, ParseError> {
    parse_with(src, true)
}

fn parse_with(src: &str, saved: bool) -> Result<ConfigTree, ParseError> {
    let mut p = Parser {
        lex: Lexer::new(src, true),
        peeked: None,
        last_offset: 0,
        last_node_end: None,
        hasher: ValueHasher::default(),
        saved,
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

struct Parser<'a> {
    lex: Lexer<'a>,
    /// The token after the last one consumed, once something looked at it.
    peeked: Option<Token<'a>>,
    /// The byte offset of the last token consumed (the end of input never counts).
    last_offset: usize,
    /// The byte offset of the last token of the last top-level node read (values hold no line
    /// break, so the node ends on that token's line).
    last_node_end: Option<usize>,
    hasher: ValueHasher,
    /// Whether the text is a saved file (vyos1x-config's dialect) rather than showConfig text.
    saved: bool,
}

/// A branch being read: its nodes, and the hashes of its leaves' values.
struct Pending {
    branch: Branch,
    /// The hashes of the values read so far of each child, by its index in `branch.children`
    /// (empty for a child that is not a leaf).
    hashes: Vec<Vec<u64>>,
    /// The index of the last leaf that got a value: the next line usually names it again.
    last_leaf: Option<usize>,
}

impl Pending {
    fn new() -> Self {
        Pending {
            branch: Branch::default(),
            hashes: Vec::new(),
            last_leaf: None,
        }
    }

    /// The index of the child `name`, if there is one.
    fn index_of(&self, name: &str) -> Option<usize> {
        self.last_leaf
            .filter(|&i| {
                self.branch
                    .children
                    .get_index(i)
                    .is_some_and(|(k, _)| k == name)
            })
            .or_else(|| self.branch.children.get_index_of(name))
    }

    /// Adds a leaf line read from the file: a repeated leaf adds its value.
    fn leaf(
        &mut self,
        name: &str,
        value: Option<&str>,
        comment: Option<String>,
        at: &Token<'_>,
        hasher: &ValueHasher,
    ) -> Result<(), ParseError> {
        let i = self.index_of(name).unwrap_or_else(|| {
            let leaf = Leaf {
                comment: None,
                values: Vec::new(),
            };
            self.push(name, Node::Leaf(leaf))
        });
        let Some((_, Node::Leaf(leaf))) = self.branch.children.get_index_mut(i) else {
            return Err(error(
                at,
                ParseErrorKind::Conflict {
                    name: name.to_owned(),
                },
            ));
        };
        if leaf.comment.is_none() {
            leaf.comment = comment;
        }
        if let Some(value) = value {
            leaf.values.push(value.to_owned());
            self.hashes[i].push(hasher.hash(value));
        }
        self.last_leaf = Some(i);
        Ok(())
    }

    /// Adds a plain node or a tag node read from the file: a repeated tag node adds its entries;
    /// anything else repeated is an error, as in VyOS's parser.
    fn node(&mut self, name: &str, node: Node, at: &Token<'_>) -> Result<(), ParseError> {
        let Some(i) = self.index_of(name) else {
            self.push(name, node);
            return Ok(());
        };
        let name = name.to_owned();
        match (&mut self.branch.children[i], node) {
            (Node::Tag(old), Node::Tag(new)) => {
                for (k, v) in new.entries {
                    if old.entries.contains_key(&k) {
                        return Err(error(
                            at,
                            ParseErrorKind::Duplicate {
                                name: format!("{name} {k}"),
                            },
                        ));
                    }
                    old.entries.insert(k, v);
                }
                Ok(())
            }
            (Node::Branch(_), Node::Branch(_)) => {
                Err(error(at, ParseErrorKind::Duplicate { name }))
            }
            _ => Err(error(at, ParseErrorKind::Conflict { name })),
        }
    }

    /// Appends a new child; its index.
    fn push(&mut self, name: &str, node: Node) -> usize {
        let (i, _) = self.branch.children.insert_full(name.to_owned(), node);
        self.hashes.push(Vec::new());
        i
    }

    /// The branch, each leaf's values once (the first of repeats is kept).
    fn finish(mut self) -> Branch {
        for (i, hashes) in self.hashes.iter().enumerate() {
            if let Some((_, Node::Leaf(leaf))) = self.branch.children.get_index_mut(i) {
                unique::keep_first(&mut leaf.values, hashes);
            }
        }
        self.branch
    }
}

fn error(t: &Token<'_>, kind: ParseErrorKind) -> ParseError {
    ParseError {
        line: t.line,
        column: t.column,
        kind,
    }
}

fn unexpected_what(t: &Token<'_>, found: &str, expected: &'static str) -> ParseError {
    error(
        t,
        ParseErrorKind::Unexpected {
            found: found.to_owned(),
            expected,
        },
    )
}

fn unexpected(t: &Token<'_>, expected: &'static str) -> ParseError {
    error(
        t,
        ParseErrorKind::Unexpected {
            found: t.kind.describe(),
            expected,
        },
    )
}

impl<'a> Parser<'a> {
    /// A value or tag value token as the dialect reads it: as written in showConfig text; in a
    /// saved file, quoted values decoded and bare words that vyos1x-config's lexer would split
    /// refused (the value itself is never echoed: it may be a secret).
    fn value(&self, t: &Token<'a>) -> Result<Cow<'a, str>, ParseError> {
        match t.kind {
            Tok::Str(raw) if self.saved => decode_vyos1x_quoted(raw).ok_or_else(|| {
                unexpected_what(
                    t,
                    "a `\\` escape vyos1x-config's lexer does not know",
                    "one of \\/ \\\\ \\b \\f \\n \\r \\t \\' \\\" in a quoted value",
                )
            }),
            Tok::Ident(word)
                if self.saved
                    && (word.contains(['"', '\''])
                        || word.starts_with("//")
                        || word.starts_with("/*")) =>
            {
                Err(unexpected_what(
                    t,
                    "a bare value holding a quote or starting like a comment",
                    "a value VyOS's reader (vyos1x-config) reads as one word",
                ))
            }
            Tok::Ident(v) | Tok::Str(v) => Ok(Cow::Borrowed(v)),
            _ => Err(unexpected(t, "a value")),
        }
    }

    fn peek(&mut self) -> Result<Token<'a>, ParseError> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.lex.next_token()?;
        self.peeked = Some(t);
        Ok(t)
    }

    /// The next token; the end of input again and again once it is reached.
    fn next(&mut self) -> Result<Token<'a>, ParseError> {
        let t = match self.peeked.take() {
            Some(t) => t,
            None => self.lex.next_token()?,
        };
        if t.kind != Tok::Eof {
            self.last_offset = t.offset;
        }
        Ok(t)
    }

    /// The nodes up to the closing `}` (consumed) or, at depth 0, the end of the input.
    fn contents(
        &mut self,
        depth: usize,
        footer_start: &mut Option<usize>,
    ) -> Result<Branch, ParseError> {
        let mut pending = Pending::new();
        let mut comments: Vec<&str> = Vec::new();
        let mut first_comment: Option<Token<'a>> = None;
        loop {
            let t = self.next()?;
            match t.kind {
                Tok::Newline => {}
                Tok::LineComment | Tok::Comment(_) => {
                    if depth == 0 && footer_start.is_none() {
                        *footer_start = Some(t.offset);
                    }
                    if let Tok::Comment(text) = t.kind {
                        if first_comment.is_none() {
                            first_comment = Some(t);
                        }
                        comments.push(text.trim());
                    }
                }
                Tok::Eof if depth == 0 => return Ok(pending.finish()),
                Tok::Eof => return Err(error(&t, ParseErrorKind::MissingCloseBrace)),
                Tok::RBrace if depth == 0 => return Err(unexpected(&t, "a node name")),
                Tok::RBrace => {
                    if let Some(c) = first_comment {
                        return Err(error(&c, ParseErrorKind::DanglingComment));
                    }
                    return Ok(pending.finish());
                }
                // A word that starts with an unclosed quote is a value, never a name: VyOS
                // prints names bare, and such a name would not read back.
                Tok::Ident(name) if name.starts_with(['"', '\'']) => {
                    return Err(unexpected(&t, "a node name"));
                }
                // Only names the `set` form can write are read, so every tree read here renders
                // to `set` text that reads back (the `set` reader refuses the same names).
                Tok::Ident(name) if name_problem(name).is_some() => {
                    let reason = name_problem(name).unwrap_or_default();
                    return Err(error(
                        &t,
                        ParseErrorKind::Apply(format!(
                            "node name {name:?} cannot be written in a VyOS configuration: {reason}"
                        )),
                    ));
                }
                Tok::Ident(name) => {
                    *footer_start = if depth == 0 { None } else { *footer_start };
                    let comment = take_comment(&mut comments);
                    first_comment = None;
                    self.node(&mut pending, name, comment, &t, depth)?;
                    if depth == 0 {
                        self.last_node_end = Some(self.last_offset);
                    }
                }
                Tok::Str(_) | Tok::LBrace => return Err(unexpected(&t, "a node name")),
            }
        }
    }

    /// The rest of a node whose name was just read.
    fn node(
        &mut self,
        pending: &mut Pending,
        name: &str,
        comment: Option<String>,
        at: &Token<'_>,
        depth: usize,
    ) -> Result<(), ParseError> {
        // `}` and the end of input end a valueless leaf and are left to the caller.
        let t = self.peek()?;
        let t = if matches!(t.kind, Tok::RBrace | Tok::Eof) {
            t
        } else {
            self.next()?
        };
        match t.kind {
            Tok::LBrace => {
                if depth + 1 > MAX_DEPTH {
                    return Err(error(&t, ParseErrorKind::TooDeep));
                }
                let mut inner = self.contents(depth + 1, &mut None)?;
                inner.comment = comment;
                pending.node(name, Node::Branch(inner), at)
            }
            Tok::Ident(_) | Tok::Str(_) => {
                let value = self.value(&t)?;
                let value = value.as_ref();
                let end = self.peek()?;
                match end.kind {
                    Tok::LBrace => {
                        self.next()?;
                        if depth + 1 > MAX_DEPTH {
                            return Err(error(&end, ParseErrorKind::TooDeep));
                        }
                        let mut entry = self.contents(depth + 1, &mut None)?;
                        entry.comment = comment;
                        let mut entries = IndexMap::new();
                        entries.insert(value.to_owned(), entry);
                        pending.node(name, Node::Tag(Tag { entries }), at)
                    }
                    Tok::Newline | Tok::Eof | Tok::RBrace => {
                        pending.leaf(name, Some(value), comment, at, &self.hasher)
                    }
                    _ => Err(unexpected(&end, "end of line after a value")),
                }
            }
            Tok::Newline | Tok::Eof | Tok::RBrace => {
                pending.leaf(name, None, comment, at, &self.hasher)
            }
            Tok::Comment(_) | Tok::LineComment => {
                Err(unexpected(&t, "a value, `{` or end of line"))
            }
        }
    }
}

/// Several comments in front of one node are kept together, one per line (VyOS keeps only the last).
fn take_comment(comments: &mut Vec<&str>) -> Option<String> {
    if comments.is_empty() {
        return None;
    }
    let joined: Vec<&str> = comments.drain(..).filter(|c| !c.is_empty()).collect();
    if joined.is_empty() {
        None
    } else {
        Some(joined.join("\n"))
    }
}

/// Renders a tree in VyOS's `config.boot` form.
pub(crate) fn render(tree: &ConfigTree) -> String {
    let mut out = String::new();
    render_children(&mut out, &tree.root.children, 0, &boot_value, &boot_value);
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

/// Renders a tree's nodes (no footer) in the dialect of vyos1x-config, the parser behind VyOS's
/// `load` and `merge` (`src/vyos1x_lexer.mll`): `'` and `"` both open strings there and `\`
/// escapes inside them, and `//` starts a comment even after a name, so every value is written
/// in double quotes with `\` and `"` escaped, as vyos1x-config's own renderer does (`src/config_tree.ml` `render_values`, `Util.escape_string`); a tag value bare, as it
/// does (`render_tag_node_child`), unless that lexer would not read it back as one word.
pub(crate) fn render_vyos1x(tree: &ConfigTree) -> String {
    let mut out = String::new();
    render_children(&mut out, &tree.root.children, 0, &vyos1x_value, &vyos1x_tag);
    out
}

/// A value in vyos1x-config's double quotes.
fn vyos1x_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        if matches!(c, '"' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// A tag value for vyos1x-config: bare when its lexer reads it as one identifier (no blank,
/// brace or quote, and not the start of a comment), else quoted.
fn vyos1x_tag(value: &str) -> String {
    let bare = !value.is_empty()
        && !value.starts_with("//")
        && !value.starts_with("/*")
        && !value
            .chars()
            .any(|c| matches!(c, ' ' | '\t' | '\n' | '\r' | '{' | '}' | '"' | '\''));
    if bare {
        value.to_owned()
    } else {
        vyos1x_value(value)
    }
}

fn render_children(
    out: &mut String,
    children: &IndexMap<String, Node>,
    level: usize,
    value: &dyn Fn(&str) -> String,
    tag: &dyn Fn(&str) -> String,
) {
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
                    out.push_str(&value(v));
                    out.push('\n');
                }
            }
            Node::Branch(b) => {
                comment(out, &b.comment, level);
                indent(out, level);
                out.push_str(name);
                out.push_str(" {\n");
                render_children(out, &b.children, level + 1, value, tag);
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
                    out.push_str(&tag(entry));
                    out.push_str(" {\n");
                    render_children(out, &b.children, level + 1, value, tag);
                    indent(out, level);
                    out.push_str("}\n");
                }
            }
        }
    }
}
