//! Any component: its kind, its typed id, a borrowed reference to it.

use std::fmt;

use super::*;

cpps_named_enum::named_enum! {
    /// The kind of a component. Its name is the singular used in messages (`host`, `k3s cluster`).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum ComponentKind {
        /// [`Site`].
        Site => "site",
        /// [`Host`].
        Host => "host",
        /// [`Guest`].
        Guest => "guest",
        /// [`ProxmoxCluster`].
        ProxmoxCluster => "proxmox cluster",
        /// [`LinstorPool`].
        LinstorPool => "linstor pool",
        /// [`K3sCluster`].
        K3sCluster => "k3s cluster",
        /// [`ArgoCd`].
        ArgoCd => "argocd",
        /// [`Pbs`].
        Pbs => "pbs",
        /// [`Router`].
        Router => "router",
        /// [`Traefik`].
        Traefik => "traefik",
        /// [`Link`].
        Link => "link",
        /// [`Pattern`].
        Pattern => "pattern",
        /// [`Capability`].
        Capability => "capability",
        /// [`Item`].
        Item => "item",
    }
}

/// A typed id of any component (a finding's subject). Displays as the bare id.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ComponentId {
    /// A site.
    Site(SiteId),
    /// A host.
    Host(HostId),
    /// A guest.
    Guest(GuestId),
    /// A Proxmox cluster.
    ProxmoxCluster(ProxmoxClusterId),
    /// A LINSTOR pool.
    LinstorPool(LinstorPoolId),
    /// A K3s cluster.
    K3sCluster(K3sClusterId),
    /// An ArgoCD.
    ArgoCd(ArgoCdId),
    /// A PBS.
    Pbs(PbsId),
    /// A router.
    Router(RouterId),
    /// A Traefik.
    Traefik(TraefikId),
    /// A link.
    Link(LinkId),
    /// A pattern.
    Pattern(PatternId),
    /// A capability.
    Capability(CapabilityId),
    /// An item.
    Item(ItemId),
}

impl ComponentId {
    /// The kind of component.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentId::Site(_) => ComponentKind::Site,
            ComponentId::Host(_) => ComponentKind::Host,
            ComponentId::Guest(_) => ComponentKind::Guest,
            ComponentId::ProxmoxCluster(_) => ComponentKind::ProxmoxCluster,
            ComponentId::LinstorPool(_) => ComponentKind::LinstorPool,
            ComponentId::K3sCluster(_) => ComponentKind::K3sCluster,
            ComponentId::ArgoCd(_) => ComponentKind::ArgoCd,
            ComponentId::Pbs(_) => ComponentKind::Pbs,
            ComponentId::Router(_) => ComponentKind::Router,
            ComponentId::Traefik(_) => ComponentKind::Traefik,
            ComponentId::Link(_) => ComponentKind::Link,
            ComponentId::Pattern(_) => ComponentKind::Pattern,
            ComponentId::Capability(_) => ComponentKind::Capability,
            ComponentId::Item(_) => ComponentKind::Item,
        }
    }

    /// The bare id.
    pub fn as_str(&self) -> &str {
        match self {
            ComponentId::Site(i) => i.as_str(),
            ComponentId::Host(i) => i.as_str(),
            ComponentId::Guest(i) => i.as_str(),
            ComponentId::ProxmoxCluster(i) => i.as_str(),
            ComponentId::LinstorPool(i) => i.as_str(),
            ComponentId::K3sCluster(i) => i.as_str(),
            ComponentId::ArgoCd(i) => i.as_str(),
            ComponentId::Pbs(i) => i.as_str(),
            ComponentId::Router(i) => i.as_str(),
            ComponentId::Traefik(i) => i.as_str(),
            ComponentId::Link(i) => i.as_str(),
            ComponentId::Pattern(i) => i.as_str(),
            ComponentId::Capability(i) => i.as_str(),
            ComponentId::Item(i) => i.as_str(),
        }
    }
}

impl fmt::Display for ComponentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A borrowed component of any kind.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum ComponentRef<'a> {
    /// A site.
    Site(&'a Site),
    /// A host.
    Host(&'a Host),
    /// A guest.
    Guest(&'a Guest),
    /// A Proxmox cluster.
    ProxmoxCluster(&'a ProxmoxCluster),
    /// A LINSTOR pool.
    LinstorPool(&'a LinstorPool),
    /// A K3s cluster.
    K3sCluster(&'a K3sCluster),
    /// An ArgoCD.
    ArgoCd(&'a ArgoCd),
    /// A PBS.
    Pbs(&'a Pbs),
    /// A router.
    Router(&'a Router),
    /// A Traefik.
    Traefik(&'a Traefik),
    /// A link.
    Link(&'a Link),
    /// A pattern.
    Pattern(&'a Pattern),
    /// A capability.
    Capability(&'a Capability),
    /// An item.
    Item(&'a Item),
}

impl<'a> ComponentRef<'a> {
    /// Its state, note, use case and locations.
    pub fn meta(&self) -> &'a Meta {
        match *self {
            ComponentRef::Site(c) => &c.meta,
            ComponentRef::Host(c) => &c.meta,
            ComponentRef::Guest(c) => &c.meta,
            ComponentRef::ProxmoxCluster(c) => &c.meta,
            ComponentRef::LinstorPool(c) => &c.meta,
            ComponentRef::K3sCluster(c) => &c.meta,
            ComponentRef::ArgoCd(c) => &c.meta,
            ComponentRef::Pbs(c) => &c.meta,
            ComponentRef::Router(c) => &c.meta,
            ComponentRef::Traefik(c) => &c.meta,
            ComponentRef::Link(c) => &c.meta,
            ComponentRef::Pattern(c) => &c.meta,
            ComponentRef::Capability(c) => &c.meta,
            ComponentRef::Item(c) => &c.meta,
        }
    }

    /// Its typed id.
    pub fn id(&self) -> ComponentId {
        match *self {
            ComponentRef::Site(c) => ComponentId::Site(c.id.clone()),
            ComponentRef::Host(c) => ComponentId::Host(c.id.clone()),
            ComponentRef::Guest(c) => ComponentId::Guest(c.id.clone()),
            ComponentRef::ProxmoxCluster(c) => ComponentId::ProxmoxCluster(c.id.clone()),
            ComponentRef::LinstorPool(c) => ComponentId::LinstorPool(c.id.clone()),
            ComponentRef::K3sCluster(c) => ComponentId::K3sCluster(c.id.clone()),
            ComponentRef::ArgoCd(c) => ComponentId::ArgoCd(c.id.clone()),
            ComponentRef::Pbs(c) => ComponentId::Pbs(c.id.clone()),
            ComponentRef::Router(c) => ComponentId::Router(c.id.clone()),
            ComponentRef::Traefik(c) => ComponentId::Traefik(c.id.clone()),
            ComponentRef::Link(c) => ComponentId::Link(c.id.clone()),
            ComponentRef::Pattern(c) => ComponentId::Pattern(c.id.clone()),
            ComponentRef::Capability(c) => ComponentId::Capability(c.id.clone()),
            ComponentRef::Item(c) => ComponentId::Item(c.id.clone()),
        }
    }

    /// The bare id, without cloning.
    pub fn id_str(&self) -> &'a str {
        match *self {
            ComponentRef::Site(c) => c.id.as_str(),
            ComponentRef::Host(c) => c.id.as_str(),
            ComponentRef::Guest(c) => c.id.as_str(),
            ComponentRef::ProxmoxCluster(c) => c.id.as_str(),
            ComponentRef::LinstorPool(c) => c.id.as_str(),
            ComponentRef::K3sCluster(c) => c.id.as_str(),
            ComponentRef::ArgoCd(c) => c.id.as_str(),
            ComponentRef::Pbs(c) => c.id.as_str(),
            ComponentRef::Router(c) => c.id.as_str(),
            ComponentRef::Traefik(c) => c.id.as_str(),
            ComponentRef::Link(c) => c.id.as_str(),
            ComponentRef::Pattern(c) => c.id.as_str(),
            ComponentRef::Capability(c) => c.id.as_str(),
            ComponentRef::Item(c) => c.id.as_str(),
        }
    }

    /// Its kind.
    pub fn kind(&self) -> ComponentKind {
        match self {
            ComponentRef::Site(_) => ComponentKind::Site,
            ComponentRef::Host(_) => ComponentKind::Host,
            ComponentRef::Guest(_) => ComponentKind::Guest,
            ComponentRef::ProxmoxCluster(_) => ComponentKind::ProxmoxCluster,
            ComponentRef::LinstorPool(_) => ComponentKind::LinstorPool,
            ComponentRef::K3sCluster(_) => ComponentKind::K3sCluster,
            ComponentRef::ArgoCd(_) => ComponentKind::ArgoCd,
            ComponentRef::Pbs(_) => ComponentKind::Pbs,
            ComponentRef::Router(_) => ComponentKind::Router,
            ComponentRef::Traefik(_) => ComponentKind::Traefik,
            ComponentRef::Link(_) => ComponentKind::Link,
            ComponentRef::Pattern(_) => ComponentKind::Pattern,
            ComponentRef::Capability(_) => ComponentKind::Capability,
            ComponentRef::Item(_) => ComponentKind::Item,
        }
    }
}
