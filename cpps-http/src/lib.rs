//! Small shared REST runtime of the cpps clients.
#![forbid(unsafe_code)]
