//! Test servers shared by the cpps-http integration tests.
#![allow(dead_code, unreachable_pub)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// A throw-away CA and a leaf certificate it signed for `localhost` and `127.0.0.1`.
pub struct TestPki {
    pub ca_pem: String,
    pub leaf_der: CertificateDer<'static>,
    pub leaf_key: PrivatePkcs8KeyDer<'static>,
}

impl TestPki {
    pub fn generate() -> Self {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "cpps test CA");
        let ca = CertifiedIssuer::self_signed(ca_params, ca_key).unwrap();
        let leaf_key = KeyPair::generate().unwrap();
        let leaf_params =
            CertificateParams::new(vec!["localhost".to_owned(), "127.0.0.1".to_owned()]).unwrap();
        let leaf = leaf_params.signed_by(&leaf_key, &ca).unwrap();
        TestPki {
            ca_pem: ca.pem(),
            leaf_der: leaf.der().clone(),
            leaf_key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()),
        }
    }

    /// A TLS acceptor serving the leaf certificate (TLS 1.2 and 1.3, ring).
    pub fn acceptor(&self) -> tokio_rustls::TlsAcceptor {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let config = rustls::ServerConfig::builder()
            .with_no_client_auth()
            .with_single_cert(
                vec![self.leaf_der.clone()],
                PrivateKeyDer::Pkcs8(self.leaf_key.clone_key()),
            )
            .unwrap();
        tokio_rustls::TlsAcceptor::from(Arc::new(config))
    }
}

/// A plain TCP server that reads one request and closes the connection without answering
/// (a reset after the request was sent). Returns its port and a counter of connections.
pub async fn start_resetting_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let connections = Arc::new(AtomicUsize::new(0));
    let counter = connections.clone();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut buf = vec![0u8; 8192];
                let _ = stream.read(&mut buf).await;
                // Dropping the stream closes it with no answer.
            });
        }
    });
    (port, connections)
}

/// A port on 127.0.0.1 where nothing listens.
pub async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

/// A keep-alive HTTPS server on 127.0.0.1 answering every request with `200 ok` after
/// `answer_delay`, counting the connections it accepted and the requests it answered.
pub struct KeepAliveServer {
    pub port: u16,
    pub connections: Arc<AtomicUsize>,
    pub requests: Arc<AtomicUsize>,
}

impl KeepAliveServer {
    pub async fn start(pki: &TestPki, answer_delay: std::time::Duration) -> Self {
        let acceptor = pki.acceptor();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let connections = Arc::new(AtomicUsize::new(0));
        let requests = Arc::new(AtomicUsize::new(0));
        let (accepted, answered) = (connections.clone(), requests.clone());
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                accepted.fetch_add(1, Ordering::SeqCst);
                let acceptor = acceptor.clone();
                let answered = answered.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(stream).await else {
                        return;
                    };
                    let mut buf = vec![0u8; 8192];
                    let mut seen = Vec::new();
                    loop {
                        while let Some(end) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
                            seen.drain(..end + 4);
                            tokio::time::sleep(answer_delay).await;
                            answered.fetch_add(1, Ordering::SeqCst);
                            let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                            if tls.write_all(answer).await.is_err() {
                                return;
                            }
                        }
                        match tls.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => seen.extend_from_slice(&buf[..n]),
                        }
                    }
                });
            }
        });
        KeepAliveServer {
            port,
            connections,
            requests,
        }
    }

    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}
