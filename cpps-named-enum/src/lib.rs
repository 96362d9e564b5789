//! The closed string enum of every crate of the workspace: [`named_enum!`] declares an enum whose
//! variants each have one fixed name, for the project's own kinds and verdicts (a report's
//! severity, a component's kind, a GPU's health).
//!
//! It has no dependency, so that `cpps-topology`, which without its `live` feature depends on no
//! client crate and not on the HTTP runtime, declares its enums with the same macro as the client
//! crates. `cpps-http` re-exports it (`cpps_http::named_enum!`) beside `keep_unknown_enum!`, the
//! open enum for a server's values, which keeps unknown values and needs serde.

#![forbid(unsafe_code)]

/// Declares a closed enum whose variants each have one fixed name, with `as_str` returning that
/// name and `Display` writing it (through [`std::fmt::Formatter::pad`], so width and alignment
/// work): for the project's own kinds and verdicts, where a value outside the list cannot occur
/// (for a server's values, which can, see `cpps_http::keep_unknown_enum!`).
///
/// Attributes (docs, derives, serde) pass through unchanged, so a serde name stays what its own
/// attribute says; the name given here is what messages and reports show. The enum must be
/// `Copy` (`as_str` takes `self`).
///
/// ```
/// cpps_named_enum::named_enum! {
///     /// A verdict.
///     #[derive(Debug, Clone, Copy, PartialEq, Eq)]
///     pub enum Verdict {
///         /// Fine.
///         Healthy => "healthy",
///         /// Not fine.
///         Degraded => "degraded",
///     }
/// }
/// assert_eq!(Verdict::Degraded.as_str(), "degraded");
/// assert_eq!(format!("[{:<8}]", Verdict::Healthy), "[healthy ]");
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$variant_attr:meta])* $variant:ident => $text:literal, )+
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$variant_attr])* $variant, )+
        }

        impl $name {
            /// The variant's name, one of:
            $( #[doc = concat!("- `", $text, "`")] )+
            $vis fn as_str(self) -> &'static str {
                match self {
                    $( Self::$variant => $text, )+
                }
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.pad(self.as_str())
            }
        }
    };
}
