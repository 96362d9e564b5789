//! Partial results (`family::part`) with the PVE client's own error: its status, and a
//! release that lacks a feature, are kept on the part.

use std::time::Duration;

use cpps_http::StatusCode;
use cpps_proxmox::Error;
use cpps_proxmox::family::ServerVersion;
use cpps_proxmox::family::{PartError, bounded};
use tokio::time::Instant;

#[tokio::test]
async fn a_part_keeps_its_error_or_says_it_ran_out_of_time() {
    let read: Result<u32, PartError> = bounded(None, async { Ok::<_, Error>(7) }).await;
    assert_eq!(read, Ok(7));

    let unsupported = Error::NotSupported {
        what: "failback".to_owned(),
        version: ServerVersion::new(8, 4, 1),
        since: None,
    };
    let failed = bounded(None, async { Err::<u32, _>(unsupported) })
        .await
        .unwrap_err()
        .named("HA resources");
    assert_eq!(failed.part, "HA resources");
    assert_eq!(failed.error, "failback is not supported by PVE 8.4.1");
    assert_eq!(failed.status, None);
    assert!(failed.not_supported);

    // An answered error keeps its status and is not taken for a missing feature.
    let missing = Error::from(cpps_proxmox::family::Error::NotFound {
        method: cpps_http::Method::GET,
        url: "https://pve1:8006/api2/json/cluster/ha/resources"
            .parse()
            .unwrap(),
        status: StatusCode::NOT_FOUND,
        message: "no such resource".to_owned(),
    });
    assert!(!missing.is_not_supported());
    let failed = bounded(None, async { Err::<u32, _>(missing) })
        .await
        .unwrap_err()
        .named("HA resources");
    assert_eq!(failed.status, Some(404));
    assert!(!failed.not_supported, "{failed:?}");

    let deadline = Instant::now() + Duration::from_millis(20);
    let slow = async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok::<u32, Error>(1)
    };
    let late = bounded(Some(deadline), slow)
        .await
        .unwrap_err()
        .named("nodes");
    assert_eq!(late, PartError::out_of_time("nodes"));
    assert_eq!(late.error, "not finished within the run's time limit");
    assert!(!late.not_supported);
}
