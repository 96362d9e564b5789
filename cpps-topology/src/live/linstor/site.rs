//! LINSTOR's part of a site's comparison: each declared pool with the storage pool it names, on
//! the declared nodes, with the declared place count.

use std::collections::BTreeSet;

use super::index::LinstorIndex;
use crate::live::diff::{Builder, DriftKind, evidence_of};
use crate::live::facts::SiteObservation;
use crate::model::{ComponentRef, Site};

/// Compares `site_id`'s LINSTOR pools with what the site's controller reports.
pub(crate) fn compare(b: &mut Builder<'_>, site: &SiteObservation, site_id: &Site) {
    let topo = b.topo;
    let linstor_index = site
        .linstor
        .observed()
        .map(LinstorIndex::new)
        .unwrap_or_default();
    for pool in topo.linstor_pools().iter().filter(|p| p.site == site_id.id) {
        let name = pool.storage_pool.as_deref().unwrap_or(pool.id.as_str());
        let c = ComponentRef::LinstorPool(pool);
        let on = linstor_index.pool_nodes(name);
        let evidence = evidence_of(&site.linstor, |_| on.is_some());
        b.record(c, site, evidence.clone());
        let Some(on) = on else {
            continue;
        };
        let names = pool.nodes.iter().map(|n| n.host.as_str());
        b.declared_missing(
            site,
            c,
            "nodes",
            names,
            |h| on.contains(h),
            |missing| format!("storage pool {name} of {} is not on {missing}", pool.id),
        );
        // A pool that states no place_count declares nothing to compare.
        let Some(declared) = pool.place_count.map(i64::from) else {
            continue;
        };
        let named: BTreeSet<i64> = linstor_index.group_counts(name).iter().copied().collect();
        let any: BTreeSet<i64> = linstor_index.any_pool_counts().iter().copied().collect();
        let groups = |count: i64| {
            if named.contains(&count) {
                format!("a resource group on {name}")
            } else {
                format!("a resource group with no pool list, which may place on {name},")
            }
        };
        for count in named.union(&any).copied().filter(|c| *c != declared) {
            b.drift(
                site,
                c,
                DriftKind::Mismatch {
                    property: "place_count".to_owned(),
                    declared: declared.to_string(),
                    observed: count.to_string(),
                },
                format!(
                    "{} places {count} replicas, {} declares {declared}",
                    groups(count),
                    pool.id
                ),
            );
        }
    }
}
