//! Whether a started HA resource goes back to the node it left for maintenance.
//!
//! The CRM's `next_state_started` (pve-ha-manager `src/PVE/HA/Manager.pm`) asks
//! `select_service_node` where each started service belongs. With failback off it stays where
//! it is, if its placement allows that node. Else it goes back to its `maintenance_node` only
//! when that node is among the top-priority online nodes of its placement:
//! - on a 4.0.x CRM master (PVE 8), the group's `nodes` (`pve1:2,pve2`,
//!   `get_node_priority_groups`);
//! - on a 5.x master (PVE 9), the node-affinity rule's (`HA/Rules/NodeAffinity.pm`
//!   `get_node_affinity`; groups are taken as rules by `HA/Groups.pm`
//!   `migrate_groups_to_rules`).
//!
//! An unrestricted group or a non-strict rule adds the other nodes at priority -1, and a service
//! in neither may run on every online node. A 5.x master also weighs the resource-affinity
//! rules ([`crate::affinity`]): it keeps a service off a node its negative partners use, and
//! with its positive partners, both where it stays with failback off and where it goes back.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::HaRead;
use crate::affinity::{Neighbours, Rules};
use crate::perl_bool;

/// Where a started service with `maintenance_node` set is headed.
pub(super) enum Failback {
    /// It goes back to its maintenance node once that node is online.
    Back,
    /// It stays where it is: its failback is off, and its placement allows that node.
    Kept,
    /// It stays off it, for the reason given.
    Stays(String),
}

/// Whether `sid`, now on `current`, goes back to `node`, its maintenance node, or why that
/// cannot be told.
pub(super) fn failback(
    read: &HaRead<'_>,
    sid: &str,
    node: &str,
    current: &str,
) -> Result<Failback, String> {
    let resource = read.resource(sid)?;
    let online = online_with(&read.status, node);
    let (placement, caveat) = placement(read, resource, sid)?;
    let neighbours = neighbours(read, sid, &online)?;
    // With failback off `select_service_node` keeps it where it is only where it may run: a
    // member of its group (4.0.x), an allowed node its resource affinity allows (5.x
    // `Rules/ResourceAffinity.pm` `is_allowed_on_node`); else it picks anew.
    if !failback_on(read, resource)?
        && placement.allows(current, &online)
        && neighbours.allow(current)
    {
        // The rules unseen: a resource-affinity rule may rule the node out.
        if let Some(caveat) = caveat {
            return Err(caveat);
        }
        return Ok(Failback::Kept);
    }
    let mut top = placement.top(&online);
    let ruled_out = neighbours.narrow(&mut top, node)?;
    if top.contains(node) {
        return Ok(Failback::Back);
    }
    if let Some(caveat) = caveat {
        return Err(caveat);
    }
    if let Some(why) = ruled_out {
        return Ok(Failback::Stays(why));
    }
    let top: Vec<&str> = top.iter().map(String::as_str).collect();
    Ok(Failback::Stays(format!(
        "{node} is not among its top-priority nodes in {}: {}",
        placement.source,
        top.join(", ")
    )))
}

/// Where the resource-affinity partners of `sid` run, as a 5.x CRM master weighs them
/// ([`Rules::neighbours`]): none under an 8.x master, which has no such rules, nor where the
/// answering node shows no rules ([`placement_9`] then says what may be unseen).
fn neighbours(
    read: &HaRead<'_>,
    sid: &str,
    online: &BTreeSet<String>,
) -> Result<Neighbours, String> {
    let rules = match (&read.master_major, &read.rules) {
        (Ok(major), _) if *major < 9 => return Ok(Neighbours::default()),
        (_, Ok(None)) => return Ok(Neighbours::default()),
        (_, Err(why)) => return Err(format!("a resource-affinity rule may place it: {why}")),
        (_, Ok(Some(rules))) => Rules::of(rules),
    };
    if !rules.has_affinity(sid) {
        return Ok(Neighbours::default());
    }
    if let Err(why) = &read.master_major {
        return Err(format!(
            "a resource-affinity rule names it, which only a 9.x CRM weighs, and {why}"
        ));
    }
    let service_status = &read.status["manager_status"]["service_status"];
    rules.neighbours(service_status, sid, online)
}

/// Where the CRM master places the resource ([`placement_8`], [`placement_9`]), with why a
/// "stays" cannot be trusted, if it cannot. With the master's release unknown, only a
/// placement both releases agree on.
fn placement(
    read: &HaRead<'_>,
    resource: &Value,
    sid: &str,
) -> Result<(Placement, Option<String>), String> {
    match &read.master_major {
        Ok(major) if *major >= 9 => placement_9(read, resource, sid),
        Ok(_) => Ok((placement_8(read, resource)?, None)),
        Err(why) => {
            let p8 = placement_8(read, resource)?;
            let (p9, caveat) = placement_9(read, resource, sid)?;
            if (&p8.nodes, p8.strict) != (&p9.nodes, p9.strict) {
                return Err(format!(
                    "where it belongs depends on the CRM's release: {why}"
                ));
            }
            Ok((p8, caveat))
        }
    }
}

/// Whether the resource's failback is on: its group's `nofailback` when it has a group
/// (`HA/Groups.pm`; 5.x's `HA/Manager.pm` sets a grouped resource's failback from it with
/// `migrate_groups_to_resources`, whatever the resource says), else its `failback`
/// (pve-ha-manager 5.x `HA/Resources.pm`, default 1), which a CRM master on 8.x ignores: its
/// `select_service_node` (pve-ha-manager 4.0.x) knows only a group's.
fn failback_on(read: &HaRead<'_>, resource: &Value) -> Result<bool, String> {
    if let Some(group) = resource["group"].as_str() {
        // A group that no longer exists leaves failback on (`Groups.pm`
        // `migrate_groups_to_resources`).
        let nofailback = group_named(read, group)?.and_then(|g| perl_bool(g, "nofailback"));
        return Ok(nofailback != Some(true));
    }
    // An 8.x CRM knows only a group's `nofailback`.
    if matches!(read.master_major, Ok(major) if major < 9) {
        return Ok(true);
    }
    // A node with no rules API runs 8.x, whose resource list drops `failback`: 4.0.x
    // `HA/Resources.pm` has no such property, and pve-common `SectionConfig.pm` `parse_config`
    // skips one it does not know.
    if matches!(read.rules, Ok(None)) {
        return Err(
            "the node that answered runs PVE 8, whose HA resource list leaves out \
                    `failback`: point --after at a node that runs 9"
                .to_owned(),
        );
    }
    if perl_bool(resource, "failback") != Some(false) {
        return Ok(true);
    }
    match &read.master_major {
        Ok(_) => Ok(false),
        Err(why) => Err(format!(
            "its failback is off, which an 8.x CRM ignores, and {why}"
        )),
    }
}

/// The group named `group`, `None` when it does not exist, or why the groups are unread.
fn group_named<'r>(read: &'r HaRead<'_>, group: &str) -> Result<Option<&'r Value>, String> {
    let groups = read.groups.as_ref().map_err(|e| {
        format!(
            "its group {group} decides whether it goes back, and the groups could not be read ({e})"
        )
    })?;
    Ok(groups.iter().find(|g| g["group"].as_str() == Some(group)))
}

/// The nodes a service may run on, with their priorities, and where that was read.
struct Placement {
    /// Its nodes and their priorities; empty for a service placed nowhere in particular.
    nodes: BTreeMap<String, i64>,
    /// Whether only those nodes may run it (a restricted group, a strict rule).
    strict: bool,
    /// What placed it: "group prefer-pve1", "rule db-on-fast", "no group or rule".
    source: String,
}

impl Placement {
    /// Every online node at one priority (`get_service_group` with no group on 4.0.x,
    /// `get_node_affinity` with no rule on 5.x).
    fn anywhere() -> Self {
        Placement {
            nodes: BTreeMap::new(),
            strict: false,
            source: "no group or rule".to_owned(),
        }
    }

    /// From a group's or rule's `nodes` (`pve1:2,pve2`, [`crate::node_priorities`]).
    fn of(nodes: &str, strict: bool, source: String) -> Self {
        Placement {
            nodes: crate::node_priorities(nodes),
            strict,
            source,
        }
    }

    /// Whether it may run on `node`, an online one.
    fn allows(&self, node: &str, online: &BTreeSet<String>) -> bool {
        online.contains(node)
            && (self.nodes.is_empty() || !self.strict || self.nodes.contains_key(node))
    }

    /// The online nodes of the highest priority among those it may run on.
    fn top(&self, online: &BTreeSet<String>) -> BTreeSet<String> {
        let mut priority: BTreeMap<&str, i64> = BTreeMap::new();
        for node in online {
            match self.nodes.get(node) {
                Some(p) => priority.insert(node, *p),
                None if self.nodes.is_empty() => priority.insert(node, 0),
                None if !self.strict => priority.insert(node, -1),
                None => None,
            };
        }
        let Some(&best) = priority.values().max() else {
            return BTreeSet::new();
        };
        priority
            .into_iter()
            .filter(|(_, p)| *p == best)
            .map(|(node, _)| node.to_owned())
            .collect()
    }
}

/// Where a 4.0.x CRM (PVE 8) places the resource: its group, else anywhere
/// (`get_service_group`: a group that does not exist is no group).
fn placement_8(read: &HaRead<'_>, resource: &Value) -> Result<Placement, String> {
    let Some(name) = resource["group"].as_str() else {
        return Ok(Placement::anywhere());
    };
    Ok(match group_named(read, name)? {
        Some(group) => Placement::of(
            group["nodes"].as_str().unwrap_or(""),
            perl_bool(group, "restricted") == Some(true),
            format!("group {name}"),
        ),
        None => Placement::anywhere(),
    })
}

/// Where a 5.x CRM (PVE 9) places the resource: the one node-affinity rule that places it, its
/// own or its positive resource-affinity partners' ([`Rules::node_affinity_of`]), a group
/// being such a rule (the rules index lists it as `ha-group-NAME`, `API2/HA/Rules.pm`
/// `index`), with why a "stays" cannot be trusted.
///
/// Where the answering node has no rules API (PVE 8) the group decides while groups exist,
/// since 9.x's `API2/HA/Rules.pm` `create` refuses rules while one does
/// (`HA/Config.pm` `have_groups_been_migrated`). Only "stays" is then in doubt: a group made
/// on an 8.x node after a rule was taken would make the CRM drop both (`HA/Rules.pm`
/// `check_single_resource_reference`), and the service may run anywhere.
fn placement_9(
    read: &HaRead<'_>,
    resource: &Value,
    sid: &str,
) -> Result<(Placement, Option<String>), String> {
    let rules = match &read.rules {
        Ok(Some(rules)) => rules,
        Ok(None) if read.groups.as_ref().is_ok_and(|g| !g.is_empty()) => {
            let caveat = "the node that answered has no HA rules API (PVE 8), so a rule the CRM \
                          may place it by cannot be seen: point --after at a node that runs 9";
            return Ok((placement_8(read, resource)?, Some(caveat.to_owned())));
        }
        Ok(None) => {
            return Err(
                "the node that answered has no HA rules API (PVE 8) and no HA group is \
                        left, so a rule may place it: point --after at a node that runs 9"
                    .to_owned(),
            );
        }
        Err(why) => return Err(format!("a node-affinity rule may place it: {why}")),
    };
    match Rules::of(rules).node_affinity_of(sid)? {
        None => Ok((Placement::anywhere(), None)),
        Some(rule) => Ok((
            Placement::of(
                rule["nodes"].as_str().unwrap_or(""),
                perl_bool(rule, "strict") == Some(true),
                format!("rule {}", rule["rule"].as_str().unwrap_or("?")),
            ),
            None,
        )),
    }
}

/// The nodes the CRM holds `online` (`HA/NodeStatus.pm` `list_online_nodes`), and `node`,
/// whose return is what is asked.
fn online_with(status: &Value, node: &str) -> BTreeSet<String> {
    let mut online: BTreeSet<String> = status["manager_status"]["node_status"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, state)| state.as_str() == Some("online"))
        .map(|(name, _)| name.clone())
        .collect();
    online.insert(node.to_owned());
    online
}
