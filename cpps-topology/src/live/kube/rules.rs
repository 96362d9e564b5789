//! The live rules read from a K3s cluster's API server: INGRESS-002 (cert-manager
//! Certificates), GITOPS-002 (Argo CD Applications), GPU-004's live part (Argo CD cluster
//! Secrets) and MESH-002's (Kueue's API served whole).

use cpps_gpu::k8s::snapshot::{APPLICATION, CERTIFICATE};

use crate::finding::Severity;
use crate::live::facts::{ArgoApp, ArgoClusterSecret, ArgoClusters, KubeFacts};
use crate::live::rules::{Live, LiveCheck, emit_on, from_gpu_severity};
use crate::model::{ArgoCd, ComponentRef, K3sCluster};
use crate::rules::RuleId;
use crate::rules::checks::{Sink, gpu_clusters_in_service};

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[
    (RuleId("INGRESS-002"), ingress_002),
    (RuleId("GITOPS-002"), gitops_002),
    (RuleId("GPU-004"), gpu_004),
    (RuleId("MESH-002"), mesh_002),
];

/// GPU-004 (live): each GPU cluster in service has a cluster Secret in every Argo CD that
/// manages it, matched by the Secret's `name` against the cluster's id, or by its `server`
/// against the server of the cluster's kubeconfig where the endpoints file gives one.
/// `argocd cluster add CONTEXT` names the Secret after the kubeconfig context unless `--name`
/// is given (argo-cd `cmd/argocd/commands/cluster.go`) and K3s's `k3s.yaml` context is
/// `default`, so a Secret that names no declared cluster may be the GPU cluster's: "cannot
/// tell", not "not registered". A GPU cluster an Argo CD runs in needs none: Argo CD manages its
/// own cluster as `in-cluster` (argo-cd `util/db/cluster.go` `getLocalCluster`). A Secret Argo
/// CD would refuse is a finding about that Secret; a list that could not be read is "cannot
/// tell".
pub(crate) fn gpu_004(live: &Live<'_>, sink: &mut Sink<'_>) {
    for argocd in live.topo.argocd() {
        let Some(facts) = argocd
            .runs_in
            .as_ref()
            .and_then(|r| kube_facts_of(live, r.as_str()))
        else {
            continue;
        };
        // With in-cluster deployment off, Argo CD's own cluster needs a Secret like any other.
        let exempt = |k: &&K3sCluster| {
            !facts.argocd_in_cluster_disabled && argocd.runs_in.as_ref() == Some(&k.id)
        };
        let gpu: Vec<&K3sCluster> = gpu_clusters_in_service(live.topo)
            .filter(|k| live.topo.managers_of(k).any(|a| a.id == argocd.id))
            .filter(|k| !exempt(k))
            .collect();
        if gpu.is_empty() {
            continue;
        }
        let c = ComponentRef::ArgoCd(argocd);
        match &facts.argocd_clusters {
            ArgoClusters::NotRead => {}
            ArgoClusters::Unknown { why } => emit_on(
                sink,
                Severity::Info,
                c,
                format!(
                    "cannot tell which clusters Argo CD {} has registered: {why}",
                    argocd.id
                ),
            ),
            ArgoClusters::Read(secrets) => {
                let in_cluster_off = facts.argocd_in_cluster_disabled;
                registered(live, (argocd, in_cluster_off), &gpu, secrets, sink);
            }
        }
    }
}

/// The server Argo CD's local cluster is registered under (argo-cd
/// `pkg/apis/application/v1alpha1/application_defaults.go` `KubernetesInternalAPIServerAddr`),
/// and its name (`util/db/cluster.go` `getLocalCluster`).
const IN_CLUSTER: (&str, &str) = ("in-cluster", "https://kubernetes.default.svc");

/// GPU-004 over the cluster Secrets read for `argocd`: each odd Secret, then each GPU cluster
/// with no Secret Argo CD would accept, "cannot tell" where a Secret naming no declared cluster
/// may be it.
fn registered(
    live: &Live<'_>,
    (argocd, in_cluster_off): (&ArgoCd, bool),
    gpu: &[&K3sCluster],
    secrets: &[ArgoClusterSecret],
    sink: &mut Sink<'_>,
) {
    let c = ComponentRef::ArgoCd(argocd);
    for s in secrets {
        if let Some(problem) = &s.problem {
            let message = format!(
                "Argo CD {} would refuse its cluster Secret {}: {problem}",
                argocd.id, s.secret
            );
            emit_on(sink, Severity::Warning, c, message);
        }
    }
    // With in-cluster deployment off, `ListClusters` drops a Secret for the local server too.
    let accepted: Vec<&ArgoClusterSecret> = secrets
        .iter()
        .filter(|s| s.problem.is_none())
        .filter(|s| !(in_cluster_off && s.server.as_deref() == Some(IN_CLUSTER.1)))
        .collect();
    let server_of = |id: &str| kube_facts_of(live, id).and_then(|f| f.api_server.as_deref());
    let is = |s: &ArgoClusterSecret, id: &str| {
        s.name.as_deref() == Some(id)
            || server_of(id).is_some_and(|url| s.server.as_deref() == Some(url))
    };
    // Secrets that are no declared cluster's, nor Argo CD's local one: each may be any GPU
    // cluster registered under its kubeconfig context's name.
    let clusters = live.topo.k3s_clusters();
    let unmatched: Vec<&ArgoClusterSecret> = accepted
        .iter()
        .copied()
        .filter(|s| !clusters.iter().any(|k| is(s, k.id.as_str())))
        .filter(|s| s.name.as_deref() != Some(IN_CLUSTER.0))
        .filter(|s| s.server.as_deref() != Some(IN_CLUSTER.1))
        .collect();
    for k in gpu {
        if accepted.iter().any(|s| is(s, k.id.as_str())) {
            continue;
        }
        let (severity, message) = if unmatched.is_empty() {
            let by_server = server_of(k.id.as_str())
                .map(|url| format!(" or with server {url}"))
                .unwrap_or_default();
            let why_own = if in_cluster_off && argocd.runs_in.as_ref() == Some(&k.id) {
                "; its argocd-cm sets cluster.inClusterEnabled to false, so its own cluster and \
                 Secrets for https://kubernetes.default.svc are not deploy targets"
            } else {
                ""
            };
            let message = format!(
                "GPU cluster {} has no cluster Secret named {}{by_server} in Argo CD {} (argocd \
                 cluster add{why_own})",
                k.id, k.id, argocd.id
            );
            (Severity::Warning, message)
        } else {
            (Severity::Info, may_be_it(k, argocd, &unmatched))
        };
        emit_on(sink, severity, ComponentRef::K3sCluster(k), message);
    }
}

/// GPU-004's "cannot tell" for GPU cluster `k`, which `unmatched` Secrets may register.
fn may_be_it(k: &K3sCluster, argocd: &ArgoCd, unmatched: &[&ArgoClusterSecret]) -> String {
    let described: Vec<String> = unmatched
        .iter()
        .map(|s| {
            format!(
                "{} (name {}, server {})",
                s.secret,
                s.name.as_deref().unwrap_or("none"),
                s.server.as_deref().unwrap_or("none")
            )
        })
        .collect();
    let (secrets, verb) = if described.len() == 1 {
        ("cluster Secret", "names no declared cluster and may be it")
    } else {
        (
            "cluster Secrets",
            "name no declared cluster and one may be it",
        )
    };
    format!(
        "cannot tell whether GPU cluster {} is registered in Argo CD {}: {secrets} {} {verb} \
         (argocd cluster add names the Secret after the kubeconfig context unless --name is \
         given)",
        k.id,
        argocd.id,
        described.join(", ")
    )
}

/// MESH-002 (live): a cluster whose Kueue kinds were read at an older version because Kueue's
/// conversion webhook answered 500 (kueue `config/components/crd/kustomization.yaml`
/// `patches/webhook_in_*.yaml`; apiextensions-apiserver `webhook_converter.go` `Convert`) admits
/// no job, and its MultiKueue reaches no worker: an error on that cluster, in cpps-gpu's words.
pub(crate) fn mesh_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (id, source) in &site.kubernetes {
            let (Some(facts), Some(cluster)) = (source.observed(), live.declared.k3s_cluster(id))
            else {
                continue;
            };
            for down in &facts.kueue_webhook_down {
                let message = format!(
                    "Kueue's API is not served whole, so Kueue admits no job and MultiKueue \
                     cannot be judged: {down}"
                );
                emit_on(
                    sink,
                    Severity::Error,
                    ComponentRef::K3sCluster(cluster),
                    message,
                );
            }
        }
    }
}

/// The facts read from the K3s cluster `id`, in whichever site's observation it is.
fn kube_facts_of<'o>(live: &Live<'o>, id: &str) -> Option<&'o KubeFacts> {
    let sites = live.observed.sites.iter();
    let mut sources = sites.flat_map(|site| site.kubernetes.iter());
    sources
        .find(|(cluster, _)| cluster == id)
        .and_then(|(_, source)| source.observed())
}

/// INGRESS-002 (live): no certificate expires within the warning window, none is not Ready. A
/// Certificate list the API server did not give is "cannot tell", naming it.
pub(crate) fn ingress_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (id, source) in &site.kubernetes {
            let (Some(facts), Some(cluster)) = (source.observed(), live.declared.k3s_cluster(id))
            else {
                continue;
            };
            if let Some(unread) = facts.not_read(CERTIFICATE) {
                let message =
                    format!("cannot tell whether cluster {id}'s certificates are valid: {unread}");
                emit_on(
                    sink,
                    Severity::Warning,
                    ComponentRef::K3sCluster(cluster),
                    message,
                );
                continue;
            }
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

/// GITOPS-002: no Argo CD Application OutOfSync or Degraded. An Application list the API
/// server did not give is "cannot tell", naming it.
pub(crate) fn gitops_002(live: &Live<'_>, sink: &mut Sink<'_>) {
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
            if let Some(unread) = facts.not_read(APPLICATION) {
                let message = format!(
                    "cannot tell whether the Argo CD Applications in cluster {id} are synced and \
                     healthy: {unread}"
                );
                emit_on(sink, Severity::Warning, subject, message);
                continue;
            }
            for app in &facts.applications {
                if let Some((severity, state)) = app_finding(app) {
                    let message =
                        format!("Argo CD Application {} in cluster {id} {state}", app.name);
                    emit_on(sink, severity, subject, message);
                }
            }
        }
    }
}

/// What GITOPS-002 says of `app`, if anything: OutOfSync is a warning; its health is judged by
/// `cpps_gpu`'s one answer ([`cpps_gpu::k8s::argocd::health_severity`]: `Degraded` and
/// `Missing` are errors, Argo CD's `Unknown` and any value not known here cannot be told
/// healthy). An Application that reports no health yet says nothing either way.
fn app_finding(app: &ArgoApp) -> Option<(Severity, String)> {
    use cpps_gpu::k8s::argocd::{HealthStatusCode, health_severity};
    let out_of_sync = app.sync.as_deref() == Some("OutOfSync");
    let health = app.health.as_deref().map(|h| {
        let code: HealthStatusCode = h.parse().unwrap_or_else(|never| match never {});
        (h, health_severity(&code).map(from_gpu_severity))
    });
    match health {
        Some((h, Some(Severity::Error))) if out_of_sync => {
            Some((Severity::Error, format!("is OutOfSync and {h}")))
        }
        Some((h, Some(Severity::Error))) => Some((Severity::Error, format!("is {h}"))),
        Some((h, Some(severity))) if out_of_sync => Some((
            severity.max(Severity::Warning),
            format!("is OutOfSync and has health `{h}`: whether it is healthy cannot be told"),
        )),
        _ if out_of_sync => Some((Severity::Warning, "is OutOfSync".to_owned())),
        Some((h, Some(severity))) => Some((
            severity,
            format!("has health `{h}`: whether it is healthy cannot be told"),
        )),
        _ => None,
    }
}
