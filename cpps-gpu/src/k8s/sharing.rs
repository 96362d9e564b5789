//! The NVIDIA device plugin's configuration: which ConfigMap the plugin reads, which of its keys
//! each node uses, and the GPU sharing (time-slicing or MPS) that key configures.
//!
//! Upstream (`NVIDIA/k8s-device-plugin`), the sources of every rule here:
//!
//! - `api/config/v1/config.go`: the file format (`version: v1`, `flags`, `resources`, `sharing`);
//!   `DisableResourceNamingInConfig`, which `cmd/nvidia-device-plugin/main.go` calls on every
//!   config it loads, drops a per-resource `rename` ("Setting the 'rename' field in
//!   sharing.%s.resources is not yet supported in the config. Ignoring...").
//! - `api/config/v1/sharing.go`: `sharing.timeSlicing` and `sharing.mps`; when `mps` is set and
//!   replicates a resource, MPS is the strategy.
//! - `api/config/v1/replicas.go`: `renameByDefault` renames a shared resource to
//!   `<name>.shared` (`DefaultSharedRename`, suffix from `consts.go`); a resource's `replicas`
//!   must be at least 2.
//! - `cmd/config-manager/main.go`: the plugin's sidecar picks the key named by the node label
//!   `nvidia.com/device-plugin.config`, else `DEFAULT_CONFIG`, else tries `FALLBACK_STRATEGIES`
//!   in order (`named`: a key `default`; `single`: the only key; `empty`: no config), else fails.
//! - `deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml`: the sidecar's
//!   environment, and the ConfigMap mounted as the volume `available-configs`.

use std::collections::BTreeMap;

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::ConfigMap;
use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The node label that names a node's configuration (config-manager's `DefaultConfigLabel`).
pub const CONFIG_LABEL: &str = "nvidia.com/device-plugin.config";
/// The suffix `renameByDefault` gives shared resources (`DefaultSharedResourceNameSuffix`).
pub const SHARED_SUFFIX: &str = ".shared";
/// The key the `named` fallback looks for (`NamedConfigFallback`).
pub const NAMED_FALLBACK: &str = "default";
/// The volume the device plugin's DaemonSet mounts its ConfigMap as.
pub const CONFIGS_VOLUME: &str = "available-configs";

/// The GPU sharing strategy of a configuration (`SharingStrategy` in `sharing.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Strategy {
    /// `sharing.timeSlicing`.
    TimeSlicing,
    /// `sharing.mps` (CUDA Multi-Process Service).
    Mps,
}

impl std::fmt::Display for Strategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::TimeSlicing => "time-slicing",
            Self::Mps => "mps",
        })
    }
}

/// One configuration: one key of the plugin's ConfigMap.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginConfig {
    /// `namespace/name` of the ConfigMap.
    pub configmap: String,
    /// The key in it.
    pub key: String,
    /// The sharing it configures, if any.
    pub sharing: Option<SharingConfig>,
}

/// The sharing part of a configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SharingConfig {
    /// Time-slicing or MPS.
    pub strategy: Strategy,
    /// Shared resources renamed to `<name>.shared`.
    pub rename_by_default: bool,
    /// Replicas per resource.
    pub resources: Vec<SharedResource>,
}

/// One shared resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedResource {
    /// e.g. `nvidia.com/gpu`.
    pub name: String,
    /// Replicas per physical GPU.
    pub replicas: u32,
    /// A per-resource rename, as written (the plugin ignores it: see [`SharedResource::advertised`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
}

impl SharedResource {
    /// The resource name the plugin advertises for it: `<name>.shared` with `renameByDefault`,
    /// else `<name>`; a per-resource `rename` is dropped by `DisableResourceNamingInConfig`.
    pub fn advertised(&self, rename_by_default: bool) -> String {
        if rename_by_default {
            format!("{}{SHARED_SUFFIX}", self.name)
        } else {
            self.name.clone()
        }
    }

    /// The `rename` the plugin ignores, when it differs from what it advertises.
    pub fn ignored_rename(&self, rename_by_default: bool) -> Option<&str> {
        self.rename
            .as_deref()
            .filter(|r| !r.is_empty() && *r != self.advertised(rename_by_default))
    }
}

#[derive(Deserialize)]
struct File {
    sharing: Option<Sharing>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sharing {
    time_slicing: Option<Replicated>,
    mps: Option<Replicated>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Replicated {
    #[serde(default)]
    rename_by_default: bool,
    #[serde(default)]
    resources: Vec<SharedResource>,
}

impl Replicated {
    fn is_replicated(&self) -> bool {
        self.resources.iter().any(|r| r.replicas > 1)
    }
}

/// Parses one ConfigMap value (the plugin's `config.yaml`).
///
/// # Errors
/// [`Error::DevicePluginConfig`] with the YAML error (line and column).
pub fn parse(configmap: &str, key: &str, yaml: &str) -> Result<PluginConfig, Error> {
    let file: File = serde_saphyr::from_str(yaml).map_err(|source| Error::DevicePluginConfig {
        location: format!("ConfigMap {configmap} key {key}"),
        source,
    })?;
    let sharing = file.sharing.and_then(|s| {
        // sharing.go `SharingStrategy`: MPS when it replicates something, else time-slicing.
        let (strategy, r) = match (s.mps, s.time_slicing) {
            (Some(m), _) if m.is_replicated() => (Strategy::Mps, m),
            (_, Some(t)) if t.is_replicated() => (Strategy::TimeSlicing, t),
            _ => return None,
        };
        Some(SharingConfig {
            strategy,
            rename_by_default: r.rename_by_default,
            resources: r.resources,
        })
    });
    Ok(PluginConfig {
        configmap: configmap.to_owned(),
        key: key.to_owned(),
        sharing,
    })
}

impl SharingConfig {
    /// Replicas configured for `nvidia.com/gpu`.
    pub fn gpu_replicas(&self) -> Option<u32> {
        self.gpu_resource().map(|r| r.replicas)
    }

    /// The `nvidia.com/gpu` entry.
    pub fn gpu_resource(&self) -> Option<&SharedResource> {
        self.resources
            .iter()
            .find(|r| r.name == super::nodes::GPU_RESOURCE)
    }
}

/// A device-plugin DaemonSet that reads a ConfigMap, with how its config-manager chooses a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginDeployment {
    /// `namespace/name` of the DaemonSet.
    pub daemonset: String,
    /// `namespace/name` of the ConfigMap mounted as `available-configs`.
    pub configmap: String,
    /// `DEFAULT_CONFIG`, when set and not empty.
    pub default_config: Option<String>,
    /// `FALLBACK_STRATEGIES`, in order.
    pub fallback_strategies: Vec<String>,
}

fn is_device_plugin_image(image: &str) -> bool {
    let repo = image.split('@').next().unwrap_or(image);
    let repo = match repo.rfind(':') {
        Some(i) if !repo[i..].contains('/') => &repo[..i],
        _ => repo,
    };
    repo.ends_with("k8s-device-plugin")
}

/// The device-plugin DaemonSets that mount a ConfigMap (the Helm chart's and the GPU Operator's
/// layout); a DaemonSet without one runs with its built-in configuration and is left out.
pub fn deployments(daemonsets: &[DaemonSet]) -> Vec<PluginDeployment> {
    let mut out = Vec::new();
    for ds in daemonsets {
        let Some(pod) = ds.spec.as_ref().and_then(|s| s.template.spec.as_ref()) else {
            continue;
        };
        let containers = pod
            .containers
            .iter()
            .chain(pod.init_containers.iter().flatten());
        if !containers
            .clone()
            .any(|c| c.image.as_deref().is_some_and(is_device_plugin_image))
        {
            continue;
        }
        let namespace = ds.metadata.namespace.clone().unwrap_or_default();
        let Some(cm) = pod
            .volumes
            .iter()
            .flatten()
            .find(|v| v.name == CONFIGS_VOLUME)
            .and_then(|v| v.config_map.as_ref())
            .map(|c| c.name.clone())
        else {
            continue;
        };
        let env: BTreeMap<&str, &str> = containers
            .flat_map(|c| c.env.iter().flatten())
            .filter_map(|e| e.value.as_deref().map(|v| (e.name.as_str(), v)))
            .collect();
        out.push(PluginDeployment {
            daemonset: format!("{namespace}/{}", ds.metadata.name.as_deref().unwrap_or("")),
            configmap: format!("{namespace}/{cm}"),
            default_config: env
                .get("DEFAULT_CONFIG")
                .filter(|v| !v.is_empty())
                .map(|v| (*v).to_owned()),
            fallback_strategies: env
                .get("FALLBACK_STRATEGIES")
                .map(|v| {
                    v.split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
        });
    }
    out
}

/// A key of the plugin's ConfigMap that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConfigError {
    /// `namespace/name` of the ConfigMap.
    pub configmap: String,
    /// The key.
    pub key: String,
    /// The error, with its YAML line and column.
    pub message: String,
}

/// The configurations of the plugin's ConfigMaps, and the keys that could not be parsed.
/// ConfigMaps no plugin DaemonSet mounts are not read.
pub fn configs(
    deployments: &[PluginDeployment],
    configmaps: &[ConfigMap],
) -> (Vec<PluginConfig>, Vec<ConfigError>) {
    let mut configs = Vec::new();
    let mut errors = Vec::new();
    for cm in configmaps {
        let name = format!(
            "{}/{}",
            cm.metadata.namespace.as_deref().unwrap_or(""),
            cm.metadata.name.as_deref().unwrap_or("")
        );
        if !deployments.iter().any(|d| d.configmap == name) {
            continue;
        }
        for (key, value) in cm.data.iter().flatten() {
            match parse(&name, key, value) {
                Ok(c) => configs.push(c),
                Err(e) => errors.push(ConfigError {
                    configmap: name.clone(),
                    key: key.clone(),
                    message: match std::error::Error::source(&e) {
                        Some(s) => format!("{e}: {s}"),
                        None => e.to_string(),
                    },
                }),
            }
        }
    }
    (configs, errors)
}

/// Which key a node's config-manager uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "by", content = "key")]
#[non_exhaustive]
pub enum Choice {
    /// The node label names it.
    Label(String),
    /// `DEFAULT_CONFIG`.
    Default(String),
    /// The `named` fallback: the key `default`.
    Named(String),
    /// The `single` fallback: the only key.
    Single(String),
    /// The `empty` fallback: no configuration (no sharing).
    Empty,
    /// config-manager fails: the named key does not exist, or nothing could be chosen.
    Fails(String),
}

impl PluginDeployment {
    /// The key config-manager picks for a node with `label` (`updateConfigName`), given the
    /// keys of the ConfigMap.
    pub fn choose(&self, label: Option<&str>, keys: &[&str]) -> Choice {
        let has = |k: &str| keys.contains(&k);
        if let Some(l) = label.filter(|l| !l.is_empty()) {
            return if has(l) {
                Choice::Label(l.to_owned())
            } else {
                Choice::Fails(format!(
                    "label {CONFIG_LABEL}={l} names no key of ConfigMap {}",
                    self.configmap
                ))
            };
        }
        if let Some(d) = &self.default_config {
            return if has(d) {
                Choice::Default(d.clone())
            } else {
                Choice::Fails(format!(
                    "DEFAULT_CONFIG={d} of DaemonSet {} names no key of ConfigMap {}",
                    self.daemonset, self.configmap
                ))
            };
        }
        for strategy in &self.fallback_strategies {
            match strategy.as_str() {
                "named" if has(NAMED_FALLBACK) => return Choice::Named(NAMED_FALLBACK.to_owned()),
                "single" if keys.len() == 1 => return Choice::Single(keys[0].to_owned()),
                "empty" => return Choice::Empty,
                "named" | "single" => {}
                other => {
                    return Choice::Fails(format!(
                        "unknown fallback strategy {other:?} in DaemonSet {}",
                        self.daemonset
                    ));
                }
            }
        }
        Choice::Fails(format!(
            "no {CONFIG_LABEL} label, no DEFAULT_CONFIG, and the fallbacks [{}] of DaemonSet {} choose no key of ConfigMap {}",
            self.fallback_strategies.join(","),
            self.daemonset,
            self.configmap
        ))
    }
}

impl Choice {
    /// The chosen key, if any.
    pub fn key(&self) -> Option<&str> {
        match self {
            Self::Label(k) | Self::Default(k) | Self::Named(k) | Self::Single(k) => Some(k),
            Self::Empty | Self::Fails(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    failRequestsGreaterThanOne: false\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n";

    #[test]
    fn parses_the_plugin_format() {
        let c = parse("gpu-operator/time-slicing-config", "a5000", DOC).unwrap();
        let s = c.sharing.unwrap();
        assert_eq!(s.strategy, Strategy::TimeSlicing);
        assert_eq!(s.gpu_replicas(), Some(4));
        assert!(!s.rename_by_default);
        assert_eq!(c.key, "a5000");
        assert_eq!(
            parse("ns/cm", "k", "version: v1\nflags: {}\n")
                .unwrap()
                .sharing,
            None
        );
    }

    #[test]
    fn mps_wins_and_rename_is_what_the_plugin_ignores() {
        // sharing.go: MPS is the strategy when it replicates; replicas.go: renameByDefault.
        let yaml = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n  mps:\n    renameByDefault: true\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 3\n      rename: nvidia.com/a5000\n";
        let s = parse("ns/cm", "k", yaml).unwrap().sharing.unwrap();
        assert_eq!(s.strategy, Strategy::Mps);
        assert_eq!(s.gpu_replicas(), Some(3));
        let r = s.gpu_resource().unwrap();
        assert_eq!(r.advertised(s.rename_by_default), "nvidia.com/gpu.shared");
        assert_eq!(
            r.ignored_rename(s.rename_by_default),
            Some("nvidia.com/a5000")
        );
        let same = SharedResource {
            name: "nvidia.com/gpu".into(),
            replicas: 2,
            rename: Some("nvidia.com/gpu.shared".into()),
        };
        assert_eq!(same.ignored_rename(true), None);
    }

    #[test]
    fn bad_yaml_names_the_place() {
        let err = parse("ns/cm", "k", "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: four\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot parse the device plugin configuration in ConfigMap ns/cm key k"
        );
        let source = std::error::Error::source(&err).unwrap().to_string();
        assert!(source.contains("line 5"), "{source}");
    }

    #[test]
    fn config_manager_choice() {
        let d = |default: Option<&str>, fallbacks: &[&str]| PluginDeployment {
            daemonset: "kube-system/nvdp".into(),
            configmap: "kube-system/nvdp-configs".into(),
            default_config: default.map(str::to_owned),
            fallback_strategies: fallbacks.iter().map(|s| (*s).to_owned()).collect(),
        };
        let keys = ["default", "a5000"];
        let helm = d(None, &["named", "single"]);
        assert_eq!(
            helm.choose(Some("a5000"), &keys),
            Choice::Label("a5000".into())
        );
        assert!(matches!(helm.choose(Some("nope"), &keys), Choice::Fails(_)));
        assert_eq!(helm.choose(None, &keys), Choice::Named("default".into()));
        assert_eq!(
            helm.choose(None, &["a5000"]),
            Choice::Single("a5000".into())
        );
        assert!(matches!(helm.choose(None, &["a", "b"]), Choice::Fails(_)));
        assert_eq!(
            d(Some("a5000"), &[]).choose(None, &keys),
            Choice::Default("a5000".into())
        );
        assert_eq!(d(None, &["empty"]).choose(None, &["a", "b"]), Choice::Empty);
    }
}
