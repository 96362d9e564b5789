//! Remotes, backups shipped to them and backup schedules.

use cpps_http::{Request, encode_segment};

use crate::client::Client;
use crate::error::Error;
use crate::names::ResourceName;
use crate::types::backup::{
    BackupList, DataList, Remotes, RemotesAnswer, Schedule, ScheduledResource,
};

impl Client {
    /// `GET /v1/remotes`: every S3, LINSTOR and EBS remote (without their secrets).
    pub async fn remotes(&self) -> Result<Remotes, Error> {
        let answer: RemotesAnswer = self.get_json(Request::get("v1/remotes")).await?;
        Ok(answer.into_remotes())
    }

    /// `GET /v1/remotes/{remote}/backups[?rsc_name=…]`: the backups in one remote (S3), of one
    /// resource when given.
    pub async fn backups(
        &self,
        remote: &str,
        resource: Option<&ResourceName>,
    ) -> Result<BackupList, Error> {
        if remote.is_empty() || remote.contains('/') {
            return Err(Error::InvalidArgument {
                name: "remote",
                reason: format!("`{remote}` is not a remote name"),
            });
        }
        let mut request = Request::get(format!("v1/remotes/{}/backups", encode_segment(remote)));
        if let Some(resource) = resource {
            request = request.query("rsc_name", resource);
        }
        self.get_json(request).await
    }

    /// `GET /v1/schedules`: every backup schedule.
    pub async fn schedules(&self) -> Result<Vec<Schedule>, Error> {
        let list: DataList<Schedule> = self.get_json(Request::get("v1/schedules")).await?;
        Ok(list.data)
    }

    /// `GET /v1/view/schedules-by-resource`: which schedule ships which resource to which
    /// remote, with the time of the last shipping.
    pub async fn scheduled_resources(&self) -> Result<Vec<ScheduledResource>, Error> {
        let list: DataList<ScheduledResource> = self
            .get_json(Request::get("v1/view/schedules-by-resource"))
            .await?;
        Ok(list.data)
    }
}
