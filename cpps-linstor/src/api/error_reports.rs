//! Error reports.

use cpps_http::{Request, encode_segment};

use crate::client::Client;
use crate::error::Error;
use crate::types::misc::ErrorReport;

impl Client {
    /// `GET /v1/error-reports?since=…`: error reports since a time in milliseconds since the
    /// Unix epoch (all when `None`), without their text.
    pub async fn error_reports(&self, since_ms: Option<i64>) -> Result<Vec<ErrorReport>, Error> {
        let mut request = Request::get("v1/error-reports");
        if let Some(since) = since_ms {
            request = request.query("since", since);
        }
        self.get_json(request).await
    }

    /// `GET /v1/error-reports/{reportid}`: one report with its text (`None` when unknown).
    pub async fn error_report(&self, id: &str) -> Result<Option<ErrorReport>, Error> {
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            return Err(Error::InvalidArgument {
                name: "id",
                reason: format!("`{id}` is not an error report id"),
            });
        }
        let reports: Vec<ErrorReport> = self
            .get_json(
                Request::get(format!("v1/error-reports/{}", encode_segment(id)))
                    .query("withContent", true),
            )
            .await?;
        Ok(reports.into_iter().next())
    }
}
