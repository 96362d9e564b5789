//! The tokenizer shared by the `config.boot` and `set` readers, and the quoting rules of both
//! text forms.
//!
//! VyOS prints a configuration with `cli-shell-api showConfig` (vyatta-cfg
//! `src/cnode/cnode-algorithm.cpp`, `_print_value_str` and `_diff_show_other`): a value is put in
//! double quotes only when it is empty or contains white space or one of `*`, `}`, `{`, `;`, and
//! nothing is ever escaped. So `description Bob's-uplink` and `description 'uplink'` are printed
//! bare, a quoted value can hold a `"`, and a backslash is just a backslash. Its config lexer
//! (`src/cparse/cparse_lex.l`) opens a quoted value only at `"`: `'uplink'` is a value with its
//! quotes. This reader follows exactly that: only `"` quotes, and a quoted value
//! ends at the first quote after which the line holds only blanks (a leaf) or blanks, `{` and
//! blanks (a tag entry; `}` too, for hand-written files), so an inner `"` never ends it; no escape sequence is decoded.
//!
//! While a configuration session holds uncommitted changes, showConfig marks lines in its first
//! column with `+` (added), `-` (deleted) or `>` (changed) (`PFX_DIFF_ADD`, `PFX_DIFF_DEL`,
//! `PFX_DIFF_UPD` in the same file); unchanged lines then start with a blank. Such marks are
//! refused with [`ParseErrorKind::UncommittedChange`], never read as part of a name.

use std::borrow::Cow;

use crate::error::{ParseError, ParseErrorKind};

/// One token and where it starts; its text borrows from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token<'a> {
    pub(crate) kind: Tok<'a>,
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// Byte offset of the token's first character.
    pub(crate) offset: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    /// A bare word.
    Ident(&'a str),
    /// A quoted string (`"` in `config.boot`, either quote in a `set` line), its content as
    /// written.
    Str(&'a str),
    LBrace,
    RBrace,
    Newline,
    /// A `/* … */` comment, its content untrimmed.
    Comment(&'a str),
    /// A `//` comment up to the end of its line.
    LineComment,
    Eof,
}

impl Tok<'_> {
    pub(crate) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Str(s) => format!("quoted string \"{s}\""),
            Tok::LBrace => "`{`".to_owned(),
            Tok::RBrace => "`}`".to_owned(),
            Tok::Newline => "end of line".to_owned(),
            Tok::Comment(_) => "comment".to_owned(),
            Tok::LineComment => "`//` comment".to_owned(),
            Tok::Eof => "end of input".to_owned(),
        }
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// The smallest index `k` of `line` such that `line[k..]` is blanks (with `allow_brace`: or
/// blanks, one `{` or `}`, blanks). Every later index has the same property (the pattern is
/// closed under suffixes).
fn tail_start(line: &[u8], allow_brace: bool) -> usize {
    let mut k = line.len();
    while k > 0 && is_blank(line[k - 1]) {
        k -= 1;
    }
    if allow_brace && k > 0 && matches!(line[k - 1], b'{' | b'}') {
        k -= 1;
        while k > 0 && is_blank(line[k - 1]) {
            k -= 1;
        }
    }
    k
}

/// Splits `src` into tokens, all at once (see [`Lexer`]); the last is [`Tok::Eof`].
pub(crate) fn tokenize(src: &str, braces: bool) -> Result<Vec<Token<'_>>, ParseError> {
    let mut lexer = Lexer::new(src, braces);
    let mut out = Vec::new();
    loop {
        let t = lexer.next_token()?;
        out.push(t);
        if t.kind == Tok::Eof {
            return Ok(out);
        }
    }
}

/// Reads `src` one token at a time, each borrowing its text from `src` (nothing is copied, so a
/// reader holds one token, not a list of the whole input).
///
/// With `braces == true` (the `config.boot` form): `{`, `}` and comments are tokens, a quoted
/// value ends as described in the module documentation, and a mark of uncommitted changes in the
/// first column is an error. With `braces == false` (one `set` line): `{` and `}` are ordinary
/// word characters, there are no comments, and a quoted word ends at the first matching quote
/// followed by a blank or the end of the line.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    braces: bool,
    i: usize,
    line: usize,
    /// In characters, so multi-byte characters advance by one.
    column: usize,
    line_start: usize,
    /// Where the current line ends (its `\n` or the end of input), and its tail (see
    /// `tail_start`), computed once per line.
    line_end: usize,
    tail: usize,
    /// Whether the token before, on this line, is a word: then `//` and `/*` start a value (VyOS
    /// prints `description //x` bare), elsewhere a comment.
    after_word: bool,
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str, braces: bool) -> Self {
        let line_end = memchr(src.as_bytes(), b'\n', 0);
        Lexer {
            src,
            braces,
            i: 0,
            line: 1,
            column: 1,
            line_start: 0,
            line_end,
            tail: tail_start(&src.as_bytes()[..line_end], braces),
            after_word: false,
        }
    }

    /// The line now being read starts at `line_start`.
    fn start_line(&mut self) {
        let bytes = self.src.as_bytes();
        self.line_end = memchr(bytes, b'\n', self.line_start);
        self.tail =
            tail_start(&bytes[self.line_start..self.line_end], self.braces) + self.line_start;
    }

    /// Moves past `src[i..to]`, which holds no line break.
    fn advance_to(&mut self, to: usize) {
        let s = &self.src[self.i..to];
        self.column += if s.is_ascii() {
            s.len()
        } else {
            s.chars().count()
        };
        self.i = to;
    }

    /// Moves past the line break at `i`, to the start of the next line.
    fn newline(&mut self) {
        self.i += 1;
        self.line += 1;
        self.column = 1;
        self.line_start = self.i;
        self.start_line();
        self.after_word = false;
    }

    /// Reads the `/* … */` comment at `i` (which may span lines) and returns its content.
    fn block_comment(&mut self, tline: usize, tcol: usize) -> Result<&'a str, ParseError> {
        let (src, i) = (self.src, self.i);
        let start = i + 2;
        let Some(len) = src[start..].find("*/") else {
            return Err(ParseError {
                line: tline,
                column: tcol,
                kind: ParseErrorKind::UnterminatedComment,
            });
        };
        let end = start + len + 2;
        for (k, ch) in src[i..end].char_indices() {
            if ch == '\n' {
                self.line += 1;
                self.column = 1;
                self.line_start = i + k + 1;
            } else {
                self.column += 1;
            }
        }
        self.i = end;
        if self.line_start > i {
            self.start_line();
        }
        Ok(&src[start..start + len])
    }

    /// Reads the value that opens with the quote `q` at `i`; where it ends is described in
    /// [`Lexer`].
    fn quoted(&mut self, q: u8) -> Tok<'a> {
        let (src, i, line_end) = (self.src, self.i, self.line_end);
        let bytes = src.as_bytes();
        let close = if self.braces {
            // The first quote at or after the tail's start - 1 closes the value.
            let from = (i + 1).max(self.tail.saturating_sub(1));
            memchr_in(bytes, q, from, line_end)
        } else {
            let mut j = i + 1;
            loop {
                let Some(k) = memchr_in(bytes, q, j, line_end) else {
                    break None;
                };
                if k + 1 == line_end || is_blank(bytes[k + 1]) {
                    break Some(k);
                }
                j = k + 1;
            }
        };
        match close {
            Some(k) => {
                self.advance_to(k + 1);
                Tok::Str(&src[i + 1..k])
            }
            // No quote closes it: the quote is the first character of a bare word, as VyOS
            // prints a value such as `"abc` (no blank, nothing to quote).
            None => {
                let end = word_end(bytes, i, self.braces);
                self.advance_to(end);
                Tok::Ident(&src[i..end])
            }
        }
    }

    /// The next token; [`Tok::Eof`] at the end, again on every later call.
    pub(crate) fn next_token(&mut self) -> Result<Token<'a>, ParseError> {
        let src = self.src;
        let bytes = src.as_bytes();
        while self.i < bytes.len() {
            let i = self.i;
            let c = bytes[i];
            let (tline, tcol) = (self.line, self.column);
            let token = |kind| Token {
                kind,
                line: tline,
                column: tcol,
                offset: i,
            };
            if self.braces && i == self.line_start && matches!(c, b'+' | b'-' | b'>') {
                return Err(ParseError {
                    line: tline,
                    column: tcol,
                    kind: ParseErrorKind::UncommittedChange { mark: c as char },
                });
            }
            let kind = match c {
                b'\n' => {
                    self.newline();
                    return Ok(token(Tok::Newline));
                }
                b' ' | b'\t' | b'\r' => {
                    self.i += 1;
                    self.column += 1;
                    continue;
                }
                b'{' | b'}' if self.braces => {
                    self.i += 1;
                    self.column += 1;
                    self.after_word = false;
                    return Ok(token(if c == b'{' { Tok::LBrace } else { Tok::RBrace }));
                }
                b'/' if self.braces && !self.after_word && bytes[i..].starts_with(b"/*") => {
                    let text = self.block_comment(tline, tcol)?;
                    // A node may follow its comment on the same line.
                    return Ok(token(Tok::Comment(text)));
                }
                b'/' if self.braces && !self.after_word && bytes[i..].starts_with(b"//") => {
                    self.advance_to(self.line_end);
                    return Ok(token(Tok::LineComment));
                }
                // In `config.boot` only `"` opens a quoted value (vyatta-cfg
                // `src/cparse/cparse_lex.l`, `<sValue>\"`): VyOS prints `'uplink'` bare, quotes
                // included. A `set` line takes either quote.
                b'"' | b'\'' if c == b'"' || !self.braces => self.quoted(c),
                _ => {
                    let end = word_end(bytes, i, self.braces);
                    self.advance_to(end);
                    Tok::Ident(&src[i..end])
                }
            };
            self.after_word = true;
            return Ok(token(kind));
        }
        Ok(Token {
            kind: Tok::Eof,
            line: self.line,
            column: self.column,
            offset: src.len(),
        })
    }
}

/// The end of a bare word starting at `i`: the next blank, newline or (in the `config.boot`
/// form) brace.
fn word_end(bytes: &[u8], i: usize, braces: bool) -> usize {
    let mut j = i + 1;
    while j < bytes.len() {
        let b = bytes[j];
        if matches!(b, b' ' | b'\t' | b'\r' | b'\n') || (braces && matches!(b, b'{' | b'}')) {
            break;
        }
        j += 1;
    }
    j
}

/// The index of the first `b` at or after `from`, or `bytes.len()`.
fn memchr(bytes: &[u8], b: u8, from: usize) -> usize {
    memchr_in(bytes, b, from, bytes.len()).unwrap_or(bytes.len())
}

/// The index of the first `b` in `bytes[from..to]`.
fn memchr_in(bytes: &[u8], b: u8, from: usize, to: usize) -> Option<usize> {
    if from >= to {
        return None;
    }
    bytes[from..to]
        .iter()
        .position(|&x| x == b)
        .map(|p| p + from)
}

/// Characters after which VyOS quotes a value (`strcspn(vstr, "*}{;\011\012\013\014\015 ")` in
/// `_print_value_str`).
fn vyos_quotes(c: char) -> bool {
    matches!(
        c,
        '*' | '}' | '{' | ';' | '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | ' '
    )
}

/// Why `value` cannot be written as a value or tag value in either text form, if it cannot.
pub(crate) fn value_problem(value: &str) -> Option<&'static str> {
    if value.contains('\n') {
        Some("a line break cannot be written in a value")
    } else if set_quote(value).is_none() {
        Some(
            "it holds both a ' and a \" followed by a blank or at its end, so no quote can enclose it in a `set` command",
        )
    } else {
        None
    }
}

/// Why `name` cannot be a node name, if it cannot: VyOS prints names bare, so a name must read
/// back as one bare word in both forms.
pub(crate) fn name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a node name cannot be empty")
    } else if name
        .chars()
        .any(|c| vyos_quotes(c) || c == '"' || c == '\'')
    {
        Some("a node name cannot hold blanks, quotes or any of * } { ;")
    } else if name.starts_with(['+', '-', '>']) {
        Some("a node name cannot start with +, - or > (VyOS's marks of uncommitted changes)")
    } else if name.starts_with("//") || name.starts_with("/*") {
        Some("a node name cannot start like a comment")
    } else {
        None
    }
}

/// Why `text` cannot be a comment, if it cannot.
pub(crate) fn comment_problem(text: &str) -> Option<&'static str> {
    if text.contains("*/") {
        Some("a comment cannot hold */")
    } else if set_quote(text).is_none() || text.contains('\n') {
        Some("a comment must fit in one quoted word of a `comment` command")
    } else {
        None
    }
}

/// Whether a value is written in quotes in `config.boot`: as VyOS does, plus a value that starts
/// with `"` (which would otherwise read back as a quoted string). A leading `'` is printed bare,
/// as VyOS prints it, since only `"` opens a quoted value there.
pub(crate) fn boot_needs_quotes(value: &str) -> bool {
    value.is_empty() || value.chars().any(vyos_quotes) || value.starts_with('"')
}

/// A value or tag value as `config.boot` writes it.
pub(crate) fn boot_value(value: &str) -> String {
    if boot_needs_quotes(value) {
        format!("\"{value}\"")
    } else {
        value.to_owned()
    }
}

/// The quote that encloses `value` in a `set` command so that it reads back: `'` (VyOS's
/// choice) unless the value holds a `'` followed by a blank or at its end, or a control
/// character (which VyOS's escaping cannot carry there, see [`set_value`]); then `"` unless the
/// value holds a `"` followed by a blank or at its end; `None` when neither can.
fn set_quote(value: &str) -> Option<char> {
    let fits = |q: char| {
        let b = value.as_bytes();
        !b.iter()
            .enumerate()
            .any(|(i, &x)| x == q as u8 && (i + 1 == b.len() || is_blank(b[i + 1])))
    };
    if fits('\'') && !value.chars().any(char::is_control) {
        Some('\'')
    } else if fits('"') {
        Some('"')
    } else {
        None
    }
}

/// A value in a `set` command: always quoted, as VyOS's `show configuration commands` does.
/// In `'` it is written as VyOS writes it (vyos1x-config `src/util.ml` `escape_string`, then
/// vyos-1x `python/vyos/configtree.py` `unescape_backslash`, see [`decode_set_value`]); in `"`
/// (cpps's own form for a value VyOS would print ambiguously) as it is. Values were checked
/// with [`value_problem`] when they entered the tree.
pub(crate) fn set_value(value: &str) -> String {
    match set_quote(value) {
        Some('"') => format!("\"{value}\""),
        _ => format!("'{}'", vyos_set_escape(value)),
    }
}

/// `escape_string` of a value without control characters (`\` and `"` get a backslash), with
/// `unescape_backslash` applied as it applies to a printed `set` line: its pattern
/// `'[^']*[\\][^']*'\n` matches from the value's last `'` (inner, or the opening one) to the
/// closing quote and line feed, so after that `'` every `\\` is put back to `\`.
fn vyos_set_escape(value: &str) -> String {
    let tail_from = value.rfind('\'').map_or(0, |k| k + 1);
    let mut out = String::with_capacity(value.len() + 2);
    for (i, c) in value.char_indices() {
        match c {
            '\\' if i < tail_from => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            _ => out.push(c),
        }
    }
    out
}

/// The value of a `'`-quoted `set` word as VyOS printed it (see [`vyos_set_escape`]): before its
/// last inner `'`, `escape_string` is undone (`\\`, `\"`, `\n`, `\t`, `\r`, `\b`); after it,
/// where `unescape_backslash` made every backslash single, only the `\` that `escape_string` put
/// before each `"` is dropped. A `\` that VyOS would not have written before that character is
/// kept, so hand-written text reads as written.
pub(crate) fn decode_set_value(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    let tail_from = raw.rfind('\'').map_or(0, |k| k + 1);
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = if i >= tail_from {
            (next == Some('"')).then_some('"')
        } else {
            match next {
                Some('\\') => Some('\\'),
                Some('"') => Some('"'),
                Some('n') => Some('\n'),
                Some('t') => Some('\t'),
                Some('r') => Some('\r'),
                Some('b') => Some('\u{8}'),
                _ => None,
            }
        };
        match decoded {
            Some(d) => {
                out.push(d);
                chars.next();
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether [`set_word`] quotes `word`.
pub(crate) fn set_needs_quotes(word: &str) -> bool {
    boot_needs_quotes(word) || word.starts_with('\'')
}

/// A path word in a `set` command: bare when `config.boot` would write it bare and it does not
/// start with a quote (a `set` line takes both quotes), quoted otherwise, as it is (VyOS prints
/// path words bare and unescaped, and the reader reads a quoted path word as written).
pub(crate) fn set_word(word: &str) -> String {
    if set_needs_quotes(word) {
        set_text(word)
    } else {
        word.to_owned()
    }
}

/// A path word or a comment's text in quotes, as it is: VyOS prints a comment unescaped
/// (vyos1x-config `render_commands`, `comment %s '%s'`), and the reader reads both as written.
pub(crate) fn set_text(text: &str) -> String {
    let q = set_quote(text).unwrap_or('\'');
    format!("{q}{text}{q}")
}

/// Decodes a quoted string's content as vyos1x-config's `src/vyos1x_lexer.mll` `read_double_quoted_string`
/// does; `None` for an escape it does not know (the lexer fails there).
pub(crate) fn decode_vyos1x_quoted(raw: &str) -> Option<Cow<'_, str>> {
    if !raw.contains('\\') {
        return Some(Cow::Borrowed(raw));
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            '/' => '/',
            '\\' => '\\',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            '\'' => '\'',
            '"' => '"',
            _ => return None,
        });
    }
    Some(Cow::Owned(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vyos1x-config `src/vyos1x_lexer.mll` `read_double_quoted_string`: nine escapes, nothing
    /// else.
    #[test]
    fn only_the_lexer_escapes_decode() {
        assert_eq!(
            decode_vyos1x_quoted("a\\\"b\\\\c\\n\\/").as_deref(),
            Some("a\"b\\c\n/")
        );
        assert_eq!(decode_vyos1x_quoted("a\\x"), None);
        assert_eq!(decode_vyos1x_quoted("a\\"), None);
    }
}
