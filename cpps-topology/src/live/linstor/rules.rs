//! LINSTOR-007's live part: no resource degraded or desynced.

use crate::finding::Severity;
use crate::live::rules::{Live, LiveCheck, emit_on};
use crate::model::ComponentRef;
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[(RuleId("LINSTOR-007"), linstor_007)];

/// LINSTOR-007: no resource degraded or desynced.
///
/// Every class but `healthy` is a finding, `unknown` included (unknown is never healthy), except
/// `inactive`: linstor-client skips INACTIVE resources (`vlm_cmds.py`), nothing is expected of
/// a resource deactivated on purpose.
pub(crate) fn linstor_007(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(facts) = site.linstor.observed() else {
            continue;
        };
        for r in facts
            .resources
            .iter()
            .filter(|r| r.class != "healthy" && r.class != "inactive")
        {
            let pool = r
                .storage_pools
                .iter()
                .find_map(|name| live.declared.pool_named(&site.site, name));
            let subject = match pool {
                Some(p) => ComponentRef::LinstorPool(p),
                None => match live.site_ref(&site.site) {
                    Some(s) => s,
                    None => continue,
                },
            };
            // A group without place_count wants the controller's default, as cpps-linstor's
            // health derivation counts it.
            let wanted = r
                .place_count
                .unwrap_or(cpps_linstor::health::DEFAULT_PLACE_COUNT);
            let detail = if r.findings.is_empty() {
                String::new()
            } else {
                format!(": {}", r.findings.join("; "))
            };
            emit_on(
                sink,
                Severity::Error,
                subject,
                format!(
                    "resource {} is {} ({} of {wanted} replicas UpToDate){detail}",
                    r.name, r.class, r.up_to_date
                ),
            );
        }
    }
}
