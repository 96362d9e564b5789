//! Typed component ids: validated on construction, one type per component kind.

use std::str::FromStr;
use std::sync::Arc;

use cpps_named_enum::ValidatedString;

/// Why a string is not a valid component id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IdError {
    /// The id is empty.
    #[error("id is empty")]
    Empty,
    /// The id is longer than [`MAX_ID_LEN`] bytes.
    #[error("id is longer than {MAX_ID_LEN} bytes")]
    TooLong,
    /// The id holds a character outside `A-Z a-z 0-9 - _ .` or does not start with a letter or digit.
    #[error(
        "id `{0}` may only hold letters, digits, `-`, `_` and `.`, and must start with a letter or digit"
    )]
    InvalidChar(String),
}

/// The longest id accepted, in bytes.
pub const MAX_ID_LEN: usize = 128;

fn validate_id(s: &str) -> Result<(), IdError> {
    if s.is_empty() {
        return Err(IdError::Empty);
    }
    if s.len() > MAX_ID_LEN {
        return Err(IdError::TooLong);
    }
    let mut chars = s.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if !first_ok
        || !s
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(IdError::InvalidChar(s.to_owned()));
    }
    Ok(())
}

/// A typed id made of shared text, and its text: the loader gives every reference to a
/// component the text of the component's own id, so that ids are not copied per reference.
pub(crate) trait SharedId: FromStr<Err = IdError> {
    /// Validates and wraps `id` without copying it.
    fn from_shared(id: &Arc<str>) -> Result<Self, IdError>;
    /// The shared text.
    fn shared(&self) -> &Arc<str>;
}

/// Each typed id holds its text as an `Arc<str>`: cloning one (into an index, a finding, a
/// reference from another component) shares the text instead of copying it. An id is 1–128
/// bytes of letters, digits, `-`, `_`, `.`, starting with a letter or digit. This is
/// `validated_string!` with the fifteen ids' common lines, not a second implementation.
macro_rules! typed_id {
    ($(#[$doc:meta])* $name:ident) => {
        cpps_named_enum::validated_string! {
            $(#[$doc])*
            #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            pub struct $name(Arc<str>);
            check = validate_id;
            error = IdError;
        }

        impl SharedId for $name {
            fn from_shared(id: &Arc<str>) -> Result<Self, IdError> {
                Self::from_inner(Arc::clone(id))
            }

            fn shared(&self) -> &Arc<str> {
                self.inner()
            }
        }
    };
}

typed_id!(
    /// Id of a [`Site`](super::Site) (`franca`, `sp`).
    SiteId
);
typed_id!(
    /// Id of a [`HardwareTier`](super::HardwareTier) (`tier-2a`, `tier-3`).
    TierId
);
typed_id!(
    /// Id of a [`Host`](super::Host), a Proxmox node (`pve-ippri-31`).
    HostId
);
typed_id!(
    /// Id of a [`Guest`](super::Guest), a VM or LXC (`gpu-sp-01`).
    GuestId
);
typed_id!(
    /// Id of a [`ProxmoxCluster`](super::ProxmoxCluster).
    ProxmoxClusterId
);
typed_id!(
    /// Id of a [`LinstorPool`](super::LinstorPool).
    LinstorPoolId
);
typed_id!(
    /// Id of a [`K3sCluster`](super::K3sCluster).
    K3sClusterId
);
typed_id!(
    /// Id of an [`ArgoCd`](super::ArgoCd) instance.
    ArgoCdId
);
typed_id!(
    /// Id of a [`Pbs`](super::Pbs) server.
    PbsId
);
typed_id!(
    /// Id of a VyOS [`Router`](super::Router).
    RouterId
);
typed_id!(
    /// Id of a [`Traefik`](super::Traefik) instance.
    TraefikId
);
typed_id!(
    /// Id of a cross-site [`Link`](super::Link).
    LinkId
);
typed_id!(
    /// Id of a multi-cluster [`Pattern`](super::Pattern).
    PatternId
);
typed_id!(
    /// Id of a cross-cutting [`Capability`](super::Capability).
    CapabilityId
);
typed_id!(
    /// Id of an [`Item`](super::Item), a labelled fact of the documents that is no other kind of component.
    ItemId
);
