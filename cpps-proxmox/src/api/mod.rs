//! Handlers: one per area of the API, each owning a client clone.

mod cluster;
mod guests;
mod nodes;

pub use cluster::{ClusterApi, HaResourceSpec};
pub use guests::{
    ConfigUpdate, GuestApi, GuestType, Lxc, LxcApi, MigrateOptions, Qemu, QemuApi, ShutdownOptions,
    SnapshotOptions,
};
pub use nodes::NodeApi;

use cpps_http::{Method, Request};

use crate::Error;

/// The request to `METHOD template` (a path of [`ENDPOINTS`](crate::ENDPOINTS), with its
/// `{placeholders}`), with `args` percent-encoded in their place. Every handler builds its
/// requests here, so the table is the one list of what the crate calls: a path missing from it
/// is refused before anything is sent (and `tests/endpoints.rs` calls every handler to show
/// none is).
pub(crate) fn request(method: Method, template: &str, args: &[&str]) -> Result<Request, Error> {
    let endpoint = crate::ENDPOINTS
        .iter()
        .find(|e| e.method == method.as_str() && e.path == template)
        .ok_or_else(|| {
            Error::invalid(
                "endpoint",
                &format!("{method} {template}"),
                "is not in cpps_proxmox::ENDPOINTS",
            )
        })?;
    Ok(Request::new(method, endpoint.fill_path(args)))
}
