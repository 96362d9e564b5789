//! The live parts of LINSTOR-001 (each satellite has its declared replication interface) and
//! LINSTOR-007 (no resource degraded or desynced), and LINSTOR-008 (no resource depends on
//! another site).

use std::collections::BTreeMap;

use cpps_linstor::health::HealthOptions;
use cpps_linstor::site_loss::{self, SiteLossEffect};

use crate::finding::Severity;
use crate::live::rules::{Live, LiveCheck, emit_on};
use crate::model::ComponentRef;
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[
    (RuleId("LINSTOR-001"), linstor_001),
    (RuleId("LINSTOR-007"), linstor_007),
    (RuleId("LINSTOR-008"), linstor_008),
];

/// At most this many resources are named in one LINSTOR-008 finding; the count says the rest.
const NAMED_RESOURCES: usize = 10;

/// LINSTOR-001 (live part): a declared LINSTOR host whose file names a replication interface
/// has it on its LINSTOR node, by name or address (`GET /v1/nodes` `net_interfaces`). An empty
/// or unstated interface is the static part's; a node the controller does not list is
/// STATE-002's.
pub(crate) fn linstor_001(live: &Live<'_>, sink: &mut Sink<'_>) {
    for site in &live.observed.sites {
        let Some(facts) = site.linstor.observed() else {
            continue;
        };
        for host in live
            .topo
            .hosts()
            .iter()
            .filter(|h| h.site.as_str() == site.site)
        {
            let Some(wanted) = host
                .linstor
                .as_ref()
                .and_then(|l| l.interface.as_deref())
                .filter(|i| !i.trim().is_empty())
            else {
                continue;
            };
            let Some(node) = facts.nodes.iter().find(|n| n.name == host.id.as_str()) else {
                continue;
            };
            if node
                .interfaces
                .iter()
                .any(|(name, address)| name == wanted || address == wanted)
            {
                continue;
            }
            let has: Vec<String> = node
                .interfaces
                .iter()
                .map(|(name, address)| format!("{name} {address}"))
                .collect();
            let message = format!(
                "LINSTOR lists node {} without the replication interface `{wanted}` the file declares (its interfaces: {}): DRBD cannot replicate over it",
                node.name,
                if has.is_empty() {
                    "none".to_owned()
                } else {
                    has.join(", ")
                }
            );
            emit_on(sink, Severity::Error, ComponentRef::Host(host), message);
        }
    }
}

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

/// LINSTOR-008: each site survives a partition, so no resource of a site's LINSTOR cluster may
/// lose its quorum, its last `UpToDate` replica or its Primary when another declared site goes
/// dark. The count is `cpps_linstor::site_loss::what_if_site_down` (DRBD's quorum rules, the
/// quorum settings of the resource definition, group and controller), with each node's site
/// from the topology's hosts; a replica on a node the topology does not place is "cannot tell".
pub(crate) fn linstor_008(live: &Live<'_>, sink: &mut Sink<'_>) {
    let mut options = HealthOptions::default();
    options.node_sites = live
        .topo
        .hosts()
        .iter()
        .map(|h| (h.id.to_string(), h.site.to_string()))
        .collect();
    for site in &live.observed.sites {
        let (Some(facts), Some(site_ref)) = (site.linstor.observed(), live.site_ref(&site.site))
        else {
            continue;
        };
        let Some(state) = facts.reading.state() else {
            continue;
        };
        let Some(props) = facts.reading.controller_props() else {
            emit_on(
                sink,
                Severity::Warning,
                site_ref,
                format!(
                    "cannot tell whether LINSTOR at {} survives another site going dark: the \
                     controller's properties, where DRBD quorum may be set, could not be read",
                    site.site
                ),
            );
            continue;
        };
        for other in live
            .topo
            .sites()
            .iter()
            .filter(|s| s.id.as_str() != site.site)
        {
            let report = site_loss::what_if_site_down(state, &options, props, other.id.as_str());
            let mut by_effect: BTreeMap<SiteLossEffect, Vec<&str>> = BTreeMap::new();
            for r in &report.resources {
                for effect in &r.effects {
                    by_effect.entry(*effect).or_default().push(r.name.as_str());
                }
            }
            for (effect, names) in by_effect {
                let message = site_loss_message(&site.site, other.id.as_str(), effect, &names);
                emit_on(sink, Severity::Warning, site_ref, message);
            }
        }
    }
}

/// "if site X went dark, N LINSTOR resources of site Y would …: a, b, c".
fn site_loss_message(site: &str, other: &str, effect: SiteLossEffect, names: &[&str]) -> String {
    let shown = names
        .iter()
        .take(NAMED_RESOURCES)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = names.len().saturating_sub(NAMED_RESOURCES);
    let shown = if more > 0 {
        format!("{shown} and {more} more")
    } else {
        shown
    };
    let resources = format!(
        "{} LINSTOR resource{} of site {site}",
        names.len(),
        if names.len() == 1 { "" } else { "s" }
    );
    let would = match effect {
        SiteLossEffect::LosesLastUpToDate => "lose their last UpToDate replica",
        SiteLossEffect::LosesQuorum => "lose quorum",
        SiteLossEffect::LosesPrimary => "lose their Primary",
        SiteLossEffect::CannotTell => {
            return format!(
                "cannot tell what site {other} going dark would do to {resources} (a replica \
                 on a node the topology does not place, or a quorum setting not understood): \
                 {shown}"
            );
        }
    };
    format!("if site {other} went dark, {resources} would {would}: {shown}")
}
