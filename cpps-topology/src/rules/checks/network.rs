//! Network and ingress rules: NET-001, NET-002, NET-003, INGRESS-001, INGRESS-002 (static part).

use std::collections::HashSet;

use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{ComponentRef, SiteId, State};

/// NET-001: exactly one VyOS router per site, a VRRP pair counting as one.
pub(super) fn net_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for site in ctx.topo.sites() {
        let all = ctx
            .routers_by_site
            .get(&site.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let live: Vec<_> = all
            .iter()
            .filter(|r| r.meta.state != State::Desired)
            .collect();
        let ids: HashSet<&str> = live.iter().map(|r| r.id.as_str()).collect();
        let mut pairs: HashSet<(&str, &str)> = HashSet::new();
        for r in &live {
            if let Some(peer) = r.vrrp_peer.as_ref().map(|p| p.as_str())
                && ids.contains(peer)
                && peer != r.id.as_str()
            {
                let a = r.id.as_str();
                pairs.insert(if a < peer { (a, peer) } else { (peer, a) });
            }
        }
        let groups = live.len().saturating_sub(pairs.len());
        let c = ComponentRef::Site(site);
        if groups > 1 {
            let names: Vec<&str> = live.iter().map(|r| r.id.as_str()).collect();
            sink.emit_at(
                scaled(Severity::Error, site.meta.state),
                c,
                "state",
                format!(
                    "site {} has {groups} independent routers ({}): one router per site, a second only as its VRRP peer",
                    site.id,
                    names.join(", ")
                ),
            );
        } else if groups == 0 {
            // A router that is on the roadmap is a known gap: info; none at all is an error.
            let (detail, severity) = if all.is_empty() {
                ("declares no VyOS router".to_owned(), Severity::Error)
            } else {
                let names: Vec<&str> = all.iter().map(|r| r.id.as_str()).collect();
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

/// NET-002: a router without a VRRP peer in service is a single point of failure.
pub(super) fn net_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for r in topo.routers() {
        if r.meta.state == State::Desired {
            continue;
        }
        let peer = r.vrrp_peer.as_ref().and_then(|p| topo.router(p));
        let detail = match peer {
            Some(p) if p.meta.state != State::Desired => continue,
            Some(p) => format!("its VRRP peer {} is only desired", p.id),
            None => "it has no VRRP peer".to_owned(),
        };
        sink.emit_at(
            scaled(Severity::Warning, r.meta.state),
            ComponentRef::Router(r),
            "vrrp_peer",
            format!(
                "router {} of site {} is a single point of failure: {detail}",
                r.id, r.site
            ),
        );
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
    for p in topo.patterns() {
        let mut sites: Vec<(&SiteId, usize)> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        for (i, m) in p.members.iter().chain(p.manager.iter()).enumerate() {
            if let Some(k) = topo.k3s_cluster(m)
                && seen.insert(k.site.as_str())
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
    for a in topo.argocd() {
        for (i, k) in a.manages.iter().enumerate() {
            let Some(k) = topo.k3s_cluster(k) else {
                continue;
            };
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
        let all = ctx
            .traefik_by_site
            .get(&site.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
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

/// INGRESS-002 (static part): each cluster in service has cert-manager with a DNS-01
/// ClusterIssuer, as mature as the cluster. The live part checks certificate expiry.
pub(super) fn ingress_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        if k.meta.state == State::Desired {
            continue;
        }
        let problem = match &k.cert_manager {
            None => "has no cert-manager".to_owned(),
            Some(cm) if cm.state < k.meta.state => {
                format!(
                    "is {} but its cert-manager is only {}",
                    k.meta.state, cm.state
                )
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
            format!("k3s cluster {} {problem}", k.id),
        );
    }
}
