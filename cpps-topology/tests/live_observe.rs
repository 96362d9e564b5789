//! The order and width of one observation: which sources start first, and how many at once by
//! default. No server is needed.
#![cfg(feature = "live")]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use cpps_topology::live::facts::{GpuHostFacts, PveFacts, SourceFailure, SourceKind};
use cpps_topology::live::sources::{Source, Sources};
use cpps_topology::live::{self, DEFAULT_SOURCE_CONCURRENCY, ObserveOptions};

/// A source that notes its kind in `started` when it is asked, then answers at once.
struct Noted<T> {
    kind: SourceKind,
    started: Arc<Mutex<Vec<SourceKind>>>,
    answer: fn() -> T,
}

#[async_trait]
impl<T: Send + Sync> Source<T> for Noted<T> {
    fn kind(&self) -> SourceKind {
        self.kind
    }

    fn endpoint(&self) -> String {
        format!("{:?}", self.kind)
    }

    async fn observe(&self) -> Result<T, SourceFailure> {
        self.started.lock().unwrap().push(self.kind);
        Ok((self.answer)())
    }
}

fn noted<T>(
    kind: SourceKind,
    started: &Arc<Mutex<Vec<SourceKind>>>,
    answer: fn() -> T,
) -> Box<Noted<T>> {
    Box::new(Noted {
        kind,
        started: Arc::clone(started),
        answer,
    })
}

/// A GPU host's reading waits out its XID window whatever the network does (the bench `audit`
/// measured it as the slowest source, 0.5 s): it must not queue behind the other sources.
#[tokio::test]
async fn gpu_hosts_are_asked_before_the_other_sources() {
    let started = Arc::new(Mutex::new(Vec::new()));
    let mut sources = Sources::default();
    for site in ["franca", "sp"] {
        let s = sources.site_mut(site);
        s.proxmox = Some(noted(SourceKind::Proxmox, &started, PveFacts::default));
        s.gpus.push((
            format!("{site}-gpu"),
            noted(SourceKind::Nvml, &started, GpuHostFacts::default),
        ));
    }
    let one_at_a_time = ObserveOptions::new(1, std::time::Duration::from_secs(10));
    let observed = live::observe(&sources, &one_at_a_time).await;
    assert_eq!(
        *started.lock().unwrap(),
        [
            SourceKind::Nvml,
            SourceKind::Nvml,
            SourceKind::Proxmox,
            SourceKind::Proxmox
        ]
    );
    // The answers still land in their own sites.
    for site in ["franca", "sp"] {
        let site = observed.site(site).unwrap();
        assert!(site.proxmox.observed().is_some());
        assert_eq!(site.gpus.len(), 1);
        assert!(site.gpus[0].1.observed().is_some());
    }
}

/// Each source is another server, so the default bound covers every source of the two-site
/// estate (Proxmox, LINSTOR, PBS, two routers, a Kubernetes cluster and a GPU host per site).
#[test]
fn the_default_bound_covers_every_source_of_the_estate() {
    let sources_of_the_estate = 2 * 7;
    let default = ObserveOptions::default().concurrency;
    assert_eq!(default, DEFAULT_SOURCE_CONCURRENCY);
    assert!(default >= sources_of_the_estate);
}
