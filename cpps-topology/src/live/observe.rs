//! Observation of every site at once: a bounded number of sources in flight, one deadline for
//! the whole sweep, and every site reported whatever happens to the others.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use futures::StreamExt;
use tokio::time::Instant;

use super::facts::{
    GpuHostFacts, KubeFacts, LinstorFacts, Observation, PbsFacts, PveFacts, SiteObservation,
    SourceFailure, SourceKind, Sourced, VyosFacts,
};
use super::sources::{Source, Sources};

/// Limits of one observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObserveOptions {
    /// At most this many sources are asked at once, across all sites (at least 1).
    pub concurrency: usize,
    /// The whole sweep ends after this long; a source still unanswered then is a failure
    /// ("no answer within …") and the others keep what they said.
    pub deadline: Duration,
}

impl ObserveOptions {
    /// At most `concurrency` sources at once (at least 1), all done within `deadline`.
    pub fn new(concurrency: usize, deadline: Duration) -> Self {
        Self {
            concurrency: concurrency.max(1),
            deadline,
        }
    }
}

/// Sources asked at once by default: every source of the two-site estate (2 × 7). Each source is
/// another server, so the bound protects the client, not a server; below the number of sources,
/// the queued ones wait for the slowest, such as a GPU host's fixed XID window.
pub const DEFAULT_SOURCE_CONCURRENCY: usize = 16;

impl Default for ObserveOptions {
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_SOURCE_CONCURRENCY,
            deadline: Duration::from_secs(60),
        }
    }
}

/// Told as the observation goes, for progress bars.
pub trait Progress: Send + Sync {
    /// Site `site` has `sources` sources to ask (called for every site before any answer).
    fn site_started(&self, site: &str, sources: usize);
    /// One source of `site` finished (`ok`: it answered).
    fn source_done(&self, site: &str, source: SourceKind, ok: bool);
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn site_started(&self, _: &str, _: usize) {}
    fn source_done(&self, _: &str, _: SourceKind, _: bool) {}
}

enum Slot {
    Proxmox(usize),
    Linstor(usize),
    Pbs(usize),
    Vyos(usize),
    VyosPeer(usize),
    Kube(usize, usize),
    Gpu(usize, usize),
}

enum Answer {
    Proxmox(Result<PveFacts, SourceFailure>),
    Linstor(Result<LinstorFacts, SourceFailure>),
    Pbs(Result<PbsFacts, SourceFailure>),
    Vyos(Result<VyosFacts, SourceFailure>),
    Kube(Result<KubeFacts, SourceFailure>),
    Gpu(Result<GpuHostFacts, SourceFailure>),
}

impl Answer {
    fn ok(&self) -> bool {
        match self {
            Self::Proxmox(r) => r.is_ok(),
            Self::Linstor(r) => r.is_ok(),
            Self::Pbs(r) => r.is_ok(),
            Self::Vyos(r) => r.is_ok(),
            Self::Kube(r) => r.is_ok(),
            Self::Gpu(r) => r.is_ok(),
        }
    }
}

type Task<'a> = Pin<Box<dyn Future<Output = (Slot, SourceKind, Answer)> + Send + 'a>>;

/// The sweep's one deadline: the instant, and how long it allowed (for the failure's message).
#[derive(Clone, Copy)]
struct Deadline {
    at: Instant,
    allowed: Duration,
}

/// The task that asks `source` before the deadline and files its result, wrapped by `answer`,
/// under `slot`.
fn task<'a, T: 'a>(
    source: &'a dyn Source<T>,
    when: Deadline,
    slot: Slot,
    answer: fn(Result<T, SourceFailure>) -> Answer,
) -> Task<'a> {
    Box::pin(async move {
        let kind = source.kind();
        (slot, kind, answer(ask(source, when.at, when.allowed).await))
    })
}

/// Asks `source` before `deadline`; an unanswered source is a failure naming the deadline.
async fn ask<T>(
    source: &dyn Source<T>,
    deadline: Instant,
    allowed: Duration,
) -> Result<T, SourceFailure> {
    match tokio::time::timeout_at(deadline, source.observe()).await {
        Ok(result) => result,
        Err(_) => Err(SourceFailure {
            source: source.kind(),
            endpoint: source.endpoint(),
            reason: format!("no answer within the deadline of {allowed:?}"),
        }),
    }
}

/// Observes every site: see [`observe_with`].
pub async fn observe(sources: &Sources, options: &ObserveOptions) -> Observation {
    observe_with(sources, options, &NoProgress).await
}

/// Observes every site concurrently: at most `options.concurrency` sources in flight across
/// all sites, all of them cut off at `options.deadline`. A source that fails or does not answer
/// becomes [`Sourced::Failed`] in its own site; no failure stops or hides another source.
pub async fn observe_with(
    sources: &Sources,
    options: &ObserveOptions,
    progress: &dyn Progress,
) -> Observation {
    let taken_at = jiff::Timestamp::now().as_second();
    let when = Deadline {
        at: Instant::now() + options.deadline,
        allowed: options.deadline,
    };
    let mut sites: Vec<SiteObservation> = sources
        .sites
        .iter()
        .map(|s| SiteObservation::new(&s.site))
        .collect();
    // GPU hosts go first: their XID window waits a fixed time whatever the network does, so it
    // should overlap the other sources instead of queueing behind them.
    let mut tasks: Vec<Task<'_>> = Vec::new();
    let mut gpu_tasks: Vec<Task<'_>> = Vec::new();
    for (i, site) in sources.sites.iter().enumerate() {
        progress.site_started(&site.site, site.len());
        if let Some(s) = &site.proxmox {
            tasks.push(task(s.as_ref(), when, Slot::Proxmox(i), Answer::Proxmox));
        }
        if let Some(s) = &site.linstor {
            tasks.push(task(s.as_ref(), when, Slot::Linstor(i), Answer::Linstor));
        }
        if let Some(s) = &site.pbs {
            tasks.push(task(s.as_ref(), when, Slot::Pbs(i), Answer::Pbs));
        }
        if let Some(s) = &site.vyos {
            tasks.push(task(s.as_ref(), when, Slot::Vyos(i), Answer::Vyos));
        }
        if let Some(s) = &site.vyos_peer {
            tasks.push(task(s.as_ref(), when, Slot::VyosPeer(i), Answer::Vyos));
        }
        for (j, (id, s)) in site.kubernetes.iter().enumerate() {
            sites[i]
                .kubernetes
                .push((id.clone(), Sourced::NotConfigured));
            tasks.push(task(s.as_ref(), when, Slot::Kube(i, j), Answer::Kube));
        }
        for (j, (id, s)) in site.gpus.iter().enumerate() {
            sites[i].gpus.push((id.clone(), Sourced::NotConfigured));
            gpu_tasks.push(task(s.as_ref(), when, Slot::Gpu(i, j), Answer::Gpu));
        }
    }
    gpu_tasks.append(&mut tasks);
    let tasks = gpu_tasks;
    let mut answers = futures::stream::iter(tasks).buffer_unordered(options.concurrency.max(1));
    while let Some((slot, kind, answer)) = answers.next().await {
        let site_index = match slot {
            Slot::Proxmox(i)
            | Slot::Linstor(i)
            | Slot::Pbs(i)
            | Slot::Vyos(i)
            | Slot::VyosPeer(i)
            | Slot::Kube(i, _)
            | Slot::Gpu(i, _) => i,
        };
        progress.source_done(&sites[site_index].site, kind, answer.ok());
        let site = &mut sites[site_index];
        match (slot, answer) {
            (Slot::Proxmox(_), Answer::Proxmox(r)) => site.proxmox = r.into(),
            (Slot::Linstor(_), Answer::Linstor(r)) => site.linstor = r.into(),
            (Slot::Pbs(_), Answer::Pbs(r)) => site.pbs = r.into(),
            (Slot::Vyos(_), Answer::Vyos(r)) => site.vyos = r.into(),
            (Slot::VyosPeer(_), Answer::Vyos(r)) => site.vyos_peer = r.into(),
            (Slot::Kube(_, j), Answer::Kube(r)) => site.kubernetes[j].1 = r.into(),
            (Slot::Gpu(_, j), Answer::Gpu(r)) => site.gpus[j].1 = r.into(),
            // Every task pairs its slot with the answer of the same kind.
            _ => {}
        }
    }
    Observation { taken_at, sites }
}
