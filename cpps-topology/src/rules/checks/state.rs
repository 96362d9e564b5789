//! STATE-001, SEC-001, OBS-001 and FRUGAL-001: rules about states, secrets and capabilities.

use foldhash::{HashMap, HashMapExt};

use super::secrets::{SecretHit, find_secrets};
use super::{Ctx, Sink, scaled};
use crate::finding::Severity;
use crate::model::{AlertKind, CapabilityKind, ComponentRef, Location, SiteId, State, Topology};

/// A field of a component naming what it stands on: `host`, `nodes[3]`, …
#[derive(Clone, Copy)]
struct Field(&'static str, Option<usize>);

impl Field {
    fn path(self) -> String {
        match self.1 {
            Some(i) => format!("{}[{i}]", self.0),
            None => self.0.to_owned(),
        }
    }
}

/// The least mature of the components a component stands on, found without allocating (this
/// runs once per component).
#[derive(Default)]
struct Weakest<'t> {
    state: Option<State>,
    what: (&'static str, &'t str),
    field: Option<Field>,
    below: usize,
    of: Option<State>,
}

impl<'t> Weakest<'t> {
    fn new(of: State) -> Self {
        Weakest {
            of: Some(of),
            ..Weakest::default()
        }
    }

    fn see(&mut self, kind: &'static str, id: &'t str, state: State, field: Field) {
        self.see_by(kind, || id, state, field);
    }

    /// [`Weakest::see`] that reads the id only when it is kept.
    fn see_by(
        &mut self,
        kind: &'static str,
        id: impl FnOnce() -> &'t str,
        state: State,
        field: Field,
    ) {
        if self.of.is_some_and(|of| state < of) {
            self.below += 1;
            if self.state.is_none_or(|s| state < s) {
                self.state = Some(state);
                self.what = (kind, id());
                self.field = Some(field);
            }
        }
    }

    /// [`Weakest::see_by`] for each entry of the list `field` (`field[i]`) that names a
    /// component, given as its id and state; an entry that names none is passed over.
    fn see_listed(
        &mut self,
        (kind, field): (&'static str, &'static str),
        listed: impl Iterator<Item = Option<(&'t str, State)>>,
    ) {
        for (i, named) in listed.enumerate() {
            if let Some((id, state)) = named {
                self.see_by(kind, || id, state, Field(field, Some(i)));
            }
        }
    }
}

/// Emits the finding of `w`, if it found a dependency less mature than the component.
fn emit_weakest(sink: &mut Sink<'_>, c: ComponentRef<'_>, state: State, w: &Weakest<'_>) {
    if let (Some(dep_state), Some(field)) = (w.state, w.field) {
        emit_weakest_found(sink, c, state, w, dep_state, field);
    }
}

fn emit_weakest_found(
    sink: &mut Sink<'_>,
    c: ComponentRef<'_>,
    state: State,
    w: &Weakest<'_>,
    dep_state: State,
    field: Field,
) {
    let (kind, id) = w.what;
    let more = match w.below - 1 {
        0 => String::new(),
        n => format!(" (and {n} more it depends on)"),
    };
    sink.emit_at(
        Severity::Error,
        c,
        &field.path(),
        format!(
            "{} {} is {state} but {kind} {id}, which it depends on, is only {dep_state}{more}",
            c.kind(),
            c.id_str()
        ),
    );
}

/// STATE-001's finding on `c`, in `state` and marked deferred: 🚫 deferred is a roadmap mark
/// ("desired", deferred on purpose), so a component that is validated or declared and deferred at
/// once mixes two states.
fn deferred(sink: &mut Sink<'_>, c: ComponentRef<'_>, state: State) {
    sink.emit_at(
        Severity::Error,
        c,
        "state",
        format!(
            "{} {} is `{state}` and marked `deferred: true`: a deferred component (🚫) is `desired`, not {state}",
            c.kind(),
            c.id_str()
        ),
    );
}

/// STATE-001's finding on `c` (a guest or a Traefik, the `noun` of the message), whose `ha` is
/// marked `ha`, more mature than `c` itself.
fn ha_more_mature(sink: &mut Sink<'_>, c: ComponentRef<'_>, noun: &str, ha: State) {
    sink.emit_at(
        Severity::Error,
        c,
        "ha",
        format!(
            "{} {}: its `ha` is marked {ha}, more mature than the {noun} itself ({})",
            c.kind(),
            c.id_str(),
            c.meta().state
        ),
    );
}

/// What STATE-001 judges of the component `c()` names, in `state` (marked `deferred` or not):
/// unless it is desired (nothing is less mature than desired), whether it is deferred too, and
/// then the [`Weakest`] of what it stands on, to be filled. `c` is called only for a deferred
/// finding.
fn judged<'t, 'c>(
    sink: &mut Sink<'_>,
    c: impl FnOnce() -> ComponentRef<'c>,
    state: State,
    is_deferred: bool,
) -> Option<Weakest<'t>> {
    if state == State::Desired {
        return None;
    }
    if is_deferred {
        deferred(sink, c(), state);
    }
    Some(Weakest::new(state))
}

/// STATE-001: a component is no more mature than what it stands on, and a property's state is no
/// more mature than its component's ("Misturar os três é o erro mais comum").
pub(super) fn state_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    components_by_id(ctx, sink);
    hosts_pools_patterns(ctx, sink);
    guests(ctx, sink);
    clusters(ctx, sink);
    properties_more_mature(ctx, sink);
}

/// STATE-001's components but the hosts, guests, pools, patterns and K3s clusters (which the
/// functions below judge), each with what it stands on.
fn components_by_id<'t>(ctx: &Ctx<'t>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for c in topo.components().filter(|c| {
        !matches!(
            c,
            ComponentRef::K3sCluster(_)
                | ComponentRef::Host(_)
                | ComponentRef::Guest(_)
                | ComponentRef::LinstorPool(_)
                | ComponentRef::Pattern(_)
        )
    }) {
        let state = c.meta().state;
        let Some(mut w) = judged(sink, || c, state, c.meta().deferred) else {
            continue;
        };
        if stands_on(topo, c, &mut w) {
            emit_weakest(sink, c, state, &w);
        }
    }
}

/// Sees in `w` what `c` stands on; false for the components judged on their own (below).
fn stands_on<'t>(topo: &'t Topology, c: ComponentRef<'t>, w: &mut Weakest<'t>) -> bool {
    let site = |w: &mut Weakest<'t>, id: &SiteId| site_seen(topo, w, id);
    match c {
        ComponentRef::Site(_) => {}
        // These are judged on their own (below).
        ComponentRef::Guest(_)
        | ComponentRef::K3sCluster(_)
        | ComponentRef::Host(_)
        | ComponentRef::LinstorPool(_)
        | ComponentRef::Pattern(_) => return false,
        ComponentRef::ProxmoxCluster(p) => site(w, &p.site),
        ComponentRef::ArgoCd(a) => {
            site(w, &a.site);
            if let Some(k) = a.runs_in.as_ref().and_then(|id| topo.k3s_cluster(id)) {
                w.see(
                    "cluster",
                    k.id.as_str(),
                    k.meta.state,
                    Field("runs_in", None),
                );
            }
        }
        ComponentRef::Pbs(p) => {
            site(w, &p.site);
            if let Some(g) = p.guest.as_ref().and_then(|id| topo.guest(id)) {
                w.see("guest", g.id.as_str(), g.meta.state, Field("guest", None));
            }
        }
        ComponentRef::Router(r) => site(w, &r.site),
        ComponentRef::Traefik(t) => {
            site(w, &t.site);
            if let Some(g) = t.guest.as_ref().and_then(|id| topo.guest(id)) {
                w.see("guest", g.id.as_str(), g.meta.state, Field("guest", None));
            }
        }
        ComponentRef::Link(l) => {
            for (i, r) in l.endpoints.iter().enumerate() {
                if let Some(r) = topo.router(r) {
                    w.see(
                        "router",
                        r.id.as_str(),
                        r.meta.state,
                        Field("endpoints", Some(i)),
                    );
                }
            }
        }
        ComponentRef::Capability(cap) => {
            if let Some(id) = &cap.site {
                site(w, id);
            }
        }
        ComponentRef::Item(item) => {
            if let Some(id) = &item.site {
                site(w, id);
            }
            if let Some(k) = item.cluster.as_ref().and_then(|id| topo.k3s_cluster(id)) {
                w.see(
                    "cluster",
                    k.id.as_str(),
                    k.meta.state,
                    Field("cluster", None),
                );
            }
        }
    }
    true
}

/// Sees in `w` the site with this id, if it is declared.
fn site_seen<'t>(topo: &'t Topology, w: &mut Weakest<'t>, site: &SiteId) {
    if let Some(s) = topo.site(site) {
        w.see("site", s.id.as_str(), s.meta.state, Field("site", None));
    }
}

/// STATE-001's hosts, pools and patterns: their site, and the hosts or clusters they list.
fn hosts_pools_patterns<'t>(ctx: &Ctx<'t>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for h in topo.hosts() {
        let (c, state) = (ComponentRef::Host(h), h.meta.state);
        let Some(mut w) = judged(sink, || c, state, h.meta.deferred) else {
            continue;
        };
        site_seen(topo, &mut w, &h.site);
        emit_weakest(sink, c, state, &w);
    }
    for p in topo.linstor_pools() {
        let (c, state) = (ComponentRef::LinstorPool(p), p.meta.state);
        let Some(mut w) = judged(sink, || c, state, p.meta.deferred) else {
            continue;
        };
        site_seen(topo, &mut w, &p.site);
        let hosts = p.nodes.iter().map(|n| topo.host(&n.host));
        w.see_listed(
            ("host", "nodes"),
            hosts.map(|h| h.map(|h| (h.id.as_str(), h.meta.state))),
        );
        emit_weakest(sink, c, state, &w);
    }
    for p in topo.patterns() {
        let (c, state) = (ComponentRef::Pattern(p), p.meta.state);
        let Some(mut w) = judged(sink, || c, state, p.meta.deferred) else {
            continue;
        };
        let members = p.members.iter().map(|k| topo.k3s_cluster(k));
        w.see_listed(
            ("cluster", "members"),
            members.map(|k| k.map(|k| (k.id.as_str(), k.meta.state))),
        );
        emit_weakest(sink, c, state, &w);
    }
}

/// STATE-001's guests: their host, and their `ha` more mature than them.
fn guests(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for g in topo.guests() {
        let state = g.meta.state;
        if let Some(ha) = g.ha_state.filter(|_| g.ha)
            && ha > state
        {
            ha_more_mature(sink, ComponentRef::Guest(g), "guest", ha);
        }
        let Some(mut w) = judged(sink, || ComponentRef::Guest(g), state, g.meta.deferred) else {
            continue;
        };
        if let Some(h) = topo.host_of(g) {
            w.see_by("host", || h.id.as_str(), h.meta.state, Field("host", None));
        }
        if w.state.is_some() {
            emit_weakest(sink, ComponentRef::Guest(g), state, &w);
        }
    }
}

/// STATE-001's clusters: their site and node guests.
fn clusters(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for k in topo.k3s_clusters() {
        let (c, state) = (ComponentRef::K3sCluster(k), k.meta.state);
        let Some(mut w) = judged(sink, || c, state, k.meta.deferred) else {
            continue;
        };
        site_seen(topo, &mut w, &k.site);
        for (i, g) in topo.nodes_of(k) {
            w.see_by(
                "node guest",
                || g.id.as_str(),
                g.meta.state,
                Field("nodes", Some(i)),
            );
        }
        emit_weakest(sink, c, state, &w);
    }
}

/// STATE-001's properties more mature than their component: the inverse mix (a guest's `ha`
/// is judged with the guest).
fn properties_more_mature(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    for k in topo.k3s_clusters() {
        if let Some(cm) = k.cert_manager.as_ref().map(|cm| cm.state)
            && cm > k.meta.state
        {
            sink.emit_at(
                Severity::Error,
                ComponentRef::K3sCluster(k),
                "cert_manager",
                format!(
                    "cert-manager of k3s cluster {} is marked {cm}, more mature than the cluster itself ({})",
                    k.id, k.meta.state
                ),
            );
        }
    }
    for t in topo.traefik() {
        if let Some(ha) = t.ha_state.filter(|_| t.ha)
            && ha > t.meta.state
        {
            ha_more_mature(sink, ComponentRef::Traefik(t), "instance", ha);
        }
    }
    for cap in topo.capabilities() {
        for alert in &cap.alerts {
            if alert.state > cap.meta.state {
                sink.emit(
                    Severity::Error,
                    ComponentRef::Capability(cap),
                    alert.location,
                    format!(
                        "alert {:?} of capability {} is marked {}, more mature than the capability itself ({})",
                        alert.kind, cap.id, alert.state, cap.meta.state
                    ),
                );
            }
        }
    }
}

/// Turns increasing byte offsets of a text into 1-based lines and character columns, in one
/// pass over the text whatever the number of offsets asked (they must not decrease).
struct LineCursor<'a> {
    text: &'a [u8],
    pos: usize,
    line: u32,
    column: u32,
}

impl<'a> LineCursor<'a> {
    fn new(text: &'a str) -> Self {
        LineCursor {
            text: text.as_bytes(),
            pos: 0,
            line: 1,
            column: 1,
        }
    }

    fn advance_to(&mut self, offset: usize) -> (u32, u32) {
        let end = offset.min(self.text.len());
        for &b in &self.text[self.pos.min(end)..end] {
            if b == b'\n' {
                self.line += 1;
                self.column = 1;
            } else if b & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a new character.
                self.column += 1;
            }
        }
        self.pos = self.pos.max(end);
        (self.line, self.column)
    }
}

/// The free text of a component, field by field, into `out` (emptied first, so that one buffer
/// serves every component), for a topology built in code, which has no file text to read whole.
fn free_text<'t>(c: ComponentRef<'t>, out: &mut Vec<(Field, &'t str)>) {
    let meta = c.meta();
    out.clear();
    let mut push = |field: Field, text: Option<&'t str>| {
        if let Some(text) = text {
            out.push((field, text));
        }
    };
    let named = |name| Field(name, None);
    push(named("note"), meta.note.as_deref());
    push(named("use_case"), meta.use_case.as_deref());
    match c {
        ComponentRef::Site(s) => push(named("name"), s.name.as_deref()),
        ComponentRef::Guest(g) => push(named("role"), g.role.as_deref()),
        ComponentRef::LinstorPool(p) => {
            push(named("provider"), Some(p.provider.as_str()));
            push(named("storage_pool"), p.storage_pool.as_deref());
        }
        ComponentRef::K3sCluster(k) => {
            push(
                named("cert_manager"),
                k.cert_manager.as_ref().and_then(|cm| cm.note.as_deref()),
            );
            push(
                named("cilium_lxc_exception"),
                k.cilium_lxc_exception.as_deref(),
            );
            for (i, claim) in k.placement_claims.iter().enumerate() {
                push(
                    Field("placement_claims", Some(i)),
                    Some(claim.quote.as_str()),
                );
            }
        }
        ComponentRef::Link(l) => push(named("over"), l.over.as_deref()),
        ComponentRef::Capability(cap) => {
            push(named("tool"), cap.tool.as_deref());
            for (i, alert) in cap.alerts.iter().enumerate() {
                push(Field("alerts", Some(i)), alert.note.as_deref());
            }
        }
        _ => {}
    }
}

fn secret_message(where_: &str, hit: &SecretHit, text: &str) -> String {
    let chars = text
        .get(hit.start..hit.start + hit.len)
        .map_or(hit.len, |v| v.chars().count());
    format!(
        "{where_} holds what looks like {} (`{}`, {chars} characters, masked here); the topology file is kept in git",
        hit.what, hit.masked
    )
}

/// SEC-001: the topology holds no secret in any text: values, notes, descriptions, comments
/// (the detector is [`find_secrets`]). With the file's text, the whole text is read once, so
/// every free-text field counts whatever its name; a topology built in code has its free text
/// read field by field. A finding points at the value and shows it masked, never in clear.
pub(super) fn sec_001<'t>(ctx: &Ctx<'t>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    match &topo.source {
        Some(source) => {
            // Each hit belongs to the component written above it (components sorted by their
            // offset once, then a binary search per hit).
            let mut starts: Vec<(usize, ComponentRef<'_>)> = topo
                .components()
                .filter(|c| c.meta().location.is_known())
                .map(|c| (c.meta().location.offset, c))
                .collect();
            starts.sort_by_key(|(offset, _)| *offset);
            let text: &str = &source.text;
            let mut cursor = LineCursor::new(text);
            find_secrets(text, |hit| {
                let (line, column) = cursor.advance_to(hit.start);
                let at = Location {
                    line,
                    column,
                    offset: hit.start,
                    len: hit.len,
                };
                let message = secret_message(&format!("line {line}"), &hit, text);
                let owner = starts.partition_point(|(o, _)| *o <= hit.start);
                match owner.checked_sub(1).map(|i| starts[i].1) {
                    Some(c) => sink.emit(Severity::Error, c, at, message),
                    None => sink.emit_topology(Severity::Error, at, message),
                }
            });
        }
        None => {
            // Many components share a text (every pool's `provider`, say): a text found clean
            // once is not read again.
            let mut clean: HashMap<&str, ()> = HashMap::new();
            let mut texts = Vec::new();
            for c in in_check_order(topo) {
                free_text(c, &mut texts);
                for &(field, text) in &texts {
                    if clean.contains_key(text) {
                        continue;
                    }
                    let mut found = false;
                    find_secrets(text, |hit| {
                        found = true;
                        let field = field.path();
                        let message =
                            secret_message(&format!("the {field} of {}", c.id_str()), &hit, text);
                        sink.emit_at(Severity::Error, c, &field, message);
                    });
                    if !found {
                        clean.insert(text, ());
                    }
                }
            }
            for tier in topo.tiers() {
                if let Some(text) = tier.description.as_deref() {
                    find_secrets(text, |hit| {
                        let message = secret_message(
                            &format!("the description of tier {}", tier.id),
                            &hit,
                            text,
                        );
                        sink.emit_topology(Severity::Error, tier.location, message);
                    });
                }
            }
            for s in topo.suppressions() {
                find_secrets(&s.reason, |hit| {
                    let message = secret_message(
                        &format!("the reason of a suppression of {}", s.rule),
                        &hit,
                        &s.reason,
                    );
                    sink.emit_topology(Severity::Error, s.location, message);
                });
            }
        }
    }
}

/// OBS-001 (static part): the five basic alerts are declared, and validated.
pub(super) fn obs_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    let topo = ctx.topo;
    let observability: Vec<_> = topo
        .capabilities()
        .iter()
        .filter(|c| c.kind == CapabilityKind::Observability)
        .collect();
    let mut best: [Option<State>; 5] = [None; 5];
    for cap in &observability {
        for alert in &cap.alerts {
            if let Some(i) = AlertKind::BASIC.iter().position(|k| *k == alert.kind) {
                let state = alert.state.min(cap.meta.state);
                best[i] = Some(best[i].map_or(state, |b| b.max(state)));
            }
        }
    }
    let name = |k: AlertKind| match k {
        AlertKind::NodeDown => "node down",
        AlertKind::LinstorDegraded => "LINSTOR degraded",
        AlertKind::DrbdDesync => "DRBD desync",
        AlertKind::ArgocdOutOfSync => "ArgoCD out-of-sync",
        AlertKind::CertExpiring => "cert expiring",
        AlertKind::NvrmErrors => "NVRM errors",
    };
    let missing: Vec<&str> = AlertKind::BASIC
        .iter()
        .zip(best)
        .filter(|(_, b)| b.is_none())
        .map(|(k, _)| name(*k))
        .collect();
    let not_live: Vec<String> = AlertKind::BASIC
        .iter()
        .zip(best)
        .filter_map(|(k, b)| match b {
            Some(s) if s < State::Validated => Some(format!("{} ({s})", name(*k))),
            _ => None,
        })
        .collect();
    if missing.is_empty() && not_live.is_empty() {
        return;
    }
    let mut parts = Vec::new();
    if !missing.is_empty() {
        parts.push(format!("not declared: {}", missing.join(", ")));
    }
    if !not_live.is_empty() {
        parts.push(format!("not in production: {}", not_live.join(", ")));
    }
    let severity = if missing.is_empty() {
        Severity::Info
    } else {
        Severity::Warning
    };
    let message = format!("of the five basic alerts, {}", parts.join("; "));
    // The subject is the alerting capability: the observability part that declares the most
    // alerts (Alertmanager in CPPS), not whichever observability tool comes first in the file.
    let alerting = observability
        .iter()
        .copied()
        .filter(|c| !c.alerts.is_empty())
        .max_by_key(|c| c.alerts.len())
        .or_else(|| observability.first().copied());
    match alerting {
        Some(cap) => sink.emit_at(severity, ComponentRef::Capability(cap), "alerts", message),
        None => sink.emit_topology(
            severity,
            Location::UNKNOWN,
            format!("no observability capability is declared; {message}"),
        ),
    }
}

/// Every component: the others first, then the hosts, the K3s clusters and the guests, the
/// order in which SEC-001 and FRUGAL-001 read them.
fn in_check_order(topo: &Topology) -> impl Iterator<Item = ComponentRef<'_>> {
    let others = topo.components().filter(|c| {
        !matches!(
            c,
            ComponentRef::Guest(_) | ComponentRef::Host(_) | ComponentRef::K3sCluster(_)
        )
    });
    others
        .chain(topo.hosts().iter().map(ComponentRef::Host))
        .chain(topo.k3s_clusters().iter().map(ComponentRef::K3sCluster))
        .chain(topo.guests().iter().map(ComponentRef::Guest))
}

/// FRUGAL-001: a `desired` component names its use case (deferred ones are exempt: they are
/// on hold on purpose).
pub(super) fn frugal_001(ctx: &Ctx<'_>, sink: &mut Sink<'_>) {
    for c in in_check_order(ctx.topo) {
        let meta = c.meta();
        if meta.state == State::Desired
            && !meta.deferred
            && meta.use_case.as_deref().is_none_or(|u| u.trim().is_empty())
        {
            sink.emit_at(
                scaled(Severity::Info, meta.state),
                c,
                "state",
                format!(
                    "{} {} is on the roadmap without a use case",
                    c.kind(),
                    c.id_str()
                ),
            );
        }
    }
}
