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
//! - `cmd/config-manager/main.go`: the plugin's sidecar fails when its directory holds no file
//!   ("no configuration files available"), else picks the key named by the node label `NODE_LABEL`
//!   (default `nvidia.com/device-plugin.config`), else `DEFAULT_CONFIG`, else tries
//!   `FALLBACK_STRATEGIES` in order (`named`: a key `default`; `single`: the only key; `empty`:
//!   no config), else fails. Its directory is `CONFIG_FILE_SRCDIR`.
//! - `deployments/helm/nvidia-device-plugin/templates/daemonset-device-plugin.yml`: the sidecar's
//!   environment, and the ConfigMap mounted at `/available-configs` as the volume
//!   `available-configs`. The GPU Operator (NVIDIA/gpu-operator `controllers/object_controls.go`,
//!   `handleDevicePluginConfig`, `addSharedMountsForPluginConfig`) names that volume after the
//!   ConfigMap instead; so the ConfigMap is found from `CONFIG_FILE_SRCDIR`, the mount at that
//!   path and its volume, and a layout that cannot be followed is [`ConfigSource::Unknown`].

use k8s_openapi::api::apps::v1::DaemonSet;
use k8s_openapi::api::core::v1::{ConfigMap, Container, PodSpec};
use serde::{Deserialize, Serialize};

use super::nodes::{is_config_manager, is_nvidia_device_plugin};
use crate::error::Error;

/// The node label that names a node's configuration (config-manager's `DefaultConfigLabel`).
pub const CONFIG_LABEL: &str = super::nodes::LABEL_PLUGIN_CONFIG;
/// The suffix `renameByDefault` gives shared resources (`DefaultSharedResourceNameSuffix`).
pub const SHARED_SUFFIX: &str = ".shared";
/// The key the `named` fallback looks for (`NamedConfigFallback`).
pub const NAMED_FALLBACK: &str = "default";

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
    version: Option<String>,
    sharing: Option<Sharing>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sharing {
    time_slicing: Option<Replicated>,
    mps: Option<Replicated>,
}

/// `ReplicatedResources` as written, every field optional so that what the plugin refuses can be
/// told apart from what it accepts.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Replicated {
    #[serde(default)]
    rename_by_default: bool,
    resources: Option<Vec<RawResource>>,
}

#[derive(Deserialize)]
struct RawResource {
    name: Option<String>,
    replicas: Option<i64>,
    rename: Option<String>,
}

/// The version `parseConfigFrom` accepts (`Version` in `api/config/v1/config.go`).
const VERSION: &str = "v1";
/// The domain `NewResourceName` puts before a bare name (`ResourceNamePrefix`).
const RESOURCE_PREFIX: &str = "nvidia.com/";

/// A resource name as `NewResourceName` (`api/config/v1/resources.go`) reads it: `gpu` is
/// `nvidia.com/gpu`.
fn resource_name(n: &str) -> String {
    if n.starts_with(RESOURCE_PREFIX) {
        n.to_owned()
    } else {
        format!("{RESOURCE_PREFIX}{n}")
    }
}

impl Replicated {
    /// The resources, checked as `ReplicatedResources.UnmarshalJSON` and
    /// `ReplicatedResource.UnmarshalJSON` (`api/config/v1/replicas.go`) check them; `Err` is the
    /// plugin's own words.
    fn validate(self, at: &str) -> Result<SharingConfigParts, String> {
        let raw = self
            .resources
            .filter(|r| !r.is_empty())
            .ok_or_else(|| format!("{at}: no resources specified"))?;
        let mut resources = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            let name = r
                .name
                .ok_or_else(|| format!("{at}.resources[{i}]: no resource name specified"))?;
            let replicas = r
                .replicas
                .ok_or_else(|| format!("{at}.resources[{i}]: no replicas specified"))?;
            let replicas = u32::try_from(replicas)
                .ok()
                .filter(|n| *n >= 2)
                .ok_or_else(|| format!("{at}.resources[{i}]: number of replicas must be >= 2"))?;
            resources.push(SharedResource {
                name: resource_name(&name),
                replicas,
                rename: r.rename.map(|n| resource_name(&n)),
            });
        }
        Ok((self.rename_by_default, resources))
    }
}

/// `renameByDefault` and the checked resources.
type SharingConfigParts = (bool, Vec<SharedResource>);

/// Parses one ConfigMap value (the plugin's `config.yaml`), refusing what the plugin refuses.
///
/// # Errors
/// [`Error::DevicePluginConfig`] with the YAML error (line and column);
/// [`Error::DevicePluginConfigRefused`] for a file the plugin refuses to start with (an unknown
/// `version`, a sharing section without resources, a resource without name or with fewer than 2
/// replicas).
pub fn parse(configmap: &str, key: &str, yaml: &str) -> Result<PluginConfig, Error> {
    let location = || format!("ConfigMap {configmap} key {key}");
    let file: File = serde_saphyr::from_str(yaml).map_err(|source| Error::DevicePluginConfig {
        location: location(),
        source,
    })?;
    let refused = |reason: String| Error::DevicePluginConfigRefused {
        location: location(),
        reason,
    };
    // parseConfigFrom: no version is v1, any other is refused.
    if let Some(v) = file
        .version
        .as_deref()
        .filter(|v| !v.is_empty() && *v != VERSION)
    {
        return Err(refused(format!("unknown version: {v}")));
    }
    let (mps, time_slicing) = match file.sharing {
        Some(s) => (
            s.mps
                .map(|m| m.validate("sharing.mps"))
                .transpose()
                .map_err(refused)?,
            s.time_slicing
                .map(|t| t.validate("sharing.timeSlicing"))
                .transpose()
                .map_err(refused)?,
        ),
        None => (None, None),
    };
    // sharing.go `SharingStrategy`: MPS when it is set (and so, once valid, replicates).
    let sharing = match (mps, time_slicing) {
        (Some(m), _) => Some((Strategy::Mps, m)),
        (None, Some(t)) => Some((Strategy::TimeSlicing, t)),
        (None, None) => None,
    }
    .map(|(strategy, (rename_by_default, resources))| SharingConfig {
        strategy,
        rename_by_default,
        resources,
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

/// Where a device-plugin DaemonSet takes its configuration from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "from", content = "detail")]
#[non_exhaustive]
pub enum ConfigSource {
    /// No config-manager and no config file: the plugin runs its built-in defaults (no sharing).
    BuiltIn,
    /// The ConfigMap (`namespace/name`) config-manager reads its keys from.
    ConfigMap(String),
    /// The DaemonSet does not say which configuration the plugin gets: cannot tell, and why.
    Unknown(String),
}

/// A device-plugin DaemonSet, with where its configuration comes from and how its config-manager
/// chooses a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PluginDeployment {
    /// `namespace/name` of the DaemonSet.
    pub daemonset: String,
    /// Where the configuration comes from.
    pub config: ConfigSource,
    /// The node label that names a node's key (`NODE_LABEL`, default [`CONFIG_LABEL`]).
    pub node_label: String,
    /// `DEFAULT_CONFIG`, when set and not empty.
    pub default_config: Option<String>,
    /// `FALLBACK_STRATEGIES`, in order.
    pub fallback_strategies: Vec<String>,
}

impl PluginDeployment {
    /// The ConfigMap (`namespace/name`) config-manager reads, when that is known.
    pub fn configmap(&self) -> Option<&str> {
        match &self.config {
            ConfigSource::ConfigMap(cm) => Some(cm),
            _ => None,
        }
    }
}

/// config-manager's settings: a flag on its command line wins over its environment variable
/// (`cmd/config-manager/main.go`: urfave/cli flags with `EnvVars`).
struct Settings<'a> {
    container: &'a Container,
}

impl Settings<'_> {
    /// The value of `--flag` / `ENV`; `Err` when the variable comes from a `valueFrom` that
    /// cannot be read here.
    fn get(&self, flag: &str, env: &str) -> Result<Option<String>, String> {
        let c = self.container;
        let words: Vec<&String> = c
            .command
            .iter()
            .flatten()
            .chain(c.args.iter().flatten())
            .collect();
        let long = format!("--{flag}");
        for (i, w) in words.iter().enumerate() {
            if let Some(v) = w.strip_prefix(&format!("{long}=")) {
                return Ok(Some(v.to_owned()));
            }
            if **w == long {
                return Ok(words.get(i + 1).map(|v| (*v).clone()));
            }
        }
        match c.env.iter().flatten().rfind(|e| e.name == env) {
            None => Ok(None),
            Some(e) if e.value_from.is_some() => Err(format!(
                "{env} of container {} comes from a valueFrom reference",
                c.name
            )),
            Some(e) => Ok(e.value.clone()),
        }
    }
}

/// The ConfigMap mounted at config-manager's `CONFIG_FILE_SRCDIR`: the mount at that path, its
/// volume, the volume's ConfigMap (the Helm chart names the volume `available-configs`, the GPU
/// Operator after the ConfigMap; both mount it at `/available-configs`).
fn source_configmap(
    namespace: &str,
    pod: &PodSpec,
    cm: &Container,
    srcdir: &str,
) -> Result<String, String> {
    let dir = srcdir.trim_end_matches('/');
    let mount = cm
        .volume_mounts
        .iter()
        .flatten()
        .find(|m| m.mount_path.trim_end_matches('/') == dir)
        .ok_or_else(|| {
            format!(
                "no volume is mounted at CONFIG_FILE_SRCDIR {srcdir} in container {}",
                cm.name
            )
        })?;
    if mount.sub_path.as_deref().is_some_and(|p| !p.is_empty()) {
        return Err(format!("the volume at {srcdir} is mounted with a subPath"));
    }
    let volume = pod
        .volumes
        .iter()
        .flatten()
        .find(|v| v.name == mount.name)
        .ok_or_else(|| format!("the pod has no volume {}", mount.name))?;
    let source = volume
        .config_map
        .as_ref()
        .ok_or_else(|| format!("volume {} is not a ConfigMap", volume.name))?;
    if source.items.as_ref().is_some_and(|i| !i.is_empty()) {
        // `items` renames keys to paths: the file names config-manager sees are not the keys.
        return Err(format!(
            "volume {} projects selected keys (items)",
            volume.name
        ));
    }
    Ok(format!("{namespace}/{}", source.name))
}

/// What one plugin DaemonSet says about its configuration.
fn deployment(ds: &DaemonSet, pod: &PodSpec, plugin: &Container) -> PluginDeployment {
    let namespace = ds.metadata.namespace.clone().unwrap_or_default();
    let mut d = PluginDeployment {
        daemonset: format!("{namespace}/{}", ds.metadata.name.as_deref().unwrap_or("")),
        config: ConfigSource::BuiltIn,
        node_label: CONFIG_LABEL.to_owned(),
        default_config: None,
        fallback_strategies: Vec::new(),
    };
    // The running sidecar rules the node's configuration; the init container runs once before.
    let Some(cm) = pod
        .containers
        .iter()
        .find(|c| is_config_manager(c))
        .or_else(|| {
            pod.init_containers
                .iter()
                .flatten()
                .find(|c| is_config_manager(c))
        })
    else {
        let plugin = Settings { container: plugin };
        if !matches!(plugin.get("config-file", "CONFIG_FILE"), Ok(None)) {
            d.config = ConfigSource::Unknown(format!(
                "the plugin container {} reads a config file that no config-manager chooses",
                plugin.container.name
            ));
        }
        return d;
    };
    d.config =
        read_config_manager(&mut d, &namespace, pod, cm).unwrap_or_else(ConfigSource::Unknown);
    d
}

/// config-manager's settings into `d`, and the ConfigMap it reads; `Err` says why that cannot
/// be told.
fn read_config_manager(
    d: &mut PluginDeployment,
    namespace: &str,
    pod: &PodSpec,
    cm: &Container,
) -> Result<ConfigSource, String> {
    let settings = Settings { container: cm };
    if let Some(label) = settings
        .get("node-label", "NODE_LABEL")?
        .filter(|l| !l.is_empty())
    {
        d.node_label = label;
    }
    d.default_config = settings
        .get("default-config", "DEFAULT_CONFIG")?
        .filter(|v| !v.is_empty());
    d.fallback_strategies = settings
        .get("fallback-strategies", "FALLBACK_STRATEGIES")?
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let srcdir = settings
        .get("config-file-srcdir", "CONFIG_FILE_SRCDIR")?
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            format!(
                "config-manager container {} sets no CONFIG_FILE_SRCDIR",
                cm.name
            )
        })?;
    source_configmap(namespace, pod, cm, &srcdir).map(ConfigSource::ConfigMap)
}

/// The NVIDIA device-plugin DaemonSets (those whose pods run the plugin, in the Helm chart's,
/// the static manifest's or the GPU Operator's layout; not GPU Feature Discovery or the MPS
/// daemon, which share its image), each with where its configuration comes from.
pub fn deployments(daemonsets: &[DaemonSet]) -> Vec<PluginDeployment> {
    daemonsets
        .iter()
        .filter_map(|ds| {
            let pod = ds.spec.as_ref()?.template.spec.as_ref()?;
            let plugin = pod.containers.iter().find(|c| is_nvidia_device_plugin(c))?;
            Some(deployment(ds, pod, plugin))
        })
        .collect()
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
        if !deployments
            .iter()
            .any(|d| d.configmap() == Some(name.as_str()))
        {
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
    /// The key config-manager picks for a node whose [`PluginDeployment::node_label`] is `label`
    /// (`updateConfigName`), given the keys (file names) of the ConfigMap.
    pub fn choose(&self, label: Option<&str>, keys: &[&str]) -> Choice {
        let has = |k: &str| keys.contains(&k);
        let configmap = self.configmap().unwrap_or("(unknown)");
        // updateConfigName: with no file at all it fails before looking at label or fallbacks.
        if keys.is_empty() {
            return Choice::Fails(format!(
                "ConfigMap {configmap} has no keys (or was not read): config-manager fails with \"no configuration files available\""
            ));
        }
        if let Some(l) = label.filter(|l| !l.is_empty()) {
            return if has(l) {
                Choice::Label(l.to_owned())
            } else {
                Choice::Fails(format!(
                    "label {}={l} names no key of ConfigMap {configmap}",
                    self.node_label
                ))
            };
        }
        if let Some(d) = &self.default_config {
            return if has(d) {
                Choice::Default(d.clone())
            } else {
                Choice::Fails(format!(
                    "DEFAULT_CONFIG={d} of DaemonSet {} names no key of ConfigMap {configmap}",
                    self.daemonset
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
            "no {} label, no DEFAULT_CONFIG, and the fallbacks [{}] of DaemonSet {} choose no key of ConfigMap {configmap}",
            self.node_label,
            self.fallback_strategies.join(","),
            self.daemonset,
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

    /// Issue 34 D6. The plugin refuses these configurations, so it does not start:
    /// NVIDIA/k8s-device-plugin `api/config/v1/replicas.go` `ReplicatedResource.UnmarshalJSON`
    /// ("number of replicas must be >= 2", "no replicas specified", "no resource name
    /// specified") and `ReplicatedResources.UnmarshalJSON` ("no resources specified", for a
    /// missing or empty list); `api/config/v1/config.go` `parseConfigFrom` ("unknown version").
    #[test]
    fn configurations_the_plugin_refuses_are_errors() {
        let ts = |resources: &str| format!("version: v1\nsharing:\n  timeSlicing:\n{resources}");
        let cases = [
            (
                ts("    resources:\n    - name: nvidia.com/gpu\n      replicas: 1\n"),
                "number of replicas must be >= 2",
            ),
            (ts("    resources: []\n"), "no resources specified"),
            (ts("    renameByDefault: true\n"), "no resources specified"),
            (
                "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 0\n".to_owned(),
                "number of replicas must be >= 2",
            ),
            (
                "version: v2\nsharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n".to_owned(),
                "unknown version: v2",
            ),
        ];
        for (yaml, words) in cases {
            let err = parse("ns/cm", "k", &yaml).expect_err(&yaml);
            let text = match std::error::Error::source(&err) {
                Some(s) => format!("{err}: {s}"),
                None => err.to_string(),
            };
            assert!(text.contains(words), "{yaml}: {text}");
            assert!(text.contains("ConfigMap ns/cm key k"), "{text}");
        }
        // No version is v1 (parseConfigFrom), and an empty file configures nothing.
        assert!(parse("ns/cm", "k", "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n").is_ok());
        assert_eq!(parse("ns/cm", "k", "").unwrap().sharing, None);
    }

    /// `api/config/v1/resources.go` `NewResourceName`: a name without a domain gets the prefix
    /// `nvidia.com/`, so `gpu` is `nvidia.com/gpu`.
    #[test]
    fn a_bare_resource_name_is_nvidias() {
        let yaml = "version: v1\nsharing:\n  timeSlicing:\n    resources:\n    - name: gpu\n      replicas: 4\n";
        let s = parse("ns/cm", "k", yaml).unwrap().sharing.unwrap();
        assert_eq!(s.gpu_replicas(), Some(4));
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

    const IMAGE: &str = "nvcr.io/nvidia/k8s-device-plugin:v0.17.0";

    /// config-manager's environment as both layouts set it.
    fn cm_env(default: &str, fallbacks: &str) -> serde_json::Value {
        serde_json::json!([
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
            {"name": "NODE_LABEL", "value": "nvidia.com/device-plugin.config"},
            {"name": "CONFIG_FILE_SRCDIR", "value": "/available-configs"},
            {"name": "CONFIG_FILE_DST", "value": "/config/config.yaml"},
            {"name": "DEFAULT_CONFIG", "value": default},
            {"name": "FALLBACK_STRATEGIES", "value": fallbacks}
        ])
    }

    /// The device plugin's DaemonSet as the GPU Operator renders it with a custom configuration:
    /// gpu-operator `assets/state-device-plugin/0500_daemonset.yaml` transformed by
    /// `controllers/object_controls.go` `handleDevicePluginConfig`: the volume is named after
    /// the ConfigMap (`createConfigMapVolume(config.Name, nil)`) and mounted at
    /// `/available-configs` in the plugin and both config-manager containers
    /// (`addSharedMountsForPluginConfig`); config-manager gets `DEFAULT_CONFIG` and
    /// `FALLBACK_STRATEGIES=empty` (`transformConfigManagerSidecarContainer`).
    fn operator_daemonset() -> DaemonSet {
        let mounts = serde_json::json!([
            {"name": "config", "mountPath": "/config"},
            {"name": "time-slicing-config", "mountPath": "/available-configs"}
        ]);
        serde_json::from_value(serde_json::json!({
            "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "gpu-operator"},
            "spec": {"selector": {"matchLabels": {"app": "nvidia-device-plugin-daemonset"}},
              "template": {"spec": {
                "initContainers": [
                    {"name": "toolkit-validation", "image": "nvcr.io/nvidia/cloud-native/gpu-operator-validator:v25.3.0",
                     "command": ["sh", "-c"], "args": ["until [ -f /run/nvidia/validations/toolkit-ready ]; do sleep 5; done"]},
                    {"name": "config-manager-init", "image": IMAGE, "command": ["config-manager"],
                     "env": cm_env("a5000", "empty"), "volumeMounts": mounts}
                ],
                "containers": [
                    {"name": "nvidia-device-plugin", "image": IMAGE, "command": ["/bin/sh", "-c"],
                     "args": ["/bin/entrypoint.sh"],
                     "env": [{"name": "CONFIG_FILE", "value": "/config/config.yaml"}],
                     "volumeMounts": [
                         {"name": "nvidia-device-plugin-entrypoint", "mountPath": "/bin/entrypoint.sh", "subPath": "entrypoint.sh"},
                         {"name": "config", "mountPath": "/config"},
                         {"name": "time-slicing-config", "mountPath": "/available-configs"}]},
                    {"name": "config-manager", "image": IMAGE, "command": ["config-manager"],
                     "env": cm_env("a5000", "empty"), "volumeMounts": mounts}
                ],
                "volumes": [
                    {"name": "nvidia-device-plugin-entrypoint", "configMap": {"name": "nvidia-device-plugin-entrypoint", "defaultMode": 448}},
                    {"name": "time-slicing-config", "configMap": {"name": "time-slicing-config"}},
                    {"name": "config", "emptyDir": {}}
                ]}}}
        }))
        .unwrap()
    }

    /// Issue 34 D1. Under the GPU Operator the volume is not called `available-configs`; the
    /// DaemonSet was skipped and every sharing check did nothing.
    #[test]
    fn the_operator_layout_is_read() {
        let d = deployments(&[operator_daemonset()]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(
            d[0].daemonset,
            "gpu-operator/nvidia-device-plugin-daemonset"
        );
        assert_eq!(
            d[0].config,
            ConfigSource::ConfigMap("gpu-operator/time-slicing-config".into())
        );
        assert_eq!(d[0].default_config.as_deref(), Some("a5000"));
        assert_eq!(d[0].fallback_strategies, ["empty"]);
        assert_eq!(d[0].node_label, CONFIG_LABEL);
    }

    /// The Helm chart's layout (`templates/daemonset-device-plugin.yml`): the volume
    /// `available-configs` at `/available-configs`; its GFD DaemonSet (`daemonset-gfd.yml`)
    /// reads the same ConfigMap but is not the plugin.
    #[test]
    fn the_helm_layout_is_read_and_gfd_is_not_the_plugin() {
        let helm = |name: &str, main: serde_json::Value| -> DaemonSet {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": name, "namespace": "nvdp"},
                "spec": {"selector": {}, "template": {"spec": {
                    "containers": [
                        {"name": "sidecar", "image": IMAGE, "command": ["config-manager"],
                         "env": cm_env("", "named,single"),
                         "volumeMounts": [{"name": "available-configs", "mountPath": "/available-configs"},
                                          {"name": "config", "mountPath": "/config"}]},
                        main],
                    "volumes": [{"name": "available-configs", "configMap": {"name": "nvdp-configs"}},
                                {"name": "config", "emptyDir": {}}]}}}
            }))
            .unwrap()
        };
        let d = deployments(&[
            helm(
                "nvdp-nvidia-device-plugin",
                serde_json::json!({"name": "nvidia-device-plugin-ctr", "image": IMAGE,
                                   "command": ["nvidia-device-plugin"]}),
            ),
            helm(
                "nvdp-gpu-feature-discovery",
                serde_json::json!({"name": "gpu-feature-discovery-ctr", "image": IMAGE,
                                   "command": ["gpu-feature-discovery"]}),
            ),
        ]);
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!(d[0].daemonset, "nvdp/nvdp-nvidia-device-plugin");
        assert_eq!(d[0].configmap(), Some("nvdp/nvdp-configs"));
        assert_eq!(d[0].default_config, None);
        assert_eq!(d[0].fallback_strategies, ["named", "single"]);
    }

    /// A layout this code cannot follow is "cannot tell", never a configuration: the volume at
    /// `CONFIG_FILE_SRCDIR` missing, or a projection of selected keys.
    #[test]
    fn what_cannot_be_followed_is_unknown() {
        let mut ds = operator_daemonset();
        let pod = ds.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
        for c in &mut pod.containers {
            c.volume_mounts
                .get_or_insert_default()
                .retain(|m| m.mount_path != "/available-configs");
        }
        pod.init_containers = None;
        let d = deployments(&[ds]);
        assert_eq!(
            d[0].config,
            ConfigSource::Unknown(
                "no volume is mounted at CONFIG_FILE_SRCDIR /available-configs in container config-manager".into()
            )
        );
        let mut ds = operator_daemonset();
        let pod = ds.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
        for v in pod.volumes.iter_mut().flatten() {
            if let Some(cm) = v
                .config_map
                .as_mut()
                .filter(|c| c.name == "time-slicing-config")
            {
                cm.items = Some(vec![k8s_openapi::api::core::v1::KeyToPath {
                    key: "a5000".into(),
                    path: "any".into(),
                    mode: None,
                }]);
            }
        }
        assert!(matches!(
            deployments(&[ds])[0].config,
            ConfigSource::Unknown(_)
        ));
    }

    /// The plugin without config-manager runs its built-in defaults (the chart without a
    /// ConfigMap, the static manifest); with a `CONFIG_FILE` of its own, the file is not known.
    #[test]
    fn without_config_manager_the_plugin_runs_its_defaults() {
        let ds = |env: serde_json::Value| -> DaemonSet {
            serde_json::from_value(serde_json::json!({
                "metadata": {"name": "nvidia-device-plugin-daemonset", "namespace": "kube-system"},
                "spec": {"selector": {}, "template": {"spec": {"containers": [
                    {"name": "nvidia-device-plugin-ctr", "image": IMAGE, "env": env}]}}}
            }))
            .unwrap()
        };
        assert_eq!(
            deployments(&[ds(serde_json::json!([]))])[0].config,
            ConfigSource::BuiltIn
        );
        let own_file =
            ds(serde_json::json!([{"name": "CONFIG_FILE", "value": "/etc/nvdp/config.yaml"}]));
        assert!(matches!(
            deployments(&[own_file])[0].config,
            ConfigSource::Unknown(_)
        ));
    }

    /// Suspected item of issue 34, confirmed: config-manager's `NODE_LABEL` (flag `node-label`,
    /// `cmd/config-manager/main.go`) names the label that picks a node's key; a command-line flag
    /// wins over the variable (urfave/cli).
    #[test]
    fn node_label_is_config_managers_own() {
        let mut ds = operator_daemonset();
        let pod = ds.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
        for c in pod
            .containers
            .iter_mut()
            .filter(|c| c.name == "config-manager")
        {
            for e in c.env.iter_mut().flatten() {
                if e.name == "NODE_LABEL" {
                    e.value = Some("example.org/gpu-config".into());
                }
            }
        }
        assert_eq!(
            deployments(&[ds.clone()])[0].node_label,
            "example.org/gpu-config"
        );
        let pod = ds.spec.as_mut().unwrap().template.spec.as_mut().unwrap();
        for c in pod
            .containers
            .iter_mut()
            .filter(|c| c.name == "config-manager")
        {
            c.args = Some(vec!["--node-label=example.org/other".into()]);
        }
        assert_eq!(deployments(&[ds])[0].node_label, "example.org/other");
    }

    /// Suspected item of issue 34, confirmed: `updateConfigName` (`cmd/config-manager/main.go`)
    /// fails with "no configuration files available" when the directory holds no file, before
    /// any fallback, `empty` included.
    #[test]
    fn no_keys_fails_before_the_fallbacks() {
        let d = PluginDeployment {
            daemonset: "gpu-operator/nvidia-device-plugin-daemonset".into(),
            config: ConfigSource::ConfigMap("gpu-operator/time-slicing-config".into()),
            node_label: CONFIG_LABEL.into(),
            default_config: None,
            fallback_strategies: vec!["empty".into()],
        };
        match d.choose(None, &[]) {
            Choice::Fails(why) => {
                assert!(why.contains("no configuration files available"), "{why}")
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(d.choose(None, &["a5000"]), Choice::Empty);
    }

    #[test]
    fn config_manager_choice() {
        let d = |default: Option<&str>, fallbacks: &[&str]| PluginDeployment {
            daemonset: "kube-system/nvdp".into(),
            config: ConfigSource::ConfigMap("kube-system/nvdp-configs".into()),
            node_label: CONFIG_LABEL.into(),
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
