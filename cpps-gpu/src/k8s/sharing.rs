//! The NVIDIA device plugin's time-slicing configuration (the ConfigMap given to the plugin with
//! `--config-file`, one configuration per key; nodes pick one with the
//! `nvidia.com/device-plugin.config` label). Format: the plugin's `config.yaml`
//! (`version: v1`, `sharing.timeSlicing.resources[].{name, replicas}`, `renameByDefault`).

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// One configuration (one ConfigMap key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TimeSlicingConfig {
    /// `namespace/name` of the ConfigMap.
    pub configmap: String,
    /// The key in it.
    pub key: String,
    /// Shared resources renamed to `<name>.shared`.
    pub rename_by_default: bool,
    /// Replicas per resource.
    pub resources: Vec<SharedResource>,
}

/// One time-sliced resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedResource {
    /// e.g. `nvidia.com/gpu`.
    pub name: String,
    /// Replicas per physical GPU.
    pub replicas: u32,
    /// Renamed resource name, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rename: Option<String>,
}

#[derive(Deserialize)]
struct PluginConfig {
    #[serde(default)]
    sharing: Option<Sharing>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Sharing {
    #[serde(default)]
    time_slicing: Option<TimeSlicing>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TimeSlicing {
    #[serde(default)]
    rename_by_default: bool,
    #[serde(default)]
    resources: Vec<SharedResource>,
}

/// Parses one ConfigMap value; `None` when it configures no time-slicing.
///
/// # Errors
/// [`Error::TimeSlicingConfig`] with the YAML error (line and column).
pub fn parse(configmap: &str, key: &str, yaml: &str) -> Result<Option<TimeSlicingConfig>, Error> {
    let cfg: PluginConfig =
        serde_saphyr::from_str(yaml).map_err(|source| Error::TimeSlicingConfig {
            location: format!("ConfigMap {configmap} key {key}"),
            source,
        })?;
    Ok(cfg
        .sharing
        .and_then(|s| s.time_slicing)
        .map(|t| TimeSlicingConfig {
            configmap: configmap.to_owned(),
            key: key.to_owned(),
            rename_by_default: t.rename_by_default,
            resources: t.resources,
        }))
}

impl TimeSlicingConfig {
    /// Replicas configured for `nvidia.com/gpu`.
    pub fn gpu_replicas(&self) -> Option<u32> {
        self.resources
            .iter()
            .find(|r| r.name == super::nodes::GPU_RESOURCE)
            .map(|r| r.replicas)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "version: v1\nflags:\n  migStrategy: none\nsharing:\n  timeSlicing:\n    renameByDefault: false\n    failRequestsGreaterThanOne: false\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 4\n";

    #[test]
    fn parses_the_plugin_format() {
        let c = parse("gpu-operator/time-slicing-config", "a5000", DOC)
            .unwrap()
            .unwrap();
        assert_eq!(c.gpu_replicas(), Some(4));
        assert!(!c.rename_by_default);
        assert_eq!(c.key, "a5000");
        assert_eq!(
            parse("ns/cm", "k", "version: v1\nflags: {}\n").unwrap(),
            None
        );
    }

    #[test]
    fn bad_yaml_names_the_place() {
        let err = parse("ns/cm", "k", "sharing:\n  timeSlicing:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: four\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot parse the time-slicing configuration in ConfigMap ns/cm key k"
        );
        let source = std::error::Error::source(&err).unwrap().to_string();
        assert!(source.contains("line 5"), "{source}");
    }
}
