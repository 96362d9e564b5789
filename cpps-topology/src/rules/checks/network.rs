//! Network and ingress rules: NET-001, NET-002, NET-003, INGRESS-001, INGRESS-002 (static part).

use std::collections::HashSet;

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt};

use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{ClusterPurpose, ComponentRef, Router, SiteId, State};

/// The VRRP groups of each site: routers joined by `vrrp_peer` (in either direction, through any
/// number of routers) are one group, whatever its size. A peer of another site, or the router
/// itself, joins nothing: VRRP runs inside one network segment (REL-001 reports such a peer).
/// Groups and their members are in file order. Union-find over the routers, O(n α(n)).
fn vrrp_groups<'t>(ctx: &Ctx<'t>, site: &SiteId) -> Vec<Vec<&'t Router>> {
    let routers: Vec<&Router> = ctx
        .topo
        .routers()
        .iter()
        .filter(|r| &r.site == site)
        .collect();
    let index: HashMap<&str, usize> = routers
        .iter()
        .enumerate()
        .map(|(i, r)| (r.id.as_str(), i))
        .collect();
    let mut parent: Vec<usize> = (0..routers.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for (i, r) in routers.iter().enumerate() {
        if let Some(&j) = r.vrrp_peer.as_ref().and_then(|p| index.get(p.as_str())) {
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            if a != b {
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let mut slot: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<&'t Router>> = Vec::new();
    for (i, r) in routers.iter().enumerate() {
        let at = root(&mut parent, i);
        let g = *slot.entry(at).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(r);
    }
    groups
}

fn group_names(group: &[&Router]) -> String {
    let names: Vec<&str> = group.iter().map(|r| r.id.as_str()).collect();
    names.join(" + ")
}

/// NET-001: exactly one VyOS router per site, a VRRP group of any size counting as one. A group
/// counts when one of its routers is in service (declared or validated).
pub(super) fn net_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for site in ctx.topo.sites() {
        let groups = vrrp_groups(ctx, &site.id);
        let in_service: Vec<&Vec<&Router>> = groups
            .iter()
            .filter(|g| g.iter().any(|r| r.meta.state != State::Desired))
            .collect();
        let c = ComponentRef::Site(site);
        if in_service.len() > 1 {
            let names: Vec<String> = in_service.iter().map(|g| group_names(g)).collect();
            sink.emit_at(
                scaled(Severity::Error, site.meta.state),
                c,
                "state",
                format!(
                    "site {} has {} independent routers or VRRP groups ({}): one router per site, more only as VRRP peers of it",
                    site.id,
                    in_service.len(),
                    names.join("; ")
                ),
            );
        } else if in_service.is_empty() {
            // A router that is on the roadmap is a known gap: info; none at all is an error.
            let (detail, severity) = if groups.is_empty() {
                ("declares no VyOS router".to_owned(), Severity::Error)
            } else {
                let names: Vec<String> = groups.iter().map(|g| group_names(g)).collect();
                (
                    format!(
                        "has no router in service ({} only desired)",
                        names.join(", ")
                    ),
                    Severity::Info,
                )
            };
            sink.emit_at(
                scaled(severity, site.meta.state),
                c,
                "state",
                format!("site {} {detail}", site.id),
            );
        }
    }
}

/// NET-002: a router in service whose VRRP group has no other member at least as mature is a
/// single point of failure. The group is read whole: a validated group of any size is HA for
/// its validated routers, whoever names whom as `vrrp_peer`; a peer that is only declared makes
/// a declared router HA in the IaC, not a validated one in production.
pub(super) fn net_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for site in ctx.topo.sites() {
        for group in vrrp_groups(ctx, &site.id) {
            for r in &group {
                let state = r.meta.state;
                if state == State::Desired {
                    continue;
                }
                let others: Vec<&&Router> = group.iter().filter(|o| o.id != r.id).collect();
                if others.iter().any(|o| o.meta.state >= state) {
                    continue;
                }
                let detail = if others.is_empty() {
                    "it has no VRRP peer".to_owned()
                } else {
                    let names: Vec<String> = others
                        .iter()
                        .map(|o| format!("{} ({})", o.id, o.meta.state))
                        .collect();
                    format!(
                        "the other routers of its VRRP group are less mature than it ({state}): {}",
                        names.join(", ")
                    )
                };
                sink.emit_at(
                    scaled(Severity::Warning, state),
                    ComponentRef::Router(r),
                    "vrrp_peer",
                    format!(
                        "router {} of site {} is a single point of failure: {detail}",
                        r.id, r.site
                    ),
                );
            }
        }
    }
}

/// Checks that sites `a` and `b` have a WireGuard link at least as mature as `needed`; returns the
/// complaint otherwise.
fn missing_link(ctx: &Ctx<'_>, a: &SiteId, b: &SiteId, needed: State) -> Option<String> {
    match ctx.link_state(a, b) {
        Some(state) if state >= needed => None,
        Some(state) => Some(format!(
            "the WireGuard link between {a} and {b} is only {state}"
        )),
        None => Some(format!("no WireGuard link joins {a} and {b}")),
    }
}

/// NET-003: every cross-site dependency has a WireGuard link between its sites, at least as
/// mature as the dependency.
pub(super) fn net_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    pbs_syncs(ctx, sink);
    pattern_sites(ctx, sink);
    managed_clusters(ctx, sink);
}

/// NET-003's PBS sync jobs to a PBS of another site: over a link that joins the two sites.
fn pbs_syncs(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for pbs in topo.pbs() {
        for (i, sync) in pbs.sync_to.iter().enumerate() {
            let Some(target) = topo.pbs_server(&sync.target) else {
                continue;
            };
            if target.site == pbs.site {
                continue;
            }
            let needed = pbs.meta.state.min(target.meta.state);
            let c = ComponentRef::Pbs(pbs);
            if let Some(link) = sync.link.as_ref().and_then(|l| topo.link(l))
                && !link.joins(&pbs.site, &target.site)
            {
                sink.emit_at(
                    scaled(Severity::Error, needed),
                    c,
                    &format!("sync_to[{i}].link"),
                    format!(
                        "PBS {} syncs to {} over link {}, which does not join {} and {}",
                        pbs.id, target.id, link.id, pbs.site, target.site
                    ),
                );
                continue;
            }
            if let Some(why) = missing_link(ctx, &pbs.site, &target.site, needed) {
                sink.emit_at(
                    scaled(Severity::Error, needed),
                    c,
                    &format!("sync_to[{i}]"),
                    format!(
                        "PBS {} ({needed}) syncs to {} in site {}, but {why}",
                        pbs.id, target.id, target.site
                    ),
                );
            }
        }
    }
}

/// NET-003's patterns: every pair of the sites their clusters are in is linked.
fn pattern_sites(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.patterns() {
        // The members, then the manager; each site once.
        let mut sites: Vec<(&SiteId, usize)> = Vec::new();
        let mut seen: HashSet<&SiteId> = HashSet::new();
        for (i, id) in p.members.iter().chain(&p.manager).enumerate() {
            if let Some(k) = topo.k3s_cluster(id)
                && seen.insert(&k.site)
            {
                sites.push((&k.site, i));
            }
        }
        // Sites are few (two today): checking every pair of distinct sites is cheap.
        for (x, (a, _)) in sites.iter().enumerate() {
            for (b, i) in &sites[x + 1..] {
                if let Some(why) = missing_link(ctx, a, b, p.meta.state) {
                    let field = if *i < p.members.len() {
                        format!("members[{i}]")
                    } else {
                        "manager".to_owned()
                    };
                    sink.emit_at(
                        scaled(Severity::Error, p.meta.state),
                        ComponentRef::Pattern(p),
                        &field,
                        format!(
                            "pattern {} ({}) spans sites {a} and {b}, but {why}",
                            p.id, p.meta.state
                        ),
                    );
                }
            }
        }
    }
}

/// NET-003's ArgoCD instances: linked to the site of each cluster they manage elsewhere.
fn managed_clusters(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for a in topo.argocd() {
        for (i, k) in topo.managed_by(a) {
            if k.site == a.site {
                continue;
            }
            let needed = a.meta.state.min(k.meta.state);
            if let Some(why) = missing_link(ctx, &a.site, &k.site, needed) {
                sink.emit_at(
                    scaled(Severity::Error, needed),
                    ComponentRef::ArgoCd(a),
                    &format!("manages[{i}]"),
                    format!(
                        "ArgoCD {} manages cluster {} in site {}, but {why}",
                        a.id, k.id, k.site
                    ),
                );
            }
        }
    }
}

/// INGRESS-001: one Traefik in service per site.
pub(super) fn ingress_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for site in ctx.topo.sites() {
        let all: Vec<_> = ctx
            .topo
            .traefik()
            .iter()
            .filter(|t| t.site == site.id)
            .collect();
        let live: Vec<_> = all
            .iter()
            .filter(|t| t.meta.state != State::Desired)
            .collect();
        match live.len() {
            1 => {}
            0 => {
                // A Traefik that is on the roadmap is a known gap: info.
                let (detail, severity) = if all.is_empty() {
                    ("declares no Traefik".to_owned(), Severity::Warning)
                } else {
                    let names: Vec<&str> = all.iter().map(|t| t.id.as_str()).collect();
                    (
                        format!(
                            "has no Traefik in service ({} only desired)",
                            names.join(", ")
                        ),
                        Severity::Info,
                    )
                };
                sink.emit_at(
                    scaled(severity, site.meta.state),
                    ComponentRef::Site(site),
                    "state",
                    format!("site {} {detail}", site.id),
                );
            }
            n => {
                for t in &live[1..] {
                    sink.emit_at(
                        scaled(Severity::Warning, t.meta.state),
                        ComponentRef::Traefik(t),
                        "site",
                        format!(
                            "traefik {} is one of {n} Traefik instances of site {} (first: {}); one per site",
                            t.id, site.id, live[0].id
                        ),
                    );
                }
            }
        }
    }
}

/// INGRESS-002 (static part): each site's general-purpose cluster in service has cert-manager
/// with a DNS-01 ClusterIssuer, as mature as the cluster. The live part checks certificate
/// expiry.
///
/// "cert-manager instalado nos 2 clusters" counts the clusters of layer 5, one K3s per site
/// ("K3s (1 cluster por site)"): the general-purpose clusters, where the apps that Traefik
/// exposes run. The GPU clusters of ADR-009 are separate clusters the pending item does not
/// count, so they are not asked for cert-manager. With more sites or more general clusters, each
/// general-purpose cluster is checked.
pub(super) fn ingress_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        let state = k.meta.state;
        if state == State::Desired || k.purpose != ClusterPurpose::General {
            continue;
        }
        let problem = match &k.cert_manager {
            None => "has no cert-manager".to_owned(),
            Some(cm) if cm.state < state => {
                format!("is {state} but its cert-manager is only {}", cm.state)
            }
            Some(cm) if !cm.dns01_cluster_issuer => {
                "has cert-manager but no ClusterIssuer with a DNS-01 solver".to_owned()
            }
            Some(_) => continue,
        };
        sink.emit_at(
            Severity::Warning,
            ComponentRef::K3sCluster(k),
            "cert_manager",
            format!(
                "general-purpose k3s cluster {} of site {} {problem}: cert-manager goes in each site's general-purpose cluster",
                k.id, k.site
            ),
        );
    }
}
