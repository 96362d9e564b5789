//! Typed calls, one module per area of the API. Each is an `impl Client` block.

pub mod backups;
pub mod controller;
pub mod error_reports;
pub mod nodes;
pub mod pagination;
pub mod resources;
pub mod snapshots;
pub mod storage_pools;
