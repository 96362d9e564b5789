//! A staged image upgrade of the two routers of a site, as a plan only: the VRRP backup first,
//! then the checks, then the master, then the checks again. Nothing here writes.
//!
//! The roles come from `show vrrp` on both routers ([`crate::Client::vrrp_status`]). A router is
//! the backup when every one of its groups is `BACKUP`, the master when every one is `MASTER`;
//! anything else (a mixed router, a `FAULT`, a state this crate does not know, no group, both
//! routers in the same role) refuses the plan, since the order would be a guess. The steps use
//! the API's own operations: `POST /image` `add` (vyos-1x `routers.py` `image_op` runs
//! `image_installer.py --action add --no-prompt` (`INSTALL_IMAGE` in
//! `python/vyos/configsession.py`), and `add_image` without a prompt makes the new image the
//! default boot entry, on `current`) and `POST /reboot` (`reboot_op`), each on one router.

use std::fmt;

use crate::status::{VrrpState, VrrpStatus};

/// One step of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpgradeStep {
    /// The router it acts on, or `both` for a check.
    pub router: String,
    /// What to do.
    pub action: String,
}

/// A staged upgrade: the order, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpgradePlan {
    /// The steps, in order; empty when refused.
    pub steps: Vec<UpgradeStep>,
    /// Why no order can be given.
    pub refused: Option<String>,
}

impl fmt::Display for UpgradePlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(why) = &self.refused {
            return writeln!(f, "no upgrade plan: {why}");
        }
        for (i, s) in self.steps.iter().enumerate() {
            writeln!(f, "{}. {}: {}", i + 1, s.router, s.action)?;
        }
        Ok(())
    }
}

/// The role of a router from its VRRP groups, or why it cannot be told.
fn role(label: &str, groups: &[VrrpStatus]) -> Result<VrrpState, String> {
    let first = groups
        .first()
        .ok_or_else(|| format!("{label} has no VRRP group, so neither router is the backup"))?;
    if !matches!(first.state, VrrpState::Master | VrrpState::Backup) {
        return Err(format!(
            "{label}'s group {} is in state {:?}",
            first.group, first.state
        ));
    }
    match groups.iter().find(|g| g.state != first.state) {
        Some(g) => Err(format!(
            "{label} is {:?} in {} and {:?} in {}: not one role",
            first.state, first.group, g.state, g.group
        )),
        None => Ok(first.state.clone()),
    }
}

/// The staged plan for routers `a` and `b` (their labels and `show vrrp` readings) to the
/// image at `image_url`.
pub fn upgrade_plan(
    a: (&str, &[VrrpStatus]),
    b: (&str, &[VrrpStatus]),
    image_url: &str,
) -> UpgradePlan {
    let roles = role(a.0, a.1).and_then(|ra| Ok((ra, role(b.0, b.1)?)));
    let (backup, master) = match roles {
        Ok((VrrpState::Backup, VrrpState::Master)) => (a.0, b.0),
        Ok((VrrpState::Master, VrrpState::Backup)) => (b.0, a.0),
        Ok((ra, _)) => {
            return UpgradePlan {
                steps: Vec::new(),
                refused: Some(format!("both routers are {ra:?}")),
            };
        }
        Err(why) => {
            return UpgradePlan {
                steps: Vec::new(),
                refused: Some(why),
            };
        }
    };
    let step = |router: &str, action: String| UpgradeStep {
        router: router.to_owned(),
        action,
    };
    let mut steps = Vec::new();
    for (router, then) in [
        (
            backup,
            format!("{master} stays MASTER while {backup} reboots"),
        ),
        (
            master,
            format!("the groups fail over to {backup} (already upgraded) while {master} reboots"),
        ),
    ] {
        steps.push(step(
            router,
            format!("POST /image add {image_url} (installs it as the default boot image)"),
        ));
        steps.push(step(router, format!("POST /reboot now; {then}")));
        steps.push(step(
            router,
            "wait until its API answers and `show version` names the new image".to_owned(),
        ));
        steps.push(step(
            "both",
            format!(
                "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, \
                 VRRP roles as before ({backup} BACKUP, {master} MASTER, after preemption); \
                 stop here if any fails"
            ),
        ));
    }
    UpgradePlan {
        steps,
        refused: None,
    }
}
