//! Every static rule against a passing and a failing fixture.
//!
//! Each fixture is `tests/fixtures/rules/base.yaml` (a two-site topology that keeps every
//! decision, so `check` reports nothing on it) with a few textual edits. Every edit must match
//! the base exactly once, so a change to the base cannot silently turn a case into a no-op. A
//! passing fixture must yield no finding at all; a failing one exactly the listed
//! `(rule, subject, severity)` triples, each as often as listed, no more, no less. The GPU,
//! multi-cluster and GitOps rules are cased in `tests/rules_gpu_mesh.rs` (several fixtures each,
//! counted), the rules derived from the documents in `tests/rules_documents.rs`.

mod common;

use std::collections::BTreeSet;

use common::{
    Edit, GPU_MESH_RULES, Pass, RuleCase, Variant, apply_to, check_pass_fail, check_rule_cases,
    found, line_at, run, today,
};
use cpps_topology::check::check_on;
use cpps_topology::load::load_str;
use cpps_topology::report::Severity;
use cpps_topology::rules;

const BASE: &str = include_str!("fixtures/rules/base.yaml");

/// b3's LINSTOR replication interface is empty: it cannot replicate.
const B3_EMPTY_INTERFACE: Edit = (
    "  - id: b3\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: ens19 }",
    "  - id: b3\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: \"\" }",
);

/// A diskless tie-breaker of ssd-beta in alpha.
const WITNESS_IN_BETA: Edit = (
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3 }]",
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3 }, { host: a3, diskful: false }]",
);

/// A diskful replica of ssd-beta in alpha: cross-site replication.
const REPLICA_IN_ALPHA: Edit = (
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3 }]",
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3 }, { host: a3 }]",
);

/// b3 holds no replica of ssd-beta: two diskful nodes and a tie-breaker in the same site.
const B3_DISKLESS: Edit = (
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3 }]",
    "nodes: [{ host: b1 }, { host: b2 }, { host: b3, diskful: false }]",
);

/// ssd-beta only declared, with 2 replicas.
const SSD_BETA_DECLARED_WITH_2_REPLICAS: Edit = (
    "    place_count: 3\n    controller: { primary: b1, standby: [b2] }\n    state: validated",
    "    place_count: 2\n    controller: { primary: b1, standby: [b2] }\n    state: declared",
);

struct Case {
    rule: &'static str,
    /// Edits that stay within the rule (often a boundary case); `&[]` is the base itself.
    pass: &'static [Edit],
    /// Edits that break the rule.
    fail: &'static [Edit],
    /// Every finding the failing fixture yields.
    expect: &'static [(&'static str, &'static str, Severity)],
}

use Severity::{Error, Info, Warning};

const CASES: &[Case] = &[
    Case {
        rule: "STATE-001",
        pass: &[(
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }",
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: declared, use_case: tutoring }",
        )],
        fail: &[(
            "  - { id: k3s-b-1, host: b2, kind: vm, ha: true, on_boot: true, storage: ssd-beta, backup: pbs-beta, state: validated }",
            "  - { id: k3s-b-1, host: b2, kind: vm, ha: true, on_boot: true, storage: ssd-beta, backup: pbs-beta, state: declared }",
        )],
        // The cluster is validated on a node that is only declared (and the pattern of it too:
        // only the cluster stands directly on the guest).
        expect: &[("STATE-001", "k3s-beta", Error)],
    },
    Case {
        rule: "SITE-001",
        pass: &[],
        fail: &[(
            "  - { id: pbs-a-vm, host: a3,",
            "  - { id: pbs-a-vm, host: b3,",
        )],
        // The PBS of alpha now runs in beta, and its guest, now in beta, is backed up only to
        // alpha's PBS: both depend on the cross-site link.
        expect: &[
            ("SITE-001", "pbs-a-vm", Error),
            ("SITE-001", "pbs-alpha", Error),
        ],
    },
    Case {
        rule: "PVE-001",
        pass: &[],
        fail: &[(
            "  - id: b3\n    site: beta\n    proxmox_cluster: pve-beta",
            "  - id: b3\n    site: beta\n    proxmox_cluster: pve-alpha",
        )],
        expect: &[("PVE-001", "b3", Error)],
    },
    Case {
        rule: "PVE-002",
        pass: &[(
            "    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n  - id: a3",
            "    tier: tier-2a\n    pve_version: \"9.4\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n  - id: a3",
        )],
        fail: &[(
            "    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n  - id: a3",
            "    tier: tier-2a\n    pve_version: \"8.4\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n  - id: a3",
        )],
        expect: &[("PVE-002", "a2", Warning)],
    },
    Case {
        rule: "PVE-003",
        pass: &[(
            "ha: true, on_boot: true, state: validated }",
            "ha: true, ha_state: validated, on_boot: true, state: validated }",
        )],
        fail: &[(
            "ha: true, on_boot: true, state: validated }",
            "ha: true, ha_state: declared, on_boot: true, state: validated }",
        )],
        expect: &[("PVE-003", "traefik-alpha", Warning)],
    },
    Case {
        rule: "LINSTOR-001",
        pass: &[],
        fail: &[B3_EMPTY_INTERFACE],
        // ssd-beta already asks for 3 replicas while b3 cannot replicate: the documents raise
        // place_count only after that fix (LINSTOR-002's ordering).
        expect: &[
            ("LINSTOR-001", "b3", Error),
            ("LINSTOR-002", "ssd-beta", Warning),
        ],
    },
    Case {
        rule: "LINSTOR-002",
        // A declared pool may still run 2 replicas: only production pools need 3. Both keep a
        // witness in the other site, so LINSTOR-006 stays silent.
        pass: &[SSD_BETA_DECLARED_WITH_2_REPLICAS, WITNESS_IN_BETA],
        fail: &[
            (
                "    place_count: 3\n    controller: { primary: b1, standby: [b2] }",
                "    place_count: 2\n    controller: { primary: b1, standby: [b2] }",
            ),
            WITNESS_IN_BETA,
        ],
        expect: &[("LINSTOR-002", "ssd-beta", Warning)],
    },
    Case {
        rule: "LINSTOR-003",
        // The base is the boundary: place_count 3 on exactly 3 diskful nodes.
        pass: &[],
        fail: &[B3_DISKLESS],
        expect: &[("LINSTOR-003", "ssd-beta", Error)],
    },
    Case {
        rule: "LINSTOR-004",
        // A diskless tie-breaker holds no replica: it may sit in another site.
        pass: &[WITNESS_IN_BETA],
        fail: &[REPLICA_IN_ALPHA],
        expect: &[("LINSTOR-004", "ssd-beta", Error)],
    },
    Case {
        rule: "LINSTOR-005",
        pass: &[(
            "controller: { primary: b1, standby: [b2] }",
            "controller: { primary: b1, vip: 10.0.0.2 }",
        )],
        fail: &[(
            "controller: { primary: b1, standby: [b2] }",
            "controller: { primary: b1 }",
        )],
        expect: &[("LINSTOR-005", "ssd-beta", Warning)],
    },
    Case {
        rule: "LINSTOR-006",
        // A declared pool: LINSTOR-002 stays silent, LINSTOR-006 still applies; the tie-breaker
        // that passes is a diskless node in the other site.
        pass: &[(
            "    nodes: [{ host: b1 }, { host: b2 }, { host: b3 }]\n    place_count: 3\n    controller: { primary: b1, standby: [b2] }\n    state: validated",
            "    nodes: [{ host: b1 }, { host: b2 }, { host: a3, diskful: false }]\n    place_count: 2\n    controller: { primary: b1, standby: [b2] }\n    state: declared",
        )],
        fail: &[(
            "    nodes: [{ host: b1 }, { host: b2 }, { host: b3 }]\n    place_count: 3\n    controller: { primary: b1, standby: [b2] }\n    state: validated",
            "    nodes: [{ host: b1 }, { host: b2 }]\n    place_count: 2\n    controller: { primary: b1, standby: [b2] }\n    state: declared",
        )],
        expect: &[("LINSTOR-006", "ssd-beta", Warning)],
    },
    Case {
        rule: "BACKUP-001",
        pass: &[],
        fail: &[(
            "    sync_to: [{ target: pbs-alpha, link: wg-alpha-beta }]\n    rpo: 24h\n    state: validated",
            "    sync_to: [{ target: pbs-alpha, link: wg-alpha-beta }]\n    rpo: 24h\n    state: declared",
        )],
        // pbs-beta is no longer in production: its site has no PBS, and the replicated guest
        // backed up to it is no longer covered (HADR-001); pbs-b-vm has no replicated storage.
        expect: &[
            ("BACKUP-001", "beta", Warning),
            ("HADR-001", "k3s-b-1", Warning),
        ],
    },
    Case {
        rule: "BACKUP-002",
        pass: &[],
        fail: &[(
            "    sync_to: [{ target: pbs-alpha, link: wg-alpha-beta }]\n",
            "",
        )],
        expect: &[("BACKUP-002", "pbs-beta", Warning)],
    },
    Case {
        rule: "BACKUP-004",
        pass: &[],
        fail: &[(
            "    guest: pbs-b-vm\n    datastores: [{ name: main, encrypted: true }]",
            "    guest: pbs-b-vm\n    datastores: [{ name: main, encrypted: false }]",
        )],
        expect: &[("BACKUP-004", "pbs-beta", Info)],
    },
    Case {
        rule: "HADR-001",
        // A guest with neither HA nor replicated storage needs no backup for this rule.
        pass: &[(
            "  - { id: pbs-b-vm, host: b3, kind: vm, role: pbs, backup: pbs-beta, state: validated }",
            "  - { id: pbs-b-vm, host: b3, kind: vm, role: pbs, state: validated }",
        )],
        fail: &[(
            "storage: ssd-beta, backup: pbs-beta, state: validated }",
            "storage: ssd-beta, state: validated }",
        )],
        expect: &[("HADR-001", "k3s-b-1", Warning)],
    },
    Case {
        rule: "NET-001",
        // A VRRP group of three in a ring (b1 → b2 → b3 → b1) is one router for the site, and a
        // router that is only desired is not counted.
        pass: &[(
            "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b1, state: validated }",
            "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b3, state: validated }\n  - { id: vyos-b3, site: beta, vrrp_peer: vyos-b1, state: validated }\n  - { id: vyos-b4, site: beta, state: desired, use_case: failover lab }",
        )],
        fail: &[(
            "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b1, state: validated }",
            "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b1, state: validated }\n  - { id: vyos-b3, site: beta, vrrp_peer: vyos-b4, state: validated }\n  - { id: vyos-b4, site: beta, vrrp_peer: vyos-b3, state: validated }",
        )],
        expect: &[("NET-001", "beta", Error)],
    },
    Case {
        rule: "NET-002",
        // vyos-b1 names no peer itself: vyos-b2 naming it is enough, the group is read whole.
        pass: &[(
            "  - { id: vyos-b1, site: beta, vrrp_peer: vyos-b2, ",
            "  - { id: vyos-b1, site: beta, ",
        )],
        fail: &[
            (
                "  - { id: vyos-b1, site: beta, vrrp_peer: vyos-b2, ",
                "  - { id: vyos-b1, site: beta, ",
            ),
            (
                "  - { id: vyos-b2, site: beta, vrrp_peer: vyos-b1, state: validated }\n",
                "",
            ),
        ],
        expect: &[("NET-002", "vyos-b1", Warning)],
    },
    Case {
        rule: "NET-003",
        // A sync that names no link is fine while a link as mature joins the two sites.
        pass: &[(
            "    sync_to: [{ target: pbs-beta, link: wg-alpha-beta }]",
            "    sync_to: [{ target: pbs-beta }]",
        )],
        fail: &[(
            "over: campus, state: validated }",
            "over: campus, state: declared }",
        )],
        expect: &[
            ("NET-003", "appset", Error),
            ("NET-003", "kueue", Error),
            ("NET-003", "mesh", Error),
            ("NET-003", "pbs-alpha", Error),
            ("NET-003", "pbs-beta", Error),
            // The link is declared while the routers at its ends are validated: fine; but the
            // validated dependencies now stand on a declared link.
        ],
    },
    Case {
        rule: "INGRESS-001",
        pass: &[(
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated }",
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated }\n  - { id: traefik-beta-2, site: beta, state: desired, use_case: failover }",
        )],
        fail: &[(
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated }",
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated }\n  - { id: traefik-beta-2, site: beta, state: declared }",
        )],
        expect: &[("INGRESS-001", "traefik-beta-2", Warning)],
    },
    Case {
        rule: "INGRESS-002",
        // "nos 2 clusters" are the sites' general-purpose clusters: a GPU cluster is not asked
        // for cert-manager.
        pass: &[(
            "    purpose: gpu\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n",
            "    purpose: gpu\n",
        )],
        fail: &[(
            "    purpose: general\n    default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: gpu-alpha",
            "    purpose: general\n    default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: desired }\n    state: validated\n  - id: gpu-alpha",
        )],
        expect: &[("INGRESS-002", "k3s-beta", Warning)],
    },
    Case {
        rule: "CNI-001",
        // A privileged LXC on a Tier 3 host with an explicit exception is allowed.
        pass: &[
            (
                "  - { id: k3s-a-1, host: a2, kind: vm,",
                "  - { id: k3s-a-1, host: a1, kind: lxc, privileged: true,",
            ),
            (
                "    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1.16.3\" }",
                "    nodes: [k3s-a-1]\n    cilium_lxc_exception: Tier 3 host, ADR-002\n    cni: { kind: cilium, version: \"1.16.3\" }",
            ),
        ],
        fail: &[(
            "  - { id: k3s-a-1, host: a2, kind: vm,",
            "  - { id: k3s-a-1, host: a2, kind: lxc, privileged: true,",
        )],
        expect: &[("CNI-001", "k3s-alpha", Error)],
    },
    Case {
        rule: "CNI-002",
        pass: &[],
        fail: &[("version: \"1.17.0\"", "version: \"1.15.7\"")],
        expect: &[("CNI-002", "k3s-beta", Warning)],
    },
    Case {
        rule: "CNI-003",
        // default-deny is required of Cilium clusters only.
        pass: &[],
        fail: &[(
            "    cni: { kind: cilium, version: \"1.17.0\" }\n    purpose: general\n    default_deny: true",
            "    cni: { kind: cilium, version: \"1.17.0\" }\n    purpose: general\n    default_deny: false",
        )],
        expect: &[("CNI-003", "k3s-beta", Warning)],
    },
    Case {
        rule: "GPU-002",
        // On a Tier 2A host a GPU VM with passthrough is fine.
        pass: &[
            (
                "  - id: a2\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-2a\n",
                "  - id: a2\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-2a\n    gpus: [{ model: A5000 }]\n",
            ),
            (
                "  - id: gpu-a-1\n    host: a1\n    kind: lxc\n    privileged: true\n",
                "  - id: gpu-a-1\n    host: a2\n    kind: vm\n",
            ),
        ],
        fail: &[(
            "  - id: gpu-a-1\n    host: a1\n    kind: lxc\n    privileged: true",
            "  - id: gpu-a-1\n    host: a1\n    kind: vm",
        )],
        expect: &[("GPU-002", "gpu-alpha", Error)],
    },
    Case {
        rule: "GPU-003",
        pass: &[],
        fail: &[(
            "    kind: lxc\n    privileged: true\n    gpu: { model: A5000, count: 1 }",
            "    kind: lxc\n    privileged: true\n    gpu: { model: A5000, count: 2 }",
        )],
        expect: &[("GPU-003", "gpu-a-1", Error)],
    },
    Case {
        rule: "MESH-001",
        pass: &[],
        fail: &[(
            "    cni: { kind: cilium, version: \"1.17.0\" }",
            "    cni: { kind: flannel }",
        )],
        expect: &[("MESH-001", "mesh", Error)],
    },
    Case {
        rule: "SEC-001",
        // Prose about credentials, references and masks are not secrets.
        pass: &[(
            "    tool: SOPS + age\n",
            "    tool: SOPS + age\n    note: \"the Proxmox token is read from PVE_TOKEN; token: ${PVE_TOKEN}. The DNS-01 token is a credential, the password is kept in SOPS (password: ********), see 004_29bfc39840ca04c0.txt\"\n",
        )],
        fail: &[(
            "    tool: SOPS + age\n",
            "    tool: SOPS + age\n    note: \"PVEAPIToken=ci@pve!check=4f1c1a6e-2b1d-4c55-9a7e-0a3c5b7d9e11\"\n",
        )],
        expect: &[("SEC-001", "secrets", Error)],
    },
    Case {
        rule: "REL-001",
        // An ApplicationSet whose ArgoCD manages every member is possible.
        pass: &[(
            "  - { id: appset, kind: application_set, members: [k3s-alpha, k3s-beta], state: validated }",
            "  - { id: appset, kind: application_set, members: [k3s-alpha, gpu-alpha], argocd: argocd-alpha, state: validated }",
        )],
        // Both ends of the cross-site link in one site.
        fail: &[(
            "endpoints: [vyos-a1, vyos-b1]",
            "endpoints: [vyos-a1, vyos-a2]",
        )],
        expect: &[("REL-001", "wg-alpha-beta", Error)],
    },
    Case {
        rule: "REL-002",
        pass: &[],
        // ArgoCD of alpha moved into the GPU cluster.
        fail: &[(
            "{ id: argocd-alpha, site: alpha, runs_in: k3s-alpha,",
            "{ id: argocd-alpha, site: alpha, runs_in: gpu-alpha,",
        )],
        expect: &[("REL-002", "argocd-alpha", Warning)],
    },
    Case {
        rule: "OBS-001",
        pass: &[],
        fail: &[("      - { kind: cert_expiring, state: validated }\n", "")],
        expect: &[("OBS-001", "observability", Warning)],
    },
    Case {
        rule: "FRUGAL-001",
        pass: &[(
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }",
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n  - { id: vllm, layer: 8b, site: alpha, state: desired, use_case: thesis OCR }",
        )],
        fail: &[(
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }",
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n  - { id: vllm, layer: 8b, site: alpha, state: desired }",
        )],
        expect: &[("FRUGAL-001", "vllm", Info)],
    },
];

fn apply(edits: &[Edit], rule: &str, which: &str) -> String {
    apply_to(BASE, edits, &format!("{rule} {which}"))
}

#[test]
fn the_base_fixture_has_no_finding() {
    let report = run(BASE, "base.yaml");
    assert!(
        report.findings.is_empty(),
        "base.yaml must be clean, got:\n{}",
        report.render(cpps_topology::report::Format::Text)
    );
    assert!(report.notes.is_empty(), "notes: {:?}", report.notes);
    assert_eq!(
        report.summary.components.desired, 1,
        "only karmada is desired"
    );
}

#[test]
fn every_rule_passes_its_passing_fixture_and_fires_on_its_failing_one() {
    let mut failures = Vec::new();
    for case in CASES {
        check_pass_fail(
            case.rule,
            (case.pass, case.fail),
            case.expect,
            (BASE, Pass::Clean),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_static_rule_has_a_case_and_no_live_only_rule_has_one() {
    let cased: BTreeSet<&str> = CASES.iter().map(|c| c.rule).collect();
    assert_eq!(cased.len(), CASES.len(), "one case per rule");
    // The rules derived from the documents beyond the team's catalogue (DOC-…) have their pass,
    // fail and variant fixtures in tests/rules_documents.rs, the GPU, multi-cluster and GitOps
    // rules in tests/rules_gpu_mesh.rs.
    let static_rules: BTreeSet<&str> = rules::catalogue()
        .iter()
        .filter(|r| r.kind.has_static_part() && !r.id.as_str().starts_with("DOC-"))
        .filter(|r| !GPU_MESH_RULES.contains(&r.id.as_str()))
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(cased, static_rules);
}

#[test]
fn a_finding_points_at_the_field_that_breaks_the_rule() {
    let case = CASES.iter().find(|c| c.rule == "LINSTOR-001").unwrap();
    let text = apply(case.fail, case.rule, "fail");
    let report = run(&text, "l1.yaml");
    let finding = &report.findings[0];
    let line = line_at(&text, finding);
    assert!(
        line.contains("interface: \"\""),
        "line {}: {line}",
        finding.location.line
    );
    let col = finding.location.column as usize;
    assert!(
        line[col - 1..].starts_with("interface") || line[col - 1..].starts_with('"'),
        "column {col} in {line}"
    );
}

#[test]
fn suppressions_mark_findings_and_expired_ones_bring_them_back() {
    let case = CASES.iter().find(|c| c.rule == "CNI-002").unwrap();
    let base = apply(case.fail, case.rule, "fail");
    let with = |expires: &str| {
        format!(
            "{base}\nsuppressions:\n  - {{ rule: CNI-002, subject: k3s-beta, reason: upgrade planned in the May window{expires} }}\n  - {{ rule: NET-002, subject: '*', reason: no spare router }}\n"
        )
    };
    // In force: the finding stays, suppressed, and no longer counts.
    let report = run(&with(", expires: 2026-05-31"), "s.yaml");
    let f = &report.findings[0];
    let s = f.suppressed.as_ref().expect("suppressed");
    assert_eq!(s.justification, "upgrade planned in the May window");
    assert_eq!(s.expires, Some(jiff::civil::date(2026, 5, 31)));
    assert_eq!(report.summary.warnings, 0);
    assert_eq!(report.summary.suppressed, 1);
    assert!(!report.fails(true));
    // The NET-002 wildcard matches nothing here: a note says so.
    assert_eq!(report.notes.len(), 1, "{:?}", report.notes);
    assert!(report.notes[0].message.contains("matches no finding"));

    // Expired: the finding counts again, with a note.
    let report = run(&with(", expires: 2026-05-01"), "s.yaml");
    assert!(report.findings[0].suppressed.is_none());
    assert_eq!(report.summary.warnings, 1);
    assert!(report.fails(true));
    assert!(!report.fails(false));
    assert!(
        report
            .notes
            .iter()
            .any(|n| n.message.contains("expired on 2026-05-01")),
        "{:?}",
        report.notes
    );
    // The last day still counts as in force.
    let report = run(&with(", expires: 2026-05-02"), "s.yaml");
    assert!(report.findings[0].is_suppressed());
}

#[test]
fn a_suppression_of_an_unknown_rule_is_a_note_with_a_suggestion() {
    let text =
        format!("{BASE}\nsuppressions:\n  - {{ rule: LINSTR-001, subject: b3, reason: typo }}\n");
    match load_str("u.yaml", &text) {
        // The loader may reject it itself; then its diagnostic must name the rule.
        Err(e) => assert!(e.render().contains("LINSTR-001"), "{}", e.render()),
        Ok(topology) => {
            let report = check_on(&topology, today());
            assert_eq!(report.notes.len(), 1);
            assert!(
                report.notes[0]
                    .message
                    .contains("did you mean `LINSTOR-001`"),
                "{}",
                report.notes[0].message
            );
        }
    }
}

#[test]
fn state_awareness_lowers_desired_components_to_info() {
    // The same broken pool, validated then desired.
    let case = CASES.iter().find(|c| c.rule == "LINSTOR-003").unwrap();
    let text = apply(case.fail, case.rule, "fail");
    let report = run(&text, "v.yaml");
    assert_eq!(found(&report).into_iter().next().unwrap().2, Error);
    let desired = text.replacen(
        "    controller: { primary: b1, standby: [b2] }\n    state: validated",
        "    controller: { primary: b1, standby: [b2] }\n    state: desired\n    use_case: more disks",
        1,
    );
    assert_ne!(desired, text);
    let report = run(&desired, "d.yaml");
    let got = found(&report);
    assert!(
        got.iter().all(|(_, _, sev)| *sev == Info),
        "a desired component yields info at most: {got:?}"
    );
    assert!(got.iter().any(|(r, _, _)| r == "LINSTOR-003"), "{got:?}");
}

/// Rules whose logic was corrected: a pass yields no finding of the rule (others may fire).
const LOGIC_CASES: &[RuleCase] = &[
    // "place_count: 3 … só após correção do pve-ippri-34" is an order: a pool already at 3
    // while its site has an empty replication interface was raised first.
    RuleCase {
        rule: "LINSTOR-002",
        pass: &[],
        fail: &[B3_EMPTY_INTERFACE],
        expect: &[
            ("LINSTOR-001", "b3", Error),
            ("LINSTOR-002", "ssd-beta", Warning),
        ],
        variants: &[Variant {
            // Stating 3 replicas for nvme-pool (the documents state none) while pve-ippri-34
            // is unfixed is raising it first; the count stated, LINSTOR-006's "not stated"
            // goes.
            edit: (
                "    # place_count is not stated in the documents.\n",
                "    place_count: 3\n",
            ),
            disappears: &[("LINSTOR-006", "nvme-pool", Warning)],
            appears: &[("LINSTOR-002", "nvme-pool", Warning)],
        }],
    },
    // A diskless tie-breaker holds no replica: it may (and for LINSTOR-006 should) be in
    // another site; a diskful node there is cross-site replication.
    RuleCase {
        rule: "LINSTOR-004",
        pass: &[WITNESS_IN_BETA],
        fail: &[REPLICA_IN_ALPHA],
        expect: &[("LINSTOR-004", "ssd-beta", Error)],
        variants: &[Variant {
            edit: (
                "      - { host: pve-ippri-12 }\n",
                "      - { host: pve-ippri-12 }\n      - { host: pve-labri-31 }\n",
            ),
            disappears: &[],
            appears: &[("LINSTOR-004", "sp-ssd", Error)],
        }],
    },
    // Two replicas need a witness in a third site, not a third node of the same site.
    RuleCase {
        rule: "LINSTOR-006",
        pass: &[SSD_BETA_DECLARED_WITH_2_REPLICAS, WITNESS_IN_BETA],
        fail: &[SSD_BETA_DECLARED_WITH_2_REPLICAS, B3_DISKLESS],
        expect: &[("LINSTOR-006", "ssd-beta", Warning)],
        variants: &[Variant {
            // sp-ssd keeps 2 replicas on three SP hosts: a diskless node in Franca is the
            // witness the documents ask for (and LINSTOR-004 accepts it).
            edit: (
                "      - { host: pve-ippri-12 }\n",
                "      - { host: pve-ippri-12 }\n      - { host: pve-labri-31, diskful: false }\n",
            ),
            disappears: &[("LINSTOR-006", "sp-ssd", Warning)],
            appears: &[],
        }],
    },
    // HA is not DR for any component that declares HA, Traefik included.
    RuleCase {
        rule: "HADR-001",
        pass: &[],
        fail: &[(
            "role: traefik, on_boot: true, backup: pbs-alpha, state: validated }",
            "role: traefik, on_boot: true, state: validated }",
        )],
        expect: &[("HADR-001", "traefik-alpha", Warning)],
        variants: &[Variant {
            edit: ("    ha: true\n    ha_state: declared\n", ""),
            // Without `ha: true`, traefik-sp no longer claims an HA that Pulumi does not create
            // (PVE-003) either.
            disappears: &[
                ("HADR-001", "traefik-sp", Warning),
                ("PVE-003", "traefik-sp", Warning),
            ],
            appears: &[],
        }],
    },
    // A cluster's intended placement is judged before it has nodes or candidate hosts.
    RuleCase {
        rule: "CNI-001",
        pass: &[],
        fail: &[(
            "    nodes: [k3s-b-1]\n    cni: { kind: cilium, version: \"1.17.0\" }",
            "    node_placement: lxc\n    cni: { kind: cilium, version: \"1.17.0\" }",
        )],
        expect: &[("CNI-001", "k3s-beta", Error)],
        variants: &[Variant {
            edit: (
                "  - id: k3s-sp-main\n    site: sp\n    node_placement: vm\n",
                "  - id: k3s-sp-main\n    site: sp\n    node_placement: lxc_privileged\n",
            ),
            // k3s-sp-main is desired, yet a plan of Cilium on LXC is at least a warning
            // (ADR-009 rejects (C): «Cilium não roda confiavelmente em LXC»).
            disappears: &[],
            appears: &[("CNI-001", "k3s-sp-main", Warning)],
        }],
    },
    // A GPU node on a host without a tier is a finding: its placement cannot be judged.
    RuleCase {
        rule: "GPU-002",
        pass: &[],
        fail: &[(
            "  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-3\n",
            "  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n",
        )],
        expect: &[("GPU-002", "gpu-alpha", Warning)],
        variants: &[Variant {
            edit: (
                "  - id: pve-ippri-31\n    site: sp\n    proxmox_cluster: pve-sp\n    tier: tier-3\n",
                "  - id: pve-ippri-31\n    site: sp\n    proxmox_cluster: pve-sp\n",
            ),
            // Without a tier on pve-ippri-31 nothing says whether k3s-gpu-sp's LXC is forced:
            // DOC-002 reports the uniform placement as the standardisation the decision table
            // rejects at a warning that says so (an unknown is neither "allows otherwise", an
            // error, nor "forced", no finding).
            disappears: &[],
            appears: &[
                ("GPU-002", "k3s-gpu-sp", Warning),
                ("DOC-002", "k3s-gpu-sp", Warning),
            ],
        }],
    },
    // OBS-001 speaks of the alerting capability, not of the first observability tool.
    RuleCase {
        rule: "OBS-001",
        pass: &[(
            "  - id: observability\n",
            "  - { id: otel, kind: observability, tool: OpenTelemetry, state: validated }\n  - id: observability\n",
        )],
        fail: &[
            (
                "  - id: observability\n",
                "  - { id: otel, kind: observability, tool: OpenTelemetry, state: validated }\n  - id: observability\n",
            ),
            ("      - { kind: cert_expiring, state: validated }\n", ""),
        ],
        expect: &[("OBS-001", "observability", Warning)],
        variants: &[Variant {
            // Without its alerts, Alertmanager is no longer the alerting capability: the
            // finding falls back to the first observability tool.
            edit: (
                "    alerts:\n      - { kind: node_down, state: desired }\n      - { kind: linstor_degraded, state: desired }\n      - { kind: drbd_desync, state: desired }\n      - { kind: argocd_out_of_sync, state: desired }\n      - { kind: cert_expiring, state: desired }\n      - { kind: nvrm_errors, state: desired }\n",
                "",
            ),
            disappears: &[("OBS-001", "obs-alerting", Info)],
            appears: &[("OBS-001", "obs-openobserve", Warning)],
        }],
    },
    // `deferred: true` (🚫) is a desired component: on a validated or declared one it mixes
    // two states.
    RuleCase {
        rule: "STATE-001",
        pass: &[],
        fail: &[(
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated }",
            "  - { id: traefik-beta, site: beta, address: 10.2.0.6, state: validated, deferred: true }",
        )],
        expect: &[("STATE-001", "traefik-beta", Error)],
        // A pattern, a guest and a K3s cluster: the guests and clusters are judged on their
        // packed facts, the other components one by one.
        variants: &[
            Variant {
                edit: (
                    "    kind: karmada\n    state: desired\n    deferred: true\n",
                    "    kind: karmada\n    state: declared\n    deferred: true\n",
                ),
                // Declared, Karmada is also adopted with fewer than 5 clusters (MESH-003).
                disappears: &[],
                appears: &[
                    ("STATE-001", "karmada", Error),
                    ("MESH-003", "karmada", Warning),
                ],
            },
            Variant {
                edit: (
                    "    gpu: { model: A5000 }\n    state: validated\n",
                    "    gpu: { model: A5000 }\n    state: validated\n    deferred: true\n",
                ),
                disappears: &[],
                appears: &[("STATE-001", "gpu-sp-01", Error)],
            },
            Variant {
                edit: (
                    "    state: validated\n    note: >-\n      🚧 Validado parcial: K3s Franca",
                    "    state: validated\n    deferred: true\n    note: >-\n      🚧 Validado parcial: K3s Franca",
                ),
                // DOC-002 leaves a deferred component alone: k3s-franca's flannel is no longer
                // reported.
                disappears: &[("DOC-002", "k3s-franca", Warning)],
                appears: &[("STATE-001", "k3s-franca", Error)],
            },
        ],
    },
];

#[test]
fn corrected_rules_pass_fail_and_follow_variants_of_the_default_topology() {
    let mut failures = Vec::new();
    check_rule_cases(LOGIC_CASES, BASE, Pass::WithoutTheRule, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Each finding of `rule` whose message contains `marker`, as `severity subject message`, with
/// the text of its line from its column on (the field it points at).
fn pinned(
    report: &cpps_topology::report::Report,
    text: &str,
    rule: &str,
    marker: &str,
) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == rule && f.message.contains(marker))
        .map(|f| {
            let line = line_at(text, f);
            let from = line
                .get(f.location.column as usize - 1..)
                .unwrap_or_else(|| panic!("{} is past its line: {line}", f.location));
            format!("{} {} {} @ {from}", f.severity, f.subject, f.message)
        })
        .collect()
}

/// What [`pinned`] gives of `rule` on the base fixture after `edits` (`what` names the change
/// when an edit does not apply).
fn pinned_after(edits: &[Edit], what: &str, rule: &str, marker: &str) -> Vec<String> {
    let text = apply_to(BASE, edits, what);
    pinned(&run(&text, "edited.yaml"), &text, rule, marker)
}

#[test]
fn an_ha_that_lags_is_worded_by_kind_and_boot_and_points_at_ha() {
    let found = pinned_after(
        &[
            (
                "  - { id: k3s-a-1, host: a2, kind: vm, ha: true, on_boot: true,",
                "  - { id: k3s-a-1, host: a2, kind: vm, ha: true, ha_state: declared, on_boot: true,",
            ),
            (
                "  - { id: k3s-b-1, host: b2, kind: vm, ha: true, on_boot: true,",
                "  - { id: k3s-b-1, host: b2, kind: vm, ha: true, ha_state: desired,",
            ),
            (
                "ha: true, on_boot: true, state: validated }",
                "ha: true, ha_state: declared, on_boot: true, state: validated }",
            ),
            (
                "address: 10.2.0.6, state: validated }",
                "address: 10.2.0.6, ha: true, ha_state: declared, state: validated }",
            ),
        ],
        "PVE-003 wording",
        "PVE-003",
        "",
    );
    // In the report's order (site by site); each points at the value of `ha`.
    assert_eq!(
        found,
        [
            "warning k3s-a-1 guest k3s-a-1 runs in production with `ha: true`, but its HA is only declared: no Proxmox HA resource exists (it only starts on boot) @ true, ha_state: declared, on_boot: true, storage: ssd-alpha, backup: pbs-alpha, state: validated }",
            "warning traefik-alpha traefik traefik-alpha runs in production with `ha: true`, but its HA is only declared: Pulumi creates no Proxmox HA resource (a normal VM with on_boot) @ true, ha_state: declared, on_boot: true, state: validated }",
            "warning k3s-b-1 guest k3s-b-1 runs in production with `ha: true`, but its HA is only desired: no Proxmox HA resource exists @ true, ha_state: desired, storage: ssd-beta, backup: pbs-beta, state: validated }",
            "warning traefik-beta traefik traefik-beta runs in production with `ha: true`, but its HA is only declared: Pulumi creates no Proxmox HA resource @ true, ha_state: declared, state: validated }",
        ]
    );
}

#[test]
fn an_ha_more_mature_than_its_component_is_worded_by_kind_and_points_at_ha() {
    let found = pinned_after(
        &[
            (
                "role: pbs, backup: pbs-alpha, state: validated }",
                "role: pbs, backup: pbs-alpha, ha: true, ha_state: validated, state: declared }",
            ),
            (
                "address: 10.2.0.6, state: validated }",
                "address: 10.2.0.6, ha: true, ha_state: validated, state: declared }",
            ),
        ],
        "STATE-001 ha wording",
        "STATE-001",
        "its `ha`",
    );
    assert_eq!(
        found,
        [
            "error pbs-a-vm guest pbs-a-vm: its `ha` is marked validated, more mature than the guest itself (declared) @ true, ha_state: validated, state: declared }",
            "error traefik-beta traefik traefik-beta: its `ha` is marked validated, more mature than the instance itself (declared) @ true, ha_state: validated, state: declared }",
        ]
    );
}

#[test]
fn a_cluster_listed_twice_points_at_the_repeated_entry_with_the_lists_severity() {
    let found = pinned_after(
        &[
            (
                "manages: [k3s-alpha, gpu-alpha]",
                "manages: [k3s-alpha, gpu-alpha, k3s-alpha]",
            ),
            (
                "id: mesh, kind: cluster_mesh, members: [k3s-alpha, k3s-beta]",
                "id: mesh, kind: cluster_mesh, members: [k3s-alpha, k3s-beta, k3s-beta]",
            ),
            (
                "id: karmada, kind: karmada, members: [k3s-alpha, k3s-beta]",
                "id: karmada, kind: karmada, members: [k3s-alpha, k3s-beta, k3s-alpha]",
            ),
        ],
        "REL-001 listed twice",
        "REL-001",
        "twice",
    );
    // A desired pattern's finding is information only.
    assert_eq!(
        found,
        [
            "error argocd-alpha ArgoCD argocd-alpha lists cluster k3s-alpha twice @ k3s-alpha], state: validated }",
            "error mesh pattern mesh lists cluster k3s-beta twice @ k3s-beta], state: validated }",
            "info karmada pattern karmada lists cluster k3s-alpha twice @ k3s-alpha], state: desired, deferred: true }",
        ]
    );
}

/// CNI-001 allows a privileged LXC with Cilium only on a Tier 3 host with the cluster's
/// `cilium_lxc_exception` (ADR-002). A host without a tier leaves that unknown: the finding says
/// so at a warning naming the host, never that the host "is not a Tier 3 host"; a tier that is
/// not Tier 3, or a missing exception, stays the error.
#[test]
fn cni_001_on_a_host_without_a_tier_says_the_exception_is_unknown() {
    let excepted_lxc_on_a1: [Edit; 2] = [
        (
            "  - { id: k3s-a-1, host: a2, kind: vm,",
            "  - { id: k3s-a-1, host: a1, kind: lxc, privileged: true,",
        ),
        (
            "    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1.16.3\" }",
            "    nodes: [k3s-a-1]\n    cilium_lxc_exception: Tier 3 host, ADR-002\n    cni: { kind: cilium, version: \"1.16.3\" }",
        ),
    ];
    let a1_tier = |tier: &'static str| -> Edit {
        (
            "  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-3\n",
            tier,
        )
    };
    let cni_001 = |edits: &[Edit]| pinned_after(edits, "cni-001 tier", "CNI-001", "");
    // Tier 3 with the exception: allowed.
    assert_eq!(cni_001(&excepted_lxc_on_a1), [""; 0]);
    // No tier on a1: unknown, a warning that names the host (never "not a Tier 3 host").
    let mut edits = excepted_lxc_on_a1.to_vec();
    edits.push(a1_tier(
        "  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n",
    ));
    assert_eq!(
        cni_001(&edits),
        [
            "warning k3s-alpha k3s cluster k3s-alpha runs Cilium with a node that is a privileged LXC on a1, which has no hardware tier the topology knows, so whether its `cilium_lxc_exception` (Tier 3 only) holds is unknown: Cilium is supported on VMs @ k3s-a-1]"
        ]
    );
    // Tier 2A on a1: the exception does not hold, the error says why.
    edits.pop();
    edits.push(a1_tier(
        "  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-2a\n",
    ));
    assert_eq!(
        cni_001(&edits),
        [
            "error k3s-alpha k3s cluster k3s-alpha runs Cilium with a node that is a privileged LXC on a1, which is not a Tier 3 host: Cilium is supported on VMs @ k3s-a-1]"
        ]
    );
    // No tier and no exception: the missing exception is the error, whatever the tier.
    assert_eq!(
        cni_001(&[
            excepted_lxc_on_a1[0],
            a1_tier("  - id: a1\n    site: alpha\n    proxmox_cluster: pve-alpha\n"),
        ]),
        [
            "error k3s-alpha k3s cluster k3s-alpha runs Cilium with a node that is a privileged LXC without a `cilium_lxc_exception` on the cluster: Cilium is supported on VMs @ k3s-a-1]"
        ]
    );
}

/// CNI-002 asks for Cilium 1.16 or later ("Cilium 1.16+"). A Cilium cluster without a version,
/// or with a major only, leaves that unknown: a warning that says so, never a pass.
#[test]
fn cni_002_on_a_cilium_without_a_known_minor_says_the_version_is_unknown() {
    let cni_002 = |version: &'static str| {
        pinned_after(
            &[(
                "    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1.16.3\" }",
                version,
            )],
            "cni-002 version",
            "CNI-002",
            "",
        )
    };
    // Each points at what it judges: the `cni` without a version, or the version.
    let warning = |message: &str, at: &str| vec![format!("warning k3s-alpha {message} @ {at}")];
    assert_eq!(
        cni_002("    nodes: [k3s-a-1]\n    cni: { kind: cilium }"),
        warning(
            "k3s cluster k3s-alpha runs Cilium without a `cni.version`: whether it is 1.16 or later is unknown",
            "{ kind: cilium }"
        )
    );
    assert_eq!(
        cni_002("    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1\" }"),
        warning(
            "k3s cluster k3s-alpha runs Cilium 1 without a minor version: whether it is 1.16 or later is unknown",
            "\"1\" }"
        )
    );
    assert_eq!(
        cni_002("    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1.15.7\" }"),
        warning(
            "k3s cluster k3s-alpha runs Cilium 1.15.7, older than 1.16",
            "\"1.15.7\" }"
        )
    );
    assert_eq!(
        cni_002("    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"1.16\" }"),
        [""; 0]
    );
    assert_eq!(
        cni_002("    nodes: [k3s-a-1]\n    cni: { kind: cilium, version: \"2\" }"),
        [""; 0]
    );
}
