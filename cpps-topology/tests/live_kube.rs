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

    // One node of the cluster exists; its sibling does not.
    let nodes: Api<Node> = Api::all(client.clone());
    let node: Node = serde_json::from_value(json!({"metadata": {"name": id}})).unwrap();
    nodes.create(&PostParams::default(), &node).await.unwrap();

    let apps: Api<Application> = Api::namespaced(client.clone(), &id);
    for (name, sync, health) in [
        ("vllm", "OutOfSync", "Healthy"),
        ("triton", "Synced", "Degraded"),
        ("openobserve", "Synced", "Healthy"),
    ] {
        let mut v = serde_json::to_value(Application::new(
            &id,
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
            &client,
            &id,
            name,
            json!({"conditions": [{"type": "Ready", "status": "True", "reason": "Ready"}],
                   "notAfter": at(days)}),
        )
        .await;
    }

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
