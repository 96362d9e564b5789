//! Properties of `check` over generated topologies (`cpps_topology::testing`).
//!
//! * A generated valid topology has no error finding, all validated or with random states.
//! * A targeted mutation makes exactly its rule fire, on exactly its subject.
//! * Renaming every id changes no finding, modulo the names.

mod common;

use std::collections::BTreeMap;

use common::today;
use cpps_topology::check::check_on;
use cpps_topology::model::{CniKind, ComponentRef, Parts, State, Topology};
use cpps_topology::report::{Report, Severity};
use cpps_topology::testing::{
    Shape, generate, rename_all, renamed, shape_and_seed, valid_topology,
};
use proptest::prelude::*;

/// (rule, subject) → how many findings, with their severities.
fn findings(report: &Report) -> BTreeMap<(String, String), Vec<Severity>> {
    let mut map: BTreeMap<(String, String), Vec<Severity>> = BTreeMap::new();
    for f in &report.findings {
        map.entry((f.rule.to_string(), f.subject.id().to_owned()))
            .or_default()
            .push(f.severity);
    }
    for severities in map.values_mut() {
        severities.sort();
    }
    map
}

/// The error findings, except those of the rules in `except`.
fn errors(report: &Report, except: &[&str]) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error && !except.contains(&f.rule.as_str()))
        .map(|f| format!("{} {}: {}", f.rule, f.subject, f.message))
        .collect()
}

/// The findings that `after` has and `before` has not.
fn new_findings(before: &Report, after: &Report) -> Vec<(String, String)> {
    let before = findings(before);
    findings(after)
        .into_iter()
        .filter(|(key, severities)| before.get(key) != Some(severities))
        .map(|(key, _)| key)
        .collect()
}

/// Checks `topology`, then a copy changed by `change`: what `change` returns (the subject it
/// changed) and the findings the copy has that `topology` has not.
fn after_change<R>(
    topology: &Topology,
    change: impl FnOnce(&mut Parts) -> R,
) -> (R, Vec<(String, String)>) {
    let before = check_on(topology, today());
    let mut mutated = topology.clone();
    let changed = mutated.edit(change);
    let after = check_on(&mutated, today());
    (changed, new_findings(&before, &after))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_valid_topology_has_no_error((shape, seed) in shape_and_seed()) {
        // Every component in production: nothing may be an error.
        let topology = generate(Shape { random_states: false, ..shape }, seed);
        let report = check_on(&topology, today());
        prop_assert!(errors(&report, &[]).is_empty(), "{:#?}", errors(&report, &[]));
        prop_assert_eq!(report.summary.errors, 0);
        prop_assert_eq!(report.summary.components, topology.state_counts());
    }

    #[test]
    fn a_valid_topology_with_random_states_has_no_error(topology in valid_topology()) {
        // The generator never makes a component more mature than what it stands on, so even
        // with states drawn at random STATE-001 and every other error rule stay silent.
        let report = check_on(&topology, today());
        let errors = errors(&report, &[]);
        prop_assert!(errors.is_empty(), "{errors:#?}");
    }

    #[test]
    fn emptying_a_satellite_interface_fires_exactly_linstor_001(topology in valid_topology()) {
        // ... and LINSTOR-002's ordering on each pool of that site that already asks for 3
        // replicas ("place_count: 3 … só após correção do pve-ippri-34").
        let Some(index) = topology.hosts().iter().position(|h| {
            h.linstor.as_ref().is_some_and(|l| l.is_satellite())
        }) else {
            return Ok(());
        };
        let (subject, new) = after_change(&topology, |parts| {
            let host = &mut parts.hosts[index];
            if let Some(linstor) = host.linstor.as_mut() {
                linstor.interface = Some(String::new());
            }
            host.id.to_string()
        });
        let site = &topology.hosts()[index].site;
        let raised_first = topology
            .linstor_pools()
            .iter()
            .filter(|p| &p.site == site && p.place_count.is_some_and(|c| c >= 3))
            .map(|p| ("LINSTOR-002".to_owned(), p.id.to_string()));
        let mut expected: Vec<(String, String)> = std::iter::once(("LINSTOR-001".to_owned(), subject))
            .chain(raised_first)
            .collect();
        expected.sort();
        prop_assert_eq!(new, expected);
    }

    #[test]
    fn dropping_default_deny_fires_exactly_cni_003(topology in valid_topology()) {
        let Some(index) = topology
            .k3s_clusters()
            .iter()
            .position(|k| k.cni.kind == CniKind::Cilium && k.default_deny)
        else {
            return Ok(());
        };
        let (subject, new) = after_change(&topology, |parts| {
            let cluster = &mut parts.k3s_clusters[index];
            cluster.default_deny = false;
            cluster.id.to_string()
        });
        prop_assert_eq!(new, vec![("CNI-003".to_owned(), subject)]);
    }

    #[test]
    fn a_desired_component_without_use_case_fires_exactly_frugal_001(topology in valid_topology()) {
        // Demote a leaf (a guest nothing stands on) to desired: FRUGAL-001 fires on it; rules on
        // components that stand on it may change, so only guests outside clusters and PBS qualify.
        let Some(index) = topology.guests().iter().position(|g| {
            g.meta.state == State::Validated
                && topology.cluster_of_guest(&g.id).is_none()
                && !topology.pbs().iter().any(|p| p.guest.as_ref() == Some(&g.id))
                && !topology.traefik().iter().any(|t| t.guest.as_ref() == Some(&g.id))
                && !g.ha
                && g.storage.is_none()
        }) else {
            return Ok(());
        };
        let (subject, new) = after_change(&topology, |parts| {
            let guest = &mut parts.guests[index];
            guest.meta.state = State::Desired;
            guest.meta.use_case = None;
            guest.id.to_string()
        });
        prop_assert_eq!(new, vec![("FRUGAL-001".to_owned(), subject)]);
    }

    #[test]
    fn renaming_everything_changes_no_finding(topology in valid_topology()) {
        let before = check_on(&topology, today());
        let renamed_topology = rename_all(&topology);
        let after = check_on(&renamed_topology, today());
        let expected: BTreeMap<(String, String), Vec<Severity>> = findings(&before)
            .into_iter()
            .map(|((rule, subject), severities)| ((rule, renamed(&subject)), severities))
            .collect();
        prop_assert_eq!(findings(&after), expected);
        prop_assert_eq!(before.summary, after.summary);
    }
}

#[test]
fn the_mutation_tests_do_find_their_targets() {
    // Guard against vacuous properties: the generator does produce satellites, Cilium clusters
    // with default-deny and plain guests.
    let topology: Topology = cpps_topology::testing::synthetic(200);
    assert!(
        topology
            .hosts()
            .iter()
            .any(|h| h.linstor.as_ref().is_some_and(|l| l.is_satellite()))
    );
    assert!(
        topology
            .k3s_clusters()
            .iter()
            .any(|k| k.cni.kind == CniKind::Cilium && k.default_deny)
    );
    assert!(
        topology
            .components()
            .any(|c| matches!(c, ComponentRef::Guest(_)))
    );
    let report = check_on(&topology, today());
    assert_eq!(report.summary.errors, 0, "{:?}", report.findings.first());
}
