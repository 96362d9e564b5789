//! The findings on the embedded default topology: the real state of CPPS as the two documents
//! describe it.

mod common;

use std::collections::BTreeSet;

use common::{find, finding, line_at, today};
use cpps_topology::check::check_on;
use cpps_topology::report::{Format, Report, Severity};

fn report() -> Report {
    check_on(&cpps_topology::default_topology(), today())
}

#[test]
fn the_documented_gaps_are_reported() {
    let r = report();

    // "pve-ippri-34 tem linstor_interface: \"\"": an error on the host, pointing at the field.
    let f = find(&r, "LINSTOR-001", "pve-ippri-34");
    assert_eq!(f.severity, Severity::Error);
    assert_eq!(f.site.as_deref(), Some("sp"));
    let line = line_at(cpps_topology::DEFAULT_TOPOLOGY_YAML, f);
    assert!(line.contains("\"\""), "{line}");

    // A node of a pool whose interface the documents do not state (only pve-ippri-34's is,
    // as empty): "not stated", never a pass (the file's header: "a rule that needs it says
    // «not stated»").
    let f = find(&r, "LINSTOR-001", "pve-ippri-33");
    assert!(
        f.message
            .contains("states no LINSTOR replication interface"),
        "{}",
        f.message
    );
    assert!(f.severity < Severity::Error, "{:?}", f.severity);

    // "place_count: 3 no SP SSD (hoje 2 …) — só após correção do pve-ippri-34".
    let f = find(&r, "LINSTOR-002", "sp-ssd");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.message.contains("place_count 2"), "{}", f.message);
    assert!(f.message.contains("pve-ippri-34"), "{}", f.message);

    // "PBS Franca, PBS SP, sync cross-site (nenhum implementado hoje)".
    for site in ["franca", "sp"] {
        let f = find(&r, "BACKUP-001", site);
        assert_eq!(f.severity, Severity::Warning);
    }

    // "VRRP HA pra VyOS (single-node hoje)".
    for router in ["vyos-franca", "vyos-sp"] {
        assert_eq!(find(&r, "NET-002", router).severity, Severity::Warning);
    }
    // One router per site: no NET-001.
    assert!(r.findings.iter().all(|f| f.rule.as_str() != "NET-001"));

    // "cert-manager instalado nos 2 clusters": the sites' general-purpose clusters. K3s Franca is
    // in production without it; the GPU cluster of SP is not one of the two.
    let f = find(&r, "INGRESS-002", "k3s-franca");
    assert_eq!(f.severity, Severity::Warning);
    assert!(
        finding(&r, "INGRESS-002", "k3s-gpu-sp").is_none(),
        "INGRESS-002 asks the GPU cluster for cert-manager"
    );

    // traefik-sp: `ha: True` only declared.
    let f = find(&r, "PVE-003", "traefik-sp");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.message.contains("only declared"), "{}", f.message);

    // The Franca GPU placement contradiction, naming both documents.
    let f = find(&r, "GPU-002", "k3s-gpu-franca");
    assert_eq!(f.severity, Severity::Info);
    assert!(
        f.message.contains("004_29bfc39840ca04c0.txt"),
        "{}",
        f.message
    );
    assert!(
        f.message.contains("000_be2f9e2558fad79c.txt"),
        "{}",
        f.message
    );
}

#[test]
fn roadmap_items_are_never_errors() {
    let r = report();
    let topology = cpps_topology::default_topology();
    for f in r.findings.iter().filter(|f| f.severity == Severity::Error) {
        let c = topology
            .component(f.subject.id())
            .expect("errors name a component");
        assert_ne!(
            c.meta().state,
            cpps_topology::model::State::Desired,
            "desired component with an error: {f:?}"
        );
    }
    // Every finding of the default points into the embedded file.
    for f in &r.findings {
        assert_eq!(f.location.file, cpps_topology::DEFAULT_TOPOLOGY_NAME);
        assert!(f.location.line >= 1);
    }
}

#[test]
fn the_default_fails_ci_on_its_real_errors() {
    let r = report();
    let errors: BTreeSet<(&str, &str)> = r
        .active()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| (f.rule.as_str(), f.subject.id()))
        .collect();
    assert!(
        errors.contains(&("LINSTOR-001", "pve-ippri-34")),
        "{errors:?}"
    );
    assert!(r.fails(false));
    assert_eq!(r.summary.errors, errors.len());
    let text = r.render(Format::Text);
    assert!(text.contains("== site franca:"), "{text}");
    assert!(text.contains("== site sp:"), "{text}");
    assert!(text.contains("\nsummary: "), "{text}");
}

#[test]
fn what_the_documents_ask_is_reported_on_the_default_and_nothing_is_suppressed() {
    let r = report();
    // "Validado parcial … em produção" is validated: the two STATE-001 suppressions that hid the
    // mislabel are gone, and nothing else is suppressed or mixes states.
    let suppressed: Vec<_> = r.findings.iter().filter(|f| f.is_suppressed()).collect();
    assert!(suppressed.is_empty(), "{suppressed:?}");
    assert!(!r.findings.iter().any(|f| f.rule.as_str() == "STATE-001"));
    // K3s Franca runs the rejected "flannel sem Cilium" in production, its migration planned.
    assert_eq!(
        find(&r, "DOC-002", "k3s-franca").severity,
        Severity::Warning
    );
    // LINSTOR in production without its metrics in production.
    for pool in ["sp-ssd", "franca-ssd"] {
        assert_eq!(find(&r, "DOC-004", pool).severity, Severity::Warning);
    }
    // The validated GPU cluster has no NVRM alert in production; its LXC is neither on LINSTOR
    // nor in PBS.
    assert_eq!(
        find(&r, "DOC-005", "k3s-gpu-sp").severity,
        Severity::Warning
    );
    let f = find(&r, "DOC-008", "gpu-sp-01");
    assert!(
        f.message.contains("no LINSTOR pool") && f.message.contains("no PBS"),
        "{}",
        f.message
    );
    // ArgoCD SP planned in the Cilium main cluster is ADR-009's plan («K3s SP principal:
    // workloads gerais (… ArgoCD SP …)»); it waits for no deferred cluster: no DOC-007.
    assert!(finding(&r, "DOC-007", "argocd-sp").is_none());
    // Each contradiction of ADR-009 with the architecture is an info finding.
    let contradictions = r
        .findings
        .iter()
        .filter(|f| f.rule.as_str() == "DOC-001")
        .inspect(|f| assert_eq!(f.severity, Severity::Info, "{}", f.message))
        .count();
    assert_eq!(contradictions, 13);
    // A rejected option is not asked for its use case.
    assert!(
        !r.findings
            .iter()
            .any(|f| f.rule.as_str() == "FRUGAL-001" && f.subject.id().contains("cross-site"))
    );
}

/// The README's excerpt of the main job is what the main job prints on the default topology:
/// every line of it stands in the text report (a `…` stands for text left out).
#[test]
fn the_readme_shows_the_main_job_as_it_prints() {
    let readme = include_str!("../../README.md");
    let start = readme
        .find("On the embedded CPPS topology the main job exits 1")
        .expect("the README shows the main job's output");
    let block = &readme[start..];
    let block = &block[block.find("```console\n").expect("a console block") + 11..];
    let block = &block[..block.find("```").expect("the block ends")];
    let text = report().render(Format::Text);
    let printed: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut shown = 0;
    for line in block.lines().filter(|l| l.trim() != "…") {
        let pieces: Vec<&str> = line.split('…').collect();
        let matches = |printed: &&str| {
            let Some(mut rest) = printed.strip_prefix(pieces[0]) else {
                return false;
            };
            for piece in &pieces[1..] {
                match rest.find(piece) {
                    Some(at) => rest = &rest[at + piece.len()..],
                    None => return false,
                }
            }
            pieces.len() > 1 || rest.is_empty()
        };
        assert!(
            printed.iter().any(matches),
            "the README shows a line the main job does not print:\n{line}\n\nthe main job prints:\n{text}"
        );
        shown += 1;
    }
    assert!(
        shown >= 10,
        "the README's excerpt is too short to say anything"
    );
}

/// PVE-002 with no version to compare: the architecture has the upgrade under way («🚧 Em
/// andamento: upgrade PVE 9.x dos nodes restantes»), so a cluster whose hosts state no
/// `pve_version` may well run two major versions. That is "cannot tell", at the rule's severity,
/// never silence; stating every version settles it.
#[test]
fn pve_002_says_cannot_tell_when_hosts_state_no_version() {
    let r = report();
    for (cluster, hosts) in [("pve-franca", 7), ("pve-sp", 6)] {
        let f = find(&r, "PVE-002", cluster);
        assert_eq!(f.severity, Severity::Warning);
        assert!(
            f.message.starts_with(&format!(
                "cannot tell whether Proxmox cluster {cluster} runs one major PVE version: {hosts} of its {hosts} host(s) state no `pve_version`"
            )),
            "{}",
            f.message
        );
    }
    // Every SP host with a version (a variant of the default): SP is settled, Franca is not.
    let sp_hosts = [
        "pve-ippri-11",
        "pve-ippri-12",
        "pve-ippri-31",
        "pve-ippri-33",
        "pve-ippri-34",
        "pve-ippri-unnamed-1",
    ];
    let mut text = cpps_topology::DEFAULT_TOPOLOGY_YAML.to_owned();
    for h in sp_hosts {
        let from = format!("  - id: {h}\n    site: sp\n    proxmox_cluster: pve-sp\n");
        assert!(text.contains(&from), "{from}");
        text = text.replace(&from, &format!("{from}    pve_version: \"9.0\"\n"));
    }
    let r = common::run(&text, "versions.yaml");
    assert!(finding(&r, "PVE-002", "pve-sp").is_none());
    assert_eq!(
        find(&r, "PVE-002", "pve-franca").severity,
        Severity::Warning
    );
    // One host without a version in a cluster whose others are on 9.0: still cannot tell.
    let text = text.replace(
        "  - id: pve-ippri-34\n    site: sp\n    proxmox_cluster: pve-sp\n    pve_version: \"9.0\"\n",
        "  - id: pve-ippri-34\n    site: sp\n    proxmox_cluster: pve-sp\n",
    );
    let r = common::run(&text, "one-missing.yaml");
    let f = find(&r, "PVE-002", "pve-sp");
    assert!(
        f.message.contains("1 of its 6 host(s) state no `pve_version` (pve-ippri-34), the others' newest is PVE 9.0"),
        "{}",
        f.message
    );
}

/// The default file states only what the documents state: no GPU count (they name the model
/// per host, «NVIDIA A5500»), and a place_count only for the SP SSD pool («place_count: 3 no SP
/// SSD (hoje 2 …)»). The rules that need a count say "not stated" instead of deciding on a
/// guess (the file used to write «3 assumed» and GPU counts of 1, which decided LINSTOR-002 and
/// LINSTOR-006); stating the count (a one-change variant) settles them.
#[test]
fn unstated_counts_are_not_invented_and_the_rules_say_not_stated() {
    let t = cpps_topology::default_topology();
    assert!(
        t.hosts()
            .iter()
            .flat_map(|h| &h.gpus)
            .all(|g| g.count.is_none())
    );
    assert!(
        t.guests()
            .iter()
            .filter_map(|g| g.gpu.as_ref())
            .all(|g| g.count.is_none())
    );
    let stated: Vec<(&str, Option<u32>)> = t
        .linstor_pools()
        .iter()
        .map(|p| (p.id.as_str(), p.place_count))
        .collect();
    assert_eq!(
        stated,
        [
            ("franca-ssd", None),
            ("sp-ssd", Some(2)),
            ("nvme-pool", None)
        ]
    );
    let r = report();
    let f = find(&r, "LINSTOR-002", "franca-ssd");
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.message.contains("not stated"), "{}", f.message);
    // nvme-pool is not in production and its count is not stated: no ordering finding on a
    // guessed 3.
    assert!(finding(&r, "LINSTOR-002", "nvme-pool").is_none());
    for pool in ["franca-ssd", "nvme-pool"] {
        let f = find(&r, "LINSTOR-006", pool);
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.message.contains("states no place_count"), "{}", f.message);
    }
    // One change: Franca's count stated as 3 settles both.
    let text = cpps_topology::DEFAULT_TOPOLOGY_YAML.replacen(
        "    # place_count is not stated in the documents (only SP SSD is named, running with 2).\n",
        "    place_count: 3\n",
        1,
    );
    let r = common::run(&text, "franca-3.yaml");
    assert!(finding(&r, "LINSTOR-002", "franca-ssd").is_none());
    assert!(finding(&r, "LINSTOR-006", "franca-ssd").is_none());
}
