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

// Controller HA as this estate runs it (seed 004: "controller HA via VRRP (VIP 10.10.20.1 em
// SP)", "controller_primary em labri-32"): the list holds the VIP and the controller nodes.
// One controller runs at a time (drbd-reactor `doc/promoter.md` starts it on one node only; a
// VRRP pair runs it where the VIP is), so a standby's port refuses or drops the connection.
// The answers compared are those the official spec defines for `GET /v1/controller/version`
// (`ControllerVersion`) and `GET /v1/controller/properties` (`Properties`, a string map).
// Each listener is on 127.0.0.1: wiremock controllers, a silent one, a refusing one, a hanging
// one.
mod vrrp {
    use std::time::Duration;

    use cpps_http::Url;
    use cpps_http::test_util::{MockApi, SilentListener};
    use cpps_linstor::ha::{ActiveNode, ProbeOutcome, VipState};
    use serde_json::json;

    use super::common;

    /// A controller answering its version and `properties`.
    async fn controller(properties: serde_json::Value) -> MockApi {
        let server = common::mock().await;
        common::serve_get(
            &server,
            "/v1/controller/version",
            common::version_answer("1.31.3"),
        )
        .await;
        common::serve_get(&server, "/v1/controller/properties", common::ok(properties)).await;
        server
    }

    fn properties() -> serde_json::Value {
        json!({"DrbdOptions/AutoEvictAllowEviction": "True", "DrbdOptions/Net/protocol": "C"})
    }

    /// A listener that accepts connections (the kernel completes the handshake) and never
    /// answers: a controller that hangs.
    async fn hanging() -> (tokio::net::TcpListener, Url) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        (
            listener,
            format!("http://127.0.0.1:{port}/").parse().unwrap(),
        )
    }

    fn client(urls: &[&Url]) -> cpps_linstor::Client {
        let list: Vec<&str> = urls.iter().map(|u| u.as_str()).collect();
        common::single_attempt_builder(&list.join(","))
            .connect_timeout(Duration::from_millis(500))
            .request_timeout(Duration::from_secs(1))
            .build()
            .unwrap()
    }

    #[tokio::test]
    async fn the_vip_and_the_one_answering_node_agree() {
        let vip = controller(properties()).await;
        let node = controller(properties()).await;
        let silent = SilentListener::start().await;
        let (_hanging, hanging_url) = hanging().await;
        let refusing = common::closed_port_url();
        // The VIP last: calls go to the first entry until the probe prefers the VIP.
        let urls = [
            silent.url(""),
            refusing.clone(),
            hanging_url,
            node.base_url(),
            vip.base_url(),
        ];
        let client = client(&urls.iter().collect::<Vec<_>>());
        let ha = client.probe_controllers(Some(&urls[4])).await;
        let kinds: Vec<&str> = ha
            .controllers
            .iter()
            .map(|c| match c.outcome {
                ProbeOutcome::Answered { .. } => "answered",
                ProbeOutcome::NotReached { .. } => "not reached",
                ProbeOutcome::NoAnswer { .. } => "no answer",
                ProbeOutcome::Failed { .. } => "failed",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "not reached",
                "not reached",
                "no answer",
                "answered",
                "answered"
            ]
        );
        assert!(ha.controllers[4].is_vip && !ha.controllers[3].is_vip);
        assert_eq!(
            ha.active,
            ActiveNode::One {
                url: urls[3].to_string()
            }
        );
        assert_eq!(ha.vip, VipState::Agrees);
        assert_eq!(ha.preferred(), Some(urls[4].as_str()));
        assert_eq!(client.active_controller(), &urls[4]);
    }

    #[tokio::test]
    async fn a_vip_on_another_controller_differs_and_a_dead_vip_is_passed_over() {
        let vip = controller(json!({"DrbdOptions/Net/protocol": "A"})).await;
        let node = controller(properties()).await;
        let urls = [vip.base_url(), node.base_url()];
        let ha = client(&urls.iter().collect::<Vec<_>>())
            .probe_controllers(Some(&urls[0]))
            .await;
        assert_eq!(
            ha.vip,
            VipState::Differs {
                reason: format!("the VIP and {} answer other controller properties", urls[1])
            }
        );

        let dead_vip = common::closed_port_url();
        let urls = [dead_vip, node.base_url()];
        let client = client(&urls.iter().collect::<Vec<_>>());
        let ha = client.probe_controllers(Some(&urls[0])).await;
        assert_eq!(ha.vip, VipState::NotAnswering);
        assert_eq!(ha.preferred(), Some(urls[1].as_str()));
        assert_eq!(client.active_controller(), &urls[1]);
    }

    #[tokio::test]
    async fn two_answering_nodes_cannot_be_told_apart() {
        let a = controller(properties()).await;
        let b = controller(properties()).await;
        let vip = controller(properties()).await;
        let urls = [vip.base_url(), a.base_url(), b.base_url()];
        let ha = client(&urls.iter().collect::<Vec<_>>())
            .probe_controllers(Some(&urls[0]))
            .await;
        assert_eq!(
            ha.active,
            ActiveNode::Several(vec![urls[1].to_string(), urls[2].to_string()])
        );
        assert_eq!(
            ha.vip,
            VipState::CannotTell {
                reason: "several controller nodes answer".to_owned()
            }
        );
    }
}
