//! GPU node inventory: `nvidia.com/gpu` capacity and allocatable, time-slicing, GPU Feature
//! Discovery labels, HAMi resources and registration annotations, and which GPU device plugin
//! runs on the node.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Node, Pod};
use serde::Serialize;

use super::quantity;

/// The extended resource of the NVIDIA device plugin.
pub const GPU_RESOURCE: &str = "nvidia.com/gpu";
/// The resource name when time-slicing renames shared GPUs (`renameByDefault: true`).
pub const SHARED_GPU_RESOURCE: &str = "nvidia.com/gpu.shared";
/// GPU Feature Discovery: product name (`NVIDIA-RTX-A5000`, `-SHARED` when time-sliced).
pub const LABEL_PRODUCT: &str = "nvidia.com/gpu.product";
/// GPU Feature Discovery: physical GPU count.
pub const LABEL_COUNT: &str = "nvidia.com/gpu.count";
/// GPU Feature Discovery: time-slicing replicas per GPU.
pub const LABEL_REPLICAS: &str = "nvidia.com/gpu.replicas";
/// GPU Feature Discovery: sharing strategy (`time-slicing`, `mps`, `none`).
pub const LABEL_SHARING: &str = "nvidia.com/gpu.sharing-strategy";
/// GPU Feature Discovery: memory per GPU in MiB.
pub const LABEL_MEMORY: &str = "nvidia.com/gpu.memory";
/// The node label that names a node's device-plugin configuration (config-manager's
/// `DefaultConfigLabel`).
pub const LABEL_PLUGIN_CONFIG: &str = "nvidia.com/device-plugin.config";

/// The node labels that say "this node has an NVIDIA GPU" with no plugin running: NFD's PCI
/// vendor labels and the Operator's common label (gpu-operator `controllers/state_manager.go`
/// `gpuNodeLabels`, `commonGPULabelKey`; the plugin chart's `values.yaml` `affinity`), each
/// with the value `true`.
const GPU_PRESENT_LABELS: [&str; 4] = [
    "feature.node.kubernetes.io/pci-10de.present",
    "feature.node.kubernetes.io/pci-0302_10de.present",
    "feature.node.kubernetes.io/pci-0300_10de.present",
    "nvidia.com/gpu.present",
];
/// HAMi: device registration annotation written by its device plugin.
pub const HAMI_REGISTER: &str = "hami.io/node-nvidia-register";
/// HAMi: handshake annotation written by its scheduler.
pub const HAMI_HANDSHAKE: &str = "hami.io/node-handshake";
/// HAMi: GPU memory resource.
pub const HAMI_GPUMEM: &str = "nvidia.com/gpumem";
/// HAMi: GPU core-percentage resource.
pub const HAMI_GPUCORES: &str = "nvidia.com/gpucores";

/// What one node says about its GPUs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GpuNode {
    /// Node name.
    pub name: String,
    /// All node labels (for flavor matching).
    pub labels: BTreeMap<String, String>,
    /// `nvidia.com/gpu` capacity.
    pub gpu_capacity: Option<f64>,
    /// `nvidia.com/gpu` allocatable.
    pub gpu_allocatable: Option<f64>,
    /// `nvidia.com/gpu.shared` capacity (time-slicing with renaming).
    pub shared_gpu_capacity: Option<f64>,
    /// GFD product label.
    pub product: Option<String>,
    /// GFD physical count.
    pub count: Option<u32>,
    /// GFD replicas.
    pub replicas: Option<u32>,
    /// GFD sharing strategy.
    pub sharing_strategy: Option<String>,
    /// GFD memory in MiB.
    pub memory_mib: Option<u64>,
    /// HAMi `nvidia.com/gpumem` capacity.
    pub hami_gpumem: Option<f64>,
    /// HAMi `nvidia.com/gpucores` capacity.
    pub hami_gpucores: Option<f64>,
    /// HAMi registered its devices (annotation present).
    pub hami_registered: bool,
    /// A HAMi device-plugin pod runs here.
    pub hami_plugin_pod: Option<String>,
    /// An NVIDIA device-plugin pod runs here.
    pub nvidia_plugin_pod: Option<String>,
    /// The DaemonSet (`namespace/name`) that owns that pod, from its owner reference.
    pub nvidia_plugin_daemonset: Option<String>,
    /// Allocatable of every resource, for quota checks.
    pub allocatable: BTreeMap<String, f64>,
    /// The container runtime handlers the kubelet publishes in `status.runtimeHandlers` (the
    /// CRI's configured runtimes, the default one also as `""`); `None` when the node publishes
    /// none (a kubelet before 1.30, or a CRI that does not report them, such as containerd
    /// 1.x): then whether it has the `nvidia` runtime cannot be told from the API.
    pub runtime_handlers: Option<Vec<String>>,
}

impl GpuNode {
    /// Whether the node shows any GPU at all: a GPU resource, a GFD or HAMi label, or the
    /// NFD/Operator labels that exist before (and after) any plugin advertised a capacity.
    pub fn has_gpu(&self) -> bool {
        GPU_PRESENT_LABELS
            .iter()
            .any(|k| self.labels.get(*k).is_some_and(|v| v == "true"))
            || self.gpu_capacity.is_some_and(|c| c > 0.0)
            || self.shared_gpu_capacity.is_some_and(|c| c > 0.0)
            || self.product.is_some()
            || self.hami_registered
            || self.hami_gpumem.is_some()
    }

    /// Whether every `(key, value)` is among the node's labels.
    pub fn matches(&self, selector: &BTreeMap<String, String>) -> bool {
        selector.iter().all(|(k, v)| self.labels.get(k) == Some(v))
    }
}

/// Which GPU device plugin a pod is, from what its containers run and its labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginKind {
    /// NVIDIA's `k8s-device-plugin`.
    Nvidia,
    /// HAMi's device plugin.
    Hami,
}

/// A GPU device-plugin pod as the kubelet reports it (`status.conditions`, the containers'
/// `state.waiting.reason` and `restartCount`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginPod {
    /// `namespace/name`.
    pub pod: String,
    /// `spec.nodeName`, once scheduled.
    pub node: Option<String>,
    /// Which plugin.
    pub kind: PluginKind,
    /// `status.phase`.
    pub phase: Option<String>,
    /// The `Ready` condition: `Some(true)` only for status `True`; `None` when the pod reports
    /// no such condition (or an unknown status), which is "cannot tell".
    pub ready: Option<bool>,
    /// (container, reason) of every container, init containers included, that is waiting.
    pub waiting: Vec<(String, String)>,
    /// The containers' restarts, summed.
    pub restarts: i32,
}

/// The GPU device-plugin pods (NVIDIA's and HAMi's) among `pods`, with their readiness.
pub fn plugin_pods(pods: &[Pod]) -> Vec<PluginPod> {
    pods.iter()
        .filter_map(|p| {
            let kind = plugin_kind(p)?;
            let ns = p.metadata.namespace.as_deref().unwrap_or("");
            let status = p.status.as_ref();
            let ready = status
                .and_then(|s| s.conditions.as_ref())
                .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
                .and_then(|c| match c.status.as_str() {
                    "True" => Some(true),
                    "False" => Some(false),
                    _ => None,
                });
            let containers = status
                .into_iter()
                .flat_map(|s| {
                    s.init_container_statuses
                        .iter()
                        .chain(&s.container_statuses)
                })
                .flatten();
            let mut waiting = Vec::new();
            let mut restarts = 0_i32;
            for c in containers {
                restarts = restarts.saturating_add(c.restart_count);
                let reason = c.state.as_ref().and_then(|s| s.waiting.as_ref());
                if let Some(w) = reason {
                    let why = w.reason.clone().unwrap_or_else(|| "waiting".to_owned());
                    waiting.push((c.name.clone(), why));
                }
            }
            Some(PluginPod {
                pod: format!("{ns}/{}", p.metadata.name.as_deref().unwrap_or("")),
                node: p.spec.as_ref().and_then(|s| s.node_name.clone()),
                kind,
                phase: status.and_then(|s| s.phase.clone()),
                ready,
                waiting,
                restarts,
            })
        })
        .collect()
}

/// The image's repository, without tag or digest.
fn image_repo(image: &str) -> &str {
    let repo = image.split('@').next().unwrap_or(image);
    match repo.rfind(':') {
        Some(i) if !repo[i..].contains('/') => &repo[..i],
        _ => repo,
    }
}

/// The program a command starts: the last path segment of its first word.
fn program(command: &[String]) -> Option<&str> {
    command
        .first()
        .map(|c| c.rsplit('/').next().unwrap_or(c.as_str()))
}

/// The container's command, or its image's `ENTRYPOINT` where that is known: the
/// `k8s-device-plugin` image starts `nvidia-device-plugin` (NVIDIA/k8s-device-plugin
/// `deployments/container/Dockerfile`, `ENTRYPOINT ["nvidia-device-plugin"]`).
fn runs(c: &Container) -> Option<&str> {
    match c.command.as_deref() {
        Some(cmd) if !cmd.is_empty() => program(cmd),
        _ if c
            .image
            .as_deref()
            .is_some_and(|i| image_repo(i).ends_with("k8s-device-plugin")) =>
        {
            Some("nvidia-device-plugin")
        }
        _ => None,
    }
}

/// Whether the container is NVIDIA's device plugin, by what it runs: the one image also holds
/// GPU Feature Discovery, the MPS control daemon and config-manager, so the image does not tell.
/// The Helm chart and the static manifest run `nvidia-device-plugin`; the GPU Operator runs it
/// through a shell script in its container `nvidia-device-plugin` (gpu-operator
/// `assets/state-device-plugin/0500_daemonset.yaml`: `["/bin/sh", "-c"]`, args
/// `["/bin/entrypoint.sh"]`, which ends in `exec nvidia-device-plugin`).
pub(crate) fn is_nvidia_device_plugin(c: &Container) -> bool {
    match runs(c) {
        Some("nvidia-device-plugin") => true,
        Some("sh" | "bash") if c.name == "nvidia-device-plugin" => c
            .args
            .iter()
            .flatten()
            .chain(c.command.iter().flatten())
            .any(|a| a.contains("entrypoint.sh") || a.contains("nvidia-device-plugin")),
        _ => false,
    }
}

/// Whether the container is config-manager, the sidecar that picks the plugin's configuration
/// (`command: ["config-manager"]` in the Helm chart and the GPU Operator alike).
pub(crate) fn is_config_manager(c: &Container) -> bool {
    runs(c) == Some("config-manager")
}

pub(crate) fn plugin_kind(pod: &Pod) -> Option<PluginKind> {
    let containers = pod.spec.iter().flat_map(|s| s.containers.iter());
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    let component = labels
        .get("app.kubernetes.io/component")
        .map(String::as_str);
    // HAMi's chart labels its plugin pods so (charts/hami/templates/device-plugin/
    // daemonsetnvidia.yaml); its container runs `nvidia-device-plugin` too, from whatever
    // image a registry mirror names, so the label comes before what the containers run.
    if component == Some("hami-device-plugin") {
        return Some(PluginKind::Hami);
    }
    let mut kind = None;
    for c in containers {
        let repo = c.image.as_deref().map(image_repo).unwrap_or("");
        if repo.ends_with("/hami") || repo.ends_with("projecthami/hami") {
            // HAMi ships scheduler and device plugin in one image; the component label tells.
            if component != Some("hami-scheduler") {
                return Some(PluginKind::Hami);
            }
        } else if is_nvidia_device_plugin(c) {
            kind = Some(PluginKind::Nvidia);
        }
    }
    kind
}

fn q(
    map: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    key: &str,
) -> Option<f64> {
    map.and_then(|m| m.get(key))
        .and_then(|v| quantity::value(v).ok())
}

/// Whether a pod may be serving its node: not being deleted, and not terminated for good
/// (kubernetes `core/v1` `PodPhase`: Succeeded and Failed are final; `Unknown` is no longer
/// set by the kubelet). A pod without a phase yet is Pending.
fn serves(p: &Pod) -> bool {
    let phase = p.status.as_ref().and_then(|s| s.phase.as_deref());
    p.metadata.deletion_timestamp.is_none() && matches!(phase, None | Some("Pending" | "Running"))
}

/// Builds the inventory of `nodes`, with the device plugin pods in `pods` (matched by
/// `spec.nodeName`) that may be serving it: pending or running, not being deleted.
pub fn inventory(nodes: &[Node], pods: &[Pod]) -> Vec<GpuNode> {
    // Per node: the plugin kind, the pod (`ns/name`) and its DaemonSet (`ns/name`).
    type Plugins = Vec<(PluginKind, String, Option<String>)>;
    let mut by_node: BTreeMap<&str, Plugins> = BTreeMap::new();
    for p in pods.iter().filter(|p| serves(p)) {
        if let (Some(kind), Some(node)) = (
            plugin_kind(p),
            p.spec.as_ref().and_then(|s| s.node_name.as_deref()),
        ) {
            let ns = p.metadata.namespace.as_deref().unwrap_or("");
            let name = format!("{ns}/{}", p.metadata.name.as_deref().unwrap_or(""));
            let owner = p
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|o| o.kind == "DaemonSet")
                .map(|o| format!("{ns}/{}", o.name));
            by_node.entry(node).or_default().push((kind, name, owner));
        }
    }
    nodes
        .iter()
        .map(|n| {
            let name = n.metadata.name.clone().unwrap_or_default();
            let labels = n.metadata.labels.clone().unwrap_or_default();
            let annotations = n.metadata.annotations.clone().unwrap_or_default();
            let status = n.status.as_ref();
            let capacity = status.and_then(|s| s.capacity.as_ref());
            let allocatable_map = status.and_then(|s| s.allocatable.as_ref());
            let plugins = by_node.get(name.as_str());
            let plugin_of = |k: PluginKind| plugins.and_then(|v| v.iter().find(|p| p.0 == k));
            let pod_of = |k: PluginKind| plugin_of(k).map(|p| p.1.clone());
            GpuNode {
                gpu_capacity: q(capacity, GPU_RESOURCE),
                gpu_allocatable: q(allocatable_map, GPU_RESOURCE),
                shared_gpu_capacity: q(capacity, SHARED_GPU_RESOURCE),
                product: labels.get(LABEL_PRODUCT).cloned(),
                count: labels.get(LABEL_COUNT).and_then(|v| v.parse().ok()),
                replicas: labels.get(LABEL_REPLICAS).and_then(|v| v.parse().ok()),
                sharing_strategy: labels.get(LABEL_SHARING).cloned(),
                memory_mib: labels.get(LABEL_MEMORY).and_then(|v| v.parse().ok()),
                hami_gpumem: q(capacity, HAMI_GPUMEM),
                hami_gpucores: q(capacity, HAMI_GPUCORES),
                hami_registered: annotations.contains_key(HAMI_REGISTER),
                hami_plugin_pod: pod_of(PluginKind::Hami),
                nvidia_plugin_pod: pod_of(PluginKind::Nvidia),
                nvidia_plugin_daemonset: plugin_of(PluginKind::Nvidia).and_then(|p| p.2.clone()),
                allocatable: allocatable_map
                    .map(|m| {
                        m.iter()
                            .filter_map(|(k, v)| quantity::value(v).ok().map(|v| (k.clone(), v)))
                            .collect()
                    })
                    .unwrap_or_default(),
                runtime_handlers: status.and_then(|s| s.runtime_handlers.as_ref()).map(|hs| {
                    hs.iter()
                        .map(|h| h.name.clone().unwrap_or_default())
                        .collect()
                }),
                labels,
                name,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pod of `image` on node `n1` whose containers are `containers` (JSON, as the API server
    /// returns them).
    fn pod(name: &str, containers: serde_json::Value) -> Pod {
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": name, "namespace": "gpu"},
            "spec": {"nodeName": "n1", "containers": containers}
        }))
        .unwrap()
    }

    const IMAGE: &str = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0";

    /// Audit C3. A node whose plugin never ran (or was removed) has no `nvidia.com/gpu`
    /// capacity, or 0 once kubelet's grace period ends (kubelet `cm/devicemanager/manager.go`
    /// `GetCapacity`), and no GFD label (the chart's `gfd.enabled` defaults to false); NFD and
    /// the Operator still label it (gpu-operator `controllers/state_manager.go`
    /// `gpuNodeLabels`, `hasGPULabels`, `commonGPULabelKey`; k8s-device-plugin
    /// `deployments/helm/nvidia-device-plugin/values.yaml` `affinity`). It is a GPU node.
    #[test]
    fn nfd_and_operator_labels_make_a_gpu_node_without_capacity() {
        let node = |labels: serde_json::Value| -> Node {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "n1", "labels": labels},
                "status": {"capacity": {"cpu": "8", "nvidia.com/gpu": "0"}}
            }))
            .unwrap()
        };
        let has = |labels: serde_json::Value| inventory(&[node(labels)], &[])[0].has_gpu();
        assert!(has(
            serde_json::json!({"feature.node.kubernetes.io/pci-10de.present": "true"})
        ));
        assert!(has(
            serde_json::json!({"feature.node.kubernetes.io/pci-0302_10de.present": "true"})
        ));
        assert!(has(serde_json::json!({"nvidia.com/gpu.present": "true"})));
        assert!(!has(serde_json::json!({"nvidia.com/gpu.present": "false"})));
        assert!(!has(serde_json::json!({"kubernetes.io/os": "linux"})));
    }

    /// Issue 34 D2. GPU Feature Discovery and the MPS control daemon ship in the device plugin's
    /// image (NVIDIA/k8s-device-plugin `deployments/helm/nvidia-device-plugin/templates/
    /// daemonset-gfd.yml`: container `gpu-feature-discovery-ctr`, command
    /// `["gpu-feature-discovery"]`; `daemonset-mps-control-daemon.yml`: `mps-control-daemon-ctr`,
    /// `[mps-control-daemon]`; gpu-operator `deployments/gpu-operator/values.yaml` `gfd.image:
    /// k8s-device-plugin`, `assets/gpu-feature-discovery/0500_daemonset.yaml`), and each runs a
    /// config-manager sidecar from it. None of them is the device plugin: on a HAMi node they
    /// must not look like a second GPU plugin.
    #[test]
    fn gfd_mps_and_config_manager_are_not_the_device_plugin() {
        let others = [
            // Helm chart GFD, with its config-manager sidecar.
            pod(
                "gfd",
                serde_json::json!([
                    {"name": "gpu-feature-discovery-sidecar", "image": IMAGE, "command": ["config-manager"]},
                    {"name": "gpu-feature-discovery-ctr", "image": IMAGE, "command": ["gpu-feature-discovery"]}
                ]),
            ),
            // Helm chart MPS control daemon.
            pod(
                "mps",
                serde_json::json!([
                    {"name": "mps-control-daemon-sidecar", "image": IMAGE, "command": ["config-manager"]},
                    {"name": "mps-control-daemon-ctr", "image": IMAGE, "command": ["mps-control-daemon"]}
                ]),
            ),
            // GPU Operator GFD (assets/gpu-feature-discovery/0500_daemonset.yaml).
            pod(
                "op-gfd",
                serde_json::json!([
                    {"name": "gpu-feature-discovery", "image": IMAGE, "command": ["gpu-feature-discovery"]},
                    {"name": "config-manager", "image": IMAGE, "command": ["config-manager"]}
                ]),
            ),
            // The static GFD manifest (deployments/static/gpu-feature-discovery-daemonset.yaml).
            pod(
                "static-gfd",
                serde_json::json!([
                    {"name": "gpu-feature-discovery", "image": IMAGE, "command": ["/usr/bin/gpu-feature-discovery"]}
                ]),
            ),
        ];
        for p in &others {
            assert_eq!(plugin_kind(p), None, "{:?}", p.metadata.name);
        }
        // A HAMi node running GFD: no second plugin, so no `hami-and-device-plugin` input.
        let node: Node = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "n1", "annotations": {"hami.io/node-nvidia-register": "GPU-a,10,24564,100,NVIDIA-NVIDIA RTX A5000,0,true:"}}
        }))
        .unwrap();
        let inv = inventory(std::slice::from_ref(&node), &others);
        assert!(inv[0].hami_registered);
        assert_eq!(inv[0].nvidia_plugin_pod, None);
    }

    /// Audit S-b, confirmed: HAMi's device plugin runs `nvidia-device-plugin` too (HAMi
    /// `charts/hami/templates/device-plugin/daemonsetnvidia.yaml`: container `device-plugin`,
    /// command `nvidia-device-plugin --config-file=/device-config.yaml`), so from a mirrored
    /// image under another name it read as NVIDIA's plugin, a false `hami-and-device-plugin`.
    /// The chart labels its pods `app.kubernetes.io/component: hami-device-plugin`.
    #[test]
    fn hami_from_a_mirrored_image_is_told_by_its_label() {
        let p: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "hami-device-plugin-x", "namespace": "kube-system",
                "labels": {"app.kubernetes.io/component": "hami-device-plugin",
                    "app.kubernetes.io/name": "hami", "hami.io/webhook": "ignore"}},
            "spec": {"nodeName": "n1", "containers": [
                {"name": "device-plugin", "image": "registry.lab.local/mirror/vgpu-plugin:v2.5.0",
                 "command": ["nvidia-device-plugin", "--config-file=/device-config.yaml",
                    "--mig-strategy=none", "--disable-core-limit=false"]},
                {"name": "vgpu-monitor", "image": "registry.lab.local/mirror/vgpu-plugin:v2.5.0",
                 "command": ["vGPUmonitor"]}
            ]}
        }))
        .unwrap();
        assert_eq!(plugin_kind(&p), Some(PluginKind::Hami));
    }

    /// Audit 34, suspected item 5. A pod whose phase is Succeeded or Failed has terminated for
    /// good, and one with `deletionTimestamp` set is going away (kubernetes
    /// `staging/src/k8s.io/api/core/v1/types.go` `PodPhase`, `ObjectMeta.DeletionTimestamp`):
    /// during a move from NVIDIA's plugin to HAMi such a pod does not serve the node, so it is
    /// not the node's plugin (and gives no `hami-and-device-plugin`).
    #[test]
    fn only_a_live_plugin_pod_is_the_nodes_plugin() {
        let nvidia = |name: &str, extra: serde_json::Value| -> Pod {
            let mut v = serde_json::json!({
                "metadata": {"name": name, "namespace": "gpu"},
                "spec": {"nodeName": "n1", "containers": [
                    {"name": "nvidia-device-plugin-ctr", "image": IMAGE, "command": ["nvidia-device-plugin"]}
                ]}
            });
            if let Some(m) = extra.get("metadata") {
                v["metadata"]["deletionTimestamp"] = m["deletionTimestamp"].clone();
            }
            if let Some(st) = extra.get("status") {
                v["status"] = st.clone();
            }
            serde_json::from_value(v).unwrap()
        };
        let node: Node =
            serde_json::from_value(serde_json::json!({"metadata": {"name": "n1"}})).unwrap();
        let gone = [
            nvidia("failed", serde_json::json!({"status": {"phase": "Failed"}})),
            nvidia(
                "done",
                serde_json::json!({"status": {"phase": "Succeeded"}}),
            ),
            nvidia(
                "deleting",
                serde_json::json!({"metadata": {"deletionTimestamp": "2026-12-06T09:00:00Z"},
                    "status": {"phase": "Running"}}),
            ),
        ];
        let inv = inventory(std::slice::from_ref(&node), &gone);
        assert_eq!(inv[0].nvidia_plugin_pod, None);
        let live = [
            nvidia(
                "pending",
                serde_json::json!({"status": {"phase": "Pending"}}),
            ),
            nvidia(
                "running",
                serde_json::json!({"status": {"phase": "Running"}}),
            ),
        ];
        for p in &live {
            let inv = inventory(std::slice::from_ref(&node), std::slice::from_ref(p));
            assert_eq!(
                inv[0].nvidia_plugin_pod,
                Some(format!("gpu/{}", p.metadata.name.as_deref().unwrap_or("")))
            );
        }
    }

    /// Audit N3: the handlers the kubelet copies from the CRI into `status.runtimeHandlers`
    /// (kubernetes `staging/src/k8s.io/api/core/v1/types.go` `NodeRuntimeHandler`; containerd
    /// `internal/cri/server/status.go` lists the default runtime also as `""`). A node that
    /// publishes none is `None`: cannot tell, not "no nvidia handler".
    #[test]
    fn runtime_handlers_are_read_from_the_node_status() {
        let nodes: Vec<Node> = serde_json::from_value(serde_json::json!([
            {"metadata": {"name": "n1"}, "status": {"runtimeHandlers": [
                {"name": "", "features": {"recursiveReadOnlyMounts": true, "userNamespaces": true}},
                {"name": "nvidia", "features": {"recursiveReadOnlyMounts": true, "userNamespaces": true}},
                {"name": "runc", "features": {"recursiveReadOnlyMounts": true, "userNamespaces": true}}
            ]}},
            {"metadata": {"name": "n2"}, "status": {}}
        ]))
        .unwrap();
        let inv = inventory(&nodes, &[]);
        assert_eq!(
            inv[0].runtime_handlers.as_deref(),
            Some(&["".to_owned(), "nvidia".to_owned(), "runc".to_owned()][..])
        );
        assert_eq!(inv[1].runtime_handlers, None);
    }

    /// The device plugin as each upstream layout runs it: the Helm chart's
    /// `nvidia-device-plugin-ctr` with command `["nvidia-device-plugin"]`; the static manifest
    /// (`deployments/static/nvidia-device-plugin.yml`), no command, so the image's
    /// `ENTRYPOINT ["nvidia-device-plugin"]` (`deployments/container/Dockerfile`); the GPU
    /// Operator's `nvidia-device-plugin` container, `["/bin/sh", "-c"]` with args
    /// `["/bin/entrypoint.sh"]`, a script that ends in `exec nvidia-device-plugin`
    /// (gpu-operator `assets/state-device-plugin/0500_daemonset.yaml`, `0400_configmap.yaml`).
    #[test]
    fn the_device_plugin_is_found_in_every_layout() {
        let plugins = [
            pod(
                "helm",
                serde_json::json!([
                    {"name": "nvidia-device-plugin-sidecar", "image": IMAGE, "command": ["config-manager"]},
                    {"name": "nvidia-device-plugin-ctr", "image": IMAGE, "command": ["nvidia-device-plugin"]}
                ]),
            ),
            pod(
                "static",
                serde_json::json!([{"name": "nvidia-device-plugin-ctr", "image": IMAGE}]),
            ),
            pod(
                "operator",
                serde_json::json!([
                    {"name": "nvidia-device-plugin", "image": IMAGE, "command": ["/bin/sh", "-c"],
                     "args": ["/bin/entrypoint.sh"]},
                    {"name": "config-manager", "image": IMAGE, "command": ["config-manager"]}
                ]),
            ),
        ];
        for p in &plugins {
            assert_eq!(
                plugin_kind(p),
                Some(PluginKind::Nvidia),
                "{:?}",
                p.metadata.name
            );
        }
    }
}
