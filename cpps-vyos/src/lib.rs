//! VyOS: an HTTPS API client and a configuration model.
//!
//! - [`config`]: a parser for `config.boot` and for `set` commands into one typed tree
//!   ([`ConfigTree`]), rendering back to both forms as VyOS does, a diff of two trees as the
//!   `set`/`delete` batch that turns one into the other, typed views and redaction of secrets.
#![forbid(unsafe_code)]

pub mod config;
mod error;

pub use config::{Command, ConfigTree, Op};
pub use error::{Error, ParseError, ParseErrorKind};
