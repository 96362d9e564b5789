//! The keep-unknown string enum of the Proxmox family ([`crate::keep_unknown_enum`]).

/// Declares an enum that mirrors a string value of a Proxmox server and keeps unknown values
/// in a last `Unknown(String)` variant: [`cpps_http::keep_unknown_enum!`] (`KNOWN`, `as_str`,
/// `From<&str>`, `FromStr`, `Display`, serde as the string), and with the calling crate's
/// feature `schema` a `schemars` schema (`examples`, not `enum`: any other string is accepted
/// and kept). Used by `cpps-proxmox` and `cpps-pbs` alike, so that neither copies it.
///
/// ```
/// cpps_proxmox_family::keep_unknown_enum! {
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
        $crate::__private::cpps_http::keep_unknown_enum! {
            $(#[$meta])*
            $name {
                $( $(#[$vmeta])* $variant = $wire, )+
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
