//! Crate-internal macros.

/// Declares a closed enum whose variants each have one fixed name, with `as_str` returning that
/// name and `Display` writing it (through [`std::fmt::Formatter::pad`], so width and alignment
/// work).
///
/// Attributes (docs, derives, serde) pass through unchanged, so a serde name stays what its own
/// attribute says; the name given here is what messages and reports show.
///
/// ```text
/// named_enum! {
///     /// How serious a finding is.
///     #[derive(Debug, Clone, Copy)]
///     pub enum Severity {
///         /// A fact worth seeing.
///         Info => "info",
///         /// A known gap.
///         Warning => "warning",
///     }
/// }
/// ```
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
