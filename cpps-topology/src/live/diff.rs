//! `diff(declared, observed)`: for every component, what the evidence says against what the
//! file declares.
//!
//! A component is matched with what its site's sources report by name: a host with the Proxmox
//! node of the same name, a guest with the Proxmox guest of the same name, a LINSTOR pool with
//! the storage pool its `storage_pool` names (or its id), a K3s cluster with the cluster its
//! kubeconfig reaches, a PBS and a router with their site's server. Evidence is only claimed
//! where a source answered: a component whose source failed is [`Evidence::Unknown`], never
//! "missing".

use serde::Serialize;

use super::facts::{SiteObservation, SourceKind, Sourced};
use crate::model::{ComponentRef, State, Topology};

/// What the live systems say about one declared component.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "evidence", content = "detail", rename_all = "snake_case")]
pub enum Evidence {
    /// A source that answered shows it.
    Present,
    /// A source that answered does not show it.
    Absent,
    /// Its source failed; the reason.
    Unknown(String),
    /// No configured source can show it (not configured, or a kind no source reports).
    NotObserved,
}

impl Evidence {
    /// `present`, `absent`, `unknown` or `not observed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Present => "present",
            Self::Absent => "absent",
            Self::Unknown(_) => "unknown",
            Self::NotObserved => "not observed",
        }
    }
}

/// The evidence about one declared component.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ComponentEvidence {
    /// The component id.
    pub id: String,
    /// Its kind (`host`, `guest`, …).
    pub kind: &'static str,
    /// Its site, when it has one.
    pub site: Option<String>,
    /// The state the file declares.
    pub declared: State,
    /// What the live systems say.
    pub evidence: Evidence,
}

/// The kind of a difference between the file and the live systems.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DriftKind {
    /// A `validated` component that a source which answered does not show.
    ValidatedButMissing,
    /// A property the file declares that the live system does not realize (`ha: true` without
    /// a Proxmox HA resource).
    DeclaredNotRealized {
        /// The property (`ha`, `vrrp_peer`, `nodes`, …).
        property: String,
    },
    /// Something a source shows that the file does not declare.
    PresentButUndeclared {
        /// What it is (`guest`, `node`).
        what: String,
        /// Its name as observed.
        name: String,
    },
    /// A property observed with another value than declared.
    Mismatch {
        /// The property.
        property: String,
        /// The declared value.
        declared: String,
        /// The observed value.
        observed: String,
    },
    /// A `declared` (or `desired`) component that a source shows: the evidence says it is live.
    LiveButNotValidated,
}

/// One difference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Drift {
    /// The site where it was seen.
    pub site: String,
    /// The declared component concerned; `None` for something undeclared.
    pub component: Option<String>,
    /// Its declared state, when declared.
    pub declared: Option<State>,
    /// What differs.
    #[serde(flatten)]
    pub kind: DriftKind,
    /// The evidence, in words.
    pub message: String,
}

/// The whole comparison.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// Every declared component of an observed site, with its evidence.
    pub components: Vec<ComponentEvidence>,
    /// The differences.
    pub drift: Vec<Drift>,
}

impl Diff {
    /// The evidence about component `id`.
    pub fn evidence(&self, id: &str) -> Option<&Evidence> {
        self.components
            .iter()
            .find(|c| c.id == id)
            .map(|c| &c.evidence)
    }
}

/// The evidence `source` gives: present when it answered and `present` holds of its facts.
pub(crate) fn evidence_of<T>(source: &Sourced<T>, present: impl FnOnce(&T) -> bool) -> Evidence {
    match source {
        Sourced::NotConfigured => Evidence::NotObserved,
        Sourced::Failed(f) => Evidence::Unknown(f.to_string()),
        Sourced::Observed(t) => {
            if present(t) {
                Evidence::Present
            } else {
                Evidence::Absent
            }
        }
    }
}

/// The comparison being built: each system's part of a site records its components' evidence
/// and differences here.
pub(crate) struct Builder<'a> {
    pub(crate) topo: &'a Topology,
    out: Diff,
}

impl<'a> Builder<'a> {
    /// An empty comparison of `topo`.
    pub(crate) fn new(topo: &'a Topology) -> Self {
        Self {
            topo,
            out: Diff::default(),
        }
    }

    /// The comparison built.
    pub(crate) fn finish(self) -> Diff {
        self.out
    }
}

impl Builder<'_> {
    pub(crate) fn record(
        &mut self,
        c: ComponentRef<'_>,
        site: &SiteObservation,
        evidence: Evidence,
    ) {
        let declared = c.meta().state;
        let id = c.id_str().to_owned();
        match (&evidence, declared) {
            (Evidence::Absent, State::Validated) => self.out.drift.push(Drift {
                site: site.site.clone(),
                component: Some(id.clone()),
                declared: Some(declared),
                kind: DriftKind::ValidatedButMissing,
                message: format!(
                    "{} {id} is declared validated but the site's live systems do not show it",
                    crate::finding::kind_name(c.kind())
                ),
            }),
            (Evidence::Present, State::Declared | State::Desired) => {
                self.out.drift.push(Drift {
                    site: site.site.clone(),
                    component: Some(id.clone()),
                    declared: Some(declared),
                    kind: DriftKind::LiveButNotValidated,
                    message: format!(
                        "{} {id} is `{declared}` in the file but is live: the evidence supports `validated` once it carries real traffic",
                        crate::finding::kind_name(c.kind())
                    ),
                })
            }
            _ => {}
        }
        self.out.components.push(ComponentEvidence {
            id,
            kind: crate::finding::kind_name(c.kind()),
            site: Some(site.site.clone()),
            declared,
            evidence,
        });
    }

    pub(crate) fn drift(
        &mut self,
        site: &SiteObservation,
        c: ComponentRef<'_>,
        kind: DriftKind,
        message: String,
    ) {
        self.out.drift.push(Drift {
            site: site.site.clone(),
            component: Some(c.id_str().to_owned()),
            declared: Some(c.meta().state),
            kind,
            message,
        });
    }

    /// `c` declares `property`, which the site does not have.
    pub(crate) fn not_realized(
        &mut self,
        site: &SiteObservation,
        c: ComponentRef<'_>,
        property: &str,
        message: String,
    ) {
        let kind = DriftKind::DeclaredNotRealized {
            property: property.to_owned(),
        };
        self.drift(site, c, kind, message);
    }

    /// [`Self::not_realized`] for the `names` of `property` that are not `observed`, when any:
    /// `message` gets them, comma-separated.
    pub(crate) fn declared_missing<'n>(
        &mut self,
        site: &SiteObservation,
        c: ComponentRef<'_>,
        property: &str,
        names: impl Iterator<Item = &'n str>,
        observed: impl Fn(&str) -> bool,
        message: impl FnOnce(&str) -> String,
    ) {
        let missing: Vec<&str> = names.filter(|name| !observed(name)).collect();
        if !missing.is_empty() {
            self.not_realized(site, c, property, message(&missing.join(", ")));
        }
    }
    /// Something `site`'s source shows that the file does not declare.
    pub(crate) fn undeclared(
        &mut self,
        site: &SiteObservation,
        what: &str,
        name: String,
        message: String,
    ) {
        self.out.drift.push(Drift {
            site: site.site.clone(),
            component: None,
            declared: None,
            kind: DriftKind::PresentButUndeclared {
                what: what.to_owned(),
                name,
            },
            message,
        });
    }
}

/// The sources a component's evidence depends on (for counting what a failed source hides).
pub(crate) fn source_of(kind: &str) -> Option<SourceKind> {
    match kind {
        "host" | "guest" | "traefik" | "proxmox_cluster" => Some(SourceKind::Proxmox),
        "linstor_pool" => Some(SourceKind::Linstor),
        "k3s_cluster" | "argocd" => Some(SourceKind::Kubernetes),
        "pbs" => Some(SourceKind::Pbs),
        "router" => Some(SourceKind::Vyos),
        _ => None,
    }
}
