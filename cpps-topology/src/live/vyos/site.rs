//! VyOS's part of a site's comparison: each declared router with the site's router, and its
//! declared VRRP peer with a VRRP group.

use crate::live::diff::{Builder, evidence_of};
use crate::live::facts::SiteObservation;
use crate::model::{ComponentRef, Site};

/// Compares `site_id`'s routers with what the site's router reports.
pub(crate) fn compare(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site) {
    let topo = b.topo;
    for router in topo.routers().iter().filter(|r| r.site == site_id.id) {
        let c = ComponentRef::Router(router);
        b.record(c, site, evidence_of(&site.vyos, |_| true));
        if let Some(facts) = site.vyos.observed()
            && router.vrrp_peer.is_some()
            && facts.vrrp.is_empty()
        {
            b.not_realized(
                site,
                c,
                "vrrp_peer",
                format!("{} declares a VRRP peer but has no VRRP group", router.id),
            );
        }
    }
}
