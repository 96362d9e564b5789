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
//! That status needs `Sys.Audit` on `/`; a token without it (a pool-scoped one) is followed
//! through the guest's `hastate` in `GET /cluster/resources`, and when neither shows the
//! guest the wait ends with [`PveError::HaUnobserved`]: the request was queued all the same.

use std::fmt;
use std::time::Duration;

use serde::Serialize;
use tokio::time::Instant;

use crate::family::{Product, Upid, WaitOptions};
use crate::types::{ClusterResource, HaStatusEntry, HaStatusType, ResourceFilter, ResourceType};
use crate::{Client, Error, PveError};

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
                .ok_or_else(|| {
                    Error::from(PveError::HaWait {
                        sid: upid.worker_id().to_owned(),
                        wanted: "the migration target".to_owned(),
                        reason: "the hamigrate task log does not name the target node".to_owned(),
                    })
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

/// What one read showed of a guest's HA service.
#[derive(Debug, Clone)]
struct Seen {
    sid: Option<String>,
    node: Option<String>,
    /// The verbose state (`started`, `starting`, `migrate`, …).
    state: String,
    /// The CRM state.
    crm: String,
}

impl Seen {
    fn from_status(entry: &HaStatusEntry) -> Seen {
        Seen {
            sid: entry.sid.clone(),
            node: entry.node.clone(),
            state: entry.state.clone().unwrap_or_default(),
            crm: entry.crm_state.clone().unwrap_or_default(),
        }
    }

    /// From a `GET /cluster/resources` guest entry: `hastate` is the HA manager's service
    /// state (pve-manager `PVE/API2/Cluster.pm` `resources`), and the guest's own `status`
    /// says whether a `started`/`stopped` service has got there yet.
    fn from_resource(guest: &ClusterResource, hastate: &str) -> Seen {
        let running = guest.status.as_deref() == Some("running");
        let state = match hastate {
            "started" if !running => "starting",
            "stopped" if running => "stopping",
            other => other,
        };
        let prefix = if guest.kind == ResourceType::Lxc {
            "ct"
        } else {
            "vm"
        };
        Seen {
            sid: guest.vmid.map(|v| format!("{prefix}:{v}")),
            node: guest.node.clone(),
            state: state.to_owned(),
            crm: hastate.to_owned(),
        }
    }
}

/// Whether `seen` shows `wanted` done; an error when it shows the action cannot happen.
fn reached(seen: &Seen, wanted: &HaWanted) -> Result<bool, String> {
    let (crm, state) = (seen.crm.as_str(), seen.state.as_str());
    // `error`: the CRM gave up on the service; `deleting`: it was removed from HA; `ignored`:
    // HA no longer acts on it (pve-ha-manager `src/PVE/HA/Tools.pm`,
    // `get_verbose_service_state`); `ignore`: the HA stack is disarmed in `ignore` mode
    // (`src/PVE/API2/HA/Status.pm`, 5.1.3+).
    if matches!(crm, "error") || matches!(state, "error" | "deleting" | "ignored" | "ignore") {
        return Err(format!(
            "the HA manager shows it `{state}` (CRM state `{crm}`)"
        ));
    }
    Ok(match wanted {
        HaWanted::Started => crm == "started" && state == "started",
        HaWanted::Stopped => crm == "stopped" && state == "stopped",
        HaWanted::OnNode(node) => {
            seen.node.as_deref() == Some(node.as_str())
                && matches!(crm, "started" | "stopped")
                && !matches!(state, "migrate" | "relocate" | "starting" | "stopping")
        }
    })
}

/// An error when the HA stack is disarmed (pve-ha-manager 5.1.3+, `disarm-ha`): the status's
/// `fencing` entry says `disarming` or `disarmed`, and the CRM then applies no command to any
/// service until `arm-ha` (`src/PVE/HA/Manager.pm` `handle_disarm`: services frozen, or HA
/// tracking suspended in `ignore` mode), so a queued request cannot be waited for.
fn disarmed(entries: &[HaStatusEntry], vmid: &str, wanted: &HaWanted) -> Result<(), Error> {
    let fencing = entries.iter().find(|e| e.kind == HaStatusType::Fencing);
    let Some(fencing) = fencing else {
        return Ok(());
    };
    match fencing.armed_state.as_deref() {
        Some(state @ ("disarming" | "disarmed")) => Err(Error::from(PveError::HaWait {
            sid: vmid.to_owned(),
            wanted: wanted.to_string(),
            reason: format!(
                "the HA stack is {state} (resource mode {}): the HA manager applies no command until `ha-manager arm-ha`",
                fencing.resource_mode.as_deref().unwrap_or("unknown")
            ),
        })),
        _ => Ok(()),
    }
}

/// Where the wait reads the HA manager's view: its status, or, for a caller without
/// `Sys.Audit` on `/`, the guest list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    HaStatus,
    GuestList,
}

/// One read of guest `vmid`'s HA service. A 403 on `GET /cluster/ha/status/current` (it
/// needs `Sys.Audit` on `/`: pve-ha-manager `src/PVE/API2/HA/Status.pm`) switches to
/// `GET /cluster/resources?type=vm`, which any token may read for the guests it may audit.
async fn look(
    client: &Client,
    vmid: &str,
    wanted: &HaWanted,
    source: &mut Source,
) -> Result<Option<Seen>, Error> {
    if *source == Source::HaStatus {
        match client.cluster().ha_status().await {
            Ok(entries) => {
                disarmed(&entries, vmid, wanted)?;
                return Ok(service_of(&entries, vmid).map(Seen::from_status));
            }
            Err(e) if e.status() == Some(cpps_http::StatusCode::FORBIDDEN) => {
                *source = Source::GuestList;
            }
            Err(e) => return Err(e),
        }
    }
    let unobserved = |reason: String| {
        Error::from(PveError::HaUnobserved {
            sid: vmid.to_owned(),
            wanted: wanted.to_string(),
            reason,
        })
    };
    let guests = client
        .cluster()
        .resources(Some(ResourceFilter::Vm))
        .await
        .map_err(|e| {
            unobserved(format!(
                "GET /cluster/ha/status/current needs Sys.Audit on /, and the guest list could not be read ({e})"
            ))
        })?;
    let guest = guests
        .iter()
        .find(|g| g.vmid.is_some_and(|v| v.to_string() == vmid));
    match guest.and_then(|g| g.hastate.as_deref().map(|h| (g, h))) {
        Some((guest, hastate)) => Ok(Some(Seen::from_resource(guest, hastate))),
        None => Err(unobserved(
            "GET /cluster/ha/status/current needs Sys.Audit on /, and the guest list shows no HA state for the guest"
                .to_owned(),
        )),
    }
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

/// Polls `GET /cluster/ha/status/current` until the service of guest `vmid` shows `wanted`
/// (without `Sys.Audit` on `/`, the guest's `hastate` in `GET /cluster/resources`; when
/// neither can be read, [`PveError::HaUnobserved`]: the request stays queued).
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
    let mut source = Source::HaStatus;
    let started = Instant::now();
    loop {
        let seen = look(client, &vmid, &wanted, &mut source).await?;
        polls += 1;
        if let Some(seen) = &seen {
            match reached(seen, &wanted) {
                Ok(true) => {
                    return Ok(HaReached {
                        sid: seen.sid.clone().unwrap_or_default(),
                        wanted,
                        state: seen.state.clone(),
                        node: seen.node.clone().unwrap_or_default(),
                        polls,
                    });
                }
                Ok(false) => {}
                Err(reason) => {
                    return Err(Error::from(PveError::HaWait {
                        sid: seen.sid.clone().unwrap_or(vmid),
                        wanted: wanted.to_string(),
                        reason,
                    }));
                }
            }
        }
        let mut pause = interval;
        if let Some(at) = deadline {
            let now = Instant::now();
            if now >= at {
                return Err(timed_out(seen.as_ref(), vmid, wanted, started));
            }
            pause = pause.min(at - now);
        }
        tokio::time::sleep(pause).await;
        interval = (interval * 2).min(options.max_interval.max(options.initial_interval));
    }
}

/// The timeout error, with what was seen last.
fn timed_out(seen: Option<&Seen>, vmid: String, wanted: HaWanted, started: Instant) -> Error {
    let last_seen = seen.map_or_else(
        || "no HA service entry".to_owned(),
        |s| {
            format!(
                "last seen `{}` on {}",
                if s.state.is_empty() { "?" } else { &s.state },
                s.node.as_deref().unwrap_or("?")
            )
        },
    );
    Error::from(PveError::HaTimeout {
        sid: seen.and_then(|s| s.sid.clone()).unwrap_or(vmid),
        wanted: wanted.to_string(),
        last_seen,
        waited: started.elapsed(),
    })
}

/// The deadline of a wait that started at `started` with `options`.
pub(crate) fn deadline(started: Instant, options: &WaitOptions) -> Option<Instant> {
    options.timeout.map(|t: Duration| started + t)
}
