//! Kubernetes resource quantities (`500m`, `64Gi`, `4`, `1e3`, `2E`, `1Ei`) as numbers, for
//! comparisons.
//!
//! The grammar is apimachinery's (`pkg/api/resource/quantity.go`): a signed number, then a
//! suffix that is binary SI (`Ki Mi Gi Ti Pi Ei`), decimal SI (`n u m "" k M G T P E`) or a
//! decimal exponent (`e` or `E` followed by a signed number). So `E` alone is exa (10^18) and `Ei`
//! exbi (2^60), while `1E3` is 1000.

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;

/// Parses a quantity into its value (cores, bytes, devices).
///
/// # Errors
/// A phrase naming what is wrong, for messages that name the field.
pub fn parse(q: &str) -> Result<f64, String> {
    let s = q.trim();
    if s.is_empty() {
        return Err("empty quantity".to_owned());
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '+' || c == '-'))
        .unwrap_or(s.len());
    let (num, suffix) = s.split_at(split);
    // An exponent is `e`/`E` followed by a signed number; `E` and `Ei` alone are suffixes.
    let exponent = suffix.strip_prefix(['e', 'E']).filter(|exp| {
        let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    let (num, suffix) = match exponent {
        Some(exp) => (format!("{num}e{exp}"), ""),
        None => (num.to_owned(), suffix),
    };
    let base: f64 = num
        .parse()
        .map_err(|_| format!("{q:?} is not a quantity"))?;
    let mult = match suffix {
        "" => 1.0,
        "n" => 1e-9,
        "u" => 1e-6,
        "m" => 1e-3,
        "k" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        "P" => 1e15,
        "E" => 1e18,
        "Ki" => 1024.0,
        "Mi" => 1024.0 * 1024.0,
        "Gi" => 1024.0 * 1024.0 * 1024.0,
        "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "Pi" => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        "Ei" => 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0 * 1024.0,
        other => return Err(format!("{q:?} has an unknown suffix {other:?}")),
    };
    Ok(base * mult)
}

/// [`parse`] on a `Quantity`.
///
/// # Errors
/// As [`parse`].
pub fn value(q: &Quantity) -> Result<f64, String> {
    parse(&q.0)
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn parses_the_forms_kubernetes_writes() {
        assert_eq!(parse("4"), Ok(4.0));
        assert_eq!(parse("500m"), Ok(0.5));
        assert_eq!(parse("64Gi"), Ok(64.0 * 1024.0 * 1024.0 * 1024.0));
        assert_eq!(parse("2k"), Ok(2000.0));
        assert_eq!(parse("1e3"), Ok(1000.0));
        assert_eq!(parse("1.5"), Ok(1.5));
        assert_eq!(parse("2E"), Ok(2e18));
        assert_eq!(parse("1Ei"), Ok(2f64.powi(60)));
        assert_eq!(parse("1E3"), Ok(1000.0));
        assert_eq!(parse("1e-3"), Ok(0.001));
        assert_eq!(parse("5Pi"), Ok(5.0 * 2f64.powi(50)));
        assert!(parse("1E+").is_err());
        assert!(parse("").is_err());
        assert_eq!(
            parse("4Qi"),
            Err("\"4Qi\" has an unknown suffix \"Qi\"".to_owned())
        );
        assert!(parse("abc").is_err());
    }
}
