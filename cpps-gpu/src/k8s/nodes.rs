//! GPU node inventory: `nvidia.com/gpu` capacity and allocatable, time-slicing, GPU Feature
//! Discovery labels, HAMi resources and registration annotations, and which GPU device plugin
//! runs on the node.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Node, Pod};
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
/// The device plugin's per-node configuration key.
pub const LABEL_PLUGIN_CONFIG: &str = super::sharing::CONFIG_LABEL;
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
}

impl GpuNode {
    /// Whether the node shows any GPU at all.
    pub fn has_gpu(&self) -> bool {
        self.gpu_capacity.is_some_and(|c| c > 0.0)
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

/// Which GPU device plugin a pod is, from its images and labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PluginKind {
    Nvidia,
    Hami,
}

pub(crate) fn plugin_kind(pod: &Pod) -> Option<PluginKind> {
    let images = pod
        .spec
        .iter()
        .flat_map(|s| s.containers.iter())
        .filter_map(|c| c.image.as_deref());
    let labels = pod.metadata.labels.clone().unwrap_or_default();
    let component = labels
        .get("app.kubernetes.io/component")
        .map(String::as_str);
    let mut kind = None;
    for image in images {
        let repo = image.split('@').next().unwrap_or(image);
        let repo = match repo.rfind(':') {
            Some(i) if !repo[i..].contains('/') => &repo[..i],
            _ => repo,
        };
        if repo.ends_with("/hami") || repo.ends_with("projecthami/hami") {
            // HAMi ships scheduler and device plugin in one image; the component label tells.
            if component != Some("hami-scheduler") {
                return Some(PluginKind::Hami);
            }
        } else if repo.ends_with("k8s-device-plugin") {
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

/// Builds the inventory of `nodes`, with the device plugin pods in `pods` (matched by
/// `spec.nodeName`).
pub fn inventory(nodes: &[Node], pods: &[Pod]) -> Vec<GpuNode> {
    // Per node: the plugin kind, the pod (`ns/name`) and its DaemonSet (`ns/name`).
    type Plugins = Vec<(PluginKind, String, Option<String>)>;
    let mut by_node: BTreeMap<&str, Plugins> = BTreeMap::new();
    for p in pods {
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
                labels,
                name,
            }
        })
        .collect()
}
