//! `kube::Resource` for the hand-written custom resource types.

/// Implements `kube::Resource` for a struct with a `metadata: ObjectMeta` field.
macro_rules! custom_resource {
    ($ty:ty, $group:literal, $version:literal, $kind:literal, $plural:literal, $scope:ty) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = $scope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                $group.into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                $version.into()
            }
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(
                &mut self,
            ) -> &mut k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// A new object of a [`custom_resource!`] type named `$name` (in `$namespace`, an
/// `Option<&str>`, for a namespaced kind): `new_object!(namespace, name, Self { spec, status })`
/// fills in `api_version`, `kind` and `metadata`, the first two from the type's
/// `custom_resource!` declaration, so that a constructor cannot disagree with the API path the
/// object is sent to.
macro_rules! new_object {
    ($namespace:expr, $name:expr, $ty:ident { $($fields:tt)* }) => {{
        let metadata = k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
            name: Some($name.to_owned()),
            namespace: $namespace.map(str::to_owned),
            ..Default::default()
        };
        $ty {
            api_version: <$ty as kube::Resource>::api_version(&()).into_owned(),
            kind: <$ty as kube::Resource>::kind(&()).into_owned(),
            metadata,
            $($fields)*
        }
    }};
}

/// A string enum that keeps unknown values: `Display`, `FromStr`, serde as the string.
macro_rules! string_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $variant:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vm])* #[doc = concat!("`", $s, "`.")] $variant,)+
            /// A value this crate does not know, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// The wire value.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $s,)+
                    Self::Unknown(s) => s,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Ok(match s {
                    $($s => Self::$variant,)+
                    other => Self::Unknown(other.to_owned()),
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                Ok(s.parse().unwrap_or_else(|e: std::convert::Infallible| match e {}))
            }
        }
    };
}

pub(crate) use {custom_resource, new_object, string_enum};
