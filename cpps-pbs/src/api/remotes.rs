//! Remotes: the other PBS servers sync jobs talk to.

use crate::endpoints::REMOTES;
use crate::types::Remote;
use crate::{Client, Error};

impl Client {
    /// The configured remotes, with their host and pinned fingerprint: `GET /config/remote`.
    pub async fn remotes(&self) -> Result<Vec<Remote>, Error> {
        self.get(REMOTES.call(&[])).await
    }
}
