//! The IaC as evidence: what the team's Pulumi and Ansible code declares, read from the tools'
//! own output, so that the middle state of "Os 3 estados" is a fact rather than a claim.
//!
//! The documents define the three states by evidence: validated works in production, declared
//! "Existe no código (Pulumi/Ansible) mas não foi aplicado/validado em produção", desired is a
//! decision without code. The topology file claims one state per component; this module reads:
//!
//! | input (`--iac NAME=FILE`) | what it is | reader |
//! | --- | --- | --- |
//! | `pulumi-export` | `pulumi stack export` (apitype v3: `deployment.resources`) | [`Evidence::add_pulumi_state`] |
//! | `pulumi-mock` | the same shape, written by `xtask/iac/pulumi_mock_run.py` (the program under the SDK's mocks) | [`Evidence::add_pulumi_state`] |
//! | `pulumi-config` | a stack config, `Pulumi.<stack>.yaml` (`config: {project:key: value}`) | [`Evidence::add_pulumi_config`] |
//! | `ansible` | `ansible-inventory -i INVENTORY --list` JSON | [`Evidence::add_ansible`] |
//! | `ansible-source` | the inventory itself (INI or YAML), only to point findings at its lines | [`Evidence::add_ansible`] |
//! | `mapping` | which config key or host variable feeds which topology field ([`Mapping`]) | [`Mapping::parse`] |
//!
//! Both majors of the `pulumi-proxmoxve` provider are read: 7.x registers
//! `proxmoxve:VM/virtualMachine:VirtualMachine`, `proxmoxve:CT/container:Container` and
//! `proxmoxve:HA/hAResource:HAResource`; 8.x `proxmoxve:index/vmLegacy:VmLegacy`,
//! `proxmoxve:index/containerLegacy:ContainerLegacy`, `proxmoxve:index/haresourceLegacy:HaresourceLegacy`
//! (and the new `proxmoxve:index/vm:Vm`, `proxmoxve:index/haresource:Haresource`), with the
//! same input names (`nodeName`, `vmId`, `onBoot`; `startOnBoot`, `unprivileged`; an HA
//! resource names its guest by `resourceId: "vm:120"`). Pulumi secrets
//! (`{"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", …}`) and `secure:` config values are kept as [`Value::Secret`], which holds
//! nothing of the secret.
//!
//! [`IacChecks`] compares the evidence with the file's claims as extra checks of
//! [`crate::check::run`] (rules `IAC-001`…`IAC-006`); [`sources_table`] lays the topology claim,
//! the IaC and the live systems side by side for each component, with the state the evidence
//! supports.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::Serialize;
use serde_saphyr::MessageFormatter as _;

mod ansible;
mod checks;
mod mapping;
mod pulumi;
mod table;
mod yaml;

pub use checks::{IacChecks, RULES};
pub use mapping::{
    AnsibleMapping, ConfigKey, DEFAULT_MAPPING_YAML, Field, KindName, Mapping, PulumiMapping,
};
pub use table::{LiveSeen, SourcesRow, Supported, Verdict, render_table, sources_table};

cpps_named_enum::named_enum! {
    /// A kind of IaC evidence (the `NAME` of `--iac NAME=FILE`); its name is the flag's `NAME`.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
    #[serde(rename_all = "kebab-case")]
    #[non_exhaustive]
    pub enum EvidenceKind {
        /// `pulumi stack export`: what the engine applied.
        PulumiExport => "pulumi-export",
        /// A Pulumi program run under the SDK's mocks: in the code, applied or not.
        PulumiMock => "pulumi-mock",
        /// A Pulumi stack config file.
        PulumiConfig => "pulumi-config",
        /// `ansible-inventory --list`.
        Ansible => "ansible",
    }
}

impl EvidenceKind {
    /// Whether this is Pulumi evidence (state, program or config).
    pub fn is_pulumi(self) -> bool {
        !matches!(self, Self::Ansible)
    }

    /// Whether it lists resources that Pulumi registers (export or mock run), so that the
    /// absence of an HA resource there means something.
    pub fn is_pulumi_state(self) -> bool {
        matches!(self, Self::PulumiExport | Self::PulumiMock)
    }
}

/// Where a piece of evidence is: the file, 1-based line and column, and the Pulumi URN of the
/// resource when it is one.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Origin {
    /// Which evidence.
    pub kind: EvidenceKind,
    /// The file, as given.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
    /// The resource's URN (Pulumi state and mock runs).
    pub urn: Option<String>,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}:{}:{}",
            self.kind, self.file, self.line, self.column
        )?;
        if let Some(urn) = &self.urn {
            write!(f, " ({urn})")?;
        }
        Ok(())
    }
}

/// A value the IaC gives a field.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Value {
    /// `true` / `false`.
    Bool(bool),
    /// A whole number (a VM id).
    Int(u64),
    /// Text.
    Text(String),
    /// A secret (Pulumi's secret signature, or a `secure:` config value): its content is not
    /// kept, so it can reach no message.
    Secret,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Bool(b) => write!(f, "{b}"),
            Self::Int(n) => write!(f, "{n}"),
            Self::Text(s) => write!(f, "{s:?}"),
            Self::Secret => f.write_str("[secret]"),
        }
    }
}

impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// What a declaration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DeclaredKind {
    /// A Proxmox VM resource.
    Vm,
    /// A Proxmox LXC resource.
    Container,
    /// An entry of a mapped stack-config key.
    ConfigEntry,
    /// A host of an Ansible inventory.
    InventoryHost,
    /// A group of an Ansible inventory that the mapping names as a component.
    InventoryGroup,
}

/// A field value with where the IaC writes it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldValue {
    /// The topology field it feeds.
    pub field: Field,
    /// The value.
    pub value: Value,
    /// Where it is written.
    pub origin: Origin,
}

/// One thing the IaC declares: a resource, a config entry or an inventory host.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Declaration {
    /// The name as the IaC writes it (the VM name, the host name, the config entry's key).
    pub name: String,
    /// What it is.
    pub kind: DeclaredKind,
    /// Where it is.
    pub origin: Origin,
    /// The fields it sets.
    pub fields: Vec<FieldValue>,
}

impl Declaration {
    /// The value of `field`, if set.
    pub fn field(&self, field: Field) -> Option<&FieldValue> {
        self.fields.iter().find(|f| f.field == field)
    }
}

/// A Proxmox HA resource registered by Pulumi (`resourceId: "vm:120"`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HaResource {
    /// The resource id as written: `vm:120`, `ct:200`.
    pub resource_id: String,
    /// Where it is.
    pub origin: Origin,
}

impl HaResource {
    /// The guest id the resource names (`120` of `vm:120`).
    pub fn vm_id(&self) -> Option<u64> {
        self.resource_id
            .split_once(':')
            .map_or(self.resource_id.as_str(), |(_, n)| n)
            .trim()
            .parse()
            .ok()
    }
}

/// Everything the IaC inputs declare, read with one [`Mapping`].
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// The mapping the inputs were read with.
    pub mapping: Mapping,
    /// The inputs read: kind and file.
    pub inputs: Vec<(EvidenceKind, String)>,
    /// Guests, config entries, inventory hosts and groups.
    pub declarations: Vec<Declaration>,
    /// The HA resources of the Pulumi state and mock runs.
    pub ha_resources: Vec<HaResource>,
    /// Resources of types that are neither guests nor HA resources, counted by type token.
    pub other_types: std::collections::BTreeMap<String, usize>,
}

impl Evidence {
    /// No evidence yet, read with `mapping`.
    pub fn new(mapping: Mapping) -> Self {
        Self {
            mapping,
            ..Self::default()
        }
    }

    /// Whether any input of `kind` was read.
    pub fn has(&self, kind: EvidenceKind) -> bool {
        self.inputs.iter().any(|(k, _)| *k == kind)
    }

    /// Whether any Pulumi input was read.
    pub fn has_pulumi(&self) -> bool {
        self.inputs.iter().any(|(k, _)| k.is_pulumi())
    }

    /// Whether a Pulumi state or mock run was read (where HA resources would appear).
    pub fn has_pulumi_state(&self) -> bool {
        self.inputs.iter().any(|(k, _)| k.is_pulumi_state())
    }

    /// Reads the stack export or mock-run output `text` of `file`.
    pub fn add_pulumi_state(
        &mut self,
        kind: EvidenceKind,
        file: &str,
        text: &str,
    ) -> Result<(), IacError> {
        pulumi::read_state(self, kind, file, text)?;
        self.inputs.push((kind, file.to_owned()));
        Ok(())
    }

    /// Reads the stack config `text` of `file` through the mapping's `pulumi.config` keys.
    pub fn add_pulumi_config(&mut self, file: &str, text: &str) -> Result<(), IacError> {
        pulumi::read_config(self, file, text)?;
        self.inputs
            .push((EvidenceKind::PulumiConfig, file.to_owned()));
        Ok(())
    }

    /// Reads `ansible-inventory --list` output `text` of `file`; `source` (name and text of the
    /// inventory itself) only places findings on its lines.
    pub fn add_ansible(
        &mut self,
        file: &str,
        text: &str,
        source: Option<(&str, &str)>,
    ) -> Result<(), IacError> {
        ansible::read_list(self, file, text, source)?;
        self.inputs.push((EvidenceKind::Ansible, file.to_owned()));
        Ok(())
    }

    /// The evidence the `--iac NAME=FILE` flags of `cargo xtask check` name, read:
    /// [`IacInputs::parse`] then [`Evidence::load`].
    pub fn from_flags<'a>(flags: impl IntoIterator<Item = &'a str>) -> Result<Self, IacError> {
        Self::load(&IacInputs::parse(flags)?)
    }

    /// Reads every input of `inputs` from disk.
    pub fn load(inputs: &IacInputs) -> Result<Self, IacError> {
        let mapping = match &inputs.mapping {
            Some(path) => {
                let name = path.display().to_string();
                Mapping::parse(&name, &read(path)?)?
            }
            None => Mapping::default_cpps(),
        };
        let mut evidence = Evidence::new(mapping);
        let source = match &inputs.ansible_source {
            Some(path) => Some((path.display().to_string(), read(path)?)),
            None => None,
        };
        for (kind, path) in &inputs.files {
            let name = path.display().to_string();
            let text = read(path)?;
            match kind {
                EvidenceKind::PulumiExport | EvidenceKind::PulumiMock => {
                    evidence.add_pulumi_state(*kind, &name, &text)?
                }
                EvidenceKind::PulumiConfig => evidence.add_pulumi_config(&name, &text)?,
                EvidenceKind::Ansible => evidence.add_ansible(
                    &name,
                    &text,
                    source.as_ref().map(|(n, t)| (n.as_str(), t.as_str())),
                )?,
            }
        }
        Ok(evidence)
    }
}

fn read(path: &Path) -> Result<String, IacError> {
    std::fs::read_to_string(path).map_err(|e| IacError::Read {
        file: path.display().to_string(),
        message: e.to_string(),
    })
}

/// The `--iac NAME=FILE` flags, parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IacInputs {
    /// Evidence files, in the order given.
    pub files: Vec<(EvidenceKind, PathBuf)>,
    /// The mapping file (`mapping=FILE`); the CPPS default ([`Mapping::default_cpps`]) without.
    pub mapping: Option<PathBuf>,
    /// The Ansible inventory source (`ansible-source=FILE`), for line numbers.
    pub ansible_source: Option<PathBuf>,
}

/// The names `--iac` accepts.
pub const IAC_FLAG_NAMES: &[&str] = &[
    "pulumi-export",
    "pulumi-mock",
    "pulumi-config",
    "ansible",
    "ansible-source",
    "mapping",
];

impl IacInputs {
    /// Adds one `NAME=FILE` flag.
    pub fn add(&mut self, flag: &str) -> Result<(), IacError> {
        let (name, file) = flag.split_once('=').ok_or_else(|| IacError::Flag {
            flag: flag.to_owned(),
            message: format!(
                "expected NAME=FILE, NAME one of {}",
                IAC_FLAG_NAMES.join(", ")
            ),
        })?;
        if file.is_empty() {
            return Err(IacError::Flag {
                flag: flag.to_owned(),
                message: "the file is empty".to_owned(),
            });
        }
        let path = PathBuf::from(file);
        let kind = match name {
            "pulumi-export" => EvidenceKind::PulumiExport,
            "pulumi-mock" => EvidenceKind::PulumiMock,
            "pulumi-config" => EvidenceKind::PulumiConfig,
            "ansible" => EvidenceKind::Ansible,
            "ansible-source" | "mapping" => {
                let slot = if name == "mapping" {
                    &mut self.mapping
                } else {
                    &mut self.ansible_source
                };
                if slot.is_some() {
                    return Err(IacError::Flag {
                        flag: flag.to_owned(),
                        message: format!("{name} is given twice"),
                    });
                }
                *slot = Some(path);
                return Ok(());
            }
            other => {
                return Err(IacError::Flag {
                    flag: flag.to_owned(),
                    message: format!(
                        "unknown evidence `{other}` (expected one of {})",
                        IAC_FLAG_NAMES.join(", ")
                    ),
                });
            }
        };
        self.files.push((kind, path));
        Ok(())
    }

    /// All of `flags`.
    pub fn parse<'a>(flags: impl IntoIterator<Item = &'a str>) -> Result<Self, IacError> {
        let mut inputs = Self::default();
        for flag in flags {
            inputs.add(flag)?;
        }
        Ok(inputs)
    }

    /// Whether no evidence file was given.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

impl FromStr for IacInputs {
    type Err = IacError;

    /// One flag.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse([s])
    }
}

/// Why IaC evidence could not be read. Secrets of the inputs never appear in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IacError {
    /// A `--iac` flag is malformed.
    #[error("--iac {flag}: {message}")]
    Flag {
        /// The flag as given.
        flag: String,
        /// What is wrong.
        message: String,
    },
    /// A file cannot be read.
    #[error("cannot read {file}: {message}")]
    Read {
        /// The file.
        file: String,
        /// The system's reason.
        message: String,
    },
    /// A file is not valid JSON or YAML.
    #[error("{file}:{line}:{column}: {message}")]
    Syntax {
        /// The file.
        file: String,
        /// 1-based line (0 when the parser gave none).
        line: u32,
        /// 1-based column.
        column: u32,
        /// The parser's message.
        message: String,
    },
    /// A file parses but is not what the evidence kind expects.
    #[error("{file}: {path}: {message}")]
    Shape {
        /// The file.
        file: String,
        /// Where in it (a JSON path such as `deployment.resources[3].type`).
        path: String,
        /// What is wrong.
        message: String,
    },
}

impl IacError {
    pub(crate) fn shape(file: &str, path: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Shape {
            file: file.to_owned(),
            path: path.into(),
            message: message.into(),
        }
    }

    pub(crate) fn json(file: &str, e: &serde_json::Error) -> Self {
        Self::Syntax {
            file: file.to_owned(),
            line: u32::try_from(e.line()).unwrap_or(u32::MAX),
            column: u32::try_from(e.column()).unwrap_or(u32::MAX),
            message: strip_position(&e.to_string()),
        }
    }

    pub(crate) fn yaml(file: &str, e: &serde_saphyr::Error) -> Self {
        let (line, column) = e.location().map_or((0, 0), |l| {
            (
                u32::try_from(l.line()).unwrap_or(u32::MAX),
                u32::try_from(l.column()).unwrap_or(u32::MAX),
            )
        });
        let message = serde_saphyr::DefaultMessageFormatter
            .format_message(e.without_snippet())
            .into_owned();
        Self::Syntax {
            file: file.to_owned(),
            line,
            column,
            message,
        }
    }
}

/// serde_json's message without its " at line L column C" tail (the error carries both).
fn strip_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(i) => message[..i].to_owned(),
        None => message.to_owned(),
    }
}

/// Byte offsets of line starts, for 1-based line and column of an offset.
pub(crate) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { starts }
    }

    /// 1-based (line, column in bytes) of `offset`.
    pub(crate) fn position(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let column = offset - self.starts[line - 1] + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }
}
