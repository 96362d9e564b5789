//! VyOS: HTTPS API client and configuration model.
//!
//! This crate will hold: the `/retrieve`, `/configure`, `/config-file` (and other) API calls with a
//! per-router write lock, and a parser, serializer and diff for `config.boot` and `set` commands.
//! Nothing is implemented yet.
#![forbid(unsafe_code)]
