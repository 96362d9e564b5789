//! Offset/limit pagination as a stream.

use cpps_http::Request;
use futures::stream::{self, Stream, TryStreamExt};
use serde::de::DeserializeOwned;

use crate::client::Client;
use crate::error::Error;
use crate::types::misc::ErrorReport;
use crate::types::node::Node;
use crate::types::resource::{ResourceDefinition, ResourceGroup, ResourceWithVolumes};
use crate::types::snapshot::Snapshot;
use crate::types::storage::StoragePool;

/// The largest page the spec allows (`Limit`: `maximum: 50`).
pub const MAX_PAGE_SIZE: u32 = 50;

impl Client {
    /// Streams the items of a list endpoint (`GET {path}?offset=…&limit=…`) page by page,
    /// stopping after the first page shorter than `page_size` (1 to 50, the spec's `Limit`
    /// maximum), or longer (a server that ignored the parameters sent all at once).
    ///
    /// The stream yields an error item and ends when a page cannot be fetched.
    pub fn paginate<T>(
        &self,
        path: &'static str,
        page_size: u32,
    ) -> impl Stream<Item = Result<T, Error>> + Send + 'static
    where
        T: DeserializeOwned + Send + 'static,
    {
        let client = self.clone();
        let state = (0_u64, false);
        let pages = stream::try_unfold(state, move |(offset, done)| {
            let client = client.clone();
            async move {
                if done {
                    return Ok(None);
                }
                if page_size == 0 || page_size > MAX_PAGE_SIZE {
                    return Err(Error::InvalidArgument {
                        name: "page_size",
                        reason: format!("{page_size} is outside 1..={MAX_PAGE_SIZE}"),
                    });
                }
                let page: Vec<T> = client
                    .get_json(
                        Request::get(path)
                            .query("offset", offset)
                            .query("limit", page_size),
                    )
                    .await?;
                // linstor-server `View.java` (`listVolumesApiCallRcWithToResponse`) pages with
                // `skip(offset).limit(limit)`; a page longer than asked means a server that
                // ignored the parameters and sent everything at once.
                let last = page.len() != page_size as usize;
                let next = offset + page.len() as u64;
                Ok(Some((page, (next, last))))
            }
        });
        pages
            .map_ok(|page| stream::iter(page.into_iter().map(Ok)))
            .try_flatten()
    }
}

/// The paged form of each list endpoint: `NAME(page_size)` streams `GET /PATH` through
/// [`Client::paginate`].
macro_rules! paged_lists {
    ($($name:ident => $item:ty, $path:literal;)+) => {
        impl Client {
            $(
                #[doc = concat!("`GET /", $path, "` page by page.")]
                pub fn $name(
                    &self,
                    page_size: u32,
                ) -> impl Stream<Item = Result<$item, Error>> + Send + 'static {
                    self.paginate($path, page_size)
                }
            )+
        }
    };
}

paged_lists! {
    nodes_paged => Node, "v1/nodes";
    storage_pools_paged => StoragePool, "v1/view/storage-pools";
    resource_groups_paged => ResourceGroup, "v1/resource-groups";
    resource_definitions_paged => ResourceDefinition, "v1/resource-definitions";
    resources_view_paged => ResourceWithVolumes, "v1/view/resources";
    snapshots_paged => Snapshot, "v1/view/snapshots";
    error_reports_paged => ErrorReport, "v1/error-reports";
}
