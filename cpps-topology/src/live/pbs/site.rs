//! PBS's part of a site's comparison: each declared PBS with the site's server and its
//! datastores. A declared datastore missing from a list the credentials' rights may have
//! trimmed is no drift: the observation's `partial` says the list may be filtered.

use super::index::PbsIndex;
use super::source::DATASTORES_FILTERED;
use crate::live::diff::{Builder, evidence_of};
use crate::live::facts::SiteObservation;
use crate::model::{ComponentRef, Site};

/// Compares `site_id`'s PBS instances with what the site's server reports.
pub(crate) fn compare(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site) {
    let topo = b.topo;
    let pbs_index = site.pbs.observed().map(PbsIndex::new).unwrap_or_default();
    for pbs in topo.pbs().iter().filter(|p| p.site == site_id.id) {
        let c = ComponentRef::Pbs(pbs);
        b.record(c, site, evidence_of(&site.pbs, |_| true));
        // A list the credentials' rights may have trimmed proves no absence
        // (`source::DATASTORES_FILTERED`): its entry in `partial` says so.
        let whole = site.pbs.observed().is_some_and(|facts| {
            !facts
                .partial
                .iter()
                .any(|p| p.starts_with(DATASTORES_FILTERED))
        });
        if whole {
            let names = pbs.datastores.iter().map(|d| d.name.as_str());
            b.declared_missing(
                site,
                c,
                "datastores",
                names,
                |d| pbs_index.has_datastore(d),
                |missing| format!("{} has no datastore {missing}", pbs.id),
            );
        }
    }
}
