//! The string types of every crate of the workspace, each declared by one macro:
//!
//! - [`named_enum!`]: an enum whose variants each have one fixed name. Closed, for the
//!   project's own kinds and verdicts (a report's severity, a component's kind); or open, with a
//!   last `Unknown(String)` variant, for a server's values, so that a value a newer server adds
//!   is kept rather than rejected.
//! - [`validated_string!`]: a newtype over a string that a check function validates whenever
//!   one is made (from code, `FromStr` or serde), for names and ids.
//!
//! It depends only on serde, so that `cpps-topology`, which without its `live` feature depends
//! on no client crate and not on the HTTP runtime, declares its types with the same macros as
//! the client crates.

#![forbid(unsafe_code)]

#[doc(hidden)]
pub mod __private {
    //! What the macros expand to in other crates.
    pub use serde;
}

/// Declares an enum whose variants each have one fixed name, with `as_str` returning that name
/// and `Display` writing it (through [`std::fmt::Formatter::pad`], so width and alignment work).
///
/// Attributes (docs, derives, serde) pass through unchanged; the macro derives nothing.
///
/// **Closed** (no `_` arm): for the project's own kinds and verdicts, where a value outside the
/// list cannot occur. The enum must be `Copy` (`as_str` takes `self` and returns a
/// `&'static str`); a serde name stays what its own attribute says.
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
///
/// **Open** (a last `_ => Unknown(String)` arm): for a value a server sends. A value outside the
/// list is kept, as the server wrote it, in the `Unknown` variant the macro adds, so that a
/// value added by a newer server never breaks decoding. It also gets `KNOWN` (the names),
/// `From<&str>`, `FromStr` (infallible) and serde as the string. A variant may accept other
/// spellings after its own (`Ssl => "SSL" | "Ssl"`); it is written as the first. With
/// `impl JsonSchema;` after the enum, a `schemars` schema (`examples`, not `enum`: any other
/// string is accepted) is emitted under the calling crate's feature `schema`.
///
/// ```
/// cpps_named_enum::named_enum! {
///     /// A colour.
///     #[derive(Debug, Clone, PartialEq, Eq, Hash)]
///     #[non_exhaustive]
///     pub enum Colour {
///         /// Red.
///         Red => "red" | "RED",
///         _ => Unknown(String),
///     }
/// }
/// assert_eq!("blue".parse::<Colour>().unwrap(), Colour::Unknown("blue".to_owned()));
/// assert_eq!(Colour::from("RED").as_str(), "red");
/// assert_eq!(Colour::KNOWN, ["red"]);
/// ```
#[macro_export]
macro_rules! named_enum {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident => $text:literal $(| $alias:literal)* , )+
            $( _ => $unknown:ident(String) $(,)? )?
        }
        $( impl $schema:ident; )?
    ) => {
        $crate::named_enum! {
            @expand [$($unknown)?] [$($schema)?]
            $(#[$attr])*
            $vis enum $name {
                $( $(#[$vattr])* $variant => $text $(| $alias)* , )+
            }
        }
    };

    // Closed.
    (
        @expand [] []
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident => $text:literal , )+
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$vattr])* $variant, )+
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

    // Open: unknown values are kept.
    (
        @expand [$unknown:ident] [$($schema:ident)?]
        $(#[$attr:meta])*
        $vis:vis enum $name:ident {
            $( $(#[$vattr:meta])* $variant:ident => $text:literal $(| $alias:literal)* , )+
        }
    ) => {
        $(#[$attr])*
        $vis enum $name {
            $( $(#[$vattr])* $variant, )+
            /// A value this client does not know, kept as the server wrote it.
            $unknown(::std::string::String),
        }

        impl $name {
            /// The values this client knows, as the server writes them.
            $vis const KNOWN: &'static [&'static str] = &[$($text),+];

            /// The value as the server writes it.
            $vis fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $text, )+
                    Self::$unknown(other) => other,
                }
            }
        }

        impl ::std::convert::From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $text $(| $alias)* => Self::$variant, )+
                    other => Self::$unknown(other.to_owned()),
                }
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;

            fn from_str(value: &str) -> ::std::result::Result<Self, Self::Err> {
                ::std::result::Result::Ok(Self::from(value))
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                let value = <::std::borrow::Cow<'de, str> as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                ::std::result::Result::Ok(Self::from(value.as_ref()))
            }
        }

        $(
            $crate::named_enum!(@schema $schema $name);
        )?
    };

    (@schema JsonSchema $name:ident) => {
        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                // `examples`, not `enum`: any other string is accepted and kept.
                schemars::json_schema!({ "type": "string", "examples": $name::KNOWN })
            }
        }
    };
}

/// What [`validated_string!`] gives every type it declares, beyond its inherent methods: make
/// one from the text already held in the inner type (an `Arc<str>` shared rather than copied),
/// and read that inner value.
pub trait ValidatedString: Sized {
    /// What holds the text (`String`, `Arc<str>`).
    type Inner;
    /// Why a text is refused.
    type Error;

    /// Validates `inner` and wraps it without copying.
    fn from_inner(inner: Self::Inner) -> Result<Self, Self::Error>;

    /// The value holding the text.
    fn inner(&self) -> &Self::Inner;
}

/// Declares a newtype over a string (`String`, `Arc<str>`, anything with `From<String>`,
/// `From<&str>` and `Deref<Target = str>`) whose every value passed `check`, a
/// `fn(&str) -> Result<(), error>`: `new` (from anything `Into<String>`), `as_str`, `Display`,
/// `FromStr`, `TryFrom<&str>`, `TryFrom<String>`, `From<Self> for String`, `AsRef<str>`,
/// `Borrow<str>`, [`ValidatedString`], and serde as the string, checked when read.
///
/// Attributes (docs, derives) pass through unchanged; the macro derives nothing. With
/// `schema = expr;` (a `schemars::Schema`), a `schemars` schema is emitted under the calling
/// crate's feature `schema`.
///
/// ```
/// cpps_named_enum::validated_string! {
///     /// A label.
///     #[derive(Debug, Clone, PartialEq, Eq, Hash)]
///     pub struct Label(String);
///     check = |text| if text.is_empty() { Err("must not be empty".to_owned()) } else { Ok(()) };
///     error = String;
/// }
/// assert_eq!("web".parse::<Label>().unwrap().as_str(), "web");
/// assert_eq!(Label::new("").unwrap_err(), "must not be empty");
/// assert!(serde_json::from_str::<Label>("\"\"").is_err());
/// ```
#[macro_export]
macro_rules! validated_string {
    (
        $(#[$attr:meta])*
        $vis:vis struct $name:ident($inner:ty);
        check = $check:expr;
        error = $error:ty;
        $( schema = $schema:expr; )?
    ) => {
        $(#[$attr])*
        $vis struct $name($inner);

        impl $name {
            /// Validates and wraps the text.
            $vis fn new(
                text: impl ::std::convert::Into<::std::string::String>,
            ) -> ::std::result::Result<Self, $error> {
                let text: ::std::string::String = text.into();
                <Self as $crate::ValidatedString>::from_inner(<$inner>::from(text))
            }

            /// The text.
            $vis fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl $crate::ValidatedString for $name {
            type Inner = $inner;
            type Error = $error;

            fn from_inner(inner: $inner) -> ::std::result::Result<Self, $error> {
                let check: fn(&str) -> ::std::result::Result<(), $error> = $check;
                check(&inner)?;
                ::std::result::Result::Ok(Self(inner))
            }

            fn inner(&self) -> &$inner {
                &self.0
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $error;

            fn from_str(text: &str) -> ::std::result::Result<Self, $error> {
                <Self as $crate::ValidatedString>::from_inner(<$inner>::from(text))
            }
        }

        impl ::std::convert::TryFrom<&str> for $name {
            type Error = $error;

            fn try_from(text: &str) -> ::std::result::Result<Self, $error> {
                text.parse()
            }
        }

        impl ::std::convert::TryFrom<::std::string::String> for $name {
            type Error = $error;

            fn try_from(text: ::std::string::String) -> ::std::result::Result<Self, $error> {
                Self::new(text)
            }
        }

        impl ::std::convert::From<$name> for ::std::string::String {
            fn from(value: $name) -> ::std::string::String {
                ::std::string::String::from(&*value.0)
            }
        }

        impl ::std::convert::AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl ::std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl $crate::__private::serde::Serialize for $name {
            fn serialize<S: $crate::__private::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(&self.0)
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                let text = <::std::string::String as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                Self::new(text).map_err(<D::Error as $crate::__private::serde::de::Error>::custom)
            }
        }

        $(
            #[cfg(feature = "schema")]
            impl schemars::JsonSchema for $name {
                fn schema_name() -> ::std::borrow::Cow<'static, str> {
                    ::std::stringify!($name).into()
                }

                fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                    $schema
                }
            }
        )?
    };
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::ValidatedString;

    crate::named_enum! {
        /// A node's kind, as LINSTOR writes it (both spellings decode).
        #[derive(Debug, Clone, PartialEq, Eq)]
        enum Kind {
            /// A satellite.
            Satellite => "SATELLITE" | "Satellite",
            /// A controller.
            Controller => "CONTROLLER",
            _ => Unknown(String),
        }
    }

    #[test]
    fn open_enums_keep_unknown_values_and_write_the_first_spelling() {
        assert_eq!(Kind::from("Satellite"), Kind::Satellite);
        assert_eq!(Kind::Satellite.to_string(), "SATELLITE");
        let odd: Kind = serde_json::from_str("\"EVICTED\"").unwrap();
        assert_eq!(odd, Kind::Unknown("EVICTED".to_owned()));
        assert_eq!(serde_json::to_string(&odd).unwrap(), "\"EVICTED\"");
        assert_eq!(format!("[{:>10}]", Kind::Controller), "[CONTROLLER]");
        assert_eq!(Kind::KNOWN, ["SATELLITE", "CONTROLLER"]);
    }

    #[derive(Debug, PartialEq, Eq)]
    struct Refused(String);

    impl std::fmt::Display for Refused {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "refused `{}`", self.0)
        }
    }

    crate::validated_string! {
        /// A shared id.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        struct Id(Arc<str>);
        check = |text| {
            if text.starts_with('-') { Err(Refused(text.to_owned())) } else { Ok(()) }
        };
        error = Refused;
    }

    #[test]
    fn validated_strings_check_every_way_in() {
        assert_eq!(Id::new("-a"), Err(Refused("-a".to_owned())));
        assert_eq!("-b".parse::<Id>(), Err(Refused("-b".to_owned())));
        assert!(Id::try_from("-c".to_owned()).is_err());
        assert!(serde_json::from_str::<Id>("\"-d\"").is_err());
        let text: Arc<str> = Arc::from("a");
        let id = Id::from_inner(Arc::clone(&text)).unwrap();
        assert!(Arc::ptr_eq(id.inner(), &text));
        assert_eq!(String::from(id.clone()), "a");
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"a\"");
        assert_eq!(format!("{id}"), id.as_str());
    }
}
