//! `diff(declared, observed)`: for every component, what the evidence says against what the
//! file declares.
//!
//! A component is matched with what its site's sources report by name: a host with the Proxmox
//! node of the same name, a guest with the Proxmox guest of the same name, a LINSTOR pool with
//! the storage pool its `storage_pool` names (or its id), a K3s cluster with the cluster its
//! kubeconfig reaches, a PBS and a router with their site's server. Evidence is only claimed
//! where a source answered: a component whose source failed is [`Evidence::Unknown`], never
//! "missing".

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::facts::{Observation, SiteObservation, SourceKind, Sourced};
use super::index::{LinstorIndex, PbsIndex, PveIndex, kube_nodes};
use crate::model::{ComponentRef, GuestKind, SiteId, State, Topology};

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

fn evidence_of<T>(source: &Sourced<T>, present: impl FnOnce(&T) -> bool) -> Evidence {
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

struct Builder<'a> {
    topo: &'a Topology,
    out: Diff,
}

impl Builder<'_> {
    fn record(&mut self, c: ComponentRef<'_>, site: &SiteObservation, evidence: Evidence) {
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

    fn drift(
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
    fn not_realized(
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
    fn declared_missing<'n>(
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

    fn site(&mut self, site: &SiteObservation) {
        let topo = self.topo;
        let Some(site_id) = site
            .site
            .parse::<SiteId>()
            .ok()
            .and_then(|id| topo.site(&id))
        else {
            return;
        };
        let pve = &site.proxmox;
        // Every lookup into what the site's sources report goes through these indexes, built
        // once: no component searches a list of facts.
        let pve_index = pve.observed().map(PveIndex::new).unwrap_or_default();
        let linstor_index = site
            .linstor
            .observed()
            .map(LinstorIndex::new)
            .unwrap_or_default();
        let pbs_index = site.pbs.observed().map(PbsIndex::new).unwrap_or_default();

        // Hosts and Proxmox nodes.
        let hosts: Vec<_> = topo.hosts_in(&site_id.id).collect();
        for host in &hosts {
            let node = pve_index.node(host.id.as_str());
            let evidence = evidence_of(pve, |_| node.is_some());
            let c = ComponentRef::Host(host);
            self.record(c, site, evidence);
            if let Some(node) = node {
                if !node.online {
                    self.drift(
                        site,
                        c,
                        DriftKind::Mismatch {
                            property: "status".to_owned(),
                            declared: "online".to_owned(),
                            observed: "offline".to_owned(),
                        },
                        format!("Proxmox reports node {} offline", node.name),
                    );
                }
                if let (Some(declared), Some(observed)) = (&host.pve_version, &node.pve_version) {
                    let major = observed.split('.').next().unwrap_or("");
                    if major != declared.major().to_string() {
                        self.drift(
                            site,
                            c,
                            DriftKind::Mismatch {
                                property: "pve_version".to_owned(),
                                declared: declared.to_string(),
                                observed: observed.clone(),
                            },
                            format!(
                                "node {} runs pve-manager {observed}, the file declares {declared}",
                                node.name
                            ),
                        );
                    }
                }
            }
        }
        if let Some(facts) = pve.observed() {
            let declared: BTreeSet<&str> = hosts.iter().map(|h| h.id.as_str()).collect();
            for node in &facts.nodes {
                if !declared.contains(node.name.as_str()) && topo.component(&node.name).is_none() {
                    self.out.drift.push(Drift {
                        site: site.site.clone(),
                        component: None,
                        declared: None,
                        kind: DriftKind::PresentButUndeclared {
                            what: "node".to_owned(),
                            name: node.name.clone(),
                        },
                        message: format!(
                            "Proxmox node {} is in the cluster but not in the topology file",
                            node.name
                        ),
                    });
                }
            }
        }

        // Guests (and the Traefik instances that are guests).
        let mut declared_guests: BTreeSet<String> = BTreeSet::new();
        for guest in topo
            .guests()
            .iter()
            .filter(|g| topo.site_of_guest(g) == Some(&site_id.id))
        {
            declared_guests.insert(guest.id.as_str().to_owned());
            let observed = pve_index.guest(guest.id.as_str());
            let evidence = evidence_of(pve, |_| observed.is_some());
            let c = ComponentRef::Guest(guest);
            self.record(c, site, evidence);
            let Some(g) = observed else { continue };
            let kind = match guest.kind {
                GuestKind::Vm => "vm",
                GuestKind::Lxc => "lxc",
            };
            if kind != g.kind.as_str() {
                self.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "kind".to_owned(),
                        declared: kind.to_owned(),
                        observed: g.kind.as_str().to_owned(),
                    },
                    format!(
                        "guest {} is a {} ({}), declared {kind}",
                        guest.id,
                        g.kind.as_str(),
                        g.vmid
                    ),
                );
            }
            if guest.kind == GuestKind::Lxc
                && let Some(privileged) = g.privileged
                && privileged != guest.privileged
            {
                let word = |p: bool| if p { "privileged" } else { "unprivileged" };
                self.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "privileged".to_owned(),
                        declared: guest.privileged.to_string(),
                        observed: privileged.to_string(),
                    },
                    format!(
                        "CT {} ({}) is {}, the file declares it {}",
                        g.vmid,
                        guest.id,
                        word(privileged),
                        word(guest.privileged)
                    ),
                );
            }
            if g.node != guest.host.as_str() {
                self.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "host".to_owned(),
                        declared: guest.host.to_string(),
                        observed: g.node.clone(),
                    },
                    format!(
                        "guest {} ({}) runs on {}, declared on {}",
                        guest.id, g.vmid, g.node, guest.host
                    ),
                );
            }
            if guest.ha && !g.ha {
                self.not_realized(
                    site,
                    c,
                    "ha",
                    format!(
                        "guest {} declares `ha: true` but {} {} is not a Proxmox HA resource",
                        guest.id,
                        if g.kind.as_str() == "lxc" { "CT" } else { "VM" },
                        g.vmid
                    ),
                );
            }
        }
        for traefik in topo.traefik().iter().filter(|t| t.site == site_id.id) {
            let name = traefik
                .guest
                .as_ref()
                .map_or(traefik.id.as_str(), |g| g.as_str());
            declared_guests.insert(name.to_owned());
            let observed = pve_index.guest(name);
            let c = ComponentRef::Traefik(traefik);
            let evidence = evidence_of(pve, |_| observed.is_some());
            self.record(c, site, evidence);
            if let Some(g) = observed
                && traefik.ha
                && !g.ha
            {
                self.not_realized(
                    site,
                    c,
                    "ha",
                    format!(
                        "{} declares `ha: true` but its guest {} ({name}) is not a Proxmox HA resource",
                        traefik.id, g.vmid
                    ),
                );
            }
        }
        if let Some(facts) = pve.observed() {
            for g in &facts.guests {
                let name = g.name.as_deref().unwrap_or("");
                if !declared_guests.contains(name) {
                    self.out.drift.push(Drift {
                        site: site.site.clone(),
                        component: None,
                        declared: None,
                        kind: DriftKind::PresentButUndeclared {
                            what: "guest".to_owned(),
                            name: if name.is_empty() {
                                g.vmid.to_string()
                            } else {
                                name.to_owned()
                            },
                        },
                        message: format!(
                            "{} {} ({}) on {} is {} but not in the topology file",
                            if g.kind.as_str() == "lxc" { "CT" } else { "VM" },
                            g.vmid,
                            if name.is_empty() { "no name" } else { name },
                            g.node,
                            g.status
                        ),
                    });
                }
            }
        }

        // Proxmox clusters: present when any of their hosts is.
        for cluster in topo
            .proxmox_clusters()
            .iter()
            .filter(|c| c.site == site_id.id)
        {
            let evidence = evidence_of(pve, |_| {
                topo.hosts_of_cluster(&cluster.id)
                    .any(|h| pve_index.node(h.id.as_str()).is_some())
            });
            self.record(ComponentRef::ProxmoxCluster(cluster), site, evidence);
        }

        // LINSTOR pools.
        for pool in topo.linstor_pools().iter().filter(|p| p.site == site_id.id) {
            let name = pool.storage_pool.as_deref().unwrap_or(pool.id.as_str());
            let c = ComponentRef::LinstorPool(pool);
            let on = linstor_index.pool_nodes(name);
            let evidence = evidence_of(&site.linstor, |_| on.is_some());
            self.record(c, site, evidence.clone());
            let Some(on) = on else {
                continue;
            };
            let names = pool.nodes.iter().map(|n| n.host.as_str());
            self.declared_missing(
                site,
                c,
                "nodes",
                names,
                |h| on.contains(h),
                |missing| format!("storage pool {name} of {} is not on {missing}", pool.id),
            );
            let counts: BTreeSet<i64> = linstor_index.group_counts(name).iter().copied().collect();
            // A pool that states no place_count declares nothing to compare.
            let Some(declared) = pool.place_count.map(i64::from) else {
                continue;
            };
            for count in counts.into_iter().filter(|c| *c != declared) {
                self.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "place_count".to_owned(),
                        declared: declared.to_string(),
                        observed: count.to_string(),
                    },
                    format!(
                        "a resource group on {name} places {count} replicas, {} declares {declared}",
                        pool.id
                    ),
                );
            }
        }

        // K3s clusters.
        let kube: BTreeMap<&str, &Sourced<super::facts::KubeFacts>> = site
            .kubernetes
            .iter()
            .map(|(id, s)| (id.as_str(), s))
            .collect();
        for cluster in topo.k3s_clusters().iter().filter(|c| c.site == site_id.id) {
            let c = ComponentRef::K3sCluster(cluster);
            let Some(source) = kube.get(cluster.id.as_str()) else {
                self.record(c, site, Evidence::NotObserved);
                continue;
            };
            self.record(c, site, evidence_of(source, |_| true));
            let Some(facts) = source.observed() else {
                continue;
            };
            let observed_nodes = kube_nodes(facts);
            let names = cluster.nodes.iter().map(|n| n.as_str());
            self.declared_missing(
                site,
                c,
                "nodes",
                names,
                |n| observed_nodes.contains(n),
                |missing| {
                    format!(
                        "cluster {} has no Kubernetes node named {missing}",
                        cluster.id
                    )
                },
            );
            let declared_cni = format!("{:?}", cluster.cni.kind).to_ascii_lowercase();
            if !facts.cni.is_empty() && !facts.cni.iter().any(|(k, _)| *k == declared_cni) {
                let seen: Vec<&str> = facts.cni.iter().map(|(k, _)| k.as_str()).collect();
                self.drift(
                    site,
                    c,
                    DriftKind::Mismatch {
                        property: "cni".to_owned(),
                        declared: declared_cni.clone(),
                        observed: seen.join(","),
                    },
                    format!(
                        "cluster {} runs {}, declared {declared_cni}",
                        cluster.id,
                        seen.join(", ")
                    ),
                );
            }
        }
        for argocd in topo.argocd().iter().filter(|a| a.site == site_id.id) {
            let c = ComponentRef::ArgoCd(argocd);
            let source = argocd
                .runs_in
                .as_ref()
                .and_then(|r| kube.get(r.as_str()).copied());
            let evidence = match source {
                Some(s) => evidence_of(s, |f| f.argocd_served),
                None => Evidence::NotObserved,
            };
            self.record(c, site, evidence);
        }

        // PBS and routers: the site's server.
        for pbs in topo.pbs().iter().filter(|p| p.site == site_id.id) {
            let c = ComponentRef::Pbs(pbs);
            self.record(c, site, evidence_of(&site.pbs, |_| true));
            if site.pbs.observed().is_some() {
                let names = pbs.datastores.iter().map(|d| d.name.as_str());
                self.declared_missing(
                    site,
                    c,
                    "datastores",
                    names,
                    |d| pbs_index.has_datastore(d),
                    |missing| format!("{} has no datastore {missing}", pbs.id),
                );
            }
        }
        for router in topo.routers().iter().filter(|r| r.site == site_id.id) {
            let c = ComponentRef::Router(router);
            self.record(c, site, evidence_of(&site.vyos, |_| true));
            if let Some(facts) = site.vyos.observed()
                && router.vrrp_peer.is_some()
                && facts.vrrp.is_empty()
            {
                self.not_realized(
                    site,
                    c,
                    "vrrp_peer",
                    format!("{} declares a VRRP peer but has no VRRP group", router.id),
                );
            }
        }
    }
}

/// Compares the declared topology with what was observed, site by site.
///
/// Only sites present in `observed` are compared; a site that was not observed at all says
/// nothing either way.
pub fn diff(topology: &Topology, observed: &Observation) -> Diff {
    let mut b = Builder {
        topo: topology,
        out: Diff::default(),
    };
    for site in &observed.sites {
        b.site(site);
    }
    b.out
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
