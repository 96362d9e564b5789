//! The one error type of the crate: the Proxmox family's generic error over PVE's own errors
//! ([`PveError`], the HA waits).

use std::time::Duration;

use cpps_http::Delivery;

/// An error of the Proxmox VE client: the variants every Proxmox client has
/// ([`FamilyError`](crate::family::FamilyError)), and PVE's own in [`Error::Product`]. Errors of
/// the Proxmox-family pieces ([`crate::family::Error`]) convert into it variant by variant.
///
/// No variant holds a secret: messages come from the server's answer (redacted by
/// `cpps-http`) or name the value that was wrong.
pub type Error = crate::family::FamilyError<PveError>;

/// PVE's own errors: an HA request that was queued (its task ended OK) and whose outcome the
/// HA manager did not show as asked, where the request reached the server; or an HA write
/// refused before it was sent ([`PveError::HaNotHonoured`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PveError {
    /// The HA manager did not show the requested state within the time allowed (after a
    /// `hastart`/`hastop`/`hamigrate` task, which only queues the request).
    #[error("HA resource {sid} not {wanted} after {waited:?} ({last_seen})")]
    HaTimeout {
        /// The resource (`vm:100`).
        sid: String,
        /// What was waited for (`started`, `stopped`, `on node pve2`).
        wanted: String,
        /// What the HA manager showed last.
        last_seen: String,
        /// How long the caller waited.
        waited: Duration,
    },
    /// The HA manager shows that a queued action cannot happen (the service is in `error`,
    /// being removed, or ignored), or the request cannot be followed.
    #[error("HA resource {sid} will not be {wanted}: {reason}")]
    HaWait {
        /// The resource.
        sid: String,
        /// What was waited for.
        wanted: String,
        /// Why it will not happen.
        reason: String,
    },
    /// An HA request was queued (its `hastart`/`hastop`/`hamigrate` task ended OK), but its
    /// outcome cannot be read with the caller's rights: the action may still happen.
    /// `GET /cluster/ha/status/current` needs `Sys.Audit` on `/`.
    #[error("HA request for {sid} ({wanted}) was queued, but its outcome cannot be read: {reason}")]
    HaUnobserved {
        /// The resource or guest.
        sid: String,
        /// What was waited for.
        wanted: String,
        /// Why it cannot be read.
        reason: String,
    },
    /// An HA setting the HA manager would not honour, so the write was refused and nothing was
    /// sent: for example `failback` while a node runs PVE 8, whose CRM ignores it.
    #[error("HA {what} would not be honoured, so nothing was sent: {reason}")]
    HaNotHonoured {
        /// The setting (`` `failback` ``).
        what: String,
        /// Why the HA manager would not honour it.
        reason: String,
    },
}

impl crate::family::ProductError for PveError {
    const NAME: &'static str = "PVE";

    fn config_text(_name: &str, reason: &str) -> String {
        // PVE's reasons name the setting themselves (`PROXMOX_VE_ENDPOINT is not set …`).
        format!("invalid client configuration: {reason}")
    }

    fn delivery(&self) -> Delivery {
        match self {
            Self::HaNotHonoured { .. } => Delivery::NotSent,
            _ => Delivery::Answered,
        }
    }
}

impl crate::family::ProductClient for PveError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::ServerVersion;

    /// The texts PVE's errors printed when a macro wrote the type; the generic family error
    /// keeps them.
    #[test]
    fn pve_texts_and_helpers_are_kept() {
        let config = Error::Config {
            name: "PROXMOX_VE_ENDPOINT",
            reason: "PROXMOX_VE_ENDPOINT is not set (e.g. https://host:8006/)".to_owned(),
        };
        assert_eq!(
            config.to_string(),
            "invalid client configuration: PROXMOX_VE_ENDPOINT is not set (e.g. https://host:8006/)"
        );
        assert_eq!(config.delivery(), Delivery::NotSent);
        let old = Error::NotSupported {
            what: "HA `failback` (PVE 9 and later)".to_owned(),
            version: ServerVersion::new(8, 4, 1),
            since: None,
        };
        assert_eq!(
            old.to_string(),
            "HA `failback` (PVE 9 and later) is not supported by PVE 8.4.1"
        );
        assert!(old.is_not_supported());
        let timeout = Error::from(PveError::HaTimeout {
            sid: "vm:100".to_owned(),
            wanted: "started".to_owned(),
            last_seen: "request_start".to_owned(),
            waited: Duration::from_secs(5),
        });
        assert_eq!(
            timeout.to_string(),
            "HA resource vm:100 not started after 5s (request_start)"
        );
        assert_eq!(timeout.delivery(), Delivery::Answered);
        assert!(!timeout.is_not_found() && !timeout.is_not_supported());
        assert_eq!(timeout.status(), None);
    }
}
