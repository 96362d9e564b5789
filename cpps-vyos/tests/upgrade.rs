//! The staged upgrade plan (`cpps_vyos::upgrade`), from `show vrrp` tables laid out as
//! `VRRP.format` in vyos-1x `python/vyos/ifconfig/vrrp.py` prints them (`tabulate`, headers
//! Name, Interface, VRID, State, Priority, Last Transition) and read by `parse_vrrp`.

use cpps_vyos::ConfigTree;
use cpps_vyos::config::views::VrrpGroup;
use cpps_vyos::status::parse_vrrp;
use cpps_vyos::upgrade::upgrade_plan;

const HEAD: &str = "Name  Interface  VRID  State     Priority  Last Transition\n----  ---------  ----  --------  --------  ---------------\n";

fn table(rows: &str) -> Vec<cpps_vyos::status::VrrpStatus> {
    parse_vrrp(&format!("{HEAD}{rows}"))
}

/// The configured groups (`high-availability vrrp group NAME`, vyos-1x
/// `interface-definitions/high-availability.xml.in`), read by `ConfigTree::vrrp_groups`.
fn groups(set: &str) -> Vec<VrrpGroup> {
    ConfigTree::parse_set(set).unwrap().vrrp_groups().unwrap()
}

const PREEMPT: &str = "set high-availability vrrp group LAN vrid '10'
set high-availability vrrp group MGMT vrid '20'
";

#[test]
fn the_backup_is_upgraded_first_then_the_master() {
    let master = table(
        "LAN   eth1         10  MASTER         200  1w2d3h4m5s\nMGMT  eth2.20      20  MASTER         200  1w2d\n",
    );
    let backup = table(
        "LAN   eth1         10  BACKUP         100  1w2d3h4m5s\nMGMT  eth2.20      20  BACKUP         100  1w2d\n",
    );
    let url = "https://downloads.example.net/vyos-1.5.iso";
    let plan = upgrade_plan(("gw-a", &master), ("gw-b", &backup), &groups(PREEMPT), url);
    assert_eq!(plan.refused, None);
    let order: Vec<&str> = plan.steps.iter().map(|s| s.router.as_str()).collect();
    assert_eq!(
        order,
        [
            "gw-b", "gw-b", "gw-b", "gw-b", "gw-b", "both", "gw-a", "gw-a", "gw-a", "gw-a", "gw-a",
            "both"
        ]
    );
    assert_eq!(
        plan.steps[2].action,
        format!("POST /image add {url} (installs it as the default boot image)")
    );
    let text = plan.to_string();
    assert!(
        text.starts_with("1. gw-b: POST /config-file save"),
        "{text}"
    );
    assert!(text.contains("stop here if any fails"), "{text}");
    assert_eq!(
        plan.steps[11].action,
        "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, VRRP \
         roles: LAN gw-a MASTER, gw-b BACKUP (gw-a preempts); MGMT gw-a MASTER, gw-b BACKUP \
         (gw-a preempts); stop here if any fails"
    );
}

/// Audit U2 (issue 32): each router boots the new image from its saved configuration —
/// vyos-1x `src/op_mode/image_installer.py` `add_image` copies the saved `/config` into the new
/// image — and the HTTP API never saves, so an unsaved commit is lost on the router that
/// reboots. The pair's plan saves and backs up each router before its image is added, as the
/// one-router plan does. Failed first: the first step of each router was `POST /image add`.
#[test]
fn each_router_is_saved_and_backed_up_before_its_image_is_added() {
    let master = table("LAN   eth1         10  MASTER         200  1w\n");
    let backup = table("LAN   eth1         10  BACKUP         100  1w\n");
    let plan = upgrade_plan(("gw-a", &master), ("gw-b", &backup), &groups(PREEMPT), "u");
    for router in ["gw-b", "gw-a"] {
        let own: Vec<&str> = (plan.steps.iter())
            .filter(|s| s.router == router)
            .map(|s| s.action.as_str())
            .collect();
        assert!(
            own[0].starts_with("POST /config-file save"),
            "{router}: {own:?}"
        );
        assert!(
            own[0].contains("no commit-confirm may be pending"),
            "{own:?}"
        );
        assert!(own[1].starts_with("vyos-backup: copy"), "{router}: {own:?}");
        assert!(own[2].starts_with("POST /image add u"), "{router}: {own:?}");
    }
}

/// With `no-preempt` (vyos-1x `interface-definitions/high-availability.xml.in` `no-preempt`,
/// rendered `nopreempt` by `data/templates/high-availability/keepalived.conf.j2`) the upgraded
/// backup keeps the master role when the old master comes back, so the last check expects the
/// roles swapped in that group and names the way back (`restart vrrp`,
/// `op-mode-definitions/vrrp.xml.in`); a group the configuration does not name cannot be told.
/// Failed first: the last check asked for the roles "as before" in every group.
#[test]
fn with_no_preempt_the_last_check_expects_the_roles_swapped() {
    let master = table(
        "LAN   eth1         10  MASTER         200  1w\nMGMT  eth2.20      20  MASTER         200  1w\nDMZ   eth3         30  MASTER         200  1w\n",
    );
    let backup = table(
        "LAN   eth1         10  BACKUP         100  1w\nMGMT  eth2.20      20  BACKUP         100  1w\nDMZ   eth3         30  BACKUP         100  1w\n",
    );
    let configured = groups(&format!(
        "{PREEMPT}set high-availability vrrp group LAN no-preempt\n"
    ));
    let plan = upgrade_plan(("gw-a", &master), ("gw-b", &backup), &configured, "u");
    assert_eq!(plan.refused, None);
    assert_eq!(plan.steps.len(), 12);
    assert_eq!(
        plan.steps[5].action,
        "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, VRRP \
         roles as before (gw-b BACKUP, gw-a MASTER); stop here if any fails"
    );
    assert_eq!(
        plan.steps[11].action,
        "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, VRRP \
         roles: LAN gw-b MASTER, gw-a BACKUP (no-preempt: the roles stay swapped; to move them \
         back, `restart vrrp` on gw-b); MGMT gw-a MASTER, gw-b BACKUP (gw-a preempts); DMZ \
         cannot tell (not in the configuration read: gw-a MASTER if it preempts, gw-b with \
         no-preempt); stop here if any fails"
    );
}

#[test]
fn without_one_backup_and_one_master_there_is_no_order() {
    let master = table("LAN   eth1         10  MASTER         200  1w\n");
    let mixed = table(
        "LAN   eth1         10  BACKUP         100  1w\nDMZ   eth3         30  MASTER         150  2d\n",
    );
    let fault = table("LAN   eth1         10  FAULT          100  1w\n");
    let disabled = table("LAN   eth1         10  DISABLED       100  n/a\n");
    for (other, why) in [
        (&master, "both routers are Master"),
        (
            &mixed,
            "gw-b is Backup in LAN and Master in DMZ: not one role",
        ),
        (&fault, "gw-b's group LAN is in state Fault"),
        (
            &disabled,
            "gw-b's group LAN is in state Unknown(\"DISABLED\")",
        ),
        (
            &Vec::new(),
            "gw-b has no VRRP group, so neither router is the backup",
        ),
    ] {
        let plan = upgrade_plan(("gw-a", &master), ("gw-b", other), &[], "u");
        assert!(plan.steps.is_empty());
        assert_eq!(plan.refused.as_deref(), Some(why));
        assert_eq!(plan.to_string(), format!("no upgrade plan: {why}\n"));
    }
}

/// A site with one router (seed 004: "VyOS (1 router por site)"; VRRP HA for VyOS is desired,
/// not built): no backup takes over, so the plan saves and backs up first, installs, reboots in
/// a window, checks from the other site's router across the tunnel, and names the way back.
/// `add_image` without a prompt makes the new image the default boot entry (vyos-1x
/// `src/op_mode/image_installer.py`, through `POST /image` `add`, `routers.py` `image_op`), the
/// router boots `/config/config.boot` (so an unsaved commit is lost: `POST /config-file` `save`
/// first), and `set system image default-boot` (`op-mode-definitions/system-image.xml.in`:
/// `image_manager.py --action set`) goes back. Failed first: there was no plan for one router.
#[test]
fn one_router_per_site_is_saved_upgraded_in_a_window_and_checked_from_the_other_site() {
    let url = "https://downloads.example.net/vyos-1.5.iso";
    let plan = cpps_vyos::upgrade::single_router_plan("sp-gw", "rj-gw", "1.4.0", url);
    assert_eq!(plan.refused, None);
    let text = plan.to_string();
    let order: Vec<&str> = plan.steps.iter().map(|s| s.router.as_str()).collect();
    assert_eq!(
        order,
        [
            "sp-gw", "sp-gw", "sp-gw", "sp-gw", "sp-gw", "rj-gw", "sp-gw"
        ],
        "{text}"
    );
    for (i, words) in [
        (0, "POST /config-file save"),
        (1, "vyos-backup"),
        (2, &format!("POST /image add {url}") as &str),
        (3, "maintenance window"),
        (4, "`show version`"),
        (5, "WireGuard"),
        (6, "set system image default-boot 1.4.0"),
    ] {
        assert!(plan.steps[i].action.contains(words), "{i}: {text}");
    }
    assert!(text.contains("BGP"), "{text}");
    assert!(text.contains("no second router"), "{text}");
}

#[path = "common/mod.rs"]
mod common;

/// X3 of the issue-32 audit: the upgrade plan's "`show version` names the new image" step
/// needs a version read after the reboot, and `Client::version` is cached for the client's
/// lifetime. `version_fresh` reads it again (`GET /info` on 1.5, vyos-1x
/// `src/services/api/rest/routers.py` `/info`; `show version` through `POST /show` on 1.4).
/// Failed first: `version_fresh` did not exist, and `version`
/// named the old image after the upgrade.
#[tokio::test]
async fn the_same_client_sees_the_new_image_after_an_upgrade() {
    use common::{FakeRouter, Profile, config_fixture};
    for (profile, old, new) in [
        (Profile::V14, "1.4.0", "1.4.1"),
        (
            Profile::V15,
            "2025.01.10-0020-rolling",
            "2025.02.03-0021-rolling",
        ),
    ] {
        let tree = ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot"))
            .unwrap();
        let (_api, client, fake) = FakeRouter::new(profile, tree).start().await;
        assert_eq!(
            client
                .version()
                .await
                .unwrap()
                .text
                .trim_start_matches("VyOS "),
            old
        );
        // `/image add` and a reboot into the new image.
        fake.state.lock().unwrap().image_version = Some(new.to_owned());
        let fresh = client.version_fresh().await.unwrap();
        assert_eq!(fresh.text.trim_start_matches("VyOS "), new, "{profile:?}");
    }
}

/// Issue 32 (S8): the plan of a write reads the version now, not the reading a long-lived
/// client kept from before an image change (`show version` through `POST /show` on 1.4, vyos-1x
/// `sagitta` `src/services/vyos-http-api-server` `show_op`; `GET /info` on 1.5, `current`
/// `src/services/api/rest/routers.py`). Failed first: the plan named the old image.
#[tokio::test]
async fn the_plan_of_a_write_names_the_image_running_now() {
    use common::{FakeRouter, Profile, config_fixture};
    for (profile, new) in [
        (Profile::V14, "1.4.1"),
        (Profile::V15, "2025.02.03-0021-rolling"),
    ] {
        let tree = ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot"))
            .unwrap();
        let (_api, client, fake) = FakeRouter::new(profile, tree).start().await;
        let old = client.version().await.unwrap();
        fake.state.lock().unwrap().image_version = Some(new.to_owned());
        let batch = [cpps_vyos::Command::set(
            ["system", "host-name"],
            Some("sp-gw2"),
        )];
        let plan = client.plan_configure(&batch, None).await.unwrap();
        assert_ne!(plan.version, old, "{profile:?}");
        assert_eq!(
            plan.version.text.trim_start_matches("VyOS "),
            new,
            "{profile:?}"
        );
        assert_eq!(client.version().await.unwrap(), plan.version, "{profile:?}");
    }
}

/// `preempt-delay` (vyos-1x `interface-definitions/high-availability.xml.in`, 0-1000 seconds,
/// rendered `preempt_delay` by `data/templates/high-availability/keepalived.conf.j2` unless
/// `no-preempt` is set) delays the returning master: keepalived's `vrrp_state_backup`
/// (acassen/keepalived `keepalived/vrrp/vrrp.c`) keeps accepting the lower-priority adverts
/// and only sets `preempt_time` to now plus the delay, so the roles come back that long after
/// its VRRP starts, not at once. The last check says when it may expect them. Failed first:
/// the plan said "gw-a preempts" and nothing of the delay.
#[test]
fn the_last_check_waits_for_the_preempt_delay() {
    let master = table(
        "LAN   eth1         10  MASTER         200  1w2d\nMGMT  eth2.20      20  MASTER         200  1w2d\n",
    );
    let backup = table(
        "LAN   eth1         10  BACKUP         100  1w2d\nMGMT  eth2.20      20  BACKUP         100  1w2d\n",
    );
    let configured = groups(&format!(
        "{PREEMPT}set high-availability vrrp group LAN preempt-delay '180'\n"
    ));
    let plan = upgrade_plan(("gw-a", &master), ("gw-b", &backup), &configured, "u");
    assert_eq!(
        plan.steps[11].action,
        "checks (vyos-apply's): WireGuard handshakes fresh, BGP sessions Established, VRRP \
         roles: LAN gw-a MASTER, gw-b BACKUP (gw-a preempts 180 s after its VRRP starts \
         (preempt-delay): until then gw-b stays MASTER, so check after that); MGMT gw-a \
         MASTER, gw-b BACKUP (gw-a preempts); stop here if any fails"
    );
}
