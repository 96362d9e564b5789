//! Proxmox VE's part of a site's comparison: hosts with nodes, guests and Traefik instances with
//! guests, clusters with their hosts; nodes and guests the file does not declare.

use std::collections::BTreeSet;

use super::facts::{PveFacts, PveGuest};
use super::index::PveIndex;
use crate::live::diff::{Builder, DriftKind, Evidence, evidence_of};
use crate::live::facts::{SiteObservation, Sourced};
use crate::model::{ComponentRef, Guest, GuestKind, Site};

/// Compares `declared`'s hosts, guests, Traefik instances and clusters with what the site's
/// Proxmox VE reports.
pub(crate) fn compare(b: &mut Builder<'_>, site: &SiteObservation, declared: &Site) {
    let pve = &site.proxmox;
    // Every lookup goes through this index, built once: no component searches a list of facts.
    let index = pve.observed().map(PveIndex::new).unwrap_or_default();
    nodes(b, site, declared, &index);
    let mut names = guests(b, site, declared, &index);
    traefik(b, site, declared, &index, &mut names);
    if let Some(facts) = pve.observed() {
        undeclared_guests(b, site, facts, &names, &index);
    }
    clusters(b, site, declared, &index);
}

/// Hosts and Proxmox nodes: presence, online state, the pve-manager major; undeclared nodes.
fn nodes(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site, pve_index: &PveIndex<'_>) {
    let (topo, pve) = (b.topo, &site.proxmox);
    let hosts: Vec<_> = topo.hosts_in(&site_id.id).collect();
    for host in &hosts {
        let node = pve_index.node(host.id.as_str());
        let evidence = evidence_of(pve, |_| node.is_some());
        let c = ComponentRef::Host(host);
        b.record(c, site, evidence);
        if let Some(node) = node {
            if !node.online {
                b.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "status".to_owned(),
                        declared: "online".to_owned(),
                        observed: "not online".to_owned(),
                    },
                    // `offline` (corosync) or `unknown` (no status data within five minutes):
                    // pve-manager `PVE/API2Tools.pm` `extract_node_stats`.
                    format!("Proxmox does not report node {} online", node.name),
                );
            }
            if let (Some(declared), Some(observed)) = (&host.pve_version, &node.pve_version) {
                let major = observed.split('.').next().unwrap_or("");
                if major != declared.major().to_string() {
                    b.drift(
                        site,
                        c,
                        DriftKind::Mismatch {
                            property: "pve_version".to_owned(),
                            declared: declared.to_string(),
                            observed: observed.clone(),
                        },
                        format!(
                            "node {} runs pve-manager {observed}, the file declares {declared}",
                            node.name
                        ),
                    );
                }
            }
        }
    }
    if let Some(facts) = pve.observed() {
        let declared: BTreeSet<&str> = hosts.iter().map(|h| h.id.as_str()).collect();
        for node in &facts.nodes {
            if !declared.contains(node.name.as_str()) && topo.component(&node.name).is_none() {
                b.undeclared(
                    site,
                    "node",
                    node.name.clone(),
                    format!(
                        "Proxmox node {} is in the cluster but not in the topology file",
                        node.name
                    ),
                );
            }
        }
    }
}

/// Guests: presence and their properties. Returns the declared names, for the undeclared ones.
fn guests(
    b: &mut Builder<'_>,
    site: &SiteObservation,
    site_id: &Site,
    pve_index: &PveIndex<'_>,
) -> BTreeSet<String> {
    let (topo, pve) = (b.topo, &site.proxmox);

    let mut declared_guests: BTreeSet<String> = BTreeSet::new();
    for guest in topo
        .guests()
        .iter()
        .filter(|g| topo.site_of_guest(g) == Some(&site_id.id))
    {
        declared_guests.insert(guest.id.as_str().to_owned());
        let observed = pve_index.guest(guest.id.as_str());
        let c = ComponentRef::Guest(guest);
        b.record(c, site, guest_evidence(pve, pve_index, observed));
        let Some(g) = observed else { continue };
        guest_mismatches(b, site, guest, g);
        if guest.ha
            && let Some(why) = ha_not_realized(pve, g)
        {
            let what = if g.kind.as_str() == "lxc" { "CT" } else { "VM" };
            let message = format!(
                "guest {} declares `ha: true` but {what} {} {why}",
                guest.id, g.vmid
            );
            b.not_realized(site, c, ha_property(g), message);
        }
    }
    declared_guests
}

/// The evidence about a declared guest name that designates `observed`. A name no guest has
/// is absent only when the list is whole and names every guest in it: a list that leaves out
/// what the credentials may not audit, or one with guests listed without a name, cannot tell.
fn guest_evidence(
    pve: &Sourced<PveFacts>,
    pve_index: &PveIndex<'_>,
    observed: Option<&PveGuest>,
) -> Evidence {
    let trimmed = pve.observed().and_then(|f| f.guests_trimmed.as_deref());
    match (observed, trimmed, pve_index.nameless_guests()) {
        (None, Some(why), _) => Evidence::Unknown(format!("not in the guest list: {why}")),
        (None, None, Some(why)) => {
            Evidence::Unknown(format!("not in the guest list by name: {why}"))
        }
        _ => evidence_of(pve, |_| observed.is_some()),
    }
}

/// A declared guest's kind, privilege and host against the Proxmox guest of its name.
fn guest_mismatches(b: &mut Builder<'_>, site: &SiteObservation, guest: &Guest, g: &PveGuest) {
    let c = ComponentRef::Guest(guest);
    let kind = match guest.kind {
        GuestKind::Vm => "vm",
        GuestKind::Lxc => "lxc",
    };
    if kind != g.kind.as_str() {
        b.drift(
            site,
            c,
            DriftKind::Mismatch {
                property: "kind".to_owned(),
                declared: kind.to_owned(),
                observed: g.kind.as_str().to_owned(),
            },
            format!(
                "guest {} is a {} ({}), declared {kind}",
                guest.id,
                g.kind.as_str(),
                g.vmid
            ),
        );
    }
    if guest.kind == GuestKind::Lxc
        && let Some(privileged) = g.privileged
        && privileged != guest.privileged
    {
        let word = |p: bool| if p { "privileged" } else { "unprivileged" };
        b.drift(
            site,
            c,
            DriftKind::Mismatch {
                property: "privileged".to_owned(),
                declared: guest.privileged.to_string(),
                observed: privileged.to_string(),
            },
            format!(
                "CT {} ({}) is {}, the file declares it {}",
                g.vmid,
                guest.id,
                word(privileged),
                word(guest.privileged)
            ),
        );
    }
    if g.node != guest.host.as_str() {
        b.drift(
            site,
            c,
            DriftKind::Mismatch {
                property: "host".to_owned(),
                declared: guest.host.to_string(),
                observed: g.node.clone(),
            },
            format!(
                "guest {} ({}) runs on {}, declared on {}",
                guest.id, g.vmid, g.node, guest.host
            ),
        );
    }
}

/// Traefik instances that are guests: presence and HA. Their guest names join `declared_guests`.
fn traefik(
    b: &mut Builder<'_>,
    site: &SiteObservation,
    site_id: &Site,
    pve_index: &PveIndex<'_>,
    declared_guests: &mut BTreeSet<String>,
) {
    let (topo, pve) = (b.topo, &site.proxmox);
    for traefik in topo.traefik().iter().filter(|t| t.site == site_id.id) {
        let name = traefik
            .guest
            .as_ref()
            .map_or(traefik.id.as_str(), |g| g.as_str());
        declared_guests.insert(name.to_owned());
        let observed = pve_index.guest(name);
        let c = ComponentRef::Traefik(traefik);
        b.record(c, site, guest_evidence(pve, pve_index, observed));
        if let Some(g) = observed
            && traefik.ha
            && let Some(why) = ha_not_realized(pve, g)
        {
            let message = format!(
                "{} declares `ha: true` but its guest {} ({name}) {why}",
                traefik.id, g.vmid
            );
            b.not_realized(site, c, ha_property(g), message);
        }
    }
}

/// Why guest `g`'s HA does not realize a declared `ha: true`, if it does not: it is no HA
/// resource, or its resource is in a state the HA manager does not recover
/// ([`PveGuest::ha_without_failover`]). Without the HA list a guest without `hastate` may
/// still be a resource: PVE-003 says "cannot tell" ([`super::rules`]), not "not realized".
fn ha_not_realized(pve: &Sourced<PveFacts>, g: &PveGuest) -> Option<String> {
    if !g.ha {
        let unread = pve
            .observed()
            .is_some_and(|f| f.ha_resources_unread().is_some());
        return (!unread).then(|| "is not a Proxmox HA resource".to_owned());
    }
    g.ha_without_failover().map(|state| {
        format!("is an HA resource in state `{state}`, which the HA manager does not recover")
    })
}

/// The property a guest's unrealized HA is about: `ha` when it is no HA resource, `ha_state`
/// when its resource's state keeps it from failing over.
fn ha_property(g: &PveGuest) -> &'static str {
    if g.ha { "ha_state" } else { "ha" }
}

/// Guests Proxmox reports that the file does not declare. A guest listed without a name is
/// one only when every declared name designates a guest: otherwise it may be one of those not
/// found, which their evidence says ([`PveIndex::nameless_guests`]).
fn undeclared_guests(
    b: &mut Builder<'_>,
    site: &SiteObservation,
    facts: &PveFacts,
    declared_guests: &BTreeSet<String>,
    pve_index: &PveIndex<'_>,
) {
    let some_declared_unfound = declared_guests
        .iter()
        .any(|name| pve_index.guest(name).is_none());
    for g in &facts.guests {
        let name = g.name.as_deref().unwrap_or("");
        if declared_guests.contains(name) || (name.is_empty() && some_declared_unfound) {
            continue;
        }
        let shown = if name.is_empty() {
            g.vmid.to_string()
        } else {
            name.to_owned()
        };
        b.undeclared(
            site,
            "guest",
            shown,
            format!(
                "{} {} ({}) on {} is {} but not in the topology file",
                if g.kind.as_str() == "lxc" { "CT" } else { "VM" },
                g.vmid,
                if name.is_empty() { "no name" } else { name },
                g.node,
                g.status
            ),
        );
    }
}

/// Proxmox clusters: present when any of their hosts is.
fn clusters(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site, pve_index: &PveIndex<'_>) {
    let (topo, pve) = (b.topo, &site.proxmox);

    for cluster in topo
        .proxmox_clusters()
        .iter()
        .filter(|c| c.site == site_id.id)
    {
        let evidence = evidence_of(pve, |_| {
            topo.hosts_of_cluster(&cluster.id)
                .any(|h| pve_index.node(h.id.as_str()).is_some())
        });
        b.record(ComponentRef::ProxmoxCluster(cluster), site, evidence);
    }
}
