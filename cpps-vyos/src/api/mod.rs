//! The API calls, one module per endpoint family.

pub mod config_file;
pub mod configure;
pub mod info;
pub mod openapi;
pub mod ops;
pub mod retrieve;

/// A path of words as the owned strings the request bodies hold.
pub(crate) fn words(path: &[&str]) -> Vec<String> {
    path.iter().map(|s| (*s).to_owned()).collect()
}
