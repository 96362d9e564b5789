//! Compressed answers. pveproxy gzips every answer over 1,024 bytes to a client that accepts gzip
//! (pve-http-server `src/PVE/APIServer/AnyEvent.pm` `response`, `compression` on by default), so
//! a 190 kB `/cluster/resources` arrives in 10 kB and needs one flight of TCP slow start instead
//! of four. The size cap counts the decoded bytes, so a small compressed answer that decodes to
//! something huge is refused like any other.

use std::io::Write;

use cpps_http::test_util::MockApi;
use cpps_http::{Error, HeaderValue, NEAR_CONNECT, Request};
use flate2::Compression;
use flate2::write::GzEncoder;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, ResponseTemplate};

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

/// Answers `body` gzipped, as pveproxy does, only to a request that says it accepts gzip.
async fn serve_gzipped(api: &MockApi, at: &str, body: &[u8]) {
    Mock::given(method("GET"))
        .and(path(at))
        .and(header("accept-encoding", "gzip"))
        .respond_with(
            ResponseTemplate::new(200)
                .insert_header("content-encoding", "gzip")
                .insert_header("content-type", "application/json;charset=UTF-8")
                .set_body_bytes(gzip(body)),
        )
        .mount(api.server())
        .await;
}

#[tokio::test]
async fn the_client_asks_for_gzip_and_reads_the_decoded_answer() {
    let api = MockApi::start("/").await;
    let json = format!(
        r#"{{"data":[{}]}}"#,
        vec![r#"{"vmid":100,"type":"qemu"}"#; 2000].join(",")
    );
    serve_gzipped(&api, "/cluster/resources", json.as_bytes()).await;
    let client = api.client_builder().build().unwrap();
    let answer = client
        .execute(Request::get("cluster/resources"))
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(answer.bytes().len(), json.len());
    assert_eq!(&answer.bytes()[..], json.as_bytes());
}

#[tokio::test]
async fn the_size_cap_counts_the_decoded_bytes() {
    let api = MockApi::start("/").await;
    // 4 MiB of zeros gzip to about 4 kB.
    let huge = vec![b'0'; 4 << 20];
    serve_gzipped(&api, "/bomb", &huge).await;
    let client = api
        .client_builder()
        .max_response_bytes(64 * 1024)
        .build()
        .unwrap();
    let error = client.execute(Request::get("bomb")).await.unwrap_err();
    assert!(
        matches!(error, Error::BodyTooLarge { limit: 65536, .. }),
        "{error:?}"
    );
}

/// A near server (its first connect within `NEAR_CONNECT`) is asked for answers uncompressed:
/// pveproxy then sends them as they are (pve-http-server `src/PVE/APIServer/AnyEvent.pm`
/// `response`: `$nocomp` when the request accepts neither gzip nor deflate), which spares both
/// ends a level-9 gzip on a LAN. The first request leaves before any connect has ended, so it
/// asks for gzip; a request that names its own encodings keeps them.
#[tokio::test]
async fn a_near_server_is_asked_for_answers_uncompressed() {
    let api = MockApi::start("/").await;
    Mock::given(method("GET"))
        .and(path("/version"))
        .respond_with(ResponseTemplate::new(200).set_body_string(r#"{"data":{}}"#))
        .mount(api.server())
        .await;
    let client = api.client_builder().build().unwrap();
    client.execute(Request::get("version")).await.unwrap();
    let first_connect = client
        .first_connect_time()
        .await
        .expect("a connect to 127.0.0.1");
    client.execute(Request::get("version")).await.unwrap();
    let mut own = Request::get("version");
    own.headers_mut()
        .insert("accept-encoding", HeaderValue::from_static("gzip"));
    client.execute(own).await.unwrap();

    // 127.0.0.1 answers a connect in microseconds; a machine so loaded that it took longer
    // than `NEAR_CONNECT` sees the server as far, and then every request asks for gzip.
    let second = if first_connect <= NEAR_CONNECT {
        "identity"
    } else {
        "gzip"
    };
    assert_eq!(
        api.header_of_each_request("accept-encoding").await,
        [Some("gzip"), Some(second), Some("gzip")].map(|v| v.map(str::to_owned)),
        "first connect {first_connect:?}"
    );
}
