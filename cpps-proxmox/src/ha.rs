//! Waiting for the HA manager: what `Client::wait` does after a `hastart`, `hastop` or
//! `hamigrate` task.
//!
//! For a guest under the HA manager, PVE's start, stop, shutdown and migrate calls do not act:
//! they fork a worker that only queues a request with `ha-manager` and ends OK at once
//! (qemu-server `src/PVE/API2/Qemu.pm`: `fork_worker('hastart' | 'hastop' | 'hamigrate', …)`
//! running `ha-manager set vm:ID --state started`, `ha-manager crm-command stop vm:ID T`,
//! `ha-manager migrate vm:ID TARGET`; pve-container `src/PVE/API2/LXC/Status.pm` and
//! `src/PVE/API2/LXC.pm` the same for `ct:ID`). The action is done when the HA manager says
//! so in `GET /cluster/ha/status/current` (pve-ha-manager `src/PVE/API2/HA/Status.pm`: a
//! `service` entry per resource with `sid`, `node`, `crm_state` and the verbose `state`).

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::family::{Product, Upid, WaitOptions};
use crate::types::{HaStatusEntry, HaStatusType};
use crate::{Client, Error};

/// What the HA manager must show for an action to be done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "wanted", content = "node")]
#[non_exhaustive]
pub enum HaWanted {
    /// `hastart`: the service `started` (and running).
    Started,
    /// `hastop`: the service `stopped`.
    Stopped,
    /// `hamigrate`: the service on this node, no longer migrating.
    OnNode(String),
}

impl fmt::Display for HaWanted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HaWanted::Started => f.write_str("started"),
            HaWanted::Stopped => f.write_str("stopped"),
            HaWanted::OnNode(node) => write!(f, "on node {node}"),
        }
    }
}

/// What a wait for the HA manager saw at its end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct HaReached {
    /// The resource (`vm:100`, `ct:200`).
    pub sid: String,
    /// What was waited for.
    pub wanted: HaWanted,
    /// The service's verbose state at the end (`started`, `stopped`).
    pub state: String,
    /// The node it is on.
    pub node: String,
    /// How many status reads it took.
    pub polls: u32,
}

/// The HA wait a finished task asks for, if any: `hastart`/`hastop` from the worker type,
/// `hamigrate` with the target node from the worker's log line "Requesting HA migration for
/// VM 100 to node pve2" (qemu-server `src/PVE/API2/Qemu.pm`; pve-container
/// `src/PVE/API2/LXC.pm` prints "… for CT 200 to node …").
pub(crate) async fn wanted_after(client: &Client, upid: &Upid) -> Result<Option<HaWanted>, Error> {
    Ok(Some(match upid.worker_type() {
        "hastart" => HaWanted::Started,
        "hastop" => HaWanted::Stopped,
        "hamigrate" => {
            let log =
                crate::family::task_log_tail(client.http(), Product::Pve, &upid.task_path(), 50)
                    .await?;
            let node = log
                .iter()
                .find_map(|line| {
                    line.split_once(" to node ")
                        .map(|(_, n)| n.trim().to_owned())
                })
                .filter(|n| !n.is_empty())
                .ok_or_else(|| Error::HaWait {
                    sid: upid.worker_id().to_owned(),
                    wanted: "the migration target".to_owned(),
                    reason: "the hamigrate task log does not name the target node".to_owned(),
                })?;
            HaWanted::OnNode(node)
        }
        _ => return Ok(None),
    }))
}

fn service_of<'a>(entries: &'a [HaStatusEntry], vmid: &str) -> Option<&'a HaStatusEntry> {
    entries.iter().find(|e| {
        e.kind == HaStatusType::Service
            && e.sid
                .as_deref()
                .and_then(|sid| sid.split_once(':'))
                .is_some_and(|(_, id)| id == vmid)
    })
}

/// Whether `entry` shows `wanted` done; an error when it shows the action cannot happen.
fn reached(entry: &HaStatusEntry, wanted: &HaWanted) -> Result<bool, String> {
    let crm = entry.crm_state.as_deref().unwrap_or("");
    let state = entry.state.as_deref().unwrap_or("");
    // `error`: the CRM gave up on the service; `deleting`: it was removed from HA; `ignored`:
    // HA no longer acts on it (pve-ha-manager `src/PVE/HA/Tools.pm`,
    // `get_verbose_service_state`).
    if matches!(crm, "error") || matches!(state, "error" | "deleting" | "ignored") {
        return Err(format!(
            "the HA manager shows it `{state}` (CRM state `{crm}`)"
        ));
    }
    Ok(match wanted {
        HaWanted::Started => crm == "started" && state == "started",
        HaWanted::Stopped => crm == "stopped" && state == "stopped",
        HaWanted::OnNode(node) => {
            entry.node.as_deref() == Some(node.as_str())
                && matches!(crm, "started" | "stopped")
                && !matches!(state, "migrate" | "relocate" | "starting" | "stopping")
        }
    })
}

/// Polls `GET /cluster/ha/status/current` until the service of `upid`'s guest shows `wanted`,
/// with the pauses of `options` and until `deadline`.
pub(crate) async fn wait_for(
    client: &Client,
    upid: &Upid,
    wanted: HaWanted,
    options: &WaitOptions,
    deadline: Option<Instant>,
) -> Result<HaReached, Error> {
    wait_for_guest(client, upid.worker_id(), wanted, options, deadline).await
}

/// Polls `GET /cluster/ha/status/current` until the service of guest `vmid` shows `wanted`.
pub(crate) async fn wait_for_guest(
    client: &Client,
    vmid: &str,
    wanted: HaWanted,
    options: &WaitOptions,
    deadline: Option<Instant>,
) -> Result<HaReached, Error> {
    let vmid = vmid.to_owned();
    let mut interval = options.initial_interval;
    let mut polls = 0u32;
    let started = Instant::now();
    loop {
        let entries = client.cluster().ha_status().await?;
        polls += 1;
        let entry = service_of(&entries, vmid.as_str());
        if let Some(entry) = entry {
            match reached(entry, &wanted) {
                Ok(true) => {
                    return Ok(HaReached {
                        sid: entry.sid.clone().unwrap_or_default(),
                        wanted,
                        state: entry.state.clone().unwrap_or_default(),
                        node: entry.node.clone().unwrap_or_default(),
                        polls,
                    });
                }
                Ok(false) => {}
                Err(reason) => {
                    return Err(Error::HaWait {
                        sid: entry.sid.clone().unwrap_or(vmid),
                        wanted: wanted.to_string(),
                        reason,
                    });
                }
            }
        }
        let mut pause = interval;
        if let Some(at) = deadline {
            let now = Instant::now();
            if now >= at {
                let seen = entry.map_or_else(
                    || "no HA service entry".to_owned(),
                    |e| {
                        format!(
                            "last seen `{}` on {}",
                            e.state.as_deref().unwrap_or("?"),
                            e.node.as_deref().unwrap_or("?")
                        )
                    },
                );
                return Err(Error::HaTimeout {
                    sid: entry.and_then(|e| e.sid.clone()).unwrap_or(vmid),
                    wanted: wanted.to_string(),
                    last_seen: seen,
                    waited: started.elapsed(),
                });
            }
            pause = pause.min(at - now);
        }
        tokio::time::sleep(pause).await;
        interval = (interval * 2).min(options.max_interval.max(options.initial_interval));
    }
}

/// The deadline of a wait that started at `started` with `options`.
pub(crate) fn deadline(started: Instant, options: &WaitOptions) -> Option<Instant> {
    options.timeout.map(|t: Duration| started + t)
}
