//! Against Prism serving the official LINSTOR spec (`tests/fixtures/linstor-rest-v1-openapi.yaml`,
//! started by `cargo xtask test` through `xtask/env/prism.sh`):
//!
//! - the static server answers with the spec's examples and validates every request this client
//!   sends: a request that breaks the spec gets 422 with the violations, which fails the test
//!   with Prism's message;
//! - the dynamic server (`-d`) answers with random schema-valid bodies, which every typed model
//!   must decode, several times per endpoint.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use cpps_http::{Request, StatusCode, Url};
use cpps_linstor::{Client, Error, Plan};
use futures::{StreamExt, TryStreamExt};

use common::{client_for, prism_url};

static REQUESTS: AtomicUsize = AtomicUsize::new(0);

/// Sends the raw request first, so that a 422 from Prism's validator fails the test with Prism's
/// full list of violations.
async fn assert_valid(client: &Client, request: Request) {
    let label = format!("{} {}", request.method(), request.path());
    let response = client.execute(request).await.expect("Prism answers");
    REQUESTS.fetch_add(1, Ordering::Relaxed);
    assert_ne!(
        response.status(),
        StatusCode::UNPROCESSABLE_ENTITY,
        "Prism rejected {label}: {}",
        response.text()
    );
    assert!(
        response.status().is_success(),
        "{label}: {} {}",
        response.status(),
        response.text()
    );
}

fn names() -> (
    cpps_linstor::ResourceName,
    cpps_linstor::SnapshotName,
    cpps_linstor::NodeName,
) {
    (
        "vm-100-disk-0".parse().unwrap(),
        "before-upgrade".parse().unwrap(),
        "pve-ippri-11".parse().unwrap(),
    )
}

fn write_plans() -> Vec<Plan> {
    let (rsc, snap, node) = names();
    let mut plans = vec![
        Plan::snapshot_create(&rsc, &snap, std::slice::from_ref(&node)),
        Plan::snapshot_create(&rsc, &snap, &[]),
        Plan::snapshot_delete(&rsc, &snap, std::slice::from_ref(&node)),
        Plan::snapshot_rollback(&rsc, &snap),
        Plan::resource_group_place_count(&"sp-ssd".parse().unwrap(), 3).unwrap(),
        Plan::resource_group_place_count_keeping_nodes(
            &"sp-ssd".parse().unwrap(),
            3,
            &["pve-ippri-11".to_owned(), "pve-ippri-31".to_owned()],
        )
        .unwrap(),
        Plan::node_set_properties(
            &node,
            &BTreeMap::from([("PrefNic".to_owned(), "data".to_owned())]),
            &["Aux/old".to_owned()],
        )
        .unwrap(),
        Plan::controller_set_properties(
            &BTreeMap::from([(
                "DrbdOptions/AutoEvictAfterTime".to_owned(),
                "120".to_owned(),
            )]),
            &[],
        )
        .unwrap(),
    ];
    // Node maintenance (`cpps_linstor::evacuate`): the request with and without targets.
    plans.push(Plan::node_evacuate(&node, &[], &[]));
    plans.push(Plan::node_evacuate(
        &node,
        &["pve-ippri-12".parse().unwrap()],
        &["pve-ippri-31".parse().unwrap()],
    ));
    plans.extend(Plan::snapshot_restore(
        &rsc,
        &snap,
        &"vm-100-restored".parse().unwrap(),
        Some(&"sp-ssd".parse().unwrap()),
        &[node],
    ));
    plans.push(Plan::resource_definition_delete(
        &"vm-100-restored".parse().unwrap(),
    ));
    plans
}

fn read_requests() -> Vec<Request> {
    vec![
        Request::get("v1/controller/version"),
        Request::get("v1/controller/properties"),
        Request::get("v1/nodes"),
        Request::get("v1/nodes").query("nodes", "pve-ippri-11"),
        Request::get("v1/nodes/pve-ippri-11/net-interfaces"),
        Request::get("v1/view/storage-pools"),
        Request::get("v1/view/storage-pools")
            .query("nodes", "pve-ippri-11")
            .query("nodes", "pve-ippri-12"),
        Request::get("v1/resource-groups"),
        Request::get("v1/resource-groups").query("resource_groups", "sp-ssd"),
        Request::get("v1/resource-definitions"),
        Request::get("v1/resource-definitions").query("resource_definitions", "vm-100-disk-0"),
        Request::get("v1/view/resources"),
        Request::get("v1/view/resources")
            .query("nodes", "pve-ippri-11")
            .query("resources", "vm-100-disk-0"),
        Request::get("v1/view/snapshots"),
        Request::get("v1/resource-definitions/vm-100-disk-0/snapshots"),
        Request::get("v1/error-reports").query("since", 1_767_225_600_000_i64),
        Request::get("v1/remotes"),
        Request::get("v1/remotes/s3-franca/backups").query("rsc_name", "vm-100-disk-0"),
        Request::get("v1/schedules"),
        Request::get("v1/view/schedules-by-resource"),
        Request::get("v1/error-reports/5B9A15B7-00000-000000").query("withContent", true),
        Request::get("v1/nodes")
            .query("offset", 0)
            .query("limit", 2),
        Request::get("v1/view/resources")
            .query("offset", 0)
            .query("limit", 2),
        Request::get("v1/error-reports")
            .query("offset", 0)
            .query("limit", 2),
    ]
}

/// Calls every typed read once; returns how many models were decoded.
async fn typed_reads(client: &Client) -> Result<usize, Error> {
    let (rsc, _, node) = names();
    let mut models = 0;
    models += usize::from(client.controller_version().await.is_ok_and(|_| true));
    let props = client.controller_properties().await?;
    let _ = props.auto_evict().count();
    models += 1;
    models += client.nodes().await?.len();
    models += client.node(&node).await?.map_or(0, |_| 1);
    models += client.net_interfaces(&node).await?.len();
    models += client.storage_pools().await?.len();
    models += client
        .storage_pools_of(std::slice::from_ref(&node))
        .await?
        .len();
    models += client.resource_groups().await?.len();
    models += client
        .resource_group(&"sp-ssd".parse().unwrap())
        .await?
        .map_or(0, |_| 1);
    models += client.resource_definitions().await?.len();
    models += client.resources_view().await?.len();
    models += client
        .resources_view_filtered(&[node], std::slice::from_ref(&rsc))
        .await?
        .len();
    models += client.snapshots().await?.len();
    models += client.snapshots_of(&rsc).await?.len();
    models += client.error_reports(Some(1_767_225_600_000)).await?.len();
    models += client
        .error_report("5B9A15B7-00000-000000")
        .await?
        .map_or(0, |_| 1);
    models += client.resource_definition(&rsc).await?.map_or(0, |_| 1);
    models += client.remotes().await?.names().count();
    models += client.backups("s3-franca", Some(&rsc)).await?.linstor.len();
    models += client.schedules().await?.len();
    models += client.scheduled_resources().await?.len();
    let dr_state = client.dr_state().await?;
    let dr_report = cpps_linstor::dr::assess(
        &dr_state,
        &["vm-100-disk-0"],
        1_767_225_600_000,
        std::time::Duration::from_secs(86_400),
    );
    models += dr_report.resources.len();
    let state = client.cluster_state().await?;
    let report = cpps_linstor::health::assess(&state, &Default::default());
    models += report.resources.len() + report.nodes.len() + report.pools.len();
    // Pagination: at most a few pages (dynamic pages have random lengths).
    let paged: Vec<_> = client.nodes_paged(2).take(10).try_collect().await?;
    models += paged.len();
    let paged: Vec<_> = client
        .resources_view_paged(2)
        .take(10)
        .try_collect()
        .await?;
    models += paged.len();
    let paged: Vec<_> = client.error_reports_paged(2).take(10).try_collect().await?;
    models += paged.len();
    Ok(models)
}

#[tokio::test]
async fn static_prism_validates_every_request_and_answers_decode() {
    let Some(url) = prism_url("CPPS_TEST_PRISM_URL") else {
        return;
    };
    let client = client_for(&[url]);
    for request in read_requests() {
        assert_valid(&client, request).await;
    }
    for plan in write_plans() {
        assert_valid(&client, plan.to_request().unwrap()).await;
    }
    let models = typed_reads(&client)
        .await
        .expect("typed reads decode the spec's examples");
    assert!(models > 0);
    // Prism's static answer to a write is the spec's `ApiCallRc` example with the smallest
    // safe int64 as `ret_code` (-9007199254740991 = 0xFFE0000000000001): both type bits are set,
    // so it is an error, and the typed path must say so rather than report a success.
    let mut writes = 0;
    for plan in write_plans() {
        let err = client
            .apply(&plan)
            .await
            .expect_err("the example ret_code is an error");
        let messages = err
            .api_messages()
            .unwrap_or_else(|| panic!("{plan}: {err:?}"));
        let rc = &messages.messages()[0];
        assert_eq!(rc.ret_code, -9_007_199_254_740_991, "{plan}");
        assert!(rc.is_error() && !rc.is_warning() && !rc.is_info());
        assert_eq!(rc.message, "Operation result.");
        assert!(
            err.status().is_some_and(|s| s.is_success()),
            "{plan}: {err:?}"
        );
        writes += messages.messages().len();
    }
    println!(
        "prism static: every request validated ({} sent raw to show 422 messages, then the typed calls); {models} models and {writes} ApiCallRc decoded",
        REQUESTS.load(Ordering::Relaxed)
    );
}

// Prism's validator is really on: a body that breaks the spec is answered 422 with the
// violation (`select_filter.place_count` must be an integer).
#[tokio::test]
async fn static_prism_rejects_a_request_that_breaks_the_spec() {
    let Some(url) = prism_url("CPPS_TEST_PRISM_URL") else {
        return;
    };
    let client = client_for(&[url]);
    let bad = Request::put("v1/resource-groups/sp-ssd")
        .json(&serde_json::json!({"select_filter": {"place_count": "three"}}))
        .unwrap();
    let response = client.execute(bad).await.unwrap();
    assert_eq!(response.status(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        response.text().contains("place_count"),
        "{}",
        response.text()
    );
    // Through the typed path the same answer is an error, not a silent success.
    let err = client
        .apply(&Plan {
            description: "invalid on purpose".to_owned(),
            method: cpps_http::Method::PUT,
            path: "v1/resource-groups/sp-ssd".to_owned(),
            query: vec![],
            body: Some(serde_json::json!({"select_filter": {"place_count": "three"}})),
        })
        .await
        .expect_err("422 is an error");
    assert_eq!(err.status(), Some(StatusCode::UNPROCESSABLE_ENTITY));
}

#[tokio::test]
async fn dynamic_prism_answers_decode_into_every_model() {
    let Some(url) = prism_url("CPPS_TEST_PRISM_DYNAMIC_URL") else {
        return;
    };
    let url: Url = url;
    let client = client_for(&[url]);
    const ROUNDS: usize = 5;
    let mut models = 0;
    for round in 0..ROUNDS {
        models += typed_reads(&client)
            .await
            .unwrap_or_else(|e| panic!("round {round}: a generated answer did not decode: {e:?}"));
    }
    // Writes: random `ret_code`s may carry error bits, so an `Error::Api` is a decoded answer
    // too; anything else (a decode error) fails.
    let mut answers = 0;
    for _ in 0..ROUNDS {
        for plan in write_plans() {
            match client.apply(&plan).await {
                Ok(list) => answers += list.messages().len(),
                Err(Error::Api { messages, .. }) => answers += messages.messages().len(),
                Err(other) => panic!("{plan}: {other:?}"),
            }
        }
    }
    println!("prism dynamic: {ROUNDS} rounds, {models} models and {answers} ApiCallRc decoded");
}
