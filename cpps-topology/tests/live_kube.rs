//! The Kubernetes part of the audit against the real kube-apiserver that `cargo xtask test`
//! starts (`CPPS_TEST_KUBECONFIG`), with cpps-gpu's test helpers (CRD install, objects with a
//! status), not a copy. The API server is shared with other tests, so every assertion looks
//! only at this test's namespace and nodes.
#![cfg(feature = "live")]

#[path = "../../cpps-gpu/tests/common/mod.rs"]
mod kube_common;

mod common;

use common::{load, of_rule, subject_messages};
use cpps_gpu::k8s::argocd::Application;
use cpps_topology::live::sources::{KubeSource, Sources};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};
use k8s_openapi::api::core::v1::Node;
use kube::Api;
use kube::api::PostParams;
use serde_json::json;
use std::path::PathBuf;

fn estate(node: &str) -> String {
    format!(
        "
version: 1
sites:
  - {{ id: sp, state: validated }}
hosts:
  - {{ id: pve-ippri-31, site: sp, gpus: [{{ model: A5000, count: 1 }}], state: validated }}
guests:
  - {{ id: {node}, host: pve-ippri-31, kind: lxc, privileged: true, gpu: {{ model: A5000, count: 1 }}, state: validated }}
  - {{ id: {node}-missing, host: pve-ippri-31, kind: lxc, privileged: true, state: validated }}
k3s_clusters:
  - id: gpu-sp-01
    site: sp
    cni: {{ kind: flannel }}
    purpose: gpu
    nodes: [{node}, {node}-missing]
    cert_manager: {{ dns01_cluster_issuer: true, state: validated }}
    state: validated
argocd:
  - {{ id: argocd-sp, site: sp, runs_in: gpu-sp-01, manages: [gpu-sp-01], state: validated }}
"
    )
}

/// The cluster's objects: one of its two nodes, three Argo CD Applications (one OutOfSync, one
/// Degraded) and two Certificates, one expiring in 6 days.
async fn create_cluster_objects(client: &kube::Client, id: &str) {
    // One node of the cluster exists; its sibling does not.
    let nodes: Api<Node> = Api::all(client.clone());
    let node: Node = serde_json::from_value(json!({"metadata": {"name": id}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();

    let apps: Api<Application> = Api::namespaced(client.clone(), id);
    for (name, sync, health) in [
        ("vllm", "OutOfSync", "Healthy"),
        ("triton", "Synced", "Degraded"),
        ("openobserve", "Synced", "Healthy"),
    ] {
        let mut v = serde_json::to_value(Application::new(
            id,
            name,
            "gpu",
            "https://kubernetes.default.svc",
            "inference",
        ))
        .unwrap();
        v["status"] = json!({"sync": {"status": sync}, "health": {"status": health}});
        let app: Application = serde_json::from_value(v).unwrap();
        apps.create(&PostParams::default(), &app).await.unwrap();
    }
    let now = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second()).unwrap();
    let at = |days: i64| {
        (now + jiff::SignedDuration::from_hours(24 * days) + jiff::SignedDuration::from_mins(5))
            .to_string()
    };
    for (name, days) in [("fresh", 60), ("soon", 6)] {
        kube_common::certificate_with_status(
            client,
            id,
            name,
            json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready"}],
                   "notAfter": at(days)}),
        )
        .await;
    }
}

#[tokio::test]
async fn argocd_out_of_sync_expiring_certificates_and_missing_nodes() {
    let Some(client) = kube_common::kube_client().await else {
        return;
    };
    let Some(kubeconfig) = std::env::var_os(kube_common::KUBECONFIG_VAR) else {
        return;
    };
    let id = kube_common::unique("live");
    kube_common::namespace(&client, &id).await;

    create_cluster_objects(&client, &id).await;

    let mut sources = Sources::default();
    sources.site_mut("sp").kubernetes = vec![(
        "gpu-sp-01".to_owned(),
        Box::new(KubeSource::new(kubeconfig)),
    )];
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let sp = observed.site("sp").unwrap();
    let facts = sp.kubernetes[0]
        .1
        .observed()
        .unwrap_or_else(|| panic!("{:?}", sp.kubernetes[0].1.failure()));
    assert!(facts.argocd_served && facts.cert_manager_served);
    assert!(facts.nodes.contains(&id));

    let topology = load("kube.yaml", &estate(&id));
    let audit = live::audit(&topology, &observed, &LiveOptions::default());
    let mine = |rule: &str| -> Vec<String> {
        let mut findings = of_rule(&audit.report.findings, rule);
        findings.retain(|f| f.message.contains(&id));
        let mut v = subject_messages(&findings);
        v.sort();
        v
    };
    assert_eq!(
        mine("GITOPS-002"),
        [
            format!("argocd-sp Argo CD Application {id}/triton in cluster gpu-sp-01 is Degraded"),
            format!("argocd-sp Argo CD Application {id}/vllm in cluster gpu-sp-01 is OutOfSync"),
        ]
    );
    assert_eq!(
        mine("INGRESS-002"),
        [format!(
            "gpu-sp-01 certificate {id}/soon expires in 6 days (warning at 14)"
        )]
    );
    assert_eq!(
        mine("STATE-003"),
        [format!(
            "gpu-sp-01 cluster gpu-sp-01 has no Kubernetes node named {id}-missing: declared, not validated"
        )]
    );
    assert_eq!(
        audit.diff.evidence("gpu-sp-01").unwrap().as_str(),
        "present"
    );
    assert_eq!(
        audit.diff.evidence("argocd-sp").unwrap().as_str(),
        "present"
    );
    // Argo CD and cert-manager are served: of the basic alerts only "node down" (no Proxmox
    // configured here) cannot be computed in SP.
    let blind: Vec<&str> = of_rule(&audit.report.findings, "OBS-001")
        .into_iter()
        .map(|f| f.message.as_str())
        .filter(|m| m.starts_with("in site sp"))
        .collect();
    assert_eq!(
        blind,
        [
            "in site sp the basic alert node down cannot be evaluated: no Proxmox VE endpoint is configured"
        ]
    );
}

/// A kubeconfig for the test API server whose user is ServiceAccount `sa` of namespace `ns`,
/// with a token from the TokenRequest API (`POST …/serviceaccounts/{sa}/token`), written under
/// the temporary directory; returns its path.
async fn service_account_kubeconfig(client: &kube::Client, ns: &str, sa: &str) -> PathBuf {
    use k8s_openapi::api::authentication::v1::TokenRequest;
    use k8s_openapi::api::core::v1::ServiceAccount;
    let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), ns);
    let account: ServiceAccount =
        serde_json::from_value(json!({"metadata": {"name": sa}})).unwrap();
    accounts
        .create(&PostParams::default(), &account)
        .await
        .unwrap();
    let request: TokenRequest = serde_json::from_value(json!({"spec": {"audiences": []}})).unwrap();
    let token = accounts
        .create_token_request(sa, &PostParams::default(), &request)
        .await
        .unwrap()
        .status
        .expect("the token request is answered")
        .token;
    let admin = std::env::var_os(kube_common::KUBECONFIG_VAR).unwrap();
    let admin = kube::config::Kubeconfig::read_from(admin).unwrap();
    let cluster = admin.clusters[0].cluster.clone().unwrap();
    let config = json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "c", "cluster": {
            "server": cluster.server, "certificate-authority-data": cluster.certificate_authority_data}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "c", "context": {"cluster": "c", "user": "u"}}]
    });
    // JSON is YAML: the kubeconfig reader takes it as it is.
    let path = std::env::temp_dir().join(format!("{ns}-{sa}.kubeconfig"));
    std::fs::write(&path, config.to_string()).unwrap();
    path
}

/// Grants the ServiceAccount `reader` of `id` a ClusterRole listing everything the source reads
/// except cert-manager Certificates, and waits (bounded) until its kubeconfig can list.
async fn grant_all_lists_but_certificates(
    client: &kube::Client,
    id: &str,
    kubeconfig: &std::path::Path,
) {
    use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding};
    let list = |groups: &[&str], resources: &[&str]| json!({"apiGroups": groups, "resources": resources, "verbs": ["list"]});
    let role: ClusterRole = serde_json::from_value(json!({
        "metadata": {"name": id},
        "rules": [
            list(&[""], &["nodes", "pods", "configmaps"]),
            list(&["apps"], &["daemonsets"]),
            list(&["node.k8s.io"], &["runtimeclasses"]),
            list(&["kueue.x-k8s.io"], &["*"]),
            list(&["argoproj.io"], &["applications"]),
        ]
    }))
    .unwrap();
    Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &role)
        .await
        .unwrap();
    let binding: ClusterRoleBinding = serde_json::from_value(json!({
        "metadata": {"name": id},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": id},
        "subjects": [{"kind": "ServiceAccount", "name": "reader", "namespace": id}]
    }))
    .unwrap();
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    // The RBAC authorizer reads bindings from its informer cache: wait (bounded) until the
    // ServiceAccount's grant is in force, so the source sees the role, not its propagation.
    let reader = cpps_gpu::k8s::client_from_kubeconfig(kubeconfig)
        .await
        .unwrap();
    let nodes: Api<Node> = Api::all(reader);
    let granted = async {
        while nodes
            .list(&kube::api::ListParams::default().limit(1))
            .await
            .is_err()
        {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(60), granted)
        .await
        .expect("the ServiceAccount's ClusterRoleBinding takes effect within 60 s");
}

/// A list the kubeconfig's user may not read is "cannot tell" for the rules that need it, named,
/// while the other rules still judge. Kubernetes RBAC answers 403 for a resource no rule of the
/// user's roles grants (kubernetes `plugin/pkg/auth/authorizer/rbac/rbac.go` `Authorize`: "no
/// RBAC policy matched"; the apiserver's `endpoints/handlers/responsewriters/errors.go`
/// `ForbiddenStatusError`). Here a ServiceAccount may list everything the source reads except
/// cert-manager Certificates: INGRESS-002 cannot tell, GITOPS-002 still judges the OutOfSync
/// Application, and the source is observed, not failed.
#[tokio::test]
async fn a_refused_list_is_cannot_tell_for_its_rules_only() {
    let Some(client) = kube_common::kube_client().await else {
        return;
    };
    let id = kube_common::unique("rbac");
    kube_common::namespace(&client, &id).await;
    let kubeconfig = service_account_kubeconfig(&client, &id, "reader").await;
    grant_all_lists_but_certificates(&client, &id, &kubeconfig).await;

    let app = Application::new(
        &id,
        "vllm",
        "gpu",
        "https://kubernetes.default.svc",
        "inference",
    );
    kube_common::application_with_status(
        &client,
        &app,
        json!({"sync": {"status": "OutOfSync"}, "health": {"status": "Healthy"}}),
    )
    .await;
    let soon = (jiff::Timestamp::now() + jiff::SignedDuration::from_hours(24 * 6)).to_string();
    kube_common::certificate_with_status(
        &client,
        &id,
        "soon",
        json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready"}],
               "notAfter": soon}),
    )
    .await;

    let mut sources = Sources::default();
    sources.site_mut("sp").kubernetes = vec![(
        "gpu-sp-01".to_owned(),
        Box::new(KubeSource::new(&kubeconfig)),
    )];
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    std::fs::remove_file(&kubeconfig).ok();
    let source = &observed.site("sp").unwrap().kubernetes[0].1;
    let facts = source
        .observed()
        .unwrap_or_else(|| panic!("the source failed: {:?}", source.failure()));
    let unread: Vec<&str> = facts.unread.iter().map(|u| u.kind.as_str()).collect();
    assert_eq!(unread, ["cert-manager.io/v1 Certificate"]);
    assert!(
        facts.unread[0].why.starts_with("403 Forbidden"),
        "{:?}",
        facts.unread
    );

    let topology = load("kube-rbac.yaml", &estate(&id));
    let audit = live::audit(&topology, &observed, &LiveOptions::default());
    let messages = |rule: &str| -> Vec<String> {
        let mut v = subject_messages(&of_rule(&audit.report.findings, rule));
        v.sort();
        v
    };
    assert!(
        messages("GITOPS-002").contains(&format!(
            "argocd-sp Argo CD Application {id}/vllm in cluster gpu-sp-01 is OutOfSync"
        )),
        "{:?}",
        messages("GITOPS-002")
    );
    assert_eq!(
        messages("INGRESS-002"),
        [format!(
            "gpu-sp-01 cannot tell whether cluster gpu-sp-01's certificates are valid: its \
             cert-manager.io/v1 Certificate list was not read ({})",
            facts.unread[0].why
        )]
    );
}

/// The same from fixtures, for the lists the comparison needs: a Node list not read leaves the
/// cluster's nodes unknown (no "has no node" drift from an empty stand-in), an Application list
/// not read leaves Argo CD unknown and GITOPS-002 "cannot tell", while INGRESS-002 still judges
/// the Certificates that were read.
#[test]
fn unread_nodes_and_applications_are_unknown_not_absent() {
    use cpps_topology::live::facts::{
        CertFact, KubeFacts, Observation, SiteObservation, Sourced, UnreadList,
    };
    let forbidden = |kind: &str, resource: &str, group: &str| UnreadList {
        kind: kind.to_owned(),
        why: format!(
            "403 Forbidden: {resource} is forbidden: User \"system:serviceaccount:cpps:reader\" \
             cannot list resource \"{resource}\" in API group \"{group}\" at the cluster scope"
        ),
    };
    let now = 1_780_000_000;
    let mut sp = SiteObservation::new("sp");
    sp.kubernetes = vec![(
        "gpu-sp-01".to_owned(),
        Sourced::Observed(KubeFacts {
            server: "kubeconfig".to_owned(),
            certificates: vec![CertFact {
                name: "inference/soon".to_owned(),
                ready: true,
                not_after: Some(now + 6 * 86_400 + 300),
            }],
            cert_manager_served: true,
            unread: vec![
                forbidden("v1 Node", "nodes", ""),
                forbidden(
                    "argoproj.io/v1alpha1 Application",
                    "applications",
                    "argoproj.io",
                ),
            ],
            ..KubeFacts::default()
        }),
    )];
    let observed = Observation {
        taken_at: now,
        sites: vec![sp],
    };
    let topology = load("kube-unread.yaml", &estate("gpu-node"));
    let audit = live::audit(&topology, &observed, &LiveOptions::at(now));
    let messages = |rule: &str| subject_messages(&of_rule(&audit.report.findings, rule));
    assert_eq!(messages("STATE-003"), Vec::<String>::new());
    assert_eq!(
        audit.diff.evidence("gpu-sp-01").unwrap().as_str(),
        "unknown"
    );
    assert_eq!(
        audit.diff.evidence("argocd-sp").unwrap().as_str(),
        "unknown"
    );
    assert_eq!(
        messages("GITOPS-002"),
        [
            "argocd-sp cannot tell whether the Argo CD Applications in cluster gpu-sp-01 are \
             synced and healthy: its argoproj.io/v1alpha1 Application list was not read (403 \
             Forbidden: applications is forbidden: User \"system:serviceaccount:cpps:reader\" \
             cannot list resource \"applications\" in API group \"argoproj.io\" at the cluster \
             scope)"
        ]
    );
    assert_eq!(
        messages("INGRESS-002"),
        ["gpu-sp-01 certificate inference/soon expires in 6 days (warning at 14)"]
    );
}

/// MESH-002's live part: when Kueue's conversion webhook (served by kueue-controller-manager;
/// kueue `config/components/crd/kustomization.yaml` `patches/webhook_in_*.yaml`) is down, the
/// API server answers 500 for every Kueue object at a version it must convert
/// (apiextensions-apiserver `webhook_converter.go` `Convert`), so Kueue admits nothing and
/// MultiKueue reaches no worker. cpps-gpu read the kinds at an older version and said why; the
/// live audit says so as an error on that cluster, never a clean MultiKueue.
#[test]
fn kueue_whose_conversion_webhook_is_down_is_an_error_of_mesh_002() {
    use cpps_topology::live::facts::{KubeFacts, Observation, SiteObservation, Sourced};
    let now = 1_780_000_000;
    let down = "Kueue's conversion webhook is down (is kueue-controller-manager running?): read \
                at v1beta1 because v1beta2 answered 500 Internal Server Error";
    let observe = |webhook: Vec<String>| {
        let mut sp = SiteObservation::new("sp");
        sp.kubernetes = vec![(
            "gpu-sp-01".to_owned(),
            Sourced::Observed(KubeFacts {
                server: "kubeconfig".to_owned(),
                kueue_webhook_down: webhook,
                ..KubeFacts::default()
            }),
        )];
        Observation {
            taken_at: now,
            sites: vec![sp],
        }
    };
    let topology = load("kube-mesh.yaml", &estate("gpu-node"));
    let mesh = |observed: &Observation| {
        let audit = live::audit(&topology, observed, &LiveOptions::at(now));
        let found = of_rule(&audit.report.findings, "MESH-002");
        let severities: Vec<String> = found.iter().map(|f| f.severity.to_string()).collect();
        (severities, subject_messages(&found))
    };
    assert_eq!(mesh(&observe(Vec::new())), (Vec::new(), Vec::new()));
    assert_eq!(
        mesh(&observe(vec![down.to_owned()])),
        (
            vec!["error".to_owned()],
            vec![format!(
                "gpu-sp-01 Kueue's API is not served whole, so Kueue admits no job and MultiKueue \
                 cannot be judged: {down}"
            )]
        )
    );
}
