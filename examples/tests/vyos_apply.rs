//! Runs the built `vyos-apply` binary against the fake 1.4 and 1.5 routers of cpps-vyos's tests
//! (`cpps-vyos/tests/common`: answers shaped after vyos-1x `src/services/api/rest/routers.py`
//! on `current` and `src/services/vyos-http-api-server` on `sagitta`, each naming its source),
//! two of them joined by the WireGuard tunnel of VyOS's test configuration
//! `dialup-router-medium-vpn.config.boot`: a change below `interfaces wireguard` on one takes the
//! tunnel down as the other sees it.

mod common;
#[path = "../../cpps-vyos/tests/common/mod.rs"]
mod vyos_fake;

use std::io::Write;
use std::process::{Command, Output};

use cpps_http::test_util::MockApi;
use cpps_vyos::config::ConfigTree;
use vyos_fake::{FakeRouter, KEY, Profile, config_fixture};

/// Two fake routers of `profile`, the second the first's tunnel peer.
async fn pair(profile: Profile) -> ([MockApi; 2], FakeRouter, FakeRouter) {
    let tree =
        ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot")).unwrap();
    let (api_a, _, fa) = FakeRouter::new(profile, tree.clone()).start().await;
    let (api_b, _, fb) = FakeRouter::new(profile, tree).start().await;
    fa.state.lock().unwrap().tunnel_to = Some((fb.state.clone(), "red".to_owned()));
    ([api_a, api_b], fa, fb)
}

/// A commands file: the change below `interfaces wireguard` and a secret, whose value must
/// never be printed.
fn commands_file() -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(
        f,
        "set interfaces wireguard wg0 peer red port '51821'\nset system login user ops authentication plaintext-password 'Hunter2-never-shown'"
    )
    .unwrap();
    f
}

/// Runs the binary against the pair, with `--commands FILE` when a file is given.
fn run(servers: &[MockApi; 2], extra: &[&str], file: Option<&std::path::Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vyos-apply"));
    if let Some(f) = file {
        cmd.args(["--commands", f.to_str().unwrap()]);
    }
    if !extra.contains(&"--settle") {
        cmd.args(["--settle", "0"]);
    }
    cmd.args(extra)
        .env("VYOS_URL", servers[0].base_url().to_string())
        .env("VYOS_API_KEY", KEY)
        .env("VYOS_PEER_URL", servers[1].base_url().to_string())
        .env("VYOS_PEER_API_KEY", KEY)
        .env_remove("VYOS_FINGERPRINT")
        .env_remove("VYOS_PEER_FINGERPRINT")
        .output()
        .expect("vyos-apply runs")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn help_documents_the_timeout_the_modes_and_the_variables() {
    let help = common::help_documenting_timeout(env!("CARGO_BIN_EXE_vyos-apply"));
    for needle in [
        "--apply",
        "--confirm-minutes",
        "--check",
        "--revisions",
        "--rollback-soft",
        "--upgrade-plan",
        "--commit-timeout",
        "--check-timeout",
        "--confirm-timeout",
        "REKEY_AFTER_TIME",
        "VYOS_PEER_URL",
        "no ping operation",
        "--reach",
    ] {
        assert!(help.contains(needle), "--help lacks `{needle}`:\n{help}");
    }
}

/// By default nothing is written: the plan names the capability and the commands.
#[tokio::test]
async fn by_default_it_plans_and_writes_nothing() {
    let (servers, fa, _fb) = pair(Profile::V15).await;
    let file = commands_file();
    let out = run(&servers, &[], Some(file.path()));
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("commit-confirm: yes"), "{all}");
    assert!(
        all.contains("set interfaces wireguard wg0 peer red port '51821'"),
        "{all}"
    );
    assert!(all.contains("plan only: nothing was sent"), "{all}");
    assert!(!all.contains("Hunter2-never-shown"), "{all}");
    assert!(fa.requests_to("configure").is_empty());
}

/// On both versions a change whose check from the peer fails is not kept: 1.5 leaves it to
/// the commit-confirm timer (no confirm is sent), 1.4 has no commit-confirm and sends the
/// inverse commands. The run exits 2 and says which.
#[tokio::test]
async fn a_change_whose_peer_check_fails_is_not_kept_on_either_version() {
    for profile in [Profile::V15, Profile::V14] {
        let (servers, fa, _fb) = pair(profile).await;
        let before = fa.running();
        let file = commands_file();
        let out = run(
            &servers,
            &["--apply", "--check", "--confirm-minutes", "3"],
            Some(file.path()),
        );
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{profile:?}: {all}");
        assert!(
            all.contains(
                "BROKEN peer: wireguard wg0 peer red was handshake 40 s ago, now no handshake"
            ),
            "{profile:?}: {all}"
        );
        assert!(!all.contains("Hunter2-never-shown"), "{profile:?}: {all}");
        let file_ops: Vec<String> = fa
            .requests_to("config-file")
            .iter()
            .map(|b| b["op"].as_str().unwrap_or("").to_owned())
            .collect();
        assert!(file_ops.is_empty(), "{profile:?}: {file_ops:?}");
        match profile {
            Profile::V15 => {
                assert!(
                    all.contains("NOT confirmed: unless someone confirms within 3 minute(s), VyOS will REBOOT"),
                    "{all}"
                );
                assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(3));
            }
            Profile::V14 => {
                assert!(all.contains("commit-confirm: NO"), "{all}");
                assert!(all.contains("rolled back with 2 command(s)"), "{all}");
                assert_eq!(fa.running(), before);
            }
        }
    }
}

/// `--upgrade-plan` only plans. With no VRRP group (`VRRP not configured!`, vyos-1x
/// `src/op_mode/vrrp.py`) the site has one router, as seed 004 says of this estate: the plan
/// saves, backs up, adds the image, reboots in a window, checks from the peer site, and names
/// the way back to the running image. Failed first: the run refused ("neither router is the
/// backup") and exited 2.
#[tokio::test]
async fn an_upgrade_plan_for_one_router_a_site_is_checked_from_the_peer_site() {
    let (servers, fa, fb) = pair(Profile::V15).await;
    let file = commands_file();
    let out = run(
        &servers,
        &["--upgrade-plan", "https://downloads.example.net/vyos.iso"],
        Some(file.path()),
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("one router at this site"), "{all}");
    assert!(all.contains("1. this: POST /config-file save"), "{all}");
    assert!(
        all.contains("6. peer site: checks from the other site"),
        "{all}"
    );
    assert!(
        all.contains("set system image default-boot 2025.01.10-0020-rolling"),
        "{all}"
    );
    assert!(all.contains("plan only: nothing was sent"), "{all}");
    for fake in [&fa, &fb] {
        assert!(fake.requests_to("configure").is_empty());
        assert!(fake.requests_to("config-file").is_empty());
        assert!(fake.requests_to("image").is_empty());
        assert!(fake.requests_to("reboot").is_empty());
    }
}

/// `--revisions` reads `show system commit`; `--rollback-soft 0` plans the batch back to the
/// archived revision 0 (`show system commit file 0`, the saved configuration), and with
/// `--apply` sends it with commit-confirm and confirms once the checks hold.
#[tokio::test]
async fn revisions_are_listed_and_a_soft_rollback_is_planned_then_applied() {
    let (servers, fa, fb) = pair(Profile::V15).await;
    let out = run(&servers, &["--revisions"], None);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    common::assert_has_lines(
        &all,
        &[
            "0  2025-01-10 10:00:00  by vyos  via vyos-http-api  (add the uplink)",
            "1  2025-01-09 08:15:02  by root  via cli",
        ],
    );

    let saved = fa.running();
    fa.state
        .lock()
        .unwrap()
        .running
        .apply(&cpps_vyos::Command::set(
            ["system", "domain-name"],
            Some("example.net"),
        ))
        .unwrap();
    let out = run(&servers, &["--rollback-soft", "0"], None);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("  delete system domain-name"), "{all}");
    assert!(all.contains("plan only"), "{all}");
    // Audit U1: the domain name is committed, not saved, and a revert would reboot into
    // /config/config.boot (vyos-1x `config_mgmt.py` `ConfigMgmt.revert`): the plan says the
    // apply is refused unless --allow-unsaved-revert.
    assert!(
        all.contains("REFUSED: the running configuration has commits that are not saved (set system domain-name)"),
        "{all}"
    );
    assert!(fa.requests_to("configure").is_empty());

    // Only a handshake made after the commit counts: red's is 1 s old, the checks run 2 s
    // after the commit (the fakes' clock does not move).
    for f in [&fa, &fb] {
        f.state.lock().unwrap().handshake_ago = vec![("red".to_owned(), 1)];
    }
    let out = run(
        &servers,
        &[
            "--rollback-soft",
            "0",
            "--apply",
            "--allow-unsaved-revert",
            "--settle",
            "2",
            "--timeout",
            "30",
        ],
        None,
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("all checks held: confirmed"), "{all}");
    assert_eq!(fa.running(), saved);
}

/// With --apply and commit-confirm, steps after the commit (--commit-timeout, --settle,
/// --check-timeout, --confirm-timeout) that cannot end within --confirm-minutes are refused
/// before anything is written (audit N4): VyOS would revert while the run still checks.
#[tokio::test]
async fn an_apply_whose_steps_cannot_fit_the_confirm_window_sends_nothing() {
    let (servers, fa, _fb) = pair(Profile::V15).await;
    let file = commands_file();
    let out = run(
        &servers,
        &["--apply", "--confirm-minutes", "1", "--settle", "130"],
        Some(file.path()),
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(
        all.contains("(commit 60 s, settle 130 s, checks 45 s, confirm 30 s), which does not fit in the commit-confirm window of 60 s"),
        "{all}"
    );
    assert!(all.contains("nothing was sent"), "{all}");
    assert!(fa.requests_to("configure").is_empty(), "{all}");
    assert!(fa.requests_to("config-file").is_empty(), "{all}");
}

/// A commands file holding `lines`.
fn commands(lines: &str) -> tempfile::NamedTempFile {
    let mut f = tempfile::NamedTempFile::new().unwrap();
    writeln!(f, "{lines}").unwrap();
    f
}

/// Issue 32, safe apply step 4: `--reach ADDR` must stay reachable from this router and the
/// peer. The API has no ping (vyos-1x `src/services/api/rest/routers.py`: no `/ping` before
/// PR #5415), so reachability is FRR's route (`show ip route ADDR`, `zebra/zebra_vty.c`
/// `vty_show_ip_route_detail`) and the next hop's neighbour (`show arp`, vyos-1x
/// `src/op_mode/neighbor.py`). A blackhole route to the address breaks it: 1.5 leaves the
/// change to the timer (no confirm), 1.4 sends the inverse batch. A harmless change with the
/// same `--reach` is confirmed. Failed first: `--reach` did not exist and nothing checked
/// reachability.
#[tokio::test]
async fn a_change_that_blackholes_a_named_address_is_not_kept() {
    for profile in [Profile::V15, Profile::V14] {
        let (servers, fa, fb) = pair(profile).await;
        for f in [&fa, &fb] {
            // The tunnel proves itself after the commit (the fakes' clock does not move).
            f.state.lock().unwrap().handshake_ago = vec![("red".to_owned(), 1)];
        }
        let before = fa.running();
        let file = commands("set protocols static route 203.0.113.0/24 blackhole");
        let args = [
            "--apply",
            "--check",
            "--confirm-minutes",
            "3",
            "--settle",
            "2",
        ];
        let out = run(
            &servers,
            &[&args[..], &["--reach", "203.0.113.9"]].concat(),
            Some(file.path()),
        );
        let all = text(&out);
        assert_eq!(out.status.code(), Some(2), "{profile:?}: {all}");
        assert!(
            all.contains("BROKEN this: reach 203.0.113.9 was route 0.0.0.0/0 (the default route) via static (192.0.2.1, via eth0, weight 1): neighbour 192.0.2.1 is REACHABLE, now route 203.0.113.0/24 via static: no usable next hop (unreachable (blackhole), weight 1)"),
            "{profile:?}: {all}"
        );
        // The peer's own route to the address is untouched.
        assert!(!all.contains("BROKEN peer: reach"), "{all}");
        match profile {
            Profile::V15 => {
                assert!(all.contains("NOT confirmed"), "{all}");
                assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(3));
            }
            Profile::V14 => {
                assert!(all.contains("rolled back with 1 command(s)"), "{all}");
                assert_eq!(fa.running(), before);
            }
        }
    }
    let (servers, fa, fb) = pair(Profile::V15).await;
    for f in [&fa, &fb] {
        f.state.lock().unwrap().handshake_ago = vec![("red".to_owned(), 1)];
    }
    let file = commands("set system domain-name example.net");
    let out = run(
        &servers,
        &[
            "--apply",
            "--check",
            "--settle",
            "2",
            "--reach",
            "203.0.113.9",
        ],
        Some(file.path()),
    );
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("all checks held: confirmed"), "{all}");
    assert!(!all.contains("not checked: reachability"), "{all}");
}

/// X6 of the issue-32 audit: `--diff N` of a revision that does not exist. VyOS answers 200
/// with `Invalid revision number N` (vyos-1x `python/vyos/config_mgmt.py` `compare` returns
/// it with rc 1, `show_commit_diff` drops the rc, `src/op_mode/config_mgmt.py` prints it and
/// exits 0). The run says so and exits non-zero instead of printing it as a diff. Failed
/// first: it printed the text and exited 0.
#[tokio::test]
async fn a_diff_of_a_missing_revision_fails() {
    let (servers, _fa, _fb) = pair(Profile::V15).await;
    let out = run(&servers, &["--diff", "0"], None);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains("No changes between revisions 1 and 0"),
        "{all}"
    );
    let out = run(&servers, &["--diff", "7"], None);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("Invalid revision number 7"), "{all}");
}

/// A commands file over the 8 MiB cap (cpps-vyos `backup::MAX_FILE_BYTES`, the cap the client
/// puts on a router's answer) is refused by its size before it is read: a sparse file of
/// cap + 1 bytes (`set_len`). The run exits 1 naming the file, its size and the cap, and asks
/// the router nothing. Failed first: the file was read whole and refused as commands.
#[tokio::test]
async fn a_commands_file_over_the_cap_is_refused_unread() {
    let (servers, fa, _fb) = pair(Profile::V15).await;
    let cap = cpps_vyos::backup::MAX_FILE_BYTES;
    assert_eq!(cap, 8 * 1024 * 1024);
    let file = tempfile::NamedTempFile::new().unwrap();
    file.as_file().set_len(cap + 1).unwrap();
    let out = run(&servers, &[], Some(file.path()));
    let all = text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    let named = format!(
        "{} is {} bytes, over the cap of {cap} bytes",
        file.path().display(),
        cap + 1
    );
    assert!(all.contains(&named), "{all}");
    assert!(fa.requests_to("configure").is_empty());
}

/// Issue 32, D8 revert without an archive: where `show system commit` says commit-revisions is
/// not configured (vyos-1x `src/op_mode/config_mgmt.py` `show_commit_log`), the revision a
/// reload-revert loads (`ConfigMgmt.revert_soft`, `python/vyos/config_mgmt.py`) is stale, so
/// the plan says an apply would be refused, and `--apply` sends nothing.
#[tokio::test]
async fn a_stale_commit_archive_refuses_the_apply() {
    let (servers, fa, _fb) = pair(Profile::V15).await;
    fa.state.lock().unwrap().commit_revisions = false;
    let file = commands_file();
    let plan = text(&run(&servers, &[], Some(file.path())));
    assert!(plan.contains("with --apply: REFUSED"), "{plan}");
    assert!(
        plan.contains("commit-revisions is not configured"),
        "{plan}"
    );
    let out = run(&servers, &["--apply", "--check"], Some(file.path()));
    let all = text(&out);
    assert_eq!(out.status.code(), Some(2), "{all}");
    assert!(all.contains("not applied"), "{all}");
    assert!(fa.requests_to("configure").is_empty(), "{all}");
}
