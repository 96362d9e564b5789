//! TLS modes against a local rustls server with a freshly generated certificate.

mod common;

use std::io::Write;
use std::time::Duration;

use common::{KeepAliveServer, TestPki};
use cpps_http::{Delivery, Error, Fingerprint, HttpClient, Request, TlsMode};

fn client(port: u16, tls: TlsMode) -> Result<HttpClient, Error> {
    HttpClient::builder(format!("https://localhost:{port}/").parse().unwrap())
        .tls(tls)
        .retry(cpps_http::RetryPolicy::none())
        .build()
}

#[tokio::test]
async fn the_right_pin_is_accepted() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let port = server.port;
    let pin = Fingerprint::of_der(pki.leaf_der.as_ref()).to_string();
    // Proxmox prints `AA:BB:…`; lower case without colons is accepted too.
    let compact = pin.replace(':', "").to_lowercase();
    for written in [pin.as_str(), compact.as_str()] {
        let client = client(port, TlsMode::pinned(written).unwrap()).unwrap();
        let answer = client.execute(Request::get("version")).await.unwrap();
        assert_eq!(answer.status().as_u16(), 200);
        assert_eq!(answer.text(), "ok");
    }
    assert_eq!(server.requests(), 2);
}

#[tokio::test]
async fn a_wrong_pin_is_rejected_before_sending() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let port = server.port;
    let other = TestPki::generate();
    let wrong = Fingerprint::of_der(other.leaf_der.as_ref());
    let client = client(port, TlsMode::Pinned(wrong)).unwrap();
    let err = client.execute(Request::get("version")).await.unwrap_err();
    assert!(err.is_connect(), "{err:?}");
    assert_eq!(err.delivery(), Delivery::NotSent);
    assert_eq!(server.requests(), 0);
}

#[tokio::test]
async fn system_roots_reject_a_private_ca() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let port = server.port;
    let client = client(port, TlsMode::SystemRoots).unwrap();
    let err = client.execute(Request::get("version")).await.unwrap_err();
    assert!(err.is_connect(), "{err:?}");
    assert_eq!(server.requests(), 0);
}

#[tokio::test]
async fn a_ca_bundle_file_is_trusted_when_given() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let port = server.port;
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(pki.ca_pem.as_bytes()).unwrap();
    let trusted = client(port, TlsMode::ca_file(file.path())).unwrap();
    let answer = trusted.execute(Request::get("version")).await.unwrap();
    assert_eq!(answer.text(), "ok");

    // Another CA's bundle does not vouch for this server.
    let other = TestPki::generate();
    let untrusted = client(port, TlsMode::CaPem(other.ca_pem.into_bytes())).unwrap();
    let err = untrusted
        .execute(Request::get("version"))
        .await
        .unwrap_err();
    assert!(err.is_connect(), "{err:?}");
}

#[tokio::test]
async fn the_insecure_mode_accepts_anything_when_asked_by_name() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let port = server.port;
    let client = client(port, TlsMode::danger_accept_invalid_certs()).unwrap();
    let answer = client.execute(Request::get("version")).await.unwrap();
    assert_eq!(answer.text(), "ok");
}

#[test]
fn an_unreadable_or_empty_ca_file_is_a_clear_error() {
    let missing = client(1, TlsMode::ca_file("/nonexistent/ca.pem")).unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("cannot read CA file /nonexistent/ca.pem"),
        "{missing}"
    );
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(b"not a certificate").unwrap();
    let empty = client(1, TlsMode::ca_file(file.path())).unwrap_err();
    assert!(
        empty.to_string().contains("no certificate found"),
        "{empty}"
    );
}
