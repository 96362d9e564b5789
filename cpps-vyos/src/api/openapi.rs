//! `GET /openapi.json`: whether the router's API takes commit-confirm, read from the API's own
//! schema rather than guessed from its version.
//!
//! Why not from `/info`: `/info` arrived in vyos-1x PR #4380 (March 2025) and `confirm_time` in
//! PR #4533 (June 2025). The API's pydantic models drop fields they do not declare, so a rolling
//! build from between the two answers `/info` and commits a commit-confirm batch for good, with
//! no timer. FastAPI serves the schema of every route at `/openapi.json` (VyOS's `FastAPI(…)` in
//! `src/services/vyos-http-api-server` on `sagitta`, and `regenerate_docs` there on `current`;
//! a Starlette route, outside the app's key dependency), and the `/configure` request body names
//! the models `configure_op` takes (`Union[ConfigureModel, ConfigureListModel]`, `routers.py`):
//! `confirm_time` is among their properties exactly where the server honours it.

use cpps_http::{Request, StatusCode};
use serde_json::Value;

use crate::client::Client;
use crate::error::Error;

/// How deep `$ref`, `anyOf`, `oneOf` and `allOf` are followed; FastAPI's request bodies are one
/// or two levels deep, and a bound keeps a looping schema from looping the client.
const MAX_SCHEMA_DEPTH: usize = 8;

/// Whether the router's API honours commit-confirm (`confirm_time`), as its schema says.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CommitConfirmSupport {
    /// The `/configure` request schema has `confirm_time`.
    Yes,
    /// The schema was read and has no `confirm_time`: the server would drop the field and
    /// commit for good.
    No {
        /// What the schema showed.
        reason: String,
    },
    /// The schema could not be read or has no `/configure` request body: cannot tell, so the
    /// client does not assume it works.
    Unknown {
        /// Why.
        reason: String,
    },
}

impl CommitConfirmSupport {
    /// Whether a commit-confirm can be sent.
    pub fn is_supported(&self) -> bool {
        *self == CommitConfirmSupport::Yes
    }
}

/// Whether the request body of `POST route` in the OpenAPI document `doc` has a property
/// `field` in any model it takes; `None` when the document has no such request body.
pub fn request_has_field(doc: &Value, route: &str, field: &str) -> Option<bool> {
    let pointer = format!(
        "/paths/{}/post/requestBody/content",
        route.replace('/', "~1")
    );
    let content = doc.pointer(&pointer)?.as_object()?;
    let mut found = false;
    for media in content.values() {
        if let Some(schema) = media.get("schema") {
            found |= schema_has_field(doc, schema, field, 0);
        }
    }
    Some(found)
}

/// Whether `schema` (following `$ref` into `#/components/schemas` and the `anyOf`, `oneOf` and
/// `allOf` alternatives) has the property `field`.
fn schema_has_field(doc: &Value, schema: &Value, field: &str, depth: usize) -> bool {
    if depth > MAX_SCHEMA_DEPTH {
        return false;
    }
    if schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|p| p.contains_key(field))
    {
        return true;
    }
    if schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| doc.pointer(p))
        .is_some_and(|target| schema_has_field(doc, target, field, depth + 1))
    {
        return true;
    }
    ["anyOf", "oneOf", "allOf"].iter().any(|k| {
        schema
            .get(*k)
            .and_then(Value::as_array)
            .is_some_and(|alts| {
                alts.iter()
                    .any(|s| schema_has_field(doc, s, field, depth + 1))
            })
    })
}

impl Client {
    /// `GET /openapi.json`: whether `POST /configure` takes `confirm_time`, read from the API's
    /// own schema each time it is asked (an image upgrade or rollback changes it).
    ///
    /// # Errors
    /// [`Error::Http`] for transport failures. A schema that cannot be read or decoded is
    /// [`CommitConfirmSupport::Unknown`], not an error.
    pub async fn commit_confirm_support(&self) -> Result<CommitConfirmSupport, Error> {
        let response = self.http.execute(Request::get("openapi.json")).await?;
        if response.status() != StatusCode::OK {
            return Ok(CommitConfirmSupport::Unknown {
                reason: format!("GET /openapi.json answered {}", response.status()),
            });
        }
        let doc: Value = match response.json() {
            Ok(doc) => doc,
            Err(e) => {
                return Ok(CommitConfirmSupport::Unknown {
                    reason: format!("GET /openapi.json is not JSON: {e}"),
                });
            }
        };
        Ok(match request_has_field(&doc, "/configure", "confirm_time") {
            Some(true) => CommitConfirmSupport::Yes,
            Some(false) => CommitConfirmSupport::No {
                reason: "the API's schema (/openapi.json) has no confirm_time in the /configure request: the server would drop it and the change would be committed for good".to_owned(),
            },
            None => CommitConfirmSupport::Unknown {
                reason: "the API's schema (/openapi.json) has no /configure request body".to_owned(),
            },
        })
    }
}

impl Client {
    /// `GET /openapi.json`: whether the API has `POST /traceroute` (vyos-1x PR #4151, later 1.5
    /// builds: `traceroute_op` in `src/services/api/rest/routers.py`). FastAPI lists every
    /// route under `paths`.
    ///
    /// # Errors
    /// [`Error::Http`] for transport failures; [`Error::UnexpectedAnswer`] when the schema
    /// cannot be read (another status, not JSON), which cannot tell.
    pub async fn has_traceroute(&self) -> Result<bool, Error> {
        let response = self.http.execute(Request::get("openapi.json")).await?;
        let doc: Option<Value> = (response.status() == StatusCode::OK)
            .then(|| response.json().ok())
            .flatten();
        let doc = doc.ok_or_else(|| Error::UnexpectedAnswer {
            endpoint: "openapi.json",
            message: format!(
                "GET /openapi.json answered {} and no schema",
                response.status()
            ),
        })?;
        Ok(doc.pointer("/paths/~1traceroute/post").is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // FastAPI with pydantic v1 (`sagitta`) writes `{"title": "Data", "anyOf": [$ref…]}`; a
    // schema that refers to itself ends at the depth bound instead of looping.
    #[test]
    fn fields_are_found_through_refs_and_alternatives_only() {
        let doc = |list_props: Value| {
            json!({
                "paths": {"/configure": {"post": {"requestBody": {"content": {"application/json": {
                    "schema": {"title": "Data", "anyOf": [
                        {"$ref": "#/components/schemas/ConfigureModel"},
                        {"$ref": "#/components/schemas/ConfigureListModel"}
                    ]}
                }}}}}},
                "components": {"schemas": {
                    "ConfigureModel": {"properties": {"op": {}, "path": {}}},
                    "ConfigureListModel": {"properties": list_props},
                    "Loop": {"$ref": "#/components/schemas/Loop"}
                }}
            })
        };
        let with = doc(json!({"commands": {}, "confirm_time": {"type": "integer"}}));
        let without = doc(json!({"commands": {}}));
        assert_eq!(
            request_has_field(&with, "/configure", "confirm_time"),
            Some(true)
        );
        assert_eq!(
            request_has_field(&without, "/configure", "confirm_time"),
            Some(false)
        );
        assert_eq!(
            request_has_field(&without, "/config-file", "confirm_time"),
            None
        );
        let looping = json!({
            "paths": {"/configure": {"post": {"requestBody": {"content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Loop"}
            }}}}}},
            "components": {"schemas": {"Loop": {"$ref": "#/components/schemas/Loop"}}}
        });
        assert_eq!(
            request_has_field(&looping, "/configure", "confirm_time"),
            Some(false)
        );
    }
}
