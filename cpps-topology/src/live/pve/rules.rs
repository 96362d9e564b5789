//! PVE-003's live part: a guest declared HA is a real Proxmox HA resource, not just `on_boot`.
//! The static part (an `ha` whose own state lags the guest's) is `rules::checks::compute`'s;
//! the two share no logic.

use crate::finding::Severity;
use crate::live::diff::DriftKind;
use crate::live::rules::{Live, LiveCheck, emit_on};
use crate::rules::RuleId;
use crate::rules::checks::Sink;

/// This system's live rules and their checks.
pub(crate) static CHECKS: &[(RuleId, LiveCheck)] = &[(RuleId("PVE-003"), pve_003)];

/// PVE-003: a guest declared HA is a real Proxmox HA resource, not just `on_boot`.
pub(crate) fn pve_003(live: &Live<'_>, sink: &mut Sink<'_>) {
    for drift in &live.diff.drift {
        let DriftKind::DeclaredNotRealized { property } = &drift.kind else {
            continue;
        };
        let why = match property.as_str() {
            "ha" => {
                "without an HA resource it only restarts with its node (on_boot), it does not fail over"
            }
            "ha_state" => "it does not fail over",
            _ => continue,
        };
        if let Some(c) = live.component_of(drift) {
            let message = format!("{}; {why}", drift.message);
            emit_on(sink, Severity::Warning, c, message);
        }
    }
}
