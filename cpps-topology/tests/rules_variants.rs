//! Variants of the embedded default topology: one textual change each (it must match the default
//! exactly once), and the exact findings it adds and removes.
//!
//! Users run the check on *their* file as it evolves, not on the default: each rule whose logic
//! was corrected is shown to follow a small change of the real topology. The findings of the
//! variant minus those of the default must be exactly `appears`, and the findings of the default
//! minus those of the variant exactly `disappears` (each as `(rule, subject, severity)`, counted:
//! a finding reported once more or once less is a change), and the variant must flip the rule it
//! is written for.

mod common;

use common::{Edit, apply_to, check_default_variant, counted, line_at, run};
use cpps_topology::DEFAULT_TOPOLOGY_YAML;
use cpps_topology::report::Severity::{self, Error, Info, Warning};

type Triple = (&'static str, &'static str, Severity);

struct Variant {
    /// The rule the variant is about: it must appear in `appears` or `disappears`.
    rule: &'static str,
    /// What the change shows.
    why: &'static str,
    edit: Edit,
    appears: &'static [Triple],
    disappears: &'static [Triple],
}

const VARIANTS: &[Variant] = &[
    // SITE-001: backups and placements that cross the link.
    Variant {
        rule: "SITE-001",
        why: "a guest backed up only to the other site's PBS has no backup while the link is down",
        edit: (
            "    gpu: { model: A5000 }\n    state: validated\n",
            "    gpu: { model: A5000 }\n    backup: pbs-franca\n    state: validated\n",
        ),
        // pbs-franca is only desired: the dependency is a plan, so info.
        appears: &[("SITE-001", "gpu-sp-01", Info)],
        disappears: &[],
    },
    Variant {
        rule: "SITE-001",
        why: "the SP router placed on a Franca host",
        edit: (
            "  - id: vyos-sp\n    site: sp\n",
            "  - id: vyos-sp\n    site: sp\n    host: pve-labri-31\n",
        ),
        appears: &[("SITE-001", "vyos-sp", Error)],
        disappears: &[],
    },
    Variant {
        rule: "SITE-001",
        why: "the Franca Traefik placed on an SP host",
        edit: (
            "  - id: traefik-franca\n    site: franca\n",
            "  - id: traefik-franca\n    site: franca\n    host: pve-ippri-11\n",
        ),
        appears: &[("SITE-001", "traefik-franca", Error)],
        disappears: &[],
    },
    // NET-001 / NET-002: the VRRP group, of any size, read whole.
    Variant {
        rule: "NET-002",
        why: "a validated VRRP peer that names vyos-sp makes it HA",
        edit: (
            "  - id: vyos-sp\n    site: sp\n",
            "  - { id: vyos-sp-2, site: sp, vrrp_peer: vyos-sp, state: validated }\n  - id: vyos-sp\n    site: sp\n",
        ),
        appears: &[],
        disappears: &[("NET-002", "vyos-sp", Warning)],
    },
    Variant {
        rule: "NET-002",
        why: "a ring of three validated routers is one HA group (and still one router for NET-001)",
        edit: (
            "  - id: vyos-sp\n    site: sp\n",
            "  - { id: vyos-sp-2, site: sp, vrrp_peer: vyos-sp-3, state: validated }\n  - { id: vyos-sp-3, site: sp, vrrp_peer: vyos-sp, state: validated }\n  - id: vyos-sp\n    vrrp_peer: vyos-sp-2\n    site: sp\n",
        ),
        appears: &[],
        disappears: &[("NET-002", "vyos-sp", Warning)],
    },
    Variant {
        rule: "NET-002",
        why: "a peer that is only declared does not make a validated router HA in production",
        edit: (
            "  - id: vyos-sp\n    site: sp\n",
            "  - { id: vyos-sp-2, site: sp, vrrp_peer: vyos-sp, state: declared }\n  - id: vyos-sp\n    site: sp\n",
        ),
        // vyos-sp-2 (declared) has a peer as mature as itself; vyos-sp keeps its finding.
        appears: &[],
        disappears: &[],
    },
    Variant {
        rule: "NET-001",
        why: "a second router in Franca that is no VRRP peer is a second router for the site",
        edit: (
            "  - id: vyos-franca\n    site: franca\n",
            "  - { id: vyos-franca-2, site: franca, state: validated }\n  - id: vyos-franca\n    site: franca\n",
        ),
        appears: &[
            ("NET-001", "franca", Error),
            ("NET-002", "vyos-franca-2", Warning),
        ],
        disappears: &[],
    },
    // INGRESS-002: the sites' general-purpose clusters, exactly.
    Variant {
        rule: "INGRESS-002",
        why: "cert-manager in production in K3s Franca settles the finding",
        edit: (
            "    purpose: general\n    cert_manager:\n      dns01_cluster_issuer: true\n      dns01_provider: cloudflare\n      state: desired\n",
            "    purpose: general\n    cert_manager:\n      dns01_cluster_issuer: true\n      dns01_provider: cloudflare\n      state: validated\n",
        ),
        appears: &[],
        disappears: &[("INGRESS-002", "k3s-franca", Warning)],
    },
    // SEC-001: secrets in prose, masked in the finding.
    Variant {
        rule: "SEC-001",
        why: "a password phrase in a note",
        edit: (
            "note: ✅ VyOS Franca em produção.",
            "note: ✅ VyOS Franca em produção. The admin password is Hunter22.",
        ),
        appears: &[("SEC-001", "vyos-franca", Error)],
        disappears: &[],
    },
    Variant {
        rule: "SEC-001",
        why: "a GitHub token in a note",
        edit: (
            "note: ✅ VyOS SP renumerado",
            "note: CI uses ghp_0123456789abcdefghijABCDEFGHIJ012345. ✅ VyOS SP renumerado",
        ),
        appears: &[("SEC-001", "vyos-sp", Error)],
        disappears: &[],
    },
    Variant {
        rule: "SEC-001",
        why: "a high-entropy token in a comment above a component",
        edit: (
            "  - id: wg-sp-franca\n",
            "  # wg private key r9Tq2ZxLw8vNp3KdY7mHf5GsQ1bV0cXe\n  - id: wg-sp-franca\n",
        ),
        // The comment is written under traefik-franca, the component above it.
        appears: &[("SEC-001", "traefik-franca", Error)],
        disappears: &[],
    },
    // REL-001: relations that cannot exist.
    Variant {
        rule: "REL-001",
        why: "Hubble on K3s Franca, which runs flannel",
        edit: (
            "    cni: { kind: flannel }\n    purpose: general\n",
            "    cni: { kind: flannel }\n    purpose: general\n    hubble: true\n",
        ),
        appears: &[("REL-001", "k3s-franca", Error)],
        disappears: &[],
    },
    Variant {
        rule: "REL-001",
        why: "a pool node on a host that runs no LINSTOR satellite",
        edit: (
            "      - { host: pve-ippri-34 }\n",
            "      - { host: pve-ippri-34 }\n      - { host: pve-ippri-unnamed-1 }\n",
        ),
        appears: &[("REL-001", "nvme-pool", Error)],
        disappears: &[],
    },
    Variant {
        rule: "REL-001",
        why: "a standby controller on a host that runs no LINSTOR controller",
        edit: (
            "standby: [pve-labri-31, pve-labri-33]",
            "standby: [pve-labri-31, pve-labri-33, pve-labri-unnamed-1]",
        ),
        appears: &[("REL-001", "franca-ssd", Error)],
        disappears: &[],
    },
    Variant {
        rule: "REL-001",
        why: "a VRRP peer in the other site is no group",
        edit: (
            "  - id: vyos-franca\n    site: franca\n",
            "  - id: vyos-franca\n    site: franca\n    vrrp_peer: vyos-sp\n",
        ),
        // Both routers stay single points of failure (NET-002 unchanged).
        appears: &[("REL-001", "vyos-franca", Error)],
        disappears: &[],
    },
    Variant {
        rule: "REL-001",
        why: "the cross-site link with both ends in SP",
        edit: (
            "endpoints: [vyos-sp, vyos-franca]",
            "endpoints: [vyos-sp, vyos-sp]",
        ),
        appears: &[("REL-001", "wg-sp-franca", Info)],
        disappears: &[],
    },
    Variant {
        rule: "REL-001",
        why: "an ApplicationSet of ArgoCD Franca deploying to SP's main cluster",
        edit: (
            "    kind: application_set\n    members: [k3s-sp-main, k3s-franca]\n",
            "    kind: application_set\n    members: [k3s-sp-main, k3s-franca]\n    argocd: argocd-franca\n",
        ),
        appears: &[("REL-001", "applicationset", Info)],
        disappears: &[],
    },
    // REL-002: relations that contradict a decision.
    Variant {
        rule: "REL-002",
        why: "PBS SP in the GPU LXC: not a dedicated VM",
        edit: (
            "  - id: pbs-sp\n    site: sp\n",
            "  - id: pbs-sp\n    site: sp\n    guest: gpu-sp-01\n",
        ),
        // Both are plans only as far as pbs-sp is desired: info. The GPU in the VM is DOC-006's.
        appears: &[("REL-002", "pbs-sp", Info), ("DOC-006", "pbs-sp", Info)],
        disappears: &[],
    },
    Variant {
        rule: "REL-002",
        why: "a GPU cluster whose only node has no GPU",
        edit: (
            "    role: k3s-server (standalone K3s, GPU cluster)\n    gpu: { model: A5000 }\n",
            "    role: k3s-server (standalone K3s, GPU cluster)\n",
        ),
        appears: &[("REL-002", "k3s-gpu-sp", Warning)],
        disappears: &[],
    },
];

#[test]
fn each_variant_of_the_default_changes_exactly_its_findings() {
    let default = counted(&run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml"));
    let mut failures = Vec::new();
    for (i, v) in VARIANTS.iter().enumerate() {
        let what = format!("{} variant {i} ({})", v.rule, v.why);
        check_default_variant(
            &what,
            v.edit,
            v.appears,
            v.disappears,
            (&default, &|_| true),
            &mut failures,
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_variant_flips_its_rule_and_every_touched_rule_has_one() {
    for v in VARIANTS {
        let flips = v.appears.iter().chain(v.disappears).any(|t| t.0 == v.rule);
        // A variant that leaves its rule as it is shows what must not change (named in `why`).
        let neutral = v.appears.is_empty() && v.disappears.is_empty();
        assert!(
            flips || neutral,
            "{} ({}) does not flip its rule",
            v.rule,
            v.why
        );
    }
    for rule in [
        "SITE-001",
        "NET-001",
        "NET-002",
        "INGRESS-002",
        "SEC-001",
        "REL-001",
        "REL-002",
    ] {
        assert!(
            VARIANTS.iter().any(
                |v| v.rule == rule && v.appears.iter().chain(v.disappears).any(|t| t.0 == rule)
            ),
            "{rule} has no variant that flips it"
        );
    }
}

#[test]
fn a_secret_found_in_prose_is_masked_in_every_report_format() {
    let secrets = [
        ("The admin password is Hunter22.", "Hunter22"),
        (
            "CI uses ghp_0123456789abcdefghijABCDEFGHIJ012345.",
            "0123456789abcdefghijABCDEFGHIJ012345",
        ),
    ];
    for (prose, secret) in secrets {
        let note = format!("note: ✅ VyOS Franca em produção. {prose}");
        let text = apply_to(
            DEFAULT_TOPOLOGY_YAML,
            &[("note: ✅ VyOS Franca em produção.", &note)],
            prose,
        );
        let report = run(&text, "secret.yaml");
        let f = report
            .findings
            .iter()
            .find(|f| f.rule.as_str() == "SEC-001")
            .expect("SEC-001 fires");
        assert!(f.message.contains("masked"), "{}", f.message);
        // The finding points at the value itself.
        let line = line_at(&text, f);
        let column = f.location.column as usize;
        let from: String = line.chars().skip(column - 1).collect();
        assert!(
            from.starts_with(secret) || from.starts_with("ghp_"),
            "{from}"
        );
        for format in [
            cpps_topology::report::Format::Text,
            cpps_topology::report::Format::Json,
            cpps_topology::report::Format::Sarif,
            cpps_topology::report::Format::Junit,
        ] {
            let rendered = report.render(format);
            assert!(
                !rendered.contains(secret),
                "{format:?} report prints the secret"
            );
        }
    }
}

#[test]
fn the_default_topology_has_no_secret_and_no_impossible_relation() {
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let hits: Vec<String> = report
        .findings
        .iter()
        .filter(|f| matches!(f.rule.as_str(), "SEC-001" | "REL-001" | "REL-002"))
        .map(|f| format!("{} {}: {}", f.rule, f.subject, f.message))
        .collect();
    assert!(hits.is_empty(), "{hits:#?}");
}

/// REL-001 on the fields of a K3s cluster whose meaning depends on another of its fields
/// (ADR-009: «Hubble e Cilium NetworkPolicy avançada ficam restritos ao cluster onde Cilium
/// roda»): each broken one is one error on the cluster, at the field; the same fields where the
/// other field agrees pass.
#[test]
fn a_field_that_depends_on_another_is_judged_by_it() {
    let base = include_str!("fixtures/rules/base.yaml");
    let rel = |edits: &[Edit]| -> Vec<(String, String)> {
        let report = run(&apply_to(base, edits, "dependent field"), "d.yaml");
        report
            .findings
            .iter()
            .map(|f| (f.rule.as_str().to_owned(), f.subject.id().to_owned()))
            .collect()
    };
    let alpha_flannel: Edit = (
        "    cni: { kind: cilium, version: \"1.16.3\" }\n",
        "    cni: { kind: flannel }\n",
    );
    // Hubble with Cilium passes.
    let pass = rel(&[(
        "    default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
        "    default_deny: true\n    hubble: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
    )]);
    assert!(pass.is_empty(), "{pass:?}");
    let rel001 = vec![("REL-001".to_owned(), "k3s-alpha".to_owned())];
    // Hubble on flannel (the flannel cluster also adopts nothing else: it is what the base
    // fixture's rejected records leave alone).
    let hubble = rel(&[
        alpha_flannel,
        (
            "    default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
            "    default_deny: true\n    hubble: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
        ),
    ]);
    let flannel = rel(&[alpha_flannel]);
    let added: Vec<_> = hubble
        .iter()
        .filter(|f| !flannel.contains(f))
        .cloned()
        .collect();
    assert_eq!(added, rel001, "hubble on flannel");
    // A DNS-01 provider without the DNS-01 ClusterIssuer.
    let provider = rel(&[(
        "    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
        "    cert_manager: { dns01_cluster_issuer: false, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
    )]);
    assert!(provider.contains(&rel001[0]), "{provider:?}");
    // A VM + Cilium proof of concept on a general-purpose cluster.
    let poc = rel(&[(
        "    default_deny: true\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
        "    default_deny: true\n    cilium_vm_poc: declared\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: k3s-beta",
    )]);
    assert_eq!(poc, rel001, "poc");
}

/// GPU-003 with a host GPU whose count is not stated: it has at least one, so a guest using one
/// passes; a guest using two may or may not fit, which is "not stated" (a warning), neither a
/// pass nor the error a stated count of 1 gives.
#[test]
fn a_gpu_count_not_stated_is_said_by_gpu_003() {
    let base = include_str!("fixtures/rules/base.yaml");
    let host_unstated: Edit = (
        "    gpus: [{ model: A5000, count: 1 }]\n",
        "    gpus: [{ model: A5000 }]\n",
    );
    let guest_two: Edit = (
        "    gpu: { model: A5000, count: 1 }\n",
        "    gpu: { model: A5000, count: 2 }\n",
    );
    let gpu3 = |edits: &[Edit]| -> Vec<(String, Severity, String)> {
        run(&apply_to(base, edits, "gpu count"), "g.yaml")
            .findings
            .iter()
            .filter(|f| f.rule.as_str() == "GPU-003")
            .map(|f| (f.subject.id().to_owned(), f.severity, f.message.clone()))
            .collect()
    };
    assert!(gpu3(&[host_unstated]).is_empty());
    let unknown = gpu3(&[host_unstated, guest_two]);
    assert_eq!(unknown.len(), 1, "{unknown:?}");
    assert_eq!((unknown[0].0.as_str(), unknown[0].1), ("gpu-a-1", Warning));
    assert!(
        unknown[0]
            .2
            .contains("at least 1: how many it has is not stated"),
        "{}",
        unknown[0].2
    );
    let known = gpu3(&[guest_two]);
    assert_eq!(known.len(), 1, "{known:?}");
    assert_eq!(known[0].1, Error);
}

/// More fields whose meaning depends on another: a Traefik's `ha_state` is the state of its
/// `ha`, so it needs `ha: true`; alerts and collected metrics belong to an observability
/// capability. Each is one REL-001 error on a base-fixture variant; the same fields where the
/// other agrees pass (the base has both).
#[test]
fn ha_state_needs_ha_and_alerts_need_observability() {
    let base = include_str!("fixtures/rules/base.yaml");
    let rel001 = |edits: &[Edit]| -> Vec<String> {
        run(&apply_to(base, edits, "dependent"), "d.yaml")
            .findings
            .iter()
            .filter(|f| f.rule.as_str() == "REL-001")
            .map(|f| f.subject.id().to_owned())
            .collect()
    };
    assert!(rel001(&[]).is_empty());
    let ha_state = rel001(&[(
        "ha: true, on_boot: true, state: validated }",
        "ha_state: declared, on_boot: true, state: validated }",
    )]);
    assert_eq!(ha_state, ["traefik-alpha"]);
    let text = apply_to(base, &[], "base");
    let observability = text
        .find("  - id: observability\n")
        .expect("the base's observability");
    let kind_line = text[observability..]
        .lines()
        .find(|l| l.trim_start().starts_with("kind:"))
        .expect("its kind");
    let kind_edit: Edit = (
        Box::leak(format!("  - id: observability\n{kind_line}\n").into_boxed_str()),
        Box::leak(
            format!(
                "  - id: observability\n{}\n",
                kind_line.replace("observability", "ci_cd")
            )
            .into_boxed_str(),
        ),
    );
    let moved = rel001(&[kind_edit]);
    assert!(
        !moved.is_empty() && moved.iter().all(|s| s == "observability"),
        "{moved:?}"
    );
}
