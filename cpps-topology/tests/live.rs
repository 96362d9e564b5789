//! The live layer over constructed facts: observation limits (fan-out, deadline, one failing
//! site), the diff and every live rule. No server is needed; the tests against fakepve, the
//! real kube-apiserver and the LINSTOR API are in `live_*.rs`.
#![cfg(feature = "live")]

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use cpps_topology::live::facts::{
    ArgoApp, CertFact, GpuHostFacts, GuestBackupFact, KubeFacts, LinstorFacts, LinstorResource,
    LinstorStoragePool, PbsFacts, PveChainReading, PveFacts, PveGuest, PveGuestKind, PveNode,
    SiteObservation, SourceFailure, SourceKind, Sourced,
};
use cpps_topology::live::sources::{Source, Sources};
use cpps_topology::live::{self, LiveOptions, Observation, ObserveOptions};
use cpps_topology::report::Severity;

use common::{LIVE_ESTATE, live_estate, load, messages, of_rule, subject_messages};

const NOW: i64 = 1_780_000_000;

/// A source that answers `facts` after `delay`, counting how many are in flight at once.
struct Fake<T> {
    kind: SourceKind,
    delay: Duration,
    answer: Result<T, String>,
    in_flight: Arc<AtomicUsize>,
    max_in_flight: Arc<AtomicUsize>,
}

impl<T> Fake<T> {
    fn new(kind: SourceKind, delay: Duration, answer: Result<T, String>) -> Self {
        Fake {
            kind,
            delay,
            answer,
            in_flight: Arc::default(),
            max_in_flight: Arc::default(),
        }
    }

    fn counted(mut self, now: &Arc<AtomicUsize>, max: &Arc<AtomicUsize>) -> Self {
        self.in_flight = now.clone();
        self.max_in_flight = max.clone();
        self
    }
}

#[async_trait]
impl<T: Clone + Send + Sync + 'static> Source<T> for Fake<T> {
    fn kind(&self) -> SourceKind {
        self.kind
    }

    fn endpoint(&self) -> String {
        "fake://127.0.0.1".to_owned()
    }

    async fn observe(&self) -> Result<T, SourceFailure> {
        let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_in_flight.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(self.delay).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
        self.answer.clone().map_err(|reason| SourceFailure {
            source: self.kind,
            endpoint: self.endpoint(),
            reason,
        })
    }
}

fn node(name: &str) -> PveNode {
    PveNode {
        name: name.to_owned(),
        online: true,
        pve_version: Some("9.0.10".to_owned()),
    }
}

fn guest(vmid: u32, name: &str, node: &str, kind: PveGuestKind, ha: bool) -> PveGuest {
    PveGuest {
        vmid,
        name: Some(name.to_owned()),
        node: node.to_owned(),
        kind,
        status: "running".to_owned(),
        privileged: (kind == PveGuestKind::Lxc).then_some(false),
        ha,
        ha_state: ha.then(|| "started".to_owned()),
        ha_request: ha.then(|| "started".to_owned()),
        volumes: Vec::new(),
    }
}

/// SP as fakepve's estate shows it.
fn sp_pve() -> PveFacts {
    let mut legacy = guest(202, "legacy-nfs", "pve-ippri-32", PveGuestKind::Lxc, false);
    legacy.privileged = Some(true);
    PveFacts {
        nodes: vec![node("pve-ippri-31"), node("pve-ippri-32")],
        guests: vec![
            guest(100, "gitlab", "pve-ippri-31", PveGuestKind::Vm, true),
            guest(101, "build-runner", "pve-ippri-32", PveGuestKind::Vm, false),
            guest(200, "dns1", "pve-ippri-31", PveGuestKind::Lxc, false),
            guest(201, "monitoring", "pve-ippri-32", PveGuestKind::Lxc, false),
            legacy,
        ],
        partial: Vec::new(),
        chain: Default::default(),
        guests_trimmed: None,
    }
}

#[tokio::test]
async fn fan_out_is_bounded_and_a_failing_site_hides_nothing() {
    let now = Arc::new(AtomicUsize::new(0));
    let max = Arc::new(AtomicUsize::new(0));
    let mut sources = Sources::default();
    for site in ["sp", "franca", "x1", "x2", "x3"] {
        let answer = if site == "franca" {
            Err("connection refused".to_owned())
        } else {
            Ok(sp_pve())
        };
        sources.site_mut(site).proxmox = Some(Box::new(
            Fake::new(SourceKind::Proxmox, Duration::from_millis(50), answer).counted(&now, &max),
        ));
    }
    let observed = live::observe(&sources, &ObserveOptions::new(2, Duration::from_secs(10))).await;
    assert_eq!(max.load(Ordering::SeqCst), 2, "at most 2 sources in flight");
    assert_eq!(observed.sites.len(), 5);
    let sites: Vec<&str> = observed.sites.iter().map(|s| s.site.as_str()).collect();
    assert_eq!(sites, ["sp", "franca", "x1", "x2", "x3"]);
    for site in &observed.sites {
        if site.site == "franca" {
            assert_eq!(site.proxmox.failure().unwrap().reason, "connection refused");
        } else {
            assert_eq!(site.proxmox.observed().unwrap().guests.len(), 5);
        }
    }
}

#[tokio::test]
async fn the_deadline_cuts_a_silent_source_and_keeps_the_others() {
    let mut sources = Sources::default();
    sources.site_mut("sp").proxmox = Some(Box::new(Fake::new(
        SourceKind::Proxmox,
        Duration::from_millis(10),
        Ok(sp_pve()),
    )));
    sources.site_mut("franca").proxmox = Some(Box::new(Fake::new(
        SourceKind::Proxmox,
        Duration::from_secs(3600),
        Ok(PveFacts::default()),
    )));
    let started = std::time::Instant::now();
    let observed = live::observe(
        &sources,
        &ObserveOptions::new(4, Duration::from_millis(300)),
    )
    .await;
    assert!(started.elapsed() < Duration::from_secs(5));
    let franca = observed.site("franca").unwrap().proxmox.failure().unwrap();
    assert_eq!(franca.source, SourceKind::Proxmox);
    assert_eq!(franca.reason, "no answer within the deadline of 300ms");
    assert_eq!(
        observed
            .site("sp")
            .unwrap()
            .proxmox
            .observed()
            .unwrap()
            .nodes
            .len(),
        2
    );
}

fn observation(sp: SiteObservation, franca: SiteObservation) -> Observation {
    Observation {
        taken_at: NOW,
        sites: vec![sp, franca],
    }
}

fn franca_unreachable() -> SiteObservation {
    let mut franca = SiteObservation::new("franca");
    franca.proxmox = Sourced::Failed(SourceFailure {
        source: SourceKind::Proxmox,
        endpoint: "https://127.0.0.1:1/".to_owned(),
        reason: "connection refused".to_owned(),
    });
    franca
}

/// The live audit of the estate with `pve` as SP's Proxmox facts and Franca unreachable.
fn audit_sp(pve: PveFacts) -> live::Audit {
    audit_sp_of(&live_estate(), pve)
}

/// [`audit_sp`] of `topology`.
fn audit_sp_of(topology: &cpps_topology::Topology, pve: PveFacts) -> live::Audit {
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(pve);
    let observed = observation(sp, franca_unreachable());
    live::audit(topology, &observed, &LiveOptions::at(NOW))
}

/// `pve` with the HA resource list refused, as PVE refuses it without `Sys.Audit` on `/`
/// (pve-ha-manager `src/PVE/API2/HA/Resources.pm` `index`), in the source's words.
fn refuse_ha_resources(pve: &mut PveFacts) {
    pve.partial.push(
        "HA resources: GET /cluster/ha/resources: 403 Permission check failed (/, Sys.Audit)"
            .to_owned(),
    );
}

/// A guest of a node down five minutes or more comes in `/cluster/resources` without a name:
/// pve-manager `PVE/API2Tools.pm` `extract_vm_stats` takes `name` (and `status`, `template`)
/// from the node's status data alone and says `status: unknown` without it, and pmxcfs drops
/// that data five minutes after the node last sent it (pve-cluster `src/pmxcfs/status.c`
/// `rrd_entry_is_old`). A declared guest found by no name may be that guest: "cannot tell"
/// (STATE-002's warning), not missing, and the nameless guest is not undeclared while it may
/// be a declared one.
#[test]
fn a_guest_listed_without_a_name_makes_an_unfound_name_cannot_tell() {
    let mut pve = sp_pve();
    let mut nameless = guest(300, "-", "pve-ippri-32", PveGuestKind::Vm, false);
    (nameless.name, nameless.status) = (None, "unknown".to_owned());
    pve.guests.push(nameless);
    let audit = audit_sp(pve.clone());
    let Some(live::diff::Evidence::Unknown(why)) = audit.diff.evidence("ghost") else {
        panic!("{:?}", audit.diff.evidence("ghost"));
    };
    assert!(
        why.starts_with("not in the guest list by name: Proxmox lists guest(s) 300 without a name"),
        "{why}"
    );
    // Said as "cannot tell" (a warning), neither missing (an error) nor silent; 300 is not
    // called undeclared.
    let state_002 = messages(&of_rule(&audit.report.findings, "STATE-002"));
    let about: Vec<&String> = state_002
        .iter()
        .filter(|m| m.contains("ghost") || m.contains("300"))
        .collect();
    assert_eq!(
        about,
        [&format!(
            "warning ghost cannot tell whether guest ghost is live: {why}"
        )],
        "{state_002:#?}"
    );

    // Once every declared name designates a guest, the nameless one is none of them.
    pve.guests
        .push(guest(102, "ghost", "pve-ippri-31", PveGuestKind::Vm, false));
    let audit = audit_sp(pve);
    assert_eq!(audit.diff.evidence("ghost").unwrap().as_str(), "present");
    let state_002 = messages(&of_rule(&audit.report.findings, "STATE-002"));
    let undeclared =
        "warning sp VM 300 (no name) on pve-ippri-32 is unknown but not in the topology file";
    assert!(state_002.contains(&undeclared.to_owned()), "{state_002:#?}");
}

/// PVE-003 with the HA resource list refused (pve-ha-manager `src/PVE/API2/HA/Resources.pm`
/// `index` needs `Sys.Audit` on `/`): gitlab's `hastate` is `stopped`, which the CRM gives a
/// request `stopped` (still failed over) and a request `disabled` (never:
/// `src/PVE/HA/Manager.pm` `next_state_started`, `disabled` → `request_stop` → `stopped`)
/// alike (pve-manager `PVE/API2/Cluster.pm` `resources` takes `hastate` from the CRM's service
/// status). That is "cannot tell", not a pass.
#[test]
fn pve_003_cannot_tell_a_stopped_ha_guest_when_the_requests_are_unread() {
    let mut pve = sp_pve();
    let gitlab = pve.guests.iter_mut().find(|g| g.vmid == 100).unwrap();
    (gitlab.ha_state, gitlab.ha_request) = (Some("stopped".to_owned()), None);
    refuse_ha_resources(&mut pve);
    let audit = audit_sp(pve);
    let pve_003 = messages(&of_rule(&audit.report.findings, "PVE-003"));
    assert!(
        pve_003.contains(&"warning gitlab cannot tell whether gitlab's HA resource (guest 100) fails over: its state `stopped` follows a request `stopped` and a request `disabled` alike, and the requests could not be read (GET /cluster/ha/resources: 403 Permission check failed (/, Sys.Audit))".to_owned()),
        "{pve_003:#?}"
    );
}

/// PVE-003 with the HA resource list refused and no `hastate` for gitlab: pve-manager
/// `PVE/API2/Cluster.pm` `resources` takes `hastate` from the CRM's service status, else from
/// the resource's `state` in `ha/resources.cfg`, which `ha-manager add` leaves out unless
/// asked (pve-ha-manager `src/PVE/HA/Resources.pm`: `state` is optional, default `started`).
/// A resource the CRM does not track yet (no master, or not picked up) and added without a
/// state then has none: "cannot tell", not "is not a Proxmox HA resource".
#[test]
fn pve_003_cannot_tell_an_ha_guest_without_hastate_when_the_resources_are_unread() {
    let mut pve = sp_pve();
    let gitlab = pve.guests.iter_mut().find(|g| g.vmid == 100).unwrap();
    (gitlab.ha, gitlab.ha_state, gitlab.ha_request) = (false, None, None);
    refuse_ha_resources(&mut pve);
    let gitlab_003 = |audit: &live::Audit| -> Vec<String> {
        let all = messages(&of_rule(&audit.report.findings, "PVE-003"));
        all.into_iter()
            .filter(|m| m.starts_with("warning gitlab "))
            .collect()
    };
    let pve_003 = gitlab_003(&audit_sp(pve.clone()));
    assert_eq!(
        pve_003,
        [
            "warning gitlab cannot tell whether gitlab (guest 100) is an HA resource: Proxmox gives it no HA state, as for a resource the HA manager does not track yet that was added without one, and the HA resources could not be read (GET /cluster/ha/resources: 403 Permission check failed (/, Sys.Audit))"
        ],
        "{pve_003:#?}"
    );

    // With the list read and gitlab not in it, it is no HA resource.
    pve.partial.clear();
    let pve_003 = gitlab_003(&audit_sp(pve));
    assert_eq!(pve_003.len(), 1, "{pve_003:#?}");
    assert!(
        pve_003[0].contains("is not a Proxmox HA resource"),
        "{pve_003:#?}"
    );
}

/// The same for a Traefik instance that makes its guest HA (build-runner, listed without
/// `hastate`): with the HA resources unread, PVE-003 says "cannot tell" once, and no drift
/// says it is no HA resource.
#[test]
fn pve_003_cannot_tell_a_traefik_guest_without_hastate_when_the_resources_are_unread() {
    let mut pve = sp_pve();
    refuse_ha_resources(&mut pve);
    let text = format!(
        "{LIVE_ESTATE}\ntraefik:\n  - {{ id: traefik-sp, site: sp, guest: build-runner, ha: true, state: validated }}\n"
    );
    let audit = audit_sp_of(&load("two-sites-traefik.yaml", &text), pve);
    let all = messages(&audit.report.findings.iter().collect::<Vec<_>>());
    let traefik: Vec<&String> = all
        .iter()
        .filter(|m| m.contains("traefik-sp") && m.contains("HA resource"))
        .collect();
    assert_eq!(
        traefik,
        [
            "warning traefik-sp cannot tell whether traefik-sp (guest 101) is an HA resource: Proxmox gives it no HA state, as for a resource the HA manager does not track yet that was added without one, and the HA resources could not be read (GET /cluster/ha/resources: 403 Permission check failed (/, Sys.Audit))"
        ],
        "{all:#?}"
    );
}

/// `GET /nodes` says `offline` for a corosync member that is down and `unknown` for a node
/// without status data of the last five minutes (pve-manager `PVE/API2Tools.pm`
/// `extract_node_stats`); the facts keep only "not online", so the drift says no more.
#[test]
fn a_node_not_online_is_said_so_not_offline() {
    let mut pve = sp_pve();
    pve.nodes[1].online = false;
    let audit = audit_sp(pve);
    let all = messages(&audit.report.findings.iter().collect::<Vec<_>>());
    let node: Vec<&String> = all
        .iter()
        .filter(|m| m.contains("pve-ippri-32 online"))
        .collect();
    assert_eq!(
        node,
        ["error pve-ippri-32 Proxmox does not report node pve-ippri-32 online"],
        "{all:#?}"
    );
}

#[test]
fn drift_and_state_rules_over_the_estate() {
    let topo = live_estate();
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(sp_pve());
    let audit = live::audit(
        &topo,
        &observation(sp, franca_unreachable()),
        &LiveOptions::at(NOW),
    );
    let evidence = |id: &str| audit.diff.evidence(id).unwrap().as_str();
    assert_eq!(evidence("gitlab"), "present");
    assert_eq!(evidence("pve-ippri-31"), "present");
    assert_eq!(evidence("ghost"), "absent");
    assert_eq!(evidence("tutor"), "unknown");
    assert_eq!(evidence("pve-labri-31"), "unknown");
    assert_eq!(evidence("sp-ssd"), "not observed");

    let findings = &audit.report.findings;
    let state_002 = messages(&of_rule(findings, "STATE-002"));
    assert!(state_002.contains(&"error ghost guest ghost is declared validated but the site's live systems do not show it".to_owned()), "{state_002:#?}");
    assert!(
        state_002.contains(
            &"warning sp CT 200 (dns1) on pve-ippri-31 is running but not in the topology file"
                .to_owned()
        ),
        "{state_002:#?}"
    );
    assert_eq!(
        state_002,
        [
            "error franca site franca cannot be observed through proxmox at https://127.0.0.1:1/: connection refused: 3 validated components cannot be verified: pve-labri-31, tutor, pve-franca",
            "error ghost guest ghost is declared validated but the site's live systems do not show it",
            "warning sp CT 200 (dns1) on pve-ippri-31 is running but not in the topology file",
        ]
    );
    let franca = of_rule(findings, "STATE-002")
        .into_iter()
        .find(|f| f.subject.id() == "franca")
        .unwrap();
    assert_eq!(franca.severity, Severity::Error);
    assert_eq!(franca.site.as_deref(), Some("franca"));
    for id in ["pve-labri-31", "tutor", "pve-franca"] {
        assert!(franca.message.contains(id), "{}", franca.message);
    }
    // No drift is claimed for what was not seen.
    assert!(
        !state_002
            .iter()
            .any(|m| m.contains("tutor is declared validated"))
    );

    let pve_003 = messages(&of_rule(findings, "PVE-003"));
    assert_eq!(
        pve_003,
        [
            "warning legacy-nfs guest legacy-nfs declares `ha: true` but CT 202 is not a Proxmox HA resource; without an HA resource it only restarts with its node (on_boot), it does not fail over"
        ]
    );
    let state_003 = messages(&of_rule(findings, "STATE-003"));
    assert_eq!(
        state_003,
        [
            "warning legacy-nfs guest legacy-nfs declares `ha: true` but CT 202 is not a Proxmox HA resource: declared, not validated"
        ]
    );
    // gitlab's HA is realized: nothing about it.
    assert!(!findings.iter().any(|f| f.subject.id() == "gitlab"
        && f.rule.as_str() != "HADR-001"
        && f.rule.as_str() != "BACKUP-003"));
    // The declared build-runner is live: a note says the evidence supports promoting it.
    assert!(audit.report.notes.iter().any(|n| {
        n.message
            .starts_with("guest build-runner is `declared` in the file but is live")
    }));
    // The report counts the live rules (20 since LINSTOR-001 gained its live part).
    assert_eq!(audit.report.summary.rules_checked, 47 + 20);
}

/// An HA resource whose requested state is `ignored` or `disabled` does not fail over:
/// pve-ha-manager `src/PVE/HA/Manager.pm` drops an `ignored` service from the manager's state
/// (`update`: "removing stale service … ignored state requested") and returns for a `disabled`
/// one before an offline node is fenced (`next_state_stopped`), so neither is recovered. Where
/// the HA list was not read, `hastate` carries the requested state of a dropped service
/// (pve-manager `PVE/API2/Cluster.pm`, `resources`).
#[test]
fn an_ha_resource_the_manager_does_not_recover_does_not_realize_ha() {
    let topo = live_estate();
    let pve_003_with = |request: Option<&str>, hastate: Option<&str>| {
        let mut facts = sp_pve();
        let gitlab = facts.guests.iter_mut().find(|g| g.vmid == 100).unwrap();
        gitlab.ha_request = request.map(str::to_owned);
        gitlab.ha_state = hastate.map(str::to_owned);
        let mut sp = SiteObservation::new("sp");
        sp.proxmox = Sourced::Observed(facts);
        let audit = live::audit(
            &topo,
            &observation(sp, franca_unreachable()),
            &LiveOptions::at(NOW),
        );
        let findings = of_rule(&audit.report.findings, "PVE-003");
        subject_messages(&findings)
            .into_iter()
            .filter(|m| m.starts_with("gitlab "))
            .collect::<Vec<_>>()
    };
    for state in ["ignored", "disabled"] {
        assert_eq!(
            pve_003_with(Some(state), Some("started")),
            [format!(
                "gitlab guest gitlab declares `ha: true` but VM 100 is an HA resource in state `{state}`, which the HA manager does not recover; it does not fail over"
            )]
        );
    }
    assert_eq!(
        pve_003_with(None, Some("ignored")),
        [
            "gitlab guest gitlab declares `ha: true` but VM 100 is an HA resource in state `ignored`, which the HA manager does not recover; it does not fail over"
        ]
    );
    assert!(pve_003_with(Some("started"), Some("started")).is_empty());
    assert!(pve_003_with(Some("stopped"), Some("stopped")).is_empty());
}

/// A service the HA manager put in state `error` is never recovered nor moved while its request
/// stays `started`: pve-ha-manager `src/PVE/HA/Manager.pm` `next_state_error` acts only when the
/// request becomes `disabled`, and `src/PVE/API2/HA/Resources.pm` refuses any other request
/// ("service '…' in error state, must be disabled and fixed first"). `hastate` is that CRM state
/// (pve-manager `PVE/API2/Cluster.pm`, `resources`), so PVE-003 reads it before the request.
#[test]
fn an_ha_resource_in_error_state_does_not_realize_ha() {
    let topo = live_estate();
    let mut facts = sp_pve();
    let gitlab = facts.guests.iter_mut().find(|g| g.vmid == 100).unwrap();
    gitlab.ha_request = Some("started".to_owned());
    gitlab.ha_state = Some("error".to_owned());
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(facts);
    let audit = live::audit(
        &topo,
        &observation(sp, franca_unreachable()),
        &LiveOptions::at(NOW),
    );
    let findings = of_rule(&audit.report.findings, "PVE-003");
    let about_gitlab: Vec<String> = subject_messages(&findings)
        .into_iter()
        .filter(|m| m.starts_with("gitlab "))
        .collect();
    assert_eq!(
        about_gitlab,
        [
            "gitlab guest gitlab declares `ha: true` but VM 100 is an HA resource in state `error`, which the HA manager does not recover; it does not fail over"
        ]
    );
}

/// PVE-002's live part: the versions the nodes report (`GET /nodes/{node}/status`,
/// `pveversion`, pve-manager `PVE/API2/Nodes.pm`), mid-upgrade from 8.4 to 9: the node on the
/// older major is named with both versions, and a node whose version was not read is "cannot
/// tell", never counted as either.
#[test]
fn pve_002_compares_the_versions_the_nodes_report() {
    let topo = live_estate();
    let live_002 = |versions: [Option<&str>; 2]| {
        let mut facts = sp_pve();
        for (node, version) in facts.nodes.iter_mut().zip(versions) {
            node.pve_version = version.map(str::to_owned);
        }
        let mut sp = SiteObservation::new("sp");
        sp.proxmox = Sourced::Observed(facts);
        let audit = live::audit(
            &topo,
            &observation(sp, franca_unreachable()),
            &LiveOptions::at(NOW),
        );
        let mut found = messages(&of_rule(&audit.report.findings, "PVE-002"));
        found.retain(|m| m.contains("reports") || m.contains("report"));
        found.sort();
        found
    };
    assert_eq!(
        live_002([Some("8.4.1"), Some("9.0.10")]),
        [
            "warning pve-ippri-31 node pve-ippri-31 reports pve-manager 8.4.1 while Proxmox cluster pve-sp already has nodes on 9.0.10"
        ]
    );
    assert_eq!(
        live_002([Some("9.0.10"), None]),
        [
            "warning pve-sp cannot tell whether Proxmox cluster pve-sp runs one major PVE version: node pve-ippri-32 did not report its version"
        ]
    );
    assert!(live_002([Some("9.0.10"), Some("9.1.2")]).is_empty());
}

/// SP's LINSTOR: a degraded, an inactive, an unknown and a healthy resource on `linstor_sp`.
fn sp_linstor() -> LinstorFacts {
    LinstorFacts {
        controller: "http://127.0.0.1:3370".to_owned(),
        storage_pools: vec![
            LinstorStoragePool {
                node: "pve-ippri-31".to_owned(),
                name: "linstor_sp".to_owned(),
            },
            LinstorStoragePool {
                node: "pve-ippri-32".to_owned(),
                name: "linstor_sp".to_owned(),
            },
        ],
        resources: vec![
            LinstorResource {
                name: "pm-1a2b3c4d_201".to_owned(),
                class: "degraded".to_owned(),
                diskful: 2,
                up_to_date: 1,
                place_count: Some(2),
                storage_pools: vec!["linstor_sp".to_owned()],
                nodes: vec!["pve-ippri-31".to_owned(), "pve-ippri-32".to_owned()],
                findings: vec!["pve-ippri-32: volume 0 is Outdated".to_owned()],
            },
            // Deactivated on purpose: linstor-client skips INACTIVE resources (linstor-client
            // `linstor_client/commands/vlm_cmds.py`, `show_volumes`), so no finding.
            LinstorResource {
                name: "pm-1a2b3c4d_202".to_owned(),
                class: "inactive".to_owned(),
                diskful: 2,
                up_to_date: 0,
                place_count: Some(2),
                storage_pools: vec!["linstor_sp".to_owned()],
                nodes: vec!["pve-ippri-31".to_owned(), "pve-ippri-32".to_owned()],
                findings: Vec::new(),
            },
            // A group without place_count wants the controller's default of 2 (linstor-server
            // `AutoSelectorConfig.java`: `replicaCount == null ? 2`), and unknown is never healthy.
            LinstorResource {
                name: "pm-1a2b3c4d_203".to_owned(),
                class: "unknown".to_owned(),
                diskful: 1,
                up_to_date: 1,
                place_count: None,
                storage_pools: vec!["linstor_sp".to_owned()],
                nodes: vec!["pve-ippri-31".to_owned()],
                findings: Vec::new(),
            },
            LinstorResource {
                name: "pm-00000000_100".to_owned(),
                class: "healthy".to_owned(),
                diskful: 2,
                up_to_date: 2,
                place_count: Some(2),
                storage_pools: vec!["linstor_sp".to_owned()],
                nodes: vec!["pve-ippri-31".to_owned(), "pve-ippri-32".to_owned()],
                findings: Vec::new(),
            },
        ],
        ..LinstorFacts::default()
    }
}

/// SP's PBS: gitlab verified 2 h ago, monitoring backed up 1 h ago but verified 3 days ago.
fn sp_pbs() -> PbsFacts {
    PbsFacts {
        partial: Vec::new(),
        unlisted_rights: Default::default(),
        server: "https://127.0.0.1:8007".to_owned(),
        datastores: vec!["store1".to_owned()],
        jobs: Vec::new(),
        backups: vec![
            // gitlab: verified 2 h ago.
            GuestBackupFact {
                store: "store1".to_owned(),
                namespace: String::new(),
                backup_type: "vm".to_owned(),
                backup_id: "100".to_owned(),
                newest_time: NOW - 7200,
                newest_verified_time: Some(NOW - 7200),
                owner: None,
            },
            // monitoring: newest 1 h ago but never verified, last verified 3 days ago.
            GuestBackupFact {
                store: "store1".to_owned(),
                namespace: String::new(),
                backup_type: "ct".to_owned(),
                backup_id: "201".to_owned(),
                newest_time: NOW - 3600,
                newest_verified_time: Some(NOW - 3 * 86_400),
                owner: None,
            },
        ],
        chain: Default::default(),
    }
}

#[test]
fn linstor_backup_gpu_gitops_ingress_and_alert_coverage() {
    let topo = live_estate();
    let mut sp = SiteObservation::new("sp");
    // This site's PVE writes to store1's root (pve-storage `PBSPlugin.pm`: `datastore`), where
    // BACKUP-003 takes the groups for its guests'.
    let mut input = cpps_pbs::chain::ChainInput::default();
    input.targets = vec![cpps_pbs::chain::PbsTarget::new("pbs-sp", "store1", "")];
    sp.proxmox = Sourced::Observed(PveFacts {
        chain: PveChainReading::new(Ok(input)),
        ..sp_pve()
    });
    sp.linstor = Sourced::Observed(sp_linstor());
    sp.pbs = Sourced::Observed(sp_pbs());
    sp.gpus = vec![(
        "pve-ippri-31".to_owned(),
        Sourced::Observed(GpuHostFacts {
            driver_version: Some("550.90.07".to_owned()),
            // cpps-gpu reports a GPU NVML calls lost (NVML_ERROR_GPU_IS_LOST, go-nvml `nvml.h`)
            // as its pseudo-XID GPU_LOST, which the finding names in words.
            critical_xids: vec![79, cpps_gpu::xid::GPU_LOST],
            ..GpuHostFacts::default()
        }),
    )];
    let audit = live::audit(
        &topo,
        &observation(sp, franca_unreachable()),
        &LiveOptions::at(NOW),
    );
    let findings = &audit.report.findings;
    assert_eq!(
        messages(&of_rule(findings, "LINSTOR-007")),
        [
            "error sp-ssd resource pm-1a2b3c4d_201 is degraded (1 of 2 replicas UpToDate): pve-ippri-32: volume 0 is Outdated",
            "error sp-ssd resource pm-1a2b3c4d_203 is unknown (1 of 2 replicas UpToDate)",
        ]
    );
    let mut backup = messages(&of_rule(findings, "BACKUP-003"));
    backup.sort();
    assert_eq!(
        backup,
        [
            "warning legacy-nfs guest legacy-nfs (202) has no backup on https://127.0.0.1:8007",
            "warning monitoring guest monitoring (201): newest verified backup is 3d0h old, RPO is 1d (newest backup 1h0m ago)",
        ]
    );
    let mut gpu = messages(&of_rule(findings, "GPU-005"));
    gpu.sort();
    assert_eq!(
        gpu,
        [
            "warning pve-ippri-31 NVIDIA driver 550.90.07 is running on pve-ippri-31, the file pins 550.54.15",
            "warning pve-ippri-31 critical XID errors on pve-ippri-31: 79, GPU lost",
        ]
    );
    let obs = messages(&of_rule(findings, "OBS-001"));
    assert!(obs.contains(&"warning franca in site franca the basic alert node down cannot be evaluated: proxmox at https://127.0.0.1:1/: connection refused".to_owned()), "{obs:#?}");
    // SP's LINSTOR answered: its two alerts are covered; no Kubernetes is declared in SP.
    assert!(!obs.iter().any(|m| m.starts_with("warning sp")), "{obs:#?}");
}

/// GPU-005 with a pinned driver whose running version NVML did not give: unknown, reported at
/// the driver-pin policy's `unreadable` severity (warning by default), never passed as a driver
/// that matches its pin.
#[test]
fn a_pinned_driver_whose_version_was_not_read_is_reported_as_unknown() {
    let topo = live_estate();
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(sp_pve());
    sp.gpus = vec![(
        "pve-ippri-31".to_owned(),
        Sourced::Observed(GpuHostFacts {
            driver_version: None,
            ..GpuHostFacts::default()
        }),
    )];
    let audit = live::audit(
        &topo,
        &observation(sp, franca_unreachable()),
        &LiveOptions::at(NOW),
    );
    assert_eq!(
        messages(&of_rule(&audit.report.findings, "GPU-005")),
        [
            "warning pve-ippri-31 the NVIDIA driver version running on pve-ippri-31 could not be read, the file pins 550.54.15: whether it is the pinned one is unknown",
        ]
    );
}

/// gpu-sp-01 as observed: cilium where flannel is declared, five Argo CD Applications (one
/// out of sync, one missing, two of health that cannot be told healthy) and two certificates.
fn gpu_sp_kube() -> KubeFacts {
    KubeFacts {
        server: "kubeconfig".to_owned(),
        nodes: vec!["monitoring".to_owned()],
        cni: vec![("cilium".to_owned(), Some("v1.16.3".to_owned()))],
        applications: vec![
            ArgoApp {
                name: "argocd/vllm".to_owned(),
                sync: Some("OutOfSync".to_owned()),
                health: Some("Healthy".to_owned()),
            },
            ArgoApp {
                name: "argocd/triton".to_owned(),
                sync: Some("Synced".to_owned()),
                health: Some("Healthy".to_owned()),
            },
            // gitops-engine `pkg/health/health.go`: `Missing` (its resources are missing in
            // the cluster) is as bad as `Degraded`; `Unknown` ("health assessment failed")
            // and a value this crate does not know cannot be told healthy.
            ArgoApp {
                name: "argocd/gone".to_owned(),
                sync: Some("Synced".to_owned()),
                health: Some("Missing".to_owned()),
            },
            ArgoApp {
                name: "argocd/unsure".to_owned(),
                sync: Some("Synced".to_owned()),
                health: Some("Unknown".to_owned()),
            },
            ArgoApp {
                name: "argocd/newer".to_owned(),
                sync: Some("Synced".to_owned()),
                health: Some("Hibernating".to_owned()),
            },
        ],
        argocd_served: true,
        certificates: vec![
            CertFact {
                name: "ingress/vllm-tls".to_owned(),
                ready: true,
                not_after: Some(NOW + 5 * 86_400 + 60),
            },
            CertFact {
                name: "ingress/ok-tls".to_owned(),
                ready: true,
                not_after: Some(NOW + 60 * 86_400),
            },
        ],
        cert_manager_served: true,
        ..KubeFacts::default()
    }
}

#[test]
fn kubernetes_rules_name_the_cluster_and_the_object() {
    let yaml = LIVE_ESTATE.to_owned()
        + r"
k3s_clusters:
  - id: gpu-sp-01
    site: sp
    cni: { kind: flannel }
    purpose: gpu
    nodes: [monitoring]
    state: validated
";
    let topo = load("two-sites+k3s.yaml", &yaml);
    let mut sp = SiteObservation::new("sp");
    sp.proxmox = Sourced::Observed(sp_pve());
    sp.kubernetes = vec![("gpu-sp-01".to_owned(), Sourced::Observed(gpu_sp_kube()))];
    let mut franca = SiteObservation::new("franca");
    franca.proxmox = Sourced::Observed(PveFacts {
        nodes: vec![node("pve-labri-31")],
        guests: vec![guest(300, "tutor", "pve-labri-31", PveGuestKind::Vm, false)],
        partial: Vec::new(),
        chain: Default::default(),
        guests_trimmed: None,
    });
    let audit = live::audit(&topo, &observation(sp, franca), &LiveOptions::at(NOW));
    let findings = &audit.report.findings;
    let mut gitops_002 = messages(&of_rule(findings, "GITOPS-002"));
    gitops_002.sort();
    assert_eq!(
        gitops_002,
        [
            "error gpu-sp-01 Argo CD Application argocd/gone in cluster gpu-sp-01 is Missing",
            "warning gpu-sp-01 Argo CD Application argocd/newer in cluster gpu-sp-01 has health `Hibernating`: whether it is healthy cannot be told",
            "warning gpu-sp-01 Argo CD Application argocd/unsure in cluster gpu-sp-01 has health `Unknown`: whether it is healthy cannot be told",
            "warning gpu-sp-01 Argo CD Application argocd/vllm in cluster gpu-sp-01 is OutOfSync",
        ]
    );
    assert_eq!(
        messages(&of_rule(findings, "INGRESS-002"))
            .into_iter()
            .filter(|m| m.contains("certificate"))
            .collect::<Vec<_>>(),
        ["warning gpu-sp-01 certificate ingress/vllm-tls expires in 5 days (warning at 14)"]
    );
    let state_002 = messages(&of_rule(findings, "STATE-002"));
    assert!(
        state_002.contains(
            &"error gpu-sp-01 cluster gpu-sp-01 runs cilium, declared flannel".to_owned()
        ),
        "{state_002:#?}"
    );
    // Franca answered this time: nothing says it cannot be observed.
    assert!(
        !state_002.iter().any(|m| m.contains("cannot be observed")),
        "{state_002:#?}"
    );
    assert_eq!(audit.diff.evidence("tutor").unwrap().as_str(), "present");
}

/// A file naming each system's secret by file or variable: the settings hold the references
/// and the pinned fingerprint.
fn a_file_names_its_secrets() {
    use cpps_http::{SecretSource, TlsMode};
    // A real pin: the settings read the fingerprint when the file is read.
    const PIN: &str = "AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89:AB:CD:EF:01:23:45:67:89";

    let ok = live::endpoints::Endpoints::parse(
        "e.yaml",
        &format!(
            "sites:\n  sp:\n    proxmox:\n      url: https://pve:8006/\n      token_file: /run/secrets/pve\n      fingerprint: {PIN}\n    pbs:\n      repository: audit@pbs!ro@pbs-sp:store1\n      password_env: PBS_SP\n    vyos:\n      url: https://10.0.0.1/\n      key_env: VYOS_SP\n      insecure: true\n    kubernetes:\n      gpu-sp-01: {{ kubeconfig: /etc/k }}\n    nvml:\n      - host: pve-ippri-31\n"
        ),
    )
    .unwrap();
    let sp = &ok.sites["sp"];
    let pve = sp.proxmox.as_ref().unwrap();
    assert_eq!(
        pve.login,
        cpps_proxmox::Login::Token(SecretSource::File("/run/secrets/pve".into()))
    );
    assert_eq!(pve.tls, TlsMode::pinned(PIN).unwrap());
    assert_eq!(
        sp.pbs.as_ref().unwrap().password,
        SecretSource::Env("PBS_SP".to_owned())
    );
    assert_eq!(
        sp.vyos.as_ref().unwrap().tls,
        TlsMode::DangerAcceptInvalidCerts
    );
    assert_eq!(sp.nvml[0].host, "pve-ippri-31");
}

/// A secret written inline, a secret given twice and a misspelt key are refused, and the
/// refusal never repeats the secret.
fn inline_double_and_unknown_secrets_are_refused() {
    use cpps_topology::live::endpoints::EndpointsError;
    let inline = live::endpoints::Endpoints::parse(
        "e.yaml",
        "sites:\n  sp:\n    vyos:\n      url: https://r/\n      key: hunter2\n",
    )
    .unwrap_err();
    assert_eq!(
        inline.to_string(),
        "e.yaml:5:12: `sites.sp.vyos.key` is a secret written inline; name an environment variable with `key_env` or a file with `key_file` instead"
    );
    assert!(!format!("{inline:?}").contains("hunter2"));

    let both = live::endpoints::Endpoints::parse(
        "e.yaml",
        "sites:\n  sp:\n    linstor:\n      controllers: x\n      password_env: A\n      password_file: /b\n",
    )
    .unwrap_err();
    assert_eq!(
        both.to_string(),
        "sites.sp.linstor.password_env: give `password_env` or `password_file`, not both"
    );
    let unknown = live::endpoints::Endpoints::parse(
        "e.yaml",
        "sites:\n  sp:\n    proxmox:\n      url: x\n      tokn_env: T\n",
    )
    .unwrap_err();
    assert!(
        matches!(&unknown, EndpointsError::Syntax { line: 5, .. }),
        "{unknown}"
    );
    assert!(unknown.to_string().contains("tokn_env"), "{unknown}");
}

#[test]
fn endpoints_files_name_secrets_and_never_hold_them() {
    use cpps_http::SecretSource;
    a_file_names_its_secrets();
    inline_double_and_unknown_secrets_are_refused();

    // The clients' variables, secrets referenced by name.
    let env = |k: &str| -> Option<String> {
        match k {
            "PROXMOX_VE_ENDPOINT" => Some("https://pve:8006/".to_owned()),
            "PROXMOX_VE_API_TOKEN" => Some("a@pve!t=s".to_owned()),
            "LS_CONTROLLERS" => Some("10.10.20.1".to_owned()),
            "PBS_REPOSITORY" => Some("a@pbs@pbs:store1".to_owned()),
            "VYOS_URL" => Some("https://r/".to_owned()),
            "KUBECONFIG" => Some("/k1:/k2".to_owned()),
            _ => None,
        }
    };
    let from_env = live::endpoints::Endpoints::from_env("sp", Some("gpu-sp-01"), &env).unwrap();
    let sp = &from_env.sites["sp"];
    assert_eq!(
        sp.proxmox.as_ref().unwrap().login,
        cpps_proxmox::Login::Token(SecretSource::Env("PROXMOX_VE_API_TOKEN".to_owned()))
    );
    assert_eq!(sp.linstor.as_ref().unwrap().controllers, "10.10.20.1");
    assert_eq!(
        sp.pbs.as_ref().unwrap().password,
        SecretSource::Env("PBS_PASSWORD".to_owned())
    );
    assert_eq!(
        sp.vyos.as_ref().unwrap().key,
        SecretSource::Env("VYOS_API_KEY".to_owned())
    );
    assert_eq!(
        sp.kubernetes["gpu-sp-01"].kubeconfig,
        std::path::PathBuf::from("/k1")
    );

    // Names the topology does not have are refused before anything is asked.
    let topo = live_estate();
    let err = from_env.check_against(&topo).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sites.sp.kubernetes.gpu-sp-01: the topology has no K3s cluster in this site `gpu-sp-01`"
    );
    // A secret variable that is not set is named when the sources are built.
    let no_secret = live::endpoints::Endpoints::parse(
        "e.yaml",
        "sites:\n  sp:\n    proxmox:\n      url: https://pve:8006/\n      token_env: NOT_SET_ANYWHERE\n",
    )
    .unwrap()
    .sources(&Default::default(), &|_| None)
    .unwrap_err();
    assert_eq!(
        no_secret.to_string(),
        "sites.sp.proxmox.token: environment variable NOT_SET_ANYWHERE is not set"
    );
}

#[test]
fn metrics_name_every_subject_of_kubernetes_and_pbs() {
    use cpps_topology::live::facts::PbsJobFact;
    let mut sp = SiteObservation::new("sp");
    sp.kubernetes = vec![(
        "gpu-sp-01".to_owned(),
        Sourced::Observed(KubeFacts {
            applications: vec![ArgoApp {
                name: "argocd/vllm".to_owned(),
                sync: Some("OutOfSync".to_owned()),
                health: None,
            }],
            argocd_served: true,
            certificates: vec![CertFact {
                name: "ingress/vllm-tls".to_owned(),
                ready: false,
                not_after: Some(NOW + 86_400),
            }],
            cert_manager_served: true,
            ..KubeFacts::default()
        }),
    )];
    sp.pbs = Sourced::Observed(PbsFacts {
        partial: Vec::new(),
        unlisted_rights: Default::default(),
        server: "https://127.0.0.1:8007".to_owned(),
        datastores: vec!["store1".to_owned()],
        jobs: vec![
            PbsJobFact {
                kind: "sync".to_owned(),
                id: "s-push-b".to_owned(),
                store: "store1".to_owned(),
                last_ok: Some(false),
                last_end: Some(NOW),
                running_since: None,
                pulls_into: None,
            },
            // G8 (audit 31): a job that runs now has no result and no end (proxmox-backup
            // `src/server/jobstate.rs` `compute_schedule_status`, `Started`): no `last_run_ok`
            // sample, and `cpps_pbs_job_running` 1 so that CppsPbsJobFailed holds the last one.
            PbsJobFact {
                kind: "verify".to_owned(),
                id: "v-store1".to_owned(),
                store: "store1".to_owned(),
                last_ok: None,
                last_end: None,
                running_since: Some(NOW - 600),
                pulls_into: None,
            },
        ],
        backups: vec![GuestBackupFact {
            store: "store1".to_owned(),
            namespace: String::new(),
            backup_type: "vm".to_owned(),
            backup_id: "100".to_owned(),
            newest_time: NOW - 60,
            newest_verified_time: None,
            owner: None,
        }],
        chain: Default::default(),
    });
    sp.proxmox = Sourced::Observed(sp_pve());
    let text = live::metrics::render(
        &Observation {
            taken_at: NOW,
            sites: vec![sp],
        },
        None,
    );
    let lines: Vec<&str> = text.lines().collect();
    for line in [
        r#"argocd_app_info{site="sp",cluster="gpu-sp-01",namespace="argocd",name="vllm",sync_status="OutOfSync",health_status="Unknown"} 1"#,
        r#"certmanager_certificate_expiration_timestamp_seconds{site="sp",cluster="gpu-sp-01",namespace="ingress",name="vllm-tls"} 1780086400"#,
        r#"certmanager_certificate_ready_status{site="sp",cluster="gpu-sp-01",namespace="ingress",name="vllm-tls",condition="True"} 0"#,
        r#"pbs_up{site="sp"} 1"#,
        r#"pbs_snapshot_vm_last_timestamp{site="sp",datastore="store1",namespace="",vm_id="100",vm_name="gitlab"} 1779999940"#,
        r#"pbs_snapshot_vm_last_verify{site="sp",datastore="store1",namespace="",vm_id="100",vm_name="gitlab"} 0"#,
        r#"cpps_pbs_job_last_run_ok{site="sp",kind="sync",id="s-push-b",datastore="store1"} 0"#,
        r#"cpps_pbs_job_running{site="sp",kind="sync",id="s-push-b",datastore="store1"} 0"#,
        r#"cpps_pbs_job_running{site="sp",kind="verify",id="v-store1",datastore="store1"} 1"#,
        r#"cpps_up{site="sp",source="kubernetes",id="gpu-sp-01"} 1"#,
        "# TYPE pve_up gauge",
    ] {
        assert!(lines.contains(&line), "missing `{line}` in:\n{text}");
    }
}

/// One server per client (PVE, LINSTOR, PBS, VyOS), each answering nothing it is asked.
struct Servers {
    pve: cpps_http::test_util::MockApi,
    linstor: cpps_http::test_util::MockApi,
    pbs: cpps_http::test_util::MockApi,
    vyos: cpps_http::test_util::MockApi,
}

impl Servers {
    async fn start() -> Self {
        use cpps_http::test_util::MockApi;
        Servers {
            pve: MockApi::start("/api2/json").await,
            linstor: MockApi::start("").await,
            pbs: MockApi::start("/api2/json").await,
            vyos: MockApi::start("").await,
        }
    }

    fn url(api: &cpps_http::test_util::MockApi) -> String {
        api.base_url().as_str().trim_end_matches('/').to_owned()
    }

    /// The credentials each server was sent, per client: the `Authorization` headers of PVE,
    /// LINSTOR and PBS, the `key` of VyOS's request bodies (each distinct one once).
    async fn credentials(&self) -> [Vec<String>; 4] {
        async fn seen(
            api: &cpps_http::test_util::MockApi,
            of: impl Fn(&wiremock::Request) -> Option<String>,
        ) -> Vec<String> {
            let mut seen: Vec<String> = api
                .server()
                .received_requests()
                .await
                .unwrap_or_default()
                .iter()
                .filter_map(of)
                .collect();
            seen.dedup();
            seen
        }
        let header = |r: &wiremock::Request| {
            r.headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let key = |r: &wiremock::Request| {
            serde_json::from_slice::<serde_json::Value>(&r.body)
                .ok()
                .and_then(|b| b["key"].as_str().map(str::to_owned))
        };
        [
            seen(&self.pve, header).await,
            seen(&self.linstor, header).await,
            seen(&self.pbs, header).await,
            seen(&self.vyos, key).await,
        ]
    }
}

/// Observes every client of `endpoints`' site `sp` once (each fails: its server answers 404).
async fn ask_each(endpoints: &live::endpoints::Endpoints, env: &dyn Fn(&str) -> Option<String>) {
    let mut options = live::endpoints::ClientOptions::default();
    options.retries = 0;
    let sources = endpoints.sources(&options, env).unwrap();
    live::observe(&sources, &ObserveOptions::default()).await;
}

#[tokio::test]
async fn each_client_reads_the_environment_for_a_site_from_it_and_the_file_for_a_site_of_the_file()
{
    // What each client sends is its crate's (pinned in its own tests); here only whose values
    // it sends. `Basic base64("admin:ls-env")`, `Basic base64("admin:ls-file")` (RFC 7617).
    const LS_ENV: &str = "Basic YWRtaW46bHMtZW52";
    const LS_FILE: &str = "Basic YWRtaW46bHMtZmlsZQ==";
    let (from_env, from_file) = (Servers::start().await, Servers::start().await);
    // The clients' own variables name the first servers; the file's endpoints the second, with
    // their secrets in variables of other names.
    let vars: Vec<(&str, String)> = vec![
        ("PROXMOX_VE_ENDPOINT", Servers::url(&from_env.pve)),
        ("PROXMOX_VE_API_TOKEN", "env@pve!ro=pve-env".to_owned()),
        ("LS_CONTROLLERS", Servers::url(&from_env.linstor)),
        ("LS_USERNAME", "admin".to_owned()),
        ("LS_PASSWORD", "ls-env".to_owned()),
        ("PBS_REPOSITORY", "env@pbs!ro@127.0.0.1:store1".to_owned()),
        ("PBS_PASSWORD", "pbs-env".to_owned()),
        ("CPPS_PBS_URL", Servers::url(&from_env.pbs)),
        ("VYOS_URL", Servers::url(&from_env.vyos)),
        ("VYOS_API_KEY", "vyos-env".to_owned()),
        ("SP_PVE", "file@pve!ro=pve-file".to_owned()),
        ("SP_LS", "ls-file".to_owned()),
        ("SP_PBS", "pbs-file".to_owned()),
        ("SP_VYOS", "vyos-file".to_owned()),
    ];
    let env = |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());

    let file = live::endpoints::Endpoints::parse(
        "e.yaml",
        &format!(
            "sites:\n  sp:\n    proxmox:\n      url: {}\n      token_env: SP_PVE\n    linstor:\n      controllers: {}\n      user: admin\n      password_env: SP_LS\n    pbs:\n      repository: file@pbs!ro@127.0.0.1:store1\n      url: {}\n      password_env: SP_PBS\n    vyos:\n      url: {}\n      key_env: SP_VYOS\n",
            Servers::url(&from_file.pve),
            Servers::url(&from_file.linstor),
            Servers::url(&from_file.pbs),
            Servers::url(&from_file.vyos),
        ),
    )
    .unwrap();
    let file_values = [
        vec!["PVEAPIToken=file@pve!ro=pve-file".to_owned()],
        vec![LS_FILE.to_owned()],
        vec!["PBSAPIToken=file@pbs!ro:pbs-file".to_owned()],
        vec!["vyos-file".to_owned()],
    ];
    ask_each(&file, &env).await;
    assert_eq!(from_file.credentials().await, file_values);
    assert_eq!(from_env.credentials().await, <[Vec<String>; 4]>::default());

    let environment = live::endpoints::Endpoints::from_env("sp", None, &env).unwrap();
    ask_each(&environment, &env).await;
    assert_eq!(
        from_env.credentials().await,
        [
            vec!["PVEAPIToken=env@pve!ro=pve-env".to_owned()],
            vec![LS_ENV.to_owned()],
            vec!["PBSAPIToken=env@pbs!ro:pbs-env".to_owned()],
            vec!["vyos-env".to_owned()],
        ]
    );
    // The site read from the environment sent nothing to the file's servers.
    assert_eq!(from_file.credentials().await, file_values);
}
