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

pub(crate) use {custom_resource, new_object};
