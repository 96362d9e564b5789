//! Reading settings from environment variables through a lookup function.
//!
//! Every service crate's `ClientBuilder::from_env(lookup)` takes a [`Lookup`], so that tests pass
//! a closure over a map instead of changing the process environment, and `Client::from_env()`
//! passes [`process_env`]. One rule holds everywhere: a variable that is unset, empty or only
//! whitespace counts as unset, and values are trimmed.

use crate::Error;

/// Looks up one environment variable by name (`None` when unset).
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The process environment as a [`Lookup`]: the variable's value, trimmed, or `None` when it is
/// unset, empty, whitespace or not valid UTF-8.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().and_then(|value| non_empty(&value))
}

/// The value of `name` through `lookup`, trimmed; `None` when unset or blank.
pub fn get(lookup: Lookup<'_>, name: &str) -> Option<String> {
    lookup(name).and_then(|value| non_empty(&value))
}

/// The boolean value of `name` (`1`/`true`/`yes`/`on` or `0`/`false`/`no`/`off`, any case);
/// `None` when unset, an error naming the variable when it is something else.
pub fn get_bool(lookup: Lookup<'_>, name: &str) -> Result<Option<bool>, Error> {
    let Some(value) = get(lookup, name) else {
        return Ok(None);
    };
    match value.to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(Some(true)),
        "0" | "false" | "no" | "off" => Ok(Some(false)),
        _ => Err(Error::Config {
            reason: format!("{name} must be true or false, not `{value}`"),
        }),
    }
}

fn non_empty(value: &str) -> Option<String> {
    let trimmed = value.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_values_are_unset_and_values_are_trimmed() {
        let lookup = |name: &str| match name {
            "A" => Some("  x ".to_owned()),
            "B" => Some("   ".to_owned()),
            _ => None,
        };
        assert_eq!(get(&lookup, "A").as_deref(), Some("x"));
        assert_eq!(get(&lookup, "B"), None);
        assert_eq!(get(&lookup, "C"), None);
    }

    #[test]
    fn booleans_name_the_variable_when_invalid() {
        let lookup = |name: &str| (name == "X_INSECURE").then(|| "maybe".to_owned());
        let err = get_bool(&lookup, "X_INSECURE").unwrap_err().to_string();
        assert!(err.contains("X_INSECURE") && err.contains("maybe"), "{err}");
        let lookup = |_: &str| Some("Yes".to_owned());
        assert_eq!(get_bool(&lookup, "Y").unwrap(), Some(true));
    }
}
