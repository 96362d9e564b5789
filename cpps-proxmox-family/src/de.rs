//! `deserialize_with` helpers for the loose typing of Proxmox answers.
//!
//! PVE is written in Perl: its JSON writes booleans as `0`/`1` (sometimes as strings), and
//! numbers sometimes as strings (`"maxmem": "2147483648"`, `"vmid": "100"`). PBS writes JSON
//! booleans, but the same helpers accept both. Use them on fields:
//!
//! ```
//! #[derive(serde::Deserialize)]
//! struct Node {
//!     #[serde(default, deserialize_with = "cpps_proxmox_family::de::opt_bool")]
//!     online: Option<bool>,
//!     #[serde(deserialize_with = "cpps_proxmox_family::de::integer")]
//!     maxmem: u64,
//! }
//! let node: Node = serde_json::from_str(r#"{"online": 1, "maxmem": "2048"}"#).unwrap();
//! assert_eq!(node.online, Some(true));
//! assert_eq!(node.maxmem, 2048);
//! ```
//!
//! Optional variants (`opt_*`) also accept `null`; put `#[serde(default)]` beside them so a
//! missing field is `None`.

use std::fmt;

use serde::Deserializer;
use serde::de::{self, Visitor};

/// A loosely typed scalar as Proxmox writes it.
enum Loose {
    Bool(bool),
    U(u64),
    I(i64),
    F(f64),
    S(String),
    Null,
}

struct LooseVisitor;

impl<'de> Visitor<'de> for LooseVisitor {
    type Value = Loose;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a boolean, a number or a string")
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Loose, E> {
        Ok(Loose::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Loose, E> {
        Ok(Loose::U(v))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Loose, E> {
        Ok(Loose::I(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Loose, E> {
        Ok(Loose::F(v))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Loose, E> {
        Ok(Loose::S(v.to_owned()))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Loose, E> {
        Ok(Loose::S(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Loose, E> {
        Ok(Loose::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Loose, D::Error> {
        d.deserialize_any(LooseVisitor)
    }
}

fn loose<'de, D: Deserializer<'de>>(d: D) -> Result<Loose, D::Error> {
    d.deserialize_any(LooseVisitor)
}

/// Parses a Perl-style boolean: `true`/`false`, `0`/`1`, or the strings `0`, `1`, `true`,
/// `false`, `yes`, `no`, `on`, `off` (as PVE's property strings accept them).
pub fn parse_bool(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

fn to_bool<E: de::Error>(value: Loose) -> Result<Option<bool>, E> {
    match value {
        Loose::Null => Ok(None),
        Loose::Bool(b) => Ok(Some(b)),
        Loose::U(0) | Loose::I(0) => Ok(Some(false)),
        Loose::U(1) | Loose::I(1) => Ok(Some(true)),
        Loose::F(0.0) => Ok(Some(false)),
        Loose::F(1.0) => Ok(Some(true)),
        Loose::S(s) => parse_bool(&s)
            .map(Some)
            .ok_or_else(|| E::custom(format!("expected a boolean (0/1), got `{s}`"))),
        Loose::U(_) | Loose::I(_) | Loose::F(_) => Err(E::custom("expected a boolean (0 or 1)")),
    }
}

/// A boolean written as `true`/`false`, `0`/`1` or a string of those.
pub fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    to_bool(loose(d)?)?.ok_or_else(|| de::Error::custom("expected a boolean, got null"))
}

/// Like [`bool()`], also accepting `null` (→ `None`).
pub fn opt_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    to_bool(loose(d)?)
}

/// An integer of type `N`: a JSON integer, a float without a fraction, `0`/`1` for a boolean,
/// or a string of digits; out of `N`'s range is an error that says so.
fn to_integer<N: TryFrom<i128>, E: de::Error>(value: Loose) -> Result<Option<N>, E> {
    let whole = match value {
        Loose::Null => return Ok(None),
        Loose::U(u) => i128::from(u),
        Loose::I(i) => i128::from(i),
        // Below 2^64 in magnitude, so the cast is exact for every whole value.
        Loose::F(f) if f.fract() == 0.0 && f.abs() < 1.8e19 => f as i128,
        Loose::F(f) => return Err(E::custom(format!("expected an integer, got {f}"))),
        Loose::Bool(b) => i128::from(b),
        Loose::S(s) => s
            .trim()
            .parse::<i128>()
            .map_err(|_| E::custom(format!("expected an integer, got `{s}`")))?,
    };
    N::try_from(whole).map(Some).map_err(|_| {
        if whole < 0 && N::try_from(-1).is_err() {
            E::custom(format!("expected a non-negative integer, got {whole}"))
        } else if whole < 0 {
            E::custom(format!("integer {whole} is too small"))
        } else {
            E::custom(format!("integer {whole} is too large"))
        }
    })
}

fn to_f64<E: de::Error>(value: Loose) -> Result<Option<f64>, E> {
    match value {
        Loose::Null => Ok(None),
        Loose::F(f) => Ok(Some(f)),
        Loose::U(u) => Ok(Some(u as f64)),
        Loose::I(i) => Ok(Some(i as f64)),
        Loose::Bool(b) => Ok(Some(f64::from(u8::from(b)))),
        Loose::S(s) => s
            .trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| E::custom(format!("expected a number, got `{s}`"))),
    }
}

/// An integer written as a number or a string (`"100"`), in the range of the field's type
/// (`u64`, `u32`, `i64`, …): out of it is an error that says so.
pub fn integer<'de, N: TryFrom<i128>, D: Deserializer<'de>>(d: D) -> Result<N, D::Error> {
    to_integer(loose(d)?)?.ok_or_else(|| de::Error::custom("expected an integer, got null"))
}

/// Like [`integer()`], also accepting `null`.
pub fn opt_integer<'de, N: TryFrom<i128>, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<N>, D::Error> {
    to_integer(loose(d)?)
}

/// A floating-point number written as a number or a string.
pub fn f64<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    to_f64(loose(d)?)?.ok_or_else(|| de::Error::custom("expected a number, got null"))
}

/// Like [`f64()`], also accepting `null`.
pub fn opt_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    to_f64(loose(d)?)
}

/// A string, also accepting a number or boolean (written as text) and `null` (→ `None`).
/// For fields such as `name` that PVE sometimes emits as a bare number.
pub fn opt_string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match loose(d)? {
        Loose::Null => None,
        Loose::S(s) => Some(s),
        Loose::U(u) => Some(u.to_string()),
        Loose::I(i) => Some(i.to_string()),
        Loose::F(f) => Some(f.to_string()),
        Loose::Bool(b) => Some(u8::from(b).to_string()),
    })
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    #[derive(Deserialize, Debug)]
    struct S {
        #[serde(deserialize_with = "super::bool")]
        b: bool,
        #[serde(default, deserialize_with = "super::opt_bool")]
        ob: Option<bool>,
        #[serde(deserialize_with = "super::integer")]
        n: u64,
        #[serde(default, deserialize_with = "super::opt_f64")]
        f: Option<f64>,
        #[serde(default, deserialize_with = "super::opt_string")]
        name: Option<String>,
    }

    #[test]
    fn perl_style_values_decode() {
        let s: S =
            serde_json::from_str(r#"{"b":1,"ob":"0","n":"42","f":"0.5","name":123}"#).unwrap();
        assert!(s.b);
        assert_eq!(s.ob, Some(false));
        assert_eq!(s.n, 42);
        assert_eq!(s.f, Some(0.5));
        assert_eq!(s.name.as_deref(), Some("123"));
        let s: S = serde_json::from_str(r#"{"b":true,"n":7}"#).unwrap();
        assert!(s.b);
        assert_eq!(s.ob, None);
        assert_eq!(s.f, None);
    }

    #[test]
    fn bad_values_are_errors_naming_the_value() {
        let err = serde_json::from_str::<S>(r#"{"b":2,"n":1}"#).unwrap_err();
        assert!(err.to_string().contains("boolean"), "{err}");
        let err = serde_json::from_str::<S>(r#"{"b":0,"n":"x1"}"#).unwrap_err();
        assert!(err.to_string().contains("`x1`"), "{err}");
    }

    #[derive(Deserialize, Debug)]
    struct Integers {
        #[serde(default, deserialize_with = "super::opt_integer")]
        u32: Option<u32>,
        #[serde(default, deserialize_with = "super::opt_integer")]
        u64: Option<u64>,
        #[serde(default, deserialize_with = "super::opt_integer")]
        i64: Option<i64>,
    }

    #[test]
    fn integers_are_read_in_their_range_or_refused_saying_why() {
        let read = |json: &str| serde_json::from_str::<Integers>(json).map_err(|e| e.to_string());
        let ok = |u32, u64, i64| (u32, u64, i64);
        for (json, expected) in [
            (
                r#"{"u32":"100","u64":2.0,"i64":-3}"#,
                ok(Some(100), Some(2), Some(-3)),
            ),
            (
                r#"{"u32":true,"u64":"18446744073709551615","i64":"-7"}"#,
                ok(Some(1), Some(u64::MAX), Some(-7)),
            ),
            (r#"{"u32":null,"i64":-2.0}"#, ok(None, None, Some(-2))),
        ] {
            let value = read(json).unwrap_or_else(|e| panic!("{json}: {e}"));
            assert_eq!((value.u32, value.u64, value.i64), expected, "{json}");
        }
        for (json, message) in [
            (r#"{"u32":4294967296}"#, "integer 4294967296 is too large"),
            (r#"{"u64":-1}"#, "expected a non-negative integer, got -1"),
            (r#"{"u64":"-5"}"#, "expected a non-negative integer, got -5"),
            (
                r#"{"i64":9223372036854775808}"#,
                "integer 9223372036854775808 is too large",
            ),
            (
                r#"{"i64":"-9223372036854775809"}"#,
                "integer -9223372036854775809 is too small",
            ),
            (
                r#"{"u64":"18446744073709551616"}"#,
                "integer 18446744073709551616 is too large",
            ),
            (r#"{"u32":-1}"#, "expected a non-negative integer, got -1"),
            (r#"{"u64":-2.0}"#, "expected a non-negative integer, got -2"),
            (
                r#"{"u64":1e20}"#,
                "expected an integer, got 100000000000000000000",
            ),
            (r#"{"u64":1.5}"#, "expected an integer, got 1.5"),
            (r#"{"i64":"ten"}"#, "expected an integer, got `ten`"),
        ] {
            let err = read(json).expect_err(json);
            assert!(err.contains(message), "{json}: {err}");
        }
    }
}
