//! Shared test setup: the PBS API schema, the fixture shape check, and the wiremock server.
//!
//! No fake PBS server exists (there is none on PyPI, npm or crates.io, and PBS itself cannot
//! run here), so the reference these tests hold the client to is Proxmox's own API schema,
//! `../shared/specs/pbs-apidoc.json` (PBS 4.x, the API viewer's data; see `SOURCE.md` there).
//! The fixtures in `tests/fixtures/` are shaped exactly as that schema says, and
//! `tests/fixtures.rs` fails if one drifts from it.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;
use std::sync::OnceLock;

use cpps_http::test_util::MockApi;
use serde_json::{Value, json};
use wiremock::matchers::{header, method, path, query_param, query_param_is_missing};
use wiremock::{Mock, MockBuilder, ResponseTemplate};

/// Runs `$body` with `$T` the PBS answer type that the endpoint table names `$name` (the name
/// given to `Answer::of`), or `$fallback` for a name that is not one of them: the one list of
/// the crate's answer types that the conformance and fixture tests look a type up in.
#[allow(unused_macros)]
macro_rules! with_answer_type {
    ($name:expr, |$T:ident| $body:expr, $other:ident => $fallback:expr) => {
        $crate::common::with_answer_type!(@in [
            Datastore, DatastoreStatus, DatastoreUsage, BackupGroup, Namespace, Snapshot, GcStatus,
            PruneJob, SyncJob, VerifyJob, Remote, TaskListItem, Version, Permissions
        ] $name, $T, $body, $other, $fallback)
    };
    (@in [$($type:ident),*] $name:expr, $T:ident, $body:expr, $other:ident, $fallback:expr) => {
        match $name {
            $(stringify!($type) => {
                type $T = cpps_pbs::types::$type;
                $body
            })*
            $other => $fallback,
        }
    };
}
#[allow(unused_imports)]
pub(crate) use with_answer_type;

/// "Now" of the fixtures: 2026-11-29T08:00:00Z. Their times are set relative to it.
pub const NOW: i64 = 1_795_939_200;

/// The folder holding the upstream API schema (a copy of `shared/specs/`, see `SOURCE.md` there).
pub fn specs_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/schema")
}

/// The PBS API schema, loaded once.
pub fn schema() -> &'static cpps_proxmox_family::apidoc::ApiDoc {
    static DOC: OnceLock<cpps_proxmox_family::apidoc::ApiDoc> = OnceLock::new();
    DOC.get_or_init(|| {
        cpps_proxmox_family::apidoc::ApiDoc::load(&specs_dir().join("pbs-apidoc.json"))
            .unwrap_or_else(|e| panic!("{e}"))
    })
}

pub use cpps_proxmox_family::apidoc::is_optional;

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Checks a fixture value against an apidoc schema: every field exists, has the schema's
/// type, required fields are present, and (when `strict_enums`) enum values are listed.
/// Appends one message per problem, naming the JSON path.
pub fn check_shape(
    schema: &Value,
    value: &Value,
    at: &str,
    strict_enums: bool,
    problems: &mut Vec<String>,
) {
    let expected = schema.get("type").and_then(Value::as_str);
    let actual = json_type(value);
    let type_ok = match expected {
        None => true,
        Some("number") => matches!(actual, "number" | "integer"),
        Some(t) => t == actual,
    };
    // `history` items are documented as "Either null or between 0.0 and 1.0".
    let null_allowed = value.is_null()
        && schema
            .get("description")
            .and_then(Value::as_str)
            .is_some_and(|d| d.contains("Either null"));
    if !type_ok && !null_allowed {
        problems.push(format!(
            "{at}: is {actual}, the schema says {}",
            expected.unwrap_or("?")
        ));
        return;
    }
    if let (Some(allowed), Some(text)) =
        (schema.get("enum").and_then(Value::as_array), value.as_str())
        && strict_enums
        && !allowed.iter().any(|a| a.as_str() == Some(text))
    {
        problems.push(format!("{at}: `{text}` is not one of {allowed:?}"));
    }
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let Some(properties) = properties else {
                return;
            };
            for (key, inner) in map {
                match properties.get(key) {
                    Some(property) => check_shape(
                        property,
                        inner,
                        &format!("{at}.{key}"),
                        strict_enums,
                        problems,
                    ),
                    None => problems.push(format!("{at}.{key}: not in the schema")),
                }
            }
            for (key, property) in properties {
                if !is_optional(property)
                    && !map.contains_key(key)
                    && property.get("default").is_none()
                {
                    problems.push(format!("{at}.{key}: required by the schema, missing"));
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check_shape(
                        item_schema,
                        item,
                        &format!("{at}[{i}]"),
                        strict_enums,
                        problems,
                    );
                }
            }
        }
        _ => {}
    }
}

/// A wiremock server under `/api2/json`, with the catch-all for unexpected requests.
pub async fn mock_api() -> MockApi {
    MockApi::start("/api2/json").await
}

/// `GET /api2/json{api_path}` with these query parameters (at least).
fn get(api_path: &str, query: &[(&str, &str)]) -> MockBuilder {
    let mut call = Mock::given(method("GET")).and(path(format!("/api2/json{api_path}")));
    for (key, value) in query {
        call = call.and(query_param(*key, *value));
    }
    call
}

/// Mounts `call` answering `answer`, expected exactly `times` times; `name` says which mock
/// failed its expectation.
async fn mount(
    api: &MockApi,
    call: MockBuilder,
    answer: ResponseTemplate,
    times: u64,
    name: String,
) {
    call.respond_with(answer)
        .expect(times)
        .named(name)
        .mount(api.server())
        .await;
}

/// Answers `GET /api2/json{api_path}` (with these query parameters, at least) with a fixture,
/// expecting exactly one call.
pub async fn serve_fixture(api: &MockApi, api_path: &str, query: &[(&str, &str)], fixture: &str) {
    serve_json(api, api_path, query, load(fixture)).await;
}

/// Answers `GET /api2/json{api_path}` with a JSON body, expecting exactly one call.
pub async fn serve_json(api: &MockApi, api_path: &str, query: &[(&str, &str)], body: Value) {
    let answer = ResponseTemplate::new(200).set_body_json(body);
    mount(
        api,
        get(api_path, query),
        answer,
        1,
        format!("GET {api_path}"),
    )
    .await;
}

/// Answers `GET /api2/json{api_path}` asked without the query parameter `missing` with a
/// fixture, expecting exactly `times` calls (a request that carries it is unexpected).
pub async fn serve_fixture_without(
    api: &MockApi,
    api_path: &str,
    missing: &str,
    fixture: &str,
    times: u64,
) {
    let call = get(api_path, &[]).and(query_param_is_missing(missing));
    let answer = ResponseTemplate::new(200).set_body_json(load(fixture));
    let name = format!("GET {api_path} without {missing}");
    mount(api, call, answer, times, name).await;
}

/// Answers `GET /api2/json{api_path}` as PBS answers a failed call: `status` with the message
/// in the body's `message` (proxmox-rest-server, see `cpps-proxmox`'s envelope docs),
/// expecting exactly `times` calls.
pub async fn serve_error(api: &MockApi, api_path: &str, status: u16, message: &str, times: u64) {
    let answer =
        ResponseTemplate::new(status).set_body_json(json!({"data": null, "message": message}));
    let name = format!("GET {api_path} ({status})");
    mount(api, get(api_path, &[]), answer, times, name).await;
}

/// Answers `GET /api2/json{api_path}` as PBS answers a token without the privilege (403,
/// [`serve_error`]), expecting exactly one call.
pub async fn serve_permission_denied(api: &MockApi, api_path: &str) {
    serve_error(api, api_path, 403, "permission check failed\n", 1).await;
}

/// Answers `GET /api2/json/version` as a PBS of release `version` (`3.2`) and patch `release`
/// (`4`) does (proxmox-backup `src/api2/version.rs`), expecting exactly one call: the client
/// reads it once and keeps it.
pub async fn serve_version(api: &MockApi, version: &str, release: &str) {
    let body = json!({"data": {"version": version, "release": release, "repoid": "d3adb33f"}});
    serve_json(api, "/version", &[], body).await;
}

/// A fixture by file name.
pub fn load(fixture: &str) -> Value {
    cpps_http::fixture!(fixture)
}

/// The `data` member of a fixture, decoded as `T` (panics naming the fixture when it does not
/// decode: a broken fixture is a bug in the test).
pub fn data<T: serde::de::DeserializeOwned>(fixture: &str) -> T {
    serde_json::from_value(load(fixture)["data"].clone())
        .unwrap_or_else(|e| panic!("fixture {fixture}: {e}"))
}

/// The token secret the tests use.
pub const TOKEN_SECRET: &str = "0b7a9c7e-3a53-4d6b-9d0a-2f0e6c1f1e55";

/// The `Authorization` value PBS expects for [`TOKEN_SECRET`]: note the `:` before the
/// secret (proxmox-backup's `extract_auth_data`; PVE writes `=`).
pub fn token_header() -> String {
    format!("PBSAPIToken=report@pbs!ro:{TOKEN_SECRET}")
}

/// A client of the mock server that authenticates with the API token `report@pbs!ro`.
pub fn token_client(api: &MockApi) -> cpps_pbs::Client {
    let credentials = cpps_pbs::credentials_for(
        "report@pbs!ro".parse().expect("a valid token id"),
        cpps_http::SecretString::from(TOKEN_SECRET),
    );
    cpps_pbs::Client::new(api.client(), credentials)
}

/// Answers `GET /api2/json{api_path}` only when the token header is sent, expecting one call.
pub async fn serve_authorized(
    api: &MockApi,
    api_path: &str,
    query: &[(&str, &str)],
    fixture: &str,
) {
    let call = get(api_path, query).and(header("authorization", token_header().as_str()));
    let answer = ResponseTemplate::new(200).set_body_json(load(fixture));
    let name = format!("GET {api_path} with the token");
    mount(api, call, answer, 1, name).await;
}

/// Answers `GET /access/permissions` (once) as PBS does for a token that sees every sync job
/// and remote: `Remote.Audit` and `Datastore.Audit` propagating from `/` (the shape of
/// proxmox-backup `src/api2/access/mod.rs` `list_permissions`: path → privilege → propagates).
///
/// Asked with `path`, it answers that path alone with the same privileges, as `list_permissions`
/// does where they propagate from `/` and no deeper ACL replaces them.
pub async fn serve_full_rights(api: &MockApi) {
    let all = json!({"Datastore.Audit": true, "Remote.Audit": true, "Sys.Audit": true});
    let rights = json!({"data": {"/": all, "/datastore": all, "/remote": all}});
    let call = get("/access/permissions", &[]).and(query_param_is_missing("path"));
    let answer = ResponseTemplate::new(200).set_body_json(rights);
    mount(api, call, answer, 1, "GET /access/permissions".to_owned()).await;
    Mock::given(method("GET"))
        .and(path("/api2/json/access/permissions"))
        .respond_with(move |request: &wiremock::Request| {
            let asked = request
                .url
                .query_pairs()
                .find(|(key, _)| key == "path")
                .map(|(_, value)| value.into_owned())
                .unwrap_or_default();
            ResponseTemplate::new(200).set_body_json(json!({"data": {asked: all.clone()}}))
        })
        .named("GET /access/permissions?path=")
        .mount(api.server())
        .await;
}

/// Answers `GET /access/permissions` without `path` (once) with `rights`, and with each
/// `path` of `paths` (once each) with its answer: `list_permissions` (proxmox-backup
/// `src/api2/access/mod.rs`) answers a `path` with the privileges looked up on that path
/// alone, and `{}` where the caller holds none there.
pub async fn serve_rights(api: &MockApi, rights: Value, paths: &[(&str, Value)]) {
    let call = get("/access/permissions", &[]).and(query_param_is_missing("path"));
    let answer = ResponseTemplate::new(200).set_body_json(rights);
    mount(api, call, answer, 1, "GET /access/permissions".to_owned()).await;
    for (asked, body) in paths {
        let call = get("/access/permissions", &[("path", *asked)]);
        let answer = ResponseTemplate::new(200).set_body_json(body.clone());
        let name = format!("GET /access/permissions?path={asked}");
        mount(api, call, answer, 1, name).await;
    }
}
