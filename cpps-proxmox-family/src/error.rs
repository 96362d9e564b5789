//! The error of the Proxmox-family layer, and [`family_error!`](crate::family_error), which
//! writes it and each product crate's own `Error` (`cpps_proxmox::Error`, `cpps_pbs::Error`)
//! from one list of the variants they share, so that neither product exposes the other's
//! wording and no variant, helper or conversion is written twice.

/// Writes a Proxmox-family error enum: the variants every Proxmox client has (`Http`, `Api`,
/// `NotFound`, `Conflict`, `TaskFailed`, `TaskTimeout`, `Invalid`), the product's own variants
/// (grouped by whether the request reached the server), the helpers every cpps error has
/// (`delivery()`, `status()`, `is_not_found()`, `is_conflict()`, `field_errors()`,
/// `invalid()`), and, for a product crate, `From<family::Error>` variant by variant.
/// `not_supported` names the product's variant for a release that lacks what was asked: it
/// gives `is_not_supported()` and the [`PartFailure`](crate::PartFailure) that report
/// parts keep.
///
/// `product` names the server in the variants' documentation (`"PVE"`, `"PBS"`, or `"the
/// Proxmox"` for the family itself); the shared variants' `Display` texts never name a product,
/// so a PBS user never reads PVE wording (a product's own variants, such as its `NotSupported`,
/// name their product). `from_family` is the path of `family::Error` as the calling crate names
/// it; the optional `other => …` arm maps variants a later family adds (a crate other than
/// `cpps-proxmox` must have it, `family::Error` being `#[non_exhaustive]`).
///
/// ```
/// cpps_proxmox_family::family_error! {
///     /// The error of a Proxmox product client.
///     pub enum Error {
///         product: "PMG",
///         answered: {},
///         not_sent: {
///             /// The client configuration is wrong.
///             #[error("invalid client configuration: {reason}")]
///             Config {
///                 /// What is wrong.
///                 reason: String,
///             },
///         },
///         from_family: cpps_proxmox_family::Error, other => Error::Config { reason: other.to_string() },
///     }
/// }
/// let error = Error::from(cpps_proxmox_family::Error::invalid("UPID", "x", "too short"));
/// assert_eq!(error.to_string(), "invalid UPID `x`: too short");
/// assert_eq!(error.delivery(), cpps_http::Delivery::NotSent);
/// ```
#[macro_export]
macro_rules! family_error {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            product: $product:literal,
            $(not_supported: $not_supported:ident,)?
            answered: { $(
                $(#[$answered_meta:meta])*
                $answered:ident { $( $(#[$answered_field_meta:meta])* $answered_field:ident : $answered_type:ty ),* $(,)? }
            ),* $(,)? },
            not_sent: { $(
                $(#[$not_sent_meta:meta])*
                $not_sent:ident { $( $(#[$not_sent_field_meta:meta])* $not_sent_field:ident : $not_sent_type:ty ),* $(,)? }
            ),* $(,)? },
            $(from_family: $family:path $(, $other:ident => $fallback:expr)? ,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, thiserror::Error)]
        #[non_exhaustive]
        pub enum $name {
            /// The request failed in the shared runtime (connection, TLS, timeout, decoding,
            /// auth).
            #[error("request failed")]
            Http(#[from] $crate::__private::cpps_http::Error),

            #[doc = concat!("The ", $product, " server answered with an error status and a message ",
                "(the body's `message`, or the HTTP reason phrase on servers that put it only there).")]
            #[error("{method} {url} answered {status}: {message}")]
            Api {
                /// The request method.
                method: $crate::__private::cpps_http::Method,
                /// The URL that was requested.
                url: $crate::__private::cpps_http::Url,
                /// The HTTP status.
                status: $crate::__private::cpps_http::StatusCode,
                /// The server's message, trimmed.
                message: ::std::string::String,
                /// Per-parameter messages of a 400 "Parameter verification failed." answer (the
                /// `errors` map), sorted by parameter name.
                errors: ::std::collections::BTreeMap<::std::string::String, ::std::string::String>,
            },

            #[doc = concat!("The object does not exist: a 404, a ", $product,
                " HTTP 500 \"… does not exist\" answer, or a 400/500 \"no such …\" naming an object.")]
            #[error("{method} {url}: not found: {message}")]
            NotFound {
                /// The request method.
                method: $crate::__private::cpps_http::Method,
                /// The URL that was requested.
                url: $crate::__private::cpps_http::Url,
                /// The HTTP status the server used (404 or 500).
                status: $crate::__private::cpps_http::StatusCode,
                /// The server's message, trimmed.
                message: ::std::string::String,
            },

            /// A write sent the configuration digest it read, and the configuration has changed
            /// since (someone else wrote it): nothing was changed. Read again and decide again.
            #[error("{method} {url}: the configuration changed since it was read: {message}")]
            Conflict {
                /// The request method.
                method: $crate::__private::cpps_http::Method,
                /// The URL that was requested.
                url: $crate::__private::cpps_http::Url,
                /// The HTTP status the server used.
                status: $crate::__private::cpps_http::StatusCode,
                /// The server's message, trimmed.
                message: ::std::string::String,
            },

            #[doc = concat!("A ", $product, " task ended with an error exit status.")]
            #[error("task {upid} failed: {exit_status}")]
            TaskFailed {
                /// The task.
                upid: ::std::boxed::Box<$crate::Upid>,
                /// The exit status as the server wrote it (`Error: …`, or a bare error message).
                exit_status: ::std::string::String,
                /// The last lines of the task log, the last one included.
                log_tail: ::std::vec::Vec<::std::string::String>,
            },

            /// A task did not stop within the time allowed.
            #[error("task {upid} still running after {waited:?}")]
            TaskTimeout {
                /// The task.
                upid: ::std::boxed::Box<$crate::Upid>,
                /// How long the caller waited.
                waited: ::std::time::Duration,
            },

            /// A value does not have the syntax it must have (a UPID, an id, a name, a property
            /// string): nothing was sent.
            #[error("invalid {kind} `{input}`: {reason}")]
            Invalid {
                /// What kind of value was expected (`UPID`, `user id`, `datastore name`, …).
                kind: &'static str,
                /// The offending input, shortened to 120 characters.
                input: ::std::string::String,
                /// What is wrong with it.
                reason: ::std::string::String,
            },

            $(
                $(#[$answered_meta])*
                $answered { $( $(#[$answered_field_meta])* $answered_field: $answered_type ),* },
            )*
            $(
                $(#[$not_sent_meta])*
                $not_sent { $( $(#[$not_sent_field_meta])* $not_sent_field: $not_sent_type ),* },
            )*
        }

        impl $name {
            /// Whether the request may have reached the server.
            pub fn delivery(&self) -> $crate::__private::cpps_http::Delivery {
                use $crate::__private::cpps_http::Delivery;
                match self {
                    Self::Http(e) => e.delivery(),
                    Self::Api { .. }
                    | Self::NotFound { .. }
                    | Self::Conflict { .. }
                    | Self::TaskFailed { .. }
                    | Self::TaskTimeout { .. }
                    $(| Self::$answered { .. })* => Delivery::Answered,
                    Self::Invalid { .. } $(| Self::$not_sent { .. })* => Delivery::NotSent,
                }
            }

            /// The HTTP status of the answer, when the server answered.
            pub fn status(&self) -> ::std::option::Option<$crate::__private::cpps_http::StatusCode> {
                match self {
                    Self::Http(e) => e.status(),
                    Self::Api { status, .. }
                    | Self::NotFound { status, .. }
                    | Self::Conflict { status, .. } => ::std::option::Option::Some(*status),
                    _ => ::std::option::Option::None,
                }
            }

            /// Whether the error says the object does not exist.
            pub fn is_not_found(&self) -> bool {
                ::std::matches!(self, Self::NotFound { .. })
            }

            /// Whether a write was refused because the configuration changed since it was read.
            pub fn is_conflict(&self) -> bool {
                ::std::matches!(self, Self::Conflict { .. })
            }

            /// The per-parameter messages of a 400 answer (`None` for other errors).
            pub fn field_errors(
                &self,
            ) -> ::std::option::Option<&::std::collections::BTreeMap<::std::string::String, ::std::string::String>> {
                match self {
                    Self::Api { errors, .. } if !errors.is_empty() => ::std::option::Option::Some(errors),
                    _ => ::std::option::Option::None,
                }
            }

            /// A validation error ([`Self::Invalid`]), with the input shortened to 120
            /// characters.
            pub fn invalid(
                kind: &'static str,
                input: &str,
                reason: impl ::std::convert::Into<::std::string::String>,
            ) -> Self {
                Self::Invalid {
                    kind,
                    input: $crate::__private::shorten(input),
                    reason: reason.into(),
                }
            }
        }

        $(
            impl $name {
                /// Whether the server's release lacks what was asked for (nothing was sent).
                pub fn is_not_supported(&self) -> bool {
                    ::std::matches!(self, Self::$not_supported { .. })
                }
            }

            impl $crate::PartFailure for $name {
                fn status(&self) -> ::std::option::Option<$crate::__private::cpps_http::StatusCode> {
                    $name::status(self)
                }

                fn is_not_supported(&self) -> bool {
                    $name::is_not_supported(self)
                }
            }
        )?

        $(
            impl ::std::convert::From<$family> for $name {
                fn from(error: $family) -> Self {
                    use $family as F;
                    match error {
                        F::Http(e) => Self::Http(e),
                        F::Api { method, url, status, message, errors } => {
                            Self::Api { method, url, status, message, errors }
                        }
                        F::NotFound { method, url, status, message } => {
                            Self::NotFound { method, url, status, message }
                        }
                        F::Conflict { method, url, status, message } => {
                            Self::Conflict { method, url, status, message }
                        }
                        F::TaskFailed { upid, exit_status, log_tail } => {
                            Self::TaskFailed { upid, exit_status, log_tail }
                        }
                        F::TaskTimeout { upid, waited } => Self::TaskTimeout { upid, waited },
                        F::Invalid { kind, input, reason } => Self::Invalid { kind, input, reason },
                        $($other => $fallback,)?
                    }
                }
            }
        )?
    };
}

crate::family_error! {
    /// An error of a Proxmox-family piece ([`decode_envelope`](crate::decode_envelope),
    /// [`wait_task`](crate::wait_task), the id and UPID parsers, the token splitter).
    ///
    /// The product crates convert it into their own error (`cpps_proxmox::Error`,
    /// `cpps_pbs::Error`, written by the same [`family_error!`](crate::family_error)) variant
    /// by variant. No variant holds a secret: messages come from the server's answer, scrubbed
    /// of the client's own secrets, or name the value that was wrong.
    pub enum Error {
        product: "Proxmox",
        answered: {},
        not_sent: {},
    }
}

/// `input` cut to 120 characters, with `…` when cut.
pub fn shorten(input: &str) -> String {
    let mut shown: String = input.chars().take(120).collect();
    if input.chars().nth(120).is_some() {
        shown.push('…');
    }
    shown
}
