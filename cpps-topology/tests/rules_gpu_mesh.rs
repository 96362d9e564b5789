//! The GPU, multi-cluster and GitOps rules against ADR-009's decision, its rejected
//! alternatives and its three review lists ("Critério de revisão", "Critério revisado pra reabrir
//! Cilium no GPU", "Quando o cluster GPU Franca for provisionado"), and against the
//! architecture's ArgoCD and Karmada sentences: GPU-001, GPU-004, GPU-006, GPU-007, GPU-008,
//! MESH-002, MESH-003, GITOPS-001.
//!
//! Every rule has passing and failing fixtures built from `tests/fixtures/rules/base.yaml`, each
//! yielding exactly the listed findings of every rule, counted and located in the fixture (a
//! passing one none of its own rule, most none at all), and variants of the embedded default
//! topology: one textual change that must flip the rule, with the exact findings of these rules
//! that appear and disappear. These rules are cased here only; `tests/rules.rs` cases the others.

mod common;

use common::{
    Counted, Edit, GPU_MESH_RULES as RULES, apply_to, check_default_variant, check_fixture,
    counted, counted_list, find, line_at, run,
};
use cpps_topology::load::load_str;
use cpps_topology::report::Severity;
use cpps_topology::rules;

use Severity::{Error, Info, Warning};

const BASE: &str = include_str!("fixtures/rules/base.yaml");
const DEFAULT: &str = cpps_topology::DEFAULT_TOPOLOGY_YAML;

type Expected = &'static [(&'static str, &'static str, Severity)];

/// The findings of [`RULES`] among `all`.
fn ours(all: Counted) -> Counted {
    all.into_iter()
        .filter(|((rule, _, _), _)| RULES.contains(&rule.as_str()))
        .collect()
}

/// A change of the base fixture and every finding it yields (`&[]`: none at all).
struct Fixture {
    what: &'static str,
    edits: &'static [Edit],
    expect: Expected,
}

/// A change of the default topology and the findings of [`RULES`] it adds and removes.
struct Variant {
    what: &'static str,
    edit: Edit,
    appears: Expected,
    disappears: Expected,
}

struct Case {
    rule: &'static str,
    pass: &'static [Fixture],
    fail: &'static [Fixture],
    variants: &'static [Variant],
}

/// b2 carries an A5500 (for GPU guests of beta).
const B2_GPU: Edit = (
    "  - id: b2\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n",
    "  - id: b2\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n    gpus: [{ model: A5500, count: 1 }]\n",
);

/// a2 carries an A5500 (a Tier 2A GPU host of alpha).
const A2_GPU: Edit = (
    "  - id: a2\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-2a\n",
    "  - id: a2\n    site: alpha\n    proxmox_cluster: pve-alpha\n    tier: tier-2a\n    gpus: [{ model: A5500, count: 1 }]\n",
);

/// A validated GPU cluster in beta: a GPU VM on b2 (Tier 2A), registered with ArgoCD beta.
const GPU_BETA: &[Edit] = &[
    B2_GPU,
    (
        "  - { id: pbs-b-vm,",
        "  - { id: gpu-b-1, host: b2, kind: vm, gpu: { model: A5500 }, backup: pbs-beta, state: validated }\n  - { id: pbs-b-vm,",
    ),
    (
        "  - id: gpu-alpha\n",
        "  - id: gpu-beta\n    site: beta\n    nodes: [gpu-b-1]\n    purpose: gpu\n    cni: { kind: flannel }\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: validated }\n    state: validated\n  - id: gpu-alpha\n",
    ),
    ("manages: [k3s-beta]", "manages: [k3s-beta, gpu-beta]"),
    // What the two GPU clusters share («Storage compartilhado via SeaweedFS replicado. Modelos
    // compartilhados via MLflow centralizado.»), in production.
    (
        "  - { id: webapp, layer: 8a,",
        "  - { id: shared-storage, layer: 8c, tool: SeaweedFS, role: shared_gpu_storage, state: validated }\n  - { id: registry, layer: 8b, tool: MLflow, role: model_registry, state: validated }\n  - { id: webapp, layer: 8a,",
    ),
];

/// GPU clusters in service in alpha and beta: «GPU em Franca também (justificaria ClusterMesh
/// entre 2 GPU clusters)», a GPU-006 review fact on each.
const TWO_GPU_SITES: [(&str, &str, Severity); 2] = [
    ("GPU-006", "gpu-alpha", Info),
    ("GPU-006", "gpu-beta", Info),
];

const KUEUE_BOTH: Edit = (
    "members: [gpu-alpha, k3s-beta], manager: k3s-alpha",
    "members: [gpu-alpha, k3s-beta, gpu-beta], manager: k3s-alpha",
);

/// MultiKueue would join both GPU clusters, but it is only planned.
const KUEUE_BOTH_PLANNED: Edit = (
    "members: [gpu-alpha, k3s-beta], manager: k3s-alpha, state: validated",
    "members: [gpu-alpha, k3s-beta, gpu-beta], manager: k3s-alpha, state: desired, use_case: batch across sites",
);

const APPSET_BOTH: Edit = (
    "  - { id: appset, kind: application_set, members: [k3s-alpha, k3s-beta],",
    "  - { id: appset, kind: application_set, members: [k3s-alpha, k3s-beta, gpu-alpha, gpu-beta],",
);

/// Concatenations of edit lists in a `const` (the lists are short; the copy is done once).
macro_rules! edits {
    ($($part:expr),* $(,)?) => {{
        const PARTS: &[&[Edit]] = &[$($part),*];
        const LEN: usize = {
            let mut n = 0;
            let mut i = 0;
            while i < PARTS.len() {
                n += PARTS[i].len();
                i += 1;
            }
            n
        };
        const ALL: [Edit; LEN] = {
            let mut out = [("", ""); LEN];
            let mut n = 0;
            let mut i = 0;
            while i < PARTS.len() {
                let mut j = 0;
                while j < PARTS[i].len() {
                    out[n] = PARTS[i][j];
                    n += 1;
                    j += 1;
                }
                i += 1;
            }
            out
        };
        &ALL
    }};
}

/// A desired GPU VM on b2.
const GPU_B_2_PLANNED: Edit = (
    "  - { id: pbs-b-vm,",
    "  - { id: gpu-b-2, host: b2, kind: vm, gpu: { model: A5500 }, state: desired, use_case: vLLM next to the apps }\n  - { id: pbs-b-vm,",
);

/// A desired general-purpose cluster of beta whose node is a desired GPU VM on b2.
const PLANNED_GPU_NODE_POOL: &[Edit] = &[
    B2_GPU,
    GPU_B_2_PLANNED,
    (
        "  - id: gpu-alpha\n",
        "  - { id: k3s-beta-2, site: beta, nodes: [gpu-b-2], cni: { kind: cilium, version: \"1.17.0\" }, purpose: general, default_deny: true, cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: desired }, state: desired, use_case: apps with a GPU node pool }\n  - id: gpu-alpha\n",
    ),
];

/// The same guest in a desired GPU cluster of its own: architecture (A).
const PLANNED_GPU_CLUSTER: &[Edit] = &[
    B2_GPU,
    GPU_B_2_PLANNED,
    (
        "  - id: gpu-alpha\n",
        "  - { id: gpu-beta-2, site: beta, nodes: [gpu-b-2], cni: { kind: flannel }, purpose: gpu, cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: desired }, state: desired, use_case: vLLM }\n  - id: gpu-alpha\n",
    ),
];

/// gpu-alpha records one review signal.
macro_rules! signal {
    ($signal:literal) => {
        (
            "    cni: { kind: flannel }\n    purpose: gpu\n    cert_manager:",
            concat!(
                "    cni: { kind: flannel }\n    purpose: gpu\n    review_signals: [",
                $signal,
                "]\n    cert_manager:"
            ),
        )
    };
}

/// A desired GPU cluster of alpha planned on candidate hosts, with Cilium in VMs.
macro_rules! planned_vm_cilium {
    ($extra:literal) => {
        (
            "  - id: gpu-alpha\n",
            concat!(
                "  - id: gpu-alpha-vm\n    site: alpha\n    node_placement: vm\n    candidate_hosts: [a2]\n    cni: { kind: cilium, version: \"1.17.0\" }\n    purpose: gpu\n    default_deny: true\n",
                $extra,
                "    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: desired }\n    state: desired\n    use_case: fine-tuning\n  - id: gpu-alpha\n"
            ),
        )
    };
}

/// A desired GPU cluster of alpha in a privileged LXC on the given candidate host.
macro_rules! planned_lxc_on {
    ($host:literal) => {
        (
            "  - id: gpu-alpha\n",
            concat!(
                "  - id: gpu-alpha-2\n    site: alpha\n    node_placement: lxc_privileged\n    candidate_hosts: [",
                $host,
                "]\n    cni: { kind: flannel }\n    purpose: gpu\n    cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: desired }\n    state: desired\n    use_case: OCR batch\n  - id: gpu-alpha\n"
            ),
        )
    };
}

/// ArgoCD alpha manages k3s-alpha-2 too.
const ALPHA_MANAGES_K3S_ALPHA_2: Edit = (
    "manages: [k3s-alpha, gpu-alpha]",
    "manages: [k3s-alpha, gpu-alpha, k3s-alpha-2]",
);

/// Two more clusters in service (declared, no nodes yet), each registered with its site's ArgoCD.
const TWO_MORE_CLUSTERS: &[Edit] = &[
    (
        "  - id: gpu-alpha\n",
        "  - { id: k3s-alpha-2, site: alpha, cni: { kind: flannel }, purpose: general, cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: declared }, state: declared }\n  - { id: k3s-beta-2, site: beta, cni: { kind: flannel }, purpose: general, cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: declared }, state: declared }\n  - id: gpu-alpha\n",
    ),
    ALPHA_MANAGES_K3S_ALPHA_2,
    ("manages: [k3s-beta]", "manages: [k3s-beta, k3s-beta-2]"),
];

const ONE_MORE_CLUSTER: &[Edit] = &[
    (
        "  - id: gpu-alpha\n",
        "  - { id: k3s-alpha-2, site: alpha, cni: { kind: flannel }, purpose: general, cert_manager: { dns01_cluster_issuer: true, dns01_provider: cloudflare, state: declared }, state: declared }\n  - id: gpu-alpha\n",
    ),
    ALPHA_MANAGES_K3S_ALPHA_2,
];

/// Karmada adopted (declared, no longer deferred).
const KARMADA_ADOPTED: Edit = (
    "members: [k3s-alpha, k3s-beta], state: desired, deferred: true }",
    "members: [k3s-alpha, k3s-beta], state: declared }",
);

const NO_KARMADA: Edit = (
    "  - { id: karmada, kind: karmada, members: [k3s-alpha, k3s-beta], state: desired, deferred: true }\n",
    "",
);

const CASES: &[Case] = &[
    Case {
        rule: "GPU-001",
        pass: &[
            Fixture {
                what: "the planned GPU VM in a GPU cluster of its own (A)",
                edits: PLANNED_GPU_CLUSTER,
                expect: &[],
            },
            Fixture {
                what: "a ClusterMesh of general-purpose clusters only",
                edits: &[],
                expect: &[],
            },
        ],
        fail: &[
            Fixture {
                what: "(B) in production: a validated GPU VM is a node of the Cilium cluster",
                edits: &[
                    B2_GPU,
                    (
                        "  - { id: k3s-b-1, host: b2, kind: vm,",
                        "  - { id: k3s-b-1, host: b2, kind: vm, gpu: { model: A5500 },",
                    ),
                ],
                expect: &[("GPU-001", "k3s-beta", Error)],
            },
            Fixture {
                what: "(B) planned: a warning, not lowered to info on a desired cluster",
                edits: PLANNED_GPU_NODE_POOL,
                expect: &[("GPU-001", "k3s-beta-2", Warning)],
            },
            Fixture {
                what: "(C): the GPU LXC as a node of the Cilium cluster, in production",
                edits: &[("    nodes: [k3s-a-1]\n", "    nodes: [k3s-a-1, gpu-a-1]\n")],
                // gpu-a-1 is now a privileged LXC in a Cilium cluster without exception too, and
                // a node of two clusters (gpu-alpha lists it after k3s-alpha).
                expect: &[
                    ("CNI-001", "k3s-alpha", Error),
                    ("GPU-001", "k3s-alpha", Error),
                    ("REL-001", "gpu-alpha", Error),
                ],
            },
            Fixture {
                what: "(D): a ClusterMesh joins the GPU cluster and the general-purpose ones",
                edits: &[(
                    "  - { id: mesh, kind: cluster_mesh, members: [k3s-alpha, k3s-beta],",
                    "  - { id: mesh, kind: cluster_mesh, members: [k3s-alpha, k3s-beta, gpu-alpha],",
                )],
                expect: &[("GPU-001", "mesh", Error), ("MESH-001", "mesh", Error)],
            },
        ],
        variants: &[
            Variant {
                what: "(C) planned: gpu-sp-01 as a node of the desired Cilium cluster k3s-sp-main",
                edit: (
                    "  - id: k3s-sp-main\n    site: sp\n    node_placement: vm\n",
                    "  - id: k3s-sp-main\n    site: sp\n    nodes: [gpu-sp-01]\n    node_placement: vm\n",
                ),
                appears: &[("GPU-001", "k3s-sp-main", Warning)],
                disappears: &[],
            },
            Variant {
                what: "(D) planned: the desired ClusterMesh also joins k3s-gpu-sp",
                edit: (
                    "  - id: clustermesh\n    kind: cluster_mesh\n    members: [k3s-sp-main, k3s-franca]\n",
                    "  - id: clustermesh\n    kind: cluster_mesh\n    members: [k3s-sp-main, k3s-franca, k3s-gpu-sp]\n",
                ),
                appears: &[("GPU-001", "clustermesh", Warning)],
                disappears: &[],
            },
        ],
    },
    Case {
        rule: "GPU-004",
        pass: &[Fixture {
            what: "ArgoCD alpha registers the GPU cluster",
            edits: &[],
            expect: &[],
        }],
        fail: &[Fixture {
            what: "the GPU cluster is registered with no ArgoCD",
            edits: &[("manages: [k3s-alpha, gpu-alpha]", "manages: [k3s-alpha]")],
            // Unregistered, the GPU cluster is also managed by no ArgoCD at all, and MultiKueue
            // has no kubeconfig for it.
            expect: &[
                ("GITOPS-001", "gpu-alpha", Error),
                ("GPU-004", "gpu-alpha", Warning),
                ("MESH-002", "kueue", Info),
            ],
        }],
        variants: &[Variant {
            what: "ArgoCD SP in production: k3s-gpu-sp is registered with an ArgoCD in service",
            edit: (
                "    manages: [k3s-sp-main, k3s-gpu-sp]\n    state: desired\n",
                "    manages: [k3s-sp-main, k3s-gpu-sp]\n    state: validated\n",
            ),
            appears: &[],
            disappears: &[("GPU-004", "k3s-gpu-sp", Warning)],
        }],
    },
    Case {
        rule: "GPU-006",
        pass: &[
            Fixture {
                // ADR-009's decision, architecture (A): GPU workloads in a cluster of their own.
                what: "a GPU workload in the GPU cluster",
                edits: &[(
                    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }",
                    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n  - { id: vllm, layer: 8b, site: alpha, cluster: gpu-alpha, state: validated }",
                )],
                expect: &[],
            },
            Fixture {
                what: "a GPU host in production that no GPU cluster uses is not new hardware",
                edits: &[A2_GPU],
                expect: &[],
            },
            Fixture {
                what: "new GPU hardware in a site without a GPU cluster",
                edits: &[(
                    "  - id: b3\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n",
                    "  - id: b3\n    site: beta\n    proxmox_cluster: pve-beta\n    tier: tier-2a\n    pve_version: \"9.0\"\n    linstor: { roles: [satellite], interface: ens19 }\n    state: validated\n  - { id: b4, site: beta, proxmox_cluster: pve-beta, tier: tier-2a, gpus: [{ model: A5500 }], pve_version: \"9.0\", state: declared }\n",
                )],
                expect: &[],
            },
        ],
        fail: &[
            Fixture {
                what: "Workloads GPU + apps gerais misturados: vLLM in the general-purpose cluster",
                edits: &[(
                    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }",
                    "  - { id: webapp, layer: 8a, site: alpha, cluster: k3s-alpha, state: validated }\n  - { id: vllm, layer: 8b, site: alpha, cluster: k3s-alpha, state: validated }",
                )],
                expect: &[("GPU-006", "vllm", Info)],
            },
            Fixture {
                what: "hardware GPU adicional: a declared GPU host in the site of a GPU cluster in service",
                edits: &[(
                    "  - id: b1\n",
                    "  - { id: a4, site: alpha, proxmox_cluster: pve-alpha, tier: tier-2a, gpus: [{ model: A5500, count: 2 }], pve_version: \"9.0\", state: declared }\n  - id: b1\n",
                )],
                expect: &[("GPU-006", "a4", Info)],
            },
            Fixture {
                what: "two recorded triggers",
                edits: &[signal!("two_cluster_overhead, driver_instability")],
                expect: &[
                    ("GPU-006", "gpu-alpha", Info),
                    ("GPU-006", "gpu-alpha", Info),
                ],
            },
        ],
        variants: &[
            Variant {
                what: "pve-ippri-34's A5000 is not in production yet, in the site of k3s-gpu-sp",
                edit: (
                    "    linstor: { roles: [satellite], interface: \"\" }\n    state: validated\n",
                    "    linstor: { roles: [satellite], interface: \"\" }\n    state: declared\n",
                ),
                appears: &[("GPU-006", "pve-ippri-34", Info)],
                disappears: &[],
            },
            Variant {
                what: "the team records driver instability on k3s-gpu-sp",
                edit: (
                    "    purpose: gpu\n    # The exact NVIDIA driver version",
                    "    purpose: gpu\n    review_signals: [driver_instability]\n    # The exact NVIDIA driver version",
                ),
                appears: &[("GPU-006", "k3s-gpu-sp", Info)],
                disappears: &[],
            },
            Variant {
                what: "Tutor using vLLM in its deployment: an 8b item in k3s-franca",
                edit: (
                    "  - id: llm-serving\n    layer: 8b\n",
                    "  - id: llm-serving\n    layer: 8b\n    cluster: k3s-franca\n",
                ),
                appears: &[("GPU-006", "llm-serving", Info)],
                disappears: &[],
            },
        ],
    },
    Case {
        rule: "GPU-007",
        pass: &[Fixture {
            what: "a GPU-006 trigger only is no reason to reopen Cilium",
            edits: &[signal!("two_cluster_overhead")],
            expect: &[("GPU-006", "gpu-alpha", Info)],
        }],
        fail: &[
            Fixture {
                what: "GPU bursting com pod migração",
                edits: &[signal!("pod_migration_bursting")],
                expect: &[("GPU-007", "gpu-alpha", Info)],
            },
            Fixture {
                what: "multi-tenant L7 reopens Cilium and is a formal policy requirement (GPU-006)",
                edits: &[signal!("multi_tenant_l7")],
                expect: &[
                    ("GPU-006", "gpu-alpha", Info),
                    ("GPU-007", "gpu-alpha", Info),
                ],
            },
        ],
        variants: &[Variant {
            what: "a cross-site stateful pipeline recorded on k3s-gpu-sp",
            edit: (
                "    purpose: gpu\n    # The exact NVIDIA driver version",
                "    purpose: gpu\n    review_signals: [cross_site_stateful_pipeline]\n    # The exact NVIDIA driver version",
            ),
            appears: &[("GPU-007", "k3s-gpu-sp", Info)],
            disappears: &[],
        }],
    },
    Case {
        rule: "GPU-008",
        pass: &[
            Fixture {
                what: "a planned GPU cluster on a GPU host of its site",
                edits: &[planned_lxc_on!("a1")],
                expect: &[],
            },
            Fixture {
                what: "VM + Cilium after a validated POC",
                edits: &[A2_GPU, planned_vm_cilium!("    cilium_vm_poc: validated\n")],
                expect: &[],
            },
            Fixture {
                what: "GPU clusters of two sites joined by MultiKueue and an ApplicationSet",
                edits: edits!(GPU_BETA, &[KUEUE_BOTH, APPSET_BOTH]),
                expect: &TWO_GPU_SITES,
            },
        ],
        fail: &[
            Fixture {
                what: "a candidate host without a GPU",
                edits: &[planned_lxc_on!("a2")],
                expect: &[("GPU-008", "gpu-alpha-2", Info)],
            },
            Fixture {
                what: "a candidate host of another site",
                edits: &[planned_lxc_on!("b1")],
                expect: &[("GPU-008", "gpu-alpha-2", Info)],
            },
            Fixture {
                what: "VM + Cilium without a POC",
                edits: &[A2_GPU, planned_vm_cilium!("")],
                expect: &[("GPU-008", "gpu-alpha-vm", Info)],
            },
            Fixture {
                what: "VM + Cilium with a POC that is only declared",
                edits: &[A2_GPU, planned_vm_cilium!("    cilium_vm_poc: declared\n")],
                expect: &[("GPU-008", "gpu-alpha-vm", Info)],
            },
            Fixture {
                what: "MultiKueue joins both GPU clusters, no ApplicationSet does",
                edits: edits!(GPU_BETA, &[KUEUE_BOTH]),
                expect: &[
                    TWO_GPU_SITES[0],
                    TWO_GPU_SITES[1],
                    ("GPU-008", "gpu-alpha", Warning),
                    ("GPU-008", "gpu-beta", Warning),
                ],
            },
            Fixture {
                // The pattern's state counts: a MultiKueue only desired links nothing in service.
                what: "an ApplicationSet joins both GPU clusters, MultiKueue only in the plan",
                edits: edits!(GPU_BETA, &[KUEUE_BOTH_PLANNED, APPSET_BOTH]),
                expect: &[
                    TWO_GPU_SITES[0],
                    TWO_GPU_SITES[1],
                    ("GPU-008", "gpu-alpha", Warning),
                    ("GPU-008", "gpu-beta", Warning),
                ],
            },
            Fixture {
                what: "neither MultiKueue nor an ApplicationSet joins the GPU clusters",
                edits: GPU_BETA,
                expect: &[
                    TWO_GPU_SITES[0],
                    TWO_GPU_SITES[1],
                    ("GPU-008", "gpu-alpha", Warning),
                    ("GPU-008", "gpu-alpha", Warning),
                    ("GPU-008", "gpu-beta", Warning),
                    ("GPU-008", "gpu-beta", Warning),
                ],
            },
        ],
        variants: &[
            Variant {
                what: "the Franca GPU cluster is provisioned: MultiKueue joins it only in the plan, no ApplicationSet does, shared storage and models are only planned",
                edit: (
                    "    state: desired\n    note: >-\n      ❌ Hardware presente",
                    "    state: declared\n    note: >-\n      ❌ Hardware presente",
                ),
                appears: &[
                    ("GPU-006", "k3s-gpu-franca", Info),
                    ("GPU-006", "k3s-gpu-sp", Info),
                    ("GPU-008", "k3s-gpu-franca", Warning),
                    ("GPU-008", "k3s-gpu-franca", Warning),
                    ("GPU-008", "k3s-gpu-franca", Warning),
                    ("GPU-008", "k3s-gpu-sp", Warning),
                    ("GPU-008", "k3s-gpu-sp", Warning),
                    ("GPU-008", "k3s-gpu-sp", Warning),
                ],
                disappears: &[],
            },
            Variant {
                what: "the Franca GPU cluster planned as VM + Cilium, without a POC",
                edit: (
                    "    node_placement: lxc_privileged\n    candidate_hosts: [pve-labri-31, pve-labri-32, pve-labri-33]\n    cni: { kind: flannel }\n",
                    "    node_placement: vm\n    candidate_hosts: [pve-labri-31, pve-labri-32, pve-labri-33]\n    cni: { kind: cilium, version: \"1.16\" }\n",
                ),
                appears: &[("GPU-008", "k3s-gpu-franca", Info)],
                disappears: &[],
            },
            Variant {
                what: "a Franca candidate host without a GPU",
                edit: (
                    "candidate_hosts: [pve-labri-31, pve-labri-32, pve-labri-33]",
                    "candidate_hosts: [pve-labri-31, pve-labri-32, pve-labri-unnamed-1]",
                ),
                appears: &[("GPU-008", "k3s-gpu-franca", Info)],
                disappears: &[],
            },
        ],
    },
    Case {
        rule: "MESH-002",
        pass: &[
            Fixture {
                what: "a manager and registered workers, no ClusterMesh needed",
                edits: &[(
                    "  - { id: mesh, kind: cluster_mesh, members: [k3s-alpha, k3s-beta], state: validated }\n",
                    "",
                )],
                expect: &[],
            },
            Fixture {
                // The manager reaches the others; it needs no kubeconfig of its own.
                what: "an unregistered manager is GITOPS-001's, not MESH-002's",
                edits: &[("manages: [k3s-alpha, gpu-alpha]", "manages: [gpu-alpha]")],
                expect: &[("GITOPS-001", "k3s-alpha", Error)],
            },
        ],
        fail: &[
            Fixture {
                what: "no manager",
                edits: &[(
                    "members: [gpu-alpha, k3s-beta], manager: k3s-alpha,",
                    "members: [gpu-alpha, k3s-beta],",
                )],
                expect: &[("MESH-002", "kueue", Info)],
            },
            Fixture {
                what: "a worker with no kubeconfig (registered with no ArgoCD)",
                edits: &[("manages: [k3s-beta]", "manages: []")],
                expect: &[
                    ("GITOPS-001", "k3s-beta", Error),
                    ("MESH-002", "kueue", Info),
                ],
            },
        ],
        variants: &[Variant {
            what: "the MultiKueue of the GPU clusters names k3s-gpu-sp as its manager",
            edit: (
                "    members: [k3s-gpu-sp, k3s-gpu-franca]\n",
                "    members: [k3s-gpu-sp, k3s-gpu-franca]\n    manager: k3s-gpu-sp\n",
            ),
            appears: &[],
            disappears: &[("MESH-002", "multikueue", Info)],
        }],
    },
    Case {
        rule: "MESH-003",
        pass: &[
            Fixture {
                what: "4 clusters in service, Karmada deferred",
                edits: ONE_MORE_CLUSTER,
                expect: &[],
            },
            Fixture {
                what: "5 clusters in service, Karmada adopted",
                edits: edits!(TWO_MORE_CLUSTERS, &[KARMADA_ADOPTED]),
                expect: &[],
            },
        ],
        fail: &[
            Fixture {
                what: "Karmada adopted with 3 clusters",
                edits: &[KARMADA_ADOPTED],
                expect: &[("MESH-003", "karmada", Warning)],
            },
            Fixture {
                what: "5 clusters in service and Karmada still deferred: the criterion is reached",
                edits: TWO_MORE_CLUSTERS,
                expect: &[("MESH-003", "karmada", Info)],
            },
            Fixture {
                what: "5 clusters in service and no Karmada at all",
                edits: edits!(TWO_MORE_CLUSTERS, &[NO_KARMADA]),
                expect: &[("MESH-003", "gpu-alpha", Info)],
            },
        ],
        variants: &[
            Variant {
                what: "Karmada declared with 2 clusters in service",
                edit: (
                    "    kind: karmada\n    state: desired\n    deferred: true\n",
                    "    kind: karmada\n    state: declared\n",
                ),
                appears: &[("MESH-003", "karmada", Warning)],
                disappears: &[],
            },
            Variant {
                what: "three more SP clusters in IaC (5 in service), none registered yet",
                edit: (
                    "# Camada 6. \"2 ArgoCDs",
                    "  - { id: k3s-sp-lab-1, site: sp, cni: { kind: flannel }, purpose: general, state: declared }\n  - { id: k3s-sp-lab-2, site: sp, cni: { kind: flannel }, purpose: general, state: declared }\n  - { id: k3s-sp-lab-3, site: sp, cni: { kind: flannel }, purpose: general, state: declared }\n\n# Camada 6. \"2 ArgoCDs",
                ),
                appears: &[
                    ("MESH-003", "karmada", Info),
                    ("GITOPS-001", "k3s-sp-lab-1", Error),
                    ("GITOPS-001", "k3s-sp-lab-2", Error),
                    ("GITOPS-001", "k3s-sp-lab-3", Error),
                ],
                disappears: &[],
            },
        ],
    },
    Case {
        rule: "GITOPS-001",
        pass: &[Fixture {
            what: "one ArgoCD of alpha manages two clusters of alpha",
            edits: &[],
            expect: &[],
        }],
        fail: &[
            Fixture {
                what: "beta has clusters and no ArgoCD",
                edits: &[(
                    "  - { id: argocd-beta, site: beta, runs_in: k3s-beta, manages: [k3s-beta], state: validated }\n",
                    "",
                )],
                expect: &[
                    ("GITOPS-001", "beta", Error),
                    ("GITOPS-001", "k3s-beta", Error),
                    ("MESH-002", "kueue", Info),
                ],
            },
            Fixture {
                what: "an ArgoCD manages a cluster of the other site",
                edits: &[("manages: [k3s-beta]", "manages: [k3s-beta, k3s-alpha]")],
                expect: &[
                    ("GITOPS-001", "argocd-beta", Error),
                    ("GITOPS-001", "k3s-alpha", Error),
                ],
            },
        ],
        variants: &[Variant {
            what: "ArgoCD SP placed in Franca: SP has clusters and no ArgoCD",
            edit: (
                "  - id: argocd-sp\n    site: sp\n",
                "  - id: argocd-sp\n    site: franca\n",
            ),
            appears: &[
                ("GITOPS-001", "sp", Error),
                ("GITOPS-001", "argocd-sp", Info),
                ("GITOPS-001", "argocd-sp", Info),
            ],
            disappears: &[],
        }],
    },
];

#[test]
fn every_rule_passes_fails_and_follows_variants_of_the_default_topology() {
    let default = counted(&run(DEFAULT, "cpps.yaml"));
    let mut failures = Vec::new();
    for case in CASES {
        for (which, fixtures) in [("pass", case.pass), ("fail", case.fail)] {
            for fixture in fixtures {
                let what = format!("{} {which}: {}", case.rule, fixture.what);
                check_fixture(&what, (BASE, fixture.edits), fixture.expect, &mut failures);
                let fires = fixture.expect.iter().any(|(r, _, _)| *r == case.rule);
                if which == "fail" && !fires {
                    failures.push(format!("{what}: a failing fixture must fire the rule"));
                }
                if which == "pass" && fires {
                    failures.push(format!("{what}: a passing fixture must not fire the rule"));
                }
            }
        }
        assert!(!case.pass.is_empty() && !case.fail.is_empty() && !case.variants.is_empty());
        for v in case.variants {
            let what = format!("{} variant: {}", case.rule, v.what);
            check_default_variant(
                &what,
                v.edit,
                v.appears,
                v.disappears,
                (&default, &|rule| RULES.contains(&rule)),
                &mut failures,
            );
            if !v
                .appears
                .iter()
                .chain(v.disappears)
                .any(|(r, _, _)| *r == case.rule)
            {
                failures.push(format!("{what}: the variant must flip the rule itself"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_rule_of_this_file_has_a_case() {
    let cased: Vec<&str> = CASES.iter().map(|c| c.rule).collect();
    assert_eq!(cased, RULES);
    // `tests/rules.rs` leaves these rules out of its "every static rule has a case" check, so
    // this file checks that each one is a static rule (its fixtures are checked without a live
    // source).
    for rule in RULES {
        let info = rules::lookup(rule).unwrap_or_else(|| panic!("{rule} is not in the catalogue"));
        assert!(info.kind.has_static_part(), "{rule} has no static part");
    }
}

#[test]
fn the_default_topology_yields_these_findings_of_these_rules() {
    // The SP GPU cluster runs while ArgoCD SP is only desired (GPU-004); the MultiKueue of the
    // two GPU clusters does not say which one is its manager (MESH-002). Nothing else: the
    // Franca GPU cluster is still a plan that follows ADR-009, and no review trigger holds
    // ("Hoje, nenhum desses sinais existe").
    let got = ours(counted(&run(DEFAULT, "cpps.yaml")));
    let want = counted_list(&[
        ("GPU-004", "k3s-gpu-sp", Warning),
        ("MESH-002", "multikueue", Info),
    ]);
    assert_eq!(got, want);
}

#[test]
fn review_signals_name_their_trigger_and_rule() {
    // Each recorded signal gives its rule's finding, quoting the document's trigger.
    let cases: &[(Edit, &[(&str, &str)])] = &[
        (
            signal!("two_cluster_overhead"),
            &[("GPU-006", "Gestão de 2 clusters virar maior overhead")],
        ),
        (
            signal!("mixed_workloads"),
            &[("GPU-006", "Workloads GPU + apps gerais misturados")],
        ),
        (
            signal!("cilium_policy_required"),
            &[("GPU-006", "Cilium NetworkPolicy virar requisito formal")],
        ),
        (
            signal!("driver_instability"),
            &[("GPU-006", "Driver NVIDIA + LXC mostrarem instabilidade")],
        ),
        (
            signal!("additional_gpu_hardware"),
            &[("GPU-006", "Aparecer hardware GPU adicional")],
        ),
        (
            signal!("cross_site_stateful_pipeline"),
            &[("GPU-007", "Pipeline stateful distribuído cross-site")],
        ),
        (
            signal!("l7_compliance"),
            &[
                ("GPU-006", "Cilium NetworkPolicy virar requisito formal"),
                ("GPU-007", "Compliance L7 formal"),
            ],
        ),
        (
            signal!("multi_tenant_l7"),
            &[
                ("GPU-006", "Cilium NetworkPolicy virar requisito formal"),
                ("GPU-007", "Multi-tenant GPU estrito com L7 NetworkPolicy"),
            ],
        ),
        (
            signal!("pod_migration_bursting"),
            &[("GPU-007", "GPU bursting com pod migração")],
        ),
    ];
    for (edit, want) in cases {
        let text = apply_to(BASE, &[*edit], edit.1);
        let report = run(&text, "signals.yaml");
        let mine: Vec<_> = report
            .findings
            .iter()
            .filter(|f| RULES.contains(&f.rule.as_str()))
            .collect();
        let got: Vec<(&str, &str)> = mine
            .iter()
            .map(|f| (f.rule.as_str(), f.message.as_str()))
            .collect();
        assert_eq!(got.len(), want.len(), "{}: {got:?}", edit.1);
        for (rule, quote) in *want {
            assert!(
                got.iter().any(|(r, m)| r == rule && m.contains(quote)),
                "{}: no {rule} quoting «{quote}» in {got:?}",
                edit.1
            );
        }
        for f in mine {
            assert_eq!(f.severity, Info);
            let line = line_at(&text, f);
            assert!(line.contains("review_signals"), "{line}");
        }
    }
}

#[test]
fn an_unknown_review_signal_is_a_located_error() {
    let text = apply_to(BASE, &[signal!("gpu_em_franca")], "unknown signal");
    let err = load_str("bad.yaml", &text).expect_err("an unknown signal is refused");
    let rendered = err.render();
    assert!(rendered.contains("gpu_em_franca"), "{rendered}");
    assert!(rendered.contains("bad.yaml:"), "{rendered}");
}

#[test]
fn gitops_001_quotes_one_argocd_per_site_and_gpu_006_quotes_its_review_criterion() {
    let gitops = rules::lookup("GITOPS-001").unwrap();
    let quotes: Vec<&str> = gitops.citations.iter().map(|c| c.quote).collect();
    assert!(
        quotes.iter().all(|q| !q.contains("1 por cluster")),
        "{quotes:?}"
    );
    assert!(
        quotes.iter().any(|q| q.contains("Autonomia por site")),
        "{quotes:?}"
    );
    assert!(
        quotes
            .iter()
            .any(|q| q.contains("ArgoCD SP gerencia ambos")),
        "{quotes:?}"
    );
    // GPU-006: the heading and the five triggers of "Critério de revisão", then the heading of
    // "relevantes se" and the two of its conditions only GPU-006 reads (the team's catalogue
    // lists "GPU clusters in 2 sites" and "50+ cross-site workloads" among its triggers).
    let gpu6 = rules::lookup("GPU-006").unwrap();
    assert_eq!(gpu6.citations.len(), 9);
    assert!(
        gpu6.citations[6]
            .quote
            .starts_with("As features Cilium perdidas")
    );
    assert!(
        gpu6.citations[0]
            .quote
            .starts_with("Mudar pra arquitetura (B)")
    );
    let adr = include_str!("../docs/seeds/000_be2f9e2558fad79c.txt");
    let section =
        &adr[adr.find("Critério de revisão").unwrap()..adr.find("Notas operacionais").unwrap()];
    for c in &gpu6.citations[..6] {
        assert!(
            section.contains(c.quote),
            "«{}» is not in Critério de revisão",
            c.quote
        );
    }
    let relevant = &adr[adr.find("As features Cilium perdidas").unwrap()
        ..adr.find("Hoje nenhum desses sinais existe").unwrap()];
    for c in &gpu6.citations[6..] {
        assert!(
            relevant.contains(c.quote),
            "«{}» is not in «relevantes se»",
            c.quote
        );
    }
    // GPU-007: the four items of "Critério revisado pra reabrir Cilium no GPU", then the
    // decision's own condition for adding Cilium to the GPU cluster ("Adicionar quando
    // ClusterMesh entre os 2 clusters virar útil (bursting, MultiKueue avançado, Hubble
    // unificado)").
    let gpu7 = rules::lookup("GPU-007").unwrap();
    let section = &adr[adr
        .find("Critério revisado pra reabrir Cilium no GPU")
        .unwrap()..adr.find("Quando o cluster GPU Franca").unwrap()];
    assert_eq!(gpu7.citations.len(), 6);
    assert!(adr.contains(gpu7.citations[5].quote));
    assert!(
        gpu7.citations[5]
            .quote
            .starts_with("Adicionar quando ClusterMesh")
    );
    for c in &gpu7.citations[..5] {
        assert!(
            section.contains(c.quote),
            "«{}» is not in Critério revisado",
            c.quote
        );
    }
    // GPU-008: "Quando o cluster GPU Franca for provisionado".
    let gpu8 = rules::lookup("GPU-008").unwrap();
    let section = &adr[adr
        .find("Quando o cluster GPU Franca for provisionado")
        .unwrap()..adr.find("Alternativas rejeitadas").unwrap()];
    for c in gpu8.citations {
        assert!(
            section.contains(c.quote),
            "«{}» is not in the Franca section",
            c.quote
        );
    }
}

#[test]
fn a_finding_on_a_planned_gpu_cluster_points_at_the_field() {
    let text = apply_to(BASE, &[planned_lxc_on!("a2")], "candidate");
    let report = run(&text, "candidate.yaml");
    let f = report
        .findings
        .iter()
        .find(|f| f.rule.as_str() == "GPU-008")
        .expect("a GPU-008 finding");
    assert!(f.message.contains("has no GPU"), "{}", f.message);
    let line = line_at(&text, f);
    assert!(line.contains("candidate_hosts: [a2]"), "{line}");
}

/// MESH-002's fix says what MultiKueue actually reads. Kueue takes a worker's kubeconfig from a
/// Secret in its own namespace under the key `kubeconfig` (kubernetes-sigs/kueue
/// `apis/kueue/v1beta1/multikueue_types.go` and `v1beta2`: `MultiKueueConfigSecretKey =
/// "kubeconfig"`, `KubeConfig{location, locationType: Secret}`, v1beta2 `ClusterSource`;
/// `pkg/controller/admissionchecks/multikueue/multikueuecluster.go` `getKubeConfigFromSecret`
/// reads it in `configNamespace`, default `kueue-system` in `apis/config/v1beta2/defaults.go`).
/// `argocd cluster add` writes Argo CD's own cluster Secret, which Kueue does not read, so it
/// must not be given as what provides the kubeconfig.
#[test]
fn mesh_002_says_which_secret_multikueue_reads() {
    let fix = rules::lookup("MESH-002").unwrap().remediation;
    assert!(
        fix.contains("Secret whose key `kubeconfig`")
            && fix.contains("Kueue namespace (kueue-system by default)")
            && fix.contains("MultiKueueCluster")
            && fix.contains("locationType: Secret")
            && fix.contains("clusterSource"),
        "{fix}"
    );
    assert!(
        !fix.contains("which gives the manager its kubeconfig"),
        "{fix}"
    );
    assert!(
        fix.contains("does not give MultiKueue its kubeconfig"),
        "{fix}"
    );
}

/// The review criteria that were not modelled, each on a variant of the default: «50+
/// workloads cross-site se descobrindo entre si» (GPU-006, recorded), «Adicionar quando
/// ClusterMesh entre os 2 clusters virar útil (bursting, MultiKueue avançado, Hubble unificado)»
/// (GPU-007, recorded), «Comunicação com cluster Franca principal via Traefik HTTP» (GPU-008: a
/// GPU cluster in service needs its site's Traefik as mature), and «Storage compartilhado via
/// SeaweedFS replicado. Modelos compartilhados via MLflow centralizado.» (GPU-008: items with
/// those roles as mature as the GPU clusters).
#[test]
fn the_remaining_review_criteria_are_reported() {
    let signals = |list: &'static str| {
        let edit: Edit = (
            "    nodes: [gpu-sp-01]\n",
            Box::leak(
                format!("    nodes: [gpu-sp-01]\n    review_signals: [{list}]\n").into_boxed_str(),
            ),
        );
        run(&apply_to(DEFAULT, &[edit], list), "signals.yaml")
    };
    let r = signals("fifty_cross_site_workloads");
    let f = find(&r, "GPU-006", "k3s-gpu-sp");
    assert!(
        f.message
            .contains("«50+ workloads cross-site se descobrindo entre si»"),
        "{}",
        f.message
    );
    for signal in ["advanced_multi_kueue", "unified_hubble"] {
        let r = signals(signal);
        let f = find(&r, "GPU-007", "k3s-gpu-sp");
        assert!(
            f.message.contains("MultiKueue avançado, Hubble unificado"),
            "{}",
            f.message
        );
    }
    // Traefik SP only declared while the SP GPU cluster is validated.
    let text = apply_to(
        DEFAULT,
        &[(
            "    ha_state: declared\n    on_boot: true\n    state: validated\n",
            "    ha_state: declared\n    on_boot: true\n    state: declared\n",
        )],
        "traefik declared",
    );
    let r = run(&text, "traefik.yaml");
    let f = r
        .findings
        .iter()
        .find(|f| f.rule.as_str() == "GPU-008" && f.message.contains("Traefik HTTP"))
        .expect("GPU-008 on the Traefik of the GPU cluster's site");
    assert_eq!(f.subject.id(), "k3s-gpu-sp");
    assert!(
        f.message.contains("site sp has only declared"),
        "{}",
        f.message
    );
    // Both GPU clusters in service: shared storage and models are only planned (a finding on
    // each); in service too, the finding goes.
    let franca: Edit = (
        "    state: desired\n    note: >-\n      ❌ Hardware presente",
        "    state: declared\n    note: >-\n      ❌ Hardware presente",
    );
    let shared = |r: &cpps_topology::report::Report, k: &str| {
        r.findings.iter().any(|f| {
            f.rule.as_str() == "GPU-008"
                && f.subject.id() == k
                && f.message.contains("SeaweedFS replicado")
        })
    };
    let r = run(&apply_to(DEFAULT, &[franca], "franca"), "franca.yaml");
    assert!(shared(&r, "k3s-gpu-sp") && shared(&r, "k3s-gpu-franca"));
    let in_service = [
        franca,
        (
            "    role: model_registry\n    state: desired\n",
            "    role: model_registry\n    state: validated\n",
        ),
        (
            "    role: shared_gpu_storage\n    state: desired\n",
            "    role: shared_gpu_storage\n    state: validated\n",
        ),
    ];
    let r = run(&apply_to(DEFAULT, &in_service, "shared"), "shared.yaml");
    assert!(!shared(&r, "k3s-gpu-sp") && !shared(&r, "k3s-gpu-franca"));
}
