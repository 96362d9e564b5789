//! The keep-unknown string enum of the Proxmox family ([`crate::keep_unknown_enum`]).

/// Declares an enum that mirrors a string value of a Proxmox server and keeps unknown values
/// in a last `Unknown(String)` variant: `KNOWN`, `as_str`, `From<&str>`, `FromStr`, `Display`,
/// serde (as the string), and with the calling crate's feature `schema` a `schemars` schema
/// (`examples`, not `enum`: any other string is accepted and kept). Used by `cpps-proxmox` and
/// `cpps-pbs` alike, so that neither copies it.
///
/// ```
/// cpps_proxmox::keep_unknown_enum! {
///     /// A colour.
///     Colour {
///         /// Red.
///         Red = "red",
///     }
/// }
/// assert_eq!("blue".parse::<Colour>().unwrap(), Colour::Unknown("blue".to_owned()));
/// assert_eq!(Colour::KNOWN, ["red"]);
/// ```
#[macro_export]
macro_rules! keep_unknown_enum {
    (
        $(#[$meta:meta])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $wire:literal, )+
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
                    $( $wire => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok($name::from(value))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::family::__private::serde::Serialize for $name {
            fn serialize<S: $crate::family::__private::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> $crate::family::__private::serde::Deserialize<'de> for $name {
            fn deserialize<D: $crate::family::__private::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = <::std::borrow::Cow<'de, str> as $crate::family::__private::serde::Deserialize>::deserialize(deserializer)?;
                Ok($name::from(value.as_ref()))
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                // `examples`, not `enum`: any other string is accepted and kept.
                schemars::json_schema!({ "type": "string", "examples": $name::KNOWN })
            }
        }
    };
}
