//! `/nodes/{node}/qemu/{vmid}/…` and `/nodes/{node}/lxc/{vmid}/…`.

use std::marker::PhantomData;

use cpps_http::{Method, Request};
use serde::de::DeserializeOwned;

use crate::api::NodeApi;
use crate::family::Upid;
use crate::types::{
    GuestCurrentStatus, GuestKind, LxcConfig, NodeName, PendingEntry, QemuConfig, Snapshot,
    SnapshotName, VmId,
};
use crate::{Client, Error};

/// Options of a snapshot (`POST …/snapshot`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SnapshotOptions {
    /// `description`.
    pub description: Option<String>,
    /// `vmstate`: save the RAM too (QEMU only; ignored for containers).
    pub vmstate: bool,
}

impl SnapshotOptions {
    /// Sets the description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// Saves the RAM (QEMU).
    pub fn vmstate(mut self, vmstate: bool) -> Self {
        self.vmstate = vmstate;
        self
    }
}

/// Options of a shutdown (`POST …/status/shutdown`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownOptions {
    /// `timeout` in seconds.
    pub timeout: Option<u32>,
    /// `forceStop`: stop if the guest did not shut down within the timeout.
    pub force_stop: bool,
}

impl ShutdownOptions {
    /// Sets the timeout.
    pub fn timeout(mut self, seconds: u32) -> Self {
        self.timeout = Some(seconds);
        self
    }

    /// Stops the guest after the timeout.
    pub fn force_stop(mut self, force: bool) -> Self {
        self.force_stop = force;
        self
    }
}

/// Options of a migration (`POST …/migrate`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MigrateOptions {
    /// `target` node.
    pub target: NodeName,
    /// `online`: live migration (QEMU) / `restart` migration is separate for containers.
    pub online: bool,
    /// `with-local-disks` (QEMU).
    pub with_local_disks: bool,
    /// `restart` (containers: restart migration).
    pub restart: bool,
    /// `timeout` for the shutdown of a restart migration (containers).
    pub timeout: Option<u32>,
}

impl MigrateOptions {
    /// Migrate to `target`, offline.
    pub fn to(target: NodeName) -> Self {
        MigrateOptions {
            target,
            online: false,
            with_local_disks: false,
            restart: false,
            timeout: None,
        }
    }

    /// Live migration (QEMU) or online (container, where PVE supports it).
    pub fn online(mut self, online: bool) -> Self {
        self.online = online;
        self
    }

    /// Copy local disks (QEMU).
    pub fn with_local_disks(mut self, yes: bool) -> Self {
        self.with_local_disks = yes;
        self
    }

    /// Restart migration (containers).
    pub fn restart(mut self, yes: bool, timeout: Option<u32>) -> Self {
        self.restart = yes;
        self.timeout = timeout;
        self
    }
}

/// A configuration change (`PUT /nodes/{node}/{qemu|lxc}/{vmid}/config`): keys to set, keys
/// to delete, and the digest of the configuration the change was decided on.
///
/// With a digest, PVE refuses the change when the configuration changed since it was read
/// (qemu-server `src/PVE/API2/Qemu.pm` `update_vm`: "checksum mismatch (file change by other
/// user?)"; pve-container `src/PVE/API2/LXC/Config.pm` through pve-common
/// `PVE::Tools::assert_if_modified`), which is [`Error::Conflict`]: read again, decide again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConfigUpdate {
    /// Keys and values to set, in order.
    pub set: Vec<(String, String)>,
    /// Keys to remove (`delete`).
    pub delete: Vec<String>,
    /// The `digest` of the configuration read (its `digest` key).
    pub digest: Option<String>,
}

impl ConfigUpdate {
    /// A change decided on the configuration whose `digest` is given
    /// ([`crate::types::Config::digest`] of the configuration read).
    pub fn on_digest(digest: impl Into<String>) -> Self {
        ConfigUpdate {
            digest: Some(digest.into()),
            ..ConfigUpdate::default()
        }
    }

    /// Sets `key` to `value`.
    pub fn set(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.set.push((key.into(), value.into()));
        self
    }

    /// Removes `key`.
    pub fn delete(mut self, key: impl Into<String>) -> Self {
        self.delete.push(key.into());
        self
    }

    fn form(&self) -> Vec<(String, String)> {
        let mut form = self.set.clone();
        if !self.delete.is_empty() {
            form.push(("delete".to_owned(), self.delete.join(",")));
        }
        if let Some(digest) = &self.digest {
            form.push(("digest".to_owned(), digest.clone()));
        }
        form
    }
}

/// A kind of guest, as kube's `Resource` is a kind of object: what [`GuestApi`] needs to know
/// of it (its path segment and the type its configuration is read into). Implemented by
/// [`Qemu`] and [`Lxc`] only.
pub trait GuestType: private::Sealed + Clone + Send + Sync + 'static {
    /// `qemu` or `lxc`.
    const KIND: GuestKind;
    /// What `GET …/config` is read into.
    type Config: DeserializeOwned + std::fmt::Debug + Clone + Send;
}

/// A QEMU virtual machine ([`GuestApi<Qemu>`], [`QemuApi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qemu;

/// An LXC container ([`GuestApi<Lxc>`], [`LxcApi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lxc;

impl GuestType for Qemu {
    const KIND: GuestKind = GuestKind::Qemu;
    type Config = QemuConfig;
}

impl GuestType for Lxc {
    const KIND: GuestKind = GuestKind::Lxc;
    type Config = LxcConfig;
}

mod private {
    /// Only the two kinds PVE has.
    pub trait Sealed {}
    impl Sealed for super::Qemu {}
    impl Sealed for super::Lxc {}
}

/// One VM. Get one with [`NodeApi::qemu`].
pub type QemuApi = GuestApi<Qemu>;

/// One container. Get one with [`NodeApi::lxc`].
pub type LxcApi = GuestApi<Lxc>;

/// One guest of kind `K` (`/nodes/{node}/{qemu|lxc}/{vmid}/…`): [`QemuApi`] or [`LxcApi`].
/// The two kinds share every endpoint below; where a parameter exists for one kind only
/// (`vmstate`, `with-local-disks`, `restart`), the other kind does not send it.
#[derive(Debug, Clone)]
pub struct GuestApi<K: GuestType> {
    node: NodeApi,
    vmid: VmId,
    kind: PhantomData<K>,
}

fn flag(b: bool) -> &'static str {
    if b { "1" } else { "0" }
}

impl<K: GuestType> GuestApi<K> {
    pub(crate) fn new(node: NodeApi, vmid: VmId) -> Self {
        GuestApi {
            node,
            vmid,
            kind: PhantomData,
        }
    }

    /// The guest id.
    pub fn vmid(&self) -> VmId {
        self.vmid
    }

    /// The request to `METHOD /nodes/{node}/{qemu|lxc}/{vmid}/rest` from the endpoint table;
    /// `args` fill the placeholders of `rest`.
    fn request(&self, method: Method, rest: &str, args: &[&str]) -> Result<Request, Error> {
        let vmid = self.vmid.to_string();
        let mut all = vec![vmid.as_str()];
        all.extend_from_slice(args);
        let template = format!("{}/{{vmid}}/{rest}", K::KIND.as_str());
        self.node.request(method, &template, &all)
    }

    fn client(&self) -> &Client {
        self.node.client()
    }

    /// `GET /nodes/{node}/{qemu|lxc}/{vmid}/config?current=1`: the configuration in effect
    /// now, without pending changes.
    ///
    /// Without `current=1` PVE answers the configuration with the pending changes applied
    /// (qemu-server `src/PVE/API2/Qemu.pm` `vm_config`: "Get the virtual machine configuration
    /// with pending configuration changes applied. Set the 'current' parameter to get the
    /// current configuration instead."; pve-container `src/PVE/API2/LXC/Config.pm`: `current`,
    /// "Get current values (instead of pending values)"), which is not what is observed
    /// running. See [`Self::pending`] and [`Self::config_with_pending`].
    pub async fn config(&self) -> Result<K::Config, Error> {
        self.client()
            .get(
                self.request(Method::GET, "config", &[])?
                    .query("current", 1),
            )
            .await
    }

    /// `GET /nodes/{node}/{qemu|lxc}/{vmid}/config`: the configuration with pending changes
    /// applied (what the guest gets at its next start).
    pub async fn config_with_pending(&self) -> Result<K::Config, Error> {
        self.client()
            .get(self.request(Method::GET, "config", &[])?)
            .await
    }

    /// `PUT /nodes/{node}/{qemu|lxc}/{vmid}/config`: changes the configuration
    /// (synchronously), refused with [`Error::Conflict`] when `update.digest` no longer
    /// matches.
    pub async fn update_config(&self, update: &ConfigUpdate) -> Result<(), Error> {
        let _: Option<serde_json::Value> = self
            .client()
            .get(
                self.request(Method::PUT, "config", &[])?
                    .form(&update.form()),
            )
            .await?;
        Ok(())
    }

    /// `GET /nodes/{node}/{qemu|lxc}/{vmid}/pending`: every key with its current value and its
    /// pending change.
    pub async fn pending(&self) -> Result<Vec<PendingEntry>, Error> {
        self.client()
            .get(self.request(Method::GET, "pending", &[])?)
            .await
    }

    /// `GET /nodes/{node}/{qemu|lxc}/{vmid}/status/current`.
    pub async fn status(&self) -> Result<GuestCurrentStatus, Error> {
        self.client()
            .get(self.request(Method::GET, "status/current", &[])?)
            .await
    }

    /// `GET /nodes/{node}/{qemu|lxc}/{vmid}/snapshot`: the snapshots and the `current` pseudo
    /// entry.
    pub async fn snapshots(&self) -> Result<Vec<Snapshot>, Error> {
        self.client()
            .get(self.request(Method::GET, "snapshot", &[])?)
            .await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/snapshot`: starts a snapshot task.
    pub async fn snapshot_create(
        &self,
        name: &SnapshotName,
        options: &SnapshotOptions,
    ) -> Result<Upid, Error> {
        let mut form: Vec<(&str, String)> = vec![("snapname", name.to_string())];
        if let Some(d) = &options.description {
            form.push(("description", d.clone()));
        }
        if K::KIND == GuestKind::Qemu && options.vmstate {
            form.push(("vmstate", "1".to_owned()));
        }
        self.client()
            .write_upid(self.request(Method::POST, "snapshot", &[])?.form(&form))
            .await
    }

    /// `DELETE /nodes/{node}/{qemu|lxc}/{vmid}/snapshot/{snapname}`: starts a snapshot removal
    /// task.
    pub async fn snapshot_delete(&self, name: &SnapshotName) -> Result<Upid, Error> {
        let request = self.request(Method::DELETE, "snapshot/{snapname}", &[name.as_str()])?;
        self.client().write_upid(request).await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/snapshot/{snapname}/rollback`: starts a rollback
    /// task; `start` starts the guest afterwards.
    pub async fn snapshot_rollback(&self, name: &SnapshotName, start: bool) -> Result<Upid, Error> {
        let request = self.request(
            Method::POST,
            "snapshot/{snapname}/rollback",
            &[name.as_str()],
        )?;
        let mut form: Vec<(&str, &str)> = Vec::new();
        if start {
            form.push(("start", "1"));
        }
        self.client().write_upid(request.form(&form)).await
    }

    async fn action(&self, action: &str, form: &[(&str, String)]) -> Result<Upid, Error> {
        let request = self.request(Method::POST, &format!("status/{action}"), &[])?;
        self.client().write_upid(request.form(form)).await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/status/start`.
    pub async fn start(&self) -> Result<Upid, Error> {
        self.action("start", &[]).await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/status/stop`: hard stop.
    pub async fn stop(&self) -> Result<Upid, Error> {
        self.action("stop", &[]).await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/status/shutdown`: clean shutdown.
    pub async fn shutdown(&self, options: &ShutdownOptions) -> Result<Upid, Error> {
        let mut form = Vec::new();
        if let Some(t) = options.timeout {
            form.push(("timeout", t.to_string()));
        }
        if options.force_stop {
            form.push(("forceStop", "1".to_owned()));
        }
        self.action("shutdown", &form).await
    }

    /// `POST /nodes/{node}/{qemu|lxc}/{vmid}/migrate`.
    pub async fn migrate(&self, options: &MigrateOptions) -> Result<Upid, Error> {
        let mut form: Vec<(&str, String)> = vec![("target", options.target.to_string())];
        if options.online {
            form.push(("online", flag(true).to_owned()));
        }
        match K::KIND {
            GuestKind::Qemu => {
                if options.with_local_disks {
                    form.push(("with-local-disks", "1".to_owned()));
                }
            }
            GuestKind::Lxc => {
                if options.restart {
                    form.push(("restart", "1".to_owned()));
                }
                if let Some(t) = options.timeout {
                    form.push(("timeout", t.to_string()));
                }
            }
        }
        self.client()
            .write_upid(self.request(Method::POST, "migrate", &[])?.form(&form))
            .await
    }
}
