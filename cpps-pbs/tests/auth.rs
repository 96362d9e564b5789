//! Ticket login and the token header as PBS expects them. No fake PBS server exists (see
//! `common`); the behaviour encoded here is PBS's: `POST /access/ticket` answers `ticket` and
//! `CSRFPreventionToken` (pbs-apidoc.json), the ticket goes in the `PBSAuthCookie` cookie, and
//! a token is sent as `PBSAPIToken=USER@REALM!TOKENID:SECRET` (proxmox-backup's
//! `extract_auth_data`).

mod common;

use cpps_http::SecretString;
use cpps_http::test_util::env_lookup;
use cpps_pbs::{Client, ClientBuilder, Credentials};
use wiremock::matchers::{body_string_contains, header, method, path};
use wiremock::{Mock, ResponseTemplate};

#[tokio::test]
async fn a_user_logs_in_with_a_ticket_and_sends_the_pbs_cookie() {
    let api = common::mock_api().await;
    Mock::given(method("POST"))
        .and(path("/api2/json/access/ticket"))
        .and(body_string_contains("username=root%40pam"))
        .and(body_string_contains("password=hunter2"))
        .respond_with(ResponseTemplate::new(200).set_body_json(common::load("access_ticket.json")))
        .expect(1)
        .mount(api.server())
        .await;
    let ticket = common::load("access_ticket.json")["data"]["ticket"]
        .as_str()
        .unwrap()
        .to_owned();
    Mock::given(method("GET"))
        .and(path("/api2/json/admin/datastore"))
        .and(header("cookie", format!("PBSAuthCookie={ticket}").as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_json(common::load("datastores.json")))
        .expect(2)
        .mount(api.server())
        .await;
    let credentials =
        cpps_pbs::credentials_for("root@pam".parse().unwrap(), SecretString::from("hunter2"));
    assert!(matches!(credentials, Credentials::Password { .. }));
    assert!(!format!("{credentials:?}").contains("hunter2"));
    let pbs = Client::new(api.client(), credentials);
    // Two reads, one login.
    assert_eq!(pbs.datastores().await.unwrap().len(), 3);
    assert_eq!(pbs.datastores().await.unwrap().len(), 3);
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn a_refused_login_is_an_error_without_the_password() {
    let api = common::mock_api().await;
    Mock::given(method("POST"))
        .and(path("/api2/json/access/ticket"))
        .respond_with(ResponseTemplate::new(401).set_body_json(
            serde_json::json!({"data": null, "message": "authentication failed - invalid credentials\n"}),
        ))
        .mount(api.server())
        .await;
    let pbs = Client::new(
        api.client(),
        cpps_pbs::credentials_for("root@pam".parse().unwrap(), SecretString::from("wrong-pw")),
    );
    let err = pbs.datastores().await.unwrap_err();
    let text = cpps_pbs::report::error_chain(&err);
    assert!(text.contains("authentication failed"), "{text}");
    assert!(!text.contains("wrong-pw"), "{text}");
}

#[tokio::test]
async fn the_configuration_picks_token_auth_for_a_token_id() {
    let api = common::mock_api().await;
    common::serve_authorized(&api, "/admin/datastore", &[], "datastores.json").await;
    let url = api.base_url().to_string();
    let vars = env_lookup(&[
        ("PBS_REPOSITORY", "report@pbs!ro@pbs-a.example:store1"),
        ("PBS_PASSWORD", common::TOKEN_SECRET),
        ("CPPS_PBS_URL", url.as_str()),
    ]);
    let builder = ClientBuilder::from_env(&vars).unwrap();
    assert_eq!(
        builder.repository().map(|r| r.store().as_str()),
        Some("store1")
    );
    let pbs = builder.build().unwrap();
    assert_eq!(pbs.http().base_url(), &api.base_url());
    assert_eq!(pbs.datastores().await.unwrap().len(), 3);
    api.verify().await;
}

#[test]
fn pbs_fingerprint_pins_the_certificate_and_port_8007_is_the_default() {
    let pin = "64:d3:ff:3a:50:38:53:5a:9b:f7:50:8a:c1:ed:6c:13:05:13:c3:12:1b:d5:9a:30:ed:38:0c:a3:11:c8:1f:59";
    let vars = env_lookup(&[
        ("PBS_REPOSITORY", "root@pam@pbs-a.example:store1"),
        ("PBS_PASSWORD", "hunter2"),
        ("PBS_FINGERPRINT", pin),
    ]);
    let builder = ClientBuilder::from_env(&vars).unwrap();
    let debug = format!("{builder:?}");
    assert!(
        debug.contains("https://pbs-a.example:8007/api2/json/"),
        "{debug}"
    );
    assert!(debug.contains("Password"), "{debug}");
    assert!(
        debug.contains(&format!("Pinned(Fingerprint({}))", pin.to_uppercase())),
        "{debug}"
    );
    assert!(!debug.contains("hunter2"), "{debug}");
    let pbs = builder.build().unwrap();
    assert_eq!(
        pbs.http().base_url().as_str(),
        "https://pbs-a.example:8007/api2/json/"
    );
}

/// `from_env` reads the variables through the lookup only (never the process environment),
/// names the variable that is wrong, and reads TLS through `TlsMode::from_env`.
#[test]
fn environment_errors_name_the_variable() {
    const SET: [(&str, &str); 2] = [("PBS_REPOSITORY", "host:store"), ("PBS_PASSWORD", "pw")];
    let cases: [(&str, &[(&str, &str)]); 4] = [
        ("PBS_REPOSITORY", &[]),
        ("PBS_PASSWORD", &SET[..1]),
        (
            "PBS_FINGERPRINT",
            &[SET[0], SET[1], ("PBS_FINGERPRINT", "zz")],
        ),
        (
            "CPPS_PBS_URL",
            &[SET[0], SET[1], ("CPPS_PBS_URL", "not a url")],
        ),
    ];
    for (named, vars) in cases {
        let err = ClientBuilder::from_env(&env_lookup(vars)).unwrap_err();
        assert!(err.to_string().contains(named), "{named}: {err}");
        assert!(!format!("{err:?}").contains("pw\""), "{named}: {err:?}");
    }
}
