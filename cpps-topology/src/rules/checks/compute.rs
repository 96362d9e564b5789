//! SITE-001 and the Proxmox rules PVE-001, PVE-002, PVE-003 (static part).

use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{ClusterPurpose, ComponentRef, GuestId, HostId, SiteId, State};

/// SITE-001: nothing essential of a site runs on, stores on, or is backed up only to a
/// component of another site ("nada essencial depende de link cross-site").
///
/// What it follows: a guest's storage pool and its backup PBS; a cluster's node guests (and, for
/// a general-purpose cluster not yet placed, its candidate hosts: a GPU cluster's candidates are
/// GPU-008's); the cluster an ArgoCD runs in; the guest a PBS runs in; the host or guest a router
/// or a Traefik runs on; a LINSTOR controller's hosts. A guest whose backup is a PBS of the other
/// site has no backup while the link is down: the documents want a local PBS and a cross-site
/// *sync* of it ("PBS local" then "PBS remoto cross-site"), never a remote PBS alone.
pub(super) fn site_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    guests_across(ctx, sink);
    clusters_across(ctx, sink);
    argocd_across(ctx, sink);
    placed_across(ctx, sink);
    controllers_across(ctx, sink);
}

/// SITE-001's finding on `c` of site `own`, whose `field` names `what`, which is in site
/// `other`.
fn emit(
    sink: &mut Sink<'_>,
    c: ComponentRef<'_>,
    field: &str,
    own: &SiteId,
    what: String,
    other: &SiteId,
) {
    let state = c.meta().state;
    sink.emit_at(
        scaled(Severity::Error, state),
        c,
        field,
        format!(
            "{} {} belongs to site {own} but {what} is in site {other}: a partition of the cross-site link would take it down",
            c.kind(),
            c.id_str()
        ),
    );
}

/// SITE-001's guests: storage pool and backup PBS.
fn guests_across(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let Some(host) = topo.host_of(g) else {
            continue;
        };
        if let Some(pool) = topo.pool_of(g)
            && pool.site != host.site
        {
            emit(
                sink,
                ComponentRef::Guest(g),
                "storage",
                &host.site,
                format!("its storage pool {}", pool.id),
                &pool.site,
            );
        }
        if let Some(pbs) = topo.backup_of(g)
            && pbs.site != host.site
        {
            // The backup exists only as far as both ends do.
            let state = g.meta.state.min(pbs.meta.state);
            sink.emit_at(
                scaled(Severity::Error, state),
                ComponentRef::Guest(g),
                "backup",
                format!(
                    "guest {} belongs to site {} but its only backup is PBS {} of site {}: while the cross-site link is down it has no backup; back it up to a PBS of site {} and sync that one across",
                    g.id, host.site, pbs.id, pbs.site, host.site
                ),
            );
        }
    }
}

/// SITE-001's clusters: their node guests' hosts, and the candidate hosts of a general-purpose
/// cluster not yet placed.
fn clusters_across(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let host_site = |id: &HostId| topo.host(id).map(|h| &h.site);
    for k in topo.k3s_clusters() {
        if k.nodes.is_empty() && k.purpose == ClusterPurpose::General {
            for (i, h) in k.candidate_hosts.iter().enumerate() {
                if let Some(site) = host_site(h)
                    && site != &k.site
                {
                    emit(
                        sink,
                        ComponentRef::K3sCluster(k),
                        &format!("candidate_hosts[{i}]"),
                        &k.site,
                        format!("its candidate host {h}"),
                        site,
                    );
                }
            }
        }
        for (i, g) in topo.nodes_of(k) {
            if let Some(host) = topo.host_of(g)
                && host.site != k.site
            {
                emit(
                    sink,
                    ComponentRef::K3sCluster(k),
                    &format!("nodes[{i}]"),
                    &k.site,
                    format!("its node {}", g.id),
                    &host.site,
                );
            }
        }
    }
}

/// SITE-001's ArgoCD instances: the cluster each runs in.
fn argocd_across(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for a in ctx.topo.argocd() {
        if let Some(k) = a.runs_in.as_ref().and_then(|id| ctx.topo.k3s_cluster(id))
            && k.site != a.site
        {
            emit(
                sink,
                ComponentRef::ArgoCd(a),
                "runs_in",
                &a.site,
                format!("the cluster it runs in ({})", k.id),
                &k.site,
            );
        }
    }
}

/// SITE-001's finding on `c` of site `own` (a PBS, a Traefik or a router): the guest it runs
/// in and the host it runs on directly.
fn placed(
    ctx: &Ctx<'_>,
    sink: &mut Sink<'_>,
    c: ComponentRef<'_>,
    own: &SiteId,
    guest: Option<&GuestId>,
    host: Option<&HostId>,
) {
    let topo = ctx.topo;
    let guest_site = |id: &GuestId| topo.guest(id).and_then(|g| topo.site_of_guest(g));
    let host_site = |id: &HostId| topo.host(id).map(|h| &h.site);
    if let Some(site) = guest.and_then(guest_site)
        && site != own
    {
        emit(
            sink,
            c,
            "guest",
            own,
            "the guest it runs in".to_owned(),
            site,
        );
    }
    if let Some(site) = host.and_then(host_site)
        && site != own
    {
        emit(sink, c, "host", own, "the host it runs on".to_owned(), site);
    }
}

/// SITE-001's PBS, Traefik and router instances, where they run.
fn placed_across(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for p in topo.pbs() {
        placed(
            ctx,
            sink,
            ComponentRef::Pbs(p),
            &p.site,
            p.guest.as_ref(),
            None,
        );
    }
    for t in topo.traefik() {
        let c = ComponentRef::Traefik(t);
        placed(ctx, sink, c, &t.site, t.guest.as_ref(), t.host.as_ref());
    }
    for r in topo.routers() {
        let c = ComponentRef::Router(r);
        placed(ctx, sink, c, &r.site, r.guest.as_ref(), r.host.as_ref());
    }
}

/// SITE-001's LINSTOR pools: their controller hosts.
fn controllers_across(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for pool in topo.linstor_pools() {
        let Some(controller) = &pool.controller else {
            continue;
        };
        for (id, field) in controller.hosts_with_fields() {
            if let Some(h) = topo.host(id)
                && h.site != pool.site
            {
                emit(
                    sink,
                    ComponentRef::LinstorPool(pool),
                    &field,
                    &pool.site,
                    format!("its controller host {}", h.id),
                    &h.site,
                );
            }
        }
    }
}

/// PVE-001: a Proxmox cluster's hosts are all in the cluster's site.
pub(super) fn pve_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for h in topo.hosts() {
        if let Some(cluster) = topo.proxmox_cluster_of(h)
            && cluster.site != h.site
        {
            sink.emit_at(
                scaled(Severity::Error, h.meta.state.min(cluster.meta.state)),
                ComponentRef::Host(h),
                "proxmox_cluster",
                format!(
                    "host {} is in site {} but joins Proxmox cluster {} of site {}: pmxcfs does not tolerate cross-site latency",
                    h.id, h.site, cluster.id, cluster.site
                ),
            );
        }
    }
}

/// Of `versions` (an item and its major PVE version), the one on the newest major (the last of
/// them) and the items on an older major: PVE-002's judgement, of the versions the file states
/// and of those the nodes report (`live/pve/rules.rs`).
pub(crate) fn lagging_majors<T: Copy>(versions: &[(T, u64)]) -> Option<(T, Vec<T>)> {
    let &(newest, top) = versions.iter().max_by_key(|(_, major)| *major)?;
    let behind = versions
        .iter()
        .filter(|(_, major)| *major < top)
        .map(|(item, _)| *item)
        .collect();
    Some((newest, behind))
}

/// PVE-002: the hosts of one Proxmox cluster run the same major PVE version.
///
/// A host without `pve_version` is not a host on the newest version: while any host of a
/// cluster states none, whether the cluster is on one major version cannot be told, and that is
/// said at the rule's severity (the architecture has the upgrade under way, «🚧 Em andamento:
/// upgrade PVE 9.x dos nodes restantes», so mixed versions are the documents' present). The
/// live audit reads the versions themselves.
pub(super) fn pve_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for cluster in topo.proxmox_clusters() {
        let stated: Vec<(&crate::model::Host, u64)> = topo
            .hosts_of_cluster(&cluster.id)
            .filter_map(|h| h.pve_version.as_ref().map(|v| (h, v.major())))
            .collect();
        let lagging = lagging_majors(&stated);
        let newest = lagging
            .as_ref()
            .and_then(|(newest, _)| newest.pve_version.as_ref());
        let unstated: Vec<&str> = topo
            .hosts_of_cluster(&cluster.id)
            .filter(|h| h.pve_version.is_none())
            .map(|h| h.id.as_str())
            .collect();
        if !unstated.is_empty() {
            let hosts = topo.hosts_of_cluster(&cluster.id).count();
            sink.emit_at(
                scaled(Severity::Warning, cluster.meta.state),
                ComponentRef::ProxmoxCluster(cluster),
                "site",
                format!(
                    "cannot tell whether Proxmox cluster {} runs one major PVE version: {} of its {hosts} host(s) state no `pve_version` ({}){}",
                    cluster.id,
                    unstated.len(),
                    unstated.join(", "),
                    newest
                        .map(|v| format!(", the others' newest is PVE {v}"))
                        .unwrap_or_default()
                ),
            );
        }
        let (Some(newest), Some((_, behind))) = (newest, &lagging) else {
            continue;
        };
        for h in behind {
            if let Some(v) = &h.pve_version {
                sink.emit_at(
                    scaled(Severity::Warning, h.meta.state),
                    ComponentRef::Host(h),
                    "pve_version",
                    format!(
                        "host {} runs PVE {v} while Proxmox cluster {} already has hosts on PVE {newest}",
                        h.id, cluster.id
                    ),
                );
            }
        }
    }
}

/// PVE-003's finding on `c` (a guest or a Traefik) in production with `ha: true`, whose HA is
/// only `ha_state`: `missing` says what is missing.
fn ha_lags(sink: &mut Sink<'_>, c: ComponentRef<'_>, ha_state: State, missing: &str) {
    sink.emit_at(
        Severity::Warning,
        c,
        "ha",
        format!(
            "{} {} runs in production with `ha: true`, but its HA is only {ha_state}: {missing}",
            c.kind(),
            c.id_str()
        ),
    );
}

/// PVE-003 (static part): a running guest or Traefik whose `ha: true` is only declared is not a
/// Proxmox HA resource yet. The live part compares with the HA resources Proxmox reports.
pub(super) fn pve_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    // Of a component with `ha: true`: an `ha` without a state of its own has the component's,
    // so only a state below production, on a component in production, lags.
    let lagging = |ha_state: Option<State>, state: State| {
        ha_state.filter(|ha_state| state == State::Validated && *ha_state < State::Validated)
    };
    for g in topo.guests().iter().filter(|g| g.ha) {
        if let Some(ha_state) = lagging(g.ha_state, g.meta.state) {
            let missing = if g.on_boot {
                "no Proxmox HA resource exists (it only starts on boot)"
            } else {
                "no Proxmox HA resource exists"
            };
            ha_lags(sink, ComponentRef::Guest(g), ha_state, missing);
        }
    }
    for t in topo.traefik().iter().filter(|t| t.ha) {
        if let Some(ha_state) = lagging(t.ha_state, t.meta.state) {
            let missing = if t.on_boot {
                "Pulumi creates no Proxmox HA resource (a normal VM with on_boot)"
            } else {
                "Pulumi creates no Proxmox HA resource"
            };
            ha_lags(sink, ComponentRef::Traefik(t), ha_state, missing);
        }
    }
}
