//! The comparison of the evidence with the file's claims: rules `IAC-001`…`IAC-006`, run as
//! extra checks of [`crate::check::run`], so suppressions and reports treat them like any rule.

use std::collections::{BTreeMap, BTreeSet};

use super::{Declaration, DeclaredKind, Evidence, EvidenceKind, FieldValue, Origin, Value};
use crate::check::{ExtraChecks, ExtraFindings};
use crate::finding::{Finding, Location, RuleId, Subject};
use crate::iac::mapping::Field;
use crate::model::{ComponentKind, ComponentRef, State, Topology};
use crate::report::Note;

/// A `declared` component that no IaC input declares.
pub(crate) const DECLARED_NOT_IN_IAC: RuleId = RuleId("IAC-001");
/// A `desired` component that an IaC input declares.
pub(crate) const DESIRED_IN_IAC: RuleId = RuleId("IAC-002");
/// A `validated` component that no IaC input declares (made by hand).
pub(crate) const VALIDATED_NOT_IN_IAC: RuleId = RuleId("IAC-003");
/// `ha: true` in the IaC without an HA resource in the Pulumi state.
pub(crate) const HA_WITHOUT_RESOURCE: RuleId = RuleId("IAC-004");
/// An empty LINSTOR replication interface in the IaC.
pub(crate) const EMPTY_LINSTOR_INTERFACE: RuleId = RuleId("IAC-005");
/// A field the IaC sets that the topology file writes differently.
pub(crate) const FIELD_DIFFERS: RuleId = RuleId("IAC-006");

/// Every rule [`IacChecks`] runs.
pub const RULES: [RuleId; 6] = [
    DECLARED_NOT_IN_IAC,
    DESIRED_IN_IAC,
    VALIDATED_NOT_IN_IAC,
    HA_WITHOUT_RESOURCE,
    EMPTY_LINSTOR_INTERFACE,
    FIELD_DIFFERS,
];

/// The IaC rules over one [`Evidence`], for [`crate::check::run`].
///
/// ```
/// use cpps_topology::iac::{Evidence, EvidenceKind, IacChecks, Mapping};
/// let mut evidence = Evidence::new(Mapping::default_cpps());
/// evidence
///     .add_pulumi_state(EvidenceKind::PulumiExport, "stack.json", r#"{"version": 3, "deployment": {"resources": []}}"#)
///     .unwrap();
/// let topology = cpps_topology::default_topology();
/// let iac = IacChecks::new(&evidence);
/// let report = cpps_topology::check::run(&topology, &Default::default(), &[&iac]);
/// // gpu-sp-01 is validated but the (empty) stack does not declare it.
/// assert!(report.findings.iter().any(|f| f.rule.as_str() == "IAC-003" && f.subject.id() == "gpu-sp-01"));
/// ```
#[derive(Debug, Clone, Copy)]
pub struct IacChecks<'a> {
    evidence: &'a Evidence,
}

impl<'a> IacChecks<'a> {
    /// Checks over `evidence`.
    pub fn new(evidence: &'a Evidence) -> Self {
        Self { evidence }
    }
}

/// The declarations that name each component, resolved through the mapping's `names`, the
/// exact id, or the id with `_` for `-` (Ansible group names cannot hold `-`).
pub(crate) struct Resolved<'e> {
    pub(crate) by_component: BTreeMap<String, Vec<&'e Declaration>>,
    pub(crate) unknown: Vec<&'e Declaration>,
}

pub(crate) fn resolve<'e>(topology: &Topology, evidence: &'e Evidence) -> Resolved<'e> {
    let mut by_component: BTreeMap<String, Vec<&Declaration>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for d in &evidence.declarations {
        let candidates = [
            evidence.mapping.names.get(&d.name).cloned(),
            Some(d.name.clone()),
            Some(d.name.replace('_', "-")),
        ];
        match candidates
            .into_iter()
            .flatten()
            .find(|id| topology.component(id).is_some())
        {
            Some(id) => by_component.entry(id).or_default().push(d),
            None => unknown.push(d),
        }
    }
    Resolved {
        by_component,
        unknown,
    }
}

/// Whether the evidence given decides the state of `c` (its kind is covered by a tool whose
/// evidence was read, in a site that tool covers); placeholder hosts never are.
pub(crate) fn covered(topology: &Topology, evidence: &Evidence, c: ComponentRef<'_>) -> bool {
    if let ComponentRef::Host(h) = c
        && h.placeholder
    {
        return false;
    }
    let site = topology.site_of(c).map(|s| s.to_string());
    let in_sites = |sites: &[String]| {
        sites.is_empty() || site.as_ref().is_some_and(|s| sites.iter().any(|x| x == s))
    };
    let m = &evidence.mapping;
    (evidence.has_pulumi() && m.pulumi_covers(c.kind()) && in_sites(&m.pulumi.sites))
        || (evidence.has(EvidenceKind::Ansible)
            && m.ansible_covers(c.kind())
            && in_sites(&m.ansible.sites))
}

fn at(origin: &Origin) -> Location {
    Location::new(origin.file.clone(), origin.line, origin.column)
}

/// The inputs that decide `kind`, in words: `pulumi-export stack.json, pulumi-config …`.
fn given(evidence: &Evidence, kind: ComponentKind) -> String {
    let m = &evidence.mapping;
    evidence
        .inputs
        .iter()
        .filter(|(k, _)| {
            if k.is_pulumi() {
                m.pulumi_covers(kind)
            } else {
                m.ansible_covers(kind)
            }
        })
        .map(|(k, f)| format!("{k} {f}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The declaration to point a finding at: one in a file of the team's repository (stack config,
/// inventory) before one in a tool's output (stack export, mock run, inventory list).
fn preferred<'d>(declarations: &[&'d Declaration]) -> Option<&'d Declaration> {
    let in_repository = |d: &&&Declaration| {
        d.origin.kind == EvidenceKind::PulumiConfig
            || (d.origin.kind == EvidenceKind::Ansible && d.kind == DeclaredKind::InventoryHost)
    };
    declarations
        .iter()
        .find(in_repository)
        .or(declarations.first())
        .copied()
}

fn where_declared(declarations: &[&Declaration]) -> String {
    let mut seen = BTreeSet::new();
    declarations
        .iter()
        .filter_map(|d| {
            let text = match &d.origin.urn {
                Some(urn) => format!("{urn} ({} {})", d.origin.kind, d.origin.file),
                None => format!("{}:{} ({})", d.origin.file, d.origin.line, d.origin.kind),
            };
            seen.insert(text.clone()).then_some(text)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl ExtraChecks for IacChecks<'_> {
    fn rule_count(&self) -> usize {
        RULES.len()
    }

    fn run(&self, topology: &Topology, file: &str) -> ExtraFindings {
        let (mut findings, mut notes) = (Vec::new(), Vec::new());
        let evidence = self.evidence;
        let resolved = resolve(topology, evidence);
        let finding =
            |rule: RuleId, c: ComponentRef<'_>, message: String, location: Location| Finding {
                rule,
                severity: rule.info().severity,
                subject: Subject::Component(c.id()),
                site: topology.site_of(c).map(|s| s.to_string()),
                message,
                location,
                suppressed: None,
            };
        let topology_at = |c: ComponentRef<'_>, field: &str| {
            let l = c.meta().at(field);
            Location::new(file, l.line, l.column)
        };

        for c in topology.components() {
            let declared = resolved.by_component.get(c.id_str());
            let state = c.meta().state;
            match (state, declared) {
                (State::Declared, None) if covered(topology, evidence, c) => findings.push(finding(
                    DECLARED_NOT_IN_IAC,
                    c,
                    format!(
                        "{} {} is declared in the topology file but no IaC input declares it ({}): without code it is desired",
                        c.kind(),
                        c.id_str(),
                        given(evidence, c.kind())
                    ),
                    topology_at(c, "state"),
                )),
                (State::Validated, None) if covered(topology, evidence, c) => findings.push(finding(
                    VALIDATED_NOT_IN_IAC,
                    c,
                    format!(
                        "{} {} is validated in the topology file but no IaC input declares it ({}): it was made by hand",
                        c.kind(),
                        c.id_str(),
                        given(evidence, c.kind())
                    ),
                    topology_at(c, "state"),
                )),
                (State::Desired, Some(ds)) => {
                    if let Some(first) = preferred(ds) {
                        findings.push(finding(
                            DESIRED_IN_IAC,
                            c,
                            format!(
                                "{} {} is desired in the topology file but the IaC declares it: {}; it is declared",
                                c.kind(),
                                c.id_str(),
                                where_declared(ds)
                            ),
                            at(&first.origin),
                        ));
                    }
                }
                _ => {}
            }
            if let Some(ds) = declared {
                self.fields(topology, file, c, ds, &mut findings, &finding);
            }
        }

        for d in &resolved.unknown {
            // Resources of an inventory that the topology does not model (a workstation, a
            // jump host) are common; guests and config entries of Pulumi are the ones a team
            // should see.
            if matches!(
                d.kind,
                DeclaredKind::Vm | DeclaredKind::Container | DeclaredKind::ConfigEntry
            ) {
                notes.push(Note {
                    message: format!(
                        "the IaC declares `{}` ({}) but the topology names no such component; add it, or map the name in the mapping's `names`",
                        d.name, d.origin
                    ),
                    location: Some(at(&d.origin)),
                });
            }
        }
        ExtraFindings { findings, notes }
    }
}

impl IacChecks<'_> {
    /// IAC-004, IAC-005 and IAC-006 for the declarations of one component.
    fn fields(
        &self,
        topology: &Topology,
        file: &str,
        c: ComponentRef<'_>,
        declarations: &[&Declaration],
        findings: &mut Vec<Finding>,
        finding: &dyn Fn(RuleId, ComponentRef<'_>, String, Location) -> Finding,
    ) {
        let d = Declared {
            c,
            declarations,
            finding,
        };
        ha_without_resource(self.evidence, &d, findings);
        let empty_interface = empty_interface(topology, &d, findings);
        field_differs(file, &d, empty_interface, findings);
    }
}

/// One component, its declarations in the IaC, and how a finding on it is made.
struct Declared<'a, 'c> {
    c: ComponentRef<'c>,
    declarations: &'a [&'a Declaration],
    finding: &'a dyn Fn(RuleId, ComponentRef<'_>, String, Location) -> Finding,
}

impl Declared<'_, '_> {
    /// Every value the declarations give `field`.
    fn values(&self, field: Field) -> Vec<&FieldValue> {
        self.declarations
            .iter()
            .filter_map(|d| d.field(field))
            .collect()
    }
}

/// IAC-004: `ha: true` in the IaC, and no HA resource in the Pulumi state names the guest.
fn ha_without_resource(evidence: &Evidence, d: &Declared<'_, '_>, findings: &mut Vec<Finding>) {
    if evidence.has_pulumi_state()
        && let Some(ha) = d
            .values(Field::Ha)
            .into_iter()
            .find(|v| v.value == Value::Bool(true))
    {
        let ids: BTreeSet<u64> = d
            .values(Field::VmId)
            .iter()
            .filter_map(|v| match &v.value {
                Value::Int(n) => Some(*n),
                Value::Text(t) => t.trim().parse().ok(),
                _ => None,
            })
            .collect();
        let has_resource = evidence
            .ha_resources
            .iter()
            .any(|r| r.vm_id().is_some_and(|id| ids.contains(&id)));
        if !has_resource {
            let guest = d
                .declarations
                .iter()
                .find(|x| matches!(x.kind, DeclaredKind::Vm | DeclaredKind::Container));
            let which = match (guest, ids.iter().next()) {
                (Some(g), Some(id)) => format!(
                    "the state has its guest ({}, VM id {id}) but no HA resource with resourceId vm:{id}",
                    g.origin.urn.as_deref().unwrap_or(&g.name)
                ),
                (Some(g), None) => format!(
                    "the state has its guest ({}) without a VM id, and no HA resource can name it",
                    g.origin.urn.as_deref().unwrap_or(&g.name)
                ),
                (None, _) => "the state has neither its guest nor an HA resource".to_owned(),
            };
            let states: Vec<String> = evidence
                .inputs
                .iter()
                .filter(|(k, _)| k.is_pulumi_state())
                .map(|(k, f)| format!("{k} {f}"))
                .collect();
            findings.push((d.finding)(
                HA_WITHOUT_RESOURCE,
                d.c,
                format!(
                    "{} {} has `ha: true` in the IaC ({}:{}); {} ({}): Pulumi creates no Proxmox HA resource for it, only a guest with on_boot",
                    d.c.kind(),
                    d.c.id_str(),
                    ha.origin.file,
                    ha.origin.line,
                    which,
                    states.join(", ")
                ),
                at(&ha.origin),
            ));
        }
    }
}

/// IAC-005: an empty replication interface, wherever the IaC writes it. Whether it found one.
fn empty_interface(topology: &Topology, d: &Declared<'_, '_>, findings: &mut Vec<Finding>) -> bool {
    let mut empty_interface = false;
    for v in d.values(Field::LinstorInterface) {
        if let Value::Text(t) = &v.value
            && t.trim().is_empty()
        {
            empty_interface = true;
            let pools: Vec<&str> = topology
                .linstor_pools()
                .iter()
                .filter(|p| p.nodes.iter().any(|n| n.host.as_str() == d.c.id_str()))
                .map(|p| p.id.as_str())
                .collect();
            let pools = if pools.is_empty() {
                String::new()
            } else {
                format!(" (node of pool {})", pools.join(", "))
            };
            findings.push((d.finding)(
                EMPTY_LINSTOR_INTERFACE,
                d.c,
                format!(
                    "the IaC gives {} {}{pools} an empty LINSTOR replication interface (linstor_interface: \"\" at {}:{}, {}): DRBD cannot replicate to it (LINSTOR-001)",
                    d.c.kind(),
                    d.c.id_str(),
                    v.origin.file,
                    v.origin.line,
                    v.origin.kind
                ),
                at(&v.origin),
            ));
        }
    }
    empty_interface
}

/// IAC-006: the IaC and the file disagree on a field the file writes (an empty interface is
/// IAC-005's alone).
fn field_differs(
    file: &str,
    d: &Declared<'_, '_>,
    empty_interface: bool,
    findings: &mut Vec<Finding>,
) {
    for field in [
        Field::Host,
        Field::OnBoot,
        Field::Ha,
        Field::Privileged,
        Field::LinstorInterface,
    ] {
        if field == Field::LinstorInterface && empty_interface {
            continue;
        }
        let Some(ours) = topology_value(d.c, field) else {
            continue;
        };
        for v in d.values(field) {
            if v.value == Value::Secret || v.value == ours {
                continue;
            }
            let l = d.c.meta().at(field.as_str());
            findings.push((d.finding)(
                FIELD_DIFFERS,
                d.c,
                format!(
                    "{} {} has {field}: {ours} in the topology file ({file}:{}) but {} in the IaC ({})",
                    d.c.kind(),
                    d.c.id_str(),
                    l.line,
                    v.value,
                    v.origin
                ),
                at(&v.origin),
            ));
            break;
        }
    }
}

/// The value the topology file writes for `field` of `c`, if it writes one.
fn topology_value(c: ComponentRef<'_>, field: Field) -> Option<Value> {
    let written = |path: &str| c.meta().field_location(path).is_some();
    match (c, field) {
        (ComponentRef::Guest(g), Field::Host) if written("host") => {
            Some(Value::Text(g.host.to_string()))
        }
        (ComponentRef::Guest(g), Field::OnBoot) if written("on_boot") => {
            Some(Value::Bool(g.on_boot))
        }
        (ComponentRef::Guest(g), Field::Ha) if written("ha") => Some(Value::Bool(g.ha)),
        (ComponentRef::Guest(g), Field::Privileged) if written("privileged") => {
            Some(Value::Bool(g.privileged))
        }
        (ComponentRef::Traefik(t), Field::OnBoot) if written("on_boot") => {
            Some(Value::Bool(t.on_boot))
        }
        (ComponentRef::Traefik(t), Field::Ha) if written("ha") => Some(Value::Bool(t.ha)),
        (ComponentRef::Host(h), Field::LinstorInterface) if written("linstor.interface") => h
            .linstor
            .as_ref()
            .and_then(|l| l.interface.clone())
            .map(Value::Text),
        _ => None,
    }
}
