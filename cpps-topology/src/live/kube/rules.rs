//! The live rules read from a K3s cluster's API server: INGRESS-002 (cert-manager
//! Certificates) and GITOPS-002 (Argo CD Applications).

use crate::finding::Severity;
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
                let out_of_sync = app.sync.as_deref() == Some("OutOfSync");
                let degraded = app.health.as_deref() == Some("Degraded");
                if out_of_sync || degraded {
                    let mut states = Vec::new();
                    if out_of_sync {
                        states.push("OutOfSync");
                    }
                    if degraded {
                        states.push("Degraded");
                    }
                    emit_on(
                        sink,
                        Severity::Warning,
                        subject,
                        format!(
                            "Argo CD Application {} in cluster {id} is {}",
                            app.name,
                            states.join(" and ")
                        ),
                    );
                }
            }
        }
    }
}
