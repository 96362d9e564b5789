//! The mapping: which stack-config key and which host variable feeds which topology field,
//! which component kinds each tool's evidence decides, and IaC names that differ from ids.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::IacError;
use crate::model::ComponentKind;

/// The mapping CPPS uses (`src/iac/default-mapping.yaml`).
pub const DEFAULT_MAPPING_YAML: &str = include_str!("default-mapping.yaml");

cpps_named_enum::named_enum! {
    /// A topology field that IaC evidence can set. Its name is how the topology file writes it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[non_exhaustive]
    pub enum Field {
        /// `host` of a guest (Pulumi `nodeName`).
        #[serde(rename = "host")]
        Host => "host",
        /// The Proxmox VM id (Pulumi `vmId`): no topology field, it ties HA resources to guests.
        #[serde(rename = "vm_id")]
        VmId => "vm_id",
        /// `on_boot` (Pulumi `onBoot`, `startOnBoot`).
        #[serde(rename = "on_boot")]
        OnBoot => "on_boot",
        /// `ha`.
        #[serde(rename = "ha")]
        Ha => "ha",
        /// `privileged` of an LXC (Pulumi `unprivileged`, inverted).
        #[serde(rename = "privileged")]
        Privileged => "privileged",
        /// `linstor.interface` of a host.
        #[serde(rename = "linstor.interface")]
        LinstorInterface => "linstor.interface",
    }
}

impl Field {
    /// Every field.
    pub const ALL: [Field; 6] = [
        Field::Host,
        Field::VmId,
        Field::OnBoot,
        Field::Ha,
        Field::Privileged,
        Field::LinstorInterface,
    ];
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Field::ALL
            .into_iter()
            .find(|f| f.as_str() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Field::ALL.iter().map(|f| f.as_str()).collect();
                serde::de::Error::custom(format!(
                    "unknown topology field `{text}` (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// One stack-config key whose value maps component names to their settings.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigKey {
    /// The full key, `project:name` (`cpps:vms`).
    pub key: String,
    /// Setting name → topology field.
    pub fields: BTreeMap<String, Field>,
}

/// The Pulumi part of the mapping.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PulumiMapping {
    /// Component kinds whose state the Pulumi evidence decides (`guest`, `traefik`, …).
    #[serde(default)]
    pub covers: Vec<KindName>,
    /// Sites the Pulumi evidence covers; all when empty.
    #[serde(default)]
    pub sites: Vec<String>,
    /// Mapped stack-config keys.
    #[serde(default)]
    pub config: Vec<ConfigKey>,
}

/// The Ansible part of the mapping.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnsibleMapping {
    /// Component kinds whose state the inventory decides (`host`, …).
    #[serde(default)]
    pub covers: Vec<KindName>,
    /// Sites the inventory covers; all when empty.
    #[serde(default)]
    pub sites: Vec<String>,
    /// Host variable → topology field.
    #[serde(default)]
    pub hostvars: BTreeMap<String, Field>,
    /// Inventory group → the component it declares (`k3s_franca: k3s-franca`).
    #[serde(default)]
    pub groups: BTreeMap<String, String>,
}

/// A component kind as the mapping writes it (`guest`, `k3s_cluster`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KindName(pub ComponentKind);

const KINDS: &[ComponentKind] = &[
    ComponentKind::Site,
    ComponentKind::Host,
    ComponentKind::Guest,
    ComponentKind::ProxmoxCluster,
    ComponentKind::LinstorPool,
    ComponentKind::K3sCluster,
    ComponentKind::ArgoCd,
    ComponentKind::Pbs,
    ComponentKind::Router,
    ComponentKind::Traefik,
    ComponentKind::Link,
    ComponentKind::Pattern,
    ComponentKind::Capability,
    ComponentKind::Item,
];

impl<'de> Deserialize<'de> for KindName {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        KINDS
            .iter()
            .find(|k| crate::finding::kind_name(**k) == text)
            .map(|k| KindName(*k))
            .ok_or_else(|| {
                let names: Vec<&str> = KINDS
                    .iter()
                    .map(|k| crate::finding::kind_name(*k))
                    .collect();
                serde::de::Error::custom(format!(
                    "unknown component kind `{text}` (expected one of {})",
                    names.join(", ")
                ))
            })
    }
}

/// Which IaC evidence feeds which topology field (a side file, `--iac mapping=FILE`).
///
/// ```yaml
/// pulumi:
///   covers: [guest, traefik, pbs]
///   config:
///     - key: cpps:vms
///       fields: { node: host, vm_id: vm_id, on_boot: on_boot, ha: ha }
/// ansible:
///   covers: [host]
///   hostvars: { linstor_interface: linstor.interface }
/// names: { traefik-sp-vm: traefik-sp }
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mapping {
    /// The Pulumi part.
    #[serde(default)]
    pub pulumi: PulumiMapping,
    /// The Ansible part.
    #[serde(default)]
    pub ansible: AnsibleMapping,
    /// IaC name → component id, where they differ.
    #[serde(default)]
    pub names: BTreeMap<String, String>,
}

impl Mapping {
    /// Parses a mapping file; an error names the file, line and column.
    pub fn parse(file: &str, text: &str) -> Result<Self, IacError> {
        serde_saphyr::from_str(text).map_err(|e| IacError::yaml(file, &e))
    }

    /// The mapping CPPS uses ([`DEFAULT_MAPPING_YAML`]).
    pub fn default_cpps() -> Self {
        // The embedded file is parsed by a unit test, so this cannot fail in a tested build;
        // the empty mapping keeps this total.
        Self::parse("default-mapping.yaml", DEFAULT_MAPPING_YAML).unwrap_or_default()
    }

    /// Whether Pulumi evidence decides the state of `kind` components.
    pub(crate) fn pulumi_covers(&self, kind: ComponentKind) -> bool {
        self.pulumi.covers.iter().any(|k| k.0 == kind)
    }

    /// Whether the inventory decides the state of `kind` components.
    pub(crate) fn ansible_covers(&self, kind: ComponentKind) -> bool {
        self.ansible.covers.iter().any(|k| k.0 == kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_mapping_parses() {
        let m = Mapping::parse("default-mapping.yaml", DEFAULT_MAPPING_YAML).unwrap();
        assert_eq!(m, Mapping::default_cpps());
        assert!(m.pulumi_covers(ComponentKind::Guest));
        assert!(m.ansible_covers(ComponentKind::Host));
        assert_eq!(m.pulumi.config[0].key, "cpps:vms");
        assert_eq!(m.pulumi.config[0].fields["ha"], Field::Ha);
        assert_eq!(
            m.ansible.hostvars["linstor_interface"],
            Field::LinstorInterface
        );
    }
}
