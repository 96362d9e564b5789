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
    gpu_004_with(clusters, None)
}

/// As [`gpu_004`], with the GPU cluster observed too when its kubeconfig's server is
/// `gpu_server` (the endpoints file gives a kubeconfig for it).
fn gpu_004_with(clusters: ArgoClusters, gpu_server: Option<&str>) -> Vec<String> {
    let mut sp = SiteObservation::new("sp");
    sp.kubernetes = vec![(
        "k3s-sp-main".to_owned(),
        Sourced::Observed(KubeFacts {
            server: "kubeconfig".to_owned(),
            argocd_clusters: clusters,
            ..KubeFacts::default()
        }),
    )];
    if let Some(url) = gpu_server {
        sp.kubernetes.push((
            "gpu-sp-01".to_owned(),
            Sourced::Observed(KubeFacts {
                server: "gpu-sp-01.kubeconfig".to_owned(),
                api_server: Some(url.to_owned()),
                ..KubeFacts::default()
            }),
        ));
    }
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

    // cluster_test.go's Secret names another cluster, one the topology does not declare: it may
    // be the GPU cluster registered under another name, so that cannot be told.
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
            "info gpu-sp-01 cannot tell whether GPU cluster gpu-sp-01 is registered in Argo CD \
             argocd-sp: cluster Secret argocd/mycluster (name test, server http://mycluster) \
             names no declared cluster and may be it (argocd cluster add names the Secret after \
             the kubeconfig context unless --name is given)",
            "warning argocd-sp Argo CD argocd-sp would refuse its cluster Secret \
             argocd/gpu-sp-01-broken: its `config` is not a JSON object",
        ]
    );
    // Without it, only the refused Secret: the GPU cluster has none.
    assert_eq!(
        gpu_004(ArgoClusters::Read(vec![cluster_secret(&odd).into()])),
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

/// `argocd cluster add CONTEXT` names the cluster Secret after the kubeconfig context unless
/// `--name` is given (argo-cd `cmd/argocd/commands/cluster.go` `NewClusterAddCommand`:
/// `contextName := args[0]`, replaced by `clusterOpts.Name`), and stores the context's server as
/// `server` (`cmd/util/cluster.go` `NewCluster`: `Server: conf.Host`). K3s writes `k3s.yaml` with
/// the one context `default` (k3s `pkg/clientaccess/kubeconfig.go` `WriteClientKubeConfig`), so a
/// GPU cluster added from it is registered under the name `default`. GPU-004 matches it by its
/// server where the endpoints file gives the GPU cluster's kubeconfig; otherwise such a Secret
/// may be it, and that is "cannot tell", not "not registered".
#[test]
fn gpu_004_matches_a_secret_named_after_the_context_by_server() {
    let default = |server: &[u8]| {
        let s = secret(
            "cluster-10.10.31.50-1234567890",
            &[("name", b"default"), ("server", server), ("config", b"{}")],
        );
        cluster_secret(&s).into()
    };
    // The GPU cluster's kubeconfig names the server the Secret holds: registered.
    assert_eq!(
        gpu_004_with(
            ArgoClusters::Read(vec![default(b"https://10.10.31.50:6443/")]),
            Some("https://10.10.31.50:6443")
        ),
        Vec::<String>::new()
    );
    // Its server is not known (no kubeconfig for the GPU cluster): the `default` Secret may be
    // it.
    let maybe = [
        "info gpu-sp-01 cannot tell whether GPU cluster gpu-sp-01 is registered in Argo CD \
         argocd-sp: cluster Secret argocd/cluster-10.10.31.50-1234567890 (name default, server \
         https://10.10.31.50:6443) names no declared cluster and may be it (argocd cluster add \
         names the Secret after the kubeconfig context unless --name is given)",
    ];
    assert_eq!(
        gpu_004(ArgoClusters::Read(vec![default(
            b"https://10.10.31.50:6443"
        )])),
        maybe
    );
    // A Secret of a declared cluster, or Argo CD's own `in-cluster`, is not a candidate.
    let main = secret(
        "main",
        &[
            ("name", b"k3s-sp-main"),
            ("server", b"https://10.10.31.9:6443"),
        ],
    );
    let local = secret(
        "local",
        &[
            ("name", b"in-cluster"),
            ("server", b"https://kubernetes.default.svc"),
        ],
    );
    assert_eq!(
        gpu_004_with(
            ArgoClusters::Read(vec![
                cluster_secret(&main).into(),
                cluster_secret(&local).into()
            ]),
            Some("https://10.10.31.50:6443")
        ),
        [
            "warning gpu-sp-01 GPU cluster gpu-sp-01 has no cluster Secret named gpu-sp-01 or \
             with server https://10.10.31.50:6443 in Argo CD argocd-sp (argocd cluster add)"
        ]
    );
}

/// Argo CD's settings ConfigMap `argocd-cm` in `id`, the only one on the shared server: one an
/// earlier run left is deleted first.
async fn replace_argocd_cm(client: &kube::Client, id: &str) {
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::Api;
    use kube::api::PostParams;
    // An earlier run of this test on a server still running left its `argocd-cm`: only one may
    // be there (the ids start with `argo-`; no other test creates one).
    let config_maps: Api<ConfigMap> = Api::all(client.clone());
    let named = kube::api::ListParams::default().fields("metadata.name=argocd-cm");
    for old in config_maps.list_metadata(&named).await.unwrap().items {
        let ns = old.metadata.namespace.unwrap_or_default();
        if ns.starts_with("argo-") {
            Api::<ConfigMap>::namespaced(client.clone(), &ns)
                .delete("argocd-cm", &Default::default())
                .await
                .unwrap();
        }
    }
    // Argo CD's settings ConfigMap, as its install manifests label it
    // (`manifests/base/config/argocd-cm.yaml`).
    let cm: ConfigMap = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "argocd-cm", "labels": {
            "app.kubernetes.io/name": "argocd-cm", "app.kubernetes.io/part-of": "argocd"}}
    }))
    .unwrap();
    Api::<ConfigMap>::namespaced(client.clone(), id)
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
}

/// The cluster Secrets: one for `{id}-reg` and one Argo CD would refuse (its `config` is not a
/// JSON object) in Argo CD's namespace `id`, and one for `{id}-new` in another namespace.
async fn create_cluster_secrets(client: &kube::Client, id: &str) {
    use kube::Api;
    use kube::api::PostParams;
    // A cluster Secret for the unregistered cluster, outside Argo CD's namespace.
    let other = format!("{id}-other");
    kube_common::namespace(client, &other).await;
    let new = format!("{id}-new");
    let mut stray = secret(
        "stray",
        &[("name", new.as_bytes()), ("server", b"https://b")],
    );
    stray.metadata.namespace = Some(other.clone());
    Api::<Secret>::namespaced(client.clone(), &other)
        .create(&PostParams::default(), &stray)
        .await
        .unwrap();
    let secrets: Api<Secret> = Api::namespaced(client.clone(), id);
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
        s.metadata.namespace = Some(id.to_owned());
        secrets.create(&PostParams::default(), &s).await.unwrap();
    }
}

/// Two GPU clusters, `{id}-reg` and `{id}-new`, and the cluster `main` Argo CD runs in.
fn argo_estate(id: &str) -> String {
    format!(
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
    )
}

/// The same against the real kube-apiserver `cargo xtask test` starts (`CPPS_TEST_KUBECONFIG`):
/// `KubeSource` lists the labelled Secrets of Argo CD's namespace and GPU-004 reads them. The
/// server is shared, so the GPU clusters carry this test's unique id and only findings naming it
/// are looked at.
///
/// Argo CD reads cluster Secrets from its own namespace only (argo-cd `util/db/secrets.go`
/// `listSecretsByType`: `secretsLister.Secrets(db.ns)`), the namespace that holds its settings
/// ConfigMap `argocd-cm` (`common/common.go` `ArgoCDConfigMapName`; `util/settings/settings.go`
/// `GetConfigMapByName` reads it from `mgr.namespace`). A Secret in another namespace naming the
/// unregistered cluster must not count. This is the only test that creates an `argocd-cm`: a
/// second one on the shared server would make Argo CD's namespace ambiguous.
#[tokio::test]
async fn gpu_004_reads_cluster_secrets_from_the_api_server() {
    let Some(client) = kube_common::kube_client().await else {
        return;
    };
    let Some(kubeconfig) = std::env::var_os(kube_common::KUBECONFIG_VAR) else {
        return;
    };
    let id = kube_common::unique("argo");
    kube_common::namespace(&client, &id).await;
    replace_argocd_cm(&client, &id).await;
    create_cluster_secrets(&client, &id).await;
    let yaml = argo_estate(&id);
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

/// With `cluster.inClusterEnabled: "false"` in `argocd-cm` (argo-cd `util/settings/settings.go`
/// `updateSettingsFromConfigMap`), Argo CD lists neither its local cluster nor a Secret for
/// `https://kubernetes.default.svc` (`util/db/cluster.go` `ListClusters`), so a GPU cluster that
/// Argo CD runs in is no longer exempt: it needs a cluster Secret like any other.
#[test]
fn gpu_004_does_not_exempt_argocds_own_cluster_when_in_cluster_is_off() {
    let topology = load(
        "argocd-in-gpu.yaml",
        "
version: 1
sites:
  - { id: sp, state: validated }
hosts:
  - { id: pve-ippri-31, site: sp, gpus: [{ model: A5000, count: 1 }], state: validated }
guests:
  - { id: gpu-node, host: pve-ippri-31, kind: lxc, privileged: true, gpu: { model: A5000, count: 1 }, state: validated }
k3s_clusters:
  - { id: gpu-sp-01, site: sp, cni: { kind: flannel }, purpose: gpu, nodes: [gpu-node], state: validated }
argocd:
  - { id: argocd-gpu, site: sp, runs_in: gpu-sp-01, manages: [gpu-sp-01], state: validated }
",
    );
    let in_cluster = secret(
        "in-cluster",
        &[
            ("name", b"gpu-sp-01"),
            ("server", b"https://kubernetes.default.svc"),
        ],
    );
    let gpu_004 = |disabled: bool| {
        let mut sp = SiteObservation::new("sp");
        sp.kubernetes = vec![(
            "gpu-sp-01".to_owned(),
            Sourced::Observed(KubeFacts {
                server: "kubeconfig".to_owned(),
                argocd_clusters: ArgoClusters::Read(vec![cluster_secret(&in_cluster).into()]),
                argocd_in_cluster_disabled: disabled,
                ..KubeFacts::default()
            }),
        )];
        let observed = Observation {
            taken_at: NOW,
            sites: vec![sp],
        };
        let audit = live::audit(&topology, &observed, &LiveOptions::at(NOW));
        messages(&of_rule(&audit.report.findings, "GPU-004"))
    };
    assert_eq!(gpu_004(false), Vec::<String>::new());
    assert_eq!(
        gpu_004(true),
        [
            "warning gpu-sp-01 GPU cluster gpu-sp-01 has no cluster Secret named gpu-sp-01 in Argo \
          CD argocd-gpu (argocd cluster add; its argocd-cm sets cluster.inClusterEnabled to false, so its own \
          cluster and Secrets for https://kubernetes.default.svc are not deploy targets)"
        ]
    );
}
