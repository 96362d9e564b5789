//! The one small trait every system's source implements, in a module of its own so that the
//! sources (`live/pve/source.rs`, …) and their public façade ([`super::sources`]) do not import
//! each other.

use async_trait::async_trait;

use super::facts::{SourceFailure, SourceKind};

/// One live system that can be asked for its facts.
///
/// Implementations must not hold a secret in what [`Source::endpoint`] returns.
#[async_trait]
pub trait Source<T>: Send + Sync {
    /// Which system.
    fn kind(&self) -> SourceKind;

    /// Where it is asked (a URL, a kubeconfig path), for reports.
    fn endpoint(&self) -> String;

    /// Reads the facts; every failure is a [`SourceFailure`] naming this source.
    async fn observe(&self) -> Result<T, SourceFailure>;
}

/// A boxed source.
pub type BoxSource<T> = Box<dyn Source<T>>;
