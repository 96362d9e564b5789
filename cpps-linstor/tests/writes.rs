//! Writes: warnings on success, error answers, request bodies, against wiremock.

mod common;

use std::collections::BTreeMap;

use cpps_linstor::types::rc::{RcKind, RcObject, RcOperation};
use cpps_linstor::{Error, Plan, codes};
use wiremock::ResponseTemplate;
use wiremock::matchers::{body_json, query_param};

use common::{mock, mock_client};

// A snapshot created while one satellite is offline: the controller answers 201 with a success
// and a `WARN_NOT_CONNECTED` (1002 | MASK_WARN, here with MASK_CRT | MASK_SNAPSHOT). golinstor
// drops such warnings; this client returns them. Bits per LINSTOR's ApiConsts.
#[tokio::test]
async fn warnings_on_success_reach_the_caller() {
    let server = mock().await;
    common::mount_once(
        &server,
        common::controller_call("POST", "/v1/resource-definitions/vm-100-disk-0/snapshots")
            .and(body_json(serde_json::json!({"name": "before-upgrade", "nodes": ["pve-ippri-11", "pve-ippri-12"]}))),
        common::json_answer(
            201,
            serde_json::json!([
                {"ret_code": 17563649, "message": "New snapshot 'before-upgrade' of resource 'vm-100-disk-0' registered.",
                 "details": "Snapshot 'before-upgrade' of resource 'vm-100-disk-0' UUID is: 2f0d5c1e-7a38-4f5e-9d0a-8b6c4e3f2a10",
                 "obj_refs": {"RscDfn": "vm-100-disk-0", "SnapshotName": "before-upgrade"}},
                {"ret_code": -9223372036837211158_i64, "message": "No connection to satellite 'pve-ippri-12'",
                 "details": "The snapshot will be taken when the satellite reconnects.",
                 "obj_refs": {"Node": "pve-ippri-12"}}
            ]),
        ),
    )
    .await;
    let client = mock_client(&server);
    let answer = client
        .create_snapshot(
            &"vm-100-disk-0".parse().unwrap(),
            &"before-upgrade".parse().unwrap(),
            &[
                "pve-ippri-11".parse().unwrap(),
                "pve-ippri-12".parse().unwrap(),
            ],
        )
        .await
        .expect("a warning is not an error");
    assert!(answer.has_warnings());
    assert!(!answer.has_errors());
    let warning = answer.warnings().next().unwrap();
    assert_eq!(warning.code(), codes::WARN_NOT_CONNECTED);
    assert_eq!(warning.object(), RcObject::Snapshot);
    assert_eq!(warning.operation(), RcOperation::Create);
    assert_eq!(
        warning.obj_refs.get("Node").map(String::as_str),
        Some("pve-ippri-12")
    );
    let success = &answer.messages()[0];
    assert_eq!(success.kind(), RcKind::Success);
    assert_eq!(success.code(), codes::CREATED);
    assert_eq!(
        success.obj_refs.get("SnapshotName").map(String::as_str),
        Some("before-upgrade")
    );
    assert_eq!(answer.worst(), Some(RcKind::Warning));
    server.verify().await;
}

// The ret_code -4611686018406153244 is MASK_ERROR | MASK_CRT | MASK_RSC_GRP |
// FAIL_NOT_ENOUGH_NODES (996); message and details as in LINBIT/linstor-server#494 and #95.
// The spec announces a single `ApiCallRc` object for 500 (`OperationFailed`); controllers send
// an array, and both decode.
#[tokio::test]
async fn not_enough_nodes_is_a_typed_error_with_every_field() {
    let server = mock().await;
    let rc = serde_json::json!({
        "ret_code": -4611686018406153244_i64,
        "message": "Not enough available nodes",
        "details": "Not enough nodes fulfilling the following auto-place criteria:\n * has a deployed storage pool named [ssd-pool]\n * the storage pools have to have at least '10485760' free space\n * the current access context has enough privileges to use the node and the storage pool\n * the node is online\n\nAuto-place configuration details:\n   Replica count: 3\n   Storage pool name:\n      ssd-pool\n   Layer stack:\n      DRBD\n      STORAGE\n   Diskless on remaining: false\n",
        "error_report_ids": ["6A1F2C3D-00000-000042"],
        "obj_refs": {"RscGrp": "sp-ssd"},
        "created_at": "2026-06-02T10:11:12.000Z"
    });
    // `set_place_count` reads the group first (N4); these groups have no node list.
    common::serve_get(
        &server,
        "/v1/resource-groups",
        common::ok(common::fixture("resource_groups.json")),
    )
    .await;
    common::mount_once(
        &server,
        common::controller_call("PUT", "/v1/resource-groups/sp-ssd").and(body_json(
            serde_json::json!({"select_filter": {"place_count": 3}}),
        )),
        common::json_answer(500, serde_json::json!([rc.clone()])),
    )
    .await;
    common::mount_once(
        &server,
        common::controller_call("PUT", "/v1/resource-groups/sp-ssd-3"),
        common::json_answer(500, rc),
    )
    .await;
    let client = mock_client(&server);
    for group in ["sp-ssd", "sp-ssd-3"] {
        let err = client
            .set_place_count(&group.parse().unwrap(), 3)
            .await
            .expect_err("the controller refused");
        assert!(matches!(err, Error::Api { .. }), "{err:?}");
        assert_eq!(err.status().map(|s| s.as_u16()), Some(500));
        assert!(err.has_error_code(codes::FAIL_NOT_ENOUGH_NODES));
        let first = err.first_api_error().unwrap();
        assert_eq!(first.object(), RcObject::ResourceGroup);
        assert_eq!(first.operation(), RcOperation::Create);
        assert!(
            !first.is_warning() && !first.is_info(),
            "an error is not a warning nor an info"
        );
        assert_eq!(
            first.error_report_ids,
            vec!["6A1F2C3D-00000-000042".to_owned()]
        );
        assert!(
            first
                .details
                .as_deref()
                .unwrap()
                .contains("Replica count: 3")
        );
        assert_eq!(
            first.obj_refs.get("RscGrp").map(String::as_str),
            Some("sp-ssd")
        );
        assert!(
            err.to_string().contains("Not enough available nodes"),
            "{err}"
        );
    }
    server.verify().await;
}

// A 200 answer whose list holds an error is still an error: writes are judged by their
// messages, not only by the status.
#[tokio::test]
async fn an_error_message_in_a_success_status_is_an_error() {
    let server = mock().await;
    // The answer's ret_code: MASK_ERROR | MASK_DEL | MASK_SNAPSHOT | FAIL_NOT_FOUND_SNAPSHOT_DFN
    // (313).
    common::mount_once(
        &server,
        common::controller_call(
            "DELETE",
            "/v1/resource-definitions/vm-100-disk-0/snapshots/gone",
        )
        .and(query_param("nodes", "pve-ippri-11")),
        common::rc_answer(
            200,
            -4611686018376269511,
            "Snapshot definition 'gone' of resource 'vm-100-disk-0' not found.",
        ),
    )
    .await;
    let err = mock_client(&server)
        .delete_snapshot(
            &"vm-100-disk-0".parse().unwrap(),
            &"gone".parse().unwrap(),
            &["pve-ippri-11".parse().unwrap()],
        )
        .await
        .expect_err("error message");
    assert!(err.has_error_code(codes::FAIL_NOT_FOUND_SNAPSHOT_DEFINITION));
    assert_eq!(
        err.first_api_error().unwrap().operation(),
        RcOperation::Delete
    );
    assert_eq!(err.status().map(|s| s.as_u16()), Some(200));
    server.verify().await;
}

/// A `MODIFIED`-style success answer (ret_code 17563651) with this status.
fn modified(status: u16) -> ResponseTemplate {
    common::rc_answer(status, 17563651, "ok")
}

/// The source definition of the restores below, in group `sp-ssd`.
async fn serve_source_definition(server: &cpps_http::test_util::MockApi) {
    common::mount(
        server,
        common::controller_call("GET", "/v1/resource-definitions")
            .and(query_param("resource_definitions", "vm-100-disk-0")),
        common::json_answer(
            200,
            serde_json::json!([
                {"name": "vm-100-disk-0", "resource_group_name": "sp-ssd", "props": {}, "flags": []}
            ]),
        ),
    )
    .await;
}

// Restoring runs three requests in order, as the `linstor snapshot resource restore` command
// does, the target created in the source's group (issue 16, defect 5: a definition created
// without `resource_group_name` lands in `DfltRscGrp` and loses the group's place_count and
// DRBD options; `ResourceDefinition.resource_group_name` in the spec's
// `ResourceDefinitionCreate`); rollback and property changes send the bodies the spec defines.
#[tokio::test]
async fn restore_rollback_and_properties_send_the_spec_bodies() {
    let server = mock().await;
    serve_source_definition(&server).await;
    let ok = || modified(200);
    for (verb, route, body) in [
        (
            "POST",
            "/v1/resource-definitions",
            serde_json::json!({"resource_definition": {"name": "vm-100-restored", "resource_group_name": "sp-ssd"}}),
        ),
        (
            "POST",
            "/v1/resource-definitions/vm-100-disk-0/snapshot-restore-volume-definition/snap1",
            serde_json::json!({"to_resource": "vm-100-restored"}),
        ),
        (
            "POST",
            "/v1/resource-definitions/vm-100-disk-0/snapshot-restore-resource/snap1",
            serde_json::json!({"to_resource": "vm-100-restored", "nodes": ["pve-ippri-11"]}),
        ),
        (
            "POST",
            "/v1/resource-definitions/vm-100-disk-0/snapshot-rollback/snap1",
            serde_json::json!({}),
        ),
        (
            "PUT",
            "/v1/nodes/pve-ippri-34",
            serde_json::json!({"override_props": {"PrefNic": "data"}, "delete_props": ["Aux/old"]}),
        ),
        (
            "POST",
            "/v1/controller/properties",
            serde_json::json!({"override_props": {"DrbdOptions/AutoEvictAfterTime": "120"}}),
        ),
    ] {
        common::mount_once(
            &server,
            common::controller_call(verb, route).and(body_json(body)),
            ok(),
        )
        .await;
    }
    let client = mock_client(&server);
    let rsc = "vm-100-disk-0".parse().unwrap();
    let snap = "snap1".parse().unwrap();
    let answers = client
        .restore_snapshot(
            &rsc,
            &snap,
            &"vm-100-restored".parse().unwrap(),
            &["pve-ippri-11".parse().unwrap()],
        )
        .await
        .unwrap();
    assert_eq!(answers.len(), 3);
    client.rollback_snapshot(&rsc, &snap).await.unwrap();
    let set: BTreeMap<String, String> = [("PrefNic".to_owned(), "data".to_owned())].into();
    client
        .set_node_properties(
            &"pve-ippri-34".parse().unwrap(),
            &set,
            &["Aux/old".to_owned()],
        )
        .await
        .unwrap();
    let evict: BTreeMap<String, String> = [(
        "DrbdOptions/AutoEvictAfterTime".to_owned(),
        "120".to_owned(),
    )]
    .into();
    let answer = client.set_controller_properties(&evict, &[]).await.unwrap();
    assert_eq!(answer.messages()[0].code(), codes::MODIFIED);
    server.verify().await;
    server.assert_no_unexpected_requests();
}

// N4 (audit 33): a filter of `place_count` alone clears the group's `node_name_list`.
// linstor-server `JsonGenTypes.java` `AutoSelectFilter` defaults `node_name_list` to an empty
// list (the other lists to null); `ResourceGroups.selectFilterToApi` passes it on and
// `AutoSelectorConfig.applyChanges` replaces every non-null list. So the client reads the group
// (`GET /v1/resource-groups?resource_groups=sp-ssd`, `ResourceGroups.listManyResourceGroups`) and
// sends its node list back; the modify answer is MASK_MOD | MASK_RSC_GRP | MODIFIED.
#[tokio::test]
async fn set_place_count_keeps_the_groups_node_list() {
    let server = mock().await;
    common::mount_once(
        &server,
        common::controller_call("GET", "/v1/resource-groups")
            .and(query_param("resource_groups", "sp-ssd")),
        common::ok(serde_json::json!([
            {"name": "sp-ssd", "select_filter": {"place_count": 2, "node_name_list": ["pve-ippri-11", "pve-ippri-31"],
             "storage_pool_list": ["ssd-pool"]}}
        ])),
    )
    .await;
    common::mount_once(
        &server,
        common::controller_call("PUT", "/v1/resource-groups/sp-ssd").and(body_json(
            serde_json::json!({"select_filter": {"place_count": 3, "node_name_list": ["pve-ippri-11", "pve-ippri-31"]}}),
        )),
        common::rc_answer(200, 0x0244_0003, "Resource group 'sp-ssd' modified."),
    )
    .await;
    let client = mock_client(&server);
    let answer = client
        .set_place_count(&"sp-ssd".parse().unwrap(), 3)
        .await
        .expect("the node list is sent back");
    assert_eq!(answer.messages()[0].code(), codes::MODIFIED);
    server.verify().await;
    server.assert_no_unexpected_requests();
}

#[test]
fn plans_are_values_that_can_be_shown_before_sending() {
    let plan = Plan::resource_group_place_count(&"sp-ssd".parse().unwrap(), 3).unwrap();
    assert_eq!(
        plan.to_string(),
        r#"set place_count of resource group sp-ssd to 3: PUT /v1/resource-groups/sp-ssd {"select_filter":{"place_count":3}}"#
    );
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(json["method"], "PUT");
    assert_eq!(json["path"], "v1/resource-groups/sp-ssd");
}

// Issue 16, defect 5: a failed later step used to leave an empty definition behind. The target
// is deleted again (`DELETE /v1/resource-definitions/{resource}`, the spec's
// `resourceDefinitionDelete`) and the error says so; when the deletion fails too, the error says
// what is left and how to remove it.
#[tokio::test]
async fn a_failed_restore_deletes_the_target_or_says_what_is_left() {
    for delete_works in [true, false] {
        let server = mock().await;
        serve_source_definition(&server).await;
        let ok = modified(201);
        // FAIL_NOT_ENOUGH_NODES (996) | MASK_ERROR, as ApiConsts codes it.
        let not_enough_nodes =
            common::rc_answer(500, -4611686018427386908, "Not enough available nodes");
        let delete = if delete_works {
            ok.clone()
        } else {
            common::rc_answer(500, -4611686018427386880, "Database unavailable")
        };
        for (verb, route, answer) in [
            ("POST", "/v1/resource-definitions", ok.clone()),
            (
                "POST",
                "/v1/resource-definitions/vm-100-disk-0/snapshot-restore-volume-definition/snap1",
                ok,
            ),
            (
                "POST",
                "/v1/resource-definitions/vm-100-disk-0/snapshot-restore-resource/snap1",
                not_enough_nodes,
            ),
            ("DELETE", "/v1/resource-definitions/vm-100-restored", delete),
        ] {
            common::mount_once(&server, common::controller_call(verb, route), answer).await;
        }
        let err = mock_client(&server)
            .restore_snapshot(
                &"vm-100-disk-0".parse().unwrap(),
                &"snap1".parse().unwrap(),
                &"vm-100-restored".parse().unwrap(),
                &[],
            )
            .await
            .expect_err("the last step fails");
        let Error::RestoreFailed {
            step, target_left, ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(
            step,
            "restore snapshot snap1 of vm-100-disk-0 into resource vm-100-restored"
        );
        assert_eq!(*target_left, !delete_works);
        let text = err.to_string();
        if delete_works {
            assert!(
                text.ends_with("resource definition vm-100-restored was deleted again"),
                "{text}"
            );
        } else {
            assert!(text.contains("vm-100-restored is left behind"), "{text}");
            assert!(
                text.contains("linstor resource-definition delete vm-100-restored"),
                "{text}"
            );
        }
        assert_eq!(
            err.api_messages().unwrap().messages()[0].message,
            "Not enough available nodes"
        );
        server.verify().await;
        server.assert_no_unexpected_requests();
    }
}
