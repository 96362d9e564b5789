//! The tokenizer shared by the `config.boot` and `set` readers.

use crate::error::{ParseError, ParseErrorKind};

/// One token and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Tok,
    pub(crate) line: usize,
    pub(crate) column: usize,
    /// Byte offset of the token's first character.
    pub(crate) offset: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A bare word.
    Ident(String),
    /// A single- or double-quoted string, unescaped.
    Str(String),
    LBrace,
    RBrace,
    Newline,
    /// A `/* … */` comment, its content untrimmed.
    Comment(String),
    /// A `//` comment up to the end of its line.
    LineComment,
    Eof,
}

impl Tok {
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

/// Whether a character ends a bare word (VyOS's lexer: `[^ ' ' '\t' '\n' '\r' '{' '}' '"' ''' ]+`).
pub(crate) fn ends_word(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '{' | '}' | '"' | '\'')
}

/// Splits `src` into tokens. With `braces == false` (the `set` form), `{` and `}` are ordinary word
/// characters and comments are not recognised.
pub(crate) fn tokenize(src: &str, braces: bool) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    let mut chars = src.char_indices().peekable();
    let (mut line, mut column) = (1usize, 1usize);
    // Advances over one character, keeping line and column.
    macro_rules! bump {
        () => {{
            let next = chars.next();
            if let Some((_, c)) = next {
                if c == '\n' {
                    line += 1;
                    column = 1;
                } else {
                    column += 1;
                }
            }
            next
        }};
    }
    while let Some(&(offset, c)) = chars.peek() {
        let (tline, tcol) = (line, column);
        let push = |out: &mut Vec<Token>, kind| {
            out.push(Token {
                kind,
                line: tline,
                column: tcol,
                offset,
            })
        };
        match c {
            ' ' | '\t' | '\r' => {
                bump!();
            }
            '\n' => {
                bump!();
                push(&mut out, Tok::Newline);
            }
            '{' if braces => {
                bump!();
                push(&mut out, Tok::LBrace);
            }
            '}' if braces => {
                bump!();
                push(&mut out, Tok::RBrace);
            }
            '"' | '\'' => {
                let quote = c;
                bump!();
                let mut buf = String::new();
                loop {
                    match bump!() {
                        None => {
                            return Err(ParseError {
                                line: tline,
                                column: tcol,
                                kind: ParseErrorKind::UnterminatedString,
                            });
                        }
                        Some((_, ch)) if ch == quote => break,
                        Some((_, '\\')) => match chars.peek().map(|&(_, n)| n) {
                            Some(n @ ('/' | '\\' | '\'' | '"')) => {
                                bump!();
                                buf.push(n);
                            }
                            Some(n @ ('b' | 'f' | 'n' | 'r' | 't')) => {
                                bump!();
                                buf.push(match n {
                                    'b' => '\u{8}',
                                    'f' => '\u{c}',
                                    'n' => '\n',
                                    'r' => '\r',
                                    _ => '\t',
                                });
                            }
                            // Unknown escapes are kept as written.
                            _ => buf.push('\\'),
                        },
                        Some((_, ch)) => buf.push(ch),
                    }
                }
                push(&mut out, Tok::Str(buf));
            }
            '/' if braces && src[offset..].starts_with("/*") => {
                bump!();
                bump!();
                let start = offset + 2;
                let Some(len) = src[start..].find("*/") else {
                    return Err(ParseError {
                        line: tline,
                        column: tcol,
                        kind: ParseErrorKind::UnterminatedComment,
                    });
                };
                let text = src[start..start + len].to_owned();
                while chars.peek().is_some_and(|&(o, _)| o < start + len + 2) {
                    bump!();
                }
                push(&mut out, Tok::Comment(text));
            }
            '/' if braces && src[offset..].starts_with("//") => {
                while chars.peek().is_some_and(|&(_, ch)| ch != '\n') {
                    bump!();
                }
                push(&mut out, Tok::LineComment);
            }
            _ => {
                let mut buf = String::new();
                while let Some(&(_, ch)) = chars.peek() {
                    if ends_word(ch) && (braces || !matches!(ch, '{' | '}')) {
                        break;
                    }
                    buf.push(ch);
                    bump!();
                }
                push(&mut out, Tok::Ident(buf));
            }
        }
    }
    out.push(Token {
        kind: Tok::Eof,
        line,
        column,
        offset: src.len(),
    });
    Ok(out)
}

/// Escapes a string for a double- or single-quoted rendering, as VyOS's `Util.escape_string` does for
/// `"`, `\` and control characters; a single quote is escaped too so that the `set` form reads back.
pub(crate) fn escape(s: &str, quote: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Whether a name can be written bare; otherwise it is quoted.
pub(crate) fn is_bare(s: &str) -> bool {
    !s.is_empty() && !s.chars().any(ends_word) && !s.starts_with("//") && !s.starts_with("/*")
}

/// A name written bare when it can be, quoted otherwise.
pub(crate) fn word(s: &str, quote: char) -> String {
    if is_bare(s) {
        s.to_owned()
    } else {
        escape(s, quote)
    }
}
