//! `/configure` and `/config-file`: one batch per request, commit-confirm, the per-router write
//! lock, no retries, and the read-back after a write without an answer. No VyOS router can run
//! here: wiremock answers as VyOS's documents and server code say (`common` names them).

mod common;

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{FakeRouter, KEY, Profile, config_fixture, err, ok, post, router, serve_info_1_5};
use cpps_http::test_util::MockApi;
use cpps_vyos::config::{ConfigTree, diff};
use cpps_vyos::{Client, Command, ConfigSource, Error, Landed};
use serde_json::json;
use wiremock::matchers::{body_partial_json, body_string};
use wiremock::{Request, Respond, ResponseTemplate};

fn batch() -> Vec<Command> {
    vec![
        Command::set(
            ["interfaces", "ethernet", "eth0", "address"],
            Some("192.0.2.1/24"),
        ),
        Command::delete(["system", "host-name"], None),
    ]
}

/// `ConfigureListModel` is `key` and `commands` of `{op, path, value}` (vyos-1x
/// `src/services/api/rest/models.py`, `confirm_time` optional; sagitta's
/// `src/services/vyos-http-api-server` without it), and `_configure_op` passes a comment's text as
/// `value` (`session.comment(path, value=value)`); 1.4 answers a plain commit `data: null`.
#[tokio::test]
async fn a_batch_without_confirm_has_no_confirm_time_and_comments_travel_as_value() {
    let (api, client) = router().await;
    let cmds = vec![Command::comment(
        ["interfaces", "ethernet", "eth0"],
        "uplink",
    )];
    post("/configure")
        .and(body_string(format!(
            r#"{{"key":"{KEY}","commands":[{{"op":"comment","path":["interfaces","ethernet","eth0"],"value":"uplink"}}]}}"#
        )))
        .respond_with(ok(json!(null)))
        .expect(1)
        .mount(api.server())
        .await;
    assert_eq!(client.configure(&cmds, None).await.unwrap().message, "");
    api.verify().await;
}

#[tokio::test]
async fn an_empty_path_is_refused_before_sending_and_a_400_is_reported() {
    let (api, client) = router().await;
    let e = client
        .configure(&[Command::set(Vec::<String>::new(), Some("x"))], None)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::EmptyPath));
    assert!(
        api.unexpected_requests().is_empty(),
        "nothing may reach the router"
    );
    // The server's own check answers 400: `BasePathModel.check_non_empty` (vyos-1x
    // `src/services/api/rest/models.py`), whose failure `validation_exception_handler`
    // (`src/services/vyos-http-api-server`) answers `error(400, …)`, or `MultipartRequest.body`
    // for a form (`routers.py`); sagitta's `src/services/vyos-http-api-server` holds all three. A
    // strict-mode delete of a missing node is 400 too (`_configure_op`, same files).
    post("/configure")
        .respond_with(err(
            400,
            "Cannot delete [system host-name]: path/value does not exist",
        ))
        .expect(1)
        .mount(api.server())
        .await;
    // The configuration is read before the write and, after a refusal, again (a refused commit
    // can be partly live): here it shows none of the batch, so the refusal stays a refusal.
    post("/retrieve")
        .respond_with(ok(json!("system {\n    host-name sp-gw\n}\n")))
        .expect(2)
        .mount(api.server())
        .await;
    match client.configure(&batch(), None).await {
        Err(Error::Api {
            endpoint: "configure",
            status: 400,
            message,
        }) => {
            assert_eq!(
                message,
                "Cannot delete [system host-name]: path/value does not exist"
            );
        }
        other => panic!("{other:?}"),
    }
    api.verify().await;
}

/// Records when each request arrived; answers after `delay`.
struct Slow {
    arrivals: Arc<Mutex<Vec<Instant>>>,
    delay: Duration,
}

impl Respond for Slow {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        self.arrivals.lock().unwrap().push(Instant::now());
        ok(json!(null)).set_delay(self.delay)
    }
}

#[tokio::test]
async fn two_writers_never_overlap_on_one_router() {
    let (api, client) = router().await;
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let delay = Duration::from_millis(400);
    post("/configure")
        .respond_with(Slow {
            arrivals: arrivals.clone(),
            delay,
        })
        .expect(3)
        .mount(api.server())
        .await;
    // A clone, and a client built separately for the same router, share the lock.
    let other = Client::new(api.client(), cpps_vyos::SecretString::from(KEY.to_owned()));
    let cmds = batch();
    let clone = client.clone();
    let (a, b, c) = tokio::join!(
        client.configure(&cmds, None),
        clone.configure(&cmds, None),
        other.configure(&cmds, None),
    );
    a.unwrap();
    b.unwrap();
    c.unwrap();
    let mut times = arrivals.lock().unwrap().clone();
    times.sort();
    assert_eq!(times.len(), 3);
    for pair in times.windows(2) {
        // Each write reached the router only after the one before it was answered.
        assert!(
            pair[1] - pair[0] >= delay,
            "writes overlapped: {:?} apart",
            pair[1] - pair[0]
        );
    }
    api.verify().await;
}

#[tokio::test]
async fn reads_are_not_held_up_by_a_write() {
    let (api, client) = router().await;
    post("/configure")
        .respond_with(ok(json!(null)).set_delay(Duration::from_millis(600)))
        .mount(api.server())
        .await;
    post("/retrieve")
        .respond_with(ok(json!(true)))
        .mount(api.server())
        .await;
    let cmds = batch();
    let started = Instant::now();
    let (w, r) = tokio::join!(client.configure(&cmds, None), async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let r = client.exists(&["system"]).await;
        (r, started.elapsed())
    });
    w.unwrap();
    assert!(r.0.unwrap());
    assert!(
        r.1 < Duration::from_millis(500),
        "the read waited for the write: {:?}",
        r.1
    );
}

/// A router whose `/configure` answers too late, whose configuration reads back as `after`.
async fn slow_router(after: &str) -> (MockApi, Client) {
    slow_router_reading_back(ok(json!(after))).await
}

/// A router whose `/configure` answers too late and whose `/retrieve` answers `read_back`.
async fn slow_router_reading_back(read_back: ResponseTemplate) -> (MockApi, Client) {
    let api = MockApi::start("").await;
    let http = api
        .client_builder()
        .request_timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let client = Client::new(http, cpps_vyos::SecretString::from(KEY.to_owned()));
    // A client that stops waiting does not stop the server: `_configure_op` (vyos-1x
    // `src/services/api/rest/routers.py`; sagitta's `src/services/vyos-http-api-server`) commits
    // under its global lock whatever became of the connection, so a commit that timed out may
    // still be applied: the client must neither retry nor guess, but read back.
    post("/configure")
        .respond_with(ok(json!(null)).set_delay(Duration::from_secs(2)))
        .expect(1)
        .mount(api.server())
        .await;
    // Read before the write (a refusal is judged against it) and once after it.
    post("/retrieve")
        .respond_with(read_back)
        .expect(2)
        .mount(api.server())
        .await;
    (api, client)
}

/// The configuration `basic-api-service.config.boot`, and a copy whose host name is `franca-gw`.
fn basic_and_renamed() -> (ConfigTree, ConfigTree) {
    let before = ConfigTree::parse_boot(&config_fixture("basic-api-service.config.boot")).unwrap();
    let mut after = before.clone();
    after
        .set_value(&["system", "host-name"], "franca-gw")
        .unwrap();
    (before, after)
}

#[tokio::test]
async fn a_timed_out_write_that_landed_is_reported_as_landed() {
    let (before, mut after) = basic_and_renamed();
    after
        .apply(&Command::delete(["system", "ntp"], None))
        .unwrap();
    let cmds = diff(&before, &after);
    assert_eq!(cmds.len(), 3, "{cmds:?}");
    let (api, client) = slow_router(&after.to_boot_string()).await;
    match client.configure(&cmds, None).await {
        Err(Error::WriteTimedOut {
            endpoint: "configure",
            landed,
            source,
        }) => {
            assert_eq!(landed, Landed::Yes);
            assert_eq!(source.delivery(), cpps_http::Delivery::MaybeSent);
        }
        other => panic!("{other:?}"),
    }
    api.verify().await;
}

/// A timed-out write whose read-back is refused too: what landed is unknown, and the reason says
/// that the read-back failed (never a guess of yes or no).
#[tokio::test]
async fn a_timed_out_write_whose_read_back_fails_is_unknown() {
    let cmds = vec![Command::set(["system", "host-name"], Some("franca-gw"))];
    let (api, client) = slow_router_reading_back(err(400, "Configuration is locked")).await;
    match client.configure(&cmds, None).await {
        Err(Error::WriteTimedOut {
            landed: Landed::Unknown { reason },
            ..
        }) => {
            assert!(
                reason.starts_with("reading the configuration back failed: "),
                "{reason}"
            );
            assert!(reason.contains("Configuration is locked"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    api.verify().await;
}

/// S3 of issue 32, confirmed: nginx waits 600 s for the API (`proxy_read_timeout 600`, vyos-1x
/// `data/templates/https/nginx.default.j2`), the API's commit goes on after the client stopped
/// waiting, and `retrieve_op` (`src/services/api/rest/routers.py`) does not take the lock that
/// `_configure_op` holds while committing: a read-back that does not show the change may have
/// raced the commit. So it is unknown, never "not landed". Failed first: `Landed::No`.
#[tokio::test]
async fn a_timed_out_write_not_seen_yet_is_unknown_not_absent() {
    let (before, after) = basic_and_renamed();
    let cmds = diff(&before, &after);
    let (api, client) = slow_router(&before.to_boot_string()).await;
    match client.configure(&cmds, None).await {
        Err(Error::WriteTimedOut {
            landed: Landed::Unknown { reason },
            ..
        }) => {
            assert!(reason.contains("landed: no"), "{reason}");
            assert!(reason.contains("may still be running"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    api.verify().await;
}

#[tokio::test]
async fn config_file_save_load_and_merge() {
    let (api, client) = router().await;
    // `vyos-http-api.md`, "/config-file": save with and without file; load/merge a file or an
    // inline `string`; `confirm_time` at the top level; a merge asks `destructive` (vyos-1x PR
    // #4574's `ConfigFileModel`; see tests/config_file_merge.rs).
    // With its version footer, and in the dialect VyOS's loader reads (every value in double
    // quotes): sent as it is.
    let inline = format!(
        "interfaces {{\n    ethernet eth1 {{\n        address \"192.168.2.137/24\"\n    }}\n}}\n{}",
        common::FOOTER
    );
    let inline = inline.as_str();
    // A 1.5 router (`/info`), whose commit-confirm action is the default, and whose
    // configuration reads back as the merged text.
    serve_info_1_5(&api).await;
    post("/retrieve")
        .and(body_partial_json(json!({"op": "returnValue"})))
        .respond_with(ok(json!(null)))
        .mount(api.server())
        .await;
    post("/retrieve")
        .and(body_partial_json(json!({"op": "showConfig"})))
        .respond_with(ok(json!(inline)))
        .mount(api.server())
        .await;
    for (body, answer) in [
        (
            format!(r#"{{"key":"{KEY}","op":"save"}}"#),
            "Saving configuration to '/config/config.boot'...\nDone\n",
        ),
        (
            format!(r#"{{"key":"{KEY}","op":"save","file":"/config/test.config"}}"#),
            "Saving configuration to '/config/test.config'...\nDone\n",
        ),
        (
            format!(r#"{{"key":"{KEY}","op":"load","file":"/config/test.config"}}"#),
            "",
        ),
        (
            format!(
                r#"{{"key":"{KEY}","op":"merge","string":{},"confirm_time":2,"destructive":true}}"#,
                serde_json::to_string(inline).unwrap()
            ),
            "Initialized commit-confirm; 2 minutes to confirm before reload\n",
        ),
    ] {
        post("/config-file")
            .and(body_string(body))
            .respond_with(ok(if answer.is_empty() {
                json!(null)
            } else {
                json!(answer)
            }))
            .expect(1)
            .mount(api.server())
            .await;
    }
    assert!(
        client
            .save(None)
            .await
            .unwrap()
            .message
            .starts_with("Saving configuration to '/config/config.boot'")
    );
    assert!(
        client
            .save(Some("/config/test.config"))
            .await
            .unwrap()
            .message
            .contains("test.config")
    );
    assert_eq!(
        client
            .load(&ConfigSource::File("/config/test.config".into()), None)
            .await
            .unwrap()
            .message,
        ""
    );
    let merged = client
        .merge(&ConfigSource::Inline(inline.into()), NonZeroU32::new(2))
        .await
        .unwrap();
    assert!(
        merged
            .message
            .starts_with("Initialized commit-confirm; 2 minutes")
    );
    // Inline text that does not parse is refused before sending.
    let e = client
        .merge(&ConfigSource::Inline("interfaces {\n".into()), None)
        .await
        .unwrap_err();
    assert!(matches!(e, Error::Parse(ref p) if p.line == 2), "{e:?}");
    api.verify().await;
    api.assert_no_unexpected_requests();
}

#[tokio::test]
async fn operational_calls_send_their_documented_bodies() {
    let (api, client) = router().await;
    // `vyos-http-api.md`: /show, /generate, /reset, /reboot, /poweroff, /image.
    let cases = [
        (
            "/show",
            r#""op":"show","path":["system","image"]"#,
            "1: 1.4-rolling (default boot)\n",
        ),
        (
            "/generate",
            r#""op":"generate","path":["pki","wireguard","key-pair"]"#,
            "Private key: x\n",
        ),
        (
            "/reset",
            r#""op":"reset","path":["ip","bgp","192.0.2.11"]"#,
            "",
        ),
        ("/reboot", r#""op":"reboot","path":["now"]"#, ""),
        ("/poweroff", r#""op":"poweroff","path":["now"]"#, ""),
        (
            "/image",
            r#""op":"add","url":"https://downloads.vyos.io/rolling-latest.iso""#,
            "Done\n",
        ),
        (
            "/image",
            r#""op":"delete","name":"1.3-rolling-202006070117""#,
            "Deleting\n",
        ),
        ("/image", r#""op":"set_default","name":"1.4.0""#, "ok\n"),
    ];
    for (p, fields, answer) in cases {
        post(p)
            .and(body_string(format!(r#"{{"key":"{KEY}",{fields}}}"#)))
            .respond_with(ok(json!(answer)))
            .expect(1)
            .mount(api.server())
            .await;
    }
    assert_eq!(
        client.show(&["system", "image"]).await.unwrap(),
        "1: 1.4-rolling (default boot)\n"
    );
    assert_eq!(
        client
            .generate(&["pki", "wireguard", "key-pair"])
            .await
            .unwrap(),
        "Private key: x\n"
    );
    assert_eq!(
        client.reset(&["ip", "bgp", "192.0.2.11"]).await.unwrap(),
        ""
    );
    assert_eq!(client.reboot(&["now"]).await.unwrap(), "");
    assert_eq!(client.poweroff(&["now"]).await.unwrap(), "");
    assert_eq!(
        client
            .image_add("https://downloads.vyos.io/rolling-latest.iso")
            .await
            .unwrap(),
        "Done\n"
    );
    assert_eq!(
        client
            .image_delete("1.3-rolling-202006070117")
            .await
            .unwrap(),
        "Deleting\n"
    );
    assert_eq!(client.image_set_default("1.4.0").await.unwrap(), "ok\n");
    api.verify().await;
    api.assert_no_unexpected_requests();
}

/// Z1 (second s45 audit of issue 32): vyos-1x `src/services/api/rest/routers.py`
/// `_configure_op` (current; sagitta's `src/services/vyos-http-api-server` alike) runs the
/// batch's `session.set`/`session.delete` in order in one session and commits once, so
/// `delete P; set P v` leaves P holding only v: that is the batch's result, and both commands
/// landed. Failed first: the delete was judged alone (P still exists), and the batch read
/// `Partly` on both versions.
#[tokio::test]
async fn a_delete_then_set_of_one_leaf_is_judged_as_a_batch() {
    let address = ["interfaces", "ethernet", "eth1", "address"];
    let batch = vec![
        Command::delete(address, None),
        Command::set(address, Some("192.0.2.1/24")),
    ];
    for profile in [Profile::V14, Profile::V15] {
        let running =
            ConfigTree::parse_boot(&config_fixture("dialup-router-medium-vpn.config.boot"))
                .unwrap();
        assert_eq!(running.values(&address), ["192.168.0.250/24"]);
        let (_api, client, fake) = FakeRouter::new(profile, running).start().await;
        let done = client.configure(&batch, None).await.unwrap();
        assert_eq!(fake.running().values(&address), ["192.0.2.1/24"]);
        assert_eq!(done.landed, Landed::Yes, "{profile:?}: {:?}", done.commands);
        let each: Vec<_> = done.commands.iter().map(|c| c.landed).collect();
        assert_eq!(each, [Some(true), Some(true)], "{profile:?}");
        assert!(done.warnings.is_empty(), "{profile:?}: {:?}", done.warnings);
    }
}

/// Z1, a node the batch deletes and recreates with a password: `_configure_op`
/// (`routers.py`) runs both in one session, and vyos-1x `src/conf_mode/system_login.py`
/// `generate()` then replaces `plaintext-password` by `encrypted-password` during the commit,
/// so the recreated user differs from the batch's only by that rewrite and the delete landed.
/// A user still holding the old public key shows the delete did not land.
#[test]
fn a_recreated_user_is_judged_without_its_rewritten_password() {
    let user = "system login user ops";
    let before = ConfigTree::parse_set(&format!(
        "set {user} authentication encrypted-password '$6$old'\nset {user} authentication public-keys k1 key 'AAAA'\nset {user} authentication public-keys k1 type 'ssh-ed25519'\n"
    ))
    .unwrap();
    let words = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    let batch = vec![
        Command::delete(words(user), None),
        Command::set(
            words(&format!("{user} authentication plaintext-password")),
            Some("Hunter2-never-shown"),
        ),
    ];
    let now = ConfigTree::parse_set(&format!(
        "set {user} authentication encrypted-password '$6$new'\n"
    ))
    .unwrap();
    let (landed, _) = cpps_vyos::api::configure::read_back_since(Some(&before), &now, &batch);
    assert_eq!(landed, Landed::Yes);
    let mut kept_key = before.clone();
    kept_key
        .apply(&Command::set(
            words(&format!("{user} authentication encrypted-password")),
            Some("$6$new"),
        ))
        .unwrap();
    let (landed, each) =
        cpps_vyos::api::configure::read_back_since(Some(&before), &kept_key, &batch);
    assert_eq!(each[0].landed, Some(false), "{landed}");
}
