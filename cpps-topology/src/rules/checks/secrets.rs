//! The secret detector of SEC-001: credentials written anywhere in a text, prose included.
//!
//! [`find_secrets`] reads a text once, word by word (a word is a run of non-whitespace bytes),
//! and reports each value that looks like a credential:
//!
//! * a known token prefix followed by a token body: `PVEAPIToken=` / `PBSAPIToken=` headers,
//!   GitHub (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), GitLab (`glpat-`), Slack
//!   (`xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`), AWS access key ids (`AKIA…`, `ASIA…`), age secret keys
//!   (`AGE-SECRET-KEY-1…`), a `Bearer` token;
//! * a PEM private key (`-----BEGIN … PRIVATE KEY-----`) and a JSON Web Token (`eyJ….….…`);
//! * the secret half of a Proxmox API token (`user@realm!name=` + a UUID) and a password in a URL
//!   (`scheme://user:password@host`);
//! * a credential word with its value: `password=…` or `token:…` in one word, `senha: …`,
//!   `token: …`, and phrases such as "the password is …" / "a senha é …";
//! * a high-entropy token: 20+ characters mixing upper case, lower case and digits with at least
//!   3.5 bits of entropy per character, or 32+ hex digits (a 40-digit git commit id excepted).
//!
//! A value that is a reference (`${VAR}`, `$VAR`, `env:…`, `sops:…`, `vault:…`, `ENC[…]`,
//! `<placeholder>`) or a mask (`******`) is not a secret. Values after a credential word separated
//! by spaces (prose) must look like a password, not a word ("the token is rotated" is not a
//! finding): six characters or more with a digit, a symbol, or both cases.
//!
//! The detector never returns the value itself, only where it is and a masked form that keeps
//! the non-secret prefix (`ghp_****`). Its cost is linear in the text: each word is looked at a
//! bounded number of times, and lookbehind and lookahead are bounded.

/// A credential found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SecretHit {
    /// Byte offset of the secret value in the text.
    pub(crate) start: usize,
    /// Byte length of the secret value.
    pub(crate) len: usize,
    /// What it looks like (`a GitHub token`).
    pub(crate) what: &'static str,
    /// The value masked: its non-secret prefix, then `****`.
    pub(crate) masked: String,
}

/// Known prefixes: (prefix, minimum body length, body class, what).
const PREFIXES: &[(&str, usize, BodyClass, &str)] = &[
    (
        "PVEAPIToken=",
        8,
        BodyClass::NonSpace,
        "a Proxmox API token header",
    ),
    (
        "PBSAPIToken=",
        8,
        BodyClass::NonSpace,
        "a PBS API token header",
    ),
    ("github_pat_", 20, BodyClass::Word, "a GitHub token"),
    ("ghp_", 30, BodyClass::Alnum, "a GitHub token"),
    ("gho_", 30, BodyClass::Alnum, "a GitHub token"),
    ("ghu_", 30, BodyClass::Alnum, "a GitHub token"),
    ("ghs_", 30, BodyClass::Alnum, "a GitHub token"),
    ("ghr_", 30, BodyClass::Alnum, "a GitHub token"),
    ("glpat-", 20, BodyClass::WordDash, "a GitLab token"),
    ("xoxb-", 10, BodyClass::AlnumDash, "a Slack token"),
    ("xoxp-", 10, BodyClass::AlnumDash, "a Slack token"),
    ("xoxa-", 10, BodyClass::AlnumDash, "a Slack token"),
    ("xoxr-", 10, BodyClass::AlnumDash, "a Slack token"),
    (
        "AGE-SECRET-KEY-1",
        20,
        BodyClass::UpperAlnum,
        "an age secret key",
    ),
];

/// Words that name a credential when followed by `:`/`=` and a value.
const CREDENTIAL_WORDS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "senha",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "private_key",
    "client_secret",
    "access_key",
    "secret_key",
];

/// Words that name a password in a phrase ("the password is …", "a senha é …").
const PHRASE_WORDS: &[&str] = &["password", "passwd", "passphrase", "senha"];

/// Verbs and signs between a password word and its value in a phrase.
const PHRASE_LINKS: &[&str] = &["is", "was", "é", "era", "=", ":", "-"];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BodyClass {
    /// Anything but whitespace and quotes.
    NonSpace,
    /// `[A-Za-z0-9]`.
    Alnum,
    /// `[A-Za-z0-9_]`.
    Word,
    /// `[A-Za-z0-9_-]`.
    WordDash,
    /// `[A-Za-z0-9-]`.
    AlnumDash,
    /// `[A-Z0-9]`.
    UpperAlnum,
}

impl BodyClass {
    fn accepts(self, b: u8) -> bool {
        match self {
            Self::NonSpace => !matches!(b, b'"' | b'\'' | b'`' | b',' | b';'),
            Self::Alnum => b.is_ascii_alphanumeric(),
            Self::Word => b.is_ascii_alphanumeric() || b == b'_',
            Self::WordDash => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Self::AlnumDash => b.is_ascii_alphanumeric() || b == b'-',
            Self::UpperAlnum => b.is_ascii_uppercase() || b.is_ascii_digit(),
        }
    }
}

/// Bytes trimmed from both ends of a word before it is judged.
fn is_wrapping(b: u8) -> bool {
    matches!(
        b,
        b'"' | b'\''
            | b'`'
            | b'('
            | b')'
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'<'
            | b'>'
            | b','
            | b';'
            | b'.'
            | b'!'
            | b'?'
    )
}

/// `(start, end)` of the word without its wrapping punctuation.
fn trimmed(text: &[u8], start: usize, end: usize) -> (usize, usize) {
    let (mut s, mut e) = (start, end);
    while s < e && is_wrapping(text[s]) {
        s += 1;
    }
    while e > s && is_wrapping(text[e - 1]) {
        e -= 1;
    }
    (s, e)
}

/// Whether a value is a reference to a secret kept elsewhere, or a mask.
fn is_reference_or_mask(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    value.starts_with('$')
        || value.starts_with('<')
        || value.starts_with('#')
        || value.starts_with('%')
        || value.starts_with("{{")
        || value.starts_with("ENC[")
        || ["env:", "sops:", "vault:", "file:", "secret:", "ref:"]
            .iter()
            .any(|p| lower.starts_with(p))
        || value
            .bytes()
            .next()
            .is_some_and(|first| value.bytes().all(|b| b == first))
}

/// A value that looks like a password rather than a word: six characters or more, with a digit,
/// a symbol, or both cases.
fn looks_like_password(value: &str) -> bool {
    if value.chars().count() < 6 || is_reference_or_mask(value) {
        return false;
    }
    let digit = value.bytes().any(|b| b.is_ascii_digit());
    let upper = value.bytes().any(|b| b.is_ascii_uppercase());
    let lower = value.bytes().any(|b| b.is_ascii_lowercase());
    let symbol = value
        .bytes()
        .any(|b| b.is_ascii_punctuation() && !matches!(b, b'-' | b'\'' | b'.'));
    digit || symbol || (upper && lower)
}

/// Whether `key` (lower case) names a credential: one of the words, or ends with `_word`/`-word`.
fn is_credential_key(key: &str) -> bool {
    if key.is_empty() || key.len() > 48 {
        return false;
    }
    CREDENTIAL_WORDS.iter().any(|w| {
        key == *w
            || key.strip_suffix(w).is_some_and(|head| {
                head.ends_with('_') || head.ends_with('-') || head.ends_with('.')
            })
    })
}

/// Shannon entropy in bits per byte of an ASCII run.
fn entropy(run: &[u8]) -> f64 {
    let mut counts = [0u32; 128];
    for &b in run {
        counts[usize::from(b & 0x7f)] += 1;
    }
    let n = run.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'_' | b'-')
}

/// A high-entropy run inside `word` (`[A-Za-z0-9+/=_-]` runs), as `(start, end)` in the word.
fn high_entropy_run(word: &[u8]) -> Option<(usize, usize)> {
    let mut i = 0;
    while i < word.len() {
        if !is_token_byte(word[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < word.len() && is_token_byte(word[i]) {
            i += 1;
        }
        let mut run = &word[start..i];
        while let [head @ .., b'='] = run {
            run = head;
        }
        if run.len() < 20 {
            continue;
        }
        let hex = run.iter().all(u8::is_ascii_hexdigit);
        let digit = run.iter().any(u8::is_ascii_digit);
        let upper = run.iter().any(u8::is_ascii_uppercase);
        let lower = run.iter().any(u8::is_ascii_lowercase);
        let found = if hex {
            // 40 hex digits is a git commit id, which is no secret.
            run.len() >= 32 && run.len() != 40 && digit && (upper || lower) && entropy(run) >= 3.0
        } else {
            digit && upper && lower && entropy(run) >= 3.5
        };
        if found {
            return Some((start, start + run.len()));
        }
    }
    None
}

/// `…=xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`: the UUID after `=` (the secret half of a PVE token),
/// as `(start, end)` in the word.
fn pve_token_value(word: &[u8]) -> Option<(usize, usize)> {
    if !word.contains(&b'!') {
        return None;
    }
    word.iter().enumerate().find_map(|(i, &b)| {
        let tail = word.get(i + 1..)?;
        (b == b'='
            && tail.len() >= 36
            && tail[..36].iter().enumerate().all(|(j, b)| match j {
                8 | 13 | 18 | 23 => *b == b'-',
                _ => b.is_ascii_hexdigit(),
            }))
        .then_some((i + 1, i + 37))
    })
}

/// `eyJ<10+>.<10+>.<10+>` (base64url segments): a JSON Web Token, as `(start, end)` in the word.
fn jwt(word: &[u8]) -> Option<(usize, usize)> {
    let at = word.windows(3).position(|w| w == b"eyJ")?;
    let seg = |from: usize| {
        let n = word[from..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-'))
            .count();
        (n >= 10).then_some(from + n)
    };
    let a = seg(at)?;
    (word.get(a) == Some(&b'.')).then_some(())?;
    let b = seg(a + 1)?;
    (word.get(b) == Some(&b'.')).then_some(())?;
    let c = seg(b + 1)?;
    Some((at, c))
}

/// `scheme://user:password@host`: the password, as `(start, end)` in the word.
fn url_password(word: &[u8]) -> Option<(usize, usize)> {
    let scheme = word.windows(3).position(|w| w == b"://")? + 3;
    let authority_end = word[scheme..]
        .iter()
        .position(|&b| b == b'/')
        .map_or(word.len(), |p| scheme + p);
    let authority = &word[scheme..authority_end];
    let at = authority.iter().rposition(|&b| b == b'@')?;
    let colon = authority[..at].iter().position(|&b| b == b':')?;
    let (start, end) = (scheme + colon + 1, scheme + at);
    let value = std::str::from_utf8(&word[start..end]).ok()?;
    (!value.is_empty() && !is_reference_or_mask(value)).then_some((start, end))
}

/// A known prefix with a long enough body: `(prefix start, body end, prefix, what)`.
fn known_prefix(word: &[u8]) -> Option<(usize, usize, &'static str, &'static str)> {
    for &(prefix, min, class, what) in PREFIXES {
        let p = prefix.as_bytes();
        let Some(at) = word.windows(p.len()).position(|w| w == p) else {
            continue;
        };
        let body = &word[at + p.len()..];
        let n = body.iter().take_while(|&&b| class.accepts(b)).count();
        let references = matches!(body.first(), Some(b'$' | b'{' | b'<'));
        if n >= min && !references {
            return Some((at, at + p.len() + n, prefix, what));
        }
    }
    // AWS access key ids: AKIA or ASIA and 16 upper-case letters or digits, alone.
    for prefix in ["AKIA", "ASIA"] {
        let Some(at) = word.windows(4).position(|w| w == prefix.as_bytes()) else {
            continue;
        };
        let body = &word[at + 4..];
        let n = body
            .iter()
            .take_while(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
            .count();
        let before_ok = at == 0 || !word[at - 1].is_ascii_alphanumeric();
        if n == 16 && before_ok {
            return Some((at, at + 20, prefix, "an AWS access key id"));
        }
    }
    None
}

/// Calls `hit` for every credential in `text`, in order of position. Linear in `text.len()`.
pub(crate) fn find_secrets(text: &str, mut hit: impl FnMut(SecretHit)) {
    let bytes = text.as_bytes();
    // The two previous words (trimmed, lower case when short), for phrases and `key: value`.
    let mut prev: [Option<(usize, usize)>; 2] = [None, None];
    let mut i = 0;
    let mut masked_until = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let ws = i;
        while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        let we = i;
        let (s, e) = trimmed(bytes, ws, we);
        let before = prev;
        prev = [before[1], Some((s, e))];
        if s >= e || s < masked_until {
            continue;
        }
        if let Some(found) = judge_word(text, (s, e), before) {
            masked_until = found.start + found.len;
            hit(found);
        }
    }
}

fn masked(prefix: &str) -> String {
    format!("{prefix}****")
}

fn lower_word(text: &str, (s, e): (usize, usize)) -> Option<String> {
    (e - s <= 48).then(|| text[s..e].to_lowercase())
}

/// Judges one word, given the two words before it.
fn judge_word(
    text: &str,
    (s, e): (usize, usize),
    before: [Option<(usize, usize)>; 2],
) -> Option<SecretHit> {
    let bytes = text.as_bytes();
    let word = &bytes[s..e];
    let make = |start: usize, end: usize, what: &'static str, prefix: &str| SecretHit {
        start: s + start,
        len: end - start,
        what,
        masked: masked(prefix),
    };
    // A PEM private key: the marker spans several words; look a bounded distance ahead.
    if word.starts_with(b"-----BEGIN") {
        let window_end = (e + 64).min(bytes.len());
        let window = &bytes[s..window_end];
        let marker = b"PRIVATE KEY-----";
        if let Some(p) = window.windows(marker.len()).position(|w| w == marker) {
            return Some(SecretHit {
                start: s,
                len: p + marker.len(),
                what: "a private key",
                masked: "-----BEGIN **** PRIVATE KEY-----".to_owned(),
            });
        }
    }
    if let Some((start, end, prefix, what)) = known_prefix(word) {
        return Some(SecretHit {
            start: s + start,
            len: end - start,
            what,
            masked: masked(prefix),
        });
    }
    if let Some((start, end)) = jwt(word) {
        return Some(make(start, end, "a JSON Web Token", "eyJ"));
    }
    if let Some((start, end)) = pve_token_value(word) {
        return Some(make(
            start,
            end,
            "a Proxmox API token (user@realm!name=uuid)",
            "",
        ));
    }
    if let Some((start, end)) = url_password(word) {
        return Some(make(start, end, "a password in a URL", ""));
    }
    // `key=value` or `key:value` in one word.
    if let Some(sep) = word.iter().position(|&b| b == b'=' || b == b':') {
        let key = text[s..s + sep]
            .trim_start_matches(['-', '_'])
            .to_lowercase();
        let value = &text[s + sep + 1..e];
        if is_credential_key(&key) && value.chars().count() >= 6 && !is_reference_or_mask(value) {
            return Some(make(
                sep + 1,
                e - s,
                "a credential value",
                &text[s..=s + sep],
            ));
        }
    }
    let value = &text[s..e];
    // `key: value` / `key = value` (the key word ends with the sign, or the sign is a word).
    if let Some((ps, pe)) = before[1] {
        let key = lower_word(text, (ps, pe)).unwrap_or_default();
        let named = key
            .strip_suffix(':')
            .or_else(|| key.strip_suffix('='))
            .is_some_and(is_credential_key);
        if named && looks_like_password(value) {
            return Some(make(0, e - s, "a credential value", ""));
        }
        // `the password is …`, `a senha é …`, `password = …`.
        if let Some((qs, qe)) = before[0] {
            let word0 = lower_word(text, (qs, qe)).unwrap_or_default();
            if PHRASE_WORDS.contains(&word0.as_str())
                && PHRASE_LINKS.contains(&key.as_str())
                && looks_like_password(value)
            {
                return Some(make(0, e - s, "a password", ""));
            }
        }
        if key == "bearer" {
            let token = word.iter().all(|b| {
                b.is_ascii_alphanumeric()
                    || matches!(b, b'.' | b'_' | b'~' | b'+' | b'/' | b'=' | b'-')
            });
            if token && word.len() >= 16 && word.iter().any(u8::is_ascii_digit) {
                return Some(make(0, e - s, "a bearer token", ""));
            }
        }
    }
    if let Some((start, end)) = high_entropy_run(word) {
        return Some(make(start, end, "a high-entropy token", ""));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(text: &str) -> Vec<SecretHit> {
        let mut out = Vec::new();
        find_secrets(text, |h| out.push(h));
        out
    }

    /// The kind of every hit, checking that no message part repeats the value.
    fn whats(text: &str) -> Vec<&'static str> {
        hits(text)
            .into_iter()
            .map(|h| {
                let value = &text[h.start..h.start + h.len];
                assert!(
                    !h.masked.contains(value) || value.len() < 4,
                    "{value} in {}",
                    h.masked
                );
                h.what
            })
            .collect()
    }

    #[test]
    fn known_prefixes_are_found_and_masked() {
        let t = "PVEAPIToken=ci@pve!check=4f1c1a6e-2b1d-4c55-9a7e-0a3c5b7d9e11";
        let h = &hits(t)[0];
        assert_eq!(h.what, "a Proxmox API token header");
        assert_eq!(h.masked, "PVEAPIToken=****");
        assert_eq!((h.start, h.len), (0, t.len()));
        for (text, what) in [
            (
                "use ghp_1234567890abcdefghijABCDEFGHIJ123456 here",
                "a GitHub token",
            ),
            ("glpat-abcdefghij1234567890", "a GitLab token"),
            ("slack xoxb-1234567890-abcdef", "a Slack token"),
            ("xoxp-1234567890-abcdef", "a Slack token"),
            ("key AKIAIOSFODNN7EXAMPLE", "an AWS access key id"),
            (
                "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQ",
                "an age secret key",
            ),
            (
                "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNz",
                "a private key",
            ),
            ("-----BEGIN RSA PRIVATE KEY-----", "a private key"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "a JSON Web Token",
            ),
            (
                "root@pam!ci=4f1c1a6e-2b1d-4c55-9a7e-0a3c5b7d9e11",
                "a Proxmox API token (user@realm!name=uuid)",
            ),
            (
                "https://admin:S3cret99@pbs.example:8007/",
                "a password in a URL",
            ),
            ("Authorization: Bearer abc123def456ghi789", "a bearer token"),
        ] {
            assert_eq!(whats(text), [what], "{text}");
        }
    }

    #[test]
    fn credential_words_and_phrases_are_found() {
        for (text, what) in [
            ("password=hunter", "a credential value"),
            ("DB_PASSWORD=topsecret", "a credential value"),
            ("token: Zx81!kkQ", "a credential value"),
            ("senha: Abc123xyz", "a credential value"),
            ("the root password is Hunter22 for now", "a password"),
            ("a senha é abc123!x", "a password"),
            ("k3s-b2 r9Tq2ZxLw8vNp3KdY7mHf5Gs", "a high-entropy token"),
            (
                "sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
                "a high-entropy token",
            ),
        ] {
            assert_eq!(whats(text), [what], "{text}");
        }
    }

    #[test]
    fn prose_references_and_masks_are_not_secrets() {
        for text in [
            "the Proxmox token is read from PVE_TOKEN; token: ${PVE_TOKEN}",
            "The DNS-01 token is a credential.",
            "Token Cloudflare via secrets management; the token is rotated monthly",
            "password: ******** (kept in SOPS)",
            "senha: <from vault>",
            "api_key=$API_KEY",
            "GitHub tokens start with ghp_ and Slack ones with xoxb-",
            "commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b renumbered SP",
            "000_be2f9e2558fad79c.txt and 004_29bfc39840ca04c0.txt",
            "VyOS SP renumerado pra 192.168.10.0/23 (PR #8), VIP 10.10.20.1",
            "https://vllm.colabh.org and service.cilium.io/global: \"true\"",
            "-----END RSA PRIVATE KEY----- was removed",
            "pve-labri-unnamed-1 linstor-nvme-01 k3s-gpu-franca SOPS + age",
        ] {
            assert_eq!(whats(text), Vec::<&str>::new(), "{text}");
        }
    }

    #[test]
    fn the_documents_hold_no_secret() {
        for doc in [
            include_str!("../../../docs/seeds/004_29bfc39840ca04c0.txt"),
            include_str!("../../../docs/seeds/000_be2f9e2558fad79c.txt"),
            include_str!("../../../topology/cpps.yaml"),
        ] {
            let found: Vec<String> = hits(doc)
                .iter()
                .map(|h| format!("{} at {}", h.what, h.start))
                .collect();
            assert!(found.is_empty(), "{found:?}");
        }
    }

    #[test]
    fn a_long_line_of_tokens_is_read_once() {
        // 200k words in one line: linear work, one hit per secret-looking word, in order.
        let word = "password=Zx81kkQ9 ";
        let text = word.repeat(200_000);
        let all = hits(&text);
        assert_eq!(all.len(), 200_000);
        assert!(all.windows(2).all(|w| w[0].start < w[1].start));
    }
}
