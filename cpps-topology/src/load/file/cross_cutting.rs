//! File types of the cross-cutting capabilities, other labelled facts and suppressions.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{At, FileState};
use crate::model::{AlertKind, CapabilityKind};

/// An alert.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Alert")]
pub(crate) struct AlertFile {
    /// Which alert.
    pub(crate) kind: AlertKind,
    /// Its state: exactly one.
    #[schemars(required)]
    pub(crate) state: Option<At<FileState>>,
    /// Free text.
    #[serde(default)]
    pub(crate) note: Option<String>,
}

component_file! {
    /// A cross-cutting capability.
    #[schemars(rename = "Capability")]
    struct CapabilityFile {
        /// `secrets`, `tls`, `iam`, `observability`, `ci_cd`, `supply_chain`.
        pub(crate) kind: CapabilityKind,
        /// The tool or decision.
        #[serde(default)]
        pub(crate) tool: Option<String>,
        /// The site, when local to one.
        #[serde(default)]
        pub(crate) site: Option<At<String>>,
        /// Alerts (observability).
        #[serde(default)]
        pub(crate) alerts: Vec<At<AlertFile>>,
    }
}

component_file! {
    /// Any other labelled fact.
    #[schemars(rename = "Item")]
    struct ItemFile {
        /// Layer of the architecture (`8a`).
        #[serde(default)]
        pub(crate) layer: Option<String>,
        /// Its site.
        #[serde(default)]
        pub(crate) site: Option<At<String>>,
        /// The cluster it runs in.
        #[serde(default)]
        pub(crate) cluster: Option<At<String>>,
    }
}

/// A suppressed finding.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Suppression")]
pub(crate) struct SuppressionFile {
    /// Rule id (`LINSTOR-002`).
    pub(crate) rule: At<String>,
    /// Component id, or `*`.
    pub(crate) subject: At<String>,
    /// Why (required).
    pub(crate) reason: At<String>,
    /// Last day it holds (`2026-12-31`).
    #[serde(default)]
    pub(crate) expires: Option<At<String>>,
}
