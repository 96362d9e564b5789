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
async fn modes_that_vouch_for_the_server_are_accepted() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let pin = Fingerprint::of_der(pki.leaf_der.as_ref()).to_string();
    let mut ca_file = tempfile::NamedTempFile::new().unwrap();
    ca_file.write_all(pki.ca_pem.as_bytes()).unwrap();
    let cases = [
        (
            "the pin as Proxmox prints it (`AA:BB:…`)",
            TlsMode::pinned(&pin).unwrap(),
        ),
        (
            "the pin in lower case without colons",
            TlsMode::pinned(&pin.replace(':', "").to_lowercase()).unwrap(),
        ),
        ("the CA bundle file", TlsMode::ca_file(ca_file.path())),
        (
            "insecure, asked by name",
            TlsMode::danger_accept_invalid_certs(),
        ),
    ];
    let count = cases.len();
    for (name, tls) in cases {
        let client = client(server.port, tls).unwrap();
        let answer = client
            .execute(Request::get("version"))
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(answer.status().as_u16(), 200, "{name}");
        assert_eq!(answer.text(), "ok", "{name}");
    }
    assert_eq!(server.requests(), count);
}

#[tokio::test]
async fn modes_that_do_not_vouch_for_the_server_are_refused_before_sending() {
    let pki = TestPki::generate();
    let server = KeepAliveServer::start(&pki, Duration::ZERO).await;
    let other = TestPki::generate();
    let cases = [
        (
            "another certificate's pin",
            TlsMode::Pinned(Fingerprint::of_der(other.leaf_der.as_ref())),
        ),
        ("the system roots, for a private CA", TlsMode::SystemRoots),
        (
            "another CA's bundle",
            TlsMode::CaPem(other.ca_pem.clone().into_bytes()),
        ),
    ];
    for (name, tls) in cases {
        let client = client(server.port, tls).unwrap();
        let err = client
            .execute(Request::get("version"))
            .await
            .expect_err(name);
        assert!(err.is_connect(), "{name}: {err:?}");
        assert_eq!(err.delivery(), Delivery::NotSent, "{name}");
    }
    assert_eq!(server.requests(), 0);
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
