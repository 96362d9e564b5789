//! Writes as values: a [`Plan`] says exactly which request a change sends, so that it can be
//! shown, reviewed and stored before [`Client::apply`](crate::Client::apply) sends it.

use std::collections::BTreeMap;
use std::fmt;

use cpps_http::{Method, Request, encode_segment};
use serde::Serialize;
use serde_json::{Value, json};

use crate::error::Error;
use crate::names::{NodeName, ResourceGroupName, ResourceName, SnapshotName};

/// One write request, described before it is sent.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Plan {
    /// What the request does, in words.
    pub description: String,
    /// HTTP method.
    #[serde(serialize_with = "serialize_method")]
    pub method: Method,
    /// Path relative to the controller's base URL (`v1/…`).
    pub path: String,
    /// Query parameters.
    pub query: Vec<(String, String)>,
    /// JSON body.
    pub body: Option<Value>,
}

fn serialize_method<S: serde::Serializer>(method: &Method, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(method.as_str())
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} /{}", self.description, self.method, self.path)?;
        for (i, (key, value)) in self.query.iter().enumerate() {
            write!(f, "{}{key}={value}", if i == 0 { '?' } else { '&' })?;
        }
        if let Some(body) = &self.body {
            write!(f, " {body}")?;
        }
        Ok(())
    }
}

impl Plan {
    fn new(description: String, method: Method, path: String, body: Option<Value>) -> Self {
        Plan {
            description,
            method,
            path,
            query: Vec::new(),
            body,
        }
    }

    /// The request this plan sends.
    pub fn to_request(&self) -> Result<Request, Error> {
        let mut request = Request::new(self.method.clone(), self.path.clone());
        for (key, value) in &self.query {
            request = request.query(key.clone(), value);
        }
        if let Some(body) = &self.body {
            request = request.json(body)?;
        }
        Ok(request)
    }

    /// `POST /v1/resource-definitions/{resource}/snapshots`: takes snapshot `snapshot` of
    /// `resource` on `nodes` (all nodes of the resource when empty).
    pub fn snapshot_create(
        resource: &ResourceName,
        snapshot: &SnapshotName,
        nodes: &[NodeName],
    ) -> Plan {
        let mut body = json!({ "name": snapshot.as_str() });
        if !nodes.is_empty() {
            body["nodes"] = json!(nodes.iter().map(NodeName::as_str).collect::<Vec<_>>());
        }
        Plan::new(
            format!("create snapshot {snapshot} of resource {resource}"),
            Method::POST,
            format!(
                "v1/resource-definitions/{}/snapshots",
                encode_segment(resource.as_str())
            ),
            Some(body),
        )
    }

    /// `DELETE /v1/resource-definitions/{resource}/snapshots/{snapshot}`: deletes a snapshot
    /// (on `nodes` only, when given).
    pub fn snapshot_delete(
        resource: &ResourceName,
        snapshot: &SnapshotName,
        nodes: &[NodeName],
    ) -> Plan {
        let mut plan = Plan::new(
            format!("delete snapshot {snapshot} of resource {resource}"),
            Method::DELETE,
            format!(
                "v1/resource-definitions/{}/snapshots/{}",
                encode_segment(resource.as_str()),
                encode_segment(snapshot.as_str())
            ),
            None,
        );
        plan.query = nodes
            .iter()
            .map(|n| ("nodes".to_owned(), n.to_string()))
            .collect();
        plan
    }

    /// `POST /v1/resource-definitions/{resource}/snapshot-rollback/{snapshot}`: rolls
    /// `resource` back to `snapshot`, discarding every later write.
    pub fn snapshot_rollback(resource: &ResourceName, snapshot: &SnapshotName) -> Plan {
        Plan::new(
            format!("roll resource {resource} back to snapshot {snapshot}"),
            Method::POST,
            format!(
                "v1/resource-definitions/{}/snapshot-rollback/{}",
                encode_segment(resource.as_str()),
                encode_segment(snapshot.as_str())
            ),
            Some(json!({})),
        )
    }

    /// The three requests of a restore of snapshot `snapshot` of `resource` into a new
    /// resource `target`, in order: `POST /v1/resource-definitions` (the target, in
    /// `resource_group` so that it keeps the source group's `place_count`, layer stack and DRBD
    /// options; the controller's `DfltRscGrp` when `None`),
    /// `POST /v1/resource-definitions/{resource}/snapshot-restore-volume-definition/{snapshot}`
    /// and `POST /v1/resource-definitions/{resource}/snapshot-restore-resource/{snapshot}` (on
    /// `nodes`, or where the snapshot is when empty).
    /// [`Client::restore_snapshot`](crate::Client::restore_snapshot) sends them and cleans up
    /// after a failure.
    pub fn snapshot_restore(
        resource: &ResourceName,
        snapshot: &SnapshotName,
        target: &ResourceName,
        resource_group: Option<&ResourceGroupName>,
        nodes: &[NodeName],
    ) -> Vec<Plan> {
        let base = format!(
            "v1/resource-definitions/{}",
            encode_segment(resource.as_str())
        );
        let snap = encode_segment(snapshot.as_str());
        let mut restore = json!({ "to_resource": target.as_str() });
        if !nodes.is_empty() {
            restore["nodes"] = json!(nodes.iter().map(NodeName::as_str).collect::<Vec<_>>());
        }
        let mut definition = json!({ "name": target.as_str() });
        let in_group = match resource_group {
            Some(group) => {
                definition["resource_group_name"] = json!(group.as_str());
                format!(" in resource group {group}")
            }
            None => String::new(),
        };
        vec![
            Plan::new(
                format!("create resource definition {target}{in_group} for the restore"),
                Method::POST,
                "v1/resource-definitions".to_owned(),
                Some(json!({ "resource_definition": definition })),
            ),
            Plan::new(
                format!(
                    "restore the volume definitions of snapshot {snapshot} of {resource} into {target}"
                ),
                Method::POST,
                format!("{base}/snapshot-restore-volume-definition/{snap}"),
                Some(json!({ "to_resource": target.as_str() })),
            ),
            Plan::new(
                format!("restore snapshot {snapshot} of {resource} into resource {target}"),
                Method::POST,
                format!("{base}/snapshot-restore-resource/{snap}"),
                Some(restore),
            ),
        ]
    }

    /// `DELETE /v1/resource-definitions/{resource}`: deletes a resource definition with its
    /// volume definitions and resources.
    pub fn resource_definition_delete(resource: &ResourceName) -> Plan {
        Plan::new(
            format!("delete resource definition {resource}"),
            Method::DELETE,
            format!(
                "v1/resource-definitions/{}",
                encode_segment(resource.as_str())
            ),
            None,
        )
    }

    /// `PUT /v1/resource-groups/{group}`: sets the group's `place_count`, with a filter of that
    /// field alone.
    ///
    /// The server does not leave the rest of the filter alone: its JSON model defaults
    /// `node_name_list` to an empty list, not to "absent" (linstor-server `JsonGenTypes.java`
    /// `AutoSelectFilter`), and `AutoSelectorConfig.applyChanges` replaces every list that is
    /// not null. So this plan **clears the group's node list**; the other lists default to null
    /// and are kept. [`Plan::resource_group_place_count_keeping_nodes`] sends the list back,
    /// and [`Client::set_place_count`](crate::Client::set_place_count) uses it.
    pub fn resource_group_place_count(
        group: &ResourceGroupName,
        place_count: u32,
    ) -> Result<Plan, Error> {
        Plan::resource_group_place_count_keeping_nodes(group, place_count, &[])
    }

    /// `PUT /v1/resource-groups/{group}`: sets the group's `place_count` and sends
    /// `current_nodes`, the group's `node_name_list` as last read (empty when it has none), back
    /// with it, because a filter without that list clears it (see
    /// [`Plan::resource_group_place_count`]).
    pub fn resource_group_place_count_keeping_nodes(
        group: &ResourceGroupName,
        place_count: u32,
        current_nodes: &[String],
    ) -> Result<Plan, Error> {
        if place_count == 0 || place_count > 31 {
            return Err(Error::InvalidArgument {
                name: "place_count",
                reason: format!("{place_count} is outside 1..=31 (DRBD's peer limit)"),
            });
        }
        let mut filter = json!({ "place_count": place_count });
        if !current_nodes.is_empty() {
            filter["node_name_list"] = json!(current_nodes);
        }
        Ok(Plan::new(
            format!("set place_count of resource group {group} to {place_count}"),
            Method::PUT,
            format!("v1/resource-groups/{}", encode_segment(group.as_str())),
            Some(json!({ "select_filter": filter })),
        ))
    }

    /// `PUT /v1/nodes/{node}/evacuate`: moves the node's DRBD resources elsewhere and deletes
    /// them there once synced, and sets the node `EVACUATE` (no new resources). `target`, when
    /// not empty, are the only nodes allowed to take them; `do_not_target` are excluded (the
    /// spec's `NodeEvacuate`). [`crate::evacuate::plan`] says what it will do.
    pub fn node_evacuate(node: &NodeName, target: &[NodeName], do_not_target: &[NodeName]) -> Plan {
        let mut body = json!({});
        if !target.is_empty() {
            body["target"] = json!(target.iter().map(NodeName::as_str).collect::<Vec<_>>());
        }
        if !do_not_target.is_empty() {
            body["do_not_target"] = json!(
                do_not_target
                    .iter()
                    .map(NodeName::as_str)
                    .collect::<Vec<_>>()
            );
        }
        Plan::new(
            format!("evacuate node {node}"),
            Method::PUT,
            format!("v1/nodes/{}/evacuate", encode_segment(node.as_str())),
            Some(body),
        )
    }

    /// `PUT /v1/nodes/{node}`: sets (`set`) and deletes (`delete`) properties of a node.
    pub fn node_set_properties(
        node: &NodeName,
        set: &BTreeMap<String, String>,
        delete: &[String],
    ) -> Result<Plan, Error> {
        Ok(Plan::new(
            format!("change properties of node {node}"),
            Method::PUT,
            format!("v1/nodes/{}", encode_segment(node.as_str())),
            Some(props_modify(set, delete)?),
        ))
    }

    /// `POST /v1/controller/properties`: sets (`set`) and deletes (`delete`) controller
    /// properties (for example the `DrbdOptions/AutoEvict*` family).
    pub fn controller_set_properties(
        set: &BTreeMap<String, String>,
        delete: &[String],
    ) -> Result<Plan, Error> {
        Ok(Plan::new(
            "change controller properties".to_owned(),
            Method::POST,
            "v1/controller/properties".to_owned(),
            Some(props_modify(set, delete)?),
        ))
    }
}

fn props_modify(set: &BTreeMap<String, String>, delete: &[String]) -> Result<Value, Error> {
    if set.is_empty() && delete.is_empty() {
        return Err(Error::InvalidArgument {
            name: "properties",
            reason: "nothing to set or delete".to_owned(),
        });
    }
    if let Some(key) = set
        .keys()
        .chain(delete.iter())
        .find(|k| k.trim().is_empty())
    {
        return Err(Error::InvalidArgument {
            name: "properties",
            reason: format!("empty property key `{key}`"),
        });
    }
    let mut body = serde_json::Map::new();
    if !set.is_empty() {
        body.insert("override_props".to_owned(), json!(set));
    }
    if !delete.is_empty() {
        body.insert("delete_props".to_owned(), json!(delete));
    }
    Ok(Value::Object(body))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_describe_the_request() {
        let rsc = ResourceName::new("vm-100-disk-1").unwrap();
        let snap = SnapshotName::new("before-upgrade").unwrap();
        let node = NodeName::new("pve-ippri-31").unwrap();
        let plan = Plan::snapshot_create(&rsc, &snap, std::slice::from_ref(&node));
        assert_eq!(
            plan.to_string(),
            r#"create snapshot before-upgrade of resource vm-100-disk-1: POST /v1/resource-definitions/vm-100-disk-1/snapshots {"name":"before-upgrade","nodes":["pve-ippri-31"]}"#
        );
        let delete = Plan::snapshot_delete(&rsc, &snap, &[node]);
        assert_eq!(delete.method, Method::DELETE);
        assert_eq!(
            delete.query,
            vec![("nodes".to_owned(), "pve-ippri-31".to_owned())]
        );
        let group = ResourceGroupName::new("sp-ssd").unwrap();
        assert!(Plan::resource_group_place_count(&group, 0).is_err());
        let rg = Plan::resource_group_place_count(&group, 3).unwrap();
        assert_eq!(rg.body, Some(json!({"select_filter": {"place_count": 3}})));
        assert!(Plan::controller_set_properties(&BTreeMap::new(), &[]).is_err());
    }
}
