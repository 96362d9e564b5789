//! Against a real kube-apiserver 1.20 + etcd (started by `cargo xtask test`, kubeconfig in
//! `CPPS_TEST_KUBECONFIG`), with the real (or documented-trimmed) CRDs. No controllers run: each
//! test writes objects and their `status` as Kueue, Argo CD, cert-manager and the kubelet would,
//! then reads them back through this crate and checks the findings. Names are unique per test run.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use cpps_gpu::health::{Finding, Severity};
use cpps_gpu::k8s::argocd::{Application, HealthStatusCode, SyncStatusCode};
use cpps_gpu::k8s::checks::{self, CheckPolicy};
use cpps_gpu::k8s::cni::CniKind;
use cpps_gpu::k8s::kueue::{
    AdmissionCheck, ClusterQueue, JobSubmission, LocalQueue, MultiKueueCluster, MultiKueueConfig,
    ResourceFlavor, Until, WorkloadState,
};
use cpps_gpu::k8s::sharing::Strategy;
use cpps_gpu::k8s::{self as k8s};
use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::{ConfigMap, Pod};
use kube::Api;
use kube::api::PostParams;
use serde_json::json;

fn mine<'a>(findings: &'a [Finding], id: &str) -> Vec<&'a Finding> {
    findings
        .iter()
        .filter(|f| f.object.as_deref().is_some_and(|o| o.contains(id)))
        .collect()
}

/// This test's findings as (object with `id` written `ID`, severity, code), sorted.
fn mine_sorted(findings: &[Finding], id: &str) -> Vec<(String, Severity, String)> {
    let mut found: Vec<_> = mine(findings, id)
        .into_iter()
        .map(|f| {
            (
                f.object.clone().unwrap().replace(id, "ID"),
                f.severity,
                f.code.clone(),
            )
        })
        .collect();
    found.sort();
    found
}

/// Asserts that this test's findings are exactly `expected`: (object with `id` written `ID`,
/// severity, code), in [`mine_sorted`]'s order.
#[track_caller]
fn assert_mine(findings: &[Finding], id: &str, expected: &[(&str, Severity, &str)]) {
    let found = mine_sorted(findings, id);
    let found: Vec<(&str, Severity, &str)> = found
        .iter()
        .map(|(object, severity, code)| (object.as_str(), *severity, code.as_str()))
        .collect();
    assert_eq!(found, expected);
}

/// The object `ns/name` among `objects`, panicking when it is missing.
#[track_caller]
fn named<'a, K: kube::Resource>(objects: &'a [K], ns: &str, name: &str) -> &'a K {
    objects
        .iter()
        .find(|o| {
            o.meta().namespace.as_deref() == Some(ns) && o.meta().name.as_deref() == Some(name)
        })
        .unwrap_or_else(|| panic!("{ns}/{name} was not read"))
}

/// The findings of the default checks on `snap`, now, about this test's objects (whose names
/// hold `id`).
fn my_findings(snap: &k8s::ClusterSnapshot, id: &str) -> Vec<Finding> {
    let findings = checks::run(snap, &CheckPolicy::default(), jiff::Timestamp::now());
    mine(&findings, id).into_iter().cloned().collect()
}

/// Creates the ResourceFlavor `name` selecting nodes by `node_labels`.
async fn create_flavor(client: &kube::Client, name: &str, node_labels: &[(&str, &str)]) {
    let labels = node_labels
        .iter()
        .map(|&(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    Api::<ResourceFlavor>::all(client.clone())
        .create(&PostParams::default(), &ResourceFlavor::new(name, labels))
        .await
        .unwrap();
}

/// The ClusterQueue `name` (served at `v1beta2`) with `spec`.
fn cluster_queue(name: &str, spec: serde_json::Value) -> ClusterQueue {
    serde_json::from_value(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue",
        "metadata": {"name": name}, "spec": spec
    }))
    .unwrap()
}

/// Creates [`cluster_queue`] `name` with `spec`; returns it as the server stored it.
async fn create_cluster_queue(
    client: &kube::Client,
    name: &str,
    spec: serde_json::Value,
) -> ClusterQueue {
    Api::<ClusterQueue>::all(client.clone())
        .create(&PostParams::default(), &cluster_queue(name, spec))
        .await
        .unwrap()
}

/// The NVIDIA device plugin as its Helm chart deploys it
/// (`deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml` in
/// NVIDIA/k8s-device-plugin): the config-manager sidecar with `DEFAULT_CONFIG` and
/// `FALLBACK_STRATEGIES`, the ConfigMap mounted as `available-configs` at `/available-configs`
/// (`CONFIG_FILE_SRCDIR`). Returns the DaemonSet's UID, for the owner references of its pods.
async fn device_plugin_daemonset(
    client: &kube::Client,
    ns: &str,
    configmap: &str,
    default_config: &str,
) -> String {
    let api: Api<DaemonSet> = Api::namespaced(client.clone(), ns);
    let image = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0";
    let ds: DaemonSet = serde_json::from_value(json!({
        "metadata": {"name": "nvidia-device-plugin"},
        "spec": {"selector": {"matchLabels": {"app": "nvdp"}},
                 "template": {"metadata": {"labels": {"app": "nvdp"}}, "spec": {
                     "containers": [
                         {"name": "nvidia-device-plugin-sidecar", "image": image, "command": ["config-manager"],
                          "env": [{"name": "NODE_LABEL", "value": "nvidia.com/device-plugin.config"},
                                  {"name": "CONFIG_FILE_SRCDIR", "value": "/available-configs"},
                                  {"name": "DEFAULT_CONFIG", "value": default_config},
                                  {"name": "FALLBACK_STRATEGIES", "value": "named,single"}],
                          "volumeMounts": [{"name": "available-configs", "mountPath": "/available-configs"},
                                           {"name": "config", "mountPath": "/config"}]},
                         {"name": "nvidia-device-plugin-ctr", "image": image, "command": ["nvidia-device-plugin"],
                          "volumeMounts": [{"name": "available-configs", "mountPath": "/available-configs"},
                                           {"name": "config", "mountPath": "/config"}]}],
                     "volumes": [{"name": "available-configs", "configMap": {"name": configmap}},
                                 {"name": "config", "emptyDir": {}}]}}}
    }))
    .unwrap();
    let created = api.create(&PostParams::default(), &ds).await.unwrap();
    created.metadata.uid.unwrap()
}

/// A device-plugin pod of that DaemonSet on `node`, as the DaemonSet controller creates it
/// (owner reference with `controller: true`).
async fn device_plugin_pod(client: &kube::Client, ns: &str, node: &str, ds_uid: &str) {
    let pods: Api<Pod> = Api::namespaced(client.clone(), ns);
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": format!("nvidia-device-plugin-{node}"),
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet",
                         "name": "nvidia-device-plugin", "uid": ds_uid, "controller": true}]},
        "spec": {"nodeName": node, "containers": [
            {"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}
    }))
    .unwrap();
    common::create_with_status(&pods, &pod, running_and_ready()).await;
}

/// The status the kubelet writes for a pod whose containers run and pass readiness
/// (`Running`, condition `Ready` `True`).
fn running_and_ready() -> serde_json::Value {
    json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]})
}

/// The device plugin's ConfigMap in `ns` (one key per node group, `default` for the others)
/// and a decoy ConfigMap with the same key in a namespace the plugin does not mount, whose
/// name it returns.
async fn create_plugin_configmaps(client: &kube::Client, ns: &str, id: &str) -> String {
    let id = id.to_owned();
    let ts = |replicas: u32, extra: &str| {
        format!(
            "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: {replicas}\n{extra}"
        )
    };

    // The plugin's ConfigMap, one key per node group, and the key `default` for the others.
    let cms: Api<ConfigMap> = Api::namespaced(client.clone(), ns);
    let cm: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "time-slicing-config"},
        "data": {
            id.clone(): ts(4, ""),
            format!("{id}-renamed"): ts(4, "      rename: nvidia.com/a5000\n"),
            format!("{id}-mps"): "version: v1\nsharing:\n  mps:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n",
            "default": ts(3, ""),
        }
    }))
    .unwrap();
    cms.create(&PostParams::default(), &cm).await.unwrap();
    // A ConfigMap the plugin does not mount, with the same key: not the plugin's configuration.
    let decoy_ns = format!("{id}-decoy");
    common::namespace(client, &decoy_ns).await;
    let decoy: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "time-slicing-config"},
        "data": {id.clone(): ts(8, ""), "default": ts(8, "")}
    }))
    .unwrap();
    Api::<ConfigMap>::namespaced(client.clone(), &decoy_ns)
        .create(&PostParams::default(), &decoy)
        .await
        .unwrap();
    decoy_ns
}

/// The nodes of the scenario, each with a device-plugin pod of `ds_uid`: the good, stale,
/// renamed, MPS and unlabelled ones; the names of the good, stale and unlabelled ones.
async fn create_plugin_nodes(
    client: &kube::Client,
    ns: &str,
    id: &str,
    ds_uid: &str,
) -> (String, String, String) {
    let node = async |suffix: &str, labels: serde_json::Value, capacity: serde_json::Value| {
        let name = format!("{id}-{suffix}");
        let mut all = json!({"cpps.test/run": id, "nvidia.com/gpu.product": "NVIDIA-RTX-A5000-SHARED",
                             "nvidia.com/gpu.count": "1"});
        all.as_object_mut()
            .unwrap()
            .extend(labels.as_object().unwrap().clone());
        common::gpu_node(client, &name, all, json!({}), capacity).await;
        device_plugin_pod(client, ns, &name, ds_uid).await;
        name
    };
    // gpu-sp-01 as GFD labels it with time-slicing: one A5000, 4 replicas, -SHARED product.
    let good = node(
        "good",
        json!({"nvidia.com/gpu.replicas": "4", "nvidia.com/gpu.sharing-strategy": "time-slicing",
               "nvidia.com/gpu.memory": "24564", "nvidia.com/device-plugin.config": id}),
        json!({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4", "pods": "110"}),
    )
    .await;
    // A node whose capacity disagrees with the configuration (plugin not restarted).
    let stale = node(
        "stale",
        json!({"nvidia.com/gpu.replicas": "2", "nvidia.com/device-plugin.config": id}),
        json!({"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "2", "pods": "110"}),
    )
    .await;
    // The renamed key: the plugin still advertises nvidia.com/gpu (4 of them): only the ignored
    // rename is a finding, not the capacity.
    node(
        "renamed",
        json!({"nvidia.com/device-plugin.config": format!("{id}-renamed")}),
        json!({"nvidia.com/gpu": "4"}),
    )
    .await;
    // MPS with renameByDefault: nvidia.com/gpu.shared, 2 replicas; GFD says mps.
    node(
        "mps",
        json!({"nvidia.com/device-plugin.config": format!("{id}-mps"),
               "nvidia.com/gpu.sharing-strategy": "mps", "nvidia.com/gpu.replicas": "2"}),
        json!({"nvidia.com/gpu.shared": "2"}),
    )
    .await;
    // No label: the `named` fallback picks the key `default` (3 replicas); the node shows 1.
    let unlabelled = node("unlabelled", json!({}), json!({"nvidia.com/gpu": "1"})).await;
    (good, stale, unlabelled)
}

/// The -SHARED trap (a flavor for the plain product name), the flavor for the -SHARED one,
/// and a ClusterQueue asking 20 GPUs of it: the names of the two flavors and of the queue.
async fn create_flavors_and_queue(client: &kube::Client, id: &str) -> (String, String, String) {
    // The -SHARED trap: a flavor written for the plain product name.
    let trap = format!("{id}-a5000");
    let shared = format!("{id}-a5000-shared");
    for (name, product) in [
        (&trap, "NVIDIA-RTX-A5000"),
        (&shared, "NVIDIA-RTX-A5000-SHARED"),
    ] {
        let labels = [("cpps.test/run", id), ("nvidia.com/gpu.product", product)];
        create_flavor(client, name, &labels).await;
    }
    // A ClusterQueue asking 20 GPUs of a flavor whose nodes allocate 4 + 2 + 4 + 0 + 1.
    let cq_name = format!("{id}-cq");
    let created = create_cluster_queue(
        client,
        &cq_name,
        json!({"namespaceSelector": {}, "resourceGroups": [{
            "coveredResources": ["cpu", "nvidia.com/gpu"],
            "flavors": [{"name": shared, "resources": [
                {"name": "cpu", "nominalQuota": "24"},
                {"name": "nvidia.com/gpu", "nominalQuota": 20}]}]}]}),
    )
    .await;
    // The server applied the CRD's defaults (real schema): queueingStrategy, stopPolicy.
    assert_eq!(
        created.spec.queueing_strategy.as_deref(),
        Some("BestEffortFIFO")
    );
    assert_eq!(created.spec.stop_policy.as_deref(), Some("None"));
    (trap, shared, cq_name)
}

/// What the snapshot read: the good node's labels and capacity, the device plugin's
/// configuration and its ConfigMap's keys, and nothing of the decoy.
fn expect_plugin_snapshot(
    snap: &k8s::ClusterSnapshot,
    ns: &str,
    id: &str,
    good: &str,
    decoy_ns: &str,
) {
    let n = snap.nodes.iter().find(|n| n.name == good).unwrap();
    assert_eq!(n.gpu_capacity, Some(4.0));
    assert_eq!(n.gpu_allocatable, Some(4.0));
    assert_eq!(n.product.as_deref(), Some("NVIDIA-RTX-A5000-SHARED"));
    assert_eq!((n.count, n.replicas), (Some(1), Some(4)));
    assert_eq!(n.sharing_strategy.as_deref(), Some("time-slicing"));
    assert_eq!(n.memory_mib, Some(24564));
    assert_eq!(
        n.nvidia_plugin_daemonset.as_deref(),
        Some(format!("{ns}/nvidia-device-plugin").as_str())
    );
    let d = snap
        .device_plugins
        .iter()
        .find(|d| d.daemonset == format!("{ns}/nvidia-device-plugin"))
        .unwrap();
    assert_eq!(
        d.configmap(),
        Some(format!("{ns}/time-slicing-config").as_str())
    );
    assert_eq!(d.node_label, "nvidia.com/device-plugin.config");
    assert_eq!(d.default_config, None);
    assert_eq!(d.fallback_strategies, ["named", "single"]);
    let cfg = snap
        .plugin_configs
        .iter()
        .find(|c| c.key == id && d.configmap() == Some(c.configmap.as_str()))
        .unwrap();
    assert_eq!(cfg.sharing.as_ref().unwrap().gpu_replicas(), Some(4));
    let mps = snap
        .plugin_configs
        .iter()
        .find(|c| c.key == format!("{id}-mps"))
        .unwrap();
    assert_eq!(mps.sharing.as_ref().unwrap().strategy, Strategy::Mps);
    // The decoy ConfigMap is not read at all.
    assert!(
        !snap
            .plugin_configs
            .iter()
            .any(|c| c.configmap.starts_with(decoy_ns))
    );
}

/// Issue 18 items 6 and 7. The device plugin's configuration, as NVIDIA/k8s-device-plugin reads
/// it: the node label `nvidia.com/device-plugin.config` picks a key of the plugin's own ConfigMap,
/// an unlabelled node gets `DEFAULT_CONFIG` or the `named`/`single` fallbacks
/// (`cmd/config-manager/main.go`, `updateConfigName`); a ConfigMap the plugin does not mount is
/// not its configuration, whatever its keys. `sharing.mps` is read (`api/config/v1/sharing.go`);
/// a per-resource `rename` is dropped by the plugin (`api/config/v1/config.go`,
/// `DisableResourceNamingInConfig`, called in `cmd/nvidia-device-plugin/main.go`), so the
/// capacity is checked under the name it really advertises and the rename is a finding.
#[tokio::test]
async fn device_plugin_config_sharing_shared_trap_and_quota_against_real_nodes() {
    let Some((client, id)) = common::kube_namespace("ts").await else {
        return;
    };
    let ns = id.clone();
    let decoy_ns = create_plugin_configmaps(&client, &ns, &id).await;
    let ds_uid = device_plugin_daemonset(&client, &ns, "time-slicing-config", "").await;
    let (good, stale, unlabelled) = create_plugin_nodes(&client, &ns, &id, &ds_uid).await;
    let (trap, shared, cq_name) = create_flavors_and_queue(&client, &id).await;

    let snap = k8s::collect(&client).await.unwrap();
    expect_plugin_snapshot(&snap, &ns, &id, &good, &decoy_ns);

    let found = my_findings(&snap, &id);
    let codes: Vec<(&str, &str)> = found
        .iter()
        .map(|f| (f.code.as_str(), f.object.as_deref().unwrap()))
        .collect();
    let stale_obj = format!("Node {stale}");
    let unlabelled_obj = format!("Node {unlabelled}");
    let trap_obj = format!("ResourceFlavor {trap}");
    let cq_obj = format!("ClusterQueue {cq_name}");
    let renamed_obj = format!("ConfigMap {ns}/time-slicing-config key {id}-renamed");
    let mut expected = vec![
        ("time-slicing-replicas", stale_obj.as_str()),
        ("time-slicing-capacity", stale_obj.as_str()),
        ("time-slicing-capacity", unlabelled_obj.as_str()),
        ("device-plugin-rename-ignored", renamed_obj.as_str()),
        ("flavor-matches-no-node", trap_obj.as_str()),
        ("quota-above-capacity", cq_obj.as_str()),
    ];
    let mut got = codes.clone();
    expected.sort();
    got.sort();
    // The good node, the MPS node, the renamed node's capacity and the -SHARED flavor raise
    // nothing; cpu 24 <= 48 raises nothing.
    assert_eq!(got, expected);
    let msg = |code: &str, object: &str| {
        found
            .iter()
            .find(|f| f.code == code && f.object.as_deref() == Some(object))
            .map(|f| f.message.clone())
            .unwrap()
    };
    assert_eq!(
        msg("time-slicing-capacity", &unlabelled_obj),
        format!(
            "nvidia.com/gpu capacity is 1, expected 1 GPUs x 3 replicas = 3 ({ns}/time-slicing-config key default)"
        )
    );
    assert_eq!(
        msg("device-plugin-rename-ignored", &renamed_obj),
        "sharing.timeSlicing.resources nvidia.com/gpu sets rename nvidia.com/a5000, which the device plugin ignores (DisableResourceNamingInConfig): it advertises nvidia.com/gpu"
    );
    let trap_f = found
        .iter()
        .find(|f| f.code == "flavor-matches-no-node")
        .unwrap();
    assert_eq!(trap_f.severity, Severity::Critical);
    assert!(
        trap_f.message.contains("-SHARED to the product label"),
        "{}",
        trap_f.message
    );
    assert_eq!(
        msg("quota-above-capacity", &cq_obj),
        format!(
            "flavor {shared} nvidia.com/gpu nominalQuota 20 is above the 11 allocatable on its 5 node(s)"
        )
    );
}

/// Issue 18 item 10. `E` (exa) and `Ei` (exbi) are Kubernetes quantities (apimachinery
/// `pkg/api/resource/quantity.go`; the ClusterQueue CRD's own `nominalQuota` pattern accepts
/// `[KMGTPE]i` and `[numkMGTPE]`): the server stores them, the client must read them.
#[tokio::test]
async fn quantities_with_exa_suffixes() {
    let Some((client, id)) = common::kube_with_id("exa").await else {
        return;
    };
    let node = format!("{id}-big");
    common::gpu_node(
        &client,
        &node,
        json!({"cpps.test/run": id}),
        json!({}),
        json!({"memory": "2Ei", "nvidia.com/gpu": "1"}),
    )
    .await;
    let flavor = format!("{id}-big");
    create_flavor(&client, &flavor, &[("cpps.test/run", id.as_str())]).await;
    create_cluster_queue(
        &client,
        &format!("{id}-cq"),
        json!({"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["memory"],
            "flavors": [{"name": flavor, "resources": [{"name": "memory", "nominalQuota": "3E"}]}]}]}),
    )
    .await;
    let snap = k8s::collect(&client).await.unwrap();
    let n = snap.nodes.iter().find(|n| n.name == node).unwrap();
    assert_eq!(n.allocatable.get("memory"), Some(&(2.0 * 2f64.powi(60))));
    let found = my_findings(&snap, &id);
    // The node shows a GPU but runs no device-plugin pod (audit N4): said about the node.
    assert_mine(
        &found,
        &id,
        &[
            (
                "ClusterQueue ID-cq",
                Severity::Warning,
                "quota-above-capacity",
            ),
            ("Node ID-big", Severity::Warning, "device-plugin-absent"),
        ],
    );
    let quota = found
        .iter()
        .find(|f| f.code == "quota-above-capacity")
        .unwrap();
    assert_eq!(
        quota.message,
        format!(
            "flavor {flavor} memory nominalQuota 3E is above the 2305843009213694000 allocatable on its 1 node(s)"
        )
    );
}

#[tokio::test]
async fn hami_and_the_device_plugin_on_one_node() {
    let Some((client, id)) = common::kube_namespace("hami").await else {
        return;
    };
    let both = format!("{id}-both");
    let hami_only = format!("{id}-hami");
    for n in [&both, &hami_only] {
        common::gpu_node(
            &client,
            n,
            json!({"cpps.test/run": id}),
            json!({"hami.io/node-nvidia-register": "GPU-3f8a2c1e,10,24564,100,NVIDIA-NVIDIA RTX A5000,0,true:",
                   "hami.io/node-handshake": "Reported 2026-01-01 00:00:00"}),
            json!({"nvidia.com/gpu": "10", "nvidia.com/gpumem": "24564", "nvidia.com/gpucores": "100"}),
        )
        .await;
    }
    let pods: Api<Pod> = Api::namespaced(client.clone(), &id);
    let pod = |name: &str, node: &str, image: &str| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"nodeName": node, "containers": [{"name": "plugin", "image": image}]}
        }))
        .unwrap()
    };
    let nvidia = pod(
        "nvidia-device-plugin",
        &both,
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
    );
    common::create_with_status(&pods, &nvidia, running_and_ready()).await;
    let hami = pod(
        "hami-device-plugin",
        &hami_only,
        "docker.io/projecthami/hami:v2.4.1",
    );
    common::create_with_status(&pods, &hami, running_and_ready()).await;
    // HAMi's plugin runs on `both` too: what runs decides, not the register annotation,
    // which HAMi never removes (Project-HAMi/HAMi `pkg/device/nvidia/device.go` `NodeCleanUp`).
    let hami_both = pod(
        "hami-device-plugin-both",
        &both,
        "docker.io/projecthami/hami:v2.4.1",
    );
    common::create_with_status(&pods, &hami_both, running_and_ready()).await;

    let snap = k8s::collect(&client).await.unwrap();
    let n = snap.nodes.iter().find(|n| n.name == both).unwrap();
    assert!(n.hami_registered);
    assert_eq!(n.hami_gpumem, Some(24564.0));
    assert_eq!(n.hami_gpucores, Some(100.0));
    assert_eq!(
        n.nvidia_plugin_pod.as_deref(),
        Some(format!("{id}/nvidia-device-plugin").as_str())
    );
    let h = snap.nodes.iter().find(|n| n.name == hami_only).unwrap();
    assert_eq!(
        h.hami_plugin_pod.as_deref(),
        Some(format!("{id}/hami-device-plugin").as_str())
    );
    assert_eq!(h.nvidia_plugin_pod, None);

    assert_mine(
        &my_findings(&snap, &id),
        &id,
        &[("Node ID-both", Severity::Critical, "hami-and-device-plugin")],
    );
}

/// The flavor, the ClusterQueue `cq` with the status Kueue would write, and three LocalQueues:
/// `team-a` on `cq`, `orphan` on a queue that does not exist, and `no-cq` without one.
async fn create_queues(client: &kube::Client, id: &str, flavor: &str, cq: &str) {
    create_flavor(client, flavor, &[]).await;
    let cq_obj = cluster_queue(
        cq,
        json!({"namespaceSelector": {}, "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
            "flavors": [{"name": flavor, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": "4"}]}]}]}),
    );
    let cqs: Api<ClusterQueue> = Api::all(client.clone());
    common::create_with_status(&cqs, &cq_obj, json!({
        "pendingWorkloads": 0, "reservingWorkloads": 1, "admittedWorkloads": 1,
        "flavorsUsage": [{"name": flavor, "resources": [{"name": "nvidia.com/gpu", "total": "1", "borrowed": "0"}]}],
        "conditions": [{"type": "Active", "status": "True", "reason": "Ready", "message": "Can admit new workloads",
                        "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    }))
    .await;
    let lqs: Api<LocalQueue> = Api::namespaced(client.clone(), id);
    lqs.create(&PostParams::default(), &LocalQueue::new(id, "team-a", cq))
        .await
        .unwrap();
    // A LocalQueue pointing at a ClusterQueue that does not exist.
    lqs.create(
        &PostParams::default(),
        &LocalQueue::new(id, "orphan", &format!("{id}-nope")),
    )
    .await
    .unwrap();
    // Issue 34 D3: `spec.clusterQueue` is optional (kueue `apis/kueue/v1beta2/localqueue_types.go`,
    // `+optional`, omitempty); such a queue is a finding, and the rest of the list is still read.
    let mut no_cq = LocalQueue::new(id, "no-cq", cq);
    no_cq.spec.cluster_queue = None;
    lqs.create(&PostParams::default(), &no_cq).await.unwrap();
}

/// The Job the submission plans is suspended and names its LocalQueue; a dry run is validated
/// by the server, gets a generated name, and stores nothing.
async fn expect_dry_run(client: &kube::Client, id: &str, submission: &JobSubmission) {
    let plan = submission.job();
    assert_eq!(plan.spec.as_ref().unwrap().suspend, Some(true));
    assert_eq!(
        plan.metadata
            .labels
            .as_ref()
            .unwrap()
            .get("kueue.x-k8s.io/queue-name")
            .map(String::as_str),
        Some("team-a")
    );
    // Dry run: validated by the server, nothing stored.
    let dry = submission.submit(client, true).await.unwrap();
    // The server generated a name (`generateName`) in the dry run too, and stored nothing.
    assert!(
        dry.metadata
            .name
            .as_deref()
            .is_some_and(|n| n.starts_with("finetune-")),
        "{:?}",
        dry.metadata.name
    );
    let jobs: Api<Job> = Api::namespaced(client.clone(), id);
    assert!(
        jobs.list(&Default::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

/// What the snapshot read of the queues: the status the real CRD schema kept, the LocalQueue,
/// the Workload owned by the Job `uid`, and the findings about the two odd LocalQueues.
async fn expect_queues_read(client: &kube::Client, id: &str, cq: &str, uid: &str) {
    // Reads, and what the real CRD schema kept of the status Kueue would write.
    let snap = k8s::collect(client).await.unwrap();
    let cq_read = snap
        .cluster_queues
        .iter()
        .find(|c| c.metadata.name.as_deref() == Some(cq))
        .unwrap();
    let st = cq_read.status.as_ref().unwrap();
    assert_eq!(
        (
            st.queue.pending_workloads,
            st.queue.reserving_workloads,
            st.queue.admitted_workloads
        ),
        (Some(0), Some(1), Some(1))
    );
    assert_eq!(
        st.flavors_usage[0].resources[0].total.as_ref().unwrap().0,
        "1"
    );
    assert_eq!(st.queue.conditions[0].type_, "Active");
    assert!(
        snap.local_queues
            .iter()
            .any(|l| l.metadata.namespace.as_deref() == Some(id)
                && l.spec.cluster_queue.as_deref() == Some(cq))
    );
    assert!(snap.workloads.iter().any(|w| w.is_owned_by(uid)));
    assert_mine(
        &my_findings(&snap, id),
        id,
        &[
            (
                "LocalQueue ID/no-cq",
                Severity::Warning,
                "localqueue-without-clusterqueue",
            ),
            (
                "LocalQueue ID/orphan",
                Severity::Warning,
                "localqueue-without-clusterqueue",
            ),
        ],
    );
}

#[tokio::test]
async fn job_to_local_queue_followed_to_admission() {
    let Some((client, id)) = common::kube_namespace("kq").await else {
        return;
    };
    let flavor = format!("{id}-gpu");
    let cq = format!("{id}-cq");
    create_queues(&client, &id, &flavor, &cq).await;

    let submission = JobSubmission::new(
        &id,
        "finetune",
        "team-a",
        "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        &["nvidia-smi"],
        1,
    );
    expect_dry_run(&client, &id, &submission).await;

    let kueue = tokio::spawn(common::act_as_kueue(
        client.clone(),
        id.clone(),
        "finetune".to_owned(),
        cq.clone(),
        flavor.clone(),
        None,
    ));
    let job = submission.submit(&client, false).await.unwrap();
    let uid = job.metadata.uid.clone().unwrap();
    let limits = job.spec.unwrap().template.spec.unwrap().containers[0]
        .resources
        .clone()
        .unwrap()
        .limits
        .unwrap();
    assert_eq!(limits["nvidia.com/gpu"].0, "1");
    let followed = k8s::kueue::follow_workload(
        &client,
        &id,
        &uid,
        Until::Admitted,
        Duration::from_secs(20),
        Duration::from_millis(50),
    )
    .await
    .unwrap();
    assert!(!followed.timed_out);
    let (wl, states) = (followed.workload.unwrap(), followed.states);
    kueue.await.unwrap();
    assert_eq!(
        states,
        vec![
            WorkloadState::Pending,
            WorkloadState::QuotaReserved {
                cluster_queue: cq.clone()
            },
            WorkloadState::Admitted {
                cluster_queue: cq.clone()
            },
        ]
    );
    let admission = wl.status.as_ref().unwrap().admission.as_ref().unwrap();
    assert_eq!(
        admission.pod_set_assignments[0].flavors["nvidia.com/gpu"],
        flavor
    );
    assert_eq!(wl.spec.pod_sets[0].count, 1);
    assert_eq!(wl.spec.queue_name.as_deref(), Some("team-a"));

    expect_queues_read(&client, &id, &cq, &uid).await;
}

/// The batch path end to end: the Job is created, its Workload followed to admission and
/// completion, and the placement read (ClusterQueue and flavor from `status.admission`, the node
/// from the Job's pods). Kueue's part is played by `common::act_as_kueue`, which stands in for
/// the Kueue controller (and the Job controller and scheduler) this API server does not run.
#[tokio::test]
async fn batch_run_to_completion_reports_where_it_ran() {
    let Some((client, id)) = common::kube_namespace("batch").await else {
        return;
    };
    let (node, kueue) = common::kueue_running_on_a_gpu_node(&client, &id, "smoke").await;
    let submission = JobSubmission::new(
        &id,
        "smoke",
        "team-a",
        "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04",
        &["nvidia-smi", "-L"],
        1,
    );
    let batch = |submission, timeout| {
        k8s::kueue::run_batch(&client, submission, timeout, Duration::from_millis(50))
    };
    let run = batch(&submission, Duration::from_secs(20)).await.unwrap();
    kueue.await.unwrap();
    assert!(!run.followed.timed_out);
    assert!(run.succeeded(), "{:?}", run.followed.states);
    assert!(run.job.starts_with(&format!("{id}/smoke-")), "{}", run.job);
    assert_eq!(
        run.followed.states.last(),
        Some(&WorkloadState::Finished {
            reason: "Succeeded".to_owned()
        })
    );
    let placement = run.placement.unwrap();
    assert_eq!(placement.cluster_queue, Some(format!("{id}-cq")));
    assert_eq!(
        placement.flavors,
        BTreeMap::from([("main/nvidia.com/gpu".to_owned(), format!("{id}-a5000"))])
    );
    assert_eq!(placement.nodes, [node]);
    assert_eq!(placement.worker_cluster, None);

    // Nobody admits this one: the timeout ends the wait and what was seen is still returned.
    let late = JobSubmission::new(&id, "late", "team-a", "busybox", &["true"], 0);
    let run = batch(&late, Duration::from_millis(600)).await.unwrap();
    assert!(run.followed.timed_out);
    assert_eq!(run.followed.states, []);
    assert_eq!(run.placement, None);
}

/// Suspected item of issue 34, confirmed: with a fixed name the second `--apply` of the same
/// submission got 409 AlreadyExists from the server. With `generateName` (k8s.io/apimachinery
/// `meta/v1/types.go` `ObjectMeta.GenerateName`) each submission is a Job of its own.
#[tokio::test]
async fn a_second_submission_gets_its_own_job() {
    let Some((client, id)) = common::kube_namespace("again").await else {
        return;
    };
    let submission = JobSubmission::new(&id, "smoke", "team-a", "busybox", &["true"], 0);
    let first = submission.submit(&client, false).await.unwrap();
    let second = submission
        .submit(&client, false)
        .await
        .expect("no 409 AlreadyExists");
    let (a, b) = (first.metadata.name.unwrap(), second.metadata.name.unwrap());
    assert_ne!(a, b);
    assert!(
        a.starts_with("smoke-") && b.starts_with("smoke-"),
        "{a} {b}"
    );
    // `ttlSecondsAfterFinished` is not asserted here: this 1.20 server drops it (feature gate
    // TTLAfterFinished, alpha until 1.21, GA in 1.23); the unit test pins what is sent.
}

/// A JWT whose payload is `{"exp":4102444800}` (2100-01-01, base64url per RFC 7515); the
/// header and signature are not read.
const FUTURE_TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjQxMDI0NDQ4MDB9.c2ln";
/// The same with `{"exp":1700000000}` (2023-11-14).
const EXPIRED_TOKEN: &str = "eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjE3MDAwMDAwMDB9.c2ln";

/// Writes Secret `name` in Kueue's default namespace (created when missing) with `data` as
/// its string data, as an operator gives the MultiKueue manager a worker's kubeconfig (kueue
/// `MultiKueueConfigSecretKey`: key `kubeconfig`).
async fn kueue_secret(client: &kube::Client, name: &str, data: serde_json::Value) {
    use k8s_openapi::api::core::v1::{ConfigMap, Namespace, Secret};
    let ns = k8s::worker_kubeconfig::DEFAULT_KUEUE_NAMESPACE;
    let namespace: Namespace = serde_json::from_value(json!({"metadata": {"name": ns}})).unwrap();
    // Shared by every test: created once, "already exists" is fine.
    let _ = Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await;
    // Kueue's Configuration, as its manifests install it (kueue
    // `config/components/manager/controller_manager_config.yaml`, named `kueue-manager-config`
    // by `config/default/kustomization.yaml`): without `namespace`, the ConfigMap's own is
    // Kueue's, and nothing else tells it here (no manager pod runs).
    let config: ConfigMap = serde_json::from_value(json!({
        "metadata": {"name": "kueue-manager-config"},
        "data": {"controller_manager_config.yaml":
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nhealth:\n  healthProbeBindAddress: :8081\n"},
    }))
    .unwrap();
    let _ = Api::<ConfigMap>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &config)
        .await;
    let secret: Secret =
        serde_json::from_value(json!({"metadata": {"name": name}, "stringData": data})).unwrap();
    Api::<Secret>::namespaced(client.clone(), ns)
        .create(&PostParams::default(), &secret)
        .await
        .unwrap();
}

/// A kubeconfig for a worker whose user has `token`.
fn worker_kubeconfig(token: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\ncurrent-context: w\nclusters:\n- name: w\n  cluster: {{server: 'https://127.0.0.1:6443'}}\ncontexts:\n- name: w\n  context: {{cluster: w, user: u}}\nusers:\n- name: u\n  user: {{token: {token}}}\n"
    )
}

async fn multikueue_cluster(client: &kube::Client, name: &str, active: bool) {
    kueue_secret(
        client,
        name,
        json!({"kubeconfig": worker_kubeconfig(FUTURE_TOKEN)}),
    )
    .await;
    multikueue_cluster_without_secret(client, name, active).await;
}

async fn multikueue_cluster_without_secret(client: &kube::Client, name: &str, active: bool) {
    let api: Api<MultiKueueCluster> = Api::all(client.clone());
    let mk: MultiKueueCluster = serde_json::from_value(json!({
        "apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "MultiKueueCluster", "metadata": {"name": name},
        "spec": {"kubeConfig": {"location": name, "locationType": "Secret"}}
    }))
    .unwrap();
    common::create_with_status(
        &api,
        &mk,
        json!({"conditions": [{"type": "Active", "status": if active { "True" } else { "False" },
        "reason": if active { "Active" } else { "ClientConnectionFailed" },
        // Not "": this 1.20 server turns an empty string in a custom resource into null.
        "message": if active { "Connected" } else { "dial tcp: connection refused" },
        "lastTransitionTime": "2026-01-01T00:00:00Z"}]}),
    )
    .await;
}

/// The manager's side of MultiKueue: two workers' MultiKueueClusters (franca inactive), a
/// config naming them and a ghost, a config naming franca only, an AdmissionCheck on each, and
/// a ClusterQueue of 16 GPUs of a flavor no local node has: the first check's and config's names.
async fn create_multikueue_manager(client: &kube::Client, id: &str) -> (String, String) {
    let franca = format!("{id}-franca");
    let sp = format!("{id}-sp");
    let ghost = format!("{id}-ghost");
    multikueue_cluster(client, &franca, false).await;
    multikueue_cluster(client, &sp, true).await;
    let configs: Api<MultiKueueConfig> = Api::all(client.clone());
    let config = format!("{id}-workers");
    configs
        .create(
            &PostParams::default(),
            &MultiKueueConfig::new(&config, &[&franca, &sp, &ghost]),
        )
        .await
        .unwrap();
    let down = format!("{id}-down");
    configs
        .create(
            &PostParams::default(),
            &MultiKueueConfig::new(&down, &[&franca]),
        )
        .await
        .unwrap();
    let checks_api: Api<AdmissionCheck> = Api::all(client.clone());
    let ac = format!("{id}-multikueue");
    let ac_down = format!("{id}-multikueue-down");
    for (name, cfg) in [(&ac, &config), (&ac_down, &down)] {
        checks_api
            .create(
                &PostParams::default(),
                &AdmissionCheck::multikueue(name, cfg),
            )
            .await
            .unwrap();
    }
    // The manager's queue: a flavor of the workers' GPUs (no such node here), 16 GPUs.
    let flavor = format!("{id}-worker-a5000");
    let product = format!("{id}-NVIDIA-RTX-A5000");
    create_flavor(client, &flavor, &[("nvidia.com/gpu.product", &product)]).await;
    create_cluster_queue(
        client,
        &format!("{id}-manager"),
        json!({"namespaceSelector": {},
               "admissionChecksStrategy": {"admissionChecks": [{"name": ac}]},
               "resourceGroups": [{"coveredResources": ["nvidia.com/gpu"],
                  "flavors": [{"name": flavor, "resources": [{"name": "nvidia.com/gpu", "nominalQuota": 16}]}]}]}),
    )
    .await;
    (ac, config)
}

/// Issue 18 items 8 and 9. A MultiKueue manager (kubernetes-sigs/kueue: an AdmissionCheck with
/// `controllerName: kueue.x-k8s.io/multikueue`, `apis/kueue/v1beta1/multikueue_types.go`
/// `MultiKueueControllerName`, whose parameters name a MultiKueueConfig listing
/// MultiKueueCluster objects) dispatches Workloads to worker clusters: its flavors match no local
/// node and its quotas exceed local capacity by design, so those checks do not apply to its
/// queues; what it needs instead is what Kueue's AdmissionCheck controller checks
/// (`pkg/controller/admissionchecks/multikueue/admissioncheck.go`): every cluster of the config
/// exists and is `Active`, and at least one is usable.
///
/// Versions: this server serves AdmissionCheck, MultiKueueConfig and MultiKueueCluster at
/// `v1beta1` only (older Kueue's layout, see the fixtures' README) and the other kinds at
/// `v1beta2`; each is read at the version served and the report says which.
#[tokio::test]
async fn multikueue_manager_is_checked_for_workers_not_flavors() {
    let Some((client, id)) = common::kube_with_id("mk").await else {
        return;
    };
    let (ac, config) = create_multikueue_manager(&client, &id).await;

    let snap = k8s::collect(&client).await.unwrap();
    assert!(snap.is_multikueue_manager());
    let versions: Vec<(&str, &str)> = snap
        .kueue_versions
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        versions,
        [
            ("AdmissionCheck", "v1beta1"),
            ("ClusterQueue", "v1beta2"),
            ("LocalQueue", "v1beta2"),
            ("MultiKueueCluster", "v1beta1"),
            ("MultiKueueConfig", "v1beta1"),
            ("ResourceFlavor", "v1beta2"),
            ("Workload", "v1beta2"),
        ]
    );
    let read = snap
        .admission_checks
        .iter()
        .find(|a| a.metadata.name.as_deref() == Some(ac.as_str()))
        .unwrap();
    assert_eq!(read.api_version, "kueue.x-k8s.io/v1beta1");
    assert_eq!(read.multikueue_config(), Some(config.as_str()));
    let ours: Vec<_> = snap
        .multikueue_clusters
        .iter()
        .filter(|m| m.metadata.name.as_deref().unwrap().contains(&id))
        .collect();
    assert_eq!(ours.len(), 2);

    let findings = checks::run(&snap, &CheckPolicy::default(), jiff::Timestamp::now());
    // No flavor-matches-no-node, no quota-above-capacity for the manager's queue.
    assert_mine(
        &findings,
        &id,
        &[
            (
                "AdmissionCheck ID-multikueue-down",
                Severity::Critical,
                "multikueue-no-usable-cluster",
            ),
            (
                "MultiKueueCluster ID-franca",
                Severity::Warning,
                "multikueue-cluster-inactive",
            ),
            (
                "MultiKueueCluster ID-ghost",
                Severity::Warning,
                "multikueue-cluster-missing",
            ),
        ],
    );
    let versions = findings.iter().find(|f| f.code == "kueue-version").unwrap();
    assert_eq!(
        versions.message,
        "Kueue read at v1beta2 (ClusterQueue, LocalQueue, ResourceFlavor, Workload); v1beta1 (AdmissionCheck, MultiKueueCluster, MultiKueueConfig)"
    );
}

#[tokio::test]
async fn argocd_applications_and_certificate_expiry() {
    let Some((client, id)) = common::kube_namespace("gitops").await else {
        return;
    };
    let mut ok = Application::new(
        &id,
        "openobserve",
        "default",
        "https://kubernetes.default.svc",
        "observability",
    );
    ok.spec.other.insert("source".to_owned(), json!({"repoURL": "https://git.example.invalid/infra.git", "path": "apps/o2", "targetRevision": "HEAD"}));
    let ok_status = json!({"sync": {"status": "Synced", "revision": "abc123"}, "health": {"status": "Healthy"},
        "operationState": {"phase": "Succeeded", "message": "successfully synced", "startedAt": "2026-01-01T00:00:00Z",
                           "finishedAt": "2026-01-01T00:00:05Z", "operation": {"sync": {"revision": "abc123"}}},
        "reconciledAt": "2026-01-01T00:00:10Z"});
    let bad = Application::new(&id, "vllm", "gpu", "https://gpu-sp-01:6443", "inference");
    let bad_status = json!({"sync": {"status": "OutOfSync", "revision": "def456"},
        "health": {"status": "Degraded", "message": "Deployment vllm has 0/1 ready"},
        "operationState": {"phase": "Failed", "message": "one or more objects failed to apply", "startedAt": "2026-01-01T00:00:00Z",
                           "operation": {"sync": {"revision": "def456"}}},
        "conditions": [{"type": "ComparisonError", "message": "rpc error: repository not accessible"}],
        "resources": [{"kind": "Deployment", "name": "vllm", "status": "OutOfSync"}]});
    for (app, status) in [(ok, ok_status), (bad, bad_status)] {
        common::application_with_status(&client, &app, status).await;
    }

    // Whole seconds: the API server stores times to the second.
    let now = jiff::Timestamp::from_second(jiff::Timestamp::now().as_second()).unwrap();
    let at = |days: i64| (now + jiff::SignedDuration::from_hours(24 * days)).to_string();
    for (name, days, ready) in [
        ("fresh", 80, true),
        ("soon", 10, true),
        ("urgent", 2, true),
        ("gone", -2, false),
    ] {
        common::certificate_with_status(&client, &id, name, json!({
            "conditions": [{"type": "Ready", "status": if ready { "True" } else { "False" },
                "reason": if ready { "Ready" } else { "Expired" },
                "message": if ready { "Certificate is up to date and has not expired" } else { "Certificate expired" },
                "lastTransitionTime": at(-30), "observedGeneration": 1}],
            "notBefore": at(days - 90), "notAfter": at(days), "renewalTime": at(days - 30), "revision": 3
        }))
        .await;
    }

    let snap = k8s::collect(&client).await.unwrap();
    let vllm = named(&snap.applications, &id, "vllm");
    let st = vllm.status.as_ref().unwrap();
    assert_eq!(st.sync.as_ref().unwrap().status, SyncStatusCode::OutOfSync);
    assert_eq!(
        st.health.as_ref().unwrap().status,
        Some(HealthStatusCode::Degraded)
    );
    // Fields the trimmed CRD keeps as unknown survive the round trip.
    assert_eq!(st.other["resources"][0]["name"], "vllm");
    let o2 = named(&snap.applications, &id, "openobserve");
    assert_eq!(o2.spec.other["source"]["path"], "apps/o2");
    let soon = named(&snap.certificates, &id, "soon");
    assert_eq!(
        soon.status
            .as_ref()
            .unwrap()
            .not_after
            .as_ref()
            .unwrap()
            .0
            .to_string(),
        at(10)
    );
    assert!(soon.is_ready());

    let findings = checks::run(&snap, &CheckPolicy::default(), now);
    assert_mine(
        &findings,
        &id,
        &[
            ("Application ID/vllm", Severity::Warning, "argocd-condition"),
            (
                "Application ID/vllm",
                Severity::Warning,
                "argocd-out-of-sync",
            ),
            (
                "Application ID/vllm",
                Severity::Critical,
                "argocd-sync-failed",
            ),
            (
                "Application ID/vllm",
                Severity::Critical,
                "argocd-unhealthy",
            ),
            ("Certificate ID/gone", Severity::Warning, "cert-not-ready"),
            ("Certificate ID/gone", Severity::Critical, "cert-expired"),
            ("Certificate ID/soon", Severity::Warning, "cert-expiring"),
            ("Certificate ID/urgent", Severity::Critical, "cert-expiring"),
        ],
    );
}

/// The CNIs' DaemonSets as their manifests name them (`cilium` of cilium/cilium
/// `install/kubernetes/cilium/templates/cilium-agent/daemonset.yaml`, `kube-flannel-ds` of
/// flannel-io/flannel `Documentation/kube-flannel.yml`; the images: `k8s::cni`'s unit test):
/// kind and version from the image, readiness from the status the server stored.
#[tokio::test]
async fn cni_observed_from_daemonsets() {
    let Some((client, id)) = common::kube_namespace("cni").await else {
        return;
    };
    let dss: Api<DaemonSet> = Api::namespaced(client.clone(), &id);
    for (name, image) in [
        (
            "cilium",
            "quay.io/cilium/cilium:v1.16.3@sha256:62d2a09bbef840a46099ac4c69421c90f84f28d018d479749049011329aa7f28",
        ),
        ("kube-flannel-ds", "docker.io/flannel/flannel:v0.25.7"),
    ] {
        let ds: DaemonSet = serde_json::from_value(json!({
            "metadata": {"name": name},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "agent", "image": image}]}}}
        }))
        .unwrap();
        common::create_with_status(
            &dss,
            &ds,
            json!({"currentNumberScheduled": 3, "desiredNumberScheduled": 3,
            "numberMisscheduled": 0, "numberReady": 2}),
        )
        .await;
    }
    let snap = k8s::collect(&client).await.unwrap();
    for (ds, kind, version) in [
        ("cilium", CniKind::Cilium, "v1.16.3"),
        ("kube-flannel-ds", CniKind::Flannel, "v0.25.7"),
    ] {
        let source = format!("DaemonSet {id}/{ds}");
        let cni = snap
            .cni
            .iter()
            .find(|c| c.source == source)
            .unwrap_or_else(|| panic!("{source} not observed: {:?}", snap.cni));
        assert_eq!(
            (&cni.kind, cni.version.as_deref(), cni.ready),
            (&kind, Some(version), Some((2, 3))),
            "{source}"
        );
    }
    let policy = CheckPolicy::default().with_expected_cni(CniKind::Flannel);
    let findings = checks::run(&snap, &policy, jiff::Timestamp::now());
    assert!(
        findings.iter().any(|f| f.code == "cni-unexpected"),
        "{findings:?}"
    );
}

#[tokio::test]
async fn bad_kubeconfig_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kubeconfig");
    std::fs::write(&path, "apiVersion: v1\nclusters: [oops\n").unwrap();
    let Err(err) = k8s::client_from_kubeconfig(&path).await else {
        panic!("a broken kubeconfig gave a client")
    };
    assert!(matches!(err, cpps_gpu::Error::Kubeconfig { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("cannot use kubeconfig {}", path.display())
    );
}

/// Issue 34, cluster-side readiness: device-plugin pods as the kubelet reports them. A
/// container in `CrashLoopBackOff` (kubernetes `pkg/kubelet/container/sync_result.go`,
/// `ErrCrashLoopBackOff`, the waiting reason of a container restarted with back-off) is
/// critical; `Ready` `False` (k8s.io/api `core/v1` `PodReady`) a warning; no `Ready` condition
/// at all is "cannot tell", never fine; a Ready pod is no finding.
#[tokio::test]
async fn device_plugin_pods_that_do_not_serve_are_found() {
    let Some((client, id)) = common::kube_namespace("gpu-plugin-pods").await else {
        return;
    };
    let pods: Api<Pod> = Api::namespaced(client.clone(), &id);
    let plugin = |name: &str| -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": format!("nvidia-device-plugin-{name}")},
            "spec": {"nodeName": format!("{id}-{name}"), "containers": [
                {"name": "nvidia-device-plugin-ctr", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}]}
        }))
        .unwrap()
    };
    common::create_with_status(&pods, &plugin("ready"), running_and_ready()).await;
    let looping = json!({
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
        "containerStatuses": [{"name": "nvidia-device-plugin-ctr", "ready": false, "restartCount": 7,
            "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "imageID": "",
            "state": {"waiting": {"reason": "CrashLoopBackOff",
                "message": "back-off 5m0s restarting failed container"}}}]
    });
    common::create_with_status(&pods, &plugin("looping"), looping).await;
    let not_ready = json!({
        "phase": "Running",
        "conditions": [{"type": "Ready", "status": "False", "reason": "ContainersNotReady"}],
        "containerStatuses": [{"name": "nvidia-device-plugin-ctr", "ready": false, "restartCount": 0,
            "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", "imageID": "",
            "state": {"waiting": {"reason": "ContainerCreating"}}}]
    });
    common::create_with_status(&pods, &plugin("starting"), not_ready).await;
    common::create_with_status(&pods, &plugin("pending"), json!({"phase": "Pending"})).await;

    // K3s's own RuntimeClass (k3s-io/k3s `manifests/runtimes.yaml`), under this test's name
    // since RuntimeClasses are cluster-wide: read back with its handler.
    let rc: k8s_openapi::api::node::v1::RuntimeClass = serde_json::from_value(json!({
        "metadata": {"name": format!("{id}-nvidia")}, "handler": "nvidia"
    }))
    .unwrap();
    Api::<k8s_openapi::api::node::v1::RuntimeClass>::all(client.clone())
        .create(&PostParams::default(), &rc)
        .await
        .unwrap();

    let snap = k8s::collect(&client).await.unwrap();
    let classes = snap.runtime_classes.as_ref().expect("RuntimeClasses read");
    assert_eq!(
        classes.get(&format!("{id}-nvidia")).map(String::as_str),
        Some("nvidia")
    );
    let looping = snap
        .plugin_pods
        .iter()
        .find(|p| p.pod == format!("{id}/nvidia-device-plugin-looping"))
        .unwrap();
    assert_eq!(looping.restarts, 7);
    assert_eq!(looping.ready, Some(false));
    let findings = my_findings(&snap, &id);
    assert_mine(
        &findings,
        &id,
        &[
            (
                "Pod ID/nvidia-device-plugin-looping",
                Severity::Critical,
                "device-plugin-crashlooping",
            ),
            (
                "Pod ID/nvidia-device-plugin-pending",
                Severity::Warning,
                "device-plugin-readiness-unknown",
            ),
            (
                "Pod ID/nvidia-device-plugin-starting",
                Severity::Warning,
                "device-plugin-not-ready",
            ),
        ],
    );
    let message = |code: &str| {
        findings
            .iter()
            .find(|f| f.code == code)
            .map(|f| f.message.replace(&id, "ID"))
    };
    assert_eq!(
        message("device-plugin-crashlooping").as_deref(),
        Some(
            "device plugin on ID-looping: nvidia-device-plugin-ctr in CrashLoopBackOff (7 restarts); the node's GPUs are not advertised"
        )
    );
    assert_eq!(
        message("device-plugin-not-ready").as_deref(),
        Some(
            "device plugin on ID-starting is not Ready (phase Running; nvidia-device-plugin-ctr: ContainerCreating)"
        )
    );
}

/// Issue 34: the MultiKueue manager reaches a worker through the kubeconfig in a Secret of
/// Kueue's namespace (kueue `apis/kueue/v1beta2/multikueue_types.go`,
/// `MultiKueueConfigSecretKey` "kubeconfig", `SecretLocationType`). A missing Secret or key is
/// critical; an expired bearer token (its JWT `exp`, RFC 7519) is judged like a certificate;
/// the token never appears in a finding.
#[tokio::test]
async fn multikueue_worker_kubeconfig_secrets_are_read_for_presence_and_expiry() {
    let Some((client, id)) = common::kube_with_id("gpu-mk-secret").await else {
        return;
    };
    common::install_crds(&client).await;
    let (good, expired, missing, nokey) = (
        format!("{id}-good"),
        format!("{id}-expired"),
        format!("{id}-missing"),
        format!("{id}-nokey"),
    );
    multikueue_cluster(&client, &good, true).await;
    kueue_secret(
        &client,
        &expired,
        json!({"kubeconfig": worker_kubeconfig(EXPIRED_TOKEN)}),
    )
    .await;
    multikueue_cluster_without_secret(&client, &expired, true).await;
    multikueue_cluster_without_secret(&client, &missing, true).await;
    kueue_secret(
        &client,
        &nokey,
        json!({"config": "not the key Kueue reads"}),
    )
    .await;
    multikueue_cluster_without_secret(&client, &nokey, true).await;

    let snap = k8s::collect(&client).await.unwrap();
    let findings = my_findings(&snap, &id);
    assert_mine(
        &findings,
        &id,
        &[
            (
                "MultiKueueCluster ID-expired",
                Severity::Critical,
                "multikueue-token-expired",
            ),
            (
                "MultiKueueCluster ID-missing",
                Severity::Critical,
                "multikueue-kubeconfig-missing",
            ),
            (
                "MultiKueueCluster ID-nokey",
                Severity::Critical,
                "multikueue-kubeconfig-missing",
            ),
        ],
    );
    let expired_finding = findings
        .iter()
        .find(|f| f.code == "multikueue-token-expired")
        .unwrap();
    assert_eq!(
        expired_finding.message.replace(&id, "ID"),
        "the token in Secret kueue-system/ID-expired expired at 2023-11-14T22:13:20Z"
    );
    for f in &findings {
        assert!(!f.message.contains("eyJ"), "a token in {f:?}");
    }
}
