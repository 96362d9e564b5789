//! The safe apply on the fake 1.4 and 1.5 routers of `common`: two routers joined by the
//! WireGuard tunnel of VyOS's own test configuration `dialup-router-medium-vpn.config.boot`
//! (peer `red` shook hands 40 s ago). The peer's summary is printed as each version prints it
//! (`sudo wg show` on 1.4, `interfaces_wireguard.py show_summary` on 1.5, vyos-1x
//! `op-mode-definitions/show-interfaces-wireguard.xml.in`), `show vrrp` says `VRRP not
//! configured!` (`src/op_mode/vrrp.py`), `show bgp summary` is FRR's (9.1 on 1.4, 10 on 1.5).

mod common;

use std::num::NonZeroU32;
use std::time::Duration;

use common::{FakeRouter, Profile, config_fixture};
use cpps_http::test_util::MockApi;
use cpps_vyos::apply::{ApplyOptions, ApplyOutcome, Timer, Undo, safe_apply};
use cpps_vyos::config::ConfigTree;
use cpps_vyos::{Client, Command, ConfirmAction};

fn options() -> ApplyOptions {
    let mut o = ApplyOptions::new(NonZeroU32::new(5).unwrap());
    o.settle = Duration::ZERO;
    o
}

/// Checks 2 s after the commit: a handshake printed as 1 s ago then came after it (see
/// [`fresh_after_commit`]).
fn settled() -> ApplyOptions {
    let mut o = options();
    o.settle = Duration::from_secs(2);
    o
}

/// Makes red's handshake 1 s old on both ends; the fakes' clock does not move, so the checks
/// after a 2 s settle see a handshake made after the commit.
fn fresh_after_commit(fa: &FakeRouter, fb: &FakeRouter) {
    for f in [fa, fb] {
        f.state.lock().unwrap().handshake_ago = vec![("red".to_owned(), 1)];
    }
}

fn tree() -> ConfigTree {
    ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot")).unwrap()
}

/// Two fake routers of `profile` (their servers, then this router and its fake, then the peer
/// and its fake); a commit below `interfaces wireguard` on the first takes the tunnel down as
/// the second sees it (its peer `red` stops shaking hands).
async fn pair(profile: Profile) -> ([MockApi; 2], Client, FakeRouter, Client, FakeRouter) {
    let (api_a, a, fa) = FakeRouter::new(profile, tree()).start().await;
    let (api_b, b, fb) = FakeRouter::new(profile, tree()).start().await;
    fa.state.lock().unwrap().tunnel_to = Some((fb.state.clone(), "red".to_owned()));
    ([api_a, api_b], a, fa, b, fb)
}

fn breaking_change() -> Vec<Command> {
    vec![Command::set(
        ["interfaces", "wireguard", "wg0", "peer", "red", "port"],
        Some("51821"),
    )]
}

fn harmless_change() -> Vec<Command> {
    vec![Command::set(["system", "domain-name"], Some("example.net"))]
}

/// 1.5: the change is committed with `confirm_time`; the peer's check fails, so no `confirm` is
/// sent and VyOS's timer reverts it (its answer names the action: "… before reboot").
#[tokio::test]
async fn on_1_5_a_change_whose_peer_check_fails_is_left_to_revert() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let report = safe_apply(&a, Some(&b), &breaking_change(), &settled())
        .await
        .unwrap();
    assert!(report.commit_confirm);
    assert_eq!(report.broken.len(), 1, "{report}");
    assert_eq!(report.broken[0].before.router, "peer");
    assert_eq!(report.broken[0].before.subject, "wireguard wg0 peer red");
    assert_eq!(
        report.broken[0].after.as_ref().unwrap().state,
        "no handshake"
    );
    match &report.outcome {
        ApplyOutcome::LeftToRevert { commit_confirm } => {
            assert_eq!(commit_confirm.minutes, 5);
            assert_eq!(commit_confirm.action, ConfirmAction::Reboot);
        }
        other => panic!("{other:?}"),
    }
    let ops: Vec<_> = fa
        .requests_to("config-file")
        .iter()
        .map(|b| b["op"].clone())
        .collect();
    assert!(ops.is_empty(), "neither confirm nor save: {ops:?}");
    assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(5));
    let text = report.to_string();
    assert!(text.contains("NOT confirmed"), "{text}");
    assert!(text.contains("no ping operation"), "{text}");
}

/// 1.4 has no commit-confirm (`confirm_time` is not in its `/openapi.json`): the change is
/// committed for good, and when the peer's check fails the inverse batch is sent.
#[tokio::test]
async fn on_1_4_a_change_whose_peer_check_fails_is_rolled_back() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let before = fa.running();
    let report = safe_apply(&a, Some(&b), &breaking_change(), &settled())
        .await
        .unwrap();
    assert!(!report.commit_confirm);
    assert_eq!(report.broken.len(), 1, "{report}");
    match &report.outcome {
        ApplyOutcome::RolledBack { commands, left } => {
            assert_eq!(commands.len(), 1, "{commands:?}");
            assert!(left.is_empty(), "{left:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fa.running(), before);
    assert!(fa.requests_to("configure")[0].get("confirm_time").is_none());
    assert!(report.to_string().contains("rolled back"), "{report}");
}

/// Y1 (s45 audit of issue 32): `show bgp summary` runs FRR's `bgp_show_summary_vty` for the
/// default instance only (vyos-1x `op-mode-definitions/show-bgp.xml.in`; FRRouting
/// `bgpd/bgp_vty.c`), so a change that drops a session in VRF blue was confirmed. The checks
/// read `show bgp vrf all summary` (`bgp_show_all_instances_summary_vty`, on 1.4 and 1.5):
/// the change is left to revert on 1.5 and rolled back on 1.4. Failed first: kept on both.
#[tokio::test]
async fn a_change_that_drops_a_bgp_session_in_a_vrf_is_not_kept() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        fa.state.lock().unwrap().vrf_bgp_down_after_commit = true;
        let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
            .await
            .unwrap();
        let broken: Vec<(&str, &str, &str)> = report
            .broken
            .iter()
            .map(|x| {
                let after = x.after.as_ref().map_or("", |c| c.state.as_str());
                (x.before.router.as_str(), x.before.subject.as_str(), after)
            })
            .collect();
        assert_eq!(
            broken,
            [("this", "bgp vrf blue IPv4 Unicast 10.1.0.2", "Active")],
            "{profile:?}: {report}"
        );
        match (&report.outcome, profile) {
            (ApplyOutcome::LeftToRevert { .. }, Profile::V15) => {}
            (ApplyOutcome::RolledBack { commands, .. }, Profile::V14) => {
                assert_eq!(commands.len(), 1, "{commands:?}");
            }
            (other, _) => panic!("{profile:?}: {other:?}"),
        }
    }
}

/// A change that breaks nothing is confirmed and saved on 1.5, kept and saved on 1.4.
#[tokio::test]
async fn on_both_versions_a_harmless_change_is_kept() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
            .await
            .unwrap();
        assert!(report.broken.is_empty(), "{profile:?}: {report}");
        // Red (1 s) is fresh on both ends; blue, pink and green were stale before.
        let fresh = report
            .before
            .iter()
            .filter(|c| c.healthy == Some(true) && c.subject.starts_with("wireguard"))
            .count();
        assert_eq!(fresh, 2, "{profile:?}: {:?}", report.before);
        let ops: Vec<_> = fa
            .requests_to("config-file")
            .iter()
            .map(|b| b["op"].as_str().unwrap_or("").to_owned())
            .collect();
        match (profile, &report.outcome) {
            (Profile::V15, ApplyOutcome::Kept { confirm: Some(m) }) => {
                assert_eq!(m, "Reboot timer stopped\n");
                assert_eq!(ops, ["confirm", "save"]);
            }
            (Profile::V14, ApplyOutcome::Kept { confirm: None }) => assert_eq!(ops, ["save"]),
            other => panic!("{other:?}"),
        }
        assert!(fa.running().exists(&["system", "domain-name"]));
    }
}

/// Suspected item of the s42 audit of issue 32: `confirm()` read `/openapi.json` again, and a read
/// that failed (nginx's own 503 page on each of the client's 4 attempts: one 503 is retried by
/// `cpps_http`'s default `RetryPolicy`, so a single one was already harmless) read as "no
/// commit-confirm", so the confirm was not sent and VyOS's timer (`commit_confirm` in vyos-1x
/// `python/vyos/config_mgmt.py`) rebooted a change whose checks held. The router already proved the capability: the schema read before
/// the write showed `confirm_time` (`ConfigureListModel`, `src/services/api/rest/models.py`) and
/// its answer said "Initialized commit-confirm". Only a schema that shows no `confirm_time` may
/// stop a confirm. Failed first: `ConfirmFailed` with `CommitConfirmUnsupported`, timer left.
#[tokio::test]
async fn a_schema_read_that_fails_after_the_commit_does_not_skip_the_confirm() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    fa.state.lock().unwrap().openapi_unavailable_after_commit = 4;
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    match &report.outcome {
        ApplyOutcome::Kept { confirm: Some(m) } => assert_eq!(m, "Reboot timer stopped\n"),
        other => panic!("{other:?}"),
    }
    let st = fa.state.lock().unwrap();
    assert_eq!(st.confirm_pending, None, "the timer still runs");
    assert_eq!(st.openapi_unavailable, 0, "the failing reads were not made");
    assert_eq!(st.saved, st.running);
}

/// The checks compare like with like: a check that could not be read before does not block,
/// one that held and can no longer be read does.
#[test]
fn a_check_that_held_and_cannot_be_read_after_is_broken() {
    use cpps_vyos::apply::{Check, broken};
    let c = |subject: &str, state: &str, healthy: Option<bool>| {
        Check::new("this", subject, state, healthy)
    };
    let before = vec![
        c("bgp ipv4 192.0.2.11", "Established", Some(true)),
        c("vrrp LAN eth1", "MASTER", Some(true)),
        c("wireguard", "read failed", None),
    ];
    let after = vec![
        c("bgp", "read failed", None),
        c("vrrp LAN eth1", "BACKUP", Some(true)),
        c("wireguard", "read failed", None),
    ];
    let found: Vec<String> = broken(&before, &after)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(
        found,
        [
            "this: bgp ipv4 192.0.2.11 was Established, now not reported",
            "this: vrrp LAN eth1 was MASTER, now BACKUP",
        ]
    );
}

/// Nothing verified, nothing confirmed (audit N2): a peer whose API cannot be read before the
/// change (nginx answers 503 while `service https api` is off, vyos-1x
/// `data/templates/https/nginx.default.j2`; here every path fails) offers no check that could
/// break, so without this rule the change would be confirmed blind. It is not sent at all, and
/// the report says which router could not be checked.
#[tokio::test]
async fn a_change_is_not_sent_when_a_router_cannot_be_checked_before() {
    let (_api_a, a, fa) = FakeRouter::new(Profile::V15, tree()).start().await;
    let (_dead, peer) = common::router().await;
    let report = safe_apply(&a, Some(&peer), &harmless_change(), &options())
        .await
        .unwrap();
    assert!(fa.requests_to("configure").is_empty(), "{report}");
    assert!(fa.requests_to("config-file").is_empty(), "{report}");
    match &report.outcome {
        ApplyOutcome::NotApplied { error } => {
            assert!(error.contains("failed on peer"), "{error}");
            assert!(error.contains("nothing was sent"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!fa.running().exists(&["system", "domain-name"]));
}

/// A handshake from before the commit says nothing about the changed configuration (audit
/// N3): red last shook hands 40 s ago, within the 180 s limit, but the checks run 2 s after
/// the commit, so that handshake predates it on both ends and the change is not confirmed.
/// Nor is it broken: with red's keepalive of 20 s its renewal is not due before the
/// handshake is 205 s old ([`cpps_vyos::apply::RENEWAL_DUE`], wireguard-linux
/// `drivers/net/wireguard/send.c` and `receive.c` `keep_key_fresh`), so it cannot tell yet.
/// Ages as `wg show` prints them, whole seconds cut down (wireguard-tools `src/show.c` `ago`;
/// vyos-1x `python/vyos/ifconfig/wireguard.py` `show_interface`, `int(time.time() - ...)`).
#[tokio::test]
async fn a_handshake_from_before_the_commit_is_not_fresh_after_it() {
    let (_servers, a, fa, b, _fb) = pair(Profile::V15).await;
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    assert_eq!(report.broken, [], "{report}");
    let red = "wireguard wg0 peer red (handshake 40 s ago, before the commit; no proof is due \
               yet: with keepalive 20 s its renewal shows by 205 s)";
    assert!(
        matches!(
            &report.outcome,
            ApplyOutcome::Unproven { commit_confirm: Some(_), pending }
                if *pending == [format!("this: {red}"), format!("peer: {red}")]
        ),
        "{report}"
    );
    assert!(fa.requests_to("config-file").is_empty(), "no confirm");
}

fn half_failing_change(fake: &FakeRouter) -> Vec<Command> {
    fake.state.lock().unwrap().failing_subtree = Some(vec!["protocols".into(), "static".into()]);
    vec![
        Command::set(["system", "domain-name"], Some("example.net")),
        Command::set(
            [
                "protocols",
                "static",
                "route",
                "203.0.113.0/24",
                "blackhole",
            ],
            None,
        ),
    ]
}

/// The outcome of a write that did not go as asked, as (live, timer, undo).
fn write_failed(outcome: &ApplyOutcome) -> (&Option<Vec<Command>>, &Timer, &Undo) {
    match outcome {
        ApplyOutcome::WriteFailed {
            live, timer, undo, ..
        } => (live, timer, undo),
        other => panic!("{other:?}"),
    }
}

/// Audit N1: a refused commit-confirmed write that partly landed is no "not applied". On
/// `current`, `run_commit_confirm` (vyos-1x `src/services/api/rest/routers.py`) commits first and
/// arms the timer only after a commit that succeeded, so a commit that failed in one priority
/// subtree leaves the rest live with NO timer; `_configure_op` then only discards what is left.
/// Leaving that to a timer would keep it for good: the inverse is sent, and the report says
/// what was live and that a timer may still be armed (the first builds armed it before the
/// commit). Failed first: the outcome was `NotApplied` with the domain name live.
#[tokio::test]
async fn on_1_5_a_refused_write_that_partly_landed_is_undone() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let before = fa.running();
    let change = half_failing_change(&fa);
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (live, timer, undo) = write_failed(&report.outcome);
    assert_eq!(live.as_deref(), Some(&change[..1]), "{report}");
    // After the undo a `confirm` stops a timer the first builds may have armed (X4); here
    // none was: `No confirm pending`.
    assert_eq!(
        *timer,
        Timer::StoppedAfterUndo {
            answer: "No confirm pending".to_owned()
        }
    );
    match undo {
        Undo::RolledBack { commands, left } => {
            assert_eq!(commands.len(), 1, "{commands:?}");
            assert!(left.is_empty(), "{left:?}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(fa.running(), before);
    assert_eq!(fa.state.lock().unwrap().confirm_pending, None);
    assert!(
        fa.requests_to("configure")[1].get("confirm_time").is_none(),
        "the inverse is no commit-confirm"
    );
    let text = report.to_string();
    assert!(text.contains("set system domain-name"), "{text}");
    assert!(
        text.contains("stopped by `confirm` after the undo"),
        "{text}"
    );
    assert!(text.contains("inverse"), "{text}");
}

/// Audit N1 on the first commit-confirm builds: `_configure_op` armed the timer
/// (`session.commit_confirm`) BEFORE `session.commit()`, so the same refusal leaves a timer
/// running. The inverse is sent all the same (the live part must not wait for a timer that may
/// not exist), and then `confirm` stops a timer that may be armed (audit X4: vyos-1x
/// `routers.py` `_configure_op` of commit 0514484a answers the failed commit 400 after
/// `session.discard()` and nothing disarms the timer, so the router would reboot later with
/// no warning). Failed first: the timer stayed armed (`confirm_pending` was `Some(5)`).
#[tokio::test]
async fn on_the_first_commit_confirm_builds_a_refused_write_says_the_timer_may_run() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    fa.state.lock().unwrap().timer_before_commit = true;
    let before = fa.running();
    let change = half_failing_change(&fa);
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (_, timer, undo) = write_failed(&report.outcome);
    assert_eq!(
        *timer,
        Timer::StoppedAfterUndo {
            answer: "Reboot timer stopped".to_owned()
        }
    );
    assert!(matches!(undo, Undo::RolledBack { .. }), "{undo:?}");
    assert_eq!(fa.running(), before);
    assert_eq!(fa.state.lock().unwrap().confirm_pending, None);
    let text = report.to_string();
    assert!(
        text.contains("stopped by `confirm` after the undo"),
        "{text}"
    );
}

/// Audit N1 on 1.4 (no commit-confirm): the part of a refused batch that is live is undone by
/// the inverse batch, and the report says so.
#[tokio::test]
async fn on_1_4_a_refused_write_that_partly_landed_is_undone() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let before = fa.running();
    let change = half_failing_change(&fa);
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (live, timer, undo) = write_failed(&report.outcome);
    assert_eq!(live.as_deref(), Some(&change[..1]));
    assert_eq!(*timer, Timer::NotAsked);
    assert!(matches!(undo, Undo::RolledBack { .. }), "{undo:?}");
    assert_eq!(fa.running(), before);
}

/// Audit N10 through the safe apply: a batch refused as a whole (a path below a leaf; the fake,
/// like `_configure_op`, refuses it before committing anything) changed nothing, even though
/// one of its commands was already in effect: nothing is live and nothing is sent after it.
#[tokio::test]
async fn a_write_refused_as_a_whole_leaves_nothing_live() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let host = fa.running().host_name().unwrap().to_owned();
    let change = vec![
        Command::set(["system", "host-name"], Some(host.as_str())),
        Command::set(["system", "host-name", "below"], Some("x")),
    ];
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (live, _, undo) = write_failed(&report.outcome);
    assert_eq!(live.as_deref(), Some(&[][..]));
    assert_eq!(*undo, Undo::NothingLive);
    assert_eq!(fa.requests_to("configure").len(), 1, "no inverse");
}

/// A `show vrrp` table as `VRRP.format` prints it (vyos-1x `python/vyos/ifconfig/vrrp.py`:
/// `tabulate`, headers Name, Interface, VRID, State, Priority, Last Transition).
fn vrrp_table(state: &str) -> String {
    format!(
        "Name  Interface  VRID  State     Priority  Last Transition\n----  ---------  ----  --------  --------  ---------------\nLAN   eth1         10  {state:<8}       200  1w2d3h4m5s\n"
    )
}

/// Audit N2, the rest: one healthy check must not stand for all. The peer's VRRP group is
/// MASTER and its BGP sessions are up, but its WireGuard peers could not be read before the
/// change (`wg show` exits 1, `show_op` answers 400), so a tunnel the change breaks could not
/// be seen: nothing is sent, and the report names the reading. Failed first: the change was
/// committed and confirmed.
#[tokio::test]
async fn a_reading_that_failed_before_blocks_the_change_whatever_else_held() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    {
        let mut st = fb.state.lock().unwrap();
        st.vrrp_table = Some(vrrp_table("MASTER"));
        st.wireguard_fails = true;
    }
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    assert!(fa.requests_to("configure").is_empty(), "{report}");
    match &report.outcome {
        ApplyOutcome::NotApplied { error } => {
            assert!(error.contains("peer"), "{error}");
            assert!(error.contains("wireguard wg0"), "{error}");
            assert!(error.contains("nothing was sent"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

/// Audit N2: a VRRP group in INIT (keepalived has not yet joined it, vyos-1x
/// `python/vyos/ifconfig/vrrp.py` prints keepalived's state) holds no role: it is not healthy.
/// Failed first: INIT counted as healthy.
#[tokio::test]
async fn a_vrrp_group_in_init_is_not_healthy() {
    let (_servers, a, fa, _b, _fb) = pair(Profile::V15).await;
    fa.state.lock().unwrap().vrrp_table = Some(vrrp_table("INIT"));
    let checks = cpps_vyos::apply::health(&a, "this", Duration::from_secs(180)).await;
    let vrrp: Vec<_> = checks
        .iter()
        .filter(|c| c.subject.starts_with("vrrp"))
        .map(|c| (c.subject.as_str(), c.state.as_str(), c.healthy))
        .collect();
    assert_eq!(vrrp, [("vrrp LAN eth1", "INIT", Some(false))]);
}

/// Audit N4: the steps after the commit (the commit with its read-back, the settle, the checks
/// and the confirm) must fit in the commit-confirm window, or VyOS reverts (by reboot, as its
/// answer says) while the run still checks. With one minute of commit-confirm and the default
/// steps, nothing is sent. Failed first: the change was committed.
#[tokio::test]
async fn steps_after_the_commit_that_cannot_fit_the_confirm_window_send_nothing() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let opts = ApplyOptions::new(NonZeroU32::MIN);
    let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
        .await
        .unwrap();
    assert!(fa.requests_to("configure").is_empty(), "{report}");
    match &report.outcome {
        ApplyOutcome::NotApplied { error } => {
            assert!(error.contains("commit-confirm window of 60 s"), "{error}");
            assert!(error.contains("nothing was sent"), "{error}");
        }
        other => panic!("{other:?}"),
    }
}

/// Audit N3/N4: the default settle lets an untouched tunnel prove itself. WireGuard starts a new
/// handshake once the session is `REKEY_AFTER_TIME` (120 s) old and a packet is sent
/// (wireguard-linux `drivers/net/wireguard/messages.h` and `send.c`
/// `keep_key_fresh`), so a settle shorter than that made a harmless change revert.
#[test]
fn the_default_settle_outlasts_a_rekey() {
    let opts = ApplyOptions::new(NonZeroU32::new(5).unwrap());
    assert!(opts.settle > Duration::from_secs(125), "{:?}", opts.settle);
}

/// Audit N3: bytes received through the tunnel after the commit prove it works as well as a new
/// handshake: WireGuard accepts data only under a session that is still valid
/// (`REJECT_AFTER_TIME`, wireguard-linux `drivers/net/wireguard/receive.c`
/// `counter_validate` and `messages.h`). Red shook hands 40 s before the change, which alone
/// proves nothing after it; its received counter rose between the readings before and after, so
/// the change is kept. Failed first: left to revert.
#[tokio::test]
async fn bytes_received_after_the_commit_prove_the_tunnel() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        for f in [&fa, &fb] {
            f.state.lock().unwrap().rx_grows = true;
        }
        let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
            .await
            .unwrap();
        assert!(report.broken.is_empty(), "{profile:?}: {report}");
        assert!(
            matches!(report.outcome, ApplyOutcome::Kept { .. }),
            "{profile:?}: {report}"
        );
        let red = report
            .after
            .iter()
            .find(|c| c.router == "peer" && c.subject == "wireguard wg0 peer red")
            .unwrap();
        assert!(red.state.contains("received"), "{}", red.state);
    }
}

/// Audit W1 (issue 32): the received counter is cumulative (wireguard-tools `src/show.c`
/// `pretty_print` prints the kernel's `rx_bytes`; vyos-1x `python/vyos/ifconfig/wireguard.py`
/// `show_interface` likewise), so bytes that arrived between the reading before the change and
/// the commit prove nothing about the tunnel after it. Here this router's tunnel carried 1 MiB
/// between the pre-read and the commit and nothing after it (the change killed it): its peer
/// red must not read as proved by "received bytes rose". Failed first: it did, against the
/// reading taken before the commit.
#[tokio::test]
async fn bytes_received_before_the_commit_prove_nothing_after_it() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, _fb) = pair(profile).await;
        {
            let mut st = fa.state.lock().unwrap();
            st.rx_grows = true;
            st.rx_stops_at_commit = true;
        }
        let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
            .await
            .unwrap();
        let red = report
            .after
            .iter()
            .find(|c| c.router == "this" && c.subject == "wireguard wg0 peer red")
            .unwrap_or_else(|| panic!("{profile:?}: {report}"));
        assert!(
            !red.state.contains("received"),
            "{profile:?}: {}",
            red.state
        );
        assert_ne!(red.healthy, Some(true), "{profile:?}: {report}");
    }
}

/// VyOS echoes a refused path with its value: vyatta-cfg `src/cstore/cstore.cpp`
/// `get_parsed_tmpl` answers "Configuration path: [PATH VALUE] is not valid" (the fake's
/// `unknown_nodes`), and vyos-1x `python/vyos/configsession.py` `__run_command` raises
/// `ConfigSessionError` with that output, which `/configure` answers as its `error`. A BGP
/// password and an SNMP community name (the community string, `service_snmp.xml.in`) must not
/// reach the error or the report. Failed first: both showed in Display, Debug and the report.
#[tokio::test]
async fn a_refusal_that_echoes_a_secret_shows_it_nowhere() {
    let batches = [
        vec![Command::set(
            ["protocols", "bgp", "neighbour", "192.0.2.2", "password"],
            Some("BgpMd5Pw"),
        )],
        vec![Command::set(
            [
                "service",
                "snmp",
                "community",
                "S3cretComm",
                "authorisation",
            ],
            Some("ro"),
        )],
    ];
    for profile in [Profile::V14, Profile::V15] {
        for (batch, secret) in batches.iter().zip(["BgpMd5Pw", "S3cretComm"]) {
            let (_servers, a, fa, b, fb) = pair(profile).await;
            fresh_after_commit(&fa, &fb);
            for f in [&fa, &fb] {
                f.state.lock().unwrap().unknown_nodes =
                    vec!["neighbour".to_owned(), "authorisation".to_owned()];
            }
            let e = a.configure(batch, None).await.unwrap_err();
            let shown = format!("{e}\n{e:?}");
            assert!(shown.contains("is not valid"), "{shown}");
            assert!(shown.contains("<redacted>"), "{shown}");
            assert!(!shown.contains(secret), "{profile:?}: {shown}");
            let report = safe_apply(&a, Some(&b), batch, &settled()).await.unwrap();
            let text = format!("{report}\n{report:?}");
            assert!(text.contains("is not valid"), "{text}");
            assert!(!text.contains(secret), "{profile:?}: {text}");
        }
    }
}

/// Issue 32, safe apply step 4: a named address must stay reachable, on this router and on
/// the peer. The API has no ping (vyos-1x `src/services/api/rest/routers.py`), so reachability
/// is FRR's best route (`show ip route ADDR`, FRR `zebra/zebra_vty.c`
/// `vty_show_ip_route_detail`) with a usable next hop whose neighbour (`show arp`, vyos-1x
/// `src/op_mode/neighbor.py`) has not failed. A blackhole route makes it unreachable: not
/// confirmed on 1.5, rolled back on 1.4. Failed first: `ApplyOptions::reach` did not exist.
#[tokio::test]
async fn a_change_that_blackholes_a_named_address_is_not_confirmed() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        let before = fa.running();
        let mut opts = settled();
        opts.reach = vec!["203.0.113.9".parse().unwrap()];
        let change = vec![Command::set(
            [
                "protocols",
                "static",
                "route",
                "203.0.113.0/24",
                "blackhole",
            ],
            None::<&str>,
        )];
        let report = safe_apply(&a, Some(&b), &change, &opts).await.unwrap();
        let reach: Vec<_> = report
            .before
            .iter()
            .filter(|c| c.subject == "reach 203.0.113.9")
            .map(|c| (c.router.as_str(), c.healthy))
            .collect();
        assert_eq!(
            reach,
            [("this", Some(true)), ("peer", Some(true))],
            "{report}"
        );
        assert_eq!(report.broken.len(), 1, "{profile:?}: {report}");
        let broken = &report.broken[0];
        assert_eq!(
            (
                broken.before.router.as_str(),
                broken.before.subject.as_str()
            ),
            ("this", "reach 203.0.113.9")
        );
        let after = broken.after.as_ref().unwrap();
        assert_eq!(after.healthy, Some(false));
        assert_eq!(
            after.state,
            "route 203.0.113.0/24 via static: no usable next hop (unreachable (blackhole), weight 1)"
        );
        assert!(report.not_checked.is_empty(), "{report}");
        match profile {
            Profile::V15 => {
                assert!(matches!(report.outcome, ApplyOutcome::LeftToRevert { .. }));
                assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(5));
                assert!(
                    fa.requests_to("config-file").is_empty(),
                    "no confirm was sent"
                );
            }
            Profile::V14 => {
                assert!(matches!(report.outcome, ApplyOutcome::RolledBack { .. }));
                assert_eq!(fa.running(), before);
            }
        }
    }
}

/// Audit V5 and "missing capabilities" 1 of issue 32: where `/openapi.json` lists `/traceroute`
/// (vyos-1x PR #4151: `traceroute_op` in `src/services/api/rest/routers.py`, `TRACEROUTE` in
/// `python/vyos/configsession.py`, mtr's report as `src/op_mode/mtr_execute.py` prints it),
/// the probe is the proof of delivery: its last hop is the address and lost less than 100 %. Here
/// the route tables do not change, but after the commit the probe's last hop is `???` at 100 %
/// (mtr `ui/report.c`): not confirmed. The peer, whose API does not list the path, keeps the
/// route and neighbour reading. Failed first: the route reading alone said reachable, and the
/// change was confirmed.
#[tokio::test]
async fn where_the_api_has_traceroute_a_probe_proves_delivery() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let hop = |h: &str, loss: f64| (h.to_owned(), loss);
    {
        let mut st = fa.state.lock().unwrap();
        st.trace_hubs = Some(vec![hop("192.0.2.1", 0.0), hop("203.0.113.9", 0.0)]);
        st.trace_hubs_after_commit = Some(vec![hop("192.0.2.1", 0.0), hop("???", 100.0)]);
    }
    let mut opts = settled();
    opts.reach = vec!["203.0.113.9".parse().unwrap()];
    let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
        .await
        .unwrap();
    let reach: Vec<_> = report
        .before
        .iter()
        .filter(|c| c.subject == "reach 203.0.113.9")
        .map(|c| (c.router.as_str(), c.healthy, c.state.as_str()))
        .collect();
    assert_eq!(
        reach,
        [
            (
                "this",
                Some(true),
                "traceroute: last hop 2 203.0.113.9 (loss 0%); route 0.0.0.0/0 (the default \
                 route) via static (192.0.2.1, via eth0, weight 1): neighbour 192.0.2.1 is \
                 REACHABLE"
            ),
            (
                "peer",
                Some(true),
                "route 0.0.0.0/0 (the default route) via static (192.0.2.1, via eth0, weight 1): neighbour 192.0.2.1 is REACHABLE"
            ),
        ],
        "{report}"
    );
    assert_eq!(report.broken.len(), 1, "{report}");
    let after = report.broken[0].after.as_ref().unwrap();
    assert_eq!(
        (after.router.as_str(), after.healthy, after.state.as_str()),
        (
            "this",
            Some(false),
            "traceroute: last hop 2 ??? (loss 100%) (3 probes, none delivered); route \
             0.0.0.0/0 (the default route) via static (192.0.2.1, via eth0, weight 1): \
             neighbour 192.0.2.1 is REACHABLE"
        )
    );
    assert!(matches!(report.outcome, ApplyOutcome::LeftToRevert { .. }));
    assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(5));
    let probes: Vec<_> = fa.requests_to("traceroute");
    assert_eq!(
        probes.len(),
        4,
        "one probe before, three after (each one cycle)"
    );
    assert_eq!(probes[0]["host"], "203.0.113.9");
    assert_eq!(probes[0]["op"], "traceroute");
    assert!(fb.requests_to("traceroute").is_empty());
}

/// A reachability that held before and cannot be read after (the neighbour table fails) is
/// "cannot tell", which never confirms.
#[tokio::test]
async fn a_reachability_that_cannot_be_read_after_the_commit_is_not_confirmed() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    fa.state.lock().unwrap().neighbours_fail_after_commit = true;
    let mut opts = settled();
    opts.reach = vec!["203.0.113.9".parse().unwrap()];
    let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
        .await
        .unwrap();
    assert_eq!(report.broken.len(), 1, "{report}");
    let after = report.broken[0].after.as_ref().unwrap();
    assert_eq!(after.healthy, None, "{report}");
    assert!(
        after
            .state
            .starts_with("cannot tell: the neighbour table not read"),
        "{}",
        after.state
    );
    assert!(matches!(report.outcome, ApplyOutcome::LeftToRevert { .. }));
    assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(5));
}

/// X7 of the issue-32 audit: a write with no answer (nginx's 504 after `proxy_read_timeout
/// 600`, vyos-1x `data/templates/https/nginx.default.j2`; or the client's own commit budget)
/// may still be committing: the API goes on after the client stops waiting
/// (`_configure_op` in vyos-1x `src/services/api/rest/routers.py` holds the session lock
/// until the commit ends). A read-back at once that finds nothing live proves nothing, so
/// the outcome is "cannot tell" with advice to read again later, never `NothingLive`.
/// Failed first: `Undo::NothingLive`.
#[tokio::test]
async fn a_write_without_answer_that_shows_nothing_yet_cannot_tell() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        {
            let mut st = fa.state.lock().unwrap();
            st.gateway_status = Some(504);
            st.commit_still_running = true;
        }
        let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
            .await
            .unwrap();
        let (live, _timer, undo) = write_failed(&report.outcome);
        assert_eq!(live.as_deref(), Some(&[][..]), "{profile:?}: {report}");
        match undo {
            Undo::CannotTell { reason } => {
                assert!(reason.contains("may still be running"), "{reason}");
                assert!(
                    reason.contains("read the configuration again later"),
                    "{reason}"
                );
            }
            other => panic!("{profile:?}: {other:?}"),
        }
        assert!(
            report
                .to_string()
                .contains("read the configuration again later"),
            "{report}"
        );
        // Nothing was sent after the write: no inverse batch, no confirm.
        assert_eq!(fa.requests_to("configure").len(), 1, "{profile:?}");
        assert!(fa.requests_to("config-file").is_empty(), "{profile:?}");
    }
}

/// A password change is kept, not reverted: VyOS replaces the plaintext it was given with its
/// hash during the commit (vyos-1x `src/conf_mode/system_login.py` `generate()`), and the
/// read-back takes the new hash as the change landing.
#[tokio::test]
async fn on_both_versions_a_password_change_is_kept() {
    let change = vec![Command::set(
        [
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "plaintext-password",
        ],
        Some("Hunter2-never-shown"),
    )];
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
        assert!(
            matches!(report.outcome, ApplyOutcome::Kept { .. }),
            "{profile:?}: {report}"
        );
        assert!(fa.running().exists(&[
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "encrypted-password"
        ]));
        assert!(!format!("{report} {report:?}").contains("Hunter2-never-shown"));
    }
}

/// A route over a WireGuard tunnel (`10.20.0.0/16` learned by BGP from `10.8.0.2` over `wg0`):
/// a WireGuard interface has no neighbour entries (wireguard-linux
/// `drivers/net/wireguard/device.c` `wg_setup` sets `IFF_POINTOPOINT | IFF_NOARP`, and vyos-1x
/// `src/op_mode/neighbor.py` lists only `ip neighbor`), so the route alone is the evidence,
/// and the check says so. A change that drops that route lets FRR fall back to the default
/// route (`show ip route ADDR` is a longest match, FRR `zebra/zebra_vty.c`), whose next hop is
/// a reachable neighbour: that is not the path the address was reached by before, so the
/// change is not confirmed. Failed first: "no neighbour entry" counted as reachable and the
/// path was not compared, so the change was kept.
#[tokio::test]
async fn a_change_that_moves_a_tunnel_address_to_the_default_route_is_not_confirmed() {
    for profile in [Profile::V15, Profile::V14] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        fresh_after_commit(&fa, &fb);
        let default = (
            "0.0.0.0/0".to_owned(),
            "static".to_owned(),
            "192.0.2.1, via eth0, weight 1".to_owned(),
        );
        {
            let mut st = fa.state.lock().unwrap();
            st.routes.push((
                "10.20.0.0/16".to_owned(),
                "bgp".to_owned(),
                "10.8.0.2, via wg0, weight 1".to_owned(),
            ));
            st.routes_after_commit = Some(vec![default]);
        }
        let mut opts = settled();
        opts.reach = vec!["10.20.0.5".parse().unwrap()];
        let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
            .await
            .unwrap();
        let this = report
            .before
            .iter()
            .find(|c| c.router == "this" && c.subject == "reach 10.20.0.5")
            .unwrap();
        assert_eq!(this.healthy, Some(true), "{report}");
        assert!(
            this.state.contains("the route alone is the evidence"),
            "{}",
            this.state
        );
        let broken: Vec<_> = report
            .broken
            .iter()
            .map(|b| (b.before.router.as_str(), b.before.subject.as_str()))
            .collect();
        assert_eq!(
            broken,
            [("this", "reach 10.20.0.5")],
            "{profile:?}: {report}"
        );
        let after = report.broken[0].after.as_ref().unwrap();
        assert!(after.state.contains("the default route"), "{}", after.state);
        match profile {
            Profile::V15 => assert!(matches!(report.outcome, ApplyOutcome::LeftToRevert { .. })),
            Profile::V14 => assert!(matches!(report.outcome, ApplyOutcome::RolledBack { .. })),
        }
    }
}

/// Audit T1 of issue 32: where the API has `/traceroute` (vyos-1x `traceroute_op`,
/// `src/services/api/rest/routers.py`), the probe adds proof and does not replace the path
/// check. A change that drops the tunnel route lets FRR fall back to the default route (FRR
/// `zebra/zebra_vty.c`, a longest match); mtr (traviscross/mtr `ui/report.c` `json_close`)
/// may still reach the address that way, but it is not the path it was reached by, so the
/// change is not confirmed. Failed first: a probed check kept no path and the change was kept.
#[tokio::test]
async fn a_probed_address_that_moves_to_the_default_route_is_not_confirmed() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let hop = |h: &str| (h.to_owned(), 0.0);
    {
        let mut st = fa.state.lock().unwrap();
        st.routes.push((
            "10.20.0.0/16".to_owned(),
            "bgp".to_owned(),
            "10.8.0.2, via wg0, weight 1".to_owned(),
        ));
        st.routes_after_commit = Some(vec![(
            "0.0.0.0/0".to_owned(),
            "static".to_owned(),
            "192.0.2.1, via eth0, weight 1".to_owned(),
        )]);
        st.trace_hubs = Some(vec![hop("10.8.0.2"), hop("10.20.0.5")]);
        st.trace_hubs_after_commit = Some(vec![hop("192.0.2.1"), hop("10.20.0.5")]);
    }
    let mut opts = settled();
    opts.reach = vec!["10.20.0.5".parse().unwrap()];
    let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
        .await
        .unwrap();
    let broken: Vec<_> = report
        .broken
        .iter()
        .map(|b| (b.before.router.as_str(), b.before.subject.as_str()))
        .collect();
    assert_eq!(broken, [("this", "reach 10.20.0.5")], "{report}");
    let after = report.broken[0].after.as_ref().unwrap();
    assert_eq!(after.healthy, Some(true), "delivered, by another path");
    assert!(after.state.contains("the default route"), "{}", after.state);
    assert!(matches!(report.outcome, ApplyOutcome::LeftToRevert { .. }));
    assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(5));
}

/// Audit U1 of issue 32: with the `reboot` action, a timer that runs out reboots the router
/// into `/config/config.boot` (vyos-1x `python/vyos/config_mgmt.py` `ConfigMgmt.revert`), so
/// it drops every commit not saved, not only this change; the API never saves, and
/// `configsession.py` `COMMIT_CONFIRM` passes `-y`, which skips `commit_confirm`'s
/// `unsaved_commits()` warning. The saved file is read with `show file` (`src/op_mode/file.py`)
/// and compared with the running configuration: where they differ nothing is sent, and the
/// error names the unsaved paths, never their values, unless the caller allows it. A saved
/// file that cannot be read cannot tell what a reboot would drop. Failed first: the change was
/// committed with the timer armed.
#[tokio::test]
async fn unsaved_commits_that_a_reboot_would_drop_stop_the_apply() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let secret = "Unsaved-Secret-9";
    {
        let mut st = fa.state.lock().unwrap();
        let earlier = Command::set(
            ["service", "snmp", "community", secret, "authorization"],
            Some("ro"),
        );
        st.running.apply(&earlier).unwrap();
    }
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    let ApplyOutcome::NotApplied { error } = &report.outcome else {
        panic!("{report}");
    };
    assert!(error.contains("not saved"), "{error}");
    assert!(error.contains("service snmp community"), "{error}");
    assert!(error.contains("--allow-unsaved-revert"), "{error}");
    assert!(!format!("{report} {report:?}").contains(secret));
    assert!(fa.requests_to("configure").is_empty(), "nothing was sent");
    assert_eq!(fa.state.lock().unwrap().confirm_pending, None);

    fa.state.lock().unwrap().saved_unreadable = true;
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    let ApplyOutcome::NotApplied { error } = &report.outcome else {
        panic!("{report}");
    };
    assert!(
        error.contains("cannot tell what a reboot would drop"),
        "{error}"
    );
    assert!(fa.requests_to("configure").is_empty(), "nothing was sent");

    let mut opts = settled();
    opts.allow_unsaved_revert = true;
    let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
        .await
        .unwrap();
    assert!(
        matches!(report.outcome, ApplyOutcome::Kept { .. }),
        "{report}"
    );
}

/// Audit X4 (a): the first commit-confirm `_configure_op` (vyos-1x
/// `src/services/api/rest/routers.py` at 0514484a) arms the timer before `session.commit()`,
/// and a commit refused as a whole disarms nothing: with nothing live, the timer would still
/// reboot the router. `confirm` is sent to stop it. Failed first: the timer stayed armed.
#[tokio::test]
async fn a_write_refused_with_nothing_live_stops_a_timer_armed_before_the_commit() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    fa.state.lock().unwrap().timer_before_commit = true;
    let mut change = half_failing_change(&fa);
    change.remove(0);
    let before = fa.running();
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (live, timer, undo) = write_failed(&report.outcome);
    assert_eq!(live.as_deref(), Some(&[][..]));
    assert_eq!(*undo, Undo::NothingLive);
    assert_eq!(
        *timer,
        Timer::StoppedAfterUndo {
            answer: "Reboot timer stopped".to_owned()
        }
    );
    assert_eq!(fa.state.lock().unwrap().confirm_pending, None);
    assert_eq!(fa.running(), before);
}

/// Audit X4 (b): on later builds `run_commit_confirm` commits, then `commit_confirm`
/// (vyos-1x `python/vyos/config_mgmt.py`) refuses while another timer runs: "Another confirm
/// is pending". The batch is undone, but `confirm` would stop the OTHER operator's timer and
/// keep their unchecked change for good, so none is sent and the report says why. Failed
/// first: `confirm` was sent and the other timer stopped.
#[tokio::test]
async fn another_operators_pending_confirm_is_never_confirmed() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    fa.state.lock().unwrap().confirm_pending = Some(10);
    let before = fa.running();
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    let (_, timer, undo) = write_failed(&report.outcome);
    assert!(matches!(undo, Undo::RolledBack { .. }), "{undo:?}");
    assert_eq!(*timer, Timer::AnotherPending);
    assert_eq!(fa.state.lock().unwrap().confirm_pending, Some(10));
    let confirms = fa
        .requests_to("config-file")
        .iter()
        .filter(|b| b["op"] == "confirm")
        .count();
    assert_eq!(confirms, 0);
    assert_eq!(fa.running(), before);
    let text = report.to_string();
    assert!(text.contains("another operator"), "{text}");
}

/// An idle tunnel whose renewal is not due yet is no broken tunnel. Only the side that started
/// the session renews it on a timer: on send once the key is `REKEY_AFTER_TIME` (120 s) old,
/// keepalives included (wireguard-linux `drivers/net/wireguard/send.c` `keep_key_fresh`), on
/// receive at 165 s (`receive.c` `keep_key_fresh`), and when only the other side sends
/// keepalives, as late as 180 s + its keepalive. A keepalive's 32 bytes do not show in the
/// printed transfer (wireguard-tools `src/show.c`, two-decimal KiB; vyos-1x
/// `python/vyos/ifconfig/wireguard.py` `show_interface`, `hurry.filesize` whole units). So
/// green (keepalive 25), 10 s after its handshake before the commit and read with the same
/// handshake and bytes, cannot tell yet: the change is neither rolled back nor left to revert,
/// nor confirmed or saved silently. Its renewal, due 200 s after that reading, does not fit in
/// the 5-minute window (60 + 2 + 200 + 45 + 30 > 300), so it is not read again (see
/// [`a_quiet_peer_is_read_again_when_its_renewal_is_due`] for one that fits). Failed first:
/// the 1.4 run rolled the change back and the 1.5 run left it to revert.
#[tokio::test]
async fn an_idle_peer_whose_renewal_is_not_due_is_not_reverted() {
    for profile in [Profile::V14, Profile::V15] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        // The fakes' ages do not move: the reading after the commit still prints 10 s.
        for f in [&fa, &fb] {
            let mut st = f.state.lock().unwrap();
            st.handshake_ago = vec![("red".to_owned(), 1), ("green".to_owned(), 10)];
        }
        let mut opts = settled();
        opts.clock = ScriptedClock::new([&fa, &fb], &[]);
        let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
            .await
            .unwrap();
        assert_eq!(report.broken, [], "{profile:?}: {report}");
        assert_eq!(report.read_again_after, None, "{profile:?}");
        let pending: Vec<(&str, &str)> = report
            .after
            .iter()
            .filter(|c| c.proof_not_due)
            .map(|c| (c.router.as_str(), c.state.as_str()))
            .collect();
        let idle = |age: u64| {
            format!(
                "handshake {age} s ago, before the commit; no proof is due yet: with keepalive \
                 25 s its renewal shows by 210 s"
            )
        };
        assert_eq!(
            pending,
            [("this", idle(10).as_str()), ("peer", idle(10).as_str())],
            "{profile:?}"
        );
        assert!(
            matches!(&report.outcome, ApplyOutcome::Unproven { pending, .. } if pending.len() == 2),
            "{profile:?}: {report}"
        );
        assert!(
            fa.requests_to("config-file").is_empty(),
            "{profile:?}: no confirm, no save"
        );
        assert_eq!(
            fa.state
                .lock()
                .unwrap()
                .running
                .root
                .value(&["system", "domain-name"]),
            Some("example.net"),
            "{profile:?}: not rolled back"
        );
    }
}

/// A clock the test moves: each `sleep` advances it at once and sets the handshake ages both
/// fakes print next (the script's next entry), so a wait for a renewal takes no real time.
#[derive(Debug)]
struct ScriptedClock {
    now: std::sync::Mutex<Duration>,
    slept: std::sync::Mutex<Vec<Duration>>,
    ages: std::sync::Mutex<std::collections::VecDeque<Vec<(String, u64)>>>,
    fakes: Vec<std::sync::Arc<std::sync::Mutex<common::RouterState>>>,
}

impl ScriptedClock {
    fn new(fakes: [&FakeRouter; 2], script: &[&[(&str, u64)]]) -> std::sync::Arc<Self> {
        let ages = script
            .iter()
            .map(|s| s.iter().map(|(n, a)| ((*n).to_owned(), *a)).collect())
            .collect();
        std::sync::Arc::new(Self {
            now: std::sync::Mutex::new(Duration::ZERO),
            slept: std::sync::Mutex::new(Vec::new()),
            ages: std::sync::Mutex::new(ages),
            fakes: fakes.iter().map(|f| f.state.clone()).collect(),
        })
    }
}

impl cpps_vyos::apply::Clock for ScriptedClock {
    fn now(&self) -> Duration {
        *self.now.lock().unwrap()
    }

    fn sleep(&self, d: Duration) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        *self.now.lock().unwrap() += d;
        self.slept.lock().unwrap().push(d);
        if let Some(ages) = self.ages.lock().unwrap().pop_front() {
            for f in &self.fakes {
                f.lock().unwrap().handshake_ago = ages.clone();
            }
        }
        Box::pin(std::future::ready(()))
    }
}

/// Issue 32, N3 rest: a peer whose proof is not due at the checks after the settle is read
/// again at its due time when the window allows it, and judged then. Green (keepalive 25) shook
/// hands 10 s before the commit; after the 130 s settle its handshake is 140 s old, and its
/// renewal shows by `RENEWAL_DUE` + 25 = 210 s (wireguard-linux `drivers/net/wireguard/send.c`
/// and `receive.c` `keep_key_fresh`, `REKEY_AFTER_TIME` 120 s, `REJECT_AFTER_TIME` 180 s,
/// `REKEY_TIMEOUT` 5 s), so both routers are read again 70 s later. A 10-minute window leaves
/// room: 60 (commit) + 130 + 70 + 45 (checks) + 30 (confirm) < 600. A handshake then (5 s
/// ago) proves it and the change is kept; none (210 s ago) breaks it, and the change is left
/// to the timer (1.5) or rolled back (1.4). Failed first: both runs ended `Unproven` with no
/// second reading (a dead tunnel stayed live on 1.4).
#[tokio::test]
async fn a_quiet_peer_is_read_again_when_its_renewal_is_due() {
    for profile in [Profile::V14, Profile::V15] {
        for renewed in [true, false] {
            let (_servers, a, fa, b, fb) = pair(profile).await;
            let start: &[(&str, u64)] = &[("red", 1), ("green", 10)];
            for f in [&fa, &fb] {
                f.state.lock().unwrap().handshake_ago =
                    start.iter().map(|(n, a)| ((*n).to_owned(), *a)).collect();
            }
            let last: &[(&str, u64)] = if renewed {
                &[("red", 1), ("green", 5)]
            } else {
                &[("red", 1), ("green", 210)]
            };
            let clock = ScriptedClock::new([&fa, &fb], &[&[("red", 1), ("green", 140)], last]);
            let mut opts = ApplyOptions::new(NonZeroU32::new(10).unwrap());
            opts.clock = clock.clone();
            let before = fa.running();
            let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
                .await
                .unwrap();
            let case = format!("{profile:?} renewed={renewed}: {report}");
            assert_eq!(
                *clock.slept.lock().unwrap(),
                [Duration::from_secs(130), Duration::from_secs(70)],
                "{case}"
            );
            assert_eq!(
                report.read_again_after,
                Some(Duration::from_secs(70)),
                "{case}"
            );
            assert!(report.after.iter().all(|c| !c.proof_not_due), "{case}");
            let broken: Vec<(&str, &str)> = report
                .broken
                .iter()
                .map(|b| (b.before.router.as_str(), b.before.subject.as_str()))
                .collect();
            let ops: Vec<String> = fa
                .requests_to("config-file")
                .iter()
                .map(|b| b["op"].as_str().unwrap_or("").to_owned())
                .collect();
            match (profile, renewed, &report.outcome) {
                (Profile::V15, true, ApplyOutcome::Kept { confirm: Some(_) }) => {
                    assert_eq!(ops, ["confirm", "save"], "{case}");
                }
                (Profile::V14, true, ApplyOutcome::Kept { confirm: None }) => {
                    assert_eq!(ops, ["save"], "{case}");
                }
                (Profile::V15, false, ApplyOutcome::LeftToRevert { commit_confirm }) => {
                    assert_eq!(commit_confirm.minutes, 10, "{case}");
                    assert!(ops.is_empty(), "{case}");
                }
                (Profile::V14, false, ApplyOutcome::RolledBack { .. }) => {
                    assert_eq!(fa.running(), before, "{case}");
                }
                _ => panic!("{case}"),
            }
            if renewed {
                assert_eq!(broken, [], "{case}");
            } else {
                assert_eq!(
                    broken,
                    [
                        ("this", "wireguard wg0 peer green"),
                        ("peer", "wireguard wg0 peer green")
                    ],
                    "{case}"
                );
            }
        }
    }
}

/// The same quiet peer with a 5-minute window: its renewal (70 s after the checks) does not
/// fit, 60 + 130 + 70 + 45 + 30 = 335 > 300, so it is not waited for; the report says why,
/// and the change is neither kept nor undone (`Unproven`).
#[tokio::test]
async fn a_renewal_due_past_the_window_is_not_waited_for() {
    for profile in [Profile::V14, Profile::V15] {
        let (_servers, a, fa, b, fb) = pair(profile).await;
        for f in [&fa, &fb] {
            f.state.lock().unwrap().handshake_ago =
                vec![("red".to_owned(), 1), ("green".to_owned(), 10)];
        }
        let clock = ScriptedClock::new([&fa, &fb], &[&[("red", 1), ("green", 140)]]);
        let mut opts = ApplyOptions::new(NonZeroU32::new(5).unwrap());
        opts.clock = clock.clone();
        let report = safe_apply(&a, Some(&b), &harmless_change(), &opts)
            .await
            .unwrap();
        assert_eq!(
            *clock.slept.lock().unwrap(),
            [Duration::from_secs(130)],
            "{profile:?}"
        );
        assert_eq!(report.read_again_after, None, "{profile:?}");
        assert!(
            matches!(&report.outcome, ApplyOutcome::Unproven { pending, .. } if pending.len() == 2),
            "{profile:?}: {report}"
        );
        let why = "wireguard wg0 peer green: its renewal is due in 70 s, which with the checks \
                   and the confirm does not fit in what is left of the 300 s window (35 s)";
        assert!(
            report.not_checked.iter().any(|n| n.contains(why)),
            "{profile:?}: {:?}",
            report.not_checked
        );
        assert!(fa.requests_to("config-file").is_empty(), "{profile:?}");
    }
}

/// Issue 32, D8 revert without an archive: on vyos-1x `current` (T5976) `ConfigMgmt.__init__`
/// compares the dict `{'action': 'reboot'}` with `'reboot'` (`python/vyos/config_mgmt.py`), so
/// the timer runs `revert_soft`, which reloads `_get_config_tree_revision(0)`. Without
/// `commit-revisions` the archive hook is unlinked (`src/conf_mode/system_config-management.py`
/// `apply`) and `show_commit_log` heads the log with "commit-revisions is not configured"
/// (`src/op_mode/config_mgmt.py`): revision 0 is stale, and a revert would load an older
/// configuration. So nothing is sent. Failed first: the change was committed with
/// `confirm_time` and confirmed.
#[tokio::test]
async fn commit_confirm_is_not_armed_over_a_stale_commit_archive() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    {
        let mut st = fa.state.lock().unwrap();
        st.commit_revisions = false;
        st.answers_action = "reload".to_owned();
    }
    let before = fa.running();
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    match &report.outcome {
        ApplyOutcome::NotApplied { error } => {
            assert!(
                error.contains("commit-revisions is not configured"),
                "{error}"
            );
            assert!(error.contains("nothing was sent"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert!(fa.requests_to("configure").is_empty());
    assert_eq!(fa.running(), before);
    // With the archive written, the same change goes through.
    fa.state.lock().unwrap().commit_revisions = true;
    let report = safe_apply(&a, Some(&b), &harmless_change(), &settled())
        .await
        .unwrap();
    assert!(
        matches!(report.outcome, ApplyOutcome::Kept { confirm: Some(_) }),
        "{report}"
    );
}

/// Audit X4c (issue 32): on builds that commit before arming (`run_commit_confirm` in vyos-1x
/// `src/services/api/rest/routers.py`: `session.commit()`, then `session.commit_confirm()`), a
/// refused batch arms nothing, and `confirm` (`ConfigMgmt.confirm`, `python/vyos/config_mgmt.py`)
/// stops the one `commit-confirm` timer whoever armed it. No API reading tells the two orders
/// apart or shows whose timer runs (`/openapi.json` and `/info` are alike; the timer is a
/// systemd unit that only `is_systemd_service_active` reads, and no op-mode command shows it),
/// so the confirm is still sent (a timer armed before a failed commit would otherwise reboot a
/// router whose change was undone), and when VyOS says it stopped a timer the report says
/// that it may have been another operator's. Failed first: the report said nothing of it.
#[tokio::test]
async fn a_timer_stopped_after_a_refusal_may_be_another_operators_and_the_report_says_so() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    // Another operator's commit-confirm runs; this build commits first.
    fa.state.lock().unwrap().confirm_pending = Some(7);
    let mut change = half_failing_change(&fa);
    change.remove(0);
    let report = safe_apply(&a, Some(&b), &change, &settled()).await.unwrap();
    let (live, timer, _) = write_failed(&report.outcome);
    assert_eq!(live.as_deref(), Some(&[][..]));
    assert_eq!(
        *timer,
        Timer::StoppedAfterUndo {
            answer: "Reboot timer stopped".to_owned()
        }
    );
    let text = report.to_string();
    assert!(text.contains("may have been another operator's"), "{text}");
    assert!(text.contains("their change is now kept"), "{text}");
}

/// Issue 32 (mtr cycles): the API's probe is one mtr cycle, and the API cannot ask for more
/// (vyos-1x `python/vyos/configsession.py` `TRACEROUTE`: `--report-cycles 1`;
/// `src/services/api/rest/routers.py` `traceroute_op` passes only `host`), so one lost packet
/// at the target reads as 100 % loss (mtr `ui/report.c`). The probe is sent again, and one
/// delivery proves the address: a change is not reverted for one lost packet. Failed first:
/// the first probe's loss was the verdict.
#[tokio::test]
async fn one_lost_probe_is_sent_again_before_an_address_reads_as_not_delivered() {
    let (_servers, a, fa, _b, _fb) = pair(Profile::V15).await;
    let hop = |h: &str| (h.to_owned(), 0.0);
    {
        let mut st = fa.state.lock().unwrap();
        st.trace_hubs = Some(vec![hop("192.0.2.1"), hop("203.0.113.9")]);
        st.trace_lost = 1;
    }
    let addr = "203.0.113.9".parse().unwrap();
    let probe = a.trace_reachability(addr).await;
    assert_eq!(probe.reachable, Some(true), "{}", probe.state);
    assert_eq!(
        probe.state,
        "traceroute: last hop 2 203.0.113.9 (loss 0%) (2 probes, delivered)"
    );
    assert_eq!(fa.requests_to("traceroute").len(), 2);
    // Lost every time: three probes, then not delivered.
    fa.state.lock().unwrap().trace_lost = 5;
    let probe = a.trace_reachability(addr).await;
    assert_eq!(probe.reachable, Some(false), "{}", probe.state);
    assert!(
        probe.state.ends_with("(3 probes, none delivered)"),
        "{}",
        probe.state
    );
    assert_eq!(fa.requests_to("traceroute").len(), 5);
}

/// The path of red's `port` on wg0, which [`breaking_change`] sets.
fn red_port() -> Vec<String> {
    ["interfaces", "wireguard", "wg0", "peer", "red", "port"]
        .map(str::to_owned)
        .to_vec()
}

/// The commands of the `/configure` request `n` (0 is the first), as (op, path, value).
fn sent(fake: &FakeRouter, n: usize) -> Vec<(String, Vec<String>, Option<String>)> {
    let body = &fake.requests_to("configure")[n];
    body["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let path = c["path"].as_array().unwrap();
            (
                c["op"].as_str().unwrap().to_owned(),
                path.iter()
                    .map(|w| w.as_str().unwrap().to_owned())
                    .collect(),
                c.get("value").and_then(|v| v.as_str()).map(str::to_owned),
            )
        })
        .collect()
}

/// W2 of issue 32: another API client commits an unrelated `set` between this apply's read
/// before the write and its read after the checks. vyos-1x `src/services/api/rest/routers.py`
/// `_configure_op` makes each `/configure` a session of its own, committed on its own; the
/// API's `lock` is held only for that one request, so nothing orders two clients' batches
/// beyond it. The check fails on 1.4 (no commit-confirm), and the inverse batch must undo
/// only what this batch touched: the other client's domain name stays, and the report names
/// it. Failed first: the inverse also sent `delete system domain-name`, and the fake lost it.
#[tokio::test]
async fn on_1_4_a_rollback_leaves_another_clients_change_in_place() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let theirs = Command::set(["system", "domain-name"], Some("example.org"));
    let mut expected = fa.running();
    expected.apply(&theirs).unwrap();
    fa.state.lock().unwrap().others_commit = Some(vec![theirs]);
    let report = safe_apply(&a, Some(&b), &breaking_change(), &settled())
        .await
        .unwrap();
    assert_eq!(report.broken.len(), 1, "{report}");
    assert_eq!(fa.running(), expected, "{report}");
    assert_eq!(fa.requests_to("configure").len(), 2);
    assert_eq!(sent(&fa, 1), [("delete".to_owned(), red_port(), None)]);
    match &report.outcome {
        ApplyOutcome::RolledBack { commands, left } => {
            assert_eq!(commands, &[Command::delete(red_port(), None)]);
            let left: Vec<_> = left.iter().map(|l| (l.path.as_str(), l.touched)).collect();
            assert_eq!(left, [("system domain-name", false)]);
        }
        other => panic!("{other:?}"),
    }
    let text = report.to_string();
    assert!(
        text.contains("changed meanwhile by someone else, left as it is: system domain-name"),
        "{text}"
    );
}

/// W2 of issue 32, a path this batch touched: another client set red's port again (to 51999)
/// right after this batch set it (routers.py `_configure_op`, as above), so the client's
/// read-back finds the batch not landed and the write is undone. Putting back the port read
/// before would clobber their change, which the batch does not explain: it is left as it is
/// and named, and nothing is sent. Failed first: the inverse deleted their port.
#[tokio::test]
async fn on_1_4_a_touched_path_another_client_changed_is_not_clobbered() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let theirs = vec![
        Command::delete(red_port(), None),
        Command::set(red_port(), Some("51999")),
    ];
    fa.state.lock().unwrap().others_commit = Some(theirs);
    let report = safe_apply(&a, Some(&b), &breaking_change(), &settled())
        .await
        .unwrap();
    assert_eq!(fa.running().values(&red_port()), ["51999"], "{report}");
    assert_eq!(
        fa.requests_to("configure").len(),
        1,
        "nothing sent after the commit"
    );
    let (_, timer, undo) = write_failed(&report.outcome);
    assert_eq!(*timer, Timer::NotAsked);
    match undo {
        Undo::RolledBack { commands, left } => {
            assert!(commands.is_empty(), "{commands:?}");
            let left: Vec<_> = left.iter().map(|l| (l.path.as_str(), l.touched)).collect();
            assert_eq!(left, [("interfaces wireguard wg0 peer red port", true)]);
        }
        other => panic!("{other:?}"),
    }
    let text = report.to_string();
    assert!(text.contains("no inverse was sent"), "{text}");
    assert!(text.contains("check it by hand"), "{text}");
}

/// A user the batch creates with a password: VyOS replaces `plaintext-password` by
/// `encrypted-password` during the commit (vyos-1x `src/conf_mode/system_login.py`
/// `generate`), so the batch's scope is `authentication`; the user node itself did not exist
/// before and holds nothing else, so the rollback deletes it whole, and nothing of the batch,
/// not even an empty `system login user ops`, stays. Failed first: the rollback deleted only
/// `authentication` and left the empty user.
#[tokio::test]
async fn on_1_4_a_rollback_deletes_the_user_the_batch_created() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let before = fa.running();
    let mut batch = breaking_change();
    batch.push(Command::set(
        [
            "system",
            "login",
            "user",
            "ops",
            "authentication",
            "plaintext-password",
        ],
        Some("Hunter2-never-shown"),
    ));
    let report = safe_apply(&a, Some(&b), &batch, &settled()).await.unwrap();
    assert_eq!(fa.running(), before, "{report}");
    let ops = ["system", "login", "user", "ops"]
        .map(str::to_owned)
        .to_vec();
    assert_eq!(
        sent(&fa, 1),
        [
            ("delete".to_owned(), red_port(), None),
            ("delete".to_owned(), ops, None)
        ]
    );
}

/// Z1 (second s45 audit of issue 32): the batch removes a value that is not the last of
/// `interfaces ethernet eth1 address`; putting it back in its place takes `delete … address`
/// and a `set` of each value (`diff` restores the order), one batch that vyos-1x
/// `src/services/api/rest/routers.py` `_configure_op` (sagitta's
/// `src/services/vyos-http-api-server` alike) runs in order and commits once. The rollback
/// landed in full and must read `RolledBack`. Failed first: `RollbackFailed` ("did not fully
/// land"), the delete judged alone against the address the later sets put back.
#[tokio::test]
async fn on_1_4_a_rollback_that_restores_a_value_order_is_rolled_back() {
    let (_servers, a, fa, b, fb) = pair(Profile::V14).await;
    fresh_after_commit(&fa, &fb);
    let address = ["interfaces", "ethernet", "eth1", "address"];
    {
        let mut st = fa.state.lock().unwrap();
        for v in ["192.0.2.7/24", "192.0.2.9/24"] {
            st.running.apply(&Command::set(address, Some(v))).unwrap();
        }
        st.saved = st.running.clone();
    }
    let before = fa.running();
    let mut batch = breaking_change();
    batch.push(Command::delete(address, Some("192.168.0.250/24")));
    let report = safe_apply(&a, Some(&b), &batch, &settled()).await.unwrap();
    assert_eq!(report.broken.len(), 1, "{report}");
    assert_eq!(fa.running(), before, "{report}");
    match &report.outcome {
        ApplyOutcome::RolledBack { commands, left } => {
            assert_eq!(commands.len(), 5, "{commands:?}");
            let on_address: Vec<_> = commands
                .iter()
                .filter(|c| c.path == address)
                .map(|c| (c.op.as_str(), c.value.as_deref()))
                .collect();
            assert_eq!(
                on_address,
                [
                    ("delete", None),
                    ("set", Some("192.168.0.250/24")),
                    ("set", Some("192.0.2.7/24")),
                    ("set", Some("192.0.2.9/24")),
                ]
            );
            assert!(left.is_empty(), "{left:?}");
        }
        other => panic!("{other:?}"),
    }
}

/// Z3 (s45 second audit of issue 32): on the first commit-confirm builds the timer is armed
/// before the commit (vyos-1x `src/services/api/rest/routers.py` at 0514484a: `commit_confirm`
/// before `commit`), and a refused write leaves it running. When another client changed a path
/// the batch touched after it landed in part, nothing of the batch can be put back without
/// clobbering theirs, so the configuration is not "as before": `confirm` is not sent (the
/// timer may still revert the part that landed), and the report says so. Failed first:
/// `confirm` was sent and the report said what the batch touched is as before.
#[tokio::test]
async fn a_touched_path_left_as_someone_elses_keeps_the_timer() {
    let (_servers, a, fa, b, fb) = pair(Profile::V15).await;
    fresh_after_commit(&fa, &fb);
    let batch = half_failing_change(&fa);
    {
        let mut st = fa.state.lock().unwrap();
        st.timer_before_commit = true;
        st.others_commit = Some(vec![Command::set(
            ["system", "domain-name"],
            Some("example.org"),
        )]);
    }
    let report = safe_apply(&a, Some(&b), &batch, &settled()).await.unwrap();
    let (_, timer, undo) = write_failed(&report.outcome);
    match undo {
        Undo::RolledBack { left, .. } => {
            let left: Vec<_> = left.iter().map(|l| (l.path.as_str(), l.touched)).collect();
            assert_eq!(left, [("system domain-name", true)], "{report}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(*timer, Timer::MaybeArmed, "{report}");
    assert!(fa.requests_to("config-file").is_empty(), "no confirm");
    assert!(!report.to_string().contains("is as before"), "{report}");
}
