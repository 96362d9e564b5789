//! The staged upgrade plan (`cpps_vyos::upgrade`), from `show vrrp` tables laid out as
//! `VRRP.format` in vyos-1x `python/vyos/ifconfig/vrrp.py` prints them (`tabulate`, headers
//! Name, Interface, VRID, State, Priority, Last Transition) and read by `parse_vrrp`.

use cpps_vyos::status::parse_vrrp;
use cpps_vyos::upgrade::upgrade_plan;

const HEAD: &str = "Name  Interface  VRID  State     Priority  Last Transition\n----  ---------  ----  --------  --------  ---------------\n";

fn table(rows: &str) -> Vec<cpps_vyos::status::VrrpStatus> {
    parse_vrrp(&format!("{HEAD}{rows}"))
}

#[test]
fn the_backup_is_upgraded_first_then_the_master() {
    let master = table(
        "LAN   eth1         10  MASTER         200  1w2d3h4m5s\nMGMT  eth2.20      20  MASTER         200  1w2d\n",
    );
    let backup = table(
        "LAN   eth1         10  BACKUP         100  1w2d3h4m5s\nMGMT  eth2.20      20  BACKUP         100  1w2d\n",
    );
    let url = "https://downloads.example.net/vyos-1.5.iso";
    let plan = upgrade_plan(("gw-a", &master), ("gw-b", &backup), url);
    assert_eq!(plan.refused, None);
    let order: Vec<&str> = plan.steps.iter().map(|s| s.router.as_str()).collect();
    assert_eq!(
        order,
        [
            "gw-b", "gw-b", "gw-b", "both", "gw-a", "gw-a", "gw-a", "both"
        ]
    );
    assert_eq!(
        plan.steps[0].action,
        format!("POST /image add {url} (installs it as the default boot image)")
    );
    let text = plan.to_string();
    assert!(text.starts_with("1. gw-b: POST /image add"), "{text}");
    assert!(text.contains("stop here if any fails"), "{text}");
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
        let plan = upgrade_plan(("gw-a", &master), ("gw-b", other), "u");
        assert!(plan.steps.is_empty());
        assert_eq!(plan.refused.as_deref(), Some(why));
        assert_eq!(plan.to_string(), format!("no upgrade plan: {why}\n"));
    }
}
