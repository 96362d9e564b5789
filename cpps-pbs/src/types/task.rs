//! Worker tasks.

use serde::{Deserialize, Serialize};

use super::{ExitStatus, Upid};

/// One entry of `GET /nodes/{node}/tasks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[non_exhaustive]
pub struct TaskListItem {
    /// The task id.
    #[cfg_attr(feature = "schema", schemars(with = "String"))]
    pub upid: Upid,
    /// The node running the task.
    pub node: String,
    /// The process id.
    pub pid: i64,
    /// The process start time (clock ticks since boot).
    pub pstart: u64,
    /// When the task started (UNIX epoch).
    pub starttime: i64,
    /// The worker type (`verificationjob`, `syncjob`, `garbage_collection`, …).
    pub worker_type: String,
    /// The worker id (for jobs, `store:job-id` and similar).
    #[serde(default)]
    pub worker_id: Option<String>,
    /// Who started the task: PBS lists the whole auth id here (`root@pam!tok` for a token;
    /// proxmox-backup `src/api2/node/tasks.rs`, `into_task_list_item`), where its task status
    /// splits it into `user` and `tokenid` (`TaskStatus::auth_id` joins those).
    pub user: String,
    /// When the task ended (UNIX epoch); absent while it runs.
    #[serde(default)]
    pub endtime: Option<i64>,
    /// How the task ended; absent while it runs.
    #[serde(default, with = "super::exit_status::option")]
    #[cfg_attr(feature = "schema", schemars(with = "Option<String>"))]
    pub status: Option<ExitStatus>,
}

impl TaskListItem {
    /// Who started the task, the token included.
    pub fn auth_id(&self) -> Option<super::AuthId> {
        super::AuthId::from_task_fields(&self.user, None)
    }
}
