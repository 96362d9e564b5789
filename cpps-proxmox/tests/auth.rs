//! Ticket renewal and the TOTP second factor, against wiremock: fakepve refuses renewal
//! (testing.md: "it rejects ticket renewal (posting the old ticket as the password, which real
//! PVE accepts)") and cannot complete a TFA login. What PVE does is in pve-apidoc.json,
//! `POST /access/ticket`: `password` "The secret password. This can also be a valid ticket.",
//! and `tfa-challenge` "The signed TFA challenge string the user wants to respond to."

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use cpps_http::test_util::MockApi;
use cpps_http::{RetryPolicy, SecretString};
use cpps_proxmox::{Client, Error};
use serde_json::json;
use wiremock::ResponseTemplate;
use wiremock::matchers::header;

fn ticket(ticket: &str, csrf: &str) -> ResponseTemplate {
    common::data_answer(json!({
        "ticket": ticket, "CSRFPreventionToken": csrf, "username": "ops@pve", "clustername": "ippri"
    }))
}

fn nodes() -> ResponseTemplate {
    common::data_answer(json!([{"node": "pve1", "status": "online"}]))
}

/// Answers one `GET /nodes` that carries the ticket `ticket` in its cookie.
async fn serve_nodes_once_for(api: &MockApi, ticket: &str) {
    let cookie = format!("PVEAuthCookie={ticket}");
    let call = common::pve_call("GET", "nodes").and(header("cookie", cookie.as_str()));
    common::mount_once(api, call, nodes()).await;
}

fn client(api: &MockApi) -> cpps_proxmox::ClientBuilder {
    Client::builder(api.base_url().as_str())
        .password(
            "ops@pve".parse().unwrap(),
            SecretString::from("hunter2".to_owned()),
        )
        .retry(RetryPolicy::none())
}

#[tokio::test]
async fn an_old_ticket_is_renewed_by_posting_it_as_the_password() {
    let api = common::pve_mock_api().await;
    common::mount_once(
        &api,
        common::pve_form_call("POST", "access/ticket", &["password=hunter2"]),
        ticket("PVE:ops@pve:T1", "C1"),
    )
    .await;
    // The renewal posts the current ticket as the password (form-encoded `PVE%3Aops%40pve%3AT1`).
    common::mount_once(
        &api,
        common::pve_form_call("POST", "access/ticket", &["password=PVE%3Aops%40pve%3AT1"]),
        ticket("PVE:ops@pve:T2", "C2"),
    )
    .await;
    serve_nodes_once_for(&api, "PVE:ops@pve:T1").await;
    serve_nodes_once_for(&api, "PVE:ops@pve:T2").await;
    // Writes carry the CSRF token of the renewed ticket.
    common::mount_once(
        &api,
        common::pve_call("POST", "nodes/pve1/lxc/200/status/start")
            .and(header("cookie", "PVEAuthCookie=PVE:ops@pve:T2"))
            .and(header("CSRFPreventionToken", "C2")),
        common::data_answer(json!(
            "UPID:pve1:00001234:00005678:65F0A1B2:vzstart:200:ops@pve:"
        )),
    )
    .await;

    let pve = client(&api)
        .renew_ticket_after(Duration::from_millis(300))
        .build()
        .unwrap();
    assert_eq!(pve.nodes().await.unwrap().len(), 1);
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(pve.nodes().await.unwrap().len(), 1);
    let upid = pve
        .node("pve1")
        .lxc(200.try_into().unwrap())
        .start()
        .await
        .unwrap();
    assert_eq!(upid.worker_type(), "vzstart");
    api.assert_no_unexpected_requests();
    api.verify().await;
}

#[tokio::test]
async fn a_refused_renewal_falls_back_to_the_password() {
    let api = common::pve_mock_api().await;
    let logins = Arc::new(AtomicUsize::new(0));
    let counter = logins.clone();
    common::pve_form_call("POST", "access/ticket", &["password=hunter2"])
        .respond_with(move |_: &wiremock::Request| {
            let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
            ticket(&format!("PVE:ops@pve:P{n}"), "C")
        })
        .expect(2)
        .mount(api.server())
        .await;
    common::mount_once(
        &api,
        common::pve_form_call("POST", "access/ticket", &["password=PVE%3A"]),
        common::error_answer(401, "authentication failure\n"),
    )
    .await;
    common::pve_call("GET", "nodes")
        .respond_with(nodes())
        .expect(2)
        .mount(api.server())
        .await;

    let pve = client(&api)
        .renew_ticket_after(Duration::from_millis(200))
        .build()
        .unwrap();
    pve.nodes().await.unwrap();
    tokio::time::sleep(Duration::from_millis(250)).await;
    pve.nodes().await.unwrap();
    assert_eq!(logins.load(Ordering::SeqCst), 2);
    api.verify().await;
}

#[tokio::test]
async fn a_totp_challenge_is_answered_with_the_code() {
    let api = common::pve_mock_api().await;
    // PVE >= 7.2: the password step answers a `PVE:!tfa!` challenge ticket and `NeedTFA: 1`.
    common::mount_once(
        &api,
        common::pve_form_call("POST", "access/ticket", &["password=hunter2"]),
        common::data_answer(json!({
            "ticket": "PVE:!tfa!CHALLENGE",
            "NeedTFA": 1,
            "username": "ops@pve",
            "CSRFPreventionToken": "X",
        })),
    )
    .await;
    common::mount_once(
        &api,
        common::pve_form_call(
            "POST",
            "access/ticket",
            &[
                "tfa-challenge=PVE%3A%21tfa%21CHALLENGE",
                "password=totp%3A123456",
            ],
        ),
        ticket("PVE:ops@pve:FULL", "C"),
    )
    .await;
    serve_nodes_once_for(&api, "PVE:ops@pve:FULL").await;
    let pve = client(&api)
        .totp(Arc::new(|| Ok(SecretString::from("123456".to_owned()))))
        .build()
        .unwrap();
    assert_eq!(pve.nodes().await.unwrap().len(), 1);
    api.verify().await;
}

#[tokio::test]
async fn a_refused_second_factor_is_an_auth_error() {
    let api = common::pve_mock_api().await;
    common::pve_form_call("POST", "access/ticket", &["password=hunter2"])
        .respond_with(common::data_answer(
            json!({"ticket": "PVE:!tfa!C", "NeedTFA": 1, "username": "ops@pve"}),
        ))
        .mount(api.server())
        .await;
    common::pve_form_call("POST", "access/ticket", &["tfa-challenge="])
        .respond_with(common::error_answer(401, "authentication failure\n"))
        .mount(api.server())
        .await;
    let pve = client(&api)
        .totp(Arc::new(|| Ok(SecretString::from("000000".to_owned()))))
        .build()
        .unwrap();
    let err = pve.nodes().await.unwrap_err();
    match &err {
        Error::Http(cpps_http::Error::Auth { reason }) => {
            assert!(reason.contains("login as ops@pve refused"), "{reason}");
            assert!(
                !reason.contains("000000") && !reason.contains("hunter2"),
                "{reason}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}
