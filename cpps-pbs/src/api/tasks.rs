//! Worker tasks: list, status, and waiting for one to finish.

use cpps_proxmox_family::{self as family, Product, TaskOutcome, WaitOptions};

use crate::endpoints::TASKS;
use crate::types::{TaskListItem, TaskStatus, Upid};
use crate::{Client, Error};

/// Filters of [`Client::tasks`]; every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskQuery {
    /// Only tasks since this UNIX epoch.
    pub since: Option<i64>,
    /// Only tasks until this UNIX epoch.
    pub until: Option<i64>,
    /// At most this many tasks (the server's default is 50; 0 means no limit).
    pub limit: Option<i64>,
    /// Skip this many tasks.
    pub start: Option<i64>,
    /// Only running tasks.
    pub running: Option<bool>,
    /// Only failed tasks.
    pub errors: Option<bool>,
    /// Only tasks of this datastore.
    pub store: Option<String>,
    /// Only tasks whose type contains this text.
    pub typefilter: Option<String>,
    /// Only tasks of this user.
    pub userfilter: Option<String>,
}

impl Client {
    /// Tasks of a node (`localhost` names the server answering): `GET /nodes/{node}/tasks`.
    pub async fn tasks(&self, node: &str, query: &TaskQuery) -> Result<Vec<TaskListItem>, Error> {
        self.get_list(
            TASKS
                .call(&[node])
                .integer("since", query.since)
                .integer("until", query.until)
                .integer("limit", query.limit)
                .integer("start", query.start)
                .boolean("running", query.running)
                .boolean("errors", query.errors)
                .string("store", query.store.as_deref())
                .string("typefilter", query.typefilter.as_deref())
                .string("userfilter", query.userfilter.as_deref()),
        )
        .await
    }

    /// The status of one task: `GET /nodes/{node}/tasks/{upid}/status` (the node taken from
    /// the UPID).
    pub async fn task_status(&self, upid: &Upid) -> Result<TaskStatus, Error> {
        Ok(family::task_status(&self.http, &upid.task_path()).await?)
    }

    /// Polls `GET /nodes/{node}/tasks/{upid}/status` until the task stops, with `cpps-proxmox`'s
    /// wait loop. A failed task is an error carrying the tail of its log
    /// (`GET /nodes/{node}/tasks/{upid}/log`, whose `start` PBS counts from 1), the
    /// `TASK ERROR` line included.
    pub async fn wait_task(
        &self,
        upid: &Upid,
        options: &WaitOptions,
    ) -> Result<TaskOutcome, Error> {
        Ok(family::wait_task(&self.http, Product::Pbs, upid, &upid.task_path(), options).await?)
    }
}
