//! PBS's part of a site's comparison: each declared PBS with the site's server and its
//! datastores. A declared datastore missing from the list is drift only where the rights on
//! its own path show that PBS would list it; otherwise it may be hidden by an ACL, and the
//! comparison says it cannot tell.

use super::facts::PbsFacts;
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
        let Some(facts) = site.pbs.observed() else {
            continue;
        };
        let missing = pbs
            .datastores
            .iter()
            .map(|d| d.name.as_str())
            .filter(|d| !pbs_index.has_datastore(d));
        for name in missing {
            let message = match hidden_maybe(facts, name) {
                None => format!("{} has no datastore {name}", pbs.id),
                Some(why) => format!(
                    "cannot tell whether {} has datastore {name}: not listed, maybe hidden by permission ({why})",
                    pbs.id
                ),
            };
            b.not_realized(site, c, "datastores", message);
        }
    }
}

/// Why datastore `name`, missing from the list, may exist all the same; `None` when the rights
/// on `/datastore/{name}` itself hold `Datastore.Audit` or `Datastore.Backup`, with which
/// proxmox-backup `src/api2/admin/datastore.rs` `get_datastore_list` lists it. Rights
/// inherited from `/datastore` prove nothing: an ACL on the datastore's own path replaces them
/// (`pbs-config/src/acl.rs` `AclTree::roles`).
fn hidden_maybe(facts: &PbsFacts, name: &str) -> Option<String> {
    let path = cpps_pbs::chain::acl_path(name, "");
    match facts.unlisted_rights.get(name) {
        Some(Ok(true)) => None,
        Some(Ok(false)) => Some(format!(
            "the credentials hold neither Datastore.Audit nor Datastore.Backup on {path}"
        )),
        Some(Err(e)) => Some(format!("the rights on {path} could not be read: {e}")),
        None => Some(
            facts
                .partial
                .iter()
                .find(|p| p.starts_with(DATASTORES_FILTERED))
                .cloned()
                .unwrap_or_else(|| format!("the rights on {path} were not read")),
        ),
    }
}
