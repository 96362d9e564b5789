//! File types of the network: VyOS routers, Traefik ingresses, links between sites.

use super::{At, FileState};
use crate::model::LinkKind;

component_file! {
    /// A VyOS router.
    #[schemars(rename = "Router")]
    struct RouterFile {
        /// Its site.
        pub(crate) site: At<String>,
        /// The host it runs on directly.
        #[serde(default)]
        pub(crate) host: Option<At<String>>,
        /// The guest (VM) it runs in.
        #[serde(default)]
        pub(crate) guest: Option<At<String>>,
        /// VRRP peer router (routers joined by peers form one VRRP group).
        #[serde(default)]
        pub(crate) vrrp_peer: Option<At<String>>,
        /// WireGuard peer routers.
        #[serde(default)]
        pub(crate) wireguard_peers: Vec<At<String>>,
        /// Subnets routed.
        #[serde(default)]
        pub(crate) subnets: Vec<String>,
    }
}

component_file! {
    /// A Traefik ingress.
    #[schemars(rename = "Traefik")]
    struct TraefikFile {
        /// Its site.
        pub(crate) site: At<String>,
        /// The guest it runs in.
        #[serde(default)]
        pub(crate) guest: Option<At<String>>,
        /// The host it runs on directly.
        #[serde(default)]
        pub(crate) host: Option<At<String>>,
        /// Its address.
        #[serde(default)]
        pub(crate) address: Option<At<String>>,
        /// Declared HA.
        #[serde(default)]
        pub(crate) ha: Option<At<bool>>,
        /// State of the `ha` property when it lags the component's.
        #[serde(default)]
        pub(crate) ha_state: Option<At<FileState>>,
        /// Starts on boot.
        #[serde(default)]
        pub(crate) on_boot: bool,
    }
}

component_file! {
    /// A link between two sites.
    #[schemars(rename = "Link")]
    struct LinkFile {
        /// `wireguard`.
        pub(crate) kind: LinkKind,
        /// The two sites it joins.
        pub(crate) sites: At<Vec<At<String>>>,
        /// Routers at its ends.
        #[serde(default)]
        pub(crate) endpoints: Vec<At<String>>,
        /// The network it runs over.
        #[serde(default)]
        pub(crate) over: Option<String>,
    }
}
