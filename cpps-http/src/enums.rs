//! The string enums of every client crate: open ([`crate::keep_unknown_enum`], for values a
//! server sends) and closed ([`crate::named_enum`], for this project's own verdicts and kinds,
//! re-exported from `cpps-named-enum`, which `cpps-topology` uses without the HTTP stack).

/// Declares an enum that mirrors a string value of a server and keeps unknown values in a last
/// `Unknown(String)` variant, so that a value added by a newer server never breaks decoding:
/// `KNOWN`, `as_str`, `From<&str>`, `FromStr`, `Display`, serde (as the string). A variant may
/// accept other spellings after its own (`Ssl = "SSL" | "Ssl"`); it is written as the first.
/// Used by `cpps-linstor` directly and by the Proxmox family's
/// `cpps_proxmox::keep_unknown_enum!` (which adds a JSON Schema), so that no crate copies it.
///
/// ```
/// cpps_http::keep_unknown_enum! {
///     /// A colour.
///     Colour {
///         /// Red.
///         Red = "red" | "RED",
///     }
/// }
/// assert_eq!("blue".parse::<Colour>().unwrap(), Colour::Unknown("blue".to_owned()));
/// assert_eq!(Colour::from("RED").as_str(), "red");
/// assert_eq!(Colour::KNOWN, ["red"]);
/// ```
#[macro_export]
macro_rules! keep_unknown_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this client does not know, kept as the server wrote it.
            Unknown(String),
        }

        impl $name {
            /// The values this client knows, as the server writes them.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            /// The value as the server writes it.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Unknown(other) => other,
                }
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                match value {
                    $( $wire $(| $alias)* => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = ::std::convert::Infallible;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok($name::from(value))
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
            ) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::__private::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> Result<Self, D::Error> {
                let value = <::std::borrow::Cow<'de, str> as $crate::__private::serde::Deserialize>::deserialize(deserializer)?;
                Ok($name::from(value.as_ref()))
            }
        }
    };
}
