//! Converting the network: VyOS routers, Traefik ingresses, links between sites.

use std::net::IpAddr;

use crate::load::file::*;
use crate::model::ComponentKind as K;
use crate::model::*;

use super::{Cx, Target};

impl Cx<'_> {
    pub(super) fn router(&mut self, r: &RouterFile) -> Option<Router> {
        let (id, mut meta) = self.component(K::Router, r)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &r.site);
        let host = self.opt_reference(&mut meta, "host", Target::Kind(K::Host), &r.host);
        let guest = self.opt_reference(&mut meta, "guest", Target::Kind(K::Guest), &r.guest);
        let vrrp_peer = self.opt_reference(
            &mut meta,
            "vrrp_peer",
            Target::Kind(K::Router),
            &r.vrrp_peer,
        );
        let wireguard_peers = self.references(
            &mut meta,
            "wireguard_peers",
            Target::Kind(K::Router),
            &r.wireguard_peers,
        );
        let site = site?;
        Some(Router {
            id,
            site,
            host,
            guest,
            vrrp_peer,
            wireguard_peers,
            subnets: r.subnets.clone(),
            meta,
        })
    }

    pub(super) fn traefik(&mut self, x: &TraefikFile) -> Option<Traefik> {
        let (id, mut meta) = self.component(K::Traefik, x)?;
        let site = self.reference(&mut meta, "site", Target::Kind(K::Site), &x.site);
        let guest = self.opt_reference(&mut meta, "guest", Target::Kind(K::Guest), &x.guest);
        let host = self.opt_reference(&mut meta, "host", Target::Kind(K::Host), &x.host);
        let address = self.field::<IpAddr>(&mut meta, "address", &x.address);
        let ha = self.flag(&mut meta, "ha", &x.ha);
        let ha_state = self.state_of(&mut meta, "ha_state", &x.ha_state);
        let site = site?;
        Some(Traefik {
            id,
            site,
            guest,
            host,
            address,
            ha,
            ha_state,
            on_boot: x.on_boot,
            meta,
        })
    }

    pub(super) fn link(&mut self, l: &LinkFile) -> Option<Link> {
        let (id, mut meta) = self.component(K::Link, l)?;
        let sat = self.locate(&mut meta, "sites", &l.sites.at);
        let sites: Vec<SiteId> =
            self.references(&mut meta, "sites", Target::Kind(K::Site), &l.sites.value);
        let endpoints = self.references(
            &mut meta,
            "endpoints",
            Target::Kind(K::Router),
            &l.endpoints,
        );
        if l.sites.value.len() != 2 {
            self.invalid("sites", "a link joins exactly two sites", sat);
            return None;
        }
        if l.sites.value[0].value == l.sites.value[1].value {
            self.invalid("sites", "a link joins two different sites", sat);
            return None;
        }
        let Ok([a, b]) = <[SiteId; 2]>::try_from(sites) else {
            return None;
        };
        Some(Link {
            id,
            kind: l.kind,
            sites: [a, b],
            endpoints,
            over: l.over.clone(),
            meta,
        })
    }
}
