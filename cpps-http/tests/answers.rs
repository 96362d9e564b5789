//! What the runtime keeps of an answer: the reason phrase, the size cap (the client's and per
//! request), the client's own secrets scrubbed from every text, and connect timeouts counted as
//! "not sent".

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use cpps_http::test_util::{MockApi, RawServer, SilentListener};
use cpps_http::{
    Delivery, Error, HeaderAuth, HttpClient, Request, RetryPolicy, SecretString, TlsMode, TlsVars,
};
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

/// Proxmox VE before libpve-http-server-perl 5.2.0 answers an error with the body
/// `{"data":null}` and puts the message only in the status line: pve-http-server
/// `src/PVE/APIServer/AnyEvent.pm` (`error()` writes `HTTP::Response->new($code, $msg)`), and
/// `src/PVE/APIServer/Formatter/Standard.pm` adds `message` to the body only from 5.2.0 on.
/// wiremock cannot send a custom reason phrase, so a raw server writes the status line.
#[tokio::test]
async fn the_reason_phrase_is_kept_when_the_server_sends_its_own() {
    let body = r#"{"data":null}"#;
    let server = RawServer::start(format!(
        "HTTP/1.1 500 Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist\r\nContent-Type: application/json;charset=UTF-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    ))
    .await;
    let client = HttpClient::builder(server.url("api2/json/"))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let answer = client
        .execute(Request::get("nodes/pve1/qemu/999/config"))
        .await
        .unwrap();
    assert!(answer.has_custom_reason());
    assert_eq!(
        answer.reason().as_deref(),
        Some("Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist")
    );
    let error = answer.error_for_status().unwrap_err();
    let Error::Status { reason, status, .. } = &error else {
        panic!("expected a status error, got {error:?}");
    };
    assert_eq!(status.as_u16(), 500);
    assert_eq!(
        reason.as_deref(),
        Some("Configuration file 'nodes/pve1/qemu-server/999.conf' does not exist")
    );
    assert!(error.to_string().contains("does not exist"), "{error}");
    assert_eq!(
        server.request_lines(),
        ["GET /api2/json/nodes/pve1/qemu/999/config HTTP/1.1"]
    );
}

#[tokio::test]
async fn a_canonical_reason_is_not_reported_as_the_servers_own() {
    let server = RawServer::start(
        "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    )
    .await;
    let client = HttpClient::builder(server.url("")).build().unwrap();
    let answer = client.execute(Request::get("x")).await.unwrap();
    assert!(!answer.has_custom_reason());
    assert_eq!(answer.reason().as_deref(), Some("Not Found"));
    let Error::Status { reason, .. } = answer.error_for_status().unwrap_err() else {
        panic!("expected a status error");
    };
    assert_eq!(reason, None);
}

#[tokio::test]
async fn a_request_can_raise_or_lower_the_size_cap_and_the_error_says_how() {
    let api = MockApi::start("/").await;
    Mock::given(method("GET"))
        .and(path("/big"))
        .respond_with(ResponseTemplate::new(200).set_body_string("x".repeat(4096)))
        .mount(api.server())
        .await;
    let client = api
        .client_builder()
        .max_response_bytes(1024)
        .build()
        .unwrap();
    let error = client.execute(Request::get("big")).await.unwrap_err();
    assert!(
        matches!(error, Error::BodyTooLarge { limit: 1024, .. }),
        "{error:?}"
    );
    assert!(
        error
            .to_string()
            .contains("larger than the 1024-byte limit"),
        "{error}"
    );
    assert!(error.to_string().contains("max_response_bytes"), "{error}");
    // The server answered: a body refused for its size is no request left without an answer.
    assert!(
        client.activity().snapshot().unanswered.is_empty(),
        "{}",
        client.activity().snapshot()
    );
    let answer = client
        .execute(Request::get("big").max_response_bytes(8192))
        .await
        .unwrap();
    assert_eq!(answer.bytes().len(), 4096);
    let error = client
        .execute(Request::get("big").max_response_bytes(100))
        .await
        .unwrap_err();
    assert!(
        matches!(error, Error::BodyTooLarge { limit: 100, .. }),
        "{error:?}"
    );
}

/// A server that echoes the credential it received must not get it printed: the scrubber
/// removes the client's own secret from the excerpt, the decode message and the text.
#[tokio::test]
async fn an_echoed_credential_is_scrubbed_from_every_text() {
    const SECRET: &str = "5f0c9a1e-S3cr3t-4b7d-8e2f";
    let token = format!("PVEAPIToken=root@pam!ci={SECRET}");
    let api = MockApi::start("/").await;
    Mock::given(method("GET"))
        .and(path("/echo"))
        .respond_with(
            ResponseTemplate::new(401)
                .set_body_string(format!("credential '{token}' is not valid here")),
        )
        .mount(api.server())
        .await;
    Mock::given(method("GET"))
        .and(path("/shape"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_string(format!(r#"{{"data":{{"vmid":"{SECRET}"}}}}"#)),
        )
        .mount(api.server())
        .await;
    let client = api.client().with_auth(Arc::new(HeaderAuth::new(
        http::header::AUTHORIZATION,
        SecretString::from(token.clone()),
    )));
    let answer = client.execute(Request::get("echo")).await.unwrap();
    assert_eq!(answer.text(), "credential '[redacted]' is not valid here");
    let error = answer.error_for_status().unwrap_err();
    for shown in [error.to_string(), format!("{error:?}")] {
        assert!(!shown.contains(SECRET), "{shown}");
    }
    let Error::Status { excerpt, .. } = &error else {
        panic!("expected a status error, got {error:?}");
    };
    assert_eq!(excerpt, "credential '[redacted]' is not valid here");

    // `{"data":{"vmid":<number>}}`, read as maps: the secret stands where a number belongs.
    type Data = BTreeMap<String, BTreeMap<String, u32>>;
    let answer = client.execute(Request::get("shape")).await.unwrap();
    let error = answer.json::<Data>().unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains(SECRET), "{shown}");
    assert_eq!(error.decode_path(), Some("data.vmid"));
    // The scrubbing survives `without_auth` (login requests).
    assert_eq!(
        client.without_auth().scrub(&format!("echo {SECRET}")),
        "echo [redacted]"
    );
}

/// reqwest reports a connect that timed out as both `is_connect` and `is_timeout`; it never
/// reached the server, so fail-over may send it elsewhere. The listener's accept queue is full,
/// so its SYNs are dropped as a powered-off host's would be.
#[tokio::test]
async fn a_connect_timeout_is_not_sent_and_counts_as_a_connect_failure() {
    let silent = SilentListener::start().await;
    let client = HttpClient::builder(silent.url(""))
        .connect_timeout(Duration::from_millis(300))
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let started = Instant::now();
    let error = client.execute(Request::post("write")).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(error.delivery(), Delivery::NotSent, "{error:?}");
    assert!(error.is_not_sent() && error.is_connect(), "{error:?}");
    let Error::Timeout { timeout, .. } = &error else {
        panic!("a silent listener times out, it does not refuse: {error:?}");
    };
    assert_eq!(
        *timeout,
        Duration::from_millis(300),
        "the connect timeout elapsed"
    );
}

#[test]
fn tls_variables_are_read_by_one_rule() {
    let vars = TlsVars::new()
        .ca_file("X_CA_FILE")
        .ca_pem("X_ROOT_CA")
        .fingerprint("X_FINGERPRINT")
        .insecure("X_INSECURE");
    let env = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    };
    assert_eq!(TlsMode::from_env(&vars, &env(&[])).unwrap(), None);
    assert_eq!(
        TlsMode::from_env(
            &vars,
            &env(&[("X_CA_FILE", "/etc/ca.pem"), ("X_INSECURE", "0")])
        )
        .unwrap(),
        Some(TlsMode::ca_file("/etc/ca.pem"))
    );
    assert_eq!(
        TlsMode::from_env(&vars, &env(&[("X_ROOT_CA", "-----BEGIN CERTIFICATE-----")])).unwrap(),
        Some(TlsMode::CaPem(b"-----BEGIN CERTIFICATE-----".to_vec()))
    );
    let conflict = TlsMode::from_env(&vars, &env(&[("X_CA_FILE", "/a"), ("X_INSECURE", "yes")]))
        .unwrap_err()
        .to_string();
    assert!(
        conflict.contains("X_CA_FILE") && conflict.contains("X_INSECURE"),
        "{conflict}"
    );
    let bad = TlsMode::from_env(&vars, &env(&[("X_FINGERPRINT", "zz")]))
        .unwrap_err()
        .to_string();
    assert!(bad.contains("X_FINGERPRINT"), "{bad}");
    let bad = TlsMode::from_env(&vars, &env(&[("X_INSECURE", "sometimes")]))
        .unwrap_err()
        .to_string();
    assert!(
        bad.contains("X_INSECURE") && bad.contains("sometimes"),
        "{bad}"
    );
}
