//! A staged image upgrade of the two routers of a site, as a plan only: the VRRP backup first,
//! then the checks, then the master, then the checks again; each router's configuration is
//! saved and backed up before its image is added, since the new image boots the saved one.
//! Nothing here writes.
//!
//! The roles come from `show vrrp` on both routers ([`crate::Client::vrrp_status`]). A router is
//! the backup when every one of its groups is `BACKUP`, the master when every one is `MASTER`;
//! anything else (a mixed router, a `FAULT`, a state this crate does not know, no group, both
//! routers in the same role) refuses the plan, since the order would be a guess. The steps use
//! the API's own operations (a site with one router, as this estate has today, gets
//! [`single_router_plan`] instead): `POST /image` `add` (vyos-1x `routers.py` `image_op` runs
//! `image_installer.py --action add --no-prompt` (`INSTALL_IMAGE` in
//! `python/vyos/configsession.py`), and `add_image` without a prompt makes the new image the
//! default boot entry, on `current`) and `POST /reboot` (`reboot_op`), each on one router.
//! The step "`show version` names the new image" needs a reading made after the reboot:
//! [`crate::Client::version_fresh`], not the cached [`crate::Client::version`].

use std::fmt;

use crate::config::views::VrrpGroup;
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
/// image at `image_url`. `configured` is the pair's `high-availability vrrp group` list
/// ([`crate::ConfigTree::vrrp_groups`] of either router; [`crate::pair`] reports when they
/// differ): it says which groups have `no-preempt`, and so which roles the last check expects.
pub fn upgrade_plan(
    a: (&str, &[VrrpStatus]),
    b: (&str, &[VrrpStatus]),
    configured: &[VrrpGroup],
    image_url: &str,
) -> UpgradePlan {
    let roles = role(a.0, a.1).and_then(|ra| Ok((ra, role(b.0, b.1)?)));
    let (backup, master, master_groups) = match roles {
        Ok((VrrpState::Backup, VrrpState::Master)) => (a.0, b.0, b.1),
        Ok((VrrpState::Master, VrrpState::Backup)) => (b.0, a.0, a.1),
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
    let checks = |roles: String| {
        format!(
            "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, VRRP \
             roles{roles}; stop here if any fails"
        )
    };
    let last = after_master(backup, master, master_groups, configured);
    for (router, then, check) in [
        (
            backup,
            format!("{master} stays MASTER while {backup} reboots"),
            format!(" as before ({backup} BACKUP, {master} MASTER)"),
        ),
        (
            master,
            format!("the groups fail over to {backup} (already upgraded) while {master} reboots"),
            last,
        ),
    ] {
        steps.extend(save_and_back_up(router));
        steps.push(step(
            router,
            format!("POST /image add {image_url} (installs it as the default boot image)"),
        ));
        steps.push(step(router, format!("POST /reboot now; {then}")));
        steps.push(step(
            router,
            "wait until its API answers and `show version` names the new image".to_owned(),
        ));
        steps.push(step("both", checks(check)));
    }
    UpgradePlan {
        steps,
        refused: None,
    }
}

/// The roles the check after the master's reboot expects, group by group. A group with
/// `no-preempt` (vyos-1x `interface-definitions/high-availability.xml.in`, rendered `nopreempt`
/// by `data/templates/high-availability/keepalived.conf.j2`) stays on the upgraded backup when
/// the old master returns; `restart vrrp` (`op-mode-definitions/vrrp.xml.in`) on it hands the
/// role back. A group with `preempt-delay` gets its master back only that many seconds after
/// the master's VRRP starts. A group the configuration does not name cannot be told either way.
fn after_master(
    backup: &str,
    master: &str,
    groups: &[VrrpStatus],
    configured: &[VrrpGroup],
) -> String {
    let roles: Vec<String> = groups
        .iter()
        .map(|g| match configured.iter().find(|c| c.name == g.group) {
            Some(c) if c.no_preempt => format!(
                "{} {backup} MASTER, {master} BACKUP (no-preempt: the roles stay swapped; to \
                 move them back, `restart vrrp` on {backup})",
                g.group
            ),
            // keepalived's `vrrp_state_backup` (`keepalived/vrrp/vrrp.c`) accepts the lower
            // adverts and only starts `preempt_time` (now plus the delay) on the returning
            // master, so the roles come back that much later.
            Some(c) if c.preempt_delay.is_some_and(|d| d > 0) => format!(
                "{} {master} MASTER, {backup} BACKUP ({master} preempts {} s after its VRRP \
                 starts (preempt-delay): until then {backup} stays MASTER, so check after that)",
                g.group,
                c.preempt_delay.unwrap_or_default()
            ),
            Some(_) => format!(
                "{} {master} MASTER, {backup} BACKUP ({master} preempts)",
                g.group
            ),
            None => format!(
                "{} cannot tell (not in the configuration read: {master} MASTER if it \
                 preempts, {backup} with no-preempt)",
                g.group
            ),
        })
        .collect();
    format!(": {}", roles.join("; "))
}

/// The first two steps on `router` before its image is added: the new image boots the saved
/// configuration (vyos-1x `src/op_mode/image_installer.py` `add_image` copies the saved
/// `/config` into it) and the HTTP API never saves, so an unsaved commit would be lost; and a
/// copy of it off the router.
fn save_and_back_up(router: &str) -> [UpgradeStep; 2] {
    let step = |action: &str| UpgradeStep {
        router: router.to_owned(),
        action: action.to_owned(),
    };
    [
        step(
            "POST /config-file save (the new image boots the saved configuration); no \
             commit-confirm may be pending (its timer would reboot or reload in the window)",
        ),
        step("vyos-backup: copy the saved configuration and the commit revisions off the router"),
    ]
}

/// The plan for a site with one router (seed 004: one VyOS router a site; VRRP HA for VyOS is
/// desired, not built): `router` is down while it reboots, so the plan works in a window, is
/// checked from `peer_site` (the other site's router, across the WireGuard tunnel), and names
/// the way back to `current_image`. Before the reboot the configuration is saved: the router
/// boots `/config/config.boot`, and `add_image` copies the saved `/config` into the new image
/// (vyos-1x `src/op_mode/image_installer.py`), so an unsaved commit would be lost.
pub fn single_router_plan(
    router: &str,
    peer_site: &str,
    current_image: &str,
    image_url: &str,
) -> UpgradePlan {
    let step = |who: &str, action: String| UpgradeStep {
        router: who.to_owned(),
        action,
    };
    let mut steps = save_and_back_up(router).to_vec();
    steps.extend([
        step(
            router,
            format!(
                "POST /image add {image_url} (installs it as the default boot image; the \
                 current one, {current_image}, stays installed)"
            ),
        ),
        step(
            router,
            "in a maintenance window: POST /reboot now; the site's routing and tunnel are down \
             until it is back (no second router takes over)"
                .to_owned(),
        ),
        step(
            router,
            "wait until its API answers and `show version` names the new image".to_owned(),
        ),
        step(
            peer_site,
            format!(
                "checks from the other site: WireGuard handshake with {router} made after the \
                 reboot, BGP sessions to it Established; stop and roll back if any fails"
            ),
        ),
        step(
            router,
            format!(
                "roll back if needed: `set system image default-boot {current_image}` (op mode, \
                 `image_manager.py --action set` in vyos-1x \
                 `op-mode-definitions/system-image.xml.in`; `POST /image set_default` where the \
                 API has it), then reboot"
            ),
        ),
    ]);
    UpgradePlan {
        steps,
        refused: None,
    }
}
