//! The checks follow references through the topology's lookups by id (built once with the
//! topology; the first component with an id wins) and compare by text only the ids that name no
//! component, which only a topology built in code can hold. These tests pin what REL-001 reports
//! on repeated references of both kinds, so that the two paths say the same thing: a list that
//! names one component twice, a guest listed by two clusters, a pool controller that is its own
//! standby, an ApplicationSet member its ArgoCD does not manage.

use std::collections::BTreeSet;

use cpps_topology::check::check_on;
use cpps_topology::model::{
    ArgoCdId, HostId, K3sClusterId, Meta, Parts, Pattern, PatternId, PatternKind, PoolNode, State,
    Topology,
};
use cpps_topology::testing::{Shape, generate};

fn topology() -> Topology {
    generate(
        Shape {
            sites: 2,
            hosts_per_site: 4,
            guests: 60,
            random_states: false,
        },
        7,
    )
}

fn id<T: std::str::FromStr>(text: &str) -> T
where
    T::Err: std::fmt::Debug,
{
    text.parse().expect("a valid id")
}

/// The REL-001 findings as `subject: message`.
fn rel_001(t: &Topology) -> BTreeSet<String> {
    check_on(t, jiff::civil::date(2026, 5, 2))
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "REL-001")
        .map(|f| format!("{}: {}", f.subject, f.message))
        .collect()
}

fn cluster<'p>(parts: &'p mut Parts, name: &str) -> &'p mut cpps_topology::model::K3sCluster {
    parts
        .k3s_clusters
        .iter_mut()
        .find(|k| k.id.as_str() == name)
        .expect("the generated cluster")
}

#[test]
fn the_generated_topology_has_no_impossible_relation() {
    assert_eq!(rel_001(&topology()), BTreeSet::new());
}

#[test]
fn repeated_cluster_nodes_are_found_whether_or_not_they_name_a_guest() {
    let mut t = topology();
    let (own, other) = t.edit(|parts| {
        let own = cluster(parts, "s0-k0").nodes[0].clone();
        let other = cluster(parts, "s1-k0").nodes[1].clone();
        let k = cluster(parts, "s0-k0");
        // nodes[n]: its own first node again; nodes[n + 1]: a node of s1-k0; then an id that
        // names no guest, which s1-k0 lists too.
        k.nodes.push(own.clone());
        k.nodes.push(other.clone());
        k.nodes.push(id("ghost-guest"));
        cluster(parts, "s1-k0").nodes.push(id("ghost-guest"));
        (own, other)
    });
    let n = t.k3s_clusters()[0].nodes.len() - 3;
    let s1_ghost = t
        .k3s_clusters()
        .iter()
        .find(|k| k.id.as_str() == "s1-k0")
        .unwrap()
        .nodes
        .len()
        - 1;
    assert_eq!(t.k3s_clusters()[0].id.as_str(), "s0-k0");
    let expected: BTreeSet<String> = [
        format!(
            "s0-k0: k3s cluster s0-k0 lists guest {own} as a node twice: a K3s node belongs to one cluster"
        ),
        // The guest of s1-k0 is listed first by s0-k0 (clusters in file order), so s1-k0's own
        // listing is the one reported.
        format!(
            "s1-k0: k3s cluster s1-k0 lists guest {other} as a node while it is a node of cluster s0-k0 already: a K3s node belongs to one cluster"
        ),
        "s1-k0: k3s cluster s1-k0 lists guest ghost-guest as a node while it is a node of cluster s0-k0 already: a K3s node belongs to one cluster".to_owned(),
    ]
    .into();
    assert_eq!(
        rel_001(&t),
        expected,
        "nodes[{n}..] and s1-k0 nodes[{s1_ghost}]"
    );
}

#[test]
fn repeated_pool_nodes_and_an_own_standby_are_found() {
    let mut t = topology();
    let (first, primary) = t.edit(|parts| {
        let pool = &mut parts.linstor_pools[0];
        let first = pool.nodes[0].host.clone();
        for host in [first.clone(), id("ghost-host"), id("ghost-host")] {
            pool.nodes.push(PoolNode {
                host,
                diskful: false,
            });
        }
        let controller = pool.controller.as_mut().expect("a controller");
        let primary = controller.primary.clone().expect("a primary");
        controller.standby.push(primary.clone());
        (first, primary)
    });
    let pool = t.linstor_pools()[0].id.clone();
    let expected: BTreeSet<String> = [
        format!("{pool}: pool {pool} lists host {first} twice: a host is one node of a pool"),
        format!("{pool}: pool {pool} lists host ghost-host twice: a host is one node of a pool"),
        format!("{pool}: pool {pool}'s controller host {primary} is its own standby"),
    ]
    .into();
    assert_eq!(rel_001(&t), expected);
    // A primary that names no host is compared with its standby by text.
    t.edit(|parts| {
        let controller = parts.linstor_pools[0].controller.as_mut().unwrap();
        let ghost: HostId = id("ghost-controller");
        controller.primary = Some(ghost.clone());
        controller.standby = vec![ghost];
    });
    assert!(
        rel_001(&t).contains(&format!(
            "{pool}: pool {pool}'s controller host ghost-controller is its own standby"
        )),
        "{:#?}",
        rel_001(&t)
    );
}

#[test]
fn repeated_managed_clusters_and_members_are_found() {
    let mut t = topology();
    t.edit(|parts| {
        let argocd = &mut parts.argocd[0];
        argocd.manages.push(id("s0-k0"));
        argocd.manages.push(id("ghost-cluster"));
        argocd.manages.push(id("ghost-cluster"));
        let mesh = parts
            .patterns
            .iter_mut()
            .find(|p| p.kind == PatternKind::ClusterMesh)
            .expect("the generated mesh");
        let member = mesh.members[0].clone();
        mesh.members.push(member);
    });
    let argocd = t.argocd()[0].id.clone();
    let mesh = t
        .patterns()
        .iter()
        .find(|p| p.kind == PatternKind::ClusterMesh)
        .unwrap();
    let expected: BTreeSet<String> = [
        format!("{argocd}: ArgoCD {argocd} lists cluster s0-k0 twice"),
        format!("{argocd}: ArgoCD {argocd} lists cluster ghost-cluster twice"),
        format!("mesh: pattern mesh lists cluster {} twice", mesh.members[0]),
    ]
    .into();
    assert_eq!(rel_001(&t), expected);
}

#[test]
fn an_application_set_member_its_argocd_does_not_manage_is_found_each_time_it_is_listed() {
    let mut t = topology();
    t.edit(|parts| {
        parts.argocd[0].manages.push(id("ghost-managed"));
        let members: Vec<K3sClusterId> = [
            "s0-k0",
            "s1-k0",
            "s1-k0",
            "ghost-managed",
            "ghost-unmanaged",
            "ghost-unmanaged",
        ]
        .iter()
        .map(|m| id(m))
        .collect();
        let argocd: ArgoCdId = parts.argocd[0].id.clone();
        parts.patterns.push(Pattern {
            id: id::<PatternId>("appset"),
            kind: PatternKind::ApplicationSet,
            members,
            manager: None,
            argocd: Some(argocd),
            meta: Meta::new(State::Validated),
        });
    });
    let argocd = t.argocd()[0].id.clone();
    let message = |m: &str| {
        format!(
            "appset: ApplicationSet appset of ArgoCD {argocd} deploys to cluster {m}, which that ArgoCD does not manage"
        )
    };
    // s1-k0 (members[1], members[2]) and ghost-unmanaged (members[4], members[5]): one finding
    // per entry, with the same message each time; ghost-managed, which names no cluster, is
    // managed by text.
    let findings: Vec<String> = check_on(&t, jiff::civil::date(2026, 5, 2))
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "REL-001")
        .map(|f| format!("{}: {}", f.subject, f.message))
        .collect();
    let count = |m: &str| findings.iter().filter(|f| **f == message(m)).count();
    assert_eq!(count("s1-k0"), 2, "{findings:#?}");
    assert_eq!(count("ghost-unmanaged"), 2, "{findings:#?}");
    // Each repeated member is also a member listed twice.
    for m in ["s1-k0", "ghost-unmanaged"] {
        let twice = format!("appset: pattern appset lists cluster {m} twice");
        assert_eq!(
            findings.iter().filter(|f| **f == twice).count(),
            1,
            "{findings:#?}"
        );
    }
    assert_eq!(findings.len(), 6, "{findings:#?}");
}
