//! `/nodes/{node}/…`.

use cpps_http::{Request, encode_segment};

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

    pub(crate) fn path(&self, rest: &str) -> Result<String, Error> {
        let node = self.name()?;
        Ok(format!("nodes/{}/{rest}", encode_segment(node.as_str())))
    }

    pub(crate) fn client(&self) -> &Client {
        &self.client
    }

    /// `GET /nodes/{node}/status`.
    pub async fn status(&self) -> Result<NodeStatus, Error> {
        self.client.get(Request::get(self.path("status")?)).await
    }

    /// `GET /nodes/{node}/qemu`: the VMs on this node.
    pub async fn qemu_list(&self) -> Result<Vec<QemuListItem>, Error> {
        self.client.get_list(Request::get(self.path("qemu")?)).await
    }

    /// `GET /nodes/{node}/lxc`: the containers on this node.
    pub async fn lxc_list(&self) -> Result<Vec<LxcListItem>, Error> {
        self.client.get_list(Request::get(self.path("lxc")?)).await
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
        self.client.get(Request::get(self.path("storage")?)).await
    }

    /// `GET /nodes/{node}/tasks` with filters.
    pub async fn tasks(&self, filter: &TaskFilter) -> Result<Vec<TaskListItem>, Error> {
        let mut request = Request::get(self.path("tasks")?);
        for (k, v) in filter.query() {
            request = request.query(k, v);
        }
        self.client.get_list(request).await
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
            .get(Request::post(self.path("vzdump")?).form(&form))
            .await
    }

    /// `GET /nodes/{node}/tasks/{upid}/status`.
    pub async fn task_status(&self, upid: &Upid) -> Result<TaskStatus, Error> {
        let path = self.path(&format!("tasks/{}", encode_segment(upid.as_str())))?;
        Ok(crate::family::task_status(self.client.http(), &path).await?)
    }
}
