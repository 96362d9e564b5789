//! Kubernetes resource quantities (`500m`, `64Gi`, `4`, `1e3`) as numbers, for comparisons.

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
    let (num, suffix) = if let Some(exp) = suffix.strip_prefix(['e', 'E']) {
        (format!("{num}e{exp}"), "")
    } else {
        (num.to_owned(), suffix)
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
        assert!(parse("").is_err());
        assert_eq!(
            parse("4Qi"),
            Err("\"4Qi\" has an unknown suffix \"Qi\"".to_owned())
        );
        assert!(parse("abc").is_err());
    }
}
