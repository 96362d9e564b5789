//! The embedded default topology loads and states the facts the two documents state.

use cpps_topology::model::{
    AlertKind, ClusterPurpose, CniKind, ComponentRef, GuestKind, NodePlacement, PatternKind, State,
    Topology,
};
use cpps_topology::{DEFAULT_TOPOLOGY_YAML, default_topology, try_default_topology};

fn t() -> Topology {
    try_default_topology().unwrap_or_else(|e| panic!("{}", e.render()))
}

#[test]
fn it_loads_and_default_topology_returns_it() {
    let a = t();
    let b = default_topology();
    assert_eq!(a.components().count(), b.components().count());
    assert_eq!(
        a.source.as_ref().unwrap().name,
        "cpps-topology/topology/cpps.yaml"
    );
}

#[test]
fn two_sites_with_seven_and_six_hosts_unnamed_ones_are_placeholders() {
    let t = t();
    let ids: Vec<&str> = t.sites().iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["franca", "sp"]);
    let franca = t.hosts_in(&"franca".parse().unwrap()).count();
    let sp = t.hosts_in(&"sp".parse().unwrap()).count();
    assert_eq!((franca, sp), (7, 6));
    let named = [
        "pve-labri-31",
        "pve-labri-32",
        "pve-labri-33",
        "pve-ippri-11",
        "pve-ippri-12",
        "pve-ippri-31",
        "pve-ippri-33",
        "pve-ippri-34",
    ];
    for h in t.hosts() {
        let is_named = named.contains(&h.id.as_str());
        assert_eq!(h.placeholder, !is_named, "{}", h.id);
        if h.placeholder {
            assert!(
                h.meta.note.as_deref().unwrap().contains("placeholder"),
                "{}",
                h.id
            );
        }
    }
    // One Proxmox cluster per site, holding all its hosts.
    for c in t.proxmox_clusters() {
        assert!(t.hosts_of_cluster(&c.id).all(|h| h.site == c.site));
    }
    assert_eq!(
        t.hosts_of_cluster(&"pve-franca".parse().unwrap()).count(),
        7
    );
    assert_eq!(t.hosts_of_cluster(&"pve-sp".parse().unwrap()).count(), 6);
}

#[test]
fn pve_ippri_34_has_an_empty_linstor_interface_on_the_declared_nvme_pool() {
    let t = t();
    let h = t.host(&"pve-ippri-34".parse().unwrap()).unwrap();
    let l = h.linstor.as_ref().unwrap();
    assert!(l.is_satellite());
    assert_eq!(l.interface.as_deref(), Some(""));
    assert!(h.has_gpu_model("A5000"));
    let at = h.meta.at("linstor.interface");
    let line = DEFAULT_TOPOLOGY_YAML
        .lines()
        .nth(at.line as usize - 1)
        .unwrap();
    assert!(line.contains("interface: \"\""), "{line}");
    let nvme = t.linstor_pool(&"nvme-pool".parse().unwrap()).unwrap();
    assert_eq!(nvme.meta.state, State::Declared);
    assert!(nvme.nodes.iter().any(|n| n.host == h.id));
    // Nobody else has an interface written as empty.
    let empty: Vec<&str> = t
        .hosts()
        .iter()
        .filter(|h| {
            h.linstor
                .as_ref()
                .and_then(|l| l.interface.as_deref())
                .is_some_and(str::is_empty)
        })
        .map(|h| h.id.as_str())
        .collect();
    assert_eq!(empty, ["pve-ippri-34"]);
}

#[test]
fn sp_ssd_is_validated_with_place_count_two_and_an_ha_controller_on_its_vip() {
    let t = t();
    let p = t.linstor_pool(&"sp-ssd".parse().unwrap()).unwrap();
    assert_eq!(p.meta.state, State::Validated);
    assert_eq!(p.place_count, Some(2));
    let hosts: Vec<&str> = p.nodes.iter().map(|n| n.host.as_str()).collect();
    assert_eq!(hosts, ["pve-ippri-11", "pve-ippri-12", "pve-ippri-31"]);
    let c = p.controller.as_ref().unwrap();
    assert!(c.ha);
    assert_eq!(c.vip.unwrap().to_string(), "10.10.20.1");
    let franca = t.linstor_pool(&"franca-ssd".parse().unwrap()).unwrap();
    let c = franca.controller.as_ref().unwrap();
    assert_eq!(c.primary.as_ref().unwrap().as_str(), "pve-labri-32");
}

#[test]
fn there_is_no_pbs_anywhere_only_desired_ones() {
    let t = t();
    assert_eq!(t.pbs().len(), 2);
    assert!(t.pbs().iter().all(|p| p.meta.state == State::Desired));
    assert!(t.guests().iter().all(|g| g.backup.is_none()));
    let sites: Vec<&str> = t.pbs().iter().map(|p| p.site.as_str()).collect();
    assert_eq!(sites, ["franca", "sp"]);
}

#[test]
fn each_site_has_one_validated_vyos_without_vrrp_and_the_wireguard_link_is_desired() {
    let t = t();
    assert_eq!(t.routers().len(), 2);
    for r in t.routers() {
        assert_eq!(r.meta.state, State::Validated);
        assert!(r.vrrp_peer.is_none(), "{}", r.id);
    }
    assert_eq!(
        t.router(&"vyos-sp".parse().unwrap()).unwrap().subnets,
        ["192.168.10.0/23"]
    );
    let wg = t.link(&"wg-sp-franca".parse().unwrap()).unwrap();
    assert_eq!(wg.meta.state, State::Desired);
    assert!(wg.joins(&"franca".parse().unwrap(), &"sp".parse().unwrap()));
}

#[test]
fn traefik_sp_is_validated_but_its_ha_is_only_declared() {
    let t = t();
    let x = t.traefik_instance(&"traefik-sp".parse().unwrap()).unwrap();
    assert_eq!(x.meta.state, State::Validated);
    assert!(x.ha);
    assert_eq!(x.ha_state, Some(State::Declared));
    assert!(x.on_boot);
    assert_eq!(x.address.unwrap().to_string(), "192.168.10.6");
    let f = t
        .traefik_instance(&"traefik-franca".parse().unwrap())
        .unwrap();
    // "🚧 Validado parcial: Traefik Franca em produção": in production is validated.
    assert_eq!(f.meta.state, State::Validated);
    assert!(f.meta.note.as_deref().unwrap().contains("partial"));
}

#[test]
fn gpu_sp_01_is_a_privileged_lxc_on_pve_ippri_31_with_its_a5000_in_a_separate_gpu_cluster() {
    let t = t();
    let g = t.guest(&"gpu-sp-01".parse().unwrap()).unwrap();
    assert_eq!(g.kind, GuestKind::Lxc);
    assert!(g.privileged);
    assert_eq!(g.meta.state, State::Validated);
    assert_eq!(g.host.as_str(), "pve-ippri-31");
    assert_eq!(g.gpu.as_ref().unwrap().model, "A5000");
    let host = t.host(&g.host).unwrap();
    assert!(host.has_gpu_model("A5000"));
    let tier = t.tier(host.tier.as_ref().unwrap()).unwrap();
    assert!(tier.capabilities.gpu_lxc_only);
    assert!(!tier.capabilities.igpu);
    let c = t.cluster_of_guest(&g.id).unwrap();
    assert_eq!(c.id.as_str(), "k3s-gpu-sp");
    assert_eq!(c.purpose, ClusterPurpose::Gpu);
    assert_eq!(c.cni.kind, CniKind::Flannel);
}

#[test]
fn the_franca_gpu_placement_contradiction_is_recorded_as_data_and_in_comments() {
    let t = t();
    let c = t.k3s_cluster(&"k3s-gpu-franca".parse().unwrap()).unwrap();
    assert_eq!(c.meta.state, State::Desired);
    assert_eq!(c.node_placement, Some(NodePlacement::LxcPrivileged));
    let claims: Vec<(NodePlacement, &str)> = c
        .placement_claims
        .iter()
        .map(|p| (p.placement, p.source.as_str()))
        .collect();
    assert_eq!(
        claims,
        [
            (NodePlacement::Vm, "004_29bfc39840ca04c0.txt"),
            (NodePlacement::LxcPrivileged, "000_be2f9e2558fad79c.txt"),
        ]
    );
    assert!(
        c.placement_claims[0]
            .quote
            .contains("Franca em VM com Cilium")
    );
    assert!(c.placement_claims.iter().all(|p| p.location.is_known()));
    assert!(
        DEFAULT_TOPOLOGY_YAML
            .contains("# CONTRADICTION between the documents (Franca GPU placement)")
    );
    let hosts: Vec<&str> = c.candidate_hosts.iter().map(|h| h.as_str()).collect();
    assert_eq!(hosts, ["pve-labri-31", "pve-labri-32", "pve-labri-33"]);
    for h in &c.candidate_hosts {
        let tier = t.host(h).unwrap().tier.as_ref().unwrap();
        assert!(t.tier(tier).unwrap().capabilities.gpu_passthrough_vm);
    }
}

#[test]
fn clusters_argocd_and_patterns_are_as_documented() {
    let t = t();
    let franca = t.k3s_cluster(&"k3s-franca".parse().unwrap()).unwrap();
    // "🚧 Validado parcial: K3s Franca em produção com flannel/default".
    assert_eq!(franca.meta.state, State::Validated);
    assert!(franca.meta.note.as_deref().unwrap().contains("partial"));
    assert_eq!(franca.cni.kind, CniKind::Flannel);
    let main = t.k3s_cluster(&"k3s-sp-main".parse().unwrap()).unwrap();
    assert_eq!(main.meta.state, State::Desired);
    assert_eq!(main.cni.kind, CniKind::Cilium);
    assert_eq!(main.cni.version.as_ref().unwrap().as_str(), "1.16");
    assert!(main.default_deny);
    assert_eq!(main.node_placement, Some(NodePlacement::Vm));
    let a = t
        .argocd_instance(&"argocd-franca".parse().unwrap())
        .unwrap();
    assert_eq!(a.meta.state, State::Validated);
    let a = t.argocd_instance(&"argocd-sp".parse().unwrap()).unwrap();
    assert_eq!(a.meta.state, State::Desired);
    let managed: Vec<&str> = a.manages.iter().map(|c| c.as_str()).collect();
    assert_eq!(managed, ["k3s-sp-main", "k3s-gpu-sp"]);
    let karmada = t.pattern(&"karmada".parse().unwrap()).unwrap();
    assert_eq!(karmada.kind, PatternKind::Karmada);
    assert_eq!(karmada.meta.state, State::Desired);
    assert!(karmada.meta.deferred);
    for p in t.patterns() {
        assert_eq!(p.meta.state, State::Desired, "{}", p.id);
    }
}

#[test]
fn the_five_basic_alerts_are_desired() {
    let t = t();
    let obs = t.capability(&"obs-alerting".parse().unwrap()).unwrap();
    let kinds: Vec<AlertKind> = obs.alerts.iter().map(|a| a.kind).collect();
    // The five basic alerts, then the driver runbook's NVRM alert (ADR-009).
    assert_eq!(kinds[..5], AlertKind::BASIC);
    assert_eq!(kinds[5..], [AlertKind::NvrmErrors]);
    assert!(obs.alerts.iter().all(|a| a.state == State::Desired));
}

/// A note that quotes a label of the documents agrees with the state: ✅ validated,
/// 🚧 declared except "🚧 Validado parcial … em produção" (validated, in production) and "🚧 DNS-01
/// mencionado mas sem cert-manager configurado" (desired: nothing is configured), ❌ desired,
/// 🚫 and 🔮 desired and deferred. (`tests/documents_table.rs` checks every label of both
/// documents against what models it.)
#[test]
fn every_quoted_label_matches_the_state() {
    let t = t();
    let mut checked = 0;
    for c in t.components() {
        let m = c.meta();
        let Some(note) = m.note.as_deref() else {
            continue;
        };
        let expected = if note.starts_with('✅') || note.starts_with("🚧 Validado parcial") {
            State::Validated
        } else if note.starts_with("🚧 DNS-01 mencionado mas sem cert-manager") {
            // Only mentioned, nothing configured: neither code nor production.
            State::Desired
        } else if note.starts_with('🚧') {
            State::Declared
        } else if note.starts_with('❌') || note.starts_with('🚫') || note.starts_with('🔮') {
            State::Desired
        } else {
            continue;
        };
        assert_eq!(m.state, expected, "{} `{}`: {note}", c.kind(), c.id_str());
        assert_eq!(
            m.deferred,
            note.starts_with('🚫') || note.starts_with('🔮'),
            "{}",
            c.id_str()
        );
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} labelled notes");
}

#[test]
fn the_state_counts_cover_every_component() {
    let t = t();
    let counts = t.state_counts();
    assert_eq!(counts.total(), t.components().count());
    assert!(counts.validated > 0 && counts.declared > 0 && counts.desired > 0);
    // Only sites and components below them are in sites; links and patterns are site-less.
    for c in t.components() {
        let sited = t.site_of(c).is_some();
        let expect_site = !matches!(
            c,
            ComponentRef::Link(_)
                | ComponentRef::Pattern(_)
                | ComponentRef::Capability(_)
                | ComponentRef::Item(_)
        );
        if expect_site {
            assert!(sited, "{} has no site", c.id_str());
        }
    }
}

#[test]
fn the_diagram_of_the_default_shows_both_sites_and_colours_by_state() {
    let m = cpps_topology::diagram::mermaid(&t());
    assert!(m.contains("subgraph s0[\"Franca (franca)\"]"), "{m}");
    assert!(m.contains("subgraph s1[\"SP — Praça da Sé (sp)\"]"), "{m}");
    assert!(m.contains("(\"gpu-sp-01<br/>guest\"):::validated"), "{m}");
    assert!(
        m.contains("[(\"nvme-pool<br/>linstor pool\")]:::declared"),
        "{m}"
    );
    assert!(m.contains("[(\"pbs-sp<br/>pbs\")]:::desired"), "{m}");
}

#[test]
fn the_documents_records_are_loaded_and_no_finding_is_suppressed() {
    let t = t();
    // 29 pending items, the 14 rows of the decision table, 13 disagreements of the documents
    // (tests/documents_table.rs checks each against the documents).
    assert_eq!(t.pending().len(), 29);
    assert_eq!(t.rejected().len(), 14);
    assert_eq!(t.contradictions().len(), 13);
    // The two STATE-001 suppressions existed only because "Validado parcial … em produção" was
    // modelled as declared.
    assert!(t.suppressions().is_empty());
    // A rejected option is not a roadmap component: FRUGAL-001 asks it nothing.
    assert!(t.component("pve-cross-site-cluster").is_none());
    let r = t
        .rejected()
        .iter()
        .find(|r| r.id == "rejected-pve-cross-site")
        .unwrap();
    assert_eq!(r.flagged_by.as_deref(), Some("PVE-001"));
    // cert-manager is only mentioned: desired. 🔮 Futuro is deferred.
    let cm = t.capability(&"tls-cert-manager".parse().unwrap()).unwrap();
    assert_eq!(cm.meta.state, State::Desired);
    let grid = t.item(&"grid-unesp-connector".parse().unwrap()).unwrap();
    assert!(grid.meta.deferred && grid.meta.state == State::Desired);
    // The migration of K3s Franca to Cilium replaces the rejected "flannel sem Cilium".
    let migration = t.item(&"franca-cilium-migration".parse().unwrap()).unwrap();
    assert_eq!(
        migration.replaces.as_deref(),
        Some("rejected-cni-alternatives")
    );
    for p in t.pending() {
        assert!(!p.about.is_empty(), "{}", p.id);
        assert!(p.location.is_known() && p.about_locations.len() == p.about.len());
    }
}
