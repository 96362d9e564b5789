//! Decoding helpers shared by the models.

use serde::{Deserialize, Deserializer};

/// Decodes a value that the controller may send as `null`, using its default then.
///
/// LINSTOR's Java models serialise absent lists and maps as `null` in places; `#[serde(default)]`
/// alone covers a missing key, not an explicit `null`.
pub(crate) fn null_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// Declares an enum mirroring a server string value: known variants plus `Unknown(String)` as
/// its last variant, so a value added by a newer controller never breaks decoding of a list.
macro_rules! string_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this client does not know, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// The value as the server spells it.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )+
                    $name::Unknown(other) => other,
                }
            }

            /// Parses a server value; unknown values are kept in `Unknown`.
            pub fn parse(value: &str) -> Self {
                match value {
                    $( $text $(| $alias)* => $name::$variant, )+
                    other => $name::Unknown(other.to_owned()),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.pad(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            fn from_str(value: &str) -> Result<Self, Self::Err> {
                Ok(Self::parse(value))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
                Ok(Self::parse(&text))
            }
        }
    };
}

pub(crate) use string_enum;
