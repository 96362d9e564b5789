//! Converting the Kubernetes platform: K3s clusters, ArgoCD, multi-cluster patterns.

use crate::load::file::*;
use crate::model::ComponentKind as K;
use crate::model::*;

use super::{Cx, Target};
use crate::load::FileErrorKind;

impl Cx<'_> {
    pub(super) fn k3s_cluster(&mut self, k: &K3sClusterFile) -> Option<K3sCluster> {
        let (id, mut meta) = self.component(K::K3sCluster, k)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &k.site);
        let nodes = self.references(&mut meta, "nodes", Target::Kind(K::Guest), &k.nodes);
        let node_placement = k.node_placement.as_ref().map(|n| {
            self.locate(&mut meta, "node_placement", &n.at);
            n.value
        });
        let candidate_hosts = self.references(
            &mut meta,
            "candidate_hosts",
            Target::Kind(K::Host),
            &k.candidate_hosts,
        );
        self.locate(&mut meta, "cni", &k.cni.at);
        self.locate(&mut meta, "cni.kind", &k.cni.value.kind.at);
        let cni = Cni {
            kind: k.cni.value.kind.value,
            version: self.field::<Version>(&mut meta, "cni.version", &k.cni.value.version),
        };
        self.locate(&mut meta, "purpose", &k.purpose.at);
        let default_deny = self.flag(&mut meta, "default_deny", &k.default_deny);
        let hubble = self.flag(&mut meta, "hubble", &k.hubble);
        let cert_manager = k.cert_manager.as_ref().map(|c| {
            let at = self.locate(&mut meta, "cert_manager", &c.at);
            let state = match &c.value.state {
                Some(s) => {
                    self.locate(&mut meta, "cert_manager.state", &s.at);
                    s.value.0
                }
                None => {
                    self.error(
                        FileErrorKind::MissingState {
                            kind: "cert-manager".to_owned(),
                            id: format!("{}.cert_manager", k.id.value),
                        },
                        at,
                    );
                    State::Desired
                }
            };
            CertManager {
                dns01_cluster_issuer: c.value.dns01_cluster_issuer,
                dns01_provider: c.value.dns01_provider.clone(),
                state,
                note: c.value.note.clone(),
            }
        });
        let nvidia_driver = self.field::<Version>(&mut meta, "nvidia_driver", &k.nvidia_driver);
        let cilium_lxc_exception = k.cilium_lxc_exception.as_ref().map(|e| {
            self.locate(&mut meta, "cilium_lxc_exception", &e.at);
            e.value.clone()
        });
        let placement_claims = k
            .placement_claims
            .iter()
            .map(|c| PlacementClaim {
                placement: c.value.placement,
                cni: c.value.cni,
                source: c.value.source.clone(),
                quote: c.value.quote.clone(),
                location: self.loc(&c.at),
            })
            .collect();
        let review_signals = k
            .review_signals
            .iter()
            .enumerate()
            .map(|(i, r)| {
                self.locate(&mut meta, format!("review_signals[{i}]"), &r.at);
                r.value
            })
            .collect();
        let cilium_vm_poc = self.state_of(&mut meta, "cilium_vm_poc", &k.cilium_vm_poc);
        let site = site?;
        Some(K3sCluster {
            id,
            site,
            nodes,
            node_placement,
            candidate_hosts,
            cni,
            purpose: k.purpose.value,
            default_deny,
            hubble,
            cert_manager,
            nvidia_driver,
            cilium_lxc_exception,
            placement_claims,
            review_signals,
            cilium_vm_poc,
            meta,
        })
    }

    pub(super) fn argocd(&mut self, a: &ArgoCdFile) -> Option<ArgoCd> {
        let (id, mut meta) = self.component(K::ArgoCd, a)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &a.site);
        let runs_in = self.opt_reference(
            &mut meta,
            "runs_in",
            Target::Kind(K::K3sCluster),
            &a.runs_in,
        );
        let manages = self.references(
            &mut meta,
            "manages",
            Target::Kind(K::K3sCluster),
            &a.manages,
        );
        let repo_layout = a.repo_layout.as_ref().map(|r| {
            self.locate(&mut meta, "repo_layout", &r.at);
            r.value
        });
        let site = site?;
        Some(ArgoCd {
            id,
            site,
            runs_in,
            manages,
            repo_layout,
            meta,
        })
    }

    pub(super) fn pattern(&mut self, p: &PatternFile) -> Option<Pattern> {
        let (id, mut meta) = self.component(K::Pattern, p)?;
        let members = self.references(
            &mut meta,
            "members",
            Target::Kind(K::K3sCluster),
            &p.members,
        );
        let manager = self.opt_reference(
            &mut meta,
            "manager",
            Target::Kind(K::K3sCluster),
            &p.manager,
        );
        let argocd = self.opt_reference(&mut meta, "argocd", Target::Kind(K::ArgoCd), &p.argocd);
        Some(Pattern {
            id,
            kind: p.kind,
            members,
            manager,
            argocd,
            meta,
        })
    }
}
