//! The HA rules as a 5.x CRM master (PVE 9) compiles them, and the resource affinity it weighs
//! when it places a service (pve-ha-manager `src/PVE/HA/Manager.pm` `select_service_node`).
//!
//! The rules index (`GET /cluster/ha/rules`) lists the rules as written, with the `errors` of
//! those the CRM drops. The CRM transforms the rest before compiling (`HA/Rules.pm`
//! `transform`):
//! - positive resource-affinity rules sharing a resource are merged
//!   (`HA/Rules/ResourceAffinity.pm` `merge_connected_positive_resource_affinity_rules`, by
//!   `HA/Rules/Helpers.pm` `find_disjoint_rules_resource_sets`: each rule, by its lowest
//!   resource, joins the first set it shares one with);
//! - a resource kept apart from one member of a merged set is kept apart from every member
//!   (`create_implicit_negative_resource_affinity_rules`);
//! - a merged set with a member in a node-affinity rule joins that rule
//!   (`HA/Rules.pm` `create_implicit_positive_resource_affinity_node_affinity_rules`).
//!
//! A service then keeps to the node most of its positive partners use and off every node a
//! negative partner uses (`get_resource_affinity`, `apply_negative_resource_affinity`,
//! `apply_positive_resource_affinity`, `is_allowed_on_node`).
//!
//! The code knows the master's pve-manager major, not its pve-ha-manager release, and three
//! things changed within 5.x: the order of the two narrowings (5.0.5), how a moving positive
//! partner counts (5.1.0), and which merged rules are dropped as inconsistent (5.0.7). Where
//! one of them decides the answer, it is "cannot tell".

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The enabled, feasible HA rules, transformed as a 5.x CRM does.
pub(crate) struct Rules<'r> {
    /// Node-affinity rules with the resources each names; those a positive set takes on are
    /// found by [`Rules::node_affinity_of`].
    node_affinity: Vec<(&'r Value, BTreeSet<String>)>,
    /// Positive resource sets, merged.
    positive: Vec<BTreeSet<String>>,
    /// Negative resource sets, the implicit ones included.
    negative: Vec<BTreeSet<String>>,
    /// The members of merged positive sets that hold both sides of a negative rule: from
    /// pve-ha-manager 5.0.7 (e79f4b4) `check_inter_resource_affinity_rules_consistency` checks
    /// merged sets and drops those rules, while earlier releases check each rule alone and
    /// apply them, so what a master does with them depends on a release this code cannot see.
    conflicted: BTreeSet<String>,
}

/// The resources of a rule (`vm:100,ct:200`).
fn resources_of(rule: &Value) -> BTreeSet<String> {
    let list = rule["resources"].as_str().unwrap_or("");
    list.split(',')
        .map(|sid| sid.trim().to_owned())
        .filter(|sid| !sid.is_empty())
        .collect()
}

/// The rules of `kind` the CRM compiles: neither disabled (`HA/Rules.pm` `foreach_rule` skips
/// one whose `disable` exists, whatever its value) nor listed with `errors` (dropped by
/// `transform`), with their resources.
fn enabled<'r>(
    rules: &'r [Value],
    kind: &str,
) -> impl Iterator<Item = (&'r Value, BTreeSet<String>)> {
    rules
        .iter()
        .filter(move |r| r["type"].as_str() == Some(kind))
        .filter(|r| r.get("disable").is_none() && r.get("errors").is_none())
        .map(|r| (r, resources_of(r)))
        .filter(|(_, resources)| !resources.is_empty())
}

impl<'r> Rules<'r> {
    /// Compiles `rules`, the rules index's entries.
    pub(crate) fn of(rules: &'r [Value]) -> Self {
        let positive = merged_positive(rules);
        let negative: Vec<BTreeSet<String>> = enabled(rules, "resource-affinity")
            .filter(|(rule, _)| rule["affinity"].as_str() == Some("negative"))
            .map(|(_, resources)| resources)
            .collect();
        let conflicted = conflicted(&positive, &negative);
        let negative = with_implicit_negative(negative, &positive);
        let node_affinity = enabled(rules, "node-affinity").collect();
        Rules {
            node_affinity,
            positive,
            negative,
            conflicted,
        }
    }

    /// Why the rules that place `sid` depend on the master's release, if they do: it is in a
    /// conflicted set ([`Rules::conflicted`]), or kept apart from one.
    fn conflict_of(&self, sid: &str) -> Result<(), String> {
        let touches = self.conflicted.contains(sid)
            || self
                .negative
                .iter()
                .any(|set| set.contains(sid) && !set.is_disjoint(&self.conflicted));
        if touches {
            return Err(
                "its resource-affinity rules conflict once merged, which pve-ha-manager \
                        5.0.7 and later drop and earlier releases apply"
                    .to_owned(),
            );
        }
        Ok(())
    }

    /// The node-affinity rule that places `sid`, its own or one of its positive set's; `None`
    /// when there is none, an error when more than one may.
    pub(crate) fn node_affinity_of(&self, sid: &str) -> Result<Option<&'r Value>, String> {
        self.conflict_of(sid)?;
        let mut placing: Vec<&'r Value> = Vec::new();
        let mut add = |rule: &'r Value| {
            if !placing.iter().any(|p| std::ptr::eq(*p, rule)) {
                placing.push(rule);
            }
        };
        for (rule, resources) in &self.node_affinity {
            if resources.contains(sid) {
                add(rule);
            }
        }
        for set in self.positive.iter().filter(|set| set.contains(sid)) {
            let mut overlapping = self
                .node_affinity
                .iter()
                .filter(|(_, r)| !r.is_disjoint(set));
            match (overlapping.next(), overlapping.next()) {
                (Some((rule, _)), None) => add(rule),
                (None, _) => {}
                // `create_implicit_positive_resource_affinity_node_affinity_rules` takes "the
                // first found", in hash order.
                (Some(_), Some(_)) => {
                    return Err(
                        "its positive resource-affinity partners are placed by more than \
                                one node-affinity rule"
                            .to_owned(),
                    );
                }
            }
        }
        match placing.as_slice() {
            [] => Ok(None),
            [rule] => Ok(Some(rule)),
            _ => Err("more than one node-affinity rule names it".to_owned()),
        }
    }

    /// Whether any resource-affinity rule, implicit ones included, names `sid`.
    pub(crate) fn has_affinity(&self, sid: &str) -> bool {
        self.positive
            .iter()
            .chain(&self.negative)
            .any(|set| set.contains(sid))
    }

    /// Where `sid`'s partners run ([`Neighbours`]), from the CRM's `service_status`, with the
    /// nodes the CRM holds online.
    pub(crate) fn neighbours(
        &self,
        service_status: &Value,
        sid: &str,
        online: &BTreeSet<String>,
    ) -> Result<Neighbours, String> {
        self.conflict_of(sid)?;
        let partners = |sets: &[BTreeSet<String>]| -> BTreeSet<String> {
            let containing = sets.iter().filter(|set| set.contains(sid));
            containing
                .flatten()
                .filter(|s| *s != sid)
                .cloned()
                .collect()
        };
        let mut neighbours = Neighbours::default();
        for partner in partners(&self.positive) {
            let (current, target) = used_nodes(&service_status[&partner], online)?;
            // Which node a moving partner counts for changed within 5.x (pve-ha-manager
            // 4826ee8, bug 6801: the target alone), so a move leaves it open.
            if target.is_some() {
                return Err(format!(
                    "its positive resource-affinity partner {partner} is moving"
                ));
            }
            if let Some(node) = current {
                *neighbours.together.entry(node).or_default() += 1;
            }
        }
        for partner in partners(&self.negative) {
            let (current, target) = used_nodes(&service_status[&partner], online)?;
            neighbours
                .separate
                .extend(current.into_iter().chain(target));
        }
        Ok(neighbours)
    }
}

/// The enabled positive sets, merged as `find_disjoint_rules_resource_sets` does: the rules in
/// the order of their lowest resource (then of their ids), each joining the first set it
/// shares a resource with.
fn merged_positive(rules: &[Value]) -> Vec<BTreeSet<String>> {
    let mut positive: Vec<(String, String, BTreeSet<String>)> = enabled(rules, "resource-affinity")
        .filter(|(rule, _)| rule["affinity"].as_str() == Some("positive"))
        .map(|(rule, resources)| {
            let lowest = resources.first().cloned().unwrap_or_default();
            (
                lowest,
                rule["rule"].as_str().unwrap_or("").to_owned(),
                resources,
            )
        })
        .collect();
    positive.sort();
    let mut merged: Vec<BTreeSet<String>> = Vec::new();
    for (_, _, resources) in positive {
        match merged.iter_mut().find(|set| !set.is_disjoint(&resources)) {
            Some(set) => set.extend(resources),
            None => merged.push(resources),
        }
    }
    merged
}

/// The members of each merged positive set that holds two resources of one enabled negative
/// rule.
fn conflicted(positive: &[BTreeSet<String>], negative: &[BTreeSet<String>]) -> BTreeSet<String> {
    positive
        .iter()
        .filter(|set| {
            negative
                .iter()
                .any(|n| set.intersection(n).nth(1).is_some())
        })
        .flatten()
        .cloned()
        .collect()
}

/// `negative`, the enabled negative sets, and the implicit ones: a resource kept apart from a member of a
/// merged positive set is kept apart from each other member
/// (`create_implicit_negative_resource_affinity_rules`).
fn with_implicit_negative(
    negative: Vec<BTreeSet<String>>,
    positive: &[BTreeSet<String>],
) -> Vec<BTreeSet<String>> {
    let mut all = negative.clone();
    for set in positive {
        let mut separated_from: BTreeMap<&String, BTreeSet<&String>> = BTreeMap::new();
        for rule in &negative {
            for sid in set.intersection(rule) {
                for csid in rule.iter().filter(|c| *c != sid) {
                    separated_from.entry(csid).or_default().insert(sid);
                }
            }
        }
        for (csid, separated) in separated_from {
            for sid in set.iter().filter(|s| !separated.contains(s)) {
                all.push([sid.clone(), csid.clone()].into());
            }
        }
    }
    all
}

/// The nodes a service uses, as the CRM counts them for affinity (`HA/Usage.pm`
/// `get_used_service_nodes`): its node while it runs there or is about to leave it, and its
/// target while it moves, each only if online. One the CRM does not list uses none.
fn used_nodes(
    service: &Value,
    online: &BTreeSet<String>,
) -> Result<(Option<String>, Option<String>), String> {
    if service.is_null() {
        return Ok((None, None));
    }
    let state = service["state"].as_str().unwrap_or("");
    let online_node = |key: &str| {
        let node = service[key].as_str()?;
        online.contains(node).then(|| node.to_owned())
    };
    match state {
        "stopped" | "request_start" => Ok((None, None)),
        "started" | "request_stop" | "fence" | "freeze" | "error" | "recovery" => {
            Ok((online_node("node"), None))
        }
        "migrate" | "relocate" => Ok((online_node("node"), online_node("target"))),
        "request_start_balance" => Ok((None, online_node("target"))),
        other => Err(format!("a resource-affinity partner is in state {other:?}")),
    }
}

/// Where a service's resource-affinity partners run: how many positive ones on each node, and
/// the nodes of the negative ones.
#[derive(Default)]
pub(crate) struct Neighbours {
    together: BTreeMap<String, usize>,
    separate: BTreeSet<String>,
}

impl Neighbours {
    /// Whether the service may stay on `node` (`is_allowed_on_node`: a positive partner there,
    /// or no negative one).
    pub(crate) fn allow(&self, node: &str) -> bool {
        self.together.contains_key(node) || !self.separate.contains(node)
    }

    /// Narrows `nodes`, the top-priority ones, as `select_service_node` does, and says why
    /// `node` was taken out, if it was: no node a negative partner uses
    /// (`apply_negative_resource_affinity`), and of those left only the one most positive
    /// partners use, if any (`apply_positive_resource_affinity`; ties to the first by name).
    /// pve-ha-manager 5.0.5 (9ff6a5e) took the negative ones out first; up to 5.0.4 (PVE 9.0)
    /// the positive majority was picked first. Where the order decides whether `node` stays
    /// in, it cannot be told.
    pub(crate) fn narrow(
        &self,
        nodes: &mut BTreeSet<String>,
        node: &str,
    ) -> Result<Option<String>, String> {
        let had = nodes.contains(node);
        let mut positive_first = nodes.clone();
        self.keep_with_majority(&mut positive_first);
        self.keep_apart(&mut positive_first);
        self.keep_apart(nodes);
        if had && !nodes.contains(node) {
            return Ok(Some(format!("a service it is kept apart from uses {node}")));
        }
        let majority = self.keep_with_majority(nodes);
        if nodes.contains(node) != positive_first.contains(node) {
            return Err(
                "whether its resource affinity lets it back depends on the CRM \
                        master's pve-ha-manager (5.0.4 and earlier weigh positive partners \
                        first)"
                    .to_owned(),
            );
        }
        Ok(majority
            .filter(|majority| had && majority != node)
            .map(|majority| format!("its positive resource-affinity partners run on {majority}")))
    }

    /// Takes out every node a negative partner uses.
    fn keep_apart(&self, nodes: &mut BTreeSet<String>) {
        nodes.retain(|n| !self.separate.contains(n));
    }

    /// Keeps only the node of `nodes` most positive partners use, if any uses one; returns it.
    fn keep_with_majority(&self, nodes: &mut BTreeSet<String>) -> Option<String> {
        let majority = self
            .together
            .iter()
            .filter(|(n, _)| nodes.contains(*n))
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(n, _)| n.clone())?;
        nodes.retain(|n| *n == majority);
        Some(majority)
    }
}
