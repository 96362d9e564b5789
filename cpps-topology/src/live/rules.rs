//! The live parts of the catalogue's rules, over an [`Observation`] and its [`Diff`]: a loop over
//! the systems, each of which lists its own rules in its folder (`pve/rules.rs`: PVE-003;
//! `linstor/rules.rs`: LINSTOR-007, LINSTOR-008; `kube/rules.rs`: INGRESS-002, GITOPS-002, GPU-004's
//! live part (Argo CD cluster Secrets), MESH-002's (Kueue's API served whole); `gpu/rules.rs`:
//! GPU-005; `vyos/rules.rs`: LINK-001, LINK-002, LINK-003, VRRP-001, VRRP-002, `docs/live-invariants.md`). The rules
//! that read more than one system are here: STATE-002/003 (the diff), BACKUP-003 (PBS against
//! Proxmox), BACKUP-005 (each guest's backup chain across both sites) and OBS-001 (the basic
//! alerts).
//!
//! They emit the same [`Finding`](crate::finding::Finding)s as the static checks, with the
//! component's location in the topology file, so suppressions and every report format apply to them
//! unchanged.

use std::collections::BTreeMap;

use super::diff::{Diff, Drift, DriftKind, Evidence, source_of};
use cpps_pbs::chain::PbsTarget;
use cpps_pbs::types::SyncDirection;

use super::facts::{GuestBackupFact, PbsFacts, PveFacts, PveGuestKind};
use super::facts::{Observation, SiteObservation, SourceFailure};
use super::index::DeclaredIndex;
use super::pbs::index::{GuestBackups, OtherWriter, PbsIndex, PvePlace, Writers};
use super::pbs::source::DATASTORES_FILTERED;
use super::pve::index::PveIndex;
use crate::finding::Severity;
use crate::model::{ComponentRef, Location as ModelLocation, State, Topology};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// Thresholds of the live rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
pub(crate) fn from_gpu_severity(severity: cpps_gpu::health::Severity) -> Severity {
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

/// One live rule's check.
pub(crate) type LiveCheck = fn(&Live<'_>, &mut Sink<'_>);

/// The rules that read more than one system (the diff of all of them, PBS against Proxmox).
pub(crate) const ACROSS_SYSTEMS: &[(RuleId, LiveCheck)] = &[
    (RuleId("STATE-002"), state_002),
    (RuleId("STATE-003"), state_003),
    (RuleId("BACKUP-003"), backup_003),
    (RuleId("BACKUP-005"), backup_005),
    (RuleId("OBS-001"), obs_001),
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
    /// The site with this id, as a component.
    pub(crate) fn site_ref(&self, site: &str) -> Option<ComponentRef<'a>> {
        self.declared.site(site)
    }

    /// The component of the topology a drift is about, if any.
    pub(crate) fn component_of(&self, drift: &Drift) -> Option<ComponentRef<'a>> {
        drift
            .component
            .as_deref()
            .and_then(|id| self.topo.component(id))
    }
}

/// Emits a finding on `c`, at its place in the topology file.
pub(crate) fn emit_on(
    sink: &mut Sink<'_>,
    severity: Severity,
    c: ComponentRef<'_>,
    message: String,
) {
    let at: ModelLocation = c.meta().location;
    sink.emit(severity, c, at, message);
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
    validated_cannot_tell(live, sink);
}

/// STATE-002's "cannot tell" for a validated component its source answered about without
/// settling it (a list the credentials trim, a guest listed without a name): never silent,
/// as a pass would be. A component of a source that failed is in that source's one finding.
fn validated_cannot_tell(live: &Live<'_>, sink: &mut Sink<'_>) {
    for c in live
        .diff
        .components
        .iter()
        .filter(|c| c.declared == State::Validated)
    {
        let Evidence::Unknown(reason) = &c.evidence else {
            continue;
        };
        let failed = live.observed.sites.iter().any(|site| {
            Some(site.site.as_str()) == c.site.as_deref()
                && site.failures().iter().any(|f| f.to_string() == *reason)
        });
        if let (false, Some(component)) = (failed, live.topo.component(&c.id)) {
            let message = format!("cannot tell whether {} {} is live: {reason}", c.kind, c.id);
            emit_on(sink, Severity::Warning, component, message);
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

/// BACKUP-003: every validated guest has a recent, verified backup.
fn backup_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let (Some(pbs), Some(pve)) = (site.pbs.observed(), site.proxmox.observed()) else {
            continue;
        };
        let (pbs_index, pve_index) = (PbsIndex::new(pbs), PveIndex::new(pve));
        let writers = pbs_writers(live, site, pbs, pve);
        // The parts of `partial` that could hide a group: a datastore's namespaces, one
        // namespace's snapshots, or a datastore list the rights may have trimmed (as
        // `PbsSource` words them); an unread job list hides none.
        let unread: Vec<&str> = pbs
            .partial
            .iter()
            .map(String::as_str)
            .filter(|p| {
                p.starts_with("namespaces of ")
                    || p.starts_with("snapshots of ")
                    || p.starts_with(DATASTORES_FILTERED)
            })
            .collect();
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
            // PBS writes a QEMU guest's backups as `vm/{vmid}` and a container's as
            // `ct/{vmid}` (proxmox-backup `pbs-api-types/src/datastore.rs`, `BackupType`).
            let backup_type = match observed.kind {
                PveGuestKind::Vm => "vm",
                PveGuestKind::Lxc => "ct",
            };
            let id = observed.vmid.to_string();
            let who = format!("guest {} ({})", guest.id, observed.vmid);
            let message = match pbs_index.guest_backups(backup_type, &id, &writers) {
                // A part the server did not answer (a namespace, a datastore) may hold the
                // group, so its absence is only a fact over a whole answer.
                GuestBackups::None if !unread.is_empty() => Some(format!(
                    "{who}: cannot tell whether it has a backup on {}: {backup_type}/{id} was not found, but part of the server was not read ({})",
                    pbs.server,
                    unread.join("; ")
                )),
                GuestBackups::None => Some(format!("{who} has no backup on {}", pbs.server)),
                GuestBackups::Ambiguous(why) => Some(format!(
                    "{who}: cannot tell whether it has a backup on {}: {why}",
                    pbs.server
                )),
                GuestBackups::Foreign(why) => Some(format!(
                    "{who} has no backup of its own on {}: {why}",
                    pbs.server
                )),
                GuestBackups::One(backup) => rpo_message(live, &who, rpo, backup),
            };
            if let Some(message) = message {
                emit_on(sink, Severity::Warning, ComponentRef::Guest(guest), message);
            }
        }
    }
}

/// Who writes where on `site`'s PBS (`pbs`): the places of the PBS storages of its PVE
/// (`pve`) that may be on this server, and the other sites' writers into it: their PBS's push
/// jobs whose remote may be this server (proxmox-backup `src/api2/push.rs`, `src/server/push.rs`
/// `PushParameters::new`: the remote's auth-id writes, into `remote-store`/`remote-ns`) and
/// their PVE's PBS storages that may be on it. A sync-job or remote list that could not be
/// read, here or on another site's PBS, or another site's PBS that failed, is an unknown writer
/// ([`Writers::unread`]): it may have written any group.
fn pbs_writers<'a>(
    live: &Live<'a>,
    site: &'a SiteObservation,
    pbs: &'a PbsFacts,
    pve: &'a PveFacts,
) -> Writers<'a> {
    let side = pbs.chain.get();
    let here = |t: &PbsTarget| side.is_none_or(|s| s.serves(t));
    let pve_places = match pve.chain.get() {
        None => Err("this site's PVE storages were not read".to_owned()),
        Some(Err(why)) => Err(format!("this site's PVE storages could not be read: {why}")),
        Some(Ok(input)) => Ok(input
            .targets
            .iter()
            .filter(|t| here(t))
            .map(|t| PvePlace {
                store: &t.datastore,
                ns: &t.namespace,
                owner: t.username.as_deref(),
            })
            .collect()),
    };
    let mut others = Vec::new();
    let unread = unread_writers(live, site, pbs);
    for other in live.observed.sites.iter().filter(|o| o.site != site.site) {
        if let Some(Ok(input)) = other.proxmox.observed().and_then(|p| p.chain.get()) {
            others.extend(
                input
                    .targets
                    .iter()
                    .filter(|t| here(t))
                    .map(|t| OtherWriter {
                        store: &t.datastore,
                        ns: &t.namespace,
                        below: false,
                        owner: t.username.clone(),
                        what: format!("storage {} of site {}'s PVE", t.storage, other.site),
                    }),
            );
        }
        let Some(theirs) = other.pbs.observed().and_then(|p| p.chain.get()) else {
            continue;
        };
        let (Ok(jobs), Ok(remotes)) = (&theirs.sync_jobs, &theirs.remotes) else {
            continue;
        };
        for job in jobs.iter().filter(|j| j.direction() == SyncDirection::Push) {
            let remote = remotes
                .iter()
                .find(|r| Some(&r.name) == job.remote.as_ref());
            let reached = match (remote, side.and_then(|s| s.address.as_ref())) {
                (Some(r), Some(address)) => address.is_reached_by(r),
                _ => None,
            };
            if reached == Some(false) {
                continue;
            }
            others.push(OtherWriter {
                store: &job.remote_store,
                ns: job.remote_ns.as_deref().unwrap_or(""),
                below: true,
                owner: remote.map(|r| r.auth_id.to_string()),
                what: format!("push job {} of site {}'s PBS", job.id, other.site),
            });
        }
    }
    Writers {
        pve: pve_places,
        others,
        unread,
    }
}

/// The writer lists of `site`'s PBS that could not be read, each in words with why
/// ([`Writers::unread`]): this site's sync jobs (a pull writes here; `PbsSource` words their
/// failure "sync jobs: …"), and each other site's PBS, failed, or its sync jobs or remotes
/// unread; a job list PBS may have filtered by the caller's rights
/// ([`cpps_pbs::chain::PbsSide::sync_jobs_hidden`]) counts as unread. A source always reads the chain's lists; facts built in code without them (`None`)
/// say nothing, as in BACKUP-005. The other site's PVE writing straight into the datastore and
/// namespace where this site's PVE writes is assumed not to happen when its storages cannot be
/// read.
fn unread_writers(live: &Live<'_>, site: &SiteObservation, pbs: &PbsFacts) -> Vec<String> {
    let mut unread = Vec::new();
    if let Some(e) = pbs
        .partial
        .iter()
        .find_map(|p| p.strip_prefix("sync jobs: "))
    {
        unread.push(format!(
            "this site's PBS sync jobs (a pull writes here): {e}"
        ));
    } else if let Some(why) = pbs.chain.get().and_then(|s| s.sync_jobs_hidden.as_ref()) {
        unread.push(format!(
            "this site's PBS sync jobs (a pull writes here) may leave some out: {why}"
        ));
    }
    for other in live.observed.sites.iter().filter(|o| o.site != site.site) {
        let name = &other.site;
        if let Some(failure) = other.pbs.failure() {
            unread.push(format!("site {name}'s PBS: {failure}"));
        }
        if let Some(side) = other.pbs.observed().and_then(|p| p.chain.get()) {
            if let Err(e) = &side.sync_jobs {
                unread.push(format!("site {name}'s PBS sync jobs: {e}"));
            } else if let Some(why) = &side.sync_jobs_hidden {
                unread.push(format!(
                    "site {name}'s PBS sync jobs may leave some out: {why}"
                ));
            }
            if let (Ok(_), Err(e)) = (&side.sync_jobs, &side.remotes) {
                unread.push(format!(
                    "site {name}'s PBS remotes (where its pushes go): {e}"
                ));
            }
        }
    }
    unread
}

/// BACKUP-005: each guest's backup chain, end to end: backed up here, verified, copied to the
/// other site, within the RPO. The PVE side and both PBS readings are judged by
/// [`cpps_pbs::chain::judge`], the code `pbs-report --chain` runs. The copy is looked for on the
/// other site's PBS (the endpoints file has one per site), where its pull jobs from this site's
/// PBS or this site's push jobs write; PVE storages on another server than this site's PBS are
/// not judged against it. With no other site, or its PBS not read, every copy is "cannot
/// tell". A guest list that may leave guests out
/// ([`crate::live::facts::PveFacts::guests_trimmed`]) is said once per site: the guests it
/// hides are "cannot tell".
fn backup_005(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let (Some(site_ref), Some(pve)) = (live.site_ref(&site.site), site.proxmox.observed())
        else {
            continue;
        };
        // Facts built without a reading (not from a source) have nothing to judge.
        let Some(read) = pve.chain.get() else {
            continue;
        };
        let mut input = match read {
            Ok(input) => input.clone(),
            Err(why) => {
                emit_on(
                    sink,
                    Severity::Warning,
                    site_ref,
                    format!(
                        "cannot tell the backup chain of site {}'s guests: the PVE side could not be read: {why}",
                        site.site
                    ),
                );
                continue;
            }
        };
        // A guest list PVE trimmed by VM.Audit judges only the guests it shows; the others'
        // chains cannot be told, and silence would read as "all well".
        if let Some(why) = &pve.guests_trimmed {
            emit_on(
                sink,
                Severity::Warning,
                site_ref,
                format!(
                    "cannot tell the backup chain of the guests of site {} that PVE did not list: the guest list may be trimmed: {why}",
                    site.site
                ),
            );
        }
        let here = site.pbs.observed().and_then(|p| p.chain.get());
        // A storage on another server is not this PBS's, whatever its datastore's name.
        if let Some(side) = here {
            input.retain_targets(|t| side.serves(t));
        }
        input.here = here
            .map(|side| side.here(&input.targets))
            .unwrap_or_default();
        input.there = copies_elsewhere(live, site, &input.targets);
        let declared: BTreeMap<&str, &crate::model::Guest> = live
            .topo
            .guests()
            .iter()
            .filter(|g| live.topo.site_of_guest(g).map(|s| s.as_str()) == Some(site.site.as_str()))
            .map(|g| (g.id.as_str(), g))
            .collect();
        chain_findings(live, sink, site_ref, &input, &declared);
    }
}

/// Judges each guest of `input` against its RPO (the declared guest's, else the topology's;
/// "not stated" judges everything but the age) and emits what is not ok.
fn chain_findings(
    live: &Live<'_>,
    sink: &mut Sink<'_>,
    site_ref: ComponentRef<'_>,
    input: &cpps_pbs::chain::ChainInput,
    declared: &BTreeMap<&str, &crate::model::Guest>,
) {
    for guest in &input.guests {
        let topo_guest = guest.name.as_deref().and_then(|n| declared.get(n)).copied();
        let rpo = topo_guest.map_or(live.topo.rpo, |g| live.topo.rpo_of(g));
        let limit = rpo.map_or(std::time::Duration::MAX, |r| {
            std::time::Duration::from_secs(r.as_secs())
        });
        let mut one = input.clone();
        one.guests = vec![guest.clone()];
        for chain in cpps_pbs::chain::judge(&one, live.options.now, limit) {
            if chain.verdict == cpps_pbs::chain::Verdict::Ok && rpo.is_some() {
                continue;
            }
            let text = chain.to_string().replace("\n    - ", "; ");
            let message = match rpo {
                Some(rpo) => format!("backup chain of guest {text} (RPO {rpo})"),
                None => format!(
                    "backup chain of guest {text}; RPO not stated, so the ages were not judged"
                ),
            };
            let on = topo_guest.map_or(site_ref, ComponentRef::Guest);
            emit_on(sink, Severity::Warning, on, message);
        }
    }
}

/// The copies of `targets` on the other site's PBS, where its pull jobs from this site's PBS
/// or this site's push jobs to it write ([`cpps_pbs::chain::PbsSide::copies`]). Empty (every
/// copy "cannot tell") unless exactly one other site was observed.
fn copies_elsewhere(
    live: &Live<'_>,
    site: &SiteObservation,
    targets: &[PbsTarget],
) -> Vec<cpps_pbs::chain::SiteCopies> {
    let others: Vec<&SiteObservation> = live
        .observed
        .sites
        .iter()
        .filter(|s| s.site != site.site)
        .collect();
    let [other] = others.as_slice() else {
        return Vec::new();
    };
    let Some(pbs) = other.pbs.observed() else {
        let why = other.pbs.failure().map_or_else(
            || format!("the PBS of site {} was not read", other.site),
            |f| format!("the PBS of site {} was not read: {f}", other.site),
        );
        return unread_copies(targets, &other.site, &why);
    };
    let Some(side) = pbs.chain.get() else {
        return Vec::new();
    };
    // This site's PBS says where it pushes; unread, its push jobs are "not read" and no
    // remote of the other site can be matched to it.
    let unread = cpps_pbs::chain::PbsSide::default();
    let here = site
        .pbs
        .observed()
        .and_then(|p| p.chain.get())
        .unwrap_or(&unread);
    side.copies(here, targets, &other.site)
}

/// Every target's copies on `site` as not read, for `why`.
fn unread_copies(targets: &[PbsTarget], site: &str, why: &str) -> Vec<cpps_pbs::chain::SiteCopies> {
    targets
        .iter()
        .map(|t| {
            cpps_pbs::chain::SiteCopies::new(
                &t.datastore,
                &t.namespace,
                site,
                Err(why.to_owned()),
                false,
            )
        })
        .collect()
}

/// BACKUP-003's words for a guest whose one backup group is known: none when its newest
/// verified snapshot is within the RPO.
fn rpo_message(
    live: &Live<'_>,
    who: &str,
    rpo: crate::model::Rpo,
    backup: &GuestBackupFact,
) -> Option<String> {
    let limit = i64::try_from(rpo.as_secs()).unwrap_or(i64::MAX);
    match backup.newest_verified_time {
        Some(t) if live.options.now - t <= limit => None,
        verified => Some(format!(
            "{who}: newest verified backup is {}, RPO is {rpo} (newest backup {} ago)",
            verified.map_or_else(
                || "none".to_owned(),
                |t| format!("{} old", age(live.options.now - t))
            ),
            age(live.options.now - backup.newest_time)
        )),
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
