//! `examples/alerts/cpps.rules.yml`'s DCGM XID alerts follow the one XID table: the codes
//! `CppsGpuXidApplication` warns on (and `CppsGpuXid` leaves out) are exactly the Application
//! class of `cpps_gpu::xid::XID_TABLE` (NVIDIA's Xid catalog: resolved by RESTART_APP, a user
//! application's fault). A row added to the table without the rule, or the reverse, fails here.
//! XID 154 is left out of the page too: its severity is its payload, the recovery action, which
//! DCGM's last-code field does not carry, and the driver logs 154 back to `0x0 (None)` when the
//! action clears (open-gpu-kernel-modules `src/nvidia/src/kernel/gpu/gpu.c`
//! `_gpuRefreshRecoveryActionInLock`), so a page on it would fire on every recovery.

use std::collections::BTreeSet;

use cpps_gpu::xid::{XID_TABLE, XidClass};

/// The `DCGM_FI_DEV_XID_ERRORS == N` codes of alert `name`'s `expr` line.
fn codes_of(rules: &str, name: &str) -> BTreeSet<u64> {
    let mut lines = rules
        .lines()
        .skip_while(|l| l.trim() != format!("- alert: {name}"));
    let expr = lines
        .find(|l| l.trim_start().starts_with("expr:"))
        .unwrap_or_else(|| panic!("alert {name} has no expr"));
    expr.split("DCGM_FI_DEV_XID_ERRORS == ")
        .skip(1)
        .map(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().unwrap()
        })
        .collect()
}

#[test]
fn the_dcgm_xid_alerts_split_on_the_application_class_of_the_xid_table() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/alerts/cpps.rules.yml");
    let rules = std::fs::read_to_string(path).unwrap();
    let application: BTreeSet<u64> = XID_TABLE
        .iter()
        .filter(|r| r.class == XidClass::Application)
        .map(|r| r.code)
        .collect();
    assert!(application.contains(&13) && application.contains(&31) && application.contains(&43));
    assert_eq!(codes_of(&rules, "CppsGpuXidApplication"), application);
    let mut not_paged = application.clone();
    not_paged.insert(154);
    assert_eq!(codes_of(&rules, "CppsGpuXid"), not_paged);
    assert_eq!(
        codes_of(&rules, "CppsGpuXidRecoveryAction"),
        BTreeSet::from([154])
    );
}
