//! The typed reads, one file per area of the API.

mod datastore;
mod jobs;
mod remotes;
mod tasks;

pub use datastore::SnapshotQuery;
pub use jobs::{RunnableJob, VerifyRequest};
pub use tasks::TaskQuery;
