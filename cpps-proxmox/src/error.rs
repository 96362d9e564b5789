//! The one error type of the crate, written by [`family_error!`](crate::family_error) from the
//! variants every Proxmox client shares, plus PVE's own.

use std::time::Duration;

crate::family_error! {
    /// An error of the Proxmox VE client. Errors of the Proxmox-family pieces
    /// ([`crate::family::Error`]) convert into it variant by variant.
    ///
    /// No variant holds a secret: messages come from the server's answer (redacted by
    /// `cpps-http`) or name the value that was wrong.
    pub enum Error {
        product: "PVE",
        not_supported: NotSupported,
        answered: {
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
            /// The HA manager shows that a queued action cannot happen (the service is in
            /// `error`, being removed, or ignored), or the request cannot be followed.
            #[error("HA resource {sid} will not be {wanted}: {reason}")]
            HaWait {
                /// The resource.
                sid: String,
                /// What was waited for.
                wanted: String,
                /// Why it will not happen.
                reason: String,
            },
            /// An HA request was queued (its `hastart`/`hastop`/`hamigrate` task ended OK), but
            /// its outcome cannot be read with the caller's rights: the action may still
            /// happen. `GET /cluster/ha/status/current` needs `Sys.Audit` on `/`.
            #[error("HA request for {sid} ({wanted}) was queued, but its outcome cannot be read: {reason}")]
            HaUnobserved {
                /// The resource or guest.
                sid: String,
                /// What was waited for.
                wanted: String,
                /// Why it cannot be read.
                reason: String,
            },
        },
        not_sent: {
            /// A server release that lacks what was asked for; nothing was sent.
            #[error("{what} is not supported by PVE {version}")]
            NotSupported {
                /// What was asked for.
                what: String,
                /// The server's release.
                version: crate::family::ServerVersion,
            },
            /// The client configuration is incomplete or inconsistent.
            #[error("invalid client configuration: {reason}")]
            Config {
                /// What is wrong, naming the setting.
                reason: String,
            },
        },
        // `family::Error` is non-exhaustive: a variant added there is still an error here.
        from_family: crate::family::Error, other => Error::Invalid {
            kind: "answer",
            input: String::new(),
            reason: other.to_string(),
        },
    }
}
