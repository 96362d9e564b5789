//! The cluster inventory behind the `inventory` example: a JSON/text report of nodes and
//! guests, with what could not be read said part by part (the client is configured with
//! [`ClientBuilder::from_env`](crate::ClientBuilder::from_env)).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::future::Future;
use std::time::Duration;

use futures::StreamExt as _;
use serde::Serialize;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::family::bounded;
use crate::types::{ClusterResource, GuestKind, ResourceFilter};
use crate::{Client, GuestRef, VmId};

/// A node in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InventoryNode {
    /// Node name.
    pub node: String,
    /// `online`, `offline`, `unknown`.
    pub status: String,
}

/// A guest in the inventory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct InventoryGuest {
    /// Node it is on.
    pub node: String,
    /// Guest id.
    pub vmid: u32,
    /// `qemu` or `lxc`.
    pub kind: GuestKind,
    /// Name (host name for containers).
    pub name: Option<String>,
    /// `running`, `stopped`, …
    pub status: String,
    /// Containers only: whether it is privileged (`unprivileged` absent or 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub privileged: Option<bool>,
    /// The HA state when the HA manager manages it (`started`, `stopped`, …), else `null`.
    pub ha: Option<String>,
}

/// A part of the inventory that could not be read, and why (the Proxmox family's, which the
/// PBS report keeps too).
pub use crate::family::PartError;

/// An error and its sources joined by `: ` (the workspace's one renderer, in `cpps-http`).
pub use cpps_http::error_chain;

/// `{"nodes":[…],"guests":[…],"errors":[…]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Inventory {
    /// Nodes, by name.
    pub nodes: Vec<InventoryNode>,
    /// Guests, by id.
    pub guests: Vec<InventoryGuest>,
    /// What could not be read; empty when the inventory is complete.
    pub errors: Vec<PartError>,
    /// Why `guests` may leave guests out, when it may: `GET /cluster/resources` silently skips
    /// the guests the credentials may not audit (see
    /// [`ClusterApi::guest_list_trimmed`](crate::api::ClusterApi::guest_list_trimmed)).
    /// `None` when the list is every guest.
    pub guests_trimmed: Option<String>,
}

/// Collects the inventory: `GET /nodes`, `GET /cluster/resources?type=vm`,
/// `GET /cluster/ha/resources`, `GET /access/permissions?path=/vms`, and `GET /nodes/{node}/lxc/{vmid}/config` for every container
/// (at most `concurrency` at once; [`crate::DEFAULT_CONCURRENCY`] is the shared default) to
/// tell privileged ones. The configs start once the guest list is in, while the other lists
/// finish ([`needed_first`]).
///
/// Every part is read whatever happens to the others, and a part that fails is kept in
/// [`Inventory::errors`] beside what was read: a token without `Sys.Audit` on `/` gets a 403 on
/// `/cluster/ha/resources` (pve-ha-manager `src/PVE/API2/HA/Resources.pm`: `check => ['perm',
/// '/', ['Sys.Audit']]`) and still sees every guest it may audit, with `hastate` from the
/// resources list; a container on an offline node answers 595 to its `proxyto` config read and
/// only its privilege is unknown. The guest list itself leaves out, silently, every guest
/// without `VM.Audit` (a pool-scoped token sees its pools' guests only): unless `VM.Audit` on
/// `/vms` is held and propagates, [`Inventory::guests_trimmed`] says so and the inventory is
/// partial.
///
/// With `within`, the whole collection ends by then: a part not finished in time is an error
/// of that part ("not finished within …"), and what was read is kept.
pub async fn collect(client: &Client, concurrency: usize, within: Option<Duration>) -> Inventory {
    // Boxed: list answers held at once make a large future.
    Box::pin(collect_boxed(client, concurrency, within)).await
}

/// The list round's requests: nodes, guests, HA resources, the rights on `/vms`.
const LIST_REQUESTS: usize = 4;

/// Config reads in flight for a near server: one whose first TCP and TLS handshakes took a
/// few milliseconds at most ([`config_bound`]).
pub const NEAR_CONCURRENCY: usize = 8;

/// How fast the bound grows with the first connect time: this many reads in flight for each
/// [`NEAR_CONNECT`] the first connect took (a 20 ms connect, about a 10 ms round trip, gives 64).
const READS_PER_NEAR_CONNECT: u128 = 16;

/// The first connect time up to which a server counts as near (about two round trips and the
/// handshakes' work on a LAN): [`cpps_http::NEAR_CONNECT`], which also asks a near server for
/// its answers uncompressed.
pub const NEAR_CONNECT: Duration = cpps_http::NEAR_CONNECT;

/// Runs `list`, a list round of `list_requests` requests, while opening the connections of the
/// fan-out that follows it; returns what `list` gave and the fan-out's bound (at most
/// `concurrency`, [`config_bound`]).
///
/// First it opens one connection for each of the list's requests, which take them and give
/// them back to the pool for the fan-out; on a LAN their handshakes, on the list's path, then
/// wait behind no others. From `NEAR_CONNECT / 4` on, while the client's first handshake is
/// under way, it opens as many more as the time already waited shows the bound will be (at
/// least [`NEAR_CONCURRENCY`]; a 20 ms wait means 64), and once it ends, the rest of the
/// bound. Their handshakes then overlap the list's round trips instead of following them.
/// Connections the fan-out does not take are closed after a few seconds
/// ([`cpps_http::HttpClient::preconnect`]).
/// When the list round ends before any connect did (every request failed before connecting),
/// the bound is the near one.
///
/// The list starts once the first connect has ended, or after [`NEAR_CONNECT`] without it:
/// its requests wait for those connections anyway, and by then the client knows whether the
/// server is near and asks a near one for the answers uncompressed (a level-9 gzip of a
/// 600-guest `/cluster/resources` is milliseconds of the server's CPU before the fan-out can
/// start).
pub async fn list_round<T>(
    client: &Client,
    list_requests: usize,
    concurrency: usize,
    list: impl Future<Output = T>,
) -> (T, usize) {
    let http = client.http();
    let near = NEAR_CONCURRENCY.min(concurrency.max(1));
    // One each, so that none of the list's requests opens its own (`HttpClient::preconnect`).
    let first_wave = list_requests.max(1);
    http.preconnect(first_wave);
    let sizing = async {
        // While the first connect is under way, the time already waited is a lower bound of
        // its time, so the bound it will give is known to be at least `config_bound(waited)`:
        // those connections are opened at once rather than after the first handshake.
        let started = Instant::now();
        let mut opened = first_wave;
        let mut first = std::pin::pin!(http.first_connect_time());
        let period = NEAR_CONNECT / 4;
        let mut tick = tokio::time::interval_at(started + period, period);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let first = loop {
            tokio::select! {
                first = &mut first => break first,
                _ = tick.tick(), if opened < concurrency => {
                    let floor = config_bound(Some(started.elapsed()), concurrency);
                    http.preconnect(floor.saturating_sub(opened));
                    opened = opened.max(floor);
                }
            }
        };
        // The list's own connections may outnumber a small `concurrency`; the bound may not.
        let bound = config_bound(first, concurrency).max(opened.min(concurrency.max(1)));
        http.preconnect(bound.saturating_sub(opened));
        bound
    };
    let list = async {
        let _ = tokio::time::timeout(NEAR_CONNECT, http.first_connect_time()).await;
        list.await
    };
    let (sizing, list) = (std::pin::pin!(sizing), std::pin::pin!(list));
    match futures::future::select(sizing, list).await {
        futures::future::Either::Left((bound, list)) => (list.await, bound),
        futures::future::Either::Right((listed, _)) => (listed, near),
    }
}

/// Runs `needed` and `rest` at once until `needed` has ended; returns what it gave, and `rest`,
/// still running or already ended, to await later.
///
/// A list round's fan-out needs only some of its lists (the configs, the guest list): it starts
/// when those are in, while the others (HA resources, the rights on `/vms`) are still on their
/// way, instead of after the slowest list of the round.
pub async fn needed_first<N, R>(needed: N, rest: R) -> (N::Output, impl Future<Output = R::Output>)
where
    N: Future + Unpin,
    R: Future + Unpin,
{
    match futures::future::select(needed, rest).await {
        futures::future::Either::Left((needed, rest)) => {
            (needed, futures::future::Either::Left(rest))
        }
        futures::future::Either::Right((rest, needed)) => (
            needed.await,
            futures::future::Either::Right(futures::future::ready(rest)),
        ),
    }
}

/// Takes `requests` of `slots` (all it has, when it has fewer) for `rest`, the lists of a round
/// still on their way ([`needed_first`]), and gives them back when `rest` ends, the last of
/// them: the fan-out that started meanwhile, each read holding one of `slots`, keeps the
/// round's requests in flight within its bound. It takes them at once, so it is called before
/// any read takes a slot, on a semaphore nobody closes; otherwise it may hold fewer.
pub fn holding_slots<F: Future>(
    slots: &Semaphore,
    requests: usize,
    rest: F,
) -> impl Future<Output = F::Output> {
    let wanted = u32::try_from(requests.min(slots.available_permits())).unwrap_or(u32::MAX);
    let held = slots.try_acquire_many(wanted).ok();
    async move {
        let output = rest.await;
        drop(held);
        output
    }
}

/// Runs `read` as a task of its own, from the first poll of the future this returns, which
/// gives what `read` gave (or its panic); dropping it drops `read` too.
///
/// A fan-out's reads run so: the answers of a round arrive together, and each is then read
/// and decoded on whichever worker thread of the runtime is free, instead of one after the
/// other in the task that awaits them all.
///
/// # Panics
/// When first polled outside a Tokio runtime (`tokio::spawn`), as every request of the
/// client would.
pub async fn on_own_task<F>(read: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (task, handle) = futures::FutureExt::remote_handle(read);
    tokio::spawn(task);
    handle.await
}

/// How many config reads the sweep keeps in flight, at most `concurrency`.
///
/// A near server's handshakes are work on both sides, not waiting, and more connections only
/// add handshakes: [`NEAR_CONCURRENCY`] keep it busy. pveproxy runs 3 workers by default
/// (pve-manager `PVE/Service/pveproxy.pm`: `max_workers => 3`); against nginx on 127.0.0.1
/// (`cargo xtask bench sweep`'s estate, 300 configs, answers uncompressed) 8 in flight took
/// 21.5 ms, 16 took 24.4 ms and 4 took 28.2 ms (ten runs each, 2026-12-07). Farther away the
/// sweep waits for round trips, and the bound grows with the first connect time (a proxy for
/// the round trip): 16 reads for each [`NEAR_CONNECT`] it took, so 64 from a 20 ms connect on
/// (a 10 ms round trip).
pub fn config_bound(first_connect: Option<Duration>, concurrency: usize) -> usize {
    let concurrency = concurrency.max(1);
    let near = NEAR_CONCURRENCY.min(concurrency);
    let Some(took) = first_connect else {
        return near;
    };
    let scaled =
        (READS_PER_NEAR_CONNECT * took.as_micros()).div_ceil(NEAR_CONNECT.as_micros().max(1));
    usize::try_from(scaled)
        .unwrap_or(usize::MAX)
        .clamp(near, concurrency)
}

async fn collect_boxed(client: &Client, concurrency: usize, within: Option<Duration>) -> Inventory {
    let deadline = within.map(|d| Instant::now() + d);
    let cluster = client.cluster();
    // The configs need the guest list only: they start once it is in, while the other lists
    // finish. Boxed: list answers held at once make a large future.
    let ((resources, other_lists), bound) = list_round(
        client,
        LIST_REQUESTS,
        concurrency,
        needed_first(
            Box::pin(bounded(
                deadline,
                cluster.resources(Some(ResourceFilter::Vm)),
            )),
            Box::pin(async {
                futures::join!(
                    bounded(deadline, client.nodes()),
                    bounded(deadline, cluster.ha_resources()),
                    bounded(deadline, cluster.guest_list_trimmed()),
                )
            }),
        ),
    )
    .await;
    let mut errors = Vec::new();
    let resources = resources.unwrap_or_else(|e| {
        errors.push(e.named("guests"));
        Vec::new()
    });
    let containers: Vec<GuestRef> = resources
        .iter()
        .filter_map(GuestRef::from_resource)
        .filter(|g| g.kind == GuestKind::Lxc)
        .collect();
    // The lists still on their way hold their share of the bound.
    let slots = Semaphore::new(bound);
    // Nodes, HA resources and the rights on `/vms`: the round's lists but the guest list.
    let other_lists = holding_slots(&slots, LIST_REQUESTS - 1, other_lists);
    let (privileged, (nodes, ha, trimmed)) = futures::join!(
        read_privileged(client, containers, deadline, &slots, bound, &mut errors),
        other_lists
    );
    let nodes = nodes.unwrap_or_else(|e| {
        errors.push(e.named("nodes"));
        Vec::new()
    });
    let ha_state: BTreeMap<String, String> = match ha {
        Ok(ha) => ha
            .into_iter()
            .filter_map(|r| Some((r.guest()?.vmid.to_string(), r.requested_state().to_owned())))
            .collect(),
        Err(e) => {
            errors.push(e.named("HA resources"));
            BTreeMap::new()
        }
    };
    let guests_trimmed = trimmed.unwrap_or_else(|e| {
        Some(format!(
            "whether the guest list is whole could not be read (GET /access/permissions): {}",
            e.error
        ))
    });
    // A part cut off by the run's time limit says which requests were left without an answer.
    let activity = client.activity();
    let mut errors: Vec<PartError> = errors
        .into_iter()
        .map(|e| e.waiting_for(&activity))
        .collect();
    errors.sort_by(|a, b| a.part.cmp(&b.part));
    let mut guests = inventory_guests(&resources, &privileged, &ha_state);
    guests.sort_by_key(|g| g.vmid);
    let mut nodes: Vec<InventoryNode> = nodes
        .into_iter()
        .map(|n| InventoryNode {
            node: n.node.to_string(),
            status: n.status.to_string(),
        })
        .collect();
    nodes.sort_by(|a, b| a.node.cmp(&b.node));
    Inventory {
        nodes,
        guests,
        errors,
        guests_trimmed,
    }
}

/// Whether each container is privileged, read from its config, each read holding one of
/// `slots` (`bound` of them, some held by the lists still on their way) and at most `bound`
/// waiting; a config that cannot be read is an error of its own and leaves that container
/// unknown.
async fn read_privileged(
    client: &Client,
    containers: Vec<GuestRef>,
    deadline: Option<Instant>,
    slots: &Semaphore,
    bound: usize,
    errors: &mut Vec<PartError>,
) -> BTreeMap<VmId, bool> {
    let mut privileged = BTreeMap::new();
    // The semaphore is never closed; were it, the reads would simply run unbounded.
    let read_in_slot = |guest: GuestRef| {
        let client = client.clone();
        async move {
            let _slot = slots.acquire().await.ok();
            on_own_task(async move {
                let read = bounded(deadline, async {
                    let config = client
                        .node(guest.node.as_str())
                        .lxc(guest.vmid)
                        .config()
                        .await?;
                    config.is_privileged().map(Some)
                })
                .await;
                (guest, read)
            })
            .await
        }
    };
    let configs: Vec<(GuestRef, Result<Option<bool>, PartError>)> =
        futures::stream::iter(containers)
            .map(read_in_slot)
            .buffer_unordered(bound.max(1))
            .collect()
            .await;
    for (guest, result) in configs {
        match result {
            Ok(Some(value)) => {
                privileged.insert(guest.vmid, value);
            }
            Ok(None) => {}
            Err(e) => {
                errors.push(e.named(format!("config of CT {} on {}", guest.vmid, guest.node)))
            }
        }
    }
    privileged
}

/// Each guest of the resource list with what the other reads said of it: privileged, and its
/// HA state (the resource's own, else the HA resources').
fn inventory_guests(
    resources: &[ClusterResource],
    privileged: &BTreeMap<VmId, bool>,
    ha_state: &BTreeMap<String, String>,
) -> Vec<InventoryGuest> {
    resources
        .iter()
        .filter_map(|r| {
            let guest = GuestRef::from_resource(r)?;
            Some(InventoryGuest {
                node: guest.node.to_string(),
                vmid: guest.vmid.get(),
                kind: guest.kind,
                name: r.name.clone(),
                status: r.status.clone().unwrap_or_else(|| "unknown".to_owned()),
                privileged: privileged.get(&guest.vmid).copied(),
                ha: r
                    .hastate
                    .clone()
                    .filter(|s| !s.is_empty())
                    .or_else(|| ha_state.get(&guest.vmid.to_string()).cloned()),
            })
        })
        .collect()
}

/// How complete an inventory is; the `inventory` binary's exit status follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Completeness {
    /// Every part was read (exit status 0).
    Complete,
    /// Some parts could not be read, or the guest list may leave guests out; the rest is
    /// shown (exit status 1).
    Partial,
    /// Nothing could be read (exit status 2).
    Failed,
}

impl Inventory {
    /// Whether every part, some, or none could be read.
    pub fn completeness(&self) -> Completeness {
        if self.errors.is_empty() && self.guests_trimmed.is_none() {
            Completeness::Complete
        } else if self.nodes.is_empty() && self.guests.is_empty() {
            Completeness::Failed
        } else {
            Completeness::Partial
        }
    }

    /// A plain-text report: nodes, then one line per guest, then what could not be read.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "NODE                 STATUS");
        for n in &self.nodes {
            let _ = writeln!(out, "{:<20} {}", n.node, n.status);
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<10} {:<5} {:<16} {:<24} {:<9} {:<11} HA",
            "VMID", "KIND", "NODE", "NAME", "STATUS", "PRIVILEGED"
        );
        for g in &self.guests {
            let privileged = match g.privileged {
                Some(true) => "yes",
                Some(false) => "no",
                None => "-",
            };
            let _ = writeln!(
                out,
                "{:<10} {:<5} {:<16} {:<24} {:<9} {:<11} {}",
                g.vmid,
                g.kind.as_str(),
                g.node,
                g.name.as_deref().unwrap_or("-"),
                g.status,
                privileged,
                g.ha.as_deref().unwrap_or("-")
            );
        }
        if let Some(why) = &self.guests_trimmed {
            let _ = writeln!(out);
            let _ = writeln!(out, "PARTIAL: {why}");
        }
        if !self.errors.is_empty() {
            let _ = writeln!(out);
            let _ = writeln!(
                out,
                "PARTIAL: {} part(s) could not be read",
                self.errors.len()
            );
            for e in &self.errors {
                let _ = writeln!(out, "error: {}: {}", e.part, e.error);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The read's output comes back; a future dropped before its read ended drops the read,
    /// so that a fan-out cut off by its deadline leaves no request running.
    #[tokio::test]
    async fn on_own_task_gives_the_output_and_drops_the_read_with_its_future() {
        assert_eq!(on_own_task(async { 5 }).await, 5);

        struct Noted(Option<tokio::sync::oneshot::Sender<()>>);
        impl Drop for Noted {
            fn drop(&mut self) {
                if let Some(sender) = self.0.take() {
                    let _ = sender.send(());
                }
            }
        }
        let (noted, dropped) = tokio::sync::oneshot::channel();
        let (started, began) = tokio::sync::oneshot::channel();
        let mut running = Box::pin(on_own_task(async move {
            let _noted = Noted(Some(noted));
            let _ = started.send(());
            std::future::pending::<()>().await;
        }));
        assert!(futures::poll!(&mut running).is_pending());
        began.await.expect("the read started");
        drop(running);
        tokio::time::timeout(Duration::from_secs(10), dropped)
            .await
            .expect("the read is dropped")
            .expect("the read is dropped, not forgotten");
    }

    /// Whichever ends first, `needed`'s output comes back with `rest`, which keeps running (or
    /// has ended) and gives its own output when awaited.
    #[tokio::test]
    async fn needed_first_hands_back_the_rest_running_or_ended() {
        let (gate, opened) = tokio::sync::oneshot::channel::<u8>();
        let (needed, rest) = needed_first(
            Box::pin(async { 1 }),
            Box::pin(async { opened.await.unwrap_or(0) }),
        )
        .await;
        assert_eq!(needed, 1);
        gate.send(2).unwrap();
        assert_eq!(rest.await, 2);

        let (needed, rest) = needed_first(
            Box::pin(async {
                tokio::task::yield_now().await;
                3
            }),
            Box::pin(async { 4 }),
        )
        .await;
        assert_eq!((needed, rest.await), (3, 4));
    }

    #[test]
    fn the_config_bound_grows_with_the_first_connect_time_up_to_the_concurrency() {
        let ms = Duration::from_millis;
        // Near: handshakes are work, 8 in flight keep the server busy.
        assert_eq!(config_bound(Some(ms(1)), 64), 8);
        assert_eq!(config_bound(Some(ms(2)), 64), 8);
        // Then 16 for each 5 ms of first connect: a 10 ms connect (a 5 ms round trip) gives
        // 32, and 20 ms reaches 64.
        assert_eq!(config_bound(Some(ms(3)), 64), 10);
        assert_eq!(config_bound(Some(ms(5)), 64), 16);
        assert_eq!(config_bound(Some(ms(10)), 64), 32);
        assert_eq!(config_bound(Some(ms(20)), 64), 64);
        assert_eq!(config_bound(Some(ms(40)), 64), 64);
        assert_eq!(config_bound(Some(ms(40)), 128), 128);
        // A caller's lower bound wins; an unknown connect time counts as near.
        assert_eq!(config_bound(Some(ms(40)), 8), 8);
        assert_eq!(config_bound(None, 64), 8);
        assert_eq!(config_bound(Some(ms(1)), 0), 1);
    }
}
