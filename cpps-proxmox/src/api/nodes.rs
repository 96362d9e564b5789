//! `/nodes/{node}/…`.

use cpps_http::{Method, Request};

use crate::api::{LxcApi, QemuApi};
use crate::family::{TaskStatus, Upid};
use crate::types::{
    LxcListItem, NodeName, NodeStatus, NodeStorage, QemuListItem, TaskFilter, TaskListItem, VmId,
    VzdumpStart,
};
use crate::{Client, Error};

/// Endpoints of one node. Get one with [`Client::node`].
#[derive(Debug, Clone)]
pub struct NodeApi {
    client: Client,
    node: String,
}

impl NodeApi {
    pub(crate) fn new(client: Client, node: &str) -> Self {
        NodeApi {
            client,
            node: node.to_owned(),
        }
    }

    /// The node name, validated.
    pub fn name(&self) -> Result<NodeName, Error> {
        NodeName::new(self.node.as_str())
    }

    /// The request to `METHOD /nodes/{node}/rest` from the endpoint table; `args` fill the
    /// placeholders of `rest`.
    pub(crate) fn request(
        &self,
        method: Method,
        rest: &str,
        args: &[&str],
    ) -> Result<Request, Error> {
        let node = self.name()?;
        let mut all = vec![node.as_str()];
        all.extend_from_slice(args);
        super::request(method, &format!("/nodes/{{node}}/{rest}"), &all)
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// `GET /nodes/{node}/status`.
    pub async fn status(&self) -> Result<NodeStatus, Error> {
        self.client
            .get(self.request(Method::GET, "status", &[])?)
            .await
    }

    /// `GET /nodes/{node}/qemu`: the VMs on this node.
    pub async fn qemu_list(&self) -> Result<Vec<QemuListItem>, Error> {
        self.client
            .get_list(self.request(Method::GET, "qemu", &[])?)
            .await
    }

    /// `GET /nodes/{node}/lxc`: the containers on this node.
    pub async fn lxc_list(&self) -> Result<Vec<LxcListItem>, Error> {
        self.client
            .get_list(self.request(Method::GET, "lxc", &[])?)
            .await
    }

    /// One VM: `/nodes/{node}/qemu/{vmid}/…`.
    pub fn qemu(&self, vmid: VmId) -> QemuApi {
        QemuApi::new(self.clone(), vmid)
    }

    /// One container: `/nodes/{node}/lxc/{vmid}/…`.
    pub fn lxc(&self, vmid: VmId) -> LxcApi {
        LxcApi::new(self.clone(), vmid)
    }

    /// `GET /nodes/{node}/storage`: storages usable on this node, with usage.
    pub async fn storage(&self) -> Result<Vec<NodeStorage>, Error> {
        self.client
            .get(self.request(Method::GET, "storage", &[])?)
            .await
    }

    /// `GET /nodes/{node}/tasks` with filters.
    pub async fn tasks(&self, filter: &TaskFilter) -> Result<Vec<TaskListItem>, Error> {
        Ok(self.tasks_page(filter).await?.data)
    }

    /// [`NodeApi::tasks`], with the number of tasks that matched (`total`): the list stops at
    /// the filter's `limit` (50 by default), while `total` counts every task the filters pass
    /// (pve-manager `PVE/API2/Tasks.pm` `node_tasks`), so a `total` above the list's length
    /// says the older ones were left out.
    pub async fn tasks_page(
        &self,
        filter: &TaskFilter,
    ) -> Result<crate::family::Page<Vec<TaskListItem>>, Error> {
        let mut request = self.request(Method::GET, "tasks", &[])?;
        for (k, v) in filter.query() {
            request = request.query(k, v);
        }
        self.client.get_page(request).await
    }

    /// `POST /nodes/{node}/vzdump`: backs up one guest of this node now to `storage` (a PBS
    /// storage, for a copy that leaves the host) in `mode` (`snapshot`, `suspend`, `stop`;
    /// PVE's default is `snapshot`). Answers the task (wait for it with [`Client::wait`]), or
    /// [`VzdumpStart::NotOnThisNode`] when the guest runs elsewhere and nothing was done.
    pub async fn vzdump(
        &self,
        vmid: VmId,
        storage: &str,
        mode: Option<&str>,
    ) -> Result<VzdumpStart, Error> {
        let mut form = vec![("vmid", vmid.to_string()), ("storage", storage.to_owned())];
        if let Some(mode) = mode {
            form.push(("mode", mode.to_owned()));
        }
        self.client
            .get(self.request(Method::POST, "vzdump", &[])?.form(&form))
            .await
    }

    /// `GET /nodes/{node}/tasks/{upid}/status`.
    pub async fn task_status(&self, upid: &Upid) -> Result<TaskStatus, Error> {
        // The family's task reader appends `/status` itself.
        let request = self.request(Method::GET, "tasks/{upid}/status", &[upid.as_str()])?;
        let path = request.path();
        let task = path.strip_suffix("/status").unwrap_or(path);
        Ok(crate::family::task_status(self.client.http(), task).await?)
    }
}
