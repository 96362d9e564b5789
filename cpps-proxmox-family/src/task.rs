//! Task status, task logs and waiting for a task, shared by PVE and PBS.

use std::fmt;
use std::time::Duration;

use cpps_http::{HttpClient, Request};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::Error;
use crate::{AuthId, DataEnvelope, Page, PageEnvelope, Product, Upid, de};

/// Whether a task runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
#[non_exhaustive]
pub enum TaskState {
    /// `running`.
    Running,
    /// `stopped`: `exitstatus` says how it ended.
    Stopped,
    /// A value this client does not know, kept as sent.
    Unknown(String),
}

impl From<String> for TaskState {
    fn from(s: String) -> Self {
        match s.as_str() {
            "running" => TaskState::Running,
            "stopped" => TaskState::Stopped,
            _ => TaskState::Unknown(s),
        }
    }
}

impl From<TaskState> for String {
    fn from(s: TaskState) -> String {
        match s {
            TaskState::Running => "running".to_owned(),
            TaskState::Stopped => "stopped".to_owned(),
            TaskState::Unknown(s) => s,
        }
    }
}

/// How a stopped task ended.
///
/// PVE (pve-common `src/PVE/Tools.pm` `upid_read_status`) and PBS (proxmox-rest-server
/// `src/worker_task.rs` `impl std::fmt::Display for TaskState`) write `OK`, `WARNINGS: N`, or
/// the bare error message (the log's `TASK ERROR: ` prefix dropped). PBS writes `unknown` when
/// it has no state for the task: the log has no end line, or there is no such task.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ExitStatus {
    /// `OK`.
    Ok,
    /// `WARNINGS: N`: finished, with N warnings in the log.
    Warnings(u64),
    /// `unknown` (PBS): stopped, and how it ended is not known; never a success.
    Unknown,
    /// Anything else: the task failed; the text as written.
    Failed(String),
}

impl ExitStatus {
    /// Reads an `exitstatus` value.
    pub fn parse(text: &str) -> Self {
        let trimmed = text.trim();
        match trimmed {
            "OK" => return ExitStatus::Ok,
            "unknown" => return ExitStatus::Unknown,
            _ => {}
        }
        if let Some(count) = trimmed.strip_prefix("WARNINGS: ")
            && let Ok(count) = count.trim().parse()
        {
            return ExitStatus::Warnings(count);
        }
        ExitStatus::Failed(trimmed.to_owned())
    }

    /// Whether the task succeeded (with or without warnings); not when its outcome is unknown.
    pub fn is_success(&self) -> bool {
        matches!(self, ExitStatus::Ok | ExitStatus::Warnings(_))
    }
}

impl fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExitStatus::Ok => f.write_str("OK"),
            ExitStatus::Warnings(n) => write!(f, "WARNINGS: {n}"),
            ExitStatus::Unknown => f.write_str("unknown"),
            ExitStatus::Failed(text) => f.write_str(text),
        }
    }
}

/// `GET /nodes/{node}/tasks/{upid}/status` (same shape in PVE and PBS).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskStatus {
    /// The task.
    pub upid: Upid,
    /// `running` or `stopped`.
    pub status: TaskState,
    /// How it ended, once stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exitstatus: Option<String>,
    /// The node.
    pub node: String,
    /// Worker type.
    #[serde(rename = "type")]
    pub worker_type: String,
    /// Worker id.
    #[serde(default, deserialize_with = "de::opt_string")]
    pub id: Option<String>,
    /// Who started it: the user (`root@pam`), without the token name, which is in
    /// [`TaskStatus::tokenid`]; see [`TaskStatus::auth_id`].
    pub user: String,
    /// The token name, when started with an API token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokenid: Option<String>,
    /// Start time (Unix epoch seconds).
    #[serde(deserialize_with = "de::integer")]
    pub starttime: u64,
    /// The worker's pid.
    #[serde(deserialize_with = "de::integer")]
    pub pid: u64,
    /// The worker's process start time.
    #[serde(deserialize_with = "de::integer")]
    pub pstart: u64,
}

impl TaskStatus {
    /// Who started the task: `user` joined with `tokenid` when a token did
    /// ([`AuthId::from_task_fields`]).
    pub fn auth_id(&self) -> Option<AuthId> {
        AuthId::from_task_fields(&self.user, self.tokenid.as_deref())
    }

    /// The exit status, once stopped.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        match self.status {
            TaskState::Stopped => Some(ExitStatus::parse(self.exitstatus.as_deref().unwrap_or(""))),
            _ => None,
        }
    }
}

/// One line of `GET /nodes/{node}/tasks/{upid}/log`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LogLine {
    /// Line number (1-based).
    #[serde(deserialize_with = "de::integer")]
    pub n: u64,
    /// The text.
    pub t: String,
}

/// How [`wait_task`] polls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct WaitOptions {
    /// Give up after this long ([`Error::TaskTimeout`]); `None` waits for ever.
    pub timeout: Option<Duration>,
    /// Pause after the first poll that finds the task running.
    pub initial_interval: Duration,
    /// Longest pause between polls (the pause doubles up to it).
    pub max_interval: Duration,
    /// How many log lines a [`Error::TaskFailed`] carries.
    pub log_tail_lines: u32,
}

impl Default for WaitOptions {
    fn default() -> Self {
        WaitOptions {
            timeout: Some(Duration::from_secs(600)),
            initial_interval: Duration::from_millis(200),
            max_interval: Duration::from_secs(5),
            log_tail_lines: 20,
        }
    }
}

impl WaitOptions {
    /// Sets the overall timeout.
    pub fn timeout(mut self, timeout: Option<Duration>) -> Self {
        self.timeout = timeout;
        self
    }

    /// Sets the first and longest pause between polls.
    pub fn intervals(mut self, initial: Duration, max: Duration) -> Self {
        self.initial_interval = initial;
        self.max_interval = max.max(initial);
        self
    }

    /// Sets how many log lines a failure carries.
    pub fn log_tail_lines(mut self, lines: u32) -> Self {
        self.log_tail_lines = lines;
        self
    }
}

/// What a finished task left.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskOutcome {
    /// `OK` or `WARNINGS: N` (failures and an unknown outcome are [`Error::TaskFailed`]).
    pub exit_status: ExitStatus,
    /// The final status.
    pub status: TaskStatus,
    /// How many status polls it took.
    pub polls: u32,
}

/// `GET {task_path}/status`, where `task_path` is `nodes/{node}/tasks/{upid}`
/// ([`Upid::task_path`]).
pub async fn task_status(client: &HttpClient, task_path: &str) -> Result<TaskStatus, Error> {
    client
        .send(&DataEnvelope, Request::get(format!("{task_path}/status")))
        .await
}

/// The `start` that makes `GET …/log?start=…&limit=lines` answer the last `lines` lines of a
/// log of `total` lines.
///
/// PVE counts `start` from 0: it skips `start` lines (pve-common `src/PVE/Tools.pm`,
/// `dump_logfile_by_filehandle`: `next if $count++ < $start`). PBS counts from 1: it skips the
/// lines numbered below `start` (proxmox-backup `src/api2/node/tasks.rs`, `read_task_log`:
/// `count += 1; if count < start { continue }`), so PVE's `start` on PBS loses the last line,
/// which is the `TASK ERROR` line of a failed task.
pub fn log_tail_start(product: Product, total: u64, lines: u32) -> u64 {
    let skip = total.saturating_sub(u64::from(lines));
    match product {
        Product::Pbs => skip + 1,
        _ => skip,
    }
}

/// The last `lines` lines of a task log: `GET {task_path}/log?start=…&limit=…` (one request,
/// or two when the log is longer than `lines`: the first learns the `total`), with the
/// product's counting of `start` ([`log_tail_start`]).
pub async fn task_log_tail(
    client: &HttpClient,
    product: Product,
    task_path: &str,
    lines: u32,
) -> Result<Vec<String>, Error> {
    if lines == 0 {
        return Ok(Vec::new());
    }
    let path = format!("{task_path}/log");
    let first: Page<Vec<LogLine>> = client
        .send(
            &PageEnvelope,
            Request::get(&path).query("start", 0).query("limit", lines),
        )
        .await?;
    let total = first.total.unwrap_or(first.data.len() as u64);
    let page = if total > u64::from(lines) {
        let page: Page<Vec<LogLine>> = client
            .send(
                &PageEnvelope,
                Request::get(&path)
                    .query("start", log_tail_start(product, total, lines))
                    .query("limit", lines),
            )
            .await?;
        page.data
    } else {
        first.data
    };
    Ok(page.into_iter().map(|l| l.t).collect())
}

/// Polls `GET {task_path}/status` until the task stops, with a pause that doubles from
/// `initial_interval` to `max_interval`, and returns its exit status.
///
/// The first poll is immediate and the loop returns as soon as a poll sees `stopped`, so no
/// time is spent sleeping after the task ended. A failed task, or one whose outcome the server
/// does not know ([`ExitStatus::Unknown`]), yields [`Error::TaskFailed`] with the last lines
/// of its log (`GET {task_path}/log`, counted as `product` counts); a task
/// still running after `timeout` yields [`Error::TaskTimeout`] (the task itself goes on).
pub async fn wait_task(
    client: &HttpClient,
    product: Product,
    upid: &Upid,
    task_path: &str,
    options: &WaitOptions,
) -> Result<TaskOutcome, Error> {
    let started = Instant::now();
    let mut interval = options.initial_interval;
    let mut polls = 0u32;
    loop {
        let status = task_status(client, task_path).await?;
        polls += 1;
        if let Some(exit) = status.exit_status() {
            if exit.is_success() {
                return Ok(TaskOutcome {
                    exit_status: exit,
                    status,
                    polls,
                });
            }
            return Err(task_failed(client, product, upid, task_path, options, &exit).await);
        }
        let mut pause = interval;
        if let Some(timeout) = options.timeout {
            let elapsed = started.elapsed();
            if elapsed >= timeout {
                return Err(Error::TaskTimeout {
                    upid: Box::new(upid.clone()),
                    waited: elapsed,
                });
            }
            pause = pause.min(timeout - elapsed);
        }
        tokio::time::sleep(pause).await;
        interval = (interval * 2).min(options.max_interval.max(options.initial_interval));
    }
}

/// The [`Error::TaskFailed`] of a task that stopped without success, with the tail of its log.
///
/// PBS answers `unknown` also for a task it has no record of, and then cannot read its log
/// (proxmox-backup `src/api2/node/tasks.rs` `read_task_log`: `File::open(path)?`, a 400): the
/// tail is then empty, so the wait still says that the outcome is unknown.
async fn task_failed(
    client: &HttpClient,
    product: Product,
    upid: &Upid,
    task_path: &str,
    options: &WaitOptions,
    exit: &ExitStatus,
) -> Error {
    let log_tail = match task_log_tail(client, product, task_path, options.log_tail_lines).await {
        Ok(lines) => lines,
        Err(_) if *exit == ExitStatus::Unknown => Vec::new(),
        Err(error) => return error,
    };
    Error::TaskFailed {
        upid: Box::new(upid.clone()),
        exit_status: exit.to_string(),
        log_tail,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_reads_all_forms() {
        assert_eq!(ExitStatus::parse("OK"), ExitStatus::Ok);
        assert_eq!(ExitStatus::parse("WARNINGS: 3"), ExitStatus::Warnings(3));
        assert!(ExitStatus::parse("WARNINGS: 3").is_success());
        let failed = ExitStatus::parse("command 'qm start 100' failed: exit code 1");
        assert!(!failed.is_success());
        assert_eq!(
            failed.to_string(),
            "command 'qm start 100' failed: exit code 1"
        );
        assert!(!ExitStatus::parse("Error: datastore full").is_success());
    }

    /// proxmox-rest-server `src/worker_task.rs` `impl std::fmt::Display for TaskState`: PBS
    /// writes an `Error` state as the bare message and a lost state as `unknown`; PBS answers
    /// `unknown` too for a task it has no record of (proxmox-backup `src/api2/node/tasks.rs`
    /// `get_task_status`, v3.2.7 and v4.2.0: `upid_read_status(..).unwrap_or(TaskState::Unknown
    /// ..)`). Neither is a success; `unknown` is told apart from a failure.
    #[test]
    fn a_bare_pbs_message_is_a_failure_and_unknown_is_not_a_success() {
        let failed = ExitStatus::parse("verification failed - please check the log for details");
        assert_eq!(
            failed,
            ExitStatus::Failed("verification failed - please check the log for details".into())
        );
        assert!(!failed.is_success());
        let unknown = ExitStatus::parse("unknown");
        assert_eq!(unknown, ExitStatus::Unknown);
        assert!(!unknown.is_success());
        assert_eq!(unknown.to_string(), "unknown");
    }

    #[test]
    fn the_log_tail_starts_where_each_product_counts() {
        // 30 lines, the last 20 wanted: PVE skips 10 lines, PBS starts at line 11.
        assert_eq!(log_tail_start(Product::Pve, 30, 20), 10);
        assert_eq!(log_tail_start(Product::Pbs, 30, 20), 11);
        assert_eq!(log_tail_start(Product::Pbs, 5, 20), 1);
    }

    #[test]
    fn task_state_keeps_unknown_values() {
        let s: TaskState = serde_json::from_str("\"paused\"").unwrap();
        assert_eq!(s, TaskState::Unknown("paused".to_owned()));
        assert_eq!(serde_json::to_string(&s).unwrap(), "\"paused\"");
    }
}
