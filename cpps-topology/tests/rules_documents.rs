//! The rules derived from what the documents ask beyond the team's catalogue (DOC-001…DOC-008):
//! each against a passing and a failing fixture (`tests/fixtures/rules/base.yaml` with a few
//! edits: the pass yields no finding at all, the fail exactly the listed findings), and against
//! variants of the embedded default topology, where one change must turn the rule's finding on
//! or off and change exactly the listed findings of every rule (counted): users run the check on
//! their own file as it evolves.

mod common;

use std::collections::BTreeSet;

use common::{
    Edit, Pass, RuleCase, Variant, apply_to, check_rule_cases, find, finding, found, pairs, run,
};
use cpps_topology::DEFAULT_TOPOLOGY_YAML;
use cpps_topology::report::Severity;

const BASE: &str = include_str!("fixtures/rules/base.yaml");

/// The last line of the base: records of the documents are appended after it.
const BASE_END: &str =
    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n";

use Severity::{Info, Warning};

const CONTRADICTION_AGREES: Edit = (
    BASE_END,
    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n\ncontradictions:\n  - id: link-up\n    subject: wg-alpha-beta\n    claims:\n      - { source: a.txt, state: validated, quote: the tunnel is up }\n      - { source: b.txt, state: validated, quote: the tunnel runs }\n    follows: validated\n",
);

const CONTRADICTION_DISAGREES: Edit = (
    BASE_END,
    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n\ncontradictions:\n  - id: link-up\n    subject: wg-alpha-beta\n    claims:\n      - { source: a.txt, state: validated, quote: the tunnel is up }\n      - { source: b.txt, state: desired, quote: the tunnel is still to be configured }\n    follows: validated\n",
);

const REJECT_CEPH: Edit = (
    BASE_END,
    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n\nrejected:\n  - id: no-ceph\n    topic: Storage replicado\n    decision: LINSTOR + DRBD\n    alternative: Ceph\n    reason: Footprint menor\n    adopted_when: { tools: [ceph] }\n",
);

/// A desired ArgoCD planned in a desired cluster `k3s-gamma` of site beta.
const ARGOCD_GAMMA: Edit = (
    "  - { id: argocd-beta, site: beta, runs_in: k3s-beta, manages: [k3s-beta], state: validated }",
    "  - { id: argocd-beta, site: beta, runs_in: k3s-beta, manages: [k3s-beta], state: validated }\n  - { id: argocd-gamma, site: beta, runs_in: k3s-gamma, state: desired, use_case: later }",
);

/// `k3s-gamma` with Cilium, planned: ArgoCD may be planned in it (the pass) …
const CILIUM_GAMMA: Edit = (
    "  - id: gpu-alpha\n",
    "  - { id: k3s-gamma, site: beta, node_placement: vm, cni: { kind: cilium, version: \"1.17.0\" }, purpose: general, default_deny: true, cert_manager: { dns01_cluster_issuer: true, state: desired }, state: desired, use_case: later }\n  - id: gpu-alpha\n",
);

/// … but not when the Cilium cluster is deferred: the ArgoCD would wait for it (the fail).
const CILIUM_GAMMA_DEFERRED: Edit = (
    "  - id: gpu-alpha\n",
    "  - { id: k3s-gamma, site: beta, node_placement: vm, cni: { kind: cilium, version: \"1.17.0\" }, purpose: general, default_deny: true, cert_manager: { dns01_cluster_issuer: true, state: desired }, state: desired, deferred: true, note: later }\n  - id: gpu-alpha\n",
);

const CASES: &[RuleCase] = &[
    // The documents disagree: reported on the subject, with both sentences; claims that agree
    // are no contradiction.
    RuleCase {
        rule: "DOC-001",
        pass: &[CONTRADICTION_AGREES],
        fail: &[CONTRADICTION_DISAGREES],
        expect: &[("DOC-001", "wg-alpha-beta", Info)],
        variants: &[Variant {
            // The architecture and ADR-009 agreeing on SeaweedFS settles the contradiction.
            edit: (
                "      - { source: 000_be2f9e2558fad79c.txt, state: validated, quote: \"SeaweedFS (datasets",
                "      - { source: 000_be2f9e2558fad79c.txt, state: desired, quote: \"SeaweedFS (datasets",
            ),
            disappears: &[("DOC-001", "seaweedfs-hudi", Info)],
            appears: &[],
        }],
    },
    // A rejected alternative adopted in production is an error; in the plan, info.
    RuleCase {
        rule: "DOC-002",
        pass: &[REJECT_CEPH],
        fail: &[
            REJECT_CEPH,
            (
                "  - { id: webapp, layer: 8a",
                "  - { id: ceph-rbd, layer: \"1\", site: alpha, tool: Ceph RBD, state: validated }\n  - { id: webapp, layer: 8a",
            ),
        ],
        expect: &[("DOC-002", "ceph-rbd", Severity::Error)],
        variants: &[
            Variant {
                // Sealed Secrets is the rejected option for secrets (a plan: info).
                edit: (
                    "    tool: SOPS + age (MVP) → ESO + Vault (IDP phase)\n",
                    "    tool: Sealed Secrets\n",
                ),
                disappears: &[],
                appears: &[("DOC-002", "secrets", Info)],
            },
            Variant {
                // Without a placement claim of ADR-009, the Franca GPU cluster in LXC on a
                // Tier 2A host (which allows a VM) is the forced standardisation the table
                // rejects.
                edit: (
                    "    placement_claims:\n      - placement: vm\n        cni: cilium\n        source: 004_29bfc39840ca04c0.txt\n        quote: \"GPU placement\\tDiferenciado por site: SP em LXC (Tier 3 obriga); Franca em VM com Cilium (Tier 2A permite)\"\n      - placement: lxc_privileged\n        cni: flannel\n        source: 000_be2f9e2558fad79c.txt\n        quote: \"Replicar mesma arquitetura: K3s standalone em LXC privileged em algum dos hosts labri-31/32/33, sem Cilium.\"\n",
                    "",
                ),
                // With no placement claims left, the documents' disagreement on this placement is
                // no longer reported (GPU-002).
                disappears: &[("GPU-002", "k3s-gpu-franca", Info)],
                appears: &[("DOC-002", "k3s-gpu-franca", Info)],
            },
            Variant {
                // Karmada no longer deferred is adopted as the default multi-cluster pattern.
                edit: (
                    "    kind: karmada\n    state: desired\n    deferred: true\n",
                    "    kind: karmada\n    state: desired\n",
                ),
                // Not deferred, Karmada is a plan like any other and must name its use case
                // (FRUGAL-001).
                disappears: &[],
                appears: &[
                    ("DOC-002", "karmada", Info),
                    ("FRUGAL-001", "karmada", Info),
                ],
            },
        ],
    },
    // An identity provider in one site only; a MultiKueue managed from where none of its
    // clusters runs.
    RuleCase {
        rule: "DOC-003",
        pass: &[(
            "  - id: observability\n",
            "  - { id: idp-alpha, kind: iam, tool: Authentik, site: alpha, state: validated }\n  - { id: idp-beta, kind: iam, tool: Authentik, site: beta, state: validated }\n  - id: observability\n",
        )],
        fail: &[(
            "  - id: observability\n",
            "  - { id: idp-alpha, kind: iam, tool: Authentik, site: alpha, state: validated }\n  - id: observability\n",
        )],
        expect: &[("DOC-003", "idp-alpha", Warning)],
        variants: &[
            Variant {
                // Authentik placed in SP with a second one in Franca: each site has its own,
                // and the "cannot tell" of the site-less default is settled.
                edit: (
                    "  - id: iam-authentik\n    kind: iam\n",
                    "  - { id: iam-franca, kind: iam, tool: Authentik, site: franca, state: desired, use_case: SSO in Franca }\n  - id: iam-authentik\n    kind: iam\n    site: sp\n",
                ),
                disappears: &[("DOC-003", "iam-authentik", Info)],
                appears: &[],
            },
            Variant {
                edit: (
                    "    members: [k3s-gpu-sp, k3s-gpu-franca]\n",
                    "    members: [k3s-gpu-franca]\n    manager: k3s-gpu-sp\n",
                ),
                // The MultiKueue now names its manager (MESH-002 is satisfied).
                disappears: &[("MESH-002", "multikueue", Info)],
                appears: &[("DOC-003", "multikueue", Info)],
            },
        ],
    },
    // "Métricas LINSTOR/PBS antes de declarar produção".
    RuleCase {
        rule: "DOC-004",
        pass: &[],
        fail: &[("    metrics: [linstor, drbd, pbs]\n", "")],
        expect: &[
            ("DOC-004", "ssd-alpha", Warning),
            ("DOC-004", "ssd-beta", Warning),
            ("DOC-004", "pbs-alpha", Warning),
            ("DOC-004", "pbs-beta", Warning),
        ],
        variants: &[Variant {
            edit: (
                "    metrics: [linstor, drbd, pbs]\n    state: desired",
                "    metrics: [linstor, drbd, pbs]\n    state: validated",
            ),
            disappears: &[
                ("DOC-004", "sp-ssd", Warning),
                ("DOC-004", "franca-ssd", Warning),
            ],
            appears: &[],
        }],
    },
    // The NVRM alert of the driver runbook.
    RuleCase {
        rule: "DOC-005",
        pass: &[],
        fail: &[("      - { kind: nvrm_errors, state: validated }\n", "")],
        expect: &[("DOC-005", "gpu-alpha", Warning)],
        variants: &[Variant {
            // The Franca GPU cluster provisioned (declared) needs the alert too.
            edit: (
                "    state: desired\n    note: >-\n      ❌ Hardware presente",
                "    state: declared\n    note: >-\n      ❌ Hardware presente",
            ),
            // In service, it is also joined with the SP GPU cluster by no ApplicationSet, by a
            // MultiKueue only desired, and shares no storage and models in service yet (GPU-008,
            // three times on both); GPU clusters in two sites are a GPU-006 review fact.
            disappears: &[],
            appears: &[
                ("DOC-005", "k3s-gpu-franca", Warning),
                ("GPU-006", "k3s-gpu-franca", Info),
                ("GPU-006", "k3s-gpu-sp", Info),
                ("GPU-008", "k3s-gpu-franca", Warning),
                ("GPU-008", "k3s-gpu-franca", Warning),
                ("GPU-008", "k3s-gpu-franca", Warning),
                ("GPU-008", "k3s-gpu-sp", Warning),
                ("GPU-008", "k3s-gpu-sp", Warning),
                ("GPU-008", "k3s-gpu-sp", Warning),
            ],
        }],
    },
    // A PBS in service says which VM it runs in; that VM uses no GPU.
    RuleCase {
        rule: "DOC-006",
        pass: &[],
        fail: &[(
            "  - id: pbs-alpha\n    site: alpha\n    guest: pbs-a-vm\n",
            "  - id: pbs-alpha\n    site: alpha\n",
        )],
        expect: &[("DOC-006", "pbs-alpha", Warning)],
        variants: &[Variant {
            edit: (
                "    sync_to: [{ target: pbs-franca, link: wg-sp-franca }]\n    state: desired",
                "    sync_to: [{ target: pbs-franca, link: wg-sp-franca }]\n    state: declared",
            ),
            disappears: &[],
            appears: &[("DOC-006", "pbs-sp", Warning)],
        }],
    },
    // "ArgoCD SP (não depende de Cilium — pode subir antes/em paralelo)": planned in the Cilium
    // cluster is ADR-009's plan («K3s SP principal: … ArgoCD SP …»); waiting for a deferred one
    // is not.
    RuleCase {
        rule: "DOC-007",
        pass: &[ARGOCD_GAMMA, CILIUM_GAMMA],
        fail: &[ARGOCD_GAMMA, CILIUM_GAMMA_DEFERRED],
        expect: &[("DOC-007", "argocd-gamma", Info)],
        variants: &[Variant {
            edit: (
                "    state: desired\n    note: >-\n      ❌ K3s SP greenfield",
                "    state: desired\n    deferred: true\n    note: >-\n      ❌ K3s SP greenfield",
            ),
            disappears: &[],
            appears: &[("DOC-007", "argocd-sp", Info)],
        }],
    },
    // The GPU LXC on LINSTOR and in PBS.
    RuleCase {
        rule: "DOC-008",
        pass: &[],
        fail: &[(
            "    storage: ssd-alpha\n    backup: pbs-alpha\n    state: validated",
            "    state: validated",
        )],
        expect: &[("DOC-008", "gpu-a-1", Warning)],
        variants: &[Variant {
            edit: (
                "    gpu: { model: A5000 }\n    state: validated",
                "    gpu: { model: A5000 }\n    storage: sp-ssd\n    backup: pbs-sp\n    state: validated",
            ),
            // pbs-sp is only desired: the replicated guest has no backup in service yet (HADR-001).
            disappears: &[("DOC-008", "gpu-sp-01", Warning)],
            appears: &[("HADR-001", "gpu-sp-01", Warning)],
        }],
    },
];

#[test]
fn every_document_rule_passes_fails_and_follows_variants_of_the_default_topology() {
    let mut failures = Vec::new();
    check_rule_cases(CASES, BASE, Pass::Clean, &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_document_rule_has_a_case() {
    let cased: BTreeSet<&str> = CASES.iter().map(|c| c.rule).collect();
    assert_eq!(cased.len(), CASES.len(), "one case per rule");
    let rules: BTreeSet<&str> = cpps_topology::rules::catalogue()
        .iter()
        .map(|r| r.id.as_str())
        .filter(|id| id.starts_with("DOC-"))
        .collect();
    assert_eq!(cased, rules);
}

#[test]
fn a_contradiction_names_both_documents_and_a_wrong_record_is_a_warning() {
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let f = find(&report, "DOC-001", "wg-sp-franca");
    assert_eq!(f.severity, Info);
    assert!(
        f.message.contains("004_29bfc39840ca04c0.txt says desired")
            && f.message
                .contains("000_be2f9e2558fad79c.txt says validated")
            && f.message.contains("já temos via VyOS+WireGuard")
            && f.message.ends_with("the file follows desired"),
        "{}",
        f.message
    );
    // A table row's tab-separated cells read as columns.
    let f = find(&report, "DOC-001", "seaweedfs-hudi");
    assert!(
        f.message.contains("SeaweedFS + Hudi | ❌ Desejado"),
        "{}",
        f.message
    );
    // One contradiction per disagreement of the documents, each on its subject (ADR-009's
    // «NetworkPolicy básica L3/L4 | ✅ flannel + iptables» says what flannel allows, which the
    // architecture does not deny: no record).
    let subjects: BTreeSet<&str> = report
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "DOC-001")
        .map(|f| f.subject.id())
        .collect();
    assert_eq!(
        subjects,
        [
            "applicationset",
            "apps-repo-refactor",
            "argocd-sp",
            "gpu-sharing",
            "gpu-sp-01",
            "k3s-sp-main",
            "obs-otel-collector",
            "seaweedfs-hudi",
            "sp",
            "tls-cert-manager",
            "wg-sp-franca"
        ]
        .into_iter()
        .collect()
    );
    // The file following a state no claim gives, or a subject that does not follow the record.
    let (find, _) = CONTRADICTION_DISAGREES;
    let text = apply_to(
        BASE,
        &[
            (find, CONTRADICTION_DISAGREES.1),
            ("    follows: validated\n", "    follows: declared\n"),
        ],
        "follows declared",
    );
    let got = found(&run(&text, "c.yaml"));
    assert!(
        got.contains(&("DOC-001".to_owned(), "wg-alpha-beta".to_owned(), Warning)),
        "{got:?}"
    );
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[("    subject: wg-sp-franca\n", "    subject: vyos-sp\n")],
        "subject validated",
    );
    let report = run(&text, "s.yaml");
    let f = report
        .findings
        .iter()
        .find(|f| {
            f.rule.as_str() == "DOC-001" && f.subject.id() == "vyos-sp" && f.severity == Warning
        })
        .expect("a record the subject does not follow");
    assert!(
        f.message.contains("but the component is validated"),
        "{}",
        f.message
    );
}

#[test]
fn an_adoption_follows_its_state_and_a_planned_replacement_lowers_it() {
    // K3s Franca runs flannel in production: the rejected "flannel sem Cilium", with its
    // migration planned (franca-cilium-migration replaces it): a warning.
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let f = find(&report, "DOC-002", "k3s-franca");
    assert_eq!(f.severity, Warning);
    assert!(
        f.message.contains("«Calico, flannel sem Cilium, Linkerd»")
            && f.message
                .contains("item franca-cilium-migration (desired) replaces it"),
        "{}",
        f.message
    );
    // Without the planned migration it is an error; the GPU clusters on flannel are exempt
    // (ADR-009: out of Cilium's scope).
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[("    replaces: rejected-cni-alternatives\n", "")],
        "no replacement",
    );
    let report = run(&text, "r.yaml");
    assert_eq!(
        find(&report, "DOC-002", "k3s-franca").severity,
        Severity::Error
    );
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule.as_str() == "DOC-002" && f.subject.id().starts_with("k3s-gpu"))
    );
    // A rejected option in the plan is info, declared an error.
    let secrets = |state: &str| {
        let text = apply_to(
            DEFAULT_TOPOLOGY_YAML,
            &[(
                "    tool: SOPS + age (MVP) → ESO + Vault (IDP phase)\n    state: desired\n",
                Box::leak(
                    format!("    tool: sealed-secrets controller\n    state: {state}\n")
                        .into_boxed_str(),
                ),
            )],
            state,
        );
        find(&run(&text, "s.yaml"), "DOC-002", "secrets").severity
    };
    assert_eq!(secrets("desired"), Info);
    assert_eq!(secrets("declared"), Severity::Error);
    // Words are matched whole: "Headscale" is not the rejected "Tailscale".
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "    tool: SOPS + age (MVP) → ESO + Vault (IDP phase)\n",
            "    tool: Headscale\n",
        )],
        "headscale",
    );
    assert!(!pairs(&run(&text, "h.yaml")).contains(&("DOC-002".to_owned(), "secrets".to_owned())));
}

/// The uniform GPU placement of the decision table ("Padronização forçada (ambos LXC ou ambos
/// VM)") is judged on the hosts' tier: a tier that forces the LXC is no standardisation, one that
/// allows a VM is, and a host without a tier (or no host modelled) leaves it unknown, which is
/// said as such at a warning, never as "allows otherwise" nor as nothing.
#[test]
fn a_uniform_gpu_placement_is_judged_on_the_hosts_tier_and_an_unknown_tier_is_said() {
    let tier = |line: &'static str| {
        let text = apply_to(
            DEFAULT_TOPOLOGY_YAML,
            &[(
                "  - id: pve-ippri-31\n    site: sp\n    proxmox_cluster: pve-sp\n    tier: tier-3\n",
                line,
            )],
            line,
        );
        run(&text, "t.yaml")
    };
    // Tier 3 ("LXC privileged só Tier 3") forces k3s-gpu-sp's LXC: no DOC-002 on it.
    let forced = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    assert!(!pairs(&forced).contains(&("DOC-002".to_owned(), "k3s-gpu-sp".to_owned())));
    // Tier 2A allows a VM: the LXC is the standardisation the table rejects.
    let allows = tier(
        "  - id: pve-ippri-31\n    site: sp\n    proxmox_cluster: pve-sp\n    tier: tier-2a\n",
    );
    let f = find(&allows, "DOC-002", "k3s-gpu-sp");
    assert_eq!(f.severity, Severity::Error);
    assert!(
        f.message
            .contains("although its hosts' tier allows otherwise")
            && f.message.contains("«Padronização forçada"),
        "{}",
        f.message
    );
    // No tier: unknown, a warning that names the host.
    let unknown = tier("  - id: pve-ippri-31\n    site: sp\n    proxmox_cluster: pve-sp\n");
    let f = find(&unknown, "DOC-002", "k3s-gpu-sp");
    assert_eq!(f.severity, Warning);
    assert!(
        f.message.contains(
            "whether its hosts' tier forces it is unknown (host pve-ippri-31 has no hardware tier)"
        ) && !f.message.contains("allows otherwise"),
        "{}",
        f.message
    );
    // No node and no candidate host: no host of it is modelled, unknown too.
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "    nodes: [gpu-sp-01]\n    node_placement: lxc_privileged\n",
            "    node_placement: lxc_privileged\n",
        )],
        "no host",
    );
    let no_host = run(&text, "n.yaml");
    let f = find(&no_host, "DOC-002", "k3s-gpu-sp");
    assert_eq!(f.severity, Warning);
    assert!(
        f.message
            .contains("whether its hosts' tier forces it is unknown (no host of it is modelled)"),
        "{}",
        f.message
    );
}

#[test]
fn a_rejected_alternative_names_what_adopts_it_or_a_rule_that_exists() {
    // Neither signals nor a rule: the loader refuses it.
    let text = apply_to(
        BASE,
        &[(
            BASE_END,
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n\nrejected:\n  - { id: r, topic: T, decision: D, alternative: A, reason: R }\n",
        )],
        "no signal",
    );
    let err = cpps_topology::load_str("r.yaml", &text).unwrap_err();
    assert!(err.render().contains("adopted_when"), "{}", err.render());
    // A rule that is not in the catalogue is a finding on the topology.
    let text = apply_to(
        BASE,
        &[(
            BASE_END,
            "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n\nrejected:\n  - { id: r, topic: T, decision: D, alternative: A, reason: R, flagged_by: PVE-999 }\n",
        )],
        "unknown rule",
    );
    let got = found(&run(&text, "u.yaml"));
    assert_eq!(
        got,
        [("DOC-002".to_owned(), "(topology)".to_owned(), Warning)]
            .into_iter()
            .collect()
    );
    // An item's `replaces` names a rejected alternative of the file.
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "    replaces: rejected-cni-alternatives\n",
            "    replaces: rejected-cni\n",
        )],
        "bad replaces",
    );
    let err = cpps_topology::load_str("b.yaml", &text).unwrap_err();
    assert!(
        err.render()
            .contains("unknown rejected alternative `rejected-cni`"),
        "{}",
        err.render()
    );
    // Ids of the documents' records are unique across the file.
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[("  - id: rejected-ceph\n", "  - id: secrets\n")],
        "duplicate id",
    );
    let err = cpps_topology::load_str("d.yaml", &text).unwrap_err();
    assert!(err.render().contains("secrets"), "{}", err.render());
}

/// A document's sentence reads the same wherever a finding quotes it. The file quotes a table
/// row as the document writes it (cells separated by a tab: `docs/seeds/004_…` «GPU placement⇥
/// Diferenciado por site: …»), and every rule shows the cells as columns, never a raw tab.
#[test]
fn a_quote_is_kept_verbatim_in_the_file_and_rendered_one_way_by_every_rule() {
    let t = cpps_topology::default_topology();
    let k = t
        .k3s_cluster(&"k3s-gpu-franca".parse().unwrap())
        .expect("k3s-gpu-franca");
    assert!(
        k.placement_claims[0]
            .quote
            .starts_with("GPU placement\tDiferenciado por site: ")
    );
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let tabbed: Vec<&str> = report
        .findings
        .iter()
        .filter(|f| f.message.contains('\t'))
        .map(|f| f.message.as_str())
        .collect();
    assert!(tabbed.is_empty(), "{tabbed:#?}");
    let f = find(&report, "GPU-002", "k3s-gpu-franca");
    assert!(
        f.message
            .contains("(«GPU placement | Diferenciado por site: SP em LXC (Tier 3 obriga); Franca em VM com Cilium (Tier 2A permite)»)"),
        "{}",
        f.message
    );
    let f = find(&report, "DOC-001", "seaweedfs-hudi");
    assert!(
        f.message
            .contains("«SeaweedFS + Hudi | ❌ Desejado | Plano em Plataforma de Dados»"),
        "{}",
        f.message
    );
}

/// Each DOC-001 finding cites the sentences of its own disagreement (its record's claims), and
/// the rule's fixed citations are the documents' rule on states, which holds for every one of
/// them: no claim of one record is printed under the finding of another.
#[test]
fn each_contradiction_cites_its_own_sentences_and_the_rule_cites_only_what_holds_for_all() {
    let t = cpps_topology::default_topology();
    let info = cpps_topology::rules::lookup("DOC-001").expect("DOC-001");
    let claims: BTreeSet<&str> = t
        .contradictions()
        .iter()
        .flat_map(|c| c.claims.iter().map(|x| x.quote.text.as_str()))
        .collect();
    for citation in info.citations {
        assert!(
            !claims
                .iter()
                .any(|q| q.contains(citation.quote) || citation.quote.contains(q)),
            "DOC-001 cites «{}», a claim of one contradiction, under all of them",
            citation.quote
        );
    }
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    for c in t.contradictions() {
        let f = report
            .findings
            .iter()
            .find(|f| {
                f.rule.as_str() == "DOC-001"
                    && f.subject.id() == c.subject
                    && c.claims.iter().all(|x| {
                        f.message
                            .contains(&format!("«{}»", x.quote.text.replace('\t', " | ")))
                    })
            })
            .unwrap_or_else(|| panic!("no DOC-001 finding quotes every claim of {}", c.id));
        for other in t.contradictions().iter().filter(|o| o.subject != c.subject) {
            for x in &other.claims {
                assert!(
                    c.claims.iter().any(|y| y.quote.text == x.quote.text)
                        || !f.message.contains(&format!("«{}»", x.quote.text)),
                    "{}'s finding quotes «{}» of {}",
                    c.id,
                    x.quote.text,
                    other.id
                );
            }
        }
    }
}

/// An item of the default's capabilities list carrying `tool`, in `state`.
fn with_capability(tool: &str, state: &str) -> String {
    let item = format!(
        "\ncapabilities:\n  - {{ id: remote-access, kind: iam, tool: \"{tool}\", state: {state}, use_case: admins reach the sites }}\n"
    );
    let text = DEFAULT_TOPOLOGY_YAML.replacen("\ncapabilities:\n", &item, 1);
    assert_ne!(text, DEFAULT_TOPOLOGY_YAML);
    text
}

/// «Octelium agora» and «CrowdSec agora» are rejected *now*; the decisions name them as their
/// own future («→ Octelium/Teleport futuro», «→ CrowdSec futuro»). A planned component with the
/// future option passes; one in service adopts the rejected alternative.
#[test]
fn the_future_option_of_a_decision_is_allowed_and_the_rejected_now_is_not() {
    for tool in ["Octelium/Teleport", "CrowdSec"] {
        let planned = run(&with_capability(tool, "desired"), "planned.yaml");
        assert!(
            finding(&planned, "DOC-002", "remote-access").is_none(),
            "{tool} planned is the decision's future option"
        );
        for state in ["declared", "validated"] {
            let now = run(&with_capability(tool, state), "now.yaml");
            let f = find(&now, "DOC-002", "remote-access");
            assert_eq!(f.severity, Severity::Error, "{tool} {state}");
            assert!(f.message.contains(" agora»"), "{}", f.message);
        }
    }
}

/// DOC-002 and MESH-003 judge Karmada on the same condition («Karmada só com escala/scheduling
/// real»; «critério: 5+ clusters»): not deferred with fewer than 5 clusters in service, DOC-002
/// reports the rejected default; with 5 it does not, and MESH-003 asks for the review.
#[test]
fn karmada_is_judged_on_the_same_criterion_by_doc_002_and_mesh_003() {
    let adopted = (
        "    kind: karmada\n    state: desired\n    deferred: true\n",
        "    kind: karmada\n    state: desired\n    use_case: federation\n",
    );
    let early = run(
        &apply_to(DEFAULT_TOPOLOGY_YAML, &[adopted], "karmada"),
        "k.yaml",
    );
    let f = find(&early, "DOC-002", "karmada");
    assert!(
        f.message
            .contains("2 K3s cluster(s) in service, the criterion is 5+"),
        "{}",
        f.message
    );
    assert!(finding(&early, "MESH-003", "karmada").is_none());
    // Three more clusters in service: five in all.
    let more = (
        "  - id: k3s-gpu-franca\n",
        "  - { id: k3s-x1, site: sp, node_placement: vm, cni: { kind: cilium, version: \"1.16\" }, purpose: general, default_deny: true, state: declared }\n  - { id: k3s-x2, site: sp, node_placement: vm, cni: { kind: cilium, version: \"1.16\" }, purpose: general, default_deny: true, state: declared }\n  - { id: k3s-x3, site: sp, node_placement: vm, cni: { kind: cilium, version: \"1.16\" }, purpose: general, default_deny: true, state: declared }\n  - id: k3s-gpu-franca\n",
    );
    let scaled = run(
        &apply_to(DEFAULT_TOPOLOGY_YAML, &[adopted, more], "karmada at scale"),
        "k5.yaml",
    );
    assert!(finding(&scaled, "DOC-002", "karmada").is_none());
    // The plan is now the criterion's own: MESH-003 only asks to review it (info), as it does
    // for a deferred Karmada at that scale.
    assert_eq!(find(&scaled, "MESH-003", "karmada").severity, Info);
    // Still deferred at that scale: MESH-003 asks to review it; DOC-002 has nothing to say.
    let deferred = run(
        &apply_to(DEFAULT_TOPOLOGY_YAML, &[more], "deferred at scale"),
        "k5d.yaml",
    );
    assert_eq!(find(&deferred, "MESH-003", "karmada").severity, Info);
    assert!(finding(&deferred, "DOC-002", "karmada").is_none());
}

/// DOC-007 against REL-002, settled: ADR-009's «K3s SP principal: workloads gerais (apps
/// stateful tipo Tutor, OpenObserve, ArgoCD SP, Authentik)» places ArgoCD SP in the Cilium
/// cluster, and the architecture's «não depende de Cilium — pode subir antes/em paralelo» is
/// about order. The default (ArgoCD SP planned in k3s-sp-main) is clean for both rules; GPU-004
/// keeps its warning on the SP GPU cluster, naming the documents' disagreement on ArgoCD SP
/// (both say ✅ «Gerenciado via ArgoCD multi-cluster», the architecture labels ArgoCD SP ❌).
#[test]
fn argocd_sp_in_the_main_cluster_is_the_plan_and_gpu_004_names_the_disagreement() {
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    assert!(finding(&report, "DOC-007", "argocd-sp").is_none());
    assert!(finding(&report, "REL-002", "argocd-sp").is_none());
    let info = cpps_topology::rules::lookup("DOC-007").unwrap();
    assert!(
        info.citations
            .iter()
            .any(|c| c.quote.contains("ArgoCD SP, Authentik"))
    );
    let f = find(&report, "GPU-004", "k3s-gpu-sp");
    assert_eq!(f.severity, Warning);
    assert!(
        f.message.contains("contradiction adr9-argocd-multicluster")
            && f.message.contains("«Gerenciado via ArgoCD multi-cluster»")
            && f.message.contains(
                "against «❌ Desejado: ArgoCD SP (não depende de Cilium — pode subir antes/em paralelo)»"
            )
            && f.message.ends_with("the file follows desired"),
        "{}",
        f.message
    );
}

/// DOC-003 on an identity provider that states no site: where it runs is unknown, so whether the
/// other site depends on the link for its logins cannot be told. That is said (at the rule's
/// severity, scaled by state), never passed; stating the site turns it into the judgement.
#[test]
fn an_identity_provider_without_a_site_is_cannot_tell_not_a_pass() {
    let unsited = (
        "  - id: observability\n",
        "  - { id: idp, kind: iam, tool: Authentik, state: validated }\n  - id: observability\n",
    );
    let got = found(&run(&apply_to(BASE, &[unsited], "unsited"), "u.yaml"));
    assert_eq!(
        got,
        [("DOC-003".to_owned(), "idp".to_owned(), Warning)]
            .into_iter()
            .collect()
    );
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let f = find(&report, "DOC-003", "iam-authentik");
    assert_eq!(f.severity, Info);
    assert!(
        f.message
            .starts_with("cannot tell whether site(s) franca, sp depend on the cross-site link")
            && f.message.contains("iam-authentik states no `site`"),
        "{}",
        f.message
    );
    let sited = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "  - id: iam-authentik\n    kind: iam\n",
            "  - id: iam-authentik\n    kind: iam\n    site: sp\n",
        )],
        "sited",
    );
    let sited = run(&sited, "s.yaml");
    let f = find(&sited, "DOC-003", "iam-authentik");
    assert!(
        f.message
            .contains("runs in site sp and site(s) franca have none of their own"),
        "{}",
        f.message
    );
}

/// The documents' disagreements on a value (ADR-009's header and decision line put the main SP
/// cluster in LXC, its next section and the architecture in VMs; one K3s cluster per site against
/// two in SP; one cluster per ArgoCD against ArgoCD SP managing both) are reported with each
/// sentence's value and the value the file follows; a record that follows a value no claim gives
/// is a warning. Without the records (the files of last round), DOC-001 said nothing of them.
#[test]
fn a_disagreement_on_a_value_is_reported_with_each_value() {
    let report = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    let on = |subject: &str, needle: &str| {
        report
            .findings
            .iter()
            .find(|f| {
                f.rule.as_str() == "DOC-001"
                    && f.subject.id() == subject
                    && f.message.contains(needle)
            })
            .unwrap_or_else(|| panic!("no DOC-001 on {subject} with «{needle}»"))
    };
    let f = on(
        "k3s-sp-main",
        "ADR-002 revisado (Cilium em LXC é o caminho CPPS)",
    );
    assert!(
        f.message.contains("000_be2f9e2558fad79c.txt says desired, `lxc_privileged`")
            && f.message.contains("004_29bfc39840ca04c0.txt says desired, `vm` («Decisão CPPS (ADR-002): Cilium roda em VMs por padrão")
            && f.message.ends_with("the file follows desired, `vm`"),
        "{}",
        f.message
    );
    on("k3s-sp-main", "«Cilium + Hubble (LXC priv.)»");
    on("gpu-sharing", "«HAMi/Device Plugin time-slicing»");
    on("sp", "`1 per site` («K3s (1 cluster por site)»)");
    on(
        "argocd-sp",
        "`1 cluster` («2 ArgoCDs independentes (1 por cluster)»)",
    );
    assert!(
        !report
            .findings
            .iter()
            .any(|f| f.rule.as_str() == "DOC-001" && f.severity == Warning),
        "every record of the default follows one of its claims"
    );
    // Following a value no claim gives is a mistake of the file.
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "    follows_value: 2 clusters\n",
            "    follows_value: 3 clusters\n",
        )],
        "bad value",
    );
    let report = run(&text, "v.yaml");
    let f = report
        .findings
        .iter()
        .find(|f| f.rule.as_str() == "DOC-001" && f.severity == Warning)
        .expect("a warning on the record");
    assert!(
        f.message
            .contains("`3 clusters`, a value none of its claims gives"),
        "{}",
        f.message
    );
}

/// Cilium planned on LXC for a main cluster without the Tier 3 exception: ADR-002, as ADR-009's
/// rejected alternative (C) cites it («Cilium não roda confiavelmente em LXC»), makes it at
/// least a warning, not a review fact. ADR-009's header and decision line say otherwise
/// (recorded), and the finding names both sides' sentences.
#[test]
fn cilium_planned_on_lxc_is_a_warning_that_names_both_sentences() {
    let text = apply_to(
        DEFAULT_TOPOLOGY_YAML,
        &[(
            "  - id: k3s-sp-main\n    site: sp\n    node_placement: vm\n",
            "  - id: k3s-sp-main\n    site: sp\n    node_placement: lxc_privileged\n",
        )],
        "main in LXC",
    );
    let report = run(&text, "lxc.yaml");
    let f = find(&report, "CNI-001", "k3s-sp-main");
    assert_eq!(f.severity, Warning);
    assert!(
        f.message.contains("«ADR-002 revisado (Cilium em LXC é o caminho CPPS)» against «Decisão CPPS (ADR-002): Cilium roda em VMs por padrão")
            && f.message.contains("«Arquitetura (A) — Clusters separados, ambos em LXC.», «Cilium + Hubble (LXC priv.)» against «Por que o cluster principal está em VM, não LXC»")
            && f.message.ends_with("and the file follows desired, `vm`"),
        "{}",
        f.message
    );
    let info = cpps_topology::rules::lookup("CNI-001").unwrap();
    assert!(
        info.citations
            .iter()
            .any(|c| c.quote.contains("Cilium não roda confiavelmente em LXC"))
    );
    // The default plans the main cluster in VMs: no CNI-001.
    assert!(
        finding(
            &run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml"),
            "CNI-001",
            "k3s-sp-main"
        )
        .is_none()
    );
}

/// A capability of the default's list with `fields` in `state`, as the edit that inserts it
/// after the `capabilities:` line.
fn capability(fields: &str, state: &str) -> (&'static str, &'static str) {
    const CAPS: &str = "\ncapabilities:\n";
    (
        CAPS,
        Box::leak(
            format!(
                "\ncapabilities:\n  - {{ id: probe, kind: iam, {fields}, state: {state}, use_case: the decision }}\n"
            )
            .into_boxed_str(),
        ),
    )
}

/// The eight decision rows: subject, the one-change edit of the default, severity and the
/// alternative the finding quotes.
fn decision_rows() -> Vec<(
    &'static str,
    (&'static str, &'static str),
    Severity,
    &'static str,
)> {
    vec![
        (
            "franca-ssd",
            (
                "    storage_pool: linstor_ssd\n    backend: linstor_drbd\n",
                "    storage_pool: linstor_ssd\n    backend: ceph\n",
            ),
            Severity::Error,
            "«Ceph»",
        ),
        (
            "argocd-franca",
            (
                "`colabhd/devops`\".\n    repo_layout: monorepo\n",
                "`colabhd/devops`\".\n    repo_layout: multi_repo\n",
            ),
            Severity::Error,
            "«Multi-repo»",
        ),
        (
            "cicd-iac",
            ("    iac_tool: pulumi\n", "    iac_tool: opentofu\n"),
            Info,
            "«Terraform/OpenTofu»",
        ),
        (
            "secrets",
            (
                "    secrets_tool: sops_age\n",
                "    secrets_tool: sealed_secrets\n",
            ),
            Info,
            "«Sealed Secrets»",
        ),
        (
            "iam-authentik",
            (
                "    remote_access: [ssh_ldap]\n",
                "    remote_access: [ssh_ldap, tailscale]\n",
            ),
            Info,
            "«Tailscale managed»",
        ),
        (
            "probe",
            capability("remote_access: [octelium]", "declared"),
            Severity::Error,
            "«Octelium agora»",
        ),
        (
            "probe",
            capability("edge_defense: [crowdsec]", "validated"),
            Severity::Error,
            "«CrowdSec agora»",
        ),
        (
            "probe",
            capability("dns_failover: cloudflare_lb", "desired"),
            Info,
            "«DNS round-robin, Cloudflare LB pago, External DNS Operator»",
        ),
    ]
}

/// The eight decision rows that only matched a word of a free-text `tool`, `provider` or
/// `role` are judged on fields of their own (a pool's `backend`, an ArgoCD's `repo_layout`, a
/// capability's `iac_tool`, `secrets_tool`, `remote_access`, `dns_failover`, `edge_defense`):
/// each flips on a one-change variant of the default, with no word written anywhere, and the
/// decided option passes.
#[test]
fn each_decision_row_is_judged_on_its_field() {
    let rows = decision_rows();
    let default = run(DEFAULT_TOPOLOGY_YAML, "cpps.yaml");
    for (subject, edit, severity, alternative) in rows {
        assert!(
            finding(&default, "DOC-002", subject).is_none(),
            "{subject} in the default"
        );
        let report = run(
            &apply_to(DEFAULT_TOPOLOGY_YAML, &[edit], subject),
            "row.yaml",
        );
        let f = find(&report, "DOC-002", subject);
        assert_eq!(f.severity, severity, "{subject}: {}", f.message);
        assert!(
            f.message.contains("states `") && f.message.contains(alternative),
            "{}",
            f.message
        );
    }
    // The decided or future options pass: Octelium/Teleport and CrowdSec planned, the
    // decided DNS failover and edge defense in production.
    for (fields, state) in [
        ("remote_access: [octelium, teleport]", "desired"),
        ("edge_defense: [crowdsec]", "desired"),
        ("dns_failover: cloudflare_tunnel", "validated"),
        (
            "edge_defense: [vyos_rules, cloudflare_proxy, fail2ban]",
            "validated",
        ),
        ("remote_access: [wireguard_vyos, headscale]", "validated"),
    ] {
        let report = run(
            &apply_to(DEFAULT_TOPOLOGY_YAML, &[capability(fields, state)], fields),
            "pass.yaml",
        );
        assert!(
            finding(&report, "DOC-002", "probe").is_none(),
            "{fields} {state}"
        );
    }
}

/// A catalogue citation of a table row keeps the document's tab and prints as the findings do
/// (DOC-002 cites the decision table's header row).
#[test]
fn a_cited_table_row_prints_as_columns() {
    let info = cpps_topology::rules::lookup("DOC-002").unwrap();
    let header = info
        .citations
        .iter()
        .find(|c| c.quote.starts_with("Tópico\t"))
        .expect("the header row");
    assert_eq!(
        header.to_string(),
        "004_29bfc39840ca04c0.txt: «Tópico | Decisão | Alternativa rejeitada | Motivo | ADR»"
    );
}
