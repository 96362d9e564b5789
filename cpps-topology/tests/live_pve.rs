//! The audit against fakepve (PyPI `fakepve`, a fake of the PVE 9 API written by others),
//! started by `xtask/env/fakepve.sh` and found through `CPPS_TEST_FAKEPVE`; the server helpers
//! are cpps-proxmox's own (`cpps-proxmox/tests/common`), not a copy.
//!
//! SP is fakepve's estate; `tests/fixtures/live/two-sites.yaml` declares a validated guest that
//! does not exist (`ghost`), leaves a running one undeclared (`dns1`) and declares `ha: true` on
//! a container that is no HA resource. Franca's Proxmox is a closed port on 127.0.0.1.
#![cfg(feature = "live")]

#[path = "../../cpps-proxmox/tests/common/mod.rs"]
mod pve;

use std::time::Duration;

use cpps_http::{RetryPolicy, TlsMode};
use cpps_topology::live::facts::{PveGuestKind, SourceKind};
use cpps_topology::live::sources::{PveSource, Sources};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};
use cpps_topology::report::Severity;

const ESTATE: &str = include_str!("fixtures/live/two-sites.yaml");

fn topology() -> cpps_topology::Topology {
    cpps_topology::load_str("tests/fixtures/live/two-sites.yaml", ESTATE)
        .unwrap_or_else(|e| panic!("{}", e.render()))
}

/// An https URL of 127.0.0.1 on which nothing listens (a port that was just free).
fn closed_port_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("https://127.0.0.1:{port}/")
}

fn sources(sp: cpps_proxmox::Client, sp_url: &str) -> Sources {
    let franca_url = closed_port_url();
    let franca = cpps_proxmox::Client::builder(&franca_url)
        .api_token_str("root@pam!x=00000000-0000-0000-0000-000000000000")
        .unwrap()
        .tls(TlsMode::SystemRoots)
        .retry(RetryPolicy::none())
        .connect_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let mut sources = Sources::default();
    sources.site_mut("sp").proxmox = Some(Box::new(PveSource::new(sp, sp_url, 4)));
    sources.site_mut("franca").proxmox = Some(Box::new(PveSource::new(franca, franca_url, 4)));
    sources
}

#[tokio::test]
async fn one_site_cut_off_while_the_other_is_fully_reported() {
    let Some(s) = pve::fakepve("one_site_cut_off_while_the_other_is_fully_reported").await else {
        return;
    };
    let sources = sources(s.token_client(), &s.pve.url);
    let observed = live::observe(&sources, &ObserveOptions::default()).await;

    // SP: everything fakepve has, typed.
    let sp = observed.site("sp").unwrap().proxmox.observed().unwrap();
    let nodes: Vec<&str> = sp.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(nodes, ["pve-ippri-31", "pve-ippri-32"]);
    assert!(sp.nodes.iter().all(|n| n.online));
    // fakepve answers `pveversion: "pve-manager/fake/…"` in `GET /nodes/{node}/status`.
    assert!(
        sp.nodes
            .iter()
            .all(|n| n.pve_version.as_deref() == Some("fake")),
        "{:?}",
        sp.nodes
    );
    let guests: Vec<(u32, &str, PveGuestKind, Option<bool>, bool)> = sp
        .guests
        .iter()
        .map(|g| {
            (
                g.vmid,
                g.name.as_deref().unwrap(),
                g.kind,
                g.privileged,
                g.ha,
            )
        })
        .collect();
    assert_eq!(
        guests,
        [
            (100, "gitlab", PveGuestKind::Vm, None, true),
            (101, "build-runner", PveGuestKind::Vm, None, false),
            (200, "dns1", PveGuestKind::Lxc, Some(true), false),
            (201, "monitoring", PveGuestKind::Lxc, Some(false), false),
            (202, "legacy-nfs", PveGuestKind::Lxc, Some(true), false),
        ]
    );
    let monitoring = sp.guests.iter().find(|g| g.vmid == 201).unwrap();
    assert_eq!(
        monitoring.volumes,
        ["local-lvm:vm-201-disk-0", "local-lvm:vm-201-disk-1"]
    );
    assert!(sp.partial.is_empty(), "{:?}", sp.partial);

    // Franca: refused before anything was sent.
    let franca = observed.site("franca").unwrap().proxmox.failure().unwrap();
    assert_eq!(franca.source, SourceKind::Proxmox);
    assert!(franca.reason.contains("Connection refused"), "{franca}");

    let audit = live::audit(&topology(), &observed, &LiveOptions::default());
    let live_findings: Vec<String> = audit
        .report
        .findings
        .iter()
        .filter(|f| ["STATE-002", "STATE-003", "PVE-003"].contains(&f.rule.as_str()))
        .map(|f| format!("{} {} {}", f.rule, f.subject, f.message))
        .collect();
    let expected_franca = format!(
        "STATE-002 franca site franca cannot be observed through {franca}: 3 validated components cannot be verified: pve-labri-31, tutor, pve-franca"
    );
    assert_eq!(
        live_findings,
        [
            expected_franca.as_str(),
            "STATE-002 ghost guest ghost is declared validated but the site's live systems do not show it",
            "PVE-003 legacy-nfs guest legacy-nfs declares `ha: true` but CT 202 is not a Proxmox HA resource; without an HA resource it only restarts with its node (on_boot), it does not fail over",
            "STATE-002 sp CT 200 (dns1) on pve-ippri-31 is running but not in the topology file",
            "STATE-003 legacy-nfs guest legacy-nfs declares `ha: true` but CT 202 is not a Proxmox HA resource: declared, not validated",
        ]
    );
    let cut_off = audit
        .report
        .findings
        .iter()
        .find(|f| f.subject.id() == "franca" && f.rule.as_str() == "STATE-002")
        .unwrap();
    assert_eq!(cut_off.severity, Severity::Error);
    assert_eq!(cut_off.location.line, 17, "the line of `- id: franca`");
    assert_eq!(audit.diff.evidence("gitlab").unwrap().as_str(), "present");
    assert_eq!(audit.diff.evidence("ghost").unwrap().as_str(), "absent");
    assert_eq!(audit.diff.evidence("tutor").unwrap().as_str(), "unknown");
}

#[tokio::test]
async fn a_ticket_revoked_mid_sweep_is_renewed_and_the_sweep_completes() {
    let Some(s) =
        pve::fakepve("a_ticket_revoked_mid_sweep_is_renewed_and_the_sweep_completes").await
    else {
        return;
    };
    let client = s.password_client();
    client.login().await.unwrap();
    let start = s.request_count().await;
    // Every request takes a while, so the sweep is still going when the tickets are revoked.
    s.control("slow_network", serde_json::json!({"latency": 3.0}))
        .await;
    let mut sources = Sources::default();
    sources.site_mut("sp").proxmox = Some(Box::new(PveSource::new(client, &s.pve.url, 1)));
    let revoker = async {
        // Revoke as soon as the sweep has been answered once (the node list).
        loop {
            let (_, seen) = s.requests_since(start).await;
            if seen
                .iter()
                .any(|(m, p)| m == "GET" && p.ends_with("/nodes"))
            {
                s.control("revoke_tickets", serde_json::json!({})).await;
                return s.request_count().await;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    let options = ObserveOptions::default();
    let (observed, revoked_at) = tokio::join!(live::observe(&sources, &options), revoker);
    s.control("reset", serde_json::json!({})).await;
    let sp = observed
        .site("sp")
        .unwrap()
        .proxmox
        .observed()
        .unwrap_or_else(|| panic!("{:?}", observed.site("sp").unwrap().proxmox.failure()));
    assert_eq!(sp.guests.len(), 5);
    assert_eq!(sp.nodes.len(), 2);
    assert!(sp.partial.is_empty(), "{:?}", sp.partial);
    assert!(
        sp.guests
            .iter()
            .filter(|g| g.kind == PveGuestKind::Lxc)
            .all(|g| g.privileged.is_some()),
        "every container's config was read after the revocation: {:?}",
        sp.guests
    );
    let (_, after) = s.requests_since(revoked_at).await;
    let logins = after
        .iter()
        .filter(|(m, p)| m == "POST" && p.ends_with("/access/ticket"))
        .count();
    assert_eq!(logins, 1, "one re-login after the revocation: {after:?}");
    let reads_after = after.iter().filter(|(m, _)| m == "GET").count();
    assert!(
        reads_after >= 2,
        "the sweep went on after the revocation: {after:?}"
    );
}
