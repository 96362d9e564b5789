//! The one error type of the crate, written by `cpps_proxmox_family::family_error!` from the variants
//! every Proxmox client shares, plus PBS's own.

use cpps_proxmox_family::ServerVersion;

cpps_proxmox_family::family_error! {
    /// An error of the PBS client, of its configuration, or of a value that failed validation.
    ///
    /// Errors of the Proxmox-family pieces it shares with `cpps-proxmox` (envelope, task wait,
    /// ids) convert into it variant by variant. No variant holds a secret: messages come from
    /// the server's answer, scrubbed of the client's own secrets, or name the value that was
    /// wrong.
    pub enum Error {
        product: "PBS",
        not_supported: NotSupported,
        answered: {},
        not_sent: {
            /// The server's release does not have this endpoint or parameter; nothing was sent.
            #[error("{what} is not supported by PBS {version} (it needs PBS {since} or later)")]
            NotSupported {
                /// What was asked for (`GET /admin/gc`).
                what: &'static str,
                /// The server's release.
                version: ServerVersion,
                /// The first release that has it.
                since: ServerVersion,
            },
            /// A configuration variable or setting is missing or wrong.
            #[error("{name} {reason}")]
            Config {
                /// The variable or setting (`PBS_REPOSITORY`, `PBS_PASSWORD`, `PBS_FINGERPRINT`).
                name: &'static str,
                /// What is wrong with it.
                reason: String,
            },
        },
        // `family::Error` is non-exhaustive: a variant added there is still an error here.
        from_family: cpps_proxmox_family::Error, other => Error::Invalid {
            kind: "answer",
            input: String::new(),
            reason: other.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cpps_http::{Delivery, Method, StatusCode};

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
            what: "GET /admin/gc",
            version: ServerVersion::new(3, 1, 2),
            since: ServerVersion::new(3, 2, 0),
        };
        assert!(old.is_not_supported());
        assert_eq!(old.delivery(), Delivery::NotSent);
        assert_eq!(
            old.to_string(),
            "GET /admin/gc is not supported by PBS 3.1.2 (it needs PBS 3.2.0 or later)"
        );
    }
}
