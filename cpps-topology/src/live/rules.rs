//! The live parts of the catalogue's rules: STATE-002/003, PVE-003, LINSTOR-007, BACKUP-003,
//! GPU-005, GITOPS-002, INGRESS-002 and OBS-001, and the live network rules LINK-001, LINK-002
//! and VRRP-001 (`docs/live-invariants.md`, in its `net` module), over an [`Observation`] and its
//! [`Diff`].
//!
//! They emit the same [`Finding`]s as the static checks, with the component's location in the
//! topology file, so suppressions and every report format apply to them unchanged.

use std::collections::BTreeMap;

use super::diff::{Diff, Drift, DriftKind, Evidence, source_of};
use super::facts::{Observation, SiteObservation, SourceFailure};
use super::index::{DeclaredIndex, PbsIndex, PveIndex};
use crate::finding::{Finding, Severity};
use crate::model::{ComponentRef, Location as ModelLocation, State, Topology};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

mod net;

/// Thresholds of the live rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LiveOptions {
    /// "Now", in Unix seconds: backup ages and certificate expiries are measured from it.
    pub now: i64,
    /// INGRESS-002: when a certificate's expiry is reported; the policy `cpps-gpu`'s cluster
    /// checks use too, so both give one answer (a critical expiry is an error here).
    pub cert_expiry: cpps_gpu::policy::CertExpiryPolicy,
    /// GPU-005: how a running driver other than the pinned one is reported; shared with
    /// `gpu-health --driver-version` (a critical mismatch is an error here).
    pub driver_pin: cpps_gpu::policy::DriverPinPolicy,
}

impl LiveOptions {
    /// The defaults, as of `now` (Unix seconds).
    pub fn at(now: i64) -> Self {
        Self {
            now,
            cert_expiry: cpps_gpu::policy::CertExpiryPolicy::default(),
            driver_pin: cpps_gpu::policy::DriverPinPolicy::default(),
        }
    }
}

/// A `cpps-gpu` severity as a finding's: critical is an error.
fn from_gpu_severity(severity: cpps_gpu::health::Severity) -> Severity {
    match severity {
        cpps_gpu::health::Severity::Critical => Severity::Error,
        cpps_gpu::health::Severity::Warning => Severity::Warning,
        cpps_gpu::health::Severity::Info | cpps_gpu::health::Severity::Ok => Severity::Info,
    }
}

impl Default for LiveOptions {
    fn default() -> Self {
        Self::at(jiff::Timestamp::now().as_second())
    }
}

type LiveCheck = fn(&Live<'_>, &mut Sink<'_>);

/// Every rule with a live part and its check, in catalogue order.
pub(crate) static LIVE_CHECKS: &[(RuleId, LiveCheck)] = &[
    (RuleId("STATE-002"), state_002),
    (RuleId("STATE-003"), state_003),
    (RuleId("PVE-003"), pve_003),
    (RuleId("LINSTOR-007"), linstor_007),
    (RuleId("BACKUP-003"), backup_003),
    (RuleId("INGRESS-002"), ingress_002),
    (RuleId("GPU-005"), gpu_005),
    (RuleId("GITOPS-002"), gitops_002),
    (RuleId("OBS-001"), obs_001),
    (RuleId("LINK-001"), net::link_001),
    (RuleId("LINK-002"), net::link_002),
    (RuleId("VRRP-001"), net::vrrp_001),
];

/// What the live checks read.
pub(crate) struct Live<'a> {
    pub(crate) topo: &'a Topology,
    pub(crate) observed: &'a Observation,
    pub(crate) diff: &'a Diff,
    pub(crate) options: LiveOptions,
    /// The declared components by what the sources report, built once.
    pub(crate) declared: DeclaredIndex<'a>,
}

impl<'a> Live<'a> {
    fn site_ref(&self, site: &str) -> Option<ComponentRef<'a>> {
        self.declared.site(site)
    }

    /// The component of the topology a drift is about, if any.
    fn component_of(&self, drift: &Drift) -> Option<ComponentRef<'a>> {
        drift
            .component
            .as_deref()
            .and_then(|id| self.topo.component(id))
    }
}

fn emit_on(sink: &mut Sink<'_>, severity: Severity, c: ComponentRef<'_>, message: String) {
    let at: ModelLocation = c.meta().location;
    sink.emit(severity, c, at, message);
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
    for (rule, check) in LIVE_CHECKS {
        sink.set_rule(*rule);
        check(&live, &mut sink);
    }
    sink.into_findings()
}

/// STATE-002: validated components observed as declared; sites and sources that cannot be
/// observed; things present but undeclared.
fn state_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for failure in site.failures() {
            unreachable_source(live, sink, site, failure);
        }
    }
    for drift in &live.diff.drift {
        let component = live.component_of(drift);
        match (&drift.kind, component) {
            (DriftKind::ValidatedButMissing, Some(c)) => {
                emit_on(sink, Severity::Error, c, drift.message.clone());
            }
            (DriftKind::Mismatch { property, .. }, Some(c)) => {
                // A guest running on another host than declared is normal for HA guests
                // (migration): worth seeing, not drift of a decision.
                let severity = match (c.meta().state, property.as_str()) {
                    (_, "host") => Severity::Info,
                    (State::Validated, _) => Severity::Error,
                    _ => Severity::Info,
                };
                emit_on(sink, severity, c, drift.message.clone());
            }
            (DriftKind::PresentButUndeclared { .. }, _) => {
                if let Some(site) = live.site_ref(&drift.site) {
                    emit_on(sink, Severity::Warning, site, drift.message.clone());
                }
            }
            _ => {}
        }
    }
}

fn unreachable_source(
    live: &Live<'_>,
    sink: &mut Sink<'_>,
    site: &SiteObservation,
    failure: &SourceFailure,
) {
    let Some(site_ref) = live.site_ref(&site.site) else {
        return;
    };
    let hidden: Vec<&str> = live
        .diff
        .components
        .iter()
        .filter(|c| c.site.as_deref() == Some(site.site.as_str()))
        .filter(|c| c.declared == State::Validated)
        .filter(|c| source_of(c.kind) == Some(failure.source))
        .filter(
            |c| matches!(&c.evidence, Evidence::Unknown(reason) if *reason == failure.to_string()),
        )
        .map(|c| c.id.as_str())
        .collect();
    let (severity, what) = if hidden.is_empty() {
        (
            Severity::Warning,
            "no validated component depends on it".to_owned(),
        )
    } else {
        (
            Severity::Error,
            format!(
                "{} validated component{} cannot be verified: {}",
                hidden.len(),
                if hidden.len() == 1 { "" } else { "s" },
                hidden.join(", ")
            ),
        )
    };
    emit_on(
        sink,
        severity,
        site_ref,
        format!(
            "site {} cannot be observed through {}: {what}",
            site.site, failure
        ),
    );
}

/// STATE-003: properties declared but not realized.
fn state_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for drift in &live.diff.drift {
        if let DriftKind::DeclaredNotRealized { .. } = drift.kind
            && let Some(c) = live.component_of(drift)
        {
            emit_on(
                sink,
                Severity::Warning,
                c,
                format!("{}: declared, not validated", drift.message),
            );
        }
    }
}

/// PVE-003: a guest declared HA is a real Proxmox HA resource, not just `on_boot`.
fn pve_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for drift in &live.diff.drift {
        if let DriftKind::DeclaredNotRealized { property } = &drift.kind
            && property == "ha"
            && let Some(c) = live.component_of(drift)
        {
            emit_on(
                sink,
                Severity::Warning,
                c,
                format!(
                    "{}; without an HA resource it only restarts with its node (on_boot), it does not fail over",
                    drift.message
                ),
            );
        }
    }
}

/// LINSTOR-007: no resource degraded or desynced.
///
/// Every class but `healthy` is a finding, `unknown` included (unknown is never healthy), except
/// `inactive`: linstor-client skips INACTIVE resources (`vlm_cmds.py`), nothing is expected of
/// a resource deactivated on purpose.
fn linstor_007(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(facts) = site.linstor.observed() else {
            continue;
        };
        for r in facts
            .resources
            .iter()
            .filter(|r| r.class != "healthy" && r.class != "inactive")
        {
            let pool = r
                .storage_pools
                .iter()
                .find_map(|name| live.declared.pool_named(&site.site, name));
            let subject = match pool {
                Some(p) => ComponentRef::LinstorPool(p),
                None => match live.site_ref(&site.site) {
                    Some(s) => s,
                    None => continue,
                },
            };
            // A group without place_count wants the controller's default, as cpps-linstor's
            // health derivation counts it.
            let wanted = r
                .place_count
                .unwrap_or(cpps_linstor::health::DEFAULT_PLACE_COUNT);
            let detail = if r.findings.is_empty() {
                String::new()
            } else {
                format!(": {}", r.findings.join("; "))
            };
            emit_on(
                sink,
                Severity::Error,
                subject,
                format!(
                    "resource {} is {} ({} of {wanted} replicas UpToDate){detail}",
                    r.name, r.class, r.up_to_date
                ),
            );
        }
    }
}

/// BACKUP-003: every validated guest has a recent, verified backup.
fn backup_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let (Some(pbs), Some(pve)) = (site.pbs.observed(), site.proxmox.observed()) else {
            continue;
        };
        let (pbs_index, pve_index) = (PbsIndex::new(pbs), PveIndex::new(pve));
        for guest in live.topo.guests().iter().filter(|g| {
            g.meta.state == State::Validated
                && live.topo.site_of_guest(g).map(|s| s.as_str()) == Some(site.site.as_str())
        }) {
            let Some(observed) = pve_index.guest(guest.id.as_str()) else {
                continue;
            };
            let Some(rpo) = live.topo.rpo_of(guest) else {
                continue;
            };
            let id = observed.vmid.to_string();
            let backups = pbs_index.backups(&id);
            let newest_verified = backups.iter().filter_map(|b| b.newest_verified_time).max();
            let newest = backups.iter().map(|b| b.newest_time).max();
            let limit = i64::try_from(rpo.as_secs()).unwrap_or(i64::MAX);
            let message = match (newest, newest_verified) {
                (None, _) => Some(format!(
                    "guest {} ({}) has no backup on {}",
                    guest.id, observed.vmid, pbs.server
                )),
                (Some(_), Some(t)) if live.options.now - t <= limit => None,
                (Some(n), verified) => Some(format!(
                    "guest {} ({}): newest verified backup is {}, RPO is {rpo} (newest backup {} ago)",
                    guest.id,
                    observed.vmid,
                    verified.map_or_else(
                        || "none".to_owned(),
                        |t| format!("{} old", age(live.options.now - t))
                    ),
                    age(live.options.now - n)
                )),
            };
            if let Some(message) = message {
                emit_on(sink, Severity::Warning, ComponentRef::Guest(guest), message);
            }
        }
    }
}

fn age(seconds: i64) -> String {
    let s = seconds.max(0);
    if s >= 86_400 {
        format!("{}d{}h", s / 86_400, (s % 86_400) / 3600)
    } else if s >= 3600 {
        format!("{}h{}m", s / 3600, (s % 3600) / 60)
    } else {
        format!("{}m", s / 60)
    }
}

/// INGRESS-002 (live): no certificate expires within the warning window, none is not Ready.
fn ingress_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (id, source) in &site.kubernetes {
            let (Some(facts), Some(cluster)) = (source.observed(), live.declared.k3s_cluster(id))
            else {
                continue;
            };
            for cert in &facts.certificates {
                let policy = &live.options.cert_expiry;
                let expiry = cert
                    .not_after
                    .and_then(|t| policy.judge(t, live.options.now));
                let message = match expiry {
                    Some(e) if e.expired => Some((
                        from_gpu_severity(e.severity),
                        format!("certificate {} has expired", cert.name),
                    )),
                    Some(e) => Some((
                        from_gpu_severity(e.severity),
                        format!(
                            "certificate {} expires in {} days (warning at {})",
                            cert.name, e.days_left, policy.warning_days
                        ),
                    )),
                    None if !cert.ready => Some((
                        Severity::Warning,
                        format!("certificate {} is not Ready", cert.name),
                    )),
                    None => None,
                };
                if let Some((severity, message)) = message {
                    emit_on(sink, severity, ComponentRef::K3sCluster(cluster), message);
                }
            }
        }
    }
}

/// GPU-005: the running NVIDIA driver is the pinned one; NVRM/XID errors raise an alert.
fn gpu_005(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (host_id, source) in &site.gpus {
            let (Some(facts), Some(host)) = (source.observed(), live.declared.host(host_id)) else {
                continue;
            };
            let c = ComponentRef::Host(host);
            // The pin: the host's own, else that of a K3s cluster whose nodes run on it.
            let pinned = host.nvidia_driver.clone().or_else(|| {
                live.topo
                    .guests_on(&host.id)
                    .filter_map(|g| live.topo.cluster_of_guest(&g.id))
                    .find_map(|k| k.nvidia_driver.clone())
            });
            let mismatch = pinned.as_ref().and_then(|pin| {
                live.options
                    .driver_pin
                    .judge(facts.driver_version.as_deref(), pin.as_str())
            });
            match (&pinned, &facts.driver_version, mismatch) {
                (Some(pin), Some(running), Some(severity)) => emit_on(
                    sink,
                    from_gpu_severity(severity),
                    c,
                    format!(
                        "NVIDIA driver {running} is running on {}, the file pins {pin}",
                        host.id
                    ),
                ),
                // A pin and no version read: unknown, never a driver that matches. The policy's
                // `unreadable` severity says how loud.
                (Some(pin), None, Some(severity)) => emit_on(
                    sink,
                    from_gpu_severity(severity),
                    c,
                    format!(
                        "the NVIDIA driver version running on {} could not be read, the file pins {pin}: whether it is the pinned one is unknown",
                        host.id
                    ),
                ),
                (None, Some(running), _) => emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!(
                        "NVIDIA driver {running} is running on {} but the file pins no version (ADR-009: document the exact version)",
                        host.id
                    ),
                ),
                _ => {}
            }
            if !facts.critical_xids.is_empty() {
                let codes: Vec<String> = facts.critical_xids.iter().map(u64::to_string).collect();
                emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!("critical XID errors on {}: {}", host.id, codes.join(", ")),
                );
            }
            for gpu in facts.gpus.iter().filter(|g| g.health == "critical") {
                emit_on(
                    sink,
                    Severity::Warning,
                    c,
                    format!(
                        "GPU {} ({}) is critical: {}",
                        gpu.index,
                        gpu.uuid.as_deref().unwrap_or("no UUID"),
                        gpu.findings.join("; ")
                    ),
                );
            }
        }
    }
}

/// GITOPS-002: no Argo CD Application OutOfSync or Degraded.
fn gitops_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (id, source) in &site.kubernetes {
            let Some(facts) = source.observed() else {
                continue;
            };
            let argocd = live.declared.argocd_in(id);
            let subject = match (argocd, live.declared.k3s_cluster(id)) {
                (Some(a), _) => ComponentRef::ArgoCd(a),
                (None, Some(c)) => ComponentRef::K3sCluster(c),
                (None, None) => continue,
            };
            for app in &facts.applications {
                let out_of_sync = app.sync.as_deref() == Some("OutOfSync");
                let degraded = app.health.as_deref() == Some("Degraded");
                if out_of_sync || degraded {
                    let mut states = Vec::new();
                    if out_of_sync {
                        states.push("OutOfSync");
                    }
                    if degraded {
                        states.push("Degraded");
                    }
                    emit_on(
                        sink,
                        Severity::Warning,
                        subject,
                        format!(
                            "Argo CD Application {} in cluster {id} is {}",
                            app.name,
                            states.join(" and ")
                        ),
                    );
                }
            }
        }
    }
}

/// The five basic alerts.
pub(crate) const ALERTS: [&str; 5] = [
    "node down",
    "LINSTOR degraded",
    "DRBD desync",
    "ArgoCD out-of-sync",
    "cert expiring",
];

/// For each basic alert, whether a site's observation can compute its signal, and why not.
pub(crate) fn alert_coverage(topo: &Topology, site: &SiteObservation) -> [Result<(), String>; 5] {
    let has = |kind: &str| -> bool {
        match kind {
            "linstor" => topo
                .linstor_pools()
                .iter()
                .any(|p| p.site.as_str() == site.site && p.meta.state >= State::Declared),
            "argocd" => topo
                .argocd()
                .iter()
                .any(|a| a.site.as_str() == site.site && a.meta.state >= State::Declared),
            "k3s" => topo
                .k3s_clusters()
                .iter()
                .any(|c| c.site.as_str() == site.site && c.meta.state >= State::Declared),
            _ => false,
        }
    };
    let why = |configured: bool, failed: Option<String>, what: &str| -> Result<(), String> {
        match (configured, failed) {
            (_, Some(f)) => Err(f),
            (false, None) => Err(format!("no {what} endpoint is configured")),
            (true, None) => Ok(()),
        }
    };
    let node_down = why(
        site.proxmox.is_configured(),
        site.proxmox.failure().map(ToString::to_string),
        "Proxmox VE",
    );
    let linstor = if has("linstor") {
        why(
            site.linstor.is_configured(),
            site.linstor.failure().map(ToString::to_string),
            "LINSTOR",
        )
    } else {
        Ok(())
    };
    let kube_with = |served: fn(&super::facts::KubeFacts) -> bool, what: &str| {
        if site.kubernetes.is_empty() {
            return Err("no Kubernetes cluster is configured".to_owned());
        }
        if site
            .kubernetes
            .iter()
            .any(|(_, s)| s.observed().is_some_and(served))
        {
            return Ok(());
        }
        let failures: Vec<String> = site
            .kubernetes
            .iter()
            .filter_map(|(_, s)| s.failure().map(ToString::to_string))
            .collect();
        if failures.is_empty() {
            Err(format!("no observed cluster serves {what}"))
        } else {
            Err(failures.join("; "))
        }
    };
    let argocd = if has("argocd") {
        kube_with(|f| f.argocd_served, "Argo CD Applications")
    } else {
        Ok(())
    };
    let certs = if has("k3s") {
        kube_with(|f| f.cert_manager_served, "cert-manager Certificates")
    } else {
        Ok(())
    };
    [node_down, linstor.clone(), linstor, argocd, certs]
}

/// OBS-001 (live): each of the five basic alerts can be computed from what the site's live
/// systems answer.
fn obs_001(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(site_ref) = live.site_ref(&site.site) else {
            continue;
        };
        let mut blind: BTreeMap<String, Vec<&str>> = BTreeMap::new();
        for (alert, coverage) in ALERTS.iter().zip(alert_coverage(live.topo, site)) {
            if let Err(reason) = coverage {
                blind.entry(reason).or_default().push(alert);
            }
        }
        for (reason, alerts) in blind {
            emit_on(
                sink,
                Severity::Warning,
                site_ref,
                format!(
                    "in site {} the basic alert{} {} cannot be evaluated: {reason}",
                    site.site,
                    if alerts.len() == 1 { "" } else { "s" },
                    alerts.join(", ")
                ),
            );
        }
    }
}
