//! REL-001 and REL-002: the relations of the model (which component may be a member, node, host
//! or target of which), checked for what the loader accepts but the world does not allow.
//!
//! The loader checks that every reference names a component of the right kind; these rules check
//! that the relation it writes can exist (REL-001) and agrees with the documents' decisions
//! (REL-002). `docs/relations.md` lists every relation of the model with the rule that judges it;
//! the relations the older rules already judge (a cluster's nodes in another site: SITE-001, a
//! pool's diskful node in another site: LINSTOR-004, a GPU guest's host: GPU-003, …) are not
//! repeated here.
//!
//! REL-001, impossible:
//! * a guest that is a node of two K3s clusters, or twice of one; any list of references that
//!   names one component twice (pool nodes, ArgoCD `manages`, pattern members);
//! * a pool node on a host that runs no LINSTOR satellite; a controller (primary or standby) on a
//!   host that runs no LINSTOR controller; a primary that is its own standby;
//! * a guest on replicated storage whose host runs no LINSTOR satellite (DRBD attaches the volume
//!   on the guest's host);
//! * a cluster's `node_placement` that its listed nodes contradict;
//! * a link end router outside the two sites the link joins, or both ends in one site;
//! * a router that is its own VRRP or WireGuard peer, or a VRRP peer in another site (VRRP runs in
//!   one network segment); a router in an LXC (VyOS runs its own kernel: a VM or the host);
//! * a router or Traefik given a host and a guest that is on another host;
//! * a PBS that syncs to itself;
//! * a pattern `manager` on a pattern that is not MultiKueue, an `argocd` on one that is not an
//!   ApplicationSet, and an ApplicationSet member its ArgoCD does not manage (an ApplicationSet
//!   deploys only to clusters registered with its ArgoCD);
//! * an item whose cluster is in another site than the item;
//! * a K3s cluster field whose meaning depends on another field that says otherwise: Hubble or a
//!   Cilium LXC exception without Cilium, a VM + Cilium proof of concept on a general-purpose
//!   cluster, a DNS-01 provider without a DNS-01 ClusterIssuer; a Traefik's `ha_state` without
//!   `ha: true`; alerts or metrics on a capability that is not observability.
//!
//! REL-002, contradicting a decision:
//! * a PBS whose guest is not a VM dedicated to it ("Onde rodar PBS (VM dedicada por site)"):
//!   an LXC, or a guest that is also a K3s node or the guest of another PBS, a Traefik or a
//!   router (a GPU in it is DOC-006's);
//! * an ArgoCD running in a GPU cluster (ADR-009: ArgoCD SP is a general workload of the main
//!   cluster; the GPU cluster runs GPU work);
//! * a GPU cluster none of whose listed nodes has a GPU.
//!
//! Every check iterates one list and follows its references through the topology's lookups by id.

use std::fmt;

use foldhash::{HashMap, HashMapExt};
use std::collections::hash_map::Entry;

use super::{Ctx, Repeats, Sink, scaled};
use crate::finding::Severity;
use crate::model::{
    CapabilityKind, ClusterPurpose, CniKind, ComponentRef, Guest, GuestId, GuestKind, Host, HostId,
    K3sCluster, K3sClusterId, LinstorController, LinstorPool, NodePlacement, PatternKind, Pbs,
    Router, State, Traefik,
};

fn placement_of(kind: GuestKind, privileged: bool) -> NodePlacement {
    match (kind, privileged) {
        (GuestKind::Vm, _) => NodePlacement::Vm,
        (GuestKind::Lxc, true) => NodePlacement::LxcPrivileged,
        (GuestKind::Lxc, false) => NodePlacement::Lxc,
    }
}

fn placement_name(p: NodePlacement) -> &'static str {
    match p {
        NodePlacement::Vm => "a VM",
        NodePlacement::Lxc => "an unprivileged LXC",
        NodePlacement::LxcPrivileged => "a privileged LXC",
    }
}

/// REL-001's finding on `c`, a `what` (`router`, `traefik`) in guest `g` that also names its
/// `host`, when `g` runs on another host.
fn host_is_its_guests(
    sink: &mut Sink<'_>,
    c: ComponentRef<'_>,
    what: &str,
    host: Option<&HostId>,
    g: &Guest,
) {
    if let Some(h) = host
        && h != &g.host
    {
        sink.emit_at(
            scaled(Severity::Error, c.meta().state.min(g.meta.state)),
            c,
            "host",
            format!(
                "{what} {} is on host {h} and in guest {}, which is on host {}",
                c.id_str(),
                g.id,
                g.host
            ),
        );
    }
}

/// REL-001's finding on each entry of the list `field` of `c` (a `what`: `ArgoCD`, `pattern`),
/// `clusters`, that names a K3s cluster the list named before.
fn clusters_listed_twice<'t>(
    sink: &mut Sink<'_>,
    repeats: &mut Repeats<'t>,
    c: ComponentRef<'_>,
    what: &str,
    field: &str,
    clusters: &'t [K3sClusterId],
) {
    repeats.next_list();
    for (i, k) in clusters.iter().enumerate() {
        if repeats.repeated(k.as_str()) {
            sink.emit_at(
                scaled(Severity::Error, c.meta().state),
                c,
                &format!("{field}[{i}]"),
                format!("{what} {} lists cluster {k} twice", c.id_str()),
            );
        }
    }
}

/// REL-001's fields whose meaning depends on another field of the same K3s cluster: each is
/// impossible where that other field says otherwise. Hubble and the Cilium LXC exception need
/// Cilium (ADR-009: «Hubble e Cilium NetworkPolicy avançada ficam restritos ao cluster onde
/// Cilium roda»); the VM + Cilium proof of concept is a GPU cluster's («avalia migrar pra VM +
/// Cilium com POC validado primeiro»); a DNS-01 provider needs the DNS-01 ClusterIssuer it
/// solves for.
fn dependent_fields(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for k in ctx.topo.k3s_clusters() {
        let cilium = k.cni.kind == CniKind::Cilium;
        let mut broken: Vec<(&str, String)> = Vec::new();
        if k.hubble && !cilium {
            broken.push((
                "hubble",
                "enables Hubble without Cilium: Hubble is Cilium's observability and stays in the cluster where Cilium runs".to_owned(),
            ));
        }
        if k.cilium_lxc_exception.is_some() && !cilium {
            broken.push((
                "cilium_lxc_exception",
                "has a `cilium_lxc_exception` but does not run Cilium".to_owned(),
            ));
        }
        if k.cilium_vm_poc.is_some() && k.purpose != ClusterPurpose::Gpu {
            broken.push((
                "cilium_vm_poc",
                "records a VM + Cilium proof of concept (`cilium_vm_poc`), which ADR-009 asks of a GPU cluster, but is general-purpose".to_owned(),
            ));
        }
        if let Some(cm) = &k.cert_manager
            && let Some(provider) = &cm.dns01_provider
            && !cm.dns01_cluster_issuer
        {
            broken.push((
                "cert_manager",
                format!(
                    "names DNS-01 provider `{provider}` for cert-manager without a DNS-01 ClusterIssuer (`dns01_cluster_issuer`)"
                ),
            ));
        }
        for (field, why) in broken {
            sink.emit_at(
                scaled(Severity::Error, k.meta.state),
                ComponentRef::K3sCluster(k),
                field,
                format!("k3s cluster {} {why}", k.id),
            );
        }
    }
}

/// REL-001's other dependent fields: a Traefik's `ha_state` says how far its `ha` is realised,
/// so it needs `ha: true`; alerts and collected metrics are an observability capability's.
fn dependent_fields_elsewhere(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for t in ctx.topo.traefik() {
        if t.ha_state.is_some() && !t.ha {
            sink.emit_at(
                scaled(Severity::Error, t.meta.state),
                ComponentRef::Traefik(t),
                "state",
                format!(
                    "traefik {} states `ha_state` without `ha: true`: there is no HA whose state it could be",
                    t.id
                ),
            );
        }
    }
    for c in ctx.topo.capabilities() {
        if c.kind == CapabilityKind::Observability {
            continue;
        }
        for (present, field) in [
            (!c.alerts.is_empty(), "alerts"),
            (!c.metrics.is_empty(), "metrics"),
        ] {
            if present {
                sink.emit_at(
                    scaled(Severity::Error, c.meta.state),
                    ComponentRef::Capability(c),
                    field,
                    format!(
                        "capability {} has `{field}`, which only an observability capability has",
                        c.id
                    ),
                );
            }
        }
    }
}

/// REL-001's severity for an impossible relation between two components: an error, scaled by the
/// less mature of their states.
fn err(a: State, b: State) -> Severity {
    scaled(Severity::Error, a.min(b))
}

/// REL-001: a relation the model accepts but the world does not allow.
pub(super) fn rel_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    dependent_fields(ctx, sink);
    dependent_fields_elsewhere(ctx, sink);
    cluster_nodes(ctx, sink);
    pool_hosts(ctx, sink);
    replicated_guests(ctx, sink);
    link_ends(ctx, sink);
    routers(ctx, sink);
    pbs_syncs(ctx, sink);
    argocd_and_patterns(ctx, sink);
    item_sites(ctx, sink);
}

/// REL-001's cluster nodes: one cluster per guest, and the cluster's stated placement. A node
/// naming a guest is listed again when the guest's first listing is another one; the ids that
/// name no guest (a topology built in code) are compared as strings.
fn cluster_nodes(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let mut unresolved_first: HashMap<&str, &K3sCluster> = HashMap::new();
    let listed_again = |sink: &mut Sink<'_>, k: &K3sCluster, i: usize, other: &K3sCluster| {
        let detail = if std::ptr::eq(other, k) {
            "twice".to_owned()
        } else {
            format!("while it is a node of cluster {} already", other.id)
        };
        sink.emit_at(
            err(k.meta.state, other.meta.state),
            ComponentRef::K3sCluster(k),
            &format!("nodes[{i}]"),
            format!(
                "k3s cluster {} lists guest {} as a node {detail}: a K3s node belongs to one cluster",
                k.id, k.nodes[i]
            ),
        );
    };
    for k in topo.k3s_clusters() {
        for (i, n) in k.nodes.iter().enumerate() {
            // Where the node's guest is first listed, if not at this node.
            let first = match topo.guest(n) {
                Some(_) => topo
                    .listing_of(n)
                    .filter(|&(first, field)| !std::ptr::eq(first, k) || field != i)
                    .map(|(first, _)| first),
                None => match unresolved_first.entry(n.as_str()) {
                    Entry::Occupied(first) => Some(*first.get()),
                    Entry::Vacant(slot) => {
                        slot.insert(k);
                        None
                    }
                },
            };
            if let Some(first) = first {
                listed_again(sink, k, i, first);
            }
        }
        if let Some(stated) = k.node_placement {
            placement_contradicted(ctx, sink, k, stated);
        }
    }
}

/// REL-001's findings on the nodes of cluster `k` that are not the `stated` placement.
fn placement_contradicted(
    ctx: &Ctx<'_>,
    sink: &mut Sink<'_>,
    k: &K3sCluster,
    stated: NodePlacement,
) {
    for (i, g) in ctx.topo.nodes_of(k) {
        let actual = placement_of(g.kind, g.privileged);
        if actual != stated {
            sink.emit_at(
                err(k.meta.state, g.meta.state),
                ComponentRef::K3sCluster(k),
                &format!("nodes[{i}]"),
                format!(
                    "k3s cluster {} states `node_placement` {} but its node {} is {}",
                    k.id,
                    placement_name(stated),
                    g.id,
                    placement_name(actual)
                ),
            );
        }
    }
}

/// Whether a host runs a LINSTOR satellite (`linstor.roles`).
fn runs_satellite(h: &Host) -> bool {
    h.linstor.as_ref().is_some_and(|l| l.is_satellite())
}

/// REL-001's LINSTOR pools: pool nodes run a satellite, controllers run a controller.
fn pool_hosts(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let mut repeats = Repeats::default();
    for pool in topo.linstor_pools() {
        let c = ComponentRef::LinstorPool(pool);
        repeats.next_list();
        for (i, node) in pool.nodes.iter().enumerate() {
            if repeats.repeated(node.host.as_str()) {
                sink.emit_at(
                    scaled(Severity::Error, pool.meta.state),
                    c,
                    &format!("nodes[{i}]"),
                    format!(
                        "pool {} lists host {} twice: a host is one node of a pool",
                        pool.id, node.host
                    ),
                );
                continue;
            }
            if let Some(h) = topo.host(&node.host)
                && !runs_satellite(h)
            {
                sink.emit_at(
                    err(pool.meta.state, h.meta.state),
                    c,
                    &format!("nodes[{i}]"),
                    format!(
                        "pool {} has host {} as a node, but the host runs no LINSTOR satellite (`linstor.roles`)",
                        pool.id, h.id
                    ),
                );
            }
        }
        if let Some(controller) = &pool.controller {
            pool_controllers(ctx, sink, pool, controller);
        }
    }
}

/// REL-001's controllers of `pool`: each runs a LINSTOR controller, and the primary is not
/// also a standby.
fn pool_controllers(
    ctx: &Ctx<'_>,
    sink: &mut Sink<'_>,
    pool: &LinstorPool,
    controller: &LinstorController,
) {
    let c = ComponentRef::LinstorPool(pool);
    for (id, field) in controller.hosts_with_fields() {
        if let Some(h) = ctx.topo.host(id)
            && !h.linstor.as_ref().is_some_and(|l| l.is_controller())
        {
            sink.emit_at(
                err(pool.meta.state, h.meta.state),
                c,
                &field,
                format!(
                    "pool {} names host {} as a LINSTOR controller, but the host runs no controller (`linstor.roles`)",
                    pool.id, h.id
                ),
            );
        }
    }
    if let Some(primary) = &controller.primary
        && let Some(i) = controller.standby.iter().position(|h| h == primary)
    {
        sink.emit_at(
            scaled(Severity::Error, pool.meta.state),
            c,
            &format!("controller.standby[{i}]"),
            format!(
                "pool {}'s controller host {primary} is its own standby",
                pool.id
            ),
        );
    }
}

/// REL-001's guests on replicated storage: their host attaches the DRBD volume.
fn replicated_guests(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let (Some(host), Some(pool)) = (topo.host_of(g), topo.pool_of(g)) else {
            continue;
        };
        if !runs_satellite(host) {
            sink.emit_at(
                err(g.meta.state, pool.meta.state),
                ComponentRef::Guest(g),
                "storage",
                format!(
                    "guest {} keeps its disks on pool {}, but its host {} runs no LINSTOR satellite to attach them",
                    g.id, pool.id, host.id
                ),
            );
        }
    }
}

/// REL-001's links: their ends are routers of the two sites they join, one in each.
fn link_ends(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for l in topo.links() {
        let c = ComponentRef::Link(l);
        let mut first_in: HashMap<&str, &str> = HashMap::new();
        for (i, r) in l.endpoints.iter().enumerate() {
            let Some(router) = topo.router(r) else {
                continue;
            };
            let field = format!("endpoints[{i}]");
            if !l.sites.contains(&router.site) {
                sink.emit_at(
                    err(l.meta.state, router.meta.state),
                    c,
                    &field,
                    format!(
                        "link {} joins {} and {}, but its end router {} is in site {}",
                        l.id, l.sites[0], l.sites[1], router.id, router.site
                    ),
                );
            } else if let Some(other) = first_in.insert(router.site.as_str(), router.id.as_str()) {
                sink.emit_at(
                    err(l.meta.state, router.meta.state),
                    c,
                    &field,
                    format!(
                        "link {} has both ends in site {} ({other} and {}): a cross-site link has one end in each site",
                        l.id, router.site, router.id
                    ),
                );
            }
        }
    }
}

/// REL-001's routers (peers, and where they run) and the Traefik instances' guests.
fn routers(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for r in topo.routers() {
        let c = ComponentRef::Router(r);
        if let Some(peer) = r.vrrp_peer.as_ref() {
            if peer == &r.id {
                sink.emit_at(
                    scaled(Severity::Error, r.meta.state),
                    c,
                    "vrrp_peer",
                    format!("router {} is its own VRRP peer", r.id),
                );
            } else if let Some(p) = topo.router(peer)
                && p.site != r.site
            {
                sink.emit_at(
                    err(r.meta.state, p.meta.state),
                    c,
                    "vrrp_peer",
                    format!(
                        "router {} of site {} names {} of site {} as its VRRP peer: VRRP runs inside one network segment, so the two are no group",
                        r.id, r.site, p.id, p.site
                    ),
                );
            }
        }
        for (i, peer) in r.wireguard_peers.iter().enumerate() {
            if peer == &r.id {
                sink.emit_at(
                    scaled(Severity::Error, r.meta.state),
                    c,
                    &format!("wireguard_peers[{i}]"),
                    format!("router {} is its own WireGuard peer", r.id),
                );
            }
        }
        if let Some(g) = r.guest.as_ref().and_then(|g| topo.guest(g)) {
            if g.kind == GuestKind::Lxc {
                sink.emit_at(
                    err(r.meta.state, g.meta.state),
                    c,
                    "guest",
                    format!(
                        "router {} runs in LXC {}: VyOS runs its own kernel, in a VM or on the host",
                        r.id, g.id
                    ),
                );
            }
            host_is_its_guests(sink, c, "router", r.host.as_ref(), g);
        }
    }
    for t in topo.traefik() {
        if let Some(g) = t.guest.as_ref().and_then(|g| topo.guest(g)) {
            host_is_its_guests(
                sink,
                ComponentRef::Traefik(t),
                "traefik",
                t.host.as_ref(),
                g,
            );
        }
    }
}

/// REL-001's PBS sync jobs: they go to another PBS.
fn pbs_syncs(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for p in ctx.topo.pbs() {
        for (i, sync) in p.sync_to.iter().enumerate() {
            if sync.target == p.id {
                sink.emit_at(
                    scaled(Severity::Error, p.meta.state),
                    ComponentRef::Pbs(p),
                    &format!("sync_to[{i}].target"),
                    format!("PBS {} syncs to itself", p.id),
                );
            }
        }
    }
}

/// REL-001's ArgoCD instances (each managed cluster once) and patterns (fields of their kind
/// only; ApplicationSet members registered with its ArgoCD). One [`Repeats`] serves both.
fn argocd_and_patterns(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let mut repeats = Repeats::default();
    for a in topo.argocd() {
        clusters_listed_twice(
            sink,
            &mut repeats,
            ComponentRef::ArgoCd(a),
            "ArgoCD",
            "manages",
            &a.manages,
        );
    }

    // Patterns: fields of their kind only; ApplicationSet members registered with its ArgoCD.
    for p in topo.patterns() {
        let c = ComponentRef::Pattern(p);
        let sev = scaled(Severity::Error, p.meta.state);
        if p.manager.is_some() && p.kind != PatternKind::MultiKueue {
            sink.emit_at(
                sev,
                c,
                "manager",
                format!(
                    "pattern {} names a manager cluster, which only a MultiKueue has",
                    p.id
                ),
            );
        }
        if p.argocd.is_some() && p.kind != PatternKind::ApplicationSet {
            sink.emit_at(
                sev,
                c,
                "argocd",
                format!(
                    "pattern {} names an ArgoCD, which only an ApplicationSet has",
                    p.id
                ),
            );
        }
        clusters_listed_twice(sink, &mut repeats, c, "pattern", "members", &p.members);
        if p.kind == PatternKind::ApplicationSet
            && let Some(a) = p.argocd.as_ref().and_then(|a| topo.argocd_instance(a))
        {
            // The clusters the ArgoCD manages, marked once: a member is looked up in O(1).
            repeats.next_list();
            for k in &a.manages {
                repeats.repeated(k.as_str());
            }
            for (i, m) in p.members.iter().enumerate() {
                if !repeats.named(m.as_str()) {
                    sink.emit_at(
                        scaled(Severity::Error, p.meta.state.min(a.meta.state)),
                        c,
                        &format!("members[{i}]"),
                        format!(
                            "ApplicationSet {} of ArgoCD {} deploys to cluster {m}, which that ArgoCD does not manage",
                            p.id, a.id
                        ),
                    );
                }
            }
        }
    }
}

/// REL-001's items: the cluster they run in is in their site.
fn item_sites(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for item in topo.items() {
        if let (Some(site), Some(k)) = (
            &item.site,
            item.cluster.as_ref().and_then(|k| topo.k3s_cluster(k)),
        ) && &k.site != site
        {
            sink.emit_at(
                err(item.meta.state, k.meta.state),
                ComponentRef::Item(item),
                "cluster",
                format!(
                    "item {} is of site {site} but runs in cluster {} of site {}",
                    item.id, k.id, k.site
                ),
            );
        }
    }
}

/// What else a guest is, named in REL-002's message.
enum Use<'t> {
    Node(&'t K3sCluster),
    Pbs(&'t Pbs),
    Traefik(&'t Traefik),
    Router(&'t Router),
}

impl fmt::Display for Use<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Use::Node(k) => write!(f, "a node of k3s cluster {}", k.id),
            Use::Pbs(p) => write!(f, "the guest of PBS {}", p.id),
            Use::Traefik(t) => write!(f, "the guest of traefik {}", t.id),
            Use::Router(r) => write!(f, "the guest of router {}", r.id),
        }
    }
}

/// REL-002: a relation that is possible but contradicts a decision of the documents.
pub(super) fn rel_002(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    pbs_dedicated_vm(ctx, sink);
    argocd_in_gpu_cluster(ctx, sink);
    gpu_cluster_without_gpu(ctx, sink);
}

/// REL-002's severity for a relation between two components that contradicts a decision: a
/// warning, scaled by the less mature of their states.
fn warn(a: State, b: State) -> Severity {
    scaled(Severity::Warning, a.min(b))
}

/// REL-002's PBS guests: a PBS runs in a VM dedicated to it (a GPU in that VM is DOC-006's).
/// What else the guest of each PBS is: a K3s node, the guest of a PBS, a Traefik, a router.
/// Only the PBS guests (a few) are looked for, and named only when a finding is emitted.
fn pbs_dedicated_vm<'t>(ctx: &Ctx<'t>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    // Keyed by the guest's id: the lookups resolve an id to its first guest.
    let mut slot_of: HashMap<&str, usize> = HashMap::new();
    let mut uses: Vec<Vec<Use<'t>>> = Vec::new();
    let mut pbs_guests = Vec::new();
    for p in topo.pbs() {
        let Some(g) = p.guest.as_ref().and_then(|g| topo.guest(g)) else {
            continue;
        };
        let slot = *slot_of.entry(g.id.as_str()).or_insert_with(|| {
            uses.push(Vec::new());
            uses.len() - 1
        });
        pbs_guests.push((p, g, slot));
    }
    if !pbs_guests.is_empty() {
        let mut used = |guest: Option<&GuestId>, what: Use<'t>| {
            if let Some(&slot) = guest.and_then(|g| slot_of.get(g.as_str())) {
                uses[slot].push(what);
            }
        };
        for k in topo.k3s_clusters() {
            for (_, g) in topo.nodes_of(k) {
                used(Some(&g.id), Use::Node(k));
            }
        }
        for p in topo.pbs() {
            used(p.guest.as_ref(), Use::Pbs(p));
        }
        for t in topo.traefik() {
            used(t.guest.as_ref(), Use::Traefik(t));
        }
        for r in topo.routers() {
            used(r.guest.as_ref(), Use::Router(r));
        }
    }
    for (p, g, slot) in pbs_guests {
        let others: Vec<String> = uses[slot]
            .iter()
            .filter(|u| !matches!(u, Use::Pbs(q) if q.id == p.id))
            .map(ToString::to_string)
            .collect();
        let mut problems = Vec::new();
        if g.kind == GuestKind::Lxc {
            problems.push("an LXC, not a VM".to_owned());
        }
        if !others.is_empty() {
            problems.push(format!("also {}", others.join(", ")));
        }
        if !problems.is_empty() {
            sink.emit_at(
                warn(p.meta.state, g.meta.state),
                ComponentRef::Pbs(p),
                "guest",
                format!(
                    "PBS {} runs in guest {}, which is {}: PBS goes in a VM dedicated to it, one per site",
                    p.id,
                    g.id,
                    problems.join("; ")
                ),
            );
        }
    }
}

/// REL-002's ArgoCD instances: ArgoCD is a general workload, it runs in the site's
/// general-purpose cluster.
fn argocd_in_gpu_cluster(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for a in topo.argocd() {
        if let Some(k) = a.runs_in.as_ref().and_then(|k| topo.k3s_cluster(k))
            && k.purpose == ClusterPurpose::Gpu
        {
            sink.emit_at(
                warn(a.meta.state, k.meta.state),
                ComponentRef::ArgoCd(a),
                "runs_in",
                format!(
                    "ArgoCD {} runs in GPU cluster {}: ArgoCD is a general workload of the site's main cluster, the GPU cluster runs GPU work",
                    a.id, k.id
                ),
            );
        }
    }
}

/// REL-002's GPU clusters: one of its listed nodes has a GPU.
fn gpu_cluster_without_gpu(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let gpu_clusters = ctx.topo.k3s_clusters().iter();
    for k in gpu_clusters.filter(|k| k.purpose == ClusterPurpose::Gpu) {
        if !ctx.has_nodes(k) {
            continue;
        }
        let with_gpu = ctx.topo.nodes_of(k).any(|(_, g)| g.gpu.is_some());
        if !with_gpu {
            sink.emit_at(
                scaled(Severity::Warning, k.meta.state),
                ComponentRef::K3sCluster(k),
                "nodes",
                format!(
                    "GPU cluster {} has no node with a GPU: GPU work runs where the GPU is",
                    k.id
                ),
            );
        }
    }
}
