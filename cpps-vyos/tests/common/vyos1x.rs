//! The reader behind VyOS's `load` and `merge` (vyos1x-config `src/vyos1x_lexer.mll` and
//! `src/vyos1x_parser.mly`, used by vyos-1x `src/helpers/vyos-merge-config.py` and
//! `vyos-load-config.py` through `vyos.configtree.ConfigTree`), as far as the fake router needs:
//! `'` and `"` open strings, with `\` escapes decoded; `//` starts a comment wherever a token may
//! start; a newline ends a leaf only after a word or string; `name value {` is a tag entry.

use cpps_vyos::config::Command;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Open,
    Close,
    Newline,
}

/// The tokens of `text`, or the lexer's error.
fn tokens(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let (mut out, mut i, mut inside) = (Vec::new(), 0, false);
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' => i += 1,
            '\n' => {
                if inside {
                    out.push(Tok::Newline);
                }
                inside = false;
                i += 1;
            }
            '{' | '}' => {
                out.push(if c == '{' { Tok::Open } else { Tok::Close });
                inside = false;
                i += 1;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                let rest: String = chars[i + 2..].iter().collect();
                let end = rest.find("*/").ok_or("unterminated comment")?;
                i += 2 + rest[..end].chars().count() + 2;
            }
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
            }
            '"' | '\'' => {
                let mut s = String::new();
                i += 1;
                loop {
                    let Some(&d) = chars.get(i) else {
                        return Err(format!("Quoted string is missing the closing quote {c}"));
                    };
                    i += 1;
                    if d == c {
                        break;
                    }
                    if d == '\\' {
                        let e = *chars.get(i).ok_or("escape at the end")?;
                        i += 1;
                        s.push(match e {
                            'n' => '\n',
                            't' => '\t',
                            'r' => '\r',
                            'b' => '\u{8}',
                            'f' => '\u{c}',
                            '/' | '\\' | '\'' | '"' => e,
                            other => return Err(format!("unknown escape \\{other}")),
                        });
                    } else {
                        s.push(d);
                    }
                }
                out.push(Tok::Str(s));
                inside = true;
            }
            _ => {
                let start = i;
                while i < chars.len() && !" \t\n\r{}\"'".contains(chars[i]) {
                    i += 1;
                }
                out.push(Tok::Word(chars[start..i].iter().collect()));
                inside = true;
            }
        }
    }
    Ok(out)
}

/// The `set` commands of the configuration `text` (its footer is a comment), or the parser's
/// error.
pub fn parse(text: &str) -> Result<Vec<Command>, String> {
    let toks = tokens(text)?;
    let mut at = 0;
    let mut out = Vec::new();
    nodes(&toks, &mut at, &[], &mut out)?;
    if at != toks.len() {
        return Err("unexpected `}`".to_owned());
    }
    Ok(out)
}

fn nodes(
    toks: &[Tok],
    at: &mut usize,
    path: &[String],
    out: &mut Vec<Command>,
) -> Result<(), String> {
    while let Some(t) = toks.get(*at) {
        let name = match t {
            Tok::Close => return Ok(()),
            Tok::Newline => {
                *at += 1;
                continue;
            }
            Tok::Word(w) => w.clone(),
            other => return Err(format!("a node name expected, found {other:?}")),
        };
        *at += 1;
        let mut here = path.to_vec();
        here.push(name);
        match toks.get(*at) {
            Some(Tok::Open) => {
                *at += 1;
                let before = out.len();
                nodes(toks, at, &here, out)?;
                if out.len() == before {
                    out.push(Command::set(here.clone(), None));
                }
                expect_close(toks, at)?;
            }
            Some(Tok::Word(v) | Tok::Str(v)) => {
                let v = v.clone();
                *at += 1;
                if toks.get(*at) == Some(&Tok::Open) {
                    *at += 1;
                    here.push(v);
                    let before = out.len();
                    nodes(toks, at, &here, out)?;
                    if out.len() == before {
                        out.push(Command::set(here.clone(), None));
                    }
                    expect_close(toks, at)?;
                } else {
                    out.push(Command::set(here, Some(&v)));
                }
            }
            _ => out.push(Command::set(here, None)),
        }
    }
    Ok(())
}

fn expect_close(toks: &[Tok], at: &mut usize) -> Result<(), String> {
    if toks.get(*at) == Some(&Tok::Close) {
        *at += 1;
        Ok(())
    } else {
        Err("missing `}`".to_owned())
    }
}
