//! The one error type of the crate: the Proxmox family's generic error over PBS's own errors
//! ([`PbsError`], none today).

use cpps_http::Delivery;

/// An error of the PBS client, of its configuration, or of a value that failed validation: the
/// variants every Proxmox client has ([`cpps_proxmox_family::FamilyError`]).
///
/// Errors of the Proxmox-family pieces it shares with `cpps-proxmox` (envelope, task wait,
/// ids) convert into it variant by variant. No variant holds a secret: messages come from
/// the server's answer, scrubbed of the client's own secrets, or name the value that was
/// wrong.
pub type Error = cpps_proxmox_family::FamilyError<PbsError>;

/// PBS's own errors: none yet (every PBS error is one the family shares); the type names the
/// product in the texts (`… is not supported by PBS 3.1.2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PbsError {}

impl cpps_proxmox_family::ProductError for PbsError {
    const NAME: &'static str = "PBS";

    fn config_text(name: &str, reason: &str) -> String {
        format!("{name} {reason}")
    }

    fn delivery(&self) -> Delivery {
        match *self {}
    }
}

impl cpps_proxmox_family::ProductClient for PbsError {}

#[cfg(test)]
mod tests {
    use super::*;
    use cpps_http::{Delivery, Method, StatusCode};
    use cpps_proxmox_family::ServerVersion;

    #[test]
    fn family_errors_convert_with_their_helpers_and_no_pve_wording() {
        let not_found = cpps_proxmox_family::Error::NotFound {
            method: Method::GET,
            url: "https://pbs1:8007/api2/json/admin/datastore/x/status"
                .parse()
                .unwrap(),
            status: StatusCode::NOT_FOUND,
            message: "datastore 'x' does not exist".to_owned(),
        };
        let error = Error::from(not_found);
        assert!(error.is_not_found());
        assert!(!error.is_not_supported());
        assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
        assert_eq!(error.delivery(), Delivery::Answered);
        assert!(!error.to_string().contains("PVE"), "{error}");
        let invalid = Error::from(cpps_proxmox_family::Error::invalid(
            "UPID",
            "x",
            "too short",
        ));
        assert_eq!(invalid.to_string(), "invalid UPID `x`: too short");
        assert_eq!(invalid.delivery(), Delivery::NotSent);
        let old = Error::NotSupported {
            what: "GET /admin/gc".to_owned(),
            version: ServerVersion::new(3, 1, 2),
            since: Some(ServerVersion::new(3, 2, 0)),
        };
        assert!(old.is_not_supported());
        assert_eq!(old.delivery(), Delivery::NotSent);
        assert_eq!(
            old.to_string(),
            "GET /admin/gc is not supported by PBS 3.1.2 (it needs PBS 3.2.0 or later)"
        );
    }
}
