//! The rooms of the live half, registered once: each system's part of a site's comparison and
//! each system's live rules. The comparison ([`diff()`]) and the live rule runner are loops over
//! these lists; a system's room (`live/pve/`, …) imports the shared vocabulary (`diff`,
//! `rules`, `facts`, `source`) and never this registry, so no two modules import each other.

use super::diff::{Builder, Diff};
use super::facts::{Observation, SiteObservation};
use super::index::DeclaredIndex;
use super::rules::{Live, LiveCheck, LiveOptions};
use crate::finding::Finding;
use crate::model::{Site, SiteId, Topology};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// One system's part of a site's comparison: the components that system can show.
type SitePart = fn(&mut Builder<'_>, &SiteObservation, &Site);

/// Every system's part, in the order the comparison lists components. NVML has none: a GPU
/// host's evidence is its Proxmox node, and GPU-005 reads the GPU facts directly.
const SITE_PARTS: [SitePart; 5] = [
    super::pve::site::compare,
    super::linstor::site::compare,
    super::kube::site::compare,
    super::pbs::site::compare,
    super::vyos::site::compare,
];

/// Compares the declared topology with what was observed, site by site.
///
/// Only sites present in `observed` are compared; a site that was not observed at all says
/// nothing either way.
pub fn diff(topology: &Topology, observed: &Observation) -> Diff {
    let mut b = Builder::new(topology);
    for site in &observed.sites {
        let declared = site
            .site
            .parse::<SiteId>()
            .ok()
            .and_then(|id| topology.site(&id));
        if let Some(declared) = declared {
            for part in SITE_PARTS {
                part(&mut b, site, declared);
            }
        }
    }
    b.finish()
}

/// Every rule with a live part, system by system: each system's folder lists its own.
pub(crate) static LIVE_CHECKS: [&[(RuleId, LiveCheck)]; 6] = [
    super::rules::ACROSS_SYSTEMS,
    super::pve::rules::CHECKS,
    super::linstor::rules::CHECKS,
    super::kube::rules::CHECKS,
    super::gpu::rules::CHECKS,
    super::vyos::rules::CHECKS,
];

/// How many rules have a live part.
pub(crate) fn live_check_count() -> usize {
    LIVE_CHECKS.iter().map(|checks| checks.len()).sum()
}

/// Runs every live check over `observed` and its diff.
pub(crate) fn live_findings(
    topo: &Topology,
    file: &str,
    observed: &Observation,
    diff: &Diff,
    options: LiveOptions,
) -> Vec<Finding> {
    let live = Live {
        topo,
        observed,
        diff,
        options,
        declared: DeclaredIndex::new(topo),
    };
    let mut sink = Sink::new(topo, file);
    for (rule, check) in LIVE_CHECKS.iter().copied().flatten() {
        sink.set_rule(*rule);
        check(&live, &mut sink);
    }
    sink.into_findings()
}
