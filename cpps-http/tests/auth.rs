//! Credentials refreshed after a 401: once, then the answer is returned.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use cpps_http::test_util::MockApi;
use cpps_http::{Auth, Error, HttpClient, Request, SecretString};
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, ResponseTemplate};

/// An auth that counts refreshes and switches to a new token on the first one.
#[derive(Debug, Default)]
struct Rotating {
    refreshed: AtomicUsize,
}

#[async_trait]
impl Auth for Rotating {
    async fn authorize(&self, request: &mut Request) -> Result<(), Error> {
        let token = if self.refreshed.load(Ordering::SeqCst) == 0 {
            "old"
        } else {
            "new"
        };
        *request = std::mem::replace(request, Request::get(""))
            .sensitive_header(http::header::AUTHORIZATION, &SecretString::from(token))?;
        Ok(())
    }

    async fn refresh(&self, _client: &HttpClient) -> Result<bool, Error> {
        self.refreshed.fetch_add(1, Ordering::SeqCst);
        Ok(true)
    }
}

#[tokio::test]
async fn a_401_refreshes_credentials_once_and_repeats_the_request() {
    let api = MockApi::start("/api").await;
    Mock::given(method("POST"))
        .and(path("/api/write"))
        .and(header("authorization", "old"))
        .respond_with(ResponseTemplate::new(401))
        .expect(1)
        .mount(api.server())
        .await;
    Mock::given(method("POST"))
        .and(path("/api/write"))
        .and(header("authorization", "new"))
        .respond_with(ResponseTemplate::new(200).set_body_string("{}"))
        .expect(1)
        .mount(api.server())
        .await;
    let auth = Arc::new(Rotating::default());
    let client = api.client().with_auth(auth.clone());
    let answer = client.execute(Request::post("write")).await.unwrap();
    assert_eq!(answer.status().as_u16(), 200);
    assert_eq!(auth.refreshed.load(Ordering::SeqCst), 1);
    api.verify().await;
}

#[tokio::test]
async fn a_second_401_is_returned_not_looped() {
    let api = MockApi::start("/api").await;
    Mock::given(method("GET"))
        .and(path("/api/x"))
        .respond_with(ResponseTemplate::new(401))
        .expect(2)
        .mount(api.server())
        .await;
    let auth = Arc::new(Rotating::default());
    let answer = api
        .client()
        .with_auth(auth.clone())
        .execute(Request::get("x"))
        .await
        .unwrap();
    assert_eq!(answer.status().as_u16(), 401);
    assert_eq!(auth.refreshed.load(Ordering::SeqCst), 1);
    api.verify().await;
}
