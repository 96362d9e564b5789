//! The live parts of PVE-002 (the versions the nodes report, judged by the static part's own
//! [`lagging_majors`]) and PVE-003 (a guest declared HA is a real Proxmox HA resource, not just
//! `on_boot`; its static part, an `ha` whose own state lags the guest's, shares no logic).

use super::index::PveIndex;
use crate::finding::Severity;
use crate::live::diff::DriftKind;
use crate::live::rules::{Live, LiveCheck, emit_on};
use crate::live::runbook_ha::declared_guests;
use crate::model::{ComponentRef, Host, ProxmoxCluster};
use crate::rules::RuleId;
use crate::rules::checks::{Sink, lagging_majors};

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] =
    &[(RuleId("PVE-002"), pve_002), (RuleId("PVE-003"), pve_003)];

/// PVE-003: a guest declared HA is a real Proxmox HA resource, not just `on_boot`.
pub(crate) fn pve_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for drift in &live.diff.drift {
        let DriftKind::DeclaredNotRealized { property } = &drift.kind else {
            continue;
        };
        let why = match property.as_str() {
            "ha" => {
                "without an HA resource it only restarts with its node (on_boot), it does not fail over"
            }
            "ha_state" => "it does not fail over",
            _ => continue,
        };
        if let Some(c) = live.component_of(drift) {
            let message = format!("{}; {why}", drift.message);
            emit_on(sink, Severity::Warning, c, message);
        }
    }
    ha_requests_unread(live, sink);
}

/// PVE-003 where the HA resource list could not be read. A declared-HA guest without `hastate`
/// may be a resource all the same: pve-manager `PVE/API2/Cluster.pm` `resources` takes it from
/// the CRM's service status, else from the `state` in `ha/resources.cfg`, which a resource
/// added without one lacks (pve-ha-manager `src/PVE/HA/Resources.pm`: optional, default
/// `started`) until the CRM tracks it. A declared-HA guest whose CRM state is
/// `stopped` (or on its way there) may have been asked `stopped`, which still fails over, or
/// `disabled`, which does not (pve-ha-manager `src/PVE/HA/Manager.pm` `next_state_started`:
/// `disabled` → `request_stop` → `stopped`); `hastate` alone cannot tell them apart.
fn ha_requests_unread(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(facts) = site.proxmox.observed() else {
            continue;
        };
        let Some(why) = facts.ha_resources_unread() else {
            continue;
        };
        let index = PveIndex::new(facts);
        for (id, name, ha) in declared_guests(live.topo, &site.site) {
            let Some(g) = index.guest(name).filter(|_| ha) else {
                continue;
            };
            let Some(c) = live.topo.component(&id) else {
                continue;
            };
            if !g.ha {
                let message = format!(
                    "cannot tell whether {id} (guest {}) is an HA resource: Proxmox gives it no HA state, as for a resource the HA manager does not track yet that was added without one, and the HA resources could not be read ({why})",
                    g.vmid
                );
                emit_on(sink, Severity::Warning, c, message);
                continue;
            }
            let Some(state) = g
                .ha_state
                .as_deref()
                .filter(|s| matches!(*s, "stopped" | "request_stop"))
            else {
                continue;
            };
            let message = format!(
                "cannot tell whether {id}'s HA resource (guest {}) fails over: its state `{state}` follows a request `stopped` and a request `disabled` alike, and the requests could not be read ({why})",
                g.vmid
            );
            emit_on(sink, Severity::Warning, c, message);
        }
    }
}

/// PVE-002 (live): the nodes of each declared Proxmox cluster of an observed site run one major
/// PVE version, as they report it (`GET /nodes/{node}/status`, `pveversion`). A node whose
/// version was not read (or cannot be read as a version) makes the cluster "cannot tell".
pub(crate) fn pve_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(facts) = site.proxmox.observed() else {
            continue;
        };
        let index = PveIndex::new(facts);
        for cluster in live
            .topo
            .proxmox_clusters()
            .iter()
            .filter(|c| c.site.as_str() == site.site)
        {
            cluster_versions(live, sink, &index, cluster);
        }
    }
}

/// PVE-002's live judgement of one cluster's nodes.
fn cluster_versions(
    live: &Live<'_>,
    sink: &mut Sink<'_>,
    index: &PveIndex<'_>,
    cluster: &ProxmoxCluster,
) {
    let mut reported: Vec<((&Host, &str), u64)> = Vec::new();
    let mut unread = Vec::new();
    for host in live.topo.hosts_of_cluster(&cluster.id) {
        // A declared host Proxmox does not list is STATE-002's finding, not a version question.
        let Some(node) = index.node(host.id.as_str()) else {
            continue;
        };
        let version = node.pve_version.as_deref();
        match version.and_then(|v| Some((v, v.split('.').next()?.parse::<u64>().ok()?))) {
            Some((v, major)) => reported.push(((host, v), major)),
            None => unread.push(host.id.as_str()),
        }
    }
    if !unread.is_empty() {
        let message = format!(
            "cannot tell whether Proxmox cluster {} runs one major PVE version: node{} {} did not report {} version",
            cluster.id,
            if unread.len() == 1 { "" } else { "s" },
            unread.join(", "),
            if unread.len() == 1 { "its" } else { "their" }
        );
        emit_on(
            sink,
            Severity::Warning,
            ComponentRef::ProxmoxCluster(cluster),
            message,
        );
    }
    let Some(((_, newest), behind)) = lagging_majors(&reported) else {
        return;
    };
    for (host, version) in behind {
        let message = format!(
            "node {} reports pve-manager {version} while Proxmox cluster {} already has nodes on {newest}",
            host.id, cluster.id
        );
        emit_on(sink, Severity::Warning, ComponentRef::Host(host), message);
    }
}
