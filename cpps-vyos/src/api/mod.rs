//! The API calls, one module per endpoint family.

pub mod config_file;
pub mod configure;
pub mod info;
pub mod ops;
pub mod retrieve;
