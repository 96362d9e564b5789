//! A Mermaid flowchart of a topology: sites as subgraphs holding their hosts, guests, clusters,
//! storage, GitOps, backup, routing and ingress, coloured by state; cross-site links and
//! multi-cluster patterns outside. `cargo xtask diagram` writes it for the README.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::model::{ComponentRef, State, Topology};

/// The class definitions: validated green, declared amber, desired grey and dashed.
pub const CLASS_DEFS: [&str; 3] = [
    "classDef validated fill:#d7f5dd,stroke:#2e7d32,color:#1b5e20",
    "classDef declared fill:#fff1c2,stroke:#c98a00,color:#6d4c00",
    "classDef desired fill:#eeeeee,stroke:#9e9e9e,color:#555555,stroke-dasharray: 5 5",
];

fn escape(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

struct Ids {
    by_id: HashMap<String, String>,
}

impl Ids {
    fn node(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(String::as_str)
    }
}

fn class(state: State) -> &'static str {
    state.as_str()
}

/// Renders the topology as a Mermaid `flowchart LR`.
///
/// Node ids are `n0`, `n1`, … in the order of [`Topology::components`] (sites are subgraphs
/// `s0`, `s1`, …); labels carry the component id and kind. Edges: host `-->` guest, cluster
/// `-.->|node|` guest, pool `-.->|replica|` host, ArgoCD `-->|manages|` cluster, PBS
/// `-->|sync|` PBS, link `<-->` between the routers at its ends (or the sites), pattern
/// `-.-` member cluster.
pub fn mermaid(topology: &Topology) -> String {
    let mut out = String::from("flowchart LR\n");
    for def in CLASS_DEFS {
        let _ = writeln!(out, "  {def}");
    }
    let ids = node_ids(topology);
    let site_nodes = write_nodes(&mut out, topology, &ids);
    write_edges(&mut out, topology, &ids, &site_nodes);
    out
}

/// The node id of every component but the sites: `n0`, `n1`, … in the order of
/// [`Topology::components`].
fn node_ids(topology: &Topology) -> Ids {
    let mut ids = Ids {
        by_id: HashMap::new(),
    };
    let mut next = 0usize;
    for c in topology.components() {
        if let ComponentRef::Site(_) = c {
            continue;
        }
        ids.by_id.insert(c.id_str().to_owned(), format!("n{next}"));
        next += 1;
    }
    ids
}

/// The node line of `c`, its shape telling its kind, its class its state.
fn node_line(out: &mut String, c: ComponentRef<'_>, ids: &Ids, indent: &str) {
    let Some(n) = ids.node(c.id_str()) else {
        return;
    };
    let label = format!("{}<br/>{}", escape(c.id_str()), c.kind());
    let (open, close) = match c {
        ComponentRef::Host(_) => ("[", "]"),
        ComponentRef::Guest(_) => ("(", ")"),
        ComponentRef::K3sCluster(_) | ComponentRef::ProxmoxCluster(_) => ("{{", "}}"),
        ComponentRef::LinstorPool(_) | ComponentRef::Pbs(_) => ("[(", ")]"),
        _ => ("[/", "/]"),
    };
    let _ = writeln!(
        out,
        "{indent}{n}{open}\"{label}\"{close}:::{}",
        class(c.meta().state)
    );
}

/// The nodes: one subgraph per site with the components bound to it, then the others. Returns
/// the subgraph id of each site.
fn write_nodes(out: &mut String, topology: &Topology, ids: &Ids) -> HashMap<String, String> {
    // Group site-bound components by site; the others go after the subgraphs.
    let mut per_site: HashMap<String, Vec<ComponentRef<'_>>> = HashMap::new();
    let mut unsited = Vec::new();
    for c in topology.components() {
        match c {
            ComponentRef::Site(_) => {}
            ComponentRef::Link(_) | ComponentRef::Pattern(_) => unsited.push(c),
            ComponentRef::Capability(_) | ComponentRef::Item(_) => {}
            _ => match topology.site_of(c) {
                Some(s) => per_site.entry(s.as_str().to_owned()).or_default().push(c),
                None => unsited.push(c),
            },
        }
    }
    let mut site_nodes = HashMap::new();
    for (i, site) in topology.sites().iter().enumerate() {
        let sid = format!("s{i}");
        site_nodes.insert(site.id.as_str().to_owned(), sid.clone());
        let title = match &site.name {
            Some(name) => format!("{} ({})", escape(name), escape(site.id.as_str())),
            None => escape(site.id.as_str()),
        };
        let _ = writeln!(out, "  subgraph {sid}[\"{title}\"]");
        for c in per_site.get(site.id.as_str()).into_iter().flatten() {
            node_line(out, *c, ids, "    ");
        }
        let _ = writeln!(out, "  end");
        let _ = writeln!(out, "  class {sid} {}", class(site.meta.state));
    }
    for c in &unsited {
        node_line(out, *c, ids, "  ");
    }
    site_nodes
}

/// The edges between the nodes (see [`mermaid`]); a link without end routers joins the sites'
/// subgraphs.
fn write_edges(
    out: &mut String,
    topology: &Topology,
    ids: &Ids,
    site_nodes: &HashMap<String, String>,
) {
    let edge = |out: &mut String, from: &str, arrow: &str, to: &str| {
        if let (Some(a), Some(b)) = (ids.node(from), ids.node(to)) {
            let _ = writeln!(out, "  {a} {arrow} {b}");
        }
    };
    for g in topology.guests() {
        edge(out, g.host.as_str(), "-->", g.id.as_str());
    }
    for k in topology.k3s_clusters() {
        for n in &k.nodes {
            edge(out, k.id.as_str(), "-.->|node|", n.as_str());
        }
    }
    for p in topology.linstor_pools() {
        for n in &p.nodes {
            edge(out, p.id.as_str(), "-.->|replica|", n.host.as_str());
        }
    }
    for a in topology.argocd() {
        for m in &a.manages {
            edge(out, a.id.as_str(), "-->|manages|", m.as_str());
        }
    }
    for p in topology.pbs() {
        for s in &p.sync_to {
            edge(out, p.id.as_str(), "-->|sync|", s.target.as_str());
        }
    }
    for l in topology.links() {
        for e in &l.endpoints {
            edge(out, l.id.as_str(), "<-->", e.as_str());
        }
        if l.endpoints.is_empty() {
            for s in &l.sites {
                if let (Some(a), Some(b)) = (ids.node(l.id.as_str()), site_nodes.get(s.as_str())) {
                    let _ = writeln!(out, "  {a} <--> {b}");
                }
            }
        }
    }
    for p in topology.patterns() {
        for m in &p.members {
            edge(out, p.id.as_str(), "-.-", m.as_str());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"
version: 1
sites:
  - { id: sp, name: SP, state: validated }
hosts:
  - { id: h1, site: sp, state: validated }
guests:
  - { id: g1, host: h1, kind: lxc, privileged: true, state: declared }
k3s_clusters:
  - id: k1
    site: sp
    nodes: [g1]
    cni: { kind: flannel }
    purpose: gpu
    state: desired
"#;

    #[test]
    fn a_small_topology_draws_its_nodes_edges_and_state_classes() {
        let t = crate::load_str("small.yaml", SMALL).unwrap();
        let m = mermaid(&t);
        let lines: Vec<&str> = m.lines().collect();
        assert_eq!(lines[0], "flowchart LR");
        assert_eq!(&lines[1..4], &CLASS_DEFS.map(|d| format!("  {d}"))[..]);
        let expected = [
            "  subgraph s0[\"SP (sp)\"]",
            "    n0[\"h1<br/>host\"]:::validated",
            "    n1(\"g1<br/>guest\"):::declared",
            "    n2{{\"k1<br/>k3s cluster\"}}:::desired",
            "  end",
            "  class s0 validated",
            "  n0 --> n1",
            "  n2 -.->|node| n1",
        ];
        assert_eq!(&lines[4..], &expected[..], "{m}");
    }

    #[test]
    fn labels_are_escaped() {
        assert_eq!(escape("a\"b<c>"), "a#quot;b#lt;c#gt;");
    }
}
