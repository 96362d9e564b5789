//! Which printer wrote a `showConfig` text, told from its values.
//!
//! Three printers answer `/retrieve` `showConfig` `raw`: vyatta-cfg on the legacy backend
//! (`src/cnode/cnode-algorithm.cpp`: each line after the diff column of `_diff_print_indent`,
//! `PFX_DIFF_NONE` " " in the API's session or `PFX_DIFF_NULL` "" for one node against itself),
//! and on the vyconf backend the older vyconf (`src/session.ml` `show_config`:
//! vyos1x-config `render_at_level`, from the first column) or the newer one (`CD.diff_show`:
//! `src/diff_show.ml` `annotate_rendered` puts `" "` before every unchanged line). So the column
//! does not tell; the values do. vyos1x-config `src/config_tree.ml` `render_values` puts every
//! leaf value in `"`, escaped by `src/util.ml` `escape_string`, and prints tag values bare
//! (`render_tag_node_child`). vyatta-cfg's `_print_value_str` quotes a value only when it is
//! empty or holds a blank or one of `*}{;`, quotes a tag value under the same test
//! (`_diff_show_other`), and never escapes.
//!
//! So a bare leaf value, a quoted tag value, or a quoted value holding a `"` or `\` that
//! `escape_string` would not have written, is vyatta-cfg's; a quoted leaf value that vyatta-cfg
//! would have printed bare is vyos1x-config's. The first such value decides. (A vyatta-cfg value
//! that starts and ends with `"` and needs no quotes, such as `"abc"`, is printed bare yet reads
//! as a quoted `abc`; the parser reads it so in either case.)

use crate::config::ShownBy;
use crate::config::lex::{Lexer, Tok, Token};

/// What the values of a text say: the printer, and for an undecided text the first quoted value
/// the two dialects read differently (one holding `\` or `"`), if any.
pub(crate) struct Verdict<'a> {
    pub(crate) by: ShownBy,
    pub(crate) differs_at: Option<Token<'a>>,
}

/// Reads the values of `src` until one tells the printer (see the module documentation). A text
/// the lexer cannot read is left undecided at that point: the parser reports the same error in
/// either dialect.
pub(crate) fn printer_of(src: &str) -> Verdict<'_> {
    let mut lex = Lexer::new(src, true);
    let mut line: Vec<Token<'_>> = Vec::with_capacity(4);
    let mut differs_at = None;
    while let Ok(t) = lex.next_token() {
        match t.kind {
            Tok::Comment(_) | Tok::LineComment => {}
            Tok::Newline | Tok::Eof | Tok::RBrace => {
                if let Some(by) = judge_line(&line, &mut differs_at) {
                    return Verdict {
                        by,
                        differs_at: None,
                    };
                }
                line.clear();
                if t.kind == Tok::Eof {
                    break;
                }
            }
            _ => line.push(t),
        }
    }
    Verdict {
        by: ShownBy::Undecided,
        differs_at,
    }
}

/// The printer one line's value tells, if it does: a leaf line is `name value`, a tag entry's
/// `name value {`. A quoted leaf value that would read differently is kept in `differs_at`.
fn judge_line<'a>(line: &[Token<'a>], differs_at: &mut Option<Token<'a>>) -> Option<ShownBy> {
    match line {
        [name, value] if matches!(name.kind, Tok::Ident(_)) => match value.kind {
            Tok::Ident(_) => Some(ShownBy::VyattaCfg),
            Tok::Str(raw) => {
                let by = judge_quoted(raw);
                if by.is_none() && raw.contains(['\\', '"']) && differs_at.is_none() {
                    *differs_at = Some(*value);
                }
                by
            }
            _ => None,
        },
        [_, value, brace] if brace.kind == Tok::LBrace => {
            matches!(value.kind, Tok::Str(_)).then_some(ShownBy::VyattaCfg)
        }
        _ => None,
    }
}

/// The printer a quoted leaf value's content (as written) tells, if it does.
fn judge_quoted(raw: &str) -> Option<ShownBy> {
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            // `escape_string` writes `"` as `\"`; only vyatta-cfg leaves it bare.
            '"' => return Some(ShownBy::VyattaCfg),
            // `escape_string` writes only `\" \\ \n \t \r \b` and `\DDD`.
            '\\' => match chars.next() {
                Some('"' | '\\' | 'n' | 't' | 'r' | 'b' | '0'..='9') => {}
                _ => return Some(ShownBy::VyattaCfg),
            },
            _ => {}
        }
    }
    let vyatta_quotes = raw.is_empty()
        || raw.contains(['*', '}', '{', ';', '\t', '\n', '\u{b}', '\u{c}', '\r', ' ']);
    (!vyatta_quotes).then_some(ShownBy::Vyos1x)
}
