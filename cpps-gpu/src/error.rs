//! The crate's error type.

use std::path::PathBuf;

/// Why NVML cannot be used on this machine: the clean "no GPU here" answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NvmlUnavailable {
    /// The NVML shared library could not be loaded (no NVIDIA driver installed).
    #[error("the NVML library {library} cannot be loaded: {detail}")]
    LibraryMissing {
        /// The library name or path that was tried.
        library: String,
        /// The loader's message.
        detail: String,
    },
    /// NVML works but sees no GPU.
    #[error("NVML sees no GPU")]
    NoDevice,
    /// The NVIDIA kernel driver is not loaded.
    #[error("the NVIDIA kernel driver is not loaded")]
    DriverNotLoaded,
    /// The NVML library and the kernel driver are of different versions (driver upgraded
    /// without a reboot, or a container with a foreign libnvidia-ml).
    #[error("the NVML library does not match the loaded kernel driver")]
    DriverMismatch,
    /// NVML may not talk to the driver.
    #[error("no permission to talk to the NVIDIA driver")]
    NoPermission,
}

/// Everything that can go wrong in this crate.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// NVML cannot be used here.
    #[error("NVML is not available here")]
    NvmlUnavailable(#[from] NvmlUnavailable),
    /// An NVML call needed for the whole read failed.
    #[error("NVML call {call} failed")]
    Nvml {
        /// The NVML function.
        call: &'static str,
        /// What nvml-wrapper said.
        #[source]
        source: nvml_wrapper::error::NvmlError,
    },
    /// The kubeconfig could not be read.
    #[error("cannot use kubeconfig {path}")]
    Kubeconfig {
        /// The file.
        path: PathBuf,
        /// What kube said.
        #[source]
        source: kube::config::KubeconfigError,
    },
    /// A Kubernetes client could not be built from the configuration.
    #[error("cannot build a Kubernetes client")]
    KubeClient(#[source] kube::Error),
    /// A Kubernetes API request failed.
    #[error("{verb} {what} failed")]
    Kube {
        /// The HTTP method.
        verb: &'static str,
        /// The resource path or object.
        what: String,
        /// What kube said.
        #[source]
        source: kube::Error,
    },
    /// A value read from the cluster is malformed.
    #[error("{field}: {reason}")]
    Invalid {
        /// Where the value came from (object and field path).
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The NVIDIA device plugin's configuration could not be parsed.
    #[error("cannot parse the device plugin configuration in {location}")]
    DevicePluginConfig {
        /// ConfigMap namespace/name and key.
        location: String,
        /// The YAML error, with line and column.
        #[source]
        source: serde_saphyr::Error,
    },
    /// The NVIDIA device plugin refuses its configuration (and so does not start).
    #[error("the device plugin refuses its configuration in {location}: {reason}")]
    DevicePluginConfigRefused {
        /// ConfigMap namespace/name and key.
        location: String,
        /// The plugin's reason, with the field.
        reason: String,
    },
    /// Something did not happen in time.
    #[error("timed out waiting for {what}")]
    Timeout {
        /// What was awaited.
        what: String,
    },
}

impl Error {
    pub(crate) fn kube(verb: &'static str, what: impl Into<String>, source: kube::Error) -> Self {
        Self::Kube {
            verb,
            what: what.into(),
            source,
        }
    }
}
