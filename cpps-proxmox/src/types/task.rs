//! `/nodes/{node}/tasks`.

use serde::{Deserialize, Serialize};

use crate::family::{Upid, de};
use crate::types::VmId;

/// One entry of `GET /nodes/{node}/tasks`. In the list, `status` holds the exit status of a
/// finished task (`OK`, an error message), and `RUNNING` for a running one listed with `source`
/// `active` or `all` (pve-manager `PVE/API2/Tasks.pm` `node_tasks`); `endtime` is absent while
/// it runs, so that, not `status`, tells a running task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskListItem {
    /// The task.
    pub upid: Upid,
    /// Node.
    pub node: String,
    /// Worker type.
    #[serde(rename = "type")]
    pub worker_type: String,
    /// Worker id.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub id: Option<String>,
    /// Who started it: the user (`root@pam`); a token's name is in
    /// [`TaskListItem::tokenid`] (pve-manager `PVE/API2/Tasks.pm`, `convert_token_task`).
    pub user: String,
    /// The token name, when an API token started it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenid: Option<String>,
    /// Start time (Unix epoch seconds).
    #[serde(deserialize_with = "de::integer")]
    pub starttime: u64,
    /// End time, once finished.
    #[serde(default, deserialize_with = "de::opt_integer")]
    pub endtime: Option<u64>,
    /// Exit status of a finished task; `RUNNING` while it runs (see the type's docs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

impl TaskListItem {
    /// Who started the task, the token included.
    pub fn auth_id(&self) -> Option<crate::family::AuthId> {
        crate::family::AuthId::from_task_fields(&self.user, self.tokenid.as_deref())
    }
}

/// The lines of a task log ([`crate::Client::task_log`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskLog {
    /// The lines, from the first, without their numbers.
    pub lines: Vec<String>,
    /// Whether they reach the end of the log (the cap on lines read did not cut it).
    pub whole: bool,
}

/// Filters of `GET /nodes/{node}/tasks`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TaskFilter {
    /// Only tasks of this guest (`vmid`).
    pub vmid: Option<VmId>,
    /// Only tasks of this type (`typefilter`, e.g. `qmsnapshot`).
    pub typefilter: Option<String>,
    /// Only tasks of this user (`userfilter`).
    pub userfilter: Option<String>,
    /// Only failed tasks (`errors=1`).
    pub errors: bool,
    /// At most this many (`limit`, PVE's default 50).
    pub limit: Option<u32>,
    /// `source`: `archive`, `active` or `all`.
    pub source: Option<String>,
}

impl TaskFilter {
    /// Only tasks of this guest.
    pub fn vmid(mut self, vmid: VmId) -> Self {
        self.vmid = Some(vmid);
        self
    }

    /// Only tasks of this type.
    pub fn typefilter(mut self, kind: impl Into<String>) -> Self {
        self.typefilter = Some(kind.into());
        self
    }

    /// At most this many.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit);
        self
    }

    /// `source`: `archive` (default), `active` or `all`.
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    pub(crate) fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = Vec::new();
        if let Some(v) = self.vmid {
            q.push(("vmid", v.to_string()));
        }
        if let Some(t) = &self.typefilter {
            q.push(("typefilter", t.clone()));
        }
        if let Some(u) = &self.userfilter {
            q.push(("userfilter", u.clone()));
        }
        if self.errors {
            q.push(("errors", "1".to_owned()));
        }
        if let Some(l) = self.limit {
            q.push(("limit", l.to_string()));
        }
        if let Some(s) = &self.source {
            q.push(("source", s.clone()));
        }
        q
    }
}
