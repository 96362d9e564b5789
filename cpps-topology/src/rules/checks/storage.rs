//! LINSTOR and backup rules: LINSTOR-001…006, BACKUP-001, BACKUP-002, BACKUP-004, HADR-001.

// foldhash: the indexes are keyed by ids from the team's own file, so SipHash's protection
// against chosen keys buys nothing and costs ~40 % of a check's instructions.
use foldhash::{HashMap, HashMapExt};

use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{ComponentRef, Host, LinstorController, LinstorPool, SiteId, State};

/// Whether a host's LINSTOR replication interface is written but empty (or blank).
fn host_interface_is_empty(host: &Host) -> bool {
    host.linstor
        .as_ref()
        .and_then(|l| l.interface.as_deref())
        .is_some_and(|i| i.trim().is_empty())
}

/// LINSTOR-001 (static part): every satellite, and every node of a pool, has a non-empty
/// replication interface; one whose interface the file does not state is "not stated".
pub(super) fn linstor_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for h in ctx.topo.hosts() {
        let pools: Vec<&LinstorPool> = ctx.topo.pools_of_host(h).collect();
        let satellite = h.linstor.as_ref().is_some_and(|l| l.is_satellite());
        if !satellite && pools.is_empty() {
            continue;
        }
        if !host_interface_is_empty(h) {
            interface_not_stated(sink, h, &pools);
            continue;
        }
        // The most mature pool using the host decides how bad it is.
        let state = pools
            .iter()
            .map(|p| p.meta.state)
            .max()
            .unwrap_or(h.meta.state)
            .min(h.meta.state);
        let names: Vec<&str> = pools.iter().map(|p| p.id.as_str()).collect();
        let used_by = if names.is_empty() {
            String::new()
        } else {
            format!(" (node of pool {})", names.join(", "))
        };
        sink.emit_at(
            scaled(Severity::Error, state),
            ComponentRef::Host(h),
            "linstor.interface",
            format!(
                "host {}{used_by} has an empty LINSTOR replication interface (linstor_interface: \"\"): DRBD cannot replicate to it",
                h.id
            ),
        );
    }
}

/// LINSTOR-001 on host `h`, a satellite or a node of `pools`, when the file states no
/// replication interface for it: whether DRBD can replicate to it cannot be told.
fn interface_not_stated(sink: &mut Sink<'_>, h: &Host, pools: &[&LinstorPool]) {
    if h.linstor.as_ref().is_none_or(|l| l.interface.is_some()) {
        return;
    }
    let names: Vec<&str> = pools.iter().map(|p| p.id.as_str()).collect();
    let used_by = match names.is_empty() {
        true => String::new(),
        false => format!(" (node of pool {})", names.join(", ")),
    };
    sink.emit_at(
        scaled(Severity::Warning, h.meta.state),
        ComponentRef::Host(h),
        "linstor",
        format!(
            "host {}{used_by} states no LINSTOR replication interface (`linstor.interface`): whether DRBD can replicate to it cannot be told",
            h.id
        ),
    );
}

/// LINSTOR-002: production pools keep 3 replicas; raising place_count waits for LINSTOR-001.
///
/// "place_count: 3 … só após correção do pve-ippri-34" is an order: while a host of the pool's
/// site has an empty replication interface, a pool that already asks for 3 replicas (or more)
/// was raised first, and that is a finding too, not silence.
pub(super) fn linstor_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for pool in ctx.topo.linstor_pools() {
        let blockers: Vec<&str> = ctx
            .topo
            .hosts()
            .iter()
            .filter(|h| h.site == pool.site && host_interface_is_empty(h))
            .map(|h| h.id.as_str())
            .collect();
        let Some(place_count) = pool.place_count else {
            // Not stated: whether a production pool keeps 3 replicas is unknown, said as such.
            if pool.meta.state == State::Validated {
                sink.emit_at(
                    Severity::Warning,
                    ComponentRef::LinstorPool(pool),
                    "nodes",
                    format!(
                        "production pool {} states no place_count: whether it keeps 3 replicas is not stated",
                        pool.id
                    ),
                );
            }
            continue;
        };
        if place_count >= 3 {
            if !blockers.is_empty() {
                sink.emit_at(
                    scaled(Severity::Warning, pool.meta.state),
                    ComponentRef::LinstorPool(pool),
                    "place_count",
                    format!(
                        "pool {} asks for place_count {place_count} before the replication interface of {} is fixed (LINSTOR-001): the documents raise it only after that fix",
                        pool.id,
                        blockers.join(", ")
                    ),
                );
            }
            continue;
        }
        if pool.meta.state != State::Validated {
            continue;
        }
        let blocked = if blockers.is_empty() {
            String::new()
        } else {
            format!(
                "; raise it only after fixing the replication interface of {} (LINSTOR-001)",
                blockers.join(", ")
            )
        };
        sink.emit_at(
            Severity::Warning,
            ComponentRef::LinstorPool(pool),
            "place_count",
            format!(
                "production pool {} keeps place_count {place_count} (losing one node degrades it){blocked}",
                pool.id
            ),
        );
    }
}

/// LINSTOR-003: place_count is at most the number of diskful nodes. A pool that states no
/// place_count has no count to compare (LINSTOR-002 and LINSTOR-006 say it is not stated).
pub(super) fn linstor_003(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for pool in ctx.topo.linstor_pools() {
        let diskful = pool.diskful_count();
        let Some(place_count) = pool.place_count else {
            continue;
        };
        if place_count as usize > diskful {
            sink.emit_at(
                scaled(Severity::Error, pool.meta.state),
                ComponentRef::LinstorPool(pool),
                "place_count",
                format!(
                    "pool {} asks for place_count {place_count} but has only {diskful} diskful node(s)",
                    pool.id
                ),
            );
        }
    }
}

/// LINSTOR-004: a pool's diskful nodes are all in the pool's site. A diskless node (a
/// tie-breaker) holds no replica, so it may sit in another site: that is where the documents
/// want the witness ("em terceiro site").
pub(super) fn linstor_004(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for pool in topo.linstor_pools() {
        for (i, node) in pool.nodes.iter().enumerate() {
            if node.diskful
                && let Some(h) = topo.host(&node.host)
                && h.site != pool.site
            {
                sink.emit_at(
                    scaled(Severity::Error, pool.meta.state),
                    ComponentRef::LinstorPool(pool),
                    &format!("nodes[{i}]"),
                    format!(
                        "pool {} of site {} replicates to host {} in site {}: DRBD replication is intra-site",
                        pool.id, pool.site, h.id, h.site
                    ),
                );
            }
        }
    }
}

/// LINSTOR-005: a site with LINSTOR has a controller, with HA (VIP/VRRP or a standby). One
/// controller serves every pool of a site, so the pools of a site are judged together.
pub(super) fn linstor_005(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let mut by_site: HashMap<&SiteId, Vec<&LinstorPool>> = HashMap::new();
    for pool in ctx.topo.linstor_pools() {
        by_site.entry(&pool.site).or_default().push(pool);
    }
    let mut sites: Vec<_> = by_site.into_iter().collect();
    sites.sort_by_key(|(site, _)| *site);
    for (site, pools) in sites {
        let is_ha = |c: &LinstorController| c.ha || c.vip.is_some() || !c.standby.is_empty();
        let with_controller: Vec<&LinstorPool> = pools
            .iter()
            .copied()
            .filter(|p| p.controller.is_some())
            .collect();
        if with_controller
            .iter()
            .any(|p| p.controller.as_ref().is_some_and(is_ha))
        {
            continue;
        }
        // The most mature pool of the site carries the finding.
        let Some(pool) = pools.iter().copied().max_by_key(|p| p.meta.state) else {
            continue;
        };
        let names: Vec<&str> = pools.iter().map(|p| p.id.as_str()).collect();
        let c = ComponentRef::LinstorPool(pool);
        let severity = scaled(Severity::Warning, pool.meta.state);
        match with_controller.first() {
            None => sink.emit_at(
                severity,
                c,
                "state",
                format!(
                    "site {site} has LINSTOR pools ({}) but names no LINSTOR controller",
                    names.join(", ")
                ),
            ),
            Some(p) => {
                let primary = p
                    .controller
                    .as_ref()
                    .and_then(|c| c.primary.as_ref())
                    .map(|h| format!(" on {h}"))
                    .unwrap_or_default();
                sink.emit_at(
                    severity,
                    ComponentRef::LinstorPool(p),
                    "controller",
                    format!(
                        "the LINSTOR controller of site {site}{primary} has no HA (no VIP/VRRP, no standby)"
                    ),
                );
            }
        }
    }
}

/// LINSTOR-006: a pool with 2 replicas has a tie-breaker in a third site: a diskless node on a
/// host of another site than the pool's. A third node in the same site shares the site's
/// failures (power, network), so it does not remove the minority's split-brain the documents
/// name.
pub(super) fn linstor_006(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for pool in topo.linstor_pools() {
        match pool.place_count {
            Some(2) => {}
            Some(_) => continue,
            None => {
                // Whether it keeps 2 replicas is unknown: said, never passed.
                sink.emit_at(
                    scaled(Severity::Warning, pool.meta.state),
                    ComponentRef::LinstorPool(pool),
                    "nodes",
                    format!(
                        "pool {} states no place_count: whether it keeps 2 replicas and needs a tie-breaker in a third site is not stated",
                        pool.id
                    ),
                );
                continue;
            }
        }
        let witness_elsewhere = pool
            .nodes
            .iter()
            .any(|n| !n.diskful && topo.host(&n.host).is_some_and(|h| h.site != pool.site));
        if witness_elsewhere {
            continue;
        }
        let same_site_tie_breakers = pool.nodes.iter().filter(|n| !n.diskful).count();
        let detail = if same_site_tie_breakers > 0 {
            format!(
                "; its {same_site_tie_breakers} diskless node(s) are in site {} too",
                pool.site
            )
        } else {
            String::new()
        };
        sink.emit_at(
            scaled(Severity::Warning, pool.meta.state),
            ComponentRef::LinstorPool(pool),
            "nodes",
            format!(
                "pool {} keeps 2 replicas and has no tie-breaker in a third site (a diskless node outside site {}){detail}: a split of the site leaves the minority without quorum",
                pool.id, pool.site
            ),
        );
    }
}

/// BACKUP-001: every site has a local PBS (in production). Unlike other "missing" rules, a PBS
/// that is only `desired` keeps the warning: the source says backup is an MVP priority, not to
/// be deferred.
pub(super) fn backup_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for site in ctx.topo.sites() {
        let local: Vec<_> = ctx
            .topo
            .pbs()
            .iter()
            .filter(|p| p.site == site.id)
            .collect();
        let best = local.iter().map(|p| p.meta.state).max();
        if best == Some(State::Validated) {
            continue;
        }
        let detail = match best {
            None => "declares no PBS at all".to_owned(),
            Some(state) => {
                let names: Vec<&str> = local.iter().map(|p| p.id.as_str()).collect();
                format!(
                    "has no PBS in production ({} only {state})",
                    names.join(", ")
                )
            }
        };
        sink.emit_at(
            scaled(Severity::Warning, site.meta.state),
            ComponentRef::Site(site),
            "state",
            format!(
                "site {} {detail}: its guests have no backup against deletion or corruption",
                site.id
            ),
        );
    }
}

/// BACKUP-002: each PBS syncs to a PBS of another site.
pub(super) fn backup_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for pbs in topo.pbs() {
        let remote = pbs.sync_to.iter().any(|s| {
            topo.pbs_server(&s.target)
                .is_some_and(|target| target.site != pbs.site)
        });
        if !remote {
            sink.emit_at(
                scaled(Severity::Warning, pbs.meta.state),
                ComponentRef::Pbs(pbs),
                "sync_to",
                format!(
                    "PBS {} of site {} syncs to no PBS of another site: losing the site loses its backups",
                    pbs.id, pbs.site
                ),
            );
        }
    }
}

/// BACKUP-004: PBS datastores declare encryption at rest.
pub(super) fn backup_004(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for pbs in ctx.topo.pbs() {
        let plain: Vec<&str> = pbs
            .datastores
            .iter()
            .filter(|d| !d.encrypted)
            .map(|d| d.name.as_str())
            .collect();
        if pbs.datastores.is_empty() || !plain.is_empty() {
            let what = if pbs.datastores.is_empty() {
                "declares no datastore, so no encryption at rest".to_owned()
            } else {
                format!(
                    "has datastores without encryption at rest: {}",
                    plain.join(", ")
                )
            };
            sink.emit_at(
                Severity::Info,
                ComponentRef::Pbs(pbs),
                "datastores",
                format!("PBS {} {what}", pbs.id),
            );
        }
    }
}

/// HADR-001: a guest protected by replication or HA has a backup as mature as itself.
pub(super) fn hadr_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let state = g.meta.state;
        if state == State::Desired || !(g.ha || g.storage.is_some()) {
            continue;
        }
        let backup = topo.backup_of(g);
        let covered = backup.is_some_and(|b| b.meta.state >= state);
        if covered {
            continue;
        }
        let protection = match (&g.storage, g.ha) {
            (Some(pool), true) => format!("HA and replicated storage ({pool})"),
            (Some(pool), false) => format!("replicated storage ({pool})"),
            (None, _) => "HA".to_owned(),
        };
        let backup = match backup {
            None => "no backup".to_owned(),
            Some(b) => format!("a backup on PBS {} that is only {}", b.id, b.meta.state),
        };
        sink.emit_at(
            Severity::Warning,
            ComponentRef::Guest(g),
            "backup",
            format!(
                "guest {} ({}) has {protection} but {backup}: replication does not protect against deletion or corruption",
                g.id, g.meta.state
            ),
        );
    } // Every other component that declares HA: a Traefik (traefik-sp) is restored from the backup
    // of the guest it runs in. When that guest declares HA or replicated storage it is judged
    // above already, so it is not reported twice.
    for t in topo.traefik() {
        if t.meta.state == State::Desired || !t.ha {
            continue;
        }
        let guest = t.guest.as_ref().and_then(|g| topo.guest(g));
        if guest.is_some_and(|g| g.ha || g.storage.is_some()) {
            continue;
        }
        let backup = guest
            .and_then(|g| g.backup.as_ref())
            .and_then(|b| topo.pbs_server(b));
        if backup.is_some_and(|b| b.meta.state >= t.meta.state) {
            continue;
        }
        let backup = match (guest, backup) {
            (None, _) => "no guest in the file, so no backup of it".to_owned(),
            (Some(g), None) => format!("its guest {} has no backup", g.id),
            (Some(g), Some(b)) => format!(
                "its guest {} is backed up on PBS {} that is only {}",
                g.id, b.id, b.meta.state
            ),
        };
        sink.emit_at(
            Severity::Warning,
            ComponentRef::Traefik(t),
            "ha",
            format!(
                "traefik {} ({}) declares HA but {backup}: HA is not DR, a deleted or broken configuration is not restored by a failover",
                t.id, t.meta.state
            ),
        );
    }
}
