//! The active controller of a drbd-reactor HA pair (issue 33, "Capabilities"): the node where
//! the controller's database resource (`linstor_db`) is Primary, as drbd-reactor's promoter
//! starts `linstor-controller.service` only there (drbd-reactor `doc/promoter.md`,
//! `doc/drbd-reactorctl.1`), and calls sent there first.

mod common;

use cpps_linstor::ha::{self, ActiveController};
use cpps_linstor::health::ClusterState;
use serde_json::{Value, json};

fn state(primaries: &[bool]) -> ClusterState {
    let nodes: Value = json!([
        {"name": "ctrl-a", "type": "COMBINED", "connection_status": "ONLINE", "props": {}, "flags": [],
         "net_interfaces": [{"name": "default", "address": "localhost"}]},
        {"name": "ctrl-b", "type": "COMBINED", "connection_status": "ONLINE", "props": {}, "flags": [],
         "net_interfaces": [{"name": "default", "address": "127.0.0.1"}]}
    ]);
    let resources: Vec<Value> = ["ctrl-a", "ctrl-b"]
        .iter()
        .zip(primaries)
        .map(|(node, primary)| {
            json!({"name": "linstor_db", "node_name": node, "props": {}, "flags": [],
                   "state": {"in_use": primary}, "volumes": []})
        })
        .collect();
    ClusterState {
        nodes: serde_json::from_value(nodes).unwrap(),
        resources: serde_json::from_value(Value::Array(resources)).unwrap(),
        ..ClusterState::default()
    }
}

#[test]
fn the_active_controller_is_where_its_database_is_primary() {
    assert_eq!(
        ha::active_controller(&state(&[false, true]), ha::DEFAULT_CONTROLLER_RESOURCE),
        ActiveController::Node {
            node: "ctrl-b".to_owned(),
            addresses: vec!["127.0.0.1".to_owned()]
        }
    );
    assert_eq!(
        ha::active_controller(&state(&[false, false]), "linstor_db"),
        ActiveController::NotInUse
    );
    assert_eq!(
        ha::active_controller(&state(&[true, true]), "linstor_db"),
        ActiveController::Several(vec!["ctrl-a".to_owned(), "ctrl-b".to_owned()])
    );
    assert_eq!(
        ha::active_controller(&state(&[true, false]), "other_db"),
        ActiveController::NoResource
    );
    assert!(ActiveController::NotInUse.hosts().is_empty());
}

// Both controllers answer (a standby that still runs a controller, or one behind a proxy); the
// first in the list would be asked first. Preferring the active node's address sends the call to
// the second, and the first is never asked.
#[tokio::test]
async fn calls_go_to_the_active_controller_first() {
    let first = common::mock().await;
    let second = common::mock().await;
    common::serve_version(&first, "standby", 0).await;
    common::serve_version(&second, "active", 1).await;
    let first_url = format!("http://localhost:{}/", first.base_url().port().unwrap());
    let client = common::client_for(&[first_url.parse().unwrap(), second.base_url()]);
    let active = ha::active_controller(&state(&[false, true]), "linstor_db");
    let chosen = client.prefer_controller(&active.hosts()).cloned();
    assert_eq!(chosen.as_ref(), Some(&second.base_url()));
    assert_eq!(client.active_controller(), &second.base_url());
    assert_eq!(
        common::answered_version(&client).await.as_deref(),
        Some("active")
    );
    // No match changes nothing.
    assert_eq!(client.prefer_controller(&["ctrl-z"]), None);
    assert_eq!(client.active_controller(), &second.base_url());
    first.verify().await;
    second.verify().await;
}
