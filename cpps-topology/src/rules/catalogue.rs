//! The rule catalogue: every ADR invariant, with its id, severity, kind, citation and remediation.
//!
//! The ids are the ones of `adr-invariants.md`; users write suppressions against them, so an id
//! never changes meaning once published. Every quote is copied verbatim from the source document
//! (a test checks each one against the document).

use super::{Citation, Document, RuleId, RuleInfo, RuleKind};
use crate::finding::Severity;

const ARCH: Document = Document::Architecture;
const ADR9: Document = Document::Adr009;

const fn cite(document: Document, quote: &'static str) -> Citation {
    Citation { document, quote }
}

/// Every rule, in the order of `adr-invariants.md`.
pub(super) static CATALOGUE: &[RuleInfo] = &[
    RuleInfo {
        id: RuleId("STATE-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "every component carries one state, no more mature than what it stands on",
        citations: &[cite(
            ARCH,
            "Toda afirmação sobre a infra deve cair em uma destas categorias. Misturar os três é o erro mais comum.",
        )],
        remediation: "give the component the state of the least mature component it runs on, or validate that one first",
    },
    RuleInfo {
        id: RuleId("STATE-002"),
        severity: Severity::Error,
        kind: RuleKind::Live,
        title: "a validated component is observed live as declared",
        citations: &[cite(ARCH, "Funciona hoje, com tráfego/dados reais")],
        remediation: "fix the drift on the live system, or lower the component's state to `declared`",
    },
    RuleInfo {
        id: RuleId("STATE-003"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "a property declared in IaC is realized on the live system",
        citations: &[cite(
            ARCH,
            "`traefik-sp` com `ha: True` no config (Pulumi não cria HA real ainda)",
        )],
        remediation: "apply the property on the live system (e.g. create the Proxmox HA resource) or mark it as declared only",
    },
    RuleInfo {
        id: RuleId("SITE-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "nothing essential of a site depends on a component of another site",
        citations: &[cite(
            ARCH,
            "Autonomia por site — cada site sobrevive a partição de rede; nada essencial depende de link cross-site",
        )],
        remediation: "run the essential service (ingress, router, GitOps, storage controller, backup) inside the site it serves",
    },
    RuleInfo {
        id: RuleId("PVE-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a Proxmox cluster's hosts are all in one site",
        citations: &[cite(
            ARCH,
            "cluster Proxmox cross-site rejeitado (latência incompatível com pmxcfs)",
        )],
        remediation: "split the cluster into one Proxmox cluster per site",
    },
    RuleInfo {
        id: RuleId("PVE-002"),
        severity: Severity::Warning,
        kind: RuleKind::StaticAndLive,
        title: "the hosts of one Proxmox cluster run the same major PVE version",
        citations: &[cite(ARCH, "Upgrade PVE 8.4 → 9.x dos nodes restantes")],
        remediation: "upgrade the remaining hosts to the cluster's newest major version",
    },
    RuleInfo {
        id: RuleId("PVE-003"),
        severity: Severity::Warning,
        kind: RuleKind::StaticAndLive,
        title: "a guest declared HA is a real Proxmox HA resource, not just on_boot",
        citations: &[
            cite(
                ARCH,
                "traefik-sp tem ha: True no Pulumi config, mas o Pulumi não cria recurso HA Proxmox real — apenas VM normal com on_boot=True",
            ),
            cite(
                ARCH,
                "HA configurado via Proxmox (declarado mas não implementado em VMs como traefik-sp)",
            ),
        ],
        remediation: "create the Proxmox HA resource (ha-manager add) for the guest and mark its HA as validated",
    },
    RuleInfo {
        id: RuleId("LINSTOR-001"),
        severity: Severity::Error,
        kind: RuleKind::StaticAndLive,
        title: "every satellite of a LINSTOR pool has a non-empty replication interface",
        citations: &[
            cite(
                ARCH,
                "Corrigir linstor_interface vazio em pve-ippri-34 antes de qualquer outro tuning",
            ),
            cite(
                ARCH,
                "pve-ippri-34 tem linstor_interface: \"\" (precisa correção antes de usar)",
            ),
        ],
        remediation: "set the host's LINSTOR replication interface (linstor_interface) to the storage network's interface",
    },
    RuleInfo {
        id: RuleId("LINSTOR-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "production pools keep 3 replicas (place_count >= 3), raised only after LINSTOR-001 is fixed in the site",
        citations: &[cite(
            ARCH,
            "place_count: 3 no SP SSD (hoje 2 — perda de 1 node = degradação) — só após correção do pve-ippri-34",
        )],
        remediation: "raise place_count to 3, after every satellite of the site has a replication interface (LINSTOR-001)",
    },
    RuleInfo {
        id: RuleId("LINSTOR-003"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "place_count is at most the number of diskful nodes of the pool",
        citations: &[cite(
            ARCH,
            "place_count: 3 no SP SSD (hoje 2 — perda de 1 node = degradação) — só após correção do pve-ippri-34",
        )],
        remediation: "add diskful nodes to the pool or lower place_count to the number of diskful nodes",
    },
    RuleInfo {
        id: RuleId("LINSTOR-004"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a LINSTOR pool's diskful nodes are in one site (replication is intra-site; a diskless tie-breaker may be elsewhere)",
        citations: &[cite(ARCH, "Papel: block storage replicado, intra-site.")],
        remediation: "keep each pool inside one site; cross-site protection is PBS sync, not DRBD",
    },
    RuleInfo {
        id: RuleId("LINSTOR-005"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a site with LINSTOR has a controller, with HA (VIP/VRRP or primary + standby)",
        citations: &[cite(ARCH, "controller HA via VRRP (VIP 10.10.20.1 em SP)")],
        remediation: "declare the site's LINSTOR controller and give it a VIP (VRRP) or a standby controller",
    },
    RuleInfo {
        id: RuleId("LINSTOR-006"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a pool with 2 replicas has a tie-breaker (witness) in a third site",
        citations: &[cite(
            ARCH,
            "Witness/tie-breaker em terceiro site (cloud VM ou outro campus) pra eliminar split-brain de minoria",
        )],
        remediation: "add a diskless tie-breaker node on a host of another site (a cloud VM or another campus), or raise place_count to 3",
    },
    RuleInfo {
        id: RuleId("LINSTOR-007"),
        severity: Severity::Error,
        kind: RuleKind::Live,
        title: "no LINSTOR resource is degraded or desynced",
        citations: &[cite(
            ARCH,
            "Pelo menos 5 alertas básicos: node down, LINSTOR degraded, DRBD desync, ArgoCD out-of-sync, cert expirando",
        )],
        remediation: "restore the missing replicas (linstor resource create / drbdadm adjust) before any other change",
    },
    RuleInfo {
        id: RuleId("BACKUP-001"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "every site has a local PBS",
        citations: &[cite(ARCH, "Backup é prioridade MVP, não defer")],
        remediation: "deploy a PBS server (a dedicated VM) in the site and declare it in the topology",
    },
    RuleInfo {
        id: RuleId("BACKUP-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "each site's PBS syncs to another site's PBS over a cross-site link",
        citations: &[cite(
            ARCH,
            "PBS remoto cross-site — disaster recovery, retenção longa, sync via WireGuard",
        )],
        remediation: "add a sync job to a PBS of another site, over the WireGuard link between the sites",
    },
    RuleInfo {
        id: RuleId("BACKUP-003"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "every validated guest has a recent, verified backup within its RPO",
        citations: &[cite(
            ARCH,
            "PBS local — retenção média (semanas/meses), restore granular VM-level e por arquivo",
        )],
        remediation: "schedule a PBS backup job with verification for the guest",
    },
    RuleInfo {
        id: RuleId("BACKUP-004"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "PBS datastores declare encryption at rest",
        citations: &[cite(ARCH, "Encryption-at-rest + key management")],
        remediation: "enable client-side encryption for the datastore's backups and record where the key is kept",
    },
    RuleInfo {
        id: RuleId("HADR-001"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a component protected by replication or HA (a guest, a Traefik) also has a backup (DR)",
        citations: &[cite(
            ARCH,
            "Distinguir HA de DR — replicação síncrona (LINSTOR) protege contra falha de hardware; backup (PBS) protege contra erro lógico/desastre",
        )],
        remediation: "add the guest (for a Traefik: the guest it runs in) to a PBS backup job of its site",
    },
    RuleInfo {
        id: RuleId("NET-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "exactly one VyOS router per site (plus its VRRP peer)",
        citations: &[cite(ARCH, "VyOS (1 router por site)")],
        remediation: "declare one router for the site; a second router is only its VRRP peer",
    },
    RuleInfo {
        id: RuleId("NET-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a router without a VRRP peer is a single point of failure",
        citations: &[cite(ARCH, "VRRP HA pra VyOS (single-node hoje)")],
        remediation: "add a second VyOS router as VRRP peer",
    },
    RuleInfo {
        id: RuleId("NET-003"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a cross-site dependency has a WireGuard link between the two sites, at least as mature",
        citations: &[
            cite(ARCH, "WireGuard SP↔Franca configurado"),
            cite(
                ADR9,
                "Não exige que pods se descubram entre si — exige acesso ao API server cross-cluster",
            ),
        ],
        remediation: "declare (and validate) the WireGuard link between the two sites before the dependency",
    },
    RuleInfo {
        id: RuleId("INGRESS-001"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "one Traefik per site",
        citations: &[cite(ARCH, "Traefik (1 por site)")],
        remediation: "declare exactly one Traefik instance for the site",
    },
    RuleInfo {
        id: RuleId("INGRESS-002"),
        severity: Severity::Warning,
        kind: RuleKind::StaticAndLive,
        title: "each cluster has cert-manager with a DNS-01 ClusterIssuer",
        citations: &[
            cite(ARCH, "cert-manager instalado nos 2 clusters"),
            cite(ARCH, "ClusterIssuer com DNS-01 Cloudflare"),
        ],
        remediation: "install cert-manager in the cluster with a ClusterIssuer using the Cloudflare DNS-01 solver",
    },
    RuleInfo {
        id: RuleId("CNI-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "Cilium runs on VM nodes; LXC nodes only privileged on a Tier 3 host",
        citations: &[cite(
            ARCH,
            "Cilium roda em VMs por padrão (caminho documentado upstream). LXC privileged é exceção apenas pra hosts Tier 3 (sem iGPU, NVIDIA disputada entre display + workload — pve-ippri-31/33).",
        )],
        remediation: "run the cluster's nodes as VMs, or drop Cilium from the cluster",
    },
    RuleInfo {
        id: RuleId("CNI-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "Cilium version is at least 1.16",
        citations: &[cite(ARCH, "Cilium 1.16+")],
        remediation: "upgrade Cilium to 1.16 or later",
    },
    RuleInfo {
        id: RuleId("CNI-003"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a Cilium cluster declares NetworkPolicy default-deny",
        citations: &[cite(ARCH, "NetworkPolicy default-deny")],
        remediation: "add a default-deny NetworkPolicy to every namespace of the cluster",
    },
    RuleInfo {
        id: RuleId("GPU-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "GPU nodes never join a general-purpose cluster",
        citations: &[
            cite(ADR9, "Arquitetura (A) — Clusters separados, ambos em LXC."),
            cite(
                ADR9,
                "Forçaria gpu-sp-01 a rodar Cilium → exigiria migrar LXC pra VM (ADR-005 — versão anterior)",
            ),
        ],
        remediation: "move the GPU guest into a separate GPU cluster",
    },
    RuleInfo {
        id: RuleId("GPU-002"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a GPU cluster's placement follows its host tier (Tier 3: privileged LXC without Cilium)",
        citations: &[
            cite(
                ARCH,
                "Diferenciado por site: SP em LXC (Tier 3 obriga); Franca em VM com Cilium (Tier 2A permite)",
            ),
            cite(
                ADR9,
                "Replicar mesma arquitetura: K3s standalone em LXC privileged em algum dos hosts labri-31/32/33, sem Cilium.",
            ),
        ],
        remediation: "on a host whose tier has no GPU passthrough, run the GPU cluster as a privileged LXC without Cilium",
    },
    RuleInfo {
        id: RuleId("GPU-003"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a GPU LXC guest is privileged and sits on a host that has the GPU",
        citations: &[cite(
            ADR9,
            "gpu-sp-01 (LXC standalone com pve-ippri-31) em produção",
        )],
        remediation: "make the LXC privileged and place it on a host with an NVIDIA GPU",
    },
    RuleInfo {
        id: RuleId("GPU-004"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "each GPU cluster is registered with its site's ArgoCD",
        citations: &[cite(
            ADR9,
            "ArgoCD SP gerencia ambos os clusters via argocd cluster add + Application apontando pro destino certo.",
        )],
        remediation: "register the GPU cluster with the site's ArgoCD (argocd cluster add)",
    },
    RuleInfo {
        id: RuleId("GPU-005"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "the NVIDIA driver matches the pinned version; NVRM/Xid errors raise an alert",
        citations: &[
            cite(ADR9, "Documentar versão exata em runbook"),
            cite(
                ADR9,
                "Monitoring: dmesg + nvidia-smi via OpenObserve, alerta em erros NVRM",
            ),
        ],
        remediation: "pin the driver version in the topology and upgrade hosts in a maintenance window",
    },
    RuleInfo {
        id: RuleId("GPU-006"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "an ADR-009 review trigger is present (e.g. GPU clusters in two sites)",
        citations: &[
            cite(
                ADR9,
                "GPU em Franca também (justificaria ClusterMesh entre 2 GPU clusters)",
            ),
            cite(
                ADR9,
                "Multi-tenant real no cluster GPU (vários grupos de pesquisa isolados)",
            ),
        ],
        remediation: "re-evaluate ClusterMesh for the GPU clusters (ADR-009 review criteria)",
    },
    RuleInfo {
        id: RuleId("MESH-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a ClusterMesh joins only clusters that all run Cilium",
        citations: &[cite(ADR9, "ClusterMesh exige Cilium nos dois lados.")],
        remediation: "install Cilium on every member cluster, or use MultiKueue/Traefik instead of ClusterMesh",
    },
    RuleInfo {
        id: RuleId("MESH-002"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "MultiKueue needs API-server reachability and kubeconfigs, not ClusterMesh",
        citations: &[cite(
            ADR9,
            "Não exige que pods se descubram entre si — exige acesso ao API server cross-cluster",
        )],
        remediation: "drop the ClusterMesh prerequisite from the MultiKueue pattern; register its workers with ArgoCD",
    },
    RuleInfo {
        id: RuleId("MESH-003"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "Karmada stays deferred until 5+ clusters or real dynamic scheduling",
        citations: &[
            cite(
                ARCH,
                "Karmada (critério: 5+ clusters ou scheduling dinâmico real)",
            ),
            cite(
                ARCH,
                "Decisão: começar com Cilium ClusterMesh + ApplicationSet. Cobre 80% dos casos sem operar Karmada.",
            ),
        ],
        remediation: "keep Karmada `desired` and use ClusterMesh + ApplicationSet",
    },
    RuleInfo {
        id: RuleId("GITOPS-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "one independent ArgoCD per site; every cluster is managed by one ArgoCD of its own site",
        citations: &[
            cite(ARCH, "2 ArgoCDs independentes (1 por cluster)"),
            cite(
                ARCH,
                "se ArgoCD Franca cai ou link SP↔Franca quebra, SP continua reconciliando",
            ),
        ],
        remediation: "register the cluster with exactly one ArgoCD, the one of the cluster's site",
    },
    RuleInfo {
        id: RuleId("GITOPS-002"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "no ArgoCD Application is OutOfSync or Degraded",
        citations: &[cite(
            ARCH,
            "Pelo menos 5 alertas básicos: node down, LINSTOR degraded, DRBD desync, ArgoCD out-of-sync, cert expirando",
        )],
        remediation: "sync the application or fix the manifests that fail to apply",
    },
    RuleInfo {
        id: RuleId("SEC-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "the topology file holds no secrets",
        citations: &[
            cite(
                ARCH,
                "Papel: gerenciar credenciais (tokens API, senhas DB, chaves SSH, certificados privados) sem expor em git.",
            ),
            cite(
                ARCH,
                "Recomendação MVP: SOPS + age (mais simples, sem novo serviço).",
            ),
        ],
        remediation: "remove the secret from the file, rotate it, and read it from the environment or SOPS",
    },
    RuleInfo {
        id: RuleId("OBS-001"),
        severity: Severity::Warning,
        kind: RuleKind::StaticAndLive,
        title: "the five basic alerts exist",
        citations: &[cite(
            ARCH,
            "Pelo menos 5 alertas básicos: node down, LINSTOR degraded, DRBD desync, ArgoCD out-of-sync, cert expirando",
        )],
        remediation: "declare and route the missing alerts (node down, LINSTOR degraded, DRBD desync, ArgoCD out-of-sync, cert expiring)",
    },
    RuleInfo {
        id: RuleId("FRUGAL-001"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "a desired component names its use case",
        citations: &[cite(
            ARCH,
            "Frugalidade operacional — toda peça nova custa tempo de admin; só entra com caso de uso comprovado",
        )],
        remediation: "add a `use_case` to the component, or drop it from the roadmap",
    },
    // The IaC as evidence (`crate::iac`): the rows of `docs/iac-invariants.md`.
    RuleInfo {
        id: RuleId("IAC-001"),
        severity: Severity::Error,
        kind: RuleKind::Iac,
        title: "a declared component exists in the IaC",
        citations: &[cite(
            ARCH,
            "Existe no código (Pulumi/Ansible) mas não foi aplicado/validado em produção",
        )],
        remediation: "add the component to the Pulumi program or the Ansible inventory, or lower its state to `desired`",
    },
    RuleInfo {
        id: RuleId("IAC-002"),
        severity: Severity::Warning,
        kind: RuleKind::Iac,
        title: "a desired component has no code yet",
        citations: &[cite(
            ARCH,
            "Decisão arquitetural mas sem código nem validação",
        )],
        remediation: "raise the component's state to `declared`: the IaC declares it",
    },
    RuleInfo {
        id: RuleId("IAC-003"),
        severity: Severity::Warning,
        kind: RuleKind::Iac,
        title: "a validated component is declared in the IaC, not made by hand",
        citations: &[cite(
            ARCH,
            "Declarativo > imperativo — config como código (Pulumi, Ansible, ArgoCD); estado reproduzível",
        )],
        remediation: "import the component into the Pulumi stack (pulumi import) or add it to the Ansible inventory",
    },
    RuleInfo {
        id: RuleId("IAC-004"),
        severity: Severity::Warning,
        kind: RuleKind::Iac,
        title: "`ha: true` in the IaC has a Proxmox HA resource in the Pulumi state",
        citations: &[
            cite(
                ARCH,
                "traefik-sp tem ha: True no Pulumi config, mas o Pulumi não cria recurso HA Proxmox real — apenas VM normal com on_boot=True",
            ),
            cite(
                ARCH,
                "`traefik-sp` com `ha: True` no config (Pulumi não cria HA real ainda)",
            ),
        ],
        remediation: "create the HA resource in the program (HaresourceLegacy / HAResource with resourceId vm:ID) from the `ha` flag",
    },
    RuleInfo {
        id: RuleId("IAC-005"),
        severity: Severity::Error,
        kind: RuleKind::Iac,
        title: "the IaC gives every host a non-empty LINSTOR replication interface",
        citations: &[
            cite(
                ARCH,
                "pve-ippri-34 tem linstor_interface: \"\" (precisa correção antes de usar)",
            ),
            cite(
                ARCH,
                "Corrigir linstor_interface vazio em pve-ippri-34 antes de qualquer outro tuning",
            ),
        ],
        remediation: "set linstor_interface in the inventory or stack config to the storage network's interface",
    },
    RuleInfo {
        id: RuleId("IAC-006"),
        severity: Severity::Warning,
        kind: RuleKind::Iac,
        title: "the IaC and the topology file agree on the fields both write",
        citations: &[cite(
            ARCH,
            "Toda afirmação sobre a infra deve cair em uma destas categorias. Misturar os três é o erro mais comum.",
        )],
        remediation: "change the topology file or the IaC so that both say the same",
    },
];
