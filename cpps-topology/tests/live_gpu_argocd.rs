//! GPU-004's live part: each GPU cluster in service has a cluster Secret in the Argo CD that
//! manages it, read from the Argo CD cluster's API server. The Secrets are decoded by cpps-gpu's
//! `cluster_secret`, as argo-cd `util/db/cluster.go` `SecretToCluster` does; the fixtures follow
//! argo-cd's own `docs/operator-manual/declarative-setup.md` (a cluster Secret) and
//! `util/db/cluster_test.go` (a `config` of `{"username":"foo", …}`).
#![cfg(feature = "live")]

#[path = "../../cpps-gpu/tests/common/mod.rs"]
mod kube_common;

mod common;

use common::{load, messages, of_rule};
use cpps_gpu::k8s::argocd::cluster_secret;
use cpps_topology::live::facts::{ArgoClusters, KubeFacts, Observation, SiteObservation, Sourced};
use cpps_topology::live::sources::{KubeSource, Sources};
use cpps_topology::live::{self, LiveOptions, ObserveOptions};
use cpps_topology::model::Topology;
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;

const NOW: i64 = 1_780_000_000;

/// Argo CD SP runs in the general cluster and manages it and the GPU cluster, both validated.
fn estate() -> Topology {
    load(
        "argocd-gpu.yaml",
        "
version: 1
sites:
  - { id: sp, state: validated }
hosts:
  - { id: pve-ippri-31, site: sp, gpus: [{ model: A5000, count: 1 }], state: validated }
guests:
  - { id: gpu-node, host: pve-ippri-31, kind: lxc, privileged: true, gpu: { model: A5000, count: 1 }, state: validated }
  - { id: main-node, host: pve-ippri-31, kind: vm, state: validated }
k3s_clusters:
  - { id: gpu-sp-01, site: sp, cni: { kind: flannel }, purpose: gpu, nodes: [gpu-node], state: validated }
  - { id: k3s-sp-main, site: sp, cni: { kind: cilium }, purpose: general, nodes: [main-node], state: validated }
argocd:
  - { id: argocd-sp, site: sp, runs_in: k3s-sp-main, manages: [k3s-sp-main, gpu-sp-01], state: validated }
",
    )
}

/// A cluster Secret in namespace `argocd` with the label Argo CD lists.
fn secret(name: &str, data: &[(&str, &[u8])]) -> Secret {
    let mut s = Secret::default();
    s.metadata.name = Some(name.to_owned());
    s.metadata.namespace = Some("argocd".to_owned());
    s.metadata.labels = Some(
        [(
            "argocd.argoproj.io/secret-type".to_owned(),
            "cluster".to_owned(),
        )]
        .into_iter()
        .collect(),
    );
    s.data = Some(
        data.iter()
            .map(|(k, v)| ((*k).to_owned(), ByteString(v.to_vec())))
            .collect(),
    );
    s
}

/// GPU-004's messages with `clusters` read from the cluster Argo CD SP runs in.
fn gpu_004(clusters: ArgoClusters) -> Vec<String> {
    let mut sp = SiteObservation::new("sp");
    sp.kubernetes = vec![(
        "k3s-sp-main".to_owned(),
        Sourced::Observed(KubeFacts {
            server: "kubeconfig".to_owned(),
            argocd_clusters: clusters,
            ..KubeFacts::default()
        }),
    )];
    let observed = Observation {
        taken_at: NOW,
        sites: vec![sp],
    };
    let audit = live::audit(&estate(), &observed, &LiveOptions::at(NOW));
    let mut found = messages(&of_rule(&audit.report.findings, "GPU-004"));
    found.sort();
    found
}

#[test]
fn gpu_004_reads_the_argocd_cluster_secrets() {
    // declarative-setup.md's cluster Secret, named after the GPU cluster: registered. The
    // trailing `/` of `server` is trimmed as `SecretToCluster` does.
    let registered = secret(
        "gpu-sp-01-cluster-secret",
        &[
            ("name", b"gpu-sp-01"),
            ("server", b"https://gpu-sp-01.example.com/"),
            ("config", br#"{"bearerToken": "<authentication token>", "tlsClientConfig": {"insecure": false, "caData": "<base64 encoded certificate>"}}"#),
        ],
    );
    let decoded = cluster_secret(&registered);
    assert_eq!(
        decoded.server.as_deref(),
        Some("https://gpu-sp-01.example.com")
    );
    assert_eq!(decoded.problem, None);
    assert!(!format!("{decoded:?}").contains("authentication token"));
    assert_eq!(
        gpu_004(ArgoClusters::Read(vec![decoded.into()])),
        Vec::<String>::new()
    );

    // cluster_test.go's Secret names another cluster: the GPU cluster has none.
    let other = secret(
        "mycluster",
        &[
            ("name", b"test"),
            ("server", b"http://mycluster"),
            (
                "config",
                br#"{"username":"foo", "disableCompression":true}"#,
            ),
        ],
    );
    // A Secret named after the GPU cluster whose `config` is not JSON: Argo CD refuses it
    // ("failed to unmarshal cluster config"), so it registers nothing and is a finding itself.
    let odd = secret(
        "gpu-sp-01-broken",
        &[
            ("name", b"gpu-sp-01"),
            ("server", b"https://gpu"),
            ("config", b"bearerToken: x"),
        ],
    );
    assert_eq!(
        gpu_004(ArgoClusters::Read(vec![
            cluster_secret(&other).into(),
            cluster_secret(&odd).into()
        ])),
        [
            "warning argocd-sp Argo CD argocd-sp would refuse its cluster Secret \
             argocd/gpu-sp-01-broken: its `config` is not a JSON object",
            "warning gpu-sp-01 GPU cluster gpu-sp-01 has no cluster Secret named gpu-sp-01 in \
             Argo CD argocd-sp (argocd cluster add)",
        ]
    );

    // A refused list is "cannot tell", never "not registered".
    assert_eq!(
        gpu_004(ArgoClusters::Unknown {
            why: "listing Secrets labelled argocd.argoproj.io/secret-type=cluster answered 403 \
                  Forbidden"
                .to_owned()
        }),
        [
            "info argocd-sp cannot tell which clusters Argo CD argocd-sp has registered: listing \
             Secrets labelled argocd.argoproj.io/secret-type=cluster answered 403 Forbidden"
        ]
    );
    // Not read at all (a source that does not list Secrets): nothing either way.
    assert_eq!(gpu_004(ArgoClusters::NotRead), Vec::<String>::new());
}

/// The same against the real kube-apiserver `cargo xtask test` starts (`CPPS_TEST_KUBECONFIG`):
/// `KubeSource` lists the labelled Secrets and GPU-004 reads them. The server is shared, so the
/// GPU clusters carry this test's unique id and only findings naming it are looked at.
#[tokio::test]
async fn gpu_004_reads_cluster_secrets_from_the_api_server() {
    use kube::Api;
    use kube::api::PostParams;
    let Some(client) = kube_common::kube_client().await else {
        return;
    };
    let Some(kubeconfig) = std::env::var_os(kube_common::KUBECONFIG_VAR) else {
        return;
    };
    let id = kube_common::unique("argo");
    kube_common::namespace(&client, &id).await;
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &id);
    let registered = format!("{id}-reg");
    for (name, data) in [
        (
            "registered",
            vec![
                ("name", registered.as_bytes()),
                ("server", b"https://a/" as &[u8]),
            ],
        ),
        (
            "odd",
            vec![("name", b"x" as &[u8]), ("config", b"[1]" as &[u8])],
        ),
    ] {
        let mut s = secret(name, &data);
        s.metadata.namespace = Some(id.clone());
        secrets.create(&PostParams::default(), &s).await.unwrap();
    }
    let yaml = format!(
        "
version: 1
sites:
  - {{ id: sp, state: validated }}
hosts:
  - {{ id: pve-ippri-31, site: sp, gpus: [{{ model: A5000, count: 2 }}], state: validated }}
guests:
  - {{ id: {id}-g1, host: pve-ippri-31, kind: lxc, privileged: true, gpu: {{ model: A5000, count: 1 }}, state: validated }}
  - {{ id: {id}-g2, host: pve-ippri-31, kind: lxc, privileged: true, gpu: {{ model: A5000, count: 1 }}, state: validated }}
  - {{ id: {id}-m, host: pve-ippri-31, kind: vm, state: validated }}
k3s_clusters:
  - {{ id: {id}-reg, site: sp, cni: {{ kind: flannel }}, purpose: gpu, nodes: [{id}-g1], state: validated }}
  - {{ id: {id}-new, site: sp, cni: {{ kind: flannel }}, purpose: gpu, nodes: [{id}-g2], state: validated }}
  - {{ id: main, site: sp, cni: {{ kind: cilium }}, purpose: general, nodes: [{id}-m], state: validated }}
argocd:
  - {{ id: argocd-sp, site: sp, runs_in: main, manages: [main, {id}-reg, {id}-new], state: validated }}
"
    );
    let mut sources = Sources::default();
    sources.site_mut("sp").kubernetes =
        vec![("main".to_owned(), Box::new(KubeSource::new(kubeconfig)))];
    let observed = live::observe(&sources, &ObserveOptions::default()).await;
    let audit = live::audit(
        &load("argo.yaml", &yaml),
        &observed,
        &LiveOptions::default(),
    );
    let mut found = messages(&of_rule(&audit.report.findings, "GPU-004"));
    found.retain(|m| m.contains(&id));
    found.sort();
    assert_eq!(
        found,
        [
            format!(
                "warning {id}-new GPU cluster {id}-new has no cluster Secret named {id}-new in \
                 Argo CD argocd-sp (argocd cluster add)"
            ),
            format!(
                "warning argocd-sp Argo CD argocd-sp would refuse its cluster Secret {id}/odd: \
                 its `config` is not a JSON object"
            ),
        ]
    );
}
