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

/// The sentence both PVE-003 (the live HA resource) and IAC-004 (the HA resource in the Pulumi
/// state) come from.
const TRAEFIK_SP_HA_IS_NOT_REAL: Citation = cite(
    ARCH,
    "traefik-sp tem ha: True no Pulumi config, mas o Pulumi não cria recurso HA Proxmox real — apenas VM normal com on_boot=True",
);

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
        title: "nothing essential of a site runs on, stores on or is backed up only to a component of another site (guests' storage and backup, cluster nodes, ArgoCD, PBS, routers and Traefik on hosts or guests, LINSTOR controllers)",
        citations: &[
            cite(
                ARCH,
                "Autonomia por site — cada site sobrevive a partição de rede; nada essencial depende de link cross-site",
            ),
            cite(
                ARCH,
                "PBS local — retenção média (semanas/meses), restore granular VM-level e por arquivo",
            ),
        ],
        remediation: "run the essential service (ingress, router, GitOps, storage controller, backup) inside the site it serves; back a guest up to its own site's PBS and sync that PBS across",
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
            TRAEFIK_SP_HA_IS_NOT_REAL,
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
        id: RuleId("LINSTOR-008"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "no LINSTOR resource of a site would lose quorum, its last UpToDate replica or its Primary if another site went dark",
        citations: &[cite(
            ARCH,
            "Autonomia por site — cada site sobrevive a partição de rede; nada essencial depende de link cross-site",
        )],
        remediation: "place the resource's replicas (and its tie-breaker) within its site, or give it a witness in a third site; `linstor-health --what-if-site-down SITE` shows the vote count",
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
        id: RuleId("BACKUP-005"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "each guest's backup chain: backed up here, verified, copied to the other site, within the RPO",
        citations: &[
            cite(
                ARCH,
                "PBS local — retenção média (semanas/meses), restore granular VM-level e por arquivo",
            ),
            cite(
                ARCH,
                "PBS remoto cross-site — disaster recovery, retenção longa, sync via WireGuard",
            ),
        ],
        remediation: "fix the first broken link: the vzdump job to the PBS storage, its verify job, or the other site's pull of the datastore",
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
        title: "exactly one VyOS router per site, a VRRP group of any size counting as one",
        citations: &[cite(ARCH, "VyOS (1 router por site)")],
        remediation: "declare one router for the site; further routers only as members of its VRRP group (vrrp_peer)",
    },
    RuleInfo {
        id: RuleId("NET-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a router whose VRRP group has no other member as mature as it is a single point of failure",
        citations: &[cite(ARCH, "VRRP HA pra VyOS (single-node hoje)")],
        remediation: "add a second VyOS router to the site's VRRP group (vrrp_peer), in service as the router is",
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
        title: "each site's general-purpose cluster has cert-manager with a DNS-01 ClusterIssuer: the document's \"2 clusters\" are layer 5's one K3s per site; ADR-009's separate GPU clusters are not among them",
        citations: &[
            cite(ARCH, "cert-manager instalado nos 2 clusters"),
            cite(ARCH, "K3s (1 cluster por site)"),
            cite(ARCH, "ClusterIssuer com DNS-01 Cloudflare"),
        ],
        remediation: "install cert-manager in the cluster with a ClusterIssuer using the Cloudflare DNS-01 solver",
    },
    RuleInfo {
        id: RuleId("CNI-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "Cilium runs on VM nodes; LXC nodes only privileged on a Tier 3 host",
        citations: &[
            cite(
                ARCH,
                "Cilium roda em VMs por padrão (caminho documentado upstream). LXC privileged é exceção apenas pra hosts Tier 3 (sem iGPU, NVIDIA disputada entre display + workload — pve-ippri-31/33).",
            ),
            // Why a plan breaking it is at least a warning: ADR-009 rejects (C) for it.
            cite(
                ADR9,
                "Rejeitada porque conflita com ADR-002 (Cilium não roda confiavelmente em LXC).",
            ),
        ],
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
        title: "no architecture ADR-009 rejects: GPU nodes in a general-purpose cluster (B, C), a ClusterMesh between a GPU and a general-purpose cluster (D); a plan is a warning, production an error",
        citations: &[
            cite(ADR9, "Arquitetura (A) — Clusters separados, ambos em LXC."),
            cite(ADR9, "(B) Cluster K3s SP único com node pool GPU"),
            cite(
                ADR9,
                "Forçaria gpu-sp-01 a rodar Cilium → exigiria migrar LXC pra VM (ADR-005 — versão anterior)",
            ),
            cite(
                ADR9,
                "Rejeitada porque conflita com ADR-002 (Cilium não roda confiavelmente em LXC).",
            ),
            cite(
                ADR9,
                "Rejeitada porque exige Cilium nos 2 clusters → cluster GPU teria que rodar Cilium em LXC (volta ao problema de ADR-002).",
            ),
        ],
        remediation: "move the GPU guest into a separate GPU cluster, and join the GPU cluster to the others through Traefik HTTP and MultiKueue, not ClusterMesh",
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
        kind: RuleKind::StaticAndLive,
        title: "each GPU cluster is registered with its site's ArgoCD",
        citations: &[
            cite(
                ADR9,
                "ArgoCD SP gerencia ambos os clusters via argocd cluster add + Application apontando pro destino certo.",
            ),
            cite(
                ADR9,
                "ArgoCD Franca registra cluster GPU Franca como destino.",
            ),
        ],
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
        title: "a trigger of ADR-009's review criterion (move to architecture B) holds: recorded in `review_signals`, a GPU workload in a general-purpose cluster, or GPU hardware not yet in production in a site with a GPU cluster; driver instability is also seen live (GPU-005)",
        citations: &[
            cite(ADR9, "Mudar pra arquitetura (B) “cluster único” se:"),
            cite(
                ADR9,
                "Gestão de 2 clusters virar maior overhead que ganho de isolamento",
            ),
            cite(
                ADR9,
                "Workloads GPU + apps gerais misturados virarem padrão (ex: Tutor usando vLLM dentro do mesmo deployment)",
            ),
            cite(
                ADR9,
                "Cilium NetworkPolicy virar requisito formal pra workloads GPU (compliance, multi-tenant)",
            ),
            cite(
                ADR9,
                "Driver NVIDIA + LXC mostrarem instabilidade em produção (kernel panics, etc.)",
            ),
            cite(
                ADR9,
                "Aparecer hardware GPU adicional que justifique node pool em vez de cluster dedicado",
            ),
            // The team's catalogue lists these among GPU-006's triggers too.
            cite(
                ADR9,
                "As features Cilium perdidas no GPU seriam realmente relevantes se:",
            ),
            cite(ADR9, "50+ workloads cross-site se descobrindo entre si"),
            cite(
                ADR9,
                "GPU em Franca também (justificaria ClusterMesh entre 2 GPU clusters)",
            ),
        ],
        remediation: "review ADR-009's separate GPU cluster against the trigger and record the outcome (drop the signal once reviewed, or plan the change)",
    },
    RuleInfo {
        id: RuleId("GPU-007"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "a use case that reopens Cilium in the GPU cluster is recorded in `review_signals` (a team's judgment of its workloads: neither the file nor the live systems show it otherwise)",
        citations: &[
            cite(
                ADR9,
                "Reabrir a questão “vale Cilium no cluster GPU” se aparecer caso de uso real que MultiKueue + Traefik + SeaweedFS replicado não cobre:",
            ),
            cite(
                ADR9,
                "Pipeline stateful distribuído cross-site com latência baixa (workloads que falam entre si em tempo real, não só batch)",
            ),
            cite(
                ADR9,
                "Compliance L7 formal (audit detalhado de chamadas a APIs GPU)",
            ),
            cite(
                ADR9,
                "Multi-tenant GPU estrito com L7 NetworkPolicy (vários grupos de pesquisa isolados)",
            ),
            cite(
                ADR9,
                "GPU bursting com pod migração (workload em execução é movido entre clusters automaticamente — exige service mesh)",
            ),
            cite(
                ADR9,
                "Adicionar quando ClusterMesh entre os 2 clusters virar útil (bursting, MultiKueue avançado, Hubble unificado)",
            ),
        ],
        remediation: "evaluate Cilium for the GPU clusters: VM + Cilium only after a validated proof of concept (GPU-008)",
    },
    RuleInfo {
        id: RuleId("GPU-008"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a GPU cluster follows ADR-009's plan for a new site: on its site's GPU hosts, VM + Cilium only after a validated POC, joined with the other sites' GPU clusters by MultiKueue and an ApplicationSet",
        citations: &[
            cite(
                ADR9,
                "Replicar mesma arquitetura: K3s standalone em LXC privileged em algum dos hosts labri-31/32/33, sem Cilium.",
            ),
            cite(
                ADR9,
                "MultiKueue + ApplicationSet ligam os 2 GPU clusters (SP + Franca) via control plane, sem precisar Cilium.",
            ),
            cite(
                ADR9,
                "Comunicação com cluster Franca principal via Traefik HTTP.",
            ),
            cite(
                ADR9,
                "Storage compartilhado via SeaweedFS replicado. Modelos compartilhados via MLflow centralizado.",
            ),
            cite(
                ADR9,
                "Se aparecer caso de uso 1-4 acima depois disso, aí avalia migrar pra VM + Cilium com POC validado primeiro.",
            ),
        ],
        remediation: "place the GPU cluster on a GPU host of its site, record a validated proof of concept (`cilium_vm_poc: validated`) before VM + Cilium, and add it to a MultiKueue and an ApplicationSet with the other sites' GPU clusters",
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
        kind: RuleKind::StaticAndLive,
        title: "MultiKueue names its manager and its workers are registered (the documents count on ArgoCD's registration); it reaches their API servers with kubeconfigs, not ClusterMesh",
        citations: &[
            cite(
                ADR9,
                "Não exige que pods se descubram entre si — exige acesso ao API server cross-cluster",
            ),
            cite(
                ADR9,
                "Cluster manager (1 dos clusters) recebe submissão de job",
            ),
            cite(
                ADR9,
                "Conecta com clusters worker via kubeconfig (não via service discovery)",
            ),
            cite(
                ADR9,
                "kubeconfigs corretos (ArgoCD multi-cluster já registra)",
            ),
        ],
        // What Kueue reads (kubernetes-sigs/kueue, apis/kueue/v1beta1 and v1beta2
        // multikueue_types.go: MultiKueueConfigSecretKey = "kubeconfig", KubeConfig with
        // locationType Secret, v1beta2 ClusterSource; pkg/controller/admissionchecks/multikueue/
        // multikueuecluster.go getKubeConfigFromSecret reads the Secret in Kueue's own namespace,
        // config DefaultNamespace "kueue-system"): `argocd cluster add` writes an Argo CD cluster
        // Secret in Argo CD's namespace, which Kueue never reads.
        remediation: "name the MultiKueue manager cluster; for each worker, create in the manager's Kueue namespace (kueue-system by default) a Secret whose key `kubeconfig` holds a kubeconfig for the worker's API server, and a MultiKueueCluster pointing at it (kubeConfig: {location: <secret>, locationType: Secret}; v1beta2: spec.clusterSource.kubeConfig), listed in the MultiKueueConfig of the ClusterQueue's admission check. Registering the worker with ArgoCD (argocd cluster add) deploys the Kueue config there but does not give MultiKueue its kubeconfig; no ClusterMesh is needed",
    },
    RuleInfo {
        id: RuleId("MESH-003"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "Karmada stays deferred until 5+ clusters or real dynamic scheduling; with 5+ clusters in service its adoption is due for review",
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
        remediation: "below 5 clusters keep Karmada `desired` and use ClusterMesh + ApplicationSet; at 5 or more, review the decision (ADR-004)",
    },
    RuleInfo {
        id: RuleId("GITOPS-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "one independent ArgoCD per site with K3s clusters (it may manage several clusters of its site); every cluster is managed by one ArgoCD of its own site",
        citations: &[
            cite(
                ARCH,
                "Por que 2 ArgoCDs (não 1 central): se ArgoCD Franca cai ou link SP↔Franca quebra, SP continua reconciliando. Autonomia por site.",
            ),
            cite(ARCH, "Autonomia por site na partição de rede"),
            cite(
                ADR9,
                "ArgoCD SP gerencia ambos os clusters via argocd cluster add + Application apontando pro destino certo.",
            ),
        ],
        remediation: "declare the site's ArgoCD and register each of the site's clusters with it, and only with it",
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
        title: "the topology file holds no secrets, in any text (prose included): token prefixes, private keys, JWTs, credential words and phrases, high-entropy tokens; findings mask the value",
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
    // The relations of the model (`docs/relations.md`), rows of `docs/added-invariants.md`.
    RuleInfo {
        id: RuleId("REL-001"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "a relation of the model can exist: a guest in one cluster, pool nodes on LINSTOR satellites, controllers on controller hosts, link ends in the link's sites, VRRP peers in the router's site, pattern fields of their kind, no reference listed twice",
        citations: &[
            cite(
                ARCH,
                "A ordenação é bottom-up por dependência operacional: cada camada N só pode ser operada sobre a N-1 estável.",
            ),
            cite(
                ARCH,
                "Modularidade entre camadas — cada camada tem interface clara; trocar componente não cascata pras demais",
            ),
        ],
        remediation: "change the reference so that it names a component that can play that part (see docs/relations.md)",
    },
    RuleInfo {
        id: RuleId("REL-002"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a relation agrees with the decisions: a PBS in a VM dedicated to it, ArgoCD in a general-purpose cluster, a GPU cluster with a GPU node",
        citations: &[
            cite(ARCH, "Onde rodar PBS (VM dedicada por site)"),
            cite(
                ADR9,
                "K3s SP principal: workloads gerais (apps stateful tipo Tutor, OpenObserve, ArgoCD SP, Authentik)",
            ),
            cite(
                ADR9,
                "K3s GPU: workloads que precisam de aceleração (vLLM, treinamento, inference)",
            ),
        ],
        remediation: "give the PBS a VM of its own, run ArgoCD in the site's general-purpose cluster, give the GPU cluster the guest that uses the GPU",
    },
    // What the documents ask beyond the team's catalogue: the DOC rows of
    // `docs/added-invariants.md`.
    RuleInfo {
        id: RuleId("DOC-001"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "a fact the two documents state differently is reported, with the state the file follows",
        citations: &[
            // Only what holds for every disagreement: each finding's message quotes the
            // sentences of its own record (the claims of `contradictions:`).
            cite(
                ARCH,
                "Cada item deste documento marca explicitamente seu estado.",
            ),
            cite(
                ARCH,
                "Toda afirmação sobre a infra deve cair em uma destas categorias. Misturar os três é o erro mais comum.",
            ),
        ],
        remediation: "settle the fact in both documents; until then keep the state the file follows, said why in the contradiction's note",
    },
    RuleInfo {
        id: RuleId("DOC-002"),
        severity: Severity::Error,
        kind: RuleKind::Static,
        title: "no component adopts an alternative the decision table rejects, in production or in the plan",
        citations: &[
            cite(ARCH, "Decisões arquiteturais (resumo)"),
            cite(ARCH, "Tópico\tDecisão\tAlternativa rejeitada\tMotivo\tADR"),
        ],
        remediation: "use the decided option instead, or plan the migration away from the rejected one as an item that `replaces` it",
    },
    RuleInfo {
        id: RuleId("DOC-003"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "an essential service of a site (MultiKueue manager, identity provider, DNS) does not sit in another site",
        citations: &[
            cite(
                ARCH,
                "Autonomia por site — cada site sobrevive a partição de rede; nada essencial depende de link cross-site",
            ),
            cite(
                ADR9,
                "Cluster manager (1 dos clusters) recebe submissão de job",
            ),
            cite(
                ARCH,
                "Authentik instalado (1 instância central com replica DR?)",
            ),
        ],
        remediation: "run the service (or a replica of it) in every site it serves; manage a MultiKueue from a site where its clusters run",
    },
    RuleInfo {
        id: RuleId("DOC-004"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a LINSTOR pool or PBS in production has its metrics collected in production",
        citations: &[cite(
            ARCH,
            "Métricas LINSTOR/PBS antes de declarar produção",
        )],
        remediation: "collect LINSTOR/DRBD/PBS metrics (an observability capability with `metrics: [linstor, drbd, pbs]`) and validate it before the pool or PBS",
    },
    RuleInfo {
        id: RuleId("DOC-005"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a GPU cluster in service has an alert on NVRM errors at least as mature as itself",
        citations: &[cite(
            ADR9,
            "Monitoring: dmesg + nvidia-smi via OpenObserve, alerta em erros NVRM",
        )],
        remediation: "declare and route an `nvrm_errors` alert (dmesg + nvidia-smi through OpenObserve)",
    },
    RuleInfo {
        id: RuleId("DOC-006"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a PBS in service names the VM it runs in, and that VM uses no GPU",
        citations: &[cite(ARCH, "Onde rodar PBS (VM dedicada por site)")],
        remediation: "run the PBS in a VM of its own in its site (no GPU, no other service: REL-002) and name it in `guest`",
    },
    RuleInfo {
        id: RuleId("DOC-007"),
        severity: Severity::Info,
        kind: RuleKind::Static,
        title: "an ArgoCD does not wait for Cilium: it is not planned in a Cilium cluster that is deferred",
        // Settled against REL-002: ADR-009 places ArgoCD SP in the main cluster (the second
        // sentence), which runs Cilium; the architecture's sentence is about order, not place:
        // ArgoCD can come up there before or in parallel with Cilium. So being planned in the
        // Cilium cluster is the documents' plan; waiting for a postponed one is not.
        citations: &[
            cite(
                ARCH,
                "ArgoCD SP (não depende de Cilium — pode subir antes/em paralelo)",
            ),
            cite(
                ADR9,
                "K3s SP principal: workloads gerais (apps stateful tipo Tutor, OpenObserve, ArgoCD SP, Authentik)",
            ),
        ],
        remediation: "do not postpone the ArgoCD with its Cilium cluster: bring the cluster up (with Cilium or before it) now, or run the ArgoCD in a cluster of its site that is not deferred",
    },
    RuleInfo {
        id: RuleId("DOC-008"),
        severity: Severity::Warning,
        kind: RuleKind::Static,
        title: "a GPU LXC in service has its disk on LINSTOR and a PBS backup",
        citations: &[
            cite(
                ADR9,
                "LXC é o sweet spot pro cluster GPU: integrado à lógica Proxmox (PBS, LINSTOR, snapshots)",
            ),
            cite(ADR9, "Plano de rollback: snapshot LINSTOR do LXC antes"),
        ],
        remediation: "put the LXC's disk on the site's LINSTOR pool (`storage`) and add it to the site's PBS backup job (`backup`)",
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
            TRAEFIK_SP_HA_IS_NOT_REAL,
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
    // What the routers report (`crate::live`): the rows of `docs/live-invariants.md`.
    RuleInfo {
        id: RuleId("LINK-001"),
        severity: Severity::Error,
        kind: RuleKind::Live,
        title: "a declared cross-site link's WireGuard peer shook hands recently; a DRBD connection across it that is not Connected is traced to it",
        citations: &[
            cite(ARCH, "WireGuard SP↔Franca via UnespNet"),
            cite(
                ARCH,
                "Autonomia por site — cada site sobrevive a partição de rede; nada essencial depende de link cross-site",
            ),
        ],
        remediation: "check the WireGuard peer on both routers (keys, endpoint, UnespNet reachability); DRBD reconnects once the peer shakes hands",
    },
    RuleInfo {
        id: RuleId("LINK-002"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "a router's BGP sessions are Established and its IPsec tunnels up",
        citations: &[cite(
            ARCH,
            "Papel: roteamento entre VLANs, NAT, firewall, link upstream institucional, VPN cross-site.",
        )],
        remediation: "check the session's neighbor (reachability over the link, AS, password) or the tunnel's peer (PSK, proposals), or shut it down on purpose",
    },
    RuleInfo {
        id: RuleId("VRRP-001"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "every VRRP group of a router and of its pair's second router is MASTER or BACKUP, and exactly one router of the pair is MASTER (not both: split brain; not neither: nobody holds the address)",
        citations: &[cite(ARCH, "VRRP HA pra VyOS (single-node hoje)")],
        remediation: "check the group's interface and tracked scripts (FAULT) or the peer's reachability; a group that never leaves INIT has no usable interface; a group MASTER on both routers means their adverts do not reach each other (link, firewall, VRID, version or authentication); a group BACKUP on both has no router holding its virtual address (priorities, tracked scripts, FAULT on the one that should lead)",
    },
    RuleInfo {
        id: RuleId("VRRP-002"),
        severity: Severity::Warning,
        kind: RuleKind::Live,
        title: "the two routers of a site's VRRP pair agree on their groups (VRID, virtual addresses, authentication, preemption, RFC 3768 compatibility, VRRP version, advert interval, unicast peers that reach each other, different priorities)",
        citations: &[cite(ARCH, "VRRP HA pra VyOS (single-node hoje)")],
        remediation: "declare the second router as `vyos_peer` in the endpoints file, then give both routers the same group names, VRIDs, virtual addresses, authentication, preemption, VRRP version and advert interval, unicast peers naming each other, and different priorities",
    },
    RuleInfo {
        id: RuleId("LINK-003"),
        severity: Severity::Error,
        kind: RuleKind::Live,
        title: "the two routers of a cross-site link agree on their WireGuard tunnel (keys, allowed-ips, endpoints)",
        citations: &[cite(ARCH, "WireGuard SP↔Franca via UnespNet")],
        remediation: "give each router's peer the other's interface public key (`show interfaces wireguard wg0 public-key`), its tunnel address in allowed-ips and its listening port",
    },
];
