//! The live rules read from a K3s cluster's API server: INGRESS-002 (cert-manager
//! Certificates) and GITOPS-002 (Argo CD Applications).

use crate::finding::Severity;
use crate::live::facts::ArgoApp;
use crate::live::rules::{Live, LiveCheck, emit_on, from_gpu_severity};
use crate::model::ComponentRef;
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[
    (RuleId("INGRESS-002"), ingress_002),
    (RuleId("GITOPS-002"), gitops_002),
];

/// INGRESS-002 (live): no certificate expires within the warning window, none is not Ready.
pub(crate) fn ingress_002(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        for (id, source) in &site.kubernetes {
            let (Some(facts), Some(cluster)) = (source.observed(), live.declared.k3s_cluster(id))
            else {
                continue;
            };
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

/// GITOPS-002: no Argo CD Application OutOfSync or Degraded.
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
